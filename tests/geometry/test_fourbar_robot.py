"""The four-bar rebuilt from a real MultibodyModel: ClosedChain(model, constraint).

References: the hand-written planar system (geomech.geometry.examples_induced.four_bar_linkage:
closed-form H, complex-step derivatives, closed-form constraint Jacobian and Hessian), which
shares no code with the robot path (networkx graph, CRBA, Alg. 2, RNEA, body Jacobians); and
the closed multibody model of the URDF+ four-bar (cluster CRBA / C-ABA of seed 004).
"""

import numpy as np
import pytest

from geomech.errors import ConnectionSpecError, DimensionError, ModelError
from geomech.geometry import ClosedChain, LeviCivitaConnection, MechanicalSystem
from geomech.geometry.examples_induced import four_bar_linkage
from geomech.multibody import JointFrame, crba
from geomech.multibody.algorithms.dynamics import aba, gravity_forces, rnea
from geomech.multibody.closed.closures import PointClosure, four_bar
from geomech.multibody.io.examples import load_example
from geomech.simulation import simulate

TOL = 1e-10


@pytest.fixture(scope="module")
def pair():
    model, closure, q0 = four_bar()
    robot = ClosedChain(model, closure, [0], constraint_jacobian=closure.jacobian, reference=q0)
    return robot, four_bar_linkage(), model


def _states(chain, rng, k=4):
    q = chain.frame.random_configuration(rng, size=k)
    v = rng.uniform(-2.0, 2.0, (k, 1))
    return q, v


def test_the_robot_is_the_hand_written_tree(pair, rng):
    robot, hand, model = pair
    assert robot.tree.system is model and isinstance(model.frame, JointFrame)
    assert model.frame.coordinates
    q = rng.uniform(-3.0, 3.0, (5, 3))  # any tree configuration
    np.testing.assert_allclose(model.mass_matrix(q), hand.tree.system.mass_matrix(q), atol=TOL)
    np.testing.assert_allclose(
        model.gravity_forces(q), hand.tree.system.gravity_forces(q), atol=TOL
    )
    np.testing.assert_allclose(
        robot.tree.christoffel_first_kind(q), hand.tree.christoffel_first_kind(q), atol=TOL
    )
    np.testing.assert_allclose(robot.constraint(q), hand.constraint(q), atol=TOL)
    np.testing.assert_allclose(robot.constraint_jacobian(q), hand.constraint_jacobian(q), atol=TOL)


def test_induced_quantities_agree_to_1e10(pair, rng):
    robot, hand, _ = pair
    np.testing.assert_allclose(robot.frame.reference, hand.frame.reference, atol=1e-14)
    q, v = _states(hand, rng)
    np.testing.assert_allclose(robot.velocity_map(q), hand.velocity_map(q), atol=TOL)
    np.testing.assert_allclose(robot.mass_matrix(q), hand.mass_matrix(q), atol=TOL)
    # C̄ = AᵀCA + AᵀHȦ: the robot's Ȧ from the stencil Hessian of its exact Jacobian
    np.testing.assert_allclose(robot.coriolis_matrix(q, v), hand.coriolis_matrix(q, v), atol=TOL)
    np.testing.assert_allclose(
        robot.system.gravity_forces(q), hand.system.gravity_forces(q), atol=TOL
    )
    np.testing.assert_allclose(
        robot.connection.christoffel_first_kind(q),
        hand.connection.christoffel_first_kind(q),
        atol=TOL,
    )


def test_mobile_base_four_bar_agrees_to_1e10(rng):
    """Three minimal coordinates (seed 000 §VI-C1): the loop closes at a point of the base, so
    the robot's constraint rows are the hand-written ones rotated by the base angle; the null
    space, hence A, H̄, C̄ and the induced torsion, is the same."""
    from geomech.geometry import Contorsion

    model, closure, q0 = four_bar(mobile_base=True)
    robot = ClosedChain(
        model, closure, [0, 1, 2], constraint_jacobian=closure.jacobian, reference=q0
    )
    hand = four_bar_linkage(mobile_base=True)
    q = hand.frame.random_configuration(rng, size=3)
    v = rng.normal(size=(3, 3))
    np.testing.assert_allclose(robot.velocity_map(q), hand.velocity_map(q), atol=TOL)
    np.testing.assert_allclose(robot.mass_matrix(q), hand.mass_matrix(q), atol=TOL)
    np.testing.assert_allclose(robot.coriolis_matrix(q, v), hand.coriolis_matrix(q, v), atol=TOL)
    K = Contorsion.totally_antisymmetric(np.linspace(-1.0, 1.0, 10))
    twisted_robot = robot.with_connection(robot.tree + K)
    twisted_hand = hand.with_connection(hand.tree + K)
    np.testing.assert_allclose(
        twisted_robot.coriolis_matrix(q, v), twisted_hand.coriolis_matrix(q, v), atol=TOL
    )
    assert twisted_robot.connection.is_metric_compatible(q[0])
    assert not twisted_robot.connection.is_torsion_free(q[0])


def test_predicates_of_the_induced_connection_agree(pair, rng):
    robot, hand, model = pair
    q = robot.frame.random_configuration(rng)
    for chain in (robot, hand):
        conn = chain.connection
        assert conn.is_metric_compatible(q) and conn.has_riemannian_geodesics(q)
        assert conn.is_torsion_free(q)
    # another spanning-tree connection by name: the induced one inherits its properties
    # (Props. V.1-V.3); on one independent coordinate every connection gives the same C̄
    for name in ("velocity-cross", "boltzmann-hamel"):
        other = ClosedChain(
            model,
            robot.frame._phi,
            [0],
            connection=name,
            constraint_jacobian=robot.frame._K,
            reference=robot.frame.reference,
        )
        assert other.tree.is_metric_compatible(q) and not other.tree.is_torsion_free(q)
        assert other.connection.is_metric_compatible(q)
        np.testing.assert_allclose(
            other.coriolis_matrix(q, [0.7]), hand.coriolis_matrix(q, [0.7]), atol=TOL
        )


def test_simulated_motion_agrees(pair):
    robot, hand, _ = pair
    q0 = hand.frame.reference
    a = simulate(robot.system, q0, [1.5], 1.0, dt=2e-3)
    b = simulate(hand.system, q0, [1.5], 1.0, dt=2e-3)
    assert np.abs(a.q - b.q).max() < TOL and np.abs(a.v - b.v).max() < TOL
    assert np.abs(a.q[-1] - q0).max() > 0.5  # it moved
    assert np.abs(robot.constraint(a.q)).max() < 1e-12  # and stayed closed


def test_closed_chain_takes_systems_and_validates(pair):
    robot, hand, model = pair
    # a plain system in coordinates is taken with its Levi-Civita connection
    plain = ClosedChain(hand.tree.system, hand.frame._phi, [0], reference=hand.frame.reference)
    q = hand.frame.reference
    np.testing.assert_allclose(plain.mass_matrix(q), hand.mass_matrix(q), atol=1e-12)
    same = ClosedChain(
        model, robot.frame._phi, [0], connection=LeviCivitaConnection(model), reference=q
    )
    np.testing.assert_allclose(same.mass_matrix(q), robot.mass_matrix(q), atol=1e-12)
    with pytest.raises(ConnectionSpecError, match="defined for robots and rigid bodies"):
        ClosedChain(hand.tree.system, hand.frame._phi, [0], connection="velocity-cross")
    with pytest.raises(ConnectionSpecError, match="`tree` to be an AffineConnection"):
        ClosedChain("four-bar", hand.frame._phi, [0])
    with pytest.raises(ConnectionSpecError, match="velocity-cross"):
        ClosedChain(model, hand.frame._phi, [0], connection="bogus")
    floating = load_example("four_bar", floating_base=True).spanning_tree
    with pytest.raises(ConnectionSpecError, match="spanning tree in joint coordinates"):
        ClosedChain(floating, lambda q: q[..., :1], [1])


def test_induced_connection_takes_a_robot(pair, rng):
    """InducedConnection(model, A=...) is the robot's Levi-Civita connection induced by A: the
    same as the ClosedChain's (built from the loop-closure frame's velocity map)."""
    from geomech.geometry import InducedConnection

    robot, _, model = pair
    induced = InducedConnection(
        model,
        A=robot.frame._velocity_map,
        frame=robot.frame,
        A_dot=robot.frame._velocity_map_derivative,
    )
    q = robot.frame.random_configuration(rng)
    np.testing.assert_allclose(
        induced.christoffel_first_kind(q), robot.connection.christoffel_first_kind(q), atol=1e-12
    )
    with pytest.raises(ConnectionSpecError, match="AffineConnection on the ambient system"):
        InducedConnection("robot", A=np.eye(3))


def test_point_closure_validation(pair):
    _, _, model = pair
    with pytest.raises(ModelError, match="body name"):
        PointClosure(model, "nowhere", [0, 0, 0], [0, 0, 0])
    with pytest.raises(ModelError, match="a body of the model"):
        PointClosure(model, 7, [0, 0, 0], [0, 0, 0])
    with pytest.raises(DimensionError, match="`point` to have shape"):
        PointClosure(model, 0, [0, 0], [0, 0, 0])
    with pytest.raises(DimensionError, match="`point` and `target` of shape \\(3,\\)"):
        PointClosure(model, 0, [[0, 0, 0]], [0, 0, 0])
    with pytest.raises(DimensionError, match="distinct world axes"):
        PointClosure(model, 0, [0, 0, 0], [0, 0, 0], axes=(0, 0))
    with pytest.raises(ModelError, match="positive lengths"):
        four_bar(crank=-1.0)
    with pytest.raises(ModelError, match="to close at crank angle"):
        four_bar(ground=5.0)
    assert "rocker" in repr(PointClosure(model, "rocker", [1, 0, 0], [0, 0, 0], "crank"))


def test_point_closure_jacobian_by_finite_differences(pair, rng):
    _, _, model = pair
    closure = PointClosure(model, "rocker", [0.3, 0.1, 0.2], [0.5, -0.2, 0.1], "crank")
    q = rng.uniform(-2, 2, 3)
    h = 1e-6
    fd = np.stack([(closure(q + h * e) - closure(q - h * e)) / (2 * h) for e in np.eye(3)], -1)
    np.testing.assert_allclose(closure.jacobian(q), fd, atol=1e-8)


def test_closed_chain_of_the_urdf_plus_four_bar_is_the_closed_model(rng):
    """ClosedChain on the spanning tree of a ClosedMultibodyModel, with its loop joint as a
    point closure, has the closed model's H̄ (cluster CRBA), ḡ, C̄v and forward dynamics (C-ABA):
    the projection method of seed 000 §VI-C1 and the cluster algorithms of seed 004 agree."""
    closed = load_example("four_bar")
    tree = closed.spanning_tree
    # URDF+ <loop name="C">: coupler point (0.32, 0, 0.1) = rocker point (0.02, 0, 0.25), in xz
    closure = PointClosure(
        tree, "coupler", [0.32, 0.0, 0.1], [0.02, 0.0, 0.25], "rocker", axes=(0, 2)
    )
    assert closed.independent_joints == ["crank_joint"]
    chain = ClosedChain(
        tree,
        closure,
        closed.independent_v_index,
        constraint_jacobian=closure.jacobian,
        reference=closed.neutral(),
    )
    for _ in range(3):
        q = closed.random_configuration(rng)
        v = rng.uniform(-2.0, 2.0, 1)
        assert np.abs(closure(q)).max() < 1e-12  # the closed model's q closes the point loop
        np.testing.assert_allclose(chain.mass_matrix(q), crba(closed, q), rtol=1e-10)
        np.testing.assert_allclose(
            chain.system.gravity_forces(q), gravity_forces(closed, q), rtol=1e-9, atol=1e-12
        )
        C = chain.coriolis_matrix(q, v)
        c = rnea(closed, q, v, np.zeros(1)) - gravity_forces(closed, q)
        np.testing.assert_allclose(C @ v, c, rtol=1e-8, atol=1e-12)
        tau = rng.uniform(-1.0, 1.0, 1)
        np.testing.assert_allclose(
            chain.system.forward_dynamics(q, v, tau), aba(closed, q, v, tau), rtol=1e-8
        )
    # and the closed model is itself a MechanicalSystem with the same metric
    assert isinstance(closed, MechanicalSystem)
    np.testing.assert_allclose(closed.mass_matrix(q), chain.system.mass_matrix(q), rtol=1e-10)
