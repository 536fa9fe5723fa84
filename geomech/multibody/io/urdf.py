r"""URDF input and output: :func:`load_urdf` builds a :class:`MultibodyModel`, :func:`to_urdf`
writes one.

The reader is the standard library's expat parser (:mod:`xml.parsers.expat`), driven in one
pass that keeps only the links and joints: URDF is a small XML dialect, and the maintained
PyPI parsers (``yourdfpy``, ``urchin``/``urdfpy``) add heavy dependencies (trimesh, lxml,
networkx pins) for meshes and visuals that geomech ignores, while Pinocchio's parser
(urdfdom) is C++ only and not exposed to Python. Reading is linear in time and memory and
bounded by :class:`URDFLimits` (file size, links, nesting depth, magnitude of numbers,
smallest mass); only regular files are read, the XML declaration's encoding is honoured and
entity declarations are refused. The writer uses :mod:`xml.etree.ElementTree`.

Semantics (those of the URDF specification and of Pinocchio's loader):

- A joint's ``<origin>`` is the pose of the joint frame in the parent link frame (the edge's
  ``placement``); the child link frame coincides with the joint frame at ``q = 0``; the
  ``<axis>`` (default ``1 0 0``) is expressed in the joint frame; ``rpy`` are fixed-axis
  roll-pitch-yaw angles, :math:`\mathbf R = \mathbf R_z(y)\mathbf R_y(p)\mathbf R_x(r)`.
- ``revolute`` and ``continuous`` joints become :class:`~geomech.multibody.model.joints.Revolute`
  (one angle, ``nq = nv = 1``; Pinocchio stores a continuous joint as ``(cos, sin)``),
  ``prismatic`` :class:`~geomech.multibody.model.joints.Prismatic`, ``floating``
  :class:`~geomech.multibody.model.joints.FreeFlyer` and ``planar``
  :class:`~geomech.multibody.model.joints.Planar` (the plane normal must be the joint frame's z
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
- URDF+ (robots with kinematic loops, Chignoli et al., arXiv 2411.19753): ``<loop>``,
  ``<coupling>`` and the ``independent`` attribute of ``<joint>`` are read into loop and
  coupling edges of the graph (a :class:`~geomech.multibody.closed.model.ClosedMultibodyModel`)
  and written back by :func:`to_urdf`; :mod:`geomech.multibody.io.examples` describes the
  elements and holds the shipped examples.

References
----------
URDF+ (arXiv 2411.19753) §III; URDF XML specification (ROS wiki, "urdf/XML/joint", "urdf/XML/link");
Pinocchio's ``buildModelFromUrdf``; seed 001 §1.3 (spatial inertia).
"""

from __future__ import annotations

import math
import os
import re
import stat
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from xml.parsers import expat as pyexpat

import networkx as nx
import numpy as np

from geomech._validation import as_array
from geomech.errors import GeomechError, URDFError, URDFWarning
from geomech.multibody.closed.model import ClosedMultibodyModel
from geomech.multibody.model.joints import (
    Fixed,
    FreeFlyer,
    Helical,
    Planar,
    Prismatic,
    Revolute,
    Spherical,
)
from geomech.multibody.model.tree import MultibodyModel, declares_closures
from geomech.spatial import plucker_from_pose, spatial_inertia

__all__ = ["load_urdf", "to_urdf", "URDFLimits", "rpy_to_matrix", "matrix_to_rpy"]

#: Name of the free-flyer joint added by ``load_urdf(..., floating_base=True)``.
ROOT_JOINT = "root_joint"
#: Name of the world node added by ``load_urdf(..., floating_base=True)`` (as in Pinocchio).
WORLD = "universe"

_KNOWN_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")


def rpy_to_matrix(rpy) -> np.ndarray:
    r"""Rotation matrix of URDF fixed-axis roll, pitch, yaw angles.

    .. math:: \mathbf R = \mathbf R_z(\text{yaw})\,\mathbf R_y(\text{pitch})\,
              \mathbf R_x(\text{roll})

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
    >>> from geomech.multibody.io.urdf import rpy_to_matrix
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
    >>> from geomech.multibody.io.urdf import matrix_to_rpy, rpy_to_matrix
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
# Limits
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class URDFLimits:
    r"""Resource and value limits of :func:`load_urdf` (pass your own to raise them).

    The defaults are far above real robots (the 69 URDFs of ``example-robot-data``: at most
    0.21 MB, 130 links, XML nesting depth 7, numbers of magnitude at most 116, positive
    masses of at least 1e-9 kg) and low enough that a hostile or broken file fails within
    about a second and a few tens of MB: the parser reads at most ``max_bytes``, keeps only
    the elements geomech uses, and stops at the first limit exceeded.

    Parameters
    ----------
    max_bytes : int
        Largest file (or XML string) accepted, in bytes (default 8 MiB).
    max_links : int
        Largest number of ``<link>`` elements, and of ``<joint>`` elements (default 1000;
        the model's set-up cost grows with links × tree depth).
    max_depth : int
        Deepest XML element nesting (default 32; ``<robot><link><inertial><inertia>`` is 4).
    max_magnitude : float
        Largest magnitude of any number read (lengths, angles, axes, masses, inertias;
        default 1e12, SI units). Nonzero numbers below the smallest normal double
        (2.2e-308, subnormal: they have lost digits) are refused as well.
    min_mass : float
        Smallest positive mass (default 1e-12 kg; 0 stays allowed). ABA divides by masses
        and articulated inertias, so a mass like 1e-320 would make it overflow.

    Raises
    ------
    URDFError
        If a limit is not a positive number (an int for the counts).

    Examples
    --------
    >>> from geomech.multibody.io.urdf import URDFLimits, load_urdf
    >>> URDFLimits().max_links
    1000
    >>> chain = "<robot name='c'><link name='a'/><link name='b'/><link name='c'/></robot>"
    >>> load_urdf(chain, limits=URDFLimits(max_links=2))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    geomech.errors.URDFError: The URDF has more than 2 <link> elements (URDFLimits.max_links)...
    """

    max_bytes: int = 8 * 2**20
    max_links: int = 1000
    max_depth: int = 32
    max_magnitude: float = 1e12
    min_mass: float = 1e-12

    def __post_init__(self):
        for field in ("max_bytes", "max_links", "max_depth"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise URDFError(
                    f"Expected `URDFLimits.{field}` to be a positive int, got {value!r}."
                )
        for field in ("max_magnitude", "min_mass"):
            value = getattr(self, field)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float, np.number))
                or not (0 < float(value) < math.inf)
            ):
                raise URDFError(
                    f"Expected `URDFLimits.{field}` to be a positive finite number, got {value!r}."
                )


# ----------------------------------------------------------------------------------------
# Reading the XML
# ----------------------------------------------------------------------------------------
def _q(name, tail: bool = False) -> str:
    """``repr`` of a name from the file, shortened for messages (one line, at most ~80 chars):
    its start, or its end for a path (``tail``: the file name is the part that tells).
    """
    text = repr(name)
    if len(text) <= 80:
        return text
    return "'..." + text[-76:] if tail else text[:76] + "...'"


def _read_file(path, limits: URDFLimits) -> bytes:
    """The bytes of a regular file of at most ``limits.max_bytes``.

    Devices (``/dev/zero``), FIFOs, sockets and directories are refused before they are
    opened for reading (a FIFO would block, a device never end); the file is opened
    non-blocking and checked again on the descriptor, and at most ``max_bytes + 1`` bytes
    are read whatever its reported size.
    """
    shown = _q(os.fspath(path) if isinstance(path, os.PathLike) else path, tail=True)
    try:
        st = os.stat(path)
    except ValueError as exc:  # e.g. an embedded NUL byte
        raise URDFError(f"Cannot read URDF file {shown}: {exc}.") from exc
    except OSError as exc:
        reason = "no such file" if isinstance(exc, FileNotFoundError) else exc.strerror or str(exc)
        raise URDFError(f"Cannot read URDF file {shown}: {reason}.") from exc

    def check_regular(mode) -> None:
        if stat.S_ISDIR(mode):
            raise URDFError(f"Cannot read URDF file {shown}: it is a directory.")
        if not stat.S_ISREG(mode):
            raise URDFError(
                f"Cannot read URDF file {shown}: not a regular file (a device, FIFO or socket)."
            )

    def check_size(n: int) -> None:
        if n > limits.max_bytes:
            raise URDFError(
                f"URDF file {shown} is larger than {limits.max_bytes} bytes "
                "(URDFLimits.max_bytes); pass load_urdf(..., limits=URDFLimits(max_bytes=...)) "
                "to read it."
            )

    check_regular(st.st_mode)
    check_size(st.st_size)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise URDFError(f"Cannot read URDF file {shown}: {exc.strerror or exc}.") from exc
    try:
        check_regular(os.fstat(fd).st_mode)
        chunks, total = [], 0
        while total <= limits.max_bytes:
            chunk = os.read(fd, min(1 << 20, limits.max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise URDFError(f"Cannot read URDF file {shown}: {exc.strerror or exc}.") from exc
    finally:
        os.close(fd)
    check_size(total)
    return b"".join(chunks)


_IGNORED = (None, None)


#: elements a URDF may keep inside its <loop>/<coupling> elements, per allowed link (a loop
#: has a handful: <parent>, <child>, <origin>s, <axis>)
_CLOSURE_ELEMENTS_PER_LINK = 16

#: attributes one element may have (expat builds them all before any handler can refuse)
_MAX_ATTRIBUTES = 4096


def _check_attribute_counts(data: bytes) -> None:
    """Refuse an element with more than :data:`_MAX_ATTRIBUTES` attributes before parsing.

    Every attribute has an ``=`` and no attribute value holds a ``<``, so the ``=`` signs
    between two ``<`` bound the attributes of the element that starts at the first (text
    and comments may add some: an over-count, refused only beyond the limit).
    """
    if data.count(b"=") <= _MAX_ATTRIBUTES:
        return
    buf = np.frombuffer(data, dtype=np.uint8)
    lt = np.flatnonzero(buf == ord("<"))
    eq = np.flatnonzero(buf == ord("="))
    per_element = np.bincount(np.searchsorted(lt, eq, side="right"), minlength=1)
    if per_element.max() > _MAX_ATTRIBUTES:
        raise URDFError(
            f"The URDF has an element with more than {_MAX_ATTRIBUTES} attributes (or '=' signs "
            "before the next element)."
        )


class _Document:
    """The part of a URDF document geomech uses, collected by an expat parser in one pass.

    Only ``<robot>``'s ``<link>`` (with the first ``<inertial>`` and, in it, the first ``<origin>``,
    ``<mass>`` and ``<inertia>``) and ``<joint>`` (the first ``<parent>``, ``<child>``,
    ``<origin>``, ``<axis>``, ``<limit>`` and ``<dynamics>``) are kept, as attribute dicts, and
    the URDF+ ``<loop>`` and ``<coupling>`` elements whole (small ElementTree subtrees, at most
    ``max_links`` of them);
    every other element (visuals, meshes, ``<gazebo>``, ...) is counted for the depth limit and
    dropped, so memory is proportional to the links and joints. Entity declarations (never needed by
    URDF, the vehicle of "billion laughs" expansions) are refused.
    """

    _KEPT = ("link", "joint", "loop", "coupling")
    _JOINT_CHILDREN = ("parent", "child", "origin", "axis", "limit", "dynamics")
    _INERTIAL_CHILDREN = ("origin", "mass", "inertia")

    def __init__(self, limits: URDFLimits):
        self.limits = limits
        self.robot: dict | None = None
        self.links: list[dict] = []  # {"attrs": ..., "inertial": None | {"origin": ..., ...}}
        self.joints: list[dict] = []  # {"attrs": ..., "parent": attrs, "child": attrs, ...}
        self.closures: list = []  # URDF+ <loop> and <coupling> subtrees (ElementTree)
        self._stack: list = []  # (kind, record) per open element
        self._closure_elements = 0  # elements kept inside <loop>/<coupling> (bounded)

    def start(self, tag: str, attrs: dict) -> None:
        stack = self._stack
        kind, rec = stack[-1] if stack else (None, None)
        if stack and (kind is None or (kind == "robot" and tag not in self._KEPT)):
            # an element geomech ignores (the common case, kept short)
            if len(stack) >= self.limits.max_depth:
                self._too_deep(tag)
            stack.append(_IGNORED)
            return
        frame = _IGNORED
        if not stack:
            if tag != "robot":
                raise URDFError(f"Expected a <robot> root element, got <{tag[:40]}>.")
            self.robot = attrs
            frame = ("robot", None)
        elif len(stack) >= self.limits.max_depth:
            self._too_deep(tag)
        elif kind == "robot" and tag in ("loop", "coupling"):  # URDF+ closures, kept whole
            if len(self.closures) >= self.limits.max_links:
                raise URDFError(
                    f"The URDF has more than {self.limits.max_links} <loop>/<coupling> elements "
                    "(URDFLimits.max_links)."
                )
            el = ET.Element(tag, attrs)
            self.closures.append(el)
            frame = ("closure", el)
        elif kind == "closure":
            self._closure_elements += 1
            if self._closure_elements > _CLOSURE_ELEMENTS_PER_LINK * self.limits.max_links:
                raise URDFError(
                    f"The URDF's <loop>/<coupling> elements hold more than "
                    f"{_CLOSURE_ELEMENTS_PER_LINK * self.limits.max_links} elements in all "
                    f"({_CLOSURE_ELEMENTS_PER_LINK} x URDFLimits.max_links)."
                )
            frame = ("closure", ET.SubElement(rec, tag, attrs))
        elif kind == "robot" and tag in ("link", "joint"):
            records = self.links if tag == "link" else self.joints
            if len(records) >= self.limits.max_links:
                raise URDFError(
                    f"The URDF has more than {self.limits.max_links} <{tag}> elements "
                    "(URDFLimits.max_links); pass load_urdf(..., "
                    "limits=URDFLimits(max_links=...)) to load it."
                )
            rec = {"attrs": attrs, "inertial": None} if tag == "link" else {"attrs": attrs}
            records.append(rec)
            frame = (tag, rec)
        elif kind == "link" and tag == "inertial" and rec["inertial"] is None:
            rec["inertial"] = {}
            frame = ("inertial", rec["inertial"])
        elif kind == "inertial" and tag in self._INERTIAL_CHILDREN:
            rec.setdefault(tag, attrs)
        elif kind == "joint" and tag in self._JOINT_CHILDREN:
            rec.setdefault(tag, attrs)
        stack.append(frame)

    def end(self, tag: str) -> None:
        self._stack.pop()

    def _too_deep(self, tag: str) -> None:
        raise URDFError(
            f"The URDF nests elements deeper than {self.limits.max_depth} levels "
            f"(URDFLimits.max_depth), at <{tag[:40]}>."
        )

    @staticmethod
    def refuse_entity(name, *args) -> None:
        raise URDFError(
            f"The URDF declares an XML entity {_q(name)}: entity declarations are not accepted "
            "(URDF never needs them)."
        )


def _parse_xml(path_or_string, limits: URDFLimits) -> _Document:
    encoding = None  # bytes and files: the XML declaration's encoding (default UTF-8)
    if isinstance(path_or_string, (bytes, bytearray, memoryview)):
        data = bytes(path_or_string)
        if len(data) > limits.max_bytes:
            raise URDFError(
                f"The URDF text is larger than {limits.max_bytes} bytes (URDFLimits.max_bytes)."
            )
    elif isinstance(path_or_string, str) and path_or_string.lstrip("\ufeff \t\r\n").startswith("<"):
        if len(path_or_string) > limits.max_bytes:
            raise URDFError(
                f"The URDF text is larger than {limits.max_bytes} bytes (URDFLimits.max_bytes)."
            )
        try:
            data = path_or_string.lstrip("\ufeff").encode("utf-8")
        except UnicodeEncodeError as exc:
            raise URDFError(f"The URDF text is not valid Unicode: {exc}.") from exc
        encoding = "utf-8"  # already decoded: a declared encoding no longer applies
    elif isinstance(path_or_string, (str, os.PathLike)):
        data = _read_file(path_or_string, limits)
    else:
        raise URDFError(
            "Expected `path_or_string` to be a file path or a URDF XML string, got "
            f"{type(path_or_string).__name__}."
        )
    _check_attribute_counts(data)
    doc = _Document(limits)
    parser = pyexpat.ParserCreate(encoding)
    parser.StartElementHandler = doc.start
    parser.EndElementHandler = doc.end
    parser.EntityDeclHandler = doc.refuse_entity
    try:
        parser.Parse(data, True)
    except pyexpat.ExpatError as exc:
        raise URDFError(f"Malformed URDF XML: {exc}.") from exc
    except (LookupError, UnicodeError) as exc:  # an unknown or unusable declared encoding
        raise URDFError(f"Malformed URDF XML: {exc}.") from exc
    if doc.robot is None:  # pragma: no cover - expat rejects a document without an element
        raise URDFError("Expected a <robot> root element, got an empty document.")
    return doc


# ----------------------------------------------------------------------------------------
# Values
# ----------------------------------------------------------------------------------------
_TINY = float(np.finfo(float).tiny)


def _floats(text: str | None, n: int, what: str, limits: URDFLimits, default=None) -> np.ndarray:
    """``n`` numbers from an attribute, each finite, 0 or normal, and within the magnitude limit.

    Plain Python on purpose: a file has thousands of these short attributes, and numpy's
    per-call overhead on 1- to 3-element arrays would dominate the parse.
    """
    if text is None:
        if default is None:
            raise URDFError(f"{what}: missing attribute (expected {n} numbers).")
        return np.asarray(default, dtype=float)
    try:
        vals = [float(t) for t in text.split()]
    except ValueError as exc:
        raise URDFError(f"{what}: expected {n} numbers, got {_q(text)}.") from exc
    if len(vals) != n or not all(math.isfinite(x) for x in vals):
        raise URDFError(f"{what}: expected {n} finite numbers, got {_q(text)}.")
    for x in vals:
        if abs(x) > limits.max_magnitude:
            raise URDFError(
                f"{what}: expected numbers of magnitude at most {limits.max_magnitude:g} "
                f"(URDFLimits.max_magnitude), got {_q(text)}."
            )
        if 0.0 < abs(x) < _TINY:
            raise URDFError(
                f"{what}: expected 0 or numbers of magnitude at least {_TINY:.3g} (normal "
                f"doubles), got the subnormal {_q(text)}."
            )
    return np.array(vals)


def _origin(attrs: dict | None, what: str, limits: URDFLimits) -> np.ndarray:
    """Pose ``[[R(rpy), xyz], [0, 1]]`` of an ``<origin>`` element (identity if absent)."""
    T = np.eye(4)
    if attrs is None:
        return T
    T[:3, 3] = _floats(attrs.get("xyz"), 3, f"{what} <origin xyz>", limits, np.zeros(3))
    rpy = _floats(attrs.get("rpy"), 3, f"{what} <origin rpy>", limits, np.zeros(3))
    T[:3, :3] = rpy_to_matrix(rpy)
    return T


def _inertial(link: dict, name: str, limits: URDFLimits, strict: bool, defects: list):
    """Spatial inertia of a link in its own frame, or None without ``<inertial>``.

    In lenient mode a negative mass or an indefinite rotational inertia is kept as written
    and described in ``defects``.
    """
    elem = link["inertial"]
    if elem is None:
        return None
    what = f"link {_q(name)}"
    if "mass" not in elem:
        raise URDFError(f"{what}: <inertial> has no <mass>.")
    mass = float(_floats(elem["mass"].get("value"), 1, f"{what} <mass value>", limits)[0])
    if 0.0 < mass < limits.min_mass:
        raise URDFError(
            f"{what}: expected a mass of 0 or at least {limits.min_mass:g} "
            f"(URDFLimits.min_mass), got {mass:g}."
        )
    if mass < 0:
        if strict:
            raise URDFError(f"{what}: expected a nonnegative mass, got {mass:g}.")
        defects.append(f"{what}: negative mass {mass:g}")
    T = _origin(elem.get("origin"), f"{what} <inertial>", limits)
    keys = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
    in_el = elem.get("inertia")
    if in_el is None:
        vals = dict.fromkeys(keys, 0.0)
    else:
        vals = {
            k: float(_floats(in_el.get(k, "0"), 1, f"{what} <inertia {k}>", limits)[0])
            for k in keys
        }
    Ic = np.array(
        [
            [vals["ixx"], vals["ixy"], vals["ixz"]],
            [vals["ixy"], vals["iyy"], vals["iyz"]],
            [vals["ixz"], vals["iyz"], vals["izz"]],
        ]
    )
    lam = float(np.linalg.eigvalsh(Ic)[0])
    if lam < -1e-9 * max(1.0, float(np.max(np.abs(Ic)))):
        if strict:
            raise URDFError(
                f"{what}: expected a positive semi-definite rotational inertia, got smallest "
                f"eigenvalue {lam:.3g}."
            )
        defects.append(
            f"{what}: rotational inertia not positive semi-definite (smallest eigenvalue {lam:.3g})"
        )
    R = T[:3, :3]
    return spatial_inertia(mass, T[:3, 3], R @ Ic @ R.T)


def _make_joint(rec: dict, name: str, jtype: str, limits: URDFLimits, element: str = "joint"):
    axis_el = rec.get("axis")
    what = f"{element} {_q(name)}"
    axis = _floats(
        None if axis_el is None else axis_el.get("xyz"), 3, f"{what} <axis xyz>", limits, [1, 0, 0]
    )
    norm = float(np.linalg.norm(axis))  # no overflow: |entries| <= max_magnitude
    if jtype in ("revolute", "continuous", "prismatic") and not norm > 1e-12:
        raise URDFError(f"{what}: expected a nonzero <axis>, got {axis.tolist()}.")
    if jtype in ("revolute", "continuous"):
        return Revolute(axis / norm, name=name)
    if jtype == "prismatic":
        return Prismatic(axis / norm, name=name)
    if jtype == "floating":
        return FreeFlyer(name=name)
    if jtype == "spherical":  # URDF+ loop joints only (a geomech extension)
        return Spherical(name=name)
    if jtype == "fixed":  # URDF+ loop joints only (tree fixed joints are merged)
        return Fixed(name=name)
    if jtype == "planar":
        if axis_el is not None and not (norm > 0 and np.allclose(axis / norm, [0, 0, 1])):
            raise URDFError(
                f"{what}: planar joints must move in the joint frame's xy-plane "
                f"(<axis xyz='0 0 1'>), got axis {axis.tolist()}."
            )
        return Planar(name=name)
    raise URDFError(f"{what}: unknown joint type {_q(jtype)}.")  # pragma: no cover (callers filter)


def _dynamics(attrs: dict | None, name: str, limits: URDFLimits) -> dict:
    """The edge attributes ``damping``, ``friction``, ``armature`` of a ``<dynamics>`` element.

    ``damping`` and ``friction`` are URDF's; ``armature`` is geomech's (the reflected rotor
    inertia, ``model.armature``; urdfdom and Pinocchio ignore the attribute). Absent: none.
    """
    if not attrs:
        return {}
    out = {}
    for key in ("damping", "friction", "armature"):
        if key in attrs:
            what = f"joint {_q(name)} <dynamics {key}>"
            out[key] = float(_floats(attrs[key], 1, what, limits)[0])
    return out


def _cycle_through(start: str, parent_link: dict[str, str], parent_joint: dict[str, str],
                   order: dict[str, int]):  # fmt: skip
    """Links and joints of the cycle reached by following parents from ``start``.

    Listed in the joints' direction (joint ``k`` goes from link ``k`` to link ``k + 1``),
    starting from the cycle's link that comes first in the file.
    """
    seen: dict[str, int] = {}
    path = []
    link = start
    while link not in seen:
        seen[link] = len(path)
        path.append(link)
        link = parent_link[link]
    forward = path[seen[link] :][::-1]
    k = min(range(len(forward)), key=lambda i: order[forward[i]])
    forward = forward[k:] + forward[:k]
    return forward, [parent_joint[forward[(i + 1) % len(forward)]] for i in range(len(forward))]


def _names(items) -> str:
    shown = [_q(x) for x in items[:10]] + (["..."] if len(items) > 10 else [])
    return "[" + ", ".join(shown) + "]"


# ----------------------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------------------
def load_urdf(
    path_or_string,
    floating_base: bool = False,
    *,
    strict: bool = True,
    limits: URDFLimits | None = None,
    reference_configuration=None,
) -> MultibodyModel:
    """Build a :class:`MultibodyModel` from a URDF file or string.

    Parameters
    ----------
    path_or_string : str, bytes or os.PathLike
        A path to a ``.urdf`` file (a regular file), or the XML text itself (a string
        starting with ``<``, or bytes). Files and bytes are decoded as their XML declaration
        says (UTF-8 by default; e.g. ``encoding="ISO-8859-1"`` is honoured).
    floating_base : bool
        If True, add a :class:`~geomech.multibody.model.joints.FreeFlyer` joint named
        ``"root_joint"`` between a world node ``"universe"`` and the root link (as
        ``pinocchio.buildModelFromUrdf(path, pinocchio.JointModelFreeFlyer())`` does);
        otherwise the root link is the fixed base.
    strict : bool
        If True (default), a moved body without any ``<inertial>``, a negative mass or a
        rotational inertia that is not positive semi-definite is an error. If False, such
        files load as Pinocchio loads them, with the file's values as written (a moved body
        without ``<inertial>`` gets zero inertia, an indefinite inertia is kept), and one
        :class:`~geomech.errors.URDFWarning` names each defective link and its defect; the
        model is then built with ``strict=False`` (its mass matrix may be singular or
        indefinite: algorithms that need a regular one say so).
    limits : URDFLimits, optional
        Resource and value limits (default ``URDFLimits()``): file size, number of links
        and joints, XML nesting depth, magnitude of numbers, smallest positive mass.
    reference_configuration : array_like, shape (nq,), optional
        For a URDF+ file with closures: a spanning-tree configuration where the closure
        search starts (:class:`~geomech.multibody.ClosedMultibodyModel`); refused for a tree.

    Returns
    -------
    MultibodyModel
        Nodes are named after the links (one node per group of links welded by fixed
        joints), edges after the joints; ``graph.graph["name"]`` is the robot's name. Edge
        attributes also keep ``urdf_type`` and ``limits`` (a dict of the ``<limit>``
        attributes, read by the model as its position, velocity and effort limits) for
        :func:`to_urdf`, and the ``<dynamics>`` attributes ``damping``, ``friction`` and
        ``armature`` (a geomech attribute: the reflected rotor inertia; other readers
        ignore it) as numbers (``model.damping``, ``model.friction``, ``model.armature``).

    Raises
    ------
    URDFError
        On a path that is not a readable regular file (missing, a directory, a device or a
        FIFO), a limit exceeded, malformed XML or an XML entity declaration, a missing
        ``<robot>`` element or one without links, links or joints without names or with
        duplicate names, unknown joint types, joints naming undefined links, a joint whose
        parent is its child, a link with two parent joints, a graph with several root links
        or with a cycle (connected to the root or not: no link is silently dropped), a zero
        axis, a non-numeric, non-finite, subnormal or too large number, a positive mass
        below ``limits.min_mass``, and (``strict``) a moving body without any
        ``<inertial>``, a negative mass, or a rotational inertia that is not positive
        semi-definite. Messages name the link or joint.

    Warns
    -----
    URDFWarning
        With ``strict=False``, once, naming every defective link that was loaded as written.

    References
    ----------
    URDF specification (joint and link elements); Pinocchio's ``buildModelFromUrdf``.

    Examples
    --------
    >>> from geomech.multibody.io.urdf import load_urdf
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

    Leniently, the base gets zero inertia and one warning says so:

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     model = load_urdf(urdf, floating_base=True, strict=False)
    >>> model.nv, str(caught[0].message).splitlines()[1]
    (7, "  link 'base': moved by joint 'root_joint' but has no <inertial> (zero inertia)")
    """
    if not isinstance(floating_base, (bool, np.bool_)):
        raise URDFError(f"Expected `floating_base` to be a bool, got {floating_base!r}.")
    if not isinstance(strict, (bool, np.bool_)):
        raise URDFError(f"Expected `strict` to be a bool, got {strict!r}.")
    if limits is None:
        limits = URDFLimits()
    elif not isinstance(limits, URDFLimits):
        raise URDFError(f"Expected `limits` to be a URDFLimits, got {type(limits).__name__}.")
    doc = _parse_xml(path_or_string, limits)
    try:
        return _build_model(doc, floating_base, strict, limits, reference_configuration)
    except URDFError:
        raise
    except GeomechError as exc:  # a check of the model layer: still the file's fault
        raise URDFError(f"The URDF does not make a valid model: {exc}") from exc


def _build_model(doc: _Document, floating_base: bool, strict: bool, limits: URDFLimits, q_ref=None):
    """The model of a parsed document (see :func:`load_urdf`)."""
    robot_name = doc.robot.get("name", "robot")
    if not doc.links:
        named = f" {_q(robot_name)}" if "name" in doc.robot else ""
        raise URDFError(
            f"The <robot>{named} has no <link>: an empty robot description (nothing to load)."
        )

    links: dict[str, dict] = {}
    for rec in doc.links:
        name = rec["attrs"].get("name")
        if not name:
            raise URDFError("Found a <link> without a name.")
        if name in links:
            raise URDFError(f"link {_q(name)} is defined more than once.")
        links[name] = rec

    joints: dict[str, dict] = {}
    parent_joint: dict[str, str] = {}  # child link -> joint
    parent_link: dict[str, str] = {}  # child link -> parent link
    child_joints: dict[str, list[str]] = {name: [] for name in links}
    for rec in doc.joints:
        name = rec["attrs"].get("name")
        if not name:
            raise URDFError("Found a <joint> without a name.")
        if name in joints:
            raise URDFError(f"joint {_q(name)} is defined more than once.")
        jtype = rec["attrs"].get("type")
        if jtype not in _KNOWN_TYPES:
            raise URDFError(
                f"joint {_q(name)}: unknown joint type {_q(jtype)}; expected one of {_KNOWN_TYPES}."
            )
        ends = {}
        for tag in ("parent", "child"):
            link = rec.get(tag, {}).get("link")
            if link is None:
                raise URDFError(f"joint {_q(name)}: missing <{tag} link=...>.")
            if link not in links:
                raise URDFError(f"joint {_q(name)}: {tag} link {_q(link)} is not defined.")
            ends[tag] = link
        if ends["parent"] == ends["child"]:
            raise URDFError(
                f"joint {_q(name)} connects link {_q(ends['child'])} to itself (a self-loop)."
            )
        if ends["child"] in parent_joint:
            raise URDFError(
                f"link {_q(ends['child'])} is the child of two joints "
                f"({_q(parent_joint[ends['child']])} and {_q(name)}): kinematic loops are not "
                "supported yet."
            )
        parent_joint[ends["child"]] = name
        parent_link[ends["child"]] = ends["parent"]
        child_joints[ends["parent"]].append(name)
        joints[name] = rec

    order = {name: i for i, name in enumerate(links)}
    roots = [name for name in links if name not in parent_joint]
    if not roots:
        cycle, cjoints = _cycle_through(next(iter(links)), parent_link, parent_joint, order)
        raise URDFError(
            "Expected exactly one root link (a link that is no joint's child), got 0: the "
            f"joints form a cycle (links {_names(cycle)}, joints {_names(cjoints)})."
        )
    if len(roots) != 1:
        raise URDFError(
            f"Expected exactly one root link (a link that is no joint's child), got "
            f"{len(roots)}: {_names(roots)}."
        )
    (root_link,) = roots

    # ---- walk the tree depth-first, children in joint-name order (as urdfdom); merge fixed
    G = nx.DiGraph(name=robot_name)
    if not strict:
        G.graph["strict"] = False  # the model, and models rebuilt from its graph, stay lenient
    base = WORLD if floating_base else root_link
    if floating_base and WORLD in links:
        raise URDFError(f"link {WORLD!r}: the name is reserved for the world of a floating base.")
    body_of: dict[str, str] = {root_link: root_link}  # link -> body node
    pose_in_body: dict[str, np.ndarray] = {root_link: np.eye(4)}
    inertia: dict[str, np.ndarray] = {}
    has_inertial: dict[str, bool] = {}
    members: dict[str, list] = {}
    defects: list[str] = []

    def add_link(link: str) -> None:
        body = body_of[link]
        I_link = _inertial(links[link], link, limits, strict, defects)
        if body not in inertia:
            inertia[body], has_inertial[body], members[body] = np.zeros((6, 6)), False, []
        members[body].append((link, pose_in_body[link]))
        if I_link is not None:
            if link == body:  # the body's own link: its frame is the body frame
                inertia[body] += I_link
            else:
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
        rec = joints[jname]
        child = rec["child"]["link"]
        jtype = rec["attrs"]["type"]
        T = pose_in_body[link] @ _origin(rec.get("origin"), f"joint {_q(jname)}", limits)
        if jtype == "fixed":
            body_of[child], pose_in_body[child] = body_of[link], T
        else:
            body_of[child], pose_in_body[child] = child, np.eye(4)
            limit_el = rec.get("limit")
            G.add_node(child)
            G.add_edge(
                body_of[link],
                child,
                joint=_make_joint(rec, jname, jtype, limits),
                placement=T,
                name=jname,
                urdf_type=jtype,
                limits=None if limit_el is None else dict(limit_el),
                **_dynamics(rec.get("dynamics"), jname, limits),
            )
        add_link(child)
        stack.extend((child, j) for j in sorted(child_joints[child], reverse=True))

    if len(body_of) != len(links):
        # every unreached link has a parent, so following parents from one ends in a cycle
        # that the root does not reach: name it rather than drop its links silently
        start = next(link for link in links if link not in body_of)
        cycle, cjoints = _cycle_through(start, parent_link, parent_joint, order)
        raise URDFError(
            f"{len(links) - len(body_of)} link(s) are not connected to the root link "
            f"{_q(root_link)}: the joints form a cycle (links {_names(cycle)}, joints "
            f"{_names(cjoints)})."
        )

    # ---- bodies: inertia and the links merged into them
    for body in members:
        G.nodes[body]["links"] = members[body]
        if body == base:
            continue
        if not has_inertial[body]:
            moved_by = ROOT_JOINT if body == root_link else parent_joint[body]
            if strict:
                raise URDFError(
                    f"link {_q(body)} is moved by joint {_q(moved_by)} but has no "
                    "<inertial> (nor has any link welded to it)."
                )
            defects.append(
                f"link {_q(body)}: moved by joint {_q(moved_by)} but has no <inertial> "
                "(zero inertia)"
            )
        G.nodes[body]["inertia"] = inertia[body]
    if not floating_base and root_link in inertia:
        G.nodes[root_link]["base_inertia"] = inertia[root_link]
    if defects:
        warnings.warn(
            f"load_urdf(strict=False) kept {len(defects)} defect(s) of robot "
            f"{_q(robot_name)} as written:\n" + "\n".join("  " + d for d in defects),
            URDFWarning,
            stacklevel=3,
        )
    # URDF+: <loop>, <coupling> and the joints' `independent` marks
    _add_closures(G, doc, body_of, pose_in_body, limits)
    # a URDF+ file with loops, couplings or constraints makes a closed model
    if declares_closures(G):
        return ClosedMultibodyModel(G, strict=strict, reference_configuration=q_ref)
    if q_ref is not None:
        raise URDFError(
            "Expected `reference_configuration` only for a URDF+ file with loops, couplings "
            "or constraints (it seeds their closure search), got a kinematic tree."
        )
    return MultibodyModel(G, strict=strict)


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


def _ordering_links(model: MultibodyModel, robot: ET.Element) -> list[str]:
    """The parent link of each joint, adding ordering links where siblings are out of name order.

    Readers visit a link's child joints sorted by name (urdfdom's ``std::map``); where the
    model's order of a body's children differs, each child joint ``k`` is hung from a
    massless link ``<body>__order<k>`` welded to the body, so that the reader's order is
    the model's. Returns, for body ``i``, the name of the link its joint is attached to.
    """
    root = str(model.root)
    link_names = {root, *model.body_names}
    joint_names = set(model.joint_names)
    parent_name = [root if p < 0 else model.body_names[p] for p in model.parent]
    siblings: dict[int, list[int]] = {}
    for i, p in enumerate(model.parent):
        siblings.setdefault(int(p), []).append(i)  # in body order: the model's sibling order
    for kids in siblings.values():
        names = [model.joint_names[k] for k in kids]
        if names == sorted(names):
            continue
        width = len(str(len(kids) - 1))
        prefix = f"{parent_name[kids[0]]}__order"
        while any(f"{prefix}{k:0{width}d}" in link_names | joint_names for k in range(len(kids))):
            prefix += "_"
        for k, child in enumerate(kids):
            wrapper = f"{prefix}{k:0{width}d}"
            ET.SubElement(robot, "link", name=wrapper)
            el = ET.SubElement(robot, "joint", name=wrapper, type="fixed")
            ET.SubElement(el, "parent", link=parent_name[child])
            ET.SubElement(el, "child", link=wrapper)
            link_names.add(wrapper)
            parent_name[child] = wrapper
    return parent_name


def to_urdf(model: MultibodyModel, name: str | None = None) -> str:
    """Write a model as URDF text (links, joints, origins, axes, inertials; no visuals).

    Each joint's ``<limit>`` is the edge's ``limits`` (defaults where URDF requires one) and
    its ``<dynamics damping= friction= armature=>`` the model's nonzero joint dynamics
    (``armature`` is geomech's attribute; URDF holds one value per joint).

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
        If a joint has no URDF equivalent (helical, spherical, Schönflies), or has
        different damping, friction or armature on its speeds; the message names the joint.

    Notes
    -----
    ``load_urdf(to_urdf(model))`` reproduces inertias, placements and joints in the same
    order (so the same ``q`` and ``v`` layout), except that bodies attached by
    :class:`~geomech.multibody.model.joints.Fixed` joints are merged into their parents. Readers
    (urdfdom, hence Pinocchio, and :func:`load_urdf`) visit sibling joints in name order;
    where a body's children are not in name order in the model, each of them is attached
    through a massless link welded to the body by a fixed joint (both named
    ``<body>__order<k>``, ``k`` zero-padded), which sorts them in the model's order.

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.io.urdf import load_urdf, to_urdf
    >>> text = to_urdf(robots.double_pendulum())
    >>> text.splitlines()[0]
    '<robot name="double_pendulum">'
    >>> load_urdf(text).joint_names
    ['joint1', 'joint2']
    >>> stretch = robots.load("stretch")  # siblings not in name order: kept in the model's
    >>> load_urdf(to_urdf(stretch)).joint_names == stretch.joint_names
    True
    """
    if model.is_closed:  # URDF+: the spanning tree, then <loop>, <coupling>, independent
        return _closures_to_urdf(model, to_urdf(model.spanning_tree, name))
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
    parent_link = _ordering_links(model, robot)
    for i, joint in enumerate(model.joints):
        node = model.nodes[i]
        parent_node = next(iter(model.graph.predecessors(node)))
        edge = model.graph.edges[parent_node, node]
        jtype = types[joint.kind]
        if jtype == "revolute" and edge.get("urdf_type") == "continuous":
            jtype = "continuous"
        el = ET.SubElement(robot, "joint", name=model.joint_names[i], type=jtype)
        _origin_el(el, model.placements[i])
        ET.SubElement(el, "parent", link=parent_link[i])
        ET.SubElement(el, "child", link=model.body_names[i])
        if jtype in ("revolute", "continuous", "prismatic"):
            ET.SubElement(el, "axis", xyz=_fmt(joint.axis))
        elif jtype == "planar":
            ET.SubElement(el, "axis", xyz="0 0 1")
        if jtype in ("revolute", "prismatic") or (jtype == "continuous" and edge.get("limits")):
            limits = dict(edge.get("limits") or {})
            if not limits:
                bound = math.pi if jtype == "revolute" else 1.0
                limits = {"lower": repr(-bound), "upper": repr(bound)}
            limits.setdefault("effort", "1000.0")
            limits.setdefault("velocity", "100.0")
            ET.SubElement(el, "limit", **{k: _limit_text(v) for k, v in limits.items()})
        vs = model.v_slices[i]
        dyn = {}
        for key in ("damping", "friction", "armature"):
            values = getattr(model, key)[vs]
            if np.any(values):
                if np.any(values != values[0]):
                    raise URDFError(
                        f"joint {model.joint_names[i]!r}: URDF holds one {key} per joint, got "
                        f"{values.tolist()}."
                    )
                dyn[key] = repr(float(values[0]))
        if dyn:
            ET.SubElement(el, "dynamics", **dyn)
    _check_xml_names(robot)
    ET.indent(robot)
    return ET.tostring(robot, encoding="unicode") + "\n"


def _limit_text(value) -> str:
    """A ``<limit>`` attribute value: the text kept from a URDF, else the number(s) written."""
    return value if isinstance(value, str) else _fmt(value)


#: characters XML 1.0 cannot hold (even escaped): C0 controls but tab, newline and carriage
#: return, surrogates, U+FFFE and U+FFFF
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _check_xml_names(robot) -> None:
    """Refuse a name or value XML cannot hold (load_urdf could not read the file back)."""
    for el in robot.iter():
        for key, value in el.attrib.items():
            bad = _XML_ILLEGAL.search(value)
            if bad is not None:
                raise URDFError(
                    f"<{el.tag}> {key}={value!r}: the character {bad.group()!r} cannot be "
                    "written in XML (rename it)."
                )


# ----------------------------------------------------------------------------------------
# URDF+: loops, couplings and independent coordinates
# ----------------------------------------------------------------------------------------
_LOOP_TYPES = ("revolute", "continuous", "prismatic", "fixed", "planar", "spherical", "floating")


def _bool(text: str, what: str) -> bool:
    t = text.strip().lower()
    if t in ("true", "1"):
        return True
    if t in ("false", "0"):
        return False
    raise URDFError(f'{what}: expected independent="true" or "false", got {_q(text)}.')


def _add_closures(G, doc: _Document, body_of: dict, pose_in_body: dict,
                  limits: URDFLimits) -> None:  # fmt: skip
    """Add a document's URDF+ elements to the spanning-tree graph ``G`` (in place).

    Sets the edge attribute ``independent`` of each moving joint that has the attribute,
    and adds one edge per ``<loop>`` (``kind="loop"``, ``joint``, ``placement``,
    ``successor_placement``) and per ``<coupling>`` (``kind="coupling"``, ``ratio``), from
    the predecessor's body to the successor's; ``body_of`` maps links to bodies (links
    welded by fixed joints share one) and ``pose_in_body`` gives each link's pose in its
    body. Raises :class:`URDFError` on a malformed, unnamed, duplicated or unrepresentable
    element (naming it).
    """
    edges_by_name = {d.get("name"): (u, v) for u, v, d in G.edges(data=True)}
    for rec in doc.joints:
        mark = rec["attrs"].get("independent")
        if mark is None:
            continue
        name = rec["attrs"].get("name")
        value = _bool(mark, f"joint {_q(name)}")
        if name in edges_by_name:  # fixed joints are merged and have no coordinates
            G.edges[edges_by_name[name]]["independent"] = value

    def link_of(el, tag: str, what: str):
        sub = el.find(tag)
        link = None if sub is None else sub.get("link")
        if link is None:
            raise URDFError(f"{what}: missing <{tag} link=...>.")
        if link not in body_of:
            raise URDFError(f"{what}: {tag} link {_q(link)} is not defined (or not connected).")
        return link, sub

    def origin_of(el, what):
        o = el.find("origin")
        return _origin(None if o is None else o.attrib, what, limits)

    names = set()
    for el in doc.closures:
        tag, name = el.tag, el.get("name")
        if not name:
            raise URDFError(f"Found a <{tag}> without a name.")
        if name in names:
            raise URDFError(f"{tag} {_q(name)} is defined more than once.")
        names.add(name)
        what = f"{tag} {_q(name)}"
        (p_link, p_el), (s_link, s_el) = (
            link_of(el, "predecessor", what),
            link_of(el, "successor", what),
        )
        u, v = body_of[p_link], body_of[s_link]
        if u == v:
            raise URDFError(f"{what}: links {_q(p_link)} and {_q(s_link)} belong to one body.")
        if G.has_edge(u, v):
            raise URDFError(
                f"{what}: bodies {_q(u)} and {_q(v)} are already joined by an edge of the "
                "graph; a loop or coupling between them cannot be represented."
            )
        if tag == "loop":
            jtype = el.get("type")
            if jtype not in _LOOP_TYPES:
                raise URDFError(f"{what}: expected a type from {_LOOP_TYPES}, got {_q(jtype)}.")
            axis = el.find("axis")
            joint = _make_joint({"axis": None if axis is None else axis.attrib}, name, jtype,
                                limits, "loop")  # fmt: skip
            G.add_edge(
                u, v, kind="loop", name=name, urdf_type=jtype, joint=joint,
                placement=pose_in_body[p_link] @ origin_of(p_el, what),
                successor_placement=pose_in_body[s_link] @ origin_of(s_el, what),
            )  # fmt: skip
        else:
            ratio = el.find("ratio")
            ratio = _floats(None if ratio is None else ratio.get("value"), 1,
                            f"{what} <ratio value>", limits, [1.0])[0]  # fmt: skip
            G.add_edge(u, v, kind="coupling", name=name, ratio=float(ratio))


_LOOP_TYPE_OF = {Revolute: "revolute", Prismatic: "prismatic", Fixed: "fixed", Planar: "planar",
                 Spherical: "spherical", FreeFlyer: "floating"}  # fmt: skip


def _closures_to_urdf(model, tree_text: str) -> str:
    """The URDF+ text of a closed model: its spanning tree's URDF plus the closure elements.

    Every moving joint gets ``independent="true"`` or ``"false"`` (the model's choice; a
    partly independent joint, :attr:`ClosedMultibodyModel.independent_components`, none, so
    that loading chooses its components again), and
    each loop joint and coupling becomes a ``<loop>`` or ``<coupling>`` element. Raises
    :class:`URDFError` for implicit constraints and loop joints without a URDF+ equivalent
    (helical, Schönflies).
    """
    robot = ET.fromstring(tree_text)
    indep = set(model.independent_joints)
    for el in robot.findall("joint"):
        name = el.get("name")
        partial = name in getattr(model, "independent_components", {})
        if name in model.joint_names and model.joints[model.joint_names.index(name)].nv:
            if not partial:  # a partly independent joint is left to the automatic choice
                el.set("independent", "true" if name in indep else "false")
    link_of = {-1: str(model.root)} | dict(enumerate(model.body_names))
    for con in model.constraints:
        if con.kind == "implicit":
            raise URDFError(
                f"constraint {_q(con.name)}: implicit constraints have no URDF+ equivalent."
            )
        if con.kind == "loop":
            jtype = _LOOP_TYPE_OF.get(type(con.joint))
            if jtype is None or isinstance(con.joint, Helical):
                raise URDFError(
                    f"loop {_q(con.name)}: a {con.joint.kind} loop joint has no URDF+ equivalent."
                )
            el = ET.SubElement(robot, "loop", name=con.name, type=jtype)
            for tag, body, T in (
                ("predecessor", con.pred, con.Tp),
                ("successor", con.succ, con.Ts),
            ):
                sub = ET.SubElement(el, tag, link=link_of[body])
                ET.SubElement(sub, "origin", xyz=_fmt(T[:3, 3]), rpy=_fmt(matrix_to_rpy(T[:3, :3])))
            if jtype in ("revolute", "prismatic"):
                ET.SubElement(el, "axis", xyz=_fmt(con.joint.axis))
            elif jtype == "planar":
                ET.SubElement(el, "axis", xyz="0 0 1")
        else:
            el = ET.SubElement(robot, "coupling", name=con.name)
            ET.SubElement(el, "predecessor", link=link_of[con.pred])
            ET.SubElement(el, "successor", link=link_of[con.succ])
            ET.SubElement(el, "ratio", value=repr(con.ratio))
    _check_xml_names(robot)
    ET.indent(robot)
    return ET.tostring(robot, encoding="unicode") + "\n"
