"""Helpers of the paper-reproduction benchmarks ``bench_seed001.py`` and ``bench_seed002.py``.

Not a benchmark itself (``run.py`` runs ``bench_*``). The machine these run on is shared: every
timing here is *round-robin* — each round times a short block of calls of every contender in
turn, so that a burst of load from other processes hits all of them — and is reported as the
median over the rounds with the range (smallest and largest round), beside the load average.

Derived numbers (slopes, orderings, ratios) use the smallest round, :func:`best`: each round is
the mean over a block of calls, and on a loaded machine the least disturbed block estimates
the uncontended time, while the median mostly measures how often the other processes ran.
"""

from __future__ import annotations

import os
import time

import numpy as np

US = 1e6


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages and the number of CPUs, as one line."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:  # not available on this platform
        return f"load average unavailable; {os.cpu_count()} CPUs"
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def _calls_per_block(fun, block: float) -> int:
    t0 = time.perf_counter()
    fun()
    once = max(time.perf_counter() - t0, 1e-7)
    return max(1, int(block / once))


def round_robin(funs: dict, rounds: int = 15, block: float = 0.002, seed: int = 0) -> dict:
    """Per-call times (s) of every ``funs[name]()`` over interleaved rounds.

    Every function is called once to warm up (numba compilation, caches) and once more to size
    its block (about ``block`` seconds of calls, at least one call). Each round then times one
    block of each function, in an order shuffled round by round. Before each block the process
    sleeps a millisecond or so: on a loaded machine the scheduler then starts the block at the
    beginning of a time slice, so that a short block is rarely cut by another process, and
    rounds of equal length cannot lock in phase with the scheduler's periods.

    Returns
    -------
    dict
        ``name -> ndarray, shape (rounds,)``: the time per call in each round.
    """
    for fun in funs.values():
        fun()
    sizes = {name: _calls_per_block(fun, block) for name, fun in funs.items()}
    out = {name: np.empty(rounds) for name in funs}
    names = list(funs)
    rng = np.random.default_rng(seed)
    for r in range(rounds):
        for k in rng.permutation(len(names)):
            name = names[k]
            fun, n = funs[name], sizes[name]
            time.sleep(rng.uniform(0.0005, 0.0015))
            t0 = time.perf_counter()
            for _ in range(n):
                fun()
            out[name][r] = (time.perf_counter() - t0) / n
    return out


def med(times) -> float:
    """Median of the per-round times."""
    return float(np.median(times))


def best(times) -> float:
    """Smallest per-round time: the estimate of the uncontended time per call."""
    return float(np.min(times))


def fmt_us(times, width: int = 7) -> str:
    """``median [min–max]`` of per-call times, in microseconds."""
    t = np.asarray(times) * US
    return f"{np.median(t):{width}.1f} [{t.min():.1f}–{t.max():.1f}]"


def slope(x, y) -> float:
    """Least-squares slope of log y against log x."""
    return float(np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)[0])


def dense_floor(nv: int):
    """A call that allocates and zeroes a dense (nv, nv, nv) array: the least a dense Γ costs."""

    def floor():
        out = np.empty((nv, nv, nv))
        out.fill(0.0)
        return out

    return floor
