r"""Affine connections and the Coriolis factorizations they define (seed 000 §III–IV).

An affine connection is fixed by its coefficients of the first kind in the system's frame,

.. math:: \Gamma_{ijk} = \langle\!\langle X_i, \nabla_{X_j} X_k\rangle\!\rangle
          = H_{i\ell}\, \Gamma^\ell_{jk}, \qquad \nabla_{X_j} X_k = \Gamma^i_{jk} X_i,

stored as ``Gamma[..., i, j, k]`` (first index lowered, second the direction of differentiation,
third the differentiated field; :ref:`conventions-connections`). Everything else is derived here
once: the Coriolis matrix :math:`C_{ik} = \Gamma_{ijk} v^j` (eq. 10), the covariant derivative,
torsion, contorsion, the three predicates, geodesics and parallel transport.
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array
from geomech.errors import ConnectionSpecError, DimensionError
from geomech.geometry.checks import CheckResult
from geomech.geometry.contorsion import Contorsion
from geomech.geometry.geodesics import integrate_geodesic, integrate_parallel_transport
from geomech.geometry.system import MechanicalSystem, as_mechanical_system

__all__ = ["AffineConnection"]

#: Default relative tolerance of the predicates (Lie derivatives are finite differences).
PREDICATE_TOL = 1e-6


class AffineConnection:
    r"""An affine connection on a :class:`MechanicalSystem`, given by its coefficients.

    Parameters
    ----------
    system : MechanicalSystem
        Or an object with a ``mechanical_system()`` view (a
        :class:`~geomech.rigidbody.RigidBody`), see
        :func:`~geomech.geometry.as_mechanical_system`.
    coefficients : callable or array_like, shape (n, n, n)
        :math:`\Gamma_{ijk}(q)` of the first kind: a constant array or a batched callable
        ``q -> (..., n, n, n)``.

    Attributes
    ----------
    system : MechanicalSystem
    dim : int

    Raises
    ------
    ConnectionSpecError
        If ``system`` is not a :class:`MechanicalSystem` or a constant ``coefficients`` array
        is not of shape ``(n, n, n)``.

    Notes
    -----
    ``connection + K`` (``K`` a :class:`Contorsion` or an ``(n, n, n)`` array) is the
    connection with coefficients :math:`\Gamma + K`; ``connection_a - connection_b`` is the
    :class:`Contorsion` field :math:`\Gamma_a - \Gamma_b`; so ``levi_civita - connection`` is
    the contorsion :math:`D = \Gamma^\star - \Gamma` and ``levi_civita + (-D)`` gives the
    connection back.

    References
    ----------
    seed 000 §III (affine connections), eq. (10).

    Examples
    --------
    The intro example of seed 000: :math:`c = [v_1 v_2, 0]` is factored by
    :math:`C_a = [[v_2, 0], [0, 0]]`, i.e. :math:`\Gamma_{122} \to` ``G[0, 1, 0] = 1``:

    >>> import numpy as np
    >>> from geomech.geometry import AffineConnection, MechanicalSystem
    >>> from geomech.lie import Euclidean
    >>> system = MechanicalSystem(Euclidean(2), np.eye(2))
    >>> G = np.zeros((2, 2, 2)); G[0, 1, 0] = 1.0
    >>> conn = AffineConnection(system, G)
    >>> conn.coriolis_matrix([0.0, 0.0], [3.0, 5.0])
    array([[5., 0.],
           [0., 0.]])
    """

    #: marks connections for the arithmetic of :class:`~geomech.geometry.Contorsion`
    #: (``contorsion + connection`` defers to the connection), which cannot import this module
    _is_connection = True

    def __init__(self, system: MechanicalSystem, coefficients):
        system = as_mechanical_system(system)  # a RigidBody through its view
        self.system = system
        self.dim = n = system.dim
        if callable(coefficients):
            self._G_fun, self._G_const = coefficients, None
        else:
            G = as_array(coefficients, "coefficients")
            if G.shape != (n, n, n):
                raise ConnectionSpecError(
                    f"Expected `coefficients` to have shape {(n, n, n)}, got {G.shape}."
                )
            self._G_fun, self._G_const = None, G.copy()

    # ------------------------------------------------------------------------------------
    # the core: coefficients of the first kind (q already validated)
    # ------------------------------------------------------------------------------------
    def _Gamma(self, q: np.ndarray) -> np.ndarray:
        n = self.dim
        batch = self.system._batch(q)
        if self._G_const is not None:
            return np.broadcast_to(self._G_const, batch + (n, n, n))
        G = np.asarray(self._G_fun(q), dtype=float)
        if G.shape != batch + (n, n, n):
            raise ConnectionSpecError(
                f"Expected `coefficients(q)` to have shape {batch + (n, n, n)}, got {G.shape}."
            )
        return G

    def _second_kind(self, q: np.ndarray) -> np.ndarray:
        # internal layout G2[..., i, j, k] = Gamma^i_jk (the solve's natural one, and geomstats');
        # the public christoffel_second_kind moves the upper index last
        n = self.dim
        G = self._Gamma(q)
        H = self.system._H(q)
        G2 = np.linalg.solve(H, G.reshape(G.shape[:-3] + (n, n * n)))
        return G2.reshape(G.shape)

    def _point(self, q) -> np.ndarray:
        return self.system._point(q)

    # ------------------------------------------------------------------------------------
    def christoffel_first_kind(self, q) -> np.ndarray:
        r"""Coefficients of the first kind :math:`\Gamma_{ijk} = \langle\!\langle X_i, \nabla_{X_j}
        X_k\rangle\!\rangle`.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)

        Returns
        -------
        ndarray, shape (..., n, n, n)
            ``Gamma[..., i, j, k]``.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` is not a valid configuration.
        ConnectionSpecError
            If a callable's output has the wrong shape.

        References
        ----------
        seed 000 §III, eq. (10).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LeviCivitaConnection
        >>> from geomech.geometry.examples import rigid_body_so3
        >>> G = LeviCivitaConnection(rigid_body_so3(np.eye(3))).christoffel_first_kind(np.eye(3))
        >>> float(G[0, 1, 2]), float(G[0, 2, 1])  # bi-invariant: Gamma = s / 2
        (0.5, -0.5)
        """
        return np.array(self._Gamma(self._point(q)))

    def christoffel_second_kind(self, q) -> np.ndarray:
        r"""Coefficients of the second kind :math:`\Gamma^i_{jk} = H^{i\ell}\Gamma_{\ell jk}`.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)

        Returns
        -------
        ndarray, shape (..., n, n, n)
            ``G2[..., j, k, i]`` :math:`= \Gamma^i_{jk}`, :math:`\nabla_{X_j} X_k = \Gamma^i_{jk}
            X_i` (the upper index last, as for every 3-index array; conventions page), so
            ``einsum('...jki,...j,...k->...i', G2, v, w)`` is :math:`\Gamma^i_{jk} v^j w^k`.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` is not a valid configuration.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LeviCivitaConnection
        >>> from geomech.geometry.examples import rigid_body_so3
        >>> body = rigid_body_so3(2.0 * np.eye(3))
        >>> G2 = LeviCivitaConnection(body).christoffel_second_kind(np.eye(3))
        >>> float(G2[1, 2, 0])  # nabla_{X_y} X_z = 1/2 [X_y, X_z] = 1/2 X_x
        0.5
        """
        return np.moveaxis(self._second_kind(self._point(q)), -3, -1)

    def coriolis_matrix(self, q, v) -> np.ndarray:
        r"""Coriolis matrix of this connection, :math:`C_{ik}(q, v) = \Gamma_{ijk}(q)\, v^j`.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
        v : array_like, shape (..., n)

        Returns
        -------
        ndarray, shape (..., n, n)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` or ``v`` is malformed.

        References
        ----------
        seed 000 eq. (10) (contracts the middle index).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LeviCivitaConnection
        >>> from geomech.geometry.examples import rigid_body_so3
        >>> body = rigid_body_so3(np.diag([1.0, 2.0, 3.0]))
        >>> w = np.array([1.0, 2.0, 3.0])
        >>> C = LeviCivitaConnection(body).coriolis_matrix(np.eye(3), w)
        >>> C @ w  # = w x (I w)
        array([ 6., -6.,  2.])
        """
        q = self._point(q)
        v = as_array(v, "v", (self.dim,))
        return np.einsum("...ijk,...j->...ik", self._Gamma(q), v)

    def covariant_derivative(self, q, v, w, w_dot) -> np.ndarray:
        r"""Covariant derivative :math:`\nabla_{\dot q} w` of a vector field along a curve.

        .. math:: (\nabla_{\dot q} w)^i = \dot w^i + \Gamma^i_{jk}\, v^j w^k,
                  \qquad H \nabla_{\dot q} w = H \dot w + C(q, v)\, w

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
        v : array_like, shape (..., n)
            Speeds of the curve, :math:`\dot q = X_j v^j`.
        w : array_like, shape (..., n)
            Frame components of the field along the curve.
        w_dot : array_like, shape (..., n)
            Time derivative of those components.

        Returns
        -------
        ndarray, shape (..., n)
            Frame components of :math:`\nabla_{\dot q} w`.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If an input is malformed.

        References
        ----------
        seed 000 Remark 5.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LeviCivitaConnection
        >>> from geomech.geometry.examples import point_mass
        >>> lc = LeviCivitaConnection(point_mass())
        >>> lc.covariant_derivative(np.zeros(3), [1.0, 0, 0], [0, 1.0, 0], [0, 0, 2.0])
        array([0., 0., 2.])
        """
        q = self._point(q)
        n = self.dim
        v = as_array(v, "v", (n,))
        w = as_array(w, "w", (n,))
        w_dot = as_array(w_dot, "w_dot", (n,))
        return w_dot + np.einsum("...ijk,...j,...k->...i", self._second_kind(q), v, w)

    def torsion(self, q) -> np.ndarray:
        r"""Torsion tensor :math:`T^i_{jk} = \Gamma^i_{jk} - \Gamma^i_{kj} - s^i_{jk}`.

        :math:`T(X, Y) = \nabla_X Y - \nabla_Y X - [X, Y]`, so ``T[..., j, k, :]`` are the
        components of :math:`T(X_j, X_k)`.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)

        Returns
        -------
        ndarray, shape (..., n, n, n)
            ``T[..., j, k, i]`` :math:`= T^i_{jk}` (the upper index last, as for the structure
            constants ``s[..., j, k, i]`` :math:`= s^i_{jk}`).

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` is not a valid configuration.

        References
        ----------
        seed 000 §III ("torsion-free").

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import CartanSchoutenConnection
        >>> from geomech.geometry.examples import rigid_body_so3
        >>> minus = CartanSchoutenConnection(rigid_body_so3(np.eye(3)), "cartan-minus")
        >>> float(minus.torsion(np.eye(3))[0, 1, 2])  # T(X_x, X_y) = -[X_x, X_y] = -X_z
        -1.0
        """
        q = self._point(q)
        G2 = np.moveaxis(self._second_kind(q), -3, -1)  # G2[j, k, i] = Gamma^i_jk
        return G2 - np.swapaxes(G2, -2, -3) - self.system._s(q)

    def contorsion(self, q, reference=None) -> np.ndarray:
        r"""Contorsion :math:`D_{ijk} = \Gamma^\star_{ijk} - \Gamma_{ijk}` (the paper's sign).

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
        reference : AffineConnection, optional
            The connection playing :math:`\nabla^\star` (default: the Levi-Civita connection
            of the system).

        Returns
        -------
        ndarray, shape (..., n, n, n)
            ``D[..., i, j, k]``; ``reference + (-D)`` has this connection's coefficients.

        Raises
        ------
        ConnectionSpecError
            If ``reference`` is not a connection of the same dimension.
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` is not a valid configuration.

        References
        ----------
        seed 000 §III (contorsion tensor), Props. III.1-III.2.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import Contorsion, LeviCivitaConnection
        >>> from geomech.geometry.examples import point_mass
        >>> lc = LeviCivitaConnection(point_mass())
        >>> conn = lc + Contorsion.totally_antisymmetric([2.0])
        >>> float(conn.contorsion(np.zeros(3))[0, 1, 2])  # D = -K
        -2.0
        """
        q = self._point(q)
        if reference is None:  # the metric's own Levi-Civita coefficients (Koszul formula)
            return self.system._koszul(q) - self._Gamma(q)
        if not isinstance(reference, AffineConnection) or reference.dim != self.dim:
            raise ConnectionSpecError(
                f"Expected `reference` to be an AffineConnection of dimension {self.dim}, "
                f"got {reference!r}."
            )
        return reference._Gamma(q) - self._Gamma(q)

    # ------------------------------------------------------------------------------------
    # predicates
    # ------------------------------------------------------------------------------------
    def _scale(self, q) -> float:
        return float(np.max(np.abs(self.system._H(q)), initial=1.0))

    def is_metric_compatible(self, q, tol: float = PREDICATE_TOL) -> CheckResult:
        r"""Whether :math:`\nabla \mathbb G = 0`, in components
        :math:`\mathscr L_{X_k} H_{ij} = \Gamma_{jki} + \Gamma_{ikj}`.

        Equivalent to :math:`\dot H - 2C` skew for every ``v`` (Prop. IV.1) and to ``D``
        antisymmetric in (1, 3) (Prop. III.1).

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
        tol : float
            Relative tolerance: passes if the residual is ``<= tol * max(1, max|H|)``.

        Returns
        -------
        CheckResult
            Residual :math:`\max|\mathscr L_{X_k} H_{ij} - \Gamma_{jki} - \Gamma_{ikj}|`.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` is not a valid configuration.

        References
        ----------
        seed 000 §III (metric compatibility), Prop. III.1, Prop. IV.1.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LeviCivitaConnection
        >>> from geomech.geometry.examples import rigid_body_se3
        >>> res = LeviCivitaConnection(rigid_body_se3(np.eye(6))).is_metric_compatible(np.eye(4))
        >>> bool(res), res.residual
        (True, 0.0)
        """
        q = self._point(q)
        G = self._Gamma(q)
        dH = self.system._dH(q)  # dH[k, i, j] = L_{X_k} H_ij
        # seed 000 §III: L_{X_k} H_ij = Gamma_jki + Gamma_ikj
        lhs = np.einsum("...kij->...ijk", dH)
        rhs = np.einsum("...jki->...ijk", G) + np.einsum("...ikj->...ijk", G)
        res = np.max(np.abs(lhs - rhs), initial=0.0)
        return CheckResult.from_residual(res, tol, self._scale(q))

    def has_riemannian_geodesics(self, q, tol: float = PREDICATE_TOL) -> CheckResult:
        r"""Whether the geodesics are those of the Levi-Civita connection.

        Equivalent to ``D`` antisymmetric in (2, 3) (Prop. III.2) and to
        :math:`C v = C^\star v` (Prop. IV.2).

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
        tol : float
            Relative tolerance: passes if the residual is ``<= tol * max(1, max|H|)``.

        Returns
        -------
        CheckResult
            Residual :math:`\max|D_{ijk} + D_{ikj}|`.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` is not a valid configuration.

        References
        ----------
        seed 000 Prop. III.2, Prop. IV.2.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import CartanSchoutenConnection
        >>> from geomech.geometry.examples import rigid_body_so3
        >>> body = rigid_body_so3(np.diag([1.0, 2.0, 3.0]))
        >>> res = CartanSchoutenConnection(body, "cartan-zero").has_riemannian_geodesics(np.eye(3))
        >>> bool(res), res.residual
        (False, 2.0)
        """
        q = self._point(q)
        D = self.contorsion(q)
        res = np.max(np.abs(D + np.swapaxes(D, -1, -2)), initial=0.0)
        return CheckResult.from_residual(res, tol, self._scale(q))

    def is_torsion_free(self, q, tol: float = PREDICATE_TOL) -> CheckResult:
        r"""Whether :math:`\nabla_X Y - \nabla_Y X = [X, Y]`, lowered:
        :math:`\Gamma_{ijk} - \Gamma_{ikj} = s_{ijk}`.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
        tol : float
            Relative tolerance: passes if the residual is ``<= tol * max(1, max|H|)``.

        Returns
        -------
        CheckResult
            Residual :math:`\max|\Gamma_{ijk} - \Gamma_{ikj} - s_{ijk}|` (the lowered torsion
            :math:`H_{i\ell} T^\ell_{jk}`).

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` is not a valid configuration.

        References
        ----------
        seed 000 §III ("torsion-free").

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import CartanSchoutenConnection
        >>> from geomech.geometry.examples import rigid_body_so3
        >>> body = rigid_body_so3(np.diag([1.0, 2.0, 3.0]))
        >>> bool(CartanSchoutenConnection(body, "cartan-zero").is_torsion_free(np.eye(3)))
        True
        >>> CartanSchoutenConnection(body, "cartan-plus").is_torsion_free(np.eye(3)).residual
        3.0
        """
        q = self._point(q)
        G = self._Gamma(q)
        s_low = np.einsum("...il,...jkl->...ijk", self.system._H(q), self.system._s(q))
        res = np.max(np.abs(G - np.swapaxes(G, -1, -2) - s_low), initial=0.0)
        return CheckResult.from_residual(res, tol, self._scale(q))

    # ------------------------------------------------------------------------------------
    # curves
    # ------------------------------------------------------------------------------------
    def geodesic(self, q0, v0, t, *, rtol=1e-10, atol=1e-12, max_chart_step=0.5):
        r"""Geodesic :math:`\nabla_{\dot\gamma}\dot\gamma = 0` from ``(q0, v0)``.

        Integrated with DOP853 in a chart re-centred at every step (group elements are
        updated through ``exp``); see :mod:`geomech.geometry.geodesics`.

        Parameters
        ----------
        q0 : array_like, shape (..., *point_shape)
        v0 : array_like, shape (..., n)
        t : array_like, shape (T,)
            Strictly increasing output times; ``q0`` is the point at ``t[0]``.
        rtol, atol : float
            Integrator tolerances.
        max_chart_step : float
            Largest ``|v|_inf dt`` per chart.

        Returns
        -------
        Trajectory
            ``q`` of shape ``(..., T, *point_shape)`` and ``v`` of shape ``(..., T, n)``.

        Raises
        ------
        DimensionError
            If an input has the wrong shape or ``t`` is not strictly increasing.

        References
        ----------
        seed 000 §III (geodesics).

        Examples
        --------
        Cartan–Schouten geodesics through the identity are one-parameter subgroups:

        >>> import numpy as np
        >>> from geomech.geometry import CartanSchoutenConnection
        >>> from geomech.geometry.examples import rigid_body_so3
        >>> from geomech.lie import SO3
        >>> system = rigid_body_so3(np.diag([1.0, 2.0, 3.0]))
        >>> conn = CartanSchoutenConnection(system, "cartan-minus")
        >>> xi = np.array([0.3, -0.5, 0.8])
        >>> traj = conn.geodesic(np.eye(3), xi, [0.0, 2.0])
        >>> bool(np.allclose(traj.q[-1], SO3.exp(2.0 * xi)))
        True
        """
        return integrate_geodesic(
            self, q0, v0, t, rtol=rtol, atol=atol, max_chart_step=max_chart_step
        )

    def parallel_transport(self, curve, w0, t=None, *, rtol=1e-10, atol=1e-12):
        r"""Parallel transport :math:`\nabla_{\dot\gamma} w = 0` of ``w0`` along ``curve``.

        Parameters
        ----------
        curve : Trajectory
            E.g. from :meth:`geodesic` (any object with ``t`` and ``state(s) -> (q, v)``).
        w0 : array_like, shape (..., n)
            Frame components at ``curve.t[0]`` (leading dimensions broadcast with the
            curve's batch; ``(3, n)`` transports a triad).
        t : array_like, shape (T,), optional
            Output times (default ``curve.t``).
        rtol, atol : float
            Integrator tolerances.

        Returns
        -------
        ndarray, shape (..., T, n)

        Raises
        ------
        DimensionError
            If ``w0`` has the wrong trailing shape.

        References
        ----------
        seed 000 §III (parallel transport), Fig. 3.

        Examples
        --------
        A torsion :math:`\beta(v\times)` makes vectors spin about a straight geodesic
        (:math:`\dot w = -\beta\, v \times w`):

        >>> import numpy as np
        >>> from geomech.geometry import Contorsion, LeviCivitaConnection
        >>> from geomech.geometry.examples import point_mass
        >>> conn = LeviCivitaConnection(point_mass()) + Contorsion.totally_antisymmetric([1.0])
        >>> line = conn.geodesic(np.zeros(3), [1.0, 0, 0], [0.0, np.pi / 2])
        >>> np.round(conn.parallel_transport(line, [0, 1.0, 0])[-1], 8) + 0.0
        array([ 0.,  0., -1.])
        """
        return integrate_parallel_transport(self, curve, w0, t, rtol=rtol, atol=atol)

    # ------------------------------------------------------------------------------------
    # algebra: connection + tensor, connection - connection
    # ------------------------------------------------------------------------------------
    def _as_tensor(self, other) -> Contorsion:
        K = other if isinstance(other, Contorsion) else Contorsion(other)
        if K.dim != self.dim:
            raise DimensionError(f"Expected a tensor of size {self.dim}, got {K.dim}.")
        return K

    def __add__(self, other):
        if isinstance(other, AffineConnection):
            return NotImplemented
        K = self._as_tensor(other)
        if self._G_const is not None and K.is_constant:
            return AffineConnection(self.system, self._G_const + K())
        return AffineConnection(self.system, lambda q: self._Gamma(q) + K(q))

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, AffineConnection):
            if other.dim != self.dim:
                raise DimensionError(
                    f"Expected connections of the same dimension, got {self.dim} and {other.dim}."
                )
            if self._G_const is not None and other._G_const is not None:
                return Contorsion(self._G_const - other._G_const)
            return Contorsion(
                lambda q: self._Gamma(self._point(q)) - other._Gamma(self._point(q)), self.dim
            )
        return self + (-self._as_tensor(other))

    def __repr__(self):
        return f"<{type(self).__name__} on {self.system!r}>"
