r"""The integration core: centred charts, RKMK steps and adaptive stepping in a moving chart.

Every time integration of geomech (:func:`geomech.simulate`, geodesics and parallel transport
of :mod:`geomech.geometry`, the rigid-body integrators of :mod:`geomech.rigidbody`) goes
through this package, which sits below the geometry layer (it imports only
:mod:`geomech.lie`, numpy and scipy):

- :mod:`~geomech.integration.charts`: :class:`CentredChart`, :math:`q = q_c \oplus \delta`
  with its retraction and exact chart rate (:func:`group_chart`, :func:`frame_chart`,
  :func:`vector_chart`);
- :mod:`~geomech.integration.rkmk`: the explicit Runge–Kutta–Munthe-Kaas methods
  (:class:`RKMK`, :data:`LIE_EULER`, :data:`RKMK2`, :data:`RKMK4`) and the truncated
  :math:`\operatorname{dexp}^{-1}` series (:func:`dexpinv_series`);
- :mod:`~geomech.integration.fixed`: fixed steps with a sampled step-doubling error estimate
  (:func:`integrate_fixed`);
- :mod:`~geomech.integration.adaptive`: scipy's ``solve_ivp`` solvers in a re-centred chart
  (:func:`integrate_adaptive`);
- :mod:`~geomech.integration.budget`: step and wall-time budgets (:class:`Budget`).

References
----------
H. Munthe-Kaas, "High order Runge-Kutta methods on manifolds", Appl. Numer. Math. 29 (1999);
seed 003 §1.3.

Examples
--------
>>> import numpy as np
>>> from geomech.lie import SE2
>>> from geomech.integration import RKMK4, group_chart, integrate_fixed
>>> field = lambda t, g, v: (v, np.zeros_like(v))  # constant twist: g(t) = exp(t ξ)
>>> run = integrate_fixed(group_chart(SE2), field, RKMK4, np.linspace(0, 1, 5), np.eye(3),
...                       np.array([1.0, 1.0, 0.0]))
>>> bool(np.allclose(run.q[-1], SE2.exp([1.0, 1.0, 0.0])))
True
"""

from geomech.integration.adaptive import (
    ADAPTIVE_METHODS,
    AdaptiveRun,
    DenseChartSolution,
    get_solver,
    integrate_adaptive,
)
from geomech.integration.budget import (
    DEFAULT_MAX_STEPS,
    DEFAULT_MAX_WALL_TIME,
    MAX_OUTPUT_BYTES,
    Budget,
)
from geomech.integration.charts import CentredChart, frame_chart, group_chart, vector_chart
from geomech.integration.fixed import ERROR_SAMPLES, FixedRun, integrate_fixed
from geomech.integration.rkmk import (
    INTEGRATORS,
    LIE_EULER,
    RKMK,
    RKMK2,
    RKMK4,
    dexpinv_series,
    get_integrator,
)

__all__ = [
    "CentredChart",
    "group_chart",
    "frame_chart",
    "vector_chart",
    "RKMK",
    "LIE_EULER",
    "RKMK2",
    "RKMK4",
    "INTEGRATORS",
    "get_integrator",
    "dexpinv_series",
    "FixedRun",
    "integrate_fixed",
    "ERROR_SAMPLES",
    "ADAPTIVE_METHODS",
    "get_solver",
    "AdaptiveRun",
    "DenseChartSolution",
    "integrate_adaptive",
    "Budget",
    "DEFAULT_MAX_STEPS",
    "DEFAULT_MAX_WALL_TIME",
    "MAX_OUTPUT_BYTES",
]
