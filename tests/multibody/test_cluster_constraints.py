"""The compiled per-cluster constraint matrices G, g and Ġ (kernels.cluster_constraints).

References independent of the kernel:

* G: the constraint residual (the model's Python residual, loop-joint coordinates fitted
  by Gauss–Newton on the log of the loop error) stays zero to second order along the
  spanning-tree flow q ⊕ h G v, and K G = 0 with the model's full-row-rank K;
* Ġ and g: central differences of G(q(t)) and G(q(t)) v along a constraint-consistent
  path q(t) (``model.integrate``: the independent joints move at constant speed v, the
  dependent ones are restored by Newton's method), since q̈_s = G v̇ + Ġ v with v̇ = 0;
* the least-squares kernels: numpy's ``lstsq``.
The previous numpy formulas (``_matrices_single``) stay as a cross-check.
"""

import networkx as nx
import numpy as np
import pytest
from baselines import explicit_constraint

from geomech.errors import NotOnManifoldError
from geomech.multibody import ClosedMultibodyModel, Revolute
from geomech.multibody._kernels import joints as J
from geomech.multibody._kernels.cluster import constraints as CC
from geomech.multibody._kernels.cluster import tables as CT
from geomech.multibody._kernels.cluster.compiled import cluster_layout
from geomech.multibody.closed.model import ImplicitConstraint
from geomech.multibody.io.examples import load_example
from geomech.spatial import spatial_inertia

LOOPS = ["four_bar", "six_bar", "planar_leg"]


def at(x=0.0, y=0.0, z=0.0):
    T = np.eye(4)
    T[:3, 3] = x, y, z
    return T


def body(com):
    return spatial_inertia(1.0, list(com), 0.01 * np.eye(3))


def geared_four_bar(implicit=False):
    """A four-bar whose crank is driven by a rotor on the ground: one cluster holding a loop
    joint and a coupling (or, with ``implicit``, a cam given as a Python callable)."""
    z = [0.0, 0.0, 1.0]
    G = nx.DiGraph(name="geared_four_bar")
    G.add_edge("world", "crank", joint=Revolute(z), name="A")
    G.add_edge("crank", "coupler", joint=Revolute(z), placement=at(0, 1), name="B")
    G.add_edge("world", "rocker", joint=Revolute(z), placement=at(3, 0), name="D")
    G.add_edge("coupler", "rocker", kind="loop", joint=Revolute(z), placement=at(2, 0),
               successor_placement=at(-1, 1), name="C")  # fmt: skip
    G.add_edge("world", "rotor", joint=Revolute(z), placement=at(0, 0, -0.1), name="R",
               independent=False)  # fmt: skip
    if implicit:
        G.graph["constraints"] = [
            ImplicitConstraint(
                ["A", "R"], lambda q: [5.0 * q[0] + 0.2 * np.sin(q[0]) - q[1]], name="cam"
            )
        ]
    else:
        G.add_edge("crank", "rotor", kind="coupling", ratio=5.0, name="gear")
    for node, com in (("crank", [0, 0.5, 0]), ("coupler", [1, 0, 0]), ("rocker", [-0.5, 0.5, 0]),
                      ("rotor", [0, 0, 0])):  # fmt: skip
        G.nodes[node]["inertia"] = body(com)
    return ClosedMultibodyModel(G)


def models():
    out = [(name, load_example(name)) for name in LOOPS]
    out.append(("four_bar floating", load_example("four_bar", floating_base=True)))
    out.append(("geared four-bar", geared_four_bar()))
    return out


MODELS = models()
IDS = [name for name, _ in MODELS]


@pytest.mark.parametrize("model", [m for _, m in MODELS], ids=IDS)
def test_kernel_mode_for_built_in_loops(model):
    lay = cluster_layout(model)
    modes = lay._tables[0][:, CT.MODE]
    assert lay.certifies_closure
    for k, c in enumerate(model.clusters):
        has_loop = any(con.kind == "loop" for con in c.constraints)
        assert (modes[k] == CC.KERNEL) == has_loop


@pytest.mark.parametrize("model", [m for _, m in MODELS], ids=IDS)
def test_G_keeps_the_constraints_along_the_flow(model):
    """φ(q ⊕ h G v) = O(h²): halving h divides the residual by about 4, and K G = 0."""
    rng = np.random.default_rng(3)
    st = model.spanning_tree
    for q in model.random_configuration(rng, size=3):
        v = rng.normal(size=model.nv)
        G, _ = model.constraint_matrices(q, v)
        K = model.constraint_jacobian(q)
        assert np.max(np.abs(K @ G)) < 1e-11
        w = G @ v
        r1 = np.max(np.abs(model.constraint_residual(st.integrate(q, 1e-3 * w))))
        r2 = np.max(np.abs(model.constraint_residual(st.integrate(q, 5e-4 * w))))
        assert r1 < 1e-4 and r2 < 0.3 * r1 + 1e-12
        # a wrong G (dependent rows scaled) leaves the manifold at first order
        bad = w.copy()
        bad[np.setdiff1d(np.arange(st.nv), model.independent_v_index)] *= 1.1
        assert np.max(np.abs(model.constraint_residual(st.integrate(q, 1e-3 * bad)))) > 10 * r1


@pytest.mark.parametrize("model", [m for _, m in MODELS], ids=IDS)
def test_G_dot_and_g_by_central_differences_along_a_consistent_path(model):
    rng = np.random.default_rng(5)
    h = 1e-5
    for q in model.random_configuration(rng, size=2):
        v = rng.normal(size=model.nv)
        G, g, Gd = model.constraint_matrices(q, v, rate=True)
        qp, qm = model.integrate(q, v, h), model.integrate(q, v, -h)
        Gp, _ = model.constraint_matrices(qp, v)
        Gm, _ = model.constraint_matrices(qm, v)
        Gd_fd = (Gp - Gm) / (2 * h)
        scale = max(1.0, np.max(np.abs(Gd_fd)))
        assert np.max(np.abs(Gd - Gd_fd)) < 1e-6 * scale
        assert np.max(np.abs(g - Gd_fd @ v)) < 1e-6 * scale * max(1.0, np.max(np.abs(v)))
        # q̈_s = G v̇ + g is the second derivative of the consistent path (v̇ = 0)
        qdd_fd = model.spanning_tree.difference(qm, qp) / (2 * h)  # = q̇_s(0) to O(h²)
        assert np.max(np.abs(qdd_fd - G @ v)) < 1e-6 * max(1.0, np.max(np.abs(G @ v)))


@pytest.mark.parametrize("model", [m for _, m in MODELS], ids=IDS)
def test_kernel_equals_the_numpy_formulas_single_and_batched(model):
    rng = np.random.default_rng(7)
    Q = model.random_configuration(rng, size=(2, 3))
    V = rng.normal(size=(2, 3, model.nv))
    G, g, Gd = model.constraint_matrices(Q, V, rate=True)
    assert G.shape == (2, 3, model.spanning_tree.nv, model.nv)
    for idx in np.ndindex(2, 3):
        G1, g1, Gd1 = model._matrices_single(Q[idx], V[idx], True)
        scale = max(1.0, np.max(np.abs(Gd1)))
        assert np.max(np.abs(G[idx] - G1)) < 1e-12 * max(1.0, np.max(np.abs(G1)))
        assert np.max(np.abs(g[idx] - g1)) < 1e-11 * scale * max(1.0, np.max(np.abs(V[idx])))
        assert np.max(np.abs(Gd[idx] - Gd1)) < 1e-11 * scale
        Gs, gs, Gds = model.constraint_matrices(Q[idx], V[idx], rate=True)  # single state
        assert np.array_equal(Gs, G[idx]) and np.array_equal(gs, g[idx])
        assert np.array_equal(Gds, Gd[idx])
    # one configuration shared by several speeds
    G2, g2 = model.constraint_matrices(Q[0, 0], V[0])
    assert np.allclose(G2, G[0, 0], rtol=0, atol=1e-14)
    assert np.allclose(g2[0], g[0, 0], rtol=0, atol=1e-13)


def test_cluster_matrices_blocks_from_the_kernel():
    model = geared_four_bar()
    rng = np.random.default_rng(2)
    q, v = model.random_configuration(rng), rng.normal(size=model.nv)
    ((G_k, g_k, Gd_k),) = model.cluster_matrices(q, v)
    G, g, Gd = model._matrices_single(q, v, True)
    c = model.clusters[0]
    assert np.allclose(G_k, G[c.v_index][:, c.y_index], atol=1e-13)
    assert np.allclose(Gd_k, Gd[c.v_index][:, c.y_index], atol=1e-12)
    assert np.allclose(g_k, g[c.v_index], atol=1e-12)


def test_implicit_constraints_keep_the_two_stage_path():
    model = geared_four_bar(implicit=True)
    lay = cluster_layout(model)
    assert not lay.certifies_closure and lay._python_rows.size
    rng = np.random.default_rng(4)
    Q = model.random_configuration(rng, size=3)
    V = rng.normal(size=(3, model.nv))
    G, g, Gd = model.constraint_matrices(Q, V, rate=True)
    for b in range(3):
        G1, g1, Gd1 = model._matrices_single(Q[b], V[b], True)
        assert np.allclose(G[b], G1, atol=1e-12) and np.allclose(g[b], g1, atol=1e-10)
        assert np.allclose(Gd[b], Gd1, atol=1e-10)


@pytest.mark.parametrize("model", [m for _, m in MODELS], ids=IDS)
def test_open_configurations_are_rejected_with_the_models_message(model):
    rng = np.random.default_rng(6)
    Q = model.random_configuration(rng, size=3)
    dep = model.q_slice(model.dependent_joints[0]).start
    Q[1, dep] += 1e-3
    with pytest.raises(NotOnManifoldError, match="satisfy the loop constraints"):
        model.check_configuration(Q)
    with pytest.raises(NotOnManifoldError, match="satisfy the loop constraints"):
        model.constraint_matrices(Q, np.zeros(model.nv))
    Q[1, dep] -= 1e-3 - 1e-13  # within the tolerance: accepted
    model.check_configuration(Q)
    assert np.isfinite(model.constraint_matrices(Q, np.zeros(model.nv))[0]).all()


def test_loop_residual_closed_forms():
    """The kernel's residual of a fixed, revolute, prismatic, helical and spherical loop
    joint vanishes on the joint's poses and not off them."""
    rng = np.random.default_rng(8)
    ax = rng.normal(size=3)
    ax /= np.linalg.norm(ax)
    W = np.empty((3, 3))
    th = 0.7
    Kx = np.array([[0, -ax[2], ax[1]], [ax[2], 0, -ax[0]], [-ax[1], ax[0], 0]])
    R = np.eye(3) + np.sin(th) * Kx + (1 - np.cos(th)) * Kx @ Kx
    cases = [
        (J.REVOLUTE, R, np.zeros(3)),
        (J.PRISMATIC, np.eye(3), 0.4 * ax),
        (J.HELICAL, R, 0.3 * th * ax),
        (J.FIXED, np.eye(3), np.zeros(3)),
        (J.SPHERICAL, R @ np.linalg.qr(rng.normal(size=(3, 3)))[0], np.zeros(3)),
    ]
    for code, RM, p in cases:
        if code == J.SPHERICAL and np.linalg.det(RM) < 0:
            RM = -RM
        assert CC._loop_residual(code, ax, 0.3, np.ascontiguousarray(RM.T), p, W) < 1e-14
        off = CC._loop_residual(
            code,
            ax,
            0.3,
            np.ascontiguousarray(RM.T),
            p + 1e-3 * np.array([ax[1], -ax[0], 0.0]) / np.hypot(ax[0], ax[1]),
            W,
        )
        assert 5e-4 < off < 2e-3


def test_householder_least_squares_equals_lstsq():
    rng = np.random.default_rng(9)
    for m, n, nb in ((6, 3, 1), (12, 4, 2), (7, 7, 3)):
        A, B = rng.normal(size=(m, n)), rng.normal(size=(m, nb))
        if m > n:
            A[1] = A[0]  # redundant rows are fine
        QR, tau, Bw, X = A.copy(), np.empty(n), B.copy(), np.empty((n, nb))
        assert CC.householder_qr(QR, m, n, tau)
        CC.qr_solve(QR, m, n, tau, Bw, nb, X)
        assert np.allclose(X, np.linalg.lstsq(A, B, rcond=None)[0], atol=1e-12)
        A[:, -1] = A[:, 0]  # rank deficient columns: reported
        assert not CC.householder_qr(A.copy(), m, n, np.empty(n))


def test_explicit_constraint_of_the_lagrange_baseline():
    model = load_example("six_bar")
    rng = np.random.default_rng(10)
    q, v, a = model.random_configuration(rng), rng.normal(size=1), rng.normal(size=1)
    G, g = model.constraint_matrices(q, v)
    K, k = explicit_constraint(G[None], g[None], model.independent_v_index)
    assert np.linalg.matrix_rank(K[0]) == K.shape[1]
    assert np.max(np.abs(K[0] @ G)) < 1e-14
    assert np.allclose(K[0] @ (G @ a + g), k[0], atol=1e-13)
