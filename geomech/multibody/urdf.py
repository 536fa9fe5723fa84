r"""URDF input and output: :func:`load_urdf` builds a :class:`MultibodyModel`, :func:`to_urdf` writes one.

The parser uses the standard library's :mod:`xml.etree.ElementTree`: URDF is a small XML
dialect, and the maintained PyPI parsers (``yourdfpy``, ``urchin``/``urdfpy``) add heavy
dependencies (trimesh, lxml, networkx pins) for meshes and visuals that geomech ignores,
while Pinocchio's parser (urdfdom) is C++ only and not exposed to Python.

Semantics (those of the URDF specification and of Pinocchio's loader):

- A joint's ``<origin>`` is the pose of the joint frame in the parent link frame (the edge's
  ``placement``); the child link frame coincides with the joint frame at ``q = 0``; the
  ``<axis>`` (default ``1 0 0``) is expressed in the joint frame; ``rpy`` are fixed-axis
  roll-pitch-yaw angles, :math:`\mathbf R = \mathbf R_z(y)\mathbf R_y(p)\mathbf R_x(r)`.
- ``revolute`` and ``continuous`` joints become :class:`~geomech.multibody.joints.Revolute`
  (one angle, ``nq = nv = 1``; Pinocchio stores a continuous joint as ``(cos, sin)``),
  ``prismatic`` :class:`~geomech.multibody.joints.Prismatic`, ``floating``
  :class:`~geomech.multibody.joints.FreeFlyer` and ``planar``
  :class:`~geomech.multibody.joints.Planar` (the plane normal must be the joint frame's z
  axis).
- ``fixed`` joints are merged: the child link's inertia is added to the parent body (in the
  parent body frame) and its own children are re-attached with composed placements. The
  merged links and their poses in the body frame are kept in the node attribute ``links``.
- The link tree is walked depth first with the children of each link in the order of their
  joint names (as urdfdom, and so Pinocchio, do), and the bodies are numbered in that order:
  the joint order, and hence the ``v`` layout, equal Pinocchio's for the same file (``q``
  differs only for continuous joints, one angle here and ``(cos, sin)`` in Pinocchio, and in
  the free-flyer twist order).
- ``<mimic>`` tags are ignored: the joint stays independent (Pinocchio's default); the loops
  issue will honour them as constraints. ``<visual>``, ``<collision>``, ``<transmission>``,
  ``<gazebo>`` and meshes are ignored.
- Links with zero mass are accepted (their inertia is zero; ``H`` may then be singular).

References
----------
URDF XML specification (ROS wiki, "urdf/XML/joint", "urdf/XML/link"); anchors §1 (Pinocchio's
``buildModelFromUrdf``); seed 001 §1.3 (spatial inertia).
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx
import numpy as np

from geomech._validation import as_array
from geomech.errors import URDFError
from geomech.multibody.joints import FreeFlyer, Planar, Prismatic, Revolute
from geomech.multibody.model import MultibodyModel
from geomech.spatial import plucker_from_pose, spatial_inertia

__all__ = ["load_urdf", "to_urdf", "rpy_to_matrix", "matrix_to_rpy"]

#: Name of the free-flyer joint added by ``load_urdf(..., floating_base=True)``.
ROOT_JOINT = "root_joint"
#: Name of the world node added by ``load_urdf(..., floating_base=True)`` (as in Pinocchio).
WORLD = "universe"

_KNOWN_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")


def rpy_to_matrix(rpy) -> np.ndarray:
    r"""Rotation matrix of URDF fixed-axis roll, pitch, yaw angles.

    .. math:: \mathbf R = \mathbf R_z(\text{yaw})\,\mathbf R_y(\text{pitch})\,\mathbf R_x(\text{roll})

    Parameters
    ----------
    rpy : array_like, shape (..., 3)
        ``(roll, pitch, yaw)`` in radians.

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Raises
    ------
    DimensionError, NonFiniteError
        On a wrong trailing shape or non-finite entries.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.urdf import rpy_to_matrix
    >>> np.round(rpy_to_matrix([0.0, 0.0, np.pi / 2]) @ [1.0, 0.0, 0.0], 12) + 0.0
    array([0., 1., 0.])
    """
    r, p, y = np.moveaxis(as_array(rpy, "rpy", (3,)), -1, 0)
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    R = np.stack(
        [
            cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
            sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
            -sp, cp * sr, cp * cr,
        ],
        axis=-1,
    )  # fmt: skip
    return R.reshape(np.shape(r) + (3, 3))


def matrix_to_rpy(R) -> np.ndarray:
    r"""URDF roll, pitch, yaw of a rotation matrix (inverse of :func:`rpy_to_matrix`).

    Pitch is in :math:`[-\pi/2, \pi/2]`; at the gimbal lock (:math:`|\text{pitch}| = \pi/2`)
    the yaw is set to zero and the whole rotation about the vertical goes into the roll, so
    that ``rpy_to_matrix(matrix_to_rpy(R)) == R`` to rounding everywhere.

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)

    Returns
    -------
    ndarray, shape (..., 3)

    Raises
    ------
    DimensionError, NonFiniteError
        On a wrong trailing shape or non-finite entries.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.urdf import matrix_to_rpy, rpy_to_matrix
    >>> np.round(matrix_to_rpy(rpy_to_matrix([0.1, -0.2, 0.3])), 12)
    array([ 0.1, -0.2,  0.3])
    """
    R = as_array(R, "R", (3, 3))
    cp = np.hypot(R[..., 0, 0], R[..., 1, 0])
    pitch = np.arctan2(-R[..., 2, 0], cp)
    lock = cp < 1e-9
    yaw = np.where(lock, 0.0, np.arctan2(R[..., 1, 0], R[..., 0, 0]))
    roll_regular = np.arctan2(R[..., 2, 1], R[..., 2, 2])
    # gimbal lock (sin p = ±1 = -R[2,0]): with yaw = 0, R = Ry(p) Rx(r) has R[0,1] = sp sr and
    # R[1,1] = cr, so roll = atan2(sp R[0,1], R[1,1])
    roll_lock = np.arctan2(np.sign(-R[..., 2, 0]) * R[..., 0, 1], R[..., 1, 1])
    roll = np.where(lock, roll_lock, roll_regular)
    return np.stack([roll, pitch, yaw], axis=-1)


# ----------------------------------------------------------------------------------------
# Parsing
# ----------------------------------------------------------------------------------------
def _floats(text: str | None, n: int, what: str, default=None) -> np.ndarray:
    if text is None:
        if default is None:
            raise URDFError(f"{what}: missing attribute (expected {n} numbers).")
        return np.asarray(default, dtype=float)
    try:
        vals = np.array([float(t) for t in text.split()])
    except ValueError as exc:
        raise URDFError(f"{what}: expected {n} numbers, got {text!r}.") from exc
    if vals.shape != (n,) or not np.all(np.isfinite(vals)):
        raise URDFError(f"{what}: expected {n} finite numbers, got {text!r}.")
    return vals


def _origin(elem: ET.Element | None, what: str) -> np.ndarray:
    """Pose ``[[R(rpy), xyz], [0, 1]]`` of an ``<origin>`` element (identity if absent)."""
    T = np.eye(4)
    if elem is None:
        return T
    T[:3, 3] = _floats(elem.get("xyz"), 3, f"{what} <origin xyz>", default=np.zeros(3))
    T[:3, :3] = rpy_to_matrix(_floats(elem.get("rpy"), 3, f"{what} <origin rpy>", np.zeros(3)))
    return T


def _inertial(link: ET.Element, name: str) -> np.ndarray | None:
    """Spatial inertia of a link in its own frame, or None without ``<inertial>``."""
    elem = link.find("inertial")
    if elem is None:
        return None
    what = f"link {name!r}"
    mass_el = elem.find("mass")
    if mass_el is None:
        raise URDFError(f"{what}: <inertial> has no <mass>.")
    mass = float(_floats(mass_el.get("value"), 1, f"{what} <mass value>")[0])
    if mass < 0:
        raise URDFError(f"{what}: expected a nonnegative mass, got {mass:g}.")
    T = _origin(elem.find("origin"), f"{what} <inertial>")
    in_el = elem.find("inertia")
    keys = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
    if in_el is None:
        vals = dict.fromkeys(keys, 0.0)
    else:
        vals = {k: float(_floats(in_el.get(k, "0"), 1, f"{what} <inertia {k}>")[0]) for k in keys}
    Ic = np.array(
        [
            [vals["ixx"], vals["ixy"], vals["ixz"]],
            [vals["ixy"], vals["iyy"], vals["iyz"]],
            [vals["ixz"], vals["iyz"], vals["izz"]],
        ]
    )
    lam = float(np.linalg.eigvalsh(Ic)[0])
    if lam < -1e-9 * max(1.0, float(np.max(np.abs(Ic)))):
        raise URDFError(
            f"{what}: expected a positive semi-definite rotational inertia, got smallest "
            f"eigenvalue {lam:.3g}."
        )
    R = T[:3, :3]
    return spatial_inertia(mass, T[:3, 3], R @ Ic @ R.T)


def _parse_xml(path_or_string) -> ET.Element:
    if isinstance(path_or_string, bytes):
        text = path_or_string.decode()
    elif isinstance(path_or_string, str) and path_or_string.lstrip().startswith("<"):
        text = path_or_string
    elif isinstance(path_or_string, (str, os.PathLike)):
        try:
            text = Path(path_or_string).read_text()
        except OSError as exc:
            raise URDFError(f"Cannot read URDF file {str(path_or_string)!r}: {exc}") from exc
    else:
        raise URDFError(
            "Expected `path_or_string` to be a file path or a URDF XML string, got "
            f"{type(path_or_string).__name__}."
        )
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise URDFError(f"Malformed URDF XML: {exc}.") from exc
    if root.tag != "robot":
        raise URDFError(f"Expected a <robot> root element, got <{root.tag}>.")
    return root


def _make_joint(elem: ET.Element, name: str, jtype: str):
    axis_el = elem.find("axis")
    axis = _floats(
        None if axis_el is None else axis_el.get("xyz"), 3, f"joint {name!r} <axis xyz>", [1, 0, 0]
    )
    if jtype in ("revolute", "continuous", "prismatic") and not np.linalg.norm(axis) > 1e-12:
        raise URDFError(f"joint {name!r}: expected a nonzero <axis>, got {axis.tolist()}.")
    if jtype in ("revolute", "continuous"):
        return Revolute(axis, name=name)
    if jtype == "prismatic":
        return Prismatic(axis, name=name)
    if jtype == "floating":
        return FreeFlyer(name=name)
    if jtype == "planar":
        n = np.linalg.norm(axis)
        if axis_el is not None and not (n > 0 and np.allclose(axis / n, [0, 0, 1])):
            raise URDFError(
                f"joint {name!r}: planar joints must move in the joint frame's xy-plane "
                f"(<axis xyz='0 0 1'>), got axis {axis.tolist()}."
            )
        return Planar(name=name)
    raise AssertionError(jtype)  # pragma: no cover - filtered by the caller


def load_urdf(path_or_string, floating_base: bool = False) -> MultibodyModel:
    """Build a :class:`MultibodyModel` from a URDF file or string.

    Parameters
    ----------
    path_or_string : str, bytes or os.PathLike
        A path to a ``.urdf`` file, or the XML text itself (a string starting with ``<``).
    floating_base : bool
        If True, add a :class:`~geomech.multibody.joints.FreeFlyer` joint named
        ``"root_joint"`` between a world node ``"universe"`` and the root link (as
        ``pinocchio.buildModelFromUrdf(path, pinocchio.JointModelFreeFlyer())`` does);
        otherwise the root link is the fixed base.

    Returns
    -------
    MultibodyModel
        Nodes are named after the links (one node per group of links welded by fixed
        joints), edges after the joints; ``graph.graph["name"]`` is the robot's name. Edge
        attributes also keep ``urdf_type`` and ``limits`` (a dict of the ``<limit>``
        attributes) for :func:`to_urdf`.

    Raises
    ------
    URDFError
        On malformed XML, a missing ``<robot>`` element, links or joints without names or
        with duplicate names, unknown joint types, joints naming undefined links, a link with
        two parent joints or a graph with several root links, a zero axis, a moving body
        without any ``<inertial>``, a negative mass, a rotational inertia that is not
        positive semi-definite, or non-numeric attributes. Messages name the link or joint.

    References
    ----------
    URDF specification (joint and link elements); anchors §1.2–1.3 (Pinocchio's loader).

    Examples
    --------
    >>> from geomech.multibody.urdf import load_urdf
    >>> urdf = '''
    ... <robot name="pendulum">
    ...   <link name="base"/>
    ...   <link name="arm">
    ...     <inertial><mass value="1"/><origin xyz="0 0 -1"/>
    ...       <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>
    ...   </link>
    ...   <joint name="hinge" type="continuous">
    ...     <parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
    ...   </joint>
    ... </robot>'''
    >>> model = load_urdf(urdf)
    >>> model.root, model.body_names, model.joint_names, model.nq
    ('base', ['arm'], ['hinge'], 1)
    >>> load_urdf(urdf, floating_base=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    geomech.errors.URDFError: link 'base' is moved by joint 'root_joint' but has no <inertial>...
    """
    robot = _parse_xml(path_or_string)

    links: dict[str, ET.Element] = {}
    for el in robot.findall("link"):
        name = el.get("name")
        if not name:
            raise URDFError("Found a <link> without a name.")
        if name in links:
            raise URDFError(f"link {name!r} is defined more than once.")
        links[name] = el

    joints: dict[str, ET.Element] = {}
    parent_joint: dict[str, str] = {}
    child_joints: dict[str, list[str]] = {name: [] for name in links}
    for el in robot.findall("joint"):
        name = el.get("name")
        if not name:
            raise URDFError("Found a <joint> without a name.")
        if name in joints:
            raise URDFError(f"joint {name!r} is defined more than once.")
        jtype = el.get("type")
        if jtype not in _KNOWN_TYPES:
            raise URDFError(
                f"joint {name!r}: unknown joint type {jtype!r}; expected one of {_KNOWN_TYPES}."
            )
        ends = {}
        for tag in ("parent", "child"):
            sub = el.find(tag)
            link = None if sub is None else sub.get("link")
            if link is None:
                raise URDFError(f"joint {name!r}: missing <{tag} link=...>.")
            if link not in links:
                raise URDFError(f"joint {name!r}: {tag} link {link!r} is not defined.")
            ends[tag] = link
        if ends["child"] in parent_joint:
            raise URDFError(
                f"link {ends['child']!r} is the child of two joints "
                f"({parent_joint[ends['child']]!r} and {name!r}): kinematic loops are not "
                "supported yet."
            )
        parent_joint[ends["child"]] = name
        child_joints[ends["parent"]].append(name)
        joints[name] = el

    roots = [name for name in links if name not in parent_joint]
    if len(roots) != 1:
        raise URDFError(
            f"Expected exactly one root link (a link that is no joint's child), got "
            f"{len(roots)}: {roots!r}" + (" (the joints form a cycle)." if not roots else ".")
        )
    (root_link,) = roots
    robot_name = robot.get("name", "robot")

    # ---- walk the tree depth-first, children in joint-name order (as urdfdom); merge fixed
    G = nx.DiGraph(name=robot_name)
    base = WORLD if floating_base else root_link
    if floating_base and WORLD in links:
        raise URDFError(f"link {WORLD!r}: the name is reserved for the world of a floating base.")
    body_of: dict[str, str] = {root_link: root_link}  # link -> body node
    pose_in_body: dict[str, np.ndarray] = {root_link: np.eye(4)}
    inertia: dict[str, np.ndarray] = {}
    has_inertial: dict[str, bool] = {}
    members: dict[str, list] = {}

    def add_link(link: str) -> None:
        body = body_of[link]
        I_link = _inertial(links[link], link)
        if body not in inertia:
            inertia[body], has_inertial[body], members[body] = np.zeros((6, 6)), False, []
        members[body].append((link, pose_in_body[link]))
        if I_link is not None:
            X = plucker_from_pose(pose_in_body[link])  # ^link X_body
            inertia[body] += X.T @ I_link @ X  # congruence to body coordinates
            has_inertial[body] = True

    if floating_base:
        G.add_node(WORLD)
    G.add_node(root_link)
    if floating_base:
        G.add_edge(WORLD, root_link, joint=FreeFlyer(name=ROOT_JOINT), name=ROOT_JOINT)
    add_link(root_link)
    # depth-first pre-order with children in joint-name order (urdfdom's std::map order):
    # Pinocchio numbers the joints in this order, and so, edge by edge, does the model
    stack = [(root_link, jname) for jname in sorted(child_joints[root_link], reverse=True)]
    while stack:
        link, jname = stack.pop()
        el = joints[jname]
        child = el.find("child").get("link")
        jtype = el.get("type")
        T = pose_in_body[link] @ _origin(el.find("origin"), f"joint {jname!r}")
        if jtype == "fixed":
            body_of[child], pose_in_body[child] = body_of[link], T
        else:
            body_of[child], pose_in_body[child] = child, np.eye(4)
            limits = el.find("limit")
            G.add_node(child)
            G.add_edge(
                body_of[link],
                child,
                joint=_make_joint(el, jname, jtype),
                placement=T,
                name=jname,
                urdf_type=jtype,
                limits=None if limits is None else dict(limits.attrib),
            )
        add_link(child)
        stack.extend((child, j) for j in sorted(child_joints[child], reverse=True))

    # ---- bodies: inertia and the links merged into them
    for body in members:
        G.nodes[body]["links"] = members[body]
        if body == base:
            continue
        if not has_inertial[body]:
            raise URDFError(
                f"link {body!r} is moved by joint "
                f"{ROOT_JOINT if body == root_link else parent_joint[body]!r} but has no "
                "<inertial> (nor has any link welded to it)."
            )
        G.nodes[body]["inertia"] = inertia[body]
    if not floating_base and root_link in inertia:
        G.nodes[root_link]["base_inertia"] = inertia[root_link]
    from geomech.multibody import urdf_plus  # noqa: PLC0415 (urdf_plus builds on this module)

    urdf_plus.add_closures(G, robot, body_of, pose_in_body)  # URDF+: <loop>, <coupling>, independent
    return MultibodyModel(G)


# ----------------------------------------------------------------------------------------
# Writing
# ----------------------------------------------------------------------------------------
def _fmt(x) -> str:
    return " ".join(repr(float(v)) for v in np.ravel(x))


def _origin_el(parent: ET.Element, T: np.ndarray) -> None:
    if np.allclose(T, np.eye(4), atol=0.0, rtol=0.0):
        return
    ET.SubElement(parent, "origin", xyz=_fmt(T[:3, 3]), rpy=_fmt(matrix_to_rpy(T[:3, :3])))


def _inertial_el(link: ET.Element, I: np.ndarray) -> None:  # noqa: E741
    m = float(I[5, 5])
    el = ET.SubElement(link, "inertial")
    if m > 0:
        c = np.array([I[2, 4], I[0, 5], I[1, 3]]) / m
        S = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
        Ic = I[:3, :3] - m * S @ S.T
        ET.SubElement(el, "origin", xyz=_fmt(c), rpy="0 0 0")
    else:
        Ic = I[:3, :3]
    ET.SubElement(el, "mass", value=repr(m))
    ET.SubElement(
        el,
        "inertia",
        ixx=repr(float(Ic[0, 0])),
        ixy=repr(float(Ic[0, 1])),
        ixz=repr(float(Ic[0, 2])),
        iyy=repr(float(Ic[1, 1])),
        iyz=repr(float(Ic[1, 2])),
        izz=repr(float(Ic[2, 2])),
    )


def to_urdf(model: MultibodyModel, name: str | None = None) -> str:
    """Write a model as URDF text (links, joints, origins, axes, inertials; no visuals).

    Revolute joints become ``revolute`` (or ``continuous`` if the model was loaded from a
    continuous joint), prismatic ``prismatic``, free-flyer ``floating``, planar ``planar`` and
    fixed ``fixed``; ``pinocchio.buildModelFromXML`` loads the result with the same joint
    names and inertias. Body names become link names, the base becomes a link without
    inertial. Each inertia is written about its centre of mass (exact to rounding: numbers
    are printed with 17 significant digits).

    Parameters
    ----------
    model : MultibodyModel
        The model to write.
    name : str, optional
        Robot name (default ``model.graph.graph["name"]`` or ``"geomech_model"``).

    Returns
    -------
    str
        The URDF document.

    Raises
    ------
    URDFError
        If a joint has no URDF equivalent (helical, spherical, Schönflies); the message
        names the joint.

    Notes
    -----
    ``load_urdf(to_urdf(model))`` reproduces inertias, placements and joints, except that
    bodies attached by :class:`~geomech.multibody.joints.Fixed` joints are merged into their
    parents, and that sibling joints are reordered by name (urdfdom's order).

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.urdf import load_urdf, to_urdf
    >>> text = to_urdf(robots.double_pendulum())
    >>> text.splitlines()[0]
    '<robot name="double_pendulum">'
    >>> load_urdf(text).joint_names
    ['joint1', 'joint2']
    """
    if model.is_closed:  # URDF+: the spanning tree, then <loop>, <coupling>, independent
        from geomech.multibody import urdf_plus  # noqa: PLC0415 (urdf_plus builds on this module)

        return urdf_plus.closures_to_urdf(model, to_urdf(model.spanning_tree, name))
    robot = ET.Element("robot", name=name or model.graph.graph.get("name", "geomech_model"))
    ET.SubElement(robot, "link", name=str(model.root))
    types = {"revolute": "revolute", "prismatic": "prismatic", "fixed": "fixed",
             "free_flyer": "floating", "planar": "planar"}  # fmt: skip
    for i, joint in enumerate(model.joints):
        if joint.kind not in types:
            raise URDFError(
                f"joint {model.joint_names[i]!r}: a {joint.kind} joint has no URDF equivalent."
            )
    for i in range(model.n_bodies):
        link = ET.SubElement(robot, "link", name=model.body_names[i])
        _inertial_el(link, model.inertias[i])
    for i, joint in enumerate(model.joints):
        node = model.nodes[i]
        parent_node = next(iter(model.graph.predecessors(node)))
        edge = model.graph.edges[parent_node, node]
        jtype = types[joint.kind]
        if jtype == "revolute" and edge.get("urdf_type") == "continuous":
            jtype = "continuous"
        el = ET.SubElement(robot, "joint", name=model.joint_names[i], type=jtype)
        _origin_el(el, model.placements[i])
        parent = str(model.root) if model.parent[i] < 0 else model.body_names[model.parent[i]]
        ET.SubElement(el, "parent", link=parent)
        ET.SubElement(el, "child", link=model.body_names[i])
        if jtype in ("revolute", "continuous", "prismatic"):
            ET.SubElement(el, "axis", xyz=_fmt(joint.axis))
        elif jtype == "planar":
            ET.SubElement(el, "axis", xyz="0 0 1")
        if jtype in ("revolute", "prismatic"):
            limits = dict(edge.get("limits") or {})
            if not limits:
                bound = math.pi if jtype == "revolute" else 1.0
                limits = {"lower": repr(-bound), "upper": repr(bound)}
            limits.setdefault("effort", "1000.0")
            limits.setdefault("velocity", "100.0")
            ET.SubElement(el, "limit", **{k: str(v) for k, v in limits.items()})
    ET.indent(robot)
    return ET.tostring(robot, encoding="unicode") + "\n"
