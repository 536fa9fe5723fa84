"""geomech's kernels against MuJoCo's, single calls (issue 28 item 6; MuJoCo is optional).

For ur5, panda, xarm7, solo12, anymal (C), talos (full v2) (example-robot-data), the built-in
humanoid and a chain of 100 revolute links, each written as MJCF by ``_mujoco.mjcf`` (contacts
and constraints off), times one call of:

* ``rnea``: geomech's ``rnea`` against MuJoCo's ``mj_kinematics``, ``mj_comPos``,
  ``mj_comVel``, ``mj_rne`` (the inverse dynamics from scratch: poses, com-based frames,
  velocities, then the recursion);
* ``crba``: geomech's ``crba`` against ``mj_kinematics``, ``mj_comPos``, ``mj_makeM``,
  ``mj_fullM`` (the dense mass matrix from scratch);
* ``aba``: geomech's ``aba`` against ``mj_forward`` (MuJoCo's forward dynamics: its whole
  pipeline, which factorises the mass matrix instead of running an articulated-body
  recursion; with nothing to collide or constrain, this is what a MuJoCo step evaluates).

Before timing, each pair is checked to agree (MuJoCo's coordinates mapped to geomech's by
``_mujoco.to_mujoco_state``) to 1e-9 relative. The timings are interleaved in one process,
median ratio over rounds with its range (min–max over three repeats). MuJoCo's rollout of
whole trajectories is in ``bench_simulate.py``.

Run: ``python benchmarks/bench_mujoco.py [--quick]``.
"""

from __future__ import annotations

import argparse

import numpy as np
from _mujoco import from_mujoco_acceleration, from_mujoco_force, mjcf, to_mujoco_state
from _timing import interleaved

import geomech as gm
from geomech.multibody import robots

ROBOTS = ("ur5", "panda", "xarm7", "solo12", "anymal", "talos_full_v2", "humanoid", "chain100")


def load(name):
    if name == "humanoid":
        return robots.humanoid()
    if name == "chain100":
        return robots.serial_chain(100, np.random.default_rng(0))
    if name == "anymal":
        return robots.load("anymal_c_simple_description/anymal")
    return robots.load(name)


def check(model, m, d, mj, q, v, a):
    """MuJoCo and geomech agree at (q, v, a): rnea, crba (as kinetic energy), aba."""
    qpos, qvel, qacc = to_mujoco_state(model, m, q, v, a)
    d.qpos[:], d.qvel[:], d.qacc[:] = qpos, qvel, qacc
    mj.mj_forward(m, d)  # positions, velocities, the mass matrix
    d.qacc[:] = qacc
    f = np.empty(m.nv)
    mj.mj_rne(m, d, 1, f)
    tau = gm.rnea(model, q, v, a)
    M = np.empty((m.nv, m.nv))
    mj.mj_fullM(m, d, M)
    T_mj, T_gm = 0.5 * qvel @ M @ qvel, 0.5 * v @ gm.crba(model, q) @ v
    d.qfrc_applied[:] = f  # MuJoCo forward dynamics under its own inverse dynamics: a again
    mj.mj_forward(m, d)
    a_mj = from_mujoco_acceleration(model, m, q, v, d.qacc)
    d.qfrc_applied[:] = 0.0
    scale = 1.0 + np.abs(tau).max()
    errors = (
        np.abs(from_mujoco_force(model, m, q, f) - tau).max() / scale,
        abs(T_mj - T_gm) / (1.0 + abs(T_gm)),
        np.abs(a_mj - a).max() / (1.0 + np.abs(a).max()),
    )
    assert max(errors) < 1e-9, errors
    return max(errors)


def bench(name, rounds, repeats):
    import mujoco as mj

    model = load(name)
    m = mj.MjModel.from_xml_string(mjcf(model))
    d = mj.MjData(m)
    rng = np.random.default_rng(1)
    q = model.random_configuration(rng)
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    err = check(model, m, d, mj, q, v, a)
    qpos, qvel, qacc = to_mujoco_state(model, m, q, v, a)
    d.qpos[:], d.qvel[:], d.qacc[:] = qpos, qvel, qacc
    tau = gm.rnea(model, q, v, a)
    f, M = np.empty(m.nv), np.empty((m.nv, m.nv))

    def mj_rnea():
        mj.mj_kinematics(m, d)
        mj.mj_comPos(m, d)
        mj.mj_comVel(m, d)
        mj.mj_rne(m, d, 1, f)

    def mj_crba():
        mj.mj_kinematics(m, d)
        mj.mj_comPos(m, d)
        mj.mj_makeM(m, d)
        mj.mj_fullM(m, d, M)

    pairs = {
        "rnea": (lambda: gm.rnea(model, q, v, a), mj_rnea),
        "crba": (lambda: gm.crba(model, q), mj_crba),
        "aba": (lambda: gm.aba(model, q, v, tau), lambda: mj.mj_forward(m, d)),
    }
    cells = []
    for fun_gm, fun_mj in pairs.values():
        runs = [interleaved(fun_gm, fun_mj, rounds=rounds) for _ in range(repeats)]
        t_gm = np.median([r[0] for r in runs])
        t_mj = np.median([r[1] for r in runs])
        ratios = [r[2] for r in runs]
        cells.append(
            f"{1e6 * t_gm:6.2f} {1e6 * t_mj:6.2f} "
            f"{np.median(ratios):5.2f} [{min(ratios):.2f}-{max(ratios):.2f}]"
        )
    print(f"{name:13s} {model.nv:4d}  " + "  ".join(cells) + f"   {err:.0e}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    args = parser.parse_args(argv)
    try:
        import mujoco
    except ImportError:
        print("MuJoCo is not installed (pip install mujoco): nothing to compare.")
        return
    rounds, repeats = (5, 1) if args.quick else (15, 3)
    print(f"geomech vs MuJoCo {mujoco.__version__}, one call, times in µs, ratio geomech/MuJoCo")
    print("(median over interleaved rounds [range over repeats]); last column: agreement\n")
    head = "geomech  MuJoCo  ratio [range]"
    print(f"{'robot':13s} {'nv':>4s}  " + "  ".join(f"{k:^28s}" for k in ("rnea", "crba", "aba")))
    print(f"{'':13s} {'':4s}  " + "  ".join(f"{head:^28s}" for _ in range(3)))
    for name in ROBOTS:
        try:
            bench(name, rounds, repeats)
        except (ImportError, gm.GeomechError) as exc:  # a robot example-robot-data lacks
            print(f"{name:13s} skipped: {exc}")


if __name__ == "__main__":
    main()
