"""Seed 000 Algorithms 1 and 2 in cluster form on closed models, against independent references.

* ``coriolis_matrix`` (cluster Alg. 1) equals the dense :math:`G^\\top C_s G + G^\\top H_s\\dot G`
  assembled here from the spanning tree's ``coriolis_matrix``/``crba`` and ``G``, with
  :math:`\\dot G` by central differences of ``G`` along ``model.integrate`` (the
  constraint-consistent flow), for every named body connection, a user callable and a
  per-body mapping; the model's own :math:`\\dot G` is checked against the same differences;
* skew symmetry of :math:`\\dot{\\bar H} - 2\\bar C` (:math:`\\dot{\\bar H}` by central
  differences of the CRBA along the flow) exactly for the metric-compatible connections;
  :math:`\\bar C v = \\mathrm{RNEA}(q, v, 0) - g` exactly for those with correct dynamics,
  and against Pinocchio's ``nonLinearEffects`` on the spanning tree projected with ``G``;
* ``christoffel_symbols`` (cluster Alg. 2): :math:`\\bar\\Gamma\\cdot v = \\bar C^\\star` and
  :math:`\\bar\\Gamma_{ijk}v^jv^k = \\mathrm{RNEA}(q, v, 0) - g`;
* ``mass_matrix_derivative``, ``slotine_li_torques`` (and its regressor),
  ``coriolis_transpose_product`` on closed models;
* every shipped URDF+ example in fixed and floating base, plus a five-bar (a loop cluster
  with two independent speeds, where :math:`\\dot G` couples them);
* batched == looped, and the validators.
"""

import networkx as nx
import numpy as np
import pytest
from loops_helpers import PinLoops, rel_err
from test_coriolis_models import TwistedSlider, UniversalXY

from geomech.errors import (
    ConnectionSpecError,
    DimensionError,
    ModelError,
    NonFiniteError,
    NotOnManifoldError,
)
from geomech.multibody import ClosedMultibodyModel, FreeFlyer, Revolute, robots
from geomech.multibody.algorithms.christoffel import christoffel_symbols
from geomech.multibody.algorithms.coriolis import (
    coriolis_matrix,
    coriolis_matrix_dense,
    coriolis_transpose_product,
    mass_matrix_derivative,
    slotine_li_torques,
)
from geomech.multibody.algorithms.dynamics import aba, crba, gravity_forces, rnea
from geomech.multibody.algorithms.regressor import slotine_li_regressor
from geomech.multibody.closed.coriolis import (
    closed_christoffel_symbols,
    closed_coriolis_matrix,
    closed_coriolis_matrix_dense,
    closed_coriolis_transpose_product,
    closed_mass_matrix_derivative,
    closed_slotine_li_regressor,
    closed_slotine_li_torques,
)
from geomech.multibody.connections.body import NAMED_BODY_CONNECTIONS
from geomech.multibody.io.examples import example_names, load_example
from geomech.spatial import crf, crm, dynamic_parameters, spatial_inertia

#: name -> (metric compatible, correct dynamics), seed 000 Table / the body-connection tests
PROPERTIES = {
    "levi-civita": (True, True),
    "cartan-minus": (True, False),
    "cartan-zero": (False, False),
    "cartan-plus": (False, False),
    "velocity-cross": (True, True),
    "boltzmann-hamel": (True, True),
}
N_STATES = 3
H_FD = 1e-5


def _five_bar(floating=False, user_joints=False):
    """A planar five-bar (two cranks, two couplers, one loop joint): nv = 2 (+ 6), one loop
    cluster whose two independent speeds are coupled through G and Ġ."""

    def body(com):
        return spatial_inertia(1.0, com, np.diag([0.01, 0.02, 0.03]))

    def at(x, y):
        T = np.eye(4)
        T[:2, 3] = x, y
        return T

    z = [0, 0, 1]
    G = nx.DiGraph(name="five_bar")
    base = "world"
    if floating:
        G.add_edge("world", "base", joint=FreeFlyer(), name="root")
        base = "base"
        G.nodes["base"]["inertia"] = spatial_inertia(2.0, [1.5, 0.0, 0.1], 0.1 * np.eye(3))
    G.add_edge(base, "crank1", joint=Revolute(z), name="A")
    G.add_edge("crank1", "coupler1", joint=Revolute(z), placement=at(0, 1), name="B")
    G.add_edge(base, "crank2", joint=Revolute(z), placement=at(3, 0), name="D")
    G.add_edge("crank2", "coupler2", joint=Revolute(z), placement=at(0, 1), name="E")
    G.add_edge(
        "coupler1",
        "coupler2",
        kind="loop",
        joint=Revolute(z),
        placement=at(2, 0),
        successor_placement=at(-1, 0),
        name="C",
    )
    if user_joints:  # user-defined joints with Φ̊ ≠ 0, in clusters of their own
        G.add_edge("coupler2", "slider", joint=TwistedSlider(), placement=at(-0.5, 0), name="F")
        G.add_edge("crank1", "wrist", joint=UniversalXY(), placement=at(0.2, 0.5), name="W")
        for name, com in (("slider", [0.1, 0.2, 0.3]), ("wrist", [0.0, 0.3, -0.2])):
            G.nodes[name]["inertia"] = body(com)
    for name, com in (
        ("crank1", [0, 0.5, 0]),
        ("coupler1", [1, 0.1, 0]),
        ("crank2", [0.1, 0.5, 0]),
        ("coupler2", [-0.5, 0, 0.05]),
    ):
        G.nodes[name]["inertia"] = body(com)
    return ClosedMultibodyModel(G)


MODELS = [(name, fb) for name in example_names() for fb in (False, True)] + [
    ("five_bar", False),
    ("five_bar", True),
]
_CACHE: dict = {}


def _model(name, floating):
    key = (name, floating)
    if key not in _CACHE:
        if name.startswith("five_bar"):
            _CACHE[key] = _five_bar(floating, user_joints=name == "five_bar_user")
        else:
            _CACHE[key] = load_example(name, floating)
    return _CACHE[key]


def _states(model, seed, n=N_STATES):
    """Random closed states away from the loops' singular configurations (max |G| below twice
    its median over the draws), where central differences of G stay accurate."""
    rng = np.random.default_rng(seed)
    q = model.random_configuration(rng, size=3 * n)
    G, _ = model.constraint_matrices(q, np.zeros(model.nv))
    size = np.abs(G).max(axis=(-2, -1))
    q = q[size <= 2.0 * np.median(size)][:n]
    assert len(q) == n
    return q, rng.normal(size=(n, model.nv))


class _Flow:
    """States of a model with their constraint data and central differences along the closed
    flow q(t) = integrate(q, v, t), computed once per model (the Newton continuation of
    ``integrate`` is the slow part)."""

    def __init__(self, model, seed=2):
        self.q, self.v = _states(model, seed)
        self.G, _ = model.constraint_matrices(self.q, self.v)
        q_plus = model.integrate(self.q, self.v, H_FD)
        q_minus = model.integrate(self.q, self.v, -H_FD)
        zeros = np.zeros(model.nv)
        self.G_dot = (
            model.constraint_matrices(q_plus, zeros)[0]
            - model.constraint_matrices(q_minus, zeros)[0]
        ) / (2 * H_FD)
        self.H_dot = (crba(model, q_plus) - crba(model, q_minus)) / (2 * H_FD)
        self.qd = np.einsum("bij,bj->bi", self.G, self.v)


_FLOWS: dict = {}


def _flow(name, floating):
    key = (name, floating)
    if key not in _FLOWS:
        _FLOWS[key] = _Flow(_model(name, floating))
    return _FLOWS[key]


def _dense_reference(model, flow, connection):
    """Gᵀ C_s(q, Gv) G + Gᵀ H_s Ġ from the spanning tree's Alg. 1 and CRBA, Ġ by differences."""
    st = model.spanning_tree
    C_s = coriolis_matrix(st, flow.q, flow.qd, connection)
    Gt = np.swapaxes(flow.G, -1, -2)
    return Gt @ C_s @ flow.G + Gt @ crba(st, flow.q) @ flow.G_dot


def _user_connection(v, inertia):
    """A user body connection: linear in the twist, neither metric compatible nor LC."""
    return crf(v) @ inertia - 0.3 * inertia @ crm(v)


CONNECTIONS = list(NAMED_BODY_CONNECTIONS) + ["user", "mapping"]


def _connection(model, name):
    if name == "user":
        return _user_connection
    if name == "mapping":  # one body on Cartan (−), one on a user connection, others LC
        names = model.body_names
        return {names[-1]: "cartan-minus", names[len(names) // 2]: _user_connection}
    return name


# ----------------------------------------------------------------------------------------
# Alg. 1: C̄ = GᵀCG + GᵀHĠ
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "floating"), MODELS)
def test_constraint_rate_matches_central_differences(name, floating):
    model, flow = _model(name, floating), _flow(name, floating)
    _, _, G_dot = model.constraint_matrices(flow.q, flow.v, rate=True)
    assert rel_err(G_dot, flow.G_dot) < 1e-7


@pytest.mark.parametrize("connection", CONNECTIONS)
@pytest.mark.parametrize(("name", "floating"), MODELS)
def test_cluster_coriolis_equals_dense_projection(name, floating, connection):
    model, flow = _model(name, floating), _flow(name, floating)
    conn = _connection(model, connection)
    C = coriolis_matrix(model, flow.q, flow.v, conn)  # public function: the cluster kernel
    assert C.shape == (N_STATES, model.nv, model.nv)
    assert rel_err(C, _dense_reference(model, flow, conn)) < 1e-7
    # the baseline (analytic Ġ) agrees to rounding
    assert rel_err(C, coriolis_matrix_dense(model, flow.q, flow.v, conn)) < 1e-12


@pytest.mark.parametrize("connection", NAMED_BODY_CONNECTIONS)
@pytest.mark.parametrize(("name", "floating"), MODELS)
def test_skew_symmetry_and_correct_dynamics_follow_the_connection(name, floating, connection):
    """Props. V.1–V.2: Ḣ̄ − 2C̄ skew for metric-compatible body connections, C̄v the bias for
    those with correct dynamics (Ḣ̄ by central differences of the CRBA along the flow)."""
    compatible, correct = PROPERTIES[connection]
    model, flow = _model(name, floating), _flow(name, floating)
    zero = np.zeros(model.nv)
    C = coriolis_matrix(model, flow.q, flow.v, connection)
    bias = rnea(model, flow.q, flow.v, zero) - gravity_forces(model, flow.q)
    for k in range(N_STATES):
        S = flow.H_dot[k] - 2 * C[k]
        scale = max(1.0, float(np.abs(C[k]).max()))
        skew = float(np.abs(S + S.T).max()) < 1e-6 * scale
        right = float(np.abs(C[k] @ flow.v[k] - bias[k]).max()) < 1e-10 * scale
        if floating:  # spatial motion: the property holds iff the connection has it
            assert (skew, right) == (compatible, correct)
        else:  # planar motion of 1-2 speeds may not tell the connections apart
            assert skew or not compatible
            assert right or not correct


@pytest.mark.parametrize(("name", "floating"), MODELS)
def test_levi_civita_coriolis_matches_pinocchio_projection(name, floating):
    """C̄★v = Gᵀ[nle_s(q, Gv) − nle_s(q, 0) + H_s Ġ v] with Pinocchio's nle and H, Ġ by
    central differences (no geomech dynamics in the reference)."""
    model, flow = _model(name, floating), _flow(name, floating)
    ref = PinLoops(model)
    C = coriolis_matrix(model, flow.q, flow.v)
    for k in range(N_STATES):
        G = flow.G[k]
        H, nle = ref.mass_and_bias(flow.q[k], flow.qd[k])
        _, g_s = ref.mass_and_bias(flow.q[k], np.zeros(G.shape[0]))
        expected = G.T @ (nle - g_s + H @ flow.G_dot[k] @ flow.v[k])
        assert rel_err(C[k] @ flow.v[k], expected) < 1e-7


@pytest.mark.parametrize(("name", "floating"), MODELS)
def test_mass_matrix_derivative_matches_differences(name, floating):
    model, flow = _model(name, floating), _flow(name, floating)
    H_dot = mass_matrix_derivative(model, flow.q, flow.v)
    assert rel_err(H_dot, flow.H_dot) < 1e-7
    assert np.allclose(H_dot, np.swapaxes(H_dot, -1, -2), atol=1e-14)


# ----------------------------------------------------------------------------------------
# Alg. 2: Γ̄
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "floating"), MODELS)
def test_christoffel_symbols_contract_to_coriolis_and_inverse_dynamics(name, floating):
    model, flow = _model(name, floating), _flow(name, floating)
    Gamma = christoffel_symbols(model, flow.q)  # public function: the cluster kernel
    assert Gamma.shape == (N_STATES,) + (model.nv,) * 3
    C = np.einsum("bijk,bj->bik", Gamma, flow.v)
    assert rel_err(C, _dense_reference(model, flow, "levi-civita")) < 1e-7
    oracle = rnea(model, flow.q, flow.v, np.zeros(model.nv)) - gravity_forces(model, flow.q)
    assert rel_err(np.einsum("bijk,bj,bk->bi", Gamma, flow.v, flow.v), oracle) < 1e-10


def test_christoffel_of_a_two_speed_loop():
    """The five-bar's independent speeds are coordinate rates (ẏ of two joint angles): their
    fields commute, so Γ̄ is symmetric in (j, k) although Ġ couples them; with a floating base
    (body-twist speeds) the symmetry breaks by the structure constants."""
    model = _model("five_bar", False)
    Gamma = christoffel_symbols(model, _flow("five_bar", False).q)
    assert float(np.abs(Gamma).max()) > 1e-2
    assert float(np.abs(Gamma - np.swapaxes(Gamma, -1, -2)).max()) < 1e-12
    floating = _model("five_bar", True)
    Gamma = christoffel_symbols(floating, _flow("five_bar", True).q)
    assert float(np.abs(Gamma - np.swapaxes(Gamma, -1, -2)).max()) > 1e-3


@pytest.mark.parametrize("floating", [False, True])
def test_user_joints_with_moving_axes(floating):
    """A five-bar carrying user joints whose axes move (Φ̊ ≠ 0: a twisted slider, a universal
    joint in coordinates), in clusters of their own: Alg. 1 against the dense projection with
    Ġ by differences, Alg. 2 against C̄★ and the inverse-dynamics oracle."""
    model, flow = _model("five_bar_user", floating), _flow("five_bar_user", floating)
    for connection in ("levi-civita", "cartan-minus"):
        C = coriolis_matrix(model, flow.q, flow.v, connection)
        assert rel_err(C, _dense_reference(model, flow, connection)) < 1e-7
    Gamma = christoffel_symbols(model, flow.q)
    assert (
        rel_err(
            np.einsum("bijk,bj->bik", Gamma, flow.v), _dense_reference(model, flow, "levi-civita")
        )
        < 1e-7
    )
    # the projected RNEA (from the spanning tree's RNEA at the spanning speeds Gv)
    zero = np.zeros(model.nv)
    oracle = rnea(model, flow.q, flow.v, zero, method="projection") - rnea(
        model, flow.q, zero, zero, method="projection"
    )
    assert rel_err(np.einsum("bijk,bj,bk->bi", Gamma, flow.v, flow.v), oracle) < 1e-10


@pytest.mark.parametrize("floating", [False, True])
def test_cluster_dynamics_with_moving_axes(floating):
    """C-RNEA and C-ABA take the rates Φ̊ of user joints at the spanning speeds Gv: on the
    five-bar with user joints they agree with the projection (the spanning tree's RNEA/CRBA
    with G) and the Lagrange (KKT) methods to 1e-9, batched and per state."""
    model, flow = _model("five_bar_user", floating), _flow("five_bar_user", floating)
    rng = np.random.default_rng(7)
    a = rng.standard_normal(flow.v.shape)
    tau_p = rnea(model, flow.q, flow.v, a, method="projection")
    tau_c = rnea(model, flow.q, flow.v, a, method="cluster")
    assert rel_err(tau_c, tau_p) < 1e-9
    for b in range(len(flow.q)):  # one state at a time (a shared G row is not assumed)
        assert rel_err(rnea(model, flow.q[b], flow.v[b], a[b]), tau_p[b]) < 1e-9
    tau = rng.standard_normal(flow.v.shape)
    a_p = aba(model, flow.q, flow.v, tau, method="projection")
    assert rel_err(aba(model, flow.q, flow.v, tau, method="lagrange"), a_p) < 1e-9
    assert rel_err(aba(model, flow.q, flow.v, tau, method="cluster"), a_p) < 1e-9
    assert rel_err(aba(model, flow.q, flow.v, tau_p), a) < 1e-9  # rnea(aba(tau)) = tau


# ----------------------------------------------------------------------------------------
# Slotine–Li, its regressor, C̄ᵀw
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("connection", ["levi-civita", "cartan-plus", "user"])
@pytest.mark.parametrize(("name", "floating"), MODELS)
def test_slotine_li_regressor_and_transpose_product(name, floating, connection):
    model = _model(name, floating)
    conn = _connection(model, connection)
    rng = np.random.default_rng(8)
    flow = _flow(name, floating)
    q, v = flow.q, flow.v
    v_r, a_r, w = rng.normal(size=(3, N_STATES, model.nv))
    tau = slotine_li_torques(model, q, v, v_r, a_r, conn)
    C = coriolis_matrix(model, q, v, conn)
    for k in range(N_STATES):
        expected = crba(model, q[k]) @ a_r[k] + C[k] @ v_r[k] + gravity_forces(model, q[k])
        assert rel_err(tau[k], expected) < 1e-10
    assert (
        rel_err(coriolis_transpose_product(model, q, v, w, conn), np.einsum("bik,bi->bk", C, w))
        < 1e-10
    )
    if connection != "user":  # the regressor needs C(I, v) linear in I, which it checks
        Y = slotine_li_regressor(model, q, v, v_r, a_r, conn)
        assert Y.shape == (N_STATES, model.nv, 10 * model.n_bodies)
        assert rel_err(Y @ dynamic_parameters(model.inertias).reshape(-1), tau) < 1e-10


# ----------------------------------------------------------------------------------------
# batches, trees, validators
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "floating"), [("four_bar", False), ("belt_leg", True), ("five_bar", False)]
)
def test_batched_equals_looped(name, floating):
    model = _model(name, floating)
    q, v = _states(model, 9, 4)
    q = q.reshape(2, 2, model.nq)
    v = v.reshape(2, 2, model.nv)
    C = closed_coriolis_matrix(model, q, v, "cartan-minus")
    C_shared_v = closed_coriolis_matrix(model, q, v[0, 0])
    Gamma = closed_christoffel_symbols(model, q)
    H_dot = closed_mass_matrix_derivative(model, q, v)
    for idx in np.ndindex(2, 2):
        assert np.array_equal(C[idx], closed_coriolis_matrix(model, q[idx], v[idx], "cartan-minus"))
        assert np.array_equal(C_shared_v[idx], closed_coriolis_matrix(model, q[idx], v[0, 0]))
        assert np.array_equal(Gamma[idx], closed_christoffel_symbols(model, q[idx]))
        assert np.array_equal(H_dot[idx], closed_mass_matrix_derivative(model, q[idx], v[idx]))


def test_trees_keep_the_tree_algorithms():
    model = robots.double_pendulum()
    q, v = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    assert np.allclose(coriolis_matrix(model, q, v), coriolis_matrix_dense(model, q, v))
    with pytest.raises(ModelError, match="Expected a closed model"):
        closed_coriolis_matrix(model, q, v)


CLOSED_FUNCTIONS = [
    lambda m, q, v: closed_coriolis_matrix(m, q, v),
    lambda m, q, v: closed_coriolis_matrix_dense(m, q, v),
    lambda m, q, v: closed_christoffel_symbols(m, q),
    lambda m, q, v: closed_mass_matrix_derivative(m, q, v),
    lambda m, q, v: closed_slotine_li_torques(m, q, v, v, v),
    lambda m, q, v: closed_slotine_li_regressor(m, q, v, v, v),
    lambda m, q, v: closed_coriolis_transpose_product(m, q, v, v),
]


@pytest.mark.parametrize("func", CLOSED_FUNCTIONS)
def test_closed_functions_reject_trees(func):
    model = robots.double_pendulum()
    with pytest.raises(ModelError, match="Expected a closed model"):
        func(model, np.zeros(2), np.zeros(2))


@pytest.mark.parametrize("name", ["four_bar", "geared_chain"])
def test_invalid_inputs_raise_named_errors(name):
    model = _model(name, False)
    q, v = model.neutral(), np.ones(model.nv)
    with pytest.raises(DimensionError, match="v"):
        coriolis_matrix(model, q, np.ones(model.nv + 1))
    with pytest.raises(DimensionError, match="q"):
        christoffel_symbols(model, q[:-1])
    with pytest.raises(DimensionError, match="broadcast"):
        coriolis_matrix(model, np.stack([q] * 3), np.ones((2, model.nv)))
    bad = q.copy()
    bad[-1] += 0.3  # off the constraint manifold
    with pytest.raises(NotOnManifoldError, match="constraints"):
        coriolis_matrix(model, bad, v)
    with pytest.raises(NotOnManifoldError, match="constraints"):
        christoffel_symbols(model, bad)
    with pytest.raises(NonFiniteError):
        coriolis_matrix(model, q, np.full(model.nv, np.nan))
    with pytest.raises(ConnectionSpecError, match="no-such-connection"):
        coriolis_matrix(model, q, v, "no-such-connection")
    with pytest.raises(ConnectionSpecError, match="body names"):
        coriolis_matrix(model, q, v, {"not_a_body": "levi-civita"})
