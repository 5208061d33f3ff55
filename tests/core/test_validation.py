"""Bad input gets a clear error naming the argument, the position and the value."""
import numpy as np
import pytest

import fastndcg
from fastndcg import Convention, NDCGScorer, reference

S = np.array([0.5, 0.2, 0.9, 0.1])
Y = np.array([1, 0, 2, 0])
OFF = np.array([0, 2, 4])


@pytest.mark.parametrize("scores, match", [
    ([0.5, np.nan, 0.9, 0.1], r"scores must be finite; got scores\[1\]=.*nan.*\(query 0, row 1"),
    ([0.5, 0.2, 0.9, np.inf], r"scores must be finite; got scores\[3\]=.*inf.*\(query 1, row 1"),
    ([0.5, 0.2, -np.inf, 0.1], r"scores\[2\]"),
])
def test_nonfinite_scores(scores, match):
    with pytest.raises(ValueError, match=match):
        fastndcg.ndcg(np.array(scores), Y, OFF)
    with pytest.raises(ValueError, match=match):
        NDCGScorer(Y, OFF).ndcg(np.array(scores))


@pytest.mark.parametrize("labels, conv, match", [
    ([1, -1, 2, 0], None, r"labels must be non-negative integers .*labels\[1\]=.*-1.*query 0"),
    ([1, 0, 2.5, 0], None, r"labels\[2\]=.*2\.5.*query 1"),
    ([1, 0, np.nan, 0], Convention(gain="linear"), r"labels must be finite and >= 0; got labels\[2\]=.*nan"),
    ([1, 0, -0.5, 0], Convention(gain="linear"), r"labels\[2\]=.*-0\.5"),
    ([1, 0, 2000, 0], None, r"labels must be <= 1023 .*labels\[2\]=.*2000"),
    ([1, 0, 3, 0], Convention(gain=(0, 1, 3)), r"labels\[2\]=.*3.* is outside the gain table.*query 1"),
    ([1, 0, 31, 0], "lightgbm", r"labels\[2\]=.*31.* outside the gain table"),
])
def test_bad_labels(labels, conv, match):
    with pytest.raises(ValueError, match=match):
        fastndcg.ndcg(S, np.array(labels), OFF, convention=conv)


def test_linear_gain_accepts_real_labels():
    fastndcg.ndcg(S, [0.5, 0.0, 2.25, 1e-9], OFF, convention=Convention(gain="linear"))


@pytest.mark.parametrize("offsets, exc, match", [
    ([1, 2, 4], ValueError, r"offsets must start at 0; got offsets\[0\]=1"),
    ([0, 3, 2, 4], ValueError, r"offsets must be non-decreasing; got offsets\[1\]=3 > offsets\[2\]=2"),
    ([0, 2, 5], ValueError, r"offsets must end at the number of documents \(4\); got offsets\[-1\]=5"),
    ([0, 2, 3], ValueError, r"offsets\[-1\]=3"),
    ([], ValueError, r"offsets must have at least one entry"),
    ([0.0, 2.0, 4.0], TypeError, r"offsets must be an integer array; got dtype float64"),
    ([[0, 2, 4]], ValueError, r"offsets must be 1-D; got an array of shape \(1, 3\)"),
    (["0", "2", "4"], TypeError, r"offsets must be numeric"),
])
def test_bad_offsets(offsets, exc, match):
    with pytest.raises(exc, match=match):
        fastndcg.ndcg(S, Y, np.array(offsets) if offsets else np.array([], dtype=np.int64))


def test_length_mismatch():
    with pytest.raises(ValueError, match=r"labels must have the same length as scores \(4\); got length 3"):
        fastndcg.ndcg(S, Y[:3], [0, 2, 4])
    with pytest.raises(ValueError, match=r"scores must have the same length as labels \(4\); got length 3"):
        NDCGScorer(Y, OFF).ndcg(S[:3])
    with pytest.raises(ValueError, match=r"tie_key must have the same length"):
        fastndcg.ndcg(S, Y, OFF, convention=Convention(ties="key"), tie_key=[1, 2])


@pytest.mark.parametrize("k, exc, match", [
    (0, ValueError, r"k must be >= 1; got 0"),
    (-3, ValueError, r"k must be >= 1; got -3"),
    ([1, 0], ValueError, r"k\[1\] must be >= 1; got 0"),
    ([], ValueError, r"k must not be an empty list"),
    (2.5, TypeError, r"k must be None, an int or a sequence"),
    ([1, 2.0], TypeError, r"k\[1\] must be an int >= 1 or None; got 2.0"),
    (True, TypeError, r"k must be an int >= 1 or None; got True"),
    ("5", TypeError, r"k must be None, an int or a sequence"),
])
def test_bad_cutoffs(k, exc, match):
    with pytest.raises(exc, match=match):
        fastndcg.ndcg(S, Y, OFF, k)


def test_a_repeated_cutoff(capsys):
    """Issue 33 item 1: results keyed by name have one column per distinct cutoff, first
    appearance first (distinct_cutoffs); the array functions stay positional: one column per
    entry of k, a repeated cutoff repeating its identical column."""
    from fastndcg._core.query_checks import distinct_cutoffs

    assert distinct_cutoffs([5, 10, 5]) == [5, 10] and distinct_cutoffs([10, None, None, np.int64(10)]) == [10, None]
    assert distinct_cutoffs(None) is None and distinct_cutoffs(7) == 7
    with pytest.raises(ValueError, match=r"k\[2\] must be >= 1; got 0"):
        distinct_cutoffs([5, 10, 0])
    vals = fastndcg.ndcg(S, Y, OFF, [5, 1, 5])
    assert vals.shape == (2, 3) and np.array_equal(vals[:, 0], vals[:, 2])
    assert np.array_equal(vals[:, :2], fastndcg.ndcg(S, Y, OFF, [5, 1]))
    mean = fastndcg.mean_ndcg(S, Y, OFF, [1, None, 1])
    assert mean.shape == (3,) and mean[0] == mean[2]
    scorer = NDCGScorer(Y, OFF, [5, 5])
    assert np.array_equal(scorer.ndcg(S), np.repeat(NDCGScorer(Y, OFF, 5).ndcg(S)[:, None], 2, axis=1))
    assert scorer(S).shape == (2,) and scorer(S)[0] == scorer(S)[1]


def test_two_dimensional_inputs():
    with pytest.raises(ValueError, match=r"scores must be 1-D; got an array of shape \(2, 2\)"):
        fastndcg.ndcg(S.reshape(2, 2), Y, OFF)
    with pytest.raises(ValueError, match=r"labels must be 1-D; got an array of shape \(2, 2\)"):
        fastndcg.ndcg(S, Y.reshape(2, 2), OFF)
    with pytest.raises(ValueError, match=r"labels must be 1-D"):
        NDCGScorer(Y.reshape(2, 2), OFF)


def test_non_numeric_inputs():
    with pytest.raises(TypeError, match=r"scores must be numeric; got dtype <U"):
        fastndcg.ndcg(np.array(["a", "b", "c", "d"]), Y, OFF)
    with pytest.raises(TypeError, match=r"labels must be numeric"):
        fastndcg.ndcg(S, np.array(["a", "b", "c", "d"]), OFF)


def test_tie_key_rules():
    with pytest.raises(ValueError, match=r"ties='key' needs a tie_key array"):
        fastndcg.ndcg(S, Y, OFF, convention=Convention(ties="key"))
    with pytest.raises(ValueError, match=r"tie_key was given but the convention breaks ties by 'stable'"):
        fastndcg.ndcg(S, Y, OFF, tie_key=[0, 1, 2, 3])
    with pytest.raises(TypeError, match=r"tie_key must be an integer array"):
        fastndcg.ndcg(S, Y, OFF, convention=Convention(ties="key"), tie_key=[0.5, 1, 2, 3])


def test_weights_and_external_ideal():
    with pytest.raises(ValueError, match=r"weights must have one entry per query \(2\); got length 3"):
        fastndcg.mean_ndcg(S, Y, OFF, weights=[1, 2, 3])
    with pytest.raises(ValueError, match=r"weights must be finite and >= 0; got weights\[1\]=-1.0"):
        fastndcg.mean_ndcg(S, Y, OFF, weights=[1, -1])
    with pytest.raises(ValueError, match=r"ideal_dcg must have one entry per query"):
        fastndcg.ndcg(S, Y, OFF, ideal_dcg=[1.0])
    with pytest.raises(ValueError, match=r"ideal_dcg must be finite and >= 0; got -1.0 for query 1"):
        fastndcg.ndcg(S, Y, OFF, ideal_dcg=[1.0, -1.0])
    with pytest.raises(ValueError, match=r"ideal_labels and ideal_offsets go together"):
        fastndcg.ndcg(S, Y, OFF, ideal_labels=[1, 2])
    with pytest.raises(ValueError, match=r"ideal_offsets must describe 2 queries; got 1"):
        fastndcg.ndcg(S, Y, OFF, ideal_labels=[1, 2], ideal_offsets=[0, 2])
    with pytest.raises(ValueError, match=r"ideal_labels must be non-negative integers .*ideal_labels\[1\]"):
        fastndcg.ndcg(S, Y, OFF, ideal_labels=[1, -2], ideal_offsets=[0, 1, 2])
    with pytest.raises(ValueError, match=r"either ideal_dcg or ideal_labels"):
        fastndcg.ndcg(S, Y, OFF, ideal_dcg=[1, 1], ideal_labels=[1, 2], ideal_offsets=[0, 1, 2])


def test_user_discount_too_short():
    with pytest.raises(ValueError, match=r"discount: the array has 1 entries but ranks up to 2 are summed"):
        fastndcg.ndcg(S, Y, OFF, convention=Convention(discount=[1.0]))


@pytest.mark.parametrize("field, value, match", [
    ("gain", "exp", r"gain must be one of"),
    ("gain", [], r"gain: an empty sequence"),
    ("gain", [0, -1], r"gain: table entries must be finite and >= 0; got gain\[1\]=-1.0"),
    ("gain", {-1: 2.0}, r"gain: table labels must be non-negative integers; got label -1"),
    ("discount", "ln", r"discount must be one of"),
    ("discount", [1.0, np.nan], r"discount: entries must be finite and >= 0; got discount\[1\]=nan"),
    ("ties", "random", r"ties must be one of"),
    ("empty", "nan", r"empty must be one of"),
    ("short", "drop", r"short must be one of"),
    ("ideal", "qrels", r"ideal must be one of"),
    ("aggregation", "median", r"aggregation must be one of"),
])
def test_bad_convention(field, value, match):
    with pytest.raises(ValueError, match=match):
        Convention(**{field: value})


def test_unknown_preset_and_bad_convention_type():
    with pytest.raises(ValueError, match=r"unknown preset 'nope'; known presets: .*standard"):
        fastndcg.ndcg(S, Y, OFF, convention="nope")
    with pytest.raises(TypeError, match=r"convention must be a Convention, a preset name or None"):
        fastndcg.ndcg(S, Y, OFF, convention=3)


def test_n_threads_validation():
    with pytest.raises(ValueError, match=r"n_threads must not be 0"):
        fastndcg.ndcg(S, Y, OFF, n_threads=0)
    with pytest.raises(TypeError, match=r"n_threads must be an int or None"):
        fastndcg.ndcg(S, Y, OFF, n_threads=1.5)


def test_reference_raises_the_same_exception_types():
    for call in (lambda f: f([1.0, 0.0], [3, 1], [0, 2], None, Convention(gain=(0, 1))),
                 lambda f: f([1.0, 0.0], [-1, 1], [0, 2], None, None)):
        with pytest.raises(ValueError):
            call(reference.ndcg)
        with pytest.raises(ValueError):
            call(lambda *a: fastndcg.ndcg(*a[:4], convention=a[4]))


# ----------------------------------------------------------------------------- one length rule (issue 24)


def _entry_points():
    import fastndcg
    from fastndcg import rankdcg

    return {
        "ndcg": lambda s, l, o: fastndcg.ndcg(s, l, o),
        "mean_ndcg": lambda s, l, o: fastndcg.mean_ndcg(s, l, o),
        "dcg": lambda s, l, o: fastndcg.dcg(s, l, o),
        "lambda_gradients": lambda s, l, o: fastndcg.lambda_gradients(s, l, o),
        "lambda_gradients_lightgbm": lambda s, l, o: fastndcg.lambda_gradients(s, l, o, mode="lightgbm"),
        "delta_ndcg_pairs": lambda s, l, o: fastndcg.delta_ndcg_pairs(s, l, o),
        "delta_ndcg_matrix": lambda s, l, o: fastndcg.delta_ndcg_matrix(s, l, o),
        "soft_ndcg": lambda s, l, o: fastndcg.soft_ndcg(s, l, o, sigma=1.0),
        "soft_ndcg_grad": lambda s, l, o: fastndcg.soft_ndcg_grad(s, l, o, sigma=1.0),
        "rankdcg": lambda s, l, o: rankdcg(l, s, o),
        "NDCGScorer": lambda s, l, o: fastndcg.NDCGScorer(l, o).ndcg(s),
        "LambdaMART": lambda s, l, o: fastndcg.LambdaMART(l, o).gradients(s),
    }


# The objects are built from the labels alone: offsets ending past them are the
# offsets' error there, so only the scores can be the short side.
_LENGTH_CASES = [(entry, n_s, n_l) for entry in sorted(_entry_points()) for n_s, n_l in ((5, 6), (6, 5))
                 if not (entry in ("NDCGScorer", "LambdaMART") and n_l == 5)]


@pytest.mark.parametrize("entry, n_scores, n_labels", _LENGTH_CASES)
def test_a_length_mismatch_reads_the_same_everywhere(entry, n_scores, n_labels):
    # lambda_gradients with 5 scores and 6 labels said "offsets must end at the
    # number of documents (5); got offsets[-1]=6" where ndcg names the scores
    call = _entry_points()[entry]
    scores, labels, offsets = np.zeros(n_scores), np.zeros(n_labels, dtype=np.int64), [0, 6]
    first, second = ("scores", "labels") if entry != "rankdcg" else ("predictions", "reference")
    short = first if n_scores == 5 else second
    other = second if short == first else first
    with pytest.raises(ValueError) as info:
        call(scores, labels, offsets)
    assert str(info.value) == f"{short} must have the same length as {other} (6); got length 5"


# ----------------------------------------------------------------------------- labels outside a gain table

# LightGBM's example data has labels 0-4; LETOR's tables stop at 2 (and give other labels gain 0)
LTR_S = np.array([0.3, 0.9, 0.1, 0.8, 0.4, 0.2])
LTR_Y = np.array([3, 1, 0, 4, 2, 3])
LTR_OFF = np.array([0, 3, 6])


def _one_outside_warning(record, count=3, n_docs=6, labels=(3, 4), name="labels"):
    from fastndcg.conventions import UnknownLabelWarning

    got = [w for w in record if issubclass(w.category, UnknownLabelWarning)]
    assert len(got) == 1, [str(w.message) for w in got]
    w = got[0]
    assert w.filename == __file__, w.filename        # the caller's line, not fastndcg's
    assert (w.message.argument, w.message.labels, w.message.count, w.message.n_docs) == (name, labels, count, n_docs)
    assert (f"{name}: {count} of {n_docs} documents have a label outside the gain table "
            f"({', '.join(map(str, labels))}) and get gain 0") in str(w.message)
    return w


@pytest.mark.parametrize("preset", ["letor3", "letor4"])
def test_labels_outside_the_gain_table_are_told_once_per_call(preset):
    """letor3/letor4 gave labels above 2 a gain of 0 without a word (issue 33 item 6): one
    UnknownLabelWarning per call, from the convention's fields, at the caller's line."""
    import warnings

    from fastndcg.conventions import UnknownLabelWarning
    from fastndcg.stream._chunks import evaluate_chunks

    calls = [
        lambda: fastndcg.ndcg(LTR_S, LTR_Y, LTR_OFF, 2, convention=preset),
        lambda: fastndcg.mean_ndcg(LTR_S, LTR_Y, LTR_OFF, [1, 3], convention=preset),
        lambda: NDCGScorer(LTR_Y, LTR_OFF, 3, convention=preset),
        lambda: fastndcg.lambda_gradients(LTR_S, LTR_Y, LTR_OFF, convention=preset),
        lambda: fastndcg.LambdaMART(LTR_Y, LTR_OFF, convention=preset),
        lambda: fastndcg.soft_ndcg(LTR_S, LTR_Y, LTR_OFF, k=3, sigma=0.5, convention=preset),
        # a stream is one call: one warning for all its chunks
        lambda: evaluate_chunks([(LTR_S[:3], LTR_Y[:3], [0, 3]), (LTR_S[3:], LTR_Y[3:], [0, 3])], 3,
                                convention=preset),
    ]
    for call in calls:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            call()
        _one_outside_warning(record)
    scorer = NDCGScorer(LTR_Y, LTR_OFF, 3, convention=fastndcg.get_preset(preset).replace(gain=(0, 1, 3, 7, 15)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnknownLabelWarning)
        scorer.mean(LTR_S)          # a table that covers the labels: nothing to say
        fastndcg.ndcg(LTR_S, np.minimum(LTR_Y, 2), LTR_OFF, 2, convention=preset)
        fastndcg.ndcg(LTR_S, LTR_Y, LTR_OFF, 2, convention="mslr")


def test_labels_in_the_holes_of_a_gain_mapping_are_told():
    """The rule is the fields': a {label: gain} mapping with unknown_label="zero" warns for the
    labels it lacks, whatever the convention's name."""
    import warnings

    conv = Convention(gain={0: 0, 2: 3, 3: 7}, unknown_label="zero", name="letor4")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        fastndcg.ndcg(LTR_S, LTR_Y, LTR_OFF, convention=conv)
    w = _one_outside_warning(record, count=2, labels=(1, 4))
    assert "(convention 'letor4': unknown_label='zero', gain table {0: 0, 2: 3, 3: 7})" in str(w.message)
    assert w.message.convention == "letor4"
