"""fastndcg.io._results: other tools' result files and printed values (what identify matches)."""
from __future__ import annotations

import json

import pytest

from fastndcg.io._results import MATCH_TOLERANCE, parse_reported_value, read_per_query


def test_match_rule_is_half_a_printed_unit():
    r = parse_reported_value("0.3914")
    assert r.decimals == 4
    assert r.matches(0.39145) and r.matches(0.39135) and not r.matches(0.39146) and not r.matches(0.3913)
    assert parse_reported_value("0.39").matches(0.394) and not parse_reported_value("0.390").matches(0.394)
    assert parse_reported_value("1").matches(0.6) and MATCH_TOLERANCE < 1e-9


@pytest.mark.parametrize("text, message", [
    ("abc", "value: 'abc' is not a number"),
    ("nan", "is not a finite number"),
    ("39.14", "outside [0, 1], where every NDCG lies (a percentage? give 0.3914)"),
    ("-0.1", "outside [0, 1]"),
])
def test_bad_reported_value_is_a_clear_error(text, message):
    with pytest.raises(ValueError, match=None) as exc:
        parse_reported_value(text)
    assert message in str(exc.value)


def test_per_query_formats(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps({"q1": {"ndcg": 0.5}, "q2": {"ndcg": 0.25}}))
    (tmp_path / "b.csv").write_text("qid,ndcg@10\nq1,0.5000\nq2,0.2500\n")
    (tmp_path / "c.tsv").write_text("q1\t0.5\nq2\t0.25\n")
    for name in ("a.json", "b.csv", "c.tsv"):
        pq = read_per_query(tmp_path / name)
        assert {q: v.value for q, v in pq.values.items()} == {"q1": 0.5, "q2": 0.25}
    assert read_per_query(tmp_path / "b.csv").values["q1"].decimals == 4


def test_per_query_file_with_a_byte_order_mark(tmp_path):
    # was: query '\ufeffq1' (and a JSON file not recognised as JSON)
    from fastndcg.io._files import ByteOrderMarkWarning

    (tmp_path / "a.json").write_bytes(b"\xef\xbb\xbf" + json.dumps({"q1": {"ndcg": 0.5}}).encode())
    (tmp_path / "c.tsv").write_bytes(b"\xef\xbb\xbfq1\t0.5\n")
    for name in ("a.json", "c.tsv"):
        with pytest.warns(ByteOrderMarkWarning, match=f"{name}: skipped the UTF-8 byte-order mark"):
            assert {q: v.value for q, v in read_per_query(tmp_path / name).values.items()} == {"q1": 0.5}


def test_per_query_nan_is_a_query_left_out(tmp_path):
    (tmp_path / "n.tsv").write_text("q1\t0.5\nq2\tnan\n")
    pq = read_per_query(tmp_path / "n.tsv")
    assert pq.values["q2"].matches(float("nan")) and not pq.values["q2"].matches(0.0)
    assert not pq.values["q1"].matches(float("nan"))


def test_per_query_bad_files_name_file_and_line(tmp_path, shared_data):
    (tmp_path / "bad.tsv").write_text("q1\t0.5\nq2\tzero\n")
    with pytest.raises(ValueError, match=r"bad.tsv:2: value: 'zero' is not a number"):
        read_per_query(tmp_path / "bad.tsv")
    (tmp_path / "dup.tsv").write_text("q1\t0.5\nq1\t0.5\n")
    with pytest.raises(ValueError, match=r"dup.tsv:2: query 'q1' is given twice \(first at .*dup.tsv:1\)"):
        read_per_query(tmp_path / "dup.tsv")
    (tmp_path / "ragged.tsv").write_text("q1\t0.5\nq2\t0.5\textra\n")
    with pytest.raises(ValueError, match=r"ragged.tsv:2: expected 2 fields"):
        read_per_query(tmp_path / "ragged.tsv")
    with pytest.raises(ValueError, match="several measures .*choose one with measure"):
        read_per_query(shared_data / "trec_eval-test" / "out.test.aq")
    with pytest.raises(ValueError, match="measure 'ndcg_cut_11' is not in"):
        read_per_query(shared_data / "trec_eval-test" / "out.test.aq", "ndcg_cut_11")
    with pytest.raises(FileNotFoundError):
        read_per_query(tmp_path / "absent")
