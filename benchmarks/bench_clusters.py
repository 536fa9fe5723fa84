r"""Seed 004's comparisons: C-ABA vs the projection and Lagrange baselines, C-EFPA vs projection.

Two families of growing size (as seed 004 Sec. IX / Fig. 11, 13):

* ``geared``: serial chains of n links (n = 2, 4, ..., 24), each driven through a geared rotor
  mounted on the preceding link (q_rotor = N q_link, a coupling): n clusters of 2 bodies;
* ``fourbar``: stacks of n planar four-bar loops, each hinged on the previous one's rocker
  (n = 1, 2, 4, 6, 8): n clusters of 3 bodies, depth growing with n.

All contenders are compiled (numba) and get the same per-state constraint data (G, g and,
for the Lagrange method, K and k) computed beforehand, as the paper's timings neglect the
cost of the constraint Jacobians (seed 004 §3): C-ABA and C-EFPA are the kernels behind
``aba``/``inverse_operational_space_inertia``, the baselines are
:mod:`geomech.multibody.kernels.cluster_baselines` (the spanning tree's compiled CRBA/RNEA
and dense Cholesky/LU). Each comparison is interleaved (``_timing.interleaved``) on batches
of states, reported per state, with the relative cost (baseline / cluster − 1, in %, the
paper's Tables III–IV convention) and the fitted log-log slope of time against n. The
per-state cost of G and g from the Python constraint objects (loop clusters only; geared
clusters have a constant G) is printed too.

Then seed 000's Coriolis matrix of the closed chain, :math:`\bar C = G^\top C_sG + G^\top
H_s\dot G`: Algorithm 1 in cluster form (the kernel behind ``coriolis_matrix`` on closed
models, :mod:`geomech.multibody.kernels.cluster_coriolis`) against the dense projection (the
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

from _timing import interleaved, slope  # noqa: E402

from geomech.lie import SO3  # noqa: E402
from geomech.multibody import MultibodyModel, Revolute  # noqa: E402
from geomech.multibody._body_factors import _factor_tensors  # noqa: E402
from geomech.multibody.kernels import cluster_baselines as BL  # noqa: E402
from geomech.multibody.kernels import cluster_coriolis as KCC  # noqa: E402
from geomech.multibody.kernels import cluster_dynamics as CK  # noqa: E402
from geomech.multibody.kernels import coriolis as KC  # noqa: E402
from geomech.multibody.kernels import dynamics as KD  # noqa: E402
from geomech.multibody.kernels.cluster_compiled import cluster_layout  # noqa: E402
from geomech.multibody.robots import random_inertia  # noqa: E402
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
    return MultibodyModel(g)


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
    return MultibodyModel(g)


# ----------------------------------------------------------------------------------------
# inputs of the kernels
# ----------------------------------------------------------------------------------------
class Case:
    """Per-state constraint data and the argument tuples of every contender."""

    def __init__(self, model, B, rng):
        self.model = model
        lay = cluster_layout(model)
        st = lay.tree
        cm = st.compiled
        Q = np.ascontiguousarray(model.random_configuration(rng, size=B))
        V, TAU = rng.normal(size=(B, model.nv)), rng.normal(size=(B, model.nv))
        t0 = time.perf_counter()
        G, g = model.constraint_matrices(Q, V)
        self.g_cost = (time.perf_counter() - t0) / B
        Gc, gs = lay.constraint_arrays(Q, V)
        if gs.shape[0] == 1:
            gs = np.ascontiguousarray(np.broadcast_to(gs, (B, st.nv)))
        KK = [model.constraint_jacobian(Q[b], V[b]) for b in range(B)]
        K = np.ascontiguousarray(np.stack([x[0] for x in KK]))
        k = np.ascontiguousarray(np.stack([x[1] for x in KK]))
        S, S_ring, T_user = cm.joint_arrays(Q)
        F = np.zeros((1, 0, 6))
        self.status = np.empty(B, dtype=np.int64)
        self.out = np.empty((B, model.nv))
        self.ref = np.empty((B, model.nv))
        ee = np.array([st.n_bodies - 1, st.n_bodies // 2], dtype=np.int64)
        self.W1, self.W2 = np.empty((B, 12, 12)), np.empty((B, 12, 12))
        topo = (*cm.arrays(),)
        clus = (lay.cbody, lay.cclus, lay.yidx)
        self.c_aba = (*topo, *clus, S, S_ring, T_user, Gc, gs, Q, V, TAU, cm.a0, F, self.out,
                      self.status)  # fmt: skip
        self.proj = (*topo, S, S_ring, T_user, np.ascontiguousarray(G), g, Q, V, TAU, cm.a0, F,
                     self.ref, self.status)  # fmt: skip
        self.lag = (*topo, S, S_ring, T_user, np.ascontiguousarray(G), K, k,
                    np.ascontiguousarray(model.independent_v_index, dtype=np.int64), Q, V, TAU,
                    cm.a0, F, self.ref, self.status)  # fmt: skip
        self.c_efpa = (*topo, *clus, S, S_ring, T_user, Gc, Q, ee, self.W1, self.status)
        self.p_iosim = (*topo, S, S_ring, T_user, np.ascontiguousarray(G), Q, ee, self.W2,
                        self.status)  # fmt: skip
        self.B = B

    def check(self):
        CK.c_aba_batch(*self.c_aba)
        BL.projection_aba_batch(*self.proj)
        assert np.allclose(self.out, self.ref, rtol=1e-8, atol=1e-8)
        BL.lagrange_aba_batch(*self.lag)
        assert np.allclose(self.out, self.ref, rtol=1e-7, atol=1e-7)
        CK.c_efpa_batch(*self.c_efpa)
        BL.projection_iosim_batch(*self.p_iosim)
        assert np.allclose(self.W1, self.W2, rtol=1e-8, atol=1e-8)


def run(family, sizes, B, rng, rounds):
    build = geared_chain if family == "geared" else fourbar_stack
    rows = []
    for n in sizes:
        case = Case(build(n, rng), B, rng)
        case.check()
        t_c, t_p, r_p = interleaved(lambda c=case: CK.c_aba_batch(*c.c_aba),
                                    lambda c=case: BL.projection_aba_batch(*c.proj), rounds)
        _, t_l, r_l = interleaved(lambda c=case: CK.c_aba_batch(*c.c_aba),
                                  lambda c=case: BL.lagrange_aba_batch(*c.lag), rounds)
        t_e, t_pe, r_e = interleaved(lambda c=case: CK.c_efpa_batch(*c.c_efpa),
                                     lambda c=case: BL.projection_iosim_batch(*c.p_iosim), rounds)
        m = case.model
        rows.append((n, m.n_bodies, m.nv, len(m.clusters), t_c / B, t_p / B, t_l / B, 1 / r_p,
                     1 / r_l, t_e / B, t_pe / B, 1 / r_e, case.g_cost))  # fmt: skip
        r = rows[-1]
        print(f"  n={n:3d} bodies={r[1]:3d} nv={r[2]:3d} clusters={r[3]:3d} | "
              f"C-ABA {1e6 * r[4]:8.2f} us  projection {1e6 * r[5]:8.2f} us ({100 * (r[7] - 1):+6.1f}%)"
              f"  Lagrange {1e6 * r[6]:8.2f} us ({100 * (r[8] - 1):+6.1f}%) | "
              f"C-EFPA {1e6 * r[9]:8.2f} us  projection {1e6 * r[10]:8.2f} us "
              f"({100 * (r[11] - 1):+6.1f}%) | G,g in Python {1e6 * r[12]:9.1f} us",
              flush=True)  # fmt: skip
    a = np.array(rows)
    x = a[:, 1]
    print(f"  log-log slopes vs bodies: C-ABA {slope(x, a[:, 4]):.2f}, projection "
          f"{slope(x, a[:, 5]):.2f}, Lagrange {slope(x, a[:, 6]):.2f}; C-EFPA "
          f"{slope(x, a[:, 9]):.2f}, projected OSIM {slope(x, a[:, 10]):.2f}")
    if len(x) >= 4:  # the large-size end, where the asymptotic order shows
        h = len(x) // 2
        print(f"  slopes over the larger half: C-ABA {slope(x[h:], a[h:, 4]):.2f}, projection "
              f"{slope(x[h:], a[h:, 5]):.2f}, Lagrange {slope(x[h:], a[h:, 6]):.2f}; C-EFPA "
              f"{slope(x[h:], a[h:, 9]):.2f}, projected OSIM {slope(x[h:], a[h:, 10]):.2f}")
    return rows


class CoriolisCase:
    """Cluster Alg. 1 and the dense projection on the same states, G and Ġ."""

    def __init__(self, model, B, rng):
        self.model = model
        lay = cluster_layout(model)
        st = lay.tree
        cm = st.compiled
        Q = np.ascontiguousarray(model.random_configuration(rng, size=B))
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
        case = CoriolisCase(build(n, rng), B, rng)
        assert np.allclose(case.run_cluster(), case.run_projection(), rtol=1e-9, atol=1e-9)
        t_c, t_p, r = interleaved(case.run_cluster, case.run_projection, rounds)
        m = case.model
        rows.append((m.n_bodies, t_c / B, t_p / B))
        print(f"  n={n:3d} bodies={m.n_bodies:3d} nv={m.nv:3d} | cluster Alg. 1 "
              f"{1e6 * t_c / B:8.2f} us  dense projection {1e6 * t_p / B:8.2f} us "
              f"({100 * (1 / r - 1):+6.1f}%)", flush=True)
    a = np.array(rows)
    print(f"  log-log slopes vs bodies: cluster Alg. 1 {slope(a[:, 0], a[:, 1]):.2f}, "
          f"dense projection {slope(a[:, 0], a[:, 2]):.2f}")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few rounds")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(2023)
    if args.quick:
        geared, fourbar, B, rounds = [2, 4], [1, 2], 8, 3
    else:
        geared, fourbar, B, rounds = [2, 4, 6, 8, 12, 16, 20, 24], [1, 2, 4, 6, 8, 12], 40, 9
    print("Forward dynamics (per state, batches of", B, "states); relative cost = baseline / "
          "cluster − 1")
    print("geared rotor chains (n links, n clusters of link + rotor):")
    run("geared", geared, B, rng, rounds)
    print("stacks of four-bar loops (n loops, n clusters of 3 bodies, depth n):")
    run("fourbar", fourbar, B, rng, rounds)
    print("Coriolis matrix C̄ = GᵀCG + GᵀHĠ (Levi-Civita), per state; relative cost = "
          "projection / cluster − 1")
    print("geared rotor chains:")
    run_coriolis("geared", geared, B, rng, rounds)
    print("stacks of four-bar loops:")
    run_coriolis("fourbar", fourbar, B, rng, rounds)


if __name__ == "__main__":
    main()
