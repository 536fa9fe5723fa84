"""Built-in models and shipped URDFs: structure, determinism and literal kinematics.

References: the UR5's standard Denavit–Hartenberg product (Universal Robots' published
table), closed-form SCARA and double-pendulum kinematics, Pinocchio's total mass of the
shipped URDFs, and ``is_physically_consistent`` for the random inertias.
"""

import numpy as np
import pinocchio as pin
import pytest

from geomech.errors import ModelError, URDFError
from geomech.multibody import FreeFlyer, Prismatic, Revolute, crba, robots
from geomech.spatial import is_physically_consistent


def chain_pose(model, q, body):
    """World pose of a body by composing placements and joint poses along its supports."""
    T = np.eye(4)
    for i in model.supports(model.body_index(body)):
        T = T @ model.placements[i] @ model.joints[i].pose(q[model.q_slices[i]])
    return T


def test_names_and_load():
    names = robots.names()
    assert names == sorted(names)
    assert {
        "serial_chain",
        "binary_tree",
        "random_tree",
        "double_pendulum",
        "scara",
        "quadruped",
        "humanoid",
        "jvrc1",
        "stretch",
        "ur5",
    } <= set(names)
    for name in names:
        assert robots.load(name).nv > 0


def test_load_options_and_errors(tmp_path):
    assert robots.load("humanoid", floating_base=False).nv == 24
    assert robots.load("humanoid", floating_base=True).nv == 30
    assert robots.load("serial_chain", floating_base=True).joint_names[0] == "root_joint"
    assert robots.load("jvrc1", floating_base=False).nv == 44
    with pytest.raises(URDFError, match="link 'base_link' is moved by joint 'root_joint'"):
        robots.load("ur5", floating_base=True)  # the UR5's base link has no inertial
    with pytest.raises(ModelError, match="'scara' has no `floating_base` option"):
        robots.load("scara", floating_base=True)
    with pytest.raises(ModelError, match="model name from .* or a URDF file path, got 'r2d2'"):
        robots.load("r2d2")
    with pytest.raises(ModelError, match="shipped URDF name from .*got 'r2d2'"):
        robots.urdf_path("r2d2")
    path = tmp_path / "copy.urdf"
    path.write_text(robots.urdf_path("ur5").read_text())
    assert robots.load(str(path)).joint_names == robots.load("ur5").joint_names


@pytest.mark.parametrize("factory", [robots.serial_chain, robots.binary_tree, robots.random_tree])
def test_generated_models(factory):
    m = factory(16, rng=3)
    assert m.n_bodies == 16 and bool(np.all(m.parent < np.arange(16)))
    assert bool(is_physically_consistent(m.inertias).all())
    # reproducible: None is seed 0, equal seeds give equal models, other seeds differ
    np.testing.assert_array_equal(factory(16).inertias, factory(16, rng=0).inertias)
    np.testing.assert_array_equal(factory(16, rng=3).placements, m.placements)
    assert not np.allclose(factory(16, rng=4).inertias, m.inertias)
    f = factory(16, rng=3, floating_base=True)
    assert isinstance(f.joints[0], FreeFlyer) and f.joint_names[0] == "root_joint"
    assert (f.parent[1:] >= 0).all()  # one floating base carries everything
    assert all(isinstance(j, (Revolute, Prismatic)) for j in m.joints)


def test_topologies():
    assert robots.serial_chain(8).depth == 8
    b = robots.binary_tree(31)
    assert b.depth == 5 and [len(b.children(i)) for i in range(b.n_bodies)].count(2) == 15
    assert robots.binary_tree(7).body_names == [
        "link1",
        "link2",
        "link4",
        "link5",
        "link3",
        "link6",
        "link7",
    ]
    kinds = robots.random_tree(200, rng=0).joint_types()
    assert kinds["prismatic"] > 20 and kinds["revolute"] > 100


def test_double_pendulum_rejects_negative_radius():
    with pytest.raises(ModelError, match="nonnegative `radius`, got -0.1"):
        robots.double_pendulum(radius=-0.1)


@pytest.mark.parametrize("n", [0, -3, 2.5, True])
def test_bad_sizes(n):
    with pytest.raises(ModelError, match="positive integer"):
        robots.serial_chain(n)


def test_random_inertia_is_consistent():
    inertias = robots.random_inertia(rng=1, size=(10, 20))
    assert inertias.shape == (10, 20, 6, 6)
    assert bool(is_physically_consistent(inertias).all())
    assert np.all((inertias[..., 5, 5] >= 0.5) & (inertias[..., 5, 5] <= 2.0))


def test_humanoid_is_deterministic_and_well_formed(rng):
    a, b = robots.humanoid(), robots.humanoid()
    np.testing.assert_array_equal(a.inertias, b.inertias)
    np.testing.assert_array_equal(a.placements, b.placements)
    assert (a.n_bodies, a.nq, a.nv, a.depth) == (25, 31, 30, 7)
    assert a.joint_types() == {"free_flyer": 1, "revolute": 24}
    np.testing.assert_allclose(a.inertias[:, 5, 5].sum(), 8 + 2 * 10 + 12 + 3.5 + 2 * 3.7)
    assert bool(is_physically_consistent(a.inertias).all())
    for q in a.random_configuration(rng, size=5):
        assert np.linalg.eigvalsh(crba(a, q))[0] > 1e-4  # H positive definite
    fixed = robots.humanoid(fixed_base=True)
    assert fixed.root == "pelvis" and fixed.nv == 24 and fixed.depth == 6


def test_quadruped():
    m = robots.quadruped()
    assert (m.nq, m.nv, m.depth) == (19, 18, 4)
    assert m.joint_names[:7] == [
        "root_joint",
        "LF_HAA",
        "LF_HFE",
        "LF_KFE",
        "LH_HAA",
        "LH_HFE",
        "LH_KFE",
    ]
    np.testing.assert_allclose(m.inertias[:, 5, 5].sum(), 12 + 4 * 3.0)
    # the left-front foot (knee + 0.3 m) at the neutral configuration
    foot = chain_pose(m, m.neutral(), "LF_shank") @ np.r_[0, 0, -0.3, 1]
    np.testing.assert_allclose(foot[:3], [0.3, 0.25, -0.6], atol=1e-15)


@pytest.mark.parametrize("r", [0.0, 0.1])
def test_double_pendulum_mass_matrix_closed_form(r):
    m1, m2, l1, l2 = 1.5, 0.7, 0.9, 0.6
    model = robots.double_pendulum(m1, m2, l1, l2, radius=r)
    J1, J2 = 0.4 * m1 * r**2, 0.4 * m2 * r**2  # solid spheres
    for q2 in (0.0, 0.4, 2.0):
        c = np.cos(q2)
        H = np.array(
            [
                [
                    (m1 + m2) * l1**2 + m2 * l2**2 + 2 * m2 * l1 * l2 * c + J1 + J2,
                    m2 * l2**2 + m2 * l1 * l2 * c + J2,
                ],
                [m2 * l2**2 + m2 * l1 * l2 * c + J2, m2 * l2**2 + J2],
            ]
        )
        np.testing.assert_allclose(crba(model, [0.3, q2]), H, atol=1e-14)
    eig = np.linalg.eigvalsh(model.inertias)[:, 0]
    assert np.all(eig > 1e-4) if r > 0 else np.allclose(eig, 0.0)
    # mass 2 sits at l1 + l2 below the pivot at q = 0
    tip = chain_pose(model, np.zeros(2), "link2") @ np.r_[0, 0, -l2, 1]
    np.testing.assert_allclose(tip[:3], [0, 0, -(l1 + l2)])


def test_scara_moves_in_the_schoenflies_group(rng):
    m = robots.scara()
    for q in m.random_configuration(rng, size=5):
        t1, t2, d, t4 = q
        T = chain_pose(m, q, "tool")
        expected = [
            0.35 * np.cos(t1) + 0.3 * np.cos(t1 + t2),
            0.35 * np.sin(t1) + 0.3 * np.sin(t1 + t2),
            0.4 + d - 0.2,
        ]
        np.testing.assert_allclose(T[:3, 3], expected, atol=1e-15)
        yaw = t1 + t2 + t4
        Rz = np.array([[np.cos(yaw), -np.sin(yaw), 0], [np.sin(yaw), np.cos(yaw), 0], [0, 0, 1]])
        np.testing.assert_allclose(T[:3, :3], Rz, atol=1e-15)


def ur5_dh(q):
    """Standard DH product with Universal Robots' published UR5 table."""
    d = [0.089159, 0.0, 0.0, 0.10915, 0.09465, 0.0823]
    a = [0.0, -0.425, -0.39225, 0.0, 0.0, 0.0]
    alpha = [np.pi / 2, 0, 0, np.pi / 2, -np.pi / 2, 0]
    T = np.eye(4)
    for i in range(6):
        c, s, ca, sa = np.cos(q[i]), np.sin(q[i]), np.cos(alpha[i]), np.sin(alpha[i])
        T = T @ np.array(
            [
                [c, -s * ca, s * sa, a[i] * c],
                [s, c * ca, -c * sa, a[i] * s],
                [0, sa, ca, d[i]],
                [0, 0, 0, 1],
            ]
        )
    return T


def test_ur5_matches_published_dh_kinematics(rng):
    m = robots.load("ur5")
    tool0 = dict(m.graph.nodes["wrist_3_link"]["links"])["tool0"]
    for q in m.random_configuration(rng, size=5):
        np.testing.assert_allclose(chain_pose(m, q, "wrist_3_link") @ tool0, ur5_dh(q), atol=1e-14)
    np.testing.assert_allclose(m.inertias[:, 5, 5], [3.7, 8.393, 2.275, 1.219, 1.219, 0.1879])


@pytest.mark.parametrize("name", ["jvrc1", "stretch", "ur5"])
def test_shipped_masses_match_pinocchio(name):
    path = robots.urdf_path(name)
    pm = pin.buildModelFromUrdf(str(path))
    model = robots.load(name, floating_base=False)
    root_mass = model.graph.nodes[model.root].get("base_inertia", np.zeros((6, 6)))[5, 5]
    np.testing.assert_allclose(
        model.inertias[:, 5, 5].sum() + root_mass,
        pin.computeTotalMass(pm) + pm.inertias[0].mass,
        rtol=1e-12,
    )
