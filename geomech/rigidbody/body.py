r"""A single rigid body on a Lie group: the Boltzmann–Hamel / Euler–Poincaré equations.

The state is ``(g, v) ∈ G × R^m`` with ``ġ = g v̂`` (``v`` the body velocity, angular first)
and

.. math:: M \dot v + C(v)\, v + n(g) = \tau, \qquad
          C(v) = \widetilde{\operatorname{ad}}_{Mv}, \qquad
          C(v)\, v = -\operatorname{ad}_v^\top M v,

with ``M`` the constant body-frame inertia, ``n`` the left-trivialised potential gradient and
``(ad~_p)_ij = Σ_k s_ijk p_k`` (``s`` the structure constants). This is seed 003's corrected
Coriolis matrix (Prop. 3.1, eq. 57; Prop. 5.1, eqs. 107-109), valid on every Lie group.

Examples
--------
>>> import numpy as np
>>> from geomech.lie import SO3
>>> from geomech.rigidbody import RigidBody
>>> body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
>>> body.forward_dynamics(np.eye(3), [0.1, -0.2, 0.3])  # fixture F1: Euler's equations
array([0.06      , 0.03      , 0.00666667])
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array, check_spd
from geomech.errors import ConnectionSpecError, DimensionError, DTypeError, GeomechError
from geomech.geometry import (
    AffineConnection,
    CartanSchoutenConnection,
    LeviCivitaConnection,
    MechanicalSystem,
)
from geomech.geometry.names import canonical_connection_name
from geomech.lie import LieGroup
from geomech.lie.base import as_lie_group
from geomech.rigidbody.embedding import selection_matrix
from geomech.rigidbody.potential import GRAVITY, Potential, UniformGravity
from geomech.spatial import inertia_parameters

__all__ = ["RigidBody", "ad_tilde"]

#: The canonical connection names :meth:`RigidBody.connection` builds.
_BODY_CONNECTIONS = (
    "boltzmann-hamel",
    "levi-civita",
    "velocity-cross",
    "cartan-minus",
    "cartan-zero",
    "cartan-plus",
)


def _selection_or_none(group):
    try:
        return selection_matrix(group)
    except GeomechError:
        return None


def ad_tilde(group, p) -> np.ndarray:
    r"""The operator ``ad~_p`` with ``ad~_p x = -ad_xᵀ p`` for all ``x``.

    .. math:: (\widetilde{\operatorname{ad}}_p)_{ij} = \sum_k s_{ijk}\, p_k
              = \langle p, [E_i, E_j] \rangle

    It is skew-symmetric and linear in ``p``. On SO(3) ``ad~_p = -p̂``; on SE(3) (angular
    first) it is Featherstone's ``(p ×̄*)`` (:func:`geomech.spatial.crbar`). Note ``ad~_p ≠
    ad_p``: ``p`` is a momentum (a dual vector), not a twist (seed 003 erratum E2).

    Parameters
    ----------
    group : LieGroup
        Lie group whose structure constants ``s[i, j, k]`` are used.
    p : array_like, shape (..., dim)
        A momentum or wrench (dual coordinates).

    Returns
    -------
    ndarray, shape (..., dim, dim)
        ``ad~_p``.

    Raises
    ------
    TypeError
        If ``group`` is not a :class:`~geomech.lie.LieGroup`.
    DimensionError, NonFiniteError
        If ``p`` does not end in ``dim`` or has non-finite entries.

    References
    ----------
    seed 003 eqs. (73), (83), Table 1 (corrected: E4), §2.1.

    Examples
    --------
    >>> from geomech.lie import SE2
    >>> from geomech.rigidbody import ad_tilde
    >>> ad_tilde(SE2, [0.0, 1.0, 2.0])  # p = [p_ω, p_x, p_y]: eq. (83) reordered
    array([[ 0.,  2., -1.],
           [-2.,  0.,  0.],
           [ 1.,  0.,  0.]])
    """
    group = as_lie_group(group)
    p = as_array(p, "p", (group.dim,))
    return np.einsum("ijk,...k->...ij", group._structure_constants, p)


class RigidBody:
    """A rigid body whose configuration space is a Lie group ``G``, with constant body inertia.

    Velocities are body velocities ``v = (g⁻¹ ġ)^∨`` in geomech's angular-first coordinates
    (quasi-velocities of seed 003); use :mod:`geomech.rigidbody.embedding` to convert from the
    paper's linear-first order. The inertia is the generalized inertia matrix ``M`` with
    kinetic energy ``½ vᵀ M v`` (for SE(3) the 6×6 spatial inertia about the body origin of
    :func:`geomech.spatial.spatial_inertia`; for a subgroup of SE(3), see
    :meth:`from_spatial_inertia`). Any :class:`~geomech.lie.LieGroup` works, including
    ``Euclidean(n)`` and :class:`~geomech.lie.ProductGroup` (seed 003 §2.7).

    Every method accepts leading batch dimensions on ``g``, ``v``, ``tau`` (one vectorised
    implementation).

    Parameters
    ----------
    group : LieGroup
        Configuration group ``G`` (``SO3``, ``SE3``, ``SE2``, ``Schoenflies``,
        ``Euclidean(n)``, products, ...).
    inertia : array_like, shape (dim, dim) or (6, 6)
        Body-frame inertia ``M``, symmetric positive definite. For a proper subgroup of SE(3)
        (SO(3), SE(2), Schönflies, ``R^n``) a 6×6 spatial inertia ``I_b`` about the body
        origin is also accepted and reduced to ``M = Hᵀ I_b H`` (eq. 60; no gravity — use
        :meth:`from_spatial_inertia` for that).
    potential : Potential, optional
        Potential energy (e.g. :class:`~geomech.rigidbody.potential.UniformGravity`); none by
        default (a free body, as in seed 003 Prop. 3.1).

    Attributes
    ----------
    group : LieGroup
    dim : int
        ``group.dim`` (number of velocity coordinates ``m``).
    inertia : ndarray, shape (dim, dim)
        ``M`` (read-only copy).
    potential : Potential or None

    Raises
    ------
    TypeError
        If ``group`` is not a :class:`~geomech.lie.LieGroup` or ``potential`` is not a
        :class:`~geomech.rigidbody.potential.Potential`.
    DimensionError
        If ``inertia`` is not ``(dim, dim)`` (or ``(6, 6)`` on a subgroup of SE(3)), or the
        potential lives on another group.
    InertiaError
        If ``inertia`` is not symmetric positive definite.

    References
    ----------
    seed 003 Prop. 3.1 (eq. 48, 57), Prop. 5.1 (eqs. 107-109), eq. (60).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE3
    >>> from geomech.spatial import spatial_inertia
    >>> from geomech.rigidbody import RigidBody
    >>> body = RigidBody(SE3, spatial_inertia(2.0, [0.0, 0.0, 0.0], np.diag([1.0, 2.0, 3.0])))
    >>> V = np.array([0.1, -0.2, 0.3, 1.0, 0.5, -0.2])  # fixture F2, [ω; v]
    >>> body.coriolis_force(V)
    array([-0.06, -0.06, -0.02, -0.22,  0.64,  0.5 ])
    """

    def __init__(self, group: LieGroup, inertia, *, potential: Potential | None = None):
        self.group = as_lie_group(group)
        self.dim = group.dim
        M = as_array(inertia, "inertia")
        H = _selection_or_none(group)
        if H is not None and self.dim != 6 and M.shape == (6, 6):
            check_spd(M, "inertia")
            M = H.T @ M @ H  # a spatial inertia about the body origin (eq. 60)
        if M.shape != (self.dim, self.dim):
            extra = " (or a (6, 6) spatial inertia)" if H is not None and self.dim != 6 else ""
            raise DimensionError(
                f"Expected `inertia` of a rigid body on {group.name} (dim {self.dim}) to have "
                f"shape ({self.dim}, {self.dim}){extra}, got {M.shape}."
            )
        check_spd(M, "inertia")
        self._M = 0.5 * (M + M.T)
        self._M.setflags(write=False)
        self._M_inv = np.linalg.inv(self._M)
        if potential is not None:
            if not isinstance(potential, Potential):
                raise DTypeError(
                    f"Expected `potential` to be a geomech.rigidbody.potential.Potential, "
                    f"got {type(potential).__name__}."
                )
            if potential.group is not group and potential.group != group:
                raise DimensionError(
                    f"Expected `potential` on {group.name}, "
                    f"got a potential on {potential.group.name}."
                )
        self.potential = potential

    @classmethod
    def from_spatial_inertia(
        cls, group: LieGroup, spatial_inertia, *, gravity=GRAVITY
    ) -> RigidBody:
        r"""Body on a subgroup of SE(3) from its 6×6 spatial inertia about the body origin.

        The generalized inertia is ``M = Hᵀ I_b H`` (eq. 60) with the selection matrix ``H`` of
        :func:`~geomech.rigidbody.embedding.selection_matrix`, and, unless ``gravity`` is
        ``None``, the potential is :class:`~geomech.rigidbody.potential.UniformGravity` with the
        mass and centre of mass read from ``I_b``.

        .. math:: M = H^\top I_b H

        Parameters
        ----------
        group : LieGroup
            SO3, SE3, SE2, Schoenflies or ``Euclidean(n)``, ``n ≤ 3``.
        spatial_inertia : array_like, shape (6, 6)
            ``I_b`` in geomech's angular-first order
            (:func:`geomech.spatial.spatial_inertia`).
        gravity : array_like, shape (3,), or None, optional
            World gravity vector; default ``[0, 0, -9.81]`` (:ref:`conventions-arrays`).
            ``None`` for a free body.

        Returns
        -------
        RigidBody

        Raises
        ------
        GeomechError
            If ``group`` is not one of these subgroups of SE(3).
        DimensionError, NonFiniteError
            If ``spatial_inertia`` is not a finite 6×6 array.
        InertiaError
            If ``I_b`` is not symmetric positive definite (or ``M`` is not).

        References
        ----------
        seed 003 Def. 4.2, eq. (60); §1.2 (gravity).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE2
        >>> from geomech.spatial import spatial_inertia
        >>> from geomech.rigidbody import RigidBody
        >>> I_b = spatial_inertia(3.0, [0.0, 0.0, 0.0], np.diag([0.1, 0.2, 0.7]))
        >>> RigidBody.from_spatial_inertia(SE2, I_b).inertia  # [I_z, m, m]
        array([[0.7, 0. , 0. ],
               [0. , 3. , 0. ],
               [0. , 0. , 3. ]])
        """
        group = as_lie_group(group)
        H = selection_matrix(group)
        I_b = as_array(spatial_inertia, "spatial_inertia", (6, 6))
        if I_b.ndim != 2:
            raise DimensionError(
                f"Expected `spatial_inertia` to have shape (6, 6), got {I_b.shape}."
            )
        check_spd(I_b, "spatial_inertia")
        potential = None
        if gravity is not None:
            mass, com, _ = inertia_parameters(I_b)  # I_b = [[., m S(c)], [m S(c)ᵀ, m 1]]
            potential = UniformGravity(group, mass, com, gravity)
        return cls(group, H.T @ I_b @ H, potential=potential)

    # ------------------------------------------------------------------------------------
    @property
    def inertia(self) -> np.ndarray:
        """Body-frame inertia ``M`` (read-only), shape ``(dim, dim)``.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody import RigidBody
        >>> RigidBody(SO3, np.diag([1.0, 2.0, 3.0])).inertia.diagonal()
        array([1., 2., 3.])
        """
        return self._M

    def _v(self, v, name: str = "v") -> np.ndarray:
        return as_array(v, name, (self.dim,))

    def _q(self, q) -> np.ndarray:
        return self.group.validate(q, "q")

    def __repr__(self) -> str:
        pot = "" if self.potential is None else f", potential={type(self.potential).__name__}"
        return f"RigidBody({self.group.name}, inertia={np.round(self._M, 6).tolist()}{pot})"

    # ------------------------------------------------------------------------------------
    # Energy and momentum
    # ------------------------------------------------------------------------------------
    def kinetic_energy(self, v) -> np.ndarray:
        """Kinetic energy ``K = ½ vᵀ M v`` (eq. 60).

        Parameters
        ----------
        v : array_like, shape (..., dim)
            Body velocity.

        Returns
        -------
        ndarray, shape (...)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``v`` does not end in ``dim`` or has non-finite entries.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody import RigidBody
        >>> float(RigidBody(SO3, np.diag([1.0, 2.0, 3.0])).kinetic_energy([1.0, 1.0, 1.0]))
        3.0
        """
        v = self._v(v)
        return 0.5 * np.einsum("...i,ij,...j->...", v, self._M, v)

    def potential_energy(self, q) -> np.ndarray:
        """Potential energy ``U(g)`` (zero without a potential).

        Parameters
        ----------
        q : array_like, shape (..., *group.point_shape)
            Configuration, validated with ``group.validate``.

        Returns
        -------
        ndarray, shape (...)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            As in :meth:`geomech.lie.LieGroup.validate`.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE3
        >>> from geomech.spatial import spatial_inertia
        >>> from geomech.rigidbody import RigidBody
        >>> body = RigidBody.from_spatial_inertia(SE3, spatial_inertia(1.0, [0, 0, 0], np.eye(3)))
        >>> float(body.potential_energy(SE3.exp([0, 0, 0, 0, 0, 2.0])))
        19.62
        """
        q = self._q(q)
        return self._potential_energy(q)

    def _potential_energy(self, q: np.ndarray) -> np.ndarray:
        lead = q.shape[: q.ndim - len(self.group.point_shape)]
        if self.potential is None:
            return np.zeros(lead)
        return self.potential._energy(q)

    def energy(self, q, v) -> np.ndarray:
        """Total energy ``E = ½ vᵀ M v + U(g)``, conserved when ``τ = 0`` (T14).

        Parameters
        ----------
        q : array_like, shape (..., *group.point_shape)
            Configuration.
        v : array_like, shape (..., dim)
            Body velocity.

        Returns
        -------
        ndarray, shape (...)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            On malformed inputs.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody import RigidBody
        >>> float(RigidBody(SO3, np.eye(3)).energy(np.eye(3), [0.0, 0.0, 2.0]))
        2.0
        """
        return self.potential_energy(q) + self.kinetic_energy(v)

    def momentum(self, v) -> np.ndarray:
        """Body momentum ``∂L/∂v = M v`` (eq. 14).

        Parameters
        ----------
        v : array_like, shape (..., dim)

        Returns
        -------
        ndarray, shape (..., dim)

        Raises
        ------
        DimensionError, NonFiniteError
            On malformed ``v``.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody import RigidBody
        >>> RigidBody(SO3, np.diag([1.0, 2.0, 3.0])).momentum([1.0, 1.0, 1.0])
        array([1., 2., 3.])
        """
        return self._v(v) @ self._M

    def spatial_momentum(self, q, v) -> np.ndarray:
        r"""Spatial (world-frame) momentum ``μ = Ad_{g⁻¹}ᵀ M v``, conserved for free motion.

        .. math:: \mu = \operatorname{Ad}_{g^{-1}}^\top M v

        On SO(3) this is ``R M ω``; on SE(3) (angular first) the world wrench-coordinates of the
        body momentum (angular momentum about the world origin; linear momentum).

        Parameters
        ----------
        q : array_like, shape (..., *group.point_shape)
            Configuration, validated.
        v : array_like, shape (..., dim)
            Body velocity.

        Returns
        -------
        ndarray, shape (..., dim)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            On malformed inputs.

        References
        ----------
        seed 003 §4 fixture F8, identity T15.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody import RigidBody
        >>> body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
        >>> R = SO3.exp([0.0, 0.0, np.pi / 2])
        >>> np.round(body.spatial_momentum(R, [1.0, 0.0, 0.0]), 12) + 0.0
        array([0., 1., 0.])
        """
        q = self._q(q)
        return self._spatial_momentum(q, self._v(v))

    def _spatial_momentum(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        Ad_inv = self.group._Ad(self.group._inverse(q))
        return np.einsum("...ji,...j->...i", Ad_inv, v @ self._M)

    # ------------------------------------------------------------------------------------
    # The Boltzmann-Hamel equations
    # ------------------------------------------------------------------------------------
    def coriolis_matrix(self, v) -> np.ndarray:
        r"""Seed 003's corrected Coriolis matrix ``C(v) = ad~_{Mv}`` (skew-symmetric).

        .. math:: C_{ij}(v) = \sum_k \Big(\frac{\partial S_{ki}}{\partial \varphi_j}
                  - \frac{\partial S_{kj}}{\partial \varphi_i}\Big)\Big|_{\varphi=0}
                  (Mv)_k = \sum_k s_{ijk} (Mv)_k

        using ``∂S/∂φ_j|₀ = -½ ad_{e_j}`` (seed 003 §1.5). ``C`` is skew (``C + Cᵀ = 0``) and
        ``C v = -ad_vᵀ M v``. Other valid factorizations (``-ad_vᵀ M``, eq. 52; the Levi-Civita
        one) give the same ``C v``; see :meth:`connection`.

        Parameters
        ----------
        v : array_like, shape (..., dim)
            Body velocity.

        Returns
        -------
        ndarray, shape (..., dim, dim)

        Raises
        ------
        DimensionError, NonFiniteError
            On malformed ``v``.

        References
        ----------
        seed 003 Prop. 3.1, eq. (57); Prop. 5.1, eq. (109); eqs. (68), (74), (82), (93).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody import RigidBody
        >>> RigidBody(SO3, np.diag([1.0, 2.0, 3.0])).coriolis_matrix([1.0, 0.0, 0.0])  # -(Mv)^
        array([[ 0.,  0.,  0.],
               [ 0.,  0.,  1.],
               [ 0., -1.,  0.]])
        """
        return self._coriolis_matrix(self._v(v))

    def _coriolis_matrix(self, v: np.ndarray) -> np.ndarray:
        # seed 003 eq. (57) with dS/dphi_j|0 = -1/2 ad_{e_j}: C_ij = sum_k s_ijk (Mv)_k (eq. 109)
        return np.einsum("ijk,...k->...ij", self.group._structure_constants, v @ self._M)

    def coriolis_force(self, v) -> np.ndarray:
        """Coriolis and centrifugal force ``C(v) v = -ad_vᵀ M v``.

        Parameters
        ----------
        v : array_like, shape (..., dim)
            Body velocity.

        Returns
        -------
        ndarray, shape (..., dim)

        Raises
        ------
        DimensionError, NonFiniteError
            On malformed ``v``.

        References
        ----------
        seed 003 eqs. (107)-(108).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE2
        >>> from geomech.rigidbody import RigidBody
        >>> body = RigidBody(SE2, np.diag([0.7, 3.0, 3.0]))
        >>> body.coriolis_force([0.3, 1.0, 0.5])  # fixture F3, [r, u, v] -> [0, -0.45, 0.9]
        array([ 0.  , -0.45,  0.9 ])
        """
        return self._coriolis_force(self._v(v))

    def _coriolis_force(self, v: np.ndarray) -> np.ndarray:
        # seed 003 eq. (107): C(v) v = -ad_v^T M v, i.e. (Cv)_i = sum_jk s_ijk v_j (Mv)_k
        return np.einsum("ijk,...j,...k->...i", self.group._structure_constants, v, v @ self._M)

    def gravity_forces(self, q) -> np.ndarray:
        """Left-trivialised potential gradient ``n(g)`` (zero without a potential).

        Parameters
        ----------
        q : array_like, shape (..., *group.point_shape)
            Configuration, validated.

        Returns
        -------
        ndarray, shape (..., dim)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            On malformed ``g``.

        References
        ----------
        seed 003 §1.2.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.spatial import spatial_inertia
        >>> from geomech.rigidbody import RigidBody
        >>> I_b = spatial_inertia(1.0, [0.0, 0.0, 1.0], np.eye(3))  # top, CoM 1 m up
        >>> top = RigidBody.from_spatial_inertia(SO3, I_b)
        >>> np.round(top.gravity_forces(SO3.exp([0.1, 0.0, 0.0])), 6) + 0.0  # = -gravity torque
        array([-0.979366,  0.      ,  0.      ])
        """
        return self._gravity_forces(self._q(q))

    def _gravity_forces(self, q: np.ndarray) -> np.ndarray:
        lead = q.shape[: q.ndim - len(self.group.point_shape)]
        if self.potential is None:
            return np.zeros(lead + (self.dim,))
        return self.potential._gradient(q)

    def forward_dynamics(self, q, v, tau=None) -> np.ndarray:
        """Body acceleration ``v̇ = M⁻¹ (τ - C(v) v - n(g))``.

        Parameters
        ----------
        q : array_like, shape (..., *group.point_shape)
            Configuration, validated.
        v : array_like, shape (..., dim)
            Body velocity.
        tau : array_like, shape (..., dim), optional
            Body wrench collocated with ``v`` (default zero).

        Returns
        -------
        ndarray, shape (..., dim)
            ``v̇``; leading dimensions of the inputs broadcast.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            On malformed inputs.

        References
        ----------
        seed 003 eq. (48), (107).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import Schoenflies
        >>> from geomech.rigidbody import RigidBody
        >>> body = RigidBody(Schoenflies, np.diag([0.5, 2.0, 2.0, 2.0]))
        >>> body.forward_dynamics(np.eye(4), [0.3, 1.0, 0.5, -0.4])  # eq. (96): [r, u, v, w]
        array([ 0.  ,  0.15, -0.3 ,  0.  ])
        """
        q = self._q(q)
        v = self._v(v)
        tau = None if tau is None else self._v(tau, "tau")
        return self._forward_dynamics(q, v, tau)

    def _forward_dynamics(self, q: np.ndarray, v: np.ndarray, tau: np.ndarray | None) -> np.ndarray:
        # seed 003 eq. (107): M a - ad_v^T M v + n(q) = tau
        rhs = -self._coriolis_force(v) - self._gravity_forces(q)
        if tau is not None:
            rhs = rhs + tau
        return rhs @ self._M_inv.T

    def inverse_dynamics(self, q, v, a) -> np.ndarray:
        """Wrench ``τ = M v̇ + C(v) v + n(g)`` that produces the acceleration ``v̇``.

        Parameters
        ----------
        q : array_like, shape (..., *group.point_shape)
            Configuration, validated.
        v, a : array_like, shape (..., dim)
            Body velocity and acceleration.

        Returns
        -------
        ndarray, shape (..., dim)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            On malformed inputs.

        References
        ----------
        seed 003 eq. (48), (107).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody import RigidBody
        >>> body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
        >>> body.inverse_dynamics(np.eye(3), [0.1, -0.2, 0.3], [0.0, 0.0, 0.0])  # ω × Mω, eq. (71)
        array([-0.06, -0.06, -0.02])
        """
        q = self._q(q)
        v = self._v(v)
        a = self._v(a, "a")
        return a @ self._M + self._coriolis_force(v) + self._gravity_forces(q)

    # ------------------------------------------------------------------------------------
    # The connection view (seed 000)
    # ------------------------------------------------------------------------------------
    def mechanical_system(self) -> MechanicalSystem:
        """Return the body as a :class:`~geomech.geometry.MechanicalSystem`.

        The manifold is ``group`` with its left-invariant frame (generalized speeds = body
        velocity), the metric ``H = M`` (constant) and the potential ``U`` (if any).

        Returns
        -------
        MechanicalSystem

        References
        ----------
        seed 000 §II, §VI-A1; seed 003 eq. (60).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody import RigidBody
        >>> system = RigidBody(SO3, np.diag([1.0, 2.0, 3.0])).mechanical_system()
        >>> system.dim, system.frame
        (3, LeftInvariantFrame(SO(3)))
        """
        potential = None if self.potential is None else self.potential.energy
        return MechanicalSystem(self.group, self._M, potential=potential)

    def christoffel_symbols(self) -> np.ndarray:
        r"""First-kind coefficients of the connection behind ``C = ad~_{Mv}`` (constant).

        .. math:: \Gamma_{ijk} = \langle X_i, \nabla_{X_j} X_k \rangle
                  = \langle X_j, [X_i, X_k] \rangle = \sum_l s_{ikl} M_{lj},
                  \qquad C_{ik} = \Gamma_{ijk} v^j

        (seed 000 eq. 10 convention: first index lowered, second the direction). This
        connection is metric-compatible with totally antisymmetric contorsion relative to the
        Levi-Civita connection, ``D_ijk = ½ (⟨X_i,[X_j,X_k]⟩ + ⟨X_j,[X_k,X_i]⟩ +
        ⟨X_k,[X_i,X_j]⟩)`` (seed 000 Cor. IV.1), and has torsion unless the group is abelian.

        Returns
        -------
        ndarray, shape (dim, dim, dim)
            ``Gamma[i, j, k]``.

        References
        ----------
        seed 003 eq. (57); seed 000 eq. (10), Cor. IV.1.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody import RigidBody
        >>> body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
        >>> v = np.array([0.1, -0.2, 0.3])
        >>> bool(np.allclose(np.einsum("ijk,j->ik", body.christoffel_symbols(), v),
        ...                  body.coriolis_matrix(v)))
        True
        """
        return np.einsum("ikl,lj->ijk", self.group._structure_constants, self._M)

    def connection(self, kind: str = "boltzmann-hamel") -> AffineConnection:
        """The body's affine connections as :mod:`geomech.geometry` objects.

        ======================  ========================================================
        kind (canonical name)   connection
        ======================  ========================================================
        ``"boltzmann-hamel"``   seed 003's ``C = ad~_{Mv}`` (:meth:`christoffel_symbols`):
                                metric, correct dynamics, with torsion (alias
                                ``"momentum-cross"``: on SE(3) it is that body connection)
        ``"levi-civita"``       the Riemannian connection of ``M``, ``C★``
        ``"velocity-cross"``    ``C = M ad_v - ad_vᵀ M``: metric, correct, with torsion
        ``"cartan-minus"``,     Cartan–Schouten (−), (0), (+) (aliases ``"-"``, ``"0"``,
        ``"cartan-zero"``,      ``"+"``, ...): ``∇_ξ η = 0, ½[ξ, η], [ξ, η]`` on
        ``"cartan-plus"``       left-invariant fields; their geodesics are the
                                one-parameter subgroups, so ``C v ≠ C★ v`` unless ``M``
                                is ad-invariant
        ======================  ========================================================

        The first three are *admissible* (skew and correct): their Coriolis matrices differ,
        their ``C v = -ad_vᵀ M v`` agree, and their difference is a totally antisymmetric
        contorsion (seed 000 Cor. IV.1).

        Parameters
        ----------
        kind : str or callable, optional
            A connection name or alias, resolved through the one registry of connection
            names (:mod:`geomech.geometry.names`), or a factory ``system -> AffineConnection`` such
            as ``LeviCivitaConnection`` or ``lambda s: LeviCivitaConnection(s) + K`` (a
            user-defined strategy). Default ``"boltzmann-hamel"``.

        Returns
        -------
        AffineConnection
            On :meth:`mechanical_system`; evaluate e.g. ``.coriolis_matrix(g, v)``.

        Raises
        ------
        ConnectionSpecError
            For an unknown name (the message lists the canonical names), a name of a
            connection a single body does not have (a user-registered multibody body
            connection), or a factory that does not return a connection.

        References
        ----------
        seed 000 §III-IV (eq. 10, Props. III.1-2, IV.1-2, Cor. IV.1); seed 003 (Levi-Civita
        and Cartan–Schouten connections of a left-invariant metric).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE3
        >>> from geomech.rigidbody import RigidBody
        >>> body = RigidBody(SE3, np.diag([1.0, 2.0, 3.0, 2.0, 2.0, 2.0]))
        >>> g, v = np.eye(4), np.array([0.1, -0.2, 0.3, 1.0, 0.5, -0.2])
        >>> C_lc = body.connection("levi-civita").coriolis_matrix(g, v)
        >>> bool(np.allclose(C_lc @ v, body.coriolis_force(v)))  # same C v ...
        True
        >>> bool(np.allclose(C_lc, body.coriolis_matrix(v)))  # ... different C
        False
        """
        return _connection(self, kind)


def _connection(body, kind) -> AffineConnection:
    """:meth:`RigidBody.connection`: a named connection of the body, or a user's factory's."""
    if callable(kind):  # a user-defined strategy: a factory MechanicalSystem -> connection
        conn = kind(body.mechanical_system())
        if not isinstance(conn, AffineConnection):
            raise ConnectionSpecError(
                f"Expected `kind(system)` to return an AffineConnection, got {type(conn).__name__}."
            )
        return conn
    name = canonical_connection_name(kind)
    system = body.mechanical_system()
    if name == "boltzmann-hamel":
        return AffineConnection(system, body.christoffel_symbols())
    if name == "levi-civita":
        return LeviCivitaConnection(system)
    if name == "velocity-cross":
        # C = M ad_v - ad_v^T M, i.e. Gamma_ijk = M_il s_jkl - s_jil M_lk
        s = body.group._structure_constants
        Gamma = np.einsum("il,jkl->ijk", body._M, s) - np.einsum("jil,lk->ijk", s, body._M)
        return AffineConnection(system, Gamma)
    if name.startswith("cartan-"):
        return CartanSchoutenConnection(system, name)
    raise ConnectionSpecError(
        f"Expected a connection of a single rigid body, one of {list(_BODY_CONNECTIONS)} "
        f"(or an alias), got {kind!r}."
    )
