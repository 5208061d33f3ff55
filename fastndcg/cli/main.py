"""The ``fastndcg`` command line (``python -m fastndcg``; console script ``fastndcg``).

One module per job: :mod:`.options` (exit codes, option types, progress, notes),
:mod:`.demo`, :mod:`.systems` (loading runs and data into systems under a convention, and
evaluating them), :mod:`.eval` (``fastndcg eval``), :mod:`.significance` (``fastndcg test``),
:mod:`.compare` (``fastndcg compare``) and :mod:`.app` (the parser and :func:`main`). This
module re-exports their public names.

Exit codes (documented in docs/files-and-cli.md):

* 0 - success;
* 1 - unexpected internal error (a bug: the traceback is printed);
* 2 - usage error (unknown option, bad option value, unknown preset);
* 3 - a file cannot be read or the output cannot be written (missing file,
  permission);
* 4 - invalid input data (malformed line, prediction file of the wrong length,
  a judged topic missing from a run without ``-c``, labels the preset cannot
  use), with ``file:line:`` in the message where there is a line;
* 130 - interrupted (Ctrl-C).
"""
from fastndcg.cli.options import (DEFAULT_CUTOFFS, EXIT_DATA, EXIT_INTERNAL, EXIT_INTERRUPTED,  # noqa: F401
                                  EXIT_IO, EXIT_OK, EXIT_USAGE, FALLBACK_CUTOFFS, Progress,
                                  TREC_MEASURE_PRESETS)
from fastndcg.cli.demo import (cmd_demo, demo_conventions)  # noqa: F401
from fastndcg.cli.systems import (InputSet, System, add_input_arguments, add_output_arguments, evaluate_systems,  # noqa: F401
                                  load_systems, measure_names)
from fastndcg.cli.eval import (add_eval_parser, cmd_eval, render_eval)  # noqa: F401
from fastndcg.cli.significance import (add_test_parser, cmd_test, render_test)  # noqa: F401
from fastndcg.cli.compare import (add_compare_parser, cmd_compare)  # noqa: F401
from fastndcg.cli.app import (SUBCOMMANDS, build_parser, main)  # noqa: F401
