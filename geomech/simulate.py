"""Simulation of mechanical systems with Lie-group integrators.

:func:`simulate` is the single entry point. It turns a system into a *Lie-group form* — a
group ``G``, the state ``(q, v) ∈ G × R^nv`` and the vector field
``q̇ = q ξ̂(t, q, v)``, ``v̇ = F(t, q, v, τ)`` — and integrates it with an RKMK method of
:mod:`geomech.rigidbody.integrators`, so the configuration never leaves the group.

Supported systems: :class:`~geomech.rigidbody.RigidBody` (seed 003). The extension point for
other system types (``MechanicalSystem``, ``MultibodyModel``) is the single-dispatch function
:func:`lie_group_form`: register a function that returns a :class:`LieGroupForm` for the new
type; until then :func:`simulate` raises ``NotImplementedError`` for them.

Examples
--------
>>> import numpy as np
>>> from geomech.lie import SO3
>>> from geomech.rigidbody import RigidBody
>>> from geomech.simulate import simulate
>>> body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
>>> res = simulate(body, np.eye(3), [0.1, -0.2, 0.3], t_final=1.0, dt=0.01)
>>> res.t.shape, res.q.shape, res.v.shape, res.tau.shape
((101,), (101, 3, 3), (101, 3), (101, 3))
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import singledispatch

import numpy as np

from geomech._validation import as_array
from geomech.errors import NonFiniteError
from geomech.lie import LieGroup
from geomech.rigidbody.body import RigidBody
from geomech.rigidbody.integrators import get_integrator, integrate

__all__ = ["simulate", "SimulationResult", "LieGroupForm", "lie_group_form", "mechanical_system_form",
           "DEFAULT_DT"]

#: Default maximal step size (s).
DEFAULT_DT = 1e-3


@dataclass(frozen=True)
class SimulationResult:
    """Trajectory returned by :func:`simulate` (time is the first axis of every array).

    Attributes
    ----------
    t : ndarray, shape (N + 1,)
        Times.
    q : ndarray, shape (N + 1, ..., *point_shape)
        Configurations (group elements; e.g. rotation matrices for a body on SO(3)).
    v : ndarray, shape (N + 1, ..., nv)
        Velocities (body velocities for a rigid body).
    tau : ndarray, shape (N + 1, ..., nv)
        Applied generalized forces ``controller(t, q, v)`` at the recorded states (zeros
        without a controller).
    method : str
        Name of the integrator.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE2
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.simulate import simulate
    >>> res = simulate(RigidBody(SE2, np.eye(3)), np.eye(3), [0.0, 1.0, 0.0], t_final=2.0, dt=0.5)
    >>> res.t, res.q[-1][:2, 2]
    (array([0. , 0.5, 1. , 1.5, 2. ]), array([2., 0.]))
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    tau: np.ndarray
    method: str


@dataclass(frozen=True)
class LieGroupForm:
    """A system written as a vector field on ``G × R^nv`` (what :func:`simulate` integrates).

    Attributes
    ----------
    group : LieGroup
        Configuration group ``G``.
    nv : int
        Number of velocity coordinates.
    velocity : callable
        ``velocity(t, q, v) -> xi``: left-trivialised configuration rate, ``q̇ = q ξ̂``.
    acceleration : callable
        ``acceleration(t, q, v, tau) -> v_dot`` (``tau`` may be ``None``).
    validate_q : callable
        ``validate_q(q0) -> ndarray``: checks an initial configuration.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.simulate import lie_group_form
    >>> form = lie_group_form(RigidBody(SO3, np.eye(3)))
    >>> form.group, form.nv
    (SO3, 3)
    """

    group: LieGroup
    nv: int
    velocity: Callable
    acceleration: Callable
    validate_q: Callable


@singledispatch
def lie_group_form(system) -> LieGroupForm:
    """The Lie-group form of a system (single dispatch on its type; the extension point).

    Register new system types with ``@lie_group_form.register``; each returns a
    :class:`LieGroupForm`.

    Parameters
    ----------
    system : object
        The system to simulate.

    Returns
    -------
    LieGroupForm

    Raises
    ------
    NotImplementedError
        For ``MechanicalSystem`` and ``MultibodyModel`` (not supported yet).
    TypeError
        For any other unsupported type.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE3
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.simulate import lie_group_form
    >>> lie_group_form(RigidBody(SE3, np.eye(6))).nv
    6
    >>> lie_group_form("pendulum")
    Traceback (most recent call last):
    ...
    TypeError: simulate() supports RigidBody systems; got str.
    """
    name = type(system).__name__
    if name in ("MechanicalSystem", "MultibodyModel"):
        raise NotImplementedError(
            f"simulate() does not support {name} yet: only RigidBody has a Lie-group form. "
            "Register one with @geomech.simulate.lie_group_form.register."
        )
    raise TypeError(f"simulate() supports RigidBody systems; got {name}.")


@lie_group_form.register
def _(system: RigidBody) -> LieGroupForm:
    # seed 003: q = g ∈ G, v = body velocity; ġ = g v̂ (§1.3) and M v̇ - ad_vᵀ M v + n = τ (107)
    return LieGroupForm(
        group=system.group,
        nv=system.dim,
        velocity=lambda t, g, v: v,
        acceleration=lambda t, g, v, tau: system._forward_dynamics(g, v, tau),
        validate_q=lambda q0: system.group.validate(q0, "q0"),
    )


def mechanical_system_form(system) -> LieGroupForm:
    r"""Lie-group form of a :class:`~geomech.geometry.MechanicalSystem` on a group manifold.

    Configuration rate from the frame (coordinate or left-invariant frame: :math:`\xi = v`;
    right-invariant frame: :math:`\xi = \mathrm{Ad}_{q^{-1}} v`), and the Lagrange equations
    in the frame with the Levi-Civita factorization,

    .. math::

        H(q)\dot v + C^\star(q, v) v + g(q) = \tau .

    Parameters
    ----------
    system : MechanicalSystem
        Its ``manifold`` must be a :class:`~geomech.lie.LieGroup` (``Euclidean(n)`` for a
        coordinate frame).

    Returns
    -------
    LieGroupForm

    Raises
    ------
    TypeError
        If the manifold is not a Lie group or the frame is a custom frame.

    References
    ----------
    seed 000 Sec. II (eq. 1, ``Hq̈ + Cq̇ + g = τ``); seed 003 §1.3.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples import point_mass
    >>> from geomech.simulate import mechanical_system_form
    >>> form = mechanical_system_form(point_mass(2.0))
    >>> form.acceleration(0.0, np.zeros(3), np.ones(3), np.array([2.0, 0.0, 0.0]))
    array([1., 0., 0.])
    """
    from geomech.geometry.frames import CoordinateFrame, LeftInvariantFrame, RightInvariantFrame
    from geomech.geometry.levi_civita import LeviCivitaConnection

    group, frame = system.manifold, system.frame
    if not isinstance(group, LieGroup):
        raise TypeError(f"Expected the manifold of `system` to be a LieGroup, got {type(group).__name__}.")
    if isinstance(frame, RightInvariantFrame):
        def velocity(t, q, v):
            return np.einsum("...ij,...j->...i", group.Ad(group.inverse(q)), v)
    elif isinstance(frame, (CoordinateFrame, LeftInvariantFrame)):
        def velocity(t, q, v):
            return v
    else:
        raise TypeError(f"simulate() does not support frames of type {type(frame).__name__}.")
    lc = LeviCivitaConnection(system)

    def acceleration(t, q, v, tau):
        # seed 000 eq. (1): H v̇ = τ − C*(q, v) v − g(q)
        rhs = -np.einsum("...ik,...k->...i", lc.coriolis_matrix(q, v), v) - system.gravity(q)
        if tau is not None:
            rhs = rhs + tau
        return np.linalg.solve(system.mass_matrix(q), rhs[..., None])[..., 0]

    return LieGroupForm(group=group, nv=system.dim, velocity=velocity, acceleration=acceleration,
                        validate_q=lambda q0: group.validate(q0, "q0"))


def simulate(system, q0, v0, t_final: float, controller: Callable | None = None, dt: float | None = None,
             method="rkmk4", *, t0: float = 0.0) -> SimulationResult:
    """Simulate a system from ``(q0, v0)`` until ``t_final`` with a Lie-group integrator.

    The interval is divided into ``N = ceil((t_final - t0) / dt)`` equal steps (so the step is
    at most ``dt``). The controller is evaluated at every stage of the integrator (continuous
    feedback) and recorded at the output times. Leading batch dimensions of ``q0``/``v0``
    simulate several initial conditions in one vectorised run.

    Parameters
    ----------
    system : RigidBody or MultibodyModel
        The system (see :func:`lie_group_form` for the Lie-group types). A ``MultibodyModel``
        is integrated by classical RK4 in the joint-wise exponential chart re-centred each
        step (``model.integrate``; quaternions stay unit norm), single trajectory only, with
        ``method`` ignored.
    q0 : array_like, shape (..., *point_shape)
        Initial configuration (a group element; e.g. a 3×3 rotation on SO(3)).
    v0 : array_like, shape (..., nv)
        Initial velocity (body velocity for a rigid body).
    t_final : float
        Final time (s), ``> t0``.
    controller : callable, optional
        ``controller(t, q, v) -> tau`` of shape ``(..., nv)``; ``None`` for free motion.
    dt : float, optional
        Maximal step (s); default :data:`DEFAULT_DT` (1 ms).
    method : str or RKMK, optional
        ``"rkmk4"`` (default), ``"rkmk2"``/``"midpoint"``, ``"lie_euler"``, or an
        :class:`~geomech.rigidbody.integrators.RKMK`.
    t0 : float, optional
        Initial time.

    Returns
    -------
    SimulationResult
        Arrays ``t``, ``q``, ``v``, ``tau`` (time first).

    Raises
    ------
    NotImplementedError
        For ``MechanicalSystem``/``MultibodyModel`` (not supported yet).
    TypeError
        For other unsupported systems or a non-callable controller.
    DimensionError, NonFiniteError, NotOnManifoldError
        If ``q0``/``v0`` are malformed or ``q0`` is not on the group.
    ValueError
        If ``t_final <= t0``, ``dt <= 0`` or the method is unknown.
    NonFiniteError
        If the numerical solution diverges (non-finite state; the step is too large).

    References
    ----------
    seed 003 §1.3 (``ġ = g v̂``; "integrate with any Lie-group integrator"); Munthe-Kaas (1999).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.simulate import simulate
    >>> body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
    >>> res = simulate(body, np.eye(3), [0.1, -0.2, 0.3], t_final=1.0)  # 10³ steps of 1 ms
    >>> E = body.kinetic_energy(res.v)
    >>> bool(abs(E[-1] / E[0] - 1.0) < 1e-12)
    True
    """
    from geomech.multibody.model import MultibodyModel

    if isinstance(system, MultibodyModel):
        return _simulate_multibody(system, q0, v0, t_final, controller, dt, t0)
    form = lie_group_form(system)
    if controller is not None and not callable(controller):
        raise TypeError(f"Expected `controller` to be callable or None, got {type(controller).__name__}.")
    group = form.group
    q = form.validate_q(q0)
    v = as_array(v0, "v0", (form.nv,))
    lead = np.broadcast_shapes(q.shape[: q.ndim - len(group.point_shape)], v.shape[:-1])
    q = np.broadcast_to(q, lead + group.point_shape).copy()
    v = np.broadcast_to(v, lead + (form.nv,)).copy()
    t0, t_final = float(t0), float(t_final)
    dt = DEFAULT_DT if dt is None else float(dt)
    if not (np.isfinite(t0) and np.isfinite(t_final) and t_final > t0):
        raise ValueError(f"Expected a finite `t_final` > t0 = {t0}, got {t_final}.")
    if not (np.isfinite(dt) and dt > 0.0):
        raise ValueError(f"Expected `dt` > 0, got {dt}.")
    integrator = get_integrator(method)
    n_steps = max(1, math.ceil((t_final - t0) / dt - 1e-9))  # tolerate rounding of T/dt

    def tau_of(t, q_, v_):
        if controller is None:
            return None
        return as_array(controller(t, q_, v_), "controller(t, q, v)", (form.nv,))

    def field(t, q_, v_):
        return form.velocity(t, q_, v_), form.acceleration(t, q_, v_, tau_of(t, q_, v_))

    t, qs, vs = integrate(group, field, q, v, t0, t_final, n_steps, integrator)
    taus = np.zeros_like(vs)
    if controller is not None:
        for k in range(n_steps + 1):
            taus[k] = tau_of(t[k], qs[k], vs[k])
    return SimulationResult(t=t, q=qs, v=vs, tau=taus, method=integrator.name)


def _simulate_multibody(model, q0, v0, t_final, controller, dt, t0):
    """Classical RK4 in the joint-wise exponential chart, re-centred each step.

    Stage configurations are ``model.integrate(q_n, h Σ a_ij k_j)`` (joint exponentials, so
    free-flyer/spherical quaternions stay unit norm); the chart map's ``dexp⁻¹`` is taken as the
    identity, which is exact for revolute/prismatic joints (order 4) and first-order accurate in
    the step for the rotational part of spherical/free-flyer joints (order 2 overall for those).
    """
    from geomech.multibody.dynamics import aba

    q = as_array(q0, "q0", (model.nq,))
    v = as_array(v0, "v0", (model.nv,))
    q = model.integrate(q, np.zeros(model.nv), 0.0)  # validates / normalises once
    t0, t_final = float(t0), float(t_final)
    dt = DEFAULT_DT if dt is None else float(dt)
    if not (np.isfinite(t0) and np.isfinite(t_final) and t_final > t0):
        raise ValueError(f"Expected a finite `t_final` > t0 = {t0}, got {t_final}.")
    if not (np.isfinite(dt) and dt > 0.0):
        raise ValueError(f"Expected `dt` > 0, got {dt}.")
    n_steps = max(1, math.ceil((t_final - t0) / dt - 1e-9))
    h = (t_final - t0) / n_steps
    t = t0 + h * np.arange(n_steps + 1)

    def tau_of(t_, q_, v_):
        if controller is None:
            return np.zeros(model.nv)
        return as_array(controller(t_, q_, v_), "controller(t, q, v)", (model.nv,))

    def f(t_, dq, dv):  # dq: chart offset from q_n; returns (q-rate, v-rate)
        q_ = model.integrate(qn, dq)
        vv = vn + dv
        return vv, aba(model, q_, vv, tau_of(t_, q_, vv))

    qs = np.empty((n_steps + 1, model.nq))
    vs = np.empty((n_steps + 1, model.nv))
    qs[0], vs[0] = q, v
    zero = np.zeros(model.nv)
    for n in range(n_steps):
        qn, vn, tn = qs[n], vs[n], t[n]
        k1 = f(tn, zero, zero)
        k2 = f(tn + h / 2, h / 2 * k1[0], h / 2 * k1[1])
        k3 = f(tn + h / 2, h / 2 * k2[0], h / 2 * k2[1])
        k4 = f(tn + h, h * k3[0], h * k3[1])
        dq = h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        dv = h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        qs[n + 1], vs[n + 1] = model.integrate(qn, dq), vn + dv
        if not (np.all(np.isfinite(qs[n + 1])) and np.all(np.isfinite(vs[n + 1]))):
            raise NonFiniteError(f"The simulation diverged at t = {t[n + 1]}; reduce `dt`.")
    taus = np.array([tau_of(tk, a, b) for tk, a, b in zip(t, qs, vs, strict=True)])
    if controller is None:
        taus = np.zeros_like(vs)
    return SimulationResult(t=t, q=qs, v=vs, tau=taus, method="rk4-joint-chart")
