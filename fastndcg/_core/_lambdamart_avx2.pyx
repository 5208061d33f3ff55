# LambdaMART kernels compiled with AVX2 (x86-64, GCC or Clang: setup.py adds
# -mavx2, never FMA, and keeps -ffp-contract=off): the vectorised per-pair
# passes run four doubles wide instead of two. Imported only after
# _lambdamart.cpu_has_avx2() says the CPU can run it. Same bits as the
# baseline build: every operation is an IEEE operation on the same operands.
include "_lambdamart_impl.pxi"
