"""Helpers for the geometry tests: groups, random metrics, point samplers."""

import numpy as np

from geomech.lie import SE2, SE3, SO3, Schoenflies

GROUPS = [SO3, SE3, SE2, Schoenflies]
ARM_PARAMS = dict(m1=1.3, m2=0.7, l1=0.9, l2=0.6, lc1=0.4, lc2=0.35, I1=0.11, I2=0.05)
G0 = 9.81


def random_spd(rng, n):
    A = rng.normal(size=(n, n))
    return A @ A.T + n * np.eye(n)


def levi_civita_symbol():
    eps = np.zeros((3, 3, 3))
    eps[0, 1, 2] = eps[1, 2, 0] = eps[2, 0, 1] = 1.0
    eps[0, 2, 1] = eps[2, 1, 0] = eps[1, 0, 2] = -1.0
    return eps


def sample_points(group, rng, size):
    """Half near the identity (Taylor branches), half uniform."""
    near = group.exp(1e-3 * rng.normal(size=(size, group.dim)))
    return np.concatenate([near, group.random(rng, size)])
