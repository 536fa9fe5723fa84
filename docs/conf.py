"""Sphinx configuration of the geomech documentation."""

import os
import re
import sys

sys.path.insert(0, os.path.abspath(".."))
os.environ.setdefault("MPLBACKEND", "Agg")

import geomech  # noqa: E402

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
    "sphinx_gallery.gen_gallery",
]

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

intersphinx_mapping = {}

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
}

templates_path = []
exclude_patterns = ["_build", "auto_tutorials/*.ipynb", "auto_tutorials/*.py"]
html_theme = "pydata_sphinx_theme"
html_title = "geomech"
html_theme_options = {"navigation_with_keys": False}
suppress_warnings = ["config.cache"]


_STAR_NAMES = re.compile(r"([(,]\s*)\*(\w+)")


def _escape_star_shapes(app, what, name, obj, options, lines):
    """Docstrings write shapes as ``(..., *point_shape)``; escape the star for docutils."""
    lines[:] = [
        line
        if "``" in line or line.lstrip().startswith((">>>", "..."))
        else _STAR_NAMES.sub(r"\1\\*\2", line)
        for line in lines
    ]


def setup(app):
    app.connect("autodoc-process-docstring", _escape_star_shapes)
