r"""Induced connections on submanifolds (seed 000 §V).

A constrained system lives on a submanifold :math:`\bar{\mathcal Q} \subseteq \mathcal Q` with
its own frame :math:`\bar X_j = A^i_j X_i`, so that the speeds are related by
:math:`v = A \bar v` (eq. 15). It inherits

- the induced metric :math:`\bar H = A^\top H A`;
- the induced connection :math:`\bar\nabla_X Y = \mathrm{proj}_{T\bar{\mathcal Q}} \nabla_X Y`,
  whose coefficients are (proof of Thm. V.1)

  .. math::
      \bar\Gamma_{ijk} = \langle\!\langle \bar X_i, \nabla_{\bar X_j} \bar X_k\rangle\!\rangle
      = A^a_i A^b_j A^c_k\, \Gamma_{abc} + A^a_i H_{ab}\, \mathscr L_{\bar X_j} A^b_k ;

- hence the Coriolis matrix :math:`\bar C = A^\top C A + A^\top H \dot A` with
  :math:`\dot A = \mathscr L_{\bar X_k} A\, \bar v^k` (eq. 17; on arrays,
  :func:`~geomech.geometry.transformation.transform_coriolis`).

The inhomogeneous term does not depend on :math:`\nabla`, so contorsions transform as tensors,
:math:`\bar D_{ijk} = A^a_i A^b_j A^c_k D_{abc}`, and metric compatibility, Riemannian geodesics
and the Levi-Civita property are inherited (Props. V.1-V.3).

:class:`InducedConnection` is the induced connection as an
:class:`~geomech.geometry.connection.AffineConnection` on a
:class:`~geomech.geometry.system.MechanicalSystem` for :math:`\bar{\mathcal Q}`, given by a
velocity map :math:`A(\bar q)` or an embedding :math:`\varphi: \bar{\mathcal Q} \to \mathcal Q`;
its numerical derivatives use the stencils of :mod:`geomech.geometry.stencils`. Closed chains
(loop closure by projection) are :mod:`geomech.geometry.closed_chain`.

References
----------
seed 000 §V (eqs. 15-17, Thm. V.1, Props. V.1-V.3).
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array, check_full_column_rank
from geomech.errors import ConnectionSpecError, DimensionError
from geomech.geometry.connection import AffineConnection
from geomech.geometry.frames import CoordinateFrame, LeftInvariantFrame
from geomech.geometry.resolution import resolve_connection
from geomech.geometry.stencils import frame_log, has_frame_log, lie_derivative5
from geomech.geometry.system import MechanicalSystem
from geomech.lie import Euclidean, LieGroup

__all__ = ["InducedConnection"]


class _InducedSystem(MechanicalSystem):
    """The system on Q_bar: H_bar = A^T H A, with exact Lie derivatives by the chain rule."""

    def __init__(self, induced, manifold, frame, potential):
        self._induced = induced
        super().__init__(manifold, induced._H_bar, frame=frame, potential=potential)

    def _dH(self, q):
        return self._induced._dH_bar(q)

    def gravity_forces(self, q) -> np.ndarray:
        r"""Generalized gravity forces by the chain rule, :math:`\bar g = A^\top g(\varphi(\bar
        q))`.

        (:math:`\mathscr L_{\bar X_j}(V\circ\varphi) = A^a_j\,\mathscr L_{X_a} V`: exact when the
        ambient system's :math:`g` is.)
        """
        q = self._point(q)
        ind = self._induced
        if self.potential is None:
            return np.zeros(self._batch(q) + (self.dim,))
        g = ind.ambient.system.gravity_forces(ind._ambient_point(q))
        return np.einsum("...ai,...a->...i", ind._A(q), g)


class InducedConnection(AffineConnection):
    r"""The connection induced on a submanifold :math:`\bar{\mathcal Q} \subseteq \mathcal Q`.

    :math:`\bar\nabla_X Y = \mathrm{proj}_{T\bar{\mathcal Q}} \nabla_X Y` with the
    :math:`H`-orthogonal projection, for the frame :math:`\bar X_j = A^i_j X_i` of
    :math:`\bar{\mathcal Q}` (:math:`v = A\bar v`). It is an
    :class:`~geomech.geometry.connection.AffineConnection` on the
    :class:`~geomech.geometry.system.MechanicalSystem` :attr:`system` of
    :math:`\bar{\mathcal Q}` (metric :math:`\bar H = A^\top H A`, potential
    :math:`V\circ\varphi`), so its Coriolis matrix, predicates, geodesics and parallel
    transport are those of the base class:

    .. math::
        \bar\Gamma_{ijk} = A^a_i A^b_j A^c_k\, \Gamma_{abc}
            + A^a_i H_{ab}\, \mathscr L_{\bar X_j} A^b_k, \qquad
        \bar C = \bar\Gamma_{ijk} \bar v^j = A^\top C A + A^\top H \dot A .

    :math:`\bar{\mathcal Q}` is described either

    - by an ``embedding`` :math:`\varphi: \bar{\mathcal Q} \to \mathcal Q` (points of
      :math:`\bar{\mathcal Q}` are points of ``manifold``/``frame``; ``A`` is then the
      derivative of :math:`\varphi` in the two frames: supplied as ``A``, or computed by the
      five-point stencil along the flow of :math:`\bar X_j`, with the chart of
      :math:`\mathcal Q`'s frame — coordinates, or ``log`` on a Lie group); or
    - by a velocity map ``A`` alone (``embedding=None``): points of :math:`\bar{\mathcal Q}`
      are points of :math:`\mathcal Q`, and ``frame`` is a frame on :math:`\bar{\mathcal Q}`
      whose flow stays on it (e.g. :class:`LoopClosureFrame`).

    :math:`\mathscr L_{\bar X_k} A` is ``A_dot(q, e_k)`` when ``A_dot`` is supplied, zero for a
    constant ``A``, and otherwise computed by the five-point stencil along the flow of
    :math:`\bar X_k` (step ``step``, default :math:`\epsilon^{1/5}\max(1, \max|\bar q|)`; see
    the module docstring for the accuracy).

    Parameters
    ----------
    connection : AffineConnection or MechanicalSystem
        The connection :math:`\nabla` on :math:`\mathcal Q` (``n = connection.dim``); a system
        (e.g. a :class:`~geomech.multibody.MultibodyModel` or a
        :class:`~geomech.rigidbody.RigidBody`) stands for its Levi-Civita connection.
    A : callable or array_like, shape (n, m), optional
        Velocity map :math:`A(\bar q)`: batched callable ``q_bar -> (..., n, m)`` or a
        constant array. With ``embedding`` it is the user-supplied Jacobian of the embedding.
    embedding : callable, optional
        :math:`\varphi`: batched ``q_bar (..., *point_shape_bar) -> q (..., *point_shape)``.
    manifold : geomech.lie.LieGroup, optional
        The manifold of :math:`\bar{\mathcal Q}` (e.g. ``Euclidean(2)`` for coordinates);
        gives the default frame.
    frame : Frame, optional
        The frame :math:`\bar X` of :math:`\bar{\mathcal Q}` (``m = frame.dim``).
    A_dot : callable, optional
        ``A_dot(q_bar, v_bar) -> (..., n, m)``, :math:`\dot A` (linear in ``v_bar``).
    step : float, optional
        Step of the five-point stencils.

    Attributes
    ----------
    ambient : AffineConnection
        The connection on :math:`\mathcal Q`.
    system : MechanicalSystem
        The system on :math:`\bar{\mathcal Q}`.
    dim : int
        ``m``.

    Raises
    ------
    ConnectionSpecError
        If ``connection`` is not an :class:`AffineConnection`, neither ``A`` nor ``embedding``
        is given, neither ``manifold`` nor ``frame`` is given, a callable argument is not
        callable, or ``A`` must be differentiated numerically from an embedding into a frame
        without a chart inverse (supply ``A``).
    DimensionError
        If a constant ``A`` is not ``(n, m)``, or (without ``embedding``) the points of the two
        frames differ in shape. Evaluations raise it when ``A(q)``, ``A_dot(q, v)`` or
        ``embedding(q)`` return the wrong shape (naming the input).
    SingularityError
        If ``A`` is rank deficient (at construction for a constant ``A``, else on evaluation);
        the message gives the smallest singular value.

    References
    ----------
    seed 000 §V: eq. (15), (16), Thm. V.1 and its proof, eq. (17), Props. V.1-V.3.

    Examples
    --------
    A particle on the unit sphere in spherical coordinates :math:`(\theta, \phi)`, from the
    Euclidean connection of :math:`\mathbb R^3`: :math:`\bar\Gamma_{\theta\phi\phi} = -\sin
    \theta\cos\theta`.

    >>> import numpy as np
    >>> from geomech.geometry import InducedConnection, LeviCivitaConnection
    >>> from geomech.geometry.examples import point_mass
    >>> from geomech.lie import Euclidean
    >>> def sphere(q):
    ...     th, ph = q[..., 0], q[..., 1]
    ...     return np.stack([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)], -1)
    >>> conn = InducedConnection(LeviCivitaConnection(point_mass()), embedding=sphere,
    ...                          manifold=Euclidean(2))
    >>> q = np.array([np.pi / 4, 0.3])
    >>> np.round(conn.system.mass_matrix(q), 12) + 0.0
    array([[1. , 0. ],
           [0. , 0.5]])
    >>> round(float(conn.christoffel_first_kind(q)[0, 1, 1]), 10)
    -0.5
    >>> bool(conn.is_torsion_free(q)), bool(conn.is_metric_compatible(q))
    (True, True)
    """

    def __init__(
        self,
        connection,
        A=None,
        embedding=None,
        *,
        manifold=None,
        frame=None,
        A_dot=None,
        step=None,
    ):
        if not isinstance(connection, AffineConnection):
            if not (
                isinstance(connection, MechanicalSystem)
                or callable(getattr(connection, "mechanical_system", None))
            ):
                raise ConnectionSpecError(
                    "Expected `connection` to be an AffineConnection on the ambient system (or "
                    f"the system itself), got {type(connection).__name__}."
                )
            connection = resolve_connection(connection)  # a system: its Levi-Civita connection
        if A is None and embedding is None:
            raise ConnectionSpecError(
                "Expected a velocity map `A` or an `embedding` of the submanifold, got neither."
            )
        for value, name in ((embedding, "embedding"), (A_dot, "A_dot")):
            if value is not None and not callable(value):
                raise ConnectionSpecError(
                    f"Expected `{name}` to be callable, got {type(value).__name__}."
                )
        if frame is None and manifold is None:
            raise ConnectionSpecError(
                "Expected the submanifold's `frame` or `manifold` (e.g. Euclidean(m) for "
                "coordinates), got neither."
            )
        if frame is None:
            if not isinstance(manifold, LieGroup):
                raise ConnectionSpecError(
                    "Expected `manifold` to be a geomech.lie.LieGroup, got "
                    f"{type(manifold).__name__}."
                )
            frame = (
                CoordinateFrame(manifold.dim)
                if isinstance(manifold, Euclidean)
                else LeftInvariantFrame(manifold)
            )
        if step is not None and not (np.isscalar(step) and float(step) > 0):
            raise ConnectionSpecError(f"Expected `step` to be a positive float, got {step!r}.")
        self.ambient = connection
        self._frame_bar = frame
        self._step_size = step
        n, m = connection.dim, int(frame.dim)
        self._n, self._m = n, m
        amb_frame = connection.system.frame
        self._embedding = embedding
        if embedding is None and tuple(frame.point_shape) != tuple(amb_frame.point_shape):
            raise DimensionError(
                "Expected the submanifold's points to be points of the ambient manifold "
                f"(shape {tuple(amb_frame.point_shape)}) when no `embedding` is given, got "
                f"`frame` points of shape {tuple(frame.point_shape)}."
            )
        # the velocity map: constant, callable, or the derivative of the embedding
        self._A_const = self._A_fun = None
        if A is None:
            if not has_frame_log(amb_frame):
                raise ConnectionSpecError(
                    f"Expected the Jacobian `A` of the embedding: the ambient frame {amb_frame!r} "
                    "has no chart inverse (log) to differentiate the embedding numerically."
                )
        elif callable(A):
            self._A_fun = A
        else:
            A = as_array(A, "A")
            if A.shape != (n, m):
                raise DimensionError(
                    f"Expected `A` to have shape {(n, m)} (n = {n} ambient speeds, m = {m} "
                    f"speeds of the submanifold), got {A.shape}."
                )
            check_full_column_rank(A, "A")
            self._A_const = A.copy()
        self._A_dot = A_dot
        V = connection.system.potential
        potential = None if V is None else (lambda q: V(self._ambient_point(q)))
        system = _InducedSystem(self, manifold, frame, potential)
        super().__init__(system, self._coefficients)

    # ------------------------------------------------------------------------------------
    # internals (points already validated)
    # ------------------------------------------------------------------------------------
    def _batch_of(self, q: np.ndarray) -> tuple[int, ...]:
        return q.shape[: q.ndim - len(self._frame_bar.point_shape)]

    def _ambient_point(self, q: np.ndarray) -> np.ndarray:
        if self._embedding is None:
            return q
        p = np.asarray(self._embedding(q), dtype=float)
        want = self._batch_of(q) + tuple(self.ambient.system.frame.point_shape)
        if p.shape != want:
            raise DimensionError(f"Expected `embedding(q)` to have shape {want}, got {p.shape}.")
        return p

    def _A(self, q: np.ndarray, check: bool = True) -> np.ndarray:
        n, m = self._n, self._m
        batch = self._batch_of(q)
        if self._A_const is not None:
            return np.broadcast_to(self._A_const, batch + (n, m))
        if self._A_fun is not None:
            A = np.asarray(self._A_fun(q), dtype=float)
            if A.shape != batch + (n, m):
                raise DimensionError(
                    f"Expected `A(q)` to have shape {batch + (n, m)} (n = {n} rows, one per "
                    f"ambient speed; m = {m} columns), got {A.shape}."
                )
        else:
            A = self._embedding_jacobian(q)
        if check:
            check_full_column_rank(A, "A(q)")
        return A

    def _embedding_jacobian(self, q: np.ndarray) -> np.ndarray:
        """A[..., :, j] = frame components (on Q) of d/dt phi(flow_bar(q, e_j, t)) at t = 0."""
        amb_frame = self.ambient.system.frame
        p0 = self._ambient_point(q)

        def chart(q_shift):
            return frame_log(amb_frame, p0, self._ambient_point(q_shift))

        dphi = lie_derivative5(self._frame_bar, chart, q, self._step_size)  # (..., m, n)
        return np.swapaxes(dphi, -1, -2)

    def _dA(self, q: np.ndarray) -> np.ndarray:
        """dA[..., k, :, :] = L_{X_bar_k} A, shape (..., m, n, m)."""
        n, m = self._n, self._m
        batch = self._batch_of(q)
        if self._A_const is not None:
            return np.zeros(batch + (m, n, m))
        if self._A_dot is not None:
            ps = tuple(self._frame_bar.point_shape)
            qb = np.broadcast_to(q[None], (m,) + q.shape)
            E = np.broadcast_to(
                np.eye(m).reshape((m,) + (1,) * len(batch) + (m,)), (m,) + batch + (m,)
            )
            dA = np.asarray(self._A_dot(qb, E), dtype=float)
            if dA.shape != (m,) + batch + (n, m):
                raise DimensionError(
                    f"Expected `A_dot(q, v)` to have shape {batch + (n, m)} for q of shape "
                    f"{batch + ps}, got {dA.shape[1:]}."
                )
            return np.moveaxis(dA, 0, len(batch))
        # the rank is checked at q, not at the stencil points
        return lie_derivative5(
            self._frame_bar, lambda p: self._A(p, check=False), q, self._step_size
        )

    def _H_bar(self, q: np.ndarray) -> np.ndarray:
        A = self._A(q)
        H = self.ambient.system._H(self._ambient_point(q))
        H_bar = np.swapaxes(A, -1, -2) @ H @ A  # seed 000 §V-A
        return 0.5 * (H_bar + np.swapaxes(H_bar, -1, -2))

    def _dH_bar(self, q: np.ndarray) -> np.ndarray:
        """L_{X_bar_k} H_bar = dA_k^T H A + A^T (A^a_k L_{X_a} H) A + A^T H dA_k."""
        A, dA = self._A(q), self._dA(q)
        p = self._ambient_point(q)
        amb = self.ambient.system
        H, dH = amb._H(p), amb._dH(p)  # dH[..., a, i, j] = L_{X_a} H_ij
        # (two-operand contractions: einsum path optimisation costs more than it saves here)
        term = np.einsum("...kbi,...bj->...kij", dA, H @ A)  # dA_k^T H A
        dH_k = np.einsum("...ak,...aij->...kij", A, dH)  # chain rule: X_bar_k = A^a_k X_a
        middle = np.einsum("...ai,...kab->...kib", A, dH_k) @ A[..., None, :, :]
        return term + np.swapaxes(term, -1, -2) + middle

    def _coefficients(self, q: np.ndarray) -> np.ndarray:
        A, dA = self._A(q), self._dA(q)
        p = self._ambient_point(q)
        G = self.ambient._Gamma(p)
        H = self.ambient.system._H(p)
        # seed 000 proof of Thm. V.1: Gamma_bar_ijk = <X_bar_i, nabla_{X_bar_j} X_bar_k>
        #   = A^a_i A^b_j A^c_k Gamma_abc + A^a_i H_ab L_{X_bar_j} A^b_k
        # (contracted one index at a time: einsum's path search costs more than it saves)
        G_c = np.einsum("...abc,...ck->...abk", G, A)
        G_bc = np.einsum("...abk,...bj->...ajk", G_c, A)
        tensorial = np.einsum("...ai,...ajk->...ijk", A, G_bc)
        inhomogeneous = np.einsum("...ib,...jbk->...ijk", np.swapaxes(A, -1, -2) @ H, dA)
        return tensorial + inhomogeneous

    # ------------------------------------------------------------------------------------
    # public
    # ------------------------------------------------------------------------------------
    def ambient_point(self, q) -> np.ndarray:
        r"""The point :math:`\varphi(\bar q)` of :math:`\mathcal Q` (``q`` itself without an
        embedding).

        Parameters
        ----------
        q : array_like, shape (..., *point_shape_bar)

        Returns
        -------
        ndarray, shape (..., *point_shape)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` is not a valid point of :math:`\bar{\mathcal Q}`, or ``embedding(q)``
            has the wrong shape.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples_induced import particle_on_sphere
        >>> np.round(particle_on_sphere(radius=2.0).ambient_point([np.pi / 2, 0.0]), 12)
        array([2., 0., 0.])
        """
        return np.array(self._ambient_point(self._point(q)))

    def velocity_map(self, q) -> np.ndarray:
        r"""The velocity map :math:`A(\bar q)`, :math:`v = A \bar v` (eq. 15).

        Parameters
        ----------
        q : array_like, shape (..., *point_shape_bar)

        Returns
        -------
        ndarray, shape (..., n, m)

        Raises
        ------
        DimensionError
            If ``q`` is malformed or ``A(q)`` has the wrong shape.
        SingularityError
            If ``A(q)`` is rank deficient.

        References
        ----------
        seed 000 eq. (15).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples_induced import particle_on_sphere
        >>> np.round(particle_on_sphere().velocity_map([np.pi / 2, 0.0]), 12) + 0.0
        array([[ 0.,  0.],
               [ 0.,  1.],
               [-1.,  0.]])
        """
        return np.array(self._A(self._point(q)))

    def velocity_map_derivative(self, q, v) -> np.ndarray:
        r"""Time derivative of the velocity map, :math:`\dot A = \mathscr L_{\bar X_k} A\,
        \bar v^k`.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape_bar)
        v : array_like, shape (..., m)

        Returns
        -------
        ndarray, shape (..., n, m)

        Raises
        ------
        DimensionError
            If ``q`` or ``v`` is malformed or ``A_dot`` returns the wrong shape.

        References
        ----------
        seed 000 Thm. V.1.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples_induced import particle_on_sphere
        >>> A_dot = particle_on_sphere().velocity_map_derivative([np.pi / 2, 0.0], [1.0, 0.0])
        >>> np.round(A_dot, 9) + 0.0  # d/dtheta of the columns [e_theta, sin(theta) e_phi]
        array([[-1.,  0.],
               [ 0.,  0.],
               [ 0.,  0.]])
        """
        q = self._point(q)
        v = as_array(v, "v", (self._m,))
        return np.einsum("...kij,...k->...ij", self._dA(q), v)

    def __repr__(self):
        return f"<InducedConnection on {self.system!r} from {self.ambient!r}>"
