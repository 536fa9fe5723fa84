"""Slotine–Li torques in O(N) and closed-loop simulation throughput (seed 000 §IV-A).

1. ``slotine_li_torques`` (the O(N) modified RNEA behind ``SlotineLi`` on multibody models)
   against the dense law :math:`\\tau = H a_r + C v_r + g` assembled from Pinocchio's
   ``crba``, ``computeCoriolisMatrix`` and ``computeGeneralizedGravity`` (Levi-Civita), on
   serial chains of N = 8 ... 128 revolute joints: time of one call, the fitted log-log slope
   in N (expect about 1 for geomech; Pinocchio's dense path is O(N^2) in flops, but its C++
   constant keeps it ahead at these sizes), and the agreement of both before timing. Also the
   same torques for a batch of 1000 states in one call, per state.
2. ``geomech.simulate`` of the UR5 and of the floating-base humanoid under ``SlotineLi``
   (fixed-step RKMK4, dt = 1 ms, 0.2 s), in wall-clock seconds per simulated second and
   controller + dynamics evaluations per second, with the largest deviation of the
   free-flyer quaternion from unit norm.

   ``--simulate`` runs this part alone over one simulated second (``t_final = 1.0``, the
   figure of issue 13 item 7: faster than real time means under 1 s of wall time), with
   K_D = diag(H(q_c)) (the default 10 diag(H) makes the humanoid
   loop too stiff for 1 ms steps over a whole second).

Run: ``python benchmarks/bench_control.py [--quick | --simulate]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pinocchio as pin

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent / "tests" / "multibody"))

from _timing import best_time, slope  # noqa: E402

from geomech import simulate  # noqa: E402
from geomech.control import SlotineLi  # noqa: E402
from geomech.interop.pinocchio import PinocchioBridge  # noqa: E402
from geomech.multibody import robots, slotine_li_torques  # noqa: E402
from geomech.multibody.algorithms.dynamics import crba  # noqa: E402

BATCH = 1000


def torques_vs_pinocchio(sizes):
    print("Slotine-Li torques H a_r + C v_r + g (Levi-Civita), serial chains")
    print(
        f"{'N':>5} {'geomech O(N)':>14} {'Pinocchio dense':>16} {'ratio':>7} "
        f"{'batch/state':>12} {'rel. diff':>10}"
    )
    t_gm, t_pin = [], []
    for n in sizes:
        model = robots.serial_chain(n, rng=0)
        bridge = PinocchioBridge(model)
        pm, pd = bridge.pin_model, bridge.pin_data
        rng = np.random.default_rng(n)
        q, v, v_r, a_r = rng.uniform(-1.0, 1.0, (4, n))
        qp, vp, vrp, arp = bridge.q_to_pin(q), *(bridge.v_to_pin(x) for x in (v, v_r, a_r))

        def dense(qp=qp, vp=vp, vrp=vrp, arp=arp, pm=pm, pd=pd):
            H = pin.crba(pm, pd, qp)
            C = pin.computeCoriolisMatrix(pm, pd, qp, vp)
            return H @ arp + C @ vrp + pin.computeGeneralizedGravity(pm, pd, qp)

        ours = slotine_li_torques(model, q, v, v_r, a_r)
        ref = bridge.v_from_pin(dense())
        diff = np.abs(ours - ref).max() / np.abs(ref).max()
        Q = model.random_configuration(rng, BATCH)
        V, VR, AR = rng.uniform(-1.0, 1.0, (3, BATCH, n))
        t_gm.append(
            best_time(
                lambda m=model, q=q, v=v, v_r=v_r, a_r=a_r: slotine_li_torques(m, q, v, v_r, a_r)
            )
        )
        t_pin.append(best_time(dense))
        t_batch = (
            best_time(
                lambda m=model, Q=Q, V=V, VR=VR, AR=AR: slotine_li_torques(m, Q, V, VR, AR),
                repeat=2,
            )
            / BATCH
        )
        print(
            f"{n:5d} {1e6 * t_gm[-1]:11.1f} us {1e6 * t_pin[-1]:13.1f} us "
            f"{t_gm[-1] / t_pin[-1]:7.1f} {1e6 * t_batch:9.1f} us {diff:10.1e}"
        )
    print(
        f"fitted log-log slopes vs N: geomech {slope(sizes, t_gm):.2f}, "
        f"Pinocchio dense {slope(sizes, t_pin):.2f}"
    )


def closed_loop_throughput(t_final, kd=10.0):
    print(f"\ngeomech.simulate under SlotineLi (levi-civita), RKMK4, dt = 1 ms, {t_final} s")
    for name, model in (("ur5", robots.load("ur5")), ("humanoid", robots.humanoid())):
        rng = np.random.default_rng(0)
        q_c = model.random_configuration(rng)
        w = rng.uniform(0.5, 1.5, model.nv)

        def reference(t, q_c=q_c, w=w, model=model):
            return (
                model.integrate(q_c, 0.2 * np.sin(w * t)),
                0.2 * w * np.cos(w * t),
                -0.2 * w**2 * np.sin(w * t),
            )

        K_D = kd * np.diag(np.diag(crba(model, q_c)))
        ctrl = SlotineLi(model, "levi-civita", reference, 2.0, K_D)
        calls = [0]

        def counted(t, q, v, ctrl=ctrl, calls=calls):
            calls[0] += 1
            return ctrl(t, q, v)

        simulate(
            model,
            q_c,
            np.zeros(model.nv),
            0.005,
            controller=ctrl,
            dt=1e-3,
            method="rkmk4",
            progress=False,
            on_inaccuracy="ignore",
        )  # compile, warm up
        calls[0] = 0
        t0 = time.perf_counter()
        res = simulate(
            model,
            q_c,
            np.zeros(model.nv),
            t_final,
            controller=counted,
            dt=1e-3,
            method="rkmk4",
            progress=False,
        )
        wall = time.perf_counter() - t0
        quat = [
            qs
            for j, qs in zip(model.joints, model.q_slices, strict=True)
            if j.kind in ("free_flyer", "spherical")
        ]
        drift = max(
            (np.abs((res.q[:, qs][:, -4:] ** 2).sum(-1) - 1.0).max() for qs in quat), default=0.0
        )
        print(
            f"  {name:9s} nv = {model.nv:2d}: {wall / t_final:6.1f} s per simulated s, "
            f"{calls[0] / wall:7.0f} evaluations/s, max ||quat| - 1| = {drift:.1e}"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument(
        "--simulate",
        action="store_true",
        help="only the closed-loop simulate timing, over 1 simulated second",
    )
    args = parser.parse_args(argv)
    if args.simulate:
        # K_D = 1 diag(H(q_c)): with 10 diag(H) the humanoid loop is too stiff for dt = 1 ms
        # and diverges at t = 0.328 s (before and after issue 13's kernels alike)
        closed_loop_throughput(1.0, kd=1.0)
        return
    torques_vs_pinocchio([8, 16, 32] if args.quick else [8, 16, 32, 64, 128])
    closed_loop_throughput(0.05 if args.quick else 0.2)


if __name__ == "__main__":
    main()
