"""Regression tests for the SoftNDCG bugs the differential fuzz tier found
(tests/fuzz/test_fuzz_differential.py): tiny discounts, tiny sigmas, gradients far from the
unit interval; each failed before its fix. The other findings: test_fuzz_findings.py."""
import numpy as np
import pytest

import fastndcg
from fastndcg import Convention, reference
from fastndcg.reference import _softrank as ref_softrank
from fastndcg.measures._softrank import SoftNDCGObjective

pytestmark = [pytest.mark.fuzz]


@pytest.mark.parametrize("tiny", [5e-324, 1e-300, 2.0**-1000])
def test_soft_ndcg_with_a_tiny_discount_array(tiny):
    # NDCG does not change when the discount is scaled; SoftNDCG computes
    # with the array scaled by a power of two to a largest entry in [1, 2).
    # Before (5e-324): value 0 from kernel and reference alike (G D p
    # underflowed), gradients -1/3, 1 (kernel) against 0 (reference).
    scores, labels, offsets = np.zeros(4), np.array([0, 0, 0, 2.0]), np.array([0, 4])
    unit = Convention(discount=[1.0, 1.0, 1.0, 0.0])
    tiny_conv = Convention(discount=[tiny, tiny, tiny, 0.0])
    want_value, want_grad = fastndcg.soft_ndcg_grad(scores, labels, offsets, sigma=0.3, convention=unit)
    assert want_value[0] == pytest.approx(0.875, rel=1e-12)   # 1 - P(the one relevant doc is last) = 7/8
    for got in (fastndcg.soft_ndcg_grad(scores, labels, offsets, sigma=0.3, convention=tiny_conv),
                reference.soft_ndcg_grad(scores, labels, offsets, sigma=0.3, convention=tiny_conv)):
        np.testing.assert_allclose(got[0], want_value, rtol=1e-15)
        np.testing.assert_allclose(got[1], want_grad, rtol=1e-14)
    # and a huge one no longer overflows
    huge = Convention(discount=[1e308, 1e308, 1e308, 0.0])
    np.testing.assert_allclose(fastndcg.soft_ndcg(scores, labels, offsets, sigma=0.3, convention=huge),
                               want_value, rtol=1e-15)


def test_unit_discount_is_exact_and_keeps_named_discounts():
    assert Convention().unit_discount() == Convention()
    c = Convention(discount=[3.0, 1.5, 0.75], name="mine")
    u = c.unit_discount()
    assert u.discount == (1.5, 0.75, 0.375) and u.name == "mine"
    assert Convention(discount=[0.0, 0.0]).unit_discount().discount == (0.0, 0.0)


def test_soft_ndcg_gradient_of_interchangeable_documents_at_tiny_sigma():
    # Equal scores and equal gains: the gradient is 0 by symmetry. The deep
    # profile once saw +-3.4e132 from the kernel on these inputs (A_ij - A_ji
    # rounded, times psi ~ 1 / sigma) and 0 from the reference; it did not
    # recur in isolation, so kernel and spec now leave such pairs out (B = 0
    # exactly) instead of relying on the rounding to cancel.
    conv = Convention(gain=(1.0,), aggregation="ratio")
    scores = np.zeros(19)
    labels = np.zeros(19, dtype=np.int64)
    offsets = np.array([0, 1, 7, 13, 19])
    for sigma in (1e-150, 1e-8, 1.0):
        for fn in (fastndcg.soft_ndcg_grad, reference.soft_ndcg_grad):
            values, grad = fn(scores, labels, offsets, sigma=sigma, convention=conv)
            np.testing.assert_array_equal(grad, 0.0)
        _, grad, hess = ref_softrank.soft_ndcg_grad_hess(scores, labels, offsets, sigma=sigma, convention=conv)
        og, oh = SoftNDCGObjective(sigma=sigma, convention=conv, min_hessian=0.0).grad_hess(scores, labels, offsets)
        np.testing.assert_array_equal(og, 0.0)
        np.testing.assert_array_equal(oh, hess)


def test_soft_ndcg_gradient_where_the_value_is_far_above_one():
    # Deep-profile finding in the oracle, not the kernel: a discount array that
    # is not decreasing (0, 1, 1, 1) and a label of 30 give SoftNDCG ~1.07e9, so
    # a difference quotient at h = 3e-4 carries ~1e-3 of rounding noise
    # (ulp(1e9) / h); the finite-difference test now adds that bound. The
    # gradient itself agrees with the spec and with a quotient at a step where
    # the noise (~1.4e-4) is small against the entries that matter.
    conv = Convention(gain="exponential", discount=(0.0, 1.0, 1.0, 1.0), empty="zero")
    scores = np.array([0.0, 0.0, 0.0, -2.0])
    labels = np.array([0, 0, 1, 30])
    kw = dict(sigma=0.3, convention=conv)
    values, grad = fastndcg.soft_ndcg_grad(scores, labels, [0, 4], **kw)
    ref_values, ref_grad = reference.soft_ndcg_grad(scores, labels, [0, 4], **kw)
    assert values[0] > 1e9
    np.testing.assert_allclose(values, ref_values, rtol=1e-13)
    np.testing.assert_allclose(grad, ref_grad, rtol=0, atol=1e-12)
    h = 0.01
    for i in range(4):
        at = []
        for step in (2, 1, -1, -2):
            x = scores.copy()
            x[i] += step * h
            at.append(fastndcg.soft_ndcg(x, labels, [0, 4], **kw)[0])
        fd = (-at[0] + 8 * at[1] - 8 * at[2] + at[3]) / (12 * h)
        assert abs(grad[i] - fd) <= 2e-4, (i, grad[i], fd)


def test_soft_ndcg_gradient_with_a_gain_near_the_largest_double():
    # Deep-profile finding: linear gain of a label 1e308 times a discount of
    # 1.875 overflowed inside the kernel's adjoint (G_j D(r) = inf, then
    # inf - inf), so the call raised "grad[10] overflows (got nan)" where the
    # spec, which scales by G_j after the adjoint, gives finite gradients. The
    # kernel now takes the adjoint for a unit gain as well.
    conv = Convention(gain="linear", discount=(0.0, 0.0, 1.875, 0.0, 0.0, 0.0), empty="zero")
    scores = np.zeros(16)
    labels = np.array([0.0] * 13 + [1.0, 1.0, 1e308])
    offsets = [0, 4, 10, 16]
    values, grad = fastndcg.soft_ndcg_grad(scores, labels, offsets, sigma=1.0, convention=conv)
    ref_values, ref_grad = reference.soft_ndcg_grad(scores, labels, offsets, sigma=1.0, convention=conv)
    assert np.isfinite(grad).all() and np.isfinite(values).all()
    np.testing.assert_allclose(values, ref_values, rtol=1e-12)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-12)
    assert grad[15] == pytest.approx(1.76309245e307, rel=1e-8)


def test_soft_ndcg_gradient_that_is_zero_by_symmetry_at_tiny_sigma():
    # Deep-profile finding in the oracle: a document whose gain (1) is the mean
    # of its partners' (0, 3, 0.5, 0.5) has gradient 0 by symmetry; the spec
    # gets exactly 0, the kernel a residue of 1.4e132 at sigma = 1e-150, i.e.
    # 1.6e-17 of the query's largest gradient (8.7e148): rounding, which the
    # differential test now measures against the query's gradient scale.
    conv = Convention(gain="linear", discount="log2", empty="zero")
    scores = np.zeros(11)
    labels = np.array([0, 1, 3, 0.5, 0.5, 0, 0, 0, 0, 0, 0.0])
    offsets = [0, 5, 11]
    for sigma in (1e-150, 1e-20, 1.0):
        _, grad = fastndcg.soft_ndcg_grad(scores, labels, offsets, sigma=sigma, convention=conv)
        _, ref_grad = reference.soft_ndcg_grad(scores, labels, offsets, sigma=sigma, convention=conv)
        scale = np.max(np.abs(ref_grad[:5]))
        assert scale > 0.01 / sigma
        assert abs(grad[1]) <= 1e-15 * scale
        np.testing.assert_allclose(grad[[0, 2, 3, 4]], ref_grad[[0, 2, 3, 4]], rtol=1e-12)


def test_soft_ndcg_gradient_accuracy_follows_the_documented_bound():
    # Deep-profile finding: with the discount (1e-250-ish, 0, 1, 0, 0) the ideal DCG
    # is 4e-250 while G_max D_max is 1.5, so the gradient (0.141 in the spec, which
    # recomputes leave-one-out distributions) is 1e-250 of the terms that cancel in
    # the kernel's adjoint pass, which returns 0. docs/softrank.md documents the
    # bound ~ m eps G_max D_max / (sigma IDCG); the value itself is exact. With a
    # non-increasing discount the same query's gradient is tight.
    scores = np.zeros(5)
    labels = np.array([1.5, 0, 0, 0, 0])
    rising = Convention(gain="linear", discount=(2.6545073877442338e-250, 0.0, 1.0, 0.0, 0.0),
                        empty="zero")
    values, grad = fastndcg.soft_ndcg_grad(scores, labels, [0, 5], sigma=1.0, convention=rising)
    ref_values, ref_grad = reference.soft_ndcg_grad(scores, labels, [0, 5], sigma=1.0, convention=rising)
    np.testing.assert_allclose(values, ref_values, rtol=1e-13)
    bound = 5 * np.finfo(float).eps * 1.5 * 1.0 / (1.5 * 2.6545073877442338e-250)
    assert np.all(np.abs(grad - ref_grad) <= 8 * bound)
    assert abs(ref_grad[0] - 0.1410474) < 1e-7
    for falling in (Convention(gain="linear", discount=(1.0, 0.5, 0.25, 0.0, 0.0), empty="zero"),
                    Convention(gain="linear", discount="log2", empty="zero")):
        _, grad = fastndcg.soft_ndcg_grad(scores, labels, [0, 5], sigma=1.0, convention=falling)
        _, ref_grad = reference.soft_ndcg_grad(scores, labels, [0, 5], sigma=1.0, convention=falling)
        np.testing.assert_allclose(grad, ref_grad, rtol=1e-13, atol=1e-15)
        assert abs(grad[0]) > 0.01
