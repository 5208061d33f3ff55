"""The private core: the compiled kernels (``_*.pyx``, one ranking comparator in
``_rank.pxd``), the thread policy, the resolution of a convention into kernel
tables, validation, and the prepared queries every NDCG front-end runs on.
It imports only :mod:`fastndcg.conventions`; nothing here is public API."""

# Every compiled module is built together; one of them missing means the package
# was imported from a source tree that was never built (typically the checkout's
# root, whose fastndcg/ folder hides the installed package). Say so here, once,
# instead of failing later at whichever compiled import comes first.
import importlib.util as _util
import os as _os

if _util.find_spec("fastndcg._core._openmp") is None:
    raise ImportError(
        "fastndcg has not been built correctly: the package imported from "
        f"{_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))} has no compiled extensions. "
        "If this is a source checkout (Python puts the current directory first, so its fastndcg/ folder hides "
        "the installed package), run Python from another directory, or build the checkout in place with "
        "`pip install -e .` (or `python setup.py build_ext --inplace`).")
