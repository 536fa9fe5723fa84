r"""Closed chains: loop joints, couplings and implicit constraints on a spanning tree.

A closed multibody model is a ``networkx.DiGraph`` whose ordinary edges (parent → child, a
:class:`~geomech.multibody.joints.Joint` each) form a spanning tree, plus *closure* edges:

- a **loop joint**: an edge ``predecessor → successor`` with ``kind="loop"``, a ``joint`` of
  any type, ``placement`` (the pose of the loop frame in the predecessor, default identity)
  and ``successor_placement`` (the pose of the loop frame in the successor, default
  identity). The constraint is that the successor's loop frame equals the predecessor's loop
  frame moved by the loop joint, :math:`{}^0T_{F_P}\,T_J(q_L) = {}^0T_{F_S}` for some
  :math:`q_L` (URDF+ ``<loop>``);
- a **coupling**: an edge ``predecessor → successor`` with ``kind="coupling"`` and ``ratio``
  (a gear, belt or rolling transmission). Measured from the two bodies' nearest common
  ancestor, :math:`\text{ratio}\cdot\sum_{\text{path to predecessor}} q_j =
  \sum_{\text{path to successor}} q_j` (URDF+ ``<coupling>``, the authors' meaning): for a
  rotor mounted beside its link :math:`q_{\rm rotor} = N q_{\rm link}`; for a belt it ties a
  rotor to several joints at once. Every joint on the two paths must have one degree of
  freedom;
- **implicit constraints** :math:`\phi(q) = 0` given by the user as
  :class:`ImplicitConstraint` objects in ``graph.graph["constraints"]`` (differentials,
  cams), with their Jacobian or finite differences as a fallback.

Tree edges may carry ``independent=True`` or ``False`` (URDF+'s ``independent`` attribute);
unmarked joints are chosen automatically (:attr:`ClosedMultibodyModel.independent_joints`
reports the choice). A cycle made of ordinary edges only is still an error
(:class:`~geomech.errors.NotATreeError` naming the cycle).

Conventions (docs/conventions.rst, "Closed chains")
---------------------------------------------------
``q`` is the spanning-tree configuration (``model.nq`` = ``model.spanning_tree.nq``) and must
satisfy the constraints (:class:`~geomech.errors.NotOnManifoldError` otherwise); ``v`` and
``a`` are the speeds and accelerations of the independent joints (``model.nv`` of them, in
spanning-tree joint order); ``tau`` is the generalized force dual to ``v``,
:math:`\tau = G^\top \tau_{\rm spanning}`. The spanning-tree speeds and accelerations are

.. math::
    \dot q_s = G(q)\,v, \qquad \ddot q_s = G(q)\,\dot v + g(q, v), \qquad g = \dot G v

(seed 004 eq. 3), with :math:`G` from the null space of the velocity constraint
:math:`K(q)\,\dot q_s = 0`: :math:`G_Y = \mathbf 1`, :math:`G_D = -K_D^{+}K_Y` on the
independent (Y) and dependent (D) columns, :math:`\dot G_D = -K_D^{+}\dot K G` and
:math:`g = \dot G v` (seed 004 §1.2 [inferred]).

A loop joint's own coordinates :math:`q_L` are not part of ``q``: they are auxiliary unknowns
of the constraint :math:`\log(T_J(q_L)^{-1}\,{}^{F_P}T_{F_S}) = 0` (six equations, with the
relative twist :math:`\xi = \mathbf v_{F_S} - {}^{F_S}\mathbf X_{F_P}\mathbf v_{F_P} =
\boldsymbol\Phi_L\dot q_L` at velocity level), eliminated with the dependent coordinates.
This works for every joint type and for planar mechanisms, whose redundant constraint rows
are handled by least squares.

References
----------
Seed 004 §1.1–1.4 (spanning tree, loop joints, explicit/implicit constraints, clusters),
§6 traps 4–8; seed 000 §VI-C (closed chains); URDF+ (Chignoli, Slotine, Wensing, Kim, arXiv
2411.19753): ``<loop>``, ``<coupling>`` and the ``independent`` attribute.
"""

from __future__ import annotations

import copy

import networkx as nx
import numpy as np

from geomech._validation import as_array, check_placement, default_rng
from geomech.errors import (
    DimensionError,
    ModelError,
    NotOnManifoldError,
    SingularityError,
)
from geomech.lie import SE3
from geomech.multibody.clusters import (
    Cluster,
    cluster_graph,
    nearest_common_ancestor,
    output_bodies,
    partition_clusters,
    path_closure,
)
from geomech.multibody.joints import FreeFlyer, Joint, OneDoFJoint
from geomech.multibody.kinematics import forward_kinematics, velocity_map
from geomech.multibody.model import MultibodyModel
from geomech.spatial import crm, plucker_from_pose

__all__ = ["ImplicitConstraint", "ClosedMultibodyModel", "declares_closures"]

#: Constraint residual accepted for a configuration (absolute, times ``max(1, max|q|)``).
CLOSURE_TOL = 1e-9
#: Residual at which Newton's method on the constraints stops.
NEWTON_TOL = 1e-12
#: Relative singular-value threshold for the rank of constraint Jacobians.
RANK_RTOL = 1e-9

_KINDS = ("joint", "loop", "coupling")


def declares_closures(graph) -> bool:
    """Whether a graph declares loop joints, couplings or implicit constraints.

    Parameters
    ----------
    graph : object
        Usually a ``networkx.DiGraph``.

    Returns
    -------
    bool

    Examples
    --------
    >>> import networkx as nx
    >>> from geomech.multibody.loops import declares_closures
    >>> g = nx.DiGraph()
    >>> g.add_edge("a", "b", kind="coupling", ratio=2.0)
    >>> declares_closures(g), declares_closures(nx.DiGraph())
    (True, False)
    """
    if not isinstance(graph, nx.DiGraph):
        return False
    if graph.graph.get("constraints"):
        return True
    # any edge kind but "joint" (an unknown kind is then reported by the closed model)
    return any(d.get("kind", "joint") != "joint" for _, _, d in graph.edges(data=True))


# ----------------------------------------------------------------------------------------
# constraints
# ----------------------------------------------------------------------------------------
class ImplicitConstraint:
    r"""A user-defined holonomic constraint :math:`\phi(q_J) = 0` on some joints' coordinates.

    Parameters
    ----------
    joints : sequence of str
        Names of the spanning-tree joints the constraint depends on (their coordinates are
        concatenated in this order into ``q_J``, their speeds into ``u``).
    phi : callable
        ``phi(q_J) -> (c,)``, the residual (one call per configuration, unbatched).
    jacobian : callable, optional
        ``jacobian(q_J) -> (c, n_u)`` with :math:`\dot\phi = K u` (the joints' speeds ``u``;
        for 1-DoF joints this is :math:`\partial\phi/\partial q_J`). Default: central
        differences along each joint's flow.
    jacobian_rate : callable, optional
        ``jacobian_rate(q_J, u) -> (c, n_u)``, :math:`\dot K` along the motion with speeds
        ``u``. Default: central differences of ``jacobian`` along the flow.
    name : str, optional
        Name used in messages and reports (default ``"constraint"`` + joints).

    Attributes
    ----------
    joints : list of str
    name : str

    Raises
    ------
    ModelError
        If ``joints`` is empty or a callable argument is not callable.

    References
    ----------
    Seed 004 §1.2 (implicit form :math:`\phi(q) = 0`, :math:`K\dot q = 0`,
    :math:`K\ddot q = k`, the Tello differential).

    Examples
    --------
    A cam: a rotor turns by :math:`N\theta + 0.1\sin\theta` when the link turns by
    :math:`\theta`:

    >>> import numpy as np
    >>> from geomech.multibody.loops import ImplicitConstraint
    >>> cam = ImplicitConstraint(["link", "rotor"],
    ...                          lambda q: [6.0 * q[0] + 0.1 * np.sin(q[0]) - q[1]],
    ...                          jacobian=lambda q: [[6.0 + 0.1 * np.cos(q[0]), -1.0]])
    >>> cam.name
    'constraint(link, rotor)'
    """

    kind = "implicit"

    def __init__(self, joints, phi, jacobian=None, jacobian_rate=None, name=None):
        joints = [str(j) for j in joints] if not isinstance(joints, str) else [joints]
        if not joints:
            raise ModelError(
                "Expected `joints` of an ImplicitConstraint to name at least one joint."
            )
        for value, label in (
            (phi, "phi"),
            (jacobian, "jacobian"),
            (jacobian_rate, "jacobian_rate"),
        ):
            if value is not None and not callable(value):
                raise ModelError(
                    f"Expected `{label}` of an ImplicitConstraint to be callable, got "
                    f"{type(value).__name__}."
                )
        if phi is None:
            raise ModelError("Expected `phi` of an ImplicitConstraint to be callable, got None.")
        self.joints = joints
        self.name = str(name) if name is not None else f"constraint({', '.join(joints)})"
        self._phi, self._jac, self._jac_rate = phi, jacobian, jacobian_rate
        self._model_joints = None  # (Joint, q slice, u slice) of each listed joint, bound later

    def __repr__(self):
        return f"ImplicitConstraint({self.name!r}, joints={self.joints!r})"

    # -- binding to a model -------------------------------------------------------------
    def _bind(self, tree: MultibodyModel) -> None:
        idx = []
        for name in self.joints:
            if name not in tree.joint_names:
                raise ModelError(
                    f"{self.name}: expected joint names from {tree.joint_names!r}, got {name!r}."
                )
            idx.append(tree.joint_names.index(name))
        self.bodies = idx
        self.q_index = np.concatenate([np.arange(tree.nq)[tree.q_slices[i]] for i in idx])
        self.v_index = np.concatenate([np.arange(tree.nv)[tree.v_slices[i]] for i in idx])
        layout, iq, iu = [], 0, 0
        for i in idx:
            j = tree.joints[i]
            layout.append((j, slice(iq, iq + j.nq), slice(iu, iu + j.nv)))
            iq, iu = iq + j.nq, iu + j.nv
        self._model_joints = layout
        self.rows = None

    def _call_phi(self, qJ) -> np.ndarray:
        r = np.atleast_1d(np.asarray(self._phi(qJ), dtype=float))
        if r.ndim != 1:
            raise DimensionError(
                f"{self.name}: expected `phi` to return shape (c,), got {r.shape}."
            )
        return r

    def _flow(self, qJ, u, eps):
        out = np.array(qJ, dtype=float)
        for joint, qs, us in self._model_joints:
            if joint.nq:
                out[qs] = joint.integrate(qJ[qs], eps * u[us])
        return out

    def _jacobian_of(self, qJ) -> np.ndarray:
        c, n = self.rows, self.v_index.size
        if self._jac is not None:
            K = np.asarray(self._jac(qJ), dtype=float)
            if K.shape != (c, n):
                raise DimensionError(
                    f"{self.name}: expected `jacobian` to return shape {(c, n)}, got {K.shape}."
                )
            return K
        h = np.finfo(float).eps ** (1 / 3) * max(1.0, float(np.max(np.abs(qJ), initial=0.0)))
        K = np.empty((c, n))
        for k in range(n):
            e = np.zeros(n)
            e[k] = 1.0
            K[:, k] = (
                self._call_phi(self._flow(qJ, e, h)) - self._call_phi(self._flow(qJ, e, -h))
            ) / (2 * h)
        return K

    def _jacobian_rate_of(self, qJ, u) -> np.ndarray:
        c, n = self.rows, self.v_index.size
        if self._jac_rate is not None:
            Kd = np.asarray(self._jac_rate(qJ, u), dtype=float)
            if Kd.shape != (c, n):
                raise DimensionError(
                    f"{self.name}: expected `jacobian_rate` to return shape {(c, n)}, got {Kd.shape}."
                )
            return Kd
        speed = float(np.max(np.abs(u), initial=0.0))
        if speed == 0.0:
            return np.zeros((c, n))
        h = 1e-4 / speed
        return (
            self._jacobian_of(self._flow(qJ, u, h)) - self._jacobian_of(self._flow(qJ, u, -h))
        ) / (2 * h)

    # -- the common constraint interface ---------------------------------------------
    def _residual(self, q, T, q_aux):
        return self._call_phi(q[self.q_index])

    def _jacobian(self, q, T, J, q_aux, n_s, newton=False):
        K = np.zeros((self.rows, n_s))
        K[:, self.v_index] = self._jacobian_of(q[self.q_index])
        return K, np.zeros((self.rows, 0))

    def _jacobian_rate(self, q, T, J, Jdot, w, q_aux, v_aux, n_s):
        Kd = np.zeros((self.rows, n_s))
        Kd[:, self.v_index] = self._jacobian_rate_of(q[self.q_index], w[self.v_index])
        return Kd, np.zeros((self.rows, 0))


class _Coupling:
    r"""A coupling :math:`r\sum_{\rm pred\ path} q = \sum_{\rm succ\ path} q` (URDF+ ``<coupling>``)."""

    kind = "coupling"
    rows = 1
    nq_aux = nv_aux = 0

    def __init__(self, name, pred, succ, ratio, tree: MultibodyModel, pred_node, succ_node):
        self.name, self.pred, self.succ, self.ratio = name, pred, succ, float(ratio)
        self.predecessor, self.successor = pred_node, succ_node
        nca = -1 if min(pred, succ) < 0 else nearest_common_ancestor(tree.parent, [pred, succ])
        self.nca = nca
        self.pred_path = _path(tree.parent, nca, pred)
        self.succ_path = _path(tree.parent, nca, succ)
        self.bodies = set(self.pred_path) | set(self.succ_path)
        if not self.succ_path and not self.pred_path:
            raise ModelError(f"coupling {name!r}: the predecessor and successor are the same body.")
        row = np.zeros(tree.nv)
        for path, coef in ((self.pred_path, self.ratio), (self.succ_path, -1.0)):
            for b in path:
                joint = tree.joints[b]
                if not isinstance(joint, OneDoFJoint):
                    raise ModelError(
                        f"coupling {name!r}: every joint between the bodies' nearest common "
                        f"ancestor and {pred_node!r}, {succ_node!r} must have one degree of "
                        f"freedom, got a {joint.kind} joint {tree.joint_names[b]!r}."
                    )
                row[tree.v_slices[b]] += coef
        self.row = row
        self.q_index = np.array([tree.q_slices[b].start for b in sorted(self.bodies)], dtype=int)
        self.v_index = np.array([tree.v_slices[b].start for b in sorted(self.bodies)], dtype=int)
        self._q_row = row[self.v_index]  # 1-DoF joints: coordinates and speeds align

    def __repr__(self):
        return f"<coupling {self.name!r}: {self.predecessor!r} -> {self.successor!r}, ratio {self.ratio}>"

    def _residual(self, q, T, q_aux):
        return np.array([self._q_row @ q[self.q_index]])

    def _jacobian(self, q, T, J, q_aux, n_s, newton=False):
        return self.row[None, :n_s].copy(), np.zeros((1, 0))

    def _jacobian_rate(self, q, T, J, Jdot, w, q_aux, v_aux, n_s):
        return np.zeros((1, n_s)), np.zeros((1, 0))


class _LoopJoint:
    r"""A loop joint: :math:`{}^0T_{F_P}\,T_J(q_L) = {}^0T_{F_S}` (URDF+ ``<loop>``)."""

    kind = "loop"
    rows = 6

    def __init__(self, name, pred, succ, joint, Tp, Ts, tree: MultibodyModel, pred_node, succ_node):
        self.name, self.pred, self.succ, self.joint = name, pred, succ, joint
        self.predecessor, self.successor = pred_node, succ_node
        self.Tp, self.Ts = Tp, Ts
        self.Xp, self.Xs = plucker_from_pose(Tp), plucker_from_pose(Ts)  # ^{F_P}X_p, ^{F_S}X_s
        self.nq_aux, self.nv_aux = joint.nq, joint.nv
        bodies = [b for b in (pred, succ) if b >= 0]
        # the bodies whose joints move the loop: the tree paths from the nearest common
        # ancestor (the base when a loop closes to it) down to both ends
        if min(pred, succ) < 0:
            self.bodies = _root_paths(tree.parent, bodies)
        else:
            self.bodies = path_closure(tree.parent, bodies)
        if not self.bodies:
            raise ModelError(
                f"loop joint {name!r}: the predecessor and successor are the same body."
            )
        self.aux_q = self.aux_v = slice(0, 0)  # set by the model

    def __repr__(self):
        return f"<loop joint {self.name!r} ({self.joint.kind}): {self.predecessor!r} -> {self.successor!r}>"

    def frames(self, T):
        """World poses of the loop frames F_P and F_S."""
        T_p = np.eye(4) if self.pred < 0 else T[self.pred]
        T_s = np.eye(4) if self.succ < 0 else T[self.succ]
        return T_p @ self.Tp, T_s @ self.Ts

    def error(self, T, q_L):
        """E = T_J(q_L)^-1 T_FP^-1 T_FS and r = log(E)."""
        T_FP, T_FS = self.frames(T)
        E = np.linalg.solve(self.joint.pose(q_L), np.linalg.solve(T_FP, T_FS))
        return E, SE3.log(E)

    def fit(self, T, q_L=None, max_iter=30):
        """Loop-joint coordinates closest to the current pair of frames (Gauss–Newton)."""
        q_L = self.joint.neutral() if q_L is None else np.array(q_L, dtype=float)
        if self.joint.nv == 0:
            return q_L
        for _ in range(max_iter):
            E, r = self.error(T, q_L)
            A = -plucker_from_pose(E) @ self.joint.motion_subspace(q_L)
            if np.max(np.abs(r)) > 1e-6:  # far from the fit: the exact Jacobian of log
                A = SE3.right_jacobian_inverse(r) @ A
            dq = -np.linalg.lstsq(A, r, rcond=None)[0]
            q_L = self.joint.integrate(q_L, dq)
            if np.max(np.abs(dq)) < 1e-13:
                break
        return q_L

    def _residual(self, q, T, q_aux):
        return self.error(T, q_aux[self.aux_q])[1]

    def _relative(self, T, J):
        T_FP, T_FS = self.frames(T)
        X = plucker_from_pose(np.linalg.solve(T_FP, T_FS))  # ^{F_S}X_{F_P}
        n_s = J.shape[-1]
        J_FP = np.zeros((6, n_s)) if self.pred < 0 else self.Xp @ J[self.pred]
        J_FS = np.zeros((6, n_s)) if self.succ < 0 else self.Xs @ J[self.succ]
        return X, J_FP, J_FS

    def _jacobian(self, q, T, J, q_aux, n_s, newton=False):
        X, J_FP, J_FS = self._relative(T, J)
        J_xi = J_FS - X @ J_FP  # relative twist ξ = v_FS − ^{FS}X_{FP} v_FP
        q_L = q_aux[self.aux_q]
        Phi = self.joint.motion_subspace(q_L)
        if not newton:
            return J_xi, -Phi
        E, r = self.error(T, q_L)
        Jinv = SE3.right_jacobian_inverse(r)  # d log E = J_r(log E)^-1 (body twist of E)
        return Jinv @ J_xi, -Jinv @ plucker_from_pose(E) @ Phi

    def _jacobian_rate(self, q, T, J, Jdot, w, q_aux, v_aux, n_s):
        X, J_FP, J_FS = self._relative(T, J)
        Jd_FP = np.zeros((6, n_s)) if self.pred < 0 else self.Xp @ Jdot[self.pred]
        Jd_FS = np.zeros((6, n_s)) if self.succ < 0 else self.Xs @ Jdot[self.succ]
        # d/dt ^{FS}X_{FP} = X (v_FP ×) − (v_FS ×) X (seed 000 §VI-B)
        X_dot = X @ crm(J_FP @ w) - crm(J_FS @ w) @ X
        Jd_xi = Jd_FS - X_dot @ J_FP - X @ Jd_FP
        q_L, v_L = q_aux[self.aux_q], v_aux[self.aux_v]
        return Jd_xi, -self.joint.motion_subspace_rate(q_L, v_L)


def _path(parent, top: int, b: int) -> list[int]:
    """Bodies from ``top`` (excluded) down to ``b`` (included), in increasing order."""
    out = []
    while b != top and b >= 0:
        out.append(b)
        b = int(parent[b])
    if b != top:
        raise ModelError("not an ancestor")  # pragma: no cover
    return out[::-1]


def _root_paths(parent, bodies) -> set[int]:
    out: set[int] = set()
    for b in bodies:
        out |= set(_path(parent, -1, b))
    return out


# ----------------------------------------------------------------------------------------
# the model
# ----------------------------------------------------------------------------------------
def _split(graph: nx.DiGraph):
    """(tree graph, loop edges, coupling edges) of a graph with closures."""
    tree = nx.DiGraph()
    tree.graph.update(
        {
            k: v
            for k, v in graph.graph.items()
            if k not in ("constraints", "reference_configuration")
        }
    )
    tree.add_nodes_from(graph.nodes(data=True))
    loops, couplings = [], []
    for u, v, d in graph.edges(data=True):
        kind = d.get("kind", "joint")
        if kind not in _KINDS:
            raise ModelError(
                f"Expected the 'kind' of edge ({u!r}, {v!r}) to be one of {_KINDS}, got {kind!r}."
            )
        if kind == "joint":
            tree.add_edge(u, v, **d)
        elif kind == "loop":
            loops.append((u, v, d))
        else:
            couplings.append((u, v, d))
    return tree, loops, couplings


def _select_rows(M: np.ndarray) -> int:
    """Numerical rank of ``M`` (singular values above RANK_RTOL times the largest)."""
    if M.size == 0:
        return 0
    s = np.linalg.svd(M, compute_uv=False)
    return int(np.sum(s > RANK_RTOL * max(1.0, s[0])))


class ClosedMultibodyModel(MultibodyModel):
    r"""A multibody model with kinematic loops: a spanning tree closed by constraints.

    Built by :class:`~geomech.multibody.model.MultibodyModel` itself when its graph declares
    loop joints, couplings or implicit constraints (module docstring), so
    ``MultibodyModel(graph)`` returns an instance of this class.

    Parameters
    ----------
    graph : networkx.DiGraph
        Tree edges as for :class:`MultibodyModel` (optionally with ``independent``), loop and
        coupling edges, ``graph.graph["constraints"]`` (a list of :class:`ImplicitConstraint`)
        and optionally ``graph.graph["reference_configuration"]`` (a spanning-tree ``q``
        near which to look for a closed configuration; default the neutral one).
    gravity : array_like, shape (3,), optional
        Default ``[0, 0, -9.81]``.

    Attributes
    ----------
    spanning_tree : MultibodyModel
        The tree made of the ordinary edges (same bodies, joints and ``q`` layout).
    nq : int
        Spanning-tree configuration size.
    nv : int
        Number of independent speeds :math:`m`.
    independent_joints, dependent_joints : list of str
        Spanning-tree joints whose speeds are (are not) the model's speeds ``v``, in joint
        order.
    independent_v_index : ndarray of int
        Columns of the spanning-tree velocity holding ``v`` (:math:`\dot q_s[\text{index}] = v`).
    v_slices : list of slice
        Slice of ``v`` of each joint (empty for dependent joints).
    constraints : list
        Loop joints, couplings and implicit constraints, in that order.
    clusters : list of Cluster
        The clusters in regular order (:mod:`geomech.multibody.clusters`).
    cluster_graph : networkx.DiGraph
        The cluster connectivity tree.
    root, nodes, n_bodies, body_names, joint_names, joints, parent, placements, X_tree, inertias, q_slices, depth, gravity
        As for the spanning tree.

    Raises
    ------
    ModelError
        On a malformed closure edge (unknown ``kind``, missing joint, bad ``placement`` or
        ``ratio``), a coupling through a multi-DoF joint, contradictory ``independent`` marks,
        or when no closed configuration is found near the reference one.
    NotATreeError
        If the ordinary edges do not form a tree (the message names the cycle).

    References
    ----------
    Seed 004 §1.1–1.4, §6 traps 4–8; URDF+ (arXiv 2411.19753).

    Examples
    --------
    A planar four-bar: crank and rocker hinged to the ground, the coupler closing the loop at
    the rocker with a revolute loop joint.

    >>> import networkx as nx
    >>> import numpy as np
    >>> from geomech.multibody import MultibodyModel, Revolute
    >>> from geomech.spatial import spatial_inertia
    >>> def body(com):
    ...     return spatial_inertia(1.0, com, 0.01 * np.eye(3))
    >>> def at(x, y):
    ...     T = np.eye(4); T[:2, 3] = x, y
    ...     return T
    >>> G = nx.DiGraph(name="four_bar")
    >>> G.add_edge("world", "crank", joint=Revolute([0, 0, 1]), name="A")
    >>> G.add_edge("crank", "coupler", joint=Revolute([0, 0, 1]), placement=at(0, 1), name="B")
    >>> G.add_edge("world", "rocker", joint=Revolute([0, 0, 1]), placement=at(3, 0), name="D")
    >>> G.add_edge("coupler", "rocker", kind="loop", joint=Revolute([0, 0, 1]),
    ...            placement=at(2, 0), successor_placement=at(-1, 1), name="C")
    >>> inertias = {"crank": body([0, 0.5, 0]), "coupler": body([1, 0, 0]),
    ...             "rocker": body([-0.5, 0.5, 0])}
    >>> nx.set_node_attributes(G, inertias, "inertia")
    >>> model = MultibodyModel(G)
    >>> type(model).__name__, model.nq, model.nv, model.independent_joints
    ('ClosedMultibodyModel', 3, 1, ['A'])
    >>> q = model.random_configuration(rng=0)
    >>> bool(np.max(np.abs(model.constraint_residual(q))) < 1e-12)
    True
    """

    is_closed = True
    #: residual tolerance of :meth:`check_configuration` (times ``max(1, max|q|)``)
    closure_tol = CLOSURE_TOL

    def __init__(self, graph, *, gravity=None, strict: bool | None = None):
        if not isinstance(graph, nx.DiGraph) or graph.is_multigraph():
            raise ModelError(
                f"Expected `graph` to be a networkx.DiGraph, got {type(graph).__name__}."
            )
        tree_graph, loop_edges, coupling_edges = _split(graph)
        self.graph = graph
        st = MultibodyModel(tree_graph, gravity=gravity, strict=strict)
        self.spanning_tree = st
        for attr in ("root", "nodes", "n_bodies", "body_names", "joint_names", "joints",
                     "parent", "placements", "X_tree", "inertias", "q_slices", "nq", "depth",
                     "gravity"):  # fmt: skip
            setattr(self, attr, getattr(st, attr))
        self._n_s = st.nv
        self._build_constraints(graph, loop_edges, coupling_edges)
        self._build_clusters()
        self._q_ref = self._find_reference(graph)
        self._choose_independent(tree_graph)
        self.cluster_graph = cluster_graph(self)
        # the MechanicalSystem part: the joint frame of the independent speeds; the fast
        # overrides (mass matrix, Alg. 1, Alg. 2, gravity, forward dynamics) are the cluster
        # algorithms behind the same public functions
        self._init_system()

    # ---- construction ------------------------------------------------------------------
    def _body(self, node, label: str) -> int:
        if node == self.root:
            return -1
        if node not in self.spanning_tree._index:
            raise ModelError(f"{label}: node {node!r} is not a body of the spanning tree.")
        return self.spanning_tree.body_index(node)

    def _build_constraints(self, graph, loop_edges, coupling_edges):
        st = self.spanning_tree
        loops, couplings = [], []
        for u, v, d in loop_edges:
            label = f"loop edge ({u!r}, {v!r})"
            joint = d.get("joint")
            if not isinstance(joint, Joint):
                raise ModelError(
                    f"Expected the 'joint' attribute of {label} to be a geomech Joint, got "
                    f"{type(joint).__name__}."
                )
            name = str(d.get("name", joint.name if joint.name is not None else f"loop_{u}_{v}"))
            Tp = np.eye(4) if d.get("placement") is None else check_placement(d["placement"], label)
            Ts = (np.eye(4) if d.get("successor_placement") is None
                  else check_placement(d["successor_placement"], label))  # fmt: skip
            loops.append(
                _LoopJoint(
                    name, self._body(u, label), self._body(v, label), joint, Tp, Ts, st, u, v
                )
            )
        for u, v, d in coupling_edges:
            label = f"coupling edge ({u!r}, {v!r})"
            ratio = d.get("ratio")
            if (
                isinstance(ratio, bool)
                or not isinstance(ratio, (int, float, np.floating, np.integer))
                or not np.isfinite(ratio)
            ):
                raise ModelError(
                    f"Expected the 'ratio' of {label} to be a finite number, got {ratio!r}."
                )
            name = str(d.get("name", f"coupling_{u}_{v}"))
            couplings.append(
                _Coupling(name, self._body(u, label), self._body(v, label), ratio, st, u, v)
            )
        user = []
        for con in graph.graph.get("constraints") or []:
            if not isinstance(con, ImplicitConstraint):
                raise ModelError(
                    "Expected graph.graph['constraints'] to hold ImplicitConstraint objects, got "
                    f"{type(con).__name__}."
                )
            con = copy.copy(con)  # bound to this model's layout; the user's object is untouched
            con._bind(st)
            user.append(con)
            con.rows = con._call_phi(st.neutral()[con.q_index]).size
        self.constraints = loops + couplings + user
        names = [c.name for c in self.constraints]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ModelError(f"Expected unique constraint names, got {dup[0]!r} more than once.")
        # auxiliary coordinates and speeds of the loop joints
        iq = iv = 0
        for lp in loops:
            lp.aux_q, lp.aux_v = slice(iq, iq + lp.nq_aux), slice(iv, iv + lp.nv_aux)
            iq, iv = iq + lp.nq_aux, iv + lp.nv_aux
        self._loops, self._n_aux_q, self._n_aux = loops, iq, iv
        rows, r = [], 0
        for con in self.constraints:
            rows.append(np.arange(r, r + con.rows))
            r += con.rows
        self._rows, self._n_rows = rows, r

    def _build_clusters(self):
        st = self.spanning_tree
        involved = [set(c.bodies) for c in self.constraints]
        groups = partition_clusters(self.parent, involved)
        cluster_of = {b: k for k, g in enumerate(groups) for b in g}
        clusters = []
        for k, bodies in enumerate(groups):
            out = output_bodies(self.parent, bodies)
            par = {cluster_of[o] if o >= 0 else -1 for o in out}
            (parent,) = par  # partition_clusters guarantees one parent cluster
            clusters.append(Cluster(k, list(bodies), int(parent), out))
        for con in self.constraints:
            ks = {cluster_of[b] for b in con.bodies}
            (k,) = ks
            clusters[k].constraints.append(con)
            con.cluster = k
        ar = np.arange(st.nv)
        aq = np.arange(st.nq)
        for c in clusters:
            c.q_index = np.concatenate([aq[st.q_slices[b]] for b in c.bodies] + [np.zeros(0, int)])
            c.v_index = np.concatenate([ar[st.v_slices[b]] for b in c.bodies] + [np.zeros(0, int)])
            c.aux_index = np.concatenate(
                [self._n_s + np.arange(self._n_aux)[lp.aux_v] for lp in c.constraints
                 if lp.kind == "loop"] + [np.zeros(0, int)])  # fmt: skip
            c.rows = np.concatenate(
                [self._rows[self.constraints.index(con)] for con in c.constraints]
                + [np.zeros(0, int)]
            )
        self.clusters = clusters

    # ---- state evaluation (single configuration) ---------------------------------------
    def _fit_aux(self, T, q_aux=None) -> np.ndarray:
        out = np.zeros(self._n_aux_q)
        for lp in self._loops:
            out[lp.aux_q] = lp.fit(T, None if q_aux is None else q_aux[lp.aux_q])
        return out

    def _residual_at(self, q, T, q_aux) -> np.ndarray:
        return np.concatenate([c._residual(q, T, q_aux) for c in self.constraints] + [np.zeros(0)])

    def _jacobian_at(self, q, T, J, q_aux, newton=False) -> np.ndarray:
        K = np.zeros((self._n_rows, self._n_s + self._n_aux))
        for con, rows in zip(self.constraints, self._rows, strict=True):
            Ks, Ka = con._jacobian(q, T, J, q_aux, self._n_s, newton)
            K[rows, : self._n_s] = Ks
            if con.kind == "loop":
                K[np.ix_(rows, self._n_s + np.arange(self._n_aux)[con.aux_v])] = Ka
        return K

    def _jacobian_rate_at(self, q, T, J, Jdot, w, q_aux, v_aux) -> np.ndarray:
        Kd = np.zeros((self._n_rows, self._n_s + self._n_aux))
        for con, rows in zip(self.constraints, self._rows, strict=True):
            Ks, Ka = con._jacobian_rate(q, T, J, Jdot, w, q_aux, v_aux, self._n_s)
            Kd[rows, : self._n_s] = Ks
            if con.kind == "loop":
                Kd[np.ix_(rows, self._n_s + np.arange(self._n_aux)[con.aux_v])] = Ka
        return Kd

    def _kinematics(self, q, w=None):
        st = self.spanning_tree
        T = forward_kinematics(st, q)
        if w is None:
            J = velocity_map(st, q).reshape(st.n_bodies, 6, st.nv)
            return T, J, None
        A, A_dot = velocity_map(st, q, w)
        return T, A.reshape(st.n_bodies, 6, st.nv), A_dot.reshape(st.n_bodies, 6, st.nv)

    def _newton(self, q, q_aux, free, max_iter=50):
        """Newton (least squares) on the constraints.

        Moves the spanning columns ``free`` and the loop joints' coordinates; returns
        ``(q, q_aux)`` or raises SingularityError.
        """
        st = self.spanning_tree
        cols = np.concatenate([free, self._n_s + np.arange(self._n_aux)])
        scale = max(1.0, float(np.max(np.abs(q), initial=0.0)))
        res, polished = np.inf, False
        for _ in range(max_iter):
            T = forward_kinematics(st, q)
            r = self._residual_at(q, T, q_aux)
            res = float(np.max(np.abs(r), initial=0.0))
            if res <= NEWTON_TOL * scale:
                if polished or res <= 1e-15 * scale:
                    return q, q_aux
                polished = True  # one more step: quadratic convergence reaches rounding
            J = velocity_map(st, q).reshape(st.n_bodies, 6, st.nv)
            K = self._jacobian_at(q, T, J, q_aux, newton=True)[:, cols]
            step = -np.linalg.lstsq(K, r, rcond=None)[0]
            if not np.all(np.isfinite(step)):
                break
            dv = np.zeros(self._n_s)
            dv[free] = step[: free.size]
            q = st.integrate(q, dv)
            da = step[free.size :]
            q_aux = q_aux.copy()
            for lp in self._loops:
                q_aux[lp.aux_q] = lp.joint.integrate(q_aux[lp.aux_q], da[lp.aux_v])
        raise SingularityError(
            f"Expected Newton's method on the loop constraints to converge in {max_iter} "
            f"iterations, got residual {res:.3g} (a singular or unreachable configuration)."
        )

    def _find_reference(self, graph) -> np.ndarray:
        st = self.spanning_tree
        q0 = graph.graph.get("reference_configuration")
        q0 = st.neutral() if q0 is None else as_array(q0, "reference_configuration", (st.nq,))
        if q0.ndim != 1:
            raise ModelError(
                f"Expected graph.graph['reference_configuration'] to have shape ({st.nq},), got "
                f"{q0.shape}."
            )
        T = forward_kinematics(st, q0)
        q_aux = self._fit_aux(T)
        if np.max(np.abs(self._residual_at(q0, T, q_aux)), initial=0.0) <= NEWTON_TOL:
            return q0
        free = np.concatenate(
            [c.v_index for c in self.clusters if c.constraints] + [np.zeros(0, int)]
        )
        try:
            q, _ = self._newton(q0.copy(), q_aux, free)
        except SingularityError as exc:
            raise ModelError(
                "Expected to find a configuration closing the loops near the reference "
                f"configuration, got none ({exc}); give one as "
                "graph.graph['reference_configuration']."
            ) from exc
        return q

    def _choose_independent(self, tree_graph):
        st = self.spanning_tree
        marks = []
        for i, node in enumerate(self.nodes):
            (pnode,) = tree_graph.predecessors(node)
            mark = tree_graph.edges[pnode, node].get("independent")
            if mark is not None and not isinstance(mark, (bool, np.bool_)):
                raise ModelError(
                    f"Expected the 'independent' attribute of joint {self.joint_names[i]!r} to be "
                    f"True, False or None, got {mark!r}."
                )
            if isinstance(st.joints[i], FreeFlyer) and self.parent[i] < 0:
                if mark is False:
                    raise ModelError(
                        f"joint {self.joint_names[i]!r}: a floating base is always independent, "
                        "got independent=False."
                    )
                mark = True
            marks.append(None if mark is None else bool(mark))
        q = self._q_ref
        T, J, _ = self._kinematics(q)
        K = self._jacobian_at(q, T, J, self._fit_aux(T))
        successors = {c.succ for c in self.constraints if c.kind == "coupling"}
        dependent = set()
        for c in self.clusters:
            if not c.constraints:
                for b in c.bodies:
                    if marks[b] is False:
                        raise ModelError(
                            f"joint {self.joint_names[b]!r} is marked independent=False but no "
                            "loop joint, coupling or constraint involves it."
                        )
                continue
            Kc = K[c.rows]
            target = _select_rows(Kc[:, np.concatenate([c.v_index, c.aux_index])])
            cols = list(c.aux_index)
            rank = _select_rows(Kc[:, cols])
            vcol = {b: list(np.arange(st.nv)[st.v_slices[b]]) for b in c.bodies}
            forced = [b for b in c.bodies if marks[b] is False]
            auto = sorted((b for b in c.bodies if marks[b] is None),
                          key=lambda b: (b not in successors, -b))  # fmt: skip
            for b in forced + auto:
                if rank == target and b not in forced:
                    break
                new = _select_rows(Kc[:, cols + vcol[b]])
                if new == rank + len(vcol[b]):
                    cols += vcol[b]
                    rank = new
                    dependent.add(b)
                elif b in forced:
                    raise ModelError(
                        f"joint {self.joint_names[b]!r} is marked independent=False but the "
                        "constraints of its cluster do not determine it (given the other "
                        "dependent joints); mark another joint of the loop dependent."
                    )
            if rank < target:
                names = [self.joint_names[b] for b in c.bodies if b not in dependent]
                dof = sum(len(vcol[b]) for b in c.bodies) + c.aux_index.size - target
                raise ModelError(
                    f"Expected the constraints of the cluster "
                    f"{[self.body_names[b] for b in c.bodies]} to leave {dof} independent "
                    f"speeds, got the joints {names} marked or chosen independent, which "
                    "over-determine it; mark some of them independent=False."
                )
        self._dependent = sorted(dependent)
        self._independent = [i for i in range(self.n_bodies) if i not in dependent]
        self.independent_joints = [
            self.joint_names[i] for i in self._independent if st.joints[i].nv
        ]
        self.dependent_joints = [self.joint_names[i] for i in self._dependent]
        ar = np.arange(st.nv)
        self.independent_v_index = np.concatenate(
            [ar[st.v_slices[i]] for i in self._independent] + [np.zeros(0, int)])  # fmt: skip
        self.nv = int(self.independent_v_index.size)
        pos = {int(c): k for k, c in enumerate(self.independent_v_index)}
        self.v_slices, iv = [], 0
        for i in range(self.n_bodies):
            n = st.joints[i].nv if i not in dependent else 0
            self.v_slices.append(slice(iv, iv + n))
            iv += n
        for c in self.clusters:
            c.independent = [b for b in c.bodies if b not in dependent and st.joints[b].nv]
            c.y_index = np.array([pos[int(j)] for j in c.v_index if int(j) in pos], dtype=int)

    # ---- validation ----------------------------------------------------------------------
    def _residual_single(self, q):
        T = forward_kinematics(self.spanning_tree, q)
        q_aux = self._fit_aux(T)
        return self._residual_at(q, T, q_aux), T, q_aux

    def constraint_residual(self, q) -> np.ndarray:
        r"""Residual of every constraint at ``q`` (zero on the closed configurations).

        Loop joints contribute six entries each, :math:`\log(T_J(q_L)^{-1}\,{}^{F_P}T_{F_S})`
        with :math:`q_L` fitted by Gauss–Newton (angles in rad, lengths in model units);
        couplings one, :math:`r\sum q_{\rm pred} - \sum q_{\rm succ}`; implicit constraints
        their :math:`\phi`, in the order of :attr:`constraints`.

        Parameters
        ----------
        q : array_like, shape (..., nq)
            Spanning-tree configurations.

        Returns
        -------
        ndarray, shape (..., n_residual)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.urdf_plus import load_example
        >>> model = load_example("geared_chain")
        >>> model.constraint_residual(model.neutral()).shape
        (3,)
        """
        q = as_array(q, "q", (self.nq,))
        out = np.empty(q.shape[:-1] + (self._n_rows,))
        for idx in np.ndindex(q.shape[:-1]):
            out[idx] = self._residual_single(q[idx])[0]
        return out

    def check_configuration(self, q, name: str = "q") -> np.ndarray:
        r"""Validate closed configurations: shape, finiteness and :math:`\phi(q) = 0`.

        Parameters
        ----------
        q : array_like, shape (..., nq)
        name : str
            Name used in messages.

        Returns
        -------
        ndarray, shape (..., nq)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.
        NotOnManifoldError
            If a constraint residual exceeds :math:`10^{-9}\max(1, \max|q|)`.

        Examples
        --------
        >>> from geomech.multibody.urdf_plus import load_example
        >>> model = load_example("geared_chain")
        >>> model.check_configuration([0.0] * model.nq).shape
        (6,)
        >>> model.check_configuration([0.1] + [0.0] * (model.nq - 1))
        Traceback (most recent call last):
            ...
        geomech.errors.NotOnManifoldError: Expected `q` to satisfy the loop constraints phi(q) = 0, got residual 0.6 > 1e-09 in 'transmission_1' (project it with model.project).
        """
        q = as_array(q, name, (self.nq,))
        if not self._couplings_only():
            from geomech.multibody.kernels.cluster_compiled import cluster_layout

            lay = cluster_layout(self)
            if lay.certifies_closure:  # residuals by the constraint kernel, one pass
                Q = np.ascontiguousarray(q.reshape(-1, self.nq))
                ok = lay.closed_states(Q)
                for b in np.flatnonzero(~ok):
                    self._check_single(Q[b], name)  # the exact residual, or the error
                return q
        if self._couplings_only():  # linear residuals: one vectorised test for the batch
            r = np.stack([q[..., c.q_index] @ c._q_row for c in self.constraints], axis=-1)
            scale = np.maximum(1.0, np.max(np.abs(q), axis=-1, initial=0.0))
            if np.all(np.abs(r) <= CLOSURE_TOL * scale[..., None]):
                return q
        for idx in np.ndindex(q.shape[:-1]):
            self._check_single(q[idx], name)
        return q

    def _couplings_only(self) -> bool:
        flag = self.__dict__.get("_only_couplings")
        if flag is None:
            flag = self._only_couplings = bool(self.constraints) and all(
                c.kind == "coupling" for c in self.constraints
            )
        return flag

    def _check_single(self, q, name="q"):
        r, T, q_aux = self._residual_single(q)
        tol = CLOSURE_TOL * max(1.0, float(np.max(np.abs(q), initial=0.0)))
        if r.size and np.max(np.abs(r)) > tol:
            k = int(np.argmax(np.abs(r)))
            con = next(c for c, rows in zip(self.constraints, self._rows, strict=True) if k in rows)
            raise NotOnManifoldError(
                f"Expected `{name}` to satisfy the loop constraints phi(q) = 0, got residual "
                f"{float(np.max(np.abs(r))):.3g} > {tol:.3g} in {con.name!r} (project it with "
                "model.project)."
            )
        return T, q_aux

    # ---- constraint matrices ---------------------------------------------------------------
    def _G_hat(self, K):
        """Ĝ over [spanning; aux] columns (n_s + n_a, m) from the velocity constraint K."""
        n = self._n_s + self._n_aux
        Gh = np.zeros((n, self.nv))
        Gh[self.independent_v_index, np.arange(self.nv)] = 1.0
        for c in self.clusters:
            if not c.constraints:
                continue
            Y, D = self._cluster_cols(c)
            Kc = K[c.rows]
            Gh[D[:, None], c.y_index[None, :]] = -np.linalg.lstsq(Kc[:, D], Kc[:, Y], rcond=None)[0]
        return Gh

    def _cluster_cols(self, c):
        st = self.spanning_tree
        ar = np.arange(st.nv)
        Y = np.concatenate([ar[st.v_slices[b]] for b in c.independent] + [np.zeros(0, int)])
        D = np.concatenate([ar[st.v_slices[b]] for b in c.bodies if b in self._dependent]
                           + [c.aux_index.astype(int)])  # fmt: skip
        return Y, D

    def _matrices_single(self, q, y, rate):
        T, q_aux = self._check_single(q)
        st = self.spanning_tree
        J = velocity_map(st, q).reshape(st.n_bodies, 6, st.nv)
        K = self._jacobian_at(q, T, J, q_aux)
        Gh = self._G_hat(K)
        G = Gh[: self._n_s]
        if y is None:
            return G, None, None
        w_hat = Gh @ y
        w, v_aux = w_hat[: self._n_s], w_hat[self._n_s :]
        _, _, Jdot = self._kinematics(q, w)
        Kd = self._jacobian_rate_at(q, T, J, Jdot, w, q_aux, v_aux)
        Gd = np.zeros_like(Gh)
        for c in self.clusters:
            if not c.constraints:
                continue
            Y, D = self._cluster_cols(c)
            Kc = K[c.rows]
            # K Ĝ = 0 ⇒ K_D Ġ_D = −K̇ Ĝ (Ġ_Y = 0)
            rhs = Kd[c.rows] @ Gh[:, c.y_index]
            Gd[D[:, None], c.y_index[None, :]] = -np.linalg.lstsq(Kc[:, D], rhs, rcond=None)[0]
        G_dot = Gd[: self._n_s]
        return G, G_dot @ y, (G_dot if rate else None)

    def constraint_matrices(self, q, v, rate: bool = False):
        r"""The explicit-form constraint matrices :math:`G(q)` and :math:`g(q, v)`.

        .. math::
            \dot q_s = G\,v,\qquad \ddot q_s = G\,\dot v + g,\qquad
            G_Y = \mathbf 1,\quad G_D = -K_D^{+}K_Y,\qquad
            \dot G_D = -K_D^{+}\dot K G,\quad g = \dot G v

        with :math:`K` the velocity constraint over the spanning-tree speeds and the loop
        joints' own speeds (dependent too), and :math:`K^+` the least-squares solution
        (redundant rows of planar loops are consistent).

        :math:`G` is block diagonal over the clusters: each block is evaluated by the
        compiled kernel :func:`~geomech.multibody.kernels.cluster_constraints.
        cluster_constraints` (in-cluster Jacobians, Householder QR of :math:`K_D`, single
        and batched), except the clusters holding user-defined constraints or joints, whose
        Python objects fill their blocks (two-stage path).

        Parameters
        ----------
        q : array_like, shape (..., nq)
            Closed configurations.
        v : array_like, shape (..., nv)
            Independent speeds.
        rate : bool
            Also return :math:`\dot G` (along the motion).

        Returns
        -------
        G : ndarray, shape (..., n_s, nv)
            ``n_s = model.spanning_tree.nv``.
        g : ndarray, shape (..., n_s)
        G_dot : ndarray, shape (..., n_s, nv)
            Only if ``rate``.

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` or ``v`` is malformed.
        NotOnManifoldError
            If ``q`` does not satisfy the constraints.

        References
        ----------
        Seed 004 eq. (3) and §1.2 [inferred]; seed 000 §VI-C1.

        Examples
        --------
        A geared rotor turns six times as fast as its link:

        >>> import numpy as np
        >>> from geomech.multibody.urdf_plus import load_example
        >>> model = load_example("geared_chain")
        >>> G, g = model.constraint_matrices(model.neutral(), np.ones(model.nv))
        >>> link, rotor = model.q_slice("joint1").start, model.q_slice("rotor1_joint").start
        >>> G[[link, rotor], 0], float(np.abs(g).max())
        (array([1., 6.]), 0.0)
        """
        from geomech.multibody.kernels.cluster_compiled import cluster_layout

        q = as_array(q, "q", (self.nq,))
        v = as_array(v, "v", (self.nv,))
        batch = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
        q, v = np.broadcast_to(q, batch + (self.nq,)), np.broadcast_to(v, batch + (self.nv,))
        Q = np.ascontiguousarray(q.reshape(-1, self.nq))
        V = np.ascontiguousarray(v.reshape(-1, self.nv))
        lay = cluster_layout(self)
        if lay.all_static:  # constant G: only the residuals to check
            self.check_configuration(Q)
        # per cluster, on the compiled-kernel layer (cluster_constraints) or, for clusters
        # with user-defined constraints, by the constraint objects (_matrices_single)
        Gc, gs, Gdc = lay.constraint_arrays(Q, V, rate=True)
        B = Q.shape[0]
        G = lay.scatter(np.broadcast_to(Gc, (B,) + Gc.shape[1:])).reshape(
            batch + (self._n_s, self.nv)
        )
        g = np.broadcast_to(gs, (B, self._n_s)).reshape(batch + (self._n_s,)).copy()
        if not rate:
            return G, g
        Gd = lay.scatter(np.broadcast_to(Gdc, (B,) + Gdc.shape[1:])).reshape(G.shape)
        return G, g, Gd

    def cluster_matrices(self, q, v):
        r"""The per-cluster blocks :math:`(G_k, g_k, \dot G_k)` of the constraint matrices.

        :math:`G` is block diagonal over the clusters (seed 004 trap 8): with rows
        ``cluster.v_index`` (the cluster joints' spanning speeds, in body order) and columns
        ``cluster.y_index`` (its independent speeds in ``v``), :math:`\dot q_{\mathcal J_k} =
        G_k \dot y_k` and :math:`\ddot q_{\mathcal J_k} = G_k\ddot y_k + g_k`.

        Parameters
        ----------
        q : array_like, shape (..., nq)
            Closed configurations.
        v : array_like, shape (..., nv)

        Returns
        -------
        list of tuple
            ``(G_k, g_k, G_dot_k)`` of shapes ``(..., n_k, m_k)``, ``(..., n_k)`` and
            ``(..., n_k, m_k)`` for each cluster ``k`` of :attr:`clusters`.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            As :meth:`constraint_matrices`.

        References
        ----------
        Seed 004 §2.0 (``updateConstraints`` per cluster), §6 trap 8.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.urdf_plus import load_example
        >>> model = load_example("belt_leg")
        >>> blocks = model.cluster_matrices(model.neutral(), np.ones(model.nv))
        >>> [G_k.shape for G_k, _, _ in blocks]
        [(2, 1), (4, 2)]
        >>> [model.body_names[b] for b in model.clusters[1].bodies]
        ['ankle_rotor', 'shank', 'foot', 'knee_rotor']
        >>> np.round(blocks[1][0], 12) + 0.0  # columns: knee, ankle
        array([[6., 6.],
               [1., 0.],
               [0., 1.],
               [6., 0.]])
        """
        G, g, Gd = self.constraint_matrices(q, v, rate=True)
        return [
            (G[..., c.v_index[:, None], c.y_index[None, :]], g[..., c.v_index],
             Gd[..., c.v_index[:, None], c.y_index[None, :]])
            for c in self.clusters
        ]  # fmt: skip

    def constraint_jacobian(self, q, v=None):
        r"""A full-row-rank velocity constraint on the spanning tree: :math:`K\dot q_s = 0`,
        :math:`K\ddot q_s = k`.

        The loop joints' own speeds are eliminated (rows orthogonal to their columns) and
        redundant rows removed (an orthonormal basis of the row space), so that the KKT
        system of the Lagrange-multiplier method is nonsingular.

        Parameters
        ----------
        q : array_like, shape (nq,)
            A closed configuration (unbatched).
        v : array_like, shape (nv,), optional
            Independent speeds; needed for ``k``.

        Returns
        -------
        K : ndarray, shape (r, n_s)
        k : ndarray, shape (r,)
            Only when ``v`` is given: ``(K, k)``.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            On a malformed or open configuration.

        References
        ----------
        Seed 004 eq. (2) and §2.4 (Lagrange multiplier method).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.urdf_plus import load_example
        >>> model = load_example("four_bar")
        >>> q = model.neutral()
        >>> K = model.constraint_jacobian(q)
        >>> G, _ = model.constraint_matrices(q, np.zeros(model.nv))
        >>> K.shape, bool(np.abs(K @ G).max() < 1e-12)
        ((2, 3), True)
        """
        q = as_array(q, "q", (self.nq,))
        if q.ndim != 1:
            raise DimensionError(f"Expected `q` to have shape ({self.nq},), got {q.shape}.")
        T, q_aux = self._check_single(q)
        st = self.spanning_tree
        J = velocity_map(st, q).reshape(st.n_bodies, 6, st.nv)
        K = self._jacobian_at(q, T, J, q_aux)
        k = None
        if v is not None:
            v = as_array(v, "v", (self.nv,))
            Gh = self._G_hat(K)
            w_hat = Gh @ v
            w, v_aux = w_hat[: self._n_s], w_hat[self._n_s :]
            _, _, Jdot = self._kinematics(q, w)
            k = -self._jacobian_rate_at(q, T, J, Jdot, w, q_aux, v_aux) @ w_hat
        Ka = K[:, self._n_s :]
        if Ka.shape[1]:
            U, s, _ = np.linalg.svd(Ka)
            r = int(np.sum(s > RANK_RTOL * max(1.0, s[0] if s.size else 0.0)))
            P = U[:, r:].T  # rows annihilating the loop joints' speeds
        else:
            P = np.eye(K.shape[0])
        Ks = P @ K[:, : self._n_s]
        U, s, _ = np.linalg.svd(Ks, full_matrices=False)
        r = int(np.sum(s > RANK_RTOL * max(1.0, s[0] if s.size else 0.0)))
        B = U[:, :r].T
        if k is None:
            return B @ Ks
        return B @ Ks, B @ (P @ k)

    # ---- configurations ---------------------------------------------------------------------
    def project(self, q) -> np.ndarray:
        r"""Close the loops: Newton's method on :math:`\phi` for the dependent coordinates,
        the independent ones kept.

        Parameters
        ----------
        q : array_like, shape (..., nq)
            Spanning-tree configurations (the dependent coordinates are the initial guess,
            which selects the assembly branch).

        Returns
        -------
        ndarray, shape (..., nq)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.
        SingularityError
            If Newton's method does not converge (a singular or unreachable configuration).

        References
        ----------
        Seed 004 §6 trap 7 (consistent spanning states by Newton on φ).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.urdf_plus import load_example
        >>> model = load_example("geared_chain")
        >>> q = model.project([0.1] + [0.0] * (model.nq - 1))  # joint1 at 0.1
        >>> q[model.q_slice("joint1")], q[model.q_slice("rotor1_joint")]
        (array([0.1]), array([0.6]))
        """
        q = as_array(q, "q", (self.nq,))
        out = np.array(q, dtype=float, copy=True)
        free = np.concatenate([np.arange(self._n_s)[self.spanning_tree.v_slices[b]]
                               for b in self._dependent] + [np.zeros(0, int)])  # fmt: skip
        for idx in np.ndindex(q.shape[:-1]):
            qi = out[idx]
            T = forward_kinematics(self.spanning_tree, qi)
            out[idx] = self._newton(qi.copy(), self._fit_aux(T), free)[0]
        return out

    def neutral(self) -> np.ndarray:
        """The reference closed configuration (the neutral one when it closes the loops).

        Returns
        -------
        ndarray, shape (nq,)

        Examples
        --------
        >>> from geomech.multibody.urdf_plus import load_example
        >>> load_example("four_bar").neutral()
        array([0., 0., 0.])
        """
        return self._q_ref.copy()

    def _continue(self, q, dy, steps=None, max_step=0.2):
        """Move the independent coordinates by ``dy`` from closed ``q``.

        Euler predictor along G, Newton corrector; steps of at most ``max_step`` keep the
        branch of ``q``.
        """
        st = self.spanning_tree
        free = np.concatenate([np.arange(self._n_s)[st.v_slices[b]] for b in self._dependent]
                              + [np.zeros(0, int)])  # fmt: skip
        n = steps or max(1, int(np.ceil(np.max(np.abs(dy), initial=0.0) / max_step)))
        T = forward_kinematics(st, q)
        q_aux = self._fit_aux(T)
        for _ in range(n):
            J = velocity_map(st, q).reshape(st.n_bodies, 6, st.nv)
            w = self._G_hat(self._jacobian_at(q, T, J, q_aux)) @ (dy / n)
            q = st.integrate(q, w[: self._n_s])  # Euler predictor, loop joints too
            q_aux = q_aux.copy()
            for lp in self._loops:
                q_aux[lp.aux_q] = lp.joint.integrate(q_aux[lp.aux_q], w[self._n_s :][lp.aux_v])
            q, q_aux = self._newton(q, q_aux, free)
            T = forward_kinematics(st, q)
        return q

    def random_configuration(self, rng=None, size=None) -> np.ndarray:
        r"""Random closed configurations.

        Joints outside every cluster are drawn by their own ``random``; the independent
        joints of clusters move from the reference configuration by
        :math:`0.5\,\mathcal N(0, 1)` (rad or model units), followed by continuation (the
        dependent coordinates by Newton's method), with smaller moves if the mechanism
        meets a singular configuration.

        Parameters
        ----------
        rng : None, int or numpy.random.Generator, optional
        size : None, int or tuple of int, optional

        Returns
        -------
        ndarray, shape (*size, nq)

        Raises
        ------
        SingularityError
            If no closed configuration is reached (after halving the moves five times).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.urdf_plus import load_example
        >>> model = load_example("six_bar")
        >>> q = model.random_configuration(rng=1, size=2)
        >>> q.shape, bool(np.abs(model.constraint_residual(q)).max() < 1e-12)
        ((2, 5), True)
        """
        rng = default_rng(rng)
        shape = () if size is None else (int(size),) if np.isscalar(size) else tuple(size)
        st = self.spanning_tree
        out = np.empty(shape + (self.nq,))
        in_cluster = {b for c in self.clusters if c.constraints for b in c.bodies}
        ar = np.arange(st.nv)
        for idx in np.ndindex(shape):
            q = self._q_ref.copy()
            for i, joint in enumerate(st.joints):
                if i not in in_cluster and joint.nq:
                    q[st.q_slices[i]] = joint.random_configuration(rng)
            scale = 0.5
            for _attempt in range(6):
                dy = np.zeros(self._n_s)
                for c in self.clusters:
                    for b in c.independent:
                        dy[ar[st.v_slices[b]]] = scale * rng.standard_normal(st.joints[b].nv)
                try:
                    q_new = self._continue(q, dy[self.independent_v_index])
                    break
                except SingularityError:
                    scale /= 2
            else:
                raise SingularityError(
                    "Expected to reach a random closed configuration, got singular "
                    "configurations on every attempt."
                )
            out[idx] = q_new
        return out

    def integrate(self, q, v, dt=1.0) -> np.ndarray:
        r"""Move along the closed manifold with independent speeds ``v`` for time ``dt``.

        The independent coordinates follow :math:`q_Y \oplus v\,\mathrm dt` (exactly for
        1-DoF joints) and the dependent ones are restored by Newton's method, by
        continuation in steps of at most 0.2 (the branch of ``q`` is kept).

        Parameters
        ----------
        q : array_like, shape (..., nq)
            Closed configurations.
        v : array_like, shape (..., nv)
        dt : float or array_like, shape (...), optional

        Returns
        -------
        ndarray, shape (..., nq)

        Raises
        ------
        NotOnManifoldError
            If ``q`` does not close the loops.
        SingularityError
            If the continuation meets a singular configuration.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.urdf_plus import load_example
        >>> model = load_example("four_bar")
        >>> q = model.integrate(model.neutral(), [1.0], 0.3)
        >>> round(float(q[0]), 12), bool(np.abs(model.constraint_residual(q)).max() < 1e-12)
        (0.3, True)
        """
        q = self.check_configuration(q)
        v = as_array(v, "v", (self.nv,))
        dt = as_array(dt, "dt")
        v = v * dt[..., None]
        batch = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
        q = np.broadcast_to(q, batch + (self.nq,))
        v = np.broadcast_to(v, batch + (self.nv,))
        out = np.empty(batch + (self.nq,))
        for idx in np.ndindex(batch):
            out[idx] = self._continue(q[idx].copy(), v[idx])
        return out

    def difference(self, q0, q1) -> np.ndarray:
        r"""Independent speeds moving ``q0`` to ``q1`` in unit time (the independent joints'
        own differences; exact inverse of :meth:`integrate` for 1-DoF joints).

        Parameters
        ----------
        q0, q1 : array_like, shape (..., nq)

        Returns
        -------
        ndarray, shape (..., nv)

        Raises
        ------
        DimensionError, NonFiniteError
            If an input is malformed.

        Examples
        --------
        >>> from geomech.multibody.urdf_plus import load_example
        >>> model = load_example("four_bar")
        >>> q1 = model.integrate(model.neutral(), [1.0], 0.3)
        >>> model.difference(model.neutral(), q1).round(12)
        array([0.3])
        """
        d = self.spanning_tree.difference(q0, q1)
        return d[..., self.independent_v_index]

    @property
    def compiled(self):
        """Not defined for a closed model: its speeds are the independent ones.

        Raises
        ------
        ModelError
            Always; the compiled arrays of the spanning tree are
            ``model.spanning_tree.compiled``.

        Examples
        --------
        >>> from geomech.multibody.urdf_plus import load_example
        >>> load_example("four_bar").compiled
        Traceback (most recent call last):
            ...
        geomech.errors.ModelError: A closed model has no compiled tree arrays of its own (its v holds the independent speeds); use model.spanning_tree.compiled with the spanning-tree speeds G v.
        """
        raise ModelError(
            "A closed model has no compiled tree arrays of its own (its v holds the independent "
            "speeds); use model.spanning_tree.compiled with the spanning-tree speeds G v."
        )

    def _one_dof_split(self):
        raise ModelError(
            "A closed model has no joint-wise chart of its speeds; use model.spanning_tree "
            "and model.constraint_matrices."
        )

    # ---- topology and layout (the spanning tree's) ------------------------------------------
    def body_index(self, name) -> int:
        """Index of a body (see :meth:`MultibodyModel.body_index`).

        Parameters
        ----------
        name : str or hashable

        Returns
        -------
        int

        Raises
        ------
        ModelError
            If no body has that name.

        Examples
        --------
        >>> from geomech.multibody.urdf_plus import load_example
        >>> load_example("four_bar").body_index("rocker")
        2
        """
        return self.spanning_tree.body_index(name)

    def supports(self, i: int) -> list[int]:
        """Support set of body ``i`` in the spanning tree (see :meth:`MultibodyModel.supports`).

        Parameters
        ----------
        i : int

        Returns
        -------
        list of int

        Raises
        ------
        ModelError
            If ``i`` is not a body index.

        Examples
        --------
        >>> from geomech.multibody.urdf_plus import load_example
        >>> load_example("four_bar").supports(1)
        [0, 1]
        """
        return self.spanning_tree.supports(i)

    def subtree(self, i: int) -> list[int]:
        """Subtree of body ``i`` in the spanning tree (see :meth:`MultibodyModel.subtree`).

        Parameters
        ----------
        i : int

        Returns
        -------
        list of int

        Raises
        ------
        ModelError
            If ``i`` is not a body index.

        Examples
        --------
        >>> from geomech.multibody.urdf_plus import load_example
        >>> load_example("four_bar").subtree(0)
        [0, 1]
        """
        return self.spanning_tree.subtree(i)

    def children(self, i: int) -> list[int]:
        """Children of body ``i`` in the spanning tree (see :meth:`MultibodyModel.children`).

        Parameters
        ----------
        i : int

        Returns
        -------
        list of int

        Raises
        ------
        ModelError
            If ``i`` is not a body index.

        Examples
        --------
        >>> from geomech.multibody.urdf_plus import load_example
        >>> load_example("four_bar").children(0)
        [1]
        """
        return self.spanning_tree.children(i)

    def q_slice(self, joint_name: str) -> slice:
        """Slice of ``q`` of a spanning-tree joint.

        Parameters
        ----------
        joint_name : str

        Returns
        -------
        slice

        Raises
        ------
        ModelError
            If there is no joint of that name.

        Examples
        --------
        >>> from geomech.multibody.urdf_plus import load_example
        >>> load_example("four_bar").q_slice("rocker_joint")
        slice(2, 3, None)
        """
        return self.spanning_tree.q_slice(joint_name)

    def v_slice(self, joint_name: str) -> slice:
        """Slice of ``v`` of an independent joint.

        Parameters
        ----------
        joint_name : str

        Returns
        -------
        slice

        Raises
        ------
        ModelError
            If there is no joint of that name or it is dependent.

        Examples
        --------
        >>> from geomech.multibody.urdf_plus import load_example
        >>> load_example("four_bar").v_slice("crank_joint")
        slice(0, 1, None)
        """
        i = self.spanning_tree._joint(joint_name)
        if i in self._dependent:
            raise ModelError(
                f"joint {joint_name!r} is dependent: its speeds are not part of v (they are "
                "G v, model.constraint_matrices); independent joints: "
                f"{self.independent_joints!r}."
            )
        return self.v_slices[i]

    def summary(self) -> str:
        """Bodies, degrees of freedom, constraints and clusters.

        Returns
        -------
        str

        Examples
        --------
        >>> from geomech.multibody.urdf_plus import load_example
        >>> print(load_example("four_bar").summary())
        ClosedMultibodyModel 'four_bar': 3 bodies, nq = 3, nv = 1, depth 2
          joints: revolute x3
          loop joints: C (revolute)
          independent: crank_joint
          clusters: 1 (largest: 3 bodies)
        """
        name = self.graph.graph.get("name")
        head = "ClosedMultibodyModel" + (f" {name!r}" if name else "")
        kinds = ", ".join(f"{k} x{n}" for k, n in self.joint_types().items())
        lines = [f"{head}: {self.n_bodies} bodies, nq = {self.nq}, nv = {self.nv}, "
                 f"depth {self.depth}", f"  joints: {kinds}"]  # fmt: skip
        for kind, label in (("loop", "loop joints"), ("coupling", "couplings"),
                            ("implicit", "constraints")):  # fmt: skip
            items = [c for c in self.constraints if c.kind == kind]
            if items:
                desc = [f"{c.name} ({c.joint.kind})" if kind == "loop" else
                        f"{c.name} (ratio {c.ratio:g})" if kind == "coupling" else c.name
                        for c in items]  # fmt: skip
                lines.append(f"  {label}: " + ", ".join(desc))
        lines.append("  independent: " + ", ".join(self.independent_joints))
        big = max((c.n_bodies for c in self.clusters), default=0)
        lines.append(f"  clusters: {len(self.clusters)} (largest: {big} bodies)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"<ClosedMultibodyModel: {self.n_bodies} bodies, nq={self.nq}, nv={self.nv}, "
            f"{len(self.constraints)} constraints, {len(self.clusters)} clusters>"
        )


# MultibodyModel(graph) builds a ClosedMultibodyModel for graphs that declare closures
MultibodyModel._closed_variant = (declares_closures, ClosedMultibodyModel)
