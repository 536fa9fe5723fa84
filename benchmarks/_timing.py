"""Timing helpers shared by the benchmark scripts (not a benchmark: ``run.py`` runs ``bench_*``).

The machine is noisy (other processes share its two cores): comparisons are measured
*interleaved* in the same process — a block of calls of one contender, then a block of the
other, repeated — and reported as medians over the rounds, so that a burst of load hits both.
"""

from __future__ import annotations

import time

import numpy as np


def _block_size(fun, target: float) -> int:
    t0 = time.perf_counter()
    fun()
    once = max(time.perf_counter() - t0, 1e-7)
    return max(1, int(target / once))


def _block(fun, n: int) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        fun()
    return (time.perf_counter() - t0) / n


def interleaved(fun_a, fun_b, rounds: int = 15, block: float = 0.01, stat: str = "median"):
    """Per-call times of ``fun_a`` and ``fun_b`` over interleaved rounds, and their ratio a/b.

    Each round times a block of ``fun_a`` calls then a block of ``fun_b`` calls (about
    ``block`` seconds each). ``stat="median"``: the medians of the times and of the ratio
    taken round by round. ``stat="min"``: the smallest time of each and their ratio, an
    estimate of the uncontended times when other processes load the machine (use many
    short rounds: the minimum needs only a few undisturbed blocks, the median half of them).
    """
    fun_a(), fun_b()  # warm up (compilation, caches)
    na, nb = _block_size(fun_a, block), _block_size(fun_b, block)
    ta, tb = [], []
    for _ in range(rounds):
        ta.append(_block(fun_a, na))
        tb.append(_block(fun_b, nb))
    ta, tb = np.array(ta), np.array(tb)
    if stat == "min":
        return float(ta.min()), float(tb.min()), float(ta.min() / tb.min())
    return float(np.median(ta)), float(np.median(tb)), float(np.median(ta / tb))


def interleaved_range(fun_a, fun_b, rounds: int = 15, block: float = 0.01, stat="median"):
    """As :func:`interleaved`, with the range of the round-by-round ratio a/b.

    Returns ``(t_a, t_b, ratio, ratio_lo, ratio_hi)``: the median per-call times and the
    median of the per-round ratios (``stat="min"``: the fastest round of each and their
    ratio), and the smallest and largest per-round ratios.
    """
    fun_a(), fun_b()
    na, nb = _block_size(fun_a, block), _block_size(fun_b, block)
    ta, tb = [], []
    for _ in range(rounds):
        ta.append(_block(fun_a, na))
        tb.append(_block(fun_b, nb))
    ta, tb = np.array(ta), np.array(tb)
    r = ta / tb
    if stat == "min":
        return float(ta.min()), float(tb.min()), float(ta.min() / tb.min()), r.min(), r.max()
    return float(np.median(ta)), float(np.median(tb)), float(np.median(r)), r.min(), r.max()


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages, for reports of timings on a shared machine."""
    try:
        import os

        return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    except OSError:  # pragma: no cover
        return "load average unknown"


def best_time(fun, repeat=5, min_total=0.2, budget=2.0, clock=time.perf_counter):
    """Best per-call time (s) of ``fun()`` over ``repeat`` timing runs of ~``min_total`` s in all.

    One untimed call first measures the cost; a call longer than ``budget`` seconds is timed
    once only (its first run), so that slow reference algorithms stay affordable.
    ``clock=time.process_time`` gives the CPU time of the process instead of the wall time:
    on a loaded machine a long call shares its core for longer than a short one, which
    inflates the wall-time slopes of a scaling series (not the CPU-time ones).
    """
    t0 = clock()
    fun()
    once = clock() - t0
    if once > budget:
        return once
    number = max(1, int(min_total / repeat / max(once, 1e-7)))
    best = np.inf
    for _ in range(repeat):
        t0 = clock()
        for _ in range(number):
            fun()
        best = min(best, (clock() - t0) / number)
    return best


def slope(x, y):
    """Least-squares slope of log y against log x."""
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])
