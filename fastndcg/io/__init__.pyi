"""Type stub of the public face (also read at run time by fastndcg._core.faces: one list of names)."""
from fastndcg.io._alignment import AlignedRun
from fastndcg.io._datasets import cascade_clicks, mslr_like
from fastndcg.io._joining import align_run
from fastndcg.io._numbers import read_group_file, read_predictions
from fastndcg.io._svmlight import SvmlightChunk, SvmlightData, iter_svmlight, read_svmlight
from fastndcg.io._trec import Qrels, Run, read_qrels, read_run

__all__ = [
    # TREC
    "Qrels", "Run", "read_qrels", "read_run", "AlignedRun", "align_run",
    # SVMlight / LETOR, predictions, group files
    "SvmlightChunk", "SvmlightData", "read_svmlight", "iter_svmlight",
    "read_predictions", "read_group_file",
    # generated data
    "cascade_clicks", "mslr_like",
]
