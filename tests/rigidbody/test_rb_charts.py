"""Charts and velocity maps (digest T4, T11, F5 in test_rb_fixtures): exponential coordinates,
ZYX Euler angles, planar coordinates; their singular sets.

References: central differences of the chart map along ``x(t)`` (the body velocity
``(g⁻¹ġ)^∨`` computed with ``log``), the expm-block oracle, the truncated series (29) and the
closed-form determinants of the digest §1.3.
"""

import numpy as np
import pytest
from rb_helpers import GROUP_IDS, GROUPS, expm_oracle_S, fd_partials

from geomech.errors import GeomechError, SingularityError
from geomech.lie import SE2, SE3, SO3, Euclidean, Schoenflies
from geomech.rigidbody import EulerZYX, ExponentialChart, PlanarChart, dexp_series


def _all_charts():
    charts, ids = [], []
    for G, gid in zip(GROUPS, GROUP_IDS, strict=True):
        charts += [ExponentialChart(G), ExponentialChart(G, G.random(3))]
        ids += [f"exp-{gid}", f"exp-{gid}-centred"]
    charts += [EulerZYX(SO3), EulerZYX(SE3), PlanarChart(SE2), PlanarChart(Schoenflies)]
    ids += ["zyx-SO3", "zyx-SE3", "planar-SE2", "planar-X4"]
    return charts, ids


CHARTS, CHART_IDS = _all_charts()


@pytest.fixture(params=CHARTS, ids=CHART_IDS)
def chart(request):
    return request.param


def _body_velocity_fd(chart, x, x_dot, h=1e-6):
    G = chart.group
    g_plus, g_minus = chart.to_group(x + h * x_dot), chart.to_group(x - h * x_dot)
    return G.log(G.compose(G.inverse(g_minus), g_plus)) / (2 * h)


@pytest.mark.parametrize("where", ["random", "near_zero"])
def test_T11_velocity_map_is_the_body_velocity(chart, rng, where):
    scale = 1.0 if where == "random" else 1e-4
    x = scale * rng.uniform(-1.0, 1.0, chart.dim)
    x_dot = rng.standard_normal(chart.dim)
    np.testing.assert_allclose(
        chart.velocity_map(x) @ x_dot, _body_velocity_fd(chart, x, x_dot), atol=1e-8
    )


def test_velocity_map_derivative_matches_finite_differences(chart, rng):
    x = rng.uniform(-1.0, 1.0, chart.dim)
    np.testing.assert_allclose(
        chart.velocity_map_derivative(x), fd_partials(chart.velocity_map, x, 1e-6), atol=1e-8
    )
    # batched evaluation = loop
    X = rng.uniform(-1.0, 1.0, (2, chart.dim))
    np.testing.assert_allclose(
        chart.velocity_map_derivative(X)[1], chart.velocity_map_derivative(X[1]), atol=1e-14
    )


def test_chart_round_trip(chart, rng):
    x = rng.uniform(-1.0, 1.0, chart.dim)
    np.testing.assert_allclose(chart.from_group(chart.to_group(x)), x, atol=1e-12)
    g = chart.group.random(rng)
    np.testing.assert_allclose(chart.to_group(chart.from_group(g)), g, atol=1e-12)


@pytest.mark.parametrize("group", GROUPS, ids=GROUP_IDS)
def test_T4_dS_at_zero_is_minus_half_ad(group):
    dS = ExponentialChart(group).velocity_map_derivative(np.zeros(group.dim))
    for j, e in enumerate(np.eye(group.dim)):
        np.testing.assert_allclose(dS[..., j], -0.5 * group.ad(e), atol=1e-14)


@pytest.mark.parametrize("group", GROUPS, ids=GROUP_IDS)
def test_T11_series_oracle_closed_form(group, rng):
    phi = rng.uniform(-1.0, 1.0, group.dim)
    S = ExponentialChart(group).velocity_map(phi)
    np.testing.assert_allclose(
        dexp_series(group, phi, order=30), expm_oracle_S(group, phi), atol=1e-14
    )
    np.testing.assert_allclose(S, expm_oracle_S(group, phi), atol=1e-13)
    np.testing.assert_allclose(S @ phi, phi, atol=1e-13)
    np.testing.assert_allclose(
        ExponentialChart(group).velocity_map(np.zeros(group.dim)), np.eye(group.dim), atol=0
    )
    np.testing.assert_allclose(group.left_jacobian(phi), group.Ad(group.exp(phi)) @ S, atol=1e-12)
    # the first terms of (29): I - ½ ad + ⅙ ad² agree to O(|φ|³) near 0
    small = 1e-3 * phi
    three_terms = dexp_series(group, small, order=2)
    assert np.max(np.abs(three_terms - ExponentialChart(group).velocity_map(small))) < 1e-9


@pytest.mark.parametrize("theta", [0.3, 2.0, 3.1, 4.0])
def test_T11_determinants(theta, rng):
    u = rng.standard_normal(3)
    u /= np.linalg.norm(u)
    det_so3 = 2 * (1 - np.cos(theta)) / theta**2
    assert np.linalg.det(ExponentialChart(SO3).velocity_map(theta * u)) == pytest.approx(
        det_so3, rel=1e-12
    )
    assert np.linalg.det(ExponentialChart(SE2).velocity_map([theta, 0.4, -0.3])) == pytest.approx(
        det_so3, rel=1e-12
    )
    x = np.concatenate([theta * u, rng.standard_normal(3)])
    assert np.linalg.det(ExponentialChart(SE3).velocity_map(x)) == pytest.approx(
        det_so3**2, rel=1e-10
    )


def test_so3_closed_forms_of_S_and_its_inverse(rng):
    phi = rng.uniform(-2.0, 2.0, 3)
    th, P = np.linalg.norm(phi), SO3.hat(phi)
    S = np.eye(3) - (1 - np.cos(th)) / th**2 * P + (th - np.sin(th)) / th**3 * P @ P
    S_inv = np.eye(3) + 0.5 * P + (1 / th**2 - (1 + np.cos(th)) / (2 * th * np.sin(th))) * P @ P
    chart = ExponentialChart(SO3)
    np.testing.assert_allclose(chart.velocity_map(phi), S, atol=1e-14)
    np.testing.assert_allclose(chart.velocity_map_inverse(phi), S_inv, atol=1e-12)


def test_euler_zyx_literal_velocity_map():
    psi, th, ph = 0.3, -0.4, 0.7
    S_E = [
        [-np.sin(th), 0, 1],
        [np.cos(th) * np.sin(ph), np.cos(ph), 0],
        [np.cos(th) * np.cos(ph), -np.sin(ph), 0],
    ]
    np.testing.assert_allclose(EulerZYX(SO3).velocity_map([psi, th, ph]), S_E, atol=1e-15)
    assert np.linalg.det(S_E) == pytest.approx(-np.cos(th))
    R = EulerZYX(SO3).to_group([psi, th, ph])
    Rz = SO3.exp([0, 0, psi])
    Ry = SO3.exp([0, th, 0])
    Rx = SO3.exp([ph, 0, 0])
    np.testing.assert_allclose(R, Rz @ Ry @ Rx, atol=1e-15)


# ------------------------------------------------------------------------------------------
# singular sets
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "chart, x_singular, x_regular",
    [
        (EulerZYX(SO3), [0.2, np.pi / 2, -0.4], [0.2, np.pi / 2 - 1e-3, -0.4]),
        (EulerZYX(SO3), [0.2, -np.pi / 2, -0.4], [0.2, -np.pi / 2 + 1e-3, -0.4]),
        (EulerZYX(SE3), [0.2, np.pi / 2, -0.4, 1.0, 2.0, 3.0], [0.2, 1.5, -0.4, 1.0, 2.0, 3.0]),
        (ExponentialChart(SO3), [0.0, 2 * np.pi, 0.0], [0.0, np.pi, 0.0]),
        (ExponentialChart(SO3), 2 * np.pi * np.array([0.6, 0.0, 0.8]), [0.6, 0.0, 0.8]),
        (ExponentialChart(SO3), [0.0, 0.0, 4 * np.pi], [0.0, 0.0, 3 * np.pi]),
        (
            ExponentialChart(SE3),
            [0.0, 0.0, 2 * np.pi, 1.0, 0.0, 0.0],
            [0.0, 0.0, 6.0, 1.0, 0.0, 0.0],
        ),
        (ExponentialChart(SE2), [2 * np.pi, 1.0, 0.5], [6.0, 1.0, 0.5]),
        (ExponentialChart(Schoenflies), [-2 * np.pi, 1.0, 0.5, 0.2], [-6.0, 1.0, 0.5, 0.2]),
    ],
    ids=[
        "zyx+",
        "zyx-",
        "zyx-SE3",
        "exp-SO3",
        "exp-SO3-axis",
        "exp-SO3-4pi",
        "exp-SE3",
        "exp-SE2",
        "exp-X4",
    ],
)
def test_singular_sets_are_detected(chart, x_singular, x_regular):
    assert chart.is_singular(x_singular)
    assert not chart.is_singular(x_regular)
    assert abs(np.linalg.det(chart.velocity_map(x_singular))) < 1e-12  # S itself is evaluable
    with pytest.raises(SingularityError, match="singular set of the .* chart"):
        chart.velocity_map_inverse(x_singular)
    np.testing.assert_allclose(
        chart.velocity_map_inverse(x_regular) @ chart.velocity_map(x_regular),
        np.eye(chart.dim),
        atol=1e-8,
    )
    assert np.all(chart.is_singular(np.stack([x_singular, x_regular])) == [True, False])


def test_euler_from_group_at_gimbal_lock_raises():
    chart = EulerZYX(SO3)
    R = chart.to_group([0.3, np.pi / 2, 0.1])
    with pytest.raises(SingularityError, match="gimbal lock"):
        chart.from_group(R)
    x = chart.from_group(R, tol=0.0)  # a representative (only ψ - φ is determined)
    np.testing.assert_allclose(chart.to_group(x), R, atol=1e-7)


def test_singularity_measures():
    assert EulerZYX(SO3).singularity_measure([0.0, np.pi / 3, 0.0]) == pytest.approx(0.5)
    assert PlanarChart(SE2).singularity_measure([100.0, 1.0, 2.0]) == 1.0
    m = ExponentialChart(SO3).singularity_measure([0.0, 0.0, 2 * np.pi - 1e-3])
    assert 0 < m < 1e-3


@pytest.mark.parametrize(
    "cls, group",
    [(EulerZYX, SE2), (EulerZYX, Euclidean(3)), (PlanarChart, SO3), (PlanarChart, SE3)],
)
def test_chart_rejects_wrong_group(cls, group):
    with pytest.raises(GeomechError, match="charts"):
        cls(group)


def test_chart_input_validation():
    from geomech.errors import DimensionError, NonFiniteError, NotOnManifoldError

    with pytest.raises(
        DimensionError, match=r"Expected `x` to have shape \(\.\.\., 3\), got \(4,\)"
    ):
        EulerZYX(SO3).velocity_map([0.0, 0.0, 0.0, 0.0])
    with pytest.raises(NonFiniteError, match="`x` to be finite"):
        ExponentialChart(SE2).to_group([np.nan, 0.0, 0.0])
    with pytest.raises(NotOnManifoldError, match="`g_bar`"):
        ExponentialChart(SO3, 2 * np.eye(3))
    with pytest.raises(TypeError, match="LieGroup"):
        ExponentialChart("SO3")
    with pytest.raises(ValueError, match="non-negative"):
        dexp_series(SO3, [0.1, 0.2, 0.3], order=-1)
