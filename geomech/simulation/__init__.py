r"""Simulation of mechanical systems with the configuration kept on its manifold.

:func:`simulate` is the single entry point. Every system is integrated in an *exponential
chart re-centred along the way* (the integration core, :mod:`geomech.integration`): around a
centre :math:`q_c` the configuration is :math:`q = q_c \oplus \delta` (``q_c exp(δ̂)`` on a Lie
group, the joint-wise exponentials ``model.integrate(q_c, δ)`` of a multibody model), and the
chart coordinates obey

.. math:: \dot\delta = \operatorname{dexp}^{-1}_{-\delta}\,\xi = J_r(\delta)^{-1}\xi,
          \qquad \dot v = F(t, q, v, \tau),

with :math:`\xi` the left-trivialised configuration rate (body velocity). Configurations
are always recovered through the retraction, so rotations stay orthogonal and quaternions
unit norm to rounding, whatever the step.

Two modes share this chart:

* **fixed step** (default ``"rkmk4"``; also ``"rkmk2"``/``"midpoint"``, ``"lie_euler"`` or
  any :class:`~geomech.integration.RKMK` tableau): one Runge–Kutta–Munthe-Kaas step per
  output interval, the chart re-centred at every step. On a group
  :math:`\operatorname{dexp}^{-1}` is the commutator series truncated to the tableau's order
  (Munthe-Kaas 1999); for a multibody model it is each joint's chart rate
  (``Joint._chart_rate``). Either way the tableau's classical order is kept. A sampled
  step-doubling estimate warns when the step is too large for the requested accuracy;
* **adaptive** (the :func:`scipy.integrate.solve_ivp` methods ``"RK45"``, ``"DOP853"``,
  ``"Radau"``, ``"BDF"``, ``"RK23"``, ``"LSODA"``, with ``rtol``/``atol``): the scipy solver
  steps the chart ODE; outputs on the grid of spacing ``dt`` come from its dense output,
  and the chart is re-centred at the end of a step once a non-flat chart coordinate exceeds
  1 (well inside the :math:`2\pi` singularity of :math:`J_r^{-1}`).

Both obey a step budget and a wall-time budget (``max_steps``, ``max_wall_time``).

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

Modules: :mod:`~geomech.simulation.driver` (:func:`simulate`),
:mod:`~geomech.simulation.result` (:class:`SimulationResult`, its ``.npz`` format),
:mod:`~geomech.simulation.forms` (Lie-group forms, Hamel's equations),
:mod:`~geomech.simulation.charts` (each system in its chart),
:mod:`~geomech.simulation.closed_loop` (controllers), :mod:`~geomech.simulation.compiled` (the
compiled fixed-step path of trees under free motion or a built-in law).

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

from geomech.simulation.driver import (
    ADAPTIVE_METHODS,
    ADAPTIVE_TOLERANCES,
    DEFAULT_DT,
    FIXED_STEP_TOLERANCES,
    simulate,
)
from geomech.simulation.forms import LieGroupForm, lie_group_form, mechanical_system_form
from geomech.simulation.result import SimulationResult

__all__ = [
    "simulate",
    "SimulationResult",
    "LieGroupForm",
    "lie_group_form",
    "mechanical_system_form",
    "DEFAULT_DT",
    "ADAPTIVE_METHODS",
    "ADAPTIVE_TOLERANCES",
    "FIXED_STEP_TOLERANCES",
]
