"""Fixtures for the geomech.lie tests."""

from __future__ import annotations

import pytest
from lie_helpers import GROUP_IDS, GROUPS

from geomech.lie import LieGroup


@pytest.fixture(params=GROUPS, ids=GROUP_IDS)
def group(request) -> LieGroup:
    """Each group of ``GROUPS`` in turn."""
    return request.param


@pytest.fixture(params=[False, True], ids=["uniform", "near_identity"])
def near_identity(request) -> bool:
    """Sample uniformly, then near the identity."""
    return request.param


@pytest.fixture(scope="module")
def geomstats_spaces():
    """``{group: group.to_geomstats()}``; geomstats is imported once, lazily, here."""
    pytest.importorskip("geomstats")
    return {G: G.to_geomstats() for G in GROUPS}
