"""sympy, imported once for :mod:`geomech.symbolic`, or an error that names the extra to install."""

from geomech.errors import OptionalDependencyError

try:
    import sympy
except ImportError as exc:  # pragma: no cover - the test environment has sympy
    raise OptionalDependencyError(
        "geomech.symbolic needs sympy: pip install 'geomech[symbolic]'."
    ) from exc

__all__ = ["sympy"]
