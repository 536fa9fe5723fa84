"""simulate() on multibody models: exact joint chart rates, order 4 on spherical/free-flyer
joints against Pinocchio references, adaptive mode, batches and batched controllers."""

import numpy as np
import pinocchio as pin
import pytest
from scipy.integrate import solve_ivp
from scipy.linalg import expm

from geomech.errors import NotOnManifoldError, SingularityError
from geomech.multibody import FreeFlyer, MultibodyModel, Spherical, robots
from geomech.multibody.model import joints as gj
from geomech.simulation import simulate
from geomech.spatial import spatial_inertia

JOINTS = [
    gj.Revolute([0.3, -1.0, 0.5]),
    gj.Prismatic([1.0, 2.0, -0.5]),
    gj.Helical([0.0, 1.0, 1.0], pitch=0.3),
    gj.Spherical(),
    gj.Planar(),
    gj.SchoenfliesJoint(),
    gj.FreeFlyer(),
]


def _hat(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def _body_twist(T, T_dot):
    """[ω; v] of T⁻¹ Ṫ (angular first)."""
    B = np.linalg.inv(T) @ T_dot
    return np.array([B[2, 1], B[0, 2], B[1, 0], *B[:3, 3]])


# ----------------------------------------------------------------------------------------
# the joint chart rate δ̇ of q = q_c ⊕ δ, against central differences of the joint pose
# ----------------------------------------------------------------------------------------
def _unused():
    raise AssertionError("the structure constants were evaluated although the chart rate is exact")


@pytest.mark.parametrize("joint", JOINTS, ids=lambda j: j.kind)
@pytest.mark.parametrize("scale", [0.05, 1.0, 2.5])
def test_chart_rate_reproduces_body_speeds(joint, scale, rng):
    """Moving δ at the rate δ̇ = joint._chart_rate(δ, v, ·) gives the child the twist Φ v."""
    for _ in range(3):
        q_c = joint.random_configuration(rng)
        delta = scale * rng.uniform(-1.0, 1.0, joint.nv)
        v = rng.standard_normal(joint.nv)
        d_dot = joint._chart_rate(delta, v, _unused)  # built-in joints: exact, no series

        def pose(s, q_c=q_c, delta=delta, d_dot=d_dot):
            return joint.pose(joint.integrate(q_c, delta + s * d_dot))

        h = 1e-6
        twist = _body_twist(pose(0.0), (pose(h) - pose(-h)) / (2 * h))
        np.testing.assert_allclose(twist, joint.motion_subspace(q_c) @ v, atol=1e-8)


def test_chart_rate_batches_and_fixed_joint(rng):
    j = gj.FreeFlyer()
    delta, v = rng.standard_normal((4, 2, 6)), rng.standard_normal((4, 2, 6))
    batched = j._chart_rate(delta, v, _unused)
    assert batched.shape == (4, 2, 6)
    np.testing.assert_allclose(
        batched[3, 1], j._chart_rate(delta[3, 1], v[3, 1], _unused), atol=1e-15
    )
    assert gj.Fixed()._chart_rate(np.zeros((5, 0)), np.zeros((5, 0)), _unused).shape == (5, 0)
    # identity at δ = 0 (dexp⁻¹_0 = I)
    np.testing.assert_allclose(
        gj.Spherical()._chart_rate(np.zeros(3), v[0, 0, :3], _unused), v[0, 0, :3]
    )


class _ParentFrameSpherical(gj.Joint):
    """A user spherical joint with the angular velocity in the parent frame as speeds: q ⊕ δ =
    exp(δ) q (left multiplication), so the default J_r⁻¹ of the group would be wrong; the
    chart rate comes from the series with the joint's structure constants (those of
    right-invariant fields, s = -ε)."""

    kind = "spherical_parent"
    nq, nv = 4, 3

    def __init__(self):
        super().__init__()
        self.manifold = gj.SO3

    def _pose(self, q):
        return gj.Spherical()._pose(q)

    def _Phi(self):
        raise NotImplementedError

    def _motion_subspace(self, q):
        R = gj.Spherical()._pose(q)[..., :3, :3]
        Phi = np.zeros(q.shape[:-1] + (6, 3))
        Phi[..., :3, :] = np.swapaxes(R, -1, -2)  # ω_body = Rᵀ ω_parent
        return Phi

    def _motion_subspace_rate(self, q, v):
        RT = np.swapaxes(gj.Spherical()._pose(q)[..., :3, :3], -1, -2)
        w = np.einsum("...ij,...j->...i", RT, v)
        W = np.zeros(w.shape[:-1] + (3, 3))
        W[..., 0, 1], W[..., 0, 2], W[..., 1, 2] = -w[..., 2], w[..., 1], -w[..., 0]
        W = W - np.swapaxes(W, -1, -2)
        out = np.zeros(np.broadcast_shapes(q.shape[:-1], v.shape[:-1]) + (6, 3))
        out[..., :3, :] = -W @ RT
        return out

    def _integrate(self, q, v):
        from geomech.lie.quaternion import quat_exp, quat_multiply

        lead = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
        q1 = quat_multiply(
            quat_exp(np.broadcast_to(v, lead + (3,))), np.broadcast_to(q, lead + (4,))
        )
        return q1 / np.linalg.norm(q1, axis=-1, keepdims=True)

    def _difference(self, q0, q1):
        from geomech.lie.quaternion import quat_log, quat_multiply

        return quat_log(quat_multiply(q1, q0 * np.array([-1.0, -1.0, -1.0, 1.0])))

    def _neutral(self):
        return np.array([0.0, 0.0, 0.0, 1.0])

    def _random(self, rng, shape):
        return gj.Spherical()._random(rng, shape)


def test_one_chart_rate_per_joint_for_a_user_joint(rng):
    """The model's frame (geodesics) and simulate take a user joint's chart rate from its hook:
    for q ⊕ δ = exp(δ) q the exact rate is J_l(δ)⁻¹ v (a closed form, independent of the
    code), and the hook's default series matches it to O(|δ|³)."""
    from geomech.multibody.algorithms.christoffel import joint_structure_constants

    joint = _ParentFrameSpherical()
    model = MultibodyModel.from_bodies(
        [-1, 0],
        [joint, gj.Revolute([0.0, 0.0, 1.0])],
        [spatial_inertia(1.0, [0.1, 0, 0], np.diag([0.1, 0.2, 0.3]))] * 2,
    )
    frame = model.frame
    q0 = model.random_configuration(rng)
    v = rng.standard_normal(model.nv)
    s = joint_structure_constants(model, q0)[:3, :3, :3]
    np.testing.assert_allclose(s[0, 1], [0.0, 0.0, -1.0], atol=1e-12)  # right-invariant fields
    errors = []
    for scale in (0.1, 0.05):
        phi = scale * np.array([0.3, -0.5, 0.8, 0.0])
        rate = frame.chart_velocity(q0, phi, v)
        np.testing.assert_allclose(
            rate[:3], joint._chart_rate(phi[:3], v[:3], lambda: s), atol=1e-15
        )
        np.testing.assert_allclose(rate[3], v[3])  # the revolute joint: δ̇ = v
        exact = np.linalg.inv(gj.SO3.left_jacobian(phi[:3])) @ v[:3]
        errors.append(np.abs(rate[:3] - exact).max())
    # truncated after ad²: error O(|δ|⁴) (B₃ = 0); measured ratio 16.0, error 3e-7 at |δ| = 0.05
    assert np.log2(errors[0] / errors[1]) == pytest.approx(4.0, abs=0.3)
    assert errors[1] < 1e-6
    # the group's J_r⁻¹ (what simulate used for every multi-DoF joint before) is wrong here
    wrong = np.linalg.inv(gj.SO3.right_jacobian(phi[:3])) @ v[:3]
    assert np.abs(wrong - exact).max() > 1e3 * errors[1]
    # simulate integrates the model in that chart (the same hook): energy is conserved
    res = simulate(model, q0, v, 0.5, dt=2e-3)
    H = model.mass_matrix(res.q)
    E = 0.5 * np.einsum("ti,tij,tj->t", res.v, H, res.v) + model.potential_energy(res.q)
    assert np.abs(E - E[0]).max() < 1e-6 * max(1.0, abs(E[0]))


# ----------------------------------------------------------------------------------------
# order 4 on free-flyer and spherical joints: references from Pinocchio's ABA
# ----------------------------------------------------------------------------------------
_M, _C = 2.0, np.array([0.1, -0.2, 0.15])
_IC = np.array([[0.3, 0.02, 0.01], [0.02, 0.2, -0.03], [0.01, -0.03, 0.25]])


def _quat_rate(quat, w):
    """q̇ = ½ q ⊗ (ω, 0) for a scalar-last quaternion and body angular velocity ω."""
    xyz, s = quat[:3], quat[3]
    return np.concatenate([0.5 * (s * w + np.cross(xyz, w)), [-0.5 * xyz @ w]])


def _pin_reference(kind, q0, v0, T):
    """Flat-state DOP853 (rtol 1e-13) of Pinocchio's ABA with quaternion kinematics."""
    pm = pin.Model()
    pm.gravity = pin.Motion(np.array([0.0, 0.0, -9.81, 0.0, 0.0, 0.0]))
    jm = pin.JointModelFreeFlyer() if kind == "free_flyer" else pin.JointModelSpherical()
    jid = pm.addJoint(0, jm, pin.SE3.Identity(), "j")
    pm.appendBodyToJoint(jid, pin.Inertia(_M, _C, _IC), pin.SE3.Identity())
    data = pm.createData()

    def rhs(t, y):
        if kind == "free_flyer":
            q, v = y[:7].copy(), y[7:]
            q[3:] /= np.linalg.norm(q[3:])
            a = pin.aba(pm, data, q, np.concatenate([v[3:], v[:3]]), np.zeros(6))  # linear first
            R = pin.Quaternion(q[6], *q[3:6]).toRotationMatrix()
            return np.concatenate([R @ v[3:], _quat_rate(q[3:], v[:3]), a[3:], a[:3]])
        q, v = y[:4] / np.linalg.norm(y[:4]), y[4:]
        return np.concatenate([_quat_rate(q, v), pin.aba(pm, data, q, v, np.zeros(3))])

    sol = solve_ivp(
        rhs, [0.0, T], np.concatenate([q0, v0]), method="DOP853", rtol=1e-13, atol=1e-13
    )
    y = sol.y[:, -1]
    nq = 7 if kind == "free_flyer" else 4
    return y[:nq], y[nq:]


def _rotation(quat):
    return pin.Quaternion(quat[3], *quat[:3]).toRotationMatrix()


def _error(q, v, q_ref, v_ref):
    """Max error in position, rotation matrix and speeds (quaternion sign-free)."""
    e = max(
        np.abs(_rotation(q[-4:]) - _rotation(q_ref[-4:] / np.linalg.norm(q_ref[-4:]))).max(),
        np.abs(v - v_ref).max(),
    )
    return max(e, np.abs(q[:-4] - q_ref[:-4]).max()) if len(q) > 4 else e


@pytest.mark.parametrize("kind", ["free_flyer", "spherical"])
def test_rkmk4_is_fourth_order_on_quaternion_joints(kind, rng):
    """Halving dt divides the error by ≈ 16 (it was ≈ 4 with dexp⁻¹ taken as the identity)."""
    joint = FreeFlyer() if kind == "free_flyer" else Spherical()
    model = MultibodyModel.from_bodies([-1], [joint], [spatial_inertia(_M, _C, _IC)])
    q0, v0 = model.random_configuration(rng), 1.5 * rng.standard_normal(model.nv)
    T = 1.0
    q_ref, v_ref = _pin_reference(kind, q0, v0, T)
    errors = []
    for dt in (0.05, 0.025):
        res = simulate(model, q0, v0, T, dt=dt)
        errors.append(_error(res.q[-1], res.v[-1], q_ref, v_ref))
    # measured ratios 16.1-16.9 (errors 1e-5 -> 1e-6); with dexp⁻¹ taken as the identity
    # (the previous multibody RK4) the ratio was 4.0 and the errors 4e-3 -> 1e-3
    assert np.log2(errors[0] / errors[1]) == pytest.approx(4.0, abs=0.3)
    assert errors[1] < 1e-5
    # the adaptive mode meets its tolerance, and quaternions stay unit norm
    res = simulate(model, q0, v0, T, dt=0.1, method="DOP853", rtol=1e-12, atol=1e-12)
    assert _error(res.q[-1], res.v[-1], q_ref, v_ref) < 1e-10
    assert np.abs(np.linalg.norm(res.q[:, -4:], axis=-1) - 1.0).max() < 1e-14


def test_adaptive_recentres_on_a_fast_spin():
    """A 20 rad/s spin about a principal axis through the centre of mass, with a drift along
    that axis, has a constant body twist (exact solution T(t) = exp(t [ω; v]^)). The chart is
    re-centred about 20 times; the configuration stays exact and on SE(3)."""
    I = spatial_inertia(1.0, np.zeros(3), np.diag([0.1, 0.2, 0.3]))
    model = MultibodyModel.from_bodies([-1], [FreeFlyer()], [I], gravity=np.zeros(3))
    v0 = np.array([0.0, 20.0, 0.0, 0.0, 0.5, 0.0])  # [ω; v], v ∥ ω
    res = simulate(
        model, model.neutral(), v0, 1.0, dt=0.01, method="DOP853", rtol=1e-11, atol=1e-12
    )
    for k in (37, 100):
        T_exact = expm(res.t[k] * np.block([[_hat(v0[:3]), v0[3:, None]], [np.zeros((1, 4))]]))
        np.testing.assert_allclose(_rotation(res.q[k, 3:]), T_exact[:3, :3], atol=1e-9)
        np.testing.assert_allclose(res.q[k, :3], T_exact[:3, 3], atol=1e-9)
    np.testing.assert_allclose(res.v, np.broadcast_to(v0, res.v.shape), atol=1e-9)
    assert np.abs(np.linalg.norm(res.q[:, 3:], axis=-1) - 1.0).max() < 1e-14


# ----------------------------------------------------------------------------------------
# batches, controllers, validation
# ----------------------------------------------------------------------------------------
def test_batched_runs_match_single_runs(rng):
    model = robots.serial_chain(2, rng, floating_base=True)
    q0 = model.random_configuration(rng, size=3)
    v0 = rng.standard_normal((3, model.nv))
    seen = []

    def damping(t, q, v):  # receives the batch
        seen.append(q.shape)
        return -0.5 * v

    res = simulate(model, q0, v0, 0.1, controller=damping, dt=0.01)
    assert res.q.shape == (11, 3, model.nq) and res.tau.shape == (11, 3, model.nv)
    assert set(seen) == {(3, model.nq)}
    np.testing.assert_allclose(res.tau, -0.5 * res.v, atol=0)
    for b in (0, 2):
        single = simulate(model, q0[b], v0[b], 0.1, controller=lambda t, q, v: -0.5 * v, dt=0.01)
        np.testing.assert_allclose(res.q[:, b], single.q, atol=1e-12)
        np.testing.assert_allclose(res.v[:, b], single.v, atol=1e-12)
    # one configuration broadcast against several velocities, adaptive mode
    res = simulate(model, q0[0], v0, 0.05, dt=0.01, method="DOP853")
    assert res.q.shape == (6, 3, model.nq)
    single = simulate(model, q0[0], v0[1], 0.05, dt=0.01, method="DOP853")
    np.testing.assert_allclose(res.q[:, 1], single.q, atol=1e-8)


def test_energy_is_conserved_without_control():
    model = robots.double_pendulum(radius=0.1)
    from geomech.multibody.algorithms.dynamics import crba

    def energy(q, v):
        pot = 9.81 * (-np.cos(q[..., 0]) - (np.cos(q[..., 0]) + np.cos(q[..., 0] + q[..., 1])))
        return 0.5 * np.einsum("...i,...ij,...j->...", v, crba(model, q), v) + pot

    res = simulate(model, np.array([1.0, -0.5]), np.array([0.0, 1.0]), 1.0, dt=2e-3)
    E = energy(res.q, res.v)
    assert np.abs(E - E[0]).max() < 1e-9 * np.abs(E[0])


def test_multibody_validation():
    model = robots.serial_chain(2, floating_base=True)
    q0 = model.neutral()
    q0[3:7] = [0.0, 0.0, 0.0, 1.1]
    with pytest.raises(NotOnManifoldError, match="quaternion of joint 'root_joint'"):
        simulate(model, q0, np.zeros(model.nv), 0.1)
    q0[3:7] = [0.0, 0.0, 0.0, 1.0 + 1e-9]  # rounding-level error is normalised away
    res = simulate(model, q0, np.zeros(model.nv), 0.02, dt=0.01)
    assert np.linalg.norm(res.q[0, 3:7]) == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("joint", [gj.Spherical(), gj.FreeFlyer()], ids=lambda j: j.kind)
def test_compiled_chart_rate_is_the_group_jacobian_and_names_its_singularity(joint, rng):
    """The joint's one chart rate (compiled) is J_r(δ)⁻¹ = J_l(−δ)⁻¹ of its group (lie layer)."""
    delta, v = 1.5 * rng.standard_normal((20, joint.nv)), rng.standard_normal((20, joint.nv))
    ref = np.einsum("...ij,...j->...i", joint.manifold._left_jacobian_inverse(-delta), v)
    np.testing.assert_allclose(joint._chart_rate(delta, v, _unused), ref, atol=1e-11)
    at_2pi = np.zeros(joint.nv)
    at_2pi[0] = 2 * np.pi
    with pytest.raises(SingularityError, match="multiple of 2π"):
        joint._chart_rate(at_2pi, np.ones(joint.nv), _unused)
