"""Test helpers for closed chains: Pinocchio constraint models and constraint-consistent paths.

The references are independent of geomech's loop code:

* loops: ``pinocchio.constraintDynamics`` with ``RigidConstraintModel``s on the spanning tree
  (converted by :class:`~geomech.interop.pinocchio.PinocchioBridge`). A revolute loop joint is two
  3D point constraints at two points of its axis (they leave exactly the rotation about the axis
  free; planar mechanisms make some rows redundant, which Pinocchio's proximal solver accepts);
* couplings: the projection with Pinocchio's ``crba``/``nonLinearEffects`` and a ``G`` written
  by hand from the URDF+ meaning of ``<coupling>`` (linear, so ``g = 0``).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from geomech.interop.pinocchio import PinocchioBridge, se3_to_pin
from geomech.multibody.model.joints import Revolute

__all__ = ["LOOPS", "COUPLINGS", "ALL", "PinLoops", "coupling_G", "rel_err", "consistent_path"]

#: The shipped closed models (name, floating base): loops, and couplings only.
LOOPS = [("four_bar", False), ("four_bar", True), ("six_bar", False), ("six_bar", True),
         ("planar_leg", False), ("planar_leg", True)]  # fmt: skip
COUPLINGS = [("geared_chain", False), ("geared_chain", True), ("belt_leg", False),
             ("belt_leg", True)]  # fmt: skip
ALL = LOOPS + COUPLINGS


def rel_err(actual, expected):
    """Max abs error relative to the size of the reference (floored at 1)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    return float(np.max(np.abs(actual - expected)) / max(1.0, float(np.max(np.abs(expected)))))


class PinLoops:
    """Pinocchio model of a closed model's spanning tree with its revolute loops as constraints."""

    def __init__(self, model):
        self.model = model
        self.bridge = br = PinocchioBridge(model.spanning_tree)
        self.cms = pin.StdVec_RigidConstraintModel()
        for con in model.constraints:
            if con.kind != "loop":
                continue
            assert isinstance(con.joint, Revolute), "only revolute loop joints are converted"
            j1, M1 = self._place(con.pred, con.Tp)
            j2, M2 = self._place(con.succ, con.Ts)
            for offset in (0.0, 1.0):  # two points on the axis
                d = pin.SE3(np.eye(3), offset * np.asarray(con.joint.axis, float))
                self.cms.append(
                    pin.RigidConstraintModel(
                        pin.ContactType.CONTACT_3D,
                        br.pin_model,
                        j1,
                        M1 * d,
                        j2,
                        M2 * d,
                        pin.ReferenceFrame.LOCAL,
                    )
                )
        self.cds = pin.StdVec_RigidConstraintData()
        for cm in self.cms:
            self.cds.append(cm.createData())
        pin.initConstraintDynamics(br.pin_model, br.pin_data, self.cms, self.cds)

    def _place(self, body, T):
        if body < 0:
            return 0, se3_to_pin(T)
        jid, M = self.bridge.body_frames[body]
        return jid, M * se3_to_pin(T)

    def forward_dynamics(self, q, qd_s, tau_s):
        """Spanning-tree accelerations from pinocchio.constraintDynamics (geomech ordering)."""
        br = self.bridge
        prox = pin.ProximalSettings(1e-14, 1e-10, 200)
        a = pin.constraintDynamics(
            br.pin_model,
            br.pin_data,
            br.q_to_pin(q),
            br.v_to_pin(qd_s),
            br.v_to_pin(tau_s),
            self.cms,
            self.cds,
            prox,
        )
        return br.v_from_pin(a)

    def mass_and_bias(self, q, qd_s):
        """Pinocchio's H (full) and nonLinearEffects in geomech ordering."""
        br = self.bridge
        H = br.crba(q)
        nle = pin.nonLinearEffects(br.pin_model, br.pin_data, br.q_to_pin(q), br.v_to_pin(qd_s))
        return H, br.v_from_pin(nle)


def coupling_G(model):
    """G of a model whose constraints are couplings only, from the URDF+ definition.

    Independent joints get identity rows; the successor of each coupling gets
    ``ratio * (sum of the joint angles from the nearest common ancestor to the predecessor)
    - (sum to the successor, excluding its own joint)``, written with the spanning-tree parent
    array only (no geomech loop code).
    """
    st = model.spanning_tree
    n, m = st.nv, model.nv
    G = np.zeros((n, m))
    col = 0  # v = the independent joints' speeds in spanning-tree joint order
    for i, name in enumerate(st.joint_names):
        if name in model.independent_joints:
            k = st.joints[i].nv
            G[st.v_slices[i], col : col + k] = np.eye(k)
            col += k

    def chain(b):
        out = []
        while b >= 0:
            out.append(b)
            b = int(st.parent[b])
        return out

    for con in model.constraints:
        assert con.kind == "coupling"
        a, b = chain(con.pred), chain(con.succ)
        common = set(a) & set(b)
        pred_path = [x for x in a if x not in common]
        succ_path = [x for x in b if x not in common]
        r = [st.v_slices[x].start for x in range(st.n_bodies)]  # 1-DoF joints on the paths
        row = con.ratio * sum(G[r[x]] for x in pred_path) - sum(
            G[r[x]] for x in succ_path if x != con.succ
        )
        G[r[con.succ]] = row
    return G


def consistent_path(model, q0, v, a, t):
    """Closed configuration at time ``t`` on the path y(t) = y0 + v t + a t²/2 (1-DoF
    independent joints, fixed base), dependent coordinates by Newton from ``q0``."""
    q = np.array(q0, dtype=float)
    idx = model.independent_v_index  # 1-DoF joints: q index = v index
    q[idx] = q0[idx] + v * t + 0.5 * a * t * t
    return model.project(q)
