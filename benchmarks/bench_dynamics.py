"""geomech vs Pinocchio: per-call time of RNEA, CRBA and ABA.

For the built-in humanoid and for serial chains and binary trees of 16-128 bodies, prints

* ``single``: time of one call with one state (geomech: Python loop over bodies, numpy per
  body; Pinocchio: C++ through its Python binding), best of several repeats;
* ``batch/cfg``: geomech evaluating a batch of 1000 states in ONE call, divided by 1000,
  vs a Python loop of 1000 Pinocchio calls (inputs pre-converted), divided by 1000.

Both libraries run on the same models (converted joint by joint by the test bridge) and the
results are checked to agree before timing. Run: ``python benchmarks/bench_dynamics.py``
(add ``--quick`` for a smoke run with small sizes).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pinocchio as pin

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "multibody"))

from _timing import best_time  # noqa: E402
from pinocchio_bridge import to_pinocchio  # noqa: E402

from geomech.multibody import robots  # noqa: E402
from geomech.multibody.dynamics import aba, crba, rnea  # noqa: E402

BATCH = 1000


def models(quick: bool):
    sizes = [16, 32] if quick else [16, 32, 64, 128]
    yield "humanoid", robots.humanoid()
    for n in sizes:
        yield f"chain-{n}", robots.serial_chain(n, rng=0)
    for n in sizes:
        yield f"tree-{n}", robots.binary_tree(n, rng=0)


def bench_model(name, model, rng, batch):
    bridge = to_pinocchio(model)
    pm, pd = bridge.pin_model, bridge.pin_data
    Q = model.random_configuration(rng, size=batch)
    V = rng.normal(size=(batch, model.nv))
    A = rng.normal(size=(batch, model.nv))
    Qp, Vp, Ap = bridge.q_to_pin(Q), bridge.v_to_pin(V), bridge.v_to_pin(A)
    TAU = rnea(model, Q, V, A)
    TAUp = bridge.v_to_pin(TAU)
    q, v, a, tau = Q[0], V[0], A[0], TAU[0]
    qp, vp, ap, taup = Qp[0], Vp[0], Ap[0], TAUp[0]
    # agreement check before timing
    assert np.allclose(bridge.rnea(q, v, a), tau, rtol=1e-9, atol=1e-9)
    assert np.allclose(bridge.crba(q), crba(model, q), rtol=1e-9, atol=1e-9)

    cases = {
        "rnea": (
            lambda: rnea(model, q, v, a),
            lambda: rnea(model, Q, V, A),
            lambda: pin.rnea(pm, pd, qp, vp, ap),
            lambda: [pin.rnea(pm, pd, Qp[k], Vp[k], Ap[k]) for k in range(batch)],
        ),
        "crba": (
            lambda: crba(model, q),
            lambda: crba(model, Q),
            lambda: pin.crba(pm, pd, qp),
            lambda: [pin.crba(pm, pd, Qp[k]) for k in range(batch)],
        ),
        "aba": (
            lambda: aba(model, q, v, tau),
            lambda: aba(model, Q, V, TAU),
            lambda: pin.aba(pm, pd, qp, vp, taup),
            lambda: [pin.aba(pm, pd, Qp[k], Vp[k], TAUp[k]) for k in range(batch)],
        ),
    }
    rows = []
    for alg, (gm1, gmB, pin1, pinB) in cases.items():
        t_gm1 = best_time(gm1)
        t_pin1 = best_time(pin1)
        t_gmB = best_time(gmB, repeat=2, min_total=0.6) / batch
        t_pinB = best_time(pinB, repeat=2, min_total=0.6) / batch
        rows.append(
            (name, model.n_bodies, model.nv, model.depth, alg, t_gm1, t_pin1, t_gmB, t_pinB)
        )
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    batch = 100 if args.quick else BATCH
    print(f"geomech vs Pinocchio {pin.__version__}, numpy {np.__version__}; times in microseconds")
    print(
        f"single = one call; batch/cfg = (one geomech call on {batch} states | loop of {batch} "
        "Pinocchio calls) / " + str(batch)
    )
    header = (
        f"{'model':<10} {'N':>4} {'nv':>4} {'d':>4} {'alg':<5} "
        f"{'gm single':>10} {'pin single':>10} {'ratio':>7} "
        f"{'gm batch/cfg':>13} {'pin loop/cfg':>13} {'ratio':>7}"
    )
    print(header)
    print("-" * len(header))
    t_start = time.perf_counter()
    for name, model in models(args.quick):
        for row in bench_model(name, model, rng, batch):
            name_, n, nv, d, alg, t_gm1, t_pin1, t_gmB, t_pinB = row
            print(
                f"{name_:<10} {n:>4} {nv:>4} {d:>4} {alg:<5} "
                f"{t_gm1 * 1e6:>10.1f} {t_pin1 * 1e6:>10.2f} {t_gm1 / t_pin1:>7.0f} "
                f"{t_gmB * 1e6:>13.2f} {t_pinB * 1e6:>13.2f} {t_gmB / t_pinB:>7.1f}",
                flush=True,
            )
    print(f"total benchmark time {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":
    main()
