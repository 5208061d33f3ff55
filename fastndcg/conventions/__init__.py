"""Conventions: every choice that makes NDCG differ between tools (gain,
discount, ties, empty and short queries, the ideal list, precision,
aggregation), as one frozen :class:`Convention`, and the presets that
reproduce each well-known tool. The bottom room: it imports nothing else
from fastndcg."""
from fastndcg.conventions.convention import (ABOVE_ONE_TOLERANCE, DEFAULT, MAX_EXPONENTIAL_LABEL, Convention, Cutoffs,
                                            ScoreOverflowWarning)
from fastndcg.conventions.presets import PRESETS, as_convention, get_preset, ideal_source, list_presets
from fastndcg.conventions.topics import DEFAULT_MISSING, MISSING_TOPICS, check_missing

__all__ = ["ABOVE_ONE_TOLERANCE", "DEFAULT", "DEFAULT_MISSING", "MISSING_TOPICS", "check_missing", "MAX_EXPONENTIAL_LABEL", "Convention", "Cutoffs", "PRESETS", "ScoreOverflowWarning", "as_convention",
           "get_preset", "ideal_source", "list_presets"]
