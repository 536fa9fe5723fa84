"""One vocabulary (issue 14 item 3), checked on the source and on the objects.

The names themselves are listed on the conventions page ("Vocabulary"); these tests fail when
a public function or method brings back a retired name, and check the two concepts "group
element" (identity / random) and "configuration" (neutral / random_configuration) against
values known independently of the code (the identity matrix, zero coordinates, the loop
constraint).
"""

import ast
from pathlib import Path

import numpy as np
import pytest

from geomech.errors import ConnectionSpecError
from geomech.geometry import (
    CoordinateFrame,
    LeftInvariantFrame,
    LoopClosureFrame,
    MechanicalSystem,
    RightInvariantFrame,
)
from geomech.geometry.examples import point_mass, rigid_body_se3
from geomech.geometry.names import CONNECTION_NAMES, canonical_connection_name, connection_names
from geomech.lie import SE2, SE3, SO3, Euclidean, Schoenflies

ROOT = Path(__file__).resolve().parents[1] / "geomech"

#: argument names retired for q, v, a, tau (and the public names retired with them)
RETIRED_ARGUMENTS = {
    "v_dot",
    "x_dot",
    "x_ddot",
    "qd",
    "qdd",
    "qdot",
    "q_dot",
    "q_ddot",
    "omega_dot",
    "torque",
    "torques",
    "Q",
}
RETIRED_NAMES = {
    "random_point",
    "potential_force",
    "local_potential_force",
    "gravity",
    "CONNECTION_KINDS",
    "MomentumCrossBody",
}


def _public_defs(nodes, rel):
    """Public functions and classes, not descending into private ones."""
    for node in nodes:
        if not isinstance(node, ast.FunctionDef | ast.ClassDef):
            continue
        if node.name.startswith("_") and node.name not in ("__init__", "__call__"):
            continue
        yield rel, node
        yield from _public_defs(node.body, rel)


def _public_functions():
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent)
        if "_kernels" in rel.parts:  # numba kernels: capital batch arrays, documented there
            continue
        yield from _public_defs(ast.parse(path.read_text(encoding="utf-8")).body, rel)


def test_public_functions_use_q_v_a_tau():
    offences = []
    for rel, node in _public_functions():
        if isinstance(node, ast.FunctionDef):
            args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            offences += [
                f"{rel}:{node.lineno} {node.name}({a.arg})"
                for a in args
                if a.arg in RETIRED_ARGUMENTS
            ]
    assert offences == []


def test_retired_public_names_are_gone():
    offences = [
        f"{rel}:{node.lineno} {node.name}"
        for rel, node in _public_functions()
        if node.name in RETIRED_NAMES
    ]
    for path in sorted(ROOT.rglob("*.py")):  # module-level constants
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign):
                offences += [
                    f"{path.name}:{node.lineno} {t.id}"
                    for t in node.targets
                    if isinstance(t, ast.Name) and t.id in RETIRED_NAMES
                ]
    assert offences == []


# ----------------------------------------------------------------------------------------
# group elements vs configurations
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("group", [SO3, SE3, SE2, Schoenflies, Euclidean(3)], ids=lambda g: g.name)
def test_a_group_has_identity_and_random_only(group):
    assert hasattr(group, "identity") and hasattr(group, "random")
    assert not hasattr(group, "neutral") and not hasattr(group, "random_configuration")


@pytest.mark.parametrize("frame_cls", [LeftInvariantFrame, RightInvariantFrame])
@pytest.mark.parametrize("group", [SO3, SE3, SE2], ids=lambda g: g.name)
def test_neutral_of_a_group_frame_is_the_identity_matrix(frame_cls, group):
    frame = frame_cls(group)
    n = group.point_shape[0]
    np.testing.assert_array_equal(frame.neutral(), np.eye(n))
    assert frame.random_configuration(rng=0, size=2).shape == (2, n, n)


def test_neutral_of_coordinates_is_zero_and_of_systems_follows_their_manifold():
    np.testing.assert_array_equal(CoordinateFrame(3).neutral(), np.zeros(3))
    np.testing.assert_array_equal(point_mass().neutral(), np.zeros(3))
    np.testing.assert_array_equal(rigid_body_se3(np.eye(6)).neutral(), np.eye(4))
    system = MechanicalSystem(SO3, np.eye(3))
    np.testing.assert_array_equal(system.neutral(), np.eye(3))
    assert system.random_configuration(rng=1, size=3).shape == (3, 3, 3)


def test_neutral_of_a_loop_closure_frame_is_its_reference_on_the_constraint():
    circle = lambda q: (q**2).sum(-1, keepdims=True) - 1.0  # noqa: E731
    frame = LoopClosureFrame(circle, 2, [0], reference=[0.6, 0.8])
    q0 = frame.neutral()
    np.testing.assert_allclose(circle(q0), 0.0, atol=1e-15)
    np.testing.assert_allclose(q0, [0.6, 0.8])
    q0[0] = 5.0  # a copy: the frame's reference is unchanged
    np.testing.assert_allclose(frame.neutral(), [0.6, 0.8])
    with pytest.raises(ConnectionSpecError, match="Expected a `reference` configuration"):
        LoopClosureFrame(circle, 2, [0]).neutral()


# ----------------------------------------------------------------------------------------
# the registry of connection names
# ----------------------------------------------------------------------------------------
def test_every_alias_resolves_to_its_canonical_name():
    for name, aliases in CONNECTION_NAMES.items():
        assert canonical_connection_name(name) == name
        for alias in aliases:
            assert canonical_connection_name(alias) == name
            assert canonical_connection_name(alias.upper()) == name
    assert connection_names()[: len(CONNECTION_NAMES)] == list(CONNECTION_NAMES)


@pytest.mark.parametrize("bad", ["christoffel", "", 3, None, "cartan"])
def test_unknown_names_raise_one_error_listing_the_canonical_names(bad):
    with pytest.raises(
        ConnectionSpecError,
        match=r"Unknown connection name .*\['levi-civita', "
        r"'cartan-minus', 'cartan-zero', 'cartan-plus', "
        r"'velocity-cross', 'boltzmann-hamel'",
    ):
        canonical_connection_name(bad)


def test_register_connection_name_validates():
    from geomech.geometry.names import register_connection_name

    with pytest.raises(ConnectionSpecError, match="which is registered"):
        register_connection_name("momentum-cross")
    with pytest.raises(ConnectionSpecError, match="non-empty string"):
        register_connection_name("")
    with pytest.raises(ConnectionSpecError, match="distinct names"):
        register_connection_name("vocab-test-a", aliases=("Vocab_Test_A",))
    register_connection_name("vocab-test-b", aliases=("vocab-test-b2",))
    assert canonical_connection_name("VOCAB_TEST_B2") == "vocab-test-b"


# ----------------------------------------------------------------------------------------
# one index layout: lower indices as written, the upper index last; derivatives last
# ----------------------------------------------------------------------------------------
def _unit(n, i):
    e = np.zeros(n)
    e[i] = 1.0
    return e


@pytest.mark.parametrize("group", [SO3, SE3, SE2], ids=lambda g: g.name)
def test_upper_index_last_for_structure_constants_second_kind_and_torsion(group, rng):
    """s[j, k, i] = s^i_jk from the bracket, Gamma2[j, k, i] from the covariant derivative
    nabla_{X_j} X_k = Gamma^i_jk X_i, T[j, k, i] from T(X_j, X_k) = nabla_j X_k - nabla_k X_j
    - [X_j, X_k] (each side computed by another route)."""
    from geomech.geometry import LeviCivitaConnection

    n = group.dim
    A = rng.normal(size=(n, n))
    system = MechanicalSystem(group, A @ A.T + n * np.eye(n))
    conn = LeviCivitaConnection(system) + 0.3 * rng.normal(size=(n, n, n))
    q = group.random(rng)
    s = group.structure_constants()
    G2, T = conn.christoffel_second_kind(q), conn.torsion(q)
    zero = np.zeros(n)
    for j in range(n):
        for k in range(n):
            bracket = group.vee(
                group.hat(_unit(n, j)) @ group.hat(_unit(n, k))
                - group.hat(_unit(n, k)) @ group.hat(_unit(n, j))
            )
            np.testing.assert_allclose(s[j, k], bracket, atol=1e-12)
            nabla_jk = conn.covariant_derivative(q, _unit(n, j), _unit(n, k), zero)
            nabla_kj = conn.covariant_derivative(q, _unit(n, k), _unit(n, j), zero)
            np.testing.assert_allclose(G2[j, k], nabla_jk, atol=1e-12)
            np.testing.assert_allclose(T[j, k], nabla_jk - nabla_kj - bracket, atol=1e-12)


def test_mass_matrix_lie_derivative_puts_the_direction_last():
    """dH[i, j, k] = d H_ij / d q_k in coordinates, against central differences of H."""
    from geomech.geometry.examples import two_link_arm

    arm = two_link_arm(1.0, 2.0, 1.0, 0.8, 0.5, 0.4, 0.1, 0.2)
    q, h = np.array([0.3, -0.7]), 1e-6
    dH = arm.mass_matrix_lie_derivative(q)
    for k in range(2):
        e = _unit(2, k) * h
        fd = (arm.mass_matrix(q + e) - arm.mass_matrix(q - e)) / (2 * h)
        np.testing.assert_allclose(dH[..., k], fd, atol=1e-8)
    assert np.abs(dH[..., 1]).max() > 0.1  # H depends on the elbow angle only
    np.testing.assert_allclose(dH[..., 0], 0.0, atol=1e-9)
