"""Coriolis matrices of kinematic trees (seed 000 Alg. 1) against independent references.

- Pinocchio 4.1 ``computeCoriolisMatrix`` (Christoffel consistent) for "levi-civita", on the shipped
  URDFs (fixed and floating base), the built-in humanoid and random trees mixing every joint type,
  twist order converted by :class:`~geomech.interop.pinocchio.PinocchioBridge` (acceptance: 1e-9
  relative);
- the dense maximal-coordinates law C = A^T C A + A^T H A_dot (seed 000 eq. 20) for every
  named connection, and the same law with A_dot by central differences along the flow;
- the RNEA: C v = RNEA(q, v, 0) - g for every connection with correct dynamics;
- H_dot by central differences of the CRBA along model.integrate(q, v, +-h): H_dot = C + C^T
  for every metric-compatible connection;
- a hand-derived planar 2R arm (literal values);
- the differentiation form (seed 000 eqs. 29-32), a different algorithm (RNEA polarization).
"""

import numpy as np
import pinocchio as pin
import pytest
from test_coriolis_models import (
    fd_along_flow,
    mixed_fixed_base,
    mixed_floating_base,
    random_state,
    user_joint_tree,
)

from geomech.errors import ConnectionSpecError, DimensionError, GeomechError
from geomech.geometry import LeviCivitaConnection
from geomech.geometry.examples import rigid_body_se3, rigid_body_so3
from geomech.interop.pinocchio import PinocchioBridge
from geomech.multibody import MultibodyModel, Revolute, robots
from geomech.multibody.algorithms.coriolis import (
    coriolis_matrix,
    coriolis_matrix_dense,
    coriolis_matrix_differentiation,
    mass_matrix_derivative,
)
from geomech.multibody.algorithms.dynamics import crba, gravity_forces, rnea
from geomech.multibody.algorithms.kinematics import velocity_map
from geomech.multibody.connections.body import NAMED_BODY_CONNECTIONS
from geomech.multibody.io.urdf import load_urdf
from geomech.spatial import crm, spatial_inertia

RTOL = 1e-9
COMPATIBLE = ["levi-civita", "cartan-minus", "velocity-cross", "boltzmann-hamel"]
CORRECT = ["levi-civita", "velocity-cross", "boltzmann-hamel"]
MODELS = {
    "mixed-fixed": mixed_fixed_base,
    "mixed-floating": mixed_floating_base,
    "user-joints": user_joint_tree,
    "humanoid": robots.humanoid,
}


@pytest.fixture(scope="module", params=list(MODELS))
def model(request):
    return MODELS[request.param]()


def rel_err(actual, expected):
    return float(np.max(np.abs(actual - expected)) / max(1.0, float(np.max(np.abs(expected)))))


# ----------------------------------------------------------------------------------------
# Pinocchio
# ----------------------------------------------------------------------------------------
def compare_with_pinocchio(bridge, rng, n_states=4):
    model = bridge.model
    q = model.random_configuration(rng, size=n_states)
    v = rng.uniform(-3.0, 3.0, (n_states, model.nv))
    C = coriolis_matrix(model, q, v)  # one batched call
    worst = 0.0
    for k in range(n_states):
        C_pin = pin.computeCoriolisMatrix(
            bridge.pin_model, bridge.pin_data, bridge.q_to_pin(q[k]), bridge.v_to_pin(v[k])
        )
        worst = max(worst, rel_err(C[k], bridge.matrix_from_pin(C_pin)))
    assert worst < RTOL
    return worst


@pytest.mark.parametrize(
    "name, floating_base",
    [("ur5", False), ("stretch", False), ("stretch", True), ("jvrc1", False), ("jvrc1", True)],
)
def test_shipped_urdf_matches_pinocchio(name, floating_base, rng):
    path = str(robots.urdf_path(name))
    model = load_urdf(path, floating_base=floating_base)
    pm = (
        pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
        if floating_base
        else (pin.buildModelFromUrdf(path))
    )
    compare_with_pinocchio(PinocchioBridge(model, pm), rng)


@pytest.mark.parametrize("fixed_base", [False, True])
def test_builtin_humanoid_matches_pinocchio(fixed_base, rng):
    compare_with_pinocchio(PinocchioBridge(robots.humanoid(fixed_base=fixed_base)), rng)


@pytest.mark.parametrize("n, seed", [(3, 0), (12, 1), (30, 0), (30, 1)])
def test_random_tree_matches_pinocchio(n, seed, mixed_tree):
    rng = np.random.default_rng([n, seed, 6])
    model = mixed_tree(n, rng, floating_base=bool(seed))
    compare_with_pinocchio(PinocchioBridge(model), rng)


@pytest.mark.parametrize("floating_base", [False, True])
def test_builtin_random_tree_matches_pinocchio(floating_base, rng):
    model = robots.random_tree(25, rng=7, floating_base=floating_base)
    compare_with_pinocchio(PinocchioBridge(model), rng)


def test_massless_link_matches_pinocchio_and_dense(rng):
    """A massless intermediate link (zero inertia): the maximal metric is only semi-definite."""
    from geomech.multibody import FreeFlyer, Spherical

    inertias = robots.random_inertia(rng, 4)
    inertias[1] = 0.0
    T = np.eye(4)
    T[:3, 3] = [0.1, -0.2, 0.3]
    model = MultibodyModel.from_bodies(
        [-1, 0, 1, 1],
        [FreeFlyer(), Spherical(), Revolute([1, 0, 0]), Revolute([0, 1, 0])],
        inertias,
        [np.eye(4), T, T, T],
    )
    compare_with_pinocchio(PinocchioBridge(model), rng)
    q, v = random_state(model, rng)
    for connection in NAMED_BODY_CONNECTIONS:
        assert (
            rel_err(
                coriolis_matrix(model, q, v, connection),
                coriolis_matrix_dense(model, q, v, connection),
            )
            < 1e-12
        )


@pytest.mark.parametrize(
    "kind",
    [
        "revolute",
        "prismatic",
        "helical",
        "spherical",
        "planar",
        "schoenflies",
        "free_flyer",
        "fixed",
    ],
)
def test_each_joint_type_matches_pinocchio(kind, mixed_tree, rng):
    compare_with_pinocchio(
        PinocchioBridge(mixed_tree(5, rng, kinds=[kind], floating_base=False)), rng
    )


# ----------------------------------------------------------------------------------------
# the transformation law and the identities, for every named connection
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("connection", NAMED_BODY_CONNECTIONS)
def test_equals_dense_reference(model, connection, rng):
    q, v = random_state(model, rng)
    C = coriolis_matrix(model, q, v, connection)
    assert rel_err(C, coriolis_matrix_dense(model, q, v, connection)) < 1e-12


@pytest.mark.parametrize("connection", ["levi-civita", "boltzmann-hamel"])
def test_equals_transformation_law_with_fd_A_dot(connection, rng):
    """A_dot by central differences of A along integrate(q, +-h v) (not velocity_map's A_dot)."""
    model = user_joint_tree()
    q, v = random_state(model, rng)
    A, _ = velocity_map(model, q, v)
    A_dot = fd_along_flow(lambda x: velocity_map(model, x), model, q, v, h=1e-6)
    N = model.n_bodies
    twists = (A @ v).reshape(N, 6)
    from geomech.multibody.connections.body import body_connection

    conn = body_connection(connection)
    H = np.zeros((6 * N, 6 * N))
    C = np.zeros((6 * N, 6 * N))
    for i in range(N):
        b = slice(6 * i, 6 * i + 6)
        H[b, b] = model.inertias[i]
        C[b, b] = conn.coriolis(model.inertias[i], twists[i])
    C_bar = A.T @ C @ A + A.T @ H @ A_dot
    assert rel_err(coriolis_matrix(model, q, v, connection), C_bar) < 1e-7


@pytest.mark.parametrize("connection", NAMED_BODY_CONNECTIONS)
def test_correct_dynamics_iff_riemannian_geodesics(model, connection, rng):
    q, v = random_state(model, rng)
    C = coriolis_matrix(model, q, v, connection)
    c = rnea(model, q, v, np.zeros(model.nv)) - gravity_forces(model, q)
    err = rel_err(C @ v, c)
    if connection in CORRECT:
        assert err < 1e-12
    else:
        assert err > 1e-3


@pytest.mark.parametrize("connection", NAMED_BODY_CONNECTIONS)
def test_skew_iff_metric_compatible(model, connection, rng):
    q, v = random_state(model, rng)
    C = coriolis_matrix(model, q, v, connection)
    H_dot = fd_along_flow(lambda x: crba(model, x), model, q, v, h=1e-6)
    err = rel_err(H_dot - C - C.T, 0.0 * H_dot)
    if connection in COMPATIBLE:
        assert err < 1e-7  # finite differences
    else:
        assert err > 1e-3


def test_mass_matrix_derivative(model, rng):
    q, v = random_state(model, rng)
    H_dot = fd_along_flow(lambda x: crba(model, x), model, q, v, h=1e-6)
    assert rel_err(mass_matrix_derivative(model, q, v), H_dot) < 1e-7


def test_differentiation_form(model, rng):
    q, v = random_state(model, rng)
    C = coriolis_matrix(model, q, v)
    assert rel_err(coriolis_matrix_differentiation(model, q, v), C) < 1e-12


def test_half_dc_dv_is_not_christoffel_with_generalized_speeds(rng):
    """Seed 000 §7 item 7: without the K term (coordinates only) the result is wrong."""
    model = mixed_floating_base()
    q, v = random_state(model, rng)
    n = model.nv
    E = np.eye(n)
    c = rnea(model, q, np.stack([v + E, v - E]), np.zeros(n), gravity=np.zeros(3))
    half_dc_dv = 0.25 * (c[0] - c[1]).T
    assert rel_err(half_dc_dv, coriolis_matrix(model, q, v)) > 1e-2
    S = half_dc_dv + half_dc_dv.T - mass_matrix_derivative(model, q, v)
    assert np.max(np.abs(S)) > 1e-2  # not skew either


# ----------------------------------------------------------------------------------------
# a literal value: the planar 2R arm with point masses at the link ends
# ----------------------------------------------------------------------------------------
def test_planar_two_link_arm_literal():
    m1, m2, l1, l2 = 1.5, 0.7, 0.8, 0.6
    T = np.eye(4)
    T[0, 3] = l1
    model = MultibodyModel.from_bodies(
        [-1, 0],
        [Revolute([0, 0, 1]), Revolute([0, 0, 1])],
        [
            spatial_inertia(m1, [l1, 0, 0], np.zeros((3, 3))),
            spatial_inertia(m2, [l2, 0, 0], np.zeros((3, 3))),
        ],
        [np.eye(4), T],
    )
    q, v = np.array([0.4, 1.1]), np.array([0.9, -1.7])
    h = m2 * l1 * l2 * np.sin(q[1])  # Spong, Hutchinson, Vidyasagar (2006), eq. 7.87
    C_ref = np.array([[-h * v[1], -h * (v[0] + v[1])], [h * v[0], 0.0]])
    np.testing.assert_allclose(coriolis_matrix(model, q, v), C_ref, atol=1e-14)
    np.testing.assert_allclose(coriolis_matrix_dense(model, q, v), C_ref, atol=1e-14)
    # H_dot = C + C^T: [[-2 h v2, -h v2], [-h v2, 0]]
    np.testing.assert_allclose(
        mass_matrix_derivative(model, q, v),
        [[-2 * h * v[1], -h * v[1]], [-h * v[1], 0.0]],
        atol=1e-14,
    )


# ----------------------------------------------------------------------------------------
# per-body connections, user connections, batching
# ----------------------------------------------------------------------------------------
def test_per_body_mapping(rng):
    model = mixed_floating_base()
    q, v = random_state(model, rng)
    names = model.body_names
    mapping = {names[0]: "boltzmann-hamel", names[2]: "velocity-cross", names[5]: "cartan-minus"}
    C = coriolis_matrix(model, q, v, mapping)
    assert rel_err(C, coriolis_matrix_dense(model, q, v, mapping)) < 1e-12
    # still skew (all compatible), no longer correct (cartan-minus on one body)
    H_dot = fd_along_flow(lambda x: crba(model, x), model, q, v, h=1e-6)
    assert rel_err(H_dot - C - C.T, 0 * C) < 1e-7
    c = rnea(model, q, v, np.zeros(model.nv)) - gravity_forces(model, q)
    assert rel_err(C @ v, c) > 1e-3
    del mapping[names[5]]
    assert rel_err(coriolis_matrix(model, q, v, mapping) @ v, c) < 1e-12
    # unlisted bodies use levi-civita
    np.testing.assert_allclose(coriolis_matrix(model, q, v, {}), coriolis_matrix(model, q, v))


def test_user_connections_per_body(rng):
    model = mixed_fixed_base()
    q, v = random_state(model, rng)
    b = model.body_names[3]
    conn = LeviCivitaConnection(rigid_body_se3(model.inertias[3]))
    C = coriolis_matrix(model, q, v, {b: conn})
    np.testing.assert_allclose(C, coriolis_matrix(model, q, v), atol=1e-12)
    C2 = coriolis_matrix(model, q, v, lambda v_i, I_i: crm(v_i) * 0.0 + I_i @ crm(v_i))
    np.testing.assert_allclose(C2, coriolis_matrix(model, q, v, "cartan-plus"), atol=1e-12)


def test_batched_equals_loop(rng):
    model = mixed_floating_base()
    q = model.random_configuration(rng, size=(2, 3))
    v = rng.normal(size=(2, 3, model.nv))
    for connection in ("levi-civita", "velocity-cross"):
        C = coriolis_matrix(model, q, v, connection)
        assert C.shape == (2, 3, model.nv, model.nv)
        for idx in np.ndindex(2, 3):
            np.testing.assert_allclose(
                C[idx], coriolis_matrix(model, q[idx], v[idx], connection), atol=1e-13
            )
        np.testing.assert_allclose(coriolis_matrix_dense(model, q, v, connection), C, atol=1e-12)
    # one configuration, several speeds (broadcasting)
    C = coriolis_matrix(model, q[0, 0], v[0])
    np.testing.assert_allclose(C[1], coriolis_matrix(model, q[0, 0], v[0, 1]), atol=1e-13)
    np.testing.assert_allclose(
        coriolis_matrix_differentiation(model, q, v), coriolis_matrix(model, q, v), atol=1e-11
    )


# ----------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------
def test_validation_errors(rng):
    model = mixed_floating_base()
    q, v = random_state(model, rng)
    with pytest.raises(
        DimensionError, match=rf"`v` to have shape \(\.\.\., {model.nv}\), got \(5,\)"
    ):
        coriolis_matrix(model, q, np.ones(5))
    with pytest.raises(DimensionError, match="`q` to have shape"):
        coriolis_matrix(model, q[:-1], v)
    with pytest.raises(DimensionError, match="broadcast"):
        coriolis_matrix(model, np.stack([q, q]), np.ones((3, model.nv)))
    with pytest.raises(ConnectionSpecError, match="Unknown connection name 'cartan'"):
        coriolis_matrix(model, q, v, "cartan")
    with pytest.raises(ConnectionSpecError, match="Unknown connection name 'nope'"):
        coriolis_matrix_dense(model, q, v, {model.body_names[1]: "nope"})
    with pytest.raises(ConnectionSpecError, match="keys of `connection` to be body names.*'wheel'"):
        coriolis_matrix(model, q, v, {"wheel": "levi-civita"})
    with pytest.raises(ConnectionSpecError, match=r"body 'body0'.*shape \(6, 6\), got \(3,\)"):
        coriolis_matrix(model, q, v, lambda v_i, I_i: np.zeros(3))
    with pytest.raises(ConnectionSpecError, match="dimension 6, 4x4 points"):
        coriolis_matrix(model, q, v, LeviCivitaConnection(rigid_body_so3(np.eye(3))))
    with pytest.raises(ConnectionSpecError, match="body 'body0'.*equal the spatial inertia"):
        coriolis_matrix(model, q, v, LeviCivitaConnection(rigid_body_se3(np.eye(6))))
    with pytest.raises(ConnectionSpecError, match="got list"):
        coriolis_matrix(model, q, v, ["levi-civita"])
    for fun in (coriolis_matrix_differentiation, mass_matrix_derivative):
        with pytest.raises(GeomechError, match="`v`"):
            fun(model, q, np.ones(model.nv + 1))
