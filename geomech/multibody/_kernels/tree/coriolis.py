r"""Coriolis kernels: seed 000 Alg. 1, :math:`\bar C^\top w` and the Slotine–Li torques, one state
per call.

Every body connection enters through one constant tensor per body (built once in Python by
:mod:`geomech.multibody.algorithms.coriolis` and cached): a left-invariant connection is linear in
the twist, :math:`\mathbf C(\mathbf I, \mathbf v)_{ik} = \Gamma_{ijk}(\mathbf I)\,v^j`, so

.. math:: \mathbf B_i(\mathbf v) = \mathbf C_i(\mathbf v) - \mathbf I_i(\mathbf v\times)
          = \textstyle\sum_j v^j\,\mathtt{Bt}_i[j], \qquad
          \mathtt{Bt}_i[j] = \mathbf B_i(\mathbf e_j)

(``Bt`` (N, 6, 6, 6); seed 000 eq. 21 for the Levi-Civita choice). The arrays of the compiled
model come first (:mod:`geomech.multibody._kernels.tree.dynamics` lists them), then ``Bt``, then the
per-state joint arrays ``S``, ``S_ring``, ``T_user`` and the state. Each kernel returns a
packed status (:mod:`~geomech.multibody._kernels.status`); its ``*_batch`` driver loops it over
a batch (a row-1 per-state array is shared) and returns the first failure + 1.

References
----------
seed 000 Alg. 1 (eqs. 17, 20–23), §VI-B; seed 001 Alg. 1, eq. (10); Niemeyer and Slotine
(1991).
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from geomech.multibody._kernels.compiled import unpack
from geomech.multibody._kernels.jit import (
    FMA,
    FMA_BATCH,
    FMA_ENTRY,
    FMA_INLINE,
    INLINE,
    JIT,
    at,
    first_failure,
)
from geomech.multibody._kernels.joints import USER
from geomech.multibody._kernels.spatial import (
    compose_transforms,
    congruence,
    cross_force,
    cross_motion,
    dot6,
    inertia_params,
    inertia_params_rate,
    inertia_params_times,
    inertia_params_transform,
    matTvec6,
    matvec6,
    transform_force_transpose,
    transform_motion,
    transform_motion_transpose,
)
from geomech.multibody._kernels.status import (
    NON_FINITE_INPUT,
    NON_FINITE_RESULT,
    NOT_A_VECTOR,
    OK,
    pack,
)
from geomech.multibody._kernels.tables import ARMATURE, IQ, IV, IV_END, JTYPE, PARENT
from geomech.multibody._kernels.tree.kinematics import (
    all_finite,
    finite_vector,
    is_vector,
    joint_velocity,
    tree_transforms,
    tree_transforms_inline,
)
from geomech.multibody._kernels.views import frame_large, release_large, row, workspace

__all__ = [
    "add_composite",
    "body_factor",
    "coriolis_workspace",
    "coriolis_work",
    "coriolis",
    "coriolis_batch",
    "coriolis_one",
    "mass_matrix_derivative_batch",
    "coriolis_transpose_product",
    "coriolis_transpose_product_batch",
    "reference_motion",
    "reference_state",
    "slotine_li_torques",
    "slotine_li_torques_batch",
]


@njit(**INLINE)
def add_composite(I_C, P_C, h_C, B_C, levi_civita, j, p):
    """Seed 000 Alg. 1 l.20-21: body ``j``'s composite quantities into ``p``'s (ground
    coordinates: plain sums; ``P_C``, ``h_C`` for Levi-Civita, else ``B_C``).
    """
    for a in range(10):
        I_C[p, a] += I_C[j, a]
    if levi_civita:
        for a in range(10):
            P_C[p, a] += P_C[j, a]
        for a in range(6):
            h_C[p, a] += h_C[j, a]
    else:
        for a in range(6):
            for b in range(6):
                B_C[p, a, b] += B_C[j, a, b]


@njit(**JIT)
def body_factor(Bt, v, out):
    r"""``out = B(v) = Σ_j v^j Bt[j]`` (a body's :math:`\mathbf C - \mathbf I(\mathbf v\times)`)."""
    for a in range(6):
        for b in range(6):
            out[a, b] = v[0] * Bt[0, a, b]
    for j in range(1, 6):
        vj = v[j]
        for a in range(6):
            for b in range(6):
                out[a, b] += vj * Bt[j, a, b]


@njit(**JIT)
def _factor_times(Bt, levi_civita, I, v, w, out, t, u):  # noqa: E741
    r"""``out = B(v) w`` of a body (``t``, ``u``: 6-vector work arrays).

    From the tensor, :math:`\sum_{j,b} v^j\,\mathtt{Bt}[j, :, b]\,w^b`; for the Levi-Civita
    connection eq. 21 in closed form, :math:`\tfrac12[(\mathbf v\times^*)\mathbf I\mathbf w
    + (\mathbf w\times^*)\mathbf I\mathbf v - \mathbf I(\mathbf v\times\mathbf w)]`.
    """
    for a in range(6):
        out[a] = 0.0
    if levi_civita:
        matvec6(I, w, t)
        cross_force(v, t, out)
        matvec6(I, v, t)
        cross_force(w, t, out)
        t[:] = 0.0
        cross_motion(v, w, t)
        matvec6(I, t, u)
        for a in range(6):
            out[a] = 0.5 * (out[a] - u[a])
        return
    for j in range(6):
        vj = v[j]
        for a in range(6):
            s = 0.0
            for b in range(6):
                s += Bt[j, a, b] * w[b]
            out[a] += vj * s


@njit(**JIT)
def _factor_transpose_times(Bt, levi_civita, I, v, u, out, t, z):  # noqa: E741
    r"""``out = B(v)ᵀ u`` of a body; Levi-Civita: :math:`\tfrac12[(\mathbf v\times^*)\mathbf I
    \mathbf u - \mathbf I(\mathbf v\times\mathbf u) - (\mathbf u\times^*)\mathbf I\mathbf v]`.
    """
    for b in range(6):
        out[b] = 0.0
    if levi_civita:
        matvec6(I, u, t)
        cross_force(v, t, out)
        t[:] = 0.0
        cross_motion(v, u, t)
        matvec6(I, t, z)
        for a in range(6):
            out[a] -= z[a]
        matvec6(I, v, t)
        z[:] = 0.0
        cross_force(u, t, z)
        for a in range(6):
            out[a] = 0.5 * (out[a] - z[a])
        return
    for j in range(6):
        vj = v[j]
        for a in range(6):
            c = vj * u[a]
            for b in range(6):
                out[b] += Bt[j, a, b] * c


@njit(**JIT)
def _twists(parent, iv, S, E, r, v, vel, vJ):
    """Seed 001 eq. 5: ``vel[i] = X_up[i] vel[p(i)] + Φ_i ν_i``."""
    for i in range(parent.shape[0]):
        joint_velocity(S, iv, i, v, vJ)
        p = parent[i]
        if p < 0:
            vel[i, :] = vJ
        else:
            transform_motion(E[i], r[i], vel[p], vel[i])
            for a in range(6):
                vel[i, a] += vJ[a]


# ----------------------------------------------------------------------------------------
# seed 000 Alg. 1
# ----------------------------------------------------------------------------------------
@njit(**INLINE)
def _coriolis_shapes(N, nv):
    """The shapes of :func:`coriolis_work`'s work arrays, in the order of the buffer."""
    return (
        (N, 3, 3),  # E, r: ^iX_p(i)
        (N, 3),
        (N, 3, 3),  # E0, r0: ^iX_0
        (N, 3),
        (N, 6),  # vel: body twists, ground coordinates
        (N, 10),  # I_C, P_C: ten parameters
        (N, 10),
        (N, 6),  # h_C
        (N, 6, 6),  # B_C: any connection
        (nv, 6),  # Phi, Phi_dot: columns (rows), ground coordinates
        (nv, 6),
        (6, nv),  # F1, F2, F3: f1, f2, f3 of every joint, as columns
        (6, nv),
        (6, nv),
        (6, 6),  # W, B_i
        (6, 6),
        (6,),  # x, y
        (6,),
    )


@njit(**INLINE)
def _coriolis_order(views):
    """The views of :func:`_coriolis_shapes` in the order :func:`coriolis_work` takes them."""
    E, r, E0, r0, vel, I_C, P_C, h_C, B_C, Phi, Phi_dot, F1, F2, F3, W, B_i, x, y = views
    return E, r, E0, r0, vel, Phi, Phi_dot, I_C, P_C, h_C, B_C, F1, F2, F3, W, B_i, x, y


@njit(**JIT)
def coriolis_workspace(N, nv):
    """The work arrays of :func:`coriolis_work` for ``N`` bodies and ``nv`` speeds, from one
    allocation: ``(E, r, E0, r0, vel, Phi, Phi_dot, I_C, P_C, h_C, B_C, F1, F2, F3, W, B_i,
    x, y)``.
    """
    return _coriolis_order(workspace(_coriolis_shapes(N, nv)))


@njit(**FMA_INLINE)
def _coriolis_work(
    topo, placement, jparam, inertia, Bt, levi_civita, S, S_ring, T_user, q, v, C, work
):
    """:func:`coriolis_work`, inlined into its callers."""
    E, r, E0, r0, vel, Phi, Phi_dot, I_C, P_C, h_C, B_C, F1, F2, F3, W, B_i, x, y = work
    parent, jtype = topo[:-1, PARENT], topo[:-1, JTYPE]
    iq, iv, iv_end = topo[:, IQ], topo[:, IV], topo[:, IV_END]
    N = parent.shape[0]
    if not (finite_vector(q) and finite_vector(v)):
        return pack(NON_FINITE_INPUT, -1)
    status = tree_transforms_inline(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:
        return status

    # ---- forward pass: twists, axis rates, body inertias and factors (ground coordinates) --
    for i in range(N):
        p = parent[i]
        if p < 0:  # (entry by entry: a slice copy may allocate a temporary)
            for a in range(3):
                E0[i, a, 0], E0[i, a, 1], E0[i, a, 2] = E[i, a, 0], E[i, a, 1], E[i, a, 2]
                r0[i, a] = r[i, a]
            vel[i, :] = 0.0
        else:
            compose_transforms(E[i], r[i], E0[p], r0[p], E0[i], r0[i])  # ^iX_0 = ^iX_p ^pX_0
            for a in range(6):
                vel[i, a] = vel[p, a]
        for k in range(iv[i], iv[i + 1]):  # l.3: v_i = v_p(i) + Φ_i ν_i
            transform_motion_transpose(E0[i], r0[i], S[k], Phi[k])
            for a in range(6):
                vel[i, a] += Phi[k, a] * v[k]
        for k in range(iv[i], iv[i + 1]):  # l.4: Φ̇_i = (v_i ×) Φ_i + Φ̊_i
            if jtype[i] == USER:  # Φ̊ = 0 for every built-in joint
                transform_motion_transpose(E0[i], r0[i], S_ring[k], Phi_dot[k])
            else:
                Phi_dot[k, :] = 0.0
            cross_motion(vel[i], Phi[k], Phi_dot[k])
        inertia_params(inertia[i], I_C[i])  # l.5: I^C_i = I_i
        inertia_params_transform(E0[i], r0[i], I_C[i], I_C[i])
        if levi_civita:  # l.6, eq. 21
            inertia_params_rate(I_C[i], vel[i], P_C[i])
            inertia_params_times(I_C[i], vel[i], h_C[i])
        else:  # l.6 with the chosen B_i, of the body twist, moved to the ground
            transform_motion(E0[i], r0[i], vel[i], x)
            body_factor(Bt[i], x, B_i)
            B_C[i, :, :] = 0.0
            congruence(E0[i], r0[i], B_i, W, B_C[i])

    # ---- backward pass: composite I_C, B_C, and the blocks of C joint by joint ------------
    C[:, :] = 0.0
    bad = False
    for i in range(N - 1, -1, -1):
        for k in range(iv[i], iv[i + 1]):
            inertia_params_times(I_C[i], Phi_dot[k], F1[:, k])  # l.9: f1 = I^C_i Φ̇_i + B^C_i Φ_i
            inertia_params_times(I_C[i], Phi[k], F2[:, k])  # l.10: f2 = I^C_i Φ_i
            if levi_civita:  # B^C Φ = ½[P^C Φ + Φ ×* h^C], B^Cᵀ Φ = ½[P^C Φ − Φ ×* h^C]
                inertia_params_times(P_C[i], Phi[k], x)
                y[:] = 0.0
                cross_force(Phi[k], h_C[i], y)
                for a in range(6):
                    F1[a, k] += 0.5 * (x[a] + y[a])
                    F3[a, k] = 0.5 * (x[a] - y[a])  # l.11: f3 = B^C_iᵀ Φ_i
            else:
                matvec6(B_C[i], Phi[k], x)
                for a in range(6):
                    F1[a, k] += x[a]
                matTvec6(B_C[i], Phi[k], F3[:, k])  # l.11: f3 = B^C_iᵀ Φ_i
        for m in range(iv[i], iv[i + 1]):  # joint i with every joint j of its subtree:
            a0, a1, a2, a3, a4, a5 = Phi[m]
            b0, b1, b2, b3, b4, b5 = Phi_dot[m]
            # (unsigned indices: no negative-index wraparound, so that the loops vectorise)
            for k in range(uint64(iv[i]), uint64(iv_end[i])):  # l.12, l.17: C_ij = Φ_iᵀ f1_j
                C_ij = (
                    a0 * F1[0, k]
                    + a1 * F1[1, k]
                    + a2 * F1[2, k]
                    + a3 * F1[3, k]
                    + a4 * F1[4, k]
                    + a5 * F1[5, k]
                )
                bad |= C_ij - C_ij != 0.0  # NaN or inf
                C[m, k] = C_ij
            for k in range(uint64(iv[i + 1]), uint64(iv_end[i])):  # l.18, j below i:
                C_ji = (
                    b0 * F2[0, k]
                    + b1 * F2[1, k]
                    + b2 * F2[2, k]
                    + b3 * F2[3, k]
                    + b4 * F2[4, k]
                    + b5 * F2[5, k]
                    + a0 * F3[0, k]
                    + a1 * F3[1, k]
                    + a2 * F3[2, k]
                    + a3 * F3[3, k]
                    + a4 * F3[4, k]
                    + a5 * F3[5, k]
                )
                bad |= C_ji - C_ji != 0.0  # C_ji = (Φ̇_iᵀ f2_j + Φ_iᵀ f3_j)ᵀ
                C[k, m] = C_ji
        p = parent[i]
        if p >= 0:  # l.20-21, guarded at the root (sums in ground coordinates)
            add_composite(I_C, P_C, h_C, B_C, levi_civita, i, p)
    if bad:
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**FMA)
def coriolis_work(
    topo, placement, jparam, inertia, Bt, levi_civita, S, S_ring, T_user, q, v, C, work
):
    r"""Seed 000 Alg. 1 (single-body clusters) for one state: ``C`` (nv, nv).

    :math:`\bar C_{ij} = \boldsymbol\Phi_i^\top{}^k\mathbf X_i^\top(\mathbf I^C_k\,{}^k
    \mathbf X_j\dot{\boldsymbol\Phi}_j + \mathbf B^C_k\,{}^k\mathbf X_j\boldsymbol\Phi_j)`,
    :math:`k = \lceil ij\rceil`. Every quantity is held in ground coordinates (the paper's
    footnote 3; Pinocchio's choice): the products above do not depend on the frame, line 15
    becomes the identity and lines 20–21 plain sums. Inertias and their rates are ten
    parameters (:func:`~geomech.multibody._kernels.spatial.inertia_params`). Line 6 uses the
    chosen factor :math:`\mathbf B_i = \sum_j v_i^j\,\mathtt{Bt}_i[j]`; with
    ``levi_civita`` it is eq. 21 instead, :math:`\mathbf B_i = \tfrac12[\mathbf P_i +
    (\mathbf I_i\mathbf v_i)\bar\times^*]` with :math:`\mathbf P_i = (\mathbf v_i\times^*)
    \mathbf I_i - \mathbf I_i(\mathbf v_i\times)`, accumulated as :math:`(\mathbf P^C,
    \mathbf h^C)`. Multi-DoF joints are blocks of ``d`` columns (rows of ``S``); a joint
    without freedom (d = 0) writes no block but still passes I_C and B_C on to its parent.
    The walk of lines 13–19 is turned around, as in Pinocchio: the bodies are numbered
    depth-first, so the joints j of the subtree of i own the contiguous
    ``v[iv[i]:iv_end[i]]``, and when joint i is reached their columns f1, f2, f3 (lines 9–11,
    kept as the columns of ``F1``, ``F2``, ``F3``) are complete; the blocks of joint i with
    its subtree are then a row segment (l.12, l.17) and a column segment (l.18) per column
    of :math:`\boldsymbol\Phi_i`.
    """
    return _coriolis_work(
        topo, placement, jparam, inertia, Bt, levi_civita, S, S_ring, T_user, q, v, C, work
    )


@njit(**FMA)
def coriolis(topo, placement, jparam, inertia, Bt, levi_civita, S, S_ring, T_user, q, v, C):
    """:func:`coriolis_work` with its own work arrays (one state)."""
    N = topo.shape[0] - 1
    return _coriolis_work(
        topo,
        placement,
        jparam,
        inertia,
        Bt,
        levi_civita,
        S,
        S_ring,
        T_user,
        q,
        v,
        C,
        coriolis_workspace(N, topo[N, IV]),
    )


@njit(**FMA_BATCH)
def coriolis_batch(
    topo, placement, jparam, inertia, Bt, levi_civita, S, S_ring, T_user, Q, V, C, status
):
    """:func:`coriolis_work` over a batch (per-state arrays with one row are shared, the rows
    borrowed, nothing counted); first failure + 1.
    """
    N = topo.shape[0] - 1
    buf, views = frame_large(_coriolis_shapes(N, topo[N, IV]))
    work = _coriolis_order(views)
    for b in range(status.shape[0]):
        status[b] = _coriolis_work(
            topo,
            placement,
            jparam,
            inertia,
            Bt,
            levi_civita,
            row(S, b),
            row(S_ring, b),
            row(T_user, b),
            row(Q, b),
            row(V, b),
            row(C, b),
            work,
        )
    release_large(buf)
    return first_failure(status)


@njit(**FMA_ENTRY)
def coriolis_one(topo, packed, Bt, levi_civita, q, v, C):
    """:func:`coriolis` for one state, the model packed (``CompiledModel.packed``);
    ``NOT_A_VECTOR`` unless ``q``, ``v`` are contiguous vectors of the model's sizes.
    """
    N = topo.shape[0] - 1
    if not (is_vector(q, topo[N, IQ]) and is_vector(v, topo[N, IV])):
        return NOT_A_VECTOR
    placement, jparam, inertia, S, S_ring, T_user, _ = unpack(topo, packed)
    buf, views = frame_large(_coriolis_shapes(N, topo[N, IV]))  # on the stack (small models)
    status = _coriolis_work(
        topo,
        placement,
        jparam,
        inertia,
        Bt,
        levi_civita,
        S,
        S_ring,
        T_user,
        q,
        v,
        C,
        _coriolis_order(views),
    )
    release_large(buf)
    return status


@njit(**JIT)
def mass_matrix_derivative_batch(
    topo, placement, jparam, inertia, Bt, levi_civita, S, S_ring, T_user, Q, V, H_dot, status
):
    r""":math:`\dot H = \bar C^\star + \bar C^{\star\top}` (seed 000 Prop. IV.1) over a batch."""
    N = topo.shape[0] - 1
    work = coriolis_workspace(N, topo[N, IV])
    n = H_dot.shape[1]
    for b in range(status.shape[0]):
        status[b] = coriolis_work(
            topo,
            placement,
            jparam,
            inertia,
            Bt,
            levi_civita,
            at(S, b),
            at(S_ring, b),
            at(T_user, b),
            at(Q, b),
            at(V, b),
            H_dot[b],
            work,
        )
        if status[b] != OK:
            continue
        Hb = H_dot[b]
        for i in range(n):
            for k in range(i + 1):
                s = Hb[i, k] + Hb[k, i]
                Hb[i, k] = s
                Hb[k, i] = s
    return first_failure(status)


# ----------------------------------------------------------------------------------------
# C̄ᵀ w
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def coriolis_transpose_product(
    topo, placement, jparam, inertia, Bt, levi_civita, S, S_ring, T_user, q, v, w, tau
):
    r""":math:`\bar C(q, \nu)^\top w` in :math:`O(N)` for one state: ``tau`` (nv,).

    With :math:`\mathbf u_i` the body twists of ``w``: :math:`\boldsymbol\tau_i =
    \boldsymbol\Phi_i^\top\sum_{k\succeq i}{}^k\mathbf X_i^\top\mathbf B_k^\top\mathbf u_k +
    \dot{\boldsymbol\Phi}_i^\top\sum_{k\succeq i}{}^k\mathbf X_i^\top\mathbf I_k\mathbf u_k`
    (the transposed blocks of seed 000 Alg. 1 l.18).
    """
    parent, jtype, iq, iv = topo[:-1, PARENT], topo[:-1, JTYPE], topo[:, IQ], topo[:, IV]
    N = parent.shape[0]
    if not (all_finite(q) and all_finite(v) and all_finite(w)):
        return pack(NON_FINITE_INPUT, -1)
    E, r = np.empty((N, 3, 3)), np.empty((N, 3))
    status = tree_transforms(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:
        return status
    vel, u, vJ = np.empty((N, 6)), np.empty((N, 6)), np.empty(6)
    g1, g2, Phi_dot = np.empty((N, 6)), np.empty((N, 6)), np.empty(6)
    t, z = np.empty(6), np.empty(6)

    # ---- forward pass: twists of v and w, B_iᵀ u_i and I_i u_i ----------------------------
    _twists(parent, iv, S, E, r, v, vel, vJ)
    _twists(parent, iv, S, E, r, w, u, vJ)
    for i in range(N):
        _factor_transpose_times(Bt[i], levi_civita, inertia[i], vel[i], u[i], g1[i], t, z)
        matvec6(inertia[i], u[i], g2[i])

    # ---- backward pass: accumulate to the root and project -------------------------------
    for i in range(N - 1, -1, -1):
        for k in range(iv[i], iv[i + 1]):  # τ_i = Φ_iᵀ g1_i + Φ̇_iᵀ g2_i, Φ̇ = (v×)Φ + Φ̊
            Phi_dot[:] = S_ring[k]
            cross_motion(vel[i], S[k], Phi_dot)
            tau[k] = dot6(S[k], g1[i]) + dot6(Phi_dot, g2[i])
        p = parent[i]
        if p >= 0:
            transform_force_transpose(E[i], r[i], g1[i], g1[p])
            transform_force_transpose(E[i], r[i], g2[i], g2[p])
    if not all_finite(tau):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**JIT)
def coriolis_transpose_product_batch(
    topo, placement, jparam, inertia, Bt, levi_civita, S, S_ring, T_user, Q, V, W, TAU, status
):
    """:func:`coriolis_transpose_product` over a batch; first failure + 1."""
    for b in range(status.shape[0]):
        status[b] = coriolis_transpose_product(
            topo,
            placement,
            jparam,
            inertia,
            Bt,
            levi_civita,
            at(S, b),
            at(S_ring, b),
            at(T_user, b),
            at(Q, b),
            at(V, b),
            at(W, b),
            TAU[b],
        )
    return first_failure(status)


# ----------------------------------------------------------------------------------------
# Slotine-Li torques (the modified RNEA)
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def reference_motion(parent, iv, S, S_ring, E, r, v, v_ref, a_ref, gravity, vel, w, alpha):
    r"""Forward pass of the modified RNEA: twists ``vel`` of ν, ``w`` of ν_r and ``alpha``.

    :math:`\boldsymbol\alpha_i = {}^i\mathbf X_{p(i)}\boldsymbol\alpha_{p(i)} +
    \boldsymbol\Phi_i a_{r,i} + \dot{\boldsymbol\Phi}_i\nu_{r,i}` with
    :math:`\dot{\boldsymbol\Phi}_i = (\mathbf v_i\times)\boldsymbol\Phi_i +
    \mathring{\boldsymbol\Phi}_i` and :math:`\boldsymbol\alpha_0 = [\mathbf 0; -\mathbf g]`
    (Niemeyer–Slotine; seed 001 §1.4).
    """
    work = np.empty((3, 6))
    _reference_motion(parent, iv, S, S_ring, E, r, v, v_ref, a_ref, gravity, vel, w, alpha, work)


@njit(**JIT)
def _reference_motion(parent, iv, S, S_ring, E, r, v, v_ref, a_ref, gravity, vel, w, alpha, work):
    """:func:`reference_motion` with its three work 6-vectors ``work`` (3, 6) (nothing allocated:
    the compiled simulation calls it at every stage).
    """
    a0, vJ, wJ = work[0], work[1], work[2]
    a0[:3] = 0.0
    for k in range(3):
        a0[3 + k] = -gravity[
            k
        ]  # the world accelerates upwards: gravity as a fictitious acceleration
    for i in range(parent.shape[0]):
        joint_velocity(S, iv, i, v, vJ)
        joint_velocity(S, iv, i, v_ref, wJ)
        p = parent[i]
        if p < 0:
            for a in range(6):  # (element by element: no overlap test, no temporary)
                vel[i, a] = vJ[a]
                w[i, a] = wJ[a]
            transform_motion(E[i], r[i], a0, alpha[i])
        else:
            transform_motion(E[i], r[i], vel[p], vel[i])
            transform_motion(E[i], r[i], w[p], w[i])
            transform_motion(E[i], r[i], alpha[p], alpha[i])
            for a in range(6):
                vel[i, a] += vJ[a]
                w[i, a] += wJ[a]
        for k in range(iv[i], iv[i + 1]):  # + Φ_i a_r,i + Φ̊_i ν_r,i
            for a in range(6):
                alpha[i, a] += S[k, a] * a_ref[k] + S_ring[k, a] * v_ref[k]
        cross_motion(vel[i], wJ, alpha[i])  # + (v_i ×) Φ_i ν_r,i


@njit(**JIT)
def reference_state(
    topo, placement, jparam, S, S_ring, T_user, q, v, v_ref, a_ref, gravity, E, r, vel, w, alpha
):
    """The joint transforms ``E``, ``r`` and :func:`reference_motion` for one state; a status.

    The common start of the Slotine–Li torques and regressor: checks that the state is finite,
    places the bodies (``tree_transforms``) and runs the forward pass of the modified RNEA.
    """
    parent, jtype, iq, iv = topo[:-1, PARENT], topo[:-1, JTYPE], topo[:, IQ], topo[:, IV]
    if not (
        all_finite(q)
        and all_finite(v)
        and all_finite(v_ref)
        and all_finite(a_ref)
        and all_finite(gravity)
    ):
        return pack(NON_FINITE_INPUT, -1)
    status = tree_transforms(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:
        return status
    reference_motion(parent, iv, S, S_ring, E, r, v, v_ref, a_ref, gravity, vel, w, alpha)
    return OK


@njit(**JIT)
def slotine_li_torques(
    topo,
    placement,
    jparam,
    inertia,
    Bt,
    levi_civita,
    S,
    S_ring,
    T_user,
    q,
    v,
    v_ref,
    a_ref,
    gravity,
    tau,
):
    r""":math:`H a_r + \bar C(q, \nu)\nu_r + g` in :math:`O(N)` for one state: ``tau`` (nv,).

    Forward pass :func:`reference_motion`, body forces :math:`\mathbf f_i = \mathbf I_i
    \boldsymbol\alpha_i + \mathbf B_i(\mathbf v_i)\mathbf w_i`, backward pass
    :math:`\boldsymbol\tau_i = \boldsymbol\Phi_i^\top\mathbf f_i`, :math:`\mathbf f_{p(i)}
    \mathrel{+}= {}^i\mathbf X_{p(i)}^\top\mathbf f_i` (seed 000 eqs. 13, 20).
    """
    parent, iv = topo[:-1, PARENT], topo[:, IV]
    N = parent.shape[0]
    E, r = np.empty((N, 3, 3)), np.empty((N, 3))
    vel, w, alpha, f = np.empty((N, 6)), np.empty((N, 6)), np.empty((N, 6)), np.empty((N, 6))
    h, t, z = np.empty(6), np.empty(6), np.empty(6)

    # ---- forward pass: actual twists v_i, reference twists w_i, alpha_i, body forces ----
    status = reference_state(
        topo, placement, jparam, S, S_ring, T_user, q, v, v_ref, a_ref, gravity, E, r, vel, w, alpha
    )
    if status != OK:
        return status
    for i in range(N):
        matvec6(inertia[i], alpha[i], f[i])  # f_i = I_i alpha_i + B_i(v_i) w_i
        _factor_times(Bt[i], levi_civita, inertia[i], vel[i], w[i], h, t, z)
        for a in range(6):
            f[i, a] += h[a]

    # ---- backward pass: project the forces on the joints ---------------------------------
    for i in range(N - 1, -1, -1):
        for k in range(iv[i], iv[i + 1]):  # (+ k_a a_r: the armature's share of H a_r)
            tau[k] = dot6(S[k], f[i]) + jparam[i, ARMATURE + k - iv[i]] * a_ref[k]
        if parent[i] >= 0:
            transform_force_transpose(E[i], r[i], f[i], f[parent[i]])
    if not all_finite(tau):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**JIT)
def slotine_li_torques_batch(
    topo,
    placement,
    jparam,
    inertia,
    Bt,
    levi_civita,
    S,
    S_ring,
    T_user,
    Q,
    V,
    V_ref,
    A_ref,
    G,
    TAU,
    status,
):
    """:func:`slotine_li_torques` over a batch; first failure + 1."""
    for b in range(status.shape[0]):
        status[b] = slotine_li_torques(
            topo,
            placement,
            jparam,
            inertia,
            Bt,
            levi_civita,
            at(S, b),
            at(S_ring, b),
            at(T_user, b),
            at(Q, b),
            at(V, b),
            at(V_ref, b),
            at(A_ref, b),
            at(G, b),
            TAU[b],
        )
    return first_failure(status)
