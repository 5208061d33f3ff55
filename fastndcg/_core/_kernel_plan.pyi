"""Type stubs of the compiled kernel plan (fastndcg/_core/_kernel_plan.pyx)."""
from typing import Any, Dict, Optional

import numpy as np
import numpy.typing as npt

class CompiledPlan:
    def __init__(self, plan: Any, ideal_disc: Optional[npt.NDArray[np.float64]] = ...) -> None: ...
    def members(self) -> Dict[str, Any]: ...
