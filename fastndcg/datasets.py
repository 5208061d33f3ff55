"""Embedded default data: a seeded, MSLR-WEB30K-like ranking workload.

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
