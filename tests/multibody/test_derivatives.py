"""Derivatives of the dynamics: finite differences along ``model.integrate`` and the exact
identities of seed 002's digest (§8), on trees mixing every joint type.

* T1 first order vs central differences of ``rnea`` (the Pinocchio comparison is in
  ``test_derivatives_pinocchio.py``);
* T2 second order vs central differences of the analytical first order along
  ``model.integrate`` (and ``dM_dq`` vs differences of ``crba``; the cross derivative's
  two orders, eq. 19), 1e-6 relative; also vs differences of Pinocchio's first order;
* T5 ν–ν symmetry and independence of (ν, ν̇), T6 Euler homogeneity, T7 the q–q asymmetry
  within a multi-DoF joint (structure constants), T9 the Christoffel relation (against
  ``christoffel_symbols`` and ``mass_matrix_derivative``), T11 structure of ∂M/∂q, T12
  floating-base invariance, T13 sparsity and relabelling;
* the forward-dynamics partials by differences of ``aba`` and ``aba_derivatives``;
* the block-sparse output, batching, and the named errors.
"""

import networkx as nx
import numpy as np
import pinocchio as pin
import pytest

from geomech.errors import (
    DimensionError,
    ModelError,
    NonFiniteError,
    NotATreeError,
    NotOnManifoldError,
    ParameterError,
    SingularityError,
)
from geomech.interop.pinocchio import PinocchioBridge
from geomech.multibody import MultibodyModel, Revolute, robots
from geomech.multibody.algorithms.christoffel import christoffel_symbols, joint_structure_constants
from geomech.multibody.algorithms.coriolis import mass_matrix_derivative
from geomech.multibody.algorithms.derivatives import (
    BlockSparseTensor,
    aba_derivatives,
    aba_second_derivatives,
    rnea_derivatives,
    rnea_second_derivatives,
)
from geomech.multibody.algorithms.dynamics import aba, crba, rnea

H = 1e-6  # central-difference step (digest §8)
FD_TOL = 1e-6  # T2
EXACT = 1e-11  # identities that hold to rounding


def rel_err(actual, expected):
    actual, expected = np.asarray(actual), np.asarray(expected)
    return float(np.max(np.abs(actual - expected)) / max(1.0, float(np.max(np.abs(expected)))))


def fd_q(fun, model, q, h=H):
    """Central differences of ``fun(q)`` along ``model.integrate``: last axis = direction."""
    cols = []
    for e in np.eye(model.nv):
        cols.append((fun(model.integrate(q, h * e)) - fun(model.integrate(q, -h * e))) / (2 * h))
    return np.stack(cols, axis=-1)


def fd_v(fun, v, h=H):
    return np.stack([(fun(v + h * e) - fun(v - h * e)) / (2 * h) for e in np.eye(len(v))], axis=-1)


MODELS = [(8, False, 0), (8, True, 1), (14, True, 2), (14, False, 3)]


@pytest.fixture(params=MODELS, ids=[f"n{n}-{'float' if f else 'fixed'}-{s}" for n, f, s in MODELS])
def case(request, mixed_tree):
    """(model, q, v, a, f_ext) on a random tree mixing every joint type."""
    n, floating, seed = request.param
    rng = np.random.default_rng([n, seed])
    model = mixed_tree(n, rng, floating_base=floating)
    q = model.random_configuration(rng)
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    return model, q, v, a, rng.normal(size=(model.n_bodies, 6))


# ---- T1, T2: finite differences --------------------------------------------------------------


def test_first_order_matches_finite_differences(case):
    model, q, v, a, f_ext = case
    for fe in (None, f_ext):
        dq, dv = rnea_derivatives(model, q, v, a, f_ext=fe)
        assert rel_err(dq, fd_q(lambda x, fe=fe: rnea(model, x, v, a, f_ext=fe), model, q)) < FD_TOL
        assert rel_err(dv, fd_v(lambda x, fe=fe: rnea(model, q, x, a, f_ext=fe), v)) < FD_TOL


def test_second_order_matches_finite_differences_of_first_order(case):
    model, q, v, a, f_ext = case
    for fe in (None, f_ext):
        d2 = rnea_second_derivatives(model, q, v, a, f_ext=fe)
        fd_qq = fd_q(lambda x, fe=fe: rnea_derivatives(model, x, v, a, f_ext=fe)[0], model, q)
        fd_vv = fd_v(lambda x, fe=fe: rnea_derivatives(model, q, x, a, f_ext=fe)[1], v)
        fd_qv = fd_v(lambda x, fe=fe: rnea_derivatives(model, q, x, a, f_ext=fe)[0], v)
        assert rel_err(d2.d2tau_dq2, fd_qq) < FD_TOL
        assert rel_err(d2.d2tau_dv2, fd_vv) < FD_TOL
        assert rel_err(d2.d2tau_dqdv, fd_qv) < FD_TOL
    # ∂M/∂q against differences of the CRBA, and as ∂(∂τ/∂q)/∂ν̇ (M is linear in ν̇)
    assert rel_err(d2.dM_dq, fd_q(lambda x: crba(model, x), model, q)) < FD_TOL
    fd_aq = fd_v(lambda x: rnea_derivatives(model, q, v, x)[0], a)  # [τ, q, ν̇]
    assert rel_err(d2.dM_dq, fd_aq.transpose(0, 2, 1)) < FD_TOL
    # eq. 19: ∂/∂ν_c (∂τ/∂q_b) = ∂/∂q_b (∂τ/∂ν_c)
    fd_vq = fd_q(lambda x: rnea_derivatives(model, x, v, a)[1], model, q)  # [τ, ν, q]
    d2 = rnea_second_derivatives(model, q, v, a)
    assert rel_err(d2.d2tau_dqdv, fd_vq.transpose(0, 2, 1)) < FD_TOL


def test_second_order_matches_differences_of_pinocchio(rng, mixed_tree):
    """The fully independent route: central differences of ``pin.computeRNEADerivatives``
    along ``pin.integrate``, mapped to geomech's ordering."""
    model = mixed_tree(10, rng, floating_base=True)
    bridge = PinocchioBridge(model)
    P, pm, pd = bridge.P, bridge.pin_model, bridge.pin_data
    q = model.random_configuration(rng)
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    qp, vp, ap = bridge.q_to_pin(q), bridge.v_to_pin(v), bridge.v_to_pin(a)

    def first(qx, vx):
        dq, dv, da = pin.computeRNEADerivatives(pm, pd, qx, vx, ap)
        da = np.triu(da) + np.triu(da, 1).T
        return [P.T @ np.array(x) @ P for x in (dq, dv, da)]

    nv = model.nv
    ref = np.zeros((4, nv, nv, nv))
    for c in range(nv):
        e = H * P[:, c]  # geomech direction c in Pinocchio's tangent space
        plus, minus = first(pin.integrate(pm, qp, e), vp), first(pin.integrate(pm, qp, -e), vp)
        ref[0, :, :, c] = (plus[0] - minus[0]) / (2 * H)
        ref[3, :, :, c] = (plus[2] - minus[2]) / (2 * H)
        plus, minus = first(qp, vp + e), first(qp, vp - e)
        ref[1, :, :, c] = (plus[1] - minus[1]) / (2 * H)
        ref[2, :, :, c] = (plus[0] - minus[0]) / (2 * H)
    d2 = rnea_second_derivatives(model, q, v, a)
    for k in range(4):
        assert rel_err(d2[k], ref[k]) < FD_TOL, d2._fields[k]


# ---- exact identities ------------------------------------------------------------------------


def test_T5_velocity_hessian_symmetric_and_state_independent(case):
    model, q, v, a, _ = case
    d2v = rnea_second_derivatives(model, q, v, a).d2tau_dv2
    assert rel_err(d2v, d2v.transpose(0, 2, 1)) < EXACT
    other = rnea_second_derivatives(model, q, 3.0 * v + 1.0, -a).d2tau_dv2
    assert rel_err(other, d2v) < EXACT


def test_T6_euler_homogeneity(case):
    model, q, v, a, _ = case
    zero = np.zeros(model.nv)
    d2 = rnea_second_derivatives(model, q, v, a)
    dq, dv = rnea_derivatives(model, q, v, a)
    assert rel_err(d2.d2tau_dv2 @ v, dv) < EXACT
    quad = np.einsum("abc,b,c->a", d2.d2tau_dv2, v, v)
    assert rel_err(quad, 2 * (rnea(model, q, v, zero) - rnea(model, q, zero, zero))) < EXACT
    assert rel_err(d2.d2tau_dqdv @ v, 2 * (dq - rnea_derivatives(model, q, zero, a)[0])) < EXACT
    assert (
        rel_err(np.einsum("acb,c->ab", d2.dM_dq, a), dq - rnea_derivatives(model, q, v, zero)[0])
        < EXACT
    )
    # d2tau_dqdv is independent of ν̇ and linear in ν
    assert (
        rel_err(rnea_second_derivatives(model, q, 2 * v, -a).d2tau_dqdv, 2 * d2.d2tau_dqdv) < EXACT
    )


def test_T7_configuration_hessian_asymmetry_is_the_bracket(case):
    """d2q[:, b, c] − d2q[:, c, b] = −s^l_bc ∂τ/∂q_l: nonzero only within spherical,
    planar, Schönflies and free-flyer joints (their body-frame fields do not commute)."""
    model, q, v, a, f_ext = case
    d2q = rnea_second_derivatives(model, q, v, a, f_ext=f_ext).d2tau_dq2
    dq = rnea_derivatives(model, q, v, a, f_ext=f_ext)[0]
    s = joint_structure_constants(model, q)  # s[b, c, l] = s^l_bc
    expected = -np.einsum("bcl,al->abc", s, dq)
    assert rel_err(d2q - d2q.transpose(0, 2, 1), expected) < EXACT
    multi = any(
        j.kind in ("spherical", "planar", "schoenflies", "free_flyer") for j in model.joints
    )
    assert (np.max(np.abs(expected)) > 1e-3) == multi


@pytest.mark.parametrize(
    "kind", ["revolute", "prismatic", "helical", "spherical", "planar", "schoenflies", "free_flyer"]
)
def test_T7_per_joint_type(kind, mixed_tree, rng):
    model = mixed_tree(4, rng, kinds=[kind], floating_base=False)
    q = model.random_configuration(rng)
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    d2q = rnea_second_derivatives(model, q, v, a).d2tau_dq2
    dq = rnea_derivatives(model, q, v, a)[0]
    expected = -np.einsum("bcl,al->abc", joint_structure_constants(model, q), dq)
    assert rel_err(d2q - d2q.transpose(0, 2, 1), expected) < EXACT
    commuting = kind in ("revolute", "prismatic", "helical")
    assert (np.max(np.abs(expected)) < 1e-12) == commuting


def test_T9_velocity_hessian_is_twice_the_christoffel_symbols(case):
    """∂²τ_a/∂ν_b∂ν_c = Γ_abc + Γ_acb (christoffel_symbols, seed 000 Alg. 2): the quadratic
    part of τ is Γ_ajk ν^j ν^k; with the digest's Boltzmann–Hamel form in ∂M/∂q."""
    model, q, v, a, _ = case
    d2 = rnea_second_derivatives(model, q, v, a)
    Gamma = christoffel_symbols(model, q)
    assert rel_err(d2.d2tau_dv2, Gamma + Gamma.transpose(0, 2, 1)) < EXACT
    # digest T9, corrected form: ∂_c M_ab + ∂_b M_ac − ∂_a M_bc − Σ_e (C^e_ba M_ec + C^e_ca M_eb)
    dM, M = d2.dM_dq, crba(model, q)
    s = joint_structure_constants(model, q)  # s[b, a, e] = C^e_ba
    koszul = (
        dM + dM.transpose(0, 2, 1) - dM.transpose(2, 0, 1)
    )  # [a,b,c]: ∂_cM_ab + ∂_bM_ac − ∂_aM_bc
    hamel = np.einsum("bae,ec->abc", s, M) + np.einsum("cae,eb->abc", s, M)
    assert rel_err(d2.d2tau_dv2, koszul - hamel) < EXACT
    # Ṁ along the flow = Σ_c ∂M/∂q_c ν_c (mass_matrix_derivative, seed 000)
    assert rel_err(dM @ v, mass_matrix_derivative(model, q, v)) < EXACT


def test_T9_one_dof_joints_plain_christoffel_form(rng):
    model = robots.random_tree(9, rng=rng)  # revolute and prismatic joints only
    q, v = model.random_configuration(rng), rng.normal(size=model.nv)
    d2 = rnea_second_derivatives(model, q, v, np.zeros(model.nv))
    dM = d2.dM_dq
    assert rel_err(d2.d2tau_dv2, dM + dM.transpose(0, 2, 1) - dM.transpose(2, 0, 1)) < EXACT
    dv = rnea_derivatives(model, q, v, np.zeros(model.nv))[1]
    assert rel_err(dM @ v, 0.5 * (dv + dv.T)) < EXACT
    # T10: at rest, d2q is the third derivative of the potential energy (fully symmetric)
    d2q = rnea_second_derivatives(model, q, np.zeros(model.nv), np.zeros(model.nv)).d2tau_dq2
    for perm in [(0, 2, 1), (1, 0, 2), (2, 1, 0)]:
        assert rel_err(d2q, d2q.transpose(perm)) < EXACT


def _body_of_dof(model):
    return np.concatenate([[i] * j.nv for i, j in enumerate(model.joints)] + [[]]).astype(int)


def test_T11_mass_matrix_derivative_structure(case):
    model, q, v, a, _ = case
    dM = rnea_second_derivatives(model, q, v, a).dM_dq
    assert rel_err(dM, dM.transpose(1, 0, 2)) < EXACT
    body = _body_of_dof(model)
    anc = [set(model.supports(i)) for i in range(model.n_bodies)]
    for x, y, z in np.ndindex(dM.shape):
        if body[z] in anc[body[x]] and body[z] in anc[body[y]]:
            assert dM[x, y, z] == 0.0  # B21: M is invariant to a common ancestor joint


def test_T12_floating_base_translation_invariance(mixed_tree, rng):
    model = mixed_tree(12, rng, floating_base=True)
    q = model.random_configuration(rng)
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    tr = [3, 4, 5]  # the free flyer's body-frame translations
    dq = rnea_derivatives(model, q, v, a)[0]
    d2 = rnea_second_derivatives(model, q, v, a)
    scale = max(1.0, np.max(np.abs(d2.d2tau_dq2)))
    assert np.max(np.abs(dq[:, tr])) < EXACT * max(1.0, np.max(np.abs(dq)))
    for block in (
        d2.d2tau_dq2[:, :, tr],
        d2.d2tau_dq2[:, tr, :],
        d2.d2tau_dqdv[:, tr, :],
        d2.dM_dq[:, :, tr],
    ):
        assert np.max(np.abs(block)) < EXACT * scale


def test_T13_sparsity_and_relabelling(case):
    """Zero unless the three DoFs lie on one root-to-leaf path; another valid numbering of
    the same tree permutes all four tensors consistently."""
    model, q, v, a, f_ext = case
    d2 = rnea_second_derivatives(model, q, v, a, f_ext=f_ext)
    body = _body_of_dof(model)
    anc = [set(model.supports(i)) for i in range(model.n_bodies)]
    related = np.zeros((model.nv,) * 3, dtype=bool)
    for x, y, z in np.ndindex(related.shape):
        b = (body[x], body[y], body[z])
        related[x, y, z] = all(k in anc[max(b)] for k in b)  # the deepest one's path
    assert not related.all()
    for T in d2:
        assert np.all(T[~related] == 0.0)
    # the same graph with the children visited in the reverse order
    G = model.graph
    G2 = nx.DiGraph()
    G2.add_nodes_from(reversed(list(G.nodes(data=True))))
    G2.add_edges_from(reversed(list(G.edges(data=True))))
    other = MultibodyModel(G2, gravity=model.gravity)
    assert other.body_names != model.body_names
    perm_v, q2 = [], np.empty(model.nq)
    for i2, name in enumerate(other.body_names):
        i = model.body_names.index(name)
        perm_v.extend(range(model.v_slices[i].start, model.v_slices[i].stop))
        q2[other.q_slices[i2]] = q[model.q_slices[i]]
    p = np.array(perm_v, dtype=int)  # other's DoF k is model's DoF p[k]
    f2 = f_ext[[model.body_names.index(n) for n in other.body_names]]
    d2b = rnea_second_derivatives(other, q2, v[p], a[p], f_ext=f2)
    for T, T2 in zip(d2, d2b, strict=True):
        assert rel_err(T2, T[np.ix_(p, p, p)]) < EXACT


# ---- forward dynamics --------------------------------------------------------------------


def test_aba_derivatives_match_finite_differences(case):
    model, q, v, a, f_ext = case
    tau = rnea(model, q, v, a)
    dq, dv, dtau = aba_derivatives(model, q, v, tau, f_ext=f_ext)
    assert rel_err(dq, fd_q(lambda x: aba(model, x, v, tau, f_ext=f_ext), model, q)) < FD_TOL
    assert rel_err(dv, fd_v(lambda x: aba(model, q, x, tau, f_ext=f_ext), v)) < FD_TOL
    assert rel_err(dtau, np.linalg.inv(crba(model, q))) < 1e-9


def test_aba_second_derivatives_match_finite_differences(case):
    """Differences of the forward-dynamics partials carry the rounding of M⁻¹ (cond M ~ 1e4
    on these trees), which dominates at h = 1e-6: a step of 1e-4 balances it with the
    truncation error (both ~1e-8 here)."""
    model, q, v, a, f_ext = case
    tau = rnea(model, q, v, a, f_ext=f_ext)
    d2 = aba_second_derivatives(model, q, v, tau, f_ext=f_ext)
    fo = lambda qx, vx, tx: aba_derivatives(model, qx, vx, tx, f_ext=f_ext)  # noqa: E731
    h = 1e-4
    assert rel_err(d2.d2qdd_dq2, fd_q(lambda x: fo(x, v, tau)[0], model, q, h)) < FD_TOL
    assert rel_err(d2.d2qdd_dv2, fd_v(lambda x: fo(q, x, tau)[1], v, h)) < FD_TOL
    assert rel_err(d2.d2qdd_dqdv, fd_v(lambda x: fo(q, x, tau)[0], v, h)) < FD_TOL
    assert rel_err(d2.d2qdd_dqdtau, fd_v(lambda x: fo(q, v, x)[0], tau, h)) < FD_TOL
    assert (
        rel_err(d2.d2qdd_dqdtau, fd_q(lambda x: fo(x, v, tau)[2], model, q, h).transpose(0, 2, 1))
        < FD_TOL
    )


# ---- block-sparse output, batching --------------------------------------------------------


def test_block_sparse_output_equals_dense(case, rng):
    model, q, v, a, f_ext = case
    dense = rnea_second_derivatives(model, q, v, a, f_ext=f_ext)
    sparse = rnea_second_derivatives(model, q, v, a, f_ext=f_ext, sparse=True)
    w = rng.normal(size=model.nv)
    for T, S in zip(dense, sparse, strict=True):
        assert isinstance(S, BlockSparseTensor)
        assert S.shape == T.shape and S.values.shape == (S.nnz,)
        np.testing.assert_array_equal(S.todense(), T)
        np.testing.assert_array_equal(T[tuple(S.indices)], S.values)
        for axis, sub in ((0, "abc,a->bc"), (1, "abc,b->ac"), (2, "abc,c->ab")):
            np.testing.assert_allclose(S.contract(w, axis), np.einsum(sub, T, w), atol=1e-12)
    assert sparse.dM_dq.nnz < model.nv**3 or model.depth == model.n_bodies
    assert "nnz" in repr(sparse.dM_dq)


def test_batches_equal_single_states(mixed_tree, rng):
    model = mixed_tree(7, rng, floating_base=True)
    q = model.random_configuration(rng, size=(2, 3))
    v, a = rng.normal(size=(2, 3, model.nv)), rng.normal(size=(2, 3, model.nv))
    tau = rnea(model, q, v, a)
    nv = model.nv
    fo, so = rnea_derivatives(model, q, v, a), rnea_second_derivatives(model, q, v, a)
    sp = rnea_second_derivatives(model, q, v, a, sparse=True)
    afo, aso = aba_derivatives(model, q, v, tau), aba_second_derivatives(model, q, v, tau)
    assert fo[0].shape == (2, 3, nv, nv) and so.dM_dq.shape == (2, 3, nv, nv, nv)
    assert sp.d2tau_dq2.shape == (2, 3, nv, nv, nv) and afo[2].shape == (2, 3, nv, nv)
    for idx in np.ndindex(2, 3):
        single = rnea_derivatives(model, q[idx], v[idx], a[idx])
        single2 = rnea_second_derivatives(model, q[idx], v[idx], a[idx])
        for x, y in zip(fo, single, strict=True):
            np.testing.assert_array_equal(x[idx], y)
        for x, y, z in zip(so, single2, sp, strict=True):
            np.testing.assert_array_equal(x[idx], y)
            np.testing.assert_array_equal(z.todense()[idx], y)
        for x, y in zip(afo, aba_derivatives(model, q[idx], v[idx], tau[idx]), strict=True):
            np.testing.assert_allclose(x[idx], y, rtol=1e-12, atol=1e-12)
        for x, y in zip(aso, aba_second_derivatives(model, q[idx], v[idx], tau[idx]), strict=True):
            np.testing.assert_allclose(x[idx], y, rtol=1e-12, atol=1e-12)
    # broadcasting: one configuration, a batch of speeds; contracting a batch
    dq, _ = rnea_derivatives(model, q[0, 0], v, a)
    assert dq.shape == (2, 3, nv, nv)
    np.testing.assert_array_equal(dq[1, 2], rnea_derivatives(model, q[0, 0], v[1, 2], a[1, 2])[0])
    w = rng.normal(size=(2, 3, nv))
    np.testing.assert_allclose(
        sp.d2tau_dv2.contract(w, 0), np.einsum("...abc,...a->...bc", so.d2tau_dv2, w), atol=1e-12
    )


def test_gravity_argument(rng):
    model = robots.serial_chain(5, rng=rng)
    q, v, a = model.random_configuration(rng), rng.normal(size=5), rng.normal(size=5)
    g = np.array([1.0, -2.0, -3.0])
    dq, dv = rnea_derivatives(model, q, v, a, gravity=g)
    assert rel_err(dq, fd_q(lambda x: rnea(model, x, v, a, gravity=g), model, q)) < FD_TOL
    d2 = rnea_second_derivatives(model, q, v, a, gravity=g)
    fd = fd_q(lambda x: rnea_derivatives(model, x, v, a, gravity=g)[0], model, q)
    assert rel_err(d2.d2tau_dq2, fd) < FD_TOL
    tau = rnea(model, q, v, a, gravity=g)
    dqa = aba_derivatives(model, q, v, tau, gravity=g)[0]
    assert rel_err(dqa, fd_q(lambda x: aba(model, x, v, tau, gravity=g), model, q)) < FD_TOL
    d2a = aba_second_derivatives(model, q, v, tau, gravity=g)
    fd = fd_q(lambda x: aba_derivatives(model, x, v, tau, gravity=g)[0], model, q, 1e-4)
    assert rel_err(d2a.d2qdd_dq2, fd) < FD_TOL


def test_literal_values_of_a_hanging_double_pendulum():
    """τ_g = g [2 sin θ1 + sin(θ1+θ2), sin(θ1+θ2)] (unit masses, unit links): at θ = 0,
    ∂g/∂q = g [[3, 1], [1, 1]] and ∂²g_1/∂q_1² = −g (2 sin θ1 + ...) = 0."""
    model = robots.double_pendulum()
    zero = np.zeros(2)
    dq, dv = rnea_derivatives(model, zero, zero, zero)
    np.testing.assert_allclose(dq, 9.81 * np.array([[3.0, 1.0], [1.0, 1.0]]), atol=1e-12)
    np.testing.assert_array_equal(dv, 0.0)
    th = np.array([0.4, 0.3])
    d2q = rnea_second_derivatives(model, th, zero, zero).d2tau_dq2
    s1, s12 = np.sin(th[0]), np.sin(th.sum())
    expected = -9.81 * np.array([[[2 * s1 + s12, s12], [s12, s12]], [[s12, s12], [s12, s12]]])
    np.testing.assert_allclose(d2q, expected, atol=1e-12)


# ---- errors ------------------------------------------------------------------------------


class MyRevolute(Revolute):
    """A user-defined joint class (it goes through the hooks, not a type code)."""


def test_errors():
    model = robots.double_pendulum()
    q, v = np.zeros(2), np.zeros(2)
    for fun in (rnea_derivatives, rnea_second_derivatives, aba_derivatives, aba_second_derivatives):
        with pytest.raises(DimensionError, match=r"`q` to have shape \(\.\.\., 2\)"):
            fun(model, np.zeros(3), v, v)
        with pytest.raises(DimensionError, match="broadcast"):
            fun(model, np.zeros((2, 2)), np.zeros((3, 2)), v)
        with pytest.raises(NonFiniteError, match="`v`"):
            fun(model, q, [np.nan, 0.0], v)
        with pytest.raises(NonFiniteError, match="`gravity`"):
            fun(model, q, v, v, gravity=[0.0, np.inf, 0.0])
        with pytest.raises(DimensionError, match="f_ext"):
            fun(model, q, v, v, f_ext=np.zeros((3, 6)))
        with pytest.raises(ModelError, match="MultibodyModel"):
            fun("not a model", q, v, v)
    ff = robots.random_tree(3, rng=0, floating_base=True)
    bad = ff.neutral()
    bad[3:7] = [0.0, 0.0, 0.0, 2.0]
    with pytest.raises(NotOnManifoldError, match="unit quaternion"):
        rnea_derivatives(ff, bad, np.zeros(ff.nv), np.zeros(ff.nv))


def test_single_state_errors_are_named():
    """The single-state entry points (ndarray inputs) name the input or the overflow, as the
    batch path does; a wrong length falls back to the general path's DimensionError."""
    model = robots.random_tree(4, rng=1, floating_base=True)
    q, z = model.neutral(), np.zeros(model.nv)
    bad = z.copy()
    bad[1] = np.nan
    for fun, last in ((rnea_derivatives, "a"), (aba_derivatives, "tau")):
        with pytest.raises(NonFiniteError, match="`v`"):
            fun(model, q, bad, z)
        with pytest.raises(NonFiniteError, match=f"`{last}`"):
            fun(model, q, z, bad)
        with pytest.raises(NonFiniteError, match="too large"):
            fun(model, q, np.full(model.nv, 1e200), z)
        with pytest.raises(DimensionError, match="`v` to have shape"):
            fun(model, q, np.zeros(model.nv + 1), z)
    q[3:7] = [0.0, 0.0, 0.0, 2.0]
    for fun in (rnea_derivatives, aba_derivatives):
        with pytest.raises(NotOnManifoldError, match="unit quaternion"):
            fun(model, q, z, z)


def test_user_joint_is_refused():
    G = robots.double_pendulum().graph.copy()
    u, w = list(G.edges)[0]
    G.edges[u, w]["joint"] = MyRevolute([0.0, 1.0, 0.0])
    model = MultibodyModel(G)
    with pytest.raises(ModelError, match="user-defined class MyRevolute"):
        rnea_second_derivatives(model, np.zeros(2), np.zeros(2), np.zeros(2))


def test_closed_model_is_refused():
    from geomech.multibody.io.examples import load_example

    model = load_example("four_bar")
    assert model.is_closed
    for fun in (rnea_derivatives, rnea_second_derivatives, aba_derivatives, aba_second_derivatives):
        with pytest.raises(NotATreeError, match="closed model"):
            fun(model, np.zeros(model.nq), np.zeros(model.nv), np.zeros(model.nv))


def test_singular_mass_matrix():
    """A massless leaf: the forward-dynamics partials do not exist (named body)."""
    model = robots.double_pendulum()
    model = model.with_inertias(np.stack([model.inertias[0], np.zeros((6, 6))]))
    with pytest.raises(SingularityError, match="link2|singular"):
        aba_derivatives(model, np.zeros(2), np.zeros(2), np.zeros(2))
    with pytest.raises(SingularityError):
        aba_second_derivatives(model, np.zeros(2), np.zeros(2), np.zeros(2))


def test_contract_errors(rng):
    model = robots.serial_chain(3, rng=rng)
    S = rnea_second_derivatives(
        model, model.neutral(), np.ones(3), np.zeros(3), sparse=True
    ).d2tau_dv2
    with pytest.raises(ParameterError, match="axis"):
        S.contract(np.ones(3), axis=3)
    with pytest.raises(DimensionError, match=r"`w` to have shape \(\.\.\., 3\)"):
        S.contract(np.ones(4))


def test_threaded_batches_equal_serial(rng):
    """Large batches may run in threads (kernels.set_num_threads): the same results."""
    from geomech.multibody import get_num_threads, set_num_threads
    from geomech.multibody._kernels.driver import PARALLEL_THRESHOLD

    model = robots.random_tree(5, rng=rng, floating_base=True)
    B = PARALLEL_THRESHOLD + 5
    q = model.random_configuration(rng, size=B)
    v, a = rng.normal(size=(B, model.nv)), rng.normal(size=(B, model.nv))
    serial = (
        rnea_derivatives(model, q, v, a),
        aba_derivatives(model, q, v, a),
        rnea_second_derivatives(model, q, v, a, sparse=True).d2tau_dq2.values,
    )
    before = get_num_threads()
    set_num_threads(2)
    try:
        threaded = (
            rnea_derivatives(model, q, v, a),
            aba_derivatives(model, q, v, a),
            rnea_second_derivatives(model, q, v, a, sparse=True).d2tau_dq2.values,
        )
    finally:
        set_num_threads(before)
    for x, y in zip(serial[0] + serial[1], threaded[0] + threaded[1], strict=True):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(serial[2], threaded[2])
