"""Shared fixtures: seeded CSR batch generators heavy with ties and edge cases."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def make_batch(rng: np.random.Generator, n_queries: int = 20, max_docs: int = 30,
               n_score_values: int = 4, n_labels: int = 5, dtype=np.float64,
               p_empty_query: float = 0.1, p_single: float = 0.1, p_all_zero: float = 0.1):
    """A CSR batch with ties (scores drawn from few values), empty queries,
    single-document queries and all-zero-label queries."""
    sizes = rng.integers(2, max_docs + 1, size=n_queries)
    u = rng.random(n_queries)
    sizes[u < p_empty_query] = 0
    sizes[(u >= p_empty_query) & (u < p_empty_query + p_single)] = 1
    offsets = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    n = int(offsets[-1])
    scores = (rng.integers(0, n_score_values, size=n) / 2.0).astype(dtype)
    labels = rng.integers(0, n_labels, size=n).astype(np.int64)
    for q in np.flatnonzero(rng.random(n_queries) < p_all_zero):
        labels[offsets[q]:offsets[q + 1]] = 0
    return scores, labels, offsets


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def shared_data():
    if not SHARED_DATA.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"shared data folder missing in CI: {SHARED_DATA}")
        pytest.skip(f"shared data folder not found: {SHARED_DATA}")
    return SHARED_DATA
