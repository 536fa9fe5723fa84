"""Seed 001 reproduced: Table 1 and Figs. 2–4 (Coriolis matrix and Christoffel symbols).

S. Echeandia and P. M. Wensing, *Numerical Methods to Compute the Coriolis Matrix and
Christoffel Symbols for Rigid-Body Systems* (seed 001), §5, time Algorithm 1 (the Coriolis
matrix C, O(Nd)) and Algorithm 2 (all Christoffel symbols Γ of the first kind, O(Nd²)) in
C/C++ (an RBDL extension, Intel i7 at 3.2 GHz, averages over 100 random states). This script
times geomech's ``coriolis_matrix`` and ``christoffel_symbols`` (one call, one state, cycling
through 8 random states) on the paper's topologies and prints

1. **Table 1** — 20-DoF serial chain, binary tree, biped and quadruped, beside the paper's
   18/10/13/10 µs (C) and 122/33/64/37 µs (Γ). The paper builds the biped and the quadruped
   as "a main body and two (four) serial-chain legs" with 20 actuated joints and does not say
   whether the main body is fixed or floating: both are timed, the floating one with a
   free-flyer joint (nv = 26) and with six 1-DoF joints P-P-P-R-R-R through massless virtual
   bodies (the form Algorithm 2 handles, nv = 26);
2. **Fig. 2** (serial chains) and **Fig. 3** (binary trees), N = 4 … 128 revolute joints: the
   times, the fitted log-log slopes against N (paper: about 2 for C and 3 for Γ on chains,
   between 1 and 2 for both on binary trees) over the whole range and the upper range, and
   against the operation counts N d (C) and N d² (Γ);
3. **Fig. 4** — biped vs quadruped with 8 … 128 actuated joints (legs of N/2 and N/4 joints;
   fixed and floating main body): the times and the quadruped : biped ratio (paper: the
   quadruped is faster for the same number of actuated joints).

4. **Γ with the block-sparse output** (``christoffel_symbols(..., sparse=True)``: only the
   triples on one root-to-leaf path, O(Nd²) numbers) on chains and binary trees of
   N = 64, 128, 256 beside the dense output, with the fitted slopes over N = 64 … 256
   (targets of issue 28: ≤ 2.3 on binary trees, ≤ 3.2 on chains) and the bytes of each
   output; and the 599-DoF chain of the hardening issue.

In 1–3, Γ is returned dense, (nv, nv, nv), zeroed and written by the kernel; the column
"floor" is the time to allocate and zero that dense array, the least a dense Γ costs. Every
model has random inertias, joint placements and revolute axes
(``geomech.multibody.io.robots.random_inertia``), as the paper's random trees.

Times are medians over interleaved rounds with their range [min–max] (the machine is
shared: see the load average printed first); the slopes, orderings and ratios use the
smallest round (``_papers.best``), the estimate of the uncontended time. ``--plot DIR``
saves Figs. 2–4 as PNG files.

Run: ``python benchmarks/bench_seed001.py [--quick] [--rounds 15] [--plot DIR] [--only-sparse]``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np
from _papers import US, best, dense_floor, fmt_us, load_average, round_robin, slope
from _timing import best_time

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import geomech as gm  # noqa: E402
from geomech.errors import GeomechError  # noqa: E402
from geomech.lie import SO3  # noqa: E402
from geomech.multibody import (  # noqa: E402
    FreeFlyer,
    MultibodyModel,
    Prismatic,
    Revolute,
    coriolis_matrix_derivative,
    robots,
)

#: seed 001 Table 1 (µs): system -> (C by Algorithm 1, Γ by Algorithm 2)
PAPER_TABLE1 = {
    "serial chain": (18.0, 122.0),
    "binary tree": (10.0, 33.0),
    "biped": (13.0, 64.0),
    "quadruped": (10.0, 37.0),
}
STATES = 8  # random states cycled through by every timed function
BATCH = 100  # states in the batched call of Table 1


# ----------------------------------------------------------------------------------------
# the paper's topologies
# ----------------------------------------------------------------------------------------
def _pose(rng):
    T = np.eye(4)
    T[:3, :3] = SO3.random(rng)
    T[:3, 3] = rng.uniform(-0.5, 0.5, 3)
    return T


def _axis(rng):
    a = rng.normal(size=3)
    return a / np.linalg.norm(a)


def legged(n_legs: int, n_joints: int, base: str = "fixed", rng=0) -> MultibodyModel:
    """A main body with ``n_legs`` serial-chain legs of ``n_joints // n_legs`` revolute joints.

    ``base``: ``"fixed"`` (the main body is the fixed base: nv = n_joints), ``"free"`` (a
    free-flyer joint into a main body of random inertia) or ``"virtual"`` (six 1-DoF joints
    P-P-P-R-R-R about the base axes through massless bodies, then the main body).
    """
    rng = np.random.default_rng(rng)
    parent, joints, inertias, placements = [], [], [], []

    def add(p, joint, inertia, placement):
        parent.append(p), joints.append(joint), inertias.append(inertia)
        placements.append(placement)
        return len(parent) - 1

    root = -1
    if base == "free":
        root = add(-1, FreeFlyer(), robots.random_inertia(rng), np.eye(4))
    elif base == "virtual":
        for e in np.eye(3):
            root = add(root, Prismatic(e), np.zeros((6, 6)), np.eye(4))
        for k, e in enumerate(np.eye(3)):
            last = k == 2
            inertia = robots.random_inertia(rng) if last else np.zeros((6, 6))
            root = add(root, Revolute(e), inertia, np.eye(4))
    for _ in range(n_legs):
        p = root
        for _ in range(n_joints // n_legs):
            p = add(p, Revolute(_axis(rng)), robots.random_inertia(rng), _pose(rng))
    return MultibodyModel.from_bodies(parent, joints, np.array(inertias), placements)


def _cycled(fun, model, with_v: bool, seed: int):
    """``fun(model, q[, v])`` cycling through STATES random states."""
    rng = np.random.default_rng(seed)
    args = [
        (model.random_configuration(rng), rng.uniform(0.0, 10.0, model.nv))
        if with_v
        else (model.random_configuration(rng),)
        for _ in range(STATES)
    ]
    it = itertools.cycle(args)
    return lambda: fun(model, *next(it))


def _sparse_gamma(model, q):
    return gm.christoffel_symbols(model, q, sparse=True)


def _functions(model, seed=0, floor=True, batch=False):
    """C (Alg. 1), Γ (Alg. 2), the dense-Γ floor and C on a batch of BATCH states."""
    funs = {
        "C": _cycled(gm.coriolis_matrix, model, True, seed),
        "Gamma": _cycled(gm.christoffel_symbols, model, False, seed),
        "Gamma sparse": _cycled(_sparse_gamma, model, False, seed),
    }
    if floor:
        funs["floor"] = dense_floor(model.nv)
    if batch:
        rng = np.random.default_rng(seed)
        Q = model.random_configuration(rng, size=BATCH)
        V = rng.uniform(0.0, 10.0, (BATCH, model.nv))
        funs["C batch"] = lambda: gm.coriolis_matrix(model, Q, V)
    return funs


def time_models(models, rounds, floor=True, batch=False):
    """Per-call times of :func:`_functions` on every model, all in one round-robin.

    Every round visits every model, so a burst of load from other processes hits all sizes of
    a series alike instead of biasing one of them (and with it a fitted slope).
    """
    funs = {}
    for i, model in enumerate(models):
        for name, fun in _functions(model, floor=floor, batch=batch).items():
            funs[i, name] = fun
    t = round_robin(funs, rounds=rounds, block=0.002)
    return [{name: t[j, name] for j, name in funs if j == i} for i in range(len(models))]


# ----------------------------------------------------------------------------------------
# 1. Table 1
# ----------------------------------------------------------------------------------------
def table1_models():
    return [
        ("serial chain", "", robots.serial_chain(20, rng=1)),
        ("binary tree", "", robots.binary_tree(20, rng=1)),
        ("biped", "fixed main body", legged(2, 20, "fixed", rng=1)),
        ("quadruped", "fixed main body", legged(4, 20, "fixed", rng=1)),
        ("biped", "free-flyer", legged(2, 20, "free", rng=1)),
        ("quadruped", "free-flyer", legged(4, 20, "free", rng=1)),
        ("biped", "6 virtual joints", legged(2, 20, "virtual", rng=1)),
        ("quadruped", "6 virtual joints", legged(4, 20, "virtual", rng=1)),
    ]


def table1(rounds):
    systems = table1_models()
    times = time_models([m for _, _, m in systems], rounds, batch=True)
    return [
        (system, base, model.nv, model.depth, t)
        for (system, base, model), t in zip(systems, times, strict=True)
    ]


def print_table1(rows):
    print("\nTable 1 — one call, µs: median [range] over rounds; paper: C/C++ on an i7 at 3.2 GHz")
    print(
        f"'C/state': per state in one call on {BATCH} states (best round), without the per-call"
        " overhead; 'floor': allocating and zeroing the dense Γ (best round)"
    )
    head = (
        f"{'system (20 actuated DoF)':<34} {'nv':>3} {'d':>3} {'C (Alg. 1)':>20} {'C/state':>7} "
        f"{'paper':>5} {'Γ (Alg. 2)':>22} {'paper':>5} {'floor':>5}"
    )
    print(head)
    print("-" * len(head))
    for system, base, nv, d, t in rows:
        label = f"{system}, {base}" if base else system
        pc, pg = PAPER_TABLE1[system]
        print(
            f"{label:<34} {nv:>3} {d:>3} {fmt_us(t['C'], 5):>20} "
            f"{best(t['C batch']) / BATCH * US:>7.1f} {pc:>5.0f} "
            f"{fmt_us(t['Gamma'], 5):>22} {pg:>5.0f} {best(t['floor']) * US:>5.1f}"
        )
    for base in ("fixed main body", "free-flyer", "6 virtual joints"):
        chosen = [r for r in rows if r[1] in ("", base)]
        for key, col in (("C batch", 0), ("Gamma", 1)):
            ours = sorted(chosen, key=lambda r, key=key: -best(r[4][key]))
            paper = sorted(chosen, key=lambda r: -PAPER_TABLE1[r[0]][col])
            same = [r[0] for r in ours] == [r[0] for r in paper]
            print(
                f"   {'C' if col == 0 else 'Γ'} ordering with the {base:<16}: "
                + " > ".join(r[0] for r in ours)
                + (
                    "   (= paper)"
                    if same
                    else "   (paper: " + " > ".join(r[0] for r in paper) + ")"
                )
            )


# ----------------------------------------------------------------------------------------
# 2.–3. Figs. 2–4: scaling
# ----------------------------------------------------------------------------------------
def counts(model):
    """Inner iterations of Alg. 1 (ancestor pairs, O(Nd)) and Alg. 2 (ancestor triples, O(Nd²))."""
    depth = np.array([len(model.supports(i)) for i in range(model.n_bodies)])
    n1 = int(depth.sum())
    n2 = int(sum(depth[model.supports(k)].sum() for k in range(model.n_bodies)))
    return n1, n2


def scaling(make, sizes, rounds, floor=True):
    models = [make(n) for n in sizes]
    times = time_models(models, rounds, floor=floor)
    print(".", end="", flush=True)
    return [(n, m.nv, m.depth, t, *counts(m)) for n, m, t in zip(sizes, models, times, strict=True)]


def cost_model(chains, trees):
    """Fit t = t0 + a N + b n1 (C) and t0 + a N + b n1 + c n2 (Γ, N <= 64) over both families.

    n1 and n2 count the inner iterations of Alg. 1 and Alg. 2 (``counts``). The fitted
    constants say where the O(Nd) and O(Nd²) terms overtake the per-call and per-body costs,
    i.e. from which size the paper's slopes can show; Γ at N = 128 is compared with the fit
    of the cache-resident sizes (its dense output is 16 MB there).
    """
    from scipy.optimize import nnls

    rows = chains + trees
    N = np.array([r[0] for r in rows], float)
    n1 = np.array([r[4] for r in rows], float)
    n2 = np.array([r[5] for r in rows], float)
    tc = np.array([best(r[3]["C"]) for r in rows])
    tg = np.array([best(r[3]["Gamma"]) for r in rows])
    print("\ncost model over chains and trees (nonnegative least squares on relative errors):")
    A = np.stack([np.ones_like(N), N, n1], -1)
    coef, _ = nnls(A / tc[:, None], np.ones_like(tc))
    t0, a, b = coef
    misfit = np.max(np.abs(A @ coef / tc - 1.0))
    d_star = a / b if b > 0 else np.inf
    print(
        f"   C: t = {t0 * US:.2f} µs + {a * 1e9:.0f} ns N + {b * 1e9:.2f} ns n1 (n1 ~ N d/2 on "
        f"chains); max misfit {misfit:.0%}; the O(Nd) term passes the O(N) one at d ~ "
        f"{2 * d_star:.0f}, the per-call cost at N d ~ {2 * t0 / b if b > 0 else np.inf:.0f}"
    )
    small = N <= 64
    A = np.stack([np.ones_like(N), N, n1, n2], -1)
    coef, _ = nnls(A[small] / tg[small, None], np.ones(small.sum()))
    t0, a, b, c = coef
    misfit = np.max(np.abs(A[small] @ coef / tg[small] - 1.0))
    print(
        f"   Γ (N <= 64): t = {t0 * US:.2f} µs + {a * 1e9:.0f} ns N + {b * 1e9:.1f} ns n1 + "
        f"{c * 1e9:.2f} ns n2 (n2 ~ N d^2/6 on chains); max misfit {misfit:.0%}"
    )
    for label, r in (("chain", chains[-1]), ("binary tree", trees[-1])):
        if r[0] > 64:
            pred = np.array([1.0, r[0], r[4], r[5]]) @ coef
            print(
                f"   Γ, {label} N = {r[0]}: measured / fitted = "
                f"{best(r[3]['Gamma']) / pred:.1f} (dense output of {r[1] ** 3 * 8 / 2**20:.0f} MB)"
            )


def fitted_slopes(rows):
    """Slopes of log t: vs N (all sizes and the upper three), vs N d (C) and N d² (Γ)."""
    N = np.array([r[0] for r in rows], float)
    d = np.array([r[2] for r in rows], float)
    tc = np.array([best(r[3]["C"]) for r in rows])
    tg = np.array([best(r[3]["Gamma"]) for r in rows])
    up = slice(-3, None)
    return {
        "C": (slope(N, tc), slope(N[up], tc[up]), slope(N * d, tc)),
        "Gamma": (slope(N, tg), slope(N[up], tg[up]), slope(N * d**2, tg)),
    }


def print_scaling(title, rows, expect):
    print(f"\n{title}")
    print(f"{'N':>4} {'nv':>4} {'d':>4} {'C (µs)':>24} {'Γ (µs)':>28} {'floor':>9}")
    for n, nv, d, t, *_ in rows:
        fl = f"{best(t['floor']) * US:9.1f}" if "floor" in t else f"{'':>9}"
        print(f"{n:>4} {nv:>4} {d:>4} {fmt_us(t['C']):>24} {fmt_us(t['Gamma'], 9):>28} {fl}")
    s = fitted_slopes(rows)
    n0, n_up = rows[0][0], rows[-3][0]
    for key, count in (("C", "N d"), ("Gamma", "N d^2")):
        a, b, c = s[key]
        print(
            f"   slope of {key:<5} vs N: {a:.2f} (N = {n0}..{rows[-1][0]}), {b:.2f} (N >= {n_up});"
            f" vs {count}: {c:.2f}   paper: {expect[key]}"
        )
    return s


# ----------------------------------------------------------------------------------------
# 4. Γ with the block-sparse output
# ----------------------------------------------------------------------------------------
#: issue 28's targets for the slope of the block-sparse Γ over N = 64 ... 256
SPARSE_TARGETS = {"chain": 3.2, "binary tree": 2.3}


def sparse_series(rounds, sizes=(64, 128, 256)):
    """Dense and block-sparse Γ on chains and binary trees: times, bytes and slopes."""
    print(f"\nΓ with the block-sparse output, N = {sizes[0]} … {sizes[-1]}", end="", flush=True)
    out, makers = (
        {},
        {
            "chain": lambda n: robots.serial_chain(n, rng=n),
            "binary tree": lambda n: robots.binary_tree(n, rng=n),
        },
    )
    for kind, make in makers.items():
        out[kind] = scaling(make, list(sizes), rounds)
    print()
    for kind, rows in out.items():
        print(f"\n{kind}s (d = {'N' if kind == 'chain' else 'floor(log2 N) + 1'})")
        print(
            f"{'N':>4} {'d':>4} {'Γ dense (µs)':>28} {'Γ sparse (µs)':>26} {'dense MB':>9} "
            f"{'sparse MB':>10} {'floor':>9}"
        )
        for n, nv, d, t, *_ in rows:
            model = (
                robots.serial_chain(n, rng=n) if kind == "chain" else robots.binary_tree(n, rng=n)
            )
            nnz = gm.christoffel_symbols(model, model.neutral(), sparse=True).nnz
            print(
                f"{n:>4} {d:>4} {fmt_us(t['Gamma'], 9):>28} {fmt_us(t['Gamma sparse'], 9):>26} "
                f"{nv**3 * 8 / 1e6:>9.2f} {nnz * 8 / 1e6:>10.2f} {best(t['floor']) * US:>9.1f}"
            )
        N = np.array([r[0] for r in rows], float)
        d = np.array([r[2] for r in rows], float)
        td = np.array([best(r[3]["Gamma"]) for r in rows])
        ts = np.array([best(r[3]["Gamma sparse"]) for r in rows])
        target = SPARSE_TARGETS[kind]
        ss = slope(N, ts)
        print(
            f"   slope vs N over N = {int(N[0])}..{int(N[-1])}: Γ sparse {ss:.2f} (target ≤ "
            f"{target}: {'met' if ss <= target else 'NOT met'}), Γ dense {slope(N, td):.2f}; "
            f"vs N d^2: sparse {slope(N * d**2, ts):.2f}"
        )
        # CPU time (best of 5): a loaded machine stretches the wall time of long calls more
        cpu = []
        for n in N.astype(int):
            model = makers[kind](n)
            q = model.random_configuration(np.random.default_rng(n))
            cpu.append(
                best_time(
                    lambda m=model, q=q: gm.christoffel_symbols(m, q, sparse=True),
                    5,
                    clock=time.process_time,
                )
            )
        print(
            "   Γ sparse, CPU time (best of 5): "
            + ", ".join(f"{t * US:.1f}" for t in cpu)
            + f" µs; slope {slope(N, np.array(cpu)):.2f}"
        )
    return out


def long_chain(n=599):
    """The hardening issue's chain: what the dense, the block-sparse Γ and the contractions cost.

    Each is called once (after a warm-up on a 4-DoF chain); ``peak`` is the largest memory
    numpy and Python held during the call (``tracemalloc``).
    """
    import tracemalloc

    funs = {
        "Γ dense": lambda m, q, v: gm.christoffel_symbols(m, q),
        "Γ block-sparse": lambda m, q, v: gm.christoffel_symbols(m, q, sparse=True),
        "C = Γ·ν (coriolis_matrix)": lambda m, q, v: gm.coriolis_matrix(m, q, v),
        "C ν = νᵀΓν (rnea, g = 0)": lambda m, q, v: gm.rnea(m, q, v, 0 * v, gravity=0 * v[:3]),
        "dC/dq·δq": lambda m, q, v: coriolis_matrix_derivative(m, q, v, v),
    }
    rng = np.random.default_rng(0)
    small = robots.serial_chain(4, rng=0)
    for fun in funs.values():
        fun(small, small.neutral(), np.ones(4))
    model = robots.serial_chain(n, rng=0)
    q, v = model.random_configuration(rng), rng.uniform(-1.0, 1.0, model.nv)
    print(f"\n{n}-DoF chain (every triple on the one path: nnz = nv^3 = {n**3:,})")
    for label, fun in funs.items():
        tracemalloc.start()
        t0 = time.perf_counter()
        try:
            fun(model, q, v)
            what = f"{(time.perf_counter() - t0) * 1e3:9.1f} ms"
        except GeomechError as e:
            what = f"refused: {type(e).__name__}: {str(e)[:90]}"
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"   {label:<28} {what}; peak {peak / 2**20:8.1f} MiB")


def plot(figures, directory):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for name, (title, series) in figures.items():
        fig, ax = plt.subplots(figsize=(5.5, 4))
        for label, rows, style in series:
            N = np.array([r[0] for r in rows], float)
            for key, marker in (("C", "o"), ("Gamma", "s")):
                t = np.array([best(r[3][key]) for r in rows]) * US
                sym = "C" if key == "C" else "Γ"
                ax.loglog(
                    N,
                    t,
                    style + marker,
                    label=f"{sym}, {label} (slope {slope(N[-3:], t[-3:]):.1f}, last 3 sizes)",
                )
        sizes = [int(r[0]) for r in series[0][1]]
        ax.set_xticks(sizes, [str(n) for n in sizes])
        ax.minorticks_off()
        ax.set_xlabel("number of joint DoF N")
        ax.set_ylabel("time per call (µs)")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = directory / f"seed001_{name}.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        print(f"saved {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N <= 32, 5 rounds: a smoke run")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds per model")
    parser.add_argument("--plot", metavar="DIR", help="save Figs. 2-4 as PNG files in DIR")
    parser.add_argument(
        "--only-sparse", action="store_true", help="only part 4 (Γ block-sparse, N = 64..256)"
    )
    args = parser.parse_args(argv)
    rounds = 5 if args.quick else args.rounds
    t_start = time.perf_counter()
    print(f"geomech {gm.__version__}, numpy {np.__version__}; {load_average()}")
    if args.only_sparse:
        sparse_series(rounds, (32, 64, 128) if args.quick else (64, 128, 256))
        if not args.quick:
            long_chain()
        print(f"\n{load_average()}; total benchmark time {time.perf_counter() - t_start:.0f} s")
        return

    print_table1(table1(rounds))

    sizes = [4, 8, 16, 32] if args.quick else [4, 8, 16, 32, 64, 128]
    print("\nFigs. 2–3 — scaling (one call)", end="", flush=True)
    chains = scaling(lambda n: robots.serial_chain(n, rng=n), sizes, rounds)
    trees = scaling(lambda n: robots.binary_tree(n, rng=n), sizes, rounds)
    print_scaling(
        "Fig. 2 — serial chains, revolute joints (d = N)",
        chains,
        {"C": "~2 (O(N^2))", "Gamma": "~3 (O(N^3))"},
    )
    print_scaling(
        "Fig. 3 — binary trees, revolute joints (d = floor(log2 N) + 1)",
        trees,
        {"C": "between 1 and 2 (O(N log N))", "Gamma": "between 1 and 2 (O(N log^2 N))"},
    )
    cost_model(chains, trees)

    legs = [8, 16, 32] if args.quick else [8, 16, 32, 64, 128]
    print("\nFig. 4 — biped vs quadruped (one call)", end="", flush=True)
    fig4 = {}
    for base in ("fixed", "free"):
        for n_legs, name in ((2, "biped"), (4, "quadruped")):
            fig4[name, base] = scaling(
                lambda n, k=n_legs, b=base: legged(k, n, b, rng=n), legs, rounds, floor=False
            )
    for base, label in (("fixed", "fixed main body"), ("free", "free-flyer main body")):
        for name in ("biped", "quadruped"):
            print_scaling(
                f"Fig. 4 — {name}, {label}",
                fig4[name, base],
                {"C": "(not stated)", "Gamma": "(not stated)"},
            )
        bi, quad = fig4["biped", base], fig4["quadruped", base]
        ratios = [
            (b[0], best(qd[3]["C"]) / best(b[3]["C"]), best(qd[3]["Gamma"]) / best(b[3]["Gamma"]))
            for b, qd in zip(bi, quad, strict=True)
        ]
        print(
            f"   quadruped / biped time, {label} (paper: < 1): "
            + ", ".join(f"N = {n}: C {c:.2f}, Γ {g:.2f}" for n, c, g in ratios)
        )

    sparse_series(rounds, (32, 64, 128) if args.quick else (64, 128, 256))
    if not args.quick:
        long_chain()

    if args.plot:
        plot(
            {
                "fig2_chains": ("Fig. 2: serial chains", [("chain", chains, "-")]),
                "fig3_binary_trees": ("Fig. 3: binary trees", [("binary tree", trees, "-")]),
                "fig4_biped_quadruped": (
                    "Fig. 4: biped vs quadruped (fixed main body)",
                    [
                        ("biped", fig4["biped", "fixed"], "-"),
                        ("quadruped", fig4["quadruped", "fixed"], "--"),
                    ],
                ),
            },
            args.plot,
        )
    print(f"\n{load_average()}; total benchmark time {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":
    main()
