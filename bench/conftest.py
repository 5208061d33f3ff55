"""Benchmark fixtures: the seeded MSLR-like workload, built once per session."""
import numpy as np
import pytest

from fastndcg.datasets import mslr_like


@pytest.fixture(scope="session")
def mslr10k():
    return mslr_like(10_000, seed=0)
