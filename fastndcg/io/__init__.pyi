"""Type stub of the public face (also read at run time by fastndcg._core.faces: one list of names)."""
from fastndcg.io._alignment import AlignedRun
from fastndcg.io._joining import JoinedRun, align_run, iter_joined, join_run_file, join_runs
from fastndcg.io._datasets import ClickLog, RankingData, cascade_clicks, mslr_like
from fastndcg.io._example_files import write_examples
from fastndcg.io._files import DEFAULT_BLOCK_SIZE, iter_line_blocks, open_binary
from fastndcg.io._frames import frame_arrays
from fastndcg.io._numbers import read_group_file, read_predictions
from fastndcg.io._svmlight import SvmlightChunk, SvmlightData, group_file_for, iter_svmlight, read_svmlight
from fastndcg.io._trec import Qrels, Run, TrecTable, iter_run, read_qrels, read_run

__all__ = [
    # TREC
    "Qrels", "Run", "TrecTable", "read_qrels", "read_run", "iter_run",
    "AlignedRun", "JoinedRun", "align_run", "join_run_file", "join_runs", "iter_joined",
    # SVMlight / LETOR, predictions, group files
    "SvmlightChunk", "SvmlightData", "read_svmlight", "iter_svmlight", "group_file_for",
    "read_predictions", "read_group_file",
    # files, frames, generated data
    "DEFAULT_BLOCK_SIZE", "open_binary", "iter_line_blocks", "frame_arrays",
    "ClickLog", "RankingData", "cascade_clicks", "mslr_like", "write_examples",
]
