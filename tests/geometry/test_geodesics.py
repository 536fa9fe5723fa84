"""Geodesics and parallel transport: conservation laws and an independent Euler integrator."""

import numpy as np
import pytest
from geometry_helpers import ARM_PARAMS, random_spd
from numpy.testing import assert_allclose
from scipy.integrate import solve_ivp

from geomech.geometry import Contorsion, LeviCivitaConnection
from geomech.geometry.examples import point_mass, rigid_body_se3, rigid_body_so3, two_link_arm
from geomech.lie import SE3, SO3
from geomech.spatial import skew


def _systems(rng):
    return {
        "se3": (rigid_body_se3(random_spd(rng, 6)), SE3.random(rng), rng.normal(size=6)),
        "arm": (two_link_arm(**ARM_PARAMS), np.array([0.3, -0.4]), np.array([1.0, -2.0])),
    }


@pytest.mark.parametrize("which", ["se3", "arm"])
def test_levi_civita_geodesic_conserves_kinetic_energy(which, rng):
    system, q0, v0 = _systems(rng)[which]
    traj = LeviCivitaConnection(system).geodesic(q0, v0, np.linspace(0, 3.0, 7))
    T = system.kinetic_energy(traj.q, traj.v)
    assert_allclose(T, T[0], rtol=1e-9)


def test_so3_geodesic_matches_independent_euler_integration(rng):
    I = random_spd(rng, 3)
    R0, w0 = SO3.random(rng), rng.normal(size=3)
    t = np.linspace(0.0, 2.0, 5)

    def rhs(_, y):  # Euler's equations + Rdot = R w^, in 12 flat coordinates
        R, w = y[:9].reshape(3, 3), y[9:]
        return np.concatenate([(R @ skew(w)).ravel(), np.linalg.solve(I, np.cross(I @ w, w))])

    ref = solve_ivp(
        rhs,
        (0, 2),
        np.concatenate([R0.ravel(), w0]),
        t_eval=t,
        method="DOP853",
        rtol=1e-12,
        atol=1e-12,
    )
    traj = LeviCivitaConnection(rigid_body_so3(I)).geodesic(R0, w0, t)
    assert_allclose(traj.q, ref.y[:9].T.reshape(-1, 3, 3), atol=1e-8)
    assert_allclose(traj.v, ref.y[9:].T, atol=1e-8)
    # the manifold integrator stays on SO(3) to round-off
    RtR = np.einsum("tji,tjk->tik", traj.q, traj.q)
    assert_allclose(RtR, np.broadcast_to(np.eye(3), RtR.shape), atol=1e-13)


def test_admissible_connections_share_geodesics(rng):
    # Cor. IV.1: free motion is the same for every admissible factorization
    system = rigid_body_se3(random_spd(rng, 6))
    lc = LeviCivitaConnection(system)
    other = lc + Contorsion.totally_antisymmetric(rng.normal(size=20))
    q0, v0, t = SE3.random(rng), rng.normal(size=6), [0.0, 1.0, 2.0]
    assert_allclose(other.geodesic(q0, v0, t).q, lc.geodesic(q0, v0, t).q, atol=1e-9)


@pytest.mark.parametrize("which", ["se3", "arm"])
def test_parallel_transport_by_compatible_connection_preserves_inner_products(which, rng):
    system, q0, v0 = _systems(rng)[which]
    n = system.dim
    lc = LeviCivitaConnection(system)
    R = rng.normal(size=(n, n, n))
    D13 = R - np.einsum("ijk->kji", R)  # metric compatible, torsion, other geodesics
    for conn in (lc, lc + Contorsion(-D13)):
        curve = conn.geodesic(q0, v0, np.linspace(0, 1.5, 4))
        W0 = rng.normal(size=(3, n))
        W = conn.parallel_transport(curve, W0)  # (3, T, n)
        H = system.mass_matrix(curve.q)  # (T, n, n)
        gram = np.einsum("atn,tnm,btm->tab", W, H, W)
        assert_allclose(gram, np.broadcast_to(gram[0], gram.shape), rtol=1e-8, atol=1e-8)
    # a non-compatible connection does not
    D23 = R - np.swapaxes(R, 1, 2)
    conn = lc + Contorsion(-D23)
    curve = conn.geodesic(q0, v0, np.linspace(0, 1.5, 4))
    W = conn.parallel_transport(curve, np.eye(n)[:2])
    gram = np.einsum("atn,tnm,btm->tab", W, system.mass_matrix(curve.q), W)
    assert np.abs(gram[-1] - gram[0]).max() > 1e-3


def test_geodesic_velocity_is_parallel(rng):
    # the velocity of a geodesic is parallel along it (for any connection)
    pm = point_mass()
    R = rng.normal(size=(3, 3, 3))
    conn = LeviCivitaConnection(pm) + Contorsion(-(R - np.einsum("ijk->kji", R)))
    curve = conn.geodesic(np.zeros(3), [1.0, 0.2, 0.0], np.linspace(0, 2, 5))
    W = conn.parallel_transport(curve, [1.0, 0.2, 0.0])
    assert_allclose(W, curve.v, atol=1e-8)


def test_batched_geodesic_matches_loop(rng):
    body = rigid_body_so3(random_spd(rng, 3))
    lc = LeviCivitaConnection(body)
    R0, w0 = SO3.random(rng, 3), rng.normal(size=(3, 3))
    t = [0.0, 0.5, 1.0]
    traj = lc.geodesic(R0, w0, t)
    assert traj.q.shape == (3, 3, 3, 3) and traj.v.shape == (3, 3, 3)
    for b in range(3):
        single = lc.geodesic(R0[b], w0[b], t)
        assert_allclose(traj.q[b], single.q, atol=1e-9)
    q, v = traj.state(0.75)
    assert q.shape == (3, 3, 3) and v.shape == (3, 3)


def test_robot_geodesic_and_transport_closed_form(rng):
    """A free-flying robot body with the Cartan (-) connection: geodesics are T(t) = T0 exp(t ξ)
    and parallel transport keeps body components constant (seed 000 §III; ∇_X Y = 0 for
    left-invariant fields). The curve spins at 20 rad/s, so the moving chart of the integration
    core (the joint frame's hooks, Joint._chart_rate) is re-centred many times; the dense output
    is checked between the output times (51 charts; measured errors 1e-14, outputs and dense)."""
    from geomech.lie.quaternion import quat_to_matrix
    from geomech.multibody import FreeFlyer, MultibodyModel
    from geomech.spatial import spatial_inertia

    model = MultibodyModel.from_bodies(
        [-1], [FreeFlyer()], [spatial_inertia(1.0, [0.1, 0.2, 0.0], np.diag([0.1, 0.2, 0.3]))]
    )
    conn = model.connection("cartan-minus")
    q0 = model.random_configuration(rng)
    T0 = np.eye(4)
    T0[:3, :3], T0[:3, 3] = quat_to_matrix(q0[3:]), q0[:3]
    xi = np.array([3.0, -12.0, 15.0, 1.0, 0.5, -2.0])
    t = np.linspace(0.0, 2.0, 5)
    traj = conn.geodesic(q0, xi, t)

    def pose(q):
        return quat_to_matrix(q[..., 3:]), q[..., :3]

    for s in [*t, *rng.uniform(0.0, 2.0, 10)]:
        T = T0 @ SE3.exp(s * xi)
        R, p = pose(traj.state(s)[0])
        assert_allclose(R, T[:3, :3], atol=1e-9)
        assert_allclose(p, T[:3, 3], atol=1e-9)
    R, p = pose(traj.q)
    assert_allclose(p[-1], (T0 @ SE3.exp(2.0 * xi))[:3, 3], atol=1e-9)
    assert_allclose(traj.v, np.broadcast_to(xi, traj.v.shape), atol=1e-9)
    W0 = rng.normal(size=(2, 6))
    W = conn.parallel_transport(traj, W0, np.linspace(0.0, 2.0, 9))
    assert_allclose(W, np.broadcast_to(W0[:, None], W.shape), atol=1e-9)
