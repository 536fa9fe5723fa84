"""Slotine–Li on Lie groups: group error, reference field of Remark 5, closed loops.

References are independent of the code under test: group errors against ``scipy.linalg.logm``,
rates against central differences along trajectories built from ``scipy.linalg.expm`` (their
body/spatial velocities and accelerations in closed form, from matrix algebra), plants
integrated from the Euler–Poincaré equations :math:`H\\dot v = \\tau + \\operatorname{ad}_v^\\top
H v` written out by hand (Featherstone's ``crm``), and closed forms (:math:`e(t) = e_0
e^{-\\lambda t}` on :math:`s \\equiv 0`, seed 000 Remark 5).
"""

import functools

import numpy as np
import pytest
from control_helpers import MatrixCurve, assert_batch_matches_loop, spd
from lyapunov_helpers import lyapunov_defect
from scipy.integrate import cumulative_simpson
from scipy.linalg import logm

from geomech.control import SlotineLi
from geomech.control.reference import group_tracking_error
from geomech.errors import DimensionError, GeomechError, NotOnManifoldError
from geomech.geometry import (
    CartanSchoutenConnection,
    Contorsion,
    LeftInvariantFrame,
    LeviCivitaConnection,
    MechanicalSystem,
    RightInvariantFrame,
)
from geomech.geometry.examples import point_mass, rigid_body_se2, rigid_body_se3, rigid_body_so3
from geomech.lie import SE2, SE3, SO3, Euclidean, Schoenflies
from geomech.rigidbody.integrators import integrate
from geomech.spatial import spatial_inertia

GROUPS = [SO3, SE3, SE2, Schoenflies]


# ----------------------------------------------------------------------------------------
# along smooth trajectories with exact velocities (MatrixCurve: scipy's expm, not geomech)
# ----------------------------------------------------------------------------------------
def _errors(group, side, seed):
    rng = np.random.default_rng(seed)
    curve, curve_d = MatrixCurve(group, rng), MatrixCurve(group, rng)
    L = spd(rng, group.dim)  # a matrix gain: a_r must be exact for any Lambda
    k = 1 if side == "left" else 3

    def err(t):
        x, xd = curve(t), curve_d(t)
        return group_tracking_error(group, x[0], x[k], xd[0], xd[k], xd[k + 1], L, side=side)

    return curve, curve_d, L, err


# ----------------------------------------------------------------------------------------
# kinematics
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g.name)
def test_trajectory_velocities_match_central_differences(group, side):
    # the test's own closed forms (used as references below) against central differences
    curve = MatrixCurve(group, np.random.default_rng(0))
    t, h = 0.37, 1e-5
    q, vb, ab, vs, a_s = curve(t)
    qdot = (curve(t + h)[0] - curve(t - h)[0]) / (2 * h)
    qi = np.linalg.inv(q)
    np.testing.assert_allclose(group.vee(qi @ qdot), vb, atol=1e-8)
    np.testing.assert_allclose(group.vee(qdot @ qi), vs, atol=1e-8)
    np.testing.assert_allclose((curve(t + h)[1] - curve(t - h)[1]) / (2 * h), ab, atol=1e-8)
    np.testing.assert_allclose((curve(t + h)[3] - curve(t - h)[3]) / (2 * h), a_s, atol=1e-8)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g.name)
def test_log_error_matches_matrix_logarithm(group, side):
    curve, curve_d, _, err = _errors(group, side, 1)
    for t in (0.0, 0.4, 1.1):
        q, q_d = curve(t)[0], curve_d(t)[0]
        g_e = np.linalg.solve(q_d, q) if side == "left" else q @ np.linalg.inv(q_d)
        np.testing.assert_allclose(err(t).e, group.vee(np.real(logm(g_e))), atol=1e-12)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g.name)
def test_e_dot_and_a_r_are_exact_rates(group, side):
    # e_dot = dexp^{-1} xi_e and a_r = d/dt v_r(q(t), t), against central differences
    # (h = 1e-5: truncation ~1e-10, rounding ~1e-11); measured max errors 2e-10 (e_dot)
    # and 1.5e-9 (a_r, SE(3)).
    curve, curve_d, L, err = _errors(group, side, 2)
    h = 1e-5
    for t in (0.0, 0.37, 1.9):
        E, Ep, Em = err(t), err(t + h), err(t - h)
        scale = 1.0 + np.abs(E.a_r).max()
        np.testing.assert_allclose(E.e_dot, (Ep.e - Em.e) / (2 * h), atol=2e-8 * scale)
        a_fd = (Ep.v_r - Em.v_r) / (2 * h)
        np.testing.assert_allclose(E.a_r, a_fd, atol=2e-8 * scale)
        # the coordinate-style shortcut a_d - Lambda (v - v_d) is not the rate on the group
        # (this is what the test is able to detect)
        k = 1 if side == "left" else 3
        x, xd = curve(t), curve_d(t)
        naive = xd[k + 1] - L @ (x[k] - xd[k])
        assert np.abs(naive - a_fd).max() > 1e-3


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("group", [SO3, SE3, SE2], ids=lambda g: g.name)
def test_sliding_surface_gives_exponential_log_error(group, side):
    # on s = 0 with scalar Lambda: e_dot = -Lambda e exactly (J(e)^{-1} e = e)
    rng = np.random.default_rng(3)
    q, q_d = group.random(rng), group.random(rng)
    v_d, a_d = rng.standard_normal((2, group.dim))
    v_r = group_tracking_error(group, q, np.zeros(group.dim), q_d, v_d, a_d, 1.7, side).v_r
    E = group_tracking_error(group, q, v_r, q_d, v_d, a_d, 1.7, side)
    np.testing.assert_allclose(E.e_dot, -1.7 * E.e, atol=1e-12)
    np.testing.assert_allclose(E.v_r, v_r, atol=1e-15)


def test_euclidean_group_is_the_coordinate_law():
    # seed 000 §IV-A1 with the corrected sign: v_r = v_d - L (q - q_d), a_r = a_d - L (v - v_d)
    rng = np.random.default_rng(4)
    q, v, q_d, v_d, a_d = rng.standard_normal((5, 3))
    L = spd(rng, 3)
    for side in ("left", "right"):
        E = group_tracking_error(Euclidean(3), q, v, q_d, v_d, a_d, L, side)
        np.testing.assert_allclose(E.e, q - q_d, atol=1e-15)
        np.testing.assert_allclose(E.v_r, v_d - L @ (q - q_d), atol=1e-14)
        np.testing.assert_allclose(E.a_r, a_d - L @ (v - v_d), atol=1e-14)
    # SlotineLi: coordinate frame (q - q_d) and left-invariant frame on R^3 agree
    ref = lambda t: (q_d + t * v_d, v_d + t * a_d, a_d)  # noqa: E731
    P = point_mass(2.0)
    P_group = MechanicalSystem(
        Euclidean(3), 2.0 * np.eye(3), frame=LeftInvariantFrame(Euclidean(3))
    )
    conn = LeviCivitaConnection(P) + Contorsion.totally_antisymmetric([-5.0])
    conn_group = LeviCivitaConnection(P_group) + Contorsion.totally_antisymmetric([-5.0])
    a = SlotineLi(P, conn, ref, L, 3.0)(0.3, q, v)
    b = SlotineLi(P_group, conn_group, ref, L, 3.0)(0.3, q, v)
    np.testing.assert_allclose(a, b, atol=1e-13)


def test_batched_equals_loop():
    rng = np.random.default_rng(5)
    q, q_d = SE3.random(rng, (4, 2)), SE3.random(rng, 2)
    v, v_d, a_d = rng.standard_normal((4, 2, 6)), rng.standard_normal(6), rng.standard_normal(6)
    assert_batch_matches_loop(
        functools.partial(group_tracking_error, SE3), q, v, q_d, v_d, a_d, spd(rng, 6), atol=1e-14
    )


def test_validation_errors():
    z3, I3 = np.zeros(3), np.eye(3)
    with pytest.raises(GeomechError, match="LieGroup"):
        group_tracking_error("SO3", I3, z3, I3, z3, z3, 1.0)
    with pytest.raises(GeomechError, match="side"):
        group_tracking_error(SO3, I3, z3, I3, z3, z3, 1.0, side="up")
    with pytest.raises(DimensionError, match="`v` to have shape"):
        group_tracking_error(SO3, I3, np.zeros(4), I3, z3, z3, 1.0)
    with pytest.raises(DimensionError, match="`q_d` to have shape"):
        group_tracking_error(SO3, I3, z3, np.eye(4), z3, z3, 1.0)
    with pytest.raises(DimensionError, match="Lambda"):
        group_tracking_error(SO3, I3, z3, I3, z3, z3, np.eye(2))
    with pytest.raises(DimensionError, match="broadcast"):
        group_tracking_error(SO3, SO3.random(0, 3), np.zeros((2, 3)), I3, z3, z3, 1.0)
    with pytest.raises(NotOnManifoldError):
        group_tracking_error(SO3, 2 * I3, z3, I3, z3, z3, 1.0)


# ----------------------------------------------------------------------------------------
# SlotineLi on a rigid body
# ----------------------------------------------------------------------------------------
def _skew(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def _crm(v):
    """Featherstone's motion cross product (v x) for v = [w; v] (= ad_v on se(3))."""
    X = np.zeros((6, 6))
    X[:3, :3] = X[3:, 3:] = _skew(v[:3])
    X[3:, :3] = _skew(v[3:])
    return X


SE2_IDX = [2, 3, 4]  # (w_z, v_x, v_y) inside a spatial twist


def _ad(group, v):
    """ad_v by hand: w x on so(3), crm on se(3), crm restricted to the se(2) subalgebra."""
    if group is SO3:
        return _skew(v)
    if group is SE3:
        return _crm(v)
    full = np.zeros(6)
    full[SE2_IDX] = v
    return _crm(full)[np.ix_(SE2_IDX, SE2_IDX)]


R0 = SO3.exp([0.3, -0.5, 0.8])
INERTIA = {
    "SO(3)": R0 @ np.diag([1.0, 2.0, 3.0]) @ R0.T,  # non-diagonal
    "SE(3)": spatial_inertia(2.0, [0.1, -0.2, 0.3], R0 @ np.diag([0.2, 0.3, 0.4]) @ R0.T),
    "SE(2)": spatial_inertia(2.0, [0.3, -0.2, 0.0], R0 @ np.diag([0.2, 0.3, 0.4]) @ R0.T),
}
BODY = {"SO(3)": rigid_body_so3, "SE(3)": rigid_body_se3, "SE(2)": rigid_body_se2}


def _body(group):
    return BODY[group.name](INERTIA[group.name])


def _connection(body, kind):
    if kind == "levi-civita":
        return LeviCivitaConnection(body)
    # metric compatible with torsion: LC + totally antisymmetric contorsion (seed 000 eq. 12)
    m = {3: 1, 6: 20}[body.dim]
    beta = np.random.default_rng(11).uniform(-1.0, 1.0, m) if m > 1 else np.array([-5.0])
    return LeviCivitaConnection(body) + Contorsion.totally_antisymmetric(beta)


K_GAIN, LAMBDA = 3.0, 1.5  # K_D = K_GAIN H: then V' = -2 K_GAIN V, V = V(0) exp(-2 K_GAIN t)


@functools.cache
def _closed_loop(group, kind, s0_zero, t_final=2.0, n_steps=200):
    """Integrate body dynamics under SlotineLi; RKMK4 with h = t_final / n_steps."""
    body = _body(group)
    n = group.dim
    H = body.mass_matrix(group.identity())
    K_D = K_GAIN * H
    rng = np.random.default_rng(8)
    desired = MatrixCurve(group, rng, scale=0.6, fast=True)
    reference = lambda t: desired(t)[:3]  # noqa: E731  (q_d, body v_d, body a_d)
    conn = _connection(body, kind)
    ctrl = SlotineLi(body, conn, reference, LAMBDA, K_D, require_passivity=True)
    q0 = group.compose(desired(0.0)[0], group.exp(0.8 * rng.standard_normal(n) / np.sqrt(n)))
    v0 = rng.standard_normal(n)
    if s0_zero:
        v0 = ctrl.signals(0.0, q0, v0)[2]  # v(0) = v_r(q0, 0)

    def field(t, g, v):  # plant: Euler–Poincaré H v' = tau + ad_v^T H v (left-invariant metric)
        tau = ctrl(t, g, v)
        return v, np.linalg.solve(H, tau + _ad(group, v).T @ H @ v)

    t, q, v = integrate(group, field, q0, v0, 0.0, t_final, n_steps)
    S = np.array([ctrl.signals(*x)[-1] for x in zip(t, q, v, strict=True)])
    return body, ctrl, H, K_D, t, q, v, S, field


@pytest.mark.parametrize("kind", ["levi-civita", "torsion"])
@pytest.mark.parametrize("group", [SO3, SE3, SE2], ids=lambda g: g.name)
def test_closed_loop_lyapunov_identity(group, kind):
    body, ctrl, H, K_D, t, q, v, S, field = _closed_loop(group, kind, False)
    V = 0.5 * np.einsum("ti,ij,tj->t", S, H, S)
    W = np.einsum("ti,ij,tj->t", S, K_D, S)
    np.testing.assert_allclose([ctrl.lyapunov(t[i], q[i], v[i]) for i in (0, 100)], V[[0, 100]])
    # (i) pointwise, with the plant's own acceleration: V' = s^T H (v' - a_r) = -s^T K_D s
    #     (needs only C v = C* v and C skew, i.e. an admissible factorization)
    for i in range(0, len(t), 40):
        a_r = ctrl.signals(t[i], q[i], v[i])[3]
        vdot = field(t[i], q[i], v[i])[1]
        assert S[i] @ H @ (vdot - a_r) == pytest.approx(-W[i], rel=1e-10, abs=1e-12)
    # (ii) along the integrated trajectory, which also needs a_r = d/dt v_r exactly:
    #      V(t) - V(0) = -int_0^t s^T K_D s (Simpson), and with K_D = k H the closed form
    #      V = V(0) exp(-2 k t). Measured max defects / V(0) at h = 10 ms: Simpson 5e-7 to
    #      9e-7, closed form 3e-9 (Levi-Civita) to 4e-7 (torsion); both fall 16x when h halves.
    defect = V[1:] - V[0] + cumulative_simpson(W, x=t)
    assert np.abs(defect).max() < 5e-6 * V[0]
    np.testing.assert_allclose(V, V[0] * np.exp(-2 * K_GAIN * t), rtol=0, atol=5e-6 * V[0])
    e = group_tracking_error(group, q[-1], v[-1], *ctrl.reference(t[-1]), LAMBDA).e
    assert np.linalg.norm(e) < 0.5 * np.linalg.norm(  # e -> 0 (rate: next test)
        group_tracking_error(group, q[0], v[0], *ctrl.reference(0.0), LAMBDA).e
    )


@pytest.mark.parametrize("kind", ["levi-civita", "torsion"])
@pytest.mark.parametrize("group", [SO3, SE3, SE2], ids=lambda g: g.name)
def test_closed_loop_on_sliding_surface_decays_exponentially(group, kind):
    # s(0) = 0 and exact parameters: H s' + (C + K_D) s = 0 keeps s = 0, and on s = 0 the
    # log error obeys e' = -Lambda e: e(t) = e(0) exp(-Lambda t). Measured at h = 15 ms
    # (RKMK4): max |s| 2e-8 to 6e-7, max |e - closed form| / |e(0)| 1e-8 to 2e-7 (torsion
    # the larger); both fall 16x when h halves.
    _, ctrl, _, _, t, q, v, S, _ = _closed_loop(group, kind, True, t_final=1.5, n_steps=100)
    E = np.array(
        [
            group_tracking_error(group, q[i], v[i], *ctrl.reference(t[i]), LAMBDA).e
            for i in range(len(t))
        ]
    )
    assert np.abs(S).max() < 3e-6
    np.testing.assert_allclose(
        E, E[0] * np.exp(-LAMBDA * t)[:, None], rtol=0, atol=1e-6 * np.abs(E[0]).max()
    )


@pytest.mark.parametrize("group", [SO3, SE3, SE2], ids=lambda g: g.name)
def test_torsion_changes_the_motion_not_the_guarantee(group):
    # the two admissible factorizations give different closed loops (so the torsion cases
    # above are not vacuous), both with V' = -s^T K_D s
    a, b = (_closed_loop(group, kind, False) for kind in ("levi-civita", "torsion"))
    assert np.abs(a[6] - b[6]).max() > 1e-2  # velocities differ


def test_right_invariant_frame_closed_loop_on_so3():
    # spatial angular velocity w_s = R w_b: H(R) = R I R^T, torque tau_b = R^T tau_s
    I_b = INERTIA["SO(3)"]
    body = MechanicalSystem(
        SO3, lambda R: R @ I_b @ np.swapaxes(R, -1, -2), frame=RightInvariantFrame(SO3)
    )
    rng = np.random.default_rng(9)
    desired = MatrixCurve(SO3, rng, scale=0.6, fast=True)
    reference = lambda t: tuple(desired(t)[i] for i in (0, 3, 4))  # noqa: E731  spatial
    K_D = 6.0 * np.eye(3)
    ctrl = SlotineLi(body, LeviCivitaConnection(body), reference, 1.5, K_D, require_passivity=True)

    def field(t, R, w):  # plant in body coordinates, Euler's equations
        tau_b = R.T @ ctrl(t, R, R @ w)
        return w, np.linalg.solve(I_b, tau_b - np.cross(w, I_b @ w))

    q0 = desired(0.0)[0] @ SO3.exp([0.6, -0.4, 0.5])
    t, R, w = integrate(SO3, field, q0, rng.standard_normal(3), 0.0, 2.0, 200)
    ws = np.einsum("tij,tj->ti", R, w)
    # H(q) varies (its Lie derivatives are central differences, ~1e-10). Measured max
    # defect / V(0): 7e-7 at h = 10 ms, 5e-8 at 5 ms (integration error, O(h^4))
    V, defect = lyapunov_defect(ctrl, t, R, ws)
    assert np.abs(defect).max() < 5e-6 * V[0]
    assert V[-1] < 1e-3 * V[0]


# ----------------------------------------------------------------------------------------
# SlotineLi validation on groups
# ----------------------------------------------------------------------------------------
def test_slotine_li_signals_use_the_group_error():
    body = _body(SO3)
    rng = np.random.default_rng(10)
    q_d, q = SO3.random(rng, 2)
    v_d, a_d, v = rng.standard_normal((3, 3))
    ctrl = SlotineLi(body, LeviCivitaConnection(body), lambda t: (q_d, v_d, a_d), 2.0, 1.0)
    _, _, v_r, a_r, s = ctrl.signals(0.0, q, v)
    E = group_tracking_error(SO3, q, v, q_d, v_d, a_d, 2.0)
    np.testing.assert_allclose(v_r, E.v_r)
    np.testing.assert_allclose(a_r, E.a_r)
    np.testing.assert_allclose(s, v - E.v_r)
    # eq. (13) with H constant: tau = H a_r + C(q, v) v_r - K_D s
    C = LeviCivitaConnection(body).coriolis_matrix(q, v)
    H = INERTIA["SO(3)"]
    np.testing.assert_allclose(ctrl(0.0, q, v), H @ a_r + C @ v_r - s, atol=1e-12)


def test_non_admissible_connections_warn_or_raise_on_a_group():
    body = _body(SO3)
    ref = lambda t: (np.eye(3), np.zeros(3), np.zeros(3))  # noqa: E731
    # Cartan–Schouten (0) with a non bi-invariant metric: C = I (v x)/2 is not skew
    with pytest.warns(UserWarning, match="not metric compatible"):
        SlotineLi(body, CartanSchoutenConnection(body, "cartan-zero"), ref, 1.0, 1.0)
    with pytest.raises(GeomechError, match="not metric compatible"):
        SlotineLi(
            body,
            CartanSchoutenConnection(body, "cartan-zero"),
            ref,
            1.0,
            1.0,
            require_passivity=True,
        )
    # Cartan–Schouten (-): C = 0 is skew but C v = 0 != C* v = w x I w
    with pytest.warns(UserWarning, match="not a valid factorization"):
        SlotineLi(body, CartanSchoutenConnection(body, "cartan-minus"), ref, 1.0, 1.0)


def test_slotine_li_shape_errors_on_a_group():
    body = _body(SE3)
    conn = LeviCivitaConnection(body)
    good = lambda t: (np.eye(4), np.zeros(6), np.zeros(6))  # noqa: E731
    c = SlotineLi(body, conn, good, 1.0, 1.0)
    with pytest.raises(DimensionError, match="`q` to have shape"):
        c(0.0, np.eye(3), np.zeros(6))
    with pytest.raises(DimensionError, match="`q` to have shape"):
        c(0.0, np.stack([np.eye(4)] * 2), np.zeros(6))
    with pytest.raises(GeomechError, match="`v` to have shape"):
        c(0.0, np.eye(4), np.zeros(3))
    with pytest.raises(NotOnManifoldError):
        c(0.0, 2 * np.eye(4), np.zeros(6))
    bad_q = SlotineLi(body, conn, lambda t: (np.zeros(6), np.zeros(6), np.zeros(6)), 1.0, 1.0)
    with pytest.raises(DimensionError, match="`q_d` to have shape"):
        bad_q(0.0, np.eye(4), np.zeros(6))
    bad_v = SlotineLi(body, conn, lambda t: (np.eye(4), np.zeros(3), np.zeros(6)), 1.0, 1.0)
    with pytest.raises(GeomechError, match="`v_d` to have shape"):
        bad_v(0.0, np.eye(4), np.zeros(6))
    with pytest.raises(GeomechError, match="reference"):
        SlotineLi(body, conn, lambda t: (np.eye(4),), 1.0, 1.0)(0.0, np.eye(4), np.zeros(6))
    with pytest.raises(DimensionError, match="dimension"):
        SlotineLi(body, LeviCivitaConnection(_body(SO3)), good, 1.0, 1.0)
    with pytest.raises(GeomechError, match="estimate"):
        SlotineLi(body, conn, good, 1.0, 1.0, estimate=point_mass(1.0, dim=6))
    with pytest.raises(GeomechError, match="shape"):
        SlotineLi(body, conn, good, np.eye(3), 1.0)
    with pytest.raises(GeomechError, match="positive definite"):
        SlotineLi(body, conn, good, 1.0, -np.eye(6))
