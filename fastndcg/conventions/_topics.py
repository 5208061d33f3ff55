"""Which topics a mean is over: the rule for judged topics that a run has no results for.

This is part of a measurement as much as the gain or the discount (trec_eval 10
stops, ``trec_eval -c`` and ir_measures count them 0, trec_eval 9.x leaves them
out), so it has one name and one default everywhere: ``missing=`` in Python,
``--missing`` on the command line, and the ``missing:`` field of a signature.
"""
from __future__ import annotations

#: ``"error"``: stop and name the topics (trec_eval 10); ``"zero"``: score them
#: (0 for every NDCG measure unless custom gains give level -1 a gain; trec_eval
#: ``-c``, ir_measures); ``"skip"``: leave them out of the mean (trec_eval 9.x,
#: pytrec_eval).
MISSING_TOPICS = ("error", "zero", "skip")

#: The one default, in every front-end: never average over fewer topics than
#: were judged without saying so.
DEFAULT_MISSING = "error"


def check_missing(missing: object, argument: str = "missing") -> str:
    """``missing`` if it is one of :data:`MISSING_TOPICS`, else a ValueError naming ``argument``."""
    if not isinstance(missing, str) or missing not in MISSING_TOPICS:
        raise ValueError(f"{argument} must be one of {MISSING_TOPICS}; got {missing!r}")
    return missing
