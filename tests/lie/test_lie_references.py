"""Agreement with geomstats (``to_geomstats``) and scipy.spatial.transform.Rotation."""

from __future__ import annotations

import numpy as np
import pytest
from lie_helpers import algebra_with_angle
from numpy.testing import assert_allclose
from scipy.spatial.transform import Rotation

from geomech.lie import SE2, SE3, SO3, Euclidean, ProductGroup, Schoenflies
from geomech.lie.quaternion import matrix_to_quat

MATRIX_GROUPS = [SO3, SE3, SE2, Schoenflies]


@pytest.mark.parametrize("G", MATRIX_GROUPS, ids=repr)
def test_matrix_groups_agree_with_geomstats(G, geomstats_spaces):
    space = geomstats_spaces[G]
    rng = np.random.default_rng(40)
    a, b = G.random(rng, size=5), G.random(rng, size=5)
    assert np.all(space.belongs(a))
    assert_allclose(space.compose(a, b), G.compose(a, b), atol=1e-12)
    assert_allclose(space.inverse(a), G.inverse(a), atol=1e-12)
    for angle in [1e-6, 0.5, 2.0, 3.0]:
        xi = algebra_with_angle(G, rng, angle, size=(4,))
        assert_allclose(space.exp(G.hat(xi)), G.exp(xi), atol=1e-10)
        assert_allclose(space.log(G.exp(xi)), G.hat(xi), atol=1e-8)
    assert_allclose(space.identity, G.identity())


@pytest.mark.parametrize("G", [SE3, SE2], ids=repr)
def test_geomstats_lie_algebra_basis_is_hat_basis(G, geomstats_spaces):
    """geomstats orders se(n) rotation first, like us: basis[i] == hat(e_i)."""
    basis = geomstats_spaces[G].lie_algebra.basis
    assert_allclose(basis, G.hat(np.eye(G.dim)))


def test_geomstats_se3_vector_chart_is_rotvec_translation(geomstats_spaces):
    """geomstats' SE(3) vector form is [rotation vector; translation p] (not [ω; v])."""
    from geomstats.geometry.special_euclidean import SpecialEuclidean

    V = SpecialEuclidean(3, point_type="vector")
    xi = np.array([0.3, -0.2, 0.5, 1.0, 2.0, 3.0])
    g = SE3.exp(xi)
    assert_allclose(V.exp(xi), np.concatenate([xi[:3], g[:3, 3]]), atol=1e-12)


def test_euclidean_agrees_with_geomstats(geomstats_spaces):
    G = Euclidean(3)
    space = geomstats_spaces[G]
    rng = np.random.default_rng(41)
    x, xi = rng.standard_normal((2, 3))
    assert space.belongs(G.random(rng))
    assert_allclose(space.metric.exp(xi, x), G.compose(x, G.exp(xi)))
    assert_allclose(space.metric.log(G.compose(x, G.exp(xi)), x), xi, atol=1e-14)


def test_product_agrees_with_geomstats(geomstats_spaces):
    G = ProductGroup(SO3, Euclidean(2))
    space = geomstats_spaces[G]
    rng = np.random.default_rng(42)
    g = G.random(rng, size=3)
    assert np.all(space.belongs(g))
    for ours, theirs in zip(G.split(g), space.project_from_product(g), strict=True):
        assert_allclose(ours, theirs)
    # group operations factor by factor
    a, b = G.random(rng), G.random(rng)
    Ra, xa = G.split(a)
    Rb, xb = G.split(b)
    gs_so3 = space.factors[0]
    assert_allclose(G.split(G.compose(a, b))[0], gs_so3.compose(Ra, Rb), atol=1e-12)
    assert_allclose(G.split(G.compose(a, b))[1], space.factors[1].metric.exp(xb, xa))


# ---------------------------------------------------------------------------------------------
# scipy.spatial.transform.Rotation
# ---------------------------------------------------------------------------------------------
def test_so3_agrees_with_scipy():
    rng = np.random.default_rng(43)
    for angle in [0.0, 1e-10, 1e-4, 0.5, 2.0, 3.0, np.pi - 1e-7]:
        w = algebra_with_angle(SO3, rng, angle, size=(10,))
        R = SO3.exp(w)
        assert_allclose(R, Rotation.from_rotvec(w).as_matrix(), atol=1e-14)
        assert_allclose(SO3.log(R), Rotation.from_matrix(R).as_rotvec(), atol=1e-8)
        if angle < 3.0:
            assert_allclose(SO3.log(R), Rotation.from_matrix(R).as_rotvec(), atol=1e-13)
        q_scipy = Rotation.from_matrix(R).as_quat()
        q = matrix_to_quat(R)
        sign = np.sign(np.sum(q * q_scipy, axis=-1, keepdims=True))
        assert_allclose(q, sign * q_scipy, atol=1e-13)
    Rs = Rotation.random(20, random_state=1)
    assert_allclose(SO3.log(Rs.as_matrix()), Rs.as_rotvec(), atol=1e-12)
