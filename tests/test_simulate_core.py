"""The integration core (geomech.integration) under simulate, geodesics and the rigid-body
integrators: RKMK orders measured by halving the step against closed forms, the exact and the
truncated chart rate, adaptive stepping in a moving chart and its dense output, agreement of the
fixed and adaptive modes with an independent reference, budgets, and the structure (one RKMK,
one solve_ivp driver, one chart rate per joint)."""

import ast
import math
import time
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import geomech
from geomech.errors import SimulationBudgetError, SimulationError
from geomech.geometry import LeftInvariantFrame
from geomech.integration import (
    LIE_EULER,
    RKMK,
    RKMK2,
    RKMK4,
    Budget,
    frame_chart,
    group_chart,
    integrate_adaptive,
    integrate_fixed,
)
from geomech.lie import SE2, SE3, SO3
from geomech.rigidbody import RigidBody
from geomech.simulation import simulate

HEUN3 = RKMK(
    "heun3",
    A=((0, 0, 0), (1 / 3, 0, 0), (0, 2 / 3, 0)),
    b=(1 / 4, 0, 3 / 4),
    c=(0, 1 / 3, 2 / 3),
    order=3,
)


def _coning(group, rng):
    """g(t) = exp(tA) exp(tB): body velocity ξ(t) = Ad_{exp(-tB)} A + B (non-commuting, closed
    form).
    """
    A, B = rng.standard_normal(group.dim), rng.standard_normal(group.dim)

    def field(t, g, y):
        return group.Ad(group.exp(-t * B)) @ A + B, np.zeros_like(y)

    def exact(t):
        return group.exp(t * A) @ group.exp(t * B)

    return field, exact


@pytest.mark.parametrize("group", [SO3, SE3, SE2], ids=lambda g: g.name)
@pytest.mark.parametrize("method", [LIE_EULER, RKMK2, HEUN3, RKMK4], ids=lambda m: m.name)
def test_rkmk_order_by_halving_the_step(group, method, rng):
    """Halving h divides the error at t = 1 by 2^p: measured orders (h = 1/20 ... 1/160) 1.00-1.02
    (Lie-Euler), 2.00 (RKMK2), 3.00 (Heun3), 4.00-4.04 (RKMK4) on SO(3), SE(3) and SE(2)."""
    field, exact = _coning(group, rng)
    errors = []
    for n in (20, 40, 80):
        run = integrate_fixed(
            group_chart(group),
            field,
            method,
            np.linspace(0.0, 1.0, n + 1),
            np.eye(group.point_shape[0]),
            np.zeros(1),
        )
        errors.append(np.abs(run.q[-1] - exact(1.0)).max())
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert orders == pytest.approx(method.order, abs=0.3)
    assert orders[-1] == pytest.approx(method.order, abs=0.15)


def test_exact_and_truncated_chart_rates_both_keep_order_four(rng):
    """RKMK4 with the commutator series (group chart) and with the exact J_r⁻¹ (the chart of
    the left-invariant frame): both fourth order, agreeing to O(h⁵) per step."""
    field, exact = _coning(SO3, rng)
    series, exact_rate = group_chart(SO3), frame_chart(LeftInvariantFrame(SO3))
    assert series.structure_constants is not None and exact_rate.structure_constants is None
    for chart in (series, exact_rate):
        e = [
            np.abs(
                integrate_fixed(
                    chart, field, RKMK4, np.linspace(0, 1, n + 1), np.eye(3), np.zeros(1)
                ).q[-1]
                - exact(1.0)
            ).max()
            for n in (20, 40)
        ]
        assert np.log2(e[0] / e[1]) == pytest.approx(4.0, abs=0.2)  # measured 3.98-4.02


def test_adaptive_moving_chart_dense_output(rng):
    """A 20 rad/s spin for 2 s (39 rad) re-centres the chart at the end of every step (15 charts
    of about 2.6 rad: δ̇ = ω exactly, so DOP853 takes long steps); the dense output is exact (to
    the tolerance) at any time, including across re-centrings."""
    w = np.array([3.0, -12.0, 15.0])  # |ω| ≈ 19.4

    def field(t, R, y):
        return np.broadcast_to(w, R.shape[:-2] + (3,)), np.zeros_like(y)

    t = np.array([0.0, 0.3, 1.1, 2.0])
    run = integrate_adaptive(
        group_chart(SO3),
        field,
        "DOP853",
        t,
        np.eye(3),
        np.zeros(1),
        rtol=1e-11,
        atol=1e-12,
        chart_limit=1.0,
        dense=True,
    )
    np.testing.assert_allclose(run.q, SO3.exp(t[:, None] * w), atol=1e-9)
    assert len(run.dense._charts) >= 10  # re-centred (measured 15)
    for s in rng.uniform(0.0, 2.0, 20):
        R, _ = run.dense(s)
        np.testing.assert_allclose(R, SO3.exp(s * w), atol=1e-9)
        np.testing.assert_allclose(R @ R.T, np.eye(3), atol=1e-13)


def _euler_reference(I, R0, w0, t):
    """Flat-state DOP853 (rtol 1e-13) of Ṙ = R ŵ, I ẇ = Iw × w: independent of geomech's charts."""

    def rhs(_, y):
        R, w = y[:9].reshape(3, 3), y[9:]
        W = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
        return np.concatenate([(R @ W).ravel(), np.linalg.solve(I, np.cross(I @ w, w))])

    sol = solve_ivp(
        rhs,
        (t[0], t[-1]),
        np.concatenate([R0.ravel(), w0]),
        t_eval=t,
        method="DOP853",
        rtol=1e-13,
        atol=1e-13,
    )
    return sol.y[:9].T.reshape(-1, 3, 3), sol.y[9:].T


def test_fixed_and_adaptive_agree_with_a_reference(rng):
    """A tumbling body near its unstable axis over 5 s (many re-centrings): RKMK4 (1 ms) and
    DOP853 (rtol 1e-11) agree with each other and with a flat-state reference. Measured max
    errors (seeded): RKMK4 3e-12, DOP853 7e-11; fixed vs adaptive 7e-11."""
    I = np.diag([1.0, 2.0, 3.0])
    R0, w0 = SO3.random(rng), np.array([0.05, 4.0, 0.1])
    fixed = simulate(RigidBody(SO3, I), R0, w0, 5.0, dt=1e-3)
    adaptive = simulate(
        RigidBody(SO3, I), R0, w0, 5.0, dt=0.1, method="DOP853", rtol=1e-11, atol=1e-12
    )
    R_ref, w_ref = _euler_reference(I, R0, w0, adaptive.t)
    assert np.abs(adaptive.q - R_ref).max() < 1e-9
    assert np.abs(adaptive.v - w_ref).max() < 1e-9
    assert np.abs(fixed.q[::100] - R_ref).max() < 1e-10
    assert np.abs(fixed.q[::100] - adaptive.q).max() < 1e-9
    assert fixed.error_estimate < 1.0


def test_rigidbody_integrate_is_the_core(rng):
    """rigidbody.integrate and simulate step with the same RKMK code: identical results."""
    body = RigidBody(SE3, np.diag([1.0, 2.0, 3.0, 4.0, 4.0, 4.0]))
    g0, v0 = SE3.random(rng), rng.standard_normal(6)
    _, g, v = geomech.rigidbody.integrate(
        SE3, lambda t, g, v: (v, body._forward_dynamics(g, v, None)), g0, v0, 0.0, 1.0, 50
    )
    res = simulate(body, g0, v0, 1.0, dt=0.02)
    np.testing.assert_array_equal(g, res.q)
    np.testing.assert_array_equal(v, res.v)


def test_budget_object():
    b = Budget(max_steps=5, max_wall_time=math.inf)
    b.check_step(5, 0.0, "m")
    with pytest.raises(SimulationBudgetError, match="m reached its step budget max_steps = 5"):
        b.check_step(6, 0.3, "m")
    b = Budget(max_wall_time=1e-6)
    time.sleep(1e-3)
    with pytest.raises(SimulationBudgetError, match="wall-time budget"):
        b.check_step(1, 0.0, "m")
    b.start().max_wall_time = 10.0
    b.check_step(1, 0.0, "m")
    for kwargs in ({"max_steps": -1}, {"max_steps": "many"}, {"max_wall_time": 0.0}):
        with pytest.raises(SimulationError):
            Budget(**kwargs)
    with pytest.raises(SimulationError, match="adaptive method"):
        integrate_adaptive(
            group_chart(SO3),
            None,
            "rkmk4",
            np.array([0.0, 1.0]),
            np.eye(3),
            np.zeros(1),
            rtol=1e-6,
            atol=1e-6,
        )


def test_tableau_validation():
    with pytest.raises(SimulationError, match="explicit tableau"):
        RKMK("implicit", A=((0.5,),), b=(1.0,), c=(0.5,), order=2)
    with pytest.raises(SimulationError, match="explicit tableau"):
        RKMK("shifted", A=((0.0,),), b=(1.0,), c=(0.5,), order=1)
    with pytest.raises(SimulationError, match="tableau with A"):
        RKMK("bad", A=((0.0,),), b=(0.5, 0.5), c=(0.0,), order=1)
    with pytest.raises(SimulationError, match="`order` to be an integer between 1 and 8"):
        RKMK("high", A=((0.0,),), b=(1.0,), c=(0.0,), order=9)


# ----------------------------------------------------------------------------------------
# structure: one integration core
# ----------------------------------------------------------------------------------------
_PACKAGE = Path(geomech.__file__).parent


def _modules():
    for path in sorted(_PACKAGE.rglob("*.py")):
        yield path.relative_to(_PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def test_one_integration_core():
    """Only geomech/integration/ drives scipy's solvers or implements RKMK; only joints.py
    defines a joint chart rate, and nobody else computes one from a group Jacobian.

    One deliberate exception: the compiled fixed-step simulation of trees
    (``multibody/_kernels/tree/simulate.py``, issue 28 item 3) steps RKMK inside one numba
    kernel; tests/test_simulate_compiled.py holds it to ``integrate_fixed``'s results.
    """
    solvers = {
        "solve_ivp",
        "OdeSolver",
        "OdeSolution",
        "RK45",
        "RK23",
        "DOP853",
        "Radau",
        "BDF",
        "LSODA",
    }
    rkmk = {
        "RKMK",
        "_lincomb",
        "dexpinv_series",
        "_rkmk_step",
        "_dexpinv",
        "integrate_fixed",
        "integrate_adaptive",
    }
    for name, tree in _modules():
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        used |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        defined = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        if name == "multibody/_kernels/tree/simulate.py":
            continue  # the compiled twin of integrate_fixed (see the docstring)
        if not name.startswith("integration/"):
            assert not (solvers & used), f"{name} drives a scipy solver: {solvers & used}"
            assert not (rkmk & defined), f"{name} implements {rkmk & defined}"
        if name != "multibody/model/joints.py":
            assert "_chart_rate" not in defined, f"{name} defines a joint chart rate"
        if name in ("multibody/system_connection.py",) or name.startswith("simulation/"):
            jac = {
                "right_jacobian_inverse",
                "_left_jacobian_inverse",
                "left_jacobian_inverse",
            } & used
            assert not jac, f"{name} computes a chart rate itself: {jac}"
