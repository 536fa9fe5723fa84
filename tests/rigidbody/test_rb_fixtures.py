"""Seed 003 digest §4 fixtures F1-F8: literal values, converted from the paper's order.

Every number below is copied from the digest (computed there by an independent reference
implementation: structure constants + expm oracle + central differences); the inputs are given
in the paper's linear-first order and converted with ``twist_from_paper``/``inertia_from_paper``.
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from geomech.lie import SE2, SE3, SO3, Schoenflies
from geomech.rigidbody import (
    RigidBody,
    UniformGravity,
    inertia_from_paper,
    twist_from_paper,
    twist_to_paper,
)
from geomech.rigidbody.literature import duindam_stramigioli_forward_dynamics
from geomech.spatial import spatial_inertia

ATOL = 1e-12


def _body(group, M_paper):
    return RigidBody(group, inertia_from_paper(group, np.asarray(M_paper, dtype=float)))


def test_F1_so3_euler():
    body = _body(SO3, np.diag([1.0, 2.0, 3.0]))
    w = np.array([0.1, -0.2, 0.3])
    np.testing.assert_allclose(np.cross(w, body.momentum(w)), [-0.06, -0.06, -0.02], atol=ATOL)
    np.testing.assert_allclose(body.coriolis_force(w), [-0.06, -0.06, -0.02], atol=ATOL)
    np.testing.assert_allclose(
        body.forward_dynamics(np.eye(3), w), [0.06, 0.03, 0.0066666667], atol=1e-10
    )
    np.testing.assert_allclose(
        duindam_stramigioli_forward_dynamics(body, np.eye(3), w),
        [-0.06, -0.03, -0.0066666667],
        atol=1e-10,
    )


def test_F2_se3_newton_euler():
    body = _body(SE3, np.diag([2.0, 2.0, 2.0, 1.0, 2.0, 3.0]))
    V = twist_from_paper(SE3, [1.0, 0.5, -0.2, 0.1, -0.2, 0.3])
    np.testing.assert_allclose(
        twist_to_paper(SE3, body.coriolis_matrix(V) @ V),
        [-0.22, 0.64, 0.5, -0.06, -0.06, -0.02],
        atol=ATOL,
    )
    np.testing.assert_allclose(
        twist_to_paper(SE3, body.forward_dynamics(np.eye(4), V)),
        [0.11, -0.32, -0.25, 0.06, 0.03, 0.0066666667],
        atol=1e-10,
    )
    np.testing.assert_allclose(
        twist_to_paper(SE3, duindam_stramigioli_forward_dynamics(body, np.eye(4), V)),
        [0.185, -0.46, -0.225, -0.06, -0.03, -0.0066666667],
        atol=1e-10,
    )


def test_F3_se2_planar():
    body = _body(SE2, np.diag([3.0, 3.0, 0.7]))
    v = twist_from_paper(SE2, [1.0, 0.5, 0.3])
    np.testing.assert_allclose(
        twist_to_paper(SE2, body.coriolis_force(v)), [-0.45, 0.9, 0.0], atol=ATOL
    )
    np.testing.assert_allclose(
        twist_to_paper(SE2, body.forward_dynamics(np.eye(3), v)), [0.15, -0.3, 0.0], atol=ATOL
    )
    np.testing.assert_allclose(
        twist_to_paper(SE2, duindam_stramigioli_forward_dynamics(body, np.eye(3), v)),
        [0.035, -0.07, 0.0],
        atol=ATOL,
    )


def test_F4_schoenflies():
    body = _body(Schoenflies, np.diag([2.0, 2.0, 2.0, 0.5]))
    v = twist_from_paper(Schoenflies, [1.0, 0.5, -0.4, 0.3])
    np.testing.assert_allclose(
        twist_to_paper(Schoenflies, body.coriolis_force(v)), [-0.3, 0.6, 0.0, 0.0], atol=ATOL
    )


def test_F5_velocity_maps():
    S_so3 = SO3.right_jacobian([0.3, -0.2, 0.5])
    np.testing.assert_allclose(
        S_so3,
        [
            [0.95257673, 0.23237122, 0.12140245],
            [-0.25199464, 0.94440031, 0.12895691],
            [-0.0723439, -0.16166261, 0.97874129],
        ],
        atol=5e-9,
    )
    # SE(2): φ = [ρ1, ρ2, θ] in the paper's order
    phi = twist_from_paper(SE2, [0.3, -0.2, 0.5])
    P = np.argsort([2, 0, 1])  # geomech index -> paper index
    S_se2 = SE2.right_jacobian(phi)[np.ix_(P, P)]
    np.testing.assert_allclose(
        S_se2,
        [[0.95885108, 0.24483488, 0.1226233], [-0.24483488, 0.95885108, 0.13044136], [0, 0, 1]],
        atol=5e-9,
    )
    # SE(3): φ = [ρ; θ] = (0.3, -0.2, 0.5, 0.4, -1.0, 0.8); paper's S is block upper triangular
    phi = twist_from_paper(SE3, [0.3, -0.2, 0.5, 0.4, -1.0, 0.8])
    S = SE3.right_jacobian(phi)  # [[J_r(θ), 0], [B, J_r(θ)]] in [ω; v] order
    J = [
        [0.75023831, 0.28256908, 0.4780922],
        [-0.40440405, 0.87816503, 0.04990831],
        [-0.38062422, -0.29357825, 0.82333929],
    ]
    B = [
        [-0.16469742, 0.11870073, 0.0962199],
        [-0.22563661, -0.14957812, 0.01584573],
        [0.0307527, -0.19925876, -0.08469734],
    ]
    np.testing.assert_allclose(S[:3, :3], J, atol=5e-9)
    np.testing.assert_allclose(S[3:, 3:], J, atol=5e-9)
    np.testing.assert_allclose(S[3:, :3], B, atol=5e-9)  # the paper's upper-right block
    np.testing.assert_allclose(S[:3, 3:], 0.0, atol=1e-15)


def test_F7_gravity_wrench():
    U = UniformGravity(SE3, mass=2.0, com=[0.1, -0.05, 0.2], gravity=[0.0, 0.0, -9.81])
    g = SE3.exp(twist_from_paper(SE3, [0.3, -0.2, 0.5, 0.4, -1.0, 0.8]))
    np.testing.assert_allclose(
        twist_to_paper(SE3, U.gradient(g)),
        [16.93727785, -1.04256838, 9.84815061, -0.28389386, 2.40264051, 0.74260705],
        atol=5e-8,
    )


@pytest.mark.parametrize("integrator", ["scipy", "rkmk4"])
def test_F8_free_flight_with_com_offset(integrator):
    """Energy and spatial momentum of free flight with a CoM offset (t in [0, 20])."""
    I_b = spatial_inertia(2.0, [0.1, -0.05, 0.2], np.diag([1.0, 2.0, 3.0]))
    body = RigidBody(SE3, I_b)
    V0 = twist_from_paper(SE3, [1.0, 0.5, -0.2, 0.1, -0.2, 0.3])
    if integrator == "scipy":
        # independent reference: flat state (g as 16 numbers, V), ġ = g V̂, DOP853 rtol 1e-11
        def rhs(t, y):
            g, V = y[:16].reshape(4, 4), y[16:]
            return np.concatenate([(g @ SE3.hat(V)).ravel(), body.forward_dynamics(np.eye(4), V)])

        sol = solve_ivp(
            rhs,
            [0, 20],
            np.concatenate([np.eye(4).ravel(), V0]),
            method="DOP853",
            rtol=1e-11,
            atol=1e-12,
            t_eval=np.linspace(0, 20, 201),
        )
        g = sol.y[:16].T.reshape(-1, 4, 4)
        # re-project the rotation block (DOP853 is not a Lie-group method)
        U, _, Wt = np.linalg.svd(g[:, :3, :3])
        g[:, :3, :3] = U @ Wt
        V = sol.y[16:].T
        tol_E, tol_mu = 1e-9, 1e-8
    else:
        from geomech.simulation import simulate

        res = simulate(body, np.eye(4), V0, t_final=20.0, dt=0.01)
        g, V = res.q, res.v
        tol_E, tol_mu = 1e-10, 1e-9  # digest F8: energy < 1e-10, momentum < 1e-9
    E = body.energy(g, V)
    mu = body.spatial_momentum(g, V)
    assert np.max(np.abs(E - E[0])) < tol_E
    assert np.max(np.abs(mu - mu[0])) < tol_mu
