"""SO(3): rotations as 3×3 matrices, Lie algebra coordinates ``ω`` (rotation vectors).

The module-level private functions (``_skew``, ``_so3_exp``, ``_so3_log``,
``_so3_left_jacobian``, ``_so3_left_jacobian_inverse``) are reused by SE(3).
"""

from __future__ import annotations

import numpy as np

from geomech._validation import check_rotation
from geomech.errors import SingularityError
from geomech.lie import _coefficients as co
from geomech.lie.base import LieGroup
from geomech.lie.quaternion import quat_to_matrix

__all__ = ["SO3Group", "SO3"]

#: ``|sin(θ/2)|`` below which (for ``θ > π``) the Jacobian of exp is treated as singular.
SINGULAR_TOL = 1e-12


def _skew(w: np.ndarray) -> np.ndarray:
    """``ŵ`` with ``ŵ x = w × x`` (seed 003 eq. 6), batched: (..., 3) -> (..., 3, 3)."""
    x, y, z = np.moveaxis(w, -1, 0)
    o = np.zeros_like(x)
    return np.stack([o, -z, y, z, o, -x, -y, x, o], axis=-1).reshape(w.shape[:-1] + (3, 3))


def _unskew(S: np.ndarray) -> np.ndarray:
    """``(S)^∨`` read from the lower-left entries ``(S21, S02, S10)``."""
    return np.stack([S[..., 2, 1], S[..., 0, 2], S[..., 1, 0]], axis=-1)


def _angle(w: np.ndarray) -> np.ndarray:
    # |w| without overflow of the squares (np.linalg.norm is inf from |w| ~ 1.3e154)
    return np.hypot(np.hypot(w[..., 0], w[..., 1]), w[..., 2])


#: Above this angle the closed forms are evaluated on the unit axis ``u = ω/θ`` (so that no
#: ``θ²ŵ²`` is formed: it overflows from ``θ ~ 1.3e154``); below, on ``ω`` itself.
_UNIT_AXIS_ANGLE = 1.0


def _axis_form(w: np.ndarray):
    """``(theta, big, U)``: the angle, the unit-axis mask and ``û`` where big, else ``ŵ``.

    So ``ŵ = s Û`` with ``s = θ`` where ``big`` and ``s = 1`` elsewhere, and a coefficient
    ``c(θ)`` of ``ŵ^k`` becomes ``c(θ) θ^k`` of ``Û^k`` on the big entries.
    """
    theta = _angle(w)
    big = theta > _UNIT_AXIS_ANGLE
    s = np.where(big, theta, 1.0)
    return theta, big, _skew(w / s[..., None])


def _so3_exp(w: np.ndarray) -> np.ndarray:
    # Rodrigues: R = I + sinc(θ) ŵ + (1 - cos θ)/θ² ŵ²   (coefficients without cancellation),
    # i.e. R = I + sin θ û + (1 - cos θ) û² on the unit axis for θ > 1
    theta = _angle(w)
    if not np.any(theta > _UNIT_AXIS_ANGLE):  # the common case: no division by θ needed
        W = _skew(w)
        A = co.sinc(theta)[..., None, None]
        B = co.one_minus_cos_over_x2(theta)[..., None, None]
        return np.eye(3) + A * W + B * (W @ W)
    theta, big, U = _axis_form(w)
    t_small = np.where(big, 1.0, theta)
    A = np.where(big, np.sin(theta), co.sinc(t_small))[..., None, None]
    B = np.where(big, 1.0 - np.cos(theta), co.one_minus_cos_over_x2(t_small))[..., None, None]
    return np.eye(3) + A * U + B * (U @ U)


def _so3_log(R: np.ndarray) -> np.ndarray:
    # θ from atan2(|a|, c) with a = (R - Rᵀ)^∨ / 2 = sin θ u and c = (tr R - 1)/2 = cos θ:
    # accurate on all of [0, π] (acos/asin alone lose digits near π and near 0).
    a = 0.5 * _unskew(R - np.swapaxes(R, -1, -2))
    c = np.clip(0.5 * (np.trace(R, axis1=-2, axis2=-1) - 1.0), -1.0, 1.0)
    theta = np.arctan2(np.linalg.norm(a, axis=-1), c)

    # Branch 1 (θ ≤ π/2): ω = θ / sin θ · a = a / sinc(θ).
    w_antisym = a / co.sinc(theta)[..., None]

    # Branch 2 (θ > π/2): a/sin θ loses accuracy as sin θ -> 0. The symmetric part is
    # sym(R) - c I = (1 - c) u uᵀ with 1 - c ≥ 1; take its largest column (pivot k, u_k > 0),
    # then orient u along a (= sin θ u). At exactly θ = π, a = 0 and the pivot-positive
    # orientation is kept: a convention, since ω and -ω give the same rotation there.
    B = 0.5 * (R + np.swapaxes(R, -1, -2)) - c[..., None, None] * np.eye(3)
    diag = np.diagonal(B, axis1=-2, axis2=-1)
    k = np.argmax(diag, axis=-1)
    col = np.take_along_axis(B, k[..., None, None], axis=-1)[..., 0]
    Bkk = np.take_along_axis(diag, k[..., None], axis=-1)[..., 0]
    one_minus_c = np.where(c < 0.0, 1.0 - c, 1.0)  # guard; only used where c < 0
    u = col / np.sqrt(np.maximum(Bkk * one_minus_c, 1e-300))[..., None]
    u = np.where(np.sum(u * a, axis=-1, keepdims=True) < 0.0, -u, u)
    w_sym = theta[..., None] * u

    return np.where((c < 0.0)[..., None], w_sym, w_antisym)


def _so3_left_jacobian(w: np.ndarray) -> np.ndarray:
    # J_l(ω) = I + (1 - cos θ)/θ² ŵ + (θ - sin θ)/θ³ ŵ²   (= V of SE(3) exp)
    theta = _angle(w)
    if not np.any(theta > _UNIT_AXIS_ANGLE):  # the common case: no division by θ needed
        W = _skew(w)
        B = co.one_minus_cos_over_x2(theta)[..., None, None]
        C = co.x_minus_sin_over_x3(theta)[..., None, None]
        return np.eye(3) + B * W + C * (W @ W)
    theta, big, U = _axis_form(w)
    t_small = np.where(big, 1.0, theta)
    t_big = np.where(big, theta, 1.0)
    B = np.where(big, (1.0 - np.cos(t_big)) / t_big, co.one_minus_cos_over_x2(t_small))
    C = np.where(big, 1.0 - np.sin(t_big) / t_big, co.x_minus_sin_over_x3(t_small))
    return np.eye(3) + B[..., None, None] * U + C[..., None, None] * (U @ U)


def _check_jacobian_invertible(theta: np.ndarray, group: str) -> None:
    # det J_l = 2(1 - cos θ)/θ² = sinc(θ/2)²: zero exactly at θ = 2πk, k ≥ 1.
    if np.any((theta > np.pi) & (np.abs(np.sin(0.5 * theta)) < SINGULAR_TOL)):
        raise SingularityError(
            f"The Jacobian of exp on {group} is singular at `xi` (rotation angle 2πk, k ≥ 1)."
        )


def _so3_left_jacobian_inverse(w: np.ndarray, group: str = "SO(3)") -> np.ndarray:
    # J_l(ω)⁻¹ = I - ½ ŵ + (1 - (θ/2) cot(θ/2))/θ² ŵ²   (seed 003 §1.3 gives S⁻¹ = J_l(-ω)⁻¹)
    theta = _angle(w)
    _check_jacobian_invertible(theta, group)
    if not np.any(theta > _UNIT_AXIS_ANGLE):  # the common case: no division by θ needed
        W = _skew(w)
        D = co.half_cot_coefficient(theta)[..., None, None]
        return np.eye(3) - 0.5 * W + D * (W @ W)
    theta, big, U = _axis_form(w)
    s = np.where(big, theta, 1.0)
    h = 0.5 * s
    with np.errstate(divide="ignore", invalid="ignore"):
        D_big = 1.0 - h * np.cos(h) / np.sin(h)  # (1 - (θ/2) cot(θ/2)) on the unit axis
    D = np.where(big, D_big, co.half_cot_coefficient(np.where(big, 1.0, theta)))
    return np.eye(3) - 0.5 * s[..., None, None] * U + D[..., None, None] * (U @ U)


class SO3Group(LieGroup):
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

    def _identity(self):
        return np.eye(3)

    def _compose(self, a, b):
        return a @ b

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


def _random_quaternion(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    # Haar-uniform rotations: normalised standard Gaussian 4-vectors (Shoemake 1992).
    q = rng.standard_normal(shape + (4,))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


#: The rotation group SO(3) (3×3 matrices; coordinates ``ω``).
SO3 = SO3Group()
