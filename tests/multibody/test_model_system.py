"""A robot is a MechanicalSystem: the geometry layer's tools on a MultibodyModel directly.

References (independent of the overrides under test): the generic MechanicalSystem formulas on
the same model (Koszul formula and Lie derivatives by central differences along the joint
frame's flow, Hamel's equations), energy conservation, the metric invariance of parallel
transport, and the simulation of free motion by the ABA.
"""

import numpy as np
import pytest
from test_coriolis_models import mixed_fixed_base, mixed_floating_base, user_joint_tree

from geomech.control import SlotineLi
from geomech.errors import ConnectionSpecError
from geomech.geometry import (
    AffineConnection,
    CartanSchoutenConnection,
    Frame,
    LeviCivitaConnection,
    MechanicalSystem,
    as_mechanical_system,
)
from geomech.lie import SE3
from geomech.multibody import JointFrame, MultibodyModel, robots
from geomech.multibody.io.examples import load_example
from geomech.rigidbody import RigidBody
from geomech.simulation import simulate

MODELS = {
    "mixed-fixed": mixed_fixed_base,
    "mixed-floating": mixed_floating_base,
    "user-joints": user_joint_tree,
}


@pytest.fixture(scope="module", params=list(MODELS))
def model(request):
    return MODELS[request.param]()


def _scale(x):
    return max(1.0, float(np.max(np.abs(x))))


def test_a_model_is_a_mechanical_system_with_a_joint_frame(model, rng):
    assert isinstance(model, MechanicalSystem) and as_mechanical_system(model) is model
    assert isinstance(model.frame, JointFrame) and isinstance(model.frame, Frame)
    assert model.dim == model.nv and model.frame.point_shape == (model.nq,)
    q = model.random_configuration(rng, size=2)
    assert model.random_configuration(rng).shape == (model.nq,)
    np.testing.assert_array_equal(
        model.flow(q, np.ones(model.nv), 0.1), model.integrate(q, np.ones(model.nv), 0.1)
    )


def test_fast_overrides_equal_the_generic_formulas(model, rng):
    """CRBA/Alg. 1/Alg. 2/RNEA/ABA against MechanicalSystem's own formulas on the same model:
    Lie derivatives of H and V by central differences along the flow, Koszul, Hamel."""
    q = model.random_configuration(rng)
    v = rng.uniform(-1.0, 1.0, model.nv)
    tau = rng.uniform(-1.0, 1.0, model.nv)
    H = model.mass_matrix(q)
    np.testing.assert_allclose(model._H(q), H)
    dH = model._dH(q)  # the hook, dH[k, i, j] = L_{X_k} H_ij (Alg. 1 at unit speeds)
    dH_fd = MechanicalSystem._dH(model, q)  # central differences along the joint frame's flow
    assert np.max(np.abs(dH - dH_fd)) < 1e-7 * _scale(H)
    np.testing.assert_array_equal(model.mass_matrix_lie_derivative(q), np.moveaxis(dH, -3, -1))
    G = model._koszul(q)
    G_fd = MechanicalSystem._koszul(model, q)
    assert np.max(np.abs(G - G_fd)) < 1e-7 * _scale(H)
    C = model.coriolis_matrix(q, v)
    assert np.max(np.abs(C - MechanicalSystem.coriolis_matrix(model, q, v))) < 1e-7 * _scale(H)
    np.testing.assert_allclose(
        model.mass_matrix_derivative(q, v),
        MechanicalSystem.mass_matrix_derivative(model, q, v),
        atol=1e-7 * _scale(H),
    )
    np.testing.assert_allclose(
        model.gravity_forces(q), MechanicalSystem.gravity_forces(model, q), atol=1e-7 * _scale(H)
    )
    a = model.forward_dynamics(q, v, tau)
    a_hamel = MechanicalSystem.forward_dynamics(model, q, v, tau)
    assert np.max(np.abs(a - a_hamel)) < 1e-6 * _scale(a)
    np.testing.assert_allclose(model.kinetic_energy(q, v), 0.5 * v @ H @ v)


def test_connections_and_predicates_take_a_model(model, rng):
    q = model.random_configuration(rng)
    lc = LeviCivitaConnection(model)
    assert lc.system is model
    np.testing.assert_allclose(
        lc.christoffel_first_kind(q), model.connection().christoffel_first_kind(q), atol=1e-12
    )
    assert lc.is_metric_compatible(q) and lc.has_riemannian_geodesics(q) and lc.is_torsion_free(q)
    # a user's connection on the robot: Levi-Civita plus a totally antisymmetric contorsion
    K = np.zeros((model.nv,) * 3)
    K[0, 1, 2], K[1, 2, 0], K[2, 0, 1] = 1.0, 1.0, 1.0
    K[0, 2, 1], K[2, 1, 0], K[1, 0, 2] = -1.0, -1.0, -1.0
    other = lc + K
    assert isinstance(other, AffineConnection) and other.system is model
    assert other.is_metric_compatible(q) and other.has_riemannian_geodesics(q)
    assert not other.is_torsion_free(q)
    np.testing.assert_allclose(other.contorsion(q), -K, atol=1e-12)


def test_geodesic_on_a_robot_is_the_free_motion():
    """The geodesic of the Levi-Civita connection (Alg. 2, the geometry layer's integrator) is
    the motion without gravity and torques (the ABA, simulate): independent paths."""
    model = mixed_floating_base()
    free = MultibodyModel(model.graph, gravity=[0.0, 0.0, 0.0])
    rng = np.random.default_rng(5)
    q0 = free.random_configuration(rng)
    v0 = rng.uniform(-1.0, 1.0, free.nv)
    traj = LeviCivitaConnection(free).geodesic(q0, v0, [0.0, 0.1, 0.2])
    sim = simulate(free, q0, v0, 0.2, dt=1e-3)
    assert np.max(np.abs(free.difference(sim.q[-1], traj.q[-1]))) < 1e-8
    np.testing.assert_allclose(traj.v[-1], sim.v[-1], atol=1e-7)
    E = free.kinetic_energy(traj.q, traj.v)
    assert np.max(np.abs(E - E[0])) < 1e-8 * E[0]


def test_parallel_transport_on_a_robot_keeps_the_metric():
    """Metric compatible connection: <w1, w2>_H is constant along the curve (seed 000 §III)."""
    model = mixed_fixed_base()
    rng = np.random.default_rng(7)
    q0 = model.random_configuration(rng)
    v0 = rng.uniform(-1.0, 1.0, model.nv)
    for name in ("levi-civita", "momentum-cross"):
        conn = model.connection(name)
        curve = conn.geodesic(q0, v0, np.linspace(0.0, 0.3, 4))
        w0 = rng.standard_normal((2, model.nv))
        w = conn.parallel_transport(curve, w0)  # (2, t, nv)
        H = model.mass_matrix(curve.q)
        gram = np.einsum("ati,tij,btj->tab", w, H, w)
        assert np.max(np.abs(gram - gram[0])) < 1e-8 * _scale(gram[0])
    # Cartan-Schouten connections need a group's invariant frame, which a robot has not
    with pytest.raises(ConnectionSpecError, match="LeftInvariantFrame"):
        CartanSchoutenConnection(model, "+")


def test_slotine_li_on_a_robot_takes_a_connection_by_name_or_object():
    arm = robots.double_pendulum(radius=0.1)
    rng = np.random.default_rng(3)

    def ref(t):
        return (
            np.array([np.sin(t), 0.5 * np.cos(t)]),
            np.array([np.cos(t), -0.5 * np.sin(t)]),
            np.array([-np.sin(t), -0.5 * np.cos(t)]),
        )

    for name in ("levi-civita", "momentum-cross"):
        by_name = SlotineLi(arm, connection=name, reference=ref, Lambda=2.0, K_D=3.0)
        by_object = SlotineLi(
            arm, connection=arm.connection(name), reference=ref, Lambda=2.0, K_D=3.0
        )
        for _ in range(3):
            q, v, t = rng.standard_normal(2), rng.standard_normal(2), rng.uniform(0, 3)
            np.testing.assert_allclose(by_name(t, q, v), by_object(t, q, v), atol=1e-10)
    # tracking in closed loop with simulate: the Lyapunov function decreases, the error vanishes
    ctrl = SlotineLi(arm, connection="momentum-cross", reference=ref, Lambda=2.0, K_D=5.0)
    res = simulate(arm, [0.3, -0.4], [0.0, 0.0], 6.0, controller=ctrl, dt=2e-3)
    V = np.array([ctrl.lyapunov(t, q, v) for t, q, v in zip(res.t, res.q, res.v, strict=True)])
    assert np.all(np.diff(V) <= 1e-9 * V[0])
    err = np.abs(res.q[-1] - ref(res.t[-1])[0]).max()
    assert err < 1e-2 * np.abs(res.q[0] - ref(0.0)[0]).max()  # measured 5e-3 of it


def test_a_rigid_body_is_accepted_by_the_same_tools():
    rng = np.random.default_rng(4)
    body = RigidBody(SE3, np.diag([1.0, 2.0, 3.0, 2.0, 2.0, 2.0]))
    system = as_mechanical_system(body)
    lc = LeviCivitaConnection(body)
    g = SE3.random(rng)
    v = rng.standard_normal(6)
    np.testing.assert_allclose(
        lc.coriolis_matrix(g, v), body.connection("levi-civita").coriolis_matrix(g, v)
    )
    assert CartanSchoutenConnection(body, "-").is_metric_compatible(g)
    ref = lambda t: (np.eye(4), np.zeros(6), np.zeros(6))  # noqa: E731
    by_name = SlotineLi(body, "boltzmann-hamel", ref, 1.0, 1.0)
    by_object = SlotineLi(
        system, AffineConnection(system, body.christoffel_symbols()), ref, 1.0, 1.0
    )
    np.testing.assert_allclose(by_name(0.0, g, v), by_object(0.0, g, v), atol=1e-12)


def test_closed_model_is_a_mechanical_system():
    model = load_example("four_bar")
    q = model.random_configuration(np.random.default_rng(0))
    assert isinstance(model, MechanicalSystem) and model.dim == model.nv == 1
    # the generic Hamel equations on the closed model (Koszul by finite differences along the
    # flow, which closes the loops) reproduce the cluster ABA
    a = model.forward_dynamics(q, [0.7], [0.3])
    a_hamel = MechanicalSystem.forward_dynamics(model, q, [0.7], [0.3])
    np.testing.assert_allclose(a, a_hamel, rtol=1e-7)
    lc = LeviCivitaConnection(model)
    assert lc.is_metric_compatible(q) and lc.is_torsion_free(q)
