"""SlotineLi on a MultibodyModel: equals slotine_li_torques; passivity along the flow."""

import numpy as np
import pytest

from geomech.control import SlotineLi
from geomech.errors import GeomechError
from geomech.multibody import slotine_li_torques
from geomech.multibody.algorithms.dynamics import aba
from geomech.multibody.io.robots import serial_chain

MODEL = serial_chain(4, np.random.default_rng(3))
RNG = np.random.default_rng(7)
Q_D, V_D, A_D = (RNG.standard_normal(MODEL.nv) for _ in range(3))


def reference(t):
    return Q_D + t * V_D + 0.5 * t**2 * A_D, V_D + t * A_D, A_D


@pytest.mark.filterwarnings("ignore:The connection")
@pytest.mark.parametrize("name", ["levi-civita", "cartan-minus", "cartan-zero", "velocity-cross"])
def test_torque_equals_slotine_li_torques(name):
    L, K = np.diag([1.0, 2.0, 0.5, 1.5]), 3.0 * np.eye(4)
    c = SlotineLi(MODEL, name, reference, L, K)
    q, v = RNG.standard_normal(4), RNG.standard_normal(4)
    t = 0.3
    q_d, v_d, a_d = reference(t)
    v_r = v_d - L @ (q - q_d)  # hand-written corrected law, seed 000 §3.2
    a_r = a_d - L @ (v - v_d)
    expected = slotine_li_torques(MODEL, q, v, v_r, a_r, connection=name) - K @ (v - v_r)
    np.testing.assert_allclose(c(t, q, v), expected, atol=1e-12)


@pytest.mark.parametrize("name", ["levi-civita", "velocity-cross", "boltzmann-hamel"])
def test_lyapunov_derivative_along_closed_loop(name):
    # V' = -s^T K_D s (seed 000 eq. 14 with exact parameters), by central differences
    K = 2.0 * np.eye(4)
    c = SlotineLi(MODEL, name, reference, 1.0, K)
    q, v, t, h = RNG.standard_normal(4), RNG.standard_normal(4), 0.2, 1e-5

    def state(dt):  # second-order Taylor step of the closed loop
        a = aba(MODEL, q, v, c(t, q, v))
        return t + dt, q + v * dt + 0.5 * a * dt**2, v + a * dt

    def V(dt):
        return c.lyapunov(*state(dt))

    s = c.signals(t, q, v)[-1]
    Vdot = (V(h) - V(-h)) / (2 * h)
    assert Vdot == pytest.approx(-s @ K @ s, rel=1e-6, abs=1e-8)


def test_multibody_validation():
    with pytest.raises(GeomechError, match="positive definite"):
        SlotineLi(MODEL, "levi-civita", reference, 1.0, -np.eye(4))
    with pytest.raises(GeomechError, match="Adaptation"):
        SlotineLi(MODEL, "levi-civita", reference, 1.0, 1.0, adaptation="gradient")
    c = SlotineLi(MODEL, "levi-civita", reference, 1.0, 1.0)
    with pytest.raises(GeomechError, match="`v` to have shape"):
        c(0.0, np.zeros(4), np.zeros(3))


@pytest.mark.parametrize("name", ["cartan-minus", "cartan-zero", "cartan-plus"])
def test_inadmissible_body_connections_warn_or_raise(name):
    # the Cartan-Schouten body connections give C v != C* v on this arm (measured 0.41)
    with pytest.warns(UserWarning, match="passivity guarantee"):
        SlotineLi(MODEL, name, reference, 1.0, 1.0)
    with pytest.raises(GeomechError, match="passivity guarantee"):
        SlotineLi(MODEL, name, reference, 1.0, 1.0, require_passivity=True)
