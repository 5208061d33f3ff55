"""Output helpers shared by the command line and the comparison report:
aligned text tables, CSV fields, JSON-safe query ids, and atomic writes.

Kept apart from :mod:`fastndcg.cli` so that library modules (``compare``)
do not import the command line.
"""
from __future__ import annotations

import math
import os
import stat
import sys
import warnings
from typing import Any, List, Optional, Union

import numpy as np

from fastndcg._core.arguments import caller_stacklevel


def write_output(text: Union[str, bytes], path: Optional[str]) -> None:
    """Write everything at once: to stdout, or atomically to ``path`` (a
    temporary file in the same folder, then renamed), so that a failure
    never leaves a partial output file. ``bytes`` are written as they are; in text, ids read
    from files (``surrogateescape``) are written as their bytes."""
    if path is None or path == "-":
        buffer = getattr(sys.stdout, "buffer", None)
        if isinstance(text, str) and buffer is not None:
            # ids are their files' bytes (surrogateescape): written back as they were, whatever
            # the errors handler of stdout (strict under most UTF-8 locales)
            text = text.encode(sys.stdout.encoding or "utf-8", "surrogateescape")
        if isinstance(text, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(text)
        else:
            sys.stdout.write(text)
        sys.stdout.flush()
        return
    import tempfile     # here: `fastndcg eval` to stdout does without it and its imports (shutil, random, ...)

    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".fastndcg-", dir=folder)
    except OSError as exc:      # name the output, not the temporary file
        raise type(exc)(exc.errno, f"cannot create a file in {folder!r}: {exc.strerror}", path) from None
    try:
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as fb:
                fb.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
                f.write(text)
        # mkstemp creates 0600: give the file the mode a plain open() would
        # (an existing file keeps its own)
        if os.path.exists(path):
            mode = stat.S_IMODE(os.stat(path).st_mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def table(header: List[str], rows: List[List[str]], right_from: int = 1) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]

    def line(cells):
        return "  ".join(c.ljust(w) if i < right_from else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows]) + "\n"


class NotUtf8Warning(UserWarning):
    """Strings of a JSON output held bytes that are not UTF-8 (written as ``\\xNN``)."""


def _utf8_text(s: str) -> str:
    """``s`` as valid Unicode: a string read with ``surrogateescape`` (a topic id or a path
    whose bytes are not UTF-8) has its bytes that are not UTF-8 written as ``\\xNN`` and its
    backslashes doubled (so that the original bytes can be told back); any other string is
    returned as it is."""
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        pass
    try:
        raw = s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:       # a lone surrogate that no byte gave (a Python string)
        raw = s.encode("utf-8", "surrogatepass")
    return raw.replace(b"\\", b"\\\\").decode("utf-8", "backslashreplace")


def _utf8_strings(o: Any, changed: List[str]) -> Any:
    """``o`` (dicts, lists, strings, numbers) with every string :func:`_utf8_text`; the
    strings changed are appended to ``changed``."""
    if isinstance(o, str):
        t = _utf8_text(o)
        if t is not o:
            changed.append(t)
        return t
    if isinstance(o, dict):
        return {_utf8_strings(k, changed): _utf8_strings(v, changed) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_utf8_strings(v, changed) for v in o]
    return o


def json_text(doc: Any, indent: Optional[int] = 2, allow_nan: bool = False) -> str:
    """The JSON text of ``doc``, valid for strict parsers (RFC 8259: no lone surrogates).

    Ids and paths are kept as their bytes (``surrogateescape``); one that is not UTF-8 would
    be a lone surrogate (``"1\\udcff"``), which strict parsers reject: such a string is
    written by :func:`_utf8_text` (``"1\\\\xff"``, the text ``1\\xff``), with one
    :class:`NotUtf8Warning`. The other formats (table, CSV, trec) write the bytes as they are.
    """
    import json         # here: the other formats do without it

    text = json.dumps(doc, indent=indent, allow_nan=allow_nan)
    if "\\ud" not in text:         # no surrogate escaped (the usual case): no second pass
        return text
    changed: List[str] = []
    text = json.dumps(_utf8_strings(doc, changed), indent=indent, allow_nan=allow_nan)
    if changed:
        warnings.warn(NotUtf8Warning(
            f"{len(set(changed))} string(s) of the JSON output are not UTF-8 (e.g. \"{changed[0]}\"): their bytes that "
            "are not UTF-8 are written as \\xNN and their backslashes doubled (the other formats write the "
            "bytes as they are)"), stacklevel=caller_stacklevel())
    return text


def qid_json(q: Any) -> Any:
    q = q.item() if isinstance(q, np.generic) else q
    return q if isinstance(q, (int, str)) else str(q)


def csv_field(s: str) -> str:
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n\r') else s


def csv_num(v: float) -> str:
    return "" if math.isnan(v) else repr(float(v))
