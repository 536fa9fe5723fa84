"""The derivatives tutorial runs headless and shows what it claims."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

TUTORIAL = Path(__file__).resolve().parents[2] / "tutorials" / "10_derivatives_of_the_dynamics.py"


def _number(out: str, label: str) -> float:
    match = re.search(re.escape(label) + r"\s*([-+0-9.e]+)", out)
    assert match, f"{label!r} not printed"
    return float(match.group(1))


def test_tutorial_10_runs(monkeypatch, capsys):
    plt = pytest.importorskip("matplotlib.pyplot")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    plt.switch_backend("Agg")
    try:
        ns = runpy.run_path(str(TUTORIAL), run_name="__main__")
    finally:
        plt.close("all")
    out = capsys.readouterr().out
    assert _number(out, "gradient vs finite differences (max rel. error):") < 1e-7
    assert _number(out, "Newton Hessian vs finite differences (max rel. error):") < 1e-6
    # without the second-order term the Hessian is visibly off
    assert _number(out, "Gauss-Newton Hessian vs finite differences (max rel. error):") > 1e-5
    assert _number(out, "gradient norm at the Newton solution:") < 1e-5
    assert _number(out, "linear rate") > 0.1  # Gauss-Newton: linear convergence
    gaps = ns["J_newton"] - ns["J_star"]
    assert gaps[-1] <= 1e-12 * ns["J_star"]
    assert len(ns["J_newton"]) < len(ns["J_gn"])
