r"""Step and wall-time budgets of an integration, checked before allocating and while stepping.

A run that would take more steps than its budget is refused before any array is allocated;
a run in progress stops with :class:`~geomech.errors.SimulationBudgetError` (a ``RuntimeError``)
when it has taken :attr:`Budget.max_steps` steps, when it has run :attr:`Budget.max_wall_time`
seconds, or, in adaptive mode, as soon as its current step size projects more than 100 times
its whole step budget (a collapsing step size: the solution is blowing up or the problem is
too stiff for the method).

Examples
--------
>>> from geomech.errors import SimulationBudgetError
>>> from geomech.integration import Budget
>>> Budget(max_steps=100).check_count(50, "steps")  # within budget: nothing happens
>>> try:
...     Budget(max_steps=100).check_count(10**9, "steps")
... except SimulationBudgetError as exc:
...     print(str(exc)[:46])
The run needs 1000000000 steps, over its budge
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from geomech.errors import SimulationBudgetError, SimulationError

__all__ = ["Budget", "DEFAULT_MAX_STEPS", "DEFAULT_MAX_WALL_TIME", "MAX_OUTPUT_BYTES"]

#: Default step budget: fixed steps, output intervals, or accepted steps of an adaptive solver.
DEFAULT_MAX_STEPS = 1_000_000

#: Default wall-time budget of one run, in seconds.
DEFAULT_MAX_WALL_TIME = 3600.0

#: Largest memory the recorded trajectory may take (bytes), checked before allocating it.
MAX_OUTPUT_BYTES = 2**30

#: An adaptive run stops when its step size projects this many times its whole step budget.
_PROJECTION = 100.0

#: Steps an adaptive solver may take before the projection is trusted (step-size control settles).
_SETTLE = 20


def _positive(x, name: str, default: float, integer: bool) -> float:
    if x is None:
        return default
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise SimulationError(f"Expected `{name}` to be a positive number, got {type(x).__name__}.")
    if integer and not (isinstance(x, (int, np.integer)) or (x == math.inf)):
        raise SimulationError(
            f"Expected `{name}` to be a positive integer (or math.inf), got {x!r}."
        )
    if not x > 0:  # also rejects NaN
        raise SimulationError(f"Expected `{name}` > 0, got {x!r}.")
    return float(x) if not integer or x == math.inf else int(x)


@dataclass
class Budget:
    """The step and wall-time budget of one run.

    Parameters
    ----------
    max_steps : int, optional
        Largest number of steps (fixed-step mode), output intervals, or accepted steps of an
        adaptive solver; default :data:`DEFAULT_MAX_STEPS` (10⁶); ``math.inf`` for none.
    max_wall_time : float, optional
        Largest wall time of the run in seconds; default :data:`DEFAULT_MAX_WALL_TIME`
        (3600 s); ``math.inf`` for none.

    Raises
    ------
    SimulationError
        If a budget is not a positive number (``max_steps`` an integer).

    Examples
    --------
    >>> from geomech.integration import Budget
    >>> b = Budget(max_wall_time=10.0)
    >>> b.max_steps, b.max_wall_time
    (1000000, 10.0)
    """

    max_steps: int | float | None = None
    max_wall_time: float | None = None
    _start: float = field(default=0.0, init=False, repr=False)

    def __post_init__(self):
        self.max_steps = _positive(self.max_steps, "max_steps", DEFAULT_MAX_STEPS, True)
        self.max_wall_time = _positive(
            self.max_wall_time, "max_wall_time", DEFAULT_MAX_WALL_TIME, False
        )
        self.start()

    def start(self) -> Budget:
        """Start (or restart) the wall clock; returns ``self``."""
        self._start = time.perf_counter()
        return self

    def check_count(self, n, what: str) -> None:
        """Refuse, before allocating, a run that needs ``n`` steps (``n`` may be ``inf``).

        Raises
        ------
        SimulationBudgetError
            If ``n > max_steps`` or ``n`` is infinite.
        """
        if not (n <= self.max_steps and math.isfinite(n)):
            shown = f"{n:.3g}" if isinstance(n, float) else str(n)
            raise SimulationBudgetError(
                f"The run needs {shown} {what}, over its budget max_steps = {self.max_steps}; "
                f"increase `dt` or shorten the time span, or pass a larger `max_steps`."
            )

    @staticmethod
    def check_bytes(n_bytes: float, what: str) -> None:
        """Refuse, before allocating, outputs larger than :data:`MAX_OUTPUT_BYTES`.

        Raises
        ------
        SimulationBudgetError
            If ``n_bytes > MAX_OUTPUT_BYTES``.
        """
        if not n_bytes <= MAX_OUTPUT_BYTES:
            raise SimulationBudgetError(
                f"The {what} would take {n_bytes / 2**20:.4g} MiB, over the limit of "
                f"{MAX_OUTPUT_BYTES / 2**20:.0f} MiB; increase `dt`, shorten the time span or "
                f"simulate fewer initial conditions at once."
            )

    def check_step(self, steps: int, t: float, method: str) -> None:
        """After ``steps`` steps, reaching time ``t``: enforce the step and wall-time budgets.

        Raises
        ------
        SimulationBudgetError
            If ``steps > max_steps`` or the wall time exceeds ``max_wall_time``.
        """
        if steps > self.max_steps:
            raise SimulationBudgetError(
                f"{method} reached its step budget max_steps = {self.max_steps} at t = {t:.6g} "
                f"without finishing; pass a larger `max_steps` (or loosen the tolerances)."
            )
        elapsed = time.perf_counter() - self._start
        if elapsed > self.max_wall_time:
            raise SimulationBudgetError(
                f"{method} ran past its wall-time budget max_wall_time = {self.max_wall_time:g} s "
                f"(at t = {t:.6g}, after {steps} steps); pass a larger `max_wall_time`."
            )

    def check_projection(
        self, steps: int, t: float, t_end: float, h: float, method: str, factor: float = _PROJECTION
    ) -> None:
        """Stop an adaptive run whose step size ``h`` projects far more steps than are left.

        Raises
        ------
        SimulationBudgetError
            After a few steps, if ``(t_end - t) / h`` exceeds ``factor`` (by default 100) times
            ``max_steps`` (or ``h = 0``).
        """
        if steps < _SETTLE or self.max_steps == math.inf:
            return
        needed = abs(t_end - t) / h if h > 0.0 else math.inf  # h = 0: the solver does not advance
        if needed > factor * self.max_steps:
            raise SimulationBudgetError(
                f"{method} would need about {needed:.3g} more steps at its current step size "
                f"h = {h:.3g} (t = {t:.6g} of {t_end:.6g}), far over its budget max_steps = "
                f"{self.max_steps}: the step size collapsed, so the solution is blowing up or "
                f"the problem is too stiff for this method (try 'Radau' or 'BDF', check the "
                f"inputs' magnitudes, or pass a larger `max_steps`)."
            )
