"""Doctest namespace: every doctest may use ``np`` and ``gm``; the benchmarks' compiled
baselines (``benchmarks/baselines.py``, seed 004's projection and Lagrange methods) import in
tests as ``baselines``.
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
