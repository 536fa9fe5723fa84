"""Helpers for matrix groups and homogeneous matrices ``[[R, p], [0, 1]]`` (private)."""

from __future__ import annotations

import numpy as np

from geomech._validation import check_rotation
from geomech.errors import NotOnManifoldError
from geomech.lie.base import LieGroup

__all__ = [
    "HomogeneousGroup",
    "MatrixGroup",
    "check_homogeneous",
    "homogeneous",
    "homogeneous_inverse",
]


def check_homogeneous(g: np.ndarray, name: str, tol: float, k: int) -> None:
    """Check the last row ``[0, ..., 0, 1]`` and the leading ``k × k`` rotation block."""
    n = g.shape[-1]
    last = np.zeros(n)
    last[-1] = 1.0
    dev = np.max(np.abs(g[..., -1, :] - last), initial=0.0)
    if dev > tol:
        row = "[" + ", ".join(["0"] * (n - 1) + ["1"]) + "]"
        raise NotOnManifoldError(
            f"Expected `{name}` to have last row {row}, got deviation {dev:.3g} > {tol:g}."
        )
    check_rotation(g[..., :k, :k], f"{name}[..., :{k}, :{k}]", tol)


def homogeneous(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Assemble ``[[R, p], [0, 1]]`` from ``R`` (..., k, k) and ``p`` (..., m), m ≥ k."""
    m = p.shape[-1]
    k = R.shape[-1]
    shape = np.broadcast_shapes(R.shape[:-2], p.shape[:-1])
    g = np.zeros(shape + (m + 1, m + 1))
    g[..., :m, :m] = np.eye(m)
    g[..., :k, :k] = R
    g[..., :m, m] = p
    g[..., m, m] = 1.0
    return g


def homogeneous_inverse(g: np.ndarray) -> np.ndarray:
    """``[[R, p], [0, 1]]⁻¹ = [[Rᵀ, -Rᵀ p], [0, 1]]`` (``R`` orthogonal)."""
    n = g.shape[-1]
    R = g[..., : n - 1, : n - 1]
    Rt = np.swapaxes(R, -1, -2)
    p = g[..., : n - 1, n - 1]
    out = np.zeros_like(g)
    out[..., : n - 1, : n - 1] = Rt
    out[..., : n - 1, n - 1] = -np.einsum("...ij,...j->...i", Rt, p)
    out[..., n - 1, n - 1] = 1.0
    return out


class MatrixGroup(LieGroup):
    """A group of ``matrix_size × matrix_size`` matrices: identity ``1``, product ``a @ b``.

    Shared by SO(3), SE(2), SE(3) and the Schönflies group, which differ only in their maps.
    """

    def _identity(self):
        return np.eye(self.matrix_size)

    def _compose(self, a, b):
        return a @ b


class HomogeneousGroup(MatrixGroup):
    """A group of homogeneous matrices ``[[R, p], [0, 1]]`` (``R`` orthogonal).

    The inverse is the closed form :func:`homogeneous_inverse`.
    """

    def _inverse(self, g):
        return homogeneous_inverse(g)
