"""Fuzz targets for the file parsers (fastndcg.io._parse through fastndcg.io).

One input is ``[target options][file bytes]``; multi-file targets separate
their files with :data:`SEP`. Each target writes the files, calls the public
readers and checks the outcome against the pure-Python oracle in
``spec.py``. Anything else than the expected outcome raises :class:`Finding`:

* an exception other than ValueError, or a ValueError whose message does not
  start with ``path:line:`` (an input path, a line inside the file, or one
  past its end for end-of-file errors);
* a rejection at another line, or of another kind, than the oracle's (the
  streaming readers may stop at any of the defects the oracle lists, since
  they see the file piece by piece);
* an accepted input whose arrays differ from the oracle's (floats bit for
  bit) or break the output invariants (lengths, offsets from 0 to n and
  non-decreasing, permutations, sort orders): no partial or re-aligned output.

The atheris runner (run.py) and the CI test (tests/fuzz/test_fuzz_parsers.py) call
:func:`run_one`; :func:`seed_inputs` builds seed corpora from the shared data
folder (at run time, never committed) and a few hand-made inputs.
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import random
import re
import struct
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

import spec
from spec import Reject

import fastndcg.io as readers
from fastndcg.io import _files, _trec

SEP = b"\n@@@@\n"
BLOCK_SIZES = (_files.DEFAULT_BLOCK_SIZE, 1, 2, 3, 5, 8, 64, 4096)
COMPRESS = (None, "gz", "bz2", "xz")
CHUNK_ROWS = (1, 2, 3, 5, 8, 64, 1 << 20, 1)


class Finding(AssertionError):
    """The parsers broke a documented property on this input."""


# ----------------------------------------------------------------------------- inputs


class Input:
    """Decoded options and files of one fuzz input."""

    def __init__(self, data: bytes, n_files: int):
        head = data[:2].ljust(2, b"\x00")
        self.block_size = BLOCK_SIZES[head[0] & 7]
        self.compress = COMPRESS[(head[0] >> 3) & 3]
        self.general = head[0] >> 5          # 3 free bits for the target
        self.flags = head[1]
        parts = data[2:].split(SEP, n_files - 1)
        self.files = parts + [b""] * (n_files - len(parts))

    def bit(self, i: int) -> bool:
        return bool((self.flags >> i) & 1)

    def field(self, shift: int, width: int) -> int:
        return (self.flags >> shift) & ((1 << width) - 1)


def _compress(kind: Optional[str], data: bytes) -> bytes:
    if kind == "gz":
        return gzip.compress(data, compresslevel=1, mtime=0)
    if kind == "bz2":
        return bz2.compress(data, 1)
    if kind == "xz":
        return lzma.compress(data, preset=0)
    return data


def _decompress(raw: bytes) -> Tuple[bytes, bool]:
    """What the reader sees: (content, complete). Compressed files are
    recognised by their first bytes, as _files.open_binary does; content
    is everything the decompressor gives before an error."""
    if raw[:2] == b"\x1f\x8b":
        stream = gzip.GzipFile(fileobj=io.BytesIO(raw), mode="rb")
    elif raw[:3] == b"BZh":
        stream = bz2.BZ2File(io.BytesIO(raw), mode="rb")
    elif raw[:6] == b"\xfd7zXZ\x00":
        stream = lzma.LZMAFile(io.BytesIO(raw), mode="rb")
    else:
        return raw, True
    out = bytearray()
    try:
        while True:
            got = stream.read(1 << 16)
            if not got:
                return bytes(out), True
            out += got
            if len(out) > (64 << 20):
                raise Finding("decompressed content above 64 MiB; harness limit")
    except Finding:
        raise
    except Exception:
        return bytes(out), False


class Files:
    """The input's files written to disk, with what the readers should see."""

    def __init__(self, tmpdir: str, contents: Sequence[bytes], compress: Optional[str]):
        self.paths: List[str] = []
        self.content: List[bytes] = []
        self.complete: List[bool] = []
        for i, c in enumerate(contents):
            raw = _compress(compress, c)
            path = os.path.join(tmpdir, f"f{i}")
            with open(path, "wb") as fh:
                fh.write(raw)
            seen, ok = _decompress(raw)
            self.paths.append(path)
            self.content.append(seen)
            self.complete.append(ok)

    @property
    def all_complete(self) -> bool:
        return all(self.complete)

    def max_line(self, i: int) -> int:
        """The largest line an error may name: one past the last line."""
        c = self.content[i]
        return c.count(b"\n") + 2


# ----------------------------------------------------------------------------- checks

_LINE = re.compile(r"(\d+): (\S.*)", re.S)


def check_error(exc: BaseException, files: Files, allowed: Optional[Iterable[Reject]]) -> None:
    """exc must be a ValueError ``path:line: message`` with an input path and
    a line inside that file; if ``allowed`` is given, one of those. fastndcg's own
    ValueError subclasses (e.g. NamedArgumentError, whose message names the
    arguments a front end can rename) count; a subclass from elsewhere
    (UnicodeDecodeError, ...) is a finding."""
    if not (type(exc) is ValueError or (isinstance(exc, ValueError)
                                        and type(exc).__module__.startswith("fastndcg."))):
        raise Finding(f"{type(exc).__name__} instead of ValueError: {exc!r}") from exc
    msg = str(exc)
    for i, p in enumerate(files.paths):
        if msg.startswith(p + ":"):
            m = _LINE.fullmatch(msg[len(p) + 1:])
            if m is None:
                raise Finding(f"no line number: {msg!r}") from exc
            line, text = int(m.group(1)), m.group(2)
            if not 1 <= line <= files.max_line(i):
                raise Finding(f"line {line} outside the file f{i} "
                              f"({files.max_line(i) - 2} lines): {msg!r}") from exc
            if not files.complete[i]:
                return            # a broken compressed stream: any line read so far
            if allowed is None:
                return
            allowed = list(allowed)
            for r in allowed:
                if r.path_index == i and r.line == line and spec.MESSAGES[r.kind] in text \
                        and r.detail in text:
                    return
            raise Finding(f"unexpected rejection {msg!r}; the oracle expects one of "
                          f"{[(f'f{r.path_index}', r.line, r.kind) for r in allowed]}") from exc
    raise Finding(f"message does not start with an input path and a line: {msg!r}") from exc


def expect_reject(fn: Callable, files: Files, allowed: Iterable[Reject]) -> None:
    try:
        fn()
    except Exception as exc:        # noqa: BLE001 - every exception is checked
        check_error(exc, files, allowed)
        return
    raise Finding(f"accepted; the oracle expects a rejection: {list(allowed)}")


def call(fn: Callable, files: Files):
    """fn() on input the oracle accepts: it must not raise."""
    try:
        return fn()
    except Exception as exc:        # noqa: BLE001
        raise Finding(f"rejected an input the oracle accepts: {type(exc).__name__}: {exc}") from exc


def _bits(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).view(np.int64)


def same_floats(name: str, got, want) -> None:
    got = np.asarray(got)
    if got.dtype != np.float64:
        raise Finding(f"{name}: dtype {got.dtype}, expected float64")
    if got.shape != (len(want),) or not np.array_equal(_bits(got), _bits(want)):
        raise Finding(f"{name}: {got.tolist()[:20]} != {list(want)[:20]}")


def same_ints(name: str, got, want, dtype=np.int64) -> None:
    got = np.asarray(got)
    if got.dtype != dtype:
        raise Finding(f"{name}: dtype {got.dtype}, expected {np.dtype(dtype)}")
    if got.shape != (len(want),) or got.tolist() != list(want):
        raise Finding(f"{name}: {got.tolist()[:20]} != {list(want)[:20]}")


def same(name: str, got, want) -> None:
    if got != want:
        raise Finding(f"{name}: {got!r:.300} != {want!r:.300}")


def check_offsets(name: str, offsets, n: int) -> None:
    o = np.asarray(offsets)
    if o.dtype != np.int64 or o.ndim != 1 or o.size < 1 or o[0] != 0 or o[-1] != n \
            or np.any(np.diff(o) < 0):
        raise Finding(f"{name}: bad offsets {o.tolist()[:20]} for {n} rows")


def check_permutation(name: str, order, n: int) -> None:
    o = np.asarray(order)
    if o.shape != (n,) or not np.array_equal(np.sort(o), np.arange(n)):
        raise Finding(f"{name}: not a permutation of {n} rows")


def _text(b: bytes) -> str:
    return b.decode("utf-8", "surrogateescape")


# ----------------------------------------------------------------------------- SVMlight


def _check_svmlight(d: readers.SvmlightData, want: spec.Svm, docids: bool, features: bool) -> None:
    n = len(want.labels)
    same_floats("labels", d.labels, want.labels)
    same_ints("lines", d.lines, want.lines)
    if want.qids is None:
        same("qid", d.qid, None)
    else:
        same_ints("qid", d.qid, want.qids)
    if want.offsets is None:
        same("offsets", d.offsets, None)
    else:
        check_offsets("offsets", d.offsets, n)
        same_ints("offsets", d.offsets, want.offsets)
        same_ints("query_ids", d.query_ids, want.query_ids)
    if want.order is None:
        same("order", d.order, None)
    else:
        check_permutation("order", d.order, n)
        same_ints("order", d.order, want.order)
    if docids:
        same("docids", list(d.docids), [_text(x) for x in want.docids])
    else:
        same("docids", d.docids, None)
    if features:
        data, indices, indptr, n_features = d.features
        same_floats("feature values", data, want.fdata)
        same_ints("feature indices", indices, want.findices)
        check_offsets("indptr", indptr, len(want.fdata))
        same_ints("indptr", indptr, want.findptr)
        same("n_features", n_features, max(want.findices, default=-1) + 1)
    else:
        same("features", d.features, None)


def _iter_svmlight_allowed(data: bytes, docids: bool, group: Optional[bytes],
                           preds: Optional[bytes], column: Optional[int]) -> Tuple[list, object]:
    """Rejections iter_svmlight may give, and the expected result if none.

    Streaming sees the files piece by piece: it stops at the first defect it
    meets, which may be in either file."""
    rows = spec.svmlight_rows(data, docids, False)
    allowed: List[Reject] = []
    n_ok = None
    if isinstance(rows, Reject):
        allowed.append(rows)
        partial = spec.svmlight_rows(b"\n".join(spec.split_lines(data)[: rows.line - 1]), docids, False)
        good = partial
    else:
        good = rows
    n_ok = len(good.labels)
    want = None
    sizes = None
    if group is not None:
        sizes = spec.group_sizes(group)
        if isinstance(sizes, Reject):
            sizes.path_index = 1
            return [sizes], None   # read before the data file
    if good.qids is not None and sizes is None:
        again = spec.first_reappearing_block(good.qids)
        if again is not None:
            allowed.append(Reject("QID_AGAIN", good.lines[again[0]]))
    elif n_ok and sizes is None:
        allowed.append(Reject("NO_QID", good.lines[0]))
    elif n_ok and good.qids is not None:
        allowed.append(Reject("QID_AND_GROUP", good.lines[0]))
    if sizes is not None and good.qids is None:
        total = 0
        for i, v in enumerate(sizes):
            total += v
            if total > n_ok and not isinstance(rows, Reject):
                allowed.append(Reject("GROUP_LONG", i + 1, 1))
                break
        else:
            if total < n_ok:
                allowed.append(Reject("GROUP_SHORT", good.lines[total]))
    pi = 2 if group is not None else 1
    if preds is not None:
        nums = spec.numbers(preds, column, False)
        if isinstance(nums, Reject):
            nums.path_index = pi
            allowed.append(nums)
            nums = spec.numbers(b"\n".join(spec.split_lines(preds)[: nums.line - 1]), column, False)
        if len(nums) < n_ok:
            allowed.append(Reject("PRED_SHORT", len(nums) + 1, pi))
        elif len(nums) > n_ok and not isinstance(rows, Reject):
            allowed.append(Reject("PRED_LONG", n_ok + 1, pi))
    if not allowed:
        if sizes is not None:
            offsets = [0]
            for v in sizes:
                offsets.append(offsets[-1] + v)
            good.offsets, good.query_ids = offsets, list(range(len(sizes)))
        elif good.qids is not None:
            blocks = spec._blocks(good.qids)
            good.offsets = [r for r, _ in blocks] + [n_ok]
            good.query_ids = [q for _, q in blocks]
        else:
            good.offsets, good.query_ids = [0], []
        want = (good, nums if preds is not None else None)
    return allowed, want


def _check_iter_svmlight(chunks: List[readers.SvmlightChunk], want, docids: bool) -> None:
    good, scores = want
    labels = np.concatenate([c.labels for c in chunks]) if chunks else np.empty(0)
    same_floats("iter labels", labels, good.labels)
    offs = [0]
    ids: List[int] = []
    row = 0
    for c in chunks:
        check_offsets("chunk offsets", c.offsets, c.n_rows)
        same("first_row", c.first_row, row)
        row += c.n_rows
        offs.extend((np.asarray(c.offsets[1:]) + c.first_row).tolist())
        ids.extend(np.asarray(c.query_ids).tolist())
        if np.asarray(c.query_ids).shape != (c.offsets.shape[0] - 1,):
            raise Finding("query_ids and offsets disagree in a chunk")
    same("iter offsets", offs, good.offsets)
    same("iter query_ids", ids, good.query_ids)
    if docids:
        got = [x for c in chunks for x in c.docids.tolist()]
        same("iter docids", got, [_text(x) for x in good.docids])
    if scores is not None:
        got = np.concatenate([c.scores for c in chunks]) if chunks else np.empty(0)
        same_floats("iter scores", got, scores)


def target_svmlight(data: bytes, tmpdir: str) -> None:
    """read_svmlight (docids, features, qid_order) and iter_svmlight on one file."""
    inp = Input(data, 1)
    docids, features = inp.bit(0), inp.bit(1)
    qid_order = ("contiguous", "sorted", "any", "contiguous")[inp.field(2, 2)]
    chunk_rows = CHUNK_ROWS[inp.field(4, 3)]
    files = Files(tmpdir, inp.files, inp.compress)
    path = files.paths[0]
    run = lambda: readers.read_svmlight(path, docids=docids, features=features, qid_order=qid_order,  # noqa: E731
                                        block_size=inp.block_size)
    if not files.all_complete:
        expect_or_ok(run, files)
        return
    want = spec.read_svmlight(files.content[0], docids, features, qid_order)
    if isinstance(want, Reject):
        expect_reject(run, files, [want])
    else:
        _check_svmlight(call(run, files), want, docids, features)
    allowed, iwant = _iter_svmlight_allowed(files.content[0], docids, None, None, None)
    it = lambda: list(readers.iter_svmlight(path, docids=docids, chunk_rows=chunk_rows,  # noqa: E731
                                            block_size=inp.block_size))
    if allowed:
        expect_reject(it, files, allowed)
    else:
        _check_iter_svmlight(call(it, files), iwant, docids)


def target_svmlight_group(data: bytes, tmpdir: str) -> None:
    """read_svmlight and iter_svmlight with a .query/.group file."""
    inp = Input(data, 2)
    docids = inp.bit(0)
    qid_order = ("contiguous", "sorted", "any", "contiguous")[inp.field(2, 2)]
    chunk_rows = CHUNK_ROWS[inp.field(4, 3)]
    files = Files(tmpdir, inp.files, inp.compress)
    path, gpath = files.paths
    run = lambda: readers.read_svmlight(path, group=gpath, docids=docids, qid_order=qid_order,  # noqa: E731
                                        block_size=inp.block_size)
    it = lambda: list(readers.iter_svmlight(path, group=gpath, docids=docids, chunk_rows=chunk_rows,  # noqa: E731
                                            block_size=inp.block_size))
    if not files.all_complete:
        expect_or_ok(run, files)
        expect_or_ok(it, files)
        return
    want = spec.read_svmlight(files.content[0], docids, False, qid_order, group=files.content[1])
    if isinstance(want, Reject):
        expect_reject(run, files, [want])
    else:
        _check_svmlight(call(run, files), want, docids, False)
    allowed, iwant = _iter_svmlight_allowed(files.content[0], docids, files.content[1], None, None)
    if allowed:
        expect_reject(it, files, allowed)
    else:
        _check_iter_svmlight(call(it, files), iwant, docids)


def target_svmlight_predictions(data: bytes, tmpdir: str) -> None:
    """iter_svmlight with a prediction file (and read_predictions with n)."""
    inp = Input(data, 2)
    docids = inp.bit(0)
    column = (None, 0, 1, 2)[inp.field(2, 2)]
    chunk_rows = CHUNK_ROWS[inp.field(4, 3)]
    files = Files(tmpdir, inp.files, inp.compress)
    path, ppath = files.paths
    it = lambda: list(readers.iter_svmlight(path, ppath, docids=docids, prediction_column=column,  # noqa: E731
                                            chunk_rows=chunk_rows, block_size=inp.block_size))
    if not files.all_complete:
        expect_or_ok(it, files)
        return
    allowed, iwant = _iter_svmlight_allowed(files.content[0], docids, None, files.content[1], column)
    if allowed:
        expect_reject(it, files, allowed)
    else:
        _check_iter_svmlight(call(it, files), iwant, docids)


def expect_or_ok(fn: Callable, files: Files) -> None:
    """A broken compressed stream: the readers may stop with a clear error
    anywhere up to the break (or accept what came before a harmless break)."""
    try:
        fn()
    except Exception as exc:        # noqa: BLE001
        check_error(exc, files, None)


# ----------------------------------------------------------------------------- numbers


def target_predictions(data: bytes, tmpdir: str) -> None:
    """read_predictions with column and n."""
    inp = Input(data, 1)
    column = (None, 0, 1, 2)[inp.field(0, 2)]
    files = Files(tmpdir, inp.files, inp.compress)
    path = files.paths[0]
    if not files.all_complete:
        expect_or_ok(lambda: readers.read_predictions(path, column=column, block_size=inp.block_size), files)
        return
    ok = spec.numbers(files.content[0], column, False)
    count = 0 if isinstance(ok, Reject) else len(ok)
    n = (None, count, count + 1, max(count - 1, 0), 0, count + 7, None, None)[inp.field(2, 3)]
    want = spec.read_predictions(files.content[0], n, column)
    run = lambda: readers.read_predictions(path, n, column=column, block_size=inp.block_size)  # noqa: E731
    if isinstance(want, Reject):
        expect_reject(run, files, [want])
    else:
        same_floats("predictions", call(run, files), want)


def target_group(data: bytes, tmpdir: str) -> None:
    """read_group_file."""
    inp = Input(data, 1)
    files = Files(tmpdir, inp.files, inp.compress)
    path = files.paths[0]
    run = lambda: readers.read_group_file(path, block_size=inp.block_size)  # noqa: E731
    if not files.all_complete:
        expect_or_ok(run, files)
        return
    want = spec.group_sizes(files.content[0])
    if isinstance(want, Reject):
        expect_reject(run, files, [want])
    else:
        same_ints("group sizes", call(run, files), want)


# ----------------------------------------------------------------------------- TREC


def _check_table(t: _trec.TrecTable, want: spec.Trec, is_run: bool) -> None:
    n = len(want.docnos)
    same("topics", t.topics.tolist(), [_text(x) for x in want.topics])
    check_offsets("offsets", t.offsets, n)
    same_ints("offsets", t.offsets, want.offsets)
    if t.doc_start.shape != (n,) or t.doc_len.shape != (n,) or t.lines.shape != (n,):
        raise Finding("row arrays of different lengths")
    got_docs = [bytes(t.pool[s:s + ln]) for s, ln in zip(t.doc_start.tolist(), t.doc_len.tolist())]
    same("docnos", got_docs, want.docnos)
    same("docnos()", t.docnos().tolist(), [_text(x) for x in want.docnos])
    same_ints("lines", t.lines, want.lines)
    if is_run:
        same_floats("scores", t.scores, want.values)
        same_ints("file_row", t.file_row, want.file_row)
        same("name", t.name, want.tag.decode("utf-8", "replace"))
    else:
        same_ints("relevance", t.relevance, want.values)


def _trec_allowed_streaming(content: bytes) -> Tuple[list, object]:
    """Rejections iter_run may give (a topic that comes back, a duplicate, a
    malformed line; pieces see the file in parts), and the table if none."""
    r = spec.trec_rows(content, True)
    allowed: List[Reject] = []
    if isinstance(r, Reject):
        allowed.append(r)
        rows, _ = spec.trec_rows(b"\n".join(spec.split_lines(content)[: r.line - 1]), True)
    else:
        rows, tag = r
    allowed += [Reject("QID_AGAIN", ln) for ln in spec.reappearing_topic_lines(rows)]
    allowed += [Reject("DUPLICATE", ln) for ln in spec.duplicate_lines(rows)]
    if not rows and not isinstance(r, Reject):
        allowed.append(Reject("EMPTY_TREC", spec.n_lines(content) + 1))
    if allowed:
        return allowed, None
    return [], spec.table(rows, tag, spec.n_lines(content))


def target_trec(data: bytes, tmpdir: str, is_run: bool) -> None:
    inp = Input(data, 1)
    chunk_rows = CHUNK_ROWS[inp.field(0, 3)]
    files = Files(tmpdir, inp.files, inp.compress)
    path = files.paths[0]
    reader = readers.read_run if is_run else readers.read_qrels
    threads = 2 if inp.flags >> 3 == 31 else 1    # 1 input in 32: OpenMP start-up costs ms on a busy machine
    run = lambda: reader(path, block_size=inp.block_size, n_threads=threads)  # noqa: E731
    it = lambda: list(_trec.iter_run(path, chunk_rows=chunk_rows, block_size=inp.block_size,  # noqa: E731
                                       n_threads=threads))
    if not files.all_complete:
        expect_or_ok(run, files)
        if is_run:
            expect_or_ok(it, files)
        return
    want = spec.read_trec(files.content[0], is_run)
    if isinstance(want, Reject):
        expect_reject(run, files, [want])
    else:
        _check_table(call(run, files), want, is_run)
    if not is_run:
        return
    allowed, whole = _trec_allowed_streaming(files.content[0])
    if allowed:
        expect_reject(it, files, allowed)
        return
    pieces = call(it, files)
    seen = set()
    row0 = 0
    for piece in pieces:
        names = piece.topics.tolist()
        if names != sorted(names, key=lambda s: s.encode("utf-8", "surrogateescape")) or seen & set(names):
            raise Finding(f"iter_run pieces: topics {names} (seen {sorted(seen)[:5]})")
        seen.update(names)
        check_offsets("piece offsets", piece.offsets, len(piece))
        fr = np.asarray(piece.file_row)
        if fr.size and (fr.min() != row0 or fr.max() != row0 + len(piece) - 1):
            raise Finding("iter_run: file_row of a piece does not cover its rows")
        row0 += len(piece)
        for ti, name in enumerate(names):
            k = [_text(x) for x in whole.topics].index(name)
            a, b = whole.offsets[k], whole.offsets[k + 1]
            pa, pb = int(piece.offsets[ti]), int(piece.offsets[ti + 1])
            same_floats("piece scores", piece.scores[pa:pb], whole.values[a:b])
            same_ints("piece lines", piece.lines[pa:pb], whole.lines[a:b])
            same_ints("piece file_row", piece.file_row[pa:pb], whole.file_row[a:b])
    same("iter_run topics", sorted(seen), sorted(_text(x) for x in whole.topics))
    same("iter_run rows", row0, len(whole.docnos))


def target_qrels(data: bytes, tmpdir: str) -> None:
    """read_qrels."""
    target_trec(data, tmpdir, False)


def target_run(data: bytes, tmpdir: str) -> None:
    """read_run and iter_run."""
    target_trec(data, tmpdir, True)


def target_align(data: bytes, tmpdir: str) -> None:
    """align_run on qrels + run files (missing, max_docs, float32_scores)."""
    inp = Input(data, 2)
    missing = ("error", "zero", "skip", "zero")[inp.field(0, 2)]
    max_docs = (None, 1, 2, 3, 5, 10, None, None)[inp.field(2, 3)]
    float32 = inp.bit(5)
    files = Files(tmpdir, inp.files, inp.compress)
    qpath, rpath = files.paths
    run = lambda: readers.align_run(rpath, qpath, missing=missing, max_docs=max_docs,  # noqa: E731
                                    float32_scores=float32, n_threads=2 if inp.flags >> 6 == 3 and inp.general == 7 else 1)
    if not files.all_complete:
        expect_or_ok(run, files)
        return
    q = spec.read_trec(files.content[0], False)
    r = spec.read_trec(files.content[1], True)
    if isinstance(r, Reject):
        r.path_index = 1
        expect_reject(run, files, [r])
        return
    if isinstance(q, Reject):
        expect_reject(run, files, [q])
        return
    want = spec.align(q, r, missing, max_docs, float32)
    if isinstance(want, Reject):
        expect_reject(run, files, [want])
        return
    a = call(run, files)
    n = len(want.scores)
    same_floats("aligned scores", a.scores, want.scores)
    # gain levels in int32 unless a judgment needs 64 bits (AlignedRun.labels)
    level_dtype = np.int64 if any(v > 2 ** 31 - 1 for v in q.values) else np.int32
    same_ints("aligned labels", a.labels, want.labels, level_dtype)
    check_offsets("aligned offsets", a.offsets, n)
    same_ints("aligned offsets", a.offsets, want.offsets)
    same_ints("n_retrieved", a.n_retrieved, np.diff(want.offsets).tolist())
    check_offsets("ideal offsets", a.ideal_offsets, len(want.ideal_labels))
    same_ints("ideal labels", a.ideal_labels, want.ideal_labels)
    same_ints("ideal offsets", a.ideal_offsets, want.ideal_offsets)
    same("qids", a.qids.tolist(), [_text(x) for x in want.qids])
    same("missing", a.missing_qids, [_text(x) for x in want.missing])
    same("ignored", a.ignored_qids, [_text(x) for x in want.ignored])
    tk = np.asarray(a.tie_key)
    if tk.shape != (n,):
        raise Finding("tie_key length")
    with np.errstate(over="ignore"):
        f32 = (np.asarray(want.scores, dtype=np.float64).astype(np.float32).astype(np.float64) + 0.0).tolist()
    for s, e in zip(want.offsets, want.offsets[1:]):
        # the key ranks a topic's rows by (score rounded to float32, docno bytewise): docnos in order
        # within every group of equal scores, float64 or float32 (AlignedRun.tie_key)
        by_key = np.argsort(tk[s:e], kind="stable").tolist()
        by_doc = sorted(range(e - s), key=lambda j: (f32[s + j], want.docnos[s + j]))
        if by_key != by_doc or len(set(tk[s:e].tolist())) != e - s:
            raise Finding("tie_key does not rank (float32 score, docno) within a topic")


# ----------------------------------------------------------------------------- _parse directly


def _exact(a) -> np.ndarray:
    """A fresh array of exactly this many elements (own malloc block, so
    that AddressSanitizer sees one element past the end)."""
    return np.array(a, copy=True)


_KIND_TO_STATUS = {"MISSING_COLUMN": "MISSING_FIELDS", "TOO_MANY_TREC": "TOO_MANY_FIELDS"}


def _status_matches(status: int, err_line: int, want) -> None:
    from fastndcg.io import _parse

    names = {v: k for k, v in _parse.STATUS.items()}
    if isinstance(want, Reject):
        kind = _KIND_TO_STATUS.get(want.kind, want.kind)
        if names.get(status) != kind or err_line != want.line:
            raise Finding(f"_parse status {names.get(status, status)} at line {err_line}; the oracle "
                          f"expects {kind} at line {want.line}")
    elif status != 0:
        raise Finding(f"_parse status {names.get(status, status)} at line {err_line}; the oracle accepts")


def target_parse_direct(data: bytes, tmpdir: str) -> None:
    """The compiled scanners of fastndcg.io._parse called directly on one block,
    with every output sized exactly as the readers' contract says (one entry
    per line, bytes of the block for pools, one per ':' for features), and
    the string-pool helpers (sort, duplicates, join, fixed width) on the
    result: an overrun is an AddressSanitizer report in the ASan build."""
    from fastndcg.io import _parse

    inp = Input(data, 1)
    which = inp.field(0, 2)
    body = inp.files[0]
    if not body.endswith(b"\n"):
        body += b"\n"                     # the scanners' contract: whole lines
    buf = _exact(np.frombuffer(body, dtype=np.uint8))
    rows_max = body.count(b"\n")
    nbytes = len(body)
    line0 = inp.general                    # lines before this block
    I, F, U = np.int64, np.float64, np.uint8
    if which == 0:
        docids, features = inp.bit(2), inp.bit(3)
        mode = (-1, 0, 1, -1)[inp.field(4, 2)]
        labels, qids, lines = np.empty(rows_max, F), np.empty(rows_max, I), np.empty(rows_max, I)
        pool = np.empty(nbytes if docids else 0, U)
        dstart = np.empty(rows_max if docids else 0, I)
        npairs = body.count(b":") if features else 0
        fval, fidx = np.empty(npairs, F), np.empty(npairs, I)
        fptr = np.zeros(rows_max + 1 if features else 0, I)
        into = _parse.SvmlightOutputs(labels, qids, lines, pool, dstart, fval, fidx, fptr)
        status, rows, line, qid_mode, pool_used, nnz, err_line = _parse.parse_svmlight(
            buf, line0, mode, docids, features, into, 0, 0)
        want = spec.svmlight_rows(body, docids, features, None if mode < 0 else bool(mode))
        if isinstance(want, Reject):
            want.line += line0
        _status_matches(status, err_line, want)
        if status:
            return
        n = len(want.labels)
        same("rows", rows, n)
        same("line", line, line0 + spec.n_lines(body))
        same_floats("labels", labels[:n], want.labels)
        same_ints("lines", lines[:n], [x + line0 for x in want.lines])
        if want.qids is not None:
            same_ints("qids", qids[:n], want.qids)
        if n:
            same("qid_mode", qid_mode, 1 if want.qids is not None else 0)
        if docids:
            ends = list(dstart[1:n]) + [pool_used]
            got = [bytes(pool[a:b]) for a, b in zip(dstart[:n].tolist(), ends)]
            same("docids", got, want.docids)
        if features:
            same("nnz", nnz, len(want.fdata))
            same_floats("feature values", fval[:nnz], want.fdata)
            same_ints("feature indices", fidx[:nnz], want.findices)
            same_ints("indptr", fptr[:n + 1], want.findptr)
    elif which == 1:
        column = (-1, 0, 1, 2)[inp.field(2, 2)]
        integer = inp.bit(4)
        out, iout = np.empty(0 if integer else rows_max, F), np.empty(rows_max if integer else 0, I)
        status, count, line, err_line = _parse.parse_numbers(buf, line0, column, integer, out, iout)
        want = spec.numbers(body, None if column < 0 else column, integer)
        if isinstance(want, Reject):
            want.line += line0
        _status_matches(status, err_line, want)
        if status:
            return
        same("count", count, len(want))
        if integer:
            same_ints("integers", iout[:count], want)
        else:
            same_floats("numbers", out[:count], want)
    else:
        is_run = which == 3
        vals = np.empty(rows_max, F if is_run else I)
        lines, dstart = np.empty(rows_max, I), np.empty(rows_max, I)
        pool, tpool = np.empty(nbytes, U), np.empty(nbytes, U)
        seg_row, tstart = np.empty(rows_max, I), np.empty(rows_max, I)
        into = _parse.TrecOutputs(vals if is_run else np.empty(0, F), np.empty(0, I) if is_run else vals,
                                  lines, pool, dstart, seg_row, tpool, tstart)
        res = _parse.parse_trec(buf, line0, is_run, into, 0)
        status, rows, line, pool_used, segs, tpool_used, tag_start, tag_len, err_line = res
        r = spec.trec_rows(body, is_run)
        if isinstance(r, Reject):
            r.line += line0
        _status_matches(status, err_line, r)
        if status:
            return
        file_rows, tag = r
        n = len(file_rows)
        same("rows", rows, n)
        same_ints("lines", lines[:n], [x[3] + line0 for x in file_rows])
        if is_run:
            same_floats("scores", vals[:n], [x[2] for x in file_rows])
            if n:
                same("tag", bytes(buf[tag_start:tag_start + tag_len]), tag)
        else:
            same_ints("relevance", vals[:n], [x[2] for x in file_rows])
        dlen = np.diff(np.append(dstart[:n], pool_used))
        same("docnos", [bytes(pool[a:a + b]) for a, b in zip(dstart[:n].tolist(), dlen.tolist())],
             [x[1] for x in file_rows])
        runs = [i for i in range(n) if i == 0 or file_rows[i][0] != file_rows[i - 1][0]]
        same("segments", seg_row[:segs].tolist(), runs)
        tl = np.diff(np.append(tstart[:segs], tpool_used))
        same("segment topics", [bytes(tpool[a:a + b]) for a, b in zip(tstart[:segs].tolist(), tl.tolist())],
             [file_rows[i][0] for i in runs])
        if not n:
            return
        # string pools: sort docnos within topics, find duplicates, join with itself
        dpool = _exact(pool[:pool_used])
        ds, dl = _exact(dstart[:n]), _exact(dlen.astype(I))
        topics = sorted({x[0] for x in file_rows})
        code = [topics.index(x[0]) for x in file_rows]
        order = _exact(np.argsort(code, kind="stable").astype(I))
        goff = _exact(np.concatenate([[0], np.cumsum(np.bincount(code, minlength=len(topics)))]).astype(I))
        _parse.sort_groups(dpool, ds, dl, order, goff, 1)
        want_order = sorted(range(n), key=lambda i: (code[i], file_rows[i][1], i))
        same("sort_groups", order.tolist(), want_order)
        s2, l2 = _exact(ds[order]), _exact(dl[order])
        dup = _parse.first_duplicate(dpool, s2, l2, goff)
        keys = [(code[i], file_rows[i][1]) for i in want_order]
        want_dup = next((i for i in range(1, n) if keys[i] == keys[i - 1]), -1)
        same("first_duplicate", dup, want_dup)
        if want_dup < 0:
            match = _exact(np.full(n, -7, I))
            pairs = _exact(np.arange(len(topics), dtype=I))
            col = _parse.GroupedStrings(dpool, s2, l2, goff)
            _parse.join_sorted(col, col, pairs, pairs, match, 1)
            same_ints("join_sorted", match, list(range(n)))
        fixed = np.zeros((n, max(int(l2.max()), 1)), U)
        _parse.to_fixed_width(dpool, s2, l2, fixed)
        same("to_fixed_width", [bytes(fixed[i, :l2[i]]) for i in range(n)], [k[1] for k in keys])


# ----------------------------------------------------------------------------- registry

TARGETS: Dict[str, Callable[[bytes, str], None]] = {
    "svmlight": target_svmlight,
    "svmlight_group": target_svmlight_group,
    "svmlight_predictions": target_svmlight_predictions,
    "predictions": target_predictions,
    "group": target_group,
    "qrels": target_qrels,
    "run": target_run,
    "align": target_align,
    "parse_direct": target_parse_direct,
}
NAMES = list(TARGETS)


def run_one(target: str, data: bytes, tmpdir: str) -> None:
    """One execution. ``target="all"``: the first byte picks the target."""
    if target == "all":
        if not data:
            return
        target, data = NAMES[data[0] % len(NAMES)], data[1:]
    TARGETS[target](data, tmpdir)


# ----------------------------------------------------------------------------- seeds

#: Hand-made seeds: (target, options, files). Edge cases the data files lack.
HAND_SEEDS = [
    ("svmlight", b"\x00\x03", [b"1 qid:1 1:0.5 2:-1e-3 # docid = a\n0 qid:1 3:2 #docid:b\r\n# c\n\n2 qid:2 #x y\n"]),
    ("svmlight", b"\x01\x0b", [b"1 qid:5\n0 qid:2\n1 qid:5\n"]),
    ("svmlight", b"\x02\x01", [b"0x1p-3 qid:-7 #docid=\xff\xfe\n1e308 qid:+3 # docid\n"]),
    ("svmlight", b"\x00\x02", [b"1 1:1 2:2\n0 0:0\n3 7:1e-400 8:.5"]),
    ("svmlight_group", b"\x00\x00", [b"1 1:1\n0 1:2\n1 1:1\n", b"2\n0\n1\n0\n"]),
    ("svmlight_group", b"\x03\x00", [b"1 qid:1\n0 qid:1\n1 qid:2\n", b"2\n1\n"]),
    ("svmlight_group", b"\x03\x00", [b"1 qid:1\n0 qid:1\n1 qid:2\n", b"2\n0\n1\n"]),
    ("svmlight_predictions", b"\x00\x04", [b"1 qid:1\n0 qid:1\n1 qid:2\n", b"1 x 0.5\n2 y 0.25\n3 z -1\n"]),
    ("svmlight_predictions", b"\x05\x00", [b"1 qid:1\n0 qid:1\n", b"0.5\n-0\n"]),
    ("predictions", b"\x00\x00", [b"0.5\n-1e-3\r\n  7\n1.7976931348623157e308\n4.9e-324\n"]),
    ("predictions", b"\x00\x02", [b"1\t0\t-0.25\n1\t1\t0.75\n"]),
    ("group", b"\x00\x00", [b"3\n0\n9223372036854775807\n"]),
    ("group", b"\x01\x00", [b"2\n+1\n0\n"]),
    ("qrels", b"\x00\x00", [b"# c\n1 0 a 1\n1 0 b -1\n2 0 a 2\n\n10 0 CR#1 0\n"]),
    ("qrels", b"\x01\x00", [b"1 0 a 1\n2 0 a 1\n1 0 a 0\n"]),
    ("run", b"\x00\x01", [b"q1 Q0 d2 9 1.5 tagA\n\tq1  Q0 d1 1  2 tagB more\nq2 Q0 d1 1 -0 t\n"]),
    ("run", b"\x02\x00", [b"1 Q0 a 1 0.5 t\n2 Q0 a 1 0.5 t\n1 Q0 b 3 0.1 t\n"]),
    ("align", b"\x00\x01", [b"1 0 a 2\n1 0 b 1\n1 0 c -1\n2 0 x 1\n", b"1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n1 Q0 c 3 2 r\n"]),
    ("align", b"\x00\x0c", [b"1 0 a 2\n3 0 b 1\n", b"1 Q0 a 1 3 r\n1 Q0 b 2 3 r\n2 Q0 z 1 1 r\n"]),
    ("parse_direct", b"\x00\x0c", [b"1 qid:1 1:0.5 2:-1e-3 # docid = a\n0 qid:1 3:2 #docid:b\r\n# c\n"]),
    ("parse_direct", b"\x20\x11", [b"0 qid:3\n"]),
    ("parse_direct", b"\x00\x01", [b"0.5\n-1e-3\r\n  7"]),
    ("parse_direct", b"\x40\x15", [b"1 x 3\n2 y -4\n"]),
    ("parse_direct", b"\x00\x02", [b"1 0 b 1\n1 0 a -1\n2 0 a 2\n# c\n"]),
    ("parse_direct", b"\x00\x03", [b"q1 Q0 d2 9 1.5 tagA\nq1 Q0 d1 1 2 tagB x\nq2 Q0 d1 1 -0 t"]),
]

#: Which shared data files seed which target (paths under the data folder).
DATA_SEEDS = {
    "svmlight": ["mq2008/test.txt", "lightgbm-rank/rank.test", "ohsumed-lightgbm/fold1.test"],
    "svmlight_group": [("lightgbm-rank/rank.test", "lightgbm-rank/rank.test.query"),
                       ("ohsumed-lightgbm/fold2.test", "ohsumed-lightgbm/fold2.test.query")],
    "svmlight_predictions": [("mq2008/vali.txt", None)],
    "predictions": ["trec_eval-test/zscores_file", "lightgbm-rank/rank.train.query"],
    "group": ["lightgbm-rank/rank.test.query", "ohsumed-lightgbm/fold1.vali.query"],
    "qrels": ["trec_eval-test/qrels.test", "trec_eval-test/qrels.rel_level", "trec_eval-test/qrels.comment.test",
              "trec_eval-test/qrels.test.with-comments", "ir_measures-fixtures/compat.qrels",
              "trectools-robust03/robust03_qrels.txt"],
    "run": ["trec_eval-test/results.test", "trec_eval-test/results.trunc", "trec_eval-test/results.comment.test",
            "ir_measures-fixtures/compat.run", "trectools-robust03/runs/input.aplrob03a.gz"],
    "parse_direct": ["mq2008/test.txt", "lightgbm-rank/rank.test.query", "trec_eval-test/qrels.test",
                     "trec_eval-test/results.trunc"],
    "align": [("trec_eval-test/qrels.test", "trec_eval-test/results.trunc"),
              ("ir_measures-fixtures/compat.qrels", "ir_measures-fixtures/compat.run"),
              ("ir_measures-fixtures/cwl.qrels", "ir_measures-fixtures/cwl.run")],
}


def _read_data(root: Path, rel: str) -> bytes:
    raw = (root / rel).read_bytes()
    return _decompress(raw)[0]


def _windows(rng: random.Random, lines: List[bytes], n: int, max_lines: int) -> List[List[bytes]]:
    out = []
    for _ in range(n):
        k = rng.randint(1, max_lines)
        a = rng.randrange(max(1, len(lines) - k + 1))
        out.append(lines[a:a + k])
    return out


def _topic_windows(rng: random.Random, lines: List[bytes], n: int, max_lines: int) -> List[List[bytes]]:
    """Windows of whole-topic fragments: a few lines of each of a few topics
    (so that qrels and run windows share topics and docnos)."""
    by_topic: Dict[bytes, List[bytes]] = {}
    for ln in lines:
        t = ln.split()[:1]
        if t:
            by_topic.setdefault(t[0], []).append(ln)
    keys = sorted(by_topic)
    out = []
    for _ in range(n):
        pick = rng.sample(keys, min(len(keys), rng.randint(1, 3)))
        w = []
        for k in sorted(pick):
            w += by_topic[k][: max(1, max_lines // len(pick))]
        out.append(w)
    return out


def seed_inputs(data_root: Optional[Path], target: str, n_per_file: int = 12, max_len: int = 4096,
                rng_seed: int = 0) -> List[bytes]:
    """Seed inputs for ``target`` (or every target, prefixed by the target
    byte, for "all"): windows of the shared data files and the hand seeds,
    each at most ``max_len`` bytes."""
    if target == "all":
        out = []
        for i, name in enumerate(NAMES):
            out += [bytes([i]) + s for s in seed_inputs(data_root, name, n_per_file, max_len - 1, rng_seed)]
        return out
    rng = random.Random(f"{rng_seed}:{target}")
    seeds = [opts + SEP.join(files) for t, opts, files in HAND_SEEDS if t == target]
    if data_root is None:
        return [s[:max_len] for s in seeds]
    budget = max_len - 2 - len(SEP)
    for k, item in enumerate(DATA_SEEDS[target]):
        for _ in range(n_per_file):
            opts = bytes([rng.randrange(256), rng.randrange(256)])
            if target == "parse_direct":          # the scanner that fits the file
                opts = bytes([opts[0], (opts[1] & ~3) | k])
            if target == "align":
                qlines = spec.split_lines(_read_data(data_root, item[0]))
                rlines = spec.split_lines(_read_data(data_root, item[1]))
                topics = sorted({ln.split()[0] for ln in rlines if ln.split()})
                pick = set(rng.sample(topics, min(len(topics), 2)))
                qw = [ln for ln in qlines if ln.split()[:1] and ln.split()[0] in pick][:rng.randint(1, 12)]
                rw = [ln for ln in rlines if ln.split()[:1] and ln.split()[0] in pick][:rng.randint(1, 12)]
                files = [b"\n".join(qw) + b"\n", b"\n".join(rw) + b"\n"]
            elif isinstance(item, tuple):
                lines = spec.split_lines(_read_data(data_root, item[0]))
                w = _windows(rng, lines, 1, 12)[0]
                if item[1] is not None:
                    sizes = [int(x) for x in spec.split_lines(_read_data(data_root, item[1]))]
                    # a group file for the window: sizes that add up to its rows, or not
                    k = len(w)
                    g = []
                    for s in sizes:
                        if k <= 0:
                            break
                        g.append(min(s, k, rng.randint(1, 6)))
                        k -= g[-1]
                    files = [b"\n".join(w) + b"\n", b"".join(b"%d\n" % s for s in g)]
                else:
                    preds = b"".join(repr(rng.uniform(-3, 3)).encode() + b"\n" for _ in w)
                    files = [b"\n".join(w) + b"\n", preds]
            else:
                lines = spec.split_lines(_read_data(data_root, item))
                pick = _topic_windows if target in ("run", "qrels") else _windows
                w = pick(rng, lines, 1, 16)[0]
                files = [b"\n".join(w) + b"\n"]
            total = sum(len(f) for f in files) + len(SEP) * (len(files) - 1)
            if total > budget:          # trim each file to its share, at a line end
                share = budget // len(files) - len(SEP)
                files = [f[:share].rsplit(b"\n", 1)[0] + b"\n" if len(f) > share else f for f in files]
            seeds.append(opts + SEP.join(files))
    return [s[:max_len] for s in seeds]


# ----------------------------------------------------------------------------- pure-Python mutation


_TOKENS = [b"\n", b" ", b"\t", b"\r\n", b"#", b":", b"qid:", b"docid", b"= ", b"0", b"-", b"+", b".",
           b"e", b"1e400", b"1e-400", b"nan", b"inf", b"0x1p3", b"\x00", b"\xff", b"9223372036854775807",
           b"9223372036854775808", b"-9223372036854775808", b"Q0", b"1 0 d 1\n", b"1 Q0 d 1 1 t\n",
           b"1 qid:1 1:1 # docid = d\n", SEP, b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00"]


def mutate(rng: random.Random, data: bytes, pool: Sequence[bytes], max_len: int) -> bytes:
    """A libFuzzer-like mutation: byte flips, inserts, deletes, token
    inserts, line duplication and splicing with another input."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(8)
        pos = rng.randrange(len(b) + 1)
        if op == 0 and b:
            b[min(pos, len(b) - 1)] = rng.randrange(256)
        elif op == 1:
            b[pos:pos] = bytes([rng.randrange(256)])
        elif op == 2 and b:
            del b[pos:pos + rng.randint(1, 8)]
        elif op == 3:
            b[pos:pos] = rng.choice(_TOKENS)
        elif op == 4 and b:
            a = b.rfind(b"\n", 0, pos) + 1
            e = b.find(b"\n", pos)
            e = len(b) if e < 0 else e + 1
            b[e:e] = b[a:e]
        elif op == 5 and pool:
            other = rng.choice(pool)
            cut = rng.randrange(len(other) + 1)
            b = b[:pos] + other[cut:cut + rng.randint(1, 256)] + b[pos:]
        elif op == 6 and len(b) > 2:
            b[rng.randrange(2)] = rng.randrange(256)      # options
        elif op == 7 and b:
            b[min(pos, len(b) - 1)] ^= 1 << rng.randrange(8)
    return bytes(b[:max_len])


def mutation_loop(target: str, seeds: List[bytes], runs: int, tmpdir: str, rng_seed: int = 0,
                  max_len: int = 4096, deadline: Optional[float] = None) -> int:
    """Run the seeds, then mutants of them, ``runs`` executions in all (a
    deterministic stand-in for atheris; ``deadline``: a time.time() to stop
    at). Returns the number of executions."""
    import time

    rng = random.Random(rng_seed)
    pool = list(seeds)
    done = 0
    for s in seeds:
        if done >= runs:
            return done
        _run_reporting(target, s, tmpdir)
        done += 1
    while done < runs and (deadline is None or time.time() < deadline):
        data = mutate(rng, rng.choice(pool), pool, max_len)
        _run_reporting(target, data, tmpdir)
        done += 1
        if rng.random() < 0.05:
            pool.append(data)
    return done


def _run_reporting(target: str, data: bytes, tmpdir: str) -> None:
    try:
        run_one(target, data, tmpdir)
    except Finding as exc:
        raise Finding(f"{exc}\n  target={target} input={data!r:.2000}") from exc
