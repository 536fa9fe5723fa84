"""Slotine–Li control of closed models (issue 15 item 6): the four-bar and a geared chain.

The error is taken in the independent coordinates ``y`` (the independent joints' angles, with
``v = dy/dt``): :math:`v_r = v_d - \\Lambda(y - y_d)`, :math:`a_r = a_d - \\Lambda(v - v_d)`,
:math:`s = v - v_r`, and eq. (13) reads :math:`\\tau = \\bar H a_r + \\bar C v_r + \\bar g -
K_D s` with the closed model's :math:`\\bar H = G^\\top H G` and
:math:`\\bar C = G^\\top C G + G^\\top H\\dot G` (both checked against Pinocchio in
``tests/multibody/test_loops_*``).

References here are independent of the controller: the torque is assembled from the public
``crba``/``coriolis_matrix``/``gravity_forces``; the closed loops are integrated by scipy's
DOP853 in ``y`` (``q`` completed by ``model.project``), and the Lyapunov identities
:math:`V(t) + \\int_0^t s^\\top K_D s = V(0)` (and with :math:`\\tfrac12\\tilde\\pi^\\top
\\Gamma^{-1}\\tilde\\pi` for adaptation) are checked with V computed here from ``crba``.
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from geomech.control import AdaptiveSlotineLi, SlotineLi
from geomech.multibody import aba, coriolis_matrix, crba, gravity_forces
from geomech.multibody.io.examples import load_example
from geomech.multibody.io.robots import random_inertia
from geomech.spatial import dynamic_parameters

ADMISSIBLE = ["levi-civita", "velocity-cross", "boltzmann-hamel"]
MODELS = ["four_bar", "geared_chain"]


class ClosedReference:
    """y_d(t) = y0 + A sin(ω t) in the independent coordinates, q_d completed by project."""

    def __init__(self, model):
        self.model = model
        self.iy = np.array([model.q_slice(n).start for n in model.independent_joints])
        self.y0 = model.neutral()[self.iy]
        n = model.nv
        self.A, self.w = 0.2 * np.ones(n), 1.0 + 0.5 * np.arange(n)
        self._q = model.neutral()

    def closed(self, y):
        q = self._q.copy()
        q[self.iy] = y
        self._q = self.model.project(q)  # Newton on φ keeping y (the guess: the last one)
        return self._q

    def __call__(self, t):
        y = self.y0 + self.A * np.sin(self.w * t)
        v = self.A * self.w * np.cos(self.w * t)
        a = -self.A * self.w**2 * np.sin(self.w * t)
        return self.closed(y), v, a


def _setup(name, connection):
    model = load_example(name)
    ref = ClosedReference(model)
    Lambda = 2.0 * np.eye(model.nv)
    K_D = 3.0 * crba(model, ref(0.0)[0])  # K_D ∝ H̄: a non-stiff loop
    return model, ref, Lambda, K_D


@pytest.mark.parametrize("connection", ADMISSIBLE)
@pytest.mark.parametrize("name", MODELS)
def test_torque_is_eq_13_in_the_independent_coordinates(name, connection):
    model, ref, Lambda, K_D = _setup(name, connection)
    ctrl = SlotineLi(model, connection, ref, Lambda, K_D, require_passivity=True)
    rng = np.random.default_rng(3)
    for t in (0.0, 0.7):
        q_d, v_d, a_d = ref(t)
        y = ref.y0 + 0.1 * rng.standard_normal(model.nv)
        q, v = ref.closed(y), rng.standard_normal(model.nv)
        v_r = v_d - Lambda @ (y - q_d[ref.iy])
        a_r = a_d - Lambda @ (v - v_d)
        s = v - v_r
        tau = (
            crba(model, q) @ a_r
            + coriolis_matrix(model, q, v, connection) @ v_r
            + gravity_forces(model, q)
            - K_D @ s
        )
        np.testing.assert_allclose(ctrl(t, q, v), tau, rtol=1e-10, atol=1e-10)


def _closed_loop(model, ref, ctrl, t_final, x0=None):
    """DOP853 on (y, v, x, J) with J' = sᵀK_D s; q = project(y)."""
    n, K_D = model.nv, ctrl.K_D
    nx = 0 if x0 is None else x0.size

    def unpack(z):
        y, v, x = z[:n], z[n : 2 * n], z[2 * n : 2 * n + nx]
        return ref.closed(y), v, x

    def rhs(t, z):
        q, v, x = unpack(z)
        if nx:
            tau, x_dot = ctrl.torque(t, q, v, x), ctrl.state_rate(t, q, v, x)
        else:
            tau, x_dot = ctrl(t, q, v), np.zeros(0)
        s = ctrl.signals(t, q, v)[-1]
        return np.concatenate([v, aba(model, q, v, tau), x_dot, [s @ K_D @ s]])

    y0 = ref.y0 + 0.15  # off the reference, at rest
    z0 = np.concatenate([y0, np.zeros(n), np.zeros(0) if x0 is None else x0, [0.0]])
    sol = solve_ivp(
        rhs, (0.0, t_final), z0, method="DOP853", rtol=1e-10, atol=1e-10, dense_output=True
    )
    assert sol.success
    return sol, unpack


@pytest.mark.parametrize("connection", ["levi-civita", "boltzmann-hamel"])
@pytest.mark.parametrize("name", MODELS)
def test_closed_loop_lyapunov_identity(name, connection):
    model, ref, Lambda, K_D = _setup(name, connection)
    ctrl = SlotineLi(model, connection, ref, Lambda, K_D, require_passivity=True)
    sol, unpack = _closed_loop(model, ref, ctrl, 1.5)
    W = []
    for t in np.linspace(0.0, 1.5, 31):
        z = sol.sol(t)
        q, v, _ = unpack(z)
        q_d, v_d, _ = ref(t)
        s = v - (v_d - Lambda @ (q[ref.iy] - q_d[ref.iy]))
        W.append((0.5 * s @ crba(model, q) @ s, z[-1]))
    V, J = np.array(W).T
    assert np.abs(V + J - V[0]).max() < 1e-7 * V[0]  # V(t) - V(0) = -∫ sᵀ K_D s
    assert V[-1] < 0.1 * V[0]
    np.testing.assert_allclose(model.constraint_residual(unpack(sol.sol(1.5))[0]), 0.0, atol=1e-10)


@pytest.mark.parametrize("name", MODELS)
def test_adaptive_closed_loop_lyapunov_identity(name):
    model, ref, Lambda, K_D = _setup(name, "boltzmann-hamel")
    estimate = model.with_inertias(random_inertia(np.random.default_rng(5), model.n_bodies))
    Gamma = 0.5
    ctrl = AdaptiveSlotineLi(
        model, "boltzmann-hamel", ref, Lambda, K_D, estimate=estimate, adaptation=Gamma
    )
    pi = dynamic_parameters(model.inertias).reshape(-1)
    sol, unpack = _closed_loop(model, ref, ctrl, 0.5, x0=ctrl.state0)
    W = []
    for t in np.linspace(0.0, 0.5, 11):
        z = sol.sol(t)
        q, v, x = unpack(z)
        q_d, v_d, _ = ref(t)
        s = v - (v_d - Lambda @ (q[ref.iy] - q_d[ref.iy]))
        W.append((0.5 * s @ crba(model, q) @ s + 0.5 * (x - pi) @ (x - pi) / Gamma, z[-1]))
    W, J = np.array(W).T
    assert np.abs(W + J - W[0]).max() < 1e-7 * W[0]  # W(t) - W(0) = -∫ sᵀ K_D s
