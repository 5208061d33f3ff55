"""The result of :func:`fastndcg.compare`: :class:`RunData` (one system's arrays),
:class:`Comparison` (NDCG per system, preset and cutoff, with the reasons they differ) and its
renderers: text table, JSON, CSV and plots; the scorer of one system under one preset."""
from __future__ import annotations
import io
import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from fastndcg._core.prepared import NDCGScorer
from fastndcg._core.summary import short_list
from fastndcg.report._format import csv_field as _csv
from fastndcg.report._format import csv_num as _csv_num
from fastndcg.report._format import json_text
from fastndcg.report._format import qid_json as _qid
from fastndcg.report._format import table as _table
from fastndcg.report._format import write_output
from fastndcg.conventions._topics import DEFAULT_MISSING
from fastndcg.conventions._convention import Convention
from fastndcg.report._comparison_text import ArrayLike, Cutoff, json_count, count_text, csv_count, _fmt, _indent, matplotlib_figure, json_number, other_fields, rank_of, tiers_text, measure_name, preset_fields


@dataclass
class RunData:
    """One system's inputs when runs do not share labels and queries.

    A mapping ``{name: RunData}`` (or any object with these attributes, such as
    :class:`fastndcg.io.AlignedRun`) can be given to :func:`compare`.

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
    run_path, score_line : optional
        The file the scores were read from and the file line of score i (None
        when unknown), as :class:`fastndcg.io.AlignedRun` has them: a score
        beyond float32 is then named by its line (``run.txt:3``).
    """

    scores: ArrayLike
    labels: ArrayLike
    offsets: ArrayLike
    tie_key: Optional[ArrayLike] = None
    ideal_labels: Optional[ArrayLike] = None
    ideal_offsets: Optional[ArrayLike] = None
    qids: Optional[ArrayLike] = None
    run_path: str = ""
    score_line: Optional[Callable[[int], Optional[int]]] = None


@dataclass
class ComparedSystem:
    name: str
    scores: np.ndarray
    labels: np.ndarray
    offsets: np.ndarray
    tie_key: Optional[np.ndarray]
    ideal_labels: Optional[np.ndarray]
    ideal_offsets: Optional[np.ndarray]
    qids: np.ndarray
    weights: Optional[np.ndarray]
    run_path: str = ""
    score_line: Optional[Callable[[int], Optional[int]]] = None

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
    _inputs: List[ComparedSystem] = field(default_factory=list, repr=False)
    _ideal: str = field(default="auto", repr=False)
    _n_threads: Optional[int] = field(default=None, repr=False)
    #: the rule for judged topics missing from a run, as the inputs were aligned (TREC files)
    missing: str = DEFAULT_MISSING

    def signature(self, preset: str, cutoff: Cutoff) -> str:
        """The signature of one column: ``preset`` at ``cutoff``, with the ideal
        list it was computed from (:mod:`fastndcg.measures._measurement`)."""
        from fastndcg.measures._measurement import measurement_for

        conv = self.conventions[preset]
        source = "qrels" if self.ideal_sources[preset] == "qrels" else "run"
        if source != conv.ideal_source:
            conv = conv.replace(ideal_source=source)
        return measurement_for(cutoff, convention=conv, missing=self.missing).signature

    def signatures(self) -> Dict[str, Dict[str, str]]:
        """{preset: {measure: signature}}."""
        return {p: {m: self.signature(p, k) for m, k in zip(self.measures, self.cutoffs)} for p in self.presets}

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
            "signatures": self.signatures(),
            "systems": [],
            "notes": list(self.notes),
        }
        for s, name in enumerate(self.systems):
            sysdoc: Dict[str, Any] = {
                "name": name, "n_queries": int(self.n_queries[s]), "n_docs": int(self.n_docs[s]),
                "zero_doc_queries": int(self.zero_doc_queries[s]),
                "short_queries": {m: int(self.short_queries[s, c]) for c, m in enumerate(measures)},
                "presets": {},
                "spread": {m: {**spread[s][c], "spread": json_number(spread[s][c]["spread"]),
                               "min": json_number(spread[s][c]["min"]), "max": json_number(spread[s][c]["max"])}
                           for c, m in enumerate(measures)},
            }
            for j, p in enumerate(self.presets):
                reason = self.reasons.get(name, {}).get(p)
                sysdoc["presets"][p] = {
                    "computable": reason is None,
                    "reason": reason,
                    "mean": {m: json_number(self.mean[s, j, c]) for c, m in enumerate(measures)},
                    "tie_range": {m: [json_number(self.tie_worst[s, j, c]), json_number(self.tie_best[s, j, c])]
                                  for c, m in enumerate(measures)},
                    "empty_queries": json_count(self.empty_queries[s, j]),
                    "tied_queries": {m: json_count(self.tied_queries[s, j, c]) for c, m in enumerate(measures)},
                    "tie_crossing_queries": {m: json_count(self.tie_crossing_queries[s, j, c])
                                             for c, m in enumerate(measures)},
                }
            if self.per_query is not None:
                qids = [_qid(q) for q in self.qids[name]]
                sysdoc["per_query"] = {
                    p: [dict(query=q, **{m: json_number(v) for m, v in zip(measures, row)})
                        for q, row in zip(qids, values.tolist())]
                    for p, values in self.per_query[name].items()}
            doc["systems"].append(sysdoc)
        if len(self.systems) > 1:
            ranks = self.rankings()
            changed = self.order_changed()
            doc["rankings"] = {m: {p: {"order": ranks[p][c], "differs_from_baseline": changed[p][c]}
                                   for p in self.presets} for c, m in enumerate(measures)}
            doc["flips"] = [dict(f, max_a_lead=json_number(f["max_a_lead"]), max_b_lead=json_number(f["max_b_lead"]))
                            for f in self.flips()]
        return doc

    def to_json(self, indent: Optional[int] = 2) -> str:
        """The report as JSON (see :meth:`to_dict`); NaN becomes null."""
        return json_text(self.to_dict(), indent=indent) + "\n"

    def to_csv(self) -> str:
        """One row per (system, preset, cutoff), full precision; empty cells
        for undefined values. With per-query values, one more row per query
        (``query`` column; ``all`` on the aggregate rows).

        Columns: system, preset, measure, cutoff, query, ndcg, tie_worst,
        tie_best, rank, n_queries, empty_queries, short_queries, tied_queries,
        tie_crossing_queries, reason.
        """
        cols = ["system", "preset", "measure", "cutoff", "query", "ndcg", "tie_worst", "tie_best", "rank",
                "n_queries", "empty_queries", "short_queries", "tied_queries", "tie_crossing_queries", "reason",
                "signature"]
        ranks = self.rankings()
        buf = io.StringIO()
        buf.write(",".join(cols) + "\n")
        signatures = self.signatures()        # once per column, not per row
        for s, name in enumerate(self.systems):
            for j, p in enumerate(self.presets):
                reason = self.reasons.get(name, {}).get(p, "")
                for c, m in enumerate(self.measures):
                    cut = "" if self.cutoffs[c] is None else str(self.cutoffs[c])
                    sig = _csv(signatures[p][m])
                    if self.per_query is not None and p in self.per_query[name]:
                        for q, v in zip(self.qids[name], self.per_query[name][p][:, c].tolist()):
                            buf.write(",".join([_csv(name), _csv(p), m, cut, _csv(str(_qid(q))), _csv_num(v)]
                                               + [""] * (len(cols) - 7) + [sig])
                                      + "\n")
                    rank = rank_of(ranks[p][c], name)
                    cells = [_csv(name), _csv(p), m, cut, "all", _csv_num(self.mean[s, j, c]),
                             _csv_num(self.tie_worst[s, j, c]), _csv_num(self.tie_best[s, j, c]),
                             "" if rank is None else str(rank), str(int(self.n_queries[s])),
                             csv_count(self.empty_queries[s, j]), str(int(self.short_queries[s, c])),
                             csv_count(self.tied_queries[s, j, c]), csv_count(self.tie_crossing_queries[s, j, c]),
                             _csv(reason), sig]
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
                                                                               other_fields(self.conventions[p])]
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
                rows.append([p + mark] + cells + [count_text(self.empty_queries[s, j])])
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
                    cells.append(f"{count_text(self.tied_queries[s, j, c])} "
                                 f"({count_text(self.tie_crossing_queries[s, j, c])})")
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
            rows = [[p] + [tiers_text(ranks[p][c]) + (" *" if changed[p][c] else "")
                           for c in range(len(measures))] for p in self.presets]
            out.append(_table(["preset"] + measures, rows, right_from=99))
            flips = self.flips()
            out.append("\nFlips: pairs whose order depends on the preset" + ("" if flips else ": none") + "\n")
            for f in flips:
                out.append(f"  {f['measure']}: {f['a']} vs {f['b']}: {f['a']} ahead under {', '.join(f['a_ahead'])} "
                           f"(by up to {fmt(f['max_a_lead'])}); {f['b']} ahead under {', '.join(f['b_ahead'])} "
                           f"(by up to {fmt(f['max_b_lead'])})"
                           + (f"; equal under {', '.join(f['equal'])}" if f["equal"] else "") + "\n")
        out.append("\nSignatures (what each column computed, completely)\n")
        for p in self.presets:
            for m, k in zip(measures, self.cutoffs):
                out.append(f"  {p} {m}: {self.signature(p, k)}\n")
        return "".join(out)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        """``Comparison(systems ['a', 'b'], presets ['trec_eval', 'standard'], measures ['ndcg@10'],
        2,000 queries)``; ``print()`` gives the table (:meth:`to_text`), :meth:`to_dict` the data."""
        n_q = sorted({int(n) for n in np.asarray(self.n_queries).tolist()})
        queries = f"{n_q[0]:,} queries" if len(n_q) == 1 else f"{n_q[0]:,}-{n_q[-1]:,} queries"
        return (f"Comparison(systems {short_list(self.systems)}, presets {short_list(self.presets)}, "
                f"measures {short_list(self.measures)}, {queries})")

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
                scorer = _scorer(sys_, ks, self.conventions[p], ideal_arrays(sys_, self.conventions[p], self._ideal),
                                 self._n_threads)
                out[s, j] = scorer.mean(sys_.scores, tie_key=tie_key_of(sys_, self.conventions[p]),
                                        n_threads=self._n_threads)
        return out

    def plot(self, path: str, max_k: Optional[int] = None, *, dpi: int = 100) -> str:
        """Write a PNG of NDCG@1..max_k, one line per preset (one panel per system).

        ``max_k`` defaults to the largest finite cutoff (at least 2). The file is
        written atomically (a temporary file in the same folder, then renamed).
        Needs matplotlib (``pip install "fastndcg[plot]"``). Returns ``path``.
        """
        Figure, colormaps = matplotlib_figure()
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


def _ideal_source(conv: Convention, sys_: ComparedSystem, ideal: str) -> str:
    if sys_.ideal_labels is None:
        return "list"
    if ideal != "auto":
        return ideal
    from fastndcg.conventions._presets import ideal_source

    return ideal_source(conv)


def ideal_arrays(sys_: ComparedSystem, conv: Convention, ideal: str) -> Dict[str, Any]:
    if _ideal_source(conv, sys_, ideal) == "qrels":
        return dict(ideal_labels=sys_.ideal_labels, ideal_offsets=sys_.ideal_offsets)
    return {}


def tie_key_of(sys_: ComparedSystem, conv: Convention) -> Optional[np.ndarray]:
    return sys_.tie_key if conv.uses_tie_key else None


def _scorer(sys_: ComparedSystem, ks: List[Cutoff], conv: Convention, ideal_kw: Dict[str, Any],
            n_threads: Optional[int]) -> NDCGScorer:
    return NDCGScorer(sys_.labels, sys_.offsets, ks, convention=conv, weights=sys_.weights,
                      n_threads=n_threads, **ideal_kw)
