r"""The compiled cluster tree: a model's clusters as flat arrays, and its per-state G and g.

Seed 004's algorithms run on the cluster connectivity tree (C-CT) and need, besides the
spanning tree's arrays (:mod:`~geomech.multibody.kernels.compiled`):

``cbody`` (N, 4) int64
    Per body ``i``: its cluster, its slot in the cluster (position in regular order), its
    output body :math:`\Lambda(i)` (nearest ancestor outside the cluster, −1 for the base)
    and, in row ``t``, the ``t``-th body in cluster order (clusters in regular order, each
    cluster's bodies in regular order: the stack order of seed 004 eq. 11).
``cclus`` (N_C + 1, 4) int64
    Per cluster ``k``: parent cluster :math:`\lambda(k)` (−1 for the base), offset of its
    bodies in cluster order, offset of its independent speeds in ``yidx`` and offset of its
    articulated inertia (a dense :math:`6n_b\times 6n_b` block) in a flat work array; row
    :math:`N_C` holds the totals.
``yidx`` (nv,) int64
    The positions in ``v`` of each cluster's independent speeds :math:`\dot y_k`.

The constraint data are per state: ``Gc`` (n_s, m_max) holds, in row ``j`` (a spanning-tree
speed of a body of cluster ``k``), the entries of :math:`G_k` over the cluster's independent
speeds (column ``c`` for :math:`\dot y_k[c]`), and ``gs`` (n_s) holds :math:`g = \dot G v`.
They come from the model's constraint objects in Python (:meth:`ClosedMultibodyModel.
constraint_matrices`), the two-stage path already used for user-defined joints. Clusters
whose constraints are all couplings (gears, belts: seed 004's "static" constraints, linear
with constant :math:`G_k` and :math:`g_k = 0`) are evaluated once per model, so a model
made only of them (geared chains, belt transmissions) calls no Python per state at all. A
tree is the degenerate case: one body per cluster, :math:`G_k = \mathbf 1`, :math:`g = 0`
(seed 004 §5 identity 11).

Why G and g are not computed in numba: loop joints and user constraints evaluate
:math:`G_D = -K_D^{+}K_Y` from the constraint Jacobian of the loop frames (least squares for
the redundant rows of planar loops) and user-supplied callables (``ImplicitConstraint``);
the compiled kernels take their results as arrays, exactly as they take user joints' poses.

References
----------
Seed 004 §1.4–1.5 (clusters, output bodies, stacks), §2.0 (``updateConstraints``), §6 traps
4 and 8.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ClusterLayout", "cluster_layout"]


class ClusterLayout:
    """Flat arrays of a model's cluster tree (module docstring).

    Parameters
    ----------
    model : MultibodyModel or ClosedMultibodyModel
        A tree gives one cluster per body.

    Examples
    --------
    >>> from geomech.multibody.urdf_plus import load_example
    >>> from geomech.multibody.kernels.cluster_compiled import cluster_layout
    >>> lay = cluster_layout(load_example("four_bar"))
    >>> lay.cclus.tolist()  # parent cluster, body offset, y offset, I^A offset
    [[-1, 0, 0, 0], [-1, 3, 1, 324]]
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
        cbody = np.zeros((N, 4), dtype=np.int64)
        cclus = np.zeros((NC + 1, 4), dtype=np.int64)
        yidx, t, ny, nia = [], 0, 0, 0
        self.mmax = self.lmax = 1
        static = []
        for k, (bodies, parent, out, y, constrained, coupling_only) in enumerate(groups):
            cclus[k] = (parent, t, ny, nia)
            for s, (b, o) in enumerate(zip(bodies, out, strict=True)):
                cbody[b, 0], cbody[b, 1], cbody[b, 2] = k, s, o
                cbody[t, 3] = b
                t += 1
            yidx.extend(int(j) for j in y)
            ny += len(y)
            nia += 36 * len(bodies) ** 2
            self.mmax = max(self.mmax, len(y))
            self.lmax = max(self.lmax, len(bodies))
            static.append(not constrained or coupling_only)
        cclus[NC] = (-1, t, ny, nia)
        self.cbody, self.cclus = cbody, cclus
        self.yidx = np.asarray(yidx, dtype=np.int64)
        self.n_clusters, self.n_s, self.nv = NC, n_s, ny
        # gather indices: Gc[j, c] = G[j, yidx[y0 + c]] for the speeds j of cluster k's joints
        rows = np.zeros((n_s, self.mmax), dtype=np.int64)
        cols = np.zeros((n_s, self.mmax), dtype=np.int64)
        mask = np.zeros((n_s, self.mmax))
        for k, (bodies, *_rest) in enumerate(groups):
            y = self.yidx[cclus[k, 2]:cclus[k + 1, 2]]
            for b in bodies:
                for j in range(st.v_slices[b].start, st.v_slices[b].stop):
                    rows[j, : y.size], cols[j, : y.size], mask[j, : y.size] = j, y, 1.0
        self._gather = (rows, cols, mask)
        self.all_static = all(static)
        self._model = model
        if not closed:
            Gc = np.zeros((1, n_s, self.mmax))
            for i in range(N):
                for c, j in enumerate(range(st.v_slices[i].start, st.v_slices[i].stop)):
                    Gc[0, j, c] = 1.0
            self._G_const = Gc
        elif self.all_static:
            q = model.neutral()
            G, _ = model.constraint_matrices(q, np.zeros(model.nv))
            self._G_const = self.gather(G[None])
        else:
            self._G_const = None
        self._g_zero = np.zeros((1, n_s))

    def gather(self, G):
        """``Gc`` (B, n_s, m_max) from dense ``G`` (B, n_s, nv)."""
        rows, cols, mask = self._gather
        return np.ascontiguousarray(G[:, rows, cols] * mask)

    def constraint_arrays(self, Q, V=None):
        """``(Gc, gs)`` for the states ``Q`` (B, nq) and independent speeds ``V`` (B, nv).

        Arrays with one row are shared by the batch (constant G and g = 0). ``Q`` must have
        been validated (closed configurations).
        """
        if self._G_const is not None:
            return self._G_const, self._g_zero
        model = self._model
        B = Q.shape[0] if V is None else max(Q.shape[0], V.shape[0])
        Vb = np.zeros((B, model.nv)) if V is None else np.broadcast_to(V, (B, model.nv))
        Qb = np.broadcast_to(Q, (B, model.nq))
        G = np.empty((B, self.n_s, model.nv))
        g = np.empty((B, self.n_s))
        for b in range(B):
            G[b], g[b] = model._matrices_single(Qb[b], Vb[b], False)[:2]
        return self.gather(G), g


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
    >>> from geomech.multibody.kernels.cluster_compiled import cluster_layout
    >>> cluster_layout(robots.double_pendulum()).n_clusters
    2
    """
    lay = model.__dict__.get("_cluster_layout")
    if lay is None:
        lay = model.__dict__["_cluster_layout"] = ClusterLayout(model)
    return lay
