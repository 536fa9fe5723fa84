"""How each configuration group sits in SE(3), and the paper's coordinate order.

Seed 003 works with subgroups of SE(3): a body on a group ``G`` of dimension ``m`` has its
twist restricted to ``V^B = H v`` by a selection matrix ``H`` (Def. 4.2, eq. 58), and its
inertia is ``M = Hᵀ I_b H`` (eq. 60). This module gives ``H`` and the embedding of group
elements as 4×4 poses, in geomech's angular-first order, and converts between geomech's order
and the paper's linear-first order ``[u, v, w, p, q, r]``.

================  ================================  ==========================
group             geomech coordinates               seed 003 coordinates
================  ================================  ==========================
SO(3)             ``[ωx, ωy, ωz]``                  ``[p, q, r]``
SE(3)             ``[ωx, ωy, ωz, vx, vy, vz]``      ``[u, v, w, p, q, r]``
SE(2)             ``[ωz, vx, vy]``                  ``[u, v, r]``
Schönflies X(z)   ``[ωz, vx, vy, vz]``              ``[u, v, w, r]``
R^n (n ≤ 3)       ``[vx, ...]``                     ``[u, ...]``
================  ================================  ==========================

Examples
--------
>>> from geomech.lie import SE2
>>> from geomech.rigidbody.embedding import twist_from_paper
>>> twist_from_paper(SE2, [1.0, 0.5, 0.3])  # paper [u, v, r] -> geomech [ω, vx, vy]
array([0.3, 1. , 0.5])
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array
from geomech.errors import ParameterError
from geomech.lie import ProductGroup
from geomech.lie.base import as_lie_group
from geomech.lie.euclidean import Euclidean
from geomech.lie.schoenflies import SchoenfliesGroup
from geomech.lie.se2 import SE2Group
from geomech.lie.se3 import SE3Group
from geomech.lie.so3 import SO3Group

__all__ = [
    "paper_permutation",
    "twist_from_paper",
    "twist_to_paper",
    "inertia_from_paper",
    "inertia_to_paper",
    "selection_matrix",
    "embed_in_se3",
]


def paper_permutation(group) -> np.ndarray:
    """Index array ``perm`` with ``x_geomech = x_paper[..., perm]``.

    Seed 003 orders coordinates linear first (``[u, v, w, p, q, r]``); geomech orders them
    angular first (:ref:`conventions-spatial-vectors`). The permutation is the identity for SO(3)
    and ``R^n``, and is assembled factor by factor for a :class:`~geomech.lie.ProductGroup`.

    Parameters
    ----------
    group : LieGroup
        SO3, SE3, SE2, Schoenflies, ``Euclidean(n)`` or a product of these.

    Returns
    -------
    ndarray of int, shape (dim,)
        The permutation (``argsort(perm)`` is the inverse).

    Raises
    ------
    TypeError
        If ``group`` is not a :class:`~geomech.lie.LieGroup`.
    GeomechError
        For a group whose paper order is not defined (not treated in seed 003).

    References
    ----------
    seed 003 §1.1 (``V = [u, v, w, p, q, r]``), Tables 1-2.

    Examples
    --------
    >>> from geomech.lie import SE3
    >>> from geomech.rigidbody.embedding import paper_permutation
    >>> paper_permutation(SE3)
    array([3, 4, 5, 0, 1, 2])
    """
    group = as_lie_group(group)
    if isinstance(group, (SO3Group, Euclidean)):
        return np.arange(group.dim)
    if isinstance(group, SE3Group):
        return np.array([3, 4, 5, 0, 1, 2])
    if isinstance(group, SE2Group):
        return np.array([2, 0, 1])
    if isinstance(group, SchoenfliesGroup):
        return np.array([3, 0, 1, 2])
    if isinstance(group, ProductGroup):
        parts, offset = [], 0
        for G in group.factors:
            parts.append(paper_permutation(G) + offset)
            offset += G.dim
        return np.concatenate(parts)
    raise ParameterError(f"Seed 003 defines no coordinate order for the group {group.name}.")


def twist_from_paper(group, x) -> np.ndarray:
    """Convert a velocity, acceleration or wrench from seed 003's order to geomech's.

    Parameters
    ----------
    group : LieGroup
        The configuration group (see :func:`paper_permutation`).
    x : array_like, shape (..., dim)
        Coordinates in the paper's linear-first order (``[u, v, w, p, q, r]`` on SE(3)).

    Returns
    -------
    ndarray, shape (..., dim)
        The same vector in geomech's angular-first order.

    Raises
    ------
    DimensionError, NonFiniteError
        If ``x`` does not end in ``dim`` or has non-finite entries.

    Examples
    --------
    >>> from geomech.lie import SE3
    >>> from geomech.rigidbody.embedding import twist_from_paper
    >>> twist_from_paper(SE3, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    array([4., 5., 6., 1., 2., 3.])
    """
    perm = paper_permutation(group)
    return as_array(x, "x", (group.dim,))[..., perm]


def twist_to_paper(group, x) -> np.ndarray:
    """Inverse of :func:`twist_from_paper`: geomech's order to seed 003's.

    Parameters
    ----------
    group : LieGroup
        The configuration group.
    x : array_like, shape (..., dim)
        Coordinates in geomech's angular-first order.

    Returns
    -------
    ndarray, shape (..., dim)
        The same vector in the paper's linear-first order.

    Raises
    ------
    DimensionError, NonFiniteError
        If ``x`` does not end in ``dim`` or has non-finite entries.

    Examples
    --------
    >>> from geomech.lie import Schoenflies
    >>> from geomech.rigidbody.embedding import twist_to_paper
    >>> twist_to_paper(Schoenflies, [0.3, 1.0, 0.5, -0.4])  # -> [u, v, w, r]
    array([ 1. ,  0.5, -0.4,  0.3])
    """
    perm = paper_permutation(group)
    return as_array(x, "x", (group.dim,))[..., np.argsort(perm)]


def inertia_from_paper(group, M) -> np.ndarray:
    """Convert an inertia matrix from seed 003's order to geomech's (``P M Pᵀ``).

    Parameters
    ----------
    group : LieGroup
        The configuration group.
    M : array_like, shape (..., dim, dim)
        Inertia in the paper's order (e.g. ``diag(m, m, m, I_x, I_y, I_z)`` on SE(3)).

    Returns
    -------
    ndarray, shape (..., dim, dim)
        ``M[perm][:, perm]``, the inertia in geomech's angular-first order.

    Raises
    ------
    DimensionError, NonFiniteError
        If ``M`` does not end in ``(dim, dim)`` or has non-finite entries.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE3
    >>> from geomech.rigidbody.embedding import inertia_from_paper
    >>> np.diag(inertia_from_paper(SE3, np.diag([2.0, 2.0, 2.0, 1.0, 2.0, 3.0])))
    array([1., 2., 3., 2., 2., 2.])
    """
    perm = paper_permutation(group)
    M = as_array(M, "M", (group.dim, group.dim))
    return M[..., perm, :][..., :, perm]


def inertia_to_paper(group, M) -> np.ndarray:
    """Inverse of :func:`inertia_from_paper`.

    Parameters
    ----------
    group : LieGroup
        The configuration group.
    M : array_like, shape (..., dim, dim)
        Inertia in geomech's order.

    Returns
    -------
    ndarray, shape (..., dim, dim)
        The inertia in the paper's linear-first order.

    Raises
    ------
    DimensionError, NonFiniteError
        If ``M`` does not end in ``(dim, dim)`` or has non-finite entries.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE2
    >>> from geomech.rigidbody.embedding import inertia_to_paper
    >>> np.diag(inertia_to_paper(SE2, np.diag([0.7, 3.0, 3.0])))
    array([3. , 3. , 0.7])
    """
    inv = np.argsort(paper_permutation(group))
    M = as_array(M, "M", (group.dim, group.dim))
    return M[..., inv, :][..., :, inv]


def _columns(group) -> list[int]:
    """Rows of the 6-vector ``[ω; v]`` selected by ``H`` (one per Lie-algebra coordinate)."""
    if isinstance(group, SO3Group):
        return [0, 1, 2]
    if isinstance(group, SE3Group):
        return [0, 1, 2, 3, 4, 5]
    if isinstance(group, SE2Group):
        return [2, 3, 4]
    if isinstance(group, SchoenfliesGroup):
        return [2, 3, 4, 5]
    if isinstance(group, Euclidean) and group.n <= 3:
        return [3 + i for i in range(group.n)]
    raise ParameterError(
        f"The group {group.name} is not one of seed 003's subgroups of SE(3) "
        "(SO(3), SE(3), SE(2), Schoenflies, R^n with n <= 3)."
    )


def selection_matrix(group) -> np.ndarray:
    r"""Selection matrix ``H`` with ``V^B = H v`` (Def. 4.2), in geomech's ``[ω; v]`` order.

    The columns of ``H`` are unit vectors, so ``Hᵀ`` is its left inverse and the body inertia
    is ``M = Hᵀ I_b H`` (eq. 60). SE(2) is the xy-plane with rotations about z; ``R^n``
    (``n ≤ 3``) translates along the first ``n`` axes.

    .. math:: V^B_{0b} = H v, \qquad M = H^\top I_b H

    Parameters
    ----------
    group : LieGroup
        SO3, SE3, SE2, Schoenflies or ``Euclidean(n)`` with ``n ≤ 3``.

    Returns
    -------
    ndarray, shape (6, dim)
        ``H`` (angular-first rows).

    Raises
    ------
    TypeError
        If ``group`` is not a :class:`~geomech.lie.LieGroup`.
    GeomechError
        If ``group`` is not one of these subgroups of SE(3) (e.g. a product group).

    References
    ----------
    seed 003 Def. 4.2, eqs. (58), (60), (62), (77), (88).

    Examples
    --------
    >>> from geomech.lie import SE2
    >>> from geomech.rigidbody.embedding import selection_matrix
    >>> selection_matrix(SE2)
    array([[0., 0., 0.],
           [0., 0., 0.],
           [1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.],
           [0., 0., 0.]])
    """
    group = as_lie_group(group)
    cols = _columns(group)
    H = np.zeros((6, group.dim))
    H[cols, np.arange(group.dim)] = 1.0
    return H


def _embed(group, g: np.ndarray) -> np.ndarray:
    """Unvalidated :func:`embed_in_se3` (``g`` already of shape ``(..., *point_shape)``)."""
    lead = g.shape[: g.ndim - len(group.point_shape)]
    T = np.zeros(lead + (4, 4))
    T[..., 3, 3] = 1.0
    if isinstance(group, (SE3Group, SchoenfliesGroup)):
        return np.array(g, dtype=float, copy=True)
    if isinstance(group, SO3Group):
        T[..., :3, :3] = g
    elif isinstance(group, SE2Group):
        T[..., :2, :2] = g[..., :2, :2]
        T[..., 2, 2] = 1.0
        T[..., :2, 3] = g[..., :2, 2]
    else:  # Euclidean(n), n <= 3 (checked by _columns)
        T[..., :3, :3] = np.eye(3)
        T[..., : group.n, 3] = g
    return T


def embed_in_se3(group, g) -> np.ndarray:
    """The pose ``g_0b`` in SE(3) (4×4) of a group element of a subgroup of SE(3).

    The embedding is compatible with :func:`selection_matrix`: the body twist of the embedded
    curve is ``H v`` when ``v`` is the group's body velocity.

    Parameters
    ----------
    group : LieGroup
        SO3, SE3, SE2, Schoenflies or ``Euclidean(n)`` with ``n ≤ 3``.
    g : array_like, shape (..., *group.point_shape)
        Group element(s) (shape only is checked).

    Returns
    -------
    ndarray, shape (..., 4, 4)
        Homogeneous poses ``[[R, p], [0, 1]]``.

    Raises
    ------
    DimensionError, NonFiniteError
        If ``g`` has the wrong trailing shape or non-finite entries.
    GeomechError
        If ``group`` is not one of these subgroups of SE(3).

    References
    ----------
    seed 003 Def. 4.1 (``g_ij = g_ij(Q)``).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE2
    >>> from geomech.rigidbody.embedding import embed_in_se3
    >>> embed_in_se3(SE2, [[1.0, 0.0, 1.0], [0.0, 1.0, 2.0], [0.0, 0.0, 1.0]])
    array([[1., 0., 0., 1.],
           [0., 1., 0., 2.],
           [0., 0., 1., 0.],
           [0., 0., 0., 1.]])
    """
    group = as_lie_group(group)
    _columns(group)
    return _embed(group, as_array(g, "g", group.point_shape))
