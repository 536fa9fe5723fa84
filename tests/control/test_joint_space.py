"""PD and computed-torque tracking of robots (geomech.control.joint_space, issue 28 item 3).

References independent of the code under test: Pinocchio's ``rnea``,
``computeGeneralizedGravity``, ``crba`` and ``difference`` (the SE(3) log of a floating base);
the closed-form solution of ë + K_D ė + K_P e = 0 (scalar gains) for the computed-torque loop of
an exact model; the energy V = ½ νᵀHν + ½ eᵀK_P e of PD with gravity compensation, which a
constant set point makes non-increasing.
"""

import numpy as np
import pinocchio as pin
import pytest
from control_helpers import spd

from geomech.control import PD, ComputedTorque
from geomech.errors import DimensionError, DTypeError, ParameterError
from geomech.interop.pinocchio import PinocchioBridge
from geomech.multibody import MultibodyModel, robots
from geomech.multibody.io.examples import load_example
from geomech.multibody.model import joints as gj
from geomech.simulation import simulate
from geomech.spatial import spatial_inertia

UR5 = robots.load("ur5")


def _constant(q_d, v_d, a_d):
    return lambda t: (q_d, v_d, a_d)


# ----------------------------------------------------------------------------------------
# the laws at one state, against Pinocchio
# ----------------------------------------------------------------------------------------
def test_computed_torque_is_the_inverse_dynamics_of_the_commanded_acceleration(rng):
    estimate = UR5.with_inertias(UR5.inertias * rng.uniform(0.7, 1.3, (UR5.n_bodies, 1, 1)))
    bridge = PinocchioBridge(estimate)
    n = UR5.nv
    K_P, K_D = spd(rng, n), spd(rng, n)
    q_d, v_d, a_d = UR5.random_configuration(rng), rng.standard_normal(n), rng.standard_normal(n)
    ct = ComputedTorque(UR5, _constant(q_d, v_d, a_d), K_P, K_D, estimate=estimate)
    q = UR5.random_configuration(rng, size=4)
    v = rng.standard_normal((4, n))
    tau = ct(0.0, q, v)
    assert tau.shape == (4, n)
    for k in range(4):  # revolute joints: a = a_d - K_D (v - v_d) - K_P (q - q_d)
        a = a_d - K_D @ (v[k] - v_d) - K_P @ (q[k] - q_d)
        ref = pin.rnea(bridge.pin_model, bridge.pin_data, *(bridge.q_to_pin(q[k]),), *(
            bridge.v_to_pin(x) for x in (v[k], a)
        ))  # fmt: skip
        np.testing.assert_allclose(tau[k], bridge.v_from_pin(ref), rtol=1e-12, atol=1e-10)


def test_pd_is_the_textbook_law_with_pinocchios_gravity(rng):
    bridge = PinocchioBridge(UR5)
    n = UR5.nv
    K_P, K_D = spd(rng, n), spd(rng, n)
    q_d, v_d = UR5.random_configuration(rng), rng.standard_normal(n)
    plain = PD(UR5, _constant(q_d, v_d, np.zeros(n)), K_P, K_D)
    comp = PD(UR5, _constant(q_d, v_d, np.zeros(n)), K_P, K_D, gravity_compensation=True)
    q, v = UR5.random_configuration(rng), rng.standard_normal(n)
    expected = -K_P @ (q - q_d) - K_D @ (v - v_d)
    np.testing.assert_allclose(plain(0.0, q, v), expected, rtol=1e-13, atol=1e-13)
    g = pin.computeGeneralizedGravity(bridge.pin_model, bridge.pin_data, bridge.q_to_pin(q))
    np.testing.assert_allclose(
        comp(0.0, q, v), bridge.v_from_pin(g) + expected, rtol=1e-12, atol=1e-10
    )


def test_the_floating_base_error_is_the_se3_log(rng):
    """With K_P = 1, K_D = 0: τ = -e, e joint by joint = Pinocchio's difference(q_d, q)."""
    model = robots.humanoid()
    bridge = PinocchioBridge(model)
    q_d, q = model.random_configuration(rng), model.random_configuration(rng)
    q = model.integrate(q_d, 0.3 * rng.uniform(-1.0, 1.0, model.nv))  # inside the cut locus
    pd = PD(model, _constant(q_d, np.zeros(model.nv), np.zeros(model.nv)), 1.0, 1e-300)
    e = pin.difference(bridge.pin_model, bridge.q_to_pin(q_d), bridge.q_to_pin(q))
    np.testing.assert_allclose(-pd(0.0, q, np.zeros(model.nv)), bridge.v_from_pin(e), atol=1e-12)


# ----------------------------------------------------------------------------------------
# closed loops (simulate runs both laws compiled)
# ----------------------------------------------------------------------------------------
def test_computed_torque_error_follows_the_linear_second_order_law():
    """Exact model, scalar gains: every joint's error is e(t) = e^{-ζωt}(e₀ cos ω_d t +
    (ė₀ + ζω e₀)/ω_d sin ω_d t)."""
    rng = np.random.default_rng(1)
    n = UR5.nv
    q_c, c, w = UR5.random_configuration(rng), rng.uniform(-0.3, 0.3, n), rng.uniform(0.5, 2.0, n)

    def reference(t):  # q_d = q_c + c sin(w t): v_d, a_d exact
        return q_c + c * np.sin(w * t), c * w * np.cos(w * t), -c * w**2 * np.sin(w * t)

    omega, zeta = 8.0, 0.4
    ct = ComputedTorque(UR5, reference, omega**2, 2.0 * zeta * omega)
    e0, e_dot0 = rng.uniform(-0.2, 0.2, n), rng.uniform(-0.5, 0.5, n)
    res = simulate(UR5, q_c + e0, reference(0.0)[1] + e_dot0, 1.0, controller=ct)
    t = res.t[:, None]
    w_d = omega * np.sqrt(1.0 - zeta**2)
    e = np.exp(-zeta * omega * t) * (
        e0 * np.cos(w_d * t) + (e_dot0 + zeta * omega * e0) / w_d * np.sin(w_d * t)
    )
    q_d = np.array([reference(s)[0] for s in res.t])
    # measured: 7e-12 (RK4 at 1 ms; the error decays from 0.19 to 0.009)
    assert np.abs(res.q - q_d - e).max() < 1e-9


def test_computed_torque_holds_a_floating_base_on_its_reference():
    """q_d = q_c ⊕ t u (a one-parameter subgroup on the free flyer: ν_d = u, a_d = 0 exactly).
    From the reference the error stays at rounding; from an error δ₀ (ξ_e(0) = 0 on the
    revolute joints), the revolute errors are the critically damped (1 + ωt) e^{-ωt} δ₀ and the
    free flyer's decays too."""
    model = robots.humanoid()
    rng = np.random.default_rng(2)
    q_c, u = model.random_configuration(rng), rng.uniform(-0.5, 0.5, model.nv)
    ref = lambda t: (model.integrate(q_c, t * u), u, np.zeros(model.nv))  # noqa: E731
    omega = 5.0
    ct = ComputedTorque(model, ref, omega**2, 2.0 * omega)
    bridge = PinocchioBridge(model)

    def error(res):
        return np.array([
            bridge.v_from_pin(pin.difference(
                bridge.pin_model, bridge.q_to_pin(ref(t)[0]), bridge.q_to_pin(q)
            ))
            for t, q in zip(res.t, res.q, strict=True)
        ])  # fmt: skip

    on = simulate(model, q_c, u, 0.5, controller=ct)
    assert np.abs(error(on)).max() < 1e-9  # measured 1.3e-11
    delta0 = 0.05 * rng.standard_normal(model.nv)
    off = simulate(model, model.integrate(q_c, delta0), u, 1.0, controller=ct)
    e, t = error(off), off.t[:, None]
    # measured: 7e-13 (revolute joints, against the closed form)
    np.testing.assert_allclose(e[:, 6:], (1 + omega * t) * np.exp(-omega * t) * delta0[6:],
                               atol=1e-9)  # fmt: skip
    assert np.abs(e[-1, :6]).max() < 0.1 * np.abs(e[0, :6]).max()  # measured 0.04


def test_pd_with_gravity_compensation_dissipates_energy():
    rng = np.random.default_rng(3)
    bridge = PinocchioBridge(UR5)
    q_d = UR5.random_configuration(rng)
    H_d = pin.crba(bridge.pin_model, bridge.pin_data, bridge.q_to_pin(q_d))
    K_P = 20.0 * np.diag(np.diag(H_d))  # ω ≈ 4.5 rad/s per joint
    K_D = 0.2 * K_P
    pd = PD(UR5, _constant(q_d, np.zeros(6), np.zeros(6)), K_P, K_D, gravity_compensation=True)
    res = simulate(UR5, q_d + rng.uniform(-0.3, 0.3, 6), np.zeros(6), 1.0, controller=pd)
    V = []
    for q, v in zip(res.q, res.v, strict=True):
        H = pin.crba(bridge.pin_model, bridge.pin_data, bridge.q_to_pin(q))
        H = np.triu(H) + np.triu(H, 1).T
        vp, e = bridge.v_to_pin(v), q - q_d
        V.append(0.5 * vp @ H @ vp + 0.5 * e @ K_P @ e)
    V = np.array(V)
    assert np.diff(V).max() < 1e-9 * V[0]  # non-increasing (to the integration error)
    assert V[-1] < 0.2 * V[0]


# ----------------------------------------------------------------------------------------
# joints of the Python path, validation
# ----------------------------------------------------------------------------------------
def test_a_planar_joint_goes_through_the_numpy_error():
    model = MultibodyModel.from_bodies(
        [-1, 0],
        [gj.Planar(), gj.Revolute([0.0, 0.0, 1.0])],
        [spatial_inertia(1.0, [0.2, 0.0, 0.0], np.eye(3))] * 2,
        gravity=np.zeros(3),
    )
    q_d = np.array([0.5, -0.2, 0.3, 0.1])
    pd = PD(model, _constant(q_d, np.zeros(4), np.zeros(4)), 1.0, 1.0)
    q = np.array([0.5, -0.2, 0.3 + 0.2, 0.4])  # rotated in place by 0.2, revolute by 0.3
    np.testing.assert_allclose(pd(0.0, q, np.zeros(4)), [-0.2, 0.0, 0.0, -0.3], atol=1e-14)
    res = simulate(model, q, np.zeros(4), 0.05, controller=pd)  # the Python path
    assert np.abs(res.q[-1] - q).max() > 1e-4


def test_validation():
    n = UR5.nv
    ref = _constant(UR5.neutral(), np.zeros(n), np.zeros(n))
    with pytest.raises(ParameterError, match="kinematic tree"):
        PD(load_example("four_bar"), ref, 1.0, 1.0)
    with pytest.raises(ParameterError, match="kinematic tree"):
        ComputedTorque("ur5", ref, 1.0, 1.0)
    with pytest.raises(ParameterError, match="positive definite"):
        PD(UR5, ref, -1.0, 1.0)
    with pytest.raises(DimensionError, match="K_D"):
        ComputedTorque(UR5, ref, 1.0, np.eye(3))
    with pytest.raises(DTypeError, match="callable"):
        PD(UR5, "sine", 1.0, 1.0)
    with pytest.raises(DTypeError, match="estimate"):
        PD(UR5, ref, 1.0, 1.0, estimate=robots.double_pendulum())
    pd = PD(UR5, ref, 1.0, 1.0)
    with pytest.raises(DimensionError, match="`q` to have shape"):
        pd(0.0, np.zeros(5), np.zeros(n))
    with pytest.raises(DimensionError, match="broadcast"):
        pd(0.0, np.zeros((2, n)), np.zeros((3, n)))
    bad = PD(UR5, _constant(np.zeros((2, n)), np.zeros(n), np.zeros(n)), 1.0, 1.0)
    with pytest.raises(DimensionError, match="`q_d` to have shape"):
        bad(0.0, np.zeros(n), np.zeros(n))
