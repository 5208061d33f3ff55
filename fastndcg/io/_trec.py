"""TREC qrels (``topic iter docno rel``) and runs (``topic Q0 docno rank score tag``):
:func:`read_qrels`, :func:`read_run` and :func:`iter_run` (topic-complete pieces), sorted by
topic bytewise as trec_eval reads them."""
from __future__ import annotations
import os
from concurrent.futures import wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, List, Optional, Tuple

import numpy as np

from fastndcg.io import _parse
from fastndcg._core.threads import helper_pool, threads_for
from fastndcg.io._files import DEFAULT_BLOCK_SIZE, PathLike, Progress, S, EMPTY_F64, EMPTY_I64, Growable, PARSE_MESSAGES, line_error, pool_strings, iter_line_blocks, input_name, rereadable


# ----------------------------------------------------------------------------- TREC files


@dataclass
class TrecTable:
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
        return pool_strings(self.pool, self.doc_start, self.doc_len)

    def topic_of_rows(self) -> np.ndarray:
        """Topic index of each row."""
        return np.repeat(np.arange(self.n_topics, dtype=np.int64), np.diff(self.offsets))


@dataclass
class Qrels(TrecTable):
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
class Run(TrecTable):
    """A TREC run (see :func:`read_run`). ``scores`` float64; ``file_row``
    is each row's position among the file's result lines; ``name`` is the
    run tag of the last line (as trec_eval's ``runid``)."""

    scores: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]  # set by the reader
    file_row: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]
    name: str = ""


@dataclass
class ParsedRows:
    """Rows of a run parsed by :class:`TrecParser` (file order), for a join:
    ``n_rows`` rows; row r's score ``values[r]``, file line ``lines[r]``, docno
    ``pool[dstart[r]:dstart[r + 1]]`` (the last one's ends at ``pool_end``); the
    topic of each stretch of rows from ``seg_first[i]`` is ``seg_topics[i]``;
    ``tag``: the run tag of the last line parsed."""

    path: str
    n_rows: int
    pool: np.ndarray = field(repr=False)
    pool_end: int
    dstart: np.ndarray = field(repr=False)
    values: np.ndarray = field(repr=False)
    lines: np.ndarray = field(repr=False)
    seg_topics: np.ndarray = field(repr=False)
    seg_first: np.ndarray = field(repr=False)
    tag: bytes = b""


#: Bytes of a block per parser work unit (threads_for: a thread per 8,192 units, 512 KiB).
_BYTES_PER_WORK = 64


class TrecParser:
    """Block-by-block parsing of qrels or run lines into growable arrays."""

    def __init__(self, path, is_run: bool, n_threads: Optional[int] = None, allocate=np.empty):
        """``allocate``: where the arrays come from (:class:`Growable`)."""
        self.path = input_name(path)
        self.is_run = is_run
        self.n_threads = n_threads
        self.values = Growable(np.float64 if is_run else np.int64, allocate=allocate)
        self.lines = Growable(np.int64, allocate=allocate)
        self.pool = Growable(np.uint8, allocate=allocate)
        self.dstart = Growable(np.int64, allocate=allocate)
        self.seg_topics: List[np.ndarray] = []
        self.seg_first: List[np.ndarray] = []
        self.line = 0
        self.tag = b""

    def restart(self, path) -> None:
        """Parse another file from its start, keeping the arrays (and their
        pages) of the previous one: the next file's rows overwrite them."""
        self.path = input_name(path)
        for g in (self.values, self.lines, self.pool, self.dstart):
            g.n = 0
        self.seg_topics, self.seg_first = [], []
        self.line = 0
        self.tag = b""

    def parse(self, block: Any) -> None:    # bytes or a memoryview of them
        """Parse a block of whole lines, in byte ranges on several threads
        when it is large (each range into its own stretch of the outputs, then
        closed up): the same arrays whatever the thread count."""
        block = memoryview(block)
        n_ranges = threads_for(block.nbytes // _BYTES_PER_WORK, self.n_threads)
        cuts = [0]
        for k in range(1, n_ranges):      # range ends: just after a newline
            at = max(int(block.nbytes * k // n_ranges), cuts[-1])
            nl = bytes(block[at: at + 65536]).find(b"\n") if at < block.nbytes else -1
            cuts.append(min(at + nl + 1, block.nbytes) if nl >= 0 else cuts[-1])
        cuts.append(block.nbytes)
        ranges = [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
        if not ranges:
            return
        # each range's line count places its rows: counted side by side (a pass over the block)
        counting = [helper_pool().submit(_parse.count_byte, block[a:b], 10) for a, b in ranges[1:]]
        lines_in = [_parse.count_byte(block[ranges[0][0]:ranges[0][1]], 10)] + [f.result() for f in counting]
        rows_max = sum(lines_in)
        for g in (self.values, self.lines, self.dstart):
            g.reserve(rows_max)
        self.pool.reserve(block.nbytes)
        row0, pool0, line0 = self.values.n, self.pool.n, self.line
        jobs = []
        for (a, b), nl in zip(ranges, lines_in):
            jobs.append(dict(a=a, b=b, row=row0, pool=pool0, line=line0))
            row0 += nl
            pool0 += b - a
            line0 += nl
        results: List[Any] = [None] * len(jobs)

        def run(i: int) -> None:
            j = jobs[i]
            nl = lines_in[i]
            seg_row = np.empty(nl, dtype=np.int64)
            tpool = np.empty(j["b"] - j["a"], dtype=np.uint8)
            tstart = np.empty(nl + 1, dtype=np.int64)
            r = j["row"]
            vals = self.values.a[r: r + nl]
            into = _parse.TrecOutputs(vals if self.is_run else EMPTY_F64, EMPTY_I64 if self.is_run else vals,
                                      self.lines.a[r: r + nl], self.pool.a, self.dstart.a[r: r + nl],
                                      seg_row, tpool, tstart)
            out = _parse.parse_trec(block[j["a"]: j["b"]], j["line"], self.is_run, into, j["pool"])
            results[i] = (out, seg_row, tpool, tstart)

        helpers = [helper_pool().submit(run, i) for i in range(1, len(jobs))]
        try:
            run(0)
        finally:
            wait(helpers)       # they write into this parser's arrays
        for f in helpers:
            f.result()
        for i, (out, seg_row, tpool, tstart) in enumerate(results):
            status, rows, line, pool_used, segs, tpool_used, tag_start, tag_len, err_line = out
            j = jobs[i]
            if status != S["OK"]:
                msg = self._message(status)
                if status in (S["MISSING_FIELDS"], S["TOO_MANY_FIELDS"]):
                    msg += _other_kind_hint(self.is_run, block[j["a"]: j["b"]], err_line - j["line"])
                raise line_error(self.path, err_line, msg)
            # close up: this range's rows and docno bytes follow the previous range's
            r, n = j["row"], self.values.n
            if r != n and rows:
                for g in (self.values, self.lines, self.dstart):
                    g.a[n: n + rows] = g.a[r: r + rows].copy()
            if j["pool"] != self.pool.n and pool_used > j["pool"]:
                self.pool.a[self.pool.n: self.pool.n + pool_used - j["pool"]] = self.pool.a[j["pool"]: pool_used].copy()
                self.dstart.a[n: n + rows] -= j["pool"] - self.pool.n
            if segs:
                tstart[segs] = tpool_used
                self.seg_topics.append(_fixed_bytes(tpool, tstart[:segs], np.diff(tstart[: segs + 1])))
                self.seg_first.append(seg_row[:segs] + n)
            if tag_start >= 0:
                self.tag = bytes(block[j["a"] + tag_start: j["a"] + tag_start + tag_len])
            for g in (self.values, self.lines, self.dstart):
                g.n += rows
            self.pool.n += pool_used - j["pool"]
            self.line = line

    def _message(self, status: int) -> str:
        msg = PARSE_MESSAGES.get(status)
        if status == S["MISSING_FIELDS"]:
            msg = ("expected 6 fields: topic Q0 docno rank score tag" if self.is_run
                   else "expected 4 fields: topic iteration docno relevance")
        elif status == S["TOO_MANY_FIELDS"]:
            msg = "expected 4 fields (topic iteration docno relevance); got more"
        return str(msg)

    def segments(self) -> Tuple[np.ndarray, np.ndarray]:
        if not self.seg_topics:
            return np.empty(0, dtype="S1"), EMPTY_I64
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

    def front(self, n_rows: int) -> "ParsedRows":
        """The first ``n_rows`` rows as views of the parser's arrays (valid
        until :meth:`drop_front` or :meth:`split_front`)."""
        topics, first = self.segments()
        nseg = int(np.searchsorted(first, n_rows, side="left"))
        pool_end = int(self.dstart.a[n_rows]) if n_rows < self.dstart.n else self.pool.n
        return ParsedRows(self.path, n_rows, self.pool.a, pool_end, self.dstart.a, self.values.a, self.lines.a,
                          topics[:nseg], first[:nseg], self.tag)

    def split_front(self, n_rows: int, spare: Optional["ParsedRows"] = None) -> "ParsedRows":
        """Hand over the first ``n_rows`` rows with the arrays that hold them
        (no copy): the parser goes on in other arrays (``spare``'s, rows
        handed over earlier and no longer used, else new ones) that start
        with the rows after them. For a join that runs while the parser reads on."""
        rows = self.front(n_rows)
        old = (self.values, self.lines, self.dstart, self.pool)
        arrays = ((spare.values, spare.lines, spare.dstart, spare.pool) if spare is not None
                  else (None,) * 4)
        cuts = (n_rows, n_rows, n_rows, rows.pool_end)
        fresh = []
        for g, a, cut in zip(old, arrays, cuts):
            h = Growable(g.a.dtype, allocate=g.allocate)
            if a is not None and a.shape[0] >= h.a.shape[0]:
                h.a = a
            h.reserve(g.n - cut)
            h.a[:g.n - cut] = g.a[cut:g.n]
            h.n = g.n - cut
            fresh.append(h)
        self.values, self.lines, self.dstart, self.pool = fresh
        self._rebase(n_rows, rows.pool_end)
        return rows

    def drop_front(self, n_rows: int) -> None:
        pool_cut = int(self.dstart.a[n_rows]) if n_rows < self.dstart.n else self.pool.n
        for g in (self.values, self.lines, self.dstart):
            g.drop_front(n_rows)
        self.pool.drop_front(pool_cut)
        self._rebase(n_rows, pool_cut)

    def _rebase(self, n_rows: int, pool_cut: int) -> None:
        """After the first ``n_rows`` rows (and ``pool_cut`` docno bytes) left the
        arrays: the docno offsets and the topic segments count from the rows kept."""
        self.dstart.a[: self.dstart.n] -= pool_cut
        topics, first = self.segments()
        keep = first >= n_rows
        self.seg_topics = [topics[keep]]
        self.seg_first = [first[keep] - n_rows]


_LAYOUT = {"run": "topic Q0 docno rank score tag", "qrels": "topic iteration docno relevance"}


def _line_kind(line: bytes) -> Optional[str]:
    """"run" for a line of exactly the 6 fields of a run line that the run
    scanner reads, "qrels" for one of the 4 fields of a qrels line that the
    qrels scanner reads, else None. (Split as the scanners split, so that
    the scanner cannot fail here on the number of fields.)"""
    n_fields = len(line.split())
    for kind, is_run, need in (("run", True, 6), ("qrels", False, 4)):
        if n_fields == need:
            try:
                TrecParser("", is_run).parse(memoryview(line + b"\n"))
            except ValueError:
                return None
            return kind
    return None


def _other_kind_hint(is_run: bool, block: Any, nth: int) -> str:
    """For a line with the wrong number of fields (the nth line of block):
    a hint when it is a line of the other kind of file (a swapped argument)."""
    lines = bytes(block).split(b"\n")
    other = "qrels" if is_run else "run"
    if not 1 <= nth <= len(lines) or _line_kind(lines[nth - 1]) != other:
        return ""
    return f"; the line looks like a {other} line ({_LAYOUT[other]}): is the file {'qrels' if is_run else 'a run'}?"


def _file_kind(path: PathLike) -> Optional[str]:
    """The :func:`_line_kind` of the file's first line that is neither blank
    nor a "#" comment (None also when the file cannot be read)."""
    try:
        # the first block only holds whole lines; leaving the loop closes the file
        for block in iter_line_blocks(path, 1 << 16):
            for line in bytes(block).split(b"\n"):
                s = line.strip()
                if s and not s.startswith(b"#"):
                    return _line_kind(s)
    except (OSError, ValueError):
        pass
    return None


@contextmanager
def qrels_before_run(qrels: Any, run: Any, names: Tuple[str, str], usage: str) -> Iterator[None]:
    """A reading error inside the block becomes "the qrels and the run are
    swapped" when the qrels file's first data line is a run line and the run
    file's a qrels line (the one detection of every front-end taking both).
    ``names`` name the two arguments, ``usage`` says how to call it right."""
    try:
        yield
    except ValueError as exc:
        # only files that can be read again: a pipe's or standard input's lines are gone
        if not (rereadable(qrels) and rereadable(run)) or (_file_kind(qrels), _file_kind(run)) != ("run", "qrels"):
            raise
        raise ValueError(f"{names[0]} ({os.fspath(qrels)}) looks like a run and {names[1]} ({os.fspath(run)}) "
                         f"like qrels: {usage}") from exc


def no_rows_error(path, is_run: bool, n_lines: int) -> ValueError:
    """The error for a TREC file without a result or judgment line (at the
    line after its last)."""
    what = "results" if is_run else "judgments"
    why = f"its {n_lines} line(s) are blank or comments" if n_lines else "the file is empty"
    return line_error(path, n_lines + 1, f"no {what} in the file: {why}")


def _sorted_table(path_s, is_run, cols, seg_topics, seg_first, n_threads, tag, n_lines):
    """Group rows by topic (bytewise) and sort docnos within topics.

    ``cols`` (vals, lines, dstart, pool) is consumed: each unsorted array is
    dropped once its sorted copy exists, so the peak is the arrays plus one.
    """
    pool_a = cols.pop("pool")
    dstart_a = cols.pop("dstart")
    n = dstart_a.shape[0]
    if n == 0:
        raise no_rows_error(path_s, is_run, n_lines)
    dlen = np.empty_like(dstart_a)
    dlen[:-1] = dstart_a[1:] - dstart_a[:-1]
    dlen[-1] = pool_a.shape[0] - dstart_a[-1]
    # topics: factorise the segments (bytewise order), then group rows
    uniq, seg_code = np.unique(seg_topics, return_inverse=True)
    order = np.empty(n, dtype=np.int64)
    offsets = np.empty(uniq.shape[0] + 1, dtype=np.int64)
    _parse.group_rows(np.ascontiguousarray(seg_first, dtype=np.int64), seg_code.ravel().astype(np.int64),
                      order, offsets)    # a counting pass: stable, no sort
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
        raise line_error(path_s, lb, f"duplicate docno {doc!r} for topic {topics[q]!r} (also on line {la})")
    vals = cols.pop("vals")[order]
    return (path_s, topics, offsets, pool_a, dstart_a, dlen, lines_a, vals, order, tag)


def _read_trec(path: PathLike, is_run: bool, block_size: int, progress: Progress,
               n_threads: Optional[int]):
    p = TrecParser(path, is_run, n_threads)
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
    see :func:`fastndcg.io.align_run`), fields after the tag are ignored, blank and ``#``
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


#: what a stream of a run (:func:`iter_run`, the join of a run file) needs of its lines
CONTIGUOUS_TOPICS = ("streaming needs each topic's lines to be contiguous (sort the run by topic "
                      "first, e.g. sort -s -k1,1)")


def check_topics_contiguous(ps, names, offsets, order, lines) -> None:
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
    raise line_error(ps, bad_line, f"topic {bad_topic!r} appears again after other topics; {CONTIGUOUS_TOPICS}")


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
    p = TrecParser(path, True, n_threads)
    seen: set = set()
    row0 = 0

    def piece(n_rows: int) -> Run:
        nonlocal row0
        (ps, topics, offsets, pool, s, ln, lines, scores, order, tag) = p.table(n_rows, n_threads, copy=True)
        names = topics.tolist()
        again = [i for i, t in enumerate(names) if t in seen]
        if again:
            i = again[0]
            raise line_error(ps, int(lines[offsets[i]:offsets[i + 1]].min()),
                        f"topic {names[i]!r} appears again after other topics; {CONTIGUOUS_TOPICS}")
        check_topics_contiguous(ps, names, offsets, order, lines)
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
        raise no_rows_error(path, True, p.line)
