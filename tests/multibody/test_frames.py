"""Frames: the frame table, and placements, twists, accelerations, Jacobians and their rates.

References, none of them geomech's own frame code:

(a) Pinocchio 4.1 (``updateFramePlacements``, ``getFrameVelocity``, ``getFrameAcceleration``,
    ``getFrameClassicalAcceleration``, ``getFrameJacobian``, ``getFrameJacobianTimeVariation``)
    on URDFs loaded by both libraries (an arm shipped with geomech, example-robot-data's
    Panda arm, Solo-12 quadruped and Romeo humanoid, whose axes are unaligned; every link a
    frame, compared by name), and on random trees mixing every joint type with user frames
    on random bodies and on the world (converted by ``PinocchioBridge``, the frames added to
    the Pinocchio model as ``OP_FRAME``\\ s); every frame, every reference, random states, to
    1e-10 relative (max error over max |reference|, floored at 1);
(b) central differences of the Jacobian along the flow ``q(t) = integrate(q, t v)`` for
    ``J̇`` (trees with a user joint whose motion subspace moves, and closed models);
(c) identities: ``J v`` is the twist, ``J a + J̇ v`` the acceleration (spatial in ``local``
    and ``world``, classical in ``local_world_aligned``), a universal user joint equals a
    chain of two revolute joints through a massless body, closed models are their spanning
    tree with ``q̇_s = G v``.
"""

from __future__ import annotations

import re
import runpy
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx
import numpy as np
import pinocchio as pin
import pytest

from geomech.errors import DimensionError, ModelError, NonFiniteError, NotOnManifoldError
from geomech.interop.pinocchio import PinocchioBridge, from_pinocchio, se3_to_pin
from geomech.lie import SO3
from geomech.multibody import Joint, MultibodyModel, Revolute, robots
from geomech.multibody.algorithms.frames import (
    FRAMES_ATTRIBUTE,
    REFERENCES,
    frame_acceleration,
    frame_jacobian,
    frame_jacobian_rate,
    frame_names,
    frame_placement,
    frame_table,
    frame_velocity,
)
from geomech.multibody.io.examples import example_names, load_example
from geomech.multibody.io.urdf import load_urdf

RTOL = 1e-10
REFS = tuple(REFERENCES)
PIN_REF = {
    "local": pin.LOCAL,
    "world": pin.WORLD,
    "local_world_aligned": pin.LOCAL_WORLD_ALIGNED,
}
ERD = robots.example_robot_data_names()
#: (name, shipped with geomech): an arm, example-robot-data's arm, quadruped, humanoid
URDF_ROBOTS = [("ur5", True), ("panda", False), ("solo12", False), ("romeo", False)]
TUTORIAL = Path(__file__).resolve().parents[2] / "tutorials" / "13_frames_and_task_space.py"


def random_pose(rng, scale=0.5):
    T = np.eye(4)
    T[:3, :3] = SO3.random(rng)
    T[:3, 3] = rng.uniform(-scale, scale, 3)
    return T


def rel_err(actual, expected):
    """Max abs error relative to the size of the reference (floored at 1)."""
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    return float(np.max(np.abs(actual - expected)) / max(1.0, float(np.max(np.abs(expected)))))


def from_pin6(x):
    """Pinocchio's linear-first 6-vector as geomech's angular-first one."""
    x = np.asarray(x)
    return np.concatenate([x[3:], x[:3]])


def from_pin_rows(J, P):
    """A Pinocchio (6, nv) Jacobian in geomech's layout: row blocks swapped, columns by P."""
    J = np.asarray(J)
    return np.concatenate([J[3:], J[:3]]) @ P


# ----------------------------------------------------------------------------------------
# models and their Pinocchio twins
# ----------------------------------------------------------------------------------------
def urdf_pair(name, shipped):
    """(model, Pinocchio model, {frame name: Pinocchio frame id}) of a URDF loaded by both."""
    if shipped:
        path, floating = str(robots.urdf_path(name)), False
    else:
        if name not in ERD:
            pytest.skip("example-robot-data is not installed")
        path = str(robots.example_robot_data_path(name))
        floating = robots.example_robot_data_floating(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = load_urdf(path, floating_base=floating, strict=False)
    pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else (
        pin.buildModelFromUrdf(path))  # fmt: skip
    fids = {}
    for n in frame_names(model):
        fid = pm.getFrameId(n, pin.FrameType.BODY)
        fids[n] = fid if fid < pm.nframes else pm.getFrameId(n)  # "universe" is no BODY
        assert fids[n] < pm.nframes, n
    return model, pm, fids, path


def with_user_frames(model, rng, per_node=2):
    """The model's graph with ``per_node`` random user frames on random nodes (world too)."""
    G = model.graph.copy()
    nodes = [model.root, *model.nodes]
    for k in range(per_node * 4):
        node = nodes[int(rng.integers(len(nodes)))]
        G.nodes[node].setdefault(FRAMES_ATTRIBUTE, {})[f"user{k}"] = random_pose(rng)
    return MultibodyModel(G)


def user_frame_pair(model):
    """(bridge, {frame name: Pinocchio frame id}): every geomech frame added as an OP_FRAME."""
    bridge = PinocchioBridge(model)
    pm = bridge.pin_model
    table = frame_table(model)
    fids = {}
    for name, body, T in zip(table.names, table.bodies, table.placements, strict=True):
        jid, M = (0, pin.SE3.Identity()) if body < 0 else bridge.body_frames[body]
        fids[name] = pm.addFrame(
            pin.Frame(f"gm:{name}", int(jid), 0, M * se3_to_pin(T), pin.FrameType.OP_FRAME)
        )
    bridge.pin_data = pm.createData()
    return bridge, fids


def compare_with_pinocchio(model, bridge, fids, rng, n_states=3):
    """Every frame, every reference, ``n_states`` random states; returns the worst errors."""
    pm, P = bridge.pin_model, bridge.P
    q = model.random_configuration(rng, size=n_states)
    v, a = rng.normal(size=(2, n_states, model.nv))
    ours = {}  # one batched geomech call per frame and quantity
    for name in fids:
        ours[name, "placement"] = frame_placement(model, q, name)
        for ref in REFS:
            ours[name, "velocity", ref] = frame_velocity(model, q, v, name, ref)
            ours[name, "acceleration", ref] = frame_acceleration(model, q, v, a, name, ref)
            ours[name, "classical", ref] = frame_acceleration(
                model, q, v, a, name, ref, classical=True
            )
            ours[name, "jacobian", ref] = frame_jacobian(model, q, name, ref)
            ours[name, "jacobian rate", ref] = frame_jacobian_rate(model, q, v, name, ref)
    worst = {}
    for s in range(n_states):
        pd = pm.createData()
        qp, vp, ap = bridge.q_to_pin(q[s]), bridge.v_to_pin(v[s]), bridge.v_to_pin(a[s])
        pin.computeJointJacobiansTimeVariation(pm, pd, qp, vp)
        pin.updateFramePlacements(pm, pd)
        ref_values = {}
        for name, fid in fids.items():
            for ref in REFS:
                dJ = pin.getFrameJacobianTimeVariation(pm, pd, fid, PIN_REF[ref])
                ref_values[name, "jacobian rate", ref] = from_pin_rows(dJ, P)
        pin.forwardKinematics(pm, pd, qp, vp, ap)
        pin.computeJointJacobians(pm, pd, qp)
        pin.updateFramePlacements(pm, pd)
        for name, fid in fids.items():
            ref_values[name, "placement"] = pd.oMf[fid].homogeneous
            for ref in REFS:
                rf = PIN_REF[ref]
                ref_values[name, "velocity", ref] = from_pin6(
                    pin.getFrameVelocity(pm, pd, fid, rf).vector
                )
                ref_values[name, "acceleration", ref] = from_pin6(
                    pin.getFrameAcceleration(pm, pd, fid, rf).vector
                )
                ref_values[name, "classical", ref] = from_pin6(
                    pin.getFrameClassicalAcceleration(pm, pd, fid, rf).vector
                )
                ref_values[name, "jacobian", ref] = from_pin_rows(
                    pin.getFrameJacobian(pm, pd, fid, rf), P
                )
        for key, expected in ref_values.items():
            label = " ".join(key[1:])
            worst[label] = max(worst.get(label, 0.0), rel_err(ours[key][s], expected))
    for label, err in worst.items():
        assert err <= RTOL, f"{label}: relative error {err:.3g} > {RTOL:g}"
    return worst


# ----------------------------------------------------------------------------------------
# a user joint whose motion subspace moves (nonzero Φ̊)
# ----------------------------------------------------------------------------------------
class Universal(Joint):
    """Universal joint R = Rz(α) Rx(β), speeds the angle rates (Φ depends on q).

    Child-frame relative angular velocity: Rx(β)ᵀ e_z α̇ + e_x β̇, so
    Φ = [[Rx(β)ᵀ e_z, e_x]; 0] and Φ̊ = β̇ [[d/dβ Rx(β)ᵀ e_z, 0]; 0].
    """

    kind = "universal"
    nq = nv = 2

    def __init__(self, name=None):
        super().__init__(name)
        self.manifold = None

    def _pose(self, q):
        T = np.zeros(q.shape[:-1] + (4, 4))
        T[..., :3, :3] = SO3.exp(q[..., :1] * [0, 0, 1.0]) @ SO3.exp(q[..., 1:] * [1.0, 0, 0])
        T[..., 3, 3] = 1.0
        return T

    def _Phi(self):  # unused: _motion_subspace is overridden
        raise NotImplementedError

    def _motion_subspace(self, q):
        b = q[..., 1]
        Phi = np.zeros(q.shape[:-1] + (6, 2))
        Phi[..., 1, 0], Phi[..., 2, 0] = np.sin(b), np.cos(b)  # Rx(β)ᵀ e_z
        Phi[..., 0, 1] = 1.0
        return Phi

    def _motion_subspace_rate(self, q, v):
        lead = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
        b, db = q[..., 1], v[..., 1]
        Phi_ring = np.zeros(lead + (6, 2))
        Phi_ring[..., 1, 0], Phi_ring[..., 2, 0] = np.cos(b) * db, -np.sin(b) * db
        return Phi_ring

    def _integrate(self, q, v):
        return q + v

    def _difference(self, q0, q1):
        return q1 - q0

    def _neutral(self):
        return np.zeros(2)

    def _random(self, rng, shape):
        return rng.uniform(-np.pi, np.pi, shape + (2,))


def universal_pair(rng):
    """The same arm with a Universal joint, and with Rz + Rx through a massless cross.

    Both carry the frame ``"tool"`` on the last body (and ``"base"`` on the world).
    """
    I1, I2, I3 = robots.random_inertia(rng, 3)
    P1, P2, P3 = random_pose(rng), random_pose(rng), random_pose(rng)
    axis = rng.normal(size=3)
    tool, base = random_pose(rng), random_pose(rng)
    G = nx.DiGraph()
    G.add_node("world", frames={"base": base})
    G.add_node("upper", inertia=I1)
    G.add_node("lower", inertia=I2)
    G.add_node("hand", inertia=I3, frames={"tool": tool})
    G.add_edge("world", "upper", joint=Revolute(axis), placement=P1)
    G.add_edge("upper", "lower", joint=Universal(), placement=P2)
    G.add_edge("lower", "hand", joint=Revolute([0, 1.0, 0]), placement=P3)
    H = nx.DiGraph()
    H.add_node("world", frames={"base": base})
    H.add_node("upper", inertia=I1)
    H.add_node("cross", inertia=np.zeros((6, 6)))
    H.add_node("lower", inertia=I2)
    H.add_node("hand", inertia=I3, frames={"tool": tool})
    H.add_edge("world", "upper", joint=Revolute(axis), placement=P1)
    H.add_edge("upper", "cross", joint=Revolute([0, 0, 1.0]), placement=P2)
    H.add_edge("cross", "lower", joint=Revolute([1.0, 0, 0]))
    H.add_edge("lower", "hand", joint=Revolute([0, 1.0, 0]), placement=P3)
    return MultibodyModel(G), MultibodyModel(H)


def flow_difference(fun, model, q, v, h=1e-6):
    """Central difference of ``fun(q(t))`` at t = 0 along ``q(t) = model.integrate(q, t v)``."""
    return (fun(model.integrate(q, h * v)) - fun(model.integrate(q, -h * v))) / (2 * h)


# ----------------------------------------------------------------------------------------
# the frame table
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "shipped"), URDF_ROBOTS)
def test_every_urdf_link_is_a_frame(name, shipped):
    model, pm, fids, path = urdf_pair(name, shipped)
    links = {el.get("name") for el in ET.parse(path).getroot().iter("link")}
    names = frame_names(model)
    expected = links | ({"universe"} if model.joint_names[0] == "root_joint" else set())
    assert len(names) == len(set(names)) and set(names) == expected
    # links merged by fixed joints keep their own frames (more frames than bodies)
    assert len(names) > model.n_bodies
    for n in links:  # each is one of Pinocchio's BODY frames
        assert pm.frames[fids[n]].type == pin.FrameType.BODY


def test_frame_table_of_a_graph_built_model():
    model = robots.double_pendulum()
    table = frame_table(model)
    assert table.names == ["world", "link1", "link2"] and len(table) == 3
    assert table.bodies.tolist() == [-1, 0, 1]
    assert np.array_equal(table.placements, np.tile(np.eye(4), (3, 1, 1)))
    assert frame_table(model) is table  # cached
    assert "FrameTable: 3 frames" in repr(table)
    G = model.graph.copy()
    tip = random_pose(np.random.default_rng(0))
    G.nodes["link2"][FRAMES_ATTRIBUTE] = {"tip": tip, "tip2": np.eye(4)}
    G.nodes["world"][FRAMES_ATTRIBUTE] = {"target": tip}
    table = frame_table(MultibodyModel(G))
    assert table.names == ["world", "target", "link1", "link2", "tip", "tip2"]
    assert table.bodies.tolist() == [-1, -1, 0, 1, 1, 1]
    assert np.array_equal(table.placements[4], tip)
    assert table.index("tip") == 4 and table.index(-1) == 5 and table.index(np.int64(2)) == 2


def test_from_pinocchio_models_have_pinocchios_body_frames(rng):
    model, pm, fids, _ = urdf_pair("ur5", True)
    imported = from_pinocchio(pm)
    body_frames = {str(f.name) for f in pm.frames if f.type == pin.FrameType.BODY}
    assert set(frame_names(imported)) == body_frames  # the world's: base_link, welded to it
    q = imported.random_configuration(rng)
    bridge = PinocchioBridge(imported, pm)
    pd = pm.createData()
    pin.framesForwardKinematics(pm, pd, bridge.q_to_pin(q))
    for n in body_frames:
        assert rel_err(frame_placement(imported, q, n), pd.oMf[fids[n]].homogeneous) < 1e-12


# ----------------------------------------------------------------------------------------
# against Pinocchio
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "shipped"), URDF_ROBOTS)
def test_urdf_robot_frames_match_pinocchio(name, shipped, rng):
    model, pm, fids, _ = urdf_pair(name, shipped)
    compare_with_pinocchio(model, PinocchioBridge(model, pm), fids, rng)


@pytest.mark.parametrize("floating_base", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_tree_user_frames_match_pinocchio(seed, floating_base, mixed_tree):
    rng = np.random.default_rng(seed)
    model = with_user_frames(mixed_tree(12, rng, floating_base=floating_base), rng)
    bridge, fids = user_frame_pair(model)
    compare_with_pinocchio(model, bridge, fids, rng)


# ----------------------------------------------------------------------------------------
# J̇ against central differences; identities
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [3, 4])
def test_jacobian_rate_is_the_derivative_along_the_flow(seed, mixed_tree):
    rng = np.random.default_rng(seed)
    model = with_user_frames(mixed_tree(10, rng, floating_base=bool(seed % 2)), rng, 1)
    q = model.random_configuration(rng)
    v = rng.normal(size=model.nv)
    for name in frame_names(model):
        for ref in REFS:
            fd = flow_difference(
                lambda x, n=name, r=ref: frame_jacobian(model, x, n, r), model, q, v
            )
            assert rel_err(frame_jacobian_rate(model, q, v, name, ref), fd) < 1e-7, (name, ref)


def test_a_universal_joint_equals_a_chain_through_a_massless_body(rng):
    """Φ̊ ≠ 0: the user joint's motion subspace moves; every quantity matches the chain's."""
    model, chain = universal_pair(rng)
    q = rng.uniform(-2, 2, (4, 3 + 1))  # upper, (α, β), hand
    v, a = rng.uniform(-2, 2, (2, 4, 4))
    for name in ("tool", "base", "lower"):
        assert rel_err(frame_placement(model, q, name), frame_placement(chain, q, name)) < 1e-12
        for ref in REFS:
            for fun, args in (
                (frame_velocity, (q, v)),
                (frame_acceleration, (q, v, a)),
                (frame_jacobian, (q,)),
                (frame_jacobian_rate, (q, v)),
            ):
                ours, theirs = fun(model, *args, name, ref), fun(chain, *args, name, ref)
                assert rel_err(ours, theirs) < 1e-12, (fun.__name__, name, ref)
            fd = flow_difference(lambda x, r=ref: frame_jacobian(model, x, "tool", r), model,
                                 q[0], v[0])  # fmt: skip
            assert rel_err(frame_jacobian_rate(model, q[0], v[0], "tool", ref), fd) < 1e-7


@pytest.mark.parametrize("floating_base", [False, True])
def test_jacobians_give_twists_and_accelerations(floating_base, rng, mixed_tree):
    model = with_user_frames(mixed_tree(15, rng, floating_base=floating_base), rng)
    q = model.random_configuration(rng, size=4)
    v, a = rng.normal(size=(2, 4, model.nv))
    for name in frame_names(model):
        for ref in REFS:
            J, J_dot = (
                frame_jacobian(model, q, name, ref),
                frame_jacobian_rate(model, q, v, name, ref),
            )
            x = np.einsum("bij,bj->bi", J, v)
            assert rel_err(x, frame_velocity(model, q, v, name, ref)) < 1e-12
            rate = np.einsum("bij,bj->bi", J, a) + np.einsum("bij,bj->bi", J_dot, v)
            classical = ref == "local_world_aligned"  # d/dt of [ω; ṗ_f] in world axes
            acc = frame_acceleration(model, q, v, a, name, ref, classical=classical)
            assert rel_err(rate, acc) < 1e-12, (name, ref)


def test_batches_broadcast_and_equal_single_calls(rng):
    model = with_user_frames(robots.humanoid(), rng)
    name = frame_names(model)[-1]
    q = model.random_configuration(rng, size=(2, 3))
    v, a = rng.normal(size=(2, 2, 3, model.nv))
    J = frame_jacobian(model, q, name, "world")
    assert J.shape == (2, 3, 6, model.nv)
    A = frame_acceleration(model, q, v[0, 0], a, name, "local", classical=True)  # v broadcast
    assert A.shape == (2, 3, 6)
    for idx in np.ndindex(2, 3):
        assert np.array_equal(J[idx], frame_jacobian(model, q[idx], name, "world"))
        single = frame_acceleration(model, q[idx], v[0, 0], a[idx], name, "local", classical=True)
        assert np.allclose(A[idx], single, rtol=0, atol=1e-13)
    assert frame_placement(model, q.tolist(), name).shape == (2, 3, 4, 4)  # lists accepted
    assert frame_velocity(model, q[0, 0], v, name).shape == (2, 3, 6)


def test_frames_fixed_in_the_world(rng):
    model = with_user_frames(robots.quadruped(), rng)
    q = model.random_configuration(rng)
    v, a = rng.normal(size=(2, model.nv))
    for k, (name, body) in enumerate(zip(frame_table(model).names, frame_table(model).bodies,
                                         strict=True)):  # fmt: skip
        if body >= 0:
            continue
        assert np.array_equal(frame_placement(model, q, name), frame_table(model).placements[k])
        assert not frame_velocity(model, q, v, name, "world").any()
        assert not frame_acceleration(model, q, v, a, name, "local", classical=True).any()
        assert not frame_jacobian(model, q, name).any()
        assert not frame_jacobian_rate(model, q, v, name).any()


def test_hand_derived_pendulum_tip():
    """A unit pendulum about y: elbow at (-sin θ, 0, -cos θ); analytic J and J̇ in world axes."""
    G = robots.double_pendulum().graph.copy()
    tip = np.eye(4)
    tip[2, 3] = -1.0
    G.nodes["link1"][FRAMES_ATTRIBUTE] = {"elbow": tip}
    model = MultibodyModel(G)
    th, w = 0.7, 1.3
    q, v = np.array([th, 0.2]), np.array([w, -0.4])
    s, c = np.sin(th), np.cos(th)
    assert np.allclose(frame_placement(model, q, "elbow")[:3, 3], [-s, 0.0, -c])
    J = frame_jacobian(model, q, "elbow", "local_world_aligned")  # e_y × p
    assert np.allclose(J[:, 0], [0, 1, 0, -c, 0, s]) and not J[:, 1].any()
    J_dot = frame_jacobian_rate(model, q, v, "elbow", "local_world_aligned")
    assert np.allclose(J_dot[:, 0], [0, 0, 0, s * w, 0, c * w])
    acc = frame_acceleration(
        model, q, v, [0.0, 0.0], "elbow", "local_world_aligned", classical=True
    )
    assert np.allclose(acc[3:], [s * w * w, 0.0, c * w * w])  # centripetal: along -p


# ----------------------------------------------------------------------------------------
# closed models: the spanning tree at q̇_s = G v
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("floating_base", [False, True])
@pytest.mark.parametrize("name", example_names())
def test_closed_models_through_their_spanning_tree(name, floating_base, rng):
    model = load_example(name, floating_base=floating_base)
    st = model.spanning_tree
    q = model.random_configuration(rng, size=2)
    v, a = rng.normal(size=(2, 2, model.nv))
    G, g, G_dot = model.constraint_matrices(q, v, rate=True)
    v_s = np.einsum("bij,bj->bi", G, v)
    a_s = np.einsum("bij,bj->bi", G, a) + g
    for frame in frame_names(model)[-3:]:
        assert np.array_equal(frame_placement(model, q, frame), frame_placement(st, q, frame))
        for ref in REFS:
            J = frame_jacobian(model, q, frame, ref)
            assert rel_err(J, frame_jacobian(st, q, frame, ref) @ G) < 1e-12
            x = frame_velocity(model, q, v, frame, ref)
            assert rel_err(x, np.einsum("bij,bj->bi", J, v)) < 1e-12
            assert rel_err(x, frame_velocity(st, q, v_s, frame, ref)) < 1e-12
            acc = frame_acceleration(model, q, v, a, frame, ref)
            assert rel_err(acc, frame_acceleration(st, q, v_s, a_s, frame, ref)) < 1e-12
            J_dot = frame_jacobian_rate(model, q, v, frame, ref)
            expected = frame_jacobian_rate(st, q, v_s, frame, ref) @ G + (
                frame_jacobian(st, q, frame, ref) @ G_dot
            )
            assert rel_err(J_dot, expected) < 1e-12
            if ref != "local_world_aligned":
                rate = np.einsum("bij,bj->bi", J, a) + np.einsum("bij,bj->bi", J_dot, v)
                assert rel_err(rate, acc) < 1e-10
            fd = flow_difference(lambda x, f=frame, r=ref: frame_jacobian(model, x, f, r), model,
                                 q[0], v[0], h=1e-5)  # fmt: skip
            assert rel_err(J_dot[0], fd) < 1e-6, (frame, ref)


# ----------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------
def test_frame_arguments_are_validated():
    model = robots.double_pendulum()
    q = np.zeros(2)
    with pytest.raises(ModelError, match=r"did you mean \['link2'"):
        frame_placement(model, q, "link3")
    with pytest.raises(ModelError, match="see model.frame_names"):
        frame_placement(model, q, "gripper")
    with pytest.raises(ModelError, match="to name a frame"):
        frame_placement(model, q, 2.0)
    with pytest.raises(ModelError, match=r"frame index in \[0, 3\)"):
        frame_jacobian(model, q, 3)
    with pytest.raises(ModelError, match="Expected `reference` from"):
        frame_velocity(model, q, q, "link2", "LOCAL")
    with pytest.raises(ModelError, match="MultibodyModel, got NoneType"):
        frame_names(None)
    with pytest.raises(DimensionError):
        frame_jacobian(model, np.zeros(3), "link2")
    with pytest.raises(DimensionError):
        frame_velocity(model, q, np.zeros((2, 3)), "link2")
    for fun, args in (
        (frame_placement, ([np.nan, 0.0],)),
        (frame_velocity, (q, [0.0, np.inf])),
        (frame_acceleration, (q, q, [np.nan, 0.0])),
        (frame_jacobian, (np.full((2, 2), np.nan),)),
        (frame_jacobian_rate, (q, np.full((3, 2), np.inf))),
    ):
        with pytest.raises(NonFiniteError, match="to be finite"):
            fun(model, *args, "link2")


def test_non_unit_quaternions_and_open_loops_are_refused(rng):
    model = robots.quadruped()
    q = model.random_configuration(rng)
    q[3:7] *= 1.1  # the base quaternion
    foot = frame_names(model)[-1]
    with pytest.raises(NotOnManifoldError, match="unit quaternion"):
        frame_placement(model, q, foot)
    with pytest.raises(NotOnManifoldError, match="unit quaternion"):
        frame_jacobian(model, np.stack([model.neutral(), q]), foot)
    closed = load_example("four_bar")
    bad = closed.neutral() + 0.1
    with pytest.raises(NotOnManifoldError):
        frame_jacobian(closed, bad, frame_names(closed)[-1])


@pytest.mark.parametrize(
    ("frames", "message"),
    [
        ([("tip", np.eye(4))], "to be a mapping"),
        ({1: np.eye(4)}, "to be strings"),
        ({"tip": np.zeros((4, 4))}, "frame 'tip' of node 'link2'"),
        ({"link1": np.eye(4)}, "unique frame names, got 'link1'"),
    ],
)
def test_bad_user_frames_are_named(frames, message):
    G = robots.double_pendulum().graph.copy()
    G.nodes["link2"][FRAMES_ATTRIBUTE] = frames
    with pytest.raises(ModelError, match=message):
        frame_names(MultibodyModel(G))


# ----------------------------------------------------------------------------------------
# the tutorial
# ----------------------------------------------------------------------------------------
def _number(out: str, label: str) -> float:
    match = re.search(re.escape(label) + r"\s*([-+0-9.e]+)", out)
    assert match, f"{label!r} not printed"
    return float(match.group(1))


def test_tutorial_13_runs(monkeypatch, capsys, tmp_path):
    plt = pytest.importorskip("matplotlib.pyplot")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("GEOMECH_FIGURES", str(tmp_path))  # show_or_save: not next to the tutorial
    monkeypatch.chdir(tmp_path)
    plt.switch_backend("Agg")
    try:
        runpy.run_path(str(TUTORIAL), run_name="__main__")
    finally:
        plt.close("all")
    out = capsys.readouterr().out
    assert _number(out, "J̇ vs central differences (max rel. error):") < 1e-6
    assert _number(out, "levi-civita: |sym(Λ̇ - 2 C_task)| =") < 1e-6
    assert _number(out, "cartan-zero: |sym(Λ̇ - 2 C_task)| =") > 1e-3
