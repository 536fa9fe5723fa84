"""A particle on a sphere and on a torus: induced connections against independent references.

References: sympy Christoffel symbols of the pulled-back metric m J^T J; great circles in closed
form and geomstats' Hypersphere(dim=2) exponential map; conservation of energy and of the
Clairaut momentum on the torus; Gauss-Bonnet holonomy of parallel transport around a latitude.
"""

import os

import numpy as np
import pytest
import sympy as sp
from numpy.testing import assert_allclose

from geomech.errors import DimensionError, InertiaError, SingularityError
from geomech.geometry import Contorsion, InducedConnection, LeviCivitaConnection
from geomech.geometry.examples import point_mass
from geomech.geometry.examples_induced import particle_on_sphere, particle_on_torus
from geomech.lie import Euclidean

RADIUS, MASS = 1.5, 2.0
R_MAJOR, R_MINOR = 2.0, 0.7


def _sympy_christoffel(position, mass):
    """Lambdified first-kind Christoffel symbols of g = m J^T J for x(theta, phi)."""
    th, ph = sp.symbols("theta phi", real=True)
    x = sp.Matrix(position(th, ph))
    J = x.jacobian([th, ph])
    g = sp.simplify(mass * J.T * J)
    q = [th, ph]
    G = [
        [
            [
                sp.simplify(
                    sp.Rational(1, 2)
                    * (g[i, j].diff(q[k]) + g[i, k].diff(q[j]) - g[j, k].diff(q[i]))
                )
                for k in range(2)
            ]
            for j in range(2)
        ]
        for i in range(2)
    ]
    return sp.lambdify((th, ph), sp.Array(G), "numpy"), sp.lambdify((th, ph), g, "numpy")


SURFACES = {
    "sphere": (
        lambda th, ph: [
            RADIUS * sp.sin(th) * sp.cos(ph),
            RADIUS * sp.sin(th) * sp.sin(ph),
            RADIUS * sp.cos(th),
        ],
        lambda: particle_on_sphere(RADIUS, MASS),
    ),
    "torus": (
        lambda th, ph: [
            (R_MAJOR + R_MINOR * sp.cos(th)) * sp.cos(ph),
            (R_MAJOR + R_MINOR * sp.cos(th)) * sp.sin(ph),
            R_MINOR * sp.sin(th),
        ],
        lambda: particle_on_torus(R_MAJOR, R_MINOR, MASS),
    ),
}


@pytest.fixture(scope="module")
def sympy_surfaces():
    return {name: _sympy_christoffel(pos, MASS) for name, (pos, _make) in SURFACES.items()}


@pytest.fixture(scope="module")
def hypersphere():
    os.environ.setdefault("GEOMSTATS_BACKEND", "numpy")
    hs = pytest.importorskip("geomstats.geometry.hypersphere")
    return hs.Hypersphere(dim=2)


def _numeric_embedding(name):
    """The same surface given by its embedding only (numerical Jacobian)."""
    conn = SURFACES[name][1]()
    return InducedConnection(
        LeviCivitaConnection(point_mass(MASS)), embedding=conn.ambient_point, manifold=Euclidean(2)
    )


def _sample(rng, size):
    return np.stack([rng.uniform(0.3, np.pi - 0.3, size), rng.uniform(-np.pi, np.pi, size)], -1)


# ----------------------------------------------------------------------------------------
# coefficients against sympy
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("jacobian, tol", [("analytic", 1e-11), ("numerical", 1e-9)])
@pytest.mark.parametrize("name", list(SURFACES))
def test_christoffel_symbols_match_sympy(name, jacobian, tol, sympy_surfaces, rng):
    G_ref, g_ref = sympy_surfaces[name]
    conn = SURFACES[name][1]() if jacobian == "analytic" else _numeric_embedding(name)
    q = _sample(rng, 8)
    G = conn.christoffel_first_kind(q)
    for k in range(len(q)):
        ref = np.array(G_ref(*q[k]), dtype=float)
        assert_allclose(G[k], ref, atol=tol * MASS * RADIUS**2)
        assert_allclose(
            conn.system.mass_matrix(q[k]), np.array(g_ref(*q[k]), dtype=float), atol=1e-12
        )


def test_sphere_round_metric_literal():
    """Gamma_{theta phi phi} = -m r^2 sin cos, Gamma_{phi theta phi} = +m r^2 sin cos."""
    sphere = particle_on_sphere(RADIUS, MASS)
    th = 0.4
    G = sphere.christoffel_first_kind([th, 1.0])
    sc = MASS * RADIUS**2 * np.sin(th) * np.cos(th)
    assert_allclose(G[0, 1, 1], -sc, rtol=1e-11)
    assert_allclose(G[1, 0, 1], sc, rtol=1e-11)
    assert_allclose(G[1, 1, 0], sc, rtol=1e-11)
    assert_allclose([G[0, 0, 0], G[0, 0, 1], G[1, 1, 1], G[1, 0, 0]], 0.0, atol=1e-12)


# ----------------------------------------------------------------------------------------
# geodesics
# ----------------------------------------------------------------------------------------
def _great_circle_setup(conn, q0, v0):
    x0 = conn.ambient_point(q0)
    xdot0 = conn.velocity_map(q0) @ v0
    return x0, xdot0


def test_sphere_geodesics_are_great_circles(rng):
    sphere = particle_on_sphere(RADIUS, MASS)
    q0, v0 = np.array([np.pi / 2, 0.3]), np.array([0.6, 0.8]) / RADIUS
    x0, xdot0 = _great_circle_setup(sphere, q0, v0)
    speed = np.linalg.norm(xdot0)
    t = np.linspace(0.0, 2 * np.pi * RADIUS / speed, 9)
    traj = sphere.geodesic(q0, v0, t)
    x = sphere.ambient_point(traj.q)
    w = speed / RADIUS
    closed_form = np.cos(w * t)[:, None] * x0 + np.sin(w * t)[:, None] * xdot0 / w
    assert_allclose(x, closed_form, atol=1e-8)
    n = np.cross(x0, xdot0)
    assert_allclose(x @ n, 0.0, atol=1e-8)  # in the plane through the centre
    energy = sphere.system.kinetic_energy(traj.q, traj.v)
    assert_allclose(energy, energy[0], rtol=1e-9)


def test_sphere_geodesics_agree_with_geomstats(hypersphere):
    sphere = particle_on_sphere(1.0, MASS)
    q0, v0 = np.array([1.1, -0.4]), np.array([-0.5, 0.9])
    x0, xdot0 = _great_circle_setup(sphere, q0, v0)
    t = np.linspace(0.0, 2.0, 5)
    traj = sphere.geodesic(q0, v0, t)
    ref = hypersphere.metric.exp(t[:, None] * xdot0, x0)
    assert_allclose(sphere.ambient_point(traj.q), ref, atol=1e-8)
    assert_allclose(hypersphere.spherical_to_extrinsic(q0), x0, atol=1e-15)


def test_torus_geodesics_conserve_energy_and_clairaut(rng):
    torus = particle_on_torus(R_MAJOR, R_MINOR, MASS)
    q0, v0 = np.array([0.2, 0.0]), np.array([1.1, 0.35])
    t = np.linspace(0.0, 12.0, 13)
    traj = torus.geodesic(q0, v0, t)
    energy = torus.system.kinetic_energy(traj.q, traj.v)
    rho = R_MAJOR + R_MINOR * np.cos(traj.q[:, 0])
    clairaut = rho**2 * traj.v[:, 1]  # p_phi / m: phi is cyclic
    assert_allclose(energy, energy[0], rtol=1e-8)
    assert_allclose(clairaut, clairaut[0], rtol=1e-8)
    assert np.ptp(traj.q[:, 0]) > 1.0  # a non-trivial geodesic


def test_sphere_parallel_transport_holonomy():
    """Transport around the latitude theta0 turns vectors by the enclosed solid angle.

    In the orthonormal frame (e_theta, e_phi / sin theta) the Levi-Civita transport reads
    u1' = cos(theta0) u2, u2' = -cos(theta0) u1: a turn by -2 pi cos(theta0), which is the
    holonomy 2 pi (1 - cos theta0) modulo 2 pi (Gauss-Bonnet).
    """
    sphere = particle_on_sphere(RADIUS, MASS)
    th0 = 0.7

    class Latitude:
        t = np.array([0.0, 2 * np.pi])

        @staticmethod
        def state(s):
            return np.array([th0, s]), np.array([0.0, 1.0])

    w = sphere.parallel_transport(Latitude(), np.array([1.0, 0.0]))[-1]
    # orthonormal components (e_theta, e_phi / sin theta) / (sqrt(m) r)
    u = np.array([w[0], np.sin(th0) * w[1]])
    angle = np.arctan2(u[1], u[0])
    holonomy = 2 * np.pi * (1 - np.cos(th0))
    assert_allclose(np.linalg.norm(u), 1.0, rtol=1e-9)
    assert_allclose([np.cos(angle), np.sin(angle)], [np.cos(holonomy), np.sin(holonomy)], atol=1e-8)


# ----------------------------------------------------------------------------------------
# connections with torsion on the ambient space
# ----------------------------------------------------------------------------------------
def test_totally_antisymmetric_torsion_disappears_on_the_sphere(sympy_surfaces, rng):
    """beta (v x) on R^3 is skew and correct; on a 2-D surface only C* is (Cor. III.2)."""
    twisted = particle_on_sphere(RADIUS, MASS, Contorsion.totally_antisymmetric([3.0]))
    q = _sample(rng, 4)
    G_ref = sympy_surfaces["sphere"][0]
    for k in range(len(q)):
        assert_allclose(
            twisted.christoffel_first_kind(q[k]), np.array(G_ref(*q[k]), float), atol=1e-10
        )


def test_metric_compatible_torsion_is_induced(rng):
    """K antisymmetric in (1, 3): the induced connection stays skew but has torsion."""
    R = rng.normal(size=(3, 3, 3))
    K = R - np.einsum("ijk->kji", R)
    twisted = particle_on_sphere(RADIUS, MASS, K)
    q = _sample(rng, 4)
    v = rng.normal(size=(4, 2))
    h = 1e-5
    H_dot = (twisted.system.mass_matrix(q + h * v) - twisted.system.mass_matrix(q - h * v)) / (
        2 * h
    )
    C = twisted.coriolis_matrix(q, v)
    assert_allclose(H_dot, C + np.swapaxes(C, -1, -2), atol=1e-8)
    A = twisted.velocity_map(q)
    T_low = np.einsum("...ai,...bj,...ck,...abc->...ijk", A, A, A, K - np.swapaxes(K, 1, 2))
    G = twisted.christoffel_first_kind(q)
    assert_allclose(G - np.swapaxes(G, -1, -2), T_low, atol=1e-10)  # coordinates: s = 0
    assert np.abs(T_low).max() > 0.1
    assert not twisted.is_torsion_free(q)
    line = twisted.geodesic(q[0], v[0], np.linspace(0.0, 1.0, 3))
    w = twisted.parallel_transport(line, np.eye(2))
    gram = np.einsum("ati,tij,btj->tab", w, twisted.system.mass_matrix(line.q), w)
    assert_allclose(gram, np.broadcast_to(gram[0], gram.shape), atol=1e-8)


# ----------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------
def test_surface_validation():
    with pytest.raises(DimensionError, match="`radius` to be positive, got -1"):
        particle_on_sphere(-1.0)
    with pytest.raises(InertiaError, match="`mass` to be positive"):
        particle_on_sphere(1.0, 0.0)
    with pytest.raises(DimensionError, match="`minor_radius` < `major_radius`"):
        particle_on_torus(1.0, 2.0)
    with pytest.raises(DimensionError, match="`minor_radius` to be positive"):
        particle_on_torus(1.0, 0.0)
    with pytest.raises(
        SingularityError,
        match=r"`A\(q\)` to have full column rank 2, got "
        r"smallest singular value 0 \(largest 1\.5\)",
    ):
        particle_on_sphere(RADIUS).christoffel_first_kind([0.0, 0.3])  # the pole
