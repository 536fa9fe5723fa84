"""Old module paths of ``geomech.multibody`` (before 0.2.0), kept for one release.

0.2.0 moved the flat modules into subpackages by role (issue 23). Importing an old path
(``geomech.multibody.dynamics``, ``geomech.multibody.kernels.dynamics``, ...) or reading it as
an attribute of :mod:`geomech.multibody` still works, gives the new module, and warns with a
:class:`DeprecationWarning` naming it. Pickles made by 0.1.0 name these paths too: they load
through the same table. This module goes in 0.3.0.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

__all__ = ["MOVED", "install"]

_MB = "geomech.multibody"

#: old module path -> new module path (0.1.0 -> 0.2.0)
MOVED = {
    f"{_MB}.{old}": f"{_MB}.{new}"
    for old, new in {
        "joints": "model.joints",
        "frame": "model.frame",
        "urdf": "io.urdf",
        "urdf_plus": "io.examples",
        "robots": "io.robots",
        "dynamics": "algorithms.dynamics",
        "kinematics": "algorithms.kinematics",
        "coriolis": "algorithms.coriolis",
        "christoffel": "algorithms.christoffel",
        "derivatives": "algorithms.derivatives",
        "regressor": "algorithms.regressor",
        "loops": "closed.model",
        "clusters": "closed.clusters",
        "closures": "closed.closures",
        "closed_dynamics": "closed.dynamics",
        "closed_coriolis": "closed.coriolis",
        "body_connections": "connections.body",
        "system_connection": "model.connection",
        "kernels": "_kernels",
        "kernels.compiled": "_kernels.compiled",
        "kernels.driver": "_kernels.driver",
        "kernels.joints": "_kernels.joints",
        "kernels.spatial": "_kernels.spatial",
        "kernels.linalg": "_kernels.linalg",
        "kernels.status": "_kernels.status",
        "kernels.views": "_kernels.views",
        **{
            f"kernels.{m}": f"_kernels.tree.{m}"
            for m in (
                "dynamics",
                "kinematics",
                "kinematics_batch",
                "coriolis",
                "christoffel",
                "derivatives",
                "regressor",
                "chart",
                "tracking",
                "tensor",
            )
        },
        **{f"kernels.cluster_{m}": f"_kernels.cluster.{m}" for m in ("compiled", "constraints")},
        "kernels.cluster_dynamics": "_kernels.cluster.dynamics",
        "kernels.cluster_coriolis": "_kernels.cluster.coriolis",
    }.items()
}


#: private names of 0.1.0 that its pickles refer to, by old module: {old name: new module}
_PICKLED = {
    f"{_MB}.loops": {
        "_Coupling": f"{_MB}.closed.constraints:Coupling",
        "_LoopJoint": f"{_MB}.closed.constraints:LoopJoint",
    }
}


def moved(old: str):
    """The new module of an old path, imported, with a :class:`DeprecationWarning`."""
    new = MOVED[old]
    warnings.warn(
        f"{old} moved to {new} in geomech 0.2.0; the old path goes in 0.3.0.",
        DeprecationWarning,
        stacklevel=3,
    )
    module = importlib.import_module(new)
    if old not in _PICKLED:
        return module
    # a module of its own for the old name: the new module's names, and the classes that
    # 0.1.0 pickles name by their old private names
    shim = types.ModuleType(old, module.__doc__)
    shim.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
    for name, target in _PICKLED[old].items():
        where, _, attr = target.partition(":")
        setattr(shim, name, getattr(importlib.import_module(where), attr))
    return shim


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        return moved(spec.name)

    def exec_module(self, module):
        sys.modules[module.__name__] = module  # the new module object serves the old name


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname in MOVED:
            return importlib.util.spec_from_loader(fullname, _Loader())
        return None


def install() -> None:
    """Let the old paths import (once per process)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
