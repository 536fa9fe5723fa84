"""Doctest namespace: every doctest may use ``np`` and ``gm``."""

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _doctest_namespace(doctest_namespace):
    import geomech as gm

    doctest_namespace["np"] = np
    doctest_namespace["gm"] = gm
