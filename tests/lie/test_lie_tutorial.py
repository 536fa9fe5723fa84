"""The Lie-group tutorial runs headless (sphinx-gallery executes it the same way)."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

TUTORIAL = Path(__file__).resolve().parents[2] / "tutorials" / "01_lie_groups_and_frames.py"


@pytest.mark.skipif(not TUTORIAL.exists(), reason="tutorial not present")
def test_tutorial_01_runs(monkeypatch, capsys):
    plt = pytest.importorskip("matplotlib.pyplot")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    plt.switch_backend("Agg")
    try:
        runpy.run_path(str(TUTORIAL), run_name="__main__")
    finally:
        plt.close("all")
    out = capsys.readouterr().out
    assert "SingularityError" in out and "batch shape: (100, 100, 4, 4)" in out
