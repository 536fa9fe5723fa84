"""The torsion experiment of seed 000 Sec. IV-A2 (Figs. 4–7)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from scipy.integrate import solve_ivp

from ..geometry.connection import AffineConnection
from ..geometry.examples import point_mass
from ..geometry.levi_civita import LeviCivitaConnection
from .passivity import SlotineLi

__all__ = ["torsion_experiment"]

_EPS = np.zeros((3, 3, 3))
_EPS[0, 1, 2] = _EPS[1, 2, 0] = _EPS[2, 0, 1] = 1.0
_EPS[0, 2, 1] = _EPS[2, 1, 0] = _EPS[1, 0, 2] = -1.0


def _run(system, controller, q0, v0, t_eval):
    H_inv = np.linalg.inv(system.mass_matrix(q0))  # constant for the point mass

    def rhs(t, x):
        q, v = x[:3], x[3:]
        return np.concatenate([v, H_inv @ controller(t, q, v)])  # H qdd = tau, C* = 0, g = 0

    sol = solve_ivp(rhs, (t_eval[0], t_eval[-1]), np.concatenate([q0, v0]), method="DOP853",
                    t_eval=t_eval, rtol=1e-11, atol=1e-12)
    q, v = sol.y[:3].T, sol.y[3:].T
    tau = np.array([controller(t, a, b) for t, a, b in zip(sol.t, q, v, strict=True)])
    V = np.array([controller.lyapunov(t, a, b) for t, a, b in zip(sol.t, q, v, strict=True)])
    q_d = np.array([controller.reference(t)[0] for t in sol.t])
    return SimpleNamespace(t=sol.t, q=q, v=v, tau=tau, V=V, q_d=q_d)


def torsion_experiment(beta=-5.0, t_final=20.0, mass=1.0, mass_estimate=0.9, Lambda=1.0,
                       K_D=1.0, rate=1000.0):
    r"""Point-mass Slotine–Li tracking with :math:`C = 0` and :math:`C = \beta(v\times)`.

    Fixture of seed 000 §3.3: :math:`q_d = [t + \sin t, 0, 0]`, :math:`g = 0`,
    :math:`q(0) = 0`, :math:`\dot q(0) = [0, 1, 0]`, :math:`\hat C = C` taken literally
    (:math:`\Gamma_{ijk} = \beta\epsilon_{ijk}`), DOP853 (rtol 1e-11, atol 1e-12) sampled at
    ``rate`` Hz.

    Parameters
    ----------
    beta : float
        Torsion coefficient of the second factorization.
    t_final : float
        Horizon in seconds.
    mass, mass_estimate : float
        True and estimated mass.
    Lambda, K_D : float
        Scalar gains.
    rate : float
        Sampling rate of the output.

    Returns
    -------
    SimpleNamespace
        ``torsion_free`` and ``torsion`` results, each with ``t, q, v, tau, V, q_d``.

    References
    ----------
    seed 000 Sec. IV-A2, Figs. 4–7.

    Examples
    --------
    >>> from geomech.control import torsion_experiment
    >>> r = torsion_experiment(t_final=0.5)
    >>> float(abs(r.torsion_free.q[:, 2]).max())
    0.0
    """
    true = point_mass(mass)
    est = point_mass(mass_estimate)
    t_eval = np.linspace(0.0, t_final, int(round(t_final * rate)) + 1)

    def reference(t):
        return (np.array([t + np.sin(t), 0.0, 0.0]), np.array([1.0 + np.cos(t), 0.0, 0.0]),
                np.array([-np.sin(t), 0.0, 0.0]))

    q0, v0 = np.zeros(3), np.array([0.0, 1.0, 0.0])
    out = {}
    for key, conn in (("torsion_free", LeviCivitaConnection(true)),
                      ("torsion", AffineConnection(true, beta * _EPS))):
        ctrl = SlotineLi(true, conn, reference, Lambda, K_D, estimate=est)
        out[key] = _run(true, ctrl, q0, v0, t_eval)
    return SimpleNamespace(**out, beta=beta)
