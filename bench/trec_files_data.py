"""Seeded TREC run + qrels files for the file benchmarks (bench/bench_trec_files.py).

The run: ``n_topics`` topics of ``per_topic`` results each, one stretch of lines per topic as
TREC runs are written (topics in numeric order, which is not trec_eval's bytewise order),
realistic docnos (``clueweb09-en0000-00-00000``), scores with 6 decimals and about 2% of each
topic's results tied with a neighbour; or, with ``short=True``, the short lines of issue 27's
own file (about 31 bytes: docnos ``D0000000``, 4-decimal scores, tag ``t``). The qrels: ``judged`` judgments per topic, about a third
of them retrieved by the run, relevance 0-2 with a few -1 (judged "unjudged in pool"). About 2%
of the run's topics have no judgments and 2% of the judged topics no results.

Run as a script to write the files::

    python bench/trec_files_data.py DIR [--topics 5000] [--per-topic 1000] [--judged 120]
"""
from __future__ import annotations

import argparse
import os
from typing import Tuple

import numpy as np

#: Topics written at a time (the generator holds their text).
_TOPICS_PER_WRITE = 200


def _docnos(ids: np.ndarray) -> np.ndarray:
    """ClueWeb09-like docnos of integer document ids (bytes array)."""
    seg = ids // 100_000
    return np.char.add(np.char.add(np.char.add(b"clueweb09-en", np.char.zfill((seg // 100).astype("S4"), 4)),
                                   np.char.add(b"-", np.char.zfill((seg % 100).astype("S2"), 2))),
                       np.char.add(b"-", np.char.zfill((ids % 100_000).astype("S5"), 5)))


def _short_docnos(ids: np.ndarray) -> np.ndarray:
    """Short docnos (``D`` + 7 digits; ids from 10**7 on: ``E``) of integer document ids."""
    return np.char.add(np.where(ids < 10_000_000, b"D", b"E"), np.char.zfill((ids % 10_000_000).astype("S7"), 7))


def write_trec_files(directory: str, n_topics: int = 5000, per_topic: int = 1000, judged: int = 120,
                     seed: int = 0, tag: str = "bench", short: bool = False) -> Tuple[str, str]:
    """Write ``run.txt`` and ``qrels.txt`` into ``directory``; return their paths
    (``short``: short lines, see the module's docstring)."""
    docnos, universe, score_format = ((_short_docnos, 10_000_000, b"%.4f") if short
                                      else (_docnos, 1_000_000_000, b"%.6f"))
    if short:
        tag = "t"
    rng = np.random.default_rng(seed)
    run_path = os.path.join(directory, "run.txt")
    qrels_path = os.path.join(directory, "qrels.txt")
    topics = np.arange(1, n_topics + 1)
    unjudged = set(rng.choice(topics, max(1, n_topics // 50), replace=False).tolist())
    extra = np.arange(n_topics + 1, n_topics + 1 + max(1, n_topics // 50))   # judged, not in the run
    ranks = np.arange(1, per_topic + 1).astype("S7")
    with open(run_path, "wb") as run, open(qrels_path, "wb") as qrels:
        for lo in range(0, n_topics, _TOPICS_PER_WRITE):
            parts = []
            for t in topics[lo: lo + _TOPICS_PER_WRITE].tolist():
                ids = rng.choice(universe, per_topic, replace=False)
                docs = docnos(ids)
                scores = np.sort(rng.random(per_topic) * 30.0)[::-1]
                tie = rng.random(per_topic) < 0.02
                tie[0] = False
                scores[tie] = scores[np.flatnonzero(tie) - 1]
                score_txt = np.char.mod(score_format, scores)
                tb = str(t).encode()
                line = np.char.add(np.char.add(np.char.add(tb + b" Q0 ", docs), b" "),
                                   np.char.add(np.char.add(np.char.add(ranks, b" "), score_txt), b" " + tag.encode() + b"\n"))
                parts.append(b"".join(line.tolist()))
                if t not in unjudged:
                    _write_judgments(qrels, rng, tb, docs, judged, docnos, universe)
            run.write(b"".join(parts))
        for t in extra.tolist():
            ids = rng.choice(universe, judged, replace=False)
            _write_judgments(qrels, rng, str(t).encode(), docnos(ids), judged, docnos, universe)
    return run_path, qrels_path


def _write_judgments(f, rng, topic: bytes, retrieved: np.ndarray, judged: int, docnos=_docnos,
                     universe: int = 1_000_000_000) -> None:
    n_ret = min(judged // 3, retrieved.shape[0])
    pick = retrieved[rng.choice(retrieved.shape[0], n_ret, replace=False)]
    other = docnos(rng.choice(universe, judged - n_ret, replace=False) + universe)
    docs = np.concatenate([pick, other])
    docs = docs[rng.permutation(docs.shape[0])]
    rel = rng.choice(np.array([b"-1", b"0", b"1", b"2"]), docs.shape[0], p=[0.02, 0.68, 0.2, 0.1])
    lines = np.char.add(np.char.add(np.char.add(topic + b" 0 ", docs), b" "), np.char.add(rel, b"\n"))
    f.write(b"".join(lines.tolist()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("directory")
    ap.add_argument("--topics", type=int, default=5000)
    ap.add_argument("--per-topic", type=int, default=1000)
    ap.add_argument("--judged", type=int, default=120)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--short", action="store_true", help="short lines (about 31 bytes)")
    a = ap.parse_args()
    os.makedirs(a.directory, exist_ok=True)
    for p in write_trec_files(a.directory, a.topics, a.per_topic, a.judged, a.seed, short=a.short):
        print(p, os.path.getsize(p))


if __name__ == "__main__":
    main()
