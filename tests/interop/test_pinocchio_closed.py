"""Pinocchio export of closed models (issue 24 item 8) against Pinocchio's constraint dynamics.

:func:`~geomech.interop.pinocchio.to_pinocchio_closed` turns a closed model into Pinocchio's
spanning tree plus ``RigidConstraintModel`` s. The reference is Pinocchio itself:

- **dynamics.** ``pinocchio.constraintDynamics`` (Pinocchio's own KKT solver) on the exported
  model, at random closed states (``model.random_configuration``, random independent speeds
  ``v`` and random spanning-tree torques ``tau_s``), equals the spanning-tree accelerations of
  geomech's closed ``aba``: :math:`G\\,\\mathrm{aba}(q, v, G^\\top\\tau_s) + g` to 1e-8
  relative (floored at 1), on every shipped URDF+ example with loops (fixed and floating
  base), every loop-only linkage of ``tests/multibody/linkages.py`` (four-bars of every
  Grashof class, parallelograms, kites, six-bars, slider-cranks, knees, ladders, spherical
  four-bar, Bennett, zero-DoF triangle and weld, grbda's robots) and random spatial chains
  closed by spherical (one 3D contact), fixed (one 6D contact), revolute and free-flyer loop
  joints, to the world or between two branches, on welded bodies too;
- **the constraints are exactly the loops.** At those states Pinocchio's constraint Jacobian
  (``getConstraintsJacobian``) annihilates geomech's :math:`G` and has rank
  :math:`n_s - m` (neither weaker nor stronger than the loops); Pinocchio's forward kinematics
  puts the two contact frames together at closed configurations and apart at open ones;
  and the constrained accelerations differ from Pinocchio's unconstrained ``aba`` (never a
  silently unconstrained model);
- **named errors.** Couplings (geared chains, belts), implicit constraints and loop joints
  with no contact counterpart (prismatic, helical, planar) raise ``ModelError`` naming each
  constraint; ``to_pinocchio(closed)`` raises naming ``to_pinocchio_closed``; the tree export
  is unchanged.
"""

import functools
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pinocchio as pin
import pytest

from geomech import aba
from geomech.errors import ModelError
from geomech.interop.pinocchio import (
    PROXIMAL_SETTINGS,
    PinocchioBridge,
    PinocchioClosedModel,
    to_pinocchio,
    to_pinocchio_closed,
)
from geomech.lie import SO3
from geomech.multibody import (
    ClosedMultibodyModel,
    Fixed,
    FreeFlyer,
    Helical,
    Planar,
    Prismatic,
    Revolute,
    Spherical,
    robots,
)
from geomech.multibody.io.examples import example_names, load_example
from geomech.multibody.io.robots import random_inertia

# the linkage generator of the closed-chain tests (tests/multibody imports it the same way,
# from its own folder on pytest's path)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "multibody"))
from linkages import all_linkages  # noqa: E402

RTOL = 1e-8
N_STATES = 3
RANK_RTOL = 1e-9
WORST: dict = {}  # figures for the report: worst relative error per check


def rel_err(actual, expected) -> float:
    """max |actual - expected| / max(1, max |expected|)."""
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    return float(np.max(np.abs(actual - expected), initial=0.0)) / scale


def record(key, err):
    WORST[key] = max(WORST.get(key, 0.0), err)
    return err


# ----------------------------------------------------------------------------------------
# the models
# ----------------------------------------------------------------------------------------
#: shipped URDF+ examples: loops only, and those with couplings
EXAMPLES = {name: load_example(name).constraints for name in example_names()}
LOOP_EXAMPLES = [n for n, cons in EXAMPLES.items() if all(c.kind == "loop" for c in cons)]
COUPLED_EXAMPLES = [n for n, cons in EXAMPLES.items() if any(c.kind == "coupling" for c in cons)]

LINKAGES = {lk.name: lk for lk in all_linkages()}
#: geomech cannot load these yet (tests/multibody/test_linkages.py, XFAIL_LOAD)
LOAD_FAILS: set = set()


def _loop_joints(lk):
    return [d["joint"] for _, _, d in lk.graph.edges(data=True) if d.get("kind") == "loop"]


LOOP_LINKAGES = [
    name
    for name, lk in LINKAGES.items()
    if not {"coupling", "implicit"} & lk.tags
    and all(isinstance(j, (Revolute, Spherical, Fixed)) for j in _loop_joints(lk))
]


def _pose(rng, scale=1.0):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = SO3.random(rng), rng.uniform(-scale, scale, 3)
    return T


def spatial_loop(loop_joint, n_a, n_b, seed, *, welded=False):
    """Two revolute branches from the world closed by ``loop_joint`` (to the world if
    ``n_b == 0``), drawn closed at ``q = 0`` (random body poses first, placements after).

    With ``welded``, the loop attaches to a body welded (``Fixed``) to the tip of branch a.
    """
    rng = np.random.default_rng(seed)
    G = nx.DiGraph(name=f"spatial_loop_{loop_joint.kind}_{seed}")
    G.add_node("world")
    F = {"world": np.eye(4)}
    inertias = iter(random_inertia(rng, n_a + n_b + 1))
    tips = []
    for branch, n in (("a", n_a), ("b", n_b)):
        parent = "world"
        for k in range(n):
            body = f"{branch}{k}"
            F[body] = _pose(rng)
            G.add_node(body, inertia=next(inertias))
            G.add_edge(parent, body, joint=Revolute(rng.normal(size=3)),
                       placement=np.linalg.solve(F[parent], F[body]), name=f"j_{body}")  # fmt: skip
            parent = body
        tips.append(parent)
    pred, succ = tips
    if welded:
        F["tool"] = _pose(rng)
        G.add_node("tool", inertia=next(inertias))
        G.add_edge(pred, "tool", joint=Fixed(), placement=np.linalg.solve(F[pred], F["tool"]),
                   name="weld")  # fmt: skip
        pred = "tool"
    if n_b == 0:  # closing to the world: the world is the predecessor
        pred, succ = succ, pred
    L = _pose(rng)  # the loop frame, common to both sides at q = 0
    G.add_edge(pred, succ, kind="loop", joint=loop_joint, name="loop",
               placement=np.linalg.solve(F[pred], L),
               successor_placement=np.linalg.solve(F[succ], L))  # fmt: skip
    return ClosedMultibodyModel(G)


#: (loop joint, branch a, branch b, seed, welded): mobility n_a + n_b - rows
SPATIAL = {
    "spherical_to_world": (Spherical(), 4, 0, 1, False),  # 1 DoF
    "spherical_branches": (Spherical(), 3, 2, 2, False),  # 2 DoF
    "spherical_welded": (Spherical(), 4, 0, 3, True),  # 1 DoF
    "fixed_to_world": (Fixed(), 7, 0, 4, False),  # 1 DoF
    "fixed_branches": (Fixed(), 4, 4, 5, True),  # 2 DoF
    "revolute_to_world": (Revolute([0.3, -0.2, 1.0]), 6, 0, 6, False),  # 1 DoF
    "revolute_branches": (Revolute([1.0, 0.5, 0.0]), 4, 3, 7, True),  # 2 DoF
    "free_flyer_loop": (FreeFlyer(), 2, 1, 8, False),  # 3 DoF: constrains nothing
}


@functools.cache
def closed_model(kind: str, name: str):
    if kind == "example":
        return load_example(*name)
    if kind == "linkage":
        return ClosedMultibodyModel(LINKAGES[name].graph)
    joint, n_a, n_b, seed, welded = SPATIAL[name]
    return spatial_loop(joint, n_a, n_b, seed, welded=welded)


def _params():
    out = [pytest.param("example", (n, fb), id=f"example-{n}{'-floating' * fb}")
           for n in LOOP_EXAMPLES for fb in (False, True)]  # fmt: skip
    for n in LOOP_LINKAGES:  # strict: flips when geomech loads them
        fails = [pytest.mark.xfail(strict=True, raises=ModelError, reason="XFAIL_LOAD")]
        out.append(pytest.param("linkage", n, id=f"linkage-{n}",
                                marks=fails if n in LOAD_FAILS else ()))  # fmt: skip
    return out + [pytest.param("spatial", n, id=f"spatial-{n}") for n in SPATIAL]


CASES = _params()


# ----------------------------------------------------------------------------------------
# the Pinocchio side
# ----------------------------------------------------------------------------------------
class PinClosed:
    """The export and Pinocchio's algorithms on it (states in geomech's layout)."""

    def __init__(self, model):
        self.model = model
        self.pm, self.cms = to_pinocchio_closed(model)
        self.bridge = PinocchioBridge(model.spanning_tree, self.pm)
        self.data = self.pm.createData()
        self.cds = pin.StdVec_RigidConstraintData([c.createData() for c in self.cms])
        pin.initConstraintDynamics(self.pm, self.data, self.cms, self.cds)

    def forward_dynamics(self, q, v_s, tau_s):
        """``pinocchio.constraintDynamics``: spanning-tree accelerations."""
        br = self.bridge
        settings = pin.ProximalSettings(*PROXIMAL_SETTINGS)
        a = pin.constraintDynamics(self.pm, self.data, br.q_to_pin(q), br.v_to_pin(v_s),
                                   br.v_to_pin(tau_s), self.cms, self.cds, settings)  # fmt: skip
        return br.v_from_pin(a)

    def jacobian(self, q):
        """Pinocchio's constraint Jacobian, columns in geomech's spanning-tree order."""
        if not len(self.cms):
            return np.zeros((0, self.pm.nv))
        pin.computeJointJacobians(self.pm, self.data, self.bridge.q_to_pin(q))
        for cm, cd in zip(self.cms, self.cds, strict=True):
            cm.calc(self.pm, self.data, cd)  # the contact frames at q
        J = pin.getConstraintsJacobian(self.pm, self.data, self.cms, self.cds)
        return J.reshape(-1, self.pm.nv) @ self.bridge.P  # eigenpy flattens n × 1 matrices

    def frame_gaps(self, q):
        """Distance between the two frames of each contact (point, or pose for 6D)."""
        pin.forwardKinematics(self.pm, self.data, self.bridge.q_to_pin(q))
        out = []
        for cm in self.cms:
            M1 = self.data.oMi[cm.joint1_id] * cm.joint1_placement
            M2 = self.data.oMi[cm.joint2_id] * cm.joint2_placement
            gap = np.linalg.norm(M1.translation - M2.translation)
            if cm.type == pin.ContactType.CONTACT_6D:
                gap += np.linalg.norm(pin.log6(M1.inverse() * M2).vector)
            out.append(gap)
        return np.array(out)


def random_state(model, rng):
    q = model.random_configuration(rng)
    return q, rng.normal(size=model.nv), rng.normal(size=model.spanning_tree.nv)


# ----------------------------------------------------------------------------------------
# dynamics: constraintDynamics == G aba(q, v, G^T tau_s) + g
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("kind", "name"), CASES)
def test_constraint_dynamics_reproduces_aba(kind, name):
    model = closed_model(kind, name)
    ref = PinClosed(model)
    rng = np.random.default_rng(2024)
    for _ in range(N_STATES):
        q, v, tau_s = random_state(model, rng)
        G, g = model.constraint_matrices(q, v)
        expected = G @ aba(model, q, v, G.T @ tau_s) + g
        got = ref.forward_dynamics(q, G @ v, tau_s)
        err = record("constraintDynamics vs aba", rel_err(got, expected))
        assert err < RTOL, f"{err:.3g}"


@pytest.mark.parametrize(("kind", "name"), CASES)
def test_constraints_are_exactly_the_loops(kind, name):
    model = closed_model(kind, name)
    ref = PinClosed(model)
    n_s, m = model.spanning_tree.nv, model.nv
    rng = np.random.default_rng(7)
    for _ in range(N_STATES):
        q, v, tau_s = random_state(model, rng)
        G, _ = model.constraint_matrices(q, v)
        J = ref.jacobian(q)
        scale = max(1.0, float(np.abs(J).max(initial=0.0)))
        # the loops' motions satisfy Pinocchio's constraints, and nothing else does
        assert record("J G", float(np.abs(J @ G).max(initial=0.0)) / scale) < 1e-9
        s = np.linalg.svd(J, compute_uv=False) if J.size else np.zeros(0)
        rank = int(np.sum(s > RANK_RTOL * s.max())) if s.size else 0
        assert rank == n_s - m, (rank, n_s, m)
        # the contact frames meet at closed configurations
        assert record("frame gap closed", float(ref.frame_gaps(q).max(initial=0.0))) < 1e-8
        # constrained, unless the loops constrain nothing
        if n_s > m:
            free = ref.bridge.aba(q, G @ v, tau_s)
            assert rel_err(ref.forward_dynamics(q, G @ v, tau_s), free) > 1e-6


@pytest.mark.parametrize(("kind", "name"), CASES)
def test_contact_frames_part_off_the_closed_manifold(kind, name):
    model = closed_model(kind, name)
    ref = PinClosed(model)
    if not len(ref.cms):
        assert model.spanning_tree.nv == model.nv  # a free-flyer loop constrains nothing
        return
    rng = np.random.default_rng(11)
    q = model.random_configuration(rng)
    st = model.spanning_tree
    moved = st.integrate(q, 0.3 * rng.normal(size=st.nv))
    assert np.abs(model.constraint_residual(moved)).max() > 1e-3
    assert ref.frame_gaps(moved).max() > 1e-3


# ----------------------------------------------------------------------------------------
# the export itself
# ----------------------------------------------------------------------------------------
def test_contact_types_and_names():
    """Revolute: two 3D contacts; spherical: one 3D; fixed: one 6D; free flyer: none."""
    expected = {
        "spherical_to_world": [("loop", "CONTACT_3D")],
        "fixed_to_world": [("loop", "CONTACT_6D")],
        "revolute_to_world": [("loop:0", "CONTACT_3D"), ("loop:1", "CONTACT_3D")],
        "free_flyer_loop": [],
    }
    for name, contacts in expected.items():
        out = to_pinocchio_closed(closed_model("spatial", name))
        assert isinstance(out, PinocchioClosedModel)
        assert isinstance(out.constraint_models, pin.StdVec_RigidConstraintModel)
        assert [(c.name, c.type.name) for c in out.constraint_models] == contacts
        assert all(c.reference_frame == pin.ReferenceFrame.LOCAL for c in out.constraint_models)


def test_spanning_tree_is_the_tree_export():
    """The exported model is to_pinocchio(model.spanning_tree), joint for joint."""
    for kind, name in [("example", ("planar_leg", True)), ("spatial", "fixed_branches")]:
        model = closed_model(kind, name)
        pm = to_pinocchio_closed(model).model
        ref = to_pinocchio(model.spanning_tree)
        assert list(pm.names) == list(ref.names) and (pm.nq, pm.nv) == (ref.nq, ref.nv)
        assert [f.name for f in pm.frames] == [f.name for f in ref.frames]
        for a, b in zip(pm.jointPlacements, ref.jointPlacements, strict=True):
            assert np.array_equal(a.homogeneous, b.homogeneous)
        for a, b in zip(pm.inertias, ref.inertias, strict=True):
            assert np.array_equal(a.matrix(), b.matrix())


@pytest.mark.parametrize("name", ["double_pendulum", "quadruped"])
def test_tree_export_unchanged(name):
    """On a tree, to_pinocchio is unchanged and to_pinocchio_closed adds no constraint."""
    tree = getattr(robots, name)()
    pm = to_pinocchio(tree)
    assert isinstance(pm, pin.Model)
    pm2, cms = to_pinocchio_closed(tree)
    assert len(cms) == 0 and list(pm2.names) == list(pm.names)
    rng = np.random.default_rng(3)
    q, v, tau = tree.random_configuration(rng), rng.normal(size=tree.nv), rng.normal(size=tree.nv)
    br = PinocchioBridge(tree, pm)
    assert rel_err(br.aba(q, v, tau), aba(tree, q, v, tau)) < 1e-9
    assert rel_err(br.constraint_dynamics(q, v, tau, cms), aba(tree, q, v, tau)) < 1e-9


def test_bridge_constraint_dynamics_matches_the_raw_call():
    model = closed_model("example", ("six_bar", True))
    ref = PinClosed(model)
    rng = np.random.default_rng(5)
    q, v, tau_s = random_state(model, rng)
    G, _ = model.constraint_matrices(q, v)
    raw = ref.forward_dynamics(q, G @ v, tau_s)
    assert np.array_equal(ref.bridge.constraint_dynamics(q, G @ v, tau_s, ref.cms), raw)
    as_list = ref.bridge.constraint_dynamics(q, G @ v, tau_s, list(ref.cms))
    assert np.array_equal(as_list, raw)


def test_default_proximal_settings_are_needed():
    """Pinocchio's default settings (mu = 0) fail on a revolute loop's redundant rows."""
    ref = PinClosed(closed_model("example", ("four_bar", False)))
    q, v, tau_s = random_state(ref.model, np.random.default_rng(0))
    G, _ = ref.model.constraint_matrices(q, v)
    br = ref.bridge
    a = pin.constraintDynamics(ref.pm, ref.data, br.q_to_pin(q), br.v_to_pin(G @ v),
                               br.v_to_pin(tau_s), ref.cms, ref.cds)  # fmt: skip
    assert not np.all(np.isfinite(a))
    assert np.all(np.isfinite(br.constraint_dynamics(q, G @ v, tau_s, ref.cms)))


# ----------------------------------------------------------------------------------------
# named errors
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", COUPLED_EXAMPLES)
def test_couplings_raise_by_name(name):
    model = load_example(name)
    couplings = [c.name for c in model.constraints if c.kind == "coupling"]
    with pytest.raises(ModelError, match="couplings") as info:
        to_pinocchio_closed(model)
    assert all(repr(c) in str(info.value) for c in couplings)


@pytest.mark.parametrize("name", ["geared_chain_3", "locked_four_bar", "tello_leg"])
def test_couplings_and_implicit_constraints_raise_by_name(name):
    model = ClosedMultibodyModel(LINKAGES[name].graph)
    with pytest.raises(ModelError, match="to_pinocchio_closed") as info:
        to_pinocchio_closed(model)
    for con in model.constraints:
        if con.kind in ("coupling", "implicit"):
            assert repr(con.name) in str(info.value)
    kinds = {c.kind for c in model.constraints}
    assert ("implicit constraints" in str(info.value)) == ("implicit" in kinds)
    assert ("couplings" in str(info.value)) == ("coupling" in kinds)


#: loop joints with no contact counterpart, on revolute chains with one degree of freedom
MASKED = {
    "prismatic": (Prismatic([0.2, 0.0, 1.0]), 6),
    "helical": (Helical([0.0, 1.0, 0.3], 0.05), 6),
    "planar": (Planar(), 4),
}


@pytest.mark.parametrize("kind", list(MASKED))
def test_loop_joints_without_a_contact_raise_by_name(kind):
    joint, n = MASKED[kind]
    model = spatial_loop(joint, n, 0, 12)
    assert model.nv == 1
    name = type(joint).__name__
    with pytest.raises(ModelError, match=f"{name} loop joints 'loop' .*mask of rows"):
        to_pinocchio_closed(model)


def test_prismatic_loop_raises_by_name():
    model = ClosedMultibodyModel(LINKAGES["slider_crank_prismatic_loop"].graph)
    loop = next(c for c in model.constraints if c.kind == "loop")
    with pytest.raises(ModelError, match=f"Prismatic loop joints {loop.name!r}"):
        to_pinocchio_closed(model)


@pytest.mark.parametrize("name", LOOP_EXAMPLES + COUPLED_EXAMPLES)
def test_to_pinocchio_refuses_closed_models_naming_the_export(name):
    with pytest.raises(ModelError, match=r"to_pinocchio_closed\(model\)"):
        to_pinocchio(load_example(name))


def test_report_figures():
    """Print the worst errors (run with -s for the report)."""
    for key, err in sorted(WORST.items()):
        print(f"{key:32s} {err:.2e}")
