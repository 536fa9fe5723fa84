"""The paper's explicit scalar equations (digest T12) against the matrix form.

The scalar equations are the paper's component formulas (§4, erratum E5 fixed); the matrix
form is ``M v̇ - ad_vᵀ M v`` with geomech's structure constants. They share no code.
"""

import numpy as np
import pytest

from geomech.errors import DimensionError, InertiaError
from geomech.lie import SE2, SE3, SO3, Euclidean, Schoenflies
from geomech.rigidbody import (
    RigidBody,
    euler_equations,
    kirchhoff_equations,
    newton_euler_equations,
    planar_equations,
    schoenflies_equations,
)


def _random_state(rng, n, batch=(4,)):
    return rng.standard_normal(batch + (n,)), rng.standard_normal(batch + (n,))


def test_euler_equations_vs_matrix_form(rng):
    I = np.array([1.0, 2.0, 3.5])
    body = RigidBody(SO3, np.diag(I))
    w, w_dot = _random_state(rng, 3)
    np.testing.assert_allclose(
        euler_equations(I, w, w_dot), body.inverse_dynamics(np.eye(3), w, w_dot), atol=1e-12
    )
    # eqs. (1), (5), (71): M ω̇ - Mω × ω = τ,  M ω̇ + ω̂ M ω = τ
    np.testing.assert_allclose(
        euler_equations(I, w, w_dot), w_dot * I - np.cross(w * I, w), atol=1e-12
    )


def test_newton_euler_equations_vs_matrix_form(rng):
    m, I = 2.5, np.array([1.0, 2.0, 3.5])
    body = RigidBody(SE3, np.diag(np.concatenate([I, [m, m, m]])))
    V, V_dot = _random_state(rng, 6)
    np.testing.assert_allclose(
        newton_euler_equations(m, I, V, V_dot),
        body.inverse_dynamics(np.eye(4), V, V_dot),
        atol=1e-12,
    )


def test_erratum_E5_printed_sixth_equation_is_wrong():
    """The paper prints ``I_z ṙ - I_x q p + I_y r q = τ_r``; with fixture F2 it gives -0.10."""
    I_x, I_y, I_z = 1.0, 2.0, 3.0
    p, q, r = 0.1, -0.2, 0.3
    printed = -I_x * q * p + I_y * r * q
    corrected = newton_euler_equations(
        2.0, [I_x, I_y, I_z], [p, q, r, 1.0, 0.5, -0.2], np.zeros(6)
    )[2]
    assert printed == pytest.approx(-0.10)
    assert corrected == pytest.approx(-0.02)  # = F2's sixth entry (paper order) and Euler (4)
    assert corrected == pytest.approx(euler_equations([I_x, I_y, I_z], [p, q, r], np.zeros(3))[2])


def test_kirchhoff_equations_with_full_inertia(rng):
    A = rng.standard_normal((6, 6))
    M = A @ A.T + 6 * np.eye(6)  # CoM offset, products of inertia, added mass: all allowed
    body = RigidBody(SE3, M)
    V, V_dot = _random_state(rng, 6)
    np.testing.assert_allclose(
        kirchhoff_equations(M, V, V_dot), body.inverse_dynamics(np.eye(4), V, V_dot), atol=1e-12
    )


def test_munk_moment_trap(rng):
    """Digest §2.3 trap: with linear block diag(m1, m2, m3) the rotational equations keep
    the Munk moment v × (M_lin v); the paper's diagonal scalar form drops it."""
    M = np.diag([1.0, 2.0, 3.0, 1.0, 2.0, 5.0])
    V = np.array([0.1, -0.2, 0.3, 1.0, 0.5, -0.2])
    tau = RigidBody(SE3, M).inverse_dynamics(np.eye(4), V, np.zeros(6))
    munk = np.cross(V[3:], M[3:, 3:] @ V[3:])
    np.testing.assert_allclose(tau[:3], np.cross(V[:3], M[:3, :3] @ V[:3]) + munk, atol=1e-14)
    assert np.linalg.norm(munk) > 0.1


def test_planar_equations_vs_matrix_form(rng):
    m, I_z = 3.0, 0.7
    body = RigidBody(SE2, np.diag([I_z, m, m]))
    v, v_dot = _random_state(rng, 3)
    np.testing.assert_allclose(
        planar_equations(m, I_z, v, v_dot), body.inverse_dynamics(np.eye(3), v, v_dot), atol=1e-12
    )
    # (87): no Coriolis term in the rotational equation
    np.testing.assert_allclose(
        planar_equations(m, I_z, v, np.zeros_like(v))[..., 0], 0.0, atol=1e-15
    )


def test_schoenflies_equations_vs_matrix_form(rng):
    m, I_z = 2.0, 0.5
    body = RigidBody(Schoenflies, np.diag([I_z, m, m, m]))
    v, v_dot = _random_state(rng, 4)
    tau = schoenflies_equations(m, I_z, v, v_dot)
    np.testing.assert_allclose(tau, body.inverse_dynamics(np.eye(4), v, v_dot), atol=1e-12)
    np.testing.assert_allclose(tau[..., 3], m * v_dot[..., 3], atol=0)  # m ẇ = τ_w


@pytest.mark.parametrize("n", [1, 2, 3])
def test_abelian_groups_have_no_coriolis(n, rng):
    body = RigidBody(Euclidean(n), 2.0 * np.eye(n))
    v = rng.standard_normal(n)
    np.testing.assert_allclose(body.coriolis_matrix(v), 0.0, atol=0)
    np.testing.assert_allclose(body.forward_dynamics(np.zeros(n), v, [1.0] * n), 0.5, atol=0)


def test_scalar_equation_validation():
    with pytest.raises(InertiaError, match="`principal_inertia` to be positive"):
        euler_equations([1.0, -2.0, 3.0], np.zeros(3), np.zeros(3))
    with pytest.raises(InertiaError, match="`mass` to be positive"):
        newton_euler_equations(0.0, [1.0, 2.0, 3.0], np.zeros(6), np.zeros(6))
    with pytest.raises(InertiaError, match="`I_z` to be positive"):
        planar_equations(1.0, -0.1, np.zeros(3), np.zeros(3))
    with pytest.raises(DimensionError, match=r"`v` to have shape \(\.\.\., 4\)"):
        schoenflies_equations(1.0, 1.0, np.zeros(3), np.zeros(4))
    with pytest.raises(DimensionError, match=r"`inertia` to have shape \(\.\.\., 6, 6\)"):
        kirchhoff_equations(np.eye(3), np.zeros(6), np.zeros(6))
