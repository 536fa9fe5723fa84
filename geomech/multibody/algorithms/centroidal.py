r"""Centroidal quantities: centre of mass and its Jacobian, centroidal momentum matrix and rate.

The centroidal momentum :math:`\mathbf h_G = [\mathbf k_G; \mathbf l_G]` is the sum of the
bodies' momenta moved to the centre of mass :math:`\mathbf c` in world axes, angular first
(:math:`\mathbf k_G` the angular momentum about :math:`\mathbf c`, :math:`\mathbf l_G =
m\dot{\mathbf c}` the linear momentum). It is linear in the speeds,

.. math:: \mathbf h_G = \mathbf A_G(q)\,\nu,\qquad
          \dot{\mathbf h}_G = \mathbf A_G\dot\nu + \dot{\mathbf A}_G\nu

with :math:`\mathbf A_G` the centroidal momentum matrix (Orin, Goswami and Lee 2013). All
functions run one :math:`O(N)` compiled kernel
(``geomech.multibody._kernels.tree.centroidal``): composite inertias in ground
coordinates, the columns :math:`\mathbf I^C_i\,{}^0\boldsymbol\Phi_i`, then the move to the
centre of mass. Every function accepts leading batch dimensions; for a closed model the
spanning tree is evaluated and the matrices are taken with respect to the independent
speeds (:math:`\mathbf A_G G`, :math:`\dot{\mathbf A}_G G + \mathbf A_G\dot G`).

Pinocchio's rows are linear first (:math:`[\mathbf l_G; \mathbf k_G]`): its ``Ag`` and
``dAg`` are these matrices with the two row blocks swapped (and the columns permuted as
:class:`~geomech.interop.pinocchio.PinocchioBridge` permutes speeds).

References
----------
D. E. Orin, A. Goswami and S.-H. Lee, "Centroidal dynamics of a humanoid robot", Autonomous
Robots 35 (2013) 161–176; Featherstone 2008, Table 6.2 (composite inertias); Pinocchio's
``centerOfMass``, ``jacobianCenterOfMass``, ``computeCentroidalMap`` and ``dccrba``.
"""

from __future__ import annotations

import weakref

import numpy as np

from geomech.errors import ModelError
from geomech.multibody._kernels.driver import (
    are_states,
    call,
    compiled,
    entry,
    failure,
    is_state,
    single_state,
    states,
)
from geomech.multibody._kernels.tree import centroidal as K

#: total mass of each model (tree) seen, for the check of :func:`_tree`
_MASS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

__all__ = [
    "center_of_mass",
    "center_of_mass_jacobian",
    "centroidal_momentum_matrix",
    "centroidal_momentum_matrix_rate",
    "centroidal_inertia",
]


def _tree(model):
    """``(tree, closed, mass)``, after checking that the model has mass (else no centre of mass)."""
    closed = bool(getattr(model, "is_closed", False))
    tree = model.spanning_tree if closed else model
    try:
        mass = _MASS[tree]
    except (KeyError, TypeError):
        cm = compiled(tree)  # a named error for anything that is not a model
        mass = _MASS[tree] = float(np.sum(cm.inertia[:, 5, 5]))
    if not mass > 0.0:
        raise ModelError(
            f"Expected a model with a positive total mass, got {mass:g}: its centre of mass "
            "and centroidal momentum are undefined (every body massless?)."
        )
    return tree, closed, mass


def _check(model, closed, q):
    return model.check_configuration(q) if closed else q


def _com_and_map(tree, q, with_map):
    """``(c, A_G)`` of the tree (``A_G`` only if ``with_map``), single state or batch."""
    single = getattr(tree, "_single", None) or single_state(tree)
    if single is not None:
        topo, packed, nq, nv = single
        if is_state(q, nq):
            c = np.empty(3)
            if with_map:
                A = np.empty((6, nv))
                status = entry(K.centroidal_map_one)(topo, packed, q, c, A)
            else:
                A = None
                status = entry(K.center_of_mass_one)(topo, packed, q, c)
            if status:
                raise failure(status, tree, ("q",), (q,), "the centre of mass")
            return c, A
    cm = compiled(tree)
    batch, B, (Q,) = states(("q", q, (cm.nq,)))
    S, S_ring, T_user = cm.joint_arrays(Q)
    c = np.empty((B, 3))
    if with_map:
        A = np.empty((B, 6, cm.nv))
        kernel, outs = K.centroidal_map_batch, (c, A)
    else:
        A = None
        kernel, outs = K.center_of_mass_batch, (c,)
    call(
        kernel,
        cm.arrays(),
        (S, S_ring, T_user, Q, *outs),
        batch,
        tree,
        names=("q", "q", "q", "q"),
        what="the centroidal momentum matrix" if with_map else "the centre of mass",
    )
    c = c.reshape(batch + (3,))
    return c, (None if A is None else A.reshape(batch + (6, cm.nv)))


def center_of_mass(model, q) -> np.ndarray:
    r"""Centre of mass of the model in the world frame.

    .. math:: \mathbf c = \frac{1}{m}\sum_i m_i\,\mathbf c_i(q),\qquad m = \sum_i m_i

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
        Configurations (closed configurations for a closed model).

    Returns
    -------
    ndarray, shape (..., 3)

    Raises
    ------
    ModelError
        If the model has no mass.
    DimensionError, NonFiniteError
        If ``q`` is malformed.
    NotOnManifoldError
        If a quaternion in ``q`` is not of unit norm (or, for a closed model, ``q``
        violates the loop constraints).

    Notes
    -----
    Every body of the model counts, also a body welded to the world by
    :class:`~geomech.multibody.model.joints.Fixed` joints (it stays where it is, and enters the
    potential energy :math:`-m\mathbf g^\top\mathbf c` like any other);
    :func:`~geomech.interop.pinocchio.to_pinocchio` appends such a body to Pinocchio's
    ``universe`` joint, whose inertia Pinocchio leaves out of its centre of mass. A URDF's
    fixed root link is no body (its inertia is kept apart as the base node's
    ``base_inertia``): there both agree.

    References
    ----------
    Orin, Goswami and Lee 2013; Pinocchio's ``centerOfMass``.

    Examples
    --------
    The double pendulum's two unit masses hang 1 m and 2 m below the first joint:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.centroidal import center_of_mass
    >>> model = robots.double_pendulum()
    >>> center_of_mass(model, [0.0, 0.0])
    array([ 0. ,  0. , -1.5])
    >>> center_of_mass(model, np.zeros((4, 2))).shape
    (4, 3)
    """
    tree, closed, _ = _tree(model)
    return _com_and_map(tree, _check(model, closed, q), False)[0]


def center_of_mass_jacobian(model, q) -> np.ndarray:
    r"""Jacobian of the centre of mass, :math:`\dot{\mathbf c} = \mathbf J_c(q)\,\nu`.

    The linear rows of :func:`centroidal_momentum_matrix` over the mass,
    :math:`\mathbf J_c = \mathbf A_{G,l} / m` (world coordinates; with respect to the
    independent speeds for a closed model).

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)

    Returns
    -------
    ndarray, shape (..., 3, nv)

    Raises
    ------
    ModelError
        If the model has no mass.
    DimensionError, NonFiniteError, NotOnManifoldError
        As :func:`center_of_mass`.

    References
    ----------
    Orin, Goswami and Lee 2013; Pinocchio's ``jacobianCenterOfMass``.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.centroidal import center_of_mass_jacobian
    >>> center_of_mass_jacobian(robots.double_pendulum(), [0.0, 0.0])  # swinging about y
    array([[-1.5, -0.5],
           [ 0. ,  0. ],
           [ 0. ,  0. ]])
    """
    tree, closed, mass = _tree(model)
    return _map(model, tree, closed, q)[..., 3:, :] / mass


def centroidal_momentum_matrix(model, q) -> np.ndarray:
    r"""The centroidal momentum matrix :math:`\mathbf A_G`, rows :math:`[\mathbf k_G; \mathbf l_G]`.

    .. math:: \mathbf h_G = \begin{bmatrix}\mathbf k_G\\ \mathbf l_G\end{bmatrix}
              = \mathbf A_G\nu,\qquad
              \mathbf A_G\mathbf e_k = \begin{bmatrix}\mathbf 1 & -\mathbf c\times\\
              0 & \mathbf 1\end{bmatrix}\mathbf I^C_i\,{}^0\boldsymbol\Phi_i\mathbf e_k

    for a speed ``k`` of joint ``i``, :math:`\mathbf I^C_i` the composite inertia of the
    subtree of ``i`` and :math:`{}^0\boldsymbol\Phi_i` its motion subspace, both in ground
    coordinates (Orin, Goswami and Lee 2013, in ground rather than body coordinates).
    Pinocchio's ``computeCentroidalMap`` with its two row blocks swapped.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)

    Returns
    -------
    ndarray, shape (..., 6, nv)
        With respect to the independent speeds for a closed model.

    Raises
    ------
    ModelError
        If the model has no mass.
    DimensionError, NonFiniteError, NotOnManifoldError
        As :func:`center_of_mass`.

    References
    ----------
    Orin, Goswami and Lee 2013; Featherstone 2008, Table 6.2.

    Examples
    --------
    The linear momentum is the mass (2 kg) times the velocity of the centre of mass:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.centroidal import (
    ...     center_of_mass_jacobian, centroidal_momentum_matrix)
    >>> model = robots.double_pendulum()
    >>> A = centroidal_momentum_matrix(model, [0.3, -0.2])
    >>> A.shape, bool(np.allclose(A[3:], 2.0 * center_of_mass_jacobian(model, [0.3, -0.2])))
    ((6, 2), True)
    """
    tree, closed, _ = _tree(model)
    return _map(model, tree, closed, q)


def _map(model, tree, closed, q):
    q = _check(model, closed, q)
    A = _com_and_map(tree, q, True)[1]
    if closed:
        A = A @ model.constraint_matrices(q, np.zeros(q.shape[:-1] + (model.nv,)))[0]
    return A


def centroidal_momentum_matrix_rate(model, q, v) -> np.ndarray:
    r"""Time derivative :math:`\dot{\mathbf A}_G` of the centroidal momentum matrix along the flow.

    The entrywise derivative of :func:`centroidal_momentum_matrix` along :math:`\dot q = \nu`,
    so that :math:`\dot{\mathbf h}_G = \mathbf A_G\dot\nu + \dot{\mathbf A}_G\nu`:

    .. math::
        \dot{\mathbf A}_G\mathbf e_k = \begin{bmatrix}\mathbf 1 & -\mathbf c\times\\
        0 & \mathbf 1\end{bmatrix}\bigl(\dot{\mathbf I}^C_i\,{}^0\boldsymbol\Phi_i +
        \mathbf I^C_i\,{}^0\dot{\boldsymbol\Phi}_i\bigr)\mathbf e_k -
        \begin{bmatrix}\dot{\mathbf c}\times\mathbf A_{G,l}\mathbf e_k\\ 0\end{bmatrix}

    with :math:`\dot{\mathbf I}^C_i = \sum_{j\succeq i}({}^0\mathbf v_j\times^*{}^0
    \mathbf I_j - {}^0\mathbf I_j\,{}^0\mathbf v_j\times)` and
    :math:`{}^0\dot{\boldsymbol\Phi}_i = {}^0\mathbf v_i\times{}^0\boldsymbol\Phi_i +
    {}^0\mathbf X_i\mathring{\boldsymbol\Phi}_i`. This is Pinocchio's ``dAg`` of ``dccrba``
    with its row blocks swapped.

    Notes
    -----
    Pinocchio 4.1's ``computeCentroidalMapTimeVariation`` reads the centre-of-mass velocity
    ``data.vcom[0]`` without computing it: on a fresh ``Data`` its ``dAg`` lacks the term
    :math:`-\dot{\mathbf c}\times\mathbf A_{G,l}` of the angular rows (and with a stale
    ``vcom`` it has a wrong one). That term annihilates :math:`\nu`
    (:math:`\mathbf A_{G,l}\nu = m\dot{\mathbf c}`), so ``dAg @ v`` is right either way,
    but the matrix is the time derivative only when ``vcom`` is current (after
    ``centerOfMass(model, data, q, v)``, or by ``dccrba``). geomech returns the time
    derivative.

    For a closed model :math:`\dot{\mathbf A}_G G + \mathbf A_G\dot G` (the derivative of
    :math:`\mathbf A_G G`).

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)

    Returns
    -------
    ndarray, shape (..., 6, nv)

    Raises
    ------
    ModelError
        If the model has no mass.
    DimensionError, NonFiniteError, NotOnManifoldError
        As :func:`center_of_mass` (and for ``v``).

    References
    ----------
    Orin, Goswami and Lee 2013; seed 001 §1.4 (:math:`\dot{\boldsymbol\Phi}`); Pinocchio's
    ``dccrba``.

    Examples
    --------
    Against central differences of :math:`\mathbf A_G` along the motion:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.centroidal import (
    ...     centroidal_momentum_matrix, centroidal_momentum_matrix_rate)
    >>> model = robots.double_pendulum()
    >>> q, v, h = np.array([0.3, -0.2]), np.array([1.0, 0.5]), 1e-6
    >>> A_dot = centroidal_momentum_matrix_rate(model, q, v)
    >>> fd = (centroidal_momentum_matrix(model, q + h * v)
    ...       - centroidal_momentum_matrix(model, q - h * v)) / (2 * h)
    >>> bool(np.allclose(A_dot, fd, atol=1e-8))
    True
    """
    tree, closed, _ = _tree(model)
    if closed:
        q = model.check_configuration(q)
        G, _, G_dot = model.constraint_matrices(q, v, rate=True)
        v_s = np.einsum("...ij,...j->...i", G, v)
        return _rate(tree, q, v_s) @ G + _com_and_map(tree, q, True)[1] @ G_dot
    return _rate(tree, q, v)


def _rate(tree, q, v):
    single = getattr(tree, "_single", None) or single_state(tree)
    if single is not None:
        topo, packed, nq, nv = single
        if are_states(q, v, v, nq, nv):
            A_dot = np.empty((6, nv))
            status = entry(K.centroidal_map_rate_one)(topo, packed, q, v, A_dot)
            if status:
                raise failure(status, tree, ("q", "v"), (q, v), "the rate of A_G")
            return A_dot
    cm = compiled(tree)
    batch, B, (Q, V) = states(("q", q, (cm.nq,)), ("v", v, (cm.nv,)))
    S, S_ring, T_user = cm.joint_arrays(Q, V)
    A_dot = np.empty((B, 6, cm.nv))
    call(
        K.centroidal_map_rate_batch,
        cm.arrays(),
        (S, S_ring, T_user, Q, V, A_dot),
        batch,
        tree,
        names=("q", "v", "q", "q", "v"),
        what="the rate of A_G",
    )
    return A_dot.reshape(batch + (6, cm.nv))


def centroidal_inertia(model, q) -> np.ndarray:
    r"""The centroidal composite rigid-body inertia :math:`\mathbf I_G` (world axes, about the CoM).

    .. math:: \mathbf I_G = \begin{bmatrix}\bar{\mathbf I}_G & 0\\ 0 & m\mathbf 1
              \end{bmatrix},\qquad \bar{\mathbf I}_G = \sum_i\bigl(\mathbf R_i
              \bar{\mathbf I}_{c,i}\mathbf R_i^\top + m_i\,[\mathbf c_i - \mathbf c]_\times^\top
              [\mathbf c_i - \mathbf c]_\times\bigr)

    the spatial inertia of the whole robot locked rigid at :math:`q`, about its centre of
    mass (angular block first; Pinocchio's ``data.Ig`` after ``computeCentroidalMap``).
    With it the average spatial velocity is :math:`\mathbf I_G^{-1}\mathbf h_G` (Orin,
    Goswami and Lee 2013).

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Raises
    ------
    ModelError
        If the model has no mass.
    DimensionError, NonFiniteError, NotOnManifoldError
        As :func:`center_of_mass`.

    References
    ----------
    Orin, Goswami and Lee 2013; Featherstone 2008, eq. 2.63.

    Examples
    --------
    Two unit point masses 0.5 m above and below the centre of mass, on the z axis:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.centroidal import centroidal_inertia
    >>> np.round(np.diag(centroidal_inertia(robots.double_pendulum(), [0.0, 0.0])), 12)
    array([0.5, 0.5, 0. , 2. , 2. , 2. ])
    """
    tree, closed, _ = _tree(model)
    q = _check(model, closed, q)
    single = getattr(tree, "_single", None) or single_state(tree)
    if single is not None:
        topo, packed, nq, _ = single
        if is_state(q, nq):
            I_G = np.empty((6, 6))
            status = entry(K.centroidal_inertia_one)(topo, packed, q, I_G)
            if status:
                raise failure(status, tree, ("q",), (q,), "the centroidal inertia")
            return I_G
    cm = compiled(tree)
    batch, B, (Q,) = states(("q", q, (cm.nq,)))
    S, S_ring, T_user = cm.joint_arrays(Q)
    I_G = np.empty((B, 6, 6))
    call(
        K.centroidal_inertia_batch,
        cm.arrays(),
        (S, S_ring, T_user, Q, I_G),
        batch,
        tree,
        names=("q", "q", "q", "q"),
        what="the centroidal inertia",
    )
    return I_G.reshape(batch + (6, 6))
