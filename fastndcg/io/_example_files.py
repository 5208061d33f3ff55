"""Small example files for the README's command lines, written from the
seeded generator (no download, no data copied from elsewhere).

``fastndcg demo --write-examples DIR`` (or :func:`write_examples`) writes:

* ``qrels.txt``: TREC qrels of 30 topics (graded judgments 0-4, some
  topics without relevant documents);
* ``run_a.txt``, ``run_b.txt``: two TREC runs over those topics, with tied
  scores, unjudged documents, and one judged topic that ``run_b`` misses
  (what ``-c`` is about);
* ``data.svm`` and ``pred.txt``: the same judgments as SVMlight/LETOR data
  (``label qid:Q 1:x 2:y # docno``) and one prediction per line.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, Union

import numpy as np

from fastndcg.io._datasets import mslr_like

FILES = ("qrels.txt", "run_a.txt", "run_b.txt", "data.svm", "pred.txt")


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)          # never a partial file


def write_examples(directory: Union[str, "os.PathLike[str]"], *, n_topics: int = 30,
                   seed: int = 7) -> Dict[str, Path]:
    """Write the example files into ``directory`` (created if needed);
    returns {file name: path}. Deterministic for a given seed."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    data = mslr_like(n_topics, seed=seed, tie_fraction=0.2)
    rng = np.random.default_rng(seed)
    sizes = np.diff(data.offsets)
    cap = np.minimum(sizes, 60)                       # keep the files small
    topics = [str(301 + q) for q in range(n_topics)]
    qrels, run_a, run_b, svm, pred = [], [], [], [], []
    missing_in_b = topics[n_topics // 2]
    for q, t in enumerate(topics):
        start = int(data.offsets[q])
        n = int(cap[q])
        labels = data.labels[start:start + n]
        scores = data.scores[start:start + n]
        noisy = np.round(scores + rng.normal(0.0, 0.8, n), 2)
        judged = rng.random(n) < 0.85                 # some retrieved documents are unjudged
        for i in range(n):
            docno = f"D{t}-{i:03d}"
            if judged[i]:
                qrels.append(f"{t} 0 {docno} {int(labels[i])}\n")
            svm.append(f"{int(labels[i])} qid:{t} 1:{scores[i]:.4f} 2:{noisy[i]:.2f} # {docno}\n")
            pred.append(f"{scores[i]:.4f}\n")
        for rank, i in enumerate(np.argsort(-scores, kind="stable")):
            run_a.append(f"{t} Q0 D{t}-{i:03d} {rank + 1} {scores[i]:.4f} runA\n")
        if t != missing_in_b:
            for rank, i in enumerate(np.argsort(-noisy, kind="stable")):
                run_b.append(f"{t} Q0 D{t}-{i:03d} {rank + 1} {noisy[i]:.2f} runB\n")
    texts = {"qrels.txt": qrels, "run_a.txt": run_a, "run_b.txt": run_b, "data.svm": svm, "pred.txt": pred}
    paths = {}
    for name in FILES:
        paths[name] = out / name
        _write(paths[name], "".join(texts[name]))
    return paths


__all__ = ["FILES", "write_examples"]
