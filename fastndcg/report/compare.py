"""Side-by-side NDCG under every preset, with the diagnostics that explain the differences.

The same ranking gets different NDCG from different tools. :func:`compare`
evaluates one or more runs under every preset (or a chosen set) at a list of
cutoffs and reports, next to the numbers, why they differ:

* each preset's fields (gain, discount, ties, empty, short, ideal, ...);
* per preset, the queries whose ideal DCG is 0 ("empty": it depends on the
  gain table, e.g. LETOR's table gives label 3 gain 0);
* the queries shorter than each k (``short="zero"`` presets score them 0);
* the queries whose top k holds a tie group of documents with different
  gains, and among them those whose tie group crosses rank k;
* the range [worst, best] of NDCG@k over the orders of tied documents
  (``ties="worst"`` / ``"best"``);
* the largest spread between presets at each k;
* with two or more runs, the order of the systems under each preset and the
  pairs of systems whose order flips between presets.

Everything is computed through the public NDCG API (:class:`fastndcg.NDCGScorer`);
the only code here is bookkeeping and rendering.

One module per job: :mod:`.comparing` (inputs, diagnostics, :func:`compare`),
:mod:`.comparison` (the :class:`Comparison` result and its renderers), :mod:`.comparison_text`
(labels and number formatting). This module re-exports their public names.
"""
from fastndcg.report.comparison_text import (ArrayLike, Cutoff, IDEAL_CHOICES, PRESET_FIELDS, measure_name,  # noqa: F401
                                             preset_fields)
from fastndcg.report.comparison import (Comparison, RunData)  # noqa: F401
from fastndcg.report.comparing import (compare)  # noqa: F401
