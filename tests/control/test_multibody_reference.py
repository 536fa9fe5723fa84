"""Slotine–Li on multibody models with multi-DoF joints: the joint-wise group error.

References independent of the code under test:

* kinematics: every joint follows g(t) = g0 expm(t A) expm(sin(w t) B) built with
  ``scipy.linalg.expm`` (body velocity and acceleration in closed form, checked against
  central differences here); the log error from ``scipy.linalg.logm`` of the matrices,
  :math:`T v_d` as :math:`g_e^{-1}\\hat v_d g_e` by matrix algebra, and the rates
  :math:`\\dot e`, :math:`a_r = \\tfrac{d}{dt} v_r` as central differences of those;
* closed loops: ``geomech.simulate`` (DOP853, tight tolerances) of a floating base with a
  spherical and a revolute joint; the identity V(t) - V(0) = -∫ sᵀ K_D s (seed 000 eq. 14),
  the integral by Simpson's rule (``scipy.integrate.cumulative_simpson``).

Negative controls: the former first-order law (v_r = v_d - Λ log(q_d⁻¹q), a_r = a_d -
Λ(v - v_d)) misses both the rates and the closed-loop identity.
"""

import functools

import numpy as np
import pytest
from control_helpers import MatrixCurve, assert_batch_matches_loop, spd
from lyapunov_helpers import lyapunov_defect
from scipy.linalg import expm, logm
from scipy.spatial.transform import Rotation

from geomech.control import SlotineLi
from geomech.control.passivity import AdaptiveSlotineLi
from geomech.control.reference import (
    group_tracking_error,
    multibody_tracking_error,
)
from geomech.errors import DimensionError, GeomechError, NotOnManifoldError
from geomech.lie import SE2, SE3, SO3, Schoenflies
from geomech.multibody import MultibodyModel, slotine_li_torques
from geomech.multibody.algorithms.dynamics import crba
from geomech.multibody.algorithms.regressor import slotine_li_regressor
from geomech.multibody.model import joints as gj
from geomech.simulation import simulate
from geomech.spatial import spatial_inertia


# ----------------------------------------------------------------------------------------
# smooth joint trajectories with exact body velocities (scipy's expm, not geomech)
# ----------------------------------------------------------------------------------------
class ScalarCurve:
    """q(t) = c + r sin(w t + p) for a 1-DoF joint."""

    def __init__(self, rng):
        self.c, self.r, self.p = rng.uniform(-1.0, 1.0, 3)
        self.w = rng.uniform(0.5, 1.5)

    def __call__(self, t):
        c, r, w, p = self.c, self.r, self.w, self.p
        x = w * t + p
        return (
            np.array([c + r * np.sin(x)]),
            np.array([r * w * np.cos(x)]),
            np.array([-r * w * w * np.sin(x)]),
        )


GROUP_OF = {"spherical": SO3, "free_flyer": SE3, "planar": SE2, "schoenflies": Schoenflies}


def _joint_q(kind, curve, g, t):
    """The joint coordinates of the matrix g (layouts of geomech.multibody.model.joints)."""
    if kind == "spherical":
        return Rotation.from_matrix(g).as_quat()  # (x, y, z, w), scalar last
    if kind == "free_flyer":
        return np.concatenate([g[:3, 3], Rotation.from_matrix(g[:3, :3]).as_quat()])
    if kind == "planar":
        return np.array([g[0, 2], g[1, 2], curve.angle(t)])
    return np.array([g[0, 3], g[1, 3], g[2, 3], curve.angle(t)])  # schoenflies


class ModelCurve:
    """One curve per joint: q(t) (nq), v(t), a(t) (nv) and the joint matrices g_i(t)."""

    def __init__(self, model, rng, scale=0.6, fast=False):
        self.model = model
        self.curves = [
            ScalarCurve(rng)
            if j.nv == 1
            else MatrixCurve(GROUP_OF[j.kind], rng, scale, fast=fast, bounded=True)
            for j in model.joints
        ]

    def __call__(self, t):
        q, v, a, mats = [], [], [], []
        for joint, curve in zip(self.model.joints, self.curves, strict=True):
            x = curve(t)
            if joint.nv == 1:
                q.append(x[0])
                mats.append(None)
            else:
                q.append(_joint_q(joint.kind, curve, x[0], t))
                mats.append(x[0])
            v.append(x[1])
            a.append(x[2])
        return np.concatenate(q), np.concatenate(v), np.concatenate(a), mats


def _embed(kind, g):
    """The 4x4 pose of an SE(2) 3x3 matrix (xy-plane), else g itself."""
    if kind != "planar":
        return g
    T = np.eye(4)
    T[:2, :2], T[:2, 3] = g[:2, :2], g[:2, 2]
    return T


def _inertia(mass, com, moments):
    return spatial_inertia(mass, com, np.diag(moments))


def _pose(xyz, rotvec=(0.0, 0.0, 0.0)):
    T = np.eye(4)
    T[:3, :3] = SO3.exp(np.asarray(rotvec, float))
    T[:3, 3] = xyz
    return T


# every joint kind, two spherical joints (stacked in one block) and a helical joint
KIN_MODEL = MultibodyModel.from_bodies(
    [-1, 0, 1, 2, 0, 0, 5, 0, 1],
    [
        gj.FreeFlyer(),
        gj.Spherical(),
        gj.Revolute([0.3, -1.0, 0.5]),
        gj.Spherical(),
        gj.Planar(),
        gj.SchoenfliesJoint(),
        gj.Prismatic([1.0, 2.0, -0.5]),
        gj.Helical([0.0, 1.0, 1.0], pitch=0.3),
        gj.Revolute([0.0, 0.0, 1.0]),
    ],
    [_inertia(1.0, [0.1, 0.0, 0.0], [0.1, 0.2, 0.3])] * 9,
    [_pose([0.1 * i, 0.2, -0.1], [0.2 * i, -0.1, 0.3]) for i in range(9)],
)


def _unwrapped_log(G, g_e, omega):
    """The logarithm of g_e on SE(2) / Schönflies with the rotation angle ``omega`` (any branch).

    exp([ω; u]) has translation V(ω) u, linear in u: the columns of V(ω) are the
    translations of expm(hat(ω e_0 + e_k)) (scipy), and u = V(ω)⁻¹ p_e.
    """
    E = np.eye(G.dim)
    V = np.stack([expm(G.hat(omega * E[0] + E[k]))[:-1, -1] for k in range(1, G.dim)], -1)
    return np.concatenate([[omega], np.linalg.solve(V, g_e[:-1, -1])])


def _reference_signals(model, L, x, x_d):
    """e, v_r by matrix algebra and scipy's logm, joint by joint (q_d⁻¹ q, left).

    Planar and Schönflies angles are unwrapped (θ - θ_d, as for revolute joints), so their
    log is taken on that branch, which may exceed π.
    """
    q = x[0]
    q_d, v_d, mats, mats_d = x_d[0], x_d[1], x[3], x_d[3]
    e, w = np.empty(model.nv), np.empty(model.nv)
    for i, (joint, qs, vs) in enumerate(
        zip(model.joints, model.q_slices, model.v_slices, strict=True)
    ):
        if joint.nv == 1:
            e[vs], w[vs] = q[qs] - q_d[qs], v_d[vs]
            continue
        G = GROUP_OF[joint.kind]
        g_e = np.linalg.solve(mats_d[i], mats[i])
        if G in (SE2, Schoenflies):
            e[vs] = _unwrapped_log(G, g_e, q[qs][-1] - q_d[qs][-1])
        else:
            e[vs] = G.vee(np.real(logm(g_e)))  # principal logarithm
        w[vs] = G.vee(np.linalg.solve(g_e, G.hat(v_d[vs]) @ g_e))  # Ad_{g_e⁻¹} v_d
    return e, w - L @ e


@functools.cache
def _kinematic_setup(seed=0):
    rng = np.random.default_rng(seed)
    curve, curve_d = ModelCurve(KIN_MODEL, rng), ModelCurve(KIN_MODEL, rng)
    return curve, curve_d, spd(rng, KIN_MODEL.nv)  # Λ couples all joints


# ----------------------------------------------------------------------------------------
# kinematics
# ----------------------------------------------------------------------------------------
def test_curves_have_the_stated_velocities():
    # the test's closed forms (the references below) against central differences of q(t)
    curve, _, _ = _kinematic_setup()
    t, h = 0.41, 1e-5
    q, v, a, mats = curve(t)
    (qp, _, _, mp), (qm, _, _, mm) = curve(t + h), curve(t - h)
    v_fd = np.empty(KIN_MODEL.nv)
    for i, (joint, qs, vs) in enumerate(
        zip(KIN_MODEL.joints, KIN_MODEL.q_slices, KIN_MODEL.v_slices, strict=True)
    ):
        if joint.nv == 1:
            v_fd[vs] = (qp[qs] - qm[qs]) / (2 * h)
        else:  # body velocity g⁻¹ġ of the joint's matrix
            v_fd[vs] = GROUP_OF[joint.kind].vee(np.linalg.solve(mats[i], mp[i] - mm[i]) / (2 * h))
    np.testing.assert_allclose(v_fd, v, atol=1e-8)
    # the joint coordinates encode the same matrices (quaternion and angle layouts)
    for i, (joint, qs) in enumerate(zip(KIN_MODEL.joints, KIN_MODEL.q_slices, strict=True)):
        if joint.nv > 1:
            T = joint.pose(q[qs])
            np.testing.assert_allclose(
                T[:3, :3] if joint.kind == "spherical" else T,
                _embed(joint.kind, mats[i]),
                atol=1e-12,
            )
    np.testing.assert_allclose((curve(t + h)[1] - curve(t - h)[1]) / (2 * h), a, atol=1e-8)


def test_log_error_and_reference_velocity_match_matrix_algebra():
    curve, curve_d, L = _kinematic_setup()
    for t in (0.0, 0.7, 1.9):  # at 1.9 the Schönflies angle error is -3.53 (beyond -π)
        x, x_d = curve(t), curve_d(t)
        E = multibody_tracking_error(KIN_MODEL, x[0], x[1], x_d[0], x_d[1], x_d[2], L)
        e_ref, v_r_ref = _reference_signals(KIN_MODEL, L, x, x_d)
        np.testing.assert_allclose(E.e, e_ref, atol=1e-10)
        np.testing.assert_allclose(E.v_r, v_r_ref, atol=1e-10)


def test_e_dot_and_a_r_are_exact_rates():
    # e_dot and a_r = d/dt v_r(q(t), t) against central differences of the matrix-algebra
    # references (h = 1e-5; v_r, e match those references to 7e-13). Measured max errors:
    # 1e-9 (e_dot) and 2.3e-8 (a_r, entries up to ~50 with this coupling Λ); the first-order
    # a_r is off by 56.
    curve, curve_d, L = _kinematic_setup()
    h = 1e-5

    def ref(t):
        return _reference_signals(KIN_MODEL, L, curve(t), curve_d(t))

    for t in (0.0, 0.37, 1.9):
        x, x_d = curve(t), curve_d(t)
        E = multibody_tracking_error(KIN_MODEL, x[0], x[1], x_d[0], x_d[1], x_d[2], L)
        (ep, vp), (em, vm) = ref(t + h), ref(t - h)
        scale = 1.0 + np.abs(E.a_r).max()
        np.testing.assert_allclose(E.e_dot, (ep - em) / (2 * h), atol=2e-8 * scale)
        a_fd = (vp - vm) / (2 * h)
        np.testing.assert_allclose(E.a_r, a_fd, atol=2e-8 * scale)
        # negative control: the former first-order a_r = a_d - Λ (v - v_d) is not the rate
        naive = x_d[2] - L @ (x[1] - x_d[1])
        assert np.abs(naive - a_fd).max() > 1e-2


def test_one_dof_joints_keep_the_coordinate_law():
    curve, curve_d, L = _kinematic_setup()
    x, x_d = curve(0.3), curve_d(0.3)
    E = multibody_tracking_error(KIN_MODEL, x[0], x[1], x_d[0], x_d[1], x_d[2], L)
    one = np.concatenate(
        [
            np.arange(vs.start, vs.stop)
            for j, vs in zip(KIN_MODEL.joints, KIN_MODEL.v_slices, strict=True)
            if j.nv == 1
        ]
    )
    iq = np.concatenate(
        [
            np.arange(qs.start, qs.stop)
            for j, qs in zip(KIN_MODEL.joints, KIN_MODEL.q_slices, strict=True)
            if j.nq == 1
        ]
    )
    np.testing.assert_array_equal(E.e[one], x[0][iq] - x_d[0][iq])
    np.testing.assert_allclose(E.e_dot[one], x[1][one] - x_d[1][one], atol=1e-15)


def test_free_flyer_alone_is_the_se3_group_error():
    # the quaternion/position layout of a free flyer against SE(3) matrices (left error)
    rng = np.random.default_rng(3)
    model = MultibodyModel.from_bodies(
        [-1], [gj.FreeFlyer()], [_inertia(1.0, [0, 0, 0], [1, 1, 1])]
    )
    q, q_d = model.random_configuration(rng, 2)
    v, v_d, a_d = rng.standard_normal((3, 6))
    L = spd(rng, 6)
    mats = [gj.FreeFlyer().pose(x) for x in (q, q_d)]
    A = multibody_tracking_error(model, q, v, q_d, v_d, a_d, L)
    B = group_tracking_error(SE3, mats[0], v, mats[1], v_d, a_d, L)
    for x, y in zip(A, B, strict=True):
        np.testing.assert_allclose(x, y, atol=1e-12)


def test_sliding_surface_gives_exponential_log_error():
    # on s = 0 with scalar Λ: e_dot = -Λ e exactly, joint by joint (J(e)⁻¹ e = e)
    rng = np.random.default_rng(4)
    q, q_d = KIN_MODEL.random_configuration(rng, 2)
    v_d, a_d = rng.standard_normal((2, KIN_MODEL.nv))
    v_r = multibody_tracking_error(KIN_MODEL, q, 0 * v_d, q_d, v_d, a_d, 1.7).v_r
    E = multibody_tracking_error(KIN_MODEL, q, v_r, q_d, v_d, a_d, 1.7)
    np.testing.assert_allclose(E.e_dot, -1.7 * E.e, atol=1e-12)


def test_batched_equals_loop():
    rng = np.random.default_rng(5)
    n = KIN_MODEL.nv
    q = KIN_MODEL.random_configuration(rng, (3, 2))
    q_d = KIN_MODEL.random_configuration(rng, 2)
    v, v_d, a_d = rng.standard_normal((3, 2, n)), rng.standard_normal(n), rng.standard_normal(n)
    assert_batch_matches_loop(
        functools.partial(multibody_tracking_error, KIN_MODEL),
        q,
        v,
        q_d,
        v_d,
        a_d,
        spd(rng, n),
        atol=1e-13,
    )


def test_validation_errors():
    m = KIN_MODEL
    q, z = m.neutral(), np.zeros(m.nv)
    with pytest.raises(GeomechError, match="MultibodyModel"):
        multibody_tracking_error("model", q, z, q, z, z, 1.0)
    with pytest.raises(DimensionError, match="`q_d` to have shape"):
        multibody_tracking_error(m, q, z, q[:-1], z, z, 1.0)
    with pytest.raises(DimensionError, match="`a_d` to have shape"):
        multibody_tracking_error(m, q, z, q, z, z[:-1], 1.0)
    with pytest.raises(DimensionError, match="Lambda"):
        multibody_tracking_error(m, q, z, q, z, z, np.eye(3))
    with pytest.raises(DimensionError, match="broadcast"):
        multibody_tracking_error(m, np.tile(q, (3, 1)), np.zeros((2, m.nv)), q, z, z, 1.0)
    bad = q.copy()
    bad[3:7] *= 2.0  # free-flyer quaternion of norm 2
    with pytest.raises(NotOnManifoldError):
        multibody_tracking_error(m, bad, z, q, z, z, 1.0)
    joint = gj.Spherical()
    joint.manifold = None  # a multi-DoF joint without a Lie group
    odd = MultibodyModel.from_bodies([-1], [joint], [_inertia(1.0, [0, 0, 0], [1, 1, 1])])
    with pytest.raises(GeomechError, match="Lie group"):
        multibody_tracking_error(
            odd, odd.neutral(), np.zeros(3), odd.neutral(), np.zeros(3), np.zeros(3), 1.0
        )
    with pytest.raises(GeomechError, match="Lie group"):
        SlotineLi(odd, "levi-civita", lambda t: (odd.neutral(), np.zeros(3), np.zeros(3)), 1.0, 1.0)


# ----------------------------------------------------------------------------------------
# closed loops on a floating base with a spherical and a revolute joint
# ----------------------------------------------------------------------------------------
ROBOT = MultibodyModel.from_bodies(
    [-1, 0, 1, 0],
    [gj.FreeFlyer(), gj.Spherical(), gj.Revolute([0.0, 1.0, 0.0]), gj.Revolute([1.0, 0.0, 0.0])],
    [
        _inertia(4.0, [0.0, 0.0, 0.0], [0.4, 0.5, 0.6]),
        _inertia(1.5, [0.0, 0.0, -0.3], [0.08, 0.09, 0.05]),
        _inertia(1.0, [0.0, 0.0, -0.25], [0.05, 0.05, 0.02]),
        _inertia(0.8, [0.2, 0.0, 0.0], [0.02, 0.04, 0.04]),
    ],
    [np.eye(4), _pose([0.0, 0.0, -0.2]), _pose([0.0, 0.0, -0.6]), _pose([0.3, 0.0, 0.0])],
)
T_FINAL, DT = 1.0, 0.005
ADMISSIBLE = ["levi-civita", "velocity-cross", "boltzmann-hamel"]


@functools.cache
def _robot_reference():
    rng = np.random.default_rng(7)
    desired = ModelCurve(ROBOT, rng, scale=0.5, fast=True)
    q0 = ROBOT.integrate(desired(0.0)[0], 0.5 * rng.uniform(-1.0, 1.0, ROBOT.nv))
    v0 = desired(0.0)[1] + rng.standard_normal(ROBOT.nv)
    Lambda = 1.5 * np.eye(ROBOT.nv) + 0.1 * np.ones((ROBOT.nv, ROBOT.nv))  # couples joints
    K_D = 2.0 * crba(ROBOT, desired(0.0)[0])  # K_D ∝ H: a non-stiff loop
    return (lambda t: desired(t)[:3]), q0, v0, Lambda, K_D


class FirstOrderSlotineLi(SlotineLi):
    """The former multibody law: v_r = v_d - Λ log(q_d⁻¹q), a_r = a_d - Λ (v - v_d)."""

    def signals(self, t, q, v):
        q_d, v_d, a_d = self.reference(t)
        v_r = v_d - self.Lambda @ self.system.difference(q_d, q)
        return q_d, v_d, v_r, a_d - self.Lambda @ (v - v_d), v - v_r


def _lyapunov_defect(ctrl, result):
    # V = ½ sᵀ H s from crba, independent of ctrl.lyapunov (checked against it below)
    S = np.array([ctrl.signals(*x)[-1] for x in zip(result.t, result.q, result.v, strict=True)])
    V = 0.5 * np.einsum("ti,tij,tj->t", S, crba(ROBOT, result.q), S)
    return lyapunov_defect(ctrl, result.t, result.q, result.v, V=V)


@functools.cache
def _closed_loop(connection, cls=SlotineLi):
    reference, q0, v0, Lambda, K_D = _robot_reference()
    ctrl = cls(ROBOT, connection, reference, Lambda, K_D, require_passivity=True)
    result = simulate(
        ROBOT, q0, v0, T_FINAL, controller=ctrl, dt=DT, method="DOP853", rtol=1e-10, atol=1e-12
    )
    return ctrl, result


@pytest.mark.parametrize("connection", ADMISSIBLE)
def test_closed_loop_lyapunov_identity_on_a_floating_base(connection):
    # V(t) - V(0) = -∫ sᵀ K_D s (seed 000 eq. 14), which needs a_r = d/dt v_r exactly.
    # Measured max |defect| / V(0): 3e-9 (levi-civita) to 1.7e-8 (velocity-cross) on the
    # 5 ms grid, 16x more on a 10 ms grid: Simpson's error, not the controller's.
    ctrl, result = _closed_loop(connection)
    V, defect = _lyapunov_defect(ctrl, result)
    assert np.abs(defect).max() < 1e-6 * V[0]
    np.testing.assert_allclose(
        V[[0, 50]], [ctrl.lyapunov(result.t[i], result.q[i], result.v[i]) for i in (0, 50)]
    )
    assert V[-1] < 0.1 * V[0]  # s -> 0 (measured V(1) / V(0) = 1.5e-2 to 3.7e-2)
    assert np.abs((result.q[:, 3:7] ** 2).sum(-1) - 1.0).max() < 1e-12


def test_first_order_reference_breaks_the_identity():
    # negative control: the same loop with the former first-order a_r. Measured max
    # |defect| / V(0) 8e-2 (against 3e-9 to 1.7e-8 with the exact rate).
    ctrl, result = _closed_loop("levi-civita", FirstOrderSlotineLi)
    V, defect = _lyapunov_defect(ctrl, result)
    assert np.abs(defect).max() > 1e-2 * V[0]


def test_torsion_changes_the_motion_not_the_guarantee():
    # the admissible factorizations give different closed loops (the identity above is
    # not checked three times on one trajectory)
    v = [_closed_loop(c)[1].v for c in ADMISSIBLE]
    assert np.abs(v[0] - v[1]).max() > 1e-3 and np.abs(v[0] - v[2]).max() > 1e-3


def test_controller_torque_is_eq_13_with_the_group_signals():
    reference, q0, v0, Lambda, K_D = _robot_reference()
    ctrl = SlotineLi(ROBOT, "velocity-cross", reference, Lambda, K_D)
    q_d, v_d, a_d = reference(0.4)
    E = multibody_tracking_error(ROBOT, q0, v0, q_d, v_d, a_d, Lambda)
    tau = slotine_li_torques(ROBOT, q0, v0, E.v_r, E.a_r, "velocity-cross") - K_D @ (v0 - E.v_r)
    np.testing.assert_allclose(ctrl(0.4, q0, v0), tau, atol=1e-12)


# ----------------------------------------------------------------------------------------
# adaptive control: the regressor uses the same signals
# ----------------------------------------------------------------------------------------
def test_adaptive_controller_uses_the_group_signals():
    reference, q0, v0, Lambda, K_D = _robot_reference()
    ctrl = AdaptiveSlotineLi(ROBOT, "boltzmann-hamel", reference, Lambda, K_D, adaptation=0.5)
    fixed = SlotineLi(ROBOT, "boltzmann-hamel", reference, Lambda, K_D)
    for a, b in zip(ctrl.signals(0.4, q0, v0), fixed.signals(0.4, q0, v0), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(
        ctrl.torque(0.4, q0, v0, ctrl.parameters), fixed(0.4, q0, v0), atol=1e-10
    )
    _, _, v_r, a_r, s = fixed.signals(0.4, q0, v0)
    Y = slotine_li_regressor(ROBOT, q0, v0, v_r, a_r, "boltzmann-hamel")
    np.testing.assert_allclose(
        ctrl.state_rate(0.4, q0, v0, ctrl.state0), -0.5 * Y.T @ s, atol=1e-12
    )


def test_adaptive_closed_loop_lyapunov_identity_on_a_floating_base():
    # wrong initial inertias, V = ½ sᵀHs + ½ π̃ᵀΓ⁻¹π̃: V(t) - V(0) = -∫ sᵀ K_D s.
    # Measured max |defect| / V(0): 1.5e-8 on the 2.5 ms grid (2.4e-7 at 5 ms: Simpson's error).
    reference, q0, v0, Lambda, K_D = _robot_reference()
    guess = ROBOT.with_inertias(0.7 * ROBOT.inertias)
    ctrl = SlotineLi(
        ROBOT,
        "levi-civita",
        reference,
        Lambda,
        K_D,
        estimate=guess,
        adaptation=0.5,
        require_passivity=True,
    )
    result = simulate(
        ROBOT, q0, v0, 0.6, controller=ctrl, dt=DT / 2, method="DOP853", rtol=1e-10, atol=1e-12
    )
    X = result.controller_state
    V, defect = lyapunov_defect(ctrl, result.t, result.q, result.v, X)
    assert np.abs(defect).max() < 1e-6 * V[0]
    assert np.abs(X[-1] - X[0]).max() > 1e-3  # the estimate moved
