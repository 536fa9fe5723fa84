"""Test helper: geomech <-> Pinocchio (pin 4.1) correspondence of models, states and results.

Two ways to get a correspondence:

* :func:`to_pinocchio` builds an equivalent ``pinocchio.Model`` joint by joint from a geomech
  :class:`MultibodyModel` (revolute/prismatic/helical -> ``*Unaligned``, spherical ->
  ``JointModelSpherical``, free-flyer -> ``JointModelFreeFlyer``, planar -> ``JointModelPlanar``,
  Schoenflies -> ``JointModelComposite(Planar, PZ)``, fixed -> the body is merged into its
  parent joint, with a frame kept for kinematics);
* :func:`match_by_name` pairs a geomech model and a Pinocchio model loaded from the same URDF,
  joint by joint by name.

Conventions bridged:

* spatial vectors: geomech is angular first ``[w; v]`` / ``[n; f]``, Pinocchio linear first;
* free-flyer: same ``q = [p; quat(x, y, z, w)]``, body twist ``v`` reordered;
* planar: geomech ``q = [x, y, th]``, ``v = [w_z, v_x, v_y]``; Pinocchio
  ``q = [x, y, cos th, sin th]``, ``v = [v_x, v_y, w_z]``;
* Schoenflies: geomech ``q = [x, y, z, th]``, ``v = [w_z, v_x, v_y, v_z]``; Pinocchio composite
  ``q = [x, y, cos th, sin th, z]``, ``v = [v_x, v_y, w_z, v_z]``;
* continuous URDF joints: geomech one angle, Pinocchio ``[cos th, sin th]`` (``JointModelRUB*``).

Every speed conversion is a permutation ``P`` with ``v_pin = P @ v_gm``; generalised forces
map the same way (``P`` is orthogonal), and ``H_gm = P.T @ H_pin @ P``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from geomech.multibody import joints as gj

__all__ = [
    "Bridge",
    "to_pinocchio",
    "match_by_name",
    "twist_to_pin",
    "twist_from_pin",
    "wrench_to_pin",
    "wrench_from_pin",
    "pin_inertia",
    "pin_se3",
]


# ---- spatial vectors -------------------------------------------------------------------


def twist_to_pin(t):
    """Angular-first [w; v] -> linear-first [v; w] (also for accelerations)."""
    t = np.asarray(t, dtype=float)
    return np.concatenate([t[..., 3:], t[..., :3]], -1)


def twist_from_pin(t):
    """Linear-first [v; w] -> angular-first [w; v]."""
    return twist_to_pin(t)  # the swap is an involution


wrench_to_pin = twist_to_pin  # [n; f] -> [f; n]
wrench_from_pin = twist_from_pin


def pin_se3(T) -> pin.SE3:
    """pinocchio.SE3 from a 4x4 homogeneous transform."""
    T = np.asarray(T, dtype=float)
    return pin.SE3(T[:3, :3].copy(), T[:3, 3].copy())


def pin_inertia(inertia) -> pin.Inertia:
    """pinocchio.Inertia from a geomech 6x6 spatial inertia about the body frame origin."""
    inertia = np.asarray(inertia, dtype=float)
    m = inertia[5, 5]
    h = np.array([inertia[2, 4], inertia[0, 5], inertia[1, 3]])  # h = m c, from m S(c)
    I_O = inertia[:3, :3]
    if m > 0:
        c = h / m
        Sc = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
        I_c = I_O - m * Sc @ Sc.T
    else:
        c, I_c = np.zeros(3), I_O
    return pin.Inertia(float(m), c, 0.5 * (I_c + I_c.T))


# ---- the correspondence -----------------------------------------------------------------


@dataclass
class _Entry:
    """One joint: geomech slices, Pinocchio q/v indices, and the conversion kind."""

    kind: str  # "same" | "freeflyer" | "planar" | "schoenflies" | "unbounded"
    gm_q: slice
    gm_v: slice
    pin_q: int
    pin_v: int


@dataclass
class Bridge:
    """A geomech model, an equivalent Pinocchio model and the maps between their states."""

    gm: object
    pin_model: pin.Model
    entries: list = field(default_factory=list)
    # geomech body i <-> (Pinocchio joint id, placement of body i's frame in that joint frame)
    body_frames: list = field(default_factory=list)

    def __post_init__(self):
        self.pin_data = self.pin_model.createData()

    # -- speeds, accelerations, forces
    @property
    def P(self) -> np.ndarray:
        """Permutation with v_pin = P @ v_gm."""
        nv = self.gm.nv
        P = np.zeros((nv, nv))
        for e in self.entries:
            n = e.gm_v.stop - e.gm_v.start
            perm = _V_PERM[e.kind](n)  # v_pin_block[k] = v_gm_block[perm[k]]
            for k, src in enumerate(perm):
                P[e.pin_v + k, e.gm_v.start + src] = 1.0
        return P

    def v_to_pin(self, v):
        return np.asarray(v, dtype=float) @ self.P.T

    def v_from_pin(self, v):
        return np.asarray(v, dtype=float) @ self.P

    def matrix_from_pin(self, M):
        """An nv x nv matrix (H, C) in Pinocchio ordering -> geomech ordering."""
        P = self.P
        return P.T @ M @ P

    # -- configurations
    def q_to_pin(self, q):
        q = np.asarray(q, dtype=float)
        out = np.zeros(q.shape[:-1] + (self.pin_model.nq,))
        for e in self.entries:
            qi = q[..., e.gm_q]
            blk = _Q_CONV[e.kind](qi)
            out[..., e.pin_q : e.pin_q + blk.shape[-1]] = blk
        return out

    # -- external wrenches
    def f_ext_to_pin(self, f_ext) -> list:
        """(N, 6) body-frame wrenches [n; f] -> list of pin.Force, one per Pinocchio joint."""
        fext = [pin.Force.Zero() for _ in range(self.pin_model.njoints)]
        for i, (jid, M) in enumerate(self.body_frames):
            f = pin.Force(wrench_to_pin(f_ext[i]))
            fext[jid] = fext[jid] + M.act(f)
        return fext

    # -- Pinocchio calls in geomech conventions (single states)
    def rnea(self, q, v, a, f_ext=None):
        args = [self.pin_model, self.pin_data, self.q_to_pin(q), self.v_to_pin(v), self.v_to_pin(a)]
        if f_ext is not None:
            args.append(self.f_ext_to_pin(f_ext))
        return self.v_from_pin(pin.rnea(*args))

    def aba(self, q, v, tau, f_ext=None):
        args = [
            self.pin_model,
            self.pin_data,
            self.q_to_pin(q),
            self.v_to_pin(v),
            self.v_to_pin(tau),
        ]
        if f_ext is not None:
            args.append(self.f_ext_to_pin(f_ext))
        return self.v_from_pin(pin.aba(*args))

    def crba(self, q):
        H = pin.crba(self.pin_model, self.pin_data, self.q_to_pin(q))
        H = np.triu(H) + np.triu(H, 1).T  # only the upper triangle is guaranteed
        return self.matrix_from_pin(H)

    def gravity(self, q):
        g = pin.computeGeneralizedGravity(self.pin_model, self.pin_data, self.q_to_pin(q))
        return self.v_from_pin(g)

    def kinetic_energy(self, q, v):
        return pin.computeKineticEnergy(
            self.pin_model, self.pin_data, self.q_to_pin(q), self.v_to_pin(v)
        )

    def forward_kinematics(self, q):
        """(N, 4, 4) world poses of the geomech body frames."""
        pin.forwardKinematics(self.pin_model, self.pin_data, self.q_to_pin(q))
        return np.stack([(self.pin_data.oMi[jid] * M).homogeneous for jid, M in self.body_frames])


def _perm_same(n):
    return list(range(n))


_V_PERM = {
    "same": _perm_same,
    "unbounded": _perm_same,
    "freeflyer": lambda n: [3, 4, 5, 0, 1, 2],  # pin [v; w] <- gm [w; v]
    "planar": lambda n: [1, 2, 0],  # pin [vx, vy, wz] <- gm [wz, vx, vy]
    "schoenflies": lambda n: [1, 2, 0, 3],  # pin [vx, vy, wz, vz] <- gm [wz, vx, vy, vz]
}


def _q_planar(q):
    th = q[..., 2]
    return np.stack([q[..., 0], q[..., 1], np.cos(th), np.sin(th)], -1)


def _q_schoenflies(q):
    th = q[..., 3]
    return np.stack([q[..., 0], q[..., 1], np.cos(th), np.sin(th), q[..., 2]], -1)


def _q_unbounded(q):
    return np.stack([np.cos(q[..., 0]), np.sin(q[..., 0])], -1)


_Q_CONV = {
    "same": lambda q: q,
    "freeflyer": lambda q: q,
    "planar": _q_planar,
    "schoenflies": _q_schoenflies,
    "unbounded": _q_unbounded,
}


# ---- building a Pinocchio model from a geomech model ------------------------------------


def _pin_joint(joint):
    """(Pinocchio joint model, conversion kind) for a geomech joint."""
    if isinstance(joint, gj.Revolute):
        return pin.JointModelRevoluteUnaligned(np.asarray(joint.axis, float)), "same"
    if isinstance(joint, gj.Prismatic):
        return pin.JointModelPrismaticUnaligned(np.asarray(joint.axis, float)), "same"
    if isinstance(joint, gj.Helical):
        return (
            pin.JointModelHelicalUnaligned(np.asarray(joint.axis, float), float(joint.pitch)),
            "same",
        )
    if isinstance(joint, gj.Spherical):
        return pin.JointModelSpherical(), "same"
    if isinstance(joint, gj.FreeFlyer):
        return pin.JointModelFreeFlyer(), "freeflyer"
    if isinstance(joint, gj.Planar):
        return pin.JointModelPlanar(), "planar"
    if isinstance(joint, gj.SchoenfliesJoint):
        jc = pin.JointModelComposite(2)
        jc.addJoint(pin.JointModelPlanar())
        jc.addJoint(pin.JointModelPZ())
        return jc, "schoenflies"
    raise NotImplementedError(f"no Pinocchio counterpart for {type(joint).__name__}")


def to_pinocchio(model) -> Bridge:
    """An equivalent Pinocchio model built joint by joint, with the state maps."""
    pm = pin.Model()
    pm.gravity = pin.Motion(np.concatenate([np.asarray(model.gravity, float), np.zeros(3)]))
    entries, body_frames = [], []
    parent = model.parent.tolist()
    for i, joint in enumerate(model.joints):
        placement = model.placements[i]
        if parent[i] < 0:
            parent_jid, parent_M = 0, np.eye(4)
        else:
            jid_p, M_p = body_frames[parent[i]]
            parent_jid, parent_M = jid_p, M_p.homogeneous
        name = f"{model.body_names[i]}"
        if joint.nv == 0:  # fixed: merge the body into the parent's joint
            M = pin_se3(parent_M @ placement @ joint.pose(np.zeros(0)))
            pm.appendBodyToJoint(parent_jid, pin_inertia(model.inertias[i]), M)
            body_frames.append((parent_jid, M))
            continue
        jm, kind = _pin_joint(joint)
        jid = pm.addJoint(parent_jid, jm, pin_se3(parent_M @ placement), name)
        pm.appendBodyToJoint(jid, pin_inertia(model.inertias[i]), pin.SE3.Identity())
        entries.append(
            _Entry(kind, model.q_slices[i], model.v_slices[i], pm.idx_qs[jid], pm.idx_vs[jid])
        )
        body_frames.append((jid, pin.SE3.Identity()))
    return Bridge(model, pm, entries, body_frames)


# ---- pairing models loaded from the same URDF --------------------------------------------

_PIN_KIND = {
    "JointModelFreeFlyer": "freeflyer",
    "JointModelPlanar": "planar",
    "JointModelRUBX": "unbounded",
    "JointModelRUBY": "unbounded",
    "JointModelRUBZ": "unbounded",
    "JointModelRevoluteUnboundedUnaligned": "unbounded",
}


def match_by_name(model, pin_model: pin.Model, joint_name_of_body) -> Bridge:
    """Pair a geomech model with a Pinocchio model of the same URDF, joint by joint by name.

    ``joint_name_of_body(i)`` gives the name of the joint into geomech body ``i``.
    """
    entries, body_frames = [], []
    names = list(pin_model.names)
    for i in range(model.n_bodies):
        jname = joint_name_of_body(i)
        if jname not in names:
            raise KeyError(
                f"joint {jname!r} of body {model.body_names[i]!r} not in pinocchio model"
            )
        jid = names.index(jname)
        short = pin_model.joints[jid].shortname()
        kind = _PIN_KIND.get(short, "same")
        nq_gm = model.q_slices[i].stop - model.q_slices[i].start
        if kind == "same" and nq_gm != pin_model.nqs[jid]:
            raise ValueError(f"joint {jname!r}: nq {nq_gm} vs pinocchio {pin_model.nqs[jid]}")
        entries.append(
            _Entry(
                kind,
                model.q_slices[i],
                model.v_slices[i],
                pin_model.idx_qs[jid],
                pin_model.idx_vs[jid],
            )
        )
        body_frames.append((jid, pin.SE3.Identity()))
    return Bridge(model, pin_model, entries, body_frames)
