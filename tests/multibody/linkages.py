r"""Generator of closed-chain test linkages (issue 24): planar, spatial, coupled, geared.

Every generator returns a :class:`Linkage`: a ``networkx.DiGraph`` ready for
``geomech.multibody.ClosedMultibodyModel(graph)`` (tree edges with geomech joints, loop edges
``kind="loop"``, couplings ``kind="coupling"``, implicit constraints in
``graph.graph["constraints"]``) and its metadata: the true mobility, a closed configuration
known by construction, a closed *singular* configuration where one is known, and a
description.

How the linkages are made (design first)
----------------------------------------
Each linkage is drawn at a *design configuration*: the world pose of every body frame is
chosen first (random points for planar linkages, Denavit–Hartenberg chains for the Bennett
linkage, ...), the link lengths follow from it, and the joint placements are computed from
those poses and the design joint values,

.. math:: P_{\rm edge} = F_{\rm parent}^{-1}\,F_{\rm child}\,T_J(q_{\rm design})^{-1},

so the design configuration closes every loop by construction. How the file is *written*
is a separate choice (``writing``):

- ``"bars"``: every bar frame lies along its bar (the usual URDF style: all joint
  placements are translations along the bars); then ``q = 0`` puts every bar along the
  x axis of its parent, which does **not** close the loops of a generic linkage, and closes
  a parallelogram or a kite in its collinear (singular) change point;
- ``"assembled"``: every frame is aligned with the ground at the design configuration, so
  ``q = 0`` is the (generic, closed) design configuration.

The known configurations are dictionaries ``{joint name: value}`` over the spanning-tree
joints; :meth:`Linkage.q` lays them out in a model's ``q``. Inertias are random and
physically consistent (positive mass, the centre of mass near the body's pivots, the
rotational inertia of a box with random sides and axes). Implicit constraints keep their
callables in :attr:`Linkage.implicit` so that the reference
(:mod:`linkage_reference`) evaluates them without going through geomech.

The geometry of the URDF+ robots published with grbda (ROAM-Lab-ND/generalized_rbda,
``robot-models/``: ``four_bar``, ``six_bar``, ``planar_leg_linkage``,
``revolute_rotor_chain``, ``mini_cheetah_leg``, ``mit_humanoid_leg``, ``tello_legs``) is
rewritten here as generator functions (their link lengths, joint origins, axes, masses and
gear ratios; nothing of their files is copied). grbda's Tello differentials are CasADi
functions of the authors'; :func:`tello_leg` keeps Tello's tree (origins, axes, masses)
and closes it with differentials of its own (a bevel-gear differential with a cam term).

Families (:func:`all_linkages` lists the seeded set the tests run):

- four-bars of every Grashof class with random link lengths (:func:`four_bar`):
  crank-rocker, double-crank, double-rocker, triple-rocker (non-Grashof), change point;
  the parallelogram and the kite (:func:`parallelogram`, :func:`kite`) whose ``q = 0`` is
  their collinear change point;
- Watt and Stephenson six-bars (:func:`watt_six_bar`, :func:`stephenson_six_bar`);
- slider-cranks (:func:`slider_crank`), with a prismatic tree joint or a prismatic loop
  joint;
- a four-bar knee on a floating base (:func:`floating_knee`);
- coupled loops: four-bars branching from one base (:func:`four_bar_bouquet`), a tower of
  four-bars each standing on the previous coupler (:func:`four_bar_tower`), a ladder of
  ``n`` four-bars sharing their rockers in one cluster (:func:`four_bar_ladder`), a
  parallelogram array with redundant constraints (:func:`parallel_bars`);
- spatial: RSSR (:func:`rssr`), spherical four-bar (:func:`spherical_four_bar`), Bennett
  (:func:`bennett`);
- transmissions: geared rotor chains (:func:`geared_chain`), grbda's legs;
- zero-DoF closed models (:func:`triangle`, :func:`welded_pendulum`,
  :func:`locked_four_bar`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx
import numpy as np
from scipy.spatial.transform import Rotation

from geomech.multibody import (
    Fixed,
    FreeFlyer,
    ImplicitConstraint,
    MultibodyModel,
    Prismatic,
    Revolute,
    Spherical,
)
from geomech.spatial import spatial_inertia

__all__ = [
    "Linkage",
    "ImplicitSpec",
    "GRASHOF_CLASSES",
    "four_bar",
    "four_bar_lengths",
    "parallelogram",
    "kite",
    "watt_six_bar",
    "stephenson_six_bar",
    "slider_crank",
    "floating_knee",
    "four_bar_bouquet",
    "four_bar_tower",
    "four_bar_ladder",
    "parallel_bars",
    "rssr",
    "spherical_four_bar",
    "bennett",
    "geared_chain",
    "triangle",
    "welded_pendulum",
    "locked_four_bar",
    "grbda_four_bar",
    "grbda_six_bar",
    "grbda_planar_leg",
    "grbda_rotor_chain",
    "mini_cheetah_leg",
    "mit_humanoid_leg",
    "tello_leg",
    "all_linkages",
    "spanning_tree_graph",
]

GRASHOF_CLASSES = ("crank_rocker", "double_crank", "double_rocker", "triple_rocker", "change_point")
Z = np.array([0.0, 0.0, 1.0])


# ----------------------------------------------------------------------------------------
# the record
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ImplicitSpec:
    """An implicit constraint φ(q_J) = 0 with its Jacobian and Jacobian rate (1-DoF joints)."""

    name: str
    joints: tuple
    phi: object
    jacobian: object
    jacobian_rate: object


@dataclass
class Linkage:
    """A generated linkage: the graph and what is known about it.

    Attributes
    ----------
    name, family, description : str
    graph : networkx.DiGraph
    mobility : int
        The true number of degrees of freedom (the dimension of the closed configuration
        manifold at its generic points).
    design : dict
        A closed configuration (joint name -> value), known by construction.
    singular : dict or None
        A closed configuration where the constraint Jacobian loses rank (a change point), if
        one is known.
    implicit : tuple of ImplicitSpec
        The implicit constraints of ``graph.graph["constraints"]``, with their callables.
    tags : frozenset of str
        ``planar``, ``spatial``, ``floating``, ``coupling``, ``implicit``, ``zero_dof``,
        ``open_zero`` (q = 0 does not close), ``singular_zero`` (q = 0 closes at a singular
        point), ``closed_zero`` (q = 0 is a generic closed configuration), ``reference``
        (the graph gives a closed ``reference_configuration``).
    """

    name: str
    family: str
    graph: nx.DiGraph
    mobility: int
    description: str
    design: dict
    singular: dict | None = None
    implicit: tuple = ()
    tags: frozenset = field(default_factory=frozenset)

    def q(self, model, values=None) -> np.ndarray:
        """Lay out ``values`` (default :attr:`design`) in ``model``'s spanning-tree ``q``."""
        values = self.design if values is None else values
        st = getattr(model, "spanning_tree", model)
        q = st.neutral().copy()
        for name in st.joint_names:
            if name in values:
                q[st.q_slice(name)] = values[name]
        return q

    def tree_graph(self) -> nx.DiGraph:
        """The spanning tree: the ordinary edges only."""
        return spanning_tree_graph(self.graph)

    def __repr__(self) -> str:
        nodes = self.graph.number_of_nodes()
        return f"<Linkage {self.name!r}: mobility {self.mobility}, {nodes} nodes>"


def spanning_tree_graph(graph) -> nx.DiGraph:
    """The spanning tree of a closed graph (its ``kind="joint"`` edges), as a new graph."""
    tree = nx.DiGraph()
    tree.graph.update(
        {
            k: v
            for k, v in graph.graph.items()
            if k not in ("constraints", "reference_configuration")
        }
    )
    tree.add_nodes_from(graph.nodes(data=True))
    tree.add_edges_from(
        (u, v, d) for u, v, d in graph.edges(data=True) if d.get("kind", "joint") == "joint"
    )
    return tree


# ----------------------------------------------------------------------------------------
# geometry helpers
# ----------------------------------------------------------------------------------------
def _pose(R=None, p=None) -> np.ndarray:
    T = np.eye(4)
    if R is not None:
        T[:3, :3] = R
    if p is not None:
        T[:3, 3] = p
    return T


def _inv(T) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = T[:3, :3].T
    out[:3, 3] = -T[:3, :3].T @ T[:3, 3]
    return out


def _rot(axis, angle) -> np.ndarray:
    axis = np.asarray(axis, float)
    return Rotation.from_rotvec(axis / np.linalg.norm(axis) * angle).as_matrix()


def _rz(angle) -> np.ndarray:
    return _rot(Z, angle)


def _rx(angle) -> np.ndarray:
    return _rot([1.0, 0.0, 0.0], angle)


def _rpy(r, p, y) -> np.ndarray:
    """URDF's roll-pitch-yaw: R = Rz(y) Ry(p) Rx(r)."""
    return Rotation.from_euler("ZYX", [y, p, r]).as_matrix()


def _random_rotation(rng) -> np.ndarray:
    return Rotation.random(random_state=rng).as_matrix()


def _joint_pose(spec, q) -> np.ndarray:
    """Pose of a joint (child frame in joint frame) at ``q``, from its spec (own formulas)."""
    kind = spec[0]
    if kind == "R":
        return _pose(_rot(spec[1], float(np.ravel(q)[0])))
    if kind == "P":
        a = np.asarray(spec[1], float)
        return _pose(p=a / np.linalg.norm(a) * float(np.ravel(q)[0]))
    if kind == "S":
        return _pose(Rotation.from_quat(q).as_matrix())
    if kind == "F":
        return _pose(Rotation.from_quat(q[3:]).as_matrix(), q[:3])
    return np.eye(4)  # "W": welded


def _joint(spec):
    kind = spec[0]
    if kind == "R":
        return Revolute(spec[1])
    if kind == "P":
        return Prismatic(spec[1])
    if kind == "S":
        return Spherical()
    if kind == "F":
        return FreeFlyer()
    return Fixed()


def _pose_q(T) -> np.ndarray:
    """Free-flyer coordinates [p, quaternion (x, y, z, w)] of a pose."""
    return np.concatenate([T[:3, 3], Rotation.from_matrix(T[:3, :3]).as_quat()])


def _circle_intersection(P1, r1, P2, r2, branch):
    """The point at distance r1 from P1 and r2 from P2 (planar), on side ``branch`` = ±1."""
    d = np.asarray(P2, float) - np.asarray(P1, float)
    L = float(np.hypot(*d))
    if not abs(r1 - r2) < L < r1 + r2:
        return None
    x = (L * L + r1 * r1 - r2 * r2) / (2 * L)
    h = np.sqrt(max(r1 * r1 - x * x, 0.0))
    e = d / L
    return np.asarray(P1, float) + x * e + branch * h * np.array([-e[1], e[0]])


def _angle(P, Q) -> float:
    d = np.asarray(Q, float) - np.asarray(P, float)
    return float(np.arctan2(d[1], d[0]))


def _box_inertia(rng, com, mass=None):
    """Physically consistent spatial inertia: a box of random sides and axes about ``com``."""
    m = float(rng.uniform(0.5, 2.0)) if mass is None else float(mass)
    d2 = rng.uniform(0.03, 0.4, 3) ** 2
    moments = m / 12.0 * (d2.sum() - d2)
    R = _random_rotation(rng)
    return spatial_inertia(m, np.asarray(com, float), R @ np.diag(moments) @ R.T)


def _urdf_inertia(m, com, ixx, ixy, ixz, iyy, iyz, izz):
    I_c = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]], float)
    return spatial_inertia(float(m), np.asarray(com, float), I_c)


# ----------------------------------------------------------------------------------------
# the builder: design poses -> placements
# ----------------------------------------------------------------------------------------
class _Builder:
    """Accumulates bodies at their design world poses and computes the placements."""

    def __init__(self, name, rng, floating=False, ground_pose=None):
        self.graph = nx.DiGraph(name=name)
        self.rng = rng
        self.frames = {"world": np.eye(4)}
        self.design = {}
        self.points = {}
        self.inertias = {}
        self.constraints = []
        self.implicit = []
        W = np.eye(4) if ground_pose is None else ground_pose
        self.W = W
        self.ground = "world"
        self.floating = floating
        if floating:
            self.graph.add_edge("world", "base", joint=FreeFlyer(), name="base_joint")
            self.frames["base"] = W
            self.design["base_joint"] = _pose_q(W)
            self.points["base"] = [np.zeros(3)]
            self.ground = "base"

    def ground_frame(self):
        return self.frames[self.ground] if self.floating else self.W

    def planar(self, xy, angle=0.0) -> np.ndarray:
        """World pose of a frame at planar point ``xy`` rotated by ``angle`` in the plane."""
        return self.W @ _pose(_rz(angle), [xy[0], xy[1], 0.0])

    def body(self, child, parent, spec, q, frame, name, points=(), **edge):
        """Add ``child`` (world pose ``frame`` at the design) hanging from ``parent``."""
        parent = self.ground if parent is None else parent
        F_p = self.frames[parent]
        placement = _inv(F_p) @ frame @ _inv(_joint_pose(spec, q))
        self.graph.add_edge(parent, child, joint=_joint(spec), placement=placement, name=name,
                            **edge)  # fmt: skip
        self.frames[child] = frame
        self.design[name] = np.atleast_1d(np.asarray(q, float))
        self.points[child] = [_inv(frame) @ np.append(p, 1.0) for p in points] or [np.zeros(4)]
        return child

    def loop(self, pred, succ, spec, L_pred, L_succ, name):
        """Loop joint from world frames ``L_pred`` (on pred) and ``L_succ`` (on succ)."""
        pred = self.ground if pred is None else pred
        succ = self.ground if succ is None else succ
        self.graph.add_edge(
            pred,
            succ,
            kind="loop",
            joint=_joint(spec),
            placement=_inv(self.frames[pred]) @ L_pred,
            successor_placement=_inv(self.frames[succ]) @ L_succ,
            name=name,
        )

    def coupling(self, pred, succ, ratio, name):
        self.graph.add_edge(pred, succ, kind="coupling", ratio=float(ratio), name=name)

    def constraint(self, spec: ImplicitSpec, with_rate=True):
        self.implicit.append(spec)
        self.constraints.append(
            ImplicitConstraint(
                list(spec.joints),
                spec.phi,
                jacobian=spec.jacobian,
                jacobian_rate=spec.jacobian_rate if with_rate else None,
                name=spec.name,
            )
        )

    def finish(self, family, mobility, description, *, singular=None, tags=(), writing=None,
               reference=False, inertias=None) -> Linkage:  # fmt: skip
        g = self.graph
        for node in g.nodes:
            if node == "world":
                continue
            if inertias and node in inertias:
                g.nodes[node]["inertia"] = inertias[node]
                continue
            pts = np.array([p[:3] for p in self.points.get(node, [np.zeros(4)])])
            com = pts.mean(axis=0) + self.rng.normal(scale=0.02, size=3)
            g.nodes[node]["inertia"] = _box_inertia(self.rng, com)
        if self.constraints:
            g.graph["constraints"] = list(self.constraints)
        tags = set(tags)
        tags.add("floating" if self.floating else "fixed_base")
        if self.implicit:
            tags.add("implicit")
        if any(d.get("kind") == "coupling" for _, _, d in g.edges(data=True)):
            tags.add("coupling")
        link = Linkage(
            name=g.graph["name"],
            family=family,
            graph=g,
            mobility=int(mobility) + (6 if self.floating else 0),
            description=description,
            design={k: np.array(v) for k, v in self.design.items()},
            singular=singular,
            implicit=tuple(self.implicit),
            tags=frozenset(tags),
        )
        if reference:
            tree = MultibodyModel(spanning_tree_graph(g))
            g.graph["reference_configuration"] = link.q(tree)
            link.tags = link.tags | {"reference"}
        return link


def _frame_angle(writing, bar_angle, rng) -> float:
    if writing == "bars":
        return bar_angle
    if writing == "assembled":
        return 0.0
    return float(rng.uniform(-np.pi, np.pi))  # "random"


def _suffix(writing):
    return "" if writing == "bars" else f"_{writing}"


def _zero_tag(writing):
    return "closed_zero" if writing == "assembled" else "open_zero"


# ----------------------------------------------------------------------------------------
# planar four-bars
# ----------------------------------------------------------------------------------------
def four_bar_lengths(kind, rng):
    """Random (ground, crank, coupler, rocker) lengths of a Grashof class.

    Grashof: with s and l the shortest and longest links and p, q the others, a link turns
    fully iff s + l < p + q (then: the crank shortest -> crank-rocker, the ground shortest ->
    double-crank, the coupler shortest -> double-rocker); s + l > p + q -> triple-rocker;
    s + l = p + q -> change point.
    """
    if kind not in GRASHOF_CLASSES:
        raise ValueError(kind)
    while True:
        x = np.sort(rng.uniform(0.4, 2.0, 4))
        s, p, q, l = x
        if kind == "change_point":
            l = p + q - s  # s + l = p + q up to rounding
            if not l < 2.5 or min(q - p, p - s, l - q) < 0.1:
                continue
        elif kind == "triple_rocker":
            if s + l <= p + q + 0.15 or l > s + p + q - 0.15:
                continue
        elif s + l >= p + q - 0.15 or min(p - s, l - q) < 0.1:
            continue
        others = [p, q, l]
        rng.shuffle(others)
        if kind == "crank_rocker":
            g, a, b, c = others[0], s, others[1], others[2]
        elif kind == "double_crank":
            g, a, b, c = s, others[0], others[1], others[2]
        elif kind == "double_rocker":
            g, a, b, c = others[0], others[1], s, others[2]
        else:
            perm = rng.permutation([s, p, q, l])
            g, a, b, c = perm
        return float(g), float(a), float(b), float(c)


def _four_bar_design(g, a, b, c, rng, theta=None):
    """Crank angle, coupler point C and branch of an assembled four-bar (random if not given)."""
    for _ in range(1000):
        th = float(rng.uniform(-np.pi, np.pi)) if theta is None else float(theta)
        B = a * np.array([np.cos(th), np.sin(th)])
        branch = float(rng.choice([-1.0, 1.0]))
        C = _circle_intersection(B, b, [g, 0.0], c, branch)
        if C is None:
            if theta is not None:
                raise ValueError("the four-bar does not assemble at that crank angle")
            continue
        # keep away from the dead points, where the coupler and a ground link are collinear
        gap = min(abs(np.sin(_angle(B, C) - th)), abs(np.sin(_angle(B, C) - _angle([g, 0], C))))
        if theta is None and gap < 0.2:
            continue
        return th, B, C
    raise RuntimeError("no assembly found")  # pragma: no cover


def _four_bar_on(bld, prefix, parent, O, g, a, b, c, th, B, C, writing, angle0=0.0,
                 marks=None):  # fmt: skip
    """Add a four-bar whose ground link (pivots O and O + g e(angle0)) is on ``parent``."""
    rng = bld.rng
    R0 = np.array([[np.cos(angle0), -np.sin(angle0)], [np.sin(angle0), np.cos(angle0)]])
    A_ = np.asarray(O, float)
    D_ = A_ + R0 @ [g, 0.0]
    B_ = A_ + R0 @ B
    C_ = A_ + R0 @ C
    base_angle = 0.0 if parent is None else bld._planar_angle[parent]
    ang = {
        "crank": _frame_angle(writing, _angle(A_, B_), rng),
        "coupler": _frame_angle(writing, _angle(B_, C_), rng),
        "rocker": _frame_angle(writing, _angle(D_, C_), rng),
    }
    marks = marks or {}
    names = {k: f"{prefix}{k}" for k in ang}
    j = {k: f"{prefix}{k}_joint" for k in ang}
    bld.body(names["crank"], parent, ("R", Z), ang["crank"] - base_angle,
             bld.planar(A_, ang["crank"]), j["crank"], points=[bld.planar(A_)[:3, 3],
                                                               bld.planar(B_)[:3, 3]],
             **marks.get("crank", {}))  # fmt: skip
    bld.body(names["coupler"], names["crank"], ("R", Z), ang["coupler"] - ang["crank"],
             bld.planar(B_, ang["coupler"]), j["coupler"],
             points=[bld.planar(B_)[:3, 3], bld.planar(C_)[:3, 3]],
             **marks.get("coupler", {}))  # fmt: skip
    bld.body(names["rocker"], parent, ("R", Z), ang["rocker"] - base_angle,
             bld.planar(D_, ang["rocker"]), j["rocker"],
             points=[bld.planar(D_)[:3, 3], bld.planar(C_)[:3, 3]],
             **marks.get("rocker", {}))  # fmt: skip
    for k in ang:
        bld._planar_angle[names[k]] = ang[k]
    bld._bar_angle = getattr(bld, "_bar_angle", {})
    bld._bar_angle.update({names["crank"]: _angle(A_, B_), names["coupler"]: _angle(B_, C_),
                           names["rocker"]: _angle(D_, C_)})  # fmt: skip
    bld.loop(names["coupler"], names["rocker"], ("R", Z), bld.planar(C_, ang["coupler"]),
             bld.planar(C_, ang["rocker"]), f"{prefix}loop")  # fmt: skip
    return names


def _planar_builder(name, rng, floating=False, plane=True):
    W = _pose(_random_rotation(rng), rng.uniform(-0.5, 0.5, 3)) if plane else np.eye(4)
    bld = _Builder(name, rng, floating=floating, ground_pose=W)
    bld._planar_angle = {"world": 0.0, "base": 0.0}
    return bld


def four_bar(kind, rng, *, writing="bars", floating=False, reference=False, name=None,
             independent=None) -> Linkage:  # fmt: skip
    """A planar four-bar of Grashof class ``kind`` with random link lengths.

    Ground pivots A (crank) and D (rocker) at distance g; crank AB = a, coupler BC = b,
    rocker DC = c; the loop closes at C with a revolute loop joint (coupler -> rocker).
    Bodies ``crank``, ``coupler``, ``rocker``; joints ``crank_joint``, ``coupler_joint``,
    ``rocker_joint``; loop ``loop``. The design configuration is a random assembly away
    from the dead points. For ``change_point``, :attr:`Linkage.singular` is the collinear
    configuration (all pivots on the ground line).

    ``independent``: optional ``{"crank"|"coupler"|"rocker": bool}`` marks.
    """
    rng = np.random.default_rng(rng)
    g, a, b, c = four_bar_lengths(kind, rng)
    name = name or f"four_bar_{kind}"
    bld = _planar_builder(name, rng)
    th, B, C = _four_bar_design(g, a, b, c, rng)
    marks = {k: {"independent": v} for k, v in (independent or {}).items()}
    _four_bar_on(bld, "", None, [0.0, 0.0], g, a, b, c, th, B, C, writing, marks=marks)
    singular = None
    tags = {"planar", _zero_tag(writing), kind}
    if kind == "change_point":
        singular = _collinear_four_bar(g, a, b, c, bld)
    elif (independent or {}).get("rocker") and kind == "crank_rocker":
        # the rocker's dead point: crank and coupler stretched along one line A -> C
        C = _circle_intersection([0.0, 0.0], a + b, [g, 0.0], c, 1.0)
        phi = _angle([0.0, 0.0], C)
        singular = _values_at_angles(bld, "", phi, phi, _angle([g, 0.0], C))
        tags.add("coordinate_singular")
    desc = (f"planar four-bar, {kind.replace('_', '-')}: ground {g:.3f}, crank {a:.3f}, "
            f"coupler {b:.3f}, rocker {c:.3f}; written with writing={writing!r}")  # fmt: skip
    return bld.finish("four_bar", 1, desc, singular=singular, tags=tags, reference=reference)


def _collinear_four_bar(g, a, b, c, bld, prefix=""):
    """The collinear configuration of a change-point four-bar (absolute bar angles 0 or π)."""
    for s1 in (1, -1):
        for s2 in (1, -1):
            for s3 in (1, -1):
                if abs(s1 * a + s2 * b - g - s3 * c) < 1e-12 * (a + b + c + g):
                    phis = [0.0 if s > 0 else np.pi for s in (s1, s2, s3)]
                    return _values_at_angles(bld, prefix, *phis)
    raise ValueError("not a change-point four-bar")  # pragma: no cover


def _values_at_angles(bld, prefix, crank, coupler, rocker):
    """Joint values putting the bars at absolute angles (crank, coupler, rocker) in the plane.

    A body written at frame angle w whose bar points at angle β at the design points at
    β + (φ − w) when its frame is at φ; the frame angle giving bar angle α is w + α − β.
    """
    out = {}
    abs_frame = {}
    for k, alpha in (("crank", crank), ("coupler", coupler), ("rocker", rocker)):
        body = f"{prefix}{k}"
        w = bld._planar_angle[body]
        beta = bld._bar_angle[body]
        abs_frame[k] = w + alpha - beta
    out[f"{prefix}crank_joint"] = np.array([abs_frame["crank"]])
    out[f"{prefix}coupler_joint"] = np.array([abs_frame["coupler"] - abs_frame["crank"]])
    out[f"{prefix}rocker_joint"] = np.array([abs_frame["rocker"]])
    return out


def parallelogram(rng, *, floating=False) -> Linkage:
    """A parallelogram four-bar written along its bars: ``q = 0`` is its collinear change point.

    Crank = rocker = a, coupler = ground = g. At ``q = 0`` every bar lies on the ground line
    and the loop closes there, at the crossing of the parallelogram and antiparallelogram
    branches: the constraint Jacobian loses rank (a singular reference configuration, as in
    grbda's ``four_bar.urdf``). The design configuration is a generic parallelogram pose.
    """
    rng = np.random.default_rng(rng)
    g, a = rng.uniform(0.6, 1.6), rng.uniform(0.3, 1.0)
    th = float(rng.uniform(0.4, 1.2)) * rng.choice([-1, 1])
    B = a * np.array([np.cos(th), np.sin(th)])
    C = B + [g, 0.0]
    bld = _planar_builder("parallelogram" + ("_floating" if floating else ""), rng,
                          floating=floating)  # fmt: skip
    _four_bar_on(bld, "", None, [0.0, 0.0], g, a, g, a, th, B, C, "bars")
    singular = {"crank_joint": np.zeros(1), "coupler_joint": np.zeros(1),
                "rocker_joint": np.zeros(1)}  # fmt: skip
    desc = (
        f"parallelogram four-bar (crank = rocker = {a:.3f}, coupler = ground = {g:.3f}), "
        "q = 0 collinear"
    )
    return bld.finish("parallelogram", 1, desc, singular=singular,
                      tags={"planar", "singular_zero", "change_point"})  # fmt: skip


def kite(rng) -> Linkage:
    """A kite (deltoid) four-bar, crank = ground = a, coupler = rocker = b, written along its bars.

    At ``q = 0`` the crank lies on the ground link (B on D) and coupler and rocker are folded
    together along the ground line: the kite's change point (singular). The design
    configuration is a generic kite pose.
    """
    rng = np.random.default_rng(rng)
    a = float(rng.uniform(0.4, 0.8))
    b = float(rng.uniform(1.0, 1.6))
    th, B, C = _four_bar_design(a, a, b, b, rng)
    bld = _planar_builder("kite", rng)
    _four_bar_on(bld, "", None, [0.0, 0.0], a, a, b, b, th, B, C, "bars")
    singular = {"crank_joint": np.zeros(1), "coupler_joint": np.zeros(1),
                "rocker_joint": np.zeros(1)}  # fmt: skip
    desc = f"kite four-bar (crank = ground = {a:.3f}, coupler = rocker = {b:.3f}), q = 0 folded"
    return bld.finish("kite", 1, desc, singular=singular,
                      tags={"planar", "singular_zero", "change_point"})  # fmt: skip


# ----------------------------------------------------------------------------------------
# six-bars, slider-cranks, floating knee
# ----------------------------------------------------------------------------------------
def _planar_body(bld, name, parent, pivot, angle, joint_name, points, spec=("R", Z), q=None,
                 **edge):  # fmt: skip
    base = bld._planar_angle[bld.ground if parent is None else parent]
    q = angle - base if q is None else q
    bld.body(name, parent, spec, q, bld.planar(pivot, angle), joint_name,
             points=[bld.planar(p)[:3, 3] for p in points], **edge)  # fmt: skip
    bld._planar_angle[name] = angle


def _planar_loop(bld, pred, succ, point, name):
    bld.loop(pred, succ, ("R", Z), bld.planar(point, bld._planar_angle[pred or bld.ground]),
             bld.planar(point, bld._planar_angle[succ or bld.ground]), name)  # fmt: skip


def _random_points(rng, n, scale=1.0):
    return [rng.uniform(-scale, scale, 2) for _ in range(n)]


def watt_six_bar(rng, *, writing="bars") -> Linkage:
    """A Watt six-bar (the two ternary links, ground and rocker, adjacent), random geometry.

    Loop 1: ground A0 - crank - A - coupler - B - rocker - B0; loop 2: the rocker (ternary:
    B0, B, E) - coupler2 - F - output - F0. One cluster of five bodies, mobility 1.
    """
    rng = np.random.default_rng(rng)
    bld = _planar_builder("watt_six_bar" + _suffix(writing), rng)
    A0, B0, F0 = np.zeros(2), np.array([1.2, 0.0]), np.array([0.4, -0.9])
    A, B, E, F = (A0 + rng.uniform(-0.5, 0.5, 2) + [0, 0.6], B0 + rng.uniform(-0.4, 0.4, 2)
                  + [0, 0.9], B0 + rng.uniform(-0.4, 0.4, 2) + [0.5, -0.2],
                  F0 + rng.uniform(-0.4, 0.4, 2) + [0.8, 0.0])  # fmt: skip
    w = lambda P, Q: _frame_angle(writing, _angle(P, Q), rng)  # noqa: E731
    _planar_body(bld, "crank", None, A0, w(A0, A), "crank_joint", [A0, A])
    _planar_body(bld, "coupler", "crank", A, w(A, B), "coupler_joint", [A, B])
    _planar_body(bld, "rocker", None, B0, w(B0, B), "rocker_joint", [B0, B, E])
    _planar_body(bld, "coupler2", "rocker", E, w(E, F), "coupler2_joint", [E, F])
    _planar_body(bld, "output", None, F0, w(F0, F), "output_joint", [F0, F])
    _planar_loop(bld, "coupler", "rocker", B, "loop_B")
    _planar_loop(bld, "coupler2", "output", F, "loop_F")
    return bld.finish("six_bar", 1, "Watt six-bar (two four-bars in series through the rocker)",
                      tags={"planar", _zero_tag(writing)})  # fmt: skip


def stephenson_six_bar(rng, *, writing="bars", loop_to_ground=False) -> Linkage:
    """A Stephenson six-bar (ternary ground and ternary coupler, not adjacent), random geometry.

    Four-bar A0 - crank - A - coupler(A, B, P) - B - rocker - B0, and the dyad
    P - link5 - E - output - F0. With ``loop_to_ground`` the output is not in the tree: the
    dyad closes on the ground pivot F0 with a loop joint whose successor is the world.
    """
    rng = np.random.default_rng(rng)
    name = "stephenson_six_bar" + ("_ground_loop" if loop_to_ground else "") + _suffix(writing)
    bld = _planar_builder(name, rng)
    A0, B0, F0 = np.zeros(2), np.array([1.0, 0.0]), np.array([0.3, 1.5])
    A = A0 + [0.1, 0.5] + rng.uniform(-0.2, 0.2, 2)
    B = B0 + [0.2, 0.8] + rng.uniform(-0.2, 0.2, 2)
    P = (A + B) / 2 + [0.0, 0.5] + rng.uniform(-0.2, 0.2, 2)
    E = P + [0.6, 0.3] + rng.uniform(-0.2, 0.2, 2)
    w = lambda X, Y: _frame_angle(writing, _angle(X, Y), rng)  # noqa: E731
    _planar_body(bld, "crank", None, A0, w(A0, A), "crank_joint", [A0, A])
    _planar_body(bld, "coupler", "crank", A, w(A, B), "coupler_joint", [A, B, P])
    _planar_body(bld, "rocker", None, B0, w(B0, B), "rocker_joint", [B0, B])
    _planar_body(bld, "link5", "coupler", P, w(P, E), "link5_joint", [P, E])
    _planar_loop(bld, "coupler", "rocker", B, "loop_B")
    if loop_to_ground:
        _planar_body(bld, "output", "link5", E, w(E, F0), "output_joint", [E, F0])
        _planar_loop(bld, "output", None, F0, "loop_F0")
    else:
        _planar_body(bld, "output", None, F0, w(F0, E), "output_joint", [F0, E])
        _planar_loop(bld, "link5", "output", E, "loop_E")
    return bld.finish("six_bar", 1, "Stephenson six-bar (dyad on the ternary coupler)"
                      + (", the dyad closing on the ground" if loop_to_ground else ""),
                      tags={"planar", _zero_tag(writing)})  # fmt: skip


def slider_crank(rng, *, prismatic_loop=False, writing="bars") -> Linkage:
    """An offset slider-crank: crank a, connecting rod l > a + |e|, slider on the line y = e.

    Default: the slider is a tree body on a prismatic joint and the loop closes the rod on
    it (revolute). ``prismatic_loop``: the slider hangs from the rod (revolute) and a
    *prismatic* loop joint closes it on the ground (predecessor the world).
    """
    rng = np.random.default_rng(rng)
    a = float(rng.uniform(0.2, 0.5))
    e = float(rng.uniform(-0.15, 0.15))
    ln = float(rng.uniform(a + abs(e) + 0.3, 1.5))
    th = float(rng.uniform(-np.pi, np.pi))
    B = a * np.array([np.cos(th), np.sin(th)])
    x = B[0] + np.sqrt(ln * ln - (B[1] - e) ** 2)
    Cp = np.array([x, e])
    name = "slider_crank" + ("_prismatic_loop" if prismatic_loop else "") + _suffix(writing)
    bld = _planar_builder(name, rng)
    w = lambda X, Y: _frame_angle(writing, _angle(X, Y), rng)  # noqa: E731
    _planar_body(bld, "crank", None, [0.0, 0.0], w([0, 0], B), "crank_joint", [[0, 0], B])
    _planar_body(bld, "rod", "crank", B, w(B, Cp), "rod_joint", [B, Cp])
    if not prismatic_loop:
        # the slider frame slides along the ground x axis from (x0, e)
        x0 = 0.0 if writing != "assembled" else x
        bld.body("slider", None, ("P", [1.0, 0.0, 0.0]), x - x0, bld.planar(Cp), "slider_joint",
                 points=[bld.planar(Cp)[:3, 3]])  # fmt: skip
        bld._planar_angle["slider"] = 0.0
        _planar_loop(bld, "rod", "slider", Cp, "loop_pin")
    else:
        _planar_body(bld, "slider", "rod", Cp, _frame_angle(writing, 0.0, rng), "slider_joint",
                     [Cp])  # fmt: skip
        L = bld.planar(Cp)  # x axis of the loop frames along the slide
        bld.loop(None, "slider", ("P", [1.0, 0.0, 0.0]), L, L, "loop_slide")
    desc = f"offset slider-crank (crank {a:.3f}, rod {ln:.3f}, offset {e:.3f})" + (
        ", prismatic loop joint" if prismatic_loop else ", prismatic tree joint"
    )
    return bld.finish("slider_crank", 1, desc, tags={"planar", _zero_tag(writing)})


def floating_knee(rng, *, writing="bars") -> Linkage:
    """A leg on a floating base: hip (revolute) -> thigh carrying a four-bar knee.

    The knee four-bar: driver and support hinged on the thigh, foot on the driver, the loop
    closing foot -> support (the shape of grbda's ``planar_leg_linkage``, random lengths in a
    generic pose). Mobility 6 + 2.
    """
    rng = np.random.default_rng(rng)
    bld = _planar_builder("floating_knee" + _suffix(writing), rng, floating=True)
    H = np.zeros(2)
    K1, K2 = np.array([0.05, -0.3]), np.array([-0.04, -0.34])
    th, Bp, Cp = _four_bar_design(float(np.hypot(*(K2 - K1))), 0.12, 0.35, 0.32, rng, theta=None)
    # place the four-bar with its ground link K1 -> K2
    ang0 = _angle(K1, K2)
    R0 = np.array([[np.cos(ang0), -np.sin(ang0)], [np.sin(ang0), np.cos(ang0)]])
    Bw, Cw = K1 + R0 @ Bp, K1 + R0 @ Cp
    w = lambda X, Y: _frame_angle(writing, _angle(X, Y), rng)  # noqa: E731
    _planar_body(bld, "thigh", None, H, w(H, K1), "hip", [H, K1, K2])
    _planar_body(bld, "driver", "thigh", K1, w(K1, Bw), "knee_driver", [K1, Bw])
    _planar_body(bld, "foot", "driver", Bw, w(Bw, Cw), "ankle", [Bw, Cw])
    _planar_body(bld, "support", "thigh", K2, w(K2, Cw), "knee_support", [K2, Cw])
    _planar_loop(bld, "foot", "support", Cw, "knee_loop")
    return bld.finish("floating_knee", 2, "four-bar knee on a hip on a floating base",
                      tags={"planar", _zero_tag(writing)})  # fmt: skip


# ----------------------------------------------------------------------------------------
# coupled loops
# ----------------------------------------------------------------------------------------
def four_bar_bouquet(rng, n=3) -> Linkage:
    """``n`` four-bars of random classes branching from one base (n clusters, mobility n)."""
    rng = np.random.default_rng(rng)
    bld = _planar_builder(f"four_bar_bouquet_{n}", rng)
    for k in range(n):
        kind = ("crank_rocker", "double_crank", "double_rocker", "triple_rocker")[k % 4]
        g, a, b, c = four_bar_lengths(kind, rng)
        th, B, C = _four_bar_design(g, a, b, c, rng)
        O = np.array([3.0 * k, 0.0])
        _four_bar_on(bld, f"fb{k}_", None, O, g, a, b, c, th, B, C, "bars",
                     angle0=float(rng.uniform(-np.pi, np.pi)))  # fmt: skip
    return bld.finish("coupled", n, f"{n} four-bars of random Grashof classes on one base",
                      tags={"planar", "open_zero"})  # fmt: skip


def four_bar_tower(rng, n=3) -> Linkage:
    """``n`` four-bars stacked: four-bar k+1 stands on the coupler of four-bar k.

    Each four-bar is its own cluster, hanging from the previous one (a chain of clusters);
    mobility n.
    """
    rng = np.random.default_rng(rng)
    bld = _planar_builder(f"four_bar_tower_{n}", rng)
    parent, O, ang0 = None, np.zeros(2), 0.0
    for k in range(n):
        g, a, b, c = four_bar_lengths("crank_rocker", rng)
        th, B, C = _four_bar_design(g, a, b, c, rng)
        names = _four_bar_on(bld, f"t{k}_", parent, O, g, a, b, c, th, B, C, "bars",
                             angle0=ang0)  # fmt: skip
        R0 = np.array([[np.cos(ang0), -np.sin(ang0)], [np.sin(ang0), np.cos(ang0)]])
        Bw, Cw = O + R0 @ B, O + R0 @ C
        # the next ground link lies on this coupler, from B along BC
        parent, O, ang0 = names["coupler"], Bw + 0.2 * (Cw - Bw), _angle(Bw, Cw)
    return bld.finish("coupled", n, f"{n} four-bars, each on the previous coupler",
                      tags={"planar", "open_zero"})  # fmt: skip


def four_bar_ladder(rng, n=3, *, writing="bars") -> Linkage:
    """A ladder of ``n`` four-bars in one cluster, mobility 1.

    Ground pivots P_0 .. P_n; posts L_0 .. L_n hinged on them; rung C_k joins the tips of
    L_{k-1} (tree joint) and L_k (loop joint). Cell k is the four-bar P_{k-1} L_{k-1} C_k L_k;
    consecutive cells share a post, so all loops form one cluster of 2n + 1 bodies, and the
    planar count 3(2n + 1) - 2(3n + 1) = 1 holds for every n. Random geometry.
    """
    rng = np.random.default_rng(rng)
    bld = _planar_builder(f"four_bar_ladder_{n}" + _suffix(writing), rng)
    P = [np.array([1.0 * k + rng.uniform(-0.2, 0.2), rng.uniform(-0.1, 0.1)]) for k in range(n + 1)]
    T = [P[k] + [rng.uniform(-0.3, 0.3), 1.0 + rng.uniform(-0.2, 0.2)] for k in range(n + 1)]
    w = lambda X, Y: _frame_angle(writing, _angle(X, Y), rng)  # noqa: E731
    for k in range(n + 1):
        _planar_body(bld, f"post{k}", None, P[k], w(P[k], T[k]), f"post{k}_joint", [P[k], T[k]])
    for k in range(1, n + 1):
        _planar_body(bld, f"rung{k}", f"post{k - 1}", T[k - 1], w(T[k - 1], T[k]),
                     f"rung{k}_joint", [T[k - 1], T[k]])  # fmt: skip
        _planar_loop(bld, f"rung{k}", f"post{k}", T[k], f"loop{k}")
    return bld.finish("ladder", 1, f"ladder of {n} four-bars sharing their posts (one cluster)",
                      tags={"planar", _zero_tag(writing)})  # fmt: skip


def parallel_bars(rng, n=3) -> Linkage:
    """``n + 1`` equal parallel posts hinged on the ground and on one common bar.

    Every cell is a parallelogram, so the mechanism moves (mobility 1) although the planar
    count gives 3(n + 2) - 2(2n + 2) = 2 - n (redundant constraints: the rank of the
    constraint Jacobian is deficient everywhere). Written assembled (posts upright), so
    ``q = 0`` is a generic configuration.
    """
    rng = np.random.default_rng(rng)
    bld = _planar_builder(f"parallel_bars_{n}", rng)
    h = float(rng.uniform(0.5, 1.0))
    xs = np.cumsum(rng.uniform(0.3, 0.8, n + 1))
    tilt = float(rng.uniform(-0.5, 0.5))
    d = h * np.array([np.sin(tilt), np.cos(tilt)])
    for k, x in enumerate(xs):
        _planar_body(bld, f"post{k}", None, [x, 0.0], 0.0, f"post{k}_joint", [[x, 0.0], [x, 0] + d])
    tips = [np.array([x, 0.0]) + d for x in xs]
    _planar_body(bld, "bar", "post0", tips[0], 0.0, "bar_joint", tips)
    for k in range(1, n + 1):
        _planar_loop(bld, "bar", f"post{k}", tips[k], f"loop{k}")
    return bld.finish("redundant", 1, f"{n + 1} parallel posts under one bar (redundant loops)",
                      tags={"planar", "closed_zero"})  # fmt: skip


# ----------------------------------------------------------------------------------------
# spatial linkages
# ----------------------------------------------------------------------------------------
def _frame_with_z(z, p, rng) -> np.ndarray:
    """A pose whose z axis is ``z`` (random spin about it), at ``p``."""
    z = np.asarray(z, float) / np.linalg.norm(z)
    x = np.cross(z, rng.normal(size=3))
    x /= np.linalg.norm(x)
    return _pose(np.column_stack([x, np.cross(z, x), z]), p)


def rssr(rng, *, floating=False) -> Linkage:
    """A spatial RSSR four-bar: revolute crank, spherical-spherical coupler, revolute rocker.

    Skew random axes. The coupler spins freely about the line of its two ball centres, so
    the mobility is 2 (spatial count 6·3 - 5·2 - 3·2 = 2). Spherical loop joint.
    """
    rng = np.random.default_rng(rng)
    bld = _Builder("rssr" + ("_floating" if floating else ""), rng, floating=floating,
                   ground_pose=_pose(_random_rotation(rng)) if floating else None)  # fmt: skip
    G = bld.ground_frame()
    A0, D0 = np.zeros(3), np.array([1.0, 0.2, 0.1])
    uA, uD = rng.normal(size=3), rng.normal(size=3)
    B = A0 + 0.4 * rng.normal(size=3) / np.sqrt(3)
    C = D0 + 0.5 * rng.normal(size=3) / np.sqrt(3)
    FA = G @ _frame_with_z(uA, A0, rng)
    FD = G @ _frame_with_z(uD, D0, rng)
    FB = G @ _pose(_random_rotation(rng), B)
    wq = lambda: Rotation.random(random_state=rng).as_quat()  # noqa: E731
    bld.body("crank", None, ("R", Z), 0.4, FA, "crank_joint", points=[(G @ _pose(p=B))[:3, 3]])
    qB = wq()
    bld.body("coupler", "crank", ("S",), qB, FB, "coupler_joint",
             points=[(G @ _pose(p=B))[:3, 3], (G @ _pose(p=C))[:3, 3]])  # fmt: skip
    bld.body("rocker", None, ("R", Z), -0.3, FD, "rocker_joint", points=[(G @ _pose(p=C))[:3, 3]])
    LC = G @ _pose(_random_rotation(rng), C)
    LC2 = LC @ _pose(_random_rotation(rng))  # the ball joint at an arbitrary relative rotation
    bld.loop("coupler", "rocker", ("S",), LC, LC2, "ball_C")
    return bld.finish("spatial", 2, "spatial RSSR four-bar with skew axes (coupler spin idle)",
                      tags={"spatial", "open_zero"})  # fmt: skip


def spherical_four_bar(rng) -> Linkage:
    """A spherical four-bar: four revolute axes through one point, random directions.

    Mobility 1 (spherical count 3·3 - 2·4 = 1; the spatial count gives -2). Written with
    random frames (q = 0 does not close).
    """
    rng = np.random.default_rng(rng)
    bld = _Builder("spherical_four_bar", rng)
    u = [rng.normal(size=3) for _ in range(4)]
    u = [x / np.linalg.norm(x) for x in u]
    F = [_frame_with_z(ui, np.zeros(3), rng) for ui in u]
    q0 = rng.uniform(-1, 1, 3)
    bld.body("l1", None, ("R", Z), q0[0], F[0], "j1", points=[0.5 * u[0] + 0.5 * u[1]])
    bld.body("l2", "l1", ("R", Z), q0[1], F[1], "j2", points=[0.5 * u[1] + 0.5 * u[2]])
    bld.body("l3", None, ("R", Z), q0[2], F[3], "j4", points=[0.5 * u[3] + 0.5 * u[2]])
    L2 = _frame_with_z(u[2], np.zeros(3), rng)
    bld.loop("l2", "l3", ("R", Z), L2, L2 @ _pose(_rz(0.7)), "j3")
    return bld.finish("spatial", 1, "spherical four-bar (all axes through one point)",
                      tags={"spatial", "open_zero"})  # fmt: skip


def _dh(a, alpha) -> np.ndarray:
    return _pose(p=[a, 0.0, 0.0]) @ _pose(_rx(alpha))


def bennett(rng, *, floating=False) -> Linkage:
    """A Bennett linkage: the spatial 4R loop with mobility 1 (the spatial count gives -2).

    Denavit–Hartenberg links (a, α), (b, β), (a, α), (b, β) with a / sin α = b / sin β and no
    offsets; closed for θ1 + θ3 = θ2 + θ4 = 0 (mod 2π) with
    tan(θ1/2) tan(θ2/2) = sin((β + α)/2) / sin((β − α)/2). Joint 4 is the loop joint.
    """
    rng = np.random.default_rng(rng)
    alpha = float(rng.uniform(0.4, 1.2))
    beta = float(rng.uniform(alpha + 0.3, 2.6))
    a = float(rng.uniform(0.4, 1.0))
    b = a * np.sin(beta) / np.sin(alpha)
    k = np.sin((beta + alpha) / 2) / np.sin((beta - alpha) / 2)
    th1 = float(rng.uniform(0.4, 2.4))
    th2 = 2 * np.arctan(k / np.tan(th1 / 2))
    th = [th1, th2, -th1, -th2]
    name = "bennett" + ("_floating" if floating else "")
    bld = _Builder(name, rng, floating=floating,
                   ground_pose=_pose(_random_rotation(rng), rng.normal(size=3) * 0.3))  # fmt: skip
    G = bld.ground_frame()
    links = [(a, alpha), (b, beta), (a, alpha), (b, beta)]
    F = G
    parent = None
    frames = []
    for i in range(3):
        F = F @ _pose(_rz(th[i]))  # body i + 1 after its joint
        frames.append(F)
        body = f"link{i + 1}"
        bld.body(body, parent, ("R", Z), th[i], F, f"joint{i + 1}",
                 points=[F[:3, 3], (F @ _dh(*links[i]))[:3, 3]])  # fmt: skip
        F = F @ _dh(*links[i])  # frame of joint i + 2 before its rotation
        parent = body
    # the loop joint 4: from link3's joint-4 frame, rotation θ4, then link 4 back to the ground
    L_pred = F
    L_succ = G @ _inv(_dh(*links[3]))
    bld.loop("link3", None, ("R", Z), L_pred, L_succ, "joint4")
    desc = f"Bennett linkage: a = {a:.3f}, b = {b:.3f}, alpha = {alpha:.3f}, beta = {beta:.3f}"
    return bld.finish("spatial", 1, desc, tags={"spatial", "open_zero"})


# ----------------------------------------------------------------------------------------
# transmissions and zero-DoF models
# ----------------------------------------------------------------------------------------
def geared_chain(rng, n=3, *, floating=False) -> Linkage:
    """``n`` links with random axes, each driven by a geared rotor on its parent (couplings)."""
    rng = np.random.default_rng(rng)
    bld = _Builder(f"geared_chain_{n}" + ("_floating" if floating else ""), rng,
                   floating=floating)  # fmt: skip
    parent = None
    F = bld.ground_frame()
    for k in range(n):
        axis = rng.normal(size=3)
        Fj = F @ _pose(_random_rotation(rng), rng.uniform(-0.3, 0.3, 3))
        bld.body(f"link{k}", parent, ("R", axis), 0.0, Fj, f"joint{k}",
                 points=[Fj[:3, 3] + 0.2 * rng.normal(size=3)])  # fmt: skip
        Fr = F @ _pose(_random_rotation(rng), rng.uniform(-0.3, 0.3, 3))
        bld.body(f"rotor{k}", parent, ("R", rng.normal(size=3)), 0.0, Fr, f"rotor{k}_joint",
                 points=[Fr[:3, 3]])  # fmt: skip
        bld.coupling(f"link{k}", f"rotor{k}", float(rng.uniform(3.0, 12.0)), f"gear{k}")
        parent, F = f"link{k}", Fj
    return bld.finish("transmission", n, f"{n} links with geared rotors (couplings)",
                      tags={"spatial", "closed_zero"})  # fmt: skip


def triangle(rng) -> Linkage:
    """Two bars hinged on the ground and pinned to each other: a rigid truss, 0 DoF."""
    rng = np.random.default_rng(rng)
    bld = _planar_builder("triangle", rng)
    A, Bp = np.zeros(2), np.array([1.0 + rng.uniform(0, 0.5), 0.0])
    C = np.array([rng.uniform(0.2, 0.8), rng.uniform(0.5, 1.0)])
    _planar_body(bld, "bar1", None, A, _angle(A, C), "bar1_joint", [A, C])
    _planar_body(bld, "bar2", None, Bp, _angle(Bp, C), "bar2_joint", [Bp, C])
    _planar_loop(bld, "bar1", "bar2", C, "pin")
    return bld.finish(
        "zero_dof",
        0,
        "triangle truss (two bars pinned to the ground and each other)",
        tags={"planar", "open_zero", "zero_dof"},
    )


def welded_pendulum(rng) -> Linkage:
    """A spatial pendulum whose bob is welded back to the ground by a fixed loop joint: 0 DoF."""
    rng = np.random.default_rng(rng)
    bld = _Builder("welded_pendulum", rng)
    F = _pose(_random_rotation(rng), rng.normal(size=3) * 0.2)
    bld.body("bob", None, ("R", rng.normal(size=3)), 0.3, F, "hinge", points=[F[:3, 3] + 0.3])
    L = _pose(_random_rotation(rng), rng.normal(size=3))
    bld.loop("bob", None, ("W",), L, L, "weld")
    return bld.finish("zero_dof", 0, "pendulum welded to the ground by a fixed loop joint",
                      tags={"spatial", "open_zero", "zero_dof"})  # fmt: skip


def locked_four_bar(rng) -> Linkage:
    """A crank-rocker whose crank angle is locked by an implicit constraint: 0 DoF."""
    rng = np.random.default_rng(rng)
    g, a, b, c = four_bar_lengths("crank_rocker", rng)
    bld = _planar_builder("locked_four_bar", rng)
    th, B, C = _four_bar_design(g, a, b, c, rng)
    _four_bar_on(bld, "", None, [0.0, 0.0], g, a, b, c, th, B, C, "bars")
    target = float(bld.design["crank_joint"][0])
    bld.constraint(ImplicitSpec(
        "lock", ("crank_joint",), lambda q: np.array([q[0] - target]),
        lambda q: np.array([[1.0]]), lambda q, u: np.zeros((1, 1))))  # fmt: skip
    return bld.finish("zero_dof", 0, "crank-rocker with its crank locked (implicit constraint)",
                      tags={"planar", "open_zero", "zero_dof"})  # fmt: skip


# ----------------------------------------------------------------------------------------
# grbda's URDF+ robots (their geometry, written here as generators)
# ----------------------------------------------------------------------------------------
def _bars_chain(bld, rows, loops):
    """Bodies from rows (child, parent, origin xyz in parent, axis, joint name, marks)."""
    for child, parent, xyz, axis, jname, marks in rows:
        F_p = bld.frames[parent or bld.ground]
        F = F_p @ _pose(p=xyz)
        bld.body(child, parent, ("R", axis), 0.0, F, jname, **marks)
    for pred, succ, xyz_p, xyz_s, axis, name in loops:
        Lp = bld.frames[pred] @ _pose(p=xyz_p)
        Ls = bld.frames[succ] @ _pose(p=xyz_s)
        bld.loop(pred, succ, ("R", axis), Lp, Ls, name)


_GRBDA_BAR = dict(m=3.3, com=(0, 0, 0), ixx=0.011253, ixy=0, ixz=0, iyy=0.036203, iyz=0,
                  izz=0.042673)  # fmt: skip


def grbda_four_bar(*, floating=False) -> Linkage:
    """grbda's ``four_bar``: crank 0.5 at the origin, coupler 1.0, rocker 0.5 at x = 1.

    A parallelogram written along x, so ``q = 0`` is its collinear change point (singular);
    joint2 and joint3 are marked dependent as in the file. Design: crank at 0.6 rad.
    """
    rng = np.random.default_rng(0)
    bld = _Builder("grbda_four_bar" + ("_floating" if floating else ""), rng, floating=floating)
    rows = [("link1", None, (0, 0, 0), Z, "joint1", {"independent": True}),
            ("link2", "link1", (0.5, 0, 0), Z, "joint2", {"independent": False}),
            ("link3", None, (1.0, 0, 0), Z, "joint3", {"independent": False})]  # fmt: skip
    _bars_chain(bld, rows, [("link2", "link3", (1.0, 0, 0), (0.5, 0, 0), Z, "loop1")])
    th = 0.6
    bld.design.update(joint1=np.array([th]), joint2=np.array([-th]), joint3=np.array([th]))
    I = _urdf_inertia(**_GRBDA_BAR)
    singular = {"joint1": np.zeros(1), "joint2": np.zeros(1), "joint3": np.zeros(1)}
    return bld.finish("grbda", 1, "grbda four_bar.urdf geometry (parallelogram, q = 0 collinear)",
                      singular=singular, tags={"planar", "singular_zero", "change_point"},
                      inertias={b: I for b in ("link1", "link2", "link3")})  # fmt: skip


def grbda_six_bar() -> Linkage:
    """grbda's ``six_bar``: a 3 + 2 chain of bars from the origin closed by a revolute loop.

    Links 0.1, 0.2, 0.3 (joint1-3) and 0.4, 0.5 (joint4-5, marked dependent) from the same
    ground point: a planar closed chain of five moving bars and six revolute joints,
    mobility 3. At ``q = 0`` the two chains end at x = 0.6 and x = 0.9: the zero
    configuration does not close.
    """
    rng = np.random.default_rng(0)
    bld = _Builder("grbda_six_bar", rng)
    rows = [("link1", None, (0, 0, 0), Z, "joint1", {}),
            ("link2", "link1", (0.1, 0, 0), Z, "joint2", {}),
            ("link3", "link2", (0.2, 0, 0), Z, "joint3", {}),
            ("link4", None, (0, 0, 0), Z, "joint4", {"independent": False}),
            ("link5", "link4", (0.4, 0, 0), Z, "joint5", {"independent": False})]  # fmt: skip
    _bars_chain(bld, rows, [("link3", "link5", (0.3, 0, 0), (0.5, 0, 0), Z, "constraint1")])
    # a closed design: links 1-3 at absolute angles (0.3, 0.9, 1.4), the 0.4-0.5 dyad solved
    phis = [0.3, 0.9, 1.4]
    P = sum(
        L * np.array([np.cos(p), np.sin(p)]) for L, p in zip((0.1, 0.2, 0.3), phis, strict=True)
    )
    K = _circle_intersection(np.zeros(2), 0.4, P, 0.5, 1.0)
    a4, a5 = _angle([0, 0], K), _angle(K, P)
    bld.design.update(joint1=np.array([phis[0]]), joint2=np.array([phis[1] - phis[0]]),
                      joint3=np.array([phis[2] - phis[1]]), joint4=np.array([a4]),
                      joint5=np.array([a5 - a4]))  # fmt: skip
    I = _urdf_inertia(**_GRBDA_BAR)
    return bld.finish("grbda", 3, "grbda six_bar.urdf geometry (3 DoF, q = 0 does not close)",
                      tags={"planar", "open_zero"},
                      inertias={f"link{k}": I for k in range(1, 6)})  # fmt: skip


def grbda_planar_leg(*, floating=False) -> Linkage:
    """grbda's ``planar_leg_linkage``: thigh, shank driver and support, foot; a parallelogram
    knee (driver 0.096, support 0.096, pivots 0.031 apart on the thigh and the foot), so
    ``q = 0`` (all along x) is the collinear change point of the knee (singular).
    """
    rng = np.random.default_rng(0)
    bld = _Builder("grbda_planar_leg" + ("_floating" if floating else ""), rng, floating=floating)
    rows = [("thigh", None, (0, 0, 0), Z, "base_to_thigh", {}),
            ("shank_driver", "thigh", (0.011, 0, 0), Z, "thigh_to_driver", {"independent": True}),
            ("shank_support", "thigh", (0.042, 0, 0), Z, "thigh_to_support",
             {"independent": False}),
            ("foot", "shank_driver", (0.096, 0, 0), Z, "driver_to_foot",
             {"independent": False})]  # fmt: skip
    loop = ("foot", "shank_support", (0.031, 0, 0), (0.096, 0, 0), Z, "linkage")
    _bars_chain(bld, rows, [loop])
    th = -0.8
    bld.design.update(base_to_thigh=np.array([0.3]), thigh_to_driver=np.array([th]),
                      thigh_to_support=np.array([th]), driver_to_foot=np.array([-th]))  # fmt: skip
    inertias = {
        "thigh": _urdf_inertia(0.23, (0.0364, 0, 0), 0, 0, 0, 0, 0, 0.000045389),
        "shank_driver": _urdf_inertia(0.004, (0.048, 0, 0), 0, 0, 0, 0, 0, 0.000003257),
        "shank_support": _urdf_inertia(0.225, (0.04, 0, 0), 0, 0, 0, 0, 0, 0.000022918),
        "foot": _urdf_inertia(0.017, (0.0635, 0, 0), 0, 0, 0, 0, 0, 0.000022176),
    }
    singular = {k: np.zeros(1) for k in bld.design if k != "base_joint"}
    return bld.finish("grbda", 2, "grbda planar_leg_linkage.urdf geometry (parallelogram knee)",
                      singular=singular, tags={"planar", "singular_zero", "change_point"},
                      inertias=inertias)  # fmt: skip


def grbda_rotor_chain() -> Linkage:
    """grbda's ``revolute_rotor_chain``: three unit links about z, rotors geared 6:1."""
    rng = np.random.default_rng(0)
    bld = _Builder("grbda_rotor_chain", rng)
    parent = None
    link_I = _urdf_inertia(1.0, (0.5, 0, 0), 1, 0, 0, 1, 0, 1)
    rotor_I = _urdf_inertia(0.0, (0, 0, 0), 1e-4, 0, 0, 1e-4, 0, 1e-4)
    inertias = {}
    for k in range(3):
        F_p = bld.frames[parent or "world"]
        off = (0, 0, 0) if k == 0 else (1.0, 0, 0)
        bld.body(f"link-{k}", parent, ("R", Z), 0.0, F_p @ _pose(p=off), f"joint{k + 1}")
        bld.body(f"rotor-{k}", parent, ("R", Z), 0.0, F_p @ _pose(p=off), f"joint{k + 1}r",
                 independent=False)  # fmt: skip
        bld.coupling(f"link-{k}", f"rotor-{k}", 6.0, f"transmission{k + 1}")
        inertias[f"link-{k}"], inertias[f"rotor-{k}"] = link_I, rotor_I
        parent = f"link-{k}"
    return bld.finish("grbda", 3, "grbda revolute_rotor_chain.urdf (3 links, 6:1 rotors)",
                      tags={"planar", "closed_zero"}, inertias=inertias)  # fmt: skip


def mini_cheetah_leg(*, floating=False) -> Linkage:
    """grbda's ``mini_cheetah_leg``: abduction, hip and knee, each with a geared rotor (6, 6, 9)."""
    rng = np.random.default_rng(0)
    bld = _Builder("mini_cheetah_leg" + ("_floating" if floating else ""), rng, floating=floating)
    G = bld.ground_frame()
    X, NY = np.array([1.0, 0, 0]), np.array([0, -1.0, 0])
    bld.body("abduct", None, ("R", X), 0.0, G, "base_to_abduct")
    bld.body("abduct_rotor", None, ("R", X), 0.0, G, "base_to_abduct_rotor")
    F = G @ _pose(p=[0, -0.062, 0])
    bld.body("thigh", "abduct", ("R", NY), 0.0, F, "abduct_to_thigh_j")
    bld.body("hip_rotor", "abduct", ("R", NY), 0.0, F, "abduct_to_hip_rotor_j")
    F2 = F @ _pose(p=[0, 0, -0.209])
    bld.body("shank", "thigh", ("R", NY), 0.0, F2, "thigh_to_knee_j")
    bld.body("knee_rotor", "thigh", ("R", NY), 0.0, F2, "thigh_to_knee_rotor_j")
    bld.coupling("abduct", "abduct_rotor", 6.0, "abduct_transmission")
    bld.coupling("thigh", "hip_rotor", 6.0, "hip_transmission")
    bld.coupling("shank", "knee_rotor", 9.0, "knee_transmission")
    rot = _urdf_inertia(0.054, (0, -0.036, 0), 0.000312, 0.000058, -0.00000045, 0.000832,
                        0.00000095, 0.000249)  # fmt: skip
    inertias = {
        "abduct": _urdf_inertia(0.54, (0, -0.036, 0), 0.000312, 0.000058, -0.00000045, 0.000832,
                                0.00000095, 0.000249),
        "abduct_rotor": rot,
        "thigh": _urdf_inertia(0.634, (0, -0.016, -0.02), 0.000264, 0.000245, -0.000013,
                               0.000306, 0.000204, 0.002093),
        "hip_rotor": rot,
        "shank": _urdf_inertia(0.064, (0, 0, -0.209), 0.000245, 0, 0, 0.000248, 0, 0.000006),
        "knee_rotor": _urdf_inertia(0.054, (0, 0, -0.209), 0.000245, 0, 0, 0.000248, 0,
                                    0.000006),
    }  # fmt: skip
    return bld.finish("grbda", 3, "grbda mini_cheetah_leg.urdf (geared abduction, hip, knee)",
                      tags={"spatial", "closed_zero"}, inertias=inertias)  # fmt: skip


def mit_humanoid_leg(*, floating=False) -> Linkage:
    """grbda's ``mit_humanoid_leg``: hip yaw/roll/pitch, knee, ankle with rotors; the ankle
    rotor on the hip-pitch link drives the ankle through a belt (12 (q_knee + q_ankle))."""
    rng = np.random.default_rng(0)
    bld = _Builder("mit_humanoid_leg" + ("_floating" if floating else ""), rng, floating=floating)
    X, Y = np.array([1.0, 0, 0]), np.array([0, 1.0, 0])

    def add(child, parent, xyz, rpy, axis, name, **marks):
        F = bld.frames[parent or bld.ground] @ _pose(_rpy(*rpy), xyz)
        bld.body(child, parent, ("R", axis), 0.0, F, name, **marks)

    add(
        "hip_rz_link", None, (-0.00565, -0.082, -0.05735), (0, -0.174533, 0), Z, "base_to_hipz_link"
    )
    add("hip_rz_rotor", None, (-0.00842837, -0.082, -0.041593), (0, -0.174533, 0), Z,
        "base_to_hipz_rotor", independent=False)  # fmt: skip
    add("hip_rx_link", "hip_rz_link", (-0.06435, 0, -0.07499), (0, 0.436332, 0), X,
        "hipz_to_hipx_link")  # fmt: skip
    add("hip_rx_rotor", "hip_rz_link", (-0.0827, 0, -0.066436), (0, 0.436332, 0), X,
        "hipz_to_hipx_rotor", independent=False)  # fmt: skip
    add("hip_ry_link", "hip_rx_link", (0.071, 0.0018375, 0), (0, -0.261799, 0), Y,
        "hipx_to_hipy_link")  # fmt: skip
    add("hip_ry_rotor", "hip_rx_link", (0.071, 0.024, 0), (0, -0.261799, 0), Y,
        "hipx_to_hipy_rotor", independent=False)  # fmt: skip
    add("knee_link", "hip_ry_link", (0, 0, -0.267), (0, 0, 0), Y, "hipy_to_knee_link")
    add("knee_rotor", "hip_ry_link", (0.013, -0.0497, -0.0178), (0, 0, 0), Y, "hipy_to_knee_rotor",
        independent=False)  # fmt: skip
    add("ankle_rotor", "hip_ry_link", (0.01563, -0.0454, -0.13354), (0, 0, 0), Y,
        "hipy_to_ankle_rotor", independent=False)  # fmt: skip
    add("ankle_link", "knee_link", (0, 0, -0.2785), (0, 0, 0), Y, "knee_to_ankle")
    for pred, succ, r, nm in (
        ("hip_rz_link", "hip_rz_rotor", 6.0, "hipz_transmission"),
        ("hip_rx_link", "hip_rx_rotor", 6.0, "hipx_transmission"),
        ("hip_ry_link", "hip_ry_rotor", 6.0, "hipy_transmission"),
        ("knee_link", "knee_rotor", 12.0, "knee_transmission"),
        ("ankle_link", "ankle_rotor", 12.0, "ankle_transmission"),
    ):
        bld.coupling(pred, succ, r, nm)
    inertias = {
        "hip_rz_link": _urdf_inertia(0.84563, (-0.064842, -3.6e-05, -0.063090), 0.0015373, 1.1e-06,
                                     0.0005578, 0.0014252, 2.4e-06, 0.0012028),
        "hip_rz_rotor": _urdf_inertia(0, (0, 0, 0), 1.084e-4, 0, 0, 1.084e-4, 0, 1.6841e-4),
        "hip_rx_link": _urdf_inertia(1.20868, (0.067232, -0.013018, 0.0001831), 0.0017535,
                                     -6.3e-06, -0.000080, 0.003338, -1.3e-05, 0.0019927),
        "hip_rx_rotor": _urdf_inertia(0, (0, 0, 0), 1.6841e-4, 0, 0, 1.084e-4, 0, 1.084e-4),
        "hip_ry_link": _urdf_inertia(2.64093, (0.0132054, 0.0269864, -0.096021), 0.0243761,
                                     9.96e-05, 0.0006548, 0.0259015, 0.0026713, 0.0038929),
        "hip_ry_rotor": _urdf_inertia(0, (0, 0, 0), 3.443e-4, 0, 0, 5.548e-4, 0, 3.443e-4),
        "knee_link": _urdf_inertia(0.35435, (0.00528, 0.0014762, -0.13201), 0.003051, 0.0,
                                   0.0000873, 0.003033, 3.93e-05, 0.0002529),
        "knee_rotor": _urdf_inertia(0, (0, 0, 0), 3.443e-4, 0, 0, 5.548e-4, 0, 3.443e-4),
        "ankle_rotor": _urdf_inertia(0, (0, 0, 0), 1.084e-4, 0, 0, 1.6841e-4, 0, 1.084e-4),
        "ankle_link": _urdf_inertia(0.280951, (0.022623, 0, -0.012826), 0.0000842, 0, -0.0000488,
                                    0.0007959, 0, 0.0007681),
    }  # fmt: skip
    return bld.finish("grbda", 5, "grbda mit_humanoid_leg.urdf (geared hip, belt-driven ankle)",
                      tags={"spatial", "closed_zero"}, inertias=inertias)  # fmt: skip


def _differential(name, rotors, links, N, eps, mix):
    """φ = [q_r1 / N − (q_a + m q_b) − ε sin q_a, q_r2 / N − (q_a − m q_b) − ε sin q_b].

    A bevel-gear differential (``mix`` m: the second link turns with the half-difference of
    the rotors when m = 1) with a cam term ε; joints (rotor1, rotor2, link a, link b).
    """

    def phi(q):
        r1, r2, qa, qb = q
        return np.array([r1 / N - (qa + mix * qb) - eps * np.sin(qa),
                         r2 / N - (qa - mix * qb) - eps * np.sin(qb)])  # fmt: skip

    def jac(q):
        _, _, qa, qb = q
        return np.array([[1 / N, 0.0, -1.0 - eps * np.cos(qa), -mix],
                         [0.0, 1 / N, -1.0, mix - eps * np.cos(qb)]])  # fmt: skip

    def jac_rate(q, u):
        _, _, qa, qb = q
        _, _, ua, ub = u
        return np.array([[0.0, 0.0, eps * np.sin(qa) * ua, 0.0],
                         [0.0, 0.0, 0.0, eps * np.sin(qb) * ub]])  # fmt: skip

    return ImplicitSpec(name, tuple(rotors) + tuple(links), phi, jac, jac_rate)


def tello_leg(*, floating=False, with_rate=True) -> Linkage:
    """One of grbda's Tello legs: clamp with a geared rotor, hip and knee-ankle differentials.

    Tree, origins, axes and masses of ``tello_legs.urdf`` (left leg). The clamp rotor drives
    the clamp through a 6:1 coupling (the rotor independent, as marked in the file). The
    two differentials (rotors independent, gimbal/thigh and shin/foot dependent) are implicit
    constraints of this module's own (:func:`_differential`), not Tello's CasADi functions.
    ``with_rate=False`` gives geomech no ``jacobian_rate`` (its finite differences are used).
    """
    rng = np.random.default_rng(0)
    name = "tello_leg" + ("_floating" if floating else "") + ("" if with_rate else "_fd")
    bld = _Builder(name, rng, floating=floating)

    def add(child, parent, xyz, rpy, axis, jname, **marks):
        F = bld.frames[parent or bld.ground] @ _pose(_rpy(*rpy), xyz)
        bld.body(child, parent, ("R", axis), 0.0, F, jname, **marks)

    X, Y = np.array([1.0, 0, 0]), np.array([0, 1.0, 0])
    add("clamp_rotor", None, (0, 0.126, -0.026), (np.pi, 0, 0), Z, "clamp_rotor_joint",
        independent=True)  # fmt: skip
    add("clamp", None, (0, 0.126, -0.087), (0, 0, 0), Z, "clamp_joint", independent=False)
    add("hip_rotor_1", "clamp", (0, 0.04, 0), (-np.pi / 2, np.pi, 0), Z, "hip_rotor_1_joint",
        independent=True)  # fmt: skip
    add("hip_rotor_2", "clamp", (0, -0.04, 0), (np.pi / 2, 0, 0), Z, "hip_rotor_2_joint",
        independent=True)  # fmt: skip
    add("gimbal", "clamp", (0, 0, -0.1425), (0, 0, 0), X, "gimbal_joint", independent=False)
    add("thigh", "gimbal", (0, 0, 0), (0, 0, 0), Y, "thigh_joint", independent=False)
    add("ka_rotor_1", "thigh", (0, 0.02655, 0), (np.pi / 2, 0, 0), Z, "ka_rotor_1_joint",
        independent=True)  # fmt: skip
    add("ka_rotor_2", "thigh", (0, -0.02655, 0), (-np.pi / 2, np.pi, 0), Z, "ka_rotor_2_joint",
        independent=True)  # fmt: skip
    add("shin", "thigh", (0, 0, -0.2268), (0, 0, 0), Y, "shin_joint", independent=False)
    add("foot", "shin", (0, 0, -0.26), (0, 0, 0), Y, "foot_joint", independent=False)
    bld.coupling("clamp", "clamp_rotor", 6.0, "clamp_transmission")
    bld.constraint(_differential("hip_differential", ("hip_rotor_1_joint", "hip_rotor_2_joint"),
                                 ("gimbal_joint", "thigh_joint"), 6.0, 0.1, 1.0),
                   with_rate)  # fmt: skip
    bld.constraint(
        _differential(
            "knee_ankle_differential",
            ("ka_rotor_1_joint", "ka_rotor_2_joint"),
            ("shin_joint", "foot_joint"),
            6.0,
            0.1,
            0.5,
        ),
        with_rate,
    )
    rotor = _urdf_inertia(0.07, (0, 0, 0), 2.5984e-05, 0, 0, 2.5984e-05, 0, 5.1512e-05)
    inertias = {
        "clamp_rotor": rotor, "hip_rotor_1": rotor, "hip_rotor_2": rotor,
        "ka_rotor_1": rotor, "ka_rotor_2": rotor,
        "clamp": _urdf_inertia(1.3289, (-0.001, 0, -0.0069), 0.0032, 0, 0.0001, 0.0033, 0, 0.0027),
        "gimbal": _urdf_inertia(0.4433, (-0.0027, 0, 0.0258), 0.0018, 0, 0, 0.0017, 0, 0.0015),
        "thigh": _urdf_inertia(1.5424, (0.003, -0.0001, -0.0323), 0.0103, 0, -0.0005, 0.0097, 0,
                               0.0027),
        "shin": _urdf_inertia(0.3072, (0.0047, -0.0003, -0.1043), 0.0054, 0, -0.0002, 0.0054, 0,
                              0.0001),
        "foot": _urdf_inertia(0.1025, (0.0042, 0, -0.0251), 0.094e-03, 0, -0.0038e-03,
                              0.1773e-03, 0, 0.0901e-03),
    }  # fmt: skip
    return bld.finish("grbda", 5, "grbda tello_legs.urdf tree (left leg), own differentials",
                      tags={"spatial", "closed_zero"}, inertias=inertias)  # fmt: skip


# ----------------------------------------------------------------------------------------
# the seeded set
# ----------------------------------------------------------------------------------------
def all_linkages(seed=2024) -> list[Linkage]:
    """The seeded families the tests run (about fifty linkages)."""
    ss = np.random.SeedSequence(seed)
    seeds = iter(ss.spawn(200))

    def rng():
        return np.random.default_rng(next(seeds))

    out = []
    for kind in GRASHOF_CLASSES:
        for k in range(2):
            out.append(four_bar(kind, rng(), name=f"four_bar_{kind}_{k}",
                                writing="bars" if k == 0 else "assembled"))  # fmt: skip
    out.append(four_bar("double_rocker", rng(), name="four_bar_double_rocker_ref", reference=True))
    out.append(four_bar("crank_rocker", rng(), name="four_bar_crank_rocker_random_frames",
                        writing="random"))  # fmt: skip
    out.append(four_bar("crank_rocker", rng(), name="four_bar_rocker_driven",
                        independent={"rocker": True, "crank": False, "coupler": False},
                        writing="assembled"))  # fmt: skip
    out += [parallelogram(rng()), parallelogram(rng(), floating=True), kite(rng())]
    out += [watt_six_bar(rng()), watt_six_bar(rng(), writing="assembled"),
            stephenson_six_bar(rng()), stephenson_six_bar(rng(), loop_to_ground=True)]  # fmt: skip
    out += [slider_crank(rng()), slider_crank(rng(), prismatic_loop=True),
            slider_crank(rng(), writing="assembled")]  # fmt: skip
    out += [floating_knee(rng()), floating_knee(rng(), writing="assembled")]
    out += [four_bar_bouquet(rng(), 3), four_bar_tower(rng(), 3), four_bar_ladder(rng(), 3),
            four_bar_ladder(rng(), 4, writing="assembled"), parallel_bars(rng(), 3)]  # fmt: skip
    out += [rssr(rng()), rssr(rng(), floating=True), spherical_four_bar(rng()), bennett(rng()),
            bennett(rng(), floating=True)]  # fmt: skip
    out += [geared_chain(rng(), 3), geared_chain(rng(), 2, floating=True)]
    out += [triangle(rng()), welded_pendulum(rng()), locked_four_bar(rng())]
    out += [grbda_four_bar(), grbda_four_bar(floating=True), grbda_six_bar(), grbda_planar_leg(),
            grbda_planar_leg(floating=True), grbda_rotor_chain(), mini_cheetah_leg(),
            mini_cheetah_leg(floating=True), mit_humanoid_leg(), tello_leg(),
            tello_leg(floating=True), tello_leg(with_rate=False)]  # fmt: skip
    names = [x.name for x in out]
    assert len(set(names)) == len(names), names
    return out
