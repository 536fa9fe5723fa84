"""The reflected-inertia approximation of geared rotors against its closed-form error.

For an axisymmetric rotor (centre of mass on its axis a_r, axial inertia I_r, ratio N) on a
parent p that also carries the driving link l (axis a_l), the approximation's kinetic energy
minus the exact one is ½N²I_r(a_l·ω_p)² + ẏ_l I_r (N² a_l − N a_r)·ω_p (derived by hand from
the rotor's kinetic energy ½(ω_p + N ẏ_l a_r)ᵀ I_r (ω_p + N ẏ_l a_r)): the rotor's diagonal
term N²I_r is exact, its gyroscopic coupling with the parent's rotation is not. The shipped
geared chain has such rotors (rotor 1 on the fixed base, where the approximation is exact).
"""

import networkx as nx
import numpy as np
import pytest

from geomech.errors import ModelError
from geomech.multibody import ClosedMultibodyModel
from geomech.multibody.algorithms.dynamics import aba, crba
from geomech.multibody.algorithms.kinematics import body_jacobians, forward_kinematics
from geomech.multibody.closed.dynamics import link_reflected_inertia_model
from geomech.multibody.io.examples import load_example
from geomech.multibody.io.robots import double_pendulum


def _reduced_q(model, approx, q):
    return np.concatenate([q[..., model.q_slice(name)] for name in approx.joint_names], axis=-1)


def _predicted_error(model, q):
    """Σ over rotors of the hand-derived ΔH = H̃ − GᵀHG (world-frame axes)."""
    st = model.spanning_tree
    G, _ = model.constraint_matrices(q, np.zeros(model.nv))
    T = forward_kinematics(st, q)
    J = body_jacobians(st, q)  # (N, 6, n_s), body coordinates
    dH = np.zeros((model.nv, model.nv))
    for con in model.constraints:
        r, l = con.succ, con.pred  # noqa: E741
        N = con.ratio
        Phi_r = st.joints[r].motion_subspace(st.joints[r].neutral())[:, 0]
        I_r = Phi_r @ st.inertias[r] @ Phi_r
        p = int(st.parent[r])
        if p < 0:
            continue  # a rotor on the fixed base: exact
        W = T[p, :3, :3] @ J[p, :3] @ G  # ω_p per independent speed, world frame
        a_l = T[l, :3, :3] @ st.joints[l].axis
        a_r = T[r, :3, :3] @ st.joints[r].axis
        c_l = model.v_slices[l].start
        dH += N**2 * I_r * np.outer(a_l @ W, a_l @ W)
        cross = I_r * (N**2 * a_l - N * a_r) @ W
        dH[c_l, :] += cross
        dH[:, c_l] += cross
    return dH


@pytest.mark.parametrize("floating", [False, True])
def test_mass_matrix_error_is_the_gyroscopic_coupling(floating):
    model = load_example("geared_chain", floating_base=floating)
    approx = link_reflected_inertia_model(model)
    assert approx.nv == model.nv and approx.n_bodies == model.n_bodies - 3
    rng = np.random.default_rng(30)
    for q in model.random_configuration(rng, size=4):
        exact = crba(model, q)
        H_approx = crba(approx, _reduced_q(model, approx, q))
        dH = _predicted_error(model, q)
        assert np.max(np.abs(H_approx - exact - dH)) < 1e-12
        # the rotor's own diagonal term N² I_r is exact: the last joint (no rotor downstream)
        c = model.v_slice("joint3").start
        assert abs(H_approx[c, c] - exact[c, c]) < 1e-12
        # ... while the coupling with the parent's rotation is not
        c2, c1 = model.v_slice("joint2").start, model.v_slice("joint1").start
        assert abs(H_approx[c1, c2] - exact[c1, c2]) > 1e-4


def test_rotors_without_inertia_make_the_approximation_exact():
    base = load_example("geared_chain")
    graph = base.graph.copy()
    for r in ("rotor1", "rotor2", "rotor3"):
        graph.nodes[r]["inertia"] = 1e-12 * graph.nodes[r]["inertia"]
    model = ClosedMultibodyModel(graph)
    approx = link_reflected_inertia_model(model)
    rng = np.random.default_rng(31)
    q = model.random_configuration(rng)
    v, tau = rng.normal(size=3), rng.normal(size=3)
    q_red = _reduced_q(model, approx, q)
    assert np.allclose(aba(approx, q_red, v, tau), aba(model, q, v, tau), rtol=1e-9, atol=1e-9)
    # and with the real rotors the approximation differs
    approx = link_reflected_inertia_model(base)
    assert not np.allclose(aba(approx, q_red, v, tau), aba(base, q, v, tau), rtol=1e-6)


def test_validators():
    with pytest.raises(ModelError, match="Expected a closed model"):
        link_reflected_inertia_model(double_pendulum())
    with pytest.raises(ModelError, match="couplings"):
        link_reflected_inertia_model(load_example("four_bar"))
    g = nx.DiGraph(load_example("geared_chain").graph)
    g.add_edge("rotor3", "tip", joint=g.edges["link2", "rotor3"]["joint"], name="tip_joint")
    g.nodes["tip"]["inertia"] = g.nodes["rotor3"]["inertia"]
    with pytest.raises(ModelError, match="to be a rotor"):
        link_reflected_inertia_model(ClosedMultibodyModel(g))
