r"""Frame kinematics kernels: placements, twists, accelerations, Jacobians and their rates.

A frame ``f`` is fixed in body ``i`` (``-1``: fixed in the world) at the pose ``Tf =
[R_bf | p_bf]`` (3×4) in body ``i``'s frame. Every kernel evaluates the support
:math:`\kappa(i)` only, the bodies from the root to ``i`` (Featherstone 2008, §4.1): a
compact copy of the model's arrays for those bodies is made once per frame
(:func:`support_arrays`), so that one call of
:func:`~geomech.multibody._kernels.tree.kinematics.tree_transforms` on the gathered ``q`` gives
their transforms, then their world poses and, when needed, twists and accelerations follow:
:math:`O(d)` for depth ``d`` (a Jacobian :math:`O(d\,n_v)`). Only the joints of the
support are read (a quaternion elsewhere is not checked). The frame's arguments:

``fsel`` (int64)
    ``[body, reference, classical, n, nq_c, chain (n), jtype (n), iq (n + 1), qidx (nq_c)]``:
    the support ``chain`` (root first), its joints' type codes, the offsets of their blocks
    in the gathered configuration ``q_c = q[qidx]``;
``fpack`` (float64)
    ``[Tf (12), placement (12 n), jparam (JPARAM_COLUMNS n)]``: the frame pose, the support rows
    of the compiled model's ``placement`` and ``jparam``.

The reference ``fsel[1]`` (:data:`LOCAL`, :data:`WORLD`, :data:`LOCAL_WORLD_ALIGNED`) is
Pinocchio's ``ReferenceFrame``: the frame's own axes and origin; the world's axes and
origin; the world's axes at the frame's origin. A motion vector :math:`\mathbf x =
[\boldsymbol\omega; \mathbf u]` of body ``i`` (body coordinates) is, in each
(:func:`express`),

.. math::
    \text{local: } \begin{bmatrix}\mathbf R_{bf}^\top\boldsymbol\omega\\ \mathbf R_{bf}^\top
    (\mathbf u + \boldsymbol\omega\times\mathbf p_{bf})\end{bmatrix},\quad
    \text{world: } \begin{bmatrix}\mathbf R_i\boldsymbol\omega\\ \mathbf R_i\mathbf u +
    \mathbf p_i\times\mathbf R_i\boldsymbol\omega\end{bmatrix},\quad
    \text{local-world-aligned: } \begin{bmatrix}\mathbf R_i\boldsymbol\omega\\ \mathbf R_i
    (\mathbf u + \boldsymbol\omega\times\mathbf p_{bf})\end{bmatrix}

with :math:`(\mathbf R_i, \mathbf p_i)` the world pose of body ``i``. Jacobian columns are
built in world coordinates, :math:`{}^0\mathbf X_k\boldsymbol\Phi_k`, and moved to the
reference (:func:`world_to_reference`); their rates are the entrywise time derivatives
along the motion, :math:`\tfrac{\mathrm d}{\mathrm dt}({}^0\mathbf X_k\boldsymbol\Phi_k) =
({}^0\mathbf v_k\times)\,{}^0\mathbf X_k\boldsymbol\Phi_k + {}^0\mathbf X_k
\mathring{\boldsymbol\Phi}_k` (seed 001 §1.4, :math:`\dot{\boldsymbol\Phi} =
(\mathbf v\times)\boldsymbol\Phi + \mathring{\boldsymbol\Phi}`), with the rates of the
change of reference (:func:`world_rate_to_reference`).

Arguments: ``topo`` of the compiled model, ``fsel`` and ``fpack``, then the per-state
arrays (``S``, ``S_ring``, ``T_user`` of the compiled model, ``q``, ...). A kernel
returns a packed status (:mod:`geomech.multibody._kernels.status`); the ``*_batch`` drivers
return the first failure + 1 and the ``*_one`` entries take the packed model
(:attr:`~geomech.multibody._kernels.compiled.CompiledModel.packed`).

References
----------
Seed 001 eq. 5 (twists), eq. 7 (accelerations), §1.4 (:math:`\dot{\boldsymbol\Phi}`),
Remark 4 (:math:`\mathring{\mathbf J}`); seed 000 §VI-B (:math:`A = \mathbf X
\boldsymbol\Phi`, :math:`\dot{\mathbf X} = \mathbf X(v\times) - (v\times)\mathbf X`);
Featherstone 2008, §2.9 (Plücker transforms), §4.1 (the support set :math:`\kappa(i)`),
eq. 5.8 (acceleration recursion); Pinocchio's ``getFrameVelocity``,
``getFrameAcceleration``, ``getFrameClassicalAcceleration``, ``computeFrameJacobian`` and
``getFrameJacobianTimeVariation`` (the meaning of the three references).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from geomech.multibody._kernels.compiled import unpack
from geomech.multibody._kernels.jit import INLINE, JIT
from geomech.multibody._kernels.joints import USER
from geomech.multibody._kernels.spatial import cross_motion, transform_motion
from geomech.multibody._kernels.status import NON_FINITE_INPUT, OK, pack
from geomech.multibody._kernels.tables import IQ, IV, JPARAM_COLUMNS, JTYPE, PARENT
from geomech.multibody._kernels.tree.dynamics import at
from geomech.multibody._kernels.tree.kinematics import all_finite, joint_velocity, tree_transforms
from geomech.multibody._kernels.views import view

__all__ = [
    "LOCAL",
    "WORLD",
    "LOCAL_WORLD_ALIGNED",
    "support_chain",
    "support_arrays",
    "frame_workspace",
    "express",
    "world_to_reference",
    "world_rate_to_reference",
    "frame_placement",
    "frame_placement_batch",
    "frame_placement_one",
    "frame_velocity",
    "frame_velocity_batch",
    "frame_velocity_one",
    "frame_acceleration",
    "frame_acceleration_batch",
    "frame_acceleration_one",
    "frame_jacobian",
    "frame_jacobian_batch",
    "frame_jacobian_one",
    "frame_jacobian_rate",
    "frame_jacobian_rate_batch",
    "frame_jacobian_rate_one",
]

#: the frame's axes and origin (Pinocchio's ``LOCAL``)
LOCAL = 0
#: the world's axes and origin (Pinocchio's ``WORLD``)
WORLD = 1
#: the world's axes at the frame's origin (Pinocchio's ``LOCAL_WORLD_ALIGNED``)
LOCAL_WORLD_ALIGNED = 2


# ----------------------------------------------------------------------------------------
# the support of the frame's body: transforms, world poses, twists, accelerations
# ----------------------------------------------------------------------------------------
def support_chain(parent, i):
    r"""The support :math:`\kappa(i)` of body ``i``, root first (empty for ``i = -1``).

    Featherstone 2008, §4.1.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody._kernels.tree.frames import support_chain
    >>> support_chain(np.array([-1, 0, 1, 0]), 3)
    [0, 3]
    """
    chain = []
    k = int(i)
    while k >= 0:
        chain.append(k)
        k = int(parent[k])
    return chain[::-1]


def support_arrays(topo, placement, jparam, body, Tf, reference, classical):
    """``(fsel, fpack)`` of a frame (module docstring): the compact support, built once.

    ``topo``, ``placement``, ``jparam`` are the compiled model's arrays; ``Tf`` (3, 4).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody._kernels.tree.frames import WORLD, support_arrays
    >>> cm = robots.double_pendulum().compiled
    >>> fsel, fpack = support_arrays(cm.topo, cm.placement, cm.jparam, 1, np.eye(3, 4), WORLD, 0)
    >>> fsel.tolist()  # body 1, world, spatial; chain [0, 1], revolute; q_c = q[[0, 1]]
    [1, 1, 0, 2, 2, 0, 1, 1, 1, 0, 1, 2, 0, 1]
    """
    chain = support_chain(topo[:-1, PARENT], body)
    iq = topo[:, IQ]
    qidx = [j for k in chain for j in range(iq[k], iq[k + 1])]
    offsets = np.cumsum([0] + [iq[k + 1] - iq[k] for k in chain])
    head = [body, reference, int(bool(classical)), len(chain), len(qidx)]
    fsel = np.array(
        head + chain + [int(topo[k, JTYPE]) for k in chain] + offsets.tolist() + qidx, np.int64
    )
    fpack = np.concatenate([np.ravel(Tf), placement[chain].ravel(), jparam[chain].ravel()]).astype(
        float
    )
    return fsel, fpack


@njit(**INLINE)
def _frame_args(fsel, fpack):
    """Views of ``(fsel, fpack)``: ``(n, chain, jtype, iq, qidx, Tf, placement, jparam)``."""
    n, nqc = fsel[3], fsel[4]
    o = 5
    chain, o = fsel[o : o + n], o + n
    jtype, o = fsel[o : o + n], o + n
    iq, o = fsel[o : o + n + 1], o + n + 1
    qidx = fsel[o : o + nqc]
    Tf = view(fpack, 0, (3, 4))
    placement = view(fpack, 12, (n, 3, 4))
    jparam = view(fpack, 12 + 12 * n, (n, JPARAM_COLUMNS))
    return n, chain, jtype, iq, qidx, Tf, placement, jparam


@njit(**JIT)
def frame_workspace(N, nq):
    r"""``(E, r, R, p, vel, acc, s, q_c, T_c)``: the work arrays of the frame kernels.

    By position ``m`` along the support (at most N bodies): ``E, r`` (the Plücker pairs of
    :math:`{}^k\mathbf X_{p(k)}`), ``R, p`` (world poses), ``vel``, ``acc`` (body twists and
    accelerations); ``s`` (48,) holds small vectors, ``q_c`` (nq,) the gathered
    configuration and ``T_c`` (N, 3, 4) the poses of user joints. One allocation.
    """
    buf = np.empty(48 * N + nq + 48)
    return (
        view(buf, 0, (N, 3, 3)),
        view(buf, 9 * N, (N, 3)),
        view(buf, 12 * N, (N, 3, 3)),
        view(buf, 21 * N, (N, 3)),
        view(buf, 24 * N, (N, 6)),
        view(buf, 30 * N, (N, 6)),
        buf[36 * N : 36 * N + 48],
        buf[36 * N + 48 : 36 * N + 48 + nq],
        view(buf, 36 * N + 48 + nq, (N, 3, 4)),
    )


@njit(**JIT)
def _workspace(topo):
    N = topo.shape[0] - 1
    return frame_workspace(N, topo[N, IQ])


@njit(**JIT)
def _support(fsel, fpack, T_user, q, work):
    r"""Transforms and world poses along the support: ``(status, n)``.

    The gathered ``q_c`` and the support's compact arrays go through
    :func:`~geomech.multibody._kernels.tree.kinematics.tree_transforms` (seed 001 §2.0:
    :math:`{}^k\mathbf X_{p(k)} = \mathbf X_J(\mathbf q_k)\mathbf X_T(k)`), then
    :math:`{}^0\mathbf T_k = {}^0\mathbf T_{p(k)}\,{}^{p(k)}\mathbf T_k` root first.
    """
    E, r, R, p, q_c, T_c = work[0], work[1], work[2], work[3], work[7], work[8]
    if not all_finite(q):
        return pack(NON_FINITE_INPUT, -1), 0
    n, chain, jtype, iq, qidx, _, placement, jparam = _frame_args(fsel, fpack)
    for j in range(qidx.shape[0]):
        q_c[j] = q[qidx[j]]
    for m in range(n):
        if jtype[m] == USER:  # the user joint's pose of this state
            for a in range(3):
                for b in range(4):
                    T_c[m, a, b] = T_user[chain[m], a, b]
    status = tree_transforms(jtype, iq, placement, jparam, T_c, q_c, E, r)
    if status != OK:  # name the body: position m along the support -> body chain[m]
        m = status // 8 - 1
        return status + 8 * (chain[m] - m), n
    for m in range(n):  # the pose in the parent is (Eᵀ, r)
        if m == 0:
            for a in range(3):
                p[0, a] = r[0, a]
                for b in range(3):
                    R[0, a, b] = E[0, b, a]
        else:
            for a in range(3):
                t = p[m - 1, a]
                for c in range(3):
                    t += R[m - 1, a, c] * r[m, c]
                p[m, a] = t
                for b in range(3):
                    R[m, a, b] = (
                        R[m - 1, a, 0] * E[m, b, 0]
                        + R[m - 1, a, 1] * E[m, b, 1]
                        + R[m - 1, a, 2] * E[m, b, 2]
                    )
    return OK, n


@njit(**JIT)
def _twists(iv, S, chain, n, E, r, v, vel, vJ):
    r"""Body twists along the chain, seed 001 eq. 5: :math:`\mathbf v_k = {}^k\mathbf X_{p(k)}
    \mathbf v_{p(k)} + \boldsymbol\Phi_k\nu_k` (``vel[m]``, ``E[m]``, ``r[m]`` for ``chain[m]``).
    """
    for m in range(n):
        k = chain[m]
        joint_velocity(S, iv, k, v, vJ)
        if m == 0:  # v_0 = 0
            vel[0, :] = vJ
        else:
            transform_motion(E[m], r[m], vel[m - 1], vel[m])
            for c in range(6):
                vel[m, c] += vJ[c]


@njit(**JIT)
def _accelerations(jtype, iv, S, S_ring, chain, n, E, r, v, a, vel, acc, vJ):  # jtype: compact
    r"""Body accelerations along the chain (no gravity), seed 001 eq. 7:
    :math:`\mathbf a_k = {}^k\mathbf X_{p(k)}\mathbf a_{p(k)} + \boldsymbol\Phi_k\dot\nu_k +
    \mathring{\boldsymbol\Phi}_k\nu_k + \mathbf v_k\times\boldsymbol\Phi_k\nu_k`
    (Featherstone 2008, eq. 5.8; ``vel`` from :func:`_twists`).
    """
    for m in range(n):
        k = chain[m]
        joint_velocity(S, iv, k, v, vJ)
        if m == 0:  # a_0 = 0 (the kinematic acceleration: no fictitious gravity)
            acc[0, :] = 0.0
        else:
            transform_motion(E[m], r[m], acc[m - 1], acc[m])
        cross_motion(vel[m], vJ, acc[m])  # + v_k × Φ_k ν_k
        for j in range(iv[k], iv[k + 1]):  # + Φ_k ν̇_k
            for c in range(6):
                acc[m, c] += S[j, c] * a[j]
        if jtype[m] == USER:  # + Φ̊_k ν_k (zero for the built-in joints)
            for j in range(iv[k], iv[k + 1]):
                for c in range(6):
                    acc[m, c] += S_ring[j, c] * v[j]


@njit(**INLINE)
def _to_world(R, p, x, out):
    r"""``out`` = :math:`{}^0\mathbf X_k\mathbf x = [\mathbf R\boldsymbol\omega;\ \mathbf R
    \mathbf u + \mathbf p\times\mathbf R\boldsymbol\omega]` (``(R, p)``: the world pose of k).
    """
    w0 = R[0, 0] * x[0] + R[0, 1] * x[1] + R[0, 2] * x[2]
    w1 = R[1, 0] * x[0] + R[1, 1] * x[1] + R[1, 2] * x[2]
    w2 = R[2, 0] * x[0] + R[2, 1] * x[1] + R[2, 2] * x[2]
    u0 = R[0, 0] * x[3] + R[0, 1] * x[4] + R[0, 2] * x[5]
    u1 = R[1, 0] * x[3] + R[1, 1] * x[4] + R[1, 2] * x[5]
    u2 = R[2, 0] * x[3] + R[2, 1] * x[4] + R[2, 2] * x[5]
    out[0], out[1], out[2] = w0, w1, w2
    out[3] = u0 + p[1] * w2 - p[2] * w1
    out[4] = u1 + p[2] * w0 - p[0] * w2
    out[5] = u2 + p[0] * w1 - p[1] * w0


@njit(**JIT)
def _frame_pose(n, R, p, Tf, R_f, p_f):
    r"""The frame's world pose :math:`{}^0\mathbf T_f = {}^0\mathbf T_i\,{}^i\mathbf T_f`.

    ``n = 0`` (a frame fixed in the world): :math:`{}^i\mathbf T_f` itself.
    """
    for a in range(3):
        if n == 0:
            p_f[a] = Tf[a, 3]
            for b in range(3):
                R_f[a, b] = Tf[a, b]
            continue
        Ri, pi = R[n - 1], p[n - 1]
        p_f[a] = pi[a] + Ri[a, 0] * Tf[0, 3] + Ri[a, 1] * Tf[1, 3] + Ri[a, 2] * Tf[2, 3]
        for b in range(3):
            R_f[a, b] = Ri[a, 0] * Tf[0, b] + Ri[a, 1] * Tf[1, b] + Ri[a, 2] * Tf[2, b]


@njit(**JIT)
def express(ref, R_i, p_i, Tf, x, out):
    r"""``out`` = the motion vector ``x`` of body ``i`` (body coordinates) in the reference ``ref``.

    ``(R_i, p_i)`` is body ``i``'s world pose, ``Tf`` the frame's pose in body ``i`` (module
    docstring). Local: :math:`{}^f\mathbf X_i\mathbf x`; world: :math:`{}^0\mathbf X_i
    \mathbf x`; local-world-aligned: the world's axes at the frame's origin.
    """
    w0, w1, w2 = x[0], x[1], x[2]
    # the linear part at the frame's origin, body axes: u + ω × p_bf
    c0 = x[3] + w1 * Tf[2, 3] - w2 * Tf[1, 3]
    c1 = x[4] + w2 * Tf[0, 3] - w0 * Tf[2, 3]
    c2 = x[5] + w0 * Tf[1, 3] - w1 * Tf[0, 3]
    if ref == LOCAL:  # ^fX_i x: rotate by R_bfᵀ
        for a in range(3):
            out[a] = Tf[0, a] * w0 + Tf[1, a] * w1 + Tf[2, a] * w2
            out[3 + a] = Tf[0, a] * c0 + Tf[1, a] * c1 + Tf[2, a] * c2
    elif ref == WORLD:
        _to_world(R_i, p_i, x, out)
    else:  # LOCAL_WORLD_ALIGNED: rotate by R_i
        for a in range(3):
            out[a] = R_i[a, 0] * w0 + R_i[a, 1] * w1 + R_i[a, 2] * w2
            out[3 + a] = R_i[a, 0] * c0 + R_i[a, 1] * c1 + R_i[a, 2] * c2


@njit(**INLINE)
def world_to_reference(ref, R_f, p_f, w, out):
    r"""``out`` = a world motion vector ``w = [ω; u_O]`` (at the world origin) in the reference.

    World: ``w``; local-world-aligned: :math:`[\boldsymbol\omega;\ \mathbf u_O +
    \boldsymbol\omega\times\mathbf p_f]` (the velocity of the point at the frame's origin);
    local: both parts of the latter rotated by :math:`\mathbf R_f^\top`.
    """
    w0, w1, w2 = w[0], w[1], w[2]
    if ref == WORLD:
        for a in range(6):
            out[a] = w[a]
        return
    u0 = w[3] + w1 * p_f[2] - w2 * p_f[1]
    u1 = w[4] + w2 * p_f[0] - w0 * p_f[2]
    u2 = w[5] + w0 * p_f[1] - w1 * p_f[0]
    if ref == LOCAL_WORLD_ALIGNED:
        out[0], out[1], out[2], out[3], out[4], out[5] = w0, w1, w2, u0, u1, u2
        return
    for a in range(3):  # LOCAL
        out[a] = R_f[0, a] * w0 + R_f[1, a] * w1 + R_f[2, a] * w2
        out[3 + a] = R_f[0, a] * u0 + R_f[1, a] * u1 + R_f[2, a] * u2


@njit(**INLINE)
def world_rate_to_reference(ref, R_f, p_f, pdot_f, omega_f, w, wdot, out):
    r"""``out`` = the time derivative of :func:`world_to_reference` of ``w`` (rate ``wdot``).

    ``pdot_f`` is the velocity of the frame's origin and ``omega_f`` the frame's angular
    velocity, both in world coordinates. Local-world-aligned:
    :math:`[\dot{\boldsymbol\omega};\ \dot{\mathbf u}_O + \dot{\boldsymbol\omega}\times
    \mathbf p_f + \boldsymbol\omega\times\dot{\mathbf p}_f]`; local: with
    :math:`\mathbf y` the local-world-aligned vector,
    :math:`\tfrac{\mathrm d}{\mathrm dt}(\mathbf R_f^\top\mathbf y) = \mathbf R_f^\top
    (\dot{\mathbf y} - \boldsymbol\omega_f\times\mathbf y)` for each 3-vector part
    (:math:`\dot{\mathbf R}_f = (\boldsymbol\omega_f\times)\mathbf R_f`).
    """
    if ref == WORLD:
        for a in range(6):
            out[a] = wdot[a]
        return
    w0, w1, w2 = w[0], w[1], w[2]
    d0, d1, d2 = wdot[0], wdot[1], wdot[2]
    e0 = wdot[3] + d1 * p_f[2] - d2 * p_f[1] + w1 * pdot_f[2] - w2 * pdot_f[1]
    e1 = wdot[4] + d2 * p_f[0] - d0 * p_f[2] + w2 * pdot_f[0] - w0 * pdot_f[2]
    e2 = wdot[5] + d0 * p_f[1] - d1 * p_f[0] + w0 * pdot_f[1] - w1 * pdot_f[0]
    if ref == LOCAL_WORLD_ALIGNED:
        out[0], out[1], out[2], out[3], out[4], out[5] = d0, d1, d2, e0, e1, e2
        return
    # LOCAL: y = [ω; u_O + ω × p_f], ẏ = [d; e]; out = R_fᵀ (ẏ − ω_f × y)
    u0 = w[3] + w1 * p_f[2] - w2 * p_f[1]
    u1 = w[4] + w2 * p_f[0] - w0 * p_f[2]
    u2 = w[5] + w0 * p_f[1] - w1 * p_f[0]
    o0, o1, o2 = omega_f[0], omega_f[1], omega_f[2]
    g0 = d0 - (o1 * w2 - o2 * w1)
    g1 = d1 - (o2 * w0 - o0 * w2)
    g2 = d2 - (o0 * w1 - o1 * w0)
    h0 = e0 - (o1 * u2 - o2 * u1)
    h1 = e1 - (o2 * u0 - o0 * u2)
    h2 = e2 - (o0 * u1 - o1 * u0)
    for a in range(3):
        out[a] = R_f[0, a] * g0 + R_f[1, a] * g1 + R_f[2, a] * g2
        out[3 + a] = R_f[0, a] * h0 + R_f[1, a] * h1 + R_f[2, a] * h2


# ----------------------------------------------------------------------------------------
# placements
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def frame_placement(topo, fsel, fpack, T_user, q, work, T):
    r"""``T`` (4, 4) = :math:`{}^0\mathbf T_f = {}^0\mathbf T_i\,{}^i\mathbf T_f`, composed along
    :math:`\kappa(i)` (Featherstone 2008, §4.1).
    """
    status, n = _support(fsel, fpack, T_user, q, work)
    if status != OK:
        return status
    _frame_pose(n, work[2], work[3], view(fpack, 0, (3, 4)), T[:3, :3], T[:3, 3])
    T[3, 0], T[3, 1], T[3, 2], T[3, 3] = 0.0, 0.0, 0.0, 1.0
    return OK


@njit(**JIT)
def frame_placement_batch(topo, fsel, fpack, T_user, Q, T, status):
    """:func:`frame_placement` over a batch; first failure + 1."""
    work = _workspace(topo)
    failed = 0
    for b in range(status.shape[0]):
        status[b] = frame_placement(topo, fsel, fpack, at(T_user, b), at(Q, b), work, T[b])
        if status[b] != OK and failed == 0:
            failed = b + 1
    return failed


@njit(**JIT)
def frame_placement_one(topo, packed, fsel, fpack, q, T):
    """:func:`frame_placement` for one state, the model packed (``CompiledModel.packed``)."""
    T_user = unpack(topo, packed)[5]
    return frame_placement(topo, fsel, fpack, T_user, q, _workspace(topo), T)


# ----------------------------------------------------------------------------------------
# twists and accelerations
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def frame_velocity(topo, fsel, fpack, S, T_user, q, v, work, out):
    r"""``out`` (6,) = the frame's twist in the reference ``fsel[1]``: :func:`express` of the
    body twist :math:`\mathbf v_i` (seed 001 eq. 5 along :math:`\kappa(i)`); zero for a
    frame fixed in the world.
    """
    status, n = _support(fsel, fpack, T_user, q, work)
    if status != OK:
        return status
    if not all_finite(v):
        return pack(NON_FINITE_INPUT, -1)
    if n == 0:
        out[:] = 0.0
        return OK
    E, r, R, p, vel, _, s = work[:7]
    _twists(topo[:, IV], S, fsel[5 : 5 + n], n, E, r, v, vel, s[:6])
    express(fsel[1], R[n - 1], p[n - 1], view(fpack, 0, (3, 4)), vel[n - 1], out)
    return OK


@njit(**JIT)
def frame_velocity_batch(topo, fsel, fpack, S, T_user, Q, V, out, status):
    """:func:`frame_velocity` over a batch; first failure + 1."""
    work = _workspace(topo)
    failed = 0
    for b in range(status.shape[0]):
        status[b] = frame_velocity(
            topo, fsel, fpack, at(S, b), at(T_user, b), at(Q, b), at(V, b), work, out[b]
        )
        if status[b] != OK and failed == 0:
            failed = b + 1
    return failed


@njit(**JIT)
def frame_velocity_one(topo, packed, fsel, fpack, q, v, out):
    """:func:`frame_velocity` for one state, the model packed."""
    _, _, _, S, _, T_user, _ = unpack(topo, packed)
    return frame_velocity(topo, fsel, fpack, S, T_user, q, v, _workspace(topo), out)


@njit(**JIT)
def frame_acceleration(topo, fsel, fpack, S, S_ring, T_user, q, v, a, work, out):
    r"""``out`` (6,) = the frame's spatial acceleration in the reference ``fsel[1]``.

    :func:`express` of the body acceleration :math:`\mathbf a_i` (seed 001 eq. 7 along
    :math:`\kappa(i)`, no gravity), the derivative of the body twist's coordinates. With
    ``fsel[2] = 1`` the classical acceleration instead: the linear part plus
    :math:`\boldsymbol\omega\times\mathbf u` of the twist in the same reference
    (Pinocchio's ``getFrameClassicalAcceleration``); in ``local`` and
    ``local_world_aligned`` it is the acceleration of the frame's origin, in local and
    world axes.
    """
    status, n = _support(fsel, fpack, T_user, q, work)
    if status != OK:
        return status
    if not (all_finite(v) and all_finite(a)):
        return pack(NON_FINITE_INPUT, -1)
    if n == 0:
        out[:] = 0.0
        return OK
    E, r, R, p, vel, acc, s = work[:7]
    iv, chain, jtype = topo[:, IV], fsel[5 : 5 + n], fsel[5 + n : 5 + 2 * n]
    Tf = view(fpack, 0, (3, 4))
    _twists(iv, S, chain, n, E, r, v, vel, s[:6])
    _accelerations(jtype, iv, S, S_ring, chain, n, E, r, v, a, vel, acc, s[:6])
    ref = fsel[1]
    express(ref, R[n - 1], p[n - 1], Tf, acc[n - 1], out)
    if fsel[2] != 0:  # classical: + ω × u of the twist in the same reference
        t = s[6:12]
        express(ref, R[n - 1], p[n - 1], Tf, vel[n - 1], t)
        out[3] += t[1] * t[5] - t[2] * t[4]
        out[4] += t[2] * t[3] - t[0] * t[5]
        out[5] += t[0] * t[4] - t[1] * t[3]
    return OK


@njit(**JIT)
def frame_acceleration_batch(topo, fsel, fpack, S, S_ring, T_user, Q, V, A, out, status):
    """:func:`frame_acceleration` over a batch; first failure + 1."""
    work = _workspace(topo)
    failed = 0
    for b in range(status.shape[0]):
        status[b] = frame_acceleration(
            topo, fsel, fpack, at(S, b), at(S_ring, b), at(T_user, b), at(Q, b), at(V, b),
            at(A, b), work, out[b],
        )  # fmt: skip
        if status[b] != OK and failed == 0:
            failed = b + 1
    return failed


@njit(**JIT)
def frame_acceleration_one(topo, packed, fsel, fpack, q, v, a, out):
    """:func:`frame_acceleration` for one state, the model packed."""
    _, _, _, S, S_ring, T_user, _ = unpack(topo, packed)
    return frame_acceleration(topo, fsel, fpack, S, S_ring, T_user, q, v, a, _workspace(topo), out)


# ----------------------------------------------------------------------------------------
# Jacobians and their rates
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def frame_jacobian(topo, fsel, fpack, S, T_user, q, work, J):
    r"""``J`` (6, nv) = the frame Jacobian in the reference ``fsel[1]``, :math:`\mathbf x_f =
    \mathbf J\nu` for the frame's twist :math:`\mathbf x_f` in that reference.

    Column ``j`` of joint ``k`` in :math:`\kappa(i)` is :func:`world_to_reference` of
    :math:`{}^0\mathbf X_k\boldsymbol\Phi_k\mathbf e_j` (seed 000 §VI-B, :math:`A =
    \mathbf X\boldsymbol\Phi` row block ``i``, moved to the frame); the other columns are 0.
    """
    status, n = _support(fsel, fpack, T_user, q, work)
    if status != OK:
        return status
    J[:, :] = 0.0
    if n == 0:
        return OK
    R, p, s = work[2], work[3], work[6]
    iv, chain = topo[:, IV], fsel[5 : 5 + n]
    R_f, p_f, w, col = view(s, 0, (3, 3)), s[9:12], s[12:18], s[18:24]
    _frame_pose(n, R, p, view(fpack, 0, (3, 4)), R_f, p_f)
    ref = fsel[1]
    for m in range(n):
        k = chain[m]
        for j in range(iv[k], iv[k + 1]):
            _to_world(R[m], p[m], S[j], w)  # ^0X_k Φ_k e_j
            world_to_reference(ref, R_f, p_f, w, col)
            for c in range(6):
                J[c, j] = col[c]
    return OK


@njit(**JIT)
def frame_jacobian_batch(topo, fsel, fpack, S, T_user, Q, J, status):
    """:func:`frame_jacobian` over a batch; first failure + 1."""
    work = _workspace(topo)
    failed = 0
    for b in range(status.shape[0]):
        status[b] = frame_jacobian(topo, fsel, fpack, at(S, b), at(T_user, b), at(Q, b), work, J[b])
        if status[b] != OK and failed == 0:
            failed = b + 1
    return failed


@njit(**JIT)
def frame_jacobian_one(topo, packed, fsel, fpack, q, J):
    """:func:`frame_jacobian` for one state, the model packed."""
    _, _, _, S, _, T_user, _ = unpack(topo, packed)
    return frame_jacobian(topo, fsel, fpack, S, T_user, q, _workspace(topo), J)


@njit(**JIT)
def frame_jacobian_rate(topo, fsel, fpack, S, S_ring, T_user, q, v, work, J_dot):
    r"""``J_dot`` (6, nv) = the entrywise time derivative of :func:`frame_jacobian` along the flow.

    With :math:`{}^0\mathbf v_k` the world twist of body ``k`` (seed 001 eq. 5, then
    :math:`{}^0\mathbf X_k`), the world column rate is :math:`({}^0\mathbf v_k\times)\,
    {}^0\mathbf X_k\boldsymbol\Phi_k\mathbf e_j + {}^0\mathbf X_k\mathring{\boldsymbol
    \Phi}_k\mathbf e_j` (seed 000 §VI-B, :math:`\dot{\mathbf X} = \mathbf X(v\times) -
    (v\times)\mathbf X` with :math:`\dot{\boldsymbol\Phi} = (\mathbf v\times)
    \boldsymbol\Phi + \mathring{\boldsymbol\Phi}`, seed 001 §1.4), moved to the reference
    by :func:`world_rate_to_reference`. Then :math:`\dot{\mathbf J}\nu + \mathbf J
    \dot\nu` is the derivative of the frame's twist coordinates in that reference (the
    spatial acceleration in ``local`` and ``world``, the classical one in
    ``local_world_aligned``).
    """
    status, n = _support(fsel, fpack, T_user, q, work)
    if status != OK:
        return status
    if not all_finite(v):
        return pack(NON_FINITE_INPUT, -1)
    J_dot[:, :] = 0.0
    if n == 0:
        return OK
    E, r, R, p, vel, ovel, s = work[:7]  # (acc's rows hold the world twists here)
    iv, chain, jtype = topo[:, IV], fsel[5 : 5 + n], fsel[5 + n : 5 + 2 * n]
    _twists(iv, S, chain, n, E, r, v, vel, s[:6])
    for m in range(n):
        _to_world(R[m], p[m], vel[m], ovel[m])  # ^0v_k = ^0X_k v_k
    R_f, p_f, pdot_f = view(s, 0, (3, 3)), s[9:12], s[12:15]
    w, wdot, col = s[15:21], s[21:27], s[27:33]
    _frame_pose(n, R, p, view(fpack, 0, (3, 4)), R_f, p_f)
    oi = ovel[n - 1]  # the frame's world twist (body i's)
    omega_f = oi[:3]
    # the velocity of the frame's origin: u_O + ω × p_f
    pdot_f[0] = oi[3] + oi[1] * p_f[2] - oi[2] * p_f[1]
    pdot_f[1] = oi[4] + oi[2] * p_f[0] - oi[0] * p_f[2]
    pdot_f[2] = oi[5] + oi[0] * p_f[1] - oi[1] * p_f[0]
    ref = fsel[1]
    for m in range(n):
        k = chain[m]
        for j in range(iv[k], iv[k + 1]):
            _to_world(R[m], p[m], S[j], w)  # ^0X_k Φ_k e_j
            if jtype[m] == USER:  # ^0X_k Φ̊_k e_j
                _to_world(R[m], p[m], S_ring[j], wdot)
            else:
                wdot[:] = 0.0
            cross_motion(ovel[m], w, wdot)  # + (^0v_k ×) ^0X_k Φ_k e_j
            world_rate_to_reference(ref, R_f, p_f, pdot_f, omega_f, w, wdot, col)
            for c in range(6):
                J_dot[c, j] = col[c]
    return OK


@njit(**JIT)
def frame_jacobian_rate_batch(topo, fsel, fpack, S, S_ring, T_user, Q, V, J_dot, status):
    """:func:`frame_jacobian_rate` over a batch; first failure + 1."""
    work = _workspace(topo)
    failed = 0
    for b in range(status.shape[0]):
        status[b] = frame_jacobian_rate(
            topo, fsel, fpack, at(S, b), at(S_ring, b), at(T_user, b), at(Q, b), at(V, b), work,
            J_dot[b],
        )  # fmt: skip
        if status[b] != OK and failed == 0:
            failed = b + 1
    return failed


@njit(**JIT)
def frame_jacobian_rate_one(topo, packed, fsel, fpack, q, v, J_dot):
    """:func:`frame_jacobian_rate` for one state, the model packed."""
    _, _, _, S, S_ring, T_user, _ = unpack(topo, packed)
    return frame_jacobian_rate(topo, fsel, fpack, S, S_ring, T_user, q, v, _workspace(topo), J_dot)
