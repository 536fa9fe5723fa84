"""simulate(): the step-doubling error estimate of fixed-step runs (issue 18 item 7), against an
independent reference (scipy DOP853 at rtol 1e-13 on θ'' = -ω² sin θ)."""

import warnings

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from geomech.errors import SimulationError, StepSizeError, StepSizeWarning
from geomech.multibody import MultibodyModel, Revolute
from geomech.simulation import FIXED_STEP_TOLERANCES, simulate
from geomech.spatial import spatial_inertia

_M, _L, _IC = 1.0, 0.5, np.diag([0.01, 0.02, 0.01])
_W2 = _M * 9.81 * _L / (_IC[1, 1] + _M * _L**2)  # ω² = m g l / I_O


def _pendulum():
    """A rod about the y axis, centre of mass l below the pivot: I_O θ'' = -m g l sin θ."""
    return MultibodyModel.from_bodies(
        [-1], [Revolute([0.0, 1.0, 0.0])], [spatial_inertia(_M, [0.0, 0.0, -_L], _IC)]
    )


def _reference(theta0, t):
    sol = solve_ivp(
        lambda s, y: [y[1], -_W2 * np.sin(y[0])],
        (t[0], t[-1]),
        [theta0, 0.0],
        t_eval=t,
        method="DOP853",
        rtol=1e-13,
        atol=1e-13,
    )
    return sol.y


def test_one_second_step_on_a_pendulum_warns():
    """The reproducer of issue 18: dt = 1 over 1 s returns a finite result far off,
    and now warns.
    """
    with pytest.warns(StepSizeWarning, match=r"too large for the requested accuracy") as record:
        res = simulate(_pendulum(), [1.0], [0.0], 1.0, dt=1.0)
    theta_ref = _reference(1.0, res.t)[0]
    assert abs(res.q[-1, 0] - theta_ref[-1]) > 2.0  # really inaccurate: -3.14 instead of -0.66
    assert res.error_estimate > 100.0
    assert "h = 1 s of rkmk4" in str(record[0].message)
    assert issubclass(StepSizeWarning, RuntimeWarning)
    with pytest.raises(StepSizeError, match="too large for the requested accuracy"):
        simulate(_pendulum(), [1.0], [0.0], 1.0, dt=1.0, on_inaccuracy="raise")
    assert issubclass(StepSizeError, SimulationError)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = simulate(_pendulum(), [1.0], [0.0], 1.0, dt=1.0, on_inaccuracy="ignore")
    assert res.error_estimate is None


def test_small_step_does_not_warn_and_is_accurate():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = simulate(_pendulum(), [1.0], [0.0], 1.0, dt=1e-3, on_inaccuracy="raise")
    theta, omega = _reference(1.0, res.t)
    assert res.error_estimate < 1e-6  # measured 1.5e-7
    assert np.abs(res.q[:, 0] - theta).max() < 2e-11  # measured 5.3e-12
    assert np.abs(res.v[:, 0] - omega).max() < 1e-10  # measured 2.5e-11


def test_tolerances_are_the_requested_accuracy():
    """rtol/atol set the accuracy a fixed step is checked against: 5 ms of RKMK4 meets 1e-3 but
    not 1e-12."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        simulate(_pendulum(), [1.0], [0.0], 1.0, dt=5e-3)
    with pytest.warns(StepSizeWarning, match=r"rtol = 1e-12, atol = 1e-12"):
        simulate(_pendulum(), [1.0], [0.0], 1.0, dt=5e-3, rtol=1e-12, atol=1e-12)
    assert FIXED_STEP_TOLERANCES == (1e-3, 1e-6)


@pytest.mark.parametrize(
    "method, dts",
    [("lie_euler", (0.01, 0.001)), ("rkmk2", (0.1, 0.01)), ("rkmk4", (0.5, 0.1, 0.05))],
)
def test_estimate_tracks_the_actual_error(method, dts):
    """The estimate (global error / tolerance) against the actual largest error over the run,
    measured in the same units: ratios 0.84-0.91 (Lie-Euler), 2.1-3.7 (RKMK2), 1.8-3.8 (RKMK4)."""
    rtol, atol = FIXED_STEP_TOLERANCES
    for dt in dts:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", StepSizeWarning)
            res = simulate(_pendulum(), [1.0], [0.0], 2.0, dt=dt, method=method)
        theta, omega = _reference(1.0, res.t)
        actual = max(
            np.abs(res.q[:, 0] - theta).max() / (atol + rtol),
            np.abs(res.v[:, 0] - omega).max() / (atol + rtol * np.abs(omega).max()),
        )
        assert 0.5 < res.error_estimate / actual < 6.0


def test_estimate_is_saved_and_loaded(tmp_path):
    from geomech.simulation import SimulationResult

    res = simulate(_pendulum(), [0.5], [0.0], 0.5, dt=0.01)
    back = SimulationResult.load(res.save(tmp_path / "p"))
    assert back.error_estimate == res.error_estimate and 0.0 < res.error_estimate < 1.0
    adaptive = simulate(_pendulum(), [0.5], [0.0], 0.5, dt=0.1, method="RK45")
    assert adaptive.error_estimate is None
    assert SimulationResult.load(adaptive.save(tmp_path / "a")).error_estimate is None
