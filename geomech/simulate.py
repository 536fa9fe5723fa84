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
from geomech.lie import LieGroup
from geomech.rigidbody.body import RigidBody
from geomech.rigidbody.integrators import get_integrator, integrate

__all__ = ["simulate", "SimulationResult", "LieGroupForm", "lie_group_form", "DEFAULT_DT"]

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


def simulate(system, q0, v0, t_final: float, controller: Callable | None = None, dt: float | None = None,
             method="rkmk4", *, t0: float = 0.0) -> SimulationResult:
    """Simulate a system from ``(q0, v0)`` until ``t_final`` with a Lie-group integrator.

    The interval is divided into ``N = ceil((t_final - t0) / dt)`` equal steps (so the step is
    at most ``dt``). The controller is evaluated at every stage of the integrator (continuous
    feedback) and recorded at the output times. Leading batch dimensions of ``q0``/``v0``
    simulate several initial conditions in one vectorised run.

    Parameters
    ----------
    system : RigidBody
        The system (see :func:`lie_group_form` for the supported types).
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
