"""Property tests (hypothesis, derandomized) and the public-API contract."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from lie_helpers import GROUP_IDS, GROUPS, rotation_angles
from numpy.testing import assert_allclose

import geomech.lie
from geomech.lie import quaternion

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
coords = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)


def _xi(G):
    return arrays(np.float64, (G.dim,), elements=coords)


@pytest.mark.parametrize("G", GROUPS, ids=GROUP_IDS)
@SETTINGS
@given(data=st.data())
def test_exp_log_roundtrip_property(G, data):
    xi = data.draw(_xi(G))
    g = G.exp(xi)
    out = G.log(g)
    assert_allclose(G.exp(out), g, atol=1e-11)
    if all(np.all(a < np.pi - 1e-6) for a in rotation_angles(G, xi)):
        assert_allclose(out, xi, atol=1e-9)


@pytest.mark.parametrize("G", GROUPS, ids=GROUP_IDS)
@SETTINGS
@given(data=st.data())
def test_adjoint_properties(G, data):
    xi, eta, zeta = (data.draw(_xi(G)) for _ in range(3))
    a, b = G.exp(xi), G.exp(eta)
    assert_allclose(G.Ad(G.compose(a, b)), G.Ad(a) @ G.Ad(b), atol=1e-10)
    # Ad(g) is a Lie-algebra automorphism: Ad [x, y] = [Ad x, Ad y]
    Ad = G.Ad(a)
    assert_allclose(Ad @ G.bracket(eta, zeta), G.bracket(Ad @ eta, Ad @ zeta), atol=1e-9)
    # Jacobi identity of the bracket
    jac = (
        G.bracket(xi, G.bracket(eta, zeta))
        + G.bracket(eta, G.bracket(zeta, xi))
        + G.bracket(zeta, G.bracket(xi, eta))
    )
    assert_allclose(jac, 0.0, atol=1e-10)
    # conjugation: g exp(eta) g⁻¹ = exp(Ad(g) eta)
    lhs = G.compose(G.compose(a, G.exp(eta)), G.inverse(a))
    assert_allclose(G.as_matrix(lhs), G.as_matrix(G.exp(Ad @ eta)), atol=1e-9)


@pytest.mark.parametrize("G", GROUPS, ids=GROUP_IDS)
@SETTINGS
@given(data=st.data())
def test_jacobian_inverse_property(G, data):
    xi = data.draw(_xi(G))  # angles ≤ 3√3 < 2π: regular
    assert_allclose(G.right_jacobian_inverse(xi) @ G.right_jacobian(xi), np.eye(G.dim), atol=1e-9)


# ---------------------------------------------------------------------------------------------
# Public API contract
# ---------------------------------------------------------------------------------------------
PUBLIC_METHODS = [
    "identity",
    "compose",
    "inverse",
    "exp",
    "log",
    "hat",
    "vee",
    "Ad",
    "ad",
    "bracket",
    "structure_constants",
    "left_jacobian",
    "right_jacobian",
    "left_jacobian_inverse",
    "right_jacobian_inverse",
    "random",
    "validate",
    "to_geomstats",
    "as_matrix",
]


def test_all_exports():
    assert set(geomech.lie.__all__) == {
        "LieGroup",
        "SO3",
        "SE3",
        "SE2",
        "Schoenflies",
        "Euclidean",
        "ProductGroup",
        "quaternion",
    }
    assert set(quaternion.__all__) == {
        "quat_to_matrix",
        "matrix_to_quat",
        "quat_multiply",
        "quat_conjugate",
        "quat_exp",
        "quat_log",
        "quat_normalize",
    }
    for name in geomech.lie.__all__:
        assert hasattr(geomech.lie, name)


@pytest.mark.parametrize("G", GROUPS, ids=GROUP_IDS)
def test_every_public_method_is_documented(G):
    for name in PUBLIC_METHODS:
        doc = inspect.getdoc(getattr(G, name))
        assert doc and "Examples" in doc, f"{G!r}.{name} lacks a docstring with Examples"
    for f in (getattr(quaternion, n) for n in quaternion.__all__):
        doc = inspect.getdoc(f)
        assert doc and "Examples" in doc and "Raises" in doc
