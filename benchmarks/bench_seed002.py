"""Seed 002 reproduced: Fig. 3 (IDSVA vs AD on chains and binary trees) and Fig. 4 (robots).

S. Singh, R. P. Russell and P. M. Wensing, *Analytical Second-Order Partial Derivatives of
Rigid-Body Inverse Dynamics* (seed 002), §V, time the second-order (SO) partials of inverse
dynamics by IDSVA (their Algorithm 1, O(Nd²)) two ways:

* **Fig. 3** — in MATLAB against automatic differentiation in CasADi (the Jacobian of the
  first-order partials, evaluated in CasADi's virtual machine) on serial chains and on binary
  trees (branching factor 2) of revolute joints: "IDSVA outperforms AD for all N [on chains],
  with speedups between 1.5 and 3× for models with N > 5"; on binary trees "the critical N
  lies at N = 70", beyond which AD is faster;
* **Fig. 4** — in C/C++ inside Pinocchio (Intel i5-12400 at 2.5 GHz, turbo off), RNEA,
  IDSVA FO and IDSVA SO on UR3 and Baxter (fixed base), HyQ, ATLAS and Talos (floating base):
  "the ratio of run-times for SO to FO derivatives increases with N", and the SO partials of
  the 18-DoF HyQ take 51 µs. The bar heights are not in the text: only the 51 µs is.

This script prints

1. **Fig. 3** (printed second) — per N: the CasADi build time, one evaluation of CasADi's SO
   partials (the Hessian of a symbolic RNEA in the (q, q̇) variables and ∂M/∂q, SX virtual
   machine; optional, ``pip install casadi``), one call of ``rnea_second_derivatives`` with
   the dense output and with the block-sparse output (``sparse=True``), and the speed-ups
   AD / IDSVA, after checking that the two agree; then where the speed-up falls below 1 (the
   crossover) for each family and output, or the trend of the last sizes when it does not;
2. **Fig. 4** (printed first) — per robot of example-robot-data (the paper's set as far as it
   has it: ``ur3_robot`` and geomech's ``ur5``, ``baxter``, ``hyq_no_sensors``,
   ``g1_29dof_rev_1_0`` as an ATLAS-like humanoid — 29 revolute joints on a floating pelvis,
   ATLAS has 30 — and ``talos_reduced``): one call of geomech's RNEA, IDSVA FO and IDSVA SO
   (dense and block-sparse), Pinocchio's C++ RNEA and first-order derivatives (the paper's
   host library), and the ratios SO : FO and FO : RNEA beside the paper's.

Times are medians over interleaved rounds with their range [min–max] (the machine is shared:
see the load average); speed-ups and ratios use the smallest round (``_papers.best``).

Run: ``python benchmarks/bench_seed002.py [--quick] [--max-chain 32] [--max-tree 127]``.
CasADi's symbolic Hessian grows fast on chains (n · 2n · 2n entries, about N³ instructions): on
the development machine the chain of 32 builds in 25-30 s and 2 GB, 48 in 70 s and 7 GB,
63 in 3 min and 15 GB (so the default stops at 32); N = 127 is out of reach. The binary tree
of 127 builds in 30-50 s and 1 GB.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from _papers import best, fmt_us, load_average, round_robin, slope

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import geomech as gm  # noqa: E402
from geomech.multibody import robots  # noqa: E402

STATES = 8  # random states cycled through by every timed function
#: seed 002's statements on Fig. 3 (its curves are images)
PAPER_FIG3 = {
    "chain": "IDSVA faster for all N, speed-up 1.5-3x for N > 5",
    "binary tree": "AD faster beyond N = 70",
}
#: seed 002 Fig. 4's robots -> the model timed here (None: the paper's value only)
FIG4_ROBOTS = [
    ("UR3", "ur3_robot"),
    ("(UR5)", "ur5"),
    ("Baxter", "baxter"),
    ("HyQ", "hyq_no_sensors"),
    ("ATLAS-like", "g1_29dof_rev_1_0"),
    ("Talos", "talos_reduced"),
]
PAPER_FIG4 = {"HyQ": "SO 51 µs (C++)"}


def _states(model, seed, n=STATES):
    rng = np.random.default_rng(seed)
    return [
        (model.random_configuration(rng), rng.normal(size=model.nv), rng.normal(size=model.nv))
        for _ in range(n)
    ]


def _cycled(fun, states):
    it = itertools.cycle(states)
    return lambda: fun(*next(it))


# ----------------------------------------------------------------------------------------
# 1. Fig. 3: IDSVA vs AD (CasADi)
# ----------------------------------------------------------------------------------------
def _casadi_function(model):
    """CasADi's SO partials of the model's RNEA (``bench_derivatives.casadi_rnea``)."""
    from bench_derivatives import casadi_rnea

    return casadi_rnea(model)


def _check(fun, model, q, v, a):
    """CasADi's tensors against IDSVA SO (the layouts of ``bench_derivatives._casadi_row``)."""
    n = model.nv
    Hx, dM = (np.array(x) for x in fun(q, v, a))
    H = Hx.reshape(2 * n, n, 2 * n).transpose(1, 0, 2)  # column-major vec -> [τ, x, x]
    so = gm.rnea_second_derivatives(model, q, v, a)
    scale = max(1.0, float(np.abs(so.d2tau_dq2).max()))
    errs = [
        np.abs(H[:, :n, :n] - so.d2tau_dq2).max(),
        np.abs(H[:, n:, n:] - so.d2tau_dv2).max(),
        np.abs(H[:, :n, n:] - so.d2tau_dqdv).max(),
        np.abs(dM.reshape(n, n, n).transpose(1, 0, 2) - so.dM_dq).max(),
    ]
    return max(errs) / scale


def fig3_row(model, rounds, with_ad):
    states = _states(model, model.nv)
    funs = {
        "dense": _cycled(lambda q, v, a: gm.rnea_second_derivatives(model, q, v, a), states),
        "sparse": _cycled(
            lambda q, v, a: gm.rnea_second_derivatives(model, q, v, a, sparse=True), states
        ),
    }
    build, err = np.nan, np.nan
    if with_ad:
        t0 = time.perf_counter()
        fun = _casadi_function(model)
        build = time.perf_counter() - t0
        err = _check(fun, model, *states[0])
        funs["AD"] = _cycled(fun, states)
    t = round_robin(funs, rounds=rounds, block=0.002 if model.nv < 64 else 0.01)
    return model.nv, model.depth, build, err, t


def fig3(chain_sizes, tree_sizes, rounds, with_ad):
    out = {}
    for family, make, sizes in (
        ("chain", lambda n: robots.serial_chain(n, rng=n), chain_sizes),
        ("binary tree", lambda n: robots.binary_tree(n, rng=n), tree_sizes),
    ):
        rows = []
        for n in sizes:
            rows.append((n, *fig3_row(make(n), rounds, with_ad)))
            print(".", end="", flush=True)
        out[family] = rows
    print()
    return out


def crossover(rows, key):
    """Where AD / IDSVA ``key`` falls below 1, or the trend of the last three sizes."""
    N = np.array([r[0] for r in rows], float)
    speedup = np.array([best(r[5]["AD"]) / best(r[5][key]) for r in rows])
    below = np.nonzero(speedup < 1.0)[0]
    if below.size:
        return f"AD faster from N = {int(N[below[0]])} (speed-up {speedup[below[0]]:.2f})"
    if len(rows) < 3:
        return f"IDSVA faster up to N = {int(N[-1])}"
    s = slope(N[-3:], speedup[-3:])
    if s >= 0:
        return f"IDSVA faster up to N = {int(N[-1])}; speed-up growing (slope {s:+.2f})"
    n_cross = N[-1] * speedup[-1] ** (-1.0 / s)
    where = (
        f"crossing 1 near N = {n_cross:.0f} if the trend held"
        if n_cross < 4 * N[-1]
        else "no crossing within 4x the largest N at that rate"
    )
    return f"IDSVA faster up to N = {int(N[-1])}; speed-up falls as N^{s:.2f}, {where}"


def print_fig3(results, with_ad):
    print(
        "\nFig. 3 — SO partials, one call, µs: median [range]; speed-up = AD / IDSVA (best round)"
    )
    for family, rows in results.items():
        print(f"\n{family}s (revolute joints); paper: {PAPER_FIG3[family]}")
        head = (
            f"{'N':>4} {'d':>4} {'build s':>8} {'max err':>8} {'AD (CasADi VM)':>26} "
            f"{'IDSVA dense':>24} {'IDSVA sparse':>22} {'x dense':>8} {'x sparse':>9}"
        )
        print(head)
        for n, _nv, d, build, err, t in rows:
            ad = fmt_us(t["AD"], 9) if with_ad else "—"
            sd = f"{best(t['AD']) / best(t['dense']):8.1f}" if with_ad else f"{'—':>8}"
            ss = f"{best(t['AD']) / best(t['sparse']):9.1f}" if with_ad else f"{'—':>9}"
            print(
                f"{n:>4} {d:>4} {build:>8.1f} {err:>8.0e} {ad:>26} {fmt_us(t['dense'], 8):>24} "
                f"{fmt_us(t['sparse'], 8):>22} {sd} {ss}"
            )
        if with_ad:
            for key in ("dense", "sparse"):
                print(f"   crossover, {key} output: {crossover(rows, key)}")
        N = np.array([r[0] for r in rows], float)
        for key in ("dense", "sparse") + (("AD",) if with_ad else ()):
            t = np.array([best(r[5][key]) for r in rows])
            print(
                f"   slope of {key:<6} vs N over the last three sizes: {slope(N[-3:], t[-3:]):.2f}"
            )


# ----------------------------------------------------------------------------------------
# 2. Fig. 4: robots
# ----------------------------------------------------------------------------------------
def fig4_row(model, rounds):
    states = _states(model, 4)
    funs = {
        "RNEA": _cycled(lambda q, v, a: gm.rnea(model, q, v, a), states),
        "FO": _cycled(lambda q, v, a: gm.rnea_derivatives(model, q, v, a), states),
        "SO dense": _cycled(lambda q, v, a: gm.rnea_second_derivatives(model, q, v, a), states),
        "SO sparse": _cycled(
            lambda q, v, a: gm.rnea_second_derivatives(model, q, v, a, sparse=True), states
        ),
    }
    try:
        import pinocchio as pin

        from geomech.interop.pinocchio import PinocchioBridge

        bridge = PinocchioBridge(model)
        pm, pd = bridge.pin_model, bridge.pin_data
        pstates = [
            (bridge.q_to_pin(q), bridge.v_to_pin(v), bridge.v_to_pin(a)) for q, v, a in states
        ]
        tau = gm.rnea(model, *states[0])
        assert np.allclose(bridge.v_to_pin(tau), pin.rnea(pm, pd, *pstates[0]), atol=1e-8)
        funs["pin RNEA"] = _cycled(lambda q, v, a: pin.rnea(pm, pd, q, v, a), pstates)
        funs["pin FO"] = _cycled(
            lambda q, v, a: pin.computeRNEADerivatives(pm, pd, q, v, a), pstates
        )
    except ImportError:
        pass
    return round_robin(funs, rounds=rounds, block=0.002)


def fig4(rounds):
    rows = []
    for label, name in FIG4_ROBOTS:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = robots.load(name)
        except Exception as exc:  # noqa: BLE001 — a robot missing here is reported, not fatal
            print(f"   {label} ({name}): not loaded ({type(exc).__name__}: {exc})")
            continue
        floating = model.nq != model.nv or type(model.joints[0]).__name__ == "FreeFlyer"
        rows.append((label, name, model.n_bodies, model.nv, model.depth, floating,
                     fig4_row(model, rounds)))  # fmt: skip
        print(".", end="", flush=True)
    print()
    return rows


def print_fig4(rows):
    print(
        "\nFig. 4 — one call, µs: median [range]; ratios from the best round; "
        "paper: C++ in Pinocchio, bars not in the text"
    )
    head = (
        f"{'robot':<11} {'model':<17} {'N':>3} {'nv':>3} {'d':>3} {'base':<5} "
        f"{'RNEA':>18} {'IDSVA FO':>19} {'IDSVA SO dense':>22} {'IDSVA SO sparse':>22} "
        f"{'pin RNEA':>16} {'pin FO':>17}"
    )
    print(head)
    print("-" * len(head))
    for label, name, N, nv, d, floating, t in rows:
        pin_cols = (
            f"{fmt_us(t['pin RNEA'], 5):>16} {fmt_us(t['pin FO'], 6):>17}"
            if "pin FO" in t
            else f"{'—':>16} {'—':>17}"
        )
        print(
            f"{label:<11} {name:<17} {N:>3} {nv:>3} {d:>3} {'float' if floating else 'fixed':<5} "
            f"{fmt_us(t['RNEA'], 5):>18} {fmt_us(t['FO'], 6):>19} {fmt_us(t['SO dense'], 7):>22} "
            f"{fmt_us(t['SO sparse'], 7):>22} {pin_cols}"
        )
    print("\nratios (best rounds); paper: SO : FO grows with N (the depth d), HyQ SO = 51 µs")
    print(
        f"{'robot':<11} {'nv':>3} {'d':>3} {'SO dense : FO':>14} {'SO sparse : FO':>15} "
        f"{'FO : RNEA':>10} {'pin FO : pin RNEA':>18} {'FO : pin FO':>12} {'paper':>18}"
    )
    for label, _name, _N, nv, d, _f, t in rows:
        pin_r = (
            f"{best(t['pin FO']) / best(t['pin RNEA']):>18.1f} "
            f"{best(t['FO']) / best(t['pin FO']):>12.1f}"
            if "pin FO" in t
            else f"{'—':>18} {'—':>12}"
        )
        print(
            f"{label:<11} {nv:>3} {d:>3} {best(t['SO dense']) / best(t['FO']):>14.1f} "
            f"{best(t['SO sparse']) / best(t['FO']):>15.1f} "
            f"{best(t['FO']) / best(t['RNEA']):>10.1f} {pin_r} {PAPER_FIG4.get(label, '—'):>18}"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, 5 rounds: a smoke run")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds per model")
    parser.add_argument(
        "--max-chain", type=int, default=32, help="largest chain (48: ~7 GB, 63: ~15 GB)"
    )
    parser.add_argument("--max-tree", type=int, default=127, help="largest binary tree")
    parser.add_argument("--no-ad", action="store_true", help="skip CasADi")
    args = parser.parse_args(argv)
    rounds = 5 if args.quick else args.rounds
    t_start = time.perf_counter()
    try:
        import casadi

        with_ad = not args.no_ad
        ad_version = f"casadi {casadi.__version__}"
    except ImportError:
        with_ad, ad_version = False, "casadi not installed (pip install casadi): AD skipped"
    print(f"geomech {gm.__version__}, numpy {np.__version__}, {ad_version}; {load_average()}")
    if args.quick:
        chains, trees = [4, 8, 16], [7, 15, 31]
    else:
        chains = [n for n in (4, 8, 16, 24, 32, 48, 63) if n <= args.max_chain]
        trees = [n for n in (7, 15, 31, 63, 127) if n <= args.max_tree]
    # Fig. 4 first: after CasADi's large symbolic graphs the process is slower to time
    print("\nFig. 4", end="", flush=True)
    print_fig4(fig4(rounds))

    print("\nFig. 3 (CasADi builds the symbolic Hessians first)", end="", flush=True)
    print_fig3(fig3(chains, trees, max(3, rounds // 3) if with_ad else rounds, with_ad), with_ad)
    print("   complex step: not available (the numba kernels are real-only)")
    print(f"\n{load_average()}; total benchmark time {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":
    main()
