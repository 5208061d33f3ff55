"""The kernel plan: one function turns a convention and the shape of the data into what every
kernel reads.

:func:`kernel_plan` takes (convention, the longest query, the cutoffs or LambdaMART's
truncation, and the labels when the ranking needs them) and gives a :class:`KernelPlan`: the
convention's resolution (gain and label rules, codes: :func:`fastndcg._core.resolve.resolve`),
the gain table of the kernels that look gains up by label, D(r) to the depth the kernels sum,
the tie key the comparator ranks with (the caller's, or the gain ranks of worst / best ties),
the short-query limit of every column and the value of an empty query. NDCG
(:class:`fastndcg.NDCGScorer`), LambdaMART in every mode, SoftNDCG, RankDCG and the LightGBM /
XGBoost metrics read it; none derives these from the convention itself, so a field a kernel
acts on is resolved in ``resolve.py`` and handed on here, once.
"""
from __future__ import annotations

from typing import Any, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from fastndcg._core._kernel_plan import CompiledPlan
from fastndcg._core.query_checks import FULL_LIST, check_tie_key
from fastndcg._core.resolve import Resolution, builtin_discount, discount, gain_rank_key, resolve, short_limits
from fastndcg.conventions._convention import Convention


class KernelPlan(NamedTuple):
    """What the kernels read (see the module docstring).

    ``cutoffs``: one column each, :data:`~fastndcg._core.query_checks.FULL_LIST` for the whole
    list; ``depth``: the ranks the kernels sum D(r) over (r = 1..depth); ``disc``: D(r) for
    those ranks; ``short_limit``: per column, a query shorter than it scores 0 (0: no limit);
    ``tie_key`` / ``key_desc``: the comparator's key and its direction (None: input order);
    ``gains``: ``(table, last, linear)``, the gains the kernels look labels up in (G(l) = l when
    linear, else ``table[min(l, last)]``, where ``table[last]`` = 0); ``empty_value``: the value
    of a query whose ideal DCG is 0. :meth:`compiled` is the struct the kernels read.
    """

    convention: Convention
    res: Resolution
    cutoffs: np.ndarray
    depth: int
    disc: np.ndarray
    short_limit: np.ndarray
    tie_key: Optional[np.ndarray]
    key_desc: bool
    gains: Tuple[np.ndarray, int, bool]
    empty_value: float

    def compiled(self, ideal_disc: Optional[np.ndarray] = None) -> CompiledPlan:
        """The plan as the struct every kernel reads (``ideal_disc``: D(r) over the ranks an
        NDCG ideal sums, see :meth:`ideal_discount`; default: ``disc``)."""
        return CompiledPlan(self, ideal_disc)

    def ideal_discount(self, max_n: int) -> np.ndarray:
        """D(r) over the ranks the ideal DCG of lists up to ``max_n`` sums (the whole list under
        ``ideal="full"``, else cut at the largest cutoff); a ValueError when a discount array
        is too short for them."""
        whole = self.convention.ideal == "full"
        return discount(self.convention, max_n if whole else min(int(self.cutoffs[-1]), max_n))


def kernel_plan(convention: Convention, max_n: int, cutoffs: Sequence[Any] = (None,), *,
                labels: Optional[np.ndarray] = None, tie_key: Any = None, key_later: bool = False,
                depth: Optional[int] = None, log2_discount: bool = False, unit_discount: bool = False,
                gain_table: Optional[np.ndarray] = None) -> KernelPlan:
    """The :class:`KernelPlan` of ``convention`` for queries of at most ``max_n`` documents.

    Parameters
    ----------
    cutoffs : sequence of int or None
        One column each (None: the whole list; any int is a cutoff, however large: under
        ``short="zero"`` every query shorter than it scores 0); LambdaMART passes its
        truncation, SoftNDCG its k, NDCG its checked cutoffs (its whole-list marker as None).
    labels, tie_key, key_later
        With ``labels``, the tie key: the caller's ``tie_key`` under ``ties="key"`` /
        ``"key_desc"`` (checked; none given is an error unless ``key_later``: each call
        brings one), the gain ranks under ``"worst"`` / ``"best"``, else None.
    depth : int, optional
        The ranks D(r) is needed for (default: the largest cutoff, at most ``max_n``;
        LambdaMART's pairs reach every rank of a query).
    log2_discount : bool
        The libraries' own discount, 1/log2(r + 1), whatever the convention's (LambdaMART's
        bit-exact modes).
    unit_discount : bool
        A discount array scaled to a largest entry in [1, 2) (SoftNDCG: see
        :meth:`Convention.unit_discount`).
    gain_table : ndarray, optional
        A table the kernels look gains up in instead of the convention's (LightGBM looks a
        linear gain up by integer label: its table 0, 1, ..., largest label).
    """
    res = resolve(convention)
    given = [None if c is None else int(c) for c in cutoffs]
    cols = np.array([FULL_LIST if c is None else min(c, FULL_LIST) for c in given], dtype=np.int64)
    if depth is None:
        depth = int(min(int(cols.max(initial=1)), max_n))
    depth = max(int(depth), 1)
    if log2_discount:
        disc = builtin_discount("log2", depth)
    else:
        disc = discount(convention.unit_discount() if unit_discount else convention, depth)
    short = short_limits(convention, given)
    key: Optional[np.ndarray] = None
    if labels is not None:
        key = tie_key_for(convention, tie_key, labels, key_later)
    if gain_table is None:
        gains = (res.table, res.last, res.linear)
    else:
        table = np.concatenate([np.asarray(gain_table, dtype=np.float64), np.zeros(1)])
        gains = (table, table.shape[0] - 1, False)
    return KernelPlan(convention, res, cols, depth, disc, short, key, res.key_desc, gains, res.empty_value)


def missing_tie_key_message(conv: Convention) -> str:
    """What to pass when a convention that breaks ties by a key got none.

    The one wording of this error, for every door (ndcg, mean_ndcg, NDCGScorer,
    compare, ...); a named convention (a preset, renamed or not) is named, since a
    user who picked ``"trec_eval"`` never wrote ``ties='key_desc'`` and would not
    recognise it.
    """
    order = "descending" if conv.ties == "key_desc" else "ascending"
    need = f"ties={conv.ties!r} needs a tie_key array"
    how = (f"pass tie_key=... (one value per document, e.g. docno ranks; equal scores go by tie_key {order}) "
           'or use .replace(ties="stable") to keep the input order')
    # the name is the label its user knows (a preset, or a renamed one), never a rule: the advice
    # follows the fields alone, so a renamed preset gets this message with its own name
    if conv.name != "custom":
        return f"the {conv.name} preset breaks ties by docno ({need}): {how}"
    return f"{need}: {how}"


def tie_key_for(convention: Convention, tie_key: Any, labels: np.ndarray, key_later: bool = False
                ) -> Optional[np.ndarray]:
    """The tie key the kernels rank with (the comparator: score descending, then the key, then
    the row): the caller's ``tie_key`` under ``ties="key"`` / ``"key_desc"`` (none given is an
    error unless ``key_later``: each call then brings one), each document's gain rank under
    ``"worst"`` / ``"best"`` (:func:`~fastndcg._core.resolve.gain_rank_key`, the one place of
    that rule), else None (input order; ``"average"`` is the NDCG kernel's own)."""
    if convention.uses_tie_key:
        if tie_key is None:
            if key_later:
                return None
            raise ValueError(missing_tie_key_message(convention))
        return check_tie_key(tie_key, labels.shape[0])
    if tie_key is not None:
        raise ValueError(f"tie_key was given but the convention breaks ties by {convention.ties!r}; "
                         "use ties='key' or 'key_desc'")
    return gain_rank_key(convention, labels) if resolve(convention).tie_by_gain else None
