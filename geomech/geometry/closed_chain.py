r"""Closed chains by projection (seed 000 §VI-C1): loop-closure frames and :class:`ClosedChain`.

A spanning tree with configurations :math:`q` closed by loop constraints :math:`\phi(q) = 0`
lives on the loop-closure manifold; its independent coordinates :math:`y = q_I` give the frame
of :class:`LoopClosureFrame` (:math:`v = A \bar v`, :math:`A_D = -K_D^{-1} K_I`), and
:class:`ClosedChain` is the tree's connection induced on that manifold
(:class:`~geomech.geometry.InducedConnection`). The tree may be any
:class:`~geomech.geometry.MechanicalSystem` on coordinates, a connection on one, or a
:class:`~geomech.multibody.MultibodyModel` of 1-DoF joints (its spanning tree).

References
----------
seed 000 §VI-C1 (closed chains, eq. 17 with the loop-closure velocity map).
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array, default_rng
from geomech.errors import (
    ConnectionSpecError,
    DimensionError,
    NotOnManifoldError,
    SingularityError,
)
from geomech.geometry.connection import AffineConnection
from geomech.geometry.frames import Frame
from geomech.geometry.induced import InducedConnection
from geomech.geometry.resolution import resolve_connection
from geomech.geometry.stencils import fd_jacobian
from geomech.geometry.system import MechanicalSystem

__all__ = ["LoopClosureFrame", "ClosedChain"]

#: Loop-closure residual accepted by :meth:`LoopClosureFrame.validate_point` (relative).
CLOSURE_TOL = 1e-9


def _indices(x, n: int, name: str) -> np.ndarray:
    try:
        idx = np.asarray(x)
    except (TypeError, ValueError) as exc:  # pragma: no cover - numpy accepts almost anything
        raise ConnectionSpecError(f"Expected `{name}` to be a sequence of indices.") from exc
    if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
        raise ConnectionSpecError(
            f"Expected `{name}` to be a non-empty 1-D sequence of integers, got {x!r}."
        )
    if np.any(idx < 0) or np.any(idx >= n) or len(set(idx.tolist())) != idx.size:
        raise ConnectionSpecError(
            f"Expected `{name}` to hold distinct indices in [0, {n}), got {idx.tolist()}."
        )
    return idx.astype(int)


class LoopClosureFrame(Frame):
    r"""Frame of independent coordinates on a loop-closure manifold
    :math:`\{q \in \mathbb R^n : \phi(q) = 0\}`.

    The coordinates split into independent :math:`y = q_I` (``m`` of them) and dependent
    :math:`z = q_D` (``c = n - m``, one per constraint). The fields are
    :math:`\bar X_j = A^i_j \partial_{q^i}` with the null-space basis of the constraint
    Jacobian :math:`K = \partial\phi / \partial q`,

    .. math::
        A_I = \mathbf 1, \qquad A_D = -K_D^{-1} K_I, \qquad
        \dot A_D = -K_D^{-1} \dot K A, \quad \dot K = \frac{\partial K}{\partial q^l}\,
        (A\bar v)^l

    (seed 000 §VI-C1), i.e. the coordinate fields of the chart :math:`y`: they commute
    (zero structure constants) and the flow of :math:`w^j \bar X_j` for time ``t`` moves
    :math:`y \to y + t w` and solves :math:`\phi = 0` for ``z`` by Newton's method, continued
    in steps of at most ``max_step`` from the start point (so it stays on the branch of the
    start point). Points are full configurations ``q`` of shape ``(n,)``.

    Parameters
    ----------
    constraint : callable
        :math:`\phi`: batched ``q (..., n) -> (..., c)``.
    n : int
        Number of coordinates of the spanning tree.
    independent : sequence of int
        Indices of the independent coordinates (``m = len(independent)``; the rest are
        dependent and must number ``c``).
    constraint_jacobian : callable, optional
        ``K(q) -> (..., c, n)``; default: five-point stencil of ``constraint``.
    constraint_hessian : callable, optional
        ``q -> (..., c, n, n)`` with ``[a, i, l]`` :math:`= \partial^2\phi_a / \partial q^i
        \partial q^l`; default: five-point stencil of the Jacobian.
    reference : array_like, shape (n,), optional
        A configuration on the manifold, the centre of :meth:`random_configuration`.
    max_step : float
        Largest change of an independent coordinate per continuation step.
    max_iter : int
        Newton iterations per continuation step.

    Attributes
    ----------
    dim : int
        ``m``.
    point_shape : tuple of int
        ``(n,)``.
    independent, dependent : ndarray of int

    Raises
    ------
    ConnectionSpecError
        If a callable argument is not callable, the indices are invalid, or ``constraint``
        does not return ``n - m`` values.
    NotOnManifoldError
        If ``reference`` does not satisfy the constraint.

    References
    ----------
    seed 000 §VI-C1 (spanning-tree method).

    Examples
    --------
    A point on the unit circle, :math:`\phi(x, y) = x^2 + y^2 - 1`, with ``x`` independent:

    >>> import numpy as np
    >>> from geomech.geometry import LoopClosureFrame
    >>> frame = LoopClosureFrame(lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0, 2, [0])
    >>> frame.flow([0.0, 1.0], [0.6], 1.0)
    array([0.6, 0.8])
    """

    def __init__(
        self,
        constraint,
        n,
        independent,
        constraint_jacobian=None,
        constraint_hessian=None,
        reference=None,
        *,
        max_step=0.25,
        max_iter=50,
    ):
        for value, name in (
            (constraint, "constraint"),
            (constraint_jacobian, "constraint_jacobian"),
            (constraint_hessian, "constraint_hessian"),
        ):
            if value is not None and not callable(value):
                raise ConnectionSpecError(
                    f"Expected `{name}` to be callable, got {type(value).__name__}."
                )
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
            raise DimensionError(f"Expected `n` to be an integer >= 2, got {n!r}.")
        n = int(n)
        self.independent = _indices(independent, n, "independent")
        self.dependent = np.array(
            [i for i in range(n) if i not in set(self.independent)], dtype=int
        )
        if self.dependent.size == 0:
            raise ConnectionSpecError(
                f"Expected at least one dependent coordinate, got all {n} independent."
            )
        self.dim = int(self.independent.size)
        self.point_shape = (n,)
        self._phi_fun = constraint
        self._K_fun = constraint_jacobian
        self._dK_fun = constraint_hessian
        self.max_step = float(max_step)
        self.max_iter = int(max_iter)
        probe = np.zeros(n) if reference is None else as_array(reference, "reference", (n,))
        c = np.asarray(constraint(probe), dtype=float).shape
        if c != (self.dependent.size,):
            raise ConnectionSpecError(
                f"Expected `constraint(q)` to return n - m = {self.dependent.size} values (one "
                f"per dependent coordinate), got shape {c}."
            )
        self.reference = None if reference is None else self.validate_point(reference, "reference")

    # -- constraint and its derivatives (q unvalidated, shape (..., n)) -------------------
    def _phi(self, q):
        r = np.asarray(self._phi_fun(q), dtype=float)
        want = q.shape[:-1] + (self.dependent.size,)
        if r.shape != want:
            raise DimensionError(f"Expected `constraint(q)` to have shape {want}, got {r.shape}.")
        return r

    def _K(self, q):
        c, n = self.dependent.size, self.point_shape[0]
        if self._K_fun is None:
            return fd_jacobian(self._phi, q)
        K = np.asarray(self._K_fun(q), dtype=float)
        if K.shape != q.shape[:-1] + (c, n):
            raise DimensionError(
                f"Expected `constraint_jacobian(q)` to have shape {q.shape[:-1] + (c, n)}, "
                f"got {K.shape}."
            )
        return K

    def _dK(self, q):
        """dK[..., a, i, l] = d^2 phi_a / dq_i dq_l."""
        c, n = self.dependent.size, self.point_shape[0]
        if self._dK_fun is None:
            return fd_jacobian(self._K, q)
        dK = np.asarray(self._dK_fun(q), dtype=float)
        if dK.shape != q.shape[:-1] + (c, n, n):
            raise DimensionError(
                f"Expected `constraint_hessian(q)` to have shape {q.shape[:-1] + (c, n, n)}, "
                f"got {dK.shape}."
            )
        return dK

    def _solve_KD(self, K, rhs):
        """K_D^{-1} rhs, raising SingularityError at a singular configuration."""
        K_D = K[..., self.dependent]
        cond = np.linalg.cond(K_D)
        if not np.all(cond < 1e12):
            raise SingularityError(
                "Expected the constraint Jacobian with respect to the dependent coordinates "
                f"{self.dependent.tolist()} to be invertible, got condition number "
                f"{float(np.max(cond)):.3g} (a singular configuration of the loop)."
            )
        return np.linalg.solve(K_D, rhs)

    def _velocity_map(self, q):
        """A (..., n, m): A_I = 1, A_D = -K_D^-1 K_I (seed 000 §VI-C1)."""
        K = self._K(q)
        n, m = self.point_shape[0], self.dim
        A = np.zeros(q.shape[:-1] + (n, m))
        A[..., self.independent, :] = np.eye(m)
        A[..., self.dependent, :] = -self._solve_KD(K, K[..., self.independent])
        return A

    def _velocity_map_derivative(self, q, v):
        """A_dot (..., n, m): from K A = 0, A_dot_I = 0 and K_D A_dot_D = -K_dot A."""
        K = self._K(q)
        A = self._velocity_map(q)
        u = np.einsum("...im,...m->...i", A, v)  # q_dot = A v
        K_dot = np.einsum("...ail,...l->...ai", self._dK(q), u)
        A_dot = np.zeros_like(A)
        A_dot[..., self.dependent, :] = -self._solve_KD(K, K_dot @ A)
        return A_dot

    def _close(self, q):
        """Newton on the dependent coordinates (independent ones fixed); q (..., n) copy."""
        D = self.dependent
        for _ in range(self.max_iter):
            dz = -self._solve_KD(self._K(q), self._phi(q)[..., None])[..., 0]
            q[..., D] += dz
            if np.max(np.abs(dz), initial=0.0) <= 1e-13 * (1.0 + np.max(np.abs(q), initial=0.0)):
                return q
        raise SingularityError(
            f"Expected the loop closure to converge in {self.max_iter} Newton iterations, got "
            f"residual {float(np.max(np.abs(self._phi(q)))):.3g}."
        )

    # -- Frame interface --------------------------------------------------------------------
    def flow(self, q, w, t=1.0):
        """Move the independent coordinates by ``t w`` and close the loop (continuation).

        Parameters
        ----------
        q : array_like, shape (..., n)
            Start point(s) on the manifold.
        w : array_like, shape (..., m)
        t : float or array_like, shape (...)

        Returns
        -------
        ndarray, shape (..., n)

        Raises
        ------
        SingularityError
            If the continuation meets a singular configuration or Newton does not converge.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LoopClosureFrame
        >>> frame = LoopClosureFrame(lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0, 2, [0])
        >>> np.round(frame.flow([0.6, 0.8], [-1.0], 1.2), 12)  # stays on the upper branch
        array([-0.6,  0.8])
        """
        q = as_array(q, "q", self.point_shape)
        w = as_array(w, "w", (self.dim,))
        dy = np.asarray(t, dtype=float)[..., None] * w
        batch = np.broadcast_shapes(q.shape[:-1], dy.shape[:-1])
        q = np.broadcast_to(q, batch + self.point_shape).copy()
        dy = np.broadcast_to(dy, batch + (self.dim,))
        y0 = q[..., self.independent].copy()
        N = max(1, int(np.ceil(np.max(np.abs(dy), initial=0.0) / self.max_step)))
        for s in range(1, N + 1):
            A = self._velocity_map(q)
            q = q + np.einsum("...im,...m->...i", A, dy / N)  # Euler predictor
            q[..., self.independent] = y0 + dy * (s / N)
            q = self._close(q)  # Newton corrector
        return q

    def structure_constants(self, q):
        """Zero: the fields are the coordinate fields of the independent coordinates.

        Parameters
        ----------
        q : array_like, shape (..., n)

        Returns
        -------
        ndarray, shape (..., m, m, m)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LoopClosureFrame
        >>> frame = LoopClosureFrame(lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0, 2, [0])
        >>> frame.structure_constants([0.0, 1.0]).shape
        (1, 1, 1)
        """
        q = as_array(q, "q", self.point_shape)
        return np.zeros(q.shape[:-1] + (self.dim,) * 3)

    def chart_velocity(self, q0, phi, v):
        r""":math:`\dot\phi = v` (the chart is the independent coordinates).

        Parameters
        ----------
        q0 : array_like, shape (..., n)
        phi : array_like, shape (..., m)
        v : array_like, shape (..., m)

        Returns
        -------
        ndarray, shape (..., m)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LoopClosureFrame
        >>> frame = LoopClosureFrame(lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0, 2, [0])
        >>> frame.chart_velocity([0.0, 1.0], [0.1], [2.0])
        array([2.])
        """
        return np.broadcast_to(
            np.asarray(v, dtype=float), np.broadcast_shapes(np.shape(phi), np.shape(v))
        ).copy()

    def validate_point(self, q, name="q"):
        r"""Check the shape, finiteness and the loop closure :math:`\phi(q) = 0`.

        Parameters
        ----------
        q : array_like, shape (..., n)
        name : str

        Returns
        -------
        ndarray, shape (..., n)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.
        NotOnManifoldError
            If :math:`\max|\phi(q)| > 10^{-9} \max(1, \max|q|)`.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LoopClosureFrame
        >>> frame = LoopClosureFrame(lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0, 2, [0])
        >>> frame.validate_point([0.6, 0.8])
        array([0.6, 0.8])
        >>> frame.validate_point([0.6, 0.7])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        geomech.errors.NotOnManifoldError: Expected `q` to satisfy the loop closure phi(q) = 0, ...
        """
        q = as_array(q, name, self.point_shape)
        res = float(np.max(np.abs(self._phi(q)), initial=0.0))
        tol = CLOSURE_TOL * max(1.0, float(np.max(np.abs(q), initial=0.0)))
        if res > tol:
            raise NotOnManifoldError(
                f"Expected `{name}` to satisfy the loop closure phi(q) = 0, got residual "
                f"{res:.3g} > {tol:.3g} (project it with close_loop)."
            )
        return q

    def close_loop(self, q):
        r"""Project ``q`` onto the manifold: solve :math:`\phi = 0` for the dependent
        coordinates by Newton's method, keeping the independent ones.

        Parameters
        ----------
        q : array_like, shape (..., n)
            Initial guess (its dependent coordinates pick the branch).

        Returns
        -------
        ndarray, shape (..., n)

        Raises
        ------
        SingularityError
            If Newton's method meets a singular configuration or does not converge.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LoopClosureFrame
        >>> frame = LoopClosureFrame(lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0, 2, [0])
        >>> frame.close_loop([0.6, -0.5])
        array([ 0.6, -0.8])
        """
        q = as_array(q, "q", self.point_shape)
        return self._close(q.copy())

    def neutral(self):
        """The :attr:`reference` configuration (on the constraint manifold).

        Returns
        -------
        ndarray, shape (n,)

        Raises
        ------
        ConnectionSpecError
            If the frame has no ``reference`` configuration.

        Examples
        --------
        >>> from geomech.geometry import LoopClosureFrame
        >>> circle = lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0
        >>> LoopClosureFrame(circle, 2, [0], reference=[0.0, 1.0]).neutral()
        array([0., 1.])
        """
        if self.reference is None:
            raise ConnectionSpecError("Expected a `reference` configuration, got None.")
        return self.reference.copy()

    def random_configuration(self, rng=None, size=None):
        r"""Random points: independent coordinates :math:`y_{\rm ref} + 0.5\,\mathcal N(0,
        1)`, reached by continuation from :attr:`reference`.

        Parameters
        ----------
        rng : None, int or numpy.random.Generator
        size : None, int or tuple of int

        Returns
        -------
        ndarray, shape (*size, n)

        Raises
        ------
        ConnectionSpecError
            If the frame has no ``reference`` configuration.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LoopClosureFrame
        >>> circle = lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0
        >>> frame = LoopClosureFrame(circle, 2, [0], reference=[0.0, 1.0])
        >>> q = frame.random_configuration(rng=0, size=3)
        >>> q.shape, bool(np.allclose((q ** 2).sum(-1), 1.0))
        ((3, 2), True)
        """
        if self.reference is None:
            raise ConnectionSpecError(
                "Expected a `reference` configuration to sample around, got None."
            )
        size = () if size is None else (size,) if np.isscalar(size) else tuple(size)
        w = 0.5 * default_rng(rng).standard_normal(size + (self.dim,))
        return self.flow(self.reference, w, 1.0)

    def __repr__(self):
        return f"LoopClosureFrame(n={self.point_shape[0]}, independent={self.independent.tolist()})"


def _tree_connection(tree, connection) -> AffineConnection:
    """The spanning tree's connection: ``tree`` itself, or the connection of a system."""
    if isinstance(tree, AffineConnection):
        return tree
    if not (
        isinstance(tree, MechanicalSystem) or callable(getattr(tree, "mechanical_system", None))
    ):
        raise ConnectionSpecError(
            "Expected `tree` to be an AffineConnection, or a MechanicalSystem (e.g. a "
            f"MultibodyModel) with a `connection`, got {type(tree).__name__}."
        )
    return resolve_connection(tree, connection, "tree")


class ClosedChain:
    r"""A closed chain by projection: a spanning tree closed by loop constraints (§VI-C1).

    The spanning tree is a system in joint coordinates :math:`q \in \mathbb R^n` with a
    connection (typically its Levi-Civita connection, giving :math:`C^\star_{\rm spanning}`).
    The loop constraints :math:`\phi(q) = 0` leave ``m`` independent coordinates; the speeds
    are :math:`v_{\rm spanning} = A(q)\, v_{\rm minimal}` with :math:`A` from the null space of
    the constraint Jacobian (:class:`LoopClosureFrame`), and

    .. math::
        H_{\rm minimal} = A^\top H_{\rm spanning} A, \qquad
        C_{\rm minimal} = A^\top C_{\rm spanning} A + A^\top H_{\rm spanning} \dot A .

    This is the :class:`InducedConnection` :attr:`connection` on the system :attr:`system`
    of the loop-closure manifold, whose frame is the :class:`LoopClosureFrame`
    :attr:`frame` (so geodesics, parallel transport and the predicates work on it).

    Parameters
    ----------
    tree : AffineConnection, MechanicalSystem or MultibodyModel
        The spanning tree in joint coordinates: a connection on a system with a
        :class:`~geomech.geometry.frames.CoordinateFrame`, such a system, or a robot
        (:class:`~geomech.multibody.MultibodyModel`) whose joints all have one coordinate;
        a system is taken with the connection named by ``connection``.
    constraint : callable
        Loop closure :math:`\phi`: batched ``q (..., n) -> (..., n - m)``.
    independent : sequence of int
        Indices of the independent coordinates.
    connection : str or AffineConnection, optional
        When ``tree`` is a system: its connection, an object or a name (a robot's body
        connection names, ``model.connection(name)``; ``"levi-civita"`` for any system).
        Default ``"levi-civita"``.
    constraint_jacobian, constraint_hessian : callable, optional
        See :class:`LoopClosureFrame` (default: five-point stencils).
    reference : array_like, shape (n,), optional
        A closed configuration (for :meth:`MechanicalSystem.random_configuration`).

    Attributes
    ----------
    tree : AffineConnection
    frame : LoopClosureFrame
    connection : InducedConnection
    system : MechanicalSystem
        The minimal system (:math:`H_{\rm minimal}`).
    dim : int
        ``m``.

    Raises
    ------
    ConnectionSpecError
        If ``tree`` is neither a connection nor a system in joint coordinates, the
        connection name is unknown, or the constraint is specified wrongly (see
        :class:`LoopClosureFrame`).

    References
    ----------
    seed 000 §VI-C1, eq. (17).

    Examples
    --------
    A unit point mass on the unit circle as a "loop" of the plane, ``x`` independent: at
    :math:`(0.6, 0.8)`, :math:`A = [1, -3/4]^\top` and :math:`H_{\rm min} = 1 + 9/16`.

    >>> import numpy as np
    >>> from geomech.geometry import ClosedChain, LeviCivitaConnection
    >>> from geomech.geometry.examples import point_mass
    >>> circle = ClosedChain(LeviCivitaConnection(point_mass(dim=2)),
    ...                      lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0, [0])
    >>> q = np.array([0.6, 0.8])
    >>> np.round(circle.velocity_map(q), 12)
    array([[ 1.  ],
           [-0.75]])
    >>> np.round(circle.mass_matrix(q), 12)
    array([[1.5625]])
    """

    def __init__(
        self,
        tree,
        constraint,
        independent,
        *,
        connection="levi-civita",
        constraint_jacobian=None,
        constraint_hessian=None,
        reference=None,
    ):
        tree = _tree_connection(tree, connection)
        if not getattr(tree.system.frame, "coordinates", False):
            raise ConnectionSpecError(
                "Expected the spanning tree in joint coordinates (a CoordinateFrame, or a "
                f"robot of 1-DoF joints), got {tree.system.frame!r}."
            )
        self.tree = tree
        self._spec = dict(
            constraint=constraint,
            independent=independent,
            constraint_jacobian=constraint_jacobian,
            constraint_hessian=constraint_hessian,
            reference=reference,
        )
        self.frame = LoopClosureFrame(
            constraint, tree.dim, independent, constraint_jacobian, constraint_hessian, reference
        )
        self.connection = InducedConnection(
            tree,
            A=self.frame._velocity_map,
            frame=self.frame,
            A_dot=self.frame._velocity_map_derivative,
        )
        self.system = self.connection.system
        self.dim = self.frame.dim

    @property
    def independent(self) -> np.ndarray:
        """Indices of the independent coordinates.

        Examples
        --------
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> four_bar_linkage().independent
        array([0])
        """
        return self.frame.independent

    @property
    def dependent(self) -> np.ndarray:
        """Indices of the dependent coordinates.

        Examples
        --------
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> four_bar_linkage().dependent
        array([1, 2])
        """
        return self.frame.dependent

    def constraint(self, q) -> np.ndarray:
        r"""Loop-closure residual :math:`\phi(q)`.

        Parameters
        ----------
        q : array_like, shape (..., n)

        Returns
        -------
        ndarray, shape (..., n - m)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> float(np.max(np.abs(fb.constraint(fb.frame.reference)))) < 1e-12
        True
        """
        return self.frame._phi(as_array(q, "q", self.frame.point_shape))

    def constraint_jacobian(self, q) -> np.ndarray:
        r"""Constraint Jacobian :math:`K = \partial\phi/\partial q`.

        Parameters
        ----------
        q : array_like, shape (..., n)

        Returns
        -------
        ndarray, shape (..., n - m, n)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> q = fb.frame.reference
        >>> bool(np.allclose(fb.constraint_jacobian(q) @ fb.velocity_map(q), 0.0))
        True
        """
        return self.frame._K(as_array(q, "q", self.frame.point_shape))

    def close_loop(self, q) -> np.ndarray:
        """Project ``q`` onto the loop-closure manifold (see :meth:`LoopClosureFrame.close_loop`).

        Parameters
        ----------
        q : array_like, shape (..., n)

        Returns
        -------
        ndarray, shape (..., n)

        Raises
        ------
        SingularityError
            If Newton's method fails.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> q = fb.close_loop(fb.frame.reference + [0.1, 0.0, 0.0])
        >>> float(np.max(np.abs(fb.constraint(q)))) < 1e-12
        True
        """
        return self.frame.close_loop(q)

    def velocity_map(self, q) -> np.ndarray:
        r""":math:`A(q)` with :math:`v_{\rm spanning} = A\, v_{\rm minimal}`.

        Parameters
        ----------
        q : array_like, shape (..., n)
            Closed configuration(s).

        Returns
        -------
        ndarray, shape (..., n, m)

        Raises
        ------
        NotOnManifoldError
            If ``q`` does not close the loop.
        SingularityError
            At a singular configuration.

        Examples
        --------
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> fb.velocity_map(fb.frame.reference).shape
        (3, 1)
        """
        return self.connection.velocity_map(q)

    def velocity_map_derivative(self, q, v) -> np.ndarray:
        r""":math:`\dot A` along the motion with minimal speeds ``v``.

        Parameters
        ----------
        q : array_like, shape (..., n)
        v : array_like, shape (..., m)

        Returns
        -------
        ndarray, shape (..., n, m)

        Raises
        ------
        NotOnManifoldError
            If ``q`` does not close the loop.

        Examples
        --------
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> fb.velocity_map_derivative(fb.frame.reference, [1.0]).shape
        (3, 1)
        """
        return self.connection.velocity_map_derivative(q, v)

    def mass_matrix(self, q) -> np.ndarray:
        r""":math:`H_{\rm minimal} = A^\top H_{\rm spanning} A`.

        Parameters
        ----------
        q : array_like, shape (..., n)

        Returns
        -------
        ndarray, shape (..., m, m)

        Raises
        ------
        NotOnManifoldError
            If ``q`` does not close the loop.

        Examples
        --------
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> fb.mass_matrix(fb.frame.reference).shape
        (1, 1)
        """
        return self.system.mass_matrix(q)

    def coriolis_matrix(self, q, v) -> np.ndarray:
        r""":math:`C_{\rm minimal} = A^\top C_{\rm spanning} A + A^\top H_{\rm spanning} \dot A`.

        Parameters
        ----------
        q : array_like, shape (..., n)
        v : array_like, shape (..., m)
            Minimal speeds (of the independent coordinates).

        Returns
        -------
        ndarray, shape (..., m, m)

        Raises
        ------
        NotOnManifoldError
            If ``q`` does not close the loop.

        References
        ----------
        seed 000 §VI-C1, eq. (17).

        Examples
        --------
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> fb.coriolis_matrix(fb.frame.reference, [1.0]).shape
        (1, 1)
        """
        return self.connection.coriolis_matrix(q, v)

    def with_connection(self, tree) -> ClosedChain:
        """The same chain with another connection on the spanning tree.

        Parameters
        ----------
        tree : AffineConnection
            On the same spanning-tree system (e.g. ``chain.tree + contorsion``).

        Returns
        -------
        ClosedChain

        Raises
        ------
        ConnectionSpecError
            If ``tree`` is not a connection of the same dimension.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import Contorsion
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> twisted = fb.with_connection(fb.tree + Contorsion.totally_antisymmetric([0.7]))
        >>> q = fb.frame.reference
        >>> bool(np.allclose(twisted.coriolis_matrix(q, [1.0]), fb.coriolis_matrix(q, [1.0])))
        True
        """
        if not isinstance(tree, AffineConnection) or tree.dim != self.tree.dim:
            raise ConnectionSpecError(
                f"Expected `tree` to be an AffineConnection of dimension {self.tree.dim}, got "
                f"{tree!r}."
            )
        return ClosedChain(tree, **self._spec)

    def __repr__(self):
        return (
            f"<ClosedChain: {self.tree.dim} spanning-tree coordinates, {self.dim} "
            f"independent {self.independent.tolist()}>"
        )
