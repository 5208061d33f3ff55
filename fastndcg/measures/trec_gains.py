"""trec_eval's custom gains (``trec_eval -m ndcg.L=G,...``): the one place for their rules.

``fastndcg eval QRELS RUN --gain L=G,...``, :meth:`fastndcg.io.readers.AlignedRun.ndcg`
with ``gains=``, :func:`fastndcg.report.stream.align_chunk` and
:func:`fastndcg.report.stream.evaluate_run` all come here:

* :func:`parse_gains` / :func:`as_gains` read a gain set into a :class:`GainSpec`
  (the listed ``(level, gain)`` pairs in order, duplicates kept);
* :func:`gain_rules` says which rules a convention applies: trec_eval's own
  under the ``trec_eval`` and ``pytrec_eval`` presets, the textbook gain table
  under any other convention, none under ``trec_eval_cut`` / ``pytrec_eval_cut``
  (trec_eval's ``ndcg_cut`` takes no gains);
* :func:`resolve_trec_gains` turns a spec and the topics' trec_eval levels into
  what the kernels need: each retrieved document's gain (for the DCG) and each
  topic's ideal DCG (trec_eval's walk);
* :class:`GainScorer` evaluates those per-document gains with the NDCG kernels
  (negative gains allowed);
* :func:`textbook_convention` gives the gain-table convention of the other presets.

trec_eval's rules (read from trec_eval 10.0, usnistgov/trec_eval f4253652:
``gain_init.c``, ``form_res_rels.c``, ``m_ndcg.c``, ``m_ndcg_cut.c``,
``meas_init.c``; the pure-Python spec is :mod:`fastndcg.reference._trec_gains`):

* a retrieved document not in the qrels is level -1, one judged below 0 is
  level -2; both have gain 0 unless a gain is listed for -1 / -2;
* unlisted levels keep gain = level; negative gains are allowed;
* the ideal DCG counts every judged document with a judgment >= 0 (retrieved or
  not), level by level in trec_eval's order of the gain entries: sorted by
  glibc's ``qsort`` with the comparator ``(int)(g1 - g2)`` (gains less than 1
  apart compare equal and keep their listing order; differences of 2**31 or
  more overflow), walked from the last entry and stopped at the first level
  with gain <= 0;
* a level listed twice: the first listed entry holds the judged count (the
  ideal), the first entry in sorted order gives the gain of retrieved documents
  (the DCG);
* NDCG = DCG / IDCG when IDCG > 0, else 0 (the topic counts in the mean);
  the ideal is never cut at k.

Where fastndcg differs on purpose: a malformed gain string (a level that is
not an integer, a gain that is not a finite number, an empty pair) is a
ValueError naming the pair, where trec_eval silently skips the pair (trec_eval
10) or reads it with ``atol``/``atof`` (``1=3x`` is gain 3, ``x=3`` level 0 in
trec_eval 9); a topic whose judgments are all below 0 has no judged level
(trec_eval 10 reuses the previous topic's level counts when they are all -1
and crashes when one is below -1).

One module per job: :mod:`.trec_gain_specs` (gain strings and specs), :mod:`.trec_gain_resolution`
(trec_eval's per-topic resolution and its quirks), :mod:`.trec_gain_scoring` (scoring, aligned
runs). This module re-exports their public names.
"""
from fastndcg.measures.trec_gain_specs import (GainSpec, MAX_JUDGED_LEVEL, NO_GAIN_PRESETS, TREC_GAIN_PRESETS,  # noqa: F401
                                               TrecGainQuirkWarning, as_gains, gain_rules, parse_gains,
                                               textbook_convention)
from fastndcg.measures.trec_gain_resolution import (GainQuirks, ResolvedGains, resolve_trec_gains, warn_quirks)  # noqa: F401
from fastndcg.measures.trec_gain_scoring import (BOGUS_RANKING_PRESETS, GainScorer, aligned_inputs,  # noqa: F401
                                                 aligned_scorer, bogus_ranking)
from fastndcg.conventions.trec_levels import LEVEL_NEGATIVE, LEVEL_UNJUDGED  # noqa: F401

__all__ = ["GainSpec", "GainScorer", "ResolvedGains", "TrecGainQuirkWarning", "GainQuirks",
           "TREC_GAIN_PRESETS", "NO_GAIN_PRESETS", "as_gains", "bogus_ranking", "gain_rules", "parse_gains",
           "resolve_trec_gains", "textbook_convention", "LEVEL_UNJUDGED", "LEVEL_NEGATIVE"]
