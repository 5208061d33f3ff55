"""Type stubs of the file scanners (fastndcg/io/_parse.pyx)."""
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

Bytes = Any          # bytes, bytearray, memoryview or a uint8 array
F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
U8 = npt.NDArray[np.uint8]

STATUS: Dict[str, int]

class SvmlightOutputs:
    def __init__(self, labels: F64, qids: I64, lines: I64, pool: U8, dstart: I64, fval: F64, fidx: I64,
                 fptr: I64) -> None: ...

def parse_svmlight(buf: Bytes, line: int, qid_mode: int, want_docid: bool, want_features: bool,
                   out: SvmlightOutputs, pool_used: int, nnz: int) -> Tuple[int, int, int, int, int, int, int]: ...

def parse_numbers(buf: Bytes, line: int, column: int, integer: bool, out: F64,
                  iout: I64) -> Tuple[int, int, int, int]: ...

class TrecOutputs:
    def __init__(self, score: F64, rel: I64, lines: I64, pool: U8, dstart: I64, seg_row: I64, tpool: U8,
                 tstart: I64) -> None: ...

def parse_trec(buf: Bytes, line: int, is_run: bool, out: TrecOutputs,
               pool_used: int) -> Tuple[int, int, int, int, int, int, int, int, int]: ...

def group_rows(seg_first: I64, seg_code: I64, order: I64, goff: I64) -> None: ...
def tie_keys(pool: U8, start: I64, length: I64, scores: F64, goff: I64, out: I32, n_threads: int) -> None: ...
def keep_top(scores: F64, tie_key: I64, offsets: I64, max_docs: int, round_f32: bool, kept: U8,
             n_threads: int) -> None: ...

class RunRows:
    def __init__(self, pool: U8, dstart: I64, pool_end: int, values: F64) -> None: ...

class JoinedRows:
    def __init__(self, scores: F64, match: I32, tie_key: I32, dup: I64) -> None: ...

class DocnoIndex:
    pool: U8
    start: I64
    length: I64
    offsets: I64
    table_start: I64
    table: npt.NDArray[np.uint64]
    def __init__(self, pool: U8, start: I64, length: I64, offsets: I64, n_threads: int = 1) -> None: ...
    def join(self, rows: RunRows, order: I64, goff: I64, qgroup: I64, dst: I64, out: JoinedRows, scratch: I64,
             n_threads: int) -> None: ...

class TopicBlocks:
    def __init__(self, src_start: I64, dst_start: I64, length: I64, top: int = 0, key_order: int = 0,
                 round_f32: bool = False) -> None: ...

def place_topics(scores: F64, match: I32, tie_key: I32, relevance: I64, blocks: TopicBlocks,
                 out_scores: F64, out_tie_key: I64, out_labels: npt.NDArray[np.int32] | I64,
                 out_status: npt.NDArray[np.int8], n_threads: int) -> None: ...

def cut_topics(scores: F64, match: I32, tie_key: I32, blocks: TopicBlocks, out_scores: F64, out_match: I32,
               out_tie_key: I32, n_threads: int) -> None: ...

def sort_groups(pool: U8, start: I64, length: I64, order: I64, goff: I64, n_threads: int) -> None: ...
def first_duplicate(pool: U8, start: I64, length: I64, goff: I64) -> int: ...

class GroupedStrings:
    def __init__(self, pool: U8, start: I64, length: I64, offsets: I64) -> None: ...

def join_sorted(a: GroupedStrings, b: GroupedStrings, pair_a: I64, pair_b: I64, match: I64,
                n_threads: int) -> None: ...

def to_fixed_width(pool: U8, start: I64, length: I64, out: npt.NDArray[np.uint8]) -> None: ...
def count_byte(buf: Bytes, c: int) -> int: ...
def dict_rows(data: dict, integer: bool) -> Optional[Tuple[List[Any], I64, U8, I64, npt.NDArray[Any]]]: ...
