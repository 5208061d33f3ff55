"""Output helpers (fastndcg.report._format): JSON valid for strict parsers."""
from __future__ import annotations

import json
import re
import warnings

import pytest

from fastndcg.report._format import NotUtf8Warning, json_text


def original_bytes(text: str) -> bytes:
    """The bytes of a string that json_text wrote with \\xNN escapes (its documented inverse)."""
    return re.sub(rb"\\\\|\\x([0-9a-f]{2})", lambda m: bytes([int(m[1], 16)]) if m[1] else b"\\",
                  text.encode("utf-8"))


def strict_loads(text: str):
    """json.loads that refuses lone surrogates, as strict parsers (RFC 8259) do."""
    def check(o):
        if isinstance(o, str):
            o.encode("utf-8")       # a lone surrogate raises
        elif isinstance(o, dict):
            [check(k) or check(v) for k, v in o.items()]
        elif isinstance(o, list):
            [check(v) for v in o]
    out = json.loads(text)
    check(out)
    return out


def test_strings_that_are_not_utf8_become_valid_json_reversibly():
    # was: "1\udcff" (a lone surrogate): strict parsers reject the document
    ids = [b"1\xff", b"a\\b\xfe", b"caf\xc3\xa9", b"x\\xff"]
    names = [i.decode("utf-8", "surrogateescape") for i in ids]
    doc = {"per_query": [{"query": n, "v": 0.5} for n in names], names[0]: [names[1]]}
    with pytest.warns(NotUtf8Warning) as rec:
        text = json_text(doc)
    assert len(rec) == 1 and str(rec[0].message).startswith('2 string(s) of the JSON output are not UTF-8 (e.g. "1\\xff")')
    got = strict_loads(text)
    assert [q["query"] for q in got["per_query"]] == ["1\\xff", "a\\\\b\\xfe", "café", "x\\xff"]
    # the two ids that were not UTF-8 give their bytes back; the others are as they were
    assert [original_bytes(q["query"]) for q in got["per_query"][:2]] == ids[:2]
    assert got["1\\xff"] == ["a\\\\b\\xfe"]


def test_utf8_strings_are_written_as_they_are_without_a_warning():
    doc = {"q": ["café", "😀", "a\\b", "\udcff".encode("utf-8", "surrogateescape").hex()], "n": 1.5}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert json_text(doc) == json.dumps(doc, indent=2)
        assert json_text(doc, indent=None) == json.dumps(doc)
    with pytest.raises(ValueError):
        json_text({"v": float("nan")})


def test_the_warning_points_at_the_caller():
    with pytest.warns(NotUtf8Warning) as rec:
        json_text({"q": "1\udcff"})
    assert rec[0].filename == __file__
