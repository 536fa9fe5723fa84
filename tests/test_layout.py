"""The layout of issue 23, checked on the source: subpackages by role, layers, one public home.

- ``geomech/multibody`` has at most eight top-level modules; its subpackages import only the
  ones below them: ``_kernels`` < ``connections`` < ``algorithms`` < ``model`` < ``closed``
  < ``io``;
- no class is longer than 700 lines; no public module path contains ``kernels``;
- no public name is bound to two different objects in two public modules;
- no module fills another module's table at import time (no registry by side effect);
- the old paths still import, with a DeprecationWarning, and 0.1.0 pickles load.
"""

import ast
import importlib
import inspect
import pickle
import pkgutil
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import geomech

ROOT = Path(geomech.__file__).resolve().parent
MULTIBODY = ROOT / "multibody"
#: the subpackages of geomech.multibody, bottom layer first
LAYERS = ["_kernels", "connections", "algorithms", "model", "closed", "io"]
DATA = Path(__file__).resolve().parent / "data" / "pickles"


def _public_modules():
    return sorted(
        m.name
        for m in pkgutil.walk_packages(geomech.__path__, "geomech.")
        if not any(part.startswith("_") for part in m.name.split("."))
    )


def test_multibody_has_at_most_eight_top_level_modules():
    modules = [p.name for p in MULTIBODY.glob("*.py") if p.name != "__init__.py"]
    assert len(modules) <= 8, modules
    assert {p.name for p in MULTIBODY.iterdir() if (p / "__init__.py").exists()} == set(LAYERS)


def test_no_class_longer_than_700_lines():
    long = []
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > 700:
                long.append(f"{path.relative_to(ROOT)}:{node.name}")
    assert long == []


def test_no_public_module_path_contains_kernels():
    assert [m for m in _public_modules() if "kernels" in m] == []


def test_one_object_per_public_name():
    """A name exported by several public modules is the same object in all of them."""
    seen = {}
    clashes = []
    for name in _public_modules():
        mod = importlib.import_module(name)
        for attr in getattr(mod, "__all__", []):
            obj = getattr(mod, attr)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if attr in seen and seen[attr][1] is not obj:
                clashes.append(f"{attr}: {seen[attr][0]} and {name}")
            seen.setdefault(attr, (name, obj))
    assert clashes == []


def _layer(module: str):
    parts = module.split(".")
    if parts[:2] != ["geomech", "multibody"] or len(parts) < 3:
        return None
    return LAYERS.index(parts[2]) if parts[2] in LAYERS else None


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            for alias in node.names:
                yield f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def test_multibody_layers_import_downward_only():
    upward = []
    for path in MULTIBODY.rglob("*.py"):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        here = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        mine = _layer(here)
        if mine is None:
            continue
        for target in _imports(path):
            theirs = _layer(target)
            if theirs is not None and theirs > mine:
                upward.append(f"{here} imports {target}")
    assert upward == []


def test_the_layer_check_can_fail():
    assert _layer("geomech.multibody.io.urdf") > _layer("geomech.multibody._kernels.driver")
    assert _layer("geomech.multibody._compat") is None


def test_no_module_fills_another_modules_table_at_import_time():
    """No top-level ``other.TABLE.update(...)``, ``other.TABLE[k] = ...`` or
    ``Class.attr = ...`` on an imported name: variants live next to what they extend."""
    offences = []
    for path in ROOT.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            (alias.asname or alias.name).split(".")[0]
            for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for alias in node.names
        }
        for node in tree.body:
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                func = node.value.func
                if isinstance(func, ast.Attribute) and func.attr in ("update", "setdefault"):
                    targets = [func.value]
            for target in targets:
                base = target
                while isinstance(base, (ast.Attribute, ast.Subscript)):
                    base = base.value
                if target is not base and isinstance(base, ast.Name) and base.id in imported:
                    offences.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offences == []


# ----------------------------------------------------------------------------------------
# compatibility with 0.1.0: old paths (one release, with a warning) and pickles
# ----------------------------------------------------------------------------------------
OLD_PATHS = {
    "geomech.multibody.dynamics": "geomech.multibody.algorithms.dynamics",
    "geomech.multibody.loops": "geomech.multibody.closed.model",
    "geomech.multibody.urdf_plus": "geomech.multibody.io.examples",
    "geomech.multibody.kernels.dynamics": "geomech.multibody._kernels.tree.dynamics",
    "geomech.multibody.kernels.cluster_dynamics": "geomech.multibody._kernels.cluster.dynamics",
    "geomech.multibody.system_connection": "geomech.multibody.model.connection",
}


@pytest.mark.parametrize("old", sorted(OLD_PATHS))
def test_old_paths_import_with_a_deprecation_warning(old, monkeypatch):
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match="moved to"):
        module = importlib.import_module(old)
    new = importlib.import_module(OLD_PATHS[old])
    assert (
        module is new
        or vars(module).items()
        >= {k: v for k, v in vars(new).items() if not k.startswith("__")}.items()
    )


def test_old_attribute_paths_warn(monkeypatch):
    import geomech.multibody as mb

    monkeypatch.delattr(mb, "dynamics", raising=False)  # set by an import of the old path

    with pytest.warns(DeprecationWarning, match="geomech.multibody.dynamics moved"):
        crba = mb.dynamics.crba
    assert crba is geomech.crba
    with pytest.raises(AttributeError):
        mb.no_such_module  # noqa: B018


def _load(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with open(DATA / name, "rb") as fh:
            return pickle.load(fh)


@pytest.mark.parametrize(
    "name, build",
    [
        ("double_pendulum_0.1.0.pkl", lambda: geomech.robots.double_pendulum()),
        ("four_bar_0.1.0.pkl", lambda: geomech.multibody.io.load_example("four_bar")),
        ("geared_chain_0.1.0.pkl", lambda: geomech.multibody.io.load_example("geared_chain")),
    ],
)
def test_models_pickled_by_0_1_0_load(name, build):
    """A model pickled before the move loads and has the dynamics of one built now."""
    old, new = _load(name), build()
    assert type(old) is type(new) and (old.nq, old.nv) == (new.nq, new.nv)
    q = new.random_configuration(rng=0)
    v = np.linspace(-1.0, 1.0, new.nv)
    assert np.allclose(geomech.crba(old, q), geomech.crba(new, q), rtol=0, atol=1e-14)
    assert np.allclose(geomech.rnea(old, q, v, v), geomech.rnea(new, q, v, v), rtol=0, atol=1e-13)
