r"""Derivative kernels: first- and second-order partials of inverse dynamics (IDSVA, seed 002).

Everything here is in the **ground frame** (seed 002 §V, trap 9): the forward pass turns the
body-frame arrays of the compiled model into world quantities per DoF (rows of ``(nv, 6)``
arrays) and per body,

=============  ============================================================================
``Sg[k]``      column :math:`\mathbf s_k` of :math:`\mathbf S_i` (joint ``i`` owning DoF ``k``)
``Psid[k]``    :math:`\dot{\boldsymbol\psi}_k = \mathbf v_{\lambda(i)}\times\mathbf s_k` (eq. 5)
``Psidd[k]``   :math:`\ddot{\boldsymbol\psi}_k = \mathbf a_{\lambda(i)}\times\mathbf s_k +
               \mathbf v_{\lambda(i)}\times\dot{\boldsymbol\psi}_k`
``Sd[k]``      :math:`\dot{\mathbf s}_k = \mathbf v_i\times\mathbf s_k`
``IC[i]``      :math:`\mathbf I^C_i` (the body inertia until the backward pass adds the subtree)
``BC[i]``      :math:`\mathbf B^C_i`, **unhalved** (Alg. 1 l.9: twice seed 002 eq. 6)
``fC[i]``      :math:`\mathbf f^C_i` (net body force, minus the external wrench)
=============  ============================================================================

and the backward passes sweep the bodies from the leaves to the root, walking the ancestors
of each one (regular numbering, ``parent[i] < i``). The first-order passes
(:func:`forward_pass_first`, :func:`first_order`) keep the inertias as ten parameters
(``IC``) and :math:`\mathbf B^C_i` as the parameters of the inertia rate ``BR`` plus the
composite momentum ``hC`` (:math:`\mathbf B^C_i = \mathbf R^C_i + \mathbf h^C_i
\bar\times^*`); the forward-dynamics partials take :math:`\ddot q` from the mass matrix and
the bias of the same pass (:func:`acceleration_part`) instead of running the ABA.

∂/∂q is the derivative along ``model.integrate`` (right perturbation
:math:`T_J(\mathbf q_i)\exp(\mathbf S_i^{loc}\delta)`, seed 002 §1.4), which moves the
subtree of joint ``i`` by the ground-frame twist :math:`\mathbf s_k` (identity K1).
External wrenches are body-fixed: they rotate with their body, so they enter only through
:math:`\mathbf f^C` (K11–K12 hold with them).

The first-order partials have one per-state core each, :func:`rnea_first` (the IDSVA FO pass)
and :func:`aba_first` (that pass with the mass matrix, its factor and the solves), compiled once
without numba's reference counting (``jit.FMA_BATCH``) and called by both the single-state
entry point (``*_one``, work arrays on its stack) and the batch driver (``*_batch``, one work
buffer, the rows borrowed): inlined into both, the ∂ABA core was compiled twice (~16 s each, cold).

Second-order outputs go to one flat array per state, ``T[0..3]`` = ``d2tau_dq2``,
``d2tau_dv2``, ``d2tau_dqdv``, ``dM_dq``, through :func:`slot` — dense (``nv³`` entries,
C order) or block-sparse (one "cube" per body), the layouts of
:mod:`geomech.multibody._kernels.tree.layout`, shared with the Christoffel kernel.

References
----------
Seed 002 eqs. 5, 7–8 (first order, ref. [14]), Alg. 1 (IDSVA SO), App. B; digest §2, §5.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from geomech.multibody._kernels.compiled import unpack
from geomech.multibody._kernels.jit import FMA, FMA_BATCH, INLINE, JIT, at, first_failure
from geomech.multibody._kernels.spatial import (
    cross_force,
    dot6,
    inertia_congruence,
    inertia_params,
    inertia_params_rate,
    inertia_params_transform,
    inertia_times,
    transform_force_transpose,
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
from geomech.multibody._kernels.tables import ARMATURE, IQ, IV, JTYPE, PARENT
from geomech.multibody._kernels.tree.dynamics import aba
from geomech.multibody._kernels.tree.kinematics import (
    all_finite,
    finite_matrix,
    finite_vector,
    is_vector,
    tree_transforms,
)
from geomech.multibody._kernels.tree.layout import SAFE, largest, slot
from geomech.multibody._kernels.tree.tensor import (
    coriolis_factor,
    crbar_add,
    crf_left,
    crm_right,
    dot6_rows,
    matTvec6_add,
    matvec6_add,
)
from geomech.multibody._kernels.views import borrow, int_view, row, stack, view
from geomech.multibody._kernels.views import workspace as carved

__all__ = [
    "workspace",
    "forward_pass",
    "forward_pass_first",
    "first_workspace",
    "first_order",
    "acceleration_part",
    "second_order",
    "second_order_workspace",
    "dof_parents",
    "rnea_first",
    "rnea_derivatives_batch",
    "rnea_derivatives_one",
    "rnea_second_derivatives_batch",
    "rnea_second_along_batch",
    "aba_first",
    "aba_derivatives_batch",
    "aba_derivatives_one",
    "aba_second_derivatives_batch",
]


# ----------------------------------------------------------------------------------------
# work arrays (allocated once per batch call)
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def workspace(N, nv):
    """The work arrays of :func:`forward_pass` and the backward passes, as one tuple.

    ``(E, r, E0, r0, vel, acc, Sg, Psid, Psidd, Sd, IC, BC, fC, W6, V6, SdPsid)``: ``W6``
    (16, 6, 6) and ``V6`` (18, 6) hold the 6×6 matrices and 6-vectors of the backward passes,
    ``SdPsid`` (nv, 6) the sums ``Sd + Psid`` of the second-order pass.
    """
    return (
        np.empty((N, 3, 3)),
        np.empty((N, 3)),
        np.empty((N, 3, 3)),
        np.empty((N, 3)),
        np.empty((N, 6)),
        np.empty((N, 6)),
        np.empty((nv, 6)),
        np.empty((nv, 6)),
        np.empty((nv, 6)),
        np.empty((nv, 6)),
        np.empty((N, 6, 6)),
        np.empty((N, 6, 6)),
        np.empty((N, 6)),
        np.empty((16, 6, 6)),
        np.empty((18, 6)),
        np.empty((nv, 6)),
    )


# ----------------------------------------------------------------------------------------
# forward pass (Alg. 1 l.1-11), in the ground frame
# ----------------------------------------------------------------------------------------
@njit(**INLINE)
def _cross_rows(A, ia, B, ib, O, io):
    r"""``O[io] += A[ia] × B[ib]`` (:math:`\mathbf v\times\mathbf m` of motions), on rows of
    2-D arrays: indexing the rows instead of passing row views made the forward pass three
    times faster (a view is a struct to build and reference-count).
    """
    w0, w1, w2, u0, u1, u2 = A[ia, 0], A[ia, 1], A[ia, 2], A[ia, 3], A[ia, 4], A[ia, 5]
    m0, m1, m2, m3, m4, m5 = B[ib, 0], B[ib, 1], B[ib, 2], B[ib, 3], B[ib, 4], B[ib, 5]
    O[io, 0] += w1 * m2 - w2 * m1
    O[io, 1] += w2 * m0 - w0 * m2
    O[io, 2] += w0 * m1 - w1 * m0
    O[io, 3] += w1 * m5 - w2 * m4 + u1 * m2 - u2 * m1
    O[io, 4] += w2 * m3 - w0 * m5 + u2 * m0 - u0 * m2
    O[io, 5] += w0 * m4 - w1 * m3 + u0 * m1 - u1 * m0


@njit(**INLINE)
def _motion_pass(parent, iv, S, v, a, A0, E, r, E0, r0, vel, acc, Sg, Psid, Psidd, Sd):
    r"""Alg. 1 lines 2–7 for every body ``i``: its world pose ``(E0[i], r0[i])`` from the joint
    transforms ``(E, r)``, the ground-frame columns ``Sg``, ``vel[i]``, ``acc[i]`` and the
    rates ``Sd``, ``Psid``, ``Psidd`` of its DoFs (``A0`` (1, 6): the world's acceleration
    :math:`-\mathbf a_g`). One loop in one function: the same code as a per-body helper
    inlined by numba ran at half the speed.
    """
    for i in range(parent.shape[0]):
        p = parent[i]
        # world pose: ^iX_0 = ^iX_p ^pX_0, i.e. E0_i = E_i E0_p, r0_i = r0_p + E0_pᵀ r_i
        if p < 0:
            for x in range(3):
                r0[i, x] = r[i, x]
                for y in range(3):
                    E0[i, x, y] = E[i, x, y]
        else:
            for x in range(3):
                r0[i, x] = r0[p, x] + (
                    E0[p, 0, x] * r[i, 0] + E0[p, 1, x] * r[i, 1] + E0[p, 2, x] * r[i, 2]
                )
                for y in range(3):
                    E0[i, x, y] = (
                        E[i, x, 0] * E0[p, 0, y]
                        + E[i, x, 1] * E0[p, 1, y]
                        + E[i, x, 2] * E0[p, 2, y]
                    )
        # S_i = ^iX_0⁻¹ S_i^loc (trap 9: S_i = Ad_{T_i} S_i^loc)
        for k in range(iv[i], iv[i + 1]):
            transform_motion_transpose(E0[i], r0[i], S[k], Sg[k])
        # l.3: v_i = v_λ + S_i qd_i; the first terms of l.4: a_i = a_λ + S_i qdd_i
        for c in range(6):
            vel[i, c] = 0.0 if p < 0 else vel[p, c]
            acc[i, c] = A0[0, c] if p < 0 else acc[p, c]
        for k in range(iv[i], iv[i + 1]):
            for c in range(6):
                vel[i, c] += Sg[k, c] * v[k]
                acc[i, c] += Sg[k, c] * a[k]
        # l.5-7: Sd_i = v_i × S_i, Psid_i = v_λ × S_i, Psidd_i = a_λ × S_i + v_λ × Psid_i
        for k in range(iv[i], iv[i + 1]):
            for c in range(6):
                Sd[k, c] = 0.0
                Psid[k, c] = 0.0
                Psidd[k, c] = 0.0
            _cross_rows(vel, i, Sg, k, Sd, k)
            if p < 0:
                _cross_rows(A0, 0, Sg, k, Psidd, k)  # v_0 = 0, a_0 = -a_g
            else:
                _cross_rows(vel, p, Sg, k, Psid, k)
                _cross_rows(acc, p, Sg, k, Psidd, k)
                _cross_rows(vel, p, Psid, k, Psidd, k)
            for c in range(6):  # l.4: + v_i × S_i qd_i = Σ_k qd_k Sd_k
                acc[i, c] += Sd[k, c] * v[k]


@njit(**JIT)
def forward_pass(topo, placement, jparam, inertia, S, T_user, q, v, a, a0, f_ext, ws):
    r"""Alg. 1 lines 1–11 for one state: fill the ground-frame arrays of ``ws``; a status.

    ``S`` (nv, 6) holds the motion-subspace columns in body coordinates; the world pose of
    body ``i`` is kept as the Plücker pair ``(E0[i], r0[i])`` of :math:`{}^i\mathbf X_0`, so
    that a body-frame twist maps to the ground by :math:`{}^i\mathbf X_0^{-1}`, an inertia
    by :math:`{}^i\mathbf X_0^\top\mathbf I\,{}^i\mathbf X_0` and a wrench by
    :math:`{}^i\mathbf X_0^\top` (seed 002 trap 9).
    """
    E, r, E0, r0, vel, acc, Sg, Psid, Psidd, Sd, IC, BC, fC, W6, V6, SdPsid = ws
    parent, jtype, iq, iv = topo[:-1, PARENT], topo[:-1, JTYPE], topo[:, IQ], topo[:, IV]
    N = parent.shape[0]
    if not (
        all_finite(q) and all_finite(v) and all_finite(a) and all_finite(a0) and all_finite(f_ext)
    ):
        return pack(NON_FINITE_INPUT, -1)
    status = tree_transforms(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:
        return status
    vJ, h = V6[0], V6[1]
    A0 = view(a0, 0, (1, 6))
    _motion_pass(parent, iv, S, v, a, A0, E, r, E0, r0, vel, acc, Sg, Psid, Psidd, Sd)
    for i in range(N):
        # l.8: I^C_i = I_i (in the ground frame)
        for x in range(6):
            for y in range(6):
                IC[i, x, y] = 0.0
        inertia_congruence(E0[i], r0[i], inertia[i], IC[i])
        # l.9: B^C_i = (v_i ×*) I_i − I_i (v_i ×) + (I_i v_i) ×̄*   (unhalved)
        coriolis_factor(IC[i], vel[i], h, BC[i])
        # l.10: f^C_i = I_i a_i + v_i ×* I_i v_i  (h = I_i v_i), minus the external wrench
        inertia_times(IC[i], acc[i], fC[i])
        cross_force(vel[i], h, fC[i])
        if f_ext.shape[0] > 0:
            for c in range(6):
                vJ[c] = 0.0
            transform_force_transpose(E0[i], r0[i], f_ext[i], vJ)
            for c in range(6):
                fC[i, c] -= vJ[c]
    return OK


@njit(**JIT)
def _accumulate(parent, i, IC, BC, fC):
    """Alg. 1 l.75-77: I^C_λ += I^C_i, B^C_λ += B^C_i, f^C_λ += f^C_i (ground frame: plain sums)."""
    p = parent[i]
    if p >= 0:
        for x in range(6):
            fC[p, x] += fC[i, x]
            for y in range(6):
                IC[p, x, y] += IC[i, x, y]
                BC[p, x, y] += BC[i, x, y]


# ----------------------------------------------------------------------------------------
# first order: IDSVA FO (seed 002 eqs. 7-8, ref. [14])
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def _first_order_vectors(I_C, B_C, f_C, s_p, psid_p, psidd_p, sd_p, u_a, u_b, w1, w2, tmp):
    """The four 6-vectors of DoF p that eqs. 7-8 dot with the ancestors' columns.

    ``u_a = B^Cᵀ s_p``, ``u_b = I^C s_p`` (7a, 8a), ``w1 = B^C ψd_p + I^C ψdd_p + s_p ×* f^C``
    (7b), ``w2 = B^C s_p + I^C (ψd_p + sd_p)`` (8b); ``tmp`` is work space.
    """
    for c in range(6):
        u_a[c] = 0.0
        tmp[c] = psid_p[c] + sd_p[c]
    matTvec6_add(B_C, s_p, 1.0, u_a)
    inertia_times(I_C, s_p, u_b)
    inertia_times(I_C, psidd_p, w1)
    matvec6_add(B_C, psid_p, 1.0, w1)
    cross_force(s_p, f_C, w1)
    inertia_times(I_C, tmp, w2)
    matvec6_add(B_C, s_p, 1.0, w2)


@njit(**INLINE)
def _first_shapes(N, nv):
    """The shapes of :func:`first_workspace`'s arrays, in its order."""
    return (
        (N, 3, 3),
        (N, 3),
        (N, 3, 3),
        (N, 3),
        (N, 6),
        (N, 6),
        (nv, 6),
        (nv, 6),
        (nv, 6),
        (nv, 6),
        (N, 10),
        (N, 10),
        (N, 6),
        (N, 6),
        (8, 6),
        (4, 6, nv),
    )


@njit(**INLINE)
def _first_tuple(w):
    """The first sixteen arrays of ``w`` as the tuple of :func:`first_workspace`."""
    wf = (w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7])
    return wf + (w[8], w[9], w[10], w[11], w[12], w[13], w[14], w[15])


@njit(**JIT)
def first_workspace(N, nv):
    """The work arrays of :func:`forward_pass_first` and :func:`first_order` as views of one
    allocation: ``(E, r, E0, r0, vel, acc, Sg, Psid, Psidd, Sd, IC, BR, hC, fC, V6, Y)``.

    ``IC``, ``BR`` (N, 10) are inertias as ten parameters
    (:func:`~geomech.multibody._kernels.spatial.inertia_params`), ``hC``, ``fC`` (N, 6),
    ``V6`` (8, 6) the 6-vectors of the backward pass, ``Y`` (4, 6, nv) the ancestors'
    columns component by component.
    """
    return _first_tuple(carved(_first_shapes(N, nv)))


@njit(**INLINE)
def forward_pass_first(topo, placement, jparam, inertia, S, T_user, q, v, a, a0, f_ext, wf):
    r"""Alg. 1 lines 1–11 for the first-order partials, the inertias as ten parameters; a
    status.

    As :func:`forward_pass` (same ground-frame motion arrays), but the inertia terms of body
    ``i`` are kept as ``IC[i]`` (:math:`\mathbf I_i`, ten parameters), ``BR[i]`` (the
    parameters of its rate :math:`(\mathbf v_i\times^*)\mathbf I_i - \mathbf I_i(\mathbf
    v_i\times)`), ``hC[i]`` :math:`= \mathbf I_i\mathbf v_i` and ``fC[i]``: the unhalved
    :math:`\mathbf B_i` (Alg. 1 l.9) is the rate plus :math:`\mathbf h_i\bar\times^*`, both
    linear in their parts, so :math:`\mathbf B^C_i = \mathbf R^C_i + \mathbf h^C_i
    \bar\times^*` with the composites plain sums of ten parameters and of 6-vectors
    (Pinocchio keeps its ``doYcrb`` as a 6×6 matrix instead).
    """
    E, r, E0, r0, vel, acc, Sg, Psid, Psidd, Sd, IC, BR, hC, fC, V6, Y = wf
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
    status = tree_transforms(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:
        return status
    vJ = V6[0]
    A0 = view(a0, 0, (1, 6))
    _motion_pass(parent, iv, S, v, a, A0, E, r, E0, r0, vel, acc, Sg, Psid, Psidd, Sd)
    for i in range(N):
        # l.8: I^C_i = I_i in the ground frame (BR[i] holds the body-frame parameters first)
        inertia_params(inertia[i], BR[i])
        inertia_params_transform(E0[i], r0[i], BR[i], IC[i])
        # l.9: B_i = R_i + h_i ×̄*, R_i = (v_i ×*) I_i − I_i (v_i ×), h_i = I_i v_i
        inertia_params_rate(IC[i], vel[i], BR[i])
        h = _inertia_rows(IC, i, vel, i)
        for c in range(6):
            hC[i, c] = h[c]
        # l.10: f_i = I_i a_i + v_i ×* h_i, minus the external wrench
        f = _inertia_rows(IC, i, acc, i)
        g = _cross_force_rows(vel, i, hC, i)
        for c in range(6):
            fC[i, c] = f[c] + g[c]
        if f_ext.shape[0] > 0:
            for c in range(6):
                vJ[c] = 0.0
            transform_force_transpose(E0[i], r0[i], f_ext[i], vJ)
            for c in range(6):
                fC[i, c] -= vJ[c]
    return OK


@njit(**JIT)
def _inertia_rows(P, ip, X, ix):
    r""":math:`\mathbf I(\mathbf p)\mathbf x` for the ten parameters ``P[ip]`` and the twist
    ``X[ix]`` (rows of 2-D arrays), as a 6-tuple: :func:`~geomech.multibody._kernels.spatial.
    inertia_params_times` without row views or an output array (the backward pass ran a
    third faster with it).
    """
    m, h0, h1, h2 = P[ip, 0], P[ip, 1], P[ip, 2], P[ip, 3]
    i00, i01, i11, i02, i12, i22 = P[ip, 4], P[ip, 5], P[ip, 6], P[ip, 7], P[ip, 8], P[ip, 9]
    w0, w1, w2, u0, u1, u2 = X[ix, 0], X[ix, 1], X[ix, 2], X[ix, 3], X[ix, 4], X[ix, 5]
    return (
        i00 * w0 + i01 * w1 + i02 * w2 + (h1 * u2 - h2 * u1),
        i01 * w0 + i11 * w1 + i12 * w2 + (h2 * u0 - h0 * u2),
        i02 * w0 + i12 * w1 + i22 * w2 + (h0 * u1 - h1 * u0),
        m * u0 - (h1 * w2 - h2 * w1),
        m * u1 - (h2 * w0 - h0 * w2),
        m * u2 - (h0 * w1 - h1 * w0),
    )


@njit(**JIT)
def _cross_force_rows(V, iv_, G, ig):
    r""":math:`\mathbf v\times^*\mathbf f` for the twist ``V[iv_]`` and the wrench ``G[ig]``
    (rows of 2-D arrays), as a 6-tuple.
    """
    w0, w1, w2, u0, u1, u2 = V[iv_, 0], V[iv_, 1], V[iv_, 2], V[iv_, 3], V[iv_, 4], V[iv_, 5]
    f0, f1, f2, f3, f4, f5 = G[ig, 0], G[ig, 1], G[ig, 2], G[ig, 3], G[ig, 4], G[ig, 5]
    return (
        w1 * f2 - w2 * f1 + u1 * f5 - u2 * f4,
        w2 * f0 - w0 * f2 + u2 * f3 - u0 * f5,
        w0 * f1 - w1 * f0 + u0 * f4 - u1 * f3,
        w1 * f5 - w2 * f4,
        w2 * f3 - w0 * f5,
        w0 * f4 - w1 * f3,
    )


@njit(**INLINE)
def first_order(topo, wf, dq, dv, M, tau, F):
    r"""Backward pass of the first-order partials: ``dq``, ``dv``, ``M`` (each (nv, nv)).

    For DoF ``p`` of joint ``i`` and DoF ``t`` of an ancestor-or-self ``j ⪯ i``:

    .. math::
        \partial_{q_t}\tau_p = (\mathbf B^{C\top}_i\mathbf s_p)\cdot\dot{\boldsymbol\psi}_t
        + (\mathbf I^C_i\mathbf s_p)\cdot\ddot{\boldsymbol\psi}_t,\quad
        \partial_{\dot q_t}\tau_p = (\mathbf B^{C\top}_i\mathbf s_p)\cdot\mathbf s_t
        + (\mathbf I^C_i\mathbf s_p)\cdot(\dot{\boldsymbol\psi}_t + \dot{\mathbf s}_t)

    (7a, 8a) and, for ``j ≺ i``, :math:`\partial_{q_p}\tau_t = \mathbf s_t\cdot(\mathbf B^C_i
    \dot{\boldsymbol\psi}_p + \mathbf I^C_i\ddot{\boldsymbol\psi}_p + \mathbf s_p\times^*
    \mathbf f^C_i)`, :math:`\partial_{\dot q_p}\tau_t = \mathbf s_t\cdot(\mathbf B^C_i
    \mathbf s_p + \mathbf I^C_i(\dot{\boldsymbol\psi}_p + \dot{\mathbf s}_p))` (7b, 8b),
    :math:`\mathbf M_{tp} = \mathbf s_t\cdot\mathbf I^C_i\mathbf s_p` (eq. 16, the mass
    matrix as a by-product, as Pinocchio's ``computeRNEADerivatives``; skipped when ``M`` has
    no rows), :math:`\tau_p = \mathbf s_p\cdot\mathbf f^C_i` in ``tau`` (nv,) and the
    columns :math:`\mathbf I^C_i\mathbf s_p` in ``F`` (nv, 6) (each skipped when empty).
    With :math:`\mathbf B^C_i = \mathbf R^C_i + \mathbf h^C_i\bar\times^*`
    (:func:`forward_pass_first`; :math:`\mathbf R^C_i` symmetric, :math:`\mathbf h\bar
    \times^*` skew): :math:`\mathbf B^C_i\mathbf x = \mathbf R^C_i\mathbf x + \mathbf x
    \times^*\mathbf h^C_i` and :math:`\mathbf B^{C\top}_i\mathbf x = \mathbf R^C_i
    \mathbf x - \mathbf x\times^*\mathbf h^C_i`. Blocks of unrelated joints are left
    untouched (the caller zeroes them).

    The ancestors' columns :math:`\dot{\boldsymbol\psi}_t, \ddot{\boldsymbol\psi}_t,
    \mathbf s_t, \dot{\boldsymbol\psi}_t + \dot{\mathbf s}_t` are copied to ``Y`` (4, 6,
    nv) component by component, and the ancestors of a joint are walked as runs of
    consecutive DoFs (a parent whose DoFs end where its child's begin joins the child's run:
    one run for a chain): the loops over ``t`` read and write contiguous memory and vectorise.
    """
    E, r, E0, r0, vel, acc, Sg, Psid, Psidd, Sd, IC, BR, hC, fC, V6, Y = wf
    parent, iv = topo[:-1, PARENT], topo[:, IV]
    N = parent.shape[0]
    with_M, with_tau, with_F = M.shape[0] > 0, tau.shape[0] > 0, F.shape[0] > 0
    PsidT, PsiddT, SgT, SdPsidT = Y[0], Y[1], Y[2], Y[3]
    for k in range(iv[N]):
        for c in range(6):
            PsidT[c, k] = Psid[k, c]
            PsiddT[c, k] = Psidd[k, c]
            SgT[c, k] = Sg[k, c]
            SdPsidT[c, k] = Sd[k, c] + Psid[k, c]
    for i in range(N - 1, -1, -1):
        for p in range(iv[i], iv[i + 1]):
            # u_a = B^Cᵀ s_p = R s_p − s_p ×* h (7a, 8a), u_b = I^C s_p
            Rs = _inertia_rows(BR, i, Sg, p)
            xh = _cross_force_rows(Sg, p, hC, i)
            b0, b1, b2, b3, b4, b5 = _inertia_rows(IC, i, Sg, p)
            a0, a1, a2 = Rs[0] - xh[0], Rs[1] - xh[1], Rs[2] - xh[2]
            a3, a4, a5 = Rs[3] - xh[3], Rs[4] - xh[4], Rs[5] - xh[5]
            if with_tau:
                tau[p] = dot6_rows(Sg, p, fC, i)
            if with_F:
                F[p, 0], F[p, 1], F[p, 2] = b0, b1, b2
                F[p, 3], F[p, 4], F[p, 5] = b3, b4, b5
            # w1 = B^C ψd_p + I^C ψdd_p + s_p ×* f^C (7b): R ψd_p + ψd_p ×* h + ...
            P1 = _inertia_rows(IC, i, Psidd, p)
            P2 = _inertia_rows(BR, i, Psid, p)
            P3 = _cross_force_rows(Psid, p, hC, i)
            P4 = _cross_force_rows(Sg, p, fC, i)
            x0 = P1[0] + P2[0] + P3[0] + P4[0]
            x1 = P1[1] + P2[1] + P3[1] + P4[1]
            x2 = P1[2] + P2[2] + P3[2] + P4[2]
            x3 = P1[3] + P2[3] + P3[3] + P4[3]
            x4 = P1[4] + P2[4] + P3[4] + P4[4]
            x5 = P1[5] + P2[5] + P3[5] + P4[5]
            # w2 = B^C s_p + I^C (ψd_p + sd_p) (8b) = R s_p + s_p ×* h + I^C ψd_p + I^C sd_p
            Q1 = _inertia_rows(IC, i, Psid, p)
            Q2 = _inertia_rows(IC, i, Sd, p)
            y0 = Rs[0] + xh[0] + Q1[0] + Q2[0]
            y1 = Rs[1] + xh[1] + Q1[1] + Q2[1]
            y2 = Rs[2] + xh[2] + Q1[2] + Q2[2]
            y3 = Rs[3] + xh[3] + Q1[3] + Q2[3]
            y4 = Rs[4] + xh[4] + Q1[4] + Q2[4]
            y5 = Rs[5] + xh[5] + Q1[5] + Q2[5]
            dq_p, dv_p = dq[p], dv[p]
            lo, hi, j = iv[i], iv[i + 1], parent[i]  # the first run: joint i itself
            own = True
            while True:
                # 7a, 8a (and M) for the DoFs t of the run: row p, contiguous
                for t in range(uint64(lo), uint64(hi)):
                    dq_p[t] = (
                        a0 * PsidT[0, t]
                        + a1 * PsidT[1, t]
                        + a2 * PsidT[2, t]
                        + a3 * PsidT[3, t]
                        + a4 * PsidT[4, t]
                        + a5 * PsidT[5, t]
                        + b0 * PsiddT[0, t]
                        + b1 * PsiddT[1, t]
                        + b2 * PsiddT[2, t]
                        + b3 * PsiddT[3, t]
                        + b4 * PsiddT[4, t]
                        + b5 * PsiddT[5, t]
                    )
                    dv_p[t] = (
                        a0 * SgT[0, t]
                        + a1 * SgT[1, t]
                        + a2 * SgT[2, t]
                        + a3 * SgT[3, t]
                        + a4 * SgT[4, t]
                        + a5 * SgT[5, t]
                        + b0 * SdPsidT[0, t]
                        + b1 * SdPsidT[1, t]
                        + b2 * SdPsidT[2, t]
                        + b3 * SdPsidT[3, t]
                        + b4 * SdPsidT[4, t]
                        + b5 * SdPsidT[5, t]
                    )
                if with_M:
                    for t in range(uint64(lo), uint64(hi)):
                        m = (
                            b0 * SgT[0, t]
                            + b1 * SgT[1, t]
                            + b2 * SgT[2, t]
                            + b3 * SgT[3, t]
                            + b4 * SgT[4, t]
                            + b5 * SgT[5, t]
                        )
                        M[p, t] = m
                        M[t, p] = m
                if not own:  # 7b, 8b: column p of the strict ancestors' rows
                    for t in range(uint64(lo), uint64(hi)):
                        dq[t, p] = (
                            x0 * SgT[0, t]
                            + x1 * SgT[1, t]
                            + x2 * SgT[2, t]
                            + x3 * SgT[3, t]
                            + x4 * SgT[4, t]
                            + x5 * SgT[5, t]
                        )
                        dv[t, p] = (
                            y0 * SgT[0, t]
                            + y1 * SgT[1, t]
                            + y2 * SgT[2, t]
                            + y3 * SgT[3, t]
                            + y4 * SgT[4, t]
                            + y5 * SgT[5, t]
                        )
                if j < 0:
                    break
                # the next run: joint j and the ancestors whose DoFs end where its run begins
                lo, hi, j = iv[j], iv[j + 1], parent[j]
                while j >= 0 and iv[j + 1] == lo:
                    lo, j = iv[j], parent[j]
                own = False
        p = parent[i]  # l.75-77: the composites of the parent (plain sums, ground frame)
        if p >= 0:
            for x in range(10):
                IC[p, x] += IC[i, x]
                BR[p, x] += BR[i, x]
            for x in range(6):
                hC[p, x] += hC[i, x]
                fC[p, x] += fC[i, x]


@njit(**INLINE)
def acceleration_part(topo, wf, F, qdd, dq):
    r"""``dq`` += :math:`\partial(\mathbf M(q)\ddot q)/\partial q` after :func:`first_order`.

    :math:`\boldsymbol\tau(q, \nu, \dot\nu) = \boldsymbol\tau(q, \nu, 0) + \mathbf M(q)
    \dot\nu`, so the configuration partials at :math:`\dot\nu` are those at rest
    acceleration plus eqs. 7a, 7b with :math:`\nu = 0`, no gravity and :math:`\dot\nu`
    (:math:`\mathbf B^C = 0`, :math:`\dot{\boldsymbol\psi} = 0`): for DoF ``p`` of joint
    ``i`` and ``t`` of ``j ⪯ i``, :math:`\partial_{q_t}\tau_p \mathrel{+}= (\mathbf I^C_i
    \mathbf s_p)\cdot\ddot{\boldsymbol\psi}'_t` and, for ``j ≺ i``,
    :math:`\partial_{q_p}\tau_t \mathrel{+}= \mathbf s_t\cdot(\mathbf I^C_i
    \ddot{\boldsymbol\psi}'_p + \mathbf s_p\times^*\mathbf f'^C_i)`, with
    :math:`\mathbf a'_i = \mathbf a'_{\lambda(i)} + \mathbf S_i\ddot q_i`,
    :math:`\ddot{\boldsymbol\psi}'_t = \mathbf a'_{\lambda(j)}\times\mathbf s_t` and
    :math:`\mathbf f'^C_i = \sum_{k\succeq i}\mathbf I_k\mathbf a'_k = \mathbf I^C_i
    \mathbf a'_{\lambda(i)} + \sum_{t\in\text{subtree}(i)}(\mathbf I^C_{j(t)}\mathbf s_t)
    \ddot q_t` (the columns ``F`` of :func:`first_order`; its composites ``IC`` are complete).
    Lets the forward-dynamics partials skip the ABA: :math:`\ddot q = \mathbf M^{-1}
    (\boldsymbol\tau - \boldsymbol\tau(q, \nu, 0))` from the same pass. Overwrites the
    accelerations, ``Psidd``, ``hC`` and the columns ``Y[1]`` of ``wf``.
    """
    E, r, E0, r0, vel, acc, Sg, Psid, Psidd, Sd, IC, BR, hC, fC, V6, Y = wf
    parent, iv = topo[:-1, PARENT], topo[:, IV]
    N = parent.shape[0]
    PsiddT, SgT = Y[1], Y[2]
    for i in range(N):  # a'_i and ψdd'_t (v = 0, no gravity)
        p = parent[i]
        for c in range(6):
            acc[i, c] = 0.0 if p < 0 else acc[p, c]
            hC[i, c] = 0.0
        for t in range(iv[i], iv[i + 1]):
            for c in range(6):
                Psidd[t, c] = 0.0
            if p >= 0:
                _cross_rows(acc, p, Sg, t, Psidd, t)
            for c in range(6):
                PsiddT[c, t] = Psidd[t, c]
                acc[i, c] += Sg[t, c] * qdd[t]
    fa = view(V6[0], 0, (1, 6))  # f'^C_i as a row
    for i in range(N - 1, -1, -1):
        par = parent[i]
        for t in range(iv[i], iv[i + 1]):  # g_i = Σ_{t in subtree(i)} (I^C_j(t) s_t) q̈_t
            for c in range(6):
                hC[i, c] += F[t, c] * qdd[t]
        for c in range(6):
            fa[0, c] = hC[i, c]
        if par >= 0:
            f = _inertia_rows(IC, i, acc, par)
            for c in range(6):
                fa[0, c] += f[c]
        for p in range(iv[i], iv[i + 1]):
            P1 = _inertia_rows(IC, i, Psidd, p)
            P2 = _cross_force_rows(Sg, p, fa, 0)
            b0, b1, b2, b3, b4, b5 = F[p, 0], F[p, 1], F[p, 2], F[p, 3], F[p, 4], F[p, 5]
            x0, x1, x2 = P1[0] + P2[0], P1[1] + P2[1], P1[2] + P2[2]
            x3, x4, x5 = P1[3] + P2[3], P1[4] + P2[4], P1[5] + P2[5]
            dq_p = dq[p]
            lo, hi, j = iv[i], iv[i + 1], par  # the runs of first_order
            own = True
            while True:
                for t in range(uint64(lo), uint64(hi)):
                    dq_p[t] += (
                        b0 * PsiddT[0, t]
                        + b1 * PsiddT[1, t]
                        + b2 * PsiddT[2, t]
                        + b3 * PsiddT[3, t]
                        + b4 * PsiddT[4, t]
                        + b5 * PsiddT[5, t]
                    )
                if not own:
                    for t in range(uint64(lo), uint64(hi)):
                        dq[t, p] += (
                            x0 * SgT[0, t]
                            + x1 * SgT[1, t]
                            + x2 * SgT[2, t]
                            + x3 * SgT[3, t]
                            + x4 * SgT[4, t]
                            + x5 * SgT[5, t]
                        )
                if j < 0:
                    break
                lo, hi, j = iv[j], iv[j + 1], parent[j]
                while j >= 0 and iv[j + 1] == lo:
                    lo, j = iv[j], parent[j]
                own = False
        if par >= 0:
            for c in range(6):
                hC[par, c] += hC[i, c]


# ----------------------------------------------------------------------------------------
# second order: IDSVA SO (seed 002 Alg. 1 l.12-79)
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def second_order_workspace(nv):
    """The work arrays of :func:`second_order`: ``U`` (nv, 12, 6), the vectors u1 ... u12 of
    Alg. 1 l.29-36 per DoF of the path, and ``path`` (3, nv): the DoFs of the path root →
    ``i`` (root first), and the first and one-past-last path index of each one's body.
    """
    return np.empty((max(nv, 1), 12, 6)), np.empty((3, max(nv, 1)), np.int64)


@njit(**JIT)
def _along(U2, Sg, Psid, SdPsid, pdof, pstart, pend, m, na, ip, along):
    r"""The entries of ``d2tau_dqdv`` and ``dM_dq`` that :func:`second_order`'s sweeps write
    for DoF ``ip``, contracted with ``delta`` instead of written (each entry once: the block
    of ``dM_dq`` within one joint, which both sweeps write, is taken from the second):
    ``XQV[a, c]`` += :math:`\partial^2\tau_a/\partial q_b\partial\nu_c\,\delta_b`,
    ``XM[a, l]`` += :math:`\partial M_{al}/\partial q_b\,\delta_b`. The structurally zero
    entries of ``dM_dq`` are left out.
    """
    delta, XQV, XM = along
    dp = delta[ip]
    for u in range(m):  # sweep 1: (t, r) with r of k ⪯ j
        t, jt = 12 * u, pdof[u]
        dt = delta[jt]
        for w in range(pend[u]):
            kr = pdof[w]
            if u < na:  # j ≠ i
                val = dot6_rows(U2, t, Sg, kr) + dot6_rows(U2, t + 1, SdPsid, kr)
                XQV[jt, kr] += val * dp  # d2qv(t, p, r)
                XQV[jt, ip] += dot6_rows(U2, t + 10, Psid, kr) * delta[kr]  # d2qv(t, r, p)
                if w < pstart[u]:  # (within one joint, sweep 2 writes it again)
                    XM[jt, kr] += dot6_rows(U2, t + 11, Sg, kr) * dp  # dM(t, r, p)
            if w < pstart[u]:  # k ≠ j
                val = dot6_rows(U2, t + 4, Sg, kr) + dot6_rows(U2, t + 8, SdPsid, kr)
                XQV[ip, kr] += val * dt  # d2qv(p, t, r)
    for w in range(m):  # sweep 2: (r, t) with t of j ⪰ k
        kr = pdof[w]
        dr = delta[kr]
        for u in range(pstart[w], m):
            t, jt = 12 * u, pdof[u]
            dt = delta[jt]
            XQV[ip, jt] -= dot6_rows(U2, t + 10, Psid, kr) * dr  # d2qv(p, r, t)
            if u < na:  # j ≠ i
                XM[kr, jt] += dot6_rows(U2, t + 11, Sg, kr) * dp  # dM(r, t, p)
            if u >= pend[w]:  # k ≠ j
                XQV[kr, ip] += dot6_rows(U2, t + 5, Sg, kr) * dt  # d2qv(r, t, p)
                m9 = dot6_rows(U2, t + 8, Sg, kr) * dt
                XM[kr, ip] += m9  # dM(r, p, t)
                XM[ip, kr] += m9  # dM(p, r, t)
                if u < na:
                    XQV[kr, jt] += dot6_rows(U2, t + 6, Sg, kr) * dp  # d2qv(r, p, t)


@njit(**JIT)
def second_order(topo, ws, loc, base, mcube, acube, T, dq, dv, M, so_work, along=None):
    r"""Backward pass of Alg. 1 (IDSVA SO), with the first-order partials on the way.

    ``T`` (4, L) receives ``d2tau_dq2``, ``d2tau_dv2``, ``d2tau_dqdv``, ``dM_dq`` at the
    positions given by :func:`slot` (``loc``, ``base``, ``mcube``, ``acube`` from
    :func:`~geomech.multibody._kernels.tree.layout.dense_layout` or
    :func:`~geomech.multibody._kernels.tree.layout.sparse_layout`). Every entry of the
    block-sparse layout is written (the structurally zero ones of ``dM_dq``, Alg. 1 note 5,
    as zeros); in the dense layout the entries of triples on no root-to-leaf path are not,
    and ``T`` must come zeroed. Layouts (digest §1.7):
    ``d2q[a, b, c]`` :math:`= X_c X_b\tau_a` (b differentiated first),
    ``d2qv[a, b, c]`` :math:`= \partial^2\tau_a/\partial q_b\partial\dot q_c`,
    ``dM[a, b, c]`` :math:`= \partial M_{ab}/\partial q_c`. ``dq``, ``dv``, ``M`` (nv, nv)
    receive the first-order partials (their vectors are Alg. 1's A4, A5, A7 arguments).
    ``so_work`` is :func:`second_order_workspace`. With ``along = (delta, XQV, XM)`` nothing
    is written to ``T``: the entries of ``d2tau_dqdv`` and ``dM_dq`` are contracted with
    ``delta`` as they are formed instead (:func:`_along`).

    Alg. 1 visits the DoF triples ``p`` of ``i``, ``t`` of ``j``, ``r`` of ``k`` (``k ⪯ j ⪯
    i``) in nested loops and writes each entry at once (l.42-66), every entry a dot product
    of a vector of ``(p, t)`` (u1 ... u12 of l.29-36) with one of ``r``. Here the vectors of
    every ``t`` of the path root → ``i`` are formed first (l.27-36), then the same entries
    are written in two sweeps over the pairs ``(t, r)``: the entries whose last index is
    ``r`` with ``r`` innermost, then those whose last index is ``t`` with ``t`` innermost,
    so that both write along the storage order (each entry is written once; the printed
    order strides through the output, which costs more than the arithmetic once a body's
    cube leaves the cache). Returns False when an entry may be non-finite (a vector of NaN,
    inf or beyond ``layout.SAFE``): the caller then checks the output.
    """
    E, r, E0, r0, vel, acc, Sg, Psid, Psidd, Sd, IC, BC, fC, W6, V6, SdPsid = ws
    U, path = so_work
    U2 = U.reshape(U.shape[0] * 12, 6)  # row 12 u + n: u_{n+1} of the path's DoF u
    pdof, pstart, pend = path[0], path[1], path[2]
    parent, iv = topo[:-1, PARENT], topo[:, IV]
    N = parent.shape[0]
    BCsp, BCpsp, A0, A1, A2, A3, A4, A5, A6, A7 = (
        W6[0],
        W6[1],
        W6[2],
        W6[3],
        W6[4],
        W6[5],
        W6[6],
        W6[7],
        W6[8],
        W6[9],
    )
    h, u_a, u_b, w1, w2, tmp = V6[0], V6[1], V6[2], V6[3], V6[4], V6[5]
    d2q, d2v, d2qv, dM = T[0], T[1], T[2], T[3]
    big = 0.0  # the largest |entry| of the vectors dotted below
    for k in range(iv[N]):
        for c in range(6):
            SdPsid[k, c] = Sd[k, c] + Psid[k, c]
    big = largest(Sg, big)
    big = largest(Psid, big)
    big = largest(Psidd, big)
    big = largest(SdPsid, big)
    for i in range(N - 1, -1, -1):  # l.12
        bi, mi, ai = base[i], mcube[i], acube[i]
        # the DoFs of the path root -> i, root first (l.26-28, l.38-41 run over them): DoF
        # u of body j has j ≠ i iff u < na, and k = j for the DoFs w in [pstart[u], pend[u])
        m, j = 0, i
        while j >= 0:
            m += iv[j + 1] - iv[j]
            j = parent[j]
        na = m - (iv[i + 1] - iv[i])
        j, e = i, m
        while j >= 0:
            s0 = e - (iv[j + 1] - iv[j])
            for u in range(s0, e):
                pdof[u] = iv[j] + u - s0
                pstart[u] = s0
                pend[u] = e
            e = s0
            j = parent[j]
        for ip in range(iv[i], iv[i + 1]):  # l.13-14
            s_p, psid_p = Sg[ip], Psid[ip]
            li = loc[ip]
            # ---- the first-order vectors (seed 002 eqs. 7-8) -----------------------------
            _first_order_vectors(
                IC[i], BC[i], fC[i], s_p, psid_p, Psidd[ip], Sd[ip], u_a, u_b, w1, w2, tmp
            )
            # ---- l.15-24: the p-dependent 6x6 matrices -----------------------------------
            coriolis_factor(IC[i], s_p, h, BCsp)  # l.15: B^C_i(s_p)
            coriolis_factor(IC[i], psid_p, h, BCpsp)  # l.16: B^C_i(ψd_p)
            for x in range(6):
                for y in range(6):
                    A0[x, y] = 0.0
                    A1[x, y] = 0.0
                    A3[x, y] = BCpsp[x, y]
                    A4[x, y] = 0.0
                    A5[x, y] = 0.0
                    A7[x, y] = 0.0
            crbar_add(u_b, A0, 1.0)  # l.17: A0 = (I^C s_p) ×̄*
            crf_left(s_p, IC[i], A1)  # l.18: A1 = s_p ×* I^C − I^C (s_p ×)
            crm_right(IC[i], s_p, A1)
            crf_left(s_p, BC[i], A3)  # l.20: A3 = B^C(ψd_p) + s_p ×* B^C − B^C (s_p ×)
            crm_right(BC[i], s_p, A3)
            crbar_add(u_a, A4, 1.0)  # l.21: A4 = (B^Cᵀ s_p) ×̄*
            crbar_add(w1, A5, 1.0)  # l.22: A5 = (B^C ψd_p + I^C ψdd_p + s_p ×* f^C) ×̄*
            crbar_add(w2, A7, 1.0)  # l.24: A7 = (B^C s_p + I^C (ψd_p + sd_p)) ×̄*
            for x in range(6):
                for y in range(6):
                    A2[x, y] = 2.0 * A0[x, y] - BCsp[x, y]  # l.19
                    A6[x, y] = A0[x, y]
            crf_left(s_p, IC[i], A6)  # l.23: A6 = s_p ×* I^C + A0
            for u in range(m):  # l.25-28: every DoF t of j ⪯ i
                jt = pdof[u]
                s_t, psid_t, psidd_t, sdpsid_t = Sg[jt], Psid[jt], Psidd[jt], SdPsid[jt]
                # first order (7a, 8a, eq. 16; 7b, 8b for j ≺ i)
                dq[ip, jt] = dot6(u_a, psid_t) + dot6(u_b, psidd_t)
                dv[ip, jt] = dot6(u_a, s_t) + dot6(u_b, sdpsid_t)
                mval = dot6(s_t, u_b)
                M[jt, ip] = mval
                M[ip, jt] = mval
                if u < na:
                    dq[jt, ip] = dot6(s_t, w1)
                    dv[jt, ip] = dot6(s_t, w2)
                # l.29-36: U[u, n] = u_{n+1}
                Ut = U[u]
                for n in range(12):
                    for c in range(6):
                        Ut[n, c] = 0.0
                matTvec6_add(A3, s_t, 1.0, Ut[0])
                matTvec6_add(A1, s_t, 1.0, Ut[1])
                matvec6_add(A3, psid_t, 1.0, Ut[2])
                matvec6_add(A1, psidd_t, 1.0, Ut[2])
                matvec6_add(A5, s_t, 1.0, Ut[2])
                matvec6_add(A6, s_t, 1.0, Ut[3])
                matvec6_add(A2, psid_t, 1.0, Ut[4])
                matvec6_add(A4, s_t, 1.0, Ut[4])
                matvec6_add(BCsp, psid_t, 1.0, Ut[5])
                matvec6_add(A7, s_t, 1.0, Ut[5])
                matvec6_add(A3, s_t, 1.0, Ut[6])
                matvec6_add(A1, sdpsid_t, 1.0, Ut[6])
                matvec6_add(A4, s_t, 1.0, Ut[7])
                matTvec6_add(BCsp, psid_t, -1.0, Ut[7])
                matvec6_add(A0, s_t, 1.0, Ut[8])
                matvec6_add(BCsp, s_t, 1.0, Ut[9])
                matTvec6_add(BCsp, s_t, 1.0, Ut[10])
                matvec6_add(A1, s_t, 1.0, Ut[11])
            big = largest(U[:m], big)
            if along is not None:
                _along(U2, Sg, Psid, SdPsid, pdof, pstart, pend, m, na, ip, along)
                continue
            # ---- l.42-66, sweep 1: the entries whose last index is r (or r, then p) -------
            # (rows of U, Sg, Psid, Psidd, SdPsid by index: views in these loops cost more
            # than their dot products)
            for u in range(m):  # t of j (lj), then r of k ⪯ j (lk) innermost
                t, lj = 12 * u, loc[pdof[u]]
                for w in range(pend[u]):
                    kr = pdof[w]
                    lk = loc[kr]
                    d2q[slot(bi, mi, ai, li, lj, lk)] = dot6_rows(U2, t + 7, Psid, kr) + dot6_rows(
                        U2, t + 8, Psidd, kr
                    )
                    dM[slot(bi, mi, ai, li, lj, lk)] = 0.0  # ∂M_ij/∂q_k = 0 for k ⪯ j
                    if u < na:  # j ≠ i: l.45-50
                        val = dot6_rows(U2, t, Psid, kr) + dot6_rows(U2, t + 1, Psidd, kr)
                        d2q[slot(bi, mi, ai, lj, lk, li)] = val
                        d2q[slot(bi, mi, ai, lj, li, lk)] = val
                        d2qv[slot(bi, mi, ai, lj, li, lk)] = dot6_rows(U2, t, Sg, kr) + dot6_rows(
                            U2, t + 1, SdPsid, kr
                        )
                        d2qv[slot(bi, mi, ai, lj, lk, li)] = dot6_rows(U2, t + 10, Psid, kr)
                        val = dot6_rows(U2, t + 10, Sg, kr)
                        d2v[slot(bi, mi, ai, lj, lk, li)] = val
                        d2v[slot(bi, mi, ai, lj, li, lk)] = val
                        dM[slot(bi, mi, ai, lj, lk, li)] = dot6_rows(U2, t + 11, Sg, kr)
                        dM[slot(bi, mi, ai, lj, li, lk)] = 0.0  # ∂M_ji/∂q_k = 0 for k ⪯ j
                    if w < pstart[u]:  # k ≠ j: l.52-64
                        d2v[slot(bi, mi, ai, li, lj, lk)] = -dot6_rows(U2, t + 10, Sg, kr)
                        val = dot6_rows(U2, t + 4, Sg, kr) + dot6_rows(U2, t + 8, SdPsid, kr)
                        d2qv[slot(bi, mi, ai, li, lj, lk)] = val
                    else:  # l.65-66
                        d2v[slot(bi, mi, ai, li, lj, lk)] = -dot6_rows(U2, t + 1, Sg, kr)
            # ---- sweep 2: the entries whose last index is t (or t, then p) ---------------
            for w in range(m):  # r of k (lk), then t of j ⪰ k (lj) innermost
                kr = pdof[w]
                lk = loc[kr]
                for u in range(pstart[w], m):
                    t, lj = 12 * u, loc[pdof[u]]
                    d2qv[slot(bi, mi, ai, li, lk, lj)] = -dot6_rows(U2, t + 10, Psid, kr)  # l.44
                    if u < na:  # j ≠ i
                        dM[slot(bi, mi, ai, lk, lj, li)] = dot6_rows(U2, t + 11, Sg, kr)
                    if u >= pend[w]:  # k ≠ j: l.52-64
                        val = dot6_rows(U2, t + 7, Psid, kr) + dot6_rows(U2, t + 8, Psidd, kr)
                        d2q[slot(bi, mi, ai, li, lk, lj)] = val
                        val = dot6_rows(U2, t + 2, Sg, kr)
                        d2q[slot(bi, mi, ai, lk, li, lj)] = val
                        d2v[slot(bi, mi, ai, li, lk, lj)] = -dot6_rows(U2, t + 10, Sg, kr)
                        d2qv[slot(bi, mi, ai, lk, lj, li)] = dot6_rows(U2, t + 5, Sg, kr)
                        m9 = dot6_rows(U2, t + 8, Sg, kr)
                        dM[slot(bi, mi, ai, lk, li, lj)] = m9
                        dM[slot(bi, mi, ai, li, lk, lj)] = m9
                        if u < na:
                            d2q[slot(bi, mi, ai, lk, lj, li)] = val
                            d2qv[slot(bi, mi, ai, lk, li, lj)] = dot6_rows(U2, t + 6, Sg, kr)
                            m10 = dot6_rows(U2, t + 9, Sg, kr)
                            d2v[slot(bi, mi, ai, lk, li, lj)] = m10
                            d2v[slot(bi, mi, ai, lk, lj, li)] = m10
                        else:
                            d2v[slot(bi, mi, ai, lk, lj, li)] = dot6_rows(U2, t + 3, Sg, kr)
        _accumulate(parent, i, IC, BC, fC)  # l.75-77
    return big <= SAFE


# ----------------------------------------------------------------------------------------
# batch drivers
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def _zero(x):
    for k in range(x.size):
        x.flat[k] = 0.0


#: the per-state cores and the single-state entry points are compiled without numba's reference
#: counting (``_nrt=False``, handed down to the callees numba compiles for them): the arrays they
#: are given are unboxed without a ``meminfo`` and every view and call inside them costs no
#: atomic count. They allocate nothing (work arrays on the stack, :data:`STACK_D`, or from the
#: caller); the helpers that need the runtime (a heap buffer, BLAS) are compiled with it
#: (``RUNTIME``). One core per algorithm, called (not inlined) by its single-state entry and by
#: its batch driver: compiled once. (``jit.FMA_BATCH``: the options without the runtime.)
RUNTIME = dict(FMA, _nrt=True)
#: entries of the stack buffer of the single-state entry points (24 KiB: the work of Solo-12's
#: forward partials); larger models take a heap buffer. The compile time of an entry point grows
#: with it (LLVM: 1 s at 2048 entries, 3.4 s at 4096, 6.5 s at 8192)
STACK_D = 3072


@njit(**INLINE)
def first_size(N, nv):
    """The float64 entries of :func:`first_workspace` (:func:`_first_shapes`)."""
    return 68 * N + 48 * nv + 48


@njit(**INLINE)
def aba_size(N, nv):
    """The float64 entries of :func:`aba_first`'s work: the first-order work arrays, ``M``
    (nv, nv; its factor in place), ``F`` (nv, 6), ``qdd`` (nv,), the integers ``lam``, ``lo``
    (nv,) of the factorisation, and from :data:`BLAS_MIN_NV` speeds on ``X`` (nv, 3 nv).
    """
    return first_size(N, nv) + nv * nv + 9 * nv + (3 * nv * nv if nv >= BLAS_MIN_NV else 0)


@njit(**FMA_BATCH)
def rnea_first(topo, packed, q, v, a, a0, f_ext, DQ, DV, M, tau, F, buf):
    r"""IDSVA FO for one state (:func:`forward_pass_first`, :func:`first_order`); a status.

    ``DQ``, ``DV`` (nv, nv) receive :math:`\partial\tau/\partial q`,
    :math:`\partial\tau/\partial\nu` (zeroed here: the blocks of unrelated joints are not
    written); ``M``, ``tau``, ``F`` as :func:`first_order` (each skipped when it has no rows;
    ``M`` must come zeroed); ``buf`` at least :func:`first_size` entries, its views the work
    arrays (``wf``) that :func:`acceleration_part` reads after it. The model is ``packed``
    (``CompiledModel.packed``), ``a0`` the world's acceleration of the state.
    """
    placement, jparam, inertia, S, S_ring, T_user, _ = unpack(topo, packed)
    N, nv = topo.shape[0] - 1, topo[-1, IV]
    wf = _first_tuple(borrow(buf, 0, _first_shapes(N, nv)))
    for x in range(nv):
        for y in range(nv):
            DQ[x, y] = 0.0
            DV[x, y] = 0.0
    st = forward_pass_first(topo, placement, jparam, inertia, S, T_user, q, v, a, a0, f_ext, wf)
    if st != OK:
        return st
    first_order(topo, wf, DQ, DV, M, tau, F)
    if not (finite_matrix(DQ) and finite_matrix(DV)):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**FMA)
def rnea_derivatives_batch(topo, packed, Q, V, A, A0, F_ext, DQ, DV, status):
    """First-order partials of RNEA over a batch: ``DQ``, ``DV``, each (B, nv, nv); the rows
    borrowed, one work buffer; first failure + 1.
    """
    N, nv = topo.shape[0] - 1, topo[-1, IV]
    buf = np.empty(first_size(N, nv))
    none, none1 = np.empty((0, 6)), np.empty(0)  # M, tau and the columns I^C s: not wanted
    for b in range(status.shape[0]):
        status[b] = rnea_first(
            topo,
            packed,
            row(Q, b),
            row(V, b),
            row(A, b),
            row(A0, b),
            row(F_ext, b),
            row(DQ, b),
            row(DV, b),
            none,
            none1,
            none,
            buf,
        )
    return first_failure(status)


@njit(**RUNTIME)
def _rnea_one_heap(topo, packed, q, v, a, a0, f_ext, DQ, DV, none, none1):
    """:func:`rnea_first` with its work on the heap (models beyond :data:`STACK_D`)."""
    N, nv = topo.shape[0] - 1, topo[-1, IV]
    buf = np.empty(first_size(N, nv))
    return rnea_first(topo, packed, q, v, a, a0, f_ext, DQ, DV, none, none1, none, buf)


@njit(**FMA_BATCH)
def rnea_derivatives_one(topo, packed, q, v, a, D):
    """First-order partials of RNEA for one state without external forces, the model packed
    (``CompiledModel.packed``): ``D`` (2, nv, nv) receives ``dtau_dq``, ``dtau_dv`` (one
    output array); ``NOT_A_VECTOR`` unless ``q``, ``v``, ``a`` are contiguous vectors of the
    model's sizes.
    """
    N = topo.shape[0] - 1
    nq, nv = topo[N, IQ], topo[N, IV]
    if not (is_vector(q, nq) and is_vector(v, nv) and is_vector(a, nv)):
        return NOT_A_VECTOR
    a0 = unpack(topo, packed)[6]
    buf = stack(STACK_D)
    none, none1 = borrow(buf, 0, ((0, 6), (0,)))  # no external forces, M, tau, F (no rows)
    DQ, DV = row(D, 0), row(D, 1)
    if first_size(N, nv) > STACK_D:
        return _rnea_one_heap(topo, packed, q, v, a, a0, none, DQ, DV, none, none1)
    return rnea_first(topo, packed, q, v, a, a0, none, DQ, DV, none, none1, none, buf)


@njit(**JIT)
def rnea_second_derivatives_batch(
    topo,
    placement,
    jparam,
    inertia,
    S,
    T_user,
    loc,
    base,
    mcube,
    acube,
    Q,
    V,
    A,
    A0,
    F_ext,
    T,
    status,
):
    """IDSVA SO over a batch: ``T`` (B, 4, L) in the layout ``(loc, base, mcube, acube)``.

    In the dense layout ``T`` must come zeroed (``np.zeros``; the entries of triples on no
    root-to-leaf path are not written); the block-sparse one is written whole.
    """
    N, nv = topo.shape[0] - 1, topo[-1, IV]
    ws = workspace(N, nv)
    so_work = second_order_workspace(nv)
    dq, dv, M = np.empty((nv, nv)), np.empty((nv, nv)), np.empty((nv, nv))
    for b in range(status.shape[0]):
        st = forward_pass(
            topo,
            placement,
            jparam,
            inertia,
            S,
            T_user,
            at(Q, b),
            at(V, b),
            at(A, b),
            at(A0, b),
            at(F_ext, b),
            ws,
        )
        if st == OK:
            safe = second_order(topo, ws, loc, base, mcube, acube, T[b], dq, dv, M, so_work)
            if not (safe or all_finite(T[b])):
                st = pack(NON_FINITE_RESULT, -1)
        status[b] = st
    return first_failure(status)


@njit(**JIT)
def rnea_second_along_batch(
    topo, placement, jparam, inertia, S, T_user, Q, V, A, A0, F_ext, DELTA, XQV, XM, status
):
    r"""IDSVA SO contracted with a direction as it runs, over a batch, without the tensors:
    ``XQV[b]`` :math:`= \sum_c \partial^2\tau/\partial q_c\partial\nu\,\delta_c`,
    ``XM[b]`` :math:`= \sum_c \partial\mathbf M/\partial q_c\,\delta_c` (each (B, nv, nv),
    zeroed), ``delta = DELTA[b]``: :math:`O(Nd^2)` work, :math:`O(n_v^2)` memory.
    """
    N, nv = topo.shape[0] - 1, topo[-1, IV]
    ws = workspace(N, nv)
    so_work = second_order_workspace(nv)
    dq, dv, M = np.empty((nv, nv)), np.empty((nv, nv)), np.empty((nv, nv))
    loc, cube, T = np.zeros(nv, np.int64), np.zeros(N, np.int64), np.empty((4, 0))
    for b in range(status.shape[0]):
        st = forward_pass(
            topo,
            placement,
            jparam,
            inertia,
            S,
            T_user,
            at(Q, b),
            at(V, b),
            at(A, b),
            at(A0, b),
            at(F_ext, b),
            ws,
        )
        if st == OK:
            along = (at(DELTA, b), XQV[b], XM[b])
            second_order(topo, ws, loc, cube, cube, cube, T, dq, dv, M, so_work, along)
            if not (all_finite(XQV[b]) and all_finite(XM[b])):
                st = pack(NON_FINITE_RESULT, -1)
        status[b] = st
    return first_failure(status)


@njit(**JIT)
def dof_parents(topo):
    """The expanded parent array of the DoFs (Featherstone 2008, §6.5).

    ``lam[k]`` is the DoF before ``k`` on the path to the root (the previous DoF of its
    joint, else the last DoF of the nearest ancestor joint that has DoFs), −1 for none;
    ``lam[k] < k``.
    """
    lam = np.empty(topo[-1, IV], dtype=np.int64)
    _dof_parents(topo, lam)
    return lam


@njit(**INLINE)
def _dof_parents(topo, lam):
    """:func:`dof_parents` into ``lam``."""
    parent, iv = topo[:-1, PARENT], topo[:, IV]
    N = parent.shape[0]
    for i in range(N):
        p = parent[i]
        while p >= 0 and iv[p + 1] == iv[p]:  # skip joints without DoFs
            p = parent[p]
        prev = iv[p + 1] - 1 if p >= 0 else -1
        for k in range(iv[i], iv[i + 1]):
            lam[k] = prev
            prev = k


@njit(**INLINE)
def _runs(lam, lo):
    """``lo[k]``: the first DoF of the run of consecutive DoFs ending at ``k`` on its path
    (``lam[m] = m - 1`` for ``lo[k] < m ≤ k``): the path of ``k`` is the ranges
    ``lo[k]..k``, then ``lo[j]..j`` from ``j = lam[lo[k]]``, … (one range for a chain), so the
    walks of the factorisation are contiguous loops that vectorise.
    """
    for k in range(lam.shape[0]):
        lo[k] = lo[k - 1] if k > 0 and lam[k] == k - 1 else k


@njit(**FMA)
def _ltl(M, L, lam, lo, iv):
    r"""Sparse :math:`\mathbf M = \mathbf L^\top\mathbf L` of a mass matrix (Featherstone 2008,
    Table 6.3), ``L`` lower triangular with the branch-induced sparsity of ``M``; a status.

    Only the entries ``L[k, j]`` with ``j`` on the DoF path of ``k`` (``lam``, its runs ``lo``,
    :func:`_runs`) are written and read. SINGULAR names the body of the first pivot that is not
    positive (relative to the largest diagonal entry). :math:`O(n d^2)` for a DoF depth ``d``.
    """
    n = M.shape[0]
    scale = 0.0
    for k in range(n):
        scale = max(scale, abs(M[k, k]))
        j = k
        while j >= 0:  # the path of k, run by run
            for m in range(lo[j], j + 1):
                L[k, m] = M[k, m]
            j = lam[lo[j]]
    for k in range(n - 1, -1, -1):
        if not L[k, k] > 1e-14 * scale:
            body = 0
            while iv[body + 1] <= k:
                body += 1
            return pack(SINGULAR, body)
        d = np.sqrt(L[k, k])
        L[k, k] = d
        i = lam[k]
        while i >= 0:
            for m in range(lo[i], i + 1):
                L[k, m] /= d
            i = lam[lo[i]]
        i = lam[k]
        while i >= 0:
            lki = L[k, i]
            j = i
            while j >= 0:  # L[i, path of i] -= L[k, i] L[k, path of i]
                for m in range(lo[j], j + 1):
                    L[i, m] -= lki * L[k, m]
                j = lam[lo[j]]
            i = lam[i]
    return OK


@njit(**JIT)
def _ltl_solve(L, lam, X):
    r"""``X ← M⁻¹ X`` in place for :math:`\mathbf M = \mathbf L^\top\mathbf L` (Featherstone 2008,
    Table 6.4), row by row: each step is an axpy on a contiguous row of ``X`` (n, m).
    """
    n, m = X.shape
    for i in range(n - 1, -1, -1):  # Lᵀ Y = X: Y_i = X_i / L_ii, then X_j -= L_ij Y_i up the path
        d = 1.0 / L[i, i]
        for c in range(m):
            X[i, c] *= d
        j = lam[i]
        while j >= 0:
            lij = L[i, j]
            for c in range(m):
                X[j, c] -= lij * X[i, c]
            j = lam[j]
    for i in range(n):  # L Z = Y: Z_i = (Y_i − Σ_{j on the path} L_ij Z_j) / L_ii
        j = lam[i]
        while j >= 0:
            lij = L[i, j]
            for c in range(m):
                X[i, c] -= lij * X[j, c]
            j = lam[j]
        d = 1.0 / L[i, i]
        for c in range(m):
            X[i, c] *= d


@njit(**INLINE)
def _ltl_solve_vector(L, lam, x):
    r""":func:`_ltl_solve` of one vector ``x`` (n,) in place: scalar updates (a loop of one
    column per update cost Solo-12's ∂ABA 0.3 µs).
    """
    n = x.shape[0]
    for i in range(n - 1, -1, -1):  # Lᵀ y = x
        xi = x[i] / L[i, i]
        x[i] = xi
        j = lam[i]
        while j >= 0:
            x[j] -= L[i, j] * xi
            j = lam[j]
    for i in range(n):  # L z = y
        s = x[i]
        j = lam[i]
        while j >= 0:
            s -= L[i, j] * x[j]
            j = lam[j]
        x[i] = s / L[i, i]


#: from this many speeds on, the forward-dynamics partials are matrix products (BLAS)
BLAS_MIN_NV = 24


@njit(**FMA)
def _ltl_inverse(L, lam, lo, Linv):
    r"""``Linv`` :math:`= \mathbf L^{-1}` of the factor of :func:`_ltl` (lower triangular, with
    the sparsity of ``L``: ``Linv[k, j] ≠ 0`` only for ``j`` on the DoF path of ``k``).

    Row by row, :math:`(\mathbf L^{-1})_{kj} = (\delta_{kj} - \sum_{j\preceq m\prec k}
    L_{km}(\mathbf L^{-1})_{mj})/L_{kk}`, walking the path: :math:`O(n d^2)`.
    """
    n = L.shape[0]
    for k in range(n):
        for j in range(n):
            Linv[k, j] = 0.0
    for k in range(n):
        d = 1.0 / L[k, k]
        Linv[k, k] = d
        m = lam[k]
        while m >= 0:
            lkm = L[k, m] * d
            j = m
            while j >= 0:  # the path of m, run by run
                for c in range(lo[j], j + 1):
                    Linv[k, c] -= lkm * Linv[m, c]
                j = lam[lo[j]]
            m = lam[m]


@njit(**RUNTIME)
def _blas_partials(L, lam, lo, X, dqdd_dq, dqdd_dv, Minv):
    """:func:`_forward_partials` from :data:`BLAS_MIN_NV` speeds on (numba's ``np.dot``:
    compiled with the runtime); ``X`` (nv, 3 nv) work space.
    """
    n = L.shape[0]
    Linv, dq, dv = borrow(X.reshape(X.size), 0, ((n, n), (n, n), (n, n)))
    for i in range(n):
        for c in range(n):
            dq[i, c] = dqdd_dq[i, c]
            dv[i, c] = dqdd_dv[i, c]
    _ltl_inverse(L, lam, lo, Linv)
    np.dot(Linv, Linv.T, Minv)
    np.dot(Minv, dq, dqdd_dq)
    np.dot(Minv, dv, dqdd_dv)
    for i in range(n):
        for c in range(n):
            dqdd_dq[i, c] = -dqdd_dq[i, c]
            dqdd_dv[i, c] = -dqdd_dv[i, c]


@njit(**INLINE)
def _forward_partials(L, lam, lo, X, dqdd_dq, dqdd_dv, Minv):
    r"""``dq̈/dq = −M⁻¹ ∂τ/∂q``, ``dq̈/dν = −M⁻¹ ∂τ/∂ν`` in place of ``∂τ/∂q``, ``∂τ/∂ν``
    (``dqdd_dq``, ``dqdd_dv`` hold them on entry), and ``Minv`` :math:`= \mathbf M^{-1}`;
    whether all three are finite.

    Small models: sparse solves (:func:`_ltl_solve`) of the two partials and of the identity,
    in place (skipping the identity's zeros and the symmetry measured slower: short loops), the
    negation fused with the finiteness check. From :data:`BLAS_MIN_NV` speeds on, as Pinocchio:
    :math:`\mathbf M^{-1} = \mathbf L^{-1}\mathbf L^{-\top}` from the sparse inverse of the
    factor (:func:`_ltl_inverse`), then two matrix products (BLAS) instead of the sparse
    solves' :math:`O(n^2 d)` scalar updates (``X`` (nv, 3 nv) their work space).
    """
    n = L.shape[0]
    if n >= BLAS_MIN_NV:
        _blas_partials(L, lam, lo, X, dqdd_dq, dqdd_dv, Minv)
        return finite_matrix(dqdd_dq) and finite_matrix(dqdd_dv) and finite_matrix(Minv)
    for i in range(n):
        for c in range(n):
            Minv[i, c] = 0.0
        Minv[i, i] = 1.0
    _ltl_solve(L, lam, dqdd_dq)
    _ltl_solve(L, lam, dqdd_dv)
    _ltl_solve(L, lam, Minv)
    bad = False
    for i in range(n):
        for c in range(n):
            x, y = -dqdd_dq[i, c], -dqdd_dv[i, c]
            dqdd_dq[i, c] = x
            dqdd_dv[i, c] = y
            bad |= ((x - x) != 0.0) | ((y - y) != 0.0) | ((Minv[i, c] - Minv[i, c]) != 0.0)
    return not bad


@njit(**FMA_BATCH)
def aba_first(topo, packed, q, v, tau, a0, f_ext, dqdd_dq, dqdd_dv, Minv, buf):
    r"""Forward-dynamics partials of one state; a status.

    One IDSVA FO pass at :math:`\dot\nu = 0` (:func:`rnea_first`) gives
    :math:`\partial\boldsymbol\tau/\partial q` there, :math:`\partial\boldsymbol\tau/
    \partial\nu` (independent of :math:`\dot\nu`), :math:`\mathbf M` and the bias
    :math:`\boldsymbol\tau(q, \nu, 0)`; then :math:`\ddot q = \mathbf M^{-1}(\boldsymbol\tau
    - \boldsymbol\tau(q, \nu, 0))` by the sparse :math:`\mathbf L^\top\mathbf L` factor
    (:func:`_ltl`, in place of :math:`\mathbf M`), :func:`acceleration_part` moves
    :math:`\partial\boldsymbol\tau/\partial q` to :math:`\ddot q`, and :math:`d\ddot q =
    -\mathbf M^{-1}(\partial\boldsymbol\tau/\partial q, \partial\boldsymbol\tau/\partial\nu)`,
    :math:`\mathbf M^{-1}` (the ABA itself is not run), the partials of :math:`\boldsymbol\tau`
    formed in the outputs and solved there. :math:`\mathbf M` includes the joints' armature
    :math:`\mathrm{diag}(\mathbf k_a)`, which adds nothing to the partials of
    :math:`\boldsymbol\tau` in :math:`q` and :math:`\nu`. ``buf``: at least :func:`aba_size`
    entries (its views the work arrays).
    """
    N, nv = topo.shape[0] - 1, topo[-1, IV]
    if not finite_vector(tau):
        return pack(NON_FINITE_INPUT, -1)
    n0 = first_size(N, nv)
    M, F, qdd = borrow(buf, n0, ((nv, nv), (nv, 6), (nv,)))
    n1 = n0 + nv * nv + 7 * nv  # the integers after the float arrays
    lam, lo = int_view(buf, n1, nv), int_view(buf, n1 + nv, nv)
    X = borrow(buf, n1 + 2 * nv, ((nv, 3 * nv if nv >= BLAS_MIN_NV else 0),))[0]
    for k in range(nv):
        qdd[k] = 0.0
    for x in range(nv):
        for y in range(nv):
            M[x, y] = 0.0
    # ∂τ/∂q, ∂τ/∂ν into the outputs; qdd receives tau(q, v, 0)
    st = rnea_first(topo, packed, q, v, qdd, a0, f_ext, dqdd_dq, dqdd_dv, M, qdd, F, buf)
    if st != OK:
        return st
    jparam = unpack(topo, packed)[1]
    iv = topo[:, IV]
    for i in range(N):  # + diag(k_a): the armature (k_a ν̇ has no q, ν partials)
        for k in range(iv[i], iv[i + 1]):
            M[k, k] += jparam[i, ARMATURE + k - iv[i]]
    _dof_parents(topo, lam)
    _runs(lam, lo)
    st = _ltl(M, M, lam, lo, iv)  # L in place of M
    if st != OK:
        return st
    for k in range(nv):
        qdd[k] = tau[k] - qdd[k]
    _ltl_solve_vector(M, lam, qdd)
    wf = _first_tuple(borrow(buf, 0, _first_shapes(N, nv)))
    acceleration_part(topo, wf, F, qdd, dqdd_dq)
    if not _forward_partials(M, lam, lo, X, dqdd_dq, dqdd_dv, Minv):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**FMA)
def aba_derivatives_batch(topo, packed, Q, V, TAU, A0, F_ext, DQ, DV, MINV, status):
    """Forward-dynamics partials over a batch: ``DQ``, ``DV``, ``MINV`` (B, nv, nv); the rows
    borrowed, one work buffer; first failure + 1.
    """
    buf = np.empty(aba_size(topo.shape[0] - 1, topo[-1, IV]))
    for b in range(status.shape[0]):
        status[b] = aba_first(
            topo,
            packed,
            row(Q, b),
            row(V, b),
            row(TAU, b),
            row(A0, b),
            row(F_ext, b),
            row(DQ, b),
            row(DV, b),
            row(MINV, b),
            buf,
        )
    return first_failure(status)


@njit(**RUNTIME)
def _aba_one_heap(topo, packed, q, v, tau, a0, f_ext, DQ, DV, MINV):
    """:func:`aba_first` with its work on the heap (models beyond :data:`STACK_D`)."""
    buf = np.empty(aba_size(topo.shape[0] - 1, topo[-1, IV]))
    return aba_first(topo, packed, q, v, tau, a0, f_ext, DQ, DV, MINV, buf)


@njit(**FMA_BATCH)
def aba_derivatives_one(topo, packed, q, v, tau, D):
    """Forward-dynamics partials for one state without external forces, the model packed
    (``CompiledModel.packed``): ``D`` (3, nv, nv) receives ``dqdd_dq``, ``dqdd_dv``, ``M⁻¹``;
    ``NOT_A_VECTOR`` unless ``q``, ``v``, ``tau`` are contiguous vectors of the model's sizes.
    """
    N = topo.shape[0] - 1
    nq, nv = topo[N, IQ], topo[N, IV]
    if not (is_vector(q, nq) and is_vector(v, nv) and is_vector(tau, nv)):
        return NOT_A_VECTOR
    a0 = unpack(topo, packed)[6]
    buf = stack(STACK_D)
    none = borrow(buf, 0, ((0, 6),))[0]  # no external forces
    DQ, DV, MINV = row(D, 0), row(D, 1), row(D, 2)
    if aba_size(N, nv) > STACK_D:
        return _aba_one_heap(topo, packed, q, v, tau, a0, none, DQ, DV, MINV)
    return aba_first(topo, packed, q, v, tau, a0, none, DQ, DV, MINV, buf)


@njit(**JIT)
def aba_second_derivatives_batch(
    topo,
    placement,
    jparam,
    inertia,
    S,
    S_ring,
    T_user,
    loc,
    base,
    mcube,
    acube,
    Q,
    V,
    TAU,
    A0,
    F_ext,
    QDD,
    DQ,
    DV,
    MINV,
    T,
    status,
):
    """Inverse-dynamics partials at q̈ = ABA for the chain rule, over a batch.

    Fills ``QDD``, ``DQ``, ``DV`` (∂τ, not ∂q̈), ``MINV`` and the second-order ``T`` (B, 4, L);
    ``DQ``, ``DV`` and ``T`` must come zeroed.
    """
    N, nv = topo.shape[0] - 1, topo[-1, IV]
    ws = workspace(N, nv)
    so_work = second_order_workspace(nv)
    M, L = np.empty((nv, nv)), np.empty((nv, nv))
    lam, lo = dof_parents(topo), np.empty(nv, np.int64)
    _runs(lam, lo)
    for b in range(status.shape[0]):
        safe = True
        st = aba(
            topo,
            placement,
            jparam,
            inertia,
            S,
            S_ring,
            T_user,
            at(Q, b),
            at(V, b),
            at(TAU, b),
            at(A0, b),
            at(F_ext, b),
            QDD[b],
        )
        if st == OK:
            _zero(M)
            st = forward_pass(
                topo,
                placement,
                jparam,
                inertia,
                S,
                T_user,
                at(Q, b),
                at(V, b),
                QDD[b],
                at(A0, b),
                at(F_ext, b),
                ws,
            )
        if st == OK:
            safe = second_order(topo, ws, loc, base, mcube, acube, T[b], DQ[b], DV[b], M, so_work)
            st = _ltl(M, L, lam, lo, topo[:, IV])
        if st == OK:
            mi = MINV[b]
            for x in range(nv):
                for y in range(nv):
                    mi[x, y] = 1.0 if x == y else 0.0
            _ltl_solve(L, lam, mi)
            if not ((safe or all_finite(T[b])) and all_finite(mi)):
                st = pack(NON_FINITE_RESULT, -1)
        status[b] = st
    return first_failure(status)
