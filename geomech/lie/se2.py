"""SE(2): planar rigid motions as 3×3 homogeneous matrices, coordinates ``[ω; vx; vy]``.

The module-level private kernels (``_se2_*``) act on the planar parts ``(ω, v)`` and
``(R, p)`` and are reused by the Schönflies group (SE(2) × R).
"""

from __future__ import annotations

import numpy as np

from geomech.errors import SingularityError
from geomech.lie import _coefficients as co
from geomech.lie._homogeneous import check_homogeneous, homogeneous, homogeneous_inverse
from geomech.lie.base import LieGroup
from geomech.lie.so3 import SINGULAR_TOL

__all__ = ["SE2Group", "SE2"]

_J = np.array([[0.0, -1.0], [1.0, 0.0]])  # planar 90° rotation: Rot(ω) = cos ω I + sin ω J


def _rot2(w: np.ndarray) -> np.ndarray:
    c, s = np.cos(w), np.sin(w)
    return np.stack([c, -s, s, c], axis=-1).reshape(np.shape(w) + (2, 2))


def _mv(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.einsum("...ij,...j->...i", A, x)


def _perp(v: np.ndarray) -> np.ndarray:
    """``-J v = [v_y, -v_x]``."""
    return np.stack([v[..., 1], -v[..., 0]], axis=-1)


def _se2_V(w: np.ndarray) -> np.ndarray:
    # V(ω) = [[sin ω, cos ω - 1], [1 - cos ω, sin ω]] / ω = sinc(ω/2) Rot(ω/2): the half-angle
    # form is free of cancellation near ω = 0.
    return co.sinc(0.5 * w)[..., None, None] * _rot2(0.5 * w)


def _se2_exp(w: np.ndarray, v: np.ndarray):
    return _rot2(w), _mv(_se2_V(w), v)


def _se2_log(R: np.ndarray, p: np.ndarray):
    # Principal angle in (-π, π]; atan2 of the averaged entries (robust to small drift).
    w = np.arctan2(R[..., 1, 0] - R[..., 0, 1], R[..., 0, 0] + R[..., 1, 1])
    w = np.where(w <= -np.pi, np.pi, w)
    # V⁻¹ = Rot(-ω/2) / sinc(ω/2), regular for |ω| ≤ π.
    v = _mv(_rot2(-0.5 * w), p) / co.sinc(0.5 * w)[..., None]
    return w, v


def _se2_Ad(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    # Ad(g) [ω; v] = [ω; R v - ω J p]  =>  [[1, 0], [-J p, R]]
    A = np.zeros(R.shape[:-2] + (3, 3))
    A[..., 0, 0] = 1.0
    A[..., 1:, 0] = _perp(p)
    A[..., 1:, 1:] = R
    return A


def _se2_left_jacobian(w: np.ndarray, v: np.ndarray) -> np.ndarray:
    # ad(ξ) = [[0, 0], [c, ω J]] with c = -J v, so ad^k = [[0, 0], [(ωJ)^{k-1} c, (ωJ)^k]] and
    # J_l = Σ ad^k/(k+1)! = [[1, 0], [W c, V]],  W = Σ (ωJ)^{k-1}/(k+1)! = B I + ω C J,
    # B = (1 - cos ω)/ω², C = (ω - sin ω)/ω³.
    V = _se2_V(w)
    B = co.one_minus_cos_over_x2(w)[..., None, None]
    C = co.x_minus_sin_over_x3(w)[..., None, None]
    W = B * np.eye(2) + (w[..., None, None] * C) * _J
    Jl = np.zeros(w.shape + (3, 3))
    Jl[..., 0, 0] = 1.0
    Jl[..., 1:, 0] = _mv(W, _perp(v))
    Jl[..., 1:, 1:] = V
    return Jl


def _se2_left_jacobian_inverse(w: np.ndarray, v: np.ndarray, group: str) -> np.ndarray:
    # [[1, 0], [a, V]]⁻¹ = [[1, 0], [-V⁻¹ a, V⁻¹]], V⁻¹ = Rot(-ω/2)/sinc(ω/2): singular at ω = 2πk.
    if np.any((np.abs(w) > np.pi) & (np.abs(np.sin(0.5 * w)) < SINGULAR_TOL)):
        raise SingularityError(
            f"The Jacobian of exp on {group} is singular at `xi` (rotation angle 2πk, k ≥ 1)."
        )
    Jl = _se2_left_jacobian(w, v)
    Vinv = _rot2(-0.5 * w) / co.sinc(0.5 * w)[..., None, None]
    out = np.zeros_like(Jl)
    out[..., 0, 0] = 1.0
    out[..., 1:, 0] = -_mv(Vinv, Jl[..., 1:, 0])
    out[..., 1:, 1:] = Vinv
    return out


class SE2Group(LieGroup):
    r"""The planar rigid-motion group SE(2) acting on 3×3 homogeneous matrices.

    An element is ``g = [[R(θ), p], [0, 1]]``; coordinates are ``xi = [ω; vx; vy]`` (angular
    first; seed 003 writes ``[u, v, r]`` = ``[vx, vy, ω]``) with
    ``hat(xi) = [[0, -ω, vx], [ω, 0, vy], [0, 0, 0]]``. Brackets ``[E_0, E_1] = E_2``,
    ``[E_0, E_2] = -E_1``, ``[E_1, E_2] = 0``;
    ``Ad(g) = [[1, 0, 0], [p_y, R], [-p_x, R]]`` (rows), ``ad(xi) = [[0, 0, 0], [v_y, 0, -ω],
    [-v_x, ω, 0]]``.

    .. math:: \exp(\xi) = \begin{bmatrix} R(\omega) & V(\omega) v \\ 0 & 1
              \end{bmatrix}, \qquad V(\omega) = \frac{1}{\omega}
              \begin{bmatrix} \sin\omega & \cos\omega - 1 \\ 1 - \cos\omega &
              \sin\omega \end{bmatrix}

    ``log`` returns ``ω ∈ (-π, π]`` (``+π`` at exactly ``π``). ``det J_r = 2(1 - cos ω)/ω²``:
    the inverse Jacobians raise :class:`~geomech.errors.SingularityError` at ``ω = 2πk``.

    References
    ----------
    seed 003 §2.4 (eqs. 77-87), §1.3 (``S_SE2`` reference values).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE2
    >>> g = SE2.exp([np.pi / 2, 1.0, 0.0])
    >>> np.round(g[:2, 2], 6)
    array([0.63662, 0.63662])
    """

    name = "SE(2)"
    dim = 3
    point_shape = (3, 3)
    matrix_size = 3

    def _identity(self):
        return np.eye(3)

    def _compose(self, a, b):
        return a @ b

    def _inverse(self, g):
        return homogeneous_inverse(g)

    def _exp(self, xi):
        R, p = _se2_exp(xi[..., 0], xi[..., 1:])
        return homogeneous(R, p)

    def _log(self, g):
        w, v = _se2_log(g[..., :2, :2], g[..., :2, 2])
        return np.concatenate([w[..., None], v], axis=-1)

    def _hat(self, xi):
        X = np.zeros(xi.shape[:-1] + (3, 3))
        X[..., 0, 1] = -xi[..., 0]
        X[..., 1, 0] = xi[..., 0]
        X[..., :2, 2] = xi[..., 1:]
        return X

    def _vee(self, X):
        return np.stack([X[..., 1, 0], X[..., 0, 2], X[..., 1, 2]], axis=-1)

    def _Ad(self, g):
        return _se2_Ad(g[..., :2, :2], g[..., :2, 2])

    def _check_point(self, g, name, tol):
        check_homogeneous(g, name, tol, 2)

    def _random(self, rng, shape):
        w = rng.uniform(-np.pi, np.pi, size=shape)
        return homogeneous(_rot2(w), rng.standard_normal(shape + (2,)))

    def _left_jacobian(self, xi):
        return _se2_left_jacobian(xi[..., 0], xi[..., 1:])

    def _left_jacobian_inverse(self, xi):
        return _se2_left_jacobian_inverse(xi[..., 0], xi[..., 1:], self.name)

    def to_geomstats(self):
        """Return geomstats' ``SpecialEuclidean(2)`` in matrix form.

        Elements are the same 3×3 matrices and geomstats' Lie-algebra matrices are
        ``hat(xi)``, so ``exp``/``log``/``compose``/``inverse`` agree matrix for matrix.

        Returns
        -------
        geomstats.geometry.special_euclidean._SpecialEuclideanMatrices
            ``SpecialEuclidean(n=2)`` (``point_type="matrix"``).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE2
        >>> xi = np.array([0.5, 0.3, -0.2])
        >>> bool(np.allclose(SE2.to_geomstats().exp(SE2.hat(xi)), SE2.exp(xi)))
        True
        """
        from geomstats.geometry.special_euclidean import SpecialEuclidean

        return SpecialEuclidean(n=2)

    def __repr__(self) -> str:
        return "SE2"


#: The planar rigid-motion group SE(2) (3×3 matrices; coordinates ``[ω; vx; vy]``).
SE2 = SE2Group()
