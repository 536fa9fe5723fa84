r"""Lie-group integrators: explicit Runge–Kutta–Munthe-Kaas (RKMK) methods.

The state is ``(g, y) ∈ G × R^n`` with the left-trivialised vector field

.. math:: \dot g = g\, \hat\xi(t, g, y), \qquad \dot y = F(t, g, y)

(for a rigid body ``ξ = v`` and ``y = v``, ``F`` the forward dynamics). An RKMK method writes
``g(t_n + τ) = g_n exp(Θ(τ))`` and integrates the ODE ``Θ̇ = dexp⁻¹_{-Θ}(ξ)`` on the Lie algebra
(a vector space) with a classical Runge–Kutta tableau, so every stage and every step stays
exactly on the group (up to the rounding of ``exp`` and of the matrix product). The inverse of
the right Jacobian is truncated after ``order - 2`` commutators, which keeps the order of the
tableau (Munthe-Kaas 1999):

.. math:: \operatorname{dexp}^{-1}_{-\Theta}(\xi) = \xi + \tfrac12 [\Theta, \xi]
          + \tfrac1{12} [\Theta, [\Theta, \xi]] - \tfrac1{720} \operatorname{ad}_\Theta^4 \xi
          + \dots

The methods are named strategies (:data:`LIE_EULER`, :data:`RKMK2`, :data:`RKMK4`, or any
:class:`RKMK` built from a tableau); strings are aliases resolved by :func:`get_integrator`.

References
----------
H. Munthe-Kaas, "High order Runge-Kutta methods on manifolds", Appl. Numer. Math. 29 (1999);
seed 003 §1.3 (kinematics ``ġ = g v̂``, "any Lie-group integrator").

Examples
--------
>>> import numpy as np
>>> from geomech.lie import SO3
>>> from geomech.rigidbody.integrators import RKMK4, integrate
>>> field = lambda t, R, w: (w, np.zeros_like(w))  # constant body rate: R(t) = exp(t ω̂)
>>> t, R, w = integrate(SO3, field, np.eye(3), [0.0, 0.0, 1.0], 0.0, np.pi / 2, 10)
>>> np.round(R[-1], 12) + 0.0
array([[ 0., -1.,  0.],
       [ 1.,  0.,  0.],
       [ 0.,  0.,  1.]])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import factorial

import numpy as np

from geomech._validation import as_array
from geomech.errors import NonFiniteError
from geomech.lie import LieGroup

__all__ = ["RKMK", "LIE_EULER", "RKMK2", "RKMK4", "INTEGRATORS", "get_integrator", "integrate"]

#: Coefficients ``c_k`` of ``dexp⁻¹_{-Θ} = Σ_k c_k ad_Θ^k``: ``(-1)^k B_k / k!``.
_BERNOULLI = (1.0, -0.5, 1.0 / 6.0, 0.0, -1.0 / 30.0, 0.0, 1.0 / 42.0)
_DEXPINV = tuple((-1) ** k * B / factorial(k) for k, B in enumerate(_BERNOULLI))


@dataclass(frozen=True)
class RKMK:
    r"""An explicit Runge–Kutta–Munthe-Kaas method given by a Butcher tableau.

    Stage ``i`` (``i = 1..s``) evaluates the vector field at

    .. math:: \Theta_i = h \sum_{j<i} a_{ij} K_j, \quad g_i = g_n \exp(\Theta_i), \quad
              y_i = y_n + h \sum_{j<i} a_{ij} F_j, \quad
              K_i = \operatorname{dexp}^{-1}_{-\Theta_i}\big(\xi(t_n + c_i h, g_i, y_i)\big),

    then ``g_{n+1} = g_n exp(h Σ b_i K_i)`` and ``y_{n+1} = y_n + h Σ b_i F_i``.

    Parameters
    ----------
    name : str
        Name of the method.
    A : tuple of tuple of float
        Strictly lower-triangular Runge–Kutta matrix ``a_ij`` (``s × s``).
    b : tuple of float
        Weights (length ``s``).
    c : tuple of float
        Nodes (length ``s``).
    order : int
        Classical order ``p`` of the tableau; ``dexp⁻¹`` keeps ``p - 2`` commutators.

    Raises
    ------
    ValueError
        If the tableau is not explicit or its sizes disagree.

    References
    ----------
    Munthe-Kaas (1999), Alg. 1; Hairer, Lubich, Wanner, *Geometric Numerical Integration*,
    §IV.8.2.

    Examples
    --------
    >>> from geomech.rigidbody.integrators import RKMK4
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
            raise ValueError(f"Expected a tableau with A ({s}×{s}), b ({s}) and c ({s}).")
        if any(self.A[i][j] != 0.0 for i in range(s) for j in range(i, s)):
            raise ValueError("Expected an explicit tableau (A strictly lower triangular).")
        if not 1 <= int(self.order) <= len(_DEXPINV) + 1:
            raise ValueError(f"Expected `order` between 1 and {len(_DEXPINV) + 1}, got {self.order}.")

    def __repr__(self) -> str:
        return f"RKMK({self.name!r}, order={self.order}, stages={len(self.b)})"

    def _dexpinv(self, s: np.ndarray, Theta: np.ndarray, xi: np.ndarray) -> np.ndarray:
        # dexp^{-1}_{-Theta}(xi) = sum_{k <= order-2} c_k ad_Theta^k xi  (truncated, Munthe-Kaas)
        out = xi
        term = xi
        for k in range(1, self.order - 1):
            term = np.einsum("...i,...j,ijk->...k", Theta, term, s)  # [Theta, term]
            if _DEXPINV[k] != 0.0:
                out = out + _DEXPINV[k] * term
        return out

    def step(self, group: LieGroup, field: Callable, t: float, g: np.ndarray, y: np.ndarray, h: float):
        """Advance ``(g, y)`` by one step of size ``h`` (no input validation: a hot path).

        Parameters
        ----------
        group : LieGroup
            The group ``G``.
        field : callable
            ``field(t, g, y) -> (xi, y_dot)`` with ``xi`` of shape ``(..., group.dim)`` and
            ``y_dot`` shaped like ``y``.
        t : float
            Current time.
        g : ndarray, shape (..., *group.point_shape)
            Current group element(s).
        y : ndarray, shape (..., n)
            Current vector state.
        h : float
            Step size.

        Returns
        -------
        g_next : ndarray, shape (..., *group.point_shape)
        y_next : ndarray, shape (..., n)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE2
        >>> from geomech.rigidbody.integrators import LIE_EULER
        >>> field = lambda t, g, v: (v, np.zeros_like(v))
        >>> g1, v1 = LIE_EULER.step(SE2, field, 0.0, np.eye(3), np.array([0.0, 1.0, 0.0]), 0.5)
        >>> g1[:2, 2]
        array([0.5, 0. ])
        """
        s = group._structure_constants
        K, F = [], []  # stage slopes on the Lie algebra and on R^n
        for i, c_i in enumerate(self.c):
            # ---- stage i (Munthe-Kaas 1999, Alg. 1) --------------------------------------
            if i == 0:
                Theta, g_i, y_i = None, g, y  # Theta_1 = 0: no exp, dexp^{-1}_0 = I
            else:
                Theta = h * _lincomb(self.A[i][:i], K)  # Theta_i = h sum_j a_ij K_j
                y_i = y + h * _lincomb(self.A[i][:i], F)  # y_i = y_n + h sum_j a_ij F_j
                g_i = group._compose(g, group._exp(Theta))  # g_i = g_n exp(Theta_i)
            xi, y_dot = field(t + c_i * h, g_i, y_i)
            K.append(xi if Theta is None else self._dexpinv(s, Theta, xi))  # K_i = dexp^{-1}(xi_i)
            F.append(y_dot)
        # ---- update: g_{n+1} = g_n exp(h sum_i b_i K_i), y_{n+1} = y_n + h sum_i b_i F_i -------
        g_next = group._compose(g, group._exp(h * _lincomb(self.b, K)))
        return g_next, y + h * _lincomb(self.b, F)


def _lincomb(coefficients, terms):
    """``Σ_j c_j terms[j]``, skipping zero coefficients (the tableaux are sparse)."""
    return sum((c * x for c, x in zip(coefficients, terms, strict=True) if c != 0.0), 0.0 * terms[0])


#: Lie–Euler: ``g_{n+1} = g_n exp(h ξ_n)``, ``y_{n+1} = y_n + h F_n`` (order 1).
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
    ValueError
        For an unknown name or another type.

    Examples
    --------
    >>> from geomech.rigidbody.integrators import get_integrator
    >>> get_integrator("midpoint")
    RKMK('rkmk2', order=2, stages=2)
    """
    if isinstance(method, RKMK):
        return method
    if isinstance(method, str) and method.lower() in INTEGRATORS:
        return INTEGRATORS[method.lower()]
    raise ValueError(
        f"Expected `method` to be one of {sorted(INTEGRATORS)} or an RKMK instance, got {method!r}."
    )


def integrate(group: LieGroup, field: Callable, g0, y0, t0: float, t_final: float, n_steps: int, method="rkmk4"):
    """Integrate ``ġ = g ξ̂(t, g, y)``, ``ẏ = F(t, g, y)`` with ``n_steps`` equal steps.

    Batched initial conditions are integrated together (one vectorised step for the batch).

    Parameters
    ----------
    group : LieGroup
        The group ``G``.
    field : callable
        ``field(t, g, y) -> (xi, y_dot)``; it receives arrays with the batch dimensions of
        ``g0``/``y0`` and must return ``xi`` of shape ``(..., group.dim)``.
    g0 : array_like, shape (..., *group.point_shape)
        Initial group element(s), validated with ``group.validate``.
    y0 : array_like, shape (..., n)
        Initial vector state(s).
    t0, t_final : float
        Time interval.
    n_steps : int
        Number of steps (``≥ 1``); the step is ``(t_final - t0) / n_steps``.
    method : str or RKMK, optional
        Integrator (see :func:`get_integrator`); default ``"rkmk4"``.

    Returns
    -------
    t : ndarray, shape (n_steps + 1,)
    g : ndarray, shape (n_steps + 1, ..., *group.point_shape)
    y : ndarray, shape (n_steps + 1, ..., n)

    Raises
    ------
    TypeError
        If ``group`` is not a :class:`~geomech.lie.LieGroup`.
    DimensionError, NonFiniteError, NotOnManifoldError
        If ``g0`` is not on the group or ``y0`` is not a finite array.
    ValueError
        For an unknown method, ``n_steps < 1`` or a non-finite time interval.
    NonFiniteError
        If the numerical solution becomes non-finite (the step is too large).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE2
    >>> from geomech.rigidbody.integrators import integrate
    >>> field = lambda t, g, v: (v, np.zeros_like(v))  # a planar body at constant twist
    >>> t, g, v = integrate(SE2, field, np.eye(3), [1.0, 1.0, 0.0], 0.0, 1.0, 20)
    >>> bool(np.allclose(g[-1], SE2.exp([1.0, 1.0, 0.0])))
    True
    """
    if not isinstance(group, LieGroup):
        raise TypeError(f"Expected `group` to be a geomech.lie.LieGroup, got {type(group).__name__}.")
    integrator = get_integrator(method)
    g = group.validate(g0, "g0")
    y = as_array(y0, "y0", ())
    if isinstance(n_steps, bool) or not isinstance(n_steps, (int, np.integer)) or n_steps < 1:
        raise ValueError(f"Expected `n_steps` to be a positive integer, got {n_steps!r}.")
    t0, t_final = float(t0), float(t_final)
    if not (np.isfinite(t0) and np.isfinite(t_final)):
        raise ValueError(f"Expected a finite time interval, got [{t0}, {t_final}].")
    h = (t_final - t0) / n_steps
    t = t0 + h * np.arange(n_steps + 1)
    t[-1] = t_final
    gs = np.empty((n_steps + 1,) + g.shape)
    ys = np.empty((n_steps + 1,) + y.shape)
    gs[0], ys[0] = g, y
    for k in range(n_steps):
        g, y = integrator.step(group, field, t[k], g, y, h)
        gs[k + 1], ys[k + 1] = g, y
    finite = np.all(np.isfinite(gs.reshape(n_steps + 1, -1)), axis=-1) & np.all(
        np.isfinite(ys.reshape(n_steps + 1, -1)), axis=-1
    )
    if not np.all(finite):
        k = int(np.argmin(finite))
        raise NonFiniteError(
            f"The integration diverged: non-finite state at t = {t[k]:.6g} (step {k} of "
            f"{n_steps}, h = {h:.3g}); reduce the step or use a higher-order method."
        )
    return t, gs, ys
