"""The rooms of the package and the direction of imports between them
(docs/architecture.md). Every import counts, at module top or inside a
function: a lazy import is still a dependency."""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, List, Set

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "fastndcg"
ROOMS = ("_core", "conventions", "reference", "measures", "io", "report", "cli", "integrations")
#: what each room must never import (besides itself); the floors, bottom first
FORBIDDEN = {
    "conventions": {"_core", "reference", "measures", "io", "report", "cli", "integrations"},
    "_core": {"reference", "measures", "io", "report", "cli", "integrations"},
    "reference": {"_core", "measures", "io", "report", "cli", "integrations"},
    # measures and io stand side by side: the TREC measures read runs through io,
    # AlignedRun's ndcg()/mean_ndcg() call the measures (lazily); no module circle
    "measures": {"reference", "report", "cli", "integrations"},
    "io": {"reference", "report", "cli", "integrations"},
    "report": {"reference", "cli", "integrations"},
    "integrations": {"reference", "cli"},
    "cli": {"reference"},
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> Dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*"):
        if path.suffix in (".py", ".pyx", ".pxi", ".pxd") and "__pycache__" not in path.parts:
            found.setdefault(_module_name(path), path)
    return found


def _imports(path: Path, name: str) -> Set[str]:
    """fastndcg modules imported anywhere in a file (Cython: the cimports and imports too)."""
    text = path.read_text()
    out: Set[str] = set()
    if path.suffix != ".py":
        for line in text.splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] in ("from", "import", "cimport") and words[1].startswith("fastndcg"):
                out.add(words[1].rstrip(","))
        return out
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("fastndcg"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            if base.startswith("fastndcg"):
                for a in node.names:   # `from fastndcg.io import readers` depends on the module only
                    out.add(f"{base}.{a.name}" if f"{base}.{a.name}" in _MODULES else base)
    return out


SOURCES = _sources()
_MODULES = set(SOURCES)
GRAPH = {name: {m for m in _imports(path, name) if m in SOURCES and m != name} for name, path in SOURCES.items()}


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ROOMS else ""


def test_every_module_lives_in_a_room():
    top = sorted(m for m in SOURCES if m.count(".") == 1 and _room(m) == "")
    # _version: the one place of the version (pyproject.toml, the facade and the CLI read it)
    assert top == ["fastndcg.__main__", "fastndcg._version"], top


#: the exceptions, each with its reason
ALLOWED = {
    # trec_eval's gain-level rules (levels -1/-2, the (int)(g1 - g2) ordering) are data the
    # engine and the spec must share exactly: one place, the spec module
    ("fastndcg.measures.trec_gains", "fastndcg.reference._trec_gains"),
    ("fastndcg.measures.trec_gain_resolution", "fastndcg.reference._trec_gains"),
    ("fastndcg.measures.trec_gain_scoring", "fastndcg.reference._trec_gains"),
    ("fastndcg.measures.trec_measures", "fastndcg.reference._trec_gains"),
    ("fastndcg.measures.trec_measures", "fastndcg.reference._trec_ndcg"),
}


@pytest.mark.parametrize("room", ROOMS)
def test_import_direction(room):
    bad = [f"{m} imports {dep}" for m in sorted(GRAPH) if _room(m) == room
           for dep in sorted(GRAPH[m]) if _room(dep) in FORBIDDEN[room] and (m, dep) not in ALLOWED]
    assert not bad, "\n".join(bad)


def test_io_never_imports_the_ndcg_kernels():
    # the compiled modules of the core (fastndcg._core._*); io has its own parser
    bad = [f"{m} imports {dep}" for m in sorted(GRAPH) if _room(m) == "io"
           for dep in sorted(GRAPH[m]) if dep.startswith("fastndcg._core._")]
    assert not bad, "\n".join(bad)


def test_reference_imports_nothing_compiled():
    compiled = {m for m, p in SOURCES.items() if p.suffix in (".pyx", ".pxd", ".pxi")}
    seen, stack = set(), ["fastndcg.reference"]
    while stack:   # everything the reference reaches, transitively
        m = stack.pop()
        if m not in seen:
            seen.add(m)
            stack.extend(GRAPH.get(m, ()))
    assert not (seen & compiled), sorted(seen & compiled)


def _cycles() -> List[List[str]]:
    # Tarjan's strongly connected components; a component of more than one module is a circle
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on: Set[str] = set()
    out: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return out


def test_no_import_circles():
    # the package facades (fastndcg, fastndcg.reference, fastndcg.conventions)
    # import their rooms; a room's module importing its facade back is a circle
    assert _cycles() == []


def test_the_checks_can_fail():
    GRAPH["fastndcg._core.threads"].add("fastndcg.io.readers")
    GRAPH["fastndcg.io.readers"].add("fastndcg._core.threads")
    try:
        with pytest.raises(AssertionError):
            test_import_direction("_core")
        assert _cycles()
    finally:
        GRAPH["fastndcg._core.threads"].discard("fastndcg.io.readers")
        GRAPH["fastndcg.io.readers"].discard("fastndcg._core.threads")


def _only_reexports(path: Path) -> bool:
    """A module whose body is only a docstring, imports and ``__all__`` (room ``__init__``s aside)."""
    if path.suffix != ".py" or path.name in ("__init__.py", "__main__.py"):
        return False
    body = ast.parse(path.read_text()).body
    if not body:
        return False
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"]:
            continue
        return False
    return True


SHIMS = {name for name, path in SOURCES.items() if _only_reexports(path)}


def test_the_package_never_imports_a_reexport_module():
    """A re-export module is for users' old import paths; inside the package every import
    names the module that holds the code (one path per name, no detour)."""
    assert SHIMS, "the check finds re-export modules (it can fail)"
    users = sorted((mod, shim) for mod, deps in GRAPH.items() for shim in deps & SHIMS)
    assert users == []


def test_the_cli_never_imports_the_top_level_package():
    """The CLI is a room like the others: it imports the rooms, not the facade."""
    users = sorted(mod for mod, deps in GRAPH.items() if _room(mod) == "cli" and "fastndcg" in deps)
    assert users == []


# ----------------------------------------------------------------------------- kernels

_KERNEL_SOURCES = sorted(p for pattern in ("_*.pyx", "_*.pxi", "_*.pxd", "_*.pyx.tp")
                         for p in (PACKAGE / "_core").glob(pattern))      # the kernels (io/ has parsers)
_ENTRY = re.compile(r"^[ \t]*(?:cpdef|def)[ \t]+(?:[\w\[\].]+[ \t]+)?(\w+)[ \t]*\(", re.M)
_ENUM_MEMBER = re.compile(r"^[ \t]+([A-Z][A-Z0-9_]*)[ \t]*=[ \t]*(-?\d+)", re.M)
MAX_KERNEL_ARGUMENTS = 10
# Entry points over the limit: none left (prefix_measures took 20; it takes a PrefixTopics now).
WIDE_ENTRY_POINTS: Set[str] = set()


def kernel_entry_points(text: str) -> Dict[str, int]:
    """Python-visible functions (def / cpdef, methods included) of a Cython
    source and how many arguments each takes (``self`` not counted)."""
    out: Dict[str, int] = {}
    for m in _ENTRY.finditer(text):
        depth, j = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        inside = re.sub(r"#.*", "", text[m.end(): j - 1])       # comments
        inside = re.sub(r"\[[^\]]*\]", "", inside)                # memoryview axes: double[:, ::1]
        args = [a.strip() for a in inside.split(",") if a.strip() and a.strip() != "self"]
        out[m.group(1)] = max(out.get(m.group(1), 0), len(args))
    return out


def kernel_enum_members(text: str) -> Dict[str, int]:
    """NAME = value members of the ``cdef enum:`` blocks of a Cython source."""
    out: Dict[str, int] = {}
    for block in re.split(r"^cdef enum\w*[ \t]*\w*:[ \t]*\n", text, flags=re.M)[1:]:
        body = re.match(r"(?:(?:[ \t]+.*|[ \t]*)\n)*", block).group(0)
        out.update((name, int(value)) for name, value in _ENUM_MEMBER.findall(body))
    return out


def test_kernel_entry_points_take_at_most_ten_arguments():
    wide = {f"{p.name}:{name}": n for p in _KERNEL_SOURCES
            for name, n in kernel_entry_points(p.read_text()).items() if n > MAX_KERNEL_ARGUMENTS}
    assert set(wide) <= WIDE_ENTRY_POINTS, (
        f"kernel entry points over {MAX_KERNEL_ARGUMENTS} arguments: pass a parameter struct or kernel "
        f"object instead: {dict(sorted((k, v) for k, v in wide.items() if k not in WIDE_ENTRY_POINTS))}")
    assert WIDE_ENTRY_POINTS <= set(wide), f"now narrow, drop from WIDE_ENTRY_POINTS: {WIDE_ENTRY_POINTS - set(wide)}"


def test_kernel_codes_are_defined_once():
    from fastndcg._core import resolve, validation
    defined: Dict[str, List[str]] = {}
    for p in _KERNEL_SOURCES:
        for name in kernel_enum_members(p.read_text()):
            defined.setdefault(name, []).append(p.name)
    twice = {name: files for name, files in defined.items() if len(files) > 1}
    assert not twice, f"enum members defined in more than one Cython file: {twice}"
    # the convention and mode codes: _codes.pxd, and resolve.py's Python copy, agree
    codes = kernel_enum_members((PACKAGE / "_core" / "_codes.pxd").read_text())
    python = {f"TIES_{'INPUT' if v == 0 else k.upper()}": v for k, v in resolve.TIE_CODES.items()}
    python.update((f"DISCOUNT_{k.upper()}", v) for k, v in resolve.DISCOUNT_CODES.items())
    python.update((f"MODE_{k.upper()}", v) for k, v in resolve.MODE_CODES.items())
    python.update((name, getattr(validation, name)) for name in codes
                  if name.startswith(("SCORE_", "LABEL_", "FLAG_", "OFFSETS_")))
    python["PROBLEM_NONE"] = 0
    assert codes == python
    # and no Python module keeps its own table of kernel codes
    tables = sorted(f"{name}: {t.id}" for name, path in SOURCES.items() if path.suffix == ".py"
                    for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Assign)
                    for t in node.targets if isinstance(t, ast.Name) and t.id.endswith("_CODES"))
    assert tables == [f"fastndcg._core.resolve: {n}" for n in ("DISCOUNT_CODES", "MODE_CODES", "TIE_CODES")]


def test_the_kernel_checks_can_fail():
    text = ("def f(a, b, c, d, e, f, g, h, i, j, double[:, ::1] k):  # x, y\n    pass\n"
            "cdef class K:\n    def __init__(self, a, b):\n        pass\n"
            "cdef enum:\n    A_B = 1\n    C = 2  # c\n\ncdef int x = 3\n")
    assert kernel_entry_points(text) == {"f": 11, "__init__": 2}
    assert kernel_enum_members(text) == {"A_B": 1, "C": 2}


def _private_names_across_modules() -> Set[str]:
    """``module:name`` of underscore names one package module imports from another
    (private compiled modules such as ``_core._ndcg`` belong to their room; not counted)."""
    out: Set[str] = set()
    for path in SOURCES.values():
        if path.suffix != ".py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fastndcg"):
                for a in node.names:
                    if a.name.startswith("_") and not a.name.startswith("__") \
                            and f"{node.module}.{a.name}" not in _MODULES:
                        out.add(f"{node.module}:{a.name}")
    return out


#: The deliberate friend APIs: private names a module lends another module of its room (at most 20).
FRIENDS = {
    "fastndcg._core.validation:_where",             # the position text of a bad value (prepared's messages)
    "fastndcg.cli.options:_gain_spec",              # --gain's argparse type, shared by two parsers
    "fastndcg.cli.options:_note",                   # "fastndcg: note:" on stderr
    "fastndcg.measures.lambdamart_checks:_check_flag",   # LambdaMART's bool options (model and functions)
    "fastndcg.measures.lambdamart_checks:_lambdamart",   # the kernel build chosen at import (baseline or AVX2)
    "fastndcg.report.comparison:_ideal_source",     # compare's ideal of one system under one preset
    "fastndcg.report.comparison:_scorer",           # compare's scorer of one system
    "fastndcg.report.comparison_text:_fmt",         # compare's number format
    "fastndcg.report.comparison_text:_indent",      # compare's indented blocks
}


def test_private_names_cross_module_lines_only_as_friends():
    """Before this rule 66 underscore names crossed module lines; the rest became public names of
    their module (``check_mode``, ``UsageError``, ``line_error``, ...)."""
    found = _private_names_across_modules()
    assert len(FRIENDS) <= 20
    assert found == FRIENDS, (f"new: {sorted(found - FRIENDS)}; gone (drop from FRIENDS): "
                              f"{sorted(FRIENDS - found)}")
