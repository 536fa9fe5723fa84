r"""Cluster kernels of seed 004: C-RNEA, C-ABA and C-EFPA, one state per call.

The algorithms of Chignoli, Adrian, Kim and Wensing run on the cluster connectivity tree:
cluster ``k`` stacks the motion of its bodies (seed 004 eqs. 11–15), its *cluster joint*
has the motion subspace :math:`\mathsf S_k = {}^{\Lambda(k)}\mathsf X_{\lambda(k)}\,
\bar{\mathsf S}_k\,\mathsf G_k` (eq. 24) and velocity-product acceleration
:math:`\mathsf c_k = \dot{\mathsf S}_k\dot y_k`, and the transforms between clusters,
:math:`{}^k\mathsf X_{\lambda(k)}` (eq. 17), have one nonzero block per body: the transform
:math:`{}^i\mathbf X_{\Lambda(i)}` from the body's *output body* (the nearest ancestor outside
the cluster). The kernels keep the stacks as rows per body and never form a sparse cluster
transform densely (trap 9):

- ``Eo[i], ro[i]`` is the Plücker pair of :math:`{}^i\mathbf X_{\Lambda(i)}` (Alg. 1 l.9),
  the product of the tree transforms along the in-cluster ancestors;
- ``Sk[i, c]`` is the 6-vector of body ``i`` in column ``c`` of :math:`\mathsf S_k`,
  computed by the in-cluster recursion :math:`\mathbf s_i = {}^i\mathbf X_{\lambda(i)}
  \mathbf s_{\lambda(i)} + \mathbf S_i\,\mathsf G_{k,i}`, which applies the block
  lower-triangular remap :math:`{}^{\Lambda}\mathsf X_{\lambda}` of eq. 20 without forming it;
- ``ck[i]`` is the row of body ``i`` of :math:`\mathsf c_k`, by the same recursion:
  :math:`\mathbf c_i = {}^i\mathbf X_{\lambda(i)}\mathbf c_{\lambda(i)} + \mathbf S_i g_i +
  \mathring{\mathbf S}_i\dot q_i + \mathbf v_i\times\mathbf S_i\dot q_i` (in-cluster parents
  only), which is Alg. 1 l.14–19 with the velocity-product term that the printed algorithm
  lacks (seed 004 §6 trap 1, erratum): the term :math:`\mathbf v_i\times\mathbf S_i\dot q_i`
  is the derivative of :math:`{}^i\mathbf X_{\lambda(i)}` (l.15) acting on the parent's
  motion plus the :math:`\mathbf v_k\times\mathsf S_k` of eq. 26;
- C-RNEA runs in body coordinates (one fused forward pass, as the tree RNEA); C-ABA and
  C-EFPA run in ground coordinates (as the tree ABA), where :math:`{}^k\mathsf
  X_{\lambda(k)}` is the selection of each body's output body: the congruences
  :math:`{}^{\lambda}\mathsf X^*_k\mathsf I^a{}^k\mathsf X_{\lambda}` (l.32) and the force
  and propagator transfers (l.33, eq. 62) are sums of 6×6 blocks, and the columns are
  :math:`\mathsf S_{k,i} = \mathsf S_{k,\lambda(i)} + \boldsymbol\Phi_i\mathsf G_{k,i}`.
  The articulated inertia :math:`\mathsf I^A_k` is kept as one 6×6 block per body (upper
  triangles, ``IAd``) plus, for clusters whose child clusters hang from two of their bodies,
  the off-diagonal blocks in one flat work array (offsets ``cclus[:, IA_OFFSET]``, mask
  ``nzb``). :math:`\mathsf I^a = \mathsf I^A_k - \mathsf U_k\mathsf D_k^{-1}\mathsf
  U_k^\top` is never formed: the parent receives the blocks of :math:`\mathsf I^A_k` and the
  rank-:math:`m_k` update by :math:`\bar{\mathsf U}_o = \sum_{\Lambda(i) = o}\mathsf U_i`,
  and :math:`\mathsf p^a = \mathsf p^A + \mathsf I^A_k\mathsf c_k + \mathsf U_k\mathsf
  D_k^{-1}(\mathsf u_k - \mathsf U_k^\top\mathsf c_k)` (l.30 substituted in l.31);
- the cluster's shape code ``cclus[k, SHAPE]`` (flags of
  :mod:`~geomech.multibody._kernels.cluster.tables`) selects the work in the one kernel:
  ``BLOCK_DIAGONAL`` skips the off-diagonal blocks, ``ONE_OUTPUT`` makes the rank update one
  6×6 block, and :math:`m_k = 1` (``ONE_DOF``) makes :math:`\mathsf D_k^{-1}` a division.
  A link with its geared rotor, a belt pair, a four-bar, a floating base and every body of
  a tree are ``ONE_OUTPUT | BLOCK_DIAGONAL`` (``LUMPED``): C-ABA's and C-EFPA's backward
  passes take such a cluster in one sweep over its bodies (l.26–33: :math:`\mathsf U_i`,
  :math:`\mathsf D_k`, :math:`\mathsf u_k`, :math:`\bar{\mathsf U}` and the sums into the
  output body's block together; eq. 62's propagator sum likewise), and with ``ONE_DOF`` as
  well (``SIMPLE``) with scalar :math:`\mathsf D_k`, :math:`\mathsf u_k` and no loop
  over the cluster's speeds. The other shapes take the general path (dense blocks, one
  :math:`\bar{\mathsf U}` per output body). The specialised branches are the general
  recursions with the sums regrouped (measured, 12-link geared chain: C-ABA 1.35× the
  spanning tree's ABA through the general path, 1.0× through ``SIMPLE``; a loop over
  :math:`m = 1` kept in the sweep costs 8 %, and the general path as a called function
  instead of inlined costs the refcounts of its arrays on every cluster).

A tree is the degenerate cluster tree (one body per cluster, :math:`\mathsf G_k = \mathbf 1`),
where C-RNEA and C-ABA are the RNEA and ABA (seed 004 §5 identity 11).

The constraint data ``Gc``, ``gs`` and the cluster topology are described in
:mod:`~geomech.multibody._kernels.cluster.compiled`; the spanning tree's arrays in
:mod:`~geomech.multibody._kernels.tree.dynamics`.

References
----------
M. Chignoli, N. Adrian, S. Kim, P. M. Wensing, "Recursive Rigid-Body Dynamics Algorithms for
Systems with Kinematic Loops", arXiv:2311.13732 (seed 004): Sec. V (cluster spatial vector
algebra), Sec. VI (C-RNEA, eqs. 33–35), Algorithm 1 (C-ABA), Sec. VIII (C-EFPA, eqs. 57–67);
seed 004 digest §2, §6 traps 1–3, 9–10.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from geomech.multibody._kernels.cluster.tables import (
    BLOCK_DIAGONAL,
    CLUSTER,
    FIRST_BODY,
    FIRST_Y,
    IA_OFFSET,
    ONE_DOF,
    ONE_OUTPUT,
    OUTPUT,
    PARENT_CLUSTER,
    SHAPE,
    SLOT,
    STACK,
)
from geomech.multibody._kernels.jit import FMA, JIT, at, first_failure
from geomech.multibody._kernels.joints import USER
from geomech.multibody._kernels.linalg import SINGULAR_RTOL, cholesky_inverse
from geomech.multibody._kernels.spatial import (
    body_force,
    compose_transforms,
    cross_force,
    cross_motion,
    dot6,
    force_to_parent,
    inertia_params,
    inertia_params_matrix,
    inertia_params_times,
    inertia_params_transform,
    sym_matvec6,
    trace_about,
    transform_force_transpose,
    transform_motion,
    transform_motion_transpose,
)
from geomech.multibody._kernels.status import (
    NON_FINITE_INPUT,
    NON_FINITE_RESULT,
    OK,
    SINGULAR,
    pack,
)
from geomech.multibody._kernels.tables import ARMATURE, IQ, IV, JTYPE, PARENT
from geomech.multibody._kernels.tree.kinematics import all_finite, tree_transforms
from geomech.multibody._kernels.views import carve, total

__all__ = [
    "c_rnea",
    "c_rnea_batch",
    "c_aba",
    "c_aba_batch",
    "c_efpa",
    "c_efpa_batch",
]

#: inlined at numba's IR level: a call per cluster would pay the reference counting of its
#: dozen array arguments (about 0.5 µs per cluster, measured; most of C-ABA's backward pass)
FMA_INLINE = dict(FMA, inline="always")
#: shape code (``cclus[k, SHAPE]``) of a cluster whose bodies all hang from one output body
#: and whose articulated inertia stays block diagonal: a belt pair, a floating base
LUMPED = ONE_OUTPUT | BLOCK_DIAGONAL
#: the same with one DoF: a link with its geared rotor, a four-bar, a body of a tree
SIMPLE = ONE_OUTPUT | BLOCK_DIAGONAL | ONE_DOF


# ----------------------------------------------------------------------------------------
# C-RNEA (Sec. VI)
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def c_rnea(
    topo,
    placement,
    jparam,
    inertia,
    cbody,
    cclus,
    yidx,
    S,
    S_ring,
    T_user,
    Gc,
    gs,
    q,
    v,
    a,
    a0,
    f_ext,
    tau,
):
    r"""Cluster-based RNEA for one state: the independent forces ``tau`` (nv,).

    ``v``, ``a`` are the independent speeds :math:`\dot y` and accelerations :math:`\ddot y`;
    ``a0 = [0; −g]``; ``f_ext`` (N, 6) body wrenches in body coordinates (or no rows).
    Returns a packed status.
    """
    return _c_rnea(
        topo, placement, jparam, inertia, cbody, cclus, yidx, S, S_ring, T_user, Gc, gs, q, v,
        a, a0, f_ext, tau, _rnea_work(topo, Gc.shape[1], S.shape[0]),
    )  # fmt: skip


@njit(**JIT)
def _rnea_work(topo, mmax, n_s):
    """The work buffer of :func:`c_rnea`: one allocation, which :func:`_c_rnea` cuts into its
    arrays (:func:`_rnea_shapes`).

    The views are cut inside the per-state kernel, not here: a tuple of views handed from one
    compiled function to another costs an atomic reference-count increment and decrement per
    view, about 15 ns each (0.3 µs a call for C-ABA's 22 views, which a single call pays in
    full); within one function numba prunes those pairs.
    """
    return np.empty(total(_rnea_shapes(topo.shape[0] - 1, mmax, n_s)))


@njit(**JIT)
def _rnea_shapes(N, mmax, n_s):
    """The shapes of :func:`c_rnea`'s work arrays."""
    return (
        (N, 3, 3),  # E, r: ^iX_λ(i)
        (N, 3),
        (N, 6),  # vel, acc, f
        (N, 6),
        (N, 6),
        (n_s,),  # tau_s: S_jᵀ f̃_i per spanning joint
        (2, 6),  # vJ, cJ
    )


@njit(**FMA)
def _c_rnea(
    topo, placement, jparam, inertia, cbody, cclus, yidx, S, S_ring, T_user, Gc, gs, q, v, a,
    a0, f_ext, tau, w,
):  # fmt: skip
    r""":func:`c_rnea` with its work arrays (:func:`_rnea_work`), in body coordinates.

    The cluster joint's columns are never formed: with :math:`\mathsf S_{k,i} =
    \sum_j {}^i\mathbf X_j\mathbf S_j\mathsf G_{k,j}` over the in-cluster path to body ``i``
    (eq. 24), the cluster recursions (eqs. 31–35) are the spanning tree's body recursions
    driven by the cluster's own speeds: :math:`\dot q_{\mathcal J_k} = \mathsf G_k\dot y_k`,
    :math:`\ddot q_{\mathcal J_k} = \mathsf G_k\ddot y_k + \mathsf g_k` (Alg. 1 l.11, so that
    :math:`\mathsf S_k\ddot y_k + \mathsf c_k` is the bodies' acceleration relative to the
    output bodies), and :math:`\tau_k = \mathsf S_k^\top\mathsf f_k = \sum_j\mathsf
    G_{k,j}^\top\mathbf S_j^\top\tilde{\mathbf f}_j` with :math:`\tilde{\mathbf f}_j` the
    force that body ``j`` passes to its parent (the same sums regrouped along the in-cluster
    paths). Per cluster only its rows of ``Gc`` and ``gs`` are read: a cluster of one body
    and one speed costs what the tree RNEA costs for that body.
    """
    E, r, vel, acc, f, tau_s, x6 = carve(
        w, 0, _rnea_shapes(topo.shape[0] - 1, Gc.shape[1], S.shape[0])
    )
    vJ, cJ = x6[0], x6[1]
    parent, jtype, iq, iv = topo[:-1, PARENT], topo[:-1, JTYPE], topo[:, IQ], topo[:, IV]
    NC = cclus.shape[0] - 1
    if not (
        all_finite(q) and all_finite(v) and all_finite(a) and all_finite(a0) and all_finite(f_ext)
    ):
        return pack(NON_FINITE_INPUT, -1)
    status = tree_transforms(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:
        return status

    # ---- forward pass: v_k, a_k, f_k body by body (Alg. 1 l.11–19 with trap 1, eqs. 33–34)
    for k in range(NC):
        y0, m = cclus[k, FIRST_Y], cclus[k + 1, FIRST_Y] - cclus[k, FIRST_Y]
        one = cclus[k, SHAPE] & ONE_DOF  # ẏ_k, ÿ_k are numbers: no loop over the speeds
        yd = v[yidx[y0]] if one else 0.0
        ydd = a[yidx[y0]] if one else 0.0
        for t in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
            i = cbody[t, STACK]
            p = parent[i]
            for e in range(6):
                vJ[e] = 0.0
                cJ[e] = 0.0
            for j in range(iv[i], iv[i + 1]):
                if one:  # l.11: q̇ = G_k ẏ_k, q̈ = G_k ÿ_k + g_k
                    g = Gc[j, 0]
                    s, sa = g * yd, g * ydd + gs[j]
                else:
                    s, sa = 0.0, gs[j]
                    for c in range(m):
                        g = Gc[j, c]
                        s += g * v[yidx[y0 + c]]
                        sa += g * a[yidx[y0 + c]]
                tau_s[j] = sa  # q̈_j, for the armature term below
                for e in range(6):
                    vJ[e] += S[j, e] * s
                    cJ[e] += S[j, e] * sa
                if jtype[i] == USER:  # + S̊_j q̇_j (zero for the built-in joints)
                    for e in range(6):
                        cJ[e] += S_ring[j, e] * s
            if p < 0:  # v_0 = 0, a_0 = −a_g
                for e in range(6):
                    vel[i, e] = vJ[e]
                transform_motion(E[i], r[i], a0, acc[i])
            else:
                transform_motion(E[i], r[i], vel[p], vel[i])
                transform_motion(E[i], r[i], acc[p], acc[i])
                for e in range(6):
                    vel[i, e] += vJ[e]
            for e in range(6):
                acc[i, e] += cJ[e]
            cross_motion(vel[i], vJ, acc[i])  # + v_i × S_i q̇_i (trap 1)
            body_force(inertia[i], vel[i], acc[i], f[i])  # eq. 34: f = I a + v ×* I v
            if f_ext.shape[0] > 0:
                for e in range(6):
                    f[i, e] -= f_ext[i, e]

    # ---- backward pass: τ_k = S_kᵀ f_k (eq. 31), forces to the parents (eq. 35) ----------
    for k in range(NC - 1, -1, -1):
        y0, m = cclus[k, FIRST_Y], cclus[k + 1, FIRST_Y] - cclus[k, FIRST_Y]
        one = cclus[k, SHAPE] & ONE_DOF
        tk = 0.0  # τ_k = Σ_j G_k,j (S_jᵀ f̃_i + k_a q̈_j) of a one-DoF cluster, as it goes
        for t in range(cclus[k + 1, FIRST_BODY] - 1, cclus[k, FIRST_BODY] - 1, -1):
            i = cbody[t, STACK]
            for j in range(iv[i], iv[i + 1]):  # S_jᵀ f̃_i + k_a q̈_j (the joint's armature)
                x = dot6(S[j], f[i]) + jparam[i, ARMATURE + j - iv[i]] * tau_s[j]
                tau_s[j] = x
                if one:
                    tk += Gc[j, 0] * x
            if parent[i] >= 0:
                transform_force_transpose(E[i], r[i], f[i], f[parent[i]])
        if one:
            tau[yidx[y0]] = tk
            continue
        for c in range(m):
            s = 0.0
            for t in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
                i = cbody[t, STACK]
                for j in range(iv[i], iv[i + 1]):
                    s += Gc[j, c] * tau_s[j]
            tau[yidx[y0 + c]] = s
    if not all_finite(tau):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**JIT)
def c_rnea_batch(
    topo,
    placement,
    jparam,
    inertia,
    cbody,
    cclus,
    yidx,
    S,
    S_ring,
    T_user,
    Gc,
    gs,
    Q,
    V,
    A,
    A0,
    F_ext,
    TAU,
    status,
):
    """:func:`c_rnea` over a batch (work arrays allocated once); first failure + 1."""
    w = _rnea_work(topo, Gc.shape[2], S.shape[1])
    for b in range(status.shape[0]):
        status[b] = _c_rnea(
            topo, placement, jparam, inertia, cbody, cclus, yidx, at(S, b), at(S_ring, b),
            at(T_user, b), at(Gc, b), at(gs, b), at(Q, b), at(V, b), at(A, b), at(A0, b),
            at(F_ext, b), TAU[b], w,
        )  # fmt: skip
    return first_failure(status)


# ----------------------------------------------------------------------------------------
# C-ABA (Algorithm 1)
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def c_aba(
    topo,
    placement,
    jparam,
    inertia,
    cbody,
    cclus,
    yidx,
    S,
    S_ring,
    T_user,
    Gc,
    gs,
    q,
    v,
    tau,
    a0,
    f_ext,
    a,
):
    r"""Cluster-based articulated-body algorithm for one state (seed 004 Alg. 1): ``a`` (nv,).

    ``tau`` is the independent generalized force :math:`\tau = G^\top\tau_s`; ``a`` receives
    :math:`\ddot y`. Returns a packed status (``SINGULAR`` naming the first body of a cluster
    whose :math:`\mathsf D_k` is singular).

    Every quantity is held in ground coordinates, as the tree ABA
    (:func:`~geomech.multibody._kernels.tree.dynamics.aba`) does: then the cluster transform
    :math:`{}^k\mathsf X_{\lambda(k)}` (eq. 17) is the selection of each body's output body,
    and its congruences (l.32–33) are plain sums of 6×6 blocks, :math:`\mathsf I^A_{\Lambda(i)
    \Lambda(j)} \mathrel{+}= \mathsf I^a_{ij}`. In ground coordinates the cluster joint's
    columns are the sums of the spanning joints' columns along the in-cluster path,
    :math:`\mathsf S_{k,i} = \mathsf S_{k,\lambda(i)} + \boldsymbol\Phi_i\mathsf G_{k,i}`
    (in-cluster parents only), and :math:`\mathsf c_{k,i} = \mathsf c_{k,\lambda(i)} +
    \boldsymbol\Phi_i g_i + \mathbf v_i\times\boldsymbol\Phi_i\dot q_i` (with trap 1's
    velocity product). The cluster's shape code (``cclus[k, SHAPE]``) selects the work:
    diagonal blocks only (``BLOCK_DIAGONAL``), one output block (``ONE_OUTPUT``), a scalar
    :math:`\mathsf D_k` (``ONE_DOF``), or the general dense blocks.
    """
    w = _aba_work(topo, cclus, Gc.shape[1], S.shape[0])
    return _c_aba(
        topo,
        placement,
        jparam,
        inertia,
        cbody,
        cclus,
        yidx,
        S,
        S_ring,
        T_user,
        Gc,
        gs,
        q,
        v,
        tau,
        a0,
        f_ext,
        a,
        w,
    )


@njit(**JIT)
def _aba_work(topo, cclus, mmax, n_s):
    """The work buffers of :func:`c_aba` (once per call or batch): the flags of the nonzero
    off-diagonal blocks, the output-body slots, and one float buffer that :func:`_c_aba` cuts
    into its arrays (:func:`_aba_shapes`; why there: :func:`_rnea_work`).
    """
    NC = cclus.shape[0] - 1
    lmax = 1
    for k in range(NC):
        lmax = max(lmax, cclus[k + 1, FIRST_BODY] - cclus[k, FIRST_BODY])
    nzb = np.zeros(cclus[NC, IA_OFFSET] // 36, dtype=np.bool_)
    return (
        nzb,
        np.empty(lmax, dtype=np.int64),
        np.empty(total(_aba_shapes(topo.shape[0] - 1, cclus, mmax, n_s, lmax))),
    )


@njit(**JIT)
def _aba_shapes(N, cclus, mmax, n_s, lmax):
    """The shapes of :func:`c_aba`'s float work arrays (``lmax``: the largest cluster)."""
    NC = cclus.shape[0] - 1
    return (
        (N, 3, 3),  # E, r: ^iX_λ(i)
        (N, 3),
        (N, 3, 3),  # E0, r0: ^iX_0
        (N, 3),
        (n_s, 6),  # Phi: spanning joints' columns, ground coordinates
        (n_s,),  # qd: q̇_s = G v
        (N, 6),  # vel, ck, p_A: twists, velocity products, bias forces
        (N, 6),
        (N, 6),
        (N, mmax, 6),  # Sk, U: S_k and U_k, rows per body
        (N, mmax, 6),
        (N, 6, 6),  # IAd: diagonal blocks of I^A (upper triangles)
        (cclus[NC, IA_OFFSET],),  # IAo: off-diagonal blocks of I^A_k (general clusters)
        (NC, mmax, mmax),  # Dinv: D_k⁻¹
        (mmax, mmax),  # Dk, L
        (mmax, mmax),
        (NC, mmax),  # u: u_k
        (lmax, mmax, 6),  # Ub: Ū per output body
        (mmax, 6),  # UD: rows of D⁻¹ Ūᵀ
        (2, mmax),  # w2: m-vectors
        (3, 6),  # x6: 6-vectors
        (10,),  # I10: an inertia's ten parameters
    )


@njit(**FMA)
def _c_aba(
    topo,
    placement,
    jparam,
    inertia,
    cbody,
    cclus,
    yidx,
    S,
    S_ring,
    T_user,
    Gc,
    gs,
    q,
    v,
    tau,
    a0,
    f_ext,
    a,
    w,
):
    """:func:`c_aba` with its work arrays (:func:`_aba_work`)."""
    nzb, slots, buf = w
    shapes = _aba_shapes(topo.shape[0] - 1, cclus, Gc.shape[1], S.shape[0], slots.shape[0])
    (E, r, E0, r0, Phi, qd, vel, ck, p_A, Sk, U, IAd, IAo, Dinv, Dk, L, u, Ub, UD, w2, x6,
     I10) = carve(buf, 0, shapes)  # fmt: skip
    parent, jtype, iq, iv = topo[:-1, PARENT], topo[:-1, JTYPE], topo[:, IQ], topo[:, IV]
    NC = cclus.shape[0] - 1
    if not (
        all_finite(q) and all_finite(v) and all_finite(tau) and all_finite(a0) and all_finite(f_ext)
    ):
        return pack(NON_FINITE_INPUT, -1)
    status = tree_transforms(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:
        return status
    acc, x = p_A, x6[1]  # acc takes p_A's place in forward pass #2
    general = False  # off-diagonal blocks in some I^A_k: clear their storage
    for k in range(NC):
        if not cclus[k, SHAPE] & BLOCK_DIAGONAL:
            general = True
    if general:
        IAo[:] = 0.0
        nzb[:] = False

    # ---- forward pass #1: kinematics (l.1–19), I^A_k = I_k (l.20), p^A_k (l.21), ground --
    _ground_kinematics(
        jtype, parent, iv, inertia, cbody, cclus, yidx, E, r, S, S_ring, Gc, gs, v, f_ext, w, True
    )

    # ---- backward pass (l.24–35) ---------------------------------------------------------
    for k in range(NC - 1, -1, -1):
        b0, n = cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY] - cclus[k, FIRST_BODY]
        y0, m = cclus[k, FIRST_Y], cclus[k + 1, FIRST_Y] - cclus[k, FIRST_Y]
        shape = cclus[k, SHAPE]
        if shape == SIMPLE:  # one DoF, one output body, block diagonal: all in one sweep
            o = cbody[cbody[b0, STACK], OUTPUT]
            yk = yidx[y0]
            uk, dk, scale = tau[yk], 0.0, 0.0
            for s in range(n):  # l.26–28: U_i = I^A_i S_k,i, D_k = S_kᵀ U_k, u_k
                i = cbody[b0 + s, STACK]
                Si, Ui, Ii = Sk[i, 0], U[i, 0], IAd[i]
                scale += trace_about(Ii, r0[i])
                sym_matvec6(Ii, Si, Ui)
                dk += dot6(Si, Ui)
                uk -= dot6(Si, p_A[i])
                for j in range(iv[i], iv[i + 1]):  # the joints' armature
                    g, ka = Gc[j, 0], jparam[i, ARMATURE + j - iv[i]]
                    dk += g * ka * g
                    uk -= g * ka * gs[j]
            if not dk > SINGULAR_RTOL * scale:
                return pack(SINGULAR, cbody[b0, STACK])
            dinv = 1.0 / dk
            Dinv[k, 0, 0] = dinv
            u[k, 0] = uk
            if o < 0:
                continue
            wk = uk
            for s in range(n):
                i = cbody[b0 + s, STACK]
                wk -= dot6(U[i, 0], ck[i])
            wk *= dinv  # l.30–33: p^A_o += Σ (p^A_i + I^A_i c_i) + Ū w;  I^A_o += Σ I^A_i − ŪŪᵀ/D
            ub = UD[0]
            for e in range(6):
                ub[e] = 0.0
            Io = IAd[o]
            for s in range(n):
                i = cbody[b0 + s, STACK]
                Ii, Ui = IAd[i], U[i, 0]
                sym_matvec6(Ii, ck[i], x)
                for e in range(6):
                    p_A[o, e] += p_A[i, e] + x[e] + Ui[e] * wk
                    ub[e] += Ui[e]
                    for e2 in range(e, 6):
                        Io[e, e2] += Ii[e, e2]
            for e in range(6):
                y = ub[e] * dinv
                for e2 in range(e, 6):
                    Io[e, e2] -= y * ub[e2]
            continue
        if shape & LUMPED == LUMPED and m > 0:  # one output body, block diagonal, m > 1: one sweep
            o = cbody[cbody[b0, STACK], OUTPUT]
            scale = 0.0
            for c in range(m):  # l.28: u_k = τ_k − S_kᵀ p^A_k (− G_kᵀ diag(k_a) g_k)
                u[k, c] = tau[yidx[y0 + c]]
                for d in range(c + 1):
                    Dk[c, d] = 0.0
            for s in range(n):  # l.26–27: U_i = I^A_i S_k,i, D_k = S_kᵀ U_k (+ armature)
                i = cbody[b0 + s, STACK]
                Ii = IAd[i]
                scale += trace_about(Ii, r0[i])
                for c in range(m):
                    Sc, Uc = Sk[i, c], U[i, c]
                    sym_matvec6(Ii, Sc, Uc)
                    u[k, c] -= dot6(Sc, p_A[i])
                    for d in range(c + 1):
                        Dk[c, d] += dot6(Sk[i, d], Uc)
                for j in range(iv[i], iv[i + 1]):  # the joints' armature
                    ka = jparam[i, ARMATURE + j - iv[i]]
                    for c in range(m):
                        g = Gc[j, c] * ka
                        u[k, c] -= g * gs[j]
                        for d in range(c + 1):
                            Dk[c, d] += g * Gc[j, d]
            for c in range(m):  # m > 1 (m = 1 is SIMPLE, above): Cholesky
                for d in range(c):
                    Dk[d, c] = Dk[c, d]
            if not cholesky_inverse(Dk, m, scale, Dinv[k], L):
                return pack(SINGULAR, cbody[b0, STACK])
            if o < 0:
                continue
            for c in range(m):  # w = D⁻¹ (u_k − U_kᵀ c_k)
                y = u[k, c]
                for s in range(n):
                    i = cbody[b0 + s, STACK]
                    y -= dot6(U[i, c], ck[i])
                w2[1, c] = y
            for c in range(m):
                y = 0.0
                for d in range(m):
                    y += Dinv[k, c, d] * w2[1, d]
                w2[0, c] = y
            # l.30–33: p^A_o += Σ (p^A_i + I^A_i c_i) + Ū w, I^A_o += Σ I^A_i − Ū D⁻¹ Ūᵀ
            ub = Ub[0]
            for c in range(m):
                for e in range(6):
                    ub[c, e] = 0.0
            Io = IAd[o]
            for s in range(n):
                i = cbody[b0 + s, STACK]
                Ii = IAd[i]
                sym_matvec6(Ii, ck[i], x)
                for e in range(6):
                    y = p_A[i, e] + x[e]
                    for c in range(m):
                        y += U[i, c, e] * w2[0, c]
                        ub[c, e] += U[i, c, e]
                    p_A[o, e] += y
                    for e2 in range(e, 6):
                        Io[e, e2] += Ii[e, e2]
            for c in range(m):  # UD = D⁻¹ Ūᵀ
                for e in range(6):
                    y = 0.0
                    for d in range(m):
                        y += Dinv[k, c, d] * ub[d, e]
                    UD[c, e] = y
            for e in range(6):
                for e2 in range(e, 6):
                    y = 0.0
                    for c in range(m):
                        y += UD[c, e] * ub[c, e2]
                    Io[e, e2] -= y
            continue
        if m > 0:
            for c in range(m):  # l.28: u_k = τ_k − S_kᵀ p^A_k (− G_kᵀ diag(k_a) g_k)
                y = tau[yidx[y0 + c]]
                for s in range(n):
                    i = cbody[b0 + s, STACK]
                    y -= dot6(Sk[i, c], p_A[i])
                    for j in range(iv[i], iv[i + 1]):
                        y -= Gc[j, c] * jparam[i, ARMATURE + j - iv[i]] * gs[j]
                u[k, c] = y
            if not _articulate(
                cbody, cclus, k, Sk, r0, IAd, IAo, nzb, U, Dk, L, Dinv[k], jparam, iv, Gc
            ):
                return pack(SINGULAR, cbody[b0, STACK])  # l.26–27
        if cclus[k, PARENT_CLUSTER] < 0:  # l.29
            continue
        # w = D⁻¹ (u_k − U_kᵀ c_k): l.30 and l.31 give p^a = p^A + I^A_k c_k + U w
        for c in range(m):
            y = u[k, c]
            for s in range(n):
                i = cbody[b0 + s, STACK]
                y -= dot6(U[i, c], ck[i])
            w2[1, c] = y
        for c in range(m):
            y = 0.0
            for d in range(m):
                y += Dinv[k, c, d] * w2[1, d]
            w2[0, c] = y
        # l.33: p^A_Λ(i) += p^a_i (ground coordinates: a sum)
        for s in range(n):
            i = cbody[b0 + s, STACK]
            o = cbody[i, OUTPUT]
            sym_matvec6(IAd[i], ck[i], x)
            for e in range(6):
                y = p_A[i, e] + x[e]
                for c in range(m):
                    y += U[i, c, e] * w2[0, c]
                p_A[o, e] += y
        if not shape & BLOCK_DIAGONAL:  # the off-diagonal blocks' I^A c
            _off_diagonal_bias(cbody, cclus, k, ck, IAo, nzb, p_A)
        # l.30 + l.32: I^A_λ(k) += ^λX*_k I^a ^kX_λ (block sums, I^a never formed)
        _inertia_to_parent(cbody, cclus, k, m, U, Dinv[k], IAd, IAo, nzb, Ub, UD, slots)

    # ---- forward pass #2 (l.37–43), ground: a_0 = −a_g (l.38) ------------------------------
    for k in range(NC):
        b0, n = cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY] - cclus[k, FIRST_BODY]
        y0, m = cclus[k, FIRST_Y], cclus[k + 1, FIRST_Y] - cclus[k, FIRST_Y]
        for c in range(m):
            w2[1, c] = u[k, c]
        for s in range(n):  # l.40: a' = a_Λ(i) + c_k;  l.41: u_k − U_kᵀ a'
            i = cbody[b0 + s, STACK]
            o = cbody[i, OUTPUT]
            for e in range(6):
                acc[i, e] = ck[i, e] + (a0[e] if o < 0 else acc[o, e])
            for c in range(m):
                w2[1, c] -= dot6(U[i, c], acc[i])
        for c in range(m):  # ÿ_k = D_k⁻¹ (u_k − U_kᵀ a')
            y = 0.0
            for d in range(m):
                y += Dinv[k, c, d] * w2[1, d]
            a[yidx[y0 + c]] = y
        for s in range(n):  # l.42: a_k = a' + S_k ÿ_k
            i = cbody[b0 + s, STACK]
            for c in range(m):
                y = a[yidx[y0 + c]]
                for e in range(6):
                    acc[i, e] += Sk[i, c, e] * y
    if not all_finite(a):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**FMA)
def _ground_kinematics(
    jtype, parent, iv, inertia, cbody, cclus, yidx, E, r, S, S_ring, Gc, gs, v, f_ext, w, moving
):
    r"""Alg. 1 l.1–21 in ground coordinates (:func:`c_aba`): ``E0, r0`` (:math:`{}^i\mathbf
    X_0`), ``Phi``, ``Sk``, the diagonal blocks ``IAd`` :math:`= \mathbf I_i` and, if
    ``moving``, ``qd`` :math:`= Gv`, ``vel``, ``ck`` and ``p_A`` :math:`= \mathbf v_i
    \times^*\mathbf I_i\mathbf v_i - \mathbf f^{ext}_i` (C-EFPA works at rest and reads
    ``gs``, ``v`` and ``f_ext`` not at all).
    """
    _nzb, slots, buf = w  # the views cut again here (:func:`_rnea_work`)
    shapes = _aba_shapes(parent.shape[0], cclus, Gc.shape[1], S.shape[0], slots.shape[0])
    (_E, _r, E0, r0, Phi, qd, vel, ck, p_A, Sk, _U, IAd, _IAo, _Dinv, _Dk, _L, _u, _Ub, _UD,
     _w2, x6, I10) = carve(buf, 0, shapes)  # fmt: skip
    vJ, x, z = x6[0], x6[1], x6[2]
    for k in range(cclus.shape[0] - 1):  # l.3: clusters in regular order
        y0, m = cclus[k, FIRST_Y], cclus[k + 1, FIRST_Y] - cclus[k, FIRST_Y]
        for t in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):  # l.4
            i = cbody[t, STACK]
            p = parent[i]
            inside = p != cbody[i, OUTPUT]  # the tree parent is in the cluster
            if p < 0:  # ^iX_0 of a root, the origin at body 0's (as the tree ABA)
                for e in range(3):
                    r0[i, e] = r[i, e] - r[0, e]
                    for e2 in range(3):
                        E0[i, e, e2] = E[i, e, e2]
            else:
                compose_transforms(E[i], r[i], E0[p], r0[p], E0[i], r0[i])
            inertia_params(inertia[i], I10)  # l.20: I^A = I_i in ground
            inertia_params_transform(E0[i], r0[i], I10, I10)
            inertia_params_matrix(I10, IAd[i])
            for e in range(6):  # slices are not copied: numba's copies check for overlap
                for c in range(m):
                    Sk[i, c, e] = Sk[p, c, e] if inside else 0.0
            if not moving:  # l.12 only: S_k,i = S_k,λ(i) + Φ_i G_k,i
                for j in range(iv[i], iv[i + 1]):
                    transform_motion_transpose(E0[i], r0[i], S[j], Phi[j])
                    for c in range(m):
                        g = Gc[j, c]
                        for e in range(6):
                            Sk[i, c, e] += Phi[j, e] * g
                continue
            for e in range(6):
                vJ[e] = 0.0
                ck[i, e] = ck[p, e] if inside else 0.0
            for j in range(iv[i], iv[i + 1]):
                transform_motion_transpose(E0[i], r0[i], S[j], Phi[j])
                s = 0.0  # l.11: q̇_𝒥k = G_k ẏ_k
                for c in range(m):
                    g = Gc[j, c]
                    s += g * v[yidx[y0 + c]]
                    for e in range(6):  # l.12: S_k,i = S_k,λ(i) + Φ_i G_k,i
                        Sk[i, c, e] += Phi[j, e] * g
                qd[j] = s
                for e in range(6):
                    vJ[e] += Phi[j, e] * s
                    ck[i, e] += Phi[j, e] * gs[j]
            for e in range(6):  # l.13: v_i = v_λ(i) + Φ_i q̇_i
                vel[i, e] = vJ[e] if p < 0 else vel[p, e] + vJ[e]
            cross_motion(vel[i], vJ, ck[i])  # l.14–19 with trap 1's v × Φ q̇
            if jtype[i] == USER:  # + ^0X_i S̊_i q̇_i (zero for the built-in joints)
                for e in range(6):
                    x[e] = 0.0
                for j in range(iv[i], iv[i + 1]):
                    for e in range(6):
                        x[e] += S_ring[j, e] * qd[j]
                transform_motion_transpose(E0[i], r0[i], x, z)
                for e in range(6):
                    ck[i, e] += z[e]
            inertia_params_times(I10, vel[i], x)  # l.21: p^A = v ×* I v − f^ext
            for e in range(6):
                p_A[i, e] = 0.0
            cross_force(vel[i], x, p_A[i])
            if f_ext.shape[0] > 0:  # f^ext_i in body coordinates: ^0X_i^* f^ext_i
                force_to_parent(E0[i], r0[i], f_ext[i], x, False)
                for e in range(6):
                    p_A[i, e] -= x[e]


@njit(**FMA_INLINE)
def _articulate(cbody, cclus, k, Sk, r0, IAd, IAo, nzb, U, Dk, L, Dinv_k, jparam, iv, Gc):
    r"""l.26–27 for cluster ``k`` in ground coordinates: :math:`\mathsf U_k = \mathsf I^A_k
    \mathsf S_k` (the diagonal blocks, and the off-diagonal ones unless ``BLOCK_DIAGONAL``)
    and :math:`\mathsf D_k^{-1}` (a division when ``m = 1``, else Cholesky, trap 9); False
    when :math:`\mathsf D_k` is singular (a pivot at most ``SINGULAR_RTOL`` times the traces
    of the diagonal blocks about their bodies' origins).
    """
    b0, n = cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY] - cclus[k, FIRST_BODY]
    m = cclus[k + 1, FIRST_Y] - cclus[k, FIRST_Y]
    ia = cclus[k, IA_OFFSET]
    scale = 0.0
    for s in range(n):
        i = cbody[b0 + s, STACK]
        scale += trace_about(IAd[i], r0[i])
        for c in range(m):
            sym_matvec6(IAd[i], Sk[i, c], U[i, c])
    if not cclus[k, SHAPE] & BLOCK_DIAGONAL:
        for s in range(n):
            i = cbody[b0 + s, STACK]
            for s2 in range(n):
                if s2 == s or not nzb[ia // 36 + s * n + s2]:
                    continue
                j = cbody[b0 + s2, STACK]
                o = ia + 36 * (s * n + s2)
                for c in range(m):
                    for e in range(6):
                        y = 0.0
                        for e2 in range(6):
                            y += IAo[o + 6 * e + e2] * Sk[j, c, e2]
                        U[i, c, e] += y
    for c in range(m):  # D_k = S_kᵀ U_k (lower triangle and mirror)
        for d in range(c + 1):
            y = 0.0
            for s in range(n):
                i = cbody[b0 + s, STACK]
                y += dot6(Sk[i, c], U[i, d])
                for j in range(iv[i], iv[i + 1]):  # + G_kᵀ diag(k_a) G_k: the joints' armature
                    y += Gc[j, c] * jparam[i, ARMATURE + j - iv[i]] * Gc[j, d]
            Dk[c, d] = Dk[d, c] = y
    if m == 1:  # ONE_DOF: D_k is a number
        if not Dk[0, 0] > SINGULAR_RTOL * scale:
            return False
        Dinv_k[0, 0] = 1.0 / Dk[0, 0]
        return True
    return cholesky_inverse(Dk, m, scale, Dinv_k, L)


@njit(**JIT)
def _off_diagonal_bias(cbody, cclus, k, ck, IAo, nzb, p_A):
    r""":math:`\mathsf p^A_{\Lambda(i)} \mathrel{+}= \sum_{j\ne i}\mathsf I^A_{ij}\mathsf c_j`
    over the off-diagonal blocks of a general cluster (ground coordinates).
    """
    b0, n = cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY] - cclus[k, FIRST_BODY]
    ia = cclus[k, IA_OFFSET]
    for s in range(n):
        o = cbody[cbody[b0 + s, STACK], OUTPUT]
        for s2 in range(n):
            if s2 == s or not nzb[ia // 36 + s * n + s2]:
                continue
            j = cbody[b0 + s2, STACK]
            blk = ia + 36 * (s * n + s2)
            for e in range(6):
                y = 0.0
                for e2 in range(6):
                    y += IAo[blk + 6 * e + e2] * ck[j, e2]
                p_A[o, e] += y


@njit(**FMA_INLINE)
def _inertia_to_parent(cbody, cclus, k, m, U, Dinv_k, IAd, IAo, nzb, Ub, UD, slots):
    r"""l.30 and l.32 in ground coordinates: :math:`\mathsf I^A_{\Lambda(i)\Lambda(j)}
    \mathrel{+}= \mathsf I^A_{ij} - \mathsf U_i\mathsf D_k^{-1}\mathsf U_j^\top`, without
    forming :math:`\mathsf I^a`.

    The blocks of :math:`\mathsf I^A_k` are summed into the parent's (a diagonal block when
    :math:`\Lambda(i) = \Lambda(j)`; upper triangles of the diagonal blocks only), then the
    rank-:math:`m` update by :math:`\bar{\mathsf U}_o = \sum_{\Lambda(i) = o}\mathsf U_i`
    (one output body: ``ONE_OUTPUT``; else one :math:`\bar{\mathsf U}` per output body and
    the blocks between them).
    """
    b0, n = cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY] - cclus[k, FIRST_BODY]
    shape = cclus[k, SHAPE]
    for s in range(n):
        i = cbody[b0 + s, STACK]
        o = cbody[i, OUTPUT]
        for e in range(6):
            for e2 in range(e, 6):
                IAd[o, e, e2] += IAd[i, e, e2]
    if not shape & BLOCK_DIAGONAL:
        ia = cclus[k, IA_OFFSET]
        for s in range(n):
            o = cbody[cbody[b0 + s, STACK], OUTPUT]
            for s2 in range(n):
                if s2 == s or not nzb[ia // 36 + s * n + s2]:
                    continue
                o2 = cbody[cbody[b0 + s2, STACK], OUTPUT]
                blk = ia + 36 * (s * n + s2)
                if o == o2:  # (i, j) and (j, i) land on one diagonal block
                    for e in range(6):
                        for e2 in range(e, 6):
                            IAd[o, e, e2] += IAo[blk + 6 * e + e2]
                else:
                    kp = cbody[o, CLUSTER]
                    npar = cclus[kp + 1, FIRST_BODY] - cclus[kp, FIRST_BODY]
                    sa, sb = cbody[o, SLOT], cbody[o2, SLOT]
                    pb = cclus[kp, IA_OFFSET] + 36 * (sa * npar + sb)
                    for e in range(36):
                        IAo[pb + e] += IAo[blk + e]
                    nzb[cclus[kp, IA_OFFSET] // 36 + sa * npar + sb] = True
    if m == 0:
        return
    if shape & ONE_OUTPUT:  # one output body: I^A_o −= Ū D_k⁻¹ Ūᵀ, Ū = Σ U_i
        o = cbody[cbody[b0, STACK], OUTPUT]
        ub = Ub[0]
        for c in range(m):
            for e in range(6):
                y = 0.0
                for s in range(n):
                    y += U[cbody[b0 + s, STACK], c, e]
                ub[c, e] = y
        for c in range(m):  # UD = D⁻¹ Ūᵀ
            for e in range(6):
                y = 0.0
                for d in range(m):
                    y += Dinv_k[c, d] * ub[d, e]
                UD[c, e] = y
        for e in range(6):
            for e2 in range(e, 6):
                y = 0.0
                for c in range(m):
                    y += UD[c, e] * ub[c, e2]
                IAd[o, e, e2] -= y
        return
    nsl = 0  # Ū per distinct output body (one when ONE_OUTPUT)
    for s in range(n):
        i = cbody[b0 + s, STACK]
        o = cbody[i, OUTPUT]
        t = 0
        while t < nsl and slots[t] != o:
            t += 1
        if t == nsl:
            slots[t] = o
            for c in range(m):
                for e in range(6):
                    Ub[t, c, e] = 0.0
            nsl += 1
        for c in range(m):
            for e in range(6):
                Ub[t, c, e] += U[i, c, e]
    for t in range(nsl):
        oa = slots[t]
        for c in range(m):  # UD = D⁻¹ Ū_aᵀ
            for e in range(6):
                y = 0.0
                for d in range(m):
                    y += Dinv_k[c, d] * Ub[t, d, e]
                UD[c, e] = y
        for t2 in range(nsl):
            ob = slots[t2]
            if oa == ob:
                for e in range(6):
                    for e2 in range(e, 6):
                        y = 0.0
                        for c in range(m):
                            y += UD[c, e] * Ub[t, c, e2]
                        IAd[oa, e, e2] -= y
                continue
            kp = cbody[oa, CLUSTER]
            npar = cclus[kp + 1, FIRST_BODY] - cclus[kp, FIRST_BODY]
            sa, sb = cbody[oa, SLOT], cbody[ob, SLOT]
            pb = cclus[kp, IA_OFFSET] + 36 * (sb * npar + sa)  # block (Λ_b, Λ_a) = Ū_b D⁻¹ Ū_aᵀ
            for e in range(6):
                for e2 in range(6):
                    y = 0.0
                    for c in range(m):
                        y += Ub[t2, c, e] * UD[c, e2]
                    IAo[pb + 6 * e + e2] -= y
            nzb[cclus[kp, IA_OFFSET] // 36 + sb * npar + sa] = True


@njit(**JIT)
def c_aba_batch(
    topo,
    placement,
    jparam,
    inertia,
    cbody,
    cclus,
    yidx,
    S,
    S_ring,
    T_user,
    Gc,
    gs,
    Q,
    V,
    TAU,
    A0,
    F_ext,
    A,
    status,
):
    """:func:`c_aba` over a batch (work arrays allocated once); first failure + 1."""
    w = _aba_work(topo, cclus, Gc.shape[2], S.shape[1])
    for b in range(status.shape[0]):
        status[b] = _c_aba(
            topo,
            placement,
            jparam,
            inertia,
            cbody,
            cclus,
            yidx,
            at(S, b),
            at(S_ring, b),
            at(T_user, b),
            at(Gc, b),
            at(gs, b),
            at(Q, b),
            at(V, b),
            at(TAU, b),
            at(A0, b),
            at(F_ext, b),
            A[b],
            w,
        )
    return first_failure(status)


# ----------------------------------------------------------------------------------------
# C-EFPA (Sec. VIII)
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def c_efpa(
    topo, placement, jparam, inertia, cbody, cclus, yidx, S, S_ring, T_user, Gc, q, ee, omega
):
    r"""Cluster-based extended-force-propagator algorithm for one state: the inverse
    operational-space inertia ``omega`` (6 n_ee, 6 n_ee) of the body frames ``ee``.

    End-effector ``e`` is the frame of body ``ee[e]``; twists and wrenches in body
    coordinates. Zero velocity, torque and gravity (trap 10). Returns a packed status.
    """
    w = _aba_work(topo, cclus, Gc.shape[1], S.shape[0])
    return _c_efpa(
        topo, placement, jparam, inertia, cbody, cclus, yidx, S, S_ring, T_user, Gc, q, ee,
        omega, w, _efpa_work(topo, cclus, Gc.shape[1], ee.shape[0]),
    )  # fmt: skip


@njit(**JIT)
def _efpa_work(topo, cclus, mmax, ne):
    """The propagator arrays of :func:`c_efpa` (besides :func:`_aba_work`'s): the flags
    ``sup`` (cluster k supports end-effector e) and ``needed`` (an output body or an
    end-effector), and one float buffer that :func:`_c_efpa` cuts (:func:`_efpa_shapes`).
    """
    N = topo.shape[0] - 1
    NC = cclus.shape[0] - 1
    lmax = 1
    for k in range(NC):
        lmax = max(lmax, cclus[k + 1, FIRST_BODY] - cclus[k, FIRST_BODY])
    sup, needed = np.zeros((ne, NC), dtype=np.bool_), np.empty(N, dtype=np.bool_)
    return sup, needed, np.empty(total(_efpa_shapes(N, NC, mmax, lmax, ne)))


@njit(**JIT)
def _efpa_shapes(N, NC, mmax, lmax, ne):
    """The shapes of :func:`c_efpa`'s float propagator arrays."""
    return (
        (ne, N, 6, 6),  # chi: ^eχ, block of body i
        (ne, N, 6, 6),  # Oinv: Ω⁻¹_ke, acceleration of body i per unit force at e
        (6, mmax),  # chiS
        (mmax, 6),  # Z
        (lmax, 6, 6),  # chiL
        (ne, NC, 6, mmax),  # CS: ^eχ_k S_k
        (NC, mmax, 6),  # Ubar: Σ U_i of a ONE_OUTPUT cluster
    )


@njit(**FMA)
def _c_efpa(
    topo, placement, jparam, inertia, cbody, cclus, yidx, S, S_ring, T_user, Gc, q, ee, omega,
    w, we,
):  # fmt: skip
    r""":func:`c_efpa` with its work arrays.

    In ground coordinates (as :func:`c_aba`): the cluster transforms are selections of the
    output bodies, so the propagators move to the parent by sums, :math:`{}^e\chi_{\lambda(k)}
    \mathrel{+}= {}^e\chi_k\mathsf L_k` block by block (eq. 62), and :math:`\Omega^{-1}_{ke}`
    starts from :math:`\Omega^{-1}_{\lambda(k)e}` unchanged (eq. 67); the end-effector's
    own propagator is :math:`{}^{e}\mathbf X_0` (its twist in its body coordinates).
    """
    nzb, slots, buf = w
    shapes = _aba_shapes(topo.shape[0] - 1, cclus, Gc.shape[1], S.shape[0], slots.shape[0])
    (E, r, E0, r0, Phi, qd, vel, ck, p_A, Sk, U, IAd, IAo, Dinv, Dk, L, u, Ub, UD, w2, x6,
     I10) = carve(buf, 0, shapes)  # fmt: skip
    sup, needed, bufe = we
    chi, Oinv, chiS, Z, chiL, CS, Ubar = carve(
        bufe,
        0,
        _efpa_shapes(
            topo.shape[0] - 1, cclus.shape[0] - 1, Gc.shape[1], slots.shape[0], ee.shape[0]
        ),
    )
    parent, jtype, iq, iv = topo[:-1, PARENT], topo[:-1, JTYPE], topo[:, IQ], topo[:, IV]
    NC = cclus.shape[0] - 1
    ne = ee.shape[0]
    if not (all_finite(q) and all_finite(Gc)):
        return pack(NON_FINITE_INPUT, -1)
    status = tree_transforms(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:
        return status
    general = False
    for k in range(NC):
        if not cclus[k, SHAPE] & BLOCK_DIAGONAL:
            general = True
    if general:
        IAo[:] = 0.0
        nzb[:] = False
    # ---- kinematics at rest (the transforms and S_k), I^A_k = I_k -------------------------
    _ground_kinematics(
        jtype, parent, iv, inertia, cbody, cclus, yidx, E, r, S, S_ring, Gc, qd, qd, p_A[:0], w,
        False,
    )  # fmt: skip
    # ^eχ and Ω⁻¹ are needed (and nonzero) only at output bodies and end-effectors
    N = parent.shape[0]
    for i in range(N):
        needed[i] = False
    for i in range(N):
        if cbody[i, OUTPUT] >= 0:
            needed[cbody[i, OUTPUT]] = True
    for e in range(ne):
        needed[ee[e]] = True
    x, y6 = x6[0], x6[1]
    for e in range(ne):
        for k in range(NC):
            sup[e, k] = False
        for i in range(N):
            if needed[i]:
                for d in range(6):
                    for g in range(6):
                        chi[e, i, d, g] = 0.0
    for e in range(ne):
        k = cbody[ee[e], CLUSTER]
        while k >= 0:
            sup[e, k] = True
            k = cclus[k, PARENT_CLUSTER]
        i = ee[e]
        for g in range(6):  # ^eχ at its own body: ^eX_0, column by column
            for d in range(6):
                x[d] = 1.0 if d == g else 0.0
            transform_motion(E0[i], r0[i], x, y6)
            for d in range(6):
                chi[e, i, d, g] = y6[d]

    # ---- backward pass: articulated inertias and force propagators -----------------------
    for k in range(NC - 1, -1, -1):
        b0, n = cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY] - cclus[k, FIRST_BODY]
        m = cclus[k + 1, FIRST_Y] - cclus[k, FIRST_Y]
        if cclus[k, SHAPE] == SIMPLE:  # one DoF, one output body, block diagonal: one sweep
            o = cbody[cbody[b0, STACK], OUTPUT]
            dk, scale = 0.0, 0.0
            ub = Ubar[k, 0]
            for g in range(6):
                ub[g] = 0.0
            for s in range(n):  # U_i = I^A_i S_k,i, D_k = S_kᵀ U_k (+ armature), Ū = Σ U_i
                i = cbody[b0 + s, STACK]
                Si, Ui, Ii = Sk[i, 0], U[i, 0], IAd[i]
                scale += trace_about(Ii, r0[i])
                sym_matvec6(Ii, Si, Ui)
                dk += dot6(Si, Ui)
                for j in range(iv[i], iv[i + 1]):
                    g = Gc[j, 0]
                    dk += g * jparam[i, ARMATURE + j - iv[i]] * g
                for g in range(6):
                    ub[g] += Ui[g]
            if not dk > SINGULAR_RTOL * scale:
                return pack(SINGULAR, cbody[b0, STACK])
            dinv = 1.0 / dk
            Dinv[k, 0, 0] = dinv
            for e in range(ne):  # χS = ^eχ_k S_k
                if not sup[e, k]:
                    continue
                for d in range(6):
                    t = 0.0
                    for s in range(n):
                        i = cbody[b0 + s, STACK]
                        if needed[i]:
                            t += dot6(chi[e, i, d], Sk[i, 0])
                    CS[e, k, d, 0] = t
            if o < 0:
                continue
            Io = IAd[o]  # I^A_o += Σ I^A_i − Ū Ūᵀ / D_k
            for s in range(n):
                Ii = IAd[cbody[b0 + s, STACK]]
                for d in range(6):
                    for g in range(d, 6):
                        Io[d, g] += Ii[d, g]
            for d in range(6):
                t = ub[d] * dinv
                for g in range(d, 6):
                    Io[d, g] -= t * ub[g]
            for e in range(ne):  # eq. 62: ^eχ_o += Σ ^eχ_i − (χS / D_k) Ūᵀ
                if not sup[e, k]:
                    continue
                for d in range(6):
                    z = CS[e, k, d, 0] * dinv
                    co = chi[e, o, d]
                    for s in range(n):
                        i = cbody[b0 + s, STACK]
                        if needed[i]:
                            ci = chi[e, i, d]
                            for g in range(6):
                                co[g] += ci[g]
                    for g in range(6):
                        co[g] -= z * ub[g]
            continue
        if cclus[k, SHAPE] & LUMPED == LUMPED and m > 0:  # as above, m > 1
            o = cbody[cbody[b0, STACK], OUTPUT]
            scale = 0.0
            ub = Ubar[k]
            for c in range(m):
                for g in range(6):
                    ub[c, g] = 0.0
                for d in range(c + 1):
                    Dk[c, d] = 0.0
            for s in range(n):  # U_i = I^A_i S_k,i, D_k = S_kᵀ U_k (+ armature), Ū = Σ U_i
                i = cbody[b0 + s, STACK]
                Ii = IAd[i]
                scale += trace_about(Ii, r0[i])
                for c in range(m):
                    Uc = U[i, c]
                    sym_matvec6(Ii, Sk[i, c], Uc)
                    for d in range(c + 1):
                        Dk[c, d] += dot6(Sk[i, d], Uc)
                    for g in range(6):
                        ub[c, g] += Uc[g]
                for j in range(iv[i], iv[i + 1]):
                    ka = jparam[i, ARMATURE + j - iv[i]]
                    for c in range(m):
                        for d in range(c + 1):
                            Dk[c, d] += Gc[j, c] * ka * Gc[j, d]
            for c in range(m):
                for d in range(c):
                    Dk[d, c] = Dk[c, d]
            if not cholesky_inverse(Dk, m, scale, Dinv[k], L):
                return pack(SINGULAR, cbody[b0, STACK])
            for e in range(ne):  # χS = ^eχ_k S_k
                if not sup[e, k]:
                    continue
                for d in range(6):
                    for c in range(m):
                        t = 0.0
                        for s in range(n):
                            i = cbody[b0 + s, STACK]
                            if needed[i]:
                                t += dot6(chi[e, i, d], Sk[i, c])
                        CS[e, k, d, c] = t
            if o < 0:
                continue
            for c in range(m):  # UD = D⁻¹ Ūᵀ
                for g in range(6):
                    t = 0.0
                    for d in range(m):
                        t += Dinv[k, c, d] * ub[d, g]
                    UD[c, g] = t
            Io = IAd[o]  # I^A_o += Σ I^A_i − Ū D_k⁻¹ Ūᵀ
            for s in range(n):
                Ii = IAd[cbody[b0 + s, STACK]]
                for d in range(6):
                    for g in range(d, 6):
                        Io[d, g] += Ii[d, g]
            for d in range(6):
                for g in range(d, 6):
                    t = 0.0
                    for c in range(m):
                        t += UD[c, d] * ub[c, g]
                    Io[d, g] -= t
            for e in range(ne):  # eq. 62: ^eχ_o += Σ ^eχ_i − χS D_k⁻¹ Ūᵀ
                if not sup[e, k]:
                    continue
                for d in range(6):
                    co = chi[e, o, d]
                    for s in range(n):
                        i = cbody[b0 + s, STACK]
                        if needed[i]:
                            ci = chi[e, i, d]
                            for g in range(6):
                                co[g] += ci[g]
                    for c in range(m):
                        z = CS[e, k, d, c]
                        for g in range(6):
                            co[g] -= z * UD[c, g]
            continue
        if m > 0 and not _articulate(
            cbody, cclus, k, Sk, r0, IAd, IAo, nzb, U, Dk, L, Dinv[k], jparam, iv, Gc
        ):
            return pack(SINGULAR, cbody[b0, STACK])
        one = cclus[k, SHAPE] & ONE_OUTPUT
        if one:  # Ū = Σ U_i: the propagator reaches the output body as one block
            for c in range(m):
                for g in range(6):
                    t = 0.0
                    for s in range(n):
                        t += U[cbody[b0 + s, STACK], c, g]
                    Ubar[k, c, g] = t
        for e in range(ne):  # χS = ^eχ_k S_k (final: the children are done; kept for later)
            if not sup[e, k]:
                continue
            for d in range(6):
                for c in range(m):
                    t = 0.0
                    for s in range(n):
                        i = cbody[b0 + s, STACK]
                        if needed[i]:
                            for g in range(6):
                                t += chi[e, i, d, g] * Sk[i, c, g]
                    CS[e, k, d, c] = t
        if cclus[k, PARENT_CLUSTER] < 0:
            continue
        _inertia_to_parent(cbody, cclus, k, m, U, Dinv[k], IAd, IAo, nzb, Ub, UD, slots)
        for e in range(ne):  # eq. 62: ^eχ_λ(k) += ^eχ_k L_k, L_k = 1 − S D⁻¹ Uᵀ
            if not sup[e, k]:
                continue
            for d in range(6):  # Z = (χS D⁻¹)ᵀ
                for c in range(m):
                    t = 0.0
                    for c2 in range(m):
                        t += CS[e, k, d, c2] * Dinv[k, c2, c]
                    Z[c, d] = t
            if one:  # χ_o += Σ χ_i − Z Ūᵀ
                o = cbody[cbody[b0, STACK], OUTPUT]
                for d in range(6):
                    for g in range(6):
                        t = 0.0
                        for s in range(n):
                            i = cbody[b0 + s, STACK]
                            if needed[i]:
                                t += chi[e, i, d, g]
                        for c in range(m):
                            t -= Z[c, d] * Ubar[k, c, g]
                        chi[e, o, d, g] += t
                continue
            for s in range(n):  # χL = χ − (χ S D⁻¹) Uᵀ, onto the output body's block
                i = cbody[b0 + s, STACK]
                o = cbody[i, OUTPUT]
                for d in range(6):
                    for g in range(6):
                        t = chi[e, i, d, g] if needed[i] else 0.0
                        for c in range(m):
                            t -= Z[c, d] * U[i, c, g]
                        chi[e, o, d, g] += t

    # ---- forward pass: Ω⁻¹_ke (eq. 67) -------------------------------------------------------
    for k in range(NC):
        b0, n = cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY] - cclus[k, FIRST_BODY]
        m = cclus[k + 1, FIRST_Y] - cclus[k, FIRST_Y]
        one = cclus[k, SHAPE] & ONE_OUTPUT
        if cclus[k, SHAPE] == SIMPLE:  # Ω⁻¹_ke = Y + S_k D⁻¹ (χS − Ūᵀ Y), Y = Ω⁻¹_oe
            o = cbody[cbody[b0, STACK], OUTPUT]
            dinv, ub = Dinv[k, 0, 0], Ubar[k, 0]
            for e in range(ne):
                if not sup[e, k]:
                    continue
                z = chiS[:, 0]
                for d in range(6):
                    t = CS[e, k, d, 0]
                    if o >= 0:
                        for g in range(6):
                            t -= ub[g] * Oinv[e, o, g, d]
                    z[d] = t * dinv
                for s in range(n):
                    i = cbody[b0 + s, STACK]
                    if not needed[i]:
                        continue
                    Si = Sk[i, 0]
                    for g in range(6):
                        for d in range(6):
                            t = Si[g] * z[d]
                            Oinv[e, i, g, d] = t if o < 0 else t + Oinv[e, o, g, d]
            continue
        if cclus[k, SHAPE] & LUMPED == LUMPED and m > 0:  # as above, m > 1
            o = cbody[cbody[b0, STACK], OUTPUT]
            ub = Ubar[k]
            for e in range(ne):
                if not sup[e, k]:
                    continue
                for c in range(m):  # Z = (χS)ᵀ − Ūᵀ Y
                    for d in range(6):
                        t = CS[e, k, d, c]
                        if o >= 0:
                            for g in range(6):
                                t -= ub[c, g] * Oinv[e, o, g, d]
                        Z[c, d] = t
                for c in range(m):  # D⁻¹ Z
                    for d in range(6):
                        t = 0.0
                        for c2 in range(m):
                            t += Dinv[k, c, c2] * Z[c2, d]
                        chiS[d, c] = t
                for s in range(n):
                    i = cbody[b0 + s, STACK]
                    if not needed[i]:
                        continue
                    for g in range(6):
                        for d in range(6):
                            t = 0.0 if o < 0 else Oinv[e, o, g, d]
                            for c in range(m):
                                t += Sk[i, c, g] * chiS[d, c]
                            Oinv[e, i, g, d] = t
            continue
        for e in range(ne):
            if not sup[e, k]:
                continue
            for s in range(n):  # Y = Ω⁻¹_λ(k)e at the output body (Ω⁻¹_0e = 0)
                i = cbody[b0 + s, STACK]
                o = cbody[i, OUTPUT]
                for g in range(6):
                    for d in range(6):
                        chiL[s, g, d] = 0.0 if o < 0 else Oinv[e, o, g, d]
                if one:  # one output body: one Y
                    break
            for c in range(m):  # Z = (^eχ_k S_k)ᵀ − U_kᵀ Y  (m × 6)
                for d in range(6):
                    t = CS[e, k, d, c]
                    if one:
                        for g in range(6):
                            t -= Ubar[k, c, g] * chiL[0, g, d]
                    else:
                        for s in range(n):
                            i = cbody[b0 + s, STACK]
                            for g in range(6):
                                t -= U[i, c, g] * chiL[s, g, d]
                    Z[c, d] = t
            for c in range(m):  # D⁻¹ Z
                for d in range(6):
                    t = 0.0
                    for c2 in range(m):
                        t += Dinv[k, c, c2] * Z[c2, d]
                    chiS[d, c] = t
            for s in range(n):  # Ω⁻¹_ke = Y + S_k D⁻¹ (S_kᵀ χᵀ − U_kᵀ Y), where needed
                i = cbody[b0 + s, STACK]
                if not needed[i]:
                    continue
                sy = 0 if one else s
                for g in range(6):
                    for d in range(6):
                        t = chiL[sy, g, d]
                        for c in range(m):
                            t += Sk[i, c, g] * chiS[d, c]
                        Oinv[e, i, g, d] = t

    # ---- assembly: Ω_e1e2 = ^e1χ_k Ω⁻¹_ke2 at the deepest cluster k supporting both ----------
    for e1 in range(ne):
        for e2 in range(e1, ne):
            k = cbody[ee[e1], CLUSTER]
            while not sup[e2, k]:
                k = cclus[k, PARENT_CLUSTER]
            for d in range(6):
                for g in range(6):
                    t = 0.0
                    for s in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
                        i = cbody[s, STACK]
                        if needed[i]:  # elsewhere ^e1χ = 0 (and Ω⁻¹ not computed)
                            for h in range(6):
                                t += chi[e1, i, d, h] * Oinv[e2, i, h, g]
                    omega[6 * e1 + d, 6 * e2 + g] = t
                    omega[6 * e2 + g, 6 * e1 + d] = t
    if not all_finite(omega):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**JIT)
def c_efpa_batch(
    topo,
    placement,
    jparam,
    inertia,
    cbody,
    cclus,
    yidx,
    S,
    S_ring,
    T_user,
    Gc,
    Q,
    ee,
    OMEGA,
    status,
):
    """:func:`c_efpa` over a batch (work arrays allocated once); first failure + 1."""
    w = _aba_work(topo, cclus, Gc.shape[2], S.shape[1])
    we = _efpa_work(topo, cclus, Gc.shape[2], ee.shape[0])
    for b in range(status.shape[0]):
        status[b] = _c_efpa(
            topo, placement, jparam, inertia, cbody, cclus, yidx, at(S, b), at(S_ring, b),
            at(T_user, b), at(Gc, b), at(Q, b), ee, OMEGA[b], w, we,
        )  # fmt: skip
    return first_failure(status)
