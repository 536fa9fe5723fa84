r"""Compiled dense baselines of seed 004 §2.4, for like-for-like timing against the cluster kernels.

The public baselines (:mod:`geomech.multibody.closed.dynamics`: ``projected_aba``, ``lagrange_aba``,
the ``"projection"`` inverse operational-space inertia) are numpy code whose cost at small sizes is
interpreter overhead; the paper compares compiled code with compiled code. These kernels compose the
spanning tree's compiled RNEA, CRBA and Jacobians (:mod:`~geomech.multibody._kernels.tree.dynamics`,
:mod:`~geomech.multibody._kernels.tree.kinematics`) with dense factorisations, one state per call,
with the same per-state constraint data as the cluster kernels (dense ``G`` (n_s, nv), ``g`` (n_s),
and for the Lagrange method a full-row-rank ``K`` (r, n_s) and ``k`` (r)):

- projected RNEA: :math:`\tau = G^\top\,\mathrm{RNEA}_s(q, Gv, G\dot v + g)`;
- projection: :math:`\ddot y = (G^\top HG)^{-1}(\tau - G^\top\,\mathrm{RNEA}_s(q, Gv, g))`;
- Lagrange multipliers: the KKT system :math:`[[H, K^\top], [K, 0]]\,[\ddot q; -\lambda] =
  [\tau_s - c_s; k]`;
- projected inverse OSIM: :math:`J G\,(G^\top HG)^{-1}G^\top J^\top`.

They serve ``benchmarks/bench_clusters.py`` and are tested against the public baselines.

References
----------
Seed 004 §2.4 (projection and Lagrange-multiplier methods, projected EFPA), Sec. IX.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from geomech.multibody._kernels.jit import JIT, at
from geomech.multibody._kernels.status import OK
from geomech.multibody._kernels.tables import IQ, IV, JTYPE, PARENT
from geomech.multibody._kernels.tree.dynamics import crba, rnea
from geomech.multibody._kernels.tree.kinematics import body_jacobians, tree_transforms

__all__ = [
    "explicit_constraint",
    "projected_rnea_batch",
    "projection_aba_batch",
    "lagrange_aba_batch",
    "projection_iosim_batch",
]


def explicit_constraint(G, g, independent):
    r"""A full-row-rank velocity constraint from the explicit form: :math:`K\dot q_s = 0`,
    :math:`K\ddot q_s = k` with

    .. math:: K = [-G_D \mid \mathbf 1_D] \text{ (on the Y, D columns)},\qquad k = g_D

    (:math:`\dot q_D = G_D\dot q_Y` and :math:`\ddot q_D = G_D\ddot q_Y + g_D`, seed 004
    eq. 3): the same null space as the implicit :math:`K` of eq. 2, one row per dependent
    speed, built from the same per-state data as the other contenders.

    Parameters
    ----------
    G : ndarray, shape (B, n_s, nv)
    g : ndarray, shape (B, n_s)
    independent : ndarray of int, shape (nv,)
        The spanning speeds of the independent joints.

    Returns
    -------
    K : ndarray, shape (B, n_s - nv, n_s)
    k : ndarray, shape (B, n_s - nv)

    Examples
    --------
    >>> import numpy as np
    >>> from baselines import explicit_constraint
    >>> G = np.array([[[1.0], [6.0]]])  # a geared rotor: q_rotor = 6 q_link
    >>> K, k = explicit_constraint(G, np.zeros((1, 2)), np.array([0]))
    >>> K.tolist(), bool(np.allclose(K @ G, 0))
    ([[[-6.0, 1.0]]], True)
    """
    B, n_s, nv = G.shape
    dep = np.setdiff1d(np.arange(n_s), independent)
    K = np.zeros((B, dep.size, n_s))
    K[:, np.arange(dep.size), dep] = 1.0
    K[:, :, independent] = -G[:, dep, :]
    return np.ascontiguousarray(K), np.ascontiguousarray(g[:, dep])


@njit(**JIT)
def projected_rnea_batch(
    topo, placement, jparam, inertia, S, S_ring, T_user, G, g, Q, V, A, A0, F_ext, TAU, status
):
    r"""Projected RNEA over a batch: :math:`\tau = G^\top\mathrm{RNEA}_s(q, Gv, G\dot v + g)`
    (seed 004 §2.4).
    """
    n_s = S.shape[1]
    qd, qdd, tau_s = np.empty(n_s), np.empty(n_s), np.empty(n_s)
    for b in range(status.shape[0]):
        Gb, gb, vb, ab = at(G, b), at(g, b), at(V, b), at(A, b)
        m = Gb.shape[1]
        for j in range(n_s):  # q̇_s = G v, q̈_s = G a + g
            x, y = 0.0, gb[j]
            for c in range(m):
                x += Gb[j, c] * vb[c]
                y += Gb[j, c] * ab[c]
            qd[j], qdd[j] = x, y
        status[b] = rnea(
            topo,
            placement,
            jparam,
            inertia,
            at(S, b),
            at(S_ring, b),
            at(T_user, b),
            at(Q, b),
            qd,
            qdd,
            at(A0, b),
            at(F_ext, b),
            tau_s,
        )
        for c in range(m):  # τ = Gᵀ τ_s
            x = 0.0
            for j in range(n_s):
                x += Gb[j, c] * tau_s[j]
            TAU[b, c] = x
    return 0


@njit(**JIT)
def _projection_aba(
    topo, placement, jparam, inertia, S, S_ring, T_user, G, g, q, v, tau, a0, f_ext, H, qd, c, a
):
    n_s, m = G.shape
    st = crba(topo, placement, jparam, inertia, S, S_ring, T_user, q, H)
    if st != OK:
        return st
    for j in range(n_s):  # q̇_s = G v
        s = 0.0
        for c2 in range(m):
            s += G[j, c2] * v[c2]
        qd[j] = s
    st = rnea(topo, placement, jparam, inertia, S, S_ring, T_user, q, qd, g, a0, f_ext, c)
    if st != OK:  # c = c_s + H g
        return st
    HG = H @ G
    Hb = G.T @ HG  # H̄ = Gᵀ H G
    rhs = tau - G.T @ c  # τ − c̄
    L = np.linalg.cholesky(Hb)
    y = np.linalg.solve(L, rhs)
    a[:] = np.linalg.solve(L.T, y)
    return OK


@njit(**JIT)
def projection_aba_batch(
    topo, placement, jparam, inertia, S, S_ring, T_user, G, g, Q, V, TAU, A0, F_ext, A, status
):
    """Projection-method forward dynamics over a batch (seed 004 §2.4)."""
    n_s = S.shape[1]
    H, qd, c = np.empty((n_s, n_s)), np.empty(n_s), np.empty(n_s)
    for b in range(status.shape[0]):
        status[b] = _projection_aba(
            topo,
            placement,
            jparam,
            inertia,
            at(S, b),
            at(S_ring, b),
            at(T_user, b),
            at(G, b),
            at(g, b),
            at(Q, b),
            at(V, b),
            at(TAU, b),
            at(A0, b),
            at(F_ext, b),
            H,
            qd,
            c,
            A[b],
        )
    return 0


@njit(**JIT)
def lagrange_aba_batch(
    topo,
    placement,
    jparam,
    inertia,
    S,
    S_ring,
    T_user,
    G,
    K,
    k,
    ind,
    Q,
    V,
    TAU,
    A0,
    F_ext,
    A,
    status,
):
    """Lagrange-multiplier forward dynamics over a batch (the KKT system, seed 004 §2.4).

    ``ind`` holds the spanning speeds of the independent joints (``tau`` acts there).
    """
    n_s = S.shape[1]
    H, qd, c, z = np.empty((n_s, n_s)), np.empty(n_s), np.empty(n_s), np.zeros(n_s)
    for b in range(status.shape[0]):
        Gb, Kb, kb, vb = at(G, b), at(K, b), at(k, b), at(V, b)
        q, tau = at(Q, b), at(TAU, b)
        Sb, Srb, Tb = at(S, b), at(S_ring, b), at(T_user, b)
        crba(topo, placement, jparam, inertia, Sb, Srb, Tb, q, H)
        qd[:] = Gb @ vb
        rnea(topo, placement, jparam, inertia, Sb, Srb, Tb, q, qd, z, at(A0, b), at(F_ext, b), c)
        r = Kb.shape[0]
        kkt = np.zeros((n_s + r, n_s + r))
        rhs = np.zeros(n_s + r)
        kkt[:n_s, :n_s] = H
        kkt[:n_s, n_s:] = Kb.T
        kkt[n_s:, :n_s] = Kb
        for j in range(n_s):
            rhs[j] = -c[j]
        for j in range(ind.shape[0]):
            rhs[ind[j]] += tau[j]
        rhs[n_s:] = kb
        sol = np.linalg.solve(kkt, rhs)
        for j in range(ind.shape[0]):
            A[b, j] = sol[ind[j]]
        status[b] = OK
    return 0


@njit(**JIT)
def projection_iosim_batch(
    topo, placement, jparam, inertia, S, S_ring, T_user, G, Q, ee, OMEGA, status
):
    r"""Projected inverse OSIM :math:`JG(G^\top HG)^{-1}G^\top J^\top` over a batch."""
    parent, jtype, iq, iv = topo[:-1, PARENT], topo[:-1, JTYPE], topo[:, IQ], topo[:, IV]
    N, n_s = parent.shape[0], S.shape[1]
    H = np.empty((n_s, n_s))
    E, r = np.empty((N, 3, 3)), np.empty((N, 3))
    Jb = np.empty((N, n_s, 6))
    ne = ee.shape[0]
    J = np.empty((6 * ne, n_s))
    for b in range(status.shape[0]):
        Gb, q = at(G, b), at(Q, b)
        Sb = at(S, b)
        crba(topo, placement, jparam, inertia, Sb, at(S_ring, b), at(T_user, b), q, H)
        tree_transforms(jtype, iq, placement, jparam, at(T_user, b), q, E, r)
        body_jacobians(parent, iv, Sb, E, r, Jb)
        for e in range(ne):
            for d in range(6):
                for j in range(n_s):
                    J[6 * e + d, j] = Jb[ee[e], j, d]
        JG = J @ Gb
        L = np.linalg.cholesky(Gb.T @ H @ Gb)
        X = np.linalg.solve(L, JG.T)
        OMEGA[b] = X.T @ X
        status[b] = OK
    return 0
