r"""Kinematics of a kinematic tree: joint transforms, body poses, twists and Jacobians.

Every function takes a :class:`~geomech.multibody.model.MultibodyModel` and configurations
``q`` of shape ``(..., nq)`` (and speeds ``v`` of shape ``(..., nv)``); leading batch
dimensions broadcast. The body loop runs in the model's regular order (``parent[i] < i``),
and each statement is vectorised over the batch.

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

from typing import NamedTuple

import numpy as np

from geomech._validation import as_array
from geomech.errors import DimensionError
from geomech.spatial import _crm

__all__ = [
    "joint_transforms",
    "forward_kinematics",
    "body_velocities",
    "body_jacobians",
    "velocity_map",
]


# ----------------------------------------------------------------------------------------
# private helpers shared with dynamics.py (no validation: callers validate once)
# ----------------------------------------------------------------------------------------

# index tables for the cross products of 6-vectors, angular first (seed 001 §1.3)
_C1 = np.array([1, 2, 0, 1, 2, 0])
_C2 = np.array([2, 0, 1, 2, 0, 1])
_M1 = np.array([2, 0, 1, 5, 3, 4])
_M2 = np.array([1, 2, 0, 4, 5, 3])
_L1 = np.array([4, 5, 3])
_L2 = np.array([5, 3, 4])
_A1 = np.array([2, 0, 1])
_A2 = np.array([1, 2, 0])


def _crm_mv(v: np.ndarray, m: np.ndarray) -> np.ndarray:
    r"""Motion cross product :math:`(\mathbf v\times)\mathbf m` of 6-vectors (..., 6)."""
    # [ω × m_ω ; ω × m_v] + [0 ; v × m_ω]
    out = v[..., _C1] * m[..., _M1] - v[..., _C2] * m[..., _M2]
    out[..., 3:] += v[..., _L1] * m[..., _A1] - v[..., _L2] * m[..., _A2]
    return out


def _crf_mv(v: np.ndarray, f: np.ndarray) -> np.ndarray:
    r"""Force cross product :math:`(\mathbf v\times^*)\mathbf f` of 6-vectors (..., 6)."""
    # [ω × n ; ω × f] + [v × f ; 0]
    out = v[..., _C1] * f[..., _M1] - v[..., _C2] * f[..., _M2]
    out[..., :3] += v[..., _L1] * f[..., _L2] - v[..., _L2] * f[..., _L1]
    return out


def _mv(X: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Batched matrix-vector product ``X @ m`` with broadcasting."""
    return np.matmul(X, m[..., None])[..., 0]


def _mtv(X: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Batched ``X.T @ f`` (e.g. a force moved to the parent frame) with broadcasting."""
    return np.matmul(f[..., None, :], X)[..., 0, :]


def _T(M: np.ndarray) -> np.ndarray:
    """Transpose of the last two axes."""
    return np.swapaxes(M, -1, -2)


def _congruence(X: np.ndarray, M: np.ndarray) -> np.ndarray:
    r""":math:`\mathbf X^\top\mathbf M\mathbf X` (an inertia-like operator moved to the parent)."""
    return np.matmul(_T(X), np.matmul(M, X))


def _check_q(model, q, name: str = "q") -> np.ndarray:
    """``q`` as a finite float array of shape (..., nq)."""
    return as_array(q, name, (model.nq,))


def _check_v(model, v, name: str = "v") -> np.ndarray:
    """``v`` (or ``a``, ``tau``) as a finite float array of shape (..., nv)."""
    return as_array(v, name, (model.nv,))


def _batch_shape(*arrays_and_trailing) -> tuple[int, ...]:
    """Broadcast leading shapes of ``(array, n_trailing_dims)`` pairs, naming the failure."""
    shapes = [a.shape[: a.ndim - k] for a, k in arrays_and_trailing]
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError as exc:
        raise DimensionError(
            f"Expected the leading (batch) dimensions of the inputs to broadcast, got {shapes}."
        ) from exc


class _JointData(NamedTuple):
    """Per-body joint quantities (lists indexed by body; each entry batched like ``q``)."""

    X_up: list  # ^iX_{p(i)} = X_J(q_i) X_T(i), (..., 6, 6)
    Phi: list  # Φ_i, (..., 6, nv_i), body-i coordinates
    Phi_ring: list | None  # Φ̊_i, (..., 6, nv_i), or None when v was not given
    T_up: list  # pose of body i in its parent's frame, placement_i @ pose_J(q_i), (..., 4, 4)


def _cross3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product of 3-vectors (..., 3), cheaper than ``np.cross`` on small arrays."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], -1)


def _plucker_from_pose(T: np.ndarray) -> np.ndarray:
    r"""Unvalidated :func:`geomech.spatial.plucker_from_pose`: ``[[Rᵀ, 0], [-Rᵀ S(p), Rᵀ]]``."""
    E = _T(T[..., :3, :3])
    X = np.zeros(T.shape[:-2] + (6, 6))
    X[..., :3, :3] = E
    X[..., 3:, 3:] = E
    X[..., 3:, :3] = _cross3(T[..., None, :3, 3], E)  # row k of -Rᵀ S(p) is (p × r_k)ᵀ
    return X


def _joint_data(model, q: np.ndarray, v: np.ndarray | None = None) -> _JointData:
    """Joint transforms, motion subspaces (and their rates when ``v`` is given).

    The joints' unvalidated hooks (``_pose``, ``_motion_subspace``, ...) are called because
    ``q`` and ``v`` were validated once at the public boundary.
    """
    X_up, Phi, T_up, Phi_ring = [], [], [], ([] if v is not None else None)
    for i, joint in enumerate(model.joints):
        q_i = q[..., model.q_slices[i]]
        # seed 001 §2.0: ^iX_{p(i)} = X_J(q_i) X_T(i) = plucker_from_pose(placement_i pose_J(q_i));
        # composing the 4x4 poses first is cheaper than the 6x6 product
        T_i = np.matmul(model.placements[i], joint._pose(q_i))
        T_up.append(T_i)
        X_up.append(_plucker_from_pose(T_i))
        Phi.append(joint._motion_subspace(q_i))
        if v is not None:
            Phi_ring.append(joint._motion_subspace_rate(q_i, v[..., model.v_slices[i]]))
    return _JointData(X_up, Phi, Phi_ring, T_up)


def _stack_blocks(blocks: list, batch: tuple[int, ...], nv: int) -> np.ndarray:
    """Concatenate per-body (..., 6, nv_i) blocks into one (..., 6, nv) array."""
    out = np.zeros(batch + (6, nv))
    col = 0
    for B in blocks:
        k = B.shape[-1]
        out[..., :, col : col + k] = B
        col += k
    return out


def _velocities(model, jd: _JointData, v: np.ndarray) -> list:
    """Body twists by the forward recursion v_i = X_up[i] v_{p(i)} + Φ_i ν_i (seed 001 eq. 5)."""
    parent = model.parent.tolist()
    vel = []
    for i in range(model.n_bodies):
        vJ = _mv(jd.Phi[i], v[..., model.v_slices[i]])
        p = parent[i]
        vel.append(vJ if p < 0 else _mv(jd.X_up[i], vel[p]) + vJ)
    return vel


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

    References
    ----------
    Seed 001 §1.4, §2.0.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.kinematics import joint_transforms
    >>> model = robots.double_pendulum()
    >>> X_up, Phi, Phi_ring = joint_transforms(model, model.neutral(), np.zeros(model.nv))
    >>> X_up.shape, Phi.shape, bool(np.all(Phi_ring == 0))
    ((2, 6, 6), (6, 2), True)
    """
    q = _check_q(model, q)
    if v is not None:
        v = _check_v(model, v)
    jd = _joint_data(model, q, v)
    batch = _batch_shape((q, 1)) if v is None else _batch_shape((q, 1), (v, 1))
    n = model.n_bodies
    X_up = np.empty(q.shape[:-1] + (n, 6, 6))
    for i in range(n):
        X_up[..., i, :, :] = jd.X_up[i]
    Phi = _stack_blocks(jd.Phi, q.shape[:-1], model.nv)
    Phi_ring = None if v is None else _stack_blocks(jd.Phi_ring, batch, model.nv)
    return X_up, Phi, Phi_ring


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

    Examples
    --------
    A double pendulum hanging straight down at its neutral configuration:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.kinematics import forward_kinematics
    >>> model = robots.double_pendulum()
    >>> T = forward_kinematics(model, model.neutral())
    >>> T.shape
    (2, 4, 4)
    """
    q = _check_q(model, q)
    parent = model.parent.tolist()
    T_up = _joint_data(model, q).T_up
    T = np.empty(q.shape[:-1] + (model.n_bodies, 4, 4))
    for i in range(model.n_bodies):
        p = parent[i]
        T[..., i, :, :] = T_up[i] if p < 0 else T[..., p, :, :] @ T_up[i]
    return T


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

    References
    ----------
    Seed 001 eq. 5; seed 000 §5.3.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.kinematics import body_velocities
    >>> model = robots.double_pendulum()
    >>> body_velocities(model, model.neutral(), np.zeros(2)).shape
    (2, 6)
    """
    q, v = _check_q(model, q), _check_v(model, v)
    batch = _batch_shape((q, 1), (v, 1))
    vel = _velocities(model, _joint_data(model, q), v)
    out = np.empty(batch + (model.n_bodies, 6))
    for i, v_i in enumerate(vel):
        out[..., i, :] = v_i
    return out


def _jacobians(model, jd: _JointData, batch: tuple[int, ...]) -> np.ndarray:
    """Body Jacobians (..., N, 6, nv): J_i = X_up[i] J_{p(i)} + Φ_i E_i."""
    parent = model.parent.tolist()
    J = np.zeros(batch + (model.n_bodies, 6, model.nv))
    for i in range(model.n_bodies):
        p = parent[i]
        if p >= 0:  # columns j ⪯ p(i): ^iX_j Φ_j = X_up[i] ^{p(i)}X_j Φ_j
            J[..., i, :, :] = jd.X_up[i] @ J[..., p, :, :]
        J[..., i, :, model.v_slices[i]] += jd.Phi[i]
    return J


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

    References
    ----------
    Seed 000 §5.3 (VI-B); seed 001 Remark 4 (eq. 29).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.kinematics import body_jacobians, body_velocities
    >>> model = robots.double_pendulum()
    >>> q, v = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    >>> bool(np.allclose(body_jacobians(model, q) @ v, body_velocities(model, q, v)))
    True
    """
    q = _check_q(model, q)
    return _jacobians(model, _joint_data(model, q), q.shape[:-1])


def velocity_map(model, q, v=None):
    r"""The stacked map :math:`A = \mathbf X\boldsymbol\Phi` from speeds to all body twists, and its rate.

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

    References
    ----------
    Seed 000 §VI-B (digest §5.3): :math:`A = \mathbf X\boldsymbol\Phi`,
    :math:`\dot{\mathbf X} = \mathbf X(v\times) - (v\times)\mathbf X`; seed 001 Remark 4.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.kinematics import velocity_map
    >>> model = robots.double_pendulum()
    >>> A, A_dot = velocity_map(model, [0.3, -0.5], [1.0, 2.0])
    >>> A.shape, A_dot.shape
    ((12, 2), (12, 2))
    """
    q = _check_q(model, q)
    n, nv = model.n_bodies, model.nv
    if v is None:
        J = _jacobians(model, _joint_data(model, q), q.shape[:-1])
        return J.reshape(q.shape[:-1] + (6 * n, nv))
    v = _check_v(model, v)
    batch = _batch_shape((q, 1), (v, 1))
    jd = _joint_data(model, q, v)
    J = _jacobians(model, jd, q.shape[:-1])
    vel = _velocities(model, jd, v)
    parent = model.parent.tolist()
    # K_i = Σ_{j ⪯ i} ^iX_j Φ̇_j E_j, so that Ȧ_i = K_i − (v_i ×) A_i (seed 000 §VI-B)
    K = np.zeros(batch + (n, 6, nv))
    A_dot = np.empty(batch + (n, 6, nv))
    for i in range(n):
        crm_v = _crm(vel[i])
        p = parent[i]
        if p >= 0:
            K[..., i, :, :] = jd.X_up[i] @ K[..., p, :, :]
        # seed 001 §1.4: Φ̇_i = (v_i ×) Φ_i + Φ̊_i
        K[..., i, :, model.v_slices[i]] += crm_v @ jd.Phi[i] + jd.Phi_ring[i]
        A_dot[..., i, :, :] = K[..., i, :, :] - crm_v @ J[..., i, :, :]
    shape = batch + (6 * n, nv)
    return np.broadcast_to(J, batch + J.shape[-3:]).reshape(shape), A_dot.reshape(shape)
