"""Train rankers on a click log with position debiasing, LightGBM and XGBoost.

Clicks are biased labels: users click the top of a list more, whatever it
shows. This script simulates a click log on LETOR 4.0 MQ2008 (Fold1,
``vali.txt``; the shared copy has no ``train.txt``) — several sessions per
query, each shown in the order of a noisy production ranker and clicked under
a cascade model (:func:`fastndcg.io.cascade_clicks`) — trains on the
clicks, and evaluates on the graded relevance labels of ``test.txt``:

* LightGBM ``lambdarank`` on the clicks, plain and with position debiasing
  (``Dataset(position=...)``, ``lambdarank_position_bias_regularization``);
  the fastndcg objective with the same Dataset gives the same trees, bit for
  bit, and its learned position factors;
* XGBoost ``rank:ndcg`` with ``lambdarank_unbiased`` (rows of each session in
  displayed order), against the fastndcg objective: the same trees and the
  same t+ / t- ratios.

Run from the repository root:

    python examples/train_clicks.py [path/to/mq2008]
"""
import json
import sys
from pathlib import Path

import lightgbm as lgb
import numpy as np
import xgboost as xgb

import fastndcg
from fastndcg.io import cascade_clicks
from fastndcg.integrations import LightGBMObjective
from fastndcg.io import read_svmlight
from fastndcg.integrations import XGBoostObjective

SESSIONS = 8          # impressions per query in the log
ROUNDS = 100
CUTOFFS = [1, 3, 5, 10]
LGB = dict(objective="lambdarank", learning_rate=0.05, num_leaves=15, min_data_in_leaf=20,
           num_threads=1, deterministic=True, force_row_wise=True, verbose=-1, seed=0)
XGB = dict(objective="rank:ndcg", tree_method="hist", eta=0.05, max_depth=4, base_score=0.0,
           nthread=1, seed=0)


def read_letor(path):
    data = read_svmlight(path, features=True)
    return data.feature_matrix().toarray(), data.labels, data.offsets


def click_log(X, y, offsets, sessions, seed=0):
    """Stack `sessions` simulated impressions of every query: one group per
    impression, rows in displayed order, clicks as labels, displayed ranks."""
    feats, clicks, positions, sizes = [], [], [], []
    for s in range(sessions):
        log = cascade_clicks(y.astype(np.int64), offsets, seed=seed + s, continue_after_click=0.5)
        feats.append(X[log.order])
        clicks.append(log.click)
        positions.append(log.position)
        sizes.append(np.diff(offsets))
    return (np.vstack(feats), np.concatenate(clicks).astype(np.float64), np.concatenate(positions),
            np.concatenate(sizes))


def bits_equal(a, b):
    return np.array_equal(np.asarray(a, np.float64).view(np.uint64), np.asarray(b, np.float64).view(np.uint64))


def main(data_dir):
    Xtr, ytr, off_tr = read_letor(data_dir / "vali.txt")
    Xte, yte, off_te = read_letor(data_dir / "test.txt")
    X, clicks, position, group = click_log(Xtr, ytr, off_tr, SESSIONS)
    print(f"click log: {len(group)} sessions of {len(off_tr) - 1} queries, {len(clicks)} rows, "
          f"{int(clicks.sum())} clicks; click rate at positions 1..5: "
          + " ".join(f"{clicks[position == p].mean():.3f}" for p in range(5)))

    def test_ndcg(scores):
        return fastndcg.mean_ndcg(scores, yte, off_te, CUTOFFS, convention="standard")

    results = {}
    # LightGBM: clicks as relevance, then with the displayed positions.
    plain = lgb.train(LGB, lgb.Dataset(X, clicks, group=group), ROUNDS)
    results["LightGBM lambdarank, clicks"] = test_ndcg(plain.predict(Xte))
    params = dict(LGB, lambdarank_position_bias_regularization=0.5)
    builtin = lgb.train(params, lgb.Dataset(X, clicks, group=group, position=position), ROUNDS)
    obj = LightGBMObjective.from_params(params)
    ours = lgb.train(dict(params, objective=obj), lgb.Dataset(X, clicks, group=group, position=position),
                     ROUNDS)
    results["LightGBM lambdarank, clicks + positions"] = test_ndcg(builtin.predict(Xte))
    results["fastndcg objective, clicks + positions"] = test_ndcg(ours.predict(Xte))
    same = bits_equal(builtin.predict(X, raw_score=True), ours.predict(X, raw_score=True))
    print(f"LightGBM position debiasing: fastndcg objective == built-in (bitwise): {same}")
    print("  learned position factors, positions 1..10: "
          + " ".join(f"{f:+.3f}" for f in obj.position_factors[:10]))

    # XGBoost: Unbiased LambdaMART (positions = row order within each session).
    qid = np.repeat(np.arange(len(group)), group)
    xparams = dict(XGB, lambdarank_unbiased=True, lambdarank_num_pair_per_sample=8)
    xbuiltin = xgb.train(xparams, xgb.DMatrix(X, clicks, qid=qid), ROUNDS)
    xobj = XGBoostObjective.from_params(xparams)
    plain_params = {k: v for k, v in xparams.items() if not k.startswith(("objective", "lambdarank"))}
    xours = xgb.train(plain_params, xgb.DMatrix(X, clicks, qid=qid), ROUNDS, obj=xobj)
    dtest = xgb.DMatrix(Xte)
    results["XGBoost rank:ndcg unbiased, clicks"] = test_ndcg(xbuiltin.predict(dtest, output_margin=True))
    results["fastndcg objective, unbiased"] = test_ndcg(xours.predict(dtest, output_margin=True))
    saved = json.loads(xbuiltin.save_config())["learner"]["objective"]
    same = bits_equal(xbuiltin.predict(xgb.DMatrix(X), output_margin=True),
                      xours.predict(xgb.DMatrix(X), output_margin=True))
    same_t = (np.array_equal(np.float32(saved["ti+"]), xobj.t_plus.astype(np.float32))
              and np.array_equal(np.float32(saved["tj-"]), xobj.t_minus.astype(np.float32)))
    print(f"XGBoost unbiased: fastndcg objective == built-in (bitwise): {same}; t+ and t- equal: {same_t}")
    print("  t+ (clicked), positions 1..8:   " + " ".join(f"{t:.3f}" for t in xobj.t_plus))
    print("  t- (unclicked), positions 1..8: " + " ".join(f"{t:.3f}" for t in xobj.t_minus))

    print("\ntest NDCG@k on the graded labels (standard convention)")
    width = max(len(n) for n in results) + 2
    print(" " * width + "".join(f"{'@' + str(k):>8}" for k in CUTOFFS))
    for name, values in results.items():
        print(f"{name:<{width}}" + "".join(f"{v:8.4f}" for v in values))


if __name__ == "__main__":
    default = Path(__file__).resolve().parents[2] / "shared" / "data" / "mq2008"
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else default)
