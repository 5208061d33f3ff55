"""A TREC run against qrels held in memory, the run read by whole topics
(:func:`fastndcg.io._joining.iter_joined`) and each piece joined with the qrels as
:func:`fastndcg.io.align_run` does: :func:`evaluate_run`, :func:`align_chunk`."""
from __future__ import annotations
import numbers
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Tuple, Union

import numpy as np

from fastndcg.conventions._topics import DEFAULT_MISSING, check_missing
from fastndcg.conventions._convention import Convention, Cutoffs
from fastndcg.conventions._presets import as_convention
from fastndcg.measures._aligned import aligned_arrays, aligned_inputs
from fastndcg.measures._measurement import cutoff_measurements
from fastndcg.stream._chunks import Chunk, NDCGAccumulator, PathLike, StreamResult
from fastndcg._core.query_checks import gathered_label_warnings

if TYPE_CHECKING:  # pragma: no cover
    from fastndcg.io._alignment import AlignedRun
    from fastndcg.io._joined_runs import JoinedRun
    from fastndcg.io._trec import Qrels, Run


# ----------------------------------------------------------------------------- TREC runs


@dataclass(repr=False)      # StreamResult's short repr, with the run's tag and topics
class RunStreamResult(StreamResult):
    """Result of :func:`evaluate_run`: a :class:`StreamResult` (query ids are
    the topics, in bytewise order as trec_eval prints them) plus what
    :class:`fastndcg.io.AlignedRun` reports about the topics.

    Attributes
    ----------
    run_name : str
        The tag of the run's last line (trec_eval's ``runid``).
    missing_qids : list of str
        Judged topics with no results in the run.
    ignored_qids : list of str
        Run topics without judgments (never evaluated, as trec_eval).
    """

    run_name: str = ""
    missing_qids: List[str] = field(default_factory=list)
    ignored_qids: List[str] = field(default_factory=list)


def aligned_chunk(aligned: "AlignedRun", convention: Any = "trec_eval", ideal: str = "auto",
                  gains: Any = None) -> Chunk:
    """The :class:`Chunk` of a :class:`fastndcg.io.AlignedRun` under a
    convention: the docno tie key when the convention breaks ties by key, and
    the judged documents as external ideal where the convention's tool takes
    its ideal from the qrels (:attr:`fastndcg.Convention.ideal_source`; ``ideal``
    "qrels"/"run" overrides), exactly what :func:`fastndcg.evaluate`
    passes to the kernels.

    ``gains``: trec_eval's custom gains under the ``trec_eval`` /
    ``pytrec_eval`` presets (``fastndcg/measures/_trec_gain_specs.py``, ``_trec_gain_scoring.py``): the chunk then
    carries each document's gain and each topic's ideal DCG (one
    :class:`fastndcg.measures.TrecGainQuirkWarning` if a quirk of trec_eval
    changes a value). Under other conventions custom gains are a gain table:
    evaluate with ``convention=convention.replace(gain={level: gain, ...})``
    and no ``gains`` (a ValueError says so)."""
    chunk, quirks = _aligned_chunk(aligned, convention, ideal, gains, None)
    if gains is not None:
        from fastndcg.measures._trec_gain_specs import as_gains
        from fastndcg.measures._trec_gain_resolution import warn_quirks

        warn_quirks(quirks, as_gains(gains))
    return chunk


def _aligned_chunk(aligned: "AlignedRun", convention: Any, ideal: str, gains: Any, n_threads: Optional[int]):
    """(Chunk, GainQuirks or None): :func:`aligned_chunk` without the warning."""
    if gains is None:
        kw = aligned_arrays(aligned, convention, ideal)
        return Chunk(aligned.scores, aligned.labels, aligned.offsets, aligned.qids, kw.get("tie_key"),
                     None, kw.get("ideal_labels"), kw.get("ideal_offsets")), None
    from fastndcg.measures._trec_gain_specs import gain_rules

    if gain_rules(convention) != "trec_eval":
        raise ValueError(
            f"gains: under convention {as_convention(convention).name!r} custom gains are a gain table; pass "
            "the convention with its table, convention.replace(gain={level: gain, ...}), and no gains")
    _, kw, quirks = aligned_inputs(aligned, gains, convention, ideal, n_threads)
    gains_ = kw["gains"]
    chunk = Chunk(kw["scores"], np.zeros(gains_.shape[0], dtype=np.int64), kw["offsets"], aligned.qids,
                  kw.get("tie_key"), gains=gains_, ideal_dcg=kw["ideal_dcg"])
    return chunk, quirks


def align_chunk(run: Union["Run", "JoinedRun", PathLike], qrels: Union["Qrels", PathLike],
                convention: Any = "trec_eval", *, ideal: str = "auto", missing: str = DEFAULT_MISSING,
                max_docs: Optional[int] = None, gains: Any = None,
                n_threads: Optional[int] = None,
                progress: Optional[Callable[[int, int], None]] = None) -> Tuple["AlignedRun", Chunk]:
    """Join a run (or a topic-complete piece of one) with qrels as
    ``fastndcg eval`` does: :func:`fastndcg.io.align_run` (``max_docs``
    ranked in float32 when the convention scores in float32, as trec_eval 9.x
    and pytrec_eval), then :func:`aligned_chunk` (``gains``: trec_eval's
    custom gains, see there). A run path is joined with the qrels while it
    is read (:func:`fastndcg.io._joining.join_run_file`; ``progress``: its
    callback, bytes of the run file); a :class:`fastndcg.io._joined_runs.JoinedRun`
    (joined with these qrels, e.g. by :func:`fastndcg.io._joining.join_runs`) is
    used as it is.

    Returns
    -------
    (AlignedRun, Chunk)
    """
    aligned, chunk, quirks = _align_chunk(run, qrels, convention, ideal, missing, max_docs, gains, n_threads,
                                          progress)
    if gains is not None:
        from fastndcg.measures._trec_gain_specs import as_gains
        from fastndcg.measures._trec_gain_resolution import warn_quirks

        warn_quirks(quirks, as_gains(gains))
    return aligned, chunk


def _align_chunk(run, qrels, convention, ideal, missing, max_docs, gains, n_threads, progress=None, owned=False):
    """:func:`align_chunk`; ``owned``: a JoinedRun ``run`` is the caller's to free
    (``aligned(consume=True)``), as one joined here from a path is."""
    from fastndcg.io._alignment import read_qrels_for
    from fastndcg.io._joined_runs import JoinedRun
    from fastndcg.io._joining import align_run, join_run_file
    from fastndcg.io._trec import Qrels

    conv = as_convention(convention)
    f32 = conv.score_precision == "float32"
    if isinstance(run, (str, os.PathLike)):
        if not isinstance(qrels, Qrels):
            qrels = read_qrels_for(run, qrels, n_threads)
        run = join_run_file(run, qrels, progress=progress, n_threads=n_threads)
        owned = True
    if isinstance(run, JoinedRun):
        aligned = run.aligned(missing=missing, max_docs=max_docs, float32_scores=f32, n_threads=n_threads,
                              consume=owned)
    else:
        aligned = align_run(run, qrels, missing=missing, max_docs=max_docs, float32_scores=f32, n_threads=n_threads)
    chunk, quirks = _aligned_chunk(aligned, conv, ideal, gains, n_threads)
    return aligned, chunk, quirks


# over 100 lines: 60 of them the docstring; the body is one read-join-evaluate loop over the run
def evaluate_run(qrels: Union["Qrels", PathLike], run: PathLike, k: Cutoffs = 10, *,
                 convention: Any = "trec_eval", ideal: str = "auto", missing: str = DEFAULT_MISSING,
                 max_docs: Optional[int] = None, gains: Any = None, chunk_rows: int = 1 << 18,
                 keep: str = "queries",
                 per_query: bool = True, n_threads: Optional[int] = None,
                 block_size: Optional[int] = None,
                 progress: Optional[Callable[[int, int], None]] = None) -> RunStreamResult:
    """NDCG of a TREC run against qrels, the run streamed by whole topics.

    The qrels are held in memory (:func:`fastndcg.io.read_qrels`); the
    run is read in pieces of whole topics, each joined with the qrels as it is
    read (:func:`fastndcg.io._joining.iter_joined`), as :func:`fastndcg.io.align_run` does
    (:func:`align_chunk`: docno tie key, judged documents as the ideal list
    where the convention's tool takes it from the qrels, ``max_docs``) and
    evaluated with the in-memory kernels. Judged topics that never appear in
    the run are handled at the end, as ``align_run(missing=...)``.

    Parameters
    ----------
    qrels : Qrels or path
    run : path
        A TREC run (plain, gzip, bz2 or xz) whose topics each occupy one
        stretch of lines (a topic that comes back after another is a
        ValueError naming the file, line and topic); topics may come in any
        order.
    k : None, int or sequence
        Cutoff(s), as :func:`fastndcg.ndcg` (None: trec_eval's ``ndcg``).
    convention : Convention or preset name, default "trec_eval"
    ideal : {"auto", "qrels", "run"}
        Where the ideal list comes from: ``"auto"``, the convention's
        (:attr:`fastndcg.Convention.ideal_source`), or ``"qrels"`` / ``"run"``.
    missing : {"error", "zero", "skip"}
        Judged topics without results: a ValueError listing them (trec_eval
        10), NDCG 0 counted in the mean (trec_eval ``-c``), or left out.
    max_docs : int, optional
        Top ``max_docs`` results per topic (trec_eval ``-M``).
    gains : str, mapping or GainSpec, optional
        Custom gains, as trec_eval's ``-m ndcg.L=G,...``: trec_eval's rules under
        the ``trec_eval`` / ``pytrec_eval`` presets, a gain table under other
        conventions (``fastndcg/measures/_trec_gain_specs.py``, ``_trec_gain_scoring.py``). One
        :class:`fastndcg.measures.TrecGainQuirkWarning` for the whole run if a
        quirk of trec_eval changes a value.
    chunk_rows : int
        Results per piece (more when one topic is larger, and at least the
        lines of one read block). 2^18 by default: a piece costs about 80
        bytes a result while it is joined, so the default keeps the run's
        share of memory near 20-60 MB whatever its size.
    keep, per_query, n_threads
        See :class:`NDCGAccumulator`.
    block_size : int, optional
        Bytes read at a time (default :data:`fastndcg.io._joining.JOIN_BLOCK_SIZE`).
    progress : callable(done, total), optional
        Progress callback of the reader (bytes of the run file).

    Returns
    -------
    RunStreamResult
        Topics in bytewise order as :func:`fastndcg.io.align_run` gives
        them, whatever their order in the file: per-query values equal
        ``align_run(...).ndcg(k, convention=...)`` bit for bit, and with
        ``keep="queries"`` the mean equals ``aligned_mean_ndcg`` bit for
        bit (the summands are added in topic order); ``keep="sums"`` is
        within a few ulps. Memory: one piece (and its alignment) plus the
        qrels, plus 8 bytes x topics x (2 + 2 x n_cutoffs) for the per-topic
        values and summands.
    """
    from fastndcg._core.score_checks import overflow_at_file_lines
    from fastndcg.io._files import input_name
    from fastndcg.io._row_lines import at_file_lines
    from fastndcg.io._trec import Qrels, read_qrels
    from fastndcg.io._alignment import AlignedRun, judged_ideal, missing_topics_error, topic_first_line
    from fastndcg.io._joining import JOIN_BLOCK_SIZE, iter_joined

    check_missing(missing)
    if not isinstance(chunk_rows, numbers.Integral) or chunk_rows < 1:
        raise ValueError(f"chunk_rows must be an integer >= 1; got {chunk_rows!r}")
    conv = as_convention(convention)
    if not isinstance(qrels, Qrels):
        qrels = read_qrels(qrels, n_threads=n_threads)
    conv, spec, quirks = _run_gains(conv, gains, qrels)
    acc = NDCGAccumulator(k, convention=conv, keep=keep, per_query=per_query, n_threads=n_threads)
    ordered = keep == "queries" or per_query
    seen = np.zeros(qrels.n_topics, dtype=bool)
    positions: List[np.ndarray] = []       # qrels index of each evaluated topic, in arrival order
    ignored: List[str] = []
    name = ""
    pieces = iter_joined(run, qrels, chunk_rows=chunk_rows, n_threads=n_threads, progress=progress,
                         block_size=block_size or JOIN_BLOCK_SIZE, stream=True)
    with gathered_label_warnings():     # labels outside a gain table: one warning for the run
        for piece in pieces:          # iter_joined rejects a topic whose lines are interrupted
            aligned, chunk, piece_quirks = _align_chunk(piece, qrels, conv, ideal, "skip", max_docs, spec,
                                                        n_threads, owned=True)
            if piece_quirks is not None:
                quirks.merge(piece_quirks)
            name = piece.run_name
            pos = piece.qidx.astype(np.int64)      # the piece's evaluated topics (qrels indices)
            del piece               # free the parsed piece before the kernels run
            ignored.extend(aligned.ignored_qids)
            seen[pos] = True
            if ordered:
                positions.append(pos)
            if chunk.scores is aligned.scores and aligned.score_lines is not None:
                # a score beyond float32 (warned about or refused) is named by its run file line
                line_of = aligned.score_line
                with at_file_lines({"scores": (aligned.run_path, line_of)}), \
                        overflow_at_file_lines(aligned.run_path, line_of):
                    acc.add(chunk)
            else:
                acc.add(chunk)
            del aligned
            del chunk
        missing_qids = qrels.topics[~seen].tolist()
        if missing_qids and missing == "error":
            raise missing_topics_error(qrels.path, input_name(run), missing_qids,
                                               topic_first_line(qrels, int(np.flatnonzero(~seen)[0])))
        if missing_qids and missing == "zero":
            if ordered:
                positions.append(np.flatnonzero(~seen))
            _add_missing_topics(acc, qrels, ~seen, conv, ideal, spec, quirks, n_threads)
    if quirks is not None:
        from fastndcg.measures._trec_gain_resolution import warn_quirks

        warn_quirks(quirks, spec)
    order = None
    if ordered and positions:
        arrival = np.concatenate(positions)
        if arrival.size and bool(np.any(arrival[1:] < arrival[:-1])):
            order = np.argsort(arrival, kind="stable")
    res = acc.result(order)
    signatures = [m.signature for m in cutoff_measurements(acc.evaluator.cutoffs, conv, ideal=ideal, gains=spec,
                                                           missing=missing, max_docs=max_docs)]
    return RunStreamResult(res.mean, res.ndcg, res.query_ids, res.n_queries, res.n_rows, res.n_chunks,
                           res.max_chunk_rows, signatures, run_name=name, missing_qids=missing_qids,
                           ignored_qids=sorted(set(ignored)))


def _run_gains(conv: Convention, gains: Any, qrels: "Qrels") -> Tuple[Convention, Any, Any]:
    """(convention, trec_eval gain spec or None, GainQuirks or None) of :func:`evaluate_run`'s
    ``gains``: trec_eval's rules under its presets, a gain table (a textbook convention) otherwise."""
    if gains is None:
        return conv, None, None
    from fastndcg.measures._trec_gain_specs import as_gains, gain_rules, textbook_convention
    from fastndcg.measures._trec_gain_resolution import GainQuirks

    spec = as_gains(gains)
    if gain_rules(conv) == "table":
        return textbook_convention(spec, conv, float(np.max(qrels.relevance, initial=0))), None, None
    return conv, spec, GainQuirks()


def _add_missing_topics(acc: NDCGAccumulator, qrels: "Qrels", unseen: np.ndarray, conv: Convention, ideal: str,
                        spec: Any, quirks: Any, n_threads: Optional[int]) -> None:
    """Judged topics without results under ``missing="zero"``: empty rankings against their
    judgments, evaluated by the same kernels (one chunk)."""
    from fastndcg.io._alignment import AlignedRun, judged_ideal

    n = int(unseen.sum())
    ideal_labels, ideal_offsets, ideal_status = judged_ideal(qrels, unseen, with_status=True)
    empty = AlignedRun(np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(n + 1, dtype=np.int64),
                       np.zeros(0, dtype=np.int64), ideal_labels, ideal_offsets,
                       qrels.topics[unseen], [], [], np.zeros(n, dtype=np.int64),
                       status=np.zeros(0, dtype=np.int8), ideal_status=ideal_status)
    chunk, piece_quirks = _aligned_chunk(empty, conv, ideal, spec, n_threads)
    if piece_quirks is not None:
        quirks.merge(piece_quirks)
    acc.add(chunk)
