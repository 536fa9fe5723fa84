"""Input validation at the public boundary (private helpers shared by every module).

All helpers raise a :class:`~geomech.errors.GeomechError` subclass whose message names the
input and says what was expected and what was received.
"""

from __future__ import annotations

import numpy as np

from geomech.errors import DimensionError, InertiaError, NonFiniteError, NotOnManifoldError

__all__ = [
    "as_array",
    "check_finite",
    "check_rotation",
    "check_spd",
    "check_symmetric",
    "default_rng",
]

#: Default tolerance for membership tests (orthonormality, symmetry).
MANIFOLD_TOL = 1e-6


def _shape_str(shape) -> str:
    return "(..., " + ", ".join(str(s) for s in shape) + ")" if shape else "(...)"


def check_finite(x: np.ndarray, name: str) -> np.ndarray:
    """Raise :class:`NonFiniteError` if ``x`` has NaN or infinite entries."""
    if not np.all(np.isfinite(x)):
        raise NonFiniteError(f"Expected `{name}` to be finite, got NaN or inf entries.")
    return x


def as_array(x, name: str, trailing_shape: tuple[int, ...] = (), *, finite: bool = True) -> np.ndarray:
    """Convert ``x`` to a float array whose last dimensions are ``trailing_shape``.

    Parameters
    ----------
    x : array_like
        The input.
    name : str
        Name used in error messages.
    trailing_shape : tuple of int
        Required trailing dimensions; any number of leading (batch) dimensions is allowed.
    finite : bool
        Whether to reject NaN/inf entries.

    Raises
    ------
    DimensionError
        If the trailing dimensions differ from ``trailing_shape``.
    NonFiniteError
        If ``finite`` and ``x`` has a NaN or infinite entry.
    """
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise DimensionError(f"Expected `{name}` to be a numeric array, got {type(x).__name__}.") from exc
    k = len(trailing_shape)
    if arr.ndim < k or tuple(arr.shape[arr.ndim - k :]) != tuple(trailing_shape):
        raise DimensionError(
            f"Expected `{name}` to have shape {_shape_str(trailing_shape)}, got {arr.shape}."
        )
    if finite:
        check_finite(arr, name)
    return arr


def check_symmetric(M: np.ndarray, name: str, tol: float = MANIFOLD_TOL) -> np.ndarray:
    """Raise :class:`InertiaError` unless ``M`` (..., n, n) is symmetric to ``tol`` (relative)."""
    asym = np.max(np.abs(M - np.swapaxes(M, -1, -2)), initial=0.0)
    scale = max(1.0, float(np.max(np.abs(M), initial=0.0)))
    if asym > tol * scale:
        raise InertiaError(f"Expected `{name}` to be symmetric, got asymmetry {asym:.3g}.")
    return M


def check_spd(M: np.ndarray, name: str, tol: float = MANIFOLD_TOL) -> np.ndarray:
    """Raise :class:`InertiaError` unless ``M`` (..., n, n) is symmetric positive definite."""
    check_symmetric(M, name, tol)
    eig = np.linalg.eigvalsh(0.5 * (M + np.swapaxes(M, -1, -2)))
    lam = float(np.min(eig, initial=np.inf))
    if not lam > 0.0:
        raise InertiaError(
            f"Expected `{name}` to be positive definite, got smallest eigenvalue {lam:.3g}."
        )
    return M


def check_rotation(R: np.ndarray, name: str, tol: float = MANIFOLD_TOL) -> np.ndarray:
    """Raise :class:`NotOnManifoldError` unless ``R`` (..., 3, 3) is a rotation to ``tol``."""
    n = R.shape[-1]
    err = np.max(np.abs(R @ np.swapaxes(R, -1, -2) - np.eye(n)), initial=0.0)
    if err > tol:
        raise NotOnManifoldError(
            f"Expected `{name}` to be orthonormal (R Rᵀ = I), got deviation {err:.3g} > {tol:g}."
        )
    det = np.linalg.det(R)
    if np.any(det <= 0):
        raise NotOnManifoldError(f"Expected `{name}` to have determinant +1, got {np.min(det):.3g}.")
    return R


def default_rng(rng=None) -> np.random.Generator:
    """Normalise ``rng`` (None, int seed or Generator) to a :class:`numpy.random.Generator`."""
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(rng)
