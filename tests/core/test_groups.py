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


# ----------------------------------------------------------------------------- int64 overflow (issue 24)


@pytest.mark.parametrize("group, where", [
    (np.array([2**63 - 1, 1]), "group[1]=1"),
    (np.array([2**62, 2**62, 0, 5]), "group[1]"),
    ([2**62, 2**61, 2**61, 2**61], "group[2]"),
])
def test_group_sizes_past_int64_are_an_error_naming_the_entry(group, where):
    # numpy's cumsum wraps around silently: [0, 2**63 - 1, -2**63] before the fix
    with pytest.raises(ValueError, match=r"add up to more than 2\*\*63 - 1") as info:
        offsets_from_group_sizes(group)
    assert where in str(info.value)


@pytest.mark.parametrize("group, shown", [
    (np.array([2**64 - 1], dtype=np.uint64), "group[0]=18446744073709551615"),   # was read as -1
    (np.array([1.0, 1e19]), "group[1]=1e+19"),
    (np.array([2.0**63]), "group[0]=9.223372036854776e+18"),     # the float nearest 2**63 - 1 is 2**63
])
def test_group_sizes_beyond_int64_are_an_error(group, shown):
    with pytest.raises(ValueError, match=r"at most 2\*\*63 - 1") as info:
        offsets_from_group_sizes(group)
    assert shown in str(info.value)


def test_group_sizes_up_to_the_int64_limit_are_kept():
    assert offsets_from_group_sizes(np.array([2**63 - 2, 1, 0])).tolist() == [0, 2**63 - 2, 2**63 - 1, 2**63 - 1]


def test_pair_slots_past_int64_are_an_error():
    # delta_ndcg_pairs sums the pair counts of the selected queries (a query may be
    # selected many times): a total past 2**63 - 1 is refused before any allocation
    from fastndcg._core.groups import offsets_from_sizes

    with pytest.raises(ValueError, match=r"pair counts .* at queries\[2\]"):
        offsets_from_sizes(np.array([2**62, 2**62 - 1, 2], dtype=np.int64), "queries",
                           "pair counts of the selected queries")
