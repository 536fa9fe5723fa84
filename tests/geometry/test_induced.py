"""Induced connections and the transformation law (seed 000 §V) against independent references.

References (never the code's own output):
- hand-derived polar-coordinate Christoffel matrix (transformation law, literal values);
- Euler-Lagrange / Christoffel symbols of H_bar = A^T H A built in the test from the analytic
  embedding and differentiated by central differences in the test;
- the library's Koszul formula (LeviCivitaConnection) on an independently assembled system;
- A_dot by central differences of the analytic Jacobian along the coordinate flow;
- the Lie-group right Jacobian (geomech.lie) for embeddings into SE(3);
- subgroup Koszul / Cartan-Schouten connections of SE(2), Schoenflies (seed 000 §VI-A1).
"""

from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from geomech.errors import (
    ConnectionSpecError,
    DimensionError,
    GeomechError,
    InertiaError,
    SingularityError,
)
from geomech.geometry import (
    CartanSchoutenConnection,
    Contorsion,
    CustomFrame,
    InducedConnection,
    LeviCivitaConnection,
    MechanicalSystem,
    transform_coriolis,
)
from geomech.geometry.examples import point_mass, rigid_body_schoenflies, rigid_body_se2
from geomech.lie import SE2, SE3, Euclidean, Schoenflies

N_AMB, M_SUB = 4, 2


# ----------------------------------------------------------------------------------------
# fixtures: a non-flat ambient R^4 and a curved embedded surface R^2 -> R^4
# ----------------------------------------------------------------------------------------
def _ambient_metric(seed=7, n=N_AMB):
    rng = np.random.default_rng(seed)
    L0 = rng.normal(size=(n, n))
    Ls = 0.3 * rng.normal(size=(n, n, n))
    ph = rng.uniform(0, 2 * np.pi, size=n)

    def H(q):
        L = L0 + np.einsum("...k,kij->...ij", np.sin(q + ph), Ls)
        return L @ np.swapaxes(L, -1, -2) + np.eye(n)

    return H


def _embedding(seed=11, n=N_AMB, m=M_SUB):
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(n, m))
    N = rng.normal(size=(n, m))
    b = rng.uniform(0, 2 * np.pi, size=n)

    def phi(x):
        return np.einsum("im,...m->...i", M, x) + 0.3 * np.sin(np.einsum("im,...m->...i", N, x) + b)

    def jac(x):
        c = np.cos(np.einsum("im,...m->...i", N, x) + b)
        return M + 0.3 * c[..., :, None] * N

    return phi, jac


H_AMB = _ambient_metric()
PHI, JAC = _embedding()


def _random_tensor(seed, n=N_AMB):
    return np.random.default_rng(seed).normal(size=(n, n, n))


def _ambient_connections():
    system = MechanicalSystem(Euclidean(N_AMB), H_AMB)
    lc = LeviCivitaConnection(system)
    R = _random_tensor(3)
    beta = np.random.default_rng(4).normal(size=comb(N_AMB, 3))
    # name -> (connection, metric compatible, Riemannian geodesics, Levi-Civita)
    return {
        "levi-civita": (lc, True, True, True),
        "metric-compatible": (lc + (R - np.einsum("ijk->kji", R)), True, False, False),
        "geodesic-agreeing": (lc + (R - np.swapaxes(R, 1, 2)), False, True, False),
        "skew-and-correct": (lc + Contorsion.totally_antisymmetric(beta), True, True, False),
        "generic": (lc + R, False, False, False),
    }


CONNECTIONS = _ambient_connections()


def _points(rng, size):
    return rng.uniform(-1.0, 1.0, size=(size, M_SUB))


def _H_bar(x):
    """A^T H(phi) A, built in the test from the analytic embedding."""
    A = JAC(x)
    return np.swapaxes(A, -1, -2) @ H_AMB(PHI(x)) @ A


def _dH_bar_fd(x, h=1e-5):
    """dH[..., k, i, j] = d H_bar_ij / d x_k, central differences."""
    E = np.eye(M_SUB)
    return np.stack(
        [(_H_bar(x + h * E[k]) - _H_bar(x - h * E[k])) / (2 * h) for k in range(M_SUB)], -3
    )


def _christoffel_fd(x):
    """First-kind Christoffel symbols of H_bar in coordinates (eq. 5), from the FD above."""
    dH = _dH_bar_fd(x)  # [k, i, j]
    return 0.5 * (np.einsum("...kij->...ijk", dH) + np.einsum("...jik->...ijk", dH) - dH)


def _induced(name):
    return InducedConnection(CONNECTIONS[name][0], A=JAC, embedding=PHI, manifold=Euclidean(M_SUB))


# ----------------------------------------------------------------------------------------
# transform_coriolis: literal values and batching
# ----------------------------------------------------------------------------------------
def _polar(r, th, r_dot, th_dot):
    A = np.array([[np.cos(th), -r * np.sin(th)], [np.sin(th), r * np.cos(th)]])
    A_dot = np.array(
        [
            [-np.sin(th) * th_dot, -r_dot * np.sin(th) - r * np.cos(th) * th_dot],
            [np.cos(th) * th_dot, r_dot * np.cos(th) - r * np.sin(th) * th_dot],
        ]
    )
    return A, A_dot


def test_transform_coriolis_polar_coordinates_literal():
    """Cartesian -> polar: C_bar = [[0, -r th_dot], [r th_dot, r r_dot]], H_bar = diag(1, r^2)."""
    r, th, r_dot, th_dot = 1.7, 0.6, -0.4, 1.3
    A, A_dot = _polar(r, th, r_dot, th_dot)
    H_bar, C_bar = transform_coriolis(2.0 * np.eye(2), np.zeros((2, 2)), A, A_dot)
    assert_allclose(H_bar, 2.0 * np.diag([1.0, r**2]), atol=1e-15)
    assert_allclose(
        C_bar, 2.0 * np.array([[0.0, -r * th_dot], [r * th_dot, r * r_dot]]), atol=1e-15
    )


def test_transform_coriolis_is_batched(rng):
    n, m = 4, 2
    H = np.stack(
        [np.eye(n) + 0.1 * (lambda B: B @ B.T)(rng.normal(size=(n, n))) for _ in range(6)]
    ).reshape(2, 3, n, n)
    C = rng.normal(size=(2, 3, n, n))
    A = rng.normal(size=(2, 3, n, m))
    A_dot = rng.normal(size=(n, m))  # broadcast
    H_bar, C_bar = transform_coriolis(H, C, A, A_dot)
    assert H_bar.shape == C_bar.shape == (2, 3, m, m)
    for i in range(2):
        for j in range(3):
            Hb, Cb = transform_coriolis(H[i, j], C[i, j], A[i, j], A_dot)
            assert_allclose(H_bar[i, j], Hb, rtol=1e-14)
            assert_allclose(C_bar[i, j], Cb, rtol=1e-14)
            assert_allclose(
                Cb, A[i, j].T @ C[i, j] @ A[i, j] + A[i, j].T @ H[i, j] @ A_dot, rtol=1e-14
            )


# ----------------------------------------------------------------------------------------
# the coefficient form equals eq. (17) with an independently differentiated A
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(CONNECTIONS))
def test_coefficients_match_transformation_law(name, rng):
    conn, *_ = CONNECTIONS[name]
    induced = _induced(name)
    x = _points(rng, 5)
    vbar = rng.normal(size=(5, M_SUB))
    h = 1e-6
    A = JAC(x)
    A_dot = (JAC(x + h * vbar) - JAC(x - h * vbar)) / (2 * h)  # along the coordinate flow
    v = np.einsum("...im,...m->...i", A, vbar)
    C = conn.coriolis_matrix(PHI(x), v)
    _H_bar_ref, C_bar_ref = transform_coriolis(H_AMB(PHI(x)), C, A, A_dot)
    assert_allclose(induced.coriolis_matrix(x, vbar), C_bar_ref, atol=1e-8)
    assert_allclose(induced.system.mass_matrix(x), _H_bar(x), atol=1e-12)
    assert_allclose(induced.velocity_map_derivative(x, vbar), A_dot, atol=1e-8)


# ----------------------------------------------------------------------------------------
# Props. V.1-V.3 (and the negative controls)
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(CONNECTIONS))
def test_prop_V1_skew_symmetry_is_inherited(name, rng):
    """H_bar_dot - 2 C_bar is skew iff the ambient connection is metric compatible."""
    _conn, compatible, _geo, _lc = CONNECTIONS[name]
    induced = _induced(name)
    x = _points(rng, 4)
    vbar = rng.normal(size=(4, M_SUB))
    H_dot = np.einsum("...kij,...k->...ij", _dH_bar_fd(x), vbar)
    C_bar = induced.coriolis_matrix(x, vbar)
    defect = np.abs(H_dot - C_bar - np.swapaxes(C_bar, -1, -2)).max()
    if compatible:
        assert defect < 1e-8
        assert induced.is_metric_compatible(x)
    else:
        assert defect > 1e-2
        assert not induced.is_metric_compatible(x)


@pytest.mark.parametrize("name", list(CONNECTIONS))
def test_prop_V2_correct_dynamics_are_inherited(name, rng):
    """C_bar v_bar equals the Euler-Lagrange bias of (R^2, H_bar) iff C v = C* v on Q."""
    _conn, _comp, geodesic, _lc = CONNECTIONS[name]
    induced = _induced(name)
    x = _points(rng, 4)
    vbar = rng.normal(size=(4, M_SUB))
    dH = _dH_bar_fd(x)
    # Euler-Lagrange: c_i = (d_k H_ij) v^k v^j - 1/2 (d_i H_jk) v^j v^k
    c_ref = np.einsum("...kij,...k,...j->...i", dH, vbar, vbar) - 0.5 * np.einsum(
        "...ijk,...j,...k->...i", dH, vbar, vbar
    )
    c = np.einsum("...ik,...k->...i", induced.coriolis_matrix(x, vbar), vbar)
    defect = np.abs(c - c_ref).max()
    if geodesic:
        assert defect < 1e-8
        assert induced.has_riemannian_geodesics(x)
    else:
        assert defect > 1e-2
        assert not induced.has_riemannian_geodesics(x)


@pytest.mark.parametrize("name", list(CONNECTIONS))
def test_prop_V3_levi_civita_is_inherited(name, rng):
    """Inducing from Levi-Civita gives the Levi-Civita connection of (Q_bar, H_bar).

    On the 2-D submanifold the skew-and-correct connection induces it too (Cor. III.2).
    """
    _conn, compatible, geodesic, is_lc = CONNECTIONS[name]
    induced = _induced(name)
    x = _points(rng, 4)
    G = induced.christoffel_first_kind(x)
    G_fd = _christoffel_fd(x)
    koszul = LeviCivitaConnection(MechanicalSystem(Euclidean(M_SUB), _H_bar))
    G_koszul = koszul.christoffel_first_kind(x)
    assert_allclose(G_koszul, G_fd, atol=1e-8)
    if is_lc or (compatible and geodesic):
        assert_allclose(G, G_fd, atol=1e-8)
        assert_allclose(G, G_koszul, atol=1e-8)
    else:
        assert np.abs(G - G_koszul).max() > 1e-2


@pytest.mark.parametrize("name", list(CONNECTIONS))
def test_contorsion_transforms_as_a_tensor(name, rng):
    """D_bar_ijk = A^a_i A^b_j A^c_k D_abc (the inhomogeneous term cancels)."""
    conn, *_ = CONNECTIONS[name]
    x = _points(rng, 3)
    A = JAC(x)
    D = conn.contorsion(PHI(x))  # ambient D = Gamma* - Gamma
    D_bar = _induced(name).contorsion(x)  # w.r.t. the Koszul connection of (Q_bar, H_bar)
    assert_allclose(D_bar, np.einsum("...ai,...bj,...ck,...abc->...ijk", A, A, A, D), atol=1e-8)


def test_totally_antisymmetric_contorsion_vanishes_on_a_surface(rng):
    """A 3-form restricted to a 2-D submanifold is zero (Cor. III.2): skew + correct => C*."""
    x = _points(rng, 3)
    induced = _induced("skew-and-correct")
    assert np.abs(CONNECTIONS["skew-and-correct"][0].contorsion(PHI(x))).max() > 0.1
    assert_allclose(induced.christoffel_first_kind(x), _christoffel_fd(x), atol=1e-8)


# ----------------------------------------------------------------------------------------
# numerical Jacobian of the embedding, and batching of the connection
# ----------------------------------------------------------------------------------------
def test_numerical_jacobian_of_embedding_matches_supplied(rng):
    x = _points(rng, 6)
    supplied = _induced("metric-compatible")
    numeric = InducedConnection(
        CONNECTIONS["metric-compatible"][0], embedding=PHI, manifold=Euclidean(M_SUB)
    )
    assert_allclose(numeric.velocity_map(x), JAC(x), atol=1e-11)
    assert_allclose(
        numeric.christoffel_first_kind(x), supplied.christoffel_first_kind(x), atol=1e-8
    )


def test_supplied_A_dot_is_used(rng):
    h = 1e-6

    def A_dot(x, vbar):
        return (JAC(x + h * vbar) - JAC(x - h * vbar)) / (2 * h)

    x = _points(rng, 3)
    with_dot = InducedConnection(
        CONNECTIONS["levi-civita"][0], A=JAC, embedding=PHI, manifold=Euclidean(M_SUB), A_dot=A_dot
    )
    assert_allclose(
        with_dot.christoffel_first_kind(x),
        _induced("levi-civita").christoffel_first_kind(x),
        atol=1e-8,
    )


def test_induced_connection_is_batched(rng):
    induced = _induced("generic")
    x = rng.uniform(-1, 1, size=(2, 3, M_SUB))
    v = rng.normal(size=(2, 3, M_SUB))
    G = induced.christoffel_first_kind(x)
    C = induced.coriolis_matrix(x, v)
    assert G.shape == (2, 3, M_SUB, M_SUB, M_SUB)
    for i in range(2):
        for j in range(3):
            assert_allclose(G[i, j], induced.christoffel_first_kind(x[i, j]), atol=1e-12)
            assert_allclose(C[i, j], induced.coriolis_matrix(x[i, j], v[i, j]), atol=1e-12)


def test_potential_is_pulled_back():
    pot = MechanicalSystem(Euclidean(3), np.eye(3), potential=lambda q: 9.81 * q[..., 2])
    induced = InducedConnection(
        LeviCivitaConnection(pot),
        embedding=lambda x: np.stack([np.cos(x[..., 0]), np.sin(x[..., 0]), x[..., 0]], -1),
        manifold=Euclidean(1),
    )
    assert_allclose(induced.system.potential(np.array([0.7])), 9.81 * 0.7)


# ----------------------------------------------------------------------------------------
# non-coordinate frames: embeddings into SE(3)
# ----------------------------------------------------------------------------------------
def _se3_body(seed=5):
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(6, 6))
    return MechanicalSystem(SE3, B @ B.T + 6 * np.eye(6))


def test_embedding_into_se3_gives_koszul_of_pullback(rng):
    """T(x) = exp(xi(x)): A = J_r(xi) dxi/dx (body Jacobian); Prop. V.3 with structure constants."""
    body = _se3_body()
    Bm = rng.normal(size=(6, 2))
    Nm = rng.normal(size=(6, 2))

    def xi(x):
        return np.einsum("im,...m->...i", Bm, x) + 0.2 * np.sin(np.einsum("im,...m->...i", Nm, x))

    def dxi(x):
        c = np.cos(np.einsum("im,...m->...i", Nm, x))
        return Bm + 0.2 * c[..., :, None] * Nm

    def A_ref(x):
        return SE3.right_jacobian(xi(x)) @ dxi(x)

    I = body.mass_matrix(SE3.identity())
    induced = InducedConnection(
        LeviCivitaConnection(body), embedding=lambda x: SE3.exp(xi(x)), manifold=Euclidean(2)
    )
    x = rng.uniform(-0.5, 0.5, size=(3, 2))
    assert_allclose(induced.velocity_map(x), A_ref(x), atol=1e-10)
    reference = LeviCivitaConnection(
        MechanicalSystem(Euclidean(2), lambda x: np.swapaxes(A_ref(x), -1, -2) @ I @ A_ref(x))
    )
    assert_allclose(
        induced.christoffel_first_kind(x), reference.christoffel_first_kind(x), atol=1e-7
    )


def _se2_in_se3(g):
    """SE(2) matrix (..., 3, 3) -> SE(3) matrix (..., 4, 4) in the plane z = 0."""
    T = np.zeros(g.shape[:-2] + (4, 4))
    T[..., :2, :2] = g[..., :2, :2]
    T[..., 2, 2] = T[..., 3, 3] = 1.0
    T[..., :2, 3] = g[..., :2, 2]
    return T


SUBGROUPS = {
    "SE2": (SE2, _se2_in_se3, [2, 3, 4], rigid_body_se2),
    "Schoenflies": (Schoenflies, lambda g: g, [2, 3, 4, 5], rigid_body_schoenflies),
}


# a numerical Jacobian of the embedding (log of SE(3)) differentiated again: ~1e-9 (module doc)
JACOBIAN_TOL = {"numerical": 1e-8, "constant": 1e-12}


@pytest.mark.parametrize("jacobian", list(JACOBIAN_TOL))
@pytest.mark.parametrize("sub", list(SUBGROUPS))
def test_subgroup_levi_civita(sub, jacobian, rng):
    """S^T C(S v) S is the Koszul connection of the subgroup with H_bar = S^T I S (§VI-A1)."""
    group, embed, rows, make = SUBGROUPS[sub]
    body = _se3_body()
    I = body.mass_matrix(SE3.identity())
    S = np.eye(6)[:, rows]
    A = S if jacobian == "constant" else None
    induced = InducedConnection(LeviCivitaConnection(body), A=A, embedding=embed, manifold=group)
    g = group.random(rng, 4)
    assert_allclose(induced.velocity_map(g), np.broadcast_to(S, (4, 6, len(rows))), atol=1e-11)
    reference = LeviCivitaConnection(make(I))
    assert_allclose(
        induced.christoffel_first_kind(g),
        reference.christoffel_first_kind(g),
        atol=JACOBIAN_TOL[jacobian],
    )
    v = rng.normal(size=len(rows))
    assert_allclose(
        induced.coriolis_matrix(g[0], v),
        S.T @ LeviCivitaConnection(body).coriolis_matrix(embed(g[0]), S @ v) @ S,
        atol=JACOBIAN_TOL[jacobian],
    )


@pytest.mark.parametrize("kind", ["cartan-minus", "cartan-zero", "cartan-plus"])
@pytest.mark.parametrize("sub", list(SUBGROUPS))
def test_subgroup_cartan_schouten(sub, kind, rng):
    """Cartan-Schouten connections restrict to the subgroup's (a subalgebra is closed under [,])."""
    group, embed, rows, make = SUBGROUPS[sub]
    body = _se3_body()
    I = body.mass_matrix(SE3.identity())
    induced = InducedConnection(
        CartanSchoutenConnection(body, kind), embedding=embed, manifold=group
    )
    g = group.random(rng, 3)
    reference = CartanSchoutenConnection(make(I), kind)
    assert_allclose(
        induced.christoffel_first_kind(g),
        reference.christoffel_first_kind(g),
        atol=JACOBIAN_TOL["numerical"],
    )
    assert bool(induced.is_torsion_free(g)) == (kind == "cartan-zero")


# ----------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------
def test_transform_coriolis_validation():
    H, C, A, A_dot = np.eye(3), np.zeros((3, 3)), np.ones((3, 2)), np.zeros((3, 2))
    A[:, 1] = [1.0, 2.0, 3.0]
    with pytest.raises(DimensionError, match=r"`A` to have n = 3 rows.*got shape \(2, 2\)"):
        transform_coriolis(H, C, np.eye(2), np.zeros((2, 2)))
    with pytest.raises(
        SingularityError,
        match=r"`A` to have full column rank 2, got smallest "
        r"singular value .*e-1\d",
    ):
        transform_coriolis(H, C, np.ones((3, 2)), A_dot)
    with pytest.raises(
        SingularityError, match=r"`A` to have full column rank 4, got 3 rows \(< 4\)"
    ):
        transform_coriolis(H, C, np.ones((3, 4)), np.zeros((3, 4)))
    with pytest.raises(DimensionError, match=r"`C` to have shape \(\.\.\., 3, 3\), got \(2, 2\)"):
        transform_coriolis(H, np.zeros((2, 2)), A, A_dot)
    with pytest.raises(DimensionError, match=r"`A_dot` to have shape \(\.\.\., 3, 2\)"):
        transform_coriolis(H, C, A, np.zeros((3, 3)))
    with pytest.raises(DimensionError, match=r"`H` to have shape \(\.\.\., n, n\)"):
        transform_coriolis(np.ones((3, 2)), C, A, A_dot)
    with pytest.raises(DimensionError, match=r"`H` to have shape \(\.\.\., rows, cols\)"):
        transform_coriolis(np.ones(3), C, A, A_dot)
    with pytest.raises(DimensionError, match=r"batch\) dimensions of `C`, `H`, `A`, `A_dot`"):
        transform_coriolis(np.broadcast_to(H, (5, 3, 3)), np.zeros((4, 3, 3)), A, A_dot)
    with pytest.raises(InertiaError, match="`H` to be positive definite"):
        transform_coriolis(-H, C, A, A_dot)
    with pytest.raises(GeomechError, match="`A_dot` to be finite"):
        transform_coriolis(H, C, A, np.full((3, 2), np.nan))


def test_induced_connection_construction_validation():
    lc = LeviCivitaConnection(point_mass())
    with pytest.raises(ConnectionSpecError, match="`connection` to be an AffineConnection"):
        InducedConnection("point mass", A=np.eye(3)[:, :2], manifold=Euclidean(2))
    # a system stands for its Levi-Civita connection
    x = np.array([0.3, -0.2, 0.5])
    a = InducedConnection(point_mass(), A=np.eye(3), manifold=Euclidean(3))
    b = InducedConnection(lc, A=np.eye(3), manifold=Euclidean(3))
    np.testing.assert_array_equal(a.christoffel_first_kind(x), b.christoffel_first_kind(x))
    with pytest.raises(ConnectionSpecError, match="velocity map `A` or an `embedding`"):
        InducedConnection(lc, manifold=Euclidean(2))
    with pytest.raises(ConnectionSpecError, match="`frame` or `manifold`"):
        InducedConnection(lc, A=np.eye(3)[:, :2])
    with pytest.raises(ConnectionSpecError, match="`manifold` to be a geomech.lie.LieGroup"):
        InducedConnection(lc, A=np.eye(3)[:, :2], manifold="plane")
    with pytest.raises(ConnectionSpecError, match="`embedding` to be callable"):
        InducedConnection(lc, embedding=np.zeros(3), manifold=Euclidean(2))
    with pytest.raises(ConnectionSpecError, match="`A_dot` to be callable"):
        InducedConnection(lc, A=JAC, embedding=PHI, manifold=Euclidean(2), A_dot=1.0)
    with pytest.raises(ConnectionSpecError, match="`step` to be a positive float"):
        InducedConnection(lc, embedding=PHI, manifold=Euclidean(2), step=-1.0)
    with pytest.raises(DimensionError, match=r"`A` to have shape \(3, 2\) \(n = 3 ambient speeds"):
        InducedConnection(lc, A=np.eye(2), embedding=PHI, manifold=Euclidean(2))
    with pytest.raises(
        SingularityError,
        match="`A` to have full column rank 2, got smallest "
        r"singular value \d\.\d+e-1\d",
    ):
        InducedConnection(lc, A=np.ones((3, 2)), embedding=PHI, manifold=Euclidean(2))
    with pytest.raises(DimensionError, match=r"points of the ambient manifold \(shape \(3,\)\)"):
        InducedConnection(lc, A=np.eye(3)[:, :2], manifold=Euclidean(2))
    flat = CustomFrame(3, (3,), lambda q, w, t: q + np.asarray(t)[..., None] * w)
    custom = LeviCivitaConnection(MechanicalSystem(None, np.eye(3), frame=flat))
    with pytest.raises(
        ConnectionSpecError,
        match="Jacobian `A` of the embedding: the ambient frame .* has no chart inverse",
    ):
        InducedConnection(
            custom, embedding=lambda x: np.concatenate([x, x[..., :1]], -1), manifold=Euclidean(2)
        )


def test_induced_connection_evaluation_validation():
    lc = LeviCivitaConnection(point_mass())
    x = np.array([0.1, 0.2])
    wrong_rows = InducedConnection(
        lc,
        A=lambda x: np.ones(x.shape[:-1] + (2, 2)),
        embedding=lambda x: np.concatenate([x, x[..., :1]], -1),
        manifold=Euclidean(2),
    )
    with pytest.raises(DimensionError, match=r"`A\(q\)` to have shape \(3, 2\) \(n = 3 rows"):
        wrong_rows.christoffel_first_kind(x)
    deficient = InducedConnection(
        lc,
        A=lambda x: np.ones(x.shape[:-1] + (3, 2)),
        embedding=lambda x: np.concatenate([x, x[..., :1]], -1),
        manifold=Euclidean(2),
    )
    with pytest.raises(
        SingularityError,
        match=r"`A\(q\)` to have full column rank 2, got "
        r"smallest singular value",
    ):
        deficient.system.mass_matrix(x)
    bad_embedding = InducedConnection(lc, embedding=lambda x: x, manifold=Euclidean(2))
    with pytest.raises(DimensionError, match=r"`embedding\(q\)` to have shape \(3,\)"):
        bad_embedding.ambient_point(x)
    bad_dot = InducedConnection(
        lc,
        A=lambda x: np.broadcast_to(np.eye(3)[:, :2], x.shape[:-1] + (3, 2)),
        embedding=lambda x: np.concatenate([x, 0 * x[..., :1]], -1),
        manifold=Euclidean(2),
        A_dot=lambda x, v: np.zeros((2, 2)),
    )
    with pytest.raises(DimensionError, match=r"`A_dot\(q, v\)` to have shape \(3, 2\)"):
        bad_dot.christoffel_first_kind(x)
    with pytest.raises(DimensionError, match=r"`v` to have shape \(\.\.\., 2\)"):
        bad_dot.velocity_map_derivative(x, [1.0, 2.0, 3.0])


# ----------------------------------------------------------------------------------------
# algebraic properties of eq. (17), for arbitrary arrays (hypothesis)
# ----------------------------------------------------------------------------------------
def _arrays(seed, n, m):
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(n, n))
    H = B @ B.T + n * np.eye(n)
    S = rng.normal(size=(n, n))
    return (H, S + S.T, rng.normal(size=(n, n)), rng.normal(size=(n, m)), rng.normal(size=(n, m)))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 6), m=st.integers(1, 6))
def test_prop_V1_proof_identity(seed, n, m):
    """H_bar_dot - C_bar - C_bar^T = A^T (H_dot - C - C^T) A, with H_bar_dot = A_dot^T H A +
    A^T H_dot A + A^T H A_dot (the proof's second line needs -A_dot^T H A: digest erratum 3)."""
    m = min(m, n)
    H, H_dot, C, A, A_dot = _arrays(seed, n, m)
    H_bar, C_bar = transform_coriolis(H, C, A, A_dot)
    H_bar_dot = A_dot.T @ H @ A + A.T @ H_dot @ A + A.T @ H @ A_dot
    assert_allclose(
        H_bar_dot - C_bar - C_bar.T,
        A.T @ (H_dot - C - C.T) @ A,
        atol=1e-10 * (1 + np.abs(H_bar_dot).max()),
    )


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 6), data=st.data())
def test_transformation_law_composes(seed, n, data):
    """Inducing in two steps (A1 then A2) equals inducing with A1 A2, d(A1 A2) = A1' A2 + A1 A2'."""
    m1 = data.draw(st.integers(1, n))
    m2 = data.draw(st.integers(1, m1))
    H, _S, C, A1, A1_dot = _arrays(seed, n, m1)
    rng = np.random.default_rng(seed + 1)
    A2, A2_dot = rng.normal(size=(m1, m2)), rng.normal(size=(m1, m2))
    H1, C1 = transform_coriolis(H, C, A1, A1_dot)
    H2, C2 = transform_coriolis(H1, C1, A2, A2_dot)
    H12, C12 = transform_coriolis(H, C, A1 @ A2, A1_dot @ A2 + A1 @ A2_dot)
    scale = 1 + np.abs(C12).max()
    assert_allclose(H2, H12, atol=1e-10 * (1 + np.abs(H12).max()))
    assert_allclose(C2, C12, atol=1e-10 * scale)
