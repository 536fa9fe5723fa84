r"""Seed 004's Tables II–IV and Figs. 11, 13 on geomech's builders of the paper's robot set.

Chignoli, Adrian, Kim, Wensing (arXiv:2311.13732) time the cluster algorithms against
the projection and Lagrange-multiplier baselines on six robots (Sec. IX, Table I). This
script builds them from :mod:`geomech.multibody.io.robots` as far as geomech can:

- ``GT chain``: :func:`~geomech.multibody.io.robots.geared_chain` (12 links, 12 geared rotors);
- ``PBT chain``: :func:`~geomech.multibody.io.robots.belt_chain` (12 links in 6 belt pairs);
- ``Mini Cheetah``: :func:`~geomech.multibody.io.robots.mini_cheetah` (18 DoF);
- ``MIT Humanoid``: :func:`~geomech.multibody.io.robots.mit_humanoid` (24 DoF);
- ``JVRC-1``: :func:`~geomech.multibody.io.robots.jvrc1_geared` (38 DoF, 32 geared joints);
- ``Tello``: :func:`~geomech.multibody.io.robots.tello` (24 DoF; its hip and knee–ankle
  differentials built as linkages, loop joints and couplings, so the compiled kernels take
  them: clusters of 10 and 7 bodies where grbda's have 4). Its approximate model is
  :func:`tello_approximate` (the link tree, grbda's ``tello_humanoid_approximate``).

For each robot and each algorithm it prints the paper's relative cost (baseline / cluster −
1, in %; the paper's Tables II–IV convention) measured here beside the paper's figure:

- Table II: projected RNEA :math:`G^\top\mathrm{RNEA}_s(q, Gv, G\dot v + g)` against C-RNEA;
- Table III: the projection method and the Lagrange-multiplier (KKT) method against C-ABA;
- Table IV: the projected inverse OSIM :math:`JG(G^\top HG)^{-1}G^\top J^\top` against
  C-EFPA (end-effectors: the feet and hands, the chains' last link);
- the "Approximate" rows: the paper's reflected-inertia model
  (:func:`~geomech.multibody.closed.transmission.approximate_transmission_model`: the
  independent tree, rotors merged into their carriers, :math:`\mathrm{diag}(N^2I^{\rm rot})`
  as joint armature) by the tree RNEA and ABA and the EFPA of that tree, against the cluster
  algorithm on the exact model (negative: the approximation is cheaper); ``n/a (pending)``
  where geomech has no such model.

All contenders are the compiled kernels (:mod:`benchmarks.baselines`, the cluster kernels
behind ``rnea``/``aba``/``inverse_operational_space_inertia``) with the same per-state
constraint data computed beforehand (as the paper neglects the cost of the constraint
Jacobians), timed interleaved in one process (``_timing``): the median of the per-round
relative costs with their range, and the relative cost of the fastest rounds (the estimate
of the uncontended times on a loaded machine); per state in batches of 1000 and in single
calls (batches of one: each call crosses the same thin Python-to-kernel boundary). Every
benchmarked state is checked first: all methods agree to 1e-9 relative (the largest
deviation is printed).

Then Fig. 11 (forward dynamics against the number of links, geared and belt chains, n = 2
… 24) and Fig. 13 (inverse OSIM of the belt chain), with fitted log-log slopes.

Run: ``python benchmarks/bench_seed004.py`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import baselines as BL  # noqa: E402
from _timing import slope  # noqa: E402
from bench_clusters import Case  # noqa: E402

from geomech.multibody._kernels.cluster import dynamics as CK  # noqa: E402
from geomech.multibody._kernels.cluster.compiled import cluster_layout  # noqa: E402
from geomech.multibody._kernels.tree import dynamics as KD  # noqa: E402
from geomech.multibody.io import robots as R  # noqa: E402

#: the paper's Tables II–IV (% change of the baseline's time relative to the cluster algorithm)
PAPER = {
    "Projected RNEA": (38.0, 37.8, 36.7, 35.9, 22.4, 36.6),
    "Approximate RNEA": (-40.3, -36.2, -41.0, -42.0, -59.6, -37.7),
    "Projection ABA": (86.8, 73.5, 21.0, 32.5, 22.2, 87.3),
    "Lagrange ABA": (133.1, 119.8, 76.3, 106.2, 82.7, 212.8),
    "Approximate ABA": (-34.1, -34.6, -35.3, -38.6, -49.4, -38.4),
    "Projected EFPA": (51.8, 6.3, 19.0, 23.2, 7.80, 107.4),
    "Approximate EFPA": (-35.7, -52.1, -28.6, -37.4, -51.4, -22.54),
}
COLUMNS = ("GT chain", "PBT chain", "Mini Cheetah", "MIT Humanoid", "Tello", "JVRC-1")
TOL = 1e-9


def robot_set():
    """(column, builder, end-effector bodies) of the paper's robots that geomech builds."""
    legs = ["FR_shank", "FL_shank", "HR_shank", "HL_shank"]
    return [
        ("GT chain", lambda: R.geared_chain(12), ["link12"]),
        ("PBT chain", lambda: R.belt_chain(12), ["link12"]),
        ("Mini Cheetah", R.mini_cheetah, legs),
        ("MIT Humanoid", R.mit_humanoid, ["l_foot", "r_foot", "l_forearm", "r_forearm"]),
        ("Tello", R.tello, ["left_foot", "right_foot", "left_elbow", "right_elbow"]),
        ("JVRC-1", R.jvrc1_geared, ["L_ANKLE_P_S", "R_ANKLE_P_S", "L_WRIST_Y_S", "R_WRIST_Y_S"]),
    ]


def tello_approximate(model):
    r"""Tello's approximate model: the tree of its links, the rotors merged into their
    carriers, the massless linkages dropped, and as joint armature the diagonal of the
    rotors' reflected inertia at the reference configuration,
    :math:`k_{a,j} = \sum_r J_{rj}^2 I^{\rm rot}_r` with :math:`J = \partial q_{\rm rotor} /
    \partial q_{\rm link}` (:math:`N` for a geared joint, the inverse of the link rows of
    :math:`G` in a differential: seed 004 eq. (5), grbda's ``DIAGONAL`` approximation).
    """
    from geomech.multibody.model.tree import MultibodyModel
    from geomech.spatial import plucker_from_pose

    st = model.spanning_tree
    G, _ = model.constraint_matrices(model.neutral(), np.zeros(model.nv))
    ends = ("torso", "hip_clamp", "gimbal", "thigh", "shin", "foot", "_ry", "_rx", "_rz", "elbow")
    keep = {n for n in st.body_names if n.endswith(ends)}
    links = [st.joint_names[st.body_index(n)] for n in st.body_names if n in keep]
    cols = [st.v_slices[st.joint_names.index(j)].start for j in links[1:]]  # 1-DoF links
    graph = st.graph.copy()
    graph.remove_edges_from([(u, w) for u, w, d in graph.edges(data=True)
                             if d.get("kind", "joint") != "joint"])  # fmt: skip
    armature = np.zeros(len(cols))
    for r, name in enumerate(st.body_names):
        if name in keep or not np.any(st.inertias[r]):
            continue  # links, and the massless cranks, yokes, rods and idlers
        rows = G[[st.v_slices[r].start] + cols]  # the rotor's and the links' speeds
        J = np.linalg.lstsq(rows[1:].T, rows[0], rcond=None)[0]  # rotor = J · links
        joint = st.joints[r]
        Phi = joint.motion_subspace(joint.neutral())[:, 0]
        armature += J**2 * float(Phi @ st.inertias[r] @ Phi)
        p = st.nodes[int(st.parent[r])]  # the rotor's mass rides on its carrier
        X = plucker_from_pose(st.placements[r] @ joint.pose(joint.neutral()))
        graph.nodes[p]["inertia"] = graph.nodes[p]["inertia"] + X.T @ st.inertias[r] @ X
    graph.remove_nodes_from(n for n in st.body_names if n not in keep)
    for j, k in zip(links[1:], armature, strict=True):
        u, w = next((u, w) for u, w, d in graph.edges(data=True) if d.get("name") == j)
        graph.edges[u, w].pop("independent", None)
        graph.edges[u, w]["armature"] = float(k)
    graph.graph["name"] = "tello_approximate"
    return MultibodyModel(graph, gravity=model.gravity)


def approximate_model():
    """The paper's approximate (reflected-inertia) model, when geomech has one, else None."""
    try:
        from geomech.multibody.closed.transmission import approximate_transmission_model
    except ImportError:
        return None
    return approximate_transmission_model


class Approximate:
    """The approximate model's compiled calls on the states of a :class:`Case`: the tree
    RNEA and ABA (joint armature :math:`\\mathrm{diag}(N^2 I^{\rm rot})`) and the EFPA of the
    independent tree (the cluster kernel on a tree, armature in :math:`D_i`).
    """

    def __init__(self, case, ee, make):
        model = case.model
        st = model.spanning_tree
        tree = make(model)
        Q, V = case.QV
        idx = np.concatenate([np.arange(st.q_slices[st.joint_names.index(nm)].start,
                                        st.q_slices[st.joint_names.index(nm)].stop)
                              for nm in tree.joint_names])  # fmt: skip
        Qt = np.ascontiguousarray(Q[:, idx])
        cm = tree.compiled
        S, S_ring, T_user = cm.joint_arrays(Qt)
        B = Q.shape[0]
        TAU = np.ascontiguousarray(case.c_aba[-6])
        A = np.ascontiguousarray(case.c_rnea[-6])
        self.out, self.status = np.empty((B, tree.nv)), np.empty(B, dtype=np.int64)
        F = np.zeros((1, 0, 6))
        self.rnea = (*cm.arrays(), S, S_ring, T_user, Qt, V, A, cm.a0, F, self.out, self.status)
        self.aba = (*cm.arrays(), S, S_ring, T_user, Qt, V, TAU, cm.a0, F, self.out, self.status)
        lay = cluster_layout(tree)
        Gc, _ = lay.constraint_arrays(Qt)
        e = np.array([tree.body_index(b) for b in ee], dtype=np.int64)
        W = np.empty((B, 6 * e.size, 6 * e.size))
        self.efpa = (*cm.arrays(), lay.cbody, lay.cclus, lay.yidx, S, S_ring, T_user, Gc, Qt, e,
                     W, self.status)  # fmt: skip


#: the clock of :func:`rounds_of`: wall time, or (``--clock thread``) the thread's CPU time,
#: which leaves out the time the process waits for a core on a machine shared with others
CLOCK = {"wall": time.perf_counter, "thread": time.thread_time}
clock = CLOCK["wall"]


def _per_call(fun, n):
    t0 = clock()
    for _ in range(n):
        fun()
    return (clock() - t0) / n


def rounds_of(fa, fb, rounds, block=0.01):
    """Interleaved per-call times (two arrays over the rounds) of ``fa`` and ``fb``."""
    fa(), fb()
    na, nb = (max(1, int(block / max(_per_call(f, 1), 1e-7))) for f in (fa, fb))
    ta, tb = [], []
    for _ in range(rounds):
        ta.append(_per_call(fa, na))
        tb.append(_per_call(fb, nb))
    return np.array(ta), np.array(tb)


def rel(a, b):
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


def check(case):
    """Run every contender once; the largest relative deviation from the cluster results."""
    CK.c_rnea_batch(*case.c_rnea)
    BL.projected_rnea_batch(*case.p_rnea)
    worst = {"RNEA": rel(case.tau_ref, case.tau)}
    CK.c_aba_batch(*case.c_aba)
    BL.projection_aba_batch(*case.proj)
    worst["ABA projection"] = rel(case.ref, case.out)
    BL.lagrange_aba_batch(*case.lag)
    worst["ABA Lagrange"] = rel(case.ref, case.out)
    CK.c_efpa_batch(*case.c_efpa)
    BL.projection_iosim_batch(*case.p_iosim)
    worst["EFPA"] = rel(case.W2, case.W1)
    assert np.all(case.status == 0)
    bad = {k: v for k, v in worst.items() if not v <= TOL}
    assert not bad, f"methods disagree beyond {TOL:g}: {bad}"
    return worst


def contenders(case):
    """(row, cluster call, baseline call) of Tables II–IV."""
    return [
        ("Projected RNEA", lambda: CK.c_rnea_batch(*case.c_rnea),
         lambda: BL.projected_rnea_batch(*case.p_rnea)),
        ("Projection ABA", lambda: CK.c_aba_batch(*case.c_aba),
         lambda: BL.projection_aba_batch(*case.proj)),
        ("Lagrange ABA", lambda: CK.c_aba_batch(*case.c_aba),
         lambda: BL.lagrange_aba_batch(*case.lag)),
        ("Projected EFPA", lambda: CK.c_efpa_batch(*case.c_efpa),
         lambda: BL.projection_iosim_batch(*case.p_iosim)),
    ]  # fmt: skip


def measure(build, ee, B, rounds, rng):
    """{row: (cluster s/state, baseline s/state, % median, % min, % max, % fastest)}, check."""
    model = build()
    case = Case(model, 0, B, rng, ee=ee)
    worst = check(case)
    out = {}
    rows = contenders(case)
    make = tello_approximate if model.graph.graph.get("name") == "tello" else approximate_model()
    if make is not None:
        ap = Approximate(case, ee, make)
        rows += [
            ("Approximate RNEA", lambda: CK.c_rnea_batch(*case.c_rnea),
             lambda: KD.rnea_batch(*ap.rnea)),
            ("Approximate ABA", lambda: CK.c_aba_batch(*case.c_aba),
             lambda: KD.aba_batch(*ap.aba)),
            ("Approximate EFPA", lambda: CK.c_efpa_batch(*case.c_efpa),
             lambda: CK.c_efpa_batch(*ap.efpa)),
        ]  # fmt: skip
    for row, fc, fb in rows:
        tc, tb = rounds_of(fc, fb, rounds)
        pct = 100.0 * (tb / tc - 1.0)
        fast = 100.0 * (tb.min() / tc.min() - 1.0)  # the fastest rounds: uncontended estimate
        out[row] = (np.median(tc) / B, np.median(tb) / B, np.median(pct), pct.min(), pct.max(),
                    fast)  # fmt: skip
    return model, out, worst


def print_table(title, rows, results, columns):
    print(f"\n{title}: % change of the baseline's time relative to the cluster algorithm")
    print("  (measured median [min, max] over the rounds | paper)")
    width = 25
    print("  " + "method".ljust(18) + "".join(c.rjust(width) for c in columns))
    for row in rows:
        cells = []
        for j, col in enumerate(columns):
            paper = PAPER[row][COLUMNS.index(col)]
            if row not in results.get(col, {row: None}):
                cell = "n/a (pending)"
            elif col not in results:
                cell = "n/a"
            else:
                _, _, med, lo, hi, _ = results[col][row]
                cell = f"{med:+6.0f} [{lo:+4.0f},{hi:+4.0f}]"
            cells.append(f"{cell} | {paper:+6.1f}".rjust(width))
            del j
        print("  " + row.ljust(18) + "".join(cells))
        if any(row in results.get(c, {}) for c in columns):
            fast = [f"{results[c][row][5]:+6.0f}" if c in results else "n/a" for c in columns]
            print("  " + "  fastest rounds".ljust(18) + "".join(f"{f:>13s}".ljust(width)
                                                              for f in fast))  # fmt: skip


def tables(B, rounds, rng, label):
    results, times = {}, {}
    for col, build, ee in robot_set():
        model, out, worst = measure(build, ee, B, rounds, rng)
        results[col] = out
        times[col] = (model, out, worst)
        dev = max(worst.values())
        print(
            f"  {col:13s} bodies {model.n_bodies:3d}, clusters {len(model.clusters):3d}, "
            f"nv {model.nv:3d}: all methods agree to {dev:.1e} (relative) on {B} states; "
            + ", ".join(
                f"{r.split()[-1]} {1e6 * v[0]:.1f}/{1e6 * v[1]:.1f} us" for r, v in out.items()
            ),  # fmt: skip
            flush=True,
        )
    cols = list(COLUMNS)
    print(f"\n=== {label} ===")
    print_table("Table II (RNEA)", ["Approximate RNEA", "Projected RNEA"], results, cols)
    print_table(
        "Table III (forward dynamics)",
        ["Approximate ABA", "Projection ABA", "Lagrange ABA"],
        results,
        cols,
    )
    print_table("Table IV (inverse OSIM)", ["Approximate EFPA", "Projected EFPA"], results, cols)
    return results


def scaling(sizes, B, rounds, rng):
    """Fig. 11 (FD) and Fig. 13 (inverse OSIM of the belt chain) against the number of links."""
    for name, build in (("geared", R.geared_chain), ("belt", R.belt_chain)):
        rows = []
        print(f"\nFig. 11 ({name} chain): forward dynamics per state (batches of {B}, fastest "
              "of the interleaved rounds)")  # fmt: skip
        for n in sizes:
            case = Case(build(n, rng), n, B, rng, ee=[f"link{n}"])
            check(case)
            tc, tp = rounds_of(lambda c=case: CK.c_aba_batch(*c.c_aba),
                               lambda c=case: BL.projection_aba_batch(*c.proj), rounds)  # fmt: skip
            tc2, tl = rounds_of(lambda c=case: CK.c_aba_batch(*c.c_aba),
                                lambda c=case: BL.lagrange_aba_batch(*c.lag), rounds)  # fmt: skip
            te, tpe = rounds_of(lambda c=case: CK.c_efpa_batch(*c.c_efpa),
                                lambda c=case: BL.projection_iosim_batch(*c.p_iosim),
                                rounds)  # fmt: skip
            r = [np.min(x) / B for x in (np.r_[tc, tc2], tp, tl, te, tpe)]  # fastest rounds
            rows.append((n, *r))
            print(
                f"  n={n:3d}: C-ABA {1e6 * r[0]:7.2f} us, projection {1e6 * r[1]:7.2f} us "
                f"({100 * (r[1] / r[0] - 1):+5.0f}%), Lagrange {1e6 * r[2]:7.2f} us "
                f"({100 * (r[2] / r[0] - 1):+5.0f}%)"
                + (
                    f" | C-EFPA {1e6 * r[3]:7.2f} us, projected OSIM {1e6 * r[4]:7.2f} us "
                    f"({100 * (r[4] / r[3] - 1):+5.0f}%)"
                    if name == "belt"
                    else ""
                ),  # fmt: skip
                flush=True,
            )
        a = np.array(rows)
        names = ["C-ABA", "projection", "Lagrange"]
        for lo in (0, len(a) // 2) if len(a) >= 6 else (0,):
            what = "all sizes" if lo == 0 else f"n >= {int(a[lo, 0])}"
            print(
                f"  slopes of log time vs log n ({what}): "
                + ", ".join(
                    f"{nm} {slope(a[lo:, 0], a[lo:, 1 + i]):.2f}" for i, nm in enumerate(names)
                )  # fmt: skip
                + (
                    f" | Fig. 13: C-EFPA {slope(a[lo:, 0], a[lo:, 4]):.2f}, projected OSIM "
                    f"{slope(a[lo:, 0], a[lo:, 5]):.2f}"
                    if name == "belt"
                    else ""
                )
            )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small batches, few rounds")
    parser.add_argument("--clock", choices=sorted(CLOCK), default="wall",
                        help="wall time, or the thread's CPU time (a loaded machine)")  # fmt: skip
    args = parser.parse_args(argv)
    global clock
    clock = CLOCK[args.clock]
    print(f"clock: {args.clock}")
    rng = np.random.default_rng(2023)
    if args.quick:
        B, rounds, sizes, Bs = 8, 3, [2, 4], 8
    else:
        B, rounds, sizes, Bs = 1000, 9, [2, 4, 6, 8, 12, 16, 20, 24], 200
    print(f"Per state in batches of {B}:")
    tables(B, rounds, rng, f"per state, batches of {B}")
    print("\nSingle calls (one state per kernel call):")
    tables(1, 3 * rounds, rng, "single calls")
    scaling(sizes, Bs, 2 * rounds + 3, rng)


if __name__ == "__main__":
    main()
