"""Generalized Christoffel symbols (seed 000 Alg. 2) against independent references.

(a) the inverse-dynamics oracle: Gamma[:, j, k] + Gamma[:, k, j] = 1/2 [c(e_j + e_k) - c(e_j - e_k)]
    with c the RNEA at zero gravity and acceleration (exact: c is quadratic);
(b) the Koszul formula (seed 000 eq. 8) with L_{X_k} H by five-point central differences of
    the CRBA along model.integrate and the joint structure constants written out by hand
    (SE(3) for free-flyers, SO(3) for spherical joints, SE(2) / Schoenflies from geomech.lie,
    zero in coordinates, minus SO(3) for parent-frame speeds);
(c) C[i, k] = Gamma[i, j, k] v[j] with C from Alg. 1;
(d) sympy: the classical Christoffel symbols of a planar 2R arm;
on fixed- and floating-base models with spherical joints and user joints with Phi_ring != 0.
"""

import numpy as np
import pytest
import sympy as sp
from test_coriolis_models import (
    SphericalParentFrame,
    UniversalXY,
    mixed_fixed_base,
    mixed_floating_base,
    random_state,
    user_joint_tree,
)

from geomech.errors import DimensionError
from geomech.lie import SE2, Schoenflies
from geomech.multibody import (
    FreeFlyer,
    MultibodyModel,
    Planar,
    Revolute,
    SchoenfliesJoint,
    Spherical,
    robots,
)
from geomech.multibody.algorithms.christoffel import christoffel_symbols, joint_structure_constants
from geomech.multibody.algorithms.coriolis import coriolis_matrix
from geomech.multibody.algorithms.dynamics import crba, rnea
from geomech.spatial import crm, spatial_inertia

MODELS = {
    "mixed-fixed": mixed_fixed_base,
    "mixed-floating": mixed_floating_base,
    "user-joints": user_joint_tree,
    "humanoid": robots.humanoid,
}


@pytest.fixture(scope="module", params=list(MODELS))
def model(request):
    return MODELS[request.param]()


def rel_err(actual, expected):
    return float(np.max(np.abs(actual - expected)) / max(1.0, float(np.max(np.abs(expected)))))


def _epsilon():
    eps = np.zeros((3, 3, 3))
    for a, b, c in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
        eps[a, b, c], eps[b, a, c] = 1.0, -1.0
    return eps


def hand_structure_constants(model):
    """s[a, b, l] = s^l_ab of the joint frame, block by block, written out per joint type."""
    n = model.nv
    s = np.zeros((n, n, n))
    for joint, sl in zip(model.joints, model.v_slices, strict=True):
        if isinstance(joint, FreeFlyer):
            block = np.stack([crm(e) for e in np.eye(6)])  # s^l_ab = ((e_a x) e_b)_l
            block = np.einsum("alb->abl", block)
        elif isinstance(joint, Spherical):
            block = _epsilon()
        elif isinstance(joint, SphericalParentFrame):
            block = -_epsilon()  # right-invariant fields flip the sign
        elif isinstance(joint, Planar):
            block = SE2.structure_constants()
        elif isinstance(joint, SchoenfliesJoint):
            block = Schoenflies.structure_constants()
        else:  # 1-DoF joints, UniversalXY (coordinates), fixed
            block = np.zeros((joint.nv,) * 3)
        s[sl, sl, sl] = block
    return s


def lie_derivatives_of_H(model, q, h=1e-3):
    """dH[k] = L_{X_k} H by the five-point stencil along integrate(q, +-h e_k, +-2h e_k)."""
    n = model.nv
    E = np.eye(n)
    H = lambda t: crba(model, model.integrate(q, E, t))  # noqa: E731  (n, n, n)
    return (-H(2 * h) + 8 * H(h) - 8 * H(-h) + H(-2 * h)) / (12 * h)


def koszul(model, q):
    """seed 000 eq. (8) with finite-difference H derivatives and hand-written s."""
    dH = lie_derivatives_of_H(model, q)  # dH[k, i, j]
    s = np.einsum("il,jkl->ijk", crba(model, q), hand_structure_constants(model))  # s_ijk
    return 0.5 * (
        np.einsum("kij->ijk", dH)
        + np.einsum("jik->ijk", dH)
        - dH
        + np.einsum("kij->ijk", s)
        + np.einsum("jik->ijk", s)
        + s
    )


# ----------------------------------------------------------------------------------------
def test_inverse_dynamics_oracle(model):
    q = model.random_configuration(np.random.default_rng(1))
    n = model.nv
    E = np.eye(n)
    c = lambda V: rnea(model, q, V, np.zeros(n), gravity=np.zeros(3))  # noqa: E731
    oracle = 0.5 * (c(E[:, None] + E[None]) - c(E[:, None] - E[None]))  # [j, k, i]
    oracle = np.moveaxis(oracle, -1, 0)
    G = christoffel_symbols(model, q)
    assert rel_err(G + np.swapaxes(G, 1, 2), oracle) < 1e-12


def test_koszul_formula(model):
    q = model.random_configuration(np.random.default_rng(2))
    assert rel_err(christoffel_symbols(model, q), koszul(model, q)) < 1e-10


def test_contraction_is_the_coriolis_matrix_of_alg1(model, rng):
    q, v = random_state(model, rng)
    G = christoffel_symbols(model, q)
    assert rel_err(np.einsum("ijk,j->ik", G, v), coriolis_matrix(model, q, v)) < 1e-12


def test_torsion_free_and_eq9(model, rng):
    """Gamma_ijk - Gamma_ikj = s_ijk (torsion free), with hand-written structure constants."""
    q = model.random_configuration(rng)
    G = christoffel_symbols(model, q)
    s_low = np.einsum("il,jkl->ijk", crba(model, q), hand_structure_constants(model))
    assert rel_err(G - np.swapaxes(G, 1, 2), s_low) < 1e-12
    # metric compatibility: L_{X_k} H_ij = Gamma_jki + Gamma_ikj
    dH = lie_derivatives_of_H(model, q)
    assert (
        rel_err(np.einsum("kij->ijk", dH), np.einsum("jki->ijk", G) + np.einsum("ikj->ijk", G))
        < 1e-8
    )


def test_joint_structure_constants(model, rng):
    q = model.random_configuration(rng, size=2)
    s = joint_structure_constants(model, q)
    np.testing.assert_allclose(
        s, np.broadcast_to(hand_structure_constants(model), s.shape), atol=1e-12
    )


def test_block_sparsity_and_one_dof_symmetry(rng):
    """Blocks vanish unless the three joints lie on one path; with 1-DoF joints in coordinates
    Gamma is symmetric in (j, k) and Gamma_iii = 0 (seed 001 §5 items 7, 10, 16)."""
    model = robots.binary_tree(7, rng=3)
    q = model.random_configuration(rng)
    G = christoffel_symbols(model, q)
    related = lambda a, b: a in model.supports(b) or b in model.supports(a)  # noqa: E731
    for i, j, k in np.ndindex(*G.shape):
        if not (related(i, j) and related(j, k) and related(i, k)):
            assert G[i, j, k] == 0.0
    np.testing.assert_allclose(G, np.swapaxes(G, 1, 2), atol=1e-13)
    np.testing.assert_allclose(np.einsum("iii->i", G), 0.0, atol=1e-13)
    assert np.count_nonzero(G) > 0


def test_batched_equals_loop(rng):
    model = user_joint_tree()
    q = model.random_configuration(rng, size=(3,))
    G = christoffel_symbols(model, q)
    assert G.shape == (3,) + (model.nv,) * 3
    for k in range(3):
        np.testing.assert_allclose(G[k], christoffel_symbols(model, q[k]), atol=1e-14)


def test_sympy_planar_two_link_arm():
    """Classical first-kind symbols of a planar 2R arm, from its mass matrix by sympy."""
    m1, m2, l1, lc1, lc2, I1, I2 = 1.3, 0.8, 0.9, 0.4, 0.35, 0.05, 0.03
    q1, q2 = sp.symbols("q1 q2")
    c2 = sp.cos(q2)
    H = sp.Matrix(
        [
            [
                m1 * lc1**2 + I1 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * c2) + I2,
                m2 * (lc2**2 + l1 * lc2 * c2) + I2,
            ],
            [m2 * (lc2**2 + l1 * lc2 * c2) + I2, m2 * lc2**2 + I2],
        ]
    )
    qs = (q1, q2)
    Gs = [
        [
            [
                sp.Rational(1, 2)
                * (sp.diff(H[i, j], qs[k]) + sp.diff(H[i, k], qs[j]) - sp.diff(H[j, k], qs[i]))
                for k in range(2)
            ]
            for j in range(2)
        ]
        for i in range(2)
    ]
    q = np.array([0.7, -1.2])
    G_ref = np.array(sp.lambdify(qs, sp.Array(Gs))(*q), dtype=float)
    T = np.eye(4)
    T[0, 3] = l1
    model = MultibodyModel.from_bodies(
        [-1, 0],
        [Revolute([0, 0, 1]), Revolute([0, 0, 1])],
        [
            spatial_inertia(m1, [lc1, 0, 0], np.diag([0.01, 0.02, I1])),
            spatial_inertia(m2, [lc2, 0, 0], np.diag([0.02, 0.01, I2])),
        ],
        [np.eye(4), T],
    )
    np.testing.assert_allclose(christoffel_symbols(model, q), G_ref, atol=1e-14)


def test_universal_joint_in_coordinates_is_classical(rng):
    """With coordinates (s = 0) Alg. 2 gives the classical symbols, although Phi_ring != 0."""
    model = MultibodyModel.from_bodies(
        [-1, 0],
        [UniversalXY(), UniversalXY()],
        robots.random_inertia(rng, 2),
        [np.eye(4), np.array([[1, 0, 0, 0.3], [0, 1, 0, 0], [0, 0, 1, 0.2], [0, 0, 0, 1.0]])],
    )
    q = model.random_configuration(rng)
    n, h = model.nv, 1e-4
    E = np.eye(n)
    dH = np.stack(
        [
            (
                -crba(model, q + 2 * h * e)
                + 8 * crba(model, q + h * e)
                - 8 * crba(model, q - h * e)
                + crba(model, q - 2 * h * e)
            )
            / (12 * h)
            for e in E
        ]
    )  # dH[k] = dH/dq_k (true coordinates)
    G_ref = 0.5 * (np.einsum("kij->ijk", dH) + np.einsum("jik->ijk", dH) - dH)
    assert rel_err(christoffel_symbols(model, q), G_ref) < 1e-9


def test_validation():
    model = mixed_floating_base()
    with pytest.raises(
        DimensionError, match=rf"`q` to have shape \(\.\.\., {model.nq}\), got \(3,\)"
    ):
        christoffel_symbols(model, np.zeros(3))
    with pytest.raises(DimensionError, match="`q`"):
        joint_structure_constants(model, np.zeros(model.nq + 1))
