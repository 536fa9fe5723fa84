"""Joint armature, damping, friction and limits (issue 27 item 4).

References: Pinocchio 4.1 with ``model.armature`` set (its ``aba``/``crba``/``rnea`` include
the armature), the defining formula ``(H + diag(armature))⁻¹(τ − b)`` with ``H`` and ``b``
of the same model without armature, Pinocchio's URDF reader for ``<dynamics>`` and
``<limit>``, and the energy balance of a damped simulation.
"""

import numpy as np
import pytest

from geomech import aba, crba, rnea, simulate
from geomech.errors import ModelError, URDFError
from geomech.multibody import MultibodyModel, robots
from geomech.multibody.algorithms.dynamics import (
    clamp_to_limits,
    joint_friction_torques,
    kinetic_energy,
)
from geomech.multibody.io.urdf import load_urdf, to_urdf

pin = pytest.importorskip("pinocchio")
from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio  # noqa: E402


def _with(model, rng, keys=("armature",), low=0.05, high=2.0):
    """The model with random per-speed values of ``keys`` on every edge, and the values."""
    G = model.graph.copy()
    for _, _, d in G.edges(data=True):
        for key in keys:
            d[key] = rng.uniform(low, high, d["joint"].nv)
    out = MultibodyModel(G, gravity=model.gravity)
    return out


def _without(model):
    """The same model with no joint dynamics (the reference H and b)."""
    G = model.graph.copy()
    for _, _, d in G.edges(data=True):
        for key in ("armature", "damping", "friction"):
            d.pop(key, None)
    return MultibodyModel(G, gravity=model.gravity)


def _rel(x, y):
    return float(np.max(np.abs(x - y)) / max(1.0, float(np.max(np.abs(y)))))


# ----------------------------------------------------------------------------------------
# against Pinocchio with model.armature set
# ----------------------------------------------------------------------------------------
PIN_KINDS = ["revolute", "prismatic", "helical", "spherical", "planar", "free_flyer", "fixed"]


@pytest.mark.parametrize("seed", range(6))
def test_armature_matches_pinocchio_on_random_trees(seed, mixed_tree, random_state):
    rng = np.random.default_rng(seed)
    model = _with(mixed_tree(9, rng, kinds=PIN_KINDS), rng)
    pm = to_pinocchio(model)
    bridge = PinocchioBridge(model, pm)
    assert np.allclose(np.sort(pm.armature), np.sort(model.armature), rtol=0, atol=0)
    for _ in range(5):
        q, v, a = random_state(model, rng)
        tau = rng.normal(size=model.nv)
        assert _rel(crba(model, q), bridge.crba(q)) < 1e-11
        assert _rel(rnea(model, q, v, a), bridge.rnea(q, v, a)) < 1e-11
        assert _rel(aba(model, q, v, tau), bridge.aba(q, v, tau)) < 1e-10


@pytest.mark.parametrize("name", ["ur5", "stretch", "jvrc1"])
def test_armature_matches_pinocchio_on_robots(name):
    rng = np.random.default_rng(7)
    model = _with(robots.load(name), rng)
    bridge = PinocchioBridge(model, to_pinocchio(model))
    q = model.random_configuration(rng, size=8)
    v, tau = rng.normal(size=(2, 8, model.nv))
    assert _rel(crba(model, q), np.stack([bridge.crba(x) for x in q])) < 1e-11
    assert _rel(aba(model, q, v, tau), np.stack(list(map(bridge.aba, q, v, tau)))) < 1e-10
    assert _rel(rnea(model, q, v, tau), np.stack(list(map(bridge.rnea, q, v, tau)))) < 1e-11


# ----------------------------------------------------------------------------------------
# against the defining formula, with the model without armature as reference
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_armature_formulas_on_every_joint_type(seed, mixed_tree, random_state):
    rng = np.random.default_rng(100 + seed)
    model = _with(mixed_tree(8, rng), rng)
    ref = _without(model)
    K = np.diag(model.armature)
    q, v, a = random_state(model, rng, size=6)
    tau = rng.normal(size=(6, model.nv))
    H0 = crba(ref, q)
    b0 = rnea(ref, q, v, np.zeros_like(v))
    # crba: H + diag(armature); rnea: + armature * a; aba: (H + diag)⁻¹ (τ − b)
    assert _rel(crba(model, q), H0 + K) < 1e-13
    assert _rel(rnea(model, q, v, a), rnea(ref, q, v, a) + model.armature * a) < 1e-13
    expected = np.linalg.solve(H0 + K, (tau - b0)[..., None])[..., 0]
    assert _rel(aba(model, q, v, tau), expected) < 1e-9
    T = kinetic_energy(ref, q, v) + 0.5 * np.sum(model.armature * v * v, axis=-1)
    assert _rel(kinetic_energy(model, q, v), T) < 1e-13


def test_armature_on_a_free_flyer_hands_inertia_to_its_parent(rng):
    """A 6-DoF joint with armature is no longer rigid in the ABA (I^a_i ≠ 0)."""
    model = _with(robots.load("humanoid"), rng, low=0.1, high=0.5)
    ref = _without(model)
    q = model.random_configuration(rng)
    v, tau = rng.normal(size=(2, model.nv))
    H = crba(ref, q) + np.diag(model.armature)
    b = rnea(ref, q, v, np.zeros(model.nv))
    assert _rel(aba(model, q, v, tau), np.linalg.solve(H, tau - b)) < 1e-10


def test_absent_joint_dynamics_are_zero_and_limits_infinite(rng):
    model = robots.quadruped()
    for name in ("armature", "damping", "friction"):
        assert np.array_equal(getattr(model, name), np.zeros(model.nv))
    assert np.all(np.isinf(model.velocity_limit)) and np.all(np.isinf(model.effort_limit))
    assert np.all(model.lower_position_limit == -np.inf)
    assert np.all(model.upper_position_limit == np.inf)
    with pytest.raises(ValueError, match="read-only"):
        model.armature[0] = 1.0


@pytest.mark.parametrize(
    ("attrs", "match"),
    [
        ({"armature": -1.0}, "at least 0"),
        ({"damping": [1.0, 2.0]}, "1 numbers"),
        ({"friction": np.inf}, "finite"),
        ({"limits": {"lower": 1.0, "upper": 0.0}}, "lower"),
        ({"limits": {"effort": "x"}}, "effort"),
        ({"limits": [1, 2]}, "dict"),
    ],
)
def test_bad_joint_dynamics_are_refused(attrs, match):
    G = robots.double_pendulum().graph.copy()
    G.edges["world", "link1"].update(attrs)
    with pytest.raises(ModelError, match=match):
        MultibodyModel(G)


# ----------------------------------------------------------------------------------------
# URDF
# ----------------------------------------------------------------------------------------
URDF = """<robot name="r">
  <link name="base"/>
  <link name="a"><inertial><mass value="1"/><origin xyz="0 0 -0.5"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <link name="b"><inertial><mass value="2"/><origin xyz="0 0 -0.5"/>
    <inertia ixx="0.2" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.2"/></inertial></link>
  <link name="c"><inertial><mass value="0.5"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="2" effort="30" velocity="4"/>
    <dynamics damping="0.5" friction="0.25" armature="0.3"/></joint>
  <joint name="j2" type="continuous"><parent link="a"/><child link="b"/><axis xyz="0 1 0"/>
    <origin xyz="0 0 -1"/><limit effort="7" velocity="9"/><dynamics damping="0.1"/></joint>
  <joint name="j3" type="prismatic"><parent link="b"/><child link="c"/><axis xyz="0 0 1"/>
    <limit lower="-0.1" upper="0.2" effort="100" velocity="1"/></joint>
</robot>"""


def test_urdf_dynamics_and_limits_as_pinocchio_reads_them():
    model = load_urdf(URDF)
    pm = pin.buildModelFromXML(URDF)
    assert np.array_equal(model.damping, pm.damping)
    assert np.array_equal(model.friction, pm.friction)
    assert np.array_equal(model.effort_limit, pm.effortLimit)
    assert np.array_equal(model.velocity_limit, pm.velocityLimit)
    assert model.armature.tolist() == [0.3, 0.0, 0.0]  # geomech's attribute (Pinocchio: none)
    # position limits: those of the bounded joints (Pinocchio's continuous joint is (cos, sin))
    assert model.lower_position_limit.tolist() == [-1.5, -np.inf, -0.1]
    assert model.upper_position_limit.tolist() == [2.0, np.inf, 0.2]


def test_urdf_round_trip_keeps_dynamics_and_limits():
    model = load_urdf(URDF)
    back = load_urdf(to_urdf(model))
    for name in ("armature", "damping", "friction", "velocity_limit", "effort_limit",
                 "lower_position_limit", "upper_position_limit"):  # fmt: skip
        assert np.array_equal(getattr(back, name), getattr(model, name)), name
    # and Pinocchio reads the written file's damping and friction as geomech does
    pm = pin.buildModelFromXML(to_urdf(model))
    assert np.array_equal(pm.damping, model.damping)


def test_to_urdf_refuses_unequal_dynamics_on_one_joint():
    G = robots.quadruped().graph.copy()
    G.edges["world", "trunk"]["damping"] = np.arange(6.0)
    with pytest.raises(URDFError, match="one damping per joint"):
        to_urdf(MultibodyModel(G))


def test_urdf_bad_dynamics_value():
    with pytest.raises(URDFError, match="dynamics damping"):
        load_urdf(URDF.replace('damping="0.5"', 'damping="abc"'))


# ----------------------------------------------------------------------------------------
# friction torque, limits, forward dynamics
# ----------------------------------------------------------------------------------------
def test_joint_friction_torque_and_forward_dynamics(rng):
    model = load_urdf(URDF)
    v = np.array([[2.0, -3.0, 0.0], [-1.0, 0.5, 4.0]])
    tf = joint_friction_torques(model, v)
    expected = np.array([[-0.5 * 2 - 0.25, 0.3, 0.0], [0.5 + 0.25, -0.05, 0.0]])
    assert np.allclose(tf, expected, rtol=0, atol=1e-15)
    q = rng.normal(size=(2, 3))
    tau = rng.normal(size=(2, 3))
    assert np.array_equal(model.forward_dynamics(q, v, tau), aba(model, q, v, tau + tf))


def test_clamp_to_limits():
    model = load_urdf(URDF)
    tau, q, v = clamp_to_limits(model, tau=[50.0, -50, 5], q=[3.0, 9.0, -1.0], v=[-9.0, 9, 9])
    assert tau.tolist() == [30.0, -7.0, 5.0]
    assert q.tolist() == [2.0, 9.0, -0.1]
    assert v.tolist() == [-4.0, 9.0, 1.0]


# ----------------------------------------------------------------------------------------
# simulate: energy balance with damping and friction
# ----------------------------------------------------------------------------------------
def _energy(model, q, v):
    return kinetic_energy(model, q, v) + model.potential_energy(q)


@pytest.mark.parametrize("friction", [0.0, 0.2])
def test_simulate_dissipates_the_friction_work(friction):
    """E(t) − E(0) = ∫ νᵀ τ_f dt: the energy lost equals the work of the joint friction."""
    G = robots.double_pendulum().graph.copy()
    for e, (k_d, k_a) in zip(G.edges, [(0.3, 0.2), (0.1, 0.05)], strict=True):
        G.edges[e].update(damping=k_d, friction=friction, armature=k_a)
    model = MultibodyModel(G)
    q0, v0 = np.array([1.0, -0.5]), np.array([0.5, 1.5])
    res = simulate(model, q0, v0, 2.0, dt=1e-3, on_inaccuracy="ignore")
    E = _energy(model, res.q, res.v)
    power = np.sum(res.v * joint_friction_torques(model, res.v), axis=-1)
    work = np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(res.t))])
    assert E[-1] - E[0] < -0.1  # something was dissipated
    # to the accuracy of the trapezoid rule on the grid (smooth: h²; with a sign switch: h)
    tol = 1e-5 if friction == 0.0 else 2e-3
    assert np.max(np.abs(E - E[0] - work)) < tol * abs(E[-1] - E[0])
    # the compiled kernel and the Python field integrate the same forces
    py = simulate(model, q0, v0, 0.2, dt=1e-3, controller=lambda t, q, v: np.zeros(2),
                  on_inaccuracy="ignore")  # fmt: skip
    short = simulate(model, q0, v0, 0.2, dt=1e-3, on_inaccuracy="ignore")
    assert np.allclose(py.v, short.v, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_aba_derivatives_with_armature_match_differences_of_aba(seed, mixed_tree):
    """∂q̈/∂q, ∂q̈/∂ν by central differences along the group flow of ``aba`` (which includes
    the armature, checked against Pinocchio above) and ∂q̈/∂τ = M⁻¹ with Pinocchio's ``crba``
    (armature included); single states (the fast path) and a batch."""
    from geomech import aba_derivatives, aba_second_derivatives

    rng = np.random.default_rng(seed)
    model = _with(mixed_tree(9, rng, kinds=PIN_KINDS), rng)
    nv = model.nv
    q = model.random_configuration(rng=rng)
    v, tau = rng.normal(size=(2, nv))
    h = 1e-6
    E = np.eye(nv)
    fd_q = np.stack(
        [
            aba(model, model.integrate(q, h * e), v, tau)
            - aba(model, model.integrate(q, -h * e), v, tau)
            for e in E
        ],
        axis=1,
    ) / (2 * h)
    fd_v = np.stack([aba(model, q, v + h * e, tau) - aba(model, q, v - h * e, tau) for e in E], 1)
    H = PinocchioBridge(model, to_pinocchio(model)).crba(q)
    d_q, d_v, d_tau = aba_derivatives(model, q, v, tau)
    assert _rel(d_q, fd_q) < 1e-6
    assert _rel(d_v, fd_v / (2 * h)) < 1e-6
    assert _rel(d_tau, np.linalg.inv(H)) < 1e-10
    Q, V, TAU = np.stack([q, q]), np.stack([v, v]), np.stack([tau, tau])
    for x, y in zip(aba_derivatives(model, Q, V, TAU), (d_q, d_v, d_tau), strict=True):
        assert np.allclose(x, y[None], rtol=0, atol=1e-12)
    with pytest.raises(ModelError, match="armature"):
        aba_second_derivatives(model, q, v, tau)


def test_rnea_derivatives_hold_with_armature(rng):
    from geomech import rnea_derivatives

    model = _with(robots.double_pendulum(), rng)
    q, v, a = rng.normal(size=(3, 2))
    # ∂τ/∂q, ∂τ/∂ν: the armature term k_a ν̇ depends on neither (central differences)
    h = 1e-6
    dq = np.stack([rnea(model, q + h * e, v, a) - rnea(model, q - h * e, v, a) for e in np.eye(2)])
    dv = np.stack([rnea(model, q, v + h * e, a) - rnea(model, q, v - h * e, a) for e in np.eye(2)])
    d_q, d_v = rnea_derivatives(model, q, v, a)
    assert np.allclose(d_q, dq.T / (2 * h), atol=1e-8)
    assert np.allclose(d_v, dv.T / (2 * h), atol=1e-8)


def test_closed_models_refuse_joint_dynamics():
    from geomech.multibody import ClosedMultibodyModel
    from geomech.multibody.io.examples import load_example

    G = load_example("geared_chain").graph.copy()
    u, v = next((u, v) for u, v, d in G.edges(data=True) if d.get("kind", "joint") == "joint")
    G.edges[u, v]["damping"] = 0.1
    with pytest.raises(ModelError, match="nonzero damping"):
        ClosedMultibodyModel(G)
