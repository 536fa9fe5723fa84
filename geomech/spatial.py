r"""Spatial vector algebra (Featherstone), angular first, batched.

Conventions
-----------
* A motion vector (twist) is :math:`\mathbf v = [\boldsymbol\omega; \boldsymbol v]` and a force
  vector (wrench) is :math:`\mathbf f = [\boldsymbol n; \boldsymbol f]`, the moment taken about
  the frame origin. Power is :math:`\mathbf v^\top \mathbf f`.
* ``X = plucker(E, r)`` is Featherstone's :math:`{}^B\mathbf X_A`: it maps motion coordinates in
  frame A to frame B, where ``E`` maps coordinates in A to coordinates in B and ``r`` is the
  position of B's origin relative to A's, in A coordinates. Forces map with
  :math:`\mathbf X^{-\top}`.
* A spatial inertia about the frame origin is
  :math:`\mathbf I = \begin{bmatrix}\bar{\mathbf I}_O & m\,\mathbf S(\mathbf c)\\
  m\,\mathbf S(\mathbf c)^\top & m\mathbf 1\end{bmatrix}`, with
  :math:`\bar{\mathbf I}_O = \bar{\mathbf I}_C + m\mathbf S(\mathbf c)\mathbf S(\mathbf c)^\top`.

Every function accepts leading batch dimensions.

References
----------
Seed 001 §1.3 (Appendix A of Echeandia & Wensing); seed 000 §1.4; R. Featherstone,
*Rigid Body Dynamics Algorithms*, 2008, ch. 2.
"""

from __future__ import annotations

import numpy as np

from geomech._validation import MANIFOLD_TOL, as_array, check_rotation
from geomech.errors import DimensionError, InertiaError
from geomech.lie._maps import _blocks, _skew

__all__ = [
    "skew",
    "unskew",
    "crm",
    "crf",
    "crbar",
    "plucker",
    "plucker_from_pose",
    "plucker_inverse",
    "transform_motion",
    "transform_force",
    "transform_inertia",
    "spatial_inertia",
    "inertia_parameters",
    "pseudo_inertia",
    "inertia_from_pseudo",
    "is_physically_consistent",
    "validate_inertia",
    "dynamic_parameters",
    "inertia_from_dynamic_parameters",
    "crm_tensor",
    "crf_tensor",
    "crbar_tensor",
    "tensor_matmul",
    "matmul_tensor",
    "tensor_transpose",
    "tensor_rotate",
    "coriolis_tensor",
]


def skew(p) -> np.ndarray:
    r"""Cross-product matrix :math:`\mathbf S(\mathbf p)` with :math:`\mathbf S(\mathbf p)\mathbf x
    = \mathbf p\times\mathbf x`.

    Parameters
    ----------
    p : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Raises
    ------
    DimensionError
        If the last dimension of ``p`` is not 3.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import skew
    >>> skew([1.0, 2.0, 3.0]) @ np.array([0.0, 0.0, 1.0])
    array([ 2., -1.,  0.])
    """
    return _skew(as_array(p, "p", (3,)))


def unskew(S) -> np.ndarray:
    r"""Inverse of :func:`skew`: the vector of the skew part of ``S``.

    Parameters
    ----------
    S : array_like, shape (..., 3, 3)

    Returns
    -------
    ndarray, shape (..., 3)
        :math:`\tfrac12 (\mathbf S - \mathbf S^\top)^\vee`.

    Examples
    --------
    >>> from geomech.spatial import skew, unskew
    >>> unskew(skew([1.0, 2.0, 3.0]))
    array([1., 2., 3.])
    """
    S = as_array(S, "S", (3, 3))
    return 0.5 * np.stack(
        [S[..., 2, 1] - S[..., 1, 2], S[..., 0, 2] - S[..., 2, 0], S[..., 1, 0] - S[..., 0, 1]], -1
    )


# ----------------------------------------------------------------------------------------
# the cross products, unvalidated (the one implementation; the public functions validate).
# Each is linear in its argument: one product with a constant (6, 36) table, the matrices of
# the six unit vectors.
# ----------------------------------------------------------------------------------------
def _crm_blocks(v: np.ndarray) -> np.ndarray:
    Sw, Sv = _skew(v[..., :3]), _skew(v[..., 3:])
    return _blocks(Sw, np.zeros_like(Sw), Sv, Sw)


_E6 = np.eye(6)
_CRM_TABLE = _crm_blocks(_E6).reshape(6, 36)  # row k: (e_k x)
_CRF_TABLE = -np.swapaxes(_crm_blocks(_E6), -1, -2).reshape(6, 36)  # row k: (e_k x*)
_CRBAR_TABLE = (
    -_blocks(_skew(_E6[:, :3]), _skew(_E6[:, 3:]), _skew(_E6[:, 3:]), np.zeros((6, 3, 3)))
).reshape(6, 36)  # row k: (e_k xbar*)


def _crm(v: np.ndarray) -> np.ndarray:
    r""":math:`(\mathbf v\times)`, (..., 6) -> (..., 6, 6)."""
    return np.matmul(v, _CRM_TABLE).reshape(v.shape[:-1] + (6, 6))


def _crf(v: np.ndarray) -> np.ndarray:
    r""":math:`(\mathbf v\times^*) = -(\mathbf v\times)^\top`, (..., 6) -> (..., 6, 6)."""
    return np.matmul(v, _CRF_TABLE).reshape(v.shape[:-1] + (6, 6))


def _crbar(f: np.ndarray) -> np.ndarray:
    r""":math:`(\mathbf f\bar\times^*)`, (..., 6) -> (..., 6, 6)."""
    return np.matmul(f, _CRBAR_TABLE).reshape(f.shape[:-1] + (6, 6))


def crm(v) -> np.ndarray:
    r"""Motion cross product matrix :math:`(\mathbf v\times)` (= :math:`\mathrm{ad}_{\mathbf v}` on
    se(3)).

    .. math::
        (\mathbf v\times) = \begin{bmatrix}\mathbf S(\boldsymbol\omega) & 0\\
        \mathbf S(\boldsymbol v) & \mathbf S(\boldsymbol\omega)\end{bmatrix}

    Parameters
    ----------
    v : array_like, shape (..., 6)
        Twist :math:`[\boldsymbol\omega; \boldsymbol v]`.

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Raises
    ------
    DimensionError
        If the last dimension of ``v`` is not 6.

    References
    ----------
    Seed 001 §1.3.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import crm
    >>> v, w = np.arange(6.0), np.ones(6)
    >>> np.allclose(crm(v) @ w, -crm(w) @ v)
    True
    """
    return _crm(as_array(v, "v", (6,)))


def crf(v) -> np.ndarray:
    r"""Force cross product matrix :math:`(\mathbf v\times^*) = -(\mathbf v\times)^\top`.

    Parameters
    ----------
    v : array_like, shape (..., 6)
        Twist :math:`[\boldsymbol\omega; \boldsymbol v]`.

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Raises
    ------
    DimensionError
        If the last dimension of ``v`` is not 6.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import crm, crf
    >>> v = np.arange(6.0)
    >>> np.allclose(crf(v), -crm(v).T)
    True
    """
    return _crf(as_array(v, "v", (6,)))


def crbar(f) -> np.ndarray:
    r"""The operator :math:`(\mathbf f\,\bar\times^*)` with :math:`(\mathbf f\,\bar\times^*)\mathbf
    v = (\mathbf v\times^*)\mathbf f`.

    .. math::
        (\mathbf f\,\bar\times^*) = -\begin{bmatrix}
        \mathbf S(\boldsymbol n) & \mathbf S(\boldsymbol f)\\
        \mathbf S(\boldsymbol f) & 0\end{bmatrix}

    It is skew-symmetric.

    Parameters
    ----------
    f : array_like, shape (..., 6)
        Wrench :math:`[\boldsymbol n; \boldsymbol f]`.

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Raises
    ------
    DimensionError
        If the last dimension of ``f`` is not 6.

    References
    ----------
    Seed 000 §1.4, seed 001 §1.3 (the "cross-bar-star" operator).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import crbar, crf
    >>> rng = np.random.default_rng(0)
    >>> f, v = rng.normal(size=6), rng.normal(size=6)
    >>> np.allclose(crbar(f) @ v, crf(v) @ f)
    True
    """
    return _crbar(as_array(f, "f", (6,)))


def plucker(E, r) -> np.ndarray:
    r"""Plücker motion transform :math:`{}^B\mathbf X_A` from a rotation and a translation.

    .. math::
        {}^B\mathbf X_A = \begin{bmatrix}\mathbf E & 0\\
        -\mathbf E\,\mathbf S(\mathbf r) & \mathbf E\end{bmatrix}

    Parameters
    ----------
    E : array_like, shape (..., 3, 3)
        Rotation mapping coordinates in A to coordinates in B (Featherstone's E).
    r : array_like, shape (..., 3)
        Position of B's origin relative to A's origin, in A coordinates.

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Raises
    ------
    DimensionError
        On wrong trailing shapes.
    NotOnManifoldError
        If ``E`` is not a rotation (tolerance 1e-6).

    Examples
    --------
    A frame B translated by 1 along x from A: a pure rotation about z in A is seen in B as a
    rotation plus a velocity of B's origin.

    >>> import numpy as np
    >>> from geomech.spatial import plucker
    >>> X = plucker(np.eye(3), [1.0, 0.0, 0.0])
    >>> X @ np.array([0, 0, 1.0, 0, 0, 0])
    array([0., 0., 1., 0., 1., 0.])
    """
    E = check_rotation(as_array(E, "E", (3, 3)), "E")
    r = as_array(r, "r", (3,))
    return _plucker(E, r)


def _plucker(E: np.ndarray, r: np.ndarray) -> np.ndarray:
    E, r = np.broadcast_arrays(E, r[..., None, :])
    r = r[..., 0, :]
    return _blocks(E, np.zeros_like(E), -E @ _skew(r), E)


def plucker_from_pose(T) -> np.ndarray:
    r"""Motion transform :math:`{}^B\mathbf X_A` of a frame B whose pose in A is ``T``.

    ``T = [[R, p], [0, 1]]`` maps B coordinates to A coordinates (R: B → A, p: B's origin in
    A), so :math:`{}^B\mathbf X_A` = ``plucker(R.T, p)`` = :math:`\mathrm{Ad}_{T^{-1}}` in the
    angular-first ordering.

    Parameters
    ----------
    T : array_like, shape (..., 4, 4)
        Homogeneous transform of B in A.

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Raises
    ------
    DimensionError
        On a wrong trailing shape.
    NotOnManifoldError
        If the rotation block is not a rotation.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import plucker_from_pose, plucker
    >>> T = np.eye(4); T[:3, 3] = [1.0, 2.0, 3.0]
    >>> np.allclose(plucker_from_pose(T), plucker(np.eye(3), [1.0, 2.0, 3.0]))
    True
    """
    T = as_array(T, "T", (4, 4))
    R = check_rotation(T[..., :3, :3], "T[..., :3, :3]")
    return _plucker(np.swapaxes(R, -1, -2), T[..., :3, 3])


def plucker_inverse(X) -> np.ndarray:
    r"""Inverse of a Plücker motion transform, :math:`({}^B\mathbf X_A)^{-1} = {}^A\mathbf X_B`.

    Uses the block structure: with ``X = [[E, 0], [L, E]]`` the inverse is
    ``[[E.T, 0], [-E.T L E.T, E.T]]``.

    Parameters
    ----------
    X : array_like, shape (..., 6, 6)

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Raises
    ------
    DimensionError
        On a wrong trailing shape.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import plucker, plucker_inverse
    >>> X = plucker(np.eye(3), [1.0, 2.0, 3.0])
    >>> np.allclose(plucker_inverse(X) @ X, np.eye(6))
    True
    """
    X = as_array(X, "X", (6, 6))
    Et = np.swapaxes(X[..., :3, :3], -1, -2)
    return _blocks(Et, np.zeros_like(Et), -Et @ X[..., 3:, :3] @ Et, Et)


def transform_motion(X, m) -> np.ndarray:
    r"""Motion vector in the new frame, :math:`\mathbf X\mathbf m`.

    Parameters
    ----------
    X : array_like, shape (..., 6, 6)
        :math:`{}^B\mathbf X_A`.
    m : array_like, shape (..., 6)
        Motion vector in A coordinates.

    Returns
    -------
    ndarray, shape (..., 6)
        Motion vector in B coordinates.

    Raises
    ------
    DimensionError
        On wrong trailing shapes.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import plucker, transform_motion
    >>> transform_motion(plucker(np.eye(3), [1.0, 0, 0]), [0, 0, 1.0, 0, 0, 0])
    array([0., 0., 1., 0., 1., 0.])
    """
    X = as_array(X, "X", (6, 6))
    m = as_array(m, "m", (6,))
    return np.einsum("...ij,...j->...i", X, m)


def transform_force(X, f) -> np.ndarray:
    r"""Force vector in the new frame, :math:`\mathbf X^{-\top}\mathbf f`.

    With ``X = plucker(E, r)``:
    :math:`\mathbf X^{-\top} = \begin{bmatrix}\mathbf E & -\mathbf E\mathbf S(\mathbf r)\\
    0 & \mathbf E\end{bmatrix}`, so that power is invariant:
    :math:`(\mathbf X\mathbf m)^\top(\mathbf X^{-\top}\mathbf f) = \mathbf m^\top\mathbf f`.

    Parameters
    ----------
    X : array_like, shape (..., 6, 6)
        :math:`{}^B\mathbf X_A` (a motion transform).
    f : array_like, shape (..., 6)
        Force vector in A coordinates.

    Returns
    -------
    ndarray, shape (..., 6)
        Force vector in B coordinates.

    Raises
    ------
    DimensionError
        On wrong trailing shapes.

    Examples
    --------
    A unit force along y applied at A's origin has moment -1 about z at B = A + x:

    >>> import numpy as np
    >>> from geomech.spatial import plucker, transform_force
    >>> transform_force(plucker(np.eye(3), [1.0, 0, 0]), [0, 0, 0, 0, 1.0, 0])
    array([ 0.,  0., -1.,  0.,  1.,  0.])
    """
    Xinv = plucker_inverse(X)
    f = as_array(f, "f", (6,))
    return np.einsum("...ji,...j->...i", Xinv, f)


def transform_inertia(X, inertia) -> np.ndarray:
    r"""Spatial inertia in the new frame, :math:`{}^B\mathbf I = \mathbf X^{-\top}\,{}^A\mathbf
    I\,\mathbf X^{-1}`.

    Equivalently :math:`{}^A\mathbf I = \mathbf X^\top\,{}^B\mathbf I\,\mathbf X` (the congruence of
    seed 001 §1.3), which also applies to non-symmetric operators such as ``B`` matrices.

    Parameters
    ----------
    X : array_like, shape (..., 6, 6)
        :math:`{}^B\mathbf X_A`.
    inertia : array_like, shape (..., 6, 6)
        Operator from motion to force in A coordinates.

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Raises
    ------
    DimensionError
        On wrong trailing shapes.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import plucker, spatial_inertia, transform_inertia
    >>> I_A = spatial_inertia(2.0, [0, 0, 0], np.eye(3))
    >>> I_B = transform_inertia(plucker(np.eye(3), [1.0, 0, 0]), I_A)   # B = A + x
    >>> np.allclose(I_B, spatial_inertia(2.0, [-1.0, 0, 0], np.eye(3)))
    True
    """
    Xinv = plucker_inverse(X)
    inertia = as_array(inertia, "inertia", (6, 6))
    return np.swapaxes(Xinv, -1, -2) @ inertia @ Xinv


def spatial_inertia(mass, com, inertia_com) -> np.ndarray:
    r"""Spatial inertia about the frame origin from mass, centre of mass and rotational inertia.

    .. math::
        \mathbf I = \begin{bmatrix}
        \bar{\mathbf I}_C + m\mathbf S(\mathbf c)\mathbf S(\mathbf c)^\top & m\mathbf S(\mathbf c)\\
        m\mathbf S(\mathbf c)^\top & m\mathbf 1\end{bmatrix}

    Parameters
    ----------
    mass : float or array_like, shape (...)
    com : array_like, shape (..., 3)
        Centre of mass in the body frame.
    inertia_com : array_like, shape (..., 3, 3)
        Rotational inertia about the centre of mass, in body-frame axes.

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Raises
    ------
    DimensionError
        On wrong trailing shapes.
    NonFiniteError
        On NaN or inf.

    References
    ----------
    Seed 001 §1.3.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import spatial_inertia
    >>> spatial_inertia(1.0, [0, 0, 0], np.eye(3))[3:, 3:]
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])
    """
    m = as_array(mass, "mass")
    c = as_array(com, "com", (3,))
    Ic = as_array(inertia_com, "inertia_com", (3, 3))
    Sc = _skew(c)
    mm = m[..., None, None]
    eye = np.broadcast_to(np.eye(3), Sc.shape) * mm
    top_left = Ic + mm * Sc @ np.swapaxes(Sc, -1, -2)
    top_left, Sc_m, eye = np.broadcast_arrays(top_left, mm * Sc, eye)
    return _blocks(top_left, Sc_m, np.swapaxes(Sc_m, -1, -2), eye)


def inertia_parameters(inertia) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inverse of :func:`spatial_inertia`: ``(mass, com, inertia_com)``.

    Parameters
    ----------
    inertia : array_like, shape (..., 6, 6)

    Returns
    -------
    mass : ndarray, shape (...)
    com : ndarray, shape (..., 3)
    inertia_com : ndarray, shape (..., 3, 3)

    Raises
    ------
    InertiaError
        If the mass is not positive (the centre of mass is then undefined).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import spatial_inertia, inertia_parameters
    >>> m, c, Ic = inertia_parameters(spatial_inertia(2.0, [0.1, 0.2, 0.3], np.eye(3)))
    >>> float(m), c
    (2.0, array([0.1, 0.2, 0.3]))
    """
    inertia = as_array(inertia, "inertia", (6, 6))
    m = inertia[..., 5, 5]
    if np.any(m <= 0):
        raise InertiaError(f"Expected `inertia` to have a positive mass, got {np.min(m):.3g}.")
    h = np.stack([inertia[..., 2, 4], inertia[..., 0, 5], inertia[..., 1, 3]], -1)
    c = h / m[..., None]
    Sc = _skew(c)
    Ic = inertia[..., :3, :3] - m[..., None, None] * Sc @ np.swapaxes(Sc, -1, -2)
    return m, c, Ic


def pseudo_inertia(inertia) -> np.ndarray:
    r"""Pseudo-inertia matrix :math:`\mathbf J = \int [\mathbf x;1][\mathbf x;1]^\top \mathrm d m`
    of a spatial inertia.

    .. math::
        \mathbf J = \begin{bmatrix}
        \tfrac12\operatorname{tr}(\bar{\mathbf I}_O)\mathbf 1 - \bar{\mathbf I}_O & \mathbf h\\
        \mathbf h^\top & m\end{bmatrix},\qquad \mathbf h = m\mathbf c

    An inertia is physically consistent iff :math:`\mathbf J \succeq 0` (Wensing, Kim, Slotine
    2017).

    Parameters
    ----------
    inertia : array_like, shape (..., 6, 6)

    Returns
    -------
    ndarray, shape (..., 4, 4)

    Raises
    ------
    DimensionError
        On a wrong trailing shape.

    Examples
    --------
    A point mass of 2 kg at (1, 0, 0):

    >>> import numpy as np
    >>> from geomech.spatial import spatial_inertia, pseudo_inertia
    >>> pseudo_inertia(spatial_inertia(2.0, [1.0, 0, 0], np.zeros((3, 3))))
    array([[2., 0., 0., 2.],
           [0., 0., 0., 0.],
           [0., 0., 0., 0.],
           [2., 0., 0., 2.]])
    """
    inertia = as_array(inertia, "inertia", (6, 6))
    I_O = inertia[..., :3, :3]
    m = inertia[..., 5, 5]
    h = np.stack([inertia[..., 2, 4], inertia[..., 0, 5], inertia[..., 1, 3]], -1)
    Sigma = 0.5 * np.trace(I_O, axis1=-2, axis2=-1)[..., None, None] * np.eye(3) - I_O
    return _blocks(Sigma, h[..., :, None], h[..., None, :], m[..., None, None])


def inertia_from_pseudo(J) -> np.ndarray:
    r"""Inverse of :func:`pseudo_inertia`: :math:`\bar{\mathbf I}_O =
    \operatorname{tr}(\boldsymbol\Sigma)\mathbf 1 - \boldsymbol\Sigma`.

    Parameters
    ----------
    J : array_like, shape (..., 4, 4)

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Raises
    ------
    DimensionError
        On a wrong trailing shape.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import spatial_inertia, pseudo_inertia, inertia_from_pseudo
    >>> I = spatial_inertia(2.0, [0.1, 0.2, 0.3], np.diag([1.0, 2.0, 2.5]))
    >>> np.allclose(inertia_from_pseudo(pseudo_inertia(I)), I)
    True
    """
    J = as_array(J, "J", (4, 4))
    Sigma = J[..., :3, :3]
    I_O = np.trace(Sigma, axis1=-2, axis2=-1)[..., None, None] * np.eye(3) - Sigma
    h = J[..., :3, 3]
    m = J[..., 3, 3]
    Sh = _skew(h)
    eye = m[..., None, None] * np.eye(3)
    return _blocks(I_O, Sh, np.swapaxes(Sh, -1, -2), eye)


def _consistency_margin(inertia: np.ndarray) -> np.ndarray:
    """Smallest eigenvalue of the pseudo-inertia, relative to its largest."""
    eig = np.linalg.eigvalsh(pseudo_inertia(inertia))
    return eig[..., 0] / np.maximum(np.abs(eig[..., -1]), np.finfo(float).tiny)


def is_physically_consistent(inertia, tol: float = 1e-9) -> np.ndarray:
    r"""Whether a spatial inertia is physically consistent (:math:`\mathbf J\succeq 0`, relative
    ``tol``).

    This is stronger than positive semi-definiteness of the 6×6 matrix: it also enforces the
    triangle inequalities of the principal moments.

    Parameters
    ----------
    inertia : array_like, shape (..., 6, 6)
    tol : float
        Allowed negative eigenvalue of J relative to its largest one.

    Returns
    -------
    bool or ndarray of bool, shape (...)

    Raises
    ------
    DimensionError
        On a wrong trailing shape.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import spatial_inertia, is_physically_consistent
    >>> bool(is_physically_consistent(spatial_inertia(1.0, [0, 0, 0], np.diag([1.0, 1.0, 1.0]))))
    True
    >>> bool(is_physically_consistent(spatial_inertia(1.0, [0, 0, 0], np.diag([1.0, 1.0, 3.0]))))
    False
    """
    inertia = as_array(inertia, "inertia", (6, 6))
    sym = np.max(np.abs(inertia - np.swapaxes(inertia, -1, -2)), axis=(-1, -2))
    scale = np.maximum(np.max(np.abs(inertia), axis=(-1, -2)), 1.0)
    return (
        (_consistency_margin(inertia) >= -tol)
        & (sym <= MANIFOLD_TOL * scale)
        & (inertia[..., 5, 5] >= 0)
    )


def validate_inertia(inertia, name: str = "inertia", *, allow_massless: bool = False) -> np.ndarray:
    """Return ``inertia`` as an array, or raise if it is not a physical spatial inertia.

    Checks the shape, finiteness, symmetry, the spatial-inertia block structure
    (``inertia[3:, 3:] = m 1``), a positive mass (or an all-zero inertia when
    ``allow_massless``) and physical consistency (:func:`is_physically_consistent`).

    Parameters
    ----------
    inertia : array_like, shape (..., 6, 6)
    name : str
        Name used in error messages.
    allow_massless : bool
        Accept the zero inertia (a massless body).

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Raises
    ------
    DimensionError, NonFiniteError
        On a wrong shape or non-finite entries.
    InertiaError
        If the matrix is not symmetric, not of spatial-inertia form, has non-positive mass or
        is physically inconsistent.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import validate_inertia
    >>> validate_inertia(-np.eye(6), "I_body")
    Traceback (most recent call last):
        ...
    geomech.errors.InertiaError: Expected `I_body` to have positive mass, got -1.
    """
    from geomech._validation import check_symmetric

    inertia = as_array(inertia, name, (6, 6))
    check_symmetric(inertia, name)
    m = inertia[..., 5, 5]
    massless = np.all(inertia == 0, axis=(-1, -2))
    if allow_massless and np.all(massless):
        return inertia
    lower = inertia[..., 3:, 3:] - m[..., None, None] * np.eye(3)
    scale = max(1.0, float(np.max(np.abs(inertia))))
    if np.max(np.abs(lower)) > MANIFOLD_TOL * scale:
        raise InertiaError(
            f"Expected `{name}` to be a spatial inertia with lower-right block m*1, "
            f"got {np.round(inertia[..., 3:, 3:], 6).tolist()}."
        )
    bad_mass = (m <= 0) & ~(massless & allow_massless)
    if np.any(bad_mass):
        raise InertiaError(f"Expected `{name}` to have positive mass, got {np.min(m):.3g}.")
    ok = is_physically_consistent(inertia) | (massless & allow_massless)
    if not np.all(ok):
        margin = float(np.min(_consistency_margin(inertia)))
        raise InertiaError(
            f"Expected `{name}` to be physically consistent (pseudo-inertia J ⪰ 0), got "
            f"relative smallest eigenvalue of J {margin:.3g}."
        )
    return inertia


# ----------------------------------------------------------------------------------------
# inertial parameters <-> spatial inertia (the linear parametrisation of the regressor)
# ----------------------------------------------------------------------------------------
def _check_inertia_form(inertia: np.ndarray, name: str) -> None:
    """Raise InertiaError unless every matrix is [[I_O, S(h)], [S(h)^T, m 1]] with I_O symmetric."""
    scale = np.maximum(np.max(np.abs(inertia), axis=(-1, -2)), 1.0)
    sym = np.max(np.abs(inertia - np.swapaxes(inertia, -1, -2)), axis=(-1, -2))
    m = inertia[..., 5, 5]
    lower = np.max(np.abs(inertia[..., 3:, 3:] - m[..., None, None] * np.eye(3)), axis=(-1, -2))
    off = inertia[..., :3, 3:]
    skew_part = np.max(np.abs(off + np.swapaxes(off, -1, -2)), axis=(-1, -2))
    bad = np.maximum(np.maximum(sym, lower), skew_part) > MANIFOLD_TOL * scale
    if np.any(bad):
        k = np.unravel_index(int(np.argmax(bad)), bad.shape) if bad.ndim else ()
        raise InertiaError(
            f"Expected `{name}` to be of spatial-inertia form [[I_O, S(h)], [S(h)^T, m 1]] "
            f"(symmetric), got {np.round(inertia[k], 6).tolist()}"
            + (f" at batch index {tuple(int(i) for i in k)}." if k else ".")
        )


def dynamic_parameters(inertia) -> np.ndarray:
    r"""The ten inertial parameters :math:`\boldsymbol\pi` of a spatial inertia (Pinocchio's order).

    .. math::
        \mathbf I = \begin{bmatrix}\bar{\mathbf I}_O & \mathbf S(\mathbf h)\\
        \mathbf S(\mathbf h)^\top & m\mathbf 1\end{bmatrix}
        \;\mapsto\;
        \boldsymbol\pi = [m,\ h_x,\ h_y,\ h_z,\ I_{xx},\ I_{xy},\ I_{yy},\ I_{xz},\ I_{yz},
        \ I_{zz}]^\top

    with :math:`\mathbf h = m\mathbf c` the first mass moment and :math:`\bar{\mathbf I}_O`
    the rotational inertia about the body-frame origin (not the centre of mass). A spatial
    inertia is linear in :math:`\boldsymbol\pi`, so rigid-body dynamics is linear in it
    (the regressor form of seed 000 eq. 13); the order is Pinocchio's
    ``Inertia.toDynamicParameters``.

    Parameters
    ----------
    inertia : array_like, shape (..., 6, 6)
        Spatial inertia about the frame origin (angular-first, this module's convention).
        Only its form is checked (symmetric, lower-right block :math:`m\mathbf 1`, skew
        off-diagonal block); it need not be positive or physically consistent, so that
        parameter errors and estimates map too.

    Returns
    -------
    ndarray, shape (..., 10)

    Raises
    ------
    DimensionError, NonFiniteError
        On a wrong trailing shape or non-finite entries.
    InertiaError
        If a matrix is not of spatial-inertia form.

    References
    ----------
    seed 000 §IV-A1 (eq. 13, :math:`Y\hat{\boldsymbol\pi}`); Atkeson, An and Hollerbach
    (1986); Pinocchio ``Inertia::toDynamicParameters``.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import dynamic_parameters, spatial_inertia
    >>> dynamic_parameters(spatial_inertia(2.0, [0.0, 0.0, 0.5], np.diag([0.1, 0.2, 0.3])))
    array([2. , 0. , 0. , 1. , 0.6, 0. , 0.7, 0. , 0. , 0.3])
    """
    inertia = as_array(inertia, "inertia", (6, 6))
    _check_inertia_form(inertia, "inertia")
    I_O = 0.5 * (inertia[..., :3, :3] + np.swapaxes(inertia[..., :3, :3], -1, -2))
    h = np.stack([inertia[..., 2, 4], inertia[..., 0, 5], inertia[..., 1, 3]], -1)  # S(h) block
    return np.stack(
        [
            inertia[..., 5, 5],
            h[..., 0],
            h[..., 1],
            h[..., 2],
            I_O[..., 0, 0],
            I_O[..., 0, 1],
            I_O[..., 1, 1],
            I_O[..., 0, 2],
            I_O[..., 1, 2],
            I_O[..., 2, 2],
        ],
        -1,
    )


def _inertia_from_dynamic_parameters(pi: np.ndarray) -> np.ndarray:
    """Unvalidated :func:`inertia_from_dynamic_parameters`."""
    m, h = pi[..., 0], pi[..., 1:4]
    xx, xy, yy, xz, yz, zz = (pi[..., k] for k in range(4, 10))
    I_O = np.stack(
        [np.stack([xx, xy, xz], -1), np.stack([xy, yy, yz], -1), np.stack([xz, yz, zz], -1)], -2
    )
    Sh = _skew(h)
    return _blocks(I_O, Sh, np.swapaxes(Sh, -1, -2), m[..., None, None] * np.eye(3))


def inertia_from_dynamic_parameters(pi) -> np.ndarray:
    r"""Inverse of :func:`dynamic_parameters`: the spatial inertia of ten inertial parameters.

    .. math::
        \boldsymbol\pi = [m, \mathbf h, I_{xx}, I_{xy}, I_{yy}, I_{xz}, I_{yz}, I_{zz}]
        \;\mapsto\;
        \mathbf I(\boldsymbol\pi) = \begin{bmatrix}\bar{\mathbf I}_O & \mathbf S(\mathbf h)\\
        \mathbf S(\mathbf h)^\top & m\mathbf 1\end{bmatrix},
        \qquad \mathbf I(\boldsymbol\pi) = \textstyle\sum_k \pi_k\,\mathbf I(\mathbf e_k)

    The map is linear; any :math:`\boldsymbol\pi` is accepted (physical consistency is
    :func:`is_physically_consistent` of the result).

    Parameters
    ----------
    pi : array_like, shape (..., 10)
        Pinocchio's order (``Inertia.FromDynamicParameters``); rotational inertia about the
        frame origin.

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Raises
    ------
    DimensionError, NonFiniteError
        On a wrong trailing shape or non-finite entries.

    References
    ----------
    seed 000 §IV-A1 (eq. 13); Pinocchio ``Inertia::FromDynamicParameters``.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import inertia_from_dynamic_parameters, spatial_inertia
    >>> pi = [2.0, 0.0, 0.0, 1.0, 0.6, 0.0, 0.7, 0.0, 0.0, 0.3]
    >>> I = spatial_inertia(2.0, [0.0, 0.0, 0.5], np.diag([0.1, 0.2, 0.3]))
    >>> bool(np.allclose(inertia_from_dynamic_parameters(pi), I))
    True
    """
    return _inertia_from_dynamic_parameters(as_array(pi, "pi", (10,)))


# ----------------------------------------------------------------------------------------
# The tensor extension of spatial vector algebra (seed 002 §III, Table I)
# ----------------------------------------------------------------------------------------
# A spatial matrix U (..., 6, n) has one motion (or force) vector per column; a third-order
# tensor A (..., a, b, c) has "pages" A[..., :, :, k]. The cross-product operators of a
# spatial matrix stack the 6x6 operators of its columns as pages.


def _matrix(U, name: str) -> np.ndarray:
    U = as_array(U, name)
    if U.ndim < 2 or U.shape[-2] != 6:
        raise DimensionError(f"Expected `{name}` to have shape (..., 6, n), got {U.shape}.")
    return U


def _tensor(A, name: str) -> np.ndarray:
    A = as_array(A, name)
    if A.ndim < 3:
        raise DimensionError(
            f"Expected `{name}` to be a tensor of shape (..., a, b, c), got {A.shape}."
        )
    return A


def crm_tensor(U) -> np.ndarray:
    r"""Motion cross-product tensor :math:`\mathbf U\tilde\times` of a spatial motion matrix.

    .. math:: (\mathbf U\tilde\times)_{:,:,k} = (\mathbf u_k\times)

    (seed 002 §III), so that :math:`((\mathbf U\tilde\times)\mathbf V)_{:,j,k} = \mathbf u_k
    \times\mathbf v_j` (with :func:`tensor_matmul`).

    Parameters
    ----------
    U : array_like, shape (..., 6, n)
        Columns are motion vectors.

    Returns
    -------
    ndarray, shape (..., 6, 6, n)

    Raises
    ------
    DimensionError
        If ``U`` is not of shape (..., 6, n).

    References
    ----------
    Seed 002 §III (the ``\tilde\times`` operator), Table I.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import crm, crm_tensor
    >>> U = np.arange(12.0).reshape(6, 2)
    >>> bool(np.allclose(crm_tensor(U)[:, :, 1], crm(U[:, 1])))
    True
    """
    U = _matrix(U, "U")
    return np.moveaxis(_crm(np.swapaxes(U, -1, -2)), -3, -1)


def crf_tensor(U) -> np.ndarray:
    r"""Force cross-product tensor :math:`\mathbf U\tilde\times^*`: pages :math:`(\mathbf
    u_k\times^*)`.

    .. math:: (\mathbf U\tilde\times^*)_{:,:,k} = (\mathbf u_k\times^*)
              = -(\mathbf u_k\times)^\top,
              \qquad \mathbf U\tilde\times^* = -(\mathbf U\tilde\times)^{\tilde\top}\ \text{(M1)}

    Parameters
    ----------
    U : array_like, shape (..., 6, n)
        Columns are motion vectors.

    Returns
    -------
    ndarray, shape (..., 6, 6, n)

    Raises
    ------
    DimensionError
        If ``U`` is not of shape (..., 6, n).

    References
    ----------
    Seed 002 §III, Table I (M1).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import crf_tensor, crm_tensor, tensor_transpose
    >>> U = np.random.default_rng(0).normal(size=(6, 3))
    >>> bool(np.allclose(crf_tensor(U), -tensor_transpose(crm_tensor(U))))   # M1
    True
    """
    return -tensor_transpose(crm_tensor(U))


def crbar_tensor(F) -> np.ndarray:
    r"""The tensor :math:`\mathbf F\tilde{\bar\times}^*` of a spatial force matrix: pages
    :math:`(\mathbf f_k\bar\times^*)`.

    .. math:: (\mathbf F\tilde{\bar\times}^*)_{:,:,k} = (\mathbf f_k\bar\times^*),\qquad
              (\mathbf f\bar\times^*)\mathbf v = (\mathbf v\times^*)\mathbf f

    Parameters
    ----------
    F : array_like, shape (..., 6, n)
        Columns are force vectors.

    Returns
    -------
    ndarray, shape (..., 6, 6, n)

    Raises
    ------
    DimensionError
        If ``F`` is not of shape (..., 6, n).

    References
    ----------
    Seed 002 §III, Table I.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import crbar, crbar_tensor
    >>> F = np.arange(12.0).reshape(6, 2)
    >>> bool(np.allclose(crbar_tensor(F)[:, :, 0], crbar(F[:, 0])))
    True
    """
    F = _matrix(F, "F")
    return np.moveaxis(_crbar(np.swapaxes(F, -1, -2)), -3, -1)


def tensor_matmul(A, B) -> np.ndarray:
    r"""Tensor-matrix product :math:`\mathcal Z = \mathcal A\mathbf B` (seed 002 eq. 9), page by
    page.

    .. math:: \mathcal Z_{ijk} = \sum_\ell\mathcal A_{i\ell k}B_{\ell j}

    A vector ``B`` of shape (..., l) is a one-column matrix: the result has shape
    (..., a, 1, c).

    Parameters
    ----------
    A : array_like, shape (..., a, l, c)
    B : array_like, shape (..., l, b) or (..., l)

    Returns
    -------
    ndarray, shape (..., a, b, c)

    Raises
    ------
    DimensionError
        If the inner dimensions differ.

    References
    ----------
    Seed 002 eq. 9.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import crm, crm_tensor, tensor_matmul
    >>> rng = np.random.default_rng(0)
    >>> U, V = rng.normal(size=(6, 2)), rng.normal(size=(6, 3))
    >>> Z = tensor_matmul(crm_tensor(U), V)   # (U ×~) V: page k, column j is u_k × v_j
    >>> bool(np.allclose(Z[:, 2, 1], crm(U[:, 1]) @ V[:, 2]))
    True
    """
    A = _tensor(A, "A")
    B = as_array(B, "B")
    if B.ndim == 1:
        B = B[:, None]
    if B.shape[-2] != A.shape[-2]:
        raise DimensionError(
            f"Expected `B` to have {A.shape[-2]} rows (the second dimension of `A`), got "
            f"shape {B.shape}."
        )
    return np.einsum("...ilk,...lj->...ijk", A, B)


def matmul_tensor(B, A) -> np.ndarray:
    r"""Matrix-tensor product :math:`\mathcal Y = \mathbf B\mathcal A` (seed 002 eq. 10), page by
    page.

    .. math:: \mathcal Y_{ijk} = \sum_\ell B_{i\ell}\mathcal A_{\ell jk}

    Parameters
    ----------
    B : array_like, shape (..., m, a)
    A : array_like, shape (..., a, b, c)

    Returns
    -------
    ndarray, shape (..., m, b, c)

    Raises
    ------
    DimensionError
        If the inner dimensions differ.

    References
    ----------
    Seed 002 eq. 10.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import crf_tensor, matmul_tensor
    >>> rng = np.random.default_rng(0)
    >>> B, U = rng.normal(size=(2, 6)), rng.normal(size=(6, 3))
    >>> Y = matmul_tensor(B, crf_tensor(U))
    >>> Y.shape
    (2, 6, 3)
    """
    A = _tensor(A, "A")
    B = as_array(B, "B")
    if B.ndim < 2 or B.shape[-1] != A.shape[-3]:
        raise DimensionError(
            f"Expected `B` to have {A.shape[-3]} columns (the first dimension of `A`), got "
            f"shape {B.shape}."
        )
    return np.einsum("...il,...ljk->...ijk", B, A)


def tensor_transpose(A) -> np.ndarray:
    r"""Tensor transpose :math:`\mathcal A^{\tilde\top}`: each page transposed (dimensions 1-2).

    .. math:: (\mathcal A^{\tilde\top})_{ijk} = \mathcal A_{jik}

    Parameters
    ----------
    A : array_like, shape (..., a, b, c)

    Returns
    -------
    ndarray, shape (..., b, a, c)

    Raises
    ------
    DimensionError
        If ``A`` has fewer than three dimensions.

    References
    ----------
    Seed 002 §III (the tensor transpose).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import tensor_transpose
    >>> tensor_transpose(np.zeros((2, 3, 4))).shape
    (3, 2, 4)
    """
    return np.swapaxes(_tensor(A, "A"), -3, -2)


def tensor_rotate(A) -> np.ndarray:
    r"""Tensor rotation :math:`\mathcal A^{\tilde R}`: dimensions 2 and 3 exchanged.

    .. math:: (\mathcal A^{\tilde R})_{ijk} = \mathcal A_{ikj}

    It turns a second derivative :math:`\partial^2\tau/\partial x\partial y` (layout
    [τ, x, y]) into :math:`\partial^2\tau/\partial y\partial x` where these commute (seed
    002 eq. 19). :math:`\mathcal A^{\tilde R,\tilde\top}` is ``tensor_transpose(tensor_rotate(A))``.

    Parameters
    ----------
    A : array_like, shape (..., a, b, c)

    Returns
    -------
    ndarray, shape (..., a, c, b)

    Raises
    ------
    DimensionError
        If ``A`` has fewer than three dimensions.

    References
    ----------
    Seed 002 §III (the tensor rotation), eq. 19.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import tensor_rotate
    >>> A = np.arange(8.0).reshape(2, 2, 2)
    >>> float(tensor_rotate(A)[0, 1, 0]), float(A[0, 0, 1])
    (1.0, 1.0)
    """
    return np.swapaxes(_tensor(A, "A"), -2, -1)


def coriolis_tensor(inertia, U) -> np.ndarray:
    r"""The Coriolis-factor tensor :math:`\mathcal B(\mathbf I, \mathbf U)` (seed 002 eq. 15).

    .. math::
        \mathcal B(\mathbf I, \mathbf U) = \tfrac12\big[(\mathbf U\tilde\times^*)\mathbf I
        - \mathbf I(\mathbf U\tilde\times) + (\mathbf I\mathbf U)\tilde{\bar\times}^*\big]

    page :math:`p` is the body-level factor :math:`\mathbf B(\mathbf I, \mathbf u_p) =
    \tfrac12[(\mathbf u_p\times^*)\mathbf I - \mathbf I(\mathbf u_p\times) + (\mathbf I
    \mathbf u_p)\bar\times^*]` (eq. 6, halved as in the paper's App. B; Alg. 1 uses twice
    it). Linear in :math:`\mathbf I`, so composites add: :math:`\mathcal B^C_k[\mathbf U] =
    \mathcal B(\mathbf I^C_k, \mathbf U)`.

    Parameters
    ----------
    inertia : array_like, shape (..., 6, 6)
    U : array_like, shape (..., 6, n)
        Columns are motion vectors.

    Returns
    -------
    ndarray, shape (..., 6, 6, n)

    Raises
    ------
    DimensionError
        On wrong trailing shapes.

    References
    ----------
    Seed 002 eqs. 6, 15; seed 001 eq. 10 (the same body factor).

    Examples
    --------
    :math:`\mathcal B(\mathbf I, \mathbf U)` contracted with the velocity it was built from is
    the gyroscopic force, :math:`\mathbf B(\mathbf I, \mathbf v)\mathbf v = \mathbf v
    \times^*\mathbf I\mathbf v` (the middle term vanishes and the outer two agree).

    >>> import numpy as np
    >>> from geomech.spatial import coriolis_tensor, crf, spatial_inertia
    >>> I = spatial_inertia(2.0, [0.1, 0.0, 0.3], np.diag([0.1, 0.2, 0.3]))
    >>> v = np.array([0.3, -0.2, 0.5, 1.0, 0.0, -1.0])
    >>> B = coriolis_tensor(I, v[:, None])[:, :, 0]
    >>> bool(np.allclose(B @ v, crf(v) @ I @ v))
    True
    """
    inertia = as_array(inertia, "inertia", (6, 6))
    U = _matrix(U, "U")
    left = tensor_matmul(crf_tensor(U), inertia)  # (U ×~*) I, eq. 9
    right = matmul_tensor(inertia, crm_tensor(U))  # I (U ×~), eq. 10
    return 0.5 * (left - right + crbar_tensor(inertia @ U))
