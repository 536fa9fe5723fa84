"""Seed 004's approximate and unconstrained models of geared robots (issue 25 items 2 and 4).

References, each computed here independently of the code under test:
- the armature is Σ_r N_rj² I_rot,r, with I_rot the rotor's inertia about its axis read from
  its URDF numbers and N from the couplings;
- each carrier's merged mass, centre of mass and inertia by the parallel-axis theorem;
- the mass-matrix error against the exact cluster model, from the rotor's kinetic energy
  ½(ω_p + a_r s)ᵀ I_r (ω_p + a_r s), s = Σ_j N_rj ẏ_j, derived by hand: for an axisymmetric
  rotor with its centre of mass on its axis the approximation minus the exact matrix is
  I_rot (diag(N_r²) − N_r N_rᵀ) − I_rot (N_r wᵀ + w N_rᵀ), w_j = a_r·ω_p per unit ẏ_j;
- seed 004 §IX-B (Fig. 14): on a belt leg tracking sinusoids, the ankle torque error of the
  approximate model is smaller than that of the unconstrained model (both against the
  exact cluster RNEA).
"""

import numpy as np
import pytest

from geomech.errors import ModelError
from geomech.multibody import ClosedMultibodyModel
from geomech.multibody.algorithms.dynamics import crba, rnea
from geomech.multibody.algorithms.kinematics import body_jacobians, forward_kinematics
from geomech.multibody.closed import (
    approximate_transmission_model,
    link_reflected_inertia_model,
    reflected_inertia,
    unconstrained_transmission_model,
)
from geomech.multibody.io.examples import load_example
from geomech.multibody.io.robots import double_pendulum

MODELS = [("geared_chain", False), ("geared_chain", True), ("belt_leg", False), ("belt_leg", True)]


def _decompose(I):  # noqa: E741
    """(mass, centre of mass, rotational inertia about it) of a 6×6 spatial inertia."""
    m = I[5, 5]
    c = np.array([I[2, 4], I[0, 5], I[1, 3]]) / m
    return m, c, I[:3, :3] - m * (np.dot(c, c) * np.eye(3) - np.outer(c, c))


def _ratios(model):
    """{rotor body: N_r (nv,)} from the couplings: q̇_r = ratio · (q̇ of its predecessor
    relative to the rotor's carrier), the predecessor's speeds being independent joints."""
    st = model.spanning_tree
    out = {}
    for con in model.constraints:
        r = con.succ
        N = np.zeros(model.nv)
        j, carrier = con.pred, int(st.parent[r])
        while j != carrier:  # the predecessor's rate relative to the carrier: the joints between
            N[model.v_slice(st.joint_names[j])] += con.ratio
            j = int(st.parent[j])
        out[r] = N
    return out


@pytest.mark.parametrize(("name", "floating"), MODELS)
def test_armature_is_the_diagonal_reflected_inertia(name, floating):
    model = load_example(name, floating_base=floating)
    approx = approximate_transmission_model(model)
    st = model.spanning_tree
    expected = np.zeros(model.nv)
    for r, N in _ratios(model).items():
        a = st.joints[r].axis
        _, c, Ic = _decompose(st.inertias[r])
        assert np.allclose(np.cross(c, a), 0.0)  # the shipped rotors: centre on the axis
        I_rot = a @ Ic @ a  # about the axis (through the centre of mass)
        expected += N**2 * I_rot
    assert approx.joint_names == model.independent_joints
    assert np.allclose(approx.armature, expected, rtol=1e-14, atol=0)
    assert np.all(unconstrained_transmission_model(model).armature == 0.0)


@pytest.mark.parametrize(("name", "floating"), MODELS)
def test_merged_carriers_by_the_parallel_axis_theorem(name, floating):
    model = load_example(name, floating_base=floating)
    approx = approximate_transmission_model(model)
    dropped = approximate_transmission_model(model, merge_rotors=False)
    unc = unconstrained_transmission_model(model)
    st = model.spanning_tree
    rotors = {con.succ for con in model.constraints}
    for i, body in enumerate(approx.body_names):
        k = st.body_names.index(body)
        riders = [r for r in rotors if st.parent[r] == k]
        parts = [(*_decompose(st.inertias[k]), np.eye(4))]
        for r in riders:  # the rotor's frame in the carrier's (its joint at zero)
            parts.append((*_decompose(st.inertias[r]), st.placements[r]))
        m = sum(p[0] for p in parts)
        c = sum(p[0] * (p[3][:3, :3] @ p[1] + p[3][:3, 3]) for p in parts) / m
        Ic = np.zeros((3, 3))
        for m_k, c_k, I_k, T in parts:
            R, d = T[:3, :3], T[:3, :3] @ c_k + T[:3, 3] - c
            Ic += R @ I_k @ R.T + m_k * (d @ d * np.eye(3) - np.outer(d, d))
        m_a, c_a, I_a = _decompose(approx.inertias[i])
        assert np.isclose(m_a, m, rtol=1e-14) and np.allclose(c_a, c, rtol=0, atol=1e-14)
        assert np.allclose(I_a, Ic, rtol=0, atol=1e-14)
        assert np.array_equal(dropped.inertias[i], st.inertias[k])
        assert np.array_equal(unc.inertias[i], st.inertias[k])


def _predicted_error(model, q):
    """H_approx − GᵀHG from the rotors' kinetic energy (module docstring)."""
    st = model.spanning_tree
    G, _ = model.constraint_matrices(q, np.zeros(model.nv))
    T = forward_kinematics(st, q)
    J = body_jacobians(st, q)
    dH = np.zeros((model.nv, model.nv))
    for r, N in _ratios(model).items():
        a_r = st.joints[r].axis
        I_rot = a_r @ _decompose(st.inertias[r])[2] @ a_r
        p = int(st.parent[r])
        w = np.zeros(model.nv)
        if p >= 0:
            w = (T[r, :3, :3] @ a_r) @ (T[p, :3, :3] @ J[p, :3] @ G)  # a_r · ω_p per speed
        dH += I_rot * (np.diag(N**2) - np.outer(N, N) - np.outer(N, w) - np.outer(w, N))
    return dH


@pytest.mark.parametrize(("name", "floating"), MODELS)
def test_mass_matrix_error_is_what_the_paper_drops(name, floating):
    model = load_example(name, floating_base=floating)
    approx = approximate_transmission_model(model)
    rng = np.random.default_rng(4)
    for q in model.random_configuration(rng, size=4):
        y = np.concatenate([q[model.q_slice(n)] for n in approx.joint_names])
        H_exact = crba(model, q)
        dH = crba(approx, y) - H_exact
        assert np.allclose(
            dH, _predicted_error(model, q), rtol=0, atol=1e-12 * np.abs(H_exact).max()
        )


def test_without_rotor_inertia_the_models_agree():
    """Seed 004 §5 identity 15: rotor inertia → 0, exact = approximate = unconstrained."""
    G = load_example("belt_leg").graph.copy()
    for node in ("hip_rotor", "knee_rotor", "ankle_rotor"):
        G.nodes[node]["inertia"] = np.zeros((6, 6))
    model = ClosedMultibodyModel(G)
    q, v, a = _tracking(model, np.linspace(0.0, 0.5, 7))
    exact = rnea(model, q, v, a)
    for tree in (approximate_transmission_model(model), unconstrained_transmission_model(model)):
        assert np.allclose(rnea(tree, _y(model, q), v, a), exact, rtol=0, atol=1e-12)


def test_refusals():
    with pytest.raises(ModelError, match="closed model"):
        approximate_transmission_model(double_pendulum())
    with pytest.raises(ModelError, match="couplings"):
        approximate_transmission_model(load_example("four_bar"))


def test_reflected_inertia_is_deprecated_for_the_link_model():
    model = load_example("geared_chain")
    with pytest.deprecated_call(match="not seed 004's approximate model"):
        old = reflected_inertia(model)
    new = link_reflected_inertia_model(model)
    assert np.array_equal(old.inertias, new.inertias)


# ----------------------------------------------------------------------------------------
# seed 004 §IX-B, Fig. 14: tracking sinusoids on a belt leg
# ----------------------------------------------------------------------------------------
def _tracking(model, t, A=0.5, omega=1.5):
    """Spanning q, independent ẏ, ÿ of y_j = A sin(2πωt) on every joint (seed 004 §IX-B)."""
    s, c = np.sin(2 * np.pi * omega * t), np.cos(2 * np.pi * omega * t)
    y = A * s[:, None] * np.ones(model.nv)
    v = 2 * A * np.pi * omega * c[:, None] * np.ones(model.nv)
    a = -4 * A * np.pi**2 * omega**2 * s[:, None] * np.ones(model.nv)
    return model.integrate(model.neutral(), y), v, a


def _y(model, q):
    return np.concatenate([q[..., model.q_slice(n)] for n in model.independent_joints], axis=-1)


def test_fig14_ankle_error_ordering():
    """Approximate ankle RMS error < unconstrained ankle RMS error (the paper: 1.04 < 4.31)."""
    model = load_example("belt_leg")
    q, v, a = _tracking(model, np.arange(0.0, 2.0, 1e-3))
    exact = rnea(model, q, v, a)
    y = _y(model, q)
    rms = {}
    for label, tree in (("approx", approximate_transmission_model(model)),
                        ("unc", unconstrained_transmission_model(model))):  # fmt: skip
        rms[label] = np.sqrt(np.mean((rnea(tree, y, v, a) - exact) ** 2, axis=0))
    ankle = model.independent_joints.index("ankle")
    assert 0.0 < rms["approx"][ankle] < rms["unc"][ankle]


def test_tutorial_15_runs(monkeypatch, capsys, tmp_path):
    """The tutorial runs headless; its energy balance and Fig. 14 table hold."""
    import re
    import runpy
    from pathlib import Path

    plt = pytest.importorskip("matplotlib.pyplot")
    path = Path(__file__).resolve().parents[2] / "tutorials"
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("GEOMECH_FIGURES", str(tmp_path))
    plt.switch_backend("Agg")
    try:
        runpy.run_path(str(path / "15_approximate_transmission_models.py"), run_name="__main__")
    finally:
        plt.close("all")
    out = capsys.readouterr().out
    lost, work = map(float, re.search(r"energy lost (\S+) J, friction work (\S+) J", out).groups())
    assert abs(lost - work) < 1e-4 * lost
    rows = {
        label: [float(x) for x in re.findall(r"(\d+\.\d+) \(", line)]
        for label, line in re.findall(r"^\s+(approximate|unconstrained) (.*)$", out, re.M)
    }
    assert all(a < u for a, u in zip(rows["approximate"], rows["unconstrained"], strict=True))
    assert [p.name for p in tmp_path.iterdir()] == ["15_approximate_transmission_models_1.png"]
