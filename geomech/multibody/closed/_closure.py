r"""The closure of a closed model: residuals, Jacobians, the closure search, G and g.

Functions over a :class:`~geomech.multibody.closed.model.ClosedMultibodyModel` (its spanning
tree and its constraints): building the constraints and clusters from the graph, the residual
:math:`\phi(q)` and the velocity constraint :math:`K(q)` with its rate, Newton's method on
the constraints, the reference configuration, the choice of independent coordinates, and the
matrices :math:`G`, :math:`g = \dot G v` of seed 004 eq. 3 (single configurations; the model's
public methods loop over batches).
"""

from __future__ import annotations

import copy
import heapq

import numpy as np

from geomech._validation import as_array, check_placement, check_size, default_rng
from geomech.errors import (
    DimensionError,
    ModelError,
    NotOnManifoldError,
    SingularityError,
)
from geomech.multibody.algorithms.kinematics import forward_kinematics, velocity_map
from geomech.multibody.closed.clusters import (
    Cluster,
    output_bodies,
    partition_clusters,
)
from geomech.multibody.closed.constraints import (
    CLOSURE_TOL,
    NEWTON_TOL,
    RANK_RTOL,
    Coupling,
    ImplicitConstraint,
    LoopJoint,
    numerical_rank,
    wrap_angle,
)
from geomech.multibody.model.joints import FreeFlyer, Joint


def one_blas_thread():
    """A context in which numpy's BLAS and LAPACK run on one thread: the closure's linear
    algebra is small and dense, and a multithreaded BLAS only oversubscribes the cores
    (issue 24: a 150-loop ladder loaded 20x slower with two BLAS threads on two cores).
    """
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1, user_api="blas")


def body_of(model, node, label: str) -> int:
    if node == model.root:
        return -1
    if node not in model.spanning_tree._index:
        raise ModelError(f"{label}: node {node!r} is not a body of the spanning tree.")
    return model.spanning_tree.body_index(node)


def build_constraints(model, graph, loop_edges, coupling_edges):
    st = model.spanning_tree
    loops, couplings = [], []
    for u, v, d in loop_edges:
        label = f"loop edge ({u!r}, {v!r})"
        joint = d.get("joint")
        if not isinstance(joint, Joint):
            raise ModelError(
                f"Expected the 'joint' attribute of {label} to be a geomech Joint, got "
                f"{type(joint).__name__}."
            )
        name = str(d.get("name", joint.name if joint.name is not None else f"loop_{u}_{v}"))
        Tp = np.eye(4) if d.get("placement") is None else check_placement(d["placement"], label)
        Ts = (np.eye(4) if d.get("successor_placement") is None
              else check_placement(d["successor_placement"], label))  # fmt: skip
        loops.append(
            LoopJoint(
                name, body_of(model, u, label), body_of(model, v, label), joint, Tp, Ts, st, u, v
            )
        )
    for u, v, d in coupling_edges:
        label = f"coupling edge ({u!r}, {v!r})"
        ratio = d.get("ratio")
        try:  # an int beyond float64 (10**400) overflows: not finite either
            finite = not isinstance(ratio, bool) and np.isfinite(float(ratio))
        except (TypeError, ValueError, OverflowError):
            finite = False
        if not finite or not isinstance(ratio, (int, float, np.floating, np.integer)):
            raise ModelError(
                f"Expected the 'ratio' of {label} to be a finite number, got {ratio!r}."
            )
        name = str(d.get("name", f"coupling_{u}_{v}"))
        couplings.append(
            Coupling(name, body_of(model, u, label), body_of(model, v, label), ratio, st, u, v)
        )
    user = []
    for con in graph.graph.get("constraints") or []:
        if not isinstance(con, ImplicitConstraint):
            raise ModelError(
                "Expected graph.graph['constraints'] to hold ImplicitConstraint objects, got "
                f"{type(con).__name__}."
            )
        con = copy.copy(con)  # bound to this model's layout; the user's object is untouched
        con._bind(st)
        user.append(con)
        con.rows = con._call_phi(st.neutral()[con.q_index]).size
    model.constraints = loops + couplings + user
    names = [c.name for c in model.constraints]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ModelError(f"Expected unique constraint names, got {dup[0]!r} more than once.")
    # auxiliary coordinates and speeds of the loop joints
    iq = iv = 0
    for lp in loops:
        lp.aux_q, lp.aux_v = slice(iq, iq + lp.nq_aux), slice(iv, iv + lp.nv_aux)
        iq, iv = iq + lp.nq_aux, iv + lp.nv_aux
    model._loops, model._n_aux_q, model._n_aux = loops, iq, iv
    rows, r = [], 0
    for con in model.constraints:
        rows.append(np.arange(r, r + con.rows))
        r += con.rows
    model._rows, model._n_rows = rows, r


def build_clusters(model):
    st = model.spanning_tree
    involved = [set(c.bodies) for c in model.constraints]
    groups = partition_clusters(model.parent, involved)
    cluster_of = {b: k for k, g in enumerate(groups) for b in g}
    clusters = []
    for k, bodies in enumerate(groups):
        out = output_bodies(model.parent, bodies)
        par = {cluster_of[o] if o >= 0 else -1 for o in out}
        (parent,) = par  # partition_clusters guarantees one parent cluster
        clusters.append(Cluster(k, list(bodies), int(parent), out))
    for con in model.constraints:
        ks = {cluster_of[b] for b in con.bodies}
        (k,) = ks
        clusters[k].constraints.append(con)
        con.cluster = k
    ar = np.arange(st.nv)
    aq = np.arange(st.nq)
    for c in clusters:
        c.q_index = np.concatenate([aq[st.q_slices[b]] for b in c.bodies] + [np.zeros(0, int)])
        c.v_index = np.concatenate([ar[st.v_slices[b]] for b in c.bodies] + [np.zeros(0, int)])
        c.aux_index = np.concatenate(
            [model._n_s + np.arange(model._n_aux)[lp.aux_v] for lp in c.constraints
             if lp.kind == "loop"] + [np.zeros(0, int)])  # fmt: skip
        c.rows = np.concatenate(
            [model._rows[model.constraints.index(con)] for con in c.constraints]
            + [np.zeros(0, int)]
        )
    model.clusters = clusters


def fit_aux(model, T, q_aux=None, exact=True) -> np.ndarray:
    out = np.zeros(model._n_aux_q)
    for lp in model._loops:
        out[lp.aux_q] = lp.fit(T, None if q_aux is None else q_aux[lp.aux_q], exact=exact)
    return out


def residual_at(model, q, T, q_aux) -> np.ndarray:
    return np.concatenate([c._residual(q, T, q_aux) for c in model.constraints] + [np.zeros(0)])


def jacobian_at(model, q, T, J, q_aux, newton=False) -> np.ndarray:
    K = np.zeros((model._n_rows, model._n_s + model._n_aux))
    for con, rows in zip(model.constraints, model._rows, strict=True):
        Ks, Ka = con._jacobian(q, T, J, q_aux, model._n_s, newton)
        K[rows, : model._n_s] = Ks
        if con.kind == "loop":
            K[np.ix_(rows, model._n_s + np.arange(model._n_aux)[con.aux_v])] = Ka
    return K


def jacobian_rate_at(model, q, T, J, Jdot, w, q_aux, v_aux) -> np.ndarray:
    Kd = np.zeros((model._n_rows, model._n_s + model._n_aux))
    for con, rows in zip(model.constraints, model._rows, strict=True):
        Ks, Ka = con._jacobian_rate(q, T, J, Jdot, w, q_aux, v_aux, model._n_s)
        Kd[rows, : model._n_s] = Ks
        if con.kind == "loop":
            Kd[np.ix_(rows, model._n_s + np.arange(model._n_aux)[con.aux_v])] = Ka
    return Kd


def kinematics(model, q, w=None):
    st = model.spanning_tree
    T = forward_kinematics(st, q)
    if w is None:
        J = velocity_map(st, q).reshape(st.n_bodies, 6, st.nv)
        return T, J, None
    A, A_dot = velocity_map(st, q, w)
    return T, A.reshape(st.n_bodies, 6, st.nv), A_dot.reshape(st.n_bodies, 6, st.nv)


def newton(model, q, q_aux, free, max_iter=100):
    r"""Damped least squares (Levenberg–Marquardt) on the constraints :math:`\phi(q) = 0`.

    Moves the spanning columns ``free`` and the loop joints' coordinates by
    :math:`\delta = -(K^\top K + \mu\mathbf 1)^{-1}K^\top\phi` along the joints' own flow,
    accepting a step only if it lowers :math:`|\phi|`; :math:`\mu` shrinks after a success and
    grows after a failure, so the iteration is Gauss–Newton near a regular solution and
    gradient descent at a singular start. Returns ``(q, q_aux)`` once the residual is at
    most ``NEWTON_TOL`` (absolute), or raises :class:`~geomech.errors.SingularityError`.
    """
    st = model.spanning_tree
    cols = np.concatenate([free, model._n_s + np.arange(model._n_aux)])

    def residual(q, q_aux):
        T = forward_kinematics(st, q)
        return T, residual_at(model, q, T, q_aux)

    def moved(q, q_aux, step):
        dv = np.zeros(model._n_s)
        dv[free] = step[: free.size]
        da = step[free.size :]
        q_aux = q_aux.copy()
        for lp in model._loops:
            q_aux[lp.aux_q] = lp.joint.integrate(q_aux[lp.aux_q], da[lp.aux_v])
        return st.integrate(q, dv), q_aux

    T, r = residual(q, q_aux)
    cost = float(r @ r)
    mu, polished = 1e-6, False
    for _ in range(max_iter):
        res = float(np.max(np.abs(r), initial=0.0))
        if res <= NEWTON_TOL and (polished or res <= 1e-15):
            return q, q_aux
        J = velocity_map(st, q).reshape(st.n_bodies, 6, st.nv)
        K = jacobian_at(model, q, T, J, q_aux, newton=True)[:, cols]
        if res <= NEWTON_TOL:
            # converged: one Gauss–Newton step more reaches rounding level if it lowers |φ|
            polished = True
            q_new, aux_new = moved(q, q_aux, -np.linalg.lstsq(K, r, rcond=None)[0])
            T_new, r_new = residual(q_new, aux_new)
            if not float(r_new @ r_new) < cost:
                return q, q_aux
            q, q_aux, T, r, cost = q_new, aux_new, T_new, r_new, float(r_new @ r_new)
            continue
        A, b = K.T @ K, K.T @ r
        scale = max(1.0, float(np.max(np.diag(A), initial=0.0)))
        while True:
            step = -np.linalg.solve(A + (mu * scale) * np.eye(A.shape[0]), b)
            if not np.all(np.isfinite(step)):
                mu = np.inf
                break
            q_new, aux_new = moved(q, q_aux, step)
            T_new, r_new = residual(q_new, aux_new)
            cost_new = float(r_new @ r_new)
            if cost_new < cost or cost_new <= NEWTON_TOL**2:
                q, q_aux, T, r, cost = q_new, aux_new, T_new, r_new, cost_new
                mu = max(mu / 10.0, 1e-12)
                break
            mu *= 10.0
            if mu > 1e8:
                break
        if mu > 1e8:
            break
    res = float(np.max(np.abs(r), initial=0.0))
    if res <= NEWTON_TOL:
        return q, q_aux
    raise SingularityError(
        f"Expected the closure search (Levenberg–Marquardt on the loop constraints) to reach "
        f"a residual of {NEWTON_TOL:g}, got residual {res:.3g} (an unreachable configuration, "
        "or a local minimum of |phi|)."
    )


def closure_search(model, q0, rng, restarts=8):
    r"""A closed configuration near ``q0``: damped least squares from ``q0``, then from
    perturbed starts (the cluster joints moved by growing random amounts, seeded), so a
    singular or open start does not stop the search. Raises the last
    :class:`~geomech.errors.SingularityError` when no start converges.
    """
    st = model.spanning_tree
    free = np.concatenate([c.v_index for c in model.clusters if c.constraints] + [np.zeros(0, int)])
    error = None
    for attempt in range(restarts + 1):
        q = q0.copy()
        if attempt:
            dv = np.zeros(model._n_s)
            dv[free] = (0.1 * 2 ** min(attempt, 5)) * rng.standard_normal(free.size)
            q = st.integrate(q, dv)
        try:
            return newton(model, q, fit_aux(model, forward_kinematics(st, q)), free)[0]
        except SingularityError as exc:
            error = exc
    raise error


def find_reference(model, graph, q0=None) -> np.ndarray:
    """A closed configuration near ``q0`` (default ``graph.graph["reference_configuration"]``,
    else the neutral one): ``q0`` itself if it closes, else the closure search's.
    """
    st = model.spanning_tree
    q0 = graph.graph.get("reference_configuration") if q0 is None else q0
    q0 = st.neutral() if q0 is None else as_array(q0, "reference_configuration", (st.nq,))
    if q0.ndim != 1:
        raise ModelError(
            f"Expected the reference configuration to have shape ({st.nq},), got {q0.shape}."
        )
    T = forward_kinematics(st, q0)
    q_aux = fit_aux(model, T)
    if np.max(np.abs(residual_at(model, q0, T, q_aux)), initial=0.0) <= NEWTON_TOL:
        return q0
    try:
        return closure_search(model, q0, np.random.default_rng(0))
    except SingularityError as exc:
        raise ModelError(
            "Expected to find a configuration closing the loops near the reference "
            f"configuration, got none ({exc}); give one as reference_configuration= (or "
            "graph.graph['reference_configuration'])."
        ) from exc


def _norm2(M, iterations=30) -> float:
    r"""Estimate of the spectral norm of ``M`` by power iteration on :math:`M^\top M`
    (O(rows × cols) per iteration; enough for a rank threshold), exact for a small ``M``.
    """
    if M.shape[0] == 0 or M.shape[1] == 0:
        return 0.0
    if min(M.shape) <= 8:  # small: exact, by the SVD
        return float(np.linalg.norm(M, 2))
    MT = M.T
    x = np.random.default_rng(0).standard_normal(M.shape[1])
    sigma = 0.0
    for _ in range(iterations):
        y = M @ x
        sigma = float(np.linalg.norm(y))
        if sigma == 0.0:
            return float(abs(M).max())
        x = MT @ (y / sigma)
        x /= np.linalg.norm(x)
    return max(sigma, float(np.linalg.norm(M @ x)))


class _Span:
    """The column space of the columns chosen so far, grown one column at a time by sparse
    Gaussian elimination with partial pivoting (a left-looking LU of the chosen columns in
    their order): a new column, reduced by the pivots in their order of creation (only
    those whose pivot row it reaches), is independent when its largest remaining entry
    exceeds ``RANK_RTOL`` times the cluster Jacobian's norm (as :func:`numerical_rank`'s
    threshold); its largest entry becomes a pivot. A block (a joint's columns) extends the
    span when each of its columns does, else it is rolled back. ``blocks`` (lists of
    columns) are added first with whatever rank they have. Entries below ``1e-4`` times the
    threshold (rounding, as in the identically zero rows of a planar loop) are dropped.

    Each loop touches few joints, so columns and pivots stay sparse (a loop's rows reach
    the joints of its own tree paths only: :func:`_sparse_rows`); the cost per column is
    that of the pivots it meets, not O(rows × rank) (issue 24: a 150-loop ladder).
    """

    def __init__(self, Kc, cols, blocks=()):
        # the nonzeros of Kc column by column (a compressed-column copy, built once)
        cj, ri = np.nonzero(Kc.T)
        self._vals = Kc[ri, cj]
        self._rows = ri
        self._ptr = np.searchsorted(cj, np.arange(Kc.shape[1] + 1))
        self.tol = RANK_RTOL * max(1.0, self._norm2(Kc.shape, cols))  # the cluster's columns
        self.drop = 1e-4 * self.tol
        self.pivots = []  # (pivot row, rows, values normalised to 1 at the pivot row)
        self.row_pivot = {}  # pivot row -> index in self.pivots
        self.rank = 0
        for cols in blocks:
            if len(cols):
                self.add(cols)

    def _norm2(self, shape, cols, iterations=30):
        r"""Spectral norm of the columns ``cols`` by power iteration on :math:`K^\top K`
        over the nonzeros (O(nonzeros) per iteration); exact (SVD) when small.
        """
        cols = np.asarray(cols, dtype=int)
        if cols.size == 0:
            return 0.0
        lo, hi = self._ptr[cols], self._ptr[cols + 1]
        take = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi, strict=True)])
        c = np.repeat(np.arange(cols.size), hi - lo)
        r, v = self._rows[take], self._vals[take]
        if min(shape[0], cols.size) <= 8 or r.size == 0:
            M = np.zeros((shape[0], cols.size))
            M[r, c] = v
            return _norm2(M)
        x = np.random.default_rng(0).standard_normal(cols.size)
        sigma = 0.0
        for _ in range(iterations):
            y = np.bincount(r, v * x[c], minlength=shape[0])
            sigma = float(np.linalg.norm(y))
            if sigma == 0.0:
                return float(np.max(np.abs(v)))
            x = np.bincount(c, v * (y / sigma)[r], minlength=cols.size)
            x /= np.linalg.norm(x)
        return max(sigma, float(np.linalg.norm(np.bincount(r, v * x[c], minlength=shape[0]))))

    def _column(self, j):
        lo, hi = self._ptr[j], self._ptr[j + 1]
        return dict(zip(self._rows[lo:hi].tolist(), self._vals[lo:hi].tolist(), strict=True))

    def _reduce(self, x):
        """``x`` (row -> value) minus its components on the pivots, in their order."""
        row_pivot, pivots = self.row_pivot, self.pivots
        heap = [row_pivot[r] for r in x if r in row_pivot]
        heapq.heapify(heap)
        seen = set(heap)
        while heap:
            p = heapq.heappop(heap)
            r, rows, vals = pivots[p]
            f = x.pop(r, 0.0)
            if f == 0.0:
                continue
            for rr, vv in zip(rows, vals, strict=True):
                if rr == r:
                    continue
                if rr in x:
                    x[rr] -= f * vv
                else:
                    x[rr] = -f * vv
                    p2 = row_pivot.get(rr)
                    if p2 is not None and p2 not in seen:
                        seen.add(p2)
                        heapq.heappush(heap, p2)
        return x

    def _push(self, x) -> bool:
        """Reduce ``x``; make it a pivot if it is independent. Whether it was."""
        x = self._reduce(x)
        drop = self.drop  # rounding far below the rank threshold: dropped, or it fills in
        rows = [k for k, v in x.items() if abs(v) > drop]
        if not rows:
            return False
        r = max(rows, key=lambda k: abs(x[k]))
        pivot = x[r]
        if not abs(pivot) > self.tol:
            return False
        self.row_pivot[r] = len(self.pivots)
        self.pivots.append((r, rows, [x[k] / pivot for k in rows]))
        self.rank += 1
        return True

    def _pop(self, n):
        for _ in range(n):
            r = self.pivots.pop()[0]
            del self.row_pivot[r]
            self.rank -= 1

    def add(self, cols) -> int:
        """Add the columns ``cols`` (whatever their rank); returns the rank they added."""
        return sum(self._push(self._column(j)) for j in cols)

    def extends(self, cols) -> bool:
        """Add the columns ``cols`` if they keep their full rank beyond the span; whether
        they did.
        """
        for n, j in enumerate(cols):
            if not self._push(self._column(j)):
                self._pop(n)
                return False
        return True


def _sparse_rows(model, c, Kc):
    """``Kc`` (cluster ``c``'s rows of K) with its structural zeros exact: a loop joint's rows
    keep the columns of the joints on its tree paths and its own auxiliary columns (the
    other entries are rounding of :math:`J_{F_S} - X J_{F_P}` over common ancestors), a
    coupling's its joints'; implicit constraints keep every column.
    """
    st = model.spanning_tree
    ar = np.arange(st.nv)
    out = np.zeros_like(Kc)
    r = 0
    for con in c.constraints:
        n = con.rows
        if con.kind in ("loop", "coupling"):
            cols = [ar[st.v_slices[b]] for b in con.bodies if b >= 0]
            if con.kind == "loop":
                cols.append(model._n_s + np.arange(model._n_aux)[con.aux_v])
            cols = np.concatenate(cols + [np.zeros(0, int)])
            out[r : r + n, cols] = Kc[r : r + n, cols]
        else:
            out[r : r + n] = Kc[r : r + n]
        r += n
    return out


def _cluster_blocks(model, c):
    """Column blocks of cluster ``c`` in its rows of K: each loop joint's auxiliary columns,
    then each body's spanning columns.
    """
    st = model.spanning_tree
    aux = [list(model._n_s + np.arange(model._n_aux)[con.aux_v])
           for con in c.constraints if con.kind == "loop"]  # fmt: skip
    return aux, {b: list(np.arange(st.nv)[st.v_slices[b]]) for b in c.bodies}


def cluster_rank(model, c, Kc) -> int:
    """Rank of cluster ``c``'s constraint Jacobian rows ``Kc`` (spanning and auxiliary
    columns), grown block by block (:class:`_Span`).
    """
    aux, vcol = _cluster_blocks(model, c)
    blocks = aux + list(vcol.values())
    return _Span(_sparse_rows(model, c, Kc), sum(blocks, []), blocks).rank


def cluster_ranks(model, q, exact=False):
    """Rank of each cluster's constraint Jacobian (spanning and auxiliary columns) at ``q``,
    and that Jacobian (with the loop joints' exact fit if ``exact``; the generic rank needs
    any fit).
    """
    T, J, _ = kinematics(model, q)
    K = jacobian_at(model, q, T, J, fit_aux(model, T, exact=exact))
    ranks = np.array([cluster_rank(model, c, K[c.rows]) if c.constraints else 0
                      for c in model.clusters])  # fmt: skip
    return ranks, K


def generic_configuration(model, q_ref, samples=3):
    r"""A closed configuration where every cluster's constraint Jacobian has its generic rank.

    The rank of :math:`K` is lower semicontinuous: on the closure manifold it is largest, the
    generic rank, at almost every configuration and drops at change points and dead
    centres; at a generic point of the joint space around it, it is at least that large. So
    if ``q_ref`` has, in every cluster, the rank of a seeded open perturbation of it, it is
    generic and kept (one Jacobian, no search). Otherwise closed configurations found from
    ``samples`` seeded perturbations are compared and the one of largest ranks replaces
    ``q_ref``: a singular reference (a parallelogram at its change point, a folded kite)
    never decides the model's structure (issue 24 item 2). Returns the configuration and
    the constraint Jacobian there (with the loop joints' exact fit).
    """
    rng = np.random.default_rng(1)
    st = model.spanning_tree
    free = np.concatenate([c.v_index for c in model.clusters if c.constraints] + [np.zeros(0, int)])

    def perturbed(q, size):
        dv = np.zeros(model._n_s)
        dv[free] = size * rng.standard_normal(free.size)
        return st.integrate(q, dv)

    best_ranks, K = cluster_ranks(model, q_ref, exact=True)
    if np.array_equal(best_ranks, cluster_ranks(model, perturbed(q_ref, 1e-3))[0]):
        return q_ref, K
    best = q_ref
    for _ in range(samples):
        try:
            q = closure_search(model, perturbed(q_ref, 0.3), rng, restarts=2)
        except SingularityError:
            continue
        ranks, K_q = cluster_ranks(model, q, exact=True)
        if np.all(ranks >= best_ranks) and np.any(ranks > best_ranks):
            best, best_ranks, K = q, ranks, K_q
    return best, K


def choose_independent(model, tree_graph):
    st = model.spanning_tree
    marks = []
    for i, node in enumerate(model.nodes):
        (pnode,) = tree_graph.predecessors(node)
        mark = tree_graph.edges[pnode, node].get("independent")
        if mark is not None and not isinstance(mark, (bool, np.bool_)):
            raise ModelError(
                f"Expected the 'independent' attribute of joint {model.joint_names[i]!r} to be "
                f"True, False or None, got {mark!r}."
            )
        if isinstance(st.joints[i], FreeFlyer) and model.parent[i] < 0:
            if mark is False:
                raise ModelError(
                    f"joint {model.joint_names[i]!r}: a floating base is always independent, "
                    "got independent=False."
                )
            mark = True
        marks.append(None if mark is None else bool(mark))
    model._q_ref, K = generic_configuration(model, model._q_ref)  # and K there
    successors = {c.succ for c in model.constraints if c.kind == "coupling"}
    dep_cols = set()
    for c in model.clusters:
        if not c.constraints:
            for b in c.bodies:
                if marks[b] is False:
                    raise ModelError(
                        f"joint {model.joint_names[b]!r} is marked independent=False but no "
                        "loop joint, coupling or constraint involves it."
                    )
            continue
        dep_cols |= _split_cluster(model, c, K[c.rows], marks, successors)
    _set_independent(model, dep_cols)


def _split_cluster(model, c, Kc, marks, successors) -> set:
    """The dependent spanning columns of cluster ``c`` (:class:`ClosedMultibodyModel`'s
    convention). Joint-wise first: the joints marked dependent, then the unmarked ones,
    leaves and coupled successors first, each made dependent whole when its columns add
    their full rank to the span of the loop joints' and the dependent columns (Gram–Schmidt,
    :class:`_Span`). When the joints left independent still add rank (no joint-wise split
    leaves exactly the mobility: the idle spin of an RSSR coupler is one component of a
    spherical joint's speed), a second pass in the same order makes an unmarked joint whose
    whole block does not extend the span dependent component by component, in the joint's
    velocity order, while each component extends it; its other components stay independent.
    """
    aux, vcol = _cluster_blocks(model, c)
    Kc = _sparse_rows(model, c, Kc)
    forced = [b for b in c.bodies if marks[b] is False]
    auto = sorted((b for b in c.bodies if marks[b] is None),
                  key=lambda b: (b not in successors, -b))  # fmt: skip

    def split(componentwise):
        span = _Span(Kc, sum(aux, []) + sum(vcol.values(), []), aux)
        dep = []
        # once the span is the cluster's column space, no further joint extends it: the
        # greedy pass needs no target rank (seed 004 §1.2: K_D of full column rank)
        for b in forced + auto:
            if span.extends(vcol[b]):  # the joint's columns add their full rank
                dep += vcol[b]
            elif b in forced:
                raise ModelError(
                    f"joint {model.joint_names[b]!r} is marked independent=False but the "
                    "constraints of its cluster do not determine it (given the other "
                    "dependent joints); mark another joint of the loop dependent."
                )
            elif componentwise and len(vcol[b]) > 1:
                dep += [j for j in vcol[b] if span.extends([j])]
        # the columns left independent must add nothing beyond the span (else the split
        # over-determines the cluster): the rank gap of the remaining columns
        taken = set(dep)
        rest = [j for b in c.bodies for j in vcol[b] if j not in taken]
        gap = span.add(rest)
        return taken, gap, span.rank

    taken, gap, rank = split(False)
    if gap and any(len(vcol[b]) > 1 for b in auto):
        taken, gap, rank = split(True)
    if gap:
        names = [model.joint_names[b] for b in c.bodies
                 if any(j not in taken for j in vcol[b])]  # fmt: skip
        dof = sum(len(vcol[b]) for b in c.bodies) + c.aux_index.size - rank
        raise ModelError(
            f"Expected the constraints of the cluster "
            f"{[model.body_names[b] for b in c.bodies]} to leave {dof} independent "
            f"speeds, got the joints {names} marked or chosen independent, which "
            "over-determine it; mark some of them independent=False."
        )
    return taken


def _set_independent(model, dep_cols):
    """The model's independent/dependent attributes from its dependent spanning columns."""
    st = model.spanning_tree
    ar = np.arange(st.nv)
    dep = np.zeros(st.nv, dtype=bool)
    dep[sorted(dep_cols)] = True
    cols = [ar[st.v_slices[i]] for i in range(model.n_bodies)]
    model._dependent_v_index = np.flatnonzero(dep)
    model.independent_v_index = np.flatnonzero(~dep)
    # joints with every speed dependent / with some speed independent
    model._dependent = [i for i in range(model.n_bodies) if cols[i].size and dep[cols[i]].all()]
    model._independent = [i for i in range(model.n_bodies) if i not in model._dependent]
    model.independent_joints = [model.joint_names[i] for i in range(model.n_bodies)
                                if cols[i].size and not dep[cols[i]].all()]  # fmt: skip
    model.dependent_joints = [model.joint_names[i] for i in range(model.n_bodies)
                              if dep[cols[i]].any()]  # fmt: skip
    model.independent_components = {
        model.joint_names[i]: tuple(int(t) for t in np.flatnonzero(~dep[cols[i]]))
        for i in range(model.n_bodies) if dep[cols[i]].any() and not dep[cols[i]].all()
    }  # fmt: skip
    model.nv = int(model.independent_v_index.size)
    pos = {int(c): k for k, c in enumerate(model.independent_v_index)}
    model.v_slices, iv = [], 0
    for i in range(model.n_bodies):
        n = int(np.count_nonzero(~dep[cols[i]]))
        model.v_slices.append(slice(iv, iv + n))
        iv += n
    for c in model.clusters:
        c.independent = [b for b in c.bodies if cols[b].size and not dep[cols[b]].all()]
        c.y_index = np.array([pos[int(j)] for j in c.v_index if int(j) in pos], dtype=int)


def residual_single(model, q):
    T = forward_kinematics(model.spanning_tree, q)
    q_aux = fit_aux(model, T)
    return residual_at(model, q, T, q_aux), T, q_aux


def couplings_only(model) -> bool:
    flag = model.__dict__.get("_only_couplings")
    if flag is None:
        flag = model._only_couplings = bool(model.constraints) and all(
            c.kind == "coupling" for c in model.constraints
        )
    return flag


def check_single(model, q, name="q"):
    r, T, q_aux = residual_single(model, q)
    tol = CLOSURE_TOL  # absolute, in the constraint's units (seed 004; issue 24 item 5)
    if r.size and not np.max(np.abs(r)) <= tol:
        k = int(np.argmax(np.abs(r)))
        con = next(c for c, rows in zip(model.constraints, model._rows, strict=True) if k in rows)
        raise NotOnManifoldError(
            f"Expected `{name}` to satisfy the loop constraints phi(q) = 0, got residual "
            f"{float(np.max(np.abs(r))):.3g} > {tol:.3g} in {con.name!r} (project it with "
            "model.project)."
        )
    return T, q_aux


def _dependent_solver(model, c, KD):
    r"""A solver of :math:`K_D X = B` (least squares) for cluster ``c``, or
    :class:`~geomech.errors.SingularityError` when :math:`K_D` is rank deficient.

    Small :math:`K_D` (at most 64 columns): the rank by the SVD (:func:`numerical_rank`) and
    least squares; larger ones (a cluster of hundreds of geared bodies): one Householder QR,
    rank deficient when some :math:`|R_{ii}|` is at most ``RANK_RTOL`` times the largest
    (:math:`\det R = \pm\det K_D` for square :math:`K_D`), a few times cheaper than two SVDs.
    """
    n = KD.shape[1]
    if n <= 64:
        rank = numerical_rank(KD)
        solve = lambda B: np.linalg.lstsq(KD, B, rcond=None)[0]  # noqa: E731
    else:
        from scipy.linalg import solve_triangular

        Q, R = np.linalg.qr(KD)
        d = np.abs(np.diag(R))
        rank = int(np.sum(d > RANK_RTOL * max(1.0, float(d.max(initial=0.0)))))
        solve = lambda B: solve_triangular(R, Q.T @ B)  # noqa: E731
    if rank < n:
        # G_D = −K_D⁺ K_Y (seed 004 §1.2) needs K_D of full column rank: at a change point or
        # a dead centre it is not, and G, g are not defined there (issue 24 item 4)
        raise SingularityError(
            f"Expected a regular configuration of cluster {c.index} (bodies "
            f"{[model.body_names[b] for b in c.bodies]}), got a singular one: its constraint "
            f"Jacobian on the dependent coordinates has rank {rank} < {n} (rank gap "
            f"{n - rank}), so the independent speeds do not determine the others "
            "(a change point or dead centre of the loop)."
        )
    return solve


def G_hat(model, K, solvers=None):
    """Ĝ over [spanning; aux] columns (n_s + n_a, m) from the velocity constraint K (the
    clusters' solvers of K_D stored in ``solvers`` if given).
    """
    n = model._n_s + model._n_aux
    Gh = np.zeros((n, model.nv))
    Gh[model.independent_v_index, np.arange(model.nv)] = 1.0
    for c in model.clusters:
        if not c.constraints:
            continue
        Y, D = cluster_cols(model, c)
        Kc = K[c.rows]
        solve = _dependent_solver(model, c, Kc[:, D])
        if solvers is not None:
            solvers[c.index] = solve
        Gh[D[:, None], c.y_index[None, :]] = -solve(Kc[:, Y])
    return Gh


def cluster_cols(model, c):
    """Independent (Y) and dependent (D) columns of cluster ``c`` over [spanning; aux]."""
    dep = np.zeros(model._n_s, dtype=bool)
    dep[model._dependent_v_index] = True
    v = np.asarray(c.v_index, dtype=int)
    return v[~dep[v]], np.concatenate([v[dep[v]], c.aux_index.astype(int)])


def matrices_single(model, q, y, rate):
    T, q_aux = check_single(model, q)
    st = model.spanning_tree
    J = velocity_map(st, q).reshape(st.n_bodies, 6, st.nv)
    K = jacobian_at(model, q, T, J, q_aux)
    solvers = {}
    with one_blas_thread():
        Gh = G_hat(model, K, solvers)
    G = Gh[: model._n_s]
    if y is None:
        return G, None, None
    w_hat = Gh @ y
    w, v_aux = w_hat[: model._n_s], w_hat[model._n_s :]
    _, _, Jdot = kinematics(model, q, w)
    Kd = jacobian_rate_at(model, q, T, J, Jdot, w, q_aux, v_aux)
    Gd = np.zeros_like(Gh)
    with one_blas_thread():
        for c in model.clusters:
            if not c.constraints:
                continue
            _, D = cluster_cols(model, c)
            # K Ĝ = 0 ⇒ K_D Ġ_D = −K̇ Ĝ (Ġ_Y = 0)
            rhs = Kd[c.rows] @ Gh[:, c.y_index]
            Gd[D[:, None], c.y_index[None, :]] = -solvers[c.index](rhs)
    G_dot = Gd[: model._n_s]
    return G, G_dot @ y, (G_dot if rate else None)


def compiled_closure(model):
    """The model's compiled closure (:class:`~geomech.multibody._kernels.cluster.closure.
    ClosureLayout`) when every cluster is in reach of the kernel, else ``None`` (the loops are
    then closed by :func:`newton`, with the model's Python constraint objects).
    """
    if not model.constraints:
        return None
    from geomech.multibody._kernels.cluster.closure import closure_layout

    cl = closure_layout(model)
    return cl if cl.capable else None


def close_batch(model, mode, q, dy, what):
    """Run the compiled closure on ``q`` (B, nq) and ``dy`` (B or 1, nv); raise the named
    error of the first failed state (located in the batch when B > 1).
    """
    cl = compiled_closure(model)
    out, res, status = cl.run(mode, q, dy, tol=NEWTON_TOL)
    bad = np.flatnonzero(status)
    if bad.size:
        b = int(bad[0])
        exc = cl.error(int(status[b]), float(res[b]), what)
        if out.shape[0] > 1:
            exc = type(exc)(f"{str(exc).rstrip('.')} (batch element ({b},)).")
        raise exc
    return out


def continue_closed(model, q, dy, steps=None, max_step=0.2):
    """Move the independent coordinates by ``dy`` from closed ``q``.

    Euler predictor along G, Newton corrector; steps of at most ``max_step`` keep the
    branch of ``q``. By the compiled closure when the model's clusters allow it
    (:mod:`~geomech.multibody._kernels.cluster.closure`, steps of at most 0.2), else by
    :func:`newton` on the constraint objects.
    """
    if compiled_closure(model) is not None and steps is None and max_step == 0.2:
        from geomech.multibody._kernels.cluster.closure import INTEGRATE

        return close_batch(model, INTEGRATE, q[None], np.asarray(dy, float)[None], "integrate")[0]
    st = model.spanning_tree
    free = model._dependent_v_index
    n = steps or max(1, int(np.ceil(np.max(np.abs(dy), initial=0.0) / max_step)))
    T = forward_kinematics(st, q)
    q_aux = fit_aux(model, T)
    for _ in range(n):
        J = velocity_map(st, q).reshape(st.n_bodies, 6, st.nv)
        w = G_hat(model, jacobian_at(model, q, T, J, q_aux)) @ (dy / n)
        q = st.integrate(q, w[: model._n_s])  # Euler predictor, loop joints too
        q_aux = q_aux.copy()
        for lp in model._loops:
            q_aux[lp.aux_q] = lp.joint.integrate(q_aux[lp.aux_q], w[model._n_s :][lp.aux_v])
        q, q_aux = newton(model, q, q_aux, free)
        T = forward_kinematics(st, q)
    return q


def check_configuration(model, q, name: str = "q") -> np.ndarray:
    """:meth:`ClosedMultibodyModel.check_configuration` (batched)."""
    q = as_array(q, name, (model.nq,))
    if not couplings_only(model):
        from geomech.multibody._kernels.cluster.compiled import cluster_layout

        lay = cluster_layout(model)
        if lay.certifies_closure:  # residuals by the constraint kernel, one pass
            Q = np.ascontiguousarray(q.reshape(-1, model.nq))
            ok = lay.closed_states(Q)
            for b in np.flatnonzero(~ok):
                check_single(model, Q[b], name)  # the exact residual, or the error
            return q
    if couplings_only(model):  # linear residuals: one vectorised test for the batch
        r = np.stack(
            [
                wrap_angle(q[..., c.q_index] @ c._q_row)
                if c.angular
                else q[..., c.q_index] @ c._q_row
                for c in model.constraints
            ],
            axis=-1,
        )
        if np.all(np.abs(r) <= CLOSURE_TOL):
            return q
    for idx in np.ndindex(q.shape[:-1]):
        check_single(model, q[idx], name)
    return q


def constraint_matrices(model, q, v, rate: bool = False):
    """:meth:`ClosedMultibodyModel.constraint_matrices` (batched)."""
    from geomech.multibody._kernels.cluster.compiled import cluster_layout

    q = as_array(q, "q", (model.nq,))
    v = as_array(v, "v", (model.nv,))
    batch = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
    q, v = np.broadcast_to(q, batch + (model.nq,)), np.broadcast_to(v, batch + (model.nv,))
    B = int(np.prod(batch, dtype=int))  # (not -1: a model without DoF has v of size 0)
    Q = np.ascontiguousarray(q.reshape(B, model.nq))
    V = np.ascontiguousarray(v.reshape(B, model.nv))
    lay = cluster_layout(model)
    if lay.all_static:  # constant G: only the residuals to check
        model.check_configuration(Q)
    # per cluster, on the compiled-kernel layer (cluster_constraints) or, for clusters
    # with user-defined constraints, by the constraint objects (_matrices_single)
    Gc, gs, Gdc = lay.constraint_arrays(Q, V, rate=True)
    G = lay.scatter(np.broadcast_to(Gc, (B,) + Gc.shape[1:])).reshape(
        batch + (model._n_s, model.nv)
    )
    g = np.broadcast_to(gs, (B, model._n_s)).reshape(batch + (model._n_s,)).copy()
    if not rate:
        return G, g
    Gd = lay.scatter(np.broadcast_to(Gdc, (B,) + Gdc.shape[1:])).reshape(G.shape)
    return G, g, Gd


def cluster_matrices(model, q, v):
    """:meth:`ClosedMultibodyModel.cluster_matrices` (batched)."""
    G, g, Gd = model.constraint_matrices(q, v, rate=True)
    return [
        (G[..., c.v_index[:, None], c.y_index[None, :]], g[..., c.v_index],
         Gd[..., c.v_index[:, None], c.y_index[None, :]])
        for c in model.clusters
    ]  # fmt: skip


def constraint_jacobian(model, q, v=None):
    """:meth:`ClosedMultibodyModel.constraint_jacobian` (batched)."""
    q = as_array(q, "q", (model.nq,))
    if q.ndim != 1:
        raise DimensionError(f"Expected `q` to have shape ({model.nq},), got {q.shape}.")
    T, q_aux = check_single(model, q)
    st = model.spanning_tree
    J = velocity_map(st, q).reshape(st.n_bodies, 6, st.nv)
    K = jacobian_at(model, q, T, J, q_aux)
    k = None
    if v is not None:
        v = as_array(v, "v", (model.nv,))
        Gh = G_hat(model, K)
        w_hat = Gh @ v
        w, v_aux = w_hat[: model._n_s], w_hat[model._n_s :]
        _, _, Jdot = kinematics(model, q, w)
        k = -jacobian_rate_at(model, q, T, J, Jdot, w, q_aux, v_aux) @ w_hat
    Ka = K[:, model._n_s :]
    if Ka.shape[1]:
        U, s, _ = np.linalg.svd(Ka)
        r = int(np.sum(s > RANK_RTOL * max(1.0, s[0] if s.size else 0.0)))
        P = U[:, r:].T  # rows annihilating the loop joints' speeds
    else:
        P = np.eye(K.shape[0])
    Ks = P @ K[:, : model._n_s]
    U, s, _ = np.linalg.svd(Ks, full_matrices=False)
    r = int(np.sum(s > RANK_RTOL * max(1.0, s[0] if s.size else 0.0)))
    B = U[:, :r].T
    if k is None:
        return B @ Ks
    return B @ Ks, B @ (P @ k)


def closed_random_configuration(model, rng=None, size=None) -> np.ndarray:
    """:meth:`ClosedMultibodyModel.random_configuration` (batched)."""
    rng = default_rng(rng)
    shape = check_size(size, per_item=4 * model.nq)
    st = model.spanning_tree
    out = np.empty(shape + (model.nq,))
    in_cluster = {b for c in model.clusters if c.constraints for b in c.bodies}
    dep = np.zeros(model._n_s, dtype=bool)
    dep[model._dependent_v_index] = True
    for idx in np.ndindex(shape):
        q = model._q_ref.copy()
        for i, joint in enumerate(st.joints):
            if i not in in_cluster and joint.nq:
                q[st.q_slices[i]] = joint.random_configuration(rng)
        scale = 0.5
        for _attempt in range(6):
            dy = np.zeros(model._n_s)
            for c in model.clusters:
                y = np.asarray(c.v_index, dtype=int)[~dep[c.v_index]]
                dy[y] = scale * rng.standard_normal(y.size)
            try:
                q_new = continue_closed(model, q, dy[model.independent_v_index])
                break
            except SingularityError:
                scale /= 2
        else:
            raise SingularityError(
                "Expected to reach a random closed configuration, got singular "
                "configurations on every attempt."
            )
        out[idx] = q_new
    return out
