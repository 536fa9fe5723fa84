r"""Compiled fixed-step simulation of a kinematic tree: RKMK on the joint charts, the ABA and the
built-in controllers, a chunk of steps of every trajectory of a batch in one call.

The kernel does what :func:`geomech.integration.integrate_fixed` does with the closed-loop field of
:func:`geomech.simulation.simulate` on a tree (:func:`~geomech.simulation.charts.system_chart`),
operation for operation, so that both give the same numbers. One step of an explicit tableau
``(A, b, c)`` from :math:`(q_n, \nu_n)` in the chart centred at :math:`q_n` (Munthe-Kaas 1999,
Alg. 1):

.. math:: \Theta_i = h\sum_{j<i} a_{ij} K_j,\quad q_i = q_n \oplus \Theta_i,\quad
          \nu_i = \nu_n + h\sum_{j<i} a_{ij} F_j,\quad
          K_i = J_r(\Theta_i)^{-1}\nu_i,\quad F_i = \mathrm{ABA}(q_i, \nu_i, \tau_i),

then :math:`q_{n+1} = q_n \oplus h\sum_i b_i K_i` and :math:`\nu_{n+1} = \nu_n + h\sum_i b_i F_i`.
The joints are stepped as :func:`~geomech.multibody._kernels.joints.integrate` and
:func:`~geomech.multibody._kernels.tree.chart.chart_rate` do, by a stepping table: runs of 1-DoF
joints as sums over their slices, a free flyer by :func:`_free_flyer_retract` and
:func:`_free_flyer_rate` (the joint kernels' operations without their work list, the SE(3)
chart's coefficients by a short series at the small angles of a stage), the other joints through
the joint kernels; the dynamics by the ABA of
:func:`~geomech.multibody._kernels.tree.dynamics.aba_one` (its work arrays allocated once). The
sums are formed in the order of :func:`geomech.integration.rkmk._lincomb` (zero coefficients
skipped): with the same torques, the same rounding.

The torque :math:`\tau_i` of a stage is a built-in law (``law``), the reference
:math:`(q_d, \nu_d, a_d)` at the stage's time read from arrays sampled before the call, and the
joint-wise tracking error :math:`(e, w = T\nu_d, b = \tfrac{d}{dt}T\nu_d, \dot e)` of
:func:`~geomech.multibody._kernels.tree.tracking.tracking_error` (seed 000 Remark 5):

- ``PASSIVE``: :math:`\tau = 0`;
- ``SLOTINE_LI``: :math:`\nu_r = w - \Lambda e`, :math:`a_r = b - \Lambda\dot e`,
  :math:`s = \nu - \nu_r`, :math:`\tau = \hat H a_r + \hat C(q, \nu)\nu_r + \hat g - K_D s` by the
  modified RNEA of :func:`~geomech.multibody._kernels.tree.coriolis.slotine_li_torques` with the
  estimate's inertias and body connections (seed 000 eq. 13; the Levi-Civita body forces with
  one inertia product fewer, :func:`_slotine_li`: equal to rounding);
- ``PD``: :math:`\tau = -K_P e - K_D(\nu - w)`; ``PD_GRAVITY`` adds :math:`\hat g(q)`;
- ``COMPUTED_TORQUE``: :math:`\tau = \mathrm{RNEA}(q, \nu, b - K_D(\nu - w) - K_P e)` of the
  estimate.

The RNEA of the last two is the same modified RNEA with :math:`\nu_r = \nu` (Levi-Civita body
forces :math:`\mathbf I_i\mathbf a_i + \mathbf v_i\times^*\mathbf I_i\mathbf v_i`, the RNEA's
terms): one pass, nothing allocated.

On the steps flagged in ``sampled`` the local error is estimated by step doubling, as
:func:`geomech.integration.fixed._local_error` does (two half steps of the same tableau).

The cost of a step is that of its ``s`` evaluations (the torque's pass, then the ABA): the
entry point :func:`simulate_steps` is compiled without numba's reference counting (see
``_ENTRY``), and its work arrays come from :func:`simulate_workspace`, one set per thread.

References
----------
H. Munthe-Kaas, "High order Runge-Kutta methods on manifolds", Appl. Numer. Math. 29 (1999);
seed 000 §IV-A1 (eq. 13), Remark 5; Featherstone 2008, Table 7.1 (ABA).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from geomech.multibody._kernels.jit import INLINE, JIT
from geomech.multibody._kernels.joints import (
    FIXED,
    FREE_FLYER,
    HELICAL,
    PRISMATIC,
    REVOLUTE,
    SPHERICAL,
    _quat_times_exp,
    _so3_jl,
    joint_integrate,
)
from geomech.multibody._kernels.spatial import (
    cross_force,
    cross_motion,
    dot6,
    inertia_params,
    inertia_params_times,
    transform_force_transpose,
)
from geomech.multibody._kernels.status import NON_FINITE_INPUT, OK, pack
from geomech.multibody._kernels.tables import ARMATURE, DAMPING, FRICTION, IQ, IV, JTYPE, PARENT
from geomech.multibody._kernels.tree.chart import (
    _se3_coefficients,
    _se3_q_times,
    right_jacobian_inverse_apply,
)
from geomech.multibody._kernels.tree.coriolis import _factor_times, _reference_motion
from geomech.multibody._kernels.tree.dynamics import _aba, aba_workspace
from geomech.multibody._kernels.tree.kinematics import all_finite, tree_transforms
from geomech.multibody._kernels.tree.tracking import _joint_tracking

__all__ = [
    "PASSIVE",
    "SLOTINE_LI",
    "PD",
    "PD_GRAVITY",
    "COMPUTED_TORQUE",
    "ONE_DOF_RUN",
    "STAGE_NOT_FINITE",
    "STATE_NOT_FINITE",
    "TORQUE_FAILED",
    "ACCELERATION_FAILED",
    "simulate_workspace",
    "compile_with_runtime",
    "simulate_steps",
]

#: built-in control laws (module docstring)
PASSIVE, SLOTINE_LI, PD, PD_GRAVITY, COMPUTED_TORQUE = range(5)

#: the code of a row of the stepping table (``plant``'s last item) that stands for a run of 1-DoF
#: joints with consecutive coordinates and speeds: ``q[iq0:iq1] ⊕ δ[iv0:iv1]`` is a sum there
#: (no joint code: the joint codes are non-negative)
ONE_DOF_RUN = -1

#: failures, reported per trajectory as ``(step, failure, kernel status)``: a stage's chart
#: coordinates or speeds overflowed (nothing evaluated there), the new state is not finite, the
#: controller's torque failed or is not finite, the ABA failed
STAGE_NOT_FINITE, STATE_NOT_FINITE, TORQUE_FAILED, ACCELERATION_FAILED = 1, 2, 3, 4

_JIT, _INLINE = JIT, INLINE
_RUNTIME = dict(_JIT, _nrt=True)  # (see _ENTRY)


# ----------------------------------------------------------------------------------------
# joint by joint, from the joint table (code, iq0, iq1, iv0, iv1): 1-DoF joints by index,
# the others through the joint kernels on their slices (a slice costs tens of nanoseconds)
# ----------------------------------------------------------------------------------------
@njit(**_JIT)
def _one_dof(code):
    return code == REVOLUTE or code == PRISMATIC or code == HELICAL


@njit(**_INLINE)
def _free_flyer_retract(q, d, out):
    """``out = q ⊕ δ = (p + R(quat) J_l(ω)ρ, quat ⊗ exp(ω/2))`` for a free flyer: the operations
    of ``joints.joint_integrate(FREE_FLYER, q, δ, 1, out)`` without its work list (a heap
    allocation per call there).
    """
    d0, d1, d2 = _so3_jl(d[0], d[1], d[2], d[3], d[4], d[5], False)
    x, y, z, w = q[3], q[4], q[5], q[6]
    n = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / n, y / n, z / n, w / n
    tx = 2.0 * (y * d2 - z * d1)  # p += R(quat) d
    ty = 2.0 * (z * d0 - x * d2)
    tz = 2.0 * (x * d1 - y * d0)
    out[0] = q[0] + d0 + w * tx + (y * tz - z * ty)
    out[1] = q[1] + d1 + w * ty + (z * tx - x * tz)
    out[2] = q[2] + d2 + w * tz + (x * ty - y * tx)
    _quat_times_exp(q[3:7], d[0], d[1], d[2], out[3:7])


#: 1/n! for n < 16: the SE(3) chart coefficients' short series (products, not divisions)
_INV_FACTORIALS = tuple(1.0 / math.factorial(n) for n in range(16))


@njit(**_INLINE)
def _se3_coefficients_small(th):
    """``(c1, c2, c3)`` of Barfoot's Q (``chart._se3_coefficients``) for θ < 0.1 by six terms of
    their series in Horner form (the first term left out is below 1e-23 of each: equal to
    rounding), else by ``chart._se3_coefficients``. A stage's chart coordinates are of order
    ``h|ν|``: the short series is the one taken.
    """
    x2 = th * th
    if x2 >= 0.01:
        return _se3_coefficients(th)
    f = _INV_FACTORIALS
    c1 = f[3] - x2 * (f[5] - x2 * (f[7] - x2 * (f[9] - x2 * (f[11] - x2 * f[13]))))
    c2 = f[4] - x2 * (f[6] - x2 * (f[8] - x2 * (f[10] - x2 * (f[12] - x2 * f[14]))))
    c3 = f[5] - x2 * (2.0 * f[7] - x2 * (3.0 * f[9] - x2 * (4.0 * f[11] - x2 * (
        5.0 * f[13] - x2 * 6.0 * f[15]))))  # fmt: skip
    return c1, c2, c3


@njit(**_INLINE)
def _free_flyer_rate(d, x, out):
    r"""``out = J_r(δ)⁻¹ x = J_l(−δ)⁻¹ x`` for a free flyer (``chart.right_jacobian_inverse_apply``
    in the same order of operations, the coefficients of Q by :func:`_se3_coefficients_small`):
    :math:`J_l(y)^{-1} = \begin{bmatrix}J^{-1} & 0\\ -J^{-1}QJ^{-1} & J^{-1}\end{bmatrix}` at
    :math:`y = -\delta` (Barfoot 2017, eq. 7.86).
    """
    w0, w1, w2, r0, r1, r2 = -d[0], -d[1], -d[2], -d[3], -d[4], -d[5]
    u0, u1, u2 = _so3_jl(w0, w1, w2, x[0], x[1], x[2], True)  # J⁻¹ x_ω
    # Q(ω, ρ) u = ½Pu + c1 (WP + PW + WPW)u + c2 (W²P + PW² − 3 WPW)u + c3 (WPW² + W²PW)u
    c1, c2, c3 = _se3_coefficients_small(math.sqrt(w0 * w0 + w1 * w1 + w2 * w2))
    q0, q1, q2 = _se3_q_times(c1, c2, c3, w0, w1, w2, r0, r1, r2, u0, u1, u2)
    y0, y1, y2 = x[3] - q0, x[4] - q1, x[5] - q2
    v0, v1, v2 = _so3_jl(w0, w1, w2, y0, y1, y2, True)  # J⁻¹ (x_v − Q J⁻¹ x_ω)
    out[0], out[1], out[2], out[3], out[4], out[5] = u0, u1, u2, v0, v1, v2


@njit(**_JIT)
def _retract(st, q_c, delta, out):
    """``out = q_c ⊕ δ`` (``joints.integrate`` with ``dt = 1``) by the stepping table ``st``
    (:data:`ONE_DOF_RUN` rows, the other joints by their rows); whether it is finite.
    """
    for i in range(st.shape[0]):
        code, iq0, iq1, iv0, iv1 = st[i, 0], st[i, 1], st[i, 2], st[i, 3], st[i, 4]
        if code == ONE_DOF_RUN:
            for k in range(iq1 - iq0):
                out[iq0 + k] = q_c[iq0 + k] + delta[iv0 + k]
        elif code == FREE_FLYER:
            _free_flyer_retract(q_c[iq0:iq1], delta[iv0:iv1], out[iq0:iq1])
        elif code != FIXED:
            joint_integrate(code, q_c[iq0:iq1], delta[iv0:iv1], 1.0, out[iq0:iq1])
    return all_finite(out)


@njit(**_JIT)
def _chart_velocity(st, delta, v, out):
    """``out = δ̇ = J_r(δ)⁻¹ ν`` joint by joint (``chart.chart_rate``), by the stepping table."""
    for i in range(st.shape[0]):
        code, iv0, iv1 = st[i, 0], st[i, 3], st[i, 4]
        if code == ONE_DOF_RUN:
            for k in range(iv0, iv1):
                out[k] = v[k]
        elif code == FREE_FLYER:
            _free_flyer_rate(delta[iv0:iv1], v[iv0:iv1], out[iv0:iv1])
        elif code == SPHERICAL:
            right_jacobian_inverse_apply(code, delta[iv0:iv1], v[iv0:iv1], out[iv0:iv1])


@njit(**_JIT)
def _tracking(jt, q, v, q_d, v_d, a_d, e, w, b, e_dot):
    """``(e, T ν_d, d/dt(T ν_d), ė)`` joint by joint (``tracking.tracking_error``); zero on the
    joints without speeds.
    """
    for i in range(jt.shape[0]):
        code, iq0, iq1, iv0, iv1 = jt[i, 0], jt[i, 1], jt[i, 2], jt[i, 3], jt[i, 4]
        if _one_dof(code):  # G = R: the coordinate law of seed 000 §IV-A1
            e[iv0] = q[iq0] - q_d[iq0]
            w[iv0] = v_d[iv0]
            b[iv0] = a_d[iv0]
            e_dot[iv0] = v[iv0] - v_d[iv0]
        elif code == SPHERICAL or code == FREE_FLYER:
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
        else:
            for k in range(iv0, iv1):
                e[k], w[k], b[k], e_dot[k] = 0.0, 0.0, 0.0, 0.0


# ----------------------------------------------------------------------------------------
# the closed-loop field at one stage
# ----------------------------------------------------------------------------------------
@njit(**_INLINE)
def _copy(src, dst):
    """``dst[:] = src`` element by element (numba's slice copy tests for overlap and may allocate
    a temporary: not allowed in :func:`simulate_steps`).
    """
    for k in range(src.shape[0]):
        dst[k] = src[k]


@njit(**_JIT)
def _matvec_sub(M, x, out):
    """``out -= M x`` (row by row)."""
    n = x.shape[0]
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += M[i, j] * x[j]
        out[i] -= s


@njit(**_INLINE)
def _gain_sub(G, diagonal, k, x, out):
    """``out -= G[k] x``; by the diagonal only when ``G[k]`` is diagonal (``diagonal[k]``: the
    same numbers, the zeros' products skipped).
    """
    M = G[k]
    if diagonal[k]:
        for i in range(x.shape[0]):
            out[i] -= M[i, i] * x[i]
    else:
        _matvec_sub(M, x, out)


@njit(**_JIT)
def _slotine_li(est, q, v, v_r, a_r, tau, sw):
    r""":math:`\hat H a_r + \hat C(q, \nu)\nu_r + \hat g` by the modified RNEA of
    :func:`~geomech.multibody._kernels.tree.coriolis.slotine_li_torques`; a status.

    Body forces :math:`\mathbf f_i = \mathbf I_i\boldsymbol\alpha_i + \mathbf B_i(\mathbf v_i)
    \mathbf w_i`; for the Levi-Civita connection (seed 000 eq. 21) with three inertia products,
    :math:`\mathbf f_i = \mathbf I_i(\boldsymbol\alpha_i - \tfrac12\mathbf v_i\times\mathbf w_i)
    + \tfrac12[\mathbf v_i\times^*\mathbf I_i\mathbf w_i + \mathbf w_i\times^*\mathbf I_i
    \mathbf v_i]` (the inertias as their ten parameters).
    """
    etopo, placement, jparam, inertia, S, S_ring, T_user, _, _, parent, ejt, Bt, lc, gravity = est
    E, r, vel, w, alpha, f, I10, x, y, z, x3 = sw
    # ---- forward pass: twists v_i of ν, w_i of ν_r, α_i (coriolis.reference_state) -----------
    if not (all_finite(q) and all_finite(v) and all_finite(v_r) and all_finite(a_r)):
        return pack(NON_FINITE_INPUT, -1)
    status = tree_transforms(etopo[:-1, JTYPE], etopo[:, IQ], placement, jparam, T_user, q, E, r)
    if status != OK:
        return status
    _reference_motion(
        etopo[:-1, PARENT], etopo[:, IV], S, S_ring, E, r, v, v_r, a_r, gravity, vel, w, alpha, x3
    )
    for i in range(parent.shape[0]):  # f_i = I_i α_i + B_i(v_i) w_i
        p, fi = I10[i], f[i]
        if lc:
            x[:] = 0.0
            cross_motion(vel[i], w[i], x)  # v_i × w_i
            for a in range(6):
                x[a] = alpha[i, a] - 0.5 * x[a]
            inertia_params_times(p, x, fi)
            x[:] = 0.0
            inertia_params_times(p, w[i], y)
            cross_force(vel[i], y, x)
            inertia_params_times(p, vel[i], y)
            cross_force(w[i], y, x)
            for a in range(6):
                fi[a] += 0.5 * x[a]
        else:
            inertia_params_times(p, alpha[i], fi)
            _factor_times(Bt[i], lc, inertia[i], vel[i], w[i], x, y, z)
            for a in range(6):
                fi[a] += x[a]
    # ---- backward pass: τ_i = Φ_iᵀ f_i (+ k_a a_r), f_p(i) += ^iX_p(i)ᵀ f_i ------------------
    for i in range(parent.shape[0] - 1, -1, -1):
        for k in range(ejt[i, 3], ejt[i, 4]):
            tau[k] = dot6(S[k], f[i]) + jparam[i, ARMATURE + k - ejt[i, 3]] * a_r[k]
        if parent[i] >= 0:
            transform_force_transpose(E[i], r[i], f[i], f[parent[i]])
    return OK


@njit(**_JIT)
def _torque(law, q, v, q_d, v_d, a_d, tau, work):
    """The torque of the built-in law at ``(q, v)`` and the reference; a kernel status.

    ``law = (code, cjt, est, G, diagonal)``: the tracked model's joint table, the estimate
    ``est`` (``topo``, ``placement``, ``jparam``, ``inertia``, ``S``, ``S_ring``, ``T_user``,
    ``a0``, ``f_ext``, ``parent``, its joint table, body factors ``Bt``, ``levi_civita``,
    gravity), the gains ``G`` (``Λ`` or ``K_P``, then ``K_D``) and whether each is diagonal;
    ``work = (rows, sw)``: six work rows of ``nv`` and the work arrays of :func:`_slotine_li`.
    """
    code, cjt, est, G, diagonal = law
    if code == PASSIVE:
        tau[:] = 0.0
        return OK
    rows, sw = work
    e, w, b, e_dot, x, y = rows[0], rows[1], rows[2], rows[3], rows[4], rows[5]
    _tracking(cjt, q, v, q_d, v_d, a_d, e, w, b, e_dot)  # joint-wise error (Remark 5)
    n = v.shape[0]
    if code == SLOTINE_LI:
        # ν_r = w − Λ e, a_r = b − Λ ė (reference._with_gain), s = ν − ν_r
        v_r, a_r = x, y
        _copy(w, v_r)
        _copy(b, a_r)
        _gain_sub(G, diagonal, 0, e, v_r)
        _gain_sub(G, diagonal, 0, e_dot, a_r)
        status = _slotine_li(est, q, v, v_r, a_r, tau, sw)
        if status != OK:
            return status
        for i in range(n):
            e_dot[i] = v[i] - v_r[i]  # s (ė is not read again)
        _gain_sub(G, diagonal, 1, e_dot, tau)  # τ = Ĥ a_r + Ĉ ν_r + ĝ − K_D s (seed 000 eq. 13)
        return OK
    for i in range(n):
        w[i] = v[i] - w[i]  # ξ_e = ν − T ν_d
    # the RNEA of the estimate by the modified RNEA with ν_r = ν (Levi-Civita forces, f_i = I_i α_i
    # + ½[v_i ×* I_i v_i + v_i ×* I_i v_i] = I_i a_i + v_i ×* I_i v_i: the same terms)
    if code == COMPUTED_TORQUE:
        _copy(b, x)  # a = b − K_D ξ_e − K_P e, τ = RNEA(q, ν, a) of the estimate
        _gain_sub(G, diagonal, 1, w, x)
        _gain_sub(G, diagonal, 0, e, x)
        return _slotine_li(est, q, v, v, x, tau, sw)
    if code == PD_GRAVITY:  # τ = ĝ(q) − K_P e − K_D ξ_e, ĝ(q) = RNEA(q, 0, 0)
        y[:] = 0.0
        status = _slotine_li(est, q, y, y, y, tau, sw)
        if status != OK:
            return status
    else:  # PD: τ = −K_P e − K_D ξ_e
        tau[:] = 0.0
    _gain_sub(G, diagonal, 0, e, tau)
    _gain_sub(G, diagonal, 1, w, tau)
    return OK


@njit(**_JIT)
def _law_workspace(law, nv):
    """The work arrays of :func:`_torque`: ``(rows, sw)``, ``sw`` with the estimate's inertia
    parameters filled in.
    """
    inertia = law[2][3]
    N = inertia.shape[0]
    I10 = np.empty((N, 10))
    for i in range(N):
        inertia_params(inertia[i], I10[i])
    sw = (
        np.empty((N, 3, 3)),  # E
        np.empty((N, 3)),  # r
        np.empty((N, 6)),  # vel
        np.empty((N, 6)),  # w
        np.empty((N, 6)),  # alpha
        np.empty((N, 6)),  # f
        I10,
        np.empty(6),
        np.empty(6),
        np.empty(6),
        np.empty((3, 6)),  # the forward pass's
    )
    return np.empty((6, nv)), sw


@njit(**_JIT)
def _with_joint_friction(jt, jparam, v, tau, out):
    r"""``out = τ + τ_f``, :math:`\tau_f = -k_d\nu - k_f\operatorname{sign}\nu` per speed
    (``jparam``'s ``DAMPING`` and ``FRICTION``), summed as
    :func:`~geomech.multibody.algorithms.dynamics.joint_friction_torques` and
    ``forward_dynamics`` do.
    """
    for i in range(jt.shape[0]):
        iv0, iv1 = jt[i, 3], jt[i, 4]
        for k in range(iv0, iv1):
            x = v[k]
            sgn = 1.0 if x > 0.0 else (-1.0 if x < 0.0 else 0.0 * x)
            out[k] = tau[k] + (
                -(jparam[i, DAMPING + k - iv0] * x) - jparam[i, FRICTION + k - iv0] * sgn
            )


@njit(**_INLINE)
def _field(plant, law, ref, r, q, v, tau, a, work):
    """Torque ``tau`` and acceleration ``a`` at ``(q, v)``, reference row ``r``: ``(failure,
    status)``. ``work = (law_work, aba_work)``. The ABA is driven by ``tau`` plus the joint
    friction torque (:func:`_with_joint_friction`, when the plant has any); ``tau`` (the
    recorded torque) is the law's. Free motion leaves ``tau`` as it is (zeros: the caller's).
    """
    if law[0] != PASSIVE:
        RQ, RV, RA = ref
        status = _torque(law, q, v, RQ[r], RV[r], RA[r], tau, work[0])
        if status != OK or not all_finite(tau):
            return TORQUE_FAILED, status
    topo, jt, placement, jparam, inertia, S, S_ring, T_user, a0, f_ext, friction, _ = plant
    tau_a = tau
    if friction:
        tau_a = work[0][0][4]  # a work row of the law, free once the torque is formed
        _with_joint_friction(jt, jparam, v, tau, tau_a)
    status = _aba(
        topo, placement, jparam, inertia, S, S_ring, T_user, q, v, tau_a, a0, f_ext, a, work[1]
    )
    if status != OK:
        return ACCELERATION_FAILED, status
    return OK, OK


# ----------------------------------------------------------------------------------------
# one RKMK increment in the chart centred at q_c (RKMK.increment)
# ----------------------------------------------------------------------------------------
@njit(**_INLINE)
def _lincomb(a, i, X, out):
    """``out = Σ_{j<i} a[j] X[j]`` summed as ``rkmk._lincomb``, row by row (zero coefficients
    skipped; ``0 X[0]`` when all are zero, which keeps a NaN).
    """
    first = True
    for j in range(i):
        c = a[j]
        if c != 0.0:
            x = X[j]
            if first:
                for k in range(out.shape[0]):
                    out[k] = c * x[k]
                first = False
            else:
                for k in range(out.shape[0]):
                    out[k] = out[k] + c * x[k]
    if first:
        for k in range(out.shape[0]):
            out[k] = 0.0 * X[0, k]


@njit(**_JIT)
def _stage_state(a, i, K, F, h, d0, has_d0, y, Theta, y_i):
    """``Θ_i = δ_0 + h Σ_{j<i} a_ij K_j``, ``ν_i = ν_n + h Σ_{j<i} a_ij F_j``, each sum as
    ``h (Σ ...)`` then the addition (``integrate_fixed``'s order); whether both are finite.
    """
    _lincomb(a, i, K, Theta)
    _lincomb(a, i, F, y_i)
    bad = 0.0
    for k in range(Theta.shape[0]):
        t = h * Theta[k]
        if has_d0:
            t = d0[k] + t
        x = y[k] + h * y_i[k]
        Theta[k], y_i[k] = t, x
        bad += 0.0 * t + 0.0 * x  # NaN when either is not finite
    return bad == 0.0


@njit(**_JIT)
def _increment(plant, law, ref, rows, tableau, q_c, y, h, d0, has_d0, work, delta, y_next):
    r"""One increment of the tableau from :math:`(q_c \oplus \delta_0, y)` over ``h`` into
    ``delta``, ``y_next``: ``(failure, status)``.

    Without :math:`\delta_0` (an RKMK step) the first stage is the caller's: ``F[0]`` holds the
    acceleration at the step's start. ``rows[i]`` is the reference row of stage ``i``.
    """
    A, bw = tableau
    K, F, tau, Theta, y_i, q_i, w6 = work
    st = plant[11]
    s = bw.shape[0]
    for i in range(s):
        # ---- stage i (Munthe-Kaas 1999, Alg. 1) ------------------------------------------
        if i == 0:
            if not has_d0:
                _copy(y, K[0])  # dexp⁻¹_0 = 1: K_1 = ξ_1 = ν_n
                continue
            _copy(d0, Theta)  # Θ_1 = δ_0
            _copy(y, y_i)
        # Θ_i = δ_0 + h Σ_j a_ij K_j, ν_i = ν_n + h Σ_j a_ij F_j
        elif not _stage_state(A[i], i, K, F, h, d0, has_d0, y, Theta, y_i):
            return STAGE_NOT_FINITE, OK  # a stage blew up: nothing is evaluated there
        if not _retract(st, q_c, Theta, q_i):  # q_i = q_c ⊕ Θ_i
            return STAGE_NOT_FINITE, OK
        failure, status = _field(plant, law, ref, rows[i], q_i, y_i, tau, F[i], w6)
        if failure != OK:
            return failure, status
        _chart_velocity(st, Theta, y_i, K[i])  # K_i = J_r(Θ_i)⁻¹ ν_i
    # ---- update: δ = δ_0 + h Σ b_i K_i, ν_{n+1} = ν_n + h Σ b_i F_i -----------------------
    _stage_state(bw, s, K, F, h, d0, has_d0, y, delta, y_next)  # (checked by the caller)
    return OK, OK


@njit(**_JIT)
def _local_error(plant, law, ref, rows, tableau, q, y, h, tol, F1, work, delta, y_next, half):
    """Step-doubling error of the step ``(delta, y_next)`` from ``(q, y)``, in tolerance units and
    before the factor ``2^p / (2^p − 1)`` (``fixed._local_error``); ``inf`` when a half step fails.
    """
    s = tableau[1].shape[0]
    atol, rtol = tol
    d1, y1, d2, y2 = half[0], half[1], half[2], half[3]
    F = work[1]
    _copy(F1, F[0])  # the first half step reuses k_1
    failure, _ = _increment(
        plant, law, ref, rows[s : 2 * s], tableau, q, y, 0.5 * h, d1, False, work, d1, y1
    )
    if failure == OK:  # the second from t_n + h/2, in the same chart
        failure, _ = _increment(
            plant, law, ref, rows[2 * s : 3 * s], tableau, q, y1, 0.5 * h, d1, True, work, d2, y2
        )
    if failure != OK:
        return np.inf
    e_q = 0.0
    for k in range(d2.shape[0]):
        e_q = max(e_q, abs(d2[k] - delta[k]) / (atol + rtol))
    size = 0.0  # norm-wise relative error of ν
    for k in range(y.shape[0]):
        size = max(size, abs(y[k]), abs(y_next[k]))
    e_y = 0.0
    for k in range(y2.shape[0]):
        e_y = max(e_y, abs(y2[k] - y_next[k]) / (atol + rtol * size))
    err = max(e_q, e_y)
    return err if math.isfinite(err) else np.inf


# ----------------------------------------------------------------------------------------
# a chunk of steps of one trajectory (integrate_fixed)
# ----------------------------------------------------------------------------------------
@njit(**_JIT)
def _trajectory(
    plant, law, ref, rows, sampled, tableau, h, tol, Q, Y, TAU, ERR, n0, n1, b, fail, work, step
):
    """Steps ``n0 .. n1 - 1`` of trajectory ``b``; ``fail = (step, failure, status)``, step −1
    when none. ``work``, ``step``: :func:`simulate_workspace`.
    """
    s = tableau[1].shape[0]
    F = work[1]
    F1, delta, y_next, half = step
    fail[0], fail[1], fail[2] = -1, OK, OK
    for n in range(n0, n1):
        m = n - n0
        q, y = Q[n, b], Y[n, b]
        # k_1 = field(t_n, q_n, ν_n): its torque is the one recorded at t_n
        failure, status = _field(plant, law, ref, rows[m, 0], q, y, TAU[n, b], F1, work[6])
        if failure == OK:
            _copy(F1, F[0])
            failure, status = _increment(
                plant, law, ref, rows[m, :s], tableau, q, y, h, delta, False, work, delta, y_next
            )
            if failure == STAGE_NOT_FINITE:  # a NaN step: the new state is not finite
                failure = STATE_NOT_FINITE
        if failure != OK:
            fail[0], fail[1], fail[2] = n, failure, status
            return
        if sampled[m]:
            ERR[m, b] = _local_error(
                plant, law, ref, rows[m], tableau, q, y, h, tol, F1, work, delta, y_next, half
            )
        # q_{n+1} = q_n ⊕ δ (re-centred at every step)
        q_next = Q[n + 1, b]
        if not (_retract(plant[11], q, delta, q_next) and all_finite(y_next)):
            fail[0], fail[1], fail[2] = n, STATE_NOT_FINITE, OK
            return
        _copy(y_next, Y[n + 1, b])


# ----------------------------------------------------------------------------------------
# the entry point: a range of trajectories of a batch (threads take disjoint ranges)
# ----------------------------------------------------------------------------------------
@njit(**_JIT)
def simulate_workspace(plant, law, s, nq, nv):
    """The work arrays of :func:`simulate_steps` for one thread: ``(work, step)``.

    ``work = (K, F, tau, Θ, y_i, q_i, (law work, ABA work))`` (``tau`` zero: free motion does not
    write it), ``step = (F1, δ, y_next, half)``. The caller copies them into arrays of its own
    (:func:`simulate_steps` takes no array that numba counts references of).
    """
    work = (
        np.empty((s, nv)),  # K
        np.empty((s, nv)),  # F
        np.zeros(nv),  # tau (zero under free motion)
        np.empty(nv),  # Theta
        np.empty(nv),  # y_i
        np.empty(nq),  # q_i
        (_law_workspace(law, nv), aba_workspace(plant[2].shape[0], nv)),  # the field's
    )
    return work, (np.empty(nv), np.empty(nv), np.empty(nv), np.empty((4, nv)))


#: numba's reference counting off in the entry point and the functions of this module it calls
#: (``_nrt=False``, which numba hands down to the callees it compiles for it): the arrays it is
#: given (the caller's NumPy arrays, the copied workspace) are unboxed without a reference count
#: (a null ``meminfo``), and the count updates that every kernel call makes on every array it is
#: passed (atomic increments and decrements, several hundred a step) are gone or a test of a
#: null pointer. Measured: the ABA of the UR5 1.33 -> 0.89 us a call, of the humanoid 4.57 ->
#: 3.57 us; the step of the UR5 another 20 % faster than with the runtime in this module's
#: functions. The shared ABA needs the runtime (a temporary in a slice copy, ``all_finite``'s
#: ``ravel``): :func:`compile_with_runtime` compiles it first, with the runtime. Any other
#: callee must not need it: ``joints.joint_integrate`` builds a list for the free flyer, which
#: is why the free flyer is stepped by :func:`_free_flyer_retract` (with the joint kernel, a
#: cold cache failed to compile a free-flyer run unless an earlier call had compiled
#: ``joint_integrate`` with the runtime for the same types).
_ENTRY = dict(_JIT, _nrt=False)


@njit(**_RUNTIME)
def compile_with_runtime(plant, ws, run):
    """Compiles, with numba's runtime, the shared kernels :func:`simulate_steps` calls that need
    it (the ABA) for the types of ``plant`` and ``ws``, so that numba reuses them when it
    compiles :func:`simulate_steps` (its callees would otherwise be compiled without the runtime,
    which they refuse); the caller calls it first, with ``run`` False (nothing is evaluated).
    """
    if run:
        topo, jt, placement, jparam, inertia, S, S_ring, T_user, a0, f_ext, _, _ = plant
        K, F, tau, Theta, y_i, q_i, w6 = ws[0]
        _aba(
            topo,
            placement,
            jparam,
            inertia,
            S,
            S_ring,
            T_user,
            q_i,
            y_i,
            tau,
            a0,
            f_ext,
            F[0],
            w6[1],
        )


@njit(**_ENTRY)
def simulate_steps(
    plant, law, ref, rows, sampled, tableau, h, tol, Q, Y, TAU, ERR, n0, n1, b0, b1, FAIL, ws
):
    """Steps ``n0 .. n1 - 1`` of the trajectories ``b0 .. b1 - 1`` of a batch.

    Parameters
    ----------
    plant : tuple
        ``(topo, jt, placement, jparam, inertia, S, S_ring, T_user, a0, f_ext, friction, st)``
        of the simulated tree: its compiled model's arrays (one state's), the joint table ``jt``
        (N, 5) with rows ``(code, iq0, iq1, iv0, iv1)``, ``a0 = [0; −g]``, ``f_ext`` without
        rows, whether any joint has damping or Coulomb friction, and the stepping table ``st``:
        ``jt`` without fixed joints, its consecutive 1-DoF joints merged into
        :data:`ONE_DOF_RUN` rows.
    law : tuple
        ``(code, cjt, est, G, diagonal)`` (:func:`_torque`, :func:`_slotine_li`).
    ref : tuple
        ``(RQ, RV, RA)``: the reference ``(q_d, ν_d, a_d)`` sampled at the stages' times (rows).
    rows : ndarray of int, shape (n1 − n0, 3 s)
        For each step, the reference rows of its ``s`` stages, then of the stages of its two
        half steps (read on the steps flagged in ``sampled``).
    sampled : ndarray of bool, shape (n1 − n0,)
        The steps whose local error is estimated into ``ERR[n − n0, b]``.
    tableau : tuple
        ``(A, b)`` of the method.
    h : float
    tol : tuple
        ``(atol, rtol)``.
    Q, Y, TAU : ndarray, shape (N + 1, B, nq), (N + 1, B, nv), (N + 1, B, nv)
        The trajectories (time first); row ``n0`` is the start, rows up to ``n1`` are written
        (``TAU`` is not written under free motion: zeros).
    ERR : ndarray, shape (n1 − n0, B)
    n0, n1, b0, b1 : int
    FAIL : ndarray of int, shape (B, 3)
        ``(step, failure, kernel status)`` of each trajectory, step −1 when it did not fail.
    ws : tuple
        ``(work, step)`` of :func:`simulate_workspace` as NumPy arrays, one per thread.

    The kernel holds no lock (``nogil``): threads may run disjoint ranges of one batch.
    """
    for b in range(b0, b1):
        _trajectory(
            plant,
            law,
            ref,
            rows,
            sampled,
            tableau,
            h,
            tol,
            Q,
            Y,
            TAU,
            ERR,
            n0,
            n1,
            b,
            FAIL[b],
            ws[0],
            ws[1],
        )
