"""Sphinx configuration of the geomech documentation."""

import os
import re
import sys
from pathlib import Path

# geomech is the installed package (``pip install -e '.[docs]'`` for this checkout), with its
# numba cache: putting the source tree first here would import a second copy of the package
# whose kernels all compile again (minutes of the build; issue 29).
sys.path.insert(0, os.path.abspath("_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")
# tutorial 09 starts a dask cluster: keep its INFO logging out of the build output
os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "error")

from offline_inventories import intersphinx_mapping as _inventories  # noqa: E402

import geomech  # noqa: E402
from geomech import _precompile  # noqa: E402

# On a cold numba cache (a fresh install) compile the main kernel families in parallel worker
# processes now, before sphinx-gallery runs the tutorials one after the other; with a filled
# cache this only checks the cache (a second).
_precompile.compile_families(_precompile.missing(_precompile.FAMILIES))

project = "geomech"
author = "geomech developers"
copyright = "2026, geomech developers"
release = version = geomech.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "sphinx.ext.viewcode",
    "numpydoc",
    # one page per public object and per public module, written into generated/
    "api_pages",
    "sphinx_gallery.gen_gallery",
    # MathJax 3 copied into _static: the math renders without network access
    "sphinx-mathjax-offline",
]

# The API pages are written by _ext/api_pages.py (one per object, under the module that
# defines it); autosummary only draws their tables.
autosummary_generate = False
autodoc_default_options = {"members": True, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# Link the types of Parameters/Returns that have a page (here or in a linked project) and
# leave every other word ("array_like", "shape", "optional", ...) as plain text.
numpydoc_xref_param_type = True
numpydoc_xref_ignore = "all"
numpydoc_xref_aliases = {
    "ndarray": "numpy.ndarray",
    "numpy.ndarray": "numpy.ndarray",
    "numpy.random.Generator": "numpy.random.Generator",
    "networkx.DiGraph": "networkx.DiGraph",
    "matplotlib.animation.FuncAnimation": "matplotlib.animation.FuncAnimation",
    "mpl_toolkits.mplot3d.axes3d.Axes3D": "mpl_toolkits.mplot3d.axes3d.Axes3D",
    "MultibodyModel": "geomech.multibody.model.tree.MultibodyModel",
    "MechanicalSystem": "geomech.geometry.system.MechanicalSystem",
    "AffineConnection": "geomech.geometry.connection.AffineConnection",
    "SimulationResult": "geomech.simulation.SimulationResult",
    "Trajectory": "geomech.geometry.geodesics.Trajectory",
    "geomstats.geometry.connection.Connection": "geomstats.geometry.connection.Connection",
    "geomstats.geometry.riemannian_metric.RiemannianMetric": (
        "geomstats.geometry.riemannian_metric.RiemannianMetric"
    ),
}

# Intersphinx without network: inventories generated from the installed packages (see
# _ext/offline_inventories.py for why and how); GEOMECH_DOCS_INTERSPHINX=online fetches the
# projects' own inventories instead.
intersphinx_mapping = _inventories(
    Path(__file__).parent / "_build" / "intersphinx",
    online=os.environ.get("GEOMECH_DOCS_INTERSPHINX") == "online",
)
intersphinx_timeout = 5

sphinx_gallery_conf = {
    "examples_dirs": "../tutorials",
    "gallery_dirs": "auto_tutorials",
    "filename_pattern": r"/\d\d_",
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "remove_config_comments": True,
    "download_all_examples": False,
    "show_signature": False,
    # only what a tutorial prints or draws appears on the page (no stray Text(...) reprs)
    "capture_repr": (),
    # animations (geomech.plot.animate) are embedded as JavaScript players
    "matplotlib_animations": (True, "jshtml"),
    # "Examples using X" on each API page (the minigallery that _ext/api_pages.py writes)
    "doc_module": ("geomech",),
    "backreferences_dir": "generated/backreferences",
}

templates_path = []
exclude_patterns = ["_build", "auto_tutorials/*.ipynb", "auto_tutorials/*.py"]
html_theme = "pydata_sphinx_theme"
html_title = "geomech"
_TUTORIALS = Path(__file__).resolve().parent.parent / "tutorials"
html_theme_options = {
    "navigation_with_keys": False,
    # tutorial pages print tables and code 100 columns wide: no right-hand sidebar there
    "secondary_sidebar_items": {
        "**": ["page-toc", "sourcelink"],
        # exact page names: a second wildcard would overlap "**" (a theme warning)
        **{f"auto_tutorials/{p.stem}": [] for p in _TUTORIALS.glob("*.py")},
    },
}
html_static_path = ["_static"]
html_css_files = ["geomech.css"]
suppress_warnings = ["config.cache"]


# A star that unpacks a name inside a shape tuple: "(..., *point_shape)", "(*batch, 3)",
# "(..., *group.point_shape)". The name is followed by "," or ")" (or "]"), so emphasis that
# happens to follow a comma ("Featherstone, *Rigid Body Dynamics Algorithms*") is left alone.
_STAR_NAMES = re.compile(r"([(,\[]\s*)\*([\w.]+)(?=[,)\]])")


def _escape_star_shapes(app, what, name, obj, options, lines):
    r"""Docstrings write shapes as ``(..., *point_shape)``; escape the star for docutils.

    Examples
    --------
    >>> lines = ["q : array_like, shape (..., *point_shape)", "Hairer, *Geometric Integration*,",
    ...          "(*size, *group.point_shape)", "Murray, *Robotics*, 1994 (*RBDA*)"]
    >>> _escape_star_shapes(None, "function", "f", None, {}, lines)
    >>> for line in lines:
    ...     print(line)
    q : array_like, shape (..., \*point_shape)
    Hairer, *Geometric Integration*,
    (\*size, \*group.point_shape)
    Murray, *Robotics*, 1994 (*RBDA*)
    """
    lines[:] = [
        line
        if "``" in line or line.lstrip().startswith((">>>", "..."))
        else _STAR_NAMES.sub(r"\1\\*\2", line)
        for line in lines
    ]


def _documented_once(app, what, name, obj, skip, options):
    """One page per object: a package's page lists the names it re-exports (its autosummary
    table) but leaves their documentation to the module that defines them, so no object is
    described twice under two names (issue 29)."""
    import sys

    home = getattr(obj, "__module__", None)
    package = sys.modules.get(getattr(app.env, "temp_data", {}).get("autodoc:module") or "")
    if (
        what == "module"
        and package is not None
        and hasattr(package, "__path__")
        and isinstance(home, str)
        and home.startswith(package.__name__ + ".")
    ):
        return True
    return None  # no opinion: autodoc's and autosummary's own rules decide


def _forwarding_new(app, what, name, obj, options, signature, return_annotation):
    """A class whose ``__new__`` only dispatches, ``(*args, adaptation=None, **kwargs)``, is
    shown with its ``__init__``'s parameters (and the keyword-only ones ``__new__`` adds).

    Examples
    --------
    >>> class A:
    ...     def __new__(cls, *args, flag=None, **kwargs):
    ...         return super().__new__(cls)
    ...     def __init__(self, x, y=1):
    ...         pass
    >>> _forwarding_new(None, "class", "A", A, {}, "(*args, flag=None, **kwargs)", None)
    ('(x, y=1, *, flag=None)', None)
    """
    import inspect

    new = getattr(obj, "__new__", None)
    if what not in ("class", "exception") or new is object.__new__ or "__init__" not in vars(obj):
        return None
    try:
        new_sig, init_sig = inspect.signature(new), inspect.signature(obj.__init__)
    except (TypeError, ValueError):
        return None
    if not any(p.kind is p.VAR_POSITIONAL for p in new_sig.parameters.values()):
        return None
    params = list(init_sig.parameters.values())[1:]  # without self
    names = {p.name for p in params}
    extra = [
        p for p in new_sig.parameters.values() if p.kind is p.KEYWORD_ONLY and p.name not in names
    ]
    tail = [p for p in params if p.kind is p.VAR_KEYWORD]
    head = [p for p in params if p.kind is not p.VAR_KEYWORD]
    shown = init_sig.replace(parameters=head + extra + tail, return_annotation=init_sig.empty)
    return str(shown), return_annotation


def setup(app):
    app.connect("autodoc-process-signature", _forwarding_new)
    app.connect("autodoc-process-docstring", _escape_star_shapes)
    app.connect("autodoc-skip-member", _documented_once)
