r"""Dynamics kernels: RNEA, CRBA, ABA and the kinetic energy, one state per call.

Each algorithm is written once, for one state, under the paper's banners and names; its
``*_batch`` driver loops it over a batch (a single call is a batch of one). The arrays of
the compiled model (:mod:`geomech.multibody._kernels.compiled`) come first:

- ``topo`` (N + 1, 5) int: columns ``parent``, ``jtype``, ``iq``, ``iv``, ``iv_end`` (row N
  holds the totals ``nq``, ``nv`` in the offset columns);
- ``placement`` (N, 3, 4), ``jparam`` (N, 43), ``inertia`` (N, 6, 6); ``jparam``'s
  ``ARMATURE`` columns hold each joint's armature :math:`\mathbf k_a` (per speed), which
  RNEA adds as :math:`k_a\dot\nu`, CRBA on the diagonal of :math:`\mathbf H`, ABA to
  :math:`\mathbf D_i = \boldsymbol\Phi_i^\top\mathbf U_i + \mathrm{diag}(\mathbf k_{a,i})`
  and the kinetic energy as :math:`\tfrac12 k_a\nu^2`;
- the per-state joint arrays ``S`` (nv, 6) (rows: motion-subspace columns in body
  coordinates), ``S_ring`` (nv, 6) (their rates) and ``T_user`` (N, 3, 4) (poses of
  user-defined joints, filled by their Python hooks).

References
----------
Seed 001 §2.1 (RNEA, eqs. 5, 7, 12, 13), Alg. 1 (the CRBA lines); Featherstone 2008,
Tables 5.1, 6.2, 7.1.
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
from geomech.multibody._kernels.joints import REVOLUTE, USER
from geomech.multibody._kernels.linalg import (
    SINGULAR_RTOL,
)
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
    inertia_times,
    sym_matvec6,
    trace_about,
    transform_force_transpose,
    transform_motion,
    transform_motion_transpose,
)
from geomech.multibody._kernels.status import (
    NON_FINITE_INPUT,
    NON_FINITE_RESULT,
    NOT_A_VECTOR,
    OK,
    SINGULAR,
    pack,
)
from geomech.multibody._kernels.tables import ARMATURE, IQ, IV, IV_END, JTYPE, PARENT
from geomech.multibody._kernels.tree.kinematics import (
    all_finite,
    finite_matrix,
    finite_vector,
    is_vector,
    joint_velocity,
    tree_transforms,
    tree_transforms_inline,
)
from geomech.multibody._kernels.views import (
    borrow,
    frame,
    frame_large,
    release,
    release_large,
    row,
    workspace,
)

__all__ = [
    "rnea",
    "rnea_batch",
    "rnea_one",
    "rnea_workspace",
    "crba",
    "crba_batch",
    "crba_one",
    "crba_work",
    "crba_workspace",
    "aba",
    "aba_batch",
    "aba_one",
    "aba_workspace",
    "kinetic_energy",
    "kinetic_energy_batch",
]


# ----------------------------------------------------------------------------------------
# RNEA
# ----------------------------------------------------------------------------------------
@njit(**INLINE)
def _rnea_shapes(N):
    """The shapes of :func:`rnea`'s work arrays ``(E, r, vel, acc, f, vJ)``."""
    return (
        (N, 3, 3),  # E, r: ^iX_p(i)
        (N, 3),
        (N, 6),  # vel, acc, f: twists, accelerations, body forces
        (N, 6),
        (N, 6),
        (6,),  # vJ: Φ_i ν_i
    )


@njit(**JIT)
def rnea_workspace(N):
    """The work arrays of :func:`rnea` for ``N`` bodies, from one allocation:
    ``(E, r, vel, acc, f, vJ)``.
    """
    return workspace(_rnea_shapes(N))


@njit(**FMA_INLINE)
def _rnea(topo, placement, jparam, inertia, S, S_ring, T_user, q, v, a, a0, f_ext, tau, work):
    """:func:`rnea` with its work arrays (:func:`rnea_workspace`), inlined into its callers."""
    parent, jtype, iq, iv = topo[:-1, PARENT], topo[:-1, JTYPE], topo[:, IQ], topo[:, IV]
    N = parent.shape[0]
    if not (
        finite_vector(q)
        and finite_vector(v)
        and finite_vector(a)
        and finite_vector(a0)
        and finite_matrix(f_ext)
    ):
        return pack(NON_FINITE_INPUT, -1)
    E, r, vel, acc, f, vJ = work
    status = tree_transforms_inline(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:
        return status

    # ---- forward pass: twists, accelerations, body forces --------------------------------
    for i in range(N):
        p = parent[i]
        joint_velocity(S, iv, i, v, vJ)  # Φ_i ν_i
        if p < 0:  # v_0 = 0, a_0 = [0; −g]
            for c in range(6):  # seed 001 eq. 5: v_i = ^iX_p v_p + Φ_i ν_i
                vel[i, c] = vJ[c]  # (no slice copy: it may allocate a temporary)
            transform_motion(E[i], r[i], a0, acc[i])  # a_i = ^iX_0 a_0 + ...
        else:
            transform_motion(E[i], r[i], vel[p], vel[i])
            for c in range(6):
                vel[i, c] += vJ[c]
            transform_motion(E[i], r[i], acc[p], acc[i])  # seed 001 eq. 7
            cross_motion(vel[i], vJ, acc[i])  # + (v_i ×) Φ_i ν_i  (Φ̇ = (v×)Φ + Φ̊; 0 at the root)
        for k in range(iv[i], iv[i + 1]):  # + Φ_i ν̇_i
            for c in range(6):
                acc[i, c] += S[k, c] * a[k]
        if jtype[i] == USER:  # + Φ̊_i ν_i (Φ̊ = 0 for the built-in joints)
            for k in range(iv[i], iv[i + 1]):
                for c in range(6):
                    acc[i, c] += S_ring[k, c] * v[k]
        body_force(
            inertia[i], vel[i], acc[i], f[i]
        )  # seed 001 eq. 12: f_i = I_i a_i + v_i ×* I_i v_i
        if f_ext.shape[0] > 0:
            for c in range(6):
                f[i, c] -= f_ext[i, c]

    # ---- backward pass: joint forces ------------------------------------------------------
    for i in range(N - 1, -1, -1):
        for k in range(iv[i], iv[i + 1]):  # seed 001 eq. 13: τ_i = Φ_iᵀ f_i (+ k_a ν̇_i)
            s = 0.0
            for c in range(6):
                s += S[k, c] * f[i, c]
            tau[k] = s + jparam[i, ARMATURE + k - iv[i]] * a[k]
        if parent[i] >= 0:  # f_p(i) += ^iX_p(i)ᵀ f_i
            transform_force_transpose(E[i], r[i], f[i], f[parent[i]])
    if not finite_vector(tau):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**FMA)
def rnea(topo, placement, jparam, inertia, S, S_ring, T_user, q, v, a, a0, f_ext, tau):
    r"""Recursive Newton–Euler algorithm for one state (seed 001 §2.1): ``tau`` (nv,).

    ``a0 = [0; −g]`` is the acceleration of the world that emulates gravity; ``f_ext``
    (N, 6) holds external body wrenches, or has no rows for none. Returns a packed status.
    """
    N = topo.shape[0] - 1
    return _rnea(
        topo,
        placement,
        jparam,
        inertia,
        S,
        S_ring,
        T_user,
        q,
        v,
        a,
        a0,
        f_ext,
        tau,
        rnea_workspace(N),
    )


@njit(**FMA_BATCH)
def rnea_batch(
    topo, placement, jparam, inertia, S, S_ring, T_user, Q, V, A, A0, F_ext, TAU, status
):
    """:func:`rnea` over a batch (per-state arrays with one row are shared; work arrays
    made once, :func:`~geomech.multibody._kernels.views.frame`; the rows borrowed,
    :func:`~geomech.multibody._kernels.views.row`; no reference counted); first failure + 1.
    """
    buf, work = frame(_rnea_shapes(topo.shape[0] - 1))
    for b in range(status.shape[0]):
        status[b] = _rnea(
            topo,
            placement,
            jparam,
            inertia,
            row(S, b),
            row(S_ring, b),
            row(T_user, b),
            row(Q, b),
            row(V, b),
            row(A, b),
            row(A0, b),
            row(F_ext, b),
            row(TAU, b),
            work,
        )
    release(buf)
    return first_failure(status)


@njit(**FMA_ENTRY)
def rnea_one(topo, packed, q, v, a, tau):
    """:func:`rnea` for one state without external forces, the model packed
    (``CompiledModel.packed``); ``NOT_A_VECTOR`` unless ``q``, ``v``, ``a`` are contiguous
    vectors of the model's sizes.
    """
    N = topo.shape[0] - 1
    nq, nv = topo[N, IQ], topo[N, IV]
    if not (is_vector(q, nq) and is_vector(v, nv) and is_vector(a, nv)):
        return NOT_A_VECTOR
    placement, jparam, inertia, S, S_ring, T_user, a0 = unpack(topo, packed)
    buf, work = frame(_rnea_shapes(N))  # on the stack (small models)
    status = _rnea(
        topo,
        placement,
        jparam,
        inertia,
        S,
        S_ring,
        T_user,
        q,
        v,
        a,
        a0,
        borrow(tau, 0, ((0, 6),))[0],  # no external forces (an empty writable array, as a batch's)
        tau,
        work,
    )
    release(buf)
    return status


# ----------------------------------------------------------------------------------------
# CRBA
# ----------------------------------------------------------------------------------------
@njit(**INLINE)
def _crba_shapes(N, nv):
    """The shapes of :func:`crba_work`'s work arrays ``(E, r, E0, r0, I_C, Phi, F)``."""
    return (
        (N, 3, 3),  # E, r: ^iX_p(i)
        (N, 3),
        (N, 3, 3),  # E0, r0: ^iX_0
        (N, 3),
        (N, 10),  # I_C: composite inertias, ten parameters
        (nv, 6),  # Phi: Φ columns (rows), ground coordinates
        (6, nv),  # F: the F2 columns of all joints
    )


@njit(**JIT)
def crba_workspace(N, nv):
    """The work arrays of :func:`crba_work` for ``N`` bodies and ``nv`` speeds, from one
    allocation: ``(E, r, E0, r0, I_C, Phi, F)``.
    """
    return workspace(_crba_shapes(N, nv))


@njit(**FMA_INLINE)
def _crba_work(topo, placement, jparam, inertia, S, S_ring, T_user, q, H, work):
    """:func:`crba_work`, inlined into its callers."""
    E, r, E0, r0, I_C, Phi, F = work
    parent, jtype = topo[:-1, PARENT], topo[:-1, JTYPE]
    iq, iv, iv_end = topo[:, IQ], topo[:, IV], topo[:, IV_END]
    N = parent.shape[0]
    if not finite_vector(q):
        return pack(NON_FINITE_INPUT, -1)
    status = tree_transforms_inline(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:
        return status

    # ---- forward pass: Φ_i and I_i in ground coordinates ---------------------------------
    for i in range(N):
        p = parent[i]
        if p < 0:  # (entry by entry: a slice assignment checks shapes and broadcasts, ~0.1 µs)
            for a in range(3):
                E0[i, a, 0], E0[i, a, 1], E0[i, a, 2] = E[i, a, 0], E[i, a, 1], E[i, a, 2]
                r0[i, a] = r[i, a]
        else:
            compose_transforms(E[i], r[i], E0[p], r0[p], E0[i], r0[i])  # ^iX_0 = ^iX_p ^pX_0
        if jtype[i] == REVOLUTE:  # Φ = [a; 0]: ^0X_i Φ = [E0ᵀ a; r0 × E0ᵀ a] (half the products)
            k = iv[i]
            a0, a1, a2 = S[k, 0], S[k, 1], S[k, 2]
            R, t = E0[i], r0[i]
            w0 = R[0, 0] * a0 + R[1, 0] * a1 + R[2, 0] * a2
            w1 = R[0, 1] * a0 + R[1, 1] * a1 + R[2, 1] * a2
            w2 = R[0, 2] * a0 + R[1, 2] * a1 + R[2, 2] * a2
            Phi[k, 0], Phi[k, 1], Phi[k, 2] = w0, w1, w2
            Phi[k, 3] = t[1] * w2 - t[2] * w1
            Phi[k, 4] = t[2] * w0 - t[0] * w2
            Phi[k, 5] = t[0] * w1 - t[1] * w0
        else:
            for k in range(iv[i], iv[i + 1]):
                transform_motion_transpose(E0[i], r0[i], S[k], Phi[k])
        inertia_params(inertia[i], I_C[i])  # l.5: I^C_i = I_i
        inertia_params_transform(E0[i], r0[i], I_C[i], I_C[i])

    # ---- backward pass: composite inertias, and the blocks of H joint by joint -----------
    # (row m of joint i and its mirror, column m, are written once each: from m to the end of
    # the subtree of i the blocks M_ij, after it zeros, the joints of neither its subtree nor
    # its ancestors: no zeroing of H beforehand)
    nv = uint64(iv[N])
    bad = False
    for i in range(N - 1, -1, -1):
        for k in range(iv[i], iv[i + 1]):
            inertia_params_times(I_C[i], Phi[k], F[:, k])  # l.10: F2 = I^C_i Φ_i
        end = uint64(iv_end[i])
        for m in range(iv[i], iv[i + 1]):  # l.13, l.21: M_ij = Φ_iᵀ F2_j for j in subtree(i)
            a0, a1, a2, a3, a4, a5 = Phi[m]
            # (unsigned indices: no negative-index wraparound, so that the loop vectorises)
            for k in range(uint64(m), end):
                M_ij = (
                    a0 * F[0, k]
                    + a1 * F[1, k]
                    + a2 * F[2, k]
                    + a3 * F[3, k]
                    + a4 * F[4, k]
                    + a5 * F[5, k]
                )
                bad |= M_ij - M_ij != 0.0  # NaN or inf
                H[m, k] = M_ij
                H[k, m] = M_ij  # M_ji = M_ijᵀ
            for k in range(end, nv):
                H[m, k] = 0.0
                H[k, m] = 0.0
            H[m, m] += jparam[i, ARMATURE + m - iv[i]]  # + diag(k_a): the armature
        p = parent[i]
        if p >= 0:  # l.24 (guarded): I^C_p(i) += I^C_i, a plain sum in ground coordinates
            for a in range(10):
                I_C[p, a] += I_C[i, a]
    if bad:
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**FMA)
def crba_work(topo, placement, jparam, inertia, S, S_ring, T_user, q, H, work):
    r"""Composite-rigid-body algorithm for one state (seed 001 Alg. 1, its M lines): ``H`` (nv, nv).

    Every quantity is held in ground coordinates (seed 001's footnote 3; Pinocchio's
    choice): :math:`\mathbf M_{ij} = \boldsymbol\Phi_i^\top\mathbf I^C_j\boldsymbol\Phi_j`
    does not depend on the frame, so line 17 (re-expressing F2 in the parent's frame) is the
    identity and line 24 a plain sum; inertias are ten parameters
    (:func:`~geomech.multibody._kernels.spatial.inertia_params`). The walk of lines 16–21 is
    turned around, as in Pinocchio: the bodies are numbered depth-first, so the joints of
    the subtree of i own the contiguous ``v[iv[i]:iv_end[i]]``, and when joint i is
    reached the columns F2_j of all of them are complete; the blocks :math:`\mathbf M_{ij}`
    of joint i are then one contiguous row segment per column of :math:`\boldsymbol\Phi_i`.
    The full symmetric matrix is written. Returns a packed status.
    """
    return _crba_work(topo, placement, jparam, inertia, S, S_ring, T_user, q, H, work)


@njit(**FMA)
def crba(topo, placement, jparam, inertia, S, S_ring, T_user, q, H):
    """:func:`crba_work` with its own work arrays (one state)."""
    N = topo.shape[0] - 1
    return _crba_work(
        topo, placement, jparam, inertia, S, S_ring, T_user, q, H, crba_workspace(N, topo[N, IV])
    )


@njit(**FMA_BATCH)
def crba_batch(topo, placement, jparam, inertia, S, S_ring, T_user, Q, H, status):
    """:func:`crba_work` over a batch (the rows borrowed, nothing counted); first failure + 1."""
    N = topo.shape[0] - 1
    buf, work = frame(_crba_shapes(N, topo[N, IV]))
    for b in range(status.shape[0]):
        status[b] = _crba_work(
            topo,
            placement,
            jparam,
            inertia,
            row(S, b),
            row(S_ring, b),
            row(T_user, b),
            row(Q, b),
            row(H, b),
            work,
        )
    release(buf)
    return first_failure(status)


@njit(**FMA_ENTRY)
def crba_one(topo, packed, q, H):
    """:func:`crba` for one state, the model packed (``CompiledModel.packed``);
    ``NOT_A_VECTOR`` unless ``q`` is a contiguous vector of the model's size.
    """
    N = topo.shape[0] - 1
    if not is_vector(q, topo[N, IQ]):
        return NOT_A_VECTOR
    placement, jparam, inertia, S, S_ring, T_user, _ = unpack(topo, packed)
    buf, work = frame(_crba_shapes(N, topo[N, IV]))  # on the stack (small models)
    status = _crba_work(topo, placement, jparam, inertia, S, S_ring, T_user, q, H, work)
    release(buf)
    return status


# ----------------------------------------------------------------------------------------
# ABA
# ----------------------------------------------------------------------------------------
@njit(**FMA)
def aba(topo, placement, jparam, inertia, S, S_ring, T_user, q, v, tau, a0, f_ext, a):
    r"""Articulated-body algorithm for one state (Featherstone Table 7.1): ``a`` (nv,).

    Every quantity is held in ground coordinates (Featherstone §2.8; Pinocchio's choice, as
    in :func:`crba`), with the ground's axes and, as origin, the point of the ground where
    body 0's origin is (any point fixed in the ground serves; near the bodies, the sums
    below round off less): with :math:`\boldsymbol\Phi_i` and :math:`\mathbf I_i` carried
    to ground once, the articulated inertia handed to the parent needs no congruence,
    :math:`\mathbf I^A_{p(i)} \mathrel{+}= \mathbf I^a_i` is a plain sum, and the roots'
    parent acceleration is ``a0`` itself (a pure linear acceleration: the same at any
    origin). The
    velocity-product term is :math:`\mathbf c_i = \dot{\boldsymbol\Phi}_i\nu_i = (\mathbf v_i
    \times)\boldsymbol\Phi_i\nu_i + {}^0\mathbf X_i\mathring{\boldsymbol\Phi}_i\nu_i` (seed
    001 §1.4, :math:`\mathring{\boldsymbol\Phi}_i` in body coordinates).

    :math:`\mathbf D_i^{-1}` enters through its Cholesky factor :math:`\mathbf D_i =
    \mathbf L_i\mathbf L_i^\top`: with :math:`[\mathbf Z_i\,|\,\mathbf z_i] =
    \mathbf L_i^{-1}[\mathbf U_i^\top\,|\,\mathbf u_i]`, :math:`\mathbf U_i\mathbf D_i^{-1}
    \mathbf U_i^\top = \mathbf Z_i^\top\mathbf Z_i` and :math:`\mathbf U_i\mathbf D_i^{-1}
    \mathbf u_i = \mathbf Z_i^\top\mathbf z_i`. ``D_i`` counts as singular when a pivot is
    at most ``SINGULAR_RTOL`` times the trace of :math:`\mathbf I^A_i` about body i's origin
    (:func:`~.spatial.trace_about`: the same number in any frame). The articulated inertias
    are symmetric and kept as their upper triangles, and :math:`\mathbf I^a_i` is never
    formed: :math:`\mathbf I^a_i\mathbf c_i = \mathbf I^A_i\mathbf c_i - \mathbf Z_i^\top
    (\mathbf Z_i\mathbf c_i)`. Returns a packed status (``SINGULAR`` naming the body).
    """
    N = topo.shape[0] - 1
    return _aba_core(
        topo,
        placement,
        jparam,
        inertia,
        S,
        S_ring,
        T_user,
        q,
        v,
        tau,
        a0,
        f_ext,
        a,
        aba_workspace(N, topo[N, IV]),
    )


@njit(**INLINE)
def _aba_shapes(N, nv):
    """The shapes of :func:`aba`'s work arrays (:func:`aba_workspace`)."""
    return (
        (N, 3, 3),  # E, r: ^iX_p(i)
        (N, 3),
        (N, 3, 3),  # E0, r0: ^iX_0
        (N, 3),
        (N, 6),  # vel, c, p_A: twists, velocity products, bias forces
        (N, 6),
        (N, 6),
        (N, 6, 6),  # I_A: articulated inertias (upper triangles)
        (nv, 6),  # Phi: Φ columns (rows), ground coordinates
        (nv, 7),  # Z: rows [Z_i | z_i]
        (nv, 6),  # L: rows iv_i.. of joint i: L_i
        (6,),  # vJ, h, x: 6-vectors
        (6,),
        (6,),
        (10,),  # I10: an inertia, ten parameters
    )


@njit(**JIT)
def aba_workspace(N, nv):
    """The work arrays of :func:`aba` for ``N`` bodies and ``nv`` speeds, from one allocation:
    ``(E, r, E0, r0, vel, c, p_A, I_A, Phi, Z, L, vJ, h, x, I10)``.
    """
    return workspace(_aba_shapes(N, nv))


@njit(**FMA_INLINE)
def _aba_core(topo, placement, jparam, inertia, S, S_ring, T_user, q, v, tau, a0, f_ext, a, ws):
    """:func:`aba` with its work arrays (:func:`aba_workspace`), inlined into its callers."""
    E, r, E0, r0, vel, c, p_A, I_A, Phi, Z, L, vJ, h, x, I10 = ws
    parent, jtype, iq, iv = topo[:-1, PARENT], topo[:-1, JTYPE], topo[:, IQ], topo[:, IV]
    N = parent.shape[0]
    if not (
        finite_vector(q)
        and finite_vector(v)
        and finite_vector(tau)
        and finite_vector(a0)
        and finite_matrix(f_ext)
    ):
        return pack(NON_FINITE_INPUT, -1)
    status = tree_transforms_inline(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:
        return status

    # ---- forward pass 1: Φ_i, I_i, velocities, velocity products, bias forces (ground) ---
    for i in range(N):
        p = parent[i]
        if p < 0:  # ^iX_0 of a root, the origin at body 0's (see above)
            for m in range(3):  # (entry by entry: a slice copy may allocate a temporary)
                E0[i, m, 0], E0[i, m, 1], E0[i, m, 2] = E[i, m, 0], E[i, m, 1], E[i, m, 2]
                r0[i, m] = r[i, m] - r[0, m]
        else:
            compose_transforms(E[i], r[i], E0[p], r0[p], E0[i], r0[i])  # ^iX_0 = ^iX_p ^pX_0
        inertia_params(inertia[i], I10)  # I^A_i = I_i in ground: ^0X_i^* I_i ^iX_0
        inertia_params_transform(E0[i], r0[i], I10, I10)
        inertia_params_matrix(I10, I_A[i])
        for k in range(iv[i], iv[i + 1]):
            transform_motion_transpose(E0[i], r0[i], S[k], Phi[k])
        joint_velocity(Phi, iv, i, v, vJ)  # Φ_i ν_i
        for m in range(6):  # v_i = v_p(i) + Φ_i ν_i
            vel[i, m] = vJ[m] if p < 0 else vel[p, m] + vJ[m]
        c[i, :] = 0.0  # c_i = (v_i ×) Φ_i ν_i + ^0X_i Φ̊_i ν_i
        cross_motion(vel[i], vJ, c[i])
        if jtype[i] == USER:  # a built-in joint's Φ_i is constant in body coordinates: Φ̊_i = 0
            joint_velocity(S_ring, iv, i, v, x)
            transform_motion_transpose(E0[i], r0[i], x, vJ)
            for m in range(6):
                c[i, m] += vJ[m]
        inertia_params_times(I10, vel[i], h)  # p^A_i = v_i ×* I_i v_i − f^ext_i
        p_A[i, :] = 0.0
        cross_force(vel[i], h, p_A[i])
        if f_ext.shape[0] > 0:  # f^ext_i is given in body coordinates: ^0X_i^* f^ext_i
            force_to_parent(E0[i], r0[i], f_ext[i], x, False)
            for m in range(6):
                p_A[i, m] -= x[m]

    # ---- backward pass: articulated inertias I^A_i and bias forces p^A_i -----------------
    # I^A_i is kept as its upper triangle (symmetric: 21 entries updated, not 36); the
    # speed indices run unsigned (no negative-index wraparound to test on every access)
    for i in range(N - 1, -1, -1):
        o, o_end = uint64(iv[i]), uint64(iv[i + 1])
        d = iv[i + 1] - iv[i]
        I_i, p_i = I_A[i], p_A[i]
        rigid = d == 6  # Φ_i invertible and no armature: I^a_i = 0
        for k in range(d):
            rigid &= jparam[i, ARMATURE + k] == 0.0
        for k in range(o, o_end):
            sym_matvec6(I_i, Phi[k], Z[k])  # U_i = I^A_i Φ_i
            Z[k, 6] = tau[k] - dot6(Phi[k], p_i)  # u_i = τ_i − Φ_iᵀ p^A_i
        scale = SINGULAR_RTOL * trace_about(I_i, r0[i])
        for k in range(o, o_end):  # row k of L_i, then row k of [Z_i | z_i]
            for m in range(o, k + 1):  # D_i = Φ_iᵀ U_i + diag(k_a) = L_i L_iᵀ (Cholesky)
                s = dot6(Z[k], Phi[m])  # (D_i)_km = U_kᵀ Φ_m: row k still holds U_k
                if m == k:  # + the armature (Featherstone §9.6: a rotor's reflected inertia)
                    s += jparam[i, ARMATURE + k - o]
                for n in range(uint64(0), m - o):
                    s -= L[k, n] * L[m, n]
                if m < k:
                    L[k, m - o] = s / L[m, m - o]
                elif s > scale:
                    L[k, k - o] = np.sqrt(s)
                else:
                    return pack(SINGULAR, i)
            for m in range(o, k):  # [Z_i | z_i] = L_i⁻¹ [U_iᵀ | u_i] (forward substitution)
                l = L[k, m - o]
                for e in range(7):
                    Z[k, e] -= l * Z[m, e]
            w = 1.0 / L[k, k - o]
            for e in range(7):
                Z[k, e] *= w
        p = parent[i]
        if p < 0:
            continue
        I_p, p_p = I_A[p], p_A[p]
        # p^a_i = p^A_i + I^a_i c_i + U_i D_i⁻¹ u_i with I^a_i = I^A_i − U_i D_i⁻¹ U_iᵀ
        #       = p^A_i + I^A_i c_i + Z_iᵀ (z_i − Z_i c_i);  p^A_p(i) += p^a_i (ground: a sum)
        if rigid:  # Φ_i invertible, no armature: I^a_i = 0, the joint hands on no inertia
            x[:] = 0.0
        else:
            sym_matvec6(I_i, c[i], x)
        for k in range(o, o_end):
            zk = Z[k, 6] if rigid else Z[k, 6] - dot6(Z[k], c[i])
            for e in range(6):
                x[e] += Z[k, e] * zk
        for e in range(6):
            p_p[e] += p_i[e] + x[e]
        if rigid:
            continue
        for e in range(6):  # I^A_p(i) += I^a_i = I^A_i − Z_iᵀ Z_i (upper triangles)
            for g in range(e, 6):
                s = I_i[e, g]
                for k in range(o, o_end):
                    s -= Z[k, e] * Z[k, g]
                I_p[e, g] += s

    # ---- forward pass 2: accelerations (ground), a_0 = a0 ---------------------------------
    for i in range(N):
        p = parent[i]
        acc = c[i]  # c_i is not read again: a_i takes its place
        for e in range(6):  # a'_i = a_p(i) + c_i
            acc[e] += a0[e] if p < 0 else c[p, e]
        o, o_end = uint64(iv[i]), uint64(iv[i + 1])
        for k in range(o, o_end):  # ν̇_i = D_i⁻¹ (u_i − U_iᵀ a'_i) = L_i⁻ᵀ (z_i − Z_i a'_i)
            a[k] = Z[k, 6] - dot6(Z[k], acc)
        for j in range(iv[i + 1] - 1, iv[i] - 1, -1):  # L_i⁻ᵀ: back substitution, last row first
            k = uint64(j)
            s = a[k]
            for m in range(k + 1, o_end):
                s -= L[m, k - o] * a[m]
            a[k] = s / L[k, k - o]
        for k in range(o, o_end):  # a_i = a'_i + Φ_i ν̇_i
            nu = a[k]
            for e in range(6):
                acc[e] += Phi[k, e] * nu
    if not finite_vector(a):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**FMA)
def _aba(topo, placement, jparam, inertia, S, S_ring, T_user, q, v, tau, a0, f_ext, a, ws):
    """:func:`aba` with its work arrays (:func:`aba_workspace`)."""
    return _aba_core(
        topo, placement, jparam, inertia, S, S_ring, T_user, q, v, tau, a0, f_ext, a, ws
    )


@njit(**FMA_BATCH)
def aba_batch(topo, placement, jparam, inertia, S, S_ring, T_user, Q, V, TAU, A0, F_ext, A, status):
    """:func:`aba` over a batch (work arrays made once, the rows borrowed, nothing counted);
    first failure + 1.
    """
    N = topo.shape[0] - 1
    buf, ws = frame_large(_aba_shapes(N, topo[N, IV]))
    for b in range(status.shape[0]):
        status[b] = _aba_core(
            topo,
            placement,
            jparam,
            inertia,
            row(S, b),
            row(S_ring, b),
            row(T_user, b),
            row(Q, b),
            row(V, b),
            row(TAU, b),
            row(A0, b),
            row(F_ext, b),
            row(A, b),
            ws,
        )
    release_large(buf)
    return first_failure(status)


@njit(**FMA_ENTRY)
def aba_one(topo, packed, q, v, tau, a):
    """:func:`aba` for one state without external forces, the model packed
    (``CompiledModel.packed``); ``NOT_A_VECTOR`` unless ``q``, ``v``, ``tau`` are contiguous
    vectors of the model's sizes.
    """
    N = topo.shape[0] - 1
    nq, nv = topo[N, IQ], topo[N, IV]
    if not (is_vector(q, nq) and is_vector(v, nv) and is_vector(tau, nv)):
        return NOT_A_VECTOR
    placement, jparam, inertia, S, S_ring, T_user, a0 = unpack(topo, packed)
    buf, ws = frame_large(_aba_shapes(N, nv))  # on the stack (small models)
    status = _aba_core(
        topo,
        placement,
        jparam,
        inertia,
        S,
        S_ring,
        T_user,
        q,
        v,
        tau,
        a0,
        borrow(a, 0, ((0, 6),))[0],  # no external forces (an empty writable array, as a batch's)
        a,
        ws,
    )
    release_large(buf)
    return status


# ----------------------------------------------------------------------------------------
# kinetic energy
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def kinetic_energy(topo, placement, jparam, inertia, S, S_ring, T_user, q, v, out):
    r""":math:`T = \tfrac12\sum_i\mathbf v_i^\top\mathbf I_i\mathbf v_i` for one state, in
    ``out[0]``.
    """
    parent, jtype, iq, iv = topo[:-1, PARENT], topo[:-1, JTYPE], topo[:, IQ], topo[:, IV]
    N = parent.shape[0]
    if not (all_finite(q) and all_finite(v)):
        return pack(NON_FINITE_INPUT, -1)
    E, r = np.empty((N, 3, 3)), np.empty((N, 3))
    status = tree_transforms(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:
        return status
    vel, vJ, h = np.empty((N, 6)), np.empty(6), np.empty(6)
    T = 0.0
    for i in range(N):
        joint_velocity(S, iv, i, v, vJ)
        if parent[i] < 0:
            vel[i, :] = vJ
        else:
            transform_motion(E[i], r[i], vel[parent[i]], vel[i])
            for k in range(6):
                vel[i, k] += vJ[k]
        inertia_times(inertia[i], vel[i], h)
        for k in range(6):
            T += vel[i, k] * h[k]
        for k in range(iv[i], iv[i + 1]):  # + k_a ν², the armature's
            T += jparam[i, ARMATURE + k - iv[i]] * v[k] * v[k]
    out[0] = 0.5 * T
    if not np.isfinite(out[0]):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**JIT)
def kinetic_energy_batch(topo, placement, jparam, inertia, S, S_ring, T_user, Q, V, OUT, status):
    """:func:`kinetic_energy` over a batch; first failure + 1."""
    for b in range(status.shape[0]):
        status[b] = kinetic_energy(
            topo,
            placement,
            jparam,
            inertia,
            at(S, b),
            at(S_ring, b),
            at(T_user, b),
            at(Q, b),
            at(V, b),
            OUT[b],
        )
    return first_failure(status)
