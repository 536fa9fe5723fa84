"""Hardening, second round (issue 26): generated families of hostile probes.

Each family sweeps a whole class of the issue rather than its reproducer: every public
attribute of every model kind mutated after first use; a NaN or an inf at a random position
of a random batch of every public function; every size-taking function at absurd sizes;
every callback (controller, logged function, constraint function) misbehaving in every way
listed; every thread count. A probe passes when it ends in a named ``GeomechError`` (in a
forked child, within the 2 s / 200 MB bounds of the issue) or in a correct result, checked
against an independent reference (a fresh model, a serial evaluation, a shorter run).
"""

import math
import os
import pickle
import warnings

import networkx as nx
import numpy as np
import pytest

import geomech as gm
import geomech.multibody as mb
from geomech.errors import (
    DimensionError,
    DTypeError,
    GeomechError,
    ImmutableModelError,
    ModelError,
    NonFiniteError,
    NotOnManifoldError,
    ParameterError,
    SimulationBudgetError,
    SimulationError,
    URDFError,
)
from geomech.lie import SE2, SE3, SO3, Euclidean, Schoenflies
from geomech.multibody import (
    ClosedMultibodyModel,
    Fixed,
    FreeFlyer,
    Helical,
    ImplicitConstraint,
    MultibodyModel,
    Planar,
    Prismatic,
    Revolute,
    SchoenfliesJoint,
    Spherical,
    robots,
)
from geomech.multibody._kernels import driver
from geomech.multibody.io.examples import load_example
from geomech.spatial import spatial_inertia
from hardening.hostile_inputs import assert_bounded, link, robot, run_case

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the harness forks")

SEED = 26


# ==========================================================================================
# models of every kind
# ==========================================================================================
JOINTS = {
    "revolute": lambda rng: Revolute(rng.normal(size=3)),
    "prismatic": lambda rng: Prismatic(rng.normal(size=3)),
    "helical": lambda rng: Helical(rng.normal(size=3), pitch=0.1),
    "spherical": lambda rng: Spherical(),
    "planar": lambda rng: Planar(),
    "schoenflies": lambda rng: SchoenfliesJoint(),
    "free_flyer": lambda rng: FreeFlyer(),
    "fixed": lambda rng: Fixed(),
}


def every_joint_tree(seed=SEED):
    """A random tree with each joint type at least once (free flyer at the root)."""
    rng = np.random.default_rng(seed)
    kinds = ["free_flyer"] + [k for k in JOINTS if k != "free_flyer"] + ["revolute"] * 3
    parent = [-1] + [int(rng.integers(0, i)) for i in range(1, len(kinds))]
    joints = [JOINTS[k](rng) for k in kinds]
    placements = [np.eye(4)] + [SE3.exp(0.3 * rng.normal(size=6)) for _ in kinds[1:]]
    return MultibodyModel.from_bodies(
        parent, joints, robots.random_inertia(rng, len(kinds)), placements, name="every_joint"
    )


def _body(com=(0.0, 0.0, -0.5), m=1.0):
    return spatial_inertia(m, com, 0.01 * np.eye(3))


def cam_graph(phi=None, **kw):
    """A link and a rotor coupled by a user constraint (default: a cam, q_r = 6 q_l + ...)."""
    G = nx.DiGraph(name="cam")
    G.add_edge("world", "link", joint=Revolute([0, 1, 0]), name="hinge")
    G.add_edge("world", "rotor", joint=Revolute([0, 1, 0]), name="motor")
    nx.set_node_attributes(G, {"link": _body(), "rotor": _body(m=0.2)}, "inertia")
    if phi is None:
        phi = lambda q: [6.0 * q[0] + 0.3 * np.sin(q[0]) - q[1]]  # noqa: E731
    G.graph["constraints"] = [ImplicitConstraint(["hinge", "motor"], phi, name="cam", **kw)]
    return G


def _pickled(factory):
    return lambda: pickle.loads(pickle.dumps(factory()))


MODELS = {
    "double_pendulum": robots.double_pendulum,
    "humanoid": robots.humanoid,
    "random_tree": lambda: robots.random_tree(9, rng=4, floating_base=True),
    "every_joint": every_joint_tree,
    "urdf": lambda: gm.load_urdf(gm.to_urdf(robots.scara())),
    "with_inertias": lambda: robots.quadruped().with_inertias(2.0 * robots.quadruped().inertias),
    "unpickled": _pickled(robots.quadruped),
    "four_bar": lambda: load_example("four_bar"),
    "cam": lambda: ClosedMultibodyModel(cam_graph()),
    "unpickled_closed": _pickled(lambda: load_example("four_bar")),
}
TREES = [k for k in MODELS if k not in ("four_bar", "cam", "unpickled_closed")]


def _state(model, seed=SEED, size=None):
    rng = np.random.default_rng(seed)
    shape = () if size is None else (size,) if np.isscalar(size) else tuple(size)
    return (
        model.random_configuration(rng, size=size),
        rng.normal(size=shape + (model.nv,)),
        rng.normal(size=shape + (model.nv,)),
    )


def _results(model, q, v, a):
    """What a model computes: the fingerprint compared before and after mutation attempts."""
    return [
        gm.rnea(model, q, v, a),
        gm.crba(model, q),
        gm.aba(model, q, v, a),
        model.potential_energy(q),
        gm.gravity_forces(model, q),
    ]


# ==========================================================================================
# class 1: mutation of every public attribute of every model kind after first use
# ==========================================================================================
def _public(model):
    return [n for n in dir(model) if not n.startswith("_")]


def _values(model):
    """(name, value) of the public non-callable attributes (properties included)."""
    out = []
    for name in _public(model):
        try:
            value = getattr(model, name)
        except GeomechError:  # e.g. a closed model has no compiled arrays of its own
            continue
        if not callable(value) or isinstance(value, np.ndarray):
            out.append((name, value))
    return out


def _in_place_changes(value, rng):
    """Every in-place change of ``value`` a user could attempt: (what, callable)."""
    if isinstance(value, np.ndarray):
        if value.size:
            idx = tuple(int(rng.integers(s)) for s in value.shape)
            yield "item", lambda: value.__setitem__(idx, 1.0)
        yield "fill", lambda: value.fill(0.0)
        yield "slice", lambda: value.__setitem__(Ellipsis, 0.0)
    elif isinstance(value, list):
        yield "append", lambda: value.append(value[0] if value else 0)
        yield "extend", lambda: value.extend([0])
        yield "insert", lambda: value.insert(0, 0)
        yield "clear", value.clear
        yield "sort", lambda: value.sort(key=id)
        yield "reverse", value.reverse
        yield "iadd", lambda: value.__iadd__([0])
        if value:
            yield "setitem", lambda: value.__setitem__(0, value[-1])
            yield "delitem", lambda: value.__delitem__(0)
            yield "pop", value.pop
    elif isinstance(value, nx.DiGraph):
        nodes, edges = list(value.nodes), list(value.edges)
        yield "add_node", lambda: value.add_node("intruder")
        yield "add_edge", lambda: value.add_edge(nodes[0], "intruder")
        yield "remove_node", lambda: value.remove_node(nodes[-1])
        yield "clear", value.clear
        yield "graph attribute", lambda: value.graph.__setitem__("name", "x")
        yield "graph update", lambda: value.graph.update(strict=False)
        n = nodes[-1]
        yield "node attribute", lambda: value.nodes[n].__setitem__("inertia", np.eye(6))
        yield "node pop", lambda: value.nodes[n].pop("inertia", None)
        if edges:
            e = edges[-1]
            yield "edge attribute", lambda: value.edges[e].__setitem__("placement", np.eye(4))
            yield "edge delete", lambda: value.edges[e].clear()
            for key, item in value.edges[e].items():
                if isinstance(item, np.ndarray):
                    yield f"edge array {key}", lambda item=item: item.__setitem__(Ellipsis, 0)
        for key, item in value.nodes[n].items():
            if isinstance(item, np.ndarray):
                yield f"node array {key}", lambda item=item: item.__setitem__(Ellipsis, 0)


@pytest.mark.parametrize("kind", list(MODELS))
def test_every_public_attribute_refuses_rebinding_after_use(kind):
    model = MODELS[kind]()
    q, v, a = _state(model)
    before = _results(model, q, v, a)  # first use: compiled arrays cached
    names = _public(model)
    assert len(names) > 20
    for name in names:
        with pytest.raises(ImmutableModelError, match=repr(name)):
            setattr(model, name, None)
        with pytest.raises(ImmutableModelError, match=repr(name)):
            delattr(model, name)
    for b, r in zip(before, _results(model, q, v, a), strict=True):
        np.testing.assert_array_equal(b, r)


@pytest.mark.parametrize("kind", list(MODELS))
def test_every_in_place_change_is_refused_and_results_follow_the_inputs(kind):
    """Arrays, lists, the graph (structure, attributes, arrays in them), the joints and the
    frame refuse changes; afterwards the model computes what a fresh model computes."""
    rng = np.random.default_rng(SEED)
    model = MODELS[kind]()
    q, v, a = _state(model)
    _results(model, q, v, a)
    tried = 0
    # the constraint objects of a closed model (loop joints, couplings, implicit ones) too
    owners = [model] + list(model.joints) + [model.frame] + list(getattr(model, "constraints", []))
    for owner in owners:
        for name, value in _values(owner):
            for what, change in _in_place_changes(value, rng):
                tried += 1
                with pytest.raises((ImmutableModelError, ValueError)) as info:
                    change()
                if not isinstance(info.value, GeomechError):  # numpy's read-only arrays
                    assert "read-only" in str(info.value), (name, what, info.value)
            if owner is not model:
                with pytest.raises(ImmutableModelError):
                    setattr(owner, name, value)
    assert tried > 30
    fresh = MODELS[kind]()  # the independent reference: the same inputs, never touched
    for b, r in zip(_results(fresh, q, v, a), _results(model, q, v, a), strict=True):
        np.testing.assert_array_equal(b, r)


@pytest.mark.parametrize("kind", TREES)
def test_the_callers_graph_and_joints_do_not_reach_a_built_model(kind):
    """The model keeps a private copy of the graph: changing the caller's graph afterwards
    (the issue's extra node) changes neither the model nor ``with_inertias``."""
    model = MODELS[kind]()
    G = model.graph.copy()  # a mutable graph, as a user builds one
    rebuilt = MultibodyModel(G, gravity=model.gravity)
    q, v, a = _state(model)
    before = _results(rebuilt, q, v, a)
    G.add_node("intruder", inertia=np.eye(6))
    G.add_edge(model.root, "intruder", joint=Revolute([1, 0, 0]))
    node = model.nodes[0]
    G.nodes[node]["inertia"] = 3.0 * np.asarray(G.nodes[node]["inertia"])
    assert rebuilt.with_inertias(rebuilt.inertias).n_bodies == model.n_bodies
    for b, r in zip(before, _results(rebuilt, q, v, a), strict=True):
        np.testing.assert_array_equal(b, r)


def test_issue_reproducers_of_stale_results():
    m = robots.double_pendulum()
    q, v, a = np.array([0.3, 0.2]), np.ones(2), np.ones(2)
    tau = gm.rnea(m, q, v, a)
    with pytest.raises(ValueError, match="read-only"):
        m.joints[0].axis[:] = [1, 0, 0]
    with pytest.raises(ImmutableModelError):
        m.gravity = np.zeros(3)
    with pytest.raises(ImmutableModelError):
        m.inertias = 2 * m.inertias
    with pytest.raises(ImmutableModelError):
        m.graph.add_node("x")
    np.testing.assert_array_equal(gm.rnea(m, q, v, a), tau)
    # the supported ways to change a model give what a model built that way gives
    G = m.graph.copy()
    G.nodes["link1"]["inertia"] = 2.0 * G.nodes["link1"]["inertia"]
    heavier = MultibodyModel(G)
    np.testing.assert_allclose(
        gm.rnea(m.with_inertias(heavier.inertias), q, v, a), gm.rnea(heavier, q, v, a)
    )
    zero_g = MultibodyModel(m.graph, gravity=np.zeros(3))
    np.testing.assert_allclose(float(zero_g.potential_energy(q)), 0.0)
    np.testing.assert_allclose(gm.rnea(zero_g, q, 0 * v, 0 * a), 0.0, atol=1e-15)


def test_old_style_pickles_are_frozen_on_loading():
    """A pickle without the frozen mark (as 0.1.0 wrote them) loads frozen."""
    model = robots.double_pendulum()
    state = dict(model.__dict__)
    state.pop("_frozen")
    state["graph"] = nx.DiGraph(model.graph)  # unfrozen, as then
    state["joint_names"] = list(model.joint_names)
    clone = MultibodyModel.__new__(MultibodyModel)
    clone.__setstate__(state)
    with pytest.raises(ImmutableModelError):
        clone.joint_names.append("x")
    with pytest.raises(ImmutableModelError):
        clone.graph.add_node("x")
    with pytest.raises(ImmutableModelError):
        clone.nv = 3


# ==========================================================================================
# class 2: a NaN or an inf at a random position of a batch of every public function
# ==========================================================================================
def _calls(model):
    """name -> (function, argument names) of every public batched function of a tree."""
    return {
        "rnea": (lambda *x: gm.rnea(model, *x), ("q", "v", "a")),
        "crba": (lambda *x: gm.crba(model, *x), ("q",)),
        "aba": (lambda *x: gm.aba(model, *x), ("q", "v", "tau")),
        "gravity_forces": (lambda *x: gm.gravity_forces(model, *x), ("q",)),
        "kinetic_energy": (lambda *x: gm.kinetic_energy(model, *x), ("q", "v")),
        "joint_transforms": (lambda *x: mb.joint_transforms(model, *x), ("q", "v")),
        "forward_kinematics": (lambda *x: mb.forward_kinematics(model, *x), ("q",)),
        "body_velocities": (lambda *x: mb.body_velocities(model, *x), ("q", "v")),
        "body_jacobians": (lambda *x: mb.body_jacobians(model, *x), ("q",)),
        "velocity_map": (lambda *x: mb.velocity_map(model, *x), ("q", "v")),
        "coriolis_matrix": (lambda *x: gm.coriolis_matrix(model, *x), ("q", "v")),
        "coriolis_matrix_dense": (lambda *x: mb.coriolis_matrix_dense(model, *x), ("q", "v")),
        "coriolis_matrix_differentiation": (
            lambda *x: mb.coriolis_matrix_differentiation(model, *x),
            ("q", "v"),
        ),
        "coriolis_transpose_product": (
            lambda *x: mb.coriolis_transpose_product(model, *x),
            ("q", "v", "w"),
        ),
        "mass_matrix_derivative": (lambda *x: gm.mass_matrix_derivative(model, *x), ("q", "v")),
        "slotine_li_torques": (
            lambda *x: gm.slotine_li_torques(model, *x),
            ("q", "v", "v_ref", "a_ref"),
        ),
        "slotine_li_regressor": (
            lambda *x: mb.slotine_li_regressor(model, *x),
            ("q", "v", "v_ref", "a_ref"),
        ),
        "christoffel_symbols": (lambda *x: gm.christoffel_symbols(model, *x), ("q",)),
        "joint_structure_constants": (lambda *x: mb.joint_structure_constants(model, *x), ("q",)),
        "rnea_derivatives": (lambda *x: gm.rnea_derivatives(model, *x), ("q", "v", "a")),
        "rnea_second_derivatives": (
            lambda *x: gm.rnea_second_derivatives(model, *x),
            ("q", "v", "a"),
        ),
        "aba_derivatives": (lambda *x: gm.aba_derivatives(model, *x), ("q", "v", "tau")),
        "aba_second_derivatives": (
            lambda *x: gm.aba_second_derivatives(model, *x),
            ("q", "v", "tau"),
        ),
        "integrate": (model.integrate, ("q", "v")),
        "difference": (model.difference, ("q0", "q1")),
        "potential_energy": (model.potential_energy, ("q",)),
        "mass_matrix": (model.mass_matrix, ("q",)),
        "forward_dynamics": (model.forward_dynamics, ("q", "v", "tau")),
    }


NAN_MODELS = ["double_pendulum", "humanoid", "every_joint"]
NAN_CASES = [
    (kind, fn, arg)
    for kind in NAN_MODELS
    for fn, (_, args) in _calls(robots.double_pendulum()).items()
    for arg in args
]


@pytest.mark.parametrize(("kind", "fn", "arg"), NAN_CASES)
def test_a_non_finite_entry_is_located_in_the_batch(kind, fn, arg):
    rng = np.random.default_rng([SEED, len(fn), len(arg), len(kind)])
    model = MODELS[kind]()
    call, args = _calls(model)[fn]
    batch = [(40,), (6, 7), (3, 1, 5)][int(rng.integers(3))]
    values = []
    for name in args:
        if name.startswith("q"):
            values.append(model.random_configuration(rng, size=batch))
        else:
            values.append(0.1 * rng.normal(size=batch + (model.nv,)))
    call(*values)  # compiled and warm before the timed child (numba's first call is not the check)
    k = args.index(arg)
    where = tuple(int(rng.integers(s)) for s in batch)
    col = int(rng.integers(values[k].shape[-1]))
    values[k][where + (col,)] = rng.choice([np.nan, np.inf, -np.inf])

    def case():
        call(*values)

    index = ", ".join(map(str, where))
    assert_bounded(run_case(case), NonFiniteError, rf"`{arg}`.*batch element \({index},?\)")


@pytest.mark.parametrize(
    ("kind", "fn"),
    [("four_bar", f) for f in ("rnea", "crba", "aba", "kinetic_energy")]
    + [("cam", "crba"), ("cam", "kinetic_energy")]
    + [("cam", f) for f in ("rnea", "aba")],
)
def test_a_non_finite_entry_is_located_in_a_closed_model_batch(kind, fn):
    rng = np.random.default_rng([SEED, len(fn), len(kind)])
    model = MODELS[kind]()
    call, args = _calls(model)[fn]
    q0 = model.neutral()
    values = [np.tile(q0, (30, 1))] + [0.1 * rng.normal(size=(30, model.nv)) for _ in args[1:]]
    k, b = int(rng.integers(len(args))), int(rng.integers(30))
    values[k][b, int(rng.integers(values[k].shape[-1]))] = np.nan
    assert_bounded(run_case(lambda: call(*values)), NonFiniteError, rf"`{args[k]}`.*\({b},\)")


@pytest.mark.parametrize("which", ["q0", "v0"])
@pytest.mark.parametrize("method", ["rkmk4", "RK45"])
def test_simulate_locates_a_non_finite_batch_member(which, method):
    rng = np.random.default_rng([SEED, len(which), len(method)])
    model = robots.double_pendulum()
    q0, v0 = rng.normal(size=(100, 2)), rng.normal(size=(100, 2))
    b = int(rng.integers(100))
    gm.simulate(model, q0, v0, 0.001, method=method, progress=False)  # warm before timing
    (q0 if which == "q0" else v0)[b, int(rng.integers(2))] = np.inf
    outcome = run_case(lambda: gm.simulate(model, q0, v0, 0.01, method=method))
    assert_bounded(outcome, NonFiniteError, rf"`{which}`.*batch element \({b},\)")


@pytest.mark.parametrize("joint", ["spherical", "free_flyer"])
@pytest.mark.parametrize("norm", [0.0, 0.5, 1.0 + 2e-6, 2.0, 1e6])
def test_integrate_refuses_the_quaternions_rnea_refuses(joint, norm):
    model = every_joint_tree()
    rng = np.random.default_rng(SEED)
    q = model.random_configuration(rng, size=8)
    col = model.q_slices[[j.kind for j in model.joints].index(joint)].start
    col += 3 if joint == "free_flyer" else 0
    b = int(rng.integers(8))
    u = q[b, col : col + 4]
    q[b, col : col + 4] = norm * u / np.linalg.norm(u)
    v = np.zeros((8, model.nv))
    for fn in (lambda: gm.rnea(model, q, v, v), lambda: model.integrate(q, v)):
        assert_bounded(run_case(fn), NotOnManifoldError, rf"unit quaternion.*\({b},\)")


def test_difference_of_a_nan_is_not_silent():
    m = robots.double_pendulum()
    with pytest.raises(NonFiniteError, match="`q1`"):
        m.difference([0, 0], [np.nan, 0])


@pytest.mark.parametrize("fn", ["rnea", "crba", "aba", "kinetic_energy", "integrate"])
def test_masked_arrays_are_refused_or_read_whole(fn):
    model = robots.double_pendulum()
    call, args = _calls(model)[fn]
    values = [np.array([0.3, 0.2]) for _ in args]
    reference = call(*values)
    unmasked = [np.ma.masked_array(x, mask=[0, 0]) for x in values]
    np.testing.assert_array_equal(call(*unmasked), reference)
    for k in range(len(args)):
        masked = list(values)
        masked[k] = np.ma.masked_array(values[k], mask=[1, 0])
        with pytest.raises(DTypeError, match="masked"):
            call(*masked)


# ==========================================================================================
# class 9: every size-taking public function at absurd sizes
# ==========================================================================================
ABSURD = [10**9, (10**5, 10**5), 2**40, (2**31, 2**31, 2**31)]
BAD_SIZES = [(-1, DimensionError), ((3, -2), DimensionError), (1.5, DTypeError),
             ("10", DTypeError), (True, DTypeError), ((2.0,), DTypeError),
             ((1,) * 40, DimensionError)]  # fmt: skip
GROUPS = {"SO3": SO3, "SE3": SE3, "SE2": SE2, "Schoenflies": Schoenflies, "R5": Euclidean(5)}


def _size_functions():
    model = robots.humanoid()
    out = {
        "model.random_configuration": lambda s: model.random_configuration(0, size=s),
        "frame.random_configuration": lambda s: model.frame.random_configuration(0, size=s),
        "robots.random_inertia": lambda s: robots.random_inertia(0, size=s),
    }
    for name, factory in JOINTS.items():
        joint = factory(np.random.default_rng(0))
        out[f"{name}.random_configuration"] = lambda s, j=joint: j.random_configuration(0, s)
    for name, group in GROUPS.items():
        out[f"{name}.random"] = lambda s, g=group: g.random(0, size=s)
    return out


SIZE_FUNCTIONS = _size_functions()


@pytest.mark.parametrize("size", ABSURD, ids=str)
@pytest.mark.parametrize("fn", list(SIZE_FUNCTIONS))
def test_absurd_sizes_are_refused_within_bounds(fn, size):
    assert_bounded(run_case(lambda: SIZE_FUNCTIONS[fn](size)), DimensionError, "MiB|entries")


@pytest.mark.parametrize(("size", "error"), BAD_SIZES, ids=str)
@pytest.mark.parametrize("fn", list(SIZE_FUNCTIONS))
def test_malformed_sizes_are_named(fn, size, error):
    assert_bounded(run_case(lambda: SIZE_FUNCTIONS[fn](size)), error)


@pytest.mark.parametrize("fn", list(SIZE_FUNCTIONS))
def test_ordinary_sizes_still_work(fn):
    x = SIZE_FUNCTIONS[fn]((3, 2))
    assert x.shape[:2] == (3, 2) and np.all(np.isfinite(x))


@pytest.mark.parametrize("n", [10**5 + 1, 10**8, 2**40, 2**63])
@pytest.mark.parametrize("factory", ["serial_chain", "binary_tree", "random_tree"])
def test_generated_robots_of_absurd_size_are_refused(factory, n):
    assert_bounded(run_case(lambda: getattr(robots, factory)(n)), ModelError, "at most")


@pytest.mark.parametrize("fn", ["rnea", "crba", "aba", "coriolis_matrix", "christoffel_symbols",
                                "rnea_derivatives", "body_jacobians", "integrate"])  # fmt: skip
@pytest.mark.parametrize("batch", [(10**8,), (10**4, 10**4), (10**3, 10**3, 10**3)], ids=str)
def test_broadcast_batches_are_not_materialised_beyond_the_limit(fn, batch):
    """Zero-stride views of 10⁸ or more states (no memory) are refused, not copied."""
    model = robots.double_pendulum()
    call, args = _calls(model)[fn]
    values = [np.broadcast_to(np.zeros(2), batch + (2,)) for _ in args]
    assert_bounded(run_case(lambda: call(*values)), DimensionError, "smaller batches")


@pytest.mark.parametrize(
    "fn", ["christoffel_symbols", "rnea_second_derivatives", "aba_second_derivatives"]
)
def test_cubic_results_of_a_legal_large_chain_are_refused_before_allocating(fn):
    model = robots.serial_chain(599)
    call, args = _calls(model)[fn]
    values = [model.neutral() if a == "q" else np.zeros(model.nv) for a in args]
    assert_bounded(run_case(lambda: call(*values)), DimensionError, "MiB")


@pytest.mark.parametrize("size", [10**9, -1, "10"])
def test_closed_random_configuration_sizes(size):
    model = load_example("four_bar")
    outcome = run_case(lambda: model.random_configuration(0, size=size), timeout=5.0)
    assert_bounded(outcome, GeomechError)
    assert outcome.error in (DimensionError, DTypeError)


def test_the_sparse_second_derivatives_of_that_chain_still_work():
    model = robots.serial_chain(120)
    q, v, a = _state(model)
    sparse = gm.rnea_second_derivatives(model, q, v, a, sparse=True)
    dense = gm.rnea_second_derivatives(robots.serial_chain(120), q, v, a)
    np.testing.assert_allclose(sparse.d2tau_dq2.todense(), dense.d2tau_dq2, atol=1e-9)


@pytest.mark.parametrize("ndim", [25, 33, 63])
def test_too_many_batch_dimensions_are_named(ndim):
    model = robots.double_pendulum()
    q = np.zeros((1,) * ndim + (2,))
    for fn in ("rnea", "crba", "forward_kinematics", "difference"):
        call, args = _calls(model)[fn]
        values = (q,) * len(args)
        outcome = run_case(lambda c=call, x=values: c(*x))
        assert_bounded(outcome, DimensionError, "batch dimensions")


# ==========================================================================================
# class 8: every thread count
# ==========================================================================================
@pytest.fixture
def threads():
    yield driver.set_num_threads
    driver.set_num_threads(1)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 16, 300, 1024])
def test_batch_failures_are_located_with_any_thread_count(threads, n):
    rng = np.random.default_rng([SEED, n])
    model = robots.double_pendulum()
    threads(n)
    for B in (256, 257, 300, 1000, 4099):
        Q, V = rng.normal(size=(B, 2)), rng.normal(size=(B, 2))
        serial_free = [gm.rnea(model, Q[i], V[i], V[i]) for i in range(0, B, B // 7)]
        threaded = gm.rnea(model, Q, V, V)
        np.testing.assert_array_equal(threaded[:: B // 7], np.stack(serial_free))
        for kind in ("overflow", "nan"):
            b = int(rng.integers(B)) if kind == "nan" else B - 1 - int(rng.integers(3))
            Qb, Vb = Q.copy(), V.copy()
            if kind == "nan":
                Qb[b, 1] = np.nan
                match = rf"`q` to be finite.*\({b},\)"
            else:
                Vb[b] = 1e300
                match = rf"overflow.*\({b},\)"
            with pytest.raises(NonFiniteError, match=match):
                gm.rnea(model, Qb, Vb, Vb)


@pytest.mark.parametrize(("n", "error"), [(0, DimensionError), (-1, DimensionError),
                                          (1025, ParameterError), (10**9, ParameterError),
                                          ("abc", DTypeError), (float("nan"), DTypeError),
                                          (2.0, DTypeError), (True, DTypeError),
                                          ([2], DTypeError)])  # fmt: skip
def test_bad_thread_counts_are_named(threads, n, error):
    assert_bounded(run_case(lambda: threads(n)), error, "threads")
    assert driver.get_num_threads() == 1


# ==========================================================================================
# class 10/11 + partial trajectories: every callback misbehaving
# ==========================================================================================
def _bad_outputs(shape):
    """Wrong things a callback can return for an output of ``shape``: (what, value, error)."""
    n = shape[-1]
    return [
        ("extra leading axis", np.zeros((1,) + shape), DimensionError),
        ("wrong batch", np.zeros((3,) + shape), DimensionError),
        ("short", np.zeros(shape[:-1] + (n + 1,)), DimensionError),
        ("scalar row", np.zeros(shape[:-1] + (n, 1)), DimensionError),
        ("complex", np.zeros(shape) + 1j, DTypeError),
        ("text", np.array(["0"] * n), DTypeError),
        ("object", np.array([object()] * n), DTypeError),
        ("nan", np.full(shape, np.nan), NonFiniteError),
        ("inf", np.full(shape, -np.inf), NonFiniteError),
        ("none", None, DTypeError),
        ("ragged", [[0.0], [0.0, 1.0]], DTypeError),
    ]


RAISED = [ZeroDivisionError, KeyError, IndexError, RuntimeError, ValueError, TypeError,
          AttributeError, np.linalg.LinAlgError, FloatingPointError]  # fmt: skip
MODEL = robots.double_pendulum()
Q0, V0 = np.array([0.3, 0.2]), np.array([0.0, 0.5])


class _Dynamic:
    """A dynamic controller whose ``which`` method misbehaves (returns ``bad``)."""

    state0 = np.zeros(2)

    def __init__(self, which, bad):
        self.which, self.bad = which, bad

    def torque(self, t, q, v, x):
        return self.bad(t, q, v) if self.which == "torque" else -v

    def state_rate(self, t, q, v, x):
        return self.bad(t, q, v) if self.which == "state_rate" else -x


def _controllers(bad):
    return {"static": bad, "torque": _Dynamic("torque", bad),
            "state_rate": _Dynamic("state_rate", bad)}  # fmt: skip


@pytest.mark.parametrize("batch", [(), (4,)], ids=str)
@pytest.mark.parametrize("kind", ["static", "torque", "state_rate"])
@pytest.mark.parametrize("case", range(len(_bad_outputs((2,)))))
def test_controller_outputs_of_every_wrong_kind_are_named(case, kind, batch):
    what, value, error = _bad_outputs(batch + (2,))[case]
    if batch and what == "extra leading axis":
        value = np.zeros((2,) + batch + (2,))
    controller = _controllers(lambda t, q, v: value)[kind]
    q0 = np.broadcast_to(Q0, batch + (2,))
    outcome = run_case(lambda: gm.simulate(MODEL, q0, V0, 0.01, controller=controller))
    assert_bounded(outcome, error)


@pytest.mark.parametrize("kind", ["static", "torque", "state_rate"])
@pytest.mark.parametrize("exc", RAISED, ids=lambda e: e.__name__)
def test_a_raising_controller_is_named_and_keeps_the_partial_run(kind, exc):
    def bad(t, q, v):
        if t > 0.0045:
            raise exc("boom\nsecond line")
        return -v

    try:
        gm.simulate(MODEL, Q0, V0, 0.01, controller=_controllers(bad)[kind], dt=1e-3)
    except SimulationError as err:
        assert isinstance(err.__cause__, exc) and exc.__name__ in str(err)
        assert "\n" not in str(err)
        partial = err.partial
    else:
        pytest.fail("no error")
    # the reference: the same run stopped before the controller fails
    ref = gm.simulate(MODEL, Q0, V0, 0.004, controller=_controllers(lambda t, q, v: -v)[kind])
    k = partial.t.size
    assert 4 <= k <= 6 and partial.q.shape == (k, 2) and partial.v.shape == (k, 2)
    np.testing.assert_allclose(partial.q[:5], ref.q[:5], rtol=0, atol=1e-15)
    np.testing.assert_allclose(partial.t[:5], ref.t, rtol=0, atol=1e-15)


@pytest.mark.parametrize("target", ["q", "v", "x"])
@pytest.mark.parametrize("where", ["controller", "state_rate", "log"])
def test_callbacks_cannot_write_into_the_state(target, where):
    def writer(t, q, v, x=None, tau=None):
        {"q": q, "v": v, "x": v if x is None else x}[target][...] = 0.0
        return np.zeros(2)

    if where == "controller":
        kwargs = {"controller": _Dynamic("torque", lambda t, q, v: writer(t, q, v, np.zeros(2)))}
        kwargs["controller"].torque = lambda t, q, v, x: writer(t, q, v, x)
    elif where == "state_rate":
        kwargs = {"controller": _Dynamic("state_rate", lambda t, q, v: np.zeros(2))}
        kwargs["controller"].state_rate = lambda t, q, v, x: writer(t, q, v, x)
    else:
        kwargs = {"log": {"w": lambda t, q, v, tau: writer(t, q, v, None, tau)}}
    with pytest.raises(SimulationError, match="read-only") as info:
        gm.simulate(MODEL, Q0, V0 + 1.0, 0.01, **kwargs)
    assert info.value.partial.q.shape[-1] == 2


@pytest.mark.parametrize("case", range(len(_bad_outputs((2,)))))
def test_logged_functions_returning_wrong_things_keep_the_trajectory(case):
    what, value, error = _bad_outputs((2,))[case]
    if error is NonFiniteError:  # a logged signal may be non-finite: recorded as it is
        res = gm.simulate(MODEL, Q0, V0, 0.01, log={"s": lambda t, q, v, tau: value})
        assert not np.isfinite(res.signals["s"]).any()
        return
    if what in ("extra leading axis", "wrong batch", "short", "scalar row"):

        def fn(t, q, v, tau):  # a shape that changes along the run
            return value if t > 0.005 else np.zeros(2)
    else:

        def fn(t, q, v, tau):
            return value

    with pytest.raises(GeomechError) as info:
        gm.simulate(MODEL, Q0, V0, 0.01, log={"ok": lambda t, q, v, tau: q[0], "s": fn})
    ref = gm.simulate(MODEL, Q0, V0, 0.01)
    np.testing.assert_array_equal(info.value.partial.q, ref.q)
    np.testing.assert_array_equal(info.value.partial.signals["ok"], ref.q[:, 0])


@pytest.mark.parametrize("exc", RAISED, ids=lambda e: e.__name__)
def test_a_raising_log_function_keeps_the_trajectory(exc):
    def fn(t, q, v, tau):
        raise exc("boom")

    with pytest.raises(SimulationError, match=exc.__name__) as info:
        gm.simulate(MODEL, Q0, V0, 0.01, log={"s": fn})
    np.testing.assert_array_equal(info.value.partial.q, gm.simulate(MODEL, Q0, V0, 0.01).q)


@pytest.mark.parametrize("method", ["rkmk4", "lie_euler", "rkmk2"])
@pytest.mark.parametrize("rate", [400.0, 800.0])
def test_a_diverging_run_keeps_what_was_integrated(method, rate):
    def pushing(t, q, v):
        return 1e3 * np.exp(rate * t) * np.ones(2)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(NonFiniteError, match="diverged|overflow") as info:
            gm.simulate(MODEL, Q0, V0, 3.0, controller=pushing, dt=0.01, method=method)
        partial = info.value.partial
        k = partial.t.size
        assert k >= 2 and np.all(np.isfinite(partial.q)) and np.all(np.isfinite(partial.v))
        # the reference: the same run stopped before the blow-up
        ref = gm.simulate(MODEL, Q0, V0, partial.t[-1], controller=pushing, dt=0.01,
                          method=method)  # fmt: skip
    np.testing.assert_allclose(partial.t, ref.t, rtol=1e-12)
    np.testing.assert_allclose(partial.q, ref.q, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(partial.tau[:-1], ref.tau[:-1], rtol=1e-12)


@pytest.mark.parametrize("method", ["RK45", "DOP853", "Radau"])
@pytest.mark.parametrize("rate", [400.0, 800.0])
def test_an_adaptive_blow_up_is_named_early(method, rate):
    """A finite-time blow-up under an adaptive method is a NonFiniteError found within a few
    thousand steps, not a budget overrun after minutes (the wall-time budget here would name it
    a SimulationBudgetError)."""

    def pushing(t, q, v):
        return 1e3 * np.exp(rate * t) * np.ones(2)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(NonFiniteError, match="diverged") as info:
            gm.simulate(MODEL, Q0, V0, 3.0, controller=pushing, dt=0.01, method=method,
                        max_wall_time=20.0)  # fmt: skip
    assert np.all(np.isfinite(info.value.partial.q))


@pytest.mark.parametrize("method", ["RK45", "DOP853", "Radau"])
def test_an_adaptive_run_failing_midway_keeps_its_outputs(method):
    """The adaptive solvers' partial trajectory (a controller failing at t > 0.05)."""

    def failing(t, q, v):
        return np.full(2, np.inf) if t > 0.05 else -v

    # the solver rejects the non-finite trial points until its step collapses
    with pytest.raises(SimulationBudgetError, match="collapsed") as info:
        gm.simulate(MODEL, Q0, V0, 1.0, controller=failing, dt=0.01, method=method)
    partial = info.value.partial
    k = partial.t.size
    assert 2 <= k <= 7
    ref = gm.simulate(MODEL, Q0, V0, partial.t[-1], controller=lambda t, q, v: -v, dt=0.01,
                      method=method)  # fmt: skip
    np.testing.assert_allclose(partial.q, ref.q, rtol=1e-6, atol=1e-9)
    assert np.isnan(partial.tau).all()  # adaptive runs record no torque before the end


PHI_CASES = [
    ("nan", lambda q: [np.nan], NonFiniteError),
    ("inf", lambda q: [np.inf * q[0] + np.inf], NonFiniteError),
    ("text", lambda q: ["abc"], DTypeError),
    ("complex", lambda q: [6.0 * q[0] - q[1] + 1e-3j], DTypeError),
    ("none", lambda q: None, DTypeError),
    ("matrix", lambda q: np.zeros((1, 1)), DimensionError),
    *[(e.__name__, lambda q, e=e: (_ for _ in ()).throw(e("boom")), ModelError) for e in RAISED],
]


@pytest.mark.parametrize("what", ["phi", "jacobian", "jacobian_rate"])
@pytest.mark.parametrize(("name", "phi", "error"), PHI_CASES, ids=[c[0] for c in PHI_CASES])
def test_constraint_functions_returning_wrong_things_are_named(what, name, phi, error):
    """ImplicitConstraint's callbacks: text, complex, NaN and raising are named errors."""
    good = {"phi": lambda q: [6.0 * q[0] - q[1]], "jacobian": lambda q: [[6.0, -1.0]],
            "jacobian_rate": lambda q, u: [[0.0, 0.0]]}  # fmt: skip
    funcs = dict(good)
    funcs[what] = phi if what != "jacobian_rate" else (lambda q, u: phi(q))
    if what == "jacobian" and name == "matrix":
        error = DimensionError

    def case():
        model = ClosedMultibodyModel(
            cam_graph(
                funcs["phi"], jacobian=funcs["jacobian"], jacobian_rate=funcs["jacobian_rate"]
            )
        )
        q = model.neutral()
        gm.rnea(model, q, np.ones(model.nv), np.ones(model.nv))

    assert_bounded(run_case(case), error)


# ==========================================================================================
# remaining silent results and unnamed exceptions of classes 10 and 11
# ==========================================================================================
@pytest.mark.parametrize(("kwargs", "match"), [
    ({"t_final": "1"}, "floats"), ({"t_final": True}, "floats"), ({"t_final": b"1"}, "floats"),
    ({"t_final": 1.0, "dt": "0.1"}, "floats"), ({"t_final": 1.0, "t0": np.bool_(False)}, "floats"),
    ({"t_final": 1e15 + 1, "t0": 1e15}, "resolvable"),
    ({"t_final": 1e12 + 1, "t0": 1e12}, "resolvable"),
])  # fmt: skip
def test_simulate_time_arguments(kwargs, match):
    assert_bounded(run_case(lambda: gm.simulate(MODEL, Q0, V0, **kwargs)), SimulationError, match)


def test_times_that_float64_resolves_are_still_accepted():
    res = gm.simulate(MODEL, Q0, V0, 1e6 + 0.01, t0=1e6)
    steps = np.diff(res.t)
    assert res.t.size >= 11 and np.all(steps > 0)
    np.testing.assert_allclose(steps, steps.mean(), rtol=1e-3)


@pytest.mark.parametrize("value", ["no", "yes", "", 0, 1, None.__class__, [True]])
def test_flags_are_bools(value):
    for call in (lambda: robots.load("humanoid", value),
                 lambda: robots.serial_chain(3, floating_base=value),
                 lambda: robots.humanoid(fixed_base=value)):  # fmt: skip
        assert_bounded(run_case(call), ModelError, "bool")


@pytest.mark.parametrize("arg", ["m1", "m2", "l1", "l2", "radius"])
@pytest.mark.parametrize("value", ["2", b"2", 10**400, -(10**400), np.nan, np.inf, None, 1j, True])
def test_double_pendulum_parameters(arg, value):
    assert_bounded(run_case(lambda: robots.double_pendulum(**{arg: value})), ModelError, arg)


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x08", "\x0b", "\x1f", "\ufffe", "\ud800"])
@pytest.mark.parametrize("where", ["body", "joint", "robot"])
def test_to_urdf_refuses_names_it_could_not_read_back(char, where):
    G = robots.double_pendulum().graph.copy()
    name = f"na{char}me"
    if where == "body":
        G = nx.relabel_nodes(G, {"link2": name})
    elif where == "joint":
        G.edges["link1", "link2"]["name"] = name
    model = MultibodyModel(G)
    kw = {"name": name} if where == "robot" else {}
    assert_bounded(run_case(lambda: gm.to_urdf(model, **kw)), URDFError, "cannot be written")


def test_to_urdf_keeps_legal_unusual_names():
    G = nx.relabel_nodes(robots.double_pendulum().graph.copy(), {"link2": 'lïnk\t<2> & "x"'})
    model = MultibodyModel(G)
    assert gm.load_urdf(gm.to_urdf(model)).body_names == model.body_names


def test_a_coupling_ratio_beyond_float64_is_named():
    G = nx.DiGraph()
    G.add_edge("world", "a", joint=Revolute([0, 0, 1]))
    G.add_edge("world", "b", joint=Revolute([0, 0, 1]))
    nx.set_node_attributes(G, {"a": _body(), "b": _body()}, "inertia")
    G.add_edge("a", "b", kind="coupling", ratio=10**400)
    assert_bounded(run_case(lambda: ClosedMultibodyModel(G)), ModelError, "ratio")


# ==========================================================================================
# class 7: memory on URDF inputs within the limits
# ==========================================================================================
def _urdf_cases():
    base = [link("a"), link("b"), '<joint name="j" type="revolute"><parent link="a"/>'
            '<child link="b"/><axis xyz="0 0 1"/></joint>']  # fmt: skip
    many = 2_000_000
    return {
        "loop children": robot(*base, '<loop name="l">' + "<x/>" * many + "</loop>"),
        "coupling children": robot(*base, '<coupling name="c">' + "<x/>" * many + "</coupling>"),
        "nested loop children": robot(*base, '<loop name="l"><p>' + "<x/>" * many + "</p></loop>"),
        "link attributes": robot(link("a"), '<link name="x" '
                                 + " ".join(f'a{i}="0"' for i in range(700_000)) + "/>"),
        "joint attributes": robot(link("a"), '<joint name="x" '
                                  + " ".join(f'a{i}=">"' for i in range(600_000)) + "/>"),
        "ignored element attributes": robot(link("a"), '<gazebo '
                                            + " ".join(f'a{i}="1"' for i in range(700_000))
                                            + "/>"),
    }  # fmt: skip


URDF_CASES = _urdf_cases()


@pytest.mark.parametrize("case", list(URDF_CASES))
def test_urdf_inputs_within_the_size_limit_stay_within_the_memory_bound(case):
    text = URDF_CASES[case]
    assert len(text) <= 8 * 2**20
    assert_bounded(run_case(lambda: gm.load_urdf(text)), URDFError)


def test_urdf_with_many_equals_signs_in_text_still_loads():
    """Text and comments with many '=' are fine when no element has that many attributes."""
    comment = "<!--" + "=" * 100 + "-->"
    parts = [link("l0", inertial=False)] + [comment] * 200
    parts += [link("l1"), '<joint name="j" type="revolute"><parent link="l0"/>'
              '<child link="l1"/><axis xyz="0 0 1"/></joint>']  # fmt: skip
    assert gm.load_urdf(robot(*parts)).nv == 1


# ==========================================================================================
# the cost of immutability on the hot path stays small
# ==========================================================================================
def test_model_setattr_guard_does_not_touch_the_single_state_path():
    model = robots.humanoid()
    q, v, a = _state(model)
    gm.rnea(model, q, v, a)
    assert model._single is not None and math.isfinite(float(gm.rnea(model, q, v, a)[0]))
