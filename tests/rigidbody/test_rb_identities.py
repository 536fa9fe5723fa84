"""Seed 003 digest §5 identities T1-T20, parametrised over the groups (T4/T11 in test_rb_charts,
T12 in test_rb_equations, T13 in test_rb_lagrange, T19 in test_rb_potential).

References are independent of the code under test: matrix commutators of ``hat``, central
differences of the expm-oracle ``S(φ)``, Featherstone's ``crbar`` (geomech.spatial), and
direct integration.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from rb_helpers import (
    AFF1,
    GL2,
    GROUP_IDS,
    GROUPS,
    NONABELIAN,
    NONABELIAN_IDS,
    SL2,
    expm_oracle_S,
    fd_partials,
    random_spd,
)

from geomech.lie import SE2, SE3, SO3, Euclidean, Schoenflies
from geomech.rigidbody import (
    EulerZYX,
    ExponentialChart,
    PlanarChart,
    RigidBody,
    ad_tilde,
    boltzmann_hamel_coefficients,
    chart_coriolis_matrix,
    duindam_stramigioli_coriolis,
    inertia_from_paper,
    selection_matrix,
    twist_from_paper,
)
from geomech.simulation import simulate
from geomech.spatial import crbar, skew, spatial_inertia

ALL = GROUPS + [GL2, SL2, AFF1]
ALL_IDS = GROUP_IDS + ["GL2", "SL2", "Aff1"]


def dS0(group, h=1e-5):
    """``dS[k, i, j] = ∂S_ki/∂φ_j`` at φ = 0, central differences of the expm oracle."""
    return fd_partials(lambda phi: expm_oracle_S(group, phi), np.zeros(group.dim), h)


# ------------------------------------------------------------------------------------------
# T1-T3: ad and ad~
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("group", ALL, ids=ALL_IDS)
def test_T1_T2_ad_is_the_matrix_commutator(group, rng):
    x, y, z = rng.standard_normal((3, group.dim))
    X, Y = group.hat(x), group.hat(y)
    np.testing.assert_allclose(group.ad(x) @ y, group.vee(X @ Y - Y @ X), atol=1e-12)
    np.testing.assert_allclose(group.ad(x) @ y, -group.ad(y) @ x, atol=1e-12)
    lhs = group.ad(group.ad(x) @ y)
    np.testing.assert_allclose(
        lhs, group.ad(x) @ group.ad(y) - group.ad(y) @ group.ad(x), atol=1e-12
    )


def _paper_ad_se3(V):
    u, v, w, p, q, r = V  # eq. (8) / Table 1
    return np.array(
        [
            [0, -r, q, 0, -w, v],
            [r, 0, -p, w, 0, -u],
            [-q, p, 0, -v, u, 0],
            [0, 0, 0, 0, -r, q],
            [0, 0, 0, r, 0, -p],
            [0, 0, 0, -q, p, 0],
        ],
        dtype=float,
    )


def _paper_ad_tilde_se3(P):
    p1, p2, p3, p4, p5, p6 = P  # eq. (73)
    return np.array(
        [
            [0, 0, 0, 0, p3, -p2],
            [0, 0, 0, -p3, 0, p1],
            [0, 0, 0, p2, -p1, 0],
            [0, p3, -p2, 0, p6, -p5],
            [-p3, 0, p1, -p6, 0, p4],
            [p2, -p1, 0, p5, -p4, 0],
        ],
        dtype=float,
    )


def _to_geomech(group, A_paper):
    """A matrix printed in the paper's order, permuted into geomech's."""
    return inertia_from_paper(group, A_paper)


def test_T1_printed_ad_matrices(rng):
    V = rng.standard_normal(6)
    np.testing.assert_allclose(
        SE3.ad(twist_from_paper(SE3, V)), _to_geomech(SE3, _paper_ad_se3(V)), atol=0
    )
    u, v, r = rng.standard_normal(3)  # SE(2), eq. (78)
    ad78 = np.array([[0, -r, v], [r, 0, -u], [0, 0, 0]])
    np.testing.assert_allclose(
        SE2.ad(twist_from_paper(SE2, [u, v, r])), _to_geomech(SE2, ad78), atol=0
    )
    u, v, w, r = rng.standard_normal(4)  # X, eq. (89)
    ad89 = np.array([[0, -r, 0, v], [r, 0, 0, -u], [0, 0, 0, 0], [0, 0, 0, 0]])
    np.testing.assert_allclose(
        Schoenflies.ad(twist_from_paper(Schoenflies, [u, v, w, r])),
        _to_geomech(Schoenflies, ad89),
        atol=0,
    )
    w3 = rng.standard_normal(3)
    np.testing.assert_allclose(SO3.ad(w3), skew(w3), atol=0)


@pytest.mark.parametrize("group", ALL, ids=ALL_IDS)
def test_T3_ad_tilde_definition(group, rng):
    p, x, q = rng.standard_normal((3, group.dim))
    A = ad_tilde(group, p)
    np.testing.assert_allclose(A @ x, -group.ad(x).T @ p, atol=1e-12)
    np.testing.assert_allclose(A, -A.T, atol=0)
    np.testing.assert_allclose(
        ad_tilde(group, 2.0 * p - 3.0 * q), 2.0 * A - 3.0 * ad_tilde(group, q), atol=1e-12
    )
    # batched: one vectorised call equals the loop
    P = rng.standard_normal((4, 2, group.dim))
    np.testing.assert_allclose(ad_tilde(group, P)[1, 0], ad_tilde(group, P[1, 0]), atol=0)


def test_T3_printed_ad_tilde_matrices(rng):
    P = rng.standard_normal(6)
    np.testing.assert_allclose(
        ad_tilde(SE3, twist_from_paper(SE3, P)), _to_geomech(SE3, _paper_ad_tilde_se3(P)), atol=0
    )
    # Featherstone's (f ×̄*) is the same operator in angular-first order (seed 000 §1.4)
    np.testing.assert_allclose(
        ad_tilde(SE3, twist_from_paper(SE3, P)), crbar(twist_from_paper(SE3, P)), atol=0
    )
    p1, p2, p3 = rng.standard_normal(3)  # SE(2), eq. (83)
    t83 = np.array([[0, 0, -p2], [0, 0, p1], [p2, -p1, 0]])
    np.testing.assert_allclose(
        ad_tilde(SE2, twist_from_paper(SE2, [p1, p2, p3])), _to_geomech(SE2, t83), atol=0
    )
    p1, p2, p3, p4 = rng.standard_normal(4)  # X, Table 1
    tX = np.array([[0, 0, 0, -p2], [0, 0, 0, p1], [0, 0, 0, 0], [p2, -p1, 0, 0]])
    np.testing.assert_allclose(
        ad_tilde(Schoenflies, twist_from_paper(Schoenflies, [p1, p2, p3, p4])),
        _to_geomech(Schoenflies, tX),
        atol=0,
    )
    p = rng.standard_normal(3)  # SO(3): -p̂ (Table 1 prints +p̂: erratum E4)
    np.testing.assert_allclose(ad_tilde(SO3, p), -skew(p), atol=0)


# ------------------------------------------------------------------------------------------
# T5-T10: the Coriolis matrix
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("group", ALL, ids=ALL_IDS)
def test_T5_eq57_from_finite_differences_equals_ad_tilde(group, rng):
    body = RigidBody(group, random_spd(rng, group.dim))
    v = rng.standard_normal(group.dim)
    p = body.momentum(v)
    dS = dS0(group)  # dS[k, i, j] = ∂S_ki/∂φ_j |_0
    C57 = np.einsum("kij,k->ij", dS - np.swapaxes(dS, 1, 2), p)  # eq. (57)
    np.testing.assert_allclose(C57, body.coriolis_matrix(v), atol=1e-8)
    np.testing.assert_allclose(C57, ad_tilde(group, p), atol=1e-8)


@pytest.mark.parametrize("group", ALL, ids=ALL_IDS)
def test_T5_eq54_at_random_phi(group, rng):
    """(54) evaluated at φ ≠ 0, both with the chart's exact ∂S and with finite differences."""
    body = RigidBody(group, random_spd(rng, group.dim))
    v = rng.standard_normal(group.dim)
    phi = rng.uniform(-1.0, 1.0, group.dim)
    C = body.coriolis_matrix(v)
    np.testing.assert_allclose(
        chart_coriolis_matrix(body, ExponentialChart(group), phi, v), C, atol=1e-10
    )
    # literal transcription of (54) with finite differences of the expm oracle
    S_inv = np.linalg.inv(expm_oracle_S(group, phi))
    dS = fd_partials(lambda x: expm_oracle_S(group, x), phi, 1e-5)  # dS[s, l, m] = ∂S_sl/∂φ_m
    C54 = np.einsum("li,slm,mj,s->ij", S_inv, dS - np.swapaxes(dS, 1, 2), S_inv, body.momentum(v))
    np.testing.assert_allclose(C54, C, atol=1e-8)


@pytest.mark.parametrize("group", NONABELIAN, ids=NONABELIAN_IDS)
def test_T6_wrong_formula_is_minus_ad_Mv_transpose(group, rng):
    body = RigidBody(group, random_spd(rng, group.dim))
    v = rng.standard_normal(group.dim)
    p = body.momentum(v)
    dS = dS0(group)  # dS[j, i, k] = ∂S_ji/∂φ_k
    C35 = np.einsum("jik,k->ij", dS - np.einsum("jki->jik", dS), p)  # eq. (35)
    np.testing.assert_allclose(C35, -group.ad(p).T, atol=1e-8)
    np.testing.assert_allclose(duindam_stramigioli_coriolis(body, v), C35, atol=1e-8)
    assert np.linalg.norm(C35 @ v - body.coriolis_force(v)) > 1e-3


@pytest.mark.parametrize("group", ALL, ids=ALL_IDS)
def test_T7_T9_prop51_and_skew(group, rng):
    body = RigidBody(group, random_spd(rng, group.dim))
    V = rng.standard_normal((5, group.dim))  # batched
    C = body.coriolis_matrix(V)
    minus_adT_Mv = -np.einsum("bji,bj->bi", group.ad(V), body.momentum(V))
    np.testing.assert_allclose(np.einsum("bij,bj->bi", C, V), minus_adT_Mv, atol=1e-12)
    np.testing.assert_allclose(body.coriolis_force(V), minus_adT_Mv, atol=1e-12)
    np.testing.assert_allclose(C + np.swapaxes(C, -1, -2), 0.0, atol=0)
    np.testing.assert_allclose(np.einsum("bi,bij,bj->b", V, C, V), 0.0, atol=1e-12)


def _charts(group):
    charts = [ExponentialChart(group), ExponentialChart(group, group.random(7))]
    if group in (SO3, SE3):
        charts.append(EulerZYX(group))
    if group in (SE2, Schoenflies):
        charts.append(PlanarChart(group))
    return charts


@pytest.mark.parametrize("group", ALL, ids=ALL_IDS)
def test_T8_boltzmann_hamel_coefficients_in_every_chart(group, rng):
    body = RigidBody(group, random_spd(rng, group.dim))
    v = rng.standard_normal(group.dim)
    s = group.structure_constants()
    for chart in _charts(group):
        for x in (np.zeros(group.dim), rng.uniform(-1.0, 1.0, group.dim)):
            gamma = boltzmann_hamel_coefficients(chart, x)
            np.testing.assert_allclose(gamma, s, atol=1e-10)  # gamma[i, k, j] = (γ_k)_ij = c^j_ik
            Gv = np.einsum("ikj,k->ij", gamma, v)
            np.testing.assert_allclose(Gv, -group.ad(v).T, atol=1e-10)
            # two factorizations (52) and (57): same C v, different matrices
            np.testing.assert_allclose(Gv @ body.inertia @ v, body.coriolis_force(v), atol=1e-10)


@pytest.mark.parametrize("group", NONABELIAN, ids=NONABELIAN_IDS)
def test_T8_factorization_52_differs_from_57(group, rng):
    body = RigidBody(group, random_spd(rng, group.dim))
    v = rng.standard_normal(group.dim)
    C52 = -group.ad(v).T @ body.inertia
    assert np.max(np.abs(C52 - body.coriolis_matrix(v))) > 1e-3
    assert np.max(np.abs(C52 + C52.T)) > 1e-3  # (52) is not skew


@pytest.mark.parametrize("group", ALL, ids=ALL_IDS)
def test_T10_lemmas_51_53(group, rng):
    x, y = rng.standard_normal((2, group.dim))
    dS = dS0(group)  # dS[k, i, j] = ∂S_ki/∂φ_j
    lhs = np.einsum("kij,k->ij", dS - np.swapaxes(dS, 1, 2), x)
    np.testing.assert_allclose(lhs, 2.0 * np.einsum("kij,k->ij", dS, x), atol=1e-8)  # Lemma 5.3
    # Lemma 5.1 with x̄ = ad_x: ȳ_ij = Σ_k ∂(ad_x)_ik/∂x_j y_k
    y_bar = np.einsum("ikj,k->ij", fd_partials(group.ad, x), y)
    np.testing.assert_allclose(group.ad(x) @ y, y_bar @ x, atol=1e-8)


# ------------------------------------------------------------------------------------------
# T14-T18: conservation laws, invariance, subgroups, bi-invariant case
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("group", GROUPS, ids=GROUP_IDS)
def test_T14_power_balance(group, rng):
    body = RigidBody(group, random_spd(rng, group.dim))
    g = group.random(rng)
    v, tau = rng.standard_normal((2, group.dim))
    v_dot = body.forward_dynamics(g, v, tau)
    assert v @ body.inertia @ v_dot == pytest.approx(v @ tau, abs=1e-12)  # dK/dt = vᵀτ


@pytest.mark.parametrize("group", GROUPS, ids=GROUP_IDS)
def test_T14_T15_free_motion_conserves_energy_and_spatial_momentum(group, rng):
    body = RigidBody(group, random_spd(rng, group.dim))
    g0 = group.random(rng, size=3)  # three initial conditions in one vectorised run
    v0 = rng.standard_normal((3, group.dim))
    res = simulate(body, g0, v0, t_final=2.0, dt=2.5e-3)
    E = body.energy(res.q, res.v)
    mu = body.spatial_momentum(res.q, res.v)
    np.testing.assert_allclose(E, np.broadcast_to(E[0], E.shape), rtol=1e-10)
    np.testing.assert_allclose(mu, np.broadcast_to(mu[0], mu.shape), atol=1e-9 * np.abs(mu).max())


def test_T15_so3_casimir(rng):
    body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
    res = simulate(body, SO3.random(rng), [0.4, -1.0, 0.7], t_final=5.0, dt=2e-3)
    casimir = np.linalg.norm(res.v @ body.inertia, axis=-1)
    np.testing.assert_allclose(casimir, np.full_like(casimir, casimir[0]), rtol=1e-11)
    L = np.einsum("tij,tj->ti", res.q, res.v @ body.inertia)  # R M ω
    np.testing.assert_allclose(L, np.broadcast_to(L[0], L.shape), atol=1e-10)


def test_T16_frame_invariance(rng):
    I_b = spatial_inertia(2.0, [0.1, -0.05, 0.2], np.diag([1.0, 2.0, 3.0]))
    body = RigidBody(SE3, I_b)
    g, h = SE3.random(rng, size=2)
    V_B = rng.standard_normal(6)
    V_S = SE3.Ad(g) @ V_B
    Ad_inv = SE3.Ad(SE3.inverse(g))
    assert body.kinetic_energy(V_B) == pytest.approx(
        0.5 * V_S @ Ad_inv.T @ I_b @ Ad_inv @ V_S, rel=1e-12
    )
    # a new inertial frame (g -> h g) changes neither v nor the v-equation nor the trajectory
    res = simulate(body, np.stack([g, h @ g]), V_B, t_final=1.0, dt=1e-2)
    np.testing.assert_allclose(res.v[:, 0], res.v[:, 1], atol=1e-12)
    np.testing.assert_allclose(h @ res.q[:, 0], res.q[:, 1], atol=1e-12)


@pytest.mark.parametrize(
    "group", [SO3, SE2, Schoenflies, Euclidean(3)], ids=["SO3", "SE2", "X4", "R3"]
)
def test_T17_subgroups_of_se3(group, rng):
    I_b = spatial_inertia(1.5, rng.standard_normal(3) * 0.2, np.diag([1.0, 2.0, 3.0]))
    H = selection_matrix(group)
    body = RigidBody.from_spatial_inertia(group, I_b, gravity=None)
    np.testing.assert_allclose(body.inertia, H.T @ I_b @ H, atol=0)
    x, v = rng.standard_normal((2, group.dim))
    np.testing.assert_allclose(SE3.ad(H @ x) @ H, H @ group.ad(x), atol=1e-12)
    big = RigidBody(SE3, I_b)
    np.testing.assert_allclose(H.T @ big.coriolis_force(H @ v), body.coriolis_force(v), atol=1e-12)


def test_T18_bi_invariant_metric_gives_one_parameter_subgroups(rng):
    body = RigidBody(SO3, 2.5 * np.eye(3))
    R0, w0 = SO3.random(rng), np.array([0.3, -1.2, 0.8])
    res = simulate(body, R0, w0, t_final=3.0, dt=1e-2)
    np.testing.assert_allclose(res.v, np.broadcast_to(w0, res.v.shape), atol=0)
    np.testing.assert_allclose(res.q, R0 @ SO3.exp(res.t[:, None] * w0), atol=1e-12)


# ------------------------------------------------------------------------------------------
# T20: Prop. 5.1 beyond subgroups of SE(3)
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("group", [GL2, SL2, AFF1], ids=["GL2", "SL2", "Aff1"])
def test_T20_generality_free_motion(group, rng):
    """On GL(2), SL(2), Aff(1): the left-invariant Euler-Poincaré flow conserves energy and the
    coadjoint momentum; checked against a direct integration of ġ = g v̂ with scipy."""
    from scipy.integrate import solve_ivp

    body = RigidBody(group, random_spd(rng, group.dim))
    v0 = 0.5 * rng.standard_normal(group.dim)
    res = simulate(body, group.identity(), v0, t_final=1.0, dt=1e-2)
    E = body.kinetic_energy(res.v)
    np.testing.assert_allclose(E, np.broadcast_to(E[0], E.shape), rtol=1e-8)
    mu = body.spatial_momentum(res.q, res.v)
    np.testing.assert_allclose(mu, np.broadcast_to(mu[0], mu.shape), atol=1e-8)
    n = group.matrix_size

    def rhs(t, y):
        g, v = y[: n * n].reshape(n, n), y[n * n :]
        return np.concatenate(
            [
                (g @ group.hat(v)).ravel(),
                np.linalg.solve(body.inertia, group.ad(v).T @ body.momentum(v)),
            ]
        )

    sol = solve_ivp(
        rhs,
        [0, 1],
        np.concatenate([np.eye(n).ravel(), v0]),
        rtol=1e-12,
        atol=1e-13,
        method="DOP853",
    )
    np.testing.assert_allclose(res.q[-1], sol.y[: n * n, -1].reshape(n, n), atol=1e-8)
    np.testing.assert_allclose(res.v[-1], sol.y[n * n :, -1], atol=1e-8)


# ------------------------------------------------------------------------------------------
# property test (hypothesis, derandomized): Prop. 5.1 and skewness for arbitrary inputs
# ------------------------------------------------------------------------------------------
_floats = st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(A=arrays(float, (6, 6), elements=_floats), v=arrays(float, (6,), elements=_floats))
def test_prop51_property_se3(A, v):
    M = A @ A.T + np.eye(6)
    body = RigidBody(SE3, M)
    C = body.coriolis_matrix(v)
    scale = 1.0 + np.abs(M).max() * np.abs(v).max() ** 2
    np.testing.assert_allclose(C @ v, -SE3.ad(v).T @ M @ v, atol=1e-12 * scale)
    np.testing.assert_allclose(C, -C.T, atol=0)
