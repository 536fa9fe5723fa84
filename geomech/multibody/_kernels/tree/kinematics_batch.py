r"""Kinematics outputs for one state and their batch drivers: joint transforms, poses, twists,
Jacobians.

The public functions of :mod:`geomech.multibody.algorithms.kinematics` call the ``*_batch`` drivers;
each single-state kernel runs :func:`~geomech.multibody._kernels.tree.kinematics.tree_transforms`
and one pass of :mod:`~geomech.multibody._kernels.tree.kinematics`, then writes the result in the
public layout (6×6 Plücker matrices, 4×4 poses, Jacobians as (N, 6, nv)). Arguments: ``topo``,
``placement``, ``jparam`` of the compiled model, then the per-state joint arrays and the state.

References
----------
Seed 001 eq. 5, §1.4, §2.0; seed 000 §VI-B (:math:`A = \mathbf X\boldsymbol\Phi`,
:math:`\dot A = \mathbf X\dot{\boldsymbol\Phi} - (v\times)\mathbf X\boldsymbol\Phi`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from geomech.multibody._kernels.jit import JIT, at, first_failure
from geomech.multibody._kernels.spatial import cross_motion, transform_motion
from geomech.multibody._kernels.status import NON_FINITE_INPUT, OK, pack
from geomech.multibody._kernels.tables import IQ, IV, JTYPE, PARENT
from geomech.multibody._kernels.tree.kinematics import (
    all_finite,
    body_jacobians,
    body_velocities,
    tree_transforms,
    world_poses,
)

__all__ = [
    "joint_transforms_batch",
    "forward_kinematics_batch",
    "body_velocities_batch",
    "body_jacobians_batch",
    "velocity_map_batch",
]


@njit(**JIT)
def _transforms(topo, placement, jparam, T_user, q):
    """``(status, E, r)``: the tree transforms of one state, after the finiteness check."""
    N = topo.shape[0] - 1
    E, r = np.empty((N, 3, 3)), np.empty((N, 3))
    if not all_finite(q):
        return pack(NON_FINITE_INPUT, -1), E, r
    return tree_transforms(topo[:-1, JTYPE], topo[:, IQ], placement, jparam, T_user, q, E, r), E, r


@njit(**JIT)
def joint_transforms(topo, placement, jparam, T_user, q, X_up):
    r"""``X_up[i]`` (6×6) = :math:`{}^i\mathbf X_{p(i)} = [[\mathbf E, 0], [-\mathbf E\,\mathbf
    r\times, \mathbf E]]`.
    """
    status, E, r = _transforms(topo, placement, jparam, T_user, q)
    if status != OK:
        return status
    for i in range(E.shape[0]):
        X = X_up[i]
        X[:3, 3:] = 0.0
        for a in range(3):
            for b in range(3):
                X[a, b] = X[3 + a, 3 + b] = E[i, a, b]
            # row a of -E (r x): -(E[a] x ... ) = (r x E[a])ᵀ, i.e. -E[a] · (r x e_b)
            e0, e1, e2 = E[i, a, 0], E[i, a, 1], E[i, a, 2]
            X[3 + a, 0] = r[i, 1] * e2 - r[i, 2] * e1
            X[3 + a, 1] = r[i, 2] * e0 - r[i, 0] * e2
            X[3 + a, 2] = r[i, 0] * e1 - r[i, 1] * e0
    return OK


@njit(**JIT)
def joint_transforms_batch(topo, placement, jparam, T_user, Q, X_up, status):
    """:func:`joint_transforms` over a batch; first failure + 1."""
    for b in range(status.shape[0]):
        status[b] = joint_transforms(topo, placement, jparam, at(T_user, b), at(Q, b), X_up[b])
    return first_failure(status)


@njit(**JIT)
def forward_kinematics_batch(topo, placement, jparam, T_user, Q, T, status):
    r"""Body poses in the world, :math:`{}^0\mathbf T_i` (N, 4, 4), over a batch; first failure
    + 1.
    """
    for b in range(status.shape[0]):
        status[b], E, r = _transforms(topo, placement, jparam, at(T_user, b), at(Q, b))
        if status[b] == OK:
            world_poses(topo[:-1, PARENT], E, r, T[b])
    return first_failure(status)


@njit(**JIT)
def body_velocities_batch(topo, placement, jparam, S, T_user, Q, V, vel, status):
    r"""Body twists (seed 001 eq. 5), (N, 6) per state, over a batch; first failure + 1."""
    for b in range(status.shape[0]):
        v = at(V, b)
        status[b], E, r = _transforms(topo, placement, jparam, at(T_user, b), at(Q, b))
        if status[b] == OK and not all_finite(v):
            status[b] = pack(NON_FINITE_INPUT, -1)
        if status[b] == OK:
            body_velocities(topo[:-1, PARENT], topo[:, IV], at(S, b), E, r, v, vel[b])
    return first_failure(status)


@njit(**JIT)
def _jacobians(parent, iv, S, E, r, work, J):
    """Body Jacobians in the public layout ``J[i, :, k]`` (N, 6, nv); ``work`` (N, nv, 6)."""
    body_jacobians(parent, iv, S, E, r, work)
    for i in range(work.shape[0]):
        for k in range(work.shape[1]):
            for a in range(6):
                J[i, a, k] = work[i, k, a]


@njit(**JIT)
def body_jacobians_batch(topo, placement, jparam, S, T_user, Q, J, status):
    r"""Body Jacobians :math:`\mathbf J_i` (N, 6, nv) per state, over a batch; first failure + 1."""
    work = np.empty((J.shape[1], J.shape[3], 6))
    for b in range(status.shape[0]):
        status[b], E, r = _transforms(topo, placement, jparam, at(T_user, b), at(Q, b))
        if status[b] == OK:
            _jacobians(topo[:-1, PARENT], topo[:, IV], at(S, b), E, r, work, J[b])
    return first_failure(status)


@njit(**JIT)
def velocity_map(topo, placement, jparam, S, S_ring, T_user, q, v, A, A_dot):
    r""":math:`A = \mathbf X\boldsymbol\Phi` and :math:`\dot A = \mathbf K - (v\times)A` per body,
    (N, 6, nv) each.

    :math:`\mathbf K_i = {}^i\mathbf X_{p(i)}\mathbf K_{p(i)} + \dot{\boldsymbol\Phi}_i
    \mathbf E_i` collects :math:`{}^i\mathbf X_j\dot{\boldsymbol\Phi}_j` over the support, with
    :math:`\dot{\boldsymbol\Phi}_j = (\mathbf v_j\times)\boldsymbol\Phi_j +
    \mathring{\boldsymbol\Phi}_j` (seed 001 §1.4, seed 000 §VI-B).
    """
    status, E, r = _transforms(topo, placement, jparam, T_user, q)
    if status != OK:
        return status
    if not all_finite(v):
        return pack(NON_FINITE_INPUT, -1)
    parent, iv = topo[:-1, PARENT], topo[:, IV]
    N, nv = parent.shape[0], iv[parent.shape[0]]
    J, K, vel = np.empty((N, nv, 6)), np.zeros((N, nv, 6)), np.empty((N, 6))
    vJ = np.empty(6)
    body_jacobians(parent, iv, S, E, r, J)
    body_velocities(parent, iv, S, E, r, v, vel)
    for i in range(N):
        p = parent[i]
        if p >= 0:
            for k in range(nv):
                transform_motion(E[i], r[i], K[p, k], K[i, k])
        for k in range(iv[i], iv[i + 1]):  # Φ̇_i = (v_i ×) Φ_i + Φ̊_i
            K[i, k, :] = S_ring[k]
            cross_motion(vel[i], S[k], K[i, k])
        for k in range(nv):  # Ȧ_i = K_i − (v_i ×) A_i
            vJ[:] = 0.0
            cross_motion(vel[i], J[i, k], vJ)
            for a in range(6):
                A[i, a, k] = J[i, k, a]
                A_dot[i, a, k] = K[i, k, a] - vJ[a]
    return OK


@njit(**JIT)
def velocity_map_batch(topo, placement, jparam, S, S_ring, T_user, Q, V, A, A_dot, status):
    """:func:`velocity_map` over a batch; first failure + 1."""
    for b in range(status.shape[0]):
        status[b] = velocity_map(
            topo,
            placement,
            jparam,
            at(S, b),
            at(S_ring, b),
            at(T_user, b),
            at(Q, b),
            at(V, b),
            A[b],
            A_dot[b],
        )
    return first_failure(status)
