r"""Adaptive integration in a moving chart, with the solvers of :func:`scipy.integrate.solve_ivp`.

The scipy solver steps the chart ODE

.. math:: \dot\delta = \rho(q_c, \delta, \xi(t, q_c \oplus \delta, y)), \qquad
          \dot y = F(t, q_c \oplus \delta, y)

(the chart coordinates are part of its state, so ``rtol``/``atol`` control them too). At the
end of a step the chart is re-centred, :math:`q_c \leftarrow q_c \oplus \delta`,
:math:`\delta \leftarrow 0`, once a non-flat coordinate exceeds ``chart_limit`` (well inside
the :math:`2\pi` singularity of :math:`J_r^{-1}` on a rotation group), and the solver restarts
there with the step size it had reached. Outputs on the requested grid come from the solver's
dense output, configurations through the retraction. The run obeys a
:class:`~geomech.integration.Budget`.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from geomech.errors import NonFiniteError, SimulationBudgetError, SimulationError
from geomech.integration.budget import Budget
from geomech.integration.fixed import diverged

__all__ = [
    "ADAPTIVE_METHODS",
    "get_solver",
    "AdaptiveRun",
    "DenseChartSolution",
    "integrate_adaptive",
]

#: Growth of the state (relative to ``1 + max |y0|``) beyond which a collapsed step size is
#: reported as a blow-up (``NonFiniteError``) rather than as a budget overrun.
_BLOWUP = 1e4

#: Names of the adaptive methods (those of :func:`scipy.integrate.solve_ivp`).
ADAPTIVE_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")


def get_solver(method):
    """The scipy ``OdeSolver`` class of an adaptive method, or ``None`` if ``method`` is not one.

    Parameters
    ----------
    method : str or type
        A name of :data:`ADAPTIVE_METHODS` (case-insensitive) or an
        :class:`scipy.integrate.OdeSolver` subclass.

    Returns
    -------
    type or None

    Examples
    --------
    >>> from geomech.integration import get_solver
    >>> get_solver("dop853").__name__, get_solver("rkmk4")
    ('DOP853', None)
    """
    import scipy.integrate as si  # lazily: scipy.integrate costs ~0.3 s of `import geomech`

    if isinstance(method, type) and issubclass(method, si.OdeSolver):
        return method
    if isinstance(method, str):
        names = {m.lower(): m for m in ADAPTIVE_METHODS}
        if method.lower() in names:
            return getattr(si, names[method.lower()])
    return None


class DenseChartSolution:
    """The continuous solution of :func:`integrate_adaptive`: ``(q, y)`` at any time of the run.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> from geomech.integration import group_chart, integrate_adaptive
    >>> field = lambda t, R, w: (w, np.zeros_like(w))
    >>> run = integrate_adaptive(group_chart(SO3), field, "DOP853", np.array([0.0, 4.0]), np.eye(3),
    ...                          np.array([0.0, 0.0, 1.0]), rtol=1e-10, atol=1e-12, dense=True)
    >>> R, w = run.dense(2.5)
    >>> bool(np.allclose(R, SO3.exp([0.0, 0.0, 2.5]), atol=1e-9))
    True
    """

    def __init__(self, chart, segments, unpack):
        self._chart, self._unpack = chart, unpack
        self._starts = [seg[0] for seg in segments]
        from scipy.integrate import OdeSolution

        self._charts = [
            (q_c, OdeSolution(ts, interpolants)) for _, q_c, ts, interpolants in segments
        ]

    def __call__(self, s: float):
        """``(q, y)`` at time ``s`` (within the run's interval; no validation)."""
        i = max(0, bisect.bisect_right(self._starts, s) - 1)
        q_c, sol = self._charts[i]
        delta, y = self._unpack(sol(s))
        return self._chart.retract(q_c, delta), y


@dataclass(frozen=True)
class AdaptiveRun:
    """Result of :func:`integrate_adaptive`.

    Attributes
    ----------
    q : ndarray, shape (T, ..., *point_shape)
        Configurations at the output times.
    y : ndarray, shape (T, ..., m)
    steps : int
        Accepted steps of the solver.
    dense : DenseChartSolution or None
        The continuous solution (``dense=True``).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.integration import integrate_adaptive, vector_chart
    >>> run = integrate_adaptive(vector_chart(1), lambda t, q, v: (v, 0.0 * v), "RK45",
    ...                          np.array([0.0, 1.0, 2.0]), np.zeros(1), np.ones(1),
    ...                          rtol=1e-8, atol=1e-10)
    >>> run.q[:, 0], run.steps > 0
    (array([0., 1., 2.]), True)
    """

    q: np.ndarray
    y: np.ndarray
    steps: int
    dense: DenseChartSolution | None = None


def integrate_adaptive(
    chart,
    field: Callable,
    method,
    t,
    q0,
    y0,
    *,
    rtol: float,
    atol: float,
    chart_limit: float = 1.0,
    budget: Budget | None = None,
    dense: bool = False,
    on_output: Callable | None = None,
) -> AdaptiveRun:
    r"""Integrate ``(q, y)`` with a scipy solver in a moving chart; outputs at the times ``t``.

    No input validation (the public callers validate).

    Parameters
    ----------
    chart : CentredChart
    field : callable
        ``field(t, q, y) -> (xi, y_dot[, aux])`` (``aux`` is ignored).
    method : str or type
        One of :data:`ADAPTIVE_METHODS` or an :class:`scipy.integrate.OdeSolver` subclass.
    t : ndarray, shape (T,)
        Strictly increasing output times; the run covers ``[t[0], t[-1]]``.
    q0 : ndarray, shape (..., *chart.point_shape)
    y0 : ndarray, shape (..., m)
    rtol, atol : float
        Tolerances of the solver (on the chart coordinates and on ``y``).
    chart_limit : float, optional
        Largest non-flat chart coordinate before the chart is re-centred.
    budget : Budget, optional
        Step and wall-time budget (default :class:`Budget` ()).
    dense : bool, optional
        Keep the solver's interpolants (:attr:`AdaptiveRun.dense`).
    on_output : callable, optional
        Called with the number of outputs written after each step (e.g. a progress bar).

    Returns
    -------
    AdaptiveRun

    Raises
    ------
    SimulationError
        If ``method`` is not an adaptive method, or the solver fails.
    SimulationBudgetError
        If the run exceeds its budget, or its step size collapses so that it would.
    NonFiniteError
        If the solution becomes non-finite, or the step size collapses while the state grows
        by more than four orders of magnitude (a blow-up).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.integration import integrate_adaptive, vector_chart
    >>> field = lambda t, q, v: (v, -q)  # harmonic oscillator: q = cos t
    >>> run = integrate_adaptive(vector_chart(1), field, "DOP853", np.array([0.0, np.pi]),
    ...                          np.array([1.0]), np.array([0.0]), rtol=1e-10, atol=1e-12)
    >>> round(float(run.q[-1, 0]), 8)
    -1.0
    """
    solver_cls = get_solver(method)
    if solver_cls is None:
        raise SimulationError(
            f"Expected an adaptive method of {list(ADAPTIVE_METHODS)} or a scipy "
            f"OdeSolver class, got {method!r}."
        )
    budget = Budget() if budget is None else budget
    name = solver_cls.__name__
    T = len(t)
    budget.check_count(T - 1, "output intervals")
    budget.check_bytes(8.0 * T * (q0.size + y0.size), "trajectory")
    nd = q0.shape[: q0.ndim - len(chart.point_shape)] + (chart.dim,)  # shape of δ
    size, ny = int(np.prod(nd)), y0.shape
    qs, ys = np.empty((T,) + q0.shape), np.empty((T,) + ny)
    qs[0], ys[0] = q0, y0
    state = {"q_c": q0, "nonfinite": False}

    def unpack(z):
        return z[..., :size].reshape(z.shape[:-1] + nd), z[..., size:].reshape(z.shape[:-1] + ny)

    def fun(s, z):
        if not np.all(np.isfinite(z)):  # a blown-up trial step: reject it without evaluating
            state["nonfinite"] = True
            return np.full_like(z, np.nan)
        delta, y = unpack(z)
        try:
            xi, y_dot = field(s, chart.retract(state["q_c"], delta), y)[:2]
        except NonFiniteError:  # a trial point overflowed (e.g. q_c ⊕ δ) and was refused: reject it
            state["nonfinite"] = True
            return np.full_like(z, np.nan)
        dz = np.concatenate([np.ravel(chart.rate(state["q_c"], delta, xi)), np.ravel(y_dot)])
        if not np.all(np.isfinite(dz)):
            state["nonfinite"] = True
        return dz

    def start(t_start, y_start, first_step=None):
        z0 = np.concatenate([np.zeros(size), y_start.ravel()])
        if first_step is not None:  # keep the step size reached (no new initial-step search)
            first_step = min(first_step, t[-1] - t_start) or None
        return solver_cls(fun, t_start, z0, t[-1], rtol=rtol, atol=atol, first_step=first_step)

    segments = [(t[0], q0, [t[0]], [])]  # (start, q_c, step times, interpolants) per chart
    if T == 1:
        return AdaptiveRun(q=qs, y=ys, steps=0, dense=None)
    solver = start(t[0], y0)
    scale0 = float(np.max(np.abs(y0), initial=0.0))
    k, steps = 1, 0  # next output index, accepted steps
    try:
        while k < T:
            try:
                message = solver.step()
            except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
                # implicit solvers factorise a Jacobian: a blown-up state makes it non-finite
                if state["nonfinite"]:
                    raise diverged(solver.t, f"{name}: {exc}") from exc
                raise
            steps += 1
            if solver.status == "failed" or not np.all(np.isfinite(solver.y)):
                # a collapsed step size means a blow-up (finite-time divergence) or a singularity
                if (
                    state["nonfinite"]
                    or not np.all(np.isfinite(solver.y))
                    or "step size" in str(message)
                ):
                    raise diverged(solver.t, f"{name}: {message}")
                raise SimulationError(
                    f"The adaptive integrator {name} failed at t = {solver.t:.6g}: {message}"
                )
            if dense:
                segments[-1][2].append(solver.t)
                segments[-1][3].append(solver.dense_output())
            # ---- outputs in (t_old, t]: dense output, configuration through the chart ------------
            j = (
                T
                if solver.status == "finished"
                else int(np.searchsorted(t, solver.t, side="right"))
            )
            if j > k:
                Z = np.empty((j - k, len(solver.y)))
                exact = (t[k:j] == solver.t) | (
                    np.arange(k, j) == T - 1
                )  # the step's end: no interpolation
                Z[exact] = solver.y
                if not np.all(exact):
                    Z[~exact] = solver.dense_output()(t[k:j][~exact]).T
                delta, ys[k:j] = unpack(Z)
                qs[k:j] = chart.retract(state["q_c"], delta)  # q = q_c ⊕ δ (on the manifold)
                if on_output is not None:
                    on_output(j - k)
                k = j
            if solver.status != "running":
                break
            budget.check_step(steps, solver.t, name)
            # A collapsed step size is a blow-up if the state exploded: once the state has grown
            # by _BLOWUP, a step size projecting more steps than the whole budget is reported at
            # once (the run could not finish within max_steps anyway), instead of integrating on
            # until it projects 100 budgets (a finite-time blow-up took minutes to be reported).
            magnitude = float(np.max(np.abs(solver.y), initial=0.0))
            grown = magnitude > _BLOWUP * (1.0 + scale0)
            try:
                budget.check_projection(
                    steps, solver.t, t[-1], solver.step_size, name, factor=1.0 if grown else 100.0
                )
            except SimulationBudgetError as exc:
                if grown:
                    raise diverged(
                        solver.t,
                        f"{name}: the step size collapsed to {solver.step_size:.3g} "
                        f"while the state grew to {magnitude:.3g}",
                    ) from exc
                raise
            # ---- re-centre the chart when a non-flat coordinate grows ---------------------------
            if chart.curved is not None:
                delta, y_now = unpack(solver.y)
                if np.max(np.abs(delta[..., chart.curved])) > chart_limit:
                    state["q_c"] = chart.retract(state["q_c"], delta)
                    solver = start(solver.t, y_now, first_step=solver.step_size or None)
                    if dense:
                        segments.append((solver.t, state["q_c"], [solver.t], []))
    except Exception as exc:
        # what was integrated is kept: the caller reports it with the error (issue 26)
        exc.partial = AdaptiveRun(q=qs[:k], y=ys[:k], steps=steps, dense=None)
        raise
    solution = DenseChartSolution(chart, segments, unpack) if dense else None
    return AdaptiveRun(q=qs, y=ys, steps=steps, dense=solution)
