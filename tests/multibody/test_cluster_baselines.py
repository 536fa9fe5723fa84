"""The compiled dense baselines of the benchmark equal the public numpy baselines."""

import baselines as BL
import numpy as np
import pytest
from loops_helpers import rel_err

from geomech.multibody.closed.dynamics import (
    inverse_operational_space_inertia,
    lagrange_aba,
    projected_aba,
    projected_rnea,
)
from geomech.multibody.io.examples import load_example


@pytest.mark.parametrize("name", ["four_bar", "belt_leg"])
def test_compiled_baselines_equal_the_public_ones(name):
    model = load_example(name, floating_base=True)
    st = model.spanning_tree
    cm = st.compiled
    rng = np.random.default_rng(40)
    B = 3
    Q = np.ascontiguousarray(model.random_configuration(rng, size=B))
    V, TAU = rng.normal(size=(B, model.nv)), rng.normal(size=(B, model.nv))
    G, g = model.constraint_matrices(Q, V)
    G = np.ascontiguousarray(G)
    KK = [model.constraint_jacobian(Q[b], V[b]) for b in range(B)]
    K = np.ascontiguousarray(np.stack([x[0] for x in KK]))
    k = np.ascontiguousarray(np.stack([x[1] for x in KK]))
    S, S_ring, T_user = cm.joint_arrays(Q)
    F = np.zeros((1, 0, 6))
    status = np.empty(B, dtype=np.int64)
    A = np.empty((B, model.nv))
    BL.projection_aba_batch(*cm.arrays(), S, S_ring, T_user, G, g, Q, V, TAU, cm.a0, F, A, status)
    assert rel_err(A, projected_aba(model, Q, V, TAU)) < 1e-10
    TAU2 = np.empty((B, model.nv))
    BL.projected_rnea_batch(*cm.arrays(), S, S_ring, T_user, G, g, Q, V, A, cm.a0, F, TAU2,
                            status)  # fmt: skip
    assert rel_err(TAU2, projected_rnea(model, Q, V, A)) < 1e-10 and np.all(status == 0)
    assert rel_err(TAU2, TAU) < 1e-9  # the inverse of the forward dynamics above
    ind = np.ascontiguousarray(model.independent_v_index, dtype=np.int64)
    BL.lagrange_aba_batch(*cm.arrays(), S, S_ring, T_user, G, K, k, ind, Q, V, TAU, cm.a0, F, A,
                          status)  # fmt: skip
    assert rel_err(A, lagrange_aba(model, Q, V, TAU)) < 1e-9
    ee = np.array([st.n_bodies - 1, 1], dtype=np.int64)
    W = np.empty((B, 12, 12))
    BL.projection_iosim_batch(*cm.arrays(), S, S_ring, T_user, G, Q, ee, W, status)
    assert rel_err(W, inverse_operational_space_inertia(model, Q, ee, method="projection")) < 1e-9
