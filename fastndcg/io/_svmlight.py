"""SVMlight / LETOR files (``label qid:Q f:v ... # docid = X``): :func:`read_svmlight` (the
whole file, rows in file order, with :class:`SvmlightData`) and :func:`iter_svmlight`
(query-complete chunks, with their predictions, for files larger than memory), parsed by :mod:`fastndcg.io._parse`."""
from __future__ import annotations
import os
import warnings
from dataclasses import dataclass
from typing import Any, Iterator, Optional, Sequence, Tuple

import numpy as np

from fastndcg.io import _parse
from fastndcg._core.arguments import Setting
from fastndcg._core.groups import offsets_from_group_sizes, offsets_from_qid
from fastndcg.io._files import DEFAULT_BLOCK_SIZE, PathLike, Progress, S, EMPTY_F64, EMPTY_I64, EMPTY_U8, Growable, PARSE_MESSAGES, line_error, pool_strings, iter_line_blocks, input_name, rereadable
from fastndcg.io._numbers import NumberStream, prediction_line, read_group_file
from fastndcg.io._row_lines import RowLines


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

    def file_row(self, row: int) -> int:
        """The file-order row (0-based) of row ``row`` of :meth:`grouped` arrays."""
        return row if self.order is None else int(self.order[row])

    def row_lines(self, predictions: Optional[PathLike] = None) -> RowLines:
        """Where row i of :meth:`grouped` labels (and of the scores of the
        prediction file ``predictions``) is: for :func:`fastndcg.io._row_lines.at_file_lines`."""
        out: RowLines = {"labels": (self.path, lambda i: int(self.lines[self.file_row(i)]))}
        if predictions is not None:
            out["scores"] = (input_name(predictions), lambda i: prediction_line(self.file_row(i)))
        return out

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
        self.path = input_name(path)
        self.docids = docids
        self.features = features
        self.labels = Growable(np.float64)
        self.qids = Growable(np.int64)
        self.lines = Growable(np.int64)
        self.pool = Growable(np.uint8)
        self.dstart = Growable(np.int64)
        self.fval = Growable(np.float64)
        self.fidx = Growable(np.int64)
        self.fptr = Growable(np.int64)
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
        into = _parse.SvmlightOutputs(
            self.labels.tail(), self.qids.tail(), self.lines.tail(),
            self.pool.a if self.docids else EMPTY_U8,
            self.dstart.tail() if self.docids else EMPTY_I64,
            self.fval.a if self.features else EMPTY_F64,
            self.fidx.a if self.features else EMPTY_I64,
            self.fptr.a[self.fptr.n:] if self.features else EMPTY_I64)
        status, rows, line, qid_mode, pool_used, nnz, err_line = _parse.parse_svmlight(
            block, self.line, self.qid_mode, self.docids, self.features, into, self.pool.n, self.fval.n)
        if status != S["OK"]:
            raise line_error(self.path, err_line, PARSE_MESSAGES[status])
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
        return pool_strings(self.pool.a, ds, ends - ds)


def _qid_blocks(qids: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """First row and qid of each maximal run of equal qids."""
    starts = np.flatnonzero(np.concatenate(([True], qids[1:] != qids[:-1])))
    return starts, qids[starts]


def _qid_again(path, qids: np.ndarray, lines: np.ndarray, hint: str,
               settings: Sequence[Setting] = ()) -> Optional[ValueError]:
    """The error for the first qid run whose qid had an earlier run (rows of
    a query interrupted by another query), or None if each qid is one run;
    ``hint``: a template naming ``settings`` (:func:`fastndcg.io._files.line_error`)."""
    starts, block_ids = _qid_blocks(qids)
    if np.unique(block_ids).size == block_ids.size:
        return None
    srt = np.argsort(block_ids, kind="stable")
    dup = srt[1:][block_ids[srt[1:]] == block_ids[srt[:-1]]]
    b = int(dup.min())
    first = int(np.flatnonzero(block_ids == block_ids[b])[0])
    return line_error(path, int(lines[starts[b]]),
                 f"qid {int(block_ids[b])} appears again; its rows started at line "
                 f"{int(lines[starts[first]])} and were interrupted by another qid. {hint}", settings)


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
            raise line_error(path, int(lines[starts[b]]),
                        f"qid {int(block_ids[b])} comes after qid {int(block_ids[b - 1])}; "
                        "qids must be sorted ({0})", [("qid_order", "'sorted'")])
    if np.unique(block_ids).size != block_ids.size:
        if qid_order == "any":
            groups = offsets_from_qid(qids)
            return groups.offsets, groups.order, groups.qids
        err = _qid_again(path, qids, lines, "Rows of a query must be contiguous (pass {0} to group them)",
                         [("qid_order", "'any'")])
        assert err is not None      # the qids repeat (checked above)
        raise err
    return np.append(starts, n).astype(np.int64), None, block_ids


#: The side files of an SVMlight file ``X`` that hold its query sizes: ``X.query``
#: (LightGBM) and ``X.group`` (XGBoost, LETOR conversions).
GROUP_FILE_SUFFIXES = (".query", ".group")


def _first_row_has_qid(path: PathLike) -> bool:
    """Whether the file's first row has a ``qid:`` (as the scanner reads it:
    either every row has one or none has); False for a file without rows."""
    p = _SvmParser(path, False, False)
    for block in iter_line_blocks(path, 1 << 16):    # leaving the loop closes the file
        p.parse(block)
        if p.qid_mode >= 0:
            return p.qid_mode == 1
    return False


def group_file_for(path: PathLike, group: Any = None, *, choose: str = "group=") -> Any:
    """The query sizes of the SVMlight file ``path``: the one rule of
    :func:`read_svmlight`, :func:`iter_svmlight` and ``fastndcg eval --data``.

    ``group`` given (a path, or sizes): it, checked against the file's qids
    if it has some. ``False``: none (only the file's qids). ``None`` (the
    default): when the file's rows have no ``qid:``, its side file
    ``path.query`` or ``path.group`` (LightGBM's and XGBoost's convention);
    rows with qids take them and no side file is read. When both side files
    exist they must hold the same sizes (else a ValueError names both, and
    ``choose`` says how to pick one). Returns a path, sizes, or None (no
    group file: the queries come from the qids, if any).
    """
    if group is False:
        return None
    if group is not None:
        return group
    if not rereadable(path):        # a pipe or standard input: no side file, nor a second read
        return None
    base = os.fspath(path)
    found = [base + ext for ext in GROUP_FILE_SUFFIXES if os.path.isfile(base + ext)]
    if not found or _first_row_has_qid(path):
        return None
    if len(found) == 2:
        a, b = (read_group_file(f) for f in found)
        if not np.array_equal(a, b):
            n = min(a.shape[0], b.shape[0])
            diff = np.flatnonzero(a[:n] != b[:n])
            at = f"line {int(diff[0]) + 1}: {int(a[diff[0]])} vs {int(b[diff[0]])}" if diff.size else \
                f"{a.shape[0]} vs {b.shape[0]} queries"
            raise ValueError(f"{found[0]} and {found[1]} both give the query sizes of {base} and disagree "
                             f"({at}); name the one to use with {choose}")
    return found[0]


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
                      f"{input_name(path)} has only {n_rows} rows")


def _group_short(path, gpath: str, covered: int, line: int) -> ValueError:
    """The error for a data row beyond the rows the group sizes add up to."""
    return line_error(path, line, f"this row (row {covered + 1}) is beyond the {covered} rows that the "
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
            raise ValueError(f"{where} the qids of {input_name(path)} and the group file {gpath} disagree: "
                             "an empty query here, which qids cannot express")
        row = int(diff.min())
        by = "the qids" if np.isin(row, qid_offsets) else f"the group file {gpath}"
        line = int(lines[row]) if row < lines.shape[0] else int(lines[-1])
        raise line_error(path, line, f"the qids and the group file {gpath} disagree: only {by} start a new "
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
    group : path, array of int, None or False
        Query sizes in file order (LightGBM ``.query`` / XGBoost ``.group``),
        for files without ``qid:``. With qids too, both must agree. None (the
        default): for a file without ``qid:``, its side file ``path.query`` or
        ``path.group`` if there is one (see :func:`group_file_for`); False:
        no side file.
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
        lines with and without qid, a bad feature, a missing doc id, a NUL
        byte, a repeated qid block, or group sizes that do not add up (naming
        the data file and the group file); side files ``path.query`` and
        ``path.group`` that disagree (naming both).
    """
    if qid_order not in ("contiguous", "sorted", "any"):
        raise ValueError(f"qid_order must be 'contiguous', 'sorted' or 'any'; got {qid_order!r}")
    group = group_file_for(path, group)
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
                                                            "cannot be combined with {0} here", [("qid_order", "'any'")])
            assert err is not None      # an order exists only when the qids repeat
            raise err
        offsets = _apply_group(path, group, n, offsets, lines)
        if query_ids is None:
            query_ids = np.arange(offsets.shape[0] - 1, dtype=np.int64)
    return SvmlightData(input_name(path), labels, qids, offsets, order, query_ids, doc, feats, lines)


@dataclass
class SvmlightChunk:
    """Whole queries from :func:`iter_svmlight`.

    ``labels``/``scores`` are in CSR order with ``offsets``; ``query_ids``
    has one entry per query; ``first_row`` is the data row (0-based) of the
    chunk's first document; ``docids`` when asked for; ``lines`` the file
    line of each row, ``path`` and ``predictions`` the files read.
    """

    labels: np.ndarray
    scores: Optional[np.ndarray]
    offsets: np.ndarray
    query_ids: np.ndarray
    first_row: int
    docids: Optional[np.ndarray] = None
    lines: Optional[np.ndarray] = None
    path: Optional[str] = None
    predictions: Optional[str] = None

    @property
    def n_rows(self) -> int:
        return int(self.labels.shape[0])

    def row_lines(self) -> RowLines:
        """Where row i of the chunk's labels and scores is: for :func:`fastndcg.io._row_lines.at_file_lines`."""
        out: RowLines = {}
        if self.path is not None and self.lines is not None:
            lines = self.lines
            out["labels"] = (self.path, lambda i: int(lines[i]))
        if self.predictions is not None:
            out["scores"] = (self.predictions, lambda i: prediction_line(self.first_row + i))
        return out


# over 100 lines: one generator owns the parser, the prediction stream and the query count its closures share
def iter_svmlight(path: PathLike, predictions: Optional[PathLike] = None, *, group: Any = None,
                  docids: bool = False, prediction_column: Optional[int] = None,
                  chunk_rows: int = 1 << 20, block_size: int = DEFAULT_BLOCK_SIZE,
                  progress: Progress = None) -> Iterator[SvmlightChunk]:
    """Stream an SVMlight file (and its prediction file) by whole queries.

    Each chunk holds complete queries and about ``chunk_rows`` rows (more if a
    single query is larger). Memory is a chunk plus a block, whatever the file
    size. Each query's rows must be contiguous; a qid that reappears later is
    an error naming the line (streaming cannot regroup). Without qids, query
    sizes come from ``group`` (a ``.query``/``.group`` path or sizes; by
    default the side file ``path.query`` / ``path.group``, see
    :func:`group_file_for`; False: none).
    The prediction file is checked to have exactly one score per row.
    """
    if chunk_rows < 1:
        raise ValueError(f"chunk_rows must be >= 1; got {chunk_rows}")
    group = group_file_for(path, group)
    p = _SvmParser(path, docids, False)
    preds = None if predictions is None else NumberStream(predictions, prediction_column, False,
                                                          block_size, column_argument="prediction_column")
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
        lines = p.lines.a[:n_rows].copy()
        scores = None
        if preds is not None:
            scores = preds.take(n_rows)
            if scores.shape[0] < n_rows:
                raise line_error(predictions, preds.line + 1,
                            f"the prediction file ends after {row0 + scores.shape[0]} scores but "
                            f"{input_name(path)} has more rows (its line {int(p.lines.a[scores.shape[0]])})")
        doc = p.docid_strings(0, n_rows) if docids else None
        if docids:
            cut = int(p.dstart.a[n_rows]) if n_rows < p.dstart.n else p.pool.n
            p.pool.drop_front(cut)
            p.dstart.drop_front(n_rows)
            p.dstart.a[:p.dstart.n] -= cut
        for g in (p.labels, p.qids, p.lines):
            g.drop_front(n_rows)
        chunk = SvmlightChunk(labels, scores, offsets, query_ids, row0, doc, lines, p.path,
                              None if predictions is None else input_name(predictions))
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
            raise line_error(path, int(p.lines.a[0]), "the file has no qid: fields (from this first row on); "
                                                 "give the query sizes with {0}", [("group", "<.query/.group file>")])
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
                    raise line_error(path, int(p.lines.a[0]), "this row has a qid: field and {0} was given too; "
                                                         "streamed data takes the qids or the group file, not both",
                                [("group", None)])
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
                    raise line_error(path, int(lines[starts[dup_pos]]),
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
        raise line_error(predictions, row0 + 1, f"the prediction file has more scores than "
                                           f"{input_name(path)} has rows ({row0})")
