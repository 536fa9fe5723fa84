"""Joint models: poses, transforms and motion subspaces against independent references.

References used: scipy's ``Rotation`` (rotation vectors, quaternions, Euler angles) for the
joint poses, Featherstone's closed-form Plücker transform written out here, central finite
differences of the pose along the flow ``t -> integrate(q, v t)`` for the motion subspace,
and hand-derived coordinate rates ``q̇ = Q(q) v`` for the derivative of ``integrate``.
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from geomech.errors import DimensionError, ModelError, NotOnManifoldError, SingularityError
from geomech.multibody.model.joints import (
    Fixed,
    FreeFlyer,
    Helical,
    Joint,
    Planar,
    Prismatic,
    Revolute,
    SchoenfliesJoint,
    Spherical,
)

AXIS = np.array([0.3, -0.5, 0.8])
UNIT = AXIS / np.linalg.norm(AXIS)

JOINTS = {
    "revolute": Revolute(AXIS),
    "prismatic": Prismatic(AXIS),
    "helical": Helical(AXIS, pitch=0.07),
    "spherical": Spherical(),
    "planar": Planar(),
    "schoenflies": SchoenfliesJoint(),
    "free_flyer": FreeFlyer(),
    "fixed": Fixed(),
}
MOVING = [k for k in JOINTS if k != "fixed"]


def S(p):
    return np.array([[0, -p[2], p[1]], [p[2], 0, -p[0]], [-p[1], p[0], 0]])


def expected_pose(kind, q):
    """Pose of the child frame from scipy and the joint definitions (independent of geomech)."""
    T = np.eye(4)
    if kind == "revolute":
        T[:3, :3] = Rotation.from_rotvec(q[0] * UNIT).as_matrix()
    elif kind == "prismatic":
        T[:3, 3] = q[0] * UNIT
    elif kind == "helical":
        T[:3, :3] = Rotation.from_rotvec(q[0] * UNIT).as_matrix()
        T[:3, 3] = 0.07 * q[0] * UNIT
    elif kind == "spherical":
        T[:3, :3] = Rotation.from_quat(q).as_matrix()  # scipy: scalar last
    elif kind == "planar":
        T[:3, :3] = Rotation.from_euler("z", q[2]).as_matrix()
        T[:2, 3] = q[:2]
    elif kind == "schoenflies":
        T[:3, :3] = Rotation.from_euler("z", q[3]).as_matrix()
        T[:3, 3] = q[:3]
    elif kind == "free_flyer":
        T[:3, :3] = Rotation.from_quat(q[3:]).as_matrix()
        T[:3, 3] = q[:3]
    return T


def featherstone_X(T):
    """^child X_joint = [[E, 0], [-E S(p), E]] with E = Rᵀ (Featherstone 2008, eq. 2.24)."""
    E, p = T[:3, :3].T, T[:3, 3]
    X = np.zeros((6, 6))
    X[:3, :3] = X[3:, 3:] = E
    X[3:, :3] = -E @ S(p)
    return X


def body_twist_fd(joint, q, v, h=1e-6):
    """[ω; v] = vee(T⁻¹ Ṫ) by central differences along t -> integrate(q, v t)."""
    Tp = joint.pose(joint.integrate(q, v, h))
    Tm = joint.pose(joint.integrate(q, v, -h))
    T = joint.pose(q)
    dT = (Tp - Tm) / (2 * h)
    W = T[:3, :3].T @ dT[:3, :3]
    return np.concatenate([[W[2, 1], W[0, 2], W[1, 0]], T[:3, :3].T @ dT[:3, 3]])


def coordinate_rate(kind, q, v):
    """Hand-derived q̇ = Q(q) v for body-frame speeds."""
    if kind in ("revolute", "prismatic", "helical"):
        return v.copy()
    if kind == "spherical":  # q̇ = ½ q ⊗ (ω, 0)
        x, y, z, w = q
        L = 0.5 * np.array([[w, -z, y], [z, w, -x], [-y, x, w], [-x, -y, -z]])
        return L @ v
    if kind == "planar":
        c, s = np.cos(q[2]), np.sin(q[2])
        return np.array([c * v[1] - s * v[2], s * v[1] + c * v[2], v[0]])
    if kind == "schoenflies":
        c, s = np.cos(q[3]), np.sin(q[3])
        return np.array([c * v[1] - s * v[2], s * v[1] + c * v[2], v[3], v[0]])
    if kind == "free_flyer":
        R = Rotation.from_quat(q[3:]).as_matrix()
        return np.concatenate([R @ v[3:], coordinate_rate("spherical", q[3:], v[:3])])
    return np.zeros(0)


@pytest.mark.parametrize("kind", list(JOINTS))
def test_dimensions_and_manifold(kind):
    j = JOINTS[kind]
    assert isinstance(j, Joint) and j.kind == kind
    expected = {
        "revolute": (1, 1),
        "prismatic": (1, 1),
        "helical": (1, 1),
        "spherical": (4, 3),
        "planar": (3, 3),
        "schoenflies": (4, 4),
        "free_flyer": (7, 6),
        "fixed": (0, 0),
    }
    assert (j.nq, j.nv) == expected[kind]
    if kind == "fixed":
        assert j.manifold is None
    else:
        assert j.manifold.dim == j.nv
    assert j.neutral().shape == (j.nq,)
    np.testing.assert_allclose(j.pose(j.neutral()), np.eye(4), atol=1e-15)


@pytest.mark.parametrize("kind", list(JOINTS))
def test_pose_and_transform_match_scipy_and_featherstone(kind, rng):
    j = JOINTS[kind]
    for q in j.random_configuration(rng, size=5):
        T = expected_pose(kind, q)
        np.testing.assert_allclose(j.pose(q), T, atol=1e-14)
        np.testing.assert_allclose(j.transform(q), featherstone_X(T), atol=1e-14)


@pytest.mark.parametrize("kind", MOVING)
def test_motion_subspace_is_body_twist_of_the_flow(kind, rng):
    """Φ v equals the child-frame twist d/dt of pose(integrate(q, v t)) at t = 0."""
    j = JOINTS[kind]
    for q, v in zip(j.random_configuration(rng, size=4), rng.normal(size=(4, j.nv)), strict=True):
        twist = body_twist_fd(j, q, v)
        np.testing.assert_allclose(j.motion_subspace(q) @ v, twist, atol=2e-9)


def test_motion_subspace_literal_values():
    np.testing.assert_allclose(Revolute(AXIS).motion_subspace([0.4])[:, 0], np.r_[UNIT, 0, 0, 0])
    np.testing.assert_allclose(Prismatic(AXIS).motion_subspace([0.4])[:, 0], np.r_[0, 0, 0, UNIT])
    np.testing.assert_allclose(
        Helical(AXIS, 0.07).motion_subspace([0.4])[:, 0], np.r_[UNIT, 0.07 * UNIT]
    )
    np.testing.assert_array_equal(FreeFlyer().motion_subspace(FreeFlyer().neutral()), np.eye(6))
    np.testing.assert_array_equal(Spherical().motion_subspace([0, 0, 0, 1.0])[:3], np.eye(3))


@pytest.mark.parametrize("kind", list(JOINTS))
def test_motion_subspace_rate_is_zero(kind, rng):
    j = JOINTS[kind]
    q, v = j.random_configuration(rng, size=3), rng.normal(size=(3, j.nv))
    rate = j.motion_subspace_rate(q, v)
    assert rate.shape == (3, 6, j.nv)
    assert not rate.any()


@pytest.mark.parametrize("kind", MOVING)
def test_integrate_derivative_matches_hand_derived_rate(kind, rng):
    j = JOINTS[kind]
    h = 1e-6
    for q, v in zip(j.random_configuration(rng, size=4), rng.normal(size=(4, j.nv)), strict=True):
        fd = (j.integrate(q, v, h) - j.integrate(q, v, -h)) / (2 * h)
        np.testing.assert_allclose(fd, coordinate_rate(kind, q, v), atol=1e-9)


@pytest.mark.parametrize("kind", MOVING)
def test_integrate_is_a_one_parameter_flow(kind, rng):
    """integrate(integrate(q, v, s), v, t) = integrate(q, v, s + t) (exp is a homomorphism)."""
    j = JOINTS[kind]
    q, v = j.random_configuration(rng), rng.normal(size=j.nv)
    a = j.integrate(j.integrate(q, v, 0.3), v, 0.5)
    b = j.integrate(q, v, 0.8)
    np.testing.assert_allclose(j.pose(a), j.pose(b), atol=1e-13)


@pytest.mark.parametrize("kind", MOVING)
def test_integrate_difference_round_trip(kind, rng):
    j = JOINTS[kind]
    q0 = j.random_configuration(rng, size=20)
    v = 0.5 * rng.normal(size=(20, j.nv))  # rotation angles below π: the log is unique
    np.testing.assert_allclose(j.difference(q0, j.integrate(q0, v)), v, atol=1e-12)
    q1 = j.random_configuration(rng, size=20)
    d = j.difference(q0, q1)
    np.testing.assert_allclose(j.pose(j.integrate(q0, d)), j.pose(q1), atol=1e-12)


def test_unwrapped_angles_are_reproduced_exactly():
    j = Planar()
    q0, q1 = np.array([0.1, -0.2, 0.0]), np.array([0.5, 0.3, 4.0])  # Δθ = 4 > π
    np.testing.assert_allclose(j.integrate(q0, j.difference(q0, q1)), q1, atol=1e-13)
    j = Revolute([0, 0, 1])
    assert j.difference([0.0], [7.0])[0] == 7.0


def test_quaternion_results_are_normalised(rng):
    j = FreeFlyer()
    q = j.integrate(j.random_configuration(rng, size=10), 5 * rng.normal(size=(10, 6)))
    np.testing.assert_allclose(np.linalg.norm(q[:, 3:], axis=-1), 1.0, atol=1e-15)


@pytest.mark.parametrize("kind", list(JOINTS))
def test_batched_equals_loop(kind, rng):
    j = JOINTS[kind]
    q = j.random_configuration(rng, size=(2, 3))
    v = rng.normal(size=(2, 3, j.nv))
    q1 = j.random_configuration(rng, size=(2, 3))
    batched = [
        j.pose(q),
        j.transform(q),
        j.motion_subspace(q),
        j.integrate(q, v, 0.2),
        j.difference(q, q1),
    ]
    for a in range(2):
        for b in range(3):
            single = [
                j.pose(q[a, b]),
                j.transform(q[a, b]),
                j.motion_subspace(q[a, b]),
                j.integrate(q[a, b], v[a, b], 0.2),
                j.difference(q[a, b], q1[a, b]),
            ]
            for x, y in zip(batched, single, strict=True):
                np.testing.assert_allclose(x[a, b], y, atol=1e-15)


def test_random_is_reproducible_and_in_range():
    q = Revolute([0, 0, 1]).random_configuration(rng=3, size=1000)
    assert q.shape == (1000, 1) and np.all(np.abs(q) <= np.pi)
    np.testing.assert_array_equal(q, Revolute([0, 0, 1]).random_configuration(rng=3, size=1000))
    np.testing.assert_allclose(
        np.linalg.norm(Spherical().random_configuration(0, 50), axis=-1), 1.0
    )


def test_literal_values():
    # a quarter turn about z maps x to y; Featherstone's E = Rᵀ maps y back to x
    j = Revolute([0, 0, 5.0])
    np.testing.assert_allclose(j.axis, [0, 0, 1])
    np.testing.assert_allclose(j.pose([np.pi / 2])[:3, :3] @ [1, 0, 0], [0, 1, 0], atol=1e-15)
    # a helical joint with pitch 0.5 m/rad advances π/2 m per half turn
    np.testing.assert_allclose(Helical([0, 0, 1], 0.5).pose([np.pi])[:3, 3], [0, 0, np.pi / 2])
    # planar quarter circle of radius 2/π: (ω, v_x) = (π/2, 1) for 1 s
    np.testing.assert_allclose(
        Planar().integrate([0, 0, 0], [np.pi / 2, 1.0, 0.0]), [2 / np.pi, 2 / np.pi, np.pi / 2]
    )
    # a free flyer yawed 90° moving along its body x moves along world y (Pinocchio's test)
    yaw = np.r_[0, 0, 0, 0, 0, np.sin(np.pi / 4), np.cos(np.pi / 4)]
    q = FreeFlyer().integrate(yaw, [0, 0, 0, 1.0, 0, 0])
    np.testing.assert_allclose(q[:3], [0, 1, 0], atol=1e-15)


# ---- validation -------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [Revolute, Prismatic])
def test_zero_axis_is_a_model_error_naming_the_joint(cls):
    with pytest.raises(ModelError, match="elbow.*nonzero `axis`"):
        cls([0.0, 0.0, 0.0], name="elbow")
    with pytest.raises(ModelError, match="nonzero"):
        cls(np.zeros(3))


def test_bad_axis_and_pitch():
    with pytest.raises(ModelError, match="wrist.*axis"):
        Revolute([1.0, 0.0], name="wrist")
    with pytest.raises(ModelError, match="screw.*nonzero"):
        Helical([0, 0, 0], 0.1, name="screw")
    with pytest.raises(ModelError, match="screw.*finite `pitch`"):
        Helical([0, 0, 1], np.inf, name="screw")
    with pytest.raises(ModelError, match="float `pitch`"):
        Helical([0, 0, 1], "a lot")
    with pytest.raises(ModelError, match="finite"):
        Revolute([np.nan, 0, 1])


def test_wrong_shapes_and_quaternions():
    with pytest.raises(DimensionError, match=r"`q` to have shape \(\.\.\., 4\)"):
        Spherical().pose([0.0, 0.0, 1.0])
    with pytest.raises(DimensionError, match=r"`v` to have shape \(\.\.\., 6\)"):
        FreeFlyer().integrate(FreeFlyer().neutral(), np.zeros(3))
    with pytest.raises(DimensionError, match="`q1`"):
        Planar().difference(np.zeros(3), np.zeros(4))
    with pytest.raises(NotOnManifoldError, match="unit quaternion"):
        Spherical().pose([0.0, 0.0, 0.0, 2.0])


def test_planar_difference_singular_at_full_turns():
    with pytest.raises(SingularityError, match="2π"):
        Planar().difference([0, 0, 0], [1.0, 0.0, 2 * np.pi])
    with pytest.raises(SingularityError, match="2π"):
        SchoenfliesJoint().difference([0, 0, 0, 0], [1.0, 0.0, 0.0, -2 * np.pi])


def test_repr_names_parameters():
    assert repr(Helical([0, 0, 1], 0.5, name="screw")) == (
        "Helical(axis=[0.0, 0.0, 1.0], pitch=0.5, name='screw')"
    )
    assert repr(FreeFlyer()) == "FreeFlyer()"
