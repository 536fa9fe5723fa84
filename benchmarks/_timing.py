"""Timing helpers shared by the benchmark scripts (not a benchmark: ``run.py`` runs ``bench_*``)."""

from __future__ import annotations

import time

import numpy as np


def best_time(fun, repeat=5, min_total=0.2, budget=2.0):
    """Best per-call time (s) of ``fun()`` over ``repeat`` timing runs of ~``min_total`` s in all.

    One untimed call first measures the cost; a call longer than ``budget`` seconds is timed
    once only (its first run), so that slow reference algorithms stay affordable.
    """
    t0 = time.perf_counter()
    fun()
    once = time.perf_counter() - t0
    if once > budget:
        return once
    number = max(1, int(min_total / repeat / max(once, 1e-7)))
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fun()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def slope(x, y):
    """Least-squares slope of log y against log x."""
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])
