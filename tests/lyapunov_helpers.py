"""The passivity balance of seed 000 eq. (14) along sampled closed loops (shared by the tests)."""

import numpy as np
from scipy.integrate import cumulative_simpson


def lyapunov_defect(ctrl, t, q, v, x=None, V=None):
    """``(V, defect)`` with ``defect(t) = V(t) - V(0) + ∫₀ᵗ sᵀ K_D s dt`` (Simpson's rule).

    ``V`` defaults to ``ctrl.lyapunov`` at the samples (with the controller state ``x`` of an
    adaptive controller); pass an independently computed ``V`` to check against that instead.
    The defect vanishes for exact parameters and an admissible factorization, up to the
    integration and quadrature errors; ``defect[0] = 0``.
    """
    states = list(zip(t, q, v, strict=True))
    S = np.array([ctrl.signals(*z)[-1] for z in states])
    if V is None:
        extra = [()] * len(states) if x is None else [(xk,) for xk in x]
        V = np.array([ctrl.lyapunov(*z, *e) for z, e in zip(states, extra, strict=True)])
    W = np.einsum("ti,ij,tj->t", S, ctrl.K_D, S)
    return V, V - V[0] + cumulative_simpson(W, x=t, initial=0.0)
