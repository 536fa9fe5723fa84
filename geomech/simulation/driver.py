r"""The :func:`simulate` driver: options, budgets, the integration, and the recording.

:func:`simulate` validates its inputs, puts the system in its chart
(:func:`~geomech.simulation.charts.system_chart`), closes the loop with the controller
(:func:`~geomech.simulation.closed_loop.closed_loop`), and runs the integration core
(:func:`geomech.integration.integrate_fixed` or :func:`geomech.integration.integrate_adaptive`)
within a step and wall-time :class:`~geomech.integration.Budget`; then it records the torques
and the logged signals at the output times.

Examples
--------
>>> import numpy as np
>>> from geomech.geometry.examples import point_mass
>>> from geomech.simulation import simulate
>>> simulate(point_mass(), np.zeros(3), np.ones(3), 1.0, dt=0.5).q[:, 0]
array([0. , 0.5, 1. ])
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable, Mapping

import numpy as np

from geomech._validation import as_array, check_real
from geomech.errors import (
    DimensionError,
    GeomechError,
    SimulationError,
    StepSizeError,
    StepSizeWarning,
)
from geomech.integration import (
    ADAPTIVE_METHODS,
    INTEGRATORS,
    Budget,
    get_integrator,
    get_solver,
    integrate_adaptive,
    integrate_fixed,
)
from geomech.simulation.charts import system_chart
from geomech.simulation.closed_loop import Control, callback_error, closed_loop
from geomech.simulation.compiled import compiled_plan
from geomech.simulation.result import SimulationResult

__all__ = [
    "simulate",
    "DEFAULT_DT",
    "ADAPTIVE_METHODS",
    "ADAPTIVE_TOLERANCES",
    "FIXED_STEP_TOLERANCES",
]

#: Default step (fixed-step mode) and output spacing (adaptive mode), in seconds.
DEFAULT_DT = 1e-3

#: Default ``(rtol, atol)`` of the adaptive solvers.
ADAPTIVE_TOLERANCES = (1e-8, 1e-10)

#: Default ``(rtol, atol)`` against which a fixed step's estimated error is checked.
FIXED_STEP_TOLERANCES = (1e-3, 1e-6)

#: Largest non-flat chart coordinate before the adaptive mode re-centres the chart.
_CHART_LIMIT = 1.0

#: Fewest output steps for which the progress bar is shown automatically (on a terminal).
_PROGRESS_MIN_STEPS = 1000

#: Largest spacing of float64 numbers at the output times, as a fraction of the step.
_TIME_RESOLUTION = 1e-3

#: Values of ``on_inaccuracy``.
_ON_INACCURACY = ("warn", "raise", "ignore")


# ----------------------------------------------------------------------------------------
# Options (private)
# ----------------------------------------------------------------------------------------
def _resolve_method(method):
    """``("fixed", RKMK)`` or ``("adaptive", OdeSolver subclass)``."""
    solver = get_solver(method)
    if solver is not None:
        return "adaptive", solver
    try:
        return "fixed", get_integrator(method)
    except SimulationError:
        raise SimulationError(
            f"Expected `method` to be one of {sorted(INTEGRATORS)} (fixed step), "
            f"{list(ADAPTIVE_METHODS)} (adaptive, scipy), an RKMK or a scipy OdeSolver class, "
            f"got {method!r}."
        ) from None


def _tolerance(x, name: str, default: float, positive: bool) -> float:
    if x is None:
        return default
    check_real(x, name)
    try:
        x = float(x)
    except (TypeError, ValueError):
        raise SimulationError(f"Expected `{name}` to be a float, got {type(x).__name__}.") from None
    if not (np.isfinite(x) and (x > 0.0 if positive else x >= 0.0)):
        raise SimulationError(
            f"Expected `{name}` {'> 0' if positive else '>= 0'} and finite, got {x}."
        )
    return x


def _time_span(t0, t_final, dt, budget: Budget) -> tuple[float, float, int]:
    """``(t0, t_final, N)``, ``N = ceil((t_final - t0) / dt)`` intervals, checked against the step
    budget before anything is allocated.
    """
    for name, x in (("t0", t0), ("t_final", t_final), ("dt", dt)):
        check_real(x, name)
        if isinstance(x, (str, bytes, bool, np.bool_)) or (
            isinstance(x, np.ndarray) and x.dtype.kind not in "iuf"
        ):  # float("1") and float(True) would convert them
            raise SimulationError(
                f"Expected `t0`, `t_final` and `dt` to be floats, got `{name}` = {x!r}."
            )
    try:
        t0, t_final = float(t0), float(t_final)
        dt = DEFAULT_DT if dt is None else float(dt)
    except (TypeError, ValueError):
        raise SimulationError("Expected `t0`, `t_final` and `dt` to be floats.") from None
    if not (np.isfinite(t0) and np.isfinite(t_final) and t_final > t0):
        raise SimulationError(f"Expected a finite `t_final` > t0 = {t0}, got {t_final}.")
    if not (np.isfinite(dt) and dt > 0.0):
        raise SimulationError(f"Expected `dt` > 0, got {dt}.")
    ratio = (t_final - t0) / dt  # may overflow to inf (dt = 1e-300)
    if not (np.isfinite(ratio) and ratio <= budget.max_steps + 1):
        budget.check_count(ratio, "steps, (t_final - t0) / dt,")
    N = max(1, math.ceil(ratio - 1e-9))  # tolerate rounding of T/dt
    budget.check_count(N, "steps, (t_final - t0) / dt,")
    h, ulp = (t_final - t0) / N, float(np.spacing(max(abs(t0), abs(t_final))))
    if ulp > _TIME_RESOLUTION * h:  # the output times would be rounded to a coarser grid
        raise SimulationError(
            f"Expected a step (t_final - t0) / N = {h:.3g} s resolvable at |t| = "
            f"{max(abs(t0), abs(t_final)):.3g} s, where float64 times are spaced by {ulp:.3g} s "
            f"(more than {_TIME_RESOLUTION:g} of the step): shift the time origin (t0 = 0)."
        )
    return t0, t_final, N


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

    return tqdm(
        total=total, desc=desc, unit="step", delay=0.5 if progress is None else 0.0, file=sys.stderr
    )


def _report_inaccuracy(run, name: str, h: float, rtol: float, atol: float, on_inaccuracy: str):
    """Warn (or raise) when a fixed step's estimated error exceeds the requested accuracy."""
    if run.error is None or run.error <= 1.0:
        return
    message = (
        f"The fixed step h = {h:.3g} s of {name} is too large for the requested accuracy "
        f"(rtol = {rtol:g}, atol = {atol:g}): the error estimated by step doubling is "
        f"{run.error:.3g} times the tolerance (largest near t = {run.error_time:.6g}). "
        f"Reduce `dt`, use a higher-order method, or an adaptive method such as 'DOP853'."
    )
    if on_inaccuracy == "raise":
        raise StepSizeError(message)
    warnings.warn(message, StepSizeWarning, stacklevel=3)


def simulate(
    system,
    q0,
    v0,
    t_final: float,
    controller=None,
    dt: float | None = None,
    method="rkmk4",
    *,
    t0: float = 0.0,
    rtol: float | None = None,
    atol: float | None = None,
    log: Mapping[str, Callable] | None = None,
    progress: bool | None = None,
    max_steps: int | None = None,
    max_wall_time: float | None = None,
    on_inaccuracy: str = "warn",
) -> SimulationResult:
    r"""Simulate a system from ``(q0, v0)`` until ``t_final``, keeping ``q`` on its manifold.

    The output grid has ``N = ceil((t_final - t0) / dt)`` equal intervals (so the spacing is
    at most ``dt``). In **fixed-step** mode (an RKMK method) each interval is one step; in
    **adaptive** mode (a ``solve_ivp`` method) the scipy solver chooses its own steps to
    meet ``rtol``/``atol`` and the grid only sets the outputs. Either way the configuration
    is integrated in an exponential chart around a re-centred :math:`q_c`,

    .. math:: q = q_c \oplus \delta, \qquad \dot\delta = J_r(\delta)^{-1}\xi(t, q, v), \qquad
              \dot v = F(t, q, v, \tau),

    (RKMK, Munthe-Kaas 1999; :mod:`geomech.integration`), so group elements, rotations and
    quaternions never leave their manifold. The controller is evaluated at every stage (continuous
    feedback) and its torque recorded at the output times. Leading batch dimensions of ``q0``/``v0``
    simulate several initial conditions in one vectorised run (the controller and the logged
    functions then receive batched ``q``, ``v``; in adaptive mode the batch shares the steps).

    **Controllers.** A *static* controller is a callable ``controller(t, q, v) -> tau``. A
    *dynamic* controller is an object with an attribute ``state0`` (1-D array, shape
    ``(m,)``) and methods ``state_rate(t, q, v, x) -> x_dot`` and ``torque(t, q, v, x) ->
    tau``: ``simulate`` integrates its state :math:`x \in \mathbb R^m` alongside the system
    (``ẋ = state_rate``, starting from ``state0`` for every batch member) and records it in
    ``result.controller_state``.

    **Compiled runs.** A fixed-step run of a tree ``MultibodyModel`` whose joints are revolute,
    prismatic, helical, spherical, free-flyer or fixed, without a controller or with a built-in
    law (:class:`~geomech.control.SlotineLi` with a named body connection,
    :class:`~geomech.control.PD`, :class:`~geomech.control.ComputedTorque`), is stepped by one
    compiled kernel (:mod:`geomech.simulation.compiled`): the same numbers as the Python path to
    rounding, the reference sampled in Python at the stages' times once per chunk of steps
    (in one call when the law's reference is ``vectorized``). Every other case (a Python
    controller, a dynamic controller, adaptive methods, other systems) runs in Python.

    **Budgets and accuracy.** Every run has a step budget ``max_steps`` (fixed steps, output
    intervals, and accepted steps of an adaptive solver) and a wall-time budget
    ``max_wall_time``; a run that would need more steps than its budget, or a recorded
    trajectory over :data:`geomech.integration.MAX_OUTPUT_BYTES`, is refused before anything
    is allocated, and a run that exceeds a budget (or whose adaptive step size collapses so
    that it would) stops with :class:`~geomech.errors.SimulationBudgetError`. A fixed-step
    run estimates its global error by step doubling on a sample of its steps
    (:func:`geomech.integration.integrate_fixed`, at most 10 % more work) and, when the
    estimate exceeds the tolerance ``atol + rtol·|·|``, warns with
    :class:`~geomech.errors.StepSizeWarning` (``on_inaccuracy="warn"``), raises
    :class:`~geomech.errors.StepSizeError` (``"raise"``) or skips the estimate
    (``"ignore"``); the estimate is also returned as ``result.error_estimate``.

    Parameters
    ----------
    system : RigidBody, MechanicalSystem (e.g. MultibodyModel) or a registered type
        The system, put in its chart by the one dispatch
        :func:`~geomech.simulation.charts.system_chart`. Group systems (a ``RigidBody``, a
        ``MechanicalSystem`` on a Lie group with a coordinate or invariant frame) go through
        :func:`lie_group_form`; any other ``MechanicalSystem`` is integrated in its frame's
        chart (``frame.flow``, ``frame.chart_velocity``) with
        :meth:`~geomech.geometry.MechanicalSystem.forward_dynamics`: a ``MultibodyModel`` in
        its joint frame (``model.integrate``, each joint's chart rate) with the ABA, a closed
        model in its independent coordinates (the flow closes the loops by Newton's method at
        every stage, so the constraint residual stays at rounding) with C-ABA, a closed
        chain in its loop-closure frame.
    q0 : array_like, shape (..., *point_shape)
        Initial configuration: a group element (e.g. a 3×3 rotation on SO(3)), a coordinate
        vector on ``Euclidean(n)``, a multibody ``q`` (``(..., nq)``, unit quaternions; on a
        closed model, closing the loops), or a point of the frame (``frame.point_shape``; on
        a closed chain, a closed configuration).
    v0 : array_like, shape (..., nv)
        Initial velocity (body velocity on a group, joint speeds for a multibody model, the
        independent speeds for a closed model, frame components otherwise).
    t_final : float
        Final time (s), ``> t0``.
    controller : callable or dynamic controller, optional
        See above; ``tau`` of shape ``(..., nv)``. ``None`` for free motion.
    dt : float, optional
        Step (fixed-step mode) or output spacing (adaptive mode), at most; default
        :data:`DEFAULT_DT` (1 ms).
    method : str, RKMK or scipy OdeSolver class, optional
        Fixed step: ``"rkmk4"`` (default), ``"rkmk2"``/``"midpoint"``, ``"lie_euler"`` or an
        :class:`~geomech.integration.RKMK`. Adaptive: one of
        :data:`ADAPTIVE_METHODS` (``"RK45"``, ``"DOP853"``, ``"Radau"``, ...).
    t0 : float, optional
        Initial time.
    rtol, atol : float, optional
        Adaptive mode: the solver's tolerances (default :data:`ADAPTIVE_TOLERANCES`,
        ``1e-8`` and ``1e-10``; the chart coordinates are part of the solver state).
        Fixed-step mode: the accuracy the step is checked against (default
        :data:`FIXED_STEP_TOLERANCES`, ``1e-3`` and ``1e-6``; configuration errors in chart
        units, radians and metres, against ``atol + rtol``, velocity errors against
        ``atol + rtol·max|v|``); the step itself is ``dt``.
    log : dict of str to callable, optional
        Signals to record: ``log[name](t, q, v, tau) -> array`` evaluated at every output
        time, stored in ``result.signals[name]`` with time first. Like the controller, it
        receives read-only views of the states (copy them to change them).
    progress : bool, optional
        Show a ``tqdm`` progress bar on stderr. ``None`` (default): only when stderr is a
        terminal and the run has at least 1000 output steps (and lasts over 0.5 s).
    max_steps : int, optional
        Step budget; default :data:`geomech.integration.DEFAULT_MAX_STEPS` (10⁶);
        ``math.inf`` for none.
    max_wall_time : float, optional
        Wall-time budget in seconds; default
        :data:`geomech.integration.DEFAULT_MAX_WALL_TIME` (3600 s); ``math.inf`` for none.
    on_inaccuracy : {"warn", "raise", "ignore"}, optional
        What a fixed-step run does when its estimated error exceeds the tolerance.

    Returns
    -------
    SimulationResult
        Arrays ``t``, ``q``, ``v``, ``tau`` (time first), ``signals``, ``controller_state``,
        ``error_estimate``.

    Raises
    ------
    DTypeError
        (a ``TypeError``) For an unsupported system, a non-callable controller, a dynamic
        controller without ``torque``, or complex ``q0``/``v0``, controller outputs or
        logged signals (the imaginary part is never dropped silently).
    DimensionError, NonFiniteError, NotOnManifoldError
        If ``q0``/``v0``/``state0`` or a controller output are malformed, or ``q0`` is not on
        the manifold.
    SimulationError
        (a ``ValueError``) If ``t_final <= t0``, ``dt <= 0``, the method is unknown,
        ``rtol``/``atol``, a budget or ``on_inaccuracy`` are invalid, ``log`` is not a
        mapping of callables, or the adaptive solver fails.
    SimulationBudgetError
        (a ``RuntimeError``) If the run needs or takes more than ``max_steps`` steps, runs
        past ``max_wall_time``, its adaptive step size collapses, or its trajectory would be
        too large to record.
    StepSizeError
        With ``on_inaccuracy="raise"``, if the fixed step is too large for the accuracy.
    NonFiniteError
        If the numerical solution diverges (non-finite state).
    SimulationError
        If the controller or a logged function raises an exception that is not a
        ``GeomechError`` (the original is its ``__cause__``); the callbacks receive
        read-only views, so one that writes into its inputs fails this way.

    An error raised once the integration has started carries what was computed as its
    attribute ``partial``, a :class:`SimulationResult`: the outputs reached before a
    divergence or a failing controller (torques not recorded there are NaN), or the whole
    trajectory with the signals logged before a failing log function.

    Warns
    -----
    StepSizeWarning
        With ``on_inaccuracy="warn"`` (default), if the fixed step is too large for the
        accuracy.

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
    # ---- options (checked before anything is allocated) ------------------------------------
    budget = Budget(max_steps, max_wall_time)
    t0, t_final, N = _time_span(t0, t_final, dt, budget)
    kind, integrator = _resolve_method(method)
    if on_inaccuracy not in _ON_INACCURACY:
        raise SimulationError(
            f"Expected `on_inaccuracy` to be one of {list(_ON_INACCURACY)}, got {on_inaccuracy!r}."
        )
    defaults = ADAPTIVE_TOLERANCES if kind == "adaptive" else FIXED_STEP_TOLERANCES
    rtol, atol = (
        _tolerance(rtol, "rtol", defaults[0], True),
        _tolerance(atol, "atol", defaults[1], False),
    )
    log = {} if log is None else log
    if not isinstance(log, Mapping) or not all(
        isinstance(k, str) and callable(f) for k, f in log.items()
    ):
        raise SimulationError(
            "Expected `log` to be a dict mapping names (str) to callables fn(t, q, v, tau)."
        )

    # ---- the system in its chart, validated initial state --------------------------------
    sys_chart, q = system_chart(system, q0)
    nv, point_shape = sys_chart.nv, sys_chart.chart.point_shape
    v = as_array(v0, "v0", (nv,))
    try:
        lead = np.broadcast_shapes(q.shape[: q.ndim - len(point_shape)], v.shape[:-1])
    except ValueError:
        raise DimensionError(
            f"Expected the batch dimensions of `q0` and `v0` to broadcast, got "
            f"{q.shape[: q.ndim - len(point_shape)]} and {v.shape[:-1]}."
        ) from None
    control = Control(controller, nv, lead)
    # checked before the initial states are broadcast (a batch of 1e8 members is refused here)
    n_state = math.prod(lead) * (math.prod(point_shape) + 2 * nv + control.m)
    budget.check_bytes(8.0 * (N + 1) * n_state, "recorded trajectory")
    q = np.broadcast_to(q, lead + point_shape).copy()
    y = np.broadcast_to(v, lead + (nv,))
    if control.dynamic:
        y = np.concatenate([y, np.broadcast_to(control.x0, lead + (control.m,))], axis=-1)
    y = np.array(y)
    budget.check_bytes(8.0 * (N + 1) * (q.size + y.size + v.size), "recorded trajectory")
    t = t0 + (t_final - t0) / N * np.arange(N + 1)
    t[-1] = t_final
    field_ = closed_loop(sys_chart, control, lead)

    # ---- integrate -----------------------------------------------------------------------------
    plan = compiled_plan(system, controller, control, lead, integrator) if kind == "fixed" else None
    bar = _progress_bar(progress, N, "simulate")
    try:
        if plan is not None:  # a tree and a built-in law: the compiled kernel
            run, taus = plan.run(
                t,
                q,
                y,
                lead,
                budget=budget,
                accuracy=None if on_inaccuracy == "ignore" else (rtol, atol),
                on_step=bar.update,
            )
            name = integrator.name
        elif kind == "fixed":
            run = integrate_fixed(
                sys_chart.chart,
                field_,
                integrator,
                t,
                q,
                y,
                budget=budget,
                accuracy=None if on_inaccuracy == "ignore" else (rtol, atol),
                on_step=bar.update,
            )
            taus, name = run.aux, integrator.name
        else:
            run = integrate_adaptive(
                sys_chart.chart,
                field_,
                integrator,
                t,
                q,
                y,
                rtol=rtol,
                atol=atol,
                chart_limit=_CHART_LIMIT,
                budget=budget,
                on_output=bar.update,
            )
            taus, name = [None] * (N + 1), integrator.__name__
    except Exception as exc:
        partial = getattr(exc, "partial", None)
        if partial is not None:  # the outputs reached before the failure, as a result
            method_name = integrator.name if kind == "fixed" else integrator.__name__
            exc.partial = _partial_result(t, partial, nv, control, method_name)
        raise
    finally:
        bar.close()
    if kind == "fixed":
        _report_inaccuracy(run, name, (t[-1] - t[0]) / N, rtol, atol, on_inaccuracy)
    qs, ys = run.q, run.y

    # ---- record torques and logged signals at the output times -------------------------------
    vs, xs = ys[..., :nv], (ys[..., nv:] if control.dynamic else None)
    result = SimulationResult(
        t=t,
        q=qs,
        v=vs,
        tau=np.zeros_like(vs) if plan is None else taus,  # (the kernel's: zeros at t[-1])
        method=name,
        signals={},
        controller_state=xs,
        error_estimate=run.error if kind == "fixed" else None,
    )
    # the callbacks see read-only views: writing into them cannot change the recorded run
    q_in, v_in, x_in = _read_only(qs), _read_only(vs), _read_only(xs)
    try:
        if controller is not None:
            tau, first = result.tau, 0
            if plan is not None:  # the compiled kernel's torques at t[:-1], in place
                first, taus = N, [None] * (N + 1)
            for k in range(first, N + 1):
                tau_k = taus[k]
                if tau_k is None:
                    tau_k = control.torque(t[k], q_in[k], v_in[k], None if xs is None else x_in[k])
                tau[k] = np.broadcast_to(tau_k, lead + (nv,))
        tau_in = _read_only(result.tau)
        for key, fn in log.items():
            values = [_logged(fn, key, t[k], q_in[k], v_in[k], tau_in[k]) for k in range(N + 1)]
            try:
                result.signals[key] = np.stack(values)
            except ValueError:
                raise DimensionError(
                    f"Expected the logged signal {key!r} to have the same shape at every "
                    f"output time, got {sorted({a.shape for a in values})}."
                ) from None
    except Exception as exc:
        exc.partial = result  # the whole trajectory; the signals recorded before the failure
        raise
    return result


def _read_only(x):
    """A read-only view of ``x`` (None stays None)."""
    if x is None:
        return None
    view = x.view()
    view.flags.writeable = False
    return view


def _logged(fn, key, t, q, v, tau):
    """One logged value, validated; the callback's own exceptions as a named error."""
    try:
        value = fn(t, q, v, tau)
    except GeomechError:
        raise
    except Exception as exc:
        raise callback_error(f"log[{key!r}]", t, exc) from exc
    return as_array(value, f"log[{key!r}]", finite=False).copy()


def _partial_result(t, run, nv, control, method) -> SimulationResult:
    """The outputs an integration reached before it failed, as a :class:`SimulationResult`.

    Torques are those applied at the recorded states where the integration recorded them
    (fixed step), NaN elsewhere (the controller is not called again); no signal is logged.
    """
    k = run.q.shape[0]
    vs = run.y[..., :nv]
    tau = np.full(vs.shape, np.nan if control.controller is not None else 0.0)
    for i, tau_i in enumerate(getattr(run, "aux", ())):
        if tau_i is not None:
            tau[i] = tau_i
    return SimulationResult(
        t=t[:k],
        q=run.q,
        v=vs,
        tau=tau,
        method=method,
        signals={},
        controller_state=run.y[..., nv:] if control.dynamic else None,
        error_estimate=None,
    )
