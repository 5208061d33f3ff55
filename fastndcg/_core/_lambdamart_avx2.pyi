"""Type stubs of the AVX2 build of the LambdaMART kernels: the same functions as
fastndcg/_core/_lambdamart.pyi (one source, _lambdamart_impl.pxi)."""
from fastndcg._core._lambdamart import *  # noqa: F401,F403
