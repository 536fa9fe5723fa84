"""Jacobians of exp: finite differences, inverses, seed 003 S(φ) references, singularities."""

from __future__ import annotations

import numpy as np
import pytest
from lie_helpers import GROUP_IDS, GROUPS, algebra_with_angle, has_rotation
from numpy.testing import assert_allclose
from scipy.linalg import expm

from geomech.errors import SingularityError
from geomech.lie import SE2, SE3, SO3, Euclidean, LieGroup, ProductGroup, Schoenflies

ANGLES = [0.0, 1e-9, 1e-5, 0.3, 1.0, 2.5, np.pi, 4.0, 6.0]


def _fd_jacobians(G, xi, h=1e-6):
    """Central differences of exp along the group flow (right and left trivialised)."""
    g_inv = G.inverse(G.exp(xi))
    Jr = np.empty((G.dim, G.dim))
    Jl = np.empty((G.dim, G.dim))
    for j in range(G.dim):
        e = np.zeros(G.dim)
        e[j] = h
        gp, gm = G.exp(xi + e), G.exp(xi - e)
        Jr[:, j] = (G.log(G.compose(g_inv, gp)) - G.log(G.compose(g_inv, gm))) / (2 * h)
        Jl[:, j] = (G.log(G.compose(gp, g_inv)) - G.log(G.compose(gm, g_inv))) / (2 * h)
    return Jr, Jl


@pytest.mark.parametrize("angle", ANGLES)
def test_jacobians_match_finite_differences(group, angle):
    rng = np.random.default_rng(30)
    xi = algebra_with_angle(group, rng, angle)
    Jr_fd, Jl_fd = _fd_jacobians(group, xi)
    assert_allclose(group.right_jacobian(xi), Jr_fd, atol=2e-8)
    assert_allclose(group.left_jacobian(xi), Jl_fd, atol=2e-8)


@pytest.mark.parametrize("angle", ANGLES)
def test_jacobians_match_expm_oracle(group, angle):
    """J_l = top-right block of expm([[ad, I], [0, 0]]) (seed 003 §1.3), J_r(xi) = J_l(-xi)."""
    rng = np.random.default_rng(31)
    xi = algebra_with_angle(group, rng, angle, size=(3,))
    n = group.dim
    for x, Jl, Jr in zip(xi, group.left_jacobian(xi), group.right_jacobian(xi), strict=True):
        A = np.zeros((2 * n, 2 * n))
        A[:n, :n], A[:n, n:] = group.ad(x), np.eye(n)
        assert_allclose(Jl, expm(A)[:n, n:], atol=1e-12)
        A[:n, :n] = -group.ad(x)
        assert_allclose(Jr, expm(A)[:n, n:], atol=1e-12)
        # generic fallback of the base class agrees with the closed forms
        assert_allclose(LieGroup._left_jacobian(group, x), Jl, atol=1e-12)


@pytest.mark.parametrize("angle", ANGLES)
def test_jacobian_identities(group, angle):
    rng = np.random.default_rng(32)
    xi = algebra_with_angle(group, rng, angle)
    Jl, Jr = group.left_jacobian(xi), group.right_jacobian(xi)
    assert_allclose(Jl, group.Ad(group.exp(xi)) @ Jr, atol=1e-12)  # J_l = Ad(exp xi) J_r
    assert_allclose(Jr @ xi, xi, atol=1e-12)  # S(φ) φ = φ
    assert_allclose(Jl @ xi, xi, atol=1e-12)
    Jl_inv, Jr_inv = group.left_jacobian_inverse(xi), group.right_jacobian_inverse(xi)
    assert_allclose(Jl_inv, np.linalg.inv(Jl), rtol=1e-10, atol=1e-11)
    assert_allclose(Jr_inv, np.linalg.inv(Jr), rtol=1e-10, atol=1e-11)
    assert_allclose(Jl_inv @ Jl, np.eye(group.dim), atol=1e-11)
    assert_allclose(LieGroup._left_jacobian_inverse(group, xi), Jl_inv, rtol=1e-9, atol=1e-10)


def test_jacobians_at_zero_are_identity(group):
    z = np.zeros(group.dim)
    for J in (
        group.left_jacobian,
        group.right_jacobian,
        group.left_jacobian_inverse,
        group.right_jacobian_inverse,
    ):
        assert_allclose(J(z), np.eye(group.dim), atol=0)


def test_dS_at_zero_is_minus_half_ad(group):
    """∂S/∂φ_j at φ = 0 equals -½ ad(e_j) (seed 003 T4)."""
    h = 1e-6
    for j in range(group.dim):
        e = np.zeros(group.dim)
        e[j] = h
        dS = (group.right_jacobian(e) - group.right_jacobian(-e)) / (2 * h)
        assert_allclose(dS, -0.5 * group.ad(e / h), atol=1e-9)


def test_body_velocity_map():
    """(exp(-φ) d/dt exp(φ))^∨ = S(φ) φ̇ (seed 003 T11)."""
    rng = np.random.default_rng(33)
    for G in (SO3, SE3, SE2, Schoenflies):
        phi, phidot = rng.standard_normal((2, G.dim))
        h = 1e-6
        dg = (G.exp(phi + h * phidot) - G.exp(phi - h * phidot)) / (2 * h)
        body = G.vee(G.inverse(G.exp(phi)) @ dg)
        assert_allclose(body, G.right_jacobian(phi) @ phidot, atol=1e-8)


# ---------------------------------------------------------------------------------------------
# seed 003 §1.3 / §4 F5 reference values (S = J_r), with the coordinate orders mapped
# ---------------------------------------------------------------------------------------------
def test_seed003_S_SO3_reference():
    S = np.array([[0.95257673, 0.23237122, 0.12140245],
                  [-0.25199464, 0.94440031, 0.12895691],
                  [-0.0723439, -0.16166261, 0.97874129]])  # fmt: skip
    assert_allclose(SO3.right_jacobian([0.3, -0.2, 0.5]), S, atol=1e-8)


def test_seed003_S_SE2_reference():
    S_seed = np.array([[0.95885108, 0.24483488, 0.1226233],
                       [-0.24483488, 0.95885108, 0.13044136],
                       [0.0, 0.0, 1.0]])  # fmt: skip  # φ = [ρ1, ρ2, θ] = (0.3, -0.2, 0.5)
    perm = [2, 0, 1]  # ours [θ, ρ1, ρ2]
    S = SE2.right_jacobian([0.5, 0.3, -0.2])
    assert_allclose(S, S_seed[np.ix_(perm, perm)], atol=1e-8)


def test_seed003_S_SE3_reference():
    Jr_theta = np.array([[0.75023831, 0.28256908, 0.4780922],
                         [-0.40440405, 0.87816503, 0.04990831],
                         [-0.38062422, -0.29357825, 0.82333929]])  # fmt: skip
    upper_right = np.array([[-0.16469742, 0.11870073, 0.0962199],
                            [-0.22563661, -0.14957812, 0.01584573],
                            [0.0307527, -0.19925876, -0.08469734]])  # fmt: skip
    # seed φ = [ρ; θ] = (0.3, -0.2, 0.5, 0.4, -1.0, 0.8); ours [ω; v] = [θ; ρ]
    S = SE3.right_jacobian([0.4, -1.0, 0.8, 0.3, -0.2, 0.5])
    assert_allclose(S[:3, :3], Jr_theta, atol=1e-8)
    assert_allclose(S[3:, 3:], Jr_theta, atol=1e-8)
    assert_allclose(S[:3, 3:], 0.0, atol=0)
    assert_allclose(S[3:, :3], upper_right, atol=1e-8)  # seed's (ρ-row, θ-col) block


@pytest.mark.parametrize("theta", [1e-7, 0.5, 2.0, np.pi, 5.0])
def test_det_S(theta):
    """det S = 2(1 - cos θ)/θ² on SO(3), SE(2), Schoenflies; squared on SE(3) (seed 003 §1.3)."""
    d = (np.sin(theta / 2) / (theta / 2)) ** 2  # = 2(1 - cos θ)/θ² without cancellation
    rng = np.random.default_rng(34)
    assert_allclose(np.linalg.det(SO3.right_jacobian(algebra_with_angle(SO3, rng, theta))), d)
    assert_allclose(np.linalg.det(SE3.right_jacobian(algebra_with_angle(SE3, rng, theta))), d**2)
    assert_allclose(np.linalg.det(SE2.right_jacobian(algebra_with_angle(SE2, rng, theta))), d)
    xi4 = algebra_with_angle(Schoenflies, rng, theta)
    assert_allclose(np.linalg.det(Schoenflies.right_jacobian(xi4)), d)


# ---------------------------------------------------------------------------------------------
# Singularities at θ = 2πk
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "G",
    [G for G in GROUPS if has_rotation(G)],
    ids=[i for G, i in zip(GROUPS, GROUP_IDS, strict=True) if has_rotation(G)],
)
@pytest.mark.parametrize("k", [1, 2, -1])
def test_inverse_jacobian_singular_at_2pi_k(G, k):
    rng = np.random.default_rng(35)
    xi = algebra_with_angle(G, rng, 2 * np.pi * abs(k))
    if k < 0:
        xi = -xi
    with pytest.raises(SingularityError, match="singular at `xi`"):
        G.left_jacobian_inverse(xi)
    with pytest.raises(SingularityError, match="singular at `xi`"):
        G.right_jacobian_inverse(xi)
    # the Jacobian itself exists and is singular there
    assert abs(np.linalg.det(G.right_jacobian(xi))) < 1e-12
    # batched: one singular entry is enough to raise
    batch = np.stack([np.zeros(G.dim), xi])
    with pytest.raises(SingularityError):
        G.left_jacobian_inverse(batch)


def test_inverse_jacobian_regular_near_but_off_2pi():
    xi = np.array([0.0, 0.0, 2 * np.pi - 1e-3])
    Ji = SO3.left_jacobian_inverse(xi)
    assert_allclose(Ji @ SO3.left_jacobian(xi), np.eye(3), atol=1e-9)


def test_generic_fallback_raises_on_singular():
    class _Generic(SO3.__class__):
        _left_jacobian = LieGroup._left_jacobian
        _left_jacobian_inverse = LieGroup._left_jacobian_inverse

    G = _Generic()
    xi = np.array([0.3, -0.2, 0.5])
    assert_allclose(G.left_jacobian_inverse(xi), SO3.left_jacobian_inverse(xi), atol=1e-13)
    with pytest.raises(SingularityError, match="singular at `xi`"):
        G.left_jacobian_inverse([0.0, 0.0, 2 * np.pi])


def test_euclidean_and_product_jacobians():
    assert_allclose(Euclidean(3).right_jacobian_inverse([1e3, 2.0, 3.0]), np.eye(3))
    G = ProductGroup(SO3, Euclidean(2))
    xi = np.array([0.3, -0.2, 0.5, 4.0, 5.0])
    J = G.right_jacobian(xi)
    assert_allclose(J[:3, :3], SO3.right_jacobian(xi[:3])) and assert_allclose(J[3:, 3:], np.eye(2))
