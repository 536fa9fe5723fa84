"""simulate support for MechanicalSystem (mechanical_system_form on groups, the frame's chart
otherwise).
"""

import numpy as np
import pytest
from scipy.integrate import simpson, solve_ivp

from geomech.geometry import MechanicalSystem
from geomech.geometry.examples import point_mass
from geomech.lie import SO3
from geomech.rigidbody.integrators import integrate
from geomech.simulation import mechanical_system_form


def _run(system, q0, v0, T, n, tau=None):
    form = mechanical_system_form(system)

    def field(t, q, v):
        return form.velocity(t, q, v), form.acceleration(t, q, v, tau)

    return integrate(form.group, field, np.asarray(q0, float), np.asarray(v0, float), 0.0, T, n)


def test_point_mass_constant_force_closed_form():
    # q(t) = q0 + v0 t + F t^2 / (2 m): RK4 is exact on quadratics
    F, m = np.array([1.0, -2.0, 0.5]), 2.0
    t, q, v = _run(point_mass(m), [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], 2.0, 20, tau=F)
    q_exact = np.array([1.0, 0.0, 0.0]) + np.outer(t, [0.0, 1.0, 0.0]) + np.outer(t**2, F) / (2 * m)
    np.testing.assert_allclose(q, q_exact, atol=1e-13)


def test_so3_free_body_conserves_energy_and_momentum():
    J = np.diag([1.0, 2.0, 3.0])
    sys = MechanicalSystem(SO3, J)
    w0 = np.array([0.3, -1.0, 0.5])
    t, R, w = _run(sys, np.eye(3), w0, 2.0, 2000)
    E = 0.5 * np.einsum("ni,ij,nj->n", w, J, w)
    assert np.abs(E / E[0] - 1).max() < 1e-10
    L = np.einsum("nij,nj->ni", R, w @ J)  # spatial angular momentum R J w is constant
    assert np.abs(L - L[0]).max() < 1e-10
    assert np.abs(np.einsum("nji,njk->nik", R, R) - np.eye(3)).max() < 1e-12


def test_rejects_non_group_manifold():
    class Fake:
        manifold = "sphere"
        frame = None

    with pytest.raises(TypeError, match="LieGroup"):
        mechanical_system_form(Fake())


def test_multibody_closed_loop_lyapunov_balance():
    # exact parameters: V(T) - V(0) = -∫ s^T K_D s dt for admissible factorizations (seed 000 eq.
    # 14)
    from geomech.control import SlotineLi
    from geomech.multibody.io.robots import serial_chain
    from geomech.simulation import simulate

    model = serial_chain(3, np.random.default_rng(2))

    def ref(t):
        return (np.sin(t) * np.ones(3), np.cos(t) * np.ones(3), -np.sin(t) * np.ones(3))

    K = 2.0 * np.eye(3)
    for name in ("levi-civita", "velocity-cross"):
        c = SlotineLi(model, name, ref, 1.5, K)
        r = simulate(model, np.array([0.5, -0.3, 0.2]), np.zeros(3), 1.0, controller=c, dt=2e-3)
        V = np.array([c.lyapunov(*x) for x in zip(r.t, r.q, r.v, strict=True)])
        S = np.array([c.signals(*x)[-1] for x in zip(r.t, r.q, r.v, strict=True)])
        P = np.einsum("ni,ij,nj->n", S, K, S)
        integral = simpson(P, x=r.t)
        assert V[-1] < 0.2 * V[0]
        assert V[-1] - V[0] == pytest.approx(-integral, abs=1e-5 * V[0])


def test_multibody_free_flyer_quaternion_norm():
    from geomech.multibody.io.robots import humanoid
    from geomech.simulation import simulate

    model = humanoid()
    rng = np.random.default_rng(0)
    r = simulate(model, model.neutral(), 0.5 * rng.standard_normal(model.nv), 0.05, dt=5e-3)
    quat = r.q[:, 3:7]
    assert np.abs(np.linalg.norm(quat, axis=1) - 1).max() < 1e-12


# ----------------------------------------------------------------------------------------
# simulate() on MechanicalSystem, against independent references
# ----------------------------------------------------------------------------------------
ARM = dict(m1=1.2, m2=0.8, l1=1.0, l2=0.9, lc1=0.45, lc2=0.4, I1=0.09, I2=0.05)
# bounds on the max error in q (10x for v) against Pinocchio; measured (q, v): rkmk4 (1 ms)
# 2e-11, 7e-10; DOP853 1e-10, 9e-10; Radau 2e-11, 3e-10; LSODA 2e-10, 3e-9
ERRORS = {"rkmk4": 1e-9, "DOP853": 1e-9, "Radau": 1e-9, "LSODA": 3e-9}


def _pinocchio_arm(g=9.81):
    """The two-link arm built independently in Pinocchio: revolute z joints, links along x,
    gravity along -y (Spong's planar arm, q1 from the horizontal)."""
    import pinocchio as pin

    a = ARM
    pm = pin.Model()
    pm.gravity = pin.Motion(np.array([0.0, -g, 0.0, 0.0, 0.0, 0.0]))
    j1 = pm.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), "shoulder")
    pm.appendBodyToJoint(
        j1,
        pin.Inertia(a["m1"], np.array([a["lc1"], 0, 0]), np.diag([0.01, 0.01, a["I1"]])),
        pin.SE3.Identity(),
    )
    j2 = pm.addJoint(j1, pin.JointModelRZ(), pin.SE3(np.eye(3), np.array([a["l1"], 0, 0])), "elbow")
    pm.appendBodyToJoint(
        j2,
        pin.Inertia(a["m2"], np.array([a["lc2"], 0, 0]), np.diag([0.01, 0.01, a["I2"]])),
        pin.SE3.Identity(),
    )
    return pm, pm.createData()


def _arm_reference(q0, v0, T, tau=lambda t, q, v: np.zeros(2)):
    import pinocchio as pin

    pm, data = _pinocchio_arm()

    def rhs(t, y):
        return np.concatenate([y[2:], pin.aba(pm, data, y[:2], y[2:], tau(t, y[:2], y[2:]))])

    return solve_ivp(
        rhs,
        [0.0, T],
        np.concatenate([q0, v0]),
        method="DOP853",
        rtol=1e-12,
        atol=1e-12,
        dense_output=True,
    ).sol


@pytest.mark.parametrize("method", ["rkmk4", "DOP853", "Radau", "LSODA"])
def test_two_link_arm_matches_pinocchio(method):
    from geomech.geometry.examples import two_link_arm
    from geomech.simulation import simulate

    arm = two_link_arm(**ARM)
    q0, v0 = np.array([0.3, 1.1]), np.array([-0.5, 2.0])

    def pd(t, q, v):  # a time-varying feedback, applied to both models
        return np.array([2.0 * np.sin(3 * t), 0.0]) - 1.5 * (q - [0.5, 0.0]) - 0.2 * v

    T = 0.5
    ref = _arm_reference(q0, v0, T, pd)
    kw = {"dt": 1e-3} if method == "rkmk4" else {"dt": 0.05, "rtol": 1e-10, "atol": 1e-11}
    res = simulate(arm, q0, v0, T, controller=pd, method=method, **kw)
    y = ref(res.t).T
    err = np.abs(res.q - y[:, :2]).max(), np.abs(res.v - y[:, 2:]).max()
    assert err[0] < ERRORS[method] and err[1] < 10 * ERRORS[method], err
    np.testing.assert_allclose(
        res.tau, [pd(*x) for x in zip(res.t, res.q, res.v, strict=True)], atol=0
    )


def test_two_link_arm_conserves_energy():
    from geomech.geometry.examples import two_link_arm
    from geomech.simulation import simulate

    arm = two_link_arm(**ARM)
    res = simulate(arm, np.array([0.3, 1.1]), np.array([-0.5, 2.0]), 1.0, dt=1e-3)
    a = ARM  # potential written out here (Spong §7.4), independent of the example's code
    V = 9.81 * (
        (a["m1"] * a["lc1"] + a["m2"] * a["l1"]) * np.sin(res.q[:, 0])
        + a["m2"] * a["lc2"] * np.sin(res.q[:, 0] + res.q[:, 1])
    )
    E = arm.kinetic_energy(res.q, res.v) + V
    # RK4 truncation (speeds reach 23 rad/s): measured 8.6e-8 at 1 ms, 1.3e-6 at 2 ms (ratio 16)
    assert np.abs(E - E[0]).max() < 2e-7


def _symmetric_top(R0, w0, I1, I3, t):
    """Closed form of the free symmetric top (I = diag(I1, I1, I3)):
    R(t) = exp(t ℓ̂) R0 exp(t μ ê3), ℓ = R0 L0 / I1, μ = ω3 (1 - I3/I1);
    ω(t) = Rz(-μ t) ω0 componentwise in the body (ω3 constant)."""
    L0 = np.array([I1 * w0[0], I1 * w0[1], I3 * w0[2]])
    ell = R0 @ L0 / I1
    mu = w0[2] * (1.0 - I3 / I1)
    R = np.array([SO3.exp(s * ell) @ R0 @ SO3.exp([0.0, 0.0, s * mu]) for s in t])
    w = np.array([SO3.exp([0.0, 0.0, -s * mu]) @ w0 for s in t])
    return R, w


@pytest.mark.parametrize("method", ["rkmk4", "DOP853"])
def test_so3_left_invariant_symmetric_top_closed_form(method, rng):
    from geomech.geometry.examples import rigid_body_so3
    from geomech.simulation import simulate

    I1, I3 = 1.0, 2.5
    body = rigid_body_so3(np.diag([I1, I1, I3]))
    R0, w0 = SO3.random(rng), np.array([0.7, -0.4, 2.0])
    kw = {"dt": 5e-3} if method == "rkmk4" else {"dt": 0.05, "rtol": 1e-11, "atol": 1e-12}
    res = simulate(body, R0, w0, 4.0, method=method, **kw)
    R, w = _symmetric_top(R0, w0, I1, I3, res.t)
    tol = 1e-8 if method == "rkmk4" else 1e-9  # measured 3.9e-9 (RKMK4, 5 ms), 2e-10 (DOP853)
    np.testing.assert_allclose(res.q, R, atol=tol)
    np.testing.assert_allclose(res.v, w, atol=tol)
    SO3.validate(res.q, tol=1e-13)


def test_so3_right_invariant_frame_by_inversion(rng):
    """With spatial angular velocity ω_s as speeds and T = ½ ω_sᵀ J ω_s, g(t)⁻¹ is the
    left-invariant (body-velocity) motion with ω_b = -ω_s: here a symmetric top in closed form."""
    from geomech.geometry import MechanicalSystem, RightInvariantFrame
    from geomech.simulation import simulate

    I1, I3 = 0.8, 0.3
    system = MechanicalSystem(SO3, np.diag([I1, I1, I3]), frame=RightInvariantFrame(SO3))
    g0, ws0 = SO3.random(rng), np.array([0.5, 1.0, -1.5])
    res = simulate(system, g0, ws0, 3.0, dt=5e-3)
    h, wb = _symmetric_top(g0.T, -ws0, I1, I3, res.t)
    np.testing.assert_allclose(res.q, np.swapaxes(h, -1, -2), atol=1e-9)
    np.testing.assert_allclose(res.v, -wb, atol=1e-9)


def test_so3_general_body_matches_flat_euler_reference_and_rigid_body_path(rng):
    from geomech.geometry.examples import rigid_body_so3
    from geomech.rigidbody import RigidBody
    from geomech.simulation import simulate

    J = np.array([[1.0, 0.1, -0.05], [0.1, 2.0, 0.2], [-0.05, 0.2, 3.0]])
    R0, w0 = SO3.random(rng), np.array([0.3, -1.0, 0.5])

    def rhs(t, y):  # Ṙ = R ω̂, J ω̇ = (J ω) × ω, written out (flat 12-dim state)
        R, w = y[:9].reshape(3, 3), y[9:]
        return np.concatenate([(R @ SO3.hat(w)).ravel(), np.linalg.solve(J, np.cross(J @ w, w))])

    ref = solve_ivp(
        rhs,
        [0, 2.0],
        np.concatenate([R0.ravel(), w0]),
        method="DOP853",
        rtol=1e-12,
        atol=1e-13,
        t_eval=np.linspace(0, 2.0, 201),
    ).y.T
    ms = simulate(rigid_body_so3(J), R0, w0, 2.0, dt=1e-2 / 2, method="rkmk4")
    np.testing.assert_allclose(ms.q[::2], ref[:, :9].reshape(-1, 3, 3), atol=1e-9)
    np.testing.assert_allclose(ms.v[::2], ref[:, 9:], atol=1e-9)
    rb = simulate(RigidBody(SO3, J), R0, w0, 2.0, dt=1e-2 / 2)
    np.testing.assert_allclose(ms.q, rb.q, atol=1e-11)


def test_se3_mechanical_system_matches_rigid_body_path(rng):
    from geomech.geometry.examples import rigid_body_se3
    from geomech.lie import SE3
    from geomech.rigidbody import RigidBody
    from geomech.simulation import simulate
    from geomech.spatial import spatial_inertia

    I = spatial_inertia(1.5, [0.1, 0.0, -0.2], np.diag([0.2, 0.3, 0.25]))
    g0, V0 = SE3.random(rng, size=2), rng.standard_normal((2, 6))
    ms = simulate(rigid_body_se3(I), g0, V0, 1.0, dt=0.01, method="DOP853", rtol=1e-11, atol=1e-12)
    rb = simulate(RigidBody(SE3, I), g0, V0, 1.0, dt=0.01, method="DOP853", rtol=1e-11, atol=1e-12)
    assert ms.q.shape == (101, 2, 4, 4)
    np.testing.assert_allclose(ms.q, rb.q, atol=1e-9)
    SE3.validate(ms.q, tol=1e-12)


@pytest.mark.parametrize("method", ["rkmk4", "DOP853"])
def test_custom_frame_system_matches_the_multibody_simulation(method):
    # a plain MechanicalSystem with the model's joint frame (exact chart rates), CRBA metric and
    # gravity potential is simulated in the frame's chart with H v' + C* v + g = tau from the
    # generic Koszul formula (finite differences of H); the
    # reference is simulate on the model itself (ABA, checked against Pinocchio). Measured
    # max |q - q_ref|: 1.5e-11 (RKMK4, 5 ms), 1.2e-9 (DOP853, rtol 1e-10).
    from geomech.geometry import MechanicalSystem
    from geomech.multibody import JointFrame, MultibodyModel
    from geomech.multibody.model import joints as gj
    from geomech.simulation import simulate
    from geomech.spatial import spatial_inertia

    model = MultibodyModel.from_bodies(
        [-1, 0, 1],
        [gj.FreeFlyer(), gj.Spherical(), gj.Revolute([0.0, 1.0, 0.0])],
        [
            spatial_inertia(2.0, [0.1, 0, 0], np.diag([0.1, 0.2, 0.3])),
            spatial_inertia(1.0, [0, 0, -0.2], np.diag([0.05, 0.06, 0.02])),
            spatial_inertia(0.5, [0.1, 0, 0], np.diag([0.01, 0.02, 0.02])),
        ],
    )
    system = MechanicalSystem(
        None, model.mass_matrix, frame=model.frame, potential=model.potential_energy
    )
    assert isinstance(system.frame, JointFrame) and type(system) is MechanicalSystem
    rng = np.random.default_rng(1)
    q0, v0 = model.random_configuration(rng), rng.standard_normal(model.nv)

    def control(t, q, v):
        return np.sin(t) - 0.1 * v

    kw = dict(controller=control, dt=5e-3, method=method)
    if method == "DOP853":
        kw.update(rtol=1e-10, atol=1e-12)
    ref = simulate(model, q0, v0, 0.5, **kw)
    res = simulate(system, q0, v0, 0.5, **kw)
    tol = 1e-10 if method == "rkmk4" else 1e-8
    np.testing.assert_allclose(res.q, ref.q, atol=tol)
    np.testing.assert_allclose(res.v, ref.v, atol=50 * tol)
    assert np.abs(res.q[-1] - q0).max() > 0.1
