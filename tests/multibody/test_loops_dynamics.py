"""Dynamics of closed chains (projection and Lagrange baselines) against independent references.

* Loops (four-bar, six-bar, planar leg; fixed and floating base): the spanning-tree
  accelerations :math:`\\ddot q_s = G\\dot v + g` equal ``pinocchio.constraintDynamics`` with
  ``RigidConstraintModel``s on the spanning tree (which also checks G and g).
* Couplings (geared chain, belt leg; fixed and floating base): the projection computed from
  Pinocchio's ``crba``/``nonLinearEffects`` with a G written from the URDF+ definition.
* Both methods agree to 1e-9; ``rnea(aba(tau)) = tau``; the mass matrix is
  :math:`G^\\top H G`, symmetric positive definite, with columns ``rnea(e_j) - rnea(0)``.
"""

import numpy as np
import pinocchio as pin
import pytest
from loops_helpers import ALL, COUPLINGS, LOOPS, PinLoops, coupling_G, rel_err

from geomech.errors import ModelError, NotOnManifoldError
from geomech.multibody.algorithms.dynamics import crba, kinetic_energy, rnea
from geomech.multibody.closed.dynamics import (
    METHODS,
    closed_aba,
    closed_crba,
    closed_gravity_forces,
    closed_rnea,
    lagrange_aba,
    projected_aba,
    projected_crba,
    projected_rnea,
    register_method,
)
from geomech.multibody.io.examples import load_example
from geomech.multibody.io.robots import double_pendulum

RTOL = 1e-8
N_STATES = 10


def _states(model, rng, n=N_STATES):
    q = model.random_configuration(rng, size=n)
    return q, rng.normal(size=(n, model.nv)), rng.normal(size=(n, model.nv))


@pytest.mark.parametrize(("name", "floating"), LOOPS)
def test_forward_dynamics_matches_pinocchio_constraint_dynamics(name, floating):
    model = load_example(name, floating_base=floating)
    ref = PinLoops(model)
    rng = np.random.default_rng(7)
    q, v, tau = _states(model, rng)
    G, g = model.constraint_matrices(q, v)
    tau_s = np.zeros((N_STATES, model.spanning_tree.nv))
    tau_s[:, model.independent_v_index] = tau
    for method in ("projection", "lagrange"):
        a = closed_aba(model, q, v, tau, method=method)
        qdd = np.einsum("nij,nj->ni", G, a) + g
        worst = max(
            rel_err(qdd[k], ref.forward_dynamics(q[k], G[k] @ v[k], tau_s[k]))
            for k in range(N_STATES)
        )
        assert worst < RTOL, (method, worst)


@pytest.mark.parametrize(("name", "floating"), COUPLINGS)
def test_forward_dynamics_matches_pinocchio_projection(name, floating):
    model = load_example(name, floating_base=floating)
    ref = PinLoops(model)
    G_ref = coupling_G(model)
    rng = np.random.default_rng(8)
    q, v, tau = _states(model, rng)
    G, g = model.constraint_matrices(q, v)
    assert np.max(np.abs(G - G_ref)) < 1e-14 and np.max(np.abs(g)) < 1e-14
    for method in ("projection", "lagrange"):
        a = closed_aba(model, q, v, tau, method=method)
        for k in range(N_STATES):
            H, nle = ref.mass_and_bias(q[k], G_ref @ v[k])
            expected = np.linalg.solve(G_ref.T @ H @ G_ref, tau[k] - G_ref.T @ nle)
            assert rel_err(a[k], expected) < RTOL, method


@pytest.mark.parametrize(("name", "floating"), ALL)
def test_projection_and_lagrange_agree(name, floating):
    model = load_example(name, floating_base=floating)
    rng = np.random.default_rng(9)
    q, v, tau = _states(model, rng)
    f_ext = rng.normal(size=(N_STATES, model.n_bodies, 6))
    gravity = rng.normal(size=3)
    for kwargs in ({}, {"f_ext": f_ext, "gravity": gravity}):
        a_p = projected_aba(model, q, v, tau, **kwargs)
        a_l = lagrange_aba(model, q, v, tau, **kwargs)
        assert rel_err(a_l, a_p) < 1e-9


@pytest.mark.parametrize(("name", "floating"), ALL)
def test_inverse_and_forward_dynamics_round_trip(name, floating):
    model = load_example(name, floating_base=floating)
    rng = np.random.default_rng(10)
    q, v, a = _states(model, rng)
    f_ext = rng.normal(size=(N_STATES, model.n_bodies, 6))
    tau = projected_rnea(model, q, v, a, f_ext=f_ext)
    assert rel_err(projected_aba(model, q, v, tau, f_ext=f_ext), a) < 1e-9
    assert rel_err(closed_rnea(model, q, v, a, f_ext=f_ext), tau) < 1e-12  # default method
    # the Lagrange baseline solves the KKT system with K q̈ = k (no G): the same torques
    assert rel_err(closed_rnea(model, q, v, a, f_ext=f_ext, method="lagrange"), tau) < 1e-9


@pytest.mark.parametrize(("name", "floating"), ALL)
def test_mass_matrix_is_the_projected_tree_inertia(name, floating):
    model = load_example(name, floating_base=floating)
    rng = np.random.default_rng(11)
    q, v, _ = _states(model, rng, 4)
    H_bar = projected_crba(model, q)
    G, _ = model.constraint_matrices(q, v)
    H = crba(model.spanning_tree, q)
    assert rel_err(H_bar, np.swapaxes(G, -1, -2) @ H @ G) < 1e-12
    assert np.allclose(H_bar, np.swapaxes(H_bar, -1, -2), rtol=0, atol=1e-12)
    assert np.all(np.linalg.eigvalsh(H_bar) > 0)
    assert rel_err(closed_crba(model, q), H_bar) < 1e-14
    # column j of H̄ is C-RNEA(e_j) − C-RNEA(0) (seed 004 §5 identity 2)
    zero = np.zeros((4, model.nv))
    base = projected_rnea(model, q, v, zero)
    for j in range(model.nv):
        e = np.zeros((4, model.nv))
        e[:, j] = 1.0
        assert rel_err(projected_rnea(model, q, v, e) - base, H_bar[..., j]) < 1e-10


def test_gravity_forces_and_bias_split():
    model = load_example("six_bar", floating_base=True)
    rng = np.random.default_rng(12)
    q, v, a = _states(model, rng, 3)
    z = np.zeros_like(v)
    g_bar = closed_gravity_forces(model, q)
    assert rel_err(projected_rnea(model, q, z, z), g_bar) < 1e-14
    H = projected_crba(model, q)
    bias = projected_rnea(model, q, v, z)
    assert rel_err(projected_rnea(model, q, v, a), np.einsum("nij,nj->ni", H, a) + bias) < 1e-10
    # without gravity and at rest nothing moves
    assert np.max(np.abs(closed_gravity_forces(model, q, gravity=[0.0, 0.0, 0.0]))) == 0.0


def test_geared_rotor_adds_reflected_inertia():
    """Hand-derivable: at the neutral pose of the geared chain, the diagonal entry of the
    first joint in G^T H G exceeds the spanning-tree link entry by N² I_rotor (rotor on the
    base, coaxial joint)."""
    model = load_example("geared_chain")
    st = model.spanning_tree
    q = model.neutral()
    H = crba(st, q)
    H_bar = projected_crba(model, q)
    i, r = st.v_slice("joint1").start, st.v_slice("rotor1_joint").start
    Ir = H[r, r]  # the rotor's inertia about its axis
    assert abs(H_bar[0, 0] - (H[i, i] + 36.0 * Ir)) < 1e-14 * H_bar[0, 0] + 1e-15
    assert H[i, r] == 0.0  # rotor and link hang from the base side by side


def test_batched_inputs_give_the_unbatched_results():
    model = load_example("planar_leg")
    rng = np.random.default_rng(13)
    q, v, tau = _states(model, rng, 6)
    q, v, tau = q.reshape(2, 3, -1), v.reshape(2, 3, -1), tau.reshape(2, 3, -1)
    a = projected_aba(model, q, v, tau)
    assert a.shape == (2, 3, model.nv)
    assert rel_err(a[1, 2], projected_aba(model, q[1, 2], v[1, 2], tau[1, 2])) < 1e-14
    assert projected_crba(model, q).shape == (2, 3, 2, 2)
    assert rnea(model.spanning_tree, q, np.zeros((2, 3, 4)), np.zeros((2, 3, 4))).shape == (2, 3, 4)


def test_methods_and_validators():
    model = load_example("four_bar")
    q = model.neutral()
    with pytest.raises(ModelError, match="Expected `method` for aba on a closed model"):
        closed_aba(model, q, [0.0], [0.0], method="cluster-not-there")
    with pytest.raises(ModelError, match="Expected a closed model"):
        projected_rnea(double_pendulum(), [0.0, 0.0], [0.0, 0.0], [0.0, 0.0])
    with pytest.raises(NotOnManifoldError, match="loop constraints"):
        projected_aba(model, q + 0.1, [0.0], [0.0])
    with pytest.raises(ModelError, match="Expected `kind`"):
        register_method("cholesky", "x", projected_rnea)
    with pytest.raises(ModelError, match="Expected `func` to be callable"):
        register_method("rnea", "x", None)
    # the method registered as "cluster" is the default
    saved = METHODS["aba"].get("cluster")
    register_method("aba", "cluster", lagrange_aba)
    try:
        assert closed_aba(model, q, [1.0], [0.5]) == pytest.approx(
            lagrange_aba(model, q, [1.0], [0.5])
        )
    finally:
        if saved is None:
            del METHODS["aba"]["cluster"]
        else:
            METHODS["aba"]["cluster"] = saved


@pytest.mark.parametrize(("name", "floating"), ALL)
def test_kinetic_energy_matches_pinocchio_on_the_spanning_tree(name, floating):
    """T(q, v) = Pinocchio's kinetic energy of the spanning tree moving with G v."""
    model = load_example(name, floating_base=floating)
    br = PinLoops(model).bridge
    rng = np.random.default_rng(9)
    q, v, _ = _states(model, rng, n=4)
    G, _ = model.constraint_matrices(q, v)
    T = kinetic_energy(model, q, v)
    assert T.shape == (4,)
    for k in range(4):
        qd_s = G[k] @ v[k]
        ref = pin.computeKineticEnergy(
            br.pin_model, br.pin_data, br.q_to_pin(q[k]), br.v_to_pin(qd_s)
        )
        assert abs(T[k] - ref) <= 1e-12 * max(1.0, abs(ref))
        assert abs(kinetic_energy(model, q[k], v[k]) - ref) <= 1e-12 * max(1.0, abs(ref))
