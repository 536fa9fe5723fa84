"""The tensor extension of spatial vector algebra (seed 002 §III): operators against their
definitions (page by page), the identities M1-M19 of Table I on random data, batching, and
the shape errors."""

import numpy as np
import pytest

from geomech.errors import DimensionError
from geomech.lie import SO3
from geomech.spatial import (
    coriolis_tensor,
    crbar,
    crbar_tensor,
    crf,
    crf_tensor,
    crm,
    crm_tensor,
    matmul_tensor,
    spatial_inertia,
    tensor_matmul,
    tensor_rotate,
    tensor_transpose,
)

N, M, L = 3, 4, 2  # columns of U (motion), F (force), V (motion)


@pytest.fixture
def data(rng):
    return dict(
        U=rng.normal(size=(6, N)),
        F=rng.normal(size=(6, M)),
        V=rng.normal(size=(6, L)),
        v=rng.normal(size=6),
        f=rng.normal(size=6),
        B=rng.normal(size=(5, 6)),
        Y=rng.normal(size=(6, 4, 3)),
        lam=float(rng.normal()),
    )


# ---- the operators against their definitions ---------------------------------------------


def test_cross_tensors_are_stacked_pages(data):
    U, F = data["U"], data["F"]
    for k in range(N):
        np.testing.assert_array_equal(crm_tensor(U)[:, :, k], crm(U[:, k]))
        np.testing.assert_allclose(crf_tensor(U)[:, :, k], crf(U[:, k]), atol=0)
    for k in range(M):
        np.testing.assert_array_equal(crbar_tensor(F)[:, :, k], crbar(F[:, k]))


def test_products_by_definition(rng):
    A = rng.normal(size=(3, 4, 5))
    B = rng.normal(size=(4, 2))
    C = rng.normal(size=(6, 3))
    Z = tensor_matmul(A, B)  # eq. 9: Z_ijk = Σ_l A_ilk B_lj
    Y = matmul_tensor(C, A)  # eq. 10: Y_ijk = Σ_l C_il A_ljk
    for i, j, k in np.ndindex(3, 2, 5):
        assert np.isclose(Z[i, j, k], sum(A[i, l, k] * B[l, j] for l in range(4)))  # noqa: E741
    for i, j, k in np.ndindex(6, 4, 5):
        assert np.isclose(Y[i, j, k], sum(C[i, l] * A[l, j, k] for l in range(3)))  # noqa: E741
    # page by page
    for k in range(5):
        np.testing.assert_allclose(Z[:, :, k], A[:, :, k] @ B)
        np.testing.assert_allclose(Y[:, :, k], C @ A[:, :, k])


def test_transpose_and_rotation_by_definition(rng):
    A = rng.normal(size=(2, 3, 4))
    T, R = tensor_transpose(A), tensor_rotate(A)
    assert T.shape == (3, 2, 4) and R.shape == (2, 4, 3)
    for i, j, k in np.ndindex(2, 3, 4):
        assert T[j, i, k] == A[i, j, k]
        assert R[i, k, j] == A[i, j, k]
    # R~ then T~: A_ijk = B_kij  (seed 002 §III)
    RT = tensor_transpose(tensor_rotate(A))
    for i, j, k in np.ndindex(2, 3, 4):
        assert RT[k, i, j] == A[i, j, k]


def test_coriolis_tensor_pages_are_the_body_factor(rng):
    """Page p = ½[(u_p ×*) I − I (u_p ×) + (I u_p) ×̄*] (eq. 6/15), and linear in I."""
    I1 = spatial_inertia(1.5, rng.normal(size=3), np.diag(rng.uniform(0.1, 1, 3)))
    I2 = spatial_inertia(0.7, rng.normal(size=3), np.diag(rng.uniform(0.1, 1, 3)))
    U = rng.normal(size=(6, 3))
    T = coriolis_tensor(I1, U)
    for p in range(3):
        u = U[:, p]
        expected = 0.5 * (crf(u) @ I1 - I1 @ crm(u) + crbar(I1 @ u))
        np.testing.assert_allclose(T[:, :, p], expected, atol=1e-14)
    np.testing.assert_allclose(coriolis_tensor(I1 + I2, U), T + coriolis_tensor(I2, U), atol=1e-13)


def test_coriolis_tensor_is_frame_covariant(rng):
    """B(XᵀIX, X⁻¹u) = Xᵀ B(I, u) X⁻¹... in the form Xᵀ B(I, X u) X = B(Xᵀ I X, u)."""
    from geomech.spatial import plucker

    X = plucker(SO3.random(rng), rng.normal(size=3))
    I = spatial_inertia(2.0, rng.normal(size=3), np.diag(rng.uniform(0.1, 1, 3)))  # noqa: E741
    U = rng.normal(size=(6, 2))
    lhs = matmul_tensor(X.T, tensor_matmul(coriolis_tensor(I, X @ U), X))
    np.testing.assert_allclose(lhs, coriolis_tensor(X.T @ I @ X, U), atol=1e-12)


def test_operators_accept_batches(rng):
    U = rng.normal(size=(7, 6, 3))
    F = rng.normal(size=(7, 6, 2))
    Ib = np.stack([spatial_inertia(1.0, rng.normal(size=3), np.eye(3)) for _ in range(7)])
    for b in range(7):
        np.testing.assert_array_equal(crm_tensor(U)[b], crm_tensor(U[b]))
        np.testing.assert_array_equal(crbar_tensor(F)[b], crbar_tensor(F[b]))
        np.testing.assert_allclose(coriolis_tensor(Ib, U)[b], coriolis_tensor(Ib[b], U[b]))
        np.testing.assert_allclose(
            tensor_matmul(crf_tensor(U), F)[b], tensor_matmul(crf_tensor(U[b]), F[b])
        )


# ---- Table I: M1-M19 -----------------------------------------------------------------------


def _vec(T):
    """A 6 × 1 × n tensor identified with the 6 × n matrix (M4, M14, M15)."""
    assert T.shape[-2] == 1
    return T[..., 0, :]


def test_table1_identities(data):
    U, F, V, v, f, B, Y, lam = (data[k] for k in ("U", "F", "V", "v", "f", "B", "Y", "lam"))
    cU, sU, bF = crm_tensor(U), crf_tensor(U), crbar_tensor(F)
    cV, sV = crm_tensor(V), crf_tensor(V)
    UxV = tensor_matmul(cU, V)  # 6 × L × N
    VxU = tensor_matmul(cV, U)  # 6 × N × L
    UsF = tensor_matmul(sU, F)  # 6 × M × N
    close = np.testing.assert_allclose
    # M1
    close(sU, -tensor_transpose(cU))
    # M2, M3
    close(matmul_tensor(-V.T, sU), tensor_transpose(UxV))
    close(
        tensor_matmul(matmul_tensor(-V.T, sU), F),
        tensor_matmul(tensor_transpose(UxV), F),
        atol=1e-13,
    )
    # M4
    close(_vec(tensor_matmul(cU, v)), -crm(v) @ U)
    # M5, M6 (they differ by R~: Sec. III's prose omits it, digest §1.6)
    close(UsF, tensor_rotate(tensor_matmul(bF, U)))
    close(tensor_matmul(bF, U), tensor_rotate(UsF))
    # M7, M8
    close(crm_tensor(lam * U), lam * cU)
    close(UxV, -tensor_rotate(VxU))
    # M9, M10
    close(crm_tensor(crm(v) @ U), matmul_tensor(crm(v), cU) - tensor_matmul(cU, crm(v)), atol=1e-13)
    close(crf_tensor(crm(v) @ U), matmul_tensor(crf(v), sU) - tensor_matmul(sU, crf(v)), atol=1e-13)
    # M11 (the vector is a force, digest §1.6)
    close(
        crbar_tensor(_vec(tensor_matmul(sU, f))),
        tensor_matmul(sU, crbar(f)) - matmul_tensor(crbar(f), cU),
        atol=1e-13,
    )
    # M12
    close(tensor_transpose(UsF), matmul_tensor(-F.T, cU), atol=1e-13)
    # M13
    lhs = matmul_tensor(V.T, UsF)
    close(lhs, tensor_matmul(tensor_transpose(tensor_rotate(VxU)), F), atol=1e-13)
    close(lhs, tensor_transpose(matmul_tensor(F.T, tensor_rotate(VxU))), atol=1e-13)
    # M14, M15
    close(crf(v) @ F, _vec(tensor_matmul(bF, v)))
    close(crbar(f) @ U, _vec(tensor_matmul(sU, f)))
    # M16, M17, M18
    lhs = matmul_tensor(V.T, tensor_rotate(UsF))
    close(lhs, tensor_rotate(tensor_matmul(tensor_transpose(tensor_rotate(VxU)), F)), atol=1e-13)
    close(
        lhs, -tensor_transpose(matmul_tensor(U.T, tensor_rotate(tensor_matmul(sV, F)))), atol=1e-13
    )
    close(lhs, tensor_rotate(matmul_tensor(V.T, UsF)), atol=1e-13)
    # M19
    close(tensor_transpose(matmul_tensor(B, Y)), tensor_matmul(tensor_transpose(Y), B.T))


def test_m11_fails_with_a_motion_vector_in_the_crbar_slot(data):
    """Table I writes v ∈ M⁶ in M11; read literally as (U ×~ v) ×̄~* it does not hold."""
    U, v = data["U"], data["v"]
    lhs = crbar_tensor(_vec(tensor_matmul(crm_tensor(U), v)))
    rhs = tensor_matmul(crm_tensor(U), crbar(v)) - matmul_tensor(crbar(v), crm_tensor(U))
    assert np.max(np.abs(lhs - rhs)) > 1e-3


# ---- errors ------------------------------------------------------------------------------


@pytest.mark.parametrize("fun", [crm_tensor, crf_tensor, crbar_tensor])
def test_cross_tensors_reject_non_spatial_matrices(fun):
    with pytest.raises(DimensionError, match=r"\(\.\.\., 6, n\)"):
        fun(np.zeros((5, 2)))
    with pytest.raises(DimensionError, match=r"\(\.\.\., 6, n\)"):
        fun(np.zeros(6))


def test_products_reject_mismatched_shapes():
    with pytest.raises(DimensionError, match="rows"):
        tensor_matmul(np.zeros((6, 6, 2)), np.zeros((5, 3)))
    with pytest.raises(DimensionError, match="columns"):
        matmul_tensor(np.zeros((3, 5)), np.zeros((6, 6, 2)))
    with pytest.raises(DimensionError, match="tensor"):
        tensor_transpose(np.zeros((6, 6)))
    with pytest.raises(DimensionError, match="tensor"):
        tensor_rotate(np.zeros(6))
    with pytest.raises(DimensionError, match="inertia"):
        coriolis_tensor(np.zeros((5, 5)), np.zeros((6, 1)))
