"""NDCG of a run joined with qrels (:class:`fastndcg.io.AlignedRun`, arrays from io): the
kernel inputs a convention takes from it (the docno tie key, the ideal list from the qrels or
the run, trec_eval's custom gains) and the scorers, in one place for every front-end that holds
an aligned run (:func:`aligned_ndcg`, :func:`aligned_mean_ndcg`, the TREC stream, ``compare``).
io returns the arrays and never calls the measures."""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy as np

from fastndcg._core.prepared import NDCGScorer
from fastndcg.conventions._convention import Convention
from fastndcg.conventions._presets import as_convention, ideal_source
from fastndcg.measures._ndcg import mean_ndcg, ndcg
from fastndcg.measures._trec_gain_resolution import GainQuirks, resolve_trec_gains, warn_quirks
from fastndcg.measures._trec_gain_scoring import GainScorer, bogus_ranking
from fastndcg.measures._trec_gain_specs import as_gains, gain_rules, textbook_convention

__all__ = ["aligned_arrays", "aligned_ndcg", "aligned_mean_ndcg"]


def _ideal_list(conv: Convention, ideal: str) -> str:
    """Where the ideal list comes from: the convention's tool (``ideal="auto"``), or "qrels" / "run"."""
    src = ideal_source(conv) if ideal == "auto" else ideal
    if src not in ("qrels", "run"):
        raise ValueError(f"ideal must be 'auto', 'qrels' or 'run'; got {ideal!r}")
    return src


def aligned_arrays(aligned: Any, convention: Any = "trec_eval", ideal: str = "auto") -> Dict[str, np.ndarray]:
    """The keyword arrays of :func:`fastndcg.ndcg` for an aligned run under a convention:
    ``scores``, ``labels``, ``offsets``; ``tie_key`` (each document's docno order within its
    topic) when the convention breaks ties by key (trec_eval: tied scores by docno descending);
    ``ideal_labels`` / ``ideal_offsets`` (every judgment of the topic, retrieved or not) when the
    ideal list comes from the qrels (:attr:`fastndcg.Convention.ideal_source`, or ``ideal``)."""
    conv = as_convention("trec_eval" if convention is None else convention)
    kw: Dict[str, np.ndarray] = dict(scores=aligned.scores, labels=aligned.labels, offsets=aligned.offsets)
    if conv.uses_tie_key:
        kw["tie_key"] = aligned.tie_key
    if _ideal_list(conv, ideal) == "qrels":
        kw["ideal_labels"] = aligned.ideal_labels
        kw["ideal_offsets"] = aligned.ideal_offsets
    return kw


def aligned_ndcg(aligned: Any, k: Any = None, *, convention: Any = "trec_eval", ideal: str = "auto",
                 gains: Any = None, n_threads: Optional[int] = None) -> np.ndarray:
    """Per-topic NDCG of an aligned run (:func:`fastndcg.io.align_run`, :meth:`fastndcg.io._joined_runs.JoinedRun.aligned`).

    For topic q, DCG@k = sum_{r <= k} G(l_r) / log2(r + 1) over its ranking (score descending,
    ties as the convention says: trec_eval's by docno descending), NDCG@k = DCG@k / IDCG@k with
    the ideal list from the qrels or the run as the convention's tool takes it (``ideal``:
    "auto", "qrels" or "run"); see :func:`fastndcg.ndcg` for the convention's other rules.

    ``gains``: custom gains, as trec_eval's ``-m ndcg.L=G,...`` (a string ``"1=3,2=9"``, a
    mapping ``{level: gain}`` or a :class:`fastndcg.measures._trec_gain_specs.GainSpec`). Under the ``trec_eval``
    and ``pytrec_eval`` presets they follow trec_eval's rules exactly (unjudged documents are
    level -1, negative judgments level -2, trec_eval's ideal walk; a
    :class:`fastndcg.measures.TrecGainQuirkWarning` when a quirk of its ordering changes a
    value); under other conventions they are a gain table (unlisted levels: gain = level).

    Returns
    -------
    float64 (n_topics,) or (n_topics, n_cutoffs)
    """
    return _scored(aligned, k, convention, ideal, gains, n_threads, mean=False)


def aligned_mean_ndcg(aligned: Any, k: Any = None, *, convention: Any = "trec_eval", ideal: str = "auto",
                      gains: Any = None, n_threads: Optional[int] = None) -> Any:
    """Mean NDCG over the evaluated topics of an aligned run (the exact aggregate of
    :func:`fastndcg.mean_ndcg`; arguments and rules as :func:`aligned_ndcg`)."""
    return _scored(aligned, k, convention, ideal, gains, n_threads, mean=True)


def _scored(aligned: Any, k: Any, convention: Any, ideal: str, gains: Any, n_threads: Optional[int],
            mean: bool) -> Any:
    """Per-topic NDCG or its mean: custom gains through their scorer, else the NDCG API on the
    convention's arrays."""
    if gains is not None:
        scorer, scores, key = aligned_scorer(aligned, gains, k, convention, ideal, n_threads)
        return (scorer.mean if mean else scorer.ndcg)(scores, tie_key=key, n_threads=n_threads)
    conv = as_convention("trec_eval" if convention is None else convention)
    arrays = aligned_arrays(aligned, conv, ideal)
    if getattr(aligned, "score_lines", None) is None or arrays["scores"] is not aligned.scores:
        return (mean_ndcg if mean else ndcg)(k=k, convention=conv, n_threads=n_threads, **arrays)
    # a score beyond float32 (warned about or refused) is named by its run file line
    from fastndcg._core.score_checks import overflow_at_file_lines
    from fastndcg.io._row_lines import at_file_lines

    line_of = aligned.score_line
    with at_file_lines({"scores": (aligned.run_path, line_of)}), overflow_at_file_lines(aligned.run_path, line_of):
        return (mean_ndcg if mean else ndcg)(k=k, convention=conv, n_threads=n_threads, **arrays)


def aligned_inputs(aligned: Any, gains: Any, convention: Any = "trec_eval", ideal: str = "auto",
                   n_threads: Optional[int] = None) -> Tuple[Convention, Dict[str, Any], GainQuirks]:
    """The kernel inputs of a :class:`fastndcg.io.AlignedRun` under custom gains.

    Returns ``(convention, kwargs, quirks)``; ``kwargs`` always holds ``scores``
    and ``offsets``, and ``tie_key`` when the convention breaks ties by key.

    * Under trec_eval's rules (:func:`gain_rules`) it adds ``gains`` and
      ``ideal_dcg`` (:func:`resolve_trec_gains`; the ideal from every judgment
      of the qrels, or with ``ideal="run"`` from the retrieved ones) for
      :class:`GainScorer`. Under ``missing_ranking="unjudged"`` (trec_eval 10) a topic
      with no retrieved document (a judged topic missing from the run, kept by
      ``missing="zero"``, trec_eval's ``-c``) is ranked as one document that is
      not in the qrels (level -1), as trec_eval 10 ranks it: with a gain listed
      for -1 its DCG is that gain, not 0.
    * Under a gain table it adds ``labels`` and ``ideal_labels`` /
      ``ideal_offsets`` for :class:`fastndcg.NDCGScorer`, and ``convention``
      is the table convention (:func:`textbook_convention`).
    """
    spec = as_gains(gains)
    conv = as_convention("trec_eval" if convention is None else convention)   # as aligned_ndcg
    if gain_rules(conv) == "table":
        top = max(float(np.max(aligned.labels, initial=0)), float(np.max(aligned.ideal_labels, initial=0)))
        tconv = textbook_convention(spec, conv, top)
        return tconv, aligned_arrays(aligned, tconv, ideal), GainQuirks()
    src = _ideal_list(conv, ideal)
    scores, levels, offsets, tie_key = aligned.scores, aligned.trec_levels(), aligned.offsets, aligned.tie_key
    if src == "qrels":
        judged, joff = aligned.trec_judged(), aligned.ideal_offsets
    else:
        judged, joff = levels, offsets
    if conv.missing_ranking == "unjudged":
        scores, levels, tie_key, offsets = bogus_ranking(scores, levels, tie_key, offsets)
    res = resolve_trec_gains(spec, levels, offsets, judged, joff, conv, n_threads)
    kw = dict(scores=scores, offsets=offsets, gains=res.doc_gains, ideal_dcg=res.ideal_dcg)
    if conv.uses_tie_key:
        kw["tie_key"] = tie_key
    return conv, kw, res.quirks


def aligned_scorer(aligned: Any, gains: Any, k: Any = None, convention: Any = "trec_eval",
                   ideal: str = "auto", n_threads: Optional[int] = None):
    """``(scorer, scores, tie_key)`` for an aligned run under custom gains: a
    :class:`GainScorer` under trec_eval's rules (after one
    :class:`TrecGainQuirkWarning` if a quirk changes a value), else a
    :class:`fastndcg.NDCGScorer` with the gain table; score ``scores`` with
    ``tie_key``. Used by :func:`aligned_ndcg` and :func:`aligned_mean_ndcg`."""
    conv, kw, quirks = aligned_inputs(aligned, gains, convention, ideal, n_threads)
    warn_quirks(quirks, as_gains(gains), stacklevel=5)   # warn_quirks, aligned_scorer, _scored, aligned_ndcg, the caller
    scores, key = kw.pop("scores"), kw.pop("tie_key", None)
    if "gains" in kw:
        return GainScorer(kw["gains"], kw["offsets"], k, convention=conv, ideal_dcg=kw["ideal_dcg"],
                          n_threads=n_threads), scores, key
    return NDCGScorer(kw.pop("labels"), kw.pop("offsets"), k, convention=conv, n_threads=n_threads, **kw), scores, key
