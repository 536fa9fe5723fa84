"""Gravity and potentials (digest T14, T19, F7 in test_rb_fixtures), and the full forward
dynamics against Pinocchio's ABA for a free-floating body.
"""

import numpy as np
import pytest
from rb_helpers import SUBGROUP_IDS, SUBGROUPS, fd_left

from geomech.errors import GeomechError, InertiaError
from geomech.lie import SE2, SE3, SO3, ProductGroup
from geomech.lie.quaternion import matrix_to_quat
from geomech.rigidbody import RigidBody, UniformGravity, embed_in_se3, selection_matrix
from geomech.simulation import simulate
from geomech.spatial import spatial_inertia

MASS, COM = 2.0, np.array([0.1, -0.05, 0.2])
I_COM = np.array([[1.0, 0.1, 0.0], [0.1, 2.0, 0.2], [0.0, 0.2, 3.0]])
GAMMA = np.array([0.3, -4.0, -9.81])  # a tilted gravity: every component matters


@pytest.mark.parametrize("group", SUBGROUPS, ids=SUBGROUP_IDS)
def test_T19_gradient_is_the_left_trivialised_derivative(group, rng):
    U = UniformGravity(group, MASS, COM, GAMMA)
    g = group.random(rng)
    np.testing.assert_allclose(U.gradient(g), fd_left(U.energy, group, g), atol=1e-7)


@pytest.mark.parametrize("group", SUBGROUPS, ids=SUBGROUP_IDS)
def test_energy_is_the_literal_formula(group, rng):
    U = UniformGravity(group, MASS, COM, GAMMA)
    g = group.random(rng, size=3)
    T = embed_in_se3(group, g)
    np.testing.assert_allclose(
        U.energy(g), -MASS * (T[..., :3, 3] + T[..., :3, :3] @ COM) @ GAMMA, atol=1e-12
    )


@pytest.mark.parametrize("group", SUBGROUPS, ids=SUBGROUP_IDS)
def test_embedding_is_compatible_with_the_selection_matrix(group, rng):
    """The body twist of the embedded curve g exp(t x) is H x."""
    g, x, h = group.random(rng), rng.standard_normal(group.dim), 1e-6
    Tp = embed_in_se3(group, group.compose(g, group.exp(h * x)))
    Tm = embed_in_se3(group, group.compose(g, group.exp(-h * x)))
    V = SE3.log(SE3.compose(SE3.inverse(Tm), Tp)) / (2 * h)
    np.testing.assert_allclose(V, selection_matrix(group) @ x, atol=1e-8)


@pytest.mark.parametrize("group", SUBGROUPS, ids=SUBGROUP_IDS)
def test_T14_energy_conserved_with_gravity(group, rng):
    body = RigidBody.from_spatial_inertia(group, spatial_inertia(MASS, COM, I_COM), gravity=GAMMA)
    res = simulate(body, group.random(rng), rng.standard_normal(group.dim), t_final=2.0, dt=2e-3)
    E = body.energy(res.q, res.v)
    np.testing.assert_allclose(E, np.full_like(E, E[0]), rtol=1e-9, atol=1e-9)


def test_heavy_top_equilibria():
    top = RigidBody.from_spatial_inertia(SO3, spatial_inertia(1.0, [0.0, 0.0, 0.5], np.eye(3)))
    np.testing.assert_allclose(top.gravity_forces(np.eye(3)), 0.0, atol=1e-15)  # upright
    np.testing.assert_allclose(
        top.gravity_forces(SO3.exp([np.pi, 0.0, 0.0])), 0.0, atol=1e-14
    )  # hanging
    # small tilt about x: gravity tips it further, n_x = -m g0 l sin(α)
    n = top.gravity_forces(SO3.exp([0.1, 0.0, 0.0]))
    assert n[0] == pytest.approx(-9.81 * 0.5 * np.sin(0.1), rel=1e-12)


def test_from_spatial_inertia_reads_mass_and_com():
    body = RigidBody.from_spatial_inertia(SE3, spatial_inertia(MASS, COM, I_COM))
    assert body.potential.mass == pytest.approx(MASS)
    np.testing.assert_allclose(body.potential.com, COM, atol=1e-15)
    np.testing.assert_allclose(body.potential.gravity, [0.0, 0.0, -9.81], atol=0)
    assert (
        RigidBody.from_spatial_inertia(
            SE3, spatial_inertia(MASS, COM, I_COM), gravity=None
        ).potential
        is None
    )


def test_forward_dynamics_matches_pinocchio_aba(rng):
    pin = pytest.importorskip("pinocchio")
    model = pin.Model()
    model.gravity.linear = GAMMA
    jid = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "body")
    model.appendBodyToJoint(jid, pin.Inertia(MASS, COM, I_COM), pin.SE3.Identity())
    data = model.createData()
    body = RigidBody.from_spatial_inertia(SE3, spatial_inertia(MASS, COM, I_COM), gravity=GAMMA)
    for _ in range(5):
        g, V, tau = SE3.random(rng), rng.standard_normal(6), rng.standard_normal(6)
        q = np.concatenate([g[:3, 3], matrix_to_quat(g[:3, :3])])
        a = pin.aba(model, data, q, np.r_[V[3:], V[:3]], np.r_[tau[3:], tau[:3]])  # linear first
        np.testing.assert_allclose(
            body.forward_dynamics(g, V, tau), np.r_[a[3:], a[:3]], atol=1e-12
        )
        t = pin.rnea(model, data, q, np.r_[V[3:], V[:3]], np.zeros(6))
        np.testing.assert_allclose(
            body.inverse_dynamics(g, V, np.zeros(6)), np.r_[t[3:], t[:3]], atol=1e-12
        )


def test_potential_validation():
    with pytest.raises(InertiaError, match="`mass` to be positive"):
        UniformGravity(SE3, -1.0)
    with pytest.raises(GeomechError, match="not one of seed 003's subgroups of SE"):
        UniformGravity(ProductGroup(SO3, SE2), 1.0)
    with pytest.raises(TypeError, match="LieGroup"):
        UniformGravity("SE3", 1.0)
    from geomech.errors import DimensionError

    with pytest.raises(DimensionError, match=r"`com` to have shape \(\.\.\., 3\)"):
        UniformGravity(SE3, 1.0, com=[0.0, 0.0])
