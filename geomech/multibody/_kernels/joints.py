r"""Joint models for the compiled kernels: type codes, joint poses, ``q ⊕ v`` and ``q₁ ⊖ q₀``.

Each built-in joint class has a type code; a joint's constant parameters are its row of
the compiled model's ``jparam``: unit axis ``param[AXIS:AXIS + 3]`` and pitch
``param[PITCH]`` (:mod:`~geomech.multibody._kernels.tables`).
The functions here act on one joint of one state (``q`` and ``v`` are that joint's slices)
and mirror the methods of :mod:`geomech.multibody.model.joints`, which stay the reference
they are tested against:

- ``FIXED`` (nq = nv = 0): the identity;
- ``REVOLUTE`` (1/1): :math:`(\exp(\theta\hat{\mathbf a}), 0)`, by Rodrigues;
- ``PRISMATIC`` (1/1): :math:`(\mathbf 1, d\,\mathbf a)`;
- ``HELICAL`` (1/1): :math:`(\exp(\theta\hat{\mathbf a}), h\theta\,\mathbf a)`;
- ``SPHERICAL`` (4/3): the rotation of the quaternion ``(x, y, z, w)``, no translation;
- ``PLANAR`` (3/3): :math:`(\mathbf R_z(\theta), (x, y, 0))` with ``q = [x, y, θ]``;
- ``SCHOENFLIES`` (4/4): :math:`(\mathbf R_z(\theta), (x, y, z))` with ``q = [x, y, z, θ]``;
- ``FREE_FLYER`` (7/6): the rotation of the quaternion and the position, ``q = [p; quaternion]``;
- ``USER`` (any): read from a per-state array filled by the joint's Python hooks.

A quaternion whose norm differs from 1 by more than 1e-6 sets the status
``NOT_ON_MANIFOLD``; within the tolerance it is renormalised, as
:func:`geomech.lie.quaternion.quat_to_matrix` does.

References
----------
Featherstone 2008, Table 4.1; seed 001 §1.4; seed 003 §2.4–2.5 (SE(2), Schönflies).
"""

from __future__ import annotations

import math

from numba import njit

from geomech.multibody._kernels.jit import INLINE, JIT, at, first_failure
from geomech.multibody._kernels.status import (
    NON_FINITE_RESULT,
    NOT_ON_MANIFOLD,
    OK,
    SINGULAR_DIFFERENCE,
    pack,
)
from geomech.multibody._kernels.tables import AXIS, IQ, IV, JTYPE, PITCH

__all__ = [
    "FIXED",
    "REVOLUTE",
    "PRISMATIC",
    "HELICAL",
    "SPHERICAL",
    "PLANAR",
    "SCHOENFLIES",
    "FREE_FLYER",
    "USER",
    "joint_pose",
    "joint_integrate",
    "joint_difference",
    "integrate",
    "integrate_batch",
    "difference",
    "difference_batch",
]

FIXED, REVOLUTE, PRISMATIC, HELICAL, SPHERICAL, PLANAR, SCHOENFLIES, FREE_FLYER, USER = range(9)

#: tolerance on the deviation of a quaternion's norm from 1 (geomech._validation.MANIFOLD_TOL)
UNIT_TOL = 1e-6

_IDENTITY = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


@njit(**JIT)
def _sinc(x):
    """sin(x)/x with its Taylor series near 0."""
    if abs(x) < 1e-4:
        return 1.0 - x * x / 6.0
    return math.sin(x) / x


@njit(**INLINE)
def _axis_rotation(x, y, z, theta):
    """Rodrigues: the rows of R = 1 + sin θ K + (1 − cos θ) K², K = â, a = (x, y, z)."""
    s, c = math.sin(theta), 1.0 - math.cos(theta)
    return (
        (1.0 - c * (y * y + z * z), -s * z + c * x * y, s * y + c * x * z),
        (s * z + c * x * y, 1.0 - c * (x * x + z * z), -s * x + c * y * z),
        (-s * y + c * x * z, s * x + c * y * z, 1.0 - c * (x * x + y * y)),
    )


@njit(**INLINE)
def _rot_z(theta):
    """The rows of the rotation by θ about z."""
    s, c = math.sin(theta), math.cos(theta)
    return (c, -s, 0.0), (s, c, 0.0), (0.0, 0.0, 1.0)


@njit(**INLINE)
def _quat_rotation(qx, qy, qz, qw):
    """Whether the quaternion (x, y, z, w) is of unit norm, and the rows of its rotation.

    Within the tolerance ``UNIT_TOL`` the quaternion is renormalised first.
    """
    n = math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
    x, y, z, w = qx / n, qy / n, qz / n, qw / n
    return abs(n - 1.0) <= UNIT_TOL, (
        (1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)),
        (2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)),
        (2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)),
    )


@njit(**INLINE)
def joint_pose(code, param, q):
    """Pose of the child frame in the joint frame: ``(ok, R, p)``, ``R`` as a tuple of rows.

    ``ok`` is False for a non-unit quaternion. Scalars, not arrays: the caller composes
    them with the placement without a round trip through memory (:func:`.tree_transforms`).
    """
    zero = (0.0, 0.0, 0.0)
    if code == REVOLUTE or code == PRISMATIC or code == HELICAL:
        x, y, z = param[AXIS], param[AXIS + 1], param[AXIS + 2]
        if code == REVOLUTE:
            return True, _axis_rotation(x, y, z, q[0]), zero
        if code == PRISMATIC:
            return True, _IDENTITY, (q[0] * x, q[0] * y, q[0] * z)
        d = param[PITCH] * q[0]
        return True, _axis_rotation(x, y, z, q[0]), (d * x, d * y, d * z)
    if code == SPHERICAL:
        ok, R = _quat_rotation(q[0], q[1], q[2], q[3])
        return ok, R, zero
    if code == PLANAR:
        return True, _rot_z(q[2]), (q[0], q[1], 0.0)
    if code == SCHOENFLIES:
        return True, _rot_z(q[3]), (q[0], q[1], q[2])
    if code == FREE_FLYER:
        ok, R = _quat_rotation(q[3], q[4], q[5], q[6])
        return ok, R, (q[0], q[1], q[2])
    return True, _IDENTITY, zero  # FIXED (USER poses come from the hooks, not from here)


# ----------------------------------------------------------------------------------------
# q ⊕ v and q1 ⊖ q0 (joint by joint; the joints' _integrate / _difference in numbers)
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def _quat_times_exp(q, w0, w1, w2, out):
    """Out = q ⊗ exp(ω/2) normalised (Spherical._integrate)."""
    th = math.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
    k = 0.5 * _sinc(0.5 * th)
    ex, ey, ez, ew = k * w0, k * w1, k * w2, math.cos(0.5 * th)
    x, y, z, w = q[0], q[1], q[2], q[3]
    ox = w * ex + ew * x + (y * ez - z * ey)
    oy = w * ey + ew * y + (z * ex - x * ez)
    oz = w * ez + ew * z + (x * ey - y * ex)
    ow = w * ew - (x * ex + y * ey + z * ez)
    n = math.sqrt(ox * ox + oy * oy + oz * oz + ow * ow)
    out[0], out[1], out[2], out[3] = ox / n, oy / n, oz / n, ow / n


@njit(**JIT)
def _quat_log_between(q0, q1, out):
    """Out = log(q0⁻¹ ⊗ q1) as a rotation vector, angle in [0, π] (quat_log)."""
    x, y, z, w = -q0[0], -q0[1], -q0[2], q0[3]
    dx = w * q1[0] + q1[3] * x + (y * q1[2] - z * q1[1])
    dy = w * q1[1] + q1[3] * y + (z * q1[0] - x * q1[2])
    dz = w * q1[2] + q1[3] * z + (x * q1[1] - y * q1[0])
    dw = w * q1[3] - (x * q1[0] + y * q1[1] + z * q1[2])
    if dw < 0.0:
        dx, dy, dz, dw = -dx, -dy, -dz, -dw
    half = math.atan2(math.sqrt(dx * dx + dy * dy + dz * dz), dw)
    k = 2.0 / _sinc(half)
    out[0], out[1], out[2] = k * dx, k * dy, k * dz


@njit(**JIT)
def _planar_step(theta0, w, vx, vy):
    """Displacement R(θ0) V(ω) v of the SE(2) step exp([ω; v]) (joints._planar_step)."""
    s = _sinc(0.5 * w)
    c, sn = math.cos(theta0 + 0.5 * w), math.sin(theta0 + 0.5 * w)
    return s * (c * vx - sn * vy), s * (sn * vx + c * vy)


@njit(**JIT)
def _planar_difference(dtheta, theta0, dx, dy):
    """Body (v_x, v_y) of the SE(2) difference; (nan, nan) where sinc(Δθ/2) vanishes."""
    s = _sinc(0.5 * dtheta)
    if abs(s) < 1e-12:
        return math.nan, math.nan
    a = -0.5 * dtheta - theta0
    c, sn = math.cos(a), math.sin(a)
    return (c * dx - sn * dy) / s, (sn * dx + c * dy) / s


@njit(**INLINE)
def _so3_jl(w0, w1, w2, x0, x1, x2, inverse):
    """``J_l(ω) x`` or ``J_l(ω)⁻¹ x`` of SO(3) (lie.so3) as three scalars, nothing written."""
    th2 = w0 * w0 + w1 * w1 + w2 * w2
    th = math.sqrt(th2)
    c0 = w1 * x2 - w2 * x1  # ω × x
    c1 = w2 * x0 - w0 * x2
    c2 = w0 * x1 - w1 * x0
    d0 = w1 * c2 - w2 * c1  # ω × (ω × x)
    d1 = w2 * c0 - w0 * c2
    d2 = w0 * c1 - w1 * c0
    if not inverse:
        if th < 1e-4:
            a, b = 0.5 - th2 / 24.0, 1.0 / 6.0 - th2 / 120.0
        else:
            a, b = (1.0 - math.cos(th)) / th2, (th - math.sin(th)) / (th2 * th)
        return x0 + a * c0 + b * d0, x1 + a * c1 + b * d1, x2 + a * c2 + b * d2
    if th < 1e-4:
        b = 1.0 / 12.0 + th2 / 720.0
    else:
        b = (1.0 - 0.5 * th * math.sin(th) / (1.0 - math.cos(th))) / th2
    return x0 - 0.5 * c0 + b * d0, x1 - 0.5 * c1 + b * d1, x2 - 0.5 * c2 + b * d2


@njit(**JIT)
def _so3_left_jacobian_apply(w0, w1, w2, x, out, inverse):
    """Out = J_l(ω) x (or J_l(ω)⁻¹ x): the SO(3) left Jacobian (lie.so3); ``out`` may be ``x``."""
    out[0], out[1], out[2] = _so3_jl(w0, w1, w2, x[0], x[1], x[2], inverse)


@njit(**JIT)
def joint_integrate(code, q, v, dt, out):
    """Out = q ⊕ v dt for one joint (Joint._integrate); USER joints are not handled here."""
    if code == REVOLUTE or code == PRISMATIC or code == HELICAL:
        out[0] = q[0] + v[0] * dt
    elif code == SPHERICAL:
        _quat_times_exp(q, v[0] * dt, v[1] * dt, v[2] * dt, out)
    elif code == PLANAR:
        w = v[0] * dt
        dx, dy = _planar_step(q[2], w, v[1] * dt, v[2] * dt)
        out[0], out[1], out[2] = q[0] + dx, q[1] + dy, q[2] + w
    elif code == SCHOENFLIES:
        w = v[0] * dt
        dx, dy = _planar_step(q[3], w, v[1] * dt, v[2] * dt)
        out[0], out[1], out[2], out[3] = q[0] + dx, q[1] + dy, q[2] + v[3] * dt, q[3] + w
    elif code == FREE_FLYER:
        # exp([ω; v]) = (exp ω, J_l(ω) v): body translation, then rotated into the joint frame
        w0, w1, w2 = v[0] * dt, v[1] * dt, v[2] * dt
        lin = (v[3] * dt, v[4] * dt, v[5] * dt)
        d = [0.0, 0.0, 0.0]
        _so3_left_jacobian_apply(w0, w1, w2, lin, d, False)
        x, y, z, w = q[3], q[4], q[5], q[6]
        n = math.sqrt(x * x + y * y + z * z + w * w)
        x, y, z, w = x / n, y / n, z / n, w / n
        # p += R(quat) d
        tx = 2.0 * (y * d[2] - z * d[1])
        ty = 2.0 * (z * d[0] - x * d[2])
        tz = 2.0 * (x * d[1] - y * d[0])
        out[0] = q[0] + d[0] + w * tx + (y * tz - z * ty)
        out[1] = q[1] + d[1] + w * ty + (z * tx - x * tz)
        out[2] = q[2] + d[2] + w * tz + (x * ty - y * tx)
        _quat_times_exp(q[3:7], w0, w1, w2, out[3:7])


@njit(**JIT)
def joint_difference(code, q0, q1, out):
    """Out = q1 ⊖ q0 for one joint (Joint._difference); False where it is singular."""
    if code == REVOLUTE or code == PRISMATIC or code == HELICAL:
        out[0] = q1[0] - q0[0]
    elif code == SPHERICAL:
        _quat_log_between(q0, q1, out)
    elif code == PLANAR:
        dth = q1[2] - q0[2]
        vx, vy = _planar_difference(dth, q0[2], q1[0] - q0[0], q1[1] - q0[1])
        out[0], out[1], out[2] = dth, vx, vy
        return not math.isnan(vx)
    elif code == SCHOENFLIES:
        dth = q1[3] - q0[3]
        vx, vy = _planar_difference(dth, q0[3], q1[0] - q0[0], q1[1] - q0[1])
        out[0], out[1], out[2], out[3] = dth, vx, vy, q1[2] - q0[2]
        return not math.isnan(vx)
    elif code == FREE_FLYER:
        _quat_log_between(q0[3:7], q1[3:7], out[0:3])
        x, y, z, w = q0[3], q0[4], q0[5], q0[6]
        n = math.sqrt(x * x + y * y + z * z + w * w)
        x, y, z, w = -x / n, -y / n, -z / n, w / n  # R(q0)ᵀ = R(q0*)
        d0, d1, d2 = q1[0] - q0[0], q1[1] - q0[1], q1[2] - q0[2]
        tx = 2.0 * (y * d2 - z * d1)
        ty = 2.0 * (z * d0 - x * d2)
        tz = 2.0 * (x * d1 - y * d0)
        body = (
            d0 + w * tx + (y * tz - z * ty),
            d1 + w * ty + (z * tx - x * tz),
            d2 + w * tz + (x * ty - y * tx),
        )
        _so3_left_jacobian_apply(out[0], out[1], out[2], body, out[3:6], True)
    return True


# ----------------------------------------------------------------------------------------
# the whole configuration, joint by joint (MultibodyModel.integrate / difference)
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def _quaternion_ok(q):
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    return abs(n - 1.0) <= UNIT_TOL


@njit(**JIT)
def integrate(topo, q, v, dt, out):
    """``out = q ⊕ v dt`` joint by joint for one state; USER joints are left to their hooks."""
    N = topo.shape[0] - 1
    for i in range(N):
        code = topo[i, JTYPE]
        iq0, iq1, iv0, iv1 = topo[i, IQ], topo[i + 1, IQ], topo[i, IV], topo[i + 1, IV]
        if code != USER and code != FIXED:
            joint_integrate(code, q[iq0:iq1], v[iv0:iv1], dt, out[iq0:iq1])
    for x in out:
        if not math.isfinite(x):
            return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**JIT)
def integrate_batch(topo, Q, V, DT, OUT, status):
    """:func:`integrate` over a batch; first failure + 1."""
    for b in range(status.shape[0]):
        status[b] = integrate(
            topo,
            at(Q, b),
            at(V, b),
            at(DT, b),
            OUT[b],
        )
    return first_failure(status)


@njit(**JIT)
def difference(topo, q0, q1, out):
    """``out = q1 ⊖ q0`` joint by joint for one state; USER joints are left to their hooks."""
    N = topo.shape[0] - 1
    for i in range(N):
        code = topo[i, JTYPE]
        iq0, iq1, iv0, iv1 = topo[i, IQ], topo[i + 1, IQ], topo[i, IV], topo[i + 1, IV]
        if code == USER or code == FIXED:
            continue
        a, b = q0[iq0:iq1], q1[iq0:iq1]
        if code == SPHERICAL and not (_quaternion_ok(a) and _quaternion_ok(b)):
            return pack(NOT_ON_MANIFOLD, i)
        if code == FREE_FLYER and not (_quaternion_ok(a[3:]) and _quaternion_ok(b[3:])):
            return pack(NOT_ON_MANIFOLD, i)
        if not joint_difference(code, a, b, out[iv0:iv1]):
            return pack(SINGULAR_DIFFERENCE, i)
    return OK


@njit(**JIT)
def difference_batch(topo, Q0, Q1, OUT, status):
    """:func:`difference` over a batch; first failure + 1."""
    for b in range(status.shape[0]):
        status[b] = difference(topo, at(Q0, b), at(Q1, b), OUT[b])
    return first_failure(status)
