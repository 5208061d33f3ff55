"""Streaming: NDCG of inputs larger than memory, evaluated by chunks of whole queries with the
in-memory kernels (same numbers bit for bit), and the NDCG of data frames.

One door whatever the source, :func:`evaluate_stream`: an iterable of chunks, three ``.npy`` files
or arrays ``(scores, labels, offsets)``, a Parquet file, an SVMlight file with ``predictions=``, or
a TREC run with ``qrels=``; it returns a :class:`StreamResult`. :class:`Chunk` is one chunk of
whole queries; :func:`frame_ndcg` / :func:`frame_mean_ndcg` evaluate a pandas or polars DataFrame.

>>> import numpy as np
>>> from fastndcg.stream import evaluate_stream
>>> def chunks():                       # any iterable of (scores, labels, offsets) of whole queries
...     yield np.array([.9, .1]), np.array([1, 0]), np.array([0, 2])
...     yield np.array([.8, .3]), np.array([0, 2]), np.array([0, 2])
>>> evaluate_stream(chunks(), k=2)
StreamResult(1 measure, 2 queries, mean nDCG@2=0.8155, 4 rows in 2 chunks)

The code is in private modules (``_x.py``); the public names are the imports of ``__init__.pyi``,
each module imported on first use.
"""
from fastndcg._core import faces as _faces

# the names and their modules are the imports of __init__.pyi; each module is imported on first use
__getattr__, __dir__, __all__ = _faces.attach_stub(__name__, __file__)
