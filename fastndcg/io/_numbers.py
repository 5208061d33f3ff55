"""Files of one number per line: model predictions (:func:`read_predictions`, also one column of
a whitespace-separated file) and group files (LightGBM ``.query``, XGBoost ``.group``:
:func:`read_group_file`)."""
from __future__ import annotations
import os
from typing import Optional

import numpy as np

from fastndcg.io import _parse
from fastndcg._core.groups import first_overflow
from fastndcg.io._files import DEFAULT_BLOCK_SIZE, PathLike, Progress, S, EMPTY_F64, EMPTY_I64, Growable, PARSE_MESSAGES, line_error, iter_line_blocks, input_name


# ----------------------------------------------------------------------------- numbers


class NumberStream:
    """Numbers of a one-value-per-line file, handed out n at a time. ``column_argument``:
    the caller's argument that picks one field of each line (None: the caller has none)."""

    def __init__(self, path, column: Optional[int], integer: bool, block_size: int,
                 progress: Progress = None, column_argument: Optional[str] = None):
        self.path = input_name(path)
        self.column_argument = column_argument
        self.column = -1 if column is None else int(column)
        self.integer = integer
        self.blocks = iter_line_blocks(path, block_size, progress)
        self.buf = Growable(np.int64 if integer else np.float64)
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
            EMPTY_F64 if self.integer else out, out if self.integer else EMPTY_I64)
        if status != S["OK"]:
            what = PARSE_MESSAGES.get(status)
            if status == S["MISSING_FIELDS"]:
                what = f"the line has no field number {self.column} (0-based)"
            elif status == S["TOO_MANY_FIELDS"] and self.column_argument is not None:
                raise line_error(self.path, err_line, "expected one value per line; got several fields (pass {0} to "
                                                 "take field N, 0-based)", [(self.column_argument, "N")])
            elif status == S["TOO_MANY_FIELDS"]:
                what = "expected one value per line; got several fields"
            raise line_error(self.path, err_line, what)
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


def prediction_line(row: int) -> int:
    """The line (1-based) of the score of data row ``row`` (0-based) in a
    prediction file: every line holds one score (blank lines are errors)."""
    return row + 1


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
    scores = NumberStream(path, column, False, block_size, progress, column_argument="column").all()
    if n is not None and scores.shape[0] != n:
        what = f"the data file {data_path}" if data_path else "the data"
        if scores.shape[0] < n:
            raise line_error(path, scores.shape[0] + 1,
                        f"the prediction file ends after {scores.shape[0]} scores but {what} has {n} rows")
        raise line_error(path, n + 1, f"the prediction file has {scores.shape[0]} scores but {what} has "
                                 f"only {n} rows (this line is score number {n + 1})")
    return scores


def read_group_file(path: PathLike, *, block_size: int = DEFAULT_BLOCK_SIZE) -> np.ndarray:
    """Read a LightGBM ``.query`` / XGBoost ``.group`` file: one query size
    (an integer >= 0) per line, in file order, adding up to at most
    2**63 - 1 rows. Returns int64 sizes."""
    sizes = NumberStream(path, None, True, block_size).all()
    bad = np.flatnonzero(sizes < 0)
    if bad.size:
        raise line_error(path, int(bad[0]) + 1, f"a query size must be >= 0; got {int(sizes[bad[0]])}")
    wrap = first_overflow(sizes)
    if wrap >= 0:
        raise line_error(path, wrap + 1, "the query sizes add up to more than 2**63 - 1 rows here")
    return sizes
