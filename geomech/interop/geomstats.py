r"""geomstats interop: geomech connections on geomstats' solvers, geomstats metrics as systems.

:func:`to_geomstats` exposes a geomech :class:`~geomech.geometry.AffineConnection` as a
geomstats connection on the geomstats space of its configuration manifold
(:meth:`geomech.lie.LieGroup.to_geomstats`), so that geomstats' own solvers run on it:
``exp`` (its ODE solver, here with SciPy's DOP853), ``log`` (its shooting solver),
``geodesic`` (initial-value and boundary-value forms), ``ladder_parallel_transport``
(pole and Schild ladders) and ``parallel_transport`` (the transport equation on geomstats'
ODE integrator). The Levi-Civita connection of a system comes out as a geomstats
``RiemannianMetric`` (``inner_product``, ``norm``, ``dist`` too).
:func:`from_geomstats` goes the other way: a geomstats ``RiemannianMetric`` becomes a
:class:`~geomech.geometry.MechanicalSystem` (its kinetic-energy metric is the geomstats
metric), whose geomech connections, geodesics and transport can then be compared with
geomstats'.

Representations
---------------
geomstats works with points and tangent vectors in the ambient representation of the
space; geomech with points and *frame components* :math:`v` of velocities,
:math:`\dot q = X_i(q)\,v^i`. The maps, for the frames supported:

- coordinate frame on :math:`\mathbb R^n` (``Euclidean(n)``, or coordinates on an open set
  such as the Poincaré half-plane): ``q`` the same vector, :math:`\dot q = v`;
- left-invariant frame on a matrix group (SO(3), SE(2), SE(3), the Schönflies group, which
  geomstats sees inside SE(3)): ``q`` the same matrix, :math:`\dot q = q\,\hat v`;
- right-invariant frame: :math:`\dot q = \hat v\,q`.

In these representations the geodesic equation of :math:`\nabla` (seed 000 §III),
:math:`\dot v^i = -\Gamma^i_{jk} v^j v^k`, reads :math:`\ddot q = \dot q\,\hat v + q\,\hat{\dot v}`
(left), :math:`\ddot q = \hat{\dot v}\,q + \hat v\,\dot q` (right) or :math:`\ddot q = \dot v`
(coordinates), and that is the ``geodesic_equation`` geomstats integrates; on coordinates
``christoffels`` are geomech's :math:`\Gamma^i_{jk}` (contravariant index first, geomstats'
layout). Parallel transport integrates :math:`\dot w^i = -\Gamma^i_{jk} v^j w^k` along
the geodesic in the same way.

References
----------
Seed 000 §III (geodesics and parallel transport of an affine connection); N. Miolane et al.,
"Geomstats: a Python package for Riemannian geometry in machine learning", JMLR 21, 2020;
N. Guigui, X. Pennec, "A reduced parallel transport equation on Lie groups with a
left-invariant metric", GSI 2021 (geomstats' transport).
"""

from __future__ import annotations

import numpy as np

from geomech.errors import ConnectionSpecError, ConvergenceError
from geomech.geometry.connection import AffineConnection
from geomech.geometry.frames import CoordinateFrame, LeftInvariantFrame, RightInvariantFrame
from geomech.geometry.levi_civita import LeviCivitaConnection
from geomech.geometry.system import MechanicalSystem
from geomech.lie import SE2, SE3, SO3, Euclidean, Schoenflies

__all__ = ["to_geomstats", "from_geomstats", "frame_components", "ambient_tangent"]

#: Groups whose geomstats space has the same matrices and tangent matrices.
_MATRIX_GROUPS = (SO3, SE2, SE3, Schoenflies)


# ----------------------------------------------------------------------------------------
# The frame in geomstats' ambient representation
# ----------------------------------------------------------------------------------------
class _Representation:
    """Frame fields of a system in the ambient representation of its geomstats space."""

    def __init__(self, frame):
        self.frame = frame
        if isinstance(frame, CoordinateFrame) or (
            isinstance(frame, LeftInvariantFrame) and isinstance(frame.group, Euclidean)
        ):
            self.kind, self.group = "coordinates", None
        elif isinstance(frame, (LeftInvariantFrame, RightInvariantFrame)) and any(
            frame.group is G for G in _MATRIX_GROUPS
        ):
            self.kind = "right" if isinstance(frame, RightInvariantFrame) else "left"
            self.group = frame.group
        else:
            raise ConnectionSpecError(
                f"Expected a system on coordinates (CoordinateFrame, Euclidean(n)) or with a "
                f"left- or right-invariant frame on SO(3), SE(2), SE(3) or the Schönflies "
                f"group, got the frame {frame!r}: geomstats has no matching space."
            )
        self.point_shape = tuple(frame.point_shape)
        self.dim = int(frame.dim)

    def space(self):
        """A fresh geomstats space (the metric is set by the caller)."""
        if self.kind == "coordinates":
            from geomstats.geometry.euclidean import Euclidean as GsEuclidean

            return GsEuclidean(self.dim, equip=False)
        from geomstats.geometry.special_euclidean import SpecialEuclidean
        from geomstats.geometry.special_orthogonal import SpecialOrthogonal

        if self.group is SO3:
            return SpecialOrthogonal(3, equip=False)
        return SpecialEuclidean(2 if self.group is SE2 else 3, equip=False)

    def project(self, q):
        """The nearest group element (integrator stages leave the group by ~h²)."""
        q = np.asarray(q, dtype=float)
        if self.kind == "coordinates":
            return q
        out = np.array(q)
        k = 3 if self.group is not SE2 else 2
        R = q[..., :k, :k]
        if self.group is Schoenflies:  # a rotation about z
            th = np.arctan2(R[..., 1, 0] - R[..., 0, 1], R[..., 0, 0] + R[..., 1, 1])
            c, s = np.cos(th), np.sin(th)
            Rp = np.zeros(R.shape)
            Rp[..., 0, 0], Rp[..., 0, 1], Rp[..., 1, 0], Rp[..., 1, 1] = c, -s, s, c
            Rp[..., 2, 2] = 1.0
        else:
            U, _, Vt = np.linalg.svd(R)
            Rp = U @ Vt
        out[..., :k, :k] = Rp
        if self.group is not SO3:
            out[..., -1, :] = 0.0
            out[..., -1, -1] = 1.0
        return out

    def _hat(self, v):
        return self.group._hat(np.asarray(v, dtype=float))

    def _vee(self, A):
        return self.group._vee(np.asarray(A, dtype=float))

    def tangent(self, q, v):
        """Ambient tangent vector ``X_i(q) v^i``."""
        if self.kind == "coordinates":
            return np.asarray(v, dtype=float)
        V = self._hat(v)
        return q @ V if self.kind == "left" else V @ q

    def components(self, q, qdot):
        """Frame components ``v`` of an ambient tangent vector at ``q``."""
        if self.kind == "coordinates":
            return np.asarray(qdot, dtype=float)
        qinv = np.linalg.inv(q)  # general inverse: integrated points drift off the group
        return self._vee(qinv @ qdot if self.kind == "left" else qdot @ qinv)

    def rate(self, q, qdot, v, w, wdot):
        """Time derivative of ``X_i(q(t)) w^i(t)`` along ``q(t)`` with speeds ``v``."""
        if self.kind == "coordinates":
            return wdot
        W, Wdot = self._hat(w), self._hat(wdot)
        if self.kind == "left":
            return qdot @ W + q @ Wdot
        return Wdot @ q + W @ qdot


def _representation(system) -> _Representation:
    return _Representation(system.frame)


def frame_components(system, q, tangent_vec) -> np.ndarray:
    r"""Frame components :math:`v` of a geomstats tangent vector: :math:`\dot q = X_i(q) v^i`.

    Parameters
    ----------
    system : MechanicalSystem
        On coordinates or with a left- or right-invariant frame on SO(3), SE(2), SE(3) or
        the Schönflies group.
    q : array_like, shape (..., *point_shape)
    tangent_vec : array_like, shape (..., *point_shape)
        In geomstats' ambient representation (``q @ hat(v)`` for a left-invariant frame).

    Returns
    -------
    ndarray, shape (..., n)

    Raises
    ------
    ConnectionSpecError
        If geomstats has no space matching the system's frame.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples import rigid_body_se3
    >>> from geomech.interop.geomstats import ambient_tangent, frame_components
    >>> from geomech.lie import SE3
    >>> body = rigid_body_se3(np.eye(6))
    >>> q, v = SE3.exp([0.1, 0.2, 0.3, 1.0, 0.0, 0.0]), np.arange(6.0)
    >>> np.round(frame_components(body, q, ambient_tangent(body, q, v)), 12) + 0.0
    array([0., 1., 2., 3., 4., 5.])
    """
    rep = _representation(system)
    return rep.components(np.asarray(q, dtype=float), np.asarray(tangent_vec, dtype=float))


def ambient_tangent(system, q, v) -> np.ndarray:
    r"""The geomstats (ambient) tangent vector :math:`X_i(q) v^i` of frame components ``v``.

    Parameters
    ----------
    system : MechanicalSystem
    q : array_like, shape (..., *point_shape)
    v : array_like, shape (..., n)

    Returns
    -------
    ndarray, shape (..., *point_shape)

    Raises
    ------
    ConnectionSpecError
        If geomstats has no space matching the system's frame.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples import rigid_body_so3
    >>> from geomech.interop.geomstats import ambient_tangent
    >>> ambient_tangent(rigid_body_so3(np.eye(3)), np.eye(3), [0.0, 0.0, 1.0])
    array([[ 0., -1.,  0.],
           [ 1.,  0.,  0.],
           [ 0.,  0.,  0.]])
    """
    rep = _representation(system)
    return rep.tangent(np.asarray(q, dtype=float), np.asarray(v, dtype=float))


# ----------------------------------------------------------------------------------------
# geomech -> geomstats
# ----------------------------------------------------------------------------------------
def _adapter_classes():
    """The geomstats Connection / RiemannianMetric adapters (geomstats imported lazily)."""
    from geomstats.geometry.connection import Connection
    from geomstats.geometry.riemannian_metric import RiemannianMetric
    from geomstats.numerics.geodesic import ExpODESolver, LogSolver
    from geomstats.numerics.ivp import ScipySolveIVP

    class NewtonShootingLogSolver(LogSolver):
        r"""geomstats log solver: Newton's method on the frame components of the shot.

        Solves :math:`\exp_{q_0}(X_i v^i) = q_1` for :math:`v`, from the frame's flow
        (:math:`\log(q_0^{-1} q_1)` on a group, :math:`q_1 - q_0` on coordinates), with
        the residual in the chart of :math:`q_1` and its Jacobian by central differences of
        the connection's ``exp``. geomstats' ``LogShootingSolver`` runs on these connections
        too, but minimises a squared distance whose finite-difference gradient is at the
        integrator's noise level near the solution.
        """

        def __init__(self, space, rep, tol=1e-11, max_iter=30, step=1e-6):
            super().__init__(solves_bvp=False)
            self._space, self._rep = space, rep
            self.tol, self.max_iter, self.step = tol, max_iter, step

        def _residual(self, end, point):
            rep = self._rep
            if rep.kind == "coordinates":
                return end - point
            G, end = rep.group, rep.project(end)
            return G.log(G.compose(G.inverse(point), end))

        def _log_single(self, point, base_point):
            rep, exp = self._rep, self._space.metric.exp
            if rep.kind == "coordinates":
                v = point - base_point
            elif rep.kind == "left":
                v = rep.group.log(rep.group.compose(rep.group.inverse(base_point), point))
            else:
                v = rep.group.log(rep.group.compose(point, rep.group.inverse(base_point)))

            def shoot(v):
                return self._residual(exp(rep.tangent(base_point, v), base_point), point)

            for _ in range(self.max_iter):
                r = shoot(v)
                if np.max(np.abs(r)) <= self.tol * (1.0 + np.max(np.abs(v))):
                    return rep.tangent(base_point, v)
                h = self.step * (1.0 + np.max(np.abs(v)))
                E = np.eye(v.size) * h
                J = np.stack([shoot(v + e) - shoot(v - e) for e in E], -1) / (2 * h)
                v = v - np.linalg.lstsq(J, r, rcond=None)[0]
            raise ConvergenceError(
                f"The shooting log did not converge in {self.max_iter} Newton steps "
                f"(residual {np.max(np.abs(r)):.3g}); the points may be too far apart for "
                "a unique geodesic."
            )

        def log(self, point, base_point):
            """Logarithm map (batched over leading dimensions)."""
            nd = len(self._rep.point_shape)
            point, base_point = np.broadcast_arrays(
                np.asarray(point, float), np.asarray(base_point, float)
            )
            batch = point.shape[: point.ndim - nd]
            P = point.reshape((-1,) + point.shape[point.ndim - nd :])
            B = base_point.reshape(P.shape)
            out = np.stack([self._log_single(p, b) for p, b in zip(P, B, strict=True)])
            return out.reshape(batch + out.shape[1:])

    class _GeomechGeodesics:
        """Geodesic equation, Christoffel symbols and transport from a geomech connection."""

        def _setup(self, connection, rtol, atol):
            self.geomech_connection = connection
            self.system = connection.system
            self._rep = _representation(connection.system)
            ndim = len(self._rep.point_shape)
            self._ivp = dict(method="DOP853", rtol=rtol, atol=atol, point_ndim=ndim)
            self.exp_solver = ExpODESolver(self._space, integrator=ScipySolveIVP(**self._ivp))
            self.log_solver = NewtonShootingLogSolver(self._space, self._rep)

        @property
        def space(self):
            """The geomstats space this connection is equipped on."""
            return self._space

        def christoffels(self, base_point=None):
            r""":math:`\Gamma^k_{ij}` (contravariant index first), on coordinates only."""
            if self._rep.kind != "coordinates":
                raise ConnectionSpecError(
                    "Christoffel symbols in geomstats' ambient matrix coordinates are not "
                    "defined here; the geodesic equation uses geomech's frame instead."
                )
            return self.geomech_connection._second_kind(np.asarray(base_point, dtype=float))

        def geodesic_equation(self, state):
            """``[q_dot, q_ddot]`` from ``[q, q_dot]`` (geomech's geodesic equation)."""
            rep = self._rep
            nd = len(rep.point_shape)
            axis = -(nd + 1)
            q = np.take(state, 0, axis=axis)
            qdot = np.take(state, 1, axis=axis)
            v = rep.components(q, qdot)
            G2 = self.geomech_connection._second_kind(rep.project(q))
            vdot = -np.einsum("...ijk,...j,...k->...i", G2, v, v)
            return np.stack([qdot, rep.rate(q, qdot, v, v, vdot)], axis=axis)

        def log(self, point, base_point):
            """The solver's log, projected on the tangent space (frame components kept)."""
            raw = super().log(point, base_point)
            rep = self._rep
            return rep.tangent(base_point, rep.components(base_point, raw))

        def parallel_transport(self, tangent_vec, base_point, direction=None, end_point=None):
            r"""Transport along the geodesic :math:`t \mapsto \exp(t\,d)`, ``t`` in [0, 1].

            Integrates :math:`\dot w^i = -\Gamma^i_{jk} v^j w^k` with the geodesic on
            geomstats' ODE integrator (SciPy's DOP853); ``direction`` defaults to
            ``log(end_point, base_point)``.
            """
            if direction is None:
                if end_point is None:
                    raise ConnectionSpecError(
                        "Expected a `direction` or an `end_point` to transport along, got neither."
                    )
                direction = self.log(end_point, base_point)
            rep = self._rep
            nd = len(rep.point_shape)
            axis = -(nd + 1)
            conn = self.geomech_connection

            def force(state, _t):
                q = np.take(state, 0, axis=axis)
                qdot = np.take(state, 1, axis=axis)
                W = np.take(state, 2, axis=axis)
                v, w = rep.components(q, qdot), rep.components(q, W)
                G2 = conn._second_kind(rep.project(q))
                vdot = -np.einsum("...ijk,...j,...k->...i", G2, v, v)
                wdot = -np.einsum("...ijk,...j,...k->...i", G2, v, w)
                return np.stack([qdot, rep.rate(q, qdot, v, v, vdot),
                                 rep.rate(q, qdot, v, w, wdot)], axis=axis)  # fmt: skip

            base_point, direction, tangent_vec = np.broadcast_arrays(
                np.asarray(base_point, float), np.asarray(direction, float),
                np.asarray(tangent_vec, float))  # fmt: skip
            state = np.stack([base_point, direction, tangent_vec], axis=axis)
            result = ScipySolveIVP(**self._ivp).integrate(force, state, end_time=1.0)
            return np.take(result.get_last_y(), 2, axis=axis)

    class GeomstatsConnection(_GeomechGeodesics, Connection):
        """A geomech affine connection as a geomstats ``Connection``."""

        def __init__(self, space, connection, rtol=1e-12, atol=1e-12):
            Connection.__init__(self, space)
            self._setup(connection, rtol, atol)

    class GeomstatsMetric(_GeomechGeodesics, RiemannianMetric):
        """A geomech Levi-Civita connection as a geomstats ``RiemannianMetric``."""

        def __init__(self, space, connection, rtol=1e-12, atol=1e-12):
            RiemannianMetric.__init__(self, space)
            self._setup(connection, rtol, atol)

        def metric_matrix(self, base_point=None):
            """:math:`H(q)` (coordinates) or :math:`H` in the frame (groups)."""
            return self.system._H(np.asarray(base_point, dtype=float))

        def inner_product(self, tangent_vec_a, tangent_vec_b, base_point=None):
            r""":math:`v_a^\top H(q) v_b` with the frame components of the two vectors."""
            rep = self._rep
            q = np.asarray(base_point, dtype=float)
            va = rep.components(q, tangent_vec_a)
            vb = rep.components(q, tangent_vec_b)
            return np.einsum("...i,...ij,...j->...", va, self.system._H(q), vb)

    return GeomstatsConnection, GeomstatsMetric


def to_geomstats(connection, *, rtol: float = 1e-12, atol: float = 1e-12):
    r"""A geomech connection as a geomstats connection (a metric for Levi-Civita).

    The result is equipped on a fresh geomstats space of the system's manifold
    (``result.space``; ``result.space.metric is result``): ``Euclidean(n)`` for coordinates,
    ``SpecialOrthogonal(3)`` or ``SpecialEuclidean(2 or 3)`` (matrices) for the groups. Its
    ``geodesic_equation`` is geomech's (module docstring), its ``exp_solver`` geomstats'
    ``ExpODESolver`` on SciPy's DOP853 with the given tolerances, its ``log_solver`` a
    geomstats ``LogSolver`` shooting by Newton's method in the frame components (geomstats'
    own ``LogShootingSolver`` can be set instead: it runs, but minimises a squared distance
    with finite-difference gradients and stalls near the solution); geomstats' ``geodesic``
    (from a point and a velocity or between two points), ``dist`` and
    ``ladder_parallel_transport`` use them, and ``parallel_transport`` integrates the
    transport equation with geomstats' integrator. A
    :class:`~geomech.geometry.LeviCivitaConnection` gives a geomstats ``RiemannianMetric``
    whose ``inner_product`` is the kinetic-energy metric, so ``norm`` and ``dist`` work too.

    Parameters
    ----------
    connection : AffineConnection
        On a system with a coordinate frame, or a left- or right-invariant frame on SO(3),
        SE(2), SE(3) or the Schönflies group.
    rtol, atol : float
        Tolerances of the ODE integrations.

    Returns
    -------
    geomstats.geometry.connection.Connection or
    geomstats.geometry.riemannian_metric.RiemannianMetric

    Raises
    ------
    ConnectionSpecError
        If ``connection`` is not an :class:`~geomech.geometry.AffineConnection` or geomstats
        has no space matching its system's frame.

    References
    ----------
    Seed 000 §III.

    Examples
    --------
    A rigid body on SO(3): geomstats' exponential of its Levi-Civita connection is the
    motion of the free body (Euler's equations), equal to geomech's geodesic.

    >>> import numpy as np
    >>> from geomech.geometry import LeviCivitaConnection
    >>> from geomech.geometry.examples import rigid_body_so3
    >>> from geomech.interop.geomstats import ambient_tangent, to_geomstats
    >>> body = rigid_body_so3(np.diag([1.0, 2.0, 3.0]))
    >>> lc = LeviCivitaConnection(body)
    >>> metric = to_geomstats(lc)
    >>> type(metric).__name__, metric.space.metric is metric
    ('GeomstatsMetric', True)
    >>> v0 = np.array([0.3, 1.0, -0.5])
    >>> R1 = metric.exp(ambient_tangent(body, np.eye(3), v0), np.eye(3))
    >>> bool(np.allclose(R1, lc.geodesic(np.eye(3), v0, [0.0, 1.0]).q[-1], atol=1e-9))
    True
    """
    if not isinstance(connection, AffineConnection):
        raise ConnectionSpecError(
            f"Expected a geomech AffineConnection, got {type(connection).__name__}."
        )
    rep = _representation(connection.system)
    GeomstatsConnection, GeomstatsMetric = _adapter_classes()
    cls = GeomstatsMetric if isinstance(connection, LeviCivitaConnection) else GeomstatsConnection
    space = rep.space()
    space.equip_with_metric(cls, connection=connection, rtol=rtol, atol=atol)
    return space.metric


# ----------------------------------------------------------------------------------------
# geomstats -> geomech
# ----------------------------------------------------------------------------------------
def _gs_group(space):
    """The geomech group whose matrices are the points of a geomstats matrix-group space."""
    shape = tuple(getattr(space, "shape", ()))
    name = type(space).__name__
    if "SpecialOrthogonal" in name and shape == (3, 3):
        return SO3
    if "SpecialEuclidean" in name and shape == (3, 3):
        return SE2
    if "SpecialEuclidean" in name and shape == (4, 4):
        return SE3
    return None


def _inner(metric, a, b, q, ndim: int) -> np.ndarray:
    """``metric.inner_product`` over any batch shape (geomstats takes one batch axis)."""
    batch = q.shape[: q.ndim - ndim]
    tail = q.shape[q.ndim - ndim :]
    flat = [np.ascontiguousarray(x).reshape((-1,) + tail) for x in (a, b, q)]
    return np.asarray(metric.inner_product(*flat), dtype=float).reshape(batch)


def from_geomstats(metric) -> MechanicalSystem:
    r"""A geomstats Riemannian metric as a geomech mechanical system (its kinetic energy).

    .. math:: H_{ij}(q) = g_q\bigl(X_i(q), X_j(q)\bigr)

    with the frame of the space: the coordinate frame when the space's points are coordinate
    vectors (``Euclidean``, ``PoincareHalfSpace``, ...: :math:`X_i = \mathbf e_i`), the
    left-invariant frame of SO(3), SE(2) or SE(3) when they are matrices of those groups
    (:math:`X_i(q) = q\,\hat e_i`, so the speeds are body velocities, angular first). A
    left- or bi-invariant geomstats metric gives a constant ``H`` (evaluated at the
    identity), so the Levi-Civita connection is exact; otherwise ``H`` is evaluated at
    every ``q``.

    Note that geomstats 2.8's left-invariant matrix metric honours ``metric_mat_at_identity``
    only when it is diagonal (a non-diagonal one is silently replaced by the Frobenius
    product); the system reflects the metric geomstats actually uses.

    Parameters
    ----------
    metric : geomstats.geometry.riemannian_metric.RiemannianMetric
        Equipped on its space (``metric._space``).

    Returns
    -------
    MechanicalSystem
        Without potential.

    Raises
    ------
    ConnectionSpecError
        If ``metric`` is not a geomstats ``RiemannianMetric`` or its space's points are
        neither coordinate vectors nor SO(3), SE(2) or SE(3) matrices.

    References
    ----------
    Seed 000 §II (the metric in a frame).

    Examples
    --------
    The Poincaré half-plane, :math:`H(x, y) = \mathbf 1 / y^2`:

    >>> import numpy as np
    >>> from geomstats.geometry.poincare_half_space import PoincareHalfSpace
    >>> from geomech.interop.geomstats import from_geomstats
    >>> system = from_geomstats(PoincareHalfSpace(2).metric)
    >>> system.mass_matrix([0.3, 2.0])
    array([[0.25, 0.  ],
           [0.  , 0.25]])
    """
    from geomstats.geometry.riemannian_metric import RiemannianMetric

    if not isinstance(metric, RiemannianMetric):
        raise ConnectionSpecError(
            f"Expected a geomstats RiemannianMetric, got {type(metric).__name__}."
        )
    space = metric._space
    shape = tuple(space.shape)
    group = _gs_group(space)
    if group is not None:
        n = group.dim
        basis = group.hat(np.eye(n))  # (n, m, m): hat(e_i)

        def gram(q):
            q = np.asarray(q, dtype=float)
            X = q[..., None, :, :] @ basis  # X_i(q) = q hat(e_i)
            Xi, Xj = X[..., :, None, :, :], X[..., None, :, :, :]
            Q = q[..., None, None, :, :]
            Q, Xi, Xj = np.broadcast_arrays(Q, Xi, Xj)
            return _inner(metric, Xi, Xj, Q, 2)

        from geomstats.geometry.invariant_metric import BiInvariantMetric

        left_invariant = isinstance(metric, BiInvariantMetric) or (
            getattr(metric, "left", None) is True and hasattr(metric, "metric_mat_at_identity")
        )
        H = gram(group.identity()) if left_invariant else gram
        return MechanicalSystem(group, H)
    if len(shape) == 1 and shape[0] == space.dim:
        n = space.dim
        eye = np.eye(n)

        def H_coords(q):  # inner products of the coordinate vectors (metric_matrix is not
            q = np.asarray(q, dtype=float)  # implemented by every geomstats metric)
            Q = np.broadcast_to(q[..., None, None, :], q.shape[:-1] + (n, n, n))
            Ei = np.broadcast_to(eye[:, None, :], Q.shape)
            Ej = np.broadcast_to(eye[None, :, :], Q.shape)
            return _inner(metric, Ei, Ej, Q, 1)

        return MechanicalSystem(Euclidean(n), H_coords)
    raise ConnectionSpecError(
        f"Expected a geomstats metric on coordinate vectors or on SO(3), SE(2) or SE(3) "
        f"matrices, got one on {type(space).__name__} with points of shape {shape}."
    )
