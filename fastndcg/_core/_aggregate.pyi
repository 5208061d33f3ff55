"""Type stubs of the aggregate kernels (fastndcg/_core/_aggregate.pyx)."""
from typing import Any, Optional, Tuple

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

def terms(ndcg: F64, dcg: F64, idcg: F64, offsets: I64, short_limit: I64, weights: Optional[F64],
          ratio: bool, unweighted_empty: bool, num_out: F64, den_out: F64) -> None: ...
def sums(ndcg: F64, dcg: F64, idcg: F64, offsets: I64, short_limit: I64, weights: Optional[F64],
         ratio: bool, unweighted_empty: bool, n_threads: int = ...) -> Tuple[F64, F64]: ...
