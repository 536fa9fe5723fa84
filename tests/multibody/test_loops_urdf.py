"""URDF+ import and export: ``<loop>``, ``<coupling>`` and the ``independent`` attribute.

The round trip ``load_urdf(to_urdf(model))`` keeps the q layout, the independent joints and
the dynamics; loop origins on links welded by fixed joints are composed into the body frame
(checked against the same mechanism written without the weld); every parse error names the
element.
"""

import numpy as np
import pytest
from loops_helpers import rel_err

from geomech.errors import ModelError, URDFError
from geomech.multibody import ClosedMultibodyModel, Helical, Revolute
from geomech.multibody.closed.dynamics import projected_aba
from geomech.multibody.closed.model import ImplicitConstraint
from geomech.multibody.io.examples import example_names, example_path, load_example
from geomech.multibody.io.urdf import load_urdf, to_urdf

INERTIAL = (
    '<inertial><origin xyz="{x} 0 {z}"/><mass value="{m}"/>'
    '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>'
)


def link(name, x=0.0, z=0.0, m=1.0):
    return f'<link name="{name}">{INERTIAL.format(x=x, z=z, m=m)}</link>'


def four_bar_text(
    extra="",
    coupler_loop_link="coupler",
    coupler_loop_xyz="0.32 0 0.1",
    welded="",
    coupler_loop_rpy="0 0 0",
):
    return f"""<robot name="fb">
      <link name="ground"/>
      {link("crank", z=0.075, m=0.5)}{link("coupler", 0.16, 0.05)}{link("rocker", 0.01, 0.125, 0.8)}
      {welded}
      <joint name="crank_joint" type="continuous"><parent link="ground"/><child link="crank"/>
        <axis xyz="0 1 0"/></joint>
      <joint name="coupler_joint" type="continuous" independent="false"><parent link="crank"/>
        <child link="coupler"/><origin xyz="0 0 0.15"/><axis xyz="0 1 0"/></joint>
      <joint name="rocker_joint" type="continuous" independent="False"><parent link="ground"/>
        <child link="rocker"/><origin xyz="0.3 0 0"/><axis xyz="0 1 0"/></joint>
      <loop name="C" type="revolute">
        <predecessor link="{coupler_loop_link}">
          <origin xyz="{coupler_loop_xyz}" rpy="{coupler_loop_rpy}"/></predecessor>
        <successor link="rocker"><origin xyz="0.02 0 0.25"/></successor>
        <axis xyz="0 1 0"/>
      </loop>{extra}
    </robot>"""


def _same_dynamics(m1, m2, rng, n=4):
    q = m1.random_configuration(rng, size=n)
    v, tau = rng.normal(size=(n, m1.nv)), rng.normal(size=(n, m1.nv))
    return rel_err(projected_aba(m2, q, v, tau), projected_aba(m1, q, v, tau))


@pytest.mark.parametrize("name", example_names())
@pytest.mark.parametrize("floating", [False, True])
def test_round_trip_keeps_layout_and_dynamics(name, floating):
    model = load_example(name, floating_base=floating)
    text = to_urdf(model)
    again = load_urdf(text)
    assert again.is_closed
    assert again.joint_names == model.joint_names and again.nq == model.nq
    assert again.independent_joints == model.independent_joints
    assert [c.name for c in again.constraints] == [c.name for c in model.constraints]
    assert [c.bodies for c in again.clusters] == [c.bodies for c in model.clusters]
    assert _same_dynamics(model, again, np.random.default_rng(0)) < 1e-12
    text2 = to_urdf(again)  # the same URDF+ elements again (numbers may differ in the last bit)
    for tag in ("<loop ", "<coupling ", 'independent="true"', 'independent="false"'):
        assert text2.count(tag) == text.count(tag)


def test_shipped_examples_parse_as_written():
    fb = load_example("four_bar")
    (loop,) = fb.constraints
    assert loop.kind == "loop" and loop.name == "C" and isinstance(loop.joint, Revolute)
    assert np.allclose(loop.Tp[:3, 3], [0.32, 0, 0.1]) and np.allclose(
        loop.Ts[:3, 3], [0.02, 0, 0.25]
    )
    belt = load_example("belt_leg")
    ratios = {c.name: (c.predecessor, c.successor, c.ratio) for c in belt.constraints}
    assert ratios["ankle_belt"] == ("foot", "ankle_rotor", 6.0)
    assert example_path("belt_leg").name == "belt_leg.urdf"
    with pytest.raises(ModelError, match="URDF\\+ example name"):
        example_path("eight_bar")


def test_independent_marks_and_absent_marks():
    model = load_urdf(four_bar_text())
    assert model.independent_joints == ["crank_joint"]
    # absent marks are a preference: with no marks at all the choice is automatic
    plain = four_bar_text().replace(' independent="false"', "").replace(' independent="False"', "")
    assert load_urdf(plain).independent_joints == ["crank_joint"]
    with pytest.raises(URDFError, match='expected independent="true" or "false", got \'fasle\''):
        load_urdf(four_bar_text().replace('independent="false"', 'independent="fasle"'))


def test_loop_on_a_welded_link_is_composed_into_the_body():
    welded = (
        '<link name="pin"/>'
        + '<joint name="weld" type="fixed"><parent link="coupler"/><child link="pin"/>'
        '<origin xyz="0.3 0 0.05" rpy="0 0 0.4"/></joint>'
    )
    # the loop frame (at (0.32, 0, 0.1) in the coupler, unrotated) in the welded link's frame
    c, s = np.cos(0.4), np.sin(0.4)
    p = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]).T @ np.array([0.02, 0.0, 0.05])
    text = four_bar_text(coupler_loop_link="pin",
                         coupler_loop_xyz=" ".join(repr(float(x)) for x in p),
                         coupler_loop_rpy="0 0 -0.4", welded=welded)  # fmt: skip
    model, reference = load_urdf(text), load_urdf(four_bar_text())
    assert model.n_bodies == 3 and np.abs(model.constraint_residual(model.neutral())).max() < 1e-14
    (loop,) = model.constraints
    assert np.allclose(loop.Tp[:3, 3], [0.32, 0, 0.1], atol=1e-15)
    assert _same_dynamics(reference, model, np.random.default_rng(1)) < 1e-12


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            "<coupling><predecessor link='crank'/><successor link='rocker'/></coupling>",
            "<coupling> without a name",
        ),
        (
            "<coupling name='C'><predecessor link='crank'/><successor link='rocker'/></coupling>",
            "coupling 'C' is defined more than once",
        ),
        (
            "<coupling name='g'><successor link='rocker'/></coupling>",
            "coupling 'g': missing <predecessor link=...>",
        ),
        (
            "<coupling name='g'><predecessor link='nope'/><successor link='rocker'/></coupling>",
            "predecessor link 'nope' is not defined",
        ),
        (
            "<coupling name='g'><predecessor link='crank'/><successor link='rocker'/>"
            "<ratio value='six'/></coupling>",
            "coupling 'g' <ratio value>: expected 1 numbers",
        ),
        (
            "<loop name='L' type='screw'><predecessor link='crank'/><successor link='rocker'/>"
            "</loop>",
            "loop 'L': expected a type from",
        ),
        (
            "<loop name='L' type='revolute'><predecessor link='crank'/><successor link='rocker'/>"
            "<axis xyz='0 0 0'/></loop>",
            "loop 'L': expected a nonzero <axis>",
        ),
        (
            "<loop name='L' type='planar'><predecessor link='crank'/><successor link='rocker'/>"
            "<axis xyz='1 0 0'/></loop>",
            "planar joints must move",
        ),
        (
            "<loop name='L' type='revolute'><predecessor link='crank'><origin xyz='1 2'/>"
            "</predecessor><successor link='rocker'/></loop>",
            "loop 'L' <origin xyz>: expected 3",
        ),
        (
            "<loop name='L' type='fixed'><predecessor link='crank'/><successor link='coupler'/>"
            "</loop>",
            "already joined by an edge",
        ),
    ],
)
def test_urdf_plus_parse_errors(extra, message):
    with pytest.raises(URDFError, match=message):
        load_urdf(four_bar_text(extra))


def test_same_body_and_extension_types():
    weld = link("pin", m=0.1) + (
        '<joint name="weld" type="fixed"><parent link="coupler"/><child link="pin"/></joint>'
    )
    bad = "<loop name='L' type='fixed'><predecessor link='coupler'/><successor link='pin'/></loop>"
    with pytest.raises(URDFError, match="belong to one body"):
        load_urdf(four_bar_text(bad, welded=weld))
    # continuous and spherical loop joints close the four-bar with one DoF left
    for jtype, kind in (("continuous", "revolute"), ("spherical", "spherical")):
        model = load_urdf(four_bar_text().replace('type="revolute"', f'type="{jtype}"'))
        assert model.constraints[0].joint.kind == kind and model.nv == 1
    # a floating loop joint constrains nothing: the joints marked dependent are undetermined
    with pytest.raises(ModelError, match="marked independent=False"):
        load_urdf(four_bar_text().replace('type="revolute"', 'type="floating"'))


def test_writer_rejects_what_urdf_plus_cannot_express():
    model = load_example("geared_chain")
    G = model.graph.copy()
    G.graph["constraints"] = [ImplicitConstraint(["joint1"], lambda q: [0.0 * q[0]], name="noop")]
    with pytest.raises(URDFError, match="implicit constraints have no URDF\\+ equivalent"):
        to_urdf(ClosedMultibodyModel(G))
    G = load_example("four_bar").graph.copy()
    G.edges["coupler", "rocker"]["joint"] = Helical([0, 1, 0], pitch=0.0)
    with pytest.raises(URDFError, match="helical loop joint has no URDF\\+ equivalent"):
        to_urdf(ClosedMultibodyModel(G))
