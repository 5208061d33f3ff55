import numpy as np

import fastndcg
from fastndcg.io._datasets import LABEL_PROBABILITIES
from fastndcg.io import mslr_like


def test_mslr_like_is_deterministic_and_shaped_like_mslr():
    a = mslr_like(3000, seed=7)
    b = mslr_like(3000, seed=7)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    sizes = np.diff(a.offsets)
    assert sizes.min() >= 1 and sizes.max() <= 1250
    assert 100 <= np.median(sizes) <= 120 and 110 <= sizes.mean() <= 130
    freq = np.bincount(a.labels, minlength=5) / a.n_docs
    np.testing.assert_allclose(freq, LABEL_PROBABILITIES, atol=0.01)
    # ties exist, and the scores carry signal
    assert np.unique(a.scores).size < a.n_docs
    assert 0.3 < fastndcg.mean_ndcg(a.scores, a.labels, a.offsets, 10) < 0.95
    assert mslr_like(10, dtype=np.float32).scores.dtype == np.float32
