"""Build script: Cython extensions with an OpenMP probe and a serial fallback.

Every ``fastndcg/<room>/_*.pyx`` is an extension module (``_lambdamart_avx2`` is the
LambdaMART kernels again, with ``-mavx2`` on x86-64; picked at run time when the
CPU has AVX2). OpenMP is used when a small
program that uses it compiles, links and runs; otherwise the build warns and
the kernels run serially (``fastndcg.openmp_enabled()`` reports which).
"""
import glob
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import warnings

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

DEBUG = os.environ.get("FASTNDCG_CYTHON_DEBUG", "0") != "0"
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": False,
    "initializedcheck": DEBUG,
    "nonecheck": False,
    "cdivision": True,
    "embedsignature": True,
    "cpow": True,
}
# Exactness over speed tricks: no -ffast-math, no -march=native, and no FMA
# contraction, so that float results match the textbook order of operations
# (and LightGBM/XGBoost's, which are built without contraction).
BASE_CFLAGS = ["-O3", "-ffp-contract=off", "-fno-fast-math"]

OMP_PROBE = r"""
#include <omp.h>
#include <stdio.h>
int main(void) {
    int n = 0;
    #pragma omp parallel reduction(+:n)
    n += 1;
    return (n > 0 && omp_get_max_threads() > 0) ? 0 : 1;
}
"""


def _openmp_flags(compiler_type):
    if compiler_type == "msvc":
        return ["/openmp"], []
    return ["-fopenmp"], ["-fopenmp"]


# Cythonize and compile the extensions in parallel (pip passes no -j):
# FASTNDCG_BUILD_JOBS overrides the CPU count.
BUILD_JOBS = int(os.environ.get("FASTNDCG_BUILD_JOBS", "0")) or (os.cpu_count() or 1)


class BuildExt(build_ext):
    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = BUILD_JOBS

    def _probe_openmp(self, cflags, ldflags):
        tmp = tempfile.mkdtemp()
        try:
            src = os.path.join(tmp, "probe.c")
            with open(src, "w") as f:
                f.write(OMP_PROBE)
            objs = self.compiler.compile([src], output_dir=tmp, extra_postargs=cflags)
            self.compiler.link_executable(objs, "probe", output_dir=tmp, extra_postargs=ldflags)
            exe = self.compiler.executable_filename("probe", output_dir=tmp)
            subprocess.check_call([exe], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            return True
        except Exception:
            return False
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def build_extensions(self):
        want = os.environ.get("FASTNDCG_NO_OPENMP", "0") == "0"
        cflags, ldflags = _openmp_flags(self.compiler.compiler_type)
        use_omp = want and self._probe_openmp(cflags, ldflags)
        if want and not use_omp:
            if os.environ.get("FASTNDCG_FAIL_NO_OPENMP"):
                raise RuntimeError("fastndcg: OpenMP was required but the compiler probe failed")
            warnings.warn("fastndcg: building WITHOUT OpenMP; kernels will run serially")
        for ext in self.extensions:
            if self.compiler.compiler_type != "msvc":
                ext.extra_compile_args += BASE_CFLAGS
                if ext.name.endswith("_avx2") and platform.machine().lower() in ("x86_64", "amd64"):
                    # The same kernels with AVX2 (not FMA), chosen at run time by CPU.
                    ext.extra_compile_args += ["-mavx2"]
            if use_omp:
                ext.extra_compile_args += cflags
                ext.extra_link_args += ldflags
        super().build_extensions()


def _extensions():
    from Cython.Build import cythonize

    # every fastndcg/<room>/_*.pyx is the extension module fastndcg.<room>._*
    sources = sorted(glob.glob(os.path.join("fastndcg", "*", "_*.pyx")))
    exts = [
        Extension(os.path.splitext(s)[0].replace(os.sep, "."), [s],
                  libraries=["m"] if sys.platform != "win32" else [])
        for s in sources
    ]
    return cythonize(exts, compiler_directives=DIRECTIVES, nthreads=BUILD_JOBS if BUILD_JOBS > 1 else None)


setup(ext_modules=_extensions(), cmdclass={"build_ext": BuildExt})
