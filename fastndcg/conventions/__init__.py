"""Conventions: every choice that makes NDCG differ between tools (gain, discount, ties, empty and
short queries, the ideal list, precision, aggregation) is one frozen :class:`fastndcg.Convention`,
and a preset reproduces a well-known tool. The bottom room: it imports nothing else from fastndcg
but the machinery of this face.

``Convention``, ``PRESETS``, ``get_preset`` and ``list_presets`` are public at the top level, only
there. Public here: the rules for judged topics missing from a run (``missing=``) and the warnings
a convention gives.

>>> import warnings
>>> import fastndcg
>>> from fastndcg.conventions import MISSING_TOPICS, UnknownLabelWarning
>>> MISSING_TOPICS                                       # missing=: trec_eval 10, -c, trec_eval 9
('error', 'zero', 'skip')
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     fastndcg.ndcg([0.9, 0.5], [3, 1], [0, 2], convention="letor4").tolist()
[1.0]
>>> caught[0].category is UnknownLabelWarning            # label 3 is beyond LETOR 4.0's table (0-2): gain 0
True

The public names are the imports of ``__init__.pyi``, each module imported on first use (the code
is in private modules, ``_x.py``).
"""
from fastndcg._core import faces as _faces

#: names that left the face, documented before: (private module, name there, what to use instead)
_DEPRECATED = {
    "ideal_source": ("fastndcg.conventions._presets", "ideal_source",
                     "the Convention's field: fastndcg.get_preset(name).ideal_source"),
}

# the names and their modules are the imports of __init__.pyi; each module is imported on first use
__getattr__, __dir__, __all__ = _faces.attach_stub(__name__, __file__, deprecated=_DEPRECATED)
