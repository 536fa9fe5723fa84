"""Lazy attributes of a package (PEP 562): its submodules and re-exported names, imported on
first use.

``import geomech`` then costs a few milliseconds instead of importing numba, networkx and
every kernel module (about a second): a name is imported when it is first read
(``geomech.rnea``, ``from geomech import rnea``) and then kept on the package, so later
reads are plain attribute lookups. :func:`attach` gives a package its ``__getattr__`` and
``__dir__``; the package keeps its explicit ``__all__``.

Examples
--------
>>> import sys
>>> from geomech._lazy import attach
>>> getattr_, dir_ = attach("geomech", submodules=["lie"], names={"SO3": "geomech.lie"})
>>> getattr_("SO3").name
'SO(3)'
>>> "lie" in dir_()
True
"""

from __future__ import annotations

import importlib
import sys

__all__ = ["attach"]


def attach(package: str, submodules=(), names=None):
    """``__getattr__`` and ``__dir__`` for ``package``: lazy submodules and re-exported names.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    submodules : iterable of str
        Submodules read as attributes (``package.sub``), imported on first read.
    names : dict, optional
        ``{name: module}``: ``package.name`` is ``module.name``, imported on first read.

    Returns
    -------
    tuple of callable
        ``(__getattr__, __dir__)``, to be bound at the package's top level.

    Raises
    ------
    AttributeError
        From ``__getattr__``, for a name that is neither (the attribute protocol).

    Examples
    --------
    >>> from geomech._lazy import attach
    >>> getattr_, _ = attach("geomech.lie", names={"SE3": "geomech.lie.se3"})
    >>> getattr_("SE3").dim
    6
    """
    submodules = frozenset(submodules)
    names = dict(names or {})

    def __getattr__(name: str):
        if name in names:
            value = getattr(importlib.import_module(names[name]), name)
        elif name in submodules:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)  # the next read is a plain lookup
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | submodules | set(names))

    return __getattr__, __dir__
