r"""Explicit Runge–Kutta–Munthe-Kaas (RKMK) methods on a centred chart.

The state is :math:`(q, y)` with :math:`\dot q = X_i(q)\,\xi^i(t, q, y)` and
:math:`\dot y = F(t, q, y)` (for a rigid body :math:`\xi = v = y` and :math:`F` the forward
dynamics). An RKMK method writes :math:`q(t_n + \tau) = q_n \oplus \delta(\tau)` in the chart
centred at :math:`q_n` (:class:`~geomech.integration.CentredChart`) and integrates the chart
ODE :math:`\dot\delta = \rho(q_n, \delta, \xi)` with a classical explicit Runge–Kutta tableau,
so every stage and every step stays exactly on the manifold. On a Lie group
:math:`\rho = \operatorname{dexp}^{-1}_{-\delta}` may be truncated after ``order - 2``
commutators, which keeps the order of the tableau (Munthe-Kaas 1999):

.. math:: \operatorname{dexp}^{-1}_{-\Theta}(\xi) = \sum_k \frac{(-1)^k B_k}{k!}
          \operatorname{ad}_\Theta^k\xi = \xi + \tfrac12 [\Theta, \xi]
          + \tfrac1{12} [\Theta, [\Theta, \xi]] - \tfrac1{720} \operatorname{ad}_\Theta^4 \xi
          + \dots

The methods are named strategies (:data:`LIE_EULER`, :data:`RKMK2`, :data:`RKMK4`, or any
:class:`RKMK` built from a tableau); strings are aliases resolved by :func:`get_integrator`.

References
----------
H. Munthe-Kaas, "High order Runge-Kutta methods on manifolds", Appl. Numer. Math. 29 (1999);
E. Hairer, C. Lubich, G. Wanner, *Geometric Numerical Integration*, §IV.8.2; seed 003 §1.3
(kinematics ``ġ = g v̂``, "any Lie-group integrator").

Examples
--------
>>> import numpy as np
>>> from geomech.lie import SO3
>>> from geomech.integration import RKMK4, group_chart
>>> field = lambda t, R, w: (w, np.zeros_like(w))  # constant body rate: R(t) = exp(t ω̂)
>>> R, w = np.eye(3), np.array([0.0, 0.0, 1.0])
>>> for k in range(10):
...     R, w = RKMK4.step(group_chart(SO3), field, 0.1 * k, R, w, 0.1)
>>> bool(np.allclose(R, SO3.exp([0.0, 0.0, 1.0]), atol=1e-14))
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from math import factorial

import numpy as np

from geomech.errors import SimulationError

__all__ = ["RKMK", "LIE_EULER", "RKMK2", "RKMK4", "INTEGRATORS", "get_integrator", "dexpinv_series"]

#: Coefficients ``c_k`` of ``dexp⁻¹_{-Θ} = Σ_k c_k ad_Θ^k``: ``(-1)^k B_k / k!`` (Bernoulli B_k).
_BERNOULLI = (1.0, -0.5, 1.0 / 6.0, 0.0, -1.0 / 30.0, 0.0, 1.0 / 42.0)
_DEXPINV = tuple((-1) ** k * B / factorial(k) for k, B in enumerate(_BERNOULLI))

#: Highest classical order for which the series above keeps the order (``order - 2`` terms).
MAX_ORDER = len(_DEXPINV) + 1


def dexpinv_series(s, Theta, xi, order: int = 4) -> np.ndarray:
    r"""The commutator series of :math:`\operatorname{dexp}^{-1}_{-\Theta}\xi`, truncated for order
    ``p``.

    .. math:: \sum_{k=0}^{p-2} \frac{(-1)^k B_k}{k!}\,\operatorname{ad}_\Theta^k \xi, \qquad
              (\operatorname{ad}_\Theta \xi)^k = s^k_{ij}\,\Theta^i \xi^j,

    which an RKMK method of classical order :math:`p` may use in place of the exact
    :math:`J_r(\Theta)^{-1}\xi` without losing its order (Munthe-Kaas 1999, Thm. 2). With
    ``order=4`` it is :math:`\xi + \tfrac12[\Theta,\xi] + \tfrac1{12}[\Theta,[\Theta,\xi]]`.

    Parameters
    ----------
    s : ndarray, shape (..., n, n, n)
        Structure constants ``s[..., i, j, k]`` :math:`= s^k_{ij}` (upper index last).
    Theta : ndarray, shape (..., n)
    xi : ndarray, shape (..., n)
    order : int, optional
        Classical order ``p`` to keep (``1 ≤ p ≤ 8``); ``p - 2`` commutators are kept.

    Returns
    -------
    ndarray, shape (..., n)

    References
    ----------
    Munthe-Kaas (1999), eq. (2.4) and Thm. 2; Hairer, Lubich, Wanner, Lemma III.4.2.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> from geomech.integration import dexpinv_series
    >>> Theta, xi = np.array([0.0, 0.0, 0.1]), np.array([1.0, 0.0, 0.0])
    >>> exact = np.linalg.inv(SO3.right_jacobian(Theta)) @ xi
    >>> series = dexpinv_series(SO3.structure_constants(), Theta, xi, 8)
    >>> bool(np.allclose(series, exact, atol=1e-12))
    True
    """
    out = term = xi
    for k in range(1, int(order) - 1):
        term = np.einsum("...ijk,...i,...j->...k", s, Theta, term)  # [Θ, term]
        if _DEXPINV[k] != 0.0:
            out = out + _DEXPINV[k] * term
    return out


def _lincomb(coefficients, terms):
    """``Σ_j c_j terms[j]``, skipping zero coefficients (the tableaux are sparse)."""
    out = None
    for c, x in zip(coefficients, terms, strict=True):
        if c != 0.0:
            out = c * x if out is None else out + c * x  # shapes may broadcast
    return 0.0 * terms[0] if out is None else out


def _finite(x) -> bool:
    """Whether every entry is finite: one reduction (its sum), the full test if that overflows."""
    return math.isfinite(np.add.reduce(x, axis=None)) or bool(np.isfinite(x).all())


@dataclass(frozen=True)
class RKMK:
    r"""An explicit Runge–Kutta–Munthe-Kaas method given by a Butcher tableau.

    Stage ``i`` (``i = 1..s``) evaluates the vector field at

    .. math:: \Theta_i = h \sum_{j<i} a_{ij} K_j, \quad q_i = q_n \oplus \Theta_i, \quad
              y_i = y_n + h \sum_{j<i} a_{ij} F_j, \quad
              K_i = \rho\big(q_n, \Theta_i, \xi(t_n + c_i h, q_i, y_i)\big),

    then :math:`q_{n+1} = q_n \oplus h \sum_i b_i K_i` and
    :math:`y_{n+1} = y_n + h \sum_i b_i F_i`, with :math:`\rho` the chart rate
    (:math:`\operatorname{dexp}^{-1}_{-\Theta}` on a Lie group, truncated by
    :func:`dexpinv_series` when the chart has constant structure constants).

    Parameters
    ----------
    name : str
        Name of the method.
    A : tuple of tuple of float
        Strictly lower-triangular Runge–Kutta matrix ``a_ij`` (``s × s``).
    b : tuple of float
        Weights (length ``s``).
    c : tuple of float
        Nodes (length ``s``); ``c[0] = 0`` (explicit).
    order : int
        Classical order ``p`` of the tableau (``1 ≤ p ≤ 8``).

    Raises
    ------
    SimulationError
        If the tableau is not explicit, its sizes disagree or the order is out of range.

    References
    ----------
    Munthe-Kaas (1999), Alg. 1; Hairer, Lubich, Wanner, *Geometric Numerical Integration*,
    §IV.8.2.

    Examples
    --------
    >>> from geomech.integration import RKMK4
    >>> RKMK4.name, RKMK4.order, len(RKMK4.b)
    ('rkmk4', 4, 4)
    """

    name: str
    A: tuple[tuple[float, ...], ...]
    b: tuple[float, ...]
    c: tuple[float, ...]
    order: int

    def __post_init__(self):
        s = len(self.b)
        if len(self.c) != s or len(self.A) != s or any(len(row) != s for row in self.A):
            raise SimulationError(f"Expected a tableau with A ({s}×{s}), b ({s}) and c ({s}).")
        if any(self.A[i][j] != 0.0 for i in range(s) for j in range(i, s)) or self.c[0] != 0.0:
            raise SimulationError(
                "Expected an explicit tableau (A strictly lower triangular, c[0] = 0)."
            )
        if (
            isinstance(self.order, bool)
            or not isinstance(self.order, (int, np.integer))
            or not 1 <= self.order <= MAX_ORDER
        ):
            raise SimulationError(
                f"Expected `order` to be an integer between 1 and {MAX_ORDER}, got {self.order!r}."
            )

    def __repr__(self) -> str:
        return f"RKMK({self.name!r}, order={self.order}, stages={len(self.b)})"

    def increment(
        self,
        chart,
        field: Callable,
        t: float,
        q_c,
        y,
        h: float,
        delta0=None,
        k1=None,
        exact: bool = False,
    ):
        r"""One Runge–Kutta step of the chart ODE in the chart centred at ``q_c``.

        Integrates :math:`\dot\delta = \rho(q_c, \delta, \xi)`, :math:`\dot y = F` from
        :math:`(\delta_0, y)` over ``h`` without re-centring (``delta0 = None`` means
        :math:`\delta_0 = 0`, the RKMK step). Used by :meth:`step` and by the step-doubling
        error estimate of :func:`~geomech.integration.integrate_fixed`.

        Parameters
        ----------
        chart : CentredChart
        field : callable
            ``field(t, q, y) -> (xi, y_dot[, aux])``.
        t : float
        q_c : ndarray, shape (..., *chart.point_shape)
            The chart centre.
        y : ndarray, shape (..., m)
        h : float
        delta0 : ndarray, shape (..., chart.dim), optional
            Chart coordinates at ``t`` (default zero: ``q = q_c``).
        k1 : tuple, optional
            ``field(t, q_c ⊕ δ0, y)`` if already evaluated (its first stage is then reused).
        exact : bool, optional
            Use the exact chart rate even where the commutator series is available.

        Returns
        -------
        delta : ndarray, shape (..., chart.dim)
            Chart coordinates at ``t + h``.
        y_next : ndarray, shape (..., m)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE2
        >>> from geomech.integration import RKMK4, group_chart
        >>> field = lambda t, g, v: (v, np.zeros_like(v))
        >>> v0 = np.array([1.0, 0.0, 0.0])
        >>> RKMK4.increment(group_chart(SE2), field, 0.0, np.eye(3), v0, 0.5)[0]
        array([0.5, 0. , 0. ])
        """
        series = None if exact else chart.structure_constants
        K, F = [], []  # stage slopes of δ and of y
        for i, c_i in enumerate(self.c):
            # ---- stage i (Munthe-Kaas 1999, Alg. 1) --------------------------------------------
            if i == 0:
                Theta, y_i = delta0, y  # Θ_1 = δ_0
            else:
                Theta = h * _lincomb(self.A[i][:i], K)  # Θ_i = δ_0 + h Σ_j a_ij K_j
                if delta0 is not None:
                    Theta = delta0 + Theta
                y_i = y + h * _lincomb(self.A[i][:i], F)  # y_i = y_n + h Σ_j a_ij F_j
                if not (_finite(Theta) and _finite(y_i)):
                    # a stage blew up: no evaluation there (it would fail on its own validation);
                    # the caller sees a non-finite step and reports the divergence
                    nan = np.full(np.broadcast_shapes(np.shape(Theta), np.shape(K[0])), np.nan)
                    return nan, np.full(np.shape(y), np.nan)
            if i == 0 and k1 is not None:
                xi, y_dot = k1[0], k1[1]
            else:
                q_i = q_c if Theta is None else chart.retract(q_c, Theta)  # q_i = q_c ⊕ Θ_i
                xi, y_dot = field(t + c_i * h, q_i, y_i)[:2]
            if Theta is None:
                K.append(xi)  # dexp⁻¹_0 = I
            elif series is not None:  # group: the truncated commutator series keeps the order
                K.append(dexpinv_series(series, Theta, xi, self.order))
            else:
                K.append(chart.rate(q_c, Theta, xi))  # K_i = ρ(q_c, Θ_i, ξ_i)
            F.append(y_dot)
        # ---- update: δ = δ_0 + h Σ b_i K_i, y_{n+1} = y_n + h Σ b_i F_i
        # ---------------------------
        delta = h * _lincomb(self.b, K)
        return (delta if delta0 is None else delta0 + delta), y + h * _lincomb(self.b, F)

    def step(self, chart, field: Callable, t: float, q, y, h: float, k1=None):
        """Advance ``(q, y)`` by one RKMK step of size ``h`` (no input validation: a hot path).

        Parameters
        ----------
        chart : CentredChart
            The chart of the configuration manifold (e.g. :func:`group_chart`).
        field : callable
            ``field(t, q, y) -> (xi, y_dot[, aux])`` with ``xi`` of shape
            ``(..., chart.dim)`` and ``y_dot`` shaped like ``y``.
        t : float
            Current time.
        q : ndarray, shape (..., *chart.point_shape)
            Current configuration(s).
        y : ndarray, shape (..., m)
            Current vector state.
        h : float
            Step size.
        k1 : tuple, optional
            ``field(t, q, y)`` if already evaluated (reused as the first stage).

        Returns
        -------
        q_next : ndarray, shape (..., *chart.point_shape)
        y_next : ndarray, shape (..., m)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE2
        >>> from geomech.integration import LIE_EULER, group_chart
        >>> field = lambda t, g, v: (v, np.zeros_like(v))
        >>> v0 = np.array([0.0, 1.0, 0.0])
        >>> g1, v1 = LIE_EULER.step(group_chart(SE2), field, 0.0, np.eye(3), v0, 0.5)
        >>> g1[:2, 2]
        array([0.5, 0. ])
        """
        delta, y_next = self.increment(chart, field, t, q, y, h, k1=k1)
        return chart.retract(q, delta), y_next  # q_{n+1} = q_n ⊕ h Σ b_i K_i


#: Lie–Euler: ``q_{n+1} = q_n ⊕ h ξ_n``, ``y_{n+1} = y_n + h F_n`` (order 1).
LIE_EULER = RKMK("lie_euler", A=((0.0,),), b=(1.0,), c=(0.0,), order=1)

#: RKMK with the explicit midpoint tableau (order 2).
RKMK2 = RKMK("rkmk2", A=((0.0, 0.0), (0.5, 0.0)), b=(0.0, 1.0), c=(0.0, 0.5), order=2)

#: RKMK with the classical fourth-order Runge–Kutta tableau (order 4).
RKMK4 = RKMK(
    "rkmk4",
    A=((0.0, 0.0, 0.0, 0.0), (0.5, 0.0, 0.0, 0.0), (0.0, 0.5, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0)),
    b=(1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0),
    c=(0.0, 0.5, 0.5, 1.0),
    order=4,
)

#: Registry of the named methods (aliases included).
INTEGRATORS = {"lie_euler": LIE_EULER, "rkmk2": RKMK2, "midpoint": RKMK2, "rkmk4": RKMK4}


def get_integrator(method) -> RKMK:
    """Resolve a method name (or pass through an :class:`RKMK` instance).

    Parameters
    ----------
    method : str or RKMK
        ``"rkmk4"``, ``"rkmk2"`` (alias ``"midpoint"``), ``"lie_euler"``, or an
        :class:`RKMK`.

    Returns
    -------
    RKMK

    Raises
    ------
    SimulationError
        For an unknown name or another type.

    Examples
    --------
    >>> from geomech.integration import get_integrator
    >>> get_integrator("midpoint")
    RKMK('rkmk2', order=2, stages=2)
    """
    if isinstance(method, RKMK):
        return method
    if isinstance(method, str) and method.lower() in INTEGRATORS:
        return INTEGRATORS[method.lower()]
    raise SimulationError(
        f"Expected `method` to be one of {sorted(INTEGRATORS)} or an RKMK instance, got {method!r}."
    )
