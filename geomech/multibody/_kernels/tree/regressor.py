r"""The Slotine–Li regressor for one state and its batch driver.

The body wrench of the modified RNEA, :math:`\mathbf f_i = \mathbf I_i\boldsymbol\alpha_i +
\mathbf B_i(\mathbf I_i, \mathbf v_i)\mathbf w_i`, is linear in the ten inertial parameters of
body :math:`i`; its 6×10 block is a fixed linear map of

.. math:: \mathbf x_i = [\boldsymbol\alpha_i;\ \mathbf v_i\otimes\mathbf w_i] \in \mathbb R^{42},
          \qquad \mathbf F_i[k] = \mathbf E_k\boldsymbol\alpha_i
          + \textstyle\sum_{j,b}\mathbf B(\mathbf E_k, \mathbf e_j)_{:,b}\,v^j w^b

(``E_k`` the inertia of the k-th unit parameter vector), stored sparsely per body connection
(:mod:`geomech.multibody.algorithms.regressor` builds it once): ``entries`` (nnz, 2) holds the flat
index ``6 k + a`` into :math:`\mathbf F_i` and the index into :math:`\mathbf x_i` of each
nonzero ``values[t]``, body ``i`` using ``entries[span[i, 0]:span[i, 1]]``.

References
----------
seed 000 §IV-A1 (eq. 13), eqs. (20), (21); Niemeyer and Slotine (1991); Atkeson, An and
Hollerbach (1986).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from geomech.multibody._kernels.jit import JIT, at, first_failure
from geomech.multibody._kernels.spatial import (
    compose_transforms,
    dot6,
    force_to_parent,
    transform_motion_transpose,
)
from geomech.multibody._kernels.status import NON_FINITE_RESULT, OK, pack
from geomech.multibody._kernels.tables import IV, PARENT
from geomech.multibody._kernels.tree.coriolis import reference_state
from geomech.multibody._kernels.tree.kinematics import all_finite

__all__ = ["slotine_li_regressor", "slotine_li_regressor_batch"]


@njit(**JIT)
def slotine_li_regressor(
    topo,
    placement,
    jparam,
    span,
    entries,
    values,
    S,
    S_ring,
    T_user,
    q,
    v,
    v_ref,
    a_ref,
    gravity,
    Y,
):
    r"""Slotine–Li regressor for one state: ``Y`` (nv, 10 N).

    Forward pass :func:`~geomech.multibody._kernels.tree.coriolis.reference_motion`; each body's
    block :math:`\mathbf F_i` (10 wrenches) is projected on the joints of its support,
    :math:`Y_{j,i} = \boldsymbol\Phi_j^\top\,{}^i\mathbf X_j^\top\mathbf F_i` for
    :math:`j\preceq i` (zero otherwise), a product that does not depend on the frame: it is
    taken in ground coordinates, where moving :math:`\mathbf F_i` up the support costs
    nothing.
    """
    parent, iv = topo[:-1, PARENT], topo[:, IV]
    N = parent.shape[0]
    E, r = np.empty((N, 3, 3)), np.empty((N, 3))
    vel, w, alpha = np.empty((N, 6)), np.empty((N, 6)), np.empty((N, 6))
    E0, r0, Phi = np.empty((N, 3, 3)), np.empty((N, 3)), np.empty((iv[N], 6))
    x, g = np.empty(42), np.empty(6)
    F = np.empty((10, 6))
    Fflat = F.reshape(60)

    # ---- forward pass: actual twists v_i, reference twists w_i, alpha_i --------------------
    status = reference_state(
        topo, placement, jparam, S, S_ring, T_user, q, v, v_ref, a_ref, gravity, E, r, vel, w, alpha
    )
    if status != OK:
        return status

    # ---- the motion subspaces in ground coordinates ------------------------------------------
    for i in range(N):
        p = parent[i]
        if p < 0:
            E0[i, :, :] = E[i]
            r0[i, :] = r[i]
        else:
            compose_transforms(E[i], r[i], E0[p], r0[p], E0[i], r0[i])  # ^iX_0 = ^iX_p ^pX_0
        for k in range(iv[i], iv[i + 1]):
            transform_motion_transpose(E0[i], r0[i], S[k], Phi[k])

    # ---- each body's block F_i, projected on the joints of its support ---------------------
    Y[:, :] = 0.0
    for i in range(N):
        for a in range(6):  # x_i = [alpha_i; v_i ⊗ w_i]
            x[a] = alpha[i, a]
            for b in range(6):
                x[6 + 6 * a + b] = vel[i, a] * w[i, b]
        Fflat[:] = 0.0  # F_i[k] = E_k alpha_i + B(E_k, v_i) w_i
        for t in range(span[i, 0], span[i, 1]):
            Fflat[entries[t, 0]] += values[t] * x[entries[t, 1]]
        for k in range(10):  # F_i in ground coordinates: ^iX_0ᵀ F_i
            force_to_parent(E0[i], r0[i], F[k], g, False)
            F[k, :] = g
        j = i
        while j >= 0:  # j runs over the support of i, from i to the root: O(d) per body
            for m in range(iv[j], iv[j + 1]):  # Y_ji = Φ_jᵀ ^iX_jᵀ F_i, in ground coordinates
                for k in range(10):
                    Y[m, 10 * i + k] = dot6(Phi[m], F[k])
            j = parent[j]
    if not all_finite(Y):
        return pack(NON_FINITE_RESULT, -1)
    return OK


@njit(**JIT)
def slotine_li_regressor_batch(
    topo,
    placement,
    jparam,
    span,
    entries,
    values,
    S,
    S_ring,
    T_user,
    Q,
    V,
    V_ref,
    A_ref,
    G,
    Y,
    status,
):
    """:func:`slotine_li_regressor` over a batch; first failure + 1."""
    for b in range(status.shape[0]):
        status[b] = slotine_li_regressor(
            topo,
            placement,
            jparam,
            span,
            entries,
            values,
            at(S, b),
            at(S_ring, b),
            at(T_user, b),
            at(Q, b),
            at(V, b),
            at(V_ref, b),
            at(A_ref, b),
            at(G, b),
            Y[b],
        )
    return first_failure(status)
