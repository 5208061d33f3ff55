"""Presets against the golden values observed from the real tools (conventions.md)."""
import numpy as np
import pytest

import fastndcg
from fastndcg.conventions import _presets as presets

# Query A: y = [2,1,0], s = [.1,.2,.3]; query B: y = [0,2,1,0], s = [.7,.7,.2,.1] (d1, d2 tie).
S = np.array([0.1, 0.2, 0.3, 0.7, 0.7, 0.2, 0.1])
Y = np.array([2, 1, 0, 0, 2, 1, 0])
OFF = np.array([0, 3, 7])
DOCNO_RANK = np.array([0, 1, 2, 0, 1, 2, 3])  # d1 < d2 < d3 < d4

GOLDEN = {  # name: (A@2, A full, B@2, B full), observed outputs in conventions.md
    "sklearn": (0.239812466568131, 0.619906233284066, 0.619906233284066, 0.809953116642033),
    "pytrec_eval_cut": (0.239812466568131, 0.619906233284066, 0.760187533431869, 0.950234416789836),
    "trec_eval_cut": (0.239812466568131, 0.619906233284066, 0.760187533431869, 0.950234416789836),
    "lightgbm": (0.173765342871440, 0.586882671435720, 0.521296028614320, 0.659001804802413),
    "ranklib": (0.173765342871440, 0.586882671435720, 0.521296028614320, 0.659001804802413),
    "catboost": (0.239812466568131, 0.619906233284066, 0.479624933136263, 0.669671816494230),
    "gdeval": (0.17377, 0.58688, 0.82623, 0.96394),
    "xgboost": (0.173765342871440, 0.586882671435720, 0.521296028614320, 0.659001804802413),
    "xgboost_minus": (0.173765342871440, 0.586882671435720, 0.521296028614320, 0.659001804802413),
    "ranx": (0.239812466568131, 0.619906233284066, 0.479624933136263, 0.669671816494230),   # Run objects
    "ranx_burges": (0.173765342871440, 0.586882671435720, 0.521296028614320, 0.659001804802413),
    "torchmetrics": (0.239812448620796, 0.619906246662140, 0.619906246662140, 0.809953093528748),
}
# Printed precision: gdeval %.5f; torchmetrics computes in float32 (the preset sums in double).
ATOL = {"gdeval": 5e-6, "torchmetrics": 1e-6}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_values(name):
    conv = fastndcg.get_preset(name)
    key = DOCNO_RANK if conv.uses_tie_key else None
    got = fastndcg.ndcg(S, Y, OFF, [2, None], convention=conv, tie_key=key)
    expected = np.array(GOLDEN[name]).reshape(2, 2)
    np.testing.assert_allclose(got, expected, rtol=0, atol=ATOL.get(name, 1e-14))


@pytest.mark.parametrize("name", ["letor3", "letor4", "mslr"])
def test_letor_family(name):
    got = fastndcg.ndcg(S, Y, OFF, [2, 3, 4], convention=name)
    np.testing.assert_allclose(got[0], [0.25, 0.723197315179, 0.0], atol=1e-12)
    np.testing.assert_allclose(got[1][[0, 2]], [0.75, 0.907732438393], atol=1e-12)


def test_mslr_counts_labels_three_and_four_but_letor_does_not():
    s, y, off = [2.0, 1.0], [4, 1], [0, 2]
    assert fastndcg.ndcg(s, y, off, 1, convention="mslr")[0] == 1.0
    assert fastndcg.ndcg(s, y, off, 1, convention="letor4")[0] == 0.0


def test_empty_query_values():
    s, y, off = [1.0, 0.5], [0, 0], [0, 2]
    for name, value in [("yahoo", 1.0), ("catboost", 1.0), ("lightgbm", 1.0), ("sklearn", 0.0),
                        ("trec_eval", 0.0), ("ranklib", 0.0), ("letor4", 0.0)]:
        assert fastndcg.ndcg(s, y, off, 2, convention=name, tie_key=[0, 1] if name == "trec_eval" else None)[0] == value
    assert np.isnan(fastndcg.ndcg(s, y, off, 2, convention="gdeval", tie_key=[0, 1])[0])


def test_pytrec_eval_rounds_scores_to_float32():
    # A doc scored 1+1e-12 ties with one scored 1.0 in pytrec_eval and loses on docno (descending).
    s, y, off, key = [1.0 + 1e-12, 1.0], [1, 0], [0, 2], [0, 1]
    assert fastndcg.ndcg(s, y, off, 1, convention="pytrec_eval_cut", tie_key=key)[0] == 0.0
    assert fastndcg.ndcg(s, y, off, 1, convention="trec_eval_cut", tie_key=key)[0] == 1.0


def test_every_preset_is_named_and_listed():
    assert fastndcg.list_presets() == sorted(fastndcg.PRESETS)
    for name, conv in fastndcg.PRESETS.items():
        assert conv.name == name
        assert fastndcg.get_preset(name) is conv


# ----------------------------------------------------------------------------- the fields for tool quirks

from fastndcg import Convention, reference  # noqa: E402
from conftest import make_batch  # noqa: E402

QUIRK_CONVENTIONS = [
    Convention(default_k=3),
    Convention(default_k=32, empty="one", weight_precision="float32", empty_weight="unweighted",
               above_one="clamp"),
    Convention(empty="one", empty_weight="unweighted"),                       # above_one="keep"
    Convention(empty="one", empty_weight="unweighted", short="zero", weight_precision="float32"),
    Convention(empty="skip", empty_weight="unweighted", default_k=2),
    Convention(gain="linear", aggregation="ratio", weight_precision="float32", default_k=5),
    presets.LIGHTGBM, presets.XGBOOST.replace(above_one="clamp"), presets.XGBOOST_MINUS, presets.CATBOOST,
]


@pytest.mark.parametrize("conv", QUIRK_CONVENTIONS, ids=lambda c: c.describe()[60:140])
@pytest.mark.parametrize("k", [None, 1, [None, 1, 4], [40, None]], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_quirk_fields_kernel_path_equals_reference(rng, conv, k, dtype):
    for _ in range(3):
        s, y, off = make_batch(rng, n_queries=25, max_docs=40, dtype=dtype)
        w = rng.uniform(0.05, 2.0, size=len(off) - 1)   # small weights: unweighted empties push past 1
        np.testing.assert_allclose(fastndcg.ndcg(s, y, off, k, convention=conv),
                                   reference.ndcg(s, y, off, k, convention=conv), rtol=0, atol=1e-12, equal_nan=True)
        for weights in (None, w):
            np.testing.assert_allclose(fastndcg.mean_ndcg(s, y, off, k, convention=conv, weights=weights),
                                       reference.mean_ndcg(s, y, off, k, convention=conv, weights=weights),
                                       rtol=0, atol=1e-12, equal_nan=True)
            scorer = fastndcg.NDCGScorer(y, off, k, convention=conv, weights=weights)
            assert np.array_equal(scorer.mean(s), fastndcg.mean_ndcg(s, y, off, k, convention=conv, weights=weights),
                                  equal_nan=True)


def test_default_k_is_what_none_means():
    s, y, off = -np.arange(6.0), np.array([0, 0, 0, 1, 0, 2]), np.array([0, 6])
    conv = Convention(default_k=3)
    assert fastndcg.ndcg(s, y, off, None, convention=conv)[0] == 0.0
    np.testing.assert_array_equal(fastndcg.ndcg(s, y, off, [None, 6, 3], convention=conv)[0],
                                  fastndcg.ndcg(s, y, off, [3, 6, 3])[0])
    assert fastndcg.ideal_dcg(y, off, None, convention=conv)[0] == pytest.approx(3 + 1 / np.log2(3), abs=1e-15)  # [3, 1, 0]
    assert conv.resolve_k(None) == 3 and conv.resolve_k([None, 5]) == [3, 5] and conv.resolve_k(7) == 7
    assert Convention().resolve_k(None) is None


def test_empty_weight_unweighted_by_hand():
    # q0 empty (weight 0.5), q1 [1, 0] ranked second-first: NDCG@1 = 0, @2 = 1/log2 3.
    s, y, off, w = [0.0, 0.0, 0.1, 0.2], [0, 0, 1, 0], [0, 2, 4], [0.5, 2.0]
    bare = Convention(empty="one", empty_weight="unweighted")
    assert fastndcg.mean_ndcg(s, y, off, 1, convention=bare, weights=w) == pytest.approx(1 / 2.5, abs=1e-15)
    assert fastndcg.mean_ndcg(s, y, off, 2, convention=bare, weights=w) == pytest.approx(
        (1 + 2 / np.log2(3)) / 2.5, abs=1e-15)
    weighted = bare.replace(empty_weight="weighted")
    assert fastndcg.mean_ndcg(s, y, off, 1, convention=weighted, weights=w) == pytest.approx(0.5 / 2.5, abs=1e-15)
    # without weights the two are the plain mean
    assert fastndcg.mean_ndcg(s, y, off, 2, convention=bare) == fastndcg.mean_ndcg(s, y, off, 2, convention=weighted)


def test_weight_precision_float32():
    s, y, off = [0.2, 0.1, 0.1, 0.2], [1, 0, 1, 0], [0, 2, 4]
    f32 = Convention(weight_precision="float32")
    w = float(np.float32(0.1))
    assert fastndcg.mean_ndcg(s, y, off, 1, convention=f32, weights=[0.1, 1.0]) == pytest.approx(w / (w + 1.0), abs=1e-16)
    assert fastndcg.mean_ndcg(s, y, off, 1, weights=[0.1, 1.0]) == pytest.approx(0.1 / 1.1, abs=1e-16)


def test_above_one():
    s, y, off, w = [0.0, 0.0, 0.2, 0.1], [0, 0, 1, 0], [0, 2, 4], [0.3, 0.3]   # (1 + 0.3) / 0.6
    base = Convention(empty="one", empty_weight="unweighted")
    assert fastndcg.mean_ndcg(s, y, off, 1, convention=base, weights=w) == pytest.approx(1.3 / 0.6, abs=1e-15)
    assert fastndcg.mean_ndcg(s, y, off, 1, convention=base.replace(above_one="clamp"), weights=w) == 1.0
    for impl in (fastndcg, reference):
        with pytest.raises(ValueError, match=r"above_one='check'"):
            impl.mean_ndcg(s, y, off, 1, convention=base.replace(above_one="check"), weights=w)
    # within 1 + 1e-6 (XGBoost's float32 kRtEps) "check" clamps
    assert fastndcg.mean_ndcg(s, y, off, 1, convention=base.replace(above_one="check"), weights=[1.0, 1.0]) == 1.0


@pytest.mark.parametrize("field, value, error, text", [
    ("default_k", 0, ValueError, "default_k must be >= 1"),
    ("default_k", -3, ValueError, "default_k must be >= 1"),
    ("default_k", 2.5, TypeError, "default_k must be an int"),
    ("default_k", True, TypeError, "default_k must be an int"),
    ("default_k", "32", TypeError, "default_k must be an int"),
    ("weight_precision", "float16", ValueError, "weight_precision must be one of"),
    ("empty_weight", "bare", ValueError, "empty_weight must be one of"),
    ("above_one", "cap", ValueError, "above_one must be one of"),
])
def test_quirk_fields_validation(field, value, error, text):
    with pytest.raises(error, match=text):
        Convention(**{field: value})


def test_unweighted_empty_needs_the_mean():
    with pytest.raises(ValueError, match="empty_weight='unweighted' applies to aggregation='mean'"):
        Convention(empty_weight="unweighted", aggregation="ratio")
    assert Convention(default_k=np.int64(4)).default_k == 4


# ----------------------------------------------------------------------------- tools that cannot be installed here
# Hand-worked cases, one per rule that sets the tool apart (the numbers are
# worked out in the comments; conventions.md's observed outputs where it has them).

LOG2_3 = np.log2(3.0)


def test_letor_discount_leaves_rank_two_undiscounted():
    # ranked labels [0, 1, 0]: DCG@2 = G(1) * D(2) = 1 * 1 = IDCG@2 (conventions.md: NDCG@2 = 1.0)
    s, y, off = [3.0, 2.0, 1.0], [0, 1, 0], [0, 3]
    for name in ("letor3", "letor4", "mslr"):
        assert fastndcg.ndcg(s, y, off, 2, convention=name)[0] == 1.0
    assert fastndcg.ndcg(s, y, off, 2, convention="standard")[0] == pytest.approx(1 / LOG2_3, abs=1e-15)
    # ranked [2, 0, 1], k = 3: DCG = 3*1 + 0*1 + 1/log2(3); IDCG = 3*1 + 1*1 + 0
    got = fastndcg.ndcg([3.0, 2.0, 1.0], [2, 0, 1], off, 3, convention="letor4")[0]
    assert got == pytest.approx((3 + 1 / LOG2_3) / 4, abs=1e-15)


def test_letor_gain_table_drops_labels_above_two():
    # LETOR 3.0/4.0: {0:0, 1:1, 2:3}, anything else 0 (conventions.md: [3, 1] gives @1 = 0, @2 = 1;
    # [4, 0] is all-zero, so 0). MSLR: 3 -> 7, 4 -> 15.
    off = [0, 2]
    for name in ("letor3", "letor4"):
        np.testing.assert_array_equal(fastndcg.ndcg([2.0, 1.0], [3, 1], off, [1, 2], convention=name)[0], [0.0, 1.0])
        assert fastndcg.ndcg([2.0, 1.0], [4, 0], off, 2, convention=name)[0] == 0.0
    # MSLR, ranked [3, 4]: @1 = 7/15; @2 = (7 + 15) / (15 + 7) with both ranks undiscounted
    np.testing.assert_allclose(fastndcg.ndcg([2.0, 1.0], [3, 4], off, [1, 2], convention="mslr")[0], [7 / 15, 1.0],
                               rtol=0, atol=1e-15)


def test_letor_short_query_counts_zero_in_the_mean():
    # q0 has 2 docs (short at k = 3), q1 is perfect: LETOR 3.0 divides by both queries -> 0.5
    s, y, off = [2.0, 1.0, 3.0, 2.0, 1.0], [1, 0, 2, 1, 0], [0, 2, 5]
    for name in ("letor3", "letor4", "mslr"):
        assert fastndcg.mean_ndcg(s, y, off, 3, convention=name) == 0.5
        assert fastndcg.ndcg(s, y, off, 2, convention=name)[0] == 1.0   # not short at k = 2
    assert fastndcg.mean_ndcg(s, y, off, 3, convention="standard") == 1.0


def test_ranklib_exponential_gain_stable_ties_clamp():
    # conventions.md (observed): ties [1,0] -> 1.0, [0,1] -> 0.0 at @1; label 6 ranked second -> 1/log2 3;
    # k > n clamps: query A of the golden values at @10 = its full value; all-zero -> 0.
    off = [0, 2]
    assert fastndcg.ndcg([1.0, 1.0], [1, 0], off, 1, convention="ranklib")[0] == 1.0
    assert fastndcg.ndcg([1.0, 1.0], [0, 1], off, 1, convention="ranklib")[0] == 0.0
    assert fastndcg.ndcg([2.0, 1.0], [0, 6], off, 2, convention="ranklib")[0] == pytest.approx(0.6309297535714574, abs=1e-15)
    assert fastndcg.ndcg(S[:3], Y[:3], [0, 3], 10, convention="ranklib")[0] == pytest.approx(0.58688267143572, abs=1e-14)
    assert fastndcg.ndcg([2.0, 1.0], [0, 0], off, 10, convention="ranklib")[0] == 0.0


def test_yahoo_natural_log_discount_and_empty_one():
    # evaluate.py: gains 2**l - 1 over ln(rank + 1), k = 10; all-zero query -> 1
    y = [0, 2, 1, 3]
    dcg = sum((2**g - 1) / np.log(r + 2) for r, g in enumerate(y))
    idcg = sum((2**g - 1) / np.log(r + 2) for r, g in enumerate(sorted(y, reverse=True)))
    got = fastndcg.ndcg([4.0, 3.0, 2.0, 1.0], y, [0, 4], 10, convention="yahoo")[0]
    assert got == pytest.approx(dcg / idcg, abs=1e-15)
    assert fastndcg.mean_ndcg([1.0, 2.0, 4.0, 3.0, 2.0, 1.0], [0, 0] + y, [0, 2, 6], 10,
                              convention="yahoo") == pytest.approx((1 + dcg / idcg) / 2, abs=1e-15)


def test_gdeval_skips_topics_without_relevant_documents():
    # gdeval prints no line for an all-zero topic: the mean is over the others
    s, y, off, key = [1.0, 0.5, 0.7, 0.7, 0.2, 0.1], [0, 0, 0, 2, 1, 0], [0, 2, 6], [0, 1, 0, 1, 2, 3]
    per_query = fastndcg.ndcg(s, y, off, 2, convention="gdeval", tie_key=key)
    assert np.isnan(per_query[0])
    # topic 2 = golden query B: d2 (label 2) before d1 on docno descending -> 0.82623 printed
    assert f"{per_query[1]:.5f}" == "0.82623"
    assert fastndcg.mean_ndcg(s, y, off, 2, convention="gdeval", tie_key=key) == per_query[1]


def test_catboost_worst_case_ties_empty_one_weighted_float32():
    off = [0, 2]
    # conventions.md (observed): tied [1,0] and [0,1] at top = 1 both give 0.0
    assert fastndcg.ndcg([1.0, 1.0], [1, 0], off, 1, convention="catboost")[0] == 0.0
    assert fastndcg.ndcg([1.0, 1.0], [0, 1], off, 1, convention="catboost")[0] == 0.0
    # all-zero alone -> 1.0; with [1, 0] scored [.1, .2] -> (1 + 1/log2 3) / 2 = 0.8154648767857287
    s, y, off2 = [0.1, 0.2, 0.1, 0.2], [0, 0, 1, 0], [0, 2, 4]
    assert fastndcg.mean_ndcg(s, y, off2, None, convention="catboost") == pytest.approx(0.8154648767857287, abs=1e-15)
    # group weights (0.1, 1): the empty group *is* weighted, 0.1 in float32 -> 0.6644815946103807 (observed)
    assert fastndcg.mean_ndcg(s, y, off2, None, convention="catboost", weights=[0.1, 1.0]) == pytest.approx(
        0.6644815946103807, abs=1e-15)
    # denominator=Position is discount="reciprocal": golden query A -> (1/2 + 2/3) / (2 + 1/2) = 0.4666...
    position = fastndcg.get_preset("catboost").replace(discount="reciprocal")
    assert fastndcg.ndcg(S[:3], Y[:3], [0, 3], None, convention=position)[0] == pytest.approx(0.4666666666666666, abs=1e-15)


def test_every_preset_has_a_section_in_docs():
    from pathlib import Path
    doc = (Path(__file__).resolve().parents[2] / "docs" / "presets.md").read_text()
    headings = [line[3:] for line in doc.splitlines() if line.startswith("## ")]
    documented = {name.strip() for h in headings for name in h.split(",")}
    assert set(fastndcg.PRESETS) <= documented, set(fastndcg.PRESETS) - documented
    assert "docs/presets.md" in presets.__doc__


@pytest.mark.parametrize("name, guess", [("trec", "trec_eval"), ("LightGBM", "lightgbm"), ("letor-4", "letor4"),
                                         ("pytrec-eval", "pytrec_eval")])
def test_unknown_preset_suggests_the_closest_name(name, guess):
    """get_preset("trec") listed the presets without a "did you mean" that --preset gave
    (issue 33 item 7): one message, for Python and the command line."""
    from fastndcg.cli._options import preset_name_arg

    message = rf"unknown preset '{name}'; did you mean '{guess}'\? known presets: .*standard"
    with pytest.raises(ValueError, match=message):
        fastndcg.get_preset(name)
    with pytest.raises(ValueError, match=message):
        fastndcg.ndcg([1.0], [1], [0, 1], convention=name)
    with pytest.raises(ValueError, match=message):
        fastndcg.compare([1.0], [1], [0, 1], presets=["standard", name])
    with pytest.raises(Exception, match=message):
        preset_name_arg(name)


def test_unknown_preset_without_a_close_name():
    with pytest.raises(ValueError, match=r"^unknown preset 'zzzz'; known presets: "):
        fastndcg.get_preset("zzzz")


def test_torchmetrics_with_every_query_skipped_is_zero():
    """torchmetrics' RetrievalNormalizedDCG(empty_target_action="skip") returns 0.0 when no query
    is left; the preset's replace(empty="skip") returned NaN (issue 33 item 11). The rule is the
    field empty_mean="zero", in every aggregate and in the signature; other presets keep NaN."""
    import fastndcg.reference as ref

    s, y, off = np.array([0.5, 0.2, 0.3]), np.array([0, 0, 0]), np.array([0, 2, 3])
    skip = fastndcg.get_preset("torchmetrics").replace(empty="skip")
    assert skip.empty_mean == "zero"
    for k in (None, 2, [1, 2]):
        got = fastndcg.mean_ndcg(s, y, off, k, convention=skip)
        assert np.array_equal(got, ref.mean_ndcg(s, y, off, k, skip)) and np.all(np.asarray(got) == 0.0)
        assert np.all(np.asarray(fastndcg.NDCGScorer(y, off, k, convention=skip).mean(s)) == 0.0)
    assert np.isnan(fastndcg.mean_ndcg(s, y, off, 2, convention=skip.replace(empty_mean="nan")))
    assert np.isnan(fastndcg.mean_ndcg(s, y, off, 2, convention=fastndcg.get_preset("standard").replace(empty="skip")))
    # the same custom field by hand, and one query that counts: the plain mean
    assert fastndcg.mean_ndcg(s, y, off, 2, convention=fastndcg.get_preset("standard").replace(
        empty="skip", empty_mean="zero")) == 0.0
    assert fastndcg.mean_ndcg(s, np.array([0, 1, 0]), off, None, convention=skip) == pytest.approx(1 / np.log2(3))
    m = fastndcg.measurement(5, convention=skip)
    assert "agg:mean,empty_mean_zero|" in m.signature and fastndcg.from_signature(m.signature) == m
    with pytest.raises(ValueError, match="empty_mean must be one of"):
        fastndcg.Convention(empty_mean="one")


# ----------------------------------------------------------------------------- repr (issue 35)

def test_convention_repr_names_the_preset_and_the_fields_that_differ():
    from fastndcg import Convention
    from fastndcg.conventions._presets import as_convention

    trec = as_convention("trec_eval")
    assert repr(trec) == "Convention(preset='trec_eval')"
    assert repr(presets.MSLR) == "Convention(preset='mslr')"
    assert repr(trec.replace(ties="stable", name="trec_eval")) == "Convention(preset='trec_eval', ties='stable')"
    # no preset: the fields that differ from Convention(), and a user's own label
    assert repr(Convention()) == "Convention()"
    assert repr(trec.replace(ties="stable")) == \
        "Convention(gain='linear', custom_gains='trec_eval', missing_ranking='unjudged')"
    assert repr(Convention(ties="key", empty="one", name="mine")) == "Convention(name='mine', ties='key', empty='one')"
    long = repr(Convention(discount=np.linspace(1.0, 0.5, 1000)))
    assert long == "Convention(discount=<1000 values: 1, 0.9994994994994995, ..., 0.5>)"
    # the full data stays in the fields, equality unchanged
    assert trec.replace(ties="stable", name="trec_eval") != trec and trec == presets.TREC_EVAL


def test_a_preset_registered_under_a_name_of_its_own_reports_the_cutoffs_of_its_fields(monkeypatch):
    """A user who adds a renamed trec_eval to fastndcg.PRESETS gets trec_eval's report (its
    ndcg, the whole list) without -k, not the generic cutoffs: behaviour follows fields."""
    from fastndcg.conventions._presets import REPORT_CUTOFFS, report_cutoffs

    monkeypatch.setitem(fastndcg.PRESETS, "mine", fastndcg.get_preset("trec_eval").replace(name="mine"))
    monkeypatch.setitem(fastndcg.PRESETS, "mine_cut", fastndcg.get_preset("trec_eval_cut").replace(name="mine_cut"))
    monkeypatch.setitem(fastndcg.PRESETS, "odd", fastndcg.Convention(ties="worst", name="odd"))
    assert report_cutoffs("mine") == report_cutoffs("trec_eval") == [None]
    assert report_cutoffs("mine_cut") == report_cutoffs("trec_eval_cut") == [5, 10, 15, 20, 30, 100, 200, 500, 1000]
    assert report_cutoffs("odd") == report_cutoffs(None) == list(REPORT_CUTOFFS)
