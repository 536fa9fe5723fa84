r"""Each kind of system in its centred chart: what :func:`~geomech.simulation.simulate` steps.

A :class:`SystemChart` is a :class:`~geomech.integration.CentredChart` of the configuration
manifold plus the system's configuration rate :math:`\xi(t, q, v)` and forward dynamics
:math:`\dot v = F(t, q, v, \tau)`:

- a system with a Lie-group form (:func:`~geomech.simulation.lie_group_form`): the group's
  exponential chart :math:`q_c\exp(\hat\delta)` (:func:`~geomech.integration.group_chart`);
- any other :class:`~geomech.geometry.MechanicalSystem` (a
  :class:`~geomech.multibody.MultibodyModel` and its joint frame, the loop-closure frame of a
  closed chain, custom frames, coordinates on a curved manifold): its frame's own chart,
  :math:`q = \mathrm{flow}(q_c, \delta, 1)`, rates from
  :meth:`Frame.chart_velocity <geomech.geometry.Frame.chart_velocity>` (on a model,
  ``model.integrate(q_c, δ)`` and each joint's chart rate ``Joint._chart_rate``), and
  :meth:`~geomech.geometry.MechanicalSystem.forward_dynamics` (the ABA on a model, C-ABA on a
  closed model, whose flow keeps the loops closed).

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
from dataclasses import dataclass, replace
from functools import singledispatch

import numpy as np

from geomech._validation import check_real
from geomech.geometry.system import MechanicalSystem
from geomech.integration import CentredChart, frame_chart, group_chart
from geomech.simulation.forms import group_of, lie_group_form

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


@singledispatch
def system_chart(system, q0) -> tuple[SystemChart, np.ndarray]:
    r"""The chart of ``system`` and its validated initial configuration (single dispatch).

    The one dispatch of :func:`~geomech.simulation.simulate`. Registered:

    - :class:`~geomech.geometry.MechanicalSystem` (so every
      :class:`~geomech.multibody.MultibodyModel`, tree or closed): on a Lie group with a
      coordinate or invariant frame, the group's exponential chart and Hamel's equations
      (:func:`~geomech.simulation.mechanical_system_form`); otherwise the frame's own chart,
      :math:`q = \mathrm{flow}(q_c, \delta, 1)` with the frame's chart rate (a model's
      :class:`~geomech.multibody.model.frame.JointFrame`: ``model.integrate`` and each joint's
      chart rate), and :meth:`MechanicalSystem.forward_dynamics
      <geomech.geometry.MechanicalSystem.forward_dynamics>` (the ABA on a model);
    - any other type: its Lie-group form (:func:`~geomech.simulation.lie_group_form`, the
      extension point of group systems such as :class:`~geomech.rigidbody.RigidBody`).

    Parameters
    ----------
    system : RigidBody, MechanicalSystem (e.g. MultibodyModel) or a type registered here or
        with :func:`~geomech.simulation.lie_group_form`
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
    check_real(q0, "q0")
    form = lie_group_form(system)
    return (
        SystemChart(group_chart(form.group), form.nv, form.velocity, form.acceleration),
        form.validate_q(q0),
    )


@system_chart.register(MechanicalSystem)
def _(system, q0) -> tuple[SystemChart, np.ndarray]:
    check_real(q0, "q0")
    if group_of(system) is not None:  # a Lie group with a coordinate or invariant frame
        form = lie_group_form(system)
        return (
            SystemChart(group_chart(form.group), form.nv, form.velocity, form.acceleration),
            form.validate_q(q0),
        )
    frame = system.frame  # joint frames, loop-closure frames, custom frames: the frame's own chart

    def acceleration(t, q, v, tau):
        return system.forward_dynamics(q, v, tau)

    chart = frame_chart(_FiniteGuard(frame), curved=getattr(frame, "curved", None))
    compiled = _compiled_chart(system)
    if compiled is None:
        compiled = _compiled_closed_chart(system)
    if compiled is not None:  # the same retraction and chart rate, by the compiled kernels
        chart = replace(chart, retract=compiled[0], rate=compiled[1])
        if len(compiled) > 2:  # a closed model: C-ABA without re-validating the states
            acceleration = compiled[2]
    q0 = frame.validate_point(q0, "q0")
    q0 = chart.retract(q0, np.zeros(system.dim))  # exactly on the manifold (unit quaternions)
    return SystemChart(chart, system.dim, lambda t, q, v: v, acceleration), q0


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


def _compiled_chart(system):
    r"""``(retract, rate)`` of the joint frame's chart by the compiled kernels, or ``None``.

    For a tree model whose joints are all 1-DoF, spherical, free-flyer or fixed: :math:`q_c \oplus
    \delta` (``model.integrate``, ``geomech.multibody._kernels.joints.integrate``) and the rate
    :math:`\dot\delta_i = J_r(\delta_i)^{-1} v_i` of ``JointFrame.chart_velocity``
    (``geomech.multibody._kernels.tree.chart.chart_rate``), one kernel call each and without
    re-validating the integrator's own states (the inner loop). A non-finite step gives NaN, as the
    frame's chart does (:class:`_FiniteGuard`). ``None`` for any other system.
    """
    from geomech.multibody._kernels.joints import integrate, integrate_batch
    from geomech.multibody._kernels.tables import JTYPE
    from geomech.multibody._kernels.tree.chart import HANDLED, chart_rate, chart_rate_batch
    from geomech.multibody.model.frame import JointFrame

    if type(system.frame) is not JointFrame:
        return None
    model = system.frame.model  # the chart is the frame's: its model's joints
    if getattr(model, "is_closed", False):
        return None
    topo = model.compiled.topo
    if not all(code in HANDLED for code in topo[:-1, JTYPE]):
        return None
    nq, nv = model.nq, model.nv
    one = np.ones(1)

    def retract(q_c, delta):  # q = q_c ⊕ δ
        if q_c.ndim == 1 and delta.ndim == 1:
            out = np.empty(nq)
            if integrate(topo, q_c, delta, 1.0, out) != 0:
                out[:] = np.nan
            return out
        lead = np.broadcast_shapes(q_c.shape[:-1], delta.shape[:-1])
        out = np.empty(lead + (nq,))
        flat = out.reshape(-1, nq)
        status = np.zeros(flat.shape[0], dtype=np.int64)
        integrate_batch(
            topo,
            np.ascontiguousarray(np.broadcast_to(q_c, lead + (nq,))).reshape(-1, nq),
            np.ascontiguousarray(np.broadcast_to(delta, lead + (nv,))).reshape(-1, nv),
            one,
            flat,
            status,
        )
        flat[status != 0] = np.nan
        return out

    def rate(q_c, delta, xi):
        delta, xi = np.asarray(delta, dtype=float), np.asarray(xi, dtype=float)
        if delta.ndim == 1 and xi.ndim == 1:
            out = np.empty(nv)
            chart_rate(topo, delta, xi, out)
            return out
        lead = np.broadcast_shapes(q_c.shape[:-1], delta.shape[:-1], xi.shape[:-1])
        out = np.empty(lead + (nv,))
        chart_rate_batch(
            topo,
            np.ascontiguousarray(np.broadcast_to(delta, out.shape)).reshape(-1, nv),
            np.ascontiguousarray(np.broadcast_to(xi, out.shape)).reshape(-1, nv),
            out.reshape(-1, nv),
        )
        return out

    return retract, rate


def _compiled_closed_chart(system):
    r"""``(retract, rate, acceleration)`` of a closed model's joint frame by the compiled
    kernels, or ``None``.

    For a closed model whose clusters the compiled closure handles
    (:mod:`geomech.multibody._kernels.cluster.closure`): the retraction
    :math:`q_c \oplus \delta` is ``model.integrate(q_c, δ)`` (the independent coordinates
    moved, the dependent ones closed by Gauss–Newton per cluster) in one kernel call; the
    chart rate is that of the independent joints (the spanning tree's chart-rate kernel on
    their columns); the acceleration is C-ABA (seed 004 Alg. 1) on the kernels' ``G`` and
    ``g``. The integrator's own states are not validated again: they come out of the
    closure kernel, closed to rounding. A non-finite step gives NaN (as
    :class:`_FiniteGuard`); any failure of a kernel falls back to the public functions,
    which raise the named error.
    """
    from geomech.multibody._kernels.cluster import constraints as CC
    from geomech.multibody._kernels.cluster import dynamics as CK
    from geomech.multibody._kernels.cluster.closure import INTEGRATE, closure_batch
    from geomech.multibody._kernels.cluster.compiled import cluster_layout
    from geomech.multibody._kernels.tree.chart import chart_rate, chart_rate_batch
    from geomech.multibody.closed._closure import compiled_closure
    from geomech.multibody.closed.constraints import NEWTON_TOL
    from geomech.multibody.model.frame import JointFrame

    if type(system.frame) is not JointFrame:
        return None
    model = system.frame.model
    if not getattr(model, "is_closed", False) or compiled_closure(model) is None:
        return None
    cl, lay = compiled_closure(model), cluster_layout(model)
    cm = model.spanning_tree.compiled
    nq, nv, n_s = model.nq, model.nv, model.spanning_tree.nv
    yv = np.asarray(model.independent_v_index)
    curved = bool(np.any(np.asarray(getattr(system.frame, "curved", np.zeros(0)), bool)))
    S, S_ring, T_user = cm.joint_arrays(np.zeros((1, nq)))
    no_forces = np.zeros((1, 0, 6))

    def rows(x, lead, n):
        return np.ascontiguousarray(np.broadcast_to(x, lead + (n,)), dtype=float).reshape(-1, n)

    args, one_res, one_status = cl._args, np.empty(1), np.empty(1, dtype=np.int64)

    def retract(q_c, delta):  # q = q_c ⊕ δ on the closure manifold
        if q_c.ndim == 1 and delta.ndim == 1 and q_c.dtype == delta.dtype == np.float64:
            out = np.empty((1, nq))  # one state: the kernel directly (the integrator's loop)
            closure_batch(*args, INTEGRATE, np.ascontiguousarray(q_c)[None],
                          np.ascontiguousarray(delta)[None], NEWTON_TOL, 50, out, one_res,
                          one_status)  # fmt: skip
            if one_status[0] == 0:
                return out[0]
        lead = np.broadcast_shapes(q_c.shape[:-1], delta.shape[:-1])
        Q, D = rows(q_c, lead, nq), rows(delta, lead, nv)
        finite = np.isfinite(D).all(axis=1)
        out, res, status = cl.run(INTEGRATE, Q, np.where(finite[:, None], D, 0.0))
        out[~finite] = np.nan
        bad = np.flatnonzero(status != 0)
        if bad.size:  # the public function's named error (SingularityError, located)
            return model.integrate(Q[bad[0]], D[bad[0]]).reshape(lead + (nq,))
        return out.reshape(lead + (nq,))

    def rate(q_c, delta, xi):  # δ̇ = J_r(δ)⁻¹ ξ on the independent joints
        lead = np.broadcast_shapes(q_c.shape[:-1], np.shape(delta)[:-1], np.shape(xi)[:-1])
        if not curved:
            return np.array(np.broadcast_to(xi, lead + (nv,)), dtype=float)
        if not lead:  # one state: the spanning tree's kernel on the independent columns
            Ds, Xs, out = np.zeros(n_s), np.zeros(n_s), np.empty(n_s)
            Ds[yv], Xs[yv] = delta, xi
            chart_rate(cm.topo, Ds, Xs, out)
            return out[yv]
        D, X = rows(delta, lead, nv), rows(xi, lead, nv)
        Ds, Xs = np.zeros((D.shape[0], n_s)), np.zeros((D.shape[0], n_s))
        Ds[:, yv], Xs[:, yv] = D, X
        out = np.empty_like(Ds)
        chart_rate_batch(cm.topo, Ds, Xs, out)
        return out[:, yv].reshape(lead + (nv,))

    kc_args = None if lay.all_static else (*cm.arrays()[:3], T_user, S, lay.cbody, lay.cclus,
                                              lay.yidx, *lay._tables)  # fmt: skip
    Gc1, gs1 = np.empty((1, n_s, lay.mmax)), np.empty((1, n_s))
    Gd1, r1, s1 = np.empty((1, n_s, lay.mmax)), np.empty(1), np.empty(1, dtype=np.int64)
    half_tol = 0.5 * model.closure_tol
    zero_tau = np.zeros((1, nv))

    def acceleration(t, q, v, tau):  # C-ABA on the kernels' G and g
        if q.ndim == 1 and v.ndim == 1 and (tau is None or np.ndim(tau) == 1):
            Q, V = np.ascontiguousarray(q)[None], np.ascontiguousarray(v)[None]
            TAU = zero_tau if tau is None else np.ascontiguousarray(tau, dtype=float)[None]
            Gc, gs = lay._G_const, lay._g_zero
            if kc_args is not None:  # one state: the kernels directly (the integrator's loop)
                CC.cluster_constraints_batch(*kc_args, Q, V, Gc1, gs1, Gd1, r1, s1)
                Gc, gs = Gc1, gs1
            if kc_args is None or (s1[0] == 0 and r1[0] <= half_tol):
                A = np.empty((1, nv))
                if not CK.c_aba_batch(*cm.arrays(), lay.cbody, lay.cclus, lay.yidx, S, S_ring,
                                      T_user, Gc, gs, Q, V, TAU, cm.a0, no_forces, A,
                                      s1):  # fmt: skip
                    return A[0]
        lead = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
        Q, V = rows(q, lead, nq), rows(v, lead, nv)
        TAU = np.zeros((1, nv)) if tau is None else rows(tau, lead, nv)
        B = Q.shape[0]
        if lay.all_static:
            Gc, gs, ok = lay._G_const, lay._g_zero, True
        else:
            Gc, gs, _, res, status = lay._kernel(Q, V)
            ok = not np.any(status) and np.all(res <= 0.5 * model.closure_tol)
        if ok:
            A, status = np.empty((B, nv)), np.empty(B, dtype=np.int64)
            failed = CK.c_aba_batch(*cm.arrays(), lay.cbody, lay.cclus, lay.yidx, S, S_ring,
                                    T_user, Gc, gs, Q, V, TAU, cm.a0, no_forces, A,
                                    status)  # fmt: skip
            if not failed:
                return A.reshape(lead + (nv,))
        return system.forward_dynamics(q, v, tau)  # the named error

    return retract, rate, acceleration
