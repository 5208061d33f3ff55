"""Type stubs of the compiled per-query checks (fastndcg/_core/_check.pyx)."""
from typing import Tuple

import numpy as np
import numpy.typing as npt

def offsets_problem(offsets: npt.NDArray[np.int64], n_docs: int) -> Tuple[int, int, int]: ...
