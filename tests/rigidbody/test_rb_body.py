"""RigidBody: construction, validation at the public boundary, batching, conversions."""

import numpy as np
import pytest
from rb_helpers import AFF1, GROUP_IDS, GROUPS, random_spd

from geomech.errors import (
    DimensionError,
    GeomechError,
    InertiaError,
    NonFiniteError,
    NotOnManifoldError,
)
from geomech.lie import SE2, SE3, SO3, Euclidean, ProductGroup, Schoenflies
from geomech.rigidbody import (
    EulerZYX,
    RigidBody,
    UniformGravity,
    inertia_from_paper,
    inertia_to_paper,
    local_mass_matrix,
    paper_permutation,
    selection_matrix,
    twist_from_paper,
    twist_to_paper,
)
from geomech.spatial import spatial_inertia


@pytest.mark.parametrize("group", GROUPS, ids=GROUP_IDS)
def test_batched_evaluation_equals_the_loop(group, rng):
    body = RigidBody(group, random_spd(rng, group.dim))
    g = group.random(rng, size=(2, 3))
    v, tau = rng.standard_normal((2, 2, 3, group.dim))
    batch = body.forward_dynamics(g, v, tau)
    assert batch.shape == (2, 3, group.dim)
    for i in range(2):
        for j in range(3):
            np.testing.assert_allclose(
                batch[i, j], body.forward_dynamics(g[i, j], v[i, j], tau[i, j]), atol=1e-14
            )
            np.testing.assert_allclose(
                body.spatial_momentum(g, v)[i, j],
                body.spatial_momentum(g[i, j], v[i, j]),
                atol=1e-14,
            )
    # broadcasting: one configuration, many velocities
    assert body.inverse_dynamics(g[0, 0], v, v).shape == (2, 3, group.dim)
    assert body.energy(g, v).shape == (2, 3)


@pytest.mark.parametrize("group", GROUPS + [AFF1], ids=GROUP_IDS + ["Aff1"])
def test_forward_and_inverse_dynamics_are_inverse(group, rng):
    body = RigidBody(group, random_spd(rng, group.dim))
    g, v, tau = group.random(rng), rng.standard_normal(group.dim), rng.standard_normal(group.dim)
    np.testing.assert_allclose(
        body.inverse_dynamics(g, v, body.forward_dynamics(g, v, tau)), tau, atol=1e-12
    )


def test_paper_order_converters(rng):
    for G, perm in (
        (SO3, [0, 1, 2]),
        (SE3, [3, 4, 5, 0, 1, 2]),
        (SE2, [2, 0, 1]),
        (Schoenflies, [3, 0, 1, 2]),
    ):
        np.testing.assert_array_equal(paper_permutation(G), perm)
        x = rng.standard_normal(G.dim)
        np.testing.assert_allclose(twist_to_paper(G, twist_from_paper(G, x)), x, atol=0)
        M = random_spd(rng, G.dim)
        np.testing.assert_allclose(inertia_to_paper(G, inertia_from_paper(G, M)), M, atol=0)
    np.testing.assert_array_equal(
        paper_permutation(ProductGroup(SE2, Euclidean(2))), [2, 0, 1, 3, 4]
    )
    # paper SE(3) [u, v, w, p, q, r] -> geomech [p, q, r, u, v, w]
    np.testing.assert_allclose(twist_from_paper(SE3, [1, 2, 3, 4, 5, 6]), [4, 5, 6, 1, 2, 3])
    # the paper's H (linear first) and geomech's H select the same twist components
    H_paper_se2 = np.eye(6)[:, [0, 1, 5]]  # e1, e2, e6 (eq. 77)
    P6 = paper_permutation(SE3)
    np.testing.assert_allclose(
        selection_matrix(SE2), H_paper_se2[P6][:, paper_permutation(SE2)], atol=0
    )


def test_from_spatial_inertia_matches_paper_M():
    """SE(2): M = Hᵀ I_b H = diag(m, m, I_z) in the paper's order (eq. 86)."""
    I_b = spatial_inertia(3.0, [0.0, 0.0, 0.0], np.diag([0.1, 0.2, 0.7]))
    body = RigidBody.from_spatial_inertia(SE2, I_b, gravity=None)
    np.testing.assert_allclose(
        inertia_to_paper(SE2, body.inertia), np.diag([3.0, 3.0, 0.7]), atol=0
    )
    body = RigidBody.from_spatial_inertia(Schoenflies, I_b, gravity=None)
    np.testing.assert_allclose(
        inertia_to_paper(Schoenflies, body.inertia), np.diag([3.0, 3.0, 3.0, 0.7]), atol=0
    )


def test_constructor_accepts_a_spatial_inertia_on_subgroups():
    I_b = spatial_inertia(3.0, [0.1, 0.2, 0.0], np.diag([0.1, 0.2, 0.7]))
    for G in (SO3, SE2, Schoenflies, Euclidean(3)):
        H = selection_matrix(G)
        np.testing.assert_allclose(RigidBody(G, I_b).inertia, H.T @ I_b @ H, atol=0)
        assert RigidBody(G, I_b).potential is None


def test_inertia_is_read_only():
    body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError):
        body.inertia[0, 0] = 5.0


# ------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------
def test_inertia_not_spd():
    with pytest.raises(
        InertiaError, match="`inertia` to be positive definite, got smallest eigenvalue -1"
    ):
        RigidBody(SO3, np.diag([1.0, -1.0, 2.0]))
    with pytest.raises(InertiaError, match="`inertia` to be symmetric"):
        RigidBody(SO3, [[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(InertiaError, match="`spatial_inertia` to be positive definite"):
        RigidBody.from_spatial_inertia(SE3, np.diag([1.0, 1.0, 1.0, 1.0, 1.0, 0.0]))


def test_group_inertia_dimension_mismatch():
    with pytest.raises(
        DimensionError,
        match=r"`inertia` of a rigid body on SE\(3\) \(dim 6\) to have shape \(6, 6\), "
        r"got \(3, 3\)",
    ):
        RigidBody(SE3, np.eye(3))
    with pytest.raises(
        DimensionError,
        match=r"on SE\(2\) \(dim 3\) to have shape \(3, 3\) "
        r"\(or a \(6, 6\) spatial inertia\), got \(4, 4\)",
    ):
        RigidBody(SE2, np.eye(4))
    with pytest.raises(
        DimensionError, match=r"on SO\(3\) × R\^3 \(dim 6\) to have shape \(6, 6\), got \(3, 3\)"
    ):
        RigidBody(ProductGroup(SO3, Euclidean(3)), np.eye(3))
    with pytest.raises(DimensionError, match=r"`spatial_inertia` to have shape \(\.\.\., 6, 6\)"):
        RigidBody.from_spatial_inertia(SO3, np.eye(3))
    with pytest.raises(DimensionError, match="Expected `potential` on SO"):
        RigidBody(SO3, np.eye(3), potential=UniformGravity(SE3, 1.0))


def test_wrong_types():
    with pytest.raises(TypeError, match="`group` to be a geomech.lie.LieGroup, got str"):
        RigidBody("SO3", np.eye(3))
    with pytest.raises(
        TypeError, match="`potential` to be a geomech.rigidbody.potential.Potential"
    ):
        RigidBody(SO3, np.eye(3), potential=lambda g: 0.0)
    with pytest.raises(GeomechError, match="not one of seed 003's subgroups"):
        RigidBody.from_spatial_inertia(ProductGroup(SO3, Euclidean(3)), np.eye(6))
    with pytest.raises(GeomechError, match="not one of seed 003's subgroups"):
        selection_matrix(Euclidean(4))
    with pytest.raises(GeomechError, match="no coordinate order"):
        paper_permutation(AFF1)
    with pytest.raises(TypeError, match="chart is on SE\\(3\\) but the body on SO\\(3\\)"):
        local_mass_matrix(RigidBody(SO3, np.eye(3)), EulerZYX(SE3), np.zeros(6))


def test_state_validation():
    body = RigidBody(SO3, np.eye(3))
    with pytest.raises(NotOnManifoldError, match="orthonormal"):
        body.forward_dynamics(2 * np.eye(3), np.zeros(3))
    with pytest.raises(DimensionError, match=r"`v` to have shape \(\.\.\., 3\), got \(4,\)"):
        body.forward_dynamics(np.eye(3), np.zeros(4))
    with pytest.raises(DimensionError, match=r"`tau` to have shape \(\.\.\., 3\)"):
        body.forward_dynamics(np.eye(3), np.zeros(3), np.zeros(2))
    with pytest.raises(NonFiniteError, match="`a` to be finite"):
        body.inverse_dynamics(np.eye(3), np.zeros(3), [np.nan, 0.0, 0.0])
    with pytest.raises(DimensionError, match=r"`q` to have shape \(\.\.\., 3, 3\)"):
        body.spatial_momentum(np.eye(4), np.zeros(3))


def test_bad_input_errors_are_geomech_errors():
    """Issue 7 acceptance: non-SPD inertia, group/inertia mismatch, chart singular set."""
    from geomech.rigidbody import ExponentialChart

    with pytest.raises(GeomechError, match="positive definite"):
        RigidBody(SE2, -np.eye(3))
    with pytest.raises(GeomechError, match=r"to have shape \(4, 4\)"):
        RigidBody(Schoenflies, np.eye(5))
    with pytest.raises(GeomechError, match="singular set"):
        ExponentialChart(SE3).velocity_map_inverse([0.0, 2 * np.pi, 0.0, 1.0, 2.0, 3.0])
    with pytest.raises(GeomechError, match="gimbal lock"):
        EulerZYX(SO3).velocity_map_inverse([0.0, -np.pi / 2, 0.0])
