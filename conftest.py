"""Doctest namespace: every doctest may use ``np`` and ``gm``; the benchmarks' compiled
baselines (``benchmarks/baselines.py``, seed 004's projection and Lagrange methods) import in
tests as ``baselines``.

A whole-suite run (``python -m pytest`` without paths) compiles the numba kernels of
``geomech._precompile.FAMILIES`` that are not cached yet before the tests start, one worker
process per CPU: on a cold cache (a fresh clone) every pytest-xdist worker would otherwise
compile the same kernels (rnea, crba, aba, the Coriolis matrix, ...) side by side; afterwards
they load them from numba's cache. The other kernels compile in the worker whose test file
uses them first (``--dist loadfile``).
"""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "benchmarks"))


@pytest.fixture(autouse=True)
def _doctest_namespace(doctest_namespace):
    import geomech as gm

    doctest_namespace["np"] = np
    doctest_namespace["gm"] = gm


def pytest_configure(config):
    """Compile the uncached kernel families first, in parallel (whole-suite runs only)."""
    if (
        hasattr(config, "workerinput")  # a pytest-xdist worker: its controller did it
        or config.args_source is not pytest.Config.ArgsSource.TESTPATHS
        or config.option.collectonly
    ):
        return
    try:  # a geomech that does not import fails in the tests, with their report
        from geomech._precompile import FAMILIES, compile_families, default_jobs, missing

        names = missing(FAMILIES)
        if not names:
            return
        jobs = min(len(names), default_jobs())
        wall = compile_families(names, jobs=jobs)
        line = f"compiled the kernel families {', '.join(names)} in {wall:.0f} s ({jobs} processes)"
    except Exception as exc:  # noqa: BLE001
        line = f"the kernel families were not compiled first ({exc!r})"
    with config.pluginmanager.get_plugin("capturemanager").global_and_fixture_disabled():
        print(f"numba cache: {line}", flush=True)
