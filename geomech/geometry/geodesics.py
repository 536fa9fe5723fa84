r"""Geodesics and parallel transport of an affine connection, integrated on the manifold.

A curve :math:`\gamma` with :math:`\dot\gamma = X_i v^i` is a geodesic of :math:`\nabla` iff
:math:`\nabla_{\dot\gamma}\dot\gamma = 0`, and :math:`Z = X_i w^i` is parallel along it iff
:math:`\nabla_{\dot\gamma} Z = 0` (seed 000 §III):

.. math::
    \dot v^i = -\Gamma^i_{jk}(q)\, v^j v^k, \qquad
    \dot w^i = -\Gamma^i_{jk}(q)\, v^j w^k .

The configuration is never updated by adding to coordinates: each step integrates, with
:func:`scipy.integrate.solve_ivp` (DOP853), in the chart :math:`\phi \mapsto
\mathrm{flow}(q_c, \phi, 1)` centred at the current point :math:`q_c` (:math:`q_c
\exp(\hat\phi)` on a group, :math:`q_c + \phi` on :math:`\mathbb R^n`), with
:math:`\dot\phi` from the frame's ``chart_velocity`` (:math:`J_r(\phi)^{-1} v` on a group),
and the chart is re-centred at the end of the step. Steps are short enough that
:math:`|\phi| \le` ``max_chart_step`` (away from chart singularities).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

from geomech._validation import as_array
from geomech.errors import DimensionError, GeomechError

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
    _segments: list = field(default_factory=list, repr=False, compare=False)
    _frame: object = field(default=None, repr=False, compare=False)
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
        GeomechError
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
        if not self._segments or not (self.t[0] <= s <= self.t[-1]):
            raise GeomechError(
                f"Expected a time in [{self.t[0]}, {self.t[-1]}] of a dense trajectory, got {s}."
            )
        for segment in self._segments:
            if s <= segment[1]:
                break
        _a, _b, qc, sol = segment
        N, n = qc.shape[0], self.v.shape[-1]
        phi, v = sol.sol(s).reshape(2, N, n)
        q = self._frame.flow(qc, phi, 1.0)
        return (q.reshape(self._batch + q.shape[1:]), v.reshape(self._batch + v.shape[1:]))


def integrate_geodesic(connection, q0, v0, t, *, rtol=1e-10, atol=1e-12, max_chart_step=0.5):
    """Integrate the geodesic of ``connection`` from ``(q0, v0)``; see the module docstring.

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
        Largest ``|v|_inf * dt`` per chart (re-centring interval).

    Returns
    -------
    Trajectory

    Raises
    ------
    DimensionError
        If an input has the wrong shape or ``t`` is not strictly increasing.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import LeviCivitaConnection, integrate_geodesic
    >>> from geomech.geometry.examples import point_mass
    >>> traj = integrate_geodesic(LeviCivitaConnection(point_mass()), np.zeros(3), np.ones(3), [0, 1])
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
    qc = np.broadcast_to(q0, batch + ps).reshape((N,) + ps).copy()
    v = np.broadcast_to(v0, batch + (n,)).reshape(N, n).copy()

    def rhs(s, y, qc=None):
        phi, vv = y.reshape(2, N, n)
        q = frame.flow(qc, phi, 1.0)
        G2 = connection._second_kind(q)
        phi_dot = frame.chart_velocity(qc, phi, vv)
        v_dot = -np.einsum("nijk,nj,nk->ni", G2, vv, vv)  # nabla_v v = 0
        return np.concatenate([phi_dot.ravel(), v_dot.ravel()])

    qs, vs, segments = [qc.copy()], [v.copy()], []
    for a, b in zip(t[:-1], t[1:], strict=True):
        m = max(1, int(np.ceil((b - a) * np.max(np.abs(v), initial=0.0) / max_chart_step)))
        edges = np.linspace(a, b, m + 1)
        for a_, b_ in zip(edges[:-1], edges[1:], strict=True):
            y0 = np.concatenate([np.zeros(N * n), v.ravel()])
            sol = solve_ivp(rhs, (a_, b_), y0, method="DOP853", rtol=rtol, atol=atol,
                            dense_output=True, args=(qc,))
            if not sol.success:
                raise GeomechError(f"Geodesic integration failed at t = {a_}: {sol.message}")
            segments.append((a_, b_, qc, sol))
            phi, v = sol.y[:, -1].reshape(2, N, n)
            qc = frame.flow(qc, phi, 1.0)  # re-centre the chart
        qs.append(qc.copy())
        vs.append(v.copy())
    q_out = np.stack(qs, 1).reshape(batch + (t.size,) + ps)
    v_out = np.stack(vs, 1).reshape(batch + (t.size, n))
    return Trajectory(t, q_out, v_out, segments, frame, batch)


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

    def rhs(s, y):
        q, v = curve.state(s)
        G2 = connection._second_kind(q)
        w = y.reshape(wshape)
        return -np.einsum("...ijk,...j,...k->...i", G2, v, w).ravel()

    if t.size == 1:
        return w0[..., None, :].copy()
    sol = solve_ivp(rhs, (t[0], t[-1]), w0.ravel(), method="DOP853", t_eval=t, rtol=rtol,
                    atol=atol)
    if not sol.success:
        raise GeomechError(f"Parallel transport failed: {sol.message}")
    return np.moveaxis(sol.y.reshape(wshape + (t.size,)), -1, -2)
