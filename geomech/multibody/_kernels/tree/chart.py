r"""The joints' chart rate :math:`\dot\delta = J_r(\delta)^{-1} v` for the compiled kernels.

A configuration near a chart centre is :math:`q = q_c \oplus \delta` joint by joint
(:meth:`MultibodyModel.integrate <geomech.multibody.MultibodyModel.integrate>`). Along a
motion with joint speeds :math:`v`, the chart coordinates move at

.. math:: \dot\delta_i = J_r(\delta_i)^{-1} v_i = J_l(-\delta_i)^{-1} v_i

on spherical (SO(3)) and free-flyer (SE(3), ``[ω; v]``) joints, whose ``q ⊕ δ = q exp(δ)``
(``Joint._chart_rate`` with ``_exp_chart = True``), and :math:`\dot\delta_i = v_i` on 1-DoF
joints. On SE(3), :math:`J_l(x)^{-1} = \begin{bmatrix}J^{-1} & 0\\ -J^{-1} Q J^{-1} &
J^{-1}\end{bmatrix}` with :math:`J = J_l(\omega)` of SO(3) and Barfoot's block
:math:`Q(\omega, \rho)` (:mod:`geomech.lie.se3`). Planar, Schönflies and user joints are
not handled here (:data:`HANDLED`): their rate comes from their Python hooks.

References
----------
H. Munthe-Kaas, Appl. Numer. Math. 29 (1999); seed 003 §1.3 (:math:`S(\varphi) = J_r`);
T. D. Barfoot, *State Estimation for Robotics*, 2017, eq. 7.86.
"""

from __future__ import annotations

import math

from numba import njit

from geomech.multibody._kernels.jit import INLINE, JIT
from geomech.multibody._kernels.joints import (
    FIXED,
    FREE_FLYER,
    HELICAL,
    PRISMATIC,
    REVOLUTE,
    SPHERICAL,
    _so3_left_jacobian_apply,
)
from geomech.multibody._kernels.tables import IV, JTYPE

__all__ = [
    "HANDLED",
    "right_jacobian_inverse_apply",
    "joint_chart_rate_batch",
    "chart_rate",
    "chart_rate_batch",
]

#: joint type codes whose chart rate the kernel computes
HANDLED = (FIXED, REVOLUTE, PRISMATIC, HELICAL, SPHERICAL, FREE_FLYER)


@njit(**JIT)
def _cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


#: n! for n < 32, as floats (math.gamma in the series loop cost ~1.3 µs a call)
_FACTORIALS = tuple(float(math.factorial(n)) for n in range(32))


@njit(**JIT)
def _se3_coefficients(th):
    """``(c1, c2, c3)`` of Q (lie._coefficients), by their series for θ < 1.

    (θ − sin θ)/θ³, (θ² + 2cos θ − 2)/(2θ⁴), (2θ − 3 sin θ + θ cos θ)/(2θ⁵).
    """
    if th < 1.0:
        x2 = th * th
        c1 = c2 = c3 = 0.0
        p = 1.0  # (-1)^k x^{2k}
        for k in range(12):
            c1 += p / _FACTORIALS[2 * k + 3]  # (2k+3)!
            c2 += p / _FACTORIALS[2 * k + 4]  # (2k+4)!
            c3 += p * (k + 1) / _FACTORIALS[2 * k + 5]  # k' = k + 2: (k'-1) / (2k'+1)!
            p *= -x2
        return c1, c2, c3
    s, c = math.sin(th), math.cos(th)
    return (
        (th - s) / th**3,
        (th * th + 2.0 * c - 2.0) / (2.0 * th**4),
        (2.0 * th - 3.0 * s + th * c) / (2.0 * th**5),
    )


@njit(**JIT)
def _se3_q_apply(w0, w1, w2, r0, r1, r2, u0, u1, u2):
    """Q(ω, ρ) u, Q = ½P + c1 (WP + PW + WPW) + c2 (W²P + PW² − 3 WPW) + c3 (WPW² + W²PW)
    with W = ω̂, P = ρ̂ (geomech.lie.se3._q_block), by cross products.
    """
    c1, c2, c3 = _se3_coefficients(math.sqrt(w0 * w0 + w1 * w1 + w2 * w2))
    return _se3_q_times(c1, c2, c3, w0, w1, w2, r0, r1, r2, u0, u1, u2)


@njit(**INLINE)
def _se3_q_times(c1, c2, c3, w0, w1, w2, r0, r1, r2, u0, u1, u2):
    """Q(ω, ρ) u of :func:`_se3_q_apply` with Q's coefficients ``c1, c2, c3`` given (the
    stepping kernel computes them by a short series at its small angles), inlined.
    """
    Pu = _cross(r0, r1, r2, u0, u1, u2)
    Wu = _cross(w0, w1, w2, u0, u1, u2)
    WPu = _cross(w0, w1, w2, Pu[0], Pu[1], Pu[2])
    PWu = _cross(r0, r1, r2, Wu[0], Wu[1], Wu[2])
    WWu = _cross(w0, w1, w2, Wu[0], Wu[1], Wu[2])
    PWWu = _cross(r0, r1, r2, WWu[0], WWu[1], WWu[2])
    WPWu = _cross(w0, w1, w2, PWu[0], PWu[1], PWu[2])
    WWPu = _cross(w0, w1, w2, WPu[0], WPu[1], WPu[2])
    WPWWu = _cross(w0, w1, w2, PWWu[0], PWWu[1], PWWu[2])  # W P W² u
    WWPWu = _cross(w0, w1, w2, WPWu[0], WPWu[1], WPWu[2])  # W² P W u
    return (  # a tuple of scalars: no allocation in the stepping kernel's inner loop
        0.5 * Pu[0]
        + c1 * (WPu[0] + PWu[0] + WPWu[0])
        + c2 * (WWPu[0] + PWWu[0] - 3.0 * WPWu[0])
        + c3 * (WPWWu[0] + WWPWu[0]),
        0.5 * Pu[1]
        + c1 * (WPu[1] + PWu[1] + WPWu[1])
        + c2 * (WWPu[1] + PWWu[1] - 3.0 * WPWu[1])
        + c3 * (WPWWu[1] + WWPWu[1]),
        0.5 * Pu[2]
        + c1 * (WPu[2] + PWu[2] + WPWu[2])
        + c2 * (WWPu[2] + PWWu[2] - 3.0 * WPWu[2])
        + c3 * (WPWWu[2] + WWPWu[2]),
    )


@njit(**JIT)
def right_jacobian_inverse_apply(code, d, x, out):
    """Out = J_r(d)⁻¹ x = J_l(−d)⁻¹ x for one spherical or free-flyer joint (else out = x).

    ``out`` may be ``x`` (each block of ``x`` is read before its block of ``out`` is written);
    nothing is allocated.
    """
    if code == SPHERICAL or code == FREE_FLYER:
        _so3_left_jacobian_apply(-d[0], -d[1], -d[2], x[0:3], out[0:3], True)
        if code == FREE_FLYER:
            # J_l(y)⁻¹ = [[J⁻¹, 0], [−J⁻¹ Q J⁻¹, J⁻¹]] at y = −d (geomech.lie.se3)
            qj = _se3_q_apply(-d[0], -d[1], -d[2], -d[3], -d[4], -d[5], out[0], out[1], out[2])
            y = out[3:6]  # x_v − Q J⁻¹ x_ω, then J⁻¹ of it in place
            y[0], y[1], y[2] = x[3] - qj[0], x[4] - qj[1], x[5] - qj[2]
            _so3_left_jacobian_apply(-d[0], -d[1], -d[2], y, y, True)
    else:
        for k in range(x.shape[0]):
            out[k] = x[k]


@njit(**JIT)
def chart_rate(topo, delta, v, out):
    """``out = δ̇`` joint by joint for one state (module docstring), joints of :data:`HANDLED`."""
    N = topo.shape[0] - 1
    for i in range(N):
        iv0, iv1 = topo[i, IV], topo[i + 1, IV]
        right_jacobian_inverse_apply(topo[i, JTYPE], delta[iv0:iv1], v[iv0:iv1], out[iv0:iv1])


@njit(**JIT)
def chart_rate_batch(topo, Delta, V, OUT):
    """:func:`chart_rate` over a batch (rows of equal-length 2-D arrays)."""
    for k in range(OUT.shape[0]):
        chart_rate(topo, Delta[k], V[k], OUT[k])


@njit(**JIT)
def joint_chart_rate_batch(code, Delta, V, OUT):
    """:func:`right_jacobian_inverse_apply` of one joint over rows: the joint's own chart rate
    (``Spherical._chart_rate``, ``FreeFlyer._chart_rate``), the same code as :func:`chart_rate`.
    """
    for k in range(OUT.shape[0]):
        right_jacobian_inverse_apply(code, Delta[k], V[k], OUT[k])
