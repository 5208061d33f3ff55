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
import tempfile
from typing import Any, List, Optional, Union

import numpy as np


def write_output(text: Union[str, bytes], path: Optional[str]) -> None:
    """Write everything at once: to stdout, or atomically to ``path`` (a
    temporary file in the same folder, then renamed), so that a failure
    never leaves a partial output file. ``bytes`` are written as they are."""
    if path is None or path == "-":
        if isinstance(text, bytes):
            sys.stdout.buffer.write(text)
        else:
            sys.stdout.write(text)
        sys.stdout.flush()
        return
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
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
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


def qid_json(q: Any) -> Any:
    q = q.item() if isinstance(q, np.generic) else q
    return q if isinstance(q, (int, str)) else str(q)


def csv_field(s: str) -> str:
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n\r') else s


def csv_num(v: float) -> str:
    return "" if math.isnan(v) else repr(float(v))
