"""The argument parser of every sub-command and :func:`main`: exit codes, error printing, and
the one stderr warning of trec_eval's gain quirks."""
from __future__ import annotations
import argparse
import gc
import os
import sys
import warnings
from typing import Any, Callable, List, Optional, Tuple

from fastndcg.cli._compare import add_compare_parser
from fastndcg.cli._demo import cmd_demo
from fastndcg.cli._eval import add_eval_parser
from fastndcg.cli._identify import add_identify_parser
from fastndcg.cli._messages import error_message
from fastndcg.cli._options import EXIT_DATA, EXIT_INTERRUPTED, EXIT_IO, EXIT_OK, EXIT_USAGE, cutoffs_arg, nonnegative_int_arg, positive_int_arg, add_threads_option
from fastndcg.cli._significance import add_test_parser
from fastndcg.cli._systems import UsageError, check_stdin_once
from fastndcg._version import __version__


# ============================================================================ main

#: (name, function adding the subparser). A new subcommand (e.g. ``compare``)
#: adds its own ``add_<name>_parser`` here.
SUBCOMMANDS: List[Tuple[str, Callable]] = [
    ("demo", lambda sub: _add_demo_parser(sub)),
    ("eval", add_eval_parser),
    ("test", add_test_parser),
    ("compare", add_compare_parser),
    ("identify", add_identify_parser),
]


def _add_demo_parser(sub) -> None:
    demo = sub.add_parser("demo", help="NDCG of generated (seeded) MSLR-like data under contrasting conventions")
    demo.add_argument("--queries", type=positive_int_arg, default=10_000, help="number of queries (default 10000)")
    demo.add_argument("--seed", type=nonnegative_int_arg, default=0, help="generator seed (default 0)")
    demo.add_argument("-k", type=cutoffs_arg, default=[1, 3, 5, 10], help="cutoffs, e.g. 1,3,5,10")
    add_threads_option(demo)
    demo.add_argument("--write-examples", metavar="DIR", default=None,
                      help="write the README's example files (TREC qrels and two runs, SVMlight data and "
                           "predictions) into DIR and exit")
    demo.set_defaults(func=cmd_demo, value_error_code=EXIT_USAGE)


def usage_error(prog: str, message: str) -> str:
    """The one line of a usage error (exit code 2), argparse's or found after parsing: the one
    prefix of every fastndcg error, the message, and where the usage is (no usage block: the
    line that says what is wrong stays the one a user reads)."""
    return f"fastndcg: error: {message} (see {prog} --help)\n"


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors are :func:`usage_error`'s one line (the sub-command's
    parser names its own ``--help``)."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, usage_error(self.prog, message))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="fastndcg", description="Exact NDCG under every convention.",
        epilog="exit codes: 0 ok, 1 internal error, 2 usage, 3 file cannot be read/written, "
               "4 invalid input data, 130 interrupted")
    parser.add_argument("-V", "--version", action="version", version=f"fastndcg {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    for _name, add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(_joined_gain(sys.argv[1:] if argv is None else list(argv)))
    if extra:       # what parse_args says, but by the sub-command whose options they are not
        _subparser(parser, args.command).error(f"unrecognized arguments: {' '.join(extra)}")
    _check_settings(_subparser(parser, args.command), args)
    # `eval` makes few Python objects and no reference cycles of its own: without the cyclic
    # collector's passes over every object (about 2% of a 5M-line run, measured with perf)
    collect = args.command == "eval" and gc.isenabled()
    if collect:
        gc.disable()
    try:
        with warnings.catch_warnings():
            _show_gain_warning_once()
            return _run(args)
    finally:
        if collect:
            gc.enable()


def _check_settings(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The options that give a library setting (``--threads``: ``n_threads``, ``-M``: ``max_docs``),
    in every command, checked by the library's own check of that setting before any work: a bad
    value is a usage error (exit code 2; it was 4, invalid data, once the library met it), in the
    library's words with the options' names."""
    from fastndcg._core.arguments import check_max_docs
    from fastndcg._core.threads import effective_n_threads

    for dest, check in (("threads", effective_n_threads), ("max_docs", check_max_docs)):
        value = getattr(args, dest, None)
        if value is not None:
            try:
                check(value)
            except ValueError as exc:
                parser.error(error_message(exc))


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[command]
    return parser       # pragma: no cover - every command is a sub-command


def _joined_gain(argv: List[str]) -> List[str]:
    """``--gain -1=2`` as ``--gain=-1=2``: argparse would take a value starting
    with '-' (trec_eval's level -1 or -2 listed first) for an option."""
    out: List[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--gain" and i + 1 < len(argv) and argv[i + 1][:1] == "-" and "=" in argv[i + 1]:
            out.append("--gain=" + argv[i + 1])
            i += 2
            continue
        out.append(argv[i])
        i += 1
    return out


def _show_gain_warning_once() -> None:
    """Print the first :class:`fastndcg.measures.TrecGainQuirkWarning` of the
    command on stderr as ``fastndcg: warning: ...`` (one for all runs), and each
    :class:`fastndcg.conventions.UnknownLabelWarning` once, in the command line's terms, and each
    input file's :class:`fastndcg.io._files.ByteOrderMarkWarning` and the JSON output's
    :class:`fastndcg.report._format.NotUtf8Warning` once."""
    from fastndcg.conventions._convention import UnknownLabelWarning
    from fastndcg.io._files import ByteOrderMarkWarning
    from fastndcg.measures._trec_gain_specs import TrecGainQuirkWarning
    from fastndcg.report._format import NotUtf8Warning

    shown: List[Any] = []
    labels_shown: set = set()
    files: set = set()
    other = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, UnknownLabelWarning) and isinstance(message, UnknownLabelWarning):
            text = unknown_labels_line(message)
            if text not in labels_shown:
                labels_shown.add(text)
                print(f"fastndcg: warning: {text}", file=sys.stderr)
            return None
        if issubclass(category, (ByteOrderMarkWarning, NotUtf8Warning)):
            if str(message) not in files:       # a file read twice (qrels, then a check) says it once
                files.add(str(message))
                print(f"fastndcg: warning: {message}", file=sys.stderr)
            return None
        if not issubclass(category, TrecGainQuirkWarning):
            return other(message, category, filename, lineno, file, line)
        if not shown:
            shown.append(message)
            print(f"fastndcg: warning: {message}", file=sys.stderr)

    warnings.simplefilter("always", TrecGainQuirkWarning)
    warnings.simplefilter("always", UnknownLabelWarning)
    warnings.simplefilter("always", ByteOrderMarkWarning)
    warnings.simplefilter("always", NotUtf8Warning)
    warnings.showwarning = show


def unknown_labels_line(w: Any) -> str:
    """An :class:`~fastndcg.conventions.UnknownLabelWarning` as the command line says it:
    the preset's table and ``--gain`` instead of Python's fields."""
    shown = ", ".join(str(v) for v in w.labels)
    what = "judged documents of the qrels" if w.argument == "ideal_labels" else "documents"
    return (f"{w.count} of {w.n_docs} {what} have a label outside the gain table of --preset {w.convention} "
            f"({shown}) and get gain 0 (its unknown_label='zero'); to count them, use a preset whose gain table "
            f"covers them or, with TREC files, give every label a gain with --gain L=G,...")


def _run(args) -> int:
    try:
        check_stdin_once(args)
        return args.func(args)
    except UsageError as exc:
        print(usage_error(f"fastndcg {args.command}", str(exc)), end="", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("fastndcg: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # e.g. `fastndcg eval ... | head`: the reader went away; not an error.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK
    except OSError as exc:
        where = f" {exc.filename!r}" if getattr(exc, "filename", None) else ""
        print(f"fastndcg: error: cannot access{where}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_IO
    except (ValueError, TypeError) as exc:
        code = getattr(args, "value_error_code", EXIT_DATA)
        if code == EXIT_USAGE:
            print(usage_error(f"fastndcg {args.command}", error_message(exc)), end="", file=sys.stderr)
        else:
            print(f"fastndcg: error: {error_message(exc)}", file=sys.stderr)
        return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
