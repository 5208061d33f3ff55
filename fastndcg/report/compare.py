"""Side-by-side NDCG under every preset, with the diagnostics that explain the differences.

The same ranking gets different NDCG from different tools. :func:`compare`
evaluates one or more runs under every preset (or a chosen set) at a list of
cutoffs and reports, next to the numbers, why they differ:

* each preset's fields (gain, discount, ties, empty, short, ideal, ...);
* per preset, the queries whose ideal DCG is 0 ("empty": it depends on the
  gain table, e.g. LETOR's table gives label 3 gain 0);
* the queries shorter than each k (``short="zero"`` presets score them 0);
* the queries whose top k holds a tie group of documents with different
  gains, and among them those whose tie group crosses rank k;
* the range [worst, best] of NDCG@k over the orders of tied documents
  (``ties="worst"`` / ``"best"``);
* the largest spread between presets at each k;
* with two or more runs, the order of the systems under each preset and the
  pairs of systems whose order flips between presets.

Everything is computed through the public NDCG API (:class:`fastndcg.NDCGScorer`);
the only code here is bookkeeping and rendering.
"""
from __future__ import annotations

import io
import json
import math
import numbers
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

from fastndcg.measures.ndcg import NDCGScorer, exact_column_sums, mean_ndcg
from fastndcg.report.format import csv_field as _csv
from fastndcg.report.format import csv_num as _csv_num
from fastndcg.report.format import qid_json as _qid
from fastndcg.report.format import table as _table
from fastndcg.report.format import write_output
from fastndcg.conventions import Convention
from fastndcg._core.resolve import gain_tables
from fastndcg._core.validation import check_cutoffs
from fastndcg.conventions import PRESETS, list_presets

ArrayLike = Any
Cutoff = Optional[int]

#: Fields of a convention shown in reports, in order: the choices that make tools disagree.
PRESET_FIELDS = ("gain", "unknown_label", "discount", "ties", "empty", "short", "ideal",
                 "aggregation", "score_precision")

#: Ideal sources: the run's own list, or external judgments (qrels).
IDEAL_CHOICES = ("auto", "qrels", "run")


@dataclass
class RunData:
    """One system's inputs when runs do not share labels and queries.

    A mapping ``{name: RunData}`` (or any object with these attributes, such as
    :class:`fastndcg.io.readers.AlignedRun`) can be given to :func:`compare`.

    Attributes
    ----------
    scores, labels : arrays of shape (n_docs,)
    offsets : int array of shape (n_queries + 1,)
    tie_key : int array of shape (n_docs,), optional
        Per-document tie key (e.g. the docno rank) for presets with
        ``ties="key"``/``"key_desc"``.
    ideal_labels, ideal_offsets : arrays, optional
        External judgments (every judged document per query) for presets whose
        tool takes the ideal list from the qrels.
    qids : array of shape (n_queries,), optional
        Query names (per-query output).
    """

    scores: ArrayLike
    labels: ArrayLike
    offsets: ArrayLike
    tie_key: Optional[ArrayLike] = None
    ideal_labels: Optional[ArrayLike] = None
    ideal_offsets: Optional[ArrayLike] = None
    qids: Optional[ArrayLike] = None


@dataclass
class _System:
    name: str
    scores: np.ndarray
    labels: np.ndarray
    offsets: np.ndarray
    tie_key: Optional[np.ndarray]
    ideal_labels: Optional[np.ndarray]
    ideal_offsets: Optional[np.ndarray]
    qids: np.ndarray
    weights: Optional[np.ndarray]

    @property
    def n_queries(self) -> int:
        return int(self.offsets.shape[0] - 1)


@dataclass
class Comparison:
    """The result of :func:`compare`.

    Arrays are indexed ``[system, preset, cutoff]`` in the order of
    :attr:`systems`, :attr:`presets` and :attr:`cutoffs`. NaN marks a value
    that is undefined (every query skipped) or not computable; the reason for
    the latter is in :attr:`reasons`.

    Attributes
    ----------
    cutoffs : list of int or None
        The cutoffs (None: the whole list).
    presets : list of str
    conventions : dict of str to Convention
    ideal_sources : dict of str to str
        Where each preset's ideal list came from: ``"list"`` (the run's own
        documents), ``"qrels"`` (external judgments) or ``"run"`` (the
        retrieved documents, when judgments were available but the preset's
        tool does not use them).
    systems : list of str
    n_queries, n_docs : int arrays of shape (n_systems,)
    zero_doc_queries : int array of shape (n_systems,)
        Queries with no documents at all.
    short_queries : int array of shape (n_systems, n_cutoffs)
        Queries with fewer than k documents (0 for the whole list).
    empty_queries : int array of shape (n_systems, n_presets)
        Queries whose ideal DCG is 0 under the preset's gain (-1: unknown,
        the preset cannot be evaluated on these labels).
    mean : float array of shape (n_systems, n_presets, n_cutoffs)
        NDCG@k aggregated as the preset says.
    tie_worst, tie_best : float arrays of the same shape
        The aggregate under ``ties="worst"`` / ``"best"`` (everything else as
        the preset): the range that the order of tied documents allows.
    tied_queries, tie_crossing_queries : int arrays of the same shape
        Queries whose top k holds a group of equal scores (after the preset's
        score precision) with documents of different gain; and among them
        those where such a group crosses rank k (it has documents ranked both
        <= k and > k). -1: unknown.
    reasons : dict of str to dict of str to str
        ``reasons[system][preset]``: why the preset could not be evaluated.
    per_query : dict, optional
        ``per_query[system][preset]``: per-query NDCG, shape (n_queries, n_cutoffs)
        (only with ``per_query=True``).
    qids : dict of str to ndarray
        Query names of each system.
    notes : list of str
        Remarks on the inputs (e.g. systems evaluated on different queries).
    """

    cutoffs: List[Cutoff]
    presets: List[str]
    conventions: Dict[str, Convention]
    ideal_sources: Dict[str, str]
    systems: List[str]
    n_queries: np.ndarray
    n_docs: np.ndarray
    zero_doc_queries: np.ndarray
    short_queries: np.ndarray
    empty_queries: np.ndarray
    mean: np.ndarray
    tie_worst: np.ndarray
    tie_best: np.ndarray
    tied_queries: np.ndarray
    tie_crossing_queries: np.ndarray
    reasons: Dict[str, Dict[str, str]]
    qids: Dict[str, np.ndarray]
    per_query: Optional[Dict[str, Dict[str, np.ndarray]]] = None
    notes: List[str] = field(default_factory=list)
    _inputs: List[_System] = field(default_factory=list, repr=False)
    _ideal: str = field(default="auto", repr=False)
    _n_threads: Optional[int] = field(default=None, repr=False)

    # ------------------------------------------------------------------ derived views
    @property
    def measures(self) -> List[str]:
        """Column names: ``ndcg@k``, or ``ndcg`` for the whole list."""
        return [measure_name(k) for k in self.cutoffs]

    @property
    def baseline(self) -> str:
        """The preset the others' system order is checked against: ``standard``
        when compared and it has values, else the first preset that has values
        (else the first preset)."""
        has = [p for j, p in enumerate(self.presets) if not np.isnan(self.mean[:, j]).all()]
        if "standard" in has:
            return "standard"
        return has[0] if has else self.presets[0]

    def computable(self, system: str, preset: str) -> bool:
        return preset not in self.reasons.get(system, {})

    def spread(self) -> List[List[Dict[str, Any]]]:
        """Per system and cutoff, the largest difference between presets:
        dicts with ``spread`` (max - min), ``min``, ``max``, ``min_presets``,
        ``max_presets`` (NaN spread when fewer than one preset has a value)."""
        out = []
        for s in range(len(self.systems)):
            row = []
            for c in range(len(self.cutoffs)):
                vals = {p: float(self.mean[s, j, c]) for j, p in enumerate(self.presets)
                        if not math.isnan(self.mean[s, j, c])}
                if not vals:
                    row.append(dict(spread=math.nan, min=math.nan, max=math.nan, min_presets=[], max_presets=[]))
                    continue
                lo, hi = min(vals.values()), max(vals.values())
                row.append(dict(spread=hi - lo, min=lo, max=hi,
                                min_presets=[p for p, v in vals.items() if v == lo],
                                max_presets=[p for p, v in vals.items() if v == hi]))
            out.append(row)
        return out

    def rankings(self) -> Dict[str, List[List[List[str]]]]:
        """``rankings()[preset][c]``: the systems from best to worst at cutoff
        ``cutoffs[c]``, as tiers (systems with exactly equal means share a
        tier). Systems without a value are left out."""
        out: Dict[str, List[List[List[str]]]] = {}
        for j, p in enumerate(self.presets):
            per_k = []
            for c in range(len(self.cutoffs)):
                vals = [(float(self.mean[s, j, c]), name) for s, name in enumerate(self.systems)
                        if not math.isnan(self.mean[s, j, c])]
                vals.sort(key=lambda t: -t[0])
                tiers: List[List[str]] = []
                last = None
                for v, name in vals:
                    if tiers and v == last:
                        tiers[-1].append(name)
                    else:
                        tiers.append([name])
                    last = v
                per_k.append(tiers)
            out[p] = per_k
        return out

    def order_changed(self) -> Dict[str, List[bool]]:
        """``order_changed()[preset][c]``: whether the preset orders the systems
        differently from :attr:`baseline` at cutoff ``cutoffs[c]``."""
        ranks = self.rankings()
        base = ranks[self.baseline]
        return {p: [ranks[p][c] != base[c] and bool(ranks[p][c]) and bool(base[c])
                    for c in range(len(self.cutoffs))] for p in self.presets}

    def flips(self) -> List[Dict[str, Any]]:
        """Pairs of systems whose order depends on the preset.

        One dict per (cutoff, pair) where some preset puts ``a`` ahead and
        another puts ``b`` ahead: ``measure``, ``cutoff``, ``a``, ``b``,
        ``a_ahead`` / ``b_ahead`` / ``equal`` (preset names), and
        ``max_a_lead`` / ``max_b_lead`` (largest difference each way).
        """
        out = []
        n = len(self.systems)
        for c, m in enumerate(self.measures):
            for i in range(n):
                for j in range(i + 1, n):
                    a_ahead, b_ahead, equal, lead_a, lead_b = [], [], [], 0.0, 0.0
                    for pj, p in enumerate(self.presets):
                        d = float(self.mean[i, pj, c] - self.mean[j, pj, c])
                        if math.isnan(d):
                            continue
                        if d > 0:
                            a_ahead.append(p)
                            lead_a = max(lead_a, d)
                        elif d < 0:
                            b_ahead.append(p)
                            lead_b = max(lead_b, -d)
                        else:
                            equal.append(p)
                    if a_ahead and b_ahead:
                        out.append(dict(measure=m, cutoff=self.cutoffs[c], a=self.systems[i], b=self.systems[j],
                                        a_ahead=a_ahead, b_ahead=b_ahead, equal=equal,
                                        max_a_lead=lead_a, max_b_lead=lead_b))
        return out

    # ------------------------------------------------------------------ outputs
    def to_dict(self) -> Dict[str, Any]:
        """Everything as plain Python (NaN as None): the JSON document."""
        measures = self.measures
        spread = self.spread()
        doc: Dict[str, Any] = {
            "cutoffs": list(self.cutoffs),
            "measures": measures,
            "baseline": self.baseline,
            "presets": {p: dict(preset_fields(self.conventions[p]), ideal_source=self.ideal_sources[p],
                                describe=self.conventions[p].describe()) for p in self.presets},
            "systems": [],
            "notes": list(self.notes),
        }
        for s, name in enumerate(self.systems):
            sysdoc: Dict[str, Any] = {
                "name": name, "n_queries": int(self.n_queries[s]), "n_docs": int(self.n_docs[s]),
                "zero_doc_queries": int(self.zero_doc_queries[s]),
                "short_queries": {m: int(self.short_queries[s, c]) for c, m in enumerate(measures)},
                "presets": {},
                "spread": {m: {**spread[s][c], "spread": _num(spread[s][c]["spread"]),
                               "min": _num(spread[s][c]["min"]), "max": _num(spread[s][c]["max"])}
                           for c, m in enumerate(measures)},
            }
            for j, p in enumerate(self.presets):
                reason = self.reasons.get(name, {}).get(p)
                sysdoc["presets"][p] = {
                    "computable": reason is None,
                    "reason": reason,
                    "mean": {m: _num(self.mean[s, j, c]) for c, m in enumerate(measures)},
                    "tie_range": {m: [_num(self.tie_worst[s, j, c]), _num(self.tie_best[s, j, c])]
                                  for c, m in enumerate(measures)},
                    "empty_queries": _count(self.empty_queries[s, j]),
                    "tied_queries": {m: _count(self.tied_queries[s, j, c]) for c, m in enumerate(measures)},
                    "tie_crossing_queries": {m: _count(self.tie_crossing_queries[s, j, c])
                                             for c, m in enumerate(measures)},
                }
            if self.per_query is not None:
                qids = [_qid(q) for q in self.qids[name]]
                sysdoc["per_query"] = {
                    p: [dict(query=q, **{m: _num(v) for m, v in zip(measures, row)})
                        for q, row in zip(qids, values.tolist())]
                    for p, values in self.per_query[name].items()}
            doc["systems"].append(sysdoc)
        if len(self.systems) > 1:
            ranks = self.rankings()
            changed = self.order_changed()
            doc["rankings"] = {m: {p: {"order": ranks[p][c], "differs_from_baseline": changed[p][c]}
                                   for p in self.presets} for c, m in enumerate(measures)}
            doc["flips"] = [dict(f, max_a_lead=_num(f["max_a_lead"]), max_b_lead=_num(f["max_b_lead"]))
                            for f in self.flips()]
        return doc

    def to_json(self, indent: Optional[int] = 2) -> str:
        """The report as JSON (see :meth:`to_dict`); NaN becomes null."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False) + "\n"

    def to_csv(self) -> str:
        """One row per (system, preset, cutoff), full precision; empty cells
        for undefined values. With per-query values, one more row per query
        (``query`` column; ``all`` on the aggregate rows).

        Columns: system, preset, measure, cutoff, query, ndcg, tie_worst,
        tie_best, rank, n_queries, empty_queries, short_queries, tied_queries,
        tie_crossing_queries, reason.
        """
        cols = ["system", "preset", "measure", "cutoff", "query", "ndcg", "tie_worst", "tie_best", "rank",
                "n_queries", "empty_queries", "short_queries", "tied_queries", "tie_crossing_queries", "reason"]
        ranks = self.rankings()
        buf = io.StringIO()
        buf.write(",".join(cols) + "\n")
        for s, name in enumerate(self.systems):
            for j, p in enumerate(self.presets):
                reason = self.reasons.get(name, {}).get(p, "")
                for c, m in enumerate(self.measures):
                    cut = "" if self.cutoffs[c] is None else str(self.cutoffs[c])
                    if self.per_query is not None and p in self.per_query[name]:
                        for q, v in zip(self.qids[name], self.per_query[name][p][:, c].tolist()):
                            buf.write(",".join([_csv(name), _csv(p), m, cut, _csv(str(_qid(q))), _csv_num(v)]
                                               + [""] * (len(cols) - 6)) + "\n")
                    rank = _rank_of(ranks[p][c], name)
                    cells = [_csv(name), _csv(p), m, cut, "all", _csv_num(self.mean[s, j, c]),
                             _csv_num(self.tie_worst[s, j, c]), _csv_num(self.tie_best[s, j, c]),
                             "" if rank is None else str(rank), str(int(self.n_queries[s])),
                             _csv_count(self.empty_queries[s, j]), str(int(self.short_queries[s, c])),
                             _csv_count(self.tied_queries[s, j, c]), _csv_count(self.tie_crossing_queries[s, j, c]),
                             _csv(reason)]
                    buf.write(",".join(cells) + "\n")
        return buf.getvalue()

    def to_text(self, digits: int = 4) -> str:
        """An aligned plain-text report: the presets' fields; per system the
        NDCG table, the spread between presets and the tie diagnostics; with
        several systems, their order under each preset and the flips."""
        measures = self.measures
        fmt = _fmt(digits)
        out = [f"NDCG under {len(self.presets)} preset(s), {len(self.systems)} system(s), "
               f"cutoffs {', '.join('all' if k is None else str(k) for k in self.cutoffs)}\n"]
        for note in self.notes:
            out.append(f"note: {note}\n")
        out.append("\nPresets (the fields that make tools disagree)\n")
        rows = [[p] + list(preset_fields(self.conventions[p]).values())[:-1] + [self.ideal_sources[p],
                                                                               _other_fields(self.conventions[p])]
                for p in self.presets]
        out.append(_table(["preset", "gain", "unknown", "discount", "ties", "empty", "short", "ideal", "aggregation",
                           "scores", "ideal from", "other"], rows, right_from=99))
        spread = self.spread()
        for s, name in enumerate(self.systems):
            short = ", ".join(f"{m} {int(self.short_queries[s, c])}" for c, m in enumerate(measures)
                              if self.cutoffs[c] is not None)
            out.append(f"\nSystem {name}: {int(self.n_queries[s])} queries, {int(self.n_docs[s])} documents, "
                       f"{int(self.zero_doc_queries[s])} query(ies) without documents"
                       + (f"; shorter than k: {short}" if short else "") + "\n")
            notes: List[str] = []
            rows = []
            for j, p in enumerate(self.presets):
                reason = self.reasons.get(name, {}).get(p)
                mark = ""
                if reason is not None:
                    if reason not in notes:
                        notes.append(reason)
                    mark = f" [{notes.index(reason) + 1}]"
                cells = [fmt(self.mean[s, j, c]) if reason is None else "n/a" for c in range(len(measures))]
                rows.append([p + mark] + cells + [_count_text(self.empty_queries[s, j])])
            rows.append(["spread (max-min)"] + [fmt(spread[s][c]["spread"]) for c in range(len(measures))] + ["-"])
            out.append(_table(["preset"] + measures + ["empty"], rows))
            for c, m in enumerate(measures):
                sp = spread[s][c]
                if not math.isnan(sp["spread"]) and sp["spread"] > 0:
                    out.append(f"  {m}: lowest {fmt(sp['min'])} ({', '.join(sp['min_presets'])}), "
                               f"highest {fmt(sp['max'])} ({', '.join(sp['max_presets'])})\n")
            for i, reason in enumerate(notes, 1):
                out.append(f"  [{i}] {reason}\n")
            out.append("\n  Ties: queries whose top k holds tied documents of different gain (of them, "
                       "crossing rank k),\n  and the [worst, best] NDCG that the order of tied documents allows\n")
            rows = []
            for j, p in enumerate(self.presets):
                cells = []
                for c in range(len(measures)):
                    cells.append(f"{_count_text(self.tied_queries[s, j, c])} "
                                 f"({_count_text(self.tie_crossing_queries[s, j, c])})")
                    cells.append(f"[{fmt(self.tie_worst[s, j, c])}, {fmt(self.tie_best[s, j, c])}]")
                rows.append([p] + cells)
            header = ["preset"]
            for m in measures:
                header += [f"tied@{m[5:] or 'all'}", f"range {m}"]
            out.append(_indent(_table(header, rows)))
        if len(self.systems) > 1:
            ranks = self.rankings()
            changed = self.order_changed()
            out.append(f"\nOrder of the systems, best first (* = differs from {self.baseline})\n")
            rows = [[p] + [_tiers_text(ranks[p][c]) + (" *" if changed[p][c] else "")
                           for c in range(len(measures))] for p in self.presets]
            out.append(_table(["preset"] + measures, rows, right_from=99))
            flips = self.flips()
            out.append("\nFlips: pairs whose order depends on the preset" + ("" if flips else ": none") + "\n")
            for f in flips:
                out.append(f"  {f['measure']}: {f['a']} vs {f['b']}: {f['a']} ahead under {', '.join(f['a_ahead'])} "
                           f"(by up to {fmt(f['max_a_lead'])}); {f['b']} ahead under {', '.join(f['b_ahead'])} "
                           f"(by up to {fmt(f['max_b_lead'])})"
                           + (f"; equal under {', '.join(f['equal'])}" if f["equal"] else "") + "\n")
        return "".join(out)

    def __str__(self) -> str:
        return self.to_text()

    # ------------------------------------------------------------------ plot
    def curves(self, max_k: int) -> np.ndarray:
        """Aggregate NDCG@1..max_k, shape (n_systems, n_presets, max_k); NaN
        where a preset is not computable."""
        if isinstance(max_k, bool) or not isinstance(max_k, (numbers.Integral, np.integer)) or max_k < 1:
            raise ValueError(f"max_k must be an int >= 1; got {max_k!r}")
        ks = list(range(1, int(max_k) + 1))
        out = np.full((len(self.systems), len(self.presets), len(ks)), np.nan)
        for s, sys_ in enumerate(self._inputs):
            for j, p in enumerate(self.presets):
                if not self.computable(sys_.name, p):
                    continue
                scorer = _scorer(sys_, ks, self.conventions[p], _ideal_arrays(sys_, self.conventions[p], self._ideal),
                                 self._n_threads)
                out[s, j] = scorer.mean(sys_.scores, tie_key=_key_for(sys_, self.conventions[p]),
                                        n_threads=self._n_threads)
        return out

    def plot(self, path: str, max_k: Optional[int] = None, *, dpi: int = 100) -> str:
        """Write a PNG of NDCG@1..max_k, one line per preset (one panel per system).

        ``max_k`` defaults to the largest finite cutoff (at least 2). The file is
        written atomically (a temporary file in the same folder, then renamed).
        Needs matplotlib (``pip install "fastndcg[plot]"``). Returns ``path``.
        """
        Figure, colormaps = _matplotlib()
        if max_k is None:
            finite = [k for k in self.cutoffs if k is not None]
            max_k = max(finite + [2])
        values = self.curves(max_k)
        ks = np.arange(1, int(max_k) + 1)
        n = len(self.systems)
        width = 6.4 * n + 1.8
        fig = Figure(figsize=(width, 4.8))
        axes = fig.subplots(1, n, squeeze=False, sharey=True)
        strong, light = colormaps["tab10"], colormaps["tab20"]
        styles = ["-", "--", "-.", ":"]
        for s, name in enumerate(self.systems):
            ax = axes[0, s]
            for j, p in enumerate(self.presets):
                if np.all(np.isnan(values[s, j])):
                    continue
                # dash pattern varies too, so presets with equal values stay visible
                color = strong(j % 10) if j < 10 else light((2 * (j - 10) + 1) % 20)
                ax.plot(ks, values[s, j], styles[j % 4], color=color, marker="o" if j < 10 else "s",
                        markersize=3, linewidth=1.4, label=p)
            ax.set_title(name)
            ax.set_xlabel("k")
            ax.grid(True, alpha=0.3)
            if max_k <= 20:
                ax.set_xticks(ks)
        axes[0, 0].set_ylabel("mean NDCG@k")
        handles, labels = axes[0, 0].get_legend_handles_labels()
        for ax in axes[0, 1:]:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in labels:
                    handles.append(h)
                    labels.append(lab)
        fig.legend(handles, labels, loc="center right", fontsize="small", title="preset")
        missing = [p for j, p in enumerate(self.presets) if np.isnan(values[:, j]).all()]
        bottom = 0.0
        if missing:
            fig.text(0.01, 0.01, "not computable: " + ", ".join(missing) + " (see the report)", fontsize="x-small")
            bottom = 0.04
        fig.tight_layout(rect=(0, bottom, 1 - 1.8 / width, 1))
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi)
        write_output(buf.getvalue(), str(path))
        return str(path)


# ============================================================================ helpers


def measure_name(k: Cutoff) -> str:
    return "ndcg" if k is None else f"ndcg@{k}"


def preset_fields(conv: Convention) -> Dict[str, str]:
    """The report's text for each field in :data:`PRESET_FIELDS`, and ``other``:
    any further field that differs from the default convention (``name=value``)."""
    return dict({f: _field_text(conv, f) for f in PRESET_FIELDS}, other=_other_fields(conv))


def _other_fields(conv: Convention) -> str:
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


def _num(v: Any) -> Optional[float]:
    v = float(v)
    return None if math.isnan(v) else v


def _count(v: Any) -> Optional[int]:
    return None if int(v) < 0 else int(v)


def _count_text(v: Any) -> str:
    return "?" if int(v) < 0 else str(int(v))


def _csv_count(v: Any) -> str:
    return "" if int(v) < 0 else str(int(v))


def _rank_of(tiers: List[List[str]], name: str) -> Optional[int]:
    """Competition rank (1 = best; equal means share a rank)."""
    seen = 0
    for tier in tiers:
        if name in tier:
            return seen + 1
        seen += len(tier)
    return None


def _tiers_text(tiers: List[List[str]]) -> str:
    return " > ".join(" = ".join(t) for t in tiers) if tiers else "-"


def _indent(text: str, pad: str = "  ") -> str:
    return "".join(pad + line + "\n" for line in text.splitlines())


def _matplotlib():
    """matplotlib's Figure (no pyplot: the user's backend and figures are left alone)."""
    try:
        from matplotlib import colormaps
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError('the plot needs matplotlib: pip install "fastndcg[plot]"') from None
    return Figure, colormaps


# ============================================================================ inputs


def _as_cutoffs(k: Any) -> List[Cutoff]:
    check_cutoffs(k)                     # the API's own messages: "k[1] must be >= 1; got 0"
    items = [k] if k is None or isinstance(k, (numbers.Integral, np.integer)) else list(k)
    out: List[Cutoff] = []
    for item in items:
        item = None if item is None else int(item)
        if item not in out:
            out.append(item)
    return out


def _as_presets(presets: Any) -> Dict[str, Convention]:
    if presets is None:
        names: List[Any] = list_presets()
    elif isinstance(presets, (str, Convention)):
        names = [presets]
    else:
        names = list(presets)
    if not names:
        raise ValueError("presets must name at least one preset; got an empty list")
    out: Dict[str, Convention] = {}
    for item in names:
        if isinstance(item, Convention):
            conv = item
        elif isinstance(item, str):
            if item not in PRESETS:
                raise ValueError(f"presets: unknown preset {item!r}; known presets: {', '.join(list_presets())}")
            conv = PRESETS[item]
        else:
            raise TypeError(f"presets must hold preset names or Conventions; got {type(item).__name__}")
        if conv.name in out:
            raise ValueError(f"presets: {conv.name!r} is given twice (a Convention is shown under its name; "
                             "give custom ones distinct names with .replace(name=...))")
        out[conv.name] = conv
    return out


def _systems(scores: Any, labels: Any, offsets: Any, tie_key: Any, weights: Any,
             ideal_labels: Any, ideal_offsets: Any, qids: Any) -> List[_System]:
    if isinstance(scores, Mapping):
        if not scores:
            raise ValueError("scores: an empty mapping has no system to compare")
        items = [(str(name), value) for name, value in scores.items()]
        if len({name for name, _ in items}) != len(items):
            raise ValueError("scores: system names must be distinct as strings; got "
                             f"{[name for name, _ in items]}")
    else:
        items = [("run", scores)]
    out = []
    for name, value in items:
        where = f"scores[{name!r}]" if isinstance(scores, Mapping) else "scores"
        if hasattr(value, "scores") and hasattr(value, "labels") and hasattr(value, "offsets"):
            if labels is not None or offsets is not None:
                raise ValueError(f"{where} carries its own labels and offsets; do not also give labels=/offsets=")
            sc, lab, off = value.scores, value.labels, value.offsets
            key = getattr(value, "tie_key", None)
            il, io_ = getattr(value, "ideal_labels", None), getattr(value, "ideal_offsets", None)
            q = getattr(value, "qids", None)
        else:
            if labels is None or offsets is None:
                raise ValueError(f"labels and offsets are needed with array scores ({where})")
            sc, lab, off, il, io_, q = value, labels, offsets, ideal_labels, ideal_offsets, qids
            key = tie_key.get(name) if isinstance(tie_key, Mapping) else tie_key
        sc_arr = np.asarray(sc)
        lab_arr = np.asarray(lab)
        if sc_arr.ndim != 1:
            raise ValueError(f"{where} must be 1-D; got an array of shape {sc_arr.shape}")
        if lab_arr.ndim == 1 and sc_arr.shape[0] != lab_arr.shape[0]:
            raise ValueError(f"{where} has {sc_arr.shape[0]} entries but its labels have {lab_arr.shape[0]}; "
                             "every run must score the same documents")
        off_arr = np.asarray(off)
        nq = int(off_arr.shape[0]) - 1 if off_arr.ndim == 1 else 0
        q_arr = np.arange(nq) if q is None else np.asarray(q)
        if q_arr.shape[0] != nq:
            raise ValueError(f"qids of {where} name {q_arr.shape[0]} queries but offsets describe {nq}")
        out.append(_System(name, sc_arr, lab_arr, off_arr, None if key is None else np.asarray(key),
                           None if il is None else np.asarray(il), None if io_ is None else np.asarray(io_),
                           q_arr, None if weights is None else np.asarray(weights, dtype=np.float64)))
    return out


def _validate(sys_: _System, n_threads: Optional[int]) -> None:
    """Check what every preset needs (shapes, offsets, finite scores, labels >= 0,
    weights, external ideal) once, with a permissive convention, so that an error
    later can only come from the preset itself (its gain table, empty='error')."""
    probe = Convention(gain="linear", name="probe")
    try:
        mean_ndcg(sys_.scores, sys_.labels, sys_.offsets, 1, convention=probe, weights=sys_.weights,
                  ideal_labels=sys_.ideal_labels, ideal_offsets=sys_.ideal_offsets, n_threads=n_threads)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"system {sys_.name!r}: {exc}") from None
    sys_.offsets = sys_.offsets.astype(np.int64)   # validated above
    if sys_.tie_key is not None:
        key = sys_.tie_key
        if key.ndim != 1 or key.shape[0] != sys_.scores.shape[0]:
            raise ValueError(f"system {sys_.name!r}: tie_key must have one entry per document "
                             f"({sys_.scores.shape[0]}); got shape {key.shape}")


def _ideal_source(conv: Convention, sys_: _System, ideal: str) -> str:
    if sys_.ideal_labels is None:
        return "list"
    if ideal != "auto":
        return ideal
    from fastndcg.conventions import ideal_source

    return ideal_source(conv)


def _ideal_arrays(sys_: _System, conv: Convention, ideal: str) -> Dict[str, Any]:
    if _ideal_source(conv, sys_, ideal) == "qrels":
        return dict(ideal_labels=sys_.ideal_labels, ideal_offsets=sys_.ideal_offsets)
    return {}


def _key_for(sys_: _System, conv: Convention) -> Optional[np.ndarray]:
    return sys_.tie_key if conv.uses_tie_key else None


def _scorer(sys_: _System, ks: List[Cutoff], conv: Convention, ideal_kw: Dict[str, Any],
            n_threads: Optional[int]) -> NDCGScorer:
    return NDCGScorer(sys_.labels, sys_.offsets, ks, convention=conv, weights=sys_.weights,
                      n_threads=n_threads, **ideal_kw)


def _no_key_reason(conv: Convention) -> str:
    return (f"ties={conv.ties!r} ranks tied scores by a per-document tie key (e.g. the docno rank) and none "
            "was given (tie_key=); input order is not substituted")


# ============================================================================ diagnostics


def _gains(labels: np.ndarray, conv: Convention) -> np.ndarray:
    """G(label) per document, from the same gain table as the kernels."""
    table, linear, _ = gain_tables(conv, float(labels.max(initial=0)))
    return labels.astype(np.float64) if linear else table[labels.astype(np.intp)]


def _tie_counts(scores: np.ndarray, gains: np.ndarray, offsets: np.ndarray,
                cutoffs: List[Cutoff]) -> Tuple[np.ndarray, np.ndarray]:
    """Queries whose top k holds a group of equal scores with different gains,
    and those where such a group crosses rank k, per cutoff."""
    nq = offsets.shape[0] - 1
    n = scores.shape[0]
    tied = np.zeros(len(cutoffs), dtype=np.int64)
    crossing = np.zeros(len(cutoffs), dtype=np.int64)
    if n == 0:
        return tied, crossing
    qrow = np.repeat(np.arange(nq), np.diff(offsets))
    order = np.lexsort((-scores.astype(np.float64), qrow))
    s, g, q = scores[order], gains[order], qrow[order]
    start = np.ones(n, dtype=bool)
    start[1:] = (q[1:] != q[:-1]) | (s[1:] != s[:-1])
    first = np.flatnonzero(start)
    size = np.diff(np.append(first, n))
    r0 = first - offsets[q[first]]            # 0-based rank of the group's first document
    mixed = np.maximum.reduceat(g, first) > np.minimum.reduceat(g, first)
    gq = q[first]
    for c, k in enumerate(cutoffs):
        inside = mixed if k is None else mixed & (r0 < k)
        tied[c] = np.unique(gq[inside]).size
        if k is not None:
            crossing[c] = np.unique(gq[inside & (r0 + size > k)]).size
    return tied, crossing


# ============================================================================ compare


def _evaluate_preset(sys_: _System, s: int, j: int, conv: Convention, cutoffs: List[Cutoff], ideal: str,
                     n_threads: Optional[int], tie_cache: Dict[Any, Tuple[np.ndarray, np.ndarray]],
                     mean: np.ndarray, worst: np.ndarray, best: np.ndarray, tied: np.ndarray,
                     crossing: np.ndarray, empty: np.ndarray, per_q: Optional[Dict[str, Dict[str, np.ndarray]]]) -> None:
    """Fill row [s, j] of the result arrays: empty count, tie range and counts, mean
    (left NaN when the preset needs a tie key the system does not have)."""
    K = len(cutoffs)
    scorer = _scorer(sys_, cutoffs, conv, _ideal_arrays(sys_, conv, ideal), n_threads)
    idcg = np.asarray(scorer.ideal_dcg).reshape(sys_.n_queries, K)
    empty[s, j] = int(np.count_nonzero(idcg[:, 0] <= 0))
    # tie range: the same ideal DCG, only the tie rule changes
    for rule, dest in (("worst", worst), ("best", best)):
        bound = NDCGScorer(sys_.labels, sys_.offsets, cutoffs, convention=conv.replace(ties=rule),
                           weights=sys_.weights, ideal_dcg=scorer.ideal_dcg, n_threads=n_threads)
        dest[s, j] = bound.mean(sys_.scores, n_threads=n_threads)
    ckey = (conv.score_precision, conv.gain, conv.unknown_label)
    if ckey not in tie_cache:
        sc = sys_.scores.astype(np.float32) if conv.score_precision == "float32" else sys_.scores
        tie_cache[ckey] = _tie_counts(sc, _gains(sys_.labels, conv), sys_.offsets, cutoffs)
    tied[s, j], crossing[s, j] = tie_cache[ckey]
    if conv.uses_tie_key and sys_.tie_key is None:
        return
    key = _key_for(sys_, conv)
    if per_q is None:
        mean[s, j] = scorer.mean(sys_.scores, tie_key=key, n_threads=n_threads)
        return
    # one kernel run for both: the per-query values and the terms of the mean
    nd, num, den = scorer.summands(sys_.scores, tie_key=key, n_threads=n_threads)
    mean[s, j] = scorer.finish(exact_column_sums(num), exact_column_sums(den))
    per_q[sys_.name][conv.name] = nd.reshape(sys_.n_queries, K)


def compare(scores: Any, labels: Optional[ArrayLike] = None, offsets: Optional[ArrayLike] = None,
            k: Any = (1, 3, 5, 10), presets: Any = None, *, tie_key: Any = None,
            weights: Optional[ArrayLike] = None, ideal_labels: Optional[ArrayLike] = None,
            ideal_offsets: Optional[ArrayLike] = None, ideal: str = "auto", qids: Optional[ArrayLike] = None,
            per_query: bool = False, n_threads: Optional[int] = None) -> Comparison:
    """NDCG of one or more runs under every preset, with the reasons they differ.

    Parameters
    ----------
    scores : array of shape (n_docs,), or mapping {name: scores}
        One run, or several systems. A mapping's values are score arrays over
        the same documents (``labels``/``offsets`` shared), or objects with
        ``scores``, ``labels``, ``offsets`` attributes and optionally
        ``tie_key``, ``ideal_labels``, ``ideal_offsets``, ``qids``
        (:class:`RunData`, :class:`fastndcg.io.readers.AlignedRun`): runs that
        retrieved different documents.
    labels : array of shape (n_docs,), optional
        Relevance labels (with array scores).
    offsets : int array of shape (n_queries + 1,), optional
        Query q owns rows ``offsets[q]:offsets[q+1]`` (with array scores).
    k : int, None or sequence, default (1, 3, 5, 10)
        Cutoffs (None: the whole list). Repeated values are reported once.
    presets : None, name, Convention or sequence of them
        None: every registered preset (:func:`fastndcg.list_presets`). A
        Convention is reported under its ``name``.
    tie_key : int array of shape (n_docs,) or mapping {name: array}, optional
        Per-document tie key (e.g. the docno's rank) for presets that break
        ties by it (``ties="key"``/``"key_desc"``: trec_eval, pytrec_eval,
        gdeval, ...). **Without it those presets are reported as not
        computable** (with the reason): input order is never substituted,
        since it would silently give a different number than the tool.
    weights : array of shape (n_queries,), optional
        Query weights for the aggregate (shared by every system).
    ideal_labels, ideal_offsets : arrays, optional
        External judgments: every judged document of each query (CSR). Used by
        presets whose tool takes the ideal from the qrels (see
        :func:`fastndcg.conventions.ideal_source`); the others use the run's list.
    ideal : {"auto", "qrels", "run"}, default "auto"
        Override the ideal source for every preset when judgments are given.
    qids : array of shape (n_queries,), optional
        Query names for per-query output (default 0..n_queries-1).
    per_query : bool, default False
        Keep every query's NDCG (:attr:`Comparison.per_query`).
    n_threads : int, optional
        OpenMP threads; results do not depend on it.

    Returns
    -------
    Comparison
        Means per system x preset x cutoff, the diagnostics, rankings and
        flips; ``to_text()``, ``to_json()``, ``to_csv()``, ``plot(path)``.

    Raises
    ------
    ValueError, TypeError
        Bad cutoffs (``k[0] must be >= 1; got 0``), an unknown preset, runs
        that do not match their labels, and any input error common to all
        presets (named by system). An error specific to one preset (labels
        outside its gain table, ``empty="error"`` with an empty query) does not
        raise: that preset is reported as not computable with the message.

    Notes
    -----
    For each query with documents ranked by score descending, DCG@k =
    sum_{r <= min(k, n)} G(l_(r)) D(r) and NDCG@k = DCG@k / IDCG@k, with G, D,
    the tie rule, the empty and short rules and the ideal list taken from the
    preset. The tie range uses the preset with ``ties="worst"`` (lower gain
    first among equal scores) and ``ties="best"`` (higher gain first), which
    bound every tie order, including ``"average"`` and the tools' own. A
    query counts as "tied at k" when a group of equal scores (after the
    preset's score precision) holds documents of different gain and starts at
    a rank <= k; it also "crosses k" when it extends beyond rank k. A query is
    "empty" for a preset when its ideal DCG is 0 (no document of positive
    gain), which depends on the preset's gain.

    Examples
    --------
    >>> import fastndcg
    >>> r = fastndcg.compare([3, 2, 1], [0, 1, 2], [0, 3], k=[1, 3],
    ...                      presets=["standard", "sklearn"])
    >>> round(float(r.mean[0, 0, 1]), 6)   # standard, NDCG@3
    0.586883
    """
    cutoffs = _as_cutoffs(k)
    convs = _as_presets(presets)
    if ideal not in IDEAL_CHOICES:
        raise ValueError(f"ideal must be one of {IDEAL_CHOICES}; got {ideal!r}")
    systems = _systems(scores, labels, offsets, tie_key, weights, ideal_labels, ideal_offsets, qids)
    for sys_ in systems:
        _validate(sys_, n_threads)
        if ideal == "qrels" and sys_.ideal_labels is None:
            raise ValueError(f"ideal='qrels' needs judgments (ideal_labels/ideal_offsets); system {sys_.name!r} has none")
    names = list(convs)
    S, P, K = len(systems), len(names), len(cutoffs)
    mean = np.full((S, P, K), np.nan)
    worst, best = np.full((S, P, K), np.nan), np.full((S, P, K), np.nan)
    tied = np.full((S, P, K), -1, dtype=np.int64)
    crossing = np.full((S, P, K), -1, dtype=np.int64)
    empty = np.full((S, P), -1, dtype=np.int64)
    short = np.zeros((S, K), dtype=np.int64)
    reasons: Dict[str, Dict[str, str]] = {}
    per_q: Optional[Dict[str, Dict[str, np.ndarray]]] = {} if per_query else None
    for s, sys_ in enumerate(systems):
        sizes = np.diff(sys_.offsets)
        for c, kk in enumerate(cutoffs):
            short[s, c] = 0 if kk is None else int(np.count_nonzero(sizes < kk))
        tie_cache: Dict[Any, Tuple[np.ndarray, np.ndarray]] = {}
        if per_q is not None:
            per_q[sys_.name] = {}
        for j, p in enumerate(names):
            conv = convs[p]
            try:
                _evaluate_preset(sys_, s, j, conv, cutoffs, ideal, n_threads, tie_cache, mean, worst, best,
                                 tied, crossing, empty, per_q)
            except (ValueError, TypeError) as exc:      # the preset's own rules (labels, empty='error', ...)
                reasons.setdefault(sys_.name, {})[p] = str(exc)
                mean[s, j] = np.nan
                if per_q is not None:
                    per_q[sys_.name].pop(p, None)
                continue
            if conv.uses_tie_key and sys_.tie_key is None:
                reasons.setdefault(sys_.name, {})[p] = _no_key_reason(conv)
    notes = []
    if S > 1:
        qsets = {tuple(_qid(q) for q in sys_.qids) for sys_ in systems}
        if len(qsets) > 1:
            notes.append("the systems were evaluated on different sets of queries; their means are not "
                         "directly comparable")
    ideal_sources = {p: _ideal_source(convs[p], systems[0], ideal) for p in names}
    return Comparison(
        cutoffs=cutoffs, presets=names, conventions=convs, ideal_sources=ideal_sources,
        systems=[s_.name for s_ in systems],
        n_queries=np.array([s_.n_queries for s_ in systems], dtype=np.int64),
        n_docs=np.array([s_.scores.shape[0] for s_ in systems], dtype=np.int64),
        zero_doc_queries=np.array([int(np.count_nonzero(np.diff(s_.offsets) == 0)) for s_ in systems],
                                  dtype=np.int64),
        short_queries=short, empty_queries=empty, mean=mean, tie_worst=worst, tie_best=best,
        tied_queries=tied, tie_crossing_queries=crossing, reasons=reasons,
        qids={s_.name: s_.qids for s_ in systems}, per_query=per_q, notes=notes,
        _inputs=systems, _ideal=ideal, _n_threads=n_threads)
