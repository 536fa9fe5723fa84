r"""Simulation of mechanical systems with the configuration kept on its manifold.

:func:`simulate` is the single entry point. Every system is integrated in an *exponential
chart re-centred along the way*: around a centre :math:`q_c` the configuration is
:math:`q = q_c \oplus \delta` (``q_c exp(δ̂)`` on a Lie group, the joint-wise exponentials
``model.integrate(q_c, δ)`` of a multibody model), and the chart coordinates obey

.. math:: \dot\delta = \operatorname{dexp}^{-1}_{-\delta}\,\xi = J_r(\delta)^{-1}\xi,
          \qquad \dot v = F(t, q, v, \tau),

with :math:`\xi` the left-trivialised configuration rate (body velocity). Configurations
are always recovered through ``exp``, so rotations stay orthogonal and quaternions unit
norm to rounding, whatever the step.

Two modes share this chart:

* **fixed step** (default ``"rkmk4"``; also ``"rkmk2"``/``"midpoint"``, ``"lie_euler"`` or
  any :class:`~geomech.rigidbody.integrators.RKMK` tableau): one Runge–Kutta–Munthe-Kaas
  step per output interval, the chart re-centred at every step. On a group
  :math:`\operatorname{dexp}^{-1}` is the commutator series truncated to the tableau's order
  (Munthe-Kaas 1999, as in :mod:`geomech.rigidbody.integrators`); for a multibody model it
  is each joint's exact chart rate. Either way the tableau's classical order is kept;
* **adaptive** (the :func:`scipy.integrate.solve_ivp` methods ``"RK45"``, ``"DOP853"``,
  ``"Radau"``, ``"BDF"``, ``"RK23"``, ``"LSODA"``, with ``rtol``/``atol``): the scipy solver
  steps the chart ODE; outputs on the grid of spacing ``dt`` come from its dense output,
  and the chart is re-centred at the end of a step once a non-flat chart coordinate exceeds
  1 (well inside the :math:`2\pi` singularity of :math:`J_r^{-1}`).

Systems: :class:`~geomech.rigidbody.RigidBody` and
:class:`~geomech.geometry.MechanicalSystem` on a Lie group (coordinate frame on
``Euclidean(n)``, left- or right-invariant frames), through their :class:`LieGroupForm`
(:func:`lie_group_form` is the extension point for new system types);
:class:`~geomech.multibody.MultibodyModel` (joint-wise charts; ABA forward dynamics); and
any other ``MechanicalSystem`` (custom frames, the loop-closure frame of a closed chain,
coordinates on a curved manifold) in its frame's own chart,
:math:`q = \mathrm{flow}(q_c, \delta)`, :math:`\dot\delta` from
:meth:`Frame.chart_velocity <geomech.geometry.Frame.chart_velocity>` (RKMK keeps its order
where that rate is exact; ``CustomFrame``'s default series is accurate to
:math:`O(|\delta|^3)`).

Examples
--------
>>> import numpy as np
>>> from geomech.lie import SO3
>>> from geomech.rigidbody import RigidBody
>>> from geomech.simulation import simulate
>>> body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
>>> res = simulate(body, np.eye(3), [0.1, -0.2, 0.3], t_final=1.0, dt=0.01)
>>> res.t.shape, res.q.shape, res.v.shape, res.tau.shape
((101,), (101, 3, 3), (101, 3), (101, 3))
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import singledispatch
from pathlib import Path

import numpy as np

from geomech._validation import as_array
from geomech.errors import DimensionError, NonFiniteError, NotOnManifoldError, SimulationError
from geomech.geometry.system import MechanicalSystem
from geomech.lie import Euclidean, LieGroup
from geomech.rigidbody.body import RigidBody
from geomech.rigidbody.integrators import INTEGRATORS, RKMK, get_integrator

__all__ = ["simulate", "SimulationResult", "LieGroupForm", "lie_group_form", "mechanical_system_form",
           "DEFAULT_DT", "ADAPTIVE_METHODS"]

#: Default step (fixed-step mode) and output spacing (adaptive mode), in seconds.
DEFAULT_DT = 1e-3

#: Names of the adaptive methods (those of :func:`scipy.integrate.solve_ivp`).
ADAPTIVE_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")

#: Default tolerances of the adaptive mode.
_RTOL, _ATOL = 1e-8, 1e-10

#: Largest non-flat chart coordinate before the adaptive mode re-centres the chart.
_CHART_LIMIT = 1.0

#: Fewest output steps for which the progress bar is shown automatically (on a terminal).
_PROGRESS_MIN_STEPS = 1000


# ----------------------------------------------------------------------------------------
# Result
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class SimulationResult:
    """Trajectory returned by :func:`simulate` (time is the first axis of every array).

    Attributes
    ----------
    t : ndarray, shape (N + 1,)
        Output times.
    q : ndarray, shape (N + 1, ..., *point_shape)
        Configurations: group elements (e.g. rotation matrices for a body on SO(3)) or the
        ``q`` vectors of a multibody model (``(N + 1, ..., nq)``).
    v : ndarray, shape (N + 1, ..., nv)
        Velocities (body velocities on a group, joint speeds for a multibody model).
    tau : ndarray, shape (N + 1, ..., nv)
        Generalized forces applied at the recorded states (zeros without a controller).
    method : str
        Name of the integrator.
    signals : dict of str to ndarray
        Logged signals, ``signals[name]`` of shape ``(N + 1, ...)`` (see ``log`` in
        :func:`simulate`).
    controller_state : ndarray, shape (N + 1, ..., m), or None
        State of a dynamic controller (``None`` for a static controller).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE2
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.simulation import simulate
    >>> res = simulate(RigidBody(SE2, np.eye(3)), np.eye(3), [0.0, 1.0, 0.0], t_final=2.0, dt=0.5)
    >>> res.t, res.q[-1][:2, 2]
    (array([0. , 0.5, 1. , 1.5, 2. ]), array([2., 0.]))
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    tau: np.ndarray
    method: str
    signals: dict = field(default_factory=dict)
    controller_state: np.ndarray | None = None

    def save(self, path) -> Path:
        """Write the result to an uncompressed ``.npz`` file (no pickling).

        Parameters
        ----------
        path : str or os.PathLike
            Target file; ``.npz`` is appended if missing.

        Returns
        -------
        pathlib.Path
            The file written.

        Raises
        ------
        SimulationError
            If a signal name is not a non-empty string.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> import numpy as np
        >>> from geomech.geometry.examples import point_mass
        >>> from geomech.simulation import SimulationResult, simulate
        >>> res = simulate(point_mass(), np.zeros(3), np.ones(3), 1.0, dt=0.5,
        ...                log={"x": lambda t, q, v, tau: q[0]})
        >>> with tempfile.TemporaryDirectory() as d:
        ...     back = SimulationResult.load(res.save(pathlib.Path(d) / "run"))
        >>> back.signals["x"], back.method
        (array([0. , 0.5, 1. ]), 'rkmk4')
        """
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_name(path.name + ".npz")
        arrays = {"t": self.t, "q": self.q, "v": self.v, "tau": self.tau, "method": np.array(self.method)}
        if self.controller_state is not None:
            arrays["controller_state"] = self.controller_state
        for name, value in self.signals.items():
            if not isinstance(name, str) or not name:
                raise SimulationError(f"Expected signal names to be non-empty strings, got {name!r}.")
            arrays["signal." + name] = value
        np.savez(path, **arrays)
        return path

    @classmethod
    def load(cls, path) -> SimulationResult:
        """Read a result written by :meth:`save`.

        Parameters
        ----------
        path : str or os.PathLike
            An ``.npz`` file written by :meth:`save`.

        Returns
        -------
        SimulationResult

        Raises
        ------
        SimulationError
            If the file lacks one of ``t``, ``q``, ``v``, ``tau``, ``method``.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody import RigidBody
        >>> from geomech.simulation import SimulationResult, simulate
        >>> res = simulate(RigidBody(SO3, np.eye(3)), np.eye(3), [0.0, 0.0, 1.0], 1.0, dt=0.1)
        >>> with tempfile.TemporaryDirectory() as d:
        ...     back = SimulationResult.load(res.save(pathlib.Path(d) / "spin.npz"))
        >>> bool(np.array_equal(back.q, res.q)), back.controller_state is None
        (True, True)
        """
        with np.load(path, allow_pickle=False) as data:
            missing = [k for k in ("t", "q", "v", "tau", "method") if k not in data.files]
            if missing:
                raise SimulationError(f"Expected a SimulationResult .npz file; {path} lacks {missing}.")
            signals = {k[len("signal."):]: data[k] for k in data.files if k.startswith("signal.")}
            state = data["controller_state"] if "controller_state" in data.files else None
            return cls(t=data["t"], q=data["q"], v=data["v"], tau=data["tau"], method=str(data["method"]),
                       signals=signals, controller_state=state)


# ----------------------------------------------------------------------------------------
# Lie-group forms (the extension point)
# ----------------------------------------------------------------------------------------
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
    >>> from geomech.simulation import lie_group_form
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

    Registered: :class:`~geomech.rigidbody.RigidBody` and
    :class:`~geomech.geometry.MechanicalSystem` (:func:`mechanical_system_form`). Register
    new system types with ``@lie_group_form.register``; each returns a
    :class:`LieGroupForm`. A :class:`~geomech.multibody.MultibodyModel` has no Lie-group form
    (its ``q`` vector is not a group element): :func:`simulate` integrates it in the
    joint-wise chart.

    Parameters
    ----------
    system : object
        The system to simulate.

    Returns
    -------
    LieGroupForm

    Raises
    ------
    TypeError
        For an unsupported type (including ``MultibodyModel``).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE3
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.simulation import lie_group_form
    >>> lie_group_form(RigidBody(SE3, np.eye(6))).nv
    6
    >>> lie_group_form("pendulum")
    Traceback (most recent call last):
    ...
    TypeError: simulate() supports RigidBody, MechanicalSystem and MultibodyModel systems; got str.
    """
    name = type(system).__name__
    if name == "MultibodyModel":
        raise TypeError("A MultibodyModel has no Lie-group form; simulate() integrates it in the "
                        "joint-wise exponential chart (model.integrate).")
    raise TypeError(f"simulate() supports RigidBody, MechanicalSystem and MultibodyModel systems; got {name}.")


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


@lie_group_form.register(MechanicalSystem)
def mechanical_system_form(system) -> LieGroupForm:
    r"""Lie-group form of a :class:`~geomech.geometry.MechanicalSystem` on a group manifold.

    Configuration rate from the frame (coordinate or left-invariant frame: :math:`\xi = v`;
    right-invariant frame: :math:`\xi = \mathrm{Ad}_{q^{-1}} v`), and the Lagrange (Hamel)
    equations in the frame with the Levi-Civita factorization,

    .. math::

        H(q)\dot v + C^\star(q, v) v + g(q) = \tau .

    This is the function registered for ``MechanicalSystem`` with :func:`lie_group_form`.

    Parameters
    ----------
    system : MechanicalSystem
        Its ``manifold`` must be a :class:`~geomech.lie.LieGroup` (``Euclidean(n)`` for a
        coordinate frame; with ``manifold=None`` the frame's group is used).

    Returns
    -------
    LieGroupForm

    Raises
    ------
    TypeError
        If the manifold is not a Lie group, a coordinate frame sits on a non-Euclidean
        group, or the frame is a custom frame.

    References
    ----------
    seed 000 Sec. II (eq. 1, ``Hq̈ + Cq̇ + g = τ``; eq. 6, Hamel's equations); seed 003 §1.3.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples import point_mass
    >>> from geomech.simulation import mechanical_system_form
    >>> form = mechanical_system_form(point_mass(2.0))
    >>> form.acceleration(0.0, np.zeros(3), np.ones(3), np.array([2.0, 0.0, 0.0]))
    array([1., 0., 0.])
    """
    from geomech.geometry.frames import RightInvariantFrame

    group, frame = _group_of(system), system.frame
    if group is None:
        raise TypeError(
            f"Expected a MechanicalSystem on a LieGroup with a coordinate (Euclidean(n)) or "
            f"invariant frame, got manifold {type(system.manifold).__name__} with frame "
            f"{type(frame).__name__}; simulate() integrates such systems in the frame's own "
            f"chart (Frame.flow, Frame.chart_velocity)."
        )
    if isinstance(frame, RightInvariantFrame):
        def velocity(t, q, v):  # q̇ = v̂ q = q (Ad_{q⁻¹} v)^
            return np.einsum("...ij,...j->...i", group._Ad(group._inverse(q)), v)
    else:
        def velocity(t, q, v):
            return v
    acceleration = _hamel_acceleration(system, group.identity())
    return LieGroupForm(group=group, nv=system.dim, velocity=velocity, acceleration=acceleration,
                        validate_q=lambda q0: group.validate(q0, "q0"))


def _group_of(system):
    """The Lie group of a MechanicalSystem that has a Lie-group form, else ``None``.

    Invariant frames on their group, and coordinate frames on ``Euclidean(n)`` (or without
    a manifold).
    """
    from geomech.geometry.frames import CoordinateFrame, LeftInvariantFrame

    group, frame = system.manifold, system.frame
    if group is None:  # a frame without a manifold: take the frame's group
        group = getattr(frame, "group", Euclidean(frame.dim) if isinstance(frame, CoordinateFrame) else None)
    if not isinstance(group, LieGroup):
        return None
    if isinstance(frame, LeftInvariantFrame) or (isinstance(frame, CoordinateFrame)
                                                 and isinstance(group, Euclidean)):
        return group  # RightInvariantFrame subclasses LeftInvariantFrame
    return None


def _hamel_acceleration(system, constant_at=None):
    r"""``acceleration(t, q, v, tau)``: :math:`\dot v = H^{-1}(\tau - C^\star(q, v) v - g(q))`.

    seed 000 eq. (1) in the system's frame (Hamel's equations, eq. 6), with the Levi-Civita
    factorization :math:`C^\star[i, k] = \Gamma^\star[i, j, k] v[j]` (eq. 10). With a
    point ``constant_at`` (a frame with constant structure constants) and a constant mass
    matrix, :math:`\Gamma^\star` and :math:`H^{-1}` are evaluated there once.
    """
    from geomech.geometry.levi_civita import LeviCivitaConnection

    lc = LeviCivitaConnection(system)
    if constant_at is not None and system.has_constant_mass_matrix:
        Gamma = lc.christoffel_first_kind(constant_at)
        H_inv = np.linalg.inv(system.mass_matrix(constant_at))

        def acceleration(t, q, v, tau):
            rhs = -np.einsum("ijk,...j,...k->...i", Gamma, v, v)
            if system.potential is not None:
                rhs = rhs - system.gravity(q)
            if tau is not None:
                rhs = rhs + tau
            return np.einsum("ij,...j->...i", H_inv, rhs)
    else:
        def acceleration(t, q, v, tau):
            rhs = -np.einsum("...ik,...k->...i", lc.coriolis_matrix(q, v), v) - system.gravity(q)
            if tau is not None:
                rhs = rhs + tau
            return np.linalg.solve(system.mass_matrix(q), rhs[..., None])[..., 0]
    return acceleration


# ----------------------------------------------------------------------------------------
# Exponential charts (private): what the integrators step
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Chart:
    """A system in an exponential chart ``q = q_c ⊕ δ`` around a movable centre ``q_c``."""

    nv: int
    point_shape: tuple  # shape of one configuration
    velocity: Callable  # (t, q, v) -> ξ, left-trivialised configuration rate
    acceleration: Callable  # (t, q, v, tau) -> v̇
    retract: Callable  # (q_c, δ) -> q_c ⊕ δ
    chart_rate: Callable  # (q_c, δ, ξ) -> δ̇ (dexp⁻¹_{−δ} ξ on a group: q_c is not needed)
    curved: np.ndarray | None  # chart coordinates kept small by re-centring (None: flat chart)
    series_rate: Callable | None = None  # (tableau, δ, ξ) -> dexp⁻¹ truncated to the tableau's order


def _group_chart(form: LieGroupForm) -> _Chart:
    G = form.group
    flat = isinstance(G, Euclidean)

    def retract(q_c, delta):  # q = q_c exp(δ̂)
        return G._compose(q_c, G._exp(delta))

    def chart_rate(q_c, delta, xi):  # δ̇ = dexp⁻¹_{−δ} ξ = J_r(δ)⁻¹ ξ (Munthe-Kaas 1999)
        if flat:
            return xi
        return np.einsum("...ij,...j->...i", G._left_jacobian_inverse(-delta), xi)

    def series_rate(tab, delta, xi):  # Σ_{k ≤ p−2} (B_k / k!) ad_δ^k ξ keeps order p (Munthe-Kaas 1999)
        return xi if flat else tab._dexpinv(G._structure_constants, delta, xi)

    return _Chart(nv=form.nv, point_shape=tuple(G.point_shape), velocity=form.velocity,
                  acceleration=form.acceleration, retract=retract, chart_rate=chart_rate,
                  curved=None if flat else np.ones(form.nv, dtype=bool), series_rate=series_rate)


def _frame_chart(system) -> _Chart:
    """A MechanicalSystem in its frame's own chart: ``q = flow(q_c, δ)``, ``δ̇ = chart_velocity``.

    For frames without a Lie-group form (custom frames, loop-closure frames, coordinate
    frames on a non-Euclidean manifold): the chart of :meth:`Frame.flow
    <geomech.geometry.Frame.flow>` at unit time, with rates from :meth:`Frame.chart_velocity`.
    """
    frame = system.frame
    shape = tuple(frame.point_shape)

    def retract(q_c, delta):  # q = flow of the frozen field δ^i X_i from q_c for unit time
        lead = np.broadcast_shapes(q_c.shape[: q_c.ndim - len(shape)], delta.shape[:-1])
        return frame.flow(np.broadcast_to(q_c, lead + shape), np.broadcast_to(delta, lead + delta.shape[-1:]), 1.0)

    def chart_rate(q_c, delta, v):  # δ̇ with q̇ = X_i(q) v^i
        return frame.chart_velocity(q_c, delta, v)

    return _Chart(nv=system.dim, point_shape=shape, velocity=lambda t, q, v: v,
                  acceleration=_hamel_acceleration(system), retract=retract,
                  chart_rate=chart_rate, curved=np.ones(system.dim, dtype=bool))


def _multibody_chart(model) -> _Chart:
    from geomech.multibody.dynamics import aba

    # 1-DoF joints: q = q_c + δ, δ̇ = v (one vectorised slice); the others joint by joint
    iq, iv, multi = model._one_dof_split()
    curved = np.zeros(model.nv, dtype=bool)
    for _, _, vs in multi:
        curved[vs] = True

    def retract(q_c, delta):  # q = q_c ⊕ δ joint by joint (model.integrate without validation)
        lead = np.broadcast_shapes(q_c.shape[:-1], delta.shape[:-1])
        q = np.empty(lead + (model.nq,))
        q[..., iq] = q_c[..., iq] + delta[..., iv]
        for joint, qs, vs in multi:
            q[..., qs] = joint._integrate(q_c[..., qs], delta[..., vs])
        return q

    def chart_rate(q_c, delta, v):  # δ̇ = J_r(δ)⁻¹ v per joint (identity for 1-DoF joints)
        out = np.array(np.broadcast_to(v, np.broadcast_shapes(delta.shape, v.shape)))
        for joint, _, vs in multi:
            out[..., vs] = joint._chart_rate(delta[..., vs], v[..., vs])
        return out

    def acceleration(t, q, v, tau):
        return aba(model, q, v, np.zeros(model.nv) if tau is None else tau)

    return _Chart(nv=model.nv, point_shape=(model.nq,), velocity=lambda t, q, v: v,
                  acceleration=acceleration, retract=retract, chart_rate=chart_rate,
                  curved=curved if curved.any() else None)


def _multibody_q0(model, q0) -> np.ndarray:
    """Validate ``q0`` of a multibody model: shape, finiteness, unit quaternions (then normalised)."""
    from geomech.multibody.joints import FreeFlyer, Spherical

    q = as_array(q0, "q0", (model.nq,))
    for joint, qs, name in zip(model.joints, model.q_slices, model.joint_names, strict=True):
        if isinstance(joint, (Spherical, FreeFlyer)):
            quat = q[..., qs][..., -4:]
            err = np.abs(np.linalg.norm(quat, axis=-1) - 1.0)
            if np.any(err > 1e-6):
                raise NotOnManifoldError(
                    f"Expected the quaternion of joint {name!r} in `q0` to have unit norm "
                    f"(tolerance 1e-6), got a norm error of {err.max():.3g}."
                )
    return model.integrate(q, np.zeros(model.nv))  # normalises the quaternions


# ----------------------------------------------------------------------------------------
# Controllers and the closed-loop vector field (private)
# ----------------------------------------------------------------------------------------
class _Control:
    """A static controller ``tau(t, q, v)`` or a dynamic one (``state0``, ``state_rate``, ``torque``)."""

    def __init__(self, controller, nv: int):
        self.controller, self.nv = controller, nv
        self.dynamic = (hasattr(controller, "state_rate")
                        and getattr(controller, "state0", None) is not None)
        self.m = 0
        if self.dynamic:
            for attr in ("torque", "state_rate"):
                if not callable(getattr(controller, attr, None)):
                    raise TypeError(f"Expected a dynamic controller (it has `state0` and `state_rate`) "
                                    f"to have a callable `{attr}`.")
            x0 = as_array(controller.state0, "controller.state0")
            if x0.ndim != 1:
                raise DimensionError(f"Expected `controller.state0` to be 1-D, got shape {x0.shape}.")
            self.x0 = x0
            self.m = x0.shape[0]
        elif controller is not None and not callable(controller):
            raise TypeError(f"Expected `controller` to be callable or None, got {type(controller).__name__}.")

    def torque(self, t, q, v, x):
        if self.controller is None:
            return None
        if self.dynamic:
            return as_array(self.controller.torque(t, q, v, x), "controller.torque(t, q, v, x)", (self.nv,))
        return as_array(self.controller(t, q, v), "controller(t, q, v)", (self.nv,))

    def state_rate(self, t, q, v, x):
        return as_array(self.controller.state_rate(t, q, v, x), "controller.state_rate(t, q, v, x)",
                        (self.m,))


def _closed_loop(chart: _Chart, control: _Control, lead: tuple):
    """``field(t, q, y) -> (ξ, ẏ, τ)`` on the state ``y = [v, x]`` (velocity, controller state)."""
    nv, m = chart.nv, control.m

    def field(t, q, y):
        v, x = y[..., :nv], y[..., nv:]
        tau = control.torque(t, q, v, x)
        v_dot = np.broadcast_to(chart.acceleration(t, q, v, tau), lead + (nv,))
        if m:
            x_dot = np.broadcast_to(control.state_rate(t, q, v, x), lead + (m,))
            y_dot = np.concatenate([v_dot, x_dot], axis=-1)
        else:
            y_dot = v_dot
        return chart.velocity(t, q, v), y_dot, tau

    return field


def _diverged(t: float, what: str) -> NonFiniteError:
    return NonFiniteError(f"The integration diverged at t = {t:.6g} ({what}); the solution blows "
                          "up or the step is too large: reduce the step or the tolerances.")


# ----------------------------------------------------------------------------------------
# Fixed step: RKMK in the chart re-centred every step
# ----------------------------------------------------------------------------------------
def _lincomb(coefficients, terms):
    """``Σ_j c_j terms[j]``, skipping zero coefficients (the tableaux are sparse)."""
    return sum((c * x for c, x in zip(coefficients, terms, strict=True) if c != 0.0), 0.0 * terms[0])


def _rkmk_step(chart: _Chart, field, tab: RKMK, t: float, q, y, h: float):
    """One RKMK step from ``(q, y)``; also returns τ of the first stage (``None`` if c_1 ≠ 0)."""
    K, F = [], []  # stage slopes of the chart coordinates δ and of y
    tau0 = None
    for i, c_i in enumerate(tab.c):
        # ---- stage i (Munthe-Kaas 1999, Alg. 1, exact dexp⁻¹) ---------------------------------
        if i == 0:
            delta, q_i, y_i = None, q, y  # δ_1 = 0: q_1 = q_n, dexp⁻¹_0 = I
        else:
            delta = h * _lincomb(tab.A[i][:i], K)  # δ_i = h Σ_j a_ij K_j
            y_i = y + h * _lincomb(tab.A[i][:i], F)  # y_i = y_n + h Σ_j a_ij F_j
            q_i = chart.retract(q, delta)  # q_i = q_n ⊕ δ_i
        xi, y_dot, tau = field(t + c_i * h, q_i, y_i)
        if i == 0 and c_i == 0.0 and tau is not None:
            tau0 = np.array(tau)  # the torque at (t_n, q_n, v_n): recorded as the output's
        if delta is None:
            K.append(xi)
        elif chart.series_rate is not None:  # group: commutator series, cheaper than J_r⁻¹
            K.append(chart.series_rate(tab, delta, xi))
        else:
            K.append(chart.chart_rate(q, delta, xi))  # K_i = dexp⁻¹_{−δ_i} ξ_i
        F.append(y_dot)
    # ---- update: q_{n+1} = q_n ⊕ h Σ b_i K_i, y_{n+1} = y_n + h Σ b_i F_i ----------------------
    return chart.retract(q, h * _lincomb(tab.b, K)), y + h * _lincomb(tab.b, F), tau0


def _run_fixed(chart, field, tab, t, q, y, bar):
    N = len(t) - 1
    h = (t[-1] - t[0]) / N
    qs, ys = np.empty((N + 1,) + q.shape), np.empty((N + 1,) + y.shape)
    qs[0], ys[0] = q, y
    taus = [None] * (N + 1)
    for n in range(N):
        q, y, taus[n] = _rkmk_step(chart, field, tab, t[n], q, y, h)
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(y))):
            raise _diverged(t[n + 1], f"step {n + 1} of {N}, h = {h:.3g}")
        qs[n + 1], ys[n + 1] = q, y
        bar.update(1)
    return qs, ys, taus


# ----------------------------------------------------------------------------------------
# Adaptive: a scipy solver on the chart ODE, re-centred when the chart grows
# ----------------------------------------------------------------------------------------
def _run_adaptive(chart, field, solver_cls, t, q, y, rtol, atol, bar):
    N = len(t) - 1
    nd = q.shape[: q.ndim - len(chart.point_shape)] + (chart.nv,)  # shape of δ
    size = int(np.prod(nd))
    ny = y.shape
    qs, ys = np.empty((N + 1,) + q.shape), np.empty((N + 1,) + ny)
    qs[0], ys[0] = q, y
    state = {"q_c": q, "nonfinite": False}

    def unpack(z):
        return z[:size].reshape(nd), z[size:].reshape(ny)

    def fun(t_, z):
        delta, y_ = unpack(z)
        xi, y_dot, _ = field(t_, chart.retract(state["q_c"], delta), y_)
        dz = np.concatenate([chart.chart_rate(state["q_c"], delta, xi).ravel(), y_dot.ravel()])
        if not np.all(np.isfinite(dz)):
            state["nonfinite"] = True
        return dz

    def start(t_start, y_start, first_step=None):
        z0 = np.concatenate([np.zeros(size), y_start.ravel()])
        if first_step is not None:  # keep the step size reached (no new initial-step search)
            first_step = min(first_step, t[-1] - t_start) or None
        return solver_cls(fun, t_start, z0, t[-1], rtol=rtol, atol=atol, first_step=first_step)

    solver = start(t[0], y)
    k = 1  # next output index
    while k <= N:
        message = solver.step()
        if solver.status == "failed" or not np.all(np.isfinite(solver.y)):
            # a collapsed step size means a blow-up (finite-time divergence) or a singularity
            if (state["nonfinite"] or not np.all(np.isfinite(solver.y))
                    or "step size" in str(message)):
                raise _diverged(solver.t, f"{solver_cls.__name__}: {message}")
            raise SimulationError(f"The adaptive integrator {solver_cls.__name__} failed at "
                                  f"t = {solver.t:.6g}: {message}")
        # ---- outputs in (t_old, t]: dense output, configuration through the chart ------------
        j = N + 1 if solver.status == "finished" else int(np.searchsorted(t, solver.t, side="right"))
        if j > k:
            Z = np.empty((j - k, len(solver.y)))
            exact = (t[k:j] == solver.t) | (np.arange(k, j) == N)  # the step's end: no interpolation
            Z[exact] = solver.y
            if not np.all(exact):
                Z[~exact] = solver.dense_output()(t[k:j][~exact]).T
            delta = Z[:, :size].reshape((j - k,) + nd)
            ys[k:j] = Z[:, size:].reshape((j - k,) + ny)
            qs[k:j] = chart.retract(state["q_c"], delta)  # q = q_c ⊕ δ (on the manifold)
            bar.update(j - k)
            k = j
        # ---- re-centre the chart when a non-flat coordinate grows ---------------------------
        if solver.status == "running" and chart.curved is not None:
            delta, y_now = unpack(solver.y)
            if np.max(np.abs(delta[..., chart.curved])) > _CHART_LIMIT:
                state["q_c"] = chart.retract(state["q_c"], delta)
                solver = start(solver.t, y_now, first_step=solver.step_size or None)
    return qs, ys


# ----------------------------------------------------------------------------------------
# Options (private)
# ----------------------------------------------------------------------------------------
def _resolve_method(method):
    """``("fixed", RKMK)`` or ``("adaptive", OdeSolver subclass)``."""
    import scipy.integrate as si

    if isinstance(method, type) and issubclass(method, si.OdeSolver):
        return "adaptive", method
    if isinstance(method, str):
        names = {m.lower(): m for m in ADAPTIVE_METHODS}
        if method.lower() in names:
            return "adaptive", getattr(si, names[method.lower()])
    try:
        return "fixed", get_integrator(method)
    except ValueError:
        raise SimulationError(
            f"Expected `method` to be one of {sorted(INTEGRATORS)} (fixed step), "
            f"{list(ADAPTIVE_METHODS)} (adaptive, scipy), an RKMK or a scipy OdeSolver class, "
            f"got {method!r}."
        ) from None


def _tolerance(x, name: str, default: float, positive: bool) -> float:
    if x is None:
        return default
    try:
        x = float(x)
    except (TypeError, ValueError):
        raise SimulationError(f"Expected `{name}` to be a float, got {type(x).__name__}.") from None
    if not (np.isfinite(x) and (x > 0.0 if positive else x >= 0.0)):
        raise SimulationError(f"Expected `{name}` {'> 0' if positive else '>= 0'} and finite, got {x}.")
    return x


class _NoBar:
    def update(self, n=1):
        pass

    def close(self):
        pass


def _progress_bar(progress, total: int, desc: str):
    if progress is None:
        isatty = getattr(sys.stderr, "isatty", None)
        show = bool(isatty and isatty()) and total >= _PROGRESS_MIN_STEPS
    elif isinstance(progress, (bool, np.bool_)):
        show = bool(progress)
    else:
        raise SimulationError(f"Expected `progress` to be None, True or False, got {progress!r}.")
    if not show:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="step", delay=0.5 if progress is None else 0.0,
                file=sys.stderr)


# ----------------------------------------------------------------------------------------
# The entry point
# ----------------------------------------------------------------------------------------
def simulate(system, q0, v0, t_final: float, controller=None, dt: float | None = None,
             method="rkmk4", *, t0: float = 0.0, rtol: float | None = None, atol: float | None = None,
             log: Mapping[str, Callable] | None = None, progress: bool | None = None) -> SimulationResult:
    r"""Simulate a system from ``(q0, v0)`` until ``t_final``, keeping ``q`` on its manifold.

    The output grid has ``N = ceil((t_final - t0) / dt)`` equal intervals (so the spacing is
    at most ``dt``). In **fixed-step** mode (an RKMK method) each interval is one step; in
    **adaptive** mode (a ``solve_ivp`` method) the scipy solver chooses its own steps to
    meet ``rtol``/``atol`` and the grid only sets the outputs. Either way the configuration
    is integrated in an exponential chart around a re-centred :math:`q_c`,

    .. math:: q = q_c \oplus \delta, \qquad \dot\delta = J_r(\delta)^{-1}\xi(t, q, v), \qquad
              \dot v = F(t, q, v, \tau),

    (RKMK, Munthe-Kaas 1999), so group elements, rotations and quaternions never leave their
    manifold. The controller is evaluated at every stage (continuous feedback) and its
    torque recorded at the output times. Leading batch dimensions of ``q0``/``v0`` simulate
    several initial conditions in one vectorised run (the controller and the logged
    functions then receive batched ``q``, ``v``; in adaptive mode the batch shares the steps).

    **Controllers.** A *static* controller is a callable ``controller(t, q, v) -> tau``. A
    *dynamic* controller is an object with an attribute ``state0`` (1-D array, shape
    ``(m,)``) and methods ``state_rate(t, q, v, x) -> x_dot`` and ``torque(t, q, v, x) ->
    tau``: ``simulate`` integrates its state :math:`x \in \mathbb R^m` alongside the system
    (``ẋ = state_rate``, starting from ``state0`` for every batch member) and records it in
    ``result.controller_state``.

    Parameters
    ----------
    system : RigidBody, MechanicalSystem or MultibodyModel
        The system. Group systems go through :func:`lie_group_form`; a ``MultibodyModel`` is
        integrated in the joint-wise exponential chart (``model.integrate``; exact chart
        rates of each joint) with :func:`~geomech.multibody.dynamics.aba`; a
        ``MechanicalSystem`` with another frame (e.g. a closed chain's loop-closure frame) in
        that frame's chart (``frame.flow``, ``frame.chart_velocity``), its configuration
        recovered through ``frame.flow`` (so a closed loop stays closed).
    q0 : array_like, shape (..., *point_shape)
        Initial configuration: a group element (e.g. a 3×3 rotation on SO(3)), a coordinate
        vector on ``Euclidean(n)``, a multibody ``q`` (``(..., nq)``, unit quaternions), or a
        point of the frame (``frame.point_shape``; on a closed chain, a closed configuration).
    v0 : array_like, shape (..., nv)
        Initial velocity (body velocity on a group, joint speeds for a multibody model, frame
        components otherwise).
    t_final : float
        Final time (s), ``> t0``.
    controller : callable or dynamic controller, optional
        See above; ``tau`` of shape ``(..., nv)``. ``None`` for free motion.
    dt : float, optional
        Step (fixed-step mode) or output spacing (adaptive mode), at most; default
        :data:`DEFAULT_DT` (1 ms).
    method : str, RKMK or scipy OdeSolver class, optional
        Fixed step: ``"rkmk4"`` (default), ``"rkmk2"``/``"midpoint"``, ``"lie_euler"`` or an
        :class:`~geomech.rigidbody.integrators.RKMK`. Adaptive: one of
        :data:`ADAPTIVE_METHODS` (``"RK45"``, ``"DOP853"``, ``"Radau"``, ...).
    t0 : float, optional
        Initial time.
    rtol, atol : float, optional
        Tolerances of the adaptive mode (default ``1e-8`` and ``1e-10``); the chart
        coordinates are part of the solver state. Not allowed with a fixed-step method.
    log : dict of str to callable, optional
        Signals to record: ``log[name](t, q, v, tau) -> array`` evaluated at every output
        time, stored in ``result.signals[name]`` with time first.
    progress : bool, optional
        Show a ``tqdm`` progress bar on stderr. ``None`` (default): only when stderr is a
        terminal and the run has at least 1000 output steps (and lasts over 0.5 s).

    Returns
    -------
    SimulationResult
        Arrays ``t``, ``q``, ``v``, ``tau`` (time first), ``signals``, ``controller_state``.

    Raises
    ------
    TypeError
        For an unsupported system, a non-callable controller or a dynamic controller without
        ``torque``.
    DimensionError, NonFiniteError, NotOnManifoldError
        If ``q0``/``v0``/``state0`` or a controller output are malformed, or ``q0`` is not on
        the manifold.
    SimulationError
        (a ``ValueError``) If ``t_final <= t0``, ``dt <= 0``, the method is unknown,
        ``rtol``/``atol`` are invalid or given with a fixed-step method, ``log`` is not a
        mapping of callables, or the adaptive solver fails.
    NonFiniteError
        If the numerical solution diverges (non-finite state).

    References
    ----------
    seed 003 §1.3 (``ġ = g v̂``; "integrate with any Lie-group integrator"); seed 000 Sec. II
    (eq. 1); H. Munthe-Kaas, "High order Runge-Kutta methods on manifolds", Appl. Numer.
    Math. 29 (1999).

    Examples
    --------
    A free rigid body on SO(3) with RKMK4 conserves its energy:

    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.simulation import simulate
    >>> body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
    >>> res = simulate(body, np.eye(3), [0.1, -0.2, 0.3], t_final=1.0)  # 10³ steps of 1 ms
    >>> E = body.kinetic_energy(res.v)
    >>> bool(abs(E[-1] / E[0] - 1.0) < 1e-12)
    True

    Adaptive DOP853 with a logged signal on a point mass pushed by a constant force:

    >>> from geomech.geometry.examples import point_mass
    >>> res = simulate(point_mass(2.0), np.zeros(3), np.zeros(3), 1.0, dt=0.5, method="DOP853",
    ...                controller=lambda t, q, v: np.array([4.0, 0.0, 0.0]),
    ...                log={"x": lambda t, q, v, tau: q[0]})
    >>> res.signals["x"]  # x = t² (F / 2m = 1)
    array([0.  , 0.25, 1.  ])
    """
    from geomech.multibody.model import MultibodyModel

    # ---- the system in its chart, validated initial state --------------------------------
    if isinstance(system, MultibodyModel):
        chart = _multibody_chart(system)
        q = _multibody_q0(system, q0)
    elif isinstance(system, MechanicalSystem) and _group_of(system) is None:
        chart = _frame_chart(system)  # custom / loop-closure frames: the frame's own chart
        q = system.frame.validate_point(q0, "q0")
    else:
        form = lie_group_form(system)
        chart = _group_chart(form)
        q = form.validate_q(q0)
    control = _Control(controller, chart.nv)
    v = as_array(v0, "v0", (chart.nv,))
    lead = np.broadcast_shapes(q.shape[: q.ndim - len(chart.point_shape)], v.shape[:-1])
    q = np.broadcast_to(q, lead + chart.point_shape).copy()
    y = np.broadcast_to(v, lead + (chart.nv,))
    if control.dynamic:
        y = np.concatenate([y, np.broadcast_to(control.x0, lead + (control.m,))], axis=-1)
    y = np.array(y)

    # ---- options ---------------------------------------------------------------------------
    try:
        t0, t_final = float(t0), float(t_final)
        dt = DEFAULT_DT if dt is None else float(dt)
    except (TypeError, ValueError):
        raise SimulationError("Expected `t0`, `t_final` and `dt` to be floats.") from None
    if not (np.isfinite(t0) and np.isfinite(t_final) and t_final > t0):
        raise SimulationError(f"Expected a finite `t_final` > t0 = {t0}, got {t_final}.")
    if not (np.isfinite(dt) and dt > 0.0):
        raise SimulationError(f"Expected `dt` > 0, got {dt}.")
    kind, integrator = _resolve_method(method)
    if kind == "fixed" and (rtol is not None or atol is not None):
        raise SimulationError(f"`rtol`/`atol` apply to the adaptive methods {list(ADAPTIVE_METHODS)}, "
                              f"not to the fixed-step method {integrator.name!r}.")
    log = {} if log is None else log
    if not isinstance(log, Mapping) or not all(isinstance(k, str) and callable(f) for k, f in log.items()):
        raise SimulationError("Expected `log` to be a dict mapping names (str) to callables "
                              "fn(t, q, v, tau).")
    if kind == "adaptive":
        rtol, atol = _tolerance(rtol, "rtol", _RTOL, True), _tolerance(atol, "atol", _ATOL, False)
    N = max(1, math.ceil((t_final - t0) / dt - 1e-9))  # tolerate rounding of T/dt
    t = t0 + (t_final - t0) / N * np.arange(N + 1)
    t[-1] = t_final
    field_ = _closed_loop(chart, control, lead)

    # ---- integrate ---------------------------------------------------------------------------
    bar = _progress_bar(progress, N, "simulate")
    try:
        if kind == "fixed":
            qs, ys, taus = _run_fixed(chart, field_, integrator, t, q, y, bar)
            name = integrator.name
        else:
            qs, ys = _run_adaptive(chart, field_, integrator, t, q, y, rtol, atol, bar)
            taus = [None] * (N + 1)
            name = integrator.__name__
    finally:
        bar.close()

    # ---- record torques and logged signals at the output times -------------------------------
    nv = chart.nv
    vs, xs = ys[..., :nv], (ys[..., nv:] if control.dynamic else None)
    tau = np.zeros_like(vs)
    if controller is not None:
        for k in range(N + 1):
            tau_k = taus[k]
            if tau_k is None:
                tau_k = control.torque(t[k], qs[k], vs[k], None if xs is None else xs[k])
            tau[k] = np.broadcast_to(tau_k, lead + (nv,))
    signals = {}
    for key, fn in log.items():
        values = [np.asarray(fn(t[k], qs[k], vs[k], tau[k]), dtype=float) for k in range(N + 1)]
        try:
            signals[key] = np.stack(values)
        except ValueError:
            raise DimensionError(f"Expected the logged signal {key!r} to have the same shape at every "
                                 f"output time, got {sorted({a.shape for a in values})}.") from None
    return SimulationResult(t=t, q=qs, v=vs, tau=tau, method=name, signals=signals, controller_state=xs)
