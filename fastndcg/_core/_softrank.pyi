"""Type stubs of the SoftNDCG kernels (fastndcg/_core/_softrank.pyx)."""
from typing import Any

import numpy as np
import numpy.typing as npt

from fastndcg._core._kernel_plan import CompiledPlan

Array = npt.NDArray[Any]

def _set_pair_cache_limit(doubles: int) -> Any: ...
class SoftNDCGTables:
    def __init__(self, plan: CompiledPlan, max_docs: int, idcg: npt.NDArray[np.float64], max_n: int) -> None: ...

def soft_ndcg_batch(tables: SoftNDCGTables, scores: Array, labels: Array, offsets: npt.NDArray[np.int64],
                    sigma: float, values: npt.NDArray[np.float64], grad: Array, hess: Array,
                    n_threads: int) -> None: ...
def rank_distribution_batch(scores: Array, offsets: npt.NDArray[np.int64], sigma: float,
                            out: npt.NDArray[np.float64], max_n: int, n_threads: int) -> None: ...
