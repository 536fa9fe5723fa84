"""simulate(): adaptive mode, dynamic controllers, logged signals, progress bar, save/load and
the errors of the options."""

import numpy as np
import pytest
from scipy.linalg import expm

from geomech.errors import DimensionError, GeomechError, NonFiniteError, SimulationError
from geomech.geometry.examples import point_mass
from geomech.lie import SE3, SO3
from geomech.rigidbody import RigidBody
from geomech.simulation import ADAPTIVE_METHODS, SimulationResult, simulate


class PI:
    """PI position control of a 1-D point mass: τ = -k_p e - k_d v - k_i x, ẋ = e = q - r."""

    def __init__(self, r=1.0, kp=4.0, kd=3.0, ki=2.0):
        self.r, self.kp, self.kd, self.ki = r, kp, kd, ki
        self.state0 = np.zeros(1)

    def state_rate(self, t, q, v, x):
        return q - self.r

    def torque(self, t, q, v, x):
        return -self.kp * (q - self.r) - self.kd * v - self.ki * x


def _pi_closed_form(ctrl, m, q0, v0, t):
    """X = [q, v, x]: Ẋ = A X + b, solved with the augmented matrix exponential."""
    kp, kd, ki, r = ctrl.kp, ctrl.kd, ctrl.ki, ctrl.r
    M = np.zeros((4, 4))
    M[:3, :3] = [[0.0, 1.0, 0.0], [-kp / m, -kd / m, -ki / m], [1.0, 0.0, 0.0]]
    M[:3, 3] = [0.0, kp * r / m, -r]
    return np.array([(expm(s * M) @ [q0, v0, 0.0, 1.0])[:3] for s in t])


@pytest.mark.parametrize("method", ["rkmk4", "DOP853"])
def test_dynamic_controller_pi_closed_form(method):
    m, ctrl = 2.0, PI()
    q0 = np.array([[0.0], [-1.0]])  # a batch of two initial positions
    v0 = np.array([[0.5], [0.0]])
    kw = {"dt": 0.01} if method == "rkmk4" else {"dt": 0.1, "rtol": 1e-11, "atol": 1e-12}
    res = simulate(point_mass(m, dim=1), q0, v0, 6.0, controller=ctrl, method=method, **kw)
    assert res.controller_state.shape == (len(res.t), 2, 1)
    for b in range(2):
        X = _pi_closed_form(ctrl, m, q0[b, 0], v0[b, 0], res.t)
        np.testing.assert_allclose(res.q[:, b, 0], X[:, 0], atol=1e-8)  # measured ≤ 3e-9 (rkmk4)
        np.testing.assert_allclose(res.v[:, b, 0], X[:, 1], atol=1e-8)
        np.testing.assert_allclose(res.controller_state[:, b, 0], X[:, 2], atol=1e-8)
    # the recorded torque is the controller's torque at the recorded states
    expected = ctrl.torque(res.t[:, None, None], res.q, res.v, res.controller_state)
    np.testing.assert_allclose(res.tau, expected, atol=1e-14)
    # stable closed loop (Routh: m s³ + k_d s² + k_p s + k_i, k_d k_p > m k_i): q -> r
    assert abs(res.q[-1, 0, 0] - 1.0) < 0.1  # slowest pole -0.40 ± 1.13i
    assert simulate(point_mass(), np.zeros(3), np.zeros(3), 0.1, dt=0.05).controller_state is None


def test_dynamic_controller_protocol_errors():
    class NoTorque:
        state0 = np.zeros(2)

        def state_rate(self, t, q, v, x):
            return x

    with pytest.raises(TypeError, match="callable `torque`"):
        simulate(point_mass(), np.zeros(3), np.zeros(3), 0.1, controller=NoTorque())
    bad = PI()
    bad.state0 = np.zeros((1, 1))
    with pytest.raises(DimensionError, match="`controller.state0` to be 1-D"):
        simulate(point_mass(dim=1), [0.0], [0.0], 0.1, controller=bad)
    bad = PI()
    bad.state_rate = lambda t, q, v, x: np.zeros(3)
    with pytest.raises(
        DimensionError, match=r"`controller.state_rate\(t, q, v, x\)` to have shape"
    ):
        simulate(point_mass(dim=1), [0.0], [0.0], 0.1, controller=bad)


def test_adaptive_rigid_body_stays_on_the_group(rng):
    """DOP853 over 20 s of a fast tumbling body (the chart is re-centred many times): rotations
    orthogonal to rounding, energy and spatial momentum conserved to the tolerance."""
    body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
    w0 = np.array([[0.1, -0.2, 0.3], [1.0, 0.05, -3.0], [0.3, 4.0, 0.2]])
    res = simulate(
        body, SO3.random(rng, size=3), w0, 20.0, dt=0.05, method="DOP853", rtol=1e-10, atol=1e-12
    )
    assert res.method == "DOP853" and res.q.shape == (401, 3, 3, 3)
    R = res.q
    assert np.abs(R @ np.swapaxes(R, -1, -2) - np.eye(3)).max() < 1e-13
    E = body.energy(R, res.v)
    assert np.abs(E / E[0] - 1.0).max() < 1e-8
    mu = body.spatial_momentum(R, res.v)
    assert np.abs(mu - mu[0]).max() < 1e-8


@pytest.mark.parametrize("method", ADAPTIVE_METHODS)
def test_every_adaptive_method_runs(method, rng):
    """Constant body twist on SE(3): g(t) = g0 exp(t ξ) exactly."""
    body = RigidBody(SE3, np.eye(6))  # H = 1 and v ∥ ω: ad_ξᵀ H ξ = 0, so ξ stays constant
    g0, xi = SE3.random(rng), np.array([0.3, -0.2, 0.5, 0.6, -0.4, 1.0])  # v ∥ ω
    res = simulate(body, g0, xi, 2.0, dt=0.5, method=method, rtol=1e-9, atol=1e-11, t0=1.0)
    np.testing.assert_allclose(res.t, [1.0, 1.5, 2.0])
    np.testing.assert_allclose(res.q[-1], g0 @ SE3.exp(1.0 * xi), atol=1e-7)


def test_logged_signals():
    body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
    log = {
        "energy": lambda t, q, v, tau: body.kinetic_energy(v),
        "R00": lambda t, q, v, tau: q[..., 0, 0],
        "time": lambda t, q, v, tau: t,
    }
    res = simulate(body, np.eye(3), [0.0, 0.0, 1.0], 1.0, dt=0.25, log=log)
    assert set(res.signals) == {"energy", "R00", "time"}
    np.testing.assert_allclose(res.signals["time"], res.t)
    np.testing.assert_allclose(
        res.signals["R00"], np.cos(res.t), atol=1e-12
    )  # spin about z at 1 rad/s
    np.testing.assert_allclose(res.signals["energy"], 1.5)
    with pytest.raises(DimensionError, match="logged signal 'ragged'"):
        simulate(
            body,
            np.eye(3),
            np.zeros(3),
            1.0,
            dt=0.5,
            log={"ragged": lambda t, q, v, tau: np.zeros(1 + int(2 * t))},
        )


def test_save_load_round_trip(tmp_path):
    ctrl = PI()
    res = simulate(
        point_mass(2.0, dim=1),
        [[0.0], [1.0]],
        [[0.0], [0.5]],
        1.0,
        controller=ctrl,
        dt=0.1,
        method="RK45",
        log={"e": lambda t, q, v, tau: q - 1.0},
    )
    path = res.save(tmp_path / "pi")
    assert path.name == "pi.npz"
    back = SimulationResult.load(path)
    for name in ("t", "q", "v", "tau", "controller_state"):
        np.testing.assert_array_equal(getattr(back, name), getattr(res, name))
    np.testing.assert_array_equal(back.signals["e"], res.signals["e"])
    assert back.method == "RK45" and isinstance(back.method, str)
    np.savez(tmp_path / "other.npz", t=np.zeros(2))
    with pytest.raises(SimulationError, match="lacks"):
        SimulationResult.load(tmp_path / "other.npz")


def test_progress_bar(capsys):
    body = RigidBody(SO3, np.eye(3))
    simulate(body, np.eye(3), np.zeros(3), 1.0, dt=0.1, progress=True)
    assert "100%" in capsys.readouterr().err
    simulate(body, np.eye(3), np.zeros(3), 2.0, dt=1e-3)  # auto: stderr is not a terminal here
    assert capsys.readouterr().err == ""
    with pytest.raises(SimulationError, match="`progress` to be None, True or False"):
        simulate(body, np.eye(3), np.zeros(3), 1.0, progress="yes")


def test_option_errors():
    body = RigidBody(SO3, np.eye(3))
    args = (body, np.eye(3), np.zeros(3))
    assert issubclass(SimulationError, GeomechError) and issubclass(SimulationError, ValueError)
    cases = [
        ({"t_final": 0.0}, "`t_final` > t0"),
        ({"t_final": np.inf}, "`t_final` > t0"),
        ({"dt": 0.0}, "`dt` > 0"),
        ({"dt": "a"}, "to be floats"),
        ({"method": "euler"}, "`method` to be one of"),
        ({"method": 3}, "`method` to be one of"),
        ({"rtol": -1e-6}, "`rtol` > 0"),  # fixed step: the accuracy the step is checked against
        ({"on_inaccuracy": "loud"}, "`on_inaccuracy` to be one of"),
        ({"max_steps": 0}, "`max_steps` > 0"),
        ({"max_steps": 10.5}, "`max_steps` to be a positive integer"),
        ({"max_wall_time": -1.0}, "`max_wall_time` > 0"),
        ({"max_wall_time": "1 s"}, "`max_wall_time` to be a positive number"),
        ({"method": "RK45", "rtol": 0.0}, "`rtol` > 0"),
        ({"method": "RK45", "atol": -1.0}, "`atol` >= 0"),
        ({"method": "RK45", "rtol": "tight"}, "`rtol` to be a float"),
        ({"log": [lambda t, q, v, tau: t]}, "`log` to be a dict"),
        ({"log": {"x": 1.0}}, "`log` to be a dict"),
    ]
    for kwargs, match in cases:
        kw = {"t_final": 1.0, **kwargs}
        with pytest.raises(SimulationError, match=match):
            simulate(*args, **kw)


@pytest.mark.parametrize("method", ["rkmk4", "DOP853", "Radau"])
def test_divergence_raises_non_finite_error(method):
    """v̇ = v² from v(0) = 1 blows up at t = 1 (v = 1 / (1 - t))."""
    with np.errstate(all="ignore"), pytest.raises(NonFiniteError):
        simulate(
            point_mass(1.0, dim=1),
            [0.0],
            [1.0],
            2.0,
            controller=lambda t, q, v: v**2,
            dt=0.01,
            method=method,
        )
