"""Pinocchio interop (geomech.interop.pinocchio) against Pinocchio itself, the reference.

- Round trips: ``from_pinocchio(to_pinocchio(m))`` has the names, the q/v layout and the
  dynamics (RNEA with external wrenches, CRBA, ABA, C, kinematics) of ``m`` for every
  shipped model and for hand-built trees mixing every joint type, fixed joints included;
  ``to_pinocchio(from_pinocchio(pm))`` has Pinocchio's own dynamics of ``pm``.
- Import: Pinocchio's sample models, a model holding every Pinocchio joint type (composite,
  SphericalZYX, Translation, Universal, unbounded and unaligned joints) and MJCF files
  agree with Pinocchio's RNEA, CRBA, ABA and kinematics to 1e-9 relative. The Coriolis
  matrix agrees with ``computeCoriolisMatrix`` wherever Pinocchio's is a factorization
  (joints with a constant motion subspace); on joints whose subspace moves (SphericalZYX,
  Universal, composites) Pinocchio's ``C v`` differs from its own nonlinear effects
  (stack-of-tasks/pinocchio issue 2053), so there geomech's C is checked against the
  independent identities ``C v = RNEA(q, v, 0) - g`` and ``Hdot = C + C^T`` (Hdot by central
  differences of Pinocchio's CRBA).
- A hand-derivable MJCF pendulum: ``H = m l^2 + I_yy``.
- Every validator.
"""

import sys
import zlib

import networkx as nx
import numpy as np
import pinocchio as pin
import pytest

from geomech import aba, coriolis_matrix, crba, forward_kinematics, gravity_forces, rnea, robots
from geomech.errors import ModelError, OptionalDependencyError
from geomech.interop.pinocchio import (
    PinocchioBridge,
    from_pinocchio,
    inertia_from_pin,
    inertia_to_pin,
    load_mjcf,
    to_pinocchio,
    twist_to_pin,
)
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
from geomech.spatial import plucker_from_pose, spatial_inertia

RTOL = 1e-9
ROUND_TRIP_RTOL = 1e-12  # a round trip only re-rounds the inertias (m, c, I_c <-> 6x6)
WORST = {}  # figures for the report: worst relative error per check


def rel_err(actual, expected):
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    return float(np.max(np.abs(actual - expected), initial=0.0)
                 / max(1.0, float(np.max(np.abs(expected), initial=0.0))))  # fmt: skip


def record(key, err):
    WORST[key] = max(WORST.get(key, 0.0), err)
    return err


def random_pose(rng):
    q = rng.normal(size=4)
    x, y, z, w = q / np.linalg.norm(q)
    R = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])  # fmt: skip
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, rng.uniform(-0.5, 0.5, 3)
    return T


FACTORIES = {
    "revolute": lambda rng: Revolute(rng.normal(size=3)),
    "prismatic": lambda rng: Prismatic(rng.normal(size=3)),
    "helical": lambda rng: Helical(rng.normal(size=3), rng.uniform(-0.3, 0.3)),
    "spherical": lambda rng: Spherical(),
    "planar": lambda rng: Planar(),
    "schoenflies": lambda rng: SchoenfliesJoint(),
    "fixed": lambda rng: Fixed(),
}


def every_joint_tree(seed, floating_base):
    """A tree with every geomech joint type (fixed joints too), random placements/inertias."""
    rng = np.random.default_rng(seed)
    kinds = list(FACTORIES) * 2
    G = nx.DiGraph(name=f"every_joint_{seed}")
    G.add_node("world")
    inertias = random_inertia(rng, len(kinds) + 1)
    G.add_node("b0", inertia=inertias[0])
    first = FreeFlyer() if floating_base else Revolute([0.0, 0.0, 1.0])
    G.add_edge("world", "b0", joint=first, name="j0")
    for i, kind in enumerate(kinds, start=1):
        parent = f"b{int(rng.integers(0, i))}"
        G.add_node(f"b{i}", inertia=inertias[i])
        G.add_edge(parent, f"b{i}", joint=FACTORIES[kind](rng), placement=random_pose(rng),
                   name=f"j{i}_{kind}")  # fmt: skip
    return MultibodyModel(G)


def dynamics(model, q, v, a, f_ext):
    return {
        "rnea": rnea(model, q, v, a),
        "rnea f_ext": rnea(model, q, v, a, f_ext=f_ext),
        "crba": crba(model, q),
        "aba": aba(model, q, v, a),
        "coriolis": coriolis_matrix(model, q, v),
        "gravity": gravity_forces(model, q),
    }


# ----------------------------------------------------------------------------------------
# Round trips
# ----------------------------------------------------------------------------------------
SHIPPED = robots.names()
TREES = [(0, False), (1, True), (2, True)]


def assert_round_trip(model, rng, n_states=4):
    back = from_pinocchio(to_pinocchio(model))
    moving = [i for i, j in enumerate(model.joints) if j.nv]
    assert back.joint_names == [model.joint_names[i] for i in moving]
    assert back.body_names == [model.body_names[i] for i in moving]
    assert (back.nq, back.nv) == (model.nq, model.nv)
    assert [type(j) for j in back.joints] == [type(model.joints[i]) for i in moving]
    assert np.array_equal(back.gravity, model.gravity)
    q = model.random_configuration(rng, size=n_states)
    v, a = rng.normal(size=(2, n_states, model.nv))
    f_ext = rng.normal(size=(n_states, model.n_bodies, 6))
    f_back = np.zeros((n_states, back.n_bodies, 6))
    T = forward_kinematics(model, q)
    for i in range(model.n_bodies):  # a welded body's wrench acts on the body carrying it
        c = i
        while not model.joints[c].nv:
            c = int(model.parent[c])
        X = plucker_from_pose(np.linalg.inv(T[:, c]) @ T[:, i])  # ^iX_c
        f_back[:, moving.index(c)] += np.einsum("...ji,...j->...i", X, f_ext[:, i])
    ref = dynamics(model, q, v, a, f_ext)
    got = dynamics(back, q, v, a, f_back)
    for key in ref:
        err = record(f"round trip {key}", rel_err(got[key], ref[key]))
        assert err < ROUND_TRIP_RTOL, f"{key}: {err:.3g}"
    err = record("round trip kinematics", rel_err(forward_kinematics(back, q), T[:, moving]))
    assert err < ROUND_TRIP_RTOL


@pytest.mark.parametrize("name", SHIPPED)
def test_round_trip_every_shipped_model(name, rng):
    assert_round_trip(robots.load(name), rng)


@pytest.mark.parametrize(("seed", "floating_base"), TREES)
def test_round_trip_every_joint_type(seed, floating_base, rng):
    model = every_joint_tree(seed, floating_base)
    assert {"fixed", "spherical", "planar", "schoenflies", "helical"} <= set(model.joint_types())
    assert_round_trip(model, rng)


def test_round_trip_keeps_fixed_links_as_frames():
    model = every_joint_tree(0, False)
    back = from_pinocchio(to_pinocchio(model))
    fixed = [model.body_names[i] for i, j in enumerate(model.joints) if not j.nv]
    listed = [name for node in back.graph for name, _ in back.graph.nodes[node].get("links", [])]
    assert fixed and set(fixed) <= set(listed)


def pinocchio_reference(pm, q_pin, v_pin, a_pin):
    data = pm.createData()
    H = pin.crba(pm, data, q_pin)
    return {
        "rnea": pin.rnea(pm, data, q_pin, v_pin, a_pin).copy(),
        "crba": np.triu(H) + np.triu(H, 1).T,
        "aba": pin.aba(pm, data, q_pin, v_pin, a_pin).copy(),
        "gravity": pin.computeGeneralizedGravity(pm, data, q_pin).copy(),
    }


SAMPLES = {
    "humanoid": pin.buildSampleModelHumanoid,
    "humanoid_random": pin.buildSampleModelHumanoidRandom,
    "manipulator": pin.buildSampleModelManipulator,
}


@pytest.mark.parametrize("name", list(SAMPLES))
def test_reverse_round_trip_keeps_pinocchio_dynamics(name):
    pm = SAMPLES[name]()
    pm2 = to_pinocchio(from_pinocchio(pm))
    assert list(pm2.names) == list(pm.names) and (pm2.nq, pm2.nv) == (pm.nq, pm.nv)
    for k in range(4):
        pin.seed(k)
        q = pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq))
        v, a = np.random.default_rng(k).normal(size=(2, pm.nv))
        ref, got = pinocchio_reference(pm, q, v, a), pinocchio_reference(pm2, q, v, a)
        for key in ref:
            err = record(f"reverse round trip {key}", rel_err(got[key], ref[key]))
            assert err < ROUND_TRIP_RTOL, f"{key}: {err:.3g}"


# ----------------------------------------------------------------------------------------
# Import against Pinocchio
# ----------------------------------------------------------------------------------------
def every_pinocchio_joint_model():
    """A Pinocchio model holding every joint type geomech imports (seeded)."""
    pin.seed(7)
    pm = pin.Model()
    comp = pin.JointModelComposite()
    comp.addJoint(pin.JointModelRY())
    comp.addJoint(pin.JointModelPX(), pin.SE3.Random())
    comp.addJoint(pin.JointModelSpherical(), pin.SE3.Random())
    schoen = pin.JointModelComposite()
    schoen.addJoint(pin.JointModelPlanar())
    schoen.addJoint(pin.JointModelPZ())
    joints = [
        pin.JointModelFreeFlyer(), pin.JointModelRX(), pin.JointModelRY(), pin.JointModelRZ(),
        pin.JointModelRUBX(), pin.JointModelRUBY(), pin.JointModelRUBZ(),
        pin.JointModelRevoluteUnaligned(np.array([0.0, 0.6, 0.8])),
        pin.JointModelPX(), pin.JointModelPY(), pin.JointModelPZ(),
        pin.JointModelPrismaticUnaligned(np.array([0.6, 0.0, 0.8])),
        pin.JointModelHX(0.3), pin.JointModelHY(-0.1), pin.JointModelHZ(0.2),
        pin.JointModelHelicalUnaligned(np.array([0.0, 0.8, 0.6]), -0.2),
        pin.JointModelSpherical(), pin.JointModelSphericalZYX(), pin.JointModelTranslation(),
        pin.JointModelPlanar(),
        pin.JointModelUniversal(np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.6, 0.8])),
        comp, schoen,
    ]  # fmt: skip
    parent = 0
    for k, joint in enumerate(joints):
        jid = pm.addJoint(parent, joint, pin.SE3.Random(), f"j{k}_{joint.shortname()[10:]}")
        pm.appendBodyToJoint(jid, pin.Inertia.Random(), pin.SE3.Identity())
        pm.addBodyFrame(f"body{k}", jid, pin.SE3.Identity(), 0)
        parent = jid if k % 3 else 0
    return pm


UNALIGNED_CONTINUOUS = """<robot name="continuous_unaligned">
  <link name="base"><inertial><mass value="3"/>
    <inertia ixx="0.3" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.1"/></inertial></link>
  <link name="arm"><inertial><mass value="1.5"/><origin xyz="0.1 0.2 -0.3"/>
    <inertia ixx="0.2" ixy="0.01" ixz="0" iyy="0.3" iyz="0" izz="0.1"/></inertial></link>
  <link name="hand"><inertial><mass value="0.5"/><origin xyz="0 0 -0.1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="shoulder" type="continuous"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 1" rpy="0.1 0.2 0.3"/><axis xyz="0 0.6 0.8"/></joint>
  <joint name="wrist" type="continuous"><parent link="arm"/><child link="hand"/>
    <origin xyz="0 0 -0.5"/><axis xyz="1 0 0"/></joint>
</robot>"""

MIMIC = """<robot name="mimic">
  <link name="a"/>
  <link name="b"><inertial><mass value="1"/>
    <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="c"><inertial><mass value="1"/>
    <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="k" type="revolute"><parent link="b"/><child link="c"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/><mimic joint="j" multiplier="2"/></joint>
</robot>"""

MJCF_ARM = """<mujoco model="arm">
  <worldbody>
    <body name="torso" pos="0 0 1">
      <freejoint name="root"/>
      <geom type="box" size="0.1 0.2 0.3" mass="5"/>
      <body name="upper_arm" pos="0.1 0 0">
        <joint name="shoulder_y" type="hinge" axis="0 1 0"/>
        <joint name="shoulder_x" type="hinge" axis="1 0 0" pos="0 0 0.05"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04" mass="1"/>
        <body name="forearm" pos="0.3 0 0">
          <joint name="elbow" type="ball"/>
          <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.03" mass="0.7"/>
          <body name="slider" pos="0.25 0 0">
            <joint name="slide" type="slide" axis="1 0 0"/>
            <inertial pos="0.01 0 0" mass="0.2" diaginertia="0.001 0.002 0.003"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>"""

MJCF_PENDULUM = """<mujoco model="pendulum"><worldbody>
  <body name="bob" pos="0 0 2">
    <joint name="hinge" type="hinge" axis="0 1 0"/>
    <inertial pos="0 0 -0.8" mass="1.5" diaginertia="0.02 0.03 0.04"/>
  </body>
</worldbody></mujoco>"""


def _mjcf(tmp_path, text, name="model.xml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def moving_subspace(pm):
    """Whether some joint's motion subspace moves with q (Pinocchio's C is not a factorization)."""
    moving = {"JointModelSphericalZYX", "JointModelUniversal"}
    for j in range(1, pm.njoints):
        short = pm.joints[j].shortname()
        if short in moving:
            return True
        if short == "JointModelComposite":
            subs = [s.shortname() for s in pm.joints[j].extract().joints]
            if subs != ["JointModelPlanar", "JointModelPZ"]:
                return True
    return False


def compare_import(pm, label, n_states=6):
    """Compare from_pinocchio(pm) with Pinocchio on random states; return the model."""
    model = from_pinocchio(pm)
    bridge = PinocchioBridge(model, pm)
    exact_c = not moving_subspace(pm)
    rng = np.random.default_rng(zlib.crc32(label.encode()))
    for k in range(n_states):
        pin.seed(k)
        lo, hi = -np.ones(pm.nq), np.ones(pm.nq)
        q = bridge.q_from_pin(pin.randomConfiguration(pm, lo, hi))
        v, a = rng.normal(size=(2, model.nv))
        f_ext = rng.normal(size=(model.n_bodies, 6))
        f_ext[[frame is None for frame in bridge.body_frames]] = 0.0
        record("import rnea", rel_err(rnea(model, q, v, a), bridge.rnea(q, v, a)))
        record(
            "import rnea f_ext",
            rel_err(rnea(model, q, v, a, f_ext=f_ext), bridge.rnea(q, v, a, f_ext)),
        )
        record("import crba", rel_err(crba(model, q), bridge.crba(q)))
        record("import aba", rel_err(aba(model, q, v, a), bridge.aba(q, v, a)))
        T, T_pin = forward_kinematics(model, q), bridge.forward_kinematics(q)
        rows = ~np.isnan(T_pin[:, 0, 0])
        record("import kinematics", rel_err(T[rows], T_pin[rows]))
        C = coriolis_matrix(model, q, v)
        if exact_c:
            record("import coriolis (Pinocchio C)", rel_err(C, bridge.coriolis_matrix(q, v)))
        else:
            nle = bridge.rnea(q, v, np.zeros(model.nv)) - bridge.gravity_forces(q)
            record("import coriolis (C v = nle)", rel_err(C @ v, nle))
            h = 1e-6
            Hdot = bridge.crba(model.integrate(q, v, h)) - bridge.crba(model.integrate(q, v, -h))
            Hdot /= 2 * h
            err = rel_err(C + C.T, Hdot)
            assert err < 1e-6, f"{label}: Hdot = C + C^T off by {err:.3g}"
    for key, err in WORST.items():
        if key.startswith("import"):
            assert err < RTOL, f"{label}: {key} {err:.3g}"
    return model


@pytest.mark.parametrize("name", list(SAMPLES))
def test_sample_models_agree_with_pinocchio(name):
    model = compare_import(SAMPLES[name](), name)
    assert model.joint_names[0] == "root_joint" or name == "manipulator"


def test_every_pinocchio_joint_type_agrees_with_pinocchio():
    pm = every_pinocchio_joint_model()
    model = compare_import(pm, "every joint")
    kinds = model.joint_types()
    assert set(kinds) == {"free_flyer", "revolute", "prismatic", "helical", "spherical",
                          "planar", "schoenflies"}  # fmt: skip
    assert "j17_SphericalZYX:2" in model.joint_names  # a chain through massless links
    assert model.body_names[model.joint_names.index("j0_FreeFlyer")] == "body0"


def test_pinocchio_coriolis_is_not_a_factorization_on_moving_subspaces():
    """Why the test above checks C by identities there: Pinocchio's C v misses the nle."""
    pm = pin.Model()
    pin.seed(3)
    jid = pm.addJoint(0, pin.JointModelSphericalZYX(), pin.SE3.Random(), "zyx")
    pm.appendBodyToJoint(jid, pin.Inertia.Random(), pin.SE3.Identity())
    data = pm.createData()
    q, v = np.array([0.3, -0.2, 0.5]), np.array([1.0, -2.0, 0.5])
    C = pin.computeCoriolisMatrix(pm, data, q, v)
    nle = pin.nonLinearEffects(pm, data, q, v) - pin.computeGeneralizedGravity(pm, data, q)
    assert rel_err(C @ v, nle) > 1e-3  # if this fails, Pinocchio fixed it: compare C directly
    model = from_pinocchio(pm)
    assert rel_err(coriolis_matrix(model, q, v) @ v, nle) < RTOL


@pytest.mark.parametrize("floating", [False, True])
def test_unaligned_continuous_joint_from_urdf(floating):
    pm = (pin.buildModelFromXML(UNALIGNED_CONTINUOUS, pin.JointModelFreeFlyer()) if floating
          else pin.buildModelFromXML(UNALIGNED_CONTINUOUS))  # fmt: skip
    assert pm.joints[1 + floating].shortname() == "JointModelRevoluteUnboundedUnaligned"
    model = compare_import(pm, f"continuous {floating}")
    assert np.allclose(model.joints[int(floating)].axis, [0.0, 0.6, 0.8])
    bridge = PinocchioBridge(model, pm)
    assert bridge.kinds[-2:] == ["unbounded", "unbounded"]
    q = np.array([0.4, -3.0])
    assert np.allclose(bridge.q_to_pin(np.r_[model.neutral()[: model.nq - 2], q])[-4:],
                       [np.cos(0.4), np.sin(0.4), np.cos(-3.0), np.sin(-3.0)])  # fmt: skip


def test_mjcf_arm_agrees_with_pinocchio(tmp_path):
    path = _mjcf(tmp_path, MJCF_ARM)
    model = load_mjcf(path)
    assert model.joint_names == ["root", "Composite_shoulder_y:0", "Composite_shoulder_y:1",
                                 "elbow", "slide"]  # fmt: skip
    assert model.joint_types() == {"free_flyer": 1, "prismatic": 1, "revolute": 2,
                                   "spherical": 1}  # fmt: skip
    assert model.body_names[-3:] == ["upper_arm", "forearm", "slider"]
    compare_import(pin.buildModelFromMJCF(str(path)), "mjcf arm")
    assert load_mjcf(MJCF_ARM).nv == model.nv  # the XML text itself


def test_mjcf_pendulum_hand_derived(tmp_path):
    model = load_mjcf(_mjcf(tmp_path, MJCF_PENDULUM))
    m, l, I_yy = 1.5, 0.8, 0.03
    assert crba(model, [0.7])[0, 0] == pytest.approx(m * l**2 + I_yy, rel=1e-14)
    # gravity torque of a bob hanging at angle q about +y: m g l sin q
    assert gravity_forces(model, [0.7])[0] == pytest.approx(m * 9.81 * l * np.sin(0.7), rel=1e-12)


def test_inertia_conversions_are_inverse():
    rng = np.random.default_rng(0)
    for I in random_inertia(rng, 20):  # noqa: E741
        back = inertia_from_pin(inertia_to_pin(I))
        assert rel_err(back, I) < 1e-15
        M = inertia_to_pin(I).matrix()  # linear first: the lower-right block is I_O
        assert np.allclose(M[3:, 3:], I[:3, :3], rtol=0, atol=1e-14)
    zero = inertia_from_pin(inertia_to_pin(np.zeros((6, 6))))
    assert np.array_equal(zero, np.zeros((6, 6)))
    assert inertia_to_pin(spatial_inertia(2.0, [0.0, 0.0, 1.0], np.eye(3))).mass == 2.0


def test_speed_permutation_is_orthogonal_and_maps_matrices():
    model = every_joint_tree(1, True)
    bridge = PinocchioBridge(model, to_pinocchio(model))
    P = bridge.P
    assert np.array_equal(P @ P.T, np.eye(model.nv))
    q = model.random_configuration(0)
    H = crba(model, q)
    assert rel_err(bridge.matrix_from_pin(bridge.matrix_to_pin(H)), H) == 0
    q_back = bridge.q_from_pin(bridge.q_to_pin(q))
    assert rel_err(model.difference(q, q_back), np.zeros(model.nv)) < 1e-12


# ----------------------------------------------------------------------------------------
# Validators
# ----------------------------------------------------------------------------------------
class _Custom(Joint):
    """A user joint with no Pinocchio counterpart (a revolute about z, written by hand)."""

    kind, nq, nv = "custom", 1, 1

    def _pose(self, q):
        return Revolute([0.0, 0.0, 1.0])._pose(q)

    def _Phi(self):
        return np.array([[0.0], [0.0], [1.0], [0.0], [0.0], [0.0]])

    def _integrate(self, q, v):
        return q + v

    def _difference(self, q0, q1):
        return q1 - q0

    def _neutral(self):
        return np.zeros(1)

    def _random(self, rng, shape):
        return rng.uniform(-1.0, 1.0, shape + (1,))


def test_to_pinocchio_validates():
    with pytest.raises(ModelError, match="Expected a geomech MultibodyModel"):
        to_pinocchio("ur5")
    G = nx.DiGraph()
    G.add_edge("world", "a", joint=Revolute([0, 0, 1]), name="universe")
    G.nodes["a"]["inertia"] = np.eye(6)
    with pytest.raises(ModelError, match="reserved by Pinocchio"):
        to_pinocchio(MultibodyModel(G))
    custom = MultibodyModel.from_bodies([-1], [_Custom()], [np.eye(6)])
    with pytest.raises(ModelError, match="no Pinocchio counterpart"):
        to_pinocchio(custom)


def test_from_pinocchio_validates():
    with pytest.raises(ModelError, match="Expected a pinocchio.Model"):
        from_pinocchio(robots.double_pendulum())
    pm = pin.buildModelFromXML(MIMIC, mimic=True)
    with pytest.raises(ModelError, match="JointModelMimic has no geomech counterpart"):
        from_pinocchio(pm)


def test_load_mjcf_validates(tmp_path):
    with pytest.raises(ModelError, match="no such file"):
        load_mjcf(tmp_path / "missing.xml")
    bad = _mjcf(tmp_path, "<mujoco><worldbody><body name='a'><joint type='nonsense'/>"
                          "</body></worldbody></mujoco>")  # fmt: skip
    with pytest.raises(ModelError, match="Pinocchio could not parse"):
        load_mjcf(bad)


def test_bridge_validates():
    model = robots.double_pendulum()
    pm = to_pinocchio(model)
    with pytest.raises(ModelError, match="Expected a geomech MultibodyModel"):
        PinocchioBridge(pm, pm)
    with pytest.raises(ModelError, match="Expected a pinocchio.Model"):
        PinocchioBridge(model, model)
    other = robots.scara()
    with pytest.raises(ModelError, match="no Pinocchio joint named 'shoulder'"):
        PinocchioBridge(other, pm)
    G = nx.DiGraph()
    G.add_edge("world", "link1", joint=Prismatic([0, 1, 0]), name="joint1")
    G.add_edge("link1", "link2", joint=Revolute([0, 1, 0]), name="joint2")
    nx.set_node_attributes(G, {"link1": np.eye(6), "link2": np.eye(6)}, "inertia")
    with pytest.raises(ModelError, match="Prismatic does not correspond to Pinocchio"):
        PinocchioBridge(MultibodyModel(G), pm)
    G.edges["world", "link1"]["joint"] = SchoenfliesJoint()
    with pytest.raises(ModelError, match="SchoenfliesJoint .* does not match Pinocchio"):
        PinocchioBridge(MultibodyModel(G), _composite_named_joint1())
    one = MultibodyModel.from_bodies([-1], [Revolute([0, 1, 0])], [np.eye(6)],
                                     body_names=["link1"], joint_names=["joint1"])  # fmt: skip
    with pytest.raises(ModelError, match="not paired exactly once: \\['joint2'\\]"):
        PinocchioBridge(one, pm)
    welded = MultibodyModel.from_bodies([-1, 0], [Revolute([0, 1, 0]), Fixed()],
                                        [np.eye(6), np.eye(6)], body_names=["link1", "tip"],
                                        joint_names=["joint1", "weld"])  # fmt: skip
    with pytest.raises(ModelError, match="Fixed body 'tip'"):
        PinocchioBridge(welded, to_pinocchio(one))
    bridge = PinocchioBridge(model, pm)
    with pytest.raises(ModelError, match="Expected `q` of shape"):
        bridge.q_to_pin(np.zeros(3))
    with pytest.raises(ModelError, match="Expected `v_pin` of shape"):
        bridge.v_from_pin(np.zeros(3))
    with pytest.raises(ModelError, match="Expected `f_ext` of shape"):
        bridge.f_ext_to_pin(np.zeros((3, 6)))
    with pytest.raises(ModelError, match="spatial vector of shape"):
        twist_to_pin(np.zeros(5))
    assert "PinocchioBridge: 2 geomech bodies" in repr(bridge)


def _composite_named_joint1():
    comp = pin.JointModelComposite()
    comp.addJoint(pin.JointModelRY())
    comp.addJoint(pin.JointModelRX())
    pm = pin.Model()
    jid = pm.addJoint(0, comp, pin.SE3.Identity(), "joint1")
    pm.appendBodyToJoint(jid, pin.Inertia.Random(), pin.SE3.Identity())
    pm.addJoint(jid, pin.JointModelRY(), pin.SE3.Identity(), "joint2")
    return pm


def test_wrench_on_a_composite_link_is_refused():
    model = load_mjcf(MJCF_ARM)
    pm = to_pinocchio(model)  # no composites any more: every link has a frame
    assert all(frame is not None for frame in PinocchioBridge(model, pm).body_frames)
    comp = pin.JointModelComposite()
    comp.addJoint(pin.JointModelRY())
    comp.addJoint(pin.JointModelRX())
    pm = pin.Model()
    jid = pm.addJoint(0, comp, pin.SE3.Identity(), "hip")
    pm.appendBodyToJoint(jid, pin.Inertia.Random(), pin.SE3.Identity())
    model = from_pinocchio(pm)
    bridge = PinocchioBridge(model, pm)
    assert bridge.body_frames[0] is None and bridge.joint_ids.tolist() == [1, 1]
    with pytest.raises(ModelError, match="massless link inside a Pinocchio composite"):
        bridge.f_ext_to_pin(np.ones((2, 6)))
    assert np.isnan(bridge.forward_kinematics(np.zeros(2))[0]).all()


def test_missing_pinocchio_is_a_named_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pinocchio", None)
    with pytest.raises(OptionalDependencyError, match=r"geomech\[pinocchio\]"):
        to_pinocchio(robots.double_pendulum())
    assert issubclass(OptionalDependencyError, ImportError)


def test_report_figures():
    """Print the worst errors (run with -s to see them); they are asserted above."""
    for key, err in sorted(WORST.items()):
        print(f"{key:40s} {err:.2e}")
