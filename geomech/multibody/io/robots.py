r"""Built-in multibody models and the robot URDFs shipped with geomech.

Generated models (every one a :class:`~geomech.multibody.model.tree.MultibodyModel`):

- :func:`serial_chain`, :func:`binary_tree`, :func:`random_tree`: benchmark topologies
  (Featherstone's chains and binary trees; random parent arrays) with random, physically
  consistent inertias, random joint placements and random revolute (and, in random trees,
  prismatic) axes. ``rng=None`` means the fixed seed 0, so the default models are
  reproducible; pass a seed or a generator for other draws.
- :func:`double_pendulum`: the planar double pendulum with point masses (the smallest
  example in the docstrings).
- :func:`scara`: a SCARA arm (revolute–revolute–prismatic–revolute) whose end effector moves
  in the Schönflies group X(z).
- :func:`quadruped`, :func:`humanoid`: deterministic floating-base legged robots
  (18 and 30 degrees of freedom); ``humanoid(fixed_base=True)`` welds the pelvis to the world.

Robots with transmissions (closed models,
:class:`~geomech.multibody.closed.model.ClosedMultibodyModel`: seed 004's benchmark set,
Sec. IX and Table I): :func:`geared_chain` and :func:`belt_chain` (the "GT" and "PBT"
chains), :func:`mini_cheetah`, :func:`mit_humanoid`, :func:`jvrc1_geared` and :func:`tello`
(its hip and knee–ankle differentials built as linkages: loop joints and couplings);
:func:`add_rotors` drives the named joints of any tree through geared rotors.

Shipped URDFs (in ``geomech/multibody/io/data``, visuals and meshes stripped; see the
``README.md`` there for sources and licences) are listed by :func:`names` and loaded by
:func:`load`, which also accepts the names of the generated models and URDF file paths.

When the ``example-robot-data`` package is installed (``pip install 'geomech[robots]'``),
:func:`load` also finds its robots by name (:func:`example_robot_data_names`): the URDF's
file name without ``.urdf`` (``"solo12"``, ``"talos_reduced"``, ``"panda"``), or
``"<package>/<file name>"`` (``"anymal_c_simple_description/anymal"``), which is the only
form for the few file names that are ambiguous or that name a generated model here
(``double_pendulum``, ``quadruped``, ``anymal``). Legged, humanoid and flying robots get a
floating base by default (:func:`example_robot_data_floating`); arms, hands and mobile
manipulators are fixed.

Every generated model can be written with :func:`~geomech.multibody.io.urdf.to_urdf` and loaded
by Pinocchio.

References
----------
R. Featherstone, *Rigid Body Dynamics Algorithms*, 2008, §10.1 (chains and binary trees as
benchmark topologies); seed 001 §5 (random trees).
"""

from __future__ import annotations

import functools
import math
import os
from importlib import metadata, resources
from pathlib import Path

import networkx as nx
import numpy as np

from geomech._validation import check_size, default_rng
from geomech.errors import ModelError
from geomech.lie import SO3
from geomech.multibody.closed.model import ClosedMultibodyModel
from geomech.multibody.io.urdf import load_urdf
from geomech.multibody.model.joints import FreeFlyer, Prismatic, Revolute, Spherical
from geomech.multibody.model.tree import MultibodyModel
from geomech.spatial import spatial_inertia

__all__ = [
    "serial_chain",
    "binary_tree",
    "random_tree",
    "double_pendulum",
    "scara",
    "quadruped",
    "humanoid",
    "add_rotors",
    "geared_chain",
    "belt_chain",
    "mini_cheetah",
    "mit_humanoid",
    "jvrc1_geared",
    "tello",
    "JVRC1_GEARED_JOINTS",
    "names",
    "load",
    "urdf_path",
    "random_inertia",
    "example_robot_data_names",
    "example_robot_data_path",
    "example_robot_data_floating",
]

#: Shipped URDF files: name -> (file, floating base by default).
_URDFS = {
    "jvrc1": ("jvrc1.urdf", True),
    "stretch": ("stretch_se3.urdf", False),
    "ur5": ("ur5.urdf", False),
}


# ----------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------
def random_inertia(rng=None, size=None) -> np.ndarray:
    r"""Random physically consistent spatial inertias (solid boxes with offset centres of mass).

    Mass :math:`m \sim U(0.5, 2)` kg; box sides :math:`U(0.05, 0.5)` m, giving principal
    moments :math:`\tfrac{m}{12}(b^2 + c^2)`, … (which satisfy the triangle inequalities);
    random principal axes; centre of mass :math:`U(-0.2, 0.2)^3` m.

    Parameters
    ----------
    rng : None, int or numpy.random.Generator, optional
        Source of randomness.
    size : None, int or tuple of int, optional
        Batch shape.

    Returns
    -------
    ndarray, shape (*size, 6, 6)

    Examples
    --------
    >>> from geomech.multibody.io.robots import random_inertia
    >>> from geomech.spatial import is_physically_consistent
    >>> bool(is_physically_consistent(random_inertia(rng=0, size=100)).all())
    True
    """
    rng = default_rng(rng)
    shape = check_size(size, per_item=36 * 4)  # the inertias and their working arrays
    m = rng.uniform(0.5, 2.0, shape)
    d2 = rng.uniform(0.05, 0.5, shape + (3,)) ** 2
    moments = m[..., None] / 12.0 * (d2.sum(-1, keepdims=True) - d2)
    R = SO3.random(rng, shape)
    Ic = R @ (moments[..., :, None] * np.swapaxes(R, -1, -2))
    c = rng.uniform(-0.2, 0.2, shape + (3,))
    return spatial_inertia(m, c, Ic)


def _random_pose(rng: np.random.Generator) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = SO3.random(rng)
    T[:3, 3] = rng.uniform(-0.5, 0.5, 3)
    return T


def _random_axis(rng: np.random.Generator) -> np.ndarray:
    a = rng.normal(size=3)
    return a / np.linalg.norm(a)


def _pose(xyz=(0.0, 0.0, 0.0)) -> np.ndarray:
    T = np.eye(4)
    T[:3, 3] = xyz
    return T


def _box(mass: float, size, com=(0.0, 0.0, 0.0)) -> np.ndarray:
    """Spatial inertia of a solid box of side lengths ``size`` centred at ``com``."""
    a, b, c = np.square(size)
    return spatial_inertia(mass, com, mass / 12.0 * np.diag([b + c, a + c, a + b]))


def _rod(mass: float, length: float, radius: float, com) -> np.ndarray:
    """Solid cylinder along the direction of ``com`` (axis z if ``com`` is vertical)."""
    axial = 0.5 * mass * radius**2
    trans = mass * (3 * radius**2 + length**2) / 12.0
    com = np.asarray(com, dtype=float)
    k = int(np.argmax(np.abs(com))) if np.any(com) else 2
    moments = np.full(3, trans)
    moments[k] = axial
    return spatial_inertia(mass, com, np.diag(moments))


def _generated(parent, rng, joint_factory, floating_base: bool, name: str) -> MultibodyModel:
    floating_base = _flag(floating_base, "floating_base")
    rng = default_rng(0 if rng is None else rng)
    n = len(parent)
    joints, placements = [], []
    for i in range(n):
        if floating_base and i == 0:
            joints.append(FreeFlyer(name="root_joint"))
            placements.append(np.eye(4))
        else:
            joints.append(joint_factory(rng, i))
            placements.append(_random_pose(rng))
    inertias = random_inertia(rng, n)
    model = MultibodyModel.from_bodies(
        parent,
        joints,
        inertias,
        placements,
        body_names=[f"link{i + 1}" for i in range(n)],
        joint_names=[j.name or f"joint{i + 1}" for i, j in enumerate(joints)],
        name=name,
    )
    return model


#: Most bodies of a generated model (:func:`serial_chain`, :func:`binary_tree`,
#: :func:`random_tree`): five times the largest benchmark chain (20,000 bodies); a model
#: takes about 10 kB and 0.2 ms a body to build.
MAX_GENERATED_BODIES = 100_000


def _flag(x, name: str) -> bool:
    """A bool option (``"no"`` would be true), or a ModelError naming it."""
    if not isinstance(x, (bool, np.bool_)):
        raise ModelError(f"Expected `{name}` to be a bool, got {x!r}.")
    return bool(x)


def _number(x, name: str, nonnegative: bool = False) -> float:
    """A finite real number given as an int or a float (not text, not a bool)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise ModelError(f"Expected `{name}` to be a real number, got {repr(x)[:40]}.")
    try:
        value = float(x)
    except OverflowError:  # an int beyond the range of float64
        value = math.inf
    if not math.isfinite(value) or (nonnegative and value < 0):
        what = "finite, nonnegative" if nonnegative else "finite"
        shown = repr(x) if len(repr(x)) <= 40 else f"{repr(x)[:20]}... ({len(repr(x))} characters)"
        raise ModelError(f"Expected a {what} `{name}`, got {shown}.")
    return value


def _check_n(n) -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ModelError(f"Expected the number of bodies `n` to be a positive integer, got {n!r}.")
    if n > MAX_GENERATED_BODIES:
        raise ModelError(
            f"Expected the number of bodies `n` to be at most {MAX_GENERATED_BODIES}, got {n}."
        )
    return int(n)


def _revolute(rng, i):
    return Revolute(_random_axis(rng))


# ----------------------------------------------------------------------------------------
# Benchmark topologies
# ----------------------------------------------------------------------------------------
def serial_chain(n: int = 6, rng=None, *, floating_base: bool = False) -> MultibodyModel:
    """A serial chain of ``n`` bodies connected by revolute joints about random axes.

    Parameters
    ----------
    n : int
        Number of bodies (= joints).
    rng : None, int or numpy.random.Generator, optional
        Randomness for inertias (:func:`random_inertia`), placements and axes; ``None`` is
        the fixed seed 0.
    floating_base : bool
        If True, the first joint is a free flyer named ``"root_joint"``.

    Returns
    -------
    MultibodyModel
        Bodies ``link1 … linkn``, joints ``joint1 … jointn``; depth ``n``.

    Raises
    ------
    ModelError
        If ``n`` is not a positive integer.

    Examples
    --------
    >>> from geomech.multibody.io.robots import serial_chain
    >>> m = serial_chain(4)
    >>> m.nv, m.depth, m.parent.tolist()
    (4, 4, [-1, 0, 1, 2])
    """
    n = _check_n(n)
    return _generated(list(range(-1, n - 1)), rng, _revolute, floating_base, f"chain{n}")


def binary_tree(n: int = 15, rng=None, *, floating_base: bool = False) -> MultibodyModel:
    """A binary tree of ``n`` bodies (body ``k`` of the heap layout has parent ``(k-1)//2``).

    Joints are revolute about random axes; the model numbers the bodies depth-first, so
    heap body ``k`` is the model body named ``f"link{k + 1}"``.

    Parameters
    ----------
    n : int
        Number of bodies.
    rng : None, int or numpy.random.Generator, optional
        Randomness for inertias, placements and axes; ``None`` is the fixed seed 0.
    floating_base : bool
        If True, the root body's joint is a free flyer named ``"root_joint"``.

    Returns
    -------
    MultibodyModel
        Depth ``floor(log2(n)) + 1``.

    Raises
    ------
    ModelError
        If ``n`` is not a positive integer.

    References
    ----------
    Featherstone 2008, §10.1 (binary-tree benchmark).

    Examples
    --------
    >>> from geomech.multibody.io.robots import binary_tree
    >>> m = binary_tree(7)
    >>> m.depth, m.parent.tolist()
    (3, [-1, 0, 1, 1, 0, 4, 4])
    """
    n = _check_n(n)
    parent = [-1] + [(k - 1) // 2 for k in range(1, n)]
    return _generated(parent, rng, _revolute, floating_base, f"binary_tree{n}")


def random_tree(n: int = 20, rng=None, *, floating_base: bool = False) -> MultibodyModel:
    """A random tree of ``n`` bodies: each body's parent is uniform among the earlier bodies and the
    base.

    Joints are revolute (probability 3/4) or prismatic (1/4) about random axes.

    Parameters
    ----------
    n : int
        Number of bodies.
    rng : None, int or numpy.random.Generator, optional
        Randomness for the topology, joint types, inertias, placements and axes; ``None`` is
        the fixed seed 0.
    floating_base : bool
        If True, body ``link1`` is attached to the base by a free flyer named
        ``"root_joint"`` and every other body descends from it.

    Returns
    -------
    MultibodyModel

    Raises
    ------
    ModelError
        If ``n`` is not a positive integer.

    Examples
    --------
    >>> from geomech.multibody.io.robots import random_tree
    >>> m = random_tree(30, rng=1)
    >>> m.n_bodies, bool((m.parent < range(30)).all())
    (30, True)
    """
    n = _check_n(n)
    rng = default_rng(0 if rng is None else rng)
    low = 0 if floating_base else -1
    parent = [-1] + [int(rng.integers(low, i)) for i in range(1, n)]

    def factory(rng, i):
        axis = _random_axis(rng)
        return Prismatic(axis) if rng.random() < 0.25 else Revolute(axis)

    return _generated(parent, rng, factory, floating_base, f"random_tree{n}")


# ----------------------------------------------------------------------------------------
# Hand-built models
# ----------------------------------------------------------------------------------------
def double_pendulum(
    m1: float = 1.0, m2: float = 1.0, l1: float = 1.0, l2: float = 1.0, *, radius: float = 0.0
) -> MultibodyModel:
    r"""Planar double pendulum: point masses on massless links, revolute joints about y.

    Both links hang along :math:`-z` at ``q = 0``; joint 2 sits at the end of link 1. The
    mass matrix is

    .. math:: \mathbf H = \begin{bmatrix}(m_1+m_2)l_1^2 + m_2l_2^2 + 2m_2l_1l_2\cos q_2 &
              m_2l_2^2 + m_2l_1l_2\cos q_2\\ m_2l_2^2 + m_2l_1l_2\cos q_2 & m_2l_2^2\end{bmatrix}
              + \begin{bmatrix}J_1 + J_2 & J_2\\ J_2 & J_2\end{bmatrix},
              \qquad J_k = \tfrac25 m_k r^2 .

    Point masses (``radius = 0``, the default) have singular 6×6 spatial inertias; with
    ``radius > 0`` the masses are solid spheres and every body inertia is positive definite
    (as a left-invariant metric on SE(3) requires).

    Parameters
    ----------
    m1, m2 : float
        Masses (kg) at the ends of links 1 and 2.
    l1, l2 : float
        Link lengths (m).
    radius : float, optional
        Radius ``r`` (m) of the solid spheres; 0 for point masses.

    Returns
    -------
    MultibodyModel
        Base ``world``, bodies ``link1``, ``link2``, joints ``joint1``, ``joint2``.

    Raises
    ------
    ModelError
        If a parameter is not a finite real number (text, a bool), or a mass or ``radius``
        is negative.

    Examples
    --------
    >>> from geomech.multibody.io.robots import double_pendulum
    >>> m = double_pendulum()
    >>> m.body_names, m.joint_names
    (['link1', 'link2'], ['joint1', 'joint2'])
    """
    m1, m2 = _number(m1, "m1", nonnegative=True), _number(m2, "m2", nonnegative=True)
    l1, l2 = _number(l1, "l1"), _number(l2, "l2")
    radius = _number(radius, "radius", nonnegative=True)
    G = nx.DiGraph(name="double_pendulum")
    sphere = 0.4 * radius**2 * np.eye(3)
    G.add_node("world")
    G.add_node("link1", inertia=spatial_inertia(m1, [0.0, 0.0, -l1], m1 * sphere))
    G.add_node("link2", inertia=spatial_inertia(m2, [0.0, 0.0, -l2], m2 * sphere))
    G.add_edge("world", "link1", joint=Revolute([0.0, 1.0, 0.0]), name="joint1")
    G.add_edge(
        "link1", "link2", joint=Revolute([0.0, 1.0, 0.0]), placement=_pose([0, 0, -l1]),
        name="joint2",
    )  # fmt: skip
    return MultibodyModel(G)


def scara() -> MultibodyModel:
    r"""A SCARA arm: revolute (z) – revolute (z) – prismatic (z) – revolute (z).

    The four joints generate exactly the Schönflies motions X(z) of the end effector
    (translations and rotations about the vertical); a single
    :class:`~geomech.multibody.model.joints.SchoenfliesJoint` models the same motion group in one
    joint. Dimensions and masses are those of a mid-size SCARA (0.35 m + 0.30 m reach,
    base height 0.4 m).

    Returns
    -------
    MultibodyModel
        Bodies ``arm1``, ``arm2``, ``quill``, ``tool``; joints ``shoulder``, ``elbow``,
        ``quill_z``, ``wrist``.

    References
    ----------
    Seed 003 §2.5 (the Schönflies group).

    Examples
    --------
    >>> from geomech.multibody.io.robots import scara
    >>> m = scara()
    >>> m.joint_names, m.joint_types()
    (['shoulder', 'elbow', 'quill_z', 'wrist'], {'prismatic': 1, 'revolute': 3})
    """
    G = nx.DiGraph(name="scara")
    z = [0.0, 0.0, 1.0]
    G.add_node("base")
    G.add_node("arm1", inertia=_rod(5.0, 0.35, 0.05, [0.175, 0.0, 0.0]))
    G.add_node("arm2", inertia=_rod(3.0, 0.30, 0.04, [0.15, 0.0, 0.0]))
    G.add_node("quill", inertia=_rod(1.0, 0.30, 0.015, [0.0, 0.0, -0.1]))
    G.add_node("tool", inertia=_box(0.5, [0.06, 0.06, 0.08], [0.0, 0.0, -0.04]))
    G.add_edge("base", "arm1", joint=Revolute(z), placement=_pose([0, 0, 0.4]), name="shoulder")
    G.add_edge("arm1", "arm2", joint=Revolute(z), placement=_pose([0.35, 0, 0]), name="elbow")
    G.add_edge("arm2", "quill", joint=Prismatic(z), placement=_pose([0.3, 0, 0]), name="quill_z")
    G.add_edge("quill", "tool", joint=Revolute(z), placement=_pose([0, 0, -0.2]), name="wrist")
    return MultibodyModel(G)


def quadruped() -> MultibodyModel:
    r"""A quadruped with a floating trunk and four 3-DoF legs (18 degrees of freedom).

    Legs ``LF``, ``LH``, ``RF``, ``RH`` (left/right, front/hind) each have hip abduction
    ``HAA`` (about x), hip flexion ``HFE`` and knee ``KFE`` (about y), with 0.3 m thigh and
    shank; trunk 12 kg, thigh 1.5 kg, shank 0.5 kg. The free-flyer joint is
    ``"root_joint"``.

    Returns
    -------
    MultibodyModel
        ``nq = 19``, ``nv = 18``, depth 4.

    Examples
    --------
    >>> from geomech.multibody.io.robots import quadruped
    >>> m = quadruped()
    >>> m.nq, m.nv, m.depth, m.joint_names[:4]
    (19, 18, 4, ['root_joint', 'LF_HAA', 'LF_HFE', 'LF_KFE'])
    """
    G = nx.DiGraph(name="quadruped")
    G.add_node("world")
    G.add_node("trunk", inertia=_box(12.0, [0.6, 0.3, 0.15]))
    G.add_edge("world", "trunk", joint=FreeFlyer(), name="root_joint")
    x_axis, y_axis = [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]
    for leg, (sx, sy) in (("LF", (1, 1)), ("LH", (-1, 1)), ("RF", (1, -1)), ("RH", (-1, -1))):
        G.add_node(f"{leg}_hip", inertia=_box(1.0, [0.08, 0.08, 0.08], [0.0, sy * 0.05, 0.0]))
        G.add_node(f"{leg}_thigh", inertia=_rod(1.5, 0.3, 0.03, [0.0, 0.0, -0.15]))
        G.add_node(f"{leg}_shank", inertia=_rod(0.5, 0.3, 0.02, [0.0, 0.0, -0.15]))
        G.add_edge("trunk", f"{leg}_hip", joint=Revolute(x_axis),
                   placement=_pose([sx * 0.3, sy * 0.15, 0.0]), name=f"{leg}_HAA")  # fmt: skip
        G.add_edge(f"{leg}_hip", f"{leg}_thigh", joint=Revolute(y_axis),
                   placement=_pose([0.0, sy * 0.1, 0.0]), name=f"{leg}_HFE")  # fmt: skip
        G.add_edge(f"{leg}_thigh", f"{leg}_shank", joint=Revolute(y_axis),
                   placement=_pose([0.0, 0.0, -0.3]), name=f"{leg}_KFE")  # fmt: skip
    return MultibodyModel(G)


def humanoid(fixed_base: bool = False) -> MultibodyModel:
    r"""A humanoid with 24 revolute joints on a floating pelvis (30 degrees of freedom).

    Legs (6 each): ``hip_yaw``, ``hip_roll``, ``hip_pitch``, ``knee``, ``ankle_pitch``,
    ``ankle_roll``; torso: ``torso_yaw``, ``torso_pitch``; neck: ``neck_yaw``,
    ``neck_pitch``; arms (4 each): ``shoulder_pitch``, ``shoulder_roll``, ``shoulder_yaw``,
    ``elbow`` (prefixed ``l_``/``r_``). Geometry and masses are fixed (about 1.2 m and
    51 kg), so the model is deterministic; every link has mass, so ``H`` is positive definite
    at every configuration away from the gimbal locks of the hips and shoulders.

    This is the default model of ``geomech inspect``.

    Parameters
    ----------
    fixed_base : bool
        If True the pelvis is the fixed base (``nq = nv = 24``); otherwise it is attached to
        the world by a free flyer ``"root_joint"`` (``nq = 31``, ``nv = 30``).

    Returns
    -------
    MultibodyModel

    Examples
    --------
    >>> from geomech.multibody.io.robots import humanoid
    >>> m = humanoid()
    >>> m.n_bodies, m.nq, m.nv, m.depth
    (25, 31, 30, 7)
    >>> humanoid(fixed_base=True).nv
    24
    """
    fixed_base = _flag(fixed_base, "fixed_base")
    G = nx.DiGraph(name="humanoid_fixed" if fixed_base else "humanoid")
    x, y, z = [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]
    small = _box(0.5, [0.06, 0.06, 0.06])
    base = "pelvis"
    if not fixed_base:
        G.add_node("world")
        G.add_node("pelvis", inertia=_box(8.0, [0.2, 0.3, 0.15]))
        G.add_edge("world", "pelvis", joint=FreeFlyer(), name="root_joint")
    else:
        G.add_node("pelvis")

    def chain(parent, links):
        for body, inertia, joint_name, axis, xyz in links:
            G.add_node(body, inertia=inertia)
            G.add_edge(parent, body, joint=Revolute(axis), placement=_pose(xyz), name=joint_name)
            parent = body

    for s, sy in (("l", 1.0), ("r", -1.0)):
        chain(base, [
            (f"{s}_hip_yaw_link", _box(1.0, [0.08] * 3), f"{s}_hip_yaw", z, [0, sy * 0.1, -0.1]),
            (f"{s}_hip_roll_link", _box(1.0, [0.08] * 3), f"{s}_hip_roll", x, [0, 0, -0.05]),
            (f"{s}_thigh", _rod(4.0, 0.35, 0.06, [0, 0, -0.175]), f"{s}_hip_pitch", y, [0, 0, 0]),
            (f"{s}_shank", _rod(2.5, 0.35, 0.05, [0, 0, -0.175]), f"{s}_knee", y, [0, 0, -0.35]),
            (f"{s}_ankle", small, f"{s}_ankle_pitch", y, [0, 0, -0.35]),
            (f"{s}_foot", _box(1.0, [0.2, 0.1, 0.05], [0.03, 0, -0.04]), f"{s}_ankle_roll", x,
             [0, 0, 0]),
        ])  # fmt: skip
    chain(base, [
        ("abdomen", _box(2.0, [0.15, 0.2, 0.1], [0, 0, 0.05]), "torso_yaw", z, [0, 0, 0.1]),
        ("chest", _box(10.0, [0.2, 0.3, 0.35], [0, 0, 0.2]), "torso_pitch", y, [0, 0, 0.1]),
    ])  # fmt: skip
    for s, sy in (("l", 1.0), ("neck", 0.0), ("r", -1.0)):  # children of the chest, by name
        if s == "neck":
            chain("chest", [
                ("neck", small, "neck_yaw", z, [0, 0, 0.4]),
                ("head", _box(3.0, [0.2, 0.2, 0.2], [0, 0, 0.1]), "neck_pitch", y, [0, 0, 0.05]),
            ])  # fmt: skip
            continue
        chain("chest", [
            (f"{s}_shoulder", small, f"{s}_shoulder_pitch", y, [0, sy * 0.2, 0.3]),
            (f"{s}_shoulder_roll_link", small, f"{s}_shoulder_roll", x, [0, sy * 0.05, 0]),
            (f"{s}_upper_arm", _rod(1.5, 0.25, 0.04, [0, 0, -0.1]), f"{s}_shoulder_yaw", z,
             [0, 0, -0.1]),
            (f"{s}_forearm", _rod(1.2, 0.3, 0.035, [0, 0, -0.12]), f"{s}_elbow", y,
             [0, 0, -0.2]),
        ])  # fmt: skip
    return MultibodyModel(G)


# ----------------------------------------------------------------------------------------
# Robots with geared and belt transmissions (closed models, seed 004 Sec. IX)
# ----------------------------------------------------------------------------------------
def _rotor_inertia(mass: float, radius: float, axis) -> np.ndarray:
    """A rotor: a thin disc of ``mass`` and ``radius`` about ``axis``, centred on the axis."""
    axis = np.asarray(axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    axial, trans = 0.5 * mass * radius**2, 0.25 * mass * radius**2
    return spatial_inertia(
        mass, np.zeros(3), trans * np.eye(3) + (axial - trans) * np.outer(axis, axis)
    )


def add_rotors(graph: nx.DiGraph, ratios: dict, rotor=None) -> nx.DiGraph:
    r"""Drive joints of a tree through geared rotors: a copy of ``graph`` with a rotor per joint.

    For every joint edge ``parent -> child`` named in ``ratios`` (joint name -> gear ratio
    :math:`N`), a rotor body ``<child>_rotor`` is added on ``parent``, turning about the
    joint's axis at the joint's placement, with a coupling :math:`q_{\rm rotor} = N q` (seed
    004 Fig. 3a, grbda's ``RevoluteWithRotor``): each link and its rotor form a cluster of two
    bodies with one degree of freedom.

    Parameters
    ----------
    graph : networkx.DiGraph
        A tree graph (``MultibodyModel.graph``) whose named joints are revolute.
    ratios : dict
        Joint name -> gear ratio.
    rotor : callable, optional
        ``rotor(name, axis) -> (6, 6)`` spatial inertia of the rotor of joint ``name`` (in
        the rotor's frame, the joint frame); default a 0.1 kg disc of radius 4 cm.

    Returns
    -------
    networkx.DiGraph
        For :class:`~geomech.multibody.closed.model.ClosedMultibodyModel`.

    Raises
    ------
    ModelError
        If a named joint is missing or not revolute.

    Examples
    --------
    >>> from geomech.multibody import ClosedMultibodyModel
    >>> from geomech.multibody.io.robots import add_rotors, serial_chain
    >>> m = ClosedMultibodyModel(add_rotors(serial_chain(2).graph, {"joint1": 6.0}))
    >>> m.n_bodies, m.nv, len(m.clusters)
    (3, 2, 2)
    """
    g = graph.copy()
    rotor = rotor or (lambda name, axis: _rotor_inertia(0.1, 0.04, axis))
    found = {}
    for u, v, d in graph.edges(data=True):
        if d.get("kind", "joint") == "joint" and d.get("name") in ratios:
            found[d["name"]] = (u, v, d)
    missing = sorted(set(ratios) - set(found))
    if missing:
        raise ModelError(f"Expected joints {missing} in the graph to drive by rotors.")
    for name, (u, v, d) in found.items():
        joint = d["joint"]
        if not isinstance(joint, Revolute):
            raise ModelError(f"Expected a revolute joint to drive by a rotor, got {name!r}.")
        r = f"{v}_rotor"
        g.add_node(r, inertia=rotor(name, joint.axis))
        g.add_edge(u, r, joint=Revolute(joint.axis), placement=np.array(d["placement"]),
                   name=f"{name}_rotor", independent=False)  # fmt: skip
        g.add_edge(v, r, kind="coupling", ratio=float(ratios[name]), name=f"{name}_gear")
    return g


def geared_chain(n: int = 12, rng=None):
    r"""Seed 004's geared-transmission chain: ``n`` links, each driven by a geared rotor.

    Link ``k`` turns about a random axis on link ``k − 1``; its rotor sits on link ``k − 1``
    about the same axis with a ratio :math:`N_k \sim U(6, 10)` (grbda's
    ``RevoluteChainWithRotor``, the paper's "GT chain", Table I: 2n bodies, n clusters,
    n DoF). Random inertias (:func:`random_inertia`, rotors at 1 %) and placements.

    Parameters
    ----------
    n : int
        Number of links.
    rng : None, int or numpy.random.Generator, optional
        ``None`` is the fixed seed 0.

    Returns
    -------
    ClosedMultibodyModel

    Examples
    --------
    >>> from geomech.multibody.io.robots import geared_chain
    >>> m = geared_chain(12)
    >>> m.n_bodies, len(m.clusters), m.nv
    (24, 12, 12)
    """
    n = _check_n(n)
    rng = default_rng(0 if rng is None else rng)
    g = nx.DiGraph(name=f"geared_chain_{n}")
    g.add_node("world")
    prev = "world"
    for k in range(1, n + 1):
        T = np.eye(4)
        T[:3, :3] = SO3.exp(0.5 * rng.normal(size=3))
        T[:3, 3] = rng.uniform(-0.3, 0.3, 3)
        axis = _random_axis(rng)
        Tr = T.copy()
        Tr[:3, 3] = T[:3, 3] + rng.uniform(-0.1, 0.1, 3)
        g.add_node(f"link{k}", inertia=random_inertia(rng))
        g.add_node(f"rotor{k}", inertia=0.01 * random_inertia(rng))
        g.add_edge(prev, f"link{k}", joint=Revolute(axis), placement=T, name=f"joint{k}")
        g.add_edge(prev, f"rotor{k}", joint=Revolute(axis), placement=Tr,
                   name=f"rotor{k}_joint", independent=False)  # fmt: skip
        g.add_edge(f"link{k}", f"rotor{k}", kind="coupling", ratio=float(rng.uniform(6, 10)),
                   name=f"gear{k}")  # fmt: skip
        prev = f"link{k}"
    return ClosedMultibodyModel(g)


def belt_chain(n: int = 12, rng=None):
    r"""Seed 004's parallel-belt-transmission chain: ``n`` links (``n`` even) in pairs.

    Each pair is grbda's ``RevolutePairWithRotor`` (the MIT Humanoid's knee and ankle): link
    ``2j − 1`` on the previous pair's second link, link ``2j`` on link ``2j − 1``, and two
    rotors on the previous link; rotor 1 turns with :math:`N_1 q_{2j-1}`, rotor 2, through
    a belt, with :math:`N_2 (q_{2j-1} + q_{2j})` (seed 004 §1.2: it depends on both
    joints). The paper's "PBT chain" (Table I: 2n bodies, n/2 clusters of four bodies,
    n DoF). Random inertias, axes and placements (rotor ratios :math:`U(6, 10)`).

    Parameters
    ----------
    n : int
        Number of links (even).
    rng : None, int or numpy.random.Generator, optional
        ``None`` is the fixed seed 0.

    Returns
    -------
    ClosedMultibodyModel

    Raises
    ------
    ModelError
        If ``n`` is not a positive even integer.

    Examples
    --------
    >>> from geomech.multibody.io.robots import belt_chain
    >>> m = belt_chain(12)
    >>> m.n_bodies, len(m.clusters), m.nv
    (24, 6, 12)
    """
    n = _check_n(n)
    if n % 2:
        raise ModelError(f"Expected an even number of links for belt pairs, got {n}.")
    rng = default_rng(0 if rng is None else rng)
    g = nx.DiGraph(name=f"belt_chain_{n}")
    g.add_node("world")
    prev = "world"
    for j in range(1, n // 2 + 1):
        a, b = f"link{2 * j - 1}", f"link{2 * j}"
        ra, rb = f"rotor{2 * j - 1}", f"rotor{2 * j}"
        axes = [_random_axis(rng) for _ in range(2)]
        poses = []
        for _ in range(4):
            T = np.eye(4)
            T[:3, :3] = SO3.exp(0.5 * rng.normal(size=3))
            T[:3, 3] = rng.uniform(-0.3, 0.3, 3)
            poses.append(T)
        for body in (a, b):
            g.add_node(body, inertia=random_inertia(rng))
        for body in (ra, rb):
            g.add_node(body, inertia=0.01 * random_inertia(rng))
        g.add_edge(prev, a, joint=Revolute(axes[0]), placement=poses[0], name=f"joint{2 * j - 1}")
        g.add_edge(prev, ra, joint=Revolute(axes[0]), placement=poses[1],
                   name=f"rotor{2 * j - 1}_joint", independent=False)  # fmt: skip
        g.add_edge(prev, rb, joint=Revolute(axes[1]), placement=poses[2],
                   name=f"rotor{2 * j}_joint", independent=False)  # fmt: skip
        g.add_edge(a, b, joint=Revolute(axes[1]), placement=poses[3], name=f"joint{2 * j}")
        g.add_edge(a, ra, kind="coupling", ratio=float(rng.uniform(6, 10)),
                   name=f"gear{2 * j - 1}")  # fmt: skip
        g.add_edge(b, rb, kind="coupling", ratio=float(rng.uniform(6, 10)),
                   name=f"belt{2 * j}")  # fmt: skip
        prev = b
    return ClosedMultibodyModel(g)


def mini_cheetah():
    r"""A Mini-Cheetah-like quadruped: a floating trunk and four legs of three geared joints.

    Each leg has ab/adduction (about x, ratio 6), hip (about −y, ratio 6) and knee (about
    −y, ratio 9.33), each driven by a rotor on the previous body (seed 004 Table I: 25
    bodies, 13 clusters, 18 DoF). Masses and lengths are those of the MIT Mini Cheetah
    (trunk 3.3 kg; ab/ad 0.54 kg, thigh 0.634 kg, shank 0.064 kg; thigh and shank 0.209 m;
    rotors 0.055 kg), the rotational inertias solid boxes and discs of those sizes.

    Returns
    -------
    ClosedMultibodyModel

    Examples
    --------
    >>> from geomech.multibody.io.robots import mini_cheetah
    >>> m = mini_cheetah()
    >>> m.n_bodies, len(m.clusters), m.nv
    (25, 13, 18)
    """
    G = nx.DiGraph(name="mini_cheetah")
    G.add_node("world")
    G.add_node("trunk", inertia=_box(3.3, [0.38, 0.19, 0.1]))
    G.add_edge("world", "trunk", joint=FreeFlyer(), name="root_joint")
    x, ny = [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]
    ratios = {}
    for leg, (sx, sy) in (("FR", (1, -1)), ("FL", (1, 1)), ("HR", (-1, -1)), ("HL", (-1, 1))):
        G.add_node(f"{leg}_abad", inertia=_box(0.54, [0.08, 0.06, 0.06], [0, sy * 0.036, 0]))
        G.add_node(f"{leg}_thigh", inertia=_rod(0.634, 0.209, 0.02, [0, sy * 0.016, -0.02]))
        G.add_node(f"{leg}_shank", inertia=_rod(0.064, 0.209, 0.01, [0, 0, -0.1045]))
        G.add_edge("trunk", f"{leg}_abad", joint=Revolute(x), name=f"{leg}_abad_joint",
                   placement=_pose([sx * 0.19, sy * 0.049, 0.0]))  # fmt: skip
        G.add_edge(f"{leg}_abad", f"{leg}_thigh", joint=Revolute(ny),
                   placement=_pose([0.0, sy * 0.062, 0.0]), name=f"{leg}_hip_joint")  # fmt: skip
        G.add_edge(f"{leg}_thigh", f"{leg}_shank", joint=Revolute(ny),
                   placement=_pose([0.0, 0.0, -0.209]), name=f"{leg}_knee_joint")  # fmt: skip
        ratios.update({f"{leg}_abad_joint": 6.0, f"{leg}_hip_joint": 6.0,
                       f"{leg}_knee_joint": 9.33})  # fmt: skip
    return ClosedMultibodyModel(
        add_rotors(G, ratios, lambda name, axis: _rotor_inertia(0.055, 0.04, axis))
    )


def mit_humanoid():
    r"""An MIT-Humanoid-like robot: geared hips and arms, belt-driven knee–ankle pairs.

    A floating torso; per leg a geared hip yaw (z), roll (x) and pitch (y) (ratio 6) and a
    knee–ankle pair driven by two rotors on the thigh, the ankle's through a belt
    (:math:`q_{r,\rm knee} = 12\,q_{\rm knee}`, :math:`q_{r,\rm ankle} = 12(q_{\rm knee} +
    q_{\rm ankle})`, seed 004 Fig. 1a); per arm a geared shoulder pitch, roll, yaw and elbow
    (ratio 6). Seed 004 Table I: 37 bodies, 17 clusters, 24 DoF. Leg geometry and masses
    after the MIT Humanoid (thigh 2.64 kg and 0.267 m, shank 0.354 kg and 0.2785 m).

    Returns
    -------
    ClosedMultibodyModel

    Examples
    --------
    >>> from geomech.multibody.io.robots import mit_humanoid
    >>> m = mit_humanoid()
    >>> m.n_bodies, len(m.clusters), m.nv
    (37, 17, 24)
    """
    G = nx.DiGraph(name="mit_humanoid")
    x, y, z = [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]
    G.add_node("world")
    G.add_node("torso", inertia=_box(8.5, [0.2, 0.3, 0.4], [0.0, 0.0, 0.1]))
    G.add_edge("world", "torso", joint=FreeFlyer(), name="root_joint")
    ratios = {}

    def chain(parent, links):
        for body, inertia, joint_name, axis, xyz, ratio in links:
            G.add_node(body, inertia=inertia)
            G.add_edge(parent, body, joint=Revolute(axis), placement=_pose(xyz), name=joint_name)
            if ratio:
                ratios[joint_name] = ratio
            parent = body
        return parent

    for s, sy in (("l", 1.0), ("r", -1.0)):
        thigh = chain("torso", [
            (f"{s}_hip_yaw_link", _box(0.85, [0.1] * 3, [-0.06, 0, -0.06]), f"{s}_hip_yaw", z,
             [-0.00565, sy * 0.082, -0.05735], 6.0),
            (f"{s}_hip_roll_link", _box(1.21, [0.1] * 3, [0.067, -sy * 0.013, 0]), f"{s}_hip_roll",
             x, [-0.06435, 0, -0.07499], 6.0),
            (f"{s}_thigh", _rod(2.64, 0.267, 0.05, [0.013, sy * 0.027, -0.096]), f"{s}_hip_pitch",
             y, [0.071, sy * 0.0018, 0], 6.0),
            (f"{s}_shank", _rod(0.354, 0.2785, 0.03, [0.005, 0.0015, -0.132]), f"{s}_knee", y,
             [0, 0, -0.267], None),
            (f"{s}_foot", _box(0.281, [0.15, 0.05, 0.04], [0.023, 0, -0.013]), f"{s}_ankle", y,
             [0, 0, -0.2785], None),
        ])  # fmt: skip
        del thigh
        rotors = (("knee", f"{s}_shank", [0.013, -sy * 0.0497, -0.0178]),
                  ("ankle", f"{s}_foot", [0.0156, -sy * 0.0454, -0.1335]))  # fmt: skip
        for joint, link, xyz in rotors:
            r = f"{s}_{joint}_rotor"
            G.add_node(r, inertia=_rotor_inertia(0.1, 0.04, y))
            G.add_edge(f"{s}_thigh", r, joint=Revolute(y), placement=_pose(xyz),
                       name=f"{s}_{joint}_rotor_joint", independent=False)  # fmt: skip
            G.add_edge(link, r, kind="coupling", ratio=12.0, name=f"{s}_{joint}_transmission")
        chain("torso", [
            (f"{s}_shoulder_pitch_link", _box(0.5, [0.08] * 3), f"{s}_shoulder_pitch", y,
             [0.01, sy * 0.15, 0.35], 6.0),
            (f"{s}_shoulder_roll_link", _box(0.5, [0.08] * 3), f"{s}_shoulder_roll", x,
             [0, sy * 0.05, 0], 6.0),
            (f"{s}_upper_arm", _rod(0.7, 0.25, 0.03, [0, 0, -0.1]), f"{s}_shoulder_yaw", z,
             [0, 0, -0.05], 6.0),
            (f"{s}_forearm", _rod(0.5, 0.25, 0.03, [0, 0, -0.1]), f"{s}_elbow", y,
             [0, 0, -0.2], 6.0),
        ])  # fmt: skip
    return ClosedMultibodyModel(
        add_rotors(G, ratios, lambda name, axis: _rotor_inertia(0.1, 0.04, axis))
    )


#: the JVRC-1 joints driven by rotors in seed 004's modified JVRC-1 (its fingers removed)
JVRC1_GEARED_JOINTS = (
    "L_HIP_P", "L_HIP_R", "L_HIP_Y", "L_KNEE", "L_ANKLE_R", "L_ANKLE_P",
    "R_HIP_P", "R_HIP_R", "R_HIP_Y", "R_KNEE", "R_ANKLE_R", "R_ANKLE_P",
    "WAIST_Y", "WAIST_P", "WAIST_R", "NECK_Y", "NECK_R", "NECK_P",
    "L_SHOULDER_P", "L_SHOULDER_R", "L_SHOULDER_Y", "L_ELBOW_P", "L_ELBOW_Y", "L_WRIST_R",
    "L_WRIST_Y",
    "R_SHOULDER_P", "R_SHOULDER_R", "R_SHOULDER_Y", "R_ELBOW_P", "R_ELBOW_Y", "R_WRIST_R",
    "R_WRIST_Y",
)  # fmt: skip


def jvrc1_geared(ratio: float = 100.0):
    r"""The shipped JVRC-1 humanoid with its fingers removed and its 32 joints geared.

    Seed 004's "modified JVRC-1" (Table I: 65 bodies, 33 clusters, 38 DoF): every joint of
    :data:`JVRC1_GEARED_JOINTS` is driven by a rotor (:func:`add_rotors`, a 0.2 kg disc of
    radius 3 cm) on its parent body with gear ratio ``ratio``.

    Parameters
    ----------
    ratio : float
        The gear ratio of every joint.

    Returns
    -------
    ClosedMultibodyModel

    Examples
    --------
    >>> from geomech.multibody.io.robots import jvrc1_geared
    >>> m = jvrc1_geared()
    >>> m.n_bodies, len(m.clusters), m.nv
    (65, 33, 38)
    """
    tree = load("jvrc1")
    g = tree.graph.copy()
    finger = ("UINDEX", "LINDEX", "ULITTLE", "LLITTLE", "UTHUMB", "LTHUMB")
    for _u, v, d in tree.graph.edges(data=True):
        if d.get("name", "").split("_", 1)[-1] in finger and v in g:
            g.remove_nodes_from(nx.descendants(g, v) | {v})
    g.graph["name"] = "jvrc1_geared"
    return ClosedMultibodyModel(
        add_rotors(
            g,
            dict.fromkeys(JVRC1_GEARED_JOINTS, float(ratio)),
            lambda name, axis: _rotor_inertia(0.2, 0.03, axis),
        )  # fmt: skip
    )


# ----------------------------------------------------------------------------------------
# Tello (UIUC): hip and knee–ankle differentials as linkages (seed 004 Fig. 1b)
# ----------------------------------------------------------------------------------------
def _Ry(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def _frame(R=None, xyz=(0.0, 0.0, 0.0)) -> np.ndarray:
    """A placement from the rotation ``R`` (the child's axes in the parent) and ``xyz``."""
    T = _pose(xyz)
    if R is not None:
        T[:3, :3] = R
    return T


def _crank_angle(r, d, length, guess) -> float:
    r"""The angle :math:`t` with :math:`|R_y(t)\,\mathbf r - \mathbf d| = \ell`, nearest
    ``guess``: :math:`a\cos t + b\sin t = c` with :math:`\mathbf r = (r_x, 0, r_z)` in the
    plane of the rotation.
    """
    rx, rz = r[0], r[2]
    # R_y(t) r = (rx c + rz s, ry, -rx s + rz c)
    a = -2.0 * (rx * d[0] + rz * d[2])
    b = -2.0 * (rz * d[0] - rx * d[2])
    c = length**2 - (r @ r) - (d @ d) + 2.0 * r[1] * d[1]
    base, half = math.atan2(b, a), math.acos(c / math.hypot(a, b))
    roots = (base + half, base - half)
    return min(roots, key=lambda t: abs(math.remainder(t - guess, 2.0 * math.pi)))


#: Tello's parameters (grbda ``Robots/Tello.hpp``, ``TelloWithArms.hpp``; module docstring of
#: :func:`tello`): gear ratio of every leg motor, rotor mass and rotational inertia (about its
#: axis, z, last)
_TELLO_N = 6.0
_TELLO_ROTOR = (0.07, (2.5984e-5, 2.5984e-5, 5.1512e-5))
#: grbda's child-to-parent rotations of the rotors ("down", "left", "right" frames, their
#: transposes here: the rotor's axes in the parent)
_R_DOWN = np.diag([1.0, -1.0, -1.0])
_R_LEFT = np.array([[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]).T
_R_RIGHT = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]]).T
#: hip differential (clamp frame): crank pivots (0, ±0.07, 0) about y, crank 80 mm, rods
#: 155 mm to ball joints (−0.08, ±0.07, 0) on the thigh, the gimbal 142.5 mm below
_HIP = {"pivot_y": 0.07, "crank": 0.08, "rod": 0.155, "gimbal": 0.1425}
#: knee–ankle differential (shin frame): crank pivot 42 mm from the knee at −160° about y,
#: crank 40 mm at 30.84° + its angle, rod 214.6 mm, foot lever 35 mm at 24°, shin 260 mm
_KNEE = {"offset": 0.042, "offset_angle": -160.0, "crank": 0.04, "crank_angle": 30.84,
         "rod": 0.2146, "lever": 0.035, "lever_angle": 24.0, "shin": 0.26}  # fmt: skip


def _tello_leg(G, side: str, sy: float, massless, rotors: bool) -> None:
    """One Tello leg on ``torso``: geared hip clamp, hip and knee–ankle differentials, driven
    on the rotor side (``rotors``) or the link side.
    """
    s = side
    rotor = spatial_inertia(_TELLO_ROTOR[0], np.zeros(3), np.diag(_TELLO_ROTOR[1]))
    z, x, y = [0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]
    N = _TELLO_N

    def body(name, mass, com, inertia):
        G.add_node(name, inertia=spatial_inertia(mass, com, np.asarray(inertia, dtype=float)))

    def joint(parent, child, axis, placement, name, **kw):
        G.add_edge(parent, child, joint=Revolute(axis), placement=placement, name=name, **kw)

    # hip clamp (yaw) and its rotor: a geared transmission (seed 004 Fig. 3a)
    body(f"{s}_hip_clamp", 1.3289, [-0.001, 0.0, -0.0069],
         [[0.0032, 0, 0.0001], [0, 0.0033, 0], [0.0001, 0, 0.0027]])  # fmt: skip
    G.add_node(f"{s}_hip_clamp_rotor", inertia=rotor)
    joint("torso", f"{s}_hip_clamp", z, _pose([0.0, sy * 0.126, -0.087]), f"{s}_hip_clamp_joint")
    joint("torso", f"{s}_hip_clamp_rotor", z, _frame(_R_DOWN, [0.0, sy * 0.126, -0.026]),
          f"{s}_hip_clamp_rotor_joint", independent=False)  # fmt: skip
    G.add_edge(f"{s}_hip_clamp", f"{s}_hip_clamp_rotor", kind="coupling", ratio=N,
               name=f"{s}_hip_clamp_gear")  # fmt: skip

    # hip differential: gimbal (roll, x) and thigh (pitch, y) driven by two rotors on the
    # clamp, each through a gearbox (N) to a crank and a rod to a ball joint on the thigh
    clamp, h = f"{s}_hip_clamp", _HIP
    body(f"{s}_gimbal", 0.4433, [-0.0027, 0.0, 0.0258], np.diag([0.0018, 0.0017, 0.0015]))
    body(f"{s}_thigh", 1.5424, [0.003, -0.0001, -0.0323],
         [[0.0103, 0, -0.0005], [0, 0.0097, 0], [-0.0005, 0, 0.0027]])  # fmt: skip
    joint(clamp, f"{s}_gimbal", x, _pose([0.0, 0.0, -h["gimbal"]]), f"{s}_gimbal_joint",
          independent=not rotors)  # fmt: skip
    joint(f"{s}_gimbal", f"{s}_thigh", y, _pose(), f"{s}_thigh_joint", independent=not rotors)
    for k, (py, R) in enumerate(((h["pivot_y"], _R_LEFT), (-h["pivot_y"], _R_RIGHT)), 1):
        r, c, yk, rod = (f"{s}_hip_rotor_{k}", f"{s}_hip_crank_{k}", f"{s}_hip_yoke_{k}",
                         f"{s}_hip_rod_{k}")  # fmt: skip
        G.add_node(r, inertia=rotor)
        joint(clamp, r, z, _frame(R, [0.0, 0.04 if k == 1 else -0.04, 0.0]), f"{r}_joint",
              independent=rotors)  # fmt: skip
        tip = np.array([-h["crank"], 0.0, 0.0])
        ball = np.array([-h["crank"], py, -h["gimbal"]])  # the thigh's ball at q = 0
        t0 = _crank_angle(tip, ball - [0.0, py, 0.0], h["rod"], 0.0)
        Rc = _Ry(t0)
        u = Rc.T @ (ball - [0.0, py, 0.0]) - tip  # the rod in the crank's frame at q = 0
        a2 = np.cross(y, u)
        for name in (c, yk, rod):
            G.add_node(name, inertia=massless)
        joint(clamp, c, y, _frame(Rc, [0.0, py, 0.0]), f"{c}_joint", independent=False)
        G.add_edge(c, r, kind="coupling", ratio=N, name=f"{s}_hip_gear_{k}")
        joint(c, yk, y, _pose(tip), f"{yk}_joint", independent=False)  # universal joint ...
        joint(yk, rod, a2 / np.linalg.norm(a2), _pose(), f"{rod}_joint", independent=False)
        ball_on_thigh = _pose([-h["crank"], py, 0.0])
        G.add_edge(rod, f"{s}_thigh", kind="loop", joint=Spherical(), placement=_pose(u),
                   successor_placement=ball_on_thigh, name=f"{rod}_ball")  # fmt: skip

    # knee–ankle differential: knee = mean of the two geared rotor angles, the ankle crank
    # turns with their half difference and drives the foot by a four-bar
    kn = _KNEE
    thigh, shin, foot = f"{s}_thigh", f"{s}_shin", f"{s}_foot"
    body(shin, 0.3072, [0.0047, -0.0003, -0.1043],
         [[0.0054, 0, -0.0002], [0, 0.0054, 0], [-0.0002, 0, 0.0001]])  # fmt: skip
    body(foot, 0.1025, [0.0042, 0.0, -0.0251],
         [[0.094e-3, 0, -0.0038e-3], [0, 0.1773e-3, 0], [-0.0038e-3, 0, 0.0901e-3]])  # fmt: skip
    ind = not rotors
    joint(thigh, shin, y, _pose([0.0, 0.0, -0.2268]), f"{s}_knee_joint", independent=ind)
    joint(shin, foot, y, _pose([0.0, 0.0, -kn["shin"]]), f"{s}_ankle_joint", independent=ind)
    a = math.radians(kn["offset_angle"])
    pivot = kn["offset"] * np.array([math.sin(a), 0.0, math.cos(a)])
    lever = _Ry(math.radians(kn["lever_angle"])) @ np.array([kn["lever"], 0.0, 0.0])
    ball = np.array([0.0, 0.0, -kn["shin"]]) + lever  # the foot's pin at q = 0
    tip = np.array([kn["crank"], 0.0, 0.0])
    t0 = _crank_angle(tip, ball - pivot, kn["rod"], math.radians(kn["crank_angle"]))
    Rc = _Ry(t0)
    u = Rc.T @ (ball - pivot) - tip
    crank, idler, rod = f"{s}_ankle_crank", f"{s}_ankle_idler", f"{s}_ankle_rod"
    for name in (crank, idler, rod):
        G.add_node(name, inertia=massless)
    joint(shin, crank, y, _frame(Rc, pivot), f"{crank}_joint", independent=False)
    joint(shin, idler, y, _frame(Rc, pivot), f"{idler}_joint", independent=False)
    joint(crank, rod, y, _pose(tip), f"{rod}_joint", independent=False)
    G.add_edge(rod, foot, kind="loop", joint=Revolute(y), placement=_pose(u),
               successor_placement=_pose(lever), name=f"{rod}_pin")  # fmt: skip
    G.add_edge(crank, idler, kind="coupling", ratio=-1.0, name=f"{s}_ankle_reverser")
    for k, (R, py, drive) in enumerate(((_R_RIGHT, 0.02655, idler), (_R_LEFT, -0.02655, crank)), 1):
        r = f"{s}_knee_ankle_rotor_{k}"
        G.add_node(r, inertia=rotor)
        joint(thigh, r, z, _frame(R, [0.0, py, 0.0]), f"{r}_joint", independent=rotors)
        G.add_edge(drive, r, kind="coupling", ratio=N, name=f"{s}_knee_ankle_gear_{k}")


#: Tello's arm links (grbda ``TelloWithArms.hpp``): name, axis, placement on the parent,
#: mass, centre of mass and rotational inertia (left arm; the right one mirrored in y),
#: gear ratio and rotor placement
_TELLO_ARM = (
    ("shoulder_ry", [0.0, 1.0, 0.0], [0.01346, 0.17608, 0.24657], 0.788506,
     [0.009265, 0.052623, -0.0001249], (0.0013678, 0.0007392, 0.000884, 0.0000266, 0.0000021,
     -0.0000012), 6.0, [0.01346, 0.16, 0.24657]),
    ("shoulder_rx", [1.0, 0.0, 0.0], [0.0, 0.0575, 0.0], 0.80125,
     [0.0006041, 0.0001221, -0.082361], (0.0011524, 0.0011921, 0.0012386, 0.0000007,
     0.0000396, 0.0000014), 6.0, [0.0, 0.0575, 0.0]),
    ("shoulder_rz", [0.0, 0.0, 1.0], [0.0, 0.0, -0.1025], 0.905588,
     [0.0001703, -0.016797, -0.060], (0.0012713, 0.0017477, 0.0008191, 0.000001, -0.000008,
     -0.0000225), 6.0, [0.0, 0.0, -0.1025]),
    ("elbow", [0.0, 1.0, 0.0], [0.0, 0.0, -0.1455], 0.34839,
     [-0.0059578, 0.000111, -0.0426735], (0.001570, 0.0016167, 0.0000619, 0.0000002,
     0.0000335, 0.000003), 9.0, [0.0, -0.0325, -0.06]),
)  # fmt: skip


def _tello_arm(G, side: str, sy: float) -> None:
    """One Tello arm on ``torso``: four geared joints (massless rotors, as grbda's)."""
    parent = "torso"
    flip = np.diag([1.0, sy, 1.0])
    for name, axis, xyz, mass, com, (ixx, iyy, izz, ixy, ixz, iyz), ratio, rxyz in _TELLO_ARM:
        link = f"{side}_{name}"
        I = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])  # noqa: E741
        G.add_node(link, inertia=spatial_inertia(mass, flip @ com, flip @ I @ flip))
        axial = np.asarray(axis, dtype=float)
        Ir = 1.084e-4 * np.eye(3) + (1.6841e-4 - 1.084e-4) * np.outer(axial, axial)
        G.add_node(f"{link}_rotor", inertia=spatial_inertia(0.0, np.zeros(3), Ir))
        G.add_edge(parent, link, joint=Revolute(axis), placement=_pose(flip @ xyz),
                   name=f"{link}_joint")  # fmt: skip
        G.add_edge(parent, f"{link}_rotor", joint=Revolute(axis), placement=_pose(flip @ rxyz),
                   name=f"{link}_rotor_joint", independent=False)  # fmt: skip
        G.add_edge(link, f"{link}_rotor", kind="coupling", ratio=ratio, name=f"{link}_gear")
        parent = link


def tello(arms: bool = True, independent: str = "rotors"):
    r"""UIUC's Tello humanoid as seed 004 benchmarks it, its differentials built as linkages.

    grbda's ``TelloWithArms`` (``arms=False``: ``Tello``, the legs only). A floating torso;
    per leg (seed 004 Fig. 1b, every motor geared :math:`N = 6`):

    - a hip clamp (yaw, :math:`z`) driven by a rotor on the torso (a geared transmission);
    - the **hip differential**: a gimbal (roll, :math:`x`) and the thigh (pitch, :math:`y`)
      driven by two rotors on the clamp. Each rotor drives, through its gearbox, a crank
      (80 mm, about :math:`y`, pivots at :math:`(0, \pm 70, 0)` mm), and a rod (155 mm; a
      universal joint at the crank, a ball joint at :math:`(-80, \pm 70, 0)` mm on the
      thigh) pushes the thigh: both cranks together pitch the hip, opposite ones roll it;
    - the **knee–ankle differential**: two rotors on the thigh; the knee turns with the
      mean of their output angles, a crank on the shin (40 mm, pivot 42 mm below the knee)
      with their half difference (a 1:1 reversing idler), and a rod (214.6 mm) drives a
      35 mm lever on the foot: a four-bar for the ankle;

    per arm four geared joints (shoulder pitch, roll, yaw at :math:`N = 6`, elbow at 9).
    With the rotor angles :math:`q_{r,k} = N y_k` (:math:`y_k` the gearbox outputs), the
    loops close when

    .. math::
        |\mathbf p_{{\rm crank},k}(y_k) - \mathbf p_{{\rm thigh},k}(q_{\rm roll},
        q_{\rm pitch})|^2 = \ell_{\rm rod}^2 \;(k = 1, 2), \qquad
        q_{\rm knee} = \tfrac12(y_3 + y_4), \quad q_{\rm crank} = \tfrac12(y_4 - y_3),
        \qquad |\mathbf p_{\rm crank}(q_{\rm crank}) - \mathbf p_{\rm foot}
        (q_{\rm ankle})|^2 = \ell^2

    (the shin's crank and the foot's lever in the shin's frame).

    The cranks, yokes, rods and idlers are massless (grbda models only the rotors and
    links); the loops are spherical and revolute loop joints and the transmissions
    couplings, so the constraints are compiled (seed 004 Table I: 15 clusters, 24 DoF, the
    hip differential a cluster of 10 bodies here where grbda's has 4, the knee–ankle one 7).

    Parameters
    ----------
    arms : bool
        With the arms (grbda's ``TelloWithArms``) or the legs only (``Tello``).
    independent : {"rotors", "links"}
        The independent coordinates of the differentials: the motors' rotor angles
        (grbda's choice; :math:`\tau` there is the rotor torque) or the link joints'
        (gimbal, thigh, knee, ankle; what geomech picks when nothing is marked). The hip
        clamps and the arms are driven on the link side either way.

    Returns
    -------
    ClosedMultibodyModel

    Raises
    ------
    ModelError
        For another ``independent``.

    Notes
    -----
    The geometry is the one whose loop-closure equations are grbda's CasADi constraints
    (``derive_tello_hip_differential.m`` and ``derive_tello_knee_ankle_differential.m``,
    whose :math:`\phi` equal :math:`|\mathbf p_{\rm crank} - \mathbf p_{\rm thigh}|^2 -
    \ell^2` of this linkage exactly); the masses, inertias and placements are grbda's
    ``Tello.hpp`` and ``TelloWithArms.hpp``. Rotor angles differ from grbda's by constants
    (each crank's reference angle is in its placement, so that :math:`q = 0` closes).

    References
    ----------
    Seed 004 Sec. IX, Table I, Fig. 1b; grbda (github.com/ROAM-Lab-ND/generalized_rbda,
    commit d763e82, ``Robots/Tello*``); Y. Sim and J. Ramos, "Tello Leg", IEEE RA-L 2022
    (arXiv 2203.00644).

    Examples
    --------
    >>> from geomech.multibody.io.robots import tello
    >>> m = tello()
    >>> len(m.clusters), m.nv
    (15, 24)
    >>> m = tello(arms=False)
    >>> len(m.clusters), m.nv
    (7, 16)
    """
    if independent not in ("rotors", "links"):
        raise ModelError(f"Expected independent='rotors' or 'links', got {independent!r}.")
    G = nx.DiGraph(name="tello" if arms else "tello_legs")
    G.add_node("world")
    torso = [[0.0366, 0, -0.0006], [0, 0.0142, -0.0002], [-0.0006, -0.0002, 0.0291]]
    G.add_node("torso", inertia=spatial_inertia(2.3008, [0.0073, -0.0013, -0.0023], torso))
    G.add_edge("world", "torso", joint=FreeFlyer(), name="root_joint")
    massless = np.zeros((6, 6))
    for side, sy in (("left", 1.0), ("right", -1.0)):
        _tello_leg(G, side, sy, massless, independent == "rotors")
    if arms:
        for side, sy in (("left", 1.0), ("right", -1.0)):
            _tello_arm(G, side, sy)
    return ClosedMultibodyModel(G)


# ----------------------------------------------------------------------------------------
# Registry
# ----------------------------------------------------------------------------------------
_GENERATED = {
    "serial_chain": serial_chain,
    "binary_tree": binary_tree,
    "random_tree": random_tree,
    "double_pendulum": double_pendulum,
    "scara": scara,
    "quadruped": quadruped,
    "humanoid": humanoid,
}


def names() -> list[str]:
    """Names accepted by :func:`load`: the generated models and the shipped URDFs.

    Returns
    -------
    list of str
        Sorted names; the shipped URDFs are ``jvrc1`` (JVRC-1 humanoid), ``stretch``
        (Hello Robot Stretch 3) and ``ur5`` (Universal Robots UR5).

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> "humanoid" in robots.names(), "jvrc1" in robots.names()
    (True, True)
    """
    return sorted(set(_GENERATED) | set(_URDFS))


def urdf_path(name: str) -> Path:
    """Path of a shipped URDF file.

    Parameters
    ----------
    name : str
        One of the shipped URDF names (``jvrc1``, ``stretch``, ``ur5``).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ModelError
        If ``name`` is not a shipped URDF.

    Examples
    --------
    >>> from geomech.multibody.io.robots import urdf_path
    >>> urdf_path("ur5").name
    'ur5.urdf'
    """
    if name not in _URDFS:
        raise ModelError(f"Expected a shipped URDF name from {sorted(_URDFS)!r}, got {name!r}.")
    return Path(str(resources.files("geomech.multibody.io") / "data" / _URDFS[name][0]))


# ----------------------------------------------------------------------------------------
# example-robot-data
# ----------------------------------------------------------------------------------------
#: Packages of example-robot-data whose robots move freely (legged, humanoid and flying
#: robots): their models get a free-flyer root by default. The other packages are arms,
#: hands, grippers, pendulums and wheeled manipulators, fixed to the world by default.
_ERD_FLOATING_PACKAGES = frozenset({
    "a1", "alexander", "anymal_b_simple", "anymal_c_simple", "b1", "bolt", "borinot",
    "cassie", "centauro", "g1", "go1", "go2", "hector", "hextilt", "human", "hyq", "icub",
    "iris", "laikago", "quadruped", "romeo", "simple_humanoid", "solo", "talos",
})  # fmt: skip
#: Single-arm files in otherwise floating packages.
_ERD_FIXED_FILES = frozenset({"talos_left_arm"})


def _erd_package(path: Path) -> str:
    """``talos_data/robots/x.urdf`` -> ``talos``; ``ur_description/urdf/x.urdf`` -> ``ur``."""
    package = path.parent.parent.name
    for suffix in ("_description", "_data"):
        package = package.removesuffix(suffix)
    return package


@functools.lru_cache(maxsize=1)
def _erd_urdfs() -> dict[str, Path]:
    """``{"<package dir>/<stem>": path}`` of the installed example-robot-data URDFs."""
    files: list[Path] = []
    try:  # the cmeel wheels on PyPI install the robots under cmeel.prefix/share
        dist = metadata.distribution("example-robot-data")
        files = [
            Path(str(dist.locate_file(f)))
            for f in (dist.files or [])
            if str(f).endswith(".urdf") and "example-robot-data/robots/" in str(f)
        ]
    except metadata.PackageNotFoundError:
        pass
    if not files:  # older wheels or source installs: the Python module knows the directory
        try:
            from example_robot_data.path import EXAMPLE_ROBOT_DATA_MODEL_DIR
        except ImportError:
            return {}
        files = sorted(Path(EXAMPLE_ROBOT_DATA_MODEL_DIR).glob("*/*/*.urdf"))
    return {f"{f.parent.parent.name}/{f.stem}": f for f in sorted(files) if f.is_file()}


@functools.lru_cache(maxsize=1)
def _erd_aliases() -> dict[str, str]:
    """Every accepted name -> qualified name (bare file names only where unambiguous)."""
    qualified = _erd_urdfs()
    stems: dict[str, list[str]] = {}
    for key in qualified:
        stems.setdefault(key.split("/", 1)[1], []).append(key)
    out = {key: key for key in qualified}
    for stem, keys in stems.items():
        if len(keys) == 1 and stem not in _GENERATED and stem not in _URDFS:
            out[stem] = keys[0]
    return out


def example_robot_data_names(qualified: bool = False) -> list[str]:
    """Names of the example-robot-data robots :func:`load` finds (empty if not installed).

    Parameters
    ----------
    qualified : bool
        If True, the ``"<package>/<file name>"`` form of every robot; otherwise the short
        names (the file name, where it is unambiguous) and the qualified names of the rest.

    Returns
    -------
    list of str
        Sorted; one entry per URDF file of the package.

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> names = robots.example_robot_data_names()
    >>> not names or "solo12" in names  # empty without example-robot-data
    True
    """
    aliases = _erd_aliases()
    if qualified:
        return sorted(_erd_urdfs())
    short = {q: a for a, q in aliases.items() if a != q}
    return sorted(short.get(q, q) for q in _erd_urdfs())


def example_robot_data_path(name: str) -> Path:
    """Path of an example-robot-data URDF, by short or qualified name.

    Parameters
    ----------
    name : str
        A name from :func:`example_robot_data_names` (either form).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ModelError
        If example-robot-data is not installed or has no robot of that name.

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> if robots.example_robot_data_names():
    ...     print(robots.example_robot_data_path("solo12").name)
    ... else:
    ...     print("solo12.urdf")
    solo12.urdf
    """
    aliases = _erd_aliases()
    if not aliases:
        raise ModelError(
            f"Expected an example-robot-data robot name, got {name!r}, but example-robot-data "
            "is not installed (pip install 'geomech[robots]')."
        )
    if name not in aliases:
        raise ModelError(
            f"Expected an example-robot-data robot name from {example_robot_data_names()!r}, "
            f"got {name!r}."
        )
    return _erd_urdfs()[aliases[name]]


def example_robot_data_floating(name: str) -> bool:
    """Whether an example-robot-data robot gets a floating base by default in :func:`load`.

    Legged, humanoid and flying robots float (a free flyer ``"root_joint"`` between the
    world and the URDF's root link); arms, hands and wheeled manipulators are fixed.

    Parameters
    ----------
    name : str
        A name from :func:`example_robot_data_names` (either form).

    Returns
    -------
    bool

    Raises
    ------
    ModelError
        As :func:`example_robot_data_path`.

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> if robots.example_robot_data_names():
    ...     print(robots.example_robot_data_floating("solo12"),
    ...           robots.example_robot_data_floating("panda"))
    ... else:
    ...     print(True, False)
    True False
    """
    path = example_robot_data_path(name)
    return _erd_package(path) in _ERD_FLOATING_PACKAGES and path.stem not in _ERD_FIXED_FILES


def _existing_path(key: str) -> bool:
    """Whether ``key`` names an existing filesystem entry (False for unusable paths)."""
    try:
        return Path(key).exists()
    except (OSError, ValueError):  # a name too long, an embedded NUL byte, ...
        return False


def load(name: str, floating_base: bool | None = None, **urdf_options) -> MultibodyModel:
    """Load a built-in model by name, a shipped URDF, or a URDF file path.

    Parameters
    ----------
    name : str or os.PathLike
        A name from :func:`names` (a shipped URDF name may carry the ``.urdf`` suffix,
        ``"ur5.urdf"``, unless a file of that name exists), an example-robot-data robot name
        (:func:`example_robot_data_names`, when that package is installed), or a path to a
        URDF file.
    floating_base : bool, optional
        For URDFs: attach the root link by a free flyer ``"root_joint"``. The default is the
        robot's natural base (floating for ``jvrc1`` and for the legged, humanoid and flying
        robots of example-robot-data, fixed for ``stretch``, ``ur5``, the other
        example-robot-data robots and files). For generated models it is passed on where
        supported (``humanoid(fixed_base=not floating_base)``, ``serial_chain`` etc.).
    **urdf_options
        Further keyword arguments of :func:`~geomech.multibody.io.urdf.load_urdf` for URDF
        robots and files (``strict=False`` loads files with defective inertials as
        Pinocchio does, with a warning; ``strict`` is accepted and has no effect for the
        generated models, valid by construction).

    Returns
    -------
    MultibodyModel

    Raises
    ------
    ModelError
        If ``name`` is neither a known name nor an existing path (the message says "no such
        model or file" and lists the names), ``urdf_options`` are given for a generated
        model, or a generated model has no ``floating_base`` option.
    URDFError
        If the file is not a valid URDF (or not a regular file).

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> robots.load("ur5").nv
    6
    >>> robots.load("ur5.urdf").nv
    6
    >>> robots.load("jvrc1").joint_names[0]
    'root_joint'
    """
    if floating_base is not None:  # "no" would be true
        _flag(floating_base, "floating_base")
    if not isinstance(name, (str, os.PathLike)):
        raise ModelError(f"Expected `name` to be a str or a path, got {type(name).__name__}.")
    key = os.fspath(name) if isinstance(name, os.PathLike) else name
    if isinstance(key, bytes):
        key = os.fsdecode(key)
    if key in _GENERATED:
        urdf_options.pop("strict", None)  # generated models are valid by construction
        if urdf_options:
            raise ModelError(
                f"The built-in model {key!r} is not read from a URDF: options "
                f"{sorted(urdf_options)!r} apply to URDF robots and files only."
            )
        func = _GENERATED[key]
        if floating_base is None:
            return func()
        if key == "humanoid":
            return func(fixed_base=not floating_base)
        if key in ("serial_chain", "binary_tree", "random_tree"):
            return func(floating_base=floating_base)
        raise ModelError(f"The built-in model {key!r} has no `floating_base` option.")
    shipped = key if key in _URDFS else None
    if shipped is None and key.endswith(".urdf") and key[: -len(".urdf")] in _URDFS:
        shipped = None if _existing_path(key) else key[: -len(".urdf")]
    if shipped is not None:
        default = _URDFS[shipped][1]
        fb = default if floating_base is None else floating_base
        return load_urdf(urdf_path(shipped), fb, **urdf_options)
    if key in _erd_aliases():
        default = example_robot_data_floating(key)
        return load_urdf(
            example_robot_data_path(key),
            default if floating_base is None else floating_base,
            **urdf_options,
        )
    if _existing_path(key):  # load_urdf refuses directories, devices and FIFOs by name
        return load_urdf(Path(key), bool(floating_base), **urdf_options)
    shown = repr(key)
    shown = shown if len(shown) <= 80 else shown[:76] + "...'"
    raise ModelError(
        f"No such model or file: expected a model name from {names()!r} (shipped URDFs also "
        f"with .urdf) or a URDF file path, got {shown}."
    )
