r"""Christoffel kernels: seed 000 Alg. 2 and the joints' structure constants, one state per call.

Alg. 2 needs, besides the tree transforms and the motion subspaces ``S`` (rows), the rate
derivatives of user-defined joints, ``D`` (nv, 6, 6):

.. math:: \mathtt D[\mathrm{iv}_i + b, c] = \mathcal D_i[:, b, c]
          = \frac{\partial\mathring{\boldsymbol\Phi}_{i,:c}}{\partial\nu_{i,b}}
          \qquad (b, c < d_i),

filled per state by :mod:`geomech.multibody.christoffel` from the joints' hooks at unit speeds
(the rate is linear in the joint's speeds); it is zero for every built-in joint (one shared
row). Tensors of the paper (rows, cols, pages) are kept as rows of 6-vectors: page ``c`` of
column ``b`` of a 6 × d_j × d_k tensor is row ``b d_k + c``.

References
----------
seed 000 Alg. 2 (eqs. 24–28), §5.6 of the digest (line numbers as printed), digest §1.1
(structure constants).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from geomech.multibody.kernels.dynamics import at
from geomech.multibody.kernels.kinematics import (
    all_finite,
    all_finite_branchless,
    tree_transforms,
)
from geomech.multibody.kernels.spatial import (
    congruence,
    cross_force,
    cross_motion,
    dot6,
    matTvec6,
    matvec6,
    transform_force_transpose_inplace,
)
from geomech.multibody.kernels.status import NON_FINITE_INPUT, NON_FINITE_RESULT, OK, pack

__all__ = [
    "levi_civita_factor",
    "christoffel",
    "christoffel_batch",
    "structure_constants",
    "structure_constants_batch",
]

_JIT = dict(cache=True, nogil=True)


@njit(**_JIT)
def levi_civita_factor(I, u, out):  # noqa: E741
    r"""``out`` = :math:`\mathsf B(\mathbf I, \mathbf u) = \tfrac12[(\mathbf u\times^*)\mathbf I
    + (\mathbf I\mathbf u)\bar\times^* - \mathbf I(\mathbf u\times)]` (seed 000 eq. 21).

    Column ``m``: :math:`\tfrac12[\mathbf u\times^*\mathbf I_{:m} + \mathbf e_m\times^*
    (\mathbf I\mathbf u) - \mathbf I(\mathbf u\times\mathbf e_m)]`.
    """
    h, e, c, t, g = np.empty(6), np.zeros(6), np.empty(6), np.empty(6), np.empty(6)
    matvec6(I, u, h)
    for m in range(6):
        e[:] = 0.0
        e[m] = 1.0
        for a in range(6):
            c[a] = I[a, m]
        t[:] = 0.0
        cross_force(u, c, t)  # (u ×*) I e_m
        cross_force(e, h, t)  # (I u) x̄* e_m = (e_m ×*) (I u)
        c[:] = 0.0
        cross_motion(u, e, c)  # (u ×) e_m
        matvec6(I, c, g)  # I (u ×) e_m
        for a in range(6):
            out[a, m] = 0.5 * (t[a] - g[a])


@njit(**_JIT)
def christoffel(topo, placement, jparam, inertia, S, D, T_user, q, Gamma):
    r"""Seed 000 Alg. 2 (single-body clusters) for one state: ``Gamma`` (nv, nv, nv).

    ``Gamma[i, j, k]`` = :math:`\Gamma^\star_{ijk}`. The paper's tensors are rows of
    6-vectors (module docstring); its root handling is guarded (lines 23, 25, 28, 31); the
    overwrites of lines 19 and 22 follow the writes of lines 15–17, as printed.
    """
    parent, jtype, iq, iv = topo[:-1, 0], topo[:-1, 1], topo[:, 2], topo[:, 3]
    N = parent.shape[0]
    if not all_finite(q):
        return pack(NON_FINITE_INPUT, -1)
    E, r = np.empty((N, 3, 3)), np.empty((N, 3))
    status = tree_transforms(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:
        return status
    Bt, Bt_p = np.empty((6, 6, 6)), np.empty((6, 6))  # pages of B(I^C_k, Φ_k)
    F1, F2, F3 = np.empty((36, 6)), np.empty((36, 6)), np.empty((36, 6))
    f4, W = np.empty((6, 6)), np.empty((6, 6))

    # ---- l.1-4: composite inertias start as the body inertias (D_i given per state) -------
    I_C = inertia.copy()
    Gamma[:, :, :] = 0.0

    # ---- backward pass over k (l.5-32) ---------------------------------------------------
    for k in range(N - 1, -1, -1):
        ok, dk = iv[k], iv[k + 1] - iv[k]
        if dk > 0:
            for c in range(dk):
                levi_civita_factor(I_C[k], S[ok + c], Bt[c])  # l.6: Bt = B(I^C_k, Φ_k)
                matvec6(I_C[k], S[ok + c], f4[c])  # l.8: f4 = I^C_k Φ_k
                for b in range(dk):
                    matvec6(I_C[k], D[ok + b, c], F3[b * dk + c])  # l.7: F3 = I^C_k D_k
            j = k
            while j >= 0:  # l.10
                oj, dj = iv[j], iv[j + 1] - iv[j]
                if dj > 0:
                    for b in range(dj):  # l.11: F1 = Bt Φ_j, F2 = Btᵀ Φ_j (page-wise)
                        for c in range(dk):
                            matvec6(Bt[c], S[oj + b], F1[b * dk + c])
                            matTvec6(Bt[c], S[oj + b], F2[b * dk + c])
                    i = j
                    while i >= 0:  # l.13
                        oi, di = iv[i], iv[i + 1] - iv[i]
                        for a in range(di):
                            for b in range(dj):
                                for c in range(dk):
                                    A1 = dot6(S[oi + a], F1[b * dk + c])  # l.14: A1[a, b, c]
                                    A2 = dot6(S[oi + a], F2[b * dk + c])  # A2[b, a, c]
                                    Gamma[oi + a, oj + b, ok + c] = A1  # l.15
                                    Gamma[oi + a, ok + c, oj + b] = A1
                                    Gamma[oj + b, oi + a, ok + c] = A2  # l.16
                                    Gamma[oj + b, ok + c, oi + a] = A2
                                    Gamma[ok + c, oi + a, oj + b] = -A2  # l.17: A3 = -A2^T13
                                    Gamma[ok + c, oj + b, oi + a] = -A2
                        if i == j:  # l.18-19: Γ_kii = A3 + f4ᵀ D_i
                            for c in range(dk):
                                for a in range(di):
                                    for b in range(di):
                                        Gamma[ok + c, oi + a, oi + b] = (
                                            -dot6(S[oi + a], F2[b * dk + c])
                                            + dot6(f4[c], D[oi + a, b]))
                        if j == k:  # l.21-22: Γ_ijj = A1 + Φ_iᵀ F3
                            for a in range(di):
                                for b in range(dk):
                                    for c in range(dk):
                                        Gamma[oi + a, ok + b, ok + c] = (
                                            dot6(S[oi + a], F1[b * dk + c])
                                            + dot6(S[oi + a], F3[b * dk + c]))
                        p = parent[i]
                        if p >= 0:
                            if j == k:  # l.23
                                for t in range(dk * dk):
                                    transform_force_transpose_inplace(E[i], r[i], F3[t])
                            for t in range(dj * dk):  # l.25
                                transform_force_transpose_inplace(E[i], r[i], F1[t])
                                transform_force_transpose_inplace(E[i], r[i], F2[t])
                        i = p  # l.26
                p = parent[j]
                if p >= 0:  # l.28: page-wise congruence
                    for c in range(dk):
                        Bt_p[:, :] = 0.0
                        congruence(E[j], r[j], Bt[c], W, Bt_p)
                        Bt[c, :, :] = Bt_p
                        transform_force_transpose_inplace(E[j], r[j], f4[c])
                j = p  # l.29
        p = parent[k]
        if p >= 0:  # l.31 (guarded at the root)
            congruence(E[k], r[k], I_C[k], W, I_C[p])
    if not all_finite_branchless(Gamma):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**_JIT)
def christoffel_batch(topo, placement, jparam, inertia, S, D, T_user, Q, Gamma, status):
    """:func:`christoffel` over a batch (per-state arrays with one row are shared); first failure + 1."""
    failed = 0
    for b in range(status.shape[0]):
        status[b] = christoffel(topo, placement, jparam, inertia, at(S, b), at(D, b),
                                at(T_user, b), at(Q, b), Gamma[b])
        if status[b] != OK and failed == 0:
            failed = b + 1
    return failed


# ----------------------------------------------------------------------------------------
# structure constants of the joint frame
# ----------------------------------------------------------------------------------------
@njit(**_JIT)
def structure_constants(topo, S, D, q, s):
    r"""``s[a, b, l]`` = :math:`s^\ell_{ab}` of each joint's speeds, block diagonal, for one state.

    :math:`s^\ell_{ab} = \boldsymbol\Psi_\ell^\top[\boldsymbol\Phi_a\times\boldsymbol\Phi_b +
    \mathcal D_{:,a,b} - \mathcal D_{:,b,a}]` with :math:`\boldsymbol\Psi^\top =
    (\boldsymbol\Phi^\top\boldsymbol\Phi)^{-1}\boldsymbol\Phi^\top` (any left inverse: the
    bracket lies in the span of :math:`\boldsymbol\Phi`), by a Cholesky solve of the normal
    equations (digest §1.1).
    """
    iv = topo[:, 3]
    N = topo.shape[0] - 1
    if not all_finite(q):
        return pack(NON_FINITE_INPUT, -1)
    L = np.empty((6, 6))
    w, y = np.empty(6), np.empty(6)
    s[:, :, :] = 0.0
    for i in range(N):
        o, d = iv[i], iv[i + 1] - iv[i]
        if d < 2:
            continue  # one field commutes with itself
        for a in range(d):  # Cholesky factor of Φᵀ Φ
            for b in range(a + 1):
                t = dot6(S[o + a], S[o + b])
                for m in range(b):
                    t -= L[a, m] * L[b, m]
                if a == b:
                    L[a, a] = np.sqrt(t)
                else:
                    L[a, b] = t / L[b, b]
        for a in range(d):
            for b in range(d):
                for m in range(6):  # w = Φ_a × Φ_b + D[:, a, b] - D[:, b, a]
                    w[m] = D[o + a, b, m] - D[o + b, a, m]
                cross_motion(S[o + a], S[o + b], w)
                for m in range(d):  # solve (L Lᵀ) y = Φᵀ w
                    t = dot6(S[o + m], w)
                    for n in range(m):
                        t -= L[m, n] * y[n]
                    y[m] = t / L[m, m]
                for m in range(d - 1, -1, -1):
                    t = y[m]
                    for n in range(m + 1, d):
                        t -= L[n, m] * y[n]
                    y[m] = t / L[m, m]
                for m in range(d):
                    s[o + a, o + b, o + m] = y[m]
    if not all_finite_branchless(s):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**_JIT)
def structure_constants_batch(topo, S, D, Q, s, status):
    """:func:`structure_constants` over a batch; first failure + 1."""
    failed = 0
    for b in range(status.shape[0]):
        status[b] = structure_constants(topo, at(S, b), at(D, b), at(Q, b), s[b])
        if status[b] != OK and failed == 0:
            failed = b + 1
    return failed
