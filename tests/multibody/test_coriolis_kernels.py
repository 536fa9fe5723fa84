"""The compiled Coriolis, Christoffel and Slotine-Li kernels (issue 13) against Pinocchio 4.1.

References, all independent of the code under test:

* ``pin.computeCoriolisMatrix`` (Christoffel consistent), ``pin.crba``, ``pin.rnea``,
  ``pin.nonLinearEffects``, ``pin.computeRNEADerivatives`` and ``pin.computeJointTorqueRegressor``,
  through :class:`~geomech.interop.pinocchio.PinocchioBridge` (speed permutations, fixed joints
  merged by Pinocchio), on a random 64-body tree with every joint type, fixed and floating base,
  batched (one call) and single;
* user-defined joints: subclasses of the built-in joints run through the joints' Python hooks
  (the two-stage path) and must equal Pinocchio's built-in joints; a universal joint in
  coordinates (moving axis, :math:`\\mathring{\\boldsymbol\\Phi}\\ne 0`) is Pinocchio's
  composite RX∘RY joint, whose RNEA and regressor agree with geomech but whose
  ``computeCoriolisMatrix`` does not satisfy its own :math:`C\\nu = c` (Pinocchio 4.1.0:
  ``computeCoriolisMatrix(q, v) @ v != nonLinearEffects(q, v)`` for a composite joint), so
  there C is checked against Pinocchio's bias forces and the flow derivative of its mass matrix;
* user-defined body connections: a ``CallableBody`` (seed 000 eq. 18 written with
  ``geomech.spatial``) and a ``BodyConnection`` subclass (eq. 19's block form) reproduce the
  Levi-Civita connection through the generic factor-tensor path and must equal Pinocchio;
* the status codes at the public boundary (non-finite inputs and results, non-unit
  quaternions) and the new validators;
* the primitives appended to ``kernels.spatial`` against ``geomech.spatial``.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from test_coriolis_models import UniversalXY, build, fd_along_flow

from geomech.errors import ConnectionSpecError, NonFiniteError, NotOnManifoldError
from geomech.interop import pinocchio as interop_pinocchio
from geomech.interop.pinocchio import PinocchioBridge
from geomech.lie import SE3
from geomech.multibody import (
    FreeFlyer,
    Helical,
    Planar,
    Prismatic,
    Revolute,
    SchoenfliesJoint,
    Spherical,
    robots,
)
from geomech.multibody._kernels.spatial import (
    compose_transforms,
    dot6,
    inertia_params,
    inertia_params_rate,
    inertia_params_times,
    inertia_params_transform,
)
from geomech.multibody._kernels.tree.kinematics import all_finite
from geomech.multibody.algorithms import _body_factors as body_factors
from geomech.multibody.algorithms.christoffel import christoffel_symbols, joint_structure_constants
from geomech.multibody.algorithms.coriolis import (
    coriolis_matrix,
    coriolis_transpose_product,
    mass_matrix_derivative,
    slotine_li_torques,
)
from geomech.multibody.algorithms.kinematics import (
    body_jacobians,
    forward_kinematics,
    joint_transforms,
    velocity_map,
)
from geomech.multibody.algorithms.regressor import slotine_li_regressor
from geomech.multibody.connections.body import BodyConnection, CallableBody
from geomech.multibody.io.robots import random_inertia
from geomech.spatial import (
    crbar,
    crf,
    crm,
    dynamic_parameters,
    inertia_from_dynamic_parameters,
    plucker_from_pose,
    skew,
)

RTOL = 1e-9  # the acceptance bound of issue 13 (relative, against Pinocchio)
N_STATES = 3
NO_GRAVITY = np.zeros(3)


def rel_err(actual, expected):
    actual, expected = np.asarray(actual), np.asarray(expected)
    return float(np.max(np.abs(actual - expected)) / max(1.0, float(np.max(np.abs(expected)))))


_TREES: dict = {}


def tree64(mixed_tree, floating_base, seed=0):
    """The 64-body tree of ``conftest.mixed_tree`` (every joint type) and its Pinocchio twin."""
    key = (floating_base, seed)
    if key not in _TREES:
        model = mixed_tree(
            64, np.random.default_rng([64, seed, int(floating_base)]), floating_base=floating_base
        )
        _TREES[key] = model, PinocchioBridge(model)
    return _TREES[key]


def states(model, rng, n=N_STATES):
    q = model.random_configuration(rng, size=n)
    v, w, a = rng.uniform(-2.0, 2.0, (3, n, model.nv))
    return q, v, w, a


def pin_coriolis(bridge, q, v):
    C = pin.computeCoriolisMatrix(
        bridge.pin_model, bridge.pin_data, bridge.q_to_pin(q), bridge.v_to_pin(v)
    )
    return bridge.matrix_from_pin(C)


def pin_regressor(bridge, q, v, a):
    """Pinocchio's joint torque regressor, rows and column blocks in geomech's order.

    Body ``i`` with frame pose ``M`` in its Pinocchio joint ``jid`` (``M`` is the identity
    unless fixed joints merged the body into an ancestor's joint) has the columns
    ``Y_pin[:, jid] @ A(M)``, ``A(M)`` mapping its parameters to the joint frame's
    (``I_joint = Xᵀ I X``, ``X = plucker_from_pose(M)``).
    """
    Y = pin.computeJointTorqueRegressor(
        bridge.pin_model,
        bridge.pin_data,
        bridge.q_to_pin(q),
        bridge.v_to_pin(v),
        bridge.v_to_pin(a),
    )
    Y = bridge.P.T @ Y
    basis = inertia_from_dynamic_parameters(np.eye(10))  # checked against pin.Inertia elsewhere
    blocks = []
    for jid, M in bridge.body_frames:
        X = plucker_from_pose(M.homogeneous)
        A = dynamic_parameters(X.T @ basis @ X).T  # (10, 10): column k = params of Xᵀ E_k X
        blocks.append(Y[:, 10 * (jid - 1) : 10 * jid] @ A)
    return np.concatenate(blocks, axis=1)


# ----------------------------------------------------------------------------------------
# a random 64-body tree with every joint type
# ----------------------------------------------------------------------------------------
@pytest.fixture(params=[False, True], ids=["fixed-base", "floating-base"])
def tree(request, mixed_tree):
    return tree64(mixed_tree, request.param)


def test_tree_has_every_joint_type(tree):
    model, _ = tree
    assert set(model.joint_types()) == {
        "fixed",
        "revolute",
        "prismatic",
        "helical",
        "spherical",
        "planar",
        "schoenflies",
        "free_flyer",
    }
    assert model.n_bodies == 64


def test_coriolis_matrix_of_64_body_tree_matches_pinocchio(tree, rng):
    model, bridge = tree
    q, v, _, _ = states(model, rng)
    C = coriolis_matrix(model, q, v)  # one batched call
    H_dot = mass_matrix_derivative(model, q, v)
    for k in range(N_STATES):
        C_pin = pin_coriolis(bridge, q[k], v[k])
        assert rel_err(C[k], C_pin) < RTOL
        assert rel_err(coriolis_matrix(model, q[k], v[k]), C_pin) < RTOL  # single
        assert rel_err(H_dot[k], C_pin + C_pin.T) < RTOL


def test_products_of_64_body_tree_match_pinocchio(tree, rng):
    """C^T w, H a_r + C v_r + g and the Levi-Civita path of the O(N) kernels."""
    model, bridge = tree
    q, v, w, a = states(model, rng)
    CTw = coriolis_transpose_product(model, q, v, w)
    tau = slotine_li_torques(model, q, v, w, a)
    for k in range(N_STATES):
        C_pin = pin_coriolis(bridge, q[k], v[k])
        assert rel_err(CTw[k], C_pin.T @ w[k]) < RTOL
        ref = bridge.crba(q[k]) @ a[k] + C_pin @ w[k] + bridge.gravity_forces(q[k])
        assert rel_err(tau[k], ref) < RTOL
        assert rel_err(slotine_li_torques(model, q[k], v[k], w[k], a[k]), ref) < RTOL


def test_christoffel_symbols_of_64_body_tree_match_pinocchio(tree, rng):
    """Gamma[:, j, :] v^j = C (computeCoriolisMatrix) and (Gamma_ijk + Gamma_ikj) v^j = dc/dv
    (computeRNEADerivatives at zero acceleration and gravity)."""
    model, bridge = tree
    q, v, _, _ = states(model, rng, n=2)
    Gamma = christoffel_symbols(model, q)  # batched
    P = bridge.P
    bridge.pin_model.gravity = pin.Motion.Zero()
    try:
        for k in range(2):
            C_pin = pin_coriolis(bridge, q[k], v[k])
            assert rel_err(np.einsum("ijk,j->ik", Gamma[k], v[k]), C_pin) < RTOL
            _, dtau_dv, _ = pin.computeRNEADerivatives(
                bridge.pin_model,
                bridge.pin_data,
                bridge.q_to_pin(q[k]),
                bridge.v_to_pin(v[k]),
                np.zeros(model.nv),
            )
            dc_dv = P.T @ dtau_dv @ P
            sym = Gamma[k] + np.swapaxes(Gamma[k], 1, 2)
            assert rel_err(np.einsum("ijk,j->ik", sym, v[k]), dc_dv) < RTOL
        single = christoffel_symbols(model, q[1])
        np.testing.assert_allclose(single, Gamma[1], rtol=0, atol=1e-13)
    finally:
        bridge.pin_model.gravity = pin.Motion(np.concatenate([model.gravity, np.zeros(3)]))


def test_regressor_of_64_body_tree_matches_pinocchio(tree, rng):
    """Column blocks of computeJointTorqueRegressor, fixed joints merged as Pinocchio does."""
    model, bridge = tree
    q, v, _, a = states(model, rng, n=2)
    Y = slotine_li_regressor(model, q, v, v, a)
    for k in range(2):
        Y_pin = pin_regressor(bridge, q[k], v[k], a[k])
        assert rel_err(Y[k], Y_pin) < RTOL
    np.testing.assert_allclose(
        slotine_li_regressor(model, q[0], v[0], v[0], a[0]), Y[0], rtol=0, atol=1e-12
    )


# ----------------------------------------------------------------------------------------
# user-defined joints: the two-stage path of the Python hooks
# ----------------------------------------------------------------------------------------
class UserRevolute(Revolute):
    """A revolute joint the kernels do not know: its pose and subspace come from the hooks."""


class UserPrismatic(Prismatic):
    pass


class UserHelical(Helical):
    pass


class UserSpherical(Spherical):
    pass


class UserPlanar(Planar):
    pass


class UserSchoenflies(SchoenfliesJoint):
    pass


class UserFreeFlyer(FreeFlyer):
    pass


#: (joint class, constructor arguments) of the user tree; the user classes' built-in twins
#: are their bases.
USER_JOINTS = [
    (UserFreeFlyer, {}),
    (UserRevolute, {"axis": [0.2, -1.0, 0.4]}),
    (UserSpherical, {}),
    (Revolute, {"axis": [1, 0, 0]}),
    (UserPrismatic, {"axis": [0.3, 0.2, 1.0]}),
    (UserHelical, {"axis": [0.0, 1.0, 1.0], "pitch": 0.3}),
    (UserPlanar, {}),
    (Spherical, {}),
    (UserSchoenflies, {}),
    (UserRevolute, {"axis": [0, 0, 1]}),
]
USER_PARENTS = [-1, 0, 1, 1, 0, 4, 5, 2, 7, 3]


def user_tree(built_in=False):
    """A tree of user joints (and two built-in ones); with ``built_in``, their built-in twins."""
    joints = [
        (cls.__bases__[0] if built_in and cls.__module__ == __name__ else cls)(**kwargs)
        for cls, kwargs in USER_JOINTS
    ]
    return build(USER_PARENTS, joints, 7)


def test_user_joints_go_through_the_hooks():
    cm = user_tree().compiled
    assert cm.has_user_joints and len(cm.user) == 8


def test_user_joints_match_pinocchio(rng):
    model = user_tree()
    bridge = PinocchioBridge(model)  # Pinocchio's built-in joints of the same kinds
    q, v, w, a = states(model, rng)
    C = coriolis_matrix(model, q, v)
    Gamma = christoffel_symbols(model, q)
    Y = slotine_li_regressor(model, q, v, v, a)
    CTw = coriolis_transpose_product(model, q, v, w)
    T = forward_kinematics(model, q)
    for k in range(N_STATES):
        C_pin = pin_coriolis(bridge, q[k], v[k])
        assert rel_err(C[k], C_pin) < RTOL
        assert rel_err(coriolis_matrix(model, q[k], v[k]), C_pin) < RTOL
        assert rel_err(np.einsum("ijk,j->ik", Gamma[k], v[k]), C_pin) < RTOL
        assert rel_err(Y[k], pin_regressor(bridge, q[k], v[k], a[k])) < RTOL
        assert rel_err(CTw[k], C_pin.T @ w[k]) < RTOL
        assert rel_err(T[k], bridge.forward_kinematics(q[k])) < RTOL


def test_user_joint_kinematics_equal_the_built_in_ones(rng):
    """The same tree with the built-in joints (type codes) and with their user twins (hooks)."""
    user, built_in = user_tree(), user_tree(built_in=True)
    assert not built_in.compiled.has_user_joints
    q, v, _, _ = states(user, rng)
    for fun in (
        lambda m: joint_transforms(m, q, v)[0],
        lambda m: body_jacobians(m, q),
        lambda m: np.stack(velocity_map(m, q, v)),
        lambda m: joint_structure_constants(m, q),
    ):
        np.testing.assert_allclose(fun(user), fun(built_in), rtol=0, atol=1e-12)


def _pin_joint_with_universal(joint):
    """Pinocchio's counterpart of UniversalXY: the composite joint RX then RY."""
    if isinstance(joint, UniversalXY):
        jc = pin.JointModelComposite(2)
        jc.addJoint(pin.JointModelRX())
        jc.addJoint(pin.JointModelRY())
        return jc
    return _PIN_JOINT(joint)


_PIN_JOINT = interop_pinocchio._pin_joint


def test_user_joint_with_moving_axis_against_pinocchio(rng, monkeypatch):
    """Phi_ring != 0: regressor and inverse dynamics against the composite joint RX∘RY."""
    monkeypatch.setattr(interop_pinocchio, "_pin_joint", _pin_joint_with_universal)
    monkeypatch.setitem(interop_pinocchio._INFERRED, UniversalXY, {"JointModelComposite": "same"})
    model = build(
        [-1, 0, 1, 1, 3],
        [FreeFlyer(), UniversalXY(), UserRevolute([0.3, 1.0, -0.2]), Spherical(), UniversalXY()],
        5,
    )
    bridge = PinocchioBridge(model)
    q, v, _, a = states(model, rng)
    C = coriolis_matrix(model, q, v)
    Y = slotine_li_regressor(model, q, v, v, a)
    Gamma = christoffel_symbols(model, q)
    for k in range(N_STATES):
        assert rel_err(Y[k], pin_regressor(bridge, q[k], v[k], a[k])) < RTOL
        nle = pin.nonLinearEffects(
            bridge.pin_model, bridge.pin_data, bridge.q_to_pin(q[k]), bridge.v_to_pin(v[k])
        )
        c = bridge.v_from_pin(nle) - bridge.gravity_forces(q[k])
        assert rel_err(C[k] @ v[k], c) < RTOL
        H_dot = fd_along_flow(bridge.crba, model, q[k], v[k], h=1e-6)
        assert rel_err(C[k] + C[k].T, H_dot) < 1e-7  # finite differences
        assert rel_err(np.einsum("ijk,j->ik", Gamma[k], v[k]), C[k]) < 1e-12


# ----------------------------------------------------------------------------------------
# user-defined body connections: the generic factor tensors
# ----------------------------------------------------------------------------------------
def levi_civita_eq18(v, inertia):
    """Seed 000 eq. (18), written with geomech.spatial (vectorised over leading axes)."""
    Iv = np.einsum("...ij,...j->...i", inertia, v)
    return 0.5 * (inertia @ crm(v) + crf(v) @ inertia + crbar(Iv))


class BlockFormLeviCivita(BodyConnection):
    """Seed 000 eq. (19): [[(Σω)×, (h×)(ω×)], [-(ω×)(h×), m(ω×)]], Σ = tr(Ī)/2 1 - Ī."""

    name = "block-form"

    def _coriolis(self, inertia, v):
        Ibar = inertia[..., :3, :3]
        h = np.stack([inertia[..., 2, 4], inertia[..., 0, 5], inertia[..., 1, 3]], -1)
        m = inertia[..., 5, 5]
        Sigma = 0.5 * np.trace(Ibar, axis1=-2, axis2=-1)[..., None, None] * np.eye(3) - Ibar
        w = v[..., :3]
        top = np.concatenate([skew(np.einsum("...ij,...j->...i", Sigma, w)), skew(h) @ skew(w)], -1)
        top, bottom = np.broadcast_arrays(
            top, np.concatenate([-skew(w) @ skew(h), m[..., None, None] * skew(w)], -1)
        )
        return np.concatenate([top, bottom], -2)


@pytest.mark.parametrize(
    "connection",
    [CallableBody(levi_civita_eq18, "eq18"), BlockFormLeviCivita()],
    ids=["callable", "subclass"],
)
def test_user_body_connections_match_pinocchio(connection, rng, mixed_tree):
    model, bridge = tree64(mixed_tree, True, seed=1)
    q, v, w, a = states(model, rng, n=2)
    factors = body_factors._factor_tensors(model, connection)
    assert not factors[1]  # the generic path, not the Levi-Civita closed form
    C = coriolis_matrix(model, q, v, connection)
    CTw = coriolis_transpose_product(model, q, v, w, connection)
    tau = slotine_li_torques(model, q, v, w, a, connection)
    Y = slotine_li_regressor(model, q, v, v, a, connection)
    for k in range(2):
        C_pin = pin_coriolis(bridge, q[k], v[k])
        assert rel_err(C[k], C_pin) < RTOL
        assert rel_err(coriolis_matrix(model, q[k], v[k], connection), C_pin) < RTOL
        assert rel_err(CTw[k], C_pin.T @ w[k]) < RTOL
        ref = bridge.crba(q[k]) @ a[k] + C_pin @ w[k] + bridge.gravity_forces(q[k])
        assert rel_err(tau[k], ref) < RTOL
        assert rel_err(Y[k], pin_regressor(bridge, q[k], v[k], a[k])) < RTOL
    # per body: the user connection on every other body, the named one elsewhere
    mapping = {name: connection for name in model.body_names[::2]}
    assert (
        rel_err(coriolis_matrix(model, q[0], v[0], mapping), pin_coriolis(bridge, q[0], v[0]))
        < RTOL
    )


def test_factor_tensors_are_cached_per_model_and_spec():
    model = robots.double_pendulum()
    fun = CallableBody(levi_civita_eq18)
    first = body_factors._factor_tensors(model, fun)
    assert body_factors._factor_tensors(model, fun) is first
    spec = {model.body_names[0]: "boltzmann-hamel"}
    assert body_factors._factor_tensors(model, spec) is body_factors._factor_tensors(
        model, dict(spec)
    )  # equal mappings share their tensors
    other = robots.double_pendulum()
    assert body_factors._factor_tensors(other, fun) is not first
    for k in range(2 * body_factors._CACHE_SIZE):  # bounded: the oldest entries are dropped
        body_factors._factor_tensors(model, CallableBody(lambda v, I, k=k: k * crm(v)))
    assert len(body_factors._CACHE[model]) <= body_factors._CACHE_SIZE


# ----------------------------------------------------------------------------------------
# status codes and validators at the public boundary
# ----------------------------------------------------------------------------------------
FUNCTIONS = {
    "coriolis_matrix": lambda m, q, v: coriolis_matrix(m, q, v),
    "mass_matrix_derivative": lambda m, q, v: mass_matrix_derivative(m, q, v),
    "coriolis_transpose_product": lambda m, q, v: coriolis_transpose_product(m, q, v, v),
    "slotine_li_torques": lambda m, q, v: slotine_li_torques(m, q, v, v, v),
    "slotine_li_regressor": lambda m, q, v: slotine_li_regressor(m, q, v, v, v),
    "christoffel_symbols": lambda m, q, v: christoffel_symbols(m, q),
    "joint_structure_constants": lambda m, q, v: joint_structure_constants(m, q),
    "forward_kinematics": lambda m, q, v: forward_kinematics(m, q),
    "body_jacobians": lambda m, q, v: body_jacobians(m, q),
    "velocity_map": lambda m, q, v: velocity_map(m, q, v),
    "joint_transforms": lambda m, q, v: joint_transforms(m, q, v),
}


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_non_finite_q_is_named(name, rng):
    model = user_tree()  # the joint arrays of the hooks are NaN too: the message names q
    q = model.random_configuration(rng, size=2)
    q[1, 9] = np.nan
    with pytest.raises(NonFiniteError, match="`q` to be finite"):
        FUNCTIONS[name](model, q, np.zeros(model.nv))


@pytest.mark.parametrize(
    "name",
    [
        n
        for n in FUNCTIONS
        if n
        not in (
            "christoffel_symbols",
            "joint_structure_constants",
            "forward_kinematics",
            "body_jacobians",
        )
    ],
)
def test_non_finite_v_is_named(name, rng):
    model = user_tree()
    v = np.zeros(model.nv)
    v[3] = np.inf
    with pytest.raises(NonFiniteError, match="`v` to be finite"):
        FUNCTIONS[name](model, model.random_configuration(rng), v)


@pytest.mark.parametrize("name", [n for n in FUNCTIONS if n != "joint_structure_constants"])
def test_non_unit_quaternion_is_reported(name):
    model = robots.random_tree(4, rng=2, floating_base=True)
    q = np.stack([model.neutral()] * 3)
    q[2, 3:7] *= 1.5  # the free-flyer's quaternion of the third state
    with pytest.raises(NotOnManifoldError, match=r"unit quaternion.*batch element \(2,\)"):
        FUNCTIONS[name](model, q, np.zeros(model.nv))


def test_other_reference_inputs_are_named(rng):
    model = robots.random_tree(4, rng=2, floating_base=True)
    q, v = model.random_configuration(rng), np.zeros(model.nv)
    bad = np.full(model.nv, np.nan)
    with pytest.raises(NonFiniteError, match="`w` to be finite"):
        coriolis_transpose_product(model, q, v, bad)
    with pytest.raises(NonFiniteError, match="`v_ref` to be finite"):
        slotine_li_torques(model, q, v, bad, v)
    with pytest.raises(NonFiniteError, match="`a_ref` to be finite"):
        slotine_li_regressor(model, q, v, v, bad)
    with pytest.raises(NonFiniteError, match="`gravity` to be finite"):
        slotine_li_torques(model, q, v, v, v, gravity=[0.0, np.inf, 0.0])


def test_overflowing_results_are_reported(rng):
    """Finite inputs too large for double precision: NON_FINITE_RESULT, named per result."""
    model = robots.random_tree(5, rng=3)
    q = model.random_configuration(rng)
    heavy = model.with_inertias(1e300 * model.inertias)
    v = np.full(model.nv, 1e10)
    for fun, what in ((coriolis_matrix, "the Coriolis matrix"), (mass_matrix_derivative, "H_dot")):
        with pytest.raises(NonFiniteError, match=f"{what} to be finite, got an overflow"):
            fun(heavy, q, v)
    with pytest.raises(NonFiniteError, match="the product to be finite"):
        coriolis_transpose_product(heavy, q, v, v)
    with pytest.raises(NonFiniteError, match="the torques to be finite"):
        slotine_li_torques(heavy, q, v, v, v)
    huge = np.full(model.nv, 1e160)  # v ⊗ w overflows
    with pytest.raises(NonFiniteError, match="the regressor to be finite"):
        slotine_li_regressor(model, q, huge, huge, huge)
    far = build([-1, 0], [Prismatic([1.0, 0.0, 0.0]), Revolute([0, 0, 1])], 1)
    with pytest.raises(NonFiniteError, match="the Christoffel symbols to be finite"):
        christoffel_symbols(far, [1e200, 0.3])  # m |r|² of the second body overflows


def test_connections_not_linear_in_the_twist_are_rejected():
    model = robots.double_pendulum()
    q, v = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    quadratic = CallableBody(lambda v, I: I @ crm(v) * np.abs(v).sum(), "quadratic")
    with pytest.raises(ConnectionSpecError, match="body 'link1'.*linear in the twist"):
        coriolis_matrix(model, q, v, quadratic)
    with pytest.raises(ConnectionSpecError, match="linear in the twist"):
        slotine_li_torques(model, q, v, v, v, {model.body_names[1]: quadratic})


# ----------------------------------------------------------------------------------------
# the primitives appended to kernels.spatial and kernels.kinematics
# ----------------------------------------------------------------------------------------
def _matrix(p):
    """6x6 rigid-body-inertia form of ten parameters (Pinocchio's order)."""
    m, h = p[0], p[1:4]
    Ibar = np.array([[p[4], p[5], p[7]], [p[5], p[6], p[8]], [p[7], p[8], p[9]]])
    return np.block([[Ibar, skew(h)], [skew(h).T, m * np.eye(3)]])


def test_inertia_parameter_primitives(rng):
    for inertia in random_inertia(rng, 4):
        T = SE3.random(rng)
        X = plucker_from_pose(T)
        E, r = np.ascontiguousarray(X[:3, :3]), T[:3, 3].copy()
        v, x = rng.normal(size=(2, 6))
        p, out, f = np.empty(10), np.empty(10), np.empty(6)
        inertia_params(inertia, p)
        np.testing.assert_allclose(_matrix(p), inertia, rtol=0, atol=1e-15)
        np.testing.assert_allclose(p, dynamic_parameters(inertia), rtol=0, atol=1e-15)
        inertia_params_transform(E, r, p, out)
        np.testing.assert_allclose(_matrix(out), X.T @ inertia @ X, rtol=0, atol=1e-13)
        inertia_params_times(p, x, f)
        np.testing.assert_allclose(f, inertia @ x, rtol=0, atol=1e-14)
        inertia_params_rate(p, v, out)
        np.testing.assert_allclose(
            _matrix(out), crf(v) @ inertia - inertia @ crm(v), rtol=0, atol=1e-13
        )
        # the rate is d/ds of the inertia seen from the frame moved by exp(s v)
        h = 1e-6
        Xt = [plucker_from_pose(SE3.exp(s * v)) for s in (h, -h)]
        fd = (Xt[0].T @ inertia @ Xt[0] - Xt[1].T @ inertia @ Xt[1]) / (2 * h)
        np.testing.assert_allclose(_matrix(out), fd, rtol=0, atol=1e-8)


def test_transform_primitives(rng):
    T1, T2 = SE3.random(rng), SE3.random(rng)
    X1, X2 = plucker_from_pose(T1), plucker_from_pose(T2)
    E, r = np.empty((3, 3)), np.empty(3)
    compose_transforms(
        np.ascontiguousarray(X1[:3, :3]),
        T1[:3, 3].copy(),
        np.ascontiguousarray(X2[:3, :3]),
        T2[:3, 3].copy(),
        E,
        r,
    )
    np.testing.assert_allclose(plucker_from_pose(T2 @ T1), X1 @ X2, atol=1e-13)  # the law
    np.testing.assert_allclose(E, (X1 @ X2)[:3, :3], atol=1e-14)
    np.testing.assert_allclose(r, (T2 @ T1)[:3, 3], atol=1e-14)
    f, g = rng.normal(size=(2, 6))
    assert dot6(f, g) == pytest.approx(f @ g, rel=1e-15)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_branchless_finiteness(bad, rng):
    x = rng.normal(size=(30, 30))
    assert all_finite(x) and all_finite(x[:, 3]) and all_finite(x[::2].T)
    x[17, 3] = bad
    assert not all_finite(x) and not all_finite(x[:, 3]) and not all_finite(x[1::2].T)
    assert all_finite(np.full((4, 4), 1e308)) and all_finite(np.full(3, -1e308))
