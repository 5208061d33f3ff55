"""Opening input files (plain, gzip, bz2, xz: recognised by their first bytes) and reading
them in blocks of whole lines; growable arrays for the parsers' output; the one error rule of
every reader (``path:line: message``)."""
from __future__ import annotations
import bz2
import gzip
import io
import lzma
import os
import queue
import stat
import sys
import threading
import types
import warnings
import zlib
from typing import IO, Any, Callable, Generator, Iterator, List, Optional, Sequence, Tuple, Type, Union, cast

import numpy as np

from fastndcg.io import _parse
from fastndcg._core.arguments import NamedArgumentError, Setting, caller_stacklevel, literal


PathLike = Union[str, "os.PathLike[str]"]
Progress = Optional[Callable[[int, int], None]]

#: Bytes read per block. Memory beyond the output arrays is a few blocks.
DEFAULT_BLOCK_SIZE = 16 << 20

S = _parse.STATUS
PARSE_MESSAGES = {
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


def line_error(path, line, message, settings: Sequence[Setting] = ()) -> ValueError:
    """``path:line: message``; with ``settings``, ``message`` is a template naming them
    (:class:`fastndcg._core.arguments.NamedArgumentError`)."""
    if settings:
        return NamedArgumentError(literal(f"{input_name(path)}:{line}: ") + message, settings)
    return ValueError(f"{input_name(path)}:{line}: {message}")


# ----------------------------------------------------------------------------- raw blocks


def _compression(head: bytes) -> Optional[str]:
    """"gz", "bz2", "xz" from a file's first bytes, or None for a plain file."""
    if head[:2] == b"\x1f\x8b":
        return "gz"
    if head[:3] == b"BZh":
        return "bz2"
    if head[:6] == b"\xfd7zXZ\x00":
        return "xz"
    return None


#: The path that names standard input, as in trec_eval and most command-line tools.
STDIN = "-"

#: A UTF-8 byte-order mark: editors on Windows write it at the start of text files.
BOM = b"\xef\xbb\xbf"


class ByteOrderMarkWarning(UserWarning):
    """A file started with a UTF-8 byte-order mark, which the readers skipped."""


def input_name(path: PathLike) -> str:
    """How messages name an input: ``<stdin>`` for :data:`STDIN`, else the path."""
    p = os.fspath(path)
    return "<stdin>" if p == STDIN else p


def warn_bom(path: PathLike) -> None:
    """The one warning for a skipped byte-order mark (the file named), at the caller's line."""
    warnings.warn(ByteOrderMarkWarning(f"{input_name(path)}: skipped the UTF-8 byte-order mark at the start of "
                                       "the file"), stacklevel=caller_stacklevel())


def rereadable(path: Any) -> bool:
    """Whether ``path`` names a regular file, which can be read again from its start (a pipe,
    a FIFO, ``/dev/fd/N`` of a process substitution or standard input can be read once)."""
    if not isinstance(path, (str, os.PathLike)) or os.fspath(path) == STDIN:
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _stdin_binary():
    stream = getattr(sys.stdin, "buffer", sys.stdin)
    if stream is None or not hasattr(stream, "readinto"):
        raise ValueError(f"{input_name(STDIN)}: standard input is not readable")
    return stream


class _Input(io.RawIOBase):
    """An input read once, from its start to its end, without seeking: a regular file, a
    pipe, a FIFO, ``/dev/fd/N`` (``<(zcat run.gz)``) or standard input (:data:`STDIN`).
    The first bytes are read ahead (:attr:`kind`: gzip, bz2 or xz by magic bytes) and handed
    out again first. :attr:`size`: the bytes of a regular file, else None (unknown);
    ``tell()``: the bytes read so far (progress)."""

    def __init__(self, path: PathLike) -> None:
        super().__init__()
        self.name = input_name(path)
        if os.fspath(path) == STDIN:
            self._raw, self._owned = _stdin_binary(), False
        else:
            self._raw, self._owned = open(path, "rb", buffering=0), True
        self.size: Optional[int] = None
        try:
            st = os.fstat(self._raw.fileno())
            if stat.S_ISREG(st.st_mode):
                self.size = st.st_size
        except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
            pass
        head = b""
        while len(head) < 6:        # a pipe may hand out fewer bytes than asked
            got = self._raw.read(6 - len(head))
            if not got:
                break
            head += got
        self._head = head
        self._read = 0
        self.kind = _compression(head)

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = 0
        if self._head:
            n = min(len(self._head), len(b))
            b[:n] = self._head[:n]
            self._head = self._head[n:]
        if n < len(b):
            with memoryview(b) as view:
                n += self._raw.readinto(view[n:]) or 0
        self._read += n
        return n

    def read(self, size: int = -1) -> bytes:
        if self._head or size is None or size < 0:
            return super().read(-1 if size is None else size)
        got = self._raw.read(size) or b""      # no copy through a buffer
        self._read += len(got)
        return got

    def tell(self) -> int:
        return self._read

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        if not self.closed and self._owned:
            self._raw.close()
        super().close()


def open_binary(path: PathLike):
    """Open for binary reading; gzip, bz2 and xz are detected by magic bytes.
    A pipe, a FIFO or standard input (``"-"``) is read as it comes (no seeking).

    Returns (stream, raw) where raw is the underlying file (for progress:
    ``raw.tell()`` counts the bytes read).
    """
    raw = _Input(path)
    if raw.kind == "gz":
        return gzip.GzipFile(fileobj=raw, mode="rb"), raw
    if raw.kind == "bz2":
        return bz2.BZ2File(raw, mode="rb"), raw
    if raw.kind == "xz":
        return lzma.LZMAFile(cast(IO[bytes], raw), mode="rb"), raw
    return io.BufferedReader(raw), raw


_gzip_impl: types.ModuleType = zlib
_GZIP_ERRORS: Tuple[Type[BaseException], ...] = (zlib.error,)
try:     # ISA-L's inflate: 2-3x zlib's speed on gzip (the "isal" extra); zlib otherwise
    from isal import isal_zlib
    _gzip_impl = isal_zlib
    _GZIP_ERRORS = (zlib.error, getattr(isal_zlib, "error"))
except ImportError:  # pragma: no cover - depends on the environment
    pass
#: What a broken compressed stream (or a failing read) raises.
_READ_ERRORS: Tuple[Type[BaseException], ...] = (OSError, EOFError, lzma.LZMAError) + _GZIP_ERRORS

#: Compressed bytes read at a time; decompressed bytes handed out at a time (at most).
_RAW_READ = 1 << 18
_OUT_CHUNK = 1 << 20
_TRUNCATED = "Compressed file ended before the end-of-stream marker was reached"


def _gzip_decompressor(impl=None):
    """A gzip member's decompressor (zlib's API): ISA-L's when installed."""
    return (impl or _gzip_impl).decompressobj(wbits=31)


def _decompressed(raw, kind: str, gzip_impl=None) -> Iterator[Tuple[bytes, int]]:
    """Yield (decompressed bytes, compressed bytes consumed so far) of a gz,
    bz2 or xz file, in pieces of at most :data:`_OUT_CHUNK` bytes.

    Unlike the standard library's file objects, every byte decoded before a
    corrupt or truncated spot is handed out before the error is raised, so
    that the caller can name the line where the stream breaks. Several
    members/streams follow each other as in ``gzip``/``bz2``/``lzma``:
    zero padding between gzip members is skipped; data after a bz2 or xz
    stream that is not another stream ends the file, as in the standard
    library.
    """
    def new():
        if kind == "gz":
            return _gzip_decompressor(gzip_impl)
        return bz2.BZ2Decompressor() if kind == "bz2" else lzma.LZMADecompressor()

    zlib_like = kind == "gz"
    d = new()
    fed = False           # the current member has had input
    first_member = True
    data = b""
    while True:
        if not data:
            data = raw.read(_RAW_READ)
            if not data:
                # end of the compressed file: what the decompressor still holds, then done
                while not d.eof and fed:
                    out = d.decompress(b"", _OUT_CHUNK)
                    if not out:
                        break
                    yield out, raw.tell()
                if fed and not d.eof:
                    raise EOFError(_TRUNCATED)
                return
        try:
            out = d.decompress(data, _OUT_CHUNK)
        except (OSError, EOFError, lzma.LZMAError) as exc:
            if not fed and not first_member and not zlib_like:
                return        # not another stream: the end of the file (as BZ2File/LZMAFile)
            raise exc
        fed = True
        data = d.unconsumed_tail if zlib_like else b""
        if out:
            yield out, raw.tell()
        if not zlib_like:
            while not d.eof and not d.needs_input:
                out = d.decompress(b"", _OUT_CHUNK)
                if out:
                    yield out, raw.tell()
        if d.eof:
            data = d.unused_data
            if zlib_like:     # gzip files may be padded with zeros between and after members
                data = data.lstrip(b"\0")
                while not data:
                    data = raw.read(_RAW_READ)
                    if not data:
                        return
                    data = data.lstrip(b"\0")
            d = new()
            fed = False
            first_member = False


def _sequential(raw) -> Iterator[Tuple[bytearray, int]]:
    """Yield (bytes, bytes read so far) of an input of unknown size (a pipe, a FIFO, standard
    input) in pieces of about :data:`_OUT_CHUNK` bytes (a pipe hands out 64 KiB or less a read)."""
    while True:
        piece = bytearray(_OUT_CHUNK)
        got = 0
        with memoryview(piece) as view:
            while got < _OUT_CHUNK:
                n = raw.readinto(view[got:])
                if not n:
                    break
                got += n
        if not got:
            return
        del piece[got:]
        yield piece, raw.tell()
        if got < _OUT_CHUNK:
            return


def _background(chunks: Iterator[Tuple[Any, int]], depth: int = 4) -> Generator[Tuple[Any, int], None, None]:
    """Run an iterator of decompressed pieces on a helper thread, ``depth``
    pieces ahead, so that decompression (which releases the GIL) overlaps
    the caller's parsing. Errors are raised in the caller, after the pieces
    that came before them; closing the generator stops the thread."""
    q: "queue.Queue[Tuple[int, Any]]" = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        try:
            for item in chunks:
                if not put((0, item)):
                    return
            put((1, None))
        except BaseException as exc:    # handed to the reading thread
            put((2, exc))

    t = threading.Thread(target=work, name="fastndcg-decompress", daemon=True)
    t.start()
    try:
        while True:
            what, item = q.get()
            if what == 0:
                yield item
            elif what == 1:
                return
            else:
                raise item
    finally:
        stop.set()
        t.join()


def _grown(buf: bytearray, filled: int, buffers: Optional[List[bytearray]]) -> bytearray:
    """A buffer twice as large holding buf's first ``filled`` bytes (a line longer than the
    buffer), kept in ``buffers`` for the next file when given."""
    bigger = bytearray(2 * len(buf))
    bigger[:filled] = buf[:filled]
    if buffers is not None:
        buffers[:1] = [bigger]
    return bigger


# over 100 lines: one generator owns the buffer, its fill level and the line count of a broken stream
def iter_line_blocks(path: PathLike, block_size: int = DEFAULT_BLOCK_SIZE,
                     progress: Progress = None, buffers: Optional[List[bytearray]] = None) -> Iterator[memoryview]:
    """Yield the file's content in blocks of whole lines, each ending in b"\\n".

    Each block is a read-only view into a reused buffer, valid until the next
    block is requested (copy it with ``bytes(block)`` to keep it). A missing
    final newline is added. A line longer than ``block_size`` is kept whole
    (the buffer grows to hold it). Memory: the buffer (about ``block_size``).
    The input is read once from its start, without seeking: a file, a pipe, a
    FIFO, ``/dev/fd/N`` (``<(zcat run.gz)``) or standard input (``"-"``, named
    ``<stdin>`` in messages); each block is filled whole however little a pipe
    hands out per read. A UTF-8 byte-order mark at the start of the content is
    skipped, with a :class:`ByteOrderMarkWarning` naming the file.
    Compressed files are decompressed on a helper thread while the caller
    parses (gzip with ISA-L when the ``isal`` package is installed). A
    compressed stream that breaks raises ValueError ``path:line:`` naming the
    line being read when it broke (the lines before it were handed out).
    ``buffers``: a list whose first item, a bytearray, is read into when it
    is large enough, and which holds the buffer used afterwards (files read
    one after the other reuse it instead of faulting in new pages).
    ``progress(done, total)``: bytes read; ``total`` is 0 when unknown (a pipe).
    """
    if block_size < 1:
        raise ValueError(f"block_size must be >= 1; got {block_size}")
    raw = _Input(path)
    kind = raw.kind
    total = raw.size or 0
    compressed = kind is not None
    lines_out = 0          # lines handed out, counted for compressed streams only
    filled = 0
    decoded = 0            # bytes of buf holding decoded data (beyond filled while a block is assembled)
    first = True           # the first block: where a byte-order mark would be
    pieces = None
    if kind is not None:
        pieces = _background(_decompressed(raw, kind))
    elif raw.size is None:
        # a pipe: read on a helper thread, so that the writer (zcat, ...) goes on while the caller parses
        pieces = _background(_sequential(raw))
    try:
        # a plain file smaller than a block needs no more (zeroing 16 MiB per small file shows)
        want = block_size if compressed or raw.size is None else max(1, min(block_size, total + 1))
        buf = buffers[0] if buffers and len(buffers[0]) >= want else bytearray(want)
        if buffers is not None:
            buffers[:1] = [buf]
        pending = b""          # decompressed bytes that did not fit in the buffer yet
        while True:
            if filled == len(buf):       # a line longer than the buffer: grow (a new buffer)
                buf = _grown(buf, filled, buffers)
            if pieces is None:
                with memoryview(buf) as view:
                    got = raw.readinto(view[filled:])
                if progress is not None:
                    progress(raw.tell(), total)
            else:
                got = 0
                while filled + got < len(buf):
                    if not pending:
                        item = next(pieces, None)
                        if item is None:
                            break
                        pending = item[0]
                        if progress is not None:
                            progress(item[1], total)
                    take = min(len(pending), len(buf) - filled - got)
                    buf[filled + got: filled + got + take] = pending[:take]
                    pending = pending[take:]
                    got += take
                    decoded = filled + got
            if not got:
                break
            start = filled
            filled += got
            decoded = filled
            if first and (filled >= len(BOM) or buf.find(b"\n", 0, filled) >= 0):
                first = False
                if filled >= len(BOM) and buf[:len(BOM)] == BOM:
                    warn_bom(path)
                    buf[:filled - len(BOM)] = buf[len(BOM):filled]
                    filled -= len(BOM)
                    decoded = filled
                    start = max(0, start - len(BOM))
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
            filled = decoded = rest
        if filled:
            yield memoryview(bytes(buf[:filled]) + b"\n")
    except _READ_ERRORS as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        if compressed:
            # the lines decoded before the break but not handed out count too
            line = lines_out + buf.count(b"\n", 0, max(filled, decoded)) + 1
            raise line_error(path, line, f"cannot decompress: {exc} (the compressed stream breaks "
                                    "while this line is read)") from exc
        raise ValueError(f"{input_name(path)}: cannot read: {exc}") from exc
    finally:
        if pieces is not None:
            pieces.close()
        raw.close()



def split_point(path: PathLike, window: int = 1 << 20) -> Optional[int]:
    """Where a plain file of TREC lines can be cut into two halves of whole topics: the start
    of the first line after the middle whose topic (first field) differs from the line's before
    it (blank and ``#`` lines skipped). None for a compressed file, one that starts with a
    byte-order mark, or no such line within ``window`` bytes past the middle. The lines are
    not checked here (the readers of each half check them)."""
    try:
        with open(path, "rb", buffering=0) as f:
            size = os.fstat(f.fileno()).st_size
            head = f.read(6)
            if _compression(head) is not None or head[:len(BOM)] == BOM or size < 2:
                return None
            f.seek(size // 2)
            data = f.read(window)
    except OSError:
        return None
    at = data.find(b"\n") + 1          # the first whole line after the middle
    if at <= 0:
        return None
    topic = None
    while True:
        end = data.find(b"\n", at)
        if end < 0:
            return None
        fields = data[at:end].split(None, 1)
        if fields and not fields[0].startswith(b"#"):
            if topic is not None and fields[0] != topic:
                return size // 2 + at
            topic = fields[0]
        at = end + 1


def iter_range_blocks(path: PathLike, start: int, stop: Optional[int], block_size: int = DEFAULT_BLOCK_SIZE,
                      buffers: Optional[List[bytearray]] = None) -> Iterator[memoryview]:
    """The lines of a plain file from byte ``start`` to ``stop`` (None: its end), both line
    starts (:func:`split_point`), in blocks of whole lines as :func:`iter_line_blocks` hands
    them out (a view valid until the next block; a missing final newline added; ``buffers``
    reused). Nothing is decompressed and no byte-order mark looked for."""
    if block_size < 1:
        raise ValueError(f"block_size must be >= 1; got {block_size}")
    try:
        with open(path, "rb", buffering=0) as f:
            end = os.fstat(f.fileno()).st_size if stop is None else stop
            f.seek(start)
            pos, filled = start, 0
            buf = buffers[0] if buffers and len(buffers[0]) >= block_size else bytearray(block_size)
            if buffers is not None:
                buffers[:1] = [buf]
            while pos < end:
                if filled == len(buf):       # a line longer than the buffer: grow
                    buf = _grown(buf, filled, buffers)
                with memoryview(buf) as view:
                    got = f.readinto(view[filled:filled + min(len(buf) - filled, end - pos)])
                if not got:
                    break
                pos += got
                cut = buf.rfind(b"\n", filled, filled + got)
                filled += got
                if cut < 0:
                    continue
                block = memoryview(buf).toreadonly()[: cut + 1]
                yield block
                block.release()
                rest = filled - cut - 1
                if rest:
                    buf[:rest] = buf[cut + 1: filled]
                filled = rest
            if filled:
                yield memoryview(bytes(buf[:filled]) + b"\n")
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise ValueError(f"{input_name(path)}: cannot read: {exc}") from exc

class Growable:
    """A 1-D numpy array grown by 1.5x (a copy of the rows in use) and
    trimmed in place at the end. ``allocate(n, dtype)``: where a larger array
    comes from (default ``np.empty``; the run join's parser uses
    :func:`fastndcg.io._pages.page_array`, whose memory goes back to the
    system when the array is freed)."""

    def __init__(self, dtype, capacity: int = 0, allocate: Callable[[int, Any], np.ndarray] = np.empty):
        self.allocate = allocate
        self.a = allocate(max(capacity, 16), dtype)
        self.n = 0

    def reserve(self, extra: int) -> None:
        need = self.n + extra
        if need > self.a.shape[0]:
            # a new array and a copy of the rows in use: resize() would also
            # zero the new tail (time, and resident pages nobody may use)
            bigger = self.allocate(max(need, int(self.a.shape[0] * 1.5)), self.a.dtype)
            bigger[:self.n] = self.a[:self.n]
            self.a = bigger

    def tail(self) -> np.ndarray:
        return self.a[self.n:]

    def finish(self) -> np.ndarray:
        if not self.a.flags.owndata:        # a mapping (page_array): its unwritten pages cost nothing
            return self.a[:self.n]
        self.a.resize(self.n, refcheck=False)
        return self.a

    def drop_front(self, k: int) -> None:
        """Remove the first k entries (streaming)."""
        rest = self.n - k
        if rest > 0:
            self.a[:rest] = self.a[k:self.n]
        self.n = rest


EMPTY_F64 = np.empty(0, dtype=np.float64)
EMPTY_I64 = np.empty(0, dtype=np.int64)
EMPTY_U8 = np.empty(0, dtype=np.uint8)


def pool_strings(pool: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
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
