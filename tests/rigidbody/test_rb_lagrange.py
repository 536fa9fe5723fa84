"""Equivalence with the classical Lagrange equations (digest F6/T13), derived independently.

The reference equations are derived here with sympy from the Lagrangian
``L = ½ Vᵀ I_b V - U`` of a rigid body whose pose ``(R(x), p(x))`` is written in local
coordinates ``x`` (ZYX Euler angles, planar angle/position): the body twist
``V = [(RᵀṘ)^∨; Rᵀṗ]`` and everything after it are computed symbolically, so neither the
velocity map nor its derivatives come from geomech. Exponential coordinates are checked with
a numerical Lagrangian (``S`` from the expm oracle, ``∂M̄/∂x`` by central differences), as in
the digest's F6 procedure. Comparisons are made away from the singular sets; near them the
local form degenerates (``det M̄ = det(S)² det M → 0``) while the quasi-velocity form does not.
"""

import numpy as np
import pytest
import sympy as sp
from rb_helpers import expm_oracle_S, fd_partials, random_spd

from geomech.errors import SingularityError
from geomech.lie import SE2, SE3, SO3, Schoenflies
from geomech.rigidbody import (
    EulerZYX,
    ExponentialChart,
    PlanarChart,
    RigidBody,
    local_forward_dynamics,
    local_inverse_dynamics,
    local_mass_matrix,
    selection_matrix,
    twist_from_paper,
)
from geomech.simulation import simulate
from geomech.spatial import spatial_inertia

G0 = 9.81
MASS, COM = 2.0, np.array([0.1, -0.05, 0.2])
I_COM = np.array([[1.0, 0.1, 0.0], [0.1, 2.0, 0.2], [0.0, 0.2, 3.0]])
I_B = spatial_inertia(MASS, COM, I_COM)  # angular first, about the body origin


def _rot(axis, a):
    c, s = sp.cos(a), sp.sin(a)
    if axis == "x":
        return sp.Matrix([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == "y":
        return sp.Matrix([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return sp.Matrix([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _derive(kind):
    """Lagrange's equations of a body with pose (R(x), p(x)); returns lambdified pieces.

    ``V = [(Rᵀ Ṙ)^∨; Rᵀ ṗ] = S(x) ẋ`` and ``L = ½ ẋᵀ M̄(x) ẋ - U(x)`` with ``M̄ = Sᵀ M S``;
    the partial derivatives ``∂M̄/∂x``, ``∂U/∂x`` and ``∂S/∂x`` are symbolic, and Lagrange's
    equations ``M̄ ẍ + Ṁ̄ ẋ - ½ ∂(ẋᵀ M̄ ẋ)/∂x + ∂U/∂x = Q`` are assembled from them.
    """
    if kind in ("SO3", "SE3"):
        n = 3 if kind == "SO3" else 6
        x = sp.symbols(f"x0:{n}")
        R = _rot("z", x[0]) * _rot("y", x[1]) * _rot("x", x[2])  # ZYX: ψ, θ, φ
        p = sp.Matrix(x[3:6]) if kind == "SE3" else sp.zeros(3, 1)
    else:  # SE2 / Schoenflies: heading angle and position
        n = 3 if kind == "SE2" else 4
        x = sp.symbols(f"x0:{n}")
        R = _rot("z", x[0])
        p = sp.Matrix([x[1], x[2], x[3] if kind == "X4" else 0])
    xd = sp.symbols(f"xd0:{n}")
    group = {"SO3": SO3, "SE3": SE3, "SE2": SE2, "X4": Schoenflies}[kind]
    H = sp.Matrix(selection_matrix(group))
    R_dot = sum((R.diff(a) * b for a, b in zip(x, xd, strict=True)), sp.zeros(3, 3))
    p_dot = sum((p.diff(a) * b for a, b in zip(x, xd, strict=True)), sp.zeros(3, 1))
    W = R.T * R_dot  # body angular velocity, hat form (unsimplified: cse handles it)
    V = H.T * sp.Matrix.vstack(sp.Matrix([W[2, 1], W[0, 2], W[1, 0]]), R.T * p_dot)
    S = V.jacobian(xd)  # v = S(x) ẋ
    M = H.T * sp.Matrix(I_B) * H
    Mbar = S.T * M * S
    gamma = sp.Matrix([0, -G0, 0]) if kind == "SE2" else sp.Matrix([0, 0, -G0])
    U = -MASS * (gamma.T * (p + R * sp.Matrix(COM)))[0]
    dMbar = [Mbar.diff(a) for a in x]  # ∂M̄/∂x_m
    dS = [S.diff(a) for a in x]
    dU = [U.diff(a) for a in x]
    lam = lambda expr: sp.lambdify([x], expr, "numpy", cse=True)  # noqa: E731
    f_M, f_dM, f_S, f_dS, f_dU = lam(Mbar), lam(dMbar), lam(S), lam(dS), lam(dU)

    def arr(fn, y):
        return np.array(fn(y), dtype=float)

    def bias(y, yd):
        dM = np.moveaxis(arr(f_dM, y), 0, -1)  # dM[i, j, m]
        M_dot = np.einsum("ijm,m->ij", dM, yd)
        return M_dot @ yd - 0.5 * np.einsum("i,ijm,j->m", yd, dM, yd) + arr(f_dU, y)

    return {
        "Mbar": lambda y: arr(f_M, y),
        "bias": bias,
        "S": lambda y: arr(f_S, y),
        "S_dot": lambda y, yd: np.einsum("mij,m->ij", arr(f_dS, y), yd),
    }


@pytest.fixture(scope="module")
def lagrange():
    """Lambdified Lagrange equations, derived once per module (sympy is slow)."""
    return {k: _derive(k) for k in ("SO3", "SE3", "SE2", "X4")}


CASES = {
    # F6: η = (0.3, -0.4, 0.7), η̇ = (0.5, -0.2, 0.9), τ = (0.1, -0.3, 0.2)
    "SO3": (SO3, EulerZYX(SO3), [0.3, -0.4, 0.7], [0.5, -0.2, 0.9], [0.1, -0.3, 0.2]),
    # F6 (SE(3)), reordered angles first: x = (η; p)
    "SE3": (
        SE3,
        EulerZYX(SE3),
        [0.3, -0.4, 0.7, 1.0, -2.0, 0.5],
        [0.5, -0.2, 0.9, 0.3, 0.1, -0.2],
        [0.1, -0.3, 0.2, 1.0, 0.0, -1.0],
    ),
    # F6 (SE(2)): x = (θ, x, y) = (0.9, 0.2, 0.1), ẋ = (0.8, 0.5, -0.3)
    "SE2": (SE2, PlanarChart(SE2), [0.9, 0.2, 0.1], [0.8, 0.5, -0.3], [-0.05, 0.1, 0.2]),
    "X4": (
        Schoenflies,
        PlanarChart(Schoenflies),
        [0.9, 0.2, 0.1, -0.3],
        [0.8, 0.5, -0.3, 0.4],
        [-0.05, 0.1, 0.2, 0.3],
    ),
}


def _gravity(kind):
    return [0.0, -G0, 0.0] if kind == "SE2" else [0.0, 0.0, -G0]


@pytest.mark.parametrize("kind", list(CASES))
def test_T13_local_and_quasi_velocity_forms_match_sympy_lagrange(kind, lagrange):
    group, chart, x, x_dot, tau = (
        np.asarray(a, dtype=float) if i > 1 else a for i, a in enumerate(CASES[kind])
    )
    body = RigidBody.from_spatial_inertia(group, I_B, gravity=_gravity(kind))
    ref = lagrange[kind]
    S = ref["S"](x)
    np.testing.assert_allclose(
        chart.velocity_map(x), S, atol=1e-14
    )  # the chart's S is the physical one
    Q = S.T @ tau  # B = Sᵀ (eq. 24)
    x_ddot = np.linalg.solve(ref["Mbar"](x), Q - ref["bias"](x, x_dot))
    # the local (coordinate) form
    np.testing.assert_allclose(local_mass_matrix(body, chart, x), ref["Mbar"](x), atol=1e-12)
    np.testing.assert_allclose(local_forward_dynamics(body, chart, x, x_dot, Q), x_ddot, atol=1e-10)
    np.testing.assert_allclose(local_inverse_dynamics(body, chart, x, x_dot, x_ddot), Q, atol=1e-10)
    # the quasi-velocity form: v̇ = S ẍ + Ṡ ẋ (Prop. 2.1)
    v_dot_L = S @ x_ddot + ref["S_dot"](x, x_dot) @ x_dot
    v_dot_BH = body.forward_dynamics(chart.to_group(x), S @ x_dot, tau)
    np.testing.assert_allclose(v_dot_BH, v_dot_L, atol=1e-10)


def test_T13_F6_paper_inertia_so3(lagrange):
    """F6 with the paper's M = diag(1, 2, 3) (principal axes, no gravity)."""
    x, x_dot, tau = (
        np.array([0.3, -0.4, 0.7]),
        np.array([0.5, -0.2, 0.9]),
        np.array([0.1, -0.3, 0.2]),
    )
    body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
    S = EulerZYX(SO3).velocity_map(x)
    # independent numerical Lagrange: M̄ = SᵀMS, Christoffels by central differences of M̄
    Mbar = lambda y: EulerZYX(SO3).velocity_map(y).T @ body.inertia @ EulerZYX(SO3).velocity_map(y)  # noqa: E731
    x_ddot = _numerical_lagrange(Mbar, x, x_dot, S.T @ tau)
    v_dot_L = (
        S @ x_ddot + np.einsum("ijm,m->ij", EulerZYX(SO3).velocity_map_derivative(x), x_dot) @ x_dot
    )
    np.testing.assert_allclose(body.forward_dynamics(np.eye(3), S @ x_dot, tau), v_dot_L, atol=1e-8)


def _numerical_lagrange(Mbar, x, x_dot, Q, h=1e-6):
    """ẍ from M̄ ẍ = Q - Ṁ̄ ẋ + ½ [ẋᵀ ∂M̄/∂x_m ẋ]_m (digest F6 procedure)."""
    dM = fd_partials(Mbar, x, h)  # dM[i, j, m] = ∂M̄_ij/∂x_m
    M_dot = np.einsum("ijm,m->ij", dM, x_dot)
    rhs = Q - M_dot @ x_dot + 0.5 * np.einsum("i,ijm,j->m", x_dot, dM, x_dot)
    return np.linalg.solve(Mbar(x), rhs)


@pytest.mark.parametrize(
    "group, x_paper",
    [
        (SO3, [0.4, -1.1, 0.9]),
        (SE3, [0.3, -0.2, 0.5, 0.4, -1.0, 0.8]),
        (SE2, [0.3, -0.2, 0.5]),
        (Schoenflies, [0.3, -0.2, 0.5, 0.7]),
    ],
    ids=["SO3", "SE3", "SE2", "X4"],
)
def test_T13_exponential_coordinates_numerical_lagrange(group, x_paper, rng):
    """F6 with exponential coordinates away from 0 and a random full SPD M."""
    body = RigidBody(group, random_spd(rng, group.dim))
    x = twist_from_paper(group, x_paper)
    x_dot = rng.standard_normal(group.dim)
    tau = rng.standard_normal(group.dim)
    S_of = lambda y: expm_oracle_S(group, y)  # noqa: E731
    Mbar = lambda y: S_of(y).T @ body.inertia @ S_of(y)  # noqa: E731
    S = S_of(x)
    x_ddot = _numerical_lagrange(Mbar, x, x_dot, S.T @ tau)
    S_dot = np.einsum("ijm,m->ij", fd_partials(S_of, x, 1e-6), x_dot)
    v_dot_L = S @ x_ddot + S_dot @ x_dot
    chart = ExponentialChart(group)
    np.testing.assert_allclose(
        body.forward_dynamics(chart.to_group(x), S @ x_dot, tau), v_dot_L, atol=1e-7
    )
    np.testing.assert_allclose(
        local_forward_dynamics(body, chart, x, x_dot, S.T @ tau), x_ddot, atol=1e-7
    )


# ------------------------------------------------------------------------------------------
# the singularity: the local form breaks down, the quasi-velocity form does not
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["SO3", "SE3"])
def test_local_mass_matrix_singular_at_gimbal_lock(kind, lagrange):
    group = SO3 if kind == "SO3" else SE3
    body = RigidBody.from_spatial_inertia(group, I_B)
    chart = EulerZYX(group)
    tail = [] if kind == "SO3" else [1.0, -2.0, 0.5]
    det_M = np.linalg.det(body.inertia)
    for eps in (1e-1, 1e-3, 1e-5):
        x = np.array([0.3, np.pi / 2 - eps, 0.7] + tail)
        det_bar = np.linalg.det(lagrange[kind]["Mbar"](x))  # sympy M̄
        assert det_bar == pytest.approx(np.cos(x[1]) ** 2 * det_M, rel=1e-6)  # det(S)² det(M)
        assert np.linalg.det(local_mass_matrix(body, chart, x)) == pytest.approx(det_bar, rel=1e-6)
    x_lock = np.array([0.3, np.pi / 2, 0.7] + tail)
    assert abs(np.linalg.det(local_mass_matrix(body, chart, x_lock))) < 1e-20
    with pytest.raises(SingularityError, match="local_forward_dynamics .* EulerZYX"):
        local_forward_dynamics(body, chart, x_lock, np.ones(group.dim))
    # the quasi-velocity form at the same configuration is regular
    v = np.linspace(0.5, -0.5, group.dim)
    v_dot = body.forward_dynamics(chart.to_group(x_lock), v)
    assert np.all(np.isfinite(v_dot))
    assert np.linalg.cond(body.inertia) < 1e3


def test_local_accelerations_blow_up_near_gimbal_lock_but_body_accelerations_do_not():
    body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
    chart = EulerZYX(SO3)
    omega = np.array([0.5, -0.2, 0.9])
    sizes, body_sizes = [], []
    for eps in (1e-2, 1e-4, 1e-6):
        x = np.array([0.3, np.pi / 2 - eps, 0.7])
        x_dot = chart.velocity_map_inverse(x) @ omega  # the same physical motion
        sizes.append(np.linalg.norm(local_forward_dynamics(body, chart, x, x_dot)))
        body_sizes.append(np.linalg.norm(body.forward_dynamics(chart.to_group(x), omega)))
    assert sizes[1] > 1e3 * sizes[0] and sizes[2] > 1e3 * sizes[1]  # ẍ ~ 1/ε²
    np.testing.assert_allclose(body_sizes, body_sizes[0], rtol=1e-12)  # v̇ does not depend on R
    assert body_sizes[0] < 1.0


def test_simulation_through_gimbal_lock(rng):
    """A free body tumbling through pitch ±π/2: Lie-group integration keeps energy and momentum
    while the Euler angles of the same motion jump (yaw and roll are undefined at the lock)."""
    body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
    R0 = EulerZYX(SO3).to_group([0.0, 1.2, 0.0])
    res = simulate(body, R0, [0.0, 2.0, 0.05], t_final=3.0, dt=1e-3)
    eta = EulerZYX(SO3).from_group(res.q)
    assert np.max(np.abs(eta[:, 1])) > np.pi / 2 - 0.05  # passes close to the singular set
    assert np.max(np.abs(np.diff(eta[:, 0]))) > 1.0  # yaw jumps
    E = body.kinetic_energy(res.v)
    np.testing.assert_allclose(E, np.full_like(E, E[0]), rtol=1e-11)
