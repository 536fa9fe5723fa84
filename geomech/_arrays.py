"""Unvalidated batched array helpers shared by the package.

A private module meant for sharing (like ``geomech._validation``): the one home of the
small products every layer needs on stacks of matrices. The inputs are validated arrays with
leading batch dimensions that broadcast.
"""

from __future__ import annotations

import numpy as np

__all__ = ["matvec", "mT"]


def matvec(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Batched matrix-vector product ``A @ x``: (..., m, n), (..., n) -> (..., m)."""
    return np.matmul(A, x[..., None])[..., 0]


def mT(A: np.ndarray) -> np.ndarray:
    """Batched transpose: (..., m, n) -> (..., n, m)."""
    return np.swapaxes(A, -1, -2)
