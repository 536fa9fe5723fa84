"""The abstract matrix Lie group: the smallest core, and everything derived from it once.

A concrete group implements the private core ``_identity``, ``_compose``, ``_inverse``, ``_exp``,
``_log``, ``_hat``, ``_vee``, ``_Ad``, ``_check_point``, ``_random`` and ``to_geomstats``; its
inputs are already validated, batched float arrays. The public methods (validation at the boundary,
batching, ``ad``, ``bracket``, structure constants; the Jacobians of exp in
``geomech.lie._jacobians``) live here, once, and are :func:`~typing.final`. Closed-form Jacobians
are optional hooks (``_left_jacobian``, ``_left_jacobian_inverse``); the generic fallback uses the
expm-block oracle of seed 003 §1.3.

Conventions (:ref:`conventions-lie-groups`)
-------------------------------------------
- Elements are arrays of shape ``point_shape`` (homogeneous matrices for the matrix groups);
  Lie-algebra elements are coordinate vectors ``xi`` of shape ``(dim,)``, angular first.
- ``hat(xi) = sum_i xi[i] E_i`` with the basis ``E_i = hat(e_i)``; ``vee`` is its inverse.
- Structure constants: ``[E_i, E_j] = sum_k s[i, j, k] E_k``, so ``ad(xi)[k, j] =
  sum_i xi[i] s[i, j, k]`` and ``(ad_{E_i})[k, j] = s[i, j, k]`` (seed 003 §1.6, ``c^k_ij``).
- Jacobians: ``exp(xi + d) ~ exp(xi) exp(J_r(xi) d) ~ exp(J_l(xi) d) exp(xi)``, with
  ``J_r(xi) = sum_k (-ad_xi)^k / (k+1)! = J_l(-xi)``. ``J_r`` is seed 003's ``S(phi)``
  (eqs. 28-29, 34, 55, 64, 72, 100): it maps ``phi_dot`` to the body velocity of
  ``g = g_bar exp(phi)``.
"""

from __future__ import annotations

import abc
import math
from functools import cached_property
from typing import final

import numpy as np

from geomech._validation import MANIFOLD_TOL, as_array, check_result, check_size, default_rng
from geomech.errors import DTypeError
from geomech.lie._jacobians import ExpJacobians

__all__ = ["LieGroup", "as_lie_group"]


class LieGroup(ExpJacobians, abc.ABC):
    """Abstract matrix Lie group acting on arrays with leading batch dimensions.

    Subclasses set :attr:`name`, :attr:`dim`, :attr:`point_shape` and :attr:`matrix_size`
    and implement the private core (see the module docstring). Every public method accepts
    leading batch dimensions: an argument of shape ``(..., dim)`` or ``(..., *point_shape)``
    gives a result with the same leading dimensions.

    Attributes
    ----------
    name : str
        Human-readable name, e.g. ``"SO(3)"``.
    dim : int
        Dimension of the Lie algebra (number of coordinates of ``xi``).
    point_shape : tuple of int
        Shape of one group element.
    matrix_size : int
        Size ``n`` of the matrix representation: :meth:`hat` returns ``(..., n, n)`` and
        :meth:`as_matrix` returns ``(..., n, n)``.

    Examples
    --------
    >>> from geomech.lie import SE3, LieGroup
    >>> isinstance(SE3, LieGroup), SE3.dim, SE3.point_shape
    (True, 6, (4, 4))
    """

    name: str
    dim: int
    point_shape: tuple[int, ...]
    matrix_size: int

    # ------------------------------------------------------------------------------------
    # Core, implemented by each group (inputs validated; leading batch dimensions allowed)
    # ------------------------------------------------------------------------------------
    @abc.abstractmethod
    def _identity(self) -> np.ndarray: ...

    @abc.abstractmethod
    def _compose(self, a: np.ndarray, b: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _inverse(self, g: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _exp(self, xi: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _log(self, g: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _hat(self, xi: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _vee(self, X: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _Ad(self, g: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _check_point(self, g: np.ndarray, name: str, tol: float) -> None:
        """Raise NotOnManifoldError unless ``g`` (shape already checked) is on the group."""

    @abc.abstractmethod
    def _random(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray: ...

    @abc.abstractmethod
    def to_geomstats(self):
        """Return the matching geomstats space (imported lazily)."""

    def _as_matrix(self, g: np.ndarray) -> np.ndarray:
        """Matrix representation of ``g``; the identity map for matrix groups."""
        return g

    # ------------------------------------------------------------------------------------
    # Validation and construction
    # ------------------------------------------------------------------------------------
    def _finite(self, method: str, inputs: str, f, *args) -> np.ndarray:
        """``f(*args)``, named if it overflowed (finite inputs, inf or NaN result).

        The overflow is reported as a :class:`~geomech.errors.NonFiniteError` naming
        ``{group}.{method}`` and the inputs (one ``isfinite`` pass on the result: cheap next
        to the operation itself).
        """
        out = f(*args)
        if not np.isfinite(out).all():
            check_result(out, f"{self!r}.{method}", inputs)
        return out

    @final
    def validate(self, g, name: str = "g", tol: float = MANIFOLD_TOL) -> np.ndarray:
        """Check that ``g`` is a (batch of) group element(s) and return it as a float array.

        Parameters
        ----------
        g : array_like, shape (...,) + point_shape
            Candidate element(s).
        name : str, optional
            Name of the input, used in error messages.
        tol : float, optional
            Absolute tolerance of the membership test (e.g. ``|R Rᵀ - I|``).

        Returns
        -------
        ndarray, shape (...,) + point_shape
            ``g`` as a float array.

        Raises
        ------
        DimensionError
            If the trailing dimensions of ``g`` are not :attr:`point_shape`.
        NonFiniteError
            If ``g`` has NaN or infinite entries.
        NotOnManifoldError
            If ``g`` is not on the group to ``tol`` (non-orthonormal rotation block,
            wrong homogeneous row, rotation not about z for the Schönflies group, ...).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> SO3.validate(np.eye(3)).shape
        (3, 3)
        >>> SO3.validate(2 * np.eye(3), name="R")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        geomech.errors.NotOnManifoldError: Expected `R` to be orthonormal (R Rᵀ = I), ...
        """
        arr = as_array(g, name, self.point_shape)
        self._check_point(arr, name, tol)
        return arr

    def _algebra(self, xi, name: str = "xi") -> np.ndarray:
        return as_array(xi, name, (self.dim,))

    def _point(self, g, name: str = "g") -> np.ndarray:
        return as_array(g, name, self.point_shape)

    @final
    def identity(self) -> np.ndarray:
        """Return the identity element.

        Returns
        -------
        ndarray, shape point_shape
            The neutral element ``e`` (identity matrix, or zero vector for ``Euclidean``).

        Examples
        --------
        >>> from geomech.lie import SE2
        >>> SE2.identity()
        array([[1., 0., 0.],
               [0., 1., 0.],
               [0., 0., 1.]])
        """
        return self._identity()

    @final
    def random(self, rng=None, size=None) -> np.ndarray:
        """Draw random group elements.

        Rotations are Haar-uniform (normalised Gaussian quaternions, uniform planar angles);
        translations are standard normal.

        Parameters
        ----------
        rng : None, int or numpy.random.Generator, optional
            Source of randomness (a seed or a generator).
        size : None, int or tuple of int, optional
            Batch shape; ``None`` returns a single element.

        Returns
        -------
        ndarray, shape size + point_shape
            Random elements.

        Raises
        ------
        DTypeError
            If ``rng`` or ``size`` has the wrong type.
        DimensionError
            If ``size`` has a negative entry.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> R = SO3.random(rng=0, size=(2, 5))
        >>> R.shape
        (2, 5, 3, 3)
        >>> bool(np.allclose(R @ R.swapaxes(-1, -2), np.eye(3)))
        True
        """
        per_item = 4 * (math.prod(self.point_shape) + self.dim)  # element and working arrays
        return self._random(default_rng(rng), check_size(size, per_item=per_item))

    # ------------------------------------------------------------------------------------
    # Group operations
    # ------------------------------------------------------------------------------------
    @final
    def compose(self, a, b) -> np.ndarray:
        """Group product ``a · b``.

        Only shapes and finiteness are checked (use :meth:`validate` for membership).

        Parameters
        ----------
        a, b : array_like, shape (...,) + point_shape
            Elements; leading dimensions broadcast.

        Returns
        -------
        ndarray, shape (...,) + point_shape
            The product ``a · b`` (matrix product for matrix groups).

        Raises
        ------
        DimensionError, NonFiniteError
            If ``a`` or ``b`` has the wrong trailing shape or non-finite entries, or if the
            product overflows.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> a = SO3.exp([0.0, 0.0, np.pi / 4])
        >>> bool(np.allclose(SO3.compose(a, a), SO3.exp([0.0, 0.0, np.pi / 2])))
        True
        """
        return self._finite(
            "compose(a, b)", "`a` or `b`", self._compose, self._point(a, "a"), self._point(b, "b")
        )

    @final
    def inverse(self, g, tol: float = MANIFOLD_TOL) -> np.ndarray:
        """Group inverse ``g⁻¹``.

        Parameters
        ----------
        g : array_like, shape (...,) + point_shape
            Element(s); validated with :meth:`validate` (the inverse uses ``Rᵀ``).
        tol : float, optional
            Membership tolerance.

        Returns
        -------
        ndarray, shape (...,) + point_shape
            ``g⁻¹``; for ``[[R, p], [0, 1]]`` it is ``[[Rᵀ, -Rᵀ p], [0, 1]]``.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            As in :meth:`validate`.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE3
        >>> g = SE3.random(rng=1)
        >>> bool(np.allclose(SE3.compose(g, SE3.inverse(g)), np.eye(4)))
        True
        """
        return self._finite("inverse(g)", "`g`", self._inverse, self.validate(g, "g", tol))

    @final
    def as_matrix(self, g) -> np.ndarray:
        """Matrix representation of ``g`` (``expm(hat(xi)) == as_matrix(exp(xi))``).

        For the matrix groups this is ``g`` itself; for ``Euclidean(n)`` it is the homogeneous
        translation matrix ``[[I, x], [0, 1]]``; for a :class:`ProductGroup` the block-diagonal
        matrix of the factors' representations.

        Parameters
        ----------
        g : array_like, shape (...,) + point_shape
            Element(s).

        Returns
        -------
        ndarray, shape (..., matrix_size, matrix_size)
            The representing matrices; ``as_matrix(compose(a, b)) == as_matrix(a) @
            as_matrix(b)``.

        Raises
        ------
        DimensionError, NonFiniteError
            If ``g`` has the wrong trailing shape or non-finite entries.

        Examples
        --------
        >>> from geomech.lie import Euclidean
        >>> Euclidean(2).as_matrix([1.0, 2.0])
        array([[1., 0., 1.],
               [0., 1., 2.],
               [0., 0., 1.]])
        """
        return self._as_matrix(self._point(g))

    # ------------------------------------------------------------------------------------
    # Exponential and logarithm
    # ------------------------------------------------------------------------------------
    @final
    def exp(self, xi) -> np.ndarray:
        r"""Group exponential of Lie-algebra coordinates.

        .. math:: \exp(\xi) = \operatorname{expm}(\hat\xi)
                  = \sum_{k \ge 0} \hat\xi^k / k!

        evaluated in closed form (Rodrigues for SO(3); ``[[R, V v], [0, 1]]`` with
        ``V = J_l^{SO(3)}(ω)`` for SE(3)), with Taylor branches near ``0``.

        Parameters
        ----------
        xi : array_like, shape (..., dim)
            Lie-algebra coordinates (angular first, e.g. ``[ω; v]`` on SE(3)).

        Returns
        -------
        ndarray, shape (...,) + point_shape
            ``exp(xi)``.

        Raises
        ------
        DimensionError, NonFiniteError
            If ``xi`` has the wrong trailing shape or non-finite entries, or if the result
            is not representable in float64 (e.g. a translation near ``1e308``; on SO(3)
            every finite ``xi`` whose norm is below ``1.8e308`` has a finite exp).

        References
        ----------
        seed 003 §1.3, eq. (59) (chart ``g = g_bar exp(phî)``).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> np.round(SO3.exp([0.0, 0.0, np.pi / 2]), 12) + 0.0
        array([[ 0., -1.,  0.],
               [ 1.,  0.,  0.],
               [ 0.,  0.,  1.]])
        """
        return self._finite("exp(xi)", "`xi`", self._exp, self._algebra(xi))

    @final
    def log(self, g, tol: float = MANIFOLD_TOL) -> np.ndarray:
        """Principal logarithm: the coordinates ``xi`` with ``exp(xi) = g``.

        Rotation angles are returned in ``[0, π]`` (SO(3), SE(3)) or ``(-π, π]`` (SE(2),
        Schönflies). At a rotation angle of exactly ``π`` both ``±ω`` are logarithms; the
        returned axis has its largest-magnitude component positive (a convention). For angles
        above ``π/2`` the SO(3) axis is taken from the symmetric part of ``R`` and its sign
        from the antisymmetric part, so the result stays accurate up to ``π`` (the angle
        itself is ``atan2(|(R - Rᵀ)^∨|/2, (tr R - 1)/2)``).

        Parameters
        ----------
        g : array_like, shape (...,) + point_shape
            Element(s); validated with :meth:`validate`.
        tol : float, optional
            Membership tolerance.

        Returns
        -------
        ndarray, shape (..., dim)
            ``log(g)``.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            As in :meth:`validate`.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE3
        >>> xi = np.array([0.1, -0.2, 0.3, 1.0, 2.0, 3.0])
        >>> bool(np.allclose(SE3.log(SE3.exp(xi)), xi))
        True
        """
        return self._log(self.validate(g, "g", tol))

    # ------------------------------------------------------------------------------------
    # Lie algebra
    # ------------------------------------------------------------------------------------
    @final
    def hat(self, xi) -> np.ndarray:
        """Lie-algebra coordinates to matrices: ``hat(xi) = Σ_i xi[i] E_i``.

        Parameters
        ----------
        xi : array_like, shape (..., dim)
            Coordinates.

        Returns
        -------
        ndarray, shape (..., matrix_size, matrix_size)
            The matrix ``ξ̂`` (skew matrix for SO(3); ``[[ω̂, v], [0, 0]]`` for SE(3); the
            nilpotent translation matrix for ``Euclidean(n)``).

        Raises
        ------
        DimensionError, NonFiniteError
            If ``xi`` has the wrong trailing shape or non-finite entries.

        References
        ----------
        seed 003 eq. (6) and Table 1 (there with ``[v; ω]`` order).

        Examples
        --------
        >>> from geomech.lie import SO3
        >>> SO3.hat([1.0, 2.0, 3.0])
        array([[ 0., -3.,  2.],
               [ 3.,  0., -1.],
               [-2.,  1.,  0.]])
        """
        return self._hat(self._algebra(xi))

    @final
    def vee(self, X) -> np.ndarray:
        """Inverse of :meth:`hat` (reads the coordinates; the structure is not checked).

        Parameters
        ----------
        X : array_like, shape (..., matrix_size, matrix_size)
            Lie-algebra matrices.

        Returns
        -------
        ndarray, shape (..., dim)
            Coordinates ``xi`` with ``hat(xi) = X``.

        Raises
        ------
        DimensionError, NonFiniteError
            If ``X`` has the wrong trailing shape or non-finite entries.

        Examples
        --------
        >>> from geomech.lie import SE2
        >>> SE2.vee(SE2.hat([0.5, 1.0, 2.0]))
        array([0.5, 1. , 2. ])
        """
        n = self.matrix_size
        return self._vee(as_array(X, "X", (n, n)))

    @final
    def Ad(self, g, tol: float = MANIFOLD_TOL) -> np.ndarray:
        r"""Adjoint representation ``Ad(g)`` as a ``dim × dim`` matrix.

        .. math:: \operatorname{Ad}(g)\,\xi = (g\,\hat\xi\,g^{-1})^\vee

        For SE(3) in ``[ω; v]`` order, ``Ad(g) = [[R, 0], [p̂ R, R]]`` (Featherstone's
        motion transform of the inverse pose).

        Parameters
        ----------
        g : array_like, shape (...,) + point_shape
            Element(s); validated with :meth:`validate`.
        tol : float, optional
            Membership tolerance.

        Returns
        -------
        ndarray, shape (..., dim, dim)
            ``Ad(g)``; ``Ad(a·b) = Ad(a) Ad(b)`` and ``Ad(exp(xi)) = expm(ad(xi))``.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            As in :meth:`validate`.

        References
        ----------
        seed 003 §1.4 (``Ad_g`` there in ``[v; ω]`` order).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE3
        >>> g, xi = SE3.random(rng=0), np.arange(6.0)
        >>> lhs = SE3.compose(SE3.compose(g, SE3.exp(xi)), SE3.inverse(g))
        >>> bool(np.allclose(lhs, SE3.exp(SE3.Ad(g) @ xi)))
        True
        """
        return self._finite("Ad(g)", "`g`", self._Ad, self.validate(g, "g", tol))

    @cached_property
    def _structure_constants(self) -> np.ndarray:
        E = self._hat(np.eye(self.dim))  # E[i] = hat(e_i)
        EiEj = np.einsum("iab,jbc->ijac", E, E)
        return self._vee(EiEj - np.swapaxes(EiEj, 0, 1))  # s[i, j, :] = vee([E_i, E_j])

    @final
    def structure_constants(self) -> np.ndarray:
        r"""Structure constants of the Lie algebra in the basis ``E_i = hat(e_i)``.

        .. math:: [E_i, E_j] = \sum_k s_{ijk} E_k

        so ``s[i, j, k]`` is seed 003's ``c^k_ij``, antisymmetric in ``(i, j)``, and
        ``ad(E_i)[k, j] = s[i, j, k]``.

        Returns
        -------
        ndarray, shape (dim, dim, dim)
            ``s[i, j, k]`` (a fresh copy).

        References
        ----------
        seed 003 §1.6 and §2.1 (``(ad_{e_i})_{kj} = c^k_ij``).

        Examples
        --------
        >>> from geomech.lie import SO3
        >>> s = SO3.structure_constants()
        >>> s[0, 1]  # [E_x, E_y] = E_z
        array([0., 0., 1.])
        """
        return self._structure_constants.copy()

    @final
    def ad(self, xi) -> np.ndarray:
        r"""Adjoint of the Lie algebra, ``ad(xi) eta = [xi, eta]``.

        .. math:: \operatorname{ad}(\xi)_{kj} = \sum_i \xi_i s_{ijk},
                  \qquad \operatorname{ad}(\xi)\,\eta = ([\hat\xi, \hat\eta])^\vee

        For SE(3) in ``[ω; v]`` order, ``ad(xi) = [[ω̂, 0], [v̂, ω̂]]`` (Featherstone's
        ``crm``); for SO(3), ``ad(ω) = ω̂``.

        Parameters
        ----------
        xi : array_like, shape (..., dim)
            Coordinates.

        Returns
        -------
        ndarray, shape (..., dim, dim)
            ``ad(xi)``.

        Raises
        ------
        DimensionError, NonFiniteError
            If ``xi`` has the wrong trailing shape or non-finite entries.

        References
        ----------
        seed 003 eqs. (8), (102).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> bool(np.allclose(SO3.ad([1.0, 2.0, 3.0]), SO3.hat([1.0, 2.0, 3.0])))
        True
        """
        return np.einsum("...i,ijk->...kj", self._algebra(xi), self._structure_constants)

    @final
    def bracket(self, xi, eta) -> np.ndarray:
        """Lie bracket in coordinates, ``[xi, eta] = ad(xi) eta``.

        Parameters
        ----------
        xi, eta : array_like, shape (..., dim)
            Coordinates; leading dimensions broadcast.

        Returns
        -------
        ndarray, shape (..., dim)
            ``vee(hat(xi) hat(eta) - hat(eta) hat(xi))``.

        Raises
        ------
        DimensionError, NonFiniteError
            If an input has the wrong trailing shape or non-finite entries.

        Examples
        --------
        >>> from geomech.lie import SO3
        >>> SO3.bracket([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])  # = cross product on so(3)
        array([0., 0., 1.])
        """
        xi = self._algebra(xi)
        eta = self._algebra(eta, "eta")
        return self._finite(
            "bracket(xi, eta)",
            "`xi` or `eta`",
            np.einsum,
            "...i,...j,ijk->...k",
            xi,
            eta,
            self._structure_constants,
        )

    # ------------------------------------------------------------------------------------
    def __repr__(self) -> str:
        return f"<Lie group {self.name}: dim={self.dim}, point_shape={self.point_shape}>"


def as_lie_group(group, name: str = "group") -> LieGroup:
    """``group`` if it is a :class:`LieGroup`, else a :class:`~geomech.errors.DTypeError`.

    Parameters
    ----------
    group : object
    name : str
        Name used in the message.

    Returns
    -------
    LieGroup

    Raises
    ------
    DTypeError
        If ``group`` is not a LieGroup.

    Examples
    --------
    >>> from geomech.lie import SO3
    >>> from geomech.lie.base import as_lie_group
    >>> as_lie_group(SO3).name
    'SO(3)'
    >>> as_lie_group("SO3")
    Traceback (most recent call last):
        ...
    geomech.errors.DTypeError: Expected `group` to be a geomech.lie.LieGroup, got str.
    """
    if not isinstance(group, LieGroup):
        raise DTypeError(
            f"Expected `{name}` to be a geomech.lie.LieGroup, got {type(group).__name__}."
        )
    return group
