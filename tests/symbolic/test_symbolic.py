"""geomech.symbolic: symbolic H, C, Γ, g, T against the numeric kernels and a hand derivation.

References used (independent of geomech.symbolic):
- the numeric kernels (CRBA, seed 000 Alg. 1 for every body connection, Alg. 2, RNEA with
  zero speeds, the kinetic energy) at seeded random states, to 1e-10;
- the double pendulum's Lagrangian written here from scratch (positions of the centres of
  mass, T = ½ Σ (m |ṗ|² + ω·J ω)), its mass matrix and Lagrange's equations, exactly;
- seed 000 Prop. IV.1 (metric compatible ⇔ Ḣ − 2C skew), Prop. IV.2 (Riemannian geodesics
  ⇔ C v = C★ v), Cor. IV.1 (unique for n ≤ 2), Thm. V.1 (the induced Levi-Civita connection
  is the Levi-Civita connection of H), checked symbolically.
"""

import runpy
import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

sp = pytest.importorskip("sympy")

import geomech as gm  # noqa: E402
from geomech.errors import ConnectionSpecError, ModelError  # noqa: E402
from geomech.geometry import LeviCivitaConnection  # noqa: E402
from geomech.geometry.examples import rigid_body_se3  # noqa: E402
from geomech.lie import SO3  # noqa: E402
from geomech.multibody import MultibodyModel, robots  # noqa: E402
from geomech.multibody.algorithms.kinematics import body_jacobians, forward_kinematics  # noqa: E402
from geomech.multibody.connections.body import (  # noqa: E402
    NAMED_BODY_CONNECTIONS,
    AffineConnectionBody,
    BodyConnection,
)
from geomech.multibody.io.robots import random_inertia  # noqa: E402
from geomech.multibody.model.joints import Fixed, Helical, Prismatic, Revolute, Spherical  # noqa: E402
from geomech.spatial import crf as crf_numeric  # noqa: E402
from geomech.spatial import crm as crm_numeric  # noqa: E402
from geomech.symbolic import MAX_DOF, SymbolicModel  # noqa: E402
from geomech.symbolic._spatial import crbar, crf, crm  # noqa: E402

TOL = 1e-10
#: seed 000 Table (body_connections): metric compatible, Riemannian geodesics
PROPERTIES = {
    "levi-civita": (True, True),
    "cartan-minus": (True, False),
    "cartan-zero": (False, False),
    "cartan-plus": (False, False),
    "velocity-cross": (True, True),
    "boltzmann-hamel": (True, True),
}


# ----------------------------------------------------------------------------------------
# models
# ----------------------------------------------------------------------------------------
def _pose(xyz=(0.0, 0.0, 0.0), R=None):
    T = np.eye(4)
    T[:3, 3] = xyz
    if R is not None:
        T[:3, :3] = R
    return T


def rrp_arm():
    """A 3-DoF arm: revolute (z), revolute (y, offset), prismatic (x), random inertias."""
    inertias = random_inertia(np.random.default_rng(3), 3)
    G = nx.DiGraph(name="rrp_arm")
    G.add_node("base")
    for name, inertia in zip(["turret", "boom", "slider"], inertias, strict=True):
        G.add_node(name, inertia=inertia)
    G.add_edge("base", "turret", joint=Revolute([0, 0, 1]), placement=_pose([0, 0, 0.3]))
    G.add_edge("turret", "boom", joint=Revolute([0, 1, 0]), placement=_pose([0, 0.1, 0.2]))
    G.add_edge("boom", "slider", joint=Prismatic([1, 0, 0]), placement=_pose([0.25, 0, 0]))
    return MultibodyModel(G)


def random_tree(seed):
    """Three bodies on random joints (revolute, prismatic, helical, fixed), axes and placements."""
    rng = np.random.default_rng(seed)
    parent = [-1, 0, int(rng.integers(0, 2))]
    kinds = rng.permutation(["revolute", "prismatic", "helical", "fixed"])[:3]

    def joint(kind):
        axis = rng.normal(size=3)
        return {
            "revolute": lambda: Revolute(axis),
            "prismatic": lambda: Prismatic(axis),
            "helical": lambda: Helical(axis, pitch=rng.uniform(-0.3, 0.3)),
            "fixed": Fixed,
        }[kind]()

    joints = [joint(k) for k in kinds]
    placements = [_pose(rng.uniform(-0.5, 0.5, 3), SO3.random(rng)) for _ in range(3)]
    return MultibodyModel.from_bodies(parent, joints, random_inertia(rng, 3), placements)


MODELS = {
    "double_pendulum": robots.double_pendulum,
    "double_pendulum_spheres": lambda: robots.double_pendulum(1.3, 0.7, 1.1, 0.9, radius=0.1),
    "scara": robots.scara,
    "rrp_arm": rrp_arm,
}
_SYMBOLIC: dict = {}


def symbolic(name):
    """One SymbolicModel per model name (its results are cached inside)."""
    if name not in _SYMBOLIC:
        model = MODELS[name]() if name in MODELS else random_tree(int(name.split("-")[1]))
        _SYMBOLIC[name] = SymbolicModel(model)
    return _SYMBOLIC[name]


def evaluate(sm, expr, q, v=None):
    """A symbolic result at a state, by lambdify (float64)."""
    v = np.zeros(sm.n) if v is None else v
    expr = expr.tolist() if hasattr(expr, "tolist") else expr
    f = sp.lambdify([list(sm.q), list(sm.v)], expr, "numpy")
    return np.array(f(q, v), dtype=float)


def states(model, rng, k=4):
    for _ in range(k):
        yield model.random_configuration(rng), rng.uniform(-3.0, 3.0, model.nv)


# ----------------------------------------------------------------------------------------
# against the numeric kernels (the acceptance criterion)
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(MODELS))
def test_mass_matrix_christoffel_gravity_energy_equal_the_kernels(name, rng):
    sm = symbolic(name)
    model = sm.model
    H, Gamma, g = sm.mass_matrix(), sm.christoffel_symbols(), sm.gravity_forces()
    T = sm.kinetic_energy()
    for q, v in states(model, rng):
        np.testing.assert_allclose(evaluate(sm, H, q), gm.crba(model, q), rtol=0, atol=TOL)
        np.testing.assert_allclose(
            evaluate(sm, Gamma, q), gm.christoffel_symbols(model, q), rtol=0, atol=TOL
        )
        np.testing.assert_allclose(
            evaluate(sm, g, q)[:, 0], gm.gravity_forces(model, q), rtol=0, atol=TOL
        )
        assert abs(evaluate(sm, T, q, v) - gm.kinetic_energy(model, q, v)) < TOL


@pytest.mark.parametrize("name", list(MODELS))
def test_coriolis_matrix_of_every_named_connection_equals_the_kernel(name, rng):
    sm = symbolic(name)
    model = sm.model
    for connection in NAMED_BODY_CONNECTIONS:
        C = sm.coriolis_matrix(connection)
        Gamma = sm.christoffel_symbols(connection)
        for q, v in states(model, rng, k=3):
            want = gm.coriolis_matrix(model, q, v, connection=connection)
            np.testing.assert_allclose(evaluate(sm, C, q, v), want, rtol=0, atol=TOL)
            # Γ_ijk = C(q, e_j)_ik for every connection (C is linear in v)
            want = np.stack(
                [gm.coriolis_matrix(model, q, e, connection=connection) for e in np.eye(sm.n)],
                axis=1,
            )
            np.testing.assert_allclose(evaluate(sm, Gamma, q), want, rtol=0, atol=TOL)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_trees_of_every_joint_type_equal_the_kernels(seed, rng):
    sm = symbolic(f"tree-{seed}")
    model = sm.model
    connection = NAMED_BODY_CONNECTIONS[seed % len(NAMED_BODY_CONNECTIONS) + 1]
    H, Gamma, g = sm.mass_matrix(), sm.christoffel_symbols(), sm.gravity_forces()
    C = sm.coriolis_matrix(connection)
    for q, v in states(model, rng, k=3):
        np.testing.assert_allclose(evaluate(sm, H, q), gm.crba(model, q), rtol=0, atol=TOL)
        np.testing.assert_allclose(
            evaluate(sm, Gamma, q), gm.christoffel_symbols(model, q), rtol=0, atol=TOL
        )
        np.testing.assert_allclose(
            evaluate(sm, g, q)[:, 0], gm.gravity_forces(model, q), rtol=0, atol=TOL
        )
        np.testing.assert_allclose(
            evaluate(sm, C, q, v), gm.coriolis_matrix(model, q, v, connection), rtol=0, atol=TOL
        )
        assert abs(evaluate(sm, sm.potential_energy(), q) - model.potential_energy(q)) < TOL


def test_a_model_without_degrees_of_freedom():
    model = MultibodyModel.from_bodies([-1], [Fixed()], random_inertia(5, 1), [_pose([0, 0, 1])])
    sm = SymbolicModel(model)
    assert sm.mass_matrix().shape == (0, 0) and sm.coriolis_matrix("cartan-plus").shape == (0, 0)
    assert sm.gravity_forces().shape == (0, 1) and sm.christoffel_symbols().shape == (0, 0, 0)
    assert sm.kinetic_energy() == 0
    assert abs(float(sm.potential_energy()) - model.potential_energy(np.zeros(0))) < TOL


def test_random_trees_cover_every_joint_type():
    kinds = {type(j).__name__ for s in range(3) for j in symbolic(f"tree-{s}").model.joints}
    assert kinds == {"Revolute", "Prismatic", "Helical", "Fixed"}


@pytest.mark.parametrize("name", ["scara", "tree-1"])
def test_body_poses_and_jacobians_equal_the_kernels(name, rng):
    sm = symbolic(name)
    model = sm.model
    poses, jacobians = sm.body_poses(), sm.body_jacobians()
    for q, _ in states(model, rng, k=2):
        T, J = forward_kinematics(model, q), body_jacobians(model, q)
        for i, ((R, p), Ji) in enumerate(zip(poses, jacobians, strict=True)):
            np.testing.assert_allclose(evaluate(sm, R, q), T[i, :3, :3], rtol=0, atol=TOL)
            np.testing.assert_allclose(evaluate(sm, p, q)[:, 0], T[i, :3, 3], rtol=0, atol=TOL)
            np.testing.assert_allclose(evaluate(sm, Ji, q), J[i], rtol=0, atol=TOL)


def test_per_body_connections_and_an_affine_connection_body(rng):
    sm = symbolic("scara")
    model = sm.model
    se3 = AffineConnectionBody(LeviCivitaConnection(rigid_body_se3(model.inertias[1])))
    spec = {"arm1": "cartan-plus", "arm2": se3, "tool": "momentum-cross"}
    C = sm.coriolis_matrix(spec)
    for q, v in states(model, rng, k=3):
        want = gm.coriolis_matrix(model, q, v, connection=spec)
        np.testing.assert_allclose(evaluate(sm, C, q, v), want, rtol=0, atol=TOL)


# ----------------------------------------------------------------------------------------
# a hand-written Lagrangian derivation of the double pendulum
# ----------------------------------------------------------------------------------------
def lagrangian_double_pendulum():
    """T, V and the states of the planar double pendulum, derived here from scratch."""
    m1, m2, l1, l2, J1, J2, g0 = sp.symbols("m1 m2 l1 l2 J1 J2 g0", positive=True)
    q1, q2, u1, u2 = sp.symbols("q1 q2 v1 v2", real=True)
    # rotations about y take the hanging direction -z to (-sin q, 0, -cos q)
    p1 = sp.Matrix([-l1 * sp.sin(q1), 0, -l1 * sp.cos(q1)])
    p2 = p1 + sp.Matrix([-l2 * sp.sin(q1 + q2), 0, -l2 * sp.cos(q1 + q2)])
    q, u = sp.Matrix([q1, q2]), sp.Matrix([u1, u2])
    p1_dot, p2_dot = p1.jacobian(q) * u, p2.jacobian(q) * u
    w1, w2 = u1, u1 + u2  # angular speeds about y; J_k the spheres' moments about their centres
    T = (m1 * p1_dot.dot(p1_dot) + m2 * p2_dot.dot(p2_dot) + J1 * w1**2 + J2 * w2**2) / 2
    V = g0 * (m1 * p1[2] + m2 * p2[2])
    params = (m1, m2, l1, l2, J1, J2, g0)
    return T, V, q, u, params


def test_mass_matrix_equals_a_hand_written_lagrangian():
    T, _, q, u, (m1, m2, l1, l2, J1, J2, g0) = lagrangian_double_pendulum()
    H_hand = sp.hessian(T, u)
    # the general formula, in the robots.double_pendulum docstring's form
    c2 = sp.cos(q[1])
    H_doc = sp.Matrix(
        [
            [(m1 + m2) * l1**2 + m2 * l2**2 + 2 * m2 * l1 * l2 * c2 + J1 + J2,
             m2 * l2**2 + m2 * l1 * l2 * c2 + J2],
            [m2 * l2**2 + m2 * l1 * l2 * c2 + J2, m2 * l2**2 + J2],
        ]
    )  # fmt: skip
    assert sp.simplify(H_hand - H_doc) == sp.zeros(2)
    R = sp.Rational
    values = {m1: R(13, 10), m2: R(7, 10), l1: R(11, 10), l2: R(9, 10), g0: R(981, 100)}
    values[J1], values[J2] = R(2, 5) * values[m1] / 100, R(2, 5) * values[m2] / 100  # r = 1/10
    sm = symbolic("double_pendulum_spheres")
    H_hand = H_hand.subs(values).subs(dict(zip(q, sm.q, strict=True)))
    assert sp.simplify(sm.mass_matrix() - H_hand) == sp.zeros(2)


@pytest.mark.parametrize("connection", ["levi-civita", "velocity-cross", "boltzmann-hamel"])
def test_lagranges_equations_equal_h_c_g(connection):
    """d/dt ∂L/∂q̇ − ∂L/∂q = H q̈ + C q̇ + g for every connection with correct dynamics."""
    T, V, q, u, (m1, m2, l1, l2, J1, J2, g0) = lagrangian_double_pendulum()
    sm = symbolic("double_pendulum")
    values = {m1: 1, m2: 1, l1: 1, l2: 1, J1: 0, J2: 0, g0: sp.Rational(981, 100)}
    a = sp.Matrix(sp.symbols("a1 a2", real=True))
    L = (T - V).subs(values)
    dL_du = sp.Matrix([L]).jacobian(u).T
    ddt = dL_du.jacobian(u) * a + dL_du.jacobian(q) * u  # d/dt along (q̇, q̈) = (u, a)
    lagrange = ddt - sp.Matrix([L]).jacobian(q).T
    rename = dict(zip(list(q) + list(u), list(sm.q) + list(sm.v), strict=True))
    lagrange = lagrange.subs(rename)
    ours = sm.mass_matrix() * a + sm.coriolis_matrix(connection) * sm.v + sm.gravity_forces()
    assert sp.simplify(sp.expand(lagrange - ours)) == sp.zeros(2, 1)


def test_double_pendulum_formulas_are_the_textbook_ones():
    sm = symbolic("double_pendulum")
    q1, q2 = sm.q
    v1, v2 = sm.v
    assert sm.mass_matrix() == sp.Matrix(
        [[3 + 2 * sp.cos(q2), 1 + sp.cos(q2)], [1 + sp.cos(q2), 1]]
    )
    C = sp.Matrix([[-v2 * sp.sin(q2), -(v1 + v2) * sp.sin(q2)], [v1 * sp.sin(q2), 0]])
    assert sp.expand(sm.coriolis_matrix() - C) == sp.zeros(2)
    assert sm.christoffel_symbols()[0, 1, 1] == -sp.sin(q2)


# ----------------------------------------------------------------------------------------
# the properties of the connections, symbolically (seed 000 §IV, §V)
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["scara", "rrp_arm"])
def test_skew_symmetry_and_correct_dynamics_of_each_connection(name):
    sm = symbolic(name)
    H_dot = sm.mass_matrix_derivative()
    C_star = sm.coriolis_matrix()
    for connection, (compatible, geodesics) in PROPERTIES.items():
        C = sm.coriolis_matrix(connection)
        N = H_dot - 2 * C
        assert (sp.expand(N + N.T) == sp.zeros(sm.n)) is compatible, connection  # Prop. IV.1
        same = sp.expand((C - C_star) * sm.v) == sp.zeros(sm.n, 1)
        assert same is geodesics, connection  # Prop. IV.2


def test_mass_matrix_derivative_is_the_time_derivative(rng):
    sm = symbolic("rrp_arm")
    H_dot = sm.mass_matrix_derivative()
    q, v = next(states(sm.model, rng))
    h = 1e-6
    fd = (gm.crba(sm.model, q + h * v) - gm.crba(sm.model, q - h * v)) / (2 * h)
    np.testing.assert_allclose(evaluate(sm, H_dot, q, v), fd, rtol=0, atol=1e-8)


def test_two_degrees_of_freedom_have_one_admissible_factorization():
    """Cor. IV.1: for n = 2 the skew, correct factorization is unique."""
    sm = symbolic("double_pendulum_spheres")
    C = sm.coriolis_matrix()
    for connection in ("velocity-cross", "boltzmann-hamel"):
        assert sp.expand(sm.coriolis_matrix(connection) - C) == sp.zeros(2)
    assert sp.expand(symbolic("scara").coriolis_matrix("velocity-cross")) != sp.expand(
        symbolic("scara").coriolis_matrix()
    )


def levi_civita_formula(v, I):
    """The body Levi-Civita matrix (seed 000 eq. 18) as a user formula on object arrays."""
    return (I @ np.array(crm(v)) + np.array(crf(v)) @ I + np.array(crbar(I @ v))) / 2


def test_induced_levi_civita_is_the_levi_civita_of_h():
    """Thm. V.1: the body route with a user Levi-Civita formula equals eq. (4) exactly."""
    for name in ("scara", "rrp_arm"):
        sm = symbolic(name)
        assert sm.christoffel_symbols(levi_civita_formula) == sm.christoffel_symbols()


#: (v×) = Σ_a v^a CRM[a], as a constant table (numeric)
CRM = np.stack([crm_numeric(e) for e in np.eye(6)])


class ScaledCartan(BodyConnection):
    """A user strategy written with numpy only: C = ¼ I (v×)."""

    name = "quarter-cartan"

    def _coriolis(self, inertia, v):
        return inertia @ np.tensordot(v, CRM, axes=(-1, 0)) / 4


def test_user_connections_expressible_symbolically(rng):
    sm = symbolic("rrp_arm")
    model = sm.model
    for spec in (ScaledCartan(), levi_civita_formula):
        C = sm.coriolis_matrix(spec)
        for q, v in states(model, rng, k=2):
            want = gm.coriolis_matrix(model, q, v, connection=spec)
            np.testing.assert_allclose(evaluate(sm, C, q, v), want, rtol=0, atol=TOL)


# ----------------------------------------------------------------------------------------
# refusals and errors
# ----------------------------------------------------------------------------------------
def test_refuses_large_floating_spherical_and_closed_models():
    with pytest.raises(ModelError, match=f"at most {MAX_DOF} speeds"):
        SymbolicModel(robots.serial_chain(MAX_DOF + 1))
    with pytest.raises(ModelError, match="FreeFlyer"):
        SymbolicModel(robots.serial_chain(2, floating_base=True))
    ball = MultibodyModel.from_bodies([-1], [Spherical()], random_inertia(0, 1))
    with pytest.raises(ModelError, match="Spherical"):
        SymbolicModel(ball)
    from geomech.multibody.closed.closures import four_bar

    with pytest.raises(ModelError, match="no kinematic loops"):
        SymbolicModel(four_bar())
    with pytest.raises(ModelError, match="MultibodyModel"):
        SymbolicModel("double_pendulum")


def test_refuses_connections_not_expressible_symbolically():
    sm = symbolic("double_pendulum")
    with pytest.raises(ConnectionSpecError, match="evaluates on sympy"):
        sm.coriolis_matrix(lambda v, I: crf_numeric(v) @ I)  # validates to float arrays
    with pytest.raises(ConnectionSpecError, match="linear in the twist"):
        sm.coriolis_matrix(lambda v, I: np.outer(v, v))
    with pytest.raises(ConnectionSpecError, match="shape"):
        sm.coriolis_matrix(lambda v, I: v)
    with pytest.raises(ConnectionSpecError, match="body names"):
        sm.coriolis_matrix({"forearm": "cartan-plus"})
    with pytest.raises(ConnectionSpecError, match="christoffel"):
        sm.coriolis_matrix("christoffel")


def test_latex_writes_rates_as_q_dot():
    sm = symbolic("double_pendulum")
    text = sm.latex(sm.coriolis_matrix())
    assert r"\dot{q}_{1}" in text and r"\sin{\left(q_{2} \right)}" in text
    assert "v_{1}" not in text and repr(sm) == "<SymbolicModel of 'double_pendulum': n = 2>"


def test_package_without_sympy_raises_a_named_error():
    code = (
        "import sys; sys.modules['sympy'] = None\n"
        "import geomech\n"
        "try:\n"
        "    import geomech.symbolic\n"
        "except geomech.errors.OptionalDependencyError as exc:\n"
        "    print('named:', exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "named:" in out.stdout and "geomech[symbolic]" in out.stdout


def test_tutorial_12_runs_and_shows_what_it_claims(monkeypatch, capsys):
    plt = pytest.importorskip("matplotlib.pyplot")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    plt.switch_backend("Agg")
    path = Path(__file__).resolve().parents[2] / "tutorials"
    try:
        ns = runpy.run_path(str(path / "12_equations_by_hand_and_by_machine.py"))
    finally:
        plt.close("all")
    out = capsys.readouterr().out
    assert "H, C, g by hand == by machine: True True True" in out
    assert "C(velocity-cross) == C(levi-civita): True" in out
    for line in out.splitlines():
        if "max |symbolic - numeric|" in line:
            assert float(line.split("=")[-1]) < TOL
    table = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    for connection, flags in PROPERTIES.items():
        assert table[connection] == [str(flag) for flag in flags]
    assert max(row[-1] for row in ns["rows"]) < TOL
