r"""Generalized Christoffel symbols of a kinematic tree in :math:`O(Nd^2)` (seed 000 Alg. 2).

The Levi-Civita connection of the kinetic-energy metric, in the frame of the model's speeds
(:math:`\dot q = X_i\nu^i`: joint rates, body twists for free-flyers, body angular velocities
for spherical joints), has the coefficients of the first kind

.. math:: \Gamma^\star_{ijk} = \langle\!\langle X_i, \nabla^\star_{X_j} X_k\rangle\!\rangle
          = [\bar C^\star(q, e_j)]_{ik}
          = \tfrac12\big[\mathscr L_{X_k} H_{ij} + \mathscr L_{X_j} H_{ik} - \mathscr L_{X_i} H_{jk}
          + s_{kij} + s_{jik} + s_{ijk}\big]

(seed 000 eqs. 8, 10), stored as ``Gamma[..., i, j, k]`` (first index lowered, second the
direction of differentiation, third the differentiated field; DESIGN §3), so that
:math:`\bar C^\star_{ik} = \Gamma^\star_{ijk}\nu^j`. With generalized speeds the symbols are
not symmetric in :math:`(j, k)`: :math:`\Gamma^\star_{ijk} - \Gamma^\star_{ikj} = s_{ijk}`
(eq. 9). The structure constants :math:`s^\ell_{ab}` of the joint frame are those of each
joint's own speeds (motions of different joints commute), from its motion subspace and the
derivative of its rate (digest §1.1):

.. math:: s^\ell_{ab} = \boldsymbol\Psi_\ell^\top\big[\boldsymbol\Phi_a\times\boldsymbol\Phi_b
          + \mathcal D_{:,a,b} - \mathcal D_{:,b,a}\big], \qquad
          \mathcal D_{:,b,c} = \frac{\partial\mathring{\boldsymbol\Phi}_{:,c}}{\partial\nu_b},
          \qquad \boldsymbol\Psi^\top\boldsymbol\Phi = \mathbf 1 .

References
----------
seed 000 §III (Koszul formula, eqs. 8, 9), §VI-B, Alg. 2 (eqs. 24–28), digest §1.1, §5.6, §7
items 8, 13, 14; seed 001 Alg. 2.
"""

from __future__ import annotations

import numpy as np

from geomech.multibody.body_connections import _crbar, _crf, _crm6
from geomech.multibody.coriolis import _T, _check_q, _Kinematics

__all__ = ["christoffel_symbols", "joint_structure_constants"]


def _rate_derivatives(model, q) -> list:
    r"""Per body :math:`\mathcal D_i` (..., 6, d_i, d_i) with D[:, b, c] = d Phi_ring[:, c] / d nu_b.

    The rate :math:`\mathring{\boldsymbol\Phi}_i(q, \nu_i)` is linear in :math:`\nu_i`, so its
    derivative is its value at the unit speeds (seed 000 Alg. 2 l.3).
    """
    D = []
    for i, joint in enumerate(model.joints):
        d = joint.nv
        q_i = q[..., model.q_slices[i]]
        # rate at the unit speeds e_b: R[..., b, :, c] = Phi_ring(q, e_b)[:, c]
        R = joint.motion_subspace_rate(q_i[..., None, :], np.eye(d))
        D.append(np.moveaxis(R, -3, -2))  # (..., 6, b, c)
    return D


def _B_pages(inertia: np.ndarray, Phi: np.ndarray) -> np.ndarray:
    r"""Page-wise Levi-Civita :math:`\mathsf B(\mathsf I, \boldsymbol\Phi)` (..., 6, 6, d).

    Page ``c`` is :math:`\tfrac12[(\boldsymbol\Phi_c\times^*)\mathsf I + (\mathsf I
    \boldsymbol\Phi_c)\bar\times^* - \mathsf I(\boldsymbol\Phi_c\times)]` (seed 000 eq. 21).
    """
    U = np.swapaxes(Phi, -1, -2)  # (..., d, 6): the columns as vectors
    I_ = inertia[..., None, :, :]
    h = np.matmul(I_, U[..., None])[..., 0]
    B = 0.5 * (np.matmul(_crf(U), I_) + _crbar(h) - np.matmul(I_, _crm6(U)))  # (..., d, 6, 6)
    return np.moveaxis(B, -3, -1)


def _pages(M: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Page-wise product (M T)[..., i, j, k] = sum_l M[..., i, l] T[..., l, j, k]."""
    s = T.shape
    out = np.matmul(M, T.reshape(s[:-2] + (s[-2] * s[-1],)))
    return out.reshape(out.shape[:-1] + s[-2:])


def _structure_constants(model, kin: _Kinematics, D: list, batch) -> np.ndarray:
    n = model.nv
    s = np.zeros(batch + (n, n, n))
    for i in range(model.n_bodies):
        sl = model.v_slices[i]
        d = sl.stop - sl.start
        if d < 2:
            continue  # one field commutes with itself
        Phi = kin.Phi[i]
        U = np.swapaxes(Phi, -1, -2)  # (..., d, 6)
        # Phi_a x Phi_b = (Phi_a x) Phi_b, laid out [..., 6, a, b]
        cross = np.einsum("...aij,...jb->...iab", _crm6(U), Phi)
        W = cross + D[i] - np.swapaxes(D[i], -1, -2)  # + D[:, a, b] - D[:, b, a]
        # Psi^T = (Phi^T Phi)^{-1} Phi^T (any left inverse: W lies in the span of Phi)
        PhiT = _T(Phi)
        rhs = np.matmul(PhiT, W.reshape(W.shape[:-2] + (d * d,)))  # (..., l, a b)
        coef = np.linalg.solve(np.matmul(PhiT, Phi), rhs).reshape(rhs.shape[:-1] + (d, d))
        s[..., sl, sl, sl] = np.moveaxis(coef, -3, -1)  # s[a, b, l] = s^l_ab
    return s


def joint_structure_constants(model, q) -> np.ndarray:
    r"""Structure constants of the frame of the model's speeds, ``s[..., a, b, l]`` :math:`= s^\ell_{ab}`.

    .. math:: [X_a, X_b] = s^\ell_{ab} X_\ell, \qquad
              s^\ell_{ab} = \boldsymbol\Psi_\ell^\top\big[\boldsymbol\Phi_a\times
              \boldsymbol\Phi_b + \mathcal D_{:,a,b} - \mathcal D_{:,b,a}\big]

    Block diagonal: fields of different joints commute. Body-frame speeds give the
    left-invariant constants (free-flyer: :math:`s^\ell_{ab} = ((e_a\times)e_b)_\ell`;
    spherical: :math:`\epsilon_{ab\ell}`), 1-DoF joints and joints in coordinates give zero.
    Layout as :meth:`geomech.geometry.Frame.structure_constants` (upper index last).

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)

    Returns
    -------
    ndarray, shape (..., nv, nv, nv)

    Raises
    ------
    DimensionError, NonFiniteError
        If ``q`` is malformed.

    References
    ----------
    seed 000 §II (frames), digest §1.1 (formula verified for free, spherical and universal
    joints).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import MultibodyModel, Spherical
    >>> from geomech.multibody.christoffel import joint_structure_constants
    >>> model = MultibodyModel.from_bodies([-1], [Spherical()], [np.diag([1.0, 1, 1, 1, 1, 1])])
    >>> joint_structure_constants(model, model.neutral())[0, 1]  # [X_x, X_y] = X_z
    array([0., 0., 1.])
    """
    q = _check_q(model, q)
    kin = _Kinematics(model, q)
    return _structure_constants(model, kin, _rate_derivatives(model, q), q.shape[:-1])


def _christoffel(model, kin: _Kinematics, D: list, batch) -> np.ndarray:
    """Seed 000 Alg. 2 for single-body clusters (no validation)."""
    parent = model.parent.tolist()
    v_slices = model.v_slices
    N, n = model.n_bodies, model.nv
    Gamma = np.zeros(batch + (n, n, n))

    # ---- l.1-4: composite inertias start as the body inertias (D_i computed by the caller)
    I_C = [model.inertias[i] for i in range(N)]

    # ---- backward pass over k (l.5-32) ---------------------------------------------------
    for k in reversed(range(N)):
        s_k = v_slices[k]
        if s_k.stop > s_k.start:
            Bt = _B_pages(I_C[k], kin.Phi[k])  # l.6: (..., 6, 6, d_k)
            F3 = _pages(I_C[k], D[k])  # l.7: (..., 6, d_k, d_k)
            f4 = np.matmul(I_C[k], kin.Phi[k])  # l.8: (..., 6, d_k)
            j = k
            while j >= 0:  # l.10
                s_j = v_slices[j]
                d_j = s_j.stop - s_j.start
                if d_j:
                    # l.11: F1 = Bt Phi_j, F2 = Bt^T12 Phi_j (page-wise), as (..., 6, d_j, d_k)
                    F1 = np.einsum("...abc,...bj->...ajc", Bt, kin.Phi[j])
                    F2 = np.einsum("...bac,...bj->...ajc", Bt, kin.Phi[j])
                    F = np.concatenate([F1, F2], axis=-2)  # moved together up the path
                    i = j
                    while i >= 0:  # l.13
                        s_i = v_slices[i]
                        if s_i.stop > s_i.start:
                            G = _pages(kin.PhiT[i], F)  # [Phi_i^T F1 | Phi_i^T F2]
                            A1 = G[..., :d_j, :]  # l.14: (d_i, d_j, d_k)
                            A2 = G[..., d_j:, :].swapaxes(-3, -2)  # (d_j, d_i, d_k)
                            A3 = -A2.swapaxes(-3, -1)  # (d_k, d_i, d_j)
                            Gamma[..., s_i, s_j, s_k] = A1  # l.15
                            Gamma[..., s_i, s_k, s_j] = A1.swapaxes(-1, -2)
                            Gamma[..., s_j, s_i, s_k] = A2  # l.16
                            Gamma[..., s_j, s_k, s_i] = A2.swapaxes(-1, -2)
                            Gamma[..., s_k, s_i, s_j] = A3  # l.17
                            Gamma[..., s_k, s_j, s_i] = A3.swapaxes(-1, -2)
                            if i == j:  # l.18-19 (overwrites the writes above)
                                Gamma[..., s_k, s_i, s_i] = A3 + _pages(f4.swapaxes(-1, -2), D[i])
                            if j == k:  # l.21-22 (overwrites the writes above)
                                Gamma[..., s_i, s_j, s_j] = A1 + _pages(kin.PhiT[i], F3)
                        p = parent[i]
                        if j == k and p >= 0:
                            F3 = _pages(kin.X_upT[i], F3)  # l.23
                        if p >= 0:
                            F = _pages(kin.X_upT[i], F)  # l.25
                        i = p  # l.26
                p = parent[j]
                if p >= 0:  # l.28, page-wise congruence
                    X, XT = kin.X_up[j], kin.X_upT[j]
                    Bt = np.einsum("...ab,...bcd,...ce->...aed", XT, Bt, X)
                    f4 = np.matmul(XT, f4)
                j = p  # l.29
        p = parent[k]
        if p >= 0:  # l.31 (guarded at the root)
            X, XT = kin.X_up[k], kin.X_upT[k]
            I_C[p] = I_C[p] + np.matmul(XT, np.matmul(I_C[k], X))
    return Gamma


def christoffel_symbols(model, q) -> np.ndarray:
    r"""Generalized Christoffel symbols of the first kind, :math:`\Gamma^\star_{ijk}(q)`, in :math:`O(Nd^2)`.

    .. math:: \Gamma^\star_{ijk} = \langle\!\langle X_i, \nabla^\star_{X_j} X_k\rangle\!\rangle,
              \qquad \bar C^\star_{ik}(q, \nu) = \Gamma^\star_{ijk}(q)\,\nu^j,\qquad
              \Gamma^\star_{ijk} - \Gamma^\star_{ikj} = s_{ijk}

    computed by seed 000 Alg. 2 (single-body clusters), including the branches with
    :math:`\mathcal D_i = \partial\mathring{\boldsymbol\Phi}_i/\partial\nu_i` that handle
    multi-DoF joints whose fields do not commute (spherical joints and free-flyers with
    body-frame speeds) and joints with :math:`\mathring{\boldsymbol\Phi}\ne 0`. Blocks are
    zero unless the three joints lie on one root-to-leaf path.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)

    Returns
    -------
    ndarray, shape (..., nv, nv, nv)
        ``Gamma[..., i, j, k]`` (DESIGN §3: first index lowered, second the direction).

    Raises
    ------
    DimensionError, NonFiniteError
        If ``q`` is malformed.

    References
    ----------
    seed 000 Alg. 2, eqs. (8)–(10), (24)–(28); seed 001 Alg. 2 (1-DoF joints).

    Examples
    --------
    Contracting the middle index gives the Coriolis matrix of Alg. 1:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.christoffel import christoffel_symbols
    >>> from geomech.multibody.coriolis import coriolis_matrix
    >>> model = robots.random_tree(5, rng=0, floating_base=True)
    >>> q, v = model.random_configuration(rng=1), np.linspace(-1.0, 1.0, model.nv)
    >>> Gamma = christoffel_symbols(model, q)
    >>> Gamma.shape == (model.nv,) * 3
    True
    >>> bool(np.allclose(np.einsum("ijk,j->ik", Gamma, v), coriolis_matrix(model, q, v)))
    True
    """
    q = _check_q(model, q)
    kin = _Kinematics(model, q)
    return _christoffel(model, kin, _rate_derivatives(model, q), q.shape[:-1])
