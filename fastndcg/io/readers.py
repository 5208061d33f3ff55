"""Readers for the files rankers and IR evaluations use.

* SVMlight / LETOR data (``label qid:Q f:v ... # docid = X``) and one-score-
  per-line prediction files: :func:`read_svmlight`, :func:`read_predictions`,
  :func:`iter_svmlight` (query-complete chunks for files larger than memory).
* LightGBM ``.query`` / XGBoost ``.group`` files: :func:`read_group_file`.
* TREC qrels (``topic iter docno rel``) and runs (``topic Q0 docno rank score
  tag``): :func:`read_qrels`, :func:`read_run`, :func:`iter_run`, and
  :func:`align_run`, which turns a run and qrels into the CSR arrays of
  :func:`fastndcg.ndcg` the way trec_eval ranks and judges.

Every reader parses with compiled code (:mod:`fastndcg.io._parse`) one block of
whole lines at a time, so memory is the output arrays plus one block
(``block_size``, 16 MiB by default), whatever the file size. gzip, bz2 and xz
files are recognised by their first bytes and decompressed on the fly.
Malformed input raises :class:`ValueError` with ``path:line:`` in front of the
message; nothing is skipped or re-aligned silently.
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import os
import warnings
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, List, Optional, Tuple, Union

import numpy as np

from fastndcg.io import _parse
from fastndcg._core.groups import offsets_from_group_sizes, offsets_from_qid
from fastndcg.conventions import ideal_source
from fastndcg._core.threads import threads_for

PathLike = Union[str, "os.PathLike[str]"]
Progress = Optional[Callable[[int, int], None]]

#: Bytes read per block. Memory beyond the output arrays is a few blocks.
DEFAULT_BLOCK_SIZE = 16 << 20

S = _parse.STATUS
_MESSAGES = {
    S["BAD_LABEL"]: "the label (first field) is not a finite number",
    S["BAD_QID"]: "bad qid: expected qid:<integer>",
    S["QID_MIXED"]: "some lines have qid:<id> and others do not",
    S["BAD_FEATURE"]: "bad feature: expected <index>:<value> with an integer index >= 0",
    S["MISSING_DOCID"]: "no doc id: expected a comment such as '# docid = X'",
    S["BAD_REL"]: "the relevance (4th field) is not an integer",
    S["BAD_SCORE"]: "the score (5th field) is not a finite number",
    S["BAD_NUMBER"]: "not a finite number",
    S["EMPTY_LINE"]: "empty line (a missing value)",
    S["BAD_INTEGER"]: "not an integer",
    S["NUL_BYTE"]: "a NUL byte in a field (a binary or UTF-16 file?)",
}


def _fail(path, line, message) -> ValueError:
    return ValueError(f"{os.fspath(path)}:{line}: {message}")


# ----------------------------------------------------------------------------- raw blocks


def _open_binary(path: PathLike):
    """Open for binary reading; gzip, bz2 and xz are detected by magic bytes.

    Returns (stream, raw) where raw is the underlying file (for progress).
    """
    raw = open(path, "rb", buffering=0)
    head = raw.read(6)
    raw.seek(0)
    if head[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw, mode="rb"), raw
    if head[:3] == b"BZh":
        return bz2.BZ2File(raw, mode="rb"), raw
    if head[:6] == b"\xfd7zXZ\x00":
        return lzma.LZMAFile(raw, mode="rb"), raw
    return raw, raw


def iter_line_blocks(path: PathLike, block_size: int = DEFAULT_BLOCK_SIZE,
                     progress: Progress = None) -> Iterator[memoryview]:
    """Yield the file's content in blocks of whole lines, each ending in b"\\n".

    Each block is a read-only view into a reused buffer, valid until the next
    block is requested (copy it with ``bytes(block)`` to keep it). A missing
    final newline is added. A line longer than ``block_size`` is kept whole
    (the buffer grows to hold it). Memory: the buffer (about ``block_size``).
    A compressed stream that breaks raises ValueError ``path:line:`` naming the
    line being read when it broke (the lines before it were handed out).
    """
    if block_size < 1:
        raise ValueError(f"block_size must be >= 1; got {block_size}")
    stream, raw = _open_binary(path)
    total = os.fstat(raw.fileno()).st_size
    compressed = stream is not raw
    lines_out = 0          # lines handed out, counted for compressed streams only
    try:
        # a plain file smaller than a block needs no more (zeroing 16 MiB per small file shows)
        buf = bytearray(block_size if compressed else max(1, min(block_size, total + 1)))
        filled = 0
        while True:
            if filled == len(buf):       # a line longer than the buffer: grow (a new buffer)
                bigger = bytearray(2 * len(buf))
                bigger[:filled] = buf[:filled]
                buf = bigger
            with memoryview(buf) as view:
                got = stream.readinto(view[filled:])
            if progress is not None:
                progress(min(raw.tell(), total), total)
            if not got:
                break
            start = filled
            filled += got
            cut = buf.rfind(b"\n", start, filled)
            if cut < 0:
                continue
            block = memoryview(buf).toreadonly()[: cut + 1]
            if compressed:
                lines_out += buf.count(b"\n", 0, cut + 1)
            yield block
            block.release()
            rest = filled - cut - 1
            if rest:
                buf[:rest] = buf[cut + 1: filled]
            filled = rest
        if filled:
            yield memoryview(bytes(buf[:filled]) + b"\n")
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        if compressed:
            raise _fail(path, lines_out + 1, f"cannot decompress: {exc} (the compressed stream breaks "
                                             "while this line is read)") from exc
        raise ValueError(f"{os.fspath(path)}: cannot read: {exc}") from exc
    finally:
        stream.close()
        raw.close()


class _Growable:
    """A 1-D numpy array grown in place (realloc; large blocks are remapped,
    not copied) and trimmed at the end."""

    def __init__(self, dtype, capacity: int = 0):
        self.a = np.empty(max(capacity, 16), dtype=dtype)
        self.n = 0

    def reserve(self, extra: int) -> None:
        need = self.n + extra
        if need > self.a.shape[0]:
            self.a.resize(max(need, int(self.a.shape[0] * 1.5)), refcheck=False)

    def tail(self) -> np.ndarray:
        return self.a[self.n:]

    def finish(self) -> np.ndarray:
        self.a.resize(self.n, refcheck=False)
        return self.a

    def drop_front(self, k: int) -> None:
        """Remove the first k entries (streaming)."""
        rest = self.n - k
        if rest > 0:
            self.a[:rest] = self.a[k:self.n]
        self.n = rest


_EMPTY_F = np.empty(0, dtype=np.float64)
_EMPTY_I = np.empty(0, dtype=np.int64)
_EMPTY_U8 = np.empty(0, dtype=np.uint8)


def _pool_strings(pool: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Decode pooled byte strings into a numpy array of str (vectorised)."""
    n = start.shape[0]
    width = int(length.max(initial=0))
    if n == 0:
        return np.empty(0, dtype="U1")
    fixed = np.zeros((n, max(width, 1)), dtype=np.uint8)
    _parse.to_fixed_width(pool, np.ascontiguousarray(start, dtype=np.int64),
                          np.ascontiguousarray(length, dtype=np.int64), fixed)
    as_bytes = fixed.view(f"S{max(width, 1)}").ravel()
    return np.char.decode(as_bytes, "utf-8", "surrogateescape")


# ----------------------------------------------------------------------------- SVMlight


@dataclass
class SvmlightData:
    """An SVMlight / LETOR file, rows in file order.

    Attributes
    ----------
    path : str
    labels : float64 array (n_rows,)
    qid : int64 array (n_rows,) or None
        The ``qid:`` of each row (LightGBM's and XGBoost's ``qid``); None when
        the file has no qids. (``qids`` is the old name, deprecated: elsewhere
        in the API ``qids`` are per query.)
    offsets : int64 array (n_queries + 1,) or None
        Query q owns rows ``offsets[q]:offsets[q+1]`` *after* :meth:`grouped`.
        None when the file has neither qids nor a group file.
    order : int64 array (n_rows,) or None
        None when each query's rows are contiguous in the file (the usual
        case); otherwise the stable permutation that groups them
        (``qid_order="any"``).
    query_ids : int64 array (n_queries,) or None
        The qid of each query (the group number when groups come from a
        group file).
    docids : array of str (n_rows,) or None
        Doc ids from the comments (``docids=True``).
    features : (data, indices, indptr, n_features) or None
        The features in CSR form (``features=True``); column = the index
        written in the file. :meth:`feature_matrix` builds a scipy matrix.
    lines : int64 array (n_rows,)
        The 1-based file line of each row (blank and comment lines are not rows).
    """

    path: str
    labels: np.ndarray
    qid: Optional[np.ndarray]
    offsets: Optional[np.ndarray]
    order: Optional[np.ndarray]
    query_ids: Optional[np.ndarray]
    docids: Optional[np.ndarray]
    features: Optional[Tuple[np.ndarray, np.ndarray, np.ndarray, int]]
    lines: np.ndarray

    @property
    def n_rows(self) -> int:
        return int(self.labels.shape[0])

    @property
    def qids(self) -> Optional[np.ndarray]:
        """Deprecated name of :attr:`qid` (per row)."""
        warnings.warn("SvmlightData.qids is per row and is now called qid (qids are per query elsewhere); "
                      "the old name works until fastndcg 0.3", DeprecationWarning, stacklevel=2)
        return self.qid

    @property
    def n_queries(self) -> int:
        return 0 if self.offsets is None else int(self.offsets.shape[0] - 1)

    def grouped(self, values: Any) -> np.ndarray:
        """Per-row values (file order) in CSR order: ``values[order]``."""
        arr = np.asarray(values)
        if arr.shape[0] != self.n_rows:
            raise ValueError(f"expected {self.n_rows} values (one per row of {self.path}); got {arr.shape[0]}")
        return arr if self.order is None else arr[self.order]

    def feature_matrix(self):
        """The features as a ``scipy.sparse.csr_matrix`` (needs scipy)."""
        if self.features is None:
            raise ValueError("features were not read; call read_svmlight(..., features=True)")
        from scipy.sparse import csr_matrix

        data, indices, indptr, n_features = self.features
        return csr_matrix((data, indices, indptr), shape=(self.n_rows, n_features))


class _SvmParser:
    """Block-by-block SVMlight parsing into growable arrays."""

    def __init__(self, path, docids: bool, features: bool):
        self.path = os.fspath(path)
        self.docids = docids
        self.features = features
        self.labels = _Growable(np.float64)
        self.qids = _Growable(np.int64)
        self.lines = _Growable(np.int64)
        self.pool = _Growable(np.uint8)
        self.dstart = _Growable(np.int64)
        self.fval = _Growable(np.float64)
        self.fidx = _Growable(np.int64)
        self.fptr = _Growable(np.int64)
        self.fptr.a[0] = 0
        self.line = 0
        self.qid_mode = -1

    def parse(self, block: Any) -> int:     # bytes or a memoryview of them
        rows_max = _parse.count_byte(block, 10)
        for g in (self.labels, self.qids, self.lines):
            g.reserve(rows_max)
        if self.docids:
            self.dstart.reserve(rows_max + 1)
            self.pool.reserve(block.nbytes)
        if self.features:
            pairs = _parse.count_byte(block, 58)
            self.fval.reserve(pairs)
            self.fidx.reserve(pairs)
            self.fptr.reserve(rows_max + 2)
            self.fptr.a[self.fptr.n] = self.fval.n
        status, rows, line, qid_mode, pool_used, nnz, err_line = _parse.parse_svmlight(
            block, self.line, self.qid_mode, self.docids, self.features,
            self.labels.tail(), self.qids.tail(), self.lines.tail(),
            self.pool.a if self.docids else _EMPTY_U8,
            self.dstart.tail() if self.docids else _EMPTY_I,
            self.fval.a if self.features else _EMPTY_F,
            self.fidx.a if self.features else _EMPTY_I,
            self.fptr.a[self.fptr.n:] if self.features else _EMPTY_I,
            self.pool.n, self.fval.n)
        if status != S["OK"]:
            raise _fail(self.path, err_line, _MESSAGES[status])
        for g in (self.labels, self.qids, self.lines):
            g.n += rows
        if self.docids:
            self.dstart.n += rows
            self.pool.n = pool_used
        if self.features:
            self.fptr.n += rows
            self.fval.n = self.fidx.n = nnz
        self.line = line
        self.qid_mode = qid_mode
        return rows

    def docid_strings(self, start: int, stop: int) -> np.ndarray:
        ds = self.dstart.a[start:stop]
        ends = np.empty_like(ds)
        ends[:-1] = ds[1:]
        if stop - start:
            ends[-1] = self.dstart.a[stop] if stop < self.dstart.n else self.pool.n
        return _pool_strings(self.pool.a, ds, ends - ds)


def _qid_blocks(qids: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """First row and qid of each maximal run of equal qids."""
    starts = np.flatnonzero(np.concatenate(([True], qids[1:] != qids[:-1])))
    return starts, qids[starts]


def _qid_again(path, qids: np.ndarray, lines: np.ndarray, hint: str) -> Optional[ValueError]:
    """The error for the first qid run whose qid had an earlier run (rows of
    a query interrupted by another query), or None if each qid is one run."""
    starts, block_ids = _qid_blocks(qids)
    if np.unique(block_ids).size == block_ids.size:
        return None
    srt = np.argsort(block_ids, kind="stable")
    dup = srt[1:][block_ids[srt[1:]] == block_ids[srt[:-1]]]
    b = int(dup.min())
    first = int(np.flatnonzero(block_ids == block_ids[b])[0])
    return _fail(path, int(lines[starts[b]]),
                 f"qid {int(block_ids[b])} appears again; its rows started at line "
                 f"{int(lines[starts[first]])} and were interrupted by another qid. {hint}")


def _check_qid_blocks(path, qids: np.ndarray, lines: np.ndarray, qid_order: str):
    """Offsets, order and per-query ids from per-row qids, enforcing qid_order."""
    n = qids.shape[0]
    if n == 0:
        return np.zeros(1, dtype=np.int64), None, qids[:0]
    starts, block_ids = _qid_blocks(qids)
    if qid_order == "sorted":
        bad = np.flatnonzero(block_ids[1:] < block_ids[:-1])
        if bad.size:
            b = int(bad[0]) + 1
            raise _fail(path, int(lines[starts[b]]),
                        f"qid {int(block_ids[b])} comes after qid {int(block_ids[b - 1])}; "
                        "qids must be sorted (qid_order='sorted')")
    if np.unique(block_ids).size != block_ids.size:
        if qid_order == "any":
            groups = offsets_from_qid(qids)
            return groups.offsets, groups.order, groups.qids
        err = _qid_again(path, qids, lines, "Rows of a query must be contiguous (pass qid_order='any' "
                                            "to group them)")
        assert err is not None      # the qids repeat (checked above)
        raise err
    return np.append(starts, n).astype(np.int64), None, block_ids


def _group_sizes(group) -> Tuple[np.ndarray, str, bool]:
    """(sizes, name, is_file) of a ``group`` argument: a .query/.group path or sizes."""
    if isinstance(group, (str, os.PathLike)):
        return read_group_file(group), os.fspath(group), True
    return np.asarray(group), "group", False


def _group_overrun(path, gpath: str, is_file: bool, ends: np.ndarray, n_rows: int) -> Optional[ValueError]:
    """The error for group sizes that add up to more than the n_rows rows of
    path (naming the group file line where they pass it), else None."""
    over = int(np.searchsorted(ends, n_rows, side="right"))
    if over >= ends.shape[0]:
        return None
    where = f"{gpath}:{over + 1}:" if is_file else f"group[{over}]:"
    return ValueError(f"{where} the group sizes reach {int(ends[over])} rows here but "
                      f"{os.fspath(path)} has only {n_rows} rows")


def _group_short(path, gpath: str, covered: int, line: int) -> ValueError:
    """The error for a data row beyond the rows the group sizes add up to."""
    return _fail(path, line, f"this row (row {covered + 1}) is beyond the {covered} rows that the "
                             f"group sizes of {gpath} add up to")


def _apply_group(path, group, n_rows, qid_offsets, lines):
    """Offsets from a group file or sizes; checked against the qids if any."""
    sizes, gpath, is_file = _group_sizes(group)
    offsets = offsets_from_group_sizes(sizes)
    too_many = _group_overrun(path, gpath, is_file, offsets[1:], n_rows)
    if too_many is not None:
        raise too_many
    if int(offsets[-1]) < n_rows:
        raise _group_short(path, gpath, int(offsets[-1]), int(lines[int(offsets[-1])]))
    if qid_offsets is not None and not np.array_equal(qid_offsets, offsets):
        diff = np.setxor1d(qid_offsets, offsets)
        if diff.size == 0:
            # same boundaries, more queries: the group file has empty ones, which qids cannot have
            empty = int(np.flatnonzero(np.diff(offsets) == 0)[0])
            where = f"{gpath}:{empty + 1}:" if is_file else f"group[{empty}]:"
            raise ValueError(f"{where} the qids of {os.fspath(path)} and the group file {gpath} disagree: "
                             "an empty query here, which qids cannot express")
        row = int(diff.min())
        by = "the qids" if np.isin(row, qid_offsets) else f"the group file {gpath}"
        line = int(lines[row]) if row < lines.shape[0] else int(lines[-1])
        raise _fail(path, line, f"the qids and the group file {gpath} disagree: only {by} start a new "
                                "query at this line")
    return offsets


def read_svmlight(path: PathLike, *, group: Any = None, docids: bool = False,
                  features: bool = False, qid_order: str = "contiguous",
                  block_size: int = DEFAULT_BLOCK_SIZE, progress: Progress = None) -> SvmlightData:
    """Read an SVMlight / LETOR / LibSVM ranking file.

    Parameters
    ----------
    path : str or path-like
        Lines ``label [qid:Q] [idx:value ...] [# comment]``; LF or CRLF;
        plain, gzip, bz2 or xz. Blank lines and lines starting with ``#``
        are skipped (line numbers in errors still count them).
    group : path, array of int or None
        Query sizes in file order (LightGBM ``.query`` / XGBoost ``.group``),
        for files without ``qid:``. With qids too, both must agree.
    docids : bool, default False
        Read a doc id from each line's comment: the value after ``docid``
        (``# docid = X``, ``#docid:X``), else the comment's first token.
        A line without one is an error.
    features : bool, default False
        Parse the ``idx:value`` pairs (otherwise they are skipped unparsed).
    qid_order : {"contiguous", "sorted", "any"}, default "contiguous"
        "contiguous": each qid's rows must be consecutive (a qid that
        reappears later is an error naming both lines). "sorted": also
        ascending, as XGBoost requires. "any": rows are grouped stably by qid
        and :attr:`SvmlightData.order` holds the permutation.
    block_size : int
        Bytes per read; memory beyond the arrays is a few blocks.
    progress : callable(done_bytes, total_bytes), optional

    Returns
    -------
    SvmlightData

    Raises
    ------
    ValueError
        ``path:line: message`` for a non-numeric label, a bad ``qid:``,
        lines with and without qid, a bad feature, a missing doc id, a
        repeated qid block, or group sizes that do not add up.
    """
    if qid_order not in ("contiguous", "sorted", "any"):
        raise ValueError(f"qid_order must be 'contiguous', 'sorted' or 'any'; got {qid_order!r}")
    p = _SvmParser(path, docids, features)
    for block in iter_line_blocks(path, block_size, progress):
        p.parse(block)
    n = p.labels.n
    lines = p.lines.finish()
    labels = p.labels.finish()
    doc = p.docid_strings(0, n) if docids else None
    feats = None
    if features:
        p.fptr.n = n + 1
        indptr = p.fptr.finish()
        indices = p.fidx.finish()
        n_features = int(indices.max(initial=-1)) + 1
        feats = (p.fval.finish(), indices, indptr, n_features)
    qids = p.qids.finish() if p.qid_mode == 1 else None
    offsets = order = query_ids = None
    if qids is not None:
        offsets, order, query_ids = _check_qid_blocks(path, qids, lines, qid_order)
    if group is not None:
        if order is not None:
            err = _qid_again(path, np.asarray(qids), lines, "A group file describes consecutive rows, so it "
                                                            "cannot be combined with qid_order='any' here")
            assert err is not None      # an order exists only when the qids repeat
            raise err
        offsets = _apply_group(path, group, n, offsets, lines)
        if query_ids is None:
            query_ids = np.arange(offsets.shape[0] - 1, dtype=np.int64)
    return SvmlightData(os.fspath(path), labels, qids, offsets, order, query_ids, doc, feats, lines)


# ----------------------------------------------------------------------------- numbers


class _NumberStream:
    """Numbers of a one-value-per-line file, handed out n at a time."""

    def __init__(self, path, column: Optional[int], integer: bool, block_size: int,
                 progress: Progress = None):
        self.path = os.fspath(path)
        self.column = -1 if column is None else int(column)
        self.integer = integer
        self.blocks = iter_line_blocks(path, block_size, progress)
        self.buf = _Growable(np.int64 if integer else np.float64)
        self.line = 0
        self.eof = False

    def _more(self) -> bool:
        block = next(self.blocks, None)
        if block is None:
            self.eof = True
            return False
        n = _parse.count_byte(block, 10)
        self.buf.reserve(n)
        out = self.buf.tail()
        status, count, line, err_line = _parse.parse_numbers(
            block, self.line, self.column, self.integer,
            _EMPTY_F if self.integer else out, out if self.integer else _EMPTY_I)
        if status != S["OK"]:
            what = _MESSAGES.get(status)
            if status == S["MISSING_FIELDS"]:
                what = f"the line has no field number {self.column} (0-based)"
            elif status == S["TOO_MANY_FIELDS"]:
                what = "expected one value per line; got several fields (pass column=...)"
            raise _fail(self.path, err_line, what)
        self.buf.n += count
        self.line = line
        return True

    def take(self, n: int) -> np.ndarray:
        while self.buf.n < n and not self.eof:
            self._more()
        k = min(n, self.buf.n)
        out = self.buf.a[:k].copy()
        self.buf.drop_front(k)
        return out

    def all(self) -> np.ndarray:
        while self._more():
            pass
        return self.buf.finish()

    def at_end(self) -> bool:
        while self.buf.n == 0 and not self.eof:
            self._more()
        return self.buf.n == 0


def read_predictions(path: PathLike, n: Optional[int] = None, *, column: Optional[int] = None,
                     data_path: Optional[str] = None, block_size: int = DEFAULT_BLOCK_SIZE,
                     progress: Progress = None) -> np.ndarray:
    """Read a prediction file: one score per line, line i for data row i.

    Parameters
    ----------
    path : str or path-like
        Plain or compressed text. Every line holds a finite number (a blank
        line is a missing score, hence an error).
    n : int, optional
        The number of rows the scores belong to; any other count is an error
        naming the line where the files stop matching.
    column : int, optional
        Take this whitespace-separated field (0-based) of each line, e.g. 2
        for RankLib's ``qid  index  score`` score files. By default a line
        must hold exactly one field.
    data_path : str, optional
        Named in the length-mismatch message.

    Returns
    -------
    float64 array
    """
    scores = _NumberStream(path, column, False, block_size, progress).all()
    if n is not None and scores.shape[0] != n:
        what = f"the data file {data_path}" if data_path else "the data"
        if scores.shape[0] < n:
            raise _fail(path, scores.shape[0] + 1,
                        f"the prediction file ends after {scores.shape[0]} scores but {what} has {n} rows")
        raise _fail(path, n + 1, f"the prediction file has {scores.shape[0]} scores but {what} has "
                                 f"only {n} rows (this line is score number {n + 1})")
    return scores


def read_group_file(path: PathLike, *, block_size: int = DEFAULT_BLOCK_SIZE) -> np.ndarray:
    """Read a LightGBM ``.query`` / XGBoost ``.group`` file: one query size
    (an integer >= 0) per line, in file order, adding up to at most
    2**63 - 1 rows. Returns int64 sizes."""
    sizes = _NumberStream(path, None, True, block_size).all()
    bad = np.flatnonzero(sizes < 0)
    if bad.size:
        raise _fail(path, int(bad[0]) + 1, f"a query size must be >= 0; got {int(sizes[bad[0]])}")
    # The running total wraps around (and decreases) at the first line where
    # it passes 2**63 - 1; every later offset would be garbage.
    ends = np.cumsum(sizes)
    wrap = np.flatnonzero(ends[1:] < ends[:-1])
    if wrap.size:
        raise _fail(path, int(wrap[0]) + 2, "the query sizes add up to more than 2**63 - 1 rows here")
    return sizes


@dataclass
class SvmlightChunk:
    """Whole queries from :func:`iter_svmlight`.

    ``labels``/``scores`` are in CSR order with ``offsets``; ``query_ids``
    has one entry per query; ``first_row`` is the data row (0-based) of the
    chunk's first document; ``docids`` when asked for.
    """

    labels: np.ndarray
    scores: Optional[np.ndarray]
    offsets: np.ndarray
    query_ids: np.ndarray
    first_row: int
    docids: Optional[np.ndarray] = None

    @property
    def n_rows(self) -> int:
        return int(self.labels.shape[0])


def iter_svmlight(path: PathLike, predictions: Optional[PathLike] = None, *, group: Any = None,
                  docids: bool = False, prediction_column: Optional[int] = None,
                  chunk_rows: int = 1 << 20, block_size: int = DEFAULT_BLOCK_SIZE,
                  progress: Progress = None) -> Iterator[SvmlightChunk]:
    """Stream an SVMlight file (and its prediction file) by whole queries.

    Each chunk holds complete queries and about ``chunk_rows`` rows (more if a
    single query is larger). Memory is a chunk plus a block, whatever the file
    size. Each query's rows must be contiguous; a qid that reappears later is
    an error naming the line (streaming cannot regroup). Without qids, query
    sizes come from ``group`` (a ``.query``/``.group`` path or sizes).
    The prediction file is checked to have exactly one score per row.
    """
    if chunk_rows < 1:
        raise ValueError(f"chunk_rows must be >= 1; got {chunk_rows}")
    p = _SvmParser(path, docids, False)
    preds = None if predictions is None else _NumberStream(predictions, prediction_column, False,
                                                          block_size)
    sizes = None
    if group is not None:
        sizes, gpath, g_is_file = _group_sizes(group)
        group_ends = offsets_from_group_sizes(sizes)[1:]
        sizes = np.diff(group_ends, prepend=0)
    seen: set = set()
    row0 = 0
    q0 = 0
    total = int(group_ends[-1]) if sizes is not None and sizes.size else 0
    blocks = iter_line_blocks(path, block_size, progress)

    def emit(n_rows: int, offsets: np.ndarray, query_ids: np.ndarray) -> SvmlightChunk:
        nonlocal row0
        labels = p.labels.a[:n_rows].copy()
        scores = None
        if preds is not None:
            scores = preds.take(n_rows)
            if scores.shape[0] < n_rows:
                raise _fail(predictions, preds.line + 1,
                            f"the prediction file ends after {row0 + scores.shape[0]} scores but "
                            f"{os.fspath(path)} has more rows (its line {int(p.lines.a[scores.shape[0]])})")
        doc = p.docid_strings(0, n_rows) if docids else None
        if docids:
            cut = int(p.dstart.a[n_rows]) if n_rows < p.dstart.n else p.pool.n
            p.pool.drop_front(cut)
            p.dstart.drop_front(n_rows)
            p.dstart.a[:p.dstart.n] -= cut
        for g in (p.labels, p.qids, p.lines):
            g.drop_front(n_rows)
        chunk = SvmlightChunk(labels, scores, offsets, query_ids, row0, doc)
        row0 += n_rows
        return chunk

    def boundaries(n: int, done: bool):
        """Row offsets (relative to the pending rows) where queries start,
        the ids of the complete queries, and the first row of each."""
        if p.qid_mode == 1 and sizes is None:
            q = p.qids.a[:n]
            starts = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))
            ends = np.append(starts[1:], n) if done else starts[1:]
            return ends, q[starts[: ends.size]], starts[: ends.size]
        if sizes is None:
            raise _fail(path, int(p.lines.a[0]), "the file has no qid: fields (from this first row on); "
                                                 "give the query sizes with group=<.query/.group file>")
        q1 = int(np.searchsorted(group_ends, row0 + n, side="right"))
        ends = (group_ends[q0:q1] - row0).astype(np.int64)
        starts = np.concatenate(([0], ends[:-1])).astype(np.int64)
        return ends, np.arange(q0, q1, dtype=np.int64), starts

    done = False
    while not done:
        block = next(blocks, None)
        if block is None:
            done = True
        else:
            p.parse(block)
            if sizes is not None and p.labels.n:
                if p.qid_mode == 1:
                    raise _fail(path, int(p.lines.a[0]), "this row has a qid: field and a group file was "
                                                         "given too; iter_svmlight takes either, not both")
                if row0 + p.labels.n > total:     # rows that no query covers
                    raise _group_short(path, gpath, total, int(p.lines.a[total - row0]))
        while p.labels.n and (done or p.labels.n >= chunk_rows):
            n = p.labels.n
            ends, ids, starts = boundaries(n, done)
            if ends.size == 0:
                break
            j = int(np.searchsorted(ends, chunk_rows, side="left"))
            if j >= ends.size:
                if not done:
                    break
                j = ends.size - 1
            n_emit = int(ends[j])
            ids = ids[: j + 1]
            offs = np.append(starts[: j + 1], n_emit).astype(np.int64)
            if p.qid_mode == 1 and sizes is None:
                id_list = ids.tolist()
                if len(set(id_list)) != len(id_list) or not seen.isdisjoint(id_list):
                    lines = p.lines.a[:n]
                    dup_pos = next(i for i, v in enumerate(id_list) if v in seen or v in id_list[:i])
                    raise _fail(path, int(lines[starts[dup_pos]]),
                                f"qid {id_list[dup_pos]} appears again after other qids; streaming "
                                "needs each query's rows to be contiguous")
                seen.update(id_list)
            else:
                q0 += ids.size
            yield emit(n_emit, offs, ids)
    if sizes is not None and q0 != sizes.size:
        too_many = _group_overrun(path, gpath, g_is_file, group_ends, row0)
        if too_many is not None:
            raise too_many
        # only empty queries are left (all rows were emitted): one last chunk
        yield emit(0, np.zeros(sizes.size - q0 + 1, dtype=np.int64), np.arange(q0, sizes.size, dtype=np.int64))
    if preds is not None and not preds.at_end():
        raise _fail(predictions, row0 + 1, f"the prediction file has more scores than "
                                           f"{os.fspath(path)} has rows ({row0})")


# ----------------------------------------------------------------------------- TREC files


@dataclass
class _TrecTable:
    """Shared layout of :class:`Qrels` and :class:`Run`: rows grouped by
    topic (topics in bytewise order), and by docno (bytewise) within a topic."""

    path: str
    topics: np.ndarray          # object array of str, bytewise order
    offsets: np.ndarray         # int64 (n_topics + 1,)
    pool: np.ndarray = field(repr=False)          # uint8 docno bytes
    doc_start: np.ndarray = field(repr=False)     # int64 (n,)
    doc_len: np.ndarray = field(repr=False)       # int64 (n,)
    lines: np.ndarray = field(repr=False)         # int64 (n,): file line of each row

    @property
    def n_topics(self) -> int:
        return int(self.topics.shape[0])

    def __len__(self) -> int:
        return int(self.doc_start.shape[0])

    def docnos(self) -> np.ndarray:
        """Docnos as a numpy str array, in table order."""
        return _pool_strings(self.pool, self.doc_start, self.doc_len)

    def topic_of_rows(self) -> np.ndarray:
        """Topic index of each row."""
        return np.repeat(np.arange(self.n_topics, dtype=np.int64), np.diff(self.offsets))


@dataclass
class Qrels(_TrecTable):
    """TREC judgments (see :func:`read_qrels`). ``relevance`` is int64 and
    may be negative (trec_eval: judged "unjudged in pool", gain 0)."""

    relevance: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]  # set by the reader

    def to_dict(self) -> dict:
        """{topic: {docno: relevance}} (a Python loop: for small qrels)."""
        docs = self.docnos().tolist()
        rel = self.relevance.tolist()
        return {t: dict(zip(docs[a:b], rel[a:b]))
                for t, a, b in zip(self.topics.tolist(), self.offsets[:-1].tolist(), self.offsets[1:].tolist())}


@dataclass
class Run(_TrecTable):
    """A TREC run (see :func:`read_run`). ``scores`` float64; ``file_row``
    is each row's position among the file's result lines; ``name`` is the
    run tag of the last line (as trec_eval's ``runid``)."""

    scores: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]  # set by the reader
    file_row: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]
    name: str = ""


class _TrecParser:
    """Block-by-block parsing of qrels or run lines into growable arrays."""

    def __init__(self, path, is_run: bool):
        self.path = os.fspath(path)
        self.is_run = is_run
        self.values = _Growable(np.float64 if is_run else np.int64)
        self.lines = _Growable(np.int64)
        self.pool = _Growable(np.uint8)
        self.dstart = _Growable(np.int64)
        self.seg_topics: List[np.ndarray] = []
        self.seg_first: List[np.ndarray] = []
        self.line = 0
        self.tag = b""

    def parse(self, block: Any) -> None:    # bytes or a memoryview of them
        rows_max = _parse.count_byte(block, 10)
        for g in (self.values, self.lines, self.dstart):
            g.reserve(rows_max)
        self.pool.reserve(block.nbytes)
        seg_row = np.empty(rows_max, dtype=np.int64)
        tpool = np.empty(block.nbytes, dtype=np.uint8)
        tstart = np.empty(rows_max + 1, dtype=np.int64)
        vals = self.values.tail()
        status, rows, line, pool_used, segs, tpool_used, tag_start, tag_len, err_line = _parse.parse_trec(
            block, self.line, self.is_run, vals if self.is_run else _EMPTY_F,
            _EMPTY_I if self.is_run else vals, self.lines.tail(), self.pool.a, self.dstart.tail(),
            seg_row, tpool, tstart, self.pool.n)
        if status != S["OK"]:
            msg = _MESSAGES.get(status)
            if status == S["MISSING_FIELDS"]:
                msg = ("expected 6 fields: topic Q0 docno rank score tag" if self.is_run
                       else "expected 4 fields: topic iteration docno relevance")
            elif status == S["TOO_MANY_FIELDS"]:
                msg = "expected 4 fields (topic iteration docno relevance); got more"
            raise _fail(self.path, err_line, msg)
        if segs:
            tstart[segs] = tpool_used
            self.seg_topics.append(_fixed_bytes(tpool, tstart[:segs], np.diff(tstart[: segs + 1])))
            self.seg_first.append(seg_row[:segs] + self.values.n)
        if tag_start >= 0:
            self.tag = bytes(block[tag_start: tag_start + tag_len])
        for g in (self.values, self.lines, self.dstart):
            g.n += rows
        self.pool.n = pool_used
        self.line = line

    def segments(self) -> Tuple[np.ndarray, np.ndarray]:
        if not self.seg_topics:
            return np.empty(0, dtype="S1"), _EMPTY_I
        if len(self.seg_topics) > 1:
            self.seg_topics = [np.concatenate(self.seg_topics)]
            self.seg_first = [np.concatenate(self.seg_first)]
        return self.seg_topics[0], self.seg_first[0]

    def last_topic_start(self) -> int:
        """First row of the trailing run of rows that share the last topic."""
        topics, first = self.segments()
        i = topics.shape[0] - 1
        while i > 0 and topics[i - 1] == topics[-1]:
            i -= 1
        return int(first[i]) if i >= 0 else 0

    def table(self, n_rows: int, n_threads: Optional[int], copy: bool):
        """Sorted table of the first n_rows rows. With ``copy=False`` (the
        parser is done) the arrays are handed over, so that each unsorted
        array is freed as soon as its sorted version exists."""
        topics, first = self.segments()
        nseg = int(np.searchsorted(first, n_rows, side="left"))
        pool_end = int(self.dstart.a[n_rows]) if n_rows < self.dstart.n else self.pool.n
        cols = {"vals": self.values.a[:n_rows], "lines": self.lines.a[:n_rows],
                "dstart": self.dstart.a[:n_rows], "pool": self.pool.a[:pool_end]}
        if copy:
            cols = {k: v.copy() for k, v in cols.items()}
        else:
            self.values.a = self.lines.a = self.dstart.a = self.pool.a = None  # type: ignore[assignment]  # released
        return _sorted_table(self.path, self.is_run, cols, topics[:nseg], first[:nseg], n_threads,
                             self.tag.decode("utf-8", "replace"), self.line)

    def drop_front(self, n_rows: int) -> None:
        pool_cut = int(self.dstart.a[n_rows]) if n_rows < self.dstart.n else self.pool.n
        for g in (self.values, self.lines, self.dstart):
            g.drop_front(n_rows)
        self.pool.drop_front(pool_cut)
        self.dstart.a[: self.dstart.n] -= pool_cut
        topics, first = self.segments()
        keep = first >= n_rows
        self.seg_topics = [topics[keep]]
        self.seg_first = [first[keep] - n_rows]


def _no_rows(path, is_run: bool, n_lines: int) -> ValueError:
    """The error for a TREC file without a result or judgment line (at the
    line after its last)."""
    what = "results" if is_run else "judgments"
    why = f"its {n_lines} line(s) are blank or comments" if n_lines else "the file is empty"
    return _fail(path, n_lines + 1, f"no {what} in the file: {why}")


def _sorted_table(path_s, is_run, cols, seg_topics, seg_first, n_threads, tag, n_lines):
    """Group rows by topic (bytewise) and sort docnos within topics.

    ``cols`` (vals, lines, dstart, pool) is consumed: each unsorted array is
    dropped once its sorted copy exists, so the peak is the arrays plus one.
    """
    pool_a = cols.pop("pool")
    dstart_a = cols.pop("dstart")
    n = dstart_a.shape[0]
    if n == 0:
        raise _no_rows(path_s, is_run, n_lines)
    dlen = np.empty_like(dstart_a)
    dlen[:-1] = dstart_a[1:] - dstart_a[:-1]
    dlen[-1] = pool_a.shape[0] - dstart_a[-1]
    # topics: factorise the segments (bytewise order), then group rows
    uniq, seg_code = np.unique(seg_topics, return_inverse=True)
    row_code = np.repeat(seg_code.ravel().astype(np.int64), np.diff(np.append(seg_first, n)))
    order = np.argsort(row_code, kind="stable").astype(np.int64, copy=False)
    offsets = np.zeros(uniq.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_code, minlength=uniq.shape[0]), out=offsets[1:])
    del row_code
    # about 16 work units a row (a merge sort of short strings)
    _parse.sort_groups(pool_a, dstart_a, dlen, order, offsets, threads_for(16 * n, n_threads))
    dstart_a = dstart_a[order]
    dlen = dlen[order]
    topics = np.array([t.decode("utf-8", "surrogateescape") for t in uniq.tolist()], dtype=object)
    lines_a = cols.pop("lines")[order]
    dup = _parse.first_duplicate(pool_a, dstart_a, dlen, offsets)
    if dup >= 0:
        la, lb = sorted((int(lines_a[dup - 1]), int(lines_a[dup])))
        q = int(np.searchsorted(offsets, dup, side="right")) - 1
        doc = bytes(pool_a[dstart_a[dup]: dstart_a[dup] + dlen[dup]]).decode("utf-8", "surrogateescape")
        raise _fail(path_s, lb, f"duplicate docno {doc!r} for topic {topics[q]!r} (also on line {la})")
    vals = cols.pop("vals")[order]
    return (path_s, topics, offsets, pool_a, dstart_a, dlen, lines_a, vals, order, tag)


def _read_trec(path: PathLike, is_run: bool, block_size: int, progress: Progress,
               n_threads: Optional[int]):
    p = _TrecParser(path, is_run)
    for block in iter_line_blocks(path, block_size, progress):
        p.parse(block)
    n = p.values.n
    for g in (p.values, p.lines, p.dstart, p.pool):
        g.finish()
    return p.table(n, n_threads, copy=False)


def _fixed_bytes(tpool: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    width = max(int(length.max(initial=0)), 1)
    fixed = np.zeros((start.shape[0], width), dtype=np.uint8)
    _parse.to_fixed_width(tpool, start, length, fixed)
    return fixed.view(f"S{width}").ravel()


def read_qrels(path: PathLike, *, block_size: int = DEFAULT_BLOCK_SIZE, progress: Progress = None,
               n_threads: Optional[int] = None) -> Qrels:
    """Read TREC qrels: ``topic iteration docno relevance`` per line.

    Fields are whitespace separated (a ``#`` inside a field is part of it);
    lines whose first non-blank character is ``#`` and blank lines are
    skipped; the relevance is an integer (negative values are kept: trec_eval
    treats them as judged-but-unjudged, with gain 0). Exactly four fields.
    A docno judged twice for one topic is an error (as in trec_eval).
    Plain, gzip, bz2 or xz.

    Returns
    -------
    Qrels
        Topics in bytewise order; within a topic, docnos in bytewise order.
    """
    (p, topics, offsets, pool, s, ln, lines, rel, _order, _tag) = _read_trec(
        path, False, block_size, progress, n_threads)
    return Qrels(p, topics, offsets, pool, s, ln, lines, relevance=rel)


def read_run(path: PathLike, *, block_size: int = DEFAULT_BLOCK_SIZE, progress: Progress = None,
             n_threads: Optional[int] = None) -> Run:
    """Read a TREC run: ``topic Q0 docno rank score tag`` per line.

    As trec_eval: the rank column is ignored (ranking comes from the score,
    see :func:`align_run`), fields after the tag are ignored, blank and ``#``
    lines are skipped, lines may come in any topic order, and a docno
    retrieved twice for one topic is an error. The score must be a finite
    number (``nan`` would make trec_eval's order undefined).

    Returns
    -------
    Run
        Topics in bytewise order; within a topic, docnos in bytewise order
        (``file_row`` keeps the file order).
    """
    (p, topics, offsets, pool, s, ln, lines, scores, order, tag) = _read_trec(
        path, True, block_size, progress, n_threads)
    return Run(p, topics, offsets, pool, s, ln, lines, scores=scores, file_row=order, name=tag)


# ----------------------------------------------------------------------------- alignment

@dataclass
class AlignedRun:
    """A run joined with qrels, as CSR arrays for :func:`fastndcg.ndcg`.

    Attributes
    ----------
    scores : float64 (n_docs,)
        Retrieved documents of the evaluated topics; within a topic in file order.
    labels : int64 (n_docs,)
        Judged relevance, with unjudged documents and negative judgments 0
        (trec_eval's gain for them).
    offsets : int64 (n_queries + 1,)
    tie_key : int64 (n_docs,)
        Each document's docno rank (bytewise ascending) within its topic;
        ``ties="key_desc"`` then ranks tied scores by docno descending, as
        trec_eval.
    ideal_labels, ideal_offsets : int64
        Every judged document of each evaluated topic, negatives as 0: the
        ideal list of trec_eval (retrieved or not).
    qids : object array of str (n_queries,)
        Topic of each query, bytewise order (trec_eval's output order).
    missing_qids : list of str
        Qrels topics with no results in the run (evaluated as empty queries
        with ``missing="zero"``, left out with ``"skip"``).
    ignored_qids : list of str
        Run topics without judgments (never evaluated, as trec_eval).
    n_retrieved : int64 (n_queries,)
        Results per query (after ``max_docs``).
    status : int8 (n_docs,), optional
        How each retrieved document is judged, for trec_eval's custom gains:
        0 judged >= 0 (its level is ``labels``), -1 not in the qrels, -2
        judged below 0 (trec_eval's levels for them). None: every document
        is taken as judged at its label.
    ideal_status : int8 (len(ideal_labels),), optional
        0 for a judgment >= 0, -2 for one below 0 (``ideal_labels`` holds it
        as 0); None: every judgment is >= 0.
    """

    scores: np.ndarray
    labels: np.ndarray
    offsets: np.ndarray
    tie_key: np.ndarray
    ideal_labels: np.ndarray
    ideal_offsets: np.ndarray
    qids: np.ndarray
    missing_qids: List[str]
    ignored_qids: List[str]
    n_retrieved: np.ndarray
    run_name: str = ""
    run_path: str = ""
    qrels_path: str = ""
    status: Optional[np.ndarray] = field(default=None, repr=False)
    ideal_status: Optional[np.ndarray] = field(default=None, repr=False)

    @property
    def n_queries(self) -> int:
        return int(self.offsets.shape[0] - 1)

    def trec_levels(self) -> np.ndarray:
        """trec_eval's level of each retrieved document: its judgment when
        >= 0, -1 when it is not in the qrels, -2 when judged below 0."""
        if self.status is None:
            return self.labels.astype(np.int64)
        return np.where(self.status < 0, self.status, self.labels).astype(np.int64)

    def trec_judged(self) -> np.ndarray:
        """Every judgment of each evaluated topic (CSR over ``ideal_offsets``),
        those below 0 as -2: what trec_eval's ideal counts from (levels >= 0)."""
        if self.ideal_status is None:
            return self.ideal_labels.astype(np.int64)
        return np.where(self.ideal_status < 0, self.ideal_status, self.ideal_labels).astype(np.int64)

    def _kwargs(self, convention, ideal):
        from fastndcg.conventions import as_convention

        conv = as_convention("trec_eval" if convention is None else convention)
        src = ideal_source(conv) if ideal == "auto" else ideal
        if src not in ("qrels", "run"):
            raise ValueError(f"ideal must be 'auto', 'qrels' or 'run'; got {ideal!r}")
        kw = dict(convention=conv)
        if conv.uses_tie_key:
            kw["tie_key"] = self.tie_key
        if src == "qrels":
            kw["ideal_labels"] = self.ideal_labels
            kw["ideal_offsets"] = self.ideal_offsets
        return kw

    def ndcg(self, k: Any = None, *, convention: Any = "trec_eval", ideal: str = "auto",
             gains: Any = None, n_threads: Optional[int] = None) -> np.ndarray:
        """Per-query NDCG (see :func:`fastndcg.ndcg`); the ideal list comes
        from the qrels or the run as :func:`ideal_source` says, unless
        ``ideal`` is "qrels" or "run".

        ``gains``: custom gains, as trec_eval's ``-m ndcg.L=G,...`` (a string
        ``"1=3,2=9"``, a mapping ``{level: gain}`` or a
        :class:`fastndcg.measures.trec_gains.GainSpec`). Under the ``trec_eval`` and
        ``pytrec_eval`` presets they follow trec_eval's rules exactly
        (:mod:`fastndcg.measures.trec_gains`: unjudged documents are level -1,
        negative judgments level -2, trec_eval's ideal walk; a
        :class:`fastndcg.measures.trec_gains.TrecGainQuirkWarning` when a quirk of its
        ordering changes a value); under other conventions they are a gain
        table (unlisted levels: gain = level)."""
        if gains is not None:
            from fastndcg.measures.trec_gains import aligned_scorer

            scorer, scores, key = aligned_scorer(self, gains, k, convention, ideal, n_threads)
            return scorer.ndcg(scores, tie_key=key, n_threads=n_threads)
        from fastndcg.measures.ndcg import ndcg

        return ndcg(self.scores, self.labels, self.offsets, k, n_threads=n_threads,
                    **self._kwargs(convention, ideal))

    def mean_ndcg(self, k: Any = None, *, convention: Any = "trec_eval", ideal: str = "auto",
                  gains: Any = None, n_threads: Optional[int] = None):
        """Mean NDCG over the evaluated queries (see :func:`fastndcg.mean_ndcg`;
        ``gains`` as :meth:`ndcg`)."""
        if gains is not None:
            from fastndcg.measures.trec_gains import aligned_scorer

            scorer, scores, key = aligned_scorer(self, gains, k, convention, ideal, n_threads)
            return scorer.mean(scores, tie_key=key, n_threads=n_threads)
        from fastndcg.measures.ndcg import mean_ndcg

        return mean_ndcg(self.scores, self.labels, self.offsets, k, n_threads=n_threads,
                         **self._kwargs(convention, ideal))


MISSING = ("error", "zero", "skip")


def missing_topics_error(qrels_path: str, run_path: str, missing_qids: List[str],
                         line: Optional[int] = None) -> ValueError:
    """The error for judged topics without results under ``missing="error"``
    (:func:`align_run`, :func:`fastndcg.report.stream.evaluate_run`); ``line``: the
    qrels line of the first judgment of the first topic listed."""
    shown = ", ".join(repr(t) for t in missing_qids[:5]) + (" ..." if len(missing_qids) > 5 else "")
    where = f"{qrels_path}:{line}:" if line is not None else f"{qrels_path}:"
    return ValueError(
        f"{where} {len(missing_qids)} judged topic(s) have no results in {run_path}: {shown}. "
        "trec_eval 10 stops here too. Use missing='zero' (command line: -c, as trec_eval -c: they "
        "count as 0) or missing='skip' (command line: --skip-missing; trec_eval 9.x: they are "
        "left out of the mean)")


def topic_first_line(qrels: Qrels, t: int) -> int:
    """The file line of topic t's first judgment (t: index in qrels.topics)."""
    return int(qrels.lines[qrels.offsets[t]:qrels.offsets[t + 1]].min())


def judged_ideal(qrels: Qrels, topics: np.ndarray, *, with_status: bool = False) -> Tuple[np.ndarray, ...]:
    """trec_eval's ideal list of the selected topics: every judged document,
    negative judgments as 0, as CSR ``(ideal_labels, ideal_offsets)``; with
    ``with_status``, also the :attr:`AlignedRun.ideal_status` of each
    judgment (0, or -2 below 0).

    Parameters
    ----------
    qrels : Qrels
    topics : bool array (qrels.n_topics,)
        The topics to include, in qrels order.
    """
    jcounts = np.diff(qrels.offsets)
    jsel = np.repeat(topics, jcounts)
    relevance = qrels.relevance[jsel]
    ideal_labels = np.maximum(relevance, 0).astype(np.int64)
    ideal_offsets = np.zeros(int(topics.sum()) + 1, dtype=np.int64)
    np.cumsum(jcounts[topics], out=ideal_offsets[1:])
    if with_status:
        return ideal_labels, ideal_offsets, _judgment_status(relevance)
    return ideal_labels, ideal_offsets


def _judgment_status(relevance: np.ndarray) -> np.ndarray:
    """0 for a judgment >= 0, -2 (trec_eval's level of a judgment below 0) else."""
    return np.where(relevance < 0, -2, 0).astype(np.int8)


def align_run(run: Union[Run, PathLike], qrels: Union[Qrels, PathLike], *, missing: str = "error",
              max_docs: Optional[int] = None, float32_scores: bool = False,
              n_threads: Optional[int] = None) -> AlignedRun:
    """Join a run with qrels the way trec_eval does, into CSR arrays.

    Parameters
    ----------
    run, qrels : Run / Qrels or paths
    missing : {"error", "zero", "skip"}, default "error"
        Qrels topics that have no results in the run. "error": a ValueError
        listing them (trec_eval 10.0 exits with an error). "zero": evaluated
        as empty rankings, NDCG 0, counted in the mean (trec_eval ``-c``).
        "skip": left out (trec_eval 9.x without ``-c``, pytrec_eval).
        Run topics without qrels are always ignored, as in trec_eval.
    max_docs : int, optional
        Keep only the top ``max_docs`` results of each topic, ranked as
        trec_eval ranks (score descending, docno descending): trec_eval ``-M``.
    float32_scores : bool
        Rank in float32 for ``max_docs`` (trec_eval 9.x / pytrec_eval).

    Returns
    -------
    AlignedRun
    """
    if missing not in MISSING:
        raise ValueError(f"missing must be one of {MISSING}; got {missing!r}")
    if max_docs is not None and (int(max_docs) != max_docs or max_docs < 1):
        raise ValueError(f"max_docs must be an integer >= 1; got {max_docs!r}")
    if not isinstance(run, Run):
        run = read_run(run, n_threads=n_threads)
    if not isinstance(qrels, Qrels):
        qrels = read_qrels(qrels, n_threads=n_threads)
    qindex = {t: i for i, t in enumerate(qrels.topics.tolist())}
    run_topics = run.topics.tolist()
    run_to_q = np.array([qindex.get(t, -1) for t in run_topics], dtype=np.int64)
    in_run = np.zeros(qrels.n_topics, dtype=bool)
    in_run[run_to_q[run_to_q >= 0]] = True
    ignored = [t for t, q in zip(run_topics, run_to_q.tolist()) if q < 0]
    missing_qids = [t for t, r in zip(qrels.topics.tolist(), in_run.tolist()) if not r]
    if missing_qids and missing == "error":
        raise missing_topics_error(qrels.path, run.path, missing_qids,
                                   topic_first_line(qrels, int(np.flatnonzero(~in_run)[0])))
    pair_run = np.flatnonzero(run_to_q >= 0).astype(np.int64)
    pair_q = run_to_q[pair_run]
    match = np.full(len(run), -1, dtype=np.int64)
    _parse.join_sorted(run.pool, run.doc_start, run.doc_len, run.offsets,
                       qrels.pool, qrels.doc_start, qrels.doc_len, qrels.offsets,
                       pair_run, pair_q, match, threads_for(4 * len(run), n_threads))
    # CSR: topics in bytewise order, file order within a topic. Temporaries
    # are freed as soon as possible (a run can hold tens of millions of rows).
    row_topic = np.repeat(np.arange(run.n_topics, dtype=np.int32), np.diff(run.offsets))
    if bool(np.all(run_to_q >= 0)):
        rows = np.argsort(run.file_row, kind="stable")       # file order...
        rt = row_topic[rows]
        if rt.size and bool(np.any(rt[1:] < rt[:-1])):       # ...unless topics are not in bytewise order
            rows = np.lexsort((run.file_row, row_topic))
            rt = row_topic[rows]
    else:
        rows = np.flatnonzero(run_to_q[row_topic] >= 0)
        rows = rows[np.lexsort((run.file_row[rows], row_topic[rows]))]
        rt = row_topic[rows]
    del row_topic
    qtopic = run_to_q[rt]
    del rt
    match = match[rows]
    labels = qrels.relevance[np.maximum(match, 0)]
    # trec_eval's levels: -1 not in the qrels, -2 judged below 0 (custom gains)
    status = _judgment_status(labels)
    unjudged = match < 0
    status[unjudged] = -1
    labels[unjudged] = 0
    del match, unjudged
    np.maximum(labels, 0, out=labels)
    labels = labels.astype(np.int64, copy=False)
    scores = run.scores[rows]
    tie_key = rows   # table order = docno ascending within a topic
    del rows
    evaluated = in_run.copy() if missing == "skip" else np.ones(qrels.n_topics, dtype=bool)
    if max_docs is not None:
        ranked = scores.astype(np.float32) if float32_scores else scores
        by_rank = np.lexsort((-tie_key, -ranked.astype(np.float64), qtopic))
        counts_all = np.bincount(qtopic, minlength=qrels.n_topics)
        first = np.zeros(qrels.n_topics + 1, dtype=np.int64)
        np.cumsum(counts_all, out=first[1:])
        pos = np.empty_like(by_rank)
        pos[by_rank] = np.arange(by_rank.size)
        rank = pos - first[qtopic]
        kept = rank < max_docs
        scores, labels, tie_key, qtopic = scores[kept], labels[kept], tie_key[kept], qtopic[kept]
        status = status[kept]
    counts = np.bincount(qtopic, minlength=qrels.n_topics)[evaluated]
    offsets = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    ideal_labels, ideal_offsets, ideal_status = judged_ideal(qrels, evaluated, with_status=True)
    return AlignedRun(np.ascontiguousarray(scores), labels, offsets, np.ascontiguousarray(tie_key),
                      ideal_labels, ideal_offsets, qrels.topics[evaluated],
                      missing_qids, ignored, counts.astype(np.int64), run.name, run.path, qrels.path,
                      np.ascontiguousarray(status), ideal_status)


_CONTIGUOUS_TOPICS = ("streaming needs each topic's lines to be contiguous (sort the run by topic "
                      "first, e.g. sort -s -k1,1)")


def _check_topics_contiguous(ps, names, offsets, order, lines) -> None:
    """Within one piece (rows grouped by topic), each topic's file rows must
    be one contiguous stretch: a topic interrupted by another is an error at
    the line where it comes back, however the file is cut into pieces."""
    off = np.asarray(offsets, dtype=np.int64)
    sizes = np.diff(off)
    nonempty = np.flatnonzero(sizes > 0)
    if nonempty.size == 0:
        return
    starts = off[nonempty]
    order = np.asarray(order)
    span = np.maximum.reduceat(order, starts) - np.minimum.reduceat(order, starts) + 1
    broken = nonempty[span != sizes[nonempty]]
    if broken.size == 0:
        return
    bad_line = None
    bad_topic = None
    for i in broken:
        a, b = int(off[i]), int(off[i + 1])
        idx = np.argsort(order[a:b], kind="stable")
        rows = order[a:b][idx]
        k = int(np.flatnonzero(np.diff(rows) != 1)[0]) + 1
        line = int(lines[a + idx[k]])
        if bad_line is None or line < bad_line:
            bad_line, bad_topic = line, names[i]
    raise _fail(ps, bad_line, f"topic {bad_topic!r} appears again after other topics; {_CONTIGUOUS_TOPICS}")


def iter_run(path: PathLike, *, chunk_rows: int = 1 << 20, block_size: int = DEFAULT_BLOCK_SIZE,
             n_threads: Optional[int] = None, progress: Progress = None) -> Iterator[Run]:
    """Stream a TREC run as :class:`Run` pieces of whole topics.

    For runs larger than memory: memory is a piece (about ``chunk_rows``
    results, more if one topic is larger) plus a block. Each topic's lines
    must be contiguous in the file (a topic that reappears after another is
    an error naming the line). Within a piece topics are in bytewise order;
    pieces come in file order. ``file_row`` counts from the file's first
    result line.
    """
    if chunk_rows < 1:
        raise ValueError(f"chunk_rows must be >= 1; got {chunk_rows}")
    p = _TrecParser(path, True)
    seen: set = set()
    row0 = 0

    def piece(n_rows: int) -> Run:
        nonlocal row0
        (ps, topics, offsets, pool, s, ln, lines, scores, order, tag) = p.table(n_rows, n_threads, copy=True)
        names = topics.tolist()
        again = [i for i, t in enumerate(names) if t in seen]
        if again:
            i = again[0]
            raise _fail(ps, int(lines[offsets[i]:offsets[i + 1]].min()),
                        f"topic {names[i]!r} appears again after other topics; {_CONTIGUOUS_TOPICS}")
        _check_topics_contiguous(ps, names, offsets, order, lines)
        seen.update(names)
        run = Run(ps, topics, offsets, pool, s, ln, lines, scores=scores, file_row=order + row0, name=tag)
        p.drop_front(n_rows)
        row0 += n_rows
        return run

    for block in iter_line_blocks(path, block_size, progress):
        p.parse(block)
        if p.values.n >= chunk_rows:
            cut = p.last_topic_start()
            if cut > 0:
                yield piece(cut)
    if p.values.n:
        yield piece(p.values.n)
    elif row0 == 0:
        raise _no_rows(path, True, p.line)
