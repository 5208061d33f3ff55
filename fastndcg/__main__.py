"""``python -m fastndcg`` and the ``fastndcg`` console script: one entry, :func:`run`."""
import gc
import os
import sys


def run() -> None:
    """Run the command line on ``sys.argv`` and exit with its code (both doors take this path,
    so ``fastndcg eval`` and ``python -m fastndcg eval`` start and end the same way)."""
    if sys.argv[1:2] == ["eval"]:
        # `fastndcg eval` makes no reference cycles of its own: no cyclic collector, from the
        # imports on (its passes over the imported modules' objects were about 2% of a 5M-line
        # run, perf)
        gc.disable()
        if "numpy" not in sys.modules:
            # and it calls no BLAS routine: numpy's BLAS would start its thread pool at import,
            # whose threads spin on the other cores for about 30 ms of CPU (perf) while the
            # evaluation's own threads need them. A user's setting is kept.
            os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

    from fastndcg.cli._app import main

    code = main()
    if sys.argv[1:2] == ["eval"]:
        # its output written, nothing of the process is needed: no teardown of the modules and
        # their objects (tens of thousands; about 4% of a 5M-line run). A failing flush takes
        # the interpreter's own exit, which reports it.
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            raise SystemExit(code)
        os._exit(code if isinstance(code, int) else 1)
    raise SystemExit(code)


if __name__ == "__main__":
    run()
