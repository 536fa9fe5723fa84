r"""Closed chains on the generated linkages (issue 24): what loads, how fast, how accurately.

Two parts:

* **table**: for every linkage of ``tests/multibody/linkages.py`` (``all_linkages``): does
  ``ClosedMultibodyModel(graph)`` load (else the error), ``nv`` against the true mobility, the
  largest relative error of ``rnea``/``crba``/``aba`` against the Pinocchio reference
  (``tests/multibody/linkage_reference.py``) at three random closed states, what happens at
  a closed singular configuration, whether an open state (0.1 off) is rejected at
  |q| ~ 1 and |q| ~ 1e9, and the load time. Printed as a Markdown table.
* **ladder**: the load time of a ladder of n four-bars in one cluster (2n + 1 bodies, one
  degree of freedom) against its spanning tree (target: at most 20x for n = 150), each n in
  a fresh process with a warm numba cache, with ``OPENBLAS_NUM_THREADS=1`` and with the
  default threads: medians and ranges of interleaved warm loads, and the first load's
  one-time numba cache loading separately.

* **simulate**: wall time per simulated second of ``simulate`` without control at
  dt = 1 ms on a six-bar, a four-bar knee on a floating base and a quadruped of four
  mini-cheetah legs with geared rotors (the compiled closure and C-ABA), medians of five runs
  of 0.2 s with their range, with the closure residual and the relative energy drift.

Run: ``python benchmarks/bench_linkages.py`` (``--quick``: the table and n = 10, 50 with one
thread; ``--ladder-only``, ``--table-only``, ``--simulate-only``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "multibody"))

LADDER = r"""
import sys, time
import numpy as np
sys.path.insert(0, {tests!r})
import linkages as L
from geomech.multibody import ClosedMultibodyModel
from geomech.multibody import MultibodyModel
lk = L.four_bar_ladder(np.random.default_rng(0), {n}, writing="assembled")
def timed(build):
    t = time.perf_counter(); out = build(); return out, time.perf_counter() - t
tree, t_tree0 = timed(lambda: MultibodyModel(lk.tree_graph()))
model, t_first = timed(lambda: ClosedMultibodyModel(lk.graph))  # loads the numba cache
# interleaved repeats, warm: medians and ranges
T, C = [], []
for _ in range({repeats}):
    T.append(timed(lambda: MultibodyModel(lk.tree_graph()))[1])
    C.append(timed(lambda: ClosedMultibodyModel(lk.graph))[1])
print(tree.n_bodies, model.nv, t_first, *T, "|", *C)
"""


def _short(exc) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) < 90 else text[:87] + "..."


def table():
    import linkages as L
    from linkage_reference import LinkageReference, rel_err

    import geomech
    from geomech.errors import NotOnManifoldError, SingularityError
    from geomech.multibody import ClosedMultibodyModel

    rows = []
    for lk in L.all_linkages():
        row = {"name": lk.name, "family": lk.family, "true": lk.mobility}
        t = time.perf_counter()
        try:
            model = ClosedMultibodyModel(lk.graph)
        except Exception as exc:  # noqa: BLE001 - reported
            row["load"] = _short(exc)
            rows.append(row)
            continue
        row["load_ms"] = 1e3 * (time.perf_counter() - t)
        row["load"] = "yes"
        row["nv"] = model.nv
        ref = LinkageReference(lk)
        indep = model.independent_v_index
        if model.nv == lk.mobility and lk.mobility:
            rng = np.random.default_rng(0)
            try:
                Q = ref.random_closed(rng, lk.q(ref.tree), size=3, indep=indep,
                                      mobility=lk.mobility)  # fmt: skip
                worst = 0.0
                for q in Q:
                    v, a, tau = rng.normal(size=(3, model.nv))
                    worst = max(
                        worst,
                        rel_err(geomech.rnea(model, q, v, a), ref.rnea(q, v, a, indep)),
                        rel_err(geomech.crba(model, q), ref.crba(q, indep)),
                        rel_err(geomech.aba(model, q, v, tau), ref.aba(q, v, tau, indep)),
                    )
                row["dyn"] = f"{worst:.1e}"
            except Exception as exc:  # noqa: BLE001 - reported
                row["dyn"] = _short(exc)
        elif lk.mobility == 0:
            try:
                e = np.zeros(0)
                shapes = (geomech.rnea(model, lk.q(model), e, e).shape,
                          geomech.crba(model, lk.q(model)).shape)  # fmt: skip
                row["dyn"] = f"empty {shapes}"
            except Exception as exc:  # noqa: BLE001 - reported
                row["dyn"] = _short(exc)
        if lk.singular is not None:
            qs = lk.q(model, lk.singular)
            try:
                G, _ = model.constraint_matrices(qs, np.ones(model.nv))
                row["singular"] = f"returns G (max {np.abs(G).max():.2g})"
            except SingularityError:
                row["singular"] = "SingularityError"
            except Exception as exc:  # noqa: BLE001 - reported
                row["singular"] = _short(exc)
        for scale in (1.0, 1e9):
            key = "off" if scale == 1 else "off1e9"
            try:
                import test_linkages as T

                q = T._off_manifold(lk.name, model, scale)
                model.check_configuration(q)
                row[key] = "accepted"
            except NotOnManifoldError:
                row[key] = "raises"
            except Exception as exc:  # noqa: BLE001 - reported
                row[key] = _short(exc)
        rows.append(row)
    cols = ["name", "family", "load", "nv", "true", "dyn", "singular", "off", "off1e9", "load_ms"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        cells = []
        for c in cols:
            x = r.get(c, "")
            cells.append(f"{x:.0f}" if c == "load_ms" and x != "" else str(x))
        print("| " + " | ".join(cells) + " |")


def ladder(sizes, threads, repeats=7):
    """Load time of the ladder of ``n`` four-bars and of its spanning tree, in a fresh process
    each (the numba cache warm on disk): medians and ranges of ``repeats`` interleaved warm
    loads, the ratio of the medians (issue 24 target: at most 20), and the first closed load's
    excess over the median (the one-time loading of the cached kernels).
    """
    tests = str(ROOT / "tests" / "multibody")
    for n in sizes:
        for one in threads:
            env = dict(os.environ, PYTHONPATH=str(ROOT))
            if one:
                env["OPENBLAS_NUM_THREADS"] = "1"
            else:
                env.pop("OPENBLAS_NUM_THREADS", None)
            t = time.perf_counter()
            code = LADDER.format(tests=tests, n=n, repeats=repeats)
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                 text=True)  # fmt: skip
            wall = time.perf_counter() - t
            label = "OPENBLAS_NUM_THREADS=1" if one else "default threads"
            if out.returncode:
                print(f"n = {n:4d} ({label}): failed: {out.stderr.strip().splitlines()[-1]}")
                continue
            head, closed = out.stdout.split("|")
            bodies, nv, first, *tree = head.split()
            tree, closed = np.array(tree, float), np.array(closed.split(), float)
            mt, mc = np.median(tree), np.median(closed)
            print(f"ladder n = {n:4d} ({bodies} bodies, nv = {nv}), {label}: spanning tree "
                  f"{1e3 * mt:.1f} ms ({1e3 * tree.min():.1f}-{1e3 * tree.max():.1f}), closed "
                  f"model {1e3 * mc:.0f} ms ({1e3 * closed.min():.0f}-{1e3 * closed.max():.0f}),"
                  f" ratio {mc / mt:.1f}; first closed load {float(first):.2f} s (numba cache "
                  f"loading {float(first) - mc:.2f} s); process {wall:.1f} s")  # fmt: skip


def closed_simulate(repeats=5, t_final=0.2):
    import linkages as L
    from test_compiled_closure import quadruped_graph

    from geomech.multibody import ClosedMultibodyModel
    from geomech.multibody.io.examples import load_example
    from geomech.simulation import simulate

    models = {
        "six_bar": load_example("six_bar"),
        "floating_knee": ClosedMultibodyModel(L.floating_knee(np.random.default_rng(3)).graph),
        "quadruped (mini cheetah legs)": ClosedMultibodyModel(quadruped_graph()),
    }
    for name, m in models.items():
        rng = np.random.default_rng(0)
        q0, v0 = m.random_configuration(rng), rng.uniform(-1.0, 1.0, m.nv)
        simulate(m, q0, v0, 0.01, dt=1e-3)  # compile / load the kernels
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            res = simulate(m, q0, v0, t_final, dt=1e-3)
            times.append((time.perf_counter() - t) / t_final)
        E = m.kinetic_energy(res.q, res.v) + m.potential_energy(res.q)
        drift = np.abs(E - E[0]).max() / max(1.0, abs(E[0]))
        resid = np.abs(m.constraint_residual(res.q)).max()
        print(f"simulate {name} (nv = {m.nv}): {np.median(times):.2f} s per simulated s "
              f"(range {min(times):.2f}-{max(times):.2f}), residual {resid:.1e}, "
              f"energy drift {drift:.1e}")  # fmt: skip


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--ladder-only", action="store_true")
    p.add_argument("--table-only", action="store_true")
    p.add_argument("--simulate-only", action="store_true")
    args = p.parse_args(argv)
    if args.simulate_only:
        closed_simulate()
        return
    if not args.ladder_only:
        table()
    if not args.table_only:
        closed_simulate()
        if args.quick:
            ladder([10, 50], [True])
        else:
            ladder([10, 50, 150], [True, False])


if __name__ == "__main__":
    main()
