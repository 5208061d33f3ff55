"""Evaluation of inputs larger than memory, by query-complete chunks (``.npy``, Parquet,
SVMlight, TREC runs), and the NDCG of data frames. The code is in private modules (``_x.py``);
the public names are the imports of ``__init__.pyi``, each module imported on first use.
"""
from fastndcg._core import faces as _faces

# the names and their modules are the imports of __init__.pyi; each module is imported on first use
__getattr__, __dir__, __all__ = _faces.attach_stub(__name__, __file__)
