r"""The joint-wise Slotine–Li tracking error of :mod:`geomech.control.reference`, compiled.

For every joint of one state, with :math:`g_{e,i} = q_{d,i}^{-1} q_i = \exp e_i` (body
speeds, left-invariant frame; seed 000 Remark 5):

.. math::

    e_i = \log g_{e,i} = q_i \ominus q_{d,i},\quad
    w_i = \operatorname{Ad}_{g_{e,i}^{-1}} v_{d,i},\quad \xi_i = v_i - w_i,\quad
    \dot e_i = J_r(e_i)^{-1}\xi_i = J_l(-e_i)^{-1}\xi_i,\quad
    b_i = \operatorname{Ad}_{g_{e,i}^{-1}} a_{d,i} - \operatorname{ad}_{\xi_i} w_i,

so that :math:`v_r = w - \Lambda e` and :math:`a_r = b - \Lambda\dot e` (the gain is applied
by the caller, it may couple joints). 1-DoF joints (:math:`G = \mathbb R`): :math:`e = q -
q_d`, :math:`w = v_d`, :math:`b = a_d`, :math:`\dot e = v - v_d`. Handled here: revolute,
prismatic, helical, spherical (SO(3)) and free-flyer (SE(3), coordinates ``[ω; v]``) joints;
the others (planar, Schönflies, user joints) are left untouched (:data:`HANDLED`) for the
numpy path of :class:`geomech.control.reference.JointwiseTrackingError` (the two-stage path).

References
----------
seed 000 §IV-A1 eq. (13), Remark 5; seed 003 §1.3 (:math:`J_r`); T. D. Barfoot, *State
Estimation for Robotics*, 2017, eq. 7.86 (the SE(3) block ``Q``).
"""

from __future__ import annotations

import math

from numba import njit

from geomech.multibody._kernels.jit import JIT
from geomech.multibody._kernels.joints import (
    FREE_FLYER,
    HELICAL,
    PRISMATIC,
    REVOLUTE,
    SPHERICAL,
    _sinc,
    _so3_left_jacobian_apply,
    joint_difference,
)
from geomech.multibody._kernels.tables import IQ, IV, JTYPE
from geomech.multibody._kernels.tree.chart import _cross, right_jacobian_inverse_apply

__all__ = ["HANDLED", "tracking_error", "tracking_error_batch"]

#: joint type codes whose tracking error the kernel computes
HANDLED = (REVOLUTE, PRISMATIC, HELICAL, SPHERICAL, FREE_FLYER)


@njit(**JIT)
def _so3_exp(w0, w1, w2):
    """The rows of R = exp(ŵ) = 1 + sinc θ ŵ + ½ sinc²(θ/2) ŵ² (Rodrigues), nine scalars."""
    th = math.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
    a = _sinc(th)
    s = _sinc(0.5 * th)
    c = 0.5 * s * s
    return (
        1.0 - c * (w1 * w1 + w2 * w2),
        -a * w2 + c * w0 * w1,
        a * w1 + c * w0 * w2,
        a * w2 + c * w0 * w1,
        1.0 - c * (w0 * w0 + w2 * w2),
        -a * w0 + c * w1 * w2,
        -a * w1 + c * w0 * w2,
        a * w0 + c * w1 * w2,
        1.0 - c * (w0 * w0 + w1 * w1),
    )


@njit(**JIT)
def _rt_apply(R, x0, x1, x2):
    """Rᵀ x, ``R`` the nine entries row by row."""
    return (
        R[0] * x0 + R[3] * x1 + R[6] * x2,
        R[1] * x0 + R[4] * x1 + R[7] * x2,
        R[2] * x0 + R[5] * x1 + R[8] * x2,
    )


@njit(**JIT)
def _joint_tracking(code, q, v, q_d, v_d, a_d, e, w, b, e_dot):
    """The error of one joint (module docstring); the slices are that joint's. Nothing is
    allocated (the stepping kernel calls it at every stage): ``e_dot`` holds ``ξ_e`` until
    :math:`J_r(e)^{-1}` is applied to it in place, ``b`` the SE(3) ``p`` until ``b`` is formed.
    """
    if code == REVOLUTE or code == PRISMATIC or code == HELICAL:
        # G = R: T = 1, ad = 0, J = 1 (the coordinate law of seed 000 §IV-A1)
        e[0] = q[0] - q_d[0]
        w[0] = v_d[0]
        b[0] = a_d[0]
        e_dot[0] = v[0] - v_d[0]
        return
    joint_difference(code, q_d, q, e)  # e = log(q_d^{-1} q)
    R = _so3_exp(e[0], e[1], e[2])  # rotation of g_e = exp(e)
    # T = Ad_{g_e^{-1}}: the desired velocity seen from q; rotation part Rᵀ x_ω
    w[0], w[1], w[2] = _rt_apply(R, v_d[0], v_d[1], v_d[2])
    b[0], b[1], b[2] = _rt_apply(R, a_d[0], a_d[1], a_d[2])
    xi = e_dot
    for k in range(3):
        xi[k] = v[k] - w[k]  # xi_e = v - T v_d
    # [xi_e, w] on so(3): xi_ω × w_ω
    c = _cross(xi[0], xi[1], xi[2], w[0], w[1], w[2])
    if code == SPHERICAL:
        right_jacobian_inverse_apply(code, e, xi, e_dot)  # e_dot = J_r(e)^{-1} xi_e (in place)
        for k in range(3):
            b[k] -= c[k]  # b = T a_d - ad_{xi_e} T v_d
        return
    # FREE_FLYER, SE(3) [ω; v]: g_e = (R, p), p = J_l(ω) ρ; Ad_{g^{-1}} x = [Rᵀx_ω; Rᵀ(x_v − p ×
    # x_ω)]
    p = b[3:6]
    _so3_left_jacobian_apply(e[0], e[1], e[2], e[3:6], p, False)
    t = _cross(p[0], p[1], p[2], v_d[0], v_d[1], v_d[2])
    w[3], w[4], w[5] = _rt_apply(R, v_d[3] - t[0], v_d[4] - t[1], v_d[5] - t[2])
    t = _cross(p[0], p[1], p[2], a_d[0], a_d[1], a_d[2])
    b[3], b[4], b[5] = _rt_apply(R, a_d[3] - t[0], a_d[4] - t[1], a_d[5] - t[2])
    for k in range(3, 6):
        xi[k] = v[k] - w[k]
    # [xi_e, w] on se(3): [xi_ω × w_ω; xi_v × w_ω + xi_ω × w_v]
    d = _cross(xi[3], xi[4], xi[5], w[0], w[1], w[2])
    f = _cross(xi[0], xi[1], xi[2], w[3], w[4], w[5])
    for k in range(3):
        b[k] -= c[k]
        b[3 + k] -= d[k] + f[k]
    right_jacobian_inverse_apply(code, e, xi, e_dot)  # e_dot = J_r(e)^{-1} xi_e (in place)


@njit(**JIT)
def tracking_error(topo, q, v, q_d, v_d, a_d, e, w, b, e_dot):
    """``(e, T v_d, d/dt(T v_d), ė)`` joint by joint for one state, joints of :data:`HANDLED`."""
    N = topo.shape[0] - 1
    for i in range(N):
        code = topo[i, JTYPE]
        if not (
            code == REVOLUTE
            or code == PRISMATIC
            or code == HELICAL
            or code == SPHERICAL
            or code == FREE_FLYER
        ):
            continue
        iq0, iq1, iv0, iv1 = topo[i, IQ], topo[i + 1, IQ], topo[i, IV], topo[i + 1, IV]
        _joint_tracking(
            code,
            q[iq0:iq1],
            v[iv0:iv1],
            q_d[iq0:iq1],
            v_d[iv0:iv1],
            a_d[iv0:iv1],
            e[iv0:iv1],
            w[iv0:iv1],
            b[iv0:iv1],
            e_dot[iv0:iv1],
        )


@njit(**JIT)
def tracking_error_batch(topo, Q, V, Q_d, V_d, A_d, E, W, B, E_dot):
    """:func:`tracking_error` over a batch of states (rows of equal-length 2-D arrays)."""
    for k in range(Q.shape[0]):
        tracking_error(topo, Q[k], V[k], Q_d[k], V_d[k], A_d[k], E[k], W[k], B[k], E_dot[k])
