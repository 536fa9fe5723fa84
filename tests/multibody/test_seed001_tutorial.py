"""The seed 001 tutorial (14) runs headless and its checks hold.

Its timings depend on the machine and are not asserted; its correctness checks are: Alg. 1
against the contraction of Alg. 2 and against inverse dynamics (an independent recursion),
on the paper's topologies.
"""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

TUTORIAL = Path(__file__).resolve().parents[2] / "tutorials" / "14_reproducing_seed_001.py"


def test_tutorial_14_runs(monkeypatch, capsys, tmp_path):
    plt = pytest.importorskip("matplotlib.pyplot")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("GEOMECH_FIGURES", str(tmp_path))
    plt.switch_backend("Agg")
    try:
        ns = runpy.run_path(str(TUTORIAL), run_name="__main__")
    finally:
        plt.close("all")
    out = capsys.readouterr().out
    rows = re.findall(
        r"nonzero Γ\s+(\d+) of\s+(\d+); \|C - Γ·q̇\| = (\S+), \|C q̇ - RNEA\| = (\S+)", out
    )
    assert len(rows) == 6
    for _nnz, _total, err_gamma, err_rnea in rows:
        assert float(err_gamma) < 1e-9
        assert float(err_rnea) < 1e-8
    nnz = [int(r[0]) for r in rows]
    assert nnz[0] == 20**3  # a chain: every triple lies on one path
    assert nnz[3] < nnz[2]  # four short legs have fewer triples than two long ones
    # the paper's topologies: 20 actuated joints, legs of 10 and 5
    assert ns["systems"]["biped"].depth == 10
    assert ns["systems"]["quadruped"].depth == 5
    assert ns["systems"]["quadruped, floating"].nv == 26
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "14_reproducing_seed_001_1.png",
        "14_reproducing_seed_001_2.png",
    ]
