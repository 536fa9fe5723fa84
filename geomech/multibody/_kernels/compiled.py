r"""The compiled model: a :class:`~geomech.multibody.model.tree.MultibodyModel` as flat arrays.

Built once per model (:attr:`MultibodyModel.compiled`, cached) in time and memory linear in
the number of bodies:

``topo`` (N + 1, 5) int64
    Columns ``PARENT`` (−1 for the base), ``JTYPE`` (:mod:`~geomech.multibody._kernels.joints`
    type code), ``IQ`` and ``IV`` (offsets of each joint's block of ``q`` and ``v``; row N
    holds ``nq`` and ``nv``) and ``IV_END`` (the end of body i's subtree in ``v``: bodies
    are numbered depth-first, so the joints of the subtree of i own ``v[iv[i]:iv_end[i]]``;
    row N holds ``nv``).
``placement`` (N, 3, 4)
    ``[R_T | p_T]``: the joint frame in the parent body's frame.
``jparam`` (N, 43)
    For every joint its armature, damping and friction per speed (6 + 6 + 6, columns
    ``ARMATURE``, ``DAMPING``, ``FRICTION``); for 1-DoF joints also: unit axis ``a`` (3),
    pitch ``h`` (1), then the constant factors of
    :math:`\mathbf E_{up}(\theta) = \mathbf R_T^\top - \sin\theta\,\mathbf K\mathbf R_T^\top
    + (1 - \cos\theta)\mathbf K^2\mathbf R_T^\top` (``K = â``, two 3×3 blocks, row-major)
    and :math:`\mathbf R_T\mathbf a` (3), so that a revolute, prismatic or helical transform
    costs one sine, one cosine and 18 products (Rodrigues folded into the placement).
``inertia`` (N, 6, 6)
    Body spatial inertias.
``S``, ``S_ring`` (1, nv, 6) and ``T_user`` (1, N, 3, 4)
    Constant motion-subspace columns (rows), their rates (zero) and the poses of user
    joints (unused), shared by every state; for a model with user-defined joints,
    :meth:`CompiledModel.joint_arrays` fills per-state copies through the joints' Python
    hooks (``_pose``, ``_motion_subspace``, ``_motion_subspace_rate``): the two-stage path
    through which the same kernels serve every joint.

The columns of ``topo`` and ``jparam`` are named in :mod:`~geomech.multibody._kernels.tables`
(``topo[i, PARENT]``, ``jparam[i, PITCH]``); the arrays of one state are packed in
:attr:`CompiledModel.packed` (:func:`unpack`). Every array is read-only (``writeable=False``):
a user cannot corrupt the kernels' inputs, and the kernels are compiled for read-only model
arrays only.

References
----------
Seed 001 §1.2 (tree encoding); Featherstone 2008, §4.1–4.2.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from geomech.multibody._kernels import joints as codes
from geomech.multibody._kernels.jit import INLINE
from geomech.multibody._kernels.tables import (
    ARMATURE,
    AXIS,
    DAMPING,
    E_SIN,
    E_VERS,
    FRICTION,
    IQ,
    IV,
    IV_END,
    JPARAM_COLUMNS,
    JTYPE,
    PARENT,
    PITCH,
    R_AXIS,
    TOPO_COLUMNS,
)
from geomech.multibody._kernels.views import borrow

__all__ = ["CompiledModel", "joint_code", "unpack"]


def joint_code(joint) -> int:
    """Type code of a joint; ``USER`` for any other class (subclasses of built-ins included).

    Examples
    --------
    >>> from geomech.multibody import Revolute
    >>> from geomech.multibody._kernels import joints
    >>> from geomech.multibody._kernels.compiled import joint_code
    >>> joint_code(Revolute([0, 0, 1])) == joints.REVOLUTE
    True
    """
    # the class's own ``type_code`` (a built-in joint class sets it; a subclass, which may
    # override the pose, does not inherit it: ``vars`` reads the class itself)
    return vars(type(joint)).get("type_code", codes.USER)


class CompiledModel:
    """Flat arrays of a kinematic tree for the kernels (see the module docstring).

    Parameters
    ----------
    model : MultibodyModel

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> cm = robots.double_pendulum().compiled
    >>> cm.topo.tolist()   # PARENT, JTYPE, IQ, IV, IV_END
    [[-1, 1, 0, 0, 2], [0, 1, 1, 1, 2], [-1, -1, 2, 2, 2]]
    """

    #: the body-factor tensors of the Levi-Civita connection, ``(Bt, levi_civita)``: set by
    #: the first ``coriolis_matrix`` call with the default connection
    _levi_civita = None

    def __init__(self, model):
        N, nv = model.n_bodies, model.nv
        topo = np.full((N + 1, TOPO_COLUMNS), -1, dtype=np.int64)
        topo[:N, PARENT] = model.parent
        topo[:N, JTYPE] = [joint_code(j) for j in model.joints]
        topo[:N, IQ] = [s.start for s in model.q_slices]
        topo[:N, IV] = [s.start for s in model.v_slices]
        topo[N, IQ], topo[N, IV] = model.nq, nv
        last = np.arange(N)  # the last body of each subtree (the numbering is depth-first)
        for i in range(N - 1, -1, -1):
            if model.parent[i] >= 0:
                last[model.parent[i]] = max(last[model.parent[i]], last[i])
        topo[:N, IV_END] = topo[last + 1, IV]
        topo[N, IV_END] = nv
        self.topo = topo
        self.placement = model.placements[:, :3, :].copy()
        self.jparam = np.zeros((N, JPARAM_COLUMNS))
        self.S = np.zeros((1, nv, 6))
        self.user = []  # (body index, joint) of user-defined joints
        for i, joint in enumerate(model.joints):
            axis = getattr(joint, "axis", None)
            if axis is not None and topo[i, JTYPE] != codes.USER:
                a = np.asarray(axis, dtype=float)
                K = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
                RtT = model.placements[i, :3, :3].T
                self.jparam[i, AXIS : AXIS + 3] = a
                self.jparam[i, PITCH] = getattr(joint, "pitch", 0.0)
                self.jparam[i, E_SIN : E_SIN + 9] = (-K @ RtT).ravel()
                self.jparam[i, E_VERS : E_VERS + 9] = (K @ K @ RtT).ravel()
                self.jparam[i, R_AXIS : R_AXIS + 3] = model.placements[i, :3, :3] @ a
            vs = model.v_slices[i]
            for col, values in ((ARMATURE, model.armature), (DAMPING, model.damping),
                                (FRICTION, model.friction)):  # fmt: skip
                self.jparam[i, col : col + joint.nv] = values[vs]
            if topo[i, JTYPE] == codes.USER:
                self.user.append((i, joint))
            elif joint.nv:
                self.S[0, model.v_slices[i]] = joint._Phi().T
        self.inertia = model.inertias.copy()
        self.S_ring = np.zeros((1, nv, 6))
        self.T_user = np.zeros((1, N, 3, 4))
        self.nq, self.nv, self.n_bodies = model.nq, nv, N
        #: a_0 = [0; −g] of the model's gravity (the world's fictitious acceleration), (1, 6)
        self.a0 = np.concatenate([np.zeros(3), -np.asarray(model.gravity, dtype=float)])[None]
        self._arrays = (self.topo, self.placement, self.jparam, self.inertia)
        #: the float arrays of one state of a model without user joints (``placement``,
        #: ``jparam``, ``inertia``, ``S``, ``S_ring``, ``T_user``, ``a0``) in one flat array
        #: (see :func:`unpack`), else ``None``: the single-state entry points take the model
        #: as two arguments instead of eight (each array argument costs ~50 ns from Python)
        self.packed = (
            None
            if self.user
            else np.concatenate(
                [
                    x.ravel()
                    for x in (
                        self.placement,
                        self.jparam,
                        self.inertia,
                        self.S,
                        self.S_ring,
                        self.T_user,
                        self.a0,
                    )
                ]
            )
        )
        #: ``(topo, packed, nq, nv)``, what a single-state entry point needs, or ``None`` (user
        #: joints); the model keeps it as ``model._single`` for its public functions' fast path
        self.single = None if self.user else (self.topo, self.packed, self.nq, nv)
        self._model = model
        self._read_only()

    def _read_only(self):
        """Make the arrays read-only: a user cannot corrupt the kernels' inputs, and every
        kernel sees them as read-only arrays (one numba signature: the per-state arrays of
        user joints and the a_0 of a given gravity are made read-only too).
        """
        for x in (self.topo, self.placement, self.jparam, self.inertia, self.S, self.S_ring):
            x.flags.writeable = False
        for x in (self.T_user, self.a0, self.packed):
            if x is not None:
                x.flags.writeable = False

    def __setstate__(self, state):
        # unpickled arrays come back writable
        self.__dict__.update(state)
        self._read_only()

    @property
    def has_user_joints(self) -> bool:
        """Whether a joint needs its Python hooks (per-state ``S``, ``S_ring``, ``T_user``)."""
        return bool(self.user)

    def joint_arrays(self, Q, V=None):
        """``(S, S_ring, T_user)`` for the states ``Q`` (B, nq) (and speeds ``V`` (B, nv)).

        Without user joints these are the shared constant arrays (one row). Otherwise each
        user joint's hooks are called once on the whole batch (vectorised numpy), and their
        results fill per-state arrays; the built-in joints' rows stay constant.
        """
        if not self.user:
            return self.S, self.S_ring, self.T_user
        model = self._model
        B = Q.shape[0] if V is None else max(Q.shape[0], V.shape[0])
        S = np.repeat(self.S, B, axis=0)
        S_ring = np.zeros((B, self.nv, 6))
        T_user = np.zeros((B, self.n_bodies, 3, 4))
        for i, joint in self.user:
            qs, vs = model.q_slices[i], model.v_slices[i]
            q_i = np.broadcast_to(Q[:, qs], (B, joint.nq))
            T_user[:, i] = joint._pose(q_i)[..., :3, :]
            if joint.nv:
                S[:, vs] = np.swapaxes(
                    np.broadcast_to(joint._motion_subspace(q_i), (B, 6, joint.nv)), -1, -2
                )
                if V is not None:
                    v_i = np.broadcast_to(V[:, vs], (B, joint.nv))
                    S_ring[:, vs] = np.swapaxes(
                        np.broadcast_to(joint._motion_subspace_rate(q_i, v_i), (B, 6, joint.nv)),
                        -1,
                        -2,
                    )
        for x in (S, S_ring, T_user):  # read-only, as the shared arrays (one kernel signature)
            x.flags.writeable = False
        return S, S_ring, T_user

    def rate_derivatives(self, Q):
        r"""``D`` (B or 1, nv, 6, 6): ``D[iv_i + b, c] = dΦ̊_i[:, c] / dν_b`` (kernels.christoffel).

        The rate :math:`\mathring{\boldsymbol\Phi}_i(q, \nu_i)` is linear in :math:`\nu_i`,
        so its derivative is its value at the unit speeds (seed 000 Alg. 2 l.3): one call of
        each user joint's hook on the whole batch ``Q`` (B, nq); zero (one shared row) for
        the built-in joints.
        """
        if not self.user:
            return np.zeros((1, self.nv, 6, 6))
        model = self._model
        B = Q.shape[0]
        D = np.zeros((B, self.nv, 6, 6))
        for i, joint in self.user:
            d = joint.nv
            if d == 0:
                continue
            q_i = Q[:, None, model.q_slices[i]]
            R = np.broadcast_to(joint._motion_subspace_rate(q_i, np.eye(d)), (B, d, 6, d))
            D[:, model.v_slices[i], :d, :] = np.swapaxes(R, -1, -2)  # [b, c, :] = R[b, :, c]
        return D

    def arrays(self):
        """The model's constant arrays in kernel order: ``(topo, placement, jparam, inertia)``."""
        return self._arrays


@njit(**INLINE)
def unpack(topo, packed):
    """``(placement, jparam, inertia, S, S_ring, T_user, a0)`` as views of
    :attr:`CompiledModel.packed` (the arrays laid end to end, in this order).

    Borrowed views (:func:`~geomech.multibody._kernels.views.borrow`): they hold no
    reference to ``packed``, an argument of the calling kernel, alive for the whole call
    (unpacking costs no reference count, neither do the views passed on to the kernels).

    Examples
    --------
    >>> import numpy as np
    >>> from numba import njit
    >>> from geomech.multibody import robots
    >>> from geomech.multibody._kernels.compiled import unpack
    >>> cm = robots.double_pendulum().compiled
    >>> @njit
    ... def copies(topo, packed):  # copies: the views themselves must not leave the kernel
    ...     placement, jparam, inertia, S, S_ring, T_user, a0 = unpack(topo, packed)
    ...     return placement.copy(), jparam.copy(), inertia.copy(), S.copy(), a0.copy()
    >>> arrays = (cm.placement, cm.jparam, cm.inertia, cm.S[0], cm.a0[0])
    >>> all(np.array_equal(x, y) for x, y in zip(copies(cm.topo, cm.packed), arrays, strict=True))
    True
    """
    N = topo.shape[0] - 1
    nv = topo[N, IV]
    return borrow(
        packed,
        0,
        (
            (N, 3, 4),  # placement
            (N, JPARAM_COLUMNS),  # jparam
            (N, 6, 6),  # inertia
            (nv, 6),  # S
            (nv, 6),  # S_ring
            (N, 3, 4),  # T_user
            (6,),  # a0
        ),
    )
