r"""Generalized Christoffel symbols of a kinematic tree in :math:`O(Nd^2)` (seed 000 Alg. 2).

The Levi-Civita connection of the kinetic-energy metric, in the frame of the model's speeds
(:math:`\dot q = X_i\nu^i`: joint rates, body twists for free-flyers, body angular velocities
for spherical joints), has the coefficients of the first kind

.. math:: \Gamma^\star_{ijk} = \langle\!\langle X_i, \nabla^\star_{X_j} X_k\rangle\!\rangle
          = [\bar C^\star(q, e_j)]_{ik}
          = \tfrac12\big[\mathscr L_{X_k} H_{ij} + \mathscr L_{X_j} H_{ik} - \mathscr L_{X_i} H_{jk}
          + s_{kij} + s_{jik} + s_{ijk}\big]

(seed 000 eqs. 8, 10), stored as ``Gamma[..., i, j, k]`` (first index lowered, second the direction
of differentiation, third the differentiated field; :ref:`conventions-connections`), so that
:math:`\bar C^\star_{ik} = \Gamma^\star_{ijk}\nu^j`. With generalized speeds the symbols are not
symmetric in :math:`(j, k)`: :math:`\Gamma^\star_{ijk} - \Gamma^\star_{ikj} = s_{ijk}` (eq. 9). The
structure constants :math:`s^\ell_{ab}` of the joint frame are those of each joint's own speeds
(motions of different joints commute), from its motion subspace and the derivative of its rate
(digest §1.1):

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

from geomech.errors import NotATreeError
from geomech.multibody._kernels.driver import call, compiled, states
from geomech.multibody._kernels.tree import christoffel as K
from geomech.multibody.algorithms.blocksparse import BlockSparseTensor, layout_arrays

__all__ = ["christoffel_symbols", "joint_structure_constants", "coriolis_matrix_derivative"]


def joint_structure_constants(model, q) -> np.ndarray:
    r"""Structure constants of the frame of the model's speeds, ``s[..., a, b, l]`` :math:`=
    s^\ell_{ab}`.

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
        If ``q`` is malformed (wrong trailing shape, non-finite entries).

    References
    ----------
    seed 000 §II (frames), digest §1.1 (formula verified for free, spherical and universal
    joints).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import MultibodyModel, Spherical
    >>> from geomech.multibody.algorithms.christoffel import joint_structure_constants
    >>> model = MultibodyModel.from_bodies([-1], [Spherical()], [np.diag([1.0, 1, 1, 1, 1, 1])])
    >>> joint_structure_constants(model, model.neutral())[0, 1]  # [X_x, X_y] = X_z
    array([0., 0., 1.])
    """
    cm = compiled(model)
    batch, B, (Q,) = states(("q", q, (cm.nq,)), per_state=cm.nv**3)
    s = np.empty((B, cm.nv, cm.nv, cm.nv))
    call(
        K.structure_constants_batch,
        (cm.topo,),
        (cm.joint_arrays(Q)[0], cm.rate_derivatives(Q), Q, s),
        batch,
        model,
        names=("q", "q", "q"),
        what="the structure constants",
    )
    return s.reshape(batch + (cm.nv,) * 3)


def christoffel_symbols(model, q, *, sparse: bool = False):
    r"""Generalized Christoffel symbols of the first kind, :math:`\Gamma^\star_{ijk}(q)`, in
    :math:`O(Nd^2)`.

    .. math:: \Gamma^\star_{ijk} = \langle\!\langle X_i, \nabla^\star_{X_j} X_k\rangle\!\rangle,
              \qquad \bar C^\star_{ik}(q, \nu) = \Gamma^\star_{ijk}(q)\,\nu^j,\qquad
              \Gamma^\star_{ijk} - \Gamma^\star_{ikj} = s_{ijk}

    computed by seed 000 Alg. 2 (single-body clusters), including the branches with
    :math:`\mathcal D_i = \partial\mathring{\boldsymbol\Phi}_i/\partial\nu_i` that handle
    multi-DoF joints whose fields do not commute (spherical joints and free-flyers with
    body-frame speeds) and joints with :math:`\mathring{\boldsymbol\Phi}\ne 0`. Blocks are
    zero unless the three joints lie on one root-to-leaf path (seed 001 eq. 36).

    The dense result has :math:`n_v^3` entries, whose allocation and writing dominate the
    algorithm's :math:`O(Nd^2)` work beyond a few dozen DoFs (16 MB at :math:`n_v = 128`);
    ``sparse=True`` returns only the triples on one root-to-leaf path, :math:`O(Nd^2)` of
    them (a binary tree of 255 bodies: 0.5 % of the dense size). On a serial chain every
    triple is on the one path: both hold :math:`n_v^3` numbers. The contracted forms users
    mostly need are cheaper without the tensor: :math:`\Gamma_{ijk}\nu^j` is
    :func:`~geomech.multibody.algorithms.coriolis.coriolis_matrix` (:math:`O(Nd)`),
    :math:`\Gamma_{ijk}\nu^j\nu^k` the bias forces of
    :func:`~geomech.multibody.algorithms.dynamics.rnea` at zero gravity and acceleration
    (:math:`O(N)`), and its derivative along :math:`q` is :func:`coriolis_matrix_derivative`.

    Parameters
    ----------
    model : MultibodyModel or ClosedMultibodyModel
        On a closed model, :math:`\bar\Gamma^\star` of the independent speeds by seed 000
        Alg. 2 in cluster form
        (:func:`~geomech.multibody.closed.coriolis.closed_christoffel_symbols`).
    q : array_like, shape (..., nq)
    sparse : bool, optional
        Return a :class:`~geomech.multibody.algorithms.blocksparse.BlockSparseTensor` (trees
        only). Default False: the dense array.

    Returns
    -------
    ndarray or BlockSparseTensor, shape (..., nv, nv, nv)
        ``Gamma[..., i, j, k]`` (first index lowered, second the direction:
        :ref:`conventions-connections`); ``np.asarray`` or ``.todense()`` of the block-sparse
        result gives the dense array.

    Raises
    ------
    DimensionError, NonFiniteError, NotOnManifoldError
        If ``q`` is malformed (non-finite entries, a non-unit quaternion), the result
        overflows, or it would exceed the allocation limit
        (:data:`geomech._validation.MAX_ARRAY_BYTES`).
    NotATreeError
        If ``sparse=True`` on a closed model (its cluster Christoffel symbols are dense).

    References
    ----------
    seed 000 Alg. 2, eqs. (8)–(10), (24)–(28); seed 001 Alg. 2 (1-DoF joints), eq. (36) and
    §3 (:math:`O(Nd^2)` mutually related triples).

    Examples
    --------
    Contracting the middle index gives the Coriolis matrix of Alg. 1:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.christoffel import christoffel_symbols
    >>> from geomech.multibody.algorithms.coriolis import coriolis_matrix
    >>> model = robots.random_tree(5, rng=0, floating_base=True)
    >>> q, v = model.random_configuration(rng=1), np.linspace(-1.0, 1.0, model.nv)
    >>> Gamma = christoffel_symbols(model, q)
    >>> Gamma.shape == (model.nv,) * 3
    True
    >>> bool(np.allclose(np.einsum("ijk,j->ik", Gamma, v), coriolis_matrix(model, q, v)))
    True

    The block-sparse result holds the same numbers:

    >>> G = christoffel_symbols(model, q, sparse=True)
    >>> G.nnz < model.nv**3, bool(np.array_equal(G.todense(), Gamma))
    (True, True)
    """
    if getattr(model, "is_closed", False):  # seed 000 Alg. 2 in cluster form
        if sparse:
            raise NotATreeError(
                "Expected a kinematic tree for sparse=True: the Christoffel symbols of a closed "
                "model (in its independent speeds) couple the joints of a cluster and are "
                "returned dense; call christoffel_symbols(model, q) without sparse=True."
            )
        return model.ALGORITHMS["christoffel_symbols"](model, q)
    cm = compiled(model)
    lay, layout_args, size = layout_arrays(model, bool(sparse))
    batch, B, (Q,) = states(("q", q, (cm.nq,)), per_state=size)
    S, _, T_user = cm.joint_arrays(Q)
    G = np.zeros((B, size))  # the entries the algorithm does not write are zero
    call(
        K.christoffel_batch,
        (*cm.arrays(), *layout_args),
        (S, cm.rate_derivatives(Q), T_user, Q, G),
        batch,
        model,
        names=("q", "q", "q", "q"),
        what="the Christoffel symbols",
    )
    if sparse:
        return BlockSparseTensor(G.reshape(batch + (size,)), lay)
    return G.reshape(batch + (cm.nv,) * 3)


def _speed_brackets(model, v) -> np.ndarray:
    r"""``K[..., l, k]`` :math:`= s^\ell_{jk}\nu^j`, block diagonal, of the built-in joints.

    Their speed fields have constant structure constants, :math:`s^\ell_{ab} =
    \boldsymbol\Psi_\ell^\top(\mathbf S_a\times\mathbf S_b)` with the body-frame motion
    subspace :math:`\mathbf S` (digest §1.1), so block :math:`i` is :math:`\boldsymbol\Psi_i^\top
    ((\mathbf S_i\nu_i)\times)\mathbf S_i` (seed 000 eq. 30); zero for 1-DoF joints.
    """
    from geomech.spatial import crm

    S = model.compiled.S[0]  # (nv, 6) rows, constant for built-in joints
    K_ = np.zeros(v.shape + (v.shape[-1],))
    for sl in model.v_slices:
        if sl.stop - sl.start < 2:
            continue
        Sb = S[sl].T  # (6, d)
        Psi_T = np.linalg.pinv(Sb)  # (d, 6): Ψᵀ, a left inverse of S
        w = v[..., sl] @ Sb.T  # (..., 6): S ν_i
        K_[..., sl, sl] = Psi_T @ crm(w) @ Sb
    return K_


def coriolis_matrix_derivative(model, q, v, dq) -> np.ndarray:
    r"""Derivative of the Christoffel-consistent Coriolis matrix along a direction,
    :math:`\sum_b \delta q^b X_b\bar C^\star(q, \nu)`, without forming :math:`\Gamma`.

    .. math:: \frac{d}{d\epsilon}\bar C^\star(q\oplus\epsilon\,\delta q, \nu)\Big|_0
              = \tfrac12\Big[\sum_b\frac{\partial^2\boldsymbol\tau}{\partial q_b\,
              \partial\nu}\,\delta q^b
              + \Big(\sum_b\frac{\partial\mathbf M}{\partial q_b}\,\delta q^b\Big)K\Big],
              \qquad K_{\ell k} = s^\ell_{jk}\nu^j

    (the derivative along :math:`X_b` of seed 000 eq. 29, :math:`\bar C^\star = \tfrac12
    [\partial c/\partial\nu + HK]`, with constant structure constants :math:`s`: the
    built-in joints), from the block-sparse second-order partials of inverse dynamics
    (:func:`~geomech.multibody.algorithms.derivatives.rnea_second_derivatives`, seed 002
    Alg. 1) contracted with :math:`\delta q`: :math:`O(Nd^2)` work and memory. Where those
    would hold more than 32 MiB (long chains: :math:`4n_v^3` numbers), the derivative of
    :math:`\partial c/\partial\nu` is taken column by column instead, from the first-order
    partials of RNEA at :math:`\nu\pm e_k` (:math:`c` is quadratic in :math:`\nu`), in
    :math:`O(n_v^2)` memory and :math:`O(n_v(Nd + n_v^2))` work, and :math:`\sum_b
    (\partial\mathbf M/\partial q_b)\,\delta q^b` is
    :func:`~geomech.multibody.algorithms.coriolis.mass_matrix_derivative` along
    :math:`\delta q`. :math:`\bar C^\star = \Gamma^\star\nu` is
    :func:`~geomech.multibody.algorithms.coriolis.coriolis_matrix` with the Levi-Civita
    connection; the derivative is along ``model.integrate``
    (:math:`q\oplus\epsilon\,\delta q`), a body-frame twist for free-flyers and spherical
    joints.

    Parameters
    ----------
    model : MultibodyModel
        A tree of built-in joints.
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    dq : array_like, shape (..., nv)
        The direction :math:`\delta q` (a tangent vector in the model's speeds).

    Returns
    -------
    ndarray, shape (..., nv, nv)
        ``dC[..., i, k]``.

    Raises
    ------
    DimensionError, NonFiniteError, NotOnManifoldError, ModelError, NotATreeError
        As :func:`~geomech.multibody.algorithms.derivatives.rnea_second_derivatives` (closed
        models and user-defined joints are refused).

    References
    ----------
    seed 000 eqs. (29)–(30); seed 002 Alg. 1; seed 001 eq. (3)
    (:math:`C^\star_{ik} = \Gamma_{ijk}\dot q_j`).

    Examples
    --------
    Against a central difference of the Coriolis matrix along the flow:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.christoffel import coriolis_matrix_derivative
    >>> from geomech.multibody.algorithms.coriolis import coriolis_matrix
    >>> model = robots.random_tree(4, rng=0, floating_base=True)
    >>> q, v = model.random_configuration(rng=1), np.linspace(-1.0, 1.0, model.nv)
    >>> dq, h = np.cos(np.arange(model.nv)), 1e-6
    >>> fd = (coriolis_matrix(model, model.integrate(q, dq, h), v)
    ...       - coriolis_matrix(model, model.integrate(q, dq, -h), v)) / (2 * h)
    >>> bool(np.allclose(coriolis_matrix_derivative(model, q, v, dq), fd, atol=1e-6))
    True
    """
    if getattr(model, "is_closed", False):
        raise NotATreeError(
            "Expected a kinematic tree: the derivative of the Coriolis matrix of a closed model "
            "is not available; model.spanning_tree gives that of its spanning tree."
        )
    nv = compiled(model).nv
    v, dq = np.asarray(v, dtype=float), np.asarray(dq, dtype=float)
    _check_vector(v, nv, "v")
    _check_vector(dq, nv, "dq")
    batch = np.broadcast_shapes(np.shape(q)[:-1], v.shape[:-1], dq.shape[:-1])
    B = int(np.prod(batch))
    if 4 * layout_arrays(model, True)[2] * B <= _CHUNK:
        X_dcdv, X_H = _derivatives_by_idsva(model, q, v, dq)
    else:  # a long chain: 4 nv³ numbers would not pay; O(nv²) memory instead
        X_dcdv, X_H = _derivatives_by_polarization(model, q, v, dq, batch)
    K_ = _speed_brackets(model, np.broadcast_to(v, X_H.shape[:-1]))
    return 0.5 * (X_dcdv + X_H @ K_)


#: float64 numbers a step of :func:`coriolis_matrix_derivative` may hold at once (32 MiB)
_CHUNK = 2**22


def _derivatives_by_idsva(model, q, v, dq):
    """``(X_δ ∂c/∂ν, X_δ H)`` from the block-sparse IDSVA SO partials contracted with δq."""
    from geomech.multibody.algorithms.derivatives import rnea_second_derivatives

    zero = np.zeros(v.shape[-1])
    # ∂²τ/∂q∂ν and ∂M/∂q do not depend on the acceleration nor on gravity
    d2 = rnea_second_derivatives(model, q, v, zero, gravity=np.zeros(3), sparse=True)
    X_dcdv = d2.d2tau_dqdv.contract(dq, axis=1)  # [a, c] = Σ_b ∂²τ_a/∂q_b∂ν_c δq_b
    X_H = d2.dM_dq.contract(dq, axis=2)  # [a, l] = Σ_b ∂M_al/∂q_b δq_b
    return X_dcdv, X_H


def _derivatives_by_polarization(model, q, v, dq, batch):
    r"""``(X_δ ∂c/∂ν, X_δ H)`` in :math:`O(n_v^2)` memory per state.

    :math:`c(q, \nu)` is quadratic in :math:`\nu`, so column ``k`` of :math:`\partial c/
    \partial\nu` is :math:`\tfrac12[c(\nu + e_k) - c(\nu - e_k)]` exactly, and its derivative
    along :math:`\delta q` is :math:`\tfrac12[\partial_q c(\nu + e_k) - \partial_q c(\nu -
    e_k)]\,\delta q` (first-order partials of RNEA, seed 002 eqs. 7–8), taken for a chunk of
    ``k`` at a time; :math:`X_\delta H` is :math:`\dot H` along :math:`\delta q`.
    """
    from geomech.multibody.algorithms.coriolis import mass_matrix_derivative
    from geomech.multibody.algorithms.derivatives import rnea_derivatives

    n = v.shape[-1]
    q = np.asarray(q, dtype=float)
    E = np.eye(n)
    out = np.empty(batch + (n, n))
    step = max(1, _CHUNK // (2 * n * n * max(1, int(np.prod(batch)))))
    zero, g0 = np.zeros(n), np.zeros(3)
    for k0 in range(0, n, step):
        ks = slice(k0, min(n, k0 + step))
        V = np.stack([v[..., None, :] + E[ks], v[..., None, :] - E[ks]], axis=-3)
        DQ, _ = rnea_derivatives(model, q[..., None, None, :], V, zero, gravity=g0)
        col = (DQ[..., 0, :, :, :] - DQ[..., 1, :, :, :]) @ dq[..., None, :, None]
        out[..., :, ks] = np.swapaxes(0.5 * col[..., 0], -1, -2)  # [.., i, k]
    return out, mass_matrix_derivative(model, q, dq)


def _check_vector(x, nv, name):
    from geomech.errors import DimensionError

    if x.ndim < 1 or x.shape[-1] != nv:
        raise DimensionError(f"Expected `{name}` to have shape (..., {nv}), got {x.shape}.")
    return x
