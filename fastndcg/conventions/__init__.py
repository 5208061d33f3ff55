"""Conventions: every choice that makes NDCG differ between tools (gain,
discount, ties, empty and short queries, the ideal list, precision,
aggregation), as one frozen :class:`fastndcg.Convention`, and the presets that
reproduce each well-known tool. The bottom room: it imports nothing else
from fastndcg.

Public here: what a convention means beyond the class itself (``Convention``,
``PRESETS``, ``get_preset`` and ``list_presets`` are public at the top level,
``fastndcg.Convention``, only there): the default, the types and limits, the rule for
judged topics missing from a run, where a tool takes its ideal list from, and
trec_eval's gain levels of unjudged and negatively judged documents.
"""
from fastndcg.conventions._convention import (ABOVE_ONE_TOLERANCE, DEFAULT, MAX_EXPONENTIAL_LABEL, Cutoffs,
                                              ScoreOverflowWarning, UnknownLabelWarning)
from fastndcg.conventions._presets import as_convention, ideal_source
from fastndcg.conventions._topics import DEFAULT_MISSING, MISSING_TOPICS, check_missing
from fastndcg.conventions._trec_levels import LEVEL_NEGATIVE, LEVEL_UNJUDGED

__all__ = ["ABOVE_ONE_TOLERANCE", "DEFAULT", "DEFAULT_MISSING", "LEVEL_NEGATIVE", "LEVEL_UNJUDGED",
           "MAX_EXPONENTIAL_LABEL", "MISSING_TOPICS", "Cutoffs", "ScoreOverflowWarning", "UnknownLabelWarning",
           "as_convention", "check_missing", "ideal_source"]
