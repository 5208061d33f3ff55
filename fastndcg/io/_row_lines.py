"""Rows of arrays to the file lines they were read from: an error about one value of an array
read from a file (``labels[7]=2.5``) names the file and the line instead (:func:`at_file_lines`),
the one error rule of every reader, for the front-ends that evaluate files (``fastndcg eval``,
``test``, ``compare``, the streams). The readers say where their rows are (:data:`RowLines`:
:meth:`fastndcg.io.SvmlightData.row_lines`, a run's :meth:`fastndcg.io.AlignedRun.score_line`)."""
from __future__ import annotations
from contextlib import contextmanager
from typing import Callable, Dict, Iterator, Optional, Tuple

from fastndcg.io._files import line_error


#: Where the rows of arrays read from files come from: for an argument name
#: (``labels``, ``scores``), the file and the 1-based line of the argument's row i.
RowLines = Dict[str, Tuple[str, Callable[[int], Optional[int]]]]


def _value_at(exc: BaseException) -> Optional[BaseException]:
    """The error about one value of an array argument in exc or what it
    re-raises (its cause or context), or None. Such errors
    (:class:`fastndcg._core.query_checks.ValueAtError`, raised by the checks of
    every kernel) carry ``argument``, ``index`` and ``detail``; wrappers
    that add context to the message carry None."""
    seen = set()
    e: Optional[BaseException] = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if getattr(e, "argument", None) is not None and getattr(e, "index", None) is not None:
            return e
        e = e.__cause__ or e.__context__
    return None


def file_line_error(exc: BaseException, rows: RowLines) -> Optional[ValueError]:
    """``exc`` as ``path:line: message`` when it is about row i of an argument
    of ``rows`` (see :func:`at_file_lines`), else None."""
    bad = _value_at(exc)
    if bad is None or getattr(bad, "argument") not in rows:
        return None
    path, line_of = rows[getattr(bad, "argument")]
    line = line_of(int(getattr(bad, "index")))
    if line is None:        # a row that kept no line (a run joined while read keeps few)
        return None
    return line_error(path, line, getattr(bad, "detail"))


@contextmanager
def at_file_lines(rows: RowLines) -> Iterator[None]:
    """Errors about one value of an array read from a file name the file and line.

    Inside the block, a ValueError about row i of an argument of ``rows``
    (e.g. ``labels must be non-negative integers ...; got labels[7]=2.5 (query
    1, ...)``, also when a wrapper re-raised it) becomes ``path:line: labels
    must be ...; got 2.5``, the one error rule of every reader. Other errors
    pass unchanged. The front-ends that evaluate files (``fastndcg eval``,
    ``test``, ``compare``, streamed or not) evaluate inside it.
    """
    try:
        yield
    except ValueError as exc:
        err = file_line_error(exc, rows)
        if err is None:
            raise
        raise err from exc
