"""Adaptive Slotine-Li control of multibody models (seed 000 Sec. IV-A1, eqs. 13-14).

The augmented closed loop (q, v, pi_hat) is integrated here with scipy's DOP853 and the
articulated-body algorithm (independent of geomech.simulate), together with the dissipated
energy J = int s^T K_D s dt. Checked along the trajectories, for every admissible body
connection (metric compatible and correct dynamics, as SlotineLi's own check decides):

* V' = -s^T K_D s with V = 1/2 s^T H s + 1/2 pi~^T Gamma^-1 pi~, by central differences of V
  over the dense output (measured relative error <= 5.3e-7, set by the difference step), and
  V + J = V(0) to the integration tolerance (measured <= 5e-11 relative);
* s -> 0 and q - q_d -> 0 (no claim on the parameters: no persistent excitation);
* a negative control: with the inadmissible "cartan-minus" the identity fails (measured 3.6e-2).
"""

import copy

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from geomech.control import SlotineLi
from geomech.control.passivity import AdaptiveSlotineLi
from geomech.errors import ConnectionSpecError, GeomechError
from geomech.geometry import LeviCivitaConnection
from geomech.geometry.examples import point_mass, rigid_body_se3
from geomech.multibody import robots
from geomech.multibody.algorithms.coriolis import slotine_li_torques
from geomech.multibody.algorithms.dynamics import aba, crba
from geomech.multibody.connections.body import body_connection_names
from geomech.multibody.io.robots import random_inertia
from geomech.spatial import dynamic_parameters, inertia_from_dynamic_parameters

CHAIN = robots.serial_chain(3, np.random.default_rng(3))  # random 3-D axes: twists are 3-D
PENDULUM = robots.double_pendulum(radius=0.1)


def make_reference(n):
    w, amp = np.linspace(0.7, 1.5, n), np.linspace(0.5, 0.3, n)

    def reference(t):
        return amp * np.sin(w * t), amp * w * np.cos(w * t), -amp * w**2 * np.sin(w * t)

    return reference


def admissible(model):
    """Body connections SlotineLi accepts with require_passivity=True."""
    ref = make_reference(model.nv)
    names = []
    for name in body_connection_names():
        try:
            SlotineLi(model, name, ref, 1.0, 1.0, require_passivity=True)
        except GeomechError:
            continue
        names.append(name)
    return names


def controller(model, connection, gamma=0.2, seed=5):
    ref = make_reference(model.nv)
    K_D = 3.0 * crba(model, ref(0.0)[0])  # gains scaled by H: a non-stiff closed loop
    estimate = model.with_inertias(random_inertia(np.random.default_rng(seed), model.n_bodies))
    return AdaptiveSlotineLi(model, connection, ref, 2.0, K_D, estimate=estimate, adaptation=gamma)


def closed_loop(ctrl, t_final):
    """Integrate (q, v, pi_hat, J) with DOP853; return the dense solution."""
    model, n = ctrl.system, ctrl.system.nv
    K_D = ctrl.K_D

    def rhs(t, y):
        q, v, x = y[:n], y[n : 2 * n], y[2 * n : -1]
        tau = ctrl.torque(t, q, v, x)
        s = ctrl.signals(t, q, v)[-1]
        return np.concatenate(
            [v, aba(model, q, v, tau), ctrl.state_rate(t, q, v, x), [s @ K_D @ s]]
        )

    q0 = ctrl.reference(0.0)[0] + 0.3  # start off the reference, at rest
    y0 = np.concatenate([q0, np.zeros(n), ctrl.state0, [0.0]])
    sol = solve_ivp(
        rhs, (0.0, t_final), y0, method="DOP853", rtol=1e-10, atol=1e-10, dense_output=True
    )
    assert sol.success
    return sol


def unpack(ctrl, y):
    n = ctrl.system.nv
    return y[:n], y[n : 2 * n], y[2 * n : -1], y[-1]


def lyapunov_checks(ctrl, sol, t_final, h=1e-4):
    """(relative error of V' = -s^T K_D s by central differences, drift of V + J)."""

    def V(t):
        q, v, x, _ = unpack(ctrl, sol.sol(t))
        return ctrl.lyapunov(t, q, v, x)

    ts = np.linspace(0.25, t_final - 0.25, 40)
    fd = np.array([(V(t + h) - V(t - h)) / (2 * h) for t in ts])
    formula = []
    for t in ts:
        q, v, _, _ = unpack(ctrl, sol.sol(t))
        s = ctrl.signals(t, q, v)[-1]
        formula.append(-s @ ctrl.K_D @ s)
    formula = np.array(formula)
    rel = float(np.abs(fd - formula).max() / np.abs(formula).max())
    energy = np.array([V(t) + unpack(ctrl, sol.sol(t))[3] for t in np.linspace(0, t_final, 60)])
    drift = float(np.abs(energy - energy[0]).max() / energy[0])
    return rel, drift


T_CHAIN = 4.0
#: The documented admissible body connections; SlotineLi's own check agrees (the test below),
#: which runs in that test rather than at collection (where every pytest-xdist worker would
#: compile the check's kernels).
ADMISSIBLE = ("levi-civita", "velocity-cross", "boltzmann-hamel")


def test_admissible_body_connections_are_the_documented_ones():
    assert admissible(CHAIN) == list(ADMISSIBLE)
    assert admissible(PENDULUM) == list(ADMISSIBLE)


@pytest.mark.parametrize("connection", ADMISSIBLE)
def test_lyapunov_identity_along_adaptive_closed_loop(connection):
    ctrl = controller(CHAIN, connection)
    sol = closed_loop(ctrl, T_CHAIN)
    rel, drift = lyapunov_checks(ctrl, sol, T_CHAIN)
    assert rel < 1e-5  # measured 5.2e-7 (central-difference truncation, h = 1e-4)
    assert drift < 1e-9  # measured 2e-12: V + int s^T K_D s is conserved
    # s -> 0 and the tracking error with it; the estimate moved but need not converge
    q0, v0, x0, _ = unpack(ctrl, sol.sol(0.0))
    qT, vT, xT, _ = unpack(ctrl, sol.sol(T_CHAIN))
    s0 = ctrl.signals(0.0, q0, v0)[-1]
    sT = ctrl.signals(T_CHAIN, qT, vT)[-1]
    assert np.linalg.norm(sT) < 0.2 * np.linalg.norm(s0)
    assert np.linalg.norm(qT - ctrl.reference(T_CHAIN)[0]) < 0.1 * np.linalg.norm(
        q0 - ctrl.reference(0.0)[0]
    )
    assert np.linalg.norm(xT - x0) > 1e-3


def test_double_pendulum_tracks_with_wrong_parameters():
    ctrl = controller(PENDULUM, "levi-civita", gamma=1.0)
    t_final = 8.0
    sol = closed_loop(ctrl, t_final)
    rel, drift = lyapunov_checks(ctrl, sol, t_final)
    assert rel < 1e-5 and drift < 1e-9
    # s -> 0 is asymptotic (Barbalat), not exponential, once the parameters adapt: check that
    # the dissipation over the second half is small (measured 3 % of the first half's) and
    # that the errors have shrunk (measured |s| <= 0.05, |q - q_d| <= 0.02 after t = 6)
    J = [unpack(ctrl, sol.sol(t))[3] for t in (0.0, t_final / 2, t_final)]
    assert J[2] - J[1] < 0.1 * (J[1] - J[0])
    s_norm, e_norm = [], []
    for t in np.linspace(0.0, t_final, 81):
        q, v, _, _ = unpack(ctrl, sol.sol(t))
        s_norm.append(np.linalg.norm(ctrl.signals(t, q, v)[-1]))
        e_norm.append(np.linalg.norm(q - ctrl.reference(t)[0]))
    s_norm, e_norm = np.array(s_norm), np.array(e_norm)
    assert s_norm[-20:].max() < 0.25 * s_norm[0]
    assert e_norm[-20:].max() < 0.1 * e_norm[0]
    # s is square integrable: int s^T K_D s <= V(0) (Barbalat's premise)
    q0, v0, x0, _ = unpack(ctrl, sol.sol(0.0))
    assert unpack(ctrl, sol.sol(t_final))[3] <= ctrl.lyapunov(0.0, q0, v0, x0)
    # without persistent excitation the parameters stay wrong: only s -> 0 is claimed
    assert np.linalg.norm(unpack(ctrl, sol.sol(t_final))[2] - ctrl.parameters) > 0.1


@pytest.mark.filterwarnings("ignore:The connection")
def test_identity_fails_for_an_inadmissible_connection():
    # cartan-minus is metric compatible but has the wrong geodesics (C v != C* v)
    ctrl = controller(PENDULUM, "cartan-minus")
    sol = closed_loop(ctrl, 1.5)
    rel, _ = lyapunov_checks(ctrl, sol, 1.5)
    assert rel > 1e-2


# ---- the controller's outputs against independent formulas --------------------------------


STATE = (0.4, np.array([0.3, -0.7, 0.5]), np.array([1.0, 0.2, -0.6]))


@pytest.mark.parametrize("connection", body_connection_names())
@pytest.mark.filterwarnings("ignore:The connection")
def test_torque_at_true_and_estimated_parameters(connection):
    ctrl = controller(CHAIN, connection)
    t, q, v = STATE
    q_d, v_d, a_d = ctrl.reference(t)
    v_r = v_d - ctrl.Lambda @ (q - q_d)  # corrected sign, seed 000 §3.2
    a_r = a_d - ctrl.Lambda @ (v - v_d)
    s = v - v_r
    expected = slotine_li_torques(CHAIN, q, v, v_r, a_r, connection) - ctrl.K_D @ s
    np.testing.assert_allclose(ctrl.torque(t, q, v, ctrl.parameters), expected, atol=1e-12)
    # at the initial estimate: the fixed-parameter law with the estimated model
    fixed = SlotineLi(
        CHAIN, connection, ctrl.reference, ctrl.Lambda, ctrl.K_D, estimate=ctrl.estimate
    )
    np.testing.assert_allclose(ctrl(t, q, v), fixed(t, q, v), atol=1e-12)


def test_state_rate_is_minus_gamma_times_gradient_of_power():
    # -Gamma Y^T s = -Gamma d/dpi [s^T tau(pi)], tau(pi) = slotine_li_torques of the model with
    # parameters pi (linear in pi, so central differences are exact up to rounding)
    G = np.diag(np.linspace(0.5, 2.0, 30))
    ref = make_reference(3)
    ctrl = AdaptiveSlotineLi(CHAIN, "boltzmann-hamel", ref, 2.0, 1.5, adaptation=G)
    t, q, v = STATE
    _, _, v_r, a_r, s = ctrl.signals(t, q, v)
    pi, h = ctrl.parameters, 1e-5
    grad = np.zeros(30)
    for k in range(30):
        taus = []
        for sign in (1.0, -1.0):
            p = pi.copy()
            p[k] += sign * h
            model = CHAIN.with_inertias(inertia_from_dynamic_parameters(p.reshape(3, 10)))
            taus.append(slotine_li_torques(model, q, v, v_r, a_r, "boltzmann-hamel"))
        grad[k] = s @ (taus[0] - taus[1]) / (2 * h)
    np.testing.assert_allclose(
        ctrl.state_rate(t, q, v, ctrl.state0), -G @ grad, rtol=1e-7, atol=1e-9
    )


def test_lyapunov_with_and_without_the_parameter_term():
    G = np.diag(np.linspace(0.5, 2.0, 30))
    ctrl = AdaptiveSlotineLi(CHAIN, "levi-civita", make_reference(3), 1.0, 1.0, adaptation=G)
    t, q, v = STATE
    s = ctrl.signals(t, q, v)[-1]
    kinetic = 0.5 * s @ crba(CHAIN, q) @ s
    assert ctrl.lyapunov(t, q, v) == pytest.approx(kinetic, rel=1e-13)
    x = dynamic_parameters(random_inertia(np.random.default_rng(2), 3)).reshape(-1)
    err = x - dynamic_parameters(CHAIN.inertias).reshape(-1)
    expected = kinetic + 0.5 * err @ np.linalg.solve(G, err)
    assert ctrl.lyapunov(t, q, v, x) == pytest.approx(expected, rel=1e-13)


# ---- construction, protocol and validation ----------------------------------------------


def test_slotine_li_dispatches_to_the_dynamic_controller():
    ref = make_reference(3)
    fixed = SlotineLi(CHAIN, "levi-civita", ref, 1.0, 1.0)
    assert type(fixed) is SlotineLi
    assert not hasattr(fixed, "state_rate") and not hasattr(fixed, "state0")
    adaptive = SlotineLi(CHAIN, "levi-civita", ref, 1.0, 1.0, adaptation=0.5)
    assert isinstance(adaptive, AdaptiveSlotineLi) and isinstance(adaptive, SlotineLi)
    assert adaptive.state0.shape == (30,)
    np.testing.assert_allclose(adaptive.Gamma, 0.5 * np.eye(30))
    np.testing.assert_array_equal(adaptive.state0, adaptive.parameters)  # default estimate
    keyword = SlotineLi(CHAIN, "levi-civita", ref, 1.0, 1.0, adaptation=0.5)
    assert isinstance(keyword, AdaptiveSlotineLi)
    with pytest.raises(TypeError):  # one signature: estimate, adaptation, ... are keyword only
        SlotineLi(CHAIN, "levi-civita", ref, 1.0, 1.0, None, 0.5)
    clone = copy.deepcopy(adaptive)
    np.testing.assert_allclose(clone(*STATE), adaptive(*STATE))


def test_validation():
    ref = make_reference(3)

    def make(**kw):
        args = {"adaptation": 1.0} | kw
        return AdaptiveSlotineLi(
            CHAIN,
            kw.pop("connection", "levi-civita"),
            ref,
            1.0,
            1.0,
            **{k: a for k, a in args.items() if k != "connection"},
        )

    with pytest.raises(GeomechError, match="positive definite"):
        make(adaptation=-1.0)
    with pytest.raises(GeomechError, match="symmetric"):
        make(adaptation=np.eye(30) + np.triu(np.ones((30, 30)), 1))
    with pytest.raises(GeomechError, match=r"\(30, 30\)"):
        make(adaptation=np.eye(20))
    with pytest.raises(GeomechError, match="finite"):
        make(adaptation=np.nan)
    with pytest.raises(GeomechError, match="Adaptation gain"):
        make(adaptation="gradient")
    with pytest.raises(GeomechError, match="must be given"):
        make(adaptation=None)
    with pytest.raises(GeomechError, match="positive definite"):
        AdaptiveSlotineLi(CHAIN, "levi-civita", ref, 1.0, -np.eye(3), adaptation=1.0)
    # the estimate may differ in its inertias only
    other = robots.serial_chain(3, np.random.default_rng(4))
    with pytest.raises(GeomechError, match="inertias only"):
        make(estimate=other)
    with pytest.raises(GeomechError, match="same dimension"):
        make(estimate=PENDULUM)
    # a connection with fixed coefficients has no regressor
    fixed = LeviCivitaConnection(rigid_body_se3(CHAIN.inertias[0]))
    with pytest.raises(ConnectionSpecError, match="not linear"):
        make(connection={CHAIN.body_names[0]: fixed})
    # adaptation needs a multibody regressor
    P = point_mass(1.0)
    with pytest.raises(GeomechError):
        SlotineLi(P, LeviCivitaConnection(P), make_reference(3), 1.0, 1.0, adaptation=1.0)
    with pytest.raises(GeomechError, match="MultibodyModel"):
        AdaptiveSlotineLi(P, LeviCivitaConnection(P), make_reference(3), 1.0, 1.0, adaptation=1.0)
    # shapes of the state
    ctrl = make()
    t, q, v = STATE
    for call in (ctrl.torque, ctrl.state_rate, ctrl.lyapunov):
        with pytest.raises(GeomechError, match="`x` to have shape"):
            call(t, q, v, np.zeros(29))
    with pytest.raises(GeomechError, match="`v` to have shape"):
        ctrl.torque(t, q, np.zeros(2), ctrl.state0)
