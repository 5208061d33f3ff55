"""Type stubs of the compiled NDCG kernels (fastndcg/_core/_ndcg.pyx)."""
from typing import Any, Optional, Tuple

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]

def discount_table(kind: int, n: int) -> npt.NDArray[np.float64]: ...

class NDCGKernel:
    labels: Array
    def __init__(self, labels: Array, offsets: Array, idcg: npt.NDArray[np.float64], table: Array,
                 last: int, linear: bool, count_size: int, levels: Optional[Array], need_integer: bool,
                 label_limit: float, table_holes: bool, round_f32: bool, score_limit: float, overflow_inf: bool,
                 tie_mode: int,
                 key_desc: bool, disc: Array, ideal_disc: Array, ideal_whole: bool, cutoffs: Array,
                 short_limit: Array, empty_value: float, max_n: int) -> None: ...
    def compute_ideal(self, flags: npt.NDArray[np.int8], check_labels: bool, n_threads: int) -> bool: ...
    def score(self, scores: Array, tie_key: Optional[Array], dcg_out: npt.NDArray[np.float64],
              ndcg_out: Optional[npt.NDArray[np.float64]], flags: npt.NDArray[np.int8], fuse_ideal: bool,
              check_labels: bool, check_scores: bool, n_threads: int) -> bool: ...
    def label_problem(self, q: int) -> Tuple[int, int]: ...
    def score_problem(self, scores: Array, q: int) -> Tuple[int, int]: ...

def score_problems(scores: Array, offsets: Array, limit: float, flags: npt.NDArray[np.int8],
                   n_threads: int, inf_ok: bool = ...) -> bool: ...
def first_score_problem(scores: Array, start: int, stop: int, limit: float,
                        inf_ok: bool = ...) -> Tuple[int, int]: ...
def check_labels_batch(labels: Array, offsets: Array, table: Optional[Array], last: int, need_integer: bool,
                       label_limit: float, table_holes: bool, flags: npt.NDArray[np.int8],
                       qmax: npt.NDArray[np.float64], n_threads: int) -> bool: ...
def first_label_problem(labels: Array, start: int, stop: int, table: Optional[Array], last: int,
                        need_integer: bool, label_limit: float, table_holes: bool) -> Tuple[int, int]: ...
