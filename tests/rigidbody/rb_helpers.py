"""Shared data and helpers of the geomech.rigidbody tests (imported by the test modules)."""

from __future__ import annotations

import numpy as np
from scipy.linalg import expm, logm

from geomech.lie import SE2, SE3, SO3, Euclidean, LieGroup, ProductGroup, Schoenflies

#: The groups of seed 003 (and a product, §2.7); identities are parametrised over these.
GROUPS = [SO3, SE3, SE2, Schoenflies, Euclidean(3), ProductGroup(SO3, Euclidean(3))]
GROUP_IDS = ["SO3", "SE3", "SE2", "X4", "R3", "SO3xR3"]
#: The non-abelian ones (where the Duindam-Stramigioli matrix differs).
NONABELIAN = [SO3, SE3, SE2, Schoenflies, ProductGroup(SO3, Euclidean(3))]
NONABELIAN_IDS = ["SO3", "SE3", "SE2", "X4", "SO3xR3"]
#: Subgroups of SE(3) (selection matrices, gravity).
SUBGROUPS = [SO3, SE3, SE2, Schoenflies, Euclidean(3)]
SUBGROUP_IDS = ["SO3", "SE3", "SE2", "X4", "R3"]


def random_spd(rng: np.random.Generator, n: int) -> np.ndarray:
    """A random full symmetric positive-definite matrix (condition number moderate)."""
    A = rng.standard_normal((n, n))
    return A @ A.T + n * np.eye(n)


def near_identity(group, rng, scale=1e-3):
    """A group element close to the identity (exercises Taylor branches)."""
    return group.exp(scale * rng.standard_normal(group.dim))


def fd_left(f, group, g, h=1e-6):
    """Central differences of ``f`` along the left-invariant flow ``g exp(t e_i)``.

    Returns ``D[..., i] = d/dt f(g exp(t e_i))|_{t=0}`` stacked on the last axis: the
    left-trivialised gradient for scalar ``f``.
    """
    cols = []
    for e in np.eye(group.dim):
        fp = f(group.compose(g, group.exp(h * e)))
        fm = f(group.compose(g, group.exp(-h * e)))
        cols.append((np.asarray(fp) - np.asarray(fm)) / (2 * h))
    return np.stack(cols, axis=-1)


def fd_partials(f, x, h=1e-6):
    """Central differences ``D[..., m] = ∂f/∂x_m`` of an array-valued ``f`` (derivative last)."""
    x = np.asarray(x, dtype=float)
    cols = []
    for e in np.eye(x.shape[-1]):
        cols.append((np.asarray(f(x + h * e)) - np.asarray(f(x - h * e))) / (2 * h))
    return np.stack(cols, axis=-1)


class MatrixLieGroup(LieGroup):
    """A matrix Lie group given by a basis of its Lie algebra (test-only; exp/log by scipy).

    Used to check that seed 003's Prop. 5.1 holds beyond subgroups of SE(3) (T20):
    GL(2), SL(2) and Aff(1) have structure constants unlike any SE(3) subgroup.
    """

    def __init__(self, name, basis):
        self.name = name
        self.basis = np.asarray(basis, dtype=float)
        self.dim = len(self.basis)
        n = self.basis.shape[-1]
        self.point_shape = (n, n)
        self.matrix_size = n
        self._pinv = np.linalg.pinv(self.basis.reshape(self.dim, -1))  # (n*n, dim)

    def _identity(self):
        return np.eye(self.matrix_size)

    def _compose(self, a, b):
        return a @ b

    def _inverse(self, g):
        return np.linalg.inv(g)

    def _exp(self, xi):
        return expm(self._hat(xi))

    def _log(self, g):
        flat = [logm(G).real for G in np.reshape(g, (-1,) + self.point_shape)]
        return self._vee(np.reshape(flat, g.shape))

    def _hat(self, xi):
        return np.einsum("...i,iab->...ab", xi, self.basis)

    def _vee(self, X):
        return np.reshape(X, X.shape[:-2] + (-1,)) @ self._pinv

    def _Ad(self, g):
        gEg = g[..., None, :, :] @ self.basis @ np.linalg.inv(g)[..., None, :, :]
        return np.swapaxes(self._vee(gEg), -1, -2)

    def _check_point(self, g, name, tol):
        pass

    def _random(self, rng, shape):
        return self._exp(0.5 * rng.standard_normal(shape + (self.dim,)))

    def to_geomstats(self):
        raise NotImplementedError

    def __repr__(self):
        return self.name


_E = np.eye(2)
GL2 = MatrixLieGroup("GL(2)", [np.outer(_E[i], _E[j]) for i in range(2) for j in range(2)])
SL2 = MatrixLieGroup(
    "SL(2)", [[[1.0, 0.0], [0.0, -1.0]], [[0.0, 1.0], [0.0, 0.0]], [[0.0, 0.0], [1.0, 0.0]]]
)
AFF1 = MatrixLieGroup(
    "Aff(1)", [[[1.0, 0.0], [0.0, 0.0]], [[0.0, 1.0], [0.0, 0.0]]]
)  # [e1, e2] = e2


def expm_oracle_S(group, phi):
    """``S(φ)`` as the top-right block of ``expm([[-ad_φ, I], [0, 0]])`` (seed 003 §1.3)."""
    n = group.dim
    A = np.zeros((2 * n, 2 * n))
    A[:n, :n] = -group.ad(phi)
    A[:n, n:] = np.eye(n)
    return expm(A)[:n, n:]
