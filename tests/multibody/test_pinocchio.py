"""RNEA, CRBA, ABA, gravity, kinematics and kinetic energy against Pinocchio (the reference).

Three sources of models, each compared on many seeded random states (evaluated by geomech in
one batched call, by Pinocchio in a loop):

(a) the URDFs shipped in ``geomech/multibody/io/data``, loaded by ``load_urdf`` and by
    ``pinocchio.buildModelFromUrdf`` (fixed and floating base), joints paired by name;
(b) the built-in generated models written out by ``to_urdf`` and read back by
    ``pinocchio.buildModelFromXML``;
(c) random trees of 1–60 bodies mixing every joint type, converted joint by joint by
    :class:`~geomech.interop.pinocchio.PinocchioBridge`.

The acceptance bar is 1e-9 relative (max error over max |reference|, floored at 1).
"""

import numpy as np
import pinocchio as pin
import pytest

from geomech.errors import ModelError
from geomech.interop.pinocchio import PinocchioBridge, twist_from_pin
from geomech.multibody import robots
from geomech.multibody.algorithms.dynamics import aba, crba, gravity_forces, kinetic_energy, rnea
from geomech.multibody.algorithms.kinematics import body_velocities, forward_kinematics
from geomech.multibody.io.urdf import load_urdf, to_urdf

RTOL = 1e-9
N_STATES = 12


def rel_err(actual, expected):
    """Max abs error relative to the size of the reference (floored at 1)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    return float(np.max(np.abs(actual - expected)) / max(1.0, float(np.max(np.abs(expected)))))


def _is_shipped(name):
    try:
        robots.urdf_path(name)
    except ModelError:
        return False
    return True


SHIPPED = [("ur5", False), ("stretch", False), ("stretch", True), ("jvrc1", False), ("jvrc1", True)]
GENERATED = [n for n in robots.names() if not _is_shipped(n)]


def compare_with_pinocchio(bridge, rng, n_states=N_STATES):
    """Compare every algorithm on ``n_states`` random states; return the worst errors."""
    model = bridge.model
    q = model.random_configuration(rng, size=n_states)
    v = rng.normal(size=(n_states, model.nv))
    a = rng.normal(size=(n_states, model.nv))
    f_ext = rng.normal(size=(n_states, model.n_bodies, 6))
    # geomech: one batched call per algorithm
    tau = rnea(model, q, v, a)
    tau_f = rnea(model, q, v, a, f_ext=f_ext)
    H = crba(model, q)
    dv = aba(model, q, v, tau)
    dv_f = aba(model, q, v, tau, f_ext=f_ext)
    g = gravity_forces(model, q)
    T = forward_kinematics(model, q)
    V = body_velocities(model, q, v)
    ke = kinetic_energy(model, q, v)
    worst = {}

    def record(key, err):
        worst[key] = max(worst.get(key, 0.0), err)

    for k in range(n_states):
        record("rnea", rel_err(tau[k], bridge.rnea(q[k], v[k], a[k])))
        record("rnea f_ext", rel_err(tau_f[k], bridge.rnea(q[k], v[k], a[k], f_ext[k])))
        record("crba", rel_err(H[k], bridge.crba(q[k])))
        record("aba", rel_err(dv[k], bridge.aba(q[k], v[k], tau[k])))
        record("aba f_ext", rel_err(dv_f[k], bridge.aba(q[k], v[k], tau[k], f_ext[k])))
        record("gravity", rel_err(g[k], bridge.gravity_forces(q[k])))
        record("kinetic energy", rel_err(ke[k], bridge.kinetic_energy(q[k], v[k])))
        record("forward kinematics", rel_err(T[k], bridge.forward_kinematics(q[k])))
        pin.forwardKinematics(
            bridge.pin_model, bridge.pin_data, bridge.q_to_pin(q[k]), bridge.v_to_pin(v[k])
        )
        V_pin = [
            twist_from_pin(M.actInv(bridge.pin_data.v[jid]).vector) for jid, M in bridge.body_frames
        ]
        record("body velocities", rel_err(V[k], np.stack(V_pin)))
    for key, err in worst.items():
        assert err <= RTOL, f"{key}: relative error {err:.3g} > {RTOL:g}"
    return worst


@pytest.mark.parametrize(
    ("name", "floating_base"),
    SHIPPED,
    ids=[f"{n}-{'floating' if f else 'fixed'}" for n, f in SHIPPED],
)
def test_shipped_urdf_matches_pinocchio(name, floating_base, rng):
    path = str(robots.urdf_path(name))
    model = load_urdf(path, floating_base=floating_base)
    pm = (
        pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
        if floating_base
        else pin.buildModelFromUrdf(path)
    )
    assert pm.nv == model.nv
    bridge = PinocchioBridge(model, pm)
    compare_with_pinocchio(bridge, rng)


@pytest.mark.parametrize("name", GENERATED)
def test_builtin_model_written_as_urdf_matches_pinocchio(name, rng):
    model = robots.load(name)
    pm = pin.buildModelFromXML(to_urdf(model))
    assert pm.nv == model.nv
    bridge = PinocchioBridge(model, pm)
    compare_with_pinocchio(bridge, rng)


@pytest.mark.parametrize("name", GENERATED + ["ur5"])
def test_builtin_model_via_bridge_matches_pinocchio(name, rng):
    compare_with_pinocchio(PinocchioBridge(robots.load(name)), rng, n_states=4)


@pytest.mark.parametrize("n", [1, 2, 5, 12, 30, 60])
@pytest.mark.parametrize("seed", [0, 1])
def test_random_tree_matches_pinocchio(n, seed, mixed_tree):
    rng = np.random.default_rng([n, seed])
    model = mixed_tree(n, rng, floating_base=bool(seed))
    compare_with_pinocchio(PinocchioBridge(model), rng)


@pytest.mark.parametrize(
    "kind",
    [
        "revolute",
        "prismatic",
        "helical",
        "spherical",
        "planar",
        "schoenflies",
        "free_flyer",
        "fixed",
    ],
)
def test_each_joint_type_matches_pinocchio(kind, mixed_tree, rng):
    """Chains of one joint type (plus a revolute root so that fixed joints carry a body)."""
    model = mixed_tree(6, rng, kinds=[kind], floating_base=False)
    compare_with_pinocchio(PinocchioBridge(model), rng, n_states=6)


def test_random_tree_generator_uses_all_joint_types(mixed_tree):
    """Sanity check of the fixture: the 60-body trees exercise every joint type."""
    kinds = set()
    for seed in (0, 1):
        model = mixed_tree(60, np.random.default_rng([60, seed]), floating_base=bool(seed))
        kinds |= {j.kind for j in model.joints}
    assert len(kinds) == 8, kinds
