"""Labels and number formatting shared by the comparison's renderers: measure names, a preset's
fields as text, significant digits, rank tiers, the optional matplotlib import."""
from __future__ import annotations
import math
from dataclasses import fields as dataclass_fields
from typing import Any, Dict, List, Optional

from fastndcg.conventions._convention import Convention


ArrayLike = Any
Cutoff = Optional[int]

#: Fields of a convention shown in reports, in order: the choices that make tools disagree.
PRESET_FIELDS = ("gain", "unknown_label", "discount", "ties", "empty", "short", "ideal",
                 "aggregation", "score_precision")

#: Ideal sources: the run's own list, or external judgments (qrels).
IDEAL_CHOICES = ("auto", "qrels", "run")


# ============================================================================ helpers


def measure_name(k: Cutoff) -> str:
    return "ndcg" if k is None else f"ndcg@{k}"


def preset_fields(conv: Convention) -> Dict[str, str]:
    """The report's text for each field in :data:`PRESET_FIELDS`, and ``other``:
    any further field that differs from the default convention (``name=value``)."""
    return dict({f: _field_text(conv, f) for f in PRESET_FIELDS}, other=other_fields(conv))


def other_fields(conv: Convention) -> str:
    default = Convention()
    return " ".join(f"{f.name}={getattr(conv, f.name)}" for f in dataclass_fields(conv)
                    if f.name not in PRESET_FIELDS and f.name not in ("name", "ideal_source")
                    and getattr(conv, f.name) != getattr(default, f.name)) or "-"


def _field_text(conv: Convention, name: str) -> str:
    value = getattr(conv, name)
    if name == "gain":
        if value == "exponential":
            return "2^l-1"
        if value == "linear":
            return "l"
        vals = list(value)
        if len(vals) > 6 and all(v == 2.0**i - 1 for i, v in enumerate(vals)):
            return f"2^l-1 (l<={len(vals) - 1})"
        return "{" + ",".join(f"{i}:{_short_num(v)}" for i, v in enumerate(vals) if not math.isnan(v)) + "}"
    if name == "unknown_label":
        return value if conv.gain_is_table else "-"
    if name == "discount" and not isinstance(value, str):
        return f"array[{len(value)}]"
    return str(value)


def _short_num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _fmt(digits: int):
    def fmt(v: float) -> str:
        return "nan" if math.isnan(v) else f"{v:.{digits}f}"
    return fmt


def json_number(v: Any) -> Optional[float]:
    v = float(v)
    return None if math.isnan(v) else v


def json_count(v: Any) -> Optional[int]:
    return None if int(v) < 0 else int(v)


def count_text(v: Any) -> str:
    return "?" if int(v) < 0 else str(int(v))


def csv_count(v: Any) -> str:
    return "" if int(v) < 0 else str(int(v))


def rank_of(tiers: List[List[str]], name: str) -> Optional[int]:
    """Competition rank (1 = best; equal means share a rank)."""
    seen = 0
    for tier in tiers:
        if name in tier:
            return seen + 1
        seen += len(tier)
    return None


def tiers_text(tiers: List[List[str]]) -> str:
    return " > ".join(" = ".join(t) for t in tiers) if tiers else "-"


def _indent(text: str, pad: str = "  ") -> str:
    return "".join(pad + line + "\n" for line in text.splitlines())


def matplotlib_figure():
    """matplotlib's Figure (no pyplot: the user's backend and figures are left alone)."""
    try:
        from matplotlib import colormaps
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError('the plot needs matplotlib: pip install "fastndcg[plot]"') from None
    return Figure, colormaps
