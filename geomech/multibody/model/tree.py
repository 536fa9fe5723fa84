r"""The multibody model: a kinematic tree stored as a ``networkx.DiGraph``.

Nodes are bodies, edges ``parent → child`` are joints. The unique node without a parent is
the fixed base ("world"); every other node carries a spatial ``inertia`` (6×6, about the
body-frame origin, in body axes) and every edge a :class:`~geomech.multibody.model.joints.Joint`
and an optional ``placement`` (the 4×4 pose of the joint frame in the parent body frame).

:class:`MultibodyModel` derives from the graph what the recursive algorithms need: the
*regular numbering* of the bodies (depth-first pre-order from the root, following each
node's successors in insertion order, so that ``parent[i] < i`` and every subtree is a
contiguous index range), the parent array, the tree transforms
:math:`\mathbf X_T(i)` (``X_tree``), the depth :math:`d`, supports :math:`\kappa(i)`,
subtrees :math:`\nu(i)` and children :math:`\mu(i)`, and the layout of ``q`` and ``v``.

The graph is data: the model keeps a private frozen copy in :attr:`MultibodyModel.graph` and
never mutates the caller's graph; algorithms are functions of ``(model, q, ...)`` that return
their results. A model is immutable once built (read-only arrays, frozen lists, graph and
joints; rebinding an attribute raises :class:`~geomech.errors.ImmutableModelError`), so what
it caches (its compiled arrays) always describes it.

References
----------
Seed 001 §1.2 (tree encoding, depth, ``p(i) < i``); seed 004 §1.1 (regular numbering, κ, μ,
ν); R. Featherstone, *Rigid Body Dynamics Algorithms*, 2008, §4.1–4.2.
"""

from __future__ import annotations

from collections import Counter

import networkx as nx
import numpy as np

from geomech._validation import (
    MANIFOLD_TOL,
    as_array,
    check_placement,
    check_size,
    default_rng,
)
from geomech.errors import GeomechError, ModelError, NotATreeError
from geomech.multibody.model.joints import Joint
from geomech.multibody.model.system import MultibodySystem
from geomech.spatial import plucker_from_pose

__all__ = ["MultibodyModel", "check_inertia", "declares_closures"]


def check_inertia(inertia, name: str = "inertia", *, strict: bool = True) -> np.ndarray:
    r"""Validate a body's spatial inertia (massless bodies allowed) and return it as an array.

    Accepted are symmetric 6×6 matrices of spatial-inertia form

    .. math:: \mathbf I = \begin{bmatrix}\bar{\mathbf I}_O & \mathbf S(\mathbf h)\\
              \mathbf S(\mathbf h)^\top & m\mathbf 1\end{bmatrix}

    with :math:`m \ge 0` and :math:`\mathbf I \succeq 0` (positive semi-definite, relative
    tolerance 1e-9). The zero matrix (a massless body) is accepted. Physical consistency
    (the triangle inequalities, :func:`geomech.spatial.is_physically_consistent`) is not
    required, so that inertias from real URDFs load as Pinocchio loads them. A positive mass
    below the smallest normal double (``2.2e-308``, a subnormal number: it has lost digits
    and its reciprocal overflows) is refused. The eigenvalues are computed on ``I / max|I|``,
    so entries up to ``1.8e308`` do not overflow.

    Parameters
    ----------
    inertia : array_like, shape (6, 6)
        Spatial inertia about the body-frame origin.
    name : str
        Name used in error messages (e.g. ``"inertia of body 'thigh'"``).
    strict : bool, optional
        If False, a negative mass and an indefinite matrix are accepted (the form, symmetry
        and finiteness are still required): the lenient loading of real files
        (``load_urdf(..., strict=False)``), whose inertias are then kept as written.

    Returns
    -------
    ndarray, shape (6, 6)

    Raises
    ------
    ModelError
        If the matrix has the wrong shape, non-finite entries, is not symmetric, not of
        spatial-inertia form, has a subnormal mass, or (``strict``) has a negative mass or
        is not positive semi-definite.

    References
    ----------
    Seed 001 §1.3 (spatial inertia); Featherstone 2008, §2.13.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.model.tree import check_inertia
    >>> check_inertia(np.zeros((6, 6))).shape
    (6, 6)
    >>> check_inertia(-np.eye(6), "inertia of body 'b1'")
    Traceback (most recent call last):
        ...
    geomech.errors.ModelError: Expected `inertia of body 'b1'` to have a nonnegative mass, got -1.
    """
    try:
        I = as_array(inertia, name, (6, 6))  # noqa: E741
    except GeomechError as exc:
        raise ModelError(str(exc)) from exc
    if I.ndim != 2:
        raise ModelError(f"Expected `{name}` to have shape (6, 6), got {I.shape}.")
    scale = max(1.0, float(np.max(np.abs(I))))
    asym = float(np.max(np.abs(I - I.T)))
    if asym > MANIFOLD_TOL * scale:
        raise ModelError(f"Expected `{name}` to be symmetric, got asymmetry {asym:.3g}.")
    m = I[5, 5]
    if m < 0 and strict:
        raise ModelError(f"Expected `{name}` to have a nonnegative mass, got {m:.3g}.")
    if 0.0 < abs(m) < np.finfo(float).tiny:
        raise ModelError(
            f"Expected `{name}` to have a mass of 0 or at least {np.finfo(float).tiny:.3g} in "
            f"magnitude (a normal double), got the subnormal {m:.3g}."
        )
    lower = I[3:, 3:] - m * np.eye(3)
    off = I[:3, 3:]
    if np.max(np.abs(lower)) > MANIFOLD_TOL * scale or np.max(np.abs(off + off.T)) > (
        MANIFOLD_TOL * scale
    ):
        raise ModelError(
            f"Expected `{name}` to be a spatial inertia [[I_O, S(h)], [S(h)ᵀ, m 1]], got "
            f"{np.round(I, 6).tolist()}."
        )
    if not strict:
        return I
    J = I / scale  # entries in [-1, 1]: the eigenvalue solver cannot overflow
    lam = scale * float(np.linalg.eigvalsh(0.5 * (J + J.T))[0])
    if lam < -1e-9 * scale:
        raise ModelError(
            f"Expected `{name}` to be positive semi-definite, got smallest eigenvalue {lam:.3g}."
        )
    return I


def _as_6x6(inertia, name: str) -> np.ndarray:
    try:
        I = as_array(inertia, name, (6, 6))  # noqa: E741
    except GeomechError as exc:
        raise ModelError(str(exc)) from exc
    if I.ndim != 2:
        raise ModelError(f"Expected `{name}` to have shape (6, 6), got {I.shape}.")
    return I


def _as_4x4(T, label: str) -> np.ndarray:
    try:
        T = as_array(T, f"placement of {label}", (4, 4))
    except GeomechError as exc:
        raise ModelError(str(exc)) from exc
    if T.ndim != 2:
        raise ModelError(f"Expected `placement` of {label} to have shape (4, 4), got {T.shape}.")
    return T


#: the edge attributes of a joint's dynamics, per speed: (name, lower bound, default)
_JOINT_DYNAMICS = ("armature", "damping", "friction")


def _per_coordinate(value, n: int, what: str, *, low=None) -> np.ndarray:
    """``value`` (a number, a numeric string, or ``n`` of them) as a float array of ``n``.

    NaN is refused; ``low`` is an inclusive lower bound (``inf`` allowed above it).
    """
    if isinstance(value, str):
        value = value.split()
    try:
        x = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"Expected {what} to be a number or {n} numbers, got {value!r}.") from exc
    if x.ndim == 1 and x.shape[0] == 1:
        x = x[0]
    if x.ndim == 0:
        x = np.full(n, float(x))
    if x.shape != (n,):
        raise ModelError(f"Expected {what} to be a number or {n} numbers, got shape {x.shape}.")
    if np.any(np.isnan(x)) or (low is not None and np.any(x < low)):
        bound = "" if low is None else f" of at least {low:g}"
        raise ModelError(f"Expected {what} to be numbers{bound}, got {x.tolist()}.")
    return x


def _joint_dynamics(edge: dict, joint: Joint, label: str) -> tuple:
    """``(armature, damping, friction, velocity, effort)`` (each (nv_i,)) and ``(lower, upper)``
    (each (nq_i,)) of one edge's joint (see :class:`MultibodyModel`, "Joint dynamics").
    """
    nq, nv = joint.nq, joint.nv
    out = [
        _per_coordinate(edge.get(k, 0.0), nv, f"`{k}` of {label}", low=0.0) for k in _JOINT_DYNAMICS
    ]
    if any(np.any(np.isinf(x)) for x in out):
        raise ModelError(f"Expected finite armature, damping and friction on {label}.")
    limits = edge.get("limits") or {}
    if not hasattr(limits, "get"):
        raise ModelError(f"Expected `limits` of {label} to be a dict, got {limits!r}.")
    lower = _per_coordinate(limits.get("lower", -np.inf), nq, f"`limits['lower']` of {label}")
    upper = _per_coordinate(limits.get("upper", np.inf), nq, f"`limits['upper']` of {label}")
    if np.any(lower > upper):
        raise ModelError(
            f"Expected `limits['lower']` <= `limits['upper']` on {label}, got {lower.tolist()} "
            f"and {upper.tolist()}."
        )
    for k in ("velocity", "effort"):
        out.append(
            _per_coordinate(limits.get(k, np.inf), nv, f"`limits['{k}']` of {label}", low=0.0)
        )
    return tuple(out), (lower, upper)


def _stack_joint_dynamics(dynamics: list) -> tuple:
    """The model's arrays of :func:`_joint_dynamics` results, joint blocks end to end."""
    per_speed = [np.concatenate([d[0][k] for d in dynamics] + [np.zeros(0)]) for k in range(5)]
    per_coordinate = [np.concatenate([d[1][k] for d in dynamics] + [np.zeros(0)]) for k in range(2)]
    return per_speed, per_coordinate


def _failing_inertias(I: np.ndarray, strict: bool) -> np.ndarray:  # noqa: E741
    """Indices of the inertias (N, 6, 6) that :func:`check_inertia` rejects (its tests, batched)."""
    if I.shape[0] == 0:
        return np.zeros(0, dtype=int)
    scale = np.maximum(1.0, np.max(np.abs(I), axis=(-1, -2)))
    tol = MANIFOLD_TOL * scale
    m = I[:, 5, 5]
    bad = np.max(np.abs(I - np.swapaxes(I, -1, -2)), axis=(-1, -2)) > tol
    bad |= (0.0 < np.abs(m)) & (np.abs(m) < np.finfo(float).tiny)
    bad |= np.max(np.abs(I[:, 3:, 3:] - m[:, None, None] * np.eye(3)), axis=(-1, -2)) > tol
    off = I[:, :3, 3:]
    bad |= np.max(np.abs(off + np.swapaxes(off, -1, -2)), axis=(-1, -2)) > tol
    if strict:
        bad |= m < 0
        J = I / scale[:, None, None]  # entries in [-1, 1]: the eigenvalue solver cannot overflow
        lam = np.linalg.eigvalsh(0.5 * (J + np.swapaxes(J, -1, -2)))[:, 0]
        bad |= lam < -1e-9
    return np.flatnonzero(bad)


def _failing_placements(T: np.ndarray) -> np.ndarray:
    """Indices of the placements (N, 4, 4) that :func:`check_placement` rejects (batched)."""
    if T.shape[0] == 0:
        return np.zeros(0, dtype=int)
    R = T[:, :3, :3]
    bad = np.max(np.abs(T[:, 3] - [0.0, 0.0, 0.0, 1.0]), axis=-1) > MANIFOLD_TOL
    bad |= np.max(np.abs(R @ np.swapaxes(R, -1, -2) - np.eye(3)), axis=(-1, -2)) > MANIFOLD_TOL
    bad |= np.linalg.det(R) <= 0
    return np.flatnonzero(bad)


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
    >>> from geomech.multibody.model.tree import declares_closures
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


def _check_tree(graph: nx.DiGraph) -> None:
    """A rooted tree, or the named error that says where it is not (its cycle, its roots)."""
    # fast path (linear): one root, every other node one parent, all reached from the root
    roots = [n for n, d in graph.in_degree() if d == 0]
    if len(roots) == 1 and all(d <= 1 for _, d in graph.in_degree()):
        seen, stack = {roots[0]}, [roots[0]]
        while stack:
            for child in graph.successors(stack.pop()):
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
        if len(seen) == graph.number_of_nodes():
            return
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        cycle = None
    hint = (
        "kinematic loops must be declared: mark one edge of the cycle as a loop joint "
        "(edge attribute kind='loop') or a coupling (kind='coupling'), so that the other "
        "edges form a spanning tree"
    )
    if cycle:
        nodes = [u for u, _ in cycle]
        raise NotATreeError(f"The kinematic graph has a cycle through nodes {nodes!r}: {hint}.")
    for node, deg in graph.in_degree():
        if deg > 1:
            try:
                cycle = [u for u, _ in nx.find_cycle(graph.to_undirected(as_view=True), node)]
            except nx.NetworkXNoCycle:  # pragma: no cover - two parents always close a cycle
                cycle = [node]
            raise NotATreeError(
                f"Node {node!r} has {deg} parents {list(graph.predecessors(node))!r}: the "
                f"kinematic graph has a cycle through nodes {cycle!r}: {hint}."
            )
    roots = [n for n, d in graph.in_degree() if d == 0]
    if len(roots) != 1:
        raise NotATreeError(
            f"Expected exactly one root (a node without parent, the fixed base), got "
            f"{len(roots)}: {roots!r}."
        )


def _graph_from_bodies(parent, joints, inertias, placements, body_names, joint_names, root):
    """The graph of :meth:`MultibodyModel.from_bodies`: body ``i`` hangs from ``parent[i]``."""
    N = len(parent)
    if len(joints) != N or len(inertias) != N:
        raise ModelError(
            f"Expected `parent`, `joints` and `inertias` of equal length, got {N}, "
            f"{len(joints)} and {len(inertias)}."
        )
    if placements is not None and len(placements) != N:
        raise ModelError(f"Expected {N} placements, got {len(placements)}.")
    body_names = [f"body{i}" for i in range(N)] if body_names is None else list(body_names)
    if joint_names is None:
        joint_names = [j.name if j.name is not None else f"joint{i}" for i, j in enumerate(joints)]
    G = nx.DiGraph()
    G.add_node(root)
    for i in range(N):
        G.add_node(body_names[i], inertia=inertias[i])
    for i in range(N):
        p = parent[i]
        if not -1 <= p < N:
            raise ModelError(f"Expected parent[{i}] in [-1, {N - 1}], got {p}.")
        attrs = {"joint": joints[i], "name": joint_names[i]}
        if placements is not None:
            attrs["placement"] = placements[i]
        G.add_edge(root if p < 0 else body_names[p], body_names[i], **attrs)
    return G


def _quaternion_columns(model) -> tuple[tuple[int, int], ...]:
    """``(body index, first column in q)`` of each unit quaternion of a tree, cached.

    Those of the spherical joints and of the free flyers' rotations.
    """
    cols = model.__dict__.get("_quaternions")
    if cols is None:
        cols = tuple(
            (i, qs.start + (3 if joint.kind == "free_flyer" else 0))
            for i, (joint, qs) in enumerate(zip(model.joints, model.q_slices, strict=True))
            if joint.kind in ("spherical", "free_flyer")
        )
        model._quaternions = cols
    return cols


class MultibodyModel(MultibodySystem):
    r"""A kinematic tree of rigid bodies built from a ``networkx.DiGraph``; a mechanical system.

    A model is a :class:`~geomech.geometry.MechanicalSystem` (so every tool of
    :mod:`geomech.geometry`, :func:`geomech.simulate` and :class:`geomech.control.SlotineLi`
    accepts it): its configurations are the flat vectors ``q``, its frame the joint frame of
    its speeds (:class:`~geomech.multibody.model.frame.JointFrame`), its metric the mass matrix and
    its potential gravity's, :math:`V(q) = -\mathbf g^\top\sum_i m_i\mathbf c_i(q)`. The
    recursive algorithms are the fast overrides of the generic formulas:
    :meth:`mass_matrix` is CRBA, :meth:`mass_matrix_derivative` and :meth:`coriolis_matrix`
    seed 000 Alg. 1, the Levi-Civita coefficients (the Koszul formula) Alg. 2,
    :meth:`gravity_forces` RNEA and :meth:`forward_dynamics` ABA.

    Parameters
    ----------
    graph : networkx.DiGraph
        Edges point from parent to child. The unique node with in-degree 0 is the fixed base
        (its attributes are ignored). Every other node needs the attribute ``inertia``
        (6×6 spatial inertia about the body-frame origin, body axes; zeros for a massless
        body) and may have ``name`` (default ``str(node)``) and any metadata. Every edge
        needs ``joint`` (a :class:`~geomech.multibody.model.joints.Joint`) and may have
        ``placement`` (4×4 pose of the joint frame in the parent body frame, default
        identity) and ``name`` (default the joint's own name, else the child's name), and
        ``armature``, ``damping``, ``friction`` (a number or one per speed, ``>= 0``,
        default 0) and ``limits`` (a dict of ``lower``, ``upper`` per coordinate,
        ``velocity``, ``effort`` per speed; numbers or numeric strings, as
        :func:`~geomech.load_urdf` keeps ``<limit>``; absent bounds are infinite).
    gravity : array_like, shape (3,), optional
        Gravitational acceleration in the base frame; default ``[0, 0, -9.81]``.
    strict : bool, optional
        Whether body inertias must be physical (nonnegative mass, positive semi-definite;
        :func:`check_inertia`). Default: ``graph.graph.get("strict", True)``, so that a model
        loaded leniently (``load_urdf(..., strict=False)`` sets the graph attribute) stays
        lenient when rebuilt from its graph (e.g. by :meth:`with_inertias`).

    Attributes
    ----------
    graph : networkx.DiGraph
        A frozen copy of the graph the model was built from (``networkx.freeze``; attribute
        dictionaries read-only, arrays read-only copies; ``graph.copy()`` is mutable). The
        caller's graph is never mutated; its joints are frozen with the model.
    root : hashable
        The base node.
    nodes : list
        Graph nodes of the bodies in regular order (index ``i`` ↔ ``nodes[i]``).
    n_bodies : int
        Number of bodies ``N`` (the base excluded).
    body_names, joint_names : list of str
        Names of body ``i`` and of the joint into body ``i`` (the order of the ``q`` and
        ``v`` blocks).
    parent : ndarray of int, shape (N,)
        Parent index, ``parent[i] < i``; ``-1`` for a body attached to the base.
    joints : list of Joint
        The joint into body ``i``.
    X_tree : ndarray, shape (N, 6, 6)
        Tree transforms :math:`\mathbf X_T(i)` = ``plucker_from_pose(placement)`` (parent
        frame → joint frame), so
        :math:`{}^i\mathbf X_{p(i)} = \mathbf X_J(\mathbf q_i)\mathbf X_T(i)`.
    placements : ndarray, shape (N, 4, 4)
        The joint placements.
    inertias : ndarray, shape (N, 6, 6)
        Body spatial inertias.
    q_slices, v_slices : list of slice
        Blocks of ``q`` and ``v`` of each body's joint.
    nq, nv : int
        Sizes of ``q`` and ``v``.
    depth : int
        Largest number of bodies on a root-to-leaf path (seed 001's :math:`d`).
    gravity : ndarray, shape (3,)
        Gravitational acceleration in the base frame.
    armature, damping, friction, velocity_limit, effort_limit : ndarray, shape (nv,)
        Per speed: reflected rotor inertia (:math:`\mathbf H \mathrel{+}=
        \mathrm{diag}(\text{armature})`), viscous and Coulomb friction coefficients, bounds.
    lower_position_limit, upper_position_limit : ndarray, shape (nq,)
        Position bounds (Pinocchio's names, camel case; infinite where none is given).

    Raises
    ------
    ModelError
        If the graph declares loop joints, couplings or implicit constraints (build a
        :class:`~geomech.multibody.closed.model.ClosedMultibodyModel` from it), or if
        ``graph`` is not a ``networkx.DiGraph``, is empty, a body has no or a bad
        ``inertia``, an edge has no :class:`Joint` or a bad ``placement``, or body or joint
        names repeat. Messages name the node or edge.
    NotATreeError
        If the graph has a cycle, a node with two parents, or more than one root (the message
        names the cycle).

    Notes
    -----
    ``rnea``, ``crba``, ``aba``, :meth:`mass_matrix` and :meth:`kinetic_energy` include the
    armature (as Pinocchio's do), not the joint friction torque :math:`-k_d\nu -
    k_f\operatorname{sign}\nu`, which :meth:`forward_dynamics` and :func:`geomech.simulate`
    add; no algorithm clamps to the limits (conventions page, "Joint armature, damping,
    friction and limits").

    References
    ----------
    Seed 001 §1.2; seed 004 §1.1; Featherstone 2008, §4.1–4.2.

    Examples
    --------
    A planar double pendulum (point masses of 1 kg on 1 m links, revolute about y):

    >>> import networkx as nx
    >>> import numpy as np
    >>> from geomech.multibody import MultibodyModel, Revolute
    >>> from geomech.spatial import spatial_inertia
    >>> I = spatial_inertia(1.0, [0.0, 0.0, -1.0], np.zeros((3, 3)))
    >>> T = np.eye(4); T[2, 3] = -1.0
    >>> G = nx.DiGraph()
    >>> G.add_edge("world", "link1", joint=Revolute([0, 1, 0]), name="shoulder")
    >>> G.add_edge("link1", "link2", joint=Revolute([0, 1, 0]), placement=T, name="elbow")
    >>> nx.set_node_attributes(G, {"link1": I, "link2": I}, "inertia")
    >>> model = MultibodyModel(G)
    >>> model.nq, model.nv, model.parent, model.joint_names
    (2, 2, array([-1,  0]), ['shoulder', 'elbow'])
    """

    def __init__(self, graph, *, gravity=None, strict: bool | None = None):
        if not isinstance(graph, nx.DiGraph) or graph.is_multigraph():
            raise ModelError(
                f"Expected `graph` to be a networkx.DiGraph, got {type(graph).__name__}."
            )
        if graph.number_of_nodes() == 0:
            raise ModelError("Expected `graph` to have a base node and bodies, got an empty graph.")
        self.graph = graph
        strict = bool(graph.graph.get("strict", True)) if strict is None else bool(strict)
        if declares_closures(graph):
            raise ModelError(
                "The graph declares loop joints, couplings or constraints: build it with "
                "ClosedMultibodyModel(graph) (load_urdf picks the kind of model itself)."
            )
        _check_tree(graph)
        (self.root,) = [n for n, d in graph.in_degree() if d == 0]

        # ---- regular numbering: depth-first pre-order (parent[i] < i, subtrees contiguous)
        order = []
        stack = list(reversed(list(graph.successors(self.root))))
        while stack:
            node = stack.pop()
            order.append(node)
            stack.extend(reversed(list(graph.successors(node))))
        self.nodes = order
        index = {node: i for i, node in enumerate(order)}
        self._index = index
        N = len(order)
        self.n_bodies = N

        parent = np.full(N, -1, dtype=int)
        joints, joint_names, body_names = [], [], []
        placements = np.tile(np.eye(4), (N, 1, 1))
        inertias = np.zeros((N, 6, 6))
        dynamics = []  # per joint: (armature, damping, friction, velocity, effort), (lower, upper)
        for i, node in enumerate(order):
            (pnode,) = graph.predecessors(node)
            parent[i] = index.get(pnode, -1)
            attrs = graph.nodes[node]
            body_names.append(str(attrs.get("name", node)))
            if "inertia" not in attrs:
                raise ModelError(
                    f"Body {node!r} has no 'inertia' attribute: every node except the base "
                    f"{self.root!r} needs a 6x6 spatial inertia (zeros for a massless body)."
                )
            inertias[i] = _as_6x6(attrs["inertia"], f"inertia of body {node!r}")
            edge = graph.edges[pnode, node]
            label = f"edge ({pnode!r}, {node!r})"
            joint = edge.get("joint")
            if not isinstance(joint, Joint):
                raise ModelError(
                    f"Expected the 'joint' attribute of {label} to be a geomech Joint, "
                    f"got {type(joint).__name__}."
                )
            joints.append(joint)
            name = edge.get("name", joint.name if joint.name is not None else body_names[-1])
            joint_names.append(str(name))
            if edge.get("placement") is not None:
                placements[i] = _as_4x4(edge["placement"], label)
            dynamics.append(_joint_dynamics(edge, joint, label))
        # the numerical checks, vectorised over the bodies (the first failure is re-checked
        # alone for its message): linear time for large models
        for k in _failing_inertias(inertias, strict):
            check_inertia(inertias[k], f"inertia of body {order[k]!r}", strict=strict)
        for k in _failing_placements(placements):
            (pk,) = graph.predecessors(order[k])
            check_placement(placements[k], f"edge ({pk!r}, {order[k]!r})")
        for kind, names in (("body", body_names), ("joint", joint_names)):
            dup = [n for n, c in Counter(names).items() if c > 1]
            if dup:
                raise ModelError(f"Expected unique {kind} names, got {dup[0]!r} more than once.")

        self.parent = parent
        self.joints = joints
        self.joint_names = joint_names
        self.body_names = body_names
        self.placements = placements
        self.X_tree = plucker_from_pose(placements)
        self.inertias = inertias
        self._children = [[] for _ in range(N)]
        for i in range(N):
            if parent[i] >= 0:
                self._children[parent[i]].append(i)

        # ---- layout of q and v
        self.q_slices, self.v_slices = [], []
        iq = iv = 0
        for joint in joints:
            self.q_slices.append(slice(iq, iq + joint.nq))
            self.v_slices.append(slice(iv, iv + joint.nv))
            iq += joint.nq
            iv += joint.nv
        self.nq, self.nv = iq, iv
        speeds, coords = _stack_joint_dynamics(dynamics)
        self.armature, self.damping, self.friction, self.velocity_limit, self.effort_limit = speeds
        self.lower_position_limit, self.upper_position_limit = coords
        self._joint_index = {name: i for i, name in enumerate(joint_names)}

        # ---- depths and subtree sizes (supports κ(i) are walked on demand: memory O(N))
        level = np.zeros(N, dtype=int)
        for i in range(N):
            level[i] = 1 if parent[i] < 0 else level[parent[i]] + 1
        self.depth = int(level.max(initial=0))
        size = np.ones(N, dtype=int)
        for i in range(N - 1, -1, -1):
            if parent[i] >= 0:
                size[parent[i]] += size[i]
        self._subtree_size = size

        self.gravity = (
            np.array([0.0, 0.0, -9.81])
            if gravity is None
            else as_array(gravity, "gravity", (3,)).copy()
        )
        # the model is immutable once built (its compiled arrays are cached)
        for array in (self.gravity, self.parent, self.placements, self.X_tree, self.inertias):
            array.flags.writeable = False
        self._init_system()

    # ------------------------------------------------------------------------------------
    # the model as a MechanicalSystem (seed 000 §II): frame, metric, potential, fast overrides
    # ------------------------------------------------------------------------------------

    # ------------------------------------------------------------------------------------

    @classmethod
    def from_bodies(
        cls,
        parent,
        joints,
        inertias,
        placements=None,
        *,
        body_names=None,
        joint_names=None,
        root: str = "world",
        gravity=None,
        name: str | None = None,
    ) -> MultibodyModel:
        """Build a model from a parent array (Featherstone's ``λ``) instead of a graph.

        Parameters
        ----------
        parent : sequence of int, length N
            ``parent[i]`` is the index of body ``i``'s parent, ``-1`` for the base; it need
            not satisfy ``parent[i] < i`` (the model renumbers).
        joints : sequence of Joint, length N
            Joint into body ``i``.
        inertias : array_like, shape (N, 6, 6)
            Spatial inertias.
        placements : array_like, shape (N, 4, 4), optional
            Joint placements in the parent frame (default identities).
        body_names, joint_names : sequence of str, optional
            Default ``"body{i}"`` and the joints' own names, else ``"joint{i}"``.
        root : str
            Name of the base node.
        gravity : array_like, shape (3,), optional
            Default ``[0, 0, -9.81]``.
        name : str, optional
            The model's name (the graph attribute ``name``; :meth:`summary`, ``to_urdf``).

        Returns
        -------
        MultibodyModel

        Raises
        ------
        ModelError, NotATreeError
            As :class:`MultibodyModel`, and if the lengths disagree.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody import MultibodyModel, Revolute
        >>> from geomech.spatial import spatial_inertia
        >>> I = spatial_inertia(1.0, [0.5, 0, 0], np.eye(3) * 0.01)
        >>> m = MultibodyModel.from_bodies([-1, 0, 0], [Revolute([0, 0, 1])] * 3, [I] * 3)
        >>> m.parent, m.depth, m.body_names
        (array([-1,  0,  0]), 2, ['body0', 'body1', 'body2'])
        """
        G = _graph_from_bodies(parent, joints, inertias, placements, body_names, joint_names, root)
        if name is not None:
            G.graph["name"] = str(name)
        return cls(G, gravity=gravity)

    # ------------------------------------------------------------------------------------
    # Topology
    # ------------------------------------------------------------------------------------
    def body_index(self, name) -> int:
        """Index of a body from its name (or graph node).

        Parameters
        ----------
        name : str or hashable
            Body name or graph node.

        Returns
        -------
        int

        Raises
        ------
        ModelError
            If no body has that name.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.double_pendulum().body_index("link2")
        1
        """
        if name in self._index:
            return self._index[name]
        if name in self.body_names:
            return self.body_names.index(name)
        raise ModelError(f"Expected a body name from {self.body_names!r}, got {name!r}.")

    def _check_body(self, i) -> int:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
            raise ModelError(f"Expected a body index (int), got {i!r}.")
        if not 0 <= i < self.n_bodies:
            raise ModelError(f"Expected a body index in [0, {self.n_bodies - 1}], got {i}.")
        return int(i)

    def supports(self, i: int) -> list[int]:
        r"""Support set :math:`\kappa(i)`: the bodies from the base to ``i`` (inclusive), root
        first.

        Parameters
        ----------
        i : int
            Body index.

        Returns
        -------
        list of int
            Ancestors of ``i`` and ``i`` itself, in increasing order.

        Raises
        ------
        ModelError
            If ``i`` is not a body index.

        References
        ----------
        Seed 004 §1.1 (κ); seed 001 §1.2 (:math:`j \preceq i`).

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.binary_tree(7).supports(6)
        [0, 4, 6]
        """
        i = self._check_body(i)
        chain = []
        while i >= 0:
            chain.append(i)
            i = int(self.parent[i])
        return chain[::-1]

    def subtree(self, i: int) -> list[int]:
        r"""Subtree :math:`\nu(i)`: ``i`` and all its descendants (a contiguous index range).

        Parameters
        ----------
        i : int
            Body index.

        Returns
        -------
        list of int

        Raises
        ------
        ModelError
            If ``i`` is not a body index.

        References
        ----------
        Seed 004 §1.1 (ν).

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.binary_tree(7).subtree(1)
        [1, 2, 3]
        """
        i = self._check_body(i)
        return list(range(i, i + int(self._subtree_size[i])))

    def children(self, i: int) -> list[int]:
        r"""Children :math:`\mu(i)` of body ``i``.

        Parameters
        ----------
        i : int
            Body index.

        Returns
        -------
        list of int

        Raises
        ------
        ModelError
            If ``i`` is not a body index.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.binary_tree(7).children(0)
        [1, 4]
        """
        return list(self._children[self._check_body(i)])

    # ------------------------------------------------------------------------------------
    # Layout of q and v
    # ------------------------------------------------------------------------------------
    def _joint(self, name) -> int:
        if name not in self._joint_index:
            raise ModelError(f"Expected a joint name from {self.joint_names!r}, got {name!r}.")
        return self._joint_index[name]

    def q_slice(self, joint_name: str) -> slice:
        """Slice of ``q`` holding the coordinates of a joint.

        Parameters
        ----------
        joint_name : str
            A name from :attr:`joint_names`.

        Returns
        -------
        slice

        Raises
        ------
        ModelError
            If there is no joint of that name.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> m = robots.quadruped()
        >>> m.q_slice("root_joint"), m.v_slice("root_joint")
        (slice(0, 7, None), slice(0, 6, None))
        """
        return self.q_slices[self._joint(joint_name)]

    def v_slice(self, joint_name: str) -> slice:
        """Slice of ``v`` (and of ``a``, ``tau``) holding the speeds of a joint.

        Parameters
        ----------
        joint_name : str
            A name from :attr:`joint_names`.

        Returns
        -------
        slice

        Raises
        ------
        ModelError
            If there is no joint of that name.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.double_pendulum().v_slice("joint2")
        slice(1, 2, None)
        """
        return self.v_slices[self._joint(joint_name)]

    def neutral(self) -> np.ndarray:
        """The neutral configuration (every joint at its neutral value).

        Returns
        -------
        ndarray, shape (nq,)

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.quadruped().neutral()[:7]
        array([0., 0., 0., 0., 0., 0., 1.])
        """
        return np.concatenate([j.neutral() for j in self.joints] + [np.zeros(0)])

    def random_configuration(self, rng=None, size=None) -> np.ndarray:
        """Random configurations (each joint's
        ``Joint.random``).

        Parameters
        ----------
        rng : None, int or numpy.random.Generator, optional
            Source of randomness.
        size : None, int or tuple of int, optional
            Batch shape.

        Returns
        -------
        ndarray, shape (*size, nq)

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.humanoid().random_configuration(rng=0, size=5).shape
        (5, 31)
        """
        rng = default_rng(rng)
        shape = check_size(size, per_item=4 * self.nq)  # q and the joints' working arrays
        parts = [j.random_configuration(rng, shape) for j in self.joints]
        return np.concatenate(parts + [np.zeros(shape + (0,))], axis=-1)

    def integrate(self, q, v, dt=1.0) -> np.ndarray:
        r"""Configuration reached from ``q`` with constant speeds ``v`` after time ``dt``.

        .. math:: \mathbf q \oplus \mathbf v\,\mathrm dt, \quad\text{joint by joint:}\quad
                  \mathbf q_i \oplus \mathbf v_i\,\mathrm dt

        (the product manifold of the joint manifolds; body-frame speeds for multi-DoF joints).

        Parameters
        ----------
        q : array_like, shape (..., nq)
        v : array_like, shape (..., nv)
        dt : float or array_like, shape (...), optional

        Returns
        -------
        ndarray, shape (..., nq)

        Raises
        ------
        DimensionError, NonFiniteError
            On wrong trailing shapes or non-finite entries.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody import robots
        >>> m = robots.double_pendulum()
        >>> m.integrate([0.1, 0.2], [1.0, -1.0], dt=0.5)
        array([ 0.6, -0.3])
        """
        from geomech.multibody._kernels import joints as K
        from geomech.multibody._kernels.driver import call, check_inputs, states

        cm = self.compiled
        batch, B, (Q, V, DT) = states(("q", q, (self.nq,)), ("v", v, (self.nv,)), ("dt", dt, ()))
        # the kernel reads neither finiteness nor unit quaternions: checked here, as rnea does
        check_inputs(self, batch, ("q", "v", "dt"), (Q, V, DT), _quaternion_columns(self))
        out = np.zeros((B, self.nq))
        call(
            K.integrate_batch,
            (cm.topo,),
            (Q, V, DT, out),
            batch,
            self,
            names=("q", "v", "dt"),
            what="q ⊕ v dt",
        )
        for i, joint in cm.user:  # two-stage path: user joints through their own hook
            qs, vs = self.q_slices[i], self.v_slices[i]
            out[:, qs] = joint._integrate(Q[:, qs], V[:, vs] * DT[:, None])
        return out[0] if not batch else out.reshape(batch + (self.nq,))

    def difference(self, q0, q1) -> np.ndarray:
        r"""Speeds ``v`` with ``integrate(q0, v) = q1``, joint by joint.

        .. math:: \mathbf v_i = \log(\mathbf q_{0,i}^{-1}\mathbf q_{1,i})

        Parameters
        ----------
        q0, q1 : array_like, shape (..., nq)

        Returns
        -------
        ndarray, shape (..., nv)

        Raises
        ------
        DimensionError, NonFiniteError
            On wrong trailing shapes or non-finite entries.
        SingularityError
            See :meth:`geomech.multibody.model.joints.Joint.difference`.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.double_pendulum().difference([0.1, 0.2], [0.6, -0.3])
        array([ 0.5, -0.5])
        """
        from geomech.multibody._kernels import joints as K
        from geomech.multibody._kernels.driver import call, check_inputs, states

        cm = self.compiled
        batch, B, (Q0, Q1) = states(("q0", q0, (self.nq,)), ("q1", q1, (self.nq,)))
        check_inputs(self, batch, ("q0", "q1"), (Q0, Q1))  # the kernel does not read NaNs
        out = np.zeros((B, self.nv))
        call(
            K.difference_batch,
            (cm.topo,),
            (Q0, Q1, out),
            batch,
            self,
            names=("q0", "q1"),
            what="q1 ⊖ q0",
        )
        for i, joint in cm.user:  # two-stage path: user joints through their own hook
            qs, vs = self.q_slices[i], self.v_slices[i]
            out[:, vs] = joint._difference(Q0[:, qs], Q1[:, qs])
        return out[0] if not batch else out.reshape(batch + (self.nv,))

    # ------------------------------------------------------------------------------------

    @property
    def spanning_tree(self) -> MultibodyModel:
        """The tree itself: the spanning tree of a kinematic tree (as of a closed model).

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> model = robots.double_pendulum()
        >>> model.spanning_tree is model
        True
        """
        return self

    @property
    def compiled(self):
        """The model as flat arrays for the compiled kernels, built on first use and cached.

        Returns
        -------
        geomech.multibody._kernels.compiled.CompiledModel

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.double_pendulum().compiled.topo.shape
        (3, 5)
        """
        cm = self.__dict__.get("_compiled")
        if cm is None:
            from geomech.multibody._kernels.compiled import CompiledModel

            cm = self._compiled = CompiledModel(self)
            self._single = cm.single
        return cm

    def summary(self) -> str:
        """A short text report: bodies, degrees of freedom, depth and joint types.

        Returns
        -------
        str

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> print(robots.double_pendulum().summary())
        MultibodyModel 'double_pendulum': 2 bodies, nq = 2, nv = 2, depth 2
          joints: revolute x2
        """
        name = self.graph.graph.get("name")
        head = "MultibodyModel" + (f" {name!r}" if name else "")
        kinds = ", ".join(f"{k} x{n}" for k, n in self.joint_types().items())
        return (
            f"{head}: {self.n_bodies} bodies, nq = {self.nq}, nv = {self.nv}, "
            f"depth {self.depth}\n  joints: {kinds}"
        )

    def __repr__(self) -> str:
        return (
            f"<MultibodyModel: {self.n_bodies} bodies, nq={self.nq}, nv={self.nv}, "
            f"depth={self.depth}>"
        )
