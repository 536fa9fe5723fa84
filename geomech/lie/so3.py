"""SO(3): rotations as 3×3 matrices, Lie algebra coordinates ``ω`` (rotation vectors).

The closed forms (``_so3_exp``, ``_so3_log``, the Jacobians) live in ``geomech.lie._maps``,
shared with SE(3) and the joints.
"""

from __future__ import annotations

import numpy as np

from geomech._validation import check_rotation
from geomech.lie._homogeneous import MatrixGroup
from geomech.lie._maps import (
    _random_quaternion,
    _skew,
    _so3_exp,
    _so3_left_jacobian,
    _so3_left_jacobian_inverse,
    _so3_log,
    _unskew,
)
from geomech.lie.quaternion import quat_to_matrix

__all__ = ["SO3Group", "SO3"]


class SO3Group(MatrixGroup):
    r"""The rotation group SO(3) acting on 3×3 rotation matrices.

    Lie-algebra coordinates are rotation vectors ``ω`` (angle ``|ω|`` about ``ω/|ω|``),
    ``hat(ω) = ω̂`` with ``ω̂ x = ω × x``, ``ad(ω) = ω̂`` and ``Ad(R) = R``. Structure
    constants ``s[i, j, k] = ε_ijk``.

    .. math:: \exp(\omega) = I + \frac{\sin\theta}{\theta}\hat\omega
              + \frac{1 - \cos\theta}{\theta^2}\hat\omega^2, \qquad \theta = |\omega|

    ``log`` returns the principal rotation vector (``θ ∈ [0, π]``); at ``θ = π`` exactly, the
    axis sign is a convention (largest-magnitude component positive). Closed-form Jacobians:
    ``J_l(ω) = I + (1 - cos θ)/θ² ω̂ + (θ - sin θ)/θ³ ω̂²`` and
    ``J_l(ω)⁻¹ = I - ½ ω̂ + (1/θ² - (1 + cos θ)/(2θ sin θ)) ω̂²``, singular at ``θ = 2πk``.

    References
    ----------
    seed 003 §1.3 and §2.2 (``S(φ) = J_r(φ)``, eq. 64).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> R = SO3.exp([0.0, 0.0, np.pi / 2])
    >>> np.round(R @ [1.0, 0.0, 0.0], 12) + 0.0
    array([0., 1., 0.])
    >>> bool(np.allclose(SO3.log(R), [0.0, 0.0, np.pi / 2]))
    True
    """

    name = "SO(3)"
    dim = 3
    point_shape = (3, 3)
    matrix_size = 3

    def _inverse(self, g):
        return np.swapaxes(g, -1, -2).copy()

    def _exp(self, xi):
        return _so3_exp(xi)

    def _log(self, g):
        return _so3_log(g)

    def _hat(self, xi):
        return _skew(xi)

    def _vee(self, X):
        return _unskew(X)

    def _Ad(self, g):
        return g.copy()

    def _check_point(self, g, name, tol):
        check_rotation(g, name, tol)

    def _random(self, rng, shape):
        return quat_to_matrix(_random_quaternion(rng, shape))

    def _left_jacobian(self, xi):
        return _so3_left_jacobian(xi)

    def _left_jacobian_inverse(self, xi):
        return _so3_left_jacobian_inverse(xi)

    def to_geomstats(self):
        """Return geomstats' ``SpecialOrthogonal(3)`` in matrix form.

        Elements are the same 3×3 matrices; geomstats' ``exp``/``log`` at the identity act
        on the skew matrix ``hat(ω)``. geomstats is imported here (it is slow to import).

        Returns
        -------
        geomstats.geometry.special_orthogonal._SpecialOrthogonalMatrices
            ``SpecialOrthogonal(n=3)`` (``point_type="matrix"``).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> gs_so3 = SO3.to_geomstats()
        >>> xi = np.array([0.3, -0.2, 0.5])
        >>> bool(np.allclose(gs_so3.exp(SO3.hat(xi)), SO3.exp(xi)))
        True
        """
        from geomstats.geometry.special_orthogonal import SpecialOrthogonal

        return SpecialOrthogonal(n=3)

    def __repr__(self) -> str:
        return "SO3"


#: The rotation group SO(3) (3×3 matrices; coordinates ``ω``).
SO3 = SO3Group()
