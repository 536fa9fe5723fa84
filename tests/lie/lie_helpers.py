"""Groups and samplers shared by the geomech.lie tests (seeded randomness only)."""

from __future__ import annotations

import numpy as np

from geomech.lie import SE2, SE3, SO3, Euclidean, LieGroup, ProductGroup, Schoenflies

#: Every group the identities are checked on (ids are the reprs).
GROUPS = [SO3, SE3, SE2, Schoenflies, Euclidean(3), ProductGroup(SO3, Euclidean(2))]
GROUP_IDS = [repr(G) for G in GROUPS]


def rotation_blocks(G: LieGroup) -> list[np.ndarray]:
    """Index arrays of the rotational coordinates of ``xi``, one per rotation factor."""
    if G is SO3 or G is SE3:
        return [np.arange(3)]
    if G is SE2 or G is Schoenflies:
        return [np.arange(1)]
    if isinstance(G, ProductGroup):
        blocks, offset = [], 0
        for F in G.factors:
            blocks += [b + offset for b in rotation_blocks(F)]
            offset += F.dim
        return blocks
    return []


def has_rotation(G: LieGroup) -> bool:
    return bool(rotation_blocks(G))


def algebra_with_angle(G: LieGroup, rng, angle: float, size=(), scale: float = 1.0):
    """Random ``xi`` of shape ``size + (dim,)`` whose rotation blocks have norm ``angle``.

    Translational coordinates are standard normal times ``scale``.
    """
    size = (size,) if isinstance(size, int) else tuple(size)
    xi = scale * rng.standard_normal(size + (G.dim,))
    for b in rotation_blocks(G):
        u = rng.standard_normal(size + (len(b),))
        u /= np.linalg.norm(u, axis=-1, keepdims=True)
        xi[..., b] = angle * u
    return xi


def random_points(G: LieGroup, rng, size=None, near_identity: bool = False) -> np.ndarray:
    """Uniform elements, or ``exp`` of tiny coordinates (exercises the Taylor branches)."""
    if near_identity:
        shape = () if size is None else (size,) if isinstance(size, int) else tuple(size)
        return G.exp(1e-7 * rng.standard_normal(shape + (G.dim,)))
    return G.random(rng, size=size)


def rotation_angles(G: LieGroup, xi: np.ndarray) -> list[np.ndarray]:
    """Rotation angle of each rotation block of ``xi``."""
    return [np.linalg.norm(xi[..., b], axis=-1) for b in rotation_blocks(G)]
