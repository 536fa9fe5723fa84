"""Centre of mass, its Jacobian, the centroidal momentum matrix, its rate, the centroidal inertia.

References, none of them geomech's centroidal code:

(a) Pinocchio 4.1: ``centerOfMass``, ``jacobianCenterOfMass``, ``computeCentroidalMap``,
    ``dccrba`` (``dAg`` and ``Ig``) and ``computeCentroidalMapTimeVariation``, on URDFs loaded
    by both libraries (an arm, example-robot-data's Panda, Solo-12 and the Romeo humanoid with
    unaligned axes) and on random trees mixing every joint type, to 1e-10 relative;
(b) central differences of :math:`\\mathbf A_G` along the flow for :math:`\\dot{\\mathbf A}_G`
    (with a user joint whose motion subspace moves, and on closed models);
(c) identities computed from other geomech algorithms in numpy: the momenta of the bodies
    (``body_velocities``, ``forward_kinematics`` and the inertias) summed about the centre of
    mass give :math:`\\mathbf A_G\\nu`; a floating robot falling freely (``aba`` with zero
    joint forces) has :math:`\\dot{\\mathbf h}_G = [0; m\\mathbf g]`; the centroidal inertia is
    the sum of the bodies' inertias moved to the centre of mass.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from test_frames import (
    URDF_ROBOTS,
    flow_difference,
    from_pin_rows,
    rel_err,
    universal_pair,
    urdf_pair,
)

from geomech.errors import DimensionError, ModelError, NonFiniteError, NotOnManifoldError
from geomech.interop.pinocchio import PinocchioBridge
from geomech.multibody import Fixed, MultibodyModel, robots
from geomech.multibody.algorithms.centroidal import (
    center_of_mass,
    center_of_mass_jacobian,
    centroidal_inertia,
    centroidal_momentum_matrix,
    centroidal_momentum_matrix_rate,
)
from geomech.multibody.algorithms.dynamics import aba
from geomech.multibody.algorithms.kinematics import body_velocities, forward_kinematics
from geomech.multibody.io.examples import example_names, load_example

RTOL = 1e-10


def skew(x):
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


def compare_with_pinocchio(model, bridge, rng, n_states=3):
    """Every centroidal quantity on ``n_states`` random states; returns the worst errors."""
    pm, P = bridge.pin_model, bridge.P
    q = model.random_configuration(rng, size=n_states)
    v = rng.normal(size=(n_states, model.nv))
    ours = {
        "com": center_of_mass(model, q),
        "com jacobian": center_of_mass_jacobian(model, q),
        "A_G": centroidal_momentum_matrix(model, q),
        "A_G rate": centroidal_momentum_matrix_rate(model, q, v),
        "I_G": centroidal_inertia(model, q),
    }
    worst = {}
    for s in range(n_states):
        qp, vp = bridge.q_to_pin(q[s]), bridge.v_to_pin(v[s])
        pd = pm.createData()
        expected = {
            "com": pin.centerOfMass(pm, pd, qp).copy(),
            "com jacobian": pin.jacobianCenterOfMass(pm, pd, qp) @ P,
            "A_G": from_pin_rows(pin.computeCentroidalMap(pm, pd, qp), P),
        }
        pd = pm.createData()
        pin.dccrba(pm, pd, qp, vp)
        expected["A_G rate"] = from_pin_rows(pd.dAg, P)
        I_G = np.zeros((6, 6))
        I_G[:3, :3], I_G[3:, 3:] = pd.Ig.inertia, pd.Ig.mass * np.eye(3)
        expected["I_G"] = I_G
        # computeCentroidalMapTimeVariation: the same matrix once data.vcom is current
        pd = pm.createData()
        pin.centerOfMass(pm, pd, qp, vp)
        dAg = pin.computeCentroidalMapTimeVariation(pm, pd, qp, vp)
        expected["A_G rate (cMTV)"] = from_pin_rows(dAg, P)
        ours["A_G rate (cMTV)"] = ours["A_G rate"]
        for key, value in expected.items():
            worst[key] = max(worst.get(key, 0.0), rel_err(ours[key][s], value))
    for key, err in worst.items():
        assert err <= RTOL, f"{key}: relative error {err:.3g} > {RTOL:g}"
    return worst


@pytest.mark.parametrize(("name", "shipped"), URDF_ROBOTS)
def test_urdf_robot_centroidal_matches_pinocchio(name, shipped, rng):
    model, pm, _, _ = urdf_pair(name, shipped)
    compare_with_pinocchio(model, PinocchioBridge(model, pm), rng)


@pytest.mark.parametrize("floating_base", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_tree_centroidal_matches_pinocchio(seed, floating_base, mixed_tree):
    rng = np.random.default_rng(seed)
    model = mixed_tree(20, rng, floating_base=floating_base)
    # (a body welded to the world counts here, not in Pinocchio: the seeds have none)
    assert not welded_to_world(model)
    compare_with_pinocchio(model, PinocchioBridge(model), rng)


def welded_to_world(model):
    """Bodies joined to the world by Fixed joints only."""
    return [i for i in range(model.n_bodies)
            if all(model.joints[k].nv == 0 for k in model.supports(i))]  # fmt: skip


def test_pinocchio_time_variation_reads_a_stale_com_velocity(rng):
    """Pinocchio 4.1's computeCentroidalMapTimeVariation uses data.vcom[0] without computing it.

    On a fresh Data (vcom = 0) its dAg lacks -ċ × A_lin in the angular rows: a term that
    annihilates v (A_lin v = m ċ), so dAg v is right and the matrix is not dA_G/dt. geomech's
    rate is dA_G/dt: it differs from that dAg by exactly the term computed from the stale vcom.
    """
    model = robots.humanoid()
    bridge = PinocchioBridge(model)
    pm, P = bridge.pin_model, bridge.P
    q = model.random_configuration(rng)
    v = rng.normal(size=model.nv)
    pd = pm.createData()
    dAg = from_pin_rows(pin.computeCentroidalMapTimeVariation(pm, pd, bridge.q_to_pin(q),
                                                             bridge.v_to_pin(v)), P)  # fmt: skip
    stale = np.array(pd.vcom[0])
    ours = centroidal_momentum_matrix_rate(model, q, v)
    A = centroidal_momentum_matrix(model, q)
    mass = float(np.sum(model.inertias[:, 5, 5]))
    c_dot = A[3:] @ v / mass
    assert rel_err(ours @ v, dAg @ v) < RTOL  # the product agrees whatever vcom holds
    missing = np.zeros_like(ours)
    missing[:3] = -skew(c_dot - stale) @ A[3:]
    assert rel_err(ours, dAg + missing) < RTOL
    fd = flow_difference(lambda x: centroidal_momentum_matrix(model, x), model, q, v)
    assert rel_err(ours, fd) < 1e-7  # geomech's is the time derivative


# ----------------------------------------------------------------------------------------
# identities and central differences
# ----------------------------------------------------------------------------------------
def momenta_about_com(model, q, v):
    """h_G = Σ_i (ᴳX_i)* I_i v_i from the body twists, poses and inertias (numpy)."""
    T = forward_kinematics(model, q)
    V = body_velocities(model, q, v)
    c = center_of_mass(model, q)
    h = np.zeros(6)
    for i in range(model.n_bodies):
        R, p = T[i, :3, :3], T[i, :3, 3]
        f = model.inertias[i] @ V[i]  # [n; f] about body i's origin, body axes
        n, lin = R @ f[:3], R @ f[3:]
        h += np.concatenate([n + np.cross(p - c, lin), lin])
    return h


@pytest.mark.parametrize("floating_base", [False, True])
def test_centroidal_momentum_is_the_sum_of_the_bodies_momenta(floating_base, mixed_tree, rng):
    model = mixed_tree(25, rng, floating_base=floating_base)
    q = model.random_configuration(rng, size=3)
    v = rng.normal(size=(3, model.nv))
    A = centroidal_momentum_matrix(model, q)
    T = forward_kinematics(model, q)
    for s in range(3):
        assert rel_err(A[s] @ v[s], momenta_about_com(model, q[s], v[s])) < 1e-12
        # the centre of mass and the centroidal inertia from the bodies, in numpy
        m = model.inertias[:, 5, 5]
        h = np.stack(
            [model.inertias[:, 2, 4], model.inertias[:, 0, 5], model.inertias[:, 1, 3]], -1
        )
        com_i = np.einsum("bij,bj->bi", T[s, :, :3, :3], h) + m[:, None] * T[s, :, :3, 3]
        c = com_i.sum(0) / m.sum()
        assert rel_err(center_of_mass(model, q[s]), c) < 1e-12
        I_bar = np.zeros((3, 3))
        for i in range(model.n_bodies):
            X = np.zeros((6, 6))  # ^iX_G (world axes at c → body i)
            R, p = T[s, i, :3, :3], T[s, i, :3, 3]
            X[:3, :3] = X[3:, 3:] = R.T
            X[3:, :3] = -R.T @ skew(p - c)
            I_bar += (X.T @ model.inertias[i] @ X)[:3, :3]
        assert rel_err(centroidal_inertia(model, q[s])[:3, :3], I_bar) < 1e-12


@pytest.mark.parametrize("name", ["humanoid", "quadruped"])
def test_free_fall_changes_only_the_linear_momentum(name, rng):
    """ḣ_G = A_G a + Ȧ_G v = [0; m g] when only gravity acts (aba with zero joint forces)."""
    model = robots.load(name)
    q = model.random_configuration(rng, size=3)
    v = rng.normal(size=(3, model.nv))
    a = aba(model, q, v, np.zeros(model.nv))
    h_dot = np.einsum("bij,bj->bi", centroidal_momentum_matrix(model, q), a) + np.einsum(
        "bij,bj->bi", centroidal_momentum_matrix_rate(model, q, v), v
    )
    mass = float(np.sum(model.inertias[:, 5, 5]))
    expected = np.concatenate([np.zeros(3), mass * model.gravity])
    assert rel_err(h_dot, np.broadcast_to(expected, h_dot.shape)) < 1e-10


@pytest.mark.parametrize("seed", [5, 6])
def test_rate_is_the_derivative_along_the_flow(seed, mixed_tree):
    rng = np.random.default_rng(seed)
    model = mixed_tree(15, rng, floating_base=bool(seed % 2))
    q = model.random_configuration(rng)
    v = rng.normal(size=model.nv)
    fd = flow_difference(lambda x: centroidal_momentum_matrix(model, x), model, q, v)
    assert rel_err(centroidal_momentum_matrix_rate(model, q, v), fd) < 1e-7
    fd = flow_difference(lambda x: center_of_mass(model, x), model, q, v)
    assert rel_err(center_of_mass_jacobian(model, q) @ v, fd) < 1e-8


def test_a_universal_joint_equals_a_chain_through_a_massless_body(rng):
    model, chain = universal_pair(rng)
    q = rng.uniform(-2, 2, (4, 4))
    v = rng.uniform(-2, 2, (4, 4))
    for fun, args in (
        (center_of_mass, (q,)),
        (center_of_mass_jacobian, (q,)),
        (centroidal_momentum_matrix, (q,)),
        (centroidal_momentum_matrix_rate, (q, v)),
        (centroidal_inertia, (q,)),
    ):
        assert rel_err(fun(model, *args), fun(chain, *args)) < 1e-12, fun.__name__
    fd = flow_difference(lambda x: centroidal_momentum_matrix(model, x), model, q[0], v[0])
    assert rel_err(centroidal_momentum_matrix_rate(model, q[0], v[0]), fd) < 1e-7


def test_batches_broadcast_and_equal_single_calls(rng):
    model = robots.humanoid()
    q = model.random_configuration(rng, size=(2, 3))
    v = rng.normal(size=(3, model.nv))
    A_dot = centroidal_momentum_matrix_rate(model, q, v)  # (2, 3) with (3,): broadcast
    assert A_dot.shape == (2, 3, 6, model.nv)
    I_G = centroidal_inertia(model, q)
    for idx in np.ndindex(2, 3):
        assert np.allclose(A_dot[idx], centroidal_momentum_matrix_rate(model, q[idx], v[idx[1]]),
                           rtol=0, atol=1e-13)  # fmt: skip
        assert np.array_equal(I_G[idx], centroidal_inertia(model, q[idx]))
    assert center_of_mass(model, q.tolist()).shape == (2, 3, 3)


# ----------------------------------------------------------------------------------------
# closed models
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("floating_base", [False, True])
@pytest.mark.parametrize("name", example_names())
def test_closed_models_through_their_spanning_tree(name, floating_base, rng):
    model = load_example(name, floating_base=floating_base)
    st = model.spanning_tree
    q = model.random_configuration(rng, size=2)
    v = rng.normal(size=(2, model.nv))
    G, _, G_dot = model.constraint_matrices(q, v, rate=True)
    v_s = np.einsum("bij,bj->bi", G, v)
    assert np.array_equal(center_of_mass(model, q), center_of_mass(st, q))
    assert np.array_equal(centroidal_inertia(model, q), centroidal_inertia(st, q))
    A = centroidal_momentum_matrix(model, q)
    assert rel_err(A, centroidal_momentum_matrix(st, q) @ G) < 1e-12
    assert rel_err(center_of_mass_jacobian(model, q), center_of_mass_jacobian(st, q) @ G) < 1e-12
    A_dot = centroidal_momentum_matrix_rate(model, q, v)
    expected = centroidal_momentum_matrix_rate(st, q, v_s) @ G
    assert rel_err(A_dot, expected + centroidal_momentum_matrix(st, q) @ G_dot) < 1e-12
    fd = flow_difference(lambda x: centroidal_momentum_matrix(model, x), model, q[0], v[0],
                         h=1e-5)  # fmt: skip
    assert rel_err(A_dot[0], fd) < 1e-6


# ----------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------
def test_inputs_are_validated(rng):
    model = robots.double_pendulum()
    with pytest.raises(DimensionError):
        center_of_mass(model, np.zeros(3))
    with pytest.raises(DimensionError):
        centroidal_momentum_matrix_rate(model, np.zeros(2), np.zeros((2, 3)))
    with pytest.raises(NonFiniteError, match="`q` to be finite"):
        centroidal_momentum_matrix(model, [np.nan, 0.0])
    with pytest.raises(NonFiniteError, match="`v` to be finite"):
        centroidal_momentum_matrix_rate(model, np.zeros((2, 2)), [[0.0, np.inf], [0.0, 0.0]])
    with pytest.raises(ModelError, match="MultibodyModel, got NoneType"):
        center_of_mass(None, np.zeros(2))
    quad = robots.quadruped()
    q = quad.random_configuration(rng)
    q[3:7] *= 0.9
    with pytest.raises(NotOnManifoldError, match="unit quaternion"):
        centroidal_inertia(quad, q)
    closed = load_example("four_bar")
    with pytest.raises(NotOnManifoldError):
        center_of_mass(closed, closed.neutral() + 0.1)


def test_a_massless_model_has_no_centre_of_mass():
    G = robots.double_pendulum().graph.copy()
    for node in ("link1", "link2"):
        G.nodes[node]["inertia"] = np.zeros((6, 6))
    model = MultibodyModel(G)
    for fun in (center_of_mass, center_of_mass_jacobian, centroidal_momentum_matrix,
                centroidal_inertia):  # fmt: skip
        with pytest.raises(ModelError, match="positive total mass"):
            fun(model, [0.0, 0.0])


def test_a_body_welded_to_the_world_counts(rng):
    """geomech counts it; Pinocchio (to_pinocchio appends it to 'universe') leaves it out."""
    G = robots.double_pendulum().graph.copy()
    T = np.eye(4)
    T[:3, 3] = [2.0, 0.0, 0.0]
    G.add_node("table", inertia=robots.random_inertia(rng, 1)[0])
    G.add_edge("world", "table", joint=Fixed(), placement=T)
    model = MultibodyModel(G)
    q = model.random_configuration(rng)
    T_all = forward_kinematics(model, q)
    m = model.inertias[:, 5, 5]
    h = np.stack([model.inertias[:, 2, 4], model.inertias[:, 0, 5], model.inertias[:, 1, 3]], -1)
    first = np.einsum("bij,bj->bi", T_all[:, :3, :3], h) + m[:, None] * T_all[:, :3, 3]
    assert rel_err(center_of_mass(model, q), first.sum(0) / m.sum()) < 1e-12
    bridge = PinocchioBridge(model)
    pd = bridge.pin_model.createData()
    c_pin = pin.centerOfMass(bridge.pin_model, pd, bridge.q_to_pin(q))
    movers = np.arange(model.n_bodies) != model.body_index("table")
    assert rel_err(c_pin, first[movers].sum(0) / m[movers].sum()) < 1e-12
