"""What each field of a :class:`~fastndcg.Convention` is, said once, where the field is declared.

Every field of the dataclass carries a :class:`FieldInfo` in its metadata (``conv_field``), and
everything that handles fields reads that description instead of a list of its own:

* validation (``Convention.__post_init__``): the named choices;
* the signature and its parser (:mod:`fastndcg.measures._measurement`): the token, its place in
  the signature, the spelling of each value, whether it is stated at its default;
* ``identify``'s grid: the choices it tries;
* ``compare``'s table: which fields are its columns (the others are listed when they differ);
* ``describe``: every field;
* LambdaMART's bit-exact modes: an allow-list (a field that does not say it may vary in a mode
  is refused there at any value but its default);
* trec_eval's own rules: whether they read the field (else it must be trec_eval's value).

Adding a field that only a table reads: declare it on the Convention with :func:`conv_field`,
resolve it where the kernel inputs are built, and write it in the reference (see
docs/architecture.md, "Adding a convention field").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Tuple

#: In :attr:`FieldInfo.exact`: every value applies in that mode.
ANY = "any"
#: The bit-exact modes of LambdaMART (``mode=``): each reproduces one library.
EXACT_MODES = ("lightgbm", "xgboost")
#: In :attr:`FieldInfo.matters`: inputs only trec_eval's measures on qrels and a run have.
TREC_MEASURE_INPUTS = ("custom gains", "trec_eval measures")
#: The key of a field's description in its dataclass metadata.
KEY = "fastndcg"


@dataclass(frozen=True)
class FieldInfo:
    """The description of one convention field (see the module docstring).

    Attributes
    ----------
    meaning : str
        What it decides, in one line.
    choices : tuple of str or None
        Its named values (None: a number or a table, checked by the field's own rule; a
        field whose value may be a name or a table lists the names).
    token : str
        The signature key it is written under; fields that share a token are written as
        ``token:head,option,...`` (``agg:mean,wf32``).
    at : int
        The token's place in the signature (fields of one token share it).
    option : bool
        Written after the head of its token, only when it is not at its default.
    stated : bool
        The head is written even at its default (a report states it).
    spelled : mapping
        A value's text in the signature, where it is not the value itself.
    matters : tuple of str
        When it can change a value: ``("always",)``, or the inputs any one of which it needs
        ("a gain table", "weights", "qrels and a run", "custom gains", "trec_eval measures",
        ...): a report leaves out a field that none of its inputs can have.
    column : str or None
        Its column header in compare's table (None: listed with the other fields).
    grid : tuple
        The values ``identify`` tries (empty: it keeps the default).
    exact : mapping
        LambdaMART's bit-exact modes where it may differ from its default: mode ->
        :data:`ANY` or the values the library has.
    trec_eval_reads : bool
        trec_eval's own rules (its measures, custom gains, ``-c``) read it; every other
        field must have trec_eval's value for them to apply.
    """

    meaning: str
    choices: Optional[Tuple[str, ...]]
    token: str
    at: int
    option: bool = False
    stated: bool = False
    spelled: Mapping[str, str] = field(default_factory=dict)
    matters: Tuple[str, ...] = ("always",)
    column: Optional[str] = None
    grid: Tuple[Any, ...] = ()
    exact: Mapping[str, Any] = field(default_factory=dict)
    trec_eval_reads: bool = False
    #: filled from the declaration (:func:`fastndcg.conventions._convention.described_fields`)
    name: str = ""
    default: Any = None

    def text(self, value: Any) -> str:
        """The value's text in a signature."""
        return self.spelled.get(value, str(value)) if isinstance(value, str) else str(value)

    def read(self, text: str) -> Any:
        """The value whose signature text is ``text`` (the inverse of :meth:`text` on named values)."""
        for value, spelled in self.spelled.items():
            if spelled == text:
                return value
        return text

    def allowed_in(self, mode: str) -> Any:
        """:data:`ANY`, or the values allowed in LambdaMART's bit-exact ``mode`` (None: the default only)."""
        return self.exact.get(mode)


def conv_field(default: Any, info: FieldInfo) -> Any:
    """A dataclass field with its description (see :class:`FieldInfo`)."""
    return field(default=default, metadata={KEY: info})
