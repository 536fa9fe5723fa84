"""Shared fixtures: seeded generators only."""

import os
import tempfile

import numpy as np
import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
# tutorials run by the tests (runpy) end with geomech.plot.show_or_save(): headless, it saves
# their figures; keep them out of tutorials/
os.environ.setdefault("GEOMECH_FIGURES", tempfile.mkdtemp(prefix="geomech-figures-"))


@pytest.fixture
def rng():
    """A seeded generator, fresh for every test."""
    return np.random.default_rng(20231222)
