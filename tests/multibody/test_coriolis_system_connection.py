"""The whole system's connection of a kinematic tree (model_connection) in the geometry layer.

References: the geometry layer's own Koszul connection (LeviCivitaConnection) on the same
system (finite differences of the CRBA along the flow), the RNEA (gravity), energy
conservation along geodesics, finite differences of the chart, and the property table of
the body connections (Props. V.1-V.3: the properties are inherited).
"""

import numpy as np
import pytest
from test_coriolis_models import mixed_fixed_base, mixed_floating_base, user_joint_tree

from geomech.errors import ConnectionSpecError, DimensionError
from geomech.geometry import AffineConnection, LeviCivitaConnection, MechanicalSystem
from geomech.multibody import robots
from geomech.multibody.algorithms.christoffel import christoffel_symbols
from geomech.multibody.algorithms.coriolis import coriolis_matrix
from geomech.multibody.algorithms.dynamics import crba, gravity_forces
from geomech.multibody.connections.body import NAMED_BODY_CONNECTIONS
from geomech.multibody.model.connection import (
    MultibodyConnection,
    connection_report,
    format_connection_report,
    model_connection,
)

EXPECTED = {  # (metric compatible, Riemannian geodesics, torsion free), inherited from bodies
    "levi-civita": (True, True, True),
    "cartan-minus": (True, False, False),
    "cartan-zero": (False, False, True),
    "cartan-plus": (False, False, False),
    "velocity-cross": (True, True, False),
    "boltzmann-hamel": (True, True, False),
}
MODELS = {
    "mixed-fixed": mixed_fixed_base,
    "mixed-floating": mixed_floating_base,
    "user-joints": user_joint_tree,
}


@pytest.fixture(scope="module", params=list(MODELS))
def model(request):
    return MODELS[request.param]()


def test_is_an_affine_connection_on_a_mechanical_system(model, rng):
    conn = model_connection(model)
    assert isinstance(conn, AffineConnection) and isinstance(conn, MultibodyConnection)
    assert isinstance(conn.system, MechanicalSystem) and conn.system is model  # a robot is one
    assert conn.dim == model.nv and conn.system.frame.point_shape == (model.nq,)
    q = model.random_configuration(rng, size=2)
    np.testing.assert_allclose(conn.system.mass_matrix(q), crba(model, q))
    np.testing.assert_allclose(conn.christoffel_first_kind(q), christoffel_symbols(model, q))


def test_levi_civita_equals_the_geometry_layer_koszul(model, rng):
    q = model.random_configuration(rng)
    conn = model_connection(model)
    # a plain MechanicalSystem with the model's frame, metric and potential: the generic
    # Koszul formula (finite differences of H along the flow), not the model's Alg. 2 override
    plain = MechanicalSystem(
        None, model.mass_matrix, frame=model.frame, potential=model.potential_energy
    )
    koszul = LeviCivitaConnection(plain).christoffel_first_kind(q)
    G = conn.christoffel_first_kind(q)
    assert np.max(np.abs(G - koszul)) < 1e-7 * max(1.0, np.max(np.abs(G)))


@pytest.mark.parametrize("name", NAMED_BODY_CONNECTIONS)
def test_coefficients_and_inherited_properties(model, name, rng):
    q = model.random_configuration(rng)
    v = rng.uniform(-1.0, 1.0, model.nv)
    conn = model_connection(model, name)
    np.testing.assert_allclose(
        conn.coriolis_matrix(q, v), coriolis_matrix(model, q, v, name), atol=1e-11
    )
    got = (
        bool(conn.is_metric_compatible(q)),
        bool(conn.has_riemannian_geodesics(q)),
        bool(conn.is_torsion_free(q)),
    )
    assert got == EXPECTED[name]
    if name == "levi-civita":  # contorsion against the exact Alg. 2 Levi-Civita connection
        assert np.max(np.abs(conn.contorsion(q))) == 0.0


def test_contorsion_of_the_admissible_connections_is_totally_antisymmetric(rng):
    """Cor. IV.1: skew and correct <=> D totally antisymmetric (on the induced connection)."""
    from geomech.geometry import Contorsion

    model = mixed_floating_base()
    q = model.random_configuration(rng)
    for name in ("velocity-cross", "boltzmann-hamel"):
        D = model_connection(model, name).contorsion(q)
        assert Contorsion(D).symmetry(tol=1e-10).totally_antisymmetric
        assert np.max(np.abs(D)) > 1e-2


def test_gravity_from_the_potential(model, rng):
    # the generic MechanicalSystem formula g_i = L_{X_i} V (central differences of the
    # potential along the joint frame's flow) against the RNEA (the model's override)
    q = model.random_configuration(rng)
    g = MechanicalSystem.gravity_forces(model, q)
    np.testing.assert_allclose(g, gravity_forces(model, q), atol=1e-7)


def test_chart_velocity_by_finite_differences(rng):
    model = mixed_fixed_base()
    frame = model.frame
    q0 = model.random_configuration(rng)
    phi = 0.3 * rng.normal(size=model.nv)
    v = rng.normal(size=model.nv)
    q1 = model.integrate(q0, phi)
    h = 1e-6
    phi_dot = (
        model.difference(q0, model.integrate(q1, v, h))
        - model.difference(q0, model.integrate(q1, v, -h))
    ) / (2 * h)
    np.testing.assert_allclose(frame.chart_velocity(q0, phi, v), phi_dot, atol=1e-8)


def test_geodesics_conserve_energy():
    model = mixed_floating_base()
    rng = np.random.default_rng(5)
    q0 = model.random_configuration(rng)
    v0 = rng.uniform(-1.0, 1.0, model.nv)
    conn = model_connection(model)
    traj = conn.geodesic(q0, v0, [0.0, 0.2])
    E = [v @ crba(model, q) @ v for q, v in zip(traj.q, traj.v, strict=True)]
    assert abs(E[1] - E[0]) < 1e-8 * E[0]
    # the geodesic of a Levi-Civita connection is the free motion: H v_dot = -C v
    # (compare its end point with the Cartan (-) geodesic, which differs)
    other = model_connection(model, "cartan-minus").geodesic(q0, v0, [0.0, 0.2])
    assert np.max(np.abs(other.q[-1] - traj.q[-1])) > 1e-4


def test_connection_report():
    model = robots.random_tree(4, rng=0, floating_base=True)
    rows = connection_report(model, repeat=1)
    assert [r.name for r in rows] == list(NAMED_BODY_CONNECTIONS)
    for r in rows:
        assert (r.metric_compatible, r.correct_dynamics, r.torsion_free) == EXPECTED[r.name]
        assert r.time_alg1 > 0 and r.time_dense > 0
    assert np.isfinite(rows[0].time_alg2) and np.isnan(rows[1].time_alg2)
    text = format_connection_report(rows)
    assert "levi-civita" in text and "boltzmann-hamel" in text
    with pytest.raises(DimensionError, match="single state"):
        connection_report(model, q=model.random_configuration(0, size=2))


def test_validation():
    model = mixed_fixed_base()
    with pytest.raises(ConnectionSpecError, match="Unknown connection name 'x'"):
        model_connection(model, "x")
    with pytest.raises(ConnectionSpecError, match="body names"):
        model_connection(model, {"nobody": "levi-civita"})
    with pytest.raises(DimensionError, match="`q`"):
        model_connection(model).christoffel_first_kind(np.zeros(3))
