"""Public NDCG API: one-shot functions over the prepared-queries layer.

Each function builds a throw-away :class:`~fastndcg.NDCGScorer` (shapes and
dtypes checked, the convention resolved) and runs its kernel once: the kernel
checks scores and labels and computes each query's ideal in the same
parallel pass. The per-query definitions (the spec) are in
:mod:`fastndcg.reference`.
"""
from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

from fastndcg.conventions._convention import Cutoffs
from fastndcg._core.prepared import NDCGScorer, one_shot
from fastndcg.conventions._presets import as_convention
from fastndcg._core.resolve import discount

ArrayLike = Any


def _measured(measurement: Any, k: Cutoffs, convention: Any, family: str = "ndcg") -> Any:
    """(k, convention) of ``measurement=`` (a :class:`~fastndcg.Measurement` or its
    signature), or the arguments as given (:func:`~fastndcg.measures._measurement.array_arguments`)."""
    if measurement is None:
        return k, convention
    from fastndcg.measures._measurement import array_arguments

    got = array_arguments(measurement, family, k=k, convention=convention)
    return got["k"], got["convention"]


def discount_table(convention, n: int) -> np.ndarray:
    """D(r) for ranks 1..n (at least n entries); see :func:`fastndcg._core.resolve.discount`."""
    return discount(convention, n)


def ndcg(scores: ArrayLike, labels: ArrayLike, offsets: ArrayLike, k: Cutoffs = None, *,
         convention: Any = None, measurement: Any = None, tie_key: Optional[ArrayLike] = None,
         ideal_dcg: Optional[ArrayLike] = None, ideal_labels: Optional[ArrayLike] = None,
         ideal_offsets: Optional[ArrayLike] = None, n_threads: Optional[int] = None) -> np.ndarray:
    """NDCG per query over CSR inputs.

    Parameters
    ----------
    scores : array of shape (n_docs,)
        Model scores; float32 and float64 are used as given, other numeric
        types become float64. Must be finite.
    labels : array of shape (n_docs,)
        Relevance labels (see :class:`NDCGScorer`).
    offsets : int array of shape (n_queries + 1,)
        Query q owns rows ``offsets[q]:offsets[q+1]``; starts at 0,
        non-decreasing, ends at n_docs. Empty queries are allowed.
    k : None, int or sequence of int, default None
        Cutoff(s); None is the whole list (or ``convention.default_k`` when
        set). Many cutoffs share one top-k selection per query. Positional:
        column j is ``k[j]``'s, so a repeated cutoff repeats its (identical)
        column; the results keyed by name (DataFrames, the command line's
        ``-k``) have one column per distinct cutoff.
    convention : Convention, preset name or None
        Gain, discount, tie rule, empty/short-query rules, ideal list,
        aggregation. None is ``Convention()``: exponential gain 2**l - 1,
        discount 1/log2(r+1), ties in input order, empty queries 0, k clamped
        to n, ideal cut at k.
    measurement : Measurement or str, optional
        Instead of ``k`` and ``convention``: a :class:`~fastndcg.Measurement`
        or its signature (``fastndcg.from_signature``), e.g. the one printed
        next to a number you want to reproduce.
    tie_key : int array of shape (n_docs,), optional
        Needed when ``convention.ties`` is "key" or "key_desc".
    ideal_dcg, ideal_labels, ideal_offsets : optional
        An external ideal (see :class:`NDCGScorer`).
    n_threads : int, optional
        OpenMP threads (None: the CPUs other work does not hold now, see
        :func:`fastndcg.effective_n_threads`). Results are bit-identical for any value.

    Returns
    -------
    ndarray of float64
        Shape (n_queries,) for a single k, (n_queries, len(k)) for a list.

    Notes
    -----
    For query q with n documents ranked by score descending:
    DCG@k = sum_{r=1}^{min(k,n)} G(l_(r)) D(r), with G(l) = 2**l - 1 (or l, or
    a table) and D(r) = 1/log2(r+1) (or LETOR's, or 1/r);
    NDCG@k = DCG@k / IDCG@k, IDCG@k being the DCG of the labels sorted by gain.
    Tie rule: documents with equal scores keep their input order unless the
    convention says otherwise ("key", "average", "worst", "best").

    Examples
    --------
    >>> import numpy as np, fastndcg
    >>> fastndcg.ndcg([5, 4, 3, 2, 1], [3, 1, 2, 0, 2], [0, 5], k=5)
    array([0.9508496])
    """
    k, convention = _measured(measurement, k, convention)
    scorer, sc, key = one_shot(scores, labels, offsets, k, convention, tie_key, None, ideal_dcg,
                               ideal_labels, ideal_offsets, n_threads)
    return scorer._shape(scorer._run(sc, key, n_threads)[1], fresh=True)


def dcg(scores: ArrayLike, labels: ArrayLike, offsets: ArrayLike, k: Cutoffs = None, *,
        convention: Any = None, tie_key: Optional[ArrayLike] = None,
        n_threads: Optional[int] = None, measurement: Any = None) -> np.ndarray:
    """DCG per query: sum_{r=1}^{min(k,n)} G(l_(r)) D(r); shapes and tie rule as :func:`ndcg`
    (``measurement=``: a DCG :class:`~fastndcg.Measurement` or its signature, for ``k`` and
    ``convention``)."""
    k, convention = _measured(measurement, k, convention, "dcg")
    scorer, sc, key = one_shot(scores, labels, offsets, k, convention, tie_key)
    return scorer._shape(scorer._run(sc, key, n_threads, with_ndcg=False)[0], fresh=True)


def ideal_dcg(labels: ArrayLike, offsets: ArrayLike, k: Cutoffs = None, *,
              convention: Any = None, n_threads: Optional[int] = None, measurement: Any = None) -> np.ndarray:
    """Ideal DCG per query: the DCG of the query's labels sorted by gain, descending.

    Cut at min(k, n) unless ``convention.ideal == "full"`` (then all n ranks).
    Integer labels with small gain tables are counted, not sorted.
    Shapes as :func:`ndcg`. An ideal DCG of 0 is returned as 0 whatever
    ``convention.empty`` says (that rule is about NDCG). ``measurement=``: an IDCG
    :class:`~fastndcg.Measurement` or its signature, for ``k`` and ``convention``.
    """
    k, convention = _measured(measurement, k, convention, "ideal_dcg")
    conv = as_convention(convention)
    if conv.empty == "error":       # that rule is about NDCG: an ideal DCG of 0 is a value here
        conv = conv.replace(empty="zero", name=conv.name)
    return NDCGScorer(labels, offsets, k, convention=conv, n_threads=n_threads).ideal_dcg


def mean_ndcg(scores: ArrayLike, labels: ArrayLike, offsets: ArrayLike, k: Cutoffs = None, *,
              convention: Any = None, measurement: Any = None, weights: Optional[ArrayLike] = None,
              tie_key: Optional[ArrayLike] = None, ideal_dcg: Optional[ArrayLike] = None,
              ideal_labels: Optional[ArrayLike] = None, ideal_offsets: Optional[ArrayLike] = None,
              n_threads: Optional[int] = None) -> Union[float, np.ndarray]:
    """NDCG aggregated over queries (see :meth:`NDCGScorer.mean`): a float for
    a single k, else an array with one value per cutoff."""
    k, convention = _measured(measurement, k, convention)
    scorer, sc, key = one_shot(scores, labels, offsets, k, convention, tie_key, weights, ideal_dcg,
                               ideal_labels, ideal_offsets, n_threads)
    dcg_u, ndcg_u = scorer._run(sc, key, n_threads)
    return scorer._aggregate(dcg_u, ndcg_u, n_threads)


def ndcg_and_mean(scores: ArrayLike, labels: ArrayLike, offsets: ArrayLike, k: Cutoffs = None, *,
                  convention: Any = None, measurement: Any = None, weights: Optional[ArrayLike] = None,
                  tie_key: Optional[ArrayLike] = None, ideal_dcg: Optional[ArrayLike] = None,
                  ideal_labels: Optional[ArrayLike] = None, ideal_offsets: Optional[ArrayLike] = None,
                  n_threads: Optional[int] = None):
    """(:func:`ndcg`, :func:`mean_ndcg`) of the same inputs from one kernel pass
    (what ``fastndcg eval`` prints); shapes and rules as those functions."""
    k, convention = _measured(measurement, k, convention)
    scorer, sc, key = one_shot(scores, labels, offsets, k, convention, tie_key, weights, ideal_dcg,
                               ideal_labels, ideal_offsets, n_threads)
    dcg_u, ndcg_u = scorer._run(sc, key, n_threads)
    return scorer._shape(ndcg_u, fresh=True), scorer._aggregate(dcg_u, ndcg_u, n_threads)
