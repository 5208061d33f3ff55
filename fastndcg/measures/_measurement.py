"""One measurement: what is computed, stated completely, built in one place, printed as a signature.

A :class:`Measurement` is everything that decides a number: the measure family
and cutoff, the :class:`~fastndcg.Convention` (gain, discount, ties, empty and
short queries, the ideal list, precision, aggregation), trec_eval's custom gains,
ir_measures' relabelling, judged-only ranking, the relevance level, ``-M`` and the
rule for judged topics missing from a run. Every front-end builds its
measurements with :func:`resolve_measurements` (strings in trec_eval or
ir_measures syntax, ir_measures objects, signatures) or :func:`measurement_for`
(a preset or convention with a cutoff, as ``k=``/``-k`` give it), so the same
question is the same measurement, and the same bits, everywhere.

The signature is a compact canonical string of the measurement::

    nDCG@10|gain:lin|disc:log2|ties:key_desc|empty:zero|short:clamp|ideal:cut,qrels|agg:mean|missing:error|fastndcg:0.1.0

Fields that keep their default value are left out, except the ones every
report should state (gain, discount, ties, empty, short, ideal, aggregation,
missing topics) and the version. :func:`from_signature` rebuilds the
measurement; ``from_signature(m.signature)`` computes the same bits as ``m``.

Which rules compute it: plain NDCG, DCG and IDCG under any convention go to the
NDCG kernels; trec_eval's families that read a ranking at several depths
(``ndcg_rel``, ``Rndcg``, ``ndcg_p``) and trec_eval's custom gains follow
trec_eval's own rules, so their convention must be trec_eval 10's (``trec_eval``:
double scores) or trec_eval 9's (``pytrec_eval``: float32 scores).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import Any, Dict, Iterable, List, Optional, Tuple

import warnings

from fastndcg._core.arguments import caller_stacklevel, check_max_docs
from fastndcg._version import __version__
from fastndcg.conventions._topics import DEFAULT_MISSING, check_missing
from fastndcg.conventions._convention import Convention, described_fields
from fastndcg.conventions._fields import FieldInfo
from fastndcg.conventions._presets import (as_convention, follows_trec_eval, get_preset, presets_where,
                                           with_preset_label)
from fastndcg.measures._measure_strings import Measure, measure_items, parse_measures
from fastndcg.measures._trec_gain_specs import GainSpec, gain_rules, parse_gains

__all__ = ["Measurement", "SignatureError", "FAMILIES", "cutoff_measurements", "from_signature", "measurement_for",
           "resolve_measurements", "signature"]

#: Measure families on qrels and a run, and the head their signature starts with.
FAMILIES = {"ndcg": "nDCG", "dcg": "DCG", "ideal_dcg": "IDCG", "ndcg_rel": "nDCG_rel", "Rndcg": "RnDCG",
            "ndcg_p": "nDCG_p", "soft_ndcg": "SoftNDCG", "rankdcg": "RankDCG"}
_FAMILY_OF_HEAD = {v: k for k, v in FAMILIES.items()}
#: Families defined by trec_eval's rules only.
TREC_FAMILIES = ("ndcg_rel", "Rndcg", "ndcg_p", "dcg", "ideal_dcg")
#: Families computed on arrays only (:func:`fastndcg.soft_ndcg`, :func:`fastndcg.rankdcg`),
#: not on qrels and a run.
ARRAY_FAMILIES = ("soft_ndcg", "rankdcg")
#: Families whose values are the same whether a judged topic without results ranks nothing
#: or one unjudged document (``missing_ranking``), without custom gains.
RANKS_MISSING_ALIKE = ("ndcg", "dcg", "ideal_dcg")
#: Families that take a cutoff.
CUTOFF_FAMILIES = ("ndcg", "soft_ndcg")
#: ir_measures' dcg='exp-log2' (gdeval with a cutoff, ranx without): 2**rel - 1, docno-descending ties.
EXP_LOG2 = Convention(ties="key_desc", name="ir_measures_exp_log2")



class SignatureError(ValueError):
    """A signature that cannot be read (the message names the field)."""


#: The array function that computes each family on CSR arrays (the others need qrels and a run).
ARRAY_FUNCTIONS = {"ndcg": "fastndcg.ndcg", "dcg": "fastndcg.dcg", "ideal_dcg": "fastndcg.ideal_dcg",
                   "soft_ndcg": "fastndcg.soft_ndcg", "rankdcg": "fastndcg.rankdcg"}


def array_arguments(measurement: Any, family: str, **given: Any) -> dict:
    """The arguments a ``measurement=`` (a :class:`Measurement` or its signature) stands for in the
    array function of ``family`` (``k``, ``convention``, ``sigma``), or ``given`` when it is None.

    Raises
    ------
    ValueError
        When arguments it states are given too, when it is another family (naming the function
        that computes it), or when it needs qrels and a run (custom gains, relabelling, -J, -M).
    """
    if measurement is None:
        return given
    m = measurement if isinstance(measurement, Measurement) else from_signature(measurement)
    both = [name for name, value in given.items() if value is not None]
    if both:
        raise ValueError(f"give measurement= or {'= and '.join(given)}=, not both (a measurement states its "
                         f"cutoff and convention); got {', '.join(f'{b}=' for b in both)} too")
    if m.family != family:
        where = f"is computed by {ARRAY_FUNCTIONS[m.family]}" if m.family in ARRAY_FUNCTIONS else \
            "is trec_eval's: measures that need qrels and a run are computed by fastndcg.evaluate"
        raise ValueError(f"measurement={m.head}: {ARRAY_FUNCTIONS[family]} computes {FAMILIES[family]}; "
                         f"{FAMILIES[m.family]} {where}")
    if m.gains is not None or m.relabel is not None or m.judged_only or m.max_docs is not None:
        raise ValueError(f"measurement={m.signature!r}: on arrays a measurement states a cutoff and a convention; "
                         "trec_eval's custom gains, relabelling, -J and -M need qrels and a run (fastndcg.evaluate)")
    out = dict(k=m.cutoff, convention=m.convention, sigma=m.sigma)
    return {name: out[name] for name in given}


def _trec_rules_error(what: str, conv: Convention) -> str:
    """The message for a measurement that needs trec_eval's rules under a convention without them."""
    from fastndcg.conventions._presets import TREC_EVAL_READS, TREC_EVAL

    differ = [f"{f.name}={getattr(conv, f.name)!r}" for f in fields(conv)
              if f.name not in TREC_EVAL_READS + ("name",) and getattr(conv, f.name) != getattr(TREC_EVAL, f.name)]
    return (f"{what} follow trec_eval's rules: the convention must be trec_eval's (presets "
            f"{', '.join(presets_where(follows_trec_eval))}); convention {conv.name!r} has {', '.join(differ)}")


@dataclass(frozen=True, eq=False)
class Measurement:
    """What one number is: measure, cutoff, convention and the topic rules.

    Attributes
    ----------
    family : {"ndcg", "dcg", "ideal_dcg", "ndcg_rel", "Rndcg", "ndcg_p", "soft_ndcg", "rankdcg"}
        NDCG = DCG / IDCG with DCG = sum_r G(l_r) D(r) over the ranking (score
        descending, ties by ``convention.ties``: the docno for TREC runs);
        ``dcg`` to ``ndcg_p`` as trec_eval defines them; SoftNDCG (Taylor et
        al. 2008, with ``sigma``) and RankDCG (Katerenchuk & Rosenberg 2018)
        on arrays.
    cutoff : int or None
        NDCG@k (None: the whole list; ``convention.default_k`` when set).
    convention : Convention
    gains : GainSpec or None
        trec_eval's custom gains (``ndcg.L=G``), by trec_eval's level rules.
    relabel : tuple of (int, int) or None
        ir_measures' ``gains={...}``: judgments mapped before anything else.
    judged_only : bool
        trec_eval ``-J``: unjudged retrieved documents leave the ranking.
    relevance_level : int
        trec_eval ``-l`` (read by ``Rndcg`` and ``ndcg_p``).
    max_docs : int or None
        trec_eval ``-M``: the top ``max_docs`` documents of each topic.
    missing : {"error", "zero", "skip"}
        Judged topics without results (:mod:`fastndcg.conventions._topics`).
    name : str
        The name it was asked by and prints under (``ndcg_cut_10``,
        ``nDCG@10``); not part of what it computes.
    """

    family: str = "ndcg"
    cutoff: Optional[int] = None
    convention: Convention = field(default_factory=lambda: get_preset("trec_eval"))
    gains: Optional[GainSpec] = None
    relabel: Optional[Tuple[Tuple[int, int], ...]] = None
    judged_only: bool = False
    relevance_level: int = 1
    max_docs: Optional[int] = None
    missing: str = DEFAULT_MISSING
    #: SoftNDCG's score noise (the standard deviation of each score)
    sigma: Optional[float] = None
    name: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"family must be one of {tuple(FAMILIES)}; got {self.family!r}")
        k = self.cutoff
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
            raise ValueError(f"cutoff must be an integer >= 1 or None; got {k!r}")
        if k is not None and self.family not in CUTOFF_FAMILIES:
            raise ValueError(f"family {self.family!r} takes no cutoff (as trec_eval); got cutoff {k}")
        object.__setattr__(self, "convention", as_convention(self.convention))
        check_missing(self.missing)
        object.__setattr__(self, "max_docs", check_max_docs(self.max_docs))
        if isinstance(self.relevance_level, bool) or not isinstance(self.relevance_level, int):
            raise ValueError(f"relevance_level must be an integer; got {self.relevance_level!r}")
        if (self.family == "soft_ndcg") != (self.sigma is not None):
            raise ValueError("sigma is SoftNDCG's (and SoftNDCG needs it); got "
                             f"family {self.family!r} with sigma={self.sigma!r}")
        if self.sigma is not None:
            sigma = float(self.sigma)
            if not (math.isfinite(sigma) and sigma > 0):
                raise ValueError(f"sigma must be a finite number > 0; got {self.sigma!r}")
            object.__setattr__(self, "sigma", sigma)
        conv = self.convention
        if (self.family in TREC_FAMILIES or self.gains is not None) and not follows_trec_eval(conv):
            what = f"custom gains ({self.gains})" if self.gains is not None else f"family {self.family!r}"
            raise ValueError(_trec_rules_error(what, conv))
        if self.gains is not None and gain_rules(conv) != "trec_eval":
            raise ValueError(f"custom gains ({self.gains}) of a measurement follow trec_eval's level rules: the "
                             f"convention's custom_gains must be 'trec_eval'; convention {conv.name!r} has "
                             f"custom_gains={conv.custom_gains!r}")

    def __repr__(self) -> str:
        """``Measurement(nDCG@10, name='ndcg_cut_10', convention=Convention(preset='trec_eval'))``:
        the measure, its name, its convention and the topic rules that differ
        from the defaults (:attr:`signature` spells out everything)."""
        parts = [self.head]
        if self.name:
            parts.append(f"name={self.name!r}")
        parts.append(f"convention={self.convention!r}")
        for f in fields(self):
            if f.name not in ("family", "cutoff", "convention", "name"):
                value = getattr(self, f.name)
                if value != f.default:
                    parts.append(f"{f.name}={value}" if f.name == "gains" else f"{f.name}={value!r}")
        return f"Measurement({', '.join(parts)})"

    # Two measurements are equal when they compute the same thing: the same
    # signature (the name they print under aside; gain tables with NaN holes
    # compare equal, which tuples of floats do not).
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Measurement):
            return NotImplemented
        return self.signature == other.signature

    def __hash__(self) -> int:
        return hash(self.signature)

    # ------------------------------------------------------------------ what it is

    @property
    def head(self) -> str:
        """The signature's measure part: ``nDCG@10``, ``nDCG``, ``DCG``, ``RnDCG``, ..."""
        return FAMILIES[self.family] + (f"@{self.cutoff}" if self.cutoff is not None else "")

    @property
    def label(self) -> str:
        """The name it prints under: the name it was asked by, else :attr:`head`."""
        return self.name or self.head

    def __str__(self) -> str:
        return self.label

    @property
    def key(self) -> Measure:
        """A :class:`Measure` for result dicts (equal to the name and the ir_measures object)."""
        return Measure(self.label, self.family, cutoff=self.cutoff, gains=self.gains, relabel=self.relabel,
                       judged_only=self.judged_only, syntax="signature", text=self.label)

    def replace(self, **changes: Any) -> "Measurement":
        return replace(self, **changes)

    # ------------------------------------------------------------------ signature

    @property
    def signature(self) -> str:
        """The canonical signature (module docstring): every field that decides the number, in
        the places the fields' descriptions give (:data:`~fastndcg.conventions._convention.FIELDS`)."""
        parts: List[Tuple[int, str]] = [(0, self.head)]
        if self.sigma is not None:
            parts.append((5, f"sigma:{self.sigma!r}"))
        if self.gains is not None:
            parts.append((30, "trec_gains:" + ",".join(f"{lv}={_num(g)}" for lv, g in self.gains.pairs)))
        if self.relabel is not None:
            parts.append((40, "relabel:" + ",".join(f"{a}={b}" for a, b in self.relabel)))
        if self.judged_only:
            parts.append((120, "judged:only"))
        if self.relevance_level != 1:
            parts.append((130, f"level:{self.relevance_level}"))
        if self.max_docs is not None:
            parts.append((140, f"max_docs:{self.max_docs}"))
        parts.append((160, f"missing:{self.missing}"))
        parts.append((170, f"fastndcg:{__version__}"))
        for token, infos in _tokens_of(self.convention).items():
            text = _token_text(self, token, infos)
            if text is not None:
                parts.append((infos[0].at, f"{token}:{text}"))
        return "|".join(text for _, text in sorted(parts, key=lambda p: p[0]))


#: convention class -> its tokens; each entry is stored whole once (threads that race store equal dicts)
_TOKENS_OF: Dict[type, Dict[str, List[FieldInfo]]] = {}


def _tokens_of(convention: Any) -> Dict[str, List[FieldInfo]]:
    """A convention's signature tokens and their fields, head first (from the fields'
    descriptions), built once per convention class."""
    cls = convention if isinstance(convention, type) else type(convention)
    got = _TOKENS_OF.get(cls)
    if got is None:
        tokens: Dict[str, List[FieldInfo]] = {}
        for info in described_fields(cls):
            tokens.setdefault(info.token, []).append(info)
        for infos in tokens.values():
            infos.sort(key=lambda i: i.option)
        got = _TOKENS_OF[cls] = tokens
    return got


_TOKENS = _tokens_of(Convention)
#: Tokens that every signature states.
_STATED = tuple(t for t, infos in _TOKENS.items() if infos[0].stated) + ("missing",)


def _written(m: "Measurement", token: str) -> bool:
    """Whether a field that matters for some inputs only is written for this measurement (it can
    change its value): the custom-gain rules with custom gains; the ranking of a judged topic
    without results when such topics are scored and the measure can tell an empty ranking from
    one unjudged document."""
    if token == "gain_rules":
        return m.gains is not None
    if token == "missing_ranking":
        return m.missing == "zero" and (m.gains is not None or m.family not in RANKS_MISSING_ALIKE)
    return True


def _token_text(m: "Measurement", token: str, infos: List[FieldInfo]) -> Optional[str]:
    """``head,option,...`` of one token, or None when it is not written."""
    c = m.convention
    if token == "gain":
        return _gain_text(c)
    if token == "disc":
        return (f"jk:{_num(c.discount_base)}" if c.discount == "jk" else infos[0].text(c.discount)
                if isinstance(c.discount, str) else "array:" + ",".join(_num(v) for v in c.discount))
    head, value = infos[0], getattr(c, infos[0].name)
    if not _written(m, token) or (not head.stated and value == head.default):
        return None
    options = [o.text(getattr(c, o.name)) for o in infos[1:] if o.stated or getattr(c, o.name) != o.default]
    return ",".join([head.text(value)] + options)


def _num(v: float) -> str:
    """Shortest text that reads back to the same double."""
    if math.isnan(v):
        return "-"
    return str(int(v)) if float(v).is_integer() and abs(v) < 2**53 else repr(float(v))


def _gain_text(c: Convention) -> str:
    """``exp``, ``lin``, or a table: ``table:exp:0-30`` for the table of 2**l - 1 over labels
    0..30 (LightGBM's, XGBoost's), ``table:lin:0-4`` for l over 0..4, else every entry."""
    gain = c.gain
    if isinstance(gain, str):
        return _TOKENS["gain"][0].text(gain)
    top = len(gain) - 1
    for short, rule in (("exp", lambda i: float(2 ** i - 1)), ("lin", float)):
        if all(v == rule(i) for i, v in enumerate(gain)):
            return f"table:{short}:0-{top}"
    return "table:" + ",".join(_num(v) for v in gain)


def _gain_table(text: str) -> Tuple[float, ...]:
    """The inverse of :func:`_gain_text` for tables (``text`` after ``table:``)."""
    for short, rule in (("exp", lambda i: float(2 ** i - 1)), ("lin", float)):
        if text.startswith(short + ":0-"):
            top = text[len(short) + 3:]
            if not top.isdigit() or int(top) > 1 << 16:
                raise SignatureError(f"gain table {text!r}: the top label {top!r} is not an integer in 0..65536")
            return tuple(rule(i) for i in range(int(top) + 1))
    return tuple(math.nan if x == "-" else float(x) for x in text.split(","))


def signature(measurement: Any) -> str:
    """The signature of a measurement (or of anything :func:`resolve_measurements` takes, one measure)."""
    ms = resolve_measurements(measurement)
    if len(ms) != 1:
        raise ValueError(f"signature: {measurement!r} is {len(ms)} measurements; give one")
    return ms[0].signature


def from_signature(text: str) -> Measurement:
    """Rebuild a :class:`Measurement` from its signature.

    Raises
    ------
    SignatureError
        Naming the field that cannot be read.
    """
    if not isinstance(text, str) or "|" not in text:
        raise SignatureError(f"not a fastndcg signature (fields separated by '|'): {text!r}")
    head, *items = text.strip().split("|")
    name, at, k = head.partition("@")
    if name not in _FAMILY_OF_HEAD:
        raise SignatureError(f"signature {text!r}: measure {head!r} is not one of "
                             f"{', '.join(FAMILIES.values())} (with @k for nDCG)")
    cutoff = None
    if at:
        if not k.isdigit() or int(k) < 1:
            raise SignatureError(f"signature {text!r}: cutoff {k!r} of {head!r} is not an integer >= 1")
        cutoff = int(k)
    conv: dict = {}
    kw: dict = {}
    seen = set()
    for item in items:
        key, colon, value = item.partition(":")
        if not colon:
            raise SignatureError(f"signature {text!r}: field {item!r} is not key:value")
        if key in seen:
            raise SignatureError(f"signature {text!r}: field {key!r} is given twice")
        seen.add(key)
        try:
            _read_field(key, value, conv, kw)
        except SignatureError as exc:
            raise SignatureError(f"signature {text!r}: {exc}") from None
        except ValueError as exc:
            raise SignatureError(f"signature {text!r}: field {key}:{value}: {exc}") from None
    for required in _STATED:
        if required not in seen:
            raise SignatureError(f"signature {text!r}: the field {required!r} is missing (a signature states "
                                 "every choice)")
    try:
        return Measurement(_FAMILY_OF_HEAD[name], cutoff, with_preset_label(Convention(**conv)), **kw)
    except (TypeError, ValueError) as exc:
        raise SignatureError(f"signature {text!r}: {exc}") from None


def _read_field(key: str, value: str, conv: dict, kw: dict) -> None:
    if key == "gain":
        if value.startswith("table:"):
            conv["gain"] = _gain_table(value[6:])
        elif value in ("exp", "lin"):
            conv["gain"] = _TOKENS["gain"][0].read(value)
        else:
            raise SignatureError(f"gain {value!r} is not exp, lin or table:g0,g1,...")
    elif key == "disc":
        if value.startswith("jk:"):
            conv["discount"], conv["discount_base"] = "jk", float(value[3:])
        else:
            conv["discount"] = tuple(math.nan if x == "-" else float(x) for x in value[6:].split(",")) \
                if value.startswith("array:") else _TOKENS["disc"][0].read(value)
    elif key in _TOKENS:
        _read_token(key, value, conv)
    elif key == "sigma":
        kw["sigma"] = float(value)
    elif key == "trec_gains":
        kw["gains"] = parse_gains(value, name="trec_gains")
    elif key == "relabel":
        pairs = []
        for p in value.split(","):
            a, eq, b = p.partition("=")
            if not eq:
                raise SignatureError(f"relabel pair {p!r} is not a=b")
            pairs.append((int(a), int(b)))
        kw["relabel"] = tuple(pairs)
    elif key == "judged":
        if value != "only":
            raise SignatureError(f"judged {value!r} is not 'only'")
        kw["judged_only"] = True
    elif key == "level":
        kw["relevance_level"] = int(value)
    elif key == "max_docs":
        kw["max_docs"] = int(value)
    elif key == "missing":
        kw["missing"] = value
    elif key == "fastndcg":
        pass        # the version that wrote it; the fields above state the measurement
    else:
        raise SignatureError(f"unknown field {key!r}")


def _read_token(token: str, value: str, conv: dict) -> None:
    """A convention token ``head,option,...`` (the inverse of :func:`_token_text`): the head's
    value (checked by the Convention, which names the field), then each option by its text."""
    head, *options = _TOKENS[token]
    first, *rest = value.split(",")
    conv[head.name] = int(first) if head.name == "default_k" else head.read(first)
    texts = {o.text(v): (o.name, v) for o in options for v in (o.choices or ())}
    for part in rest:
        if part not in texts:
            raise SignatureError(f"{token} option {part!r} is not one of {', '.join(texts)}")
        name, v = texts[part]
        conv[name] = v


# ----------------------------------------------------------------------------- resolution


def _from_measure(m: Measure, trec_base: Convention, missing: str, max_docs: Optional[int], judged_only: bool,
                  relevance_level: int) -> Measurement:
    """A parsed trec_eval / ir_measures measure as a measurement.

    trec_eval syntax follows ``trec_base`` (trec_eval 10's or 9's rules); ir_measures syntax
    follows ir_measures' providers: ``dcg='log2'`` through pytrec_eval
    (trec_eval 9: float32 scores), ``'exp-log2'`` through gdeval/ranx."""
    if m.syntax == "ir_measures":
        base = EXP_LOG2 if m.dcg == "exp-log2" else get_preset("pytrec_eval")
        family = "ndcg"
    else:
        if not follows_trec_eval(trec_base):
            raise ValueError(_trec_rules_error(f"trec_eval-syntax measures ({m.name})", trec_base))
        base = trec_base
        family = "ndcg" if m.family == "ndcg_cut" else m.family
    conv = base if m.cutoff is None else base.replace(ideal="cut", name=base.name)
    return Measurement(family, m.cutoff, conv, gains=m.gains, relabel=m.relabel,
                       judged_only=judged_only or m.judged_only, relevance_level=relevance_level,
                       max_docs=max_docs, missing=missing, name=m.name)


def resolve_measurements(measures: Any, *, convention: Any = "trec_eval", missing: Optional[str] = None,
                         max_docs: Optional[int] = None, judged_only: bool = False,
                         relevance_level: int = 1) -> List[Measurement]:
    """The measurements asked for, from any form a front-end gets them in.

    Parameters
    ----------
    measures : str, Measure, Measurement, ir_measures object, or a list of them
        trec_eval syntax (``ndcg_cut.5,10``, ``ndcg.1=3,2=9``, ``Rndcg``, ...),
        ir_measures syntax (``nDCG@10``, ``nDCG(dcg='exp-log2')@20``), or a
        signature (a string with ``|``).
    convention : Convention or preset name, default "trec_eval"
        The convention of trec_eval-syntax measures, one whose fields trec_eval's rules
        compute (``trec_eval``: trec_eval 10, double scores; ``pytrec_eval``: trec_eval 9
        as pytrec_eval bundles it, float32 scores; or such a preset renamed or with
        the fields trec_eval reads changed). ir_measures syntax follows ir_measures'
        providers whatever this is.
    missing : {"error", "zero", "skip"}, optional
        The rule for judged topics missing from the run, of every measure given
        as trec_eval or ir_measures syntax (default
        :data:`~fastndcg.conventions._topics.DEFAULT_MISSING`). A signature and a
        :class:`Measurement` state their own; ``missing`` given beside one that
        states another is a ValueError naming both (one question, one answer).
    max_docs, judged_only, relevance_level
        The topic rules of every measure given as a string (a signature and a
        :class:`Measurement` carry their own).

    Returns
    -------
    list of Measurement
        In the order given; the same measurement asked twice is kept once.
    """
    trec_base = as_convention(convention)
    asked_missing = missing
    missing = DEFAULT_MISSING if missing is None else check_missing(missing)
    if relevance_level is None or isinstance(relevance_level, bool) or int(relevance_level) != relevance_level:
        raise ValueError(f"relevance_level must be an integer; got {relevance_level!r}")
    items = measure_items(measures, one=(Measurement,))
    out: List[Measurement] = []
    seen = set()
    for item in items:
        if isinstance(item, Measurement) or (isinstance(item, str) and "|" in item):
            got = [item if isinstance(item, Measurement) else from_signature(item)]
            if asked_missing is not None and got[0].missing != asked_missing:
                raise ValueError(
                    f"missing={asked_missing!r} contradicts the rule {got[0].label} states itself "
                    f"(missing={got[0].missing!r}: a Measurement or a signature carries its own): pass "
                    f"measurement.replace(missing={asked_missing!r}), or leave out missing=")
        else:
            got = [_from_measure(m, trec_base, missing, max_docs, bool(judged_only), int(relevance_level))
                   for m in parse_measures(item)]
        for m in got:
            if m not in seen:
                seen.add(m)
                out.append(m)
    return out


def cutoff_measurements(ks: Iterable[Optional[int]], convention: Any, *, ideal: str = "auto", gains: Any = None,
                        missing: str = DEFAULT_MISSING, max_docs: Optional[int] = None, judged_only: bool = False,
                        relevance_level: int = 1) -> List[Measurement]:
    """The measurement of each cutoff of a front end given cutoffs and a convention (``-k``,
    ``k=``): :func:`measurement_for` of each, with the ideal list from ``ideal`` ("qrels", "run",
    or "auto": the convention's own), trec_eval's custom ``gains``, ``max_docs`` (``-M``),
    ``judged_only`` (``-J``) and ``relevance_level`` (``-l``)."""
    conv = as_convention(convention)
    if ideal != "auto" and ideal != conv.ideal_source:
        conv = conv.replace(ideal_source=ideal)
    out = [measurement_for(k, convention=conv, gains=gains, missing=missing, max_docs=max_docs) for k in ks]
    if judged_only or relevance_level != 1:
        out = [m.replace(judged_only=bool(judged_only), relevance_level=int(relevance_level)) for m in out]
    return out


def column_signatures(ks: Iterable[Optional[int]], convention: Convention, ideal_source: str = "run",
                      missing: str = DEFAULT_MISSING) -> List[str]:
    """The signature of each cutoff of a front end that ranks lists it is given (``ideal_source``
    "run": the metrics, streaming, Dask, Spark) or TREC files ("qrels")."""
    return [m.signature for m in cutoff_measurements(ks, convention, ideal=ideal_source, missing=missing)]


def measurement_for(k: Optional[int] = None, *, convention: Any = None, preset: Optional[str] = None,
                    gains: Any = None, missing: str = DEFAULT_MISSING, max_docs: Optional[int] = None,
                    name: str = "") -> Measurement:
    """The NDCG measurement of a cutoff under a convention (a :class:`~fastndcg.Convention` or
    a preset name; ``preset=`` is its deprecated spelling), as ``k=``
    and ``-k`` mean it in every front-end: NDCG@k with the convention's ideal
    (the presets of trec_eval cut the ideal at k: trec_eval's ``ndcg_cut.k``;
    ``k=None`` is the whole list, or ``convention.default_k``).

    ``gains``: trec_eval's custom gains, under the trec_eval presets only (other
    conventions take gains as a gain table: :func:`fastndcg.measures._trec_gain_specs.textbook_convention`).
    """
    if preset is not None:
        if convention is not None:
            raise ValueError("give convention= only (preset= is its old spelling, deprecated); got both")
        warnings.warn("measurement(preset=...) is deprecated: use convention=... (a preset name or a Convention)",
                      DeprecationWarning, stacklevel=caller_stacklevel())
        convention = preset
    conv = as_convention(convention if convention is not None else "standard")
    spec = None
    if gains is not None:
        from fastndcg.measures._trec_gain_specs import as_gains

        spec = as_gains(gains)
    return Measurement("ndcg", k, conv, gains=spec, missing=missing, max_docs=max_docs, name=name)
