r"""The rigid-body equations in local coordinates, and seed 003's formulas written in a chart.

With a chart ``x ↦ g(x)`` and ``v = S(x) ẋ``, the Lagrangian ``L̄(x, ẋ) = ½ ẋᵀ Sᵀ M S ẋ - U``
(eq. 17/25) gives the classical Lagrange equations

.. math:: \bar M(x)\, \ddot x + \bar C(x, \dot x)\, \dot x + \partial U/\partial x = Q,
          \qquad \bar M = S^\top M S, \qquad
          \bar C = S^\top C(S\dot x)\, S + S^\top M \dot S

(``C̄`` is the induced factorization of seed 000 eq. 17 with ``A = S``; ``Q = Sᵀ τ`` for a body
wrench τ, eq. 24). ``M̄`` is singular wherever ``S`` is, e.g. at pitch ``±π/2`` in ZYX Euler
angles, while the quasi-velocity form ``M v̇ + C(v) v + n = τ`` of
:class:`~geomech.rigidbody.body.RigidBody` is not. The Boltzmann–Hamel coefficients (46) and
the Coriolis matrix (54) are evaluated in any chart; they are the same constant arrays at every
regular point (the Maurer–Cartan structure equation; seed 003 §1.5).

The functions take the package's argument names for a system in coordinates: ``q`` the chart
coordinates (seed 003's ``x``), ``v = q̇``, ``a = q̈`` and ``tau`` the generalized force
(seed 003's ``Q``), except :func:`chart_coriolis_matrix`, whose ``v`` is the body velocity
``S(q) q̇`` of the quasi-velocity form.

Examples
--------
>>> import numpy as np
>>> from geomech.lie import SO3
>>> from geomech.rigidbody import RigidBody
>>> from geomech.rigidbody.charts import EulerZYX
>>> from geomech.rigidbody.local import local_mass_matrix
>>> body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
>>> Mbar = local_mass_matrix(body, EulerZYX(SO3), [0.0, np.pi / 2, 0.0])
>>> bool(abs(np.linalg.det(Mbar)) < 1e-12)  # gimbal lock
True
"""

from __future__ import annotations

import numpy as np

from geomech.errors import DTypeError
from geomech.rigidbody.body import RigidBody
from geomech.rigidbody.charts import SINGULAR_TOL, Chart

__all__ = [
    "local_mass_matrix",
    "local_coriolis_matrix",
    "local_gravity_forces",
    "local_inverse_dynamics",
    "local_forward_dynamics",
    "boltzmann_hamel_coefficients",
    "chart_coriolis_matrix",
]


def _check(body, chart) -> None:
    if not isinstance(body, RigidBody):
        raise DTypeError(f"Expected `body` to be a RigidBody, got {type(body).__name__}.")
    if not isinstance(chart, Chart):
        raise DTypeError(
            f"Expected `chart` to be a geomech.rigidbody.charts.Chart, got {type(chart).__name__}."
        )
    if chart.group is not body.group and chart.group != body.group:
        raise DTypeError(f"The chart is on {chart.group.name} but the body on {body.group.name}.")


def local_mass_matrix(body: RigidBody, chart: Chart, q) -> np.ndarray:
    r"""Mass matrix of the Lagrangian in chart coordinates, ``M̄(x) = S(x)ᵀ M S(x)``.

    .. math:: \bar M(x) = S(x)^\top M\, S(x)

    Parameters
    ----------
    body : RigidBody
        The body (inertia ``M``).
    chart : Chart
        A chart of ``body.group``.
    q : array_like, shape (..., dim)
        Chart coordinates.

    Returns
    -------
    ndarray, shape (..., dim, dim)
        ``M̄`` (singular on the chart's singular set).

    Raises
    ------
    TypeError
        If ``body``/``chart`` have the wrong type or live on different groups.
    DimensionError, NonFiniteError
        On malformed ``x``.

    References
    ----------
    seed 003 eqs. (17), (25).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.rigidbody.charts import EulerZYX
    >>> from geomech.rigidbody.local import local_mass_matrix
    >>> body = RigidBody(SO3, np.eye(3))
    >>> np.round(local_mass_matrix(body, EulerZYX(SO3), [0.0, 0.0, 0.0]), 12) + 0.0
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])
    """
    _check(body, chart)
    S = chart._S(chart._x(q, "q"))
    return np.swapaxes(S, -1, -2) @ body.inertia @ S


def _S_dot(chart: Chart, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    # S_dot = sum_m dS/dx_m x_dot_m   (seed 003 eq. 41)
    return np.einsum("...ijm,...m->...ij", chart._dS(q), v)


def local_coriolis_matrix(body: RigidBody, chart: Chart, q, v) -> np.ndarray:
    r"""Coriolis matrix of the chart coordinates induced by the body's ``C(v) = ad~_{Mv}``.

    .. math:: \bar C(x, \dot x) = S^\top C(S\dot x)\, S + S^\top M \dot S

    It is a valid factorization of the Lagrange equations in ``x`` (``C̄ ẋ`` is their
    Coriolis/centrifugal force) and ``d/dt M̄ - 2 C̄`` is skew-symmetric.

    Parameters
    ----------
    body : RigidBody
        The body.
    chart : Chart
        A chart of ``body.group``.
    q, v : array_like, shape (..., dim)
        Chart coordinates and their rates ``q̇``.

    Returns
    -------
    ndarray, shape (..., dim, dim)

    Raises
    ------
    TypeError
        If ``body``/``chart`` have the wrong type or live on different groups.
    DimensionError, NonFiniteError
        On malformed inputs.

    References
    ----------
    seed 000 eq. (17) (induced factorization, ``A = S``); seed 003 eqs. (19)-(23).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE2
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.rigidbody.charts import PlanarChart
    >>> from geomech.rigidbody.local import local_coriolis_matrix
    >>> body = RigidBody(SE2, np.diag([0.7, 3.0, 3.0]))
    >>> v = np.array([0.8, 0.5, -0.3])
    >>> Cbar = local_coriolis_matrix(body, PlanarChart(SE2), [0.9, 0.2, 0.1], v)
    >>> np.round(Cbar, 12) + 0.0  # skew, and not zero although M̄ = diag(0.7, 3, 3) is constant
    array([[ 0. , -0.9, -1.5],
           [ 0.9,  0. ,  2.4],
           [ 1.5, -2.4,  0. ]])
    >>> np.round(Cbar @ v, 12) + 0.0  # but its Coriolis force vanishes
    array([0., 0., 0.])
    """
    _check(body, chart)
    q = chart._x(q, "q")
    v = chart._x(v, "v")
    S = chart._S(q)
    St = np.swapaxes(S, -1, -2)
    w = np.einsum("...ij,...j->...i", S, v)  # the body velocity S q_dot
    return St @ body._coriolis_matrix(w) @ S + St @ body.inertia @ _S_dot(chart, q, v)


def local_gravity_forces(body: RigidBody, chart: Chart, q) -> np.ndarray:
    """Gradient of the potential in chart coordinates, ``∂U/∂x = S(x)ᵀ n(g(x))``.

    Parameters
    ----------
    body : RigidBody
        The body.
    chart : Chart
        A chart of ``body.group``.
    q : array_like, shape (..., dim)
        Coordinates.

    Returns
    -------
    ndarray, shape (..., dim)

    Raises
    ------
    TypeError
        If ``body``/``chart`` have the wrong type or live on different groups.
    DimensionError, NonFiniteError
        On malformed ``x``.

    References
    ----------
    seed 003 §1.2 (``n = S^{-T} ∂U/∂x``).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE3
    >>> from geomech.spatial import spatial_inertia
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.rigidbody.charts import EulerZYX
    >>> from geomech.rigidbody.local import local_gravity_forces
    >>> body = RigidBody.from_spatial_inertia(SE3, spatial_inertia(2.0, [0, 0, 0], np.eye(3)))
    >>> dU = local_gravity_forces(body, EulerZYX(SE3), [0.3, 0.2, 0.1, 1.0, 2.0, 3.0])
    >>> np.round(dU, 12) + 0.0  # ∂U/∂x = [0; m g0 e3] for U = m g0 p_z
    array([ 0.  ,  0.  ,  0.  ,  0.  ,  0.  , 19.62])
    """
    _check(body, chart)
    q = chart._x(q, "q")
    n = body._gravity_forces(chart._to_group(q))
    return np.einsum("...ji,...j->...i", chart._S(q), n)


def local_inverse_dynamics(body: RigidBody, chart: Chart, q, v, a) -> np.ndarray:
    r"""Generalized force ``Q = M̄ ẍ + C̄ ẋ + ∂U/∂x`` of the Lagrange equations in ``x``.

    For a body wrench ``τ`` the generalized force is ``Q = Sᵀ τ`` (eq. 24); equivalently
    ``Q = Sᵀ (M v̇ + C(v) v + n)`` with ``v = S ẋ``, ``v̇ = S ẍ + Ṡ ẋ``.

    .. math:: Q = \bar M \ddot x + \bar C \dot x + \frac{\partial U}{\partial x}

    Parameters
    ----------
    body : RigidBody
        The body.
    chart : Chart
        A chart of ``body.group``.
    q, v, a : array_like, shape (..., dim)
        Chart coordinates, rates ``q̇`` and accelerations ``q̈``.

    Returns
    -------
    ndarray, shape (..., dim)

    Raises
    ------
    TypeError
        If ``body``/``chart`` have the wrong type or live on different groups.
    DimensionError, NonFiniteError
        On malformed inputs.

    References
    ----------
    seed 003 eqs. (18), (22)-(24).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE2
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.rigidbody.charts import PlanarChart
    >>> from geomech.rigidbody.local import local_inverse_dynamics
    >>> body = RigidBody(SE2, np.diag([0.7, 3.0, 3.0]))
    >>> q, v, a = [0.9, 0.2, 0.1], [0.8, 0.5, -0.3], [1.0, 0.0, 2.0]
    >>> tau = local_inverse_dynamics(body, PlanarChart(SE2), q, v, a)
    >>> np.round(tau, 12) + 0.0  # constant M̄ = diag(0.7, 3, 3): tau = M̄ ẍ
    array([0.7, 0. , 6. ])
    """
    _check(body, chart)
    q = chart._x(q, "q")
    v = chart._x(v, "v")
    a = chart._x(a, "a")
    Mbar = local_mass_matrix(body, chart, q)
    Cbar = local_coriolis_matrix(body, chart, q, v)
    return (
        np.einsum("...ij,...j->...i", Mbar, a)
        + np.einsum("...ij,...j->...i", Cbar, v)
        + local_gravity_forces(body, chart, q)
    )


def local_forward_dynamics(
    body: RigidBody, chart: Chart, q, v, tau=None, tol: float = SINGULAR_TOL
) -> np.ndarray:
    """Accelerations ``ẍ = M̄⁻¹ (Q - C̄ ẋ - ∂U/∂x)`` of the Lagrange equations in ``x``.

    This is the classical local form; it breaks down on the chart's singular set (``M̄``
    singular), where :meth:`RigidBody.forward_dynamics` is still regular.

    Parameters
    ----------
    body : RigidBody
        The body.
    chart : Chart
        A chart of ``body.group``.
    q, v : array_like, shape (..., dim)
        Chart coordinates and rates ``q̇``.
    tau : array_like, shape (..., dim), optional
        Generalized force in the chart coordinates (seed 003's ``Q``; default zero;
        ``Sᵀ w`` for a body wrench ``w``).
    tol : float, optional
        Threshold on the chart's singularity measure.

    Returns
    -------
    ndarray, shape (..., dim)

    Raises
    ------
    TypeError
        If ``body``/``chart`` have the wrong type or live on different groups.
    DimensionError, NonFiniteError
        On malformed inputs.
    SingularityError
        If ``x`` is on the singular set of the chart (e.g. gimbal lock).

    References
    ----------
    seed 003 eqs. (17)-(18), Prop. 2.1.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.rigidbody.charts import EulerZYX
    >>> from geomech.rigidbody.local import local_forward_dynamics
    >>> body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
    >>> local_forward_dynamics(body, EulerZYX(SO3), [0.0, np.pi / 2, 0.0],
    ...                        [0.1, 0.0, 0.0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geomech.errors.SingularityError: local_forward_dynamics is evaluated on the singular set ...
    """
    _check(body, chart)
    q = chart._x(q, "q")
    v = chart._x(v, "v")
    chart._raise_if_singular(q, tol, "local_forward_dynamics")
    rhs = -np.einsum("...ij,...j->...i", local_coriolis_matrix(body, chart, q, v), v)
    rhs = rhs - local_gravity_forces(body, chart, q)
    if tau is not None:
        rhs = rhs + chart._x(tau, "tau")
    Mbar = local_mass_matrix(body, chart, q)
    return np.linalg.solve(Mbar, rhs[..., None])[..., 0]


def boltzmann_hamel_coefficients(chart: Chart, q, tol: float = SINGULAR_TOL) -> np.ndarray:
    r"""Boltzmann–Hamel coefficients ``γ_k`` of the velocity map of a chart (seed 003 eq. 46).

    .. math:: (\gamma_k)_{ij} = \sum_{l,m} S^{-1}_{li}
              \Big(\frac{\partial S_{jl}}{\partial x_m}
              - \frac{\partial S_{jm}}{\partial x_l}\Big) S^{-1}_{mk}

    (``S^{-1}_{li}`` the ``(l, i)`` entry of ``S⁻¹``, eq. 40). The equations of motion are
    ``d/dt ∂L/∂v - S⁻ᵀ ∂L/∂x + (Σ_k γ_k v_k) ∂L/∂v = τ`` (eq. 38). For any chart of a Lie
    group with ``v`` the body velocity, ``(γ_k)_ij = s_ikj`` (constant) and
    ``Σ_k γ_k v_k = -ad_vᵀ``.

    Parameters
    ----------
    chart : Chart
        The chart.
    q : array_like, shape (..., dim)
        Coordinates (off the singular set).
    tol : float, optional
        Threshold on the chart's singularity measure.

    Returns
    -------
    ndarray, shape (..., dim, dim, dim)
        ``gamma[..., i, k, j] = (γ_k)_ij``: the upper index ``j`` last, as in the structure
        constants it equals (``(γ_k)_ij = c^j_ik = s[i, k, j]`` in every chart of a Lie group).

    Raises
    ------
    TypeError
        If ``chart`` is not a :class:`~geomech.rigidbody.charts.Chart`.
    DimensionError, NonFiniteError
        On malformed ``x``.
    SingularityError
        On the chart's singular set.

    References
    ----------
    seed 003 eqs. (38)-(47).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> from geomech.rigidbody.charts import EulerZYX
    >>> from geomech.rigidbody.local import boltzmann_hamel_coefficients
    >>> gamma = boltzmann_hamel_coefficients(EulerZYX(SO3), [0.3, -0.4, 0.7])
    >>> v = np.array([0.1, -0.2, 0.3])
    >>> bool(np.allclose(np.einsum("ikj,k->ij", gamma, v), -SO3.ad(v).T))
    True
    >>> bool(np.allclose(gamma, SO3.structure_constants()))  # (γ_k)_ij = c^j_ik
    True
    """
    if not isinstance(chart, Chart):
        raise DTypeError(
            f"Expected `chart` to be a geomech.rigidbody.charts.Chart, got {type(chart).__name__}."
        )
    q = chart._x(q, "q")
    S_inv = chart.velocity_map_inverse(q, tol)
    dS = chart._dS(q)  # dS[..., j, l, m] = ∂S_jl/∂x_m
    # seed 003 eq. (46): sum_{l,m} Sinv[l,i] (dS[j,l,m] - dS[j,m,l]) Sinv[m,k]
    return np.einsum("...li,...jlm,...mk->...ikj", S_inv, dS - np.swapaxes(dS, -1, -2), S_inv)


def chart_coriolis_matrix(
    body: RigidBody, chart: Chart, q, v, tol: float = SINGULAR_TOL
) -> np.ndarray:
    r"""Seed 003's corrected Coriolis matrix evaluated literally in a chart (eq. 54).

    .. math:: C_{ij}(x, v) = \sum_{l,m,s} S^{-1}_{li}
              \Big(\frac{\partial S_{sl}}{\partial x_m}
              - \frac{\partial S_{sm}}{\partial x_l}\Big) S^{-1}_{mj} (Mv)_s

    (errata E1/E10 corrected: the printed (49)-(50) have ``∂S_sj/∂φ_l`` and a stray ``M_sk``).
    In the exponential chart at ``x = 0`` this is eq. (57). It equals the constant-in-``x``
    matrix ``ad~_{Mv}`` = :meth:`RigidBody.coriolis_matrix` at every regular point of every
    chart of the body's group; this function exists to check that claim numerically.

    Parameters
    ----------
    body : RigidBody
        The body.
    chart : Chart
        A chart of ``body.group``.
    q : array_like, shape (..., dim)
        Coordinates (off the singular set).
    v : array_like, shape (..., dim)
        Body velocity.
    tol : float, optional
        Threshold on the chart's singularity measure.

    Returns
    -------
    ndarray, shape (..., dim, dim)

    Raises
    ------
    TypeError
        If ``body``/``chart`` have the wrong type or live on different groups.
    DimensionError, NonFiniteError
        On malformed inputs.
    SingularityError
        On the chart's singular set.

    References
    ----------
    seed 003 Prop. 3.1, eqs. (49)-(57) (errata E1, E10).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE3
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.rigidbody.charts import ExponentialChart
    >>> from geomech.rigidbody.local import chart_coriolis_matrix
    >>> body = RigidBody(SE3, np.diag([1.0, 2.0, 3.0, 2.0, 2.0, 2.0]))
    >>> v = np.array([0.1, -0.2, 0.3, 1.0, 0.5, -0.2])
    >>> C = chart_coriolis_matrix(body, ExponentialChart(SE3), [0.4, -1.0, 0.8, 0.3, -0.2, 0.5], v)
    >>> bool(np.allclose(C, body.coriolis_matrix(v)))
    True
    """
    _check(body, chart)
    gamma = boltzmann_hamel_coefficients(chart, q, tol)
    p = body.momentum(v)
    # C_ij = sum_s (gamma_j)_is (Mv)_s = gamma[i, j, s] (Mv)_s  (eq. 54 = eq. 53 renamed)
    return np.einsum("...ijs,...s->...ij", gamma, p)
