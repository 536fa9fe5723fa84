"""Compiling kernels by family (geomech._precompile) and what ``geomech inspect`` says meanwhile.

The family tables are checked against what their public functions really call (a fresh
process, every ``*_one``/``*_batch`` kernel that got a signature); the worker processes,
their fallback and the progress lines of the command are checked with families that are
already cached (a cold compilation takes a minute: that is ``benchmarks/bench_startup.py``'s
job, not the suite's).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit

import geomech
from geomech import _precompile
from geomech._precompile import FAMILIES, compile_families, compiling, kernels, missing
from geomech.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(geomech.__file__)))

#: A fresh process: run one family's functions, list the top-level kernels that got compiled
#: or loaded (a kernel's callees are never ``*_one``/``*_batch`` kernels).
USED = """\
import json, sys
from numba.core.registry import CPUDispatcher
from geomech._precompile import FAMILIES
FAMILIES[sys.argv[1]].exercise()
used = set()
for name, mod in list(sys.modules.items()):
    if not name.startswith("geomech.multibody._kernels."):
        continue
    for attr, obj in vars(mod).items():
        if (isinstance(obj, CPUDispatcher) and obj.__module__ == name and obj.signatures
                and attr.endswith(("_one", "_batch"))):
            used.add(name.removeprefix("geomech.multibody._kernels.") + ":" + attr)
print(json.dumps(sorted(used)))
"""


@pytest.mark.parametrize("name", list(FAMILIES))
def test_a_family_lists_exactly_the_kernels_its_functions_call(name):
    proc = subprocess.run(
        [sys.executable, "-c", USED, name],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": ROOT},
        timeout=900,
        check=True,
    )
    assert json.loads(proc.stdout.splitlines()[-1]) == sorted(FAMILIES[name].kernels)


def test_every_kernel_of_every_family_is_a_cached_dispatcher():
    for name in FAMILIES:
        for kernel in kernels(name):
            assert kernel._cache is not None
            assert _precompile._cached(kernel) in (True, False)


def test_cached_cannot_tell_without_a_cache():
    assert _precompile._cached(object()) is None


def test_families_are_cached_after_compiling_them():
    compile_families(["kinematics", "crba"], jobs=1)
    assert missing(["kinematics", "crba"]) == []


def test_workers_compile_and_report_each_family():
    done = []
    seconds = compile_families(
        ["crba", "kinematics"], jobs=2, report=lambda name, s: done.append((name, s))
    )
    assert sorted(name for name, _ in done) == ["crba", "kinematics"]
    assert all(s >= 0 for _, s in done) and seconds >= 0


def test_without_worker_processes_the_families_compile_here(monkeypatch):
    monkeypatch.setattr(sys, "executable", os.path.join(ROOT, "no-such-python"))
    done = []
    compile_families(["crba", "kinematics"], jobs=2, report=lambda name, s: done.append(name))
    assert sorted(done) == ["crba", "kinematics"]


def test_a_worker_that_fails_leaves_its_family_to_this_process(monkeypatch):
    """A worker that dies (here: every worker exits at once) hands its family back."""
    monkeypatch.setattr(_precompile, "_WORKER", "raise SystemExit(3)  # {root}")
    done = []
    compile_families(["crba", "kinematics"], jobs=2, report=lambda name, s: done.append(name))
    assert sorted(done) == ["crba", "kinematics"]


def test_jobs_from_the_environment(monkeypatch):
    monkeypatch.setenv("GEOMECH_COMPILE_JOBS", "3")
    assert _precompile.default_jobs() == 3
    monkeypatch.setenv("GEOMECH_COMPILE_JOBS", "zero")
    assert _precompile.default_jobs() >= 1


def test_compiling_reports_and_times_a_compilation():
    @njit
    def twice(x):
        return 2.0 * x

    seen = []
    with compiling(seen.append) as c:
        assert twice(1.5) == 3.0
    assert seen == ["twice"] and c.names == ["twice"] and c.seconds > 0.0
    with compiling() as c:  # compiled already: nothing to report
        twice(2.5)
    assert c.names == [] and c.seconds == 0.0


# ---- what geomech inspect says ----------------------------------------------------------
def _pretend_cold(monkeypatch, cold):
    """``missing`` reports ``cold``; compiling them takes 'seconds' that are made up."""
    monkeypatch.setattr(_precompile, "missing", lambda names: [n for n in names if n in cold])

    def compile_families(names, jobs=None, report=None):
        for n in names:
            report(n, 1.25)
        return 2.5

    monkeypatch.setattr(_precompile, "compile_families", compile_families)


def test_inspect_says_at_once_what_it_compiles(monkeypatch, capsys):
    _pretend_cold(monkeypatch, {"rnea-aba", "coriolis"})
    assert main(["inspect", "double_pendulum"]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert lines[0].startswith("geomech inspect: first run: compiling numba kernels once, ")
    assert "later runs load them from the cache" in lines[0]
    assert lines[1] == "geomech inspect:   2 kernel families: rnea-aba, coriolis"
    assert "[1/2] rnea-aba done in 1.2 s: rnea, aba, gravity_forces" in lines[2]
    assert "[2/2] coriolis done in 1.2 s" in lines[3]
    assert lines[-1] == "geomech inspect: kernels compiled in 2.5 s"
    assert "kernels compiled first in 2.50 s" in out  # apart from the times per call
    assert "(2.50 s of it compiling the kernels, once)" in out


def test_inspect_json_reports_the_compile_time(monkeypatch, capsys):
    _pretend_cold(monkeypatch, {"crba"})
    assert main(["inspect", "double_pendulum", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["compile_s"] == pytest.approx(2.5)


def test_inspect_is_silent_when_everything_is_cached(monkeypatch, capsys):
    _pretend_cold(monkeypatch, set())
    assert main(["inspect", "double_pendulum", "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and json.loads(out)["compile_s"] == 0.0


def test_inspect_of_a_group_compiles_nothing(monkeypatch, capsys):
    _pretend_cold(monkeypatch, set(FAMILIES))
    assert main(["inspect", "SO3"]) == 0
    assert capsys.readouterr().err == ""


FOUR_BAR = os.path.join(ROOT, "geomech", "multibody", "io", "data", "four_bar.urdf")


@pytest.mark.parametrize(
    "model, families",
    [
        ("double_pendulum", ["rnea-aba", "crba", "coriolis", "christoffel", "kinematics"]),
        (FOUR_BAR, ["closed", "crba", "coriolis", "christoffel", "kinematics"]),
    ],
)
def test_inspect_compiles_the_families_its_report_calls(monkeypatch, capsys, model, families):
    asked = []
    monkeypatch.setattr(_precompile, "missing", lambda names: asked.extend(names) or [])
    assert main(["inspect", model]) == 0
    assert asked == families


def test_families_of_models_without_a_connection_report():
    from types import SimpleNamespace

    from geomech.cli import MAX_NV_CONNECTIONS, _families

    assert _families(SimpleNamespace(nv=0)) == []
    big = SimpleNamespace(nv=MAX_NV_CONNECTIONS + 1, is_closed=False)
    assert _families(big) == ["rnea-aba", "crba"]


def test_a_kernel_outside_the_families_is_announced(monkeypatch, capsys):
    """A compilation the families did not foresee still gets a line (and counts)."""
    from geomech import cli

    @njit
    def unforeseen(x):
        return x + 1.0

    real = cli._inspect_model

    def inspect_model(*args):
        unforeseen(np.float64(1.0))
        return real(*args)

    monkeypatch.setattr(cli, "_inspect_model", inspect_model)
    _pretend_cold(monkeypatch, set())
    assert main(["inspect", "double_pendulum"]) == 0
    out, err = capsys.readouterr()
    assert "first run: compiling numba kernels once" in err
    assert "compiling unforeseen ..." in err
    assert "kernels compiled first in" in out
