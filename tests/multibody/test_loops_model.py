"""Closed models: graphs with loops, spanning tree, independent coordinates, clusters,
configurations on the constraint manifold, and the constraint matrices G, g, Ġ.

G and g are checked against finite differences along constraint-consistent paths (the
independent coordinates follow y0 + v t + a t²/2 and the dependent ones are solved by Newton's
method, which uses only the position-level constraint), Ġ against central differences of G
along the same paths, and K G = 0, K g = k against the full-row-rank constraint Jacobian.
"""

import networkx as nx
import numpy as np
import pytest
from loops_helpers import consistent_path, rel_err

from geomech.errors import (
    DimensionError,
    ModelError,
    NotATreeError,
    NotOnManifoldError,
    SingularityError,
)
from geomech.multibody import FreeFlyer, MultibodyModel, Prismatic, Revolute, Spherical
from geomech.multibody.closed.clusters import output_bodies, partition_clusters
from geomech.multibody.closed.model import (
    ClosedMultibodyModel,
    ImplicitConstraint,
)
from geomech.multibody.io.examples import example_names, load_example
from geomech.multibody.model.tree import declares_closures
from geomech.spatial import spatial_inertia

FIXED = ["four_bar", "six_bar", "planar_leg", "geared_chain", "belt_leg"]


def body(com=(0.0, 0.0, 0.0), m=1.0):
    return spatial_inertia(m, list(com), 0.01 * m * np.eye(3))


def at(x=0.0, y=0.0, z=0.0):
    T = np.eye(4)
    T[:3, 3] = x, y, z
    return T


def four_bar_graph(marks=None, loop_joint=None):
    """Planar four-bar in the xy-plane (hinges about z):
    A = 0, B = (0, 1), C = (2, 1), D = (3, 0).
    """
    marks = marks or {}
    G = nx.DiGraph(name="fb")
    G.add_edge("world", "crank", joint=Revolute([0, 0, 1]), name="A", independent=marks.get("A"))
    G.add_edge("crank", "coupler", joint=Revolute([0, 0, 1]), placement=at(0, 1), name="B",
               independent=marks.get("B"))  # fmt: skip
    G.add_edge("world", "rocker", joint=Revolute([0, 0, 1]), placement=at(3, 0), name="D",
               independent=marks.get("D"))  # fmt: skip
    G.add_edge("coupler", "rocker", kind="loop", joint=loop_joint or Revolute([0, 0, 1]),
               placement=at(2, 0), successor_placement=at(-1, 1), name="C")  # fmt: skip
    nx.set_node_attributes(
        G,
        {"crank": body([0, 0.5, 0]), "coupler": body([1, 0, 0]), "rocker": body([-0.5, 0.5, 0])},
        "inertia",
    )
    return G


def cam_model(analytic=True):
    """A link and a rotor coupled by a nonlinear cam: q_r = 6 q_l + 0.3 sin(q_l) (user phi)."""
    G = nx.DiGraph(name="cam")
    G.add_edge("world", "link", joint=Revolute([0, 1, 0]), name="hinge")
    G.add_edge("link", "arm", joint=Revolute([1, 0, 0]), placement=at(0, 0, -1), name="wrist")
    G.add_edge("world", "rotor", joint=Revolute([0, 1, 0]), placement=at(0.1, 0, 0), name="motor")
    nx.set_node_attributes(G, {"link": body([0, 0, -0.5]), "arm": body([0, 0.2, -0.2], 0.5),
                               "rotor": body(m=0.2)}, "inertia")  # fmt: skip
    kw = {}
    if analytic:
        kw = dict(
            jacobian=lambda q: [[6.0 + 0.3 * np.cos(q[0]), -1.0]],
            jacobian_rate=lambda q, u: [[-0.3 * np.sin(q[0]) * u[0], 0.0]],
        )
    G.graph["constraints"] = [
        ImplicitConstraint(
            ["hinge", "motor"], lambda q: [6.0 * q[0] + 0.3 * np.sin(q[0]) - q[1]], name="cam", **kw
        )  # fmt: skip
    ]
    return ClosedMultibodyModel(G)


# ---- construction, spanning tree, independent coordinates --------------------------------
def test_graph_with_a_loop_builds_a_closed_model():
    model = ClosedMultibodyModel(four_bar_graph())
    assert isinstance(model, ClosedMultibodyModel) and model.is_closed
    st = model.spanning_tree
    assert type(st) is MultibodyModel and not st.is_closed
    assert (model.nq, model.nv, st.nv) == (3, 1, 3)
    assert model.joint_names == st.joint_names == ["A", "B", "D"]
    assert model.independent_joints == ["A"] and model.dependent_joints == ["B", "D"]
    assert model.v_slices == [slice(0, 1), slice(1, 1), slice(1, 1)]
    assert model.v_slice("A") == slice(0, 1) and model.q_slice("D") == slice(2, 3)
    with pytest.raises(ModelError, match="joint 'B' is dependent"):
        model.v_slice("B")


def test_independent_marks_are_honoured_and_reported():
    model = ClosedMultibodyModel(four_bar_graph({"D": True, "A": False}))
    assert model.independent_joints == ["D"]
    assert "independent: D" in model.summary()
    # one mark on a 1-DoF loop over-determines nothing; two do
    with pytest.raises(ModelError, match="over-determine"):
        ClosedMultibodyModel(four_bar_graph({"A": True, "D": True}))
    with pytest.raises(ModelError, match="to be True, False or None"):
        ClosedMultibodyModel(four_bar_graph({"A": "yes"}))


def test_undeclared_cycles_name_the_cycle():
    G = four_bar_graph()
    d = G.edges["coupler", "rocker"]
    G.remove_edge("coupler", "rocker")
    G.add_edge("coupler", "rocker", joint=d["joint"], placement=d["placement"])  # a tree edge
    with pytest.raises(NotATreeError, match=r"Node 'rocker' has 2 parents.*cycle through nodes"):
        ClosedMultibodyModel(G)
    assert declares_closures(four_bar_graph()) and not declares_closures(G)
    assert not declares_closures("not a graph")


def test_loop_to_the_base_and_loop_joint_types():
    """A slider-crank whose slider closes on the world with a prismatic loop joint; a
    spherical loop joint in the planar four-bar leaves one DoF too."""
    G = nx.DiGraph(name="slider_crank")
    G.add_edge("world", "crank", joint=Revolute([0, 0, 1]), name="crank")
    G.add_edge("crank", "rod", joint=Revolute([0, 0, 1]), placement=at(0, 0.5), name="pin")
    G.add_edge("rod", "slider", joint=Revolute([0, 0, 1]), placement=at(2.0, -0.5), name="wrist")
    G.add_edge("world", "slider", kind="loop", joint=Prismatic([1, 0, 0]), name="slot")
    nx.set_node_attributes(
        G, {"crank": body([0, 0.25, 0]), "rod": body([1, 0, 0]), "slider": body()}, "inertia"
    )
    model = ClosedMultibodyModel(G)
    assert model.nv == 1 and model.independent_joints == ["crank"]
    q = model.random_configuration(rng=3, size=4)
    assert np.abs(model.constraint_residual(q)).max() < 1e-13
    from geomech.multibody.algorithms.kinematics import forward_kinematics

    T = forward_kinematics(model.spanning_tree, q)[:, 2]  # the slider stays on the x axis
    assert np.abs(T[:, 1, 3]).max() < 1e-12 and np.abs(T[:, :3, :3] - np.eye(3)).max() < 1e-12
    spatial = ClosedMultibodyModel(four_bar_graph(loop_joint=Spherical()))
    assert spatial.nv == 1  # planar geometry: the spherical loop leaves one DoF


def test_reference_configuration_found_by_newton():
    """When the neutral configuration does not close the loop, Newton's method (all the
    cluster's coordinates free) finds a closed reference near it."""
    G = four_bar_graph()
    G.edges["world", "rocker"]["placement"] = at(3.05, 0.0)
    model = ClosedMultibodyModel(G)
    q = model.neutral()
    assert np.abs(model.constraint_residual(q)).max() < 1e-14 and np.abs(q).max() < 0.2
    G.graph["reference_configuration"] = q
    assert np.array_equal(ClosedMultibodyModel(G).neutral(), q)


def test_constraint_validators():
    def graph(**edge):
        G = four_bar_graph()
        G.remove_edge("coupler", "rocker")
        G.add_edge("coupler", "rocker", **edge)
        return G

    with pytest.raises(ModelError, match="Expected the 'kind'"):
        ClosedMultibodyModel(graph(kind="belt", joint=Revolute([0, 0, 1])))
    with pytest.raises(ModelError, match="'joint' attribute of loop edge"):
        ClosedMultibodyModel(graph(kind="loop", joint="revolute"))
    with pytest.raises(ModelError, match="last row of `placement`"):
        ClosedMultibodyModel(
            graph(kind="loop", joint=Revolute([0, 0, 1]), placement=np.ones((4, 4)))
        )
    with pytest.raises(ModelError, match="'ratio' of coupling edge"):
        ClosedMultibodyModel(graph(kind="coupling", ratio="six"))
    G = four_bar_graph()
    G.graph["constraints"] = ["phi"]
    with pytest.raises(ModelError, match="ImplicitConstraint objects"):
        ClosedMultibodyModel(G)
    G = four_bar_graph()
    G.add_edge("crank", "rocker", kind="coupling", ratio=2.0, name="C")
    with pytest.raises(ModelError, match="unique constraint names"):
        ClosedMultibodyModel(G)
    G = four_bar_graph()
    G.graph["reference_configuration"] = [0.0, 0.0]
    with pytest.raises(DimensionError, match="`reference_configuration` to have shape"):
        ClosedMultibodyModel(G)
    G.graph["reference_configuration"] = np.zeros((2, 3))
    with pytest.raises(ModelError, match=r"reference configuration to have shape"):
        ClosedMultibodyModel(G)
    G = four_bar_graph()  # a loop that cannot close: the rocker is too short
    G.edges["coupler", "rocker"]["successor_placement"] = at(-0.1, 0.1)
    G.edges["world", "rocker"]["placement"] = at(30.0, 0)
    with pytest.raises(ModelError, match="closing the loops near the reference"):
        ClosedMultibodyModel(G)


def test_coupling_validators_and_marks():
    G = nx.DiGraph()
    G.add_edge("world", "ball", joint=Spherical(), name="ball_joint")
    G.add_edge("world", "rotor", joint=Revolute([0, 0, 1]), name="motor")
    nx.set_node_attributes(G, {"ball": body(), "rotor": body()}, "inertia")
    G.add_edge("ball", "rotor", kind="coupling", ratio=2.0)
    with pytest.raises(ModelError, match="one degree of\nfreedom|one degree of freedom"):
        ClosedMultibodyModel(G)
    # a floating base is always independent
    G = nx.DiGraph()
    G.add_edge("world", "base", joint=FreeFlyer(), name="root", independent=False)
    G.add_edge("base", "link", joint=Revolute([0, 0, 1]), name="j")
    G.add_edge("base", "rotor", joint=Revolute([0, 0, 1]), name="m")
    G.add_edge("link", "rotor", kind="coupling", ratio=3.0)
    nx.set_node_attributes(G, {"base": body(), "link": body(), "rotor": body()}, "inertia")
    with pytest.raises(ModelError, match="floating base is always independent"):
        ClosedMultibodyModel(G)
    G.edges["world", "base"]["independent"] = None
    G.edges["base", "link"]["independent"] = False
    G.edges["base", "rotor"]["independent"] = True
    model = ClosedMultibodyModel(G)
    assert model.independent_joints == ["root", "m"]
    G.add_edge("world", "extra", joint=Revolute([0, 0, 1]), name="x", independent=False)
    G.nodes["extra"]["inertia"] = body()
    with pytest.raises(ModelError, match="no\nloop joint|no loop joint"):
        ClosedMultibodyModel(G)
    G.remove_node("extra")
    G.edges["base", "rotor"]["independent"] = False  # both ends dependent: not determined
    G.edges["base", "link"]["independent"] = False
    with pytest.raises(ModelError, match="marked independent=False but the"):
        ClosedMultibodyModel(G)


def test_one_constraint_object_serves_two_layouts():
    """The model binds a copy of each ImplicitConstraint, so one object can close two
    models whose joints sit at different places in q."""
    cam = cam_model().graph.graph["constraints"][0]
    base = cam_model().graph
    G = nx.DiGraph()
    G.graph.update(base.graph)
    G.add_edge("world", "aaa", joint=Prismatic([1, 0, 0]), name="aaa_slide")  # first in q
    G.add_edges_from(base.edges(data=True))
    G.add_nodes_from(base.nodes(data=True))
    G.nodes["aaa"]["inertia"] = body()
    G.graph["constraints"] = [cam]
    shifted = ClosedMultibodyModel(G)
    plain = ClosedMultibodyModel(G.subgraph([n for n in G if n != "aaa"]).copy())
    for model in (shifted, plain):
        q = model.random_configuration(rng=0)
        st = model.spanning_tree
        ql, qr = q[st.q_slice("hinge")][0], q[st.q_slice("motor")][0]
        assert abs(6 * ql + 0.3 * np.sin(ql) - qr) < 1e-13
    assert shifted.q_slice("hinge") != plain.q_slice("hinge")


def test_implicit_constraint_validators():
    with pytest.raises(ModelError, match="at least one joint"):
        ImplicitConstraint([], lambda q: q)
    with pytest.raises(ModelError, match="`jacobian` of an ImplicitConstraint to be callable"):
        ImplicitConstraint(["a"], lambda q: q, jacobian=3)
    with pytest.raises(ModelError, match="`phi` of an ImplicitConstraint to be callable, got None"):
        ImplicitConstraint(["a"], None)
    G = four_bar_graph()
    G.graph["constraints"] = [ImplicitConstraint(["nope"], lambda q: q)]
    with pytest.raises(ModelError, match="expected joint names"):
        ClosedMultibodyModel(G)
    bad = ImplicitConstraint(["hinge", "motor"], lambda q: [q[1] - 2 * q[0]],
                             jacobian=lambda q: [[2.0, -1.0, 0.0]])  # fmt: skip
    G = nx.DiGraph()
    G.add_edge("world", "link", joint=Revolute([0, 1, 0]), name="hinge")
    G.add_edge("world", "rotor", joint=Revolute([0, 1, 0]), name="motor")
    nx.set_node_attributes(G, {"link": body(), "rotor": body()}, "inertia")
    G.graph["constraints"] = [bad]
    with pytest.raises(DimensionError, match="`jacobian` to return shape"):
        ClosedMultibodyModel(G)
    G.graph["constraints"] = [ImplicitConstraint(["hinge"], lambda q: [[q[0]]])]
    with pytest.raises(DimensionError, match="`phi` to return shape"):
        ClosedMultibodyModel(G)
    assert "cam" in repr(cam_model().constraints[0])


# ---- clusters ------------------------------------------------------------------------------
def test_partition_of_seed004_figure5():
    """Seed 004 Fig. 5: C1 = {1, 2, 3} chain, C2 = {4, 5} on 1, C3 = {6, 7} with λ(6) = 1,
    λ(7) = 2 (bodies numbered from 0 here)."""
    parent = [-1, 0, 1, 0, 3, 0, 1]
    clusters = partition_clusters(parent, [{0, 1, 2}, {3, 4}, {5, 6}])
    assert clusters == [[0, 1, 2], [3, 4], [5, 6]]
    assert output_bodies(parent, [3, 4]) == [0, 0]
    assert output_bodies(parent, [5, 6]) == [0, 1]
    # a set hanging from two clusters is closed under tree paths and merged (trap 5)
    assert partition_clusters(parent, [{0, 1}, {4, 6}]) == [[0, 1, 3, 4, 6], [2], [5]]


@pytest.mark.parametrize("name", example_names())
@pytest.mark.parametrize("floating", [False, True])
def test_cluster_graph_is_a_regular_tree(name, floating):
    model = load_example(name, floating_base=floating)
    g = model.cluster_graph
    assert nx.is_arborescence(g)
    for c in model.clusters:
        assert c.parent < c.index and c.bodies == sorted(c.bodies)
        assert {model.spanning_tree.parent[b] for b in c.bodies} - set(c.bodies) <= set(
            model.clusters[c.parent].bodies if c.parent >= 0 else [-1]
        )
    assert sum(c.nv for c in model.clusters) == model.nv
    assert sum(g.nodes[n]["nv"] for n in g) == model.nv
    order = np.concatenate([c.y_index for c in model.clusters])
    assert sorted(order.tolist()) == list(range(model.nv))


def test_clusters_of_the_examples():
    def names(model):
        return [tuple(model.body_names[b] for b in c.bodies) for c in model.clusters]

    assert names(load_example("four_bar")) == [("crank", "coupler", "rocker")]
    assert len(load_example("six_bar").clusters) == 1  # two loops sharing the rocker
    belt = names(load_example("belt_leg"))
    assert sorted(map(sorted, belt)) == [["ankle_rotor", "foot", "knee_rotor", "shank"],
                                         ["hip_rotor", "thigh"]]  # fmt: skip
    assert sorted(map(sorted, names(load_example("geared_chain")))) == [
        ["link1", "rotor1"], ["link2", "rotor2"], ["link3", "rotor3"]]  # fmt: skip
    leg = load_example("planar_leg")
    knee = next(c for c in leg.clusters if len(c.bodies) == 3)
    assert [leg.body_names[o] for o in knee.output] == ["thigh"] * 3  # hangs from the thigh


# ---- configurations ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", example_names())
@pytest.mark.parametrize("floating", [False, True])
def test_random_configurations_close_the_loops(name, floating):
    model = load_example(name, floating_base=floating)
    q = model.random_configuration(rng=0, size=5)
    assert np.abs(model.constraint_residual(q)).max() < 1e-13
    assert model.check_configuration(q).shape == (5, model.nq)


def test_project_keeps_the_independent_coordinates():
    model = load_example("six_bar")
    rng = np.random.default_rng(1)
    q = model.random_configuration(rng)
    noisy = q + 0.01 * rng.normal(size=model.nq)
    with pytest.raises(NotOnManifoldError, match="in 'C'|in 'G'"):
        model.check_configuration(noisy)
    p = model.project(noisy)
    assert np.abs(model.constraint_residual(p)).max() < 1e-14
    idx = model.independent_v_index
    assert np.array_equal(p[idx], noisy[idx])
    assert np.abs(p - q).max() < 0.1  # same assembly branch
    rocker = ClosedMultibodyModel(four_bar_graph({"D": True, "A": False}))  # a triple rocker
    with pytest.raises(SingularityError, match="close the loops of cluster 0|closure search"):
        rocker.project([0.0, 0.0, 3.0])  # the rocker cannot turn that far


def test_integrate_and_difference():
    model = load_example("planar_leg")
    q = model.random_configuration(rng=2)
    v = np.array([0.3, -0.2])
    q1 = model.integrate(q, v, 0.5)
    assert np.abs(model.constraint_residual(q1)).max() < 1e-14
    assert np.allclose(model.difference(q, q1), 0.5 * v, atol=1e-12)
    assert model.integrate(q, v, [0.1, 0.2]).shape == (2, model.nq)
    with pytest.raises(ModelError, match="joint-wise chart"):
        model._one_dof_split()


def test_topology_delegates_to_the_spanning_tree():
    model = load_example("planar_leg")
    st = model.spanning_tree
    assert model.body_index("foot") == st.body_index("foot")
    assert model.supports(3) == st.supports(3) and model.subtree(1) == st.subtree(1)
    assert model.children(0) == st.children(0)
    assert "clusters: 2 (largest: 3 bodies)" in model.summary()
    assert "1 constraints, 2 clusters" in repr(model)


# ---- G, g, Ġ ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FIXED + ["cam"])
def test_G_and_g_by_finite_differences_along_consistent_paths(name):
    model = cam_model() if name == "cam" else load_example(name)
    rng = np.random.default_rng(4)
    q0 = model.random_configuration(rng)
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    h = 1e-4
    qm, qp = (consistent_path(model, q0, v, a, t) for t in (-h, h))
    qd = (qp - qm) / (2 * h)
    qdd = (qp - 2 * q0 + qm) / h**2
    G, g, G_dot = model.constraint_matrices(q0, v, rate=True)
    assert rel_err(G @ v, qd) < 1e-6
    assert rel_err(G @ a + g, qdd) < 1e-5
    # Ġ along the motion with speeds v (a = 0)
    z = np.zeros(model.nv)
    Gm = model.constraint_matrices(consistent_path(model, q0, v, z, -h), v)[0]
    Gp = model.constraint_matrices(consistent_path(model, q0, v, z, h), v)[0]
    assert rel_err(G_dot, (Gp - Gm) / (2 * h)) < 1e-6
    assert rel_err(g, G_dot @ v) < 1e-14


@pytest.mark.parametrize("name", FIXED)
@pytest.mark.parametrize("floating", [False, True])
def test_constraint_algebra(name, floating):
    """K G = 0, K g = k, G has full column rank and identity rows on the independent joints."""
    model = load_example(name, floating_base=floating)
    rng = np.random.default_rng(5)
    q = model.random_configuration(rng)
    v = rng.normal(size=model.nv)
    G, g = model.constraint_matrices(q, v)
    K, k = model.constraint_jacobian(q, v)
    assert np.abs(K @ G).max() < 1e-12
    assert np.abs(K @ g - k).max() < 1e-10 * max(1.0, np.abs(k).max())
    assert np.linalg.matrix_rank(G) == model.nv
    assert np.array_equal(G[model.independent_v_index], np.eye(model.nv))
    assert K.shape[0] + model.nv == model.spanning_tree.nv


@pytest.mark.parametrize("name", ["six_bar", "belt_leg", "planar_leg"])
def test_G_is_block_diagonal_over_clusters(name):
    """Seed 004 trap 8: the cluster blocks rebuild G, g and Ġ exactly (zeros elsewhere)."""
    model = load_example(name, floating_base=True)
    rng = np.random.default_rng(14)
    q = model.random_configuration(rng, size=2)
    v = rng.normal(size=(2, model.nv))
    G, g, G_dot = model.constraint_matrices(q, v, rate=True)
    rebuilt = [np.zeros_like(G), np.zeros_like(g), np.zeros_like(G_dot)]
    for c, (G_k, g_k, Gd_k) in zip(model.clusters, model.cluster_matrices(q, v), strict=True):
        rows, cols = c.v_index[:, None], c.y_index[None, :]
        rebuilt[0][:, rows, cols], rebuilt[1][:, c.v_index], rebuilt[2][:, rows, cols] = (
            G_k,
            g_k,
            Gd_k,
        )
    assert np.array_equal(rebuilt[0], G) and np.array_equal(rebuilt[1], g)
    assert np.array_equal(rebuilt[2], G_dot)


def test_planar_loops_have_redundant_rows():
    """A revolute loop joint gives 6 equations; in a planar four-bar only 2 are independent."""
    model = load_example("four_bar")
    q = model.neutral()
    assert model.constraint_residual(q).shape == (6,)
    assert model.constraint_jacobian(q).shape == (2, 3)


def test_implicit_constraint_finite_difference_fallback():
    exact, fd = cam_model(True), cam_model(False)
    rng = np.random.default_rng(6)
    q = exact.random_configuration(rng, size=3)
    v = rng.normal(size=(3, exact.nv))
    G1, g1 = exact.constraint_matrices(q, v)
    G2, g2 = fd.constraint_matrices(q, v)
    assert rel_err(G2, G1) < 1e-8 and rel_err(g2, g1) < 1e-5
    # hand-derived: rotor speed (6 + 0.3 cos q_l) q̇_l, rotor acceleration bias −0.3 sin q_l q̇_l²
    st = exact.spanning_tree
    link, rotor = st.v_slice("hinge").start, st.v_slice("motor").start
    ql, vl = q[:, st.q_slice("hinge").start], v[:, exact.v_slice("hinge").start]
    assert np.allclose(G1[:, rotor, 0], 6 + 0.3 * np.cos(ql), rtol=0, atol=1e-14)
    assert np.allclose(G1[:, link, 0], 1.0)
    assert np.allclose(g1[:, rotor], -0.3 * np.sin(ql) * vl**2, rtol=0, atol=1e-13)


def test_matrices_validate_the_configuration():
    model = load_example("geared_chain")
    with pytest.raises(NotOnManifoldError, match="transmission_3"):
        model.constraint_matrices(model.neutral() + 0.1, np.zeros(3))
    with pytest.raises(DimensionError, match="`v`"):
        model.constraint_matrices(model.neutral(), np.zeros(2))
    with pytest.raises(DimensionError, match="shape"):
        model.constraint_jacobian(np.zeros((2, model.nq)))
