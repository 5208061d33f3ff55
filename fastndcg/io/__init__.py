"""File formats and data, as CSR arrays: TREC qrels and runs joined trec_eval's way, SVMlight/LETOR
files, prediction and group files, and generated data sets. io returns arrays (it never imports
the NDCG kernels or the measures); every reader parses with compiled code one block of whole
lines at a time, and malformed input raises a ValueError with ``path:line:`` in front.

A run joined with its qrels (:func:`align_run`: unjudged documents, missing topics, ``-M`` and the
docno tie order as trec_eval) gives the arrays of :func:`fastndcg.ndcg`:

>>> import pathlib, tempfile
>>> import fastndcg.io
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "qrels.txt").write_text("1 0 a 2\\n1 0 b 1\\n1 0 c 0\\n")
>>> _ = (d / "run.txt").write_text("1 Q0 a 1 0.9 r\\n1 Q0 c 2 0.8 r\\n1 Q0 x 3 0.1 r\\n")
>>> a = fastndcg.io.align_run(d / "run.txt", d / "qrels.txt")
>>> a.qids.tolist(), a.scores.tolist(), a.labels.tolist(), a.offsets.tolist()
(['1'], [0.9, 0.8, 0.1], [2, 0, 0], [0, 3])

The public names are the imports of ``__init__.pyi``, each module imported on first use (the code
is in private modules, ``_x.py``). The join's machinery left this face: its documented names
still resolve for a while, with a DeprecationWarning naming what to use instead.
"""
from fastndcg._core import faces as _faces

_EVALUATE_RUN = "fastndcg.stream.evaluate_stream(run, k, qrels=...) (a run larger than memory, read by whole topics)"

#: names that left the face, documented before: (private module, name there, what to use instead)
_DEPRECATED = {
    "JoinedRun": ("fastndcg.io._joined_runs", "JoinedRun", "fastndcg.io.align_run, whose AlignedRun holds the arrays"),
    "join_run_file": ("fastndcg.io._joining", "join_run_file",
                      "fastndcg.io.align_run(path, qrels) (a run path is joined while it is read)"),
    "join_runs": ("fastndcg.io._joining", "join_runs", "fastndcg.io.align_run on each run"),
    "iter_joined": ("fastndcg.io._joining", "iter_joined", _EVALUATE_RUN),
    "iter_run": ("fastndcg.io._trec", "iter_run", _EVALUATE_RUN),
    "group_file_for": ("fastndcg.io._svmlight", "group_file_for",
                       "fastndcg.io.read_svmlight or iter_svmlight (they find a .query/.group side file "
                       "themselves; group= names one)"),
    "iter_line_blocks": ("fastndcg.io._files", "iter_line_blocks",
                         "the readers (fastndcg.io.read_run, read_qrels, read_svmlight), which read blocks "
                         "of whole lines themselves"),
}

# the names and their modules are the imports of __init__.pyi; each module is imported on first use
__getattr__, __dir__, __all__ = _faces.attach_stub(__name__, __file__, deprecated=_DEPRECATED)
