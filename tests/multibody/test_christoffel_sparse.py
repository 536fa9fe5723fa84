"""Block-sparse Christoffel symbols and the contracted forms, against independent references.

- the block-sparse Γ equals the dense Γ (itself checked against the RNEA polarization oracle,
  the Koszul formula, Pinocchio and sympy in test_christoffel.py), single and batched, on
  random trees mixing every joint type;
- its pattern is exactly the DoF triples on one root-to-leaf path, built here from
  ``model.supports`` alone, and the RNEA polarization oracle (independent of Alg. 2) has no
  entry outside it;
- Γ·ν, νᵀΓν and every single contraction against numpy's einsum of the dense tensor, against
  Alg. 1 (``coriolis_matrix``) and RNEA;
- dC/dq·δq against central differences of ``coriolis_matrix`` along ``model.integrate`` and
  against the dense Γ differenced along the flow and contracted by numpy.
"""

import numpy as np
import pytest
from test_coriolis_models import user_joint_tree

from conftest import mixed_tree, random_state
from geomech.errors import DimensionError, NotATreeError, ParameterError
from geomech.multibody import BlockSparseTensor, robots
from geomech.multibody.algorithms.christoffel import christoffel_symbols
from geomech.multibody.algorithms.coriolis import coriolis_matrix, coriolis_matrix_derivative
from geomech.multibody.algorithms.derivatives import rnea_second_derivatives
from geomech.multibody.algorithms.dynamics import rnea
from geomech.multibody.io.examples import load_example

SEEDS = range(6)


def tree(seed):
    """A random tree of 4–9 bodies mixing every joint type (fixed and floating bases)."""
    rng = np.random.default_rng(seed)
    return mixed_tree(int(rng.integers(4, 10)), rng, floating_base=bool(seed % 2))


def path_pattern(model):
    """mask[x, y, z]: the three DoFs' bodies lie on one root-to-leaf path (mutually related)."""
    body = np.concatenate(
        [np.full(sl.stop - sl.start, i) for i, sl in enumerate(model.v_slices)] + [[]]
    ).astype(int)
    anc = [set(model.supports(i)) for i in range(model.n_bodies)]
    related = np.array(
        [[a in anc[b] or b in anc[a] for b in range(model.n_bodies)] for a in range(model.n_bodies)]
    )
    R = related[np.ix_(body, body)]
    return R[:, :, None] & R[:, None, :] & R[None, :, :]


def polarization(model, q):
    """Γ[:, j, k] + Γ[:, k, j] = ½[c(e_j + e_k) − c(e_j − e_k)], c = RNEA at zero gravity and
    acceleration (exact: c is quadratic in ν)."""
    n = model.nv
    E = np.eye(n)
    V = np.stack([E[:, None] + E[None], E[:, None] - E[None]])  # (2, j, k, n)
    c = rnea(model, q, V, np.zeros(n), gravity=np.zeros(3))
    return np.moveaxis(0.5 * (c[0] - c[1]), -1, 0)  # [i, j, k]


@pytest.mark.parametrize("seed", SEEDS)
def test_sparse_equals_dense_single_and_batched(seed):
    model = tree(seed)
    rng = np.random.default_rng(100 + seed)
    q = model.random_configuration(rng)
    G = christoffel_symbols(model, q, sparse=True)
    assert isinstance(G, BlockSparseTensor) and G.shape == (model.nv,) * 3
    assert np.array_equal(G.todense(), christoffel_symbols(model, q))
    Q = model.random_configuration(rng, size=(2, 3))
    Gb = christoffel_symbols(model, Q, sparse=True)
    assert Gb.shape == (2, 3) + (model.nv,) * 3 and Gb.values.shape == (2, 3, Gb.nnz)
    dense = christoffel_symbols(model, Q)
    assert np.array_equal(np.asarray(Gb), dense)
    for idx in np.ndindex(2, 3):  # each state of the batch is the single-state result
        assert np.array_equal(
            christoffel_symbols(model, Q[idx], sparse=True).values, Gb.values[idx]
        )


def test_sparse_equals_dense_with_user_joints():
    model = user_joint_tree()  # Phi_ring != 0 and parent-frame spherical joints
    q = model.random_configuration(np.random.default_rng(7), size=2)
    assert np.array_equal(
        christoffel_symbols(model, q, sparse=True).todense(), christoffel_symbols(model, q)
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_pattern_is_exactly_the_support_paths(seed):
    model = tree(seed)
    mask = path_pattern(model)
    q = model.random_configuration(np.random.default_rng(seed))
    G = christoffel_symbols(model, q, sparse=True)
    # the stored entries: each triple of the pattern once, nothing else
    flat = np.ravel_multi_index(tuple(G.indices), mask.shape)
    assert len(np.unique(flat)) == G.nnz == int(mask.sum())
    assert mask.ravel()[flat].all()


@pytest.mark.parametrize("seed", SEEDS)
def test_no_nonzero_outside_the_pattern(seed):
    """The RNEA oracle (independent of Alg. 2) is zero off the pattern; Alg. 2 matches it."""
    model = tree(seed)
    q = model.random_configuration(np.random.default_rng(seed + 50))
    mask = path_pattern(model)
    sym = polarization(model, q)
    scale = max(1.0, float(np.abs(sym).max()))
    assert np.abs(sym[~mask]).max(initial=0.0) <= 1e-12 * scale
    dense = christoffel_symbols(model, q, sparse=True).todense()
    assert np.abs(dense + dense.transpose(0, 2, 1) - sym).max() <= 1e-10 * scale


def test_pattern_of_a_binary_tree_is_small_and_of_a_chain_full():
    tree_model = robots.binary_tree(63, rng=0)
    G = christoffel_symbols(tree_model, tree_model.neutral(), sparse=True)
    assert G.nnz == int(path_pattern(tree_model).sum()) and G.nnz < 0.05 * tree_model.nv**3
    chain = robots.serial_chain(12, rng=0)
    assert christoffel_symbols(chain, chain.neutral(), sparse=True).nnz == chain.nv**3


@pytest.mark.parametrize("seed", SEEDS)
def test_contractions_against_numpy_alg1_and_rnea(seed):
    model = tree(seed)
    rng = np.random.default_rng(200 + seed)
    q, v, _ = random_state(model, rng, size=3)
    w, x = rng.normal(size=(2, 3, model.nv))
    G = christoffel_symbols(model, q, sparse=True)
    D = christoffel_symbols(model, q)
    for axis, spec in enumerate(("xyz,x->yz", "xyz,y->xz", "xyz,z->xy")):
        expected = np.einsum("..." + spec.replace(",", ",...").replace("->", "->..."), D, w)
        assert np.allclose(G.contract(w, axis=axis), expected, rtol=1e-12, atol=1e-12)
    for axes, spec in (((1, 2), "ijk,j,k->i"), ((0, 2), "ijk,i,k->j"), ((2, 0), "ijk,k,i->j")):
        s = "...ijk,...a,...b->...c".replace("a", spec[4]).replace("b", spec[6])
        expected = np.einsum(s.replace("c", spec[-1]), D, w, x)
        assert np.allclose(G.bilinear(w, x, axes=axes), expected, rtol=1e-12, atol=1e-12)
    C = coriolis_matrix(model, q, v)  # Alg. 1, Levi-Civita body connections
    scale = max(1.0, float(np.abs(C).max()))
    assert np.abs(G.contract(v, axis=1) - C).max() <= 1e-11 * scale
    c = rnea(model, q, v, np.zeros(model.nv), gravity=np.zeros(3))  # C ν = bias forces
    assert np.abs(G.bilinear(v, v) - c).max() <= 1e-11 * scale * max(1.0, np.abs(v).max())


def test_contraction_broadcasts_a_single_tensor_against_vectors():
    model = robots.random_tree(6, rng=3, floating_base=True)
    q = model.random_configuration(rng=4)
    G = christoffel_symbols(model, q, sparse=True)
    W = np.random.default_rng(5).normal(size=(4, model.nv))
    assert G.contract(W, axis=1).shape == (4, model.nv, model.nv)
    assert np.allclose(G.contract(W, axis=1), np.einsum("ijk,bj->bik", G.todense(), W))


def test_second_derivatives_share_the_container_and_the_pattern():
    model = tree(3)
    q, v, a = random_state(model, np.random.default_rng(9))
    d2 = rnea_second_derivatives(model, q, v, a, sparse=True)
    G = christoffel_symbols(model, q, sparse=True)
    dense = rnea_second_derivatives(model, q, v, a)
    for T, D in zip(d2, dense, strict=True):
        assert type(T) is BlockSparseTensor and np.array_equal(T.indices, G.indices)
        assert np.array_equal(T.todense(), D)
        w = np.random.default_rng(1).normal(size=model.nv)
        assert np.allclose(T.contract(w, axis=2), np.einsum("abc,c->ab", D, w))


def five_point(f, h):
    return (f(-2 * h) - 8 * f(-h) + 8 * f(h) - f(2 * h)) / (12 * h)


@pytest.mark.parametrize("seed", SEEDS)
def test_coriolis_derivative_against_differences_along_the_flow(seed):
    rng = np.random.default_rng(300 + seed)
    model = mixed_tree(int(rng.integers(3, 8)), rng, floating_base=bool(seed % 2))
    q, v, _ = random_state(model, rng)
    dq = rng.normal(size=model.nv)
    dC = coriolis_matrix_derivative(model, q, v, dq)
    fd = five_point(lambda e: coriolis_matrix(model, model.integrate(q, dq, e), v), 1e-3)
    scale = max(1.0, float(np.abs(fd).max()))
    assert np.abs(dC - fd).max() <= 1e-6 * scale
    # the dense Γ differenced along the flow, contracted with ν by numpy
    dG = five_point(lambda e: christoffel_symbols(model, model.integrate(q, dq, e)), 1e-3)
    assert np.abs(dC - np.einsum("ijk,j->ik", dG, v)).max() <= 1e-6 * scale


def test_coriolis_derivative_batched_and_linear_in_the_direction():
    model = robots.random_tree(5, rng=2, floating_base=True)
    rng = np.random.default_rng(11)
    q, v, _ = random_state(model, rng, size=3)
    d1, d2 = rng.normal(size=(2, 3, model.nv))
    dC = coriolis_matrix_derivative(model, q, v, d1)
    assert dC.shape == (3, model.nv, model.nv)
    for b in range(3):
        assert np.allclose(dC[b], coriolis_matrix_derivative(model, q[b], v[b], d1[b]))
    both = coriolis_matrix_derivative(model, q, v, 2.0 * d1 - d2)
    assert np.allclose(both, 2.0 * dC - coriolis_matrix_derivative(model, q, v, d2))


def test_named_errors():
    model = robots.random_tree(4, rng=0)
    G = christoffel_symbols(model, model.neutral(), sparse=True)
    with pytest.raises(ParameterError):
        G.contract(np.ones(model.nv), axis=3)
    with pytest.raises(DimensionError):
        G.contract(np.ones(model.nv + 1))
    with pytest.raises(ParameterError):
        G.bilinear(np.ones(model.nv), np.ones(model.nv), axes=(1, 1))
    with pytest.raises(DimensionError):
        G.bilinear(np.ones(model.nv), np.ones(2))
    with pytest.raises(DimensionError):
        coriolis_matrix_derivative(model, model.neutral(), np.ones(model.nv), np.ones(2))
    four_bar = load_example("four_bar")  # a closed model: its Γ is dense
    with pytest.raises(NotATreeError):
        christoffel_symbols(four_bar, four_bar.neutral(), sparse=True)


@pytest.mark.parametrize("seed", range(4))
def test_both_routes_of_the_coriolis_derivative_agree(seed, monkeypatch):
    """The column-by-column route (long chains) against finite differences and the IDSVA one."""
    import geomech.multibody.algorithms.coriolis as ch

    rng = np.random.default_rng(400 + seed)
    model = mixed_tree(int(rng.integers(3, 7)), rng, floating_base=bool(seed % 2))
    q, v, _ = random_state(model, rng, size=2)
    dq = rng.normal(size=(2, model.nv))
    by_idsva = coriolis_matrix_derivative(model, q, v, dq)
    monkeypatch.setattr(ch, "_CHUNK", 0)  # forces the polarization route, one column a step
    by_columns = coriolis_matrix_derivative(model, q, v, dq)
    scale = max(1.0, float(np.abs(by_idsva).max()))
    assert np.abs(by_columns - by_idsva).max() <= 1e-10 * scale
    for b in range(2):
        fd = five_point(
            lambda e, b=b: coriolis_matrix(model, model.integrate(q[b], dq[b], e), v[b]), 1e-3
        )
        assert np.abs(by_columns[b] - fd).max() <= 1e-6 * scale


def test_coriolis_derivative_refuses_closed_models():
    four_bar = load_example("four_bar")
    with pytest.raises(NotATreeError):
        coriolis_matrix_derivative(four_bar, four_bar.neutral(), np.zeros(1), np.zeros(1))


@pytest.mark.parametrize("seed", SEEDS)
def test_the_kernels_write_every_stored_entry(seed):
    """The block-sparse outputs are not zero-filled: each kernel must write all of them (NaN
    before the call, none after), including the structurally zero entries of dM/dq."""
    from geomech.multibody._kernels.tree import christoffel as KC
    from geomech.multibody._kernels.tree import derivatives as KD
    from geomech.multibody.algorithms import derivatives as D
    from geomech.multibody.algorithms.blocksparse import layout_arrays

    model = tree(seed)
    cm = model.compiled
    q, v, a = random_state(model, np.random.default_rng(700 + seed))
    Q, status = q[None], np.empty(1, np.int64)
    _, args, size = layout_arrays(model, True)
    T = np.full((1, 4, size), np.nan)
    KD.rnea_second_derivatives_batch(
        *D._model_args(cm), *args, Q, v[None], a[None], cm.a0, D._NO_FORCES, T, status
    )
    G = np.full((1, size), np.nan)
    S, _, T_user = cm.joint_arrays(Q)
    KC.christoffel_batch(*cm.arrays(), *args, S, cm.rate_derivatives(Q), T_user, Q, G, status)
    assert not np.isnan(T).any() and not np.isnan(G).any()


def test_reused_output_blocks_hold_the_new_results(monkeypatch):
    """A released output block serves the next call of its size: the results are those of
    the new state, equal to the dense ones (zero-filled fresh arrays)."""
    from geomech.multibody.algorithms import blocksparse

    monkeypatch.setattr(blocksparse, "REUSE_BYTES", 0)  # every output from a reused block
    model = tree(4)
    rng = np.random.default_rng(8)
    for _ in range(3):
        q, v, a = random_state(model, rng)
        G = christoffel_symbols(model, q, sparse=True)
        address = G.values.__array_interface__["data"][0]
        assert np.array_equal(G.todense(), christoffel_symbols(model, q))
        del G
        G = christoffel_symbols(model, model.random_configuration(rng), sparse=True)
        assert G.values.__array_interface__["data"][0] == address  # the released block
        d2 = rnea_second_derivatives(model, q, v, a, sparse=True)
        for T, D in zip(d2, rnea_second_derivatives(model, q, v, a), strict=True):
            assert np.array_equal(T.todense(), D)
        del d2


def test_an_overflowing_second_derivative_is_reported():
    """Entries are checked only when the vectors they are dot products of exceed
    ``layout.SAFE``: an overflow to inf is still a NonFiniteError."""
    from geomech.errors import NonFiniteError

    model = robots.serial_chain(3, rng=0)
    q, v = model.neutral(), np.full(3, 1e160)
    for sparse in (True, False):
        with pytest.raises(NonFiniteError):
            rnea_second_derivatives(model, q, v, np.zeros(3), sparse=sparse)
    d2 = rnea_second_derivatives(model, q, np.full(3, 1e100), np.zeros(3), sparse=True)
    assert np.isfinite(d2.d2tau_dq2.values).all()


@pytest.mark.parametrize("seed", SEEDS)
def test_second_derivatives_along_a_direction_equal_the_contracted_tensors(seed):
    """IDSVA SO contracted as it runs equals numpy's contraction of the dense partials
    (themselves checked against Pinocchio and finite differences in test_derivatives*)."""
    from geomech.multibody.algorithms.derivatives import second_derivatives_along

    model = tree(seed)
    rng = np.random.default_rng(900 + seed)
    q, v, a = random_state(model, rng, size=2)
    dq = rng.normal(size=(2, model.nv))
    XQV, XM = second_derivatives_along(model, q, v, a, dq)
    d2 = rnea_second_derivatives(model, q, v, a)
    ref_qv = np.einsum("nabc,nb->nac", d2.d2tau_dqdv, dq)
    ref_m = np.einsum("nalb,nb->nal", d2.dM_dq, dq)
    scale = max(1.0, float(np.abs(ref_qv).max()), float(np.abs(ref_m).max()))
    assert np.abs(XQV - ref_qv).max() <= 1e-13 * scale
    assert np.abs(XM - ref_m).max() <= 1e-13 * scale
