"""fastndcg as an ir_measures provider.

ir_measures (0.4.3) lets a package register a provider
(``ir_measures.providers.register``) and evaluates measures through the first
provider of its default pipeline that supports them. :func:`register_ir_measures` adds
fastndcg's provider to the registry (``ir_measures.providers.registry["fastndcg"]``)
and, with ``default=True``, puts it first in ``ir_measures.DefaultPipeline``,
so that::

    import ir_measures, fastndcg.integrations._ir_measures as fp
    fp.register_ir_measures()
    ir_measures.calc_aggregate([ir_measures.nDCG@10], qrels, run)   # computed by fastndcg

It supports ir_measures' ``nDCG`` with every parameter (``cutoff``, ``dcg``,
``gains``, ``judged_only``) except ``gains`` together with
``dcg='exp-log2'``, with ir_measures' semantics
(:mod:`fastndcg.measures._trec_measures`): the values equal those of ir_measures' own
providers (pytrec_eval, gdeval, ranx; ties aside for ranx). Other measures
fall through to the next provider. :func:`unregister_ir_measures` restores the pipeline.
Importing this module does not import ir_measures; :func:`register_ir_measures` does.

Aggregates: ir_measures' own evaluators average the per-query values with a
running float sum (``MeanAgg``), which can differ from fastndcg's exact mean in
the last bit. The provider's evaluator overrides ``calc_aggregate`` and ``calc``
and returns fastndcg's means, so ``ir_measures.calc_aggregate`` /
``ir_measures.calc`` / ``ir_measures_provider().evaluator(...).calc_aggregate`` equal
``fastndcg.evaluate(...).aggregated`` bit for bit whenever fastndcg computes
every measure of the call. ir_measures' API leaves no place to hand over the
mean in two cases, where its float sum stays: a call that also asks for a
measure of another provider (``[nDCG@10, P@5]``: ir_measures' own
``FallbackEvaluator`` averages the per-query values of both providers), and a
mean a user computes from ``iter_calc``.
"""
from __future__ import annotations

import threading
from typing import Any, Optional

__all__ = ["register_ir_measures", "unregister_ir_measures", "ir_measures_provider"]

_PROVIDER: Optional[Any] = None
# One provider per process, and ir_measures' registry and pipeline changed by one
# thread at a time (else two threads could make two providers and register both).
_LOCK = threading.RLock()


def _make_provider():
    import ir_measures
    from ir_measures import providers
    from ir_measures.providers.base import Any as AnyParam

    from fastndcg.measures._evaluation import as_qrels, run_and_qrels
    from fastndcg.measures._measure_strings import MeasureError, parse_measure
    from fastndcg.measures._trec_measures import evaluate_trec

    class FastNDCGEvaluator(providers.Evaluator):
        def __init__(self, measures, qrels):
            self._qrels = as_qrels(qrels)
            self._irm = list(measures)
            self._ours = [parse_measure(m)[0] for m in self._irm]
            super().__init__(measures, set(self._qrels.topics.tolist()))

        def _result(self, run):
            # ir_measures scores judged topics missing from the run 0: its rule, stated explicitly
            run_in, qrels, consume = run_and_qrels(run, self._qrels)
            return evaluate_trec(run_in, qrels, self._ours, missing="zero", consume_run=consume)

        def _metrics(self, res):
            for q, row in zip(res.qids.tolist(), res.values.tolist()):
                for m, v in zip(self._irm, row):
                    yield ir_measures.Metric(query_id=q, measure=m, value=v)

        def _iter_calc(self, run):
            yield from self._metrics(self._result(run))

        def _aggregate(self, res):
            # fastndcg's exact means, not ir_measures' running float sum of the per-query values
            return dict(zip(self._irm, res.means.tolist()))

        def calc_aggregate(self, run):
            return self._aggregate(self._result(run))

        def calc(self, run):
            res = self._result(run)
            return ir_measures.CalcResults(self._aggregate(res), list(self._metrics(res)))

    class FastNDCGProvider(providers.Provider):
        """fastndcg: compiled, exact NDCG (ir_measures' nDCG, every parameter but gains with exp-log2)."""

        NAME = "fastndcg"
        SUPPORTED_MEASURES = [ir_measures.measures._nDCG(cutoff=AnyParam(), dcg=AnyParam(), gains=AnyParam(),
                                                         judged_only=AnyParam())]

        def supports(self, measure) -> bool:
            if not super().supports(measure):
                return False
            try:
                parse_measure(measure)
            except (MeasureError, ValueError, TypeError):
                return False
            return True

        def _evaluator(self, measures, qrels):
            return FastNDCGEvaluator(measures, qrels)

    return FastNDCGProvider()


def ir_measures_provider():
    """The (one) fastndcg provider object (imports ir_measures)."""
    global _PROVIDER
    with _LOCK:
        if _PROVIDER is None:
            _PROVIDER = _make_provider()
        return _PROVIDER


def register_ir_measures(default: bool = True):
    """Register fastndcg with ir_measures; with ``default`` also make it the
    first provider of ``ir_measures.DefaultPipeline`` (so ``ir_measures.calc_aggregate``
    and friends compute nDCG with it). Returns the provider. Idempotent."""
    import ir_measures

    with _LOCK:
        p = ir_measures_provider()
        ir_measures.providers.register(p)
        pipeline = ir_measures.DefaultPipeline.providers
        if default and p not in pipeline:
            pipeline.insert(0, p)
        return p


def unregister_ir_measures() -> None:
    """Undo :func:`register_ir_measures` (the registry entry and the pipeline position)."""
    import ir_measures

    with _LOCK:
        if _PROVIDER is None:
            return
        pipeline = ir_measures.DefaultPipeline.providers
        while _PROVIDER in pipeline:
            pipeline.remove(_PROVIDER)
        if ir_measures.providers.registry.get("fastndcg") is _PROVIDER:
            del ir_measures.providers.registry["fastndcg"]
