"""The induced-connections tutorial runs headless and shows what it claims."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

TUTORIAL = Path(__file__).resolve().parents[2] / "tutorials" / "05_induced_connections.py"


def _number(out: str, label: str) -> float:
    match = re.search(re.escape(label) + r"\s*([-+0-9.e]+)", out)
    assert match, f"{label!r} not printed"
    return float(match.group(1))


@pytest.mark.skipif(not TUTORIAL.exists(), reason="tutorial not present")
def test_tutorial_05_runs(monkeypatch, capsys):
    plt = pytest.importorskip("matplotlib.pyplot")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    plt.switch_backend("Agg")
    try:
        runpy.run_path(str(TUTORIAL), run_name="__main__")
    finally:
        plt.close("all")
    out = capsys.readouterr().out
    assert _number(out, "max distance from the great-circle planes:") < 1e-8
    assert _number(out, "relative drift of the Clairaut momentum:") < 1e-8
    assert _number(out, "|Gamma_bar(beta) - Gamma_bar(0)| =") < 1e-12
    assert "with torsion: torsion free False, metric compatible True" in out
    assert _number(out, "max |H_bar_dot - 2 C_bar|:") < 1e-7
    assert _number(out, "max |crank acceleration (multipliers) - (projection)|:") < 1e-8
    assert "induced from C*: True  induced from the twisted tree: False" in out
