"""Each convention field is described once, where it is declared (conventions/_fields.py), and
everything that handles fields reads that description: validation, the signature and its parser,
identify's grid, compare's table, describe, LambdaMART's bit-exact modes, trec_eval's rules."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pytest

import fastndcg
from fastndcg import Convention
from fastndcg.conventions._convention import FIELDS, described_fields
from fastndcg.conventions._fields import ANY, FieldInfo, conv_field
from fastndcg.conventions._presets import follows_trec_eval
from fastndcg.measures._lambdamart_checks import check_exact_convention
from fastndcg import Measurement, from_signature
from fastndcg.report._compare_render import PRESET_FIELDS, other_fields
from fastndcg.report._identify import _GRID_ORDER


@dataclass(frozen=True)
class WithAFieldOfItsOwn(Convention):
    """A convention with one more field, declared as the recipe says (docs/architecture.md)."""

    flavour: str = conv_field("plain", FieldInfo("a field only a table reads", ("plain", "spiced"), "flavour", 157))


def test_every_field_is_described_once_and_in_order():
    names = [f.name for f in dataclasses.fields(Convention) if f.name != "name"]
    assert [info.name for info in FIELDS] == names
    assert all(info.default == getattr(Convention(), info.name) for info in FIELDS)
    # a token has one place in the signature, and one head
    places = {}
    for info in FIELDS:
        assert places.setdefault(info.token, info.at) == info.at, info.name
    heads = [info.token for info in FIELDS if not info.option]
    assert len(heads) == len(set(heads)) == len(places)


def test_the_readers_of_fields_take_them_from_the_descriptions():
    assert PRESET_FIELDS == tuple(i.name for i in FIELDS if i.column)
    assert set(_GRID_ORDER) == {i.name for i in FIELDS if i.grid}
    assert {i.name for i in FIELDS if i.trec_eval_reads} == {"score_precision", "float32_overflow", "custom_gains",
                                                             "missing_ranking"}


def test_a_field_added_in_a_subclass_is_validated_signed_described_and_refused_by_the_exact_modes():
    assert described_fields(WithAFieldOfItsOwn)[-1].name == "flavour"
    with pytest.raises(ValueError, match=r"flavour must be one of \('plain', 'spiced'\); got 'sour'"):
        WithAFieldOfItsOwn(flavour="sour")
    spiced = WithAFieldOfItsOwn(flavour="spiced")
    plain = WithAFieldOfItsOwn()
    assert "flavour=spiced" in spiced.describe()
    # the signature writes it only where it differs from its default, at its place
    sig = Measurement("ndcg", 10, spiced).signature
    assert "|agg:mean|flavour:spiced|missing:error|" in sig
    assert "flavour" not in Measurement("ndcg", 10, plain).signature
    # compare lists a field that is no column when it differs
    assert other_fields(spiced) == "flavour=spiced" and other_fields(plain) == "-"
    # the bit-exact modes allow only what a description says applies: the new field at its
    # default passes, any other value is refused, naming it
    for mode in ("lightgbm", "xgboost"):
        check_exact_convention(plain, mode)
        with pytest.raises(ValueError, match=f"mode='{mode}' reproduces the library, whose flavour is 'plain'"):
            check_exact_convention(spiced, mode)
    # trec_eval's rules do not read it: only its default keeps them
    trec = dataclasses.asdict(fastndcg.get_preset("trec_eval"))
    assert follows_trec_eval(WithAFieldOfItsOwn(**trec))
    assert not follows_trec_eval(WithAFieldOfItsOwn(**dict(trec, flavour="spiced")))


def test_the_exact_modes_read_the_allow_list():
    for info in FIELDS:
        assert set(info.exact) <= {"lightgbm", "xgboost"}
        for mode in ("lightgbm", "xgboost"):
            allowed = info.allowed_in(mode)
            assert allowed is None or allowed == ANY or all(isinstance(v, str) for v in allowed)
    # fields the libraries fix (discount, ties, short, ideal) are refused at other values
    for field_name, value in (("discount", "letor"), ("ties", "average"), ("short", "zero"), ("ideal", "full")):
        with pytest.raises(ValueError, match=f"whose {field_name} is"):
            check_exact_convention(Convention(**{field_name: value}), "lightgbm")
    check_exact_convention(Convention(score_precision="float32"), "xgboost")
    with pytest.raises(ValueError, match="whose score_precision is 'native'"):
        check_exact_convention(Convention(score_precision="float32"), "lightgbm")


@pytest.mark.parametrize("preset", fastndcg.list_presets())
def test_signatures_read_back_to_the_same_fields(preset):
    conv = fastndcg.get_preset(preset)
    m = Measurement("ndcg", 10, conv)
    back = from_signature(m.signature)
    assert back == m and back.signature == m.signature
    # fields that matter without custom gains come back as they were
    for info in FIELDS:
        if info.name not in ("custom_gains", "missing_ranking"):
            assert np.array_equal(np.asarray(getattr(back.convention, info.name), dtype=object),
                                  np.asarray(getattr(conv, info.name), dtype=object)), info.name


def test_the_field_descriptions_of_a_new_class_from_8_threads_at_once():
    """described_fields and the signature's tokens are cached per convention class: 8 threads
    that meet a class for the first time at once all get whole, equal descriptions."""
    import threading

    @dataclass(frozen=True)
    class Fresh(Convention):
        flavour: str = conv_field("plain", FieldInfo("a field", ("plain", "spiced"), "flavour", 157))

    barrier = threading.Barrier(8)
    seen = [None] * 8

    def work(i):
        barrier.wait()
        conv = Fresh(flavour="spiced")
        seen[i] = ([info.name for info in described_fields(conv)], Measurement("ndcg", 5, conv).signature)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(s == seen[0] for s in seen) and seen[0][0][-1] == "flavour" and "|flavour:spiced|" in seen[0][1]
