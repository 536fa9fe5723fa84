"""simulate() on trees: the compiled fixed-step path (issue 28 item 3).

Free motion and the built-in laws (Slotine–Li with a named body connection, PD, computed torque)
run in one kernel (geomech.multibody._kernels.tree.simulate). The reference is the Python path
(integrate_fixed with the closed-loop field: geomech.integration, itself checked against
Pinocchio, scipy and closed forms in test_simulate_*.py), forced here by removing the dispatch:
trajectories, recorded torques and error estimates agree to rounding (measured: bitwise equal
for free motion, PD and computed torque with diagonal gains; up to 1e-14 relative where the
summation order differs: a full gain matrix, the kernel's Levi-Civita body forces), for several
robots, every fixed-step method, batch shapes and laws; dispatch, failures, budgets, threads.
"""

import numpy as np
import pytest

import geomech.simulation.driver as driver
from geomech.control import PD, ComputedTorque, SlotineLi
from geomech.errors import (
    DimensionError,
    DTypeError,
    NonFiniteError,
    NotOnManifoldError,
    ParameterError,
    SimulationBudgetError,
    SingularityError,
)
from geomech.integration import RKMK
from geomech.multibody import MultibodyModel, robots
from geomech.multibody._kernels import set_num_threads
from geomech.multibody.algorithms.dynamics import crba
from geomech.multibody.model import joints as gj
from geomech.simulation import simulate
from geomech.simulation.compiled import CompiledPlan
from geomech.spatial import spatial_inertia

#: Kutta's 3/8 rule, a tableau with no zero below the diagonal (every weighted sum is full)
RK38 = RKMK(
    "rk38",
    A=((0, 0, 0, 0), (1 / 3, 0, 0, 0), (-1 / 3, 1, 0, 0), (1, -1, 1, 0)),
    b=(1 / 8, 3 / 8, 3 / 8, 1 / 8),
    c=(0, 1 / 3, 2 / 3, 1),
    order=4,
)


def _mixed_tree():
    """Every joint the kernels step: a free-flyer root, revolute, prismatic, helical, spherical
    and fixed joints, random placements and inertias."""
    rng = np.random.default_rng(7)
    joints = [
        gj.FreeFlyer(),
        gj.Revolute([0.3, -1.0, 0.5]),
        gj.Prismatic([1.0, 2.0, -0.5]),
        gj.Helical([0.0, 1.0, 1.0], pitch=0.3),
        gj.Spherical(),
        gj.Fixed(),
        gj.Revolute([0.0, 0.0, 1.0]),
    ]
    parent = [-1, 0, 1, 0, 3, 4, 5]
    inertias = [
        spatial_inertia(
            rng.uniform(0.5, 2.0), rng.uniform(-0.2, 0.2, 3), np.diag(rng.uniform(0.05, 0.2, 3))
        )
        for _ in joints
    ]
    placements = np.tile(np.eye(4), (len(joints), 1, 1))
    placements[:, :3, 3] = rng.uniform(-0.4, 0.4, (len(joints), 3))
    return MultibodyModel.from_bodies(parent, joints, inertias, placements)


ROBOTS = {
    "double_pendulum": robots.double_pendulum,
    "ur5": lambda: robots.load("ur5"),
    "humanoid": robots.humanoid,
    "mixed": _mixed_tree,
}
_MODELS: dict = {}


def _model(name):
    if name not in _MODELS:
        _MODELS[name] = ROBOTS[name]()
    return _MODELS[name]


def _reference(model, q_c, vectorized=False):
    """A sinusoid in the joint chart around q_c (v_d = δ̇: a consistent reference on 1-DoF
    joints, an arbitrary smooth one on the others, which the laws track all the same)."""
    w = np.linspace(0.5, 1.5, model.nv)

    def reference(t):
        t = np.asarray(t, dtype=float)[..., None] if vectorized else t
        return (
            model.integrate(q_c, 0.2 * np.sin(w * t)),
            0.2 * w * np.cos(w * t),
            -0.2 * w**2 * np.sin(w * t),
        )

    return reference


def _laws(model, q_c, vectorized=False):
    """Each built-in law with gains scaled by diag H(q_c) (stable at dt = 1 ms; the humanoid's
    loop is stiff, its step-doubling estimate about 10 times the default tolerance)."""
    H = np.diag(np.diag(crba(model, q_c)))
    ref = _reference(model, q_c, vectorized)
    estimate = model.with_inertias(0.9 * model.inertias)
    coupled = 4.0 * H + 0.1 * np.ones((model.nv, model.nv)) * H.min()  # a full K_P
    return {
        "slotine_li": SlotineLi(model, "levi-civita", ref, 2.0, H, vectorized=vectorized),
        "slotine_li_mapped": SlotineLi(
            model,
            {model.body_names[-1]: "velocity-cross"},
            ref,
            2.0 * np.eye(model.nv),
            H,
            estimate=estimate,
            vectorized=vectorized,
        ),
        "pd": PD(model, ref, coupled, H, vectorized=vectorized),
        "pd_gravity": PD(model, ref, 4.0 * H, H, gravity_compensation=True, estimate=estimate),
        "computed_torque": ComputedTorque(
            model, ref, coupled / H.max(), 10.0, estimate=estimate, vectorized=vectorized
        ),
    }


@pytest.fixture
def python_path(monkeypatch):
    """simulate() without the compiled dispatch: integrate_fixed and the closed-loop field."""

    def run(*args, **kwargs):
        with monkeypatch.context() as m:
            m.setattr(driver, "compiled_plan", lambda *a, **k: None)
            return simulate(*args, **kwargs)

    return run


@pytest.fixture
def compiled_runs(monkeypatch):
    """The number of runs that went through the compiled kernel."""
    count = [0]
    run = CompiledPlan.run

    def counted(self, *args, **kwargs):
        count[0] += 1
        return run(self, *args, **kwargs)

    monkeypatch.setattr(CompiledPlan, "run", counted)
    return count


def _assert_same(a, b):
    """Equal to rounding: trajectories, torques, error estimates."""
    for x, y in ((a.q, b.q), (a.v, b.v), (a.tau, b.tau)):
        assert x.shape == y.shape
        assert np.abs(x - y).max(initial=0.0) <= 1e-12 * (1.0 + np.abs(y).max(initial=0.0))
    np.testing.assert_array_equal(a.t, b.t)
    if b.error_estimate is None:
        assert a.error_estimate is None
    else:  # (estimates far below the tolerance are differences of rounding errors)
        assert a.error_estimate == pytest.approx(b.error_estimate, rel=1e-6, abs=1e-6)
    assert a.method == b.method


# ----------------------------------------------------------------------------------------
# the same numbers as the Python path
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ROBOTS))
@pytest.mark.parametrize("method", ["rkmk4", "rkmk2", "lie_euler", RK38], ids=str)
def test_free_motion_equals_the_python_path(name, method, python_path, compiled_runs):
    model = _model(name)
    rng = np.random.default_rng(0)
    q0, v0 = model.random_configuration(rng), rng.uniform(-2.0, 2.0, model.nv)
    kw = dict(dt=2e-3, method=method, on_inaccuracy="ignore" if method == "lie_euler" else "warn")
    with np.errstate(all="ignore"):
        a = simulate(model, q0, v0, 0.1, **kw)
        b = python_path(model, q0, v0, 0.1, **kw)
    assert compiled_runs[0] == 1
    _assert_same(a, b)
    assert np.abs(a.q[-1] - q0).max() > 1e-3  # it moved


@pytest.mark.parametrize("lead", [(3,), (2, 2)])
def test_batched_free_motion_equals_the_python_path(lead, python_path, compiled_runs):
    model = _model("mixed")
    rng = np.random.default_rng(1)
    q0 = model.random_configuration(rng, size=lead)
    v0 = rng.uniform(-2.0, 2.0, lead + (model.nv,))
    a = simulate(model, q0, v0, 0.05)
    b = python_path(model, q0, v0, 0.05)
    _assert_same(a, b)
    assert a.q.shape == (51,) + lead + (model.nq,) and compiled_runs[0] == 1
    # broadcasting: one configuration, several speeds
    _assert_same(simulate(model, q0[0], v0, 0.05), python_path(model, q0[0], v0, 0.05))


@pytest.mark.filterwarnings("ignore::geomech.errors.StepSizeWarning")
@pytest.mark.parametrize("name", ["ur5", "humanoid", "mixed"])
@pytest.mark.parametrize(
    "law", ["slotine_li", "slotine_li_mapped", "pd", "pd_gravity", "computed_torque"]
)
def test_built_in_laws_equal_the_python_path(name, law, python_path, compiled_runs):
    model = _model(name)
    q_c = model.random_configuration(np.random.default_rng(2))
    ctrl = _laws(model, q_c)[law]
    v0 = 0.1 * np.ones(model.nv)
    a = simulate(model, q_c, v0, 0.1, controller=ctrl)  # 100 steps
    b = python_path(model, q_c, v0, 0.1, controller=ctrl)
    _assert_same(a, b)
    assert np.abs(a.tau).max() > 0.0 and compiled_runs[0] == 1


@pytest.mark.parametrize("law", ["pd", "computed_torque"])
def test_batched_laws_equal_the_python_path(law, python_path, compiled_runs):
    model = _model("mixed")
    rng = np.random.default_rng(3)
    q_c = model.random_configuration(rng)
    ctrl = _laws(model, q_c)[law]
    q0 = model.integrate(q_c, 0.1 * rng.standard_normal((2, 3, model.nv)))
    v0 = rng.standard_normal((2, 3, model.nv))
    a = simulate(model, q0, v0, 0.05, controller=ctrl)
    b = python_path(model, q0, v0, 0.05, controller=ctrl)
    _assert_same(a, b)
    assert compiled_runs[0] == 1


@pytest.mark.filterwarnings("ignore::geomech.errors.StepSizeWarning")
@pytest.mark.parametrize("law", ["slotine_li", "pd", "computed_torque"])
def test_a_vectorized_reference_gives_the_same_run(law, compiled_runs):
    model = _model("humanoid")
    q_c = model.random_configuration(np.random.default_rng(4))
    scalar = _laws(model, q_c)[law]
    vectorized = _laws(model, q_c, vectorized=True)[law]
    t = np.array([0.0, 0.1, 0.7])  # the vectorized reference is the scalar one, time by time
    q_d, v_d, a_d = vectorized.reference(t)
    for k in range(3):
        np.testing.assert_allclose(q_d[k], scalar.reference(t[k])[0], rtol=0.0, atol=1e-15)
    v0 = np.zeros(model.nv)
    _assert_same(
        simulate(model, q_c, v0, 0.05, controller=vectorized),
        simulate(model, q_c, v0, 0.05, controller=scalar),
    )
    assert compiled_runs[0] == 2


# ----------------------------------------------------------------------------------------
# what is compiled, what is not
# ----------------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::geomech.errors.StepSizeWarning")
def test_dispatch(compiled_runs):
    from geomech.geometry import LeviCivitaConnection

    model = _model("ur5")
    q_c = model.random_configuration(np.random.default_rng(5))
    laws = _laws(model, q_c)
    ref = _reference(model, q_c)
    z = np.zeros(model.nv)

    def count(*args, **kwargs):
        before = compiled_runs[0]
        simulate(*args, **kwargs)
        return compiled_runs[0] - before

    # compiled: free motion and the built-in laws, every fixed-step method
    assert count(model, q_c, z, 0.003) == 1
    assert count(model, q_c, z, 0.003, method="midpoint", controller=laws["pd"]) == 1

    class MyPD(PD):  # a subclass may change the law
        pass

    python = [
        dict(controller=lambda t, q, v: -v),  # a user controller
        dict(controller=SlotineLi(model, LeviCivitaConnection(model), ref, 1.0, 1.0)),
        dict(controller=SlotineLi(model, "levi-civita", ref, 1.0, 1.0, adaptation=1.0)),
        dict(controller=MyPD(model, ref, 1.0, 1.0)),
        dict(method="RK45"),  # adaptive
    ]
    for kwargs in python:
        assert count(model, q_c, z, 0.003, **kwargs) == 0, kwargs
    planar = MultibodyModel.from_bodies(
        [-1], [gj.Planar()], [spatial_inertia(1.0, np.zeros(3), np.eye(3))]
    )
    assert count(planar, planar.neutral(), np.zeros(3), 0.003) == 0  # a joint of the Python path
    # Slotine-Li takes one state: a batch fails as on the Python path
    with pytest.raises(DimensionError, match="`q` to have shape"):
        simulate(model, np.stack([q_c, q_c]), z, 0.01, controller=laws["slotine_li"])


# ----------------------------------------------------------------------------------------
# failures, budgets, progress, threads
# ----------------------------------------------------------------------------------------
def test_a_blow_up_is_reported_at_the_same_step(python_path):
    model = _model("ur5")
    q_c = model.random_configuration(np.random.default_rng(6))
    ctrl = PD(model, _reference(model, q_c), 1e6, 1e3)  # far too stiff for dt = 1 ms
    errors = []
    for run in (simulate, python_path):
        with np.errstate(all="ignore"), pytest.raises(NonFiniteError, match="diverged") as info:
            run(model, q_c, np.zeros(model.nv), 1.0, controller=ctrl)
        errors.append(str(info.value).split(";")[0].split(" (")[0])
    assert errors[0] == errors[1]  # "The integration diverged at t = ..."


def test_a_singular_inertia_is_named():
    model = MultibodyModel.from_bodies(
        [-1, 0],
        [gj.Revolute([0, 0, 1]), gj.Revolute([0, 0, 1])],
        [spatial_inertia(1.0, [0.5, 0, 0], np.eye(3)), np.zeros((6, 6))],
    )
    with pytest.raises(SingularityError, match="body 'body1'"):
        simulate(model, [0.1, 0.2], [0.0, 0.0], 0.01)


@pytest.mark.parametrize(
    "bad, error, match",
    [
        (lambda r: (r[0][:-1], r[1], r[2]), DimensionError, "`q_d` to have shape"),
        (lambda r: (r[0], r[1] * np.nan, r[2]), NonFiniteError, "`v_d`"),
        (lambda r: (r[0], r[1], r[2] + 1j), DTypeError, "real"),
        (lambda r: (r[0], r[1]), ParameterError, "got 2 items"),
    ],
)
@pytest.mark.parametrize("law", ["slotine_li", "pd"])
def test_a_bad_reference_raises_the_controllers_error(bad, error, match, law, python_path):
    model = _model("ur5")
    q_c = model.random_configuration(np.random.default_rng(7))
    ctrl = _laws(model, q_c)[law]
    good = ctrl.reference
    ctrl.reference = lambda t: bad(good(t)) if t > 0.02 else good(t)
    messages = []
    for run in (simulate, python_path):
        with pytest.raises(error, match=match) as info:
            run(model, q_c, np.zeros(model.nv), 0.05, controller=ctrl)
        messages.append(str(info.value))
    # the same error; the Python path words a NaN met inside a step as a divergence there
    assert messages[0] in messages[1]


def test_a_reference_quaternion_off_the_sphere_is_refused():
    model = _model("humanoid")
    q_c = model.random_configuration(np.random.default_rng(8))
    ref = _reference(model, q_c)

    def off(t):
        q_d, v_d, a_d = ref(t)
        return q_d * 1.01, v_d, a_d

    for law in (SlotineLi(model, "levi-civita", off, 1.0, 1.0), PD(model, off, 1.0, 1.0)):
        with pytest.raises(NotOnManifoldError, match="quaternion of joint 'root_joint'"):
            simulate(model, q_c, np.zeros(model.nv), 0.01, controller=law)


def test_a_vectorized_reference_of_the_wrong_shape_is_refused():
    model = _model("ur5")
    q_c = model.random_configuration(np.random.default_rng(9))
    ref = _reference(model, q_c)  # scalar only: w * t with t of shape (K,) does not broadcast
    with pytest.raises(DimensionError, match="vectorized `reference"):
        simulate(
            model, q_c, np.zeros(model.nv), 0.01,
            controller=PD(model, lambda t: ref(np.asarray(t)[:1]), 1.0, 1.0, vectorized=True),
        )  # fmt: skip


def test_budgets_and_progress(monkeypatch, compiled_runs):
    model = _model("double_pendulum")
    updates = []

    class Bar:
        def update(self, n=1):
            updates.append(n)

        def close(self):
            pass

    monkeypatch.setattr(driver, "_progress_bar", lambda progress, total, desc: Bar())
    res = simulate(model, [0.3, 0.2], [0.0, 0.0], 2.0)
    assert sum(updates) == 2000 == res.t.size - 1 and len(updates) > 1  # chunks of steps
    with pytest.raises(SimulationBudgetError, match="wall-time budget max_wall_time = 0.05 s"):
        simulate(model, [0.3, 0.2], [0.0, 0.0], 1e3, dt=1e-3, max_wall_time=0.05)
    assert compiled_runs[0] == 2


def test_threads_give_the_same_batch(compiled_runs, monkeypatch):
    import threading

    from geomech.multibody._kernels import driver

    monkeypatch.setattr(driver, "idle_core", lambda: True)  # threads even on a busy machine
    model = _model("ur5")
    rng = np.random.default_rng(10)
    q0 = model.random_configuration(rng, size=8)
    v0 = rng.uniform(-1.0, 1.0, (8, model.nv))
    serial = simulate(model, q0, v0, 0.05)
    set_num_threads(2)
    try:
        threaded = simulate(model, q0, v0, 0.05)
    finally:
        set_num_threads(1)
    _assert_same(threaded, serial)
    assert compiled_runs[0] == 2
    assert any(t.name.startswith("geomech-simulate") for t in threading.enumerate())


def test_a_busy_machine_runs_the_batch_serially(monkeypatch):
    """No idle core (the driver's load check): the batch runs in the calling thread only."""
    from geomech.multibody._kernels import driver
    from geomech.simulation import compiled as C

    monkeypatch.setattr(driver, "idle_core", lambda: False)
    monkeypatch.setattr(C, "_pool", lambda n: pytest.fail("a thread pool on a busy machine"))
    model = _model("ur5")
    rng = np.random.default_rng(11)
    q0 = model.random_configuration(rng, size=C.PARALLEL_MIN_BATCH)
    v0 = rng.uniform(-1.0, 1.0, (C.PARALLEL_MIN_BATCH, model.nv))
    serial = simulate(model, q0, v0, 0.02)
    set_num_threads(2)
    try:
        busy = simulate(model, q0, v0, 0.02)
    finally:
        set_num_threads(1)
    _assert_same(busy, serial)


# ----------------------------------------------------------------------------------------
# the stepping kernel's free flyer against Pinocchio, its order against a finer step
# ----------------------------------------------------------------------------------------
def _free_flyer_cases():
    """Chart coordinates δ = [ω; ρ] with |ω| in both branches of the kernel's coefficients
    (the short series below 0.1, the closed forms above), a speed x, a configuration."""
    rng = np.random.default_rng(11)
    for theta in (0.0, 1e-7, 1e-4, 2e-3, 0.05, 0.099, 0.1, 0.3, 1.5, 3.0):
        axis = rng.normal(size=3)
        d = np.r_[theta * axis / np.linalg.norm(axis), rng.normal(size=3)]
        quat = rng.normal(size=4)
        yield d, rng.normal(size=6), np.r_[rng.normal(size=3), quat / np.linalg.norm(quat)]


def test_the_free_flyer_chart_rate_is_the_derivative_of_the_chart():
    """J_r(δ)⁻¹ x = d/dε log(exp(δ) exp(εx)) at ε = 0, by central differences of Pinocchio's
    exp6 and log6 (its twists are [v; ω], geomech's chart coordinates [ω; ρ])."""
    pin = pytest.importorskip("pinocchio")
    from geomech.multibody._kernels.tree.simulate import _free_flyer_rate

    def chart(M):
        m = pin.log6(M).vector
        return np.r_[m[3:], m[:3]]

    def exp(x):
        return pin.exp6(pin.Motion(np.r_[x[3:], x[:3]]))

    eps = 1e-6
    for d, x, _ in _free_flyer_cases():
        out = np.empty(6)
        _free_flyer_rate(d, x, out)
        fd = (chart(exp(d) * exp(eps * x)) - chart(exp(d) * exp(-eps * x))) / (2 * eps)
        np.testing.assert_allclose(out, fd, rtol=0, atol=1e-8 * (1.0 + np.abs(fd).max()))


def test_the_free_flyer_retraction_is_pinocchios_integrate():
    """q ⊕ δ of the kernel's free flyer = pin.integrate on a free-flyer model (its speeds
    [v; ω] in the body frame, its configuration [p; x y z w] as geomech's)."""
    pin = pytest.importorskip("pinocchio")
    from geomech.multibody._kernels.tree.simulate import _free_flyer_retract

    pm = pin.Model()
    pm.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "root")
    for d, _, q in _free_flyer_cases():
        out = np.empty(7)
        _free_flyer_retract(q, d, out)
        expected = pin.integrate(pm, q, np.r_[d[3:], d[:3]])
        if expected[3:] @ out[3:] < 0.0:  # (a quaternion and its opposite: one rotation)
            expected[3:] *= -1.0
        np.testing.assert_allclose(out, expected, rtol=0, atol=1e-12 * (1.0 + np.abs(q).max()))


@pytest.mark.parametrize("name, h", [("humanoid", 8e-3), ("mixed", 4e-2)])
def test_free_motion_is_fourth_order(name, h, compiled_runs):
    """RKMK4 on the joint charts is of order 4 on the group (free-flyer and spherical joints
    included): the error against a run with an eighth of the step falls 16-fold per halving."""
    model = _model(name)
    rng = np.random.default_rng(3)
    q0, v0 = model.random_configuration(rng), rng.uniform(-1.0, 1.0, model.nv)
    T = 25 * h  # (steps large enough that the errors stand above rounding)
    ref = simulate(model, q0, v0, T, dt=h / 32, progress=False, on_inaccuracy="ignore")
    errors = []
    for k in (1, 2, 4):
        run = simulate(model, q0, v0, T, dt=h / k, progress=False, on_inaccuracy="ignore")
        errors.append(
            max(
                np.abs(model.difference(ref.q[-1], run.q[-1])).max(),
                np.abs(ref.v[-1] - run.v[-1]).max(),
            )
        )
    assert compiled_runs[0] == 4
    rates = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert rates.min() > 3.5, (errors, rates)


def test_the_chart_coefficients_short_series_against_their_closed_forms():
    """The short series of Q's coefficients = (θ − sin θ)/θ³, (θ² + 2cos θ − 2)/(2θ⁴),
    (2θ − 3 sin θ + θ cos θ)/(2θ⁵) evaluated with 50 digits (mpmath), to rounding."""
    mpmath = pytest.importorskip("mpmath")
    from geomech.multibody._kernels.tree.simulate import _se3_coefficients_small

    mpmath.mp.dps = 50
    for theta in (1e-8, 1e-5, 1e-3, 0.01, 0.05, 0.0999, 0.1, 0.5, 2.0):
        th = mpmath.mpf(theta)
        s, c = mpmath.sin(th), mpmath.cos(th)
        exact = (
            (th - s) / th**3,
            (th**2 + 2 * c - 2) / (2 * th**4),
            (2 * th - 3 * s + th * c) / (2 * th**5),
        )
        for got, want in zip(_se3_coefficients_small(theta), exact, strict=True):
            assert got == pytest.approx(float(want), rel=1e-14), theta
