"""The rooms of the package and the direction of imports between them
(docs/architecture.md). Every import counts, at module top or inside a
function: a lazy import is still a dependency."""
from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import Dict, List, Optional, Set

import pytest


@functools.lru_cache(maxsize=None)
def _tree(path: Path) -> ast.Module:
    """A source file's syntax tree, parsed once for every test here (they only read it)."""
    return ast.parse(path.read_text())


PACKAGE = Path(__file__).resolve().parents[1] / "fastndcg"
ROOMS = ("_core", "conventions", "reference", "measures", "io", "stream", "report", "cli", "integrations")
#: what each room must never import (besides itself); the floors, bottom first
FORBIDDEN = {
    "conventions": {"_core", "reference", "measures", "io", "stream", "report", "cli", "integrations"},
    "_core": {"reference", "measures", "io", "stream", "report", "cli", "integrations"},
    "reference": {"_core", "measures", "io", "stream", "report", "cli", "integrations"},
    # io returns arrays: the measures read runs through io (evaluate_trec, aligned_ndcg), never
    # the other way (no io <-> measures loop)
    "measures": {"reference", "stream", "report", "cli", "integrations"},
    "io": {"reference", "measures", "stream", "report", "cli", "integrations"},
    # streaming: chunks of files evaluated with the measures' kernels, above measures and io
    "stream": {"reference", "report", "cli", "integrations"},
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


#: the exceptions, each with its reason (trec_eval's gain levels are data in conventions/_trec_levels.py;
#: the measures room has its own level rules, tested against the spec). The conventions face is lazy
#: like the others, built by the face machinery (``_core/faces.py``, standard library only): its
#: ``ideal_source`` left the face and still resolves with a warning naming the replacement.
ALLOWED: Set[tuple] = {("fastndcg.conventions", "fastndcg._core.faces")}


@pytest.mark.parametrize("room", ROOMS)
def test_import_direction(room):
    bad = [f"{m} imports {dep}" for m in sorted(GRAPH) if _room(m) == room
           for dep in sorted(GRAPH[m]) if _room(dep) in FORBIDDEN[room] and (m, dep) not in ALLOWED]
    assert not bad, "\n".join(bad)


def _header_only(module: str) -> bool:
    """A Cython header (``.pxd``) with no module of its own: its inline code is compiled into
    each module that cimports it, which imports nothing (``_core/_rank.pxd``, the comparator)."""
    base = PACKAGE.parent / module.replace(".", "/")
    return base.with_suffix(".pxd").exists() and not base.with_suffix(".pyx").exists()


def test_io_never_imports_the_ndcg_kernels():
    # the compiled modules of the core (fastndcg._core._*); io has its own parser, which compiles
    # in the one comparator of the kernels (a header) for trec_eval's -M
    bad = [f"{m} imports {dep}" for m in sorted(GRAPH) if _room(m) == "io"
           for dep in sorted(GRAPH[m]) if dep.startswith("fastndcg._core._") and not _header_only(dep)]
    assert not bad, "\n".join(bad)
    assert _header_only("fastndcg._core._rank") and not _header_only("fastndcg._core._exact")
    assert "fastndcg._core._rank" in GRAPH["fastndcg.io._parse"]      # -M ranks by the one comparator


#: Every source file of the package, one by one (a ``.pyx`` and its ``.pxd`` share a module name).
_ALL_SOURCE_FILES = sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".pyx", ".pxi", ".pxd")
                           and "__pycache__" not in p.parts)
_REASON = "# over 100 lines: "
#: A Cython function: ``def``, ``cpdef`` or ``cdef`` (any return type, ``inline``) with its name
#: before its parameters; not a ``cdef class/struct/enum/extern`` nor a variable.
_CYTHON_DEF = re.compile(r"^(\s*)(?:async\s+)?(?:def|cpdef|cdef)\s+"
                         r"(?!(?:class|struct|union|enum|extern|packed|fused|readonly)\b)[^=(:#]*?\b(\w+)\s*\(")


def _has_reason(lines: List[str], first: int) -> bool:
    """The line above the function (above its decorators; ``first`` is 0-based) gives its reason."""
    i = first - 1
    while i >= 0 and lines[i].strip().startswith("@"):
        i -= 1
    return i >= 0 and lines[i].strip().startswith(_REASON)


def cython_functions(text: str) -> Dict[str, tuple]:
    """{name: (first line, last line)} (0-based) of each Cython function with a body: from its
    ``def`` to its last line indented deeper (blank and comment lines aside). A simple reader:
    a multi-line string at column 0 would end a body early."""
    lines = text.splitlines()
    out: Dict[str, tuple] = {}
    for i, line in enumerate(lines):
        m = _CYTHON_DEF.match(line)
        if not m:
            continue
        indent, depth, j = len(m.group(1)), 0, i
        while j < len(lines):       # the header: to the line that closes its parentheses
            depth += lines[j].split("#")[0].count("(") - lines[j].split("#")[0].count(")")
            if depth <= 0:
                break
            j += 1
        if j >= len(lines) or not lines[j].split("#")[0].rstrip().endswith(":"):
            continue                # a declaration (.pxd, extern): no body
        end = j
        for k in range(j + 1, len(lines)):
            s = lines[k].strip()
            if not s or s.startswith("#"):
                continue
            if len(lines[k]) - len(lines[k].lstrip()) <= indent:
                break
            end = k
        out[m.group(2) if m.group(2) not in out else f"{m.group(2)}@{i + 1}"] = (i, end)
    return out


def _long_functions_without_a_reason() -> Set[str]:
    """``room/_module.py:function`` of each function over 100 lines without a ``# over 100 lines:
    <why>`` comment on the line above it (above its decorators); Cython's too."""
    out: Set[str] = set()
    for path in _ALL_SOURCE_FILES:
        lines = path.read_text().splitlines()
        if path.suffix == ".py":
            spans = [(node.name, min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1,
                      node.lineno - 1, node.end_lineno - 1) for node in ast.walk(ast.parse("\n".join(lines)))
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
        else:
            spans = [(name, first, first, last) for name, (first, last) in cython_functions("\n".join(lines)).items()]
        for name, top, first, last in spans:
            if last - first >= 100 and not _has_reason(lines, top):
                out.add(f"{path.relative_to(PACKAGE)}:{name}")
    return out


def test_no_module_over_600_lines():
    """Every source file: Python, Cython modules, their includes (.pxi) and headers (.pxd)."""
    over = {str(p.relative_to(PACKAGE.parent)) for p in _ALL_SOURCE_FILES if len(p.read_text().splitlines()) > 600}
    assert over == set(), sorted(over)


def test_no_function_over_100_lines_without_a_reason_beside_it():
    found = _long_functions_without_a_reason()
    assert found == set(), sorted(found)


def test_the_long_function_checks_can_fail(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(100))
    text = ("cdef extern from 'm.h':\n    double erfc(double x) nogil\n"
            "cdef double x = f(2)\ncdef struct S:\n    int a\n\n"
            "cdef inline Py_ssize_t _f(int a,\n                          int b) noexcept nogil:\n" + body +
            "\n# over 100 lines: a reason\n@cython.boundscheck(False)\ndef g():\n    # c\n" + body + "\nh = 1\n")
    assert cython_functions(text) == {"_f": (6, 107), "g": (111, 212)}
    lines = text.splitlines()
    assert not _has_reason(lines, 6) and _has_reason(lines, 111)
    assert "fastndcg/_core/_softrank.pyx" in {str(p.relative_to(PACKAGE.parent)) for p in _ALL_SOURCE_FILES}


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
    GRAPH["fastndcg._core.threads"].add("fastndcg.io._trec")
    GRAPH["fastndcg.io._trec"].add("fastndcg._core.threads")
    try:
        with pytest.raises(AssertionError):
            test_import_direction("_core")
        assert _cycles()
    finally:
        GRAPH["fastndcg._core.threads"].discard("fastndcg.io._trec")


def _only_reexports(path: Path) -> bool:
    """A module (or stub) whose body is only a docstring, imports and ``__all__`` (comments aside;
    a stub may also declare a dunder's type, as the top level's ``__version__: str``)."""
    if path.suffix not in (".py", ".pyi") or path.name == "__main__.py":
        return False
    body = _tree(path).body
    if not body:
        return False
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"]:
            continue
        if (path.suffix == ".pyi" and isinstance(node, ast.AnnAssign) and node.value is None
                and getattr(node.target, "id", "").startswith("__")):
            continue
        return False
    return True


#: The public faces: the top level and the public rooms' ``__init__``. Each public name has one
#: public path, in one of them; everything else is a private module (``_x.py``) or a private room.
FACES = {"fastndcg"} | {f"fastndcg.{room}" for room in ROOMS if not room.startswith("_")}


def test_only_the_public_faces_reexport():
    """No module that only re-exports but the faces (the shims of old paths are gone: 0.1.0 was
    never published). A lazy face (``__init__.pyi`` beside it, read by ``_core/faces.py``) lists
    its names once, as the stub's imports from its own room's private modules (the top level's:
    from the rooms' private modules), and its ``__all__`` is exactly those names."""
    reexports = {name for name, path in SOURCES.items() if _only_reexports(path)}
    assert reexports - FACES == set(), sorted(reexports - FACES)
    lazy = sorted(face for face in FACES if (PACKAGE.parent / face.replace(".", "/") / "__init__.pyi").exists())
    assert lazy == ["fastndcg", "fastndcg.conventions", "fastndcg.integrations", "fastndcg.io", "fastndcg.measures",
                    "fastndcg.report", "fastndcg.stream"]
    for face in lazy:
        stub = PACKAGE.parent / face.replace(".", "/") / "__init__.pyi"
        assert _only_reexports(stub), stub
        tree = _tree(stub)
        imported = [a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom)
                    for a in node.names]
        modules = {node.module for node in tree.body if isinstance(node, ast.ImportFrom)}
        private = (lambda m: "._" in m) if face == "fastndcg" else (lambda m: m.startswith(face + "._"))
        assert all(private(m) and m in _MODULES for m in modules), (face, modules)
        listed = [ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)][0]
        assert sorted(listed) == sorted(imported), (face, set(listed) ^ set(imported))


def test_implementation_modules_are_private():
    """Every module of a public room is private (``_x.py``), as scikit-learn's; ``_core`` is
    a private room as a whole."""
    public = sorted(m for m in SOURCES if _room(m) and not _room(m).startswith("_")
                    and m not in FACES and not m.rpartition(".")[2].startswith("_"))
    assert public == []


def test_the_package_never_imports_a_public_face():
    """Inside the package every import names the private module that holds the code (no detour
    through a face, which would also run every module of that room); the faces import private
    modules only."""
    users = sorted((mod, face) for mod, deps in GRAPH.items() for face in deps & FACES)
    assert users == []


def _defined_names(path: Path) -> Set[str]:
    """Names a Python module defines at its top level (not those it imports)."""
    out: Set[str] = set()
    for node in _tree(path).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return out


def _imports_through_another_module() -> List[str]:
    """``module: from X import name`` where X is a Python module of the package that does not
    define ``name`` (it imported it: a second path to a name)."""
    defined = {m: _defined_names(p) for m, p in SOURCES.items() if p.suffix == ".py" and m not in FACES}
    bad = []
    for mod, path in SOURCES.items():
        if path.suffix != ".py":
            continue
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom) and node.module in defined:
                bad += [f"{mod}: from {node.module} import {a.name}" for a in node.names
                        if a.name not in defined[node.module] and f"{node.module}.{a.name}" not in _MODULES]
    return sorted(bad)


def test_each_name_is_imported_from_where_it_is_defined():
    assert _imports_through_another_module() == []


def test_each_public_object_has_one_public_path():
    """A public name lives in one face's ``__all__``; a face binds nothing else (so no object is
    reachable under two public paths); every public class and function is defined in a private
    module. The reference is the spec: its ``ndcg`` is another object than ``fastndcg.ndcg``."""
    import importlib
    import inspect

    seen: Dict[int, str] = {}
    twice = []
    for face in sorted(FACES):
        module = importlib.import_module(face)
        names = list(module.__all__)
        assert len(names) == len(set(names)), face
        bound = {n for n in vars(module) if not n.startswith("_")} - {"annotations"}
        rooms = {r for r in ROOMS} if face == "fastndcg" else set()
        assert bound - rooms - set(names) == set(), f"{face} binds names it does not list: {sorted(bound - rooms - set(names))}"
        for n in names:
            obj = getattr(module, n)
            if isinstance(obj, (bool, int, float, str, type(None))):
                continue        # a constant: equal values are not one object
            where = getattr(obj, "__module__", None) or ""
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and where.startswith("fastndcg"):
                assert "._" in where or where.startswith("fastndcg._"), f"{face}.{n} is defined in {where}"
            if id(obj) in seen:
                twice.append(f"{seen[id(obj)]} and {face}.{n}")
            seen[id(obj)] = f"{face}.{n}"
    assert twice == []


def test_the_cli_never_imports_the_top_level_package():
    """The CLI is a room like the others: it imports the rooms, not the facade."""
    users = sorted(mod for mod, deps in GRAPH.items() if _room(mod) == "cli" and "fastndcg" in deps)
    assert users == []


# ----------------------------------------------------------------------------- kernels

_KERNEL_SOURCES = sorted(p for pattern in ("_*.pyx", "_*.pxi", "_*.pxd", "_*.pyx.tp")
                         for p in (PACKAGE / "_core").glob(pattern))      # the kernels (io/ has parsers)
_ENTRY = re.compile(r"^[ \t]*(?:cpdef|def)[ \t]+(?:[\w\[\].]+[ \t]+)?(\w+)[ \t]*\(", re.M)
_ENUM_MEMBER = re.compile(r"^[ \t]+([A-Z][A-Z0-9_]*)[ \t]*=[ \t]*(-?\d+)", re.M)
# Every compiled source of the package (kernels and io's parsers): the arity rule covers them all.
_COMPILED_SOURCES = sorted(p for pattern in ("*.pyx", "*.pxi", "*.pxd", "*.pyx.tp") for p in PACKAGE.rglob(pattern))
MAX_KERNEL_ARGUMENTS = 10
# Entry points over the limit: none left (prefix_measures took 20, it takes a PrefixTopics;
# io's parse_trec, parse_svmlight, DocnoIndex.join, place_topics and join_sorted took 12-15,
# they take their outputs / inputs as one object each: TrecOutputs, SvmlightOutputs, ...).
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


def test_compiled_sources_include_the_io_parsers():
    names = {p.relative_to(PACKAGE).as_posix() for p in _COMPILED_SOURCES}
    assert {"_core/_ndcg.pyx", "io/_parse.pyx", "io/_parse_trec.pxi", "io/_parse_join.pxi"} <= names


def test_kernel_entry_points_take_at_most_ten_arguments():
    """Every Python-callable entry point (def / cpdef, methods included) of every
    .pyx / .pxi of the package, io's parsers included."""
    wide = {f"{p.name}:{name}": n for p in _COMPILED_SOURCES
            for name, n in kernel_entry_points(p.read_text()).items() if n > MAX_KERNEL_ARGUMENTS}
    assert set(wide) <= WIDE_ENTRY_POINTS, (
        f"kernel entry points over {MAX_KERNEL_ARGUMENTS} arguments: pass a parameter struct or kernel "
        f"object instead: {dict(sorted((k, v) for k, v in wide.items() if k not in WIDE_ENTRY_POINTS))}")
    assert WIDE_ENTRY_POINTS <= set(wide), f"now narrow, drop from WIDE_ENTRY_POINTS: {WIDE_ENTRY_POINTS - set(wide)}"


def test_kernel_codes_are_defined_once():
    from fastndcg._core import query_checks, resolve, score_checks
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
    python.update((name, getattr(query_checks, name, getattr(score_checks, name, None))) for name in codes
                  if name.startswith(("SCORE_", "LABEL_", "FLAG_", "OFFSETS_")))
    python["PROBLEM_NONE"] = 0
    assert codes == python
    # and no Python module keeps its own table of kernel codes
    tables = sorted(f"{name}: {t.id}" for name, path in SOURCES.items() if path.suffix == ".py"
                    for node in ast.walk(_tree(path)) if isinstance(node, ast.Assign)
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
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fastndcg"):
                for a in node.names:
                    if a.name.startswith("_") and not a.name.startswith("__") \
                            and f"{node.module}.{a.name}" not in _MODULES:
                        out.add(f"{node.module}:{a.name}")
    return out


#: The deliberate friend APIs: private names a module lends another module of its room (at most 20).
FRIENDS = {
    "fastndcg._core.query_checks:_where",           # the position text of a bad value (score and LambdaMART messages)
    "fastndcg._core.query_checks:_value_at",        # a bad value's error with its position (the score checks')
    "fastndcg.cli._options:_gain_spec",              # --gain's argparse type, shared by two parsers
    "fastndcg.cli._options:_note",                   # "fastndcg: note:" on stderr
    "fastndcg.measures._lambdamart_checks:_lambdamart",   # the kernel build chosen at import (baseline or AVX2)
}


def test_compare_renders_what_it_computed_and_never_the_other_way():
    """Computing a comparison and rendering it are two modules: render reads the computed result
    (and builds the public Comparison from it); compute never imports render, and no private name
    crosses between them."""
    compute, render = "fastndcg.report._compare_compute", "fastndcg.report._compare_render"
    assert render not in GRAPH[compute] and compute in GRAPH[render]
    assert not {f for f in _private_names_across_modules() if f.startswith((compute + ":", render + ":"))}


def test_private_names_cross_module_lines_only_as_friends():
    """Before this rule 66 underscore names crossed module lines; the rest became public names of
    their module (``check_mode``, ``UsageError``, ``line_error``, ...)."""
    found = _private_names_across_modules()
    assert len(FRIENDS) <= 20
    assert found == FRIENDS, (f"new: {sorted(found - FRIENDS)}; gone (drop from FRIENDS): "
                              f"{sorted(FRIENDS - found)}")


def test_the_face_checks_can_fail(tmp_path):
    shim = tmp_path / "shim.py"
    shim.write_text('"""Old path."""\nfrom fastndcg.io._trec import read_qrels\n__all__ = ["read_qrels"]\n')
    code = tmp_path / "code.py"
    code.write_text("from fastndcg.io._trec import read_qrels\nX: int = 1\n\ndef f():\n    pass\n")
    assert _only_reexports(shim) and not _only_reexports(code)
    assert _defined_names(code) == {"X", "f"} and _defined_names(shim) == {"__all__"}


# ----------------------------------------------------------------------------- public paths

ROOT = PACKAGE.parent


def _public_paths() -> Dict[str, str]:
    """``private.module.NAME`` -> the one public path of that object (``fastndcg.io.read_qrels``),
    read from the faces: a lazy face's stub, or the ``__init__.py`` and its ``__all__``."""
    out: Dict[str, str] = {}
    for face in sorted(FACES):
        folder = ROOT / face.replace(".", "/")
        path = folder / "__init__.pyi" if (folder / "__init__.pyi").exists() else folder / "__init__.py"
        tree = _tree(path)
        listed = {n for node in tree.body if isinstance(node, ast.Assign)
                  and [getattr(t, "id", None) for t in node.targets] == ["__all__"]
                  for n in ast.literal_eval(node.value)}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fastndcg."):
                for a in node.names:
                    if (a.asname or a.name) in listed:
                        out[f"{node.module}.{a.name}"] = f"{face}.{a.asname or a.name}"
    return out


PUBLIC_PATHS = _public_paths()
#: a dotted reference in text (docstrings, messages, comments, Markdown): fastndcg.room._module.NAME
_DOTTED = re.compile(r"\bfastndcg(?:\.\w+)+")


def _private_dotted(text: str) -> List[tuple]:
    """(line, private path, public path) of each dotted reference to a public object through
    a private module."""
    out = []
    for m in _DOTTED.finditer(text):
        parts = m.group(0).split(".")
        for i in range(2, len(parts)):
            private = ".".join(parts[: i + 1])
            if private in PUBLIC_PATHS:
                out.append((text.count("\n", 0, m.start()) + 1, private, PUBLIC_PATHS[private]))
                break
    return out


_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+fastndcg[\w.]*[ \t]+import|import[ \t]+fastndcg)\b.*$", re.M)


def _private_imports(text: str) -> List[tuple]:
    """(line, private path, public path) of each public object a Python file reaches through a
    private module: ``from fastndcg.x._y import NAME``, or ``NAME`` read as an attribute of a
    private module bound by ``import fastndcg.x._y as m`` / ``from fastndcg.x import _y``.
    Other attributes of a private module (``monkeypatch.setattr(m, "helper", ...)``, private
    names, machinery the face does not list) are the private module's own business."""
    out = []
    modules: Dict[str, str] = {}     # local name -> private module it binds
    for m in _IMPORT.finditer(text):   # each import of fastndcg, parsed alone (a whole file: 10x slower)
        statement = m.group(0)
        if "(" in statement and ")" not in statement:
            statement = text[m.start(): text.index(")", m.start()) + 1]
        end = m.end()
        while statement.rstrip().endswith("\\"):      # a backslash continuation
            end = text.find("\n", end + 1) % (len(text) + 1)
            statement = text[m.start(): end]
        line = text.count("\n", 0, m.start()) + 1
        for node in ast.parse(statement.strip()).body:
            if isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    if full in PUBLIC_PATHS:
                        out.append((line, full, PUBLIC_PATHS[full]))
                    elif full in _MODULES:
                        modules[a.asname or a.name] = full
            elif isinstance(node, ast.Import):
                modules.update((a.asname, a.name) for a in node.names if a.asname and a.name in _MODULES)
    for name, module in modules.items():
        for m in re.finditer(rf"(?<![\w.]){name}\.(\w+)", text):
            full = f"{module}.{m.group(1)}"
            if full in PUBLIC_PATHS:
                out.append((text.count("\n", 0, m.start()) + 1, full, PUBLIC_PATHS[full]))
    return sorted(out)


def _code_blocks(markdown: str) -> str:
    """The Python of a Markdown file's fenced blocks, each block in place (other lines blank, so
    line numbers stay those of the file); blocks that do not parse (shell, output) are left out."""
    lines = markdown.splitlines()
    keep = [""] * len(lines)
    block: List[int] = []
    inside = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            if inside:
                source = "\n".join(lines[j] for j in block)
                try:
                    ast.parse(source)
                except SyntaxError:
                    pass
                else:
                    for j in block:
                        keep[j] = lines[j]
                block = []
            inside = not inside
        elif inside:
            block.append(i)
    import textwrap   # blocks may be indented under a list item
    return textwrap.dedent("\n".join(keep))


def _outside_files() -> List[Path]:
    """What uses the package from outside: tests, benches, fuzz harness, examples, docs."""
    files = [p for d in ("tests", "bench", "fuzz", "examples") for p in sorted((ROOT / d).rglob("*.py"))
             if "__pycache__" not in p.parts and p != Path(__file__).resolve()]   # this file: the examples
    return files + sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]


_QUOTED_PRIVATE = re.compile(r"""["'][^\n]*\bfastndcg(?:\.\w+)*\._""")


def _private_modules_in_messages(text: str) -> List[tuple]:
    """(line, private path, "a message") of each private module a message names: the strings of
    ``raise`` statements and ``warn(...)`` calls of a Python module. A user reads messages; a
    private module is no name of theirs (``fastndcg.integrations._dask needs dask``)."""
    out: List[tuple] = []
    if not _QUOTED_PRIVATE.search(text):
        return out          # no private module after a quote on its line: no message names one
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Raise) and node.exc is not None:
            message = node.exc
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "warn":
            message = node
        else:
            continue
        for sub in ast.walk(message):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                out += [(sub.lineno, m.group(0), "(a message: name a public path)") for m in _DOTTED.finditer(sub.value)
                        if any(part.startswith("_") for part in m.group(0).split(".")[1:])]
    return out


def private_paths_to_public_objects() -> List[str]:
    """``file:line: private path -> public path`` of each place that names a public object by a
    private path: imports and attribute reads outside the package, dotted references in the
    package's docstrings, messages and comments and in the docs' text."""
    hits = []
    for path in _outside_files():
        text = path.read_text()
        found = _private_dotted(text)
        if path.suffix == ".py":
            found += _private_imports(text)
        else:
            found += _private_imports(_code_blocks(text))
        hits += [(path, *f) for f in found]
    for path in sorted(SOURCES.values()) + sorted(PACKAGE.rglob("*.pyi")):
        hits += [(path, *f) for f in _private_dotted(path.read_text())]
        if path.suffix == ".py":
            hits += [(path, *f) for f in _private_modules_in_messages(path.read_text())]
    return sorted({f"{p.relative_to(ROOT)}:{line}: {private} -> {public}" for p, line, private, public in hits})


def test_public_objects_are_named_by_their_public_paths():
    """Tests, benches and docs import a public object as a user does (``from fastndcg import
    rankdcg``, not ``from fastndcg.measures._rankdcg import rankdcg``), and docstrings and
    messages name its public path; the package's modules import each other's private modules."""
    hits = private_paths_to_public_objects()
    assert hits == [], f"{len(hits)} private paths to public objects:\n" + "\n".join(hits)


def test_the_public_path_check_can_fail():
    assert PUBLIC_PATHS["fastndcg.measures._rankdcg.rankdcg"] == "fastndcg.rankdcg"
    assert PUBLIC_PATHS["fastndcg.measures._ndcg.ndcg"] == "fastndcg.ndcg"
    assert PUBLIC_PATHS["fastndcg.reference._ndcg.ndcg"] == "fastndcg.reference.ndcg"
    code = ("import fastndcg.measures._ndcg as m\nfrom fastndcg.io import _trec\n"
            "from fastndcg.measures._rankdcg import rankdcg\n"
            "m.ndcg(1)\nm._helper\n_trec.read_qrels\nmonkeypatch.setattr(m, 'ndcg', None)\n")
    assert _private_imports(code) == [(3, "fastndcg.measures._rankdcg.rankdcg", "fastndcg.rankdcg"),
                                      (4, "fastndcg.measures._ndcg.ndcg", "fastndcg.ndcg"),
                                      (6, "fastndcg.io._trec.read_qrels", "fastndcg.io.read_qrels")]
    assert _private_dotted('"""See :func:`fastndcg.measures._rankdcg.rankdcg`."""\n'
                           "# fastndcg.measures._rankdcg is the module\n") == [
        (1, "fastndcg.measures._rankdcg.rankdcg", "fastndcg.rankdcg")]
    assert _private_modules_in_messages(
        "def f():\n    raise ImportError('fastndcg.integrations._dask needs dask')\n"
        "warnings.warn(f'see fastndcg.rankdcg')\n") == [
        (2, "fastndcg.integrations._dask", "(a message: name a public path)")]
    markdown = "text\n```python\nfrom fastndcg.measures._rankdcg import rankdcg\n```\n```\n$ fastndcg eval\n```\n"
    assert _private_imports(_code_blocks(markdown)) == [
        (3, "fastndcg.measures._rankdcg.rankdcg", "fastndcg.rankdcg")]


# ----------------------------------------------------------------------------- paths that are gone

def _resolvable() -> Dict[str, Set[str]]:
    """``{face: names it resolves}``: its ``__all__`` and the names that left it and still warn."""
    import importlib

    out = {}
    for face in FACES:
        module = importlib.import_module(face)
        out[face] = set(module.__all__) | set(getattr(module, "_DEPRECATED", {}))
    # the top level's and the report's tables of names that left them have their own names
    out["fastndcg"] |= {"LightGBMSoftNDCGObjective", "XGBoostSoftNDCGObjective", "SoftNDCGObjective"}
    out["fastndcg.report"] |= set(importlib.import_module("fastndcg.report")._MOVED)
    out["fastndcg.measures"] |= {"XGBoostRankNDCG"}
    return out


RESOLVABLE = _resolvable()
PUBLIC_NAMES = {face: set(__import__("importlib").import_module(face).__all__) for face in FACES}
#: ``{face: names defined in the private modules of its room}`` (the top level: of any room): the
#: names a text could take for public
_PRIVATE_DEFINED: Dict[str, Set[str]] = {face: set() for face in FACES}
for _mod, _path in SOURCES.items():
    if _path.suffix == ".py" and _mod not in FACES:
        _names = {n for n in _defined_names(_path) if not n.startswith("_")}
        _PRIVATE_DEFINED["fastndcg"] |= _names
        if f"fastndcg.{_room(_mod)}" in _PRIVATE_DEFINED:
            _PRIVATE_DEFINED[f"fastndcg.{_room(_mod)}"] |= _names


_DEPRECATION_NOTE = re.compile(r"deprecat|former|still resolve", re.I)


def _gone_paths(text: str, python: bool, deprecated_too: bool = False) -> List[tuple]:
    """(line, path) of each public path a text names that no face resolves any more: a dotted
    ``fastndcg.<face>.<name>`` (or ``fastndcg.<name>``) whose name is defined in a private module
    of that room but is neither public there nor deprecated, and each ``from fastndcg.<face> import
    <name>`` of Python code that the face does not resolve (a private module aside).
    ``deprecated_too``: a deprecated name counts as gone too, unless the text around it (its line
    and the next to it) says it is deprecated: docs and docstrings name the replacement."""
    out = []
    lines = text.splitlines()
    for m in _DOTTED.finditer(text):
        parts = m.group(0).split(".")
        face = ".".join(parts[:2]) if ".".join(parts[:2]) in FACES else "fastndcg"
        name = parts[face.count(".") + 1] if len(parts) > face.count(".") + 1 else None
        if not name or name.startswith("_") or f"fastndcg.{name}" in FACES or name not in _PRIVATE_DEFINED[face]:
            continue
        line = text.count("\n", 0, m.start()) + 1
        if name not in RESOLVABLE[face]:
            out.append((line, f"{face}.{name}"))
        elif (deprecated_too and name not in PUBLIC_NAMES[face]
              and not _DEPRECATION_NOTE.search(" ".join(lines[max(line - 2, 0): line + 1]))):
            out.append((line, f"{face}.{name} (deprecated)"))
    if python:
        for m in _IMPORT.finditer(text):
            statement = m.group(0)
            if "(" in statement and ")" not in statement:
                statement = text[m.start(): text.index(")", m.start()) + 1]
            try:
                nodes = ast.parse(statement.strip().rstrip("\\")).body
            except SyntaxError:
                continue
            for node in nodes:
                if isinstance(node, ast.ImportFrom) and node.module in FACES:
                    known = PUBLIC_NAMES[node.module] if deprecated_too else RESOLVABLE[node.module]
                    out += [(text.count("\n", 0, m.start()) + 1, f"{node.module}.{a.name}") for a in node.names
                            if not a.name.startswith("_") and a.name not in known
                            and f"{node.module}.{a.name}" not in FACES]
    return out


def gone_public_paths() -> List[str]:
    hits = []
    for path in _outside_files():
        text = path.read_text()
        # tests use the deprecated names on purpose (their warnings are tested)
        hits += [(path, *f) for f in _gone_paths(text, path.suffix == ".py", "tests" not in path.parts)]
        if path.suffix == ".md":
            hits += [(path, *f) for f in _gone_paths(_code_blocks(text), True, True)]
    faces = {ROOT / face.replace(".", "/") / "__init__.py" for face in FACES}
    for path in sorted(SOURCES.values()) + sorted(PACKAGE.rglob("*.pyi")):
        # a face's table of deprecated names names them, with their replacement
        hits += [(path, *f) for f in _gone_paths(path.read_text(), False, path not in faces)]
    return sorted({f"{p.relative_to(ROOT)}:{line}: {what}" for p, line, what in hits})


def test_texts_name_no_public_path_that_is_gone():
    """Docs, docstrings, messages, tests and benches name the public paths of today: a name that
    left a face (issue 35) is named by its replacement, or by its private module where it is
    machinery; a deprecated name still resolves (its warning names the replacement)."""
    hits = gone_public_paths()
    assert hits == [], f"{len(hits)} public paths that are gone:\n" + "\n".join(hits)


def test_the_gone_path_check_can_fail():
    assert _gone_paths("see :func:`fastndcg.measures.textbook_convention` and fastndcg.reference.query_dcg;\n"
                       "fastndcg.measures.rankdcg warns; fastndcg.io.readers was a module; fastndcg.txt\n",
                       False) == [(1, "fastndcg.measures.textbook_convention"), (1, "fastndcg.reference.query_dcg")]
    assert _gone_paths("from fastndcg.conventions import MISSING_TOPICS, as_convention, _presets\n"
                       "from fastndcg import soft_rank_distributions, rankdcg\n", True) == [
        (1, "fastndcg.conventions.as_convention"), (2, "fastndcg.soft_rank_distributions")]
    text = "Use fastndcg.measures.aligned_ndcg(a).\n\n`fastndcg.measures.calc` is deprecated.\n"
    assert _gone_paths(text, False) == []
    assert _gone_paths(text, False, deprecated_too=True) == [(1, "fastndcg.measures.aligned_ndcg (deprecated)")]


#: The members a convention gives the kernels: the compiled kernel plan's (_core/_kernel_plan.pxd).
CONVENTION_MEMBERS = {"table", "last", "linear", "need_integer", "label_limit", "table_holes", "round_f32",
                      "score_limit", "overflow_inf", "tie_mode", "key_desc", "disc", "ideal_disc", "ideal_whole",
                      "cutoffs", "short_limit", "empty_value"}


def kernel_struct_members(text: str) -> Dict[str, Set[str]]:
    """Members declared by each ``cdef struct`` / ``ctypedef struct`` / ``cdef class`` of a Cython
    source (a class's ``cdef`` attributes)."""
    out: Dict[str, Set[str]] = {}
    name: Optional[str] = None
    for line in text.splitlines():
        m = re.match(r"(?:cdef|ctypedef)\s+(?:packed\s+)?(?:struct|class)\s+(\w+)", line)
        if m:
            name = m.group(1)
            out[name] = set()
            continue
        if name is None or not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith("    "):
            name = None
            continue
        if line.startswith("    def ") or line.startswith("        "):
            continue
        decl = re.sub(r"\s*#.*", "", line.strip())
        decl = re.sub(r"^cdef\s+(readonly\s+|public\s+)?", "", decl)
        if decl and not decl.startswith(("def ", "cdef ", "return", "pass", '"""')):
            # the names of "type a" / "type* a[N]" / "type a, b, c"
            out[name].update(re.findall(r"(\w+)\s*(?:\[\w*\])?\s*(?=,|$)", decl))
    return out


def test_a_convention_reaches_the_kernels_as_one_struct():
    """Every family's kernel reads the convention from the compiled kernel plan (ConventionPlan,
    filled once by CompiledPlan): no kernel's own parameter struct or object repeats a member of it,
    so a field a kernel acts on is declared once in Cython."""
    found: Dict[str, Set[str]] = {}
    for p in _KERNEL_SOURCES:
        for struct, members in kernel_struct_members(p.read_text()).items():
            found[f"{p.name}:{struct}"] = members
    assert CONVENTION_MEMBERS <= found["_kernel_plan.pxd:ConventionPlan"]
    copies = {k: sorted(v & CONVENTION_MEMBERS) for k, v in found.items()
              if k != "_kernel_plan.pxd:ConventionPlan" and v & CONVENTION_MEMBERS}
    assert not copies, f"kernel structs that repeat the kernel plan's convention members: {copies}"


def test_the_struct_check_can_fail():
    text = ("cdef struct Config:\n    const double* table\n    bint linear  # x\n    double levels[8]\n\n"
            "cdef class K:\n    cdef const double[::1] disc\n    cdef bint a, key_desc\n\n"
            "    def __init__(self):\n        self.x = 1\n")
    assert kernel_struct_members(text) == {"Config": {"table", "linear", "levels"}, "K": {"disc", "a", "key_desc"}}
