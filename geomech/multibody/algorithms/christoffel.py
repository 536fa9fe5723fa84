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
(seed 000 §II, Alg. 2 line 3):

.. math:: s^\ell_{ab} = \boldsymbol\Psi_\ell^\top\big[\boldsymbol\Phi_a\times\boldsymbol\Phi_b
          + \mathcal D_{:,a,b} - \mathcal D_{:,b,a}\big], \qquad
          \mathcal D_{:,b,c} = \frac{\partial\mathring{\boldsymbol\Phi}_{:,c}}{\partial\nu_b},
          \qquad \boldsymbol\Psi^\top\boldsymbol\Phi = \mathbf 1 .

References
----------
seed 000 §III (Koszul formula, eqs. 8, 9), §VI-B, Alg. 2 (eqs. 24–28; its if-branches of
lines 18–22 are taken whenever a joint has more than one DoF or a non-constant motion subspace);
seed 001 Alg. 2.
"""

from __future__ import annotations

import numpy as np

from geomech.errors import NotATreeError
from geomech.multibody._kernels.driver import call, compiled, states
from geomech.multibody._kernels.tree import christoffel as K
from geomech.multibody.algorithms.blocksparse import (
    BlockSparseTensor,
    layout_arrays,
    output,
    zeros,
)

__all__ = ["christoffel_symbols", "joint_structure_constants"]


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
    seed 000 §II (frames); the formula is checked against the bracket of the joint's vector
    fields by finite differences for free, spherical and universal joints (tests).

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
    (:math:`O(N)`), and its derivative along :math:`q` is
    :func:`~geomech.multibody.algorithms.coriolis.coriolis_matrix_derivative`.

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
        (``geomech._validation.MAX_ARRAY_BYTES``).
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
    # dense: the entries of triples on no root-to-leaf path are not written (zero); the
    # block-sparse layout is written whole (no zero-fill before the kernel's writes)
    G = output((B, size)) if sparse else zeros((B, size))
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
