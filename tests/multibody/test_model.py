"""MultibodyModel: numbering, topology and q/v layout against networkx; every model error.

References: networkx's own graph algorithms (ancestors, descendants, successors, longest
paths), the literal layout of hand-built models, Featherstone's closed-form Plücker
transform, and joint-by-joint integration for the product manifold.
"""

import networkx as nx
import numpy as np
import pytest

from geomech.errors import DimensionError, ModelError, NotATreeError
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
    check_inertia,
    robots,
)
from geomech.spatial import spatial_inertia

I1 = spatial_inertia(1.0, [0.1, 0.0, 0.0], np.diag([0.01, 0.02, 0.02]))


def every_joint_model():
    """One body per joint kind on a branched tree (hand-built, fixed layout)."""
    G = nx.DiGraph(name="every_joint")
    T = np.eye(4)
    T[:3, 3] = [0.1, 0.2, 0.3]
    edges = [
        ("world", "ff", FreeFlyer(), "root_joint"),
        ("ff", "rev", Revolute([0, 0, 1]), "j_rev"),
        ("rev", "pri", Prismatic([1, 0, 0]), "j_pri"),
        ("ff", "hel", Helical([0, 1, 0], 0.1), "j_hel"),
        ("hel", "sph", Spherical(), "j_sph"),
        ("ff", "pla", Planar(), "j_pla"),
        ("pla", "fix", Fixed(), "j_fix"),
        ("fix", "sch", SchoenfliesJoint(), "j_sch"),
    ]
    for parent, child, joint, name in edges:
        G.add_node(child, inertia=I1)
        G.add_edge(parent, child, joint=joint, placement=T, name=name)
    return MultibodyModel(G)


def test_layout_of_every_joint_model():
    m = every_joint_model()
    assert m.root == "world"
    assert m.nodes == ["ff", "rev", "pri", "hel", "sph", "pla", "fix", "sch"]
    assert m.parent.tolist() == [-1, 0, 1, 0, 3, 0, 5, 6]
    assert m.joint_names == [
        "root_joint",
        "j_rev",
        "j_pri",
        "j_hel",
        "j_sph",
        "j_pla",
        "j_fix",
        "j_sch",
    ]
    assert (m.nq, m.nv) == (7 + 1 + 1 + 1 + 4 + 3 + 0 + 4, 6 + 1 + 1 + 1 + 3 + 3 + 0 + 4)
    assert m.q_slice("j_sph") == slice(10, 14) and m.v_slice("j_sph") == slice(9, 12)
    assert m.q_slice("j_fix") == slice(17, 17) and m.v_slice("j_sch") == slice(15, 19)
    assert m.depth == 4  # ff -> pla -> fix -> sch
    assert (
        m.children(0) == [1, 3, 5] and m.subtree(5) == [5, 6, 7] and m.supports(7) == [0, 5, 6, 7]
    )
    np.testing.assert_array_equal(m.inertias, np.broadcast_to(I1, (8, 6, 6)))
    assert m.joint_types() == {
        "fixed": 1,
        "free_flyer": 1,
        "helical": 1,
        "planar": 1,
        "prismatic": 1,
        "revolute": 1,
        "schoenflies": 1,
        "spherical": 1,
    }


def test_slices_tile_q_and_v():
    m = every_joint_model()
    for slices, n, size in ((m.q_slices, m.nq, "nq"), (m.v_slices, m.nv, "nv")):
        stops = [s.start for s in slices] + [n]
        for s, nxt in zip(slices, stops[1:], strict=True):
            assert s.stop == nxt
        for j, s in zip(m.joints, slices, strict=True):
            assert s.stop - s.start == getattr(j, size)


@pytest.mark.parametrize("seed", range(6))
def test_topology_matches_networkx(seed, mixed_tree):
    m = mixed_tree(25, np.random.default_rng(seed))
    G, idx = m.graph, {node: i for i, node in enumerate(m.nodes)}
    assert sorted(m.nodes) == sorted(n for n in G if n != m.root)
    for i, node in enumerate(m.nodes):
        (p,) = G.predecessors(node)
        assert m.parent[i] == idx.get(p, -1) and m.parent[i] < i
        ancestors = sorted(idx[a] for a in nx.ancestors(G, node) if a != m.root)
        assert m.supports(i) == ancestors + [i]
        assert m.subtree(i) == sorted([i] + [idx[d] for d in nx.descendants(G, node)])
        assert m.children(i) == sorted(idx[c] for c in G.successors(node))
    assert m.depth == nx.dag_longest_path_length(G)  # edges on the longest path = bodies


def test_x_tree_is_featherstone_transform_of_placement(mixed_tree):
    m = mixed_tree(10, np.random.default_rng(1))
    for i in range(m.n_bodies):
        T = m.placements[i]
        E, p = T[:3, :3].T, T[:3, 3]
        Sp = np.array([[0, -p[2], p[1]], [p[2], 0, -p[0]], [-p[1], p[0], 0]])
        X = np.block([[E, np.zeros((3, 3))], [-E @ Sp, E]])
        np.testing.assert_allclose(m.X_tree[i], X, atol=1e-15)


def test_default_names_placements_and_gravity():
    G = nx.DiGraph()
    G.add_edge(0, 1, joint=Revolute([0, 0, 1], name="hinge"))
    G.add_edge(1, 2, joint=Prismatic([1, 0, 0]))
    G.nodes[1]["inertia"] = I1
    G.nodes[2].update(inertia=I1, name="slider")
    m = MultibodyModel(G)
    assert m.root == 0 and m.body_names == ["1", "slider"]
    assert m.joint_names == ["hinge", "slider"]  # joint's name, else the child's name
    np.testing.assert_array_equal(m.placements, np.tile(np.eye(4), (2, 1, 1)))
    np.testing.assert_array_equal(m.gravity, [0.0, 0.0, -9.81])
    assert m.body_index("slider") == 1 and m.body_index(1) == 0
    m2 = MultibodyModel(G, gravity=[0, -1.62, 0])
    np.testing.assert_array_equal(m2.gravity, [0, -1.62, 0])


def test_graph_is_not_mutated_or_copied():
    m = robots.double_pendulum()
    before = nx.to_dict_of_dicts(m.graph)
    MultibodyModel(m.graph)
    assert nx.to_dict_of_dicts(m.graph).keys() == before.keys()
    assert set(m.graph.nodes["world"]) == set()


def test_from_bodies_equals_graph_construction():
    parent = [-1, 0, 0, 2]
    joints = [Revolute([0, 0, 1]), Prismatic([0, 1, 0]), Revolute([1, 0, 0]), Spherical()]
    T = np.eye(4)
    T[:3, 3] = [0.0, 0.0, 0.5]
    m = MultibodyModel.from_bodies(parent, joints, [I1] * 4, [T] * 4, root="base")
    assert m.root == "base" and m.parent.tolist() == parent
    assert m.body_names == ["body0", "body1", "body2", "body3"]
    assert m.joint_names == ["joint0", "joint1", "joint2", "joint3"]
    assert (m.nq, m.nv) == (7, 6)
    # an unordered parent array is renumbered (parent[i] < i afterwards)
    m2 = MultibodyModel.from_bodies([2, -1, 1], [Revolute([0, 0, 1])] * 3, [I1] * 3)
    assert m2.body_names == ["body1", "body2", "body0"] and m2.parent.tolist() == [-1, 0, 1]


@pytest.mark.parametrize("seed", range(3))
def test_integrate_difference_round_trip(seed, mixed_tree):
    rng = np.random.default_rng(seed)
    m = mixed_tree(12, rng)
    q0 = m.random_configuration(rng, size=5)
    v = 0.5 * rng.normal(size=(5, m.nv))
    q1 = m.integrate(q0, v)
    np.testing.assert_allclose(m.difference(q0, q1), v, atol=1e-12)
    # joint by joint, as the product manifold
    for j, qs, vs in zip(m.joints, m.q_slices, m.v_slices, strict=True):
        np.testing.assert_allclose(q1[:, qs], j.integrate(q0[:, qs], v[:, vs]), atol=1e-15)
    # dt scales v; batched dt broadcasts
    np.testing.assert_allclose(m.integrate(q0, v, 0.5), m.integrate(q0, 0.5 * v), atol=1e-15)
    np.testing.assert_allclose(
        m.integrate(q0[0], v[0], np.array([0.0, 1.0]))[1], m.integrate(q0[0], v[0]), atol=1e-15
    )


def test_neutral_and_random_configuration():
    m = every_joint_model()
    q = m.neutral()
    assert q.shape == (m.nq,)
    np.testing.assert_array_equal(q[m.q_slice("root_joint")], [0, 0, 0, 0, 0, 0, 1])
    np.testing.assert_array_equal(q[m.q_slice("j_sph")], [0, 0, 0, 1])
    assert m.random_configuration(rng=0, size=(2, 3)).shape == (2, 3, m.nq)
    np.testing.assert_array_equal(m.random_configuration(7), m.random_configuration(7))
    np.testing.assert_array_equal(m.difference(q, q), np.zeros(m.nv))


def test_summary_and_repr():
    m = robots.quadruped()
    assert m.summary() == (
        "MultibodyModel 'quadruped': 13 bodies, nq = 19, nv = 18, depth 4\n"
        "  joints: free_flyer x1, revolute x12"
    )
    assert repr(m) == "<MultibodyModel: 13 bodies, nq=19, nv=18, depth=4>"


def test_massless_body_is_accepted():
    G = nx.DiGraph()
    G.add_edge("world", "a", joint=Revolute([0, 0, 1]))
    G.add_edge("a", "b", joint=Revolute([0, 1, 0]))
    G.nodes["a"]["inertia"] = np.zeros((6, 6))
    G.nodes["b"]["inertia"] = I1
    assert MultibodyModel(G).inertias[0].sum() == 0.0


# ---- errors (issue item 2): each names the offending node or edge ------------------------
def chain_graph():
    G = nx.DiGraph()
    G.add_edge("world", "upper", joint=Revolute([0, 0, 1]), name="shoulder")
    G.add_edge("upper", "lower", joint=Revolute([0, 1, 0]), name="elbow")
    nx.set_node_attributes(G, {"upper": I1, "lower": I1}, "inertia")
    return G


def test_cycle_is_not_a_tree():
    G = chain_graph()
    G.add_edge("lower", "upper", joint=Revolute([0, 0, 1]))
    with pytest.raises(NotATreeError, match=r"cycle through nodes \['upper', 'lower'\].*loops"):
        MultibodyModel(G)


def test_node_with_two_parents_is_a_loop():
    G = chain_graph()
    G.add_node("hand", inertia=I1)
    G.add_edge("upper", "hand", joint=Revolute([0, 0, 1]))
    G.add_edge("lower", "hand", joint=Revolute([0, 0, 1]))
    with pytest.raises(NotATreeError, match=r"Node 'hand' has 2 parents \['upper', 'lower'\]"):
        MultibodyModel(G)


def test_second_root():
    G = chain_graph()
    G.add_edge("ground", "wheel", joint=Revolute([0, 0, 1]))
    G.nodes["wheel"]["inertia"] = I1
    with pytest.raises(NotATreeError, match=r"exactly one root.*\['world', 'ground'\]"):
        MultibodyModel(G)


def test_cycle_without_root():
    G = nx.DiGraph()
    G.add_edge("a", "b", joint=Revolute([0, 0, 1]))
    G.add_edge("b", "a", joint=Revolute([0, 0, 1]))
    with pytest.raises(NotATreeError, match="cycle"):
        MultibodyModel(G)


def test_body_without_inertia():
    G = chain_graph()
    del G.nodes["lower"]["inertia"]
    with pytest.raises(ModelError, match="Body 'lower' has no 'inertia'"):
        MultibodyModel(G)


@pytest.mark.parametrize(
    ("inertia", "message"),
    [
        (np.ones((3, 3)), r"inertia of body 'lower'` to have shape \(\.\.\., 6, 6\)"),
        (np.diag([1.0, 1, 1, -1, -1, -1]), "inertia of body 'lower'` to have a nonnegative mass"),
        (I1 + np.triu(np.ones((6, 6)), 1), "inertia of body 'lower'` to be symmetric"),
        (np.diag([1.0, 1, 1, 1, 2, 3]), "inertia of body 'lower'` to be a spatial inertia"),
        (spatial_inertia(1.0, [0, 0, 0], -np.eye(3)), "'lower'` to be positive semi-definite"),
        (np.full((6, 6), np.nan), "inertia of body 'lower'` to be finite"),
    ],
)
def test_bad_inertia_names_the_body(inertia, message):
    G = chain_graph()
    G.nodes["lower"]["inertia"] = inertia
    with pytest.raises(ModelError, match=message):
        MultibodyModel(G)


def test_check_inertia_accepts_triangle_violations_but_not_indefinite():
    # principal moments (1, 1, 3) violate the triangle inequality but are PSD (as in URDFs)
    check_inertia(spatial_inertia(1.0, [0, 0, 0], np.diag([1.0, 1.0, 3.0])))
    with pytest.raises(ModelError, match="positive semi-definite"):
        check_inertia(spatial_inertia(1.0, [0, 0, 0], np.diag([1.0, 1.0, -0.1])))


def test_edge_without_joint():
    G = chain_graph()
    G.edges["upper", "lower"]["joint"] = "revolute"
    with pytest.raises(
        ModelError, match=r"edge \('upper', 'lower'\) to be a geomech Joint, got str"
    ):
        MultibodyModel(G)
    del G.edges["upper", "lower"]["joint"]
    with pytest.raises(ModelError, match=r"edge \('upper', 'lower'\).*got NoneType"):
        MultibodyModel(G)


def test_zero_axis_names_the_joint():
    with pytest.raises(ModelError, match="revolute joint 'elbow': expected a nonzero `axis`"):
        chain_graph().add_edge("upper", "x", joint=Revolute([0, 0, 0], name="elbow"))


@pytest.mark.parametrize(
    ("placement", "message"),
    [
        (np.eye(3), r"placement of edge \('upper', 'lower'\)` to have shape"),
        (np.diag([1.0, 1.0, -1.0, 1.0]), r"T\[\.\.\., :3, :3\]` to have determinant \+1"),
        (np.diag([2.0, 1.0, 1.0, 1.0]), "orthonormal"),
        (
            np.vstack([np.eye(4)[:3], [[1.0, 0, 0, 1]]]),
            r"last row of `placement` of edge \('upper'",
        ),
    ],
)
def test_bad_placement_names_the_edge(placement, message):
    G = chain_graph()
    G.edges["upper", "lower"]["placement"] = placement
    with pytest.raises(ModelError, match=message):
        MultibodyModel(G)


def test_duplicate_names():
    G = chain_graph()
    G.edges["upper", "lower"]["name"] = "shoulder"
    with pytest.raises(ModelError, match="unique joint names, got 'shoulder'"):
        MultibodyModel(G)
    G = chain_graph()
    G.nodes["lower"]["name"] = "upper"
    with pytest.raises(ModelError, match="unique body names, got 'upper'"):
        MultibodyModel(G)


def test_not_a_digraph_or_empty():
    with pytest.raises(ModelError, match="networkx.DiGraph, got Graph"):
        MultibodyModel(nx.Graph(chain_graph()))
    with pytest.raises(ModelError, match="networkx.DiGraph, got MultiDiGraph"):
        MultibodyModel(nx.MultiDiGraph(chain_graph()))
    with pytest.raises(ModelError, match="empty graph"):
        MultibodyModel(nx.DiGraph())


def test_layout_lookup_errors():
    m = MultibodyModel(chain_graph())
    with pytest.raises(ModelError, match="joint name from \\['shoulder', 'elbow'\\], got 'knee'"):
        m.q_slice("knee")
    with pytest.raises(ModelError, match="got 'knee'"):
        m.v_slice("knee")
    with pytest.raises(ModelError, match=r"body index in \[0, 1\], got 2"):
        m.supports(2)
    with pytest.raises(ModelError, match="body index \\(int\\), got 'upper'"):
        m.subtree("upper")
    with pytest.raises(ModelError, match="body name"):
        m.body_index("foot")
    with pytest.raises(DimensionError, match=r"`q` to have shape \(\.\.\., 2\)"):
        m.integrate(np.zeros(3), np.zeros(2))
    with pytest.raises(DimensionError, match=r"`v` to have shape \(\.\.\., 2\)"):
        m.integrate(np.zeros(2), np.zeros(1))
    with pytest.raises(DimensionError, match="`q1`"):
        m.difference(np.zeros(2), np.zeros(5))
    with pytest.raises(DimensionError, match="`gravity`"):
        MultibodyModel(chain_graph(), gravity=[0, 0])


def test_from_bodies_errors():
    with pytest.raises(ModelError, match="equal length, got 2, 1 and 2"):
        MultibodyModel.from_bodies([-1, 0], [Revolute([0, 0, 1])], [I1, I1])
    with pytest.raises(ModelError, match="Expected 2 placements, got 1"):
        MultibodyModel.from_bodies([-1, 0], [Revolute([0, 0, 1])] * 2, [I1] * 2, [np.eye(4)])
    with pytest.raises(ModelError, match=r"parent\[1\] in \[-1, 1\], got 5"):
        MultibodyModel.from_bodies([-1, 5], [Revolute([0, 0, 1])] * 2, [I1] * 2)
