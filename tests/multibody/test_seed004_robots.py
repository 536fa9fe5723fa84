"""Seed 004's robot set (issue 25): the cluster algorithms against Pinocchio's projection.

The builders of :mod:`geomech.multibody.io.robots` (geared and belt chains, a Mini-Cheetah-like
quadruped, an MIT-Humanoid-like robot, the geared JVRC-1) are closed models whose constraints
are couplings (geared rotors, belts). The reference is independent of geomech's dynamics:

- ``G`` is built here from the graph (each coupling's rotor speed is the ratio times the
  sum of the joint speeds from the nearest common ancestor down to the driven link, the
  URDF+ meaning), ``g = 0``;
- ``H`` and the bias come from Pinocchio's CRBA and RNEA of the spanning tree
  (:func:`geomech.to_pinocchio`, states mapped by ``PinocchioBridge``), and the body
  Jacobians from Pinocchio's joint Jacobians;
- C-RNEA must equal :math:`G^\\top\\mathrm{RNEA}_s(q, Gv, Ga)`, C-ABA
  :math:`(G^\\top HG)^{-1}(\\tau - G^\\top\\mathrm{RNEA}_s(q, Gv, 0))` and C-EFPA
  :math:`JG(G^\\top HG)^{-1}G^\\top J^\\top`, to 1e-9 relative (floored at 1), at random
  states with random speeds, accelerations and forces.
"""

import networkx as nx
import numpy as np
import pinocchio as pin
import pytest

from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
from geomech.multibody.closed.dynamics import (
    cluster_aba,
    cluster_rnea,
    inverse_operational_space_inertia,
)
from geomech.multibody.io import robots as R

RTOL = 1e-9
N_STATES = 4
BUILDERS = {
    "geared_chain": (lambda: R.geared_chain(6, rng=1), ["link6", "link3"]),
    "belt_chain": (lambda: R.belt_chain(6, rng=2), ["link6"]),
    "mini_cheetah": (R.mini_cheetah, ["FR_shank", "HL_shank"]),
    "mit_humanoid": (R.mit_humanoid, ["l_foot", "r_forearm"]),
    "jvrc1_geared": (R.jvrc1_geared, ["L_ANKLE_P_S", "R_WRIST_Y_S"]),
}


def rel_err(actual, expected) -> float:
    scale = max(1.0, float(np.max(np.abs(expected))))
    return float(np.max(np.abs(np.asarray(actual) - expected))) / scale


def coupling_G(model) -> np.ndarray:
    """``G`` (n_s, nv) from the graph alone: rotor speed = ratio × Σ joint speeds to the link."""
    st = model.spanning_tree
    tree = nx.DiGraph((u, v) for u, v, d in model.graph.edges(data=True)
                      if d.get("kind", "joint") == "joint")  # fmt: skip
    G = np.zeros((st.nv, model.nv))
    ind = list(model.independent_v_index)
    for c, j in enumerate(ind):
        G[j, c] = 1.0
    for u, v, d in model.graph.edges(data=True):
        if d.get("kind") != "coupling":
            continue
        link, rotor = u, v
        top = nx.lowest_common_ancestor(tree, link, rotor)
        path = nx.shortest_path(tree, top, link)[1:]
        (j_rotor,) = range(st.v_slices[st.body_index(rotor)].start,
                           st.v_slices[st.body_index(rotor)].stop)  # fmt: skip
        for b in path:
            j = st.v_slices[st.body_index(b)].start
            G[j_rotor] += d["ratio"] * G[j]
    return G


@pytest.fixture(scope="module", params=sorted(BUILDERS))
def setup(request):
    build, ee = BUILDERS[request.param]
    model = build()
    st = model.spanning_tree
    pm = to_pinocchio(st)
    return model, ee, pm, pm.createData(), PinocchioBridge(st, pm), coupling_G(model)


def test_builders_match_table_one():
    """Seed 004 Table I: bodies, clusters and degrees of freedom of the paper's robots."""
    sizes = {
        "geared_chain": (R.geared_chain(12), (24, 12, 12)),
        "belt_chain": (R.belt_chain(12), (24, 6, 12)),
        "mini_cheetah": (R.mini_cheetah(), (25, 13, 18)),
        "mit_humanoid": (R.mit_humanoid(), (37, 17, 24)),
        "jvrc1_geared": (R.jvrc1_geared(), (65, 33, 38)),
    }
    for model, expected in sizes.values():
        assert (model.n_bodies, len(model.clusters), model.nv) == expected


def test_cluster_algorithms_against_pinocchio_projection(setup):
    model, ee, pm, pd, bridge, G = setup
    st = model.spanning_tree
    rng = np.random.default_rng(4)
    Gm, g = model.constraint_matrices(model.neutral(), np.zeros(model.nv))
    assert np.allclose(Gm, G, rtol=0, atol=1e-12) and not np.any(g)  # the graph's G
    T = bridge.v_to_pin(np.eye(st.nv)).T  # v_pin = T v
    eb = [st.body_index(e) for e in ee]
    for _ in range(N_STATES):
        q = model.random_configuration(rng)
        v, a, tau = (rng.normal(size=model.nv) for _ in range(3))
        qp = bridge.q_to_pin(q)
        H = T.T @ pin.crba(pm, pd, qp) @ T
        H = np.triu(H) + np.triu(H, 1).T
        Hb = G.T @ H @ G
        vs, as_ = T @ G @ v, T @ G @ a
        tau_ref = G.T @ T.T @ pin.rnea(pm, pd, qp, vs, as_)
        assert rel_err(cluster_rnea(model, q, v, a), tau_ref) <= RTOL
        bias = G.T @ T.T @ pin.rnea(pm, pd, qp, vs, np.zeros(st.nv))
        a_ref = np.linalg.solve(Hb, tau - bias)
        assert rel_err(cluster_aba(model, q, v, tau), a_ref) <= RTOL
        # C-EFPA: J G Hb⁻¹ Gᵀ Jᵀ with Pinocchio's body Jacobians ([v; ω] rows -> [ω; v])
        pin.computeJointJacobians(pm, pd, qp)
        pin.framesForwardKinematics(pm, pd, qp)
        rows = []
        for b in eb:
            jid, placement = bridge.body_frames[b]
            Jj = pin.getJointJacobian(pm, pd, jid, pin.LOCAL)
            Jf = placement.inverse().toActionMatrix() @ Jj
            rows.append(np.vstack([Jf[3:], Jf[:3]]) @ T @ G)
        J = np.vstack(rows)
        omega_ref = J @ np.linalg.solve(Hb, J.T)
        omega = inverse_operational_space_inertia(model, q, ee)
        assert rel_err(omega, omega_ref) <= RTOL


def test_batched_equals_single_calls(setup):
    """One implementation serves single and batched input (same numbers)."""
    model = setup[0]
    rng = np.random.default_rng(5)
    Q = model.random_configuration(rng, size=3)
    V, A = rng.normal(size=(3, model.nv)), rng.normal(size=(3, model.nv))
    batch = cluster_aba(model, Q, V, A)
    for b in range(3):
        assert np.array_equal(batch[b], cluster_aba(model, Q[b], V[b], A[b]))


def test_cluster_kernels_carry_joint_armature():
    """The cluster kernels on a tree with joint armature (seed 004's approximate model) equal
    the tree's RNEA and its mass matrix: :math:`\\tau = H\\dot v + c` with
    :math:`H = H_{\\rm rigid} + \\mathrm{diag}(k_a)` (the tree CRBA), and C-EFPA equals
    :math:`JH^{-1}J^\\top` with that :math:`H`."""
    from geomech import crba, rnea
    from geomech.multibody.closed.transmission import approximate_transmission_model

    rng = np.random.default_rng(6)
    for model, ee in ((R.mini_cheetah(), ["FR_shank", "HL_shank"]),
                      (R.belt_chain(4, rng=3), ["link4"])):  # fmt: skip
        approx = approximate_transmission_model(model)
        assert np.any(approx.armature > 0)
        q = approx.random_configuration(rng)
        v, a = rng.normal(size=approx.nv), rng.normal(size=approx.nv)
        H = crba(approx, q)
        c = rnea(approx, q, v, np.zeros(approx.nv))
        assert rel_err(cluster_rnea(approx, q, v, a), H @ a + c) <= RTOL
        assert rel_err(cluster_aba(approx, q, v, H @ a + c), a) <= 1e-8
        W = inverse_operational_space_inertia(approx, q, ee)
        W_ref = inverse_operational_space_inertia(approx, q, ee, method="projection")
        assert rel_err(W, W_ref) <= RTOL
