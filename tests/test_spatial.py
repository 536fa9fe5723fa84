"""Spatial vector algebra against independent references (point velocities, point masses)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial.transform import Rotation

from geomech import spatial as sp
from geomech.errors import DimensionError, InertiaError, NonFiniteError, NotOnManifoldError

finite = st.floats(-10, 10, allow_nan=False)
vec6 = arrays(float, 6, elements=finite)


def random_pose(rng, size=None):
    R = Rotation.random(size, random_state=rng).as_matrix()
    p = rng.normal(size=(() if size is None else (size,)) + (3,))
    return R, p


def random_inertia(rng):
    m = rng.uniform(0.5, 3.0)
    c = rng.normal(size=3)
    d = rng.uniform(0.1, 1.0, 3)
    Ic_principal = np.diag([d[1] + d[2], d[0] + d[2], d[0] + d[1]])  # triangle inequality holds
    Q = Rotation.random(random_state=rng).as_matrix()
    return m, c, Q @ Ic_principal @ Q.T


@given(vec6, vec6)
@settings(max_examples=50, deadline=None)
def test_cross_products(v, w):
    assert np.allclose(sp.crf(v), -sp.crm(v).T)
    assert np.allclose(sp.crm(v) @ w, -sp.crm(w) @ v)  # antisymmetry of the bracket
    assert np.allclose(sp.crbar(w) @ v, sp.crf(v) @ w)  # (f x̄*) v = (v x*) f
    assert np.allclose(sp.crbar(w), -sp.crbar(w).T)  # x̄* is skew


def test_crm_is_se3_bracket_of_matrices():
    rng = np.random.default_rng(1)
    v, w = rng.normal(size=(2, 6))

    def hat(t):
        M = np.zeros((4, 4))
        M[:3, :3] = sp.skew(t[:3])
        M[:3, 3] = t[3:]
        return M

    br = hat(v) @ hat(w) - hat(w) @ hat(v)
    assert np.allclose(sp.crm(v) @ w, np.r_[sp.unskew(br[:3, :3]), br[:3, 3]])


def test_motion_transform_matches_point_velocity():
    rng = np.random.default_rng(2)
    for _ in range(10):
        R, p = random_pose(rng)  # pose of B in A
        T = np.eye(4)
        T[:3, :3], T[:3, 3] = R, p
        omega, v_A = rng.normal(size=(2, 3))
        X = sp.plucker_from_pose(T)
        expected = np.r_[R.T @ omega, R.T @ (v_A + np.cross(omega, p))]
        assert np.allclose(sp.transform_motion(X, np.r_[omega, v_A]), expected)
        assert np.allclose(X, sp.plucker(R.T, p))


def test_force_transform_matches_moment_shift_and_power():
    rng = np.random.default_rng(3)
    R, p = random_pose(rng)
    X = sp.plucker(R.T, p)
    n_A, f = rng.normal(size=(2, 3))
    expected = np.r_[R.T @ (n_A - np.cross(p, f)), R.T @ f]
    assert np.allclose(sp.transform_force(X, np.r_[n_A, f]), expected)
    m = rng.normal(size=6)
    power_A = m @ np.r_[n_A, f]
    power_B = sp.transform_motion(X, m) @ sp.transform_force(X, np.r_[n_A, f])
    assert np.isclose(power_A, power_B)


def test_plucker_inverse_and_composition():
    rng = np.random.default_rng(4)
    (R1, p1), (R2, p2) = random_pose(rng), random_pose(rng)
    X1, X2 = sp.plucker(R1, p1), sp.plucker(R2, p2)
    assert np.allclose(sp.plucker_inverse(X1), np.linalg.inv(X1))
    # composition of Plücker transforms is again a Plücker transform: E = E2 E1, r = r1 + E1ᵀ r2
    assert np.allclose(X2 @ X1, sp.plucker(R2 @ R1, p1 + R1.T @ p2))


def test_transform_inertia_matches_moved_body_and_congruence():
    rng = np.random.default_rng(5)
    m, c_A, Ic_A = random_inertia(rng)
    I_A = sp.spatial_inertia(m, c_A, Ic_A)
    R, p = random_pose(rng)  # pose of B in A
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    X = sp.plucker_from_pose(T)
    I_B = sp.transform_inertia(X, I_A)
    assert np.allclose(I_B, sp.spatial_inertia(m, R.T @ (c_A - p), R.T @ Ic_A @ R))
    assert np.allclose(X.T @ I_B @ X, I_A)
    # kinetic energy is frame independent
    v = rng.normal(size=6)
    assert np.isclose(v @ I_A @ v, (X @ v) @ I_B @ (X @ v))


def test_spatial_inertia_of_point_masses_and_pseudo_inertia():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(5, 3))
    w = rng.uniform(0.1, 1.0, 5)
    I = sum(sp.spatial_inertia(wi, xi, np.zeros((3, 3))) for wi, xi in zip(w, x, strict=True))
    J = sum(wi * np.outer(np.r_[xi, 1], np.r_[xi, 1]) for wi, xi in zip(w, x, strict=True))
    assert np.allclose(sp.pseudo_inertia(I), J)
    assert np.allclose(sp.inertia_from_pseudo(J), I)
    # the rotational inertia about the origin is Σ m (|x|² 1 − x xᵀ)
    I_O = sum(wi * (xi @ xi * np.eye(3) - np.outer(xi, xi)) for wi, xi in zip(w, x, strict=True))
    assert np.allclose(I[:3, :3], I_O)
    m, c, Ic = sp.inertia_parameters(I)
    assert np.isclose(m, w.sum()) and np.allclose(c, w @ x / w.sum())
    assert bool(sp.is_physically_consistent(I))


def test_spatial_inertia_literal():
    I = sp.spatial_inertia(2.0, [0.0, 0.0, 0.5], np.diag([1.0, 2.0, 3.0]))
    expected = np.array(
        [
            [1.5, 0, 0, 0, -1.0, 0],
            [0, 2.5, 0, 1.0, 0, 0],
            [0, 0, 3.0, 0, 0, 0],
            [0, 1.0, 0, 2.0, 0, 0],
            [-1.0, 0, 0, 0, 2.0, 0],
            [0, 0, 0, 0, 0, 2.0],
        ]
    )
    assert np.allclose(I, expected)


def test_batched_equals_loop():
    rng = np.random.default_rng(7)
    R, p = random_pose(rng, size=8)
    v = rng.normal(size=(8, 6))
    X = sp.plucker(R, p)
    assert X.shape == (8, 6, 6)
    for k in range(8):
        assert np.allclose(X[k], sp.plucker(R[k], p[k]))
        assert np.allclose(sp.crm(v)[k], sp.crm(v[k]))
        assert np.allclose(sp.crbar(v)[k], sp.crbar(v[k]))
        assert np.allclose(sp.transform_force(X, v)[k], sp.transform_force(X[k], v[k]))
    I = sp.spatial_inertia(np.ones(8), p, np.broadcast_to(np.eye(3), (8, 3, 3)))
    assert I.shape == (8, 6, 6) and np.allclose(I[3], sp.spatial_inertia(1.0, p[3], np.eye(3)))
    assert sp.is_physically_consistent(I).shape == (8,)


def test_physical_consistency_detects_triangle_violation():
    good = sp.spatial_inertia(1.0, [0, 0, 0], np.diag([1.0, 1.0, 1.9]))
    bad = sp.spatial_inertia(1.0, [0, 0, 0], np.diag([1.0, 1.0, 2.1]))
    assert np.all(np.linalg.eigvalsh(bad) > 0)  # SPD, yet not physical
    assert sp.is_physically_consistent(good) and not sp.is_physically_consistent(bad)
    with pytest.raises(InertiaError, match="`I_link` to be physically consistent"):
        sp.validate_inertia(bad, "I_link")


@pytest.mark.parametrize(
    ("func", "args", "error", "match"),
    [
        (sp.crm, (np.ones(5),), DimensionError, r"`v` to have shape \(\.\.\., 6\), got \(5,\)"),
        (sp.crf, (np.ones((2, 3)),), DimensionError, "`v` to have shape"),
        (sp.crbar, ([np.nan] * 6,), NonFiniteError, "`f` to be finite"),
        (sp.skew, ([1.0, 2.0],), DimensionError, "`p` to have shape"),
        (sp.plucker, (2 * np.eye(3), np.zeros(3)), NotOnManifoldError, "`E` to be orthonormal"),
        (sp.plucker, (np.diag([1.0, 1, -1]), np.zeros(3)), NotOnManifoldError, "determinant"),
        (sp.plucker, (np.eye(3), np.zeros(4)), DimensionError, "`r` to have shape"),
        (sp.plucker_from_pose, (np.eye(3),), DimensionError, "`T` to have shape"),
        (sp.spatial_inertia, (1.0, [0, 0, np.inf], np.eye(3)), NonFiniteError, "`com`"),
        (sp.validate_inertia, (np.eye(6) * -1, "I7"), InertiaError, "`I7` to have positive mass"),
        (sp.validate_inertia, (np.arange(36.0).reshape(6, 6), "I7"), InertiaError, "symmetric"),
        (sp.validate_inertia, (np.diag([1, 1, 1, 1, 2, 3.0]), "I7"), InertiaError, "m\\*1"),
        (sp.inertia_parameters, (np.zeros((6, 6)),), InertiaError, "positive mass"),
    ],
)
def test_bad_input_raises(func, args, error, match):
    with pytest.raises(error, match=match):
        func(*args)


def test_validate_inertia_allows_massless():
    assert np.all(sp.validate_inertia(np.zeros((6, 6)), allow_massless=True) == 0)
    with pytest.raises(InertiaError):
        sp.validate_inertia(np.zeros((6, 6)))
