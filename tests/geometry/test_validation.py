"""Every validator of geomech.geometry is triggered, and its message names the input."""

import numpy as np
import pytest

from geomech.errors import ConnectionSpecError, DimensionError, GeomechError, InertiaError
from geomech.geometry import (
    AffineConnection,
    CartanSchoutenConnection,
    Contorsion,
    CustomFrame,
    LeviCivitaConnection,
    MechanicalSystem,
    RightInvariantFrame,
)
from geomech.geometry.examples import point_mass, rigid_body_se2, rigid_body_so3, two_link_arm
from geomech.lie import SO3, Euclidean


def test_non_symmetric_mass_matrix():
    H = np.array([[1.0, 0.5], [0.0, 1.0]])
    with pytest.raises(InertiaError, match="`mass_matrix` to be symmetric"):
        MechanicalSystem(Euclidean(2), H)


def test_non_positive_definite_mass_matrix():
    with pytest.raises(InertiaError, match="`mass_matrix` to be positive definite"):
        MechanicalSystem(Euclidean(2), np.diag([1.0, -1.0]))
    with pytest.raises(InertiaError, match="`inertia` to be positive definite"):
        rigid_body_so3(np.diag([1.0, 1.0, 0.0]))


def test_callable_mass_matrix_checked_at_evaluation():
    system = MechanicalSystem(Euclidean(1), lambda q: q[..., None] * np.ones((1, 1)))
    assert system.mass_matrix([2.0]).shape == (1, 1)
    with pytest.raises(InertiaError, match=r"`mass_matrix\(q\)` to be positive definite"):
        system.mass_matrix([-1.0])
    bad = MechanicalSystem(Euclidean(2), lambda q: np.eye(3))
    with pytest.raises(DimensionError, match=r"`mass_matrix\(q\)` to have shape \(2, 2\)"):
        bad.mass_matrix([0.0, 0.0])


def test_mass_matrix_wrong_shape():
    with pytest.raises(DimensionError, match=r"`mass_matrix` to have shape \(3, 3\), got \(2, 2\)"):
        MechanicalSystem(SO3, np.eye(2))
    with pytest.raises(DimensionError, match=r"`inertia` to have shape \(3, 3\) or \(6, 6\)"):
        rigid_body_se2(np.eye(4))


def test_coefficients_wrong_shape():
    pm = point_mass()
    with pytest.raises(ConnectionSpecError, match=r"`coefficients` to have shape \(3, 3, 3\)"):
        AffineConnection(pm, np.zeros((3, 3)))
    conn = AffineConnection(pm, lambda q: np.zeros((2, 2, 2)))
    with pytest.raises(ConnectionSpecError, match=r"`coefficients\(q\)` to have shape"):
        conn.coriolis_matrix(np.zeros(3), np.ones(3))
    with pytest.raises(ConnectionSpecError, match="`system` to be a MechanicalSystem"):
        AffineConnection("R3", np.zeros((3, 3, 3)))


@pytest.mark.parametrize("kind", ["x", "", 0, None, "++"])
def test_cartan_schouten_kind(kind):
    with pytest.raises(ConnectionSpecError, match="Unknown connection name .*'cartan-minus'"):
        CartanSchoutenConnection(rigid_body_so3(np.eye(3)), kind)


@pytest.mark.parametrize("kind", ["levi-civita", "boltzmann-hamel", "momentum-cross"])
def test_cartan_schouten_kind_names_another_connection(kind):
    with pytest.raises(ConnectionSpecError, match="name a Cartan–Schouten connection"):
        CartanSchoutenConnection(rigid_body_so3(np.eye(3)), kind)


@pytest.mark.parametrize("alias", ["-", "cartan-schouten-", "cartan(-)", "Cartan_Minus"])
def test_cartan_schouten_aliases_resolve_to_one_name(alias):
    conn = CartanSchoutenConnection(rigid_body_so3(np.eye(3)), alias)
    assert conn.kind == "cartan-minus"


def test_cartan_schouten_needs_left_invariant_frame():
    with pytest.raises(ConnectionSpecError, match="LeftInvariantFrame"):
        CartanSchoutenConnection(point_mass(), "0")
    right = MechanicalSystem(SO3, np.eye(3), frame=RightInvariantFrame(SO3))
    with pytest.raises(ConnectionSpecError, match="LeftInvariantFrame"):
        CartanSchoutenConnection(right, "-")


def test_contorsion_validation():
    with pytest.raises(ConnectionSpecError, match=r"`components` to have shape \(n, n, n\)"):
        Contorsion(np.zeros((3, 3, 2)))
    with pytest.raises(ConnectionSpecError, match="`dim` for callable `components`"):
        Contorsion(lambda q: np.zeros((3, 3, 3)))
    with pytest.raises(
        ConnectionSpecError, match=r"`beta` to have comb\(4, 3\) = 4 entries, got 3"
    ):
        Contorsion.totally_antisymmetric(np.ones(3), dim=4)
    with pytest.raises(
        ConnectionSpecError, match=r"`beta` to have comb\(5, 3\) = 10 entries, got 5"
    ):
        Contorsion.totally_antisymmetric(np.ones(5))
    with pytest.raises(ConnectionSpecError, match="`dim` when `beta` is empty"):
        Contorsion.totally_antisymmetric([])
    assert not Contorsion.totally_antisymmetric([], dim=2)().any()
    with pytest.raises(ConnectionSpecError, match="configuration `q`"):
        Contorsion(lambda q: np.zeros((3, 3, 3)), dim=3)()
    with pytest.raises(DimensionError, match="same size"):
        Contorsion(np.zeros((3, 3, 3))) + Contorsion(np.zeros((2, 2, 2)))


def test_connection_algebra_validation():
    lc = LeviCivitaConnection(point_mass())
    with pytest.raises(DimensionError, match="tensor of size 3, got 2"):
        lc + Contorsion(np.zeros((2, 2, 2)))
    with pytest.raises(DimensionError, match="same dimension"):
        lc - LeviCivitaConnection(point_mass(dim=2))
    with pytest.raises(ConnectionSpecError, match="`reference` to be an AffineConnection"):
        lc.contorsion(np.zeros(3), reference="lc")


def test_point_and_speed_validation():
    lc = LeviCivitaConnection(rigid_body_so3(np.eye(3)))
    with pytest.raises(DimensionError, match=r"`q` to have shape \(\.\.\., 3, 3\)"):
        lc.coriolis_matrix(np.eye(4), np.ones(3))
    with pytest.raises(GeomechError, match="`q` to be orthonormal"):
        lc.coriolis_matrix(2 * np.eye(3), np.ones(3))
    with pytest.raises(DimensionError, match=r"`v` to have shape \(\.\.\., 3\)"):
        lc.coriolis_matrix(np.eye(3), np.ones(2))
    with pytest.raises(DimensionError, match="`t` to be strictly increasing"):
        lc.geodesic(np.eye(3), np.ones(3), [0.0, 1.0, 0.5])
    traj = lc.geodesic(np.eye(3), np.ones(3), [0.0, 1.0])
    with pytest.raises(GeomechError, match=r"time in \[0.0, 1.0\]"):
        traj.state(2.0)


def test_system_and_frame_validation():
    with pytest.raises(ConnectionSpecError, match="`manifold` to be a geomech.lie.LieGroup"):
        MechanicalSystem("SO3", np.eye(3))
    with pytest.raises(ConnectionSpecError, match="`potential` to be callable"):
        MechanicalSystem(Euclidean(1), np.eye(1), potential=3.0)
    with pytest.raises(DimensionError, match="`frame` of dimension 3"):
        MechanicalSystem(SO3, np.eye(2), frame=CustomFrame(2, (2,), lambda q, w, t: q))
    with pytest.raises(ConnectionSpecError, match="`flow` to be callable"):
        CustomFrame(2, (2,), None)
    with pytest.raises(
        ConnectionSpecError, match=r"`structure_constants` to have shape \(2, 2, 2\)"
    ):
        CustomFrame(2, (2,), lambda q, w, t: q, structure_constants=np.zeros(3))
    with pytest.raises(InertiaError, match="`m1` to be positive"):
        two_link_arm(0.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    with pytest.raises(InertiaError, match="`mass` to be positive"):
        point_mass(-1.0)


def test_custom_frame_system_reproduces_coordinates(rng):
    # a user frame (as a multibody model will supply) gives the same connection as R^2
    frame = CustomFrame(2, (2,), lambda q, w, t: q + t[..., None] * w)
    arm = two_link_arm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    custom = MechanicalSystem(None, lambda q: arm.mass_matrix(q), frame=frame)
    q = rng.normal(size=2)
    np.testing.assert_allclose(
        LeviCivitaConnection(custom).christoffel_first_kind(q),
        LeviCivitaConnection(arm).christoffel_first_kind(q),
        atol=1e-12,
    )
