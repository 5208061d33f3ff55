"""Inputs of the trec_eval golden tests (tests/measures/test_trec_measures.py): tie-heavy
generated TREC files and the option sets run through trec_eval.

The generator uses Python's ``random.Random`` (its sequence is fixed across
Python versions), so the files, and the golden numbers the real trec_eval
gave for them (tests/data/trec_eval_golden.json), are the same everywhere.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import List, Tuple

LEVELS = (-1, 0, 0, 1, 1, 2, 3, 4)


def generated_trec(folder: Path, seed: int, n_topics: int = 12) -> Tuple[Path, Path]:
    """(qrels, run): graded and negative judgments, documents judged or not,
    scores from 5 values (many ties), a topic judged 0 throughout every 5th,
    a judged topic missing from the run every 7th, run topics without
    judgments."""
    rnd = random.Random(seed)
    ql: List[str] = []
    rl: List[str] = []
    for t in range(n_topics):
        topic = f"{100 + t}"
        docs = sorted({f"d{rnd.randint(0, 80):03d}" for _ in range(rnd.randint(0, 40))})
        lv = [0] * len(docs) if t % 5 == 4 else [rnd.choice(LEVELS) for _ in docs]
        if not docs:
            docs, lv = ["d999"], [0]
        ql += [f"{topic} 0 {d} {v}" for d, v in zip(docs, lv)]
        if t % 7 == 6:
            continue
        rd = sorted({f"d{rnd.randint(0, 80):03d}" for _ in range(rnd.randint(1, 30))})
        rl += [f"{topic} Q0 {d} {i} {rnd.randint(0, 4) / 2} run{seed}" for i, d in enumerate(rd)]
    rl += [f"999 Q0 x{i} {i} {i} run{seed}" for i in range(3)]       # a topic without judgments
    q, r = folder / f"gen{seed}.qrels", folder / f"gen{seed}.run"
    q.write_text("\n".join(ql) + "\n")
    r.write_text("\n".join(rl) + "\n")
    return q, r


#: custom gain sets (trec_eval's ndcg.L=G): plain, < 1 apart (its integer
#: comparator), gain for unjudged (-1), a negative gain, a level listed twice
GAIN_SETS = ["1=3,2=9,4=4.5", "0=1,1=0.5", "-1=2,2=0", "3=-1,1=2", "2=0.5,1=0.7,4=0.2", "1=3,1=5"]

#: trec_eval options (without -q, always added)
OPTION_SETS = [["-c"], ["-c", "-J"], ["-c", "-M", "7", "-l", "2"], ["-c", "-J", "-l", "0"], ["-c", "-J", "-M", "5"]]


def measure_groups(gains: str = "") -> List[List[str]]:
    """-m lists that trec_eval 10 can run together. With custom gains, dcg,
    ideal_dcg and ndcg share one parameter block in trec_eval (m_ndcg.c), and
    asking for two of them frees it twice (a crash): one invocation each."""
    sfx = f".{gains}" if gains else ""
    main = ["runid", "num_q", f"ndcg{sfx}", f"ndcg_rel{sfx}", f"Rndcg{sfx}", "ndcg_cut.1,3,5,10,20", f"ndcg_p{sfx}"]
    if not gains:
        return [main + ["dcg", "ideal_dcg"]]
    return [main, [f"dcg{sfx}"], [f"ideal_dcg{sfx}"]]
