"""Issue 26 class 7: legal geared mechanisms with 499 couplings stay within the bounds.

Two generated families of 500 revolute links with random axes, placements and inertias:

* **star**: every link hinged on the base, link ``k`` geared to link ``k - 1`` by a coupling
  of ratio :math:`r_k`; the couplings chain all links into one cluster of 500 bodies with one
  degree of freedom;
* **chain**: link ``k`` hinged on link ``k - 1`` and coupled to it; a URDF+ coupling relates
  the joint sums along the two bodies' paths from their nearest common ancestor (the parent:
  an empty path), so each coupling fixes its child's joint (:math:`r q_k = 0`): 499 one-body
  clusters (the case whose closure kernel visited every coupling for every cluster).

Each loads and runs its first ``rnea`` in a forked child within a few seconds and 200 MB above
the interpreter's baseline (the kernels warm in the parent first, as the other timed probes),
and its ``rnea`` and ``crba`` agree with the projection formula
:math:`\\tau = G^\\top\\,\\mathrm{RNEA}_s(q, Gv, Ga)`, :math:`\\bar H = G^\\top H_s G` on the
spanning tree, with :math:`G` written here from the ratios (constant: :math:`\\dot G = 0`).
"""

import os

import networkx as nx
import numpy as np
import pytest

import geomech as gm
from geomech.multibody import ClosedMultibodyModel, Revolute
from geomech.spatial import spatial_inertia
from hardening.hostile_inputs import assert_bounded, run_case

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the harness forks")

N_LINKS = 500
TIME_LIMIT = 3.0  # seconds: load and first rnea of 500 bodies (was 3.6-5.1 s) on a shared machine


def _pose(rng, scale=0.2):
    from scipy.spatial.transform import Rotation

    T = np.eye(4)
    T[:3, :3] = Rotation.random(random_state=rng).as_matrix()
    T[:3, 3] = scale * rng.normal(size=3)
    return T


def geared(kind: str, n: int, seed: int = 26):
    """``(graph, G)``: the mechanism and its constant :math:`G` (n, 1) from the ratios."""
    rng = np.random.default_rng([seed, n, len(kind)])
    # speeds of the links per unit speed of link 0: bounded products of the ratios
    g = np.exp(0.3 * rng.normal(size=n)) * rng.choice([-1.0, 1.0], n)
    g[0] = 1.0
    graph = nx.DiGraph(name=f"geared_{kind}_{n}")
    for k in range(n):
        parent = "world" if kind == "star" or k == 0 else f"l{k - 1}"
        graph.add_edge(parent, f"l{k}", joint=Revolute(rng.normal(size=3)), placement=_pose(rng),
                       name=f"j{k}")  # fmt: skip
        m = float(rng.uniform(0.5, 2.0))
        graph.nodes[f"l{k}"]["inertia"] = spatial_inertia(
            m, 0.1 * rng.normal(size=3), np.diag(rng.uniform(0.01, 0.02, 3))
        )
    if kind == "star":  # r_k q_{k-1} = q_k (siblings: each path is one joint)
        for k in range(1, n):
            graph.add_edge(f"l{k - 1}", f"l{k}", kind="coupling", ratio=float(g[k] / g[k - 1]),
                           name=f"gear{k}")  # fmt: skip
        G = g[:, None]
    else:  # pred l_k, succ l_{k-1} (l_{k-1} -> l_k is the tree edge): the succ path from the
        for k in range(1, n):  # common ancestor l_{k-1} is empty, so r q_k = 0
            graph.add_edge(f"l{k}", f"l{k - 1}", kind="coupling", ratio=float(rng.uniform(2, 9)),
                           name=f"gear{k}")  # fmt: skip
        # every joint but the first is fixed
        G = np.zeros((n, 1))
        G[0, 0] = 1.0
    return graph, G


def _warm():
    """Load the kernels a geared model uses (numba's first call is not the check)."""
    for kind in ("star", "chain"):
        model = ClosedMultibodyModel(geared(kind, 4)[0])
        q, e = model.neutral(), np.ones(model.nv)
        gm.rnea(model, q, e, e)
        gm.crba(model, q)
        model.random_configuration(rng=0)


@pytest.mark.parametrize("kind", ["star", "chain"])
def test_a_499_coupling_geared_mechanism_loads_within_the_bounds(kind):
    graph, _ = geared(kind, N_LINKS)
    _warm()

    def case():
        model = ClosedMultibodyModel(graph)
        q, e = model.neutral(), np.ones(model.nv)
        gm.rnea(model, q, e, e)

    assert_bounded(run_case(case), None, time_limit=TIME_LIMIT)


@pytest.mark.parametrize("kind", ["star", "chain"])
def test_a_499_coupling_geared_mechanism_matches_the_projection_formula(kind):
    graph, G = geared(kind, N_LINKS)
    model = ClosedMultibodyModel(graph)
    assert model.nv == 1 and len(model.constraints) == N_LINKS - 1
    # G relative to the independent joint the model chose (the model's convention)
    i0 = int(model.independent_v_index[0])
    G = G / G[i0]
    st = model.spanning_tree
    rng = np.random.default_rng(7)
    for _ in range(2):
        y = rng.uniform(-1.0, 1.0)
        q = (G * y).ravel()  # closed: the couplings are linear in q
        v, a = rng.normal(size=(2, 1))
        expected = G.T @ gm.rnea(st, q, G @ v, G @ a)
        got = gm.rnea(model, q, v, a)
        assert np.allclose(got, expected, rtol=1e-8, atol=1e-8 * np.abs(expected).max())
        H = G.T @ gm.crba(st, q) @ G
        assert np.allclose(gm.crba(model, q), H, rtol=1e-8)
        Gm, g = model.constraint_matrices(q, v)
        assert np.allclose(Gm, G, rtol=1e-12, atol=1e-12) and np.allclose(g, 0.0, atol=1e-12)
