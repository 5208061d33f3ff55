"""Other libraries: LightGBM and XGBoost objectives and metrics, Dask and Spark evaluation,
the ir_measures provider. Each name carries its library's name; each private module imports
its library lazily, so importing this room imports none of them. The
public names are the imports of ``__init__.pyi``, each module imported on first use.
"""
from fastndcg._core import faces as _faces

# the names and their modules are the imports of __init__.pyi; each module is imported on first use
__getattr__, __dir__, __all__ = _faces.attach_stub(__name__, __file__)
