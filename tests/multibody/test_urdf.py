"""URDF input/output: semantics against hand-computed inertias and poses, round trips, Pinocchio.

References: scipy's extrinsic Euler angles for URDF ``rpy``; inertias merged by hand with the
parallel-axis theorem; Pinocchio's URDF loader (urdfdom) for joint order, ``nq``/``nv``,
placements and inertias of the shipped robots and of every built-in model written out.
"""

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from scipy.spatial.transform import Rotation

from geomech.errors import DimensionError, URDFError
from geomech.multibody import (
    FreeFlyer,
    Helical,
    MultibodyModel,
    Planar,
    Prismatic,
    Revolute,
    Spherical,
    load_urdf,
    robots,
    to_urdf,
)
from geomech.multibody.io.urdf import matrix_to_rpy, rpy_to_matrix

# angular-first <-> Pinocchio's linear-first
SWAP = np.block([[np.zeros((3, 3)), np.eye(3)], [np.eye(3), np.zeros((3, 3))]])

ROBOT = """<robot name="test_bot">
  <link name="base"><inertial><mass value="100"/>
    <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="arm">
    <inertial>
      <origin xyz="0.1 0.2 0.3" rpy="0.3 -0.2 0.1"/>
      <mass value="2.0"/>
      <inertia ixx="0.04" ixy="0.001" ixz="-0.002" iyy="0.05" iyz="0.003" izz="0.06"/>
    </inertial>
    <visual><geometry><mesh filename="package://nowhere/arm.dae"/></geometry></visual>
  </link>
  <link name="sensor">
    <inertial><origin xyz="0 0 0.05"/><mass value="0.5"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.002"/></inertial>
  </link>
  <link name="tip"/>
  <link name="forearm">
    <inertial><mass value="1.0"/><origin xyz="0.25 0 0"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial>
  </link>
  <link name="slider">
    <inertial><mass value="0"/>
      <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>
  </link>
  <joint name="shoulder" type="revolute">
    <origin xyz="0 0 1" rpy="0 0 1.5707963267948966"/>
    <parent link="base"/><child link="arm"/>
    <axis xyz="0 0 2"/>
    <limit lower="-1" upper="1" effort="10" velocity="2"/>
  </joint>
  <joint name="sensor_mount" type="fixed">
    <origin xyz="0.5 0 0" rpy="1.5707963267948966 0 0"/>
    <parent link="arm"/><child link="sensor"/>
  </joint>
  <joint name="tip_frame" type="fixed">
    <origin xyz="0 0 0.1"/>
    <parent link="sensor"/><child link="tip"/>
  </joint>
  <joint name="elbow" type="continuous">
    <origin xyz="0 0.2 0" rpy="0.1 0.2 0.3"/>
    <parent link="tip"/><child link="forearm"/>
    <axis xyz="0 1 0"/>
    <mimic joint="shoulder" multiplier="2"/>
  </joint>
  <joint name="extend" type="prismatic">
    <parent link="forearm"/><child link="slider"/>
    <axis xyz="1 0 0"/>
    <limit lower="0" upper="0.3" effort="10" velocity="1"/>
  </joint>
</robot>
"""


def pose(xyz=(0, 0, 0), rpy=(0, 0, 0)):
    T = np.eye(4)
    T[:3, :3] = Rotation.from_euler("xyz", rpy).as_matrix()  # extrinsic x, y, z = Rz Ry Rx
    T[:3, 3] = xyz
    return T


def inertia_about_origin(m, c, Ic):
    """Spatial inertia by the parallel-axis theorem, written out (Featherstone eq. 2.63)."""
    c = np.asarray(c, dtype=float)
    C = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
    return np.block([[Ic + m * C @ C.T, m * C], [m * C.T, m * np.eye(3)]])


def rigid_inertia(T, m, c, Ic):
    """Inertia of (m, c, Ic) given in a frame F, expressed in a frame whose pose of F is T."""
    R, p = T[:3, :3], T[:3, 3]
    return inertia_about_origin(m, R @ c + p, R @ Ic @ R.T)


def test_rpy_convention_matches_scipy(rng):
    rpy = rng.uniform(-np.pi, np.pi, (50, 3))
    rpy[:, 1] /= 2
    np.testing.assert_allclose(
        rpy_to_matrix(rpy), Rotation.from_euler("xyz", rpy).as_matrix(), atol=1e-15
    )
    np.testing.assert_allclose(matrix_to_rpy(rpy_to_matrix(rpy)), rpy, atol=1e-12)


def test_rpy_helpers_validate_shapes():
    with pytest.raises(DimensionError, match=r"`rpy` to have shape \(\.\.\., 3\)"):
        rpy_to_matrix([0.1, 0.2])
    with pytest.raises(DimensionError, match=r"`R` to have shape \(\.\.\., 3, 3\)"):
        matrix_to_rpy(np.eye(4))


@pytest.mark.parametrize("pitch", [np.pi / 2, -np.pi / 2])
def test_matrix_to_rpy_at_gimbal_lock(pitch):
    R = rpy_to_matrix([0.4, pitch, -0.7])
    np.testing.assert_allclose(rpy_to_matrix(matrix_to_rpy(R)), R, atol=1e-15)


def test_semantics_of_a_hand_written_urdf():
    m = load_urdf(ROBOT)
    assert m.root == "base" and m.graph.graph["name"] == "test_bot"
    assert m.body_names == ["arm", "forearm", "slider"]
    assert m.joint_names == ["shoulder", "elbow", "extend"]
    assert m.parent.tolist() == [-1, 0, 1] and (m.nq, m.nv) == (3, 3)
    assert [type(j) for j in m.joints] == [Revolute, Revolute, Prismatic]  # continuous: 1 angle
    np.testing.assert_allclose(m.joints[0].axis, [0, 0, 1])
    # placements: joint origin; the elbow hangs from the welded tip: compose the fixed chain
    np.testing.assert_allclose(m.placements[0], pose([0, 0, 1], [0, 0, np.pi / 2]), atol=1e-15)
    T_arm_tip = pose([0.5, 0, 0], [np.pi / 2, 0, 0]) @ pose([0, 0, 0.1])
    np.testing.assert_allclose(
        m.placements[1], T_arm_tip @ pose([0, 0.2, 0], [0.1, 0.2, 0.3]), atol=1e-15
    )
    # inertias: arm (rotated inertial frame) + sensor welded at 0.5 m, rotated 90° about x
    Ic_arm = np.array([[0.04, 0.001, -0.002], [0.001, 0.05, 0.003], [-0.002, 0.003, 0.06]])
    I_arm = rigid_inertia(pose([0.1, 0.2, 0.3], [0.3, -0.2, 0.1]), 2.0, np.zeros(3), Ic_arm)
    I_sensor = rigid_inertia(
        pose([0.5, 0, 0], [np.pi / 2, 0, 0]), 0.5, [0, 0, 0.05], np.diag([1e-3, 1e-3, 2e-3])
    )
    np.testing.assert_allclose(m.inertias[0], I_arm + I_sensor, atol=1e-15)
    np.testing.assert_allclose(
        m.inertias[1], inertia_about_origin(1.0, [0.25, 0, 0], np.diag([1e-3, 0.02, 0.02]))
    )
    assert not m.inertias[2].any()  # zero-mass link accepted
    # merged links are kept with their poses in the body frame
    links = dict(m.graph.nodes["arm"]["links"])
    assert set(links) == {"arm", "sensor", "tip"}
    np.testing.assert_allclose(links["tip"], T_arm_tip, atol=1e-15)
    # limits and URDF types are kept on the edges; the base inertia is kept as metadata
    edge = m.graph.edges["arm", "forearm"]
    assert edge["urdf_type"] == "continuous" and edge["limits"] is None
    assert m.graph.edges["base", "arm"]["limits"]["upper"] == "1"
    assert "base_inertia" in m.graph.nodes["base"]


def test_floating_base_adds_root_joint():
    m = load_urdf(ROBOT, floating_base=True)
    assert m.root == "universe" and m.joint_names[0] == "root_joint"
    assert isinstance(m.joints[0], FreeFlyer) and (m.nq, m.nv) == (10, 9)
    np.testing.assert_allclose(m.inertias[0], inertia_about_origin(100.0, np.zeros(3), np.eye(3)))


def test_floating_and_planar_joint_types():
    text = """<robot name="r">
      <link name="world"/>
      <link name="puck"><inertial><mass value="1"/>
        <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
      <link name="drone"><inertial><mass value="1"/>
        <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
      <joint name="a_slide" type="planar"><parent link="world"/><child link="puck"/>
        <axis xyz="0 0 1"/></joint>
      <joint name="b_fly" type="floating"><parent link="world"/><child link="drone"/></joint>
    </robot>"""
    m = load_urdf(text)
    assert [type(j) for j in m.joints] == [Planar, FreeFlyer] and m.nv == 9


def test_file_paths_and_bytes(tmp_path):
    path = tmp_path / "bot.urdf"
    path.write_text(ROBOT)
    for source in (path, str(path), ROBOT.encode()):
        assert load_urdf(source).joint_names == ["shoulder", "elbow", "extend"]


# ---- round trips -------------------------------------------------------------------------
def assert_same_model(a: MultibodyModel, b: MultibodyModel, atol=1e-13):
    assert sorted(a.joint_names) == sorted(b.joint_names)
    assert (a.nq, a.nv, a.n_bodies) == (b.nq, b.nv, b.n_bodies)
    for name in a.joint_names:
        i, k = a.joint_names.index(name), b.joint_names.index(name)
        ja, jb = a.joints[i], b.joints[k]
        assert type(ja) is type(jb)
        if hasattr(ja, "axis"):
            np.testing.assert_allclose(ja.axis, jb.axis, atol=atol)
        np.testing.assert_allclose(a.placements[i], b.placements[k], atol=atol)
        np.testing.assert_allclose(a.inertias[i], b.inertias[k], atol=atol)
        pa = a.body_names[a.parent[i]] if a.parent[i] >= 0 else None
        pb = b.body_names[b.parent[k]] if b.parent[k] >= 0 else None
        assert pa == pb


@pytest.mark.parametrize("name", robots.names())
def test_round_trip_of_every_named_model(name):
    model = robots.load(name)
    assert_same_model(load_urdf(to_urdf(model)), model)


def test_round_trip_keeps_continuous_joints_and_limits():
    m = load_urdf(ROBOT)
    text = to_urdf(m)
    assert 'name="elbow" type="continuous"' in text and 'lower="-1"' in text
    assert_same_model(load_urdf(text), m)


@pytest.mark.parametrize("seed", range(3))
def test_round_trip_of_random_trees(seed):
    model = robots.random_tree(40, rng=seed, floating_base=bool(seed % 2))
    assert_same_model(load_urdf(to_urdf(model)), model)


# ---- Pinocchio loads the same files the same way -----------------------------------------
def pin_model(source, floating_base=False):
    args = [pin.JointModelFreeFlyer()] if floating_base else []
    if isinstance(source, str) and source.lstrip().startswith("<"):
        return pin.buildModelFromXML(source, *args)
    return pin.buildModelFromUrdf(str(source), *args)


def assert_matches_pinocchio(model: MultibodyModel, pm):
    """Same joint order, nv, nq (continuous joints: 2 in Pinocchio), placements, inertias."""
    assert list(pm.names)[1:] == model.joint_names
    nq_pin = 0
    for j in range(1, pm.njoints):
        i = j - 1
        name = pm.names[j]
        assert model.joint_names[i] == name
        assert pm.joints[j].nv == model.joints[i].nv
        nq_pin += pm.joints[j].nq
        expected_nq = (
            2 if pm.joints[j].shortname().startswith("JointModelRUB") else model.joints[i].nq
        )
        assert pm.joints[j].nq == expected_nq
        assert pm.parents[j] - 1 == model.parent[i]
        np.testing.assert_allclose(
            SWAP @ pm.inertias[j].matrix() @ SWAP, model.inertias[i], atol=1e-12
        )
        if not isinstance(model.joints[i], FreeFlyer):
            np.testing.assert_allclose(
                pm.jointPlacements[j].homogeneous, model.placements[i], atol=1e-12
            )
    assert pm.nv == model.nv and pm.nq == nq_pin


@pytest.mark.parametrize(
    ("name", "floating_base"),
    [("jvrc1", True), ("jvrc1", False), ("stretch", False), ("ur5", False)],
)
def test_shipped_urdfs_load_as_in_pinocchio(name, floating_base):
    path = robots.urdf_path(name)
    assert_matches_pinocchio(load_urdf(path, floating_base), pin_model(path, floating_base))


def test_shipped_urdf_sizes():
    sizes = {
        name: (robots.load(name).nq, robots.load(name).nv) for name in ("jvrc1", "stretch", "ur5")
    }
    assert sizes == {"jvrc1": (51, 50), "stretch": (14, 14), "ur5": (6, 6)}
    stretch = robots.load("stretch")
    assert stretch.joint_types() == {"prismatic": 5, "revolute": 9}
    assert stretch.graph.edges["base_link", "link_left_wheel"]["urdf_type"] == "continuous"


@pytest.mark.parametrize(
    "name",
    [
        "double_pendulum",
        "scara",
        "quadruped",
        "humanoid",
        "serial_chain",
        "binary_tree",
        "random_tree",
    ],
)
def test_builtin_models_written_out_load_in_pinocchio(name):
    model = robots.load(name)
    text = to_urdf(model)
    assert_matches_pinocchio(load_urdf(text), pin_model(text))


@pytest.mark.parametrize("source", [ROBOT, robots.urdf_path("stretch")])
def test_floating_base_matches_pinocchio_free_flyer(source):
    assert_matches_pinocchio(load_urdf(source, floating_base=True), pin_model(source, True))


def test_hand_written_urdf_matches_pinocchio():
    assert_matches_pinocchio(load_urdf(ROBOT), pin_model(ROBOT))


# ---- errors (issue item 3): each names the link or joint ----------------------------------
def robot(body: str) -> str:
    return f'<robot name="bad">{body}</robot>'


LINK = (
    '<link name="{0}"><inertial><mass value="1"/>'
    '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>'
)
BASE = '<link name="base"/>'


def joint(name="j1", jtype="revolute", child="arm", extra=""):
    return (
        f'<joint name="{name}" type="{jtype}"><parent link="base"/>'
        f'<child link="{child}"/>{extra}</joint>'
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<robot><link name='a'></robot>", "Malformed URDF XML: mismatched tag: line 1"),
        ("<model/>", "Expected a <robot> root element, got <model>"),
        (
            robot(BASE + LINK.format("arm") + joint(jtype="ball")),
            "joint 'j1': unknown joint type 'ball'",
        ),
        (robot(BASE + LINK.format("arm") + joint(jtype=None)), "joint 'j1': unknown joint type"),
        (
            robot(BASE + '<link name="arm"/>' + joint(name="hinge")),
            "link 'arm' is moved by joint 'hinge' but has no <inertial>",
        ),
        (
            robot(
                BASE + '<link name="arm"><inertial><mass value="-2"/></inertial></link>' + joint()
            ),
            "link 'arm': expected a nonnegative mass, got -2",
        ),
        (
            robot(
                BASE + '<link name="arm"><inertial><mass value="1"/><inertia ixx="1" ixy="2" '
                'ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>' + joint()
            ),
            "link 'arm': expected a positive semi-definite rotational inertia",
        ),
        (
            robot(
                BASE
                + '<link name="arm"><inertial><mass value="heavy"/></inertial></link>'
                + joint()
            ),
            r"link 'arm' <mass value>: expected 1 numbers, got 'heavy'",
        ),
        (
            robot(BASE + '<link name="arm"><inertial/></link>' + joint()),
            "link 'arm': <inertial> has no <mass>",
        ),
        (
            robot(BASE + LINK.format("arm") + joint(extra='<axis xyz="0 0 0"/>')),
            r"joint 'j1': expected a nonzero <axis>, got \[0.0, 0.0, 0.0\]",
        ),
        (
            robot(BASE + LINK.format("arm") + joint(extra='<axis xyz="0 0"/>')),
            "joint 'j1' <axis xyz>: expected 3 finite numbers",
        ),
        (
            robot(BASE + LINK.format("arm") + joint(extra='<origin xyz="0 0 nan"/>')),
            "joint 'j1' <origin xyz>: expected 3 finite numbers",
        ),
        (
            robot(BASE + LINK.format("arm") + joint(child="hand")),
            "joint 'j1': child link 'hand' is not defined",
        ),
        (
            robot(
                BASE + LINK.format("arm") + '<joint name="j1" type="fixed"><child link="arm"/>'
                "</joint>"
            ),
            "joint 'j1': missing <parent link=...>",
        ),
        (
            robot(BASE + LINK.format("arm") + joint() + joint(name="j2")),
            "link 'arm' is the child of two joints \\('j1' and 'j2'\\)",
        ),
        (
            robot(BASE + LINK.format("arm") + LINK.format("leg") + joint()),
            r"exactly one root link .*got 2: \['base', 'leg'\]",
        ),
        (
            robot(
                LINK.format("a")
                + LINK.format("b")
                + '<joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>'
                + '<joint name="ba" type="fixed"><parent link="b"/><child link="a"/></joint>'
            ),
            "the joints form a cycle",
        ),
        (
            robot(BASE + LINK.format("arm") + LINK.format("arm")),
            "link 'arm' is defined more than once",
        ),
        (
            robot(BASE + LINK.format("arm") + joint() + joint()),
            "joint 'j1' is defined more than once",
        ),
        (robot("<link/>"), "<link> without a name"),
        (
            robot(BASE + LINK.format("arm") + joint(jtype="planar", extra='<axis xyz="1 0 0"/>')),
            "joint 'j1': planar joints must move in the joint frame's xy-plane",
        ),
    ],
)
def test_malformed_urdfs(text, message):
    with pytest.raises(URDFError, match=message):
        load_urdf(text)


def test_missing_file_and_wrong_type(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a short path: messages shorten paths past 80 characters
    with pytest.raises(URDFError, match="Cannot read URDF file 'nothing.urdf'"):
        load_urdf(Path("nothing.urdf"))
    with pytest.raises(URDFError, match="file path or a URDF XML string, got int"):
        load_urdf(42)


def test_a_long_missing_path_is_shown_by_its_end(tmp_path):
    """A path longer than a message line keeps its file name (the start is cut instead)."""
    path = tmp_path.joinpath(*(["a_rather_long_directory_name"] * 4), "the_robot.urdf")
    with pytest.raises(URDFError, match=r"Cannot read URDF file '\.\.\..*the_robot\.urdf': no"):
        load_urdf(path)


def test_reserved_world_name():
    text = robot('<link name="universe"/>')
    with pytest.raises(URDFError, match="link 'universe': the name is reserved"):
        load_urdf(text, floating_base=True)


@pytest.mark.parametrize("joint_model", [Spherical(), Helical([0, 0, 1], 0.1)])
def test_to_urdf_rejects_joints_without_urdf_equivalent(joint_model):
    model = MultibodyModel.from_bodies([-1], [joint_model], [np.eye(6)], joint_names=["ball"])
    with pytest.raises(URDFError, match=f"joint 'ball': a {joint_model.kind} joint has no URDF"):
        to_urdf(model)


def test_round_trip_of_planar_and_inner_free_flyer_joints():
    T = np.eye(4)
    T[:3, 3] = [0.1, 0.2, 0.3]
    inertia = robots.random_inertia(rng=2, size=3)
    model = MultibodyModel.from_bodies(
        [-1, 0, 1],
        [Planar(), Revolute([0, 1, 1]), FreeFlyer()],
        inertia,
        [T] * 3,
        joint_names=["slide", "turn", "fly"],
    )
    text = to_urdf(model)
    assert 'type="planar"' in text and 'type="floating"' in text
    assert_same_model(load_urdf(text), model)
    pm = pin_model(text)
    assert [j.shortname() for j in pm.joints][1:] == [
        "JointModelPlanar",
        "JointModelRevoluteUnaligned",
        "JointModelFreeFlyer",
    ]
    assert pm.nv == model.nv
