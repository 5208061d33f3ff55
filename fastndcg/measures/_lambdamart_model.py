"""The :class:`LambdaMART` object: labels, offsets, weights and the convention prepared once (ideal
DCG per query, gain and discount tables), then gradients and hessians per round in one parallel
kernel pass."""
from __future__ import annotations
import numbers
from typing import Any, Optional, Tuple

import numpy as np

from fastndcg._core.plan import kernel_plan
from fastndcg._core.prepared import NDCGScorer, inverse_ideal_dcg
from fastndcg._core.resolve import MODE_CODES, table_labels
from fastndcg.conventions._convention import Convention
from fastndcg.conventions._presets import as_convention
from fastndcg._core.groups import offsets_from_sizes
from fastndcg._core.threads import threads_for
from fastndcg._core.resolve import FLOAT32_OVERFLOW
from fastndcg._core.arguments import check_flag
from fastndcg._core.query_checks import (_where, check_labels, check_offsets, check_query_weights, check_same_length,
                                         max_query_size, one_dimensional, shown_value)
from fastndcg._core.score_checks import OVERFLOW_HINT, as_scores, check_no_overflow, check_scores, raise_score_problem
from fastndcg._core.resolve import float32_reason
from fastndcg.measures._lambdamart_checks import ArrayLike, DeltaNDCGPairs, LIGHTGBM_DEFAULT_LABELS, LIGHTGBM_MAX_LINEAR_LABEL, Truncation, XGBOOST_MAX_LABEL, NO_TRUNCATION, check_exact_convention, check_mode, check_out_arrays, check_sample_weights, check_sigma, check_truncation, _lambdamart, sigmoid_table


# ----------------------------------------------------------------------------- the object


class LambdaMART:
    """LambdaMART gradients for fixed labels and queries, with the ideal DCG cached.

    Build it once per training set and call :meth:`gradients` every boosting
    round: labels, offsets, weights, tables and the inverse ideal DCG per query
    are validated and computed once.

    Parameters
    ----------
    labels : array of shape (n_docs,)
        Relevance labels (integers for exponential or table gains).
    offsets : int array of shape (n_queries + 1,)
        Query q owns rows ``offsets[q]:offsets[q+1]``.
    mode : {"default", "lightgbm", "xgboost"}, default "default"
        ``"default"``: the logistic in double (no table) and double accumulation under any
        convention. ``"lightgbm"``: LightGBM 4.x ``lambdarank`` bit for bit
        (2**20-bin sigmoid table, float32 accumulation in pair-loop order,
        ``0.01f``, ideal by label order). ``"xgboost"``: XGBoost 3.x
        ``rank:ndcg`` topk bit for bit (float32 scores, ``expf`` sigmoid,
        2x hessian, group weights normalised to mean 1). The exact modes
        return float32 arrays.
    convention : Convention, preset name or None
        The NDCG being optimised. None is the default convention in
        ``"default"`` mode, the ``"lightgbm"`` preset (``label_gain`` 2**l - 1,
        l < 31) in ``"lightgbm"`` mode and exponential gain in ``"xgboost"``
        mode. The exact modes accept only a different gain (a ``label_gain``
        table for LightGBM; ``"exponential"`` or ``"linear"`` for XGBoost's
        ``ndcg_exp_gain``). In ``"default"`` mode every field counts: gain,
        discount, tie rule (not ``"average"``), ``short="zero"`` (queries with
        fewer than ``truncation`` documents get zero gradients), ``ideal``,
        ``score_precision``; ``empty`` only matters as ``"error"`` (a query
        with ideal DCG 0 has constant NDCG, hence zero gradients).
    truncation : "auto", int or None, default "auto"
        T: only pairs with at least one document ranked in the top T count, and
        the ideal DCG is IDCG@T. "auto" is 30 (LightGBM's
        ``lambdarank_truncation_level``) in the default and lightgbm modes and
        32 (XGBoost's ``lambdarank_num_pair_per_sample``) in xgboost mode; None
        is the whole list.
    sigma : float, default 1.0
        σ of the logistic (LightGBM ``sigmoid``); must be 1 in xgboost mode.
    normalize : bool, default True
        List normalisation: scale the query's gradients and hessians by
        log2(1 + S) / S with S = Σ_pairs 2 |λ_hl| (LightGBM ``lambdarank_norm``,
        XGBoost ``lambdarank_normalization``).
    score_normalization : bool, default True
        Divide |ΔNDCG| by (0.01 + |s_h - s_l|) unless all of the query's
        scores are equal (LightGBM ``lambdarank_norm``, XGBoost
        ``lambdarank_score_normalization``).
    query_weights : array of shape (n_queries,), optional
        Multiply each query's gradients and hessians by its weight. In xgboost
        mode the weights are XGBoost's group weights, normalised by
        n_queries / Σ w as XGBoost does.
    sample_weights : array of shape (n_docs,), optional
        Multiply each document's gradient and hessian by its weight (LightGBM's
        row weights, applied in float32 in lightgbm mode). Not in xgboost mode.
    tie_key : int array of shape (n_docs,), optional
        Needed when ``convention.ties`` is "key" or "key_desc".
    n_threads : int, optional
        Threads for the ideal DCG computation.

    Notes
    -----
    For a query with n documents ranked by score (r = 0-based rank), gains
    G(l), discounts D(r) of the convention, ideal DCG IDCG@T and T the
    truncation, every pair (h, l) with G(l_h) > G(l_l) and min(r_h, r_l) < T
    contributes, with ρ = 1 / (1 + exp(σ (s_h - s_l))),

    * |ΔNDCG_hl| = (G_h - G_l) · |D(r_h) - D(r_l)| / IDCG@T, divided by
      (0.01 + |s_h - s_l|) with score normalisation;
    * λ_hl = -σ |ΔNDCG_hl| ρ: grad_h += λ_hl, grad_l -= λ_hl;
    * w_hl = σ² |ΔNDCG_hl| ρ (1 - ρ): hess_h += w_hl, hess_l += w_hl;

    then the list normalisation and the weights apply. These are the first
    and (diagonal) second derivatives of the pairwise logistic loss
    Σ_pairs |ΔNDCG_hl| log(1 + exp(-σ (s_h - s_l))) with the |ΔNDCG| held
    fixed. The discount is not cut at T (as in LightGBM and XGBoost); T limits
    the pairs and the ideal. XGBoost's hessian is 2 w_hl.

    Tie rule: documents with equal scores are ranked in their original order
    within the query (or by ``tie_key`` / gain as the convention says), so the
    ranking — and with it every D(r) — is a deterministic function of the
    scores.
    """

    def __init__(self, labels: ArrayLike, offsets: ArrayLike, *, mode: str = "default",
                 convention: Any = None, truncation: Truncation = "auto", sigma: float = 1.0,
                 normalize: bool = True, score_normalization: bool = True,
                 query_weights: Optional[ArrayLike] = None, sample_weights: Optional[ArrayLike] = None,
                 tie_key: Optional[ArrayLike] = None, n_threads: Optional[int] = None) -> None:
        labels_arr = np.asarray(labels)
        if labels_arr.ndim != 1:
            raise ValueError(f"labels must be 1-D; got an array of shape {labels_arr.shape}")
        off = check_offsets(offsets, labels_arr.shape[0])
        self._validate(labels_arr, off, mode, convention, truncation, sigma, normalize,
                       score_normalization, query_weights, sample_weights, tie_key, n_threads=n_threads)
        self._compute_ideal(n_threads)

    # -- set-up ------------------------------------------------------------------------
    def _validate(self, labels, off, mode, convention, truncation, sigma, normalize,
                  score_normalization, query_weights, sample_weights, tie_key,
                  other: str = "labels", n_threads: Optional[int] = None) -> None:
        """Every argument checked once, in order: the scalars and the convention, the labels
        (with the limits of the library modes), the weights, then the ranking rule."""
        conv = self._check_scalars(mode, convention, truncation, sigma, normalize, score_normalization)
        self.offsets = off
        self.n_queries = off.shape[0] - 1
        self._max_n = max_query_size(off)
        self._check_labels(labels, off, conv, other, n_threads)
        self._check_weights(query_weights, sample_weights)
        self._ranking(conv, tie_key)

    def _check_scalars(self, mode, convention, truncation, sigma, normalize, score_normalization) -> Convention:
        self.mode = check_mode(mode)
        if convention is None:
            convention = "lightgbm" if self.mode == "lightgbm" else None
        conv = as_convention(convention)
        if self.mode != "default":
            check_exact_convention(conv, self.mode)
        elif conv.ties == "average":
            raise ValueError("ties='average' has no ranking to differentiate; LambdaMART needs a "
                             "strict order (use 'stable', 'key', 'key_desc', 'worst' or 'best')")
        self.convention: Convention = conv
        self.truncation: Optional[int] = check_truncation(truncation, self.mode)
        self.sigma = check_sigma(sigma, self.mode)
        self.normalize = check_flag(normalize, "normalize")
        self.score_normalization = check_flag(score_normalization, "score_normalization")
        return conv

    def _check_labels(self, labels, off, conv: Convention, other: str, n_threads: Optional[int]) -> None:
        """The labels as the convention and the mode need them; their gain table."""
        lab, top = check_labels(labels, int(off[-1]), conv, off, other=other,
                                n_threads=threads_for(int(off[-1]), n_threads))
        if self.mode == "xgboost" and lab.dtype == np.float64:
            # XGBoost stores labels as float32: its gains, pairs and ideal DCG use them
            with np.errstate(over="ignore"):
                lab32 = lab.astype(np.float32)
            bad = np.flatnonzero(~np.isfinite(lab32))
            if bad.size:
                i = int(bad[0])
                raise ValueError(f"labels must stay finite when rounded to float32 (mode='xgboost' stores labels "
                                 f"as float32); got labels[{i}]={shown_value(lab[i])}{_where(i, off)}")
            lab, top = lab32, float(np.float32(top))
        self.labels = lab
        self.n_docs = lab.shape[0]
        if self.mode == "xgboost" and conv.gain == "exponential" and top > XGBOOST_MAX_LABEL:
            i = int(np.argmax(lab))
            raise ValueError(f"labels must be <= {XGBOOST_MAX_LABEL} in mode='xgboost' (exponential gain "
                             f"(1u << label) - 1); got labels[{i}]={shown_value(lab[i])}")
        if self.mode == "lightgbm" and conv.gain == "exponential" and top >= LIGHTGBM_DEFAULT_LABELS:
            i = int(np.argmax(lab))
            raise ValueError(f"labels must be < {LIGHTGBM_DEFAULT_LABELS} in mode='lightgbm' (LightGBM's "
                             f"default label_gain has {LIGHTGBM_DEFAULT_LABELS} entries); got "
                             f"labels[{i}]={shown_value(lab[i])}; pass a longer gain table")
        self.labels = lab = table_labels(conv, lab)
        self._gain_table: Optional[np.ndarray] = None
        if self.mode == "lightgbm" and conv.gain == "linear":
            # LightGBM looks gains up by integer label; linear gain is the table 0, 1, 2, ...
            # Its labels are float32, exact integers up to 2**24.
            bad = np.flatnonzero((lab != np.floor(lab)) | (lab > LIGHTGBM_MAX_LINEAR_LABEL))
            if bad.size:
                i = int(bad[0])
                raise ValueError(f"labels must be integers <= 2**24 in mode='lightgbm' (LightGBM looks gains "
                                 f"up by integer label, in float32); got labels[{i}]={shown_value(lab[i])}"
                                 f"{_where(i, off)}")
            self._gain_table = np.arange(int(top) + 1, dtype=np.float64)

    def _check_weights(self, query_weights, sample_weights) -> None:
        """The weights (the exact modes multiply by them in float32) and XGBoost's factor."""
        in_f32 = None if self.mode == "default" else f"mode={self.mode!r} applies weights in float32"
        self.query_weights = None if query_weights is None else check_query_weights(
            query_weights, self.n_queries, name="query_weights", float32=in_f32)
        self.sample_weights = None if sample_weights is None else check_sample_weights(
            sample_weights, self.n_docs, float32=in_f32)
        self._w_norm = 1.0
        if self.mode == "xgboost":
            if self.sample_weights is not None:
                raise ValueError("mode='xgboost' takes per-query weights (XGBoost's ranking weights are "
                                 "per group); give query_weights, not sample_weights")
            if self.query_weights is not None:
                w32 = self.query_weights.astype(np.float32).astype(np.float64)
                total = float(np.cumsum(w32)[-1]) if w32.size else 0.0   # sequential, as XGBoost
                if not total > 0:
                    raise ValueError("query_weights must not all be 0 in mode='xgboost' (XGBoost divides "
                                     "by their sum)")
                self._w_norm = float(self.n_queries) / total
                if self._w_norm >= FLOAT32_OVERFLOW:        # applied as a float32
                    raise ValueError(f"query_weights sum to {total!r}: XGBoost's factor n_queries / sum = "
                                     f"{self._w_norm!r} overflows float32 in mode='xgboost'")

    def _ranking(self, conv: Convention, tie_key) -> None:
        """The ranking from the kernel plan (plan.py), as for NDCG: the tie key, the discount over
        every rank a pair can touch, the short-list rule; and the sigmoid."""
        default = self.mode == "default"
        if not default and tie_key is not None:
            raise ValueError(f"tie_key is not used in mode={self.mode!r} (ties keep the input order)")
        # pairs reach every rank of a query: the discount to the longest (the libraries': log2);
        # the tie key of NDCG's ranking (the caller's, or the gain ranks of worst / best)
        # (the exact modes allow no field of the ranking but XGBoost's float32 scores: its plan
        # has input-order ties and no short rule, check_exact_convention)
        if self.mode == "xgboost":
            conv = conv.replace(score_precision="float32", name=conv.name)     # XGBoost ranks float32 scores
        plan = kernel_plan(conv, self._max_n, [self.truncation], labels=self.labels if default else None,
                           tie_key=tie_key, depth=self._max_n, log2_discount=not default,
                           gain_table=self._gain_table)
        self._plan = plan
        # a double score is ranked as float32: one beyond float32 would rank as infinity
        self._score_limit = plan.res.score_limit
        self._tie_key = plan.tie_key
        if self.mode == "lightgbm":
            self._sig = sigmoid_table(self.sigma)
        else:
            self._sig = (np.empty(0, dtype=np.float64), 0.0, 0.0, 0.0)

    def _compute_ideal(self, n_threads) -> None:
        k = self.truncation
        if self.mode == "lightgbm":
            idcg = np.zeros(self.n_queries, dtype=np.float64)
            depth = self._max_n if k is None else min(k, self._max_n)
            _lambdamart.lightgbm_max_dcg(self.labels, self.offsets, self._plan.gains[0], self._plan.disc,
                                         depth, idcg)
            check_no_overflow(idcg, "ideal DCG", self.offsets, OVERFLOW_HINT, per_query=True)
        else:
            conv = self.convention
            if self.mode == "xgboost":
                conv = Convention(gain=conv.gain)
            # truncation=None is the whole list, not the convention's default_k
            if k is None and conv.default_k is not None:
                conv = conv.replace(default_k=None, name=conv.name)
            # labels and offsets were checked by _validate: not again
            idcg = NDCGScorer._checked(conv, self.labels, self.offsets, self._max_n, k, n_threads).ideal_dcg
        self._idcg = np.ascontiguousarray(idcg, dtype=np.float64)
        self._inv = np.ascontiguousarray(inverse_ideal_dcg(self._idcg))
        self._setup = self._kernel_setup()

    def _kernel_setup(self):
        """The kernels' parameters, built once (the kernel build in use at set-up runs every call)."""
        self._kernels = _lambdamart
        empty_f = np.empty(0, dtype=np.float64)
        setup = _lambdamart.LambdaMARTSetup(
            self._plan.compiled(), MODE_CODES[self.mode],
            self.truncation if self.truncation is not None else NO_TRUNCATION, self.sigma,
            self.score_normalization, self.normalize, self._w_norm)
        setup.set_sigmoid(*self._sig)
        setup.set_queries(self._tie_key if self._tie_key is not None else np.empty(0, dtype=np.int64), self._inv,
                          self.query_weights if self.query_weights is not None else empty_f,
                          self.sample_weights if self.sample_weights is not None else empty_f, self._max_n)
        return setup

    def __getstate__(self) -> dict:
        # the kernels' set-up holds C pointers: rebuilt from the arrays when unpickled
        return {k: v for k, v in self.__dict__.items() if k not in ("_setup", "_kernels")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._setup = self._kernel_setup()

    def _pair_work(self) -> int:
        # pairs a call visits (at most n x min(n, T) per query), the thread policy's work
        t = self.truncation if self.truncation is not None else self._max_n
        return self.n_docs * max(1, min(t, self._max_n))

    # -- properties ----------------------------------------------------------------------
    @property
    def ideal_dcg(self) -> np.ndarray:
        """The cached IDCG@T per query, shape (n_queries,)."""
        return self._idcg.copy()

    @property
    def inverse_ideal_dcg(self) -> np.ndarray:
        """1 / IDCG@T per query (0 where the ideal DCG is 0), as used by the kernels."""
        return self._inv.copy()

    @property
    def output_dtype(self) -> Optional[np.dtype]:
        """float32 in the exact modes; in default mode None (the scores' dtype)."""
        return None if self.mode == "default" else np.dtype(np.float32)

    # -- gradients -----------------------------------------------------------------------
    def _check_scores(self, scores, n_threads: Optional[int] = None) -> np.ndarray:
        """The scores checked in a pass of their own (the pair functions; the gradient kernel
        checks them in its own pass: :meth:`_score_array`)."""
        why = self._score_reason()
        sc = check_scores(scores, self.offsets, float32=why, n_threads=threads_for(self.n_docs, n_threads))
        check_same_length(sc, self.n_docs, "scores", "labels")
        return sc

    def _check_outputs(self, sc, grad_out, hess_out):
        dtype = sc.dtype if self.mode == "default" else np.dtype(np.float32)
        inputs = [("scores", sc), ("labels", self.labels)]
        grad = (np.empty(self.n_docs, dtype=dtype) if grad_out is None
                else check_out_arrays(grad_out, "grad_out", self.n_docs, dtype, inputs))
        hess = (np.empty(self.n_docs, dtype=dtype) if hess_out is None
                else check_out_arrays(hess_out, "hess_out", self.n_docs, dtype, inputs + [("grad_out", grad)]))
        return grad, hess

    def _score_array(self, scores) -> np.ndarray:
        """The scores of a gradient call as the kernel takes them (float32/float64, one per
        document); their values are checked by the kernel's own parallel pass (:meth:`_run`)."""
        sc = as_scores(scores)
        check_same_length(sc, self.n_docs, "scores", "labels")
        return sc

    def _score_reason(self) -> Optional[str]:
        """Why the kernels rank float32 scores (None: they rank the scores as given)."""
        why = ("mode='xgboost' ranks float32 scores, as XGBoost" if self.mode == "xgboost"
               else float32_reason(self.convention))
        if why is not None and self.convention.float32_overflow != "error":
            why += (f" (float32_overflow={self.convention.float32_overflow!r} does not apply: LambdaMART "
                    f"has no gradient for an infinite score)")
        return why

    def _run(self, sc, grad, hess, n_threads, **state) -> None:
        # ``state``: the per-round inputs and outputs of the stateful variants
        # (fastndcg.measures._debias), passed through to the kernel.
        round_state = self._kernels.LambdaMARTRound(**state) if state else None
        flags = np.zeros(self.n_queries, dtype=np.int8)
        overflow = self._kernels.grad_hess_batch(self._setup, sc, self.labels, self.offsets, grad, hess, flags,
                                                 threads_for(self._pair_work(), n_threads), round_state)
        if flags.any():     # the kernel's check of the scores: name the first invalid one
            limit = self._score_limit if sc.dtype == np.float64 else np.inf
            raise_score_problem(sc, self.offsets, flags, limit, "scores", self._score_reason())
        if overflow:
            # the kernel saw a non-finite output: name the first one
            for name, out in (("grad", grad), ("hess", hess)):
                check_no_overflow(out, name, self.offsets, self._overflow_hint(), per_query=False)

    def _overflow_hint(self) -> str:
        return (f"the lambdas overflow {'float32' if self.mode != 'default' else 'the output dtype'}: "
                f"sigma={self.sigma!r} (σ² scales the hessian), the weights, or the gains and discounts "
                f"(|ΔNDCG| = ΔG·|ΔD| / IDCG: huge gains, or an ideal DCG so small that its inverse overflows) "
                f"are too extreme")

    def gradients(self, scores: ArrayLike, *, grad_out: Optional[np.ndarray] = None,
                  hess_out: Optional[np.ndarray] = None,
                  n_threads: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
        """Per-document gradient and hessian for the current scores.

        Parameters
        ----------
        scores : array of shape (n_docs,)
            Current model scores; float32 and float64 are used as given, other
            numbers become float64. Must be finite.
        grad_out, hess_out : ndarray, optional
            Arrays to write into (reused across rounds): shape (n_docs,),
            C-contiguous, writeable, of the output dtype (the scores' dtype
            in default mode, float32 in the exact modes).
        n_threads : int, optional
            OpenMP threads (None: the CPUs other work does not hold now, see
            :func:`fastndcg.effective_n_threads`); results are bit-identical for any
            value.

        Returns
        -------
        (grad, hess) : tuple of ndarray
            The gradient and the hessian per document, in input order.
        """
        sc = self._score_array(scores)
        grad, hess = self._check_outputs(sc, grad_out, hess_out)
        self._run(sc, grad, hess, n_threads)
        return grad, hess

    __call__ = gradients

    # -- research ------------------------------------------------------------------------
    def delta_ndcg_pairs(self, scores: ArrayLike, queries: Optional[ArrayLike] = None, *,
                         cut_discount: bool = False, n_threads: Optional[int] = None) -> DeltaNDCGPairs:
        """The pairs and their |ΔNDCG| for the given queries (all by default).

        |ΔNDCG_hl| = (G_h - G_l) · |D(r_h) - D(r_l)| / IDCG@T for the pairs with
        G_h > G_l and min(r_h, r_l) < T — the weight the gradients use, before
        score-distance and list normalisation. With ``cut_discount=True``,
        D(r) = 0 for r >= T, which makes |ΔNDCG_hl| the exact change of
        NDCG@T when the two documents swap places. Ranking and tie rule as in
        :meth:`gradients`.
        """
        sc = self._check_scores(scores, n_threads)
        cut = check_flag(cut_discount, "cut_discount")
        if queries is None:
            sel = np.arange(self.n_queries, dtype=np.int64)
        else:
            sel = one_dimensional(queries, "queries")
            if sel.dtype.kind not in "iu" and sel.size:     # [] is float64 to numpy: no query
                raise TypeError(f"queries must be integer query ids; got dtype {sel.dtype}")
            sel = np.ascontiguousarray(sel, dtype=np.int64)
            bad = np.flatnonzero((sel < 0) | (sel >= self.n_queries))
            if bad.size:
                i = int(bad[0])
                raise ValueError(f"queries must be in [0, {self.n_queries}); got queries[{i}]={int(sel[i])}")
        sizes = np.diff(self.offsets)[sel]
        t = self.truncation if self.truncation is not None else NO_TRUNCATION
        m = np.clip(np.minimum(sizes - 1, t), 0, None)
        bound = m * (sizes - 1) - m * (m - 1) // 2
        slots = offsets_from_sizes(bound, "queries", "pair counts of the selected queries")
        total = int(slots[-1])
        rows = np.empty((4, total), dtype=np.int64)      # hi, lo and their ranks
        delta = np.empty(total, dtype=np.float64)
        count = self._kernels.pairs_batch(self._setup, sc, self.labels, self.offsets, sel, slots, cut, rows, delta,
                                          threads_for(total + sel.shape[0], n_threads))
        hi, lo, rhi, rlo = rows
        keep = np.concatenate([np.arange(slots[i], slots[i] + count[i]) for i in range(sel.shape[0])]) \
            if sel.shape[0] else np.empty(0, dtype=np.int64)
        keep = keep.astype(np.int64)
        query = np.repeat(sel, count)
        bad = np.flatnonzero(~np.isfinite(delta[keep]))
        if bad.size:
            q = int(query[bad[0]])
            raise ValueError(f"the |ΔNDCG| of a pair of query {q} (rows {int(self.offsets[q])}:"
                             f"{int(self.offsets[q + 1])}) overflows (got {float(delta[keep][bad[0]])!r}); "
                             f"{OVERFLOW_HINT}")
        base = self.offsets[query]
        return DeltaNDCGPairs(query, hi[keep] + base, lo[keep] + base, rhi[keep], rlo[keep], delta[keep])

    def delta_ndcg_matrix(self, scores: ArrayLike, query: int = 0, *,
                          cut_discount: bool = False) -> np.ndarray:
        """The symmetric |ΔNDCG| matrix of one query, shape (n, n), in input order.

        Entry [a, b] is |ΔNDCG| of documents a and b of the query (0-based
        positions within it) as in :meth:`delta_ndcg_pairs`, 0 for pairs that
        do not count (equal gains, both ranked at or beyond T).
        """
        if isinstance(query, (bool, np.bool_)) or not isinstance(query, (numbers.Integral, np.integer)):
            raise TypeError(f"query must be an int; got {query!r}")
        pairs = self.delta_ndcg_pairs(scores, [int(query)], cut_discount=cut_discount, n_threads=1)
        start = int(self.offsets[query])
        n = int(self.offsets[query + 1]) - start
        out = np.zeros((n, n), dtype=np.float64)
        out[pairs.high - start, pairs.low - start] = pairs.delta
        out[pairs.low - start, pairs.high - start] = pairs.delta
        return out
