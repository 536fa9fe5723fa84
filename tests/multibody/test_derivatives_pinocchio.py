"""First-order derivatives of inverse and forward dynamics against Pinocchio (the reference).

``rnea_derivatives`` against ``pin.computeRNEADerivatives`` and ``aba_derivatives`` against
``pin.computeABADerivatives``, with and without external wrenches, on

(a) the URDFs shipped in ``geomech/multibody/io/data`` (fixed and floating base), loaded by
    both libraries and paired joint by joint by name (continuous joints: Pinocchio's
    ``[cos, sin]`` chart has the same one-dimensional tangent);
(b) random trees of 1–40 bodies mixing every joint type, converted by
    :class:`~geomech.interop.pinocchio.PinocchioBridge`.

Both libraries differentiate along their ``integrate`` (the right perturbation of each
joint), so their tangent spaces agree up to the permutation ``P`` of the speeds (angular
vs linear first, planar ordering): ``D_gm = Pᵀ D_pin P``. The bar is 1e-9 relative (max
error over max |reference|, floored at 1).
"""

import numpy as np
import pinocchio as pin
import pytest

from geomech.interop.pinocchio import PinocchioBridge
from geomech.multibody import MultibodyModel, robots
from geomech.multibody.algorithms.derivatives import aba_derivatives, rnea_derivatives
from geomech.multibody.algorithms.dynamics import rnea
from geomech.multibody.io.urdf import load_urdf

RTOL = 1e-9


def rel_err(actual, expected):
    """Max abs error relative to the size of the reference (floored at 1)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    return float(np.max(np.abs(actual - expected)) / max(1.0, float(np.max(np.abs(expected)))))


def copies(arrays):
    return [np.array(x) for x in arrays]


def compare(bridge, rng, n_states=6):
    """geomech (one batched call per function) vs Pinocchio (a loop) on random states."""
    model, P = bridge.model, bridge.P
    pm, pd = bridge.pin_model, bridge.pin_data
    q = model.random_configuration(rng, size=n_states)
    v = rng.normal(size=(n_states, model.nv))
    a = rng.normal(size=(n_states, model.nv))
    f_ext = rng.normal(size=(n_states, model.n_bodies, 6))
    tau = rnea(model, q, v, a)
    results = {
        "rnea": rnea_derivatives(model, q, v, a),
        "rnea f_ext": rnea_derivatives(model, q, v, a, f_ext=f_ext),
        "aba": aba_derivatives(model, q, v, tau),
        "aba f_ext": aba_derivatives(model, q, v, tau, f_ext=f_ext),
    }
    worst = {}
    for k in range(n_states):
        qp, vp, ap, taup = (
            bridge.q_to_pin(q[k]),
            bridge.v_to_pin(v[k]),
            bridge.v_to_pin(a[k]),
            bridge.v_to_pin(tau[k]),
        )
        fp = bridge.f_ext_to_pin(f_ext[k])
        # Pinocchio returns views of its data buffers: copy before the next call
        refs = {
            "rnea": copies(pin.computeRNEADerivatives(pm, pd, qp, vp, ap)[:2]),
            "rnea f_ext": copies(pin.computeRNEADerivatives(pm, pd, qp, vp, ap, fp)[:2]),
            "aba": copies(pin.computeABADerivatives(pm, pd, qp, vp, taup)),
            "aba f_ext": copies(pin.computeABADerivatives(pm, pd, qp, vp, taup, fp)),
        }
        for key, ref in refs.items():
            for name, ours, theirs in zip(("dq", "dv", "dtau"), results[key], ref, strict=False):
                err = rel_err(ours[k], P.T @ np.asarray(theirs) @ P)
                worst[f"{key} {name}"] = max(worst.get(f"{key} {name}", 0.0), err)
    for key, err in worst.items():
        assert err <= RTOL, f"{key}: relative error {err:.3g} > {RTOL:g}"
    return worst


SHIPPED = [("ur5", False), ("stretch", False), ("stretch", True), ("jvrc1", False), ("jvrc1", True)]


@pytest.mark.parametrize(
    ("name", "floating_base"),
    SHIPPED,
    ids=[f"{n}-{'floating' if f else 'fixed'}" for n, f in SHIPPED],
)
def test_shipped_urdf_derivatives_match_pinocchio(name, floating_base, rng):
    path = str(robots.urdf_path(name))
    model = load_urdf(path, floating_base=floating_base)
    pm = (
        pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
        if floating_base
        else pin.buildModelFromUrdf(path)
    )
    assert pm.nv == model.nv
    compare(PinocchioBridge(model, pm), rng)


@pytest.mark.parametrize("name", ["humanoid", "quadruped", "scara", "double_pendulum"])
def test_builtin_robot_derivatives_match_pinocchio(name, rng):
    compare(PinocchioBridge(robots.load(name)), rng, n_states=4)


@pytest.mark.parametrize("n", [1, 3, 12, 40])
@pytest.mark.parametrize("floating_base", [False, True])
def test_random_tree_derivatives_match_pinocchio(n, floating_base, mixed_tree):
    rng = np.random.default_rng([n, int(floating_base)])
    compare(PinocchioBridge(mixed_tree(n, rng, floating_base=floating_base)), rng)


@pytest.mark.parametrize("n", [3, 12, 40])
@pytest.mark.parametrize("floating_base", [False, True])
def test_single_state_calls_match_pinocchio(n, floating_base, mixed_tree):
    """The single-state path (its own entry point: work arrays on the stack for small trees, on
    the heap beyond; the BLAS products from 24 speeds on) against Pinocchio, with a joint
    armature (in M, hence in the forward partials; Pinocchio's ``model.armature``), on
    contiguous and on strided vectors (the general path)."""
    rng = np.random.default_rng([7, n, int(floating_base)])
    G = mixed_tree(n, rng, floating_base=floating_base).graph.copy()
    for _, _, d in G.edges(data=True):
        d["armature"] = rng.uniform(0.05, 0.5, d["joint"].nv)
    model = MultibodyModel(G)
    bridge = PinocchioBridge(model)
    P, pm, pd = bridge.P, bridge.pin_model, bridge.pin_data
    assert np.all(np.asarray(pm.armature)[: pm.nv] > 0.0) or model.nv == 0
    for _ in range(3):
        q = model.random_configuration(rng)
        v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
        tau = rnea(model, q, v, a)
        qp, vp, ap, taup = (bridge.q_to_pin(q), bridge.v_to_pin(v), bridge.v_to_pin(a),
                            bridge.v_to_pin(tau))  # fmt: skip
        refs = (
            copies(pin.computeRNEADerivatives(pm, pd, qp, vp, ap)[:2]),
            copies(pin.computeABADerivatives(pm, pd, qp, vp, taup)),
        )
        for strided in (False, True):
            x = [np.repeat(y, 2)[::2] if strided else y for y in (q, v, a, tau)]
            ours = (rnea_derivatives(model, *x[:3]), aba_derivatives(model, x[0], x[1], x[3]))
            for mine, theirs in zip(ours, refs, strict=True):
                for m, t in zip(mine, theirs, strict=True):
                    assert m.shape == (model.nv, model.nv)
                    assert rel_err(m, P.T @ np.asarray(t) @ P) <= RTOL


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
def test_each_joint_type_derivatives_match_pinocchio(kind, mixed_tree, rng):
    """Chains of one joint type (a revolute root when that type is fixed)."""
    compare(PinocchioBridge(mixed_tree(6, rng, kinds=[kind], floating_base=False)), rng)


def test_random_trees_cover_every_joint_type(mixed_tree):
    """Sanity check of the parametrisation: the 40-body trees above use all eight types."""
    kinds = set()
    for fb in (False, True):
        kinds |= {
            j.kind
            for j in mixed_tree(40, np.random.default_rng([40, int(fb)]), floating_base=fb).joints
        }
    assert len(kinds) == 8, kinds
