"""Group and Lie-algebra identities, written once and checked on every group."""

from __future__ import annotations

import numpy as np
import pytest
from lie_helpers import algebra_with_angle, random_points
from numpy.testing import assert_allclose
from scipy.linalg import expm

from geomech.lie import SE2, SE3, SO3, Euclidean, LieGroup, ProductGroup, Schoenflies

ATOL = 1e-12


def test_group_attributes(group):
    assert group.identity().shape == group.point_shape
    assert group.hat(np.zeros(group.dim)).shape == (group.matrix_size,) * 2
    assert isinstance(group, LieGroup)
    namespace = {
        "SO3": SO3,
        "SE3": SE3,
        "SE2": SE2,
        "Schoenflies": Schoenflies,
        "Euclidean": Euclidean,
        "ProductGroup": ProductGroup,
    }
    assert eval(repr(group), namespace) == group  # repr round-trips


@pytest.mark.parametrize(
    ("G", "name", "dim", "point_shape"),
    [
        (SO3, "SO(3)", 3, (3, 3)),
        (SE3, "SE(3)", 6, (4, 4)),
        (SE2, "SE(2)", 3, (3, 3)),
        (Schoenflies, "Schoenflies", 4, (4, 4)),
        (Euclidean(3), "R^3", 3, (3,)),
        (ProductGroup(SO3, Euclidean(2)), "SO(3) × R^2", 5, (11,)),
    ],
)
def test_contract_shapes(G, name, dim, point_shape):
    assert (G.name, G.dim, G.point_shape) == (name, dim, point_shape)


def test_reprs_and_equality():
    assert repr(SO3) == "SO3" and repr(Euclidean(2)) == "Euclidean(2)"
    assert repr(ProductGroup(SE2, Euclidean(1))) == "ProductGroup(SE2, Euclidean(1))"
    assert Euclidean(2) == Euclidean(2) and Euclidean(2) != Euclidean(3)
    assert ProductGroup(SO3, Euclidean(2)) == ProductGroup(SO3, Euclidean(2))
    assert hash(ProductGroup(SO3, Euclidean(2))) == hash(ProductGroup(SO3, Euclidean(2)))


# ---------------------------------------------------------------------------------------------
# Group axioms and the matrix representation
# ---------------------------------------------------------------------------------------------
def test_identity_is_neutral(group, near_identity):
    rng = np.random.default_rng(0)
    g = random_points(group, rng, 5, near_identity)
    e = group.identity()
    assert_allclose(group.compose(g, e), g, atol=ATOL)
    assert_allclose(group.compose(e, g), g, atol=ATOL)
    assert_allclose(group.compose(g, group.inverse(g)), np.broadcast_to(e, g.shape), atol=ATOL)
    assert_allclose(group.log(e), np.zeros(group.dim), atol=0)


def test_associativity(group):
    rng = np.random.default_rng(1)
    a, b, c = (group.random(rng, size=4) for _ in range(3))
    lhs = group.compose(group.compose(a, b), c)
    rhs = group.compose(a, group.compose(b, c))
    assert_allclose(lhs, rhs, atol=1e-12)


def test_compose_inverse_exp_agree_with_matrices(group, near_identity):
    """as_matrix is a homomorphism and as_matrix(exp(xi)) = expm(hat(xi))."""
    rng = np.random.default_rng(2)
    a = random_points(group, rng, 4, near_identity)
    b = random_points(group, rng, 4, near_identity)
    A, B = group.as_matrix(a), group.as_matrix(b)
    assert_allclose(group.as_matrix(group.compose(a, b)), A @ B, atol=ATOL)
    assert_allclose(group.as_matrix(group.inverse(a)), np.linalg.inv(A), atol=1e-11)
    for angle in [0.0, 1e-9, 1e-5, 0.3, 2.0, 3.1, 5.0]:
        xi = algebra_with_angle(group, rng, angle, size=(3,))
        expected = np.stack([expm(X) for X in group.hat(xi)])
        assert_allclose(group.as_matrix(group.exp(xi)), expected, atol=1e-12)


def test_hat_vee_roundtrip_and_basis(group):
    rng = np.random.default_rng(3)
    xi = rng.standard_normal((7, group.dim))
    assert_allclose(group.vee(group.hat(xi)), xi, atol=0)
    # hat is linear
    E = group.hat(np.eye(group.dim))
    assert_allclose(group.hat(xi), np.einsum("ni,iab->nab", xi, E), atol=1e-14)


# ---------------------------------------------------------------------------------------------
# Adjoint representations
# ---------------------------------------------------------------------------------------------
def test_Ad_definition(group, near_identity):
    """Ad(g) xi = vee(g hat(xi) g⁻¹) in the matrix representation."""
    rng = np.random.default_rng(4)
    g = random_points(group, rng, 5, near_identity)
    xi = rng.standard_normal((5, group.dim))
    G = group.as_matrix(g)
    expected = group.vee(G @ group.hat(xi) @ np.linalg.inv(G))
    assert_allclose(np.einsum("nij,nj->ni", group.Ad(g), xi), expected, atol=1e-12)


def test_Ad_homomorphism(group):
    rng = np.random.default_rng(5)
    a, b = group.random(rng, size=6), group.random(rng, size=6)
    assert_allclose(group.Ad(group.compose(a, b)), group.Ad(a) @ group.Ad(b), atol=1e-12)
    assert_allclose(group.Ad(group.inverse(a)), np.linalg.inv(group.Ad(a)), atol=1e-11)


def test_Ad_exp_is_expm_ad(group):
    rng = np.random.default_rng(6)
    for angle in [0.0, 1e-8, 0.5, 2.5, 4.0]:
        xi = algebra_with_angle(group, rng, angle, size=(3,))
        expected = np.stack([expm(A) for A in group.ad(xi)])
        assert_allclose(group.Ad(group.exp(xi)), expected, atol=1e-12)


def test_ad_is_bracket_of_hats(group):
    rng = np.random.default_rng(7)
    xi, eta = rng.standard_normal((2, 6, group.dim))
    X, Y = group.hat(xi), group.hat(eta)
    expected = group.vee(X @ Y - Y @ X)
    assert_allclose(np.einsum("nij,nj->ni", group.ad(xi), eta), expected, atol=1e-13)
    assert_allclose(group.bracket(xi, eta), expected, atol=1e-13)
    assert_allclose(group.bracket(xi, eta), -group.bracket(eta, xi), atol=1e-13)


def test_ad_is_derivative_of_Ad(group):
    rng = np.random.default_rng(8)
    xi = rng.standard_normal(group.dim)
    h = 1e-6
    fd = (group.Ad(group.exp(h * xi)) - group.Ad(group.exp(-h * xi))) / (2 * h)
    assert_allclose(fd, group.ad(xi), atol=1e-8)


def test_ad_jacobi_identity(group):
    """ad_[x,y] = ad_x ad_y - ad_y ad_x (seed 003 T2)."""
    rng = np.random.default_rng(9)
    x, y = rng.standard_normal((2, 4, group.dim))
    lhs = group.ad(group.bracket(x, y))
    rhs = group.ad(x) @ group.ad(y) - group.ad(y) @ group.ad(x)
    assert_allclose(lhs, rhs, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# Structure constants
# ---------------------------------------------------------------------------------------------
def test_structure_constants(group):
    s = group.structure_constants()
    n = group.dim
    assert s.shape == (n, n, n)
    assert_allclose(s, -np.swapaxes(s, 0, 1), atol=0)  # antisymmetric in (i, j)
    # Jacobi: sum_m s_ijm s_mkl + s_jkm s_mil + s_kim s_mjl = 0
    jac = (
        np.einsum("ijm,mkl->ijkl", s, s)
        + np.einsum("jkm,mil->ijkl", s, s)
        + np.einsum("kim,mjl->ijkl", s, s)
    )
    assert_allclose(jac, 0.0, atol=1e-14)
    # [E_i, E_j] = sum_k s_ijk E_k
    E = group.hat(np.eye(n))
    comm = np.einsum("iab,jbc->ijac", E, E) - np.einsum("jab,ibc->ijac", E, E)
    assert_allclose(comm, np.einsum("ijk,kab->ijab", s, E), atol=0)
    # ad(E_i)[k, j] = s[i, j, k]
    assert_allclose(group.ad(np.eye(n)), np.transpose(s, (0, 2, 1)), atol=0)
    # a fresh copy is returned
    s[...] = 7.0
    assert not np.any(group.structure_constants() == 7.0)


def test_structure_constants_literal():
    eps = np.zeros((3, 3, 3))
    for i, j, k in [(0, 1, 2), (1, 2, 0), (2, 0, 1)]:
        eps[i, j, k], eps[j, i, k] = 1.0, -1.0
    assert_allclose(SO3.structure_constants(), eps)
    assert_allclose(Euclidean(3).structure_constants(), 0.0)
    s = SE2.structure_constants()  # [E_w, E_x] = E_y, [E_w, E_y] = -E_x, [E_x, E_y] = 0
    assert_allclose(s[0, 1], [0, 0, 1]) and assert_allclose(s[0, 2], [0, -1, 0])
    assert_allclose(s[1, 2], 0.0)
    s = Schoenflies.structure_constants()  # e_z translation is central
    assert_allclose(s[:, 3], 0.0) and assert_allclose(s[0, 1], [0, 0, 1, 0])


# ---------------------------------------------------------------------------------------------
# Literal forms (DESIGN §3, seed 003 eqs. 8, 78, 89 permuted to angular-first order)
# ---------------------------------------------------------------------------------------------
def _skew(w):
    return SO3.hat(w)


def test_se3_ad_and_Ad_blocks():
    rng = np.random.default_rng(10)
    xi = rng.standard_normal(6)
    w, v = xi[:3], xi[3:]
    Z = np.zeros((3, 3))
    assert_allclose(SE3.ad(xi), np.block([[_skew(w), Z], [_skew(v), _skew(w)]]), atol=0)
    g = SE3.random(rng)
    R, p = g[:3, :3], g[:3, 3]
    assert_allclose(SE3.Ad(g), np.block([[R, Z], [_skew(p) @ R, R]]), atol=1e-15)
    # seed 003 eq. (8) in [v; ω] order is P ad P^T
    P = np.block([[Z, np.eye(3)], [np.eye(3), Z]])
    assert_allclose(P @ SE3.ad(xi) @ P.T, np.block([[_skew(w), _skew(v)], [Z, _skew(w)]]))


def test_se2_and_schoenflies_ad_literal():
    w, vx, vy = 0.3, -1.2, 0.7
    # seed 003 eq. (78): ad_V for [u, v, r] = [[0, -r, v], [r, 0, -u], [0, 0, 0]]
    seed = np.array([[0, -w, vy], [w, 0, -vx], [0, 0, 0]])
    perm = [2, 0, 1]  # ours [ω, vx, vy] -> seed indices
    assert_allclose(SE2.ad([w, vx, vy]), seed[np.ix_(perm, perm)], atol=0)
    # seed 003 eq. (89) for [u, v, w, r]
    vz = 0.4
    seed4 = np.array([[0, -w, 0, vy], [w, 0, 0, -vx], [0, 0, 0, 0], [0, 0, 0, 0]])
    perm4 = [3, 0, 1, 2]
    assert_allclose(Schoenflies.ad([w, vx, vy, vz]), seed4[np.ix_(perm4, perm4)], atol=0)


def test_subgroups_of_se3():
    """SE2-in-Schoenflies-in-SE3: exp, Ad and ad restrict consistently (seed 003 T17)."""
    rng = np.random.default_rng(11)
    xi4 = rng.standard_normal(4)
    H = np.zeros((6, 4))  # Schoenflies coordinates -> SE(3) coordinates [ω; v]
    H[2, 0] = H[3, 1] = H[4, 2] = H[5, 3] = 1.0
    assert_allclose(Schoenflies.exp(xi4), SE3.exp(H @ xi4), atol=1e-14)
    assert_allclose(SE3.ad(H @ xi4) @ H, H @ Schoenflies.ad(xi4), atol=1e-14)
    g = Schoenflies.exp(xi4)
    assert_allclose(SE3.Ad(g) @ H, H @ Schoenflies.Ad(g), atol=1e-14)
    assert_allclose(SE3.log(g), H @ Schoenflies.log(g), atol=1e-14)


def test_product_is_blockwise():
    G = ProductGroup(SO3, Euclidean(2))
    rng = np.random.default_rng(12)
    xi = rng.standard_normal(5)
    R, x = G.split(G.exp(xi))
    assert_allclose(R, SO3.exp(xi[:3])) and assert_allclose(x, xi[3:])
    assert_allclose(G.join([R, x]), G.exp(xi))
    g = G.random(rng)
    Ad = G.Ad(g)
    assert_allclose(Ad[:3, :3], SO3.Ad(G.split(g)[0])) and assert_allclose(Ad[3:, 3:], np.eye(2))
    assert_allclose(Ad[:3, 3:], 0.0) and assert_allclose(Ad[3:, :3], 0.0)
    nested = ProductGroup(SE2, ProductGroup(Schoenflies, Euclidean(1)))
    assert (nested.dim, nested.point_shape) == (8, (26,))
    xi = rng.standard_normal(8)
    assert_allclose(nested.log(nested.exp(0.5 * xi)), 0.5 * xi, atol=1e-14)
