"""Slotine-Li torques and C^T w in O(N), against the dense matrices.

References: H from the CRBA, C from the dense maximal-coordinates law (seed 000 eq. 20), g from
the RNEA at zero speed; and the RNEA itself when v_ref = v, a_ref = a (correct connections).
"""

import numpy as np
import pytest
from test_coriolis_models import (
    fd_along_flow,
    mixed_fixed_base,
    mixed_floating_base,
    user_joint_tree,
)

from geomech.errors import ConnectionSpecError, DimensionError
from geomech.multibody import robots
from geomech.multibody.algorithms.coriolis import (
    coriolis_matrix,
    coriolis_matrix_dense,
    coriolis_transpose_product,
    slotine_li_torques,
)
from geomech.multibody.algorithms.dynamics import crba, gravity_forces, rnea
from geomech.multibody.connections.body import NAMED_BODY_CONNECTIONS

MODELS = {
    "mixed-fixed": mixed_fixed_base,
    "mixed-floating": mixed_floating_base,
    "user-joints": user_joint_tree,
    "humanoid": robots.humanoid,
}


@pytest.fixture(scope="module", params=list(MODELS))
def model(request):
    return MODELS[request.param]()


def rel_err(actual, expected):
    return float(np.max(np.abs(actual - expected)) / max(1.0, float(np.max(np.abs(expected)))))


def states(model, rng, size=3):
    q = model.random_configuration(rng, size=size)
    v, v_r, a_r, w = rng.uniform(-2.0, 2.0, (4, size, model.nv))
    return q, v, v_r, a_r, w


@pytest.mark.parametrize("connection", NAMED_BODY_CONNECTIONS)
def test_slotine_li_equals_dense(model, connection, rng):
    q, v, v_r, a_r, _ = states(model, rng)
    tau = slotine_li_torques(model, q, v, v_r, a_r, connection)
    H = crba(model, q)
    C = coriolis_matrix_dense(model, q, v, connection)
    g = gravity_forces(model, q)
    ref = np.einsum("...ij,...j->...i", H, a_r) + np.einsum("...ij,...j->...i", C, v_r) + g
    assert rel_err(tau, ref) < 1e-12


@pytest.mark.parametrize("connection", NAMED_BODY_CONNECTIONS)
def test_coriolis_transpose_product_equals_dense(model, connection, rng):
    q, v, _, _, w = states(model, rng)
    C = coriolis_matrix_dense(model, q, v, connection)
    ref = np.einsum("...ji,...j->...i", C, w)
    assert rel_err(coriolis_transpose_product(model, q, v, w, connection), ref) < 1e-12


def test_slotine_li_with_actual_speeds_is_inverse_dynamics(model, rng):
    q, v, _, a, _ = states(model, rng)
    for connection in ("levi-civita", "velocity-cross", "boltzmann-hamel"):
        tau = slotine_li_torques(model, q, v, v, a, connection)
        assert rel_err(tau, rnea(model, q, v, a)) < 1e-12
    tau0 = slotine_li_torques(model, q, v, v, a, "cartan-zero")
    assert rel_err(tau0, rnea(model, q, v, a)) > 1e-3
    np.testing.assert_allclose(
        slotine_li_torques(model, q, v, v, a, gravity=np.zeros(3)),
        rnea(model, q, v, a, gravity=np.zeros(3)),
        atol=1e-10,
    )


def test_momentum_observer_identity(rng):
    """C^T v = H_dot v - C v for a metric-compatible connection (H_dot by finite differences)."""
    model = mixed_floating_base()
    q = model.random_configuration(rng)
    v = rng.uniform(-2.0, 2.0, model.nv)
    H_dot = fd_along_flow(lambda x: crba(model, x), model, q, v, h=1e-6)
    for connection in ("levi-civita", "cartan-minus", "boltzmann-hamel"):
        CTv = coriolis_transpose_product(model, q, v, v, connection)
        ref = H_dot @ v - coriolis_matrix(model, q, v, connection) @ v
        assert rel_err(CTv, ref) < 1e-7


def test_per_body_mapping_and_broadcasting(rng):
    model = user_joint_tree()
    mapping = {model.body_names[1]: "cartan-plus", model.body_names[4]: "velocity-cross"}
    q = model.random_configuration(rng)  # one configuration, a batch of speeds
    v, v_r, a_r = rng.normal(size=(3, 4, model.nv))
    tau = slotine_li_torques(model, q, v, v_r, a_r, mapping)
    C = coriolis_matrix(model, q, v, mapping)
    ref = (crba(model, q) @ a_r[..., None])[..., 0] + np.einsum("bij,bj->bi", C, v_r)
    ref = ref + gravity_forces(model, q)
    assert tau.shape == (4, model.nv)
    assert rel_err(tau, ref) < 1e-12
    CTw = coriolis_transpose_product(model, q, v, v_r, mapping)
    assert rel_err(CTw, np.einsum("bji,bj->bi", C, v_r)) < 1e-12


def test_validation(rng):
    model = mixed_fixed_base()
    q = model.random_configuration(rng)
    z = np.zeros(model.nv)
    with pytest.raises(DimensionError, match=r"`v_ref` to have shape"):
        slotine_li_torques(model, q, z, z[:-1], z)
    with pytest.raises(DimensionError, match=r"`a_ref` to have shape"):
        slotine_li_torques(model, q, z, z, np.zeros(model.nv + 2))
    with pytest.raises(DimensionError, match=r"`gravity` to have shape \(\.\.\., 3\)"):
        slotine_li_torques(model, q, z, z, z, gravity=[0.0, -9.81])
    with pytest.raises(DimensionError, match=r"`w` to have shape"):
        coriolis_transpose_product(model, q, z, np.ones(2))
    with pytest.raises(ConnectionSpecError, match="Unknown connection name 'foo'"):
        coriolis_transpose_product(model, q, z, z, "foo")
    with pytest.raises(ConnectionSpecError, match=r"shape \(6, 6\)"):
        slotine_li_torques(model, q, z, z, z, lambda v, I: np.ones((2, 2)))
