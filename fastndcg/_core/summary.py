"""The short repr of a result: what was measured, on how many topics, and the means.

A result holds thousands of ids and values; echoing them all in a notebook or
a traceback buries the numbers a user looks for. Every result type's repr is
built here, so they read alike.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

#: measures (or cutoffs) named in a repr before the rest is counted
MAX_NAMED = 4
_SINGULAR = {"topics": "topic", "queries": "query"}


def mean_text(value: Any) -> str:
    """A mean to 4 decimals (the precision trec_eval prints), NaN as ``nan``."""
    v = float(value)
    return "nan" if math.isnan(v) else f"{v:.4f}"


def frame_result_repr(kind: str, mean: Any, signatures: Sequence[str]) -> str:
    """The repr of a Dask or Spark result: its mean (a float, or {column: mean})."""
    if isinstance(mean, dict):
        names, means = list(mean), list(mean.values())
    else:
        names = [s.split("|", 1)[0] for s in signatures][:1] or ["ndcg"]
        means = [mean]
    return summary_repr(kind, names, None, means)


def short_list(items: Sequence[Any]) -> str:
    """``['a', 'b']``, or the first few and a count of the rest."""
    items = list(items)
    if len(items) <= MAX_NAMED:
        return repr(items)
    head = ", ".join(repr(x) for x in items[:MAX_NAMED])
    return f"[{head}, ... ({len(items) - MAX_NAMED} more)]"


def summary_repr(kind: str, names: Sequence[str], n_topics: Optional[int], means: Sequence[Any],
                 run_name: str = "", missing: Optional[Sequence[str]] = None,
                 ignored: Optional[Sequence[str]] = None, unit: str = "topics") -> str:
    """``Kind(2 measures, 2,000 topics, mean a=0.3914, b=0.4012)``, with the run name
    and the counts of missing and ignored topics when there are any."""
    parts = []
    if run_name:
        parts.append(f"run {run_name!r}")
    parts.append(f"{len(names)} measure{'s' if len(names) != 1 else ''}")
    if n_topics is not None:
        parts.append(f"{n_topics:,} {unit if n_topics != 1 else _SINGULAR[unit]}")
    shown = [f"{n}={mean_text(v)}" for n, v in zip(names[:MAX_NAMED], means)]
    if len(names) > MAX_NAMED:
        shown.append(f"... ({len(names) - MAX_NAMED} more)")
    if shown:
        parts.append("mean " + ", ".join(shown))
    if missing:
        parts.append(f"{len(missing):,} missing")
    if ignored:
        parts.append(f"{len(ignored):,} ignored")
    return f"{kind}({', '.join(parts)})"
