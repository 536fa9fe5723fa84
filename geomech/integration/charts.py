r"""Centred charts: a configuration :math:`q_c` plus local coordinates :math:`\delta`.

Every integrator of geomech steps a state :math:`(q, y)`, with :math:`q` on a manifold and
:math:`y` in a vector space, in a chart *centred* at a point :math:`q_c` that is moved along
the way. The chart is a retraction and its rate,

.. math:: q = q_c \oplus \delta, \qquad \dot\delta = \rho(q_c, \delta, \xi)
          \quad\text{whenever}\quad \dot q = X_i(q)\,\xi^i,

where :math:`\xi` are the frame components of the velocity (a body velocity on a Lie group).
On a group, :math:`q_c \oplus \delta = q_c \exp(\hat\delta)` and
:math:`\rho = J_r(\delta)^{-1}\xi = \operatorname{dexp}^{-1}_{-\delta}\xi`
(Munthe-Kaas 1999); on :math:`\mathbb R^n`, :math:`q_c + \delta` and :math:`\rho = \xi`; for
any frame, the flow of the frozen field :math:`\delta^i X_i` for unit time and the frame's own
chart rate. Configurations are only ever produced by the retraction, so they stay on their
manifold whatever the step.

References
----------
H. Munthe-Kaas, "High order Runge-Kutta methods on manifolds", Appl. Numer. Math. 29 (1999);
E. Hairer, C. Lubich, G. Wanner, *Geometric Numerical Integration*, 2nd ed., §IV.8.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from geomech.lie import Euclidean, LieGroup

__all__ = ["CentredChart", "group_chart", "frame_chart", "vector_chart"]


@dataclass(frozen=True)
class CentredChart:
    r"""A chart :math:`q = q_c \oplus \delta` around a movable centre :math:`q_c`.

    Attributes
    ----------
    dim : int
        Number of chart coordinates (and of velocity components :math:`\xi`).
    point_shape : tuple of int
        Shape of one configuration (``(3, 3)`` on SO(3), ``(nq,)`` for a flat vector).
    retract : callable
        ``retract(q_c, delta) -> q``: :math:`q_c \oplus \delta`, batched, shape
        ``(..., *point_shape)``.
    rate : callable
        ``rate(q_c, delta, xi) -> delta_dot`` (shape ``(..., dim)``): the exact chart rate.
    curved : ndarray of bool, shape (dim,), or None
        Coordinates in which the chart is not flat; an adaptive integrator re-centres the
        chart before they grow large (``None``: a flat chart, never re-centred).
    structure_constants : ndarray, shape (dim, dim, dim), or None
        Constant structure constants ``s[i, j, k]`` :math:`= s^k_{ij}` of a left-invariant
        frame (on a Lie group). When given, an RKMK method uses the commutator series
        truncated to its order instead of :attr:`rate` (cheaper; Munthe-Kaas 1999).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> from geomech.integration import group_chart
    >>> chart = group_chart(SO3)
    >>> chart.dim, chart.point_shape
    (3, (3, 3))
    >>> xi = np.array([0.0, 0.0, 0.5])
    >>> bool(np.allclose(chart.retract(np.eye(3), xi), SO3.exp(xi)))
    True
    """

    dim: int
    point_shape: tuple
    retract: Callable
    rate: Callable
    curved: np.ndarray | None = None
    structure_constants: np.ndarray | None = None


def group_chart(group: LieGroup) -> CentredChart:
    r"""The exponential chart :math:`q = q_c \exp(\hat\delta)` of a Lie group.

    .. math:: \dot\delta = J_r(\delta)^{-1}\xi = \operatorname{dexp}^{-1}_{-\delta}\xi
              = \xi + \tfrac12[\delta, \xi] + \tfrac1{12}[\delta, [\delta, \xi]] + \dots

    for :math:`\dot q = q\hat\xi` (left-trivialised velocity). On ``Euclidean(n)`` the chart
    is flat: :math:`q_c + \delta`, :math:`\dot\delta = \xi`.

    Parameters
    ----------
    group : LieGroup

    Returns
    -------
    CentredChart

    References
    ----------
    Munthe-Kaas (1999), eq. (2.4); seed 003 eq. (29) (:math:`S(\varphi) = J_r(\varphi)`).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE2
    >>> from geomech.integration import group_chart
    >>> group_chart(SE2).rate(np.eye(3), np.zeros(3), [1.0, 2.0, 3.0])  # J_r(0) = I
    array([1., 2., 3.])
    """
    G = group
    flat = isinstance(G, Euclidean)

    def retract(q_c, delta):  # q = q_c exp(δ̂)
        return G._compose(q_c, G._exp(delta))

    def rate(q_c, delta, xi):  # δ̇ = J_r(δ)⁻¹ ξ = J_l(−δ)⁻¹ ξ
        xi = np.asarray(xi, dtype=float)
        if flat:
            return np.broadcast_to(xi, np.broadcast_shapes(np.shape(delta), xi.shape)).copy()
        return np.einsum(
            "...ij,...j->...i", G._left_jacobian_inverse(-np.asarray(delta, dtype=float)), xi
        )

    return CentredChart(
        dim=G.dim,
        point_shape=tuple(G.point_shape),
        retract=retract,
        rate=rate,
        curved=None if flat else np.ones(G.dim, dtype=bool),
        structure_constants=None if flat else np.asarray(G._structure_constants),
    )


def frame_chart(frame, curved=None) -> CentredChart:
    r"""The chart of a frame: :math:`q = \mathrm{flow}(q_c, \delta, 1)`, rate ``chart_velocity``.

    Parameters
    ----------
    frame : Frame
        Any object with ``dim``, ``point_shape``, ``flow(q, w, t)`` (the flow of the frozen
        field :math:`w^i X_i`) and ``chart_velocity(q0, phi, v)`` (the rate of
        :math:`\phi` along a curve :math:`q = \mathrm{flow}(q_0, \phi, 1)` with
        :math:`\dot q = X_i v^i`), e.g. a :class:`geomech.geometry.Frame`.
    curved : array_like of bool, shape (dim,), optional
        The non-flat coordinates (default: all).

    Returns
    -------
    CentredChart

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import CoordinateFrame
    >>> from geomech.integration import frame_chart
    >>> chart = frame_chart(CoordinateFrame(2))
    >>> chart.retract(np.array([1.0, 2.0]), np.array([0.5, 0.5]))
    array([1.5, 2.5])
    """
    shape = tuple(frame.point_shape)

    def retract(q_c, delta):  # the flow of the frozen field δ^i X_i from q_c for unit time
        lead = np.broadcast_shapes(q_c.shape[: q_c.ndim - len(shape)], delta.shape[:-1])
        return frame.flow(
            np.broadcast_to(q_c, lead + shape), np.broadcast_to(delta, lead + delta.shape[-1:]), 1.0
        )

    def rate(q_c, delta, xi):
        return frame.chart_velocity(q_c, delta, xi)

    curved = np.ones(frame.dim, dtype=bool) if curved is None else np.asarray(curved, dtype=bool)
    return CentredChart(
        dim=frame.dim,
        point_shape=shape,
        retract=retract,
        rate=rate,
        curved=curved if curved.any() else None,
    )


def vector_chart(n: int) -> CentredChart:
    r"""The flat chart of :math:`\mathbb R^n`: :math:`q = q_c + \delta`, :math:`\dot\delta = \xi`.

    With ``n = 0`` the configuration is empty: the state is the vector ``y`` alone (a plain
    ODE, e.g. parallel transport along a given curve).

    Parameters
    ----------
    n : int

    Returns
    -------
    CentredChart

    Examples
    --------
    >>> from geomech.integration import vector_chart
    >>> vector_chart(0).point_shape
    (0,)
    """

    def retract(q_c, delta):
        return q_c + delta

    def rate(q_c, delta, xi):
        return np.broadcast_to(xi, np.broadcast_shapes(np.shape(delta), np.shape(xi))).astype(float)

    return CentredChart(dim=int(n), point_shape=(int(n),), retract=retract, rate=rate)
