"""Hostile values and types (issue 18 items 3, 4, 6): named errors or correct results, never
silence.

Each case runs in a forked child with the 2 s / 200 MB bounds of the issue. Results that
are computed are checked against what they must be (a rotation for SO(3).exp of a huge
vector, a unit quaternion, ...), never against the code that computed them.
"""

import os
import warnings

import numpy as np
import pytest

import geomech as gm
from geomech.errors import (
    DimensionError,
    DTypeError,
    GeomechError,
    ModelError,
    NonFiniteError,
    NotOnManifoldError,
    SimulationError,
)
from geomech.lie import SE3, SO3
from geomech.lie.quaternion import quat_exp, quat_normalize, quat_to_matrix
from geomech.multibody import MultibodyModel, Revolute, aba, rnea, robots
from geomech.spatial import spatial_inertia
from hardening.hostile_inputs import assert_bounded, run_case

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the harness forks")


def _rotation_error(R) -> float:
    R = np.asarray(R)
    return float(max(np.max(np.abs(R @ R.T - np.eye(3))), abs(np.linalg.det(R) - 1.0)))


def _one_body(mass, inertia_scale=0.0, com=(0.0, 0.0, -1.0)):
    inertia = spatial_inertia(mass, com, inertia_scale * np.eye(3))
    return MultibodyModel.from_bodies([-1], [Revolute([0, 1, 0])], [inertia])


# ---- results that must be correct for huge but finite inputs -----------------------------
@pytest.mark.parametrize("xi", [[1.4e154, 0, 0], [1e200, -3e199, 2e199], [1e308, 1e308, 1e308],
                                [-1.7e308, 0.0, 1.0]])  # fmt: skip
def test_so3_exp_of_huge_vectors_is_a_rotation_about_their_axis(xi):
    def case():
        R = SO3.exp(xi)
        assert _rotation_error(R) < 1e-12
        axis = np.asarray(xi) / np.max(np.abs(xi))
        np.testing.assert_allclose(R @ axis, axis, atol=1e-12)  # the axis is fixed
        # the quaternion too is a rotation about that axis (the angles themselves, known to
        # an ulp of ~1e184 rad, are not comparable between the two computations)
        q = quat_exp(xi)
        np.testing.assert_allclose(np.linalg.norm(q), 1.0, rtol=1e-15)
        Rq = quat_to_matrix(q)
        assert _rotation_error(Rq) < 1e-12
        np.testing.assert_allclose(Rq @ axis, axis, atol=1e-12)

    assert_bounded(run_case(case), None)


@pytest.mark.parametrize(
    "q", [[1e308, 1e308, 0, 0], [1e-320, 0, 0, 0], [1e200, -1e200, 1e200, 1e200]]
)
def test_quat_normalize_of_extreme_quaternions(q):
    def case():
        u = quat_normalize(q)
        np.testing.assert_allclose(np.linalg.norm(u), 1.0, rtol=1e-15)
        np.testing.assert_allclose(u * np.max(np.abs(q)) / np.max(np.abs(u)), q, rtol=1e-15)

    assert_bounded(run_case(case), None)


# ---- named errors --------------------------------------------------------------------------
M = robots.double_pendulum()
Q, V = np.array([0.1, 0.2]), np.zeros(2)

VALUE_CASES = {
    "SO3.random(size=-1)": (
        lambda: SO3.random(0, size=-1),
        DimensionError,
        r"`size` to have nonnegative entries, got -1",
    ),
    "SO3.random(size=2.5)": (lambda: SO3.random(0, size=2.5), DTypeError, r"`size` to be None"),
    "SO3.random(rng='abc')": (lambda: SO3.random("abc"), DTypeError, r"`rng` to be None"),
    "SO3.random(rng=-1)": (lambda: SO3.random(-1), DTypeError, r"nonnegative int seed"),
    "SE3.exp overflowing translation": (
        lambda: SE3.exp([1.0, 0, 0, 1.7e308, -1.7e308, 1.7e308]),
        NonFiniteError,
        r"SE3.exp\(xi\) overflowed",
    ),
    "SE3.compose overflow": (
        lambda: SE3.compose(SE3.exp([0, 0, 0, 1.7e308, 0, 0]), SE3.exp([0, 0, 0, 1.7e308, 0, 0])),
        NonFiniteError,
        r"compose\(a, b\) overflowed",
    ),
    "SO3.exp of |xi| > 1.8e308": (
        lambda: SO3.exp([1.7e308, 1.7e308, 0.0]),
        NonFiniteError,
        r"SO3.exp\(xi\) overflowed",
    ),
    "quat_normalize(0)": (lambda: quat_normalize([0.0, 0, 0, 0]), NotOnManifoldError, r"zero"),
    "complex q (rnea)": (
        lambda: rnea(M, Q + 1j, V, V),
        DTypeError,
        r"`q` to be a real numeric array, got dtype complex",
    ),
    "complex xi (SO3.exp)": (lambda: SO3.exp(np.array([1j, 0, 0])), DTypeError, r"complex"),
    "object q": (
        lambda: rnea(M, np.array([0.1, 0.2], dtype=object), V, V),
        DTypeError,
        r"got dtype object",
    ),
    "None q": (lambda: rnea(M, None, V, V), DTypeError, r"got dtype object"),
    "text q": (lambda: rnea(M, ["0.1", "0.2"], V, V), DTypeError, r"numeric array"),
    "ragged q": (lambda: rnea(M, [[0.1], [0.1, 0.2]], V, V), DTypeError, r"numeric array"),
    "int beyond float": (lambda: rnea(M, [10**400, 0], V, V), DTypeError, r"object"),
    "complex controller output": (
        lambda: gm.simulate(M, Q, V, 0.02, dt=0.01, controller=lambda t, q, v: np.array([1j, 0])),
        DTypeError,
        r"`controller\(t, q, v\)` to be a real numeric array, got dtype complex",
    ),
    "model with mass 1e-320": (lambda: _one_body(1e-320), ModelError, r"subnormal"),
    "robots.load('/dev/null')": (
        lambda: robots.load("/dev/null"),
        gm.errors.URDFError,
        r"not a regular file",
    ),
}


@pytest.mark.parametrize("case", list(VALUE_CASES))
def test_hostile_values(case):
    fn, expected, match = VALUE_CASES[case]
    assert_bounded(run_case(fn), expected, match)


def test_model_with_mass_1e308_builds_without_linalg_errors():
    """The eigenvalue check runs on the scaled matrix (it used to raise LinAlgError)."""

    def case():
        model = _one_body(1e308, 1e308, com=(0.0, 0.0, 0.0))
        assert model.inertias[0, 5, 5] == 1e308

    assert_bounded(run_case(case), None)


def test_no_complex_warning_is_ever_needed():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DTypeError):
            rnea(M, np.array([0.1, 0.2], dtype=complex), V, V)


# ---- overflow inside the algorithms: the kernels report it (status codes) --------------------
def test_rnea_with_v_1e200_names_the_overflow():
    assert_bounded(run_case(lambda: rnea(M, Q, [1e200, 1e200], V)), NonFiniteError)


def test_aba_with_a_tiny_mass_names_the_overflow():
    assert_bounded(run_case(lambda: aba(_one_body(1e-300), [0.3], [0.0], [1e10])), NonFiniteError)


def test_rnea_with_mass_1e308_names_the_overflow():
    assert_bounded(run_case(lambda: rnea(_one_body(1e308, 1e308, (0, 0, 0)), [0.1], [1.0], [1.0])),
                   NonFiniteError)  # fmt: skip


def test_rnea_of_none_is_a_named_error():
    assert_bounded(run_case(lambda: rnea(None, Q, V, V)), GeomechError)


# ---- simulation inputs (simulation.py belongs to the simulation-budget work) ---------------
def test_simulate_with_a_subnormal_step_is_a_named_error():
    assert_bounded(run_case(lambda: gm.simulate(M, Q, V, 1.0, dt=1e-300)), SimulationError)


def test_simulate_over_1e9_seconds_is_a_named_error():
    assert_bounded(run_case(lambda: gm.simulate(M, Q, V, 1e9, dt=0.01)), SimulationError)


def test_revolute_axis_of_huge_entries_is_normalised_or_named():
    """load_urdf refuses such an axis (max_magnitude); the joint constructor returns [0, 0, 0]."""

    def case():
        axis = Revolute([1e308, 1e308, 0.0]).axis
        np.testing.assert_allclose(axis, [2**-0.5, 2**-0.5, 0.0])

    outcome = run_case(case)
    # a correct unit axis, or a named error: anything else (the zero axis) fails
    assert outcome.error is None or issubclass(outcome.error, GeomechError), outcome.describe()
