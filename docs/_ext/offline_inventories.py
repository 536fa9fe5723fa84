"""Intersphinx inventories that need no network: generated from the installed packages.

The documentation links to NumPy, SciPy, networkx, geomstats and matplotlib through
intersphinx, and is built where only the package registries are reachable (CI), so the
projects' ``objects.inv`` files cannot be downloaded at build time, and copying them from
the projects' sites into this repository is not an option either. Instead this module writes
an ``objects.inv`` for each project from the package installed in the build environment: it
walks the public modules listed below, records their public classes, functions, methods and
the modules themselves, and gives each the address it has in that project's published
documentation (each project builds its API pages with autosummary/automodule in a fixed
layout, encoded in :data:`LAYOUTS`). The result covers the installed version exactly, and
every cross-reference the geomech docs make resolves offline.

Set ``GEOMECH_DOCS_INTERSPHINX=online`` to use the projects' own inventories instead (for a
build with network access); the links then follow those exactly.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import zlib
from pathlib import Path

#: project -> (documentation root, modules to walk)
PROJECTS = {
    "numpy": ("https://numpy.org/doc/stable/",
              ["numpy", "numpy.linalg", "numpy.random", "numpy.fft", "numpy.polynomial"]),
    "scipy": ("https://docs.scipy.org/doc/scipy/",
              ["scipy.integrate", "scipy.linalg", "scipy.optimize", "scipy.spatial.transform",
               "scipy.interpolate", "scipy.signal", "scipy.sparse", "scipy.special",
               "scipy.stats"]),
    "networkx": ("https://networkx.org/documentation/stable/",
                 ["networkx", "networkx.drawing.nx_pylab", "networkx.drawing.layout"]),
    "matplotlib": ("https://matplotlib.org/stable/",
                   ["matplotlib.pyplot", "matplotlib.animation", "matplotlib.figure",
                    "matplotlib.axes", "matplotlib.colors", "matplotlib.lines",
                    "matplotlib.patches", "matplotlib.image", "mpl_toolkits.mplot3d.axes3d"]),
    "python": ("https://docs.python.org/3/", []),
    "geomstats": ("https://geomstats.github.io/",
                  ["geomstats.geometry.connection", "geomstats.geometry.riemannian_metric",
                   "geomstats.geometry.euclidean", "geomstats.geometry.special_euclidean",
                   "geomstats.geometry.special_orthogonal", "geomstats.geometry.product_manifold",
                   "geomstats.geometry.invariant_metric", "geomstats.geometry.lie_group",
                   "geomstats.geometry.hypersphere", "geomstats.geometry.poincare_half_space",
                   "geomstats.geometry.manifold", "geomstats.numerics.geodesic",
                   "geomstats.numerics.ivp", "geomstats.numerics.optimization"]),
}  # fmt: skip


#: Entries that are not Python objects of the walked modules: glossary terms, labels and the
#: Python builtins numpydoc links types to (``bool``, ``array_like``, ``callable``, ...).
EXTRA = {
    "numpy": [
        ("array_like", "std:term", "glossary.html#term-array_like", "array_like"),
        ("array-like", "std:term", "glossary.html#term-array_like", "array-like"),
        ("arrays.scalars", "std:label", "reference/arrays.scalars.html#arrays-scalars", "Scalars"),
        ("numpy.inf", "py:data", "reference/constants.html#numpy.inf", "-"),
        ("numpy.nan", "py:data", "reference/constants.html#numpy.nan", "-"),
    ],
    "python": [
        ("None", "py:data", "library/constants.html#None", "-"),
        ("True", "py:data", "library/constants.html#True", "-"),
        ("False", "py:data", "library/constants.html#False", "-"),
        *[
            (t, "py:class", f"library/stdtypes.html#{t}", "-")
            for t in ("list", "tuple", "str", "dict", "set", "frozenset", "bytes")
        ],
        *[
            (t, "py:class", f"library/functions.html#{t}", "-")
            for t in ("int", "float", "complex", "bool", "object", "slice", "range")
        ],
        ("callable", "py:function", "library/functions.html#callable", "-"),
        (
            "contextlib.contextmanager",
            "py:function",
            "library/contextlib.html#contextlib.contextmanager",
            "-",
        ),
        (
            "collections.namedtuple",
            "py:function",
            "library/collections.html#collections.namedtuple",
            "-",
        ),
        ("os.PathLike", "py:class", "library/os.html#os.PathLike", "-"),
        ("typing.final", "py:function", "library/typing.html#typing.final", "-"),
        ("xml.etree.ElementTree", "py:module", "library/xml.etree.elementtree.html", "-"),
        ("xml.parsers.expat", "py:module", "library/pyexpat.html", "-"),
        ("pathlib.Path", "py:class", "library/pathlib.html#pathlib.Path", "-"),
        *[
            (t, "std:term", f"glossary.html#term-{t}", t)
            for t in ("iterable", "sequence", "generator", "mapping", "hashable")
        ],
        (
            "bltin-boolean-values",
            "std:label",
            "library/stdtypes.html#bltin-boolean-values",
            "Boolean Type - bool",
        ),
    ],
}


def _numpy(kind, name, owner):
    if kind == "module":
        return "reference/index.html#module-" + name
    if name.startswith("numpy.random."):
        if name in ("numpy.random.Generator", "numpy.random.default_rng"):
            return "reference/random/generator.html#" + name
        return "reference/random/generated/$.html#$"
    return "reference/generated/$.html#$"


def _scipy(kind, name, owner):
    if kind == "module":
        return "reference/" + name.split(".", 1)[1] + ".html#module-" + name
    return "reference/generated/$.html#$"


_NX_CLASSES = {"Graph", "DiGraph", "MultiGraph", "MultiDiGraph"}


def _networkx(kind, name, owner):
    parts = name.split(".")
    if kind == "module":
        return "reference/index.html#module-" + name
    if len(parts) >= 2 and parts[1] in _NX_CLASSES:
        if len(parts) == 2:
            return f"reference/classes/{parts[1].lower()}.html#$"
        return "reference/classes/generated/$.html#$"
    full = owner + "." + parts[-1]  # pages are named after the defining module
    if owner.startswith("networkx.algorithms"):
        return f"reference/algorithms/generated/{full}.html#{full}"
    return f"reference/generated/{full}.html#{full}"


def _matplotlib(kind, name, owner):
    if kind == "module":
        short = name.split(".")[-1]
        return f"api/{short}_api.html#module-{name}"
    if name.startswith("mpl_toolkits.mplot3d"):
        return "api/_as_gen/$.html#$"
    return "api/_as_gen/$.html#$"


def _geomstats(kind, name, owner):
    section = name.split(".")[1] if "." in name else "index"
    return f"api/{section}.html#" + ("module-" + name if kind == "module" else "$")


LAYOUTS = {"numpy": _numpy, "scipy": _scipy, "networkx": _networkx,
           "matplotlib": _matplotlib, "geomstats": _geomstats}  # fmt: skip


def _public(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    for n in names:
        try:
            yield n, getattr(module, n)
        except AttributeError:
            continue


def _entries(project: str):
    """``(name, domain:role, uri)`` of the public objects of a project's modules."""
    layout = LAYOUTS.get(project)
    seen = set()
    for modname in PROJECTS[project][1]:
        try:
            module = importlib.import_module(modname)
        except ImportError:
            continue
        if modname not in seen:
            seen.add(modname)
            yield modname, "py:module", layout("module", modname, modname)
        for attr, obj in _public(module):
            if inspect.ismodule(obj):
                continue
            owner = getattr(obj, "__module__", None) or modname
            if owner.split(".")[0] not in (project, modname.split(".")[0]):
                continue  # re-exported from elsewhere (abc.ABC, contextlib, ...)
            name = f"{modname}.{attr}"
            if inspect.isclass(obj):
                role = "py:exception" if issubclass(obj, BaseException) else "py:class"
            elif callable(obj):
                role = "py:function"
            else:
                continue
            for key in sorted({name, f"{owner}.{attr}"}):
                if key not in seen and "._" not in key:
                    seen.add(key)
                    yield key, role, layout(role, key, owner)
            if inspect.isclass(obj):
                for meth in dir(obj):  # inherited members too: each class page lists them
                    if meth.startswith("_"):
                        continue
                    try:
                        member = inspect.getattr_static(obj, meth)
                    except AttributeError:
                        continue
                    if not (
                        callable(member)
                        or isinstance(member, (property, classmethod, staticmethod))
                    ):
                        continue
                    mrole = "py:attribute" if isinstance(member, property) else "py:method"
                    key = f"{name}.{meth}"
                    if key not in seen:
                        seen.add(key)
                        yield key, mrole, layout(mrole, key, owner)


def write_inventory(project: str, path: Path) -> int:
    """Write ``path`` (Sphinx inventory version 2) for ``project``; return the entry count."""
    if project == "python":
        version = ".".join(map(str, sys.version_info[:2]))
    else:
        version = getattr(importlib.import_module(project), "__version__", "")
    lines = [f"{name} {role} 1 {uri.replace('$', name)} -" for name, role, uri in _entries(project)]
    lines += [f"{name} {role} -1 {uri} {disp}" for name, role, uri, disp in EXTRA.get(project, [])]
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {project}\n"
        f"# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    ).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header + zlib.compress(("\n".join(lines) + "\n").encode()))
    return len(lines)


def intersphinx_mapping(directory: Path, online: bool = False) -> dict:
    """The ``intersphinx_mapping`` of conf.py: generated local inventories unless ``online``."""
    mapping = {}
    for project, (root, _) in PROJECTS.items():
        if online:
            mapping[project] = (root, None)
            continue
        path = Path(directory) / f"{project}.inv"
        try:
            write_inventory(project, path)
        except ImportError:
            continue
        mapping[project] = (root, str(path))
    return mapping
