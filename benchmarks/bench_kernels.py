"""geomech's compiled kernels vs Pinocchio: single calls, batches, threads, compile and start-up.

The main table (issue 28) covers ur5, panda, xarm7, solo12 (example-robot-data, when installed),
the built-in humanoid, talos and a 100-link chain, and for each ``rnea``, ``crba``, ``aba``,
``coriolis_matrix``, ``rnea_derivatives`` and ``aba_derivatives``:

* ``single``: one call with one state, geomech vs Pinocchio (C++ through its binding), their
  median times and the median ratio with its range over the interleaved rounds;
* ``batch``: one geomech call on 1000 states vs a Python loop of 1000 Pinocchio calls (inputs
  pre-converted), per state, the median ratio and its range.

Then (``--floor``) the fixed cost of a call: an empty numba function with as many array
arguments as the single-state entry points against the smallest Pinocchio call; the thinnest
public call (the fast path of ``gm.rnea`` / ``gm.crba``: input checks, result allocation,
entry point) around an empty kernel of the same arrays, the budget Pinocchio's whole call
leaves for geomech's work at ratio 1.0, and both libraries' work (Pinocchio's call minus its
1-body call; geomech's kernel minus its empty entry point), on a 1-body chain, ur5 and panda;
and every public function against its kernel alone; (``--threads``) the speed-up of two threads at
B = 250 ... 10000 for rnea, aba, crba, coriolis on the humanoid and ur5 (``--thread-robots``,
``--thread-algorithms``), with the share of calls the cost model ran in threads and the
mechanism of the threaded calls (helper start, final wait, balance), and the load average;
(``--thread-force``: threads even where the load average says no core is idle, to see the
mechanism on a busy machine); ``christoffel_symbols`` against the route a Python user has
today (Christoffel symbols by Koszul's formula from nv + 1 calls of
``pin.computeRNEADerivatives``), the cold compile time of all kernels (a fresh numba cache) and
the first-call time in a second process, imports included, and the build time and memory of a
20,000-body chain. Every comparison is interleaved in the same process (``_timing.interleaved``)
and reported as the median over rounds, or with ``--stat min`` as the fastest round of each
contender over many short rounds (an estimate of the uncontended times on a machine loaded by
other processes, where medians swing by 2x; batches of 100 states then, so that a block fits in
a time slice); results are checked to agree before timing. ``--no-startup`` skips the compile
and start-up measurements (a cold compile of every kernel).

Run: ``python benchmarks/bench_kernels.py`` (``--quick`` for a smoke run, ``--robots ur5,panda``
for a subset).
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
from numba import njit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "multibody"))

from _timing import interleaved, interleaved_range, load_average  # noqa: E402

import geomech as gm  # noqa: E402
from geomech.interop.pinocchio import PinocchioBridge  # noqa: E402
from geomech.multibody import robots  # noqa: E402
from geomech.multibody._kernels.driver import ENTRY  # noqa: E402

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


ROBOTS = ("ur5", "panda", "xarm7", "solo12", "humanoid", "talos", "chain100")
ALGORITHMS = ("rnea", "crba", "aba", "coriolis", "d_rnea", "d_aba")


def load_robot(name):
    """The model of a robot of the main table, or None when example-robot-data lacks it."""
    if name == "humanoid":
        return robots.humanoid()
    if name == "chain100":
        return robots.serial_chain(100, rng=0)
    if name == "ur5":
        return robots.load("ur5")
    erd = {"talos": "talos_full_v2"}.get(name, name)
    if erd not in robots.example_robot_data_names():
        return None
    return robots.load(erd)


def robot_cases(model, rng, batch):
    """``{alg: (gm single, pin single, gm batch, pin batch)}`` closures on random states."""
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
    assert np.allclose(bridge.rnea(q, v, a), tau, rtol=1e-8, atol=1e-8)
    assert np.allclose(bridge.crba(q), gm.crba(model, q), rtol=1e-8, atol=1e-8)
    B = range(batch)
    return {
        "rnea": (
            lambda: gm.rnea(model, q, v, a),
            lambda: pin.rnea(pm, pd, qp, vp, ap),
            lambda: gm.rnea(model, Q, V, A),
            lambda: [pin.rnea(pm, pd, Qp[k], Vp[k], Ap[k]) for k in B],
        ),
        "crba": (
            lambda: gm.crba(model, q),
            lambda: pin.crba(pm, pd, qp),
            lambda: gm.crba(model, Q),
            lambda: [pin.crba(pm, pd, Qp[k]) for k in B],
        ),
        "aba": (
            lambda: gm.aba(model, q, v, tau),
            lambda: pin.aba(pm, pd, qp, vp, taup),
            lambda: gm.aba(model, Q, V, TAU),
            lambda: [pin.aba(pm, pd, Qp[k], Vp[k], TAUp[k]) for k in B],
        ),
        "coriolis": (
            lambda: gm.coriolis_matrix(model, q, v),
            lambda: pin.computeCoriolisMatrix(pm, pd, qp, vp),
            lambda: gm.coriolis_matrix(model, Q, V),
            lambda: [pin.computeCoriolisMatrix(pm, pd, Qp[k], Vp[k]) for k in B],
        ),
        "d_rnea": (
            lambda: gm.rnea_derivatives(model, q, v, a),
            lambda: pin.computeRNEADerivatives(pm, pd, qp, vp, ap),
            lambda: gm.rnea_derivatives(model, Q, V, A),
            lambda: [pin.computeRNEADerivatives(pm, pd, Qp[k], Vp[k], Ap[k]) for k in B],
        ),
        "d_aba": (
            lambda: gm.aba_derivatives(model, q, v, tau),
            lambda: pin.computeABADerivatives(pm, pd, qp, vp, taup),
            lambda: gm.aba_derivatives(model, Q, V, TAU),
            lambda: [pin.computeABADerivatives(pm, pd, Qp[k], Vp[k], TAUp[k]) for k in B],
        ),
    }


def bench_robots(names, rng, batch, rounds, algorithms=ALGORITHMS, stat="median"):
    """Print the main table: per robot and algorithm, single and per-state batch ratios."""
    header = (
        f"{'robot':<9} {'nv':>3} {'alg':<8} {'gm 1':>8} {'pin 1':>8} {'ratio':>5} "
        f"{'[range]':<11} {'gm/st':>8} {'pin/st':>8} {'ratio':>5} {'[range]':<11}"
    )
    print(header)
    print("-" * len(header))
    for name in names:
        model = load_robot(name)
        if model is None:
            print(f"{name:<9} (not in example-robot-data)")
            continue
        cases = robot_cases(model, rng, batch)
        for alg in algorithms:
            gm1, pin1, gmB, pinB = cases[alg]
            if stat == "min":  # many short rounds (a block within a time slice)
                t1, p1, r1, lo1, hi1 = interleaved_range(gm1, pin1, 8 * rounds, 0.002, stat)
                tB, pB, rB, loB, hiB = interleaved_range(gmB, pinB, 4 * rounds, 0.001, stat)
            else:
                t1, p1, r1, lo1, hi1 = interleaved_range(gm1, pin1, rounds)
                tB, pB, rB, loB, hiB = interleaved_range(gmB, pinB, max(3, rounds // 3), 0.05)
            print(
                f"{name:<9} {model.nv:>3} {alg:<8} {t1 * 1e6:>8.2f} {p1 * 1e6:>8.2f} {r1:>5.2f} "
                f"[{lo1:.2f}-{hi1:.2f}] {tB / batch * 1e6:>8.2f} {pB / batch * 1e6:>8.2f} "
                f"{rB:>5.2f} [{loB:.2f}-{hiB:.2f}]",
                flush=True,
            )


@njit(cache=False)
def _empty6(a, b, c, d, e, f):  # the dispatch floor of a kernel with six array arguments
    return 0


def boundary_cases(model, rng):
    """``{function: (public call, its kernel alone)}`` on one state of ``model``; the kernel is
    called through the entry point the public function uses, on preallocated outputs."""
    from geomech.multibody._kernels.driver import entry
    from geomech.multibody._kernels.tree import coriolis as KC
    from geomech.multibody._kernels.tree import derivatives as KD
    from geomech.multibody._kernels.tree import dynamics as K
    from geomech.multibody.algorithms._body_factors import _factor_tensors

    q = model.random_configuration(rng)
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    tau = gm.rnea(model, q, v, a)
    topo, packed, nq, nv = model.compiled.single
    out, H = np.empty(nv), np.empty((nv, nv))
    Bt, lc = _factor_tensors(model, "levi-civita")
    cases = {
        "rnea": (
            lambda: gm.rnea(model, q, v, a),
            lambda: entry(K.rnea_one)(topo, packed, q, v, a, out),
        ),
        "crba": (lambda: gm.crba(model, q), lambda: entry(K.crba_one)(topo, packed, q, H)),
        "aba": (
            lambda: gm.aba(model, q, v, tau),
            lambda: entry(K.aba_one)(topo, packed, q, v, tau, out),
        ),
        "coriolis": (
            lambda: gm.coriolis_matrix(model, q, v),
            lambda: entry(KC.coriolis_one)(topo, packed, Bt, lc, q, v, H),
        ),
    }
    one = getattr(KD, "rnea_derivatives_one", None)
    if one is not None:
        D2, D3 = np.empty((2, nv, nv)), np.empty((3, nv, nv))
        cases["d_rnea"] = (
            lambda: gm.rnea_derivatives(model, q, v, a),
            lambda: entry(KD.rnea_derivatives_one)(topo, packed, q, v, a, D2),
        )
        cases["d_aba"] = (
            lambda: gm.aba_derivatives(model, q, v, tau),
            lambda: entry(KD.aba_derivatives_one)(topo, packed, q, v, tau, D3),
        )
    return cases


@njit(cache=False, _nrt=False)  # compiled as the single-state entry points (jit.FMA_ENTRY)
def _empty_rnea(topo, packed, q, v, a, tau):  # rnea_one's arrays, without its work
    return 0


@njit(cache=False, _nrt=False)
def _empty_crba(topo, packed, q, H):  # crba_one's arrays, without its work
    return 0


def _thin_rnea(model, q, v, a, gravity=None, f_ext=None, method=None):
    """The thinnest public single-state call: ``gm.rnea``'s fast path (its checks, the result,
    the entry point) around an empty kernel of the same six arrays."""
    try:
        single = model._single
    except AttributeError:
        single = None
    if (
        type(q) is np.ndarray
        and type(v) is np.ndarray
        and type(a) is np.ndarray
        and q.dtype is _F64
        and v.dtype is _F64
        and a.dtype is _F64
        and q.ndim == 1
        and v.ndim == 1
        and a.ndim == 1
        and gravity is None
        and f_ext is None
        and method is None
        and single is not None
    ):
        topo, packed, nq, nv = single
        tau = np.empty(nv)
        if ENTRY[_empty_rnea](topo, packed, q, v, a, tau) == 0:
            return tau
    raise AssertionError("not the fast path")


def _thin_crba(model, q, method=None):
    """As :func:`_thin_rnea`, for ``gm.crba`` (four arrays)."""
    try:
        single = model._single
    except AttributeError:
        single = None
    if (
        type(q) is np.ndarray
        and q.dtype is _F64
        and q.ndim == 1
        and method is None
        and single is not None
    ):
        topo, packed, nq, nv = single
        H = np.empty((nv, nv))
        if ENTRY[_empty_crba](topo, packed, q, H) == 0:
            return H
    raise AssertionError("not the fast path")


_F64 = np.dtype(np.float64)


def _best(fun, rounds):
    """The fastest of ``rounds`` blocks of ~2 ms (a floor: the uncontended time)."""
    t, _, _, _, _ = interleaved_range(fun, lambda: None, rounds, 0.002, "min")
    return t


def _floor_rows(name, model, rng, rounds, p1r, p1c):
    """Print the thin-call floor, the budget and the work of rnea and crba on ``model``
    (``p1r``, ``p1c``: Pinocchio's 1-body calls)."""
    from geomech.multibody._kernels.driver import _entry
    from geomech.multibody._kernels.tree import dynamics as K

    br = PinocchioBridge(model)
    pmm, pdm = br.pin_model, br.pin_data
    q = model.random_configuration(rng)
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    qp, vp, ap = br.q_to_pin(q), br.v_to_pin(v), br.v_to_pin(a)
    topo, packed, nq, nv = model.compiled.single
    tau, H = np.empty(nv), np.empty((nv, nv))
    gm.rnea(model, q, v, a), gm.crba(model, q)
    _empty_rnea(topo, packed, q, v, a, tau), _empty_crba(topo, packed, q, H)
    ep_r, ep_c = _entry(K.rnea_one), _entry(K.crba_one)
    e6, e4 = _entry(_empty_rnea), _entry(_empty_crba)
    assert len(_empty_rnea.signatures) == len(_empty_crba.signatures) == 1
    _thin_rnea(model, q, v, a), _thin_crba(model, q)
    rows = (
        (
            "rnea",
            lambda: _thin_rnea(model, q, v, a),
            lambda: gm.rnea(model, q, v, a),
            lambda: ep_r(topo, packed, q, v, a, tau),
            lambda: e6(topo, packed, q, v, a, tau),
            lambda: pin.rnea(pmm, pdm, qp, vp, ap),
            p1r,
        ),
        (
            "crba",
            lambda: _thin_crba(model, q),
            lambda: gm.crba(model, q),
            lambda: ep_c(topo, packed, q, H),
            lambda: e4(topo, packed, q, H),
            lambda: pin.crba(pmm, pdm, qp),
            p1c,
        ),
    )
    for alg, thin, pub, kern, empty, pinc, p1 in rows:
        t_thin, t_pub, t_k, t_e, t_p = (_best(f, rounds) for f in (thin, pub, kern, empty, pinc))
        print(
            f"  {name:<7} {alg:<5} pin {t_p * 1e6:6.3f}  thin {t_thin * 1e6:6.3f}  "
            f"budget {(t_p - t_thin) * 1e6:6.3f}  pin work {(t_p - p1) * 1e6:6.3f}  "
            f"gm work {(t_k - t_e) * 1e6:6.3f}  (gm public {t_pub * 1e6:6.3f}, "
            f"ratio {t_pub / t_p:.2f})",
            flush=True,
        )


def bench_floor(rng, rounds, stat="median"):
    """Print the fixed cost of a call: dispatch floors, the thinnest possible public call and
    the budget it leaves for the work against Pinocchio's, and public functions vs their
    kernels."""
    from geomech.multibody._kernels.driver import _entry

    x = np.zeros(3)
    one = robots.serial_chain(1, rng=0)
    bridge = PinocchioBridge(one)
    pm, pd = bridge.pin_model, bridge.pin_data
    q1 = np.zeros(1)
    _empty6(x, x, x, x, x, x)
    ep = _entry(_empty6)
    t_disp, t_pin, _, _, _ = interleaved_range(
        lambda: _empty6(x, x, x, x, x, x), lambda: pin.rnea(pm, pd, q1, q1, q1), rounds
    )
    t_ep, _, _, _, _ = interleaved_range(lambda: ep(x, x, x, x, x, x), lambda: None, rounds)
    t_gm1, _, _, _, _ = interleaved_range(lambda: gm.rnea(one, q1, q1, q1), lambda: None, rounds)
    print(
        f"\ncall floors (µs): empty numba function of 6 arrays {t_disp * 1e6:.3f} through its "
        f"dispatcher, {t_ep * 1e6:.3f} through its entry point; 1-body pin.rnea {t_pin * 1e6:.3f}; "
        f"1-body gm.rnea {t_gm1 * 1e6:.3f}"
    )
    # the thinnest public call around an empty kernel, and the work it leaves room for: the
    # fastest blocks of each (uncontended times), all in this process
    print(
        "floor of a public single-state call (fastest of short blocks, µs): 'thin' = the "
        "public function's fast path (input checks, result allocation, entry point) around "
        "an empty kernel of the same arrays; 'budget' = Pinocchio's whole call − thin, the "
        "time left for geomech's work at ratio 1.0; 'pin work' = Pinocchio's call − its "
        "1-body call; 'gm work' = geomech's kernel − its empty entry point"
    )
    q0 = np.zeros(1)
    p1r = _best(lambda: pin.rnea(pm, pd, q0, q0, q0), rounds)
    p1c = _best(lambda: pin.crba(pm, pd, q0), rounds)
    for name in ("chain1", "ur5", "panda"):
        if name == "chain1":
            model = one
        elif name == "panda" and "panda" not in robots.example_robot_data_names():
            continue
        else:
            model = load_robot(name)
        _floor_rows(name, model, rng, rounds, p1r, p1c)
    for name in ("panda", "humanoid"):
        model = (
            load_robot(name)
            if name != "panda" or "panda" in robots.example_robot_data_names()
            else None
        )
        if model is None:
            continue
        print(f"public call vs its kernel alone, one state of {name} (nv = {model.nv}), µs:")
        for alg, (pub, ker) in boundary_cases(model, rng).items():
            if stat == "min":
                tp, tk, r, lo, hi = interleaved_range(pub, ker, 8 * rounds, 0.002, stat)
            else:
                tp, tk, r, lo, hi = interleaved_range(pub, ker, rounds)
            print(
                f"  {alg:<9} public {tp * 1e6:8.3f}  kernel {tk * 1e6:8.3f}  "
                f"above {(tp - tk) * 1e6:6.3f}"
            )


THREAD_BATCHES = (250, 500, 1000, 2000, 4000, 10000)
THREAD_ROBOTS = ("humanoid", "ur5")
THREAD_ALGORITHMS = ("rnea", "aba", "crba", "coriolis")


def _thread_calls(algorithm, model, Q, V, A):
    return {
        "rnea": lambda: gm.rnea(model, Q, V, A),
        "aba": lambda: gm.aba(model, Q, V, A),
        "crba": lambda: gm.crba(model, Q),
        "coriolis": lambda: gm.coriolis_matrix(model, Q, V),
        "d_rnea": lambda: gm.rnea_derivatives(model, Q, V, A),
    }[algorithm]


def _thread_counts(driver):
    """(calls, threaded calls) summed over the driver's cost table."""
    return tuple(sum(c[k] for c in driver._COST.values()) for k in (2, 3))


def _mechanism(trace):
    """Medians over traced threaded calls: helper start (µs after the call began), the
    caller's wait for the helpers at the end (µs), the helpers' share of the kernel time, the
    chunks per call, and the efficiency (kernel time of all threads / (threads x wall))."""
    start, wait, share, chunks, eff = [], [], [], [], []
    for t0, t1, threads in trace:
        caller, helpers = threads[0], [h for h in threads[1:] if h[2]]
        busy = [h[3] for h in threads]
        start.append(min((h[0] for h in helpers), default=t1) - t0)
        wait.append(t1 - caller[1] if caller[2] else t1 - t0)
        share.append(sum(busy[1:]) / max(sum(busy), 1))
        chunks.append(sum(h[2] for h in threads))
        eff.append(sum(busy) / (2 * (t1 - t0)))
    med = [float(np.median(x)) for x in (start, wait, share, chunks, eff)]
    return med[0] / 1e3, med[1] / 1e3, med[2], med[3], med[4]


def _thread_line(driver, f, rounds):
    """One line of :func:`bench_threads`: ``f`` on one and two threads, interleaved, then 20
    traced calls on two threads."""

    def one():
        driver.set_num_threads(1)
        f()

    def two():
        driver.set_num_threads(2)
        f()

    before = _thread_counts(driver)
    t1, t2, r, lo, hi = interleaved_range(one, two, rounds, block=0.05)
    after = _thread_counts(driver)
    calls, threaded = after[0] - before[0], after[1] - before[1]
    driver._TRACE = []
    try:
        driver.set_num_threads(2)
        for _ in range(20):
            f()
        trace = driver._TRACE
    finally:
        driver._TRACE = None
        driver.set_num_threads(1)
    line = (
        f"1 thread {t1 * 1e3:8.3f} ms  2 threads {t2 * 1e3:8.3f} ms  speed-up {r:.2f} "
        f"[{lo:.2f}-{hi:.2f}]  threaded {threaded / max(calls, 1):4.0%}"
    )
    if trace:
        s0, w, sh, n, e = _mechanism(trace)
        line += f"  start {s0:5.0f} wait {w:5.0f} helper {sh:4.0%} chunks {n:4.0f} eff {e:4.0%}"
    return line


def bench_threads(rng, rounds, robot_names=THREAD_ROBOTS, algorithms=THREAD_ALGORITHMS):
    """Print the speed-up of two threads over one on batches (issue 28 item 4): per robot,
    batch size and algorithm the median per-call times, the median speed-up [range over the
    interleaved rounds], the share of the two-thread calls that the driver's cost model ran
    in threads, and, from 20 further traced calls (driver._TRACE), the mechanism: when the
    helper started its first chunk, how long the caller waited for the helper at the end,
    the helper's share of the work, the number of chunks and the efficiency (kernel time of
    both threads over twice the wall time). At B = 1000 a second line, "caller last", has the
    helpers leave the last two chunks to the caller (driver.CALLER_LAST = 2: the caller then
    finishes last and does not wait asleep for a helper, which may be slow to wake up on a
    virtual machine whose idle cores halt)."""
    from geomech.multibody._kernels import driver

    print(
        f"\ntwo threads vs one per batch call; speed-up = median [range] of the interleaved "
        f"rounds; threaded = share of the two-thread calls run in threads; then medians of "
        f"20 traced threaded calls: helper start, caller's final wait (µs), helper share, "
        f"chunks, efficiency; {load_average()}"
    )
    for name in robot_names:
        model = load_robot(name)
        print(f" {name} (nv = {model.nv})")
        for B in THREAD_BATCHES:
            Q = model.random_configuration(rng, size=B)
            V, A = rng.normal(size=(B, model.nv)), rng.normal(size=(B, model.nv))
            for alg in algorithms:
                f = _thread_calls(alg, model, Q, V, A)
                print(f"  B = {B:>5} {alg:<8} " + _thread_line(driver, f, rounds), flush=True)
                if B == 1000:  # the experiment: the caller takes the last chunks (see driver)
                    driver.CALLER_LAST = 2
                    try:
                        line = _thread_line(driver, f, rounds)
                    finally:
                        driver.CALLER_LAST = 0
                    print(f"  {'caller last':<18} {line}", flush=True)
    print(f"  {load_average()}")


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
    parser.add_argument("--robots", default=",".join(ROBOTS), help="robots of the main table")
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS), help="its algorithms")
    parser.add_argument("--floor", action="store_true", help="the fixed cost of a call")
    parser.add_argument("--threads", action="store_true", help="two threads vs one")
    parser.add_argument(
        "--thread-robots", default=",".join(THREAD_ROBOTS), help="robots of --threads"
    )
    parser.add_argument(
        "--thread-algorithms", default=",".join(THREAD_ALGORITHMS), help="its algorithms"
    )
    parser.add_argument(
        "--thread-force",
        action="store_true",
        help="threads even when no core is idle (the mechanism on a busy machine)",
    )
    parser.add_argument("--only", action="store_true", help="only the sections asked for")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    batch, rounds = (100, 5) if args.quick else (BATCH, 15)
    if args.stat == "min":  # blocks shorter than a time slice of a loaded machine
        batch = min(batch, 100)
    print(
        f"geomech vs Pinocchio {pin.__version__}, numpy {np.__version__}; times in µs, "
        f"{'medians' if args.stat == 'median' else 'fastest'} of interleaved rounds "
        f"[range of the per-round ratio]; ratio = geomech / Pinocchio; "
        f"{load_average()}"
    )
    names = [x for x in args.robots.split(",") if x]
    algorithms = [x for x in args.algorithms.split(",") if x]
    if names and algorithms:
        bench_robots(names, rng, batch, rounds, algorithms, args.stat)
        print(load_average())
    if args.floor:
        bench_floor(rng, rounds, args.stat)
    if args.threads:
        if args.thread_force:
            from geomech.multibody._kernels import driver

            driver.idle_core = lambda: True
        bench_threads(
            rng,
            5 if args.quick else 9,
            [x for x in args.thread_robots.split(",") if x],
            [x for x in args.thread_algorithms.split(",") if x],
        )
    if args.only:
        return
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
