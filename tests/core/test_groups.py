import numpy as np
import pytest

from fastndcg import offsets_from_group_sizes, offsets_from_qid


def test_group_sizes():
    np.testing.assert_array_equal(offsets_from_group_sizes([3, 0, 2]), [0, 3, 3, 5])
    np.testing.assert_array_equal(offsets_from_group_sizes(np.array([2.0, 1.0])), [0, 2, 3])
    assert offsets_from_group_sizes([]).tolist() == [0]
    with pytest.raises(ValueError, match=r"group sizes must be >= 0; got group\[1\]=-2"):
        offsets_from_group_sizes([1, -2])
    with pytest.raises(TypeError, match=r"group must hold integer sizes"):
        offsets_from_group_sizes([1.5])


def test_qid_contiguous():
    g = offsets_from_qid(np.array([7, 7, 3, 3, 3, 9]))
    assert g.offsets.tolist() == [0, 2, 5, 6] and g.order is None and g.qids.tolist() == [7, 3, 9]
    assert offsets_from_qid(np.array([], dtype=int)).offsets.tolist() == [0]
    g = offsets_from_qid(np.array(["b", "b", "a"]))
    assert g.qids.tolist() == ["b", "a"] and g.order is None


def test_qid_unsorted_groups_stably():
    qid = np.array([5, 2, 5, 9, 2, 5])
    g = offsets_from_qid(qid)
    assert g.qids.tolist() == [5, 2, 9]
    assert g.offsets.tolist() == [0, 3, 5, 6]
    assert g.order.tolist() == [0, 2, 5, 1, 4, 3]
    np.testing.assert_array_equal(qid[g.order], [5, 5, 5, 2, 2, 9])
