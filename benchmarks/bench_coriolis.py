"""Scaling of the Coriolis matrix (seed 000 Alg. 1, O(Nd)) and Christoffel symbols (Alg. 2,
O(Nd^2)).

For serial chains (depth d = N) and binary trees (d = floor(log2 N) + 1) with N = 16 ... 256
revolute joints, prints the time of one evaluation, the ratio t(N) / t(N/2), and the fitted
log-log slopes:

* of t against N over the whole range and over N >= 64 (chains: expect 2 for Alg. 1 and 3 for
  Alg. 2; binary trees: a little above 1, the log factors), the lower-order O(N) passes
  (kinematics, body factors, composite inertias) flattening the small-N end;
* of t against the operation count N d (Alg. 1) and N d^2 (Alg. 2), expect 1 for both
  families (seed 001 Figs. 2-3, seed 000 §VI).

Alg. 2 is timed with the dense (nv, nv, nv) output and with the block-sparse one
(``christoffel_symbols(..., sparse=True)``, the O(Nd^2) triples on one root-to-leaf path);
issue 28's targets for the block-sparse slope over N = 64 ... 256 are <= 3.2 on chains and
<= 2.3 on binary trees.

A joint least-squares fit over both families of ``t = a N + b n1`` (Alg. 1) and
``t = a N + b n1 + c n2`` (Alg. 2), with ``n1``, ``n2`` the exact inner-iteration counts
(``~ N d / 2`` and ``~ N d^2 / 6`` on chains), shows one set of constants explains both.

Finally the ratio of geomech's ``coriolis_matrix`` to Pinocchio's ``computeCoriolisMatrix``
on the built-in humanoid (floating base, nv = 30), single state and a batch of 1000 states.

Run: ``python benchmarks/bench_coriolis.py [--max-n 256] [--repeat 3] [--quick]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from _timing import best_time, slope
from scipy.optimize import nnls

from geomech.multibody import robots
from geomech.multibody.algorithms.christoffel import christoffel_symbols
from geomech.multibody.algorithms.coriolis import coriolis_matrix


def scaling(kind, sizes, repeat):
    rows = []
    for N in sizes:
        model = robots.serial_chain(N, rng=0) if kind == "chain" else robots.binary_tree(N, rng=0)
        rng = np.random.default_rng(N)
        q = model.random_configuration(rng)
        v = rng.uniform(-1.0, 1.0, model.nv)
        coriolis_matrix(model, q, v)  # warm up
        t1 = best_time(lambda model=model, q=q, v=v: coriolis_matrix(model, q, v), repeat)
        t2 = best_time(lambda model=model, q=q: christoffel_symbols(model, q), repeat)
        t3 = best_time(lambda model=model, q=q: christoffel_symbols(model, q, sparse=True), repeat)
        depth = np.array([len(model.supports(i)) for i in range(N)])
        n1 = int(depth.sum())  # inner iterations of Alg. 1: sum_j |supports(j)|
        n2 = int(sum(depth[model.supports(k)].sum() for k in range(N)))  # of Alg. 2
        rows.append((N, model.depth, t1, t2, n1, n2, t3))
    print(f"\n{kind}s (revolute joints)", flush=True)
    print(
        f"{'N':>5} {'d':>4} {'Alg.1 [ms]':>11} {'ratio':>6} {'Alg.2 [ms]':>11} {'ratio':>6} "
        f"{'Alg.2 sparse':>12} {'ratio':>6}"
    )
    prev = None
    for N, d, t1, t2, _, _, t3 in rows:
        r1 = f"{t1 / prev[0]:6.2f}" if prev else f"{'':>6}"
        r2 = f"{t2 / prev[1]:6.2f}" if prev else f"{'':>6}"
        r3 = f"{t3 / prev[2]:6.2f}" if prev else f"{'':>6}"
        print(f"{N:5d} {d:4d} {1e3 * t1:11.3f} {r1} {1e3 * t2:11.3f} {r2} {1e3 * t3:12.3f} {r3}")
        prev = (t1, t2, t3)
    N, d, t1, t2, _, _, t3 = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    big = N >= N[-1] / 4  # the upper range (last three sizes), where the leading term dominates
    s = {
        "alg1_vs_N": slope(N, t1),
        "alg2_vs_N": slope(N, t2),
        "alg1_vs_N_upper": slope(N[big], t1[big]),
        "alg2_vs_N_upper": slope(N[big], t2[big]),
        "alg1_vs_Nd": slope(N * d, t1),
        "alg2_vs_Nd2": slope(N * d**2, t2),
        "sparse_vs_N_upper": slope(N[big], t3[big]),
        "sparse_vs_Nd2": slope(N * d**2, t3),
    }
    print(
        f"fitted log-log slopes vs N, N = {int(N[0])}..{int(N[-1])}: Alg.1 {s['alg1_vs_N']:.2f}, "
        f"Alg.2 {s['alg2_vs_N']:.2f};  N >= {int(N[big][0])}: Alg.1 {s['alg1_vs_N_upper']:.2f}, "
        f"Alg.2 {s['alg2_vs_N_upper']:.2f}"
    )
    print(
        f"fitted slopes vs the operation counts: Alg.1 vs N d {s['alg1_vs_Nd']:.2f}, "
        f"Alg.2 vs N d^2 {s['alg2_vs_Nd2']:.2f}  (1 = linear in the count)"
    )
    target = 3.2 if kind == "chain" else 2.3
    print(
        f"Alg.2 block-sparse: slope vs N over N >= {int(N[big][0])} "
        f"{s['sparse_vs_N_upper']:.2f} (issue 28 target <= {target}), vs N d^2 "
        f"{s['sparse_vs_Nd2']:.2f}"
    )
    return rows, s


def cost_model(rows):
    """Fit t = a N + b n1 (Alg. 1) and t = a N + b n1 + c n2 (Alg. 2) over chains and trees.

    n1 = sum_j |supports(j)| and n2 = sum_k sum_{j in supports(k)} |supports(j)| count the
    inner iterations of the pseudocode (O(Nd) and O(Nd^2)); one set of constants for both
    families means the cost is that count.
    """
    N, _, t1, t2, n1, n2, _ = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    print("\ncost model over chains and trees together (nonnegative least squares, relative):")
    for label, t, cols, names in (
        ("Alg.1", t1, [N, n1], ["a N", "b n1"]),
        ("Alg.2", t2, [N, n1, n2], ["a N", "b n1", "c n2"]),
    ):
        A = np.stack(cols, -1) / t[:, None]
        coef, _ = nnls(A, np.ones_like(t))  # nonnegative costs per unit
        fit = np.stack(cols, -1) @ coef
        terms = ", ".join(f"{n[0]} = {1e6 * c:.2f} us" for n, c in zip(names, coef, strict=True))
        misfit = np.max(np.abs(fit / t - 1.0))
        print(f"  {label}: t = {' + '.join(names)} with {terms}; max relative misfit {misfit:.0%}")


def versus_pinocchio(repeat):
    try:
        import pinocchio as pin
    except ImportError:
        print("\npinocchio not installed: skipping the comparison")
        return None
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "multibody"))
    from geomech.interop.pinocchio import PinocchioBridge

    model = robots.humanoid()
    bridge = PinocchioBridge(model)
    rng = np.random.default_rng(0)
    q = model.random_configuration(rng)
    v = rng.uniform(-1.0, 1.0, model.nv)
    qp, vp = bridge.q_to_pin(q), bridge.v_to_pin(v)
    C_pin = bridge.matrix_from_pin(
        pin.computeCoriolisMatrix(bridge.pin_model, bridge.pin_data, qp, vp)
    )
    err = np.max(np.abs(coriolis_matrix(model, q, v) - C_pin)) / np.max(np.abs(C_pin))
    reps = 2000
    t_pin = (
        best_time(
            lambda: [
                pin.computeCoriolisMatrix(bridge.pin_model, bridge.pin_data, qp, vp)
                for _ in range(reps)
            ],
            repeat,
        )
        / reps
    )
    t_gm = best_time(lambda: coriolis_matrix(model, q, v), max(repeat, 5))
    B = 1000
    qB = model.random_configuration(rng, size=B)
    vB = rng.uniform(-1.0, 1.0, (B, model.nv))
    t_gm_batch = best_time(lambda: coriolis_matrix(model, qB, vB), repeat) / B
    t_alg2 = best_time(lambda: christoffel_symbols(model, q), max(repeat, 5))
    print(
        f"\nbuilt-in humanoid (nv = {model.nv}, N = {model.n_bodies}, d = {model.depth}); "
        f"max relative difference to Pinocchio {err:.1e}"
    )
    print(f"  Pinocchio computeCoriolisMatrix      {1e6 * t_pin:10.1f} us")
    print(
        f"  geomech coriolis_matrix (1 state)    {1e6 * t_gm:10.1f} us   ratio {t_gm / t_pin:7.1f}"
    )
    print(
        f"  geomech coriolis_matrix (batch 1000) {1e6 * t_gm_batch:10.1f} us/state   "
        f"ratio {t_gm_batch / t_pin:7.1f}"
    )
    print(f"  geomech christoffel_symbols          {1e6 * t_alg2:10.1f} us")
    return t_gm / t_pin, t_gm_batch / t_pin


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="N <= 64 only, for a smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        args.max_n = min(args.max_n, 64)
    sizes = [n for n in (16, 32, 64, 128, 256, 512) if n <= args.max_n]
    rows = []
    for kind in ("chain", "tree"):
        rows += scaling(kind, sizes, args.repeat)[0]
    cost_model(rows)
    versus_pinocchio(args.repeat)


if __name__ == "__main__":
    main()
