r"""Frames of a multibody model: names, world placements, twists, accelerations, Jacobians.

A *frame* is a named pose fixed in a body (or in the world). A model's frames are read from
its graph (:func:`frame_table`):

* every link of a URDF: :func:`~geomech.multibody.io.urdf.load_urdf` merges the links welded by
  ``fixed`` joints into their parent body and lists them, with their poses in the body
  frame, in the node attribute ``links`` (the body's own link first, at the identity);
  :func:`~geomech.interop.pinocchio.from_pinocchio` lists Pinocchio's ``BODY`` frames there
  too. A node without ``links`` has one frame named after it (the body frame);
* the frames a user adds when building the graph: the node attribute ``frames``, a mapping
  ``{name: 4×4 pose in the body frame}`` (:data:`FRAMES_ATTRIBUTE`).

The base node's frames are fixed in the world (for a floating base the world node has the
frame ``"universe"``, as in Pinocchio). Names are unique across the model.

The functions take a frame by name or by its index in :func:`frame_names`, and a
``reference`` among (Pinocchio's ``ReferenceFrame``)

* ``"local"``: the frame's own axes and origin (the frame's body twist);
* ``"world"``: the world's axes and origin (the spatial twist, Featherstone's);
* ``"local_world_aligned"``: the world's axes at the frame's origin (angular velocity and
  the velocity of the frame's origin, in world coordinates).

Spatial vectors are angular first, ``[ω; v]``, as everywhere in geomech (Pinocchio's are
linear first). Every function accepts leading batch dimensions on the states; a closed
model (:class:`~geomech.multibody.closed.model.ClosedMultibodyModel`) evaluates its spanning tree
at :math:`\dot q_s = G v` and :math:`\ddot q_s = G\dot v + g`, and its Jacobians are with
respect to the independent speeds, :math:`\mathbf J = \mathbf J_s G` and
:math:`\dot{\mathbf J} = \dot{\mathbf J}_s G + \mathbf J_s\dot G`.

References
----------
Seed 001 eqs. 5, 7, §1.4 and Remark 4; seed 000 §VI-B and Remark 8 (task space);
R. Featherstone, *Rigid Body Dynamics Algorithms*, 2008, §2.9, §4.1; Pinocchio's
``getFrameVelocity``, ``getFrameAcceleration``, ``getFrameClassicalAcceleration``,
``computeFrameJacobian``, ``getFrameJacobianTimeVariation`` (the references' meaning).
"""

from __future__ import annotations

import difflib
import weakref

import numpy as np

from geomech._validation import check_placement
from geomech.errors import ModelError
from geomech.multibody._kernels.driver import (
    are_states,
    call,
    compiled,
    entry,
    failure,
    is_state,
    single_state,
    states,
)
from geomech.multibody._kernels.tree import frames as K

__all__ = [
    "FRAMES_ATTRIBUTE",
    "REFERENCES",
    "FrameTable",
    "frame_table",
    "frame_names",
    "frame_placement",
    "frame_velocity",
    "frame_acceleration",
    "frame_jacobian",
    "frame_jacobian_rate",
]

#: The node attribute holding a body's user frames: ``{name: 4×4 pose in the body frame}``.
FRAMES_ATTRIBUTE = "frames"
#: The references of the frame functions and their kernel codes.
REFERENCES = {
    "local": K.LOCAL,
    "world": K.WORLD,
    "local_world_aligned": K.LOCAL_WORLD_ALIGNED,
}

_TABLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class FrameTable:
    """The frames of a model: names, carrying bodies and poses in their body frames.

    Built by :func:`frame_table` (once per model); read-only.

    Attributes
    ----------
    names : list of str
        Frame names: the base node's frames first, then each body's in the model's body
        order (its ``links`` in their order, then its user ``frames``).
    bodies : ndarray of int, shape (F,)
        Body index of each frame (``-1``: fixed in the world).
    placements : ndarray, shape (F, 4, 4)
        Pose of each frame in its body's frame (in the world for ``-1``).

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.frames import frame_table
    >>> table = frame_table(robots.load("ur5"))
    >>> table.names[-2:], table.bodies[-2:].tolist()
    (['wrist_3_link', 'tool0'], [5, 5])
    >>> table.index("tool0")
    7
    """

    def __init__(self, names, bodies, placements):
        self.names = list(names)
        self.bodies = np.asarray(bodies, dtype=np.int64)
        self.placements = np.asarray(placements, dtype=float).reshape(-1, 4, 4)
        self._index = {name: k for k, name in enumerate(self.names)}
        # per frame, for the kernels: [body, reference, classical] and [R_bf | p_bf]
        self._Tf = np.ascontiguousarray(self.placements[:, :3, :])
        self._selectors: dict = {}  # (type, frame, reference, classical) -> kernel arguments
        for array in (self.bodies, self.placements, self._Tf):
            array.flags.writeable = False

    def __len__(self) -> int:
        return len(self.names)

    def index(self, frame) -> int:
        """Index of a frame given by name or index.

        Parameters
        ----------
        frame : str or int

        Returns
        -------
        int

        Raises
        ------
        ModelError
            If no frame has that name (the message suggests close names) or the index is
            out of range.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> from geomech.multibody.algorithms.frames import frame_table
        >>> frame_table(robots.double_pendulum()).index("link2")
        2
        """
        if isinstance(frame, (int, np.integer)) and not isinstance(frame, bool):
            k = int(frame)
            if not -len(self.names) <= k < len(self.names):
                raise ModelError(
                    f"Expected a frame index in [0, {len(self.names)}) (model.frame_names), "
                    f"got {k}."
                )
            return k % len(self.names)
        k = self._index.get(frame) if isinstance(frame, str) else None
        if k is None:
            close = difflib.get_close_matches(str(frame), self.names, n=3)
            hint = f"; did you mean {close}?" if close else " (see model.frame_names)."
            raise ModelError(f"Expected `frame` to name a frame of the model, got {frame!r}{hint}")
        return k

    def __repr__(self) -> str:
        return f"<FrameTable: {len(self.names)} frames>"


def _node_frames(graph, node, default_name):
    """``[(name, 4×4 placement), ...]`` of a node: ``links`` (or the node itself), ``frames``."""
    attrs = graph.nodes[node]
    links = attrs.get("links")
    out = [(str(default_name), np.eye(4))] if links is None else []
    for item in links or []:
        name, T = item
        out.append((str(name), check_placement(T, f"link {name!r} of node {node!r}")))
    user = attrs.get(FRAMES_ATTRIBUTE)
    if user is not None:
        if not hasattr(user, "items"):
            raise ModelError(
                f"Expected the {FRAMES_ATTRIBUTE!r} attribute of node {node!r} to be a mapping "
                f"{{name: 4x4 placement}}, got {type(user).__name__}."
            )
        for name, T in user.items():
            if not isinstance(name, str):
                raise ModelError(
                    f"Expected the frame names of node {node!r} to be strings, got {name!r}."
                )
            out.append((name, check_placement(T, f"frame {name!r} of node {node!r}")))
    return out


def frame_table(model) -> FrameTable:
    """The model's frames, read from its graph (module docstring); cached per model.

    Parameters
    ----------
    model : MultibodyModel

    Returns
    -------
    FrameTable

    Raises
    ------
    ModelError
        If two frames share a name, a ``frames`` attribute is not a mapping of names to
        4×4 poses, or a pose is not a rigid transform.

    Examples
    --------
    A user frame at the tip of the double pendulum's second link, declared on its node:

    >>> import numpy as np
    >>> from geomech.multibody import MultibodyModel, robots
    >>> from geomech.multibody.algorithms.frames import frame_table
    >>> G = robots.double_pendulum().graph.copy()
    >>> tip = np.eye(4); tip[2, 3] = -1.0
    >>> G.nodes["link2"]["frames"] = {"tip": tip}
    >>> table = frame_table(MultibodyModel(G))
    >>> table.names, table.bodies.tolist()
    (['world', 'link1', 'link2', 'tip'], [-1, 0, 1, 1])
    """
    try:
        return _TABLES[model]
    except (KeyError, TypeError):
        pass
    graph = getattr(model, "graph", None)
    if graph is None or not hasattr(model, "nodes"):
        raise ModelError(f"Expected `model` to be a MultibodyModel, got {type(model).__name__}.")
    names, bodies, placements = [], [], []
    owner: dict[str, object] = {}
    root = model.root
    nodes = [(-1, root, graph.nodes[root].get("name", root))]
    nodes += [(i, node, model.body_names[i]) for i, node in enumerate(model.nodes)]
    for i, node, default in nodes:
        for name, T in _node_frames(graph, node, default):
            if name in owner:
                raise ModelError(
                    f"Expected unique frame names, got {name!r} on node {owner[name]!r} and on "
                    f"node {node!r}."
                )
            owner[name] = node
            names.append(name)
            bodies.append(i)
            placements.append(T)
    table = FrameTable(names, bodies, np.array(placements).reshape(-1, 4, 4))
    try:
        _TABLES[model] = table
    except TypeError:  # pragma: no cover - models are weak-referenceable and hashable
        pass
    return table


def frame_names(model) -> list[str]:
    """Names of the model's frames (every URDF link, merged ones included, and user frames).

    ``model.frame_names`` is this list.

    Parameters
    ----------
    model : MultibodyModel

    Returns
    -------
    list of str
        See :class:`FrameTable` for the order.

    Raises
    ------
    ModelError
        As :func:`frame_table`.

    Examples
    --------
    The UR5's ``tool0`` link is welded to ``wrist_3_link`` by a fixed joint: merged into
    that body, it is still a frame.

    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.frames import frame_names
    >>> model = robots.load("ur5")
    >>> model.n_bodies, len(frame_names(model)), frame_names(model)[-1]
    (6, 8, 'tool0')
    """
    return list(frame_table(model).names)


# ----------------------------------------------------------------------------------------
# argument handling
# ----------------------------------------------------------------------------------------
def _selector(model, frame, reference="local", classical=False):
    """``(fsel, fpack)``: the frame's kernel arguments (its compact support, see the kernels).

    Built once per model, frame and options (the single-state calls take microseconds).
    """
    table = frame_table(model)
    key = (type(frame), frame, reference, bool(classical))
    try:
        return table._selectors[key]
    except (KeyError, TypeError):  # TypeError: an unhashable `frame`, refused by index()
        pass
    k = table.index(frame)
    if reference not in REFERENCES:
        raise ModelError(f"Expected `reference` from {list(REFERENCES)}, got {reference!r}.")
    cm = compiled(model.spanning_tree if getattr(model, "is_closed", False) else model)
    fsel, fpack = K.support_arrays(
        cm.topo, cm.placement, cm.jparam, int(table.bodies[k]), table._Tf[k],
        REFERENCES[reference], classical,
    )  # fmt: skip
    table._selectors[key] = (fsel, fpack)
    return fsel, fpack


def _tree(model):
    """``(tree, closed)``: the model evaluated by the kernels (a closed model's spanning tree)."""
    if getattr(model, "is_closed", False):
        return model.spanning_tree, True
    compiled(model)  # a named error for anything that is not a model
    return model, False


def _rows(G, x):
    """``G x`` over broadcast batches: ``G`` (..., n_s, nv), ``x`` (..., nv)."""
    return np.einsum("...ij,...j->...i", G, x)


# ----------------------------------------------------------------------------------------
# public functions
# ----------------------------------------------------------------------------------------
def frame_placement(model, q, frame) -> np.ndarray:
    r"""World pose of a frame, :math:`{}^0\mathbf T_f = {}^0\mathbf T_i\,{}^i\mathbf T_f`.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
        Configurations (closed configurations for a closed model).
    frame : str or int
        A name of :func:`frame_names`, or its index.

    Returns
    -------
    ndarray, shape (..., 4, 4)
        Maps frame coordinates to world coordinates.

    Raises
    ------
    ModelError
        On an unknown frame.
    DimensionError, NonFiniteError
        If ``q`` is malformed.
    NotOnManifoldError
        If a quaternion of the frame's support is not of unit norm (or, for a closed model,
        ``q`` violates the loop constraints).

    References
    ----------
    Featherstone 2008, §4.1; Pinocchio's ``updateFramePlacement``.

    Examples
    --------
    The tip of the double pendulum, 1 m below the second joint, hangs 2 m below the world
    origin at the neutral configuration:

    >>> import numpy as np
    >>> from geomech.multibody import MultibodyModel, robots
    >>> from geomech.multibody.algorithms.frames import frame_placement
    >>> G = robots.double_pendulum().graph.copy()
    >>> tip = np.eye(4); tip[2, 3] = -1.0
    >>> G.nodes["link2"]["frames"] = {"tip": tip}
    >>> model = MultibodyModel(G)
    >>> frame_placement(model, [0.0, 0.0], "tip")[:3, 3]
    array([ 0.,  0., -2.])
    >>> frame_placement(model, np.zeros((5, 2)), "tip").shape
    (5, 4, 4)
    """
    fsel, fpack = _selector(model, frame)
    tree, closed = _tree(model)
    if closed:
        q = model.check_configuration(q)
    return _placement(tree, q, fsel, fpack)


def _placement(tree, q, fsel, fpack):
    single = getattr(tree, "_single", None) or single_state(tree)
    if single is not None:
        topo, packed, nq, _ = single
        if is_state(q, nq):
            T = np.empty((4, 4))
            status = entry(K.frame_placement_one)(topo, packed, fsel, fpack, q, T)
            if status:
                raise failure(status, tree, ("q",), (q,), "the frame placement")
            return T
    cm = compiled(tree)
    batch, B, (Q,) = states(("q", q, (cm.nq,)))
    T = np.empty((B, 4, 4))
    call(
        K.frame_placement_batch,
        (cm.topo, fsel, fpack),
        (cm.joint_arrays(Q)[2], Q, T),
        batch,
        tree,
        names=("q", "q"),
        what="the frame placement",
    )
    return T.reshape(batch + (4, 4))


def frame_velocity(model, q, v, frame, reference="local") -> np.ndarray:
    r"""Twist of a frame in a reference (Pinocchio's ``getFrameVelocity``), angular first.

    With :math:`\mathbf v_i = [\boldsymbol\omega; \mathbf u]` the body twist of the frame's
    body (seed 001 eq. 5) and :math:`{}^i\mathbf T_f = (\mathbf R_{bf}, \mathbf p_{bf})`:

    .. math::
        \text{local: } {}^f\mathbf X_i\mathbf v_i,\qquad
        \text{world: } {}^0\mathbf X_i\mathbf v_i,\qquad
        \text{local\_world\_aligned: } \begin{bmatrix}\mathbf R_i\boldsymbol\omega\\
        \mathbf R_i(\mathbf u + \boldsymbol\omega\times\mathbf p_{bf})\end{bmatrix}

    and :math:`\mathbf x_f = \mathbf J\nu` with :func:`frame_jacobian` in the same reference.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
        Speeds (the independent speeds for a closed model).
    frame : str or int
    reference : {"local", "world", "local_world_aligned"}

    Returns
    -------
    ndarray, shape (..., 6)
        ``[ω; v]``.

    Raises
    ------
    ModelError
        On an unknown frame or reference.
    DimensionError, NonFiniteError
        If ``q`` or ``v`` is malformed.
    NotOnManifoldError
        As :func:`frame_placement`.

    References
    ----------
    Seed 001 eq. 5; Featherstone 2008, §2.9.

    Examples
    --------
    Turning the first joint of the double pendulum at 1 rad/s moves the second link's
    origin (1 m below the axis, which is y) at 1 m/s along -x:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.frames import frame_velocity
    >>> model = robots.double_pendulum()
    >>> frame_velocity(model, [0.0, 0.0], [1.0, 0.0], "link2", "local_world_aligned")
    array([ 0.,  1.,  0., -1.,  0.,  0.])
    """
    fsel, fpack = _selector(model, frame, reference)
    tree, closed = _tree(model)
    if closed:
        q = model.check_configuration(q)
        v = _rows(model.constraint_matrices(q, v)[0], v)
    return _velocity(tree, q, v, fsel, fpack)


def _velocity(tree, q, v, fsel, fpack):
    single = getattr(tree, "_single", None) or single_state(tree)
    if single is not None:
        topo, packed, nq, nv = single
        if are_states(q, v, v, nq, nv):
            out = np.empty(6)
            status = entry(K.frame_velocity_one)(topo, packed, fsel, fpack, q, v, out)
            if status:
                raise failure(status, tree, ("q", "v"), (q, v), "the frame velocity")
            return out
    cm = compiled(tree)
    batch, B, (Q, V) = states(("q", q, (cm.nq,)), ("v", v, (cm.nv,)))
    S, _, T_user = cm.joint_arrays(Q)
    out = np.empty((B, 6))
    call(
        K.frame_velocity_batch,
        (cm.topo, fsel, fpack),
        (S, T_user, Q, V, out),
        batch,
        tree,
        names=("q", "q", "q", "v"),
        what="the frame velocity",
    )
    return out.reshape(batch + (6,))


def frame_acceleration(model, q, v, a, frame, reference="local", *, classical=False) -> np.ndarray:
    r"""Spatial (or classical) acceleration of a frame in a reference, angular first.

    The spatial acceleration is :math:`\mathbf a_i` of the frame's body (seed 001 eq. 7,
    the derivative of its body twist's coordinates; no gravity) expressed as in
    :func:`frame_velocity`: Pinocchio's ``getFrameAcceleration``. In ``"local"`` and
    ``"world"`` it is the derivative of the twist's coordinates in that reference,
    :math:`\mathbf J\dot\nu + \dot{\mathbf J}\nu`; in ``"local_world_aligned"`` it is the
    local one rotated to world axes.

    The classical acceleration (``classical=True``, Pinocchio's
    ``getFrameClassicalAcceleration``) adds :math:`\boldsymbol\omega\times\mathbf v` of the
    twist :math:`[\boldsymbol\omega; \mathbf v]` in the same reference to the linear part:

    .. math:: \mathbf a^{\rm classical} = \mathbf a + \begin{bmatrix}0\\
              \boldsymbol\omega\times\mathbf v\end{bmatrix}

    In ``"local_world_aligned"`` this is :math:`[\dot{\boldsymbol\omega};\
    \ddot{\mathbf p}_f]`, the acceleration of the frame's origin in world coordinates
    (:math:`= \mathbf J\dot\nu + \dot{\mathbf J}\nu` there), and in ``"local"`` the same
    vector in the frame's axes.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    a : array_like, shape (..., nv)
        Accelerations :math:`\dot\nu` (of the independent speeds for a closed model).
    frame : str or int
    reference : {"local", "world", "local_world_aligned"}
    classical : bool
        Return the classical acceleration instead of the spatial one.

    Returns
    -------
    ndarray, shape (..., 6)

    Raises
    ------
    ModelError
        On an unknown frame or reference.
    DimensionError, NonFiniteError
        If ``q``, ``v`` or ``a`` is malformed.
    NotOnManifoldError
        As :func:`frame_placement`.

    References
    ----------
    Seed 001 eq. 7; Featherstone 2008, eq. 5.8 and §2.11 (spatial vs classical
    acceleration).

    Examples
    --------
    The second link's origin circles the first joint's axis (radius 1 m) at 1 rad/s: its
    spatial acceleration is zero, its classical one the centripetal 1 m/s² upward:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.frames import frame_acceleration
    >>> model = robots.double_pendulum()
    >>> q, v, a = [0.0, 0.0], [1.0, 0.0], [0.0, 0.0]
    >>> frame_acceleration(model, q, v, a, "link2", "local_world_aligned") + 0.0
    array([0., 0., 0., 0., 0., 0.])
    >>> frame_acceleration(model, q, v, a, "link2", "local_world_aligned", classical=True)
    array([0., 0., 0., 0., 0., 1.])
    """
    fsel, fpack = _selector(model, frame, reference, classical)
    tree, closed = _tree(model)
    if closed:
        q = model.check_configuration(q)
        G, g = model.constraint_matrices(q, v)
        v, a = _rows(G, v), _rows(G, a) + g
    return _acceleration(tree, q, v, a, fsel, fpack)


def _acceleration(tree, q, v, a, fsel, fpack):
    single = getattr(tree, "_single", None) or single_state(tree)
    if single is not None:
        topo, packed, nq, nv = single
        if are_states(q, v, a, nq, nv):
            out = np.empty(6)
            status = entry(K.frame_acceleration_one)(topo, packed, fsel, fpack, q, v, a, out)
            if status:
                raise failure(status, tree, ("q", "v", "a"), (q, v, a), "the frame acceleration")
            return out
    cm = compiled(tree)
    batch, B, (Q, V, A) = states(("q", q, (cm.nq,)), ("v", v, (cm.nv,)), ("a", a, (cm.nv,)))
    S, S_ring, T_user = cm.joint_arrays(Q, V)
    out = np.empty((B, 6))
    call(
        K.frame_acceleration_batch,
        (cm.topo, fsel, fpack),
        (S, S_ring, T_user, Q, V, A, out),
        batch,
        tree,
        names=("q", "v", "q", "q", "v", "a"),
        what="the frame acceleration",
    )
    return out.reshape(batch + (6,))


def frame_jacobian(model, q, frame, reference="local") -> np.ndarray:
    r"""Frame Jacobian in a reference (Pinocchio's ``computeFrameJacobian``), angular rows first.

    .. math:: \mathbf x_f = \mathbf J(q)\,\nu

    with :math:`\mathbf x_f` the frame's twist in the reference (:func:`frame_velocity`).
    Column ``j`` of a joint ``k`` supporting the frame's body is
    :math:`{}^0\mathbf X_k\boldsymbol\Phi_k\mathbf e_j` moved to the reference; the other
    columns are zero. For a closed model :math:`\mathbf J = \mathbf J_s G`, with respect to
    the independent speeds.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    frame : str or int
    reference : {"local", "world", "local_world_aligned"}

    Returns
    -------
    ndarray, shape (..., 6, nv)

    Raises
    ------
    ModelError
        On an unknown frame or reference.
    DimensionError, NonFiniteError
        If ``q`` is malformed.
    NotOnManifoldError
        As :func:`frame_placement`.

    References
    ----------
    Seed 000 §VI-B (:math:`A = \mathbf X\boldsymbol\Phi`); seed 001 Remark 4.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.frames import frame_jacobian, frame_velocity
    >>> model = robots.double_pendulum()
    >>> q, v = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    >>> J = frame_jacobian(model, q, "link2", "world")
    >>> J.shape, bool(np.allclose(J @ v, frame_velocity(model, q, v, "link2", "world")))
    ((6, 2), True)
    """
    fsel, fpack = _selector(model, frame, reference)
    tree, closed = _tree(model)
    if closed:
        q = model.check_configuration(q)
        G = model.constraint_matrices(q, np.zeros(q.shape[:-1] + (model.nv,)))[0]
        return _jacobian(tree, q, fsel, fpack) @ G
    return _jacobian(tree, q, fsel, fpack)


def _jacobian(tree, q, fsel, fpack):
    single = getattr(tree, "_single", None) or single_state(tree)
    if single is not None:
        topo, packed, nq, nv = single
        if is_state(q, nq):
            J = np.empty((6, nv))
            status = entry(K.frame_jacobian_one)(topo, packed, fsel, fpack, q, J)
            if status:
                raise failure(status, tree, ("q",), (q,), "the frame Jacobian")
            return J
    cm = compiled(tree)
    batch, B, (Q,) = states(("q", q, (cm.nq,)))
    S, _, T_user = cm.joint_arrays(Q)
    J = np.empty((B, 6, cm.nv))
    call(
        K.frame_jacobian_batch,
        (cm.topo, fsel, fpack),
        (S, T_user, Q, J),
        batch,
        tree,
        names=("q", "q", "q"),
        what="the frame Jacobian",
    )
    return J.reshape(batch + (6, cm.nv))


def frame_jacobian_rate(model, q, v, frame, reference="local") -> np.ndarray:
    r"""Time derivative :math:`\dot{\mathbf J}` of the frame Jacobian along the motion.

    The entrywise derivative of :func:`frame_jacobian` (same reference) along
    :math:`\dot q = \nu` (Pinocchio's ``getFrameJacobianTimeVariation``): column ``j`` of
    a supporting joint ``k`` is the derivative of :math:`{}^0\mathbf X_k\boldsymbol\Phi_k
    \mathbf e_j`, :math:`({}^0\mathbf v_k\times){}^0\mathbf X_k\boldsymbol\Phi_k\mathbf e_j
    + {}^0\mathbf X_k\mathring{\boldsymbol\Phi}_k\mathbf e_j` (seed 001 §1.4), moved to the
    reference with the rate of that move. Hence

    .. math:: \tfrac{\mathrm d}{\mathrm dt}\mathbf x_f = \mathbf J\dot\nu +
              \dot{\mathbf J}\nu

    is :func:`frame_acceleration` in ``"local"`` and ``"world"``, and its classical
    acceleration in ``"local_world_aligned"``. For a closed model
    :math:`\dot{\mathbf J} = \dot{\mathbf J}_s G + \mathbf J_s\dot G`.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    frame : str or int
    reference : {"local", "world", "local_world_aligned"}

    Returns
    -------
    ndarray, shape (..., 6, nv)

    Raises
    ------
    ModelError
        On an unknown frame or reference.
    DimensionError, NonFiniteError
        If ``q`` or ``v`` is malformed.
    NotOnManifoldError
        As :func:`frame_placement`.

    References
    ----------
    Seed 001 §1.4 and Remark 4 (:math:`\mathring{\mathbf J}`); seed 000 §VI-B and Remark 8
    (task space).

    Examples
    --------
    The task-space inertia and Coriolis matrix of the double pendulum's tip (seed 000
    Remark 8) from geomech's own :math:`\mathbf J` and :math:`\dot{\mathbf J}`; with the
    Levi-Civita :math:`C` (metric compatible), :math:`\dot\varLambda - 2C_{\rm task}` is
    skew-symmetric (:math:`\dot\varLambda` by central differences along the motion):

    >>> import numpy as np
    >>> from geomech.geometry import task_space_coriolis
    >>> from geomech.multibody import MultibodyModel, coriolis_matrix, crba, robots
    >>> from geomech.multibody.algorithms.frames import frame_jacobian, frame_jacobian_rate
    >>> G = robots.double_pendulum().graph.copy()
    >>> tip = np.eye(4); tip[2, 3] = -1.0
    >>> G.nodes["link2"]["frames"] = {"tip": tip}
    >>> model = MultibodyModel(G)
    >>> q, v = np.array([0.4, 1.1]), np.array([0.7, -0.3])
    >>> rows = [3, 5]  # the tip's x and z velocity (a planar task of 2 rows)
    >>> def task(q, v):
    ...     J = frame_jacobian(model, q, "tip", "local_world_aligned")[rows]
    ...     J_dot = frame_jacobian_rate(model, q, v, "tip", "local_world_aligned")[rows]
    ...     return task_space_coriolis(crba(model, q), coriolis_matrix(model, q, v), J, J_dot)
    >>> Lam, C_task = task(q, v)
    >>> h = 1e-6
    >>> Lam_dot = (task(q + h * v, v)[0] - task(q - h * v, v)[0]) / (2 * h)
    >>> bool(np.allclose(Lam_dot - 2 * C_task, -(Lam_dot - 2 * C_task).T, atol=1e-6))
    True
    """
    fsel, fpack = _selector(model, frame, reference)
    tree, closed = _tree(model)
    if closed:
        q = model.check_configuration(q)
        G, _, G_dot = model.constraint_matrices(q, v, rate=True)
        J_s, J_s_dot = (
            _jacobian(tree, q, fsel, fpack),
            _jacobian_rate(tree, q, _rows(G, v), fsel, fpack),
        )
        return J_s_dot @ G + J_s @ G_dot
    return _jacobian_rate(tree, q, v, fsel, fpack)


def _jacobian_rate(tree, q, v, fsel, fpack):
    single = getattr(tree, "_single", None) or single_state(tree)
    if single is not None:
        topo, packed, nq, nv = single
        if are_states(q, v, v, nq, nv):
            J_dot = np.empty((6, nv))
            status = entry(K.frame_jacobian_rate_one)(topo, packed, fsel, fpack, q, v, J_dot)
            if status:
                raise failure(status, tree, ("q", "v"), (q, v), "the frame Jacobian rate")
            return J_dot
    cm = compiled(tree)
    batch, B, (Q, V) = states(("q", q, (cm.nq,)), ("v", v, (cm.nv,)))
    S, S_ring, T_user = cm.joint_arrays(Q, V)
    J_dot = np.empty((B, 6, cm.nv))
    call(
        K.frame_jacobian_rate_batch,
        (cm.topo, fsel, fpack),
        (S, S_ring, T_user, Q, V, J_dot),
        batch,
        tree,
        names=("q", "v", "q", "q", "v"),
        what="the frame Jacobian rate",
    )
    return J_dot.reshape(batch + (6, cm.nv))
