"""The Duindam–Stramigioli Coriolis matrix (seed 003 §2.3, digest §3.1): the literature
error and its symptoms, measured."""

import numpy as np
import pytest
from rb_helpers import NONABELIAN, NONABELIAN_IDS, random_spd

from geomech.errors import SingularityError
from geomech.lie import SE3, SO3, Euclidean
from geomech.rigidbody import (
    RigidBody,
    compare_with_duindam_stramigioli,
    duindam_stramigioli_coriolis,
    duindam_stramigioli_forward_dynamics,
    twist_from_paper,
)
from geomech.spatial import spatial_inertia


@pytest.mark.parametrize("group", NONABELIAN, ids=NONABELIAN_IDS)
def test_eq33_at_any_phi_is_minus_ad_Mv_transpose(group, rng):
    body = RigidBody(group, random_spd(rng, group.dim))
    v = rng.standard_normal(group.dim)
    expected = -group.ad(body.momentum(v)).T  # eq. (36)
    np.testing.assert_allclose(duindam_stramigioli_coriolis(body, v), expected, atol=1e-12)
    phi = rng.uniform(-1.0, 1.0, group.dim)
    np.testing.assert_allclose(duindam_stramigioli_coriolis(body, v, phi=phi), expected, atol=1e-10)
    assert np.linalg.norm(expected @ v - body.coriolis_force(v)) > 1e-3  # eq. (37) ≠ eq. (11)


def test_so3_gyroscopic_sign_is_flipped(rng):
    M = random_spd(rng, 3)
    body = RigidBody(SO3, M)
    w = rng.standard_normal(3)
    wrong = duindam_stramigioli_forward_dynamics(body, np.eye(3), w)
    right = body.forward_dynamics(np.eye(3), w)
    np.testing.assert_allclose(M @ wrong, np.cross(w, M @ w), atol=1e-12)  # M ω̇ - ω × Mω = 0
    np.testing.assert_allclose(M @ right, +np.cross(M @ w, w), atol=1e-12)  # Euler (1)
    np.testing.assert_allclose(wrong, -right, atol=1e-12)


def test_so3_energy_kept_but_spatial_momentum_lost():
    """Digest §3.1: M = diag(1, 2, 3), ω0 = (0.1, -0.2, 0.3), R0 = I, t ∈ [0, 30]: drift ≈ 1.9."""
    body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
    res = compare_with_duindam_stramigioli(body, np.eye(3), [0.1, -0.2, 0.3], 30.0, dt=1e-2)
    d = res.drift()
    assert d["energy"] < 1e-12 and d["energy_ds"] < 1e-12  # both conserve energy on SO(3)
    assert d["momentum"] < 1e-10
    assert d["momentum_ds"] == pytest.approx(1.86, abs=0.05)  # measured 1.8595 (digest: ≈ 1.9)


def test_se3_energy_is_not_conserved_fixture_F8():
    """Digest §3.1 / F8: CoM offset, t ∈ [0, 20]: the DS energy varies by ≈ 0.29 (peak to peak)."""
    body = RigidBody(SE3, spatial_inertia(2.0, [0.1, -0.05, 0.2], np.diag([1.0, 2.0, 3.0])))
    V0 = twist_from_paper(SE3, [1.0, 0.5, -0.2, 0.1, -0.2, 0.3])
    res = compare_with_duindam_stramigioli(body, np.eye(4), V0, 20.0, dt=1e-2)
    assert res.drift()["energy"] < 1e-10
    assert np.ptp(res.energy_ds) == pytest.approx(0.291, abs=0.002)
    assert res.drift()["energy_ds"] == pytest.approx(0.2524, abs=0.002)


def test_se3_wrong_linear_equation():
    """M = diag(J, m I): DS gives m v̇ + (Jω) × v = f (momentum crossed with velocity)."""
    J, m = np.diag([1.0, 2.0, 3.0]), 2.0
    body = RigidBody(SE3, np.block([[J, np.zeros((3, 3))], [np.zeros((3, 3)), m * np.eye(3)]]))
    w, v = np.array([0.1, -0.2, 0.3]), np.array([1.0, 0.5, -0.2])
    a = duindam_stramigioli_forward_dynamics(body, np.eye(4), np.r_[w, v])
    np.testing.assert_allclose(m * a[3:], -np.cross(J @ w, v), atol=1e-14)
    np.testing.assert_allclose(
        m * body.forward_dynamics(np.eye(4), np.r_[w, v])[3:], -m * np.cross(w, v), atol=1e-14
    )


def test_abelian_groups_cannot_tell(rng):
    body = RigidBody(Euclidean(3), random_spd(rng, 3))
    v = rng.standard_normal(3)
    np.testing.assert_allclose(
        duindam_stramigioli_coriolis(body, v), body.coriolis_matrix(v), atol=0
    )


def test_literature_validation():
    body = RigidBody(SO3, np.eye(3))
    with pytest.raises(TypeError, match="RigidBody"):
        duindam_stramigioli_coriolis("body", np.zeros(3))
    with pytest.raises(SingularityError, match="singular set"):
        duindam_stramigioli_coriolis(body, np.ones(3), phi=[0.0, 0.0, 2 * np.pi])
    with pytest.raises(ValueError, match="`t_final` > 0"):
        compare_with_duindam_stramigioli(body, np.eye(3), np.ones(3), -1.0)
    with pytest.raises(ValueError, match="`dt` > 0"):
        compare_with_duindam_stramigioli(body, np.eye(3), np.ones(3), 1.0, dt=0.0)
