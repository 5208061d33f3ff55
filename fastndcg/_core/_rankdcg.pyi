"""Type stubs of the RankDCG kernel (fastndcg/_core/_rankdcg.pyx)."""
from typing import Any

import numpy as np
import numpy.typing as npt

from fastndcg._core._kernel_plan import CompiledPlan

def rankdcg_batch(plan: CompiledPlan, reference: npt.NDArray[np.float64], predictions: npt.NDArray[Any],
                  offsets: npt.NDArray[np.int64], out: npt.NDArray[np.float64], max_n: int,
                  n_threads: int) -> None: ...
