r"""Finite-difference stencils along a frame's flow (the geometry layer's numerical derivatives).

Numerical derivatives of the induced connections and closed chains (the Jacobian of an
embedding, :math:`\mathscr L_{\bar X_k} A` when :math:`\dot A` is not supplied, the constraint
Jacobian and Hessian of a closed chain when not supplied) use the five-point central stencil
along the frame's flow,

.. math::
    f'(0) \approx \frac{-f(2h) + 8 f(h) - 8 f(-h) + f(-2h)}{12 h},
    \qquad h = \epsilon^{1/5} \max(1, \max|q|) \approx 7.4\cdot 10^{-4},

whose truncation error :math:`h^4 |f^{(5)}| / 30` and rounding error
:math:`\approx 1.5\, \epsilon |f| / h` are both about :math:`10^{-13}` relative for smooth
functions of order one (nested twice, e.g. :math:`\mathscr L A` of a numerical Jacobian,
about :math:`10^{-10}`).

The frame's chart, :func:`frame_log`, inverts the flow :math:`q = \mathrm{flow}(q_0, \psi, 1)`
for coordinate and invariant frames (and frames with a ``log`` method).

References
----------
B. Fornberg, "Generation of finite difference formulas on arbitrarily spaced grids", Math.
Comp. 51 (1988) (the five-point central stencil).

Examples
--------
>>> import numpy as np
>>> from geomech.geometry.stencils import fd_jacobian
>>> np.round(fd_jacobian(lambda q: q ** 3, np.array([1.0, 2.0])), 10)
array([[ 3.,  0.],
       [ 0., 12.]])
"""

from __future__ import annotations

import numpy as np

from geomech.errors import DimensionError
from geomech.geometry.frames import CoordinateFrame, LeftInvariantFrame, RightInvariantFrame

__all__ = [
    "EPS_FIFTH",
    "stencil_step",
    "lie_derivative5",
    "fd_jacobian",
    "frame_log",
    "has_frame_log",
]

#: Base of the five-point-stencil step ``h = EPS_FIFTH * max(1, max|q|)``.
EPS_FIFTH = float(np.finfo(float).eps ** (1.0 / 5.0))


def stencil_step(q: np.ndarray, step=None) -> float:
    r"""The step :math:`h = \epsilon^{1/5}\max(1, \max|q|)` of the five-point stencil (or ``step``).

    Parameters
    ----------
    q : ndarray
        The point (its largest entry sets the scale).
    step : float, optional
        A given step, returned as it is.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.stencils import EPS_FIFTH, stencil_step
    >>> stencil_step(np.array([0.5, -3.0])) == 3.0 * EPS_FIFTH, stencil_step(np.zeros(2), 1e-3)
    (True, 0.001)
    """
    if step is not None:
        return float(step)
    return EPS_FIFTH * max(1.0, float(np.max(np.abs(q), initial=0.0)))


def lie_derivative5(frame, f, q: np.ndarray, step=None) -> np.ndarray:
    r"""Derivatives :math:`(\mathscr L_{X_k} f)(q)` along every frame field, five-point stencil.

    .. math:: \mathscr L_{X_k} f \approx \frac{-f(\Phi_{2h}) + 8 f(\Phi_h) - 8 f(\Phi_{-h})
              + f(\Phi_{-2h})}{12 h}, \qquad \Phi_t = \mathrm{flow}(q, e_k, t)

    Parameters
    ----------
    frame : Frame
        Any object with ``dim``, ``point_shape`` and ``flow(q, w, t)``.
    f : callable
        Batched function ``q -> (..., *out)``.
    q : ndarray, shape (*batch, *point_shape)
        Validated point(s).
    step : float, optional
        Default :func:`stencil_step`.

    Returns
    -------
    ndarray, shape (*batch, dim, *out)
        ``[..., k, ...]`` is the derivative along :math:`X_k`.

    Raises
    ------
    DimensionError
        If ``f`` does not keep the batch shape of its input.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import CoordinateFrame
    >>> from geomech.geometry.stencils import lie_derivative5
    >>> f = lambda q: q[..., 0] * q[..., 1]
    >>> np.round(lie_derivative5(CoordinateFrame(2), f, np.array([2.0, 3.0])), 10)
    array([3., 2.])
    """
    ps = tuple(frame.point_shape)
    batch = q.shape[: q.ndim - len(ps)]
    m = frame.dim
    h = stencil_step(q, step)
    E = np.eye(m).reshape((1, m) + (1,) * len(batch) + (m,))
    t = np.array([2.0 * h, h, -h, -2.0 * h]).reshape((4, 1) + (1,) * len(batch))
    q_shift = frame.flow(q[None, None], E, t)  # (4, m, *batch, *ps)
    fq = np.asarray(f(q_shift))
    if fq.shape[: 2 + len(batch)] != (4, m) + batch:
        raise DimensionError(
            f"Expected a function keeping the batch shape {(4, m) + batch} of its input, "
            f"got output shape {fq.shape}."
        )
    df = (-fq[0] + 8.0 * fq[1] - 8.0 * fq[2] + fq[3]) / (12.0 * h)  # (m, *batch, *out)
    return np.moveaxis(df, 0, len(batch))


def frame_log(frame, q0: np.ndarray, q: np.ndarray) -> np.ndarray:
    r"""Frame components :math:`\psi` with ``flow(q0, psi, 1) = q`` (the inverse of the flow chart).

    :math:`q - q_0` for a coordinate frame, :math:`\log(q_0^{-1} q)` for a left-invariant
    frame, :math:`\log(q q_0^{-1})` for a right-invariant one, else the frame's own ``log``.

    Parameters
    ----------
    frame : Frame
    q0, q : ndarray, shape (..., *point_shape)

    Returns
    -------
    ndarray, shape (..., dim)

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import LeftInvariantFrame
    >>> from geomech.geometry.stencils import frame_log
    >>> from geomech.lie import SO3
    >>> np.round(frame_log(LeftInvariantFrame(SO3), np.eye(3), SO3.exp([0.0, 0.0, 0.3])), 12)
    array([0. , 0. , 0.3])
    """
    if isinstance(frame, CoordinateFrame):
        return q - q0
    if isinstance(frame, RightInvariantFrame):  # flow = exp(psi) q0
        g = frame.group
        return g.log(g.compose(q, g.inverse(q0)))
    if isinstance(frame, LeftInvariantFrame):  # flow = q0 exp(psi)
        g = frame.group
        return g.log(g.compose(g.inverse(q0), q))
    return np.asarray(frame.log(q0, q), dtype=float)


def has_frame_log(frame) -> bool:
    """Whether :func:`frame_log` can invert the frame's flow.

    Parameters
    ----------
    frame : Frame

    Returns
    -------
    bool

    Examples
    --------
    >>> from geomech.geometry import CoordinateFrame
    >>> from geomech.geometry.stencils import has_frame_log
    >>> has_frame_log(CoordinateFrame(2))
    True
    """
    return isinstance(frame, (CoordinateFrame, LeftInvariantFrame)) or callable(
        getattr(frame, "log", None)
    )


def fd_jacobian(fun, q: np.ndarray, step=None) -> np.ndarray:
    r"""Jacobian of ``fun`` on :math:`\mathbb R^n` by the five-point stencil.

    Parameters
    ----------
    fun : callable
        Batched ``q -> (..., *out)``.
    q : ndarray, shape (..., n)
    step : float, optional
        Default :func:`stencil_step`.

    Returns
    -------
    ndarray, shape (..., *out, n)

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.stencils import fd_jacobian
    >>> np.round(fd_jacobian(lambda q: np.sin(q), np.zeros(2)), 10)
    array([[1., 0.],
           [0., 1.]])
    """
    n = q.shape[-1]
    d = lie_derivative5(CoordinateFrame(n), fun, q, step)  # (..., n, *out)
    return np.moveaxis(d, q.ndim - 1, -1)
