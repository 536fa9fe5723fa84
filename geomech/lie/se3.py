"""SE(3): rigid motions as 4×4 homogeneous matrices, coordinates ``[ω; v]`` (angular first)."""

from __future__ import annotations

import numpy as np

from geomech.lie import _coefficients as co
from geomech.lie._homogeneous import HomogeneousGroup, check_homogeneous, homogeneous
from geomech.lie._maps import (
    _blocks,
    _check_jacobian_invertible,
    _random_quaternion,
    _skew,
    _so3_exp,
    _so3_left_jacobian,
    _so3_left_jacobian_inverse,
    _so3_log,
    _unskew,
)
from geomech.lie.quaternion import quat_to_matrix

__all__ = ["SE3Group", "SE3"]


def _q_block(w: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Lower-left block ``Q(ω, v)`` of the SE(3) left Jacobian (Barfoot 2017, eq. 7.86).

    Barfoot writes ``Q(ρ, φ)`` for ``[ρ; φ]`` order; here ``ρ = v`` and ``φ = ω``.
    """
    theta = np.linalg.norm(w, axis=-1)
    W, P = _skew(w), _skew(v)
    WP, PW = W @ P, P @ W
    WPW = WP @ W
    WW = W @ W
    c1 = co.x_minus_sin_over_x3(theta)[..., None, None]
    c2 = co.se3_c2(theta)[..., None, None]
    c3 = co.se3_c3(theta)[..., None, None]
    return (
        0.5 * P
        + c1 * (WP + PW + WPW)
        + c2 * (WW @ P + P @ WW - 3.0 * WPW)
        + c3 * (WPW @ W + W @ WPW)
    )


class SE3Group(HomogeneousGroup):
    r"""The special Euclidean group SE(3) acting on 4×4 homogeneous matrices.

    An element is ``g = [[R, p], [0, 1]]``; Lie-algebra coordinates are the twist
    ``xi = [ω; v]`` (angular FIRST, Featherstone's order, :ref:`conventions-spatial-vectors`;
    seed 003 uses ``[v; ω]``) with ``hat(xi) = [[ω̂, v], [0, 0]]``. In this order

    .. math:: \operatorname{Ad}(g) = \begin{bmatrix} R & 0 \\ \hat p R & R \end{bmatrix},
              \qquad
              \operatorname{ad}(\xi) = \begin{bmatrix} \hat\omega & 0 \\
              \hat v & \hat\omega \end{bmatrix}

    (``ad`` is Featherstone's ``crm``). ``exp(xi) = [[exp(ω), J_l(ω) v], [0, 1]]`` with the
    SO(3) left Jacobian ``J_l(ω)``; ``log`` uses the SO(3) log and ``J_l(ω)⁻¹``. The Jacobians
    are ``J_l(xi) = [[J_l(ω), 0], [Q(ω, v), J_l(ω)]]`` (Barfoot's ``Q`` block) and
    ``J_l(xi)⁻¹ = [[J⁻¹, 0], [-J⁻¹ Q J⁻¹, J⁻¹]]``; ``det J_r = (2(1 - cos θ)/θ²)²``, singular
    at ``θ = |ω| = 2πk``.

    References
    ----------
    seed 003 §1.1, §1.3, §2.3 (eq. 8, Table 1; there ``[v; ω]``); T. D. Barfoot, *State
    Estimation for Robotics*, 2017, §7.1.5 (eq. 7.86).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE3
    >>> g = SE3.exp([0.0, 0.0, np.pi / 2, 1.0, 0.0, 0.0])  # screw about z
    >>> np.round(g[:3, 3], 6)
    array([0.63662, 0.63662, 0.     ])
    """

    name = "SE(3)"
    dim = 6
    point_shape = (4, 4)
    matrix_size = 4

    def _exp(self, xi):
        w, v = xi[..., :3], xi[..., 3:]
        p = np.einsum("...ij,...j->...i", _so3_left_jacobian(w), v)
        return homogeneous(_so3_exp(w), p)

    def _log(self, g):
        w = _so3_log(g[..., :3, :3])
        # θ ≤ π on the principal branch, so J_l(ω)⁻¹ is regular here.
        v = np.einsum("...ij,...j->...i", _so3_left_jacobian_inverse(w), g[..., :3, 3])
        return np.concatenate([w, v], axis=-1)

    def _hat(self, xi):
        X = np.zeros(xi.shape[:-1] + (4, 4))
        X[..., :3, :3] = _skew(xi[..., :3])
        X[..., :3, 3] = xi[..., 3:]
        return X

    def _vee(self, X):
        return np.concatenate([_unskew(X[..., :3, :3]), X[..., :3, 3]], axis=-1)

    def _Ad(self, g):
        R, p = g[..., :3, :3], g[..., :3, 3]
        return _blocks(R, np.zeros_like(R), _skew(p) @ R, R)

    def _check_point(self, g, name, tol):
        check_homogeneous(g, name, tol, 3)

    def _random(self, rng, shape):
        R = quat_to_matrix(_random_quaternion(rng, shape))
        return homogeneous(R, rng.standard_normal(shape + (3,)))

    def _left_jacobian(self, xi):
        w, v = xi[..., :3], xi[..., 3:]
        J = _so3_left_jacobian(w)
        return _blocks(J, np.zeros_like(J), _q_block(w, v), J)

    def _left_jacobian_inverse(self, xi):
        w, v = xi[..., :3], xi[..., 3:]
        _check_jacobian_invertible(np.linalg.norm(w, axis=-1), self.name)
        Ji = _so3_left_jacobian_inverse(w, self.name)
        return _blocks(Ji, np.zeros_like(Ji), -Ji @ _q_block(w, v) @ Ji, Ji)

    def to_geomstats(self):
        """Return geomstats' ``SpecialEuclidean(3)`` in matrix form.

        Elements are the same 4×4 matrices and geomstats' Lie-algebra matrices are
        ``hat(xi) = [[ω̂, v], [0, 0]]``, so ``exp``/``log``/``compose``/``inverse`` agree
        matrix for matrix. (geomstats' *vector* form ``[rotation vector; translation]`` is a
        different chart: its second half is the translation ``p``, not ``v``.)

        Returns
        -------
        geomstats.geometry.special_euclidean._SpecialEuclideanMatrices
            ``SpecialEuclidean(n=3)`` (``point_type="matrix"``).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE3
        >>> xi = np.array([0.3, -0.2, 0.5, 1.0, 2.0, 3.0])
        >>> bool(np.allclose(SE3.to_geomstats().exp(SE3.hat(xi)), SE3.exp(xi)))
        True
        """
        from geomstats.geometry.special_euclidean import SpecialEuclidean

        return SpecialEuclidean(n=3)

    def __repr__(self) -> str:
        return "SE3"


#: The rigid-motion group SE(3) (4×4 matrices; coordinates ``[ω; v]``).
SE3 = SE3Group()
