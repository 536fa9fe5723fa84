"""Every public name is exported through ``__all__`` and documented with a runnable example."""

import importlib
import inspect
import pkgutil

import pytest

import geomech

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(geomech.__path__, "geomech.")
    if not any(part.startswith("_") for part in m.name.split("."))
)


def public_objects():
    for modname in MODULES:
        mod = importlib.import_module(modname)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == modname:
                yield pytest.param(obj, id=f"{modname}.{name}")


@pytest.mark.parametrize("modname", MODULES)
def test_module_has_all_and_docstring(modname):
    mod = importlib.import_module(modname)
    assert mod.__doc__, f"{modname} has no docstring"
    assert hasattr(mod, "__all__"), f"{modname} has no __all__"
    for name in mod.__all__:
        assert hasattr(mod, name), f"{modname}.__all__ lists missing {name}"


@pytest.mark.parametrize("obj", list(public_objects()))
def test_public_object_documented_with_example(obj):
    doc = inspect.getdoc(obj) or ""
    assert doc, f"{obj.__qualname__} has no docstring"
    if inspect.isclass(obj) and issubclass(obj, Exception):
        return  # one-line docstrings suffice for exceptions
    assert "Examples" in doc and ">>>" in doc, f"{obj.__qualname__} lacks a runnable example"
