r"""Fixed-step integration: one RKMK step per output interval, with a sampled error estimate.

Each step is an RKMK step in the chart centred at the current configuration (re-centred at every
step). On a sample of the steps (at most :data:`ERROR_SAMPLES` and one step in 20, evenly spread,
the first included) the local error of the step is estimated by *step doubling* in the same chart:
the step :math:`z_h = (\delta_h, y_h)` is compared with two half steps :math:`z_{h/2,h/2}` of the
same tableau (exact chart rate),

.. math:: \varepsilon_n = \frac{2^p}{2^p - 1}\,
          \max_i \frac{|z_{h/2,h/2} - z_h|_i}{\mathrm{atol} + \mathrm{rtol}\, s_i}, \qquad
          E = N\,\overline{\varepsilon},

with :math:`s_i = 1` for the configuration coordinates (radians, metres) and
:math:`s_i = \max(\|y_n\|_\infty, \|y_{n+1}\|_\infty)` for the vector state (a norm-wise
relative error, per batch member), and :math:`E` the estimated
global error in units of the tolerance (local errors accumulated over the ``N`` steps;
Hairer, Nørsett, Wanner, *Solving ODEs I*, §II.4). :math:`E > 1` means the step is too large
for the requested accuracy. The estimate costs at most 10 % more work (about two steps per
sampled step).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from geomech.errors import NonFiniteError
from geomech.integration.budget import Budget
from geomech.integration.rkmk import RKMK

__all__ = ["FixedRun", "integrate_fixed", "ERROR_SAMPLES", "SAMPLE_SPACING"]

#: Largest number of steps whose local error is estimated by step doubling in a fixed-step run.
ERROR_SAMPLES = 16

#: At most one step in this many is sampled (each sample costs about two steps: ≤ 10 % extra).
SAMPLE_SPACING = 20


@dataclass(frozen=True)
class FixedRun:
    """Result of :func:`integrate_fixed`.

    Attributes
    ----------
    q : ndarray, shape (N + 1, ..., *point_shape)
    y : ndarray, shape (N + 1, ..., m)
    aux : list
        The third output of ``field`` at each recorded state (``None`` where ``field`` returns
        two values, and at the last output).
    error : float or None
        Estimated global error in units of the tolerance (``> 1``: the step is too large);
        ``None`` when no accuracy was requested.
    error_time : float or None
        Start time of the sampled step with the largest local error.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.integration import RKMK2, integrate_fixed, vector_chart
    >>> run = integrate_fixed(vector_chart(1), lambda t, q, v: (v, -q, "aux"), RKMK2,
    ...                       np.linspace(0.0, 1.0, 3), np.ones(1), np.zeros(1))
    >>> run.q.shape, run.aux
    ((3, 1), ['aux', 'aux', None])
    """

    q: np.ndarray
    y: np.ndarray
    aux: list
    error: float | None = None
    error_time: float | None = None


def diverged(t: float, what: str) -> NonFiniteError:
    """The error raised when an integration produces a non-finite state."""
    return NonFiniteError(
        f"The integration diverged at t = {t:.6g} ({what}); the solution blows "
        "up or the step is too large: reduce the step or the tolerances."
    )


def _local_error(method: RKMK, chart, field, t, q, y, h, k1, z_full, rtol, atol) -> float:
    """Step-doubling estimate of the local error of the step ``z_full`` (tolerance units)."""
    delta_full, y_full = z_full
    with np.errstate(all="ignore"):
        try:
            d, yh = method.increment(chart, field, t, q, y, 0.5 * h, k1=k1, exact=True)
            d, yh = method.increment(
                chart, field, t + 0.5 * h, q, yh, 0.5 * h, delta0=d, exact=True
            )
        except NonFiniteError:  # a half step overflowed: the full step is far too large
            return np.inf
        e_q = np.abs(d - delta_full) / (atol + rtol)
        size = np.maximum(
            np.max(np.abs(y), axis=-1, keepdims=True, initial=0.0),
            np.max(np.abs(y_full), axis=-1, keepdims=True, initial=0.0),
        )
        e_y = np.abs(yh - y_full) / (atol + rtol * size)
    err = max(np.max(e_q, initial=0.0), np.max(e_y, initial=0.0))
    p = method.order
    return float(err * 2.0**p / (2.0**p - 1.0)) if np.isfinite(err) else np.inf


def integrate_fixed(
    chart,
    field: Callable,
    method: RKMK,
    t,
    q0,
    y0,
    *,
    budget: Budget | None = None,
    accuracy: tuple[float, float] | None = None,
    on_step: Callable | None = None,
) -> FixedRun:
    r"""Integrate ``(q, y)`` with one RKMK step per interval of the equally spaced grid ``t``.

    No input validation (the public callers validate): ``t`` has ``N + 1 ≥ 2`` equally spaced
    times, ``q0`` and ``y0`` share their leading (batch) dimensions.

    Parameters
    ----------
    chart : CentredChart
    field : callable
        ``field(t, q, y) -> (xi, y_dot)`` or ``(xi, y_dot, aux)``; ``aux`` (e.g. the applied
        torque) is recorded at the output times.
    method : RKMK
    t : ndarray, shape (N + 1,)
    q0 : ndarray, shape (..., *chart.point_shape)
    y0 : ndarray, shape (..., m)
    budget : Budget, optional
        Step and wall-time budget (checked before allocating and at every step).
    accuracy : (float, float), optional
        ``(rtol, atol)``: estimate the global error by step doubling on a sample of steps
        (:attr:`FixedRun.error`).
    on_step : callable, optional
        Called with no argument after every step (e.g. a progress bar).

    Returns
    -------
    FixedRun

    Raises
    ------
    SimulationBudgetError
        If the run needs more than ``budget.max_steps`` steps or runs past
        ``budget.max_wall_time``.
    NonFiniteError
        If the state becomes non-finite.

    Every exception raised during the steps (these, and those of ``field``) carries the
    outputs recorded before it as ``exc.partial``, a :class:`FixedRun`.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> from geomech.integration import RKMK4, group_chart, integrate_fixed
    >>> field = lambda t, R, w: (w, np.zeros_like(w))
    >>> run = integrate_fixed(group_chart(SO3), field, RKMK4, np.linspace(0.0, 1.0, 11), np.eye(3),
    ...                       np.array([0.0, 0.0, 1.0]), accuracy=(1e-6, 1e-9))
    >>> bool(np.allclose(run.q[-1], SO3.exp([0.0, 0.0, 1.0]))), run.error < 1.0
    (True, True)
    """
    budget = Budget() if budget is None else budget
    N = len(t) - 1
    budget.check_count(N, "steps")
    budget.check_bytes(8.0 * (N + 1) * (q0.size + y0.size), "trajectory")
    h = (t[-1] - t[0]) / N
    qs, ys = np.empty((N + 1,) + q0.shape), np.empty((N + 1,) + y0.shape)
    qs[0], ys[0] = q, y = q0, y0
    aux = [None] * (N + 1)
    n_samples = min(ERROR_SAMPLES, max(1, N // SAMPLE_SPACING))
    stride = -(-N // n_samples)  # ceil: at most n_samples sampled steps, evenly spread
    errors, worst = [], (0.0, None)
    name = method.name
    done = 1  # outputs recorded so far (the partial trajectory of an error)
    try:
        for n in range(N):
            k1 = field(t[n], q, y)  # at a finite state: errors here are the field's own
            if (
                len(k1) > 2
            ):  # e.g. the torque at (t_n, q_n, y_n), copied (it may be a reused buffer)
                aux[n] = np.array(k1[2]) if isinstance(k1[2], np.ndarray) else k1[2]
            try:
                delta, y_next = method.increment(chart, field, t[n], q, y, h, k1=k1)
                if accuracy is not None and n % stride == 0:
                    err = _local_error(
                        method, chart, field, t[n], q, y, h, k1, (delta, y_next), *accuracy
                    )
                    errors.append(err)
                    if worst[1] is None or err > worst[0]:
                        worst = (err, t[n])
                q = chart.retract(q, delta)  # q_{n+1} = q_n ⊕ δ (re-centred at every step)
            except NonFiniteError as exc:  # a stage overflowed (e.g. q_c ⊕ δ) and was refused
                raise diverged(
                    t[n + 1], f"{name}, step {n + 1} of {N}, h = {h:.3g}: {exc}"
                ) from exc
            y = y_next
            if not (np.isfinite(q).all() and np.isfinite(y).all()):
                raise diverged(t[n + 1], f"{name}, step {n + 1} of {N}, h = {h:.3g}")
            qs[n + 1], ys[n + 1] = q, y
            done = n + 2
            budget.check_step(n + 1, t[n + 1], name)
            if on_step is not None:
                on_step()
    except Exception as exc:
        # what was integrated is kept: the caller reports it with the error (issue 26)
        exc.partial = FixedRun(q=qs[:done], y=ys[:done], aux=aux[:done])
        raise
    error = None if accuracy is None else float(N * np.mean(errors))
    return FixedRun(q=qs, y=ys, aux=aux, error=error, error_time=worst[1])
