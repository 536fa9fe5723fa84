"""Body connections on one rigid body's SE(3): formulas, properties, registry, validation.

References used (independent of geomech.multibody.connections.body):
- the geometry layer's Koszul formula (LeviCivitaConnection on rigid_body_se3) and its
  Cartan-Schouten connections, built from the SE(3) structure constants of geomech.lie;
- seed 000 eq. (19): the block form of the Levi-Civita matrix with Sigma, h, m;
- Newton-Euler (v x*) I v and the skew symmetry of C + C^T = 0 = H_dot for a free body.
"""

import numpy as np
import pytest

from geomech.errors import ConnectionSpecError, DimensionError, GeomechError
from geomech.geometry import (
    AffineConnection,
    CartanSchoutenConnection,
    LeviCivitaConnection,
)
from geomech.geometry.examples import rigid_body_se3, rigid_body_so3
from geomech.multibody.connections.body import (
    NAMED_BODY_CONNECTIONS,
    AffineConnectionBody,
    BodyConnection,
    CallableBody,
    CartanSchoutenBody,
    LeviCivitaBody,
    body_connection,
    body_connection_names,
    register_body_connection,
)
from geomech.multibody.io.robots import random_inertia
from geomech.spatial import crbar, crf, crm, skew

#: name -> (metric compatible, Riemannian geodesics, torsion free), the module docstring's table
EXPECTED = {
    "levi-civita": (True, True, True),
    "cartan-minus": (True, False, False),
    "cartan-zero": (False, False, True),
    "cartan-plus": (False, False, False),
    "velocity-cross": (True, True, False),
    "boltzmann-hamel": (True, True, False),
}


def test_registry_lists_the_named_connections():
    assert tuple(EXPECTED) == NAMED_BODY_CONNECTIONS
    assert body_connection_names()[:6] == list(EXPECTED)
    for name in EXPECTED:
        conn = body_connection(name)
        assert isinstance(conn, BodyConnection) and conn.name == name
        assert body_connection(conn) is conn


@pytest.mark.parametrize("name", list(EXPECTED))
def test_properties_as_measured_by_the_geometry_layer(name, rng):
    for inertia in random_inertia(rng, 3):
        props = body_connection(name).properties(inertia)
        got = (
            bool(props.metric_compatible),
            bool(props.riemannian_geodesics),
            bool(props.torsion_free),
        )
        assert got == EXPECTED[name]
        for res, ok in zip(
            (props.metric_compatible, props.riemannian_geodesics, props.torsion_free),
            EXPECTED[name],
            strict=True,
        ):
            if ok:
                assert res.residual < 1e-13
            else:
                assert res.residual > 1e-2


def test_levi_civita_equals_koszul_and_eq19(rng):
    for inertia in random_inertia(rng, 4):
        # (a) Koszul formula of the geometry layer with the SE(3) structure constants
        koszul = LeviCivitaConnection(rigid_body_se3(inertia)).christoffel_first_kind(np.eye(4))
        np.testing.assert_allclose(LeviCivitaBody().coefficients(inertia), koszul, atol=1e-13)
        # (b) seed 000 eq. (19), block form with Sigma = tr(Ibar)/2 - Ibar, h = m c
        Ibar, h, m = (
            inertia[:3, :3],
            np.array([inertia[2, 4], inertia[0, 5], inertia[1, 3]]),
            inertia[5, 5],
        )
        Sigma = 0.5 * np.trace(Ibar) * np.eye(3) - Ibar
        v = rng.normal(size=6)
        w = v[:3]
        C19 = np.block(
            [
                [skew(Sigma @ w), skew(h) @ skew(w)],
                [-skew(w) @ skew(h), m * skew(w)],
            ]
        )
        np.testing.assert_allclose(LeviCivitaBody().coriolis(inertia, v), C19, atol=1e-13)


@pytest.mark.parametrize("kind", ["cartan-minus", "cartan-zero", "cartan-plus"])
def test_cartan_schouten_equals_geometry_layer(kind, rng):
    inertia = random_inertia(rng)
    ref = CartanSchoutenConnection(rigid_body_se3(inertia), kind).christoffel_first_kind(np.eye(4))
    np.testing.assert_allclose(CartanSchoutenBody(kind).coefficients(inertia), ref, atol=1e-14)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_body_level_identities(name, rng):
    conn = body_connection(name)
    inertia = random_inertia(rng, 5)
    v, u = rng.normal(size=(5, 6)), rng.normal(size=(5, 6))
    C = conn.coriolis(inertia, v)  # batched
    B = conn.body_factor(inertia, v)
    np.testing.assert_allclose(B, C - inertia @ crm(v), atol=1e-13)
    compatible, correct, _ = EXPECTED[name]
    ne = np.einsum("...ij,...jk,...k->...i", crf(v), inertia, v)  # Newton-Euler (v x*) I v
    Cv = np.einsum("...ij,...j->...i", C, v)
    assert np.allclose(Cv, ne, atol=1e-12) == correct
    # H_dot = 0 for the left-invariant metric: skew <=> metric compatible (Prop. IV.1)
    assert np.allclose(C + np.swapaxes(C, -1, -2), 0.0, atol=1e-12) == compatible
    # linear in v (a connection) and Gamma[i, j, k] = C(e_j)[i, k]
    G = conn.coefficients(inertia)
    np.testing.assert_allclose(np.einsum("...ijk,...j->...ik", G, v), C, atol=1e-12)
    np.testing.assert_allclose(
        conn.coriolis(inertia, 2.0 * v - 3.0 * u),
        2.0 * C - 3.0 * conn.coriolis(inertia, u),
        atol=1e-12,
    )


@pytest.mark.parametrize("name", list(EXPECTED))
def test_equivariance_under_spatial_transforms(name, rng):
    """X^T C(I, X u) X = C(X^T I X, u): what makes the congruence accumulation of Alg. 1 valid."""
    from geomech.lie import SE3
    from geomech.spatial import plucker_from_pose

    conn = body_connection(name)
    X = plucker_from_pose(SE3.random(rng))
    inertia, u = random_inertia(rng), rng.normal(size=6)
    lhs = X.T @ conn.coriolis(inertia, X @ u) @ X
    np.testing.assert_allclose(lhs, conn.coriolis(X.T @ inertia @ X, u), atol=1e-12)


def test_levi_civita_is_the_average_of_the_cross_factorizations(rng):
    inertia, v = random_inertia(rng), rng.normal(size=6)
    a = body_connection("velocity-cross").coriolis(inertia, v)
    b = body_connection("boltzmann-hamel").coriolis(inertia, v)
    np.testing.assert_allclose(0.5 * (a + b), LeviCivitaBody().coriolis(inertia, v), atol=1e-13)
    np.testing.assert_allclose(b, crbar(inertia @ v), atol=1e-14)
    np.testing.assert_allclose(
        body_connection("velocity-cross").body_factor(inertia, v), crf(v) @ inertia, atol=1e-14
    )  # seed 001 eq. (9)


def test_user_affine_connection_and_callable(rng):
    inertia, v = random_inertia(rng), rng.normal(size=6)
    lc = LeviCivitaBody().coriolis(inertia, v)
    from_conn = body_connection(LeviCivitaConnection(rigid_body_se3(inertia)))
    assert isinstance(from_conn, AffineConnectionBody)
    np.testing.assert_allclose(from_conn.coriolis(inertia, v), lc, atol=1e-13)
    from_fun = body_connection(lambda v, I: LeviCivitaBody()._coriolis(I, v))
    assert isinstance(from_fun, CallableBody)
    np.testing.assert_allclose(from_fun.coriolis(inertia, v), lc, atol=1e-15)
    # a constant (6, 6) answer broadcasts over a batch
    const = CallableBody(lambda v, I: np.eye(6))
    assert const.coriolis(inertia, np.ones((3, 6))).shape == (3, 6, 6)


def test_register_body_connection():
    register_body_connection("test-zero", lambda v, I: np.zeros(np.shape(v)[:-1] + (6, 6)))
    assert "test-zero" in body_connection_names()
    assert body_connection("test-zero").name == "test-zero"
    with pytest.raises(
        ConnectionSpecError, match="Expected a new connection name, got .levi-civita."
    ):
        register_body_connection("levi-civita", LeviCivitaBody())
    with pytest.raises(ConnectionSpecError, match="non-empty string"):
        register_body_connection("", LeviCivitaBody())
    with pytest.raises(ConnectionSpecError, match="got the string 'cartan-plus'"):
        register_body_connection("alias", "cartan-plus")


def test_validation_errors(rng):
    inertia = random_inertia(rng)
    with pytest.raises(ConnectionSpecError, match="Unknown connection name 'christoffel'"):
        body_connection("christoffel")
    with pytest.raises(ConnectionSpecError, match="got int"):
        body_connection(3)
    with pytest.raises(ConnectionSpecError, match=r"return shape \(6, 6\), got \(3, 3\)"):
        body_connection(lambda v, I: np.eye(3)).coriolis(inertia, np.ones(6))
    with pytest.raises(ConnectionSpecError, match="dimension 6, 4x4 points"):
        body_connection(LeviCivitaConnection(rigid_body_so3(np.eye(3))))
    with pytest.raises(ConnectionSpecError, match="equal the spatial inertia"):
        body_connection(LeviCivitaConnection(rigid_body_se3(2.0 * inertia))).coriolis(
            inertia, np.ones(6)
        )
    with pytest.raises(ConnectionSpecError, match="Unknown connection name 'x'"):
        CartanSchoutenBody("x")
    with pytest.raises(
        ConnectionSpecError, match="name a Cartan–Schouten connection.*'levi-civita'"
    ):
        CartanSchoutenBody("levi-civita")
    with pytest.raises(ConnectionSpecError, match="Expected a callable"):
        CallableBody(np.eye(6))
    with pytest.raises(ConnectionSpecError, match="Expected an AffineConnection"):
        AffineConnectionBody(np.zeros((6, 6, 6)))
    with pytest.raises(DimensionError, match=r"`v` to have shape \(\.\.\., 6\), got \(5,\)"):
        LeviCivitaBody().coriolis(inertia, np.ones(5))
    with pytest.raises(DimensionError, match="`inertia`"):
        LeviCivitaBody().coefficients(np.eye(5))
    assert issubclass(ConnectionSpecError, GeomechError)


def test_affine_connection_view_has_the_geometry_layer(rng):
    inertia = random_inertia(rng)
    conn = body_connection("cartan-minus").affine_connection(inertia)
    assert isinstance(conn, AffineConnection)
    # Cartan (-) geodesics are one-parameter subgroups g exp(t xi)
    from geomech.lie import SE3

    xi = np.array([0.3, -0.2, 0.5, 1.0, 0.0, -0.5])
    traj = conn.geodesic(np.eye(4), xi, [0.0, 1.0])
    np.testing.assert_allclose(traj.q[-1], SE3.exp(xi), atol=1e-8)


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("momentum-cross", "boltzmann-hamel"),
        ("-", "cartan-minus"),
        ("cartan-schouten0", "cartan-zero"),
        ("cartan(+)", "cartan-plus"),
        ("LC", "levi-civita"),
        ("velocity_cross", "velocity-cross"),
    ],
)
def test_aliases_resolve_to_the_canonical_body_connection(alias, name):
    """One registry of names (geomech.geometry.names): an alias gives the canonical object."""
    assert body_connection(alias) is body_connection(name)
    assert body_connection(alias).name == name
