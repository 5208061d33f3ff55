"""Train LambdaMART on MQ2008 under different NDCG conventions and compare.

The NDCG a model is trained for changes the model. This script trains LightGBM
on LETOR 4.0 MQ2008 (Fold1: ``vali.txt`` to train, ``test.txt`` to test; the
shared copy has no ``train.txt``) with

* the built-in ``objective="lambdarank"`` (the baseline), and
* the fastndcg objective (``mode="default"``: exact logistic, double
  precision) under three conventions, all with truncation 10:

  - ``standard``: gain 2**l - 1, discount 1/log2(r+1);
  - ``letor4``: the LETOR 4.0 evaluation script's NDCG (gains 0/1/3, discount
    1 for the first two ranks, and NDCG@k = 0 for queries shorter than k),
    which gives every query with fewer than 10 documents a zero gradient;
  - ``letor4`` with the short-query rule switched off (``short="clamp"``),
    to isolate that rule.

It reports test NDCG@1..10 of every model under two evaluation conventions
(the standard one and the LETOR 4.0 one). Run from the repository root:

    python examples/train_conventions.py [path/to/mq2008]
"""
import sys
from pathlib import Path

import lightgbm as lgb
import numpy as np

import fastndcg
from fastndcg.integrations import LightGBMObjective
from fastndcg.io import read_svmlight

ROUNDS = 100
PARAMS = dict(learning_rate=0.05, num_leaves=15, min_data_in_leaf=10, num_threads=2,
              deterministic=True, force_row_wise=True, verbose=-1, seed=0)
CUTOFFS = list(range(1, 11))


def read_letor(path):
    """Dense (X, y, offsets) from a LETOR 4.0 file, with fastndcg's reader."""
    data = read_svmlight(path, features=True)
    return data.feature_matrix().toarray(), data.labels, data.offsets


def main(data_dir):
    Xtr, ytr, off_tr = read_letor(data_dir / "vali.txt")   # rows of a query are contiguous (checked)
    Xte, yte, off_te = read_letor(data_dir / "test.txt")
    sizes = np.diff(off_tr)
    print(f"MQ2008 Fold1: train (vali.txt) {len(ytr)} docs / {len(sizes)} queries, "
          f"{int(np.sum(sizes < 10))} of them with fewer than 10 documents; "
          f"test (test.txt) {len(yte)} docs / {len(off_te) - 1} queries\n")

    letor4 = fastndcg.get_preset("letor4")
    objectives = {
        "built-in lambdarank": "lambdarank",
        "fastndcg standard": LightGBMObjective(mode="default", convention="standard", truncation=10),
        "fastndcg letor4": LightGBMObjective(mode="default", convention=letor4, truncation=10),
        "fastndcg letor4, short=clamp": LightGBMObjective(
            mode="default", convention=letor4.replace(short="clamp"), truncation=10),
    }
    evaluation = {"standard": "standard", "letor4 (official MQ2008 measure)": letor4}
    results = {}
    for name, objective in objectives.items():
        train = lgb.Dataset(Xtr, ytr, group=np.diff(off_tr))
        booster = lgb.train(dict(PARAMS, objective=objective), train, ROUNDS)
        scores = booster.predict(Xte, raw_score=True)
        results[name] = {ev: fastndcg.mean_ndcg(scores, yte, off_te, CUTOFFS, convention=conv)
                         for ev, conv in evaluation.items()}

    width = max(len(n) for n in results) + 2
    for ev in evaluation:
        print(f"test NDCG@k, evaluated under the {ev} convention")
        print(" " * width + "".join(f"{'@' + str(k):>7}" for k in CUTOFFS))
        for name, by_eval in results.items():
            print(f"{name:<{width}}" + "".join(f"{v:7.4f}" for v in by_eval[ev]))
        print()


if __name__ == "__main__":
    default = Path(__file__).resolve().parents[2] / "shared" / "data" / "mq2008"
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else default)
