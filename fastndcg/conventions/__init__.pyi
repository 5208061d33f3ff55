"""Type stub of the public face (also read at run time by fastndcg._core.faces: one list of names)."""
from fastndcg.conventions._convention import ScoreOverflowWarning, UnknownLabelWarning
from fastndcg.conventions._topics import MISSING_TOPICS

__all__ = ["MISSING_TOPICS", "ScoreOverflowWarning", "UnknownLabelWarning"]
