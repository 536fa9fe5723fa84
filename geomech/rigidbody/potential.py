r"""Potentials of a rigid body and their left-trivialised gradients ``n(g)``.

A potential ``U: G → R`` enters the Boltzmann–Hamel equations through

.. math:: n(g) = \frac{\partial}{\partial \varphi}
          U\big(g \exp(\hat\varphi)\big)\Big|_{\varphi = 0}
          = S^{-\top} \frac{\partial U}{\partial x},

so that ``M v̇ - ad_vᵀ M v + n(g) = τ`` (seed 003 §1.2: ``n = -S^{-T} ∂L/∂x`` in the
re-centred exponential chart, where ``S = I``). The paper keeps only the kinetic energy and
lumps ``-n`` into ``τ``; geomech keeps it separate.

Examples
--------
>>> import numpy as np
>>> from geomech.lie import SO3
>>> from geomech.rigidbody.potential import UniformGravity
>>> top = UniformGravity(SO3, mass=1.0, com=[0.0, 0.0, 1.0])
>>> top.energy(np.eye(3))  # centre of mass 1 m above the pivot
np.float64(9.81)
"""

from __future__ import annotations

import abc

import numpy as np

from geomech._validation import as_array
from geomech.errors import InertiaError
from geomech.lie import LieGroup
from geomech.lie.base import as_lie_group
from geomech.rigidbody.embedding import embed_in_se3, selection_matrix

__all__ = ["Potential", "UniformGravity", "GRAVITY"]

#: Default gravity vector in the world frame (:ref:`conventions-arrays`), m/s².
GRAVITY = np.array([0.0, 0.0, -9.81])
GRAVITY.setflags(write=False)


class Potential(abc.ABC):
    """A potential energy ``U(g)`` on a Lie group, with its left-trivialised gradient.

    Subclasses implement :meth:`_energy` and :meth:`_gradient` on validated arrays; the public
    methods validate the shape and membership of ``g``.

    Attributes
    ----------
    group : LieGroup
        The configuration group.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import Euclidean
    >>> from geomech.rigidbody.potential import Potential
    >>> class Spring(Potential):
    ...     def _energy(self, g):
    ...         return 0.5 * np.sum(g**2, axis=-1)
    ...     def _gradient(self, g):
    ...         return g
    >>> Spring(Euclidean(2)).gradient([1.0, -2.0])
    array([ 1., -2.])
    """

    def __init__(self, group: LieGroup):
        self.group = as_lie_group(group)

    @abc.abstractmethod
    def _energy(self, g: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _gradient(self, g: np.ndarray) -> np.ndarray: ...

    def energy(self, q) -> np.ndarray:
        """Potential energy ``U(g)``.

        Parameters
        ----------
        q : array_like, shape (..., *group.point_shape)
            Configuration(s) (group elements), validated with ``group.validate``.

        Returns
        -------
        ndarray, shape (...)
            ``U(g)``.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            As in :meth:`geomech.lie.LieGroup.validate`.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE3
        >>> from geomech.rigidbody.potential import UniformGravity
        >>> U = UniformGravity(SE3, mass=2.0)
        >>> float(U.energy(SE3.exp([0.0, 0.0, 0.0, 0.0, 0.0, 1.0])))  # 1 m up
        19.62
        """
        return self._energy(self.group.validate(q, "q"))

    def gradient(self, q) -> np.ndarray:
        r"""Left-trivialised gradient ``n(g) = ∂/∂φ U(g exp(φ̂))|₀`` (a body wrench).

        .. math:: n(g)_i = \frac{\mathrm d}{\mathrm d t} U\big(g \exp(t \hat e_i)\big)
                  \Big|_{t=0}

        Parameters
        ----------
        q : array_like, shape (..., *group.point_shape)
            Configuration(s) (group elements), validated with ``group.validate``.

        Returns
        -------
        ndarray, shape (..., dim)
            ``n(g)``, in the group's (angular-first) coordinates.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            As in :meth:`geomech.lie.LieGroup.validate`.

        References
        ----------
        seed 003 §1.2 (``n = S^{-T} ∂U/∂x``, evaluated in the re-centred chart).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE3
        >>> from geomech.rigidbody.potential import UniformGravity
        >>> UniformGravity(SE3, mass=2.0).gradient(np.eye(4))  # [torque; force] to resist
        array([ 0.  ,  0.  ,  0.  ,  0.  ,  0.  , 19.62])
        """
        return self._gradient(self.group.validate(q, "q"))


class UniformGravity(Potential):
    r"""Uniform gravity on a body whose configuration group is a subgroup of SE(3).

    With the pose ``g_0b = [[R, p], [0, 1]]`` of :func:`~geomech.rigidbody.embedding.embed_in_se3`
    and the centre of mass ``c`` in body coordinates,

    .. math:: U(g) = -m\,\gamma^\top (p + R c), \qquad
              n(g) = H^\top \begin{bmatrix} -m\, c \times (R^\top \gamma) \\
              -m\, R^\top \gamma \end{bmatrix}

    (angular first; ``γ`` the gravity vector in the world frame). For ``γ = -g_0 e_3`` this is
    seed 003 §1.2's ``n = [m g0 Rᵀe3; m g0 c × (Rᵀe3)]`` in the paper's linear-first order.
    On SE(2) (the xy-plane) the default gravity is normal to the plane and ``n = 0``; pass
    e.g. ``gravity=[0, -9.81, 0]`` for a vertical plane. On SO(3) the body rotates about its
    origin (a heavy top when ``c ≠ 0``).

    Parameters
    ----------
    group : LieGroup
        SO3, SE3, SE2, Schoenflies or ``Euclidean(n)``, ``n ≤ 3``.
    mass : float
        Mass ``m > 0`` (kg).
    com : array_like, shape (3,), optional
        Centre of mass in the body frame (m); default the origin.
    gravity : array_like, shape (3,), optional
        Gravity vector ``γ`` in the world frame (m/s²); default ``[0, 0, -9.81]``.

    Raises
    ------
    GeomechError
        If ``group`` is not one of these subgroups of SE(3).
    InertiaError
        If ``mass`` is not positive.
    DimensionError, NonFiniteError
        If ``com`` or ``gravity`` is not a finite 3-vector.

    References
    ----------
    seed 003 §1.2 and fixture F7.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE3
    >>> from geomech.rigidbody.potential import UniformGravity
    >>> U = UniformGravity(SE3, mass=2.0, com=[0.1, -0.05, 0.2])
    >>> g = SE3.exp([0.4, -1.0, 0.8, 0.3, -0.2, 0.5])  # fixture F7, angular first
    >>> np.round(U.gradient(g), 8)
    array([-0.28389386,  2.40264051,  0.74260705, 16.93727785, -1.04256838,
            9.84815061])
    """

    def __init__(self, group: LieGroup, mass: float, com=(0.0, 0.0, 0.0), gravity=GRAVITY):
        super().__init__(group)
        self._cols = list(np.argmax(selection_matrix(group), axis=0))  # rows of [ω; v] kept
        m = float(as_array(mass, "mass"))
        if not m > 0.0:
            raise InertiaError(f"Expected `mass` to be positive, got {m}.")
        self.mass = m
        self.com = as_array(com, "com", (3,)).copy()
        self.gravity = as_array(gravity, "gravity", (3,)).copy()

    def _pose(self, g: np.ndarray):
        T = embed_in_se3(self.group, g)
        return T[..., :3, :3], T[..., :3, 3]

    def _energy(self, g):
        R, p = self._pose(g)
        # seed 003 §1.2: U = m g0 e3ᵀ (p + R c), written with the gravity vector γ = -g0 e3
        return -self.mass * ((p + R @ self.com) @ self.gravity)

    def _gradient(self, g):
        R, _ = self._pose(g)
        gamma_b = np.einsum("...ji,j->...i", R, self.gravity)  # Rᵀ γ
        n_w = -self.mass * np.cross(self.com, gamma_b)  # moment about the body origin
        n_v = -self.mass * gamma_b
        return np.concatenate([n_w, n_v], axis=-1)[..., self._cols]  # Hᵀ n
