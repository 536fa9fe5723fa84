"""Charts of a configuration group and their velocity maps ``v = S(x) ẋ``.

A chart ``x ↦ g(x)`` gives local coordinates; the body velocity is ``v = (g⁻¹ ġ)^∨ = S(x) ẋ``
(seed 003 eq. 12). Three charts are provided:

- :class:`ExponentialChart`: ``g = ḡ exp(x̂)`` with ``S(x) = J_r(x) = I - ½ ad_x + ⅙ ad_x² - …``
  (eqs. 28-29, 59), singular where the rotation angle is ``2πk``, ``k ≥ 1``;
- :class:`EulerZYX`: ZYX Euler angles ``R = Rz(ψ) Ry(θ) Rx(φ)`` on SO(3) (and, with the world
  position, on SE(3)), singular at pitch ``θ = ±π/2`` (gimbal lock);
- :class:`PlanarChart`: heading angle and position on SE(2) and the Schönflies group
  (never singular; a covering of the rotation angle).

Each chart also gives ``∂S/∂x`` (``dS[..., i, j, m] = ∂S_ij/∂x_m``), which the paper's
formulas (46), (54) and the local Lagrange equations (:mod:`geomech.rigidbody.local`) need.

Examples
--------
>>> import numpy as np
>>> from geomech.lie import SO3
>>> from geomech.rigidbody.charts import EulerZYX
>>> chart = EulerZYX(SO3)
>>> bool(chart.is_singular([0.3, np.pi / 2, 0.7]))
True
"""

from __future__ import annotations

import abc
from math import factorial

import numpy as np

from geomech._validation import as_array
from geomech.errors import ParameterError, SingularityError
from geomech.lie import LieGroup
from geomech.lie.base import as_lie_group
from geomech.lie.schoenflies import SchoenfliesGroup
from geomech.lie.se2 import SE2Group
from geomech.lie.se3 import SE3Group
from geomech.lie.so3 import SO3Group

__all__ = ["Chart", "ExponentialChart", "EulerZYX", "PlanarChart", "dexp_series", "SINGULAR_TOL"]

#: Default threshold of :meth:`Chart.is_singular` (on the chart's singularity measure).
SINGULAR_TOL = 1e-9


def dexp_series(group, phi, order: int = 20) -> np.ndarray:
    r"""The velocity map ``S(φ)`` as the truncated series of seed 003 eq. (29).

    .. math:: S(\varphi) = \sum_{k=0}^{K} \frac{(-\operatorname{ad}_\varphi)^k}{(k+1)!}
              = I - \tfrac12 \operatorname{ad}_\varphi + \tfrac16 \operatorname{ad}_\varphi^2
              - \dots

    The closed forms of :meth:`geomech.lie.LieGroup.right_jacobian` are preferable; this is the
    paper's literal definition (useful for checks and small ``|φ|``; the truncation error is
    about ``|ad_φ|^{K+1}/(K+2)!``).

    Parameters
    ----------
    group : LieGroup
        The group (its ``ad``).
    phi : array_like, shape (..., dim)
        Exponential coordinates.
    order : int, optional
        Highest power ``K`` of ``ad_φ`` kept (``K ≥ 0``).

    Returns
    -------
    ndarray, shape (..., dim, dim)
        The truncated ``S(φ)``.

    Raises
    ------
    DimensionError, NonFiniteError
        If ``phi`` does not end in ``dim`` or has non-finite entries.
    ValueError
        If ``order`` is negative.

    References
    ----------
    seed 003 eqs. (29), (34), (55), (64).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> from geomech.rigidbody.charts import dexp_series
    >>> phi = np.array([0.3, -0.2, 0.5])
    >>> bool(np.allclose(dexp_series(SO3, phi), SO3.right_jacobian(phi), atol=1e-15))
    True
    """
    if int(order) < 0:
        raise ParameterError(f"Expected `order` to be a non-negative integer, got {order}.")
    minus_ad = -group.ad(phi)
    term = np.broadcast_to(np.eye(group.dim), minus_ad.shape).copy()
    S = term.copy()
    for k in range(1, int(order) + 1):
        term = term @ minus_ad  # (-ad_phi)^k
        S = S + term / factorial(k + 1)
    return S


class Chart(abc.ABC):
    """A chart ``x ↦ g(x)`` of a Lie group with the velocity map ``v = S(x) ẋ``.

    Subclasses implement ``_to_group``, ``_from_group``, ``_S``, ``_dS`` and
    ``_singularity_measure`` (zero exactly on the singular set) on validated arrays; the public
    methods validate, and raise :class:`~geomech.errors.SingularityError` where the chart is
    singular.

    Attributes
    ----------
    group : LieGroup
        The group charted.
    dim : int
        Number of coordinates (``group.dim``).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE2
    >>> from geomech.rigidbody.charts import Chart, PlanarChart
    >>> chart = PlanarChart(SE2)
    >>> isinstance(chart, Chart), chart.dim
    (True, 3)
    """

    group: LieGroup
    dim: int

    @abc.abstractmethod
    def _to_group(self, x: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _from_group(self, g: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _S(self, x: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _dS(self, x: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _singularity_measure(self, x: np.ndarray) -> np.ndarray: ...

    def _x(self, x, name: str = "x") -> np.ndarray:
        return as_array(x, name, (self.dim,))

    def _raise_if_singular(self, x: np.ndarray, tol: float, what: str) -> None:
        measure = self._singularity_measure(x)
        if np.any(measure < tol):
            bad = np.asarray(x)[measure < tol][0] if np.ndim(measure) else x
            raise SingularityError(
                f"{what} is evaluated on the singular set of the {self!r} chart at "
                f"x = {np.round(bad, 6).tolist()} (singularity measure "
                f"{float(np.min(measure)):.3g} < tol {tol:g}); {self._singular_set}."
            )

    _singular_set = "the velocity map S(x) is not invertible there"

    def to_group(self, x) -> np.ndarray:
        """The group element ``g(x)``.

        Parameters
        ----------
        x : array_like, shape (..., dim)
            Chart coordinates.

        Returns
        -------
        ndarray, shape (..., *group.point_shape)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``x`` does not end in ``dim`` or has non-finite entries.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody.charts import EulerZYX
        >>> np.round(EulerZYX(SO3).to_group([np.pi / 2, 0.0, 0.0]), 12) + 0.0  # yaw 90°
        array([[ 0., -1.,  0.],
               [ 1.,  0.,  0.],
               [ 0.,  0.,  1.]])
        """
        return self._to_group(self._x(x))

    def from_group(self, g, tol: float = SINGULAR_TOL) -> np.ndarray:
        """Chart coordinates ``x`` of ``g`` (the inverse of :meth:`to_group`).

        Parameters
        ----------
        g : array_like, shape (..., *group.point_shape)
            Group element(s), validated with ``group.validate``.
        tol : float, optional
            Threshold on the singularity measure (``0`` disables the check).

        Returns
        -------
        ndarray, shape (..., dim)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            As in :meth:`geomech.lie.LieGroup.validate`.
        SingularityError
            If ``g`` is on the singular set of the chart, where the coordinates are not
            unique (e.g. gimbal lock for :class:`EulerZYX`).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody.charts import EulerZYX
        >>> chart = EulerZYX(SO3)
        >>> chart.from_group(chart.to_group([0.3, -0.4, 0.7]))
        array([ 0.3, -0.4,  0.7])
        """
        x = self._from_group(self.group.validate(g))
        self._raise_if_singular(x, tol, "from_group")
        return x

    def velocity_map(self, x) -> np.ndarray:
        """The velocity map ``S(x)`` with body velocity ``v = S(x) ẋ`` (eq. 12).

        ``S`` can be evaluated everywhere, including the singular set (where it is not
        invertible).

        Parameters
        ----------
        x : array_like, shape (..., dim)
            Chart coordinates.

        Returns
        -------
        ndarray, shape (..., dim, dim)

        Raises
        ------
        DimensionError, NonFiniteError
            On malformed ``x``.

        References
        ----------
        seed 003 eqs. (12), (28).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody.charts import EulerZYX
        >>> EulerZYX(SO3).velocity_map([0.0, 0.0, 0.0])  # ω = [φ̇, θ̇, ψ̇]
        array([[-0.,  0.,  1.],
               [ 0.,  1.,  0.],
               [ 1., -0.,  0.]])
        """
        return self._S(self._x(x))

    def velocity_map_derivative(self, x) -> np.ndarray:
        """Partial derivatives of the velocity map, ``dS[..., i, j, m] = ∂S_ij/∂x_m``.

        Parameters
        ----------
        x : array_like, shape (..., dim)
            Chart coordinates.

        Returns
        -------
        ndarray, shape (..., dim, dim, dim)

        Raises
        ------
        DimensionError, NonFiniteError
            On malformed ``x``.

        References
        ----------
        seed 003 eqs. (41)-(46), (54).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody.charts import ExponentialChart
        >>> dS = ExponentialChart(SO3).velocity_map_derivative(np.zeros(3))
        >>> bool(np.allclose(dS[..., 2], -0.5 * SO3.ad([0.0, 0.0, 1.0])))  # -½ ad_{e_3}
        True
        """
        return self._dS(self._x(x))

    def singularity_measure(self, x) -> np.ndarray:
        """A non-negative measure of the distance to the singular set (zero on it).

        :class:`EulerZYX` uses ``|cos θ|``; :class:`ExponentialChart` the smallest singular
        value of ``S(x)`` (``= |sinc(θ/2)|``-like, zero at rotation angle ``2πk``);
        :class:`PlanarChart` is never singular (measure ``1``).

        Parameters
        ----------
        x : array_like, shape (..., dim)
            Chart coordinates.

        Returns
        -------
        ndarray, shape (...)

        Raises
        ------
        DimensionError, NonFiniteError
            On malformed ``x``.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody.charts import EulerZYX
        >>> float(EulerZYX(SO3).singularity_measure([0.0, np.pi / 3, 0.0]))
        0.5000000000000001
        """
        return self._singularity_measure(self._x(x))

    def is_singular(self, x, tol: float = SINGULAR_TOL) -> np.ndarray:
        """Whether ``x`` is on the singular set of the chart (measure below ``tol``).

        Parameters
        ----------
        x : array_like, shape (..., dim)
            Chart coordinates.
        tol : float, optional
            Threshold on :meth:`singularity_measure`.

        Returns
        -------
        ndarray of bool, shape (...)

        Raises
        ------
        DimensionError, NonFiniteError
            On malformed ``x``.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody.charts import ExponentialChart
        >>> ExponentialChart(SO3).is_singular([[0.0, 0.0, np.pi], [0.0, 0.0, 2 * np.pi]])
        array([False,  True])
        """
        return self._singularity_measure(self._x(x)) < tol

    def velocity_map_inverse(self, x, tol: float = SINGULAR_TOL) -> np.ndarray:
        """``S(x)⁻¹``, mapping body velocities to coordinate rates ``ẋ = S⁻¹ v``.

        Parameters
        ----------
        x : array_like, shape (..., dim)
            Chart coordinates.
        tol : float, optional
            Threshold on :meth:`singularity_measure`.

        Returns
        -------
        ndarray, shape (..., dim, dim)

        Raises
        ------
        DimensionError, NonFiniteError
            On malformed ``x``.
        SingularityError
            On the singular set of the chart.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody.charts import EulerZYX
        >>> EulerZYX(SO3).velocity_map_inverse([0.0, np.pi / 2, 0.0])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        geomech.errors.SingularityError: velocity_map_inverse is evaluated on the singular set ...
        """
        x = self._x(x)
        self._raise_if_singular(x, tol, "velocity_map_inverse")
        return np.linalg.inv(self._S(x))


class ExponentialChart(Chart):
    """Exponential coordinates around ``ḡ``: ``g = ḡ exp(x̂)`` (seed 003 eq. 59).

    The velocity map is the right Jacobian, ``S(x) = J_r(x) = dexp_{-x}`` (eqs. 28-29; closed
    forms with Taylor branches from :meth:`geomech.lie.LieGroup.right_jacobian`). It is
    singular where ``J_r`` is (rotation angle ``2πk``, ``k ≥ 1``; never for abelian groups).
    ``∂S/∂x`` is exact: ``S`` is the top-right block of ``expm([[-ad_x, I], [0, 0]])`` and its
    derivative the matching block of the Fréchet derivative of ``expm``, itself a block of a
    4·dim × 4·dim matrix exponential. At ``x = 0``, ``∂S/∂x_j = -½ ad_{e_j}``.

    Parameters
    ----------
    group : LieGroup
        Any geomech Lie group.
    g_bar : array_like, shape group.point_shape, optional
        Centre of the chart (default the identity).

    Raises
    ------
    TypeError
        If ``group`` is not a :class:`~geomech.lie.LieGroup`.
    DimensionError, NonFiniteError, NotOnManifoldError
        If ``g_bar`` is not a group element.

    References
    ----------
    seed 003 §1.3, eqs. (28)-(29), (59), (64), (72), (100).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE2
    >>> from geomech.rigidbody.charts import ExponentialChart
    >>> np.round(ExponentialChart(SE2).velocity_map([0.5, 0.3, -0.2]), 8)  # §1.3, [θ, ρ1, ρ2]
    array([[ 1.        ,  0.        ,  0.        ],
           [ 0.1226233 ,  0.95885108,  0.24483488],
           [ 0.13044136, -0.24483488,  0.95885108]])
    """

    _singular_set = "S(x) = J_r(x) is singular at rotation angle 2πk, k ≥ 1"

    def __init__(self, group: LieGroup, g_bar=None):
        self.group = as_lie_group(group)
        self.dim = group.dim
        self.g_bar = group.identity() if g_bar is None else group.validate(g_bar, "g_bar")
        self._g_bar_inv = group._inverse(self.g_bar)

    def __repr__(self) -> str:
        return f"ExponentialChart({self.group!r})"

    def _to_group(self, x):
        return self.group._compose(self.g_bar, self.group._exp(x))

    def _from_group(self, g):
        return self.group._log(self.group._compose(self._g_bar_inv, g))

    def _S(self, x):
        return self.group._left_jacobian(-x)  # J_r(x) = J_l(-x)

    def _dS(self, x):
        # S(x) = top-right block of expm(A), A = [[-ad_x, I], [0, 0]] (seed 003 §1.3 oracle).
        # d/dx_m expm(A) = Fréchet derivative L(A, E_m), E_m = [[-ad_{e_m}, 0], [0, 0]], and
        # L(A, E) is the top-right block of expm([[A, E], [0, A]]) (Najfeld-Havel 1995).
        n = self.dim
        lead = x.shape[:-1]
        s = self.group._structure_constants
        ad_x = np.einsum("...i,ijk->...kj", x, s)
        ad_e = np.einsum("mi,ijk->mkj", np.eye(n), s)  # ad_e[m] = ad_{e_m}
        B = np.zeros(lead + (n, 4 * n, 4 * n))
        for off in (0, 2 * n):  # the two diagonal copies of A
            B[..., off : off + n, off : off + n] = -ad_x[..., None, :, :]
            B[..., off : off + n, off + n : off + 2 * n] = np.eye(n)
        B[..., :n, 2 * n : 3 * n] = -ad_e
        from scipy.linalg import expm  # lazily: keeps scipy out of `import geomech`

        L = expm(B)[..., : 2 * n, 2 * n :]  # Fréchet derivative of expm(A) along E_m
        return np.moveaxis(L[..., :n, n:], -3, -1)  # dS[..., i, j, m]

    def _singularity_measure(self, x):
        sv = np.linalg.svd(self._S(x), compute_uv=False)
        return sv[..., -1] / np.maximum(sv[..., 0], np.finfo(float).tiny)


def _rot_z(a):
    c, s, o, i = np.cos(a), np.sin(a), np.zeros_like(a), np.ones_like(a)
    return np.stack([c, -s, o, s, c, o, o, o, i], -1).reshape(a.shape + (3, 3))


def _rot_y(a):
    c, s, o, i = np.cos(a), np.sin(a), np.zeros_like(a), np.ones_like(a)
    return np.stack([c, o, s, o, i, o, -s, o, c], -1).reshape(a.shape + (3, 3))


def _rot_x(a):
    c, s, o, i = np.cos(a), np.sin(a), np.zeros_like(a), np.ones_like(a)
    return np.stack([i, o, o, o, c, -s, o, s, c], -1).reshape(a.shape + (3, 3))


def _d_rot_z(a):
    c, s, o = np.cos(a), np.sin(a), np.zeros_like(a)
    return np.stack([-s, -c, o, c, -s, o, o, o, o], -1).reshape(a.shape + (3, 3))


def _d_rot_y(a):
    c, s, o = np.cos(a), np.sin(a), np.zeros_like(a)
    return np.stack([-s, o, c, o, o, o, -c, o, -s], -1).reshape(a.shape + (3, 3))


def _d_rot_x(a):
    c, s, o = np.cos(a), np.sin(a), np.zeros_like(a)
    return np.stack([o, o, o, o, -s, -c, o, c, -s], -1).reshape(a.shape + (3, 3))


def _euler_S(eta):
    """``S_E(η)`` with ``ω^B = S_E η̇`` for ``R = Rz(ψ) Ry(θ) Rx(φ)`` (seed 003 §4, F6)."""
    th, ph = eta[..., 1], eta[..., 2]
    ct, st, cp, sp, o = np.cos(th), np.sin(th), np.cos(ph), np.sin(ph), np.zeros_like(th)
    return np.stack([-st, o, o + 1.0, ct * sp, cp, o, ct * cp, -sp, o], -1).reshape(
        eta.shape[:-1] + (3, 3)
    )


def _euler_dS(eta):
    """``∂S_E/∂η_m`` stacked on the last axis (``∂/∂ψ = 0``)."""
    th, ph = eta[..., 1], eta[..., 2]
    ct, st, cp, sp, o = np.cos(th), np.sin(th), np.cos(ph), np.sin(ph), np.zeros_like(th)
    d_th = np.stack([-ct, o, o, -st * sp, o, o, -st * cp, o, o], -1)
    d_ph = np.stack([o, o, o, ct * cp, -sp, o, -ct * sp, -cp, o], -1)
    dS = np.stack([np.zeros_like(d_th), d_th, d_ph], -1)
    return dS.reshape(eta.shape[:-1] + (3, 3, 3))


class EulerZYX(Chart):
    r"""ZYX Euler angles on SO(3), or ZYX angles and world position on SE(3).

    On SO(3), ``x = η = [ψ, θ, φ]`` (yaw, pitch, roll) and ``R = Rz(ψ) Ry(θ) Rx(φ)``; the body
    angular velocity is ``ω = S_E(η) η̇`` with

    .. math:: S_E(\eta) = \begin{bmatrix} -\sin\theta & 0 & 1 \\
              \cos\theta\sin\phi & \cos\phi & 0 \\
              \cos\theta\cos\phi & -\sin\phi & 0 \end{bmatrix},
              \qquad \det S_E = -\cos\theta,

    singular at ``θ = ±π/2`` (gimbal lock). On SE(3), ``x = [ψ, θ, φ, p_x, p_y, p_z]``
    (angles first, like twists; ``p`` the world position) and ``S = blockdiag(S_E(η), R(η)ᵀ)``
    maps ``ẋ`` to the body twist ``[ω; v]``. :meth:`from_group` returns ``ψ, φ ∈ (-π, π]``,
    ``θ ∈ [-π/2, π/2]``.

    Parameters
    ----------
    group : LieGroup
        ``SO3`` or ``SE3``.

    Raises
    ------
    GeomechError
        For another group.

    References
    ----------
    seed 003 §1.2 (eq. 12: "singularities ... relating the time derivative of the Euler angles
    and the body velocity"), §4 fixture F6.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> from geomech.rigidbody.charts import EulerZYX
    >>> S = EulerZYX(SO3).velocity_map([0.3, -0.4, 0.7])
    >>> bool(np.isclose(np.linalg.det(S), -np.cos(-0.4)))  # det S_E = -cos θ
    True
    """

    _singular_set = "gimbal lock: pitch θ = ±π/2, where only ψ - φ (or ψ + φ) is determined"

    def __init__(self, group: LieGroup):
        if not isinstance(group, (SO3Group, SE3Group)):
            name = getattr(group, "name", type(group).__name__)
            raise ParameterError(f"EulerZYX charts SO(3) or SE(3), got {name}.")
        self.group = group
        self.dim = group.dim
        self._se3 = isinstance(group, SE3Group)

    def __repr__(self) -> str:
        return f"EulerZYX({self.group!r})"

    @staticmethod
    def _R(eta):
        return _rot_z(eta[..., 0]) @ _rot_y(eta[..., 1]) @ _rot_x(eta[..., 2])

    def _to_group(self, x):
        R = self._R(x[..., :3])
        if not self._se3:
            return R
        g = np.zeros(x.shape[:-1] + (4, 4))
        g[..., :3, :3] = R
        g[..., :3, 3] = x[..., 3:]
        g[..., 3, 3] = 1.0
        return g

    def _from_group(self, g):
        R = g[..., :3, :3]
        psi = np.arctan2(R[..., 1, 0], R[..., 0, 0])
        theta = np.arctan2(-R[..., 2, 0], np.hypot(R[..., 2, 1], R[..., 2, 2]))
        phi = np.arctan2(R[..., 2, 1], R[..., 2, 2])
        eta = np.stack([psi, theta, phi], -1)
        return np.concatenate([eta, g[..., :3, 3]], -1) if self._se3 else eta

    def _S(self, x):
        S_E = _euler_S(x[..., :3])
        if not self._se3:
            return S_E
        S = np.zeros(x.shape[:-1] + (6, 6))
        S[..., :3, :3] = S_E
        S[..., 3:, 3:] = np.swapaxes(self._R(x[..., :3]), -1, -2)  # v = Rᵀ ṗ
        return S

    def _dS(self, x):
        dS_E = _euler_dS(x[..., :3])
        if not self._se3:
            return dS_E
        eta = x[..., :3]
        Rz, Ry, Rx = _rot_z(eta[..., 0]), _rot_y(eta[..., 1]), _rot_x(eta[..., 2])
        dR = np.stack(
            [
                _d_rot_z(eta[..., 0]) @ Ry @ Rx,
                Rz @ _d_rot_y(eta[..., 1]) @ Rx,
                Rz @ Ry @ _d_rot_x(eta[..., 2]),
            ],
            -1,
        )  # dR[..., a, b, m] = ∂R_ab/∂η_m
        dS = np.zeros(x.shape[:-1] + (6, 6, 6))
        dS[..., :3, :3, :3] = dS_E
        dS[..., 3:, 3:, :3] = np.swapaxes(dR, -3, -2)  # ∂(Rᵀ)/∂η_m
        return dS

    def _singularity_measure(self, x):
        return np.abs(np.cos(x[..., 1]))


class PlanarChart(Chart):
    """Heading angle and position on SE(2) or the Schönflies group.

    ``x = [θ, p_x, p_y]`` on SE(2) and ``x = [θ, p_x, p_y, p_z]`` on X(z) (angle first, like
    the Lie-algebra coordinates), ``g = [[Rz(θ), p], [0, 1]]``, and the body velocity is
    ``v = [θ̇; Rz(θ)ᵀ ṗ_xy (; ṗ_z)]``. ``det S = 1``: the chart is never singular (it covers the
    group; :meth:`from_group` returns ``θ ∈ (-π, π]``).

    Parameters
    ----------
    group : LieGroup
        ``SE2`` or ``Schoenflies``.

    Raises
    ------
    GeomechError
        For another group.

    References
    ----------
    seed 003 §4 fixture F6 (SE(2): ``S = [[cos θ, sin θ, 0], [-sin θ, cos θ, 0], [0, 0, 1]]``
    in the paper's order).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE2
    >>> from geomech.rigidbody.charts import PlanarChart
    >>> np.round(PlanarChart(SE2).velocity_map([np.pi / 2, 0.0, 0.0]), 12) + 0.0
    array([[ 1.,  0.,  0.],
           [ 0.,  0.,  1.],
           [ 0., -1.,  0.]])
    """

    def __init__(self, group: LieGroup):
        if not isinstance(group, (SE2Group, SchoenfliesGroup)):
            name = getattr(group, "name", type(group).__name__)
            raise ParameterError(f"PlanarChart charts SE(2) or Schoenflies, got {name}.")
        self.group = group
        self.dim = group.dim
        self._n = group.matrix_size - 1  # 2 (SE(2)) or 3 (X(z))

    def __repr__(self) -> str:
        return f"PlanarChart({self.group!r})"

    def _to_group(self, x):
        n = self._n
        g = np.zeros(x.shape[:-1] + (n + 1, n + 1))
        g[..., :2, :2] = _rot_z(x[..., 0])[..., :2, :2]
        g[..., 2:, 2:] = np.eye(n - 1)  # z axis (X(z)) and the homogeneous 1
        g[..., :n, n] = x[..., 1:]
        return g

    def _from_group(self, g):
        n = self._n
        theta = np.arctan2(g[..., 1, 0], g[..., 0, 0])
        return np.concatenate([theta[..., None], g[..., :n, n]], -1)

    def _S(self, x):
        S = np.broadcast_to(np.eye(self.dim), x.shape[:-1] + (self.dim, self.dim)).copy()
        S[..., 1:3, 1:3] = np.swapaxes(_rot_z(x[..., 0])[..., :2, :2], -1, -2)
        return S

    def _dS(self, x):
        dS = np.zeros(x.shape[:-1] + (self.dim, self.dim, self.dim))
        dS[..., 1:3, 1:3, 0] = np.swapaxes(_d_rot_z(x[..., 0])[..., :2, :2], -1, -2)
        return dS

    def _singularity_measure(self, x):
        return np.ones(x.shape[:-1])
