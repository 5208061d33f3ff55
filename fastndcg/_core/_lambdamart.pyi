"""Type stubs of the LambdaMART kernels (fastndcg/_core/_lambdamart_impl.pxi; the same
functions are in _lambdamart_avx2)."""
from typing import Any, Optional, Tuple

import numpy as np
import numpy.typing as npt

from fastndcg._core._kernel_plan import CompiledPlan

Array = npt.NDArray[Any]
F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

SIGMOID_BINS: int

def built_for_avx2() -> bool: ...
def exp_neg(a: F64, out: F64) -> None: ...
class LambdaMARTSetup:
    def __init__(self, plan: CompiledPlan, mode: int, trunc: int, sigma: float, score_norm: bool,
                 list_norm: bool, w_norm: float) -> None: ...
    def set_sigmoid(self, sig_table: F64, sig_lo: float, sig_hi: float, sig_factor: float) -> None: ...
    def set_queries(self, tie_key: I64, inv_ideal: F64, query_weights: F64, row_weights: F64,
                    max_n: int) -> None: ...

class LambdaMARTRound:
    def __init__(self, positions: Optional[npt.NDArray[np.int32]] = ...,
                 position_bias: Optional[npt.NDArray[np.float32]] = ..., t_plus: Optional[F64] = ...,
                 t_minus: Optional[F64] = ..., li_rows: Optional[F64] = ..., lj_rows: Optional[F64] = ...,
                 mean_pairs: bool = ..., num_pair: int = ..., seed_round: int = ...) -> None: ...

def grad_hess_batch(setup: LambdaMARTSetup, scores: Array, labels: Array, offsets: I64, grad: Array, hess: Array,
                    flags: Array, n_threads: int, state: Optional[LambdaMARTRound] = ...) -> int: ...
def pairs_batch(setup: LambdaMARTSetup, scores: Array, labels: Array, offsets: I64, queries: I64, slots: I64,
                cut_discount: bool, out_pairs: I64, out_delta: F64, n_threads: int) -> I64: ...
def lightgbm_sigmoid_table(sigma: float) -> Tuple[F64, float, float, float]: ...
def lightgbm_max_dcg(labels: Array, offsets: I64, table: F64, disc: F64, k: int, out: F64) -> None: ...
def lightgbm_position_bias_update(grad: Array, hess: Array, ids: npt.NDArray[np.int32],
                                  factors: npt.NDArray[np.float32], regularization: float,
                                  learning_rate: float) -> None: ...
def xgboost_position_bias_update(li_rows: F64, lj_rows: F64, offsets: I64, t_plus: F64, t_minus: F64,
                                 bias_norm: float) -> None: ...
