"""The README's benchmark table: geomech / Pinocchio on small arms, legged robots and humanoids.

For UR5 (nv = 6), Panda (nv = 9), Solo-12 (nv = 18), Talos (``talos_reduced``, nv = 38)
— the last four from example-robot-data — and the built-in humanoid (nv = 30), and for
``rnea``, ``crba``, ``aba``, ``coriolis_matrix``, ``rnea_derivatives`` (∂RNEA) and
``aba_derivatives`` (∂ABA), it measures the time ratio geomech / Pinocchio (C++ through its
Python binding):

* *single call*: one call with one state against ``pin.rnea`` & co.;
* *per state in a batch*: one geomech call on 1000 states against a Python loop of 1000
  Pinocchio calls (inputs converted beforehand).

Each ratio is the median over interleaved rounds (``_timing.interleaved``: a block of geomech
calls, then a block of Pinocchio calls, repeated); the whole measurement is repeated
``--runs`` times (all robots and algorithms in each run, so that a burst of load on the shared
machine hits one run, not one robot), and the table gives the median of the runs with their
range. Results are checked to agree with Pinocchio before anything is timed. The machine (CPU
model, cores, load) and the versions are printed with the table.

Run: ``python benchmarks/bench_readme.py`` to print the table, ``--write`` to also put it into
README.md between its ``bench_readme`` markers (``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _timing import interleaved  # noqa: E402

import geomech as gm  # noqa: E402
from geomech.interop.pinocchio import PinocchioBridge  # noqa: E402
from geomech.multibody import robots  # noqa: E402

#: (label in the table, name for ``robots.load``)
ROBOTS = [
    ("UR5", "ur5"),
    ("Panda", "panda"),
    ("Solo-12", "solo12"),
    ("Talos", "talos_reduced"),
    ("humanoid", "humanoid"),
]
ALGORITHMS = ["rnea", "crba", "aba", "coriolis_matrix", "∂RNEA", "∂ABA"]
BATCH = 1000
START, END = "<!-- bench_readme:start -->", "<!-- bench_readme:end -->"


def machine() -> str:
    """One line naming the machine and the versions."""
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import numba

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{cpu}, {os.cpu_count()} cores (load average {load} at the end); Python "
        f"{platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"Pinocchio {pin.__version__}, geomech {gm.__version__}"
    )


def cases(model, rng, batch):
    """{algorithm: (geomech single, Pinocchio single, geomech batch, Pinocchio loop)}, after
    checking that both give the same results."""
    bridge = PinocchioBridge(model)
    P, pm, pd = bridge.P, bridge.pin_model, bridge.pin_data
    Q = model.random_configuration(rng, size=batch)
    V = rng.normal(size=(batch, model.nv))
    A = rng.normal(size=(batch, model.nv))
    TAU = gm.rnea(model, Q, V, A)
    Qp, Vp, Ap, TAUp = (bridge.q_to_pin(Q), bridge.v_to_pin(V), bridge.v_to_pin(A),
                        bridge.v_to_pin(TAU))  # fmt: skip
    q, v, a, tau = Q[0], V[0], A[0], TAU[0]
    qp, vp, ap, taup = Qp[0], Vp[0], Ap[0], TAUp[0]
    close = dict(rtol=1e-7, atol=1e-7)
    assert np.allclose(bridge.rnea(q, v, a), tau, **close)
    assert np.allclose(bridge.crba(q), gm.crba(model, q), **close)
    assert np.allclose(bridge.aba(q, v, tau), gm.aba(model, q, v, tau), **close)
    assert np.allclose(bridge.coriolis_matrix(q, v), gm.coriolis_matrix(model, q, v), **close)
    dtau = pin.computeRNEADerivatives(pm, pd, qp, vp, ap)
    assert np.allclose(gm.rnea_derivatives(model, q, v, a)[1], P.T @ dtau[1] @ P, **close)
    dacc = pin.computeABADerivatives(pm, pd, qp, vp, taup)
    assert np.allclose(gm.aba_derivatives(model, q, v, tau)[1], P.T @ dacc[1] @ P, **close)
    loop = range(batch)
    return {
        "rnea": (lambda: gm.rnea(model, q, v, a), lambda: pin.rnea(pm, pd, qp, vp, ap),
                 lambda: gm.rnea(model, Q, V, A),
                 lambda: [pin.rnea(pm, pd, Qp[k], Vp[k], Ap[k]) for k in loop]),
        "crba": (lambda: gm.crba(model, q), lambda: pin.crba(pm, pd, qp),
                 lambda: gm.crba(model, Q), lambda: [pin.crba(pm, pd, Qp[k]) for k in loop]),
        "aba": (lambda: gm.aba(model, q, v, tau), lambda: pin.aba(pm, pd, qp, vp, taup),
                lambda: gm.aba(model, Q, V, TAU),
                lambda: [pin.aba(pm, pd, Qp[k], Vp[k], TAUp[k]) for k in loop]),
        "coriolis_matrix": (
            lambda: gm.coriolis_matrix(model, q, v),
            lambda: pin.computeCoriolisMatrix(pm, pd, qp, vp),
            lambda: gm.coriolis_matrix(model, Q, V),
            lambda: [pin.computeCoriolisMatrix(pm, pd, Qp[k], Vp[k]) for k in loop]),
        "∂RNEA": (lambda: gm.rnea_derivatives(model, q, v, a),
                  lambda: pin.computeRNEADerivatives(pm, pd, qp, vp, ap),
                  lambda: gm.rnea_derivatives(model, Q, V, A),
                  lambda: [pin.computeRNEADerivatives(pm, pd, Qp[k], Vp[k], Ap[k])
                           for k in loop]),
        "∂ABA": (lambda: gm.aba_derivatives(model, q, v, tau),
                 lambda: pin.computeABADerivatives(pm, pd, qp, vp, taup),
                 lambda: gm.aba_derivatives(model, Q, V, TAU),
                 lambda: [pin.computeABADerivatives(pm, pd, Qp[k], Vp[k], TAUp[k])
                          for k in loop]),
    }  # fmt: skip


def measure(runs: int, batch: int, rounds: int, log=print):
    """{(robot, "single" | "batch", algorithm): [ratio of each run]} and {robot: nv}."""
    rng = np.random.default_rng(0)
    models = {label: robots.load(name) for label, name in ROBOTS}
    timed = {label: cases(m, rng, batch) for label, m in models.items()}
    ratios: dict[tuple, list[float]] = {}
    for run in range(runs):
        for label, algs in timed.items():
            for alg, (gm1, pin1, gmB, pinB) in algs.items():
                r1 = interleaved(gm1, pin1, rounds)[2]
                rB = interleaved(gmB, pinB, max(3, rounds // 3), block=0.05)[2]
                ratios.setdefault((label, "single", alg), []).append(r1)
                ratios.setdefault((label, "batch", alg), []).append(rB)
                log(f"run {run + 1}/{runs}  {label:<9} {alg:<16} single {r1:5.2f}  "
                    f"batch {rB:5.2f}", flush=True)  # fmt: skip
    return ratios, {label: m.nv for label, m in models.items()}


def _cell(values: list[float]) -> str:
    med = float(np.median(values))
    if len(values) == 1:
        return f"{med:.2f}"
    return f"{med:.2f} ({min(values):.2f}–{max(values):.2f})"


def table(ratios, nvs, runs: int, batch: int) -> str:
    """The Markdown table and the lines that say what it is."""
    head = "| geomech / Pinocchio | " + " | ".join(ALGORITHMS) + " |"
    lines = [head, "|---" * (len(ALGORITHMS) + 1) + "|"]
    for label, _ in ROBOTS:
        for kind, text in (("single", f"{label} (nv = {nvs[label]}), single call"),
                           ("batch", f"{label}, per state in a batch of {batch}")):  # fmt: skip
            cells = [_cell(ratios[(label, kind, alg)]) for alg in ALGORITHMS]
            lines.append(f"| {text} | " + " | ".join(cells) + " |")
    return "\n".join(
        [
            f"Median of {runs} run{'s' if runs > 1 else ''} (run-to-run range in brackets) of "
            "the time ratio geomech / Pinocchio, each run the median of interleaved rounds; "
            "below 1 geomech is faster. Machine: " + machine() + ".",
            "",
            *lines,
        ]
    )


def write_readme(text: str, readme: Path = ROOT / "README.md") -> None:
    """Put ``text`` between the markers of ``readme``."""
    source = readme.read_text(encoding="utf-8")
    if START not in source or END not in source:
        raise SystemExit(f"bench_readme.py: {readme} has no {START} ... {END} markers")
    pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
    readme.write_text(pattern.sub(f"{START}\n{text}\n{END}", source), encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one short run, for a smoke test")
    parser.add_argument("--runs", type=int, default=3, help="repetitions of the whole table")
    parser.add_argument("--write", action="store_true", help="write the table into README.md")
    args = parser.parse_args(argv)
    runs, batch, rounds = (1, 100, 3) if args.quick else (args.runs, BATCH, 9)
    ratios, nvs = measure(runs, batch, rounds)
    text = table(ratios, nvs, runs, batch)
    print()
    print(text)
    if args.write and not args.quick:
        write_readme(text)
        print("\nwritten into README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
