"""Architecture rules checked on the source: the error policy and an acyclic import graph."""

import ast
import builtins
from pathlib import Path

import networkx as nx
import pytest

import geomech.errors

ROOT = Path(__file__).resolve().parents[1] / "geomech"
SOURCES = sorted(ROOT.rglob("*.py"))

#: builtins public code may raise: interpreter control flow, abstract-method markers and the
#: AttributeError of a module ``__getattr__`` (the protocol of attribute lookup)
ALLOWED_BUILTINS = {
    "SystemExit",
    "KeyboardInterrupt",
    "StopIteration",
    "NotImplementedError",
    "AttributeError",
}


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _raised_name(node: ast.Raise):
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    if isinstance(exc, ast.Name):
        return exc.id
    if isinstance(exc, ast.Attribute):
        return exc.attr
    return None  # re-raise of a bound exception object: checked where it was built


def _offences():
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Raise) or node.exc is None:
                continue
            name = _raised_name(node)
            if name is None or name in ALLOWED_BUILTINS:
                continue
            builtin = getattr(builtins, name, None)
            if isinstance(builtin, type) and issubclass(builtin, BaseException):
                yield f"{path.relative_to(ROOT.parent)}:{node.lineno} raises {name}"
            elif name == "GeomechError":
                yield f"{path.relative_to(ROOT.parent)}:{node.lineno} raises the bare base class"


def test_every_raise_is_a_named_geomech_error():
    """No public code raises a plain builtin exception or the bare base class."""
    assert list(_offences()) == []


@pytest.mark.parametrize(
    "name", [n for n in geomech.errors.__all__ if n.endswith("Error") and n != "GeomechError"]
)
def test_every_error_subclasses_a_builtin_too(name):
    cls = getattr(geomech.errors, name)
    assert issubclass(cls, geomech.errors.GeomechError)
    assert any(base.__module__ == "builtins" and base is not Exception for base in cls.__mro__)


def _imports(path: Path, here: str):
    """geomech modules imported by a module, at its top level or lazily inside functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("geomech"):
                    yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            if base.startswith("geomech"):
                yield base
                for alias in node.names:  # `from package import submodule`
                    yield f"{base}.{alias.name}"


def test_module_imports_form_no_cycle():
    """Layers import downward only: no cycle, not even through a lazy (in-function) import."""
    modules = {_module(p): p for p in SOURCES}
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        for target in _imports(path, name):
            if target in modules and target != name:
                graph.add_edge(name, target)
    # a package importing its own submodules (re-exports) is not a cycle of concepts
    for name in list(graph):
        for target in list(graph.successors(name)):
            if target.startswith(name + "."):
                graph.remove_edge(name, target)
    cycles = list(nx.simple_cycles(graph))
    assert cycles == [], f"import cycles: {cycles[:5]}"


# ----------------------------------------------------------------------------------------
# one home per helper: no private name imported from a module that is not meant for sharing
# ----------------------------------------------------------------------------------------
#: Packages whose modules may share private helpers among themselves (the numba kernels
#: call each other's jitted helpers; they are one implementation layer).
PRIVATE_SHARING_PACKAGES = ("geomech.multibody._kernels",)


def _is_sharing_module(module: str) -> bool:
    """A private module (``geomech._validation``, ``geomech.lie._maps``, ...) is meant for it."""
    return module.rpartition(".")[2].startswith("_")


def _private_imports():
    modules = {_module(p) for p in SOURCES}
    for path in SOURCES:
        here = _module(path)
        package = here if path.name == "__init__.py" else here.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                source = ".".join(anchor + ([source] if source else []))
            for alias in node.names:
                name = alias.name
                if not name.startswith("_") or name.startswith("__"):
                    continue
                if f"{source}.{name}" in modules:  # a private module, itself meant for sharing
                    continue
                if _is_sharing_module(source):
                    continue
                if any(
                    here.startswith(p + ".") and source.startswith(p + ".")
                    for p in PRIVATE_SHARING_PACKAGES
                ):
                    continue
                yield f"{here}:{node.lineno} imports {name} from {source}"


def test_no_private_name_is_imported_across_modules():
    """A helper shared by several modules lives in a module meant for it (a private module such
    as ``geomech/_validation.py``, ``geomech/_arrays.py``, ``geomech/lie/_maps.py``), or is
    public where it lives (issue 14 item 4)."""
    assert list(_private_imports()) == []


def test_the_private_import_check_can_fail(tmp_path, monkeypatch):
    """The scan above flags a private import from a public module (and only that)."""
    pkg = tmp_path / "geomech"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text("def _helper():\n    pass\n")
    (pkg / "sub" / "_shared.py").write_text("def _ok():\n    pass\n")
    (pkg / "sub" / "b.py").write_text(
        "from geomech.sub.a import _helper\nfrom geomech.sub._shared import _ok\n"
        "from geomech.sub import _shared\n"
    )
    monkeypatch.setitem(globals(), "ROOT", pkg)
    monkeypatch.setitem(globals(), "SOURCES", sorted(pkg.rglob("*.py")))
    assert list(_private_imports()) == ["geomech.sub.b:1 imports _helper from geomech.sub.a"]
