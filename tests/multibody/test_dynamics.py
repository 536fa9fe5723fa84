"""Kinematics and dynamics against independent references (no Pinocchio here).

References: hand-derived literal values (single pendulum, torque-free and free-falling rigid
bodies), a sympy Euler–Lagrange derivation (double pendulum with rotational inertia), the
identities of seed 001 (H = Σ Jᵀ I J, ABA∘RNEA = id, power balance vᵀc = ½ vᵀ Ḣ v,
g = ∂V along the speeds), central finite differences along ``model.integrate`` (Ȧ, body
twists from forward kinematics, Ḣ), a user joint with nonzero Φ̊ (universal joint) against
the equivalent Rx–Ry chain through a massless body, and the loop over single calls for batching.
"""

import networkx as nx
import numpy as np
import pytest
import sympy as sp

from geomech.errors import DimensionError, GeomechError, NonFiniteError, SingularityError
from geomech.lie import SO3
from geomech.multibody import FreeFlyer, Joint, MultibodyModel, Revolute, robots
from geomech.multibody.algorithms.dynamics import (
    aba,
    crba,
    gravity_forces,
    kinetic_energy,
    rnea,
)
from geomech.multibody.algorithms.kinematics import (
    body_jacobians,
    body_velocities,
    forward_kinematics,
    joint_transforms,
    velocity_map,
)
from geomech.spatial import plucker_from_pose, spatial_inertia

G0 = 9.81


def rel_err(actual, expected):
    actual, expected = np.asarray(actual), np.asarray(expected)
    return float(np.max(np.abs(actual - expected)) / max(1.0, float(np.max(np.abs(expected)))))


# ---- models --------------------------------------------------------------------------------

#: (n bodies, seed, floating base) of the random trees used by the identity tests
TREES = [(1, 0, False), (3, 1, True), (8, 2, False), (20, 3, True), (60, 4, True)]
TREE_IDS = [f"tree{n}-{'float' if f else 'fixed'}" for n, _, f in TREES]


@pytest.fixture(params=TREES, ids=TREE_IDS)
def tree(request, mixed_tree):
    n, seed, floating = request.param
    return mixed_tree(n, np.random.default_rng([7, n, seed]), floating_base=floating)


@pytest.fixture(params=["humanoid", "quadruped", "scara", "jvrc1", "stretch"])
def builtin(request):
    return robots.load(request.param)


def single_pendulum(m=2.0, l=0.5, Iyy=0.1):
    """Mass m, centre of mass l below a revolute joint about y, inertia Iyy about the CoM."""
    G = nx.DiGraph()
    G.add_node("link", inertia=spatial_inertia(m, [0.0, 0.0, -l], np.diag([0.3, Iyy, 0.2])))
    G.add_edge("world", "link", joint=Revolute([0.0, 1.0, 0.0]), name="hinge")
    return MultibodyModel(G)


def double_pendulum(m1, m2, l1, c1, c2, I1, I2):
    """Links hanging along -z, joints about y, CoMs c1 (c2) below joint 1 (2), joint 2 at l1."""
    G = nx.DiGraph()
    G.add_node("l1", inertia=spatial_inertia(m1, [0.0, 0.0, -c1], np.diag([0.5, I1, 0.4])))
    G.add_node("l2", inertia=spatial_inertia(m2, [0.0, 0.0, -c2], np.diag([0.3, I2, 0.2])))
    T = np.eye(4)
    T[2, 3] = -l1
    G.add_edge("world", "l1", joint=Revolute([0.0, 1.0, 0.0]))
    G.add_edge("l1", "l2", joint=Revolute([0.0, 1.0, 0.0]), placement=T)
    return MultibodyModel(G)


def free_body(inertia):
    G = nx.DiGraph()
    G.add_node("body", inertia=inertia)
    G.add_edge("world", "body", joint=FreeFlyer(name="root_joint"))
    return MultibodyModel(G)


# ---- literal, hand-derived values ------------------------------------------------------------


def test_single_pendulum_literal_values():
    # H = m l² + I_yy = 2·0.25 + 0.1;  g(q) = m g l sin q (V = -m g l cos q)
    model = single_pendulum()
    q = np.array([np.pi / 6])
    assert crba(model, q) == pytest.approx(np.array([[0.6]]), rel=1e-14)
    assert gravity_forces(model, q) == pytest.approx([2.0 * G0 * 0.5 * 0.5], rel=1e-14)
    assert rnea(model, q, [3.0], [1.5]) == pytest.approx([0.6 * 1.5 + 4.905], rel=1e-14)
    assert aba(model, q, [3.0], [1.0]) == pytest.approx([(1.0 - 4.905) / 0.6], rel=1e-14)
    assert kinetic_energy(model, q, [3.0]) == pytest.approx(0.5 * 0.6 * 9.0, rel=1e-14)
    # a pendulum bob at q = π/2 is horizontal: its CoM sits at x = -l, z = 0
    T = forward_kinematics(model, [np.pi / 2])[0]
    c = T[:3, :3] @ [0.0, 0.0, -0.5] + T[:3, 3]
    assert c == pytest.approx([-0.5, 0.0, 0.0], abs=1e-15)


def test_builtin_double_pendulum_literal_values():
    # unit masses and lengths: H(q2 = 0) = [[5, 2], [2, 1]]; horizontal: g = [3, 1] · 9.81
    model = robots.double_pendulum()
    assert crba(model, [0.3, 0.0]) == pytest.approx(np.array([[5.0, 2.0], [2.0, 1.0]]), rel=1e-14)
    tau = rnea(model, [np.pi / 2, 0.0], [0.0, 0.0], [0.0, 0.0])
    assert tau == pytest.approx([3 * G0, G0], rel=1e-14)


def test_double_pendulum_against_sympy_lagrangian(rng):
    """τ = d/dt ∂L/∂q̇ − ∂L/∂q with L from the CoM positions and rotational inertias."""
    par = dict(m1=1.3, m2=0.7, l1=0.9, c1=0.4, c2=0.6, I1=0.05, I2=0.03)
    q1, q2, dq1, dq2, ddq1, ddq2 = sp.symbols("q1 q2 dq1 dq2 ddq1 ddq2", real=True)
    t = sp.symbols("t")
    th1, th2 = sp.Function("th1")(t), sp.Function("th2")(t)
    # planar (x, z) positions: rotating (0, 0, -r) about +y by θ gives (-r sin θ, -r cos θ)
    x1, z1 = -par["c1"] * sp.sin(th1), -par["c1"] * sp.cos(th1)
    x2 = -par["l1"] * sp.sin(th1) - par["c2"] * sp.sin(th1 + th2)
    z2 = -par["l1"] * sp.cos(th1) - par["c2"] * sp.cos(th1 + th2)
    KE = (
        par["m1"] * (sp.diff(x1, t) ** 2 + sp.diff(z1, t) ** 2) / 2
        + par["m2"] * (sp.diff(x2, t) ** 2 + sp.diff(z2, t) ** 2) / 2
        + par["I1"] * sp.diff(th1, t) ** 2 / 2
        + par["I2"] * sp.diff(th1 + th2, t) ** 2 / 2
    )
    L = KE - G0 * (par["m1"] * z1 + par["m2"] * z2)
    subs = {
        sp.diff(th1, t, 2): ddq1, sp.diff(th2, t, 2): ddq2,
        sp.diff(th1, t): dq1, sp.diff(th2, t): dq2,
    }  # fmt: skip
    tau_sym = []
    for th in (th1, th2):
        expr = sp.diff(sp.diff(L, sp.diff(th, t)), t) - sp.diff(L, th)
        tau_sym.append(expr.subs(subs).subs({th1: q1, th2: q2}))
    tau_fn = sp.lambdify([q1, q2, dq1, dq2, ddq1, ddq2], tau_sym, "numpy")

    model = double_pendulum(**par)
    q = rng.uniform(-np.pi, np.pi, (10, 2))
    v, a = rng.normal(size=(10, 2)), rng.normal(size=(10, 2))
    tau = rnea(model, q, v, a)
    expected = np.array(tau_fn(*q.T, *v.T, *a.T)).T
    assert rel_err(tau, expected) < 1e-13
    assert rel_err(aba(model, q, v, expected), a) < 1e-12


def test_free_fall_and_euler_equations(rng):
    """A free body: ν̇ = [0; Rᵀg] at rest (any CoM), Euler's equations without gravity."""
    inertia = robots.random_inertia(rng)
    model = free_body(inertia)
    q = model.random_configuration(rng)
    R = SO3.exp(model.difference(model.neutral(), q)[:3])
    dv = aba(model, q, np.zeros(6), np.zeros(6))
    assert rel_err(dv, np.concatenate([np.zeros(3), R.T @ [0.0, 0.0, -G0]])) < 1e-12
    # CoM at the origin, no gravity: I ω̇ = (I ω) × ω, and v̇ = v × ω (zero world acceleration)
    Ic = inertia[:3, :3]
    model = free_body(spatial_inertia(1.7, np.zeros(3), Ic))
    w, u = rng.normal(size=3), rng.normal(size=3)
    dv = aba(model, q, np.concatenate([w, u]), np.zeros(6), gravity=np.zeros(3))
    expected = np.concatenate([np.linalg.solve(Ic, np.cross(Ic @ w, w)), np.cross(u, w)])
    assert rel_err(dv, expected) < 1e-12


# ---- identities on random trees and built-in models -------------------------------------------


def _identities(model, rng, n_states=4):
    q = model.random_configuration(rng, size=n_states)
    v, a = rng.normal(size=(2, n_states, model.nv))
    tau = rnea(model, q, v, a)
    H = crba(model, q)
    # ABA(RNEA(a)) = a and RNEA(ABA(τ)) = τ
    assert rel_err(aba(model, q, v, tau), a) < 1e-10
    tau2 = rng.normal(size=(n_states, model.nv)) * 10
    assert rel_err(rnea(model, q, v, aba(model, q, v, tau2)), tau2) < 1e-10
    # H symmetric positive definite, and RNEA is affine in a with slope H
    assert np.array_equal(H, np.swapaxes(H, -1, -2))
    assert np.all(np.linalg.eigvalsh(H)[..., 0] > 0)
    c = rnea(model, q, v, np.zeros(model.nv))
    assert rel_err(tau, np.einsum("...ij,...j->...i", H, a) + c) < 1e-12
    # gravity = RNEA at rest
    assert rel_err(gravity_forces(model, q), rnea(model, q, 0 * v, 0 * a)) < 1e-13
    # kinetic energy = ½ vᵀ H v
    assert rel_err(kinetic_energy(model, q, v), 0.5 * np.einsum("...i,...ij,...j", v, H, v)) < 1e-12
    # H = Aᵀ blockdiag(I_i) A (seed 001 eq. 29)
    J = body_jacobians(model, q)
    H_J = np.einsum("...nki,nkl,...nlj->...ij", J, model.inertias, J)
    assert rel_err(H, H_J) < 1e-12
    A = velocity_map(model, q)
    assert rel_err(A, J.reshape(n_states, -1, model.nv)) == 0.0
    assert rel_err(body_velocities(model, q, v), np.einsum("...nki,...i->...nk", J, v)) < 1e-13
    # external wrenches enter as -Σ J_iᵀ f_i
    f_ext = rng.normal(size=(n_states, model.n_bodies, 6))
    tau_f = rnea(model, q, v, a, f_ext=f_ext)
    assert rel_err(tau_f, tau - np.einsum("...nki,...nk->...i", J, f_ext)) < 1e-12
    assert rel_err(aba(model, q, v, tau_f, f_ext=f_ext), a) < 1e-10


def test_identities_random_trees(tree, rng):
    _identities(tree, rng)


def test_identities_builtin_models(builtin, rng):
    _identities(builtin, rng, n_states=2)


def _fd(fun, model, q, v, h=1e-6):
    """Central difference of fun along the curve t -> integrate(q, t v)."""
    return (fun(model.integrate(q, v, h)) - fun(model.integrate(q, v, -h))) / (2 * h)


def test_velocity_map_rate_matches_finite_differences(tree, rng):
    q = tree.random_configuration(rng)
    v = rng.normal(size=tree.nv)
    A, A_dot = velocity_map(tree, q, v)
    A_fd = _fd(lambda x: velocity_map(tree, x), tree, q, v)
    assert rel_err(A_dot, A_fd) < 1e-7
    assert np.array_equal(velocity_map(tree, q), A)


def test_body_twists_match_finite_differences_of_poses(tree, rng):
    """v_i^∧ = T_i⁻¹ Ṫ_i (body twist), Ṫ_i by central differences along integrate."""
    q = tree.random_configuration(rng)
    v = rng.normal(size=tree.nv)
    T = forward_kinematics(tree, q)
    T_dot = _fd(lambda x: forward_kinematics(tree, x), tree, q, v)
    R, R_dot, p_dot = T[:, :3, :3], T_dot[:, :3, :3], T_dot[:, :3, 3]
    W = np.swapaxes(R, -1, -2) @ R_dot
    omega = np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]], -1)
    lin = np.einsum("nji,nj->ni", R, p_dot)
    assert rel_err(body_velocities(tree, q, v), np.concatenate([omega, lin], -1)) < 1e-7


def test_power_balance_and_gravity_are_derivatives(tree, rng):
    """vᵀ c(q, v) = ½ vᵀ Ḣ v (skew Ḣ − 2C) and g_k = ∂V along speed k (no coordinates needed)."""
    q = tree.random_configuration(rng)
    v = rng.normal(size=tree.nv)
    c = rnea(tree, q, v, np.zeros(tree.nv), gravity=np.zeros(3))
    H_dot = _fd(lambda x: crba(tree, x), tree, q, v)
    assert abs(v @ c - 0.5 * v @ H_dot @ v) < 1e-6 * max(1.0, abs(v @ c))

    masses = tree.inertias[:, 5, 5]
    h = np.stack([tree.inertias[:, 2, 4], tree.inertias[:, 0, 5], tree.inertias[:, 1, 3]], -1)

    def potential(x):  # V = -Σ m_i g·c_i with the CoMs c_i from forward kinematics
        T = forward_kinematics(tree, x)
        com = np.einsum("...nij,nj->...ni", T[..., :3, :3], h / masses[:, None]) + T[..., :3, 3]
        return -np.einsum("n,...ni,i->...", masses, com, tree.gravity)

    g_fd = np.array([_fd(potential, tree, q, e) for e in np.eye(tree.nv)])
    assert rel_err(gravity_forces(tree, q), g_fd) < 1e-7


def test_joint_transforms_are_consistent_with_forward_kinematics(tree, rng):
    q = tree.random_configuration(rng)
    v = rng.normal(size=tree.nv)
    X_up, Phi, Phi_ring = joint_transforms(tree, q, v)
    T = forward_kinematics(tree, q)
    for i, p in enumerate(tree.parent):
        T_p = np.eye(4) if p < 0 else T[p]
        assert rel_err(X_up[i], plucker_from_pose(np.linalg.inv(T_p) @ T[i])) < 1e-12
        assert np.array_equal(
            Phi[:, tree.v_slices[i]], tree.joints[i].motion_subspace(q[tree.q_slices[i]])
        )
    assert np.array_equal(Phi_ring, np.zeros((6, tree.nv)))
    assert joint_transforms(tree, q)[2] is None


def test_zero_mass_intermediate_link_is_fine(rng):
    """A massless link carrying a massive one: H stays SPD and ABA agrees with H⁻¹."""
    G = nx.DiGraph()
    G.add_node("massless", inertia=np.zeros((6, 6)))
    G.add_node("tip", inertia=robots.random_inertia(rng))
    G.add_edge("world", "massless", joint=Revolute([0, 0, 1]))
    G.add_edge("massless", "tip", joint=Revolute([1, 0, 0]), placement=np.diag([1, 1, 1, 1.0]))
    model = MultibodyModel(G)
    q, v, tau = rng.normal(size=(3, 2))
    expected = np.linalg.solve(crba(model, q), tau - rnea(model, q, v, np.zeros(2)))
    assert rel_err(aba(model, q, v, tau), expected) < 1e-12


# ---- a user joint with a nonzero Phi_ring -------------------------------------------------------


class Universal(Joint):
    """Universal joint R = Rx(alpha) Ry(beta) with coordinate rates as speeds (Phi depends on q).

    Child-frame relative angular velocity: Ry(beta)ᵀ e_x alpha' + e_y beta', so
    Phi = [[Ry(beta)ᵀ e_x, e_y]; 0] and Phi_ring = beta' [[d/dbeta Ry(beta)ᵀ e_x, 0]; 0].
    """

    kind = "universal"
    nq = nv = 2

    def __init__(self, name=None):
        super().__init__(name)
        self.manifold = None

    def _pose(self, q):
        T = np.zeros(q.shape[:-1] + (4, 4))
        T[..., :3, :3] = SO3.exp(q[..., :1] * [1.0, 0, 0]) @ SO3.exp(q[..., 1:] * [0, 1.0, 0])
        T[..., 3, 3] = 1.0
        return T

    def _Phi(self):  # unused: _motion_subspace is overridden
        raise NotImplementedError

    def _motion_subspace(self, q):
        b = q[..., 1]
        Phi = np.zeros(q.shape[:-1] + (6, 2))
        Phi[..., 0, 0], Phi[..., 2, 0] = np.cos(b), np.sin(b)
        Phi[..., 1, 1] = 1.0
        return Phi

    def _motion_subspace_rate(self, q, v):
        lead = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
        b, db = q[..., 1], v[..., 1]
        Phi_ring = np.zeros(lead + (6, 2))
        Phi_ring[..., 0, 0], Phi_ring[..., 2, 0] = -np.sin(b) * db, np.cos(b) * db
        return Phi_ring

    def _integrate(self, q, v):
        return q + v

    def _difference(self, q0, q1):
        return q1 - q0

    def _neutral(self):
        return np.zeros(2)

    def _random(self, rng, shape):
        return rng.uniform(-np.pi, np.pi, shape + (2,))


class _UniversalWithoutRate(Universal):
    """The universal joint with its Phi_ring hook dropped (a deliberately wrong model)."""

    def _motion_subspace_rate(self, q, v):
        return np.zeros(np.broadcast_shapes(q.shape[:-1], v.shape[:-1]) + (6, 2))


def _random_pose(rng):
    T = np.eye(4)
    T[:3, :3] = SO3.random(rng)
    T[:3, 3] = rng.uniform(-0.5, 0.5, 3)
    return T


def _universal_pair(rng):
    """The same arm with a Universal joint, and with Rx + Ry through a massless cross."""
    I1, I2 = robots.random_inertia(rng, 2)
    P1, P2 = _random_pose(rng), _random_pose(rng)
    G = nx.DiGraph()
    G.add_node("upper", inertia=I1)
    G.add_node("lower", inertia=I2)
    G.add_edge("world", "upper", joint=Revolute(rng.normal(size=3)), placement=P1)
    G.add_edge("upper", "lower", joint=Universal(), placement=P2)
    H = nx.DiGraph()
    H.add_node("upper", inertia=I1)
    H.add_node("cross", inertia=np.zeros((6, 6)))
    H.add_node("lower", inertia=I2)
    H.add_edge("world", "upper", joint=G.edges["world", "upper"]["joint"], placement=P1)
    H.add_edge("upper", "cross", joint=Revolute([1.0, 0, 0]), placement=P2)
    H.add_edge("cross", "lower", joint=Revolute([0, 1.0, 0]))
    return MultibodyModel(G), MultibodyModel(H)


def test_phi_ring_of_a_user_joint_enters_every_algorithm(rng):
    """A universal joint (nonzero Phi_ring) equals a Rx-Ry chain through a massless body."""
    model, chain = _universal_pair(rng)
    q, v, a = rng.uniform(-2, 2, (3, 5, 3))
    tau = rnea(model, q, v, a)
    assert rel_err(tau, rnea(chain, q, v, a)) < 1e-12
    assert rel_err(crba(model, q), crba(chain, q)) < 1e-12
    assert rel_err(aba(model, q, v, tau), a) < 1e-10
    assert rel_err(aba(model, q, v, tau), aba(chain, q, v, tau)) < 1e-10
    # the body twist of "lower" and the rate of A (Phi_ring enters A_dot)
    V = body_velocities(model, q, v)
    assert rel_err(V, body_velocities(chain, q, v)[:, [0, 2]]) < 1e-13
    A, A_dot = velocity_map(model, q[0], v[0])
    A_fd = _fd(lambda x: velocity_map(model, x), model, q[0], v[0])
    assert rel_err(A_dot, A_fd) < 1e-7
    # the test discriminates: RNEA without the Phi_ring term misses the chain by O(1e-2)
    G = model.graph.copy()
    G.edges["upper", "lower"]["joint"] = _UniversalWithoutRate()
    tau_without = rnea(MultibodyModel(G), q, v, a)
    assert rel_err(tau_without, tau) > 1e-3


# ---- batching ----------------------------------------------------------------------------------


def _f_ext(model, a):
    """Body wrenches (..., N, 6) batched like ``a`` (a fixed pattern scaled by a[..., 0])."""
    pattern = np.linspace(-1.0, 1.0, 6 * model.n_bodies).reshape(model.n_bodies, 6)
    return a[..., :1, None] * pattern


FUNCTIONS = {
    "rnea": lambda m, q, v, a: rnea(m, q, v, a),
    "rnea_f_ext": lambda m, q, v, a: rnea(m, q, v, a, f_ext=_f_ext(m, a)),
    "aba_f_ext": lambda m, q, v, a: aba(m, q, v, a, f_ext=_f_ext(m, a)),
    "crba": lambda m, q, v, a: crba(m, q),
    "aba": lambda m, q, v, a: aba(m, q, v, a),
    "gravity_forces": lambda m, q, v, a: gravity_forces(m, q),
    "kinetic_energy": lambda m, q, v, a: kinetic_energy(m, q, v),
    "forward_kinematics": lambda m, q, v, a: forward_kinematics(m, q),
    "body_velocities": lambda m, q, v, a: body_velocities(m, q, v),
    "body_jacobians": lambda m, q, v, a: body_jacobians(m, q),
    "velocity_map": lambda m, q, v, a: np.stack(velocity_map(m, q, v)),
    "joint_transforms": lambda m, q, v, a: joint_transforms(m, q, v)[0],
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_batched_call_equals_loop(name, mixed_tree, random_state):
    rng = np.random.default_rng(11)
    model = mixed_tree(7, rng, floating_base=True)
    fun = FUNCTIONS[name]
    q, v, a = random_state(model, rng, size=(2, 3))
    batched = fun(model, q, v, a)
    for idx in np.ndindex(2, 3):
        single = fun(model, q[idx], v[idx], a[idx])
        if name == "velocity_map":
            batched_idx = batched[(slice(None),) + idx]
        else:
            batched_idx = batched[idx]
        assert np.allclose(batched_idx, single, rtol=1e-13, atol=1e-13), idx


def test_broadcasting_mixed_batch_shapes(mixed_tree, random_state):
    rng = np.random.default_rng(12)
    model = mixed_tree(5, rng, floating_base=True)
    q, v, a = random_state(model, rng, size=4)
    # one configuration, four velocity/acceleration pairs
    tau = rnea(model, q[0], v, a)
    assert tau.shape == (4, model.nv)
    for k in range(4):
        assert np.allclose(tau[k], rnea(model, q[0], v[k], a[k]), rtol=1e-13, atol=1e-13)
    # per-state gravity
    gravity = rng.normal(size=(4, 3))
    g = gravity_forces(model, q, gravity=gravity)
    assert np.allclose(
        g[2], gravity_forces(model, q[2], gravity=gravity[2]), rtol=1e-13, atol=1e-13
    )
    assert aba(model, q[:, None], v[None], a[None]).shape == (4, 4, model.nv)


# ---- bad inputs ---------------------------------------------------------------------------------


@pytest.fixture
def pendulum():
    return robots.double_pendulum()


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda m: rnea(m, [0.0], [0, 0], [0, 0]),
            DimensionError,
            r"`q` to have shape \(\.\.\., 2\), got \(1,\)",
        ),
        (
            lambda m: rnea(m, [0, 0], [0, 0, 0], [0, 0]),
            DimensionError,
            r"`v` to have shape \(\.\.\., 2\), got \(3,\)",
        ),
        (lambda m: rnea(m, [0, 0], [0, 0], [0]), DimensionError, r"`a` to have shape"),
        (lambda m: rnea(m, [0, np.nan], [0, 0], [0, 0]), NonFiniteError, r"`q` to be finite"),
        (lambda m: rnea(m, [0, 0], [0, np.inf], [0, 0]), NonFiniteError, r"`v` to be finite"),
        (
            lambda m: rnea(m, [0, 0], [0, 0], [0, 0], gravity=[0, 9.81]),
            DimensionError,
            r"`gravity` to have shape \(\.\.\., 3\)",
        ),
        (
            lambda m: rnea(m, [0, 0], [0, 0], [0, 0], f_ext=np.zeros((3, 6))),
            DimensionError,
            r"`f_ext` to have shape \(\.\.\., 2, 6\), got \(3, 6\)",
        ),
        (
            lambda m: rnea(m, [0, 0], [0, 0], [0, 0], f_ext=np.full((2, 6), np.nan)),
            NonFiniteError,
            r"`f_ext` to be finite",
        ),
        (
            lambda m: rnea(m, np.zeros((3, 2)), np.zeros((4, 2)), [0, 0]),
            DimensionError,
            r"batch\) dimensions of the inputs to broadcast, got \[\(3,\), \(4,\)",
        ),
        (lambda m: aba(m, [0, 0], [0, 0], [0, 0, 0]), DimensionError, r"`tau` to have shape"),
        (lambda m: aba(m, [0, 0], [0, np.nan], [0, 0]), NonFiniteError, r"`v` to be finite"),
        (lambda m: aba(m, [0, 0], [0, 0], [0, 0], f_ext=np.zeros(6)), DimensionError, r"`f_ext`"),
        (
            lambda m: crba(m, [[0, 0, 0]]),
            DimensionError,
            r"`q` to have shape \(\.\.\., 2\), got \(1, 3\)",
        ),
        (lambda m: crba(m, "abc"), DimensionError, r"`q` to be a numeric array"),
        (
            lambda m: gravity_forces(m, [0, 0], gravity=[0, 0, np.nan]),
            NonFiniteError,
            r"`gravity` to be finite",
        ),
        (lambda m: kinetic_energy(m, [0, 0], [1.0]), DimensionError, r"`v` to have shape"),
        (lambda m: forward_kinematics(m, [np.nan, 0]), NonFiniteError, r"`q` to be finite"),
        (lambda m: body_velocities(m, [0, 0], [0]), DimensionError, r"`v` to have shape"),
        (lambda m: body_jacobians(m, [0, 0, 0]), DimensionError, r"`q` to have shape"),
        (lambda m: velocity_map(m, [0, 0], [0, np.nan]), NonFiniteError, r"`v` to be finite"),
        (lambda m: joint_transforms(m, [0]), DimensionError, r"`q` to have shape"),
        (lambda m: joint_transforms(m, [0, 0], [0, 0, 0]), DimensionError, r"`v` to have shape"),
    ],
)
def test_bad_inputs_raise(pendulum, call, error, match):
    with pytest.raises(error, match=match) as info:
        call(pendulum)
    assert isinstance(info.value, GeomechError)


def test_non_unit_quaternion_raises(rng):
    model = free_body(robots.random_inertia(rng))
    q = model.neutral()
    q[6] = 2.0
    with pytest.raises(GeomechError, match="unit quaternion"):
        rnea(model, q, np.zeros(6), np.zeros(6))


def _massless_leaf_model():
    G = nx.DiGraph()
    G.add_node("upper_arm", inertia=spatial_inertia(1.0, [0, 0, -0.5], np.eye(3) * 0.01))
    G.add_node("fingertip", inertia=np.zeros((6, 6)))
    G.add_edge("world", "upper_arm", joint=Revolute([0, 1, 0]))
    G.add_edge("upper_arm", "fingertip", joint=Revolute([0, 1, 0]), name="finger")
    return MultibodyModel(G)


def test_aba_raises_on_singular_articulated_inertia():
    model = _massless_leaf_model()
    with pytest.raises(SingularityError, match=r"body 'fingertip' \(index 1\) is singular"):
        aba(model, [0.1, 0.2], [0.0, 0.0], [0.0, 0.0])
    q = np.zeros((3, 2))
    with pytest.raises(SingularityError, match=r"'fingertip'.*batch element \(0,\)"):
        aba(model, q, np.zeros(2), np.zeros(2))
    # H is then only positive semi-definite, but RNEA and CRBA still work
    H = crba(model, [0.1, 0.2])
    assert np.allclose(H[1], 0.0) and H[0, 0] > 0
    assert np.isfinite(rnea(model, [0.1, 0.2], [1.0, 2.0], [0.5, 0.5])).all()


def test_aba_singularity_on_point_mass_on_its_axis():
    """A point mass on the revolute axis has no inertia about it: D = 0 to rounding."""
    G = nx.DiGraph()
    G.add_node("bead", inertia=spatial_inertia(1.0, [0, 0, 0.3], np.zeros((3, 3))))
    G.add_edge("world", "bead", joint=Revolute([0, 0, 1]))
    with pytest.raises(SingularityError, match="'bead'"):
        aba(MultibodyModel(G), [0.4], [1.0], [0.0])
