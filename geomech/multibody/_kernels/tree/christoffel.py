r"""Christoffel kernels: seed 000 Alg. 2 and the joints' structure constants, one state per call.

Alg. 2 needs, besides the tree transforms and the motion subspaces ``S`` (rows), the rate
derivatives of user-defined joints, ``D`` (nv, 6, 6):

.. math:: \mathtt D[\mathrm{iv}_i + b, c] = \mathcal D_i[:, b, c]
          = \frac{\partial\mathring{\boldsymbol\Phi}_{i,:c}}{\partial\nu_{i,b}}
          \qquad (b, c < d_i),

filled per state by :mod:`geomech.multibody.algorithms.christoffel` from the joints' hooks at unit
speeds (the rate is linear in the joint's speeds); it is zero for every built-in joint (one shared
row). Tensors of the paper (rows, cols, pages) are kept as rows of 6-vectors: page ``c`` of column
``b`` of a 6 × d_j × d_k tensor is row ``b d_k + c``.

References
----------
seed 000 Alg. 2 (eqs. 24–28), §5.6 of the digest (line numbers as printed), digest §1.1
(structure constants).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from geomech.multibody._kernels.jit import JIT, at, first_failure
from geomech.multibody._kernels.spatial import (
    compose_transforms,
    cross_force,
    cross_motion,
    dot6,
    inertia_params,
    inertia_params_rate,
    inertia_params_times,
    inertia_params_transform,
    transform_motion_transpose,
)
from geomech.multibody._kernels.status import NON_FINITE_INPUT, NON_FINITE_RESULT, OK, pack
from geomech.multibody._kernels.tables import IQ, IV, JTYPE, PARENT
from geomech.multibody._kernels.tree.kinematics import (
    all_finite,
    tree_transforms,
)
from geomech.multibody._kernels.tree.layout import SAFE, largest, slot
from geomech.multibody._kernels.tree.tensor import dot6_rows

__all__ = [
    "christoffel_workspace",
    "christoffel_work",
    "christoffel",
    "christoffel_batch",
    "structure_constants",
    "structure_constants_batch",
]


@njit(**JIT)
def christoffel_workspace(N, nv):
    """The work arrays of :func:`christoffel_work` for ``N`` bodies and ``nv`` speeds."""
    return (
        np.empty((N, 3, 3)),
        np.empty((N, 3)),  # E, r: ^iX_p(i)
        np.empty((N, 3, 3)),
        np.empty((N, 3)),  # E0, r0: ^iX_0
        np.empty((nv, 6)),
        np.empty((nv, 6, 6)),  # Phi, D: ground coordinates
        np.empty((N, 10)),  # I_C (ten parameters)
        np.empty((6, 10)),
        np.empty((6, 6)),  # the pages of Bt as (P, h); h = f4
        np.empty((max(nv, 1), 6, 6)),
        np.empty((max(nv, 1), 6, 6)),  # F1, F2 of every DoF of the path root -> k, per page
        np.empty((36, 6)),  # F3
        np.empty(6),
        np.empty(6),
        np.empty(max(N, 1), np.int64),  # the bodies of the path
        np.empty((3, max(nv, 1)), np.int64),  # its DoFs: global index, start, end of the body
    )


@njit(**JIT)
def christoffel_work(
    topo, placement, jparam, inertia, loc, base, mcube, acube, S, D, T_user, q, G, work
):
    r"""Seed 000 Alg. 2 (single-body clusters) for one state: ``G`` (L,).

    Entry :math:`\Gamma^\star_{xyz}` goes to ``G[slot(base[k], mcube[k], acube[k], loc[x],
    loc[y], loc[z])]`` with ``k`` the deepest body of the triple, in the dense or the
    block-sparse layout of :mod:`geomech.multibody._kernels.tree.layout`: every entry the
    algorithm writes has its three DoFs on the path root → ``k`` (seed 001 eq. 36), and the
    entries it does not write are zero: the caller zeroes ``G`` in the dense layout, the
    block-sparse one is written whole. Every quantity is in ground coordinates as in
    :func:`~geomech.multibody._kernels.tree.coriolis.coriolis_work`: the products of lines 14,
    19 and 22 do not depend on the frame, so the transforms of lines 23, 25 and 28 are
    identities and line 31 is a sum. Page ``c`` of ``Bt = B(I^C_k, Φ_k)`` (line 6)
    is eq. 21 in closed form, :math:`\tfrac12[\mathbf P_c + \mathbf h_c\bar\times^*]` with
    :math:`\mathbf P_c = (\boldsymbol\Phi_c\times^*)\mathbf I^C_k - \mathbf I^C_k
    (\boldsymbol\Phi_c\times)` and :math:`\mathbf h_c = \mathbf I^C_k\boldsymbol\Phi_c`, which
    is also column ``c`` of line 8's ``f4``. The overwrites of lines 19 and 22 follow the
    writes of lines 15–17, as printed.
    """
    E, r, E0, r0, Phi, D0, I_C, P, h, F1, F2, F3, x, y, path, pdofs = work
    F1r, F2r = F1.reshape(F1.shape[0] * 6, 6), F2.reshape(F2.shape[0] * 6, 6)  # row 6 u + c
    pdof, pstart, pend = pdofs[0], pdofs[1], pdofs[2]
    parent, jtype, iq, iv = topo[:-1, PARENT], topo[:-1, JTYPE], topo[:, IQ], topo[:, IV]
    N = parent.shape[0]
    if not all_finite(q):
        return pack(NON_FINITE_INPUT, -1)
    status = tree_transforms(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:
        return status

    # ---- l.1-4: motion subspaces, rate derivatives and inertias in ground coordinates ----
    for i in range(N):
        p = parent[i]
        if p < 0:
            E0[i, :, :] = E[i]
            r0[i, :] = r[i]
        else:
            compose_transforms(E[i], r[i], E0[p], r0[p], E0[i], r0[i])  # ^iX_0 = ^iX_p ^pX_0
        for k in range(iv[i], iv[i + 1]):
            transform_motion_transpose(E0[i], r0[i], S[k], Phi[k])
            for c in range(iv[i + 1] - iv[i]):
                ring = False  # D_i = 0 for every built-in joint: skip its transform
                for a in range(6):
                    ring |= D[k, c, a] != 0.0
                if ring:
                    transform_motion_transpose(E0[i], r0[i], D[k, c], D0[k, c])
                else:
                    D0[k, c, :] = 0.0
        inertia_params(inertia[i], I_C[i])  # l.2: I^C_i = I_i
        inertia_params_transform(E0[i], r0[i], I_C[i], I_C[i])

    # every entry below is a sum of dot products of these vectors and F1, F2, F3, h: while
    # their entries are at most SAFE, G is finite and is not read again to check it
    big = largest(D0, largest(Phi, 0.0))
    # ---- backward pass over k (l.5-32) ---------------------------------------------------
    # Lines 10-29 visit the pairs i ⪯ j ⪯ k of the path root -> k and write six entries each
    # (l.15-17); here the same writes are made in two sweeps over the DoF pairs (x of i, y of
    # j) of that path, each writing the three entries that are contiguous in its inner index
    # (one cube of the block-sparse layout stays in cache, where the printed order strides
    # through it), with F1, F2 of l.11 stored per DoF y. The overwrites of l.18-19 and
    # l.21-22, which no other pair writes, follow the two sweeps as they follow l.15-17.
    for k in range(N - 1, -1, -1):
        ok, dk = iv[k], iv[k + 1] - iv[k]
        if dk == 0:
            p = parent[k]
            if p >= 0:
                for a in range(10):
                    I_C[p, a] += I_C[k, a]
            continue
        bk, mk, ak = base[k], mcube[k], acube[k]  # the cube of k: every triple below has k
        for c in range(dk):  # l.6: Bt = B(I^C_k, Φ_k) as (P_c, h_c); l.8: f4 = I^C_k Φ_k = h
            inertia_params_rate(I_C[k], Phi[ok + c], P[c])
            inertia_params_times(I_C[k], Phi[ok + c], h[c])
            for b in range(dk):  # l.7: F3 = I^C_k D_k
                inertia_params_times(I_C[k], D0[ok + b, c], F3[b * dk + c])
        # the DoFs of the path root -> k, root first (l.10, l.13: j and i run over them)
        nb, j = 0, k
        while j >= 0:
            path[nb] = j
            nb += 1
            j = parent[j]
        m = 0
        for t in range(nb - 1, -1, -1):
            j = path[t]
            start = m
            for dof in range(iv[j], iv[j + 1]):
                pdof[m] = dof
                pstart[m] = start
                m += 1
            for u in range(start, m):
                pend[u] = m
        for u in range(m):  # l.11: F1 = Bt Φ_j, F2 = Btᵀ Φ_j (page-wise), per DoF of j
            for c in range(dk):
                inertia_params_times(P[c], Phi[pdof[u]], x)
                y[:] = 0.0
                cross_force(Phi[pdof[u]], h[c], y)  # (h x̄*) Φ = Φ ×* h
                for a in range(6):
                    F1[u, c, a] = 0.5 * (x[a] + y[a])
                    F2[u, c, a] = 0.5 * (x[a] - y[a])
                big = largest(F1[u, c], largest(F2[u, c], big))
        big = largest(F3[: dk * dk], largest(h[:dk], big))
        # l.14-17 for every pair i ⪯ j: x of i, y of j, with x < pend[y] (⇔ y ≥ pstart[x])
        # (rows of Phi, F1, F2 by index: a view per product costs more than the product)
        for u in range(m):  # sweep 1: inner over x; A2[b, a, c] = Φ_xᵀ F2[y, c]
            ly = loc[pdof[u]]
            for c in range(dk):
                lz, uc = loc[ok + c], 6 * u + c
                for w in range(pend[u]):
                    lx = loc[pdof[w]]
                    A2 = dot6_rows(Phi, pdof[w], F2r, uc)
                    G[slot(bk, mk, ak, ly, lx, lz)] = A2  # l.16
                    G[slot(bk, mk, ak, ly, lz, lx)] = A2
                    G[slot(bk, mk, ak, lz, ly, lx)] = -A2  # l.17: A3 = -A2^T13
        for w in range(m):  # sweep 2: inner over y; A1[a, b, c] = Φ_xᵀ F1[y, c]
            lx, x_ = loc[pdof[w]], pdof[w]
            for c in range(dk):
                lz = loc[ok + c]
                for u in range(pstart[w], m):
                    ly, uc = loc[pdof[u]], 6 * u + c
                    A1 = dot6_rows(Phi, x_, F1r, uc)
                    G[slot(bk, mk, ak, lx, ly, lz)] = A1  # l.15
                    G[slot(bk, mk, ak, lx, lz, ly)] = A1
                    G[slot(bk, mk, ak, lz, lx, ly)] = -dot6_rows(Phi, x_, F2r, uc)  # l.17
        for w in range(m):  # l.18-19 (i = j): Γ_kii = A3 + f4ᵀ D_i
            for u in range(pstart[w], pend[w]):
                for c in range(dk):
                    G[slot(bk, mk, ak, loc[ok + c], loc[pdof[w]], loc[pdof[u]])] = dot6(
                        h[c], D0[pdof[w], u - pstart[w]]
                    ) - dot6(Phi[pdof[w]], F2[u, c])
        for w in range(m):  # l.21-22 (j = k): Γ_ijj = A1 + Φ_iᵀ F3
            lx = loc[pdof[w]]
            for b in range(dk):
                for c in range(dk):
                    G[slot(bk, mk, ak, lx, loc[ok + b], loc[ok + c])] = dot6(
                        Phi[pdof[w]], F1[m - dk + b, c]
                    ) + dot6(Phi[pdof[w]], F3[b * dk + c])
        p = parent[k]
        if p >= 0:  # l.31 (guarded at the root): a sum in ground coordinates
            for a in range(10):
                I_C[p, a] += I_C[k, a]
    if not (big <= SAFE or all_finite(G)):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**JIT)
def christoffel(topo, placement, jparam, inertia, loc, base, mcube, acube, S, D, T_user, q, G):
    """:func:`christoffel_work` with its own work arrays (one state)."""
    N = topo.shape[0] - 1
    return christoffel_work(
        topo,
        placement,
        jparam,
        inertia,
        loc,
        base,
        mcube,
        acube,
        S,
        D,
        T_user,
        q,
        G,
        christoffel_workspace(N, topo[N, IV]),
    )


@njit(**JIT)
def christoffel_batch(
    topo, placement, jparam, inertia, loc, base, mcube, acube, S, D, T_user, Q, G, status
):
    """:func:`christoffel_work` over a batch: ``G`` (B, L) in the layout ``(loc, base, mcube,
    acube)``, zeroed if dense (per-state arrays with one row are shared); first failure + 1.
    """
    N = topo.shape[0] - 1
    work = christoffel_workspace(N, topo[N, IV])
    for b in range(status.shape[0]):
        status[b] = christoffel_work(
            topo,
            placement,
            jparam,
            inertia,
            loc,
            base,
            mcube,
            acube,
            at(S, b),
            at(D, b),
            at(T_user, b),
            at(Q, b),
            G[b],
            work,
        )
    return first_failure(status)


# ----------------------------------------------------------------------------------------
# structure constants of the joint frame
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def structure_constants(topo, S, D, q, s):
    r"""``s[a, b, l]`` = :math:`s^\ell_{ab}` of each joint's speeds, block diagonal, for one state.

    :math:`s^\ell_{ab} = \boldsymbol\Psi_\ell^\top[\boldsymbol\Phi_a\times\boldsymbol\Phi_b +
    \mathcal D_{:,a,b} - \mathcal D_{:,b,a}]` with :math:`\boldsymbol\Psi^\top =
    (\boldsymbol\Phi^\top\boldsymbol\Phi)^{-1}\boldsymbol\Phi^\top` (any left inverse: the
    bracket lies in the span of :math:`\boldsymbol\Phi`), by a Cholesky solve of the normal
    equations (digest §1.1).
    """
    iv = topo[:, IV]
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
    if not all_finite(s):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**JIT)
def structure_constants_batch(topo, S, D, Q, s, status):
    """:func:`structure_constants` over a batch; first failure + 1."""
    for b in range(status.shape[0]):
        status[b] = structure_constants(topo, at(S, b), at(D, b), at(Q, b), s[b])
    return first_failure(status)
