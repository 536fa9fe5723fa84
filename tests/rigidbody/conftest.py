"""Fixtures for the geomech.rigidbody tests: groups, seeded random inertias and bodies."""

from __future__ import annotations

import pytest
from rb_helpers import (
    GROUP_IDS,
    GROUPS,
    NONABELIAN,
    NONABELIAN_IDS,
    SUBGROUP_IDS,
    SUBGROUPS,
    near_identity,
    random_spd,
)

from geomech.rigidbody import RigidBody


@pytest.fixture(params=GROUPS, ids=GROUP_IDS)
def group(request):
    return request.param


@pytest.fixture(params=NONABELIAN, ids=NONABELIAN_IDS)
def nonabelian(request):
    return request.param


@pytest.fixture(params=SUBGROUPS, ids=SUBGROUP_IDS)
def subgroup(request):
    return request.param


@pytest.fixture(params=["uniform", "near_identity"])
def sample(request, rng):
    """``sample(group)`` -> a group element, uniform or near the identity."""
    if request.param == "uniform":
        return lambda G: G.random(rng)
    return lambda G: near_identity(G, rng)


@pytest.fixture
def body(group, rng):
    """A free body on ``group`` with a random full SPD inertia."""
    return RigidBody(group, random_spd(rng, group.dim))
