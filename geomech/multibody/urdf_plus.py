r"""URDF+ (robots with kinematic loops): the ``<loop>``, ``<coupling>`` and ``independent`` elements.

URDF+ (Chignoli, Slotine, Wensing, Kim, arXiv 2411.19753) keeps URDF's links and joints,
which must form a tree (the spanning tree), and adds:

- ``<loop name="..." type="revolute|continuous|prismatic|fixed|planar|spherical|floating">``
  with ``<predecessor link="..."><origin xyz rpy/></predecessor>``, ``<successor
  link="..."><origin xyz rpy/></successor>`` and ``<axis xyz/>``: a loop joint whose frame
  sits at the two origins (the poses of the loop frame in the predecessor and successor
  links; they coincide when the loop joint is at zero), moving about the axis as a tree
  joint of that type would;
- ``<coupling name="..."><predecessor link/><successor link/><ratio value/></coupling>``:
  measured from the two links' nearest common ancestor, ``ratio`` times the sum of the joint
  angles down to the predecessor equals the sum of the joint angles down to the successor
  (the authors' meaning; ``ratio`` = successor velocity / predecessor velocity);
- the ``independent="true|false"`` attribute of ``<joint>``: whether the joint's coordinates
  are independent. URDF+ reads an absent attribute as independent; geomech treats it as a
  preference (an unmarked joint is made dependent only if the constraints need it, and
  :attr:`~geomech.multibody.loops.ClosedMultibodyModel.independent_joints` reports the
  choice), so that files marking every dependent joint load exactly as URDF+ prescribes.

:func:`~geomech.multibody.urdf.load_urdf` calls :func:`add_closures` on the graph it builds
and :func:`~geomech.multibody.urdf.to_urdf` calls :func:`closures_to_urdf` for closed models.
Links welded by fixed joints are merged into bodies, and loop origins are composed with the
link's pose in its body. ``spherical`` (and ``floating``) loop joints are geomech extensions
(URDF has no spherical joint).

Shipped examples (``geomech/multibody/data``, written by geomech; :func:`load_example`):

- ``four_bar``: a crank-rocker four-bar in the vertical plane (1 DoF, 1 loop);
- ``six_bar``: a Watt six-bar, two loops sharing the rocker (1 DoF, one 5-body cluster);
- ``planar_leg``: a hip and a four-bar knee linkage driven from the thigh (2 DoF; the
  cluster hangs from the thigh);
- ``geared_chain``: a spatial 3-link chain whose joints are driven by geared rotors mounted
  on the preceding link (3 DoF, three link–rotor clusters);
- ``belt_leg``: a leg whose knee and ankle are driven by rotors on the thigh, the ankle
  through a belt (the ankle rotor turns with knee + ankle: seed 004's parallel belt
  transmission), and a geared hip (3 DoF).

References
----------
URDF+ (arXiv 2411.19753) §III (the elements), §IV (parsing into clusters); seed 004 §1.2
(geared and belt transmissions, the four-bar).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

import numpy as np

from geomech.errors import ModelError, URDFError
from geomech.multibody.joints import (
    Fixed,
    FreeFlyer,
    Helical,
    Planar,
    Prismatic,
    Revolute,
    Spherical,
)
from geomech.multibody.urdf import load_urdf, matrix_to_rpy, rpy_to_matrix

__all__ = ["add_closures", "closures_to_urdf", "example_names", "example_path", "load_example"]

_EXAMPLES = {
    "four_bar": "four_bar.urdf",
    "six_bar": "six_bar.urdf",
    "planar_leg": "planar_leg.urdf",
    "geared_chain": "geared_chain.urdf",
    "belt_leg": "belt_leg.urdf",
}
_LOOP_TYPES = ("revolute", "continuous", "prismatic", "fixed", "planar", "spherical", "floating")


def _floats(text, n: int, what: str, default) -> np.ndarray:
    if text is None:
        return np.array(default, dtype=float)
    try:
        vals = [float(t) for t in text.split()]
    except ValueError as exc:
        raise URDFError(f"{what}: expected {n} numbers, got {text!r}.") from exc
    if len(vals) != n or not np.all(np.isfinite(vals)):
        raise URDFError(f"{what}: expected {n} finite numbers, got {text!r}.")
    return np.array(vals)


def _origin(elem, what: str) -> np.ndarray:
    T = np.eye(4)
    if elem is None:
        return T
    T[:3, :3] = rpy_to_matrix(_floats(elem.get("rpy"), 3, f"{what} <origin rpy>", [0, 0, 0]))
    T[:3, 3] = _floats(elem.get("xyz"), 3, f"{what} <origin xyz>", [0, 0, 0])
    return T


def _bool(text: str, what: str) -> bool:
    t = text.strip().lower()
    if t in ("true", "1"):
        return True
    if t in ("false", "0"):
        return False
    raise URDFError(f"{what}: expected independent=\"true\" or \"false\", got {text!r}.")


def _loop_joint(el, name: str):
    jtype = el.get("type")
    if jtype not in _LOOP_TYPES:
        raise URDFError(f"loop {name!r}: expected a type from {_LOOP_TYPES}, got {jtype!r}.")
    axis_el = el.find("axis")
    axis = _floats(None if axis_el is None else axis_el.get("xyz"), 3,
                   f"loop {name!r} <axis xyz>", [1, 0, 0])  # fmt: skip
    if jtype in ("revolute", "continuous", "prismatic") and not np.linalg.norm(axis) > 1e-12:
        raise URDFError(f"loop {name!r}: expected a nonzero <axis>, got {axis.tolist()}.")
    if jtype in ("revolute", "continuous"):
        return Revolute(axis, name=name)
    if jtype == "prismatic":
        return Prismatic(axis, name=name)
    if jtype == "planar":
        n = np.linalg.norm(axis)
        if axis_el is not None and not (n > 0 and np.allclose(axis / n, [0, 0, 1])):
            raise URDFError(
                f"loop {name!r}: planar loop joints move in the loop frame's xy-plane "
                f"(<axis xyz='0 0 1'>), got axis {axis.tolist()}."
            )
        return Planar(name=name)
    if jtype == "spherical":
        return Spherical(name=name)
    if jtype == "floating":
        return FreeFlyer(name=name)
    return Fixed(name=name)


def add_closures(G, robot: ET.Element, body_of: dict, pose_in_body: dict) -> None:
    """Add the URDF+ elements of a ``<robot>`` to the graph :func:`load_urdf` built from it.

    Sets the edge attribute ``independent`` of each moving joint that has the attribute,
    and adds one edge per ``<loop>`` (``kind="loop"``, ``joint``, ``placement``,
    ``successor_placement``) and per ``<coupling>`` (``kind="coupling"``, ``ratio``), from
    the predecessor's body to the successor's. ``G`` is modified in place.

    Parameters
    ----------
    G : networkx.DiGraph
        The spanning-tree graph (bodies are nodes, moving joints edges named after them).
    robot : xml.etree.ElementTree.Element
        The ``<robot>`` element.
    body_of : dict
        Link name -> body node (links welded by fixed joints share a body).
    pose_in_body : dict
        Link name -> 4x4 pose of the link frame in its body frame.

    Raises
    ------
    URDFError
        On a ``<loop>`` or ``<coupling>`` without a name, naming an undefined link, with an
        unknown type, a malformed origin, axis or ratio, between two links of one body, or
        duplicating an edge; on an ``independent`` value other than true/false.

    Examples
    --------
    >>> from geomech.multibody.urdf import load_urdf
    >>> urdf = '''<robot name="r">
    ...   <link name="base"/>
    ...   <link name="arm"><inertial><mass value="1"/>
    ...     <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
    ...   <link name="rotor"><inertial><mass value="0.1"/>
    ...     <inertia ixx="1e-3" ixy="0" ixz="0" iyy="1e-3" iyz="0" izz="1e-3"/></inertial></link>
    ...   <joint name="hinge" type="continuous"><parent link="base"/><child link="arm"/></joint>
    ...   <joint name="motor" type="continuous" independent="false">
    ...     <parent link="base"/><child link="rotor"/></joint>
    ...   <coupling name="gear"><predecessor link="arm"/><successor link="rotor"/>
    ...     <ratio value="10"/></coupling>
    ... </robot>'''
    >>> model = load_urdf(urdf)
    >>> model.nq, model.nv, model.independent_joints
    (2, 1, ['hinge'])
    """
    edges_by_name = {d.get("name"): (u, v) for u, v, d in G.edges(data=True)}
    for el in robot.findall("joint"):
        mark = el.get("independent")
        if mark is None:
            continue
        name = el.get("name")
        value = _bool(mark, f"joint {name!r}")
        if name in edges_by_name:  # fixed joints are merged and have no coordinates
            G.edges[edges_by_name[name]]["independent"] = value

    def link_of(el, tag: str, what: str):
        sub = el.find(tag)
        link = None if sub is None else sub.get("link")
        if link is None:
            raise URDFError(f"{what}: missing <{tag} link=...>.")
        if link not in body_of:
            raise URDFError(f"{what}: {tag} link {link!r} is not defined (or not connected).")
        return link, sub

    names = set()
    for tag in ("loop", "coupling"):
        for el in robot.findall(tag):
            name = el.get("name")
            if not name:
                raise URDFError(f"Found a <{tag}> without a name.")
            if name in names:
                raise URDFError(f"{tag} {name!r} is defined more than once.")
            names.add(name)
            what = f"{tag} {name!r}"
            (p_link, p_el), (s_link, s_el) = link_of(el, "predecessor", what), link_of(el, "successor", what)
            u, v = body_of[p_link], body_of[s_link]
            if u == v:
                raise URDFError(f"{what}: links {p_link!r} and {s_link!r} belong to one body.")
            if G.has_edge(u, v):
                raise URDFError(
                    f"{what}: bodies {u!r} and {v!r} are already joined by an edge of the "
                    "graph; a loop or coupling between them cannot be represented."
                )
            if tag == "loop":
                G.add_edge(
                    u, v, kind="loop", name=name, urdf_type=el.get("type"),
                    joint=_loop_joint(el, name),
                    placement=pose_in_body[p_link] @ _origin(p_el.find("origin"), what),
                    successor_placement=pose_in_body[s_link] @ _origin(s_el.find("origin"), what),
                )  # fmt: skip
            else:
                ratio_el = el.find("ratio")
                ratio = _floats(None if ratio_el is None else ratio_el.get("value"), 1,
                                f"{what} <ratio value>", [1.0])[0]  # fmt: skip
                G.add_edge(u, v, kind="coupling", name=name, ratio=float(ratio))


def _fmt(x) -> str:
    return " ".join(repr(float(v)) for v in np.ravel(x))


def _origin_el(parent, T) -> None:
    ET.SubElement(parent, "origin", xyz=_fmt(T[:3, 3]), rpy=_fmt(matrix_to_rpy(T[:3, :3])))


_TYPE_OF = {Revolute: "revolute", Prismatic: "prismatic", Fixed: "fixed", Planar: "planar",
            Spherical: "spherical", FreeFlyer: "floating"}  # fmt: skip


def closures_to_urdf(model, tree_text: str) -> str:
    """Add the URDF+ elements of a closed model to the URDF text of its spanning tree.

    Every moving joint gets ``independent="true"`` or ``"false"`` (the model's choice), and
    each loop joint and coupling becomes a ``<loop>`` or ``<coupling>`` element.

    Parameters
    ----------
    model : ClosedMultibodyModel
    tree_text : str
        ``to_urdf(model.spanning_tree)``.

    Returns
    -------
    str

    Raises
    ------
    URDFError
        If the model has implicit constraints (URDF+ cannot express them) or a loop joint
        without URDF+ equivalent (helical, Schönflies).

    Examples
    --------
    >>> from geomech.multibody.urdf import load_urdf, to_urdf
    >>> from geomech.multibody.urdf_plus import load_example
    >>> text = to_urdf(load_example("four_bar"))
    >>> "<loop" in text, load_urdf(text).independent_joints
    (True, ['crank_joint'])
    """
    robot = ET.fromstring(tree_text)
    indep = set(model.independent_joints)
    for el in robot.findall("joint"):
        name = el.get("name")
        if name in model.joint_names and model.joints[model.joint_names.index(name)].nv:
            el.set("independent", "true" if name in indep else "false")
    link_of = {-1: str(model.root)} | dict(enumerate(model.body_names))
    for con in model.constraints:
        if con.kind == "implicit":
            raise URDFError(
                f"constraint {con.name!r}: implicit constraints have no URDF+ equivalent."
            )
        if con.kind == "loop":
            jtype = _TYPE_OF.get(type(con.joint))
            if jtype is None or isinstance(con.joint, Helical):
                raise URDFError(
                    f"loop {con.name!r}: a {con.joint.kind} loop joint has no URDF+ equivalent."
                )
            el = ET.SubElement(robot, "loop", name=con.name, type=jtype)
            for tag, body, T in (("predecessor", con.pred, con.Tp), ("successor", con.succ, con.Ts)):
                sub = ET.SubElement(el, tag, link=link_of[body])
                _origin_el(sub, T)
            if jtype in ("revolute", "prismatic"):
                ET.SubElement(el, "axis", xyz=_fmt(con.joint.axis))
            elif jtype == "planar":
                ET.SubElement(el, "axis", xyz="0 0 1")
        else:
            el = ET.SubElement(robot, "coupling", name=con.name)
            ET.SubElement(el, "predecessor", link=link_of[con.pred])
            ET.SubElement(el, "successor", link=link_of[con.succ])
            ET.SubElement(el, "ratio", value=repr(con.ratio))
    ET.indent(robot)
    return ET.tostring(robot, encoding="unicode") + "\n"


def example_names() -> list[str]:
    """Names of the shipped URDF+ examples.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from geomech.multibody.urdf_plus import example_names
    >>> example_names()
    ['belt_leg', 'four_bar', 'geared_chain', 'planar_leg', 'six_bar']
    """
    return sorted(_EXAMPLES)


def example_path(name: str) -> Path:
    """Path of a shipped URDF+ example.

    Parameters
    ----------
    name : str
        One of :func:`example_names`.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ModelError
        If ``name`` is not a shipped example.

    Examples
    --------
    >>> from geomech.multibody.urdf_plus import example_path
    >>> example_path("four_bar").name
    'four_bar.urdf'
    """
    if name not in _EXAMPLES:
        raise ModelError(f"Expected a URDF+ example name from {example_names()!r}, got {name!r}.")
    return Path(str(resources.files("geomech.multibody") / "data" / _EXAMPLES[name]))


def load_example(name: str, floating_base: bool = False):
    """Load a shipped URDF+ example as a closed model.

    Parameters
    ----------
    name : str
        One of :func:`example_names`.
    floating_base : bool
        Attach the root link by a free flyer (see :func:`~geomech.multibody.urdf.load_urdf`).

    Returns
    -------
    ClosedMultibodyModel

    Raises
    ------
    ModelError
        If ``name`` is not a shipped example.

    Examples
    --------
    >>> from geomech.multibody.urdf_plus import load_example
    >>> model = load_example("belt_leg", floating_base=True)
    >>> model.nq, model.nv, len(model.clusters)
    (13, 9, 3)
    """
    return load_urdf(example_path(name), floating_base=floating_base)
