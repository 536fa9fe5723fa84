"""Levi-Civita, Cartan–Schouten and contorsion-shifted connections against independent references.

References used (never the code's own output):
- Euler–Poincaré: c = -ad_v^T H v for a left-invariant metric (ad from geomech.lie), +ad_v^T H v
  for right-invariant fields;
- the sympy Lagrangian of the two-link arm (conftest.arm_sympy);
- Hamel's equations (seed 000 eq. 6) with H differentiated by a hand-rolled expm flow;
- seed 000 eqs. (18), (19) written with geomech.spatial;
- the paper's identities (eq. 9, Props. III.1/III.2/IV.1/IV.2, Cor. III.2, IV.1).
"""

from math import comb

import numpy as np
import pytest
from geometry_helpers import (
    ARM_PARAMS,
    GROUPS,
    levi_civita_symbol,
    random_spd,
    sample_points,
)
from numpy.testing import assert_allclose
from scipy.linalg import expm, null_space

from geomech.geometry import (
    AffineConnection,
    CartanSchoutenConnection,
    Contorsion,
    LeviCivitaConnection,
    MechanicalSystem,
    RightInvariantFrame,
)
from geomech.geometry.examples import (
    point_mass,
    rigid_body_schoenflies,
    rigid_body_se3,
    rigid_body_so3,
    two_link_arm,
)
from geomech.lie import SE3, SO3, Euclidean
from geomech.spatial import crbar, crf, crm, pseudo_inertia, skew, spatial_inertia

EPS = levi_civita_symbol()


def group_system(group, rng):
    return MechanicalSystem(group, random_spd(rng, group.dim))


def varying_metric_so3(rng):
    """SO(3) with a configuration-dependent metric H(R) = I0 + R^T P R (both terms of eq. 8)."""
    I0, P = random_spd(rng, 3), random_spd(rng, 3)

    def H(R):
        return I0 + np.swapaxes(R, -1, -2) @ P @ R

    return MechanicalSystem(SO3, H), H


def hamel_bias(H, R, v, h=1e-5):
    """c_i = (Hdot v)_i + s^k_ij (Hv)_k v^j - 1/2 v^T (L_{X_i} H) v, seed 000 eq. (6).

    Lie derivatives by central differences along R expm(t E_i), with the Levi-Civita symbol as
    the SO(3) structure constants (independent of geomech.geometry).
    """

    def LH(w):
        return (H(R @ expm(h * skew(w))) - H(R @ expm(-h * skew(w)))) / (2 * h)

    Hdot = LH(v)
    Hv = H(R) @ v
    ham = np.einsum("ijk,k,j->i", EPS, Hv, v)
    dL = np.array([0.5 * v @ LH(e) @ v for e in np.eye(3)])
    return Hdot @ v + ham - dL


# ----------------------------------------------------------------------------------------
# Levi-Civita: compatibility, torsion, correct dynamics
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g.name)
def test_levi_civita_on_groups_is_euler_poincare(group, rng):
    system = group_system(group, rng)
    lc = LeviCivitaConnection(system)
    q = sample_points(group, rng, 3)
    v = rng.normal(size=(6, group.dim))
    H = system.mass_matrix(q)
    res = lc.is_metric_compatible(q, tol=1e-12)
    assert res and res.residual < 1e-12
    assert lc.is_torsion_free(q, tol=1e-12)
    # Euler–Poincaré: H vdot = ad_v^T H v, so c = -ad_v^T H v
    expected = -np.einsum("...ki,...k->...i", group.ad(v), np.einsum("...ij,...j->...i", H, v))
    c = np.einsum("...ik,...k->...i", lc.coriolis_matrix(q, v), v)
    assert_allclose(c, expected, atol=1e-12 * np.abs(expected).max())
    # skew symmetry (3) with Hdot = 0 for a constant metric
    C = lc.coriolis_matrix(q, v)
    assert_allclose(C + np.swapaxes(C, -1, -2), 0.0, atol=1e-12)


@pytest.mark.parametrize("group", [SO3, SE3], ids=lambda g: g.name)
def test_right_invariant_frame_flips_euler_poincare(group, rng):
    H0 = random_spd(rng, group.dim)
    system = MechanicalSystem(group, H0, frame=RightInvariantFrame(group))
    lc = LeviCivitaConnection(system)
    v = rng.normal(size=group.dim)
    c = lc.coriolis_matrix(group.random(rng), v) @ v
    assert_allclose(c, group.ad(v).T @ H0 @ v, atol=1e-12)


def test_levi_civita_matches_hamel_for_varying_metric(rng):
    system, H = varying_metric_so3(rng)
    lc = LeviCivitaConnection(system)
    for R in sample_points(SO3, rng, 2):
        v = rng.normal(size=3)
        c = lc.coriolis_matrix(R, v) @ v
        assert_allclose(c, hamel_bias(H, R, v), rtol=1e-7, atol=1e-7)
        assert lc.is_metric_compatible(R)
        assert lc.is_torsion_free(R)


def test_levi_civita_arm_equals_sympy_lagrangian(arm_sympy, rng):
    arm = two_link_arm(**ARM_PARAMS)
    lc = LeviCivitaConnection(arm)
    q = rng.uniform(-np.pi, np.pi, size=(5, 2))
    qd = rng.normal(size=(5, 2))
    G = lc.christoffel_first_kind(q)
    for k in range(5):
        Gs = np.array(arm_sympy["Gamma"](*q[k]), dtype=float)
        assert_allclose(G[k], Gs, atol=1e-9)
        c_ref = np.ravel(arm_sympy["c"](*q[k], *qd[k]))
        assert_allclose(lc.coriolis_matrix(q[k], qd[k]) @ qd[k], c_ref, atol=1e-9)
        assert_allclose(arm.gravity_forces(q[k]), np.ravel(arm_sympy["g"](*q[k])), atol=1e-8)
        assert_allclose(arm.mass_matrix(q[k]), arm_sympy["H"](*q[k]), atol=1e-14)
    assert lc.is_metric_compatible(q)
    assert lc.is_torsion_free(q)


def test_two_link_arm_literal_mass_matrix():
    # hand-derived: m1 = m2 = 1, l1 = 1, lc = 0.5, I = 0.1 at q2 = 0:
    # H11 = 0.25 + (1 + 0.25 + 1) + 0.2 = 2.7, H12 = 0.25 + 0.5 + 0.1 = 0.85, H22 = 0.35
    arm = two_link_arm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    assert_allclose(arm.mass_matrix([0.3, 0.0]), [[2.7, 0.85], [0.85, 0.35]], atol=1e-15)


def test_so3_closed_form_sigma_cross(rng):
    # seed 000 §VI-A1: on SO(3), C* = (Sigma w)x with Sigma = tr(I)/2 1 - I
    I = random_spd(rng, 3)
    lc = LeviCivitaConnection(rigid_body_so3(I))
    w = rng.normal(size=3)
    Sigma = 0.5 * np.trace(I) * np.eye(3) - I
    assert_allclose(lc.coriolis_matrix(SO3.random(rng), w), skew(Sigma @ w), atol=1e-13)


def test_se3_koszul_equals_eq18_and_eq19(rng):
    I = spatial_inertia(1.7, rng.normal(size=3) * 0.3, random_spd(rng, 3) * 0.1)
    lc = LeviCivitaConnection(rigid_body_se3(I))
    v = rng.normal(size=6)
    C = lc.coriolis_matrix(SE3.random(rng), v)
    # eq. (18)
    C18 = 0.5 * (I @ crm(v) + crf(v) @ I + crbar(I @ v))
    assert_allclose(C, C18, atol=1e-13)
    # eq. (19), from the pseudo-inertia J = [[Sigma, h], [h^T, m]]
    J = pseudo_inertia(I)
    Sigma, h, m = J[:3, :3], J[:3, 3], J[3, 3]
    Sw = skew(v[:3])
    C19 = np.block([[skew(Sigma @ v[:3]), skew(h) @ Sw], [-Sw @ skew(h), m * Sw]])
    assert_allclose(C, C19, atol=1e-13)
    # (19) does not depend on the linear velocity
    v2 = v.copy()
    v2[3:] = rng.normal(size=3)
    assert_allclose(lc.coriolis_matrix(np.eye(4), v2), C, atol=1e-13)


@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g.name)
def test_eq9_gamma_minus_symmetric_part_is_half_s(group, rng):
    system = group_system(group, rng)
    q = group.random(rng)
    G = LeviCivitaConnection(system).christoffel_first_kind(q)
    H = system.mass_matrix(q)
    s = group.structure_constants()  # s[j, k, l] = s^l_jk
    s_low = np.einsum("il,jkl->ijk", H, s)
    assert_allclose(G - 0.5 * (G + np.swapaxes(G, 1, 2)), 0.5 * s_low, atol=1e-12)
    assert_allclose(system.structure_constants_lowered(q), s_low, atol=1e-13)


def test_second_kind_and_covariant_derivative(rng):
    system, _ = varying_metric_so3(rng)
    lc = LeviCivitaConnection(system)
    R, v, w, wd = SO3.random(rng), *rng.normal(size=(3, 3))
    G, G2, H = lc.christoffel_first_kind(R), lc.christoffel_second_kind(R), system.mass_matrix(R)
    assert_allclose(np.einsum("il,jkl->ijk", H, G2), G, atol=1e-12)  # G2[j, k, i] = Gamma^i_jk
    # Remark 5: H nabla_v w = H wdot + C(q, v) w
    assert_allclose(
        H @ lc.covariant_derivative(R, v, w, wd), H @ wd + lc.coriolis_matrix(R, v) @ w, atol=1e-12
    )


# ----------------------------------------------------------------------------------------
# Props. III.1/III.2, IV.1/IV.2, Cor. IV.1 with constructed contorsions
# ----------------------------------------------------------------------------------------
def _antisym_13(R):
    return R - np.einsum("...ijk->...kji", R)


def _antisym_23(R):
    return R - np.swapaxes(R, -1, -2)


def _antisym_total(R):
    perms = [("ijk", 1), ("jki", 1), ("kij", 1), ("ikj", -1), ("kji", -1), ("jik", -1)]
    return sum(sgn * np.einsum(f"ijk->{p}", R) for p, sgn in perms) / 6.0


CASES = {  # kind -> (skew Hdot - 2C, C v = C* v)
    "13": (True, False),
    "23": (False, True),
    "total": (True, True),
}


@pytest.mark.parametrize("kind", CASES)
@pytest.mark.parametrize("which", ["se3", "varying_so3", "arm"])
def test_props_iv1_iv2_with_constructed_contorsion(kind, which, rng, arm_sympy):
    if which == "se3":
        system = rigid_body_se3(random_spd(rng, 6))
        q = SE3.random(rng)
    elif which == "varying_so3":
        system, _ = varying_metric_so3(rng)
        q = SO3.random(rng)
    else:
        system = two_link_arm(**ARM_PARAMS)
        q = rng.uniform(-2, 2, size=2)
    n = system.dim
    R = rng.normal(size=(n, n, n))
    D = {"13": _antisym_13, "23": _antisym_23, "total": _antisym_total}[kind](R)
    if kind == "total" and n < 3:  # Cor. III.2: no non-zero totally antisymmetric tensor
        assert np.abs(D).max() < 1e-15 * np.abs(R).max()
    lc = LeviCivitaConnection(system)
    conn = lc + Contorsion(-D)
    v = rng.normal(size=n)
    C, Cs = conn.coriolis_matrix(q, v), lc.coriolis_matrix(q, v)
    # Hdot by central differences of H along the flow q -> flow(q, v, t) (independent FD)
    h = 1e-5
    Hdot = system.mass_matrix(system.flow(q, v, h)) - system.mass_matrix(system.flow(q, v, -h))
    Hdot /= 2 * h
    skew_defect = np.abs(Hdot - C - C.T).max()
    valid_defect = np.abs(C @ v - Cs @ v).max()
    want_skew, want_valid = CASES[kind]
    assert (skew_defect < 1e-7) == want_skew, skew_defect
    assert (valid_defect < 1e-9) == want_valid, valid_defect
    assert bool(conn.is_metric_compatible(q)) == want_skew
    assert bool(conn.has_riemannian_geodesics(q)) == want_valid
    # contorsion with the paper's sign, and back again
    assert_allclose(conn.contorsion(q), D, atol=1e-10)
    assert_allclose((lc - conn)(q), D, atol=1e-10)
    back = lc + (-(lc - conn))
    assert_allclose(back.christoffel_first_kind(q), conn.christoffel_first_kind(q), atol=1e-12)
    report = Contorsion(D).symmetry()
    assert bool(report.antisymmetric_13) == (kind in ("13", "total"))
    assert bool(report.antisymmetric_23) == (kind in ("23", "total"))
    assert bool(report.totally_antisymmetric) == (kind == "total")
    # a non-zero contorsion always has torsion unless it is symmetric in (2, 3); for n = 2 the
    # totally antisymmetric one vanishes and the connection is Levi-Civita (Cor. III.2)
    assert bool(conn.is_torsion_free(q)) == (kind == "total" and n < 3)


def _admissible_null_space(system, q):
    """All Gamma with C v = c(q, v) (sym. part fixed) and Hdot = C + C^T: homogeneous solutions."""
    n = system.dim
    rows = []
    idx = np.arange(n**3).reshape(n, n, n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                r = np.zeros(n**3)  # G_ijk + G_ikj = 0   (C v = 0 for all v)
                r[idx[i, j, k]] += 1
                r[idx[i, k, j]] += 1
                rows.append(r)
                r = np.zeros(n**3)  # G_ijk + G_kji = 0   (C + C^T = 0 for all v)
                r[idx[i, j, k]] += 1
                r[idx[k, j, i]] += 1
                rows.append(r)
    return null_space(np.array(rows))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_cor_iii2_dimension_of_admissible_family(n):
    # the homogeneous solutions are exactly the totally antisymmetric tensors: comb(n, 3)
    N = _admissible_null_space(point_mass(dim=n), np.zeros(n))
    assert N.shape[1] == comb(n, 3)
    if n >= 3:
        # and eq. (12)'s basis spans them
        B = np.stack([Contorsion.totally_antisymmetric(e)().ravel() for e in np.eye(comb(n, 3))], 1)
        assert np.linalg.matrix_rank(np.hstack([N, B]), tol=1e-10) == comb(n, 3)


def test_cor_iii2_unique_for_arm(arm_sympy, rng):
    # n = 2: the admissible factorization is unique and equals C* (sympy Christoffel symbols)
    arm = two_link_arm(**ARM_PARAMS)
    q = rng.uniform(-2, 2, size=2)
    assert _admissible_null_space(arm, q).shape[1] == 0
    Gs = np.array(arm_sympy["Gamma"](*q), dtype=float)
    G = LeviCivitaConnection(arm).christoffel_first_kind(q)
    assert_allclose(G, Gs, atol=1e-9)


def test_point_mass_beta_cross(rng):
    # A2: C = beta(q) (v x) on a point mass, with beta a function of the configuration
    pm = point_mass(2.0)
    lc = LeviCivitaConnection(pm)
    K = Contorsion.totally_antisymmetric(lambda q: np.sin(q[..., :1]) + 2.0, dim=3)
    conn = lc + K
    q, v = rng.normal(size=3), rng.normal(size=3)
    beta = np.sin(q[0]) + 2.0
    assert_allclose(conn.coriolis_matrix(q, v), beta * skew(v), atol=1e-14)
    assert_allclose(conn.coriolis_matrix(q, v) @ v, 0.0, atol=1e-13)
    assert conn.is_metric_compatible(q) and conn.has_riemannian_geodesics(q)
    # T^i_jk = Gamma^i_jk - Gamma^i_kj = 2 beta eps_ijk / m (seed 000: beta = -5, m = 1 -> -10 eps)
    assert_allclose(conn.torsion(q), 2.0 * beta * EPS / 2.0, atol=1e-14)
    assert_allclose(conn.contorsion(q), -beta * EPS, atol=1e-14)


def test_eq12_family_for_n4(rng):
    # every member of eq. (12) is skew and valid on a 4-DoF system
    system = rigid_body_schoenflies(random_spd(rng, 4))
    beta = rng.normal(size=4)
    conn = LeviCivitaConnection(system) + Contorsion.totally_antisymmetric(beta)
    q, v = system.random_configuration(rng), rng.normal(size=4)
    C = conn.coriolis_matrix(q, v)
    assert_allclose(C + C.T, 0.0, atol=1e-12)
    Cs = LeviCivitaConnection(system).coriolis_matrix(q, v)
    assert_allclose(C @ v, Cs @ v, atol=1e-12)
    # literal eq. (12): sum beta_abc S^T (S v x) S
    expected = Cs.copy()
    for b, (a1, a2, a3) in zip(beta, [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)], strict=True):
        S = np.eye(4)[[a1, a2, a3]]
        expected += b * S.T @ skew(S @ v) @ S
    assert_allclose(C, expected, atol=1e-12)


# ----------------------------------------------------------------------------------------
# Cartan–Schouten
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g.name)
def test_cartan_schouten_torsion(group, rng):
    system = group_system(group, rng)
    q = group.random(rng)
    s_up = group.structure_constants()  # s[j, k, i] = s^i_jk, the layout of the torsion
    for kind, sign in (("cartan-minus", -1.0), ("cartan-zero", 0.0), ("cartan-plus", 1.0)):
        conn = CartanSchoutenConnection(system, kind)
        assert_allclose(conn.torsion(q), sign * s_up, atol=1e-12)
        assert bool(conn.is_torsion_free(q)) == (kind == "cartan-zero" or not s_up.any())


@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g.name)
@pytest.mark.parametrize("kind", ["cartan-minus", "cartan-zero", "cartan-plus"])
def test_cartan_schouten_geodesics_are_one_parameter_subgroups(group, kind, rng):
    conn = CartanSchoutenConnection(group_system(group, rng), kind)
    xi = rng.normal(size=group.dim)
    t = np.linspace(0.0, 2.0, 5)
    traj = conn.geodesic(group.identity(), xi, t)
    assert_allclose(traj.q, group.exp(t[:, None] * xi), atol=1e-9)
    assert_allclose(traj.v, np.broadcast_to(xi, traj.v.shape), atol=1e-10)


def test_cartan_schouten_zero_is_levi_civita_for_biinvariant_so3(rng):
    body = rigid_body_so3(2.5 * np.eye(3))
    R = SO3.random(rng)
    G0 = CartanSchoutenConnection(body, "cartan-zero").christoffel_first_kind(R)
    assert_allclose(G0, LeviCivitaConnection(body).christoffel_first_kind(R), atol=1e-14)
    assert_allclose(G0, 0.5 * 2.5 * EPS, atol=1e-14)
    # ... but not for an anisotropic inertia
    body = rigid_body_so3(np.diag([1.0, 2.0, 3.0]))
    assert not CartanSchoutenConnection(body, "cartan-zero").has_riemannian_geodesics(R)


# ----------------------------------------------------------------------------------------
# frames, structure constants and Lie derivatives
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("group", GROUPS, ids=lambda g: g.name)
@pytest.mark.parametrize("side", ["left", "right"])
def test_structure_constants_equal_fd_vector_field_bracket(group, side, rng):
    # [X, Y] = DY.X - DX.Y on the matrix group, X_i(g) = g E_i (left) or E_i g (right)
    frame_cls = {"left": None, "right": RightInvariantFrame}[side]
    system = MechanicalSystem(
        group, np.eye(group.dim), frame=None if frame_cls is None else frame_cls(group)
    )
    g = group.random(rng)
    E = group.hat(np.eye(group.dim))

    def field(i, x):
        return x @ E[i] if side == "left" else E[i] @ x

    h = 1e-6
    s = system.structure_constants(g)
    for i in range(group.dim):
        for j in range(group.dim):

            def D(a, b):  # derivative of field a along field b at g
                gp = g @ expm(h * E[b]) if side == "left" else expm(h * E[b]) @ g
                gm = g @ expm(-h * E[b]) if side == "left" else expm(-h * E[b]) @ g
                return (field(a, gp) - field(a, gm)) / (2 * h)

            bracket = D(j, i) - D(i, j)
            expected = sum(s[i, j, k] * field(k, g) for k in range(group.dim))
            assert_allclose(bracket, expected, atol=1e-8)


def test_lie_derivative_exact_function_on_so3(rng):
    # f(R) = tr(A R) has L_{X_k} f = tr(A R E_k)
    A = rng.normal(size=(3, 3))
    system = rigid_body_so3(np.eye(3))
    R = SO3.random(rng, 4)
    L = system.lie_derivative(lambda R: np.einsum("ij,...ji->...", A, R), R)
    E = SO3.hat(np.eye(3))
    expected = np.einsum("ij,...jl,kli->...k", A, R, E)
    assert L.shape == (4, 3)
    assert_allclose(L, expected, atol=1e-10)


def test_mass_matrix_derivative_against_references(rng, arm_sympy):
    # arm: sympy dH/dt = sum_k dH/dq_k qd_k
    arm = two_link_arm(**ARM_PARAMS)
    q, qd = rng.normal(size=2), rng.normal(size=2)
    assert_allclose(arm.mass_matrix_derivative(q, qd), arm_sympy["Hdot"](*q, *qd), atol=1e-9)
    # varying SO(3) metric: d/dt H(R expm(t v^)) by an independent expm central difference
    system, H = varying_metric_so3(rng)
    R, v = SO3.random(rng), rng.normal(size=3)
    h = 1e-5
    ref = (H(R @ expm(h * skew(v))) - H(R @ expm(-h * skew(v)))) / (2 * h)
    assert_allclose(system.mass_matrix_derivative(R, v), ref, atol=1e-8)
    # constant metric: exactly zero
    body = rigid_body_se3(random_spd(rng, 6))
    assert not body.mass_matrix_derivative(SE3.random(rng), rng.normal(size=6)).any()


def test_batched_evaluation_matches_loop(rng):
    system, _ = varying_metric_so3(rng)
    conn = LeviCivitaConnection(system) + Contorsion.totally_antisymmetric([0.7])
    R = SO3.random(rng, (2, 3))
    v = rng.normal(size=(2, 3, 3))
    C = conn.coriolis_matrix(R, v)
    T = conn.torsion(R)
    assert C.shape == (2, 3, 3, 3) and T.shape == (2, 3, 3, 3, 3)
    for a in range(2):
        for b in range(3):
            assert_allclose(C[a, b], conn.coriolis_matrix(R[a, b], v[a, b]), atol=1e-12)
            assert_allclose(T[a, b], conn.torsion(R[a, b]), atol=1e-12)


def test_connection_algebra_and_euclidean_coordinates(rng):
    system = MechanicalSystem(Euclidean(3), np.eye(3))
    A = AffineConnection(system, rng.normal(size=(3, 3, 3)))
    B = AffineConnection(
        system, lambda q: np.einsum("...i,jkl->...jkl", q[..., :1], np.ones((3, 3, 3)))
    )
    q = rng.normal(size=3)
    assert_allclose((A - B)(q), A.christoffel_first_kind(q) - B.christoffel_first_kind(q))
    assert_allclose((B + (A - B)).christoffel_first_kind(q), A.christoffel_first_kind(q))
    K = Contorsion(np.ones((3, 3, 3)))
    assert_allclose((A - K).christoffel_first_kind(q), A.christoffel_first_kind(q) - 1.0)
    assert_allclose((2 * K - K)(), np.ones((3, 3, 3)))
