"""Type stub of the public face (also read at run time by fastndcg._core.faces: one list of names)."""
from fastndcg.stream._chunks import Chunk, StreamResult
from fastndcg.stream._evaluate import evaluate_stream
from fastndcg.stream._frame_ndcg import frame_mean_ndcg, frame_ndcg

__all__ = ["evaluate_stream", "StreamResult", "Chunk", "frame_ndcg", "frame_mean_ndcg"]
