"""The measurement model: one type, built in one place, whose signature rebuilds it bit for bit."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastndcg
from fastndcg import PRESETS, Convention, get_preset
from fastndcg import Measurement, from_signature, measurement as measurement_for
from fastndcg.measures import SignatureError
from fastndcg.measures._measurement import resolve_measurements

GOLDEN_CUT10 = ("nDCG@10|gain:lin|disc:log2|ties:key_desc|empty:zero|short:clamp|ideal:cut,qrels|agg:mean"
                "|missing:error|fastndcg:" + fastndcg.__version__)


def _data(seed: int, n_queries: int = 40):
    """Queries heavy with ties, empty and single-document queries, labels 0..4."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 12, n_queries)
    sizes[:3] = (0, 1, 25)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(offsets[-1])
    scores = rng.integers(0, 4, n).astype(np.float64)            # many ties
    labels = rng.integers(0, 5, n).astype(np.int64)
    tie_key = rng.permutation(n).astype(np.int64)
    return scores, labels, offsets, tie_key


def _values(m: Measurement, data):
    scores, labels, offsets, tie_key = data
    conv = m.convention
    if conv.gain_is_table:
        labels = np.minimum(labels, len(conv.gain) - 1)
        if conv.unknown_label == "error":
            labels = np.where(np.isnan(np.asarray(conv.gain))[labels], 0, labels)
    kw = dict(tie_key=tie_key) if conv.uses_tie_key else {}
    out = []
    for f in (fastndcg.ndcg, fastndcg.mean_ndcg):
        try:
            out.append(np.asarray(f(scores, labels, offsets, m.cutoff, convention=conv, **kw)))
        except ValueError as exc:       # e.g. above_one="check": the same error from both
            out.append(str(exc))
    return out


def test_golden_signature_of_trec_eval_ndcg_cut_10():
    for ask in ("ndcg_cut.10", "ndcg_cut_10"):
        (m,) = resolve_measurements(ask)
        assert m.signature == GOLDEN_CUT10 and m.label == "ndcg_cut_10"
    # -k 10 under the trec_eval preset is the same measurement, whatever names it
    assert measurement_for(10, convention="trec_eval").signature == GOLDEN_CUT10
    assert measurement_for(10, convention="trec_eval_cut").signature == GOLDEN_CUT10
    assert fastndcg.measurement(10, convention="trec_eval") == resolve_measurements("ndcg_cut.10")[0]
    # ir_measures' nDCG@10 is pytrec_eval's ndcg_cut_10: float32 scores, +-inf beyond
    (irm,) = resolve_measurements("nDCG@10", missing="zero")
    assert irm.signature == GOLDEN_CUT10.replace("|agg:", "|prec:f32,inf|agg:").replace("missing:error",
                                                                                      "missing:zero")


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("k", [None, 1, 3, 10])
@pytest.mark.parametrize("missing", ["error", "zero", "skip"])
def test_every_preset_round_trips(preset, k, missing):
    m = measurement_for(k, convention=preset, missing=missing)
    back = from_signature(m.signature)
    assert back == m and back.signature == m.signature
    for a, b in zip(_values(m, _data(7)), _values(back, _data(7))):
        np.testing.assert_array_equal(a, b)


_conventions = st.builds(
    Convention,
    gain=st.one_of(st.sampled_from(["exponential", "linear"]),
                   st.lists(st.floats(0, 100, allow_nan=False), min_size=5, max_size=6).map(tuple),
                   st.lists(st.one_of(st.just(float("nan")), st.floats(0, 1e300)), min_size=5, max_size=5)
                   .filter(lambda t: not all(x != x for x in t)).map(tuple)),
    unknown_label=st.sampled_from(["error", "zero"]),
    discount=st.one_of(st.sampled_from(["log2", "letor", "reciprocal"]),
                       st.lists(st.floats(0, 1e10, allow_subnormal=True), min_size=30, max_size=30).map(tuple)),
    ties=st.sampled_from(["stable", "key", "key_desc", "average", "worst", "best"]),
    empty=st.sampled_from(["zero", "one", "skip"]),
    short=st.sampled_from(["clamp", "zero"]),
    ideal=st.sampled_from(["cut", "full"]),
    aggregation=st.sampled_from(["mean", "ratio"]),
    score_precision=st.sampled_from(["native", "float32"]),
    default_k=st.one_of(st.none(), st.integers(1, 40)),
    weight_precision=st.sampled_from(["native", "float32"]),
    above_one=st.sampled_from(["keep", "clamp", "check"]),
    ideal_source=st.sampled_from(["qrels", "run"]),
    empty_mean=st.sampled_from(["nan", "zero"]),
)


@settings(max_examples=150, deadline=None)
@given(conv=_conventions, k=st.one_of(st.none(), st.integers(1, 30)), seed=st.integers(0, 2**16),
       missing=st.sampled_from(["error", "zero", "skip"]), max_docs=st.one_of(st.none(), st.integers(1, 99)))
def test_generated_conventions_round_trip_with_the_same_bits(conv, k, seed, missing, max_docs):
    if conv.score_precision == "float32" and seed % 2:
        conv = conv.replace(float32_overflow="inf")
    m = Measurement("ndcg", k, conv, missing=missing, max_docs=max_docs)
    back = from_signature(m.signature)
    assert back == m and back.signature == m.signature
    assert back.convention.describe().split(" ")[:-1] == m.convention.describe().split(" ")[:-1]
    for a, b in zip(_values(m, _data(seed)), _values(back, _data(seed))):
        if isinstance(a, str):
            assert a == b
        else:
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("text", ["Rndcg", "ndcg_rel.1=3,2=9", "ndcg_p", "dcg", "ideal_dcg", "ndcg.-1=0.5,2=7",
                                  "nDCG(judged_only=True)@5", "nDCG(gains={0:0,1:1,2:3})@10",
                                  "nDCG(dcg='exp-log2')@20", "nDCG(dcg='exp-log2')"])
@pytest.mark.parametrize("rules", ["trec_eval", "pytrec_eval"])
def test_trec_and_ir_measures_strings_round_trip(text, rules):
    (m,) = resolve_measurements(text, convention=rules, relevance_level=2, missing="zero")
    back = from_signature(m.signature)
    assert back == m and back.signature == m.signature
    # a signature is also a measure string: the same measurement
    assert resolve_measurements(m.signature) == [m]


def test_signatures_evaluate_to_the_same_bits_on_trec_files(shared_data):
    base = shared_data / "trec_eval-test"
    asked = ["ndcg", "ndcg_cut.5,10", "Rndcg", "ndcg_rel.1=3,2=9", "ndcg_p", "dcg", "nDCG@10",
             "nDCG(dcg='exp-log2')@10", "nDCG(gains={1:3})@5"]
    ev = fastndcg.evaluate(asked, base / "qrels.test", base / "results.test", missing="zero")
    sigs = [ev.signatures[m] for m in ev.measures]
    again = fastndcg.evaluate(sigs, base / "qrels.test", base / "results.test")
    np.testing.assert_array_equal(again.values, ev.values)
    assert [again.signatures[m] for m in again.measures] == sigs
    # a preset that is no trec_eval's, through a signature: the NDCG kernels under that convention
    std = measurement_for(5, convention="standard", missing="zero").signature
    assert fastndcg.evaluate(std, base / "qrels.test", base / "results.test").signature == std


@pytest.mark.parametrize("bad, match", [
    ("nDCG@10", "fields separated by"),
    ("MAP@10|gain:lin", "not one of nDCG"),
    ("nDCG@0|gain:lin", "cutoff '0'"),
    (GOLDEN_CUT10.replace("gain:lin", "gain:squared"), "gain 'squared'"),
    (GOLDEN_CUT10.replace("|ties:key_desc", ""), "the field 'ties' is missing"),
    (GOLDEN_CUT10.replace("ties:key_desc", "ties:random"), "ties must be one of"),
    (GOLDEN_CUT10 + "|color:red", "unknown field 'color'"),
    (GOLDEN_CUT10 + "|gain:exp", "'gain' is given twice"),
    (GOLDEN_CUT10.replace("missing:error", "missing:maybe"), "missing must be one of"),
    (GOLDEN_CUT10.replace("agg:mean", "agg:mean,fast"), "agg option 'fast'"),
])
def test_bad_signatures_name_the_field(bad, match):
    with pytest.raises(SignatureError, match=match):
        from_signature(bad)


def test_trec_rules_need_a_trec_convention():
    with pytest.raises(ValueError, match="follow trec_eval's rules"):
        Measurement("Rndcg", None, get_preset("standard"))
    with pytest.raises(ValueError, match="takes no cutoff"):
        Measurement("Rndcg", 10, get_preset("trec_eval"))
    with pytest.raises(ValueError, match="missing must be one of"):
        Measurement("ndcg", 10, get_preset("trec_eval"), missing="ignore")


def test_soft_ndcg_and_rankdcg_measurements():
    conv = get_preset("standard")
    soft = Measurement("soft_ndcg", 10, conv, sigma=0.5)
    assert soft.signature.startswith("SoftNDCG@10|sigma:0.5|gain:exp|")
    assert from_signature(soft.signature) == soft
    rank = Measurement("rankdcg", None, conv)
    assert from_signature(rank.signature) == rank and rank.signature.startswith("RankDCG|")
    with pytest.raises(ValueError, match="sigma is SoftNDCG's"):
        Measurement("soft_ndcg", 10, conv)
    with pytest.raises(ValueError, match="sigma is SoftNDCG's"):
        Measurement("ndcg", 10, conv, sigma=1.0)
    with pytest.raises(ValueError, match="sigma must be a finite number > 0"):
        Measurement("soft_ndcg", 10, conv, sigma=0.0)
    with pytest.raises(ValueError, match="takes no cutoff"):
        Measurement("rankdcg", 3, conv)
    # a measurement is computed where it is defined: SoftNDCG on arrays, not on qrels and a run
    with pytest.raises(ValueError, match="SoftNDCG@10 is computed on arrays"):
        fastndcg.evaluate(soft.signature, {"q": {"d": 1}}, {"q": {"d": 1.0}})


def test_arrays_api_takes_a_measurement():
    scores, labels, offsets, tie_key = _data(3)
    m = measurement_for(5, convention="letor4")
    np.testing.assert_array_equal(fastndcg.ndcg(scores, np.minimum(labels, 2), offsets, measurement=m.signature),
                                  fastndcg.ndcg(scores, np.minimum(labels, 2), offsets, 5, convention="letor4"))
    with pytest.raises(ValueError, match="give measurement= or k= and convention=, not both"):
        fastndcg.mean_ndcg(scores, labels, offsets, 5, measurement=m)
    (rndcg,) = resolve_measurements("Rndcg")
    with pytest.raises(ValueError, match="need qrels and a run"):
        fastndcg.ndcg(scores, labels, offsets, measurement=rndcg)


@pytest.mark.parametrize("base", [2.0, 2.5, 3.0, 10.0])
@pytest.mark.parametrize("k", [None, 5])
def test_jarvelin_kekalainen_discount_round_trips(base, k):
    m = measurement_for(k, convention=Convention(discount="jk", discount_base=base))
    assert f"|disc:jk:{base:g}|" in m.signature
    back = from_signature(m.signature)
    assert back == m and back.convention.discount_base == base
    for a, b in zip(_values(m, _data(11)), _values(back, _data(11))):
        np.testing.assert_array_equal(a, b)


def test_measurement_repr_is_one_line_with_what_differs():
    ms = resolve_measurements("ndcg_cut.10")
    assert repr(ms[0]) == "Measurement(nDCG@10, name='ndcg_cut_10', convention=Convention(preset='trec_eval'))"
    m = Measurement("ndcg", 5, "standard", missing="zero", max_docs=100)
    assert repr(m) == "Measurement(nDCG@5, convention=Convention(preset='standard'), max_docs=100, missing='zero')"


def test_every_array_family_is_computed_from_its_measurement_and_its_signature():
    """soft_ndcg and rankdcg too: a Measurement (or its signature) states everything, so the family's
    function computes it from ``measurement=`` alone: the same bits as called with the fields."""
    rng = np.random.default_rng(7)
    offsets = np.array([0, 5, 5, 12, 13, 30])
    labels = rng.integers(0, 4, 30).astype(float)
    scores = np.round(rng.normal(size=30), 1)        # heavy with ties
    std = get_preset("standard")
    cases = [
        (Measurement("ndcg", 5, std), fastndcg.ndcg(scores, labels, offsets, 5, convention=std)),
        (Measurement("ndcg", None, get_preset("lightgbm")),
         fastndcg.ndcg(scores, labels, offsets, None, convention="lightgbm")),
        (Measurement("soft_ndcg", 5, std, sigma=0.5), fastndcg.soft_ndcg(scores, labels, offsets, sigma=0.5, k=5)),
        (Measurement("rankdcg", None, std), fastndcg.rankdcg(labels, scores, offsets)),
    ]
    functions = {"ndcg": lambda m: fastndcg.ndcg(scores, labels, offsets, measurement=m),
                 "soft_ndcg": lambda m: fastndcg.soft_ndcg(scores, labels, offsets, measurement=m),
                 "rankdcg": lambda m: fastndcg.rankdcg(labels, scores, offsets, measurement=m)}
    for m, want in cases:
        for form in (m, m.signature, fastndcg.from_signature(m.signature)):
            assert functions[m.family](form).tobytes() == np.asarray(want).tobytes(), m.head
    soft = cases[2][0]
    assert fastndcg.soft_ndcg(scores, labels, offsets, measurement=soft.signature).tobytes() == cases[2][1].tobytes()
    assert fastndcg.rankdcg(labels, scores, offsets, measurement=cases[3][0]).tobytes() == cases[3][1].tobytes()
    with pytest.raises(ValueError, match="fastndcg.soft_ndcg computes SoftNDCG; RankDCG is computed by fastndcg.rankdcg"):
        fastndcg.soft_ndcg(scores, labels, offsets, measurement=cases[3][0])
    with pytest.raises(ValueError, match="give measurement= or sigma= and k= and convention=, not both"):
        fastndcg.soft_ndcg(scores, labels, offsets, sigma=0.5, measurement=soft)
    with pytest.raises(ValueError, match="RnDCG is trec_eval's: measures that need qrels and a run"):
        fastndcg.soft_ndcg(scores, labels, offsets, measurement=Measurement("Rndcg", None, get_preset("trec_eval")))


def test_one_spelling_for_the_convention_and_the_old_ones_warn():
    trec = get_preset("trec_eval")
    with pytest.warns(DeprecationWarning, match=r"measurement\(preset=...\) is deprecated: use convention="):
        old = fastndcg.measurement(10, preset="trec_eval_cut")
    assert old.convention is get_preset("trec_eval_cut")            # it keeps the preset it was built from
    renamed = trec.replace(name="mine")
    assert fastndcg.measurement(10, convention=renamed).convention.name == "mine"
    assert resolve_measurements("ndcg_cut.10", convention="pytrec_eval")[0].convention.score_precision == "float32"
    with pytest.raises(ValueError, match="follow trec_eval's rules"):
        resolve_measurements("ndcg_cut.10", convention="sklearn")


def test_a_measurements_missing_rule_and_the_calls_that_contradict_are_refused(shared_data):
    base = shared_data / "trec_eval-test"
    m = fastndcg.measurement(10, convention="trec_eval")          # missing="error", stated
    with pytest.raises(ValueError, match=r"missing='zero' contradicts the rule nDCG@10 states itself \(missing='error'"):
        fastndcg.evaluate([m], base / "qrels.test", base / "results.test", missing="zero")
    # the same rule twice is one answer; a string measure takes the call's rule
    same = fastndcg.evaluate([m.replace(missing="zero")], base / "qrels.test", base / "results.test", missing="zero")
    text = fastndcg.evaluate("ndcg_cut.10", base / "qrels.test", base / "results.test", missing="zero")
    assert list(same.aggregated.values()) == list(text.aggregated.values())
