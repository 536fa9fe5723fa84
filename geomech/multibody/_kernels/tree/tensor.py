r"""The tensor extension of spatial vector algebra for the compiled kernels: one page at a time.

Seed 002's tensors (Table I, :mod:`geomech.spatial`'s ``crm_tensor`` ... ``coriolis_tensor``)
are stacks of 6×6 pages, one per column of a spatial matrix; Alg. 1 (IDSVA SO) never forms
a tensor but works with one page at a time, i.e. with the 6×6 matrices below, built from
one motion vector ``s`` (a column :math:`\mathbf s_p`) or one force vector ``f``:

=====================================  =====================================================
``crf_left(s, M, out)``                :math:`\mathrel{+}= (\mathbf s\times^*)\mathbf M`
``crm_right(M, s, out)``               :math:`\mathrel{-}= \mathbf M(\mathbf s\times)`
``crbar_add(f, out, c)``               :math:`\mathrel{+}= c\,(\mathbf f\,\bar\times^*)`
``coriolis_factor(I, s, h, out)``      :math:`= (\mathbf s\times^*)\mathbf I - \mathbf I
                                       (\mathbf s\times) + (\mathbf I\mathbf s)\bar\times^*`
                                       (seed 002 eq. 6 **without** the ½, as Alg. 1 l.9, 15)
=====================================  =====================================================

plus 6-vector helpers (``matvec6_add``, ``matTvec6_add``, ``dot6_rows``; ``dot6`` is
:mod:`geomech.multibody._kernels.spatial`'s). Spatial vectors are angular first.
These are the numba twins of the numpy operators of :mod:`geomech.spatial` (the reference
they are tested against in ``tests/test_spatial_tensor.py``).

References
----------
Seed 002 §III (eqs. 3–6, 15), Table I; Alg. 1 lines 9, 15–24.
"""

from __future__ import annotations

from numba import njit

from geomech.multibody._kernels.jit import INLINE, JIT

__all__ = [
    "crf_left",
    "crm_right",
    "crbar_add",
    "coriolis_factor",
    "matvec6_add",
    "matTvec6_add",
    "dot6_rows",
]

# the 6-vector helpers of the innermost loops are inlined in numba's IR (faster kernels);
# the 6x6 builders, called once per DoF, are not (numba-IR inlining is slow to compile)


@njit(**INLINE)
def dot6_rows(X, x, Y, y):
    """``dot6(X[x], Y[y])`` of rows of two (n, 6) arrays, without making the row views (in
    the innermost loops of the third-order kernels a view costs more than the product).
    """
    return (
        X[x, 0] * Y[y, 0]
        + X[x, 1] * Y[y, 1]
        + X[x, 2] * Y[y, 2]
        + X[x, 3] * Y[y, 3]
        + X[x, 4] * Y[y, 4]
        + X[x, 5] * Y[y, 5]
    )


@njit(**INLINE)
def matvec6_add(M, x, c, out):
    """``out += c M x`` for a 6×6 ``M``."""
    for k in range(6):
        s = 0.0
        for m in range(6):
            s += M[k, m] * x[m]
        out[k] += c * s


@njit(**INLINE)
def matTvec6_add(M, x, c, out):
    """``out += c Mᵀ x`` for a 6×6 ``M``."""
    for k in range(6):
        s = 0.0
        for m in range(6):
            s += M[m, k] * x[m]
        out[k] += c * s


@njit(**JIT)
def crf_left(s, M, out):
    r"""``out += (s ×*) M`` for a 6×6 ``M``: column by column,
    :math:`\mathbf s\times^*\mathbf m_c`.
    """
    w0, w1, w2, u0, u1, u2 = s[0], s[1], s[2], s[3], s[4], s[5]
    for c in range(6):
        f0, f1, f2, f3, f4, f5 = M[0, c], M[1, c], M[2, c], M[3, c], M[4, c], M[5, c]
        out[0, c] += w1 * f2 - w2 * f1 + u1 * f5 - u2 * f4
        out[1, c] += w2 * f0 - w0 * f2 + u2 * f3 - u0 * f5
        out[2, c] += w0 * f1 - w1 * f0 + u0 * f4 - u1 * f3
        out[3, c] += w1 * f5 - w2 * f4
        out[4, c] += w2 * f3 - w0 * f5
        out[5, c] += w0 * f4 - w1 * f3


@njit(**JIT)
def crm_right(M, s, out):
    r"""``out -= M (s ×)`` for a 6×6 ``M``.

    Row by row: :math:`(\mathbf M(\mathbf s\times))^\top = -(\mathbf s\times^*)\mathbf M^\top`,
    so row ``r`` of :math:`\mathbf M(\mathbf s\times)` is :math:`-\mathbf s\times^*\mathbf m^r`
    (``m^r`` the row ``r``), and ``out -= M (s×)`` adds :math:`\mathbf s\times^*\mathbf m^r`.
    """
    w0, w1, w2, u0, u1, u2 = s[0], s[1], s[2], s[3], s[4], s[5]
    for r in range(6):
        f0, f1, f2, f3, f4, f5 = M[r, 0], M[r, 1], M[r, 2], M[r, 3], M[r, 4], M[r, 5]
        out[r, 0] += w1 * f2 - w2 * f1 + u1 * f5 - u2 * f4
        out[r, 1] += w2 * f0 - w0 * f2 + u2 * f3 - u0 * f5
        out[r, 2] += w0 * f1 - w1 * f0 + u0 * f4 - u1 * f3
        out[r, 3] += w1 * f5 - w2 * f4
        out[r, 4] += w2 * f3 - w0 * f5
        out[r, 5] += w0 * f4 - w1 * f3


@njit(**INLINE)
def _sub_skew(out, r, c, x0, x1, x2):
    """``out[r:r+3, c:c+3] -= [x×]``, the skew matrix of ``x = (x0, x1, x2)``."""
    out[r, c + 1] += x2
    out[r, c + 2] -= x1
    out[r + 1, c] -= x2
    out[r + 1, c + 2] += x0
    out[r + 2, c] += x1
    out[r + 2, c + 1] -= x0


@njit(**JIT)
def crbar_add(f, out, c):
    r"""``out += c (f ×̄*)``: :math:`(\mathbf f\bar\times^*) = -\begin{bmatrix}\mathbf n\times &
    \mathbf f\times\\ \mathbf f\times & 0\end{bmatrix}` for :math:`\mathbf f = [\mathbf n;
    \mathbf f]` (seed 002 §III).
    """
    n0, n1, n2, g0, g1, g2 = c * f[0], c * f[1], c * f[2], c * f[3], c * f[4], c * f[5]
    # -[n×] and -[f×] blocks (upper left, upper right, lower left)
    _sub_skew(out, 0, 0, n0, n1, n2)
    _sub_skew(out, 0, 3, g0, g1, g2)
    _sub_skew(out, 3, 0, g0, g1, g2)


@njit(**JIT)
def coriolis_factor(I, s, h, out):
    r"""``out = (s ×*) I − I (s ×) + (I s) ×̄*`` (seed 002 eq. 6 times 2; Alg. 1 l.9, 15, 16).

    ``h`` is a 6-vector work array (it receives ``I s``). ``out`` may not alias ``I``.
    """
    for k in range(6):
        for m in range(6):
            out[k, m] = 0.0
    crf_left(s, I, out)
    crm_right(I, s, out)
    for k in range(6):
        t = 0.0
        for m in range(6):
            t += I[k, m] * s[m]
        h[k] = t
    crbar_add(h, out, 1.0)
