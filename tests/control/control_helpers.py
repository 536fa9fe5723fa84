"""Helpers shared by the tracking-error tests."""

import numpy as np
from scipy.linalg import expm

from geomech.control.reference import GroupTrackingError
from geomech.lie import SE2, Schoenflies


def spd(rng, n, low=0.5):
    """A random symmetric positive-definite n x n gain (eigenvalues >= ``low``)."""
    X = rng.standard_normal((n, n))
    return X @ X.T + low * np.eye(n)


def assert_batch_matches_loop(error, q, v, q_d, v_d, a_d, L, atol):
    """``error(q, v, q_d, ...)`` on a (k, m) batch of states and m desired states equals the loop.

    ``q``, ``v`` carry leading dimensions (k, m), ``q_d`` (m,), and ``v_d``, ``a_d`` none.
    """
    batch = error(q, v, q_d, v_d, a_d, L)
    assert isinstance(batch, GroupTrackingError) and batch.a_r.shape == v.shape
    for i, j in np.ndindex(*v.shape[:2]):
        single = error(q[i, j], v[i, j], q_d[j], v_d, a_d, L)
        for x, y in zip(single, batch, strict=True):
            np.testing.assert_allclose(y[i, j], x, atol=atol)


class MatrixCurve:
    """q(t) = q0 expm(t A) expm(sin(w t) B) and its body/spatial velocity and acceleration.

    With M = expm(-s B) A expm(s B): q^-1 q' = M + s' B and d/dt (q^-1 q') = s' [M, B] + s'' B;
    the spatial velocity is q (q^-1 q') q^-1, its rate q (d/dt body) q^-1. Calling it at t
    returns (q, body velocity, its rate, spatial velocity, its rate). ``bounded=True`` draws
    the SE(2) / Schönflies start position in [-1, 1] (planar positions O(1)).
    """

    def __init__(self, group, rng, scale=0.7, omega=1.3, fast=False, bounded=False):
        self.G = group
        self.a, self.b = scale * rng.standard_normal((2, group.dim))
        self.A, self.B = group.hat(self.a), group.hat(self.b)
        self.q0 = group.random(rng)
        if bounded and group in (SE2, Schoenflies):
            self.q0[:-1, -1] = rng.uniform(-1.0, 1.0, group.matrix_size - 1)
        self.w = omega
        # scipy's expm for the kinematic references; the group's closed-form exp where a
        # closed loop only needs some smooth desired motion with consistent v_d, a_d
        self.expm = (lambda X: group.exp(group.vee(X))) if fast else expm

    def __call__(self, t):
        G, A, B, w, expm_ = self.G, self.A, self.B, self.w, self.expm
        s, sd, sdd = np.sin(w * t), w * np.cos(w * t), -w * w * np.sin(w * t)
        E2 = expm_(s * B)
        q = self.q0 @ expm_(t * A) @ E2
        M = np.linalg.solve(E2, A @ E2)
        vb_hat, ab_hat = M + sd * B, sd * (M @ B - B @ M) + sdd * B
        qi = np.linalg.inv(q)
        return q, G.vee(vb_hat), G.vee(ab_hat), G.vee(q @ vb_hat @ qi), G.vee(q @ ab_hat @ qi)

    def angle(self, t):
        """Unwrapped rotation angle of an SE(2) / Schönflies curve (the rotation is abelian)."""
        theta0 = np.arctan2(self.q0[1, 0], self.q0[0, 0])
        return theta0 + t * self.a[0] + np.sin(self.w * t) * self.b[0]
