"""The Schönflies group X(z) ≅ SE(2) × R: translations in x, y, z and rotations about z."""

from __future__ import annotations

import numpy as np

from geomech.errors import NotOnManifoldError
from geomech.lie._homogeneous import HomogeneousGroup, check_homogeneous, homogeneous
from geomech.lie._maps import (
    _rot2,
    _se2_Ad,
    _se2_exp,
    _se2_left_jacobian,
    _se2_left_jacobian_inverse,
    _se2_log,
)

__all__ = ["SchoenfliesGroup", "Schoenflies"]


def _with_z(A: np.ndarray) -> np.ndarray:
    """``blockdiag(A, 1)`` for a planar 3×3 block ``A`` (batched)."""
    out = np.zeros(A.shape[:-2] + (4, 4))
    out[..., :3, :3] = A
    out[..., 3, 3] = 1.0
    return out


class SchoenfliesGroup(HomogeneousGroup):
    r"""The Schönflies group X(z) (SCARA motions) acting on 4×4 homogeneous matrices.

    An element is ``g = [[Rz(θ), p], [0, 1]]`` with ``Rz`` a rotation about z only and
    ``p ∈ R³``; coordinates are ``xi = [ω_z; vx; vy; vz]`` (angular first; seed 003 writes
    ``[u, v, w, r]``) with ``hat(xi) = [[0, -ω_z, 0, vx], [ω_z, 0, 0, vy], [0, 0, 0, vz],
    [0, 0, 0, 0]]`` (the restriction of the SE(3) hat). The group is ``SE(2) × R``: the
    ``(ω_z, vx, vy)`` part follows :class:`~geomech.lie.se2.SE2Group` and ``vz`` is central,
    so ``Ad``, ``ad`` and the Jacobians are ``blockdiag(SE(2) block, 1)`` (resp. ``0``).

    .. math:: \exp(\xi) = \begin{bmatrix} R_z(\omega_z) & \begin{bmatrix}
              V(\omega_z) v_{xy} \\ v_z \end{bmatrix} \\ 0 & 1 \end{bmatrix}

    ``log`` returns ``ω_z ∈ (-π, π]``; the inverse Jacobians are singular at ``ω_z = 2πk``.

    References
    ----------
    seed 003 §2.5 (eqs. 88-96).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import Schoenflies
    >>> g = Schoenflies.exp([np.pi / 2, 0.0, 0.0, 0.5])
    >>> np.round(g, 6) + 0.0
    array([[ 0. , -1. ,  0. ,  0. ],
           [ 1. ,  0. ,  0. ,  0. ],
           [ 0. ,  0. ,  1. ,  0.5],
           [ 0. ,  0. ,  0. ,  1. ]])
    """

    name = "Schoenflies"
    dim = 4
    point_shape = (4, 4)
    matrix_size = 4

    def _exp(self, xi):
        R, pxy = _se2_exp(xi[..., 0], xi[..., 1:3])
        return homogeneous(R, np.concatenate([pxy, xi[..., 3:]], axis=-1))

    def _log(self, g):
        w, vxy = _se2_log(g[..., :2, :2], g[..., :2, 3])
        return np.concatenate([w[..., None], vxy, g[..., 2:3, 3]], axis=-1)

    def _hat(self, xi):
        X = np.zeros(xi.shape[:-1] + (4, 4))
        X[..., 0, 1] = -xi[..., 0]
        X[..., 1, 0] = xi[..., 0]
        X[..., :3, 3] = xi[..., 1:]
        return X

    def _vee(self, X):
        return np.stack([X[..., 1, 0], X[..., 0, 3], X[..., 1, 3], X[..., 2, 3]], axis=-1)

    def _Ad(self, g):
        return _with_z(_se2_Ad(g[..., :2, :2], g[..., :2, 3]))

    def _check_point(self, g, name, tol):
        dev = np.max(np.abs(g[..., 2, :3] - [0.0, 0.0, 1.0]), initial=0.0)
        dev = max(dev, np.max(np.abs(g[..., :2, 2]), initial=0.0))
        if dev > tol:
            raise NotOnManifoldError(
                f"Expected `{name}` to rotate about z only (g[2, :3] = [0, 0, 1], "
                f"g[:2, 2] = 0), got deviation {dev:.3g} > {tol:g}."
            )
        check_homogeneous(g, name, tol, 2)

    def _random(self, rng, shape):
        w = rng.uniform(-np.pi, np.pi, size=shape)
        return homogeneous(_rot2(w), rng.standard_normal(shape + (3,)))

    def _left_jacobian(self, xi):
        return _with_z(_se2_left_jacobian(xi[..., 0], xi[..., 1:3]))

    def _left_jacobian_inverse(self, xi):
        return _with_z(_se2_left_jacobian_inverse(xi[..., 0], xi[..., 1:3], self.name))

    def to_geomstats(self):
        """Return geomstats' ``SpecialEuclidean(3)`` (matrix form), of which X(z) is a subgroup.

        geomstats has no Schönflies group (nor an SE(2) × R group product). The closest construction
        is SE(3) restricted to X(z): Schönflies elements *are* SE(3) matrices, ``hat(xi)`` *is* the
        se(3) matrix with ``ω = [0, 0, ω_z]``, and the subgroup is closed under geomstats'
        ``compose``/``inverse``/``exp``, while geomstats' ``log`` of a Schönflies element returns
        ``hat(log(g))``. Do not use geomstats' ``random_configuration`` or metrics of that space for
        X(z): they live on all of SE(3).

        Returns
        -------
        geomstats.geometry.special_euclidean._SpecialEuclideanMatrices
            ``SpecialEuclidean(n=3)`` (``point_type="matrix"``).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import Schoenflies
        >>> xi = np.array([0.5, 0.3, -0.2, 1.0])
        >>> gs_space = Schoenflies.to_geomstats()
        >>> bool(np.allclose(gs_space.exp(Schoenflies.hat(xi)), Schoenflies.exp(xi)))
        True
        """
        from geomstats.geometry.special_euclidean import SpecialEuclidean

        return SpecialEuclidean(n=3)

    def __repr__(self) -> str:
        return "Schoenflies"


#: The Schönflies group X(z) (4×4 matrices; coordinates ``[ω_z; vx; vy; vz]``).
Schoenflies = SchoenfliesGroup()
