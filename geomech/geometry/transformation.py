r"""The transformation law of Coriolis matrices (seed 000 eq. 17, Remark 8), on arrays.

A constrained system with speeds :math:`v = A \bar v` (eq. 15) inherits the metric
:math:`\bar H = A^\top H A` and the Coriolis matrix

.. math:: \bar C = A^\top C A + A^\top H \dot A

(eq. 17): :func:`transform_coriolis`. The task-space inertia and Coriolis matrix of a
Jacobian :math:`J` (Remark 8) are :func:`task_space_coriolis`. The connection behind them is
:class:`~geomech.geometry.InducedConnection`.

References
----------
seed 000 §V (eqs. 15-17, Thm. V.1), Remark 8.

Examples
--------
>>> import numpy as np
>>> from geomech.geometry.transformation import transform_coriolis
>>> H_bar, C_bar = transform_coriolis(
...     np.eye(2), np.zeros((2, 2)), np.ones((2, 1)), np.zeros((2, 1))
... )
>>> H_bar, C_bar
(array([[2.]]), array([[0.]]))
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array, as_matrix, check_full_column_rank, check_spd
from geomech.errors import DimensionError

__all__ = ["transform_coriolis", "task_space_coriolis"]


def _square_matrix(x, name: str) -> np.ndarray:
    """``x`` as a (..., n, n) array, or DimensionError naming ``name``."""
    x = as_matrix(x, name)
    if x.shape[-2] != x.shape[-1]:
        raise DimensionError(f"Expected `{name}` to have shape (..., n, n), got {x.shape}.")
    return x


def _check_batches(**arrays: np.ndarray) -> None:
    """DimensionError unless the leading (batch) dimensions of the matrices broadcast."""
    try:
        np.broadcast_shapes(*(a.shape[:-2] for a in arrays.values()))
    except ValueError as exc:
        names = ", ".join(f"`{k}`" for k in arrays)
        shapes = ", ".join(str(a.shape) for a in arrays.values())
        raise DimensionError(
            f"Expected the leading (batch) dimensions of {names} to broadcast, got {shapes}."
        ) from exc


def transform_coriolis(H, C, A, A_dot):
    r"""Induced mass and Coriolis matrices under :math:`v = A \bar v` (seed 000 eq. 17).

    .. math::
        \bar H = A^\top H A, \qquad \bar C = A^\top C A + A^\top H \dot A

    Parameters
    ----------
    H : array_like, shape (..., n, n)
        Mass matrix on :math:`\mathcal Q` (symmetric positive definite).
    C : array_like, shape (..., n, n)
        Coriolis matrix on :math:`\mathcal Q` at :math:`(q, v = A\bar v)`.
    A : array_like, shape (..., n, m)
        Velocity map, full column rank ``m <= n``.
    A_dot : array_like, shape (..., n, m)
        Its time derivative along the motion, :math:`\dot A = \mathscr L_{\bar X_k} A\,
        \bar v^k`.

    Returns
    -------
    H_bar : ndarray, shape (..., m, m)
    C_bar : ndarray, shape (..., m, m)
        Leading dimensions are broadcast.

    Raises
    ------
    DimensionError
        If ``H`` is not square, ``C`` is not the size of ``H``, ``A`` does not have ``n``
        rows, ``A_dot`` is not the shape of ``A`` or the leading dimensions do not broadcast.
    InertiaError
        If ``H`` is not symmetric positive definite.
    SingularityError
        If ``A`` is rank deficient (the message gives its smallest singular value).
    NonFiniteError
        If an input has NaN or inf entries.

    References
    ----------
    seed 000 Thm. V.1, eq. (17); Props. V.1-V.3; Remark 7 (change of coordinates).

    Examples
    --------
    Polar coordinates :math:`(r, \theta)` of a unit point mass in the plane, :math:`C = 0`:
    the transformation law gives the polar Christoffel matrix
    :math:`[[0, -r\dot\theta], [r\dot\theta, r\dot r]]`.

    >>> import numpy as np
    >>> from geomech.geometry import transform_coriolis
    >>> r, th, r_dot, th_dot = 2.0, 0.0, 1.0, 0.5
    >>> A = np.array([[np.cos(th), -r * np.sin(th)], [np.sin(th), r * np.cos(th)]])
    >>> A_dot = np.array([[-np.sin(th) * th_dot, -r_dot * np.sin(th) - r * np.cos(th) * th_dot],
    ...                   [np.cos(th) * th_dot, r_dot * np.cos(th) - r * np.sin(th) * th_dot]])
    >>> H_bar, C_bar = transform_coriolis(np.eye(2), np.zeros((2, 2)), A, A_dot)
    >>> H_bar
    array([[1., 0.],
           [0., 4.]])
    >>> C_bar
    array([[ 0., -1.],
           [ 1.,  2.]])
    """
    H = _square_matrix(H, "H")
    n = H.shape[-1]
    C = as_array(C, "C", (n, n))
    A = as_matrix(A, "A")
    if A.shape[-2] != n:
        raise DimensionError(
            f"Expected `A` to have n = {n} rows (v = A v_bar, with `H` of size {n}), "
            f"got shape {A.shape}."
        )
    m = A.shape[-1]
    A_dot = as_array(A_dot, "A_dot", (n, m))
    _check_batches(C=C, H=H, A=A, A_dot=A_dot)
    check_spd(H, "H")
    check_full_column_rank(A, "A")
    At = np.swapaxes(A, -1, -2)
    H_bar = At @ H @ A
    H_bar = 0.5 * (H_bar + np.swapaxes(H_bar, -1, -2))
    C_bar = At @ C @ A + At @ H @ A_dot  # seed 000 eq. (17)
    return H_bar, C_bar


def task_space_coriolis(H, C, J, J_dot):
    r"""Task-space inertia :math:`\varLambda` and Coriolis matrix :math:`C_{\rm task}` (Remark 8).

    With the dynamically consistent inverse :math:`A = H^{-1} J^\top \varLambda`,
    :math:`\varLambda = (J H^{-1} J^\top)^{-1}`, the transformation law (17) gives

    .. math::
        \varLambda = A^\top H A, \qquad
        C_{\rm task} = A^\top C A + A^\top H \dot A
                     = \varLambda (J H^{-1} C - \dot J) A ,

    where :math:`A^\top H \dot A = \varLambda J \dot A = -\varLambda \dot J A` follows from
    differentiating :math:`J A = \mathbf 1` (so :math:`\dot H` is not needed). If
    :math:`\dot H - 2C` is skew-symmetric, so is :math:`\dot\varLambda - 2 C_{\rm task}`.
    For a square invertible ``J`` this is the classical
    :math:`J^{-\top} C J^{-1} - \varLambda \dot J J^{-1}`.

    Parameters
    ----------
    H : array_like, shape (..., n, n)
        Joint-space mass matrix (symmetric positive definite).
    C : array_like, shape (..., n, n)
        Joint-space Coriolis matrix at :math:`(q, v)`.
    J : array_like, shape (..., k, n)
        Task Jacobian, full row rank ``k <= n`` (redundant tasks allowed).
    J_dot : array_like, shape (..., k, n)
        Its time derivative along the motion.

    Returns
    -------
    Lambda : ndarray, shape (..., k, k)
        Task-space inertia.
    C_task : ndarray, shape (..., k, k)
        Task-space Coriolis matrix.

    Raises
    ------
    DimensionError
        If the shapes do not match (``C`` and ``H`` ``n×n``, ``J`` and ``J_dot`` ``k×n``).
    InertiaError
        If ``H`` is not symmetric positive definite.
    SingularityError
        If ``J`` does not have full row rank (the message gives its smallest singular value).

    References
    ----------
    seed 000 Remark 8; J. Englsberger et al., MPTC (2020), eq. (11).

    Examples
    --------
    A unit point mass in the plane seen through the polar map: the task coordinates are
    :math:`x = (r\cos\theta, r\sin\theta)` of generalized coordinates :math:`(r, \theta)`
    with :math:`H = \mathrm{diag}(1, r^2)`. The task space is Cartesian, where
    :math:`\varLambda = \mathbf 1` and :math:`C_{\rm task} = 0`:

    >>> import numpy as np
    >>> from geomech.geometry import task_space_coriolis
    >>> r, th, r_dot, th_dot = 2.0, 0.0, 1.0, 0.5
    >>> H = np.diag([1.0, r**2])
    >>> C = np.array([[0.0, -r * th_dot], [r * th_dot, r * r_dot]])
    >>> J = np.array([[np.cos(th), -r * np.sin(th)], [np.sin(th), r * np.cos(th)]])
    >>> J_dot = np.array([[-np.sin(th) * th_dot, -r_dot * np.sin(th) - r * np.cos(th) * th_dot],
    ...                   [np.cos(th) * th_dot, r_dot * np.cos(th) - r * np.sin(th) * th_dot]])
    >>> Lambda, C_task = task_space_coriolis(H, C, J, J_dot)
    >>> np.round(Lambda, 12) + 0.0
    array([[1., 0.],
           [0., 1.]])
    >>> np.round(C_task, 12) + 0.0
    array([[0., 0.],
           [0., 0.]])
    """
    H = _square_matrix(H, "H")
    n = H.shape[-1]
    C = as_array(C, "C", (n, n))
    J = as_matrix(J, "J")
    if J.shape[-1] != n:
        raise DimensionError(
            f"Expected `J` to have n = {n} columns (one per generalized speed), got shape "
            f"{J.shape}."
        )
    k = J.shape[-2]
    J_dot = as_array(J_dot, "J_dot", (k, n))
    _check_batches(H=H, C=C, J=J, J_dot=J_dot)
    check_spd(H, "H")
    check_full_column_rank(np.swapaxes(J, -1, -2), "J", kind="row")
    Hinv_Jt = np.linalg.solve(H, np.swapaxes(J, -1, -2))  # H^-1 J^T, (..., n, k)
    Lambda = np.linalg.inv(J @ Hinv_Jt)  # seed 000 Remark 8
    Lambda = 0.5 * (Lambda + np.swapaxes(Lambda, -1, -2))
    A = Hinv_Jt @ Lambda  # dynamically consistent inverse
    # A^T C A + A^T H A_dot, with A^T H = Lambda J and J A_dot = -J_dot A
    C_task = np.swapaxes(A, -1, -2) @ C @ A - Lambda @ J_dot @ A
    return Lambda, C_task
