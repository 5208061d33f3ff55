"""Type stubs of trec_eval's prefix NDCG measures (fastndcg/_core/_trec_ndcg.pyx)."""
from typing import Optional

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

def prefix_measures(scores: F64, tie_key: Optional[I64], key_desc: bool, round_f32: bool, gains: F64,
                    offsets: I64, walk: F64, walk_offsets: I64, walk_p: F64, walk_p_offsets: I64, n_rel: I64,
                    rel_ret: I64, ndcg_rel: F64, rndcg: F64, ndcg_p: F64, want_rel: bool, want_r: bool,
                    want_p: bool, max_n: int, n_threads: int) -> bool: ...
