"""geomech's frame and centroidal functions vs Pinocchio: single calls and batches of 1000.

For the UR5 arm (6 bodies, frame ``tool0``), the built-in humanoid (nv = 30, its last frame:
a hand) and a 64-body random tree mixing every joint type (a deep body's frame), prints per
function

* ``single``: one call with one state, geomech vs the Pinocchio route a Python user takes
  for the same result (C++ through its binding; two calls where Pinocchio needs a kinematics
  pass first: ``forwardKinematics`` + ``updateFramePlacement`` / ``getFrameVelocity`` /
  ``getFrameAcceleration``, ``computeJointJacobiansTimeVariation`` +
  ``getFrameJacobianTimeVariation``), and their ratio;
* ``batch``: one geomech call on 1000 states vs a Python loop of 1000 such Pinocchio calls
  (inputs pre-converted), per state, and the ratio.

References are ``"world"`` for the frame functions. The centroidal inertia is compared with
``pin.ccrba`` (which also computes ``Ag``), ``Ȧ_G`` with ``computeCentroidalMapTimeVariation``.
Results are checked to agree before timing; every comparison is interleaved in the same process
(``_timing.interleaved``) and reported as the median over rounds (``--stat min``: the fastest
round of each contender, batches of 100).

Run: ``python benchmarks/bench_frames.py`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "multibody"))

from _timing import interleaved  # noqa: E402

from conftest import mixed_tree  # noqa: E402
from geomech.interop.pinocchio import PinocchioBridge, se3_to_pin  # noqa: E402
from geomech.multibody import robots  # noqa: E402
from geomech.multibody.algorithms import centroidal as C  # noqa: E402
from geomech.multibody.algorithms import frames as F  # noqa: E402

BATCH = 1000
REF = "world"


def pin_frame(bridge, model, name):
    """The Pinocchio id of geomech frame ``name``, added as an OP_FRAME where it has none."""
    pm = bridge.pin_model
    if pm.existFrame(name):
        return pm.getFrameId(name)
    table = F.frame_table(model)
    k = table.index(name)
    body = int(table.bodies[k])
    jid, M = (0, pin.SE3.Identity()) if body < 0 else bridge.body_frames[body]
    fid = pm.addFrame(
        pin.Frame(name, int(jid), 0, M * se3_to_pin(table.placements[k]), pin.FrameType.OP_FRAME)
    )
    bridge.pin_data = pm.createData()
    return fid


def cases(model, frame, bridge, fid, Q, V, A, Qp, Vp, Ap):
    """``{name: (gm single, pin single, gm batch, pin batch, check)}``."""
    pm, pd = bridge.pin_model, bridge.pin_data
    P, rf, B = bridge.P, pin.WORLD, Q.shape[0]
    q, v, a, qp, vp, ap = Q[0], V[0], A[0], Qp[0], Vp[0], Ap[0]
    swap = np.r_[3:6, 0:3]

    def placement(qp):
        pin.forwardKinematics(pm, pd, qp)
        return pin.updateFramePlacement(pm, pd, fid)

    def velocity(qp, vp):
        pin.forwardKinematics(pm, pd, qp, vp)
        return pin.getFrameVelocity(pm, pd, fid, rf)

    def acceleration(qp, vp, ap):
        pin.forwardKinematics(pm, pd, qp, vp, ap)
        return pin.getFrameAcceleration(pm, pd, fid, rf)

    def jacobian_rate(qp, vp):
        pin.computeJointJacobiansTimeVariation(pm, pd, qp, vp)
        return pin.getFrameJacobianTimeVariation(pm, pd, fid, rf)

    def inertia(qp):
        pin.ccrba(pm, pd, qp, np.zeros(pm.nv))
        return pd.Ig

    out = {
        "frame_placement": (
            lambda: F.frame_placement(model, q, frame),
            lambda: placement(qp),
            lambda: F.frame_placement(model, Q, frame),
            lambda: [placement(Qp[k]) for k in range(B)],
            lambda: np.allclose(F.frame_placement(model, q, frame), placement(qp).homogeneous),
        ),
        "frame_velocity": (
            lambda: F.frame_velocity(model, q, v, frame, REF),
            lambda: velocity(qp, vp),
            lambda: F.frame_velocity(model, Q, V, frame, REF),
            lambda: [velocity(Qp[k], Vp[k]) for k in range(B)],
            lambda: np.allclose(
                F.frame_velocity(model, q, v, frame, REF), velocity(qp, vp).vector[swap]
            ),
        ),
        "frame_acceleration": (
            lambda: F.frame_acceleration(model, q, v, a, frame, REF),
            lambda: acceleration(qp, vp, ap),
            lambda: F.frame_acceleration(model, Q, V, A, frame, REF),
            lambda: [acceleration(Qp[k], Vp[k], Ap[k]) for k in range(B)],
            lambda: np.allclose(
                F.frame_acceleration(model, q, v, a, frame, REF),
                acceleration(qp, vp, ap).vector[swap],
            ),
        ),
        "frame_jacobian": (
            lambda: F.frame_jacobian(model, q, frame, REF),
            lambda: pin.computeFrameJacobian(pm, pd, qp, fid, rf),
            lambda: F.frame_jacobian(model, Q, frame, REF),
            lambda: [pin.computeFrameJacobian(pm, pd, Qp[k], fid, rf) for k in range(B)],
            lambda: np.allclose(
                F.frame_jacobian(model, q, frame, REF),
                pin.computeFrameJacobian(pm, pd, qp, fid, rf)[swap] @ P,
            ),
        ),
        "frame_jacobian_rate": (
            lambda: F.frame_jacobian_rate(model, q, v, frame, REF),
            lambda: jacobian_rate(qp, vp),
            lambda: F.frame_jacobian_rate(model, Q, V, frame, REF),
            lambda: [jacobian_rate(Qp[k], Vp[k]) for k in range(B)],
            lambda: np.allclose(
                F.frame_jacobian_rate(model, q, v, frame, REF), jacobian_rate(qp, vp)[swap] @ P
            ),
        ),
        "center_of_mass": (
            lambda: C.center_of_mass(model, q),
            lambda: pin.centerOfMass(pm, pd, qp),
            lambda: C.center_of_mass(model, Q),
            lambda: [pin.centerOfMass(pm, pd, Qp[k]) for k in range(B)],
            lambda: np.allclose(C.center_of_mass(model, q), pin.centerOfMass(pm, pd, qp)),
        ),
        "center_of_mass_jacobian": (
            lambda: C.center_of_mass_jacobian(model, q),
            lambda: pin.jacobianCenterOfMass(pm, pd, qp),
            lambda: C.center_of_mass_jacobian(model, Q),
            lambda: [pin.jacobianCenterOfMass(pm, pd, Qp[k]) for k in range(B)],
            lambda: np.allclose(
                C.center_of_mass_jacobian(model, q), pin.jacobianCenterOfMass(pm, pd, qp) @ P
            ),
        ),
        "centroidal_momentum_matrix": (
            lambda: C.centroidal_momentum_matrix(model, q),
            lambda: pin.computeCentroidalMap(pm, pd, qp),
            lambda: C.centroidal_momentum_matrix(model, Q),
            lambda: [pin.computeCentroidalMap(pm, pd, Qp[k]) for k in range(B)],
            lambda: np.allclose(
                C.centroidal_momentum_matrix(model, q),
                pin.computeCentroidalMap(pm, pd, qp)[swap] @ P,
            ),
        ),
        "centroidal_momentum_matrix_rate": (
            lambda: C.centroidal_momentum_matrix_rate(model, q, v),
            lambda: pin.computeCentroidalMapTimeVariation(pm, pd, qp, vp),
            lambda: C.centroidal_momentum_matrix_rate(model, Q, V),
            lambda: [pin.computeCentroidalMapTimeVariation(pm, pd, Qp[k], Vp[k]) for k in range(B)],
            # (the product with v: Pinocchio's matrix reads a stale data.vcom, see the docs)
            lambda: np.allclose(
                C.centroidal_momentum_matrix_rate(model, q, v) @ v,
                pin.computeCentroidalMapTimeVariation(pm, pd, qp, vp)[swap] @ vp,
            ),
        ),
        "centroidal_inertia": (
            lambda: C.centroidal_inertia(model, q),
            lambda: inertia(qp),
            lambda: C.centroidal_inertia(model, Q),
            lambda: [inertia(Qp[k]) for k in range(B)],
            lambda: np.allclose(C.centroidal_inertia(model, q)[:3, :3], inertia(qp).inertia),
        ),
    }
    return out


def bench_model(label, model, frame, rng, batch, rounds, stat):
    bridge = PinocchioBridge(model)
    fid = pin_frame(bridge, model, frame)
    Q = model.random_configuration(rng, size=batch)
    V, A = rng.normal(size=(2, batch, model.nv))
    Qp, Vp, Ap = bridge.q_to_pin(Q), bridge.v_to_pin(V), bridge.v_to_pin(A)
    rows = []
    for name, (gm1, pin1, gmB, pinB, check) in cases(
        model, frame, bridge, fid, Q, V, A, Qp, Vp, Ap
    ).items():
        assert check(), f"{label} {name}: geomech and Pinocchio disagree"
        if stat == "min":
            t_gm1, t_pin1, r1 = interleaved(gm1, pin1, 20 * rounds, 0.001, stat)
            t_gmB, t_pinB, rB = interleaved(gmB, pinB, 4 * rounds, 0.001, stat)
        else:
            t_gm1, t_pin1, r1 = interleaved(gm1, pin1, rounds)
            t_gmB, t_pinB, rB = interleaved(gmB, pinB, max(3, rounds // 3), block=0.05)
        rows.append((label, model.nv, name, t_gm1, t_pin1, r1, t_gmB / batch, t_pinB / batch, rB))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument(
        "--stat",
        choices=("median", "min"),
        default="median",
        help="median of interleaved rounds, or the fastest round of each",
    )
    parser.add_argument("--models", nargs="*", default=None, help="ur5, humanoid, mixed-64")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    batch, rounds = (100, 5) if args.quick else (BATCH, 15)
    if args.stat == "min":
        batch = min(batch, 100)
    print(
        f"geomech vs Pinocchio {pin.__version__}, numpy {np.__version__}; times in µs, "
        f"{args.stat} of interleaved rounds; ratio = geomech / Pinocchio; batch = {batch}"
    )
    header = (
        f"{'model':<9} {'nv':>3} {'function':<32} {'gm 1':>7} {'pin 1':>7} {'ratio':>6} "
        f"{'gm/state':>9} {'pin/state':>9} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    humanoid = robots.humanoid()
    seed = 7  # the first seed without bodies welded to the world (Pinocchio leaves their
    tree = mixed_tree(64, np.random.default_rng(seed), floating_base=True)  # mass out)
    while any(all(tree.joints[k].nv == 0 for k in tree.supports(i)) for i in range(64)):
        seed += 1
        tree = mixed_tree(64, np.random.default_rng(seed), floating_base=True)
    models = {
        "ur5": (robots.load("ur5"), "tool0"),
        "humanoid": (humanoid, F.frame_names(humanoid)[-1]),
        "mixed-64": (tree, F.frame_names(tree)[-1]),
    }
    for label in args.models or list(models):
        model, frame = models[label]
        for row in bench_model(label, model, frame, rng, batch, rounds, args.stat):
            label_, nv, name, t1, p1, r1, tb, pb, rb = row
            print(
                f"{label_:<9} {nv:>3} {name:<32} {t1 * 1e6:>7.2f} {p1 * 1e6:>7.2f} {r1:>6.2f} "
                f"{tb * 1e6:>9.3f} {pb * 1e6:>9.3f} {rb:>6.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
