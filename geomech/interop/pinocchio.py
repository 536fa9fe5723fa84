r"""Pinocchio interop: models both ways, MJCF files, and the maps between the two states.

:func:`to_pinocchio` builds a ``pinocchio.Model`` joint by joint from a
:class:`~geomech.multibody.model.tree.MultibodyModel`; :func:`from_pinocchio` builds a
:class:`~geomech.multibody.model.tree.MultibodyModel` from a ``pinocchio.Model`` (one loaded by
any of Pinocchio's parsers, a sample model, or the result of :func:`to_pinocchio`);
:func:`load_mjcf` reads a MuJoCo MJCF file with Pinocchio's parser and converts it.
:class:`PinocchioBridge` pairs a geomech model with a Pinocchio model of the same robot and
converts states, forces and matrices between them (and calls Pinocchio's algorithms in
geomech's conventions).

Pinocchio is an optional dependency (``pip install 'geomech[pinocchio]'``), imported on
first use: importing this module never needs it, and calling it without Pinocchio raises
:class:`~geomech.errors.OptionalDependencyError`.

Joint map
---------
=========================  ==================================================  ==========
geomech joint              Pinocchio joint                                     kind
=========================  ==================================================  ==========
``Revolute(a)``            ``RevoluteUnaligned(a)`` (``RX``/``RY``/``RZ``)     same
``Revolute(a)``            ``RevoluteUnboundedUnaligned``, ``RUBX/Y/Z``        unbounded
``Prismatic(a)``           ``PrismaticUnaligned(a)`` (``PX``/``PY``/``PZ``)    same
``Helical(a, h)``          ``HelicalUnaligned(a, h)`` (``HX``/``HY``/``HZ``)   same
``Spherical``              ``Spherical``                                       same
``FreeFlyer``              ``FreeFlyer``                                       freeflyer
``Planar``                 ``Planar``                                          planar
``SchoenfliesJoint``       ``Composite(Planar, PZ)``                           schoenflies
``Fixed``                  none: the body is appended to its parent's joint    --
=========================  ==================================================  ==========

Pinocchio joints with no single geomech counterpart are imported as chains of geomech joints
through massless intermediate bodies, which is exact for the kinematics and the dynamics:
``SphericalZYX`` → ``Revolute(z), Revolute(y), Revolute(x)``; ``Translation`` →
``Prismatic(x), Prismatic(y), Prismatic(z)``; ``Universal(a1, a2)`` → ``Revolute(a1),
Revolute(a2)``; ``Composite`` → its sub-joints in order (each converted by this table), with
the composite's internal placements on the chain's edges (MJCF bodies with several joints
load as composites). ``Mimic`` and ``Ellipsoid`` joints are refused.

Convention map (per kind; the speed maps are permutations, ``v_pin = P v``)
---------------------------------------------------------------------------
- spatial vectors: geomech angular first ``[ω; v]`` / ``[n; f]``, Pinocchio linear first;
- *same*: identical ``q`` and ``v`` (a spherical joint's quaternion is ``(x, y, z, w)`` in
  both, and its ``v`` is the body angular velocity in both);
- *freeflyer*: same ``q = [p; (x, y, z, w)]``; body twist ``[ω; v]`` ↔ ``[v; ω]``;
- *planar*: geomech ``q = [x, y, θ]``, ``v = [ω_z, v_x, v_y]``; Pinocchio
  ``q = [x, y, cos θ, sin θ]``, ``v = [v_x, v_y, ω_z]``;
- *schoenflies*: geomech ``q = [x, y, z, θ]``, ``v = [ω_z, v_x, v_y, v_z]``; Pinocchio
  ``q = [x, y, cos θ, sin θ, z]``, ``v = [v_x, v_y, ω_z, v_z]``;
- *unbounded* (URDF ``continuous``): geomech one angle ``θ``; Pinocchio ``[cos θ, sin θ]``.

The angles read back from ``(cos θ, sin θ)`` lie in :math:`(-\pi, \pi]`, so
``q_from_pin(q_to_pin(q))`` equals ``q`` up to multiples of :math:`2\pi` in those
coordinates (the same configuration). Since ``P`` is orthogonal, generalised forces map like
speeds and matrices as :math:`\mathbf H = \mathbf P^\top\mathbf H_{pin}\mathbf P`.

Joint-order map
---------------
:func:`to_pinocchio` adds the joints in geomech's regular order, so Pinocchio joint ``k``
(``k ≥ 1``) is the ``k``-th moving geomech joint and the ``v`` layouts coincide up to the
per-joint permutations above. :func:`from_pinocchio` numbers the bodies depth first from the
root following Pinocchio's joint order, which is Pinocchio's own order whenever that order
is depth first (it is for every parser and sample model); :attr:`PinocchioBridge.joint_ids`
gives the Pinocchio joint of each geomech body in every case. Round trips keep names,
order and layout: ``from_pinocchio(to_pinocchio(m))`` has ``m``'s joint names, ``q``/``v``
layout and dynamics, except that bodies welded by ``Fixed`` joints come back merged into
their parents (their inertia included; their frames are kept in the node attribute
``links``).

Closed models
-------------
:func:`to_pinocchio` exports trees only (a closed model raises :class:`ModelError`, never a
silently unconstrained model); :func:`to_pinocchio_closed` exports a closed model as its
spanning tree (:func:`to_pinocchio` of ``model.spanning_tree``) plus a list of Pinocchio
``RigidConstraintModel`` objects for ``pinocchio.constraintDynamics``. A loop joint between
the loop frames :math:`F_P` (on the predecessor) and :math:`F_S` (on the successor) becomes:

==================  ==============================================================  =========
geomech loop joint  Pinocchio constraints (``ReferenceFrame.LOCAL``)                rows
==================  ==============================================================  =========
``Revolute(a)``     two ``CONTACT_3D``: the origins of F_P and F_S, and the points  6, rank 5
                    ``a`` of both frames (two points of the axis)
``Spherical``       one ``CONTACT_3D``: the origins of F_P and F_S                  3
``Fixed``           one ``CONTACT_6D``: F_P and F_S                                 6
``FreeFlyer``       none (the loop constrains nothing)                              0
==================  ==============================================================  =========

Pinocchio's Python API offers point (3D) and frame (6D) contacts only, with no mask of
rows, so the other loop joints (prismatic, helical, planar, Schönflies), the couplings
(gears and belts; Pinocchio's mimic joints express a single-joint gear, but
``pinocchio.aba`` and ``pinocchio.constraintDynamics`` refuse models holding them) and the
implicit constraints raise :class:`ModelError` naming each constraint that cannot be
expressed.

References
----------
Anchors §1 (Pinocchio's conventions); J. Carpentier et al., "The Pinocchio C++ library",
SII 2019; R. Featherstone, *Rigid Body Dynamics Algorithms*, 2008, §2 (spatial vectors);
seed 004 §1.1-1.2 (loop joints, the explicit form :math:`\ddot q_s = G\dot v + g`).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

import networkx as nx
import numpy as np

from geomech.errors import ModelError, OptionalDependencyError
from geomech.multibody.model import joints as gj
from geomech.multibody.model.tree import MultibodyModel

__all__ = [
    "PinocchioBridge",
    "to_pinocchio",
    "to_pinocchio_closed",
    "PinocchioClosedModel",
    "PROXIMAL_SETTINGS",
    "from_pinocchio",
    "load_mjcf",
    "SPEED_PERMUTATIONS",
    "twist_to_pin",
    "twist_from_pin",
    "wrench_to_pin",
    "wrench_from_pin",
    "inertia_to_pin",
    "inertia_from_pin",
    "se3_to_pin",
]


def _pin():
    """The ``pinocchio`` module, or a clear error naming the extra that installs it."""
    try:
        import pinocchio
    except ImportError as exc:  # pragma: no cover - the test environment has Pinocchio
        raise OptionalDependencyError(
            "Pinocchio interop needs the `pin` package: pip install 'geomech[pinocchio]'."
        ) from exc
    return pinocchio


# ----------------------------------------------------------------------------------------
# Spatial vectors, transforms and inertias
# ----------------------------------------------------------------------------------------
def twist_to_pin(t) -> np.ndarray:
    """Angular-first twist(s) ``[ω; v]`` → Pinocchio's linear-first ``[v; ω]``.

    The swap is an involution, so :func:`twist_from_pin` is the same map; accelerations
    convert the same way and wrenches ``[n; f]`` ↔ ``[f; n]`` too (:func:`wrench_to_pin`).

    Parameters
    ----------
    t : array_like, shape (..., 6)

    Returns
    -------
    ndarray, shape (..., 6)

    Examples
    --------
    >>> from geomech.interop.pinocchio import twist_to_pin
    >>> twist_to_pin([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    array([4., 5., 6., 1., 2., 3.])
    """
    t = np.asarray(t, dtype=float)
    if t.shape[-1:] != (6,):
        raise ModelError(f"Expected a spatial vector of shape (..., 6), got shape {t.shape}.")
    return np.concatenate([t[..., 3:], t[..., :3]], -1)


def twist_from_pin(t) -> np.ndarray:
    """Pinocchio's linear-first twist(s) ``[v; ω]`` → angular-first ``[ω; v]``.

    Parameters
    ----------
    t : array_like, shape (..., 6)

    Returns
    -------
    ndarray, shape (..., 6)

    Examples
    --------
    >>> from geomech.interop.pinocchio import twist_from_pin
    >>> twist_from_pin([4.0, 5.0, 6.0, 1.0, 2.0, 3.0])
    array([1., 2., 3., 4., 5., 6.])
    """
    return twist_to_pin(t)


wrench_to_pin = twist_to_pin
wrench_from_pin = twist_from_pin


def se3_to_pin(T):
    """A ``pinocchio.SE3`` from a 4×4 homogeneous transform.

    Parameters
    ----------
    T : array_like, shape (4, 4)

    Returns
    -------
    pinocchio.SE3

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.interop.pinocchio import se3_to_pin
    >>> T = np.eye(4); T[:3, 3] = [1.0, 2.0, 3.0]
    >>> se3_to_pin(T).translation
    array([1., 2., 3.])
    """
    T = np.asarray(T, dtype=float)
    return _pin().SE3(T[:3, :3].copy(), T[:3, 3].copy())


def inertia_to_pin(inertia):
    r"""A ``pinocchio.Inertia`` from a geomech 6×6 spatial inertia (about the frame origin).

    .. math:: \mathbf I = \begin{bmatrix}\bar{\mathbf I}_O & m\mathbf S(\mathbf c)\\
              m\mathbf S(\mathbf c)^\top & m\mathbf 1\end{bmatrix} \;\mapsto\;
              (m,\ m\mathbf c,\ \bar{\mathbf I}_O)

    (Pinocchio's ten dynamic parameters; a massless body maps to the zero inertia).

    Parameters
    ----------
    inertia : array_like, shape (6, 6)

    Returns
    -------
    pinocchio.Inertia

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import spatial_inertia
    >>> from geomech.interop.pinocchio import inertia_to_pin
    >>> I = inertia_to_pin(spatial_inertia(2.0, [0.0, 0.0, 0.5], np.eye(3)))
    >>> I.mass, I.lever
    (2.0, array([0. , 0. , 0.5]))
    """
    I = np.asarray(inertia, dtype=float)  # noqa: E741
    m = I[5, 5]
    h = np.array([I[2, 4], I[0, 5], I[1, 3]])  # the block m S(c) holds h = m c
    I_O = 0.5 * (I[:3, :3] + I[:3, :3].T)
    if m == 0.0:  # no centre of mass: Pinocchio's (m, c, I_c) is (0, 0, I_O)
        return _pin().Inertia(0.0, np.zeros(3), I_O)
    params = np.array([m, *h, I_O[0, 0], I_O[0, 1], I_O[1, 1], I_O[0, 2], I_O[1, 2], I_O[2, 2]])
    return _pin().Inertia.FromDynamicParameters(params)


def inertia_from_pin(inertia) -> np.ndarray:
    """The geomech 6×6 spatial inertia (angular first) of a ``pinocchio.Inertia``.

    Parameters
    ----------
    inertia : pinocchio.Inertia

    Returns
    -------
    ndarray, shape (6, 6)

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.spatial import spatial_inertia
    >>> from geomech.interop.pinocchio import inertia_from_pin, inertia_to_pin
    >>> I = spatial_inertia(2.0, [0.1, 0.0, 0.5], np.diag([1.0, 2.0, 3.0]))
    >>> bool(np.allclose(inertia_from_pin(inertia_to_pin(I)), I, rtol=0, atol=1e-15))
    True
    """
    M = np.asarray(inertia.matrix(), dtype=float)  # linear first
    out = np.empty((6, 6))
    out[:3, :3], out[:3, 3:] = M[3:, 3:], M[3:, :3]
    out[3:, :3], out[3:, 3:] = M[:3, 3:], M[:3, :3]
    return 0.5 * (out + out.T)


# ----------------------------------------------------------------------------------------
# The convention map: speed permutations and configuration maps per kind
# ----------------------------------------------------------------------------------------
#: ``v_pin_block[k] = v_geomech_block[SPEED_PERMUTATIONS[kind][k]]`` (``None``: identity).
SPEED_PERMUTATIONS = {
    "same": None,
    "unbounded": None,
    "freeflyer": (3, 4, 5, 0, 1, 2),  # [v; ω] <- [ω; v]
    "planar": (1, 2, 0),  # [v_x, v_y, ω_z] <- [ω_z, v_x, v_y]
    "schoenflies": (1, 2, 0, 3),  # [v_x, v_y, ω_z, v_z] <- [ω_z, v_x, v_y, v_z]
}

#: Size of the Pinocchio configuration block of each kind (``None``: the geomech size).
_PIN_NQ = {"same": None, "freeflyer": None, "unbounded": 2, "planar": 4, "schoenflies": 5}


def _q_to_pin(kind: str, q: np.ndarray) -> np.ndarray:
    if kind in ("same", "freeflyer"):
        return q
    if kind == "unbounded":
        return np.stack([np.cos(q[..., 0]), np.sin(q[..., 0])], -1)
    if kind == "planar":
        th = q[..., 2]
        return np.stack([q[..., 0], q[..., 1], np.cos(th), np.sin(th)], -1)
    th = q[..., 3]  # schoenflies
    return np.stack([q[..., 0], q[..., 1], np.cos(th), np.sin(th), q[..., 2]], -1)


def _q_from_pin(kind: str, q: np.ndarray) -> np.ndarray:
    if kind in ("same", "freeflyer"):
        return q
    if kind == "unbounded":
        return np.arctan2(q[..., 1], q[..., 0])[..., None]
    if kind == "planar":
        return np.stack([q[..., 0], q[..., 1], np.arctan2(q[..., 3], q[..., 2])], -1)
    return np.stack(  # schoenflies
        [q[..., 0], q[..., 1], q[..., 4], np.arctan2(q[..., 3], q[..., 2])], -1
    )


# ----------------------------------------------------------------------------------------
# geomech -> Pinocchio
# ----------------------------------------------------------------------------------------
def _pin_joint(joint):
    """The Pinocchio joint model of a geomech joint (with at least one degree of freedom)."""
    pin = _pin()
    if isinstance(joint, gj.Revolute):
        return pin.JointModelRevoluteUnaligned(np.asarray(joint.axis, float))
    if isinstance(joint, gj.Prismatic):
        return pin.JointModelPrismaticUnaligned(np.asarray(joint.axis, float))
    if isinstance(joint, gj.Helical):
        return pin.JointModelHelicalUnaligned(np.asarray(joint.axis, float), float(joint.pitch))
    if isinstance(joint, gj.Spherical):
        return pin.JointModelSpherical()
    if isinstance(joint, gj.FreeFlyer):
        return pin.JointModelFreeFlyer()
    if isinstance(joint, gj.Planar):
        return pin.JointModelPlanar()
    if isinstance(joint, gj.SchoenfliesJoint):
        composite = pin.JointModelComposite(2)
        composite.addJoint(pin.JointModelPlanar())
        composite.addJoint(pin.JointModelPZ())
        return composite
    raise ModelError(
        f"Joint {joint!r} has no Pinocchio counterpart (supported: Revolute, Prismatic, "
        "Helical, Spherical, FreeFlyer, Planar, SchoenfliesJoint, Fixed)."
    )


def to_pinocchio(model: MultibodyModel):
    r"""An equivalent ``pinocchio.Model``, built joint by joint.

    Each moving joint becomes the Pinocchio joint of the module's joint map, named as in
    geomech and added in geomech's body order (so Pinocchio joint ``k`` is the ``k``-th
    moving geomech joint); its placement is the edge's ``placement`` and its body inertia the
    geomech inertia. A body attached by a :class:`~geomech.multibody.model.joints.Fixed` joint is
    appended to its parent's Pinocchio joint (inertia and placement composed). Every body
    also gets a ``BODY`` frame of its own name (fixed bodies included), every joint a
    ``JOINT`` frame; gravity and the model name are copied, and the joint dynamics and
    limits: ``armature``, ``damping``, ``friction``, ``velocityLimit``, ``effortLimit``
    (speeds permuted as ``v``) and the position limits (except of planar and Schönflies
    joints, whose configurations differ).

    Parameters
    ----------
    model : MultibodyModel

    Returns
    -------
    pinocchio.Model
        Use :class:`PinocchioBridge` ``(model, result)`` to convert states between the two.

    Raises
    ------
    ModelError
        If ``model`` is a closed model (export it with :func:`to_pinocchio_closed`, which
        adds its constraints), is not a :class:`MultibodyModel`, a joint has no Pinocchio
        counterpart (a user-defined joint class) or a name is Pinocchio's reserved
        ``"universe"``.
    OptionalDependencyError
        If Pinocchio is not installed.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech import crba, robots
    >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
    >>> model = robots.quadruped()
    >>> pm = to_pinocchio(model)
    >>> pm.nq, pm.nv, pm.names[2]
    (19, 18, 'LF_HAA')
    >>> q = model.random_configuration(rng=0)
    >>> bridge = PinocchioBridge(model, pm)
    >>> bool(np.allclose(bridge.crba(q), crba(model, q), rtol=0, atol=1e-12))
    True
    """
    if getattr(model, "is_closed", False):
        raise ModelError(
            "to_pinocchio exports kinematic trees; a closed model's loop constraints would be "
            "lost (never a silently unconstrained model): export it with "
            "to_pinocchio_closed(model), which returns the spanning tree and its Pinocchio "
            "constraint models."
        )
    return _tree_to_pin(model)[0]


def _tree_to_pin(model: MultibodyModel):
    """``(pinocchio.Model, frame_of)`` of a tree.

    ``frame_of[i] = (joint id, 4×4 pose of body i in that joint's frame, BODY frame id)``.
    """
    pin = _pin()
    if not isinstance(model, MultibodyModel):
        raise ModelError(f"Expected a geomech MultibodyModel, got {type(model).__name__}.")
    if "universe" in model.joint_names:
        raise ModelError(
            "Joint name 'universe' is reserved by Pinocchio for its world joint; rename it."
        )
    pm = pin.Model()
    pm.name = str(model.graph.graph.get("name", "geomech"))
    pm.gravity = pin.Motion(np.concatenate([np.asarray(model.gravity, float), np.zeros(3)]))
    frame_of: list[tuple[int, np.ndarray, int]] = []  # (joint id, pose in joint, frame id)
    for i, joint in enumerate(model.joints):
        p = int(model.parent[i])
        parent_jid, parent_M, parent_frame = (0, np.eye(4), 0) if p < 0 else frame_of[p]
        placement = parent_M @ model.placements[i]
        if joint.nv == 0:  # welded: append the body to the parent's joint
            M = placement @ joint.pose(np.zeros(joint.nq))
            pm.appendBodyToJoint(parent_jid, inertia_to_pin(model.inertias[i]), se3_to_pin(M))
            fid = pm.addBodyFrame(model.body_names[i], parent_jid, se3_to_pin(M), parent_frame)
            frame_of.append((parent_jid, M, fid))
            continue
        jid = pm.addJoint(parent_jid, _pin_joint(joint), se3_to_pin(placement),
                          model.joint_names[i])  # fmt: skip
        pm.appendBodyToJoint(jid, inertia_to_pin(model.inertias[i]), pin.SE3.Identity())
        jfid = pm.addJointFrame(jid, parent_frame)
        fid = pm.addBodyFrame(model.body_names[i], jid, pin.SE3.Identity(), jfid)
        frame_of.append((jid, np.eye(4), fid))
    _joint_dynamics_to_pin(model, pm)
    return pm, frame_of


#: the kind of the speed permutation of each geomech joint kind (SPEED_PERMUTATIONS)
_PERMUTATION_OF = {"free_flyer": "freeflyer", "planar": "planar", "schoenflies": "schoenflies"}


def _joint_dynamics_to_pin(model: MultibodyModel, pm) -> None:
    """Copy the armature, damping, friction and limits of a tree into a ``pinocchio.Model``.

    The per-speed arrays through each joint's speed permutation; the position limits of the
    joints whose configuration blocks are the same in both (all but planar and Schönflies).
    """
    arrays = {
        "armature": model.armature,
        "damping": model.damping,
        "friction": model.friction,
        "velocityLimit": model.velocity_limit,
        "effortLimit": model.effort_limit,
    }
    out = {name: np.array(getattr(pm, name), dtype=float) for name in arrays}
    lower, upper = np.array(pm.lowerPositionLimit), np.array(pm.upperPositionLimit)
    jid = 0
    for i, joint in enumerate(model.joints):
        if joint.nv == 0:
            continue
        jid += 1
        vs, qs = model.v_slices[i], model.q_slices[i]
        iv, iq = pm.idx_vs[jid], pm.idx_qs[jid]
        perm = SPEED_PERMUTATIONS[_PERMUTATION_OF.get(joint.kind, "same")] or range(joint.nv)
        for name, values in arrays.items():
            out[name][iv : iv + joint.nv] = values[vs][list(perm)]
        if joint.kind not in ("planar", "schoenflies") and pm.nqs[jid] == joint.nq:
            lower[iq : iq + joint.nq] = model.lower_position_limit[qs]
            upper[iq : iq + joint.nq] = model.upper_position_limit[qs]
    for name, values in out.items():
        setattr(pm, name, values)
    pm.lowerPositionLimit, pm.upperPositionLimit = lower, upper


class PinocchioClosedModel(NamedTuple):
    """A closed model in Pinocchio: its spanning tree and the constraints closing its loops.

    Returned by :func:`to_pinocchio_closed`; unpacks as ``pin_model, constraint_models``.

    Attributes
    ----------
    model : pinocchio.Model
        The spanning tree, as :func:`to_pinocchio` builds it (pair it with the geomech
        spanning tree by :class:`PinocchioBridge` ``(model.spanning_tree, model)``).
    constraint_models : pinocchio.StdVec_RigidConstraintModel
        The loop constraints (module docstring, "Closed models"), for
        ``pinocchio.initConstraintDynamics`` and ``pinocchio.constraintDynamics``; each is
        named after its loop joint (``"<loop>"``, or ``"<loop>:0"`` and ``"<loop>:1"`` for
        the two points of a revolute loop joint).

    Examples
    --------
    >>> from geomech.interop.pinocchio import to_pinocchio_closed
    >>> from geomech.multibody.io.examples import load_example
    >>> out = to_pinocchio_closed(load_example("six_bar"))
    >>> out.model.nv, len(out.constraint_models), out.constraint_models[0].type.name
    (5, 4, 'CONTACT_3D')
    """

    model: Any
    constraint_models: Any


#: Default ``pinocchio.ProximalSettings(accuracy, mu, max_iter)`` of
#: :meth:`PinocchioBridge.constraint_dynamics`: a revolute loop's two point contacts (and
#: planar loops) give redundant rows, which need the proximal regularisation ``mu > 0``
#: (Pinocchio's default ``mu = 0`` returns NaN on them).
PROXIMAL_SETTINGS = (1e-12, 1e-8, 100)


def to_pinocchio_closed(model) -> PinocchioClosedModel:
    r"""A closed model as Pinocchio's spanning tree plus its loop constraints.

    The spanning tree is :func:`to_pinocchio` ``(model.spanning_tree)``; each loop joint
    between the loop frames :math:`F_P` (predecessor) and :math:`F_S` (successor) becomes
    ``pinocchio.RigidConstraintModel`` objects between the two bodies' Pinocchio joints, in
    ``ReferenceFrame.LOCAL`` (module docstring, "Closed models"): points :math:`p` of the
    loop frames held together,

    .. math:: {}^0T_{F_P}\,p = {}^0T_{F_S}\,p,\qquad
              p \in \{0, a\}\ \text{(revolute about } a),\quad p = 0\ \text{(spherical)},

    or the two frames held together, :math:`{}^0T_{F_P} = {}^0T_{F_S}` (fixed). Then
    ``pinocchio.constraintDynamics`` (no Baumgarte terms) reproduces geomech's forward
    dynamics: at a closed configuration :math:`q` with independent speeds :math:`v`, for any
    spanning-tree torques :math:`\tau_s`,

    .. math:: \ddot q_s = G\,\mathrm{aba}(q, v, G^\top\tau_s) + g,\qquad
              \dot q_s = G\,v,\qquad (G, g) = \text{model.constraint\_matrices}(q, v),

    in geomech's spanning-tree layout (:class:`PinocchioBridge` converts).

    Parameters
    ----------
    model : ClosedMultibodyModel or MultibodyModel
        A tree gives its :func:`to_pinocchio` model and no constraints.

    Returns
    -------
    PinocchioClosedModel
        ``(model, constraint_models)``: a ``pinocchio.Model`` and a
        ``pinocchio.StdVec_RigidConstraintModel``.

    Raises
    ------
    ModelError
        If a constraint has no Pinocchio rigid-constraint counterpart: a prismatic, helical,
        planar or Schönflies loop joint (Pinocchio's Python API has point and frame contacts
        only), a coupling (gear or belt) or an implicit constraint. The message names every
        such constraint. Also as :func:`to_pinocchio` for the spanning tree.
    OptionalDependencyError
        If Pinocchio is not installed.

    References
    ----------
    Seed 004 §1.1-1.2 (loop joints; :math:`\ddot q_s = G\dot v + g`); URDF+ ``<loop>``;
    Pinocchio's ``RigidConstraintModel`` and ``constraintDynamics``.

    Examples
    --------
    The shipped four-bar: one revolute loop joint, two point contacts on its axis.

    >>> import numpy as np
    >>> import pinocchio as pin
    >>> from geomech import aba
    >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio_closed
    >>> from geomech.multibody.io.examples import load_example
    >>> model = load_example("four_bar")
    >>> pm, constraints = to_pinocchio_closed(model)
    >>> [(c.name, c.type.name) for c in constraints]
    [('C:0', 'CONTACT_3D'), ('C:1', 'CONTACT_3D')]

    Pinocchio's constraint dynamics against geomech's ``aba`` at a random closed state:

    >>> bridge = PinocchioBridge(model.spanning_tree, pm)
    >>> q, v = model.random_configuration(rng=0), np.array([1.5])
    >>> tau_s = np.array([2.0, 0.0, -1.0])  # spanning-tree torques
    >>> G, g = model.constraint_matrices(q, v)
    >>> data, datas = pm.createData(), [c.createData() for c in constraints]
    >>> datas = pin.StdVec_RigidConstraintData(datas)
    >>> pin.initConstraintDynamics(pm, data, constraints, datas)
    >>> a_pin = pin.constraintDynamics(pm, data, bridge.q_to_pin(q), bridge.v_to_pin(G @ v),
    ...                                bridge.v_to_pin(tau_s), constraints, datas,
    ...                                pin.ProximalSettings(1e-12, 1e-8, 100))
    >>> a_s = G @ aba(model, q, v, G.T @ tau_s) + g
    >>> bool(np.allclose(bridge.v_from_pin(a_pin), a_s, rtol=1e-9, atol=1e-9))
    True

    Couplings are not rigid constraints:

    >>> to_pinocchio_closed(load_example("geared_chain"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geomech.errors.ModelError: to_pinocchio_closed: ... the couplings 'transmission_1', ...
    """
    pin = _pin()
    if not getattr(model, "is_closed", False):
        return PinocchioClosedModel(_tree_to_pin(model)[0], pin.StdVec_RigidConstraintModel())
    refused = _refusals(model.constraints)
    if refused:
        raise ModelError(
            "to_pinocchio_closed: Pinocchio's rigid constraints (point and frame contacts) "
            "cannot express " + "; ".join(refused) + "."
        )
    pm, frame_of = _tree_to_pin(model.spanning_tree)

    def anchor(body: int, T) -> tuple[int, np.ndarray]:
        """Pinocchio joint and placement of a loop frame (pose ``T`` in ``body``)."""
        if body < 0:
            return 0, np.asarray(T, float)
        jid, M, _ = frame_of[body]
        return jid, M @ T

    out = pin.StdVec_RigidConstraintModel()
    for con in model.constraints:
        joint = con.joint
        j1, M1 = anchor(con.pred, con.Tp)
        j2, M2 = anchor(con.succ, con.Ts)
        if isinstance(joint, gj.FreeFlyer):  # six loop speeds: nothing is constrained
            continue
        if isinstance(joint, gj.Fixed):
            contacts = [(pin.ContactType.CONTACT_6D, con.name, np.eye(4))]
        elif isinstance(joint, gj.Spherical):
            contacts = [(pin.ContactType.CONTACT_3D, con.name, np.eye(4))]
        else:  # revolute: the origins, and the points a of both frames
            offset = np.eye(4)
            offset[:3, 3] = joint.axis
            contacts = [(pin.ContactType.CONTACT_3D, f"{con.name}:{k}", D)
                        for k, D in enumerate((np.eye(4), offset))]  # fmt: skip
        for ctype, name, D in contacts:
            cm = pin.RigidConstraintModel(ctype, pm, j1, se3_to_pin(M1 @ D), j2,
                                          se3_to_pin(M2 @ D), pin.ReferenceFrame.LOCAL)  # fmt: skip
            cm.name = name
            out.append(cm)
    return PinocchioClosedModel(pm, out)


#: Loop joints with a Pinocchio rigid-constraint counterpart (module docstring).
_LOOP_JOINTS = (gj.Revolute, gj.Spherical, gj.Fixed, gj.FreeFlyer)


def _refusals(constraints) -> list[str]:
    """What Pinocchio's rigid constraints cannot express, one phrase per kind (none: [])."""
    groups: dict[str, list[str]] = {}
    for con in constraints:
        kind = getattr(con, "kind", None)
        if kind == "loop":
            if isinstance(con.joint, _LOOP_JOINTS):
                continue
            key = f"{type(con.joint).__name__} loop joints"
        else:
            key = {"coupling": "couplings", "implicit": "implicit constraints"}.get(
                kind, f"constraints of kind {kind!r}"
            )
        groups.setdefault(key, []).append(repr(str(getattr(con, "name", con))))
    masked = "a contact with a mask of rows, which Pinocchio's Python API does not offer"
    why = {
        "couplings": "joint-space gear and belt ratios; Pinocchio's mimic joints express a "
        "single-joint gear, but its aba and constraintDynamics refuse mimic joints",
        "implicit constraints": "user-defined phi(q) = 0",
    }
    return [
        f"the {key} {', '.join(names)} ({why.get(key, masked)})" for key, names in groups.items()
    ]


# ----------------------------------------------------------------------------------------
# Pinocchio -> geomech
# ----------------------------------------------------------------------------------------
_AXES = {"X": [1.0, 0.0, 0.0], "Y": [0.0, 1.0, 0.0], "Z": [0.0, 0.0, 1.0]}


def _pieces(jm) -> list[tuple]:
    """``(geomech joint, kind, placement before it, pin q offset, pin v offset)`` pieces.

    One piece for a joint with a geomech counterpart; a chain for the others (offsets are
    relative to the Pinocchio joint's own ``idx_q``/``idx_v``).
    """
    short = jm.shortname()
    concrete = jm.extract() if hasattr(jm, "extract") else jm
    eye = np.eye(4)
    if short in ("JointModelRX", "JointModelRY", "JointModelRZ"):
        return [(gj.Revolute(_AXES[short[-1]]), "same", eye, 0, 0)]
    if short == "JointModelRevoluteUnaligned":
        return [(gj.Revolute(np.array(concrete.axis)), "same", eye, 0, 0)]
    if short in ("JointModelRUBX", "JointModelRUBY", "JointModelRUBZ"):
        return [(gj.Revolute(_AXES[short[-1]]), "unbounded", eye, 0, 0)]
    if short == "JointModelRevoluteUnboundedUnaligned":
        return [(gj.Revolute(_unit_axis(jm)), "unbounded", eye, 0, 0)]
    if short in ("JointModelPX", "JointModelPY", "JointModelPZ"):
        return [(gj.Prismatic(_AXES[short[-1]]), "same", eye, 0, 0)]
    if short == "JointModelPrismaticUnaligned":
        return [(gj.Prismatic(np.array(concrete.axis)), "same", eye, 0, 0)]
    if short in ("JointModelHX", "JointModelHY", "JointModelHZ"):
        return [(gj.Helical(_AXES[short[-1]], float(concrete.pitch)), "same", eye, 0, 0)]
    if short == "JointModelHelicalUnaligned":
        return [(gj.Helical(np.array(concrete.axis), float(concrete.pitch)), "same", eye, 0, 0)]
    if short == "JointModelSpherical":
        return [(gj.Spherical(), "same", eye, 0, 0)]
    if short == "JointModelFreeFlyer":
        return [(gj.FreeFlyer(), "freeflyer", eye, 0, 0)]
    if short == "JointModelPlanar":
        return [(gj.Planar(), "planar", eye, 0, 0)]
    if short == "JointModelSphericalZYX":  # R = Rz(q0) Ry(q1) Rx(q2), v = q_dot
        return [(gj.Revolute(_AXES[a]), "same", eye, k, k) for k, a in enumerate("ZYX")]
    if short == "JointModelTranslation":  # p = q, v = q_dot, in the joint frame
        return [(gj.Prismatic(_AXES[a]), "same", eye, k, k) for k, a in enumerate("XYZ")]
    if short == "JointModelUniversal":  # R = R(a1, q0) R(a2, q1)
        return [(gj.Revolute(np.array(concrete.axis1)), "same", eye, 0, 0),
                (gj.Revolute(np.array(concrete.axis2)), "same", eye, 1, 1)]  # fmt: skip
    if short == "JointModelComposite":
        subs = list(concrete.joints)
        places = [np.asarray(M.homogeneous) for M in concrete.jointPlacements]
        names = [s.shortname() for s in subs]
        if names == ["JointModelPlanar", "JointModelPZ"] and all(
            np.array_equal(M, eye) for M in places
        ):
            return [(gj.SchoenfliesJoint(), "schoenflies", eye, 0, 0)]
        out, dq, dv = [], 0, 0
        for sub, M in zip(subs, places, strict=True):
            inner = _pieces(sub)
            first = inner[0]
            out.append((first[0], first[1], M @ first[2], dq + first[3], dv + first[4]))
            out.extend((j, k, P, dq + a, dv + b) for j, k, P, a, b in inner[1:])
            dq, dv = dq + sub.nq, dv + sub.nv
        return out
    raise ModelError(
        f"Pinocchio joint type {short} has no geomech counterpart (Mimic joints are "
        "constraints; Ellipsoid joints are not supported)."
    )


def _unit_axis(jm) -> np.ndarray:
    """Rotation axis of a 1-DoF revolute Pinocchio joint, read from its motion subspace.

    (Pinocchio's Python bindings do not expose ``axis`` on every unaligned joint.)
    """
    data = jm.createData()
    jm.calc(data, np.array([1.0, 0.0]) if jm.nq == 2 else np.zeros(jm.nq))
    return np.asarray(data.S, dtype=float).reshape(6)[3:]  # linear first: [v; w]


def _body_frames(pin_model) -> dict[int, list]:
    """``joint id -> [(BODY frame name, 4x4 placement in the joint frame), ...]``."""
    pin = _pin()
    out: dict[int, list] = {}
    for frame in pin_model.frames:
        if frame.type == pin.FrameType.BODY:
            out.setdefault(int(frame.parentJoint), []).append(
                (str(frame.name), np.asarray(frame.placement.homogeneous).copy())
            )
    return out


def from_pinocchio(pin_model) -> MultibodyModel:
    r"""A geomech model of a ``pinocchio.Model``.

    One body per Pinocchio joint, carrying that joint's inertia (which includes every body Pinocchio
    appended to the joint, e.g. the links of fixed URDF joints) and named after its ``BODY`` frame
    at the joint origin (else its first ``BODY`` frame, else the joint); edges carry the joint
    placements and the Pinocchio joint names. Joint types convert by the module's joint map; joints
    without a single geomech counterpart (``SphericalZYX``, ``Translation``, ``Universal``,
    ``Composite``) become chains through massless bodies, edges named ``"<joint>:0"``,
    ``"<joint>:1"``, …. Each edge records its Pinocchio joint in the attribute ``pinocchio`` (joint
    name, kind and offsets), which :class:`PinocchioBridge` reads. Each node's ``links`` attribute
    lists the ``BODY`` frames attached to the joint with their placements (as
    :func:`~geomech.multibody.io.urdf.load_urdf` lists merged links). The base node is Pinocchio's
    ``"universe"``; gravity is ``pin_model.gravity.linear``.

    Parameters
    ----------
    pin_model : pinocchio.Model

    Returns
    -------
    MultibodyModel

    Raises
    ------
    ModelError
        If ``pin_model`` is not a ``pinocchio.Model``, has a joint type with no geomech
        counterpart (``Mimic``, ``Ellipsoid``), or a body inertia geomech rejects (see
        :func:`~geomech.multibody.model.tree.check_inertia`).
    OptionalDependencyError
        If Pinocchio is not installed.

    Examples
    --------
    >>> import numpy as np
    >>> import pinocchio as pin
    >>> from geomech import rnea
    >>> from geomech.interop.pinocchio import PinocchioBridge, from_pinocchio
    >>> pm = pin.buildSampleModelManipulator()
    >>> model = from_pinocchio(pm)
    >>> model.nq, model.joint_names[:2]
    (6, ['shoulder1_joint', 'shoulder2_joint'])
    >>> bridge = PinocchioBridge(model, pm)
    >>> q, v, a = model.random_configuration(rng=0), np.ones(6), np.zeros(6)
    >>> bool(np.allclose(rnea(model, q, v, a), bridge.rnea(q, v, a), rtol=1e-12, atol=1e-12))
    True
    """
    pin = _pin()
    if not isinstance(pin_model, pin.Model):
        raise ModelError(f"Expected a pinocchio.Model, got {type(pin_model).__name__}.")
    frames = _body_frames(pin_model)
    root = str(pin_model.names[0])
    G = nx.DiGraph(name=str(pin_model.name) or "pinocchio")
    G.add_node(root, links=frames.get(0, []))
    node_of = {0: root}
    used = {root}

    def fresh(name: str) -> str:
        base, k = name, 1
        while name in used:
            name, k = f"{base}_{k}", k + 1
        used.add(name)
        return name

    for jid in range(1, pin_model.njoints):
        jname = str(pin_model.names[jid])
        attached = frames.get(jid, [])
        at_origin = [n for n, M in attached if np.allclose(M, np.eye(4), rtol=0, atol=1e-12)]
        at_origin += [n for n, _ in attached]  # else the first BODY frame on the joint
        pieces = _pieces(pin_model.joints[jid])
        parent = node_of[int(pin_model.parents[jid])]
        placement = np.asarray(pin_model.jointPlacements[jid].homogeneous)
        for k, (joint, kind, M, dq, dv) in enumerate(pieces):
            last = k == len(pieces) - 1
            edge_name = jname if len(pieces) == 1 else f"{jname}:{k}"
            if last:
                node = fresh(at_origin[0] if at_origin else jname)
                inertia = inertia_from_pin(pin_model.inertias[jid])
                G.add_node(node, inertia=inertia, links=attached)
            else:
                node = fresh(f"{jname}:{k}")
                G.add_node(node, inertia=np.zeros((6, 6)), links=[])
            joint.name = edge_name
            G.add_edge(parent, node, joint=joint, name=edge_name,
                       placement=placement @ M if k == 0 else M,
                       pinocchio={"joint": jname, "kind": kind, "q": dq, "v": dv})  # fmt: skip
            parent = node
        node_of[jid] = parent
    return MultibodyModel(G, gravity=np.array(pin_model.gravity.linear))


def load_mjcf(path) -> MultibodyModel:
    """Load a MuJoCo MJCF file through Pinocchio's MJCF parser and :func:`from_pinocchio`.

    Pinocchio reads ``<body>``, ``<joint>`` (hinge, slide, ball, free), ``<freejoint>``,
    ``<inertial>`` and the inertias MuJoCo infers from ``<geom>`` masses; a body with several
    joints becomes a Pinocchio composite joint and here a chain of joints through massless
    bodies (see :func:`from_pinocchio`). A floating base is declared in the file, as MuJoCo
    does, by a ``<freejoint/>`` on the root body.

    Parameters
    ----------
    path : str or os.PathLike
        An MJCF file, or the XML text itself (a string starting with ``<``).

    Returns
    -------
    MultibodyModel

    Raises
    ------
    ModelError
        If the file does not exist or Pinocchio cannot parse it (its message is included).
    OptionalDependencyError
        If Pinocchio is not installed.

    Examples
    --------
    >>> from geomech.interop.pinocchio import load_mjcf
    >>> model = load_mjcf('''
    ... <mujoco model="pendulum"><worldbody>
    ...   <body name="arm" pos="0 0 1">
    ...     <joint name="hinge" type="hinge" axis="0 1 0"/>
    ...     <inertial pos="0 0 -0.5" mass="1" diaginertia="0.1 0.1 0.01"/>
    ...   </body>
    ... </worldbody></mujoco>''')
    >>> model.body_names, model.joint_names, model.joint_types()
    (['arm'], ['hinge'], {'revolute': 1})
    """
    pin = _pin()
    text = None
    if isinstance(path, str) and path.lstrip().startswith("<"):
        text = path
    elif not Path(path).is_file():
        raise ModelError(f"Expected an MJCF file or MJCF text, got {str(path)!r} (no such file).")
    tmp = None
    if text is not None:
        fd, tmp = tempfile.mkstemp(suffix=".xml")
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
    try:
        pm = pin.buildModelFromMJCF(tmp if tmp is not None else str(path))
    except (RuntimeError, ValueError) as exc:
        raise ModelError(f"Pinocchio could not parse the MJCF {str(path)[:80]!r}: {exc}") from exc
    finally:
        if tmp is not None:
            os.unlink(tmp)
    return from_pinocchio(pm)


# ----------------------------------------------------------------------------------------
# The correspondence
# ----------------------------------------------------------------------------------------
_INFERRED = {  # geomech joint class -> Pinocchio short names it may pair with, and the kind
    gj.Revolute: {
        "JointModelRX": "same", "JointModelRY": "same", "JointModelRZ": "same",
        "JointModelRevoluteUnaligned": "same", "JointModelRUBX": "unbounded",
        "JointModelRUBY": "unbounded", "JointModelRUBZ": "unbounded",
        "JointModelRevoluteUnboundedUnaligned": "unbounded",
    },
    gj.Prismatic: {
        "JointModelPX": "same", "JointModelPY": "same", "JointModelPZ": "same",
        "JointModelPrismaticUnaligned": "same",
    },
    gj.Helical: {
        "JointModelHX": "same", "JointModelHY": "same", "JointModelHZ": "same",
        "JointModelHelicalUnaligned": "same",
    },
    gj.Spherical: {"JointModelSpherical": "same"},
    gj.FreeFlyer: {"JointModelFreeFlyer": "freeflyer"},
    gj.Planar: {"JointModelPlanar": "planar"},
    gj.SchoenfliesJoint: {"JointModelComposite": "schoenflies"},
}  # fmt: skip


class PinocchioBridge:
    r"""A geomech model and a Pinocchio model of the same robot, with the maps between them.

    The pairing is by joint name: geomech joint ``i`` pairs with the Pinocchio joint of the
    same name (or, for models made by :func:`from_pinocchio`, with the Pinocchio joint
    recorded in the edge attribute ``pinocchio``); the kind of each pair (module docstring)
    follows from the two joint types. A body welded by a ``Fixed`` joint pairs with the
    Pinocchio ``BODY`` frame of its name. Works for models built by :func:`to_pinocchio`,
    :func:`from_pinocchio`, and for a URDF loaded by both
    :func:`~geomech.multibody.io.urdf.load_urdf` and ``pinocchio.buildModelFromUrdf``.

    Parameters
    ----------
    model : MultibodyModel
    pin_model : pinocchio.Model, optional
        Default: the Pinocchio model built joint by joint by :func:`to_pinocchio`.

    Attributes
    ----------
    model : MultibodyModel
    pin_model : pinocchio.Model
    pin_data : pinocchio.Data
        Workspace of the Pinocchio calls (created here).
    joint_ids : ndarray of int, shape (N,)
        The joint-order map: Pinocchio joint id of geomech body ``i`` (the joint whose
        frame carries the body).
    body_frames : list of (int, pinocchio.SE3) or None
        For each geomech body, its Pinocchio joint and the body frame's placement in that
        joint frame (``None`` for the massless links inside an imported composite joint,
        which have no fixed placement in a Pinocchio joint frame).
    kinds : list of str
        Conversion kind of each moving geomech joint, in order.
    P : ndarray, shape (nv, nv)
        The speed permutation, ``v_pin = P @ v``.

    Raises
    ------
    ModelError
        If a geomech joint has no Pinocchio joint (or fixed body no ``BODY`` frame) of its
        name, the joint types or sizes do not correspond, or Pinocchio joints are left
        unpaired.
    OptionalDependencyError
        If Pinocchio is not installed.

    Examples
    --------
    A URDF loaded by both libraries:

    >>> import numpy as np
    >>> import pinocchio as pin
    >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.io.urdf import load_urdf
    >>> path = str(robots.urdf_path("ur5"))
    >>> bridge = PinocchioBridge(load_urdf(path), pin.buildModelFromUrdf(path))
    >>> bridge.joint_ids
    array([1, 2, 3, 4, 5, 6])

    A floating base: the free flyer's twist is reordered, the revolute speeds are not:

    >>> tree = robots.random_tree(3, rng=0, floating_base=True)
    >>> b = PinocchioBridge(tree)  # with to_pinocchio(tree)
    >>> b.kinds, b.v_to_pin(np.arange(8.0))
    (['freeflyer', 'same', 'same'], array([3., 4., 5., 0., 1., 2., 6., 7.]))
    """

    def __init__(self, model: MultibodyModel, pin_model=None):
        pin = _pin()
        if not isinstance(model, MultibodyModel):
            raise ModelError(f"Expected a geomech MultibodyModel, got {type(model).__name__}.")
        if pin_model is None:
            pin_model = to_pinocchio(model)
        if not isinstance(pin_model, pin.Model):
            raise ModelError(f"Expected a pinocchio.Model, got {type(pin_model).__name__}.")
        self.model, self.pin_model = model, pin_model
        self.pin_data = pin_model.createData()
        names = [str(n) for n in pin_model.names]
        body_frames = {n: (int(f.parentJoint), f.placement) for n, f in _frames(pin_model)}
        self._entries: list[tuple[str, slice, slice, int, int]] = []
        self.kinds: list[str] = []
        self.body_frames: list = []
        joint_ids = []
        covered = np.zeros(pin_model.nv, dtype=int)
        for i, joint in enumerate(model.joints):
            node, pnode = model.nodes[i], _parent_node(model, i)
            edge = model.graph.edges[pnode, node]
            if joint.nv == 0:
                frame = body_frames.get(model.body_names[i])
                if frame is None:
                    raise ModelError(
                        f"Fixed body {model.body_names[i]!r}: no Pinocchio BODY frame of that "
                        "name to pair it with."
                    )
                self.body_frames.append(frame)
                joint_ids.append(frame[0])
                continue
            meta = edge.get("pinocchio")  # set by from_pinocchio, used unless names pair
            if model.joint_names[i] in names[1:]:
                meta = None
            jname = meta["joint"] if meta else model.joint_names[i]
            if jname not in names[1:]:
                raise ModelError(
                    f"Joint {model.joint_names[i]!r} (body {model.body_names[i]!r}): no "
                    f"Pinocchio joint named {jname!r}."
                )
            jid = names.index(jname)
            if meta:
                kind, dq, dv = meta["kind"], int(meta["q"]), int(meta["v"])
            else:
                kind, dq, dv = self._infer_kind(joint, pin_model.joints[jid], jname), 0, 0
            nv_pin = joint.nv
            nq_pin = _PIN_NQ[kind] or joint.nq
            if meta is None and (pin_model.nvs[jid] != nv_pin or pin_model.nqs[jid] != nq_pin):
                raise ModelError(
                    f"Joint {jname!r}: geomech {type(joint).__name__} (nq={joint.nq}, "
                    f"nv={joint.nv}) does not match Pinocchio {pin_model.joints[jid].shortname()} "
                    f"(nq={pin_model.nqs[jid]}, nv={pin_model.nvs[jid]})."
                )
            iq, iv = pin_model.idx_qs[jid] + dq, pin_model.idx_vs[jid] + dv
            covered[iv : iv + nv_pin] += 1
            self._entries.append((kind, model.q_slices[i], model.v_slices[i], iq, iv))
            self.kinds.append(kind)
            last_piece = meta is None or dv + nv_pin == pin_model.nvs[jid]
            self.body_frames.append((jid, pin.SE3.Identity()) if last_piece else None)
            joint_ids.append(jid)
        if model.nv != pin_model.nv or np.any(covered != 1):
            missing = sorted({names[j] for j in range(1, pin_model.njoints)
                              if np.any(covered[pin_model.idx_vs[j]:pin_model.idx_vs[j]
                                                + pin_model.nvs[j]] != 1)})  # fmt: skip
            raise ModelError(
                f"The models do not correspond: geomech nv = {model.nv}, Pinocchio nv = "
                f"{pin_model.nv}; Pinocchio joints not paired exactly once: {missing!r}."
            )
        self.joint_ids = np.array(joint_ids, dtype=int)
        P = np.zeros((model.nv, model.nv))
        for kind, _, vs, _, iv in self._entries:
            perm = SPEED_PERMUTATIONS[kind] or range(vs.stop - vs.start)
            for k, src in enumerate(perm):
                P[iv + k, vs.start + src] = 1.0
        self.P = P

    @staticmethod
    def _infer_kind(joint, pin_joint, jname: str) -> str:
        short = pin_joint.shortname()
        for cls, table in _INFERRED.items():
            if isinstance(joint, cls) and short in table:
                return table[short]
        raise ModelError(
            f"Joint {jname!r}: geomech {type(joint).__name__} does not correspond to "
            f"Pinocchio {short}."
        )

    # ---- states, forces and matrices
    def q_to_pin(self, q) -> np.ndarray:
        """Configurations in Pinocchio's layout.

        Parameters
        ----------
        q : array_like, shape (..., nq)

        Returns
        -------
        ndarray, shape (..., pin_model.nq)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
        >>> from geomech.multibody import Planar, robots
        >>> model = robots.double_pendulum()
        >>> PinocchioBridge(model, to_pinocchio(model)).q_to_pin([0.1, 0.2])
        array([0.1, 0.2])
        """
        q = self._check(q, self.model.nq, "q")
        out = np.zeros(q.shape[:-1] + (self.pin_model.nq,))
        for kind, qs, _, iq, _ in self._entries:
            block = _q_to_pin(kind, q[..., qs])
            out[..., iq : iq + block.shape[-1]] = block
        return out

    def q_from_pin(self, q_pin) -> np.ndarray:
        """Configurations in geomech's layout (angles from ``(cos, sin)`` in (-π, π]).

        Parameters
        ----------
        q_pin : array_like, shape (..., pin_model.nq)

        Returns
        -------
        ndarray, shape (..., nq)

        Examples
        --------
        >>> import numpy as np
        >>> import pinocchio as pin
        >>> from geomech.interop.pinocchio import PinocchioBridge, from_pinocchio
        >>> pm = pin.buildSampleModelHumanoid()
        >>> bridge = PinocchioBridge(from_pinocchio(pm), pm)
        >>> q = pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq))
        >>> bool(np.allclose(bridge.q_to_pin(bridge.q_from_pin(q)), q))
        True
        """
        q_pin = self._check(q_pin, self.pin_model.nq, "q_pin")
        out = np.zeros(q_pin.shape[:-1] + (self.model.nq,))
        for kind, qs, _, iq, _ in self._entries:
            n = _PIN_NQ[kind] or (qs.stop - qs.start)
            out[..., qs] = _q_from_pin(kind, q_pin[..., iq : iq + n])
        return out

    def v_to_pin(self, v) -> np.ndarray:
        """Speeds (or accelerations, generalised forces) in Pinocchio's layout, ``P v``.

        Parameters
        ----------
        v : array_like, shape (..., nv)

        Returns
        -------
        ndarray, shape (..., nv)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
        >>> from geomech.multibody import robots
        >>> model = robots.quadruped()
        >>> PinocchioBridge(model, to_pinocchio(model)).v_to_pin(np.arange(18.0))[:6]
        array([3., 4., 5., 0., 1., 2.])
        """
        return self._check(v, self.model.nv, "v") @ self.P.T

    def v_from_pin(self, v_pin) -> np.ndarray:
        """Speeds (or accelerations, generalised forces) in geomech's layout, ``Pᵀ v_pin``.

        Parameters
        ----------
        v_pin : array_like, shape (..., nv)

        Returns
        -------
        ndarray, shape (..., nv)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
        >>> from geomech.multibody import robots
        >>> model = robots.quadruped()
        >>> PinocchioBridge(model, to_pinocchio(model)).v_from_pin(np.arange(18.0))[:6]
        array([3., 4., 5., 0., 1., 2.])
        """
        return self._check(v_pin, self.model.nv, "v_pin") @ self.P

    def matrix_to_pin(self, M) -> np.ndarray:
        """An ``nv × nv`` matrix (``H``, ``C``) in Pinocchio's ordering, ``P M Pᵀ``.

        Parameters
        ----------
        M : array_like, shape (..., nv, nv)

        Returns
        -------
        ndarray, shape (..., nv, nv)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
        >>> from geomech.multibody import robots
        >>> model = robots.double_pendulum()
        >>> bridge = PinocchioBridge(model, to_pinocchio(model))
        >>> bridge.matrix_to_pin(np.eye(2))
        array([[1., 0.],
               [0., 1.]])
        """
        M = np.asarray(M, dtype=float)
        return self.P @ M @ self.P.T

    def matrix_from_pin(self, M_pin) -> np.ndarray:
        """An ``nv × nv`` matrix in Pinocchio's ordering → geomech's, ``Pᵀ M P``.

        Parameters
        ----------
        M_pin : array_like, shape (..., nv, nv)

        Returns
        -------
        ndarray, shape (..., nv, nv)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
        >>> from geomech.multibody import robots
        >>> model = robots.quadruped()
        >>> bridge = PinocchioBridge(model, to_pinocchio(model))
        >>> M = np.arange(18.0 * 18).reshape(18, 18)
        >>> bool(np.array_equal(bridge.matrix_from_pin(bridge.matrix_to_pin(M)), M))
        True
        """
        M_pin = np.asarray(M_pin, dtype=float)
        return self.P.T @ M_pin @ self.P

    def f_ext_to_pin(self, f_ext) -> list:
        """Body-frame wrenches ``[n; f]`` of the geomech bodies → Pinocchio's per-joint forces.

        Parameters
        ----------
        f_ext : array_like, shape (N, 6)
            Wrench on each geomech body, in its body frame (as
            :func:`~geomech.multibody.algorithms.dynamics.rnea` takes them).

        Returns
        -------
        list of pinocchio.Force
            One per Pinocchio joint (``njoints``), in the joint frames.

        Raises
        ------
        ModelError
            If ``f_ext`` has the wrong shape, or a nonzero wrench acts on a massless link
            inside an imported composite joint.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
        >>> from geomech.multibody import robots
        >>> model = robots.double_pendulum()
        >>> forces = PinocchioBridge(model, to_pinocchio(model)).f_ext_to_pin(np.ones((2, 6)))
        >>> len(forces), forces[1].vector
        (3, array([1., 1., 1., 1., 1., 1.]))
        """
        pin = _pin()
        f_ext = np.asarray(f_ext, dtype=float)
        if f_ext.shape != (self.model.n_bodies, 6):
            raise ModelError(
                f"Expected `f_ext` of shape {(self.model.n_bodies, 6)}, got {f_ext.shape}."
            )
        out = [pin.Force.Zero() for _ in range(self.pin_model.njoints)]
        for i, frame in enumerate(self.body_frames):
            if frame is None:
                if np.any(f_ext[i]):
                    raise ModelError(
                        f"Body {self.model.body_names[i]!r} is a massless link inside a "
                        "Pinocchio composite joint: it cannot carry an external wrench."
                    )
                continue
            jid, M = frame
            out[jid] = out[jid] + M.act(pin.Force(wrench_to_pin(f_ext[i])))
        return out

    def _run_dynamics(self, algorithm: str, q, v, x, f_ext) -> np.ndarray:
        """Pinocchio's ``algorithm(model, data, q, v, x[, f_ext])`` in geomech's layout.

        Shared by :meth:`rnea` and :meth:`aba`: the arguments mapped in, the result mapped back.
        """
        pin = _pin()
        args = [self.pin_model, self.pin_data, self.q_to_pin(q), self.v_to_pin(v),
                self.v_to_pin(x)]  # fmt: skip
        if f_ext is not None:
            args.append(self.f_ext_to_pin(f_ext))
        return self.v_from_pin(getattr(pin, algorithm)(*args))

    # ---- Pinocchio's algorithms in geomech's conventions (single states)
    def rnea(self, q, v, a, f_ext=None) -> np.ndarray:
        """Pinocchio's RNEA, in geomech's layout: ``tau`` of shape (nv,).

        Parameters
        ----------
        q : array_like, shape (nq,)
        v, a : array_like, shape (nv,)
        f_ext : array_like, shape (N, 6), optional
            Body-frame wrenches ``[n; f]`` on the geomech bodies.

        Returns
        -------
        ndarray, shape (nv,)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech import rnea, robots
        >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
        >>> model = robots.double_pendulum()
        >>> bridge = PinocchioBridge(model, to_pinocchio(model))
        >>> np.round(bridge.rnea([0.0, 0.0], [0.0, 0.0], [1.0, 0.0]), 12)
        array([5., 2.])
        """
        return self._run_dynamics("rnea", q, v, a, f_ext)

    def aba(self, q, v, tau, f_ext=None) -> np.ndarray:
        """Pinocchio's ABA, in geomech's layout: accelerations of shape (nv,).

        Parameters
        ----------
        q : array_like, shape (nq,)
        v, tau : array_like, shape (nv,)
        f_ext : array_like, shape (N, 6), optional

        Returns
        -------
        ndarray, shape (nv,)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech import robots
        >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
        >>> model = robots.double_pendulum()
        >>> bridge = PinocchioBridge(model, to_pinocchio(model))
        >>> np.round(bridge.aba([0.0, 0.0], [0.0, 0.0], [5.0, 2.0]), 12)
        array([1., 0.])
        """
        return self._run_dynamics("aba", q, v, tau, f_ext)

    def constraint_dynamics(self, q, v, tau, constraint_models, settings=None) -> np.ndarray:
        r"""Pinocchio's ``constraintDynamics``, in geomech's layout: accelerations (nv,).

        The accelerations of the tree under the constraints ``constraint_models`` (e.g. the
        loops of :func:`to_pinocchio_closed`), with the acceleration constraint
        :math:`J\ddot q + \dot J\dot q = 0` (no Baumgarte terms): on a closed model's
        spanning tree, at a closed ``q`` and consistent speeds ``v = G v_ind``, this is
        :math:`G\,\mathrm{aba}(q, v_{ind}, G^\top\tau) + g`.

        Parameters
        ----------
        q : array_like, shape (nq,)
        v, tau : array_like, shape (nv,)
            Tree speeds and generalised forces.
        constraint_models : pinocchio.StdVec_RigidConstraintModel
            Built on :attr:`pin_model`.
        settings : pinocchio.ProximalSettings, optional
            Default ``ProximalSettings(*PROXIMAL_SETTINGS)`` (accuracy 1e-12, ``mu`` 1e-8,
            100 iterations): redundant constraint rows need ``mu > 0``.

        Returns
        -------
        ndarray, shape (nv,)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech import aba
        >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio_closed
        >>> from geomech.multibody.io.examples import load_example
        >>> model = load_example("six_bar")
        >>> pm, constraints = to_pinocchio_closed(model)
        >>> bridge = PinocchioBridge(model.spanning_tree, pm)
        >>> q, v = model.random_configuration(rng=1), np.array([0.5])
        >>> tau_s = np.linspace(-1.0, 1.0, model.spanning_tree.nv)
        >>> G, g = model.constraint_matrices(q, v)
        >>> a_s = bridge.constraint_dynamics(q, G @ v, tau_s, constraints)
        >>> bool(np.allclose(a_s, G @ aba(model, q, v, G.T @ tau_s) + g, rtol=1e-9, atol=1e-9))
        True
        """
        pin = _pin()
        if not isinstance(constraint_models, pin.StdVec_RigidConstraintModel):
            constraint_models = pin.StdVec_RigidConstraintModel(list(constraint_models))
        datas = pin.StdVec_RigidConstraintData([c.createData() for c in constraint_models])
        if settings is None:
            settings = pin.ProximalSettings(*PROXIMAL_SETTINGS)
        pin.initConstraintDynamics(self.pin_model, self.pin_data, constraint_models, datas)
        a = pin.constraintDynamics(self.pin_model, self.pin_data, self.q_to_pin(q),
                                   self.v_to_pin(v), self.v_to_pin(tau), constraint_models,
                                   datas, settings)  # fmt: skip
        return self.v_from_pin(a)

    def crba(self, q) -> np.ndarray:
        """Pinocchio's CRBA (both triangles filled), in geomech's ordering.

        Parameters
        ----------
        q : array_like, shape (nq,)

        Returns
        -------
        ndarray, shape (nv, nv)

        Examples
        --------
        >>> from geomech import robots
        >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
        >>> model = robots.double_pendulum()
        >>> PinocchioBridge(model, to_pinocchio(model)).crba([0.0, 0.0]).round(12)
        array([[5., 2.],
               [2., 1.]])
        """
        H = _pin().crba(self.pin_model, self.pin_data, self.q_to_pin(q))
        H = np.triu(H) + np.triu(H, 1).T  # only the upper triangle is guaranteed
        return self.matrix_from_pin(H)

    def coriolis_matrix(self, q, v) -> np.ndarray:
        """Pinocchio's Coriolis matrix (``computeCoriolisMatrix``), in geomech's ordering.

        Parameters
        ----------
        q : array_like, shape (nq,)
        v : array_like, shape (nv,)

        Returns
        -------
        ndarray, shape (nv, nv)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech import robots
        >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
        >>> model = robots.double_pendulum()
        >>> bridge = PinocchioBridge(model, to_pinocchio(model))
        >>> np.round(bridge.coriolis_matrix([0.0, np.pi / 2], [1.0, 0.0]), 12) + 0.0
        array([[ 0., -1.],
               [ 1.,  0.]])
        """
        C = _pin().computeCoriolisMatrix(
            self.pin_model, self.pin_data, self.q_to_pin(q), self.v_to_pin(v)
        )
        return self.matrix_from_pin(C)

    def gravity_forces(self, q) -> np.ndarray:
        """Pinocchio's generalised gravity, in geomech's layout.

        Parameters
        ----------
        q : array_like, shape (nq,)

        Returns
        -------
        ndarray, shape (nv,)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech import robots
        >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
        >>> model = robots.double_pendulum()
        >>> np.round(PinocchioBridge(model, to_pinocchio(model)).gravity_forces([0.0, 0.0]), 12)
        array([0., 0.])
        """
        g = _pin().computeGeneralizedGravity(self.pin_model, self.pin_data, self.q_to_pin(q))
        return self.v_from_pin(g)

    def kinetic_energy(self, q, v) -> float:
        """Pinocchio's kinetic energy.

        Parameters
        ----------
        q : array_like, shape (nq,)
        v : array_like, shape (nv,)

        Returns
        -------
        float

        Examples
        --------
        >>> from geomech import robots
        >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
        >>> model = robots.double_pendulum()
        >>> round(PinocchioBridge(model, to_pinocchio(model)).kinetic_energy([0, 0], [1, 0]), 12)
        2.5
        """
        return float(_pin().computeKineticEnergy(
            self.pin_model, self.pin_data, self.q_to_pin(q), self.v_to_pin(v)
        ))  # fmt: skip

    def forward_kinematics(self, q) -> np.ndarray:
        """World poses of the geomech body frames, from Pinocchio's forward kinematics.

        Parameters
        ----------
        q : array_like, shape (nq,)

        Returns
        -------
        ndarray, shape (N, 4, 4)
            NaN for the massless links inside an imported composite joint.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech import robots
        >>> from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
        >>> model = robots.double_pendulum()
        >>> T = PinocchioBridge(model, to_pinocchio(model)).forward_kinematics([0.0, 0.0])
        >>> T[1, :3, 3]
        array([ 0.,  0., -1.])
        """
        pin = _pin()
        pin.forwardKinematics(self.pin_model, self.pin_data, self.q_to_pin(q))
        out = np.full((self.model.n_bodies, 4, 4), np.nan)
        for i, frame in enumerate(self.body_frames):
            if frame is not None:
                out[i] = (self.pin_data.oMi[frame[0]] * frame[1]).homogeneous
        return out

    # ---- helpers
    @staticmethod
    def _check(x, n: int, name: str) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if x.shape[-1:] != (n,):
            raise ModelError(f"Expected `{name}` of shape (..., {n}), got shape {x.shape}.")
        return x

    def __repr__(self) -> str:
        return (
            f"<PinocchioBridge: {self.model.n_bodies} geomech bodies, "
            f"{self.pin_model.njoints - 1} Pinocchio joints, nv={self.model.nv}>"
        )


def _frames(pin_model):
    """``(name, frame)`` of the Pinocchio BODY frames."""
    pin = _pin()
    return [(str(f.name), f) for f in pin_model.frames if f.type == pin.FrameType.BODY]


def _parent_node(model: MultibodyModel, i: int):
    p = int(model.parent[i])
    return model.root if p < 0 else model.nodes[p]
