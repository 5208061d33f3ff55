"""Readers for the files rankers and IR evaluations use (one module per format).

* :mod:`fastndcg.io.files`: opening plain or gzip/bz2/xz files and reading them in blocks of
  whole lines; the ``path:line:`` error rule.
* :mod:`fastndcg.io.svmlight`: SVMlight / LETOR data (``label qid:Q f:v ... # docid = X``):
  :func:`read_svmlight`, :func:`iter_svmlight` (query-complete chunks).
* :mod:`fastndcg.io.numbers`: one-number-per-line files: predictions (:func:`read_predictions`)
  and LightGBM ``.query`` / XGBoost ``.group`` files (:func:`read_group_file`).
* :mod:`fastndcg.io.trec`: TREC qrels (``topic iter docno rel``) and runs (``topic Q0 docno rank
  score tag``): :func:`read_qrels`, :func:`read_run`, :func:`iter_run`.
* :mod:`fastndcg.io.align`: :func:`align_run`, which joins a run with qrels into the CSR arrays of
  :func:`fastndcg.ndcg` the way trec_eval ranks and judges (:class:`AlignedRun`).

Every reader parses with compiled code (:mod:`fastndcg.io._parse`) one block of whole lines at a
time, so memory is the output arrays plus one block (``block_size``, 16 MiB by default), whatever
the file size. Malformed input raises :class:`ValueError` with ``path:line:`` in front of the
message; nothing is skipped or re-aligned silently. This module re-exports all of them (the
path users and the CLI import from).
"""
from fastndcg.io.files import (DEFAULT_BLOCK_SIZE, PathLike, Progress, S, open_binary, iter_line_blocks)  # noqa: F401
from fastndcg.io.svmlight import (SvmlightChunk, SvmlightData, iter_svmlight, read_svmlight)  # noqa: F401
from fastndcg.io.numbers import (read_group_file, read_predictions)  # noqa: F401
from fastndcg.io.trec import (Qrels, Run, TrecTable, read_qrels, read_run)  # noqa: F401
from fastndcg.io.align import (AlignedRun, MISSING, align_run, iter_run, judged_ideal, missing_topics_error,  # noqa: F401
                               topic_first_line)
from fastndcg.conventions import (ideal_source)  # noqa: F401  (its old home)
