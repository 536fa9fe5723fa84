r"""Geodesics and parallel transport of an affine connection, integrated on the manifold.

A curve :math:`\gamma` with :math:`\dot\gamma = X_i v^i` is a geodesic of :math:`\nabla` iff
:math:`\nabla_{\dot\gamma}\dot\gamma = 0`, and :math:`Z = X_i w^i` is parallel along it iff
:math:`\nabla_{\dot\gamma} Z = 0` (seed 000 §III):

.. math::
    \dot v^i = -\Gamma^i_{jk}(q)\, v^j v^k, \qquad
    \dot w^i = -\Gamma^i_{jk}(q)\, v^j w^k .

The configuration is never updated by adding to coordinates: the geodesic is integrated by
the integration core (:func:`geomech.integration.integrate_adaptive`, DOP853) in the frame's
chart :math:`\phi \mapsto \mathrm{flow}(q_c, \phi, 1)` centred at a point :math:`q_c` of
the curve (:math:`q_c \exp(\hat\phi)` on a group, :math:`q_c + \phi` on
:math:`\mathbb R^n`; :func:`geomech.integration.frame_chart`), with :math:`\dot\phi` from
the frame's ``chart_velocity`` (:math:`J_r(\phi)^{-1} v` on a group), and the chart is
re-centred at the end of a step once :math:`|\phi|_\infty` exceeds ``max_chart_step`` (away
from chart singularities). Parallel transport integrates the linear ODE for :math:`w` along
the curve's dense output with the same core.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from geomech._validation import as_array
from geomech.errors import DimensionError, SimulationError
from geomech.integration import frame_chart, integrate_adaptive, vector_chart

__all__ = ["Trajectory", "integrate_geodesic", "integrate_parallel_transport"]


def _times(t) -> np.ndarray:
    t = as_array(t, "t")
    if t.ndim != 1 or t.size < 1:
        raise DimensionError(f"Expected `t` to be a 1-D array of times, got shape {t.shape}.")
    if t.size > 1 and np.any(np.diff(t) <= 0):
        raise DimensionError("Expected `t` to be strictly increasing, got a non-increasing step.")
    return t


@dataclass(frozen=True)
class Trajectory:
    r"""A sampled curve on the configuration manifold, with its dense interpolant.

    Parameters
    ----------
    t : ndarray, shape (T,)
        Sample times.
    q : ndarray, shape (..., T, *point_shape)
        Configurations at ``t``.
    v : ndarray, shape (..., T, n)
        Frame components of the velocity, :math:`\dot q = X_i v^i`.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import LeviCivitaConnection
    >>> from geomech.geometry.examples import point_mass
    >>> traj = LeviCivitaConnection(point_mass()).geodesic(np.zeros(3), [1.0, 0, 0], [0, 1, 2])
    >>> traj.q[:, 0]
    array([0., 1., 2.])
    >>> q, v = traj.state(0.5)
    >>> q
    array([0.5, 0. , 0. ])
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    _dense: object = field(default=None, repr=False, compare=False)
    _batch: tuple = field(default=(), repr=False, compare=False)

    def state(self, s):
        """Configuration and speeds at time ``s`` (dense output of the integrator).

        Parameters
        ----------
        s : float
            A time in ``[t[0], t[-1]]``.

        Returns
        -------
        q : ndarray, shape (..., *point_shape)
        v : ndarray, shape (..., n)

        Raises
        ------
        SimulationError
            If ``s`` is outside the integration interval or the trajectory has no dense output.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LeviCivitaConnection
        >>> from geomech.geometry.examples import point_mass
        >>> traj = LeviCivitaConnection(point_mass()).geodesic(np.zeros(3), [0, 2.0, 0], [0, 1])
        >>> traj.state(0.25)[0]
        array([0. , 0.5, 0. ])
        """
        s = float(s)
        if self._dense is None or not (self.t[0] <= s <= self.t[-1]):
            raise SimulationError(
                f"Expected a time in [{self.t[0]}, {self.t[-1]}] of a dense trajectory, got {s}."
            )
        q, v = self._dense(s)
        return (q.reshape(self._batch + q.shape[1:]), v.reshape(self._batch + v.shape[1:]))


def integrate_geodesic(connection, q0, v0, t, *, rtol=1e-10, atol=1e-12, max_chart_step=0.5):
    r"""Integrate the geodesic of ``connection`` from ``(q0, v0)``; see the module docstring.

    Parameters
    ----------
    connection : AffineConnection
    q0 : array_like, shape (..., *point_shape)
        Initial configuration(s) at ``t[0]``.
    v0 : array_like, shape (..., n)
        Initial speeds; leading dimensions broadcast with ``q0``'s.
    t : array_like, shape (T,)
        Strictly increasing output times.
    rtol, atol : float
        Tolerances of DOP853.
    max_chart_step : float
        Largest chart coordinate :math:`|\phi|_\infty` before the chart is re-centred.

    Returns
    -------
    Trajectory

    Raises
    ------
    DimensionError
        If an input has the wrong shape or ``t`` is not strictly increasing.
    SimulationBudgetError, NonFiniteError, SimulationError
        If the integration exceeds its budget (:class:`geomech.integration.Budget`), blows
        up or fails.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import LeviCivitaConnection, integrate_geodesic
    >>> from geomech.geometry.examples import point_mass
    >>> conn = LeviCivitaConnection(point_mass())
    >>> traj = integrate_geodesic(conn, np.zeros(3), np.ones(3), [0, 1])
    >>> traj.q[-1]
    array([1., 1., 1.])
    """
    system = connection.system
    frame = system.frame
    n = system.dim
    t = _times(t)
    q0 = system._point(q0, "q0")
    v0 = as_array(v0, "v0", (n,))
    ps = tuple(frame.point_shape)
    batch = np.broadcast_shapes(q0.shape[: q0.ndim - len(ps)], v0.shape[:-1])
    N = int(np.prod(batch, dtype=int))
    q = np.broadcast_to(q0, batch + ps).reshape((N,) + ps).copy()
    v = np.broadcast_to(v0, batch + (n,)).reshape(N, n).copy()

    def field_(s, q, v):  # q̇ = X_i v^i, v̇^i = -Γ^i_jk v^j v^k (∇_v v = 0)
        return v, -np.einsum("nijk,nj,nk->ni", connection._second_kind(q), v, v)

    run = integrate_adaptive(
        frame_chart(frame),
        field_,
        "DOP853",
        t,
        q,
        v,
        rtol=rtol,
        atol=atol,
        chart_limit=max_chart_step,
        dense=True,
    )
    q_out = np.moveaxis(run.q, 0, 1).reshape(batch + (t.size,) + ps)
    v_out = np.moveaxis(run.y, 0, 1).reshape(batch + (t.size, n))
    return Trajectory(t, q_out, v_out, run.dense, batch)


def integrate_parallel_transport(connection, curve, w0, t=None, *, rtol=1e-10, atol=1e-12):
    r"""Parallel-transport ``w0`` along ``curve``: :math:`\dot w^i = -\Gamma^i_{jk} v^j w^k`.

    Parameters
    ----------
    connection : AffineConnection
    curve : Trajectory
        Any object with ``t`` (its time interval is ``[t[0], t[-1]]``) and ``state(s) ->
        (q, v)``, e.g. the result of :meth:`AffineConnection.geodesic`.
    w0 : array_like, shape (..., n)
        Frame components of the vector(s) at ``curve.t[0]``; leading dimensions broadcast
        with the curve's batch shape (e.g. ``(3, n)`` transports a triad along one curve).
    t : array_like, shape (T,), optional
        Output times (default ``curve.t``).
    rtol, atol : float
        Tolerances of DOP853.

    Returns
    -------
    ndarray, shape (..., T, n)
        Frame components of the transported vectors.

    Raises
    ------
    DimensionError
        If ``w0`` has the wrong trailing shape or ``t`` is not increasing.
    SimulationBudgetError, NonFiniteError, SimulationError
        If the integration exceeds its budget (:class:`geomech.integration.Budget`), blows
        up or fails.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import LeviCivitaConnection, integrate_parallel_transport
    >>> from geomech.geometry.examples import point_mass
    >>> lc = LeviCivitaConnection(point_mass())
    >>> curve = lc.geodesic(np.zeros(3), [1.0, 0, 0], [0.0, 1.0])
    >>> integrate_parallel_transport(lc, curve, np.eye(3))[:, -1]  # Euclidean: constant
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])
    """
    n = connection.system.dim
    t = _times(curve.t if t is None else t)
    w0 = as_array(w0, "w0", (n,))
    q_a, v_a = curve.state(t[0])
    wshape = np.broadcast_shapes(w0.shape, v_a.shape)
    w0 = np.broadcast_to(w0, wshape)

    empty = np.zeros(wshape[:-1] + (0,))  # no configuration: a plain ODE for w (vector_chart(0))

    def field_(s, _, w):  # ẇ^i = -Γ^i_jk(q) v^j w^k along the curve (q, v)(s)
        q, v = curve.state(s)
        return empty, -np.einsum("...ijk,...j,...k->...i", connection._second_kind(q), v, w)

    run = integrate_adaptive(
        vector_chart(0), field_, "DOP853", t, empty, w0.copy(), rtol=rtol, atol=atol
    )
    return np.moveaxis(run.y, 0, -2)
