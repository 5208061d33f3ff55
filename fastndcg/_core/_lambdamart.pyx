# LambdaMART kernels, built for the baseline instruction set of the target.
# The code is in _lambdamart_impl.pxi; _lambdamart_avx2.pyx is the same code
# compiled with AVX2 enabled (see setup.py), which fastndcg.measures._lambdamart_checks uses
# when the CPU has AVX2. Both give the same bits (see _lambdamart_impl.pxi).
include "_lambdamart_impl.pxi"
