"""Quaternion helpers (x, y, z, w) against scipy Rotation and SO3."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.spatial.transform import Rotation

from geomech.errors import DimensionError, NonFiniteError, NotOnManifoldError
from geomech.lie import SO3
from geomech.lie.quaternion import (
    matrix_to_quat,
    quat_conjugate,
    quat_exp,
    quat_log,
    quat_multiply,
    quat_normalize,
    quat_to_matrix,
)


def _same_rotation(q, p, atol=1e-13):
    sign = np.sign(np.sum(q * p, axis=-1, keepdims=True))
    assert_allclose(q, sign * p, atol=atol)


@pytest.fixture
def quats():
    return Rotation.random(50, random_state=0).as_quat()


def test_quat_to_matrix_matches_scipy(quats):
    assert_allclose(quat_to_matrix(quats), Rotation.from_quat(quats).as_matrix(), atol=1e-14)
    assert_allclose(quat_to_matrix(-quats), quat_to_matrix(quats), atol=1e-15)


def test_matrix_to_quat_matches_scipy(quats):
    R = Rotation.from_quat(quats).as_matrix()
    q = matrix_to_quat(R)
    _same_rotation(q, quats)
    assert np.all(q[..., 3] >= 0)
    assert_allclose(np.linalg.norm(q, axis=-1), 1.0)
    # all four Shepperd pivots: identity (w) and π rotations about x, y, z
    for rv in np.diag([np.pi, np.pi, np.pi]).tolist() + [[0.0, 0.0, 0.0]]:
        _same_rotation(matrix_to_quat(SO3.exp(rv)), Rotation.from_rotvec(rv).as_quat())


def test_quat_multiply_is_rotation_product(quats):
    p, q = quats[:25], quats[25:]
    pq = quat_multiply(p, q)
    assert_allclose(quat_to_matrix(pq), quat_to_matrix(p) @ quat_to_matrix(q), atol=1e-14)
    _same_rotation(pq, (Rotation.from_quat(p) * Rotation.from_quat(q)).as_quat())
    identity = quat_multiply(q, quat_conjugate(q))
    assert_allclose(identity, np.broadcast_to([0, 0, 0, 1.0], identity.shape), atol=1e-15)


def test_quat_exp_log(quats):
    rv = Rotation.from_quat(quats).as_rotvec()
    _same_rotation(quat_exp(rv), quats)
    assert_allclose(quat_log(quats), rv, atol=1e-13)
    assert_allclose(quat_log(-quats), rv, atol=1e-13)  # q and -q
    assert_allclose(quat_to_matrix(quat_exp(rv)), SO3.exp(rv), atol=1e-14)
    tiny = np.array([1e-9, -2e-9, 3e-10])
    assert_allclose(quat_log(quat_exp(tiny)), tiny, rtol=1e-12, atol=0)
    assert_allclose(quat_exp(np.zeros(3)), [0, 0, 0, 1.0], atol=0)


def test_quat_literals():
    s = np.sqrt(0.5)
    assert_allclose(quat_exp([0, 0, np.pi / 2]), [0, 0, s, s])
    assert_allclose(quat_multiply([1.0, 0, 0, 0], [0, 1.0, 0, 0]), [0, 0, 1.0, 0])  # i j = k
    assert_allclose(quat_normalize([0, 0, 3.0, 4.0]), [0, 0, 0.6, 0.8])


def test_quaternion_errors():
    with pytest.raises(NotOnManifoldError, match="`q` to be a unit quaternion"):
        quat_to_matrix([0, 0, 0, 2.0])
    with pytest.raises(NotOnManifoldError, match="`q` to be a unit quaternion"):
        quat_log([0.1, 0, 0, 1.0])
    with pytest.raises(NotOnManifoldError, match="`q` to be nonzero"):
        quat_normalize(np.zeros(4))
    with pytest.raises(DimensionError, match=r"`q` to have shape \(\.\.\., 4\)"):
        quat_to_matrix([0, 0, 1.0])
    with pytest.raises(DimensionError, match="`rotvec`"):
        quat_exp([0, 0, 1.0, 0])
    with pytest.raises(NonFiniteError, match="`p`"):
        quat_multiply([np.nan, 0, 0, 1], [0, 0, 0, 1])
    with pytest.raises(NotOnManifoldError, match="`R` to be orthonormal"):
        matrix_to_quat(2 * np.eye(3))
    with pytest.raises(NotOnManifoldError, match="determinant"):
        matrix_to_quat(-np.eye(3))
    # the tolerance is an argument
    q = np.array([0, 0, 0, 1 + 1e-8])
    quat_to_matrix(q)
    with pytest.raises(NotOnManifoldError):
        quat_to_matrix(q, tol=1e-10)
