"""The translation group R^n (abelian), elements as plain vectors."""

from __future__ import annotations

import numpy as np

from geomech.errors import DimensionError
from geomech.lie.base import LieGroup

__all__ = ["Euclidean"]


class Euclidean(LieGroup):
    """The abelian group ``(R^n, +)``.

    Elements are vectors of shape ``(n,)``; the Lie-algebra coordinates are the same vectors,
    so ``exp`` and ``log`` are the identity map, ``compose`` is ``+``, ``Ad = I``, ``ad = 0``,
    all structure constants vanish and all Jacobians are ``I``. The matrix representation is
    the homogeneous translation ``as_matrix(x) = [[I, x], [0, 1]]`` and
    ``hat(x) = [[0, x], [0, 0]]`` (``(n+1) × (n+1)``, nilpotent), so
    ``expm(hat(x)) = as_matrix(exp(x))``.

    Parameters
    ----------
    n : int
        Dimension (``n ≥ 1``).

    Raises
    ------
    DimensionError
        If ``n`` is not a positive integer.

    References
    ----------
    seed 003 §2.6 (abelian cases: ``S = I``, ``C = 0``).

    Examples
    --------
    >>> from geomech.lie import Euclidean
    >>> R3 = Euclidean(3)
    >>> R3.compose([1.0, 2.0, 3.0], R3.inverse([1.0, 0.0, 0.0]))
    array([0., 2., 3.])
    >>> R3.hat([1.0, 2.0, 3.0]).shape
    (4, 4)
    """

    def __init__(self, n: int):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise DimensionError(f"Expected `n` to be a positive integer, got {n!r}.")
        self.n = int(n)
        self.name = f"R^{self.n}"
        self.dim = self.n
        self.point_shape = (self.n,)
        self.matrix_size = self.n + 1

    def _identity(self):
        return np.zeros(self.n)

    def _compose(self, a, b):
        return a + b

    def _inverse(self, g):
        return -g

    def _exp(self, xi):
        return xi.copy()

    def _log(self, g):
        return g.copy()

    def _hat(self, xi):
        X = np.zeros(xi.shape[:-1] + (self.n + 1, self.n + 1))
        X[..., : self.n, self.n] = xi
        return X

    def _vee(self, X):
        return X[..., : self.n, self.n].copy()

    def _as_matrix(self, g):
        return self._hat(g) + np.eye(self.n + 1)

    def _eye_batch(self, lead: tuple[int, ...]) -> np.ndarray:
        return np.broadcast_to(np.eye(self.n), lead + (self.n, self.n)).copy()

    def _Ad(self, g):
        return self._eye_batch(g.shape[:-1])

    def _check_point(self, g, name, tol):
        return None  # every finite vector is an element

    def _random(self, rng, shape):
        return rng.standard_normal(shape + (self.n,))

    def _left_jacobian(self, xi):
        return self._eye_batch(xi.shape[:-1])

    def _left_jacobian_inverse(self, xi):
        return self._eye_batch(xi.shape[:-1])

    def to_geomstats(self):
        """Return geomstats' ``Euclidean(dim=n)``.

        Points are the same ``(n,)`` vectors; geomstats has no ``compose`` on it, but its
        metric ``exp(v, base_point=x) = x + v`` matches ``compose(x, exp(v))``.

        Returns
        -------
        geomstats.geometry.euclidean.Euclidean
            The vector space ``R^n`` with its flat metric.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import Euclidean
        >>> E = Euclidean(2).to_geomstats()
        >>> bool(np.allclose(E.metric.exp(np.array([1.0, 2.0]), np.zeros(2)), [1.0, 2.0]))
        True
        """
        from geomstats.geometry.euclidean import Euclidean as GsEuclidean

        return GsEuclidean(dim=self.n)

    def __eq__(self, other) -> bool:
        return isinstance(other, Euclidean) and other.n == self.n

    def __hash__(self) -> int:
        return hash(("Euclidean", self.n))

    def __repr__(self) -> str:
        return f"Euclidean({self.n})"
