"""Task-space Coriolis matrix (seed 000 Remark 8) on the two-link arm and a redundant 3R arm.

References: the textbook two-link-arm Coriolis matrix (Spong et al. §7.4), the classical
square-Jacobian formula J^-T C J^-1 - Lambda J_dot J^-1, Lambda_dot by central differences
of Lambda(q) = (J H^-1 J^T)^-1 along the motion, and eq. (17) with A_dot by differences.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from geomech.errors import DimensionError, InertiaError, SingularityError
from geomech.geometry import LeviCivitaConnection, task_space_coriolis, transform_coriolis
from geomech.geometry.examples_induced import planar_serial_chain

M1, M2, L1, L2, LC1, LC2, I1, I2 = 1.3, 0.7, 0.9, 0.6, 0.4, 0.35, 0.11, 0.05


def arm_H(q):
    c2 = np.cos(q[..., 1])
    H11 = M1 * LC1**2 + M2 * (L1**2 + LC2**2 + 2 * L1 * LC2 * c2) + I1 + I2
    H12 = M2 * (LC2**2 + L1 * LC2 * c2) + I2
    H22 = np.full_like(c2, M2 * LC2**2 + I2)
    return np.stack([np.stack([H11, H12], -1), np.stack([H12, H22], -1)], -2)


def arm_C(q, v):
    """Spong: h = -m2 l1 lc2 sin q2, C = [[h v2, h (v1 + v2)], [-h v1, 0]]."""
    h = -M2 * L1 * LC2 * np.sin(q[..., 1])
    z = np.zeros_like(h)
    return np.stack(
        [
            np.stack([h * v[..., 1], h * (v[..., 0] + v[..., 1])], -1),
            np.stack([-h * v[..., 0], z], -1),
        ],
        -2,
    )


def arm_J(q):
    s1, c1 = np.sin(q[..., 0]), np.cos(q[..., 0])
    s12, c12 = np.sin(q[..., 0] + q[..., 1]), np.cos(q[..., 0] + q[..., 1])
    return np.stack(
        [
            np.stack([-L1 * s1 - L2 * s12, -L2 * s12], -1),
            np.stack([L1 * c1 + L2 * c12, L2 * c12], -1),
        ],
        -2,
    )


def arm_J_dot(q, v):
    s1, c1 = np.sin(q[..., 0]), np.cos(q[..., 0])
    s12, c12 = np.sin(q[..., 0] + q[..., 1]), np.cos(q[..., 0] + q[..., 1])
    w1, w12 = v[..., 0], v[..., 0] + v[..., 1]
    return np.stack(
        [
            np.stack([-L1 * c1 * w1 - L2 * c12 * w12, -L2 * c12 * w12], -1),
            np.stack([-L1 * s1 * w1 - L2 * s12 * w12, -L2 * s12 * w12], -1),
        ],
        -2,
    )


def _Lambda(H, J):
    return np.linalg.inv(J @ np.linalg.solve(H, np.swapaxes(J, -1, -2)))


def _Lambda_dot_fd(H_fun, J_fun, q, v, h=1e-6):
    return (
        _Lambda(H_fun(q + h * v), J_fun(q + h * v)) - _Lambda(H_fun(q - h * v), J_fun(q - h * v))
    ) / (2 * h)


def _non_skew_C(q, v, alpha=0.8):
    """C* + alpha [[v2, -v1], [0, 0]]: same C v (correct), but H_dot - 2C is not skew."""
    N = np.zeros(v.shape[:-1] + (2, 2))
    N[..., 0, 0], N[..., 0, 1] = v[..., 1], -v[..., 0]
    return arm_C(q, v) + alpha * N


@pytest.fixture
def states(rng):
    q = rng.uniform(-np.pi, np.pi, size=(6, 2))
    q[:, 1] = rng.uniform(0.4, 2.7, size=6) * rng.choice([-1, 1], size=6)  # away from J singular
    return q, rng.normal(size=(6, 2))


def test_reference_arm_is_consistent(states):
    """The literal C is skew: H_dot = C + C^T (H_dot by central differences)."""
    q, v = states
    h = 1e-6
    H_dot = (arm_H(q + h * v) - arm_H(q - h * v)) / (2 * h)
    C = arm_C(q, v)
    assert_allclose(H_dot, C + np.swapaxes(C, -1, -2), atol=1e-9)


def test_square_jacobian_classical_formula(states):
    q, v = states
    H, C, J, J_dot = arm_H(q), arm_C(q, v), arm_J(q), arm_J_dot(q, v)
    Lambda, C_task = task_space_coriolis(H, C, J, J_dot)
    Jinv = np.linalg.inv(J)
    assert_allclose(Lambda, np.swapaxes(Jinv, -1, -2) @ H @ Jinv, rtol=1e-10)
    assert_allclose(
        C_task, np.swapaxes(Jinv, -1, -2) @ C @ Jinv - Lambda @ J_dot @ Jinv, rtol=1e-9, atol=1e-9
    )


def test_task_space_skew_on_the_two_link_arm(states):
    """Lambda_dot - 2 C_task is skew whenever H_dot - 2 C is (Remark 8)."""
    q, v = states
    Lambda, C_task = task_space_coriolis(arm_H(q), arm_C(q, v), arm_J(q), arm_J_dot(q, v))
    Lambda_dot = _Lambda_dot_fd(arm_H, arm_J, q, v)
    assert_allclose(Lambda_dot, C_task + np.swapaxes(C_task, -1, -2), atol=1e-7)


def test_task_space_non_skew_stays_non_skew(states):
    q, v = states
    _Lambda_, C_task = task_space_coriolis(arm_H(q), _non_skew_C(q, v), arm_J(q), arm_J_dot(q, v))
    Lambda_dot = _Lambda_dot_fd(arm_H, arm_J, q, v)
    assert np.abs(Lambda_dot - C_task - np.swapaxes(C_task, -1, -2)).max() > 1e-2


def test_redundant_one_dimensional_task(states):
    """Task = tip x only (J is 1 x 2): Lambda_dot = 2 C_task."""
    q, v = states

    def J1(q):
        return arm_J(q)[..., :1, :]

    Lambda, C_task = task_space_coriolis(arm_H(q), arm_C(q, v), J1(q), arm_J_dot(q, v)[..., :1, :])
    assert Lambda.shape == C_task.shape == (6, 1, 1)
    assert_allclose(_Lambda_dot_fd(arm_H, J1, q, v), 2 * C_task, atol=1e-7)


def test_matches_transformation_law_with_differenced_A(states):
    """C_task = A^T C A + A^T H A_dot with A = H^-1 J^T Lambda, A_dot by differences."""
    q, v = states

    def A_fun(q):
        H, J = arm_H(q), arm_J(q)[..., :1, :]
        return np.linalg.solve(H, np.swapaxes(J, -1, -2)) @ _Lambda(H, J)

    h = 1e-6
    A_dot = (A_fun(q + h * v) - A_fun(q - h * v)) / (2 * h)
    Lambda_ref, C_ref = transform_coriolis(arm_H(q), arm_C(q, v), A_fun(q), A_dot)
    Lambda, C_task = task_space_coriolis(
        arm_H(q), arm_C(q, v), arm_J(q)[..., :1, :], arm_J_dot(q, v)[..., :1, :]
    )
    assert_allclose(Lambda, Lambda_ref, rtol=1e-10)
    assert_allclose(C_task, C_ref, atol=1e-8)


def test_redundant_three_link_arm(rng):
    """3R arm (n = 3), planar tip task (k = 2): Lambda_dot = C_task + C_task^T."""
    lengths = np.array([0.9, 0.7, 0.5])
    arm = planar_serial_chain(
        "RRR",
        [[0, 0], [0.9, 0], [0.7, 0]],
        [1.2, 0.8, 0.5],
        [[0.45, 0], [0.35, 0], [0.25, 0]],
        [0.08, 0.04, 0.01],
    )
    lc = LeviCivitaConnection(arm)

    def J(q):
        th = np.cumsum(q, -1)
        dx = -np.cumsum((lengths * np.sin(th))[..., ::-1], -1)[..., ::-1]
        dy = np.cumsum((lengths * np.cos(th))[..., ::-1], -1)[..., ::-1]
        return np.stack([dx, dy], -2)

    q = rng.uniform(-2, 2, size=(4, 3))
    v = rng.normal(size=(4, 3))
    h = 1e-6
    J_dot = (J(q + h * v) - J(q - h * v)) / (2 * h)
    Lambda, C_task = task_space_coriolis(arm.mass_matrix(q), lc.coriolis_matrix(q, v), J(q), J_dot)
    Lambda_dot = _Lambda_dot_fd(arm.mass_matrix, J, q, v)
    assert_allclose(Lambda_dot, C_task + np.swapaxes(C_task, -1, -2), atol=1e-7)


def test_task_space_validation():
    H, C = np.eye(2), np.zeros((2, 2))
    with pytest.raises(DimensionError, match=r"`J` to have n = 2 columns.*got shape \(2, 3\)"):
        task_space_coriolis(H, C, np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(
        SingularityError, match="`J` to have full row rank 2, got smallest singular value"
    ):
        task_space_coriolis(H, C, np.ones((2, 2)), np.zeros((2, 2)))
    with pytest.raises(SingularityError, match=r"`J` to have full row rank 3, got 2 columns"):
        task_space_coriolis(H, C, np.ones((3, 2)), np.zeros((3, 2)))
    with pytest.raises(DimensionError, match=r"`J_dot` to have shape \(\.\.\., 1, 2\)"):
        task_space_coriolis(H, C, np.ones((1, 2)), np.zeros((2, 2)))
    with pytest.raises(DimensionError, match=r"`C` to have shape \(\.\.\., 2, 2\), got \(3, 3\)"):
        task_space_coriolis(H, np.zeros((3, 3)), np.ones((1, 2)), np.zeros((1, 2)))
    with pytest.raises(DimensionError, match=r"`H` to have shape \(\.\.\., n, n\)"):
        task_space_coriolis(np.ones((2, 3)), C, np.ones((1, 2)), np.zeros((1, 2)))
    with pytest.raises(InertiaError, match="`H` to be symmetric"):
        task_space_coriolis(
            np.array([[1.0, 0.5], [0.0, 1.0]]), C, np.ones((1, 2)), np.zeros((1, 2))
        )
    with pytest.raises(DimensionError, match="batch\\) dimensions of `H`, `C`, `J`, `J_dot`"):
        task_space_coriolis(
            np.broadcast_to(H, (3, 2, 2)), np.zeros((4, 2, 2)), np.ones((1, 2)), np.zeros((1, 2))
        )
