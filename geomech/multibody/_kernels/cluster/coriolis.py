r"""Cluster kernels of seed 000: Algorithms 1 and 2 on the cluster connectivity tree, one state per
call.

A closed model's bodies are grouped in clusters (seed 004,
:mod:`geomech.multibody.closed.clusters`); cluster :math:`k` has the independent speeds :math:`\dot
y_k` (``m_k`` of them) and the cluster joint maps them to the spanning speeds of its bodies' joints,
:math:`\dot q_{\mathcal J_k} = \mathsf G_k\dot y_k`. Seed 000 §VI-C writes the closed chain's speeds
as :math:`v = \mathsf X\mathsf\Phi\bar v` with one block column :math:`\mathsf\Phi_k` per cluster,
and Algorithms 1 and 2 run on the cluster tree exactly as on a tree, every per-body quantity
becoming a stack over the cluster's bodies (Algorithm 1 l.5–6: block-diagonal
:math:`\mathsf I_k`, :math:`\mathsf B_k`).

The kernels hold every quantity in ground coordinates, as the tree kernels do
(:mod:`~geomech.multibody._kernels.tree.coriolis`, the paper's footnote 3). Then a cluster
transform :math:`{}^k\mathsf X_{\lambda(k)}` (one nonzero block per body row, seed 000 §VI-C)
is a *selection*: the motion of body ``i`` is that of its output body :math:`\Lambda(i)`
(seed 004 §1.4), so

- moving forces up (Alg. 1 l.15, Alg. 2 l.23/25) adds each body's row into its output
  body's row;
- moving inertias and factors up (Alg. 1 l.20–21, Alg. 2 l.28/31) adds each body's block into
  its output body's block (the stacks stay block diagonal);
- column ``c`` of :math:`\mathsf\Phi_k` at body ``i`` of cluster ``k`` is, in ground
  coordinates, ``Psi[i, c]`` :math:`= \sum_{j} {}^0\boldsymbol\Phi_j\,\mathsf G_{k,jc}`
  over the joints ``j`` of the cluster on the path to ``i`` (the in-cluster recursion
  ``Psi[i] = Psi[λ(i)] + Φ_i G_i`` of :func:`~geomech.multibody._kernels.cluster.dynamics.
  cluster_kinematics`, here in ground coordinates), and its rate (Alg. 1 l.4,
  :math:`\dot{\mathsf\Phi}_k = (\mathsf v_k\times)\mathsf\Phi_k + \mathring{\mathsf\Phi}_k`)
  is the time derivative of that sum,

  .. math:: \dot\Psi_{i,c} = \textstyle\sum_j\big(\mathbf v_j\times{}^0\boldsymbol\Phi_j
            + {}^0\mathring{\boldsymbol\Phi}_j\big)\mathsf G_{k,jc}
            + {}^0\boldsymbol\Phi_j\,\dot{\mathsf G}_{k,jc},

  which is where the rate :math:`\dot{\mathsf G}_k` of the cluster joint enters (eq. 17's
  :math:`A^\top H\dot A` with :math:`A = A_s G`: :math:`\bar C = G^\top C_s G + G^\top H_s
  \dot G`).

A tree is the degenerate cluster tree (one body per cluster, :math:`\mathsf G_k = \mathbf 1`,
:math:`\dot{\mathsf G}_k = 0`), where these kernels compute what the tree kernels compute.

Inputs: the spanning tree's arrays (``topo, placement, jparam, inertia``, as
:mod:`~geomech.multibody._kernels.tree.dynamics` lists them), the factor tensors ``Bt`` and the
Levi-Civita flag (:mod:`~geomech.multibody._kernels.tree.coriolis`), the cluster arrays ``cbody,
cclus, yidx`` (:mod:`~geomech.multibody._kernels.cluster.compiled`), then per state the joint
arrays ``S, S_ring, T_user``, ``Gc`` (n_s, m_max) and its rate ``Gdc`` (Alg. 1) or its speed
derivatives ``GDc`` (n_s, m_max, m_max), ``GDc[j, c, e]`` :math:`= \partial\dot{\mathsf
G}_{k,jc}/\partial\dot y_{k,e}` (Alg. 2; :math:`\dot{\mathsf G}_k` is linear in
:math:`\dot y_k`), and the state. Each kernel returns a packed status
(:mod:`~geomech.multibody._kernels.status`); its ``*_batch`` driver loops it over a batch.

References
----------
seed 000 §VI-C (cluster-tree method, eqs. 22–23), Algorithm 1, Algorithm 2 (eqs. 24–28),
digest §5.4–5.6, §7 items 4, 8, 13, 14; seed 004 §1.4 (clusters, output bodies), eq. 24.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from geomech.multibody._kernels.cluster.tables import (
    FIRST_BODY,
    FIRST_Y,
    OUTPUT,
    PARENT_CLUSTER,
    STACK,
)
from geomech.multibody._kernels.jit import JIT, at, first_failure
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
    transform_motion,
    transform_motion_transpose,
)
from geomech.multibody._kernels.status import NON_FINITE_INPUT, NON_FINITE_RESULT, OK, pack
from geomech.multibody._kernels.tables import IQ, IV, JTYPE, PARENT
from geomech.multibody._kernels.tree.coriolis import add_composite, body_factor
from geomech.multibody._kernels.tree.kinematics import all_finite, tree_transforms

__all__ = [
    "cluster_coriolis_workspace",
    "cluster_coriolis_work",
    "cluster_coriolis",
    "cluster_coriolis_batch",
    "cluster_christoffel",
    "cluster_christoffel_batch",
]


@njit(**JIT)
def _ground_kinematics(topo, placement, jparam, T_user, S, q, E, r, E0, r0, status):
    r"""Tree transforms and :math:`{}^i\mathbf X_0` of every body; False on a failure."""
    parent, jtype, iq = topo[:-1, PARENT], topo[:-1, JTYPE], topo[:, IQ]
    st = tree_transforms(jtype, iq, placement, jparam, T_user, q, E, r)
    status[0] = st
    if st != OK:
        return False
    for i in range(parent.shape[0]):
        p = parent[i]
        if p < 0:
            E0[i, :, :] = E[i]
            r0[i, :] = r[i]
        else:
            compose_transforms(E[i], r[i], E0[p], r0[p], E0[i], r0[i])  # ^iX_0 = ^iX_p ^pX_0
    return True


@njit(**JIT)
def _move_up(cbody, cclus, k, F, nrow):
    """Alg. 1 l.15 in ground coordinates: rows ``F[i, :nrow]`` of cluster ``k``'s bodies added
    into their output bodies' rows (those of the parent cluster, zeroed first).
    """
    kp = cclus[k, PARENT_CLUSTER]
    for t in range(cclus[kp, FIRST_BODY], cclus[kp + 1, FIRST_BODY]):
        F[cbody[t, STACK], :nrow, :] = 0.0
    for t in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
        i = cbody[t, STACK]
        o = cbody[i, OUTPUT]
        for c in range(nrow):
            for a in range(6):
                F[o, c, a] += F[i, c, a]


# ----------------------------------------------------------------------------------------
# seed 000 Alg. 1, cluster form
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def cluster_coriolis_workspace(N, n_s, mmax):
    """The work arrays of :func:`cluster_coriolis_work`."""
    return (
        np.empty((N, 3, 3)),
        np.empty((N, 3)),
        np.empty((N, 3, 3)),
        np.empty((N, 3)),
        np.empty(n_s),
        np.empty((N, 6)),  # qd = G v, twists (ground coordinates)
        np.empty((n_s, 6)),
        np.empty((n_s, 6)),  # Phi, Phi_dot of the spanning joints
        np.empty((N, mmax, 6)),
        np.empty((N, mmax, 6)),  # Psi, Psi_dot: Φ_k, Φ̇_k per body
        np.empty((N, 10)),
        np.empty((N, 10)),
        np.empty((N, 6)),  # I_C, P_C, h_C
        np.empty((N, 6, 6)),  # B_C (any connection)
        np.empty((N, mmax, 6)),
        np.empty((N, mmax, 6)),
        np.empty((N, mmax, 6)),  # f1 f2 f3
        np.empty((6, 6)),
        np.empty((6, 6)),
        np.empty(6),
        np.empty(6),
        np.empty(1, dtype=np.int64),
    )


@njit(**JIT)
def cluster_coriolis_work(
    topo,
    placement,
    jparam,
    inertia,
    Bt,
    levi_civita,
    cbody,
    cclus,
    yidx,
    S,
    S_ring,
    T_user,
    Gc,
    Gdc,
    q,
    v,
    C,
    work,
):
    r"""Seed 000 Alg. 1 on the cluster tree for one state: ``C`` (nv, nv) :math:`= \bar C`.

    :math:`\bar C_{ij} = \mathsf\Phi_i^\top{}^{k}\mathsf X_i^\top(\mathsf I^C_k\,{}^k\mathsf
    X_j\dot{\mathsf\Phi}_j + \mathsf B^C_k\,{}^k\mathsf X_j\mathsf\Phi_j)`, :math:`k =
    \lceil ij\rceil`, for clusters ``i``, ``j``, every stack in ground coordinates (module
    docstring): ``Psi``/``Psi_dot`` are :math:`\mathsf\Phi_k`, :math:`\dot{\mathsf\Phi}_k`
    row by body, ``I_C``/``B_C`` the diagonal blocks of :math:`\mathsf I^C_k`,
    :math:`\mathsf B^C_k` (eqs. 22–23; a body's block holds its own inertia and those of the
    descendant clusters' bodies whose output chain ends at it). Line 6 uses the chosen factor
    :math:`\mathbf B_i = \sum_j v_i^j\,\mathtt{Bt}_i[j]`, or eq. 21 in closed form with
    ``levi_civita`` (``P_C``, ``h_C``) as the tree kernel does.
    """
    (
        E,
        r,
        E0,
        r0,
        qd,
        vel,
        Phi,
        Phi_dot,
        Psi,
        Psi_dot,
        I_C,
        P_C,
        h_C,
        B_C,
        F1,
        F2,
        F3,
        W,
        B_i,
        x,
        y,
        st,
    ) = work
    parent, iv = topo[:-1, PARENT], topo[:, IV]
    NC = cclus.shape[0] - 1
    if not (all_finite(q) and all_finite(v) and all_finite(Gc) and all_finite(Gdc)):
        return pack(NON_FINITE_INPUT, -1)
    if not _ground_kinematics(topo, placement, jparam, T_user, S, q, E, r, E0, r0, st):
        return st[0]

    # ---- forward pass (l.1-7): twists, joint axes and rates, inertias and factors --------
    for k in range(NC):
        y0, m = cclus[k, FIRST_Y], cclus[k + 1, FIRST_Y] - cclus[k, FIRST_Y]
        for t in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
            i = cbody[t, STACK]
            p = parent[i]
            inside = p >= 0 and p != cbody[i, OUTPUT]  # the parent is in the cluster
            for j in range(iv[i], iv[i + 1]):  # q̇_𝒥k = G_k ẏ_k (seed 004 eq. 3)
                s = 0.0
                for c in range(m):
                    s += Gc[j, c] * v[yidx[y0 + c]]
                qd[j] = s
            if p < 0:  # l.3: v_i = v_p(i) + Φ_i q̇_i (ground coordinates)
                vel[i, :] = 0.0
            else:
                vel[i, :] = vel[p]
            for j in range(iv[i], iv[i + 1]):
                transform_motion_transpose(E0[i], r0[i], S[j], Phi[j])
                for a in range(6):
                    vel[i, a] += Phi[j, a] * qd[j]
            for j in range(iv[i], iv[i + 1]):  # l.4 per spanning joint: Φ̇_j = v_i × Φ_j + Φ̊_j
                ring = False
                for a in range(6):
                    ring |= S_ring[j, a] != 0.0
                if ring:
                    transform_motion_transpose(E0[i], r0[i], S_ring[j], Phi_dot[j])
                else:
                    Phi_dot[j, :] = 0.0
                cross_motion(vel[i], Phi[j], Phi_dot[j])
            for c in range(m):  # l.3-4 of the cluster joint: Φ_k = Σ Φ_j G_k, Φ̇_k = d/dt of it
                if inside:
                    Psi[i, c, :] = Psi[p, c]
                    Psi_dot[i, c, :] = Psi_dot[p, c]
                else:
                    Psi[i, c, :] = 0.0
                    Psi_dot[i, c, :] = 0.0
                for j in range(iv[i], iv[i + 1]):
                    g, gd = Gc[j, c], Gdc[j, c]
                    for a in range(6):
                        Psi[i, c, a] += Phi[j, a] * g
                        Psi_dot[i, c, a] += Phi_dot[j, a] * g + Phi[j, a] * gd
            inertia_params(inertia[i], I_C[i])  # l.5: I^C_k = diag(I_k1, ..., I_kn)
            inertia_params_transform(E0[i], r0[i], I_C[i], I_C[i])
            if levi_civita:  # l.6, eq. 21 per body
                inertia_params_rate(I_C[i], vel[i], P_C[i])
                inertia_params_times(I_C[i], vel[i], h_C[i])
            else:  # l.6 with the chosen B_i of the body twist, moved to the ground
                transform_motion(E0[i], r0[i], vel[i], x)
                body_factor(Bt[i], x, B_i)
                B_C[i, :, :] = 0.0
                congruence(E0[i], r0[i], B_i, W, B_C[i])

    # ---- backward pass (l.8-22) over the clusters ------------------------------------------
    C[:, :] = 0.0
    for k in range(NC - 1, -1, -1):
        y0, m = cclus[k, FIRST_Y], cclus[k + 1, FIRST_Y] - cclus[k, FIRST_Y]
        for t in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
            i = cbody[t, STACK]
            for c in range(m):
                inertia_params_times(I_C[i], Psi_dot[i, c], F1[i, c])  # l.9: f1 = I^C Φ̇ + B^C Φ
                inertia_params_times(I_C[i], Psi[i, c], F2[i, c])  # l.10: f2 = I^C Φ
                if levi_civita:  # B^C Φ = ½[P^C Φ + Φ ×* h^C], B^Cᵀ Φ = ½[P^C Φ − Φ ×* h^C]
                    inertia_params_times(P_C[i], Psi[i, c], x)
                    y[:] = 0.0
                    cross_force(Psi[i, c], h_C[i], y)
                    for a in range(6):
                        F1[i, c, a] += 0.5 * (x[a] + y[a])
                        F3[i, c, a] = 0.5 * (x[a] - y[a])  # l.11: f3 = B^Cᵀ Φ
                else:
                    matvec6(B_C[i], Psi[i, c], x)
                    for a in range(6):
                        F1[i, c, a] += x[a]
                    matTvec6(B_C[i], Psi[i, c], F3[i, c])  # l.11: f3 = B^Cᵀ Φ
        for a in range(m):  # l.12: C_kk = Φ_kᵀ f1 (a sum over the cluster's bodies)
            for c in range(m):
                s = 0.0
                for t in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
                    s += dot6(Psi[cbody[t, STACK], a], F1[cbody[t, STACK], c])
                C[yidx[y0 + a], yidx[y0 + c]] = s
        h = k
        while cclus[h, PARENT_CLUSTER] >= 0 and m > 0:  # l.14
            _move_up(cbody, cclus, h, F1, m)  # l.15: f = ^hX_λ(h)ᵀ f, rows to output bodies
            _move_up(cbody, cclus, h, F2, m)
            _move_up(cbody, cclus, h, F3, m)
            h = cclus[h, PARENT_CLUSTER]  # l.16
            z0, n = cclus[h, FIRST_Y], cclus[h + 1, FIRST_Y] - cclus[h, FIRST_Y]
            for a in range(n):
                for c in range(m):
                    s1 = 0.0
                    s2 = 0.0
                    for t in range(cclus[h, FIRST_BODY], cclus[h + 1, FIRST_BODY]):
                        i = cbody[t, STACK]
                        s1 += dot6(Psi[i, a], F1[i, c])
                        s2 += dot6(Psi_dot[i, a], F2[i, c]) + dot6(Psi[i, a], F3[i, c])
                    C[yidx[z0 + a], yidx[y0 + c]] = s1  # l.17: C_hk = Φ_hᵀ f1
                    C[yidx[y0 + c], yidx[z0 + a]] = s2  # l.18: C_kh = (Φ̇_hᵀ f2 + Φ_hᵀ f3)ᵀ
        # l.20-21 (guarded at the base)
        for t in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
            i = cbody[t, STACK]
            o = cbody[i, OUTPUT]
            if o < 0:
                continue
            add_composite(I_C, P_C, h_C, B_C, levi_civita, i, o)
    if not all_finite(C):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**JIT)
def cluster_coriolis(
    topo,
    placement,
    jparam,
    inertia,
    Bt,
    levi_civita,
    cbody,
    cclus,
    yidx,
    S,
    S_ring,
    T_user,
    Gc,
    Gdc,
    q,
    v,
    C,
):
    """:func:`cluster_coriolis_work` with its own work arrays (one state)."""
    work = cluster_coriolis_workspace(topo.shape[0] - 1, S.shape[0], Gc.shape[1])
    return cluster_coriolis_work(
        topo,
        placement,
        jparam,
        inertia,
        Bt,
        levi_civita,
        cbody,
        cclus,
        yidx,
        S,
        S_ring,
        T_user,
        Gc,
        Gdc,
        q,
        v,
        C,
        work,
    )


@njit(**JIT)
def cluster_coriolis_batch(
    topo,
    placement,
    jparam,
    inertia,
    Bt,
    levi_civita,
    cbody,
    cclus,
    yidx,
    S,
    S_ring,
    T_user,
    Gc,
    Gdc,
    Q,
    V,
    C,
    status,
):
    """:func:`cluster_coriolis_work` over a batch (per-state arrays with one row are shared);
    first failure + 1.
    """
    work = cluster_coriolis_workspace(topo.shape[0] - 1, S.shape[1], Gc.shape[2])
    for b in range(status.shape[0]):
        status[b] = cluster_coriolis_work(
            topo,
            placement,
            jparam,
            inertia,
            Bt,
            levi_civita,
            cbody,
            cclus,
            yidx,
            at(S, b),
            at(S_ring, b),
            at(T_user, b),
            at(Gc, b),
            at(Gdc, b),
            at(Q, b),
            at(V, b),
            C[b],
            work,
        )
    return first_failure(status)


# ----------------------------------------------------------------------------------------
# seed 000 Alg. 2, cluster form
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def _cluster_subspaces(topo, cbody, cclus, S, D, Gc, GDc, E0, r0, Phi, Dt, Psi, Dk, U, x, y):
    r"""Alg. 2 l.1–4 of the cluster joints, in ground coordinates: ``Psi[i, c]`` (column ``c``
    of :math:`\mathsf\Phi_k` at body ``i``) and ``Dk[i, e m + c]`` :math:`=
    \partial\mathring{\mathsf\Phi}_{k,c}/\partial\dot y_{k,e}` at body ``i``.

    The rate of column ``c`` is :math:`\dot\Psi_{i,c} = \sum_j(\mathbf v_j\times\boldsymbol
    \Phi_j + \mathring{\boldsymbol\Phi}_j)\mathsf G_{jc} + \boldsymbol\Phi_j\dot{\mathsf
    G}_{jc}` over the cluster's joints on the path to ``i`` (module docstring), linear in
    :math:`\dot y_k`; its derivative ``U`` along :math:`\dot y_{k,e}` follows the in-cluster
    recursion, and :math:`\mathcal D_k = U - \Psi_e\times\Psi_c` removes the
    :math:`(\mathsf v_k\times)\mathsf\Phi_k` part (Alg. 1 l.4), leaving
    :math:`\partial\mathring{\mathsf\Phi}_k/\partial\dot y_k` (Alg. 2 l.3, eq. 26).
    """
    parent, iv = topo[:-1, PARENT], topo[:, IV]
    NC = cclus.shape[0] - 1
    for k in range(NC):
        m = cclus[k + 1, FIRST_Y] - cclus[k, FIRST_Y]
        for t in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
            i = cbody[t, STACK]
            p = parent[i]
            inside = p >= 0 and p != cbody[i, OUTPUT]
            for j in range(iv[i], iv[i + 1]):  # the spanning joints' Φ_j and D_j, ground
                transform_motion_transpose(E0[i], r0[i], S[j], Phi[j])
                for b in range(iv[i + 1] - iv[i]):
                    transform_motion_transpose(E0[i], r0[i], D[j, b], Dt[j, b])
            for c in range(m):  # Φ_k = Σ Φ_j G_jc (in-cluster recursion)
                if inside:
                    Psi[i, c, :] = Psi[p, c]
                else:
                    Psi[i, c, :] = 0.0
                for j in range(iv[i], iv[i + 1]):
                    for a in range(6):
                        Psi[i, c, a] += Phi[j, a] * Gc[j, c]
            for e in range(m):
                for c in range(m):
                    u = U[i, e * m + c]
                    if inside:
                        u[:] = U[p, e * m + c]
                    else:
                        u[:] = 0.0
                    for j in range(iv[i], iv[i + 1]):
                        g = Gc[j, c]
                        x[:] = 0.0
                        cross_motion(Psi[i, e], Phi[j], x)  # ∂v_i/∂ẏ_e × Φ_j
                        for j2 in range(iv[i], iv[i + 1]):  # ∂Φ̊_j/∂ẏ_e = Σ D[j2, j] G_j2e
                            ge = Gc[j2, e]
                            for a in range(6):
                                x[a] += Dt[j2, j - iv[i], a] * ge
                        gd = GDc[j, c, e]
                        for a in range(6):
                            u[a] += x[a] * g + Phi[j, a] * gd
                    y[:] = 0.0
                    cross_motion(Psi[i, e], Psi[i, c], y)
                    for a in range(6):
                        Dk[i, e * m + c, a] = u[a] - y[a]


@njit(**JIT)
def _move_up_params(cbody, cclus, k, P, h, n):
    """Alg. 2 l.28 in ground coordinates: the pages ``(P, h)`` of cluster ``k``'s bodies added
    into their output bodies' (zeroed first): a congruence by a selection keeps the stack
    block diagonal, and eq. 21 is linear in the inertia.
    """
    kp = cclus[k, PARENT_CLUSTER]
    for t in range(cclus[kp, FIRST_BODY], cclus[kp + 1, FIRST_BODY]):
        P[cbody[t, STACK], :n, :] = 0.0
        h[cbody[t, STACK], :n, :] = 0.0
    for t in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
        i = cbody[t, STACK]
        o = cbody[i, OUTPUT]
        for c in range(n):
            for a in range(10):
                P[o, c, a] += P[i, c, a]
            for a in range(6):
                h[o, c, a] += h[i, c, a]


@njit(**JIT)
def cluster_christoffel(
    topo, placement, jparam, inertia, cbody, cclus, yidx, S, D, T_user, Gc, GDc, q, Gamma
):
    r"""Seed 000 Alg. 2 on the cluster tree for one state: ``Gamma`` (nv, nv, nv).

    ``Gamma[i, j, k]`` :math:`= \bar\Gamma^\star_{ijk}` of the closed model (Levi-Civita;
    :math:`\bar C^\star_{ik} = \bar\Gamma^\star_{ijk}v^j`). The tree kernel's loops
    (:func:`~geomech.multibody._kernels.tree.christoffel.christoffel_work`) run over clusters, each
    6-vector of a joint becoming a stack over the cluster's bodies in ground coordinates:
    pages of ``Bt`` as per-body ``(P, h)`` (eq. 21), lines 23, 25 (forces) and 28, 31
    (factors, inertias) adding each body's rows into its output body's, and the products of
    lines 14, 19, 22 summed over the bodies of the cluster. ``D`` (n_s, 6, 6) are the
    spanning joints' rate derivatives (:mod:`~geomech.multibody._kernels.tree.christoffel`).
    """
    N = topo.shape[0] - 1
    NC = cclus.shape[0] - 1
    n_s = S.shape[0]
    mmax = Gc.shape[1]
    if not (all_finite(q) and all_finite(Gc) and all_finite(GDc)):
        return pack(NON_FINITE_INPUT, -1)
    E, r, E0, r0 = np.empty((N, 3, 3)), np.empty((N, 3)), np.empty((N, 3, 3)), np.empty((N, 3))
    st = np.empty(1, dtype=np.int64)
    if not _ground_kinematics(topo, placement, jparam, T_user, S, q, E, r, E0, r0, st):
        return st[0]
    Phi, Dt = np.empty((n_s, 6)), np.empty((n_s, 6, 6))
    Psi = np.empty((N, mmax, 6))
    Dk, U = np.empty((N, mmax * mmax, 6)), np.empty((N, mmax * mmax, 6))
    I_C = np.empty((N, 10))
    P, h = np.empty((N, mmax, 10)), np.empty((N, mmax, 6))
    F1, F2 = np.empty((N, mmax * mmax, 6)), np.empty((N, mmax * mmax, 6))
    F3 = np.empty((N, mmax * mmax, 6))
    x, y = np.empty(6), np.empty(6)

    # ---- l.1-4: cluster subspaces, rate derivatives and inertias in ground coordinates ----
    _cluster_subspaces(topo, cbody, cclus, S, D, Gc, GDc, E0, r0, Phi, Dt, Psi, Dk, U, x, y)
    for i in range(N):
        inertia_params(inertia[i], I_C[i])  # l.2: I^C_k = diag(I_k1, ..., I_kn)
        inertia_params_transform(E0[i], r0[i], I_C[i], I_C[i])
    Gamma[:, :, :] = 0.0

    # ---- backward pass over k (l.5-32) ---------------------------------------------------
    for k in range(NC - 1, -1, -1):
        ok, dk = cclus[k, FIRST_Y], cclus[k + 1, FIRST_Y] - cclus[k, FIRST_Y]
        for t in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
            i = cbody[t, STACK]
            for c in range(dk):  # l.6: Bt = B(I^C_k, Φ_k) as (P_c, h_c); l.8: f4 = I^C_k Φ_k = h
                inertia_params_rate(I_C[i], Psi[i, c], P[i, c])
                inertia_params_times(I_C[i], Psi[i, c], h[i, c])
                for b in range(dk):  # l.7: F3 = I^C_k D_k
                    inertia_params_times(I_C[i], Dk[i, b * dk + c], F3[i, b * dk + c])
        j = k
        while dk > 0:  # l.10
            oj, dj = cclus[j, FIRST_Y], cclus[j + 1, FIRST_Y] - cclus[j, FIRST_Y]
            # l.11: F1 = Bt Φ_j, F2 = Btᵀ Φ_j
            for t in range(cclus[j, FIRST_BODY], cclus[j + 1, FIRST_BODY]):
                bi = cbody[t, STACK]
                for b in range(dj):
                    for c in range(dk):
                        inertia_params_times(P[bi, c], Psi[bi, b], x)
                        y[:] = 0.0
                        cross_force(Psi[bi, b], h[bi, c], y)  # (h x̄*) Φ = Φ ×* h
                        for a in range(6):
                            F1[bi, b * dk + c, a] = 0.5 * (x[a] + y[a])
                            F2[bi, b * dk + c, a] = 0.5 * (x[a] - y[a])
            i = j
            while dj > 0:  # l.13
                oi, di = cclus[i, FIRST_Y], cclus[i + 1, FIRST_Y] - cclus[i, FIRST_Y]
                b0, b1 = cclus[i, FIRST_BODY], cclus[i + 1, FIRST_BODY]
                for a in range(di):
                    for b in range(dj):
                        for c in range(dk):
                            A1 = 0.0
                            A2 = 0.0
                            for t in range(b0, b1):  # l.14, summed over the bodies of i
                                bi = cbody[t, STACK]
                                A1 += dot6(Psi[bi, a], F1[bi, b * dk + c])
                                A2 += dot6(Psi[bi, a], F2[bi, b * dk + c])
                            ia, jb, kc = yidx[oi + a], yidx[oj + b], yidx[ok + c]
                            Gamma[ia, jb, kc] = A1  # l.15
                            Gamma[ia, kc, jb] = A1
                            Gamma[jb, ia, kc] = A2  # l.16
                            Gamma[jb, kc, ia] = A2
                            Gamma[kc, ia, jb] = -A2  # l.17: A3 = -A2^T13
                            Gamma[kc, jb, ia] = -A2
                if i == j:  # l.18-19: Γ_kii = A3 + f4ᵀ D_i
                    for c in range(dk):
                        for a in range(di):
                            for b in range(di):
                                s = 0.0
                                for t in range(b0, b1):
                                    bi = cbody[t, STACK]
                                    s += dot6(h[bi, c], Dk[bi, a * di + b]) - dot6(
                                        Psi[bi, a], F2[bi, b * dk + c]
                                    )
                                Gamma[yidx[ok + c], yidx[oi + a], yidx[oi + b]] = s
                if j == k:  # l.21-22: Γ_ijj = A1 + Φ_iᵀ F3
                    for a in range(di):
                        for b in range(dk):
                            for c in range(dk):
                                s = 0.0
                                for t in range(b0, b1):
                                    bi = cbody[t, STACK]
                                    s += dot6(Psi[bi, a], F1[bi, b * dk + c])
                                    s += dot6(Psi[bi, a], F3[bi, b * dk + c])
                                Gamma[yidx[oi + a], yidx[ok + b], yidx[ok + c]] = s
                if cclus[i, PARENT_CLUSTER] < 0:
                    break
                if j == k:  # l.23: F3 = ^iX_p(i)ᵀ F3
                    _move_up(cbody, cclus, i, F3, dk * dk)
                _move_up(cbody, cclus, i, F1, dj * dk)  # l.25
                _move_up(cbody, cclus, i, F2, dj * dk)
                i = cclus[i, PARENT_CLUSTER]  # l.26
            if cclus[j, PARENT_CLUSTER] < 0:
                break
            _move_up_params(cbody, cclus, j, P, h, dk)  # l.28: Bt, f4 to the parent cluster
            j = cclus[j, PARENT_CLUSTER]  # l.29
        # l.31 (guarded at the base)
        for t in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
            i = cbody[t, STACK]
            o = cbody[i, OUTPUT]
            if o >= 0:
                for a in range(10):
                    I_C[o, a] += I_C[i, a]
    if not all_finite(Gamma):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**JIT)
def cluster_christoffel_batch(
    topo, placement, jparam, inertia, cbody, cclus, yidx, S, D, T_user, Gc, GDc, Q, Gamma, status
):
    """:func:`cluster_christoffel` over a batch (per-state arrays with one row are shared);
    first failure + 1.
    """
    for b in range(status.shape[0]):
        status[b] = cluster_christoffel(
            topo,
            placement,
            jparam,
            inertia,
            cbody,
            cclus,
            yidx,
            at(S, b),
            at(D, b),
            at(T_user, b),
            at(Gc, b),
            at(GDc, b),
            at(Q, b),
            Gamma[b],
        )
    return first_failure(status)
