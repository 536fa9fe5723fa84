"""SE(2): planar rigid motions as 3×3 homogeneous matrices, coordinates ``[ω; vx; vy]``.

The closed forms (``_se2_*`` in ``geomech.lie._maps``) act on the planar parts ``(ω, v)``
and ``(R, p)`` and are shared with the Schönflies group (SE(2) × R).
"""

from __future__ import annotations

import numpy as np

from geomech.lie._homogeneous import HomogeneousGroup, check_homogeneous, homogeneous
from geomech.lie._maps import (
    _rot2,
    _se2_Ad,
    _se2_exp,
    _se2_left_jacobian,
    _se2_left_jacobian_inverse,
    _se2_log,
)

__all__ = ["SE2Group", "SE2"]


class SE2Group(HomogeneousGroup):
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
