"""Issue 17 item 1: lenient loading as Pinocchio loads, clear messages, joint order kept by to_urdf.

References: Pinocchio's URDF loader (urdfdom) on the same text for the model and its
dynamics (RNEA, CRBA); the file's values as written for the inertias.
"""

import warnings

import networkx as nx
import numpy as np
import pinocchio as pin
import pytest

from geomech.errors import ModelError, URDFError, URDFWarning
from geomech.interop.pinocchio import PinocchioBridge
from geomech.multibody import MultibodyModel, Prismatic, Revolute, crba, rnea, robots
from geomech.multibody.io.urdf import load_urdf, to_urdf
from geomech.multibody.model.tree import check_inertia
from geomech.spatial import spatial_inertia

# a moved link without <inertial> ("human"), a rotational inertia a hair from PSD ("tiago"),
# and one far from it ("romeo_laas_small"), in one small robot
DEFECTIVE = """<robot name="defective">
  <link name="base"/>
  <link name="virtual"/>
  <link name="thigh"><inertial><origin xyz="0 0 -0.2"/><mass value="3"/>
    <inertia ixx="0.05" ixy="0" ixz="0" iyy="0.05" iyz="0" izz="0.01"/></inertial></link>
  <link name="antenna"><inertial><mass value="1e-6"/>
    <inertia ixx="1e-8" ixy="0" ixz="0" iyy="1e-8" iyz="3.6e-8" izz="1e-8"/></inertial></link>
  <link name="body"><inertial><mass value="2"/>
    <inertia ixx="0.01" ixy="0.03" ixz="0" iyy="0.01" iyz="0" izz="0.02"/></inertial></link>
  <joint name="hip_z" type="revolute"><parent link="base"/><child link="virtual"/>
    <axis xyz="0 0 1"/>{LIMIT}</joint>
  <joint name="hip_x" type="revolute"><parent link="virtual"/><child link="thigh"/>
    <axis xyz="1 0 0"/>{LIMIT}</joint>
  <joint name="mast" type="prismatic"><parent link="thigh"/><child link="antenna"/>
    <origin xyz="0 0.1 0"/><axis xyz="0 0 1"/>{LIMIT}</joint>
  <joint name="spine" type="revolute"><parent link="thigh"/><child link="body"/>
    <origin xyz="0 0 -0.4"/><axis xyz="0 1 0"/>{LIMIT}</joint>
</robot>""".replace(
    "{LIMIT}", '<limit lower="-1" upper="1" effort="10" velocity="2"/>'
)  # urdfdom needs them


def load_leniently(text, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = load_urdf(text, strict=False, **kwargs)
    return model, [w for w in caught if issubclass(w.category, URDFWarning)]


def test_strict_rejects_each_defect_naming_the_link():
    with pytest.raises(URDFError, match="link 'antenna': expected a positive semi-definite"):
        load_urdf(DEFECTIVE)
    no_tiny = DEFECTIVE.replace('iyz="3.6e-8"', 'iyz="0"')
    with pytest.raises(URDFError, match="link 'body': expected a positive semi-definite"):
        load_urdf(no_tiny)
    only_virtual = no_tiny.replace('ixy="0.03"', 'ixy="0"')
    with pytest.raises(URDFError, match="link 'virtual' is moved by joint 'hip_z' but has no"):
        load_urdf(only_virtual)


def test_lenient_loads_with_one_warning_naming_each_defective_link():
    model, caught = load_leniently(DEFECTIVE)
    assert len(caught) == 1
    lines = str(caught[0].message).splitlines()
    assert lines[0] == "load_urdf(strict=False) kept 3 defect(s) of robot 'defective' as written:"
    assert sorted(lines[1:]) == sorted([
        "  link 'virtual': moved by joint 'hip_z' but has no <inertial> (zero inertia)",
        "  link 'antenna': rotational inertia not positive semi-definite (smallest eigenvalue "
        "-2.6e-08)",
        "  link 'body': rotational inertia not positive semi-definite (smallest eigenvalue "
        "-0.02)",
    ])  # fmt: skip
    # the file's values as written: zero inertia, the indefinite inertias unchanged
    i = model.body_index("virtual")
    np.testing.assert_array_equal(model.inertias[i], np.zeros((6, 6)))
    Ic = np.array([[0.01, 0.03, 0.0], [0.03, 0.01, 0.0], [0.0, 0.0, 0.02]])
    np.testing.assert_array_equal(model.inertias[model.body_index("body")],
                                  spatial_inertia(2.0, np.zeros(3), Ic))  # fmt: skip
    assert model.graph.graph["strict"] is False


def test_lenient_dynamics_equal_pinocchios():
    model, _ = load_leniently(DEFECTIVE)
    pm = pin.buildModelFromXML(DEFECTIVE)
    bridge = PinocchioBridge(model, pm)
    assert list(pm.names)[1:] == model.joint_names
    rng = np.random.default_rng(7)
    for _ in range(5):
        q = model.random_configuration(rng)
        v, a = rng.normal(size=(2, model.nv))
        np.testing.assert_allclose(rnea(model, q, v, a), bridge.rnea(q, v, a), rtol=1e-12,
                                   atol=1e-12)  # fmt: skip
        np.testing.assert_allclose(crba(model, q), bridge.crba(q), rtol=1e-12, atol=1e-14)


def test_lenient_model_stays_lenient_when_rebuilt():
    model, _ = load_leniently(DEFECTIVE)
    heavier = model.with_inertias(2.0 * model.inertias)
    np.testing.assert_array_equal(heavier.inertias, 2.0 * model.inertias)
    with pytest.raises(ModelError, match="positive semi-definite"):
        MultibodyModel(model.graph, strict=True)


def test_lenient_accepts_a_negative_mass_with_a_warning():
    text = DEFECTIVE.replace('<mass value="3"/>', '<mass value="-3"/>')
    with pytest.raises(URDFError, match="link 'thigh': expected a nonnegative mass, got -3"):
        load_urdf(text)
    model, caught = load_leniently(text)
    assert "link 'thigh': negative mass -3" in str(caught[0].message)
    assert model.inertias[model.body_index("thigh"), 5, 5] == -3.0


def test_lenient_keeps_every_other_check():
    for text, message in [
        (DEFECTIVE.replace('type="prismatic"', 'type="ball"'), "unknown joint type 'ball'"),
        (DEFECTIVE.replace('<mass value="2"/>', '<mass value="1e-320"/>'), "subnormal"),
        (DEFECTIVE.replace('<mass value="2"/>', '<mass value="1e-13"/>'), "URDFLimits.min_mass"),
        ("<robot/>", "has no <link>"),
    ]:
        with pytest.raises(URDFError, match=message):
            load_urdf(text, strict=False)


def test_strict_load_of_a_clean_file_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_urdf(to_urdf(robots.double_pendulum()), strict=False)


def test_empty_robot_has_its_own_message():
    with pytest.raises(URDFError, match=r"^The <robot> 'ur3' has no <link>: an empty robot "
                                        r"description \(nothing to load\)\.$"):  # fmt: skip
        load_urdf('<?xml version="1.0"?><robot name="ur3"><!-- nothing --></robot>')
    with pytest.raises(URDFError, match=r"^The <robot> has no <link>"):
        load_urdf('<robot xmlns:xacro="http://wiki.ros.org/xacro"></robot>')


# ---- check_inertia and the constructor's strictness ---------------------------------------
def test_check_inertia_strictness_and_subnormal_mass():
    indefinite = spatial_inertia(1.0, np.zeros(3), np.diag([1.0, 1.0, -0.5]))
    with pytest.raises(ModelError, match="positive semi-definite"):
        check_inertia(indefinite)
    np.testing.assert_array_equal(check_inertia(indefinite, strict=False), indefinite)
    with pytest.raises(ModelError, match="nonnegative mass"):
        check_inertia(-np.eye(6))
    check_inertia(-np.eye(6), strict=False)
    with pytest.raises(ModelError, match="the subnormal 1e-320"):
        check_inertia(spatial_inertia(1e-320, np.zeros(3), np.zeros((3, 3))), strict=False)
    with pytest.raises(ModelError, match="to be symmetric"):
        check_inertia(np.triu(np.ones((6, 6))), strict=False)  # the form is always required
    huge = spatial_inertia(1e308, np.zeros(3), 1e308 * np.eye(3))
    np.testing.assert_array_equal(check_inertia(huge), huge)  # no LinAlgError on overflow


# ---- to_urdf keeps the joint order ---------------------------------------------------------
@pytest.mark.parametrize("name", robots.names())
def test_round_trip_keeps_the_joint_order(name):
    model = robots.load(name)
    again = load_urdf(to_urdf(model))
    assert again.joint_names == model.joint_names
    assert [s.start for s in again.q_slices] == [s.start for s in model.q_slices]
    np.testing.assert_allclose(again.inertias, model.inertias, atol=1e-13)


@pytest.mark.parametrize("seed", range(4))
def test_round_trip_of_random_trees_keeps_the_order_as_pinocchio_reads_it(seed):
    model = robots.random_tree(30, rng=seed, floating_base=bool(seed % 2))
    text = to_urdf(model)
    assert load_urdf(text).joint_names == model.joint_names
    assert list(pin.buildModelFromXML(text).names)[1:] == model.joint_names


def test_ordering_links_avoid_existing_names():
    """Siblings 'b' before 'a', with a body already named like the first ordering link."""
    G = nx.DiGraph(name="clash")
    inertia = spatial_inertia(1.0, [0.1, 0.0, 0.0], 0.01 * np.eye(3))
    G.add_node("world")
    for child, jname in (("world__order0", "b"), ("leaf", "a")):
        G.add_node(child, inertia=inertia)
        G.add_edge("world", child, joint=Revolute([0, 0, 1]), name=jname)
    G.add_node("tip", inertia=inertia)
    G.add_edge("world__order0", "tip", joint=Prismatic([1, 0, 0]), name="world__order1")
    model = MultibodyModel(G)
    assert model.joint_names == ["b", "world__order1", "a"]
    text = to_urdf(model)
    assert 'name="world__order_0"' in text  # the prefix grew past the existing names
    again = load_urdf(text)
    assert again.joint_names == model.joint_names
    assert list(pin.buildModelFromXML(text).names)[1:] == model.joint_names
    np.testing.assert_allclose(again.inertias, model.inertias, atol=1e-13)
