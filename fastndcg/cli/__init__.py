"""The ``fastndcg`` command line (``python -m fastndcg``; console script ``fastndcg``):
:func:`main`. The sub-commands and their options are documented in docs/files-and-cli.md;
the code is in the private modules (``_app``: the parser; one module per sub-command).

Exit codes: 0 success; 1 an internal error (a bug: the traceback is printed); 2 a usage
error (unknown option, bad option value, unknown preset); 3 a file cannot be read or the
output cannot be written; 4 invalid input data (with ``file:line:`` where there is a line);
130 interrupted.
"""
from fastndcg.cli._app import main

__all__ = ["main"]
