"""Shared fixtures of the multibody tests: seeded random trees mixing every joint type."""

import networkx as nx
import numpy as np
import pytest

from geomech.lie import SO3
from geomech.multibody import (
    Fixed,
    FreeFlyer,
    Helical,
    MultibodyModel,
    Planar,
    Prismatic,
    Revolute,
    SchoenfliesJoint,
    Spherical,
)
from geomech.multibody.io.robots import random_inertia

#: Joint factories used by :func:`mixed_tree` (name -> rng -> Joint).
JOINT_FACTORIES = {
    "revolute": lambda rng: Revolute(rng.normal(size=3)),
    "prismatic": lambda rng: Prismatic(rng.normal(size=3)),
    "helical": lambda rng: Helical(rng.normal(size=3), pitch=rng.uniform(-0.5, 0.5)),
    "spherical": lambda rng: Spherical(),
    "planar": lambda rng: Planar(),
    "schoenflies": lambda rng: SchoenfliesJoint(),
    "free_flyer": lambda rng: FreeFlyer(),
    "fixed": lambda rng: Fixed(),
}


def random_pose(rng, scale=0.5):
    T = np.eye(4)
    T[:3, :3] = SO3.random(rng)
    T[:3, 3] = rng.uniform(-scale, scale, 3)
    return T


def mixed_tree(n, rng, kinds=None, floating_base=None):
    """A random tree of ``n`` bodies built as a networkx graph by hand.

    Parents are uniform over the earlier bodies (so depths vary), joints are drawn from
    ``kinds`` (default: every type, 1-DoF joints three times as likely), placements are
    random poses and inertias random boxes (``robots.random_inertia``). The first body hangs
    from the world by a free flyer when ``floating_base`` (default: a coin flip).
    """
    if kinds is None:
        kinds = ["revolute"] * 3 + ["prismatic"] * 2 + ["helical"] + list(JOINT_FACTORIES)
    if floating_base is None:
        floating_base = bool(rng.integers(2))
    G = nx.DiGraph(name=f"mixed_tree_{n}")
    G.add_node("world")
    inertias = random_inertia(rng, n)
    for i in range(n):
        p = -1 if i == 0 else int(rng.integers(-1, i))
        parent = "world" if p < 0 else f"b{p}"
        kind = "free_flyer" if (i == 0 and floating_base) else kinds[rng.integers(len(kinds))]
        if i == 0 and kind == "fixed":
            kind = "revolute"  # keep nv > 0
        G.add_node(f"b{i}", inertia=inertias[i])
        G.add_edge(
            parent,
            f"b{i}",
            joint=JOINT_FACTORIES[kind](rng),
            placement=random_pose(rng),
            name=f"j{i}_{kind}",
        )
    return MultibodyModel(G)


def random_state(model, rng, size=None):
    """(q, v, a) with q uniform on the configuration manifold and v, a standard normal."""
    shape = () if size is None else (size,) if np.isscalar(size) else tuple(size)
    q = model.random_configuration(rng, size=size)
    return q, rng.normal(size=shape + (model.nv,)), rng.normal(size=shape + (model.nv,))


@pytest.fixture(name="mixed_tree")
def mixed_tree_fixture():
    """The factory :func:`mixed_tree` (tests build their models from parameters)."""
    return mixed_tree


@pytest.fixture(name="random_state")
def random_state_fixture():
    """The factory :func:`random_state`."""
    return random_state
