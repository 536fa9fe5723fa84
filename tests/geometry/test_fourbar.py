"""The planar four-bar as a closed chain by projection (seed 000 §VI-C1).

Independent references, all built here:
- the spanning tree's H and Christoffel symbols from its Lagrangian in sympy;
- loop closure by circle intersection (closed-form position analysis);
- the constrained dynamics by Lagrange multipliers on the spanning tree
  (H qdd + C* qd = K^T lambda, K qdd + K_dot qd = 0), with K, K_dot from sympy;
- H_bar_dot and the minimal Christoffel symbols by finite differences along the closed
  configurations.
"""

import numpy as np
import pytest
import sympy as sp
from lyapunov_helpers import lyapunov_defect
from numpy.testing import assert_allclose
from scipy.integrate import solve_ivp

from geomech.errors import (
    ConnectionSpecError,
    DimensionError,
    InertiaError,
    ModelError,
    NotOnManifoldError,
    SingularityError,
)
from geomech.geometry import (
    ClosedChain,
    Contorsion,
    LeviCivitaConnection,
    LoopClosureFrame,
)
from geomech.geometry.examples import point_mass, rigid_body_so3
from geomech.geometry.examples_induced import four_bar_linkage, planar_serial_chain
from geomech.simulation import simulate

D, L1, L2, L3 = 2.0, 0.8, 2.2, 1.8  # the defaults of four_bar_linkage
MASSES = (1.0, 1.5, 1.2)
MB, IB = 3.0, 0.5  # mobile base


def _tree_sympy(mobile):
    """H, Gamma, phi, K, K_dot qd of the spanning tree
    (crank, coupler, rocker; optional P-R base).
    """
    nb = 2 if mobile else 0
    q = sp.symbols(f"q0:{nb + 3}", real=True)
    qd = sp.symbols(f"qd0:{nb + 3}", real=True)
    t = sp.Symbol("t")
    qt = [sp.Function(f"f{i}")(t) for i in range(nb + 3)]
    if mobile:
        base, psi = sp.Matrix([qt[0], 0]), qt[1]
    else:
        base, psi = sp.Matrix([0, 0]), sp.Integer(0)

    def e(a):
        return sp.Matrix([sp.cos(a), sp.sin(a)])

    th = [psi + qt[nb], psi + qt[nb] + qt[nb + 1], psi + qt[nb] + qt[nb + 1] + qt[nb + 2]]
    lengths = [L1, L2, L3]
    joints = [base, base + L1 * e(th[0]), base + L1 * e(th[0]) + L2 * e(th[1])]
    T = 0
    for k in range(3):
        c = joints[k] + lengths[k] / 2 * e(th[k])
        cd = c.diff(t)
        T += sp.Rational(1, 2) * MASSES[k] * cd.dot(cd)
        T += sp.Rational(1, 2) * MASSES[k] * lengths[k] ** 2 / 12 * th[k].diff(t) ** 2
    if mobile:
        T += (
            sp.Rational(1, 2) * MB * qt[0].diff(t) ** 2
            + sp.Rational(1, 2) * IB * qt[1].diff(t) ** 2
        )
    subs = {qt[i].diff(t): qd[i] for i in range(nb + 3)}
    T = T.subs(subs).subs({qt[i]: q[i] for i in range(nb + 3)})
    H = sp.hessian(T, qd)
    n = nb + 3
    Gamma = [
        [
            [
                sp.Rational(1, 2) * (H[i, j].diff(q[k]) + H[i, k].diff(q[j]) - H[j, k].diff(q[i]))
                for k in range(n)
            ]
            for j in range(n)
        ]
        for i in range(n)
    ]
    rel = [q[nb], q[nb] + q[nb + 1], q[nb] + q[nb + 1] + q[nb + 2]]  # angles in the base frame
    phi = L1 * e(rel[0]) + L2 * e(rel[1]) + L3 * e(rel[2]) - sp.Matrix([D, 0])
    K = phi.jacobian(q)
    Kdot_qd = (K * sp.Matrix(qd)).jacobian(q) * sp.Matrix(qd)
    return dict(
        H=sp.lambdify([q], H, "numpy"),
        Gamma=sp.lambdify([q], sp.Array(Gamma), "numpy"),
        K=sp.lambdify([q], K, "numpy"),
        Kdot_qd=sp.lambdify([q, qd], Kdot_qd, "numpy"),
        n=n,
        nb=nb,
    )


@pytest.fixture(scope="module")
def fixed_sympy():
    return _tree_sympy(mobile=False)


@pytest.fixture(scope="module")
def mobile_sympy():
    return _tree_sympy(mobile=True)


@pytest.fixture(scope="module")
def fourbar():
    return four_bar_linkage(D, L1, L2, L3, MASSES)


@pytest.fixture(scope="module")
def mobile_fourbar():
    return four_bar_linkage(D, L1, L2, L3, MASSES, mobile_base=True, base_mass=MB, base_inertia=IB)


def _close(alpha):
    """Closed-form position analysis: crank angle -> (q1, q2, q3), the 'elbow up' branch."""
    B = L1 * np.array([np.cos(alpha), np.sin(alpha)])
    P = np.array([D, 0.0])
    d = P - B
    dist = np.linalg.norm(d)
    a = (L2**2 - L3**2 + dist**2) / (2 * dist)
    h = np.sqrt(L2**2 - a**2)
    C = B + a * d / dist + h * np.array([-d[1], d[0]]) / dist
    t2 = np.arctan2(C[1] - B[1], C[0] - B[0])
    t3 = np.arctan2(P[1] - C[1], P[0] - C[0])
    return np.array([alpha, t2 - alpha, t3 - t2])


def _close_mobile(y):
    return np.concatenate([y[:2], _close(y[2])])


def _A_sympy(ref, q):
    """Null-space basis [1; -K_D^-1 K_I] of the sympy constraint Jacobian."""
    K = np.array(ref["K"](q), dtype=float)
    nb = ref["nb"]
    ind, dep = list(range(nb + 1)), [nb + 1, nb + 2]
    A = np.zeros((ref["n"], nb + 1))
    A[ind] = np.eye(nb + 1)
    A[dep] = -np.linalg.solve(K[:, dep], K[:, ind])
    return A


# ----------------------------------------------------------------------------------------
# the spanning tree
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("mobile", [False, True])
def test_spanning_tree_matches_sympy(
    mobile, fixed_sympy, mobile_sympy, fourbar, mobile_fourbar, rng
):
    ref, chain = (mobile_sympy, mobile_fourbar) if mobile else (fixed_sympy, fourbar)
    for q in rng.uniform(-np.pi, np.pi, size=(4, ref["n"])):
        assert_allclose(chain.tree.system.mass_matrix(q), np.array(ref["H"](q), float), atol=1e-13)
        assert_allclose(
            chain.tree.christoffel_first_kind(q), np.array(ref["Gamma"](q), float), atol=1e-13
        )
        assert_allclose(chain.constraint_jacobian(q), np.array(ref["K"](q), float), atol=1e-13)


def test_planar_chain_reproduces_the_two_link_arm():
    """Spong's closed form: H11 = m1 lc1^2 + m2 (l1^2 + lc2^2 + 2 l1 lc2 c2) + I1 + I2, ..."""
    m1, m2, l1, lc1, lc2, I1, I2 = 1.3, 0.7, 0.9, 0.4, 0.35, 0.11, 0.05
    arm = planar_serial_chain("RR", [[0, 0], [l1, 0]], [m1, m2], [[lc1, 0], [lc2, 0]], [I1, I2])
    q = np.array([0.4, -1.1])
    c2 = np.cos(q[1])
    H11 = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * c2) + I1 + I2
    H12 = m2 * (lc2**2 + l1 * lc2 * c2) + I2
    assert_allclose(arm.mass_matrix(q), [[H11, H12], [H12, m2 * lc2**2 + I2]], rtol=1e-14)
    g = 9.81 * ((m1 * lc1 + m2 * l1) * np.sin(q[0]) + m2 * lc2 * np.sin(q[0] + q[1]))
    assert_allclose(arm.potential(q), g, rtol=1e-14)


# ----------------------------------------------------------------------------------------
# closure, velocity map and its derivative
# ----------------------------------------------------------------------------------------
def test_flow_follows_the_closed_form_closure(fourbar):
    q0 = _close(0.3)
    t = np.linspace(-np.pi, np.pi, 7)
    q = fourbar.frame.flow(q0, [1.0], t)
    ref = np.array([_close(0.3 + s) for s in t])
    assert_allclose(np.angle(np.exp(1j * (q - ref))), 0.0, atol=1e-12)


def test_velocity_map_and_derivative(fixed_sympy, fourbar, rng):
    for alpha in rng.uniform(-np.pi, np.pi, 4):
        q = _close(alpha)
        A_ref = _A_sympy(fixed_sympy, q)
        assert_allclose(fourbar.velocity_map(q), A_ref, atol=1e-13)
        h = 1e-6
        A_dot_fd = (
            _A_sympy(fixed_sympy, _close(alpha + h)) - _A_sympy(fixed_sympy, _close(alpha - h))
        ) / (2 * h)
        assert_allclose(fourbar.velocity_map_derivative(q, [1.0]), A_dot_fd, atol=1e-8)


# ----------------------------------------------------------------------------------------
# the acceptance identities
# ----------------------------------------------------------------------------------------
def _lagrange_multiplier_acceleration(ref, q, qd, tau=None):
    """Constrained tree dynamics with g = 0: [H, -K^T; K, 0] [qdd; lambda] = [tau - C* qd; -K_dot
    qd].
    """
    n = ref["n"]
    H = np.array(ref["H"](q), float)
    C = np.einsum("ijk,j->ik", np.array(ref["Gamma"](q), float), qd)
    K = np.array(ref["K"](q), float)
    Kdot_qd = np.array(ref["Kdot_qd"](q, qd), float).ravel()
    c = K.shape[0]
    M = np.block([[H, -K.T], [K, np.zeros((c, c))]])
    rhs = -C @ qd if tau is None else tau - C @ qd
    sol = np.linalg.solve(M, np.concatenate([rhs, -Kdot_qd]))
    return sol[:n]


@pytest.mark.parametrize("mobile", [False, True])
def test_projected_dynamics_equal_lagrange_multipliers(
    mobile, fixed_sympy, mobile_sympy, fourbar, mobile_fourbar, rng
):
    ref, chain = (mobile_sympy, mobile_fourbar) if mobile else (fixed_sympy, fourbar)
    m = chain.dim
    for _ in range(4):
        y = rng.uniform(-np.pi, np.pi, size=m)
        q = _close_mobile(y) if mobile else _close(y[0])
        vbar = rng.normal(size=m)
        qd = _A_sympy(ref, q) @ vbar
        qdd = _lagrange_multiplier_acceleration(ref, q, qd)
        vbar_dot = -np.linalg.solve(chain.mass_matrix(q), chain.coriolis_matrix(q, vbar) @ vbar)
        assert_allclose(vbar_dot, qdd[chain.independent], atol=1e-10)
        # and the full tree acceleration: qdd = A vbar_dot + A_dot vbar
        assert_allclose(
            chain.velocity_map(q) @ vbar_dot + chain.velocity_map_derivative(q, vbar) @ vbar,
            qdd,
            atol=1e-10,
        )


def test_fixed_fourbar_skew_symmetry_by_finite_differences(fourbar, rng):
    """H_bar_dot = C_bar + C_bar^T with H_bar differenced along the closed configurations."""
    h = 1e-5
    for alpha in rng.uniform(-np.pi, np.pi, 5):
        vbar = rng.normal(size=1)
        H_dot = (
            fourbar.mass_matrix(_close(alpha + h * vbar[0]))
            - fourbar.mass_matrix(_close(alpha - h * vbar[0]))
        ) / (2 * h)
        C = fourbar.coriolis_matrix(_close(alpha), vbar)
        assert_allclose(H_dot, C + C.T, atol=1e-8)


def _H_min(chain, y):
    return chain.mass_matrix(_close_mobile(y))


def _christoffel_min_fd(chain, y, h=1e-4):
    """Christoffel symbols of H_min in the independent coordinates, fourth-order differences."""
    m = len(y)
    E = np.eye(m)
    dH = np.stack(
        [
            (
                -_H_min(chain, y + 2 * h * E[k])
                + 8 * _H_min(chain, y + h * E[k])
                - 8 * _H_min(chain, y - h * E[k])
                + _H_min(chain, y - 2 * h * E[k])
            )
            / (12 * h)
            for k in range(m)
        ]
    )
    return 0.5 * (np.einsum("kij->ijk", dH) + np.einsum("jik->ijk", dH) - dH)


def test_mobile_fourbar_is_the_levi_civita_connection_of_H_min(mobile_fourbar, rng):
    """Prop. V.3 on a loop with 3 minimal DoF: C_min = Christoffel symbols of H_min (eq. 5)."""
    for _ in range(3):
        y = rng.uniform(-np.pi, np.pi, 3)
        q = _close_mobile(y)
        G_ref = _christoffel_min_fd(mobile_fourbar, y)
        assert_allclose(mobile_fourbar.connection.christoffel_first_kind(q), G_ref, atol=1e-9)
        v = rng.normal(size=3)
        C = mobile_fourbar.coriolis_matrix(q, v)
        h = 1e-5
        H_dot = (_H_min(mobile_fourbar, y + h * v) - _H_min(mobile_fourbar, y - h * v)) / (2 * h)
        assert_allclose(H_dot, C + C.T, atol=1e-8)


def test_torsion_is_induced_on_the_mobile_fourbar(mobile_fourbar, rng):
    """Tree LC + totally antisymmetric K: the 3-DoF C_bar is skew and correct but has torsion."""
    K = Contorsion.totally_antisymmetric(rng.normal(size=10))
    twisted = mobile_fourbar.with_connection(mobile_fourbar.tree + K)
    y = rng.uniform(-np.pi, np.pi, 3)
    q = _close_mobile(y)
    v = rng.normal(size=3)
    C, C_star = twisted.coriolis_matrix(q, v), mobile_fourbar.coriolis_matrix(q, v)
    h = 1e-5
    H_dot = (_H_min(twisted, y + h * v) - _H_min(twisted, y - h * v)) / (2 * h)
    assert_allclose(H_dot, C + C.T, atol=1e-8)  # skew (Prop. V.1)
    assert_allclose(C @ v, C_star @ v, atol=1e-10)  # correct (Prop. V.2)
    assert np.abs(C - C_star).max() > 0.1  # but not C* ...
    A = mobile_fourbar.velocity_map(q)
    D_bar = twisted.connection.contorsion(q, reference=mobile_fourbar.connection)
    assert_allclose(D_bar, -np.einsum("ai,bj,ck,abc->ijk", A, A, A, K()), atol=1e-10)
    assert Contorsion(D_bar).symmetry().totally_antisymmetric
    torsion = twisted.connection.torsion(q)
    assert np.abs(torsion).max() > 0.1  # ... and twisted
    assert not twisted.connection.is_torsion_free(q)
    assert mobile_fourbar.connection.is_torsion_free(q)


def test_fixed_fourbar_cannot_carry_torsion(fourbar, rng):
    """One minimal DoF: every induced connection is torsion free and the skew + correct C_bar is
    unique (Cor. III.2), so inducing a twisted tree connection gives C_bar* back."""
    K = Contorsion.totally_antisymmetric([2.5])
    twisted = fourbar.with_connection(fourbar.tree + K)
    q = _close(rng.uniform(-np.pi, np.pi))
    assert_allclose(
        twisted.coriolis_matrix(q, [0.7]), fourbar.coriolis_matrix(q, [0.7]), atol=1e-12
    )
    generic = fourbar.with_connection(fourbar.tree + rng.normal(size=(3, 3, 3)))
    assert generic.connection.is_torsion_free(q)
    assert not generic.connection.is_metric_compatible(q)


def test_geodesic_is_the_free_constrained_motion(fixed_sympy, fourbar):
    """The geodesic of (Q_bar, H_bar) equals the free motion integrated with multipliers."""
    q0, v0, T = _close(0.3), np.array([1.5]), 1.0
    traj = fourbar.connection.geodesic(q0, v0, [0.0, T])
    qd0 = _A_sympy(fixed_sympy, q0) @ v0

    def rhs(t, x):
        q, qd = x[:3], x[3:]
        return np.concatenate([qd, _lagrange_multiplier_acceleration(fixed_sympy, q, qd)])

    sol = solve_ivp(
        rhs, (0.0, T), np.concatenate([q0, qd0]), method="DOP853", rtol=1e-12, atol=1e-12
    )
    assert_allclose(traj.q[-1], sol.y[:3, -1], atol=1e-8)
    assert_allclose(traj.v[-1], sol.y[3:4, -1], atol=1e-8)
    energy = fourbar.system.kinetic_energy(traj.q, traj.v)
    assert_allclose(energy, energy[0], rtol=1e-9)


@pytest.mark.parametrize("method", ["rkmk4", "DOP853"])
def test_simulate_closed_chain_matches_lagrange_multipliers(method, mobile_sympy):
    """geomech.simulate in the loop-closure chart vs the tree DAE with multipliers (scipy).

    Mobile four-bar (3 DoF, no gravity) driven on its independent joints by a state- and
    time-dependent torque; the tree force is that torque on the independent joints and zero
    on the dependent ones (A = [1; *], so A^T tau_tree = tau_bar). Measured max |q - q_ref|
    over 1.5 s: 6.5e-11 (RKMK4, 4 ms; 5e-12 at 2 ms: fourth order, the chart rate being
    exact) and 1e-11 (DOP853).
    """
    chain = four_bar_linkage(
        D, L1, L2, L3, MASSES, mobile_base=True, base_mass=MB, base_inertia=IB, gravity=0.0
    )
    ind = chain.independent

    def control(t, q, v):
        return np.stack([np.sin(2 * t), 0.5 * np.cos(t), -0.3 * v[..., 2] + 0.2], axis=-1)

    y0, vbar0, T = np.array([0.1, -0.2, 0.4]), np.array([0.3, -0.5, 1.2]), 1.5
    q0 = _close_mobile(y0)
    kw = dict(rtol=1e-11, atol=1e-12) if method == "DOP853" else {}
    res = simulate(chain.system, q0, vbar0, T, controller=control, dt=4e-3, method=method, **kw)

    def rhs(t, x):
        q, qd = x[:5], x[5:]
        tau = np.zeros(5)
        tau[ind] = control(t, q, qd[ind])
        return np.concatenate([qd, _lagrange_multiplier_acceleration(mobile_sympy, q, qd, tau)])

    x0 = np.concatenate([q0, _A_sympy(mobile_sympy, q0) @ vbar0])
    ref = solve_ivp(rhs, (0.0, T), x0, t_eval=res.t, method="DOP853", rtol=1e-12, atol=1e-12)
    assert_allclose(res.q, ref.y[:5].T, atol=5e-10)
    assert_allclose(res.v, ref.y[5:][ind].T, atol=5e-10)
    assert np.abs(chain.frame._phi(res.q)).max() < 1e-12  # the loop stays closed
    assert np.abs(res.q[-1] - q0).max() > 0.3  # it moved


def test_simulate_closed_chain_conserves_energy_under_gravity(fourbar):
    # free motion of the fixed four-bar under gravity: T + V constant, the loop closed to
    # rounding, and a batch equal to its members (measured |E - E0| / |E0| 1.8e-10)
    S = fourbar.system
    q0 = np.stack([_close(0.3), _close(-1.0)])
    v0 = np.array([[1.5], [-0.5]])
    kw = dict(dt=1e-2, method="DOP853", rtol=1e-10, atol=1e-12)
    res = simulate(S, q0, v0, 1.0, **kw)
    E = S.kinetic_energy(res.q, res.v) + S.potential(res.q)
    assert np.abs(E - E[0]).max() < 1e-8 * np.abs(E[0]).max()
    assert np.abs(fourbar.frame._phi(res.q)).max() < 1e-12
    assert_allclose(simulate(S, q0[1], v0[1], 1.0, **kw).q, res.q[:, 1], atol=1e-7)


@pytest.mark.parametrize("twist", [0.0, 3.0])
def test_slotine_li_on_the_closed_chain(twist):
    """Slotine-Li tracking on the mobile four-bar with its induced connection (seed 000 §IV-A
    on a closed chain, §VI-C1): torsion-free (C*) or induced from the tree's connection plus a
    totally antisymmetric contorsion (skew and correct but with torsion). With exact
    parameters V(t) - V(0) = -int s^T K_D s along the simulated loop (measured max defect
    3e-8 V(0), Simpson on a 5 ms grid) and V(1.5) = 2.9e-4 V(0) for both connections; the
    desired closed configurations come from the closed-form closure.
    """
    from geomech.control import SlotineLi

    chain = four_bar_linkage(D, L1, L2, L3, MASSES, mobile_base=True, base_mass=MB, base_inertia=IB)
    if twist:  # one coefficient per index triple of the 5-DoF tree
        K = Contorsion.totally_antisymmetric(twist * np.linspace(-1.0, 1.0, 10))
        conn = chain.with_connection(chain.tree + K).connection
    else:
        conn = chain.connection
    w, amp, mid = np.array([0.7, 1.1, 1.3]), np.array([0.3, 0.4, 0.5]), np.array([0.0, 0.2, 0.6])

    def reference(t):
        y = mid + amp * np.sin(w * t)
        return _close_mobile(y), amp * w * np.cos(w * t), -amp * w**2 * np.sin(w * t)

    q0, v0 = _close_mobile(mid + np.array([0.2, -0.3, 0.4])), np.array([0.5, 0.0, -1.0])
    K_D = 3.0 * chain.mass_matrix(q0)  # K_D ∝ H: comparable rates on all three speeds
    ctrl = SlotineLi(chain.system, conn, reference, 2.0, K_D, require_passivity=True)
    res = simulate(
        chain.system, q0, v0, 2.0, controller=ctrl, dt=5e-3, method="DOP853", rtol=1e-10, atol=1e-12
    )
    V, defect = lyapunov_defect(ctrl, res.t, res.q, res.v)
    assert np.abs(defect).max() < 1e-6 * V[0]
    assert V[-1] < 1e-2 * V[0]  # s -> 0
    e = res.q[-1, chain.independent] - reference(res.t[-1])[0][chain.independent]
    assert np.abs(e).max() < 0.05  # and the tracking error with it
    if twist:  # torsion changes the closed loop, not the guarantee
        free = SlotineLi(chain.system, chain.connection, reference, 2.0, K_D)
        other = simulate(
            chain.system,
            q0,
            v0,
            2.0,
            controller=free,
            dt=5e-3,
            method="DOP853",
            rtol=1e-10,
            atol=1e-12,
        )
        assert np.abs(other.v - res.v).max() > 1e-2


def test_numerical_constraint_derivatives(fourbar, rng):
    """Without the Jacobian and Hessian, five-point stencils give the same C_bar (to ~1e-9)."""
    numeric = ClosedChain(fourbar.tree, fourbar.constraint, [0])
    for alpha in rng.uniform(-np.pi, np.pi, 3):
        q = _close(alpha)
        assert_allclose(numeric.constraint_jacobian(q), fourbar.constraint_jacobian(q), atol=1e-12)
        assert_allclose(
            numeric.coriolis_matrix(q, [1.3]), fourbar.coriolis_matrix(q, [1.3]), atol=1e-8
        )


def test_batched_closed_chain(fourbar):
    q = np.stack([_close(a) for a in (-1.0, 0.2, 2.0)]).reshape(3, 1, 3)
    v = np.array([[0.5], [1.0], [-2.0]]).reshape(3, 1, 1)
    C = fourbar.coriolis_matrix(q, v)
    assert C.shape == (3, 1, 1, 1)
    for i in range(3):
        assert_allclose(C[i, 0], fourbar.coriolis_matrix(q[i, 0], v[i, 0]), atol=1e-13)


# ----------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------
def circle(q):
    return (q**2).sum(-1, keepdims=True) - 1.0


def test_loop_closure_frame_validation():
    with pytest.raises(ConnectionSpecError, match="`constraint` to be callable"):
        LoopClosureFrame(1.0, 2, [0])
    with pytest.raises(DimensionError, match="`n` to be an integer >= 2"):
        LoopClosureFrame(circle, 1, [0])
    with pytest.raises(
        ConnectionSpecError,
        match=r"`independent` to hold distinct indices in "
        r"\[0, 3\), got \[0, 0\]",
    ):
        LoopClosureFrame(circle, 3, [0, 0])
    with pytest.raises(ConnectionSpecError, match="`independent` to be a non-empty 1-D sequence"):
        LoopClosureFrame(circle, 2, [0.5])
    with pytest.raises(ConnectionSpecError, match="at least one dependent coordinate"):
        LoopClosureFrame(circle, 2, [0, 1])
    with pytest.raises(ConnectionSpecError, match=r"`constraint\(q\)` to return n - m = 2 values"):
        LoopClosureFrame(circle, 3, [0])
    with pytest.raises(NotOnManifoldError, match="`reference` to satisfy the loop closure"):
        LoopClosureFrame(circle, 2, [0], reference=[1.0, 1.0])
    frame = LoopClosureFrame(circle, 2, [0])
    with pytest.raises(
        NotOnManifoldError,
        match=r"`q` to satisfy the loop closure phi\(q\) = 0, "
        r"got residual 0\.15",
    ):
        frame.validate_point([0.6, 0.7])
    with pytest.raises(
        SingularityError,
        match=r"dependent coordinates \[1\] to be invertible, "
        r"got condition number",
    ):
        frame.flow([1.0, 0.0], [0.1], 1.0)  # the tangent of the circle is vertical
    with pytest.raises(SingularityError, match="loop closure to converge in 50 Newton"):
        frame.close_loop([2.0, 0.5])  # no solution with x = 2
    with pytest.raises(ConnectionSpecError, match="`reference` configuration to sample around"):
        frame.random_configuration(rng=0)
    bad = LoopClosureFrame(circle, 2, [0], constraint_jacobian=lambda q: np.ones(2))
    with pytest.raises(DimensionError, match=r"`constraint_jacobian\(q\)` to have shape \(1, 2\)"):
        bad.flow([0.6, 0.8], [0.1], 1.0)


def test_closed_chain_validation(fourbar):
    with pytest.raises(ConnectionSpecError, match="`tree` to be an AffineConnection"):
        ClosedChain(np.eye(2), circle, [0])
    # a system in coordinates is taken with its Levi-Civita connection
    q = np.array([0.6, 0.8])
    np.testing.assert_allclose(
        ClosedChain(point_mass(dim=2), circle, [0]).mass_matrix(q),
        ClosedChain(LeviCivitaConnection(point_mass(dim=2)), circle, [0]).mass_matrix(q),
    )
    with pytest.raises(ConnectionSpecError, match="spanning tree in joint coordinates"):
        ClosedChain(LeviCivitaConnection(rigid_body_so3(np.eye(3))), circle, [0])
    with pytest.raises(
        ConnectionSpecError, match="`tree` to be an AffineConnection of dimension 3"
    ):
        fourbar.with_connection(LeviCivitaConnection(point_mass(dim=2)))
    with pytest.raises(NotOnManifoldError, match="`q` to satisfy the loop closure"):
        fourbar.mass_matrix([0.0, 0.0, 0.0])


def test_example_validation():
    with pytest.raises(ModelError, match="four-bar to close at crank angle"):
        four_bar_linkage(ground=5.0)
    with pytest.raises(DimensionError, match="`crank` to be positive"):
        four_bar_linkage(crank=0.0)
    with pytest.raises(InertiaError, match="`masses` to be positive"):
        four_bar_linkage(masses=(1.0, 0.0, 1.0))
    with pytest.raises(DimensionError, match=r"`masses` to have shape \(\.\.\., 3\)"):
        four_bar_linkage(masses=(1.0, 1.0))
    with pytest.raises(DimensionError, match="`joint_types` to be a non-empty sequence"):
        planar_serial_chain("RX", [[0, 0]] * 2, [1, 1], [[0, 0]] * 2, [1, 1])
    with pytest.raises(DimensionError, match=r"`masses` to have shape \(2,\), got \(3,\)"):
        planar_serial_chain("RR", [[0, 0]] * 2, [1, 1, 1], [[0, 0]] * 2, [1, 1])
    with pytest.raises(InertiaError, match="`inertias` to be non-negative"):
        planar_serial_chain("RR", [[0, 0]] * 2, [1, 1], [[0, 0]] * 2, [1, -1])
    with pytest.raises(InertiaError, match=r"`mass_matrix\(0\)` to be positive definite"):
        planar_serial_chain("RR", [[0, 0]] * 2, [0, 0], [[0, 0]] * 2, [0, 0])
