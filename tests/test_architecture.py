"""Architecture rules checked on the source: the error policy and an acyclic import graph."""

import ast
import builtins
from pathlib import Path

import networkx as nx
import pytest

import geomech.errors

ROOT = Path(__file__).resolve().parents[1] / "geomech"
SOURCES = sorted(ROOT.rglob("*.py"))

#: builtins public code may raise: interpreter control flow and abstract-method markers
ALLOWED_BUILTINS = {"SystemExit", "KeyboardInterrupt", "StopIteration", "NotImplementedError"}


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


@pytest.mark.parametrize("name", [n for n in geomech.errors.__all__
                                  if n.endswith("Error") and n != "GeomechError"])
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
