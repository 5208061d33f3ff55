"""The readers of LightGBM's training data (fastndcg/integrations/_lightgbm_data.py), on
stand-ins of its objects: LightGBM itself is not needed."""
from __future__ import annotations

import numpy as np
import pytest

from fastndcg.integrations._lightgbm_data import LightGBMRows, lightgbm_call, lightgbm_positions, lightgbm_threads


class Dataset:                                        # what lightgbm.train leaves on its Dataset
    def __init__(self, params):
        self.params = params


def test_the_thread_count_of_a_training_is_read_from_its_dataset():
    assert lightgbm_threads(Dataset({"num_threads": 3})) == 3
    assert lightgbm_threads(Dataset({"nthread": "1"})) == 1
    assert lightgbm_threads(Dataset({"num_threads": 0})) is None
    assert lightgbm_threads(Dataset({"num_threads": -1})) is None
    assert lightgbm_threads(Dataset({})) is None
    assert lightgbm_threads(Dataset(None)) is None
    assert lightgbm_threads(object()) is None


def test_a_scikit_learn_call_gives_rows_by_content():
    scores, rows = lightgbm_call("obj", [1, 0, 2], np.array([0.5, 0.1, 0.3]), None, [2, 1])
    assert isinstance(rows, LightGBMRows) and rows.offsets.tolist() == [0, 2, 3]
    assert rows.same_as(LightGBMRows([1, 0, 2], None, [2, 1]))
    assert not rows.same_as(LightGBMRows([1, 0, 2], None, [1, 2]))
    assert lightgbm_positions(rows) is None
    with pytest.raises(ValueError, match="needs the query groups"):
        lightgbm_call("obj", [1, 0, 2], np.array([0.5, 0.1, 0.3]), None, None)
