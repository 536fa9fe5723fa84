r"""Layouts of the third-order outputs (second-order derivatives, Christoffel symbols).

A tensor :math:`T_{xyz}` over the speeds of a kinematic tree (``nv`` in every index) is
written by its kernel into one flat array per state through :func:`slot`, in one of two
layouts, each given as ``(loc, base, m, a, size)``:

- :func:`dense_layout` — C order, ``nv³`` entries;
- :func:`sparse_layout` — one "cube" per body: the entries whose three DoFs lie on one
  root-to-leaf path (the only ones that can be nonzero for the second-order partials of
  inverse dynamics, seed 002 §4.1, and for the Christoffel symbols, seed 001 eq. 36),
  stored with the deepest of their bodies; :math:`O(Nd^2)` entries for a tree of depth ``d``.

A kernel writing the triple ``(x, y, z)`` that involves body ``i`` (and otherwise only its
ancestors) writes ``T[slot(base[i], m[i], a[i], loc[x], loc[y], loc[z])]`` in either layout.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from geomech.multibody._kernels.jit import INLINE, JIT

__all__ = [
    "dense_layout",
    "sparse_layout",
    "slot",
    "SAFE",
    "largest",
    "contract_batch",
    "bilinear_batch",
    "dense_batch",
    "coordinates",
]

#: a bound on the 6-vectors whose dot products are the entries of the outputs: below it every
#: entry (a sum of a few dot products) is finite, and the kernels need not read their output
#: again to check it (:func:`largest`)
SAFE = 1e150


def dense_layout(parent, iv):
    """``(loc, base, m, a, size)`` of the dense layout: entry ``[x, y, z]`` at ``x nv² + y nv + z``.

    One cube (``m = nv``, ``a = 0``, ``base = 0``) shared by every body, so that
    :func:`slot` gives the C-order position.

    Examples
    --------
    >>> from geomech.multibody._kernels.tree.layout import dense_layout, slot
    >>> loc, base, m, a, size = dense_layout([-1, 0], [0, 1, 2])
    >>> size, slot(base[1], m[1], a[1], 1, 0, 1)
    (8, 5)
    """
    N, nv = len(parent), int(iv[-1])
    return (
        np.arange(nv, dtype=np.int64),
        np.zeros(N, np.int64),
        np.full(N, nv, np.int64),
        np.zeros(N, np.int64),
        nv**3,
    )


def sparse_layout(parent, iv):
    r"""``(loc, base, m, a, size)`` of the block-sparse layout: one cube per body.

    Every nonzero entry ``[x, y, z]`` of a second-order tensor has its three DoFs on one
    root-to-leaf path (seed 002 §4.1); it is stored with the deepest of their bodies, ``i``.
    With the DoFs of the path root → ``i`` numbered ``0 .. m_i − 1`` (``loc[x]``, the same
    for every descendant), of which the first ``a_i`` belong to strict ancestors, body
    ``i`` stores the :math:`m_i^3 - a_i^3` entries with at least one local index
    :math:`\ge a_i`, in three C-ordered slabs: ``x ≥ a`` (:math:`n m^2`), then ``x < a ≤ y``
    (:math:`a n m`), then ``x, y < a ≤ z`` (:math:`a^2 n`), from ``base[i]`` on.

    Examples
    --------
    Two 1-DoF children of a 1-DoF root: cubes of 1, 2³ − 1 and 2³ − 1 entries.

    >>> from geomech.multibody._kernels.tree.layout import sparse_layout
    >>> loc, base, m, a, size = sparse_layout([-1, 0, 0], [0, 1, 2, 3])
    >>> loc.tolist(), base.tolist(), size
    ([0, 1, 1], [0, 1, 8], 15)
    """
    parent = np.asarray(parent)
    N = len(parent)
    nvs = np.diff(np.asarray(iv))
    pre = np.zeros(N, np.int64)
    for i in range(N):
        if parent[i] >= 0:
            pre[i] = pre[parent[i]] + nvs[parent[i]]
    m = pre + nvs
    sizes = m**3 - pre**3
    base = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    loc = np.concatenate([pre[i] + np.arange(nvs[i]) for i in range(N)] + [np.zeros(0)])
    return loc.astype(np.int64), base, m.astype(np.int64), pre, int(sizes.sum())


@njit(**INLINE)
def slot(base, m, a, x, y, z):
    """Flat position of the local entry ``(x, y, z)`` in the cube ``(base, m, a)`` (see above)."""
    n = m - a
    if x >= a:
        return base + ((x - a) * m + y) * m + z
    if y >= a:
        return base + n * m * m + (x * n + (y - a)) * m + z
    return base + n * m * m + a * n * m + (x * a + y) * n + (z - a)


@njit(**JIT)
def largest(x, big):
    """``max(big, max |x|)`` over the entries of ``x`` (any shape), NaN once one is NaN.

    A kernel whose output entries are sums of a few dot products of 6-vectors tracks the
    largest entry of those vectors: while it is at most ``SAFE`` (not NaN, not inf),
    every entry is finite, and the output (:math:`O(n_v^3)` numbers on a chain) is not read
    again to check it.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody._kernels.tree.layout import largest
    >>> float(largest(np.array([[1.0, -3.0]]), 2.0)), float(largest(np.array([np.nan]), 0.0))
    (3.0, nan)
    """
    y = x if x.ndim == 1 else x.ravel()  # (C-contiguous x: a view)
    for k in range(y.shape[0]):
        a = abs(y[k])
        if not a <= big:  # (true for NaN: the sum below keeps it)
            big = a if a > big else a + big
    return big


@njit(**JIT)
def _contract_slab(V, pos, P, x0, x1, y0, y1, z0, z1, w, axis, out):
    """``out`` += the C-ordered slab ``P[x0:x1] × P[y0:y1] × P[z0:z1]`` of ``V`` (from
    ``pos``) contracted over index ``axis`` with ``w``; the position after the slab.
    (Plain indexing only: a row view per iteration costs more than the slab's arithmetic
    where its last side is a single DoF.)
    """
    for x in range(x0, x1):
        px = P[x]
        for y in range(y0, y1):
            py = P[y]
            if axis == 2:
                t = 0.0
                for z in range(z0, z1):
                    t += V[pos] * w[P[z]]
                    pos += 1
                out[px, py] += t
            elif axis == 1:
                c = w[py]
                for z in range(z0, z1):
                    out[px, P[z]] += V[pos] * c
                    pos += 1
            else:
                c = w[px]
                for z in range(z0, z1):
                    out[py, P[z]] += V[pos] * c
                    pos += 1
    return pos


@njit(**JIT)
def contract_batch(values, w, axis, pdofs, poff, acube, out):
    r"""``out[b]`` (nv, nv), zeroed, += the block-sparse ``values[b]`` (layout of
    :func:`sparse_layout`) contracted over index ``axis`` with ``w[b]``, in :math:`O(L)`.

    ``values`` (B or 1, L) and ``w`` (B or 1, nv) are shared by the batch when they have one
    row; ``pdofs[poff[i]:poff[i + 1]]`` are the DoFs of the path root → ``i``, root first,
    and ``acube[i]`` the number of them on strict ancestors (the three slabs of ``i``).
    """
    for b in range(out.shape[0]):
        V = values[b] if values.shape[0] > 1 else values[0]
        u = w[b] if w.shape[0] > 1 else w[0]
        pos = 0
        for i in range(poff.shape[0] - 1):
            P = pdofs[poff[i] : poff[i + 1]]
            m, a = P.shape[0], acube[i]
            pos = _contract_slab(V, pos, P, a, m, 0, m, 0, m, u, axis, out[b])
            pos = _contract_slab(V, pos, P, 0, a, a, m, 0, m, u, axis, out[b])
            pos = _contract_slab(V, pos, P, 0, a, 0, a, a, m, u, axis, out[b])


@njit(**JIT)
def _bilinear_slab(V, pos, P, x0, x1, y0, y1, z0, z1, w1, w2, a1, a2, out):
    """``out[idx[rest]]`` += ``V`` · ``w1[idx[a1]]`` · ``w2[idx[a2]]`` over one slab (as
    ``_contract_slab``), ``rest`` the third index; the position after the slab.
    """
    rest = 3 - a1 - a2
    # the vector of each contracted index (the one of ``rest`` unused)
    wx = w1 if a1 == 0 else w2
    wy = w1 if a1 == 1 else w2
    wz = w1 if a1 == 2 else w2
    for x in range(x0, x1):
        px = P[x]
        for y in range(y0, y1):
            py = P[y]
            if rest == 2:
                c = wx[px] * wy[py]
                for z in range(z0, z1):
                    out[P[z]] += V[pos] * c
                    pos += 1
            else:
                t = 0.0
                for z in range(z0, z1):
                    t += V[pos] * wz[P[z]]
                    pos += 1
                if rest == 0:
                    out[px] += t * wy[py]
                else:
                    out[py] += t * wx[px]
    return pos


@njit(**JIT)
def bilinear_batch(values, w1, w2, a1, a2, pdofs, poff, acube, out):
    r"""``out[b]`` (nv,), zeroed, += the block-sparse ``values[b]`` contracted over indices
    ``a1``, ``a2`` with ``w1[b]``, ``w2[b]``, in :math:`O(L)` (arguments as
    :func:`contract_batch`).
    """
    for b in range(out.shape[0]):
        V = values[b] if values.shape[0] > 1 else values[0]
        u1 = w1[b] if w1.shape[0] > 1 else w1[0]
        u2 = w2[b] if w2.shape[0] > 1 else w2[0]
        pos = 0
        for i in range(poff.shape[0] - 1):
            P = pdofs[poff[i] : poff[i + 1]]
            m, a = P.shape[0], acube[i]
            pos = _bilinear_slab(V, pos, P, a, m, 0, m, 0, m, u1, u2, a1, a2, out[b])
            pos = _bilinear_slab(V, pos, P, 0, a, a, m, 0, m, u1, u2, a1, a2, out[b])
            pos = _bilinear_slab(V, pos, P, 0, a, 0, a, a, m, u1, u2, a1, a2, out[b])


@njit(**JIT)
def dense_batch(values, pdofs, poff, acube, out):
    """``out[b]`` (nv, nv, nv), zeroed: the dense tensor of the block-sparse ``values[b]``
    (arguments as :func:`contract_batch`).
    """
    for b in range(out.shape[0]):
        V, o = values[b], out[b]
        pos = 0
        for i in range(poff.shape[0] - 1):
            P = pdofs[poff[i] : poff[i + 1]]
            m, a = P.shape[0], acube[i]
            for x0, x1, y0, y1, z0, z1 in (
                (a, m, 0, m, 0, m),
                (0, a, a, m, 0, m),
                (0, a, 0, a, a, m),
            ):
                for x in range(x0, x1):
                    for y in range(y0, y1):
                        row = o[P[x], P[y]]
                        for z in range(z0, z1):
                            row[P[z]] = V[pos]
                            pos += 1


@njit(**JIT)
def coordinates(pdofs, poff, acube, out):
    """``out`` (3, L): the ``(x, y, z)`` coordinates of the entries of the block-sparse
    layout, in their order (arguments as :func:`contract_batch`).
    """
    pos = 0
    for i in range(poff.shape[0] - 1):
        P = pdofs[poff[i] : poff[i + 1]]
        m, a = P.shape[0], acube[i]
        for x0, x1, y0, y1, z0, z1 in ((a, m, 0, m, 0, m), (0, a, a, m, 0, m), (0, a, 0, a, a, m)):
            for x in range(x0, x1):
                for y in range(y0, y1):
                    for z in range(z0, z1):
                        out[0, pos] = P[x]
                        out[1, pos] = P[y]
                        out[2, pos] = P[z]
                        pos += 1
