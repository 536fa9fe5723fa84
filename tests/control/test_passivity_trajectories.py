"""V' = -s^T K_D s along simulated closed loops, for every admissible factorization.

seed 000 eq. (14) with exact parameters: V = ½ sᵀHs obeys V(t) - V(0) = -∫ sᵀK_D s dt for any
factorization with Ḣ = C + Cᵀ and Cv = C*v. The integral is taken by Simpson's rule on the
simulated samples (an independent check of the controller + integrator: it fails if the
torque, the reference acceleration or the factorization is wrong).
"""

import numpy as np
import pytest
from lyapunov_helpers import lyapunov_defect
from scipy.integrate import cumulative_simpson
from scipy.linalg import eigh

from geomech.control import SlotineLi
from geomech.multibody import robots
from geomech.multibody.algorithms.dynamics import crba
from geomech.simulation import simulate

UR5 = robots.load("ur5")
W = np.linspace(0.5, 1.2, UR5.nv)


def _arm_reference(t):
    return 0.5 * np.sin(W * t), 0.5 * W * np.cos(W * t), -0.5 * W**2 * np.sin(W * t)


@pytest.mark.filterwarnings("ignore:The connection")
@pytest.mark.parametrize(
    "name", ["levi-civita", "velocity-cross", "boltzmann-hamel", "cartan-minus"]
)
def test_multibody_arm(name):
    # UR5 from the shipped URDF; K_D scaled by the joint inertias (the wrist's is 1e-4 kg m²,
    # a uniform gain would make the closed loop stiff)
    K_D = 5.0 * np.diag(np.diag(crba(UR5, np.zeros(UR5.nv))))
    ctrl = SlotineLi(UR5, name, _arm_reference, 2.0, K_D)
    res = simulate(UR5, 0.2 * np.ones(UR5.nv), np.zeros(UR5.nv), 0.4, controller=ctrl, dt=1e-3)
    V, defect = lyapunov_defect(ctrl, res.t, res.q, res.v)
    defect = np.abs(defect).max() / V[0]  # relative to V(0)
    if name == "cartan-minus":  # C v != C* v: not a factorization, the identity must fail
        assert defect > 1e-4  # measured 2e-3
        return
    assert defect < 1e-6  # measured 4e-8
    # s -> 0 exponentially: sᵀK_D s >= 2 λ(t) V with λ(t) the least generalized eigenvalue of
    # (K_D, H(q(t))) (scipy's eigh), so V(t) <= V(0) exp(-2 ∫ λ) (Grönwall)
    lam = np.array([eigh(K_D, H, eigvals_only=True)[0] for H in crba(UR5, res.q)])
    rate = 2.0 * cumulative_simpson(lam, x=res.t, initial=0.0)
    assert rate[-1] > 2.0  # not vacuous: a decay by e^-2 at least (measured bound e^-2.19)
    assert np.all(np.log(V / V[0]) <= -rate + 1e-6)


_EPS = np.zeros((3, 3, 3))
_EPS[0, 1, 2] = _EPS[1, 2, 0] = _EPS[2, 0, 1] = 1.0
_EPS[0, 2, 1] = _EPS[2, 1, 0] = _EPS[1, 0, 2] = -1.0


def _point_mass_reference(t):
    return (
        np.array([t + np.sin(t), np.cos(t), 0.5 * t]),
        np.array([1 + np.cos(t), -np.sin(t), 0.5]),
        np.array([-np.sin(t), -np.cos(t), 0.0]),
    )


@pytest.mark.parametrize("beta", ["levi-civita", -5.0, "state-dependent"])
def test_point_mass_every_admissible_factorization(beta):
    # seed 000 §IV-A2: C = β(q)(v×) is admissible for any β (skew, Cv = 0); with exact mass
    # H = m1 is constant and V' = -sᵀK_D s = -(2k/m) V, so V(t) = V(0) exp(-2kt/m) exactly.
    from geomech.geometry import AffineConnection, LeviCivitaConnection
    from geomech.geometry.examples import point_mass

    P, k = point_mass(2.0), 1.5
    if beta == "levi-civita":
        conn = LeviCivitaConnection(P)
    elif beta == "state-dependent":  # Γ_ijk = β(q) ε_ijk with β(q) = 3 sin(q_x) - 2
        conn = AffineConnection(
            P, lambda q: (3 * np.sin(q[..., 0]) - 2)[..., None, None, None] * _EPS
        )
    else:
        conn = AffineConnection(P, beta * _EPS)
    ctrl = SlotineLi(P, conn, _point_mass_reference, 1.0, k, require_passivity=True)
    log = {"V": lambda t, q, v, tau: ctrl.lyapunov(t, q, v)}
    res = simulate(
        P,
        np.zeros(3),
        np.array([0.0, 1.0, -1.0]),
        4.0,
        controller=ctrl,
        dt=1e-2,
        method="DOP853",
        rtol=1e-11,
        atol=1e-13,
        log=log,
    )
    V = res.signals["V"]
    np.testing.assert_allclose(V, V[0] * np.exp(-2 * k * res.t / 2.0), rtol=1e-7)
