"""geomech.simulate: the entry point, its result object, controllers, dispatch and validation."""

import numpy as np
import pytest

from geomech.errors import DimensionError, NotOnManifoldError
from geomech.geometry import MechanicalSystem
from geomech.lie import SE2, SE3, SO3
from geomech.rigidbody import RKMK2, RigidBody
from geomech.simulation import LieGroupForm, SimulationResult, lie_group_form, simulate
from geomech.spatial import spatial_inertia


@pytest.fixture
def body():
    return RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))


def test_result_shapes_and_times(body):
    res = simulate(body, np.eye(3), [0.1, -0.2, 0.3], t_final=0.95, dt=0.1)
    assert isinstance(res, SimulationResult)
    # ceil(0.95 / 0.1) = 10 equal steps of 0.095 (≤ dt), ending exactly at t_final
    np.testing.assert_allclose(res.t, np.linspace(0.0, 0.95, 11), atol=1e-15)
    assert res.q.shape == (11, 3, 3) and res.v.shape == (11, 3) and res.tau.shape == (11, 3)
    np.testing.assert_allclose(res.tau, 0.0, atol=0)
    assert res.method == "rkmk4"
    np.testing.assert_allclose(res.q[0], np.eye(3), atol=0)


def test_exact_multiple_of_dt(body):
    res = simulate(body, np.eye(3), np.zeros(3), t_final=1.0, dt=0.1, t0=0.5)
    assert res.t.shape == (6,)
    assert res.t[0] == 0.5 and res.t[-1] == 1.0


def test_batched_initial_conditions(body, rng):
    R0 = SO3.random(rng, size=4)
    w0 = rng.standard_normal((4, 3))
    res = simulate(body, R0, w0, t_final=0.5, dt=0.05)
    assert res.q.shape == (11, 4, 3, 3) and res.v.shape == (11, 4, 3)
    single = simulate(body, R0[2], w0[2], t_final=0.5, dt=0.05)
    np.testing.assert_allclose(res.q[:, 2], single.q, atol=1e-14)
    np.testing.assert_allclose(res.v[:, 2], single.v, atol=1e-14)
    # broadcasting one configuration against several velocities
    assert simulate(body, np.eye(3), w0, t_final=0.1, dt=0.05).q.shape == (3, 4, 3, 3)


def test_controller_is_applied_and_recorded(rng):
    """PD on velocity: τ = -K v, so the kinetic energy decays; τ is recorded at each output time."""
    body = RigidBody(SE3, spatial_inertia(1.0, [0.0, 0.0, 0.0], np.diag([0.1, 0.2, 0.3])))
    K = 2.0

    def damping(t, g, v):
        return -K * v

    res = simulate(
        body, SE3.random(rng), rng.standard_normal(6), t_final=2.0, dt=0.01, controller=damping
    )
    np.testing.assert_allclose(res.tau, -K * res.v, atol=0)
    E = body.kinetic_energy(res.v)
    assert np.all(np.diff(E) < 0)
    # power balance dE/dt = vᵀτ, integrated: E(T) - E(0) = ∫ vᵀτ dt (trapezoid, O(h²))
    work = np.trapezoid(np.einsum("ti,ti->t", res.v, res.tau), res.t)
    assert E[-1] - E[0] == pytest.approx(work, rel=1e-3)


def test_time_varying_controller_matches_closed_form():
    """A planar body pushed by a constant body-frame force f along x from rest, no rotation:
    v_x(t) = f t / m, p_x(t) = f t² / (2 m)."""
    m, f = 2.0, 3.0
    body = RigidBody(SE2, np.diag([0.5, m, m]))
    res = simulate(
        body,
        np.eye(3),
        np.zeros(3),
        t_final=1.0,
        dt=0.01,
        controller=lambda t, g, v: np.array([0.0, f, 0.0]),
    )
    np.testing.assert_allclose(res.v[:, 1], f * res.t / m, atol=1e-12)
    np.testing.assert_allclose(res.q[:, 0, 2], f * res.t**2 / (2 * m), atol=1e-12)


@pytest.mark.parametrize("method", ["rkmk4", "rkmk2", "midpoint", "lie_euler", RKMK2])
def test_methods(body, method):
    res = simulate(body, np.eye(3), [0.1, -0.2, 0.3], t_final=0.2, dt=0.01, method=method)
    SO3.validate(res.q, tol=1e-12)


def test_dispatch_and_extension_point(body):
    form = lie_group_form(body)
    assert form.group is SO3 and form.nv == 3
    system = MechanicalSystem(SO3, np.eye(3))
    assert lie_group_form(system).group is SO3  # registered: mechanical_system_form
    res = simulate(system, np.eye(3), [0.0, 0.0, 1.0], t_final=0.1, dt=0.05)
    np.testing.assert_allclose(res.q[-1], SO3.exp([0.0, 0.0, 0.1]), atol=1e-15)
    with pytest.raises(
        TypeError, match="supports RigidBody, MechanicalSystem and MultibodyModel systems; got dict"
    ):
        simulate({}, np.eye(3), np.zeros(3), t_final=1.0)
    from geomech.multibody import robots

    with pytest.raises(TypeError, match="frame.s own chart"):  # a robot: its joint frame
        lie_group_form(robots.double_pendulum())

    class Toy:  # a new system type registered through the extension point
        pass

    @lie_group_form.register
    def _(system: Toy):
        return LieGroupForm(
            SE2,
            3,
            lambda t, q, v: v,
            lambda t, q, v, tau: np.zeros_like(v),
            lambda q0: SE2.validate(q0, "q0"),
        )

    res = simulate(Toy(), np.eye(3), [0.0, 1.0, 0.0], t_final=1.0, dt=0.5)
    np.testing.assert_allclose(res.q[-1][:2, 2], [1.0, 0.0], atol=1e-15)


def test_validation(body):
    with pytest.raises(NotOnManifoldError, match="`q0`"):
        simulate(body, 2 * np.eye(3), np.zeros(3), t_final=1.0)
    with pytest.raises(DimensionError, match=r"`v0` to have shape \(\.\.\., 3\)"):
        simulate(body, np.eye(3), np.zeros(6), t_final=1.0)
    with pytest.raises(ValueError, match="`t_final` > t0"):
        simulate(body, np.eye(3), np.zeros(3), t_final=0.0)
    with pytest.raises(ValueError, match="`dt` > 0"):
        simulate(body, np.eye(3), np.zeros(3), t_final=1.0, dt=-0.1)
    with pytest.raises(ValueError, match="`method` to be one of"):
        simulate(body, np.eye(3), np.zeros(3), t_final=1.0, method="euler")
    with pytest.raises(TypeError, match="`controller` to be callable"):
        simulate(body, np.eye(3), np.zeros(3), t_final=1.0, controller=np.zeros(3))
    with pytest.raises(
        DimensionError, match=r"`controller\(t, q, v\)` to have shape \(\.\.\., 3\)"
    ):
        simulate(
            body,
            np.eye(3),
            np.zeros(3),
            t_final=0.1,
            dt=0.05,
            controller=lambda t, q, v: np.zeros(2),
        )
