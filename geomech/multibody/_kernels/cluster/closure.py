r"""The closure of a closed model on the compiled-kernel layer: projection and motion on φ = 0.

Per cluster :math:`C_k` (its loop joints and couplings; seed 004 §1.2), with the cluster's
independent coordinates held, Gauss–Newton on the dependent ones:

1. **Residual.** A loop joint between frames :math:`F_P` and :math:`F_S` contributes six
   rows, the error pose :math:`\mathcal E = T_J(q_L)^{-1}M` of the relative pose
   :math:`M = {}^{F_P}T_{F_S}`, with the loop joint's coordinates :math:`q_L` read off
   :math:`M` in closed form (:func:`~.constraints.loop_joint_fit`: the rotation angle
   about the axis, the slide along it, the whole rotation of a spherical joint):

   .. math::
       r_L = \big[\mathrm{vee}\big(\tfrac12(R_{\mathcal E} - R_{\mathcal E}^\top)\big);\
       p_{\mathcal E}\big],

   which to first order is :math:`\log\mathcal E` (the residual the model reports). A
   coupling contributes :math:`r\sum q_{\rm pred} - \sum q_{\rm succ}`, reduced modulo
   :math:`2\pi` when it couples angles.
2. **Jacobian.** The body velocity of :math:`\mathcal E` (in :math:`F_S`) is
   :math:`\boldsymbol\xi - \mathrm{Ad}_{\mathcal E^{-1}}\boldsymbol\Phi_L\dot q_L` with the
   relative twist :math:`\boldsymbol\xi = \mathbf v_{F_S} - {}^{F_S}\mathbf X_{F_P}
   \mathbf v_{F_P}`, so at :math:`\mathcal E = \mathbf 1` the residual's Jacobian is the
   velocity constraint :math:`K = [K_s,\ -\boldsymbol\Phi_L]` of seed 004 eq. 2, assembled
   as :func:`~.constraints.cluster_constraints` does (in-cluster kinematics, the output
   bodies held fixed). Exact at the solution: the iteration converges quadratically.
3. **Step.** :math:`K_D\,\delta = -r` by least squares (Householder QR of :math:`K_D`, the
   dependent spanning and the loop joints' columns; full column rank at a regular
   configuration, else status ``SINGULAR``), the dependent joints moved along their own flow
   :math:`q_D \leftarrow q_D \oplus \delta_D` (the loop joints' part of :math:`\delta` is
   dropped: :math:`q_L` is fitted again, a variable projection). A step is accepted if it
   lowers :math:`|r|_2`, else halved (at most ``_HALVINGS`` times, then status
   ``NOT_CONVERGED``). Once :math:`\max|r| \le` ``tol``, one more step is taken if it lowers
   :math:`|r|` (rounding level), then the cluster is done.

``INTEGRATE`` moves the independent speeds by ``dy`` first (continuation in
:math:`\lceil\max|dy|/0.2\rceil` steps, each an Euler predictor along :math:`G`,
:math:`\dot q_D = G_D\dot y` with :math:`K_D G_D = -K_Y` (seed 004 eq. 3), then the
corrector above); ``PROJECT`` runs the corrector only. The clusters are independent (each
cluster's residual depends on its own coordinates only), so they are closed one after the
other.

Tables: those of :mod:`~geomech.multibody._kernels.cluster.tables` (``kc``, ``kcol``,
``span``, ``loc``, ``lpi``, ``lpf``, ``cpi``, ``cpe``, ``cpc``) built for every constrained
cluster (couplings-only clusters included, in mode ``KERNEL``), plus ``cpa`` (per coupling:
1 when it couples angles) and ``yv`` (nv: the spanning speed of each independent speed).

References
----------
Seed 004 eqs. 2–3, §1.2 [inferred], §6 trap 7 (consistent spanning states by Newton on
:math:`\phi`); Nocedal & Wright, *Numerical Optimization*, §10.3 (Gauss–Newton with a
backtracking line search); Golub & Van Loan §5.3 (least squares by Householder QR).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from geomech.multibody._kernels.cluster.constraints import (
    _loop_transform,
    householder_qr,
    loop_joint_fit,
    qr_solve,
)
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
    KC_COLUMNS,
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
from geomech.multibody._kernels.jit import INLINE, JIT, at, first_failure
from geomech.multibody._kernels.joints import integrate as tree_integrate
from geomech.multibody._kernels.joints import (
    joint_integrate,
)
from geomech.multibody._kernels.spatial import transform_motion
from geomech.multibody._kernels.status import (
    NON_FINITE_INPUT,
    NOT_CONVERGED,
    OK,
    SINGULAR,
    pack,
)
from geomech.multibody._kernels.tables import IQ, IV, JTYPE, PARENT
from geomech.multibody._kernels.tree.kinematics import all_finite, tree_transforms

__all__ = ["PROJECT", "INTEGRATE", "MAX_STEP", "closure_work", "closure_one", "closure_batch"]

PROJECT = 0  #: close the loops from q (the corrector only)
INTEGRATE = 1  #: move the independent coordinates by dy, then close (continuation)
MAX_STEP = 0.2  #: largest continuation step of the independent coordinates (rad, length)
_HALVINGS = 30
_TWO_PI = 2.0 * math.pi


@njit(**INLINE)
def _rot_entry(W, EX, a, b):
    r"""Entry ``(a, b)`` of :math:`W R_M` with :math:`R_M = E_X^\top`."""
    return W[a, 0] * EX[b, 0] + W[a, 1] * EX[b, 1] + W[a, 2] * EX[b, 2]


@njit(**JIT)
def _loop_error(code, ax, pitch, EX, pM, W, out):
    r"""``out[:6]`` :math:`= [\mathrm{vee}(\tfrac12(R_{\mathcal E} - R_{\mathcal E}^\top));
    p_{\mathcal E}]` of :math:`\mathcal E = T_J(q_L)^{-1}M`, :math:`R_M = E_X^\top`,
    :math:`p_M` = ``pM``, :math:`q_L` fitted in closed form (:func:`~.constraints.loop_joint_fit`);
    ``W`` (3, 3) is work (:math:`R_J(q_L)^\top`).
    """
    shift = loop_joint_fit(code, ax, pitch, EX, pM, W)
    # R_E = W R_M (R_M = E_Xᵀ): only its skew part is needed
    out[0] = 0.5 * (_rot_entry(W, EX, 2, 1) - _rot_entry(W, EX, 1, 2))
    out[1] = 0.5 * (_rot_entry(W, EX, 0, 2) - _rot_entry(W, EX, 2, 0))
    out[2] = 0.5 * (_rot_entry(W, EX, 1, 0) - _rot_entry(W, EX, 0, 1))
    for a in range(3):  # p_E = W (p_M − shift a)
        out[3 + a] = (
            W[a, 0] * (pM[0] - shift * ax[0])
            + W[a, 1] * (pM[1] - shift * ax[1])
            + W[a, 2] * (pM[2] - shift * ax[2])
        )


@njit(**JIT)
def closure_work(N, n_s, nq, nc, na, nr, nD):
    """Work arrays of :func:`closure_one` for ``N`` bodies and the largest cluster sizes."""
    nc, na, nr, nD = max(nc, 1), max(na, 1), max(nr, 1), max(nD, 1)
    return (
        np.empty((N, 3, 3)),  # E: ^iX_λ(i)
        np.empty((N, 3)),  # r
        np.empty((N, 3, 3)),  # Eo: ^iX_Λ(i)
        np.empty((N, 3)),  # ro
        np.zeros((N, nc, 6)),  # Jc: in-cluster body Jacobians
        np.zeros((nr, nc + na)),  # K
        np.zeros(nr),  # r (residual)
        np.zeros((nr, nc + na)),  # K at the trial point
        np.zeros(nr),  # r at the trial point
        np.empty((nr, nD)),  # K_D, then its QR
        np.empty(nD),  # tau of the QR
        np.empty((nr, 1)),  # right-hand side
        np.empty((nD, 1)),  # solution
        np.zeros(n_s),  # dv: a step of the spanning speeds
        np.empty(nq),  # trial / predictor configuration
        np.empty((3, 3)),  # small work: Rp, pp, Rs, ps, Xm, rX, W, m6, n6, Xv
        np.empty(3),
        np.empty((3, 3)),
        np.empty(3),
        np.empty((3, 3)),
        np.empty(3),
        np.empty((3, 3)),
        np.empty(6),
        np.empty(6),
        np.empty(6),
    )


@njit(**JIT)
def _assemble(k, q, topo, placement, jparam, T_user, S, cbody, cclus, kc, loc, lpi, lpf,
              cpi, cpe, cpc, cpa, K, res, work):  # fmt: skip
    r"""Residual ``res[:n_rows]`` and Jacobian ``K[:n_rows, :n_c + n_aux]`` of cluster ``k``
    at ``q`` (module docstring, steps 1–2); returns :math:`|r|_2^2`, or −1 for a joint
    quaternion that is not of unit norm.
    """
    E, r, Eo, ro, Jc = work[0], work[1], work[2], work[3], work[4]
    Rp, pp, Rs, ps, Xm = work[15], work[16], work[17], work[18], work[19]
    rX, W, m6, n6, Xv = work[20], work[21], work[22], work[23], work[24]
    parent, jtype, iq, iv = topo[:-1, PARENT], topo[:-1, JTYPE], topo[:, IQ], topo[:, IV]
    nc, na, nr = kc[k, N_SPAN], kc[k, N_AUX], kc[k, N_ROWS]
    l0, l1 = kc[k, FIRST_LOOP], kc[k, END_LOOP]
    K[:nr, : nc + na] = 0.0
    if l1 > l0:
        if tree_transforms(jtype, iq, placement, jparam, T_user, q, E, r) != OK:
            return -1.0
        # ---- in-cluster poses ^iX_Λ(i) and Jacobians J_i = ^iX_λ(i) J_λ(i) + S̄_i (eq. 32) ----
        for t in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
            i = cbody[t, STACK]
            p = parent[i]
            if p != cbody[i, OUTPUT]:
                for a in range(3):  # (Eo, ro)_i = X(E_i, r_i) X(Eo_p, ro_p)
                    ro[i, a] = (
                        ro[p, a]
                        + Eo[p, 0, a] * r[i, 0]
                        + Eo[p, 1, a] * r[i, 1]
                        + Eo[p, 2, a] * r[i, 2]
                    )
                    for b in range(3):
                        Eo[i, a, b] = (
                            E[i, a, 0] * Eo[p, 0, b]
                            + E[i, a, 1] * Eo[p, 1, b]
                            + E[i, a, 2] * Eo[p, 2, b]
                        )
                for c in range(nc):
                    transform_motion(E[i], r[i], Jc[p, c], Jc[i, c])
            else:
                Eo[i, :, :] = E[i]
                ro[i, :] = r[i]
                Jc[i, :nc, :] = 0.0
            for j in range(iv[i], iv[i + 1]):
                for e in range(6):
                    Jc[i, loc[j], e] += S[j, e]
    # ---- loop joints: r_L = [vee skew R_E; p_E], K = [ξ rows, −Φ_L] (eq. 2) ----
    for lp in range(l0, l1):
        pred, succ, code = lpi[lp, LOOP_PRED], lpi[lp, LOOP_SUCC], lpi[lp, LOOP_JTYPE]
        row0, a0, nva = lpi[lp, LOOP_ROW], lpi[lp, LOOP_AUX], lpi[lp, LOOP_NV]
        f = lpf[lp]
        Ep, rp = f[FP_E : FP_E + 9].reshape((3, 3)), f[FP_R : FP_R + 3]
        Es, rs = f[FS_E : FS_E + 9].reshape((3, 3)), f[FS_R : FS_R + 3]
        pin = pred >= 0 and cbody[pred, CLUSTER] == k
        sin_ = succ >= 0 and cbody[succ, CLUSTER] == k
        _loop_transform(pin, sin_, Eo, ro, pred, succ, f, Rp, pp, Rs, ps, Xm, rX)
        _loop_error(code, f[LOOP_AXIS : LOOP_AXIS + 3], f[LOOP_PITCH], Xm, rX, W, res[row0:])
        for c in range(nc):  # ξ = ^{FS}X_S J_S − ^{FS}X_{FP} ^{FP}X_P J_P
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
    # ---- couplings: r Σ q_pred − Σ q_succ (mod 2π for angles), constant rows ----
    for cp in range(kc[k, FIRST_COUPLING], kc[k, END_COUPLING]):  # (stored per cluster)
        row, x = cpi[cp, CP_ROW], 0.0
        for e in range(cpi[cp, CP_FIRST], cpi[cp, CP_END]):
            x += cpc[e] * q[cpe[e, CPE_Q]]
            K[row, loc[cpe[e, CPE_SPEED]]] += cpc[e]
        if cpa[cp]:
            x -= _TWO_PI * math.floor(x / _TWO_PI + 0.5)
        res[row] = x
    cost = 0.0
    for i in range(nr):
        cost += res[i] * res[i]
    return cost


@njit(**JIT)
def _max_abs(x, n):
    m = 0.0
    for i in range(n):
        m = max(m, abs(x[i]))
    return m


@njit(**JIT)
def _solve_dependent(k, kc, kcol, K, rhs, work):
    """Least squares :math:`K_D X = ` ``rhs`` (``rhs`` (n_rows, 1) is overwritten); False
    when :math:`K_D` is rank deficient.
    """
    AD, tau, X = work[9], work[10], work[12]
    nr, nD, ko = kc[k, N_ROWS], kc[k, N_DEP], kc[k, KCOL_OFFSET]
    m = kc[k, N_SPAN] + kc[k, N_AUX] - nD
    for t in range(nD):
        col = kcol[ko + m + t]
        for i in range(nr):
            AD[i, t] = K[i, col]
    if not householder_qr(AD, nr, nD, tau):
        return False
    qr_solve(AD, nr, nD, tau, rhs, 1, X)
    return True


@njit(**JIT)
def _newton(k, q, tol, max_iter, topo, placement, jparam, T_user, S, cbody, cclus, kc, kcol,
            span, loc, lpi, lpf, cpi, cpe, cpc, cpa, work):  # fmt: skip
    """Close cluster ``k`` in place in ``q`` (module docstring, step 3); ``(status, max|r|)``."""
    K, res, Kt, rt, rhs, X, dv, qt = (
        work[5], work[6], work[7], work[8], work[11], work[12], work[13], work[14]
    )  # fmt: skip
    iq, iv, jtype = topo[:, IQ], topo[:, IV], topo[:-1, JTYPE]
    nc, na, nr, nD = kc[k, N_SPAN], kc[k, N_AUX], kc[k, N_ROWS], kc[k, N_DEP]
    ko, so = kc[k, KCOL_OFFSET], kc[k, SPAN_OFFSET]
    m = nc + na - nD
    b0 = cbody[cclus[k, FIRST_BODY], STACK]
    cost = _assemble(k, q, topo, placement, jparam, T_user, S, cbody, cclus, kc, loc, lpi, lpf,
                     cpi, cpe, cpc, cpa, K, res, work)  # fmt: skip
    if cost < 0.0:
        return pack(NON_FINITE_INPUT, b0), np.inf
    err = _max_abs(res, nr)
    polish = False
    for _ in range(max_iter):
        if err <= tol:
            if polish or err <= 1e-15:  # at rounding level already
                return OK, err
            polish = True  # one Gauss–Newton step more reaches rounding level
        for i in range(nr):
            rhs[i, 0] = -res[i]
        if not _solve_dependent(k, kc, kcol, K, rhs, work):  # K_D δ = −r
            return pack(SINGULAR, b0), err
        step, accepted = 1.0, False
        for _h in range(1 if polish else _HALVINGS):
            for t in range(nc):
                dv[span[so + t]] = 0.0
            for t in range(nD):
                col = kcol[ko + m + t]
                if col < nc:  # the loop joints' part of δ is dropped (q_L is fitted)
                    dv[span[so + col]] = step * X[t, 0]
            qt[:] = q
            for s_ in range(cclus[k, FIRST_BODY], cclus[k + 1, FIRST_BODY]):
                i = cbody[s_, STACK]  # q_D ← q_D ⊕ δ_D along the joints' own flow
                if iv[i + 1] > iv[i]:
                    joint_integrate(jtype[i], q[iq[i] : iq[i + 1]], dv[iv[i] : iv[i + 1]], 1.0,
                                    qt[iq[i] : iq[i + 1]])  # fmt: skip
            c_new = _assemble(k, qt, topo, placement, jparam, T_user, S, cbody, cclus, kc,
                              loc, lpi, lpf, cpi, cpe, cpc, cpa, Kt, rt, work)  # fmt: skip
            if c_new >= 0.0 and c_new < cost:
                q[:] = qt
                K[:nr, : nc + na] = Kt[:nr, : nc + na]
                res[:nr] = rt[:nr]
                cost, err, accepted = c_new, _max_abs(rt, nr), True
                break
            step *= 0.5
        if not accepted:
            if polish:
                return OK, err
            return pack(NOT_CONVERGED, b0), err
    if err <= tol:
        return OK, err
    return pack(NOT_CONVERGED, b0), err


@njit(**JIT)
def closure_one(topo, placement, jparam, T_user, S, cbody, cclus, yidx, yv, kc, kcol, span,
                loc, lpi, lpf, cpi, cpe, cpc, cpa, mode, q, dy, tol, max_iter, out,
                work):  # fmt: skip
    """``out`` = the closed configuration from ``q`` (``PROJECT``) or from ``q`` moved by the
    independent step ``dy`` (``INTEGRATE``); returns ``(status, largest residual)``.
    """
    K, res, rhs, X, dv, qt = work[5], work[6], work[11], work[12], work[13], work[14]
    if not (all_finite(q) and all_finite(dy)):
        return pack(NON_FINITE_INPUT, -1), np.inf
    out[:] = q
    NC = cclus.shape[0] - 1
    n = 1
    if mode == INTEGRATE:
        big = 0.0
        for j in range(dy.shape[0]):
            big = max(big, abs(dy[j]))
        n = max(1, int(math.ceil(big / MAX_STEP)))
    worst = 0.0
    for _s in range(n):
        if mode == INTEGRATE:
            # ---- Euler predictor: q̇_Y = ẏ, q̇_D = G_D ẏ, K_D G_D ẏ = −K_Y ẏ (eq. 3) ----
            dv[:] = 0.0
            for j in range(dy.shape[0]):
                dv[yv[j]] = dy[j] / n
            for k in range(NC):
                if kc[k, MODE] != KERNEL:
                    continue
                nc, na, nr, nD = kc[k, N_SPAN], kc[k, N_AUX], kc[k, N_ROWS], kc[k, N_DEP]
                ko, so, y0 = kc[k, KCOL_OFFSET], kc[k, SPAN_OFFSET], cclus[k, FIRST_Y]
                m = nc + na - nD
                if _assemble(k, out, topo, placement, jparam, T_user, S, cbody, cclus, kc, loc,
                             lpi, lpf, cpi, cpe, cpc, cpa, K, res, work) < 0.0:  # fmt: skip
                    return pack(NON_FINITE_INPUT, cbody[cclus[k, FIRST_BODY], STACK]), np.inf
                for i in range(nr):
                    x = 0.0
                    for c in range(m):
                        x -= K[i, kcol[ko + c]] * dy[yidx[y0 + c]]
                    rhs[i, 0] = x / n
                if not _solve_dependent(k, kc, kcol, K, rhs, work):
                    return pack(SINGULAR, cbody[cclus[k, FIRST_BODY], STACK]), _max_abs(res, nr)
                for t in range(nD):
                    col = kcol[ko + m + t]
                    if col < nc:
                        dv[span[so + col]] = X[t, 0]
            qt[:] = out
            tree_integrate(topo, qt, dv, 1.0, out)
        # ---- corrector: Gauss–Newton per cluster ----
        for k in range(NC):
            if kc[k, MODE] != KERNEL:
                continue
            status, err = _newton(k, out, tol, max_iter, topo, placement, jparam, T_user, S,
                                  cbody, cclus, kc, kcol, span, loc, lpi, lpf, cpi, cpe, cpc,
                                  cpa, work)  # fmt: skip
            if status != OK:
                return status, err
            worst = max(worst, err)
    return OK, worst


@njit(**JIT)
def closure_batch(topo, placement, jparam, T_user, S, cbody, cclus, yidx, yv, kc, kcol, span,
                  loc, lpi, lpf, cpi, cpe, cpc, cpa, sizes, mode, Q, DY, tol, max_iter, OUT,
                  RES, status):  # fmt: skip
    """:func:`closure_one` over a batch (``Q`` and ``DY`` with 1 or B rows; work arrays
    allocated once); ``sizes`` holds ``(n_c, n_aux, n_rows, n_D)``. First failure + 1.
    """
    work = closure_work(cbody.shape[0], S.shape[0], OUT.shape[1], sizes[0], sizes[1],
                        sizes[2], sizes[3])  # fmt: skip
    for b in range(status.shape[0]):
        status[b], RES[b] = closure_one(topo, placement, jparam, T_user, S, cbody, cclus, yidx,
                                        yv, kc, kcol, span, loc, lpi, lpf, cpi, cpe, cpc, cpa,
                                        mode, at(Q, b), at(DY, b), tol, max_iter, OUT[b],
                                        work)  # fmt: skip
    return first_failure(status)


# ----------------------------------------------------------------------------------------
# the Python side: tables of every constrained cluster, and the calls
# ----------------------------------------------------------------------------------------
class ClosureLayout:
    """The tables of :func:`closure_batch` for a closed model (module docstring).

    ``capable`` is False when some cluster needs the model's Python constraint objects
    (user-defined implicit constraints or joints, loop joints without a closed-form fit, or
    loop frames not hanging from one output body); the model then closes its loops by the
    Python Gauss–Newton of :func:`geomech.multibody.closed._closure.newton`.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody._kernels.cluster.closure import INTEGRATE, closure_layout
    >>> model = load_example("four_bar")
    >>> cl = closure_layout(model)
    >>> out, res, status = cl.run(INTEGRATE, model.neutral()[None], np.array([[0.3]]))
    >>> round(float(out[0, 0]), 12), int(status[0]), bool(res[0] < 1e-12)
    (0.3, 0, True)
    """

    def __init__(self, model):
        from geomech.multibody._kernels.cluster.compiled import cluster_layout
        from geomech.multibody._kernels.compiled import joint_code
        from geomech.multibody._kernels.tree.chart import HANDLED

        self.model = model
        lay = self.lay = cluster_layout(model)
        st = model.spanning_tree
        cm = st.compiled
        self.capable = not cm.has_user_joints and all(
            code in HANDLED for code in cm.topo[:-1, JTYPE]
        )
        indep = {int(j) for j in model.independent_v_index}
        NC, n_s = len(model.clusters), st.nv
        kc = np.zeros((NC, KC_COLUMNS), dtype=np.int64)
        kcol, span, lpi, lpf, cpi, cpe, cpc, cpa = [], [], [], [], [], [], [], []
        loc = np.zeros(n_s, dtype=np.int64)
        sizes = np.zeros(4, dtype=np.int64)
        for k, c in enumerate(model.clusters):
            if not c.constraints or not self.capable:
                continue
            loops = [con for con in c.constraints if con.kind == "loop"]
            if loops and not lay._kernel_mode(model, c):
                self.capable = False
                break
            if any(con.kind not in ("loop", "coupling") for con in c.constraints):
                self.capable = False
                break
            cols = np.asarray(c.v_index, dtype=np.int64)
            loc[cols] = np.arange(cols.size)
            nc = cols.size
            Y = [t for t, j in enumerate(cols) if int(j) in indep]
            D = [t for t in range(nc) if t not in Y]
            row, na, l0, c0 = 0, 0, len(lpi), len(cpi)
            for con in c.constraints:
                if con.kind == "loop":
                    nva = con.nv_aux
                    D.extend(nc + na + d for d in range(nva))
                    lpi.append([k, con.pred, con.succ, row, na, nva, joint_code(con.joint)])
                    f = np.zeros(64)
                    f[0:9], f[9:12] = con.Tp[:3, :3].T.ravel(), con.Tp[:3, 3]  # FP_E, FP_R
                    f[12:21], f[21:24] = con.Ts[:3, :3].T.ravel(), con.Ts[:3, 3]  # FS_E, FS_R
                    Phi = np.zeros((6, 6))
                    Phi[:, :nva] = con.joint._Phi()
                    f[24:60] = Phi.ravel()  # LOOP_PHI
                    f[60:63] = getattr(con.joint, "axis", np.zeros(3))  # LOOP_AXIS
                    f[63] = getattr(con.joint, "pitch", 0.0)  # LOOP_PITCH
                    lpf.append(f)
                    row, na = row + 6, na + nva
                else:
                    e0 = len(cpe)
                    for j, iq, coef in zip(con.v_index, con.q_index, con._q_row, strict=True):
                        cpe.append((int(j), int(iq)))  # CPE_SPEED, CPE_Q
                        cpc.append(float(coef))
                    cpi.append([k, row, e0, len(cpe)])  # CP_CLUSTER, CP_ROW, CP_FIRST, CP_END
                    cpa.append(bool(con.angular))
                    row += 1
            if row < len(D):
                self.capable = False
                break
            # MODE, N_SPAN, N_AUX, N_ROWS, N_DEP, KCOL_OFFSET, FIRST_LOOP, END_LOOP, SPAN_OFFSET,
            # FIRST_COUPLING, END_COUPLING
            kc[k] = (KERNEL, nc, na, row, len(D), len(kcol), l0, len(lpi), len(span), c0,
                     len(cpi))  # fmt: skip
            kcol.extend(Y + D)
            span.extend(int(j) for j in cols)
            sizes = np.maximum(sizes, [nc, na, row, len(D)])
        if not self.capable:
            return
        i64 = np.int64
        S = cm.S[0] if cm.S.ndim == 3 else cm.S
        T_user = cm.T_user[0] if cm.T_user.ndim == 4 else cm.T_user
        self._args = (
            cm.topo,
            cm.arrays()[1],
            cm.arrays()[2],
            np.ascontiguousarray(T_user),
            np.ascontiguousarray(S),
            lay.cbody,
            lay.cclus,
            lay.yidx,
            np.asarray(model.independent_v_index, dtype=i64),
            kc,
            np.asarray(kcol, dtype=i64),
            np.asarray(span, dtype=i64),
            loc,
            np.asarray(lpi, dtype=i64).reshape(-1, 7),
            np.asarray(lpf, dtype=float).reshape(-1, 64),
            np.asarray(cpi, dtype=i64).reshape(-1, 4),
            np.asarray(cpe, dtype=i64).reshape(-1, 2),
            np.asarray(cpc, dtype=float),
            np.asarray(cpa, dtype=np.bool_),
            sizes,
        )

    def run(self, mode, Q, DY, tol=1e-12, max_iter=50):
        """``(OUT, RES, status)`` of :func:`closure_batch` for ``Q`` (B or 1, nq) and ``DY``
        (B or 1, nv) (``PROJECT`` ignores ``DY``).
        """
        Q = np.require(Q, np.float64, ("C", "W"))
        DY = np.require(DY, np.float64, ("C", "W"))
        B = max(Q.shape[0], DY.shape[0])
        OUT = np.empty((B, self.model.nq))
        RES, status = np.empty(B), np.empty(B, dtype=np.int64)
        closure_batch(*self._args, mode, Q, DY, float(tol), int(max_iter), OUT, RES, status)
        return OUT, RES, status

    def error(self, status: int, res: float, what: str):
        """The named error of a failed state (``what``: the operation, for the message)."""
        from geomech.errors import NonFiniteError, SingularityError
        from geomech.multibody._kernels.status import unpack

        code, body = unpack(int(status))
        if code == NON_FINITE_INPUT and body < 0:
            return NonFiniteError(f"Expected finite inputs to {what}, got NaN or inf.")
        model = self.model
        k = int(self.lay.cbody[body, CLUSTER]) if body >= 0 else -1
        c = model.clusters[k]
        where = f"cluster {k} (bodies {[model.body_names[b] for b in c.bodies]})"
        if code == SINGULAR:
            return SingularityError(
                f"Expected a regular configuration of {where} in {what}, got a singular one: "
                "its constraint Jacobian on the dependent coordinates lost rank (a change point "
                f"or dead centre of the loop); residual {res:.3g}."
            )
        return SingularityError(
            f"Expected {what} to close the loops of {where} to a residual of 1e-12 by "
            f"Gauss–Newton, got residual {res:.3g} (an unreachable configuration, a local "
            "minimum of |phi| or a singular configuration on the way)."
        )


def closure_layout(model) -> ClosureLayout:
    """The model's :class:`ClosureLayout`, built once and cached on the model.

    Examples
    --------
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody._kernels.cluster.closure import closure_layout
    >>> closure_layout(load_example("six_bar")).capable
    True
    """
    cl = model.__dict__.get("_closure_layout")
    if cl is None:
        cl = model.__dict__["_closure_layout"] = ClosureLayout(model)
    return cl
