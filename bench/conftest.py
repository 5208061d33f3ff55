"""Benchmark fixtures: seeded MSLR-like workloads, built once per session.

- ``mslr10k``: 10,000 queries (~1.2M documents), ``mslr_like``'s default ties
  (tie_fraction 0.05: ~18.5% of queries hold a tie between different labels).
- ``mslr10k_ties`` and ``mslr100k``: 10,000 and 100,000 queries (~1.2M and ~12M
  documents) with ties between different labels in about a fifth of the queries
  (issue 13): :data:`TIE_FRACTION` of the scores rounded to 0.1, calibrated with
  :func:`tie_query_fraction` (20.3% and 20.2% of queries).
"""
import numpy as np
import pytest

from fastndcg.io import mslr_like
from fastndcg.io._datasets import RankingData

#: Fraction of scores rounded to 0.1 that makes ~20% of queries hold a tie between
#: different labels (seed 0: 0.2030 of 10,000 queries, 0.2020 of 100,000; 0.05 gives 0.185).
TIE_FRACTION = 0.053


def tie_query_fraction(data: RankingData) -> float:
    """Fraction of queries holding at least two documents with equal scores and different labels.

    Sorts the documents by (query, score, label); a query counts when two
    neighbours in that order share query and score but not label.
    """
    sizes = np.diff(data.offsets)
    if sizes.shape[0] == 0:
        return 0.0
    qid = np.repeat(np.arange(sizes.shape[0]), sizes)
    order = np.lexsort((data.labels, data.scores, qid))
    q, s, lab = qid[order], data.scores[order], data.labels[order]
    hit = (q[1:] == q[:-1]) & (s[1:] == s[:-1]) & (lab[1:] != lab[:-1])
    tied = np.zeros(sizes.shape[0], dtype=bool)
    tied[q[1:][hit]] = True
    return float(tied.mean())


@pytest.fixture(scope="session")
def mslr10k():
    return mslr_like(10_000, seed=0)


@pytest.fixture(scope="session")
def mslr10k_ties():
    return mslr_like(10_000, seed=0, tie_fraction=TIE_FRACTION)


@pytest.fixture(scope="session")
def mslr100k():
    return mslr_like(100_000, seed=0, tie_fraction=TIE_FRACTION)
