r"""The constraints of a closed model: loop joints, couplings and implicit constraints.

Each kind evaluates, on a spanning-tree configuration, its residual :math:`\phi`, its Jacobian
:math:`K = \partial\phi/\partial q_s` (columns of the spanning-tree speeds and of the loop
joints' own speeds) and the rate :math:`\dot K`:

- ``LoopJoint`` — a joint closing a loop between two bodies (URDF+ ``<loop>``);
- ``Coupling`` — :math:`r\sum q_{\rm pred} = \sum q_{\rm succ}` (URDF+ ``<coupling>``);
- :class:`ImplicitConstraint` — a user's :math:`\phi(q) = 0` with its Jacobian.

``split_closures`` separates a graph's tree edges from its closure edges. The closed model
(:mod:`geomech.multibody.closed.model`) holds a spanning tree and a list of these.

References
----------
Seed 004 §1.1–1.4; URDF+ (Chignoli, Slotine, Wensing, Kim, arXiv 2411.19753).
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from geomech._validation import as_array
from geomech.errors import (
    DimensionError,
    GeomechError,
    ModelError,
)
from geomech.lie import SE3
from geomech.multibody.closed.clusters import (
    nearest_common_ancestor,
    path_closure,
)
from geomech.multibody.model._frozen import Freezable, frozen_value
from geomech.multibody.model.joints import Helical, OneDoFJoint, Prismatic, Revolute
from geomech.multibody.model.tree import MultibodyModel
from geomech.spatial import crm, plucker_from_pose

__all__ = ["ImplicitConstraint"]

#: Constraint residual accepted for a closed configuration: absolute, in the constraint's own
#: units (lengths in model units, angles in rad reduced modulo 2π), never scaled by ``|q|``.
CLOSURE_TOL = 1e-9
#: Residual at which Newton's method on the constraints stops.
NEWTON_TOL = 1e-12
#: Relative singular-value threshold for the rank of constraint Jacobians.
RANK_RTOL = 1e-9

_KINDS = ("joint", "loop", "coupling")


# ----------------------------------------------------------------------------------------
# constraints
# ----------------------------------------------------------------------------------------
class _Constraint(Freezable):
    """Frozen with the model that owns it (issue 26 item 1): rebinding or deleting a public
    attribute raises :class:`~geomech.errors.ImmutableModelError`, arrays become read-only,
    lists and sets immutable.
    """

    def _freeze(self) -> None:
        d = self.__dict__
        for name, value in list(d.items()):
            if not name.startswith("_"):
                d[name] = frozenset(value) if isinstance(value, set) else frozen_value(value)
        super()._freeze()

    def __copy__(self):
        """An unfrozen shallow copy (a model binds its own copy of a user's constraint)."""
        new = object.__new__(type(self))
        new.__dict__.update((k, v) for k, v in self.__dict__.items() if k != "_frozen")
        return new


class ImplicitConstraint(_Constraint):
    r"""A user-defined holonomic constraint :math:`\phi(q_J) = 0` on some joints' coordinates.

    Parameters
    ----------
    joints : sequence of str
        Names of the spanning-tree joints the constraint depends on (their coordinates are
        concatenated in this order into ``q_J``, their speeds into ``u``).
    phi : callable
        ``phi(q_J) -> (c,)``, the residual (one call per configuration, unbatched).
    jacobian : callable, optional
        ``jacobian(q_J) -> (c, n_u)`` with :math:`\dot\phi = K u` (the joints' speeds ``u``;
        for 1-DoF joints this is :math:`\partial\phi/\partial q_J`). Default: central
        differences along each joint's flow.
    jacobian_rate : callable, optional
        ``jacobian_rate(q_J, u) -> (c, n_u)``, :math:`\dot K` along the motion with speeds
        ``u``. Default: central differences of ``jacobian`` along the flow.
    name : str, optional
        Name used in messages and reports (default ``"constraint"`` + joints).

    Attributes
    ----------
    joints : list of str
    name : str

    Raises
    ------
    ModelError
        If ``joints`` is empty or a callable argument is not callable.

    References
    ----------
    Seed 004 §1.2 (implicit form :math:`\phi(q) = 0`, :math:`K\dot q = 0`,
    :math:`K\ddot q = k`, the Tello differential).

    Examples
    --------
    A cam: a rotor turns by :math:`N\theta + 0.1\sin\theta` when the link turns by
    :math:`\theta`:

    >>> import numpy as np
    >>> from geomech.multibody.closed.model import ImplicitConstraint
    >>> cam = ImplicitConstraint(["link", "rotor"],
    ...                          lambda q: [6.0 * q[0] + 0.1 * np.sin(q[0]) - q[1]],
    ...                          jacobian=lambda q: [[6.0 + 0.1 * np.cos(q[0]), -1.0]])
    >>> cam.name
    'constraint(link, rotor)'
    """

    kind = "implicit"

    def __init__(self, joints, phi, jacobian=None, jacobian_rate=None, name=None):
        joints = [str(j) for j in joints] if not isinstance(joints, str) else [joints]
        if not joints:
            raise ModelError(
                "Expected `joints` of an ImplicitConstraint to name at least one joint."
            )
        for value, label in (
            (phi, "phi"),
            (jacobian, "jacobian"),
            (jacobian_rate, "jacobian_rate"),
        ):
            if value is not None and not callable(value):
                raise ModelError(
                    f"Expected `{label}` of an ImplicitConstraint to be callable, got "
                    f"{type(value).__name__}."
                )
        if phi is None:
            raise ModelError("Expected `phi` of an ImplicitConstraint to be callable, got None.")
        self.joints = joints
        self.name = str(name) if name is not None else f"constraint({', '.join(joints)})"
        self._phi, self._jac, self._jac_rate = phi, jacobian, jacobian_rate
        self._model_joints = None  # (Joint, q slice, u slice) of each listed joint, bound later

    def __repr__(self):
        return f"ImplicitConstraint({self.name!r}, joints={self.joints!r})"

    # -- binding to a model -------------------------------------------------------------
    def _bind(self, tree: MultibodyModel) -> None:
        idx = []
        for name in self.joints:
            if name not in tree.joint_names:
                raise ModelError(
                    f"{self.name}: expected joint names from {tree.joint_names!r}, got {name!r}."
                )
            idx.append(tree.joint_names.index(name))
        self.bodies = idx
        self.q_index = np.concatenate([np.arange(tree.nq)[tree.q_slices[i]] for i in idx])
        self.v_index = np.concatenate([np.arange(tree.nv)[tree.v_slices[i]] for i in idx])
        layout, iq, iu = [], 0, 0
        for i in idx:
            j = tree.joints[i]
            layout.append((j, slice(iq, iq + j.nq), slice(iu, iu + j.nv)))
            iq, iu = iq + j.nq, iu + j.nv
        self._model_joints = layout
        self.rows = None

    def _user(self, what, fn, *args) -> np.ndarray:
        """A user function's value as a finite real array; its own exceptions named."""
        try:
            out = fn(*args)
        except GeomechError:
            raise
        except Exception as exc:  # issue 26: the user's code failed, say which constraint
            text = " ".join(str(exc).split())  # one line
            raise ModelError(f"{self.name}: `{what}` raised {type(exc).__name__}: {text}") from exc
        return as_array(out, f"{what} of {self.name}")  # text, complex, NaN: named errors

    def _call_phi(self, qJ) -> np.ndarray:
        r = np.atleast_1d(self._user("phi", self._phi, qJ))
        if r.ndim != 1:
            raise DimensionError(
                f"{self.name}: expected `phi` to return shape (c,), got {r.shape}."
            )
        return r

    def _flow(self, qJ, u, eps):
        out = np.array(qJ, dtype=float)
        for joint, qs, us in self._model_joints:
            if joint.nq:
                out[qs] = joint.integrate(qJ[qs], eps * u[us])
        return out

    def _jacobian_of(self, qJ) -> np.ndarray:
        c, n = self.rows, self.v_index.size
        if self._jac is not None:
            K = self._user("jacobian", self._jac, qJ)
            if K.shape != (c, n):
                raise DimensionError(
                    f"{self.name}: expected `jacobian` to return shape {(c, n)}, got {K.shape}."
                )
            return K
        h = np.finfo(float).eps ** (1 / 3) * max(1.0, float(np.max(np.abs(qJ), initial=0.0)))
        K = np.empty((c, n))
        for k in range(n):
            e = np.zeros(n)
            e[k] = 1.0
            K[:, k] = (
                self._call_phi(self._flow(qJ, e, h)) - self._call_phi(self._flow(qJ, e, -h))
            ) / (2 * h)
        return K

    def _jacobian_rate_of(self, qJ, u) -> np.ndarray:
        c, n = self.rows, self.v_index.size
        if self._jac_rate is not None:
            Kd = self._user("jacobian_rate", self._jac_rate, qJ, u)
            if Kd.shape != (c, n):
                raise DimensionError(
                    f"{self.name}: expected `jacobian_rate` to return shape {(c, n)}, "
                    f"got {Kd.shape}."
                )
            return Kd
        speed = float(np.max(np.abs(u), initial=0.0))
        if speed == 0.0:
            return np.zeros((c, n))
        h = 1e-4 / speed
        return (
            self._jacobian_of(self._flow(qJ, u, h)) - self._jacobian_of(self._flow(qJ, u, -h))
        ) / (2 * h)

    # -- the common constraint interface ---------------------------------------------
    def _residual(self, q, T, q_aux):
        return self._call_phi(q[self.q_index])

    def _jacobian(self, q, T, J, q_aux, n_s, newton=False):
        K = np.zeros((self.rows, n_s))
        K[:, self.v_index] = self._jacobian_of(q[self.q_index])
        return K, np.zeros((self.rows, 0))

    def _jacobian_rate(self, q, T, J, Jdot, w, q_aux, v_aux, n_s):
        Kd = np.zeros((self.rows, n_s))
        Kd[:, self.v_index] = self._jacobian_rate_of(q[self.q_index], w[self.v_index])
        return Kd, np.zeros((self.rows, 0))


class Coupling(_Constraint):
    r"""A coupling :math:`r\sum_{\rm pred\ path} q = \sum_{\rm succ\ path} q` (URDF+
    ``<coupling>``).
    """

    kind = "coupling"
    rows = 1
    nq_aux = nv_aux = 0

    def __init__(self, name, pred, succ, ratio, tree: MultibodyModel, pred_node, succ_node):
        self.name, self.pred, self.succ, self.ratio = name, pred, succ, float(ratio)
        self.predecessor, self.successor = pred_node, succ_node
        nca = -1 if min(pred, succ) < 0 else nearest_common_ancestor(tree.parent, [pred, succ])
        self.nca = nca
        self.pred_path = _path(tree.parent, nca, pred)
        self.succ_path = _path(tree.parent, nca, succ)
        self.bodies = set(self.pred_path) | set(self.succ_path)
        if not self.succ_path and not self.pred_path:
            raise ModelError(f"coupling {name!r}: the predecessor and successor are the same body.")
        row = np.zeros(tree.nv)
        for path, coef in ((self.pred_path, self.ratio), (self.succ_path, -1.0)):
            for b in path:
                joint = tree.joints[b]
                if not isinstance(joint, OneDoFJoint):
                    raise ModelError(
                        f"coupling {name!r}: every joint between the bodies' nearest common "
                        f"ancestor and {pred_node!r}, {succ_node!r} must have one degree of "
                        f"freedom, got a {joint.kind} joint {tree.joint_names[b]!r}."
                    )
                row[tree.v_slices[b]] += coef
        self.row = row
        self.q_index = np.array([tree.q_slices[b].start for b in sorted(self.bodies)], dtype=int)
        self.v_index = np.array([tree.v_slices[b].start for b in sorted(self.bodies)], dtype=int)
        self._q_row = row[self.v_index]  # 1-DoF joints: coordinates and speeds align
        # a coupling of angles (revolute joints only) closes modulo 2π: a rotor turned by a
        # full turn more is the same configuration
        self.angular = all(isinstance(tree.joints[b], Revolute) for b in self.bodies)

    def __repr__(self):
        return (
            f"<coupling {self.name!r}: {self.predecessor!r} -> {self.successor!r}, "
            f"ratio {self.ratio}>"
        )

    def _residual(self, q, T, q_aux):
        r = self._q_row @ q[self.q_index]
        return np.array([wrap_angle(r) if self.angular else r])

    def _jacobian(self, q, T, J, q_aux, n_s, newton=False):
        return self.row[None, :n_s].copy(), np.zeros((1, 0))

    def _jacobian_rate(self, q, T, J, Jdot, w, q_aux, v_aux, n_s):
        return np.zeros((1, n_s)), np.zeros((1, 0))


class LoopJoint(_Constraint):
    r"""A loop joint: :math:`{}^0T_{F_P}\,T_J(q_L) = {}^0T_{F_S}` (URDF+ ``<loop>``)."""

    kind = "loop"
    rows = 6

    def __init__(self, name, pred, succ, joint, Tp, Ts, tree: MultibodyModel, pred_node, succ_node):
        self.name, self.pred, self.succ, self.joint = name, pred, succ, joint
        self.predecessor, self.successor = pred_node, succ_node
        self.Tp, self.Ts = Tp, Ts
        self.Xp, self.Xs = _plucker_of(Tp), _plucker_of(Ts)  # ^{F_P}X_p, ^{F_S}X_s (checked)
        self.nq_aux, self.nv_aux = joint.nq, joint.nv
        bodies = [b for b in (pred, succ) if b >= 0]
        # the bodies whose joints move the loop: the tree paths from the nearest common
        # ancestor (the base when a loop closes to it) down to both ends
        if min(pred, succ) < 0:
            self.bodies = _root_paths(tree.parent, bodies)
        else:
            self.bodies = path_closure(tree.parent, bodies)
        if not self.bodies:
            raise ModelError(
                f"loop joint {name!r}: the predecessor and successor are the same body."
            )
        self.aux_q = self.aux_v = slice(0, 0)  # set by the model

    def __repr__(self):
        return (
            f"<loop joint {self.name!r} ({self.joint.kind}): "
            f"{self.predecessor!r} -> {self.successor!r}>"
        )

    def frames(self, T):
        """World poses of the loop frames F_P and F_S."""
        T_p = np.eye(4) if self.pred < 0 else T[self.pred]
        T_s = np.eye(4) if self.succ < 0 else T[self.succ]
        return T_p @ self.Tp, T_s @ self.Ts

    def error(self, T, q_L):
        r"""E = T_J(q_L)^-1 T_FP^-1 T_FS and r = log(E).

        Near the identity (:math:`\max|E - \mathbf 1| \le 10^{-8}`, a closed loop), ``r`` is
        :math:`[\mathrm{vee}(\tfrac12(R_E - R_E^\top));\ p_E]`, equal to :math:`\log E` up to
        :math:`O(|E - \mathbf 1|^2)`, below rounding there (no general logarithm per loop).
        """
        T_FP, T_FS = self.frames(T)
        E = _inv_mul(self.joint.pose(q_L), _inv_mul(T_FP, T_FS))
        if np.max(np.abs(E - np.eye(4))) <= 1e-8:
            R = E[:3, :3]
            w = 0.5 * np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
            return E, np.concatenate([w, E[:3, 3]])
        return E, SE3.log(E)

    def _closed_form(self, T):
        r"""The loop joint's coordinate read off :math:`M = {}^{F_P}T_{F_S}` for revolute,
        helical and prismatic loop joints (the angle about the axis closest to :math:`R_M`,
        :math:`\sin\theta = \mathbf a\cdot\mathrm{vee}(\tfrac12(R_M - R_M^\top))`,
        :math:`\cos\theta = \tfrac12(\mathrm{tr}R_M - \mathbf a^\top R_M\mathbf a)`; the
        slide :math:`\mathbf a\cdot p_M`), else ``None``.
        """
        joint = self.joint
        if not isinstance(joint, (Revolute, Prismatic, Helical)):
            return None
        T_FP, T_FS = self.frames(T)
        M = _inv_mul(T_FP, T_FS)
        a, R = np.asarray(joint.axis, dtype=float), M[:3, :3]
        if isinstance(joint, Prismatic):
            return np.array([a @ M[:3, 3]])
        s = 0.5 * (a @ np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]]))
        return np.array([np.arctan2(s, 0.5 * (np.trace(R) - a @ R @ a))])

    def fit(self, T, q_L=None, max_iter=30, exact=True):
        r"""Loop-joint coordinates closest to the current pair of frames: in closed form for
        revolute, helical and prismatic loop joints when the frames close to rounding (or
        ``exact=False``), else by Gauss–Newton on :math:`\log(T_J(q_L)^{-1}M)`.
        """
        q_L = self.joint.neutral() if q_L is None else np.array(q_L, dtype=float)
        if self.joint.nv == 0:
            return q_L
        guess = self._closed_form(T)
        if guess is not None:
            if not exact:
                return guess
            T_FP, T_FS = self.frames(T)
            E = _inv_mul(self.joint.pose(guess), _inv_mul(T_FP, T_FS))
            # nearly closed: the closed form and the least-squares fit of log E differ by at
            # most O(|E - 1|), far below the closure tolerance here (no Gauss–Newton)
            if np.max(np.abs(E - np.eye(4))) <= 1e-11:
                return guess
            q_L = guess
        for _ in range(max_iter):
            E, r = self.error(T, q_L)
            A = -plucker_from_pose(E) @ self.joint.motion_subspace(q_L)
            if np.max(np.abs(r)) > 1e-6:  # far from the fit: the exact Jacobian of log
                A = SE3.right_jacobian_inverse(r) @ A
            dq = -np.linalg.lstsq(A, r, rcond=None)[0]
            q_L = self.joint.integrate(q_L, dq)
            if np.max(np.abs(dq)) < 1e-13:
                break
        return q_L

    def _residual(self, q, T, q_aux):
        return self.error(T, q_aux[self.aux_q])[1]

    def _relative(self, T, J):
        T_FP, T_FS = self.frames(T)
        X = _plucker_of(_inv_mul(T_FP, T_FS))  # ^{F_S}X_{F_P}
        n_s = J.shape[-1]
        J_FP = np.zeros((6, n_s)) if self.pred < 0 else self.Xp @ J[self.pred]
        J_FS = np.zeros((6, n_s)) if self.succ < 0 else self.Xs @ J[self.succ]
        return X, J_FP, J_FS

    def _jacobian(self, q, T, J, q_aux, n_s, newton=False):
        X, J_FP, J_FS = self._relative(T, J)
        J_xi = J_FS - X @ J_FP  # relative twist ξ = v_FS − ^{FS}X_{FP} v_FP
        q_L = q_aux[self.aux_q]
        Phi = self.joint.motion_subspace(q_L)
        if not newton:
            return J_xi, -Phi
        E, r = self.error(T, q_L)
        Jinv = SE3.right_jacobian_inverse(r)  # d log E = J_r(log E)^-1 (body twist of E)
        return Jinv @ J_xi, -Jinv @ plucker_from_pose(E) @ Phi

    def _jacobian_rate(self, q, T, J, Jdot, w, q_aux, v_aux, n_s):
        X, J_FP, J_FS = self._relative(T, J)
        Jd_FP = np.zeros((6, n_s)) if self.pred < 0 else self.Xp @ Jdot[self.pred]
        Jd_FS = np.zeros((6, n_s)) if self.succ < 0 else self.Xs @ Jdot[self.succ]
        # d/dt ^{FS}X_{FP} = X (v_FP ×) − (v_FS ×) X (seed 000 §VI-B)
        X_dot = X @ crm(J_FP @ w) - crm(J_FS @ w) @ X
        Jd_xi = Jd_FS - X_dot @ J_FP - X @ Jd_FP
        q_L, v_L = q_aux[self.aux_q], v_aux[self.aux_v]
        return Jd_xi, -self.joint.motion_subspace_rate(q_L, v_L)


def _inv_mul(A, B) -> np.ndarray:
    r""":math:`A^{-1}B` of two rigid poses (4 × 4), by :math:`A^{-1} = [R^\top, -R^\top p]`."""
    R = A[:3, :3].T
    out = np.empty((4, 4))
    out[:3, :3] = R @ B[:3, :3]
    out[:3, 3] = R @ (B[:3, 3] - A[:3, 3])
    out[3] = (0.0, 0.0, 0.0, 1.0)
    return out


def _plucker_of(T) -> np.ndarray:
    r""":math:`{}^B\mathbf X_A = [R^\top, 0; -R^\top[p]_\times, R^\top]` of a pose ``T`` of
    B in A (:func:`~geomech.spatial.plucker_from_pose` without its validation: ``T`` is a
    product of the model's own poses).
    """
    E, p = T[:3, :3].T, T[:3, 3]
    px = np.array([[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]])
    X = np.zeros((6, 6))
    X[:3, :3] = X[3:, 3:] = E
    X[3:, :3] = -E @ px
    return X


def _path(parent, top: int, b: int) -> list[int]:
    """Bodies from ``top`` (excluded) down to ``b`` (included), in increasing order."""
    out = []
    while b != top and b >= 0:
        out.append(b)
        b = int(parent[b])
    if b != top:
        raise ModelError("not an ancestor")  # pragma: no cover
    return out[::-1]


def _root_paths(parent, bodies) -> set[int]:
    out: set[int] = set()
    for b in bodies:
        out |= set(_path(parent, -1, b))
    return out


# ----------------------------------------------------------------------------------------
# the model
# ----------------------------------------------------------------------------------------
def split_closures(graph: nx.DiGraph):
    """(tree graph, loop edges, coupling edges) of a graph with closures."""
    tree = nx.DiGraph()
    tree.graph.update(
        {
            k: v
            for k, v in graph.graph.items()
            if k not in ("constraints", "reference_configuration")
        }
    )
    tree.add_nodes_from(graph.nodes(data=True))
    loops, couplings = [], []
    for u, v, d in graph.edges(data=True):
        kind = d.get("kind", "joint")
        if kind not in _KINDS:
            raise ModelError(
                f"Expected the 'kind' of edge ({u!r}, {v!r}) to be one of {_KINDS}, got {kind!r}."
            )
        if kind == "joint":
            tree.add_edge(u, v, **d)
        elif kind == "loop":
            loops.append((u, v, d))
        else:
            couplings.append((u, v, d))
    return tree, loops, couplings


def wrap_angle(x):
    """``x`` reduced to [−π, π) (an angle residual measured modulo 2π)."""
    return (np.asarray(x) + np.pi) % (2.0 * np.pi) - np.pi


def numerical_rank(M: np.ndarray) -> int:
    """Numerical rank of ``M`` (singular values above RANK_RTOL times the largest)."""
    if M.size == 0:
        return 0
    s = np.linalg.svd(M, compute_uv=False)
    return int(np.sum(s > RANK_RTOL * max(1.0, s[0])))
