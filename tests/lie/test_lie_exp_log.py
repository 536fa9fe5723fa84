"""exp/log round trips (incl. angles near 0 and π), literal values and batching."""

from __future__ import annotations

import numpy as np
import pytest
from lie_helpers import GROUPS, algebra_with_angle, random_points, rotation_angles, rotation_blocks
from numpy.testing import assert_allclose

from geomech.lie import SE2, SE3, SO3, Euclidean, ProductGroup, Schoenflies


def test_exp_of_log(group, near_identity):
    rng = np.random.default_rng(20)
    g = random_points(group, rng, 50, near_identity)
    assert_allclose(group.exp(group.log(g)), g, atol=1e-12)


@pytest.mark.parametrize("angle", [0.0, 1e-12, 1e-8, 1e-6, 1e-4, 0.1, 1.0, 2.0, 3.0, np.pi - 1e-6])
def test_log_of_exp_principal(group, angle):
    rng = np.random.default_rng(21)
    for scale in [1.0, 1e-8]:
        xi = algebra_with_angle(group, rng, angle, size=(8,), scale=scale)
        out = group.log(group.exp(xi))
        # exp rounds entries to ~eps absolute, so tiny coordinates come back to ~eps absolute
        assert_allclose(out, xi, rtol=1e-9, atol=1e-14)


ROTATIONAL = [G for G in GROUPS if rotation_blocks(G)]


@pytest.mark.parametrize("group", ROTATIONAL, ids=repr)
@pytest.mark.parametrize("delta", [1e-8, 1e-10, 1e-13, 0.0])
def test_log_near_pi(group, delta):
    """Within 1e-8 of π: exp(log(g)) = g and the angle is π - δ (the sign is free at π)."""
    rng = np.random.default_rng(22)
    xi = algebra_with_angle(group, rng, np.pi - delta, size=(20,))
    g = group.exp(xi)
    out = group.log(g)
    assert_allclose(group.exp(out), g, atol=1e-12)
    for a in rotation_angles(group, out):
        assert_allclose(a, np.pi - delta, atol=1e-12)
    if delta >= 1e-8:  # far enough from π for the sign to be determined: recover xi itself
        assert_allclose(out, xi, atol=1e-7)


def test_so3_log_at_pi_convention():
    """At exactly π the axis has its largest-magnitude component positive."""
    for axis in [[1.0, 0, 0], [0, -1.0, 0], [0.6, -0.8, 0], [-1.0, 2.0, -3.0]]:
        u = np.asarray(axis) / np.linalg.norm(axis)
        R = 2 * np.outer(u, u) - np.eye(3)  # exact rotation by π
        w = SO3.log(R)
        assert_allclose(np.linalg.norm(w), np.pi, atol=1e-15)
        assert w[np.argmax(np.abs(w))] > 0
        assert_allclose(SO3.exp(w), R, atol=1e-15)


def test_se2_log_at_pi_is_plus_pi():
    g = SE2.exp([-np.pi, 1.0, 2.0])
    assert_allclose(SE2.log(g)[0], np.pi)
    assert_allclose(SE2.exp(SE2.log(g)), g, atol=1e-14)


def test_log_angle_range(group):
    rng = np.random.default_rng(23)
    for a in rotation_angles(group, group.log(group.random(rng, size=500))):
        assert np.all(a <= np.pi + 1e-15)


def test_log_is_local_inverse_beyond_pi():
    """Angles in (π, 2π) come back as the principal value 2π - θ about -u."""
    u = np.array([0.0, 0.0, 1.0])
    w = SO3.log(SO3.exp(4.0 * u))
    assert_allclose(w, (4.0 - 2 * np.pi) * u, atol=1e-14)


# ---------------------------------------------------------------------------------------------
# Literal values
# ---------------------------------------------------------------------------------------------
def test_literal_values():
    Rz90 = np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]])
    assert_allclose(SO3.exp([0, 0, np.pi / 2]), Rz90, atol=1e-15)
    assert_allclose(SO3.log(Rz90), [0, 0, np.pi / 2], atol=1e-15)
    # SE(3): pure translation, and a screw about z with v = (1, 0, 0): p = V v, V = J_l^SO3
    assert_allclose(SE3.exp([0, 0, 0, 1.0, 2.0, 3.0])[:3, 3], [1, 2, 3])
    g = SE3.exp([0, 0, np.pi / 2, 1.0, 0, 0])
    assert_allclose(g[:3, :3], Rz90, atol=1e-15)
    assert_allclose(g[:3, 3], [2 / np.pi, 2 / np.pi, 0.0], atol=1e-15)
    # SE(2): quarter turn with v = (1, 0) moves the origin along an arc of radius 2/π
    g = SE2.exp([np.pi / 2, 1.0, 0.0])
    assert_allclose(g, [[0, -1, 2 / np.pi], [1, 0, 2 / np.pi], [0, 0, 1]], atol=1e-15)
    g = Schoenflies.exp([np.pi, 0.0, 0.0, 2.0])
    assert_allclose(g, [[-1, 0, 0, 0], [0, -1, 0, 0], [0, 0, 1, 2.0], [0, 0, 0, 1]], atol=1e-15)
    assert_allclose(Euclidean(2).exp([1.0, -2.0]), [1.0, -2.0])


# ---------------------------------------------------------------------------------------------
# Batching: the batched call equals the loop over single calls
# ---------------------------------------------------------------------------------------------
def test_batched_equals_loop(group):
    rng = np.random.default_rng(24)
    shape = (2, 3)
    xi = algebra_with_angle(group, rng, 1.3, size=shape)
    g = group.random(rng, size=shape)
    h = group.random(rng, size=shape)
    batched = {
        "exp": group.exp(xi),
        "log": group.log(g),
        "inverse": group.inverse(g),
        "compose": group.compose(g, h),
        "Ad": group.Ad(g),
        "ad": group.ad(xi),
        "hat": group.hat(xi),
        "as_matrix": group.as_matrix(g),
        "Jl": group.left_jacobian(xi),
        "Jr": group.right_jacobian(xi),
        "Jl_inv": group.left_jacobian_inverse(xi),
        "Jr_inv": group.right_jacobian_inverse(xi),
        "bracket": group.bracket(xi, xi[::-1]),
    }
    for idx in np.ndindex(*shape):
        single = {
            "exp": group.exp(xi[idx]),
            "log": group.log(g[idx]),
            "inverse": group.inverse(g[idx]),
            "compose": group.compose(g[idx], h[idx]),
            "Ad": group.Ad(g[idx]),
            "ad": group.ad(xi[idx]),
            "hat": group.hat(xi[idx]),
            "as_matrix": group.as_matrix(g[idx]),
            "Jl": group.left_jacobian(xi[idx]),
            "Jr": group.right_jacobian(xi[idx]),
            "Jl_inv": group.left_jacobian_inverse(xi[idx]),
            "Jr_inv": group.right_jacobian_inverse(xi[idx]),
            "bracket": group.bracket(xi[idx], xi[::-1][idx]),
        }
        for key, value in single.items():
            assert batched[key][idx].shape == value.shape, key
            assert_allclose(batched[key][idx], value, atol=1e-15, err_msg=key)
    assert group.vee(batched["hat"]).shape == shape + (group.dim,)


def test_compose_broadcasts(group):
    rng = np.random.default_rng(25)
    a = group.random(rng, size=(4, 1))
    b = group.random(rng, size=(3,))
    ab = group.compose(a, b)
    assert ab.shape == (4, 3) + group.point_shape
    assert_allclose(ab[2, 1], group.compose(a[2, 0], b[1]))


def test_random_shapes_and_seeding(group):
    assert group.random(0).shape == group.point_shape
    assert group.random(0, size=5).shape == (5,) + group.point_shape
    assert group.random(0, size=(2, 3)).shape == (2, 3) + group.point_shape
    assert_allclose(group.random(7, size=3), group.random(np.random.default_rng(7), size=3))
    group.validate(group.random(1, size=100))


def test_random_rotations_are_uniform():
    """Haar measure on SO(3): E[R] = 0 and the angle density is (1 - cos θ)/π."""
    R = SO3.random(rng=3, size=20000)
    assert np.max(np.abs(R.mean(axis=0))) < 0.02
    theta = np.linalg.norm(SO3.log(R), axis=-1)
    assert abs(np.mean(theta) - (np.pi / 2 + 2 / np.pi)) < 0.02


def test_product_split_join_roundtrip():
    G = ProductGroup(SO3, Euclidean(2))
    g = G.random(0, size=(2, 2))
    parts = G.split(g)
    assert [p.shape for p in parts] == [(2, 2, 3, 3), (2, 2, 2)]
    assert_allclose(G.join(parts), g)
    assert_allclose(G.join([np.eye(3), np.zeros((4, 2))]), np.broadcast_to(G.identity(), (4, 11)))
