"""The NDCG convention: every choice that makes tools disagree, as one explicit object.

A :class:`Convention` is a frozen dataclass. Start from the default (or a preset)
and change fields with :meth:`Convention.replace`. Nothing here touches arrays of
documents; the choices are resolved into kernel inputs by :mod:`fastndcg.measures._ndcg`.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, fields, replace
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from fastndcg.conventions._fields import ANY, KEY, FieldInfo, conv_field

GAINS = ("exponential", "linear")
DISCOUNTS = ("log2", "letor", "reciprocal", "jk")
TIES = ("stable", "key", "key_desc", "average", "worst", "best")
EMPTY = ("zero", "one", "skip", "error")
SHORT = ("clamp", "zero")
IDEAL = ("cut", "full")
AGGREGATIONS = ("mean", "ratio")
UNKNOWN_LABEL = ("error", "zero")
SCORE_PRECISION = ("native", "float32")
FLOAT32_OVERFLOW_CHOICES = ("error", "inf")
WEIGHT_PRECISION = ("native", "float32")
EMPTY_WEIGHT = ("weighted", "unweighted")
ABOVE_ONE = ("keep", "clamp", "check")
IDEAL_SOURCES = ("qrels", "run")
EMPTY_MEAN = ("nan", "zero")
CUSTOM_GAINS = ("table", "trec_eval", "refuse")
MISSING_RANKING = ("empty", "unjudged")

# XGBoost's kRtEps (a float32 1e-6): "check" raises above 1 + this.
ABOVE_ONE_TOLERANCE = float(np.float32(1e-6))

GainSpec = Union[str, Tuple[float, ...]]
DiscountSpec = Union[str, Tuple[float, ...]]

# Labels above this make 2**label overflow towards infinity in sums.
MAX_EXPONENTIAL_LABEL = 1023


def _as_gain_table(gain: Any) -> Tuple[float, ...]:
    """Turn a sequence (index = label) or a mapping {label: gain} into a dense tuple.

    Labels missing from a mapping become NaN holes: "outside the table".
    """
    if isinstance(gain, Mapping):
        if not gain:
            raise ValueError("gain: an empty mapping is not a gain table")
        size = 0
        for label in gain:
            if not isinstance(label, numbers.Integral) or isinstance(label, bool) or label < 0:
                raise ValueError(f"gain: table labels must be non-negative integers; got label {label!r}")
            size = max(size, int(label) + 1)
        dense = [math.nan] * size
        for label, value in gain.items():
            dense[int(label)] = float(value)
        values = dense
    else:
        values = [float(v) for v in gain]
        if not values:
            raise ValueError("gain: an empty sequence is not a gain table")
    for label, value in enumerate(values):
        if math.isnan(value):
            continue
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"gain: table entries must be finite and >= 0; got gain[{label}]={value!r}")
    return tuple(values)


def _as_discount_array(discount: Any) -> Tuple[float, ...]:
    values = np.asarray(discount, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"discount: a user discount must be a non-empty 1-D array; got shape {values.shape}")
    bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"discount: entries must be finite and >= 0; got discount[{i}]={float(values[i])!r}")
    return tuple(float(v) for v in values)


#: A cutoff argument: None (the whole list, or the convention's default_k), an
#: int >= 1, or a sequence of them (one result column each).
Cutoffs = Union[None, int, Sequence[Optional[int]]]

@dataclass(frozen=True)
class Convention:
    """How NDCG is computed: gain, discount, ties, edge cases and aggregation.

    Parameters
    ----------
    gain : {"exponential", "linear"} or sequence or mapping, default "exponential"
        ``"exponential"``: G(l) = 2**l - 1 (integer labels 0..1023).
        ``"linear"``: G(l) = l (any real l >= 0).
        A sequence ``t`` (G(l) = t[l]) or mapping ``{label: gain}``: a gain table for
        integer labels; see ``unknown_label`` for labels outside it.
    unknown_label : {"error", "zero"}, default "error"
        For a gain table: a label outside the table is an error, or has gain 0
        (LETOR's scripts).
    discount : {"log2", "letor", "reciprocal", "jk"} or array, default "log2"
        D(r) for 1-based rank r: ``"log2"`` 1/log2(r+1); ``"letor"`` 1 for r <= 2,
        then 1/log2(r) (Jarvelin-Kekalainen with b = 2, as LETOR/MSLR scripts);
        ``"reciprocal"`` 1/r; ``"jk"`` Jarvelin and Kekalainen's DCG with log
        base b = ``discount_base``: 1 for r < b, then 1/log_b(r) = log2(b)/log2(r)
        (b = 2 is ``"letor"``, bit for bit; Sakai's papers also use b = 10); an
        array ``d`` gives D(r) = d[r-1] and must cover every rank that is summed.
    discount_base : float, default 2.0
        The log base b of ``discount="jk"`` (a finite number > 1); any other
        discount takes no base.
    ties : {"stable", "key", "key_desc", "average", "worst", "best"}, default "stable"
        Order of documents with equal scores. ``"stable"``: input order.
        ``"key"`` / ``"key_desc"``: by the per-document ``tie_key``, ascending /
        descending (then input order). ``"average"``: the expectation over all
        orders of each tied group (McSherry & Najork 2008, as scikit-learn):
        each tied group's mean gain times the discounts of the positions it
        occupies. ``"worst"`` / ``"best"``: lowest / highest gain first within a
        tie; together they bound what ties can do.
    empty : {"zero", "one", "skip", "error"}, default "zero"
        NDCG of a query whose ideal DCG is 0 (no document with positive gain,
        or no document at all): 0, 1, NaN (left out of means), or a ValueError.
    short : {"clamp", "zero"}, default "clamp"
        NDCG@k of a query with fewer than k documents: the standard clamp to
        min(k, n), or 0 (LETOR 4.0 / MSLR scripts). Applied before ``empty``.
    ideal : {"cut", "full"}, default "cut"
        The ideal DCG is cut at k (IDCG@k), or summed over the whole ideal list
        whatever k is (trec_eval's ``ndcg``).
    aggregation : {"mean", "ratio"}, default "mean"
        How queries combine: mean of per-query NDCG (weighted when weights are
        given), or ratio of sums: sum_q w_q DCG_q / sum_q w_q IDCG_q.
    score_precision : {"native", "float32"}, default "native"
        ``"float32"`` rounds scores to float32 before ranking (XGBoost,
        pytrec_eval), so scores that differ below float32 precision tie.
        A double that overflows float32 (|s| >= 2**128 - 2**103) follows
        ``float32_overflow``.
    float32_overflow : {"error", "inf"}, default "error"
        With ``score_precision="float32"``: what a double that overflows
        float32 does. ``"error"``: a ValueError naming its position and
        query, as a non-finite score is. ``"inf"``: the C cast of the tool
        (pytrec_eval, torchmetrics): it ranks as +inf / -inf, equal
        infinities tie and fall to ``ties``, and a
        :class:`~fastndcg.conventions.ScoreOverflowWarning` names the rows;
        literal +-inf scores are then ranked too (as those tools do). NaN is
        always an error. NDCG measures only: LambdaMART, SoftNDCG and
        RankDCG refuse ``"inf"`` (infinite scores have no gradient).
    default_k : int or None, default None
        The cutoff that ``k=None`` stands for (also None inside a list of
        cutoffs), in every measure that takes a cutoff: NDCG (``ndcg``,
        ``mean_ndcg``, ``NDCGScorer``, the metrics, compare) and SoftNDCG
        (values, gradients, objectives), for the DCG and the ideal alike.
        None: the whole list. LambdaMART's ``truncation`` is not a cutoff:
        ``truncation=None`` is always the whole list (pairs and ideal). XGBoost >= 2.0 evaluates a plain
        ``ndcg`` as ``ndcg@32``, so its preset sets 32.
    weight_precision : {"native", "float32"}, default "native"
        ``"float32"`` rounds the query weights to float32 before aggregating
        (LightGBM, XGBoost and CatBoost store weights as float32); the sums
        stay in double.
    empty_weight : {"weighted", "unweighted"}, default "weighted"
        With ``aggregation="mean"`` and query weights: an empty query (IDCG
        = 0) adds w_q * value to the numerator (``"weighted"``), or its bare
        value (``"unweighted"``: LightGBM and XGBoost), while its weight w_q
        still enters the denominator. So, with E the empty queries,
        mean = (sum_{q not in E} w_q NDCG_q + sum_{q in E} v_q) / sum_q w_q.
        Without weights both are the plain mean.
    above_one : {"keep", "clamp", "check"}, default "keep"
        What happens to an aggregate above 1 (possible only with
        ``empty_weight="unweighted"``, a negative gain, a discount that
        increases somewhere, an external ideal, or gains below 2.2e-308:
        a subnormal gain keeps few significant bits, and ``ties="average"``
        over gains (0, 5e-324) on three tied documents gives 1.5): kept (LightGBM
        reports it), ``"clamp"``: min(1, value), ``"check"``: a ValueError
        when value > 1 + 1e-6 (XGBoost's float32 ``kRtEps``), else min(1, value)
        (XGBoost >= 2.0).
    ideal_source : {"qrels", "run"}, default "qrels"
        For TREC qrels + runs (:func:`fastndcg.io.align_run`, ``fastndcg
        eval``, compare): where the ideal list comes from, every judged
        document of the topic, retrieved or not (``"qrels"``, as trec_eval
        and the IR tools), or the retrieved documents only (``"run"``, as
        learning-to-rank tools, which only see the list they are given).
        Arrays without an external ideal always use their own list.
    empty_mean : {"nan", "zero"}, default "nan"
        The aggregate when no query counts: every query left out by
        ``empty="skip"``, no query at all, or only queries of weight 0.
        ``"nan"``: NaN (nothing was measured); ``"zero"``: 0.0, as
        torchmetrics' ``RetrievalNormalizedDCG`` returns when it has no
        query left (``empty_target_action="skip"``).
    custom_gains : {"table", "trec_eval", "refuse"}, default "table"
        How trec_eval-style custom gains (``gains=``, ``--gain``, ``-m ndcg.L=G``)
        apply to TREC qrels + runs: as a gain table over labels >= 0 (G(l) = the
        listed gain, l if unlisted; ``"table"``), by trec_eval's level rules
        (levels -1 unjudged and -2 judged below 0 may have gains, gains may be
        negative, and trec_eval's ordering quirks are reproduced:
        ``"trec_eval"``), or refused (``"refuse"``: trec_eval's ``ndcg_cut``
        takes no gains).
    missing_ranking : {"empty", "unjudged"}, default "empty"
        What a judged topic without results ranks when it is scored
        (``missing="zero"``, trec_eval ``-c``): nothing (``"empty"``; trec_eval
        9, pytrec_eval), or one document that is not in the qrels
        (``"unjudged"``: trec_eval 10's ``-c``), which only changes a value
        when custom gains give level -1 a gain.
    name : str, default "custom"
        A label for reports, and nothing else: two conventions with the same
        fields compute the same numbers whatever their names. Presets set it.
    """

    gain: GainSpec = conv_field("exponential", FieldInfo(
        "G(l): 2**l - 1, l, or a table by label", GAINS, "gain", 10, stated=True, column="gain",
        spelled={"exponential": "exp", "linear": "lin"},
        grid=("exponential", "linear"), exact={"lightgbm": ANY, "xgboost": ("exponential", "linear")}))
    unknown_label: str = conv_field("error", FieldInfo(
        "a label outside a gain table: an error or gain 0", UNKNOWN_LABEL, "unknown", 20,
        matters=("a gain table",), column="unknown_label", exact={"lightgbm": ANY, "xgboost": ANY}))
    discount: DiscountSpec = conv_field("log2", FieldInfo(
        "D(r) for 1-based rank r, or an array", DISCOUNTS, "disc", 50, stated=True,
        spelled={"reciprocal": "recip"}, column="discount", grid=("log2", "letor")))
    discount_base: float = conv_field(2.0, FieldInfo(
        "the log base of discount='jk'", None, "disc", 50, option=True, matters=("discount='jk'",)))
    ties: str = conv_field("stable", FieldInfo(
        "the order of documents with equal scores", TIES, "ties", 60, stated=True, column="ties",
        grid=("key_desc", "key", "stable", "average", "worst", "best")))
    empty: str = conv_field("zero", FieldInfo(
        "NDCG of a query whose ideal DCG is 0", EMPTY, "empty", 70, stated=True, column="empty",
        matters=("a query without a positive gain",), grid=("zero", "one", "skip"),
        exact={"lightgbm": ANY, "xgboost": ANY}))
    short: str = conv_field("clamp", FieldInfo(
        "NDCG@k of a query with fewer than k documents", SHORT, "short", 80, stated=True, column="short",
        matters=("a query shorter than k",), grid=("clamp", "zero")))
    ideal: str = conv_field("cut", FieldInfo(
        "the ideal DCG cut at k or over the whole ideal list", IDEAL, "ideal", 90, stated=True,
        column="ideal", matters=("a query with more than k positive gains",), grid=("cut", "full")))
    aggregation: str = conv_field("mean", FieldInfo(
        "mean of per-query NDCG or ratio of sums", AGGREGATIONS, "agg", 150, stated=True,
        column="aggregation", exact={"lightgbm": ANY, "xgboost": ANY}))
    score_precision: str = conv_field("native", FieldInfo(
        "scores ranked as given or rounded to float32 first", SCORE_PRECISION, "prec", 110,
        spelled={"float32": "f32"}, column="score_precision", grid=("native", "float32"),
        exact={"xgboost": ANY}, trec_eval_reads=True))
    float32_overflow: str = conv_field("error", FieldInfo(
        "a double beyond float32 under score_precision='float32': an error or +-inf",
        FLOAT32_OVERFLOW_CHOICES, "prec", 110, option=True, matters=("score_precision='float32'",),
        exact={"lightgbm": ANY, "xgboost": ANY}, trec_eval_reads=True))
    default_k: Optional[int] = conv_field(None, FieldInfo(
        "the cutoff k=None stands for", None, "k_default", 100, matters=("k=None",),
        exact={"lightgbm": ANY, "xgboost": ANY}))
    weight_precision: str = conv_field("native", FieldInfo(
        "query weights as given or rounded to float32", WEIGHT_PRECISION, "agg", 150, option=True,
        spelled={"float32": "wf32"}, matters=("weights",), exact={"lightgbm": ANY, "xgboost": ANY}))
    empty_weight: str = conv_field("weighted", FieldInfo(
        "an empty query's value in a weighted mean: weighted or bare", EMPTY_WEIGHT, "agg", 150, option=True,
        spelled={"unweighted": "empty_unweighted"}, matters=("weights",),
        exact={"lightgbm": ANY, "xgboost": ANY}))
    above_one: str = conv_field("keep", FieldInfo(
        "an aggregate above 1: kept, clamped, or checked", ABOVE_ONE, "agg", 150, option=True,
        spelled={"clamp": "above_one_clamp", "check": "above_one_check"}, matters=("an aggregate above 1",),
        exact={"lightgbm": ANY, "xgboost": ANY}))
    ideal_source: str = conv_field("qrels", FieldInfo(
        "the ideal list of TREC qrels + runs: every judgment or the retrieved documents", IDEAL_SOURCES,
        "ideal", 90, option=True, stated=True, matters=("qrels and a run",), grid=("qrels", "run"),
        exact={"lightgbm": ANY, "xgboost": ANY}))
    empty_mean: str = conv_field("nan", FieldInfo(
        "the aggregate when no query counts", EMPTY_MEAN, "agg", 150, option=True,
        spelled={"zero": "empty_mean_zero"}, matters=("no query counted",),
        exact={"lightgbm": ANY, "xgboost": ANY}))
    custom_gains: str = conv_field("table", FieldInfo(
        "trec_eval-style custom gains: a gain table, trec_eval's level rules, or refused", CUSTOM_GAINS,
        "gain_rules", 35, matters=("custom gains",), exact={"lightgbm": ANY, "xgboost": ANY},
        trec_eval_reads=True))
    missing_ranking: str = conv_field("empty", FieldInfo(
        "a judged topic without results, when scored: ranks nothing or one unjudged document",
        MISSING_RANKING, "missing_ranking", 155, matters=("custom gains", "trec_eval measures"), exact={"lightgbm": ANY, "xgboost": ANY}, trec_eval_reads=True))
    name: str = "custom"

    def __post_init__(self) -> None:
        gain = self.gain
        if isinstance(gain, str):
            if gain not in GAINS:
                raise ValueError(f"gain must be one of {GAINS} or a table; got {gain!r}")
        else:
            object.__setattr__(self, "gain", _as_gain_table(gain))
        discount = self.discount
        if isinstance(discount, str):
            if discount not in DISCOUNTS:
                raise ValueError(f"discount must be one of {DISCOUNTS} or an array; got {discount!r}")
        else:
            object.__setattr__(self, "discount", _as_discount_array(discount))
        base = self.discount_base
        if isinstance(base, (bool, np.bool_)) or not isinstance(base, numbers.Real) \
                or not math.isfinite(float(base)) or float(base) <= 1.0:
            raise ValueError(f"discount_base must be a finite number > 1; got {base!r}")
        object.__setattr__(self, "discount_base", float(base))
        if self.discount_base != 2.0 and self.discount != "jk":
            raise ValueError(f"discount_base={self.discount_base!r} applies to discount='jk' only; got "
                             f"discount={self.discount if isinstance(self.discount, str) else 'an array'!r}")
        for info in described_fields(self):     # the fields with named choices only (gain and discount: above)
            if info.choices is not None and info.name not in ("gain", "discount"):
                value = getattr(self, info.name)
                if not isinstance(value, str) or value not in info.choices:
                    raise ValueError(f"{info.name} must be one of {info.choices}; got {value!r}")
        k = self.default_k
        if k is not None:
            if isinstance(k, (bool, np.bool_)) or not isinstance(k, (numbers.Integral, np.integer)):
                raise TypeError(f"default_k must be an int >= 1 or None; got {k!r}")
            if k < 1:
                raise ValueError(f"default_k must be >= 1 or None; got {k!r}")
            object.__setattr__(self, "default_k", int(k))
        if self.empty_weight == "unweighted" and self.aggregation != "mean":
            raise ValueError(f"empty_weight='unweighted' applies to aggregation='mean' only; "
                             f"got aggregation={self.aggregation!r}")
        if self.float32_overflow != "error" and self.score_precision != "float32":
            raise ValueError(f"float32_overflow={self.float32_overflow!r} applies to score_precision='float32' "
                             f"only; got score_precision={self.score_precision!r}")
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a str; got {type(self.name).__name__}")

    @property
    def gain_is_table(self) -> bool:
        return not isinstance(self.gain, str)

    @property
    def needs_integer_labels(self) -> bool:
        """True when the gain is looked up by integer label (exponential or a table)."""
        return self.gain != "linear"

    @property
    def uses_tie_key(self) -> bool:
        return self.ties in ("key", "key_desc")

    def resolve_k(self, k: Any) -> Any:
        """``k`` with None (alone or in a sequence) replaced by ``default_k``.

        Anything else is returned unchanged, to be validated by the caller.
        """
        if self.default_k is None:
            return k
        if k is None:
            return self.default_k
        if isinstance(k, (str, bytes, numbers.Number)) or not hasattr(k, "__iter__"):
            return k
        return [self.default_k if x is None else x for x in k]

    def replace(self, **changes: Any) -> "Convention":
        """Return a copy with some fields changed (``name`` becomes "custom" unless given)."""
        if "name" not in changes:
            changes["name"] = "custom"
        return replace(self, **changes)

    def fields_key(self) -> Tuple[Any, ...]:
        """Every field but ``name``: two conventions with equal keys compute the same numbers
        (the name is a label only)."""
        return tuple(getattr(self, f.name) for f in fields(self) if f.name != "name")

    def unit_discount(self) -> "Convention":
        """This convention with an array discount scaled to a largest entry in [1, 2).

        The array is multiplied by the power of two 2**-e, e = floor(log2(max D)):
        exact (bit for bit) for every entry in the normal range, and every
        normalised measure is unchanged because the DCG and the ideal DCG
        scale alike. Measures that multiply the discount by probabilities
        (SoftNDCG) use it so that tiny (even subnormal) or huge discounts
        neither underflow nor overflow. Named discounts (largest entry 1) and
        an all-zero array come back unchanged.
        """
        if isinstance(self.discount, str):
            return self
        top = max(self.discount)
        if top == 0.0:
            return self
        exponent = math.frexp(top)[1] - 1          # top = m * 2**exponent, 1 <= m < 2
        if exponent == 0:
            return self
        scaled = tuple(math.ldexp(v, -exponent) for v in self.discount)
        return replace(self, discount=scaled)

    def __repr__(self) -> str:
        """``Convention(preset='trec_eval', ties='stable')``: the preset it is named
        after and the fields that differ from it; for any other convention the
        fields that differ from ``Convention()``. :meth:`describe` names every field."""
        base = PRESETS.get(self.name)
        parts = [f"preset={self.name!r}"] if base is not None else []
        if base is None and self.name != "custom":
            parts.append(f"name={self.name!r}")
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "name" and value != getattr(base or DEFAULT, f.name):
                parts.append(f"{f.name}={_short_value(value)}")
        return f"Convention({', '.join(parts)})"

    def describe(self) -> str:
        """One line naming every choice, for reports."""
        parts = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "gain" and self.gain_is_table:
                value = "table[" + ",".join(_fmt(v) for v in value) + "]"
            elif f.name == "discount" and not isinstance(value, str):
                value = f"array[{len(value)}]"
            parts.append(f"{f.name}={value}")
        return " ".join(parts)


class ScoreOverflowWarning(UserWarning):
    """Scores that overflow float32 were ranked as +-inf (``float32_overflow="inf"``).

    ``argument`` names the array, ``rows`` holds the first few positions
    (shown in the message) and ``count`` how many there are in all, so that a
    front-end can name them otherwise (the CLI: file and line). ``at``: the
    file lines of those rows (``run.txt:3, run.txt:4``) when the message names
    them already (a run read from a file), else "".
    """

    def __init__(self, message: str, argument: str = "scores", rows: Sequence[int] = (), count: int = 0,
                 at: str = "") -> None:
        super().__init__(message)
        self.argument = argument
        self.rows = tuple(int(i) for i in rows)
        self.count = int(count)
        self.at = at


class UnknownLabelWarning(UserWarning):
    """Labels outside a convention's gain table were given gain 0 (``unknown_label="zero"``).

    LETOR's and MSLR's scripts (presets ``letor3``, ``letor4``, ``mslr``) score a
    label their table lacks as 0, so data with more grades (LightGBM's example
    data has labels 0-4) is scored as if its best documents were irrelevant.
    ``argument`` names the array, ``labels`` holds the distinct labels outside
    the table (the first few, as shown in the message), ``count`` how many
    documents carry one, ``n_docs`` how many documents there are and
    ``convention`` the convention's name.
    """

    def __init__(self, message: str, argument: str = "labels", labels: Sequence[float] = (), count: int = 0,
                 n_docs: int = 0, convention: str = "custom") -> None:
        super().__init__(message)
        self.argument = argument
        self.labels = tuple(labels)
        self.count = int(count)
        self.n_docs = int(n_docs)
        self.convention = convention


def _short_value(value: Any) -> str:
    """A field's value for a repr; a long table or array by its size only."""
    if isinstance(value, (str, type(None))) or not hasattr(value, "__len__"):
        return repr(value)
    if len(value) > 8:
        return f"<{len(value)} values: {_fmt(value[0])}, {_fmt(value[1])}, ..., {_fmt(value[-1])}>"
    return "(" + ", ".join(_fmt(v) for v in value) + ("," if len(value) == 1 else "") + ")"


def _fmt(v: float) -> str:
    if math.isnan(v):
        return "-"
    return str(int(v)) if float(v).is_integer() else repr(v)


#: class -> its fields' descriptions; each entry is stored whole once (threads that race store equal tuples)
_DESCRIBED: Dict[type, Tuple[FieldInfo, ...]] = {}


def described_fields(convention: Any) -> Tuple[FieldInfo, ...]:
    """The descriptions (:class:`~fastndcg.conventions._fields.FieldInfo`) of the fields of a
    convention or convention class, in declaration order: :data:`FIELDS` for
    :class:`Convention`, more for a subclass that declares fields of its own."""
    cls = convention if isinstance(convention, type) else type(convention)
    got = _DESCRIBED.get(cls)
    if got is None:
        out = []
        for f in fields(cls):
            if f.name != "name":
                info = f.metadata.get(KEY)
                if info is None:
                    raise TypeError(f"{cls.__name__}.{f.name}: a convention field is declared with conv_field(...)")
                info = replace(info, name=f.name, default=f.default)
                out.append(info)
        got = _DESCRIBED[cls] = tuple(out)
    return got


#: Every field's description (:class:`~fastndcg.conventions._fields.FieldInfo`), in declaration order.
FIELDS: Tuple[FieldInfo, ...] = described_fields(Convention)
#: The same by name.
FIELD_INFO: Dict[str, FieldInfo] = {info.name: info for info in FIELDS}

DEFAULT = Convention()

#: name: preset, filled by :mod:`fastndcg.conventions._presets` (here so that a
#: convention's repr can name its preset without an import circle)
PRESETS: Dict[str, Convention] = {}
