r"""The Duindam–Stramigioli Coriolis matrix: a documented error that seed 003 corrects.

Duindam & Stramigioli (2008, eq. 26; also 2007 and From et al. 2010) evaluate the
Boltzmann–Hamel equations in exponential coordinates correctly but print the Coriolis matrix
with the momentum contracted on the *differentiation* index of ``S``:

.. math:: C^{DS}_{ij} = \sum_{k,l,m,s} S^{-1}_{mi}
          \Big(\frac{\partial S_{jm}}{\partial \varphi_s}
          - \frac{\partial S_{js}}{\partial \varphi_m}\Big) S^{-1}_{sk} M_{kl} v_l
          \Big|_{\varphi=0} = -\operatorname{ad}_{Mv}^\top

(seed 003 eqs. 33, 35-36), instead of ``C = ad~_{Mv}`` (eq. 57). The resulting equations
``M v̇ - ad_{Mv}ᵀ v = τ`` (37) are not the Newton–Euler equations: on SO(3) the gyroscopic
term has the wrong sign (energy is conserved, the spatial angular momentum is not); on SE(3)
the linear equation reads ``m v̇ + (Jω) × v = f`` and energy is not conserved.

Examples
--------
>>> import numpy as np
>>> from geomech.lie import SO3
>>> from geomech.rigidbody import RigidBody
>>> from geomech.rigidbody.literature import duindam_stramigioli_forward_dynamics
>>> body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
>>> duindam_stramigioli_forward_dynamics(body, np.eye(3), [0.1, -0.2, 0.3])  # F1: sign flipped
array([-0.06      , -0.03      , -0.00666667])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from geomech.errors import DTypeError, SimulationError
from geomech.rigidbody.body import RigidBody
from geomech.rigidbody.charts import SINGULAR_TOL, ExponentialChart
from geomech.rigidbody.integrators import get_integrator, integrate

__all__ = [
    "duindam_stramigioli_coriolis",
    "duindam_stramigioli_forward_dynamics",
    "LiteratureComparison",
    "compare_with_duindam_stramigioli",
]


def _check_body(body) -> RigidBody:
    if not isinstance(body, RigidBody):
        raise DTypeError(f"Expected `body` to be a RigidBody, got {type(body).__name__}.")
    return body


def duindam_stramigioli_coriolis(
    body: RigidBody, v, phi=None, tol: float = SINGULAR_TOL
) -> np.ndarray:
    r"""The (wrong) Coriolis matrix of Duindam & Stramigioli (2008), eq. (33) of seed 003.

    Evaluated literally from the velocity map ``S(φ)`` of the exponential chart and its exact
    derivatives, at ``φ = 0`` by default (eq. 35), where it equals ``-ad_{Mv}ᵀ`` (eq. 36).

    .. math:: C^{DS}_{ij} = \sum_{m,s} S^{-1}_{mi}
              \Big(\frac{\partial S_{jm}}{\partial \varphi_s}
              - \frac{\partial S_{js}}{\partial \varphi_m}\Big) (S^{-1} M v)_s

    (the factor ``v_l``, missing in the printed (33), is restored: erratum E9).

    Parameters
    ----------
    body : RigidBody
        The body (group and inertia ``M``).
    v : array_like, shape (..., dim)
        Body velocity.
    phi : array_like, shape (..., dim), optional
        Exponential coordinates at which (33) is evaluated (default ``0``).
    tol : float, optional
        Threshold on the chart's singularity measure (for ``phi ≠ 0``).

    Returns
    -------
    ndarray, shape (..., dim, dim)
        ``C^DS``; ``C^DS v ≠ C v`` on non-abelian groups.

    Raises
    ------
    TypeError
        If ``body`` is not a :class:`~geomech.rigidbody.body.RigidBody`.
    DimensionError, NonFiniteError
        On malformed inputs.
    SingularityError
        If ``phi`` is on the singular set of the exponential chart.

    References
    ----------
    seed 003 §2.3, eqs. (33)-(37), §3.1; Duindam & Stramigioli (2008), eq. (26); correction
    in From, Duindam & Stramigioli (2012).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE3
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.rigidbody.literature import duindam_stramigioli_coriolis
    >>> body = RigidBody(SE3, np.diag([1.0, 2.0, 3.0, 2.0, 2.0, 2.0]))
    >>> v = np.array([0.1, -0.2, 0.3, 1.0, 0.5, -0.2])
    >>> bool(np.allclose(duindam_stramigioli_coriolis(body, v), -SE3.ad(body.momentum(v)).T))
    True
    """
    body = _check_body(body)
    chart = ExponentialChart(body.group)
    p = body.momentum(v)
    x = np.zeros(p.shape) if phi is None else chart._x(phi, "phi")
    S_inv = chart.velocity_map_inverse(x, tol)
    dS = chart._dS(x)  # dS[..., j, m, s] = ∂S_jm/∂φ_s
    q = np.einsum("...sk,...k->...s", S_inv, p)  # S^{-1} M v
    # seed 003 eq. (33): sum_{m,s} Sinv[m,i] (dS[j,m,s] - dS[j,s,m]) (Sinv M v)_s
    return np.einsum("...mi,...jms,...s->...ij", S_inv, dS - np.swapaxes(dS, -1, -2), q)


def duindam_stramigioli_forward_dynamics(body: RigidBody, q, v, tau=None) -> np.ndarray:
    """Accelerations of the (wrong) equations ``M v̇ - ad_{Mv}ᵀ v + n(g) = τ`` (seed 003 eq. 37).

    Parameters
    ----------
    body : RigidBody
        The body.
    q : array_like, shape (..., *group.point_shape)
        Configuration, validated.
    v : array_like, shape (..., dim)
        Body velocity.
    tau : array_like, shape (..., dim), optional
        Body wrench (default zero).

    Returns
    -------
    ndarray, shape (..., dim)

    Raises
    ------
    TypeError
        If ``body`` is not a :class:`~geomech.rigidbody.body.RigidBody`.
    DimensionError, NonFiniteError, NotOnManifoldError
        On malformed inputs.

    References
    ----------
    seed 003 eq. (37); fixtures F1-F3 (DS-wrong accelerations).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE2
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.rigidbody.literature import duindam_stramigioli_forward_dynamics
    >>> body = RigidBody(SE2, np.diag([0.7, 3.0, 3.0]))
    >>> v = [0.3, 1.0, 0.5]
    >>> duindam_stramigioli_forward_dynamics(body, np.eye(3), v)  # F3: [0, 0.035, -0.07]
    array([ 0.   ,  0.035, -0.07 ])
    """
    body = _check_body(body)
    q = body.group.validate(q, "q")
    v = body._v(v)
    tau = None if tau is None else body._v(tau, "tau")
    return _ds_forward_dynamics(body, q, v, tau)


def _ds_forward_dynamics(body: RigidBody, g, v, tau):
    # seed 003 eq. (37): M a - ad_{Mv}^T v = tau - n(q); (ad_p^T v)_i = sum_jk p_j s_jik v_k
    p = v @ body.inertia
    ds = -np.einsum("...j,jik,...k->...i", p, body.group._structure_constants, v)  # C_DS v
    rhs = -ds - body._gravity_forces(g)
    if tau is not None:
        rhs = rhs + tau
    return rhs @ body._M_inv.T


@dataclass(frozen=True)
class LiteratureComparison:
    """Free motion under the correct and the Duindam–Stramigioli equations.

    Attributes
    ----------
    t : ndarray, shape (N + 1,)
        Times.
    energy, energy_ds : ndarray, shape (N + 1, ...)
        Total energy along the correct / DS trajectories.
    momentum, momentum_ds : ndarray, shape (N + 1, ..., dim)
        Spatial momentum ``Ad_{g⁻¹}ᵀ M v`` along the correct / DS trajectories.
    v, v_ds : ndarray, shape (N + 1, ..., dim)
        Body velocities.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.rigidbody.literature import compare_with_duindam_stramigioli
    >>> res = compare_with_duindam_stramigioli(
    ...     RigidBody(SO3, np.diag([1.0, 2.0, 3.0])), np.eye(3), [0.1, -0.2, 0.3], 1.0, dt=0.01)
    >>> res.energy.shape, res.momentum_ds.shape
    ((101,), (101, 3))
    """

    t: np.ndarray
    energy: np.ndarray
    energy_ds: np.ndarray
    momentum: np.ndarray
    momentum_ds: np.ndarray
    v: np.ndarray
    v_ds: np.ndarray

    def drift(self) -> dict:
        """Largest deviations from the initial energy and spatial momentum.

        Returns
        -------
        dict
            ``{"energy": ..., "energy_ds": ..., "momentum": ..., "momentum_ds": ...}``: the
            maxima over time (and batch) of ``|E(t) - E(0)|`` and ``|μ(t) - μ(0)|``.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> from geomech.rigidbody import RigidBody
        >>> from geomech.rigidbody.literature import compare_with_duindam_stramigioli
        >>> res = compare_with_duindam_stramigioli(
        ...     RigidBody(SO3, np.diag([1.0, 2.0, 3.0])), np.eye(3), [0.1, -0.2, 0.3], 30.0,
        ...     dt=0.01)
        >>> d = res.drift()
        >>> d["momentum"] < 1e-9 < 1.0 < d["momentum_ds"]  # seed 003 §3.1: drift ≈ 1.9
        True
        """

        def dev(a):
            return float(np.max(np.abs(a - a[0])))

        def dev_vec(a):
            return float(np.max(np.linalg.norm(a - a[0], axis=-1)))

        return {
            "energy": dev(self.energy),
            "energy_ds": dev(self.energy_ds),
            "momentum": dev_vec(self.momentum),
            "momentum_ds": dev_vec(self.momentum_ds),
        }


def compare_with_duindam_stramigioli(
    body: RigidBody, g0, v0, t_final: float, dt: float = 1e-3, method="rkmk4"
) -> LiteratureComparison:
    """Integrate free motion with the correct and the Duindam–Stramigioli equations.

    Both runs use the same Lie-group integrator and step, so the differences in energy and
    spatial momentum are due to the equations, not to the numerics.

    Parameters
    ----------
    body : RigidBody
        The body (its potential, if any, is included in both runs).
    g0 : array_like, shape (..., *group.point_shape)
        Initial configuration.
    v0 : array_like, shape (..., dim)
        Initial body velocity.
    t_final : float
        Duration (s).
    dt : float, optional
        Maximal step (s).
    method : str or RKMK, optional
        Integrator (default ``"rkmk4"``).

    Returns
    -------
    LiteratureComparison

    Raises
    ------
    TypeError
        If ``body`` is not a :class:`~geomech.rigidbody.body.RigidBody`.
    DimensionError, NonFiniteError, NotOnManifoldError
        On malformed initial conditions.
    ValueError
        If ``t_final <= 0``, ``dt <= 0`` or the method is unknown.

    References
    ----------
    seed 003 §3.1 (SO(3): momentum drift ≈ 1.9 on ``[0, 30]`` for ``M = diag(1, 2, 3)``,
    ``ω0 = (0.1, -0.2, 0.3)``; SE(3), fixture F8: energy drift ≈ 0.29 on ``[0, 20]``).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE3
    >>> from geomech.spatial import spatial_inertia
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.rigidbody.literature import compare_with_duindam_stramigioli
    >>> I_b = spatial_inertia(2.0, [0.1, -0.05, 0.2], np.diag([1.0, 2.0, 3.0]))  # F8
    >>> res = compare_with_duindam_stramigioli(
    ...     RigidBody(SE3, I_b), np.eye(4), [0.1, -0.2, 0.3, 1.0, 0.5, -0.2], 20.0, dt=0.01)
    >>> d = res.drift()
    >>> d["energy"] < 1e-8 < 0.1 < d["energy_ds"]
    True
    """
    body = _check_body(body)
    group = body.group
    g0 = group.validate(g0, "g0")
    v0 = body._v(v0, "v0")
    t_final, dt = float(t_final), float(dt)
    if not (np.isfinite(t_final) and t_final > 0.0):
        raise SimulationError(f"Expected `t_final` > 0, got {t_final}.")
    if not (np.isfinite(dt) and dt > 0.0):
        raise SimulationError(f"Expected `dt` > 0, got {dt}.")
    integrator = get_integrator(method)
    n_steps = max(1, int(np.ceil(t_final / dt - 1e-9)))

    def correct(t, g, v):
        return v, body._forward_dynamics(g, v, None)

    def wrong(t, g, v):
        return v, _ds_forward_dynamics(body, g, v, None)

    t, g, v = integrate(group, correct, g0, v0, 0.0, t_final, n_steps, integrator)
    _, g_ds, v_ds = integrate(group, wrong, g0, v0, 0.0, t_final, n_steps, integrator)

    def energy(g_, v_):
        return body._potential_energy(g_) + 0.5 * np.einsum(
            "...i,ij,...j->...", v_, body.inertia, v_
        )

    return LiteratureComparison(
        t=t,
        energy=energy(g, v),
        energy_ds=energy(g_ds, v_ds),
        momentum=body._spatial_momentum(g, v),
        momentum_ds=body._spatial_momentum(g_ds, v_ds),
        v=v,
        v_ds=v_ds,
    )
