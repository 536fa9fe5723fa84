"""geomech's compiled kernels vs Pinocchio: single calls, batches, compile and start-up time.

For the built-in humanoid (nv = 30) and a 64-body random tree mixing every joint type, prints
per algorithm (rnea, crba, aba, coriolis_matrix):

* ``single``: one call with one state, geomech vs Pinocchio (C++ through its binding), and
  their ratio;
* ``batch``: one geomech call on 1000 states vs a Python loop of 1000 Pinocchio calls (inputs
  pre-converted), per state, and the ratio;

then ``christoffel_symbols`` against the route a Python user has today (Christoffel symbols by
Koszul's formula from nv + 1 calls of ``pin.computeRNEADerivatives``), the cold compile time of all
kernels (a fresh numba cache) and the first-call time in a second process, imports included, and the
build time and memory of a 20,000-body chain. Every comparison is interleaved in the same process
(``_timing.interleaved``) and reported as the median over rounds, or with ``--stat min`` as the
fastest round of each contender over many short rounds (an estimate of the uncontended times on a
machine loaded by other processes, where medians swing by 2x; batches of 100 states then, so that a
block fits in a time slice); results are checked to agree before timing. ``--no-startup`` skips the
compile and start-up measurements (a cold compile of every kernel).

Run: ``python benchmarks/bench_kernels.py`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pinocchio as pin

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "multibody"))

from _timing import interleaved  # noqa: E402

import geomech as gm  # noqa: E402
from conftest import mixed_tree  # noqa: E402
from geomech.interop.pinocchio import PinocchioBridge  # noqa: E402
from geomech.multibody import robots  # noqa: E402

BATCH = 1000


def koszul_christoffel(pm, pd, q, nv):
    """Γ*_ijk of a model in coordinates from nv + 1 calls of ``pin.computeRNEADerivatives``.

    ``∂τ/∂q`` at ``v = 0, a = e_k`` minus its value at ``a = 0`` (gravity) is ``∂(M e_k)/∂q``,
    so ``D[i, k, j] = ∂M_ik/∂q_j``; then Γ_ijk = ½ (∂_k M_ij + ∂_j M_ik − ∂_i M_jk).
    """
    zero = np.zeros(nv)
    g_q = pin.computeRNEADerivatives(pm, pd, q, zero, zero)[0].copy()
    D = np.empty((nv, nv, nv))
    for k in range(nv):
        e = np.zeros(nv)
        e[k] = 1.0
        D[:, k, :] = pin.computeRNEADerivatives(pm, pd, q, zero, e)[0] - g_q
    return 0.5 * (D + D.transpose(0, 2, 1) - D.transpose(2, 0, 1))


def bench_model(name, model, rng, batch, rounds, stat="median"):
    bridge = PinocchioBridge(model)
    pm, pd = bridge.pin_model, bridge.pin_data
    Q = model.random_configuration(rng, size=batch)
    V = rng.normal(size=(batch, model.nv))
    A = rng.normal(size=(batch, model.nv))
    TAU = gm.rnea(model, Q, V, A)
    Qp, Vp, Ap, TAUp = (
        bridge.q_to_pin(Q),
        bridge.v_to_pin(V),
        bridge.v_to_pin(A),
        bridge.v_to_pin(TAU),
    )
    q, v, a, tau = Q[0], V[0], A[0], TAU[0]
    qp, vp, ap, taup = Qp[0], Vp[0], Ap[0], TAUp[0]
    assert np.allclose(bridge.rnea(q, v, a), tau, rtol=1e-9, atol=1e-9)
    assert np.allclose(bridge.crba(q), gm.crba(model, q), rtol=1e-9, atol=1e-9)
    cases = {
        "rnea": (
            lambda: gm.rnea(model, q, v, a),
            lambda: pin.rnea(pm, pd, qp, vp, ap),
            lambda: gm.rnea(model, Q, V, A),
            lambda: [pin.rnea(pm, pd, Qp[k], Vp[k], Ap[k]) for k in range(batch)],
        ),
        "crba": (
            lambda: gm.crba(model, q),
            lambda: pin.crba(pm, pd, qp),
            lambda: gm.crba(model, Q),
            lambda: [pin.crba(pm, pd, Qp[k]) for k in range(batch)],
        ),
        "aba": (
            lambda: gm.aba(model, q, v, tau),
            lambda: pin.aba(pm, pd, qp, vp, taup),
            lambda: gm.aba(model, Q, V, TAU),
            lambda: [pin.aba(pm, pd, Qp[k], Vp[k], TAUp[k]) for k in range(batch)],
        ),
        "coriolis": (
            lambda: gm.coriolis_matrix(model, q, v),
            lambda: pin.computeCoriolisMatrix(pm, pd, qp, vp),
            lambda: gm.coriolis_matrix(model, Q, V),
            lambda: [pin.computeCoriolisMatrix(pm, pd, Qp[k], Vp[k]) for k in range(batch)],
        ),
    }
    rows = []
    for alg, (gm1, pin1, gmB, pinB) in cases.items():
        if stat == "min":  # many short rounds
            t_gm1, t_pin1, r1 = interleaved(gm1, pin1, 20 * rounds, 0.001, stat)
            t_gmB, t_pinB, rB = interleaved(gmB, pinB, 4 * rounds, 0.001, stat)
        else:
            t_gm1, t_pin1, r1 = interleaved(gm1, pin1, rounds)
            t_gmB, t_pinB, rB = interleaved(gmB, pinB, max(3, rounds // 3), block=0.05)
        rows.append(
            (
                name,
                model.n_bodies,
                model.nv,
                alg,
                t_gm1,
                t_pin1,
                r1,
                t_gmB / batch,
                t_pinB / batch,
                rB,
            )
        )
    return rows


def bench_christoffel(model, rng, rounds, stat="median"):
    bridge = PinocchioBridge(model)
    pm, pd = bridge.pin_model, bridge.pin_data
    q = model.random_configuration(rng)
    qp = bridge.q_to_pin(q)
    P = bridge.v_to_pin(np.eye(model.nv)).T  # v_pin = P^T v... columns: pin coordinates of e_i
    G = koszul_christoffel(pm, pd, qp, model.nv)
    G_gm = np.einsum("ai,bj,ck,abc->ijk", P, P, P, G)
    assert np.allclose(G_gm, gm.christoffel_symbols(model, q), atol=1e-9)
    return interleaved(
        lambda: gm.christoffel_symbols(model, q),
        lambda: koszul_christoffel(pm, pd, qp, model.nv),
        rounds,
        stat=stat,
    )


_FIRST_CALL = """
import time
t0 = time.perf_counter()
import numpy as np
import geomech as gm
m = gm.robots.humanoid()
q, v = m.neutral(), np.zeros(m.nv)
for f in (lambda: gm.rnea(m, q, v, v), lambda: gm.crba(m, q), lambda: gm.aba(m, q, v, v),
          lambda: gm.coriolis_matrix(m, q, v), lambda: gm.christoffel_symbols(m, q),
          lambda: m.integrate(q, v), lambda: m.difference(q, q)):
    f()
print(time.perf_counter() - t0)
"""


_FIRST_RNEA = """
import time
t0 = time.perf_counter()
import numpy as np
import geomech as gm
m = gm.robots.humanoid()
gm.rnea(m, m.neutral(), np.zeros(m.nv), np.zeros(m.nv))
print(time.perf_counter() - t0)
"""


_CHAIN = """
import time
from geomech.multibody import robots
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
r0 = rss()
t0 = time.perf_counter()
model = robots.serial_chain(20000, rng=0)
model.compiled
print(time.perf_counter() - t0, (rss() - r0) / 1e6)
"""


def chain_build():
    """Build time (s) and resident-memory growth (MB) of a 20,000-body chain with its compiled
    arrays, in a fresh process (imports excluded)."""
    out = subprocess.run(
        [sys.executable, "-c", _CHAIN], capture_output=True, text=True, check=True
    ).stdout
    return tuple(float(x) for x in out.split())


def compile_times():
    """Cold compile of all kernels in a fresh cache, then in second processes: imports + the
    first call of every algorithm, and imports + the first call of one (rnea), in s."""
    with tempfile.TemporaryDirectory() as cache:
        # a user's second process: numba's cache and Python's bytecode cache both written by
        # the first run (PYTHONDONTWRITEBYTECODE, set in some shells, would recompile every
        # module of geomech in every process: +0.15-0.25 s)
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPYCACHEPREFIX=cache)
        env.pop("PYTHONDONTWRITEBYTECODE", None)

        def run(script):
            return float(
                subprocess.run(
                    [sys.executable, "-c", script],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            )

        cold = run(_FIRST_CALL)
        warm = min(run(_FIRST_CALL) for _ in range(3))
        one = min(run(_FIRST_RNEA) for _ in range(3))
    return cold, warm, one


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument(
        "--stat",
        choices=("median", "min"),
        default="median",
        help="median of interleaved rounds, or the fastest round of each",
    )
    parser.add_argument(
        "--no-startup",
        action="store_true",
        help="skip the cold compile and second-process measurements",
    )
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    batch, rounds = (100, 5) if args.quick else (BATCH, 15)
    if args.stat == "min":  # blocks shorter than a time slice of a loaded machine
        batch = min(batch, 100)
    print(
        f"geomech vs Pinocchio {pin.__version__}, numpy {np.__version__}; times in µs, "
        f"{args.stat} of interleaved rounds; ratio = geomech / Pinocchio"
    )
    header = (
        f"{'model':<9} {'N':>3} {'nv':>3} {'alg':<8} {'gm 1':>8} {'pin 1':>8} "
        f"{'ratio':>6} {'gm/state':>9} {'pin/state':>9} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    models = [
        ("humanoid", robots.humanoid()),
        ("mixed-64", mixed_tree(64, np.random.default_rng(7), floating_base=True)),
    ]
    for name, model in models:
        for row in bench_model(name, model, rng, batch, rounds, args.stat):
            name_, n, nv, alg, t1, p1, r1, tb, pb, rb = row
            print(
                f"{name_:<9} {n:>3} {nv:>3} {alg:<8} {t1 * 1e6:>8.2f} {p1 * 1e6:>8.2f} "
                f"{r1:>6.2f} {tb * 1e6:>9.2f} {pb * 1e6:>9.2f} {rb:>6.2f}",
                flush=True,
            )
    # Koszul's formula in coordinates needs a fixed base: the humanoid on a fixed pelvis
    fixed = robots.humanoid(fixed_base=True)
    t_gm, t_k, r = bench_christoffel(fixed, rng, rounds, args.stat)
    print(
        f"\nchristoffel_symbols (humanoid on a fixed pelvis, nv = {fixed.nv}): "
        f"geomech {t_gm * 1e6:.1f} µs, Koszul from {fixed.nv + 1} pin.computeRNEADerivatives "
        f"calls {t_k * 1e6:.1f} µs, ratio {r:.3f}"
    )
    if args.no_startup:
        return
    t, rss = chain_build()
    print(
        f"20,000-body chain: model and compiled arrays built in {t:.2f} s, "
        f"{rss:.0f} MB resident-memory growth"
    )
    cold, warm, one = compile_times()
    print(f"cold compile + first calls of all kernels (fresh numba cache): {cold:.1f} s")
    print(
        f"second process, imports + first call of every algorithm: {warm:.2f} s "
        f"(of rnea alone: {one:.2f} s; best of 3)"
    )


if __name__ == "__main__":
    main()
