"""geomstats interop (geomech.interop.geomstats), cross-checked both ways.

geomech -> geomstats: geomstats' solvers (its ODE exp solver, geodesic, the shooting log,
the transport equation on its integrator, the pole ladder) run on geomech connections
(Levi-Civita on coordinates, on SO(3), SE(2) with a right-invariant frame, SE(3) and the
Schönflies group; Cartan-Schouten and a connection with contorsion) and agree with
geomech's own geodesics and transport (integrated in re-centred charts, a different
scheme) to 1e-8. The adapter on a rigid body also agrees with geomstats' *native*
left-invariant metric (Euler-Poincaré exp, reduced transport equation): independent code.

geomstats -> geomech: the Poincaré half-plane (geomstats' closed-form exp and log), an
anisotropic left-invariant metric on SE(3) (geomstats' Euler-Poincaré exp and reduced
transport) and the bi-invariant metric on SO(3) (closed forms) imported as systems: geomech's
Levi-Civita geodesics and transport agree with geomstats' to 1e-8.
"""

import numpy as np
import pytest
from geomstats.geometry.hypersphere import Hypersphere
from geomstats.geometry.invariant_metric import InvariantMetric
from geomstats.geometry.poincare_half_space import PoincareHalfSpace
from geomstats.geometry.special_euclidean import SpecialEuclidean
from geomstats.geometry.special_orthogonal import SpecialOrthogonal
from geomstats.numerics.ivp import ScipySolveIVP

from geomech.errors import ConnectionSpecError, GeomechError
from geomech.geometry import (
    CartanSchoutenConnection,
    CustomFrame,
    LeviCivitaConnection,
    MechanicalSystem,
    RightInvariantFrame,
)
from geomech.geometry.examples import (
    rigid_body_schoenflies,
    rigid_body_se3,
    rigid_body_so3,
    two_link_arm,
)
from geomech.interop.geomstats import (
    ambient_tangent,
    frame_components,
    from_geomstats,
    to_geomstats,
)
from geomech.lie import SE2, SE3, SO3, Euclidean, ProductGroup, Schoenflies

TOL = 1e-8
WORST = {}


def rel_err(actual, expected):
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    return float(np.max(np.abs(actual - expected)) / max(1.0, float(np.max(np.abs(expected)))))


def record(key, err):
    WORST[key] = max(WORST.get(key, 0.0), err)
    assert err < TOL, f"{key}: {err:.3g}"


def spd(rng, n):
    A = rng.normal(size=(n, n))
    return A @ A.T + n * np.eye(n)


def se3_inertia():
    return np.array([
        [1.2, 0.1, 0.0, 0.0, 0.2, 0.0], [0.1, 1.0, 0.0, -0.2, 0.0, 0.0],
        [0.0, 0.0, 0.8, 0.0, 0.0, 0.0], [0.0, -0.2, 0.0, 2.0, 0.0, 0.0],
        [0.2, 0.0, 0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 2.0],
    ])  # fmt: skip


def contorted_so3():
    """Levi-Civita of an asymmetric top plus a contorsion symmetric in (1, 3)."""
    body = rigid_body_so3(np.diag([1.0, 2.0, 3.5]))
    K = np.zeros((3, 3, 3))
    K[0, 1, 2] = K[2, 1, 0] = 0.3  # changes the geodesics (not antisymmetric in (2, 3))
    return LeviCivitaConnection(body) + K


def right_se2():
    return MechanicalSystem(SE2, np.diag([0.5, 2.0, 3.0]), frame=RightInvariantFrame(SE2))


CASES = {
    # name: (connection factory, q0, v0, w0)
    "arm coordinates LC": (
        lambda: LeviCivitaConnection(two_link_arm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)),
        np.array([0.3, -0.4]),
        np.array([0.6, -0.5]),
        np.array([0.5, -1.0]),
    ),
    "SO(3) LC": (
        lambda: LeviCivitaConnection(rigid_body_so3(np.diag([1.0, 2.0, 3.5]))),
        SO3.exp([0.2, -0.1, 0.4]),
        np.array([0.3, 1.0, -0.5]),
        np.array([1.0, 0.0, 0.5]),
    ),
    "SO(3) LC + contorsion": (
        contorted_so3,
        SO3.exp([0.2, -0.1, 0.4]),
        np.array([0.3, 1.0, -0.5]),
        np.array([1.0, 0.0, 0.5]),
    ),
    "SE(2) right-invariant LC": (
        lambda: LeviCivitaConnection(right_se2()),
        SE2.exp([0.3, 0.5, -0.2]),
        np.array([0.8, 0.4, -0.6]),
        np.array([0.0, 1.0, 1.0]),
    ),
    "SE(3) LC": (
        lambda: LeviCivitaConnection(rigid_body_se3(se3_inertia())),
        SE3.exp([0.1, 0.2, -0.3, 0.5, 0.1, 0.0]),
        np.array([0.4, -0.8, 1.0, 0.3, -0.2, 0.5]),
        np.array([1.0, 0.0, 0.5, 0.0, -1.0, 0.2]),
    ),
    "SE(3) Cartan-Schouten 0": (
        lambda: CartanSchoutenConnection(rigid_body_se3(se3_inertia()), "cartan-zero"),
        SE3.exp([0.1, 0.2, -0.3, 0.5, 0.1, 0.0]),
        np.array([0.4, -0.8, 1.0, 0.3, -0.2, 0.5]),
        np.array([1.0, 0.0, 0.5, 0.0, -1.0, 0.2]),
    ),
    "Schoenflies LC": (
        lambda: LeviCivitaConnection(rigid_body_schoenflies(np.diag([0.7, 2.0, 2.0, 2.0]))),
        Schoenflies.exp([0.4, 0.1, -0.2, 0.3]),
        np.array([0.9, 0.2, -0.4, 0.3]),
        np.array([0.0, 1.0, 0.0, -1.0]),
    ),
}


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    make, q0, v0, w0 = CASES[request.param]
    conn = make()
    gs_conn = to_geomstats(conn)
    t = np.linspace(0.0, 1.0, 5)
    traj = conn.geodesic(q0, v0, t)
    return request.param, conn, gs_conn, q0, v0, w0, t, traj


def test_geomstats_exp_and_geodesic_run_on_geomech_connections(case):
    name, conn, gs_conn, q0, v0, _, t, traj = case
    system = conn.system
    V0 = ambient_tangent(system, q0, v0)
    record(f"exp [{name}]", rel_err(gs_conn.exp(V0, q0), traj.q[-1]))
    path = gs_conn.geodesic(q0, initial_tangent_vec=V0)
    record(f"geodesic(t) [{name}]", rel_err(path(t), traj.q))
    assert gs_conn.space.metric is gs_conn


def test_geomstats_log_and_bvp_geodesic(case):
    name, conn, gs_conn, q0, v0, _, t, traj = case
    system = conn.system
    log = gs_conn.log(traj.q[-1], q0)
    record(f"log [{name}]", rel_err(frame_components(system, q0, log), v0))
    if name in ("arm coordinates LC", "SE(3) LC"):  # geodesic between two points (via log)
        path = gs_conn.geodesic(q0, end_point=traj.q[-1])
        record(f"geodesic(q0, q1)(t) [{name}]", rel_err(path(t), traj.q))


def test_geomstats_parallel_transport_on_geomech_connections(case):
    name, conn, gs_conn, q0, v0, w0, t, traj = case
    system = conn.system
    expected = conn.parallel_transport(traj, w0)[-1]
    W = gs_conn.parallel_transport(ambient_tangent(system, q0, w0), q0,
                                   direction=ambient_tangent(system, q0, v0))  # fmt: skip
    record(f"parallel transport [{name}]",
           rel_err(frame_components(system, traj.q[-1], W), expected))  # fmt: skip
    W_end = gs_conn.parallel_transport(ambient_tangent(system, q0, w0), q0, end_point=traj.q[-1])
    record(f"parallel transport to end point [{name}]",
           rel_err(frame_components(system, traj.q[-1], W_end), expected))  # fmt: skip


def test_pole_ladder_runs_and_converges():
    """geomstats' pole ladder (second order in the rungs) on a geomech connection.

    Ladders are built from geodesics only, so they converge to the transport of the
    torsion-free connection with those geodesics: the test uses a Levi-Civita connection.
    """
    make, q0, v0, w0 = CASES["SO(3) LC"]
    conn = make()
    gs_conn = to_geomstats(conn)
    traj = conn.geodesic(q0, v0, [0.0, 1.0])
    expected = conn.parallel_transport(traj, w0)[-1]
    errors = []
    for n_rungs in (1, 3):
        out = gs_conn.ladder_parallel_transport(
            ambient_tangent(conn.system, q0, w0),
            q0,
            ambient_tangent(conn.system, q0, v0),
            n_rungs=n_rungs,
            scheme="pole",
            alpha=2,
        )
        errors.append(
            rel_err(
                frame_components(conn.system, traj.q[-1], out["transported_tangent_vec"]), expected
            )
        )
    WORST["pole ladder, 1 and 3 rungs"] = tuple(errors)
    assert errors[1] < errors[0] / 4 and errors[1] < 1e-2


def test_metric_inner_product_and_distance():
    make, q0, v0, _ = CASES["arm coordinates LC"]
    lc = make()
    metric = to_geomstats(lc)
    H = lc.system.mass_matrix(q0)
    assert type(metric).__name__ == "GeomstatsMetric"
    assert metric.inner_product(v0, v0, q0) == pytest.approx(v0 @ H @ v0, rel=1e-14)
    q1 = metric.exp(v0, q0)
    assert metric.dist(q0, q1) == pytest.approx(np.sqrt(v0 @ H @ v0), rel=1e-8)
    # geomstats puts the upper index first, geomech last (conventions page)
    assert np.allclose(metric.christoffels(q0), np.moveaxis(lc.christoffel_second_kind(q0), -1, -3),
                       rtol=0, atol=1e-12)  # fmt: skip
    body = rigid_body_se3(se3_inertia())
    gm = to_geomstats(LeviCivitaConnection(body))
    q, v = SE3.exp([0.3, 0.0, 0.2, 1.0, 2.0, 0.0]), np.arange(1.0, 7.0)
    V = ambient_tangent(body, q, v)
    assert gm.inner_product(V, V, q) == pytest.approx(v @ se3_inertia() @ v, rel=1e-13)
    assert type(to_geomstats(CartanSchoutenConnection(body, "cartan-minus"))).__name__ == (
        "GeomstatsConnection"
    )


def native_se3_metric(weights):
    """geomstats' left-invariant SE(3) metric with a diagonal matrix (its own solvers)."""
    space = SpecialEuclidean(3, equip=False)
    space.equip_with_metric(InvariantMetric, metric_mat_at_identity=np.diag(weights), left=True)
    space.metric.exp_solver.integrator = ScipySolveIVP(method="DOP853", rtol=1e-12,
                                                       atol=1e-12, point_ndim=2)  # fmt: skip
    return space.metric


WEIGHTS = [1.0, 2.5, 0.6, 1.5, 0.8, 2.0]
Q0 = SE3.exp([0.1, 0.2, -0.3, 0.5, 0.1, 0.0])
V0 = np.array([0.4, -0.8, 1.0, 0.3, -0.2, 0.5])
W0 = np.array([1.0, 0.0, 0.5, 0.0, -1.0, 0.2])


def test_se3_metric_from_geomstats_geodesics_and_transport():
    """Euler-Poincaré exp and the reduced transport of geomstats vs geomech's Levi-Civita."""
    native = native_se3_metric(WEIGHTS)
    system = from_geomstats(native)
    assert system.manifold is SE3 and system.has_constant_mass_matrix
    lc = LeviCivitaConnection(system)
    traj = lc.geodesic(Q0, V0, [0.0, 1.0])
    end = native.exp(ambient_tangent(system, Q0, V0), Q0)
    record("geomstats SE(3) metric: exp vs geomech geodesic", rel_err(end, traj.q[-1]))
    W = native.parallel_transport(
        ambient_tangent(system, Q0, W0), Q0, direction=ambient_tangent(system, Q0, V0), n_steps=200
    )
    record(
        "geomstats SE(3) metric: transport vs geomech",
        rel_err(frame_components(system, traj.q[-1], W), lc.parallel_transport(traj, W0)[-1]),
    )
    # ... and geomstats' solvers on the imported system's connection, against the native ones
    adapter = to_geomstats(lc)
    record("adapter exp vs native exp", rel_err(adapter.exp(ambient_tangent(system, Q0, V0), Q0),
                                                end))  # fmt: skip
    W_adapter = adapter.parallel_transport(
        ambient_tangent(system, Q0, W0), Q0, direction=ambient_tangent(system, Q0, V0)
    )
    record("adapter transport vs native transport", rel_err(W_adapter, W))


def test_so3_bi_invariant_from_geomstats_closed_forms():
    space = SpecialOrthogonal(3, equip=True)
    system = from_geomstats(space.metric)
    assert np.allclose(system.mass_matrix(np.eye(3)), np.eye(3))
    assert system.has_constant_mass_matrix
    lc = LeviCivitaConnection(system)
    q0, v0, w0 = SO3.exp([0.4, -0.2, 0.9]), np.array([1.0, -0.5, 2.0]), np.array([0.3, 1, 0])
    traj = lc.geodesic(q0, v0, [0.0, 1.0])
    V0 = ambient_tangent(system, q0, v0)
    record("geomstats SO(3) bi-invariant exp", rel_err(space.metric.exp(V0, q0), traj.q[-1]))
    W = space.metric.parallel_transport(ambient_tangent(system, q0, w0), q0, direction=V0)
    record(
        "geomstats SO(3) bi-invariant transport",
        rel_err(frame_components(system, traj.q[-1], W), lc.parallel_transport(traj, w0)[-1]),
    )


def test_poincare_half_plane_from_geomstats():
    space = PoincareHalfSpace(2)
    system = from_geomstats(space.metric)
    q0, v0 = np.array([0.2, 1.5]), np.array([0.7, -0.4])
    assert np.allclose(system.mass_matrix(q0), np.eye(2) / 1.5**2)  # g = |dx|^2 / y^2
    lc = LeviCivitaConnection(system)
    t = np.linspace(0.0, 1.0, 5)
    traj = lc.geodesic(q0, v0, t)
    record("Poincaré half-plane exp", rel_err(space.metric.exp(v0, q0), traj.q[-1]))
    record(
        "Poincaré half-plane geodesic(t)",
        rel_err(space.metric.geodesic(q0, initial_tangent_vec=v0)(t), traj.q),
    )
    record("Poincaré half-plane log", rel_err(space.metric.log(traj.q[-1], q0), v0))
    # closed-form curvature -1: the transported vector keeps its length and its angle
    w0 = np.array([0.0, 1.0])
    w1 = lc.parallel_transport(traj, w0)[-1]
    H0, H1 = system.mass_matrix(q0), system.mass_matrix(traj.q[-1])
    record("Poincaré transport keeps the norm", rel_err(w1 @ H1 @ w1, w0 @ H0 @ w0))
    record("Poincaré transport keeps the angle",
           rel_err(w1 @ H1 @ traj.v[-1], w0 @ H0 @ v0))  # fmt: skip


def test_frame_maps_round_trip():
    rng = np.random.default_rng(0)
    systems = [
        (rigid_body_so3(np.eye(3)), SO3), (right_se2(), SE2), (rigid_body_se3(np.eye(6)), SE3),
        (rigid_body_schoenflies(np.eye(4)), Schoenflies),
    ]  # fmt: skip
    for system, group in systems:
        q, v = group.random(rng), rng.normal(size=group.dim)
        assert rel_err(frame_components(system, q, ambient_tangent(system, q, v)), v) < 1e-12
    arm = two_link_arm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    assert np.array_equal(ambient_tangent(arm, [0.0, 0.0], [1.0, 2.0]), [1.0, 2.0])


def test_validators():
    with pytest.raises(ConnectionSpecError, match="Expected a geomech AffineConnection"):
        to_geomstats(rigid_body_so3(np.eye(3)))
    product = MechanicalSystem(ProductGroup(SO3, Euclidean(2)), np.eye(5))
    with pytest.raises(ConnectionSpecError, match="geomstats has no matching space"):
        to_geomstats(LeviCivitaConnection(product))
    custom = MechanicalSystem(None, np.eye(1), frame=CustomFrame(1, (1,), lambda q, w, t: q))
    with pytest.raises(ConnectionSpecError, match="geomstats has no matching space"):
        frame_components(custom, [0.0], [1.0])
    gs_so3 = to_geomstats(LeviCivitaConnection(rigid_body_so3(np.eye(3))))
    with pytest.raises(ConnectionSpecError, match="ambient matrix coordinates"):
        gs_so3.christoffels(np.eye(3))
    with pytest.raises(ConnectionSpecError, match="`direction` or an `end_point`"):
        gs_so3.parallel_transport(np.zeros((3, 3)), np.eye(3))
    with pytest.raises(ConnectionSpecError, match="Expected a geomstats RiemannianMetric"):
        from_geomstats(gs_so3.geomech_connection)
    with pytest.raises(ConnectionSpecError, match="Hypersphere with points of shape"):
        from_geomstats(Hypersphere(2).metric)
    top = to_geomstats(LeviCivitaConnection(rigid_body_so3(np.diag([1.0, 2.0, 3.5]))))
    top.log_solver.max_iter = 1
    with pytest.raises(GeomechError, match="did not converge"):
        top.log(SO3.exp([1.0, 0.5, 2.0]), np.eye(3))


def test_report_figures():
    """Print the worst agreements (run with -s); each is asserted where it is measured."""
    for key, err in sorted(WORST.items()):
        print(f"{key:60s} {err}")
