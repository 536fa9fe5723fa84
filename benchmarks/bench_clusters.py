r"""Seed 004's comparisons: C-ABA vs the projection and Lagrange baselines, C-EFPA vs projection.

Two families of growing size (as seed 004 Sec. IX / Fig. 11, 13):

* ``geared``: serial chains of n links (n = 2, 4, ..., 24), each driven through a geared rotor
  mounted on the preceding link (q_rotor = N q_link, a coupling): n clusters of 2 bodies;
* ``fourbar``: stacks of n planar four-bar loops, each hinged on the previous one's rocker
  (n = 1, 2, 4, ..., 64): n clusters of 3 bodies, depth growing with n. Every module has
  the same geometry in its parent's frame, so closed configurations of the stack are
  tiled from closed configurations of one module (and checked).

All contenders are compiled (numba) and get the same per-state constraint data (G, g and,
for the Lagrange method, a full-row-rank K and k, here the explicit form
``cluster_baselines.explicit_constraint``) computed beforehand, as the paper's timings
neglect the cost of the constraint Jacobians (seed 004 §3): C-RNEA, C-ABA and C-EFPA are the
kernels behind ``rnea``/``aba``/``inverse_operational_space_inertia``, the baselines are
:mod:`baselines` (the spanning tree's compiled CRBA/RNEA
and dense Cholesky/LU). Each comparison is interleaved (``_timing.interleaved``) on batches
of states, reported per state, with the relative cost (baseline / cluster − 1, in %, the
paper's Tables II–IV convention) and the fitted log-log slope of time against n. The
per-state cost of G, g and Ġ for the loop clusters is printed too: by the compiled kernel
(``kernels.cluster_constraints``, what the public functions use) and by the Python
constraint objects (the two-stage path kept for user-defined constraints).

Then seed 000's Coriolis matrix of the closed chain, :math:`\bar C = G^\top C_sG + G^\top
H_s\dot G`: Algorithm 1 in cluster form (the kernel behind ``coriolis_matrix`` on closed
models, :mod:`geomech.multibody._kernels.cluster.coriolis`) against the dense projection (the
spanning tree's compiled Alg. 1 and CRBA, then the products with G and Ġ), both with the same
G and Ġ computed beforehand.

Run: ``python benchmarks/bench_clusters.py`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import networkx as nx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import baselines as BL  # noqa: E402  (benchmarks/baselines.py)
from _timing import best_time, interleaved, slope  # noqa: E402

from geomech.lie import SO3  # noqa: E402
from geomech.multibody import ClosedMultibodyModel, MultibodyModel, Revolute  # noqa: E402
from geomech.multibody._kernels.cluster import coriolis as KCC  # noqa: E402
from geomech.multibody._kernels.cluster import dynamics as CK  # noqa: E402
from geomech.multibody._kernels.cluster.compiled import cluster_layout  # noqa: E402
from geomech.multibody._kernels.tree import coriolis as KC  # noqa: E402
from geomech.multibody._kernels.tree import dynamics as KD  # noqa: E402
from geomech.multibody.algorithms._body_factors import _factor_tensors  # noqa: E402
from geomech.multibody.io.robots import random_inertia  # noqa: E402
from geomech.spatial import spatial_inertia  # noqa: E402


# ----------------------------------------------------------------------------------------
# model families
# ----------------------------------------------------------------------------------------
def _pose(R=None, p=(0.0, 0.0, 0.0)):
    T = np.eye(4)
    if R is not None:
        T[:3, :3] = R
    T[:3, 3] = p
    return T


def geared_chain(n: int, rng) -> MultibodyModel:
    """n links in series, link k driven by rotor k on link k − 1 (ratio 6 to 10)."""
    g = nx.DiGraph(name=f"geared_{n}")
    prev = "world"
    for k in range(1, n + 1):
        R = SO3.exp(0.5 * rng.normal(size=3))
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        g.add_edge(prev, f"link{k}", joint=Revolute(axis), name=f"joint{k}",
                   placement=_pose(R, rng.uniform(-0.3, 0.3, 3)))  # fmt: skip
        g.add_edge(prev, f"rotor{k}", joint=Revolute(axis), name=f"rotor{k}_joint",
                   placement=_pose(R, rng.uniform(-0.1, 0.1, 3)), independent=False)  # fmt: skip
        g.add_edge(f"link{k}", f"rotor{k}", kind="coupling", ratio=float(rng.uniform(6, 10)),
                   name=f"gear{k}")  # fmt: skip
        g.nodes[f"link{k}"]["inertia"] = random_inertia(rng)
        g.nodes[f"rotor{k}"]["inertia"] = 0.01 * random_inertia(rng)
        prev = f"link{k}"
    return ClosedMultibodyModel(g)


def fourbar_stack(n: int, rng) -> MultibodyModel:
    """n planar four-bars, module k hinged on module k − 1's rocker."""
    z = [0.0, 0.0, 1.0]

    def at(x, y):
        return _pose(None, (x, y, 0.0))

    def body(com):
        return spatial_inertia(1.0, com, 0.01 * np.eye(3))

    g = nx.DiGraph(name=f"fourbar_{n}")
    prev, base = "world", at(0.0, 0.0)
    for k in range(1, n + 1):
        c, cp, r = f"crank{k}", f"coupler{k}", f"rocker{k}"
        g.add_edge(prev, c, joint=Revolute(z), placement=base, name=f"A{k}")
        g.add_edge(c, cp, joint=Revolute(z), placement=at(0, 1), name=f"B{k}")
        g.add_edge(prev, r, joint=Revolute(z), placement=base @ at(3, 0), name=f"D{k}")
        g.add_edge(cp, r, kind="loop", joint=Revolute(z), placement=at(2, 0),
                   successor_placement=at(-1, 1), name=f"C{k}")  # fmt: skip
        for node, com in ((c, [0, 0.5, 0]), (cp, [1, 0, 0]), (r, [-0.5, 0.5, 0])):
            g.nodes[node]["inertia"] = body(com)
        prev, base = r, at(-0.5, 0.5)
    return ClosedMultibodyModel(g)


# ----------------------------------------------------------------------------------------
# inputs of the kernels
# ----------------------------------------------------------------------------------------
def closed_states(model, n, B, rng):
    """B closed configurations of a model of family ``fourbar`` (tiled) or any other."""
    if model.graph.graph.get("name", "").startswith("fourbar"):
        one = fourbar_stack(1, rng)
        Q = one.random_configuration(rng, size=B * n).reshape(B, 3 * n)
    else:
        Q = model.random_configuration(rng, size=B)
    return np.ascontiguousarray(model.check_configuration(Q))


class Case:
    """Per-state constraint data and the argument tuples of every contender."""

    def __init__(self, model, n, B, rng, ee=None):
        self.model = model
        lay = cluster_layout(model)
        st = lay.tree
        cm = st.compiled
        Q = closed_states(model, n, B, rng)
        V, TAU, ACC = (rng.normal(size=(B, model.nv)) for _ in range(3))
        G, g = model.constraint_matrices(Q, V)
        G = np.ascontiguousarray(G)
        self.lay, self.QV = lay, (Q, V)
        self.g_kernel = None
        if lay._G_const is None:  # loop clusters: G, g and Ġ per state
            lay.constraint_arrays(Q, V)
            self.g_kernel = best_time(lambda: lay.constraint_arrays(Q, V)) / B
            k = min(B, 2)
            t0 = time.perf_counter()
            for b in range(k):
                model._matrices_single(Q[b], V[b], True)
            self.g_python = (time.perf_counter() - t0) / k
        Gc, gs = lay.constraint_arrays(Q, V)
        if gs.shape[0] == 1:
            gs = np.ascontiguousarray(np.broadcast_to(gs, (B, st.nv)))
            Gc = np.ascontiguousarray(np.broadcast_to(Gc, (B,) + Gc.shape[1:]))
        ind = np.ascontiguousarray(model.independent_v_index, dtype=np.int64)
        K, k = BL.explicit_constraint(G, g, ind)
        S, S_ring, T_user = cm.joint_arrays(Q)
        F = np.zeros((1, 0, 6))
        self.status = np.empty(B, dtype=np.int64)
        self.out = np.empty((B, model.nv))
        self.ref = np.empty((B, model.nv))
        self.tau, self.tau_ref = np.empty((B, model.nv)), np.empty((B, model.nv))
        if ee is None:
            ee = [st.n_bodies - 1, st.n_bodies // 2]
        ee = np.array([st.body_index(e) if isinstance(e, str) else e for e in ee], dtype=np.int64)
        self.W1, self.W2 = (
            np.empty((B, 6 * ee.size, 6 * ee.size)),
            np.empty((B, 6 * ee.size, 6 * ee.size)),
        )
        topo = (*cm.arrays(),)
        clus = (lay.cbody, lay.cclus, lay.yidx)
        self.c_rnea = (*topo, *clus, S, S_ring, T_user, Gc, gs, Q, V, ACC, cm.a0, F, self.tau,
                       self.status)  # fmt: skip
        self.p_rnea = (*topo, S, S_ring, T_user, G, g, Q, V, ACC, cm.a0, F, self.tau_ref,
                       self.status)  # fmt: skip
        self.c_aba = (*topo, *clus, S, S_ring, T_user, Gc, gs, Q, V, TAU, cm.a0, F, self.out,
                      self.status)  # fmt: skip
        self.proj = (*topo, S, S_ring, T_user, G, g, Q, V, TAU, cm.a0, F, self.ref, self.status)
        self.lag = (*topo, S, S_ring, T_user, G, K, k, ind, Q, V, TAU, cm.a0, F, self.ref,
                    self.status)  # fmt: skip
        self.c_efpa = (*topo, *clus, S, S_ring, T_user, Gc, Q, ee, self.W1, self.status)
        self.p_iosim = (*topo, S, S_ring, T_user, G, Q, ee, self.W2, self.status)
        self.B = B

    def check(self):
        def close(a, b, tol):
            return np.max(np.abs(a - b)) <= tol * max(1.0, np.max(np.abs(b)))

        CK.c_rnea_batch(*self.c_rnea)
        BL.projected_rnea_batch(*self.p_rnea)
        assert close(self.tau, self.tau_ref, 1e-9)
        CK.c_aba_batch(*self.c_aba)
        BL.projection_aba_batch(*self.proj)
        assert close(self.out, self.ref, 1e-7)
        BL.lagrange_aba_batch(*self.lag)
        assert close(self.out, self.ref, 1e-7)
        CK.c_efpa_batch(*self.c_efpa)
        BL.projection_iosim_batch(*self.p_iosim)
        assert close(self.W1, self.W2, 1e-7)


def run(family, sizes, B, rng, rounds):
    build = geared_chain if family == "geared" else fourbar_stack
    rows = []
    for n in sizes:
        case = Case(build(n, rng), n, B, rng)
        case.check()
        t_cr, t_pr, _ = interleaved(
            lambda c=case: CK.c_rnea_batch(*c.c_rnea),
            lambda c=case: BL.projected_rnea_batch(*c.p_rnea),
            rounds,
        )
        t_c, t_p, _ = interleaved(
            lambda c=case: CK.c_aba_batch(*c.c_aba),
            lambda c=case: BL.projection_aba_batch(*c.proj),
            rounds,
        )
        t_c2, t_l, _ = interleaved(
            lambda c=case: CK.c_aba_batch(*c.c_aba),
            lambda c=case: BL.lagrange_aba_batch(*c.lag),
            rounds,
        )
        t_e, t_pe, _ = interleaved(
            lambda c=case: CK.c_efpa_batch(*c.c_efpa),
            lambda c=case: BL.projection_iosim_batch(*c.p_iosim),
            rounds,
        )
        m = case.model
        t_c = 0.5 * (t_c + t_c2)
        rows.append((n, m.n_bodies, m.nv, len(m.clusters), t_cr / B, t_pr / B, t_c / B, t_p / B,
                     t_l / B, t_e / B, t_pe / B))  # fmt: skip
        r = rows[-1]

        def pct(base, ref):
            return f"{100 * (base / ref - 1):+7.1f}%"

        line = (f"  n={n:3d} bodies={r[1]:3d} nv={r[2]:3d} | C-RNEA {1e6 * r[4]:8.1f} us  "
                f"projected {1e6 * r[5]:8.1f} ({pct(r[5], r[4])}) | C-ABA {1e6 * r[6]:8.1f} us  "
                f"projection {1e6 * r[7]:8.1f} ({pct(r[7], r[6])})  Lagrange {1e6 * r[8]:8.1f} "
                f"({pct(r[8], r[6])}) | C-EFPA {1e6 * r[9]:8.1f} us  projection "
                f"{1e6 * r[10]:8.1f} ({pct(r[10], r[9])})")  # fmt: skip
        if case.g_kernel is not None:
            line += (
                f" | G,g,Ġ kernel {1e6 * case.g_kernel:7.1f} us, Python "
                f"{1e6 * case.g_python:9.1f} us"
            )
        print(line, flush=True)
    a = np.array(rows)
    x = a[:, 0]
    names = (
        "C-RNEA",
        "projected RNEA",
        "C-ABA",
        "projection",
        "Lagrange",
        "C-EFPA",
        "projected OSIM",
    )
    print(
        "  log-log slopes vs n: "
        + ", ".join(f"{nm} {slope(x, a[:, 4 + i]):.2f}" for i, nm in enumerate(names))
    )
    if len(x) >= 4:  # the large-size end, where the asymptotic order shows
        h = len(x) // 2
        print(
            "  slopes over the larger half: "
            + ", ".join(f"{nm} {slope(x[h:], a[h:, 4 + i]):.2f}" for i, nm in enumerate(names))
        )
    return rows


class CoriolisCase:
    """Cluster Alg. 1 and the dense projection on the same states, G and Ġ."""

    def __init__(self, model, n, B, rng):
        self.model = model
        lay = cluster_layout(model)
        st = lay.tree
        cm = st.compiled
        Q = closed_states(model, n, B, rng)
        V = rng.normal(size=(B, model.nv))
        G, _, Gd = model.constraint_matrices(Q, V, rate=True)
        self.G, self.Gd, self.GT = G, Gd, np.ascontiguousarray(np.swapaxes(G, -1, -2))
        QD = np.ascontiguousarray(np.einsum("bij,bj->bi", G, V))
        Bt, lc = _factor_tensors(st, "levi-civita")
        S, S_ring, T_user = cm.joint_arrays(Q)
        self.status = np.empty(B, dtype=np.int64)
        self.C = np.empty((B, model.nv, model.nv))
        self.Cs, self.Hs = np.empty((B, st.nv, st.nv)), np.empty((B, st.nv, st.nv))
        topo = (*cm.arrays(),)
        self.cluster = (*topo, Bt, lc, lay.cbody, lay.cclus, lay.yidx, S, S_ring, T_user,
                        lay.gather(G), lay.gather(Gd), Q, V, self.C, self.status)  # fmt: skip
        self.tree_c = (*topo, Bt, lc, S, S_ring, T_user, Q, QD, self.Cs, self.status)
        self.tree_h = (*topo, S, S_ring, T_user, Q, self.Hs, self.status)

    def run_cluster(self):
        KCC.cluster_coriolis_batch(*self.cluster)
        return self.C

    def run_projection(self):
        KC.coriolis_batch(*self.tree_c)
        KD.crba_batch(*self.tree_h)
        return self.GT @ self.Cs @ self.G + self.GT @ self.Hs @ self.Gd


def run_coriolis(family, sizes, B, rng, rounds):
    build = geared_chain if family == "geared" else fourbar_stack
    rows = []
    for n in sizes:
        case = CoriolisCase(build(n, rng), n, B, rng)
        assert np.allclose(case.run_cluster(), case.run_projection(), rtol=1e-9, atol=1e-9)
        t_c, t_p, r = interleaved(case.run_cluster, case.run_projection, rounds)
        m = case.model
        rows.append((m.n_bodies, t_c / B, t_p / B))
        print(
            f"  n={n:3d} bodies={m.n_bodies:3d} nv={m.nv:3d} | cluster Alg. 1 "
            f"{1e6 * t_c / B:8.2f} us  dense projection {1e6 * t_p / B:8.2f} us "
            f"({100 * (1 / r - 1):+6.1f}%)",
            flush=True,
        )
    a = np.array(rows)
    print(
        f"  log-log slopes vs bodies: cluster Alg. 1 {slope(a[:, 0], a[:, 1]):.2f}, "
        f"dense projection {slope(a[:, 0], a[:, 2]):.2f}"
    )
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few rounds")
    parser.add_argument("--family", choices=["geared", "fourbar", "both"], default="both")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(2023)
    if args.quick:
        geared, fourbar, B, rounds = [2, 4], [1, 2], 8, 3
    else:
        geared, fourbar, B, rounds = [2, 4, 8, 12, 16, 24, 32], [1, 2, 4, 8, 16, 32, 64], 40, 9
    print(
        "Forward dynamics (per state, batches of",
        B,
        "states); relative cost = baseline / cluster − 1",
    )
    for family, sizes, what in (
        ("geared", geared, "geared rotor chains (n links, n clusters of link + rotor)"),
        ("fourbar", fourbar, "stacks of four-bar loops (n loops, n clusters of 3 bodies, depth n)"),
    ):
        if args.family in (family, "both"):
            print(what + ":")
            run(family, sizes, B, rng, rounds)
    print(
        "Coriolis matrix C̄ = GᵀCG + GᵀHĠ (Levi-Civita), per state; relative cost = "
        "projection / cluster − 1"
    )
    for family, sizes in (("geared", geared), ("fourbar", fourbar)):
        if args.family in (family, "both"):
            print(family + ":")
            run_coriolis(family, sizes, B, rng, rounds)


if __name__ == "__main__":
    main()
