"""The connection view (issue 7 item 4): the body's Boltzmann–Hamel C = ad~_{Mv} against the
Levi-Civita connection of geomech.geometry (Koszul formula, an independent implementation),
the Cartan–Schouten connections, and Cor. IV.1 of seed 000 — measured, not assumed."""

from math import comb

import numpy as np
import pytest
from rb_helpers import GL2, GROUP_IDS, GROUPS, NONABELIAN, NONABELIAN_IDS, SL2, random_spd

from geomech.errors import ConnectionSpecError
from geomech.geometry import AffineConnection, Contorsion, LeviCivitaConnection
from geomech.lie import SE3, SO3
from geomech.multibody.connections.body import body_connection
from geomech.multibody.io.robots import random_inertia
from geomech.rigidbody import RigidBody

ALL = GROUPS + [GL2, SL2]
ALL_IDS = GROUP_IDS + ["GL2", "SL2"]


@pytest.fixture(params=ALL, ids=ALL_IDS)
def setup(request, rng):
    G = request.param
    body = RigidBody(G, random_spd(rng, G.dim))
    return body, G.random(rng), rng.standard_normal(G.dim)


def test_boltzmann_hamel_connection_reproduces_the_body_coriolis_matrix(setup):
    body, g, v = setup
    conn = body.connection("boltzmann-hamel")
    assert isinstance(conn, AffineConnection)
    np.testing.assert_allclose(conn.coriolis_matrix(g, v), body.coriolis_matrix(v), atol=1e-13)


def test_same_Cv_as_levi_civita(setup):
    body, g, v = setup
    lc = body.connection("levi-civita")
    assert isinstance(lc, LeviCivitaConnection)
    C_star = lc.coriolis_matrix(g, v)
    np.testing.assert_allclose(C_star @ v, body.coriolis_force(v), atol=1e-12)
    np.testing.assert_allclose(C_star + C_star.T, 0.0, atol=1e-12)  # constant metric: C★ skew
    np.testing.assert_allclose(body.coriolis_matrix(v) + body.coriolis_matrix(v).T, 0.0, atol=0)


@pytest.mark.parametrize("group", NONABELIAN + [GL2, SL2], ids=NONABELIAN_IDS + ["GL2", "SL2"])
def test_coriolis_matrices_differ(group, rng):
    body = RigidBody(group, random_spd(rng, group.dim))
    g, v = group.random(rng), rng.standard_normal(group.dim)
    diff = np.max(
        np.abs(body.connection("levi-civita").coriolis_matrix(g, v) - body.coriolis_matrix(v))
    )
    assert diff > 1e-3


def test_contorsion_is_totally_antisymmetric_cor_IV1(setup):
    body, g, v = setup
    D = body.connection("boltzmann-hamel").contorsion(g)  # Γ★ - Γ
    for axes in ((0, 1), (1, 2), (0, 2)):
        np.testing.assert_allclose(D, -np.swapaxes(D, *axes), atol=1e-12)
    # the derived closed form: D_ijk = ½ cyclic sum of <X_i, [X_j, X_k]>
    s, M = body.group.structure_constants(), body.inertia
    A = np.einsum("il,jkl->ijk", M, s)  # <X_i, [X_j, X_k]>
    np.testing.assert_allclose(
        D, 0.5 * (A + np.einsum("ijk->jki", A) + np.einsum("ijk->kij", A)), atol=1e-12
    )
    # D(·, v, ·) is the difference of the two Coriolis matrices
    np.testing.assert_allclose(
        np.einsum("ijk,j->ik", D, v),
        body.connection("levi-civita").coriolis_matrix(g, v) - body.coriolis_matrix(v),
        atol=1e-12,
    )


def test_predicates(setup):
    body, g, _ = setup
    bh, lc = body.connection("boltzmann-hamel"), body.connection("levi-civita")
    assert bh.is_metric_compatible(g) and bh.has_riemannian_geodesics(g)
    assert lc.is_metric_compatible(g) and lc.has_riemannian_geodesics(g) and lc.is_torsion_free(g)
    abelian = not np.any(body.group.structure_constants())
    assert bool(bh.is_torsion_free(g)) == abelian


def test_cartan_schouten_connections_have_the_wrong_geodesics(rng):
    body = RigidBody(SE3, random_spd(rng, 6))
    g, v = SE3.random(rng), rng.standard_normal(6)
    for kind in ("cartan-minus", "cartan-zero", "cartan-plus"):
        cs = body.connection(kind)
        np.testing.assert_allclose(
            cs.coriolis_matrix(g, v) @ v, 0.0, atol=1e-12
        )  # geodesics: g exp(tv)
        assert not cs.has_riemannian_geodesics(g)
    assert body.connection("cartan-zero").is_torsion_free(g)


def test_bi_invariant_metric_cartan_schouten_0_is_levi_civita(rng):
    """SO(3) with M = kI is ad-invariant: the (0) connection is the Levi-Civita one (T18)."""
    body = RigidBody(SO3, 3.0 * np.eye(3))
    g = SO3.random(rng)
    np.testing.assert_allclose(
        body.connection("cartan-zero").christoffel_first_kind(g),
        body.connection("levi-civita").christoffel_first_kind(g),
        atol=1e-14,
    )


@pytest.mark.parametrize("group", [SO3, SE3], ids=["SO3", "SE3"])
def test_family_of_admissible_factorizations(group, rng):
    """LC + any totally antisymmetric contorsion: skew, same C v, different C (n ≥ 3)."""
    body = RigidBody(group, random_spd(rng, group.dim))
    g, v = group.random(rng), rng.standard_normal(group.dim)
    K = Contorsion.totally_antisymmetric(rng.standard_normal(comb(group.dim, 3)))
    conn = body.connection("levi-civita") + K
    C = conn.coriolis_matrix(g, v)
    np.testing.assert_allclose(C @ v, body.coriolis_force(v), atol=1e-12)
    np.testing.assert_allclose(C + C.T, 0.0, atol=1e-12)
    assert conn.is_metric_compatible(g) and conn.has_riemannian_geodesics(g)


def test_christoffel_symbols_layout(rng):
    body = RigidBody(SE3, random_spd(rng, 6))
    v = rng.standard_normal(6)
    Gamma = body.christoffel_symbols()
    np.testing.assert_allclose(
        np.einsum("ijk,j->ik", Gamma, v), body.coriolis_matrix(v), atol=1e-13
    )
    # Γ_ijk = <X_j, [X_i, X_k]>: the body's connection is ∇_ξ η = -M⁻¹ ad_ηᵀ M ξ
    xi, eta = rng.standard_normal((2, 6))
    nabla = np.linalg.solve(body.inertia, np.einsum("ijk,j,k->i", Gamma, xi, eta))
    np.testing.assert_allclose(
        nabla, -np.linalg.solve(body.inertia, SE3.ad(eta).T @ body.inertia @ xi), atol=1e-12
    )


def test_connection_kind_validation():
    body = RigidBody(SO3, np.eye(3))
    with pytest.raises(
        ConnectionSpecError, match="Unknown connection name 'christoffel'.*'levi-civita'"
    ):
        body.connection("christoffel")
    with pytest.raises(ConnectionSpecError, match="Unknown connection name 3"):
        body.connection(3)
    with pytest.raises(
        ConnectionSpecError, match=r"`kind\(system\)` to return an AffineConnection, got str"
    ):
        body.connection(lambda system: "levi-civita")


def test_user_defined_connection_strategy(rng):
    body = RigidBody(SO3, random_spd(rng, 3))
    K = Contorsion.totally_antisymmetric([0.7])
    conn = body.connection(lambda system: LeviCivitaConnection(system) + K)
    g, v = SO3.random(rng), rng.standard_normal(3)
    np.testing.assert_allclose(conn.coriolis_matrix(g, v) @ v, body.coriolis_force(v), atol=1e-12)
    assert isinstance(body.connection(LeviCivitaConnection), LeviCivitaConnection)


@pytest.mark.parametrize(
    "name",
    [
        "boltzmann-hamel",
        "levi-civita",
        "velocity-cross",
        "cartan-minus",
        "cartan-zero",
        "cartan-plus",
    ],
)
def test_named_connections_are_the_multibody_body_connections_on_se3(name, rng):
    """One registry of names: on SE(3) each name is the multibody body connection of that
    name (seed 000 eqs. 18-19 and the spatial cross products, an independent implementation);
    an alias gives the same connection."""
    inertia, v = random_inertia(rng), rng.standard_normal(6)
    body = RigidBody(SE3, inertia)
    C = body.connection(name).coriolis_matrix(SE3.random(rng), v)
    np.testing.assert_allclose(C, body_connection(name).coriolis(inertia, v), atol=1e-12)
    alias = {"boltzmann-hamel": "momentum-cross", "cartan-minus": "-", "levi-civita": "lc"}
    if name in alias:
        np.testing.assert_allclose(
            body.connection(alias[name]).coriolis_matrix(np.eye(4), v),
            body.connection(name).coriolis_matrix(np.eye(4), v),
            atol=0,
        )


def test_velocity_cross_is_admissible_on_every_group(setup):
    body, g, v = setup
    conn = body.connection("velocity-cross")
    C = conn.coriolis_matrix(g, v)
    np.testing.assert_allclose(C @ v, body.coriolis_force(v), atol=1e-12)
    np.testing.assert_allclose(C + C.T, 0.0, atol=1e-12)


def test_a_registered_multibody_only_name_is_refused():
    from geomech.multibody.connections.body import register_body_connection

    register_body_connection("rb-test-zero", lambda v, I: np.zeros(np.shape(v)[:-1] + (6, 6)))
    with pytest.raises(ConnectionSpecError, match="connection of a single rigid body"):
        RigidBody(SO3, np.eye(3)).connection("rb-test-zero")
