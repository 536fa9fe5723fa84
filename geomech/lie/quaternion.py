"""Unit quaternions for attitude storage, in scalar-LAST order ``(x, y, z, w)`` like scipy.

Conventions
-----------
- ``q = (x, y, z, w) = (sin(θ/2) u, cos(θ/2))`` represents the rotation by ``θ`` about the
  unit axis ``u``; ``q`` and ``-q`` represent the same rotation.
- The Hamilton product is used, so ``quat_to_matrix(quat_multiply(p, q)) ==
  quat_to_matrix(p) @ quat_to_matrix(q)``.
- Functions that need a *unit* quaternion (``quat_to_matrix``, ``quat_log``) check the norm
  to a tolerance and renormalise; ``quat_multiply``/``quat_conjugate`` accept any quaternion.

All functions accept leading batch dimensions.

Examples
--------
>>> import numpy as np
>>> from geomech.lie.quaternion import quat_exp, quat_to_matrix
>>> q = quat_exp([0.0, 0.0, np.pi / 2])  # 90° about z
>>> np.round(q, 6)
array([0.      , 0.      , 0.707107, 0.707107])
>>> np.round(quat_to_matrix(q) @ [1.0, 0.0, 0.0], 12) + 0.0
array([0., 1., 0.])
"""

from __future__ import annotations

import numpy as np

from geomech._validation import MANIFOLD_TOL, as_array, check_rotation
from geomech.errors import NotOnManifoldError
from geomech.lie._coefficients import sinc

__all__ = [
    "quat_to_matrix",
    "matrix_to_quat",
    "quat_multiply",
    "quat_conjugate",
    "quat_exp",
    "quat_log",
    "quat_normalize",
]


def _check_unit(q: np.ndarray, name: str, tol: float) -> np.ndarray:
    """Raise unless ``|q| = 1`` to ``tol``; return ``q / |q|``."""
    norm = np.linalg.norm(q, axis=-1)
    dev = np.max(np.abs(norm - 1.0), initial=0.0)
    if dev > tol:
        raise NotOnManifoldError(
            f"Expected `{name}` to be a unit quaternion (|q| = 1), "
            f"got deviation {dev:.3g} > {tol:g}."
        )
    return q / norm[..., None]


def quat_normalize(q) -> np.ndarray:
    """Scale quaternions to unit norm.

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Nonzero quaternions ``(x, y, z, w)``.

    Returns
    -------
    ndarray, shape (..., 4)
        ``q / |q|``, for every finite nonzero ``q`` (also where ``|q|`` itself would
        overflow or underflow: ``q`` is scaled by its largest entry first).

    Raises
    ------
    DimensionError, NonFiniteError
        If ``q`` has the wrong trailing shape or non-finite entries.
    NotOnManifoldError
        If some ``q`` is zero.

    Examples
    --------
    >>> from geomech.lie.quaternion import quat_normalize
    >>> quat_normalize([0.0, 0.0, 0.0, 2.0])
    array([0., 0., 0., 1.])
    """
    q = as_array(q, "q", (4,))
    # scale by the largest entry first: |q| itself overflows from ~1e154 and underflows below
    # ~1e-154 (dividing by it would then return zeros or inf), q / max|q_i| does neither
    scale = np.max(np.abs(q), axis=-1, keepdims=True)
    if np.any(scale == 0.0):
        raise NotOnManifoldError("Expected `q` to be nonzero, got a zero quaternion.")
    q = q / scale
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def quat_to_matrix(q, tol: float = MANIFOLD_TOL) -> np.ndarray:
    r"""Rotation matrix of a unit quaternion ``(x, y, z, w)``.

    .. math:: R = (w^2 - v^\top v) I + 2 v v^\top + 2 w \hat v, \qquad q = (v, w)

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Unit quaternions, scalar last; renormalised after the check.
    tol : float, optional
        Tolerance on ``| |q| - 1 |``.

    Returns
    -------
    ndarray, shape (..., 3, 3)
        Rotation matrices.

    Raises
    ------
    DimensionError, NonFiniteError
        If ``q`` has the wrong trailing shape or non-finite entries.
    NotOnManifoldError
        If ``q`` is not a unit quaternion to ``tol``.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie.quaternion import quat_to_matrix
    >>> quat_to_matrix([0.0, 0.0, 0.0, 1.0])
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])
    """
    q = _check_unit(as_array(q, "q", (4,)), "q", tol)
    x, y, z, w = np.moveaxis(q, -1, 0)
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    R = np.stack(
        [
            1.0 - 2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy),
            2.0 * (xy + wz), 1.0 - 2.0 * (xx + zz), 2.0 * (yz - wx),
            2.0 * (xz - wy), 2.0 * (yz + wx), 1.0 - 2.0 * (xx + yy),
        ],
        axis=-1,
    )  # fmt: skip
    return R.reshape(q.shape[:-1] + (3, 3))


def matrix_to_quat(R, tol: float = MANIFOLD_TOL) -> np.ndarray:
    """Unit quaternion ``(x, y, z, w)`` of a rotation matrix, with ``w ≥ 0``.

    Uses Shepperd's method (the largest of ``w², x², y², z²`` is the pivot), which is
    accurate for every rotation. The sign is fixed by ``w ≥ 0`` (for ``w = 0``, i.e. a
    rotation by ``π``, the pivot component is positive).

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)
        Rotation matrices.
    tol : float, optional
        Membership tolerance for ``R``.

    Returns
    -------
    ndarray, shape (..., 4)
        Unit quaternions, scalar last.

    Raises
    ------
    DimensionError, NonFiniteError
        If ``R`` has the wrong trailing shape or non-finite entries.
    NotOnManifoldError
        If ``R`` is not a rotation to ``tol``.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> from geomech.lie.quaternion import matrix_to_quat
    >>> np.round(matrix_to_quat(SO3.exp([np.pi / 2, 0.0, 0.0])), 6)
    array([0.707107, 0.      , 0.      , 0.707107])
    """
    R = check_rotation(as_array(R, "R", (3, 3)), "R", tol)
    r = [[R[..., i, j] for j in range(3)] for i in range(3)]
    tr = r[0][0] + r[1][1] + r[2][2]
    # Shepperd (1978): candidate k is 4 q_k q, with q_k² = (1 + 2 R_kk - tr)/4 for k < 3 and
    # q_w² = (1 + tr)/4; use the candidate with the largest pivot q_k².
    s01, s02, s12 = r[0][1] + r[1][0], r[0][2] + r[2][0], r[1][2] + r[2][1]
    d0, d1, d2 = r[2][1] - r[1][2], r[0][2] - r[2][0], r[1][0] - r[0][1]
    cands = np.stack(
        [
            np.stack([1 + 2 * r[0][0] - tr, s01, s02, d0], -1),
            np.stack([s01, 1 + 2 * r[1][1] - tr, s12, d1], -1),
            np.stack([s02, s12, 1 + 2 * r[2][2] - tr, d2], -1),
            np.stack([d0, d1, d2, 1 + tr], -1),
        ],
        axis=-2,
    )  # (..., 4 candidates, 4 components)
    pivot = np.argmax(np.stack([r[0][0], r[1][1], r[2][2], tr], -1), axis=-1)
    q = np.take_along_axis(cands, pivot[..., None, None], axis=-2)[..., 0, :]
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return np.where(q[..., 3:] < 0.0, -q, q)


def quat_multiply(p, q) -> np.ndarray:
    r"""Hamilton product ``p ⊗ q`` (scalar last), the quaternion of ``R(p) R(q)``.

    .. math:: (v_p, w_p) \otimes (v_q, w_q) = (w_p v_q + w_q v_p + v_p \times v_q,\;
              w_p w_q - v_p \cdot v_q)

    Parameters
    ----------
    p, q : array_like, shape (..., 4)
        Quaternions (not necessarily unit); leading dimensions broadcast.

    Returns
    -------
    ndarray, shape (..., 4)
        The product.

    Raises
    ------
    DimensionError, NonFiniteError
        If an input has the wrong trailing shape or non-finite entries.

    Examples
    --------
    >>> from geomech.lie.quaternion import quat_multiply
    >>> quat_multiply([1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0])  # i j = k
    array([0., 0., 1., 0.])
    """
    p = as_array(p, "p", (4,))
    q = as_array(q, "q", (4,))
    vp, wp = p[..., :3], p[..., 3:]
    vq, wq = q[..., :3], q[..., 3:]
    v = wp * vq + wq * vp + np.cross(vp, vq)
    w = wp * wq - np.sum(vp * vq, axis=-1, keepdims=True)
    return np.concatenate([v, w], axis=-1)


def quat_conjugate(q) -> np.ndarray:
    """Quaternion conjugate ``(-x, -y, -z, w)`` (the inverse rotation for unit ``q``).

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Quaternions.

    Returns
    -------
    ndarray, shape (..., 4)
        The conjugates.

    Raises
    ------
    DimensionError, NonFiniteError
        If ``q`` has the wrong trailing shape or non-finite entries.

    Examples
    --------
    >>> from geomech.lie.quaternion import quat_conjugate
    >>> quat_conjugate([0.1, 0.2, 0.3, 0.9])
    array([-0.1, -0.2, -0.3,  0.9])
    """
    q = as_array(q, "q", (4,))
    return np.concatenate([-q[..., :3], q[..., 3:]], axis=-1)


def quat_exp(rotvec) -> np.ndarray:
    r"""Unit quaternion of a rotation vector ``φ = θ u``.

    .. math:: q(\varphi) = \left(\tfrac12 \operatorname{sinc}(\theta/2)\, \varphi,\;
              \cos(\theta/2)\right), \qquad \theta = |\varphi|

    Parameters
    ----------
    rotvec : array_like, shape (..., 3)
        Rotation vectors (the SO(3) Lie-algebra coordinates ``ω``).

    Returns
    -------
    ndarray, shape (..., 4)
        Unit quaternions ``(x, y, z, w)``; ``quat_to_matrix(quat_exp(φ)) == SO3.exp(φ)``.

    Raises
    ------
    DimensionError, NonFiniteError
        If ``rotvec`` has the wrong trailing shape or non-finite entries.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie.quaternion import quat_exp
    >>> np.round(quat_exp([np.pi, 0.0, 0.0]), 12) + 0.0
    array([1., 0., 0., 0.])
    """
    phi = as_array(rotvec, "rotvec", (3,))
    # half angle without overflow: θ/2 = (s/2) |φ/s| with s = max|φ_i| (finite for every
    # finite φ); above θ/2 = 1 the vector part is sin(θ/2) u, u = φ/θ, never forming sinc·φ
    scale = np.max(np.abs(phi), axis=-1)
    s = np.where(scale > 0.0, scale, 1.0)
    unit = phi / s[..., None]
    n = np.linalg.norm(unit, axis=-1)
    half = 0.5 * s * n
    big = half > 1.0
    axis = unit / np.where(big, n, 1.0)[..., None]
    coeff = np.where(big, np.sin(half), 0.5 * sinc(np.where(big, 1.0, half)))
    vec = np.where(big[..., None], coeff[..., None] * axis, coeff[..., None] * phi)
    return np.concatenate([vec, np.cos(half)[..., None]], axis=-1)


def quat_log(q, tol: float = MANIFOLD_TOL) -> np.ndarray:
    r"""Rotation vector of a unit quaternion, with angle in ``[0, π]``.

    ``q`` and ``-q`` give the same result (``q`` is first flipped to ``w ≥ 0``); at ``w = 0``
    (angle ``π``) the sign of the returned axis is that of ``(x, y, z)`` as given.

    .. math:: \varphi = \frac{2\, v}{\operatorname{sinc}(\theta/2)}, \qquad
              \theta = 2 \operatorname{atan2}(|v|, w)

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Unit quaternions ``(x, y, z, w)``.
    tol : float, optional
        Tolerance on ``| |q| - 1 |``.

    Returns
    -------
    ndarray, shape (..., 3)
        Rotation vectors ``φ`` with ``quat_exp(φ) = ±q``.

    Raises
    ------
    DimensionError, NonFiniteError
        If ``q`` has the wrong trailing shape or non-finite entries.
    NotOnManifoldError
        If ``q`` is not a unit quaternion to ``tol``.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie.quaternion import quat_exp, quat_log
    >>> bool(np.allclose(quat_log(quat_exp([0.3, -0.2, 0.5])), [0.3, -0.2, 0.5]))
    True
    """
    q = _check_unit(as_array(q, "q", (4,)), "q", tol)
    q = np.where(q[..., 3:] < 0.0, -q, q)
    v, w = q[..., :3], q[..., 3]
    half = np.arctan2(np.linalg.norm(v, axis=-1), w)  # θ/2 in [0, π/2]
    return 2.0 * v / sinc(half)[..., None]
