"""fastndcg: compiled, exact NDCG and LambdaMART gradients under every convention.

Inputs are CSR: ``scores`` and ``labels`` of shape (n_docs,), and ``offsets``
of shape (n_queries + 1,) where query q owns rows ``offsets[q]:offsets[q+1]``.
"""
from fastndcg._version import __version__
from fastndcg._core import faces as _faces

# The headline API (fastndcg.ndcg, fastndcg.Convention, ...) is the imports of __init__.pyi, each
# module imported on first use: `fastndcg eval` and `import fastndcg` load only what they use.
# The other public names are in the rooms' faces (fastndcg.conventions, .measures, .io, .stream, .report,
# .integrations, .reference, .cli).
__getattr__, __dir__, __all__ = _faces.attach_stub(__name__, __file__)
