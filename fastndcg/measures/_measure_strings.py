"""Measure strings: trec_eval's ``-m`` syntax and ir_measures' syntax, detected.

``parse_measures`` reads what a user pastes from the tool they already use:

* trec_eval (``-m`` argument): ``ndcg``, ``ndcg.1=3,2=9`` (custom gains),
  ``ndcg_cut``, ``ndcg_cut.5,10``, ``ndcg_rel``, ``Rndcg``, ``dcg``,
  ``ideal_dcg``, ``ndcg_p`` (the gain measures take ``.L=G,...``), and the
  names trec_eval and pytrec_eval print (``ndcg_cut_10``, ``ndcg_1=3,2=9``);
* ir_measures: ``nDCG``, ``nDCG@10``, ``nDCG(dcg='exp-log2')@20``,
  ``nDCG(gains={0:0,1:1,2:3})@10``, ``nDCG(judged_only=True)@10`` (also
  ``NDCG``, and ``cutoff=`` as a parameter; given both ways, ``@k`` wins, as
  in ir_measures, with a :class:`MeasureWarning`), or an ``ir_measures``
  measure object.

Each string becomes one :class:`Measure` per value it asks for
(``ndcg_cut.5,10`` gives two). A string that is neither syntax, or malformed,
raises one :class:`MeasureError` (a ValueError) that says what was understood
and what is wrong. Nothing here computes; :mod:`fastndcg.measures._trec_measures` does.
"""
from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

from fastndcg.measures._trec_gain_specs import GainSpec, parse_gains

__all__ = ["Measure", "MeasureError", "MeasureWarning", "parse_measure", "parse_measures",
           "TREC_MEASURES", "GAIN_MEASURES", "NDCG_CUT_DEFAULTS", "MEASURE_SETS", "expand_measure_sets"]

#: trec_eval's NDCG measures, in the order trec_eval prints them (its measure
#: table; ``ndcg_p`` is in trec_eval's source but not in that table: last).
TREC_MEASURES = ("dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "ndcg_p")
#: The trec_eval measures whose parameters are custom gains ``L=G,...``.
GAIN_MEASURES = ("dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_p")
#: trec_eval's default cutoffs of ``ndcg_cut``.
NDCG_CUT_DEFAULTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: trec_eval's bookkeeping lines, accepted by the command line's ``-m``.
BOOKKEEPING = ("runid", "num_q")
#: trec_eval's measure sets (``-m all_trec``; its measures.c): the NDCG measures and bookkeeping
#: lines of each, as trec_eval 10 prints them for it (``all_trec``: the lines of its own
#: out.test.a that fastndcg computes). A set without an NDCG measure is told so.
MEASURE_SETS = {"all_trec": ("runid", "num_q", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut"),
                "official": (), "set": (), "all_prefs": (), "prefs": (), "qrels_jg": ()}

_IRM_NAMES = ("nDCG", "NDCG")
_IRM_PARAMS = {"cutoff": "an integer >= 1", "dcg": "'log2' or 'exp-log2'",
               "gains": "a dict {relevance: gain} of integers", "judged_only": "True or False"}
_IRM_DEFAULTS = {"dcg": "log2", "judged_only": False}
_TREC_EXAMPLES = "ndcg, ndcg.1=3,2=9, ndcg_cut.5,10, ndcg_rel, Rndcg, dcg, ideal_dcg, ndcg_p"
_IRM_EXAMPLES = "nDCG@10, nDCG(dcg='exp-log2')@20, nDCG(gains={0:0,1:1,2:3})@10, nDCG(judged_only=True)@10"
_CUTOFF = re.compile(r"[+-]?[0-9]+(\.[0-9]*)?\Z")
#: Measures of trec_eval and ir_measures outside the NDCG family (compared in lower case; a
#: trec_eval name also with its parameters, ``P_10``): asking for one is told that fastndcg
#: does not compute it, not that the name is unknown.
_OTHER_MEASURES = frozenset(name.lower() for name in (
    # trec_eval
    "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall",
    "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G",
    "rel_P", "success", "set_P", "set_recall", "set_rel_P", "set_map", "set_F", "num_nonrel_judged_ret",
    "prefs", "map_avgjg", "Rprec_mult_avgjg", "P_avgjg", "yaap", "map_cut", "P_cut", "recall_cut",
    # ir_measures
    "AP", "MAP", "R", "RR", "MRR", "Bpref", "BPref", "ERR", "Judged", "NumQ", "NumRet", "NumRel", "NumRelRet",
    "SetP", "SetR", "SetF", "SetAP", "SetRelP", "Success", "IPrec", "RPrec", "Precision", "Recall", "Accuracy",
    "Compat", "INSQ", "INST", "RBP", "NRBP", "nNRBP", "SDCG", "alpha_DCG", "alpha_nDCG", "\u03b1_DCG",
    "\u03b1_nDCG", "ERR_IA", "nERR_IA", "AP_IA", "MAP_IA", "P_IA", "NERR8", "NERR9", "NERR10", "NERR11", "BPM",
    "StRecall"))
_NDCG_FAMILY = "trec_eval syntax: ndcg, ndcg_cut, ndcg_rel, Rndcg, ndcg_p, dcg, ideal_dcg; ir_measures syntax: nDCG"


class MeasureError(ValueError):
    """A measure string that cannot be read (the message says what was understood)."""


class MeasureWarning(UserWarning):
    """A measure string read the way trec_eval reads it, which may not be what was meant."""


@dataclass(frozen=True, eq=False, repr=False)
class Measure:
    """One NDCG measure, as a tool names it.

    Attributes
    ----------
    name : str
        The name the tool prints: trec_eval's (``ndcg_cut_10``, ``ndcg_1=3,2=9``)
        or ir_measures' (``nDCG@10``, ``nDCG(dcg='exp-log2')@20``).
    family : str
        One of :data:`TREC_MEASURES`, or ``"nDCG"`` (ir_measures).
    cutoff : int or None
        ``ndcg_cut``'s cutoff, or ir_measures' ``@k`` (None: the whole list).
    gains : GainSpec or None
        trec_eval's custom gains (``ndcg.L=G``), applied by trec_eval's rules
        (:mod:`fastndcg.measures` (custom gains: ``GainSpec``, ``GainScorer``)).
    relabel : tuple of (int, int) or None
        ir_measures' ``gains={...}``: the judgments are mapped before anything
        else (``{relevance: new relevance}``; identity entries dropped).
    dcg : str
        ir_measures' ``dcg``: ``"log2"`` (gain = relevance) or ``"exp-log2"``
        (gain = 2**relevance - 1).
    judged_only : bool
        Leave out retrieved documents without a judgment >= 0 (ir_measures'
        ``judged_only``, trec_eval's ``-J``).
    syntax : str
        ``"trec_eval"`` or ``"ir_measures"``.
    text : str
        The string it was read from.
    """

    name: str
    family: str
    cutoff: Optional[int] = None
    gains: Optional[GainSpec] = None
    relabel: Optional[Tuple[Tuple[int, int], ...]] = None
    dcg: str = "log2"
    judged_only: bool = False
    syntax: str = "trec_eval"
    text: str = ""

    def __str__(self) -> str:
        return self.name

    # the string too, so that results keyed by measures print as {nDCG@10: 0.5}
    # (ir_measures' measure objects print the same way)
    def __repr__(self) -> str:
        return self.name

    # Equal to another Measure of the same name, to the name itself and to the
    # ir_measures object of the same repr (ir_measures keys its results by
    # repr), so that results[nDCG@10], results["nDCG@10"] both work.
    def __eq__(self, other: object) -> bool:
        if isinstance(other, Measure):
            return self.name == other.name
        if isinstance(other, str):
            return self.name == other
        if _is_irm_object(other):
            return self.name == repr(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.name)

    @property
    def key(self) -> tuple:
        """What the measure computes (two strings naming the same measure share it)."""
        return (self.family, self.cutoff, self.gains.pairs if self.gains is not None else None,
                self.relabel, self.dcg, self.judged_only, self.syntax)


# ----------------------------------------------------------------------------- entry points


def parse_measures(measures: Any) -> List[Measure]:
    """Read measures: a string, an ir_measures measure object, a :class:`Measure`,
    or an iterable of those. Duplicates (by what they compute) are dropped;
    order is kept.

    Raises
    ------
    MeasureError
        For a string that is neither syntax or is malformed, naming the string
        and what was understood of it.
    """
    items = measure_items(measures)
    out: List[Measure] = []
    seen = set()
    for item in items:
        for m in parse_measure(item):
            if m.key not in seen:
                seen.add(m.key)
                out.append(m)
    return out


def measure_items(measures: Any, one: tuple = ()) -> List[Any]:
    """The items of ``measures``: one measure (a string, :class:`Measure`, ir_measures
    object, or an instance of a type in ``one``) as a list of one, else the items of an
    iterable, which must not be empty."""
    if isinstance(measures, (str, Measure) + tuple(one)) or _is_irm_object(measures):
        return [measures]
    try:
        items = list(measures)
    except TypeError:
        raise TypeError(f"measures must be a string, a measure or a list of them; got "
                        f"{type(measures).__name__}") from None
    if not items:
        raise MeasureError("no measures given (e.g. 'nDCG@10' or 'ndcg_cut.10')")
    return items


def parse_measure(measure: Any) -> List[Measure]:
    """One measure string (or object): the list of measures it asks for
    (``ndcg_cut.5,10`` gives two; ``ndcg_cut`` trec_eval's nine default
    cutoffs). Syntax: ir_measures when the string has ``@`` or ``(`` or starts
    with ``nDCG``/``NDCG``, trec_eval otherwise."""
    if isinstance(measure, Measure):
        return [measure]
    if _is_irm_object(measure):
        if measure.NAME not in _IRM_NAMES:
            raise _not_ndcg(repr(measure))
        return [_irm_from_params(dict(measure.params), repr(measure))]
    if not isinstance(measure, str):
        raise TypeError(f"a measure must be a string such as 'nDCG@10' or 'ndcg_cut.10'; got "
                        f"{type(measure).__name__}")
    text = measure.strip()
    if not text:
        raise MeasureError("empty measure string (e.g. 'nDCG@10' or 'ndcg_cut.10')")
    if "@" in text or "(" in text or text.split("@")[0].split("(")[0] in _IRM_NAMES:
        return [_parse_irm(text)]
    return _parse_trec(text)


def _is_irm_object(x: Any) -> bool:
    return hasattr(x, "NAME") and hasattr(x, "params") and isinstance(getattr(x, "params", None), dict)


# ----------------------------------------------------------------------------- trec_eval syntax


def expand_measure_sets(strings: List[str]) -> List[str]:
    """``-m`` strings with trec_eval's measure sets (``all_trec``) replaced by their NDCG measures
    and bookkeeping lines (:data:`MEASURE_SETS`), in place; the others as they are."""
    out: List[str] = []
    for text in strings:
        out.extend(_set_members(text.strip()) if text.strip() in MEASURE_SETS else [text])
    return out


def _set_members(name: str) -> Tuple[str, ...]:
    members = MEASURE_SETS[name]
    if not members:
        raise MeasureError(f"measure {name!r}: trec_eval's set of measures {name!r} has no NDCG measure. "
                           f"fastndcg computes the NDCG family only ({_NDCG_FAMILY}); -m all_trec gives "
                           "those of trec_eval's all_trec")
    return members


def _parse_trec(text: str) -> List[Measure]:
    if text in MEASURE_SETS:        # all_trec: its NDCG measures (the bookkeeping lines are no measures)
        return [m for member in _set_members(text) if member not in BOOKKEEPING for m in _parse_trec(member)]
    name, dot, params = text.partition(".")
    if dot and not params:
        raise _trec_error(text, f"read as trec_eval measure {name!r} with parameters after '.', but there are "
                                "none (trec_eval: improper measure)")
    if not dot:
        # the names trec_eval and pytrec_eval print: ndcg_cut_10, ndcg_1=3,2=9
        if name not in TREC_MEASURES and name not in BOOKKEEPING:
            for fam in sorted(TREC_MEASURES, key=len, reverse=True):
                if name.startswith(fam + "_") and len(name) > len(fam) + 1:
                    rest = name[len(fam) + 1:]
                    if (fam == "ndcg_cut" and rest[:1].isdigit()) or (fam in GAIN_MEASURES and "=" in rest):
                        name, params = fam, rest
                        dot = "_"
                        break
    if name in BOOKKEEPING:
        raise _trec_error(text, f"{name!r} is trec_eval's bookkeeping line, not an NDCG measure (the command "
                                "line's -m accepts it for --format trec)")
    if name not in TREC_MEASURES:
        return _unknown(text, name)
    if name == "ndcg_cut":
        cutoffs = _trec_cutoffs(text, params) if dot else list(NDCG_CUT_DEFAULTS)
        return [Measure(f"ndcg_cut_{k}", "ndcg_cut", cutoff=k, text=text) for k in cutoffs]
    spec = None
    if dot:
        try:
            spec = parse_gains(params, name="")
        except ValueError as exc:
            raise _trec_error(text, f"read as trec_eval measure {name!r} with custom gains {params!r}: "
                                    f"{exc}") from None
    return [Measure(name if spec is None else f"{name}_{spec.text}", name, gains=spec, text=text)]


def _trec_cutoffs(text: str, params: str) -> List[int]:
    """trec_eval's ``get_long_cutoffs``: comma-separated, read with atol,
    sorted ascending; <= 0 and duplicates are errors."""
    out = []
    for part in params.split(","):
        p = part.strip()
        if not _CUTOFF.match(p):
            raise _trec_error(text, f"read as trec_eval measure 'ndcg_cut' with cutoffs {params!r}: cutoff "
                                    f"{part!r} is not an integer")
        value = int(float(p)) if "." in p else int(p)
        if "." in p and float(p) != value:
            warnings.warn(f"measure {text!r}: trec_eval reads cutoff {p!r} as {value} (atol); so does fastndcg",
                          MeasureWarning, stacklevel=4)
        if value <= 0:
            raise _trec_error(text, f"read as trec_eval measure 'ndcg_cut' with cutoffs {params!r}: cutoff "
                                    f"{p} is not >= 1 (trec_eval: negative cutoff)")
        out.append(value)
    out.sort()
    dups = sorted({v for v in out if out.count(v) > 1})
    if dups:
        raise _trec_error(text, f"read as trec_eval measure 'ndcg_cut' with cutoffs {params!r}: cutoff "
                                f"{dups[0]} is given twice (trec_eval: duplicate cutoffs)")
    return out


def _trec_error(text: str, what: str) -> MeasureError:
    return MeasureError(f"measure {text!r}: {what}")


def _is_other_measure(name: str) -> bool:
    """Whether ``name`` names a trec_eval or ir_measures measure outside the NDCG family."""
    low = name.lower()
    return low in _OTHER_MEASURES or any(low.startswith(other + "_") for other in _OTHER_MEASURES)


def _not_ndcg(text: str) -> MeasureError:
    return MeasureError(f"measure {text!r}: not an NDCG measure. fastndcg computes the NDCG family only "
                        f"({_NDCG_FAMILY}); MAP, P@k, recall, RR, ERR and the other measures are not "
                        "measured here: use trec_eval or ir_measures for them")


def _close_matches(word: str, options: List[str], n: int = 3, cutoff: float = 0.6) -> List[str]:
    """difflib's suggestions, imported only for a name that is not known (not on every run)."""
    import difflib

    return difflib.get_close_matches(word, options, n=n, cutoff=cutoff)


def _unknown(text: str, name: str):
    if _is_other_measure(name):
        raise _not_ndcg(text)
    known = list(TREC_MEASURES) + list(_IRM_NAMES)
    guess = _close_matches(name.lower(), [k.lower() for k in known], n=1, cutoff=0.6)
    hint = ""
    if guess:
        g = next(k for k in known if k.lower() == guess[0])
        hint = f"; did you mean {g!r}?"
    if name.lower() == "ndcg" or name.lower().startswith("ndcg@"):
        hint = "; did you mean 'ndcg' (trec_eval) or 'nDCG' (ir_measures)?"
    raise MeasureError(
        f"measure {text!r}: unknown measure name {name!r}, neither trec_eval syntax ({_TREC_EXAMPLES}) nor "
        f"ir_measures syntax ({_IRM_EXAMPLES}){hint}")


# ----------------------------------------------------------------------------- ir_measures syntax


def _irm_error(text: str, what: str) -> MeasureError:
    return MeasureError(f"measure {text!r} (ir_measures syntax): {what}")


def _literal(node: ast.AST, text: str, param: str) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        raise _irm_error(text, f"the value of {param} is not a literal (str, int, bool, dict)") from None


def _parse_irm(text: str) -> Measure:
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise _irm_error(text, f"not a valid Measure(k=v, ...)@cutoff expression ({exc.msg} at column "
                               f"{exc.offset})") from None
    params: dict = {}
    at = None
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.MatMult):
        at = _literal(tree.right, text, "@")
        tree = tree.left
    if isinstance(tree, ast.Call):
        if tree.args:
            raise _irm_error(text, "parameters must be named, e.g. nDCG(dcg='exp-log2')@10")
        for kw in tree.keywords:
            if kw.arg is None:
                raise _irm_error(text, "parameters must be named, e.g. nDCG(dcg='exp-log2')@10")
            params[kw.arg] = _literal(kw.value, text, kw.arg)
        tree = tree.func
    if not isinstance(tree, ast.Name):
        raise _irm_error(text, "expected a measure name such as nDCG, then optional (k=v, ...) and @cutoff")
    if tree.id not in _IRM_NAMES:
        if _is_other_measure(tree.id):
            raise _not_ndcg(text)
        guess = _close_matches(tree.id, list(_IRM_NAMES) + ["ndcg", "ndcg_cut"], n=1, cutoff=0.5)
        if tree.id in ("ndcg", "ndcg_cut", "Ndcg", "NDcg"):
            guess = ["nDCG"]
        hint = f"; did you mean {guess[0]!r}?" if guess else ""
        raise _irm_error(text, f"read measure name {tree.id!r}: fastndcg computes ir_measures' nDCG (also "
                               f"spelled NDCG) only{hint}")
    if at is not None:
        if "cutoff" in params and params["cutoff"] != at:
            # ir_measures' parse_measure sets the @ value over cutoff= (its test_util.py reads
            # nDCG(dcg="exp-log2", cutoff=20)@10 as nDCG(dcg='exp-log2')@10): the same measure here
            warnings.warn(f"measure {text!r}: cutoff={params['cutoff']!r} and @{at!r} both give the cutoff; "
                          f"@{at!r} wins, as in ir_measures", MeasureWarning, stacklevel=3)
        params.pop("cutoff", None)
        params["cutoff"] = at
    return _irm_from_params(params, text)


def _irm_from_params(params: dict, text: str) -> Measure:
    unknown = [p for p in params if p not in _IRM_PARAMS]
    if unknown:
        guess = _close_matches(unknown[0], list(_IRM_PARAMS), n=1)
        hint = f" (did you mean {guess[0]!r}?)" if guess else ""
        raise _irm_error(text, f"nDCG has no parameter {unknown[0]!r}{hint}; it takes "
                               + ", ".join(f"{k} ({v})" for k, v in _IRM_PARAMS.items()))
    cutoff = params.get("cutoff")
    if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1):
        raise _irm_error(text, f"read as nDCG with cutoff {cutoff!r}: the cutoff must be an integer >= 1")
    dcg = params.get("dcg", "log2")
    if dcg not in ("log2", "exp-log2"):
        raise _irm_error(text, f"read as nDCG with dcg={dcg!r}: dcg is 'log2' (gain = relevance) or "
                               "'exp-log2' (gain = 2**relevance - 1)")
    judged = params.get("judged_only", False)
    if not isinstance(judged, bool):
        raise _irm_error(text, f"read as nDCG with judged_only={judged!r}: judged_only is True or False")
    relabel = None
    if "gains" in params:
        gains = params["gains"]
        if not isinstance(gains, dict) or not all(
                isinstance(k, int) and not isinstance(k, bool) and isinstance(v, int) and not isinstance(v, bool)
                for k, v in gains.items()):
            raise _irm_error(text, f"read as nDCG with gains={gains!r}: gains is a dict {{relevance: gain}} of "
                                   "integers (ir_measures maps the judgments with it); for real-valued gains "
                                   "use trec_eval's ndcg.L=G (e.g. ndcg.1=0.5,2=3)")
        if dcg == "exp-log2":
            raise _irm_error(text, "read as nDCG with dcg='exp-log2' and gains: no ir_measures provider computes "
                                   "this combination, and its meaning is ambiguous; map the judgments with "
                                   "gains under dcg='log2', or give trec_eval gains (ndcg.L=G)")
        relabel = tuple(sorted((int(k), int(v)) for k, v in gains.items() if k != v))
    name = _irm_repr(params)
    return Measure(name, "nDCG", cutoff=cutoff, relabel=relabel, dcg=dcg, judged_only=judged,
                   syntax="ir_measures", text=text)


def _irm_repr(params: dict) -> str:
    """ir_measures' ``repr`` of the measure (its dict key): parameters other
    than the cutoff that differ from the default, in the order given; gains
    without identity entries, sorted; then ``@cutoff``."""
    parts = []
    for k, v in params.items():
        if k == "cutoff" or (k in _IRM_DEFAULTS and v == _IRM_DEFAULTS[k]):
            continue
        if isinstance(v, dict):
            parts.append(f"{k}={{" + ",".join(f"{a}:{b}" for a, b in sorted(v.items()) if a != b) + "}")
        else:
            parts.append(f"{k}={v!r}")
    out = "nDCG" + (f"({','.join(parts)})" if parts else "")
    if "cutoff" in params:
        out += f"@{params['cutoff']}"
    return out
