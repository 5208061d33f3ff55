"""The ``fastndcg`` command line (``python -m fastndcg``; console script ``fastndcg``):
:func:`main`. The sub-commands and their options are documented in docs/files-and-cli.md;
the code is in the private modules (``_app``: the parser; one module per sub-command).

Exit codes: 0 success; 1 an internal error (a bug: the traceback is printed); 2 a usage
error (unknown option, bad option value, unknown preset); 3 a file cannot be read or the
output cannot be written; 4 invalid input data (with ``file:line:`` where there is a line);
130 interrupted.

>>> import pathlib, tempfile
>>> from fastndcg.cli import main
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "qrels.txt").write_text("1 0 a 2\\n1 0 b 1\\n1 0 c 0\\n")
>>> _ = (d / "run.txt").write_text("1 Q0 a 1 0.9 r\\n1 Q0 c 2 0.8 r\\n1 Q0 x 3 0.1 r\\n")
>>> args = ["eval", str(d / "qrels.txt"), str(d / "run.txt"), "-m", "ndcg_cut.10", "--format", "trec"]
>>> main(args)          # trec_eval's output lines; the exit code  # doctest: +NORMALIZE_WHITESPACE
ndcg_cut_10 all 0.7602
0
"""
from fastndcg.cli._app import main

__all__ = ["main"]
