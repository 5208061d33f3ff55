"""Pure-Python reference parsers: the fuzz oracle for fastndcg.io's readers.

Written from the readers' documentation (docs/files-and-cli.md, the
docstrings in fastndcg/io/_trec.py and _svmlight.py), line by line and without numpy or any
compiled code, so that a disagreement with the compiled parsers
(fastndcg/io/_parse.pyx) is a finding in one of the two. Each function takes the
file's *decompressed* bytes and returns either the expected result or a
:class:`Reject` naming the line and the kind of error the reader must raise.

Numbers follow the C locale's ``strtod`` grammar (decimal or hexadecimal,
the whole token, finite) and a plain decimal grammar for integers (int64,
without -2**63), as the readers document.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

WS = b" \t\r\x0b\x0c"          # whitespace inside a line ("\n" ends it)
INT64_MAX = (1 << 63) - 1

_DEC = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX = re.compile(rb"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?")
_INT = re.compile(rb"[+-]?[0-9]+")
_SPLIT = re.compile(b"[" + re.escape(WS) + b"]+")


@dataclass
class Reject:
    """The reader must raise ValueError for ``path:line:`` with ``kind`` (a
    key of :data:`MESSAGES`) in the message."""

    kind: str
    line: int
    path_index: int = 0        # which input file (0: the main one)
    detail: str = ""


#: A substring the reader's message must contain for each kind of error.
MESSAGES = {
    "BAD_LABEL": "the label (first field) is not a finite number",
    "BAD_QID": "bad qid",
    "QID_MIXED": "some lines have qid",
    "BAD_FEATURE": "bad feature",
    "MISSING_DOCID": "no doc id",
    "NUL_BYTE": "NUL byte",
    "BAD_REL": "the relevance (4th field) is not an integer",
    "BAD_SCORE": "the score (5th field) is not a finite number",
    "BAD_NUMBER": "not a finite number",
    "EMPTY_LINE": "empty line",
    "BAD_INTEGER": "not an integer",
    "MISSING_FIELDS": "expected",
    "MISSING_COLUMN": "has no field number",
    "TOO_MANY_FIELDS": "several fields",
    "TOO_MANY_TREC": "got more",
    "QID_UNSORTED": "qids must be sorted",
    "QID_AGAIN": "appears again",
    "NEGATIVE_SIZE": "a query size must be >= 0",
    "SIZES_OVERFLOW": "more than 2**63 - 1",
    "GROUP_SHORT": "beyond the",
    "GROUP_LONG": "the group sizes reach",
    "GROUP_DISAGREE": "disagree",
    "GROUP_AND_ANY": "cannot be combined with qid_order='any'",
    "PRED_SHORT": "the prediction file ends after",
    "PRED_LONG": "the prediction file has",
    "EMPTY_TREC": "no ",
    "DUPLICATE": "duplicate docno",
    "MISSING_TOPICS": "judged topic(s) have no results",
    "DECOMPRESS": "cannot decompress",
    "NO_QID": "no qid:",
    "QID_AND_GROUP": "not both",
}


def parse_double(tok: bytes) -> Optional[float]:
    """The whole token as a finite double (C strtod grammar), else None."""
    try:
        if _DEC.fullmatch(tok):
            v = float(tok)
        elif _HEX.fullmatch(tok):
            v = float.fromhex(tok.decode("ascii"))
        else:
            return None
    except OverflowError:
        return None
    return v if math.isfinite(v) else None


def parse_int(tok: bytes) -> Optional[int]:
    """The whole token as a decimal integer in [-(2**63 - 1), 2**63 - 1], else None."""
    if not _INT.fullmatch(tok):
        return None
    v = int(tok)
    return v if -INT64_MAX <= v <= INT64_MAX else None


def split_lines(data: bytes) -> List[bytes]:
    """Lines without their "\\n"; a missing final newline is implied; a UTF-8
    byte-order mark at the start is not part of the first line (the readers skip it)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data:
        return []
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines


def n_lines(data: bytes) -> int:
    return len(split_lines(data))


def tokens(s: bytes) -> List[bytes]:
    return [t for t in _SPLIT.split(s) if t]


def _upto(s: bytes, stop: bytes) -> bytes:
    """The prefix of s before the first whitespace or any byte of stop."""
    m = re.match(b"[^" + re.escape(WS + stop) + b"]*", s)
    return m.group(0)


# ----------------------------------------------------------------------------- SVMlight


@dataclass
class Svm:
    labels: List[float] = field(default_factory=list)
    qids: Optional[List[int]] = None
    lines: List[int] = field(default_factory=list)
    docids: Optional[List[bytes]] = None
    fdata: List[float] = field(default_factory=list)
    findices: List[int] = field(default_factory=list)
    findptr: List[int] = field(default_factory=lambda: [0])
    offsets: Optional[List[int]] = None
    order: Optional[List[int]] = None
    query_ids: Optional[List[int]] = None


def _find_docid(comment: bytes) -> Optional[bytes]:
    i = comment.find(b"docid")
    if i >= 0:
        t = comment[i + 5:].lstrip(WS)
        if t[:1] in (b"=", b":"):
            t = t[1:].lstrip(WS)
        return _upto(t, b"") if t else None
    t = comment.lstrip(WS)
    return _upto(t, b"") if t else None


def svmlight_rows(data: bytes, docids: bool, features: bool, qid_mode: Optional[bool] = None):
    """Parse the rows: an :class:`Svm` (offsets not set) or a Reject.
    ``qid_mode``: whether earlier rows had qids (None: no row yet)."""
    out = Svm(docids=[] if docids else None)
    qids: List[int] = []
    for ln, raw in enumerate(split_lines(data), 1):
        s = raw.lstrip(WS)
        if not s or s[:1] == b"#":
            continue
        if b"\x00" in raw:              # one NUL rule for every scanner: anywhere in a data line
            return Reject("NUL_BYTE", ln)
        tok = _upto(s, b"#")
        label = parse_double(tok)
        if label is None:
            return Reject("BAD_LABEL", ln)
        rest = s[len(tok):].lstrip(WS)
        has_qid = rest.startswith(b"qid:")
        if has_qid:
            qtok = _upto(rest[4:], b"#")
            q = parse_int(qtok)
            if q is None:
                return Reject("BAD_QID", ln)
            rest = rest[4 + len(qtok):].lstrip(WS)
        if qid_mode is None:
            qid_mode = has_qid
        elif qid_mode != has_qid:
            return Reject("QID_MIXED", ln)
        body, hash_, comment = rest.partition(b"#")
        if features:
            for t in tokens(body):
                k, colon, v = t.partition(b":")
                idx = parse_int(k) if colon else None
                val = parse_double(v) if colon else None
                if idx is None or idx < 0 or val is None:
                    return Reject("BAD_FEATURE", ln)
                out.findices.append(idx)
                out.fdata.append(val)
            out.findptr.append(len(out.fdata))
        if docids:
            d = _find_docid(comment) if hash_ else None
            if d is None:
                return Reject("MISSING_DOCID", ln)
            out.docids.append(d)
        out.labels.append(label)
        out.lines.append(ln)
        if has_qid:
            qids.append(q)
    if qid_mode:
        out.qids = qids
    return out


def _blocks(qids: List[int]) -> List[Tuple[int, int]]:
    """(first row, qid) of each maximal run of equal qids."""
    return [(i, q) for i, q in enumerate(qids) if i == 0 or qids[i - 1] != q]


def first_reappearing_block(qids: List[int]):
    """(row, qid, first row of that qid) of the first qid run whose qid had
    a run before, or None."""
    first: Dict[int, int] = {}
    for row, q in _blocks(qids):
        if q in first:
            return row, q, first[q]
        first[q] = row
    return None


def group_sizes(data: bytes):
    """A .query/.group file: sizes, or a Reject."""
    sizes = numbers(data, None, True)
    if isinstance(sizes, Reject):
        return sizes
    total = 0
    for i, v in enumerate(sizes):
        if v < 0:
            return Reject("NEGATIVE_SIZE", i + 1)
        total += v
        if total > INT64_MAX:
            return Reject("SIZES_OVERFLOW", i + 1)
    return sizes


def read_svmlight(data: bytes, docids: bool, features: bool, qid_order: str,
                  group: Optional[bytes] = None):
    """Expected :func:`fastndcg.io.read_svmlight` (group: the bytes of a
    group file, path index 1 in a Reject)."""
    out = svmlight_rows(data, docids, features)
    if isinstance(out, Reject):
        return out
    n = len(out.labels)
    regroup = False
    if out.qids is not None:
        blocks = _blocks(out.qids)
        if qid_order == "sorted":
            for (_, a), (row, b) in zip(blocks, blocks[1:]):
                if b < a:
                    return Reject("QID_UNSORTED", out.lines[row])
        again = first_reappearing_block(out.qids)
        if again is not None:
            if qid_order != "any":
                return Reject("QID_AGAIN", out.lines[again[0]])
            regroup = True
            rows: Dict[int, List[int]] = {}
            for i, q in enumerate(out.qids):
                rows.setdefault(q, []).append(i)
            out.order = [i for r in rows.values() for i in r]
            out.query_ids = list(rows)
            out.offsets = [0]
            for r in rows.values():
                out.offsets.append(out.offsets[-1] + len(r))
        else:
            out.query_ids = [q for _, q in blocks]
            out.offsets = [row for row, _ in blocks] + [n]
        if n == 0:
            out.offsets, out.query_ids = [0], []
    if group is not None:
        if regroup:
            return Reject("GROUP_AND_ANY", out.lines[again[0]])
        sizes = group_sizes(group)
        if isinstance(sizes, Reject):
            sizes.path_index = 1
            return sizes
        offs = [0]
        for i, v in enumerate(sizes):
            offs.append(offs[-1] + v)
            if offs[-1] > n:
                return Reject("GROUP_LONG", i + 1, 1)
        if offs[-1] < n:
            return Reject("GROUP_SHORT", out.lines[offs[-1]])
        if out.offsets is not None and out.offsets != offs:
            diff = set(out.offsets) ^ set(offs)
            if not diff:         # the group file has empty queries; qids cannot
                return Reject("GROUP_DISAGREE", sizes.index(0) + 1, 1)
            row = min(diff)
            return Reject("GROUP_DISAGREE", out.lines[row] if row < n else out.lines[-1])
        out.offsets = offs
        if out.query_ids is None:
            out.query_ids = list(range(len(sizes)))
    return out


# ----------------------------------------------------------------------------- numbers


def numbers(data: bytes, column: Optional[int], integer: bool):
    """One number per line (predictions, group files): a list or a Reject."""
    out = []
    for ln, raw in enumerate(split_lines(data), 1):
        t = tokens(raw)
        if not t:
            return Reject("EMPTY_LINE", ln)
        if b"\x00" in raw:
            return Reject("NUL_BYTE", ln)
        if column is None:
            if len(t) > 1:
                return Reject("TOO_MANY_FIELDS", ln)
            tok = t[0]
        else:
            if len(t) <= column:
                return Reject("MISSING_COLUMN", ln)
            tok = t[column]
        v = parse_int(tok) if integer else parse_double(tok)
        if v is None:
            return Reject("BAD_INTEGER" if integer else "BAD_NUMBER", ln)
        out.append(v)
    return out


def read_predictions(data: bytes, n: Optional[int], column: Optional[int]):
    out = numbers(data, column, False)
    if isinstance(out, Reject) or n is None or len(out) == n:
        return out
    if len(out) < n:
        return Reject("PRED_SHORT", len(out) + 1)
    return Reject("PRED_LONG", n + 1)


# ----------------------------------------------------------------------------- TREC


@dataclass
class Trec:
    """Rows in table order: topics bytewise, docnos bytewise within a topic."""

    topics: List[bytes]
    offsets: List[int]
    docnos: List[bytes]
    values: list                 # relevance (int) or score (float)
    lines: List[int]
    file_row: List[int]
    tag: bytes = b""


def trec_rows(data: bytes, is_run: bool):
    """File-order rows (topic, docno, value, line) and the last tag, or a Reject."""
    rows = []
    tag = b""
    for ln, raw in enumerate(split_lines(data), 1):
        s = raw.lstrip(WS)
        if not s or s[:1] == b"#":
            continue
        if b"\x00" in raw:
            return Reject("NUL_BYTE", ln)
        t = tokens(s)
        need = 6 if is_run else 4
        if len(t) < need:
            return Reject("MISSING_FIELDS", ln)
        if not is_run and len(t) > need:
            return Reject("TOO_MANY_TREC", ln)
        if is_run:
            v = parse_double(t[4])
            if v is None:
                return Reject("BAD_SCORE", ln)
            tag = t[5]
        else:
            v = parse_int(t[3])
            if v is None:
                return Reject("BAD_REL", ln)
        rows.append((t[0], t[2], v, ln))
    return rows, tag


def table(rows, tag: bytes, lines_in_file: int):
    """Sort file-order rows into a Trec table, or a Reject (empty, duplicate)."""
    if not rows:
        return Reject("EMPTY_TREC", lines_in_file + 1)
    order = sorted(range(len(rows)), key=lambda i: (rows[i][0], rows[i][1], i))
    for a, b in zip(order, order[1:]):
        if rows[a][:2] == rows[b][:2]:
            return Reject("DUPLICATE", rows[b][3], detail=f"also on line {rows[a][3]}")
    topics = sorted({r[0] for r in rows})
    offsets = [0]
    for t in topics:
        offsets.append(offsets[-1] + sum(1 for r in rows if r[0] == t))
    return Trec(topics, offsets, [rows[i][1] for i in order], [rows[i][2] for i in order],
                [rows[i][3] for i in order], order, tag)


def read_trec(data: bytes, is_run: bool):
    r = trec_rows(data, is_run)
    if isinstance(r, Reject):
        return r
    return table(r[0], r[1], n_lines(data))


def reappearing_topic_lines(rows) -> List[int]:
    """Lines where a topic comes back after rows of another topic."""
    seen = set()
    out = []
    prev = None
    for topic, _, _, ln in rows:
        if topic != prev and topic in seen:
            out.append(ln)
        seen.add(topic)
        prev = topic
    return out


def duplicate_lines(rows) -> List[int]:
    """Lines whose (topic, docno) appeared on an earlier line."""
    seen = set()
    out = []
    for topic, doc, _, ln in rows:
        if (topic, doc) in seen:
            out.append(ln)
        seen.add((topic, doc))
    return out


@dataclass
class Aligned:
    scores: List[float]
    labels: List[int]
    offsets: List[int]
    docnos: List[bytes]              # to check the tie key's order
    ideal_labels: List[int]
    ideal_offsets: List[int]
    qids: List[bytes]
    missing: List[bytes]
    ignored: List[bytes]


def align(qrels: Trec, run: Trec, missing: str, max_docs: Optional[int], float32: bool):
    """Expected :func:`fastndcg.io.align_run` (a Reject on path index 0 = qrels)."""
    import struct

    judged = {}
    for t, a, b in zip(qrels.topics, qrels.offsets, qrels.offsets[1:]):
        judged[t] = {qrels.docnos[i]: qrels.values[i] for i in range(a, b)}
    run_topics = set(run.topics)
    missing_t = [t for t in qrels.topics if t not in run_topics]
    ignored = [t for t in run.topics if t not in judged]
    if missing_t and missing == "error":
        t0 = missing_t[0]
        i = qrels.topics.index(t0)
        return Reject("MISSING_TOPICS", min(qrels.lines[qrels.offsets[i]:qrels.offsets[i + 1]]))
    evaluated = [t for t in qrels.topics if missing != "skip" or t in run_topics]
    out = Aligned([], [], [0], [], [], [0], evaluated, missing_t, ignored)

    def f32(x):
        return struct.unpack("f", struct.pack("f", x))[0]

    for t in evaluated:
        docs = []
        if t in run_topics:
            i = run.topics.index(t)
            idx = sorted(range(run.offsets[i], run.offsets[i + 1]), key=lambda j: run.file_row[j])
            docs = [(run.docnos[j], run.values[j]) for j in idx]
        if max_docs is not None:
            key = (lambda d: (f32(d[1]) if float32 else d[1], d[0]))
            top = sorted(range(len(docs)), key=lambda j: key(docs[j]), reverse=True)[:max_docs]
            keep = set(top)
            docs = [d for j, d in enumerate(docs) if j in keep]
        for doc, score in docs:
            out.scores.append(score)
            out.labels.append(max(judged[t].get(doc, 0), 0))
            out.docnos.append(doc)
        out.offsets.append(len(out.scores))
        out.ideal_labels.extend(max(v, 0) for v in judged[t].values())
        out.ideal_offsets.append(len(out.ideal_labels))
    return out
