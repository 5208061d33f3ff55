"""Parsing speed of the file readers (MB/s) against naive baselines.

Generated, seeded files (written once per session):

* a LETOR 4.0-like SVMlight file: 30,000 lines, 46 dense features, a
  ``#docid = ...`` comment, CRLF line ends (about 15 MB);
* a TREC run: 400 topics x 1000 results (about 17 MB).

Baselines, timed in the same run: ``sklearn.datasets.load_svmlight_file``
(compiled, parses every feature) and a pure-Python loop per line. Run:

    pytest bench/bench_readers.py --benchmark-only --benchmark-columns=min,mean
"""
import numpy as np
import pytest

import fastndcg.io as readers

N_LINES = 30_000
N_TOPICS, N_PER_TOPIC = 400, 1000


@pytest.fixture(scope="session")
def letor_file(tmp_path_factory):
    rng = np.random.default_rng(0)
    path = tmp_path_factory.mktemp("bench") / "letor.txt"
    labels = rng.integers(0, 3, N_LINES)
    qids = np.repeat(np.arange(N_LINES // 30) + 10_000, 30)
    feats = np.round(rng.random((N_LINES, 46)), 6)
    with open(path, "w", newline="") as f:
        for i in range(N_LINES):
            body = " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(feats[i]))
            f.write(f"{labels[i]} qid:{qids[i]} {body} #docid = GX{i:09d} inc = 1 prob = 0.5\r\n")
    return path


@pytest.fixture(scope="session")
def run_file(tmp_path_factory):
    rng = np.random.default_rng(1)
    path = tmp_path_factory.mktemp("bench") / "run.txt"
    with open(path, "w") as f:
        for t in range(N_TOPICS):
            scores = np.sort(rng.random(N_PER_TOPIC))[::-1]
            docs = rng.choice(10 ** 7, N_PER_TOPIC, replace=False)
            f.write("".join(f"{400 + t}\tQ0\tDOC-{d:08d}\t{r + 1}\t{s:.6f}\tbench\n"
                            for r, (d, s) in enumerate(zip(docs, scores))))
    return path


def _info(benchmark, path, impl):
    benchmark.extra_info.update(impl=impl, megabytes=path.stat().st_size / 1e6)


def _mbps(benchmark, path):
    """MB/s of the fastest round (None under --benchmark-disable)."""
    if benchmark.stats is None:
        return None
    return path.stat().st_size / 1e6 / benchmark.stats.stats.min


def python_svmlight(path):
    """Pure-Python baseline: label and qid per line (features skipped too)."""
    labels, qids = [], []
    with open(path, "rb") as f:
        for line in f:
            parts = line.split(None, 2)
            if not parts or parts[0].startswith(b"#"):
                continue
            labels.append(float(parts[0]))
            qids.append(int(parts[1][4:]))
    return np.array(labels), np.array(qids)


def python_run(path):
    """Pure-Python baseline: topic, docno, score per line, grouped with dicts."""
    run = {}
    with open(path, "rb") as f:
        for line in f:
            p = line.split()
            run.setdefault(p[0], {})[p[2]] = float(p[4])
    return run


@pytest.mark.benchmark(group="svmlight")
def test_fastndcg_svmlight_labels_qids(benchmark, letor_file):
    d = benchmark(readers.read_svmlight, letor_file)
    assert d.n_rows == N_LINES
    _info(benchmark, letor_file, "fastndcg")
    benchmark.extra_info["MB/s"] = _mbps(benchmark, letor_file)


@pytest.mark.benchmark(group="svmlight")
def test_fastndcg_svmlight_with_features_and_docids(benchmark, letor_file):
    d = benchmark(readers.read_svmlight, letor_file, features=True, docids=True)
    assert d.features[3] == 47
    _info(benchmark, letor_file, "fastndcg+features")
    benchmark.extra_info["MB/s"] = _mbps(benchmark, letor_file)


@pytest.mark.benchmark(group="svmlight")
def test_sklearn_load_svmlight_file(benchmark, letor_file):
    from sklearn.datasets import load_svmlight_file

    X, y, q = benchmark.pedantic(load_svmlight_file, args=(str(letor_file),), kwargs={"query_id": True},
                                 rounds=3, iterations=1)
    assert y.shape[0] == N_LINES
    _info(benchmark, letor_file, "sklearn")
    benchmark.extra_info["MB/s"] = _mbps(benchmark, letor_file)


@pytest.mark.benchmark(group="svmlight")
def test_python_loop_svmlight(benchmark, letor_file):
    labels, _ = benchmark.pedantic(python_svmlight, args=(letor_file,), rounds=3, iterations=1)
    assert labels.shape[0] == N_LINES
    _info(benchmark, letor_file, "python")
    benchmark.extra_info["MB/s"] = _mbps(benchmark, letor_file)


@pytest.mark.benchmark(group="trec-run")
def test_fastndcg_read_run(benchmark, run_file):
    run = benchmark(readers.read_run, run_file)
    assert len(run) == N_TOPICS * N_PER_TOPIC
    _info(benchmark, run_file, "fastndcg")
    benchmark.extra_info["MB/s"] = _mbps(benchmark, run_file)


@pytest.mark.benchmark(group="trec-run")
def test_python_loop_run(benchmark, run_file):
    run = benchmark.pedantic(python_run, args=(run_file,), rounds=3, iterations=1)
    assert len(run) == N_TOPICS
    _info(benchmark, run_file, "python")
    benchmark.extra_info["MB/s"] = _mbps(benchmark, run_file)
