import os
import sys

if sys.argv[1:2] == ["eval"] and "numpy" not in sys.modules:
    # `fastndcg eval` calls no BLAS routine: numpy's BLAS would start its thread pool at import,
    # whose threads spin on the other cores for about 30 ms of CPU (measured with perf) while
    # the evaluation's own threads need them. A user's setting is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from fastndcg.cli._app import main  # noqa: E402

raise SystemExit(main())
