"""Checks shared by the tracking laws of :mod:`geomech.control`: gains and references."""

from __future__ import annotations

import numpy as np

from ..errors import DimensionError, NonFiniteError, ParameterError

__all__: list[str] = []


def _gain(K, n: int, name: str) -> np.ndarray:
    """A scalar or ``(n, n)`` gain as a finite positive-definite ``(n, n)`` matrix."""
    K = np.asarray(K, dtype=float)
    if K.ndim == 0:
        K = K * np.eye(n)
    if K.shape != (n, n):
        raise DimensionError(
            f"Expected `{name}` to be a scalar or of shape {(n, n)}, got {K.shape}."
        )
    if not np.all(np.isfinite(K)):
        raise NonFiniteError(f"Expected `{name}` to be finite.")
    sym = 0.5 * (K + K.T)
    if np.linalg.eigvalsh(sym).min() <= 0.0:
        raise ParameterError(
            f"Expected `{name}` to be positive definite, got eigenvalues of its symmetric part "
            f"{np.linalg.eigvalsh(sym)}."
        )
    return K


def _three(ref) -> tuple:
    """``reference(t)`` as the tuple ``(q_d, v_d, a_d)``."""
    ref = tuple(ref)
    if len(ref) != 3:
        raise ParameterError(
            f"Expected `reference(t)` to return (q_d, v_d, a_d), got {len(ref)} items."
        )
    return ref
