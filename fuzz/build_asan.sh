#!/usr/bin/env bash
# Build a copy of fastndcg whose extensions are compiled by clang with
# AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's coverage
# instrumentation (-fsanitize=fuzzer-no-link), for `python fuzz/run.py --asan`.
#
# The copy goes to build/fuzz-asan/src (the package sources plus the
# instrumented .so files); the checkout's own build is left alone. Rerun this
# script after changing anything under fastndcg/ (run.py --asan refuses a
# stale copy). Needs clang (Debian: apt-get install -y clang) and atheris
# (pip install atheris), whose asan_with_fuzzer.so is the runtime that
# run.py preloads.
#
# OpenMP is off in this build (FASTNDCG_NO_OPENMP=1): the parsers' prange
# loops run serially, and no OpenMP runtime built without ASan is mixed in.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

cc=${CC:-}
if [ -z "$cc" ]; then
  for c in clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
    if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
  done
fi
if [ -z "$cc" ]; then
  echo "build_asan.sh: clang not found (Debian: apt-get install -y clang)" >&2
  exit 2
fi
python -c "import atheris" 2>/dev/null || { echo "build_asan.sh: pip install atheris first" >&2; exit 2; }

out=$root/build/fuzz-asan
rm -rf "$out"
mkdir -p "$out/src"
cp setup.py pyproject.toml "$out/src/"
mkdir "$out/src/fastndcg"
cp fastndcg/*.py fastndcg/*.pyx fastndcg/*.pxd fastndcg/py.typed "$out/src/fastndcg/"

san="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
cd "$out/src"
echo "build_asan.sh: $($cc --version | head -1); flags: $san"
CC=$cc LDSHARED="$cc -shared" CFLAGS="$san" LDFLAGS="$san" \
  FASTNDCG_NO_OPENMP=1 FASTNDCG_BUILD_JOBS=2 \
  python setup.py -q build_ext --inplace -j 2 2>&1 | grep -v "warning:" | grep -iE "error|fastndcg:" || true
n=$(ls fastndcg/_*.so 2>/dev/null | wc -l)
if [ "$n" -eq 0 ]; then
  echo "build_asan.sh: no extension was built" >&2
  exit 1
fi
syms=$(nm -D fastndcg/_parse*.so)
if ! grep -q __asan_report <<<"$syms" || ! grep -q __sanitizer_cov <<<"$syms"; then
  echo "build_asan.sh: fastndcg/_parse lacks the ASan or coverage instrumentation" >&2
  exit 1
fi
echo "build_asan.sh: $n instrumented extensions in $out/src/fastndcg"
