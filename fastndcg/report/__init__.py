"""Reports on NDCG values: the comparison of conventions and systems (:class:`Comparison`, the
result of ``fastndcg.compare``; :class:`RunData` for runs with their own documents), paired
significance tests on per-query values (``compare_systems`` and the tests it runs), and
:func:`identify`: which NDCG reproduces a reported number.

>>> import fastndcg
>>> from fastndcg.report import compare_systems, paired_t_test
>>> fastndcg.compare([3, 2, 1], [0, 1, 2], [0, 3], k=[1, 3], presets=["standard", "sklearn"])
Comparison(systems ['run'], presets ['standard', 'sklearn'], measures ['ndcg@1', 'ndcg@3'], 1 queries)
>>> a, b = [0.61, 0.52, 0.70, 0.44, 0.58], [0.55, 0.50, 0.62, 0.45, 0.51]   # per-query NDCG
>>> round(paired_t_test(a, b).pvalue, 4)
0.0599
>>> compare_systems({"a": a, "b": b})[0].winner      # no winner at alpha=0.05
''

The code is in private modules (``_x.py``); the public names are the imports of
``__init__.pyi``, each module imported on first use.
"""
from fastndcg._core import faces as _faces

# the names and their modules are the imports of __init__.pyi; each module is imported on first use
__getattr__, __dir__, __all__ = _faces.attach_stub(__name__, __file__)
