r"""Spatial vector algebra for the compiled kernels: 6-vectors and transforms in locals.

The kernels keep a transform :math:`{}^i\mathbf X_{p(i)}` as the pair ``(E, r)`` of
Featherstone's Plücker form (a 3×3 rotation and a 3-vector, 12 numbers instead of 36):

.. math:: \mathbf X = \begin{bmatrix}\mathbf E & 0\\ -\mathbf E\,\mathbf r\times &
          \mathbf E\end{bmatrix},\qquad
          \mathbf X\begin{bmatrix}\boldsymbol\omega\\ \mathbf v\end{bmatrix} =
          \begin{bmatrix}\mathbf E\boldsymbol\omega\\ \mathbf E(\mathbf v - \mathbf r\times
          \boldsymbol\omega)\end{bmatrix},\qquad
          \mathbf X^\top\begin{bmatrix}\mathbf n\\ \mathbf f\end{bmatrix} =
          \begin{bmatrix}\mathbf E^\top\mathbf n + \mathbf r\times\mathbf E^\top\mathbf f\\
          \mathbf E^\top\mathbf f\end{bmatrix}

(``E`` = Rᵀ and ``r`` = p for the pose ``[[R, p], [0, 1]]`` of frame i in frame p(i)). Spatial
vectors are angular first, ``[ω; v]`` and ``[n; f]`` (:ref:`conventions-spatial-vectors`). Every
function writes into an ``out`` argument (a row of a work array) so that nothing is allocated on the
hot path; ``out`` may not alias an input unless stated.

These are the numba twins of the array operations of :mod:`geomech.spatial`, which stays
the reference they are tested against (``tests/multibody/test_kernel_spatial.py``).

References
----------
R. Featherstone, *Rigid Body Dynamics Algorithms*, 2008, §2.8–2.13 and Table A.1
(efficient Plücker arithmetic); seed 001 §1.3.
"""

from __future__ import annotations

from numba import njit

from geomech.multibody._kernels.jit import INLINE

__all__ = [
    "cross_motion",
    "cross_force",
    "transform_motion",
    "transform_force_transpose",
    "force_to_parent",
    "transform_motion_transpose",
    "congruence",
    "congruence_sym",
    "inertia_times",
    "body_force",
    "inertia_congruence",
    "matvec6",
    "matTvec6",
    "compose_pose",
    "dot6",
    "compose_transforms",
    "inertia_params",
    "inertia_params_transform",
    "inertia_params_times",
    "inertia_params_rate",
    "inertia_params_matrix",
    "trace_about",
    "sym_matvec6",
]


@njit(**INLINE)
def cross_motion(v, m, out):
    r""":math:`(\mathbf v\times)\mathbf m = [\boldsymbol\omega\times\mathbf m_\omega;\;
    \boldsymbol\omega\times\mathbf m_v + \mathbf v_v\times\mathbf m_\omega]` (added to ``out``).
    """
    w0, w1, w2, u0, u1, u2 = v[0], v[1], v[2], v[3], v[4], v[5]
    out[0] += w1 * m[2] - w2 * m[1]
    out[1] += w2 * m[0] - w0 * m[2]
    out[2] += w0 * m[1] - w1 * m[0]
    out[3] += w1 * m[5] - w2 * m[4] + u1 * m[2] - u2 * m[1]
    out[4] += w2 * m[3] - w0 * m[5] + u2 * m[0] - u0 * m[2]
    out[5] += w0 * m[4] - w1 * m[3] + u0 * m[1] - u1 * m[0]


@njit(**INLINE)
def cross_force(v, f, out):
    r""":math:`(\mathbf v\times^*)\mathbf f = [\boldsymbol\omega\times\mathbf n +
    \mathbf v_v\times\mathbf f;\; \boldsymbol\omega\times\mathbf f]` (added to ``out``).
    """
    w0, w1, w2, u0, u1, u2 = v[0], v[1], v[2], v[3], v[4], v[5]
    out[0] += w1 * f[2] - w2 * f[1] + u1 * f[5] - u2 * f[4]
    out[1] += w2 * f[0] - w0 * f[2] + u2 * f[3] - u0 * f[5]
    out[2] += w0 * f[1] - w1 * f[0] + u0 * f[4] - u1 * f[3]
    out[3] += w1 * f[5] - w2 * f[4]
    out[4] += w2 * f[3] - w0 * f[5]
    out[5] += w0 * f[4] - w1 * f[3]


@njit(**INLINE)
def transform_motion(E, r, m, out):
    r"""``out = X m``: :math:`[\mathbf E\boldsymbol\omega;\ \mathbf E(\mathbf v - \mathbf r
    \times\boldsymbol\omega)]` (``out`` may not alias ``m``).
    """
    t0 = m[3] - (r[1] * m[2] - r[2] * m[1])
    t1 = m[4] - (r[2] * m[0] - r[0] * m[2])
    t2 = m[5] - (r[0] * m[1] - r[1] * m[0])
    for k in range(3):
        out[k] = E[k, 0] * m[0] + E[k, 1] * m[1] + E[k, 2] * m[2]
        out[k + 3] = E[k, 0] * t0 + E[k, 1] * t1 + E[k, 2] * t2


@njit(**INLINE)
def transform_motion_transpose(E, r, m, out):
    r"""``out = X⁻¹ m`` for a motion vector in frame i: :math:`[\mathbf E^\top\boldsymbol\omega;\
    \mathbf E^\top\mathbf v + \mathbf r\times\mathbf E^\top\boldsymbol\omega]`.
    """
    # every input is read before ``out`` is written: the compiler need not reload them
    m0, m1, m2, m3, m4, m5 = m[0], m[1], m[2], m[3], m[4], m[5]
    w0 = E[0, 0] * m0 + E[1, 0] * m1 + E[2, 0] * m2
    w1 = E[0, 1] * m0 + E[1, 1] * m1 + E[2, 1] * m2
    w2 = E[0, 2] * m0 + E[1, 2] * m1 + E[2, 2] * m2
    u0 = E[0, 0] * m3 + E[1, 0] * m4 + E[2, 0] * m5
    u1 = E[0, 1] * m3 + E[1, 1] * m4 + E[2, 1] * m5
    u2 = E[0, 2] * m3 + E[1, 2] * m4 + E[2, 2] * m5
    r0, r1, r2 = r[0], r[1], r[2]
    out[0], out[1], out[2] = w0, w1, w2
    out[3] = u0 + r1 * w2 - r2 * w1
    out[4] = u1 + r2 * w0 - r0 * w2
    out[5] = u2 + r0 * w1 - r1 * w0


@njit(**INLINE)
def force_to_parent(E, r, f, out, accumulate):
    r"""``out (+)= Xᵀ f`` (a wrench of frame i moved to frame p(i)):
    :math:`[\mathbf E^\top\mathbf n + \mathbf r\times\mathbf E^\top\mathbf f;\ \mathbf E^\top\mathbf
    f]`.

    Adds to ``out`` when ``accumulate``, else overwrites it (``out`` may not alias ``f``).
    """
    n0 = E[0, 0] * f[0] + E[1, 0] * f[1] + E[2, 0] * f[2]
    n1 = E[0, 1] * f[0] + E[1, 1] * f[1] + E[2, 1] * f[2]
    n2 = E[0, 2] * f[0] + E[1, 2] * f[1] + E[2, 2] * f[2]
    g0 = E[0, 0] * f[3] + E[1, 0] * f[4] + E[2, 0] * f[5]
    g1 = E[0, 1] * f[3] + E[1, 1] * f[4] + E[2, 1] * f[5]
    g2 = E[0, 2] * f[3] + E[1, 2] * f[4] + E[2, 2] * f[5]
    n0 += r[1] * g2 - r[2] * g1
    n1 += r[2] * g0 - r[0] * g2
    n2 += r[0] * g1 - r[1] * g0
    if accumulate:
        out[0] += n0
        out[1] += n1
        out[2] += n2
        out[3] += g0
        out[4] += g1
        out[5] += g2
    else:
        out[0], out[1], out[2], out[3], out[4], out[5] = n0, n1, n2, g0, g1, g2


@njit(**INLINE)
def transform_force_transpose(E, r, f, out):
    """``out += Xᵀ f`` (:func:`force_to_parent` accumulating)."""
    force_to_parent(E, r, f, out, True)


@njit(**INLINE)
def matvec6(M, x, out):
    """``out = M x`` for a 6×6 ``M``."""
    x0, x1, x2, x3, x4, x5 = x[0], x[1], x[2], x[3], x[4], x[5]  # in registers across the stores
    for k in range(6):
        out[k] = (
            M[k, 0] * x0 + M[k, 1] * x1 + M[k, 2] * x2 + M[k, 3] * x3 + M[k, 4] * x4 + M[k, 5] * x5
        )


@njit(**INLINE)
def matTvec6(M, x, out):
    """``out = Mᵀ x`` for a 6×6 ``M``."""
    for k in range(6):
        s = 0.0
        for l in range(6):  # noqa: E741
            s += M[l, k] * x[l]
        out[k] = s


@njit(**INLINE)
def inertia_times(I, v, out):  # noqa: E741
    r"""``out = I v`` for a matrix of spatial-inertia form (body and composite inertias).

    Reads :math:`m`, :math:`\mathbf h` and :math:`\bar{\mathbf I}` from the entries of
    :math:`\mathbf I = [[\bar{\mathbf I}, \mathbf h\times], [(\mathbf h\times)^\top, m\mathbf 1]]`:
    :math:`\mathbf I\mathbf v = [\bar{\mathbf I}\boldsymbol\omega + \mathbf h\times
    \mathbf v_v;\ m\mathbf v_v - \mathbf h\times\boldsymbol\omega]` (Featherstone 2008,
    eq. 2.63). Not for articulated inertias (general symmetric matrices): use :func:`matvec6`.
    """
    m, h0, h1, h2 = I[5, 5], I[2, 4], I[0, 5], I[1, 3]
    w0, w1, w2, u0, u1, u2 = v[0], v[1], v[2], v[3], v[4], v[5]
    out[0] = I[0, 0] * w0 + I[0, 1] * w1 + I[0, 2] * w2 + (h1 * u2 - h2 * u1)
    out[1] = I[1, 0] * w0 + I[1, 1] * w1 + I[1, 2] * w2 + (h2 * u0 - h0 * u2)
    out[2] = I[2, 0] * w0 + I[2, 1] * w1 + I[2, 2] * w2 + (h0 * u1 - h1 * u0)
    out[3] = m * u0 - (h1 * w2 - h2 * w1)
    out[4] = m * u1 - (h2 * w0 - h0 * w2)
    out[5] = m * u2 - (h0 * w1 - h1 * w0)


@njit(**INLINE)
def body_force(I, v, a, out):  # noqa: E741
    r"""``out = I a + v ×* I v``: the force a rigid body needs for the twist ``v`` and the
    acceleration ``a`` (seed 001 eq. 12; Featherstone 2008, eq. 5.9), ``I`` of
    spatial-inertia form (:func:`inertia_times`, both products from one read of ``I``).
    """
    m, h0, h1, h2 = I[5, 5], I[2, 4], I[0, 5], I[1, 3]
    I00, I01, I02, I11, I12, I22 = I[0, 0], I[0, 1], I[0, 2], I[1, 1], I[1, 2], I[2, 2]
    w0, w1, w2, u0, u1, u2 = v[0], v[1], v[2], v[3], v[4], v[5]
    # the momentum I v = [n; p]
    n0 = I00 * w0 + I01 * w1 + I02 * w2 + (h1 * u2 - h2 * u1)
    n1 = I01 * w0 + I11 * w1 + I12 * w2 + (h2 * u0 - h0 * u2)
    n2 = I02 * w0 + I12 * w1 + I22 * w2 + (h0 * u1 - h1 * u0)
    p0 = m * u0 - (h1 * w2 - h2 * w1)
    p1 = m * u1 - (h2 * w0 - h0 * w2)
    p2 = m * u2 - (h0 * w1 - h1 * w0)
    b0, b1, b2, c0, c1, c2 = a[0], a[1], a[2], a[3], a[4], a[5]
    # I a + [ω × n + u × p; ω × p]
    out[0] = (
        I00 * b0
        + I01 * b1
        + I02 * b2
        + (h1 * c2 - h2 * c1)
        + (w1 * n2 - w2 * n1)
        + (u1 * p2 - u2 * p1)
    )
    out[1] = (
        I01 * b0
        + I11 * b1
        + I12 * b2
        + (h2 * c0 - h0 * c2)
        + (w2 * n0 - w0 * n2)
        + (u2 * p0 - u0 * p2)
    )
    out[2] = (
        I02 * b0
        + I12 * b1
        + I22 * b2
        + (h0 * c1 - h1 * c0)
        + (w0 * n1 - w1 * n0)
        + (u0 * p1 - u1 * p0)
    )
    out[3] = m * c0 - (h1 * b2 - h2 * b1) + (w1 * p2 - w2 * p1)
    out[4] = m * c1 - (h2 * b0 - h0 * b2) + (w2 * p0 - w0 * p2)
    out[5] = m * c2 - (h0 * b1 - h1 * b0) + (w0 * p1 - w1 * p0)


@njit(**INLINE)
def inertia_congruence(E, r, I, out):  # noqa: E741
    r"""``out += Xᵀ I X`` for a matrix of spatial-inertia form (cheap parallel-axis form).

    With :math:`\mathbf Y = \mathbf E^\top\bar{\mathbf I}\mathbf E`, :math:`\mathbf y =
    \mathbf E^\top\mathbf h`: :math:`m' = m`, :math:`\mathbf h' = \mathbf y + m\mathbf r`,
    :math:`\bar{\mathbf I}' = \mathbf Y - \mathbf r\times\mathbf y\times - (\mathbf y +
    m\mathbf r)\times\mathbf r\times` (Featherstone 2008, eq. 2.66), using
    :math:`\mathbf a\times\mathbf b\times = \mathbf b\mathbf a^\top - (\mathbf a\cdot
    \mathbf b)\mathbf 1`. The result is written as a full 6×6 matrix of spatial-inertia form.
    """
    m, h0, h1, h2 = I[5, 5], I[2, 4], I[0, 5], I[1, 3]
    y = (
        E[0, 0] * h0 + E[1, 0] * h1 + E[2, 0] * h2,
        E[0, 1] * h0 + E[1, 1] * h1 + E[2, 1] * h2,
        E[0, 2] * h0 + E[1, 2] * h1 + E[2, 2] * h2,
    )
    ry = r[0] * y[0] + r[1] * y[1] + r[2] * y[2]
    rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2]
    for a in range(3):
        for b in range(a, 3):
            Y = 0.0  # (Eᵀ Ī E)[a, b]
            for k in range(3):
                t = I[k, 0] * E[0, b] + I[k, 1] * E[1, b] + I[k, 2] * E[2, b]
                Y += E[k, a] * t
            # − (r×)(y×) − (y×)(r×) − m (r×)(r×) = −(y rᵀ + r yᵀ) + 2 (r·y) 1 − m (r rᵀ − (r·r) 1)
            Y -= y[a] * r[b] + r[a] * y[b] + m * r[a] * r[b]
            if a == b:
                Y += 2.0 * ry + m * rr
            out[a, b] += Y
            if a != b:
                out[b, a] += Y
    g0, g1, g2 = y[0] + m * r[0], y[1] + m * r[1], y[2] + m * r[2]  # h' = y + m r
    # h'× in the upper-right block, (h'×)ᵀ in the lower-left one
    out[0, 4] -= g2
    out[4, 0] -= g2
    out[0, 5] += g1
    out[5, 0] += g1
    out[1, 3] += g2
    out[3, 1] += g2
    out[1, 5] -= g0
    out[5, 1] -= g0
    out[2, 3] -= g1
    out[3, 2] -= g1
    out[2, 4] += g0
    out[4, 2] += g0
    out[3, 3] += m
    out[4, 4] += m
    out[5, 5] += m


@njit(**INLINE)
def congruence(E, r, M, W, out):
    r"""``out += Xᵀ M X`` for a 6×6 ``M`` (a body operator of frame i moved to frame p(i)).

    With :math:`\mathbf X = \operatorname{diag}(\mathbf E, \mathbf E)\,\mathbf T`,
    :math:`\mathbf T = [[\mathbf 1, 0], [-\mathbf S, \mathbf 1]]`, :math:`\mathbf S =
    \mathbf r\times`: first :math:`\mathbf M' = \operatorname{diag}(\mathbf E^\top,
    \mathbf E^\top)\mathbf M\operatorname{diag}(\mathbf E, \mathbf E)` block by block, then
    :math:`\mathbf T^\top\mathbf M'\mathbf T` with the cheap cross products by ``r``
    (Featherstone 2008, Table A.1). ``W`` is a 6×6 work array. ``M`` need not be symmetric.
    """
    # W = diag(Eᵀ, Eᵀ) M diag(E, E), in two passes of 3x3 blocks
    for a in range(2):
        for b in range(2):
            for i in range(3):
                for j in range(3):
                    s = 0.0
                    for k in range(3):
                        t = 0.0
                        for l in range(3):  # noqa: E741
                            t += M[3 * a + k, 3 * b + l] * E[l, j]
                        s += E[k, i] * t
                    W[3 * a + i, 3 * b + j] = s
    # columns: W T = [W_:,0 - W_:,1 S, W_:,1]; S x = r × x, so (W_:,1 S)[:, j] = W_:,1 (r × e_j)
    for i in range(6):
        c0 = W[i, 4] * r[2] - W[i, 5] * r[1]  # row i of W[:, 3:] S: (W_i · (r × e_j))
        c1 = W[i, 5] * r[0] - W[i, 3] * r[2]
        c2 = W[i, 3] * r[1] - W[i, 4] * r[0]
        W[i, 0] -= c0
        W[i, 1] -= c1
        W[i, 2] -= c2
    # rows: Tᵀ (W T) = [(W T)_top + S (W T)_bottom ; (W T)_bottom], S y = r × y
    for j in range(6):
        y0, y1, y2 = W[3, j], W[4, j], W[5, j]
        out[0, j] += W[0, j] + (r[1] * y2 - r[2] * y1)
        out[1, j] += W[1, j] + (r[2] * y0 - r[0] * y2)
        out[2, j] += W[2, j] + (r[0] * y1 - r[1] * y0)
        out[3, j] += y0
        out[4, j] += y1
        out[5, j] += y2


@njit(**INLINE)
def congruence_sym(E, r, M, W, out):
    r"""``out += Xᵀ M X`` for a symmetric 6×6 ``M`` (articulated inertias), upper triangle first.

    With :math:`\mathbf M = [[\mathbf A, \mathbf B], [\mathbf B^\top, \mathbf D]]`, primes
    the blocks rotated by :math:`\mathbf E` (:math:`\mathbf A' = \mathbf E^\top\mathbf A
    \mathbf E`, ...) and :math:`\mathbf S = \mathbf r\times`:

    .. math:: \mathbf X^\top\mathbf M\mathbf X = \begin{bmatrix}\mathbf A' + \mathbf S
              \mathbf B'^\top - \mathbf T\mathbf S & \mathbf T\\ \mathbf T^\top &
              \mathbf D'\end{bmatrix}, \qquad \mathbf T = \mathbf B' + \mathbf S\mathbf D'

    (rows of :math:`\mathbf T\mathbf S` are :math:`\mathbf T_{i,:}\times\mathbf r`; columns of
    :math:`\mathbf S\mathbf B'^\top` are :math:`\mathbf r\times\mathbf B'_{j,:}`).
    ``W`` is a (4, 3, 3) work array.
    """
    A, B, D, T = W[0], W[1], W[2], W[3]
    for i in range(3):  # A' = Eᵀ A E, B' = Eᵀ B E, D' = Eᵀ D E
        for j in range(3):
            a = b = d = 0.0
            for k in range(3):
                ta = M[k, 0] * E[0, j] + M[k, 1] * E[1, j] + M[k, 2] * E[2, j]
                tb = M[k, 3] * E[0, j] + M[k, 4] * E[1, j] + M[k, 5] * E[2, j]
                td = M[3 + k, 3] * E[0, j] + M[3 + k, 4] * E[1, j] + M[3 + k, 5] * E[2, j]
                a += E[k, i] * ta
                b += E[k, i] * tb
                d += E[k, i] * td
            A[i, j], B[i, j], D[i, j] = a, b, d
    r0, r1, r2 = r[0], r[1], r[2]
    for j in range(3):  # T = B' + S D': column j gains r × D'[:, j]
        T[0, j] = B[0, j] + r1 * D[2, j] - r2 * D[1, j]
        T[1, j] = B[1, j] + r2 * D[0, j] - r0 * D[2, j]
        T[2, j] = B[2, j] + r0 * D[1, j] - r1 * D[0, j]
    for i in range(3):
        # row i of T S is T[i, :] × r; column j of S B'ᵀ is r × B'[j, :]
        ts0 = T[i, 1] * r2 - T[i, 2] * r1
        ts1 = T[i, 2] * r0 - T[i, 0] * r2
        ts2 = T[i, 0] * r1 - T[i, 1] * r0
        ts = (ts0, ts1, ts2)
        for j in range(i, 3):
            if i == 0:
                sb = r1 * B[j, 2] - r2 * B[j, 1]
            elif i == 1:
                sb = r2 * B[j, 0] - r0 * B[j, 2]
            else:
                sb = r0 * B[j, 1] - r1 * B[j, 0]
            x = A[i, j] + sb - ts[j]
            out[i, j] += x
            if j != i:
                out[j, i] += x
        for j in range(3):
            out[i, 3 + j] += T[i, j]
            out[3 + j, i] += T[i, j]
            if j >= i:
                out[3 + i, 3 + j] += D[i, j]
                if j != i:
                    out[3 + j, 3 + i] += D[i, j]


@njit(**INLINE)
def compose_pose(Ra, pa, Rb, pb, R_out, p_out):
    """``(R_out, p_out) = (Ra, pa) ∘ (Rb, pb)``: ``R = Ra Rb``, ``p = pa + Ra pb``."""
    for i in range(3):
        p_out[i] = pa[i] + Ra[i, 0] * pb[0] + Ra[i, 1] * pb[1] + Ra[i, 2] * pb[2]
        for j in range(3):
            R_out[i, j] = Ra[i, 0] * Rb[0, j] + Ra[i, 1] * Rb[1, j] + Ra[i, 2] * Rb[2, j]


@njit(**INLINE)
def dot6(a, b):
    """``aᵀ b`` of two 6-vectors (a motion vector paired with a force, or any two)."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5]


@njit(**INLINE)
def compose_transforms(E1, r1, E2, r2, E_out, r_out):
    r"""``(E_out, r_out)`` = the Plücker pair of :math:`\mathbf X_1\mathbf X_2`: ``E = E1 E2``, ``r
    = r2 + E2ᵀ r1``.
    """
    # every input is read before the outputs are written: the compiler need not reload them
    a00, a01, a02 = E1[0, 0], E1[0, 1], E1[0, 2]
    a10, a11, a12 = E1[1, 0], E1[1, 1], E1[1, 2]
    a20, a21, a22 = E1[2, 0], E1[2, 1], E1[2, 2]
    b00, b01, b02 = E2[0, 0], E2[0, 1], E2[0, 2]
    b10, b11, b12 = E2[1, 0], E2[1, 1], E2[1, 2]
    b20, b21, b22 = E2[2, 0], E2[2, 1], E2[2, 2]
    x0, x1, x2 = r1[0], r1[1], r1[2]
    y0, y1, y2 = r2[0], r2[1], r2[2]
    r_out[0] = y0 + b00 * x0 + b10 * x1 + b20 * x2
    r_out[1] = y1 + b01 * x0 + b11 * x1 + b21 * x2
    r_out[2] = y2 + b02 * x0 + b12 * x1 + b22 * x2
    E_out[0, 0] = a00 * b00 + a01 * b10 + a02 * b20
    E_out[0, 1] = a00 * b01 + a01 * b11 + a02 * b21
    E_out[0, 2] = a00 * b02 + a01 * b12 + a02 * b22
    E_out[1, 0] = a10 * b00 + a11 * b10 + a12 * b20
    E_out[1, 1] = a10 * b01 + a11 * b11 + a12 * b21
    E_out[1, 2] = a10 * b02 + a11 * b12 + a12 * b22
    E_out[2, 0] = a20 * b00 + a21 * b10 + a22 * b20
    E_out[2, 1] = a20 * b01 + a21 * b11 + a22 * b21
    E_out[2, 2] = a20 * b02 + a21 * b12 + a22 * b22


# ----------------------------------------------------------------------------------------
# rigid-body inertias as ten parameters
# ----------------------------------------------------------------------------------------
# A matrix of rigid-body-inertia form [[Ī, h×], [(h×)ᵀ, m 1]] (Ī symmetric) is kept as
# p = [m, h_x, h_y, h_z, Ī_xx, Ī_xy, Ī_yy, Ī_xz, Ī_yz, Ī_zz] (Pinocchio's parameter order):
# sums, transforms and products cost a fraction of their 6×6 forms (Featherstone 2008,
# Table A.1). Rates of inertias (m = 0) have the same form.


@njit(**INLINE)
def inertia_params(M, p):
    """``p`` (10,) = the parameters of a 6×6 matrix of rigid-body-inertia form ``M``."""
    p[0] = M[5, 5]
    p[1], p[2], p[3] = M[2, 4], M[0, 5], M[1, 3]  # M[:3, 3:] = h×
    p[4], p[5], p[6] = M[0, 0], M[0, 1], M[1, 1]
    p[7], p[8], p[9] = M[0, 2], M[1, 2], M[2, 2]


@njit(**INLINE)
def inertia_params_transform(E, r, p, out):
    r"""``out`` = the parameters of :math:`\mathbf X^\top\mathbf I(p)\mathbf X` for ``X = (E, r)``.

    The inertia of frame i expressed in frame p(i) (``R = Eᵀ``, position ``r``):
    :math:`\mathbf h' = \mathbf R\mathbf h + m\mathbf r`, :math:`\bar{\mathbf I}' =
    \mathbf R\bar{\mathbf I}\mathbf R^\top - (\mathbf r\mathbf y^\top + \mathbf y\mathbf r^\top)
    + 2(\mathbf y\cdot\mathbf r)\mathbf 1 - m(\mathbf r\mathbf r^\top - |\mathbf r|^2\mathbf 1)`,
    :math:`\mathbf y = \mathbf R\mathbf h`. ``out`` may alias ``p``.
    """
    m = p[0]
    h0, h1, h2 = p[1], p[2], p[3]
    y0 = E[0, 0] * h0 + E[1, 0] * h1 + E[2, 0] * h2
    y1 = E[0, 1] * h0 + E[1, 1] * h1 + E[2, 1] * h2
    y2 = E[0, 2] * h0 + E[1, 2] * h1 + E[2, 2] * h2
    r0, r1, r2 = r[0], r[1], r[2]
    # T = Ī E (columns), then Eᵀ T
    i00, i01, i11, i02, i12, i22 = p[4], p[5], p[6], p[7], p[8], p[9]
    t00 = i00 * E[0, 0] + i01 * E[1, 0] + i02 * E[2, 0]
    t10 = i01 * E[0, 0] + i11 * E[1, 0] + i12 * E[2, 0]
    t20 = i02 * E[0, 0] + i12 * E[1, 0] + i22 * E[2, 0]
    t01 = i00 * E[0, 1] + i01 * E[1, 1] + i02 * E[2, 1]
    t11 = i01 * E[0, 1] + i11 * E[1, 1] + i12 * E[2, 1]
    t21 = i02 * E[0, 1] + i12 * E[1, 1] + i22 * E[2, 1]
    t02 = i00 * E[0, 2] + i01 * E[1, 2] + i02 * E[2, 2]
    t12 = i01 * E[0, 2] + i11 * E[1, 2] + i12 * E[2, 2]
    t22 = i02 * E[0, 2] + i12 * E[1, 2] + i22 * E[2, 2]
    a00 = E[0, 0] * t00 + E[1, 0] * t10 + E[2, 0] * t20
    a01 = E[0, 0] * t01 + E[1, 0] * t11 + E[2, 0] * t21
    a11 = E[0, 1] * t01 + E[1, 1] * t11 + E[2, 1] * t21
    a02 = E[0, 0] * t02 + E[1, 0] * t12 + E[2, 0] * t22
    a12 = E[0, 1] * t02 + E[1, 1] * t12 + E[2, 1] * t22
    a22 = E[0, 2] * t02 + E[1, 2] * t12 + E[2, 2] * t22
    d = 2.0 * (y0 * r0 + y1 * r1 + y2 * r2) + m * (r0 * r0 + r1 * r1 + r2 * r2)
    out[0] = m
    out[1], out[2], out[3] = y0 + m * r0, y1 + m * r1, y2 + m * r2
    out[4] = a00 + d - 2.0 * r0 * y0 - m * r0 * r0
    out[5] = a01 - (r0 * y1 + y0 * r1) - m * r0 * r1
    out[6] = a11 + d - 2.0 * r1 * y1 - m * r1 * r1
    out[7] = a02 - (r0 * y2 + y0 * r2) - m * r0 * r2
    out[8] = a12 - (r1 * y2 + y1 * r2) - m * r1 * r2
    out[9] = a22 + d - 2.0 * r2 * y2 - m * r2 * r2


@njit(**INLINE)
def inertia_params_times(p, x, out):
    r"""``out = I(p) x``: :math:`[\bar{\mathbf I}\boldsymbol\omega + \mathbf h\times\mathbf u;\
    m\mathbf u - \mathbf h\times\boldsymbol\omega]` for ``x = [ω; u]``.
    """
    # every input is read before ``out`` is written: the compiler need not reload them
    m, h0, h1, h2 = p[0], p[1], p[2], p[3]
    i00, i01, i11, i02, i12, i22 = p[4], p[5], p[6], p[7], p[8], p[9]
    w0, w1, w2, u0, u1, u2 = x[0], x[1], x[2], x[3], x[4], x[5]
    n0 = i00 * w0 + i01 * w1 + i02 * w2 + (h1 * u2 - h2 * u1)
    n1 = i01 * w0 + i11 * w1 + i12 * w2 + (h2 * u0 - h0 * u2)
    n2 = i02 * w0 + i12 * w1 + i22 * w2 + (h0 * u1 - h1 * u0)
    out[3] = m * u0 - (h1 * w2 - h2 * w1)
    out[4] = m * u1 - (h2 * w0 - h0 * w2)
    out[5] = m * u2 - (h0 * w1 - h1 * w0)
    out[0], out[1], out[2] = n0, n1, n2


@njit(**INLINE)
def inertia_params_rate(p, v, out):
    r"""``out`` = the parameters of :math:`(\mathbf v\times^*)\mathbf I - \mathbf I(\mathbf
    v\times)`.

    The rate of the inertia ``I(p)`` carried by the twist ``v = [ω; u]`` (zero mass):
    :math:`\dot{\mathbf h} = \boldsymbol\omega\times\mathbf h + m\mathbf u`,
    :math:`\dot{\bar{\mathbf I}} = \boldsymbol\omega\times\bar{\mathbf I} - \bar{\mathbf I}
    \boldsymbol\omega\times - (\mathbf h\mathbf u^\top + \mathbf u\mathbf h^\top) +
    2(\mathbf u\cdot\mathbf h)\mathbf 1`.
    """
    m, h0, h1, h2 = p[0], p[1], p[2], p[3]
    w0, w1, w2, u0, u1, u2 = v[0], v[1], v[2], v[3], v[4], v[5]
    i00, i01, i11, i02, i12, i22 = p[4], p[5], p[6], p[7], p[8], p[9]
    # A = ω× Ī (A[a, b] = (ω × Ī[:, b])_a); the rate is A + Aᵀ
    a00 = w1 * i02 - w2 * i01
    a10 = w2 * i00 - w0 * i02
    a20 = w0 * i01 - w1 * i00
    a01 = w1 * i12 - w2 * i11
    a11 = w2 * i01 - w0 * i12
    a21 = w0 * i11 - w1 * i01
    a02 = w1 * i22 - w2 * i12
    a12 = w2 * i02 - w0 * i22
    a22 = w0 * i12 - w1 * i02
    uh2 = 2.0 * (u0 * h0 + u1 * h1 + u2 * h2)
    out[0] = 0.0
    out[1] = w1 * h2 - w2 * h1 + m * u0
    out[2] = w2 * h0 - w0 * h2 + m * u1
    out[3] = w0 * h1 - w1 * h0 + m * u2
    out[4] = 2.0 * a00 - 2.0 * h0 * u0 + uh2
    out[5] = a01 + a10 - (h0 * u1 + u0 * h1)
    out[6] = 2.0 * a11 - 2.0 * h1 * u1 + uh2
    out[7] = a02 + a20 - (h0 * u2 + u0 * h2)
    out[8] = a12 + a21 - (h1 * u2 + u1 * h2)
    out[9] = 2.0 * a22 - 2.0 * h2 * u2 + uh2


@njit(**INLINE)
def inertia_params_matrix(p, out):
    r"""``out`` (6, 6) = the matrix :math:`[[\bar{\mathbf I}, \mathbf h\times], [(\mathbf h
    \times)^\top, m\mathbf 1]]` of the parameters ``p`` (the inverse of :func:`inertia_params`).
    """
    m, h0, h1, h2 = p[0], p[1], p[2], p[3]
    out[0, 0], out[0, 1], out[0, 2] = p[4], p[5], p[7]
    out[1, 0], out[1, 1], out[1, 2] = p[5], p[6], p[8]
    out[2, 0], out[2, 1], out[2, 2] = p[7], p[8], p[9]
    out[0, 3], out[0, 4], out[0, 5] = 0.0, -h2, h1  # h×
    out[1, 3], out[1, 4], out[1, 5] = h2, 0.0, -h0
    out[2, 3], out[2, 4], out[2, 5] = -h1, h0, 0.0
    out[3, 0], out[3, 1], out[3, 2] = 0.0, h2, -h1  # (h×)ᵀ
    out[4, 0], out[4, 1], out[4, 2] = -h2, 0.0, h0
    out[5, 0], out[5, 1], out[5, 2] = h1, -h0, 0.0
    out[3, 3], out[3, 4], out[3, 5] = m, 0.0, 0.0
    out[4, 3], out[4, 4], out[4, 5] = 0.0, m, 0.0
    out[5, 3], out[5, 4], out[5, 5] = 0.0, 0.0, m


@njit(**INLINE)
def trace_about(M, c):
    r"""The trace of a symmetric 6×6 force-from-motion matrix ``M`` (an articulated inertia)
    re-expressed about the point ``c`` (same axes): invariant under rotations of the frame.

    With :math:`\mathbf M = [[\mathbf A, \mathbf B], [\mathbf B^\top, \mathbf C]]` about the
    origin and :math:`\mathbf P = \mathbf c\times`, the angular block about ``c`` is
    :math:`\mathbf A + \mathbf B\mathbf P - \mathbf P\mathbf B^\top - \mathbf P\mathbf C
    \mathbf P` and the linear one :math:`\mathbf C`, so the trace is
    :math:`\operatorname{tr}\mathbf A + 2\operatorname{tr}(\mathbf B\mathbf P) +
    (1 + |\mathbf c|^2)\operatorname{tr}\mathbf C - \mathbf c^\top\mathbf C\mathbf c`
    (Featherstone 2008, eq. 2.66). Only the upper triangle of ``M`` is read.
    """
    c0, c1, c2 = c[0], c[1], c[2]
    tr_A = M[0, 0] + M[1, 1] + M[2, 2]
    tr_C = M[3, 3] + M[4, 4] + M[5, 5]
    tr_BP = c0 * (M[1, 5] - M[2, 4]) + c1 * (M[2, 3] - M[0, 5]) + c2 * (M[0, 4] - M[1, 3])
    cCc = (
        c0 * (M[3, 3] * c0 + M[3, 4] * c1 + M[3, 5] * c2)
        + c1 * (M[3, 4] * c0 + M[4, 4] * c1 + M[4, 5] * c2)
        + c2 * (M[3, 5] * c0 + M[4, 5] * c1 + M[5, 5] * c2)
    )
    return tr_A + 2.0 * tr_BP + (1.0 + c0 * c0 + c1 * c1 + c2 * c2) * tr_C - cCc


@njit(**INLINE)
def sym_matvec6(M, x, out):
    """``out = M x`` for a symmetric 6×6 ``M`` of which only the upper triangle is read.

    (An articulated inertia kept as its upper triangle: updates touch 21 entries, not 36.)
    """
    x0, x1, x2, x3, x4, x5 = x[0], x[1], x[2], x[3], x[4], x[5]  # in registers across the stores
    m00, m01, m02, m03, m04, m05 = M[0, 0], M[0, 1], M[0, 2], M[0, 3], M[0, 4], M[0, 5]
    m11, m12, m13, m14, m15 = M[1, 1], M[1, 2], M[1, 3], M[1, 4], M[1, 5]
    m22, m23, m24, m25 = M[2, 2], M[2, 3], M[2, 4], M[2, 5]
    m33, m34, m35, m44, m45, m55 = M[3, 3], M[3, 4], M[3, 5], M[4, 4], M[4, 5], M[5, 5]
    out[0] = m00 * x0 + m01 * x1 + m02 * x2 + m03 * x3 + m04 * x4 + m05 * x5
    out[1] = m01 * x0 + m11 * x1 + m12 * x2 + m13 * x3 + m14 * x4 + m15 * x5
    out[2] = m02 * x0 + m12 * x1 + m22 * x2 + m23 * x3 + m24 * x4 + m25 * x5
    out[3] = m03 * x0 + m13 * x1 + m23 * x2 + m33 * x3 + m34 * x4 + m35 * x5
    out[4] = m04 * x0 + m14 * x1 + m24 * x2 + m34 * x3 + m44 * x4 + m45 * x5
    out[5] = m05 * x0 + m15 * x1 + m25 * x2 + m35 * x3 + m45 * x4 + m55 * x5
