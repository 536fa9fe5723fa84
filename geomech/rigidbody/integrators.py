r"""Lie-group integrators for a rigid body: RKMK methods on ``G × R^n``.

The state is ``(g, y) ∈ G × R^n`` with the left-trivialised vector field

.. math:: \dot g = g\, \hat\xi(t, g, y), \qquad \dot y = F(t, g, y)

(for a rigid body ``ξ = v`` and ``y = v``, ``F`` the forward dynamics). :func:`integrate`
steps it with a Runge–Kutta–Munthe-Kaas method in the exponential chart ``g = g_n exp(Θ)``
(:func:`geomech.integration.group_chart`), so every stage and every step stays exactly on the
group. The methods (:class:`~geomech.integration.RKMK`, :data:`LIE_EULER`, :data:`RKMK2`,
:data:`RKMK4`, :func:`get_integrator`) are those of the integration core
:mod:`geomech.integration`, re-exported here.

References
----------
H. Munthe-Kaas, "High order Runge-Kutta methods on manifolds", Appl. Numer. Math. 29 (1999);
seed 003 §1.3 (kinematics ``ġ = g v̂``, "any Lie-group integrator").

Examples
--------
>>> import numpy as np
>>> from geomech.lie import SO3
>>> from geomech.rigidbody.integrators import RKMK4, integrate
>>> field = lambda t, R, w: (w, np.zeros_like(w))  # constant body rate: R(t) = exp(t ω̂)
>>> t, R, w = integrate(SO3, field, np.eye(3), [0.0, 0.0, 1.0], 0.0, np.pi / 2, 10)
>>> np.round(R[-1], 12) + 0.0
array([[ 0., -1.,  0.],
       [ 1.,  0.,  0.],
       [ 0.,  0.,  1.]])
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from geomech._validation import as_array
from geomech.errors import DTypeError, SimulationError
from geomech.integration import (
    INTEGRATORS,
    LIE_EULER,
    RKMK2,
    RKMK4,
    Budget,
    get_integrator,
    group_chart,
    integrate_fixed,
)
from geomech.lie import LieGroup

# RKMK (the tableau class) is documented with geomech.rigidbody, which re-exports it too
__all__ = ["LIE_EULER", "RKMK2", "RKMK4", "INTEGRATORS", "get_integrator", "integrate"]


def integrate(
    group: LieGroup,
    field: Callable,
    g0,
    y0,
    t0: float,
    t_final: float,
    n_steps: int,
    method="rkmk4",
):
    """Integrate ``ġ = g ξ̂(t, g, y)``, ``ẏ = F(t, g, y)`` with ``n_steps`` equal steps.

    Batched initial conditions are integrated together (one vectorised step for the batch).

    Parameters
    ----------
    group : LieGroup
        The group ``G``.
    field : callable
        ``field(t, g, y) -> (xi, y_dot)``; it receives arrays with the batch dimensions of
        ``g0``/``y0`` and must return ``xi`` of shape ``(..., group.dim)``.
    g0 : array_like, shape (..., *group.point_shape)
        Initial group element(s), validated with ``group.validate``.
    y0 : array_like, shape (..., n)
        Initial vector state(s).
    t0, t_final : float
        Time interval.
    n_steps : int
        Number of steps (``≥ 1``); the step is ``(t_final - t0) / n_steps``.
    method : str or RKMK, optional
        Integrator (see :func:`get_integrator`); default ``"rkmk4"``.

    Returns
    -------
    t : ndarray, shape (n_steps + 1,)
    g : ndarray, shape (n_steps + 1, ..., *group.point_shape)
    y : ndarray, shape (n_steps + 1, ..., n)

    Raises
    ------
    DTypeError
        (a ``TypeError``) If ``group`` is not a :class:`~geomech.lie.LieGroup`.
    DimensionError, NonFiniteError, NotOnManifoldError
        If ``g0`` is not on the group or ``y0`` is not a finite array.
    SimulationError
        (a ``ValueError``) For an unknown method, ``n_steps < 1`` or a non-finite time interval.
    SimulationBudgetError
        If ``n_steps`` exceeds :data:`geomech.integration.DEFAULT_MAX_STEPS` or the run its
        wall-time budget.
    NonFiniteError
        If the numerical solution becomes non-finite (the step is too large).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE2
    >>> from geomech.rigidbody.integrators import integrate
    >>> field = lambda t, g, v: (v, np.zeros_like(v))  # a planar body at constant twist
    >>> t, g, v = integrate(SE2, field, np.eye(3), [1.0, 1.0, 0.0], 0.0, 1.0, 20)
    >>> bool(np.allclose(g[-1], SE2.exp([1.0, 1.0, 0.0])))
    True
    """
    if not isinstance(group, LieGroup):
        raise DTypeError(
            f"Expected `group` to be a geomech.lie.LieGroup, got {type(group).__name__}."
        )
    integrator = get_integrator(method)
    g = group.validate(g0, "g0")
    y = as_array(y0, "y0", ())
    if isinstance(n_steps, bool) or not isinstance(n_steps, (int, np.integer)) or n_steps < 1:
        raise SimulationError(f"Expected `n_steps` to be a positive integer, got {n_steps!r}.")
    Budget().check_count(n_steps, "steps")  # before allocating
    t0, t_final = float(t0), float(t_final)
    if not (np.isfinite(t0) and np.isfinite(t_final)):
        raise SimulationError(f"Expected a finite time interval, got [{t0}, {t_final}].")
    h = (t_final - t0) / n_steps
    t = t0 + h * np.arange(n_steps + 1)
    t[-1] = t_final
    run = integrate_fixed(
        group_chart(group), field, integrator, t, g, y
    )  # budget checked before allocating
    return t, run.q, run.y
