r"""Each kind of system in its centred chart: what :func:`~geomech.simulation.simulate` steps.

A :class:`SystemChart` is a :class:`~geomech.integration.CentredChart` of the configuration
manifold plus the system's configuration rate :math:`\xi(t, q, v)` and forward dynamics
:math:`\dot v = F(t, q, v, \tau)`:

- a system with a Lie-group form (:func:`~geomech.simulation.lie_group_form`): the group's
  exponential chart :math:`q_c\exp(\hat\delta)` (:func:`~geomech.integration.group_chart`);
- a :class:`~geomech.multibody.MultibodyModel`: its joint frame's chart,
  :math:`q = ` ``model.integrate(q_c, δ)`` with each joint's chart rate (the hook
  ``Joint._chart_rate``), and :func:`~geomech.multibody.dynamics.aba`;
- any other :class:`~geomech.geometry.MechanicalSystem` (custom frames, the loop-closure frame
  of a closed chain, coordinates on a curved manifold): its frame's own chart,
  :math:`q = \mathrm{flow}(q_c, \delta, 1)`, rates from
  :meth:`Frame.chart_velocity <geomech.geometry.Frame.chart_velocity>`, and Hamel's equations.

Examples
--------
>>> import numpy as np
>>> from geomech.multibody import robots
>>> from geomech.simulation.charts import system_chart
>>> chart, q = system_chart(robots.double_pendulum(), [0.1, 0.2])
>>> chart.nv, chart.chart.curved is None  # two revolute joints: a flat chart
(2, True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from geomech._validation import as_array, check_real
from geomech.errors import NotOnManifoldError
from geomech.geometry.system import MechanicalSystem
from geomech.integration import CentredChart, frame_chart, group_chart
from geomech.simulation.forms import group_of, hamel_acceleration, lie_group_form

__all__ = ["SystemChart", "system_chart"]


@dataclass(frozen=True)
class SystemChart:
    r"""A system in a centred chart.

    Attributes
    ----------
    chart : CentredChart
        The chart :math:`q = q_c \oplus \delta` of the configuration manifold.
    nv : int
        Number of velocity coordinates.
    velocity : callable
        ``velocity(t, q, v) -> xi``: the frame components of :math:`\dot q`.
    acceleration : callable
        ``acceleration(t, q, v, tau) -> a`` (``tau`` may be ``None``).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples import point_mass
    >>> from geomech.simulation.charts import system_chart
    >>> chart, _ = system_chart(point_mass(2.0), np.zeros(3))
    >>> chart.acceleration(0.0, np.zeros(3), np.zeros(3), np.array([2.0, 0.0, 0.0]))
    array([1., 0., 0.])
    """

    chart: CentredChart
    nv: int
    velocity: Callable
    acceleration: Callable


def system_chart(system, q0) -> tuple[SystemChart, np.ndarray]:
    """The chart of ``system`` and its validated initial configuration.

    Parameters
    ----------
    system : RigidBody, MechanicalSystem, MultibodyModel or a type registered with
        :func:`~geomech.simulation.lie_group_form`
    q0 : array_like, shape (..., *point_shape)

    Returns
    -------
    SystemChart
    q0 : ndarray, shape (..., *point_shape)

    Raises
    ------
    DTypeError
        For an unsupported system type, or a complex ``q0``.
    DimensionError, NonFiniteError, NotOnManifoldError
        If ``q0`` is malformed or not on the manifold.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE3
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.simulation.charts import system_chart
    >>> chart, q = system_chart(RigidBody(SE3, np.eye(6)), np.eye(4))
    >>> chart.chart.point_shape, chart.nv
    ((4, 4), 6)
    """
    from geomech.multibody.model import MultibodyModel

    check_real(q0, "q0")
    if isinstance(system, MultibodyModel):
        return _multibody_chart(system), _multibody_q0(system, q0)
    if isinstance(system, MechanicalSystem) and group_of(system) is None:
        frame = system.frame  # custom / loop-closure frames: the frame's own chart
        return (SystemChart(frame_chart(_FiniteGuard(frame)), system.dim, lambda t, q, v: v,
                            hamel_acceleration(system)), frame.validate_point(q0, "q0"))
    form = lie_group_form(system)
    return (SystemChart(group_chart(form.group), form.nv, form.velocity, form.acceleration),
            form.validate_q(q0))


class _FiniteGuard:
    """A frame whose flow returns NaN for a non-finite chart step (a blown-up trial step of the
    integrator) instead of raising, so that the integrator reports the divergence itself.
    """

    def __init__(self, frame):
        self._frame = frame
        self.dim, self.point_shape = frame.dim, tuple(frame.point_shape)
        self.chart_velocity = frame.chart_velocity

    def flow(self, q, w, t):
        if not np.all(np.isfinite(w)):
            lead = np.broadcast_shapes(q.shape[: q.ndim - len(self.point_shape)], w.shape[:-1])
            return np.full(lead + self.point_shape, np.nan)
        return self._frame.flow(q, w, t)


def _multibody_chart(model) -> SystemChart:
    from geomech.multibody.dynamics import aba

    # the joint frame's chart: q = model.integrate(q_c, δ), rates from each Joint._chart_rate
    rate = model.connection().system.frame.chart_velocity
    curved = np.zeros(model.nv, dtype=bool)  # multi-DoF joints; 1-DoF joints are coordinates
    for joint, vs in zip(model.joints, model.v_slices, strict=True):
        curved[vs] = joint.nv > 1
    zeros = np.zeros(model.nv)

    def retract(q_c, delta):
        if not np.isfinite(delta).all():  # a blown-up trial step: let the integrator report it
            return np.full(np.broadcast_shapes(q_c.shape[:-1], delta.shape[:-1]) + (model.nq,), np.nan)
        return model.integrate(q_c, delta)

    def acceleration(t, q, v, tau):
        return aba(model, q, v, zeros if tau is None else tau)

    chart = CentredChart(dim=model.nv, point_shape=(model.nq,), retract=retract,
                         rate=rate, curved=curved if curved.any() else None)
    return SystemChart(chart, model.nv, lambda t, q, v: v, acceleration)


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
