r"""The compiled cluster tree: a model's clusters as flat arrays, and its per-state G and g.

Seed 004's algorithms run on the cluster connectivity tree (C-CT) and need, besides the
spanning tree's arrays (:mod:`~geomech.multibody._kernels.compiled`):

``cbody`` (N, 4) int64
    Per body ``i``: its cluster (column ``CLUSTER``), its slot in the cluster (``SLOT``:
    position in regular order), its output body :math:`\Lambda(i)` (``OUTPUT``: nearest
    ancestor outside the cluster, −1 for the base) and, in row ``t``, the ``t``-th body in
    cluster order (``STACK``: clusters in regular order, each cluster's bodies in regular
    order, the stack order of seed 004 eq. 11).
``cclus`` (N_C + 1, 5) int64
    Per cluster ``k``: parent cluster :math:`\lambda(k)` (``PARENT_CLUSTER``, −1 for the
    base), offset of its bodies in cluster order (``FIRST_BODY``), offset of its independent
    speeds in ``yidx`` (``FIRST_Y``) and offset of its articulated inertia (a dense
    :math:`6n_b\times 6n_b` block) in a flat work array (``IA_OFFSET``) and its shape code
    (``SHAPE``: flags ``ONE_OUTPUT``, ``BLOCK_DIAGONAL``, ``ONE_DOF`` of
    :mod:`~geomech.multibody._kernels.cluster.tables`); row :math:`N_C` holds the totals.
``yidx`` (nv,) int64
    The positions in ``v`` of each cluster's independent speeds :math:`\dot y_k`.

The column names are those of :mod:`~geomech.multibody._kernels.cluster.tables`, which also
lists the tables of the constraint kernel (``kc``, ``lpi``, ``lpf``, ``cpi``, ``cpe``).

The constraint data are per state: ``Gc`` (n_s, m_max) holds, in row ``j`` (a spanning-tree
speed of a body of cluster ``k``), the entries of :math:`G_k` over the cluster's independent
speeds (column ``c`` for :math:`\dot y_k[c]`), ``gs`` (n_s) holds :math:`g = \dot G v` and
``Gdc`` (n_s, m_max) the rate :math:`\dot G_k` in the layout of ``Gc``. Each cluster has a
mode:

- *constant* (no constraint, or couplings only: seed 004's "static" constraints, linear
  with constant :math:`G_k` and :math:`g_k = 0`): its rows are evaluated once per model;
- *kernel* (loop joints of the built-in types, with or without couplings, on built-in tree
  joints): :math:`G_k`, :math:`g_k` and :math:`\dot G_k` are computed per state, cluster by
  cluster, by :func:`~geomech.multibody._kernels.cluster.constraints.cluster_constraints`
  (no Python per state), which also returns the constraint residual that validates the
  state;
- *two-stage* (user-defined :class:`~geomech.multibody.closed.model.ImplicitConstraint` callables,
  user-defined joints, loop joints without a closed-form residual): the model's Python
  constraint objects fill the cluster's rows per state (the two-stage path already used for
  user-defined joints), and the kernels consume them.

A tree is the degenerate case: one body per cluster, :math:`G_k = \mathbf 1`, :math:`g = 0`
(seed 004 §5 identity 11).

References
----------
Seed 004 §1.4–1.5 (clusters, output bodies, stacks), §2.0 (``updateConstraints`` per
cluster), §6 traps 4 and 8.
"""

from __future__ import annotations

import numpy as np

from geomech.errors import GeomechError
from geomech.multibody._kernels import joints as codes
from geomech.multibody._kernels.cluster import constraints as CC
from geomech.multibody._kernels.cluster.tables import (
    BLOCK_DIAGONAL,
    CBODY_COLUMNS,
    CCLUS_COLUMNS,
    CLUSTER,
    CP_COLUMNS,
    CP_ROW,
    CPE_COLUMNS,
    FIRST_Y,
    FP_E,
    FP_R,
    FS_E,
    FS_R,
    KC_COLUMNS,
    KERNEL,
    LOOP_AXIS,
    LOOP_FLOAT,
    LOOP_INT,
    LOOP_PHI,
    LOOP_PITCH,
    ONE_DOF,
    ONE_OUTPUT,
    OUTPUT,
    SHAPE,
    SLOT,
    STACK,
)
from geomech.multibody._kernels.compiled import joint_code

__all__ = ["ClusterLayout", "cluster_layout"]


class ClusterLayout:
    """Flat arrays of a model's cluster tree (module docstring).

    Parameters
    ----------
    model : MultibodyModel or ClosedMultibodyModel
        A tree gives one cluster per body.

    Examples
    --------
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody._kernels.cluster.compiled import cluster_layout
    >>> lay = cluster_layout(load_example("four_bar"))
    >>> lay.cclus.tolist()  # parent cluster, body offset, y offset, I^A offset, shape
    [[-1, 0, 0, 0, 7], [-1, 3, 1, 324, 0]]
    """

    def __init__(self, model):
        closed = bool(getattr(model, "is_closed", False))
        st = model.spanning_tree if closed else model
        self.tree = st
        N, n_s = st.n_bodies, st.nv
        if closed:
            groups = [(list(c.bodies), c.parent, list(c.output), np.asarray(c.y_index, int),
                       bool(c.constraints), all(con.kind == "coupling" for con in c.constraints))
                      for c in model.clusters]  # fmt: skip
        else:
            ar = np.arange(st.nv)
            cluster_of = np.arange(N)
            groups = [([i], int(st.parent[i]), [int(st.parent[i])], ar[st.v_slices[i]], False, True)
                      for i in range(N)]  # fmt: skip
            del cluster_of
        NC = len(groups)
        cbody = np.zeros((N, CBODY_COLUMNS), dtype=np.int64)
        cclus = np.zeros((NC + 1, CCLUS_COLUMNS), dtype=np.int64)
        yidx, t, ny, nia = [], 0, 0, 0
        self.mmax = self.lmax = 1
        static = []
        for k, (bodies, parent, out, y, constrained, coupling_only) in enumerate(groups):
            # PARENT_CLUSTER, FIRST_BODY, FIRST_Y, IA_OFFSET (SHAPE below)
            cclus[k, :SHAPE] = (parent, t, ny, nia)
            for s, (b, o) in enumerate(zip(bodies, out, strict=True)):
                cbody[b, CLUSTER], cbody[b, SLOT], cbody[b, OUTPUT] = k, s, o
                cbody[t, STACK] = b
                t += 1
            yidx.extend(int(j) for j in y)
            ny += len(y)
            nia += 36 * len(bodies) ** 2
            self.mmax = max(self.mmax, len(y))
            self.lmax = max(self.lmax, len(bodies))
            static.append(not constrained or coupling_only)
        cclus[NC, :SHAPE] = (-1, t, ny, nia)
        for k, (bodies, _parent, out, y, *_rest) in enumerate(groups):  # shape codes
            flags = ONE_DOF if len(y) == 1 else 0
            if len(set(out)) == 1:
                flags |= ONE_OUTPUT
            hangs = [set(g[2]) & set(bodies) for g in groups if g[1] == k]
            if all(len(h) <= 1 for h in hangs):
                flags |= BLOCK_DIAGONAL
            cclus[k, SHAPE] = flags
        self.cbody, self.cclus = cbody, cclus
        self.yidx = np.asarray(yidx, dtype=np.int64)
        self.n_clusters, self.n_s, self.nv = NC, n_s, ny
        # gather indices: Gc[j, c] = G[j, yidx[y0 + c]] for the speeds j of cluster k's joints
        rows = np.zeros((n_s, self.mmax), dtype=np.int64)
        cols = np.zeros((n_s, self.mmax), dtype=np.int64)
        mask = np.zeros((n_s, self.mmax))
        for k, (bodies, *_rest) in enumerate(groups):
            y = self.yidx[cclus[k, FIRST_Y] : cclus[k + 1, FIRST_Y]]
            for b in bodies:
                for j in range(st.v_slices[b].start, st.v_slices[b].stop):
                    rows[j, : y.size], cols[j, : y.size], mask[j, : y.size] = j, y, 1.0
        self._gather = (rows, cols, mask)
        self._python_clusters = False
        self.all_static = all(static)
        self._model = model
        self._g_zero = np.zeros((1, n_s))
        self._python_rows = np.zeros(0, dtype=np.int64)
        if not closed:
            Gc = np.zeros((1, n_s, self.mmax))
            for i in range(N):
                for c, j in enumerate(range(st.v_slices[i].start, st.v_slices[i].stop)):
                    Gc[0, j, c] = 1.0
            self._G_const = Gc
            return
        # the couplings' residuals r = C q (wrapped for angles) in one product per batch
        cps = [con for con in model.constraints if con.kind == "coupling"]
        self._cq = np.zeros((st.nq, len(cps)))
        for c, con in enumerate(cps):
            self._cq[con.q_index, c] += con._q_row
        self._angular = np.array([bool(con.angular) for con in cps], dtype=bool)
        G, _, _ = model._matrices_single(model.neutral(), np.zeros(model.nv), False)
        G0 = self.gather(G[None])
        self._G_const = G0 if self.all_static else None
        if not self.all_static:
            self._build_kernel_tables(model, G0[0])

    # ---- constraint tables of the kernel clusters ----------------------------------------
    _RESIDUAL_CODES = (codes.FIXED, codes.REVOLUTE, codes.PRISMATIC, codes.HELICAL, codes.SPHERICAL)

    def _kernel_mode(self, model, c) -> bool:
        """Whether cluster ``c``'s G, g and Ġ can be computed by the kernel."""
        st = model.spanning_tree
        if any(con.kind not in ("loop", "coupling") for con in c.constraints):
            return False
        if any(joint_code(st.joints[b]) == codes.USER for b in c.bodies):
            return False
        members = set(c.bodies)
        out = dict(zip(c.bodies, c.output, strict=True))
        for lp in (con for con in c.constraints if con.kind == "loop"):
            if joint_code(lp.joint) not in self._RESIDUAL_CODES:
                return False
            # both loop frames must hang from the same output body (module docstring of
            # cluster_constraints): an end outside the cluster is that output body itself
            anchors = {out[b] if b in members else b for b in (lp.pred, lp.succ)}
            if len(anchors) != 1:
                return False
        return True

    def _build_kernel_tables(self, model, G0):
        NC, n_s = self.n_clusters, self.n_s
        kc = np.zeros((NC, KC_COLUMNS), dtype=np.int64)
        kcol, span, lpi, lpf = [], [], [], []
        loc = np.zeros(n_s, dtype=np.int64)
        cpi, cpe, cpc = [], [], []
        python_rows = []
        sizes = np.zeros(5, dtype=np.int64)  # the largest (n_c, n_aux, n_rows, n_D, m)
        for k, c in enumerate(model.clusters):
            cols = np.asarray(c.v_index, dtype=np.int64)
            loc[cols] = np.arange(cols.size)
            c0 = len(cpi)  # the cluster's couplings: cpi[c0:len(cpi)]
            for con in c.constraints:
                if con.kind == "coupling":  # residual of every coupling; K rows if kernel
                    e0 = len(cpe)
                    for j, iq, coef in zip(con.v_index, con.q_index, con._q_row, strict=True):
                        cpe.append((int(j), int(iq)))  # CPE_SPEED, CPE_Q
                        cpc.append(float(coef))
                    cpi.append([k, -1, e0, len(cpe)])  # CP_CLUSTER, CP_ROW, CP_FIRST, CP_END
            if not c.constraints or all(con.kind == "coupling" for con in c.constraints):
                continue
            if not self._kernel_mode(model, c):
                python_rows.extend(int(j) for j in cols)
                continue
            nc = cols.size
            Y = [int(t) for t, j in enumerate(cols) if self._is_independent(model, int(j))]
            D = [t for t in range(nc) if t not in Y]
            row, na, l0 = 0, 0, len(lpi)
            for con in c.constraints:
                if con.kind == "loop":
                    nva = con.nv_aux
                    D.extend(nc + na + d for d in range(nva))
                    # LOOP_CLUSTER, LOOP_PRED, LOOP_SUCC, LOOP_ROW, LOOP_AUX, LOOP_NV, LOOP_JTYPE
                    lpi.append([k, con.pred, con.succ, row, na, nva, joint_code(con.joint)])
                    f = np.zeros(LOOP_FLOAT)
                    f[FP_E : FP_E + 9], f[FP_R : FP_R + 3] = con.Tp[:3, :3].T.ravel(), con.Tp[:3, 3]
                    f[FS_E : FS_E + 9], f[FS_R : FS_R + 3] = con.Ts[:3, :3].T.ravel(), con.Ts[:3, 3]
                    Phi = np.zeros((6, 6))
                    Phi[:, :nva] = con.joint._Phi()
                    f[LOOP_PHI : LOOP_PHI + 36] = Phi.ravel()
                    f[LOOP_AXIS : LOOP_AXIS + 3] = getattr(con.joint, "axis", np.zeros(3))
                    f[LOOP_PITCH] = getattr(con.joint, "pitch", 0.0)
                    lpf.append(f)
                    row += 6
                    na += nva
                else:
                    mine = [x for x in cpi[c0:] if x[CP_ROW] < 0]
                    mine[0][CP_ROW] = row
                    row += 1
            m = len(Y)
            if row < len(D):  # fewer rows than unknowns: leave it to the Python objects
                python_rows.extend(int(j) for j in cols)
                del lpi[l0:], lpf[l0:]
                continue
            # MODE, N_SPAN, N_AUX, N_ROWS, N_DEP, KCOL_OFFSET, FIRST_LOOP, END_LOOP, SPAN_OFFSET,
            # FIRST_COUPLING, END_COUPLING
            kc[k] = (KERNEL, nc, na, row, len(D), len(kcol), l0, len(lpi), len(span), c0,
                     len(cpi))  # fmt: skip
            kcol.extend(Y + D)
            span.extend(int(j) for j in cols)
            sizes = np.maximum(sizes, [nc, na, row, len(D), m])
        self._python_rows = np.asarray(python_rows, dtype=np.int64)
        self._python_clusters = bool(python_rows)
        i64 = np.int64
        self._tables = (
            kc,
            np.asarray(kcol, dtype=i64),
            np.asarray(span, dtype=i64),
            loc,
            np.asarray(lpi, dtype=i64).reshape(-1, LOOP_INT),
            np.asarray(lpf, dtype=float).reshape(-1, LOOP_FLOAT),
            np.asarray(cpi, dtype=i64).reshape(-1, CP_COLUMNS),
            np.asarray(cpe, dtype=i64).reshape(-1, CPE_COLUMNS),
            np.asarray(cpc, dtype=float),
            np.ascontiguousarray(G0),
            sizes,
        )

    def check_static(self, Q):
        r"""Validate the states ``Q`` (B, nq) of a model whose constraints are all couplings.

        The residuals :math:`r = C q` of all couplings in one product (angles wrapped to
        :math:`[-\pi, \pi)`, as :meth:`ClosedMultibodyModel.check_configuration` measures
        them); a batch within half the tolerance is accepted, anything else goes to the
        model's check (which raises :class:`NotOnManifoldError` naming the state).
        """
        tol = 0.5 * self._model.closure_tol
        if not CC.coupling_residuals_batch(Q, self._cq, self._angular, tol):
            self._model.check_configuration(Q)

    @staticmethod
    def _is_independent(model, j: int) -> bool:
        return bool(np.any(model.independent_v_index == j))

    @property
    def certifies_closure(self) -> bool:
        """Whether the kernel checks every constraint of the model (no two-stage cluster)."""
        return self._G_const is None and not self._python_clusters

    def gather(self, G):
        """``Gc`` (B, n_s, m_max) from dense ``G`` (B, n_s, nv)."""
        rows, cols, mask = self._gather
        if G.shape[-1] == 0:  # a model without degrees of freedom: G has no columns
            return np.zeros((G.shape[0], self.n_s, self.mmax))
        return np.ascontiguousarray(G[:, rows, cols] * mask)

    def scatter(self, Gc):
        """Dense ``G`` (B, n_s, nv) from ``Gc`` (B, n_s, m_max) (the inverse of :meth:`gather`)."""
        rows, cols, mask = self._gather
        sel = mask > 0
        G = np.zeros((Gc.shape[0], self.n_s, self.nv))
        G[:, rows[sel], cols[sel]] = Gc[:, sel]
        return G

    def spanning_speeds(self, Gc, V):
        r"""The spanning-tree speeds :math:`\dot q_s = G v` (B, n_s) from ``Gc`` (B or 1, n_s,
        m_max) and the independent speeds ``V`` (B or 1, nv), without forming dense ``G``.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.io.examples import load_example
        >>> from geomech.multibody._kernels.cluster.compiled import cluster_layout
        >>> model = load_example("four_bar")
        >>> lay, q, v = cluster_layout(model), model.random_configuration(rng=0), np.ones((1, 1))
        >>> Gc, _ = lay.constraint_arrays(q[None], v)
        >>> G, _ = model.constraint_matrices(q, v[0])
        >>> bool(np.allclose(lay.spanning_speeds(Gc, v)[0], G @ v[0]))
        True
        """
        _, cols, mask = self._gather
        return np.ascontiguousarray(np.einsum("bjc,bjc->bj", Gc * mask, V[:, cols]))

    def _kernel(self, Q, V):
        """Run the constraint kernel: ``(Gc, gs, Gdc, residual, status)``."""
        st = self.tree
        cm = st.compiled
        S, _, T_user = cm.joint_arrays(Q)
        B = max(Q.shape[0], V.shape[0])
        Gc = np.empty((B, self.n_s, self.mmax))
        gs, Gdc = np.empty((B, self.n_s)), np.empty((B, self.n_s, self.mmax))
        res, status = np.empty(B), np.empty(B, dtype=np.int64)
        kc, kcol, span, loc, lpi, lpf, cpi, cpe, cpc, G0, sizes = self._tables
        CC.cluster_constraints_batch(
            cm.topo,
            cm.placement,
            cm.jparam,
            T_user,
            S,
            self.cbody,
            self.cclus,
            self.yidx,
            kc,
            kcol,
            span,
            loc,
            lpi,
            lpf,
            cpi,
            cpe,
            cpc,
            G0,
            sizes,
            np.require(Q, np.float64, ("C", "W")),  # one signature: a read-only Q
            np.require(V, np.float64, ("C", "W")),  # or V would compile a second one
            Gc,
            gs,
            Gdc,
            res,
            status,
        )
        return Gc, gs, Gdc, res, status

    def closed_states(self, Q):
        """Boolean mask (B,): the states the kernel certifies closed (residual at most half
        the tolerance of :meth:`ClosedMultibodyModel.check_configuration`).
        """
        _, _, _, res, status = self._kernel(Q, np.zeros((1, self.nv)))
        return (status == 0) & (res <= 0.5 * self._model.closure_tol)

    def constraint_arrays(self, Q, V=None, rate=False):
        """``(Gc, gs)`` (and ``Gdc`` if ``rate``) for the states ``Q`` (B, nq) and independent
        speeds ``V`` (B, nv).

        Arrays with one row are shared by the batch (constant G and g = 0). With constraints
        evaluated per state, ``Q`` is validated here (:class:`NotOnManifoldError` for an open
        configuration); a model whose constraints are all constant leaves that to the caller.
        """
        if self._G_const is not None:
            if rate:
                return self._G_const, self._g_zero, np.zeros_like(self._G_const)
            return self._G_const, self._g_zero
        model = self._model
        V = np.zeros((1, model.nv)) if V is None else V
        Gc, gs, Gdc, res, status = self._kernel(Q, V)
        B = Gc.shape[0]
        Qb = np.broadcast_to(Q, (B, model.nq))
        Vb = np.broadcast_to(V, (B, model.nv))
        doubt = (status != 0) | ~(res <= 0.5 * model.closure_tol)
        rows = self._python_rows
        for b in range(B):
            if not (doubt[b] or rows.size):
                continue
            try:
                if status[b] != 0 or rows.size:  # two-stage clusters (or a singular K_D)
                    G, g, Gd = model._matrices_single(Qb[b], Vb[b], True)
                    sel = slice(None) if status[b] != 0 else rows
                    Gc[b, sel] = self.gather(G[None])[0, sel]
                    gs[b, sel] = g[sel]
                    Gdc[b, sel] = self.gather(Gd[None])[0, sel]
                else:
                    model._check_single(Qb[b])  # raises NotOnManifoldError on an open state
            except GeomechError as exc:
                if B == 1:
                    raise
                # the state's own error, located in the batch (issue 26 item 2)
                raise type(exc)(f"{str(exc).rstrip('.')} (batch element ({b},)).") from exc
        return (Gc, gs, Gdc) if rate else (Gc, gs)


def cluster_layout(model) -> ClusterLayout:
    """The model's :class:`ClusterLayout`, built once and cached on the model.

    Parameters
    ----------
    model : MultibodyModel or ClosedMultibodyModel

    Returns
    -------
    ClusterLayout

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> from geomech.multibody._kernels.cluster.compiled import cluster_layout
    >>> cluster_layout(robots.double_pendulum()).n_clusters
    2
    """
    lay = model.__dict__.get("_cluster_layout")
    if lay is None:
        lay = model.__dict__["_cluster_layout"] = ClusterLayout(model)
    return lay
