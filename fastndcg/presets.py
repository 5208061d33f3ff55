"""Named conventions that reproduce well-known tools.

Each preset is a :class:`~fastndcg.Convention`; start from one and change a
field with ``preset.replace(...)``. The rules behind each are documented in
the project's conventions notes; the preset docstrings say which version of
the tool they match.
"""
from __future__ import annotations

from typing import Dict

from fastndcg._convention import Convention

PRESETS: Dict[str, Convention] = {}


def _register(convention: Convention) -> Convention:
    PRESETS[convention.name] = convention
    return convention


#: The textbook definition: exponential gain 2**l - 1, 1/log2(r+1), ties in
#: input order, ideal cut at k, k clamped to n, empty queries 0, plain mean.
STANDARD = _register(Convention(name="standard"))


def get_preset(name: str) -> Convention:
    """Return the preset called ``name`` (see :data:`PRESETS`)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; known presets: {', '.join(sorted(PRESETS))}") from None


def list_presets():
    """Names of all presets, sorted."""
    return sorted(PRESETS)
