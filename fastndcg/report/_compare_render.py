"""Rendering a comparison: :class:`Comparison`, the result of :func:`fastndcg.compare` (the numbers
computed by ``_compare_compute``, read through their public attributes and views) with its outputs:
an aligned text report, JSON, CSV and the NDCG@1..k plot; and :func:`compare` itself, which wraps
the computed numbers in it (it lives here, not in compute, since its result carries the renderers
and compute never imports them)."""
from __future__ import annotations
import io
import math
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from fastndcg._core.summary import short_list
from fastndcg.conventions._convention import FIELDS, Convention, described_fields
from fastndcg.conventions._fields import TREC_MEASURE_INPUTS
from fastndcg.report._compare_compute import ArrayLike, ComparisonData, comparison_fields
from fastndcg.report._format import csv_field as _csv
from fastndcg.report._format import csv_num as _csv_num
from fastndcg.report._format import json_text
from fastndcg.report._format import qid_json as _qid
from fastndcg.report._format import table as _table
from fastndcg.report._format import write_output

#: Fields of a convention shown in reports, in order: the choices that make tools disagree.
#: The fields that are columns of the report (from the fields' descriptions).
PRESET_FIELDS = tuple(info.name for info in FIELDS if info.column is not None)


def preset_fields(conv: Convention) -> Dict[str, str]:
    """The report's text for each field in :data:`PRESET_FIELDS`, and ``other``:
    any further field that differs from the default convention (``name=value``)."""
    return dict({f: _field_text(conv, f) for f in PRESET_FIELDS}, other=other_fields(conv))


def other_fields(conv: Convention) -> str:
    # ideal_source has its own column (the source each preset used); fields that only trec_eval's
    # measures read (custom gains) cannot change a comparison
    return " ".join(f"{info.name}={getattr(conv, info.name)}" for info in described_fields(conv)
                    if info.column is None and info.name != "ideal_source"
                    and not set(info.matters) <= set(TREC_MEASURE_INPUTS)
                    and getattr(conv, info.name) != info.default) or "-"


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


class Comparison(ComparisonData):
    """The result of :func:`compare`: the numbers, their views (``spread()``, ``rankings()``,
    ``order_changed()``, ``flips()``, ``curves(max_k)``, ``signatures()``) and the outputs
    (``to_text()``, ``to_json()``, ``to_dict()``, ``to_csv()``, ``plot(path)``).

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


def compare(scores: Any, labels: Optional[ArrayLike] = None, offsets: Optional[ArrayLike] = None,
            k: Any = (1, 3, 5, 10), presets: Any = None, *, tie_key: Any = None,
            weights: Optional[ArrayLike] = None, ideal_labels: Optional[ArrayLike] = None,
            ideal_offsets: Optional[ArrayLike] = None, ideal: str = "auto", qids: Optional[ArrayLike] = None,
            per_query: bool = False, n_threads: Optional[int] = None,
            explain_error: Callable[[Exception], str] = str) -> Comparison:
    """NDCG of one or more runs under every preset, with the reasons they differ.

    Parameters
    ----------
    scores : array of shape (n_docs,), or mapping {name: scores}
        One run, or several systems. A mapping's values are score arrays over
        the same documents (``labels``/``offsets`` shared), or objects with
        ``scores``, ``labels``, ``offsets`` attributes and optionally
        ``tie_key``, ``ideal_labels``, ``ideal_offsets``, ``qids``
        (:class:`RunData`, :class:`fastndcg.io.AlignedRun`): runs that
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
        :attr:`fastndcg.Convention.ideal_source`); the others use the run's list.
    ideal : {"auto", "qrels", "run"}, default "auto"
        Override the ideal source for every preset when judgments are given.
    qids : array of shape (n_queries,), optional
        Query names for per-query output (default 0..n_queries-1).
    per_query : bool, default False
        Keep every query's NDCG (:attr:`Comparison.per_query`).
    n_threads : int, optional
        OpenMP threads; results do not depend on it.
    explain_error : callable, default str
        The reason reported for a preset whose own rules refuse the input
        (``fastndcg compare --data`` names the data file's line).

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
    return Comparison(**comparison_fields(
        scores, labels, offsets, k=k, presets=presets, tie_key=tie_key, weights=weights, ideal_labels=ideal_labels,
        ideal_offsets=ideal_offsets, ideal=ideal, qids=qids, per_query=per_query, n_threads=n_threads,
        explain_error=explain_error))
