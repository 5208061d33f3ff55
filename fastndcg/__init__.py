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
# The SoftNDCG objectives became a choice of each library's objective (loss="softndcg"):
# their old names still resolve, with a DeprecationWarning naming the replacement.
_SOFT = "loss='softndcg', sigma=..., k=...)"
__getattr__, __dir__, __all__ = _faces.attach_stub(__name__, __file__, deprecated={
    "LightGBMSoftNDCGObjective": ("fastndcg.integrations._lightgbm", "LightGBMSoftNDCGObjective",
                                  f"fastndcg.integrations.LightGBMObjective({_SOFT}"),
    "XGBoostSoftNDCGObjective": ("fastndcg.integrations._xgboost", "XGBoostSoftNDCGObjective",
                                 f"fastndcg.integrations.XGBoostObjective({_SOFT}"),
    "SoftNDCGObjective": ("fastndcg.measures._softrank", "SoftNDCGObjective",
                          f"fastndcg.integrations.LightGBMObjective({_SOFT} (in a training, or on arrays as "
                          "objective(labels, preds, weights, group_sizes)) or XGBoostObjective"),
})
