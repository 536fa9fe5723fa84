r"""Per-cluster constraint matrices of seed 004 on the compiled-kernel layer: G, g and Ġ.

For each cluster :math:`C_k` with loop joints (and couplings), the kernel evaluates
``updateConstraints`` (seed 004 §2.0) from the spanning tree's kinematics, cluster by
cluster, with no Python per state:

1. **In-cluster kinematics.** With the cluster's output bodies held fixed, the body-frame
   Jacobians over the cluster's own spanning speeds follow the tree recursion
   :math:`\mathbf J_i = {}^i\mathbf X_{\lambda(i)}\mathbf J_{\lambda(i)} + \bar{\mathbf S}_i`
   (in-cluster parents only, seed 004 eq. 32), and the poses
   :math:`{}^i\mathbf X_{\Lambda(i)}` are the products of Alg. 1 l.9–10. A loop's relative
   twist does not depend on the speeds outside the cluster: both loop frames hang from the
   same output body, whose motion cancels.
2. **Velocity constraint** (seed 004 eq. 2 with the loop joints' speeds :math:`\dot q_L`
   kept as auxiliary columns): a loop joint between frames :math:`F_P` (on the predecessor)
   and :math:`F_S` (on the successor) gives six rows

   .. math::
       \boldsymbol\xi = \mathbf v_{F_S} - {}^{F_S}\mathbf X_{F_P}\mathbf v_{F_P}
       = \boldsymbol\Phi_L\dot q_L, \qquad
       K = \big[{}^{F_S}\mathbf X_S\mathbf J_S - {}^{F_S}\mathbf X_{F_P}\,
       {}^{F_P}\mathbf X_P\mathbf J_P,\ \ -\boldsymbol\Phi_L\big],

   with :math:`\boldsymbol\Phi_L` the loop joint's constant motion subspace in its child
   frame (every built-in joint); a coupling gives its constant row
   :math:`r\sum_{\rm pred}\dot q - \sum_{\rm succ}\dot q`.
3. **Explicit form** (seed 004 §1.2 [inferred], eq. 3): on the independent (Y) and
   dependent (D, loop joints' speeds included) columns,

   .. math::
       G_Y = \mathbf 1,\quad K_D G_D = -K_Y,\qquad
       \dot G_Y = 0,\quad K_D\dot G_D = -\dot K\hat G,\qquad g = \dot G\,\dot y,

   by least squares (Householder QR of :math:`K_D`, which has full column rank by the
   choice of the dependent joints; the redundant rows of planar loops are consistent).
4. **Rate of the constraint.** :math:`\dot K` follows from the rates of the Jacobians,
   :math:`\dot{\mathbf J}_i = {}^i\mathbf X_{\lambda(i)}\dot{\mathbf J}_{\lambda(i)} -
   \mathbf v_{J,i}\times({}^i\mathbf X_{\lambda(i)}\mathbf J_{\lambda(i)})` (from
   :math:`\tfrac{d}{dt}{}^i\mathbf X_{\lambda(i)} = -(\mathbf S_i\dot q_i)\times
   {}^i\mathbf X_{\lambda(i)}`, seed 004 §2.0), and of the loop transform,
   :math:`\tfrac{d}{dt}{}^{F_S}\mathbf X_{F_P} = \mathbf X(\mathbf v_{F_P}\times) -
   (\mathbf v_{F_S}\times)\mathbf X` (seed 000 §VI-B); :math:`\dot{\boldsymbol\Phi}_L = 0`.

The same pass returns the largest constraint residual of the state: a loop joint's
relative pose :math:`M = {}^{F_P}T_{F_S}` must be a pose of the joint, :math:`M =
T_J(q_L)`, with :math:`q_L` read off :math:`M` in closed form (revolute, prismatic, helical,
spherical and fixed loop joints) and the residual the largest entry of :math:`T_J(q_L)^{-1}M
- \mathbf 1`; a coupling's residual is :math:`r\sum q_{\rm pred} - \sum q_{\rm succ}`. To
first order these are the entries of the logarithm that
:meth:`ClosedMultibodyModel.constraint_residual` reports; the Python wrapper accepts a
state when the residual is well inside the tolerance and asks the model otherwise.

Clusters with user-defined implicit constraints (Python callables), user-defined joints or
loop joints without a closed form keep the two-stage path: the Python constraint objects
fill their rows of the per-state arrays (:mod:`~geomech.multibody._kernels.cluster.compiled`).

References
----------
Seed 004 eqs. 2–3, §1.2 [inferred] (G, g from the implicit form), §2.0 (Alg. 1 l.1–19,
``updateConstraints`` per cluster), §6 traps 4 and 8; seed 000 §VI-B (rate of a relative
transform).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from geomech.multibody._kernels.cluster.tables import (
    CLUSTER,
    CP_END,
    CP_FIRST,
    CP_ROW,
    CPE_Q,
    CPE_SPEED,
    END_COUPLING,
    END_LOOP,
    FIRST_BODY,
    FIRST_COUPLING,
    FIRST_LOOP,
    FIRST_Y,
    FP_E,
    FP_R,
    FS_E,
    FS_R,
    KCOL_OFFSET,
    KERNEL,
    LOOP_AUX,
    LOOP_AXIS,
    LOOP_JTYPE,
    LOOP_NV,
    LOOP_PHI,
    LOOP_PITCH,
    LOOP_PRED,
    LOOP_ROW,
    LOOP_SUCC,
    MODE,
    N_AUX,
    N_DEP,
    N_ROWS,
    N_SPAN,
    OUTPUT,
    SPAN_OFFSET,
    STACK,
)
from geomech.multibody._kernels.jit import JIT, at
from geomech.multibody._kernels.joints import HELICAL, PRISMATIC, REVOLUTE, SPHERICAL
from geomech.multibody._kernels.spatial import cross_motion, transform_motion
from geomech.multibody._kernels.status import OK, SINGULAR, pack
from geomech.multibody._kernels.tables import IQ, IV, JTYPE, PARENT
from geomech.multibody._kernels.tree.kinematics import all_finite, tree_transforms

__all__ = [
    "loop_joint_fit",
    "householder_qr",
    "qr_solve",
    "make_work",
    "cluster_constraints",
    "cluster_constraints_batch",
]

_SINGULAR_RTOL = 1e-10


# ----------------------------------------------------------------------------------------
# small dense least squares: Householder QR (LAPACK's dgeqr2 / dormqr, unblocked)
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def householder_qr(A, m, n, tau):
    r"""Householder QR of ``A[:m, :n]`` in place (:math:`m \ge n`): ``R`` on and above the
    diagonal, the reflectors :math:`H_j = \mathbf 1 - \tau_j v_jv_j^\top` (:math:`v_j[j] = 1`)
    below it. Returns False when a diagonal entry of ``R`` is below ``1e-10`` times the
    largest column norm (``A`` rank deficient).
    """
    big = 0.0
    for j in range(n):
        s = 0.0
        for i in range(m):
            s += A[i, j] * A[i, j]
        big = max(big, np.sqrt(s))
    for j in range(n):
        s = 0.0
        for i in range(j + 1, m):
            s += A[i, j] * A[i, j]
        alpha = A[j, j]
        norm = np.sqrt(alpha * alpha + s)
        if not norm > _SINGULAR_RTOL * big:
            return False
        beta = -norm if alpha >= 0.0 else norm
        tau[j] = (beta - alpha) / beta
        scale = 1.0 / (alpha - beta)
        for i in range(j + 1, m):
            A[i, j] *= scale
        A[j, j] = beta
        for c in range(j + 1, n):  # apply H_j to the remaining columns
            x = A[j, c]
            for i in range(j + 1, m):
                x += A[i, j] * A[i, c]
            x *= tau[j]
            A[j, c] -= x
            for i in range(j + 1, m):
                A[i, c] -= x * A[i, j]
    return True


@njit(**JIT)
def qr_solve(A, m, n, tau, B, nb, X):
    r"""Least-squares solution ``X[:n, :nb]`` of :math:`A X = B` from :func:`householder_qr`:
    :math:`X = R^{-1}(Q^\top B)_{1..n}` (``B[:m, :nb]`` is overwritten by :math:`Q^\top B`).
    """
    for j in range(n):
        for c in range(nb):
            x = B[j, c]
            for i in range(j + 1, m):
                x += A[i, j] * B[i, c]
            x *= tau[j]
            B[j, c] -= x
            for i in range(j + 1, m):
                B[i, c] -= x * A[i, j]
    for c in range(nb):
        for j in range(n - 1, -1, -1):
            x = B[j, c]
            for i in range(j + 1, n):
                x -= A[j, i] * X[i, c]
            X[j, c] = x / A[j, j]


# ----------------------------------------------------------------------------------------
# helpers on poses and motion vectors
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def _compose(E1, r1, E2, r2, E, r):
    r"""``(E, r)`` of :math:`\mathbf X(E_1, r_1)\,\mathbf X(E_2, r_2)`."""
    for a in range(3):
        r[a] = r2[a] + E2[0, a] * r1[0] + E2[1, a] * r1[1] + E2[2, a] * r1[2]
        for b in range(3):
            E[a, b] = E1[a, 0] * E2[0, b] + E1[a, 1] * E2[1, b] + E1[a, 2] * E2[2, b]


@njit(**JIT)
def _frame_pose(inside, Eo, ro, Eloc, rloc, R, p):
    r"""Pose ``(R, p)`` in the output body's frame of a loop frame on a body with
    :math:`{}^i\mathbf X_{\Lambda} = (E_o, r_o)` (identity when the body is outside the
    cluster: the output body itself or the base); :math:`{}^F\mathbf X_i = (E_{loc}, r_{loc})`.
    """
    for a in range(3):
        for b in range(3):
            if inside:  # R_i = E_oᵀ, R_F = R_i E_locᵀ
                R[a, b] = Eo[0, a] * Eloc[b, 0] + Eo[1, a] * Eloc[b, 1] + Eo[2, a] * Eloc[b, 2]
            else:
                R[a, b] = Eloc[b, a]
        if inside:  # p_F = r_o + R_i r_loc
            p[a] = ro[a] + Eo[0, a] * rloc[0] + Eo[1, a] * rloc[1] + Eo[2, a] * rloc[2]
        else:
            p[a] = rloc[a]


@njit(**JIT)
def _axis_angle(R, ax):
    r"""Angle of the rotation about the unit axis ``ax`` closest to ``R``:
    :math:`\sin\theta = \mathbf a\cdot\mathrm{vee}(\tfrac12(R - R^\top))`,
    :math:`\cos\theta = \tfrac12(\mathrm{tr}R - \mathbf a^\top R\mathbf a)`.
    """
    s = 0.5 * (
        ax[0] * (R[2, 1] - R[1, 2]) + ax[1] * (R[0, 2] - R[2, 0]) + ax[2] * (R[1, 0] - R[0, 1])
    )
    aRa = 0.0
    for a in range(3):
        for b in range(3):
            aRa += ax[a] * R[a, b] * ax[b]
    c = 0.5 * (R[0, 0] + R[1, 1] + R[2, 2] - aRa)
    return np.arctan2(s, c)


@njit(**JIT)
def loop_joint_fit(code, ax, pitch, EX, pM, W):
    r"""The loop joint's own coordinate :math:`q_L` read off :math:`M = (R_M, p_M)`,
    :math:`R_M = E_X^\top`, in closed form: writes :math:`W = R_J(q_L)^\top` (3, 3) and returns
    the joint's translation along its axis.

    Revolute and helical: the angle about the axis closest to :math:`R_M`
    (:func:`_axis_angle`); spherical: :math:`R_J = R_M`; prismatic: no rotation, the shift
    :math:`\mathbf a\cdot p_M`; helical: the shift ``pitch`` :math:`\theta`. Then
    :math:`T_J(q_L)^{-1}M = (W R_M, W(p_M - \text{shift}\,\mathbf a))`.
    """
    theta = 0.0
    if code == REVOLUTE or code == HELICAL:
        theta = _axis_angle(EX.T, ax)
    if code == SPHERICAL:  # R_J = R_M: W = R_Mᵀ = E_X
        for a in range(3):
            for b in range(3):
                W[a, b] = EX[a, b]
    else:  # W = R_J(θ)ᵀ = 1 − sin θ [a]× + (1 − cos θ)[a]×² (Rodrigues at −θ, |a| = 1)
        s, k = math.sin(-theta), 1.0 - math.cos(theta)
        for a in range(3):
            for b in range(3):
                K2 = ax[a] * ax[b] - (1.0 if a == b else 0.0)  # [a]×² = a aᵀ − 1
                Kab = 0.0
                if a != b:  # [a]×[a, b] = −ε_abc a_c
                    sign = 1.0 if (a + 1) % 3 == b else -1.0
                    Kab = -sign * ax[3 - a - b]
                W[a, b] = (1.0 if a == b else 0.0) + s * Kab + k * K2
    if code == PRISMATIC:
        return ax[0] * pM[0] + ax[1] * pM[1] + ax[2] * pM[2]
    if code == HELICAL:
        return pitch * theta
    return 0.0


@njit(**JIT)
def _loop_residual(code, ax, pitch, EX, pM, W):
    r"""Largest entry of :math:`T_J(q_L)^{-1}M - \mathbf 1` with :math:`q_L` read off
    :math:`M = (R_M, p_M)`, :math:`R_M = E_X^\top` (:func:`loop_joint_fit`); ``W`` (3, 3) is
    work.
    """
    shift = loop_joint_fit(code, ax, pitch, EX, pM, W)
    res = 0.0
    for a in range(3):
        t = 0.0
        for b in range(3):
            t += W[a, b] * (pM[b] - shift * ax[b])
            x = 0.0
            for c in range(3):
                x += W[a, c] * EX[b, c]  # (W R_M)[a, b]
            res = max(res, abs(x - (1.0 if a == b else 0.0)))
        res = max(res, abs(t))
    return res


@njit(**JIT)
def _loop_transform(pin, sin_, Eo, ro, pred, succ, f, Rp, pp, Rs, ps, Xm, rX):
    r""":math:`{}^{F_S}\mathbf X_{F_P} = (E_X, r_X)` of a loop: :math:`E_X = R_M^\top`,
    :math:`r_X = p_M` with :math:`M = T_{F_P}^{-1}T_{F_S}` (poses in the output body's frame).
    """
    Ep, rp = f[FP_E : FP_E + 9].reshape((3, 3)), f[FP_R : FP_R + 3]
    Es, rs = f[FS_E : FS_E + 9].reshape((3, 3)), f[FS_R : FS_R + 3]
    _frame_pose(pin, Eo[max(pred, 0)], ro[max(pred, 0)], Ep, rp, Rp, pp)
    _frame_pose(sin_, Eo[max(succ, 0)], ro[max(succ, 0)], Es, rs, Rs, ps)
    for a in range(3):
        x = 0.0
        for b in range(3):
            x += Rp[b, a] * (ps[b] - pp[b])
            y = 0.0
            for c in range(3):
                y += Rp[c, a] * Rs[c, b]
            Xm[b, a] = y
        rX[a] = x


@njit(**JIT)
def make_work(N, nc, na, nr, nD, m):
    """Work arrays of :func:`cluster_constraints` for at most ``nc`` spanning and ``na``
    auxiliary columns, ``nr`` rows, ``nD`` dependent and ``m`` independent columns.
    """
    nc, na, nr, nD, m = max(nc, 1), max(na, 1), max(nr, 1), max(nD, 1), max(m, 1)
    return (
        np.empty((N, 3, 3)),
        np.empty((N, 3)),
        np.empty((N, 3, 3)),
        np.empty((N, 3)),
        np.zeros((N, nc, 6)),
        np.zeros((N, nc, 6)),
        np.empty((nr, nc + na)),
        np.empty((nr, nD)),
        np.empty(nD),
        np.empty((nr, m)),
        np.empty((nD, m)),
        np.empty((nc + na, m)),
        np.empty(nc),
        np.empty((3, 3)),
        np.empty((3, 3)),
        np.empty(3),
        np.empty((3, 3)),
        np.empty(3),
        np.empty((3, 3)),
        np.empty(3),
        np.empty(6),
        np.empty(6),
        np.empty(6),
        np.empty(6),
        np.empty(6),
        np.empty(6),
    )


# ----------------------------------------------------------------------------------------
# one state
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def cluster_constraints(
    topo,
    placement,
    jparam,
    T_user,
    S,
    cbody,
    cclus,
    yidx,
    kc,
    kcol,
    span,
    loc,
    lpi,
    lpf,
    cpi,
    cpe,
    cpc,
    G0,
    q,
    v,
    Gc,
    gs,
    Gdc,
    work,
):
    r"""``Gc``, ``gs`` and ``Gdc`` (:math:`\dot G` in the layout of ``Gc``) of one state;
    returns ``(status, residual)`` (residual ``inf`` when the state is not certified: non-finite
    input or a joint configuration the transforms refuse).

    The tables ``kc`` (per cluster), ``lpi``, ``lpf`` (per loop joint), ``cpi``, ``cpe``
    (per coupling) and their columns are listed in
    :mod:`~geomech.multibody._kernels.cluster.tables`; ``kcol`` holds, from
    ``kc[k, KCOL_OFFSET]`` on, the :math:`m` independent then the :math:`n_D` dependent
    local columns of cluster ``k``, ``span`` from ``kc[k, SPAN_OFFSET]`` on the spanning
    speed of each local column, ``loc`` (n_s) the local column of each spanning speed and
    ``cpc`` the couplings' coefficients. Clusters not in ``KERNEL`` mode keep the rows of
    ``G0`` and :math:`g = \dot G = 0`. Status ``SINGULAR`` (first body of the
    cluster) when some :math:`K_D` is rank deficient; a non-finite ``q`` or ``v`` returns
    ``G0`` and residual 0 (the caller's kernel reports it).
    """
    (
        E,
        r,
        Eo,
        ro,
        Jc,
        Jd,
        K,
        AD,
        tau,
        B,
        X,
        Gk,
        w,
        W,
        Rp,
        pp,
        Rs,
        ps,
        Xm,
        rX,
        m6,
        n6,
        vFP,
        vFS,
        Kd,
        Xv,
    ) = work
    parent, jtype, iq, iv = topo[:-1, PARENT], topo[:-1, JTYPE], topo[:, IQ], topo[:, IV]
    Gc[:, :] = G0
    gs[:] = 0.0
    Gdc[:, :] = 0.0
    if not (all_finite(q) and all_finite(v)):
        return OK, np.inf  # not certified closed: the caller's checks name the input
    res = 0.0
    for c in range(cpi.shape[0]):  # couplings: r Σ q_pred − Σ q_succ
        x = 0.0
        for e in range(cpi[c, CP_FIRST], cpi[c, CP_END]):
            x += cpc[e] * q[cpe[e, CPE_Q]]
        res = max(res, abs(x))
    NC = cclus.shape[0] - 1
    anykernel = False
    for k in range(NC):
        if kc[k, MODE] == KERNEL:
            anykernel = True
    if not anykernel:
        return OK, res
    status = tree_transforms(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:  # (a quaternion off the unit sphere): not certified closed, the
        return OK, np.inf  # caller's checks report it
    for k in range(NC):
        if kc[k, MODE] != KERNEL:
            continue
        nc, na, nr, nD = kc[k, N_SPAN], kc[k, N_AUX], kc[k, N_ROWS], kc[k, N_DEP]
        ko, so = kc[k, KCOL_OFFSET], kc[k, SPAN_OFFSET]
        l0, l1 = kc[k, FIRST_LOOP], kc[k, END_LOOP]
        y0, m = cclus[k, FIRST_Y], cclus[k + 1, FIRST_Y] - cclus[k, FIRST_Y]
        # ---- 1. in-cluster poses ^iX_Λ(i) (Alg. 1 l.9–10) and Jacobians over the cluster's
        #         speeds, J_i = ^iX_λ(i) J_λ(i) + S̄_i (eq. 32, the output bodies held fixed)
        for t in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
            i = cbody[t, STACK]
            p = parent[i]
            if p != cbody[i, OUTPUT]:
                _compose(E[i], r[i], Eo[p], ro[p], Eo[i], ro[i])
                for c in range(nc):
                    transform_motion(E[i], r[i], Jc[p, c], Jc[i, c])
            else:
                Eo[i, :, :] = E[i]
                ro[i, :] = r[i]
                Jc[i, :nc, :] = 0.0
            for j in range(iv[i], iv[i + 1]):
                for e in range(6):
                    Jc[i, loc[j], e] += S[j, e]
        # ---- 2. K = [^{FS}X_S J_S − ^{FS}X_{FP} ^{FP}X_P J_P, −Φ_L] (eq. 2), residuals ----
        K[:nr, : nc + na] = 0.0
        for lp in range(l0, l1):
            pred, succ, code = lpi[lp, LOOP_PRED], lpi[lp, LOOP_SUCC], lpi[lp, LOOP_JTYPE]
            row0, a0, nva = lpi[lp, LOOP_ROW], lpi[lp, LOOP_AUX], lpi[lp, LOOP_NV]
            f = lpf[lp]
            Ep, rp = f[FP_E : FP_E + 9].reshape((3, 3)), f[FP_R : FP_R + 3]
            Es, rs = f[FS_E : FS_E + 9].reshape((3, 3)), f[FS_R : FS_R + 3]
            pin = pred >= 0 and cbody[pred, CLUSTER] == k
            sin_ = succ >= 0 and cbody[succ, CLUSTER] == k
            _loop_transform(pin, sin_, Eo, ro, pred, succ, f, Rp, pp, Rs, ps, Xm, rX)
            ax = f[LOOP_AXIS : LOOP_AXIS + 3]
            res = max(res, _loop_residual(code, ax, f[LOOP_PITCH], Xm, rX, W))
            for c in range(nc):
                if sin_:
                    transform_motion(Es, rs, Jc[succ, c], m6)
                else:
                    m6[:] = 0.0
                if pin:
                    transform_motion(Ep, rp, Jc[pred, c], n6)
                    transform_motion(Xm, rX, n6, Xv)
                    for e in range(6):
                        m6[e] -= Xv[e]
                for e in range(6):
                    K[row0 + e, c] = m6[e]
            for d in range(nva):
                for e in range(6):
                    K[row0 + e, nc + a0 + d] = -f[LOOP_PHI + 6 * e + d]
        # couplings of the cluster (stored cluster by cluster): constant rows
        for cp in range(kc[k, FIRST_COUPLING], kc[k, END_COUPLING]):
            for e in range(cpi[cp, CP_FIRST], cpi[cp, CP_END]):
                K[cpi[cp, CP_ROW], loc[cpe[e, CPE_SPEED]]] += cpc[e]
        # ---- 3. G_Y = 1, G_D = −K_D⁺ K_Y (seed 004 §1.2), Householder QR of K_D ----
        for t in range(nD):
            for i in range(nr):
                AD[i, t] = K[i, kcol[ko + m + t]]
        for c in range(m):
            for i in range(nr):
                B[i, c] = -K[i, kcol[ko + c]]
        if not householder_qr(AD, nr, nD, tau):
            return pack(SINGULAR, cbody[cclus[k, FIRST_BODY], STACK]), res
        qr_solve(AD, nr, nD, tau, B, m, X)
        Gk[: nc + na, :m] = 0.0
        for c in range(m):
            Gk[kcol[ko + c], c] = 1.0
        for t in range(nD):
            for c in range(m):
                Gk[kcol[ko + m + t], c] = X[t, c]
        for t in range(nc):
            x = 0.0
            for c in range(m):
                Gc[span[so + t], c] = Gk[t, c]
                x += Gk[t, c] * v[yidx[y0 + c]]
            w[t] = x  # q̇_𝒥k = G_k ẏ_k
        # ---- 4. J̇_i = ^iX_λ J̇_λ − v_J,i × (^iX_λ J_λ) (d/dt ^iX_λ = −(S_i q̇_i)× ^iX_λ) ----
        for t in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
            i = cbody[t, STACK]
            p = parent[i]
            n6[:] = 0.0  # v_J,i = S_i q̇_i
            for j in range(iv[i], iv[i + 1]):
                for e in range(6):
                    n6[e] += S[j, e] * w[loc[j]]
            if p != cbody[i, OUTPUT]:
                for c in range(nc):
                    transform_motion(E[i], r[i], Jd[p, c], Jd[i, c])
                    transform_motion(E[i], r[i], Jc[p, c], m6)
                    for e in range(6):
                        m6[e] = -m6[e]
                    cross_motion(n6, m6, Jd[i, c])
            else:
                Jd[i, :nc, :] = 0.0
        # ---- 5. K̇ (Φ̇_L = 0, couplings constant), K_D Ġ_D = −K̇ Ĝ, g = Ġ ẏ (eq. 3) ----
        B[:nr, :m] = 0.0
        for lp in range(l0, l1):
            pred, succ, row0 = lpi[lp, LOOP_PRED], lpi[lp, LOOP_SUCC], lpi[lp, LOOP_ROW]
            f = lpf[lp]
            Ep, rp = f[FP_E : FP_E + 9].reshape((3, 3)), f[FP_R : FP_R + 3]
            Es, rs = f[FS_E : FS_E + 9].reshape((3, 3)), f[FS_R : FS_R + 3]
            pin = pred >= 0 and cbody[pred, CLUSTER] == k
            sin_ = succ >= 0 and cbody[succ, CLUSTER] == k
            _loop_transform(pin, sin_, Eo, ro, pred, succ, f, Rp, pp, Rs, ps, Xm, rX)
            vFP[:] = 0.0  # v_FP = ^{FP}X_P J_P q̇, v_FS = ^{FS}X_S J_S q̇ (in-cluster)
            vFS[:] = 0.0
            for c in range(nc):
                if pin:
                    transform_motion(Ep, rp, Jc[pred, c], m6)
                    for e in range(6):
                        vFP[e] += m6[e] * w[c]
                if sin_:
                    transform_motion(Es, rs, Jc[succ, c], m6)
                    for e in range(6):
                        vFS[e] += m6[e] * w[c]
            for c in range(nc):
                # K̇ = ^{FS}X_S J̇_S − X ^{FP}X_P J̇_P − Ẋ J_FP,
                # Ẋ J_FP = X (v_FP × J_FP) − v_FS × (X J_FP) (seed 000 §VI-B)
                if sin_:
                    transform_motion(Es, rs, Jd[succ, c], Kd)
                else:
                    Kd[:] = 0.0
                if pin:
                    transform_motion(Ep, rp, Jd[pred, c], m6)
                    transform_motion(Xm, rX, m6, Xv)
                    for e in range(6):
                        Kd[e] -= Xv[e]
                    transform_motion(Ep, rp, Jc[pred, c], m6)
                    n6[:] = 0.0
                    cross_motion(vFP, m6, n6)
                    transform_motion(Xm, rX, n6, Xv)
                    for e in range(6):
                        Kd[e] -= Xv[e]
                    transform_motion(Xm, rX, m6, Xv)
                    cross_motion(vFS, Xv, Kd)
                for cc in range(m):
                    for e in range(6):
                        B[row0 + e, cc] -= Kd[e] * Gk[c, cc]
        qr_solve(AD, nr, nD, tau, B, m, X)
        for t in range(nD):
            col = kcol[ko + m + t]
            if col < nc:
                for c in range(m):
                    Gdc[span[so + col], c] = X[t, c]
        for t in range(nc):
            x = 0.0
            for c in range(m):
                x += Gdc[span[so + t], c] * v[yidx[y0 + c]]
            gs[span[so + t]] = x
    return OK, res


@njit(**JIT)
def cluster_constraints_batch(
    topo,
    placement,
    jparam,
    T_user,
    S,
    cbody,
    cclus,
    yidx,
    kc,
    kcol,
    span,
    loc,
    lpi,
    lpf,
    cpi,
    cpe,
    cpc,
    G0,
    sizes,
    Q,
    V,
    Gc,
    gs,
    Gdc,
    res,
    status,
):
    """:func:`cluster_constraints` over a batch (work arrays allocated once); ``sizes`` holds
    the work sizes ``(nc, na, nr, nD, m)``.
    """
    nc, na, nr, nD, m = sizes
    work = make_work(cbody.shape[0], nc, na, nr, nD, m)
    for b in range(status.shape[0]):
        st, rr = cluster_constraints(
            topo,
            placement,
            jparam,
            at(T_user, b),
            at(S, b),
            cbody,
            cclus,
            yidx,
            kc,
            kcol,
            span,
            loc,
            lpi,
            lpf,
            cpi,
            cpe,
            cpc,
            G0,
            at(Q, b),
            at(V, b),
            Gc[b],
            gs[b],
            Gdc[b],
            work,
        )
        status[b] = st
        res[b] = rr
    return 0


@njit(**JIT)
def coupling_residuals_batch(Q, cq, angular, tol):
    r"""Whether every state of ``Q`` (B, nq) satisfies the couplings within ``tol``.

    The residuals :math:`r = q\,C` (``cq`` (nq, n_c), one column per coupling), an angle
    (``angular[c]``) wrapped to :math:`[-\pi, \pi)`, each :math:`|r_c| \le` ``tol``; a NaN
    fails. The compiled form of :meth:`ClusterLayout.check_static`'s test (seven numpy calls,
    about 7 µs for one state, where this takes a fraction of a microsecond).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody._kernels.cluster.constraints import coupling_residuals_batch
    >>> cq = np.array([[6.0], [-1.0]])  # q_rotor = 6 q_link, an angle
    >>> f = coupling_residuals_batch.py_func
    >>> f(np.array([[0.5, 3.0]]), cq, np.array([True]), 1e-9)
    True
    >>> f(np.array([[0.5, 3.0 - 2 * np.pi]]), cq, np.array([True]), 1e-9)  # a turn later
    True
    >>> f(np.array([[0.5, 3.1], [np.nan, 0.0]]), cq, np.array([True]), 1e-9)
    False
    """
    for b in range(Q.shape[0]):
        for c in range(cq.shape[1]):
            r = 0.0
            for j in range(cq.shape[0]):
                r += Q[b, j] * cq[j, c]
            if angular[c]:
                r = (r + math.pi) % (2.0 * math.pi) - math.pi
            if not abs(r) <= tol:
                return False
    return True
