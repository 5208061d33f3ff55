"""Other tools' result files and printed values: a reported NDCG as printed
(:class:`ReportedValue`, its decimals give the matching rule) and per-query files
(:class:`PerQueryValues`: trec_eval ``-q`` output, pytrec_eval-style JSON, CSV/TSV), read
with errors that name the file and line. ``fastndcg.report.identify`` matches them against
every candidate NDCG."""
from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Dict, Iterable, List, Optional, Tuple

from fastndcg.io._files import warn_bom

#: Added to half a unit of the last printed decimal: the text's binary value and
#: the computed mean may each be off by a few ulps.
MATCH_TOLERANCE = 1e-12
MATCH_RULE = ("a value printed with d decimals matches a computed value v when "
              "|v - reported| <= 0.5 * 10**-d + 1e-12")


@dataclass(frozen=True)
class ReportedValue:
    """A number as printed: its value and its number of decimals."""

    value: float
    decimals: int
    text: str
    where: str = ""         # "FILE:LINE" for a value read from a file

    @property
    def half_unit(self) -> float:
        return 0.5 * 10.0 ** -self.decimals

    def matches(self, v: float) -> bool:
        if math.isnan(self.value):      # a file's "nan": the tool left the query out (empty:skip)
            return math.isnan(v)
        return not math.isnan(v) and abs(v - self.value) <= self.half_unit + MATCH_TOLERANCE


def parse_reported_value(text: Any, argument: str = "value", where: str = "") -> ReportedValue:
    """A reported NDCG as printed (``"0.3914"``): its value and decimals.

    Raises
    ------
    ValueError
        Naming ``argument`` (and ``where``) when the text is no number, or is
        outside [0, 1] (no candidate can give it; a percentage must be given as
        a fraction: 39.14 as 0.3914).
    """
    at = f"{where}: " if where else ""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        text = repr(float(text))            # a float: as many decimals as its shortest repr
    if not isinstance(text, str):
        raise ValueError(f"{at}{argument} must be a number as printed (e.g. '0.3914'); got {text!r}")
    s = text.strip()
    try:
        d = Decimal(s)
    except InvalidOperation:
        raise ValueError(f"{at}{argument}: {text!r} is not a number (give it as printed, e.g. 0.3914)") from None
    if not d.is_finite():
        raise ValueError(f"{at}{argument}: {text!r} is not a finite number")
    exponent = d.as_tuple().exponent
    assert isinstance(exponent, int)
    value = float(d)
    if not 0.0 <= value <= 1.0:
        hint = f" (a percentage? give {value / 100:g})" if 1.0 < value <= 100.0 else ""
        raise ValueError(f"{at}{argument}: {text!r} is outside [0, 1], where every NDCG lies{hint}")
    return ReportedValue(value, max(0, -exponent), s, where)


@dataclass(frozen=True)
class PerQueryValues:
    """Another tool's per-query output: each topic's value as printed, and the mean if it has one."""

    path: str
    measure: Optional[str]
    values: Dict[str, ReportedValue]
    mean: Optional[ReportedValue] = None

    def __repr__(self) -> str:
        """``PerQueryValues('run.q', measure='ndcg_cut_10', 250 topics, mean 0.3914)``."""
        mean = f", mean {self.mean.text}" if self.mean is not None else ""
        return f"PerQueryValues({self.path!r}, measure={self.measure!r}, {len(self.values):,} topics{mean})"


def read_per_query(path: Any, measure: Optional[str] = None, *, measure_argument: str = "measure") -> PerQueryValues:
    """Read a per-query file: trec_eval ``-q`` output (``measure  qid  value``; the
    ``all`` line is the mean), pytrec_eval-style JSON ``{qid: {measure: value}}`` (or
    ``{qid: value}``), or CSV/TSV ``qid,value`` (an optional header line).

    ``measure``: which measure's lines to read when the file has several (by
    default the only one, or the only NDCG one). Errors name the file and line.
    """
    path = os.fspath(path)
    with open(path, "r", encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    if text.startswith("\ufeff"):      # a UTF-8 byte-order mark, as every reader skips it
        warn_bom(path)
        text = text[1:]
    if text.lstrip().startswith("{"):
        return _read_json(path, text, measure, measure_argument)
    rows: List[Tuple[int, List[str]]] = []
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if "," in s and "\t" not in s:
            fields_ = next(csv.reader(io.StringIO(s)))
        else:
            fields_ = s.split("\t") if "\t" in s else s.split()
        rows.append((n, [x.strip() for x in fields_]))
    if not rows:
        raise ValueError(f"{path}: no per-query values (expected trec_eval -q lines 'measure qid value', "
                         "JSON {qid: {measure: value}} or CSV 'qid,value')")
    width = len(rows[0][1])
    for n, r in rows:
        if len(r) != width or width not in (2, 3):
            raise ValueError(f"{path}:{n}: expected {width if width in (2, 3) else '2 or 3'} fields "
                             f"('qid,value' or 'measure<TAB>qid<TAB>value'); got {len(r)}: {' '.join(r)!r}")
    entries: List[Tuple[int, Optional[str], str, str]]
    if width == 2:
        if not _is_number(rows[0][1][1]):       # a header line
            rows = rows[1:]
        entries = [(n, None, r[0], r[1]) for n, r in rows]
    else:
        entries = [(n, r[0], r[1], r[2]) for n, r in rows]
        measure = _choose_measure(path, [e[1] for e in entries], measure, measure_argument)
        entries = [e for e in entries if e[1] == measure]
    values: Dict[str, ReportedValue] = {}
    mean: Optional[ReportedValue] = None
    for n, _, qid, v in entries:
        where = f"{path}:{n}"
        rv = _file_value(v, where)
        if width == 3 and qid == "all":
            mean = rv
            continue
        if qid in values:
            raise ValueError(f"{where}: query {qid!r} is given twice (first at {values[qid].where})")
        values[qid] = rv
    if not values:
        raise ValueError(f"{path}: no per-query values" + (f" of measure {measure!r}" if measure else ""))
    return PerQueryValues(path, measure, values, mean)


def _file_value(text: str, where: str) -> ReportedValue:
    """A value of a per-query file; ``nan`` is a query the tool left out (it matches a skipped query)."""
    if text.strip().lower() in ("nan", "-nan"):
        return ReportedValue(math.nan, 0, text.strip(), where)
    return parse_reported_value(text, "value", where=where)


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def _choose_measure(path: str, names: Iterable[Any], measure: Optional[str], argument: str) -> str:
    present = list(dict.fromkeys(str(m) for m in names))
    if measure is not None:
        if measure not in present:
            raise ValueError(f"{argument} {measure!r} is not in {path} (it has: {', '.join(present)})")
        return measure
    if len(present) == 1:
        return present[0]
    ndcg = [m for m in present if "ndcg" in m.lower()]
    if len(ndcg) == 1:
        return ndcg[0]
    raise ValueError(f"{path} has several measures ({', '.join(ndcg or present)}): choose one with {argument}")


def _read_json(path: str, text: str, measure: Optional[str], argument: str) -> PerQueryValues:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(doc, dict) or not doc:
        raise ValueError(f"{path}: expected a JSON object {{qid: {{measure: value}}}} or {{qid: value}}")
    nested = all(isinstance(v, dict) for v in doc.values())
    if nested:
        measure = _choose_measure(path, itertools.chain.from_iterable(doc.values()), measure, argument)
    values: Dict[str, ReportedValue] = {}
    for qid, v in doc.items():
        where = f"{path}: query {qid!r}"
        if nested:
            if measure not in v:
                raise ValueError(f"{where} has no {measure!r}")
            v = v[measure]
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise ValueError(f"{where}: {v!r} is not a number")
        # JSON numbers print as their shortest repr: that is their precision
        values[str(qid)] = _file_value(v if isinstance(v, str) else repr(float(v)), where)
    return PerQueryValues(path, measure, values, None)
