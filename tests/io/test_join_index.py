"""The run-qrels join by hash (issue 27 item 2): each run docno looked up in the qrels'
per-topic index (``align.docno_index``, built once per Qrels), the tie key ranked within
groups of equal scores only. Checked against a plain-Python join with the old semantics
(tie key = the docno's bytewise rank within its topic) on inputs heavy with ties: the
arrays, and NDCG bit for bit under trec_eval's and pytrec_eval's rules (float32 ties), with
-M; duplicates; 1 against 2 threads; the index built once and shared by 8 threads."""
from __future__ import annotations

import re
import threading

import numpy as np
import pytest

import fastndcg
import fastndcg.io as readers
from fastndcg.io import _joining as align
from fastndcg.measures._aligned import aligned_ndcg
from fastndcg.io import Qrels
from fastndcg.measures._trec_measures import evaluate_trec

from join_cases import DOCS, SCORES, random_files, run_text
import fastndcg.io

def _expected(rows, qrels: Qrels, float32: bool):
    """Per judged topic (qrels order): scores, judgments, old tie key (docno rank), and the
    new key's definition (rank by (score, docno), the score rounded to float32)."""
    judg = {}
    docs = qrels.docnos()
    for t, a, b in zip(qrels.topics.tolist(), qrels.offsets[:-1].tolist(), qrels.offsets[1:].tolist()):
        judg[t] = {docs[i].encode("utf-8", "surrogateescape"): int(qrels.relevance[i]) for i in range(a, b)}
    out = {}
    for t in qrels.topics.tolist():
        mine = [(d, float(s)) for tt, d, s in rows if tt.decode("utf-8", "surrogateescape") == t]
        if not mine:
            continue
        by_doc = sorted(range(len(mine)), key=lambda i: mine[i][0])
        old = np.empty(len(mine), dtype=np.int64)
        old[by_doc] = np.arange(len(mine))

        def f32(x):
            return float(np.float32(x)) + 0.0         # -0.0 and 0.0 tie
        by_new = sorted(range(len(mine)), key=lambda i: (f32(mine[i][1]), mine[i][0]))
        new = np.empty(len(mine), dtype=np.int64)
        new[by_new] = np.arange(len(mine))
        rel = [judg[t].get(d) for d, _ in mine]
        out[t] = dict(scores=[s for _, s in mine], old=old, new=new,
                      labels=[max(r, 0) if r is not None else 0 for r in rel],
                      status=[-1 if r is None else (0 if r >= 0 else -2) for r in rel])
    return out


@pytest.mark.parametrize("seed", range(40))
def test_join_against_the_old_semantics(tmp_path, seed):
    rng = np.random.default_rng(seed)
    r, q, rows = random_files(tmp_path, rng)
    qrels = readers.read_qrels(q)
    exp = _expected(rows, qrels, False)
    for run in (r, readers.read_run(r)):          # joined while read (hash), and from a Run table
        a = readers.align_run(run, qrels, missing="zero")
        assert a.qids.tolist() == qrels.topics.tolist()
        for i, t in enumerate(a.qids.tolist()):
            s = slice(int(a.offsets[i]), int(a.offsets[i + 1]))
            if t not in exp:
                assert s.start == s.stop
                continue
            e = exp[t]
            np.testing.assert_array_equal(a.scores[s], e["scores"])
            np.testing.assert_array_equal(a.labels[s], e["labels"])
            np.testing.assert_array_equal(a.status[s], e["status"])
            np.testing.assert_array_equal(a.tie_key[s], e["new"])
        old_key = np.concatenate([exp[t]["old"] if t in exp else np.zeros(0, np.int64) for t in a.qids.tolist()])
        # NDCG with the old key (docno rank) and the new one: the same bits, float64 and float32 ties
        for preset in ("trec_eval", "pytrec_eval"):
            for k in (None, 1, 3):
                kw = dict(ideal_labels=a.ideal_labels, ideal_offsets=a.ideal_offsets, convention=preset)
                want = fastndcg.ndcg(a.scores, a.labels, a.offsets, k, tie_key=old_key, **kw)
                np.testing.assert_array_equal(aligned_ndcg(a, k, convention=preset), want)
        for m in ("ndcg_cut.1,3", "ndcg", "ndcg_rel", "ndcg.1=3,2=9"):
            for rules in ("trec_eval", "pytrec_eval"):
                ev = fastndcg.evaluate(m, qrels, r, missing="zero", convention=rules, max_docs=2)
                ev2 = fastndcg.evaluate(m, qrels, readers.read_run(r), missing="zero", convention=rules, max_docs=2)
                np.testing.assert_array_equal(ev.values, ev2.values)
        # -M: the top 2 by (score desc, docno desc), as trec_eval ranks them
        for f32 in (False, True):
            top = readers.align_run(run, qrels, missing="zero", max_docs=2, float32_scores=f32)
            for i, t in enumerate(top.qids.tolist()):
                if t not in exp:
                    continue
                e = exp[t]
                rank = sorted(range(len(e["scores"])), reverse=True,
                              key=lambda j: (float(np.float32(e["scores"][j])) + 0.0 if f32 else e["scores"][j],
                                             e["old"][j]))
                kept = sorted(rank[:2])
                s = slice(int(top.offsets[i]), int(top.offsets[i + 1]))
                np.testing.assert_array_equal(top.scores[s], [e["scores"][j] for j in kept])


def test_tie_key_ranks_docnos_within_equal_scores(tmp_path):
    # file order c a b d e; scores 1 3 1 1 2 (f32); "1.00000001" ties 1 in float32 only
    run = tmp_path / "r.txt"
    run.write_text("1 Q0 c 1 1 t\n1 Q0 a 1 3 t\n1 Q0 b 1 1.00000001 t\n1 Q0 d 1 1 t\n1 Q0 e 1 2 t\n")
    q = readers.read_qrels(_write(tmp_path, "q.txt", "1 0 a 1\n"))
    for r in (run, readers.read_run(run)):
        a = readers.align_run(r, q)
        np.testing.assert_array_equal(a.tie_key, [1, 4, 0, 2, 3])   # (b c d) e a


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("lines, line, other, doc, topic", [
    (["1 Q0 a 1 1 t", "1 Q0 b 1 2 t", "1 Q0 a 1 3 t"], 3, 1, "a", "1"),            # different scores
    (["2 Q0 x 1 1 t", "1 Q0 a 1 1 t", "2 Q0 y 1 1 t", "1 Q0 a 1 1 t"], 4, 2, "a", "1"),  # not contiguous
    (["9 Q0 a 1 1 t", "9 Q0 a 1 1 t"], 2, 1, "a", "9"),                           # a topic without judgments
    # as read_run: the first topic (bytewise) with a duplicate, its smallest docno given twice
    (["1 Q0 b 1 1 t", "1 Q0 \xe9 1 1 t", "2 Q0 c 1 1 t", "2 Q0 c 1 1 t", "1 Q0 \xe9 1 1 t"], 5, 2, "\xe9", "1"),
    (["1 Q0 z 1 1 t", "1 Q0 z 1 2 t", "1 Q0 b 1 3 t", "1 Q0 b 1 3 t", "1 Q0 b 1 3 t"], 4, 3, "b", "1"),
])
def test_duplicate_docnos_name_both_lines(tmp_path, lines, line, other, doc, topic):
    q = readers.read_qrels(_write(tmp_path, "q.txt", "1 0 a 1\n2 0 c 1\n"))
    run = _write(tmp_path, "r.txt", "\n".join(lines) + "\n")
    msg = f"{re.escape(str(run))}:{line}: duplicate docno '{doc}' for topic '{topic}' \\(also on line {other}\\)"
    with pytest.raises(ValueError, match=msg):
        readers.align_run(run, q)
    with pytest.raises(ValueError, match=msg):
        list(align.iter_joined(run, q, stream=False))
    with pytest.raises(ValueError, match=msg):
        readers.read_run(run)


def test_one_and_two_threads_give_the_same_bits(tmp_path, force_threads):
    rng = np.random.default_rng(7)
    rows = []
    for t in range(30):                       # enough topics for two threads to share them
        for i in rng.choice(len(DOCS), 12, replace=False):
            rows.append((str(t).encode(), DOCS[int(i)], SCORES[int(rng.integers(4))]))
    r = tmp_path / "r.txt"
    r.write_bytes(run_text(rows[::-1]))
    q = readers.read_qrels(_write(tmp_path, "q.txt", "".join(f"{t} 0 d{t % 3} 1\n{t} 0 d 2\n" for t in range(31))))
    got = []
    for nt in (1, 2):
        for run in (r, readers.read_run(r, n_threads=nt)):
            a = readers.align_run(run, q, missing="zero", n_threads=nt)
            got.append((a.scores.tobytes(), a.labels.tobytes(), a.tie_key.tobytes(), a.status.tobytes(),
                        aligned_ndcg(a, 10, n_threads=nt).tobytes()))
    assert all(g == got[0] for g in got)


def test_the_index_is_built_once_per_qrels(tmp_path, monkeypatch):
    built = []
    real = align._parse.DocnoIndex

    def counting(*args):
        built.append(1)
        return real(*args)
    monkeypatch.setattr(align._parse, "DocnoIndex", counting)
    r = _write(tmp_path, "r.txt", "1 Q0 a 1 1 t\n1 Q0 b 1 2 t\n")
    q = readers.read_qrels(_write(tmp_path, "q.txt", "1 0 a 1\n1 0 b 2\n"))
    joiner = align.RunJoiner(q)
    values = [evaluate_trec(joiner.join(r), q, "ndcg_cut.10").values for _ in range(3)]
    values += [fastndcg.evaluate("ndcg", q, r).values, aligned_ndcg(readers.align_run(r, q), 10)[:, None]]
    assert len(built) == 1 and align.docno_index(q) is align.docno_index(q)
    assert all(np.array_equal(v, values[0]) for v in values)


def test_the_index_is_the_same_on_any_thread_count_and_built_once_under_a_race_of_8_threads(tmp_path, monkeypatch):
    # each topic's table is its own: two threads build the table one does; threads that ask
    # for an index being built wait for it rather than build another
    rng = np.random.default_rng(21)
    path = tmp_path / "q.txt"
    path.write_bytes(b"".join(f"{t} 0 ".encode() + DOCS[int(i)] + f" {int(rng.integers(0, 3))}\n".encode()
                              for t in range(300)
                              for i in rng.choice(len(DOCS), int(rng.integers(1, len(DOCS))), replace=False)))
    q = readers.read_qrels(path)
    one = align._parse.DocnoIndex(q.pool, q.doc_start, q.doc_len, q.offsets, 1)
    two = align._parse.DocnoIndex(q.pool, q.doc_start, q.doc_len, q.offsets, 2)
    np.testing.assert_array_equal(one.table, two.table)
    np.testing.assert_array_equal(one.table_start, two.table_start)
    built = []
    real = align._parse.DocnoIndex

    def slow(*args):
        built.append(1)
        threading.Event().wait(0.05)        # a build long enough for the others to arrive
        return real(*args)
    monkeypatch.setattr(align._parse, "DocnoIndex", slow)
    got = []
    threads = [threading.Thread(target=lambda: got.append(align.docno_index(q, 2))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(built) == 1 and len(got) == 8 and all(g is got[0] for g in got)
    np.testing.assert_array_equal(got[0].table, one.table)


def test_a_joiner_reuses_its_buffers_and_gives_each_run_its_own_arrays(tmp_path):
    q = readers.read_qrels(_write(tmp_path, "q.txt", "1 0 a 1\n2 0 b 2\n"))
    big = _write(tmp_path, "big.txt", "".join(f"{t} Q0 {d} 1 {s} t\n" for t in (1, 2) for d, s in
                                              (("a", 1), ("b", 2), ("c", 2), ("dd", 0.5))))
    small = _write(tmp_path, "small.txt", "2 Q0 b 1 1 t\n")
    joiner = align.RunJoiner(q, chunk_rows=3, block_size=32)
    first = joiner.join(big).aligned()
    second = joiner.join(small).aligned(missing="zero")
    again = joiner.join(big).aligned(missing="zero")
    for x, y in ((first, readers.align_run(readers.read_run(big), q)),
                 (second, readers.align_run(readers.read_run(small), q, missing="zero")), (again, first)):
        for f in ("scores", "labels", "tie_key", "offsets", "status"):
            np.testing.assert_array_equal(getattr(x, f), getattr(y, f))
    assert second.qids.tolist() == ["1", "2"] and second.missing_qids == ["1"]


def test_eight_threads_evaluate_runs_against_one_qrels(tmp_path):
    rng = np.random.default_rng(3)
    runs = [random_files(tmp_path, rng, name=f"r{i}")[0] for i in range(8)]
    q = readers.read_qrels(random_files(tmp_path, rng, name="q")[1])
    want = {}
    fresh = readers.read_qrels(q.path)
    for i, r in enumerate(runs):
        want[i] = evaluate_trec(r, fresh, "ndcg_cut.1,3", missing="zero").values
    got: dict = {}
    errors: list = []
    barrier = threading.Barrier(8)

    def worker(i):
        try:
            barrier.wait()
            joiner = align.RunJoiner(q, n_threads=2)
            for _ in range(5):
                for j in range(8):
                    r = runs[(i + j) % 8]
                    v = evaluate_trec(joiner.join(r), q, "ndcg_cut.1,3", missing="zero").values
                    assert v.tobytes() == want[(i + j) % 8].tobytes()
            got[i] = True
        except BaseException as exc:           # noqa: BLE001 - reported below
            errors.append(exc)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    assert len(got) == 8
    assert isinstance(q.__dict__["_docno_index"], align._parse.DocnoIndex)


def _runs(tmp_path, n):
    q = readers.read_qrels(_write(tmp_path, "q.txt", "".join(f"{t} 0 d{t} 1\n{t} 0 e 2\n" for t in range(5))))
    paths = []
    for i in range(n):
        paths.append(_write(tmp_path, f"r{i}.txt", "".join(f"{t} Q0 {d} 1 {(i * 7 + t + j) % 3} t{i}\n"
                                                             for t in range(4) for j, d in enumerate(("e", f"d{t}", "x")))))
    return q, paths


@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_join_runs_gives_every_run_in_order(tmp_path, n_threads):
    q, paths = _runs(tmp_path, 7)
    assert align.run_threads(paths, n_threads) == ((min(n_threads, 7), 1) if n_threads > 1 else (1, 1))
    want = [align.join_run_file(p, q).aligned(missing="zero") for p in paths]
    got = [j.aligned(missing="zero") for j in align.join_runs(paths, q, n_threads=n_threads)]
    assert [g.run_name for g in got] == [f"t{i}" for i in range(7)]
    for g, w in zip(got, want):
        for f in ("scores", "labels", "tie_key", "offsets", "status"):
            np.testing.assert_array_equal(getattr(g, f), getattr(w, f))


def test_join_runs_raises_the_first_failing_run_in_order(tmp_path):
    q, paths = _runs(tmp_path, 6)
    bad = _write(tmp_path, "bad.txt", "".join(f"1 Q0 d{i} 1 1 t\n" for i in range(3000)) + "1 Q0 d0 1 1 t\n")
    worse = _write(tmp_path, "worse.txt", "1 Q0 x 1 oops t\n")         # fails at once, but comes later
    order = paths[:2] + [bad] + paths[2:4] + [worse] + paths[4:]
    seen = []
    with pytest.raises(ValueError, match=f"{re.escape(str(bad))}:3001: duplicate docno 'd0'"):
        for j in align.join_runs(order, q, n_threads=2):
            seen.append(j.run_path)
    assert seen == [str(p) for p in paths[:2]]


def test_eval_many_runs_prints_the_same_bytes_for_any_thread_count(tmp_path, capsys):
    from conftest import run_cli

    q, paths = _runs(tmp_path, 5)
    for how in (["-m", "ndcg_cut.1,3", "-m", "ndcg", "-m", "ndcg_rel"], ["-k", "1,3"]):
        outs = []
        for threads in ("1", "2", "3"):
            code, out, err = run_cli(capsys, "eval", "-c", "--format", "trec", "--threads", threads, *how,
                                     q.path, *paths, paths[0])
            assert code == 0, err
            outs.append((out, err))
        assert outs[0][0].count("ndcg") >= 6 * 2
        assert all(o == outs[0] for o in outs)


def test_qrels_with_their_index_pickle(tmp_path):
    import pickle

    q, paths = _runs(tmp_path, 2)
    want = align.join_run_file(paths[0], q).aligned(missing="zero")
    assert "_docno_index" in q.__dict__
    q2 = pickle.loads(pickle.dumps(q))
    got = align.join_run_file(paths[0], q2).aligned(missing="zero")
    for f in ("scores", "labels", "tie_key", "offsets", "status"):
        np.testing.assert_array_equal(getattr(got, f), getattr(want, f))
