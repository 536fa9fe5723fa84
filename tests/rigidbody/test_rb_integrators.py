"""Lie-group integrators: acceptance (issue 7 item 5), convergence orders against an
independent DOP853 reference, and staying on the group."""

import time

import numpy as np
import pytest
from rb_helpers import random_spd
from scipy.integrate import solve_ivp

from geomech.errors import NonFiniteError, NotOnManifoldError
from geomech.lie import SE3, SO3
from geomech.rigidbody import LIE_EULER, RKMK, RKMK2, RKMK4, RigidBody, get_integrator, integrate
from geomech.simulation import simulate


def test_acceptance_free_body_on_so3_1e4_steps():
    """10⁴ steps of 1 ms: R orthonormal to 1e-9, energy and spatial momentum drift ≤ 1e-5."""
    body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
    w0 = np.array(
        [[0.1, -0.2, 0.3], [1.0, 0.05, -3.0], [0.3, 4.0, 0.2]]
    )  # incl. a fast spin near the unstable axis
    t0 = time.perf_counter()
    res = simulate(body, np.eye(3), w0, t_final=10.0, dt=1e-3, method="rkmk4")
    elapsed = time.perf_counter() - t0
    assert res.t.shape == (10_001,)
    R = res.q
    orth = np.max(np.abs(R @ np.swapaxes(R, -1, -2) - np.eye(3)))
    assert orth < 1e-9
    assert np.all(np.linalg.det(R) > 0)
    E = body.energy(R, res.v)
    assert np.max(np.abs(E / E[0] - 1.0)) < 1e-5
    mu = body.spatial_momentum(R, res.v)
    drift = np.max(np.linalg.norm(mu - mu[0], axis=-1) / np.linalg.norm(mu[0], axis=-1))
    assert drift < 1e-5
    assert elapsed < 30.0  # vectorised: one step advances all initial conditions (a few s)


def _reference(body, g0, v0, T):
    """Flat-state DOP853 integration of ġ = g v̂, M v̇ = ad_vᵀ M v (tight tolerances)."""
    n = g0.shape[-1]

    def rhs(t, y):
        g, v = y[: n * n].reshape(n, n), y[n * n :]
        v_dot = np.linalg.solve(body.inertia, body.group.ad(v).T @ body.momentum(v))
        return np.concatenate([(g @ body.group.hat(v)).ravel(), v_dot])

    sol = solve_ivp(
        rhs, [0, T], np.concatenate([g0.ravel(), v0]), method="DOP853", rtol=1e-13, atol=1e-14
    )
    return sol.y[: n * n, -1].reshape(n, n), sol.y[n * n :, -1]


@pytest.mark.parametrize(
    "method, order", [(LIE_EULER, 1), (RKMK2, 2), (RKMK4, 4)], ids=["euler", "rkmk2", "rkmk4"]
)
@pytest.mark.parametrize("group", [SO3, SE3], ids=["SO3", "SE3"])
def test_convergence_order(method, order, group, rng):
    body = RigidBody(group, random_spd(rng, group.dim))
    g0, v0 = group.random(rng), 0.8 * rng.standard_normal(group.dim)
    T = 1.0
    g_ref, v_ref = _reference(body, g0, v0, T)
    errors = []
    for n_steps in (40, 80):
        res = simulate(
            body, g0, v0, t_final=T, dt=T / n_steps, method=method, on_inaccuracy="ignore"
        )
        errors.append(np.max(np.abs(res.q[-1] - g_ref)) + np.max(np.abs(res.v[-1] - v_ref)))
    observed = np.log2(errors[0] / errors[1])
    assert observed == pytest.approx(order, abs=0.3)


def test_custom_tableau_heun3(rng):
    heun3 = RKMK(
        "heun3",
        A=((0, 0, 0), (1 / 3, 0, 0), (0, 2 / 3, 0)),
        b=(1 / 4, 0, 3 / 4),
        c=(0, 1 / 3, 2 / 3),
        order=3,
    )
    body = RigidBody(SE3, random_spd(rng, 6))
    g0, v0 = SE3.random(rng), rng.standard_normal(6)
    g_ref, v_ref = _reference(body, g0, v0, 1.0)
    errs = [
        np.max(np.abs(simulate(body, g0, v0, 1.0, dt=1.0 / n, method=heun3).q[-1] - g_ref))
        for n in (40, 80)
    ]
    assert np.log2(errs[0] / errs[1]) == pytest.approx(3, abs=0.3)


@pytest.mark.parametrize("method", [LIE_EULER, RKMK2, RKMK4], ids=["euler", "rkmk2", "rkmk4"])
def test_stays_on_the_group_with_large_steps(method, rng):
    body = RigidBody(SE3, random_spd(rng, 6))
    res = simulate(
        body,
        SE3.random(rng),
        rng.standard_normal(6),
        t_final=5.0,
        dt=0.05,
        method=method,
        on_inaccuracy="ignore",
    )  # coarse on purpose
    SE3.validate(res.q, tol=1e-12)  # raises NotOnManifoldError otherwise


def test_divergence_is_reported(rng):
    body = RigidBody(SE3, random_spd(rng, 6))
    with np.errstate(all="ignore"), pytest.raises(NonFiniteError, match="The integration diverged"):
        simulate(
            body, np.eye(4), 30.0 * rng.standard_normal(6), t_final=50.0, dt=0.5, method="lie_euler"
        )


def test_integrate_constant_twist_is_exact():
    xi = np.array([0.3, -0.2, 1.1, 1.0, 2.0, -0.5])
    t, g, v = integrate(
        SE3, lambda t, g, v: (v, np.zeros_like(v)), np.eye(4), xi, 0.0, 2.0, 7, LIE_EULER
    )
    np.testing.assert_allclose(g, SE3.exp(t[:, None] * xi), atol=1e-13)


def test_integrate_time_dependent_field():
    """ġ = g ω(t)ẑ on SO(3) with ω(t) = cos t: R(t) = exp(sin t ẑ)."""

    def field(t, R, y):
        return np.array([0.0, 0.0, np.cos(t)]), np.zeros_like(y)

    t, R, _ = integrate(SO3, field, np.eye(3), [0.0], 0.0, 3.0, 300, "rkmk4")
    np.testing.assert_allclose(R, SO3.exp(np.sin(t)[:, None] * [0.0, 0.0, 1.0]), atol=1e-10)


def test_integrator_registry_and_validation():
    assert get_integrator("RKMK4") is RKMK4
    assert get_integrator("midpoint") is RKMK2
    assert get_integrator(LIE_EULER) is LIE_EULER
    with pytest.raises(ValueError, match="Expected `method` to be one of"):
        get_integrator("rk45")
    with pytest.raises(ValueError, match="explicit tableau"):
        RKMK("implicit", A=((0.5,),), b=(1.0,), c=(0.5,), order=2)
    with pytest.raises(ValueError, match="tableau with A"):
        RKMK("bad", A=((0.0,),), b=(0.5, 0.5), c=(0.0,), order=1)
    field = lambda t, g, v: (v, 0 * v)  # noqa: E731
    with pytest.raises(ValueError, match="`n_steps` to be a positive integer"):
        integrate(SO3, field, np.eye(3), np.zeros(3), 0.0, 1.0, 0)
    with pytest.raises(NotOnManifoldError, match="`g0`"):
        integrate(SO3, field, 2 * np.eye(3), np.zeros(3), 0.0, 1.0, 10)
    with pytest.raises(TypeError, match="LieGroup"):
        integrate("SO3", field, np.eye(3), np.zeros(3), 0.0, 1.0, 10)
