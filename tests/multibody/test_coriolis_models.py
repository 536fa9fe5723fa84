"""Models and user joints shared by the Coriolis / Christoffel / Slotine-Li tests.

Two user joints whose motion subspace moves in the child frame (Phi_ring != 0), as in the
verification log of seed 000 (digest §5.5): a universal joint in coordinates (commuting
fields, s = 0) and a spherical joint with parent-frame angular velocity (right-invariant
fields, s = -epsilon). The tests at the bottom check these joints against finite differences,
so that the algorithms are tested on joints that are right.
"""

from __future__ import annotations

import numpy as np
import pytest

from geomech.lie import SO3, Euclidean
from geomech.lie.quaternion import quat_exp, quat_log, quat_multiply, quat_to_matrix
from geomech.multibody import (
    Fixed,
    FreeFlyer,
    Helical,
    Joint,
    MultibodyModel,
    Planar,
    Prismatic,
    Revolute,
    SchoenfliesJoint,
    Spherical,
)
from geomech.multibody.io.robots import random_inertia
from geomech.spatial import skew


def _rot_x(a):
    c, s = np.cos(a), np.sin(a)
    R = np.zeros(np.shape(a) + (3, 3))
    R[..., 0, 0] = 1.0
    R[..., 1, 1], R[..., 1, 2], R[..., 2, 1], R[..., 2, 2] = c, -s, s, c
    return R


def _rot_y(b):
    c, s = np.cos(b), np.sin(b)
    R = np.zeros(np.shape(b) + (3, 3))
    R[..., 1, 1] = 1.0
    R[..., 0, 0], R[..., 0, 2], R[..., 2, 0], R[..., 2, 2] = c, s, -s, c
    return R


def _pose(R):
    T = np.zeros(R.shape[:-2] + (4, 4))
    T[..., :3, :3] = R
    T[..., 3, 3] = 1.0
    return T


class UniversalXY(Joint):
    """Universal joint R = Rx(a) Ry(b) in coordinates: v = (a_dot, b_dot).

    Body angular velocity w = Ry(b)^T e_x a_dot + e_y b_dot, so Phi = [[Ry^T e_x, e_y]; 0] and
    Phi_ring = b_dot d/db (Ry^T e_x) in the first column.
    """

    kind = "universal"
    nq = 2
    nv = 2

    def __init__(self, name=None):
        super().__init__(name)
        self.manifold = Euclidean(2)

    def _pose(self, q):
        return _pose(_rot_x(q[..., 0]) @ _rot_y(q[..., 1]))

    def _Phi(self):
        raise NotImplementedError  # Phi depends on q

    def _motion_subspace(self, q):
        b = q[..., 1]
        Phi = np.zeros(q.shape[:-1] + (6, 2))
        Phi[..., 0, 0], Phi[..., 2, 0] = np.cos(b), np.sin(b)
        Phi[..., 1, 1] = 1.0
        return Phi

    def _motion_subspace_rate(self, q, v):
        lead = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
        b, b_dot = q[..., 1], v[..., 1]
        out = np.zeros(lead + (6, 2))
        out[..., 0, 0] = -np.sin(b) * b_dot
        out[..., 2, 0] = np.cos(b) * b_dot
        return out

    def _integrate(self, q, v):
        return q + v

    def _difference(self, q0, q1):
        return q1 - q0

    def _neutral(self):
        return np.zeros(2)

    def _random(self, rng, shape):
        return rng.uniform(-np.pi, np.pi, shape + (2,))


class SphericalParentFrame(Joint):
    """Spherical joint with the angular velocity in the parent (joint) frame as speeds.

    w_body = R^T w, so Phi = [R^T; 0] and Phi_ring = d/dt R^T = -(R^T w x) R^T; the flow is
    q <- exp(w t) q (right-invariant fields).
    """

    kind = "spherical_parent"
    nq = 4
    nv = 3

    def __init__(self, name=None):
        super().__init__(name)
        self.manifold = SO3

    def _pose(self, q):
        return _pose(quat_to_matrix(q))

    def _Phi(self):
        raise NotImplementedError

    def _motion_subspace(self, q):
        R = quat_to_matrix(q)
        Phi = np.zeros(q.shape[:-1] + (6, 3))
        Phi[..., :3, :] = np.swapaxes(R, -1, -2)
        return Phi

    def _motion_subspace_rate(self, q, v):
        RT = np.swapaxes(quat_to_matrix(q), -1, -2)
        w_body = np.einsum("...ij,...j->...i", RT, v)
        lead = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
        out = np.zeros(lead + (6, 3))
        out[..., :3, :] = -skew(w_body) @ RT
        return out

    def _integrate(self, q, v):
        lead = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
        q1 = quat_multiply(
            quat_exp(np.broadcast_to(v, lead + (3,))), np.broadcast_to(q, lead + (4,))
        )
        return q1 / np.linalg.norm(q1, axis=-1, keepdims=True)

    def _difference(self, q0, q1):
        conj = q0 * np.array([-1.0, -1.0, -1.0, 1.0])
        return quat_log(quat_multiply(q1, conj))

    def _neutral(self):
        return np.array([0.0, 0.0, 0.0, 1.0])

    def _random(self, rng, shape):
        return SO3_quat(rng, shape)


def _rot_z(c):
    co, si = np.cos(c), np.sin(c)
    R = np.zeros(np.shape(c) + (3, 3))
    R[..., 2, 2] = 1.0
    R[..., 0, 0], R[..., 0, 1], R[..., 1, 0], R[..., 1, 1] = co, -si, si, co
    return R


def _vee(W):
    return np.stack([W[..., 2, 1], W[..., 0, 2], W[..., 1, 0]], -1)


class TwistedSlider(Joint):
    """A 1-DoF joint whose axis moves in the child frame (digest §7 item 8's circular slider):

    pose(t) = [Rz(t) Rx(t), r (cos t, sin t, 0)], so Phi(t) = [vee(R^T R'); R^T p'] varies with t
    and Phi_ring = t_dot dPhi/dt != 0 (derivatives written out analytically).
    """

    kind = "twisted_slider"
    nq = 1
    nv = 1
    r = 0.4

    def __init__(self, name=None):
        super().__init__(name)
        self.manifold = Euclidean(1)

    def _terms(self, t):
        Rz, Rx = _rot_z(t), _rot_x(t)
        Sz = np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 0]])
        Sx = np.array([[0.0, 0, 0], [0, 0, -1], [0, 1, 0]])
        R = Rz @ Rx
        dR = Sz @ Rz @ Rx + Rz @ Rx @ Sx  # dRz = Sz Rz, dRx = Rx Sx
        ddR = Sz @ Sz @ Rz @ Rx + 2 * Sz @ Rz @ Rx @ Sx + Rz @ Rx @ Sx @ Sx
        c, s = np.cos(t), np.sin(t)
        z = np.zeros_like(t)
        p = self.r * np.stack([c, s, z], -1)
        dp = self.r * np.stack([-s, c, z], -1)
        ddp = self.r * np.stack([-c, -s, z], -1)
        return R, dR, ddR, p, dp, ddp

    def _pose(self, q):
        R, _, _, p, _, _ = self._terms(q[..., 0])
        T = _pose(R)
        T[..., :3, 3] = p
        return T

    def _Phi(self):
        raise NotImplementedError

    def _motion_subspace(self, q):
        R, dR, _, _, dp, _ = self._terms(q[..., 0])
        RT = np.swapaxes(R, -1, -2)
        w = _vee(RT @ dR)
        v = np.einsum("...ij,...j->...i", RT, dp)
        return np.concatenate([w, v], -1)[..., None]

    def _motion_subspace_rate(self, q, v):
        R, dR, ddR, _, dp, ddp = self._terms(q[..., 0])
        RT, dRT = np.swapaxes(R, -1, -2), np.swapaxes(dR, -1, -2)
        dw = _vee(dRT @ dR + RT @ ddR)
        dv = np.einsum("...ij,...j->...i", dRT, dp) + np.einsum("...ij,...j->...i", RT, ddp)
        return (np.concatenate([dw, dv], -1) * v[..., :1])[..., None]

    def _integrate(self, q, v):
        return q + v

    def _difference(self, q0, q1):
        return q1 - q0

    def _neutral(self):
        return np.zeros(1)

    def _random(self, rng, shape):
        return rng.uniform(-np.pi, np.pi, shape + (1,))


def SO3_quat(rng, shape):
    x = rng.normal(size=shape + (4,))
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _random_pose(rng):
    T = np.eye(4)
    T[:3, :3] = SO3.random(rng)
    T[:3, 3] = rng.uniform(-0.5, 0.5, 3)
    return T


def build(parent, joints, seed):
    """A model with random inertias and random placements."""
    rng = np.random.default_rng(seed)
    n = len(parent)
    inertias = random_inertia(rng, n)
    placements = np.stack([_random_pose(rng) for _ in range(n)])
    return MultibodyModel.from_bodies(parent, joints, inertias, placements)


def mixed_fixed_base(seed=1):
    """Every built-in joint type on a fixed base (spherical, planar, Schoenflies, helical,
    prismatic, revolute, fixed), branched, depth 6."""
    joints = [
        Spherical(),
        Revolute([0.3, -1.0, 0.2]),
        Planar(),
        Helical([0.0, 1.0, 1.0], pitch=0.2),
        Prismatic([1.0, 0.5, 0.0]),
        Fixed(),
        SchoenfliesJoint(),
        Spherical(),
        Revolute([0.0, 0.0, 1.0]),
    ]
    parent = [-1, 0, 1, 2, 0, 4, 5, 3, 7]
    return build(parent, joints, seed)


def mixed_floating_base(seed=2):
    """A free-flyer with spherical joints, a branch and revolute/prismatic joints."""
    joints = [
        FreeFlyer(),
        Spherical(),
        Revolute([0.0, 1.0, 0.0]),
        Spherical(),
        Prismatic([0.0, 0.0, 1.0]),
        Revolute([1.0, 0.0, 0.0]),
        Spherical(),
    ]
    parent = [-1, 0, 1, 2, 0, 4, 0]
    return build(parent, joints, seed)


def user_joint_tree(seed=3):
    """Free-flyer + user joints with Phi_ring != 0 (universal in coordinates, spherical with
    parent-frame speeds, a 1-DoF twisted slider) + built-in joints: digest §5.5's test cluster
    tree, single bodies."""
    joints = [
        FreeFlyer(),
        SphericalParentFrame(),
        Revolute([0.2, 0.4, 1.0]),
        UniversalXY(),
        Spherical(),
        Prismatic([0.0, 1.0, 0.0]),
        UniversalXY(),
        TwistedSlider(),
    ]
    parent = [-1, 0, 1, 0, 3, 4, 2, 4]
    return build(parent, joints, seed)


def random_state(model, rng, scale=1.0):
    q = model.random_configuration(rng=rng)
    v = scale * rng.uniform(-2.0, 2.0, model.nv)
    return q, v


def fd_along_flow(f, model, q, v, h=1e-5):
    """Central difference of f(q) along integrate(q, +-h v) (the frame's flow)."""
    return (f(model.integrate(q, v, h)) - f(model.integrate(q, v, -h))) / (2.0 * h)


# ----------------------------------------------------------------------------------------
# the user joints themselves are right (finite differences along their flow)
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "joint", [UniversalXY(), SphericalParentFrame(), TwistedSlider()], ids=lambda j: j.kind
)
def test_user_joint_phi_and_phi_ring(joint, rng):
    q = joint.random_configuration(rng)
    v = rng.normal(size=joint.nv)
    h = 1e-6
    # body twist of the child = Phi v: T^-1 dT/dt along the flow
    T = lambda s: joint.pose(joint.integrate(q, v, s))  # noqa: E731
    dT = (T(h) - T(-h)) / (2 * h)
    T0 = joint.pose(q)
    twist_hat = np.linalg.inv(T0) @ dT
    omega = np.array([twist_hat[2, 1], twist_hat[0, 2], twist_hat[1, 0]])
    lin = T0[:3, :3].T @ dT[:3, 3]
    np.testing.assert_allclose(omega, (joint.motion_subspace(q) @ v)[:3], atol=1e-8)
    np.testing.assert_allclose(lin, (joint.motion_subspace(q) @ v)[3:], atol=1e-8)
    # Phi_ring = d/dt Phi along the flow
    dPhi = (
        joint.motion_subspace(joint.integrate(q, v, h))
        - joint.motion_subspace(joint.integrate(q, v, -h))
    ) / (2 * h)
    np.testing.assert_allclose(joint.motion_subspace_rate(q, v), dPhi, atol=1e-8)
    np.testing.assert_allclose(joint.difference(q, joint.integrate(q, v, 0.3)), 0.3 * v, atol=1e-12)
