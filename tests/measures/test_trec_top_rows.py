"""NDCG@k of a run file places only each topic's top rows (issue 36): the rule that says when
(``top_rows_read``), and the same values as the whole run in memory, under every convention
whose ideal comes from the qrels."""
from __future__ import annotations

import random

import numpy as np
import pytest

import fastndcg.io
from fastndcg import Convention, Measurement

from fastndcg.measures._trec_gain_specs import parse_gains
from fastndcg.measures._trec_measures import evaluate_trec, top_rows_read


def _ndcg(k, **conv):
    return Measurement("ndcg", cutoff=k, convention=Convention(**conv), missing="zero")


def test_the_rule_names_the_deepest_cutoff_and_the_ranking():
    top = top_rows_read([_ndcg(5, ties="key_desc"), _ndcg(20, ties="key_desc"), _ndcg(10, ties="key_desc")])
    assert (top.depth, top.key_order, top.round_f32) == (20, -1, False)
    top = top_rows_read([_ndcg(3, ties="stable", score_precision="float32")])
    assert (top.depth, top.key_order, top.round_f32) == (3, 0, True)
    assert top_rows_read([_ndcg(3, ties="key")]).key_order == 1


@pytest.mark.parametrize("other", [
    _ndcg(None),                                                  # the whole list
    _ndcg(10, ties="average"),                                    # a tied group past rank k counts
    _ndcg(10, ties="worst"),                                      # ranked by label within ties
    _ndcg(10, ideal_source="run"),                                # the ideal from the retrieved rows
    _ndcg(10, gain=[0.0, 1.0, 3.0]),                              # a label outside the table is an error
    _ndcg(10, ties="stable"),                                     # ranked unlike the others
    _ndcg(10, ties="key_desc", score_precision="float32"),
    Measurement("ndcg", cutoff=10, judged_only=True, missing="zero"),
    Measurement("ndcg", cutoff=10, max_docs=50, missing="zero"),
    Measurement("ndcg", cutoff=10, gains=parse_gains("0=0,1=1,2=3"), missing="zero"),
    Measurement("dcg", missing="zero"),
    Measurement("Rndcg", missing="zero"),
])
def test_any_measurement_reading_more_places_every_row(other):
    assert top_rows_read([_ndcg(10, ties="key_desc"), other]) is None


def _tied_files(folder, seed):
    """Topics of 1 to 80 results on few scores (equal as doubles, equal only in float32, +-0),
    judged 0-3 and -1, topics without results or without judgments."""
    rnd = random.Random(seed)
    values = ["1", "0.5", "-0", "0", "2.0000000001", "2", "7"]
    ql, rl = [], []
    for t in range(40):
        ql += [f"{t} 0 d{d} {rnd.choice([0, 1, 2, 3, -1])}" for d in range(0, 90, rnd.randint(2, 5))]
        if t % 9 != 8:
            rl += [f"{t} Q0 d{d} 0 {rnd.choice(values)} run" for d in rnd.sample(range(100), rnd.randint(1, 80))]
    rl += ["99 Q0 x 0 1 run"]
    q, r = folder / "qrels.txt", folder / "run.txt"
    q.write_text("\n".join(ql) + "\n")
    r.write_text("\n".join(rl) + "\n")
    return q, r


@pytest.mark.parametrize("preset", ["trec_eval", "pytrec_eval", "gdeval", "ranx", "standard"])
def test_a_run_file_gives_the_values_of_the_whole_run(tmp_path, preset, force_threads):
    # the file's rows are joined and only each topic's top 20 placed; the run read into memory
    # places every row: the same bits, per topic and mean
    for seed in (1, 2):
        q, r = _tied_files(tmp_path, seed)
        ms = [Measurement("ndcg", cutoff=k, convention=preset, missing="zero") for k in (1, 3, 20, 10)]
        assert top_rows_read(ms) is not None
        from_file = evaluate_trec(str(r), str(q), ms)
        in_memory = evaluate_trec(fastndcg.io.read_run(str(r)), fastndcg.io.read_qrels(str(q)), ms)
        assert list(from_file.qids) == list(in_memory.qids)
        np.testing.assert_array_equal(from_file.values, in_memory.values, err_msg=f"{preset} seed {seed}")
        np.testing.assert_array_equal(from_file.means, in_memory.means)
