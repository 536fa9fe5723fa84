"""Unvalidated closed forms of SO(3) and SE(2) shared across the Lie-group layer.

A private module meant for sharing (like ``geomech._validation``): SO(3)'s maps are reused
by SE(3), SE(2)'s by the Schönflies group, and both by the joints of
:mod:`geomech.multibody.model.joints`; the 3×3 cross-product matrix and the 2×2 block assembly are
also those of :mod:`geomech.spatial`. Every function takes validated arrays with leading batch
dimensions.
"""

from __future__ import annotations

import numpy as np

from geomech._arrays import matvec
from geomech.errors import SingularityError
from geomech.lie import _coefficients as co

#: ``|sin(θ/2)|`` below which (for ``θ > π``) the Jacobian of exp is treated as singular.
SINGULAR_TOL = 1e-12


# ----------------------------------------------------------------------------------------
# SO(3) and block matrices
# ----------------------------------------------------------------------------------------
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


def _hat_quadratic(w: np.ndarray, small, unit_axis) -> np.ndarray:
    """``1 + a ŵ + b ŵ²`` with ``(a, b) = small(θ)``, the common shape of the SO(3) closed forms.

    Where ``θ > _UNIT_AXIS_ANGLE`` it is evaluated as ``1 + a' û + b' û²`` on the unit axis,
    with ``(a', b') = unit_axis(θ) = (a θ, b θ²)``; ``small`` only sees angles ≤
    ``_UNIT_AXIS_ANGLE`` and ``unit_axis`` only angles above it (both 1.0 elsewhere).
    """
    theta = _angle(w)
    if not np.any(theta > _UNIT_AXIS_ANGLE):  # the common case: no division by θ needed
        W = _skew(w)
        a, b = small(theta)
        return np.eye(3) + a[..., None, None] * W + b[..., None, None] * (W @ W)
    theta, big, U = _axis_form(w)
    a_small, b_small = small(np.where(big, 1.0, theta))
    a_unit, b_unit = unit_axis(np.where(big, theta, 1.0))
    A = np.where(big, a_unit, a_small)[..., None, None]
    B = np.where(big, b_unit, b_small)[..., None, None]
    return np.eye(3) + A * U + B * (U @ U)


def _so3_exp(w: np.ndarray) -> np.ndarray:
    # Rodrigues: R = I + sinc(θ) ŵ + (1 - cos θ)/θ² ŵ²   (coefficients without cancellation),
    # i.e. R = I + sin θ û + (1 - cos θ) û² on the unit axis for θ > 1
    return _hat_quadratic(
        w,
        lambda t: (co.sinc(t), co.one_minus_cos_over_x2(t)),
        lambda t: (np.sin(t), 1.0 - np.cos(t)),
    )


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
    return _hat_quadratic(
        w,
        lambda t: (co.one_minus_cos_over_x2(t), co.x_minus_sin_over_x3(t)),
        lambda t: ((1.0 - np.cos(t)) / t, 1.0 - np.sin(t) / t),
    )


def _check_jacobian_invertible(theta: np.ndarray, group: str) -> None:
    # det J_l = 2(1 - cos θ)/θ² = sinc(θ/2)²: zero exactly at θ = 2πk, k ≥ 1.
    if np.any((theta > np.pi) & (np.abs(np.sin(0.5 * theta)) < SINGULAR_TOL)):
        raise SingularityError(
            f"The Jacobian of exp on {group} is singular at `xi` (rotation angle 2πk, k ≥ 1)."
        )


def _so3_left_jacobian_inverse(w: np.ndarray, group: str = "SO(3)") -> np.ndarray:
    # J_l(ω)⁻¹ = I - ½ ŵ + (1 - (θ/2) cot(θ/2))/θ² ŵ²   (seed 003 §1.3 gives S⁻¹ = J_l(-ω)⁻¹)
    _check_jacobian_invertible(_angle(w), group)

    def unit_axis(t):  # (-θ/2, 1 - (θ/2) cot(θ/2)) on the unit axis
        h = 0.5 * t
        with np.errstate(divide="ignore", invalid="ignore"):
            return -h, 1.0 - h * np.cos(h) / np.sin(h)

    return _hat_quadratic(
        w, lambda t: (np.full_like(t, -0.5), co.half_cot_coefficient(t)), unit_axis
    )


def _random_quaternion(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    # Haar-uniform rotations: normalised standard Gaussian 4-vectors (Shoemake 1992).
    q = rng.standard_normal(shape + (4,))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def _blocks(A: np.ndarray, B: np.ndarray, C: np.ndarray, D: np.ndarray) -> np.ndarray:
    """``[[A, B], [C, D]]`` from blocks of matching sizes; leading (batch) dimensions broadcast."""
    lead = np.broadcast_shapes(A.shape[:-2], B.shape[:-2], C.shape[:-2], D.shape[:-2])
    A, B, C, D = (np.broadcast_to(X, lead + X.shape[-2:]) for X in (A, B, C, D))
    return np.concatenate([np.concatenate([A, B], -1), np.concatenate([C, D], -1)], -2)


# ----------------------------------------------------------------------------------------
# SE(2)
# ----------------------------------------------------------------------------------------
_J = np.array([[0.0, -1.0], [1.0, 0.0]])  # planar 90° rotation: Rot(ω) = cos ω I + sin ω J


def _rot2(w: np.ndarray) -> np.ndarray:
    c, s = np.cos(w), np.sin(w)
    return np.stack([c, -s, s, c], axis=-1).reshape(np.shape(w) + (2, 2))


def _perp(v: np.ndarray) -> np.ndarray:
    """``-J v = [v_y, -v_x]``."""
    return np.stack([v[..., 1], -v[..., 0]], axis=-1)


def _se2_V(w: np.ndarray) -> np.ndarray:
    # V(ω) = [[sin ω, cos ω - 1], [1 - cos ω, sin ω]] / ω = sinc(ω/2) Rot(ω/2): the half-angle
    # form is free of cancellation near ω = 0.
    return co.sinc(0.5 * w)[..., None, None] * _rot2(0.5 * w)


def _se2_exp(w: np.ndarray, v: np.ndarray):
    return _rot2(w), matvec(_se2_V(w), v)


def _se2_log(R: np.ndarray, p: np.ndarray):
    # Principal angle in (-π, π]; atan2 of the averaged entries (robust to small drift).
    w = np.arctan2(R[..., 1, 0] - R[..., 0, 1], R[..., 0, 0] + R[..., 1, 1])
    w = np.where(w <= -np.pi, np.pi, w)
    # V⁻¹ = Rot(-ω/2) / sinc(ω/2), regular for |ω| ≤ π.
    v = matvec(_rot2(-0.5 * w), p) / co.sinc(0.5 * w)[..., None]
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
    Jl[..., 1:, 0] = matvec(W, _perp(v))
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
    out[..., 1:, 0] = -matvec(Vinv, Jl[..., 1:, 0])
    out[..., 1:, 1:] = Vinv
    return out
