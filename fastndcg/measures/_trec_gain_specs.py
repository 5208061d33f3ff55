"""trec_eval's custom gains as given: ``L=G,...`` strings and mappings parsed into a
:class:`GainSpec` (malformed input is an error, where trec_eval reads it with ``atof``), the
presets they apply under, and the textbook convention that gives the same gains without the
quirks."""
from __future__ import annotations
import math
import numbers
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Tuple

import numpy as np

from fastndcg.conventions._convention import Convention
from fastndcg.conventions._presets import as_convention, presets_where
from fastndcg._core.arguments import NamedArgumentError, literal


def _trec_gain_presets() -> List[str]:
    """The presets whose custom gains follow trec_eval's rules (for messages)."""
    return sorted(presets_where(lambda c: c.custom_gains == "trec_eval"))

_LEVEL = re.compile(r"[+-]?[0-9]+\Z")
_GAIN = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")
_INT64_MAX = np.iinfo(np.int64).max
#: The highest judgment custom gains take (trec_eval keeps one gain entry per
#: level from 0 to the highest judgment of a topic).
MAX_JUDGED_LEVEL = 1 << 16


class TrecGainQuirkWarning(UserWarning):
    """A gain set hits one of trec_eval's ordering quirks (see :class:`GainQuirks`)."""


def format_gain(v: float) -> str:
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e16 else repr(float(v))


@dataclass(frozen=True)
class GainSpec:
    """A custom gain set, as trec_eval's ``ndcg.L=G,...`` parameters.

    Attributes
    ----------
    pairs : tuple of (int, float)
        The listed (level, gain) pairs in listing order; a level may repeat.
    text : str
        The gain set as written (``1=3,2=9``): the measure name is
        ``ndcg_`` + text, as trec_eval prints it.
    """

    pairs: Tuple[Tuple[int, float], ...]
    text: str

    def __str__(self) -> str:
        return self.text

    @property
    def levels(self) -> Tuple[int, ...]:
        return tuple(level for level, _ in self.pairs)

    def duplicates(self) -> Dict[int, Tuple[float, ...]]:
        """Levels listed more than once with different gains: {level: gains in listing order}."""
        seen: Dict[int, List[float]] = {}
        for level, gain in self.pairs:
            seen.setdefault(level, []).append(gain)
        return {lv: tuple(gs) for lv, gs in seen.items() if len(set(gs)) > 1}


def parse_gains(text: str, name: str = "gains") -> GainSpec:
    """Parse trec_eval's gain parameters ``L=G,L=G,...``.

    Each pair is ``LEVEL=GAIN``: LEVEL an integer (optionally signed; -1 and -2
    are trec_eval's levels of unjudged and judged-below-0 documents), GAIN a
    finite decimal number (negative allowed). The pairs keep their order and
    a level may repeat, as trec_eval reads them.

    Raises
    ------
    ValueError
        Naming ``name``, the offending pair and its position, for an empty
        string or pair, a level that is not an integer or a gain that is not a
        finite number (trec_eval skips or ``atof``-reads such pairs silently).
    """
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a string like '1=3,2=9'; got {type(text).__name__}")
    parts = text.split(",")
    pairs = []
    head = f"{name}: " if name else ""
    for pos, part in enumerate(parts):
        level_s, sep, gain_s = part.partition("=")
        where = f" (pair {pos + 1} of {text!r})" if len(parts) > 1 else ""
        if not sep or not _LEVEL.match(level_s) or not _GAIN.match(gain_s):
            raise ValueError(
                f"{head}{part!r}{where} is not LEVEL=GAIN with LEVEL an integer and GAIN a number, "
                "e.g. 1=3,2=9 (trec_eval would skip or misread it silently)")
        level, gain = int(level_s), float(gain_s)
        if abs(level) > _INT64_MAX:
            raise ValueError(f"{head}level {level_s}{where} is out of range")
        if not math.isfinite(gain):
            raise ValueError(f"{head}gain {gain_s}{where} is not a finite double")
        pairs.append((level, gain))
    return GainSpec(tuple(pairs), text)


def as_gains(gains: Any, name: str = "gains") -> GainSpec:
    """A :class:`GainSpec` from a spec, a string (:func:`parse_gains`), a
    mapping ``{level: gain}`` or a sequence of ``(level, gain)`` pairs."""
    if isinstance(gains, GainSpec):
        return gains
    if isinstance(gains, str):
        return parse_gains(gains, name)
    items = list(gains.items()) if isinstance(gains, Mapping) else None
    if items is None:
        try:
            items = [tuple(p) for p in gains]
        except TypeError:
            raise TypeError(f"{name} must be a string like '1=3,2=9', a mapping {{level: gain}} or "
                            f"(level, gain) pairs; got {type(gains).__name__}") from None
    if not items:
        raise ValueError(f"{name}: no (level, gain) pairs")
    pairs = []
    for pos, item in enumerate(items):
        if len(item) != 2:
            raise ValueError(f"{name}[{pos}]: expected a (level, gain) pair; got {item!r}")
        level, gain = item
        if isinstance(level, (bool, np.bool_)) or not isinstance(level, (numbers.Integral, np.integer)) \
                or abs(int(level)) > _INT64_MAX:
            raise ValueError(f"{name}[{pos}]: the level must be an integer; got {level!r}")
        if isinstance(gain, (bool, np.bool_)) or not isinstance(gain, (numbers.Real, np.floating, np.integer)) \
                or not math.isfinite(float(gain)):
            raise ValueError(f"{name}[{pos}]: the gain of level {int(level)} must be a finite number; got {gain!r}")
        pairs.append((int(level), float(gain)))
    return GainSpec(tuple(pairs), ",".join(f"{lv}={format_gain(g)}" for lv, g in pairs))


def gain_rules(convention: Any) -> str:
    """Which custom-gain rules a convention applies: its ``custom_gains`` field,
    ``"trec_eval"`` (trec_eval's level rules: the ``trec_eval`` and ``pytrec_eval``
    presets) or ``"table"`` (the textbook gain table, :func:`textbook_convention`).
    ValueError under ``custom_gains="refuse"`` (``trec_eval_cut``,
    ``pytrec_eval_cut``): trec_eval's ``ndcg_cut`` takes no gains (it always uses
    the judgment)."""
    conv = as_convention(convention)
    if conv.custom_gains == "refuse":
        takes = " or ".join(repr(p) for p in _trec_gain_presets())
        raise ValueError(
            f"custom gains do not apply to convention {conv.name!r} (custom_gains='refuse'): trec_eval's "
            "ndcg_cut takes no gains (it always uses the judgment as the gain; its parameters are cutoffs). "
            f"For trec_eval's ndcg.L=G use the {takes} preset; other presets apply the gains as a gain table")
    return conv.custom_gains


def textbook_convention(spec: GainSpec, convention: Any, max_label: float) -> Convention:
    """The convention with the gains as a gain table (the rule outside the
    trec_eval presets): G(l) = the gain listed for l (the last one when listed
    twice), l for unlisted levels up to ``max_label``; the ideal and the
    documents are those of the convention (unjudged and negative judgments
    are label 0, whose gain is that of level 0).

    Raises
    ------
    NamedArgumentError
        (a ValueError naming ``gains``) For a gain listed for a level below 0 (trec_eval's unjudged -1 and
        judged-negative -2 exist only under the trec_eval presets) or a negative
        gain (a gain table is >= 0).
    """
    conv = as_convention(convention)
    for level, gain in spec.pairs:
        if level < 0:
            raise NamedArgumentError("{0}: " + literal(
                f"level {level} ({spec.text!r}): levels -1 (unjudged) and -2 (judged below 0) exist "
                f"only under trec_eval's rules (custom_gains='trec_eval': presets {_trec_gain_presets()}); under convention "
                f"{conv.name!r} the gains are a table over labels >= 0"), [("gains", None)])
        if gain < 0:
            raise NamedArgumentError("{0}: " + literal(
                f"level {level} has gain {format_gain(gain)} ({spec.text!r}): negative gains follow "
                f"trec_eval's rules only under custom_gains='trec_eval' (presets {_trec_gain_presets()}); under convention "
                f"{conv.name!r} the gains are a table, which must be >= 0"), [("gains", None)])
    top = int(max(max_label if max_label == max_label else 0, max(spec.levels)))
    table = [float(level) for level in range(top + 1)]
    for level, gain in spec.pairs:
        table[level] = gain
    return conv.replace(gain=tuple(table), unknown_label="zero", name=conv.name)
