"""Generated default data: a seeded, MSLR-WEB30K-like ranking workload.

Nothing is downloaded; the generator is deterministic for a given seed.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: P(label = 0..4), close to MSLR-WEB30K's label distribution.
LABEL_PROBABILITIES = (0.52, 0.32, 0.13, 0.02, 0.01)
# Lognormal docs per query: median exp(mu) = 110, mean exp(mu + sigma^2/2) = 120.
_MU = float(np.log(110.0))
_SIGMA = float(np.sqrt(2.0 * np.log(120.0 / 110.0)))
MAX_DOCS_PER_QUERY = 1250


class RankingData(NamedTuple):
    """CSR ranking data: query q owns rows offsets[q]:offsets[q+1]."""

    scores: np.ndarray
    labels: np.ndarray
    offsets: np.ndarray

    @property
    def n_queries(self) -> int:
        return int(self.offsets.shape[0] - 1)

    @property
    def n_docs(self) -> int:
        return int(self.scores.shape[0])


def mslr_like(n_queries: int = 10_000, *, seed: int = 0, dtype=np.float64,
              tie_fraction: float = 0.05) -> RankingData:
    """Generate an MSLR-WEB30K-like workload.

    Docs per query are lognormal (median ~110, mean ~120) clipped to
    [1, 1250]; labels 0..4 with probabilities :data:`LABEL_PROBABILITIES`;
    scores are a noisy increasing function of the label, with
    ``tie_fraction`` of them rounded to one decimal so that ties occur.

    Parameters
    ----------
    n_queries : int
        Number of queries (>= 0).
    seed : int
        Seed of the numpy Generator; the same seed gives the same data.
    dtype : float32 or float64
        dtype of the scores.
    tie_fraction : float
        Fraction of scores rounded to 0.1 (ties).

    Returns
    -------
    RankingData
        scores (dtype), labels (int32), offsets (int64).
    """
    if n_queries < 0:
        raise ValueError(f"n_queries must be >= 0; got {n_queries}")
    if not 0.0 <= tie_fraction <= 1.0:
        raise ValueError(f"tie_fraction must be in [0, 1]; got {tie_fraction}")
    rng = np.random.default_rng(seed)
    sizes = np.clip(np.rint(rng.lognormal(_MU, _SIGMA, size=n_queries)), 1, MAX_DOCS_PER_QUERY).astype(np.int64)
    offsets = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    n = int(offsets[-1])
    labels = rng.choice(len(LABEL_PROBABILITIES), size=n, p=LABEL_PROBABILITIES).astype(np.int32)
    # A per-query shift makes queries differ; noise keeps the ranking imperfect.
    shift = np.repeat(rng.normal(0.0, 1.0, size=n_queries), sizes)
    scores = 0.8 * labels + shift + rng.normal(0.0, 1.2, size=n)
    rounded = rng.random(n) < tie_fraction
    scores[rounded] = np.round(scores[rounded], 1)
    return RankingData(scores.astype(dtype), labels, offsets)


class ClickLog(NamedTuple):
    """A simulated click log over CSR queries (see :func:`cascade_clicks`).

    ``order`` permutes the rows of each query into displayed order (apply it
    to the features and labels); ``position`` (0-based displayed rank) and
    ``click`` (0/1) are given in that new order.
    """

    order: np.ndarray
    position: np.ndarray
    click: np.ndarray


#: P(click | examined) per relevance label 0..4 for :func:`cascade_clicks`.
CLICK_PROBABILITIES = (0.05, 0.3, 0.5, 0.7, 0.9)


def cascade_clicks(labels, offsets, *, seed: int = 0, click_probabilities=CLICK_PROBABILITIES,
                   continue_after_click: float = 0.5, noise: float = 1.0) -> ClickLog:
    """Simulate one impression per query under a cascade click model.

    Each query is displayed in the order of a noisy production ranker (label
    plus N(0, ``noise``²), descending). The user examines the list from the
    top: an examined document at label l is clicked with probability
    ``click_probabilities[l]`` (labels above the table use its last entry);
    after a click the user goes on with probability ``continue_after_click``,
    otherwise stops (1.0 gives independent clicks on every examined
    document; 0.0 the strict cascade model, at most one click).

    Parameters
    ----------
    labels : int array of shape (n_docs,)
        Relevance labels (>= 0).
    offsets : int array of shape (n_queries + 1,)
        Query q owns rows ``offsets[q]:offsets[q+1]``.
    seed : int
        Seed of the numpy Generator: the same seed gives the same log.

    Returns
    -------
    ClickLog
        ``order`` (int64, a permutation of the rows, query by query),
        ``position`` (int32, 0-based displayed rank) and ``click`` (int32).
        Tie rule: production-ranker ties (probability 0) keep the input order.
    """
    lab = np.asarray(labels)
    off = np.asarray(offsets, dtype=np.int64)
    if lab.ndim != 1 or off.ndim != 1 or off.shape[0] < 1 or off[-1] != lab.shape[0]:
        raise ValueError("labels must be 1-D and offsets must end at len(labels)")
    if lab.size and (lab.min() < 0 or not np.all(lab == np.floor(lab))):
        raise ValueError("labels must be non-negative integers")
    probs = np.asarray(click_probabilities, dtype=np.float64)
    if probs.ndim != 1 or probs.size == 0 or np.any((probs < 0) | (probs > 1)):
        raise ValueError(f"click_probabilities must be probabilities; got {click_probabilities!r}")
    if not 0.0 <= continue_after_click <= 1.0:
        raise ValueError(f"continue_after_click must be in [0, 1]; got {continue_after_click!r}")
    rng = np.random.default_rng(seed)
    n = lab.shape[0]
    production = lab.astype(np.float64) + rng.normal(0.0, noise, size=n)
    order = np.empty(n, dtype=np.int64)
    position = np.empty(n, dtype=np.int32)
    click = np.zeros(n, dtype=np.int32)
    p_click: np.ndarray = probs[np.minimum(lab.astype(np.int64), probs.size - 1)]
    u_click = np.asarray(rng.random(n))
    u_stop = np.asarray(rng.random(n))
    for q in range(off.shape[0] - 1):
        a, b = int(off[q]), int(off[q + 1])
        shown = a + np.argsort(-production[a:b], kind="stable")
        order[a:b] = shown
        position[a:b] = np.arange(b - a, dtype=np.int32)
        for r in range(b - a):
            i = a + r
            if u_click[i] < p_click[shown[r]]:
                click[i] = 1
                if u_stop[i] >= continue_after_click:
                    break
    return ClickLog(order, position, click)
