"""The hostile cases run in forked children with time bounds: compile the kernels first.

A child inherits the parent's compiled kernels; without this warm-up the first case to reach
a kernel on a cold numba cache (a fresh clone) would spend its time bound compiling.
"""

import numpy as np
import pytest

import geomech as gm


@pytest.fixture(autouse=True, scope="session")
def _compiled_kernels():
    for model in (gm.robots.double_pendulum(), gm.robots.humanoid()):
        q, v = model.neutral(), np.zeros(model.nv)
        gm.rnea(model, q, v, v)
        gm.crba(model, q)
        gm.aba(model, q, v, v)
        gm.coriolis_matrix(model, q, v)
        model.integrate(q, v)
        model.difference(q, q)
        # the general (list / batch) path beside the single-state fast path
        Q, V = np.stack([q, q]), np.zeros((2, model.nv))
        gm.rnea(model, Q, V, V)
        gm.crba(model, Q)
        gm.aba(model, list(q), list(v), list(v))
        gm.aba(model, Q, V, V)
        gm.coriolis_matrix(model, Q, V)
