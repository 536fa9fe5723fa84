"""Direct products of Lie groups, with elements stored as flat vectors."""

from __future__ import annotations

from math import prod

import numpy as np

from geomech._validation import as_array
from geomech.errors import DimensionError, DTypeError
from geomech.lie.base import LieGroup

__all__ = ["ProductGroup"]


def _block_diag(blocks: list[np.ndarray]) -> np.ndarray:
    """Batched block-diagonal matrix of square blocks (leading dimensions broadcast)."""
    lead = np.broadcast_shapes(*(b.shape[:-2] for b in blocks))
    n = sum(b.shape[-1] for b in blocks)
    out = np.zeros(lead + (n, n))
    o = 0
    for b in blocks:
        k = b.shape[-1]
        out[..., o : o + k, o : o + k] = b
        o += k
    return out


class ProductGroup(LieGroup):
    """The direct product ``G_1 × G_2 × ⋯ × G_m`` of Lie groups.

    An element is ONE flat vector of length ``Σ_i prod(G_i.point_shape)``: the concatenation of
    each factor's element flattened in C (row-major) order, e.g. for ``SO3 × Euclidean(2)``
    ``[R.ravel(), x]`` (shape ``(11,)``, the layout of geomstats' ``ProductManifold``). Use
    :meth:`split` and :meth:`join` to convert. Lie-algebra coordinates are the concatenated
    factor coordinates; ``hat``, ``as_matrix``, ``Ad``, ``ad`` and the Jacobians are
    block-diagonal, and brackets between different factors vanish (seed 003 §2.7).

    Parameters
    ----------
    *groups : LieGroup
        The factors (at least one); products may be nested.

    Raises
    ------
    TypeError
        If no factor is given or a factor is not a :class:`LieGroup`.

    References
    ----------
    seed 003 §2.7 (products: block-diagonal ``ad`` and ``S``).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3, Euclidean, ProductGroup
    >>> G = ProductGroup(SO3, Euclidean(2))
    >>> G.name, G.dim, G.point_shape
    ('SO(3) × R^2', 5, (11,))
    >>> R, x = G.split(G.exp([0.0, 0.0, np.pi / 2, 1.0, 2.0]))
    >>> np.round(R @ [1.0, 0.0, 0.0], 12) + 0.0, x
    (array([0., 1., 0.]), array([1., 2.]))
    """

    def __init__(self, *groups: LieGroup):
        if not groups:
            raise DTypeError("Expected at least one factor group, got none.")
        for i, G in enumerate(groups):
            if not isinstance(G, LieGroup):
                raise DTypeError(f"Expected factor {i} to be a LieGroup, got {type(G).__name__}.")
        self.factors = tuple(groups)
        self.name = " × ".join(G.name for G in groups)
        self._sizes = [prod(G.point_shape) for G in groups]
        self._offsets = np.cumsum([0] + self._sizes).tolist()
        self._dim_offsets = np.cumsum([0] + [G.dim for G in groups]).tolist()
        self._mat_offsets = np.cumsum([0] + [G.matrix_size for G in groups]).tolist()
        self.dim = self._dim_offsets[-1]
        self.point_shape = (self._offsets[-1],)
        self.matrix_size = self._mat_offsets[-1]

    # -- layout ------------------------------------------------------------------------------
    def _split(self, g: np.ndarray) -> list[np.ndarray]:
        lead, o = g.shape[:-1], self._offsets
        return [
            g[..., o[i] : o[i + 1]].reshape(lead + G.point_shape)
            for i, G in enumerate(self.factors)
        ]

    def _join(self, parts: list[np.ndarray]) -> np.ndarray:
        pairs = list(zip(parts, self.factors, strict=True))
        lead = np.broadcast_shapes(*(p.shape[: p.ndim - len(G.point_shape)] for p, G in pairs))
        return np.concatenate(
            [np.broadcast_to(p, lead + G.point_shape).reshape(lead + (-1,)) for p, G in pairs],
            axis=-1,
        )

    def _split_algebra(self, xi: np.ndarray) -> list[np.ndarray]:
        o = self._dim_offsets
        return [xi[..., o[i] : o[i + 1]] for i in range(len(self.factors))]

    def _on_points(self, g: np.ndarray):
        """Pairs ``(G_i, g_i)`` of factors and their parts of ``g``."""
        return zip(self.factors, self._split(g), strict=True)

    def _on_algebra(self, xi: np.ndarray):
        """Pairs ``(G_i, xi_i)`` of factors and their coordinates."""
        return zip(self.factors, self._split_algebra(xi), strict=True)

    def split(self, g) -> list[np.ndarray]:
        """Split flat product elements into the factors' elements.

        Parameters
        ----------
        g : array_like, shape (..., point_shape[0])
            Flat elements.

        Returns
        -------
        list of ndarray
            ``[g_1, ..., g_m]`` with shapes ``(..., *G_i.point_shape)``.

        Raises
        ------
        DimensionError, NonFiniteError
            If ``g`` has the wrong trailing shape or non-finite entries.

        Examples
        --------
        >>> from geomech.lie import SE2, Euclidean, ProductGroup
        >>> G = ProductGroup(SE2, Euclidean(1))
        >>> [p.shape for p in G.split(G.identity())]
        [(3, 3), (1,)]
        """
        return self._split(as_array(g, "g", self.point_shape))

    def join(self, parts) -> np.ndarray:
        """Concatenate factor elements into flat product elements (inverse of :meth:`split`).

        Parameters
        ----------
        parts : sequence of array_like
            One array per factor, shapes ``(..., *G_i.point_shape)``; leading dimensions
            broadcast.

        Returns
        -------
        ndarray, shape (..., point_shape[0])
            The flat elements.

        Raises
        ------
        DimensionError
            If the number of parts differs from the number of factors or a part has the wrong
            trailing shape.
        NonFiniteError
            If a part has non-finite entries.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3, Euclidean, ProductGroup
        >>> G = ProductGroup(SO3, Euclidean(2))
        >>> G.join([np.eye(3), [1.0, 2.0]])
        array([1., 0., 0., 0., 1., 0., 0., 0., 1., 1., 2.])
        """
        parts = list(parts)
        if len(parts) != len(self.factors):
            raise DimensionError(
                f"Expected `parts` to have {len(self.factors)} entries, got {len(parts)}."
            )
        pairs = enumerate(zip(parts, self.factors, strict=True))
        return self._join([as_array(p, f"parts[{i}]", G.point_shape) for i, (p, G) in pairs])

    # -- core ----------------------------------------------------------------------------------
    def _identity(self):
        return self._join([G._identity() for G in self.factors])

    def _compose(self, a, b):
        pairs = zip(self._on_points(a), self._split(b), strict=True)
        return self._join([G._compose(x, y) for (G, x), y in pairs])

    def _inverse(self, g):
        return self._join([G._inverse(x) for G, x in self._on_points(g)])

    def _exp(self, xi):
        return self._join([G._exp(x) for G, x in self._on_algebra(xi)])

    def _log(self, g):
        return np.concatenate([G._log(x) for G, x in self._on_points(g)], axis=-1)

    def _hat(self, xi):
        return _block_diag([G._hat(x) for G, x in self._on_algebra(xi)])

    def _vee(self, X):
        o = self._mat_offsets
        return np.concatenate(
            [G._vee(X[..., o[i] : o[i + 1], o[i] : o[i + 1]]) for i, G in enumerate(self.factors)],
            axis=-1,
        )

    def _as_matrix(self, g):
        return _block_diag([G._as_matrix(x) for G, x in self._on_points(g)])

    def _Ad(self, g):
        return _block_diag([G._Ad(x) for G, x in self._on_points(g)])

    def _check_point(self, g, name, tol):
        for i, (G, x) in enumerate(self._on_points(g)):
            G._check_point(x, f"{name}[{i}]", tol)

    def _random(self, rng, shape):
        return self._join([G._random(rng, shape) for G in self.factors])

    def _left_jacobian(self, xi):
        return _block_diag([G._left_jacobian(x) for G, x in self._on_algebra(xi)])

    def _left_jacobian_inverse(self, xi):
        return _block_diag([G._left_jacobian_inverse(x) for G, x in self._on_algebra(xi)])

    def to_geomstats(self):
        """Return geomstats' ``ProductManifold`` of the factors' geomstats spaces.

        Its points are the same flat vectors (each factor flattened row-major and
        concatenated); ``project_from_product`` corresponds to :meth:`split`. geomstats has no
        group structure on products, so compose/exp/log are compared factor by factor.

        Returns
        -------
        geomstats.geometry.product_manifold.ProductManifold
            ``ProductManifold([G.to_geomstats() for G in factors])``.

        Examples
        --------
        >>> from geomech.lie import SO3, Euclidean, ProductGroup
        >>> G = ProductGroup(SO3, Euclidean(2))
        >>> bool(G.to_geomstats().belongs(G.random(rng=0)))
        True
        """
        from geomstats.geometry.product_manifold import ProductManifold

        return ProductManifold([G.to_geomstats() for G in self.factors])

    def __eq__(self, other) -> bool:
        return isinstance(other, ProductGroup) and other.factors == self.factors

    def __hash__(self) -> int:
        return hash(("ProductGroup", self.factors))

    def __repr__(self) -> str:
        return "ProductGroup(" + ", ".join(repr(G) for G in self.factors) + ")"
