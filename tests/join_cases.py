"""Inputs of the run-qrels join tests (tests/io/test_join_*.py): docnos and scores heavy with
ties and edge cases, random run and qrels files, and a check that an array has pages of its own."""
from __future__ import annotations

import mmap

import numpy as np


# docnos: shared prefixes, prefixes of each other, non-ASCII and undecodable bytes
DOCS = [b"d", b"d1", b"d10", b"d2", b"doc-0001", b"doc-0002", b"doc-00010", b"clueweb09-en0000-00-00001",
        b"clueweb09-en0000-00-00002", b"clueweb09-en0000-00-000010", b"\xc3\xa9t\xc3\xa9", b"\xff\xfe-x",
        b"z" * 40, b"z" * 39 + b"y", b"a.b", b"A.b"]
# few distinct scores (many ties), and scores equal only once rounded to float32
SCORES = ["1", "1.0", "2", "-0", "0", "0.5", "1.00000001", "1.00000002", "3e38", "3.1e38", "-2.5", "7"]


def run_text(rows):
    return b"".join(t + b" Q0 " + d + b" 1 " + s.encode() + b" tag\n" for t, d, s in rows)


def random_files(tmp_path, rng, name="r"):
    """A run (topics interleaved or not, some unjudged) and qrels (some topics not retrieved)."""
    topics = [b"1", b"10", b"2", b"\xc3\xa9", b"7"]
    rows = []
    for t in topics[:4]:
        n = int(rng.integers(1, len(DOCS) + 1))
        for i in rng.choice(len(DOCS), n, replace=False):
            rows.append((t, DOCS[int(i)], SCORES[int(rng.integers(len(SCORES)))]))
    if rng.random() < 0.5:
        rows = [rows[i] for i in rng.permutation(len(rows))]     # topics not contiguous
    qrels = []
    for t in [b"1", b"10", b"2", b"7", b"9"]:                     # "\xc3\xa9" unjudged; "7", "9" not retrieved
        for i in rng.choice(len(DOCS), int(rng.integers(1, 8)), replace=False):
            qrels.append(t + b" 0 " + DOCS[int(i)] + b" " + str(int(rng.integers(-1, 4))).encode() + b"\n")
    r = tmp_path / f"{name}.run"
    q = tmp_path / f"{name}.qrels"
    r.write_bytes(run_text(rows))
    q.write_bytes(b"".join(qrels))
    return r, q, rows


def mapped(a: np.ndarray) -> bool:
    """Whether ``a`` lives in a mapping of its own (:func:`fastndcg.io._pages.page_array`)."""
    base = a.base
    return isinstance(getattr(base, "obj", base), mmap.mmap)
