# LambdaMART kernels compiled with AVX2 (x86-64, GCC or Clang: setup.py adds
# -mavx2, never FMA, and keeps -ffp-contract=off): the vectorised per-pair
# passes run four doubles wide instead of two. Imported only after
# the NDCG kernel's simd_level() says the CPU can run AVX2 (the one rule:
# _lambdamart_checks._kernels). Same bits as the
# baseline build: every operation is an IEEE operation on the same operands.
include "_lambdamart_impl.pxi"
