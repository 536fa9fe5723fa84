"""An independent reference for closed chains: Pinocchio frame Jacobians and a null space.

Nothing here calls geomech's closed-chain code (``loops``, ``clusters``, ``closures``,
``closed_dynamics`` or the cluster kernels). The spanning tree is built by geomech's tree
model and converted by :func:`geomech.interop.pinocchio.to_pinocchio` (tested on its own
against Pinocchio's parsers); everything else is Pinocchio and numpy/scipy:

- **constraints.** A loop joint of type J between the frames :math:`F_P` (on the
  predecessor) and :math:`F_S` (on the successor) is two Pinocchio ``OP_FRAME`` frames. Its
  residual is :math:`C^\\top\\log_6(M)`, :math:`M = {}^0T_{F_P}^{-1}\\,{}^0T_{F_S}`, with
  :math:`C` an orthonormal basis of the complement of the joint's motion subspace
  :math:`S` in :math:`F_S` coordinates (revolute :math:`[0; a]`, prismatic :math:`[a; 0]`,
  spherical :math:`[0; 1]`, fixed none; Pinocchio's linear-first order); it vanishes
  exactly when :math:`M` is a pose of the joint. Its velocity rows are
  :math:`C^\\top\\xi`, :math:`\\xi = J_{F_S} - {}^{F_S}X_{F_P}J_{F_P}` (frame Jacobians in
  ``LOCAL``), and :math:`\\dot K\\dot q = C^\\top\\dot\\xi` with
  :math:`\\dot\\xi = a_{F_S} - X a_{F_P} + v_{F_S}\\times X v_{F_P}` from Pinocchio's frame
  velocities and accelerations at zero joint acceleration. A coupling is the row
  :math:`r\\sum_{\\rm pred} - \\sum_{\\rm succ}` over the tree paths from the two bodies'
  nearest common ancestor (the URDF+ meaning); an implicit constraint is the linkage's own
  ``phi``, ``jacobian`` and ``jacobian_rate``.
- **explicit form.** :math:`N` an orthonormal basis of :math:`\\ker K` (SVD);
  :math:`G = N N_Y^{-1}` so that :math:`G_Y = 1` on the independent speeds Y chosen by the
  caller; :math:`g`: :math:`g_Y = 0`, :math:`K_D g_D = -\\dot K\\dot q`.
- **dynamics.** :math:`H` from ``pinocchio.crba``, the bias from ``pinocchio.rnea``; then
  :math:`\\bar H = G^\\top H G`, :math:`\\tau = G^\\top\\,\\mathrm{RNEA}(q, Gv, Ga + g)` and
  :math:`a = \\bar H^{-1}(\\tau - G^\\top\\mathrm{RNEA}(q, Gv, g))`; and, as a second route,
  the KKT system :math:`[H\\ K^\\top; K\\ 0]` with the acceleration constraint
  :math:`K\\ddot q + \\dot K\\dot q = 0` (no Baumgarte terms) and, for revolute loops, with
  ``pinocchio.constraintDynamics`` (two 3D point contacts on each loop axis).
- **closure.** Closed configurations by Levenberg–Marquardt (``scipy.optimize.least_squares``)
  on the residual over Pinocchio's tangent (``pinocchio.integrate``), from random starts;
  the mobility is :math:`n - \\max\\operatorname{rank}K` over several closed configurations.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
from linkages import spanning_tree_graph
from scipy.linalg import null_space
from scipy.optimize import least_squares

from geomech.interop.pinocchio import PinocchioBridge, se3_to_pin
from geomech.multibody import MultibodyModel

__all__ = ["LinkageReference", "rel_err", "RANK_RTOL"]

#: relative singular-value threshold for ranks and null spaces
RANK_RTOL = 1e-8
_LOCAL = pin.ReferenceFrame.LOCAL


def rel_err(actual, expected) -> float:
    """max |actual − expected| / max |expected| (absolute when the reference is zero)."""
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    if actual.shape != expected.shape:
        return np.inf
    if expected.size == 0:
        return 0.0
    scale = float(np.max(np.abs(expected)))
    return float(np.max(np.abs(actual - expected))) / (scale if scale > 0 else 1.0)


def _motion_subspace(joint) -> np.ndarray:
    """Motion subspace of a loop joint in its child frame, Pinocchio's order [v; ω]."""
    kind = joint.kind
    if kind == "revolute":
        return np.concatenate([np.zeros(3), joint.axis])[:, None]
    if kind == "prismatic":
        return np.concatenate([joint.axis, np.zeros(3)])[:, None]
    if kind == "spherical":
        return np.vstack([np.zeros((3, 3)), np.eye(3)])
    if kind == "fixed":
        return np.zeros((6, 0))
    raise NotImplementedError(f"loop joint of kind {kind!r}")


class _Loop:
    def __init__(self, name, joint, fid_p, fid_s):
        self.name, self.joint, self.fid_p, self.fid_s = name, joint, fid_p, fid_s
        S = _motion_subspace(joint)
        self.C = null_space(S.T) if S.shape[1] else np.eye(6)
        self.rows = self.C.shape[1]


class LinkageReference:
    """Pinocchio reference of a closed linkage (module docstring).

    Parameters
    ----------
    linkage : Linkage
        From :mod:`linkages` (its graph and its implicit constraints' callables).

    Attributes
    ----------
    tree : geomech MultibodyModel of the spanning tree (the ``q``/``v`` layout of the
        closed model)
    n : int
        Number of spanning-tree speeds.
    """

    def __init__(self, linkage):
        self.linkage = linkage
        graph = linkage.graph
        self.tree = MultibodyModel(spanning_tree_graph(graph))
        self.bridge = br = PinocchioBridge(self.tree)
        self.pm = pm = br.pin_model
        self.n = self.tree.nv
        self.P = br.P  # v_pin = P v
        self.loops = []
        for u, v, d in graph.edges(data=True):
            if d.get("kind") != "loop":
                continue
            name = d.get("name", f"loop_{u}_{v}")
            fids = []
            for node, key in ((u, "placement"), (v, "successor_placement")):
                T = d.get(key)
                T = np.eye(4) if T is None else np.asarray(T, float)
                if node == self.tree.root:
                    jid, M = 0, se3_to_pin(T)
                else:
                    jid, M0 = br.body_frames[self.tree.body_index(node)]
                    M = M0 * se3_to_pin(T)
                fids.append(pm.addFrame(pin.Frame(f"{name}_{key}", jid, M, pin.FrameType.OP_FRAME)))
            self.loops.append(_Loop(name, d["joint"], *fids))
        self.data = pm.createData()
        self.couplings = [self._coupling_row(u, v, d["ratio"]) for u, v, d in graph.edges(data=True)
                          if d.get("kind") == "coupling"]  # fmt: skip
        self.implicit = []
        for spec in linkage.implicit:
            qi = np.array([self.tree.q_slice(j).start for j in spec.joints])
            vi = np.array([self.tree.v_slices[self.tree.joint_names.index(j)].start
                           for j in spec.joints])  # fmt: skip
            self.implicit.append((spec, qi, vi))
        self.n_rows = (
            sum(lp.rows for lp in self.loops)
            + len(self.couplings)
            + sum(np.size(s.phi(np.zeros(len(s.joints)))) for s, _, _ in self.implicit)
        )

    # ---- couplings from the graph ---------------------------------------------------
    def _coupling_row(self, pred, succ, ratio):
        t = self.tree

        def chain(node):
            out = []
            while node != t.root:
                out.append(node)
                node = _tree_parent(t, node)
            return out

        a, b = chain(pred), chain(succ)
        common = set(a) & set(b)
        row_v = np.zeros(self.n)
        row_q = np.zeros(t.nq)
        for path, coef in ((a, float(ratio)), (b, -1.0)):
            for node in path:
                if node in common:
                    continue
                i = t.body_index(node)
                row_v[t.v_slices[i]] += coef
                row_q[t.q_slices[i]] += coef
        return row_q, row_v

    # ---- kinematics --------------------------------------------------------------------
    def _fk(self, q, qd=None):
        qp = self.bridge.q_to_pin(q)
        if qd is None:
            pin.framesForwardKinematics(self.pm, self.data, qp)
        else:
            pin.forwardKinematics(
                self.pm, self.data, qp, self.bridge.v_to_pin(qd), np.zeros(self.pm.nv)
            )
            pin.updateFramePlacements(self.pm, self.data)
        return qp

    def residual(self, q) -> np.ndarray:
        """The constraint residual at spanning-tree ``q`` (zero iff closed)."""
        q = np.asarray(q, float)
        self._fk(q)
        out = []
        for lp in self.loops:
            M = self.data.oMf[lp.fid_p].actInv(self.data.oMf[lp.fid_s])
            out.append(lp.C.T @ pin.log6(M).vector)
        for row_q, _ in self.couplings:
            out.append(np.array([row_q @ q]))
        for spec, qi, _ in self.implicit:
            out.append(np.atleast_1d(spec.phi(q[qi])))
        return np.concatenate(out) if out else np.zeros(0)

    def jacobian(self, q) -> np.ndarray:
        """K(q), rows × n (geomech speed layout): K q̇ = 0 on the closed manifold."""
        q = np.asarray(q, float)
        qp = self.bridge.q_to_pin(q)
        pin.computeJointJacobians(self.pm, self.data, qp)
        pin.updateFramePlacements(self.pm, self.data)
        rows = []
        for lp in self.loops:
            shape = (6, self.pm.nv)  # (Pinocchio returns a 6-vector when nv = 1)
            Jp = pin.getFrameJacobian(self.pm, self.data, lp.fid_p, _LOCAL).reshape(shape)
            Js = pin.getFrameJacobian(self.pm, self.data, lp.fid_s, _LOCAL).reshape(shape)
            X = self.data.oMf[lp.fid_s].actInv(self.data.oMf[lp.fid_p]).action  # ^S X_P
            rows.append(lp.C.T @ (Js - X @ Jp) @ self.P)
        for _, row_v in self.couplings:
            rows.append(row_v[None, :])
        for spec, qi, vi in self.implicit:
            K = np.zeros((np.size(spec.phi(q[qi])), self.n))
            K[:, vi] = spec.jacobian(q[qi])
            rows.append(K)
        return np.vstack(rows) if rows else np.zeros((0, self.n))

    def bias(self, q, qd) -> np.ndarray:
        """K̇ q̇ at (q, q̇) (spanning-tree speeds q̇ in geomech's layout)."""
        q, qd = np.asarray(q, float), np.asarray(qd, float)
        self._fk(q, qd)
        out = []
        for lp in self.loops:
            vp = pin.getFrameVelocity(self.pm, self.data, lp.fid_p, _LOCAL)
            vs = pin.getFrameVelocity(self.pm, self.data, lp.fid_s, _LOCAL)
            ap = pin.getFrameAcceleration(self.pm, self.data, lp.fid_p, _LOCAL)
            as_ = pin.getFrameAcceleration(self.pm, self.data, lp.fid_s, _LOCAL)
            SXP = self.data.oMf[lp.fid_s].actInv(self.data.oMf[lp.fid_p])
            xi_dot = as_.vector - SXP.act(ap).vector + vs.cross(SXP.act(vp)).vector
            out.append(lp.C.T @ xi_dot)
        for _ in self.couplings:
            out.append(np.zeros(1))
        for spec, qi, vi in self.implicit:
            out.append(spec.jacobian_rate(q[qi], qd[vi]) @ qd[vi])
        return np.concatenate(out) if out else np.zeros(0)

    # ---- explicit form -------------------------------------------------------------------
    def rank(self, q, rtol=RANK_RTOL) -> int:
        K = self.jacobian(q)
        if K.size == 0:
            return 0
        s = np.linalg.svd(K, compute_uv=False)
        return int(np.sum(s > rtol * max(s[0], 1e-300))) if s[0] > 0 else 0

    def generic(self, q, mobility, gap=1e-5) -> bool:
        """Whether K has rank n − mobility at q, with its last kept singular value above
        ``gap`` times the largest (a state well away from the singular set)."""
        r = self.n - mobility
        K = self.jacobian(q)
        if r == 0:
            return K.size == 0 or float(np.max(np.abs(K))) < 1e-12
        s = np.linalg.svd(K, compute_uv=False)
        if s.size < r or s[r - 1] < gap * s[0]:
            return False
        return s.size == r or s[r] < 1e-12 * s[0]

    def null_space(self, q, rtol=RANK_RTOL) -> np.ndarray:
        K = self.jacobian(q)
        if K.shape[0] == 0:
            return np.eye(self.n)
        return null_space(K, rcond=rtol)

    def G(self, q, indep, mobility=None) -> np.ndarray:
        """G with G[indep] = 1 spanning ker K (raises if the choice does not parametrise it)."""
        N = self.null_space(q)
        indep = np.asarray(indep, int)
        if mobility is not None and N.shape[1] != mobility:
            raise ValueError(f"kernel dimension {N.shape[1]} != mobility {mobility} (singular q)")
        if N.shape[1] != indep.size:
            raise ValueError(f"kernel dimension {N.shape[1]} != {indep.size} independent speeds")
        if indep.size == 0:
            return np.zeros((self.n, 0))
        NY = N[indep]
        return N @ np.linalg.inv(NY)

    def coordinate_condition(self, q, indep) -> float:
        N = self.null_space(q)
        indep = np.asarray(indep, int)
        if N.shape[1] != indep.size:
            return np.inf
        return float(np.linalg.cond(N[indep])) if indep.size else 1.0

    def g(self, q, v, G, indep) -> np.ndarray:
        """g = Ġ v: g_Y = 0 and K_D g_D = −K̇ q̇ at q̇ = G v."""
        indep = np.asarray(indep, int)
        D = np.setdiff1d(np.arange(self.n), indep)
        out = np.zeros(self.n)
        b = self.bias(q, G @ v)
        if b.size and D.size:
            K = self.jacobian(q)
            out[D] = np.linalg.lstsq(K[:, D], -b, rcond=None)[0]
        return out

    # ---- dynamics ------------------------------------------------------------------------
    def mass_matrix(self, q) -> np.ndarray:
        H = np.asarray(pin.crba(self.pm, self.data, self.bridge.q_to_pin(q))).reshape(
            self.n, self.n
        )
        H = np.triu(H) + np.triu(H, 1).T
        return self.P.T @ H @ self.P

    def tree_rnea(self, q, qd, qdd) -> np.ndarray:
        tau = pin.rnea(self.pm, self.data, self.bridge.q_to_pin(q), self.bridge.v_to_pin(qd),
                       self.bridge.v_to_pin(qdd))  # fmt: skip
        return self.P.T @ np.atleast_1d(tau)

    def crba(self, q, indep, mobility=None) -> np.ndarray:
        G = self.G(q, indep, mobility)
        return G.T @ self.mass_matrix(q) @ G

    def rnea(self, q, v, a, indep, mobility=None) -> np.ndarray:
        G = self.G(q, indep, mobility)
        g = self.g(q, v, G, indep)
        return G.T @ self.tree_rnea(q, G @ v, G @ a + g)

    def aba(self, q, v, tau, indep, mobility=None) -> np.ndarray:
        G = self.G(q, indep, mobility)
        g = self.g(q, v, G, indep)
        Hb = G.T @ self.mass_matrix(q) @ G
        return np.linalg.solve(Hb, tau - G.T @ self.tree_rnea(q, G @ v, g))

    def kkt_accelerations(self, q, qd, tau_s) -> np.ndarray:
        """Spanning-tree accelerations from [H Kᵀ; K 0] (K reduced to a row basis)."""
        K = self.jacobian(q)
        k = -self.bias(q, qd)
        U, s, _ = np.linalg.svd(K, full_matrices=False)
        r = int(np.sum(s > RANK_RTOL * s[0])) if s.size and s[0] > 0 else 0
        B = U[:, :r].T
        Kr, kr = B @ K, B @ k
        H = self.mass_matrix(q)
        nle = self.tree_rnea(q, qd, np.zeros(self.n))
        A = np.block([[H, Kr.T], [Kr, np.zeros((r, r))]])
        sol = np.linalg.solve(A, np.concatenate([tau_s - nle, kr]))
        return sol[: self.n]

    def pinocchio_constraint_dynamics(self, q, qd, tau_s):
        """Accelerations from ``pinocchio.constraintDynamics`` (revolute loops only; else None)."""
        if self.couplings or self.implicit or any(lp.joint.kind != "revolute" for lp in self.loops):
            return None
        cms = pin.StdVec_RigidConstraintModel()
        for lp in self.loops:
            fp, fs = self.pm.frames[lp.fid_p], self.pm.frames[lp.fid_s]
            for off in (0.0, 1.0):
                d = pin.SE3(np.eye(3), off * lp.joint.axis)
                cms.append(pin.RigidConstraintModel(pin.ContactType.CONTACT_3D, self.pm,
                                                    fp.parentJoint, fp.placement * d,
                                                    fs.parentJoint, fs.placement * d,
                                                    _LOCAL))  # fmt: skip
        cds = pin.StdVec_RigidConstraintData()
        for cm in cms:
            cds.append(cm.createData())
        data = self.pm.createData()
        pin.initConstraintDynamics(self.pm, data, cms, cds)
        prox = pin.ProximalSettings(1e-14, 1e-12, 500)
        a = pin.constraintDynamics(self.pm, data, self.bridge.q_to_pin(q), self.bridge.v_to_pin(qd),
                                   self.bridge.v_to_pin(tau_s), cms, cds, prox)  # fmt: skip
        return self.P.T @ a

    # ---- closure ------------------------------------------------------------------------------
    def close(self, q0, hold=(), tol=1e-13):
        """A closed configuration near ``q0`` by Levenberg–Marquardt on the residual.

        ``hold``: speed indices (geomech layout) kept fixed. Returns ``q`` or ``None``.
        """
        q0 = np.asarray(q0, float)
        qp0 = self.bridge.q_to_pin(q0)
        free = np.setdiff1d(np.arange(self.n), np.asarray(hold, int))
        if self.n_rows == 0:
            return q0

        def qof(x):
            dv = np.zeros(self.n)
            dv[free] = x
            return self.bridge.q_from_pin(pin.integrate(self.pm, qp0, self.bridge.v_to_pin(dv)))

        def fun(x):
            return self.residual(qof(x))

        x = np.zeros(free.size)
        for _ in range(3):
            sol = least_squares(fun, x, method="trf", xtol=1e-15, ftol=1e-15, gtol=1e-15,
                                max_nfev=200 * (free.size + 1))  # fmt: skip
            x = sol.x
            if np.max(np.abs(sol.fun), initial=0.0) < tol:
                return self._wrap(qof(x))
        return None

    def _wrap(self, q):
        """Revolute angles to (−π, π] (the same configuration)."""
        q = q.copy()
        for i, j in enumerate(self.tree.joints):
            if j.kind == "revolute":
                s = self.tree.q_slices[i]
                q[s] = np.angle(np.exp(1j * q[s]))
        return q

    def random_closed(self, rng, start, size=1, sigma=0.6, indep=None, mobility=None,
                      max_cond=1e3, attempts=50):  # fmt: skip
        """Random generic closed configurations near ``start`` (geomech layout).

        Perturbs ``start`` by σ·N(0, 1) along every speed, closes by LM, and keeps states where
        K has its generic rank (``n - mobility``) and, when ``indep`` is given, the
        independent speeds parametrise the manifold (cond(N_Y) < ``max_cond``).
        """
        out = []
        start_p = self.bridge.q_to_pin(np.asarray(start, float))
        for _ in range(attempts * size):
            dv = sigma * rng.standard_normal(self.n)
            q0 = self.bridge.q_from_pin(pin.integrate(self.pm, start_p, self.bridge.v_to_pin(dv)))
            q = self.close(q0)
            if q is None:
                continue
            if mobility is not None and not self.generic(q, mobility):
                continue
            if indep is not None and self.coordinate_condition(q, indep) > max_cond:
                continue
            out.append(q)
            if len(out) == size:
                return np.array(out)
        raise RuntimeError(f"{self.linkage.name}: found {len(out)} of {size} closed states")

    def mobility(self, rng, start, samples=4) -> int:
        """n − max rank K over ``samples`` closed configurations near ``start``."""
        ranks = []
        for q in self.random_closed(rng, start, size=samples):
            ranks.append(self.rank(q))
        return self.n - max(ranks)


def _tree_parent(tree, node):
    i = tree.body_index(node)
    p = int(tree.parent[i])
    return tree.root if p < 0 else tree.nodes[p]
