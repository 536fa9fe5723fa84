"""Shared fixtures: seeded generators only."""

import os

import numpy as np
import pytest

os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture
def rng():
    """A seeded generator, fresh for every test."""
    return np.random.default_rng(20231222)
