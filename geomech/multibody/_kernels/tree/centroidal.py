r"""Centroidal kernels: centre of mass, centroidal momentum matrix, its rate, centroidal inertia.

One pass pair over the tree, in ground coordinates (the world's axes and origin, as in
:func:`~geomech.multibody._kernels.tree.dynamics.crba`), after Orin, Goswami and Lee's
:math:`O(N)` algorithm for the centroidal momentum matrix:

* forward pass: the transforms :math:`{}^i\mathbf X_0`, the motion subspaces
  :math:`{}^0\boldsymbol\Phi_i = {}^0\mathbf X_i\boldsymbol\Phi_i` and the body inertias
  :math:`{}^0\mathbf I_i` in ground coordinates, and, for the rate, the ground twists
  :math:`{}^0\mathbf v_i = {}^0\mathbf v_{p(i)} + {}^0\boldsymbol\Phi_i\nu_i` and the
  inertia rates :math:`{}^0\dot{\mathbf I}_i = {}^0\mathbf v_i\times^*{}^0\mathbf I_i -
  {}^0\mathbf I_i\,{}^0\mathbf v_i\times`;
* backward pass: the composite inertias :math:`\mathbf I^C_i = \sum_{j\succeq i}
  {}^0\mathbf I_j` and their rates (plain sums in ground coordinates: no transform), and
  the columns of joint ``i``, :math:`\mathbf A_O\mathbf e_k = \mathbf I^C_i\,{}^0
  \boldsymbol\Phi_i\mathbf e_k`, the momentum about the world origin per unit speed;
* the total mass :math:`m` and first moment :math:`\mathbf h` (the roots' composites)
  give the centre of mass :math:`\mathbf c = \mathbf h / m`, and the momentum is moved to
  it: :math:`\mathbf A_G = [\mathbf A_{O,\omega} - \mathbf c\times\mathbf A_{O,u};\
  \mathbf A_{O,u}]` (rows angular first: :math:`\mathbf k_G` then :math:`\mathbf l_G`).

The rate is the entrywise time derivative along the motion (the product rule on every
factor): :math:`\dot{\mathbf A}_O\mathbf e_k = \dot{\mathbf I}^C_i\,{}^0\boldsymbol\Phi_i
\mathbf e_k + \mathbf I^C_i({}^0\mathbf v_i\times{}^0\boldsymbol\Phi_i\mathbf e_k +
{}^0\mathbf X_i\mathring{\boldsymbol\Phi}_i\mathbf e_k)`, and :math:`\dot{\mathbf A}_G =
[\dot{\mathbf A}_{O,\omega} - \mathbf c\times\dot{\mathbf A}_{O,u} - \dot{\mathbf c}\times
\mathbf A_{O,u};\ \dot{\mathbf A}_{O,u}]` with :math:`\dot{\mathbf c} = \mathbf A_{O,u}\nu
/ m`.

Arguments: ``topo``, ``placement``, ``jparam``, ``inertia`` of the compiled model, then the
per-state arrays; kernels return a packed status, ``*_batch`` drivers the first failure
+ 1, ``*_one`` entries take the packed model.

References
----------
D. E. Orin, A. Goswami and S.-H. Lee, "Centroidal dynamics of a humanoid robot", Autonomous
Robots 35 (2013) 161–176 (the centroidal momentum matrix :math:`\mathbf A_G` as
:math:`{}^i\mathbf X_G^\top\mathbf I^C_i\boldsymbol\Phi_i` per joint, the centroidal
composite rigid-body inertia, the :math:`O(N)` algorithm); Featherstone 2008, Table 6.2
(CRBA: composite inertias) and eq. 2.66 (inertia transforms); seed 001 §1.4
(:math:`\dot{\boldsymbol\Phi} = (\mathbf v\times)\boldsymbol\Phi + \mathring{\boldsymbol
\Phi}`); Pinocchio's ``computeCentroidalMap`` and ``dccrba`` (the reference values).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from geomech.multibody._kernels.compiled import unpack
from geomech.multibody._kernels.jit import JIT
from geomech.multibody._kernels.joints import USER
from geomech.multibody._kernels.spatial import (
    compose_transforms,
    cross_motion,
    inertia_params,
    inertia_params_rate,
    inertia_params_times,
    inertia_params_transform,
    transform_motion_transpose,
)
from geomech.multibody._kernels.status import NON_FINITE_INPUT, OK, pack
from geomech.multibody._kernels.tables import IQ, IV, JTYPE, PARENT
from geomech.multibody._kernels.tree.dynamics import at
from geomech.multibody._kernels.tree.kinematics import all_finite, tree_transforms
from geomech.multibody._kernels.views import view

__all__ = [
    "COM",
    "INERTIA",
    "MAP",
    "MAP_RATE",
    "centroidal_workspace",
    "centroidal",
    "center_of_mass_batch",
    "center_of_mass_one",
    "centroidal_map_batch",
    "centroidal_map_one",
    "centroidal_map_rate_batch",
    "centroidal_map_rate_one",
    "centroidal_inertia_batch",
    "centroidal_inertia_one",
]

#: what :func:`centroidal` computes: the centre of mass only (first moments, no inertias)
COM = 0
#: the centre of mass and the centroidal inertia (no composite inertias)
INERTIA = 1
#: ... and the centroidal momentum matrix
MAP = 2
#: ... and its rate (needs ``v``)
MAP_RATE = 3


@njit(**JIT)
def centroidal_workspace(N, nv):
    """Work arrays of :func:`centroidal`, then scratch outputs ``(com, A, A_dot, I_G)``.

    One allocation, viewed in blocks; the last block ``s`` (28,) holds the total inertia's
    parameters and three 6-vectors.
    """
    buf = np.empty(50 * N + 18 * nv + 67)
    o = 0
    E, o = view(buf, o, (N, 3, 3)), o + 9 * N  # ^iX_p(i)
    r, o = view(buf, o, (N, 3)), o + 3 * N
    E0, o = view(buf, o, (N, 3, 3)), o + 9 * N  # ^iX_0
    r0, o = view(buf, o, (N, 3)), o + 3 * N
    I_C, o = view(buf, o, (N, 10)), o + 10 * N  # composite inertias (ground, parameters)
    I_C_dot, o = view(buf, o, (N, 10)), o + 10 * N  # their rates
    Phi, o = view(buf, o, (nv, 6)), o + 6 * nv  # ^0Φ columns
    ov, o = view(buf, o, (N, 6)), o + 6 * N  # ground twists
    com, o = buf[o : o + 3], o + 3  # scratch outputs
    A, o = view(buf, o, (6, nv)), o + 6 * nv
    A_dot, o = view(buf, o, (6, nv)), o + 6 * nv
    I_G, o = view(buf, o, (6, 6)), o + 36
    return E, r, E0, r0, I_C, I_C_dot, Phi, ov, com, A, A_dot, I_G, buf[o : o + 28]


@njit(**JIT)
def centroidal(
    topo, placement, jparam, inertia, S, S_ring, T_user, q, v, mode, work, com, A, A_dot, I_G
):
    r"""Centre of mass ``com`` (3,) and, by ``mode``, the centroidal inertia ``I_G`` (6, 6)
    (``INERTIA`` and up), :math:`\mathbf A_G` (6, nv) (``MAP``) and :math:`\dot{\mathbf A}_G`
    (6, nv) (``MAP_RATE``).

    The passes of the module docstring; ``v`` is read only for ``MAP_RATE``. ``COM`` sums the
    bodies' first moments :math:`\mathbf R_i\mathbf h_i + m_i\mathbf p_i` only, ``INERTIA``
    their ground inertias (no composite pass). ``I_G`` is the centroidal composite
    rigid-body inertia :math:`\operatorname{diag}(\bar{\mathbf I}_G, m\mathbf 1)` (world
    axes, about the centre of mass). Returns a packed status.
    """
    E, r, E0, r0, I_C, I_C_dot, Phi, ov = work[:8]
    small = work[12]
    parent, jtype, iq, iv = topo[:-1, PARENT], topo[:-1, JTYPE], topo[:, IQ], topo[:, IV]
    N, nv = parent.shape[0], iv[parent.shape[0]]
    if not all_finite(q) or (mode == MAP_RATE and not all_finite(v)):
        return pack(NON_FINITE_INPUT, -1)
    status = tree_transforms(jtype, iq, placement, jparam, T_user, q, E, r)
    if status != OK:
        return status
    rate, with_map = mode == MAP_RATE, mode >= MAP
    total, x, y, z = small[:10], small[10:16], small[16:22], small[22:28]
    total[:] = 0.0

    # ---- forward pass: ^iX_0, ^0Φ_i, ^0I_i (and ^0v_i, ^0İ_i) ---------------------------
    for i in range(N):
        p = parent[i]
        if p < 0:
            for a in range(3):
                r0[i, a] = r[i, a]
                for b in range(3):
                    E0[i, a, b] = E[i, a, b]
        else:  # ^iX_0 = ^iX_p(i) ^p(i)X_0 (Featherstone 2008, §4.1)
            compose_transforms(E[i], r[i], E0[p], r0[p], E0[i], r0[i])
        if mode == COM:  # m_i and the first moment R_i h_i + m_i p_i (R_i = E0ᵀ, p_i = r0)
            m_i, h0, h1, h2 = inertia[i, 5, 5], inertia[i, 2, 4], inertia[i, 0, 5], inertia[i, 1, 3]
            total[0] += m_i
            for a in range(3):
                total[1 + a] += E0[i, 0, a] * h0 + E0[i, 1, a] * h1 + E0[i, 2, a] * h2
                total[1 + a] += m_i * r0[i, a]
            continue
        inertia_params(inertia[i], I_C[i])  # CRBA l.5: I^C_i = I_i, here in ground coordinates
        inertia_params_transform(E0[i], r0[i], I_C[i], I_C[i])  # ^0I_i = ^iX_0ᵀ I_i ^iX_0
        if not with_map:  # the sum of the ground inertias is the total's
            for a in range(10):
                total[a] += I_C[i, a]
            continue
        for k in range(iv[i], iv[i + 1]):  # ^0Φ_i = ^0X_i Φ_i (= (^iX_0)⁻¹ Φ_i)
            transform_motion_transpose(E0[i], r0[i], S[k], Phi[k])
        if rate:
            for a in range(6):  # ^0v_i = ^0v_p(i) + ^0Φ_i ν_i (seed 001 eq. 5, ground coords)
                ov[i, a] = 0.0 if p < 0 else ov[p, a]
            for k in range(iv[i], iv[i + 1]):
                for a in range(6):
                    ov[i, a] += Phi[k, a] * v[k]
            # ^0İ_i = ^0v_i ×* ^0I_i − ^0I_i ^0v_i × (the rate of a body-fixed inertia)
            inertia_params_rate(I_C[i], ov[i], I_C_dot[i])

    # ---- backward pass: composite inertias and the columns of A_O, joint by joint --------
    for i in range(N - 1 if with_map else -1, -1, -1):
        for k in range(iv[i], iv[i + 1]):
            inertia_params_times(I_C[i], Phi[k], x)  # A_O e_k = I^C_i ^0Φ_i e_k (CRBA l.10)
            for a in range(6):
                A[a, k] = x[a]
            if not rate:
                continue
            # d/dt (I^C_i ^0Φ_i) = İ^C_i ^0Φ_i + I^C_i (^0v_i × ^0Φ_i + ^0X_i Φ̊_i), by column
            y[:] = 0.0
            cross_motion(ov[i], Phi[k], y)
            if jtype[i] == USER:  # Φ̊ = 0 for the built-in joints
                transform_motion_transpose(E0[i], r0[i], S_ring[k], z)
                for a in range(6):
                    y[a] += z[a]
            inertia_params_times(I_C[i], y, z)
            inertia_params_times(I_C_dot[i], Phi[k], x)
            for a in range(6):
                A_dot[a, k] = x[a] + z[a]
        p = parent[i]
        # CRBA l.24: I^C_p(i) += I^C_i, a plain sum in ground coordinates (the roots: total)
        for a in range(10):
            if p >= 0:
                I_C[p, a] += I_C[i, a]
            else:
                total[a] += I_C[i, a]
        if rate and p >= 0:
            for a in range(10):
                I_C_dot[p, a] += I_C_dot[i, a]

    # ---- the centre of mass, and the momentum moved to it ---------------------------------
    m = total[0]
    c0, c1, c2 = total[1] / m, total[2] / m, total[3] / m  # c = h / m
    com[0], com[1], com[2] = c0, c1, c2
    if mode == COM:
        return OK
    if with_map:
        d0 = d1 = d2 = 0.0
        if rate:  # ċ = A_O,u ν / m (the linear momentum over the mass)
            for k in range(nv):
                d0 += A[3, k] * v[k]
                d1 += A[4, k] * v[k]
                d2 += A[5, k] * v[k]
            d0, d1, d2 = d0 / m, d1 / m, d2 / m
        for k in range(nv):
            l0, l1, l2 = A[3, k], A[4, k], A[5, k]
            A[0, k] -= c1 * l2 - c2 * l1  # k_G = k_O − c × l
            A[1, k] -= c2 * l0 - c0 * l2
            A[2, k] -= c0 * l1 - c1 * l0
            if rate:  # d/dt: − c × l̇ − ċ × l
                e0, e1, e2 = A_dot[3, k], A_dot[4, k], A_dot[5, k]
                A_dot[0, k] -= c1 * e2 - c2 * e1 + d1 * l2 - d2 * l1
                A_dot[1, k] -= c2 * e0 - c0 * e2 + d2 * l0 - d0 * l2
                A_dot[2, k] -= c0 * e1 - c1 * e0 + d0 * l1 - d1 * l0
    # I_G: Ī_G = Ī_O − m (|c|² 1 − c cᵀ) (parallel axes, Featherstone 2008, eq. 2.63)
    cc = c0 * c0 + c1 * c1 + c2 * c2
    I_G[:, :] = 0.0
    I_G[0, 0] = total[4] - m * (cc - c0 * c0)
    I_G[0, 1] = I_G[1, 0] = total[5] + m * c0 * c1
    I_G[1, 1] = total[6] - m * (cc - c1 * c1)
    I_G[0, 2] = I_G[2, 0] = total[7] + m * c0 * c2
    I_G[1, 2] = I_G[2, 1] = total[8] + m * c1 * c2
    I_G[2, 2] = total[9] - m * (cc - c2 * c2)
    I_G[3, 3] = I_G[4, 4] = I_G[5, 5] = m
    return OK


# ----------------------------------------------------------------------------------------
# entry points: one per public function, batch and single state
# ----------------------------------------------------------------------------------------
@njit(**JIT)
def center_of_mass_batch(topo, placement, jparam, inertia, S, S_ring, T_user, Q, com, status):
    """Centres of mass (B, 3); first failure + 1."""
    N = topo.shape[0] - 1
    work = centroidal_workspace(N, topo[N, IV])
    failed = 0
    for b in range(status.shape[0]):
        status[b] = centroidal(
            topo, placement, jparam, inertia, at(S, b), at(S_ring, b), at(T_user, b),
            at(Q, b), at(Q, b), COM, work, com[b], work[9], work[10], work[11],
        )  # fmt: skip
        if status[b] != OK and failed == 0:
            failed = b + 1
    return failed


@njit(**JIT)
def center_of_mass_one(topo, packed, q, com):
    """The centre of mass (3,) of one state, the model packed."""
    placement, jparam, inertia, S, S_ring, T_user, _ = unpack(topo, packed)
    N = topo.shape[0] - 1
    work = centroidal_workspace(N, topo[N, IV])
    return centroidal(
        topo, placement, jparam, inertia, S, S_ring, T_user, q, q, COM, work, com, work[9],
        work[10], work[11],
    )  # fmt: skip


@njit(**JIT)
def centroidal_map_batch(topo, placement, jparam, inertia, S, S_ring, T_user, Q, com, A, status):
    r"""Centres of mass (B, 3) and :math:`\mathbf A_G` (B, 6, nv); first failure + 1."""
    N = topo.shape[0] - 1
    work = centroidal_workspace(N, topo[N, IV])
    failed = 0
    for b in range(status.shape[0]):
        status[b] = centroidal(
            topo, placement, jparam, inertia, at(S, b), at(S_ring, b), at(T_user, b),
            at(Q, b), at(Q, b), MAP, work, com[b], A[b], work[10], work[11],
        )  # fmt: skip
        if status[b] != OK and failed == 0:
            failed = b + 1
    return failed


@njit(**JIT)
def centroidal_map_one(topo, packed, q, com, A):
    r""":math:`\mathbf A_G` (6, nv) and the centre of mass of one state, the model packed."""
    placement, jparam, inertia, S, S_ring, T_user, _ = unpack(topo, packed)
    N = topo.shape[0] - 1
    work = centroidal_workspace(N, topo[N, IV])
    return centroidal(
        topo, placement, jparam, inertia, S, S_ring, T_user, q, q, MAP, work, com, A,
        work[10], work[11],
    )  # fmt: skip


@njit(**JIT)
def centroidal_map_rate_batch(
    topo, placement, jparam, inertia, S, S_ring, T_user, Q, V, A_dot, status
):
    r""":math:`\dot{\mathbf A}_G` (B, 6, nv); first failure + 1."""
    N = topo.shape[0] - 1
    work = centroidal_workspace(N, topo[N, IV])
    failed = 0
    for b in range(status.shape[0]):
        status[b] = centroidal(
            topo, placement, jparam, inertia, at(S, b), at(S_ring, b), at(T_user, b),
            at(Q, b), at(V, b), MAP_RATE, work, work[8], work[9], A_dot[b], work[11],
        )  # fmt: skip
        if status[b] != OK and failed == 0:
            failed = b + 1
    return failed


@njit(**JIT)
def centroidal_map_rate_one(topo, packed, q, v, A_dot):
    r""":math:`\dot{\mathbf A}_G` (6, nv) of one state, the model packed."""
    placement, jparam, inertia, S, S_ring, T_user, _ = unpack(topo, packed)
    N = topo.shape[0] - 1
    work = centroidal_workspace(N, topo[N, IV])
    return centroidal(
        topo, placement, jparam, inertia, S, S_ring, T_user, q, v, MAP_RATE, work, work[8],
        work[9], A_dot, work[11],
    )  # fmt: skip


@njit(**JIT)
def centroidal_inertia_batch(topo, placement, jparam, inertia, S, S_ring, T_user, Q, I_G, status):
    """Centroidal composite rigid-body inertias (B, 6, 6); first failure + 1."""
    N = topo.shape[0] - 1
    work = centroidal_workspace(N, topo[N, IV])
    failed = 0
    for b in range(status.shape[0]):
        status[b] = centroidal(
            topo, placement, jparam, inertia, at(S, b), at(S_ring, b), at(T_user, b),
            at(Q, b), at(Q, b), INERTIA, work, work[8], work[9], work[10], I_G[b],
        )  # fmt: skip
        if status[b] != OK and failed == 0:
            failed = b + 1
    return failed


@njit(**JIT)
def centroidal_inertia_one(topo, packed, q, I_G):
    """The centroidal composite rigid-body inertia (6, 6) of one state, the model packed."""
    placement, jparam, inertia, S, S_ring, T_user, _ = unpack(topo, packed)
    N = topo.shape[0] - 1
    work = centroidal_workspace(N, topo[N, IV])
    return centroidal(
        topo, placement, jparam, inertia, S, S_ring, T_user, q, q, INERTIA, work, work[8],
        work[9], work[10], I_G,
    )  # fmt: skip
