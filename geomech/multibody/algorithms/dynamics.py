r"""Rigid-body dynamics of kinematic trees: RNEA, CRBA, ABA, gravity and kinetic energy.

The equations of motion in the model's speeds :math:`\nu` (joint rates, body twists for
free-flyers, body angular velocities for spherical joints) are

.. math::
    \mathbf H(q)\,\dot\nu + \mathbf c(q, \nu) + \mathbf g(q) = \boldsymbol\tau
    + \textstyle\sum_i \mathbf J_i^\top \mathbf f^{\rm ext}_i .

The algorithms are Featherstone's (*Rigid Body Dynamics Algorithms*, 2008, Tables 5.1, 6.2
and 7.1) in the notation of seed 001 (§1.3–§2.1): ``X_up[i]`` is
:math:`{}^i\mathbf X_{p(i)}`, ``Phi[i]`` the motion subspace :math:`\boldsymbol\Phi_i`,
``Phi_ring[i]`` its rate in body coordinates :math:`\mathring{\boldsymbol\Phi}_i`, ``I_C``
the composite inertias, ``I_A``/``p_A`` the articulated inertias and bias forces, ``parent``
the parent array (``-1`` for the fixed world). Multi-DoF joints are handled as blocks (the
columns ``model.v_slices[i]``). Each algorithm is one compiled kernel for one state
(``geomech.multibody._kernels.tree.dynamics``, where the paper's lines are); the functions here
validate the inputs once, run the kernel over the flattened batch and raise the named error
of a failed state.

Gravity enters as the fictitious acceleration of the fixed world, :math:`\mathbf a_0 =
[\mathbf 0; -\mathbf g]` (Featherstone §5.3), with ``gravity`` the world-frame vector
(default ``model.gravity`` = ``[0, 0, -9.81]``). External wrenches ``f_ext`` are
``[n; f]`` acting on each body, in body coordinates (moment about the body frame origin).

References
----------
Seed 001 §1.3–§2.1 (eqs. 5, 7, 12, 13); R. Featherstone, *Rigid Body Dynamics Algorithms*,
Springer 2008, §5.3 (RNEA), §6.2 (CRBA), §7.3 (ABA).
"""

from __future__ import annotations

import numpy as np

from geomech.errors import ModelError
from geomech.multibody._kernels import linalg as _linalg
from geomech.multibody._kernels.driver import (
    call,
    compiled,
    entry,
    failure,
    single_state,
    states,
)
from geomech.multibody._kernels.status import NOT_A_VECTOR
from geomech.multibody._kernels.tree import dynamics as K

__all__ = [
    "rnea",
    "crba",
    "aba",
    "gravity_forces",
    "kinetic_energy",
    "joint_friction_torques",
    "clamp_to_limits",
]

#: An articulated-inertia block Φᵀ I^A Φ counts as singular when a pivot of its Cholesky
#: factorisation is at most this fraction of the largest entry of I^A.
SINGULAR_RTOL = _linalg.SINGULAR_RTOL

_NO_FORCES = np.zeros((1, 0, 6))

# The single-state fast path of rnea, crba and aba (each public call of one state without
# options): Python checks what the compiled entry point cannot (type, dtype and dimension of
# the vectors: ``driver.are_vectors``, written out here, which saves the call's 50 ns), the
# entry point checks lengths and strides (``NOT_A_VECTOR`` sends anything else to the general path).
_ND, _F64, _empty = np.ndarray, np.dtype(np.float64), np.empty
#: the compiled entry points of rnea_one, crba_one and aba_one once known (``driver.entry``),
#: else None: one global on the fast path instead of a dictionary look-up
_rnea_one = _crba_one = _aba_one = None


def _one(name, kernel):
    """The entry point of ``kernel`` (its dispatcher, which compiles, until it has one), kept in
    the global ``name`` once known.
    """
    ep = entry(kernel)
    if ep is not kernel:
        globals()[name] = ep
    return ep


def _a_world(gravity: np.ndarray) -> np.ndarray:
    """Spatial acceleration of the fixed world that emulates gravity: a_0 = [0; -g]."""
    a_0 = np.zeros(gravity.shape[:-1] + (6,))
    a_0[..., 3:] = -gravity
    a_0.flags.writeable = False  # as the model's a_0 (one kernel signature)
    return a_0


def _inputs(model, gravity, f_ext, *named):
    """Validated batch of ``named`` (name, value, trailing) inputs, a_0 = [0; −g] and f_ext."""
    if gravity is None:
        batch, B, arrays = states(
            *named, *(() if f_ext is None else (("f_ext", f_ext, (model.n_bodies, 6)),))
        )
        A0 = model.compiled.a0
    else:
        extra = [("gravity", gravity, (3,))]
        if f_ext is not None:
            extra.append(("f_ext", f_ext, (model.n_bodies, 6)))
        batch, B, arrays = states(*named, *extra)
        A0 = _a_world(arrays.pop(len(named)))
    F = arrays[len(named)] if f_ext is not None else _NO_FORCES
    return batch, B, arrays[: len(named)], A0, F


def _shaped(out, batch):
    """A (B, ...) kernel output as (*batch, ...)."""
    return out[0] if not batch else out.reshape(batch + out.shape[1:])


# ----------------------------------------------------------------------------------------
# public API
# ----------------------------------------------------------------------------------------


def _tree_method(method) -> None:
    if method is not None and method != "tree":
        raise ModelError(
            f"Expected `method` None or 'tree' for a kinematic tree (the methods 'cluster', "
            f"'projection' and 'lagrange' are for closed models), got {method!r}."
        )


def rnea(model, q, v, a, gravity=None, f_ext=None, method=None) -> np.ndarray:
    r"""Inverse dynamics by the recursive Newton–Euler algorithm.

    .. math::
        \boldsymbol\tau = \mathbf H(q)\,\dot\nu + \mathbf c(q, \nu) + \mathbf g(q)
        - \textstyle\sum_i \mathbf J_i^\top\mathbf f^{\rm ext}_i

    computed as (seed 001 §2.1): forward pass :math:`\mathbf v_i = {}^i\mathbf X_{p(i)}
    \mathbf v_{p(i)} + \boldsymbol\Phi_i\nu_i`, :math:`\mathbf a_i = {}^i\mathbf X_{p(i)}
    \mathbf a_{p(i)} + \boldsymbol\Phi_i\dot\nu_i + \dot{\boldsymbol\Phi}_i\nu_i`,
    :math:`\mathbf f_i = \mathbf I_i\mathbf a_i + \mathbf v_i\times^*\mathbf I_i\mathbf v_i
    - \mathbf f^{\rm ext}_i`; backward pass :math:`\boldsymbol\tau_i =
    \boldsymbol\Phi_i^\top\mathbf f_i`, :math:`\mathbf f_{p(i)} \mathrel{+}=
    {}^i\mathbf X_{p(i)}^\top\mathbf f_i`. The armature (``model.armature``, see
    :class:`~geomech.multibody.model.tree.MultibodyModel`) is part of :math:`\mathbf H`:
    :math:`\boldsymbol\tau_i \mathrel{+}= \mathrm{diag}(\mathbf k_{a,i})\dot\nu_i`, as in
    ``pinocchio.rnea``; the joint friction torque (damping, Coulomb friction) is not
    included (:func:`joint_friction_torques`).

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
        Configurations.
    v : array_like, shape (..., nv)
        Speeds :math:`\nu`.
    a : array_like, shape (..., nv)
        Accelerations :math:`\dot\nu`.
    gravity : array_like, shape (..., 3), optional
        Gravity in the world frame; default ``model.gravity``.
    f_ext : array_like, shape (..., N, 6), optional
        External wrench ``[n; f]`` on each body, in body coordinates.
    method : str, optional
        For a closed model (:class:`~geomech.multibody.closed.model.ClosedMultibodyModel`, whose
        ``v``, ``a`` and ``tau`` are the independent ones): ``"cluster"`` (default, seed
        004's C-RNEA) or ``"projection"``
        (:mod:`~geomech.multibody.closed.dynamics`). For a tree only ``None`` or ``"tree"``.

    Returns
    -------
    ndarray, shape (..., nv)
        Generalised forces :math:`\boldsymbol\tau`.

    Raises
    ------
    DimensionError
        On wrong trailing shapes or non-broadcastable batch dimensions.
    NonFiniteError
        On NaN or inf entries.
    ModelError
        On a ``method`` that does not apply to the model.
    NotOnManifoldError
        For a closed model, if ``q`` does not satisfy the loop constraints.

    References
    ----------
    Seed 001 eqs. 5, 7, 12, 13 (§2.1); Featherstone 2008, Table 5.1; seed 004 Sec. VI
    (C-RNEA) for closed models.

    Examples
    --------
    Holding a double pendulum (unit point masses on unit links) horizontal takes
    :math:`g\,(m_1 l_1 + m_2 (l_1 + l_2)) = 3g` at the shoulder and :math:`g m_2 l_2 = g`
    at the elbow:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.dynamics import rnea
    >>> model = robots.double_pendulum()
    >>> rnea(model, [np.pi / 2, 0.0], [0.0, 0.0], [0.0, 0.0])
    array([29.43,  9.81])
    """
    try:  # a tree's arrays, once compiled (a closed model: None; not a model: the general path)
        single = model._single
    except AttributeError:
        single = None
    if (  # one state: its kernel (see _one)
        type(q) is _ND
        and type(v) is _ND
        and type(a) is _ND
        and q.dtype is _F64
        and v.dtype is _F64
        and a.dtype is _F64
        and q.ndim == 1
        and v.ndim == 1
        and a.ndim == 1
        and gravity is None
        and f_ext is None
        and method is None
        and (single is not None or (single := single_state(model)) is not None)
    ):
        topo, packed, nq, nv = single
        tau = _empty(nv)
        status = (_rnea_one or _one("_rnea_one", K.rnea_one))(topo, packed, q, v, a, tau)
        if status == 0:
            return tau
        if status != NOT_A_VECTOR:
            raise failure(status, model, ("q", "v", "a"), (q, v, a), "tau")
    if getattr(model, "is_closed", False):
        return model.ALGORITHMS["rnea"](model, q, v, a, gravity, f_ext, method=method)
    if method is not None:
        _tree_method(method)
    cm = compiled(model)
    batch, B, (Q, V, A), A0, F = _inputs(
        model, gravity, f_ext, ("q", q, (cm.nq,)), ("v", v, (cm.nv,)), ("a", a, (cm.nv,))
    )
    TAU = np.empty((B, cm.nv))
    call(
        K.rnea_batch,
        cm.arrays(),
        (*cm.joint_arrays(Q, V), Q, V, A, A0, F, TAU),
        batch,
        model,
        names=("S", "S_ring", "T_user", "q", "v", "a", "gravity", "f_ext"),
        what="tau",
    )
    return _shaped(TAU, batch)


def crba(model, q, method=None) -> np.ndarray:
    r"""Joint-space inertia matrix :math:`\mathbf H(q)` by the composite-rigid-body algorithm.

    .. math::
        \mathbf H_{ij} = \boldsymbol\Phi_i^\top\,\mathbf I^C_j\,\boldsymbol\Phi_j
        \quad (i\preceq j),\qquad \mathbf I^C_j = \textstyle\sum_{k\succeq j}\mathbf I_k

    (seed 001 eq. 19), with blocks of unrelated bodies zero, plus the armature on the
    diagonal, :math:`\mathbf H \mathrel{+}= \mathrm{diag}(\mathbf k_a)` (``model.armature``,
    as ``pinocchio.crba``; seed 004's approximate reflected inertia). Unlike
    ``pinocchio.crba`` in C++, the full symmetric matrix is returned.

    For a closed model the mass matrix in the independent speeds,
    :math:`\bar{\mathbf H} = G^\top\mathbf H G` (``method`` ``"projection"``, the default:
    the spanning tree's CRBA projected with :math:`G`).

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    method : str, optional
        For a closed model a name from ``closed_dynamics.METHODS["crba"]``; for a tree only
        ``None`` or ``"tree"``.

    Returns
    -------
    ndarray, shape (..., nv, nv)
        Symmetric positive (semi-)definite :math:`\mathbf H`; kinetic energy is
        :math:`\tfrac12\nu^\top\mathbf H\nu`.

    Raises
    ------
    DimensionError
        If ``q`` is not of shape (..., nq).
    NonFiniteError
        If ``q`` has NaN or inf entries.
    ModelError
        On a ``method`` that does not apply to the model.
    NotOnManifoldError
        For a closed model, if ``q`` does not satisfy the loop constraints.

    References
    ----------
    Seed 001 Alg. 1 (the M lines 5, 10, 13, 16–21, 24) and eq. 19; Featherstone 2008,
    Table 6.2; seed 004 §5 identity 2 for closed models.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.dynamics import crba
    >>> model = robots.double_pendulum()
    >>> crba(model, [0.3, 0.0])   # [[(m1 + m2) l1² + m2 l2² + 2 m2 l1 l2, ...], ...]
    array([[5., 2.],
           [2., 1.]])
    """
    try:  # a tree's arrays, once compiled (a closed model: None; not a model: the general path)
        single = model._single
    except AttributeError:
        single = None
    if (  # one state: its kernel (see _one)
        type(q) is _ND
        and q.dtype is _F64
        and q.ndim == 1
        and method is None
        and (single is not None or (single := single_state(model)) is not None)
    ):
        topo, packed, nq, nv = single
        H = _empty((nv, nv))
        status = (_crba_one or _one("_crba_one", K.crba_one))(topo, packed, q, H)
        if status == 0:
            return H
        if status != NOT_A_VECTOR:  # (else: the general path converts q or names the error)
            raise failure(status, model, ("q",), (q,), "H")
    if getattr(model, "is_closed", False):
        return model.ALGORITHMS["crba"](model, q, method=method)
    if method is not None:
        _tree_method(method)
    cm = compiled(model)
    batch, B, (Q,) = states(("q", q, (cm.nq,)), per_state=cm.nv**2)
    H = np.empty((B, cm.nv, cm.nv))
    call(
        K.crba_batch,
        cm.arrays(),
        (*cm.joint_arrays(Q), Q, H),
        batch,
        model,
        names=("S", "S_ring", "T_user", "q"),
        what="H",
    )
    return _shaped(H, batch)


def aba(model, q, v, tau, gravity=None, f_ext=None, method=None) -> np.ndarray:
    r"""Forward dynamics :math:`\dot\nu` by the articulated-body algorithm.

    .. math::
        \dot\nu = \mathbf H(q)^{-1}\big(\boldsymbol\tau - \mathbf c(q, \nu) - \mathbf g(q)
        + \textstyle\sum_i\mathbf J_i^\top\mathbf f^{\rm ext}_i\big)

    in :math:`O(N)`: the backward pass builds the articulated inertias
    :math:`\mathbf I^A_i` and bias forces :math:`\mathbf p^A_i`, using
    :math:`\mathbf U_i = \mathbf I^A_i\boldsymbol\Phi_i`, :math:`\mathbf D_i =
    \boldsymbol\Phi_i^\top\mathbf U_i` and :math:`\mathbf u_i = \boldsymbol\tau_i -
    \boldsymbol\Phi_i^\top\mathbf p^A_i`; the second forward pass gives
    :math:`\dot\nu_i = \mathbf D_i^{-1}(\mathbf u_i - \mathbf U_i^\top\mathbf a'_i)`.
    The armature enters as :math:`\mathbf D_i = \boldsymbol\Phi_i^\top\mathbf U_i +
    \mathrm{diag}(\mathbf k_{a,i})` (still :math:`O(N)`; :math:`\mathbf H` is then
    :func:`crba`'s, armature included), as in ``pinocchio.aba``. ``tau`` is the whole
    applied torque: the joint friction torque is not added here (it is by
    ``model.forward_dynamics`` and :func:`geomech.simulate`; :func:`joint_friction_torques`).

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    tau : array_like, shape (..., nv)
        Generalised forces.
    gravity : array_like, shape (..., 3), optional
        Gravity in the world frame; default ``model.gravity``.
    f_ext : array_like, shape (..., N, 6), optional
        External wrench ``[n; f]`` on each body, in body coordinates.
    method : str, optional
        For a closed model: ``"cluster"`` (default, seed 004's C-ABA), ``"projection"`` or
        ``"lagrange"`` (:mod:`~geomech.multibody.closed.dynamics`). For a tree only ``None``
        or ``"tree"``.

    Returns
    -------
    ndarray, shape (..., nv)
        Accelerations :math:`\dot\nu`.

    Raises
    ------
    DimensionError
        On wrong trailing shapes or non-broadcastable batch dimensions.
    NonFiniteError
        On NaN or inf entries.
    SingularityError
        If some :math:`\mathbf D_i` is singular (e.g. a zero-mass leaf link); the message
        names the body.
    ModelError
        On a ``method`` that does not apply to the model.
    NotOnManifoldError
        For a closed model, if ``q`` does not satisfy the loop constraints.

    References
    ----------
    Featherstone 2008, Table 7.1 (with :math:`\mathbf c_i = \dot{\boldsymbol\Phi}_i\nu_i`,
    seed 001 §1.4); seed 004 Algorithm 1 (C-ABA) for closed models.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.dynamics import aba, rnea
    >>> model = robots.double_pendulum()
    >>> q, v, a = np.array([0.3, -0.5]), np.array([1.0, 2.0]), np.array([0.1, 0.2])
    >>> bool(np.allclose(aba(model, q, v, rnea(model, q, v, a)), a))
    True
    """
    try:  # a tree's arrays, once compiled (a closed model: None; not a model: the general path)
        single = model._single
    except AttributeError:
        single = None
    if (  # one state: its kernel (see _one)
        type(q) is _ND
        and type(v) is _ND
        and type(tau) is _ND
        and q.dtype is _F64
        and v.dtype is _F64
        and tau.dtype is _F64
        and q.ndim == 1
        and v.ndim == 1
        and tau.ndim == 1
        and gravity is None
        and f_ext is None
        and method is None
        and (single is not None or (single := single_state(model)) is not None)
    ):
        topo, packed, nq, nv = single
        a = _empty(nv)
        status = (_aba_one or _one("_aba_one", K.aba_one))(topo, packed, q, v, tau, a)
        if status == 0:
            return a
        if status != NOT_A_VECTOR:
            raise failure(status, model, ("q", "v", "tau"), (q, v, tau), "the accelerations")
    if getattr(model, "is_closed", False):
        return model.ALGORITHMS["aba"](model, q, v, tau, gravity, f_ext, method=method)
    if method is not None:
        _tree_method(method)
    cm = compiled(model)
    batch, B, (Q, V, TAU), A0, F = _inputs(
        model, gravity, f_ext, ("q", q, (cm.nq,)), ("v", v, (cm.nv,)), ("tau", tau, (cm.nv,))
    )
    A = np.empty((B, cm.nv))
    call(
        K.aba_batch,
        cm.arrays(),
        (*cm.joint_arrays(Q, V), Q, V, TAU, A0, F, A),
        batch,
        model,
        names=("S", "S_ring", "T_user", "q", "v", "tau", "gravity", "f_ext"),
        what="the accelerations",
    )
    return _shaped(A, batch)


def gravity_forces(model, q, gravity=None) -> np.ndarray:
    r"""Generalised gravity forces :math:`\mathbf g(q)` = ``rnea(model, q, 0, 0, gravity)``.

    .. math::
        \mathbf g(q) = -\textstyle\sum_i \mathbf J_i^\top\,\mathbf I_i\,
        {}^i\mathbf X_0\,[\mathbf 0; \mathbf g]

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    gravity : array_like, shape (..., 3), optional
        Gravity in the world frame; default ``model.gravity``.

    Returns
    -------
    ndarray, shape (..., nv)

    Raises
    ------
    DimensionError
        On wrong trailing shapes.
    NonFiniteError
        On NaN or inf entries.

    References
    ----------
    Seed 001 eq. 1; Featherstone 2008, §5.3.

    Examples
    --------
    A double pendulum hanging straight down needs no torque:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.dynamics import gravity_forces
    >>> model = robots.double_pendulum()
    >>> bool(np.allclose(gravity_forces(model, model.neutral()), 0.0))
    True
    """
    zero = np.zeros(model.nv)
    return rnea(model, q, zero, zero, gravity=gravity)


def kinetic_energy(model, q, v) -> np.ndarray:
    r"""Kinetic energy :math:`T = \tfrac12\sum_i \mathbf v_i^\top\mathbf I_i\mathbf v_i +
    \tfrac12\sum_k k_{a,k}\nu_k^2 = \tfrac12\nu^\top\mathbf H\nu` (the armature
    :math:`\mathbf k_a` is the rotors' kinetic energy).

    On a closed model ``v`` holds the independent speeds and the bodies move with the
    spanning-tree speeds :math:`G v`, so :math:`T = \tfrac12 (Gv)^\top \mathbf H_s (Gv) =
    \tfrac12 v^\top \bar{\mathbf H} v` (seed 000 eq. 17).

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)

    Returns
    -------
    ndarray, shape (...)

    Raises
    ------
    DimensionError
        On wrong trailing shapes or non-broadcastable batch dimensions.
    NonFiniteError
        On NaN or inf entries.

    References
    ----------
    Seed 001 Remark 4 (eq. 29).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.dynamics import crba, kinetic_energy
    >>> model = robots.double_pendulum()
    >>> q, v = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    >>> bool(np.isclose(kinetic_energy(model, q, v), 0.5 * v @ crba(model, q) @ v))
    True
    """
    if getattr(model, "is_closed", False):
        G, _ = model.constraint_matrices(q, v)  # validates q (on the constraint) and v
        return kinetic_energy(model.spanning_tree, q, np.einsum("...ij,...j->...i", G, v))
    cm = compiled(model)
    batch, B, (Q, V) = states(("q", q, (cm.nq,)), ("v", v, (cm.nv,)))
    T = np.empty((B, 1))
    call(
        K.kinetic_energy_batch,
        cm.arrays(),
        (*cm.joint_arrays(Q, V), Q, V, T),
        batch,
        model,
        names=("S", "S_ring", "T_user", "q", "v"),
        what="the kinetic energy",
    )
    return T.reshape(batch) if batch else T[0, 0]


def joint_friction_torques(model, v) -> np.ndarray:
    r"""The joint friction torque: viscous damping and Coulomb friction, per speed.

    .. math::
        \boldsymbol\tau_f = -\mathbf k_d\odot\nu - \mathbf k_f\odot\operatorname{sign}(\nu)

    with :math:`\mathbf k_d` = ``model.damping`` and :math:`\mathbf k_f` = ``model.friction``
    (URDF ``<dynamics damping= friction=>``; ``sign(0) = 0``). It is what
    ``model.forward_dynamics(q, v, tau)`` and :func:`geomech.simulate` add to the applied
    torque before the ABA; :func:`rnea`, :func:`aba` and :func:`crba` leave it out (as
    Pinocchio's do). Its power :math:`\nu^\top\boldsymbol\tau_f \le 0` is the energy
    dissipated per unit time.

    Parameters
    ----------
    model : MultibodyModel
    v : array_like, shape (..., nv)

    Returns
    -------
    ndarray, shape (..., nv)

    Raises
    ------
    DimensionError
        If the trailing dimension of ``v`` is not ``nv``.

    References
    ----------
    Featherstone 2008, §10.2 (joint friction); Pinocchio's ``model.damping``,
    ``model.friction``.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from geomech.multibody import MultibodyModel, robots
    >>> from geomech.multibody.algorithms.dynamics import joint_friction_torques
    >>> G = robots.double_pendulum().graph.copy()
    >>> nx.set_edge_attributes(G, 0.5, "damping")
    >>> nx.set_edge_attributes(G, 0.1, "friction")
    >>> model = MultibodyModel(G)
    >>> joint_friction_torques(model, [2.0, -2.0])  # -0.5 v - 0.1 sign(v)
    array([-1.1,  1.1])
    """
    from geomech._validation import as_array

    v = as_array(v, "v", (model.nv,))
    return -(model.damping * v) - model.friction * np.sign(v)


def clamp_to_limits(model, tau=None, q=None, v=None):
    r"""Clamp torques, configurations or speeds to the model's joint limits.

    .. math::
        \tau_k \mapsto \min(\max(\tau_k, -\bar\tau_k), \bar\tau_k),\quad
        q_k \mapsto \min(\max(q_k, \underline q_k), \bar q_k),\quad
        \nu_k \mapsto \min(\max(\nu_k, -\bar\nu_k), \bar\nu_k)

    with ``model.effort_limit``, ``model.lower_position_limit``,
    ``model.upper_position_limit`` and ``model.velocity_limit`` (infinite where the URDF
    gives none). No algorithm of geomech clamps by itself: a controller calls this on its
    output when it wants saturation. (A quaternion's coordinates clamped one by one are no
    longer a unit quaternion: URDF gives limits only to 1-DoF joints.)

    Parameters
    ----------
    model : MultibodyModel
    tau : array_like, shape (..., nv), optional
    q : array_like, shape (..., nq), optional
    v : array_like, shape (..., nv), optional

    Returns
    -------
    ndarray or tuple of ndarray
        The clamped arrays given, in the order ``tau, q, v`` (one array if one was given).

    Raises
    ------
    DimensionError
        On wrong trailing dimensions, or if none is given.

    Examples
    --------
    >>> import networkx as nx
    >>> from geomech.multibody import MultibodyModel, robots
    >>> from geomech.multibody.algorithms.dynamics import clamp_to_limits
    >>> G = robots.double_pendulum().graph.copy()
    >>> G.edges["world", "link1"]["limits"] = {"effort": "3", "lower": "-1", "upper": "1"}
    >>> model = MultibodyModel(G)
    >>> clamp_to_limits(model, tau=[5.0, 5.0])
    array([3., 5.])
    >>> clamp_to_limits(model, tau=[-5.0, 0.0], q=[2.0, 2.0])
    (array([-3.,  0.]), array([1., 2.]))
    """
    from geomech._validation import as_array
    from geomech.errors import DimensionError

    out = []
    if tau is not None:
        e = model.effort_limit
        out.append(np.clip(as_array(tau, "tau", (model.nv,)), -e, e))
    if q is not None:
        lo, hi = model.lower_position_limit, model.upper_position_limit
        out.append(np.clip(as_array(q, "q", (model.nq,)), lo, hi))
    if v is not None:
        w = model.velocity_limit
        out.append(np.clip(as_array(v, "v", (model.nv,)), -w, w))
    if not out:
        raise DimensionError("Expected at least one of `tau`, `q`, `v`, got none.")
    return out[0] if len(out) == 1 else tuple(out)
