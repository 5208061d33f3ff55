"""Opening input files (plain, gzip, bz2, xz: recognised by their first bytes) and reading
them in blocks of whole lines; growable arrays for the parsers' output; the one error rule of
every reader (``path:line: message``)."""
from __future__ import annotations
import bz2
import gzip
import lzma
import os
import zlib
from typing import Callable, Iterator, Optional, Union

import numpy as np

from fastndcg.io import _parse


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
