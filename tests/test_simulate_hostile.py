"""simulate(): hostile inputs fail fast with named errors (issue 18 items 4, 6, 7): absurd steps and
spans refused before allocating, step and wall-time budgets, blow-ups, complex data. Each case
is bounded in time (2 s) and memory (200 MB over the baseline, traced)."""

import math
import time
import tracemalloc
import warnings

import numpy as np
import pytest

from geomech.errors import (
    DTypeError,
    GeomechError,
    NonFiniteError,
    SimulationBudgetError,
    SimulationError,
    StepSizeWarning,
)
from geomech.integration import DEFAULT_MAX_STEPS, DEFAULT_MAX_WALL_TIME, MAX_OUTPUT_BYTES
from geomech.lie import SO3
from geomech.multibody import MultibodyModel, Revolute, robots
from geomech.rigidbody import RigidBody, integrate
from geomech.simulation import ADAPTIVE_METHODS, simulate
from geomech.spatial import spatial_inertia

_TIME, _MEMORY = 2.0, 200 * 2**20


def _pendulum():
    return MultibodyModel.from_bodies(
        [-1],
        [Revolute([0.0, 1.0, 0.0])],
        [spatial_inertia(1.0, [0.0, 0.0, -0.5], np.diag([0.01, 0.02, 0.01]))],
    )


@pytest.fixture(autouse=True, scope="module")
def _compiled_paths():
    """Run each method once, untimed: on a cold numba cache (a fresh clone) the first call of a
    kernel compiles it, which is not what the 2 s bounds measure."""
    model = robots.double_pendulum()
    for method in (*ADAPTIVE_METHODS, "rkmk4"):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                simulate(model, [0.3, 0.2], [0.0, 0.0], 0.01, method=method)
                simulate(
                    model,
                    [0.3, 0.2],
                    [0.0, 0.0],
                    1.0,
                    method=method,
                    controller=lambda t, q, v: np.full(2, 1e200),
                )
            except GeomechError:
                pass


def _bounded(error, match, fn, *args, **kwargs):
    """Run ``fn`` expecting ``error``; assert it took < 2 s and < 200 MB (tracemalloc peak)."""
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with np.errstate(all="ignore"), pytest.raises(error, match=match) as info:
            fn(*args, **kwargs)
    finally:
        elapsed = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert elapsed < _TIME, f"took {elapsed:.2f} s"
    assert peak < _MEMORY, f"peak {peak / 2**20:.0f} MB"
    return info.value


# ----------------------------------------------------------------------------------------
# step counts validated before allocating
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["rkmk4", "RK45"])
def test_tiny_step_is_refused_before_allocating(method):
    """Reproducer: simulate(..., dt=1e-300) raised numpy's ValueError (maximum size exceeded)."""
    exc = _bounded(
        SimulationBudgetError,
        r"needs 1e\+300 steps.*max_steps = 1000000",
        simulate,
        _pendulum(),
        [0.3],
        [0.0],
        1.0,
        dt=1e-300,
        method=method,
    )
    assert isinstance(exc, RuntimeError) and isinstance(exc, GeomechError)


def test_huge_span_is_refused_before_allocating():
    """Reproducer: simulate(..., t_final=1e9) raised MemoryError (10¹² output steps of 1 ms)."""
    _bounded(SimulationBudgetError, r"needs 1e\+12 steps", simulate, _pendulum(), [0.3], [0.0], 1e9)


def test_unbounded_step_budget_still_refuses_what_cannot_be_stored():
    # (t_final - t0) / dt overflows to inf: refused whatever the budget
    _bounded(
        SimulationBudgetError,
        "needs inf steps",
        simulate,
        _pendulum(),
        [0.3],
        [0.0],
        1e9,
        dt=1e-300,
        max_steps=math.inf,
    )
    # 10⁹ finite steps with no step budget: the recorded trajectory would take 22 GiB
    _bounded(
        SimulationBudgetError,
        r"recorded trajectory would take .* MiB, over the limit",
        simulate,
        _pendulum(),
        [0.3],
        [0.0],
        1e6,
        max_steps=math.inf,
    )
    assert MAX_OUTPUT_BYTES == 2**30
    # a batch too large to record, within the step budget
    _bounded(
        SimulationBudgetError,
        "recorded trajectory",
        simulate,
        RigidBody(SO3, np.eye(3)),
        np.eye(3),
        np.zeros((20_000, 3)),
        1.0,
    )


def test_step_budget_is_exact_and_overridable():
    assert DEFAULT_MAX_STEPS == 1_000_000 and DEFAULT_MAX_WALL_TIME == 3600.0
    res = simulate(
        _pendulum(), [0.3], [0.0], 1.0, dt=0.1, max_steps=10, on_inaccuracy="ignore"
    )  # 10 steps
    assert res.t.shape == (11,)
    _bounded(
        SimulationBudgetError,
        "needs 11 steps, .* max_steps = 10",
        simulate,
        _pendulum(),
        [0.3],
        [0.0],
        1.05,
        dt=0.1,
        max_steps=10,
    )
    # rigidbody.integrate checks its step count before allocating too
    field = lambda t, g, v: (v, 0 * v)  # noqa: E731
    _bounded(
        SimulationBudgetError,
        "needs 10000000000 steps",
        integrate,
        SO3,
        field,
        np.eye(3),
        np.zeros(3),
        0.0,
        1.0,
        10**10,
    )


# ----------------------------------------------------------------------------------------
# budgets while running
# ----------------------------------------------------------------------------------------
def test_adaptive_step_budget():
    """A run that needs more accepted steps than its budget stops at the budget."""
    _bounded(
        SimulationBudgetError,
        r"RK45 reached its step budget max_steps = 50",
        simulate,
        _pendulum(),
        [1.0],
        [0.0],
        10.0,
        dt=1.0,
        method="RK45",
        rtol=1e-12,
        atol=1e-12,
        max_steps=50,
    )


@pytest.mark.parametrize("method", ["rkmk4", "DOP853"])
def test_wall_time_budget(method):
    t0 = time.perf_counter()
    with pytest.raises(
        SimulationBudgetError, match=r"ran past its wall-time budget max_wall_time = 0.2 s"
    ):
        simulate(
            robots.double_pendulum(),
            [0.3, 0.2],
            [0.0, 0.0],
            1e4,  # 1e6 steps, the step budget: the compiled rkmk4 runs 1e5 steps within 0.2 s
            dt=1e-2,
            method=method,
            rtol=1e-12,
            atol=1e-12,
            max_wall_time=0.2,
            on_inaccuracy="ignore",
        )
    assert time.perf_counter() - t0 < _TIME  # stops within a step of the budget


@pytest.mark.parametrize("method", [*ADAPTIVE_METHODS, "rkmk4"])
def test_absurd_constant_torque_fails_fast(method):
    """Reproducer: a constant torque of 1e200 made RK45 crawl for over 120 s (its step size
    collapsed to 1e-103). Every method now stops by name within 2 s: a collapsed step size is a
    budget overrun (SimulationBudgetError) or a blow-up (NonFiniteError). Measured: 0.01-0.2 s."""
    model = robots.double_pendulum()
    exc = _bounded(
        (SimulationBudgetError, NonFiniteError),
        "would need about|diverged",
        simulate,
        model,
        [0.3, 0.2],
        [0.0, 0.0],
        1.0,
        controller=lambda t, q, v: np.full(2, 1e200),
        method=method,
    )
    assert isinstance(exc, GeomechError)


def test_finite_time_blow_up_is_a_non_finite_error():
    """v̇ = v² from v(0) = 1 blows up at t = 1: the collapsed step size comes with a state grown by
    orders of magnitude, so it is reported as a divergence, not as a budget overrun."""
    from geomech.geometry.examples import point_mass

    for method in ("RK45", "LSODA", "DOP853"):  # measured 0.1-0.15 s each
        _bounded(
            NonFiniteError,
            "diverged",
            simulate,
            point_mass(1.0, dim=1),
            [0.0],
            [1.0],
            2.0,
            controller=lambda t, q, v: v**2,
            dt=0.01,
            method=method,
        )


# ----------------------------------------------------------------------------------------
# complex data is refused, never truncated
# ----------------------------------------------------------------------------------------
class _Dynamic:
    def __init__(self, state0=(0.0,), rate=0.0, torque=0.0):
        self.state0, self._rate, self._torque = np.asarray(state0), rate, torque

    def state_rate(self, t, q, v, x):
        return np.full(np.shape(x), self._rate)

    def torque(self, t, q, v, x):
        return np.full(np.shape(v), self._torque)


@pytest.mark.parametrize(
    "case",
    [
        "q0",
        "v0",
        "static",
        "dynamic torque",
        "state_rate",
        "state0",
        "log",
        "t_final",
        "rtol",
        "body q0",
    ],
)
def test_complex_input_is_refused(case):
    model = _pendulum()
    args = {"system": model, "q0": [0.3], "v0": [0.0], "t_final": 0.1, "dt": 0.05}
    if case == "q0":
        args["q0"] = [0.3 + 1e-3j]
    elif case == "v0":
        args["v0"] = np.array([1j])
    elif case == "static":
        args["controller"] = lambda t, q, v: -v + 0.5j
    elif case == "dynamic torque":
        args["controller"] = _Dynamic(torque=1j)
    elif case == "state_rate":
        args["controller"] = _Dynamic(rate=2j)
    elif case == "state0":
        args["controller"] = _Dynamic(state0=[1j])
    elif case == "log":
        args["log"] = {"z": lambda t, q, v, tau: q * 1j}
    elif case == "t_final":
        args["t_final"] = 0.1 + 0j
    elif case == "rtol":
        args["rtol"] = 1e-3 + 0j
    elif case == "body q0":
        args.update(system=RigidBody(SO3, np.eye(3)), q0=np.eye(3) * (1 + 0j), v0=np.zeros(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning: the imaginary part is never dropped
        exc = _bounded(
            DTypeError, r"to be (a )?real", simulate, **args
        )  # here, or in the shared validators
    assert isinstance(exc, TypeError)


def test_budget_option_errors():
    for kwargs, match in [
        ({"max_steps": 0}, "`max_steps` > 0"),
        ({"max_steps": True}, "positive number"),
        ({"max_steps": 1e3}, "positive integer"),
        ({"max_wall_time": np.nan}, "`max_wall_time` > 0"),
        ({"on_inaccuracy": None}, "`on_inaccuracy` to be one of"),
    ]:
        with pytest.raises(SimulationError, match=match):
            simulate(_pendulum(), [0.3], [0.0], 0.1, **kwargs)
    with pytest.warns(StepSizeWarning):  # budgets do not silence the accuracy check
        simulate(_pendulum(), [1.0], [0.0], 1.0, dt=1.0, max_steps=math.inf, max_wall_time=math.inf)
