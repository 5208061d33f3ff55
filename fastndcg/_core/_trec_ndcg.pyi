"""Type stubs of trec_eval's prefix NDCG measures (fastndcg/_core/_trec_ndcg.pyx)."""
from typing import Optional

import numpy as np
import numpy.typing as npt

from fastndcg._core._kernel_plan import CompiledPlan

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

class PrefixTopics:
    def __init__(self, plan: CompiledPlan, scores: F64, tie_key: Optional[I64], gains: F64,
                 offsets: I64) -> None: ...
    def set_walks(self, walk: F64, walk_offsets: I64, walk_p: F64, walk_p_offsets: I64, n_rel: I64,
                  rel_ret: I64) -> None: ...

def prefix_measures(topics: PrefixTopics, ndcg_rel: F64, rndcg: F64, ndcg_p: F64, n_threads: int) -> bool: ...
