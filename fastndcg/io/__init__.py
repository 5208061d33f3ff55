"""File formats and data, as CSR arrays: TREC qrels and runs (and the run-qrels join,
trec_eval's way), SVMlight/LETOR data, predictions and group files, data frames, and
generated data sets. Every reader parses with compiled code (``_parse``) one block of whole
lines at a time; malformed input raises a ValueError with ``path:line:`` in front. io never
imports the NDCG kernels or the measures: it returns arrays. The code is in private modules (``_x.py``); the
public names are the imports of ``__init__.pyi``, each module imported on first use.
"""
from fastndcg._core import faces as _faces

# the names and their modules are the imports of __init__.pyi; each module is imported on first use
__getattr__, __dir__, __all__ = _faces.attach_stub(__name__, __file__)
