"""Inertial parameters and the Slotine-Li regressor, against Pinocchio and slotine_li_torques.

References:
* ``pinocchio.Inertia(m, c, I_c).toDynamicParameters()`` / ``.matrix()`` (linear-first 6x6) for
  the parameter <-> spatial-inertia maps;
* ``slotine_li_torques`` (the O(N) modified RNEA, itself checked against the dense C of
  seed 000 eq. 20 in test_slotine_li.py) for ``Y pi`` with every named body connection;
* ``pinocchio.computeJointTorqueRegressor`` for v_ref = v, a_ref = a, Levi-Civita (the
  inverse-dynamics regressor), on the UR5 URDF, the floating JVRC-1 URDF and random trees.
"""

import networkx as nx
import numpy as np
import pinocchio as pin
import pytest

from geomech.errors import (
    ConnectionSpecError,
    DimensionError,
    InertiaError,
    ModelError,
    NonFiniteError,
)
from geomech.geometry import LeviCivitaConnection
from geomech.geometry.examples import rigid_body_se3
from geomech.interop.pinocchio import PinocchioBridge
from geomech.multibody import robots
from geomech.multibody.algorithms.coriolis import slotine_li_torques
from geomech.multibody.algorithms.dynamics import crba, gravity_forces, rnea
from geomech.multibody.algorithms.regressor import slotine_li_regressor
from geomech.multibody.connections.body import CallableBody, body_connection_names
from geomech.multibody.io.robots import random_inertia
from geomech.multibody.io.urdf import load_urdf
from geomech.spatial import (
    crf,
    crm,
    dynamic_parameters,
    inertia_from_dynamic_parameters,
    inertia_parameters,
)

RTOL = 1e-11


def rel_err(actual, expected):
    actual, expected = np.asarray(actual), np.asarray(expected)
    return float(np.max(np.abs(actual - expected)) / max(1.0, float(np.max(np.abs(expected)))))


def linear_first(M):
    """Geomech angular-first 6x6 -> Pinocchio linear-first."""
    P = np.block([[np.zeros((3, 3)), np.eye(3)], [np.eye(3), np.zeros((3, 3))]])
    return P @ M @ P


# ---- parameters <-> spatial inertia ------------------------------------------------------


def test_dynamic_parameters_match_pinocchio(rng):
    inertias = random_inertia(rng, (4, 5))
    pi = dynamic_parameters(inertias)  # one batched call
    assert pi.shape == (4, 5, 10)
    m, c, Ic = inertia_parameters(inertias)
    for idx in np.ndindex(4, 5):
        ref = pin.Inertia(float(m[idx]), c[idx], Ic[idx])
        np.testing.assert_allclose(pi[idx], ref.toDynamicParameters(), rtol=0, atol=1e-14)
        # and the matrices agree once Pinocchio's linear-first ordering is undone
        np.testing.assert_allclose(linear_first(inertias[idx]), ref.matrix(), rtol=0, atol=1e-14)


def test_inertia_from_dynamic_parameters_matches_pinocchio(rng):
    inertias = random_inertia(rng, 6)
    m, c, Ic = inertia_parameters(inertias)
    pis = np.stack([pin.Inertia(float(m[k]), c[k], Ic[k]).toDynamicParameters() for k in range(6)])
    I = inertia_from_dynamic_parameters(pis)
    for k in range(6):
        ref = pin.Inertia.FromDynamicParameters(pis[k]).matrix()
        np.testing.assert_allclose(linear_first(I[k]), ref, rtol=0, atol=1e-14)


def test_parameter_round_trips(rng):
    inertias = random_inertia(rng, (3, 2))
    np.testing.assert_allclose(
        inertia_from_dynamic_parameters(dynamic_parameters(inertias)), inertias, atol=1e-15
    )
    pi = rng.normal(size=(7, 10))  # any vector maps (the map is linear, not only physical)
    np.testing.assert_allclose(dynamic_parameters(inertia_from_dynamic_parameters(pi)), pi)
    # linearity: I(a pi1 + b pi2) = a I(pi1) + b I(pi2)
    np.testing.assert_allclose(
        inertia_from_dynamic_parameters(2.0 * pi[0] - 3.0 * pi[1]),
        2.0 * inertia_from_dynamic_parameters(pi[0]) - 3.0 * inertia_from_dynamic_parameters(pi[1]),
        atol=1e-14,
    )


def test_parameter_maps_validate_input():
    with pytest.raises(DimensionError, match="inertia"):
        dynamic_parameters(np.eye(5))
    with pytest.raises(NonFiniteError):
        dynamic_parameters(np.full((6, 6), np.nan))
    bad = np.eye(6)
    bad[3, 3] = 2.0  # lower-right block not m 1
    with pytest.raises(InertiaError, match="spatial-inertia form"):
        dynamic_parameters(bad)
    batch = np.stack([np.eye(6), np.eye(6)])
    batch[1, 0, 4] = 1.0  # not symmetric
    with pytest.raises(InertiaError, match="batch index"):
        dynamic_parameters(batch)
    with pytest.raises(DimensionError, match="pi"):
        inertia_from_dynamic_parameters(np.ones(9))


# ---- MultibodyModel.with_inertias --------------------------------------------------------


def test_with_inertias_keeps_everything_but_the_inertias(rng, mixed_tree):
    model = mixed_tree(8, rng, floating_base=True)
    new = random_inertia(rng, model.n_bodies)
    old = model.inertias.copy()
    other = model.with_inertias(new)
    np.testing.assert_array_equal(other.inertias, new)
    np.testing.assert_array_equal(model.inertias, old)  # the original is untouched
    assert other.body_names == model.body_names and other.joint_names == model.joint_names
    np.testing.assert_array_equal(other.parent, model.parent)
    np.testing.assert_array_equal(other.placements, model.placements)
    np.testing.assert_array_equal(other.gravity, model.gravity)
    assert nx.utils.graphs_equal(nx.DiGraph(other.graph.edges), nx.DiGraph(model.graph.edges))
    # dynamics is linear in the inertias: H(2 I) = 2 H(I), g(2 I) = 2 g(I)
    q = model.random_configuration(rng)
    twice = model.with_inertias(2.0 * old)
    np.testing.assert_allclose(crba(twice, q), 2.0 * crba(model, q), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        gravity_forces(twice, q), 2.0 * gravity_forces(model, q), rtol=1e-12, atol=1e-12
    )


def test_with_inertias_validates():
    model = robots.double_pendulum()
    with pytest.raises(DimensionError, match=r"\(2, 6, 6\)"):
        model.with_inertias(np.zeros((3, 6, 6)))
    with pytest.raises(ModelError, match="nonnegative mass"):
        model.with_inertias(-model.inertias)
    with pytest.raises(NonFiniteError):
        model.with_inertias(np.full((2, 6, 6), np.inf))
    indefinite = model.inertias.copy()
    indefinite[0, :3, :3] -= 5.0 * np.eye(3)
    with pytest.raises(ModelError, match="positive semi-definite"):
        model.with_inertias(indefinite)


# ---- the regressor ----------------------------------------------------------------------


def _models():
    rng = np.random.default_rng(11)
    from conftest import mixed_tree

    return {
        "double-pendulum": robots.double_pendulum(radius=0.1),
        "point-mass-pendulum": robots.double_pendulum(),
        "quadruped": robots.quadruped(),  # free-floating
        "mixed-floating": mixed_tree(7, rng, floating_base=True),  # every joint type
        "ur5": robots.load("ur5"),
    }


MODELS = _models()


def _pi(model):
    return dynamic_parameters(model.inertias).reshape(-1)


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("connection", body_connection_names())
def test_regressor_times_parameters_is_slotine_li_torques(name, connection, rng):
    model = MODELS[name]
    q = model.random_configuration(rng, size=3)
    v, v_r, a_r = rng.uniform(-2.0, 2.0, (3, 3, model.nv))
    Y = slotine_li_regressor(model, q, v, v_r, a_r, connection)
    assert Y.shape == (3, model.nv, 10 * model.n_bodies)
    tau = slotine_li_torques(model, q, v, v_r, a_r, connection)
    assert rel_err(Y @ _pi(model), tau) < RTOL
    # the regressor does not depend on the inertias: it serves any parameters
    other = model.with_inertias(random_inertia(rng, model.n_bodies))
    assert rel_err(Y @ _pi(other), slotine_li_torques(other, q, v, v_r, a_r, connection)) < RTOL


def test_regressor_broadcasts_batches_and_gravity(rng):
    model = MODELS["mixed-floating"]
    q = model.random_configuration(rng, size=(2, 1))
    v, v_r, a_r = rng.normal(size=(3, 4, model.nv))
    g = rng.normal(size=(2, 4, 3))
    Y = slotine_li_regressor(model, q, v, v_r, a_r, "boltzmann-hamel", gravity=g)
    assert Y.shape == (2, 4, model.nv, 10 * model.n_bodies)
    for i, j in np.ndindex(2, 4):
        Y1 = slotine_li_regressor(model, q[i, 0], v[j], v_r[j], a_r[j], "boltzmann-hamel", g[i, j])
        np.testing.assert_allclose(Y[i, j], Y1, rtol=0, atol=1e-12)
        tau = slotine_li_torques(model, q[i, 0], v[j], v_r[j], a_r[j], "boltzmann-hamel", g[i, j])
        assert rel_err(Y1 @ _pi(model), tau) < RTOL


def test_regressor_per_body_connection_mapping(rng):
    model = MODELS["ur5"]
    conn = {model.body_names[1]: "velocity-cross", model.body_names[4]: "cartan-plus"}
    q = model.random_configuration(rng)
    v, v_r, a_r = rng.normal(size=(3, model.nv))
    Y = slotine_li_regressor(model, q, v, v_r, a_r, conn)
    assert rel_err(Y @ _pi(model), slotine_li_torques(model, q, v, v_r, a_r, conn)) < RTOL


def test_regressor_block_structure_follows_supports(rng):
    # body i's parameters act only on the joints of its support kappa(i) (O(N d) blocks)
    model = robots.binary_tree(7)
    q = model.random_configuration(rng)
    v, v_r, a_r = rng.normal(size=(3, model.nv))
    Y = slotine_li_regressor(model, q, v, v_r, a_r)
    for i in range(model.n_bodies):
        for j in range(model.n_bodies):
            block = Y[model.v_slices[j], 10 * i : 10 * i + 10]
            if j in model.supports(i):
                assert np.abs(block).max() > 0.0
            else:
                assert np.abs(block).max() == 0.0


def test_regressor_with_actual_motion_is_inverse_dynamics(rng):
    model = MODELS["quadruped"]
    q = model.random_configuration(rng, size=4)
    v, a = rng.normal(size=(2, 4, model.nv))
    for connection in ("levi-civita", "velocity-cross", "boltzmann-hamel"):  # correct dynamics
        Y = slotine_li_regressor(model, q, v, v, a, connection)
        assert rel_err(Y @ _pi(model), rnea(model, q, v, a)) < RTOL


# ---- against Pinocchio's computeJointTorqueRegressor ---------------------------------------


def pinocchio_regressor_error(bridge, rng, n_states=4):
    model = bridge.model
    worst = 0.0
    q = model.random_configuration(rng, size=n_states)
    v, a = rng.normal(size=(2, n_states, model.nv))
    Y = slotine_li_regressor(model, q, v, v, a)  # one batched call
    for k in range(n_states):
        Y_pin = pin.computeJointTorqueRegressor(
            bridge.pin_model,
            bridge.pin_data,
            bridge.q_to_pin(q[k]),
            bridge.v_to_pin(v[k]),
            bridge.v_to_pin(a[k]),
        )
        # rows: speeds permuted to geomech's; columns: body i <-> its Pinocchio joint
        Y_pin = bridge.P.T @ Y_pin
        cols = [np.arange(10 * (jid - 1), 10 * jid) for jid, _ in bridge.body_frames]
        worst = max(worst, rel_err(Y[k], Y_pin[:, np.concatenate(cols)]))
    return worst


def test_regressor_matches_pinocchio_on_ur5(rng):
    path = str(robots.urdf_path("ur5"))
    model = load_urdf(path)
    bridge = PinocchioBridge(model, pin.buildModelFromUrdf(path))
    # same parameters on both sides (the column blocks are then comparable)
    pi_pin = np.concatenate(
        [bridge.pin_model.inertias[jid].toDynamicParameters() for jid, _ in bridge.body_frames]
    )
    assert rel_err(_pi(model), pi_pin) < 1e-14
    assert pinocchio_regressor_error(bridge, rng) < 1e-12  # measured 2.7e-16 relative


def test_regressor_matches_pinocchio_on_floating_jvrc1(rng):
    path = str(robots.urdf_path("jvrc1"))
    model = load_urdf(path, floating_base=True)
    pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    bridge = PinocchioBridge(model, pm)
    assert pinocchio_regressor_error(bridge, rng, n_states=2) < 1e-12


@pytest.mark.parametrize("seed", [0, 1])
def test_regressor_matches_pinocchio_on_random_trees(seed, mixed_tree):
    rng = np.random.default_rng([17, seed])
    kinds = ["revolute", "prismatic", "helical", "spherical", "planar", "schoenflies"]
    model = mixed_tree(9, rng, kinds=kinds, floating_base=bool(seed))
    assert pinocchio_regressor_error(PinocchioBridge(model), rng) < 1e-12


# ---- validation ---------------------------------------------------------------------------


def test_regressor_rejects_connections_not_linear_in_the_inertia():
    model = robots.double_pendulum(m1=2.0, m2=3.0, radius=0.1)
    q, v = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    fixed = LeviCivitaConnection(rigid_body_se3(model.inertias[0]))
    with pytest.raises(ConnectionSpecError, match="not linear in the body's inertia"):
        slotine_li_regressor(model, q, v, v, v, {model.body_names[0]: fixed})
    quadratic = CallableBody(lambda v, I: I[..., 5:, 5:] ** 2 * crm(v), "quadratic")  # m^2 (v x)
    with pytest.raises(ConnectionSpecError, match="linear in the inertia"):
        slotine_li_regressor(model, q, v, v, v, quadratic)
    # a user connection that is linear in I passes and agrees with slotine_li_torques
    linear = CallableBody(lambda v, I: 0.3 * I @ crm(v) - 0.2 * crf(v) @ I, "linear")
    Y = slotine_li_regressor(model, q, v, 0.5 * v, -v, linear)
    assert rel_err(Y @ _pi(model), slotine_li_torques(model, q, v, 0.5 * v, -v, linear)) < RTOL


def test_regressor_validates_shapes():
    model = robots.double_pendulum()
    z = np.zeros(2)
    with pytest.raises(DimensionError, match="`v_ref`"):
        slotine_li_regressor(model, z, z, np.zeros(3), z)
    with pytest.raises(DimensionError, match="`q`"):
        slotine_li_regressor(model, np.zeros(3), z, z, z)
    with pytest.raises(DimensionError, match="broadcast"):
        slotine_li_regressor(model, np.zeros((2, 2)), np.zeros((3, 2)), z, z)
    with pytest.raises(NonFiniteError):
        slotine_li_regressor(model, z, z, z, np.array([np.nan, 0.0]))
    with pytest.raises(ConnectionSpecError):
        slotine_li_regressor(model, z, z, z, z, "no-such-connection")
