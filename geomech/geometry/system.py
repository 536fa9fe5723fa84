r"""A mechanical system: configuration manifold, frame, kinetic-energy metric and potential.

The kinetic energy is :math:`T = \tfrac12 v^\top H(q) v` with :math:`\dot q = X_i(q) v^i`, so
:math:`H_{ij} = \langle\!\langle X_i, X_j\rangle\!\rangle` (seed 000 §II, no ½ in the metric).
The equations of motion are :math:`H\dot v + C(q, v) v + g(q) = \tau` with
:math:`g_i = \mathscr L_{X_i} V` (seed 000 eqs. (1), (6)); the Coriolis matrix ``C`` is
supplied by a connection (:mod:`geomech.geometry.connection`).
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array, check_spd
from geomech.errors import ConnectionSpecError, DimensionError
from geomech.geometry.frames import CoordinateFrame, Frame, LeftInvariantFrame
from geomech.lie import Euclidean, LieGroup

__all__ = ["MechanicalSystem", "as_mechanical_system"]


class MechanicalSystem:
    r"""Configuration manifold + frame + metric :math:`H(q)` + potential :math:`V(q)`.

    Parameters
    ----------
    manifold : geomech.lie.LieGroup or None
        Configuration manifold: a Lie group (points are group elements) or
        ``Euclidean(n)`` (points are coordinate vectors). May be ``None`` when ``frame`` is
        given (e.g. a multibody model's flat configuration vector).
    mass_matrix : callable or array_like, shape (n, n)
        :math:`H(q)` in the frame: a constant symmetric positive-definite array (checked
        here) or a callable ``q -> (..., n, n)`` (checked at every public evaluation).
    frame : Frame, optional
        Default: the coordinate frame on ``Euclidean(n)``, the left-invariant frame on any
        other Lie group. Any object with ``dim``, ``point_shape``, ``flow(q, w, t)``,
        ``structure_constants(q)`` and ``chart_velocity(q0, phi, v)`` works; subclass
        :class:`~geomech.geometry.frames.Frame` to get :meth:`Frame.lie_derivative`.
    potential : callable, optional
        ``V(q) -> (...)``; default none (zero gravity forces).

    Attributes
    ----------
    dim : int
        Number of generalized speeds ``n``.
    manifold, frame, potential
        As given (``frame`` resolved).

    Raises
    ------
    ConnectionSpecError
        If neither a Lie group nor a frame is given, or ``potential`` is not callable.
    DimensionError
        If a constant ``mass_matrix`` is not ``(n, n)`` or the frame and manifold disagree.
    InertiaError
        If a constant ``mass_matrix`` is not symmetric positive definite.

    References
    ----------
    seed 000 §II (frames, structure constants, Hamel's equations (6)).

    Examples
    --------
    A rigid body on SO(3) with body angular velocity as generalized speeds:

    >>> import numpy as np
    >>> from geomech.geometry import MechanicalSystem
    >>> from geomech.lie import SO3
    >>> body = MechanicalSystem(SO3, np.diag([1.0, 2.0, 3.0]))
    >>> body.dim, body.frame
    (3, LeftInvariantFrame(SO(3)))
    >>> float(body.kinetic_energy(SO3.identity(), [1.0, 1.0, 0.0]))
    1.5
    """

    def __init__(self, manifold, mass_matrix, frame=None, potential=None):
        if frame is None:
            if isinstance(manifold, Euclidean):
                frame = CoordinateFrame(manifold.dim)
            elif isinstance(manifold, LieGroup):
                frame = LeftInvariantFrame(manifold)
            else:
                raise ConnectionSpecError(
                    "Expected `manifold` to be a geomech.lie.LieGroup (or a `frame` to be "
                    f"given), got {type(manifold).__name__}."
                )
        for attr in ("dim", "point_shape", "flow", "structure_constants"):
            if not hasattr(frame, attr):
                raise ConnectionSpecError(f"Expected `frame` to have `{attr}`, got {frame!r}.")
        if manifold is not None and getattr(manifold, "dim", frame.dim) != frame.dim:
            raise DimensionError(
                f"Expected `frame` of dimension {manifold.dim} (the manifold's), got {frame.dim}."
            )
        if potential is not None and not callable(potential):
            raise ConnectionSpecError(
                f"Expected `potential` to be callable, got {type(potential).__name__}."
            )
        self.manifold = manifold
        self.frame = frame
        self.potential = potential
        self.dim = int(frame.dim)
        n = self.dim
        if callable(mass_matrix):
            self._H_const = None
            self._H_fun = mass_matrix
        else:
            H = as_array(mass_matrix, "mass_matrix")
            if H.shape != (n, n):
                raise DimensionError(
                    f"Expected `mass_matrix` to have shape {(n, n)}, got {H.shape}."
                )
            check_spd(H, "mass_matrix")
            self._H_const = H.copy()
            self._H_fun = None

    # ------------------------------------------------------------------------------------
    @property
    def has_constant_mass_matrix(self) -> bool:
        """Whether :math:`H` is a constant array (then all its Lie derivatives are exactly 0).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import MechanicalSystem
        >>> from geomech.lie import SO3
        >>> MechanicalSystem(SO3, np.eye(3)).has_constant_mass_matrix
        True
        """
        return self._H_const is not None

    def _batch(self, q: np.ndarray) -> tuple[int, ...]:
        return q.shape[: q.ndim - len(self.frame.point_shape)]

    def _point(self, q, name: str = "q") -> np.ndarray:
        if hasattr(self.frame, "validate_point"):
            return self.frame.validate_point(q, name)
        return as_array(q, name, tuple(self.frame.point_shape))

    def _H(self, q: np.ndarray) -> np.ndarray:
        """Unvalidated H(q) of shape (*batch, n, n)."""
        batch = self._batch(q)
        if self._H_const is not None:
            return np.broadcast_to(self._H_const, batch + self._H_const.shape)
        H = np.asarray(self._H_fun(q), dtype=float)
        n = self.dim
        if H.shape != batch + (n, n):
            raise DimensionError(
                f"Expected `mass_matrix(q)` to have shape {batch + (n, n)}, got {H.shape}."
            )
        return H

    def _s(self, q: np.ndarray) -> np.ndarray:
        return np.asarray(self.frame.structure_constants(q), dtype=float)

    def _dH(self, q: np.ndarray) -> np.ndarray:
        """dH[..., k, i, j] = L_{X_k} H_ij (zero exactly for constant H)."""
        n = self.dim
        if self._H_const is not None:
            return np.zeros(self._batch(q) + (n, n, n))
        return self.lie_derivative(self._H, q)

    def _koszul(self, q: np.ndarray) -> np.ndarray:
        r"""Unvalidated Levi-Civita coefficients of the metric in the frame (Koszul formula).

        .. math:: 2\Gamma^\star_{ijk} = \mathscr L_{X_k} H_{ij} + \mathscr L_{X_j} H_{ik}
                  - \mathscr L_{X_i} H_{jk} + s_{kij} + s_{jik} + s_{ijk}

        (seed 000 eq. 8, :math:`s_{ijk} = H_{i\ell} s^\ell_{jk}`): the coefficients of
        :class:`~geomech.geometry.LeviCivitaConnection` and the reference of every contorsion.
        """
        dH = self._dH(q)  # dH[k, i, j] = L_{X_k} H_ij
        s = np.einsum("...il,...jkl->...ijk", self._H(q), self._s(q))  # s_ijk, lowered
        # seed 000 eq. (8)
        return 0.5 * (
            np.einsum("...kij->...ijk", dH)  # L_{X_k} H_ij
            + np.einsum("...jik->...ijk", dH)  # L_{X_j} H_ik
            - dH  # L_{X_i} H_jk
            + np.einsum("...kij->...ijk", s)  # s_kij = <X_k, [X_i, X_j]>
            + np.einsum("...jik->...ijk", s)  # s_jik = <X_j, [X_i, X_k]>
            + s  # s_ijk = <X_i, [X_j, X_k]>
        )

    # ------------------------------------------------------------------------------------
    def mass_matrix(self, q) -> np.ndarray:
        r"""Mass matrix :math:`H_{ij}(q) = \langle\!\langle X_i, X_j\rangle\!\rangle_q`.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)

        Returns
        -------
        ndarray, shape (..., n, n)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` is not a valid configuration, or ``H(q)`` has the wrong shape.
        InertiaError
            If a callable ``H(q)`` is not symmetric positive definite.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples import two_link_arm
        >>> arm = two_link_arm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> arm.mass_matrix([0.0, 0.0])
        array([[2.7 , 0.85],
               [0.85, 0.35]])
        """
        q = self._point(q)
        H = self._H(q)
        if self._H_fun is not None:
            check_spd(H, "mass_matrix(q)")
        return np.array(H)

    def structure_constants(self, q) -> np.ndarray:
        """Structure constants of the frame, ``s[..., i, j, k]`` :math:`= s^k_{ij}`.

        .. math:: [X_i, X_j] = s^k_{ij} X_k

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)

        Returns
        -------
        ndarray, shape (..., n, n, n)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` is not a valid configuration.

        References
        ----------
        seed 000 §II.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples import rigid_body_so3
        >>> body = rigid_body_so3(np.eye(3))
        >>> body.structure_constants(np.eye(3))[1, 2]  # [X_y, X_z] = X_x
        array([1., 0., 0.])
        """
        return self._s(self._point(q))

    def structure_constants_lowered(self, q) -> np.ndarray:
        r"""Lowered structure constants :math:`s_{ijk} = H_{i\ell}\, s^\ell_{jk}`.

        This is the form in seed 000 eqs. (8)-(9): ``s_low[i, j, k] = ⟨X_i, [X_j, X_k]⟩``,
        antisymmetric in ``(j, k)``.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)

        Returns
        -------
        ndarray, shape (..., n, n, n)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` is not a valid configuration.

        References
        ----------
        seed 000 §II, eq. (8).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples import rigid_body_so3
        >>> body = rigid_body_so3(np.diag([1.0, 2.0, 3.0]))
        >>> float(body.structure_constants_lowered(np.eye(3))[2, 0, 1])  # H_33 * eps_312
        3.0
        """
        q = self._point(q)
        return np.einsum("...il,...jkl->...ijk", self._H(q), self._s(q))

    def lie_derivative(self, f, q, step=None) -> np.ndarray:
        r"""Derivative of ``f`` along each frame field, :math:`\mathscr L_{X_k} f`.

        Central differences along the frame's flow (step rule and accuracy in
        :meth:`geomech.geometry.frames.Frame.lie_derivative`: ``h = eps**(1/3) max(1,
        max|q|)``, error :math:`O(h^2)`, about :math:`10^{-10}` relative).

        Parameters
        ----------
        f : callable
            Batched function ``q -> (..., *out)``.
        q : array_like, shape (..., *point_shape)
        step : float, optional
            Finite-difference step ``h``.

        Returns
        -------
        ndarray, shape (..., n, *out)
            ``result[..., k, ...]`` is :math:`\mathscr L_{X_k} f`.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` is not a valid configuration.

        References
        ----------
        seed 000 §II.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples import point_mass
        >>> pm = point_mass()
        >>> np.round(pm.lie_derivative(lambda q: q[..., 2] ** 2, [0.0, 0.0, 1.0]), 8)
        array([0., 0., 2.])
        """
        q = self._point(q)
        if hasattr(self.frame, "lie_derivative"):
            return self.frame.lie_derivative(f, q, step)
        return Frame.lie_derivative(self.frame, f, q, step)

    def mass_matrix_lie_derivative(self, q) -> np.ndarray:
        r"""Lie derivatives of the mass matrix, ``dH[..., i, j, k]`` :math:`= \mathscr L_{X_k}
        H_{ij}`.

        A derivative array: the differentiated matrix's indices first, the direction ``k`` last
        (like ``dM_dq`` of :func:`geomech.multibody.algorithms.derivatives.rnea_second_derivatives`;
        conventions page). Exactly zero for a constant ``H``; central differences along the flow
        otherwise. Subclasses give an analytic expression by overriding the hook ``_dH(q)`` (which
        receives a validated array and returns the direction index first, ``[..., k, i, j]``, as
        :meth:`lie_derivative` does); every connection and predicate goes through that hook.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)

        Returns
        -------
        ndarray, shape (..., n, n, n)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` is not a valid configuration.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples import two_link_arm
        >>> arm = two_link_arm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> np.round(arm.mass_matrix_lie_derivative([0.0, np.pi / 2])[..., 1], 8)  # d/dq2
        array([[-1. , -0.5],
               [-0.5,  0. ]])
        """
        return np.moveaxis(self._dH(self._point(q)), -3, -1)

    def mass_matrix_derivative(self, q, v) -> np.ndarray:
        r"""Time derivative of the mass matrix along the motion, :math:`\dot H`.

        .. math:: \dot H_{ij} = (\mathscr L_{X_k} H_{ij})\, v^k

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
        v : array_like, shape (..., n)
            Generalized speeds; leading dimensions broadcast with ``q``'s.

        Returns
        -------
        ndarray, shape (..., n, n)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` or ``v`` is malformed.

        References
        ----------
        seed 000 §II (after eq. 3).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples import two_link_arm
        >>> arm = two_link_arm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
        >>> np.round(arm.mass_matrix_derivative([0.0, np.pi / 2], [0.0, 2.0]), 8)
        array([[-2., -1.],
               [-1.,  0.]])
        """
        q = self._point(q)
        v = as_array(v, "v", (self.dim,))
        return np.einsum("...kij,...k->...ij", self._dH(q), v)

    def gravity_forces(self, q) -> np.ndarray:
        r"""Generalized gravity forces :math:`g_i = \mathscr L_{X_i} V`.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)

        Returns
        -------
        ndarray, shape (..., n)
            Zero if the system has no potential.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` is not a valid configuration.

        References
        ----------
        seed 000 Remark 1 (after eq. 6).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples import two_link_arm
        >>> arm = two_link_arm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1, gravity=10.0)
        >>> np.round(arm.gravity_forces([0.0, 0.0]), 6)  # arm horizontal
        array([20.,  5.])
        """
        q = self._point(q)
        if self.potential is None:
            return np.zeros(self._batch(q) + (self.dim,))
        return self.lie_derivative(self.potential, q)

    def coriolis_matrix(self, q, v) -> np.ndarray:
        r"""Coriolis matrix of the Levi-Civita connection, :math:`C^\star_{ik} = \Gamma^\star_{ijk}
        v^j`.

        With :math:`\Gamma^\star` from the Koszul formula (seed 000 eq. 8; subclasses such as
        :class:`~geomech.multibody.MultibodyModel` override it with a fast algorithm). Other
        factorizations come from a connection's
        :meth:`~geomech.geometry.AffineConnection.coriolis_matrix`.

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
        seed 000 eqs. (8), (10).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples import rigid_body_so3
        >>> body = rigid_body_so3(np.diag([1.0, 2.0, 3.0]))
        >>> w = np.array([1.0, 2.0, 3.0])
        >>> body.coriolis_matrix(np.eye(3), w) @ w  # = w x (I w)
        array([ 6., -6.,  2.])
        """
        q = self._point(q)
        v = as_array(v, "v", (self.dim,))
        return np.einsum("...ijk,...j->...ik", self._koszul(q), v)

    def forward_dynamics(self, q, v, tau=None) -> np.ndarray:
        r"""Accelerations from Hamel's equations, :math:`\dot v = H^{-1}(\tau - C^\star v - g)`.

        seed 000 eq. (1) in the system's frame (eq. 6), with the Levi-Civita factorization
        (the dynamics do not depend on the factorization: :math:`Cv = C^\star v` for every
        admissible one). Subclasses override it with a fast algorithm (the ABA for a
        :class:`~geomech.multibody.MultibodyModel`).

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
        v : array_like, shape (..., n)
        tau : array_like, shape (..., n), optional
            Generalized forces (default zero).

        Returns
        -------
        ndarray, shape (..., n)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If an input is malformed.

        References
        ----------
        seed 000 Sec. II (eqs. 1, 6, 10).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples import point_mass
        >>> point_mass(2.0).forward_dynamics(np.zeros(3), np.zeros(3), [0.0, 4.0, 0.0])
        array([0., 2., 0.])
        """
        q = self._point(q)
        v = as_array(v, "v", (self.dim,))
        rhs = -np.einsum("...ijk,...j,...k->...i", self._koszul(q), v, v)
        if self.potential is not None:
            rhs = rhs - self.gravity_forces(q)
        if tau is not None:
            rhs = rhs + as_array(tau, "tau", (self.dim,))
        H = self._H(q)
        lead = np.broadcast_shapes(H.shape[:-2], rhs.shape[:-1])
        H = np.broadcast_to(H, lead + H.shape[-2:])
        return np.linalg.solve(H, np.broadcast_to(rhs, lead + rhs.shape[-1:])[..., None])[..., 0]

    def kinetic_energy(self, q, v) -> np.ndarray:
        r"""Kinetic energy :math:`T = \tfrac12 v^\top H(q) v`.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
        v : array_like, shape (..., n)

        Returns
        -------
        ndarray, shape (...)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` or ``v`` is malformed.

        Examples
        --------
        >>> from geomech.geometry.examples import point_mass
        >>> float(point_mass(mass=2.0).kinetic_energy([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]))
        1.0
        """
        q = self._point(q)
        v = as_array(v, "v", (self.dim,))
        return 0.5 * np.einsum("...i,...ij,...j->...", v, self._H(q), v)

    def flow(self, q, w, t=1.0) -> np.ndarray:
        """Follow the field :math:`w^i X_i` from ``q`` for time ``t`` (the frame's flow).

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
        w : array_like, shape (..., n)
        t : float or array_like, shape (...)

        Returns
        -------
        ndarray, shape (..., *point_shape)

        Examples
        --------
        >>> from geomech.geometry.examples import point_mass
        >>> point_mass().flow([0.0, 0.0, 0.0], [1.0, 2.0, 3.0], 0.5)
        array([0.5, 1. , 1.5])
        """
        return self.frame.flow(self._point(q), w, t)

    def neutral(self) -> np.ndarray:
        """The neutral configuration (the group identity on a Lie group, else the frame's).

        Returns
        -------
        ndarray, shape (*point_shape)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples import rigid_body_so3
        >>> rigid_body_so3(np.eye(3)).neutral()
        array([[1., 0., 0.],
               [0., 1., 0.],
               [0., 0., 1.]])
        """
        if isinstance(self.manifold, LieGroup):
            return self.manifold.identity()
        return self.frame.neutral()

    def random_configuration(self, rng=None, size=None) -> np.ndarray:
        """Random configurations (the manifold's sampler, else the frame's).

        Parameters
        ----------
        rng : None, int or numpy.random.Generator
        size : None, int or tuple of int

        Returns
        -------
        ndarray, shape (*size, *point_shape)

        Examples
        --------
        >>> from geomech.geometry.examples import rigid_body_se3
        >>> import numpy as np
        >>> rigid_body_se3(np.eye(6)).random_configuration(rng=0, size=4).shape
        (4, 4, 4)
        """
        if isinstance(self.manifold, LieGroup):
            return self.manifold.random(rng, size)
        return self.frame.random_configuration(rng, size)

    def __repr__(self):
        name = getattr(self.manifold, "name", None) or repr(self.frame)
        return f"<MechanicalSystem on {name}: dim={self.dim}>"


def as_mechanical_system(system, name: str = "system") -> MechanicalSystem:
    """The :class:`MechanicalSystem` of ``system``: itself, or its ``mechanical_system()`` view.

    The one coercion by which every tool of the geometry layer (connections, induced
    connections, closed chains) and above (:func:`geomech.simulate`,
    :class:`geomech.control.SlotineLi`) accepts the kinds of systems: a
    :class:`MechanicalSystem` (a :class:`~geomech.multibody.MultibodyModel` is one) as it is,
    and any object with a ``mechanical_system()`` method (a
    :class:`~geomech.rigidbody.RigidBody`: its group, left-invariant frame, constant inertia
    and potential) through that view.

    Parameters
    ----------
    system : MechanicalSystem or object with ``mechanical_system()``
    name : str
        Name used in error messages.

    Returns
    -------
    MechanicalSystem

    Raises
    ------
    ConnectionSpecError
        If ``system`` is neither (a ``ValueError``).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import as_mechanical_system
    >>> from geomech.lie import SO3
    >>> from geomech.rigidbody import RigidBody
    >>> as_mechanical_system(RigidBody(SO3, np.eye(3))).frame
    LeftInvariantFrame(SO(3))
    >>> as_mechanical_system("pendulum")
    Traceback (most recent call last):
        ...
    geomech.errors.ConnectionSpecError: Expected `system` to be a MechanicalSystem (e.g. a
    MultibodyModel) or to have a mechanical_system() view (e.g. a RigidBody), got str.
    """
    if isinstance(system, MechanicalSystem):
        return system
    view = getattr(system, "mechanical_system", None)
    if callable(view):
        out = view()
        if isinstance(out, MechanicalSystem):
            return out
    raise ConnectionSpecError(
        f"Expected `{name}` to be a MechanicalSystem (e.g. a MultibodyModel) or to have a "
        f"mechanical_system() view (e.g. a RigidBody), got {type(system).__name__}."
    )
