"""What every sub-command shares: exit codes, option value types (cutoffs, presets, gains,
probabilities), default cutoffs per preset, progress on stderr, notes and warnings."""
from __future__ import annotations
import argparse
import math
import sys
import time
from typing import Dict, List, Optional, TypeVar

#: a cutoff of -k (``all``: None) or of demo's -k (integers only)
_K = TypeVar("_K", int, Optional[int])


EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_IO = 3
EXIT_DATA = 4
EXIT_INTERRUPTED = 130


def cutoffs_arg(text: str) -> List[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"cutoffs must be comma-separated integers; got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"cutoffs must be integers >= 1; got {text!r}")
    return _distinct(values)


def _distinct(values: List[_K]) -> List[_K]:
    """A repeated cutoff is the same column: each once, first appearance first (the one rule of
    results keyed by cutoff, :func:`fastndcg._core.query_checks.distinct_cutoffs`)."""
    from fastndcg._core.query_checks import distinct_cutoffs

    return distinct_cutoffs(values)


def nonnegative_int_arg(text: str) -> int:
    return _int_at_least(text, 0)


def positive_int_arg(text: str) -> int:
    return _int_at_least(text, 1)


def _int_at_least(text: str, low: int) -> int:
    """The type of the integer options with a lower bound (counts, seeds, columns): a value
    out of range is a usage error when the options are read, before any work."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer; got {text!r}") from None
    if v < low:
        raise argparse.ArgumentTypeError(f"expected an integer >= {low}; got {text!r}")
    return v


# ============================================================================ shared helpers


def cutoff_list_arg(text: str) -> List[Optional[int]]:
    """``1,3,5,10``; ``all`` (or ``full``) is the whole list; ``5,10,5`` is ``5,10``."""
    out: List[Optional[int]] = []
    for part in text.split(","):
        part = part.strip().lower()
        if not part:
            continue
        if part in ("all", "full"):
            out.append(None)
            continue
        try:
            v = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"cutoffs must be comma-separated integers >= 1 or 'all'; got {text!r}") from None
        if v < 1:
            raise argparse.ArgumentTypeError(f"cutoffs must be integers >= 1 or 'all'; got {text!r}")
        out.append(v)
    if not out:
        raise argparse.ArgumentTypeError(f"no cutoffs in {text!r}")
    return _distinct(out)


def preset_name_arg(text: str) -> str:
    from fastndcg.conventions._convention import PRESETS
    from fastndcg.conventions._presets import unknown_preset_message

    if text not in PRESETS:
        raise argparse.ArgumentTypeError(unknown_preset_message(text))
    return text


def preset_list_arg(text: str) -> Optional[List[str]]:
    """``standard,letor4,...``; ``all`` is every registered preset (None)."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    if names == ["all"]:
        return None
    if not names:
        raise argparse.ArgumentTypeError(f"no preset names in {text!r}")
    for name in names:
        preset_name_arg(name)
    return list(dict.fromkeys(names))


def _gain_spec(text: str):
    """trec_eval's ``ndcg.L=G`` parameters: ``1=3,2=9,4=4.5`` (:func:`fastndcg.measures._trec_gain_specs.parse_gains`)."""
    from fastndcg.measures._trec_gain_specs import parse_gains

    try:
        return parse_gains(text, name="")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def probability_arg(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError(f"expected a number strictly between 0 and 1; got {text!r}")
    return v




class Progress:
    """A one-line progress bar on stderr for long work.

    Drawn only when enabled, and only once the work has lasted ``delay``
    seconds; redrawn at most 10 times a second; erased when done.
    """

    def __init__(self, enabled: bool, delay: float = 0.5, stream=None):
        self.enabled = enabled
        self.delay = delay
        self.stream = stream if stream is not None else sys.stderr
        self.label = ""
        self.t0 = time.monotonic()
        self.last = 0.0
        self.drawn = False

    def start(self, label: str) -> "Progress":
        self.label = label
        self.t0 = time.monotonic()
        return self

    def __call__(self, done: int, total: int) -> None:
        """``total``: 0 when unknown (a pipe): the bytes read are shown without a bar."""
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.t0 < self.delay or (now - self.last < 0.1 and (done < total or not total)):
            return
        self.last = now
        if not total:       # a pipe or standard input: its size is unknown, the bytes read so far
            self.stream.write(f"\r{self.label[-40:]:<40} {done / 1e6:8.1f} MB read")
            self.stream.flush()
            self.drawn = True
            return
        frac = done / total
        width = 30
        bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
        self.stream.write(f"\r{self.label[-40:]:<40} [{bar}] {100 * frac:5.1f}% "
                          f"{done / 1e6:8.1f}/{total / 1e6:.1f} MB")
        self.stream.flush()
        self.drawn = True

    def done(self) -> None:
        if self.drawn:
            self.stream.write("\r" + " " * 100 + "\r")
            self.stream.flush()
            self.drawn = False


#: What ``--threads`` says of its default: the one description every command's option shows.
THREADS_HELP = ("threads for the kernels and the readers; results are the same for any count "
                "(default: the CPUs not busy with other work when each step starts; -1: all CPUs)")


def add_threads_option(p) -> None:
    """``--threads N``: the library's ``n_threads`` (checked by its own check in ``main``)."""
    p.add_argument("--threads", type=int, default=None, metavar="N", help=THREADS_HELP)


def progress_for(args) -> Progress:
    setting = getattr(args, "progress", None)
    if setting is None:
        enabled = sys.stderr.isatty() and sys.stdout.isatty()
        return Progress(enabled)
    return Progress(bool(setting), delay=0.0)


def _note(msg: str) -> None:
    print(f"fastndcg: note: {msg}", file=sys.stderr)


def print_warning(msg: str) -> None:
    print(f"fastndcg: warning: {msg}", file=sys.stderr)
