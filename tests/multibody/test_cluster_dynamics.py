"""Seed 004's cluster algorithms (C-RNEA, C-ABA, C-EFPA) against independent references.

* Forward dynamics of every shipped closed model, fixed and floating base, through the public
  ``aba`` (default method "cluster"): Pinocchio's ``constraintDynamics`` with
  ``RigidConstraintModel``s for loops, and the projection from Pinocchio's
  ``crba``/``nonLinearEffects`` with a G written from the URDF+ definition for couplings.
* The three methods agree to 1e-9, ``rnea(aba(tau)) = tau``, ``crba = GᵀHG``.
* C-EFPA equals :math:`J_y\\bar H^{-1}J_y^\\top` with J and H from Pinocchio.
* On trees (one body per cluster, seed 004 §5 identity 11) the cluster kernels are the RNEA,
  the ABA and the EFPA.
* Every path of the kernels' shape codes (the general dense blocks, one output body, block
  diagonal, one DoF and their one-sweep combinations) against the dense projection: the
  shipped models' clusters all take the specialised branches, so the flags are withdrawn
  (a flag only permits skipping work: any cluster is correct without it).
* Batched = looped; validators.
"""

import numpy as np
import pinocchio as pin
import pytest
from loops_helpers import ALL, COUPLINGS, LOOPS, PinLoops, coupling_G, rel_err

from geomech.errors import ModelError, NonFiniteError, NotOnManifoldError
from geomech.multibody import robots
from geomech.multibody._kernels.cluster.compiled import cluster_layout
from geomech.multibody._kernels.cluster.tables import BLOCK_DIAGONAL, ONE_DOF, ONE_OUTPUT, SHAPE
from geomech.multibody.algorithms.dynamics import aba, crba, gravity_forces, rnea
from geomech.multibody.closed.dynamics import (
    cluster_aba,
    cluster_rnea,
    inverse_operational_space_inertia,
    projected_aba,
    projected_rnea,
)
from geomech.multibody.io.examples import load_example

RTOL = 1e-8
N_STATES = 8


def _states(model, rng, n=N_STATES):
    q = model.random_configuration(rng, size=n)
    return q, rng.normal(size=(n, model.nv)), rng.normal(size=(n, model.nv))


@pytest.mark.parametrize(("name", "floating"), LOOPS)
def test_c_aba_matches_pinocchio_constraint_dynamics(name, floating):
    model = load_example(name, floating_base=floating)
    ref = PinLoops(model)
    rng = np.random.default_rng(17)
    q, v, tau = _states(model, rng)
    G, g = model.constraint_matrices(q, v)
    tau_s = np.zeros((N_STATES, model.spanning_tree.nv))
    tau_s[:, model.independent_v_index] = tau
    a = aba(model, q, v, tau)  # default: C-ABA
    qdd = np.einsum("nij,nj->ni", G, a) + g
    worst = max(rel_err(qdd[k], ref.forward_dynamics(q[k], G[k] @ v[k], tau_s[k]))
                for k in range(N_STATES))  # fmt: skip
    assert worst < RTOL


@pytest.mark.parametrize(("name", "floating"), COUPLINGS)
def test_c_aba_matches_pinocchio_projection(name, floating):
    model = load_example(name, floating_base=floating)
    ref = PinLoops(model)
    G = coupling_G(model)
    rng = np.random.default_rng(18)
    q, v, tau = _states(model, rng)
    a = aba(model, q, v, tau)
    for k in range(N_STATES):
        H, nle = ref.mass_and_bias(q[k], G @ v[k])
        expected = np.linalg.solve(G.T @ H @ G, tau[k] - G.T @ nle)
        assert rel_err(a[k], expected) < RTOL


@pytest.mark.parametrize(("name", "floating"), ALL)
def test_methods_agree_and_round_trip(name, floating):
    model = load_example(name, floating_base=floating)
    rng = np.random.default_rng(19)
    q, v, a = _states(model, rng)
    f_ext = rng.normal(size=(N_STATES, model.n_bodies, 6))
    gravity = rng.normal(size=3)
    for kw in ({}, {"f_ext": f_ext, "gravity": gravity}):
        tau = rnea(model, q, v, a, **kw)  # C-RNEA
        assert rel_err(tau, projected_rnea(model, q, v, a, **kw)) < 1e-9
        results = {m: aba(model, q, v, tau, method=m, **kw)
                   for m in ("cluster", "projection", "lagrange")}  # fmt: skip
        for m, acc in results.items():
            assert rel_err(acc, a) < 1e-9, m  # rnea(aba(tau)) = tau, and the methods agree
        assert rel_err(rnea(model, q, v, results["cluster"], **kw), tau) < 1e-9


@pytest.mark.parametrize(("name", "floating"), ALL)
def test_crba_and_gravity_forces_on_closed_models(name, floating):
    model = load_example(name, floating_base=floating)
    rng = np.random.default_rng(20)
    q, v, _ = _states(model, rng, 3)
    G, _ = model.constraint_matrices(q, v)
    H = crba(model.spanning_tree, q)
    assert rel_err(crba(model, q), np.swapaxes(G, -1, -2) @ H @ G) < 1e-12
    z = np.zeros_like(v)
    tau_g = np.einsum("nij,ni->nj", G, gravity_forces(model.spanning_tree, q))
    assert rel_err(gravity_forces(model, q), tau_g) < 1e-10
    assert rel_err(rnea(model, q, z, z, method="projection"), tau_g) < 1e-10
    # column j of H̄ is C-RNEA(e_j) − C-RNEA(0) without gravity (seed 004 §5 identity 2)
    H_bar = crba(model, q)
    zero_g = np.zeros(3)
    base = cluster_rnea(model, q, v, z, gravity=zero_g)
    for j in range(model.nv):
        e = np.zeros_like(v)
        e[:, j] = 1.0
        assert rel_err(cluster_rnea(model, q, v, e, gravity=zero_g) - base, H_bar[..., j]) < 1e-10


def _pin_jacobians(model, q, bodies):
    """Body-frame Jacobians (angular first) over the spanning speeds, from Pinocchio."""
    br = PinLoops(model).bridge
    pm, pd = br.pin_model, br.pin_data
    pin.computeJointJacobians(pm, pd, br.q_to_pin(q))
    P = br.P
    rows = []
    for b in bodies:
        jid, M = br.body_frames[b]
        J = M.inverse().action @ pin.getJointJacobian(pm, pd, jid, pin.ReferenceFrame.LOCAL)
        rows.append(np.vstack([J[3:], J[:3]]) @ P)
    return np.vstack(rows)


@pytest.mark.parametrize(("name", "floating"), ALL)
def test_c_efpa_equals_dense_inverse_osim(name, floating):
    model = load_example(name, floating_base=floating)
    rng = np.random.default_rng(21)
    q = model.random_configuration(rng, size=3)
    N = model.n_bodies
    bodies = [N - 1, N // 2, 0] if N > 2 else [N - 1, 0]
    W = inverse_operational_space_inertia(model, q, [model.body_names[b] for b in bodies])
    ref = PinLoops(model)
    for k in range(3):
        G = (coupling_G(model) if name in ("geared_chain", "belt_leg")
             else model.constraint_matrices(q[k], np.zeros(model.nv))[0])  # fmt: skip
        H, _ = ref.mass_and_bias(q[k], np.zeros(model.spanning_tree.nv))
        J = _pin_jacobians(model, q[k], bodies) @ G
        expected = J @ np.linalg.solve(G.T @ H @ G, J.T)
        assert rel_err(W[k], expected) < RTOL
        assert np.allclose(W[k], W[k].T, rtol=0, atol=1e-12)
    W_p = inverse_operational_space_inertia(model, q, bodies, method="projection")
    assert rel_err(W, W_p) < 1e-9


@pytest.mark.parametrize(
    "make",
    [
        robots.double_pendulum,
        robots.humanoid,
        lambda: robots.random_tree(8, rng=3, floating_base=True),
    ],
)
def test_cluster_kernels_on_trees_are_rnea_aba_efpa(make):
    model = make()
    rng = np.random.default_rng(22)
    q = model.random_configuration(rng, size=4)
    v, a = rng.normal(size=(4, model.nv)), rng.normal(size=(4, model.nv))
    f_ext = rng.normal(size=(4, model.n_bodies, 6))
    tau = rnea(model, q, v, a, f_ext=f_ext)
    assert rel_err(cluster_rnea(model, q, v, a, f_ext=f_ext), tau) < 1e-12
    assert rel_err(cluster_aba(model, q, v, tau, f_ext=f_ext), a) < 1e-10
    assert (
        rel_err(cluster_aba(model, q, v, tau, f_ext=f_ext), aba(model, q, v, tau, f_ext=f_ext))
        < 1e-10
    )
    bodies = [model.n_bodies - 1, 0]
    W = inverse_operational_space_inertia(model, q, bodies)
    W_p = inverse_operational_space_inertia(model, q, bodies, method="projection")
    assert rel_err(W, W_p) < 1e-9


@pytest.mark.parametrize(("name", "floating"), [*COUPLINGS, ("four_bar", True), ("six_bar", False)])
@pytest.mark.parametrize(
    "keep", [0, ONE_OUTPUT, BLOCK_DIAGONAL, ONE_DOF, ONE_OUTPUT | BLOCK_DIAGONAL]
)
def test_every_shape_path_matches_the_projection(name, floating, keep):
    model = load_example(name, floating_base=floating)
    rng = np.random.default_rng(24)
    q, v, a = _states(model, rng, 3)
    bodies = [model.n_bodies - 1, 0]
    ref = (projected_rnea(model, q, v, a), inverse_operational_space_inertia(model, q, bodies,
           method="projection"))  # fmt: skip
    lay = cluster_layout(model)
    shape = lay.cclus[:, SHAPE].copy()
    assert np.all(shape[:-1] & (ONE_OUTPUT | BLOCK_DIAGONAL) == ONE_OUTPUT | BLOCK_DIAGONAL)
    lay.cclus[:, SHAPE] &= keep
    try:
        tau = rnea(model, q, v, a)
        acc = aba(model, q, v, tau)
        W = inverse_operational_space_inertia(model, q, bodies)
    finally:
        lay.cclus[:, SHAPE] = shape
    assert rel_err(tau, ref[0]) < 1e-9
    assert rel_err(acc, a) < 1e-9
    assert rel_err(W, ref[1]) < 1e-9


def test_batched_equals_looped():
    model = load_example("planar_leg", floating_base=True)
    rng = np.random.default_rng(23)
    q, v, a = _states(model, rng, 6)
    q, v, a = q.reshape(2, 3, -1), v.reshape(2, 3, -1), a.reshape(2, 3, -1)
    tau = rnea(model, q, v, a)
    acc = aba(model, q, v, tau)
    W = inverse_operational_space_inertia(model, q, ["foot", 1])
    assert tau.shape == (2, 3, model.nv) and W.shape == (2, 3, 12, 12)
    for idx in np.ndindex(2, 3):
        assert np.array_equal(tau[idx], rnea(model, q[idx], v[idx], a[idx]))
        assert np.array_equal(acc[idx], aba(model, q[idx], v[idx], tau[idx]))
        assert np.array_equal(W[idx], inverse_operational_space_inertia(model, q[idx], ["foot", 1]))
    # a state shared by the batch (one row) broadcasts
    model = load_example("geared_chain")
    q = model.random_configuration(rng)
    v = rng.normal(size=(5, model.nv))
    assert rel_err(aba(model, q, v, v)[3], aba(model, q, v[3], v[3])) < 1e-15


def test_validators():
    tree = robots.double_pendulum()
    z = np.zeros(2)
    for f in (lambda m: rnea(tree, z, z, z, method=m), lambda m: aba(tree, z, z, z, method=m),
              lambda m: crba(tree, z, method=m)):  # fmt: skip
        with pytest.raises(ModelError, match="Expected `method` None or 'tree'"):
            f("cluster")
        f("tree")
    model = load_example("four_bar")
    q = model.neutral()
    with pytest.raises(ModelError, match="Expected `method` for aba on a closed model"):
        aba(model, q, [0.0], [0.0], method="tree")
    with pytest.raises(NotOnManifoldError, match="loop constraints"):
        aba(model, q + 0.1, [0.0], [0.0])
    geared = load_example("geared_chain")
    with pytest.raises(NotOnManifoldError, match="loop constraints"):
        rnea(geared, geared.neutral() + 0.1, np.zeros(3), np.zeros(3))
    with pytest.raises(NonFiniteError, match="`v`"):
        aba(geared, geared.neutral(), [np.nan, 0.0, 0.0], np.zeros(3))
    with pytest.raises(ModelError, match="Expected `method` from"):
        inverse_operational_space_inertia(model, q, ["rocker"], method="osim")
    with pytest.raises(ModelError, match="Expected a body name"):
        inverse_operational_space_inertia(model, q, ["nowhere"])
    with pytest.raises(ModelError, match="body indices"):
        inverse_operational_space_inertia(model, q, [7])
    with pytest.raises(ModelError, match="at least one body"):
        inverse_operational_space_inertia(model, q, [])
    with pytest.raises(ModelError, match="a body name, an index or a sequence"):
        inverse_operational_space_inertia(model, q, 1.5)
    assert (
        rel_err(projected_aba(model, q, [1.0], [0.0]), cluster_aba(model, q, [1.0], [0.0])) < 1e-12
    )


@pytest.mark.parametrize("name", ["four_bar", "planar_leg", "geared_chain", "belt_leg"])
def test_one_contiguous_state_takes_the_fast_path_with_the_general_results_and_errors(
    name, monkeypatch
):
    """One state as contiguous float64 arrays (the kernel called on views of one row) gives
    the projection's result and the general path's errors (inputs as lists go that way)."""
    import geomech.multibody.closed.dynamics as CD

    model = load_example(name)
    rng = np.random.default_rng(5)
    q, v, a = (x[0].copy() for x in _states(model, rng, 1))
    general = CD._cluster_inputs
    with monkeypatch.context() as m:  # the fast path does not take the general one
        m.setattr(CD, "_cluster_inputs", None)
        tau = rnea(model, q, v, a)
        aba(model, q, v, tau)
    assert CD._cluster_inputs is general
    assert rel_err(tau, projected_rnea(model, q, v, a)) < 1e-10
    assert np.array_equal(tau, rnea(model, list(q), list(v), list(a)))
    acc = aba(model, q, v, tau)
    assert rel_err(acc, projected_aba(model, q, v, tau)) < 1e-9
    assert np.array_equal(acc, aba(model, list(q), list(v), list(tau)))
    for f in (rnea, aba):
        for k, j, bad in ((0, 0, np.nan), (0, -1, 0.3), (1, 0, np.nan), (2, 0, np.inf)):
            args = [q.copy(), v.copy(), a.copy()]
            args[k][j] += bad  # NaN, an open configuration, NaN, inf
            with pytest.raises(Exception) as fast:
                f(model, *args)
            with pytest.raises(type(fast.value)) as general:
                f(model, *(list(x) for x in args))
            assert isinstance(fast.value, (NonFiniteError, NotOnManifoldError))
            assert str(fast.value) == str(general.value)
