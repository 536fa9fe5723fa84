"""The torsion experiment of seed 000 Sec. IV-A2 (Figs. 4–7)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..geometry.connection import AffineConnection
from ..geometry.examples import point_mass
from ..geometry.levi_civita import LeviCivitaConnection
from ..simulation import simulate
from .passivity import SlotineLi

__all__ = ["torsion_experiment"]

_EPS = np.zeros((3, 3, 3))
_EPS[0, 1, 2] = _EPS[1, 2, 0] = _EPS[2, 0, 1] = 1.0
_EPS[0, 2, 1] = _EPS[2, 1, 0] = _EPS[1, 0, 2] = -1.0


def torsion_experiment(
    beta=-5.0,
    t_final=20.0,
    mass=1.0,
    mass_estimate=0.9,
    Lambda=1.0,
    K_D=1.0,
    rate=1000.0,
    *,
    progress=None,
):
    r"""Point-mass Slotine–Li tracking with :math:`C = 0` and :math:`C = \beta(v\times)`.

    Fixture of seed 000 §3.3: :math:`q_d = [t + \sin t, 0, 0]`, :math:`g = 0`,
    :math:`q(0) = 0`, :math:`\dot q(0) = [0, 1, 0]`, :math:`\hat C = C` taken literally
    (:math:`\Gamma_{ijk} = \beta\epsilon_{ijk}`, so :math:`C = \beta(v\times)`), the law

    .. math:: \tau = \hat m\,\ddot q_r + \hat C(\dot q)\,\dot q_r - K_D s, \qquad
              \dot q_r = \dot q_d - \Lambda(q - q_d)

    (eq. 13 with the corrected sign of :math:`\dot q_r`), simulated with
    :func:`geomech.simulate` (DOP853, rtol 1e-11, atol 1e-12) and sampled at
    ``rate`` Hz. Each run logs the Lyapunov function :math:`V = \tfrac12 s^\top H s` and the
    desired position as ``signals["V"]`` and ``signals["q_d"]``.

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
        Sampling rate of the output (Hz).
    progress : bool, optional
        Progress bars (see :func:`geomech.simulate`).

    Returns
    -------
    SimpleNamespace
        ``torsion_free`` (:math:`C = 0`) and ``torsion`` (:math:`C = \beta(v\times)`), each a
        :class:`~geomech.simulation.SimulationResult` with ``t, q, v, tau`` and
        ``signals["V"]``, ``signals["q_d"]``; and ``beta``.

    References
    ----------
    seed 000 Sec. IV-A2, Figs. 4–7.

    Examples
    --------
    >>> from geomech.control import torsion_experiment
    >>> r = torsion_experiment(t_final=0.5)
    >>> float(abs(r.torsion_free.q[:, 2]).max()), float(r.torsion.signals["V"][0])
    (0.0, 2.5)
    """
    true = point_mass(mass)
    est = point_mass(mass_estimate)

    def reference(t):
        return (
            np.array([t + np.sin(t), 0.0, 0.0]),
            np.array([1.0 + np.cos(t), 0.0, 0.0]),
            np.array([-np.sin(t), 0.0, 0.0]),
        )

    q0, v0 = np.zeros(3), np.array([0.0, 1.0, 0.0])
    out = {}
    for key, conn in (
        ("torsion_free", LeviCivitaConnection(true)),
        ("torsion", AffineConnection(true, beta * _EPS)),
    ):
        ctrl = SlotineLi(true, conn, reference, Lambda, K_D, estimate=est)
        log = {
            "V": lambda t, q, v, tau, c=ctrl: c.lyapunov(t, q, v),
            "q_d": lambda t, q, v, tau, c=ctrl: c.reference(t)[0],
        }
        out[key] = simulate(
            true,
            q0,
            v0,
            t_final,
            controller=ctrl,
            dt=1.0 / rate,
            method="DOP853",
            rtol=1e-11,
            atol=1e-12,
            log=log,
            progress=progress,
        )
    return SimpleNamespace(**out, beta=beta)
