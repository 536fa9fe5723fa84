"""Wall time of ``geomech.simulate`` per simulated second, dt = 1 ms (issue 28 item 3).

For the UR5 (6 revolute joints) and the humanoid (a free flyer and 24 revolute joints):

1. Slotine–Li (``"levi-civita"``, K_D = diag H(q_c), Λ = 2), RKMK4, one simulated second:
   the compiled path with the reference as a plain Python callable (sampled at the stages'
   times, validated), with the same reference written ``vectorized=True`` (sampled in one call
   per chunk), and the Python path (``integrate_fixed`` with the closed-loop field, what
   ``simulate`` ran before issue 28). The ratio is wall / (evaluations × one ``pin.aba`` call
   from Python on the same robot), evaluations = 4 N + 7 × (step-doubling samples) = 4112;
   the issue's target is a ratio ≤ 3 and, on the humanoid, ≤ 0.05 s per simulated second.
2. Free motion, one trajectory: compiled and Python path.
3. A batch of 256 free trajectories (0.2 simulated seconds), per trajectory, with 1 and 2
   threads (``geomech.multibody._kernels.set_num_threads``).
4. MuJoCo, when installed (``pip install mujoco``; optional): the same model written as MJCF by
   ``_mujoco.mjcf`` (inertias, joints, no geoms, contacts and constraints off) with
   ``integrator="RK4"`` and ``timestep=0.001``: four ``mj_forward`` evaluations a step, as
   geomech's RKMK4 makes four ABA evaluations (the comparison is RK4 against RK4 at the same
   step; the integrator and step are read back from the compiled ``MjModel`` and printed).
   ``rollout`` of one free trajectory (interleaved with geomech's, ratio median [range]), of
   256 (1 and 2 threads), ``mj_step`` with a Python PD loop, and for reference MuJoCo's default
   semi-implicit Euler (one evaluation a step: not the same integrator).
5. Like for like against MuJoCo's rollout: the same initial states (geomech's mapped by
   ``_mujoco.to_mujoco_state``), geomech without the step-doubling error estimate
   (``on_inaccuracy="ignore"``: MuJoCo estimates nothing) and with it (the default), rounds
   alternating the two libraries, thread CPU time, the ratio per round: median [range]. What
   each records per trajectory and step: geomech ``q`` (nq), ``v`` (nv) and ``tau`` (nv, zeros
   under free motion, allocated once) with the time grid; MuJoCo's rollout its full physics
   state (time, ``qpos``, ``qvel``, actuator state: 1 + nq + nv here) and its (empty) sensor
   data. Both step RK4 with four dynamics evaluations a step; geomech's RKMK4 also maps each
   stage's speeds to the free flyer's chart rate (``J_r(δ)⁻¹ν``, what makes it 4th order on
   SE(3)); MuJoCo's RK4 integrates its quaternions with the stages' speeds as they are.

Timings are process CPU time (the machine is shared, CPU time does not count the waits for a
core): the median [min-max] of several runs, the thread comparisons in wall time (meaningful on
an idle machine only); ``pin.aba`` is timed in the same process and the same way. The load
average is printed.
``--compile`` also times numba's compilation of the kernel in a fresh process with an empty
cache (``NUMBA_CACHE_DIR``) against a fresh process with a warm cache.

Run: ``python benchmarks/bench_simulate.py [--quick] [--compile]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pinocchio as pin
from _mujoco import mjcf
from _timing import load_average

import geomech.simulation.driver as driver
from geomech import simulate
from geomech.control import SlotineLi
from geomech.interop.pinocchio import PinocchioBridge
from geomech.multibody import robots
from geomech.multibody._kernels import set_num_threads
from geomech.multibody.algorithms.dynamics import crba

ROOT = Path(__file__).resolve().parent
BATCH = 256


def _times(fun, repeat, clock=time.process_time):
    """Times of ``repeat`` calls; by default the process's CPU time (the machine is shared: CPU
    time does not count the time other processes hold the cores)."""
    out = []
    for _ in range(repeat):
        t0 = clock()
        fun()
        out.append(clock() - t0)
    return np.array(out)


def _best(fun, repeat, clock=time.process_time):
    """Best time of ``repeat`` calls (:func:`_times`)."""
    return float(_times(fun, repeat, clock).min())


def _median(times, scale=1.0):
    """``median [min-max]`` of ``times / scale``."""
    x = np.asarray(times) / scale
    return f"{np.median(x):.4f} [{x.min():.4f}-{x.max():.4f}]"


def _aba_time(model, repeat):
    """One ``pin.aba`` call from Python (s), best of ``repeat`` blocks of 2000."""
    bridge = PinocchioBridge(model)
    rng = np.random.default_rng(0)
    q = bridge.q_to_pin(model.random_configuration(rng))
    v, tau = (bridge.v_to_pin(rng.uniform(-1.0, 1.0, model.nv)) for _ in range(2))
    pm, pd = bridge.pin_model, bridge.pin_data

    def block():
        for _ in range(2000):
            pin.aba(pm, pd, q, v, tau)

    return _best(block, max(3, repeat)) / 2000


def _python_path(*args, **kwargs):
    """simulate() as before issue 28: no compiled dispatch."""
    plan, driver.compiled_plan = driver.compiled_plan, lambda *a, **k: None
    try:
        return simulate(*args, **kwargs)
    finally:
        driver.compiled_plan = plan


def _reference(model, q_c, vectorized):
    w = np.random.default_rng(1).uniform(0.5, 1.5, model.nv)

    def reference(t):
        if vectorized:
            t = np.asarray(t)[..., None]
        return (
            model.integrate(q_c, 0.2 * np.sin(w * t)),
            0.2 * w * np.cos(w * t),
            -0.2 * w**2 * np.sin(w * t),
        )

    return reference


def controlled(name, model, t_aba, repeat, t_final=1.0):
    q_c = model.random_configuration(np.random.default_rng(0))
    K_D = np.diag(np.diag(crba(model, q_c)))  # 10 diag H is too stiff for the humanoid at 1 ms
    z = np.zeros(model.nv)
    evaluations = 4 * round(t_final / 1e-3) + 7 * 16
    rows = []
    for label, vectorized, run in (
        ("compiled, Python reference", False, simulate),
        ("compiled, vectorized reference", True, simulate),
        ("Python path (before)", False, _python_path),
    ):
        ctrl = SlotineLi(model, "levi-civita", _reference(model, q_c, vectorized), 2.0, K_D,
                         vectorized=vectorized)  # fmt: skip
        run(model, q_c, z, 0.01, controller=ctrl, progress=False)  # compile, warm up
        wall = _times(
            lambda ctrl=ctrl, run=run: run(model, q_c, z, t_final, controller=ctrl, progress=False),
            1 if run is _python_path else 2 * repeat + 1,
        )
        rows.append((label, _median(wall, t_final), np.median(wall) / (evaluations * t_aba)))
    print(f"  {name}: Slotine-Li RKMK4 (ratio: median wall / ({evaluations} x pin.aba))")
    for label, per_s, ratio in rows:
        print(f"    {label:32s} {per_s} s per simulated s   ratio {ratio:6.2f}")


def passive(name, model, t_aba, repeat, mj=None):
    rng = np.random.default_rng(2)
    q0, v0 = model.random_configuration(rng), rng.uniform(-1.0, 1.0, model.nv)
    simulate(model, q0, v0, 0.01, progress=False)
    one = _times(lambda: simulate(model, q0, v0, 1.0, progress=False), 2 * repeat + 1)
    before = _best(lambda: _python_path(model, q0, v0, 1.0, progress=False), 1)
    Q = model.random_configuration(rng, size=BATCH)
    V = rng.uniform(-1.0, 1.0, (BATCH, model.nv))
    T = 0.2
    batch, wall = {}, {}
    for threads in (1, 2):
        set_num_threads(threads)
        try:
            simulate(model, Q, V, 0.005, progress=False)
            run = lambda: simulate(model, Q, V, T, progress=False)  # noqa: E731
            if threads == 1:
                batch[1] = _best(run, repeat) / (BATCH * T)
                bare = _best(  # no step-doubling samples: the work of MuJoCo's rollout
                    lambda: simulate(model, Q, V, T, progress=False, on_inaccuracy="ignore"),
                    repeat,
                ) / (BATCH * T)
            wall[threads] = _best(run, repeat, time.perf_counter) / (BATCH * T)
        finally:
            set_num_threads(1)
    evaluations = 4000 + 7 * 16
    print(f"  {name}: free motion")
    print(
        f"    one trajectory: compiled {_median(one)} s per simulated s (ratio "
        f"{np.median(one) / (evaluations * t_aba):.2f}), Python path {before:.4f}"
    )
    print(
        f"    batch of {BATCH}, per trajectory: {batch[1]:.4f} s per simulated s (1 thread; "
        f"{bare:.4f} without the error estimate's {7 * min(16, round(T / 0.02))} evaluations); "
        f"wall {wall[1]:.4f} (1 thread), {wall[2]:.4f} (2 threads, x{wall[1] / wall[2]:.2f})"
    )
    if mj is not None:
        mujoco_figures(name, model, q0, v0, repeat, mj)
        against_rollout(model, q0, v0, repeat, mj)
        against_rollout_batch(model, Q, V, T, repeat, mj)


# ----------------------------------------------------------------------------------------
# MuJoCo (optional)
# ----------------------------------------------------------------------------------------
def mujoco_figures(name, model, q0, v0, repeat, mj):
    from mujoco import rollout

    m = mj.MjModel.from_xml_string(mjcf(model))
    d = mj.MjData(m)
    assert m.nv == model.nv, (m.nv, model.nv)
    integrator = mj.mjtIntegrator(m.opt.integrator).name
    print(f"    MuJoCo model: integrator {integrator}, timestep {m.opt.timestep:g} s")
    spec = mj.mjtState.mjSTATE_FULLPHYSICS
    mj.mj_resetData(m, d)
    state = np.empty(mj.mj_stateSize(m, spec))
    mj.mj_getState(m, d, state, spec)
    one = _best(lambda: rollout.rollout(m, d, state[None], nstep=1000), repeat)
    states = np.tile(state, (BATCH, 1))
    T = 200
    per, wall = {}, {}
    for threads in (1, 2):
        datas = [mj.MjData(m) for _ in range(threads)]
        run = lambda datas=datas: rollout.rollout(m, datas, states, nstep=T)  # noqa: E731
        if threads == 1:
            per[1] = _best(run, repeat) / (BATCH * T * 1e-3)
        wall[threads] = _best(run, repeat, time.perf_counter) / (BATCH * T * 1e-3)

    def pd_loop():  # a joint-space PD in Python at every step (zero-order hold)
        mj.mj_resetData(m, d)
        q_ref = d.qpos.copy()
        for _ in range(1000):
            # (the cost of a PD in Python is measured, small gains keep the motion bounded)
            d.qfrc_applied[:] = -1e-3 * d.qvel
            d.qfrc_applied[: min(m.nq, m.nv)] -= 1e-2 * (d.qpos - q_ref)[: min(m.nq, m.nv)]
            mj.mj_step(m, d)

    loop = _best(pd_loop, repeat)
    print(
        f"    MuJoCo RK4: rollout {one:.4f} s per simulated s; batch of {BATCH} per trajectory "
        f"{per[1]:.4f} (1 thread); wall {wall[1]:.4f} (1 thread), {wall[2]:.4f} (2 threads); "
        f"mj_step + Python PD {loop:.4f}"
    )
    m.opt.integrator = mj.mjtIntegrator.mjINT_EULER  # MuJoCo's default: one evaluation a step
    euler = _best(lambda: rollout.rollout(m, d, state[None], nstep=1000), repeat)
    print(f"    (MuJoCo's default Euler, not the same integrator: rollout {euler:.4f})")


def against_rollout(model, q0, v0, repeat, mj):
    """One free trajectory of one simulated second, geomech and MuJoCo's RK4 rollout timed in
    turn (CPU time): the ratio's median and range over the rounds."""
    from _mujoco import to_mujoco_state
    from mujoco import rollout

    m = mj.MjModel.from_xml_string(mjcf(model))
    d = mj.MjData(m)
    spec = mj.mjtState.mjSTATE_FULLPHYSICS
    d.qpos[:], d.qvel[:], _ = to_mujoco_state(model, m, q0, v0)
    state = np.empty(mj.mj_stateSize(m, spec))
    mj.mj_getState(m, d, state, spec)
    ours, bare, theirs = [], [], []
    for _ in range(4 * repeat + 1):
        ours.append(_best(lambda: simulate(model, q0, v0, 1.0, progress=False), 1))
        bare.append(
            _best(lambda: simulate(model, q0, v0, 1.0, progress=False, on_inaccuracy="ignore"), 1)
        )
        theirs.append(_best(lambda: rollout.rollout(m, d, state[None], nstep=1000), 1))
    ratio, ratio_bare = np.array(ours) / np.array(theirs), np.array(bare) / np.array(theirs)
    print(
        f"    interleaved, same initial state: geomech {_median(ours)} (without the error "
        f"estimate {_median(bare)}), MuJoCo RK4 rollout {_median(theirs)} s per simulated s; "
        f"ratio {_median(ratio)}, without the estimate {_median(ratio_bare)}"
    )


def against_rollout_batch(model, Q, V, T, repeat, mj):
    """The batch of free trajectories, geomech (one thread) and MuJoCo's RK4 rollout (one
    ``MjData``: the calling thread) from the same initial states, timed in alternating rounds
    (thread CPU time): per trajectory and simulated second, the ratio's median and range."""
    from _mujoco import to_mujoco_state
    from mujoco import rollout

    m = mj.MjModel.from_xml_string(mjcf(model))
    d = mj.MjData(m)
    spec = mj.mjtState.mjSTATE_FULLPHYSICS
    states = np.empty((len(Q), mj.mj_stateSize(m, spec)))
    for b in range(len(Q)):
        d.qpos[:], d.qvel[:], _ = to_mujoco_state(model, m, Q[b], V[b])
        mj.mj_getState(m, d, states[b], spec)
    nstep, scale = round(T / 1e-3), len(Q) * T
    runs = {
        "bare": lambda: simulate(model, Q, V, T, progress=False, on_inaccuracy="ignore"),
        "default": lambda: simulate(model, Q, V, T, progress=False),
        "mujoco": lambda: rollout.rollout(m, [d], states, nstep=nstep),
    }
    set_num_threads(1)
    times = {k: [] for k in runs}
    for run in runs.values():
        run()
    for _ in range(2 * repeat + 1):
        for key, run in runs.items():
            times[key].append(_best(run, 1, time.thread_time) / scale)
    mjt = np.array(times["mujoco"])
    print(
        f"    batch of {len(Q)}, same initial states, alternating rounds (thread CPU time, per "
        f"trajectory): geomech {_median(times['bare'])} without the error estimate, "
        f"{_median(times['default'])} with it; MuJoCo RK4 rollout {_median(mjt)} s per "
        f"simulated s; ratio {_median(np.array(times['bare']) / mjt)} (like for like), "
        f"{_median(np.array(times['default']) / mjt)} (geomech's default)"
    )


# ----------------------------------------------------------------------------------------
# compile time
# ----------------------------------------------------------------------------------------
_FIRST_CALL = """
import time, numpy as np
t0 = time.perf_counter()
from geomech import simulate
from geomech.control import SlotineLi
from geomech.multibody import robots
m = robots.load("ur5")
q = m.neutral()
c = SlotineLi(m, "levi-civita", lambda t: (q, np.zeros(6), np.zeros(6)), 2.0, 1.0)
t1 = time.perf_counter()
simulate(m, q, np.zeros(6), 0.002, controller=c)
t2 = time.perf_counter()
simulate(m, q, np.zeros(6), 0.002, controller=c)
print(t1 - t0, t2 - t1, time.perf_counter() - t2)
"""


def compile_time():
    env = dict(os.environ, PYTHONPATH=str(ROOT.parent))
    out = {}
    with tempfile.TemporaryDirectory() as cold:
        for label, extra in (("cold cache", {"NUMBA_CACHE_DIR": cold}), ("warm cache", {})):
            res = subprocess.run(
                [sys.executable, "-c", _FIRST_CALL],
                env=dict(env, **extra),
                capture_output=True,
                text=True,
                check=True,
            )
            out[label] = [float(x) for x in res.stdout.split()]
    print("\nFirst simulate() under Slotine-Li in a fresh process (import, first call, second):")
    for label, (imp, first, second) in out.items():
        print(f"  {label}: import {imp:.1f} s, first call {first:.1f} s, second {second:.3f} s")
    print(
        "  (a cold cache compiles every kernel the run needs: the ABA, the Slotine-Li torques, "
        "the tracking error and the stepping kernel)"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--compile", action="store_true", help="also time numba's compilation")
    args = parser.parse_args(argv)
    repeat = 2 if args.quick else 5
    try:
        import mujoco as mj
    except ImportError:
        mj = None
    print(f"geomech.simulate, dt = 1 ms (MuJoCo: {'installed' if mj else 'not installed'})")
    print(load_average())
    for name, model in (("ur5", robots.load("ur5")), ("humanoid", robots.humanoid())):
        t_aba = _aba_time(model, repeat)
        print(f"\n{name} (nv = {model.nv}): one pin.aba call {1e6 * t_aba:.2f} us")
        controlled(name, model, t_aba, repeat)
        passive(name, model, t_aba, repeat, mj)
    if args.compile:
        compile_time()


if __name__ == "__main__":
    main()
