r"""Kinematics of a kinematic tree: joint transforms, body poses, twists and Jacobians.

Every function takes a :class:`~geomech.multibody.model.tree.MultibodyModel` and configurations
``q`` of shape ``(..., nq)`` (and speeds ``v`` of shape ``(..., nv)``); leading batch
dimensions broadcast. Each function validates its inputs once and runs a compiled kernel
(``geomech.multibody._kernels.tree.kinematics_batch``) over the flattened batch; the body loops
run in the model's regular order (``parent[i] < i``).

Conventions
-----------
* Body ``i`` has its frame at the successor (child) frame of its joint. Twists are body twists
  ``[ω; v]`` (angular first) in body-``i`` coordinates; wrenches are ``[n; f]``.
* ``X_up[i]`` is Featherstone's :math:`{}^i\mathbf X_{p(i)} = \mathbf X_J(\mathbf q_i)\,
  \mathbf X_T(i)`, the motion transform from the parent's frame (the world frame for
  ``parent[i] == -1``) to body ``i``'s frame.
* ``Phi`` stacks the joints' motion subspaces column-block-wise: the columns
  ``model.v_slices[i]`` of ``Phi`` (shape ``(..., 6, nv)``) are :math:`\boldsymbol\Phi_i`
  in body-``i`` coordinates, so that :math:`\mathbf v_i = {}^i\mathbf X_{p(i)}\mathbf v_{p(i)}
  + \boldsymbol\Phi_i\,\nu_i`. ``Phi_ring`` is stacked the same way.

References
----------
Seed 001 §1.4 (eq. 5 and :math:`\dot{\boldsymbol\Phi} = (\mathbf v_i\times)\boldsymbol\Phi +
\mathring{\boldsymbol\Phi}`), §2.0; seed 000 §5.3 (VI-B: :math:`A = \mathbf X\boldsymbol\Phi`
and :math:`\dot A`); R. Featherstone, *Rigid Body Dynamics Algorithms*, 2008, ch. 4.
"""

from __future__ import annotations

import numpy as np

from geomech.multibody._kernels.driver import call, check_inputs, compiled, states
from geomech.multibody._kernels.tree import kinematics_batch as K

__all__ = [
    "joint_transforms",
    "forward_kinematics",
    "body_velocities",
    "body_jacobians",
    "velocity_map",
]


def _spanning(model, q, v=None, rate=False):
    """A closed model's spanning tree, its (checked) ``q`` and the matrices ``G`` (and ``g``,
    ``Ġ``): the kinematics of a closed model are its spanning tree's at q̇_s = G v (seed 004
    eq. 3), with Jacobians with respect to the independent speeds, J G.
    """
    v = np.zeros(model.nv) if v is None else v
    return (model.spanning_tree, *model.constraint_matrices(q, v, rate=rate))


def _joint_columns(S: np.ndarray, batch: tuple[int, ...]) -> np.ndarray:
    """Rows of the compiled joint arrays (B or 1, nv, 6) as stacked columns (..., 6, nv)."""
    cols = np.swapaxes(S, -1, -2)
    return (
        np.broadcast_to(cols, (int(np.prod(batch, dtype=int)),) + cols.shape[1:])
        .reshape(batch + cols.shape[1:])
        .copy()
    )


# ----------------------------------------------------------------------------------------
# public API
# ----------------------------------------------------------------------------------------


def joint_transforms(model, q, v=None):
    r"""Joint-level quantities of the recursive algorithms: ``X_up``, ``Phi`` and ``Phi_ring``.

    .. math::
        {}^i\mathbf X_{p(i)} = \mathbf X_J(\mathbf q_i)\,\mathbf X_T(i),\qquad
        \mathbf v_i = {}^i\mathbf X_{p(i)}\mathbf v_{p(i)} + \boldsymbol\Phi_i\nu_i,\qquad
        \mathring{\boldsymbol\Phi}_i = \tfrac{\mathrm d}{\mathrm dt}\,{}^i\{\boldsymbol\Phi_i\}

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
        Configurations.
    v : array_like, shape (..., nv), optional
        Speeds; needed only for ``Phi_ring``.

    Returns
    -------
    X_up : ndarray, shape (..., N, 6, 6)
        ``X_up[..., i, :, :]`` maps motion coordinates of the parent of body ``i`` (the world
        for ``model.parent[i] == -1``) to body ``i``.
    Phi : ndarray, shape (..., 6, nv)
        Motion subspaces in body coordinates; columns ``model.v_slices[i]`` belong to body ``i``.
    Phi_ring : ndarray, shape (..., 6, nv) or None
        Rates of the body-frame coordinates of ``Phi`` (zero for every built-in joint), or
        ``None`` when ``v`` is not given.

    Raises
    ------
    DimensionError
        If ``q`` is not of shape (..., nq) or ``v`` not of shape (..., nv).
    NonFiniteError
        If ``q`` or ``v`` has NaN or inf entries.
    NotOnManifoldError
        If a quaternion in ``q`` is not of unit norm.

    References
    ----------
    Seed 001 §1.4, §2.0.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.kinematics import joint_transforms
    >>> model = robots.double_pendulum()
    >>> X_up, Phi, Phi_ring = joint_transforms(model, model.neutral(), np.zeros(model.nv))
    >>> X_up.shape, Phi.shape, bool(np.all(Phi_ring == 0))
    ((2, 6, 6), (6, 2), True)
    """
    if getattr(model, "is_closed", False):  # the spanning tree's joints, at q̇_s = G v
        if v is None:
            model.check_configuration(q)
            return joint_transforms(model.spanning_tree, q)
        st, G, _ = _spanning(model, q, v)
        return joint_transforms(st, q, np.einsum("...ij,...j->...i", G, v))
    cm = compiled(model)
    batch_q, B, (Q,) = states(("q", q, (cm.nq,)), per_state=cm.n_bodies * 36 + 12 * cm.nv)
    if v is not None:  # validated before any kernel runs
        batch, _, (Qv, V) = states(("q", q, (cm.nq,)), ("v", v, (cm.nv,)))
        check_inputs(model, batch, ("q", "v"), (Qv, V))  # no kernel reads v of built-in joints
    S, _, T_user = cm.joint_arrays(Q)
    X_up = np.empty((B, cm.n_bodies, 6, 6))
    call(
        K.joint_transforms_batch,
        (cm.topo, cm.placement, cm.jparam),
        (T_user, Q, X_up),
        batch_q,
        model,
        names=("q", "q"),
        what="the joint transforms",
    )
    Phi = _joint_columns(S, batch_q)
    Phi_ring = None
    if v is not None:
        Phi_ring = _joint_columns(cm.joint_arrays(Qv, V)[1], batch)
    return X_up.reshape(batch_q + (cm.n_bodies, 6, 6)), Phi, Phi_ring


def forward_kinematics(model, q) -> np.ndarray:
    r"""Poses of all bodies in the world (root) frame.

    .. math::
        {}^0\mathbf T_i = {}^0\mathbf T_{p(i)}\;\mathbf T_{\text{placement}}(i)\;
        \mathbf T_J(\mathbf q_i)

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)

    Returns
    -------
    ndarray, shape (..., N, 4, 4)
        ``T[..., i, :, :]`` maps body-``i`` coordinates to world coordinates (rotation and
        position of the body frame's origin).

    Raises
    ------
    DimensionError
        If ``q`` is not of shape (..., nq).
    NonFiniteError
        If ``q`` has NaN or inf entries.
    NotOnManifoldError
        If a quaternion in ``q`` is not of unit norm.

    Examples
    --------
    A double pendulum hanging straight down at its neutral configuration:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.kinematics import forward_kinematics
    >>> model = robots.double_pendulum()
    >>> T = forward_kinematics(model, model.neutral())
    >>> T.shape
    (2, 4, 4)
    """
    if getattr(model, "is_closed", False):  # the spanning tree's poses, q checked closed
        model.check_configuration(q)
        return forward_kinematics(model.spanning_tree, q)
    cm = compiled(model)
    batch, B, (Q,) = states(("q", q, (cm.nq,)), per_state=cm.n_bodies * 16)
    T = np.empty((B, cm.n_bodies, 4, 4))
    call(
        K.forward_kinematics_batch,
        (cm.topo, cm.placement, cm.jparam),
        (cm.joint_arrays(Q)[2], Q, T),
        batch,
        model,
        names=("q", "q"),
        what="the poses",
    )
    return T.reshape(batch + (cm.n_bodies, 4, 4))


def body_velocities(model, q, v) -> np.ndarray:
    r"""Body twists of all bodies, by the forward recursion of seed 001 eq. 5.

    .. math::
        \mathbf v_i = {}^i\mathbf X_{p(i)}\,\mathbf v_{p(i)} + \boldsymbol\Phi_i\,\nu_i,
        \qquad \mathbf v_0 = \mathbf 0

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)

    Returns
    -------
    ndarray, shape (..., N, 6)
        Twist ``[ω; v]`` of body ``i`` in body-``i`` coordinates.

    Raises
    ------
    DimensionError
        On wrong trailing shapes or non-broadcastable batches.
    NonFiniteError
        On NaN or inf entries.
    NotOnManifoldError
        If a quaternion in ``q`` is not of unit norm.

    References
    ----------
    Seed 001 eq. 5; seed 000 §5.3.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.kinematics import body_velocities
    >>> model = robots.double_pendulum()
    >>> body_velocities(model, model.neutral(), np.zeros(2)).shape
    (2, 6)
    """
    if getattr(model, "is_closed", False):  # the spanning tree's twists at q̇_s = G v
        st, G, _ = _spanning(model, q, v)
        return body_velocities(st, q, np.einsum("...ij,...j->...i", G, v))
    cm = compiled(model)
    batch, B, (Q, V) = states(("q", q, (cm.nq,)), ("v", v, (cm.nv,)), per_state=cm.n_bodies * 6)
    S, _, T_user = cm.joint_arrays(Q)
    vel = np.empty((B, cm.n_bodies, 6))
    call(
        K.body_velocities_batch,
        (cm.topo, cm.placement, cm.jparam),
        (S, T_user, Q, V, vel),
        batch,
        model,
        names=("q", "q", "q", "v"),
        what="the body twists",
    )
    return vel.reshape(batch + (cm.n_bodies, 6))


def body_jacobians(model, q) -> np.ndarray:
    r"""Body Jacobians :math:`\mathbf J_i` with :math:`\mathbf v_i = \mathbf J_i\,\nu`.

    Column block ``j`` of :math:`\mathbf J_i` is :math:`{}^i\mathbf X_j\boldsymbol\Phi_j` when
    joint ``j`` supports body ``i`` (:math:`j\preceq i`) and zero otherwise.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)

    Returns
    -------
    ndarray, shape (..., N, 6, nv)
        Body-``i`` coordinates (body twists).

    Raises
    ------
    DimensionError
        If ``q`` is not of shape (..., nq).
    NonFiniteError
        If ``q`` has NaN or inf entries.
    NotOnManifoldError
        If a quaternion in ``q`` is not of unit norm.

    References
    ----------
    Seed 000 §5.3 (VI-B); seed 001 Remark 4 (eq. 29).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.kinematics import body_jacobians, body_velocities
    >>> model = robots.double_pendulum()
    >>> q, v = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    >>> bool(np.allclose(body_jacobians(model, q) @ v, body_velocities(model, q, v)))
    True
    """
    if getattr(model, "is_closed", False):  # J_s G: with respect to the independent speeds
        st, G, _ = _spanning(model, q)
        return body_jacobians(st, q) @ G[..., None, :, :]
    cm = compiled(model)
    batch, B, (Q,) = states(("q", q, (cm.nq,)), per_state=cm.n_bodies * 6 * cm.nv)
    S, _, T_user = cm.joint_arrays(Q)
    J = np.empty((B, cm.n_bodies, 6, cm.nv))
    call(
        K.body_jacobians_batch,
        (cm.topo, cm.placement, cm.jparam),
        (S, T_user, Q, J),
        batch,
        model,
        names=("q", "q", "q"),
        what="the body Jacobians",
    )
    return J.reshape(batch + (cm.n_bodies, 6, cm.nv))


def velocity_map(model, q, v=None):
    r"""The stacked map :math:`A = \mathbf X\boldsymbol\Phi` from speeds to all body twists, and its
    rate.

    .. math::
        \begin{bmatrix}\mathbf v_1\\ \vdots\\ \mathbf v_N\end{bmatrix} = A(q)\,\nu,\qquad
        A = \mathbf X\boldsymbol\Phi,\qquad
        \dot A = \mathbf X\dot{\boldsymbol\Phi} - (v\times)\,\mathbf X\boldsymbol\Phi

    with :math:`\mathbf X_{ij} = {}^i\mathbf X_j` for :math:`j\preceq i` (else 0),
    :math:`\boldsymbol\Phi = \operatorname{BlockDiag}(\boldsymbol\Phi_i)`,
    :math:`\dot{\boldsymbol\Phi}_i = (\mathbf v_i\times)\boldsymbol\Phi_i +
    \mathring{\boldsymbol\Phi}_i` and :math:`(v\times) = \operatorname{BlockDiag}(\mathbf v_i
    \times)`. :math:`\dot A` is the time derivative of the *coordinates* of :math:`A` along
    the motion :math:`\dot q = \nu` (seed 001 Remark 4's :math:`\mathring{\mathbf J}`).

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv), optional
        Speeds; when given, :math:`\dot A` is returned too.

    Returns
    -------
    A : ndarray, shape (..., 6N, nv)
        Rows ``6 i : 6 i + 6`` are the body Jacobian of body ``i``.
    A_dot : ndarray, shape (..., 6N, nv)
        Only when ``v`` is given: ``(A, A_dot)`` is returned.

    Raises
    ------
    DimensionError
        On wrong trailing shapes or non-broadcastable batches.
    NonFiniteError
        On NaN or inf entries.
    NotOnManifoldError
        If a quaternion in ``q`` is not of unit norm.

    References
    ----------
    Seed 000 §VI-B: :math:`A = \mathbf X\boldsymbol\Phi`,
    :math:`\dot{\mathbf X} = \mathbf X(v\times) - (v\times)\mathbf X`; seed 001 Remark 4.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.kinematics import velocity_map
    >>> model = robots.double_pendulum()
    >>> A, A_dot = velocity_map(model, [0.3, -0.5], [1.0, 2.0])
    >>> A.shape, A_dot.shape
    ((12, 2), (12, 2))
    """
    if getattr(model, "is_closed", False):
        # A = A_s G and, along q̇_s = G v, Ȧ = Ȧ_s G + A_s Ġ (seed 004 eq. 3)
        st, G, _, G_dot = _spanning(model, q, v, rate=True)
        if v is None:
            return velocity_map(st, q) @ G
        A_s, A_s_dot = velocity_map(st, q, np.einsum("...ij,...j->...i", G, v))
        return A_s @ G, A_s_dot @ G + A_s @ G_dot
    cm = compiled(model)
    n, nv = cm.n_bodies, cm.nv
    if v is None:
        J = body_jacobians(model, q)
        return J.reshape(J.shape[:-3] + (6 * n, nv))
    batch, B, (Q, V) = states(("q", q, (cm.nq,)), ("v", v, (cm.nv,)), per_state=12 * n * nv)
    A, A_dot = np.empty((B, n, 6, nv)), np.empty((B, n, 6, nv))
    call(
        K.velocity_map_batch,
        (cm.topo, cm.placement, cm.jparam),
        (*cm.joint_arrays(Q, V), Q, V, A, A_dot),
        batch,
        model,
        names=("q", "v", "q", "q", "v"),
        what="the velocity map",
    )
    return A.reshape(batch + (6 * n, nv)), A_dot.reshape(batch + (6 * n, nv))
