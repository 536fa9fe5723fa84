"""Derivatives of the dynamics: geomech (IDSVA, seed 002) vs Pinocchio, finite differences, CasADi.

Prints

1. **first order** — ``rnea_derivatives`` vs ``pin.computeRNEADerivatives`` and
   ``aba_derivatives`` vs ``pin.computeABADerivatives``: one call with one state, and one
   geomech call on 1000 states vs a loop of 1000 Pinocchio calls (per state);
2. **second order on the humanoid** (nv = 30) — ``rnea_second_derivatives`` (dense and
   block-sparse) vs the route a Python user has today: central differences of Pinocchio's
   first order along ``pin.integrate``, 2·nv calls (perturbing q: ∂²τ/∂q², ∂M/∂q) and 4·nv
   calls (q and v: all four tensors);
3. **AD** — CasADi (optional, ``pip install casadi``): the SO partials of a symbolic RNEA of
   revolute chains (seed 002 Fig. 3's setting, since CasADi does not know Lie groups),
   evaluated by CasADi's virtual machine, vs IDSVA SO on the same chains. A complex-step
   route is not available: Pinocchio's Python binding and the numba kernels are real-only;
4. **scaling** — time of RNEA, IDSVA FO and IDSVA SO on serial chains (d = N) and binary
   trees (d = log₂(N+1)) of 8–128 bodies, per state in a batch, with the fitted slopes of
   log t against log N and against log(N d²) (the paper's O(Nd²));
   Then (4b) one call of the block-sparse SO and of the block-sparse Christoffel symbols
   on chains and binary trees of N = 64, 128, 256 with the slopes over that range (issue
   28's targets: <= 3.2 on chains, <= 2.3 on binary trees) and the bytes of the outputs;
5. **relative cost** RNEA : IDSVA FO : IDSVA SO per model, per state in a batch of 200
   (the form of the paper's Fig. 4).

Every comparison is interleaved in the same process and reported as the median over rounds
(``_timing.interleaved``); results are checked to agree before timing. Targets (issue 16):
first order ≤ 1.5× Pinocchio single and batched; second order ≤ 0.25× the finite
differences of Pinocchio's first order on the humanoid.

Run: ``python benchmarks/bench_derivatives.py`` (``--quick`` for a smoke run,
``--only-sparse`` for part 4b alone).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pinocchio as pin

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "multibody"))

from _timing import best_time, interleaved, load_average, slope  # noqa: E402

import geomech as gm  # noqa: E402
from conftest import mixed_tree  # noqa: E402
from geomech.interop.pinocchio import PinocchioBridge  # noqa: E402
from geomech.multibody import robots  # noqa: E402
from geomech.multibody.io.urdf import load_urdf  # noqa: E402

BATCH = 1000
US = 1e6


def _state(model, rng, size=None):
    q = model.random_configuration(rng, size=size)
    shape = () if size is None else (size,)
    return q, rng.normal(size=shape + (model.nv,)), rng.normal(size=shape + (model.nv,))


def _copy(results):
    return [np.array(x) for x in results]


# ----------------------------------------------------------------------------------------
# 1. first order
# ----------------------------------------------------------------------------------------
def first_order(name, model, rng, batch, rounds):
    bridge = PinocchioBridge(model)
    P, pm, pd = bridge.P, bridge.pin_model, bridge.pin_data
    Q, V, A = _state(model, rng, batch)
    TAU = gm.rnea(model, Q, V, A)
    Qp, Vp, Ap, TAUp = (
        bridge.q_to_pin(Q),
        bridge.v_to_pin(V),
        bridge.v_to_pin(A),
        bridge.v_to_pin(TAU),
    )
    q, v, a, tau = Q[0], V[0], A[0], TAU[0]
    qp, vp, ap, taup = Qp[0], Vp[0], Ap[0], TAUp[0]
    ours = gm.rnea_derivatives(model, q, v, a)
    theirs = _copy(pin.computeRNEADerivatives(pm, pd, qp, vp, ap))
    assert np.allclose(ours[0], P.T @ theirs[0] @ P, atol=1e-8)
    ours = gm.aba_derivatives(model, q, v, tau)
    theirs = _copy(pin.computeABADerivatives(pm, pd, qp, vp, taup))
    assert np.allclose(ours[0], P.T @ theirs[0] @ P, rtol=1e-7, atol=1e-7)

    def kept(fun, args, n_out):
        """A Pinocchio loop that keeps its results (each call overwrites the same buffers)."""

        def loop():
            out = np.empty((n_out, batch, model.nv, model.nv))
            for k in range(batch):
                res = fun(pm, pd, *(x[k] for x in args))
                for m in range(n_out):
                    out[m, k] = res[m]
            return out

        return loop

    rows = []
    cases = {
        "rnea_derivatives": (
            lambda: gm.rnea_derivatives(model, q, v, a),
            lambda: pin.computeRNEADerivatives(pm, pd, qp, vp, ap),
            lambda: gm.rnea_derivatives(model, Q, V, A),
            lambda: [pin.computeRNEADerivatives(pm, pd, Qp[k], Vp[k], Ap[k]) for k in range(batch)],
            kept(pin.computeRNEADerivatives, (Qp, Vp, Ap), 2),
        ),
        "aba_derivatives": (
            lambda: gm.aba_derivatives(model, q, v, tau),
            lambda: pin.computeABADerivatives(pm, pd, qp, vp, taup),
            lambda: gm.aba_derivatives(model, Q, V, TAU),
            lambda: [
                pin.computeABADerivatives(pm, pd, Qp[k], Vp[k], TAUp[k]) for k in range(batch)
            ],
            kept(pin.computeABADerivatives, (Qp, Vp, TAUp), 3),
        ),
    }
    for alg, (gm1, pin1, gmB, pinB, pinK) in cases.items():
        t_gm1, t_pin1, r1 = interleaved(gm1, pin1, rounds=rounds)
        r = max(3, rounds // 3)
        t_gmB, t_pinB, rB = interleaved(gmB, pinB, rounds=r, block=0.05)
        _, t_pinK, rK = interleaved(gmB, pinK, rounds=r, block=0.05)
        rows.append(
            (
                name,
                model.nv,
                alg,
                t_gm1,
                t_pin1,
                r1,
                t_gmB / batch,
                t_pinB / batch,
                rB,
                t_pinK / batch,
                rK,
            )
        )
    return rows


# ----------------------------------------------------------------------------------------
# 2. second order vs finite differences of Pinocchio's first order
# ----------------------------------------------------------------------------------------
def fd_pinocchio(pm, pd, qp, vp, ap, h=1e-6, velocity=True):
    """Central differences of pin.computeRNEADerivatives along pin.integrate (all tensors)."""
    nv = pm.nv
    d2q, dM = np.empty((nv, nv, nv)), np.empty((nv, nv, nv))
    d2v, d2qv = np.empty((nv, nv, nv)), np.empty((nv, nv, nv))
    e = np.zeros(nv)
    for k in range(nv):
        e[k] = h
        plus = _copy(pin.computeRNEADerivatives(pm, pd, pin.integrate(pm, qp, e), vp, ap))
        minus = _copy(pin.computeRNEADerivatives(pm, pd, pin.integrate(pm, qp, -e), vp, ap))
        d2q[:, :, k] = (plus[0] - minus[0]) / (2 * h)
        dM[:, :, k] = (plus[2] - minus[2]) / (2 * h)
        if velocity:
            plus = _copy(pin.computeRNEADerivatives(pm, pd, qp, vp + e, ap))
            minus = _copy(pin.computeRNEADerivatives(pm, pd, qp, vp - e, ap))
            d2v[:, :, k] = (plus[1] - minus[1]) / (2 * h)
            d2qv[:, :, k] = (plus[0] - minus[0]) / (2 * h)
        e[k] = 0.0
    return d2q, d2v, d2qv, dM


def second_order_vs_fd(rng, rounds):
    model = robots.humanoid()
    bridge = PinocchioBridge(model)
    P, pm, pd = bridge.P, bridge.pin_model, bridge.pin_data
    q, v, a = _state(model, rng)
    qp, vp, ap = bridge.q_to_pin(q), bridge.v_to_pin(v), bridge.v_to_pin(a)
    ours = gm.rnea_second_derivatives(model, q, v, a)
    ref = fd_pinocchio(pm, pd, qp, vp, ap)
    Pt = P.T
    errs = []
    for T, R in zip(ours, ref, strict=True):
        R = np.einsum("ai,bj,ck,ijk->abc", Pt, Pt, Pt, R)
        errs.append(float(np.max(np.abs(T - R)) / max(1.0, np.max(np.abs(R)))))
    dense = lambda: gm.rnea_second_derivatives(model, q, v, a)  # noqa: E731
    sparse = lambda: gm.rnea_second_derivatives(model, q, v, a, sparse=True)  # noqa: E731
    fd2 = lambda: fd_pinocchio(pm, pd, qp, vp, ap, velocity=False)  # noqa: E731
    fd4 = lambda: fd_pinocchio(pm, pd, qp, vp, ap)  # noqa: E731
    r = max(3, rounds // 2)
    rows = [
        ("dense vs FD, 2 nv calls", *interleaved(dense, fd2, rounds=r, block=0.02)),
        ("dense vs FD, 4 nv calls", *interleaved(dense, fd4, rounds=r, block=0.02)),
        ("sparse vs FD, 2 nv calls", *interleaved(sparse, fd2, rounds=r, block=0.02)),
        ("sparse vs FD, 4 nv calls", *interleaved(sparse, fd4, rounds=r, block=0.02)),
    ]
    Q, V, A = _state(model, rng, 200)
    batch = lambda: gm.rnea_second_derivatives(model, Q, V, A, sparse=True)  # noqa: E731
    rows.append(
        (
            "sparse, batch of 200 / state vs FD 4 nv",
            *(lambda t: (t[0] / 200, t[1], t[0] / 200 / t[1]))(
                interleaved(batch, fd4, rounds=3, block=0.05)
            ),
        )
    )
    return model, errs, rows


# ----------------------------------------------------------------------------------------
# 3. CasADi (optional): AD of a symbolic RNEA of a revolute chain
# ----------------------------------------------------------------------------------------
def casadi_rnea(model):
    """The SO partials of a revolute/prismatic chain's RNEA by CasADi's AD (SX graph)."""
    import casadi as ca

    n = model.nv
    q, v, a = ca.SX.sym("q", n), ca.SX.sym("v", n), ca.SX.sym("a", n)

    def skew(p):
        return ca.vertcat(
            ca.horzcat(0, -p[2], p[1]), ca.horzcat(p[2], 0, -p[0]), ca.horzcat(-p[1], p[0], 0)
        )

    def crm(x):
        w, u = skew(x[:3]), skew(x[3:])
        return ca.vertcat(ca.horzcat(w, ca.SX.zeros(3, 3)), ca.horzcat(u, w))

    vel, acc, force, Xup, S = [], [], [], [], []
    a0 = ca.vertcat(0, 0, 0, *(-model.gravity))
    for i, joint in enumerate(model.joints):
        ax = np.asarray(joint.axis, dtype=float)
        K = skew(ax)
        th = q[i]
        revolute = joint.kind == "revolute"
        Rj = (
            ca.SX.eye(3) + ca.sin(th) * K + (1 - ca.cos(th)) * (K @ K) if revolute else ca.SX.eye(3)
        )
        pj = ca.SX.zeros(3) if revolute else th * ax
        T = model.placements[i]
        R = T[:3, :3] @ Rj  # pose of body i in its parent: placement ∘ joint
        p = T[:3, :3] @ pj + T[:3, 3]
        E = R.T
        X = ca.vertcat(ca.horzcat(E, ca.SX.zeros(3, 3)), ca.horzcat(-E @ skew(p), E))
        s = ca.vertcat(ax, ca.SX.zeros(3)) if revolute else ca.vertcat(ca.SX.zeros(3), ax)
        par = model.parent[i]
        vJ = s * v[i]
        vi = vJ if par < 0 else X @ vel[par] + vJ
        ai = X @ (a0 if par < 0 else acc[par]) + s * a[i] + crm(vi) @ vJ
        Ii = ca.SX(model.inertias[i])
        fi = Ii @ ai - crm(vi).T @ (Ii @ vi)
        vel.append(vi), acc.append(ai), force.append(fi), Xup.append(X), S.append(s)
    tau = [None] * n
    for i in range(n - 1, -1, -1):
        tau[i] = ca.dot(S[i], force[i])
        if model.parent[i] >= 0:
            force[model.parent[i]] = force[model.parent[i]] + Xup[i].T @ force[i]
    tau = ca.vertcat(*tau)
    x = ca.vertcat(q, v)
    J = ca.jacobian(tau, x)  # [dτ/dq, dτ/dv]: AD of the first order (seed 002 §VI)
    Hx = ca.jacobian(ca.vec(J), x)  # (n·2n, 2n)
    dM = ca.jacobian(ca.vec(ca.jacobian(tau, a)), q)
    return ca.Function("so", [q, v, a], [Hx, dM])


def _casadi_row(n, rng, rounds):
    model = robots.serial_chain(n, rng=n)
    t0 = time.perf_counter()
    fun = casadi_rnea(model)
    build = time.perf_counter() - t0
    q, v, a = _state(model, rng)
    Hx, dM = (np.array(x) for x in fun(q, v, a))
    # column-major vec: row c n + r of vec(J) is J[r, c], so Hx -> [τ, x, x]
    H = Hx.reshape(2 * n, n, 2 * n).transpose(1, 0, 2)
    d2 = gm.rnea_second_derivatives(model, q, v, a)
    assert np.allclose(H[:, :n, :n], d2.d2tau_dq2, atol=1e-8)
    assert np.allclose(H[:, n:, n:], d2.d2tau_dv2, atol=1e-8)
    assert np.allclose(H[:, :n, n:], d2.d2tau_dqdv, atol=1e-8)
    assert np.allclose(dM.reshape(n, n, n).transpose(1, 0, 2), d2.dM_dq, atol=1e-8)
    t_gm, t_ad, r = interleaved(
        lambda: gm.rnea_second_derivatives(model, q, v, a), lambda: fun(q, v, a), rounds=rounds
    )
    return n, build, t_gm, t_ad, r


def casadi_comparison(rng, sizes, rounds):
    try:
        import casadi  # noqa: F401
    except ImportError:
        return None
    return [_casadi_row(n, rng, rounds) for n in sizes]


# ----------------------------------------------------------------------------------------
# 4. scaling, 5. relative cost
# ----------------------------------------------------------------------------------------
def per_state(model, rng, batch, rounds=3):
    """Per-state times of RNEA, IDSVA FO, IDSVA SO (block-sparse) in a batch."""
    Q, V, A = _state(model, rng, batch)
    rnea = lambda: gm.rnea(model, Q, V, A)  # noqa: E731
    fo = lambda: gm.rnea_derivatives(model, Q, V, A)  # noqa: E731
    so = lambda: gm.rnea_second_derivatives(model, Q, V, A, sparse=True)  # noqa: E731
    t_rnea, t_fo, _ = interleaved(rnea, fo, rounds=rounds, block=0.02)
    t_so, _, _ = interleaved(so, rnea, rounds=rounds, block=0.02)
    return t_rnea / batch, t_fo / batch, t_so / batch


def scaling(rng, sizes, batch):
    out = {}
    for family, make in (
        ("chain", lambda n: robots.serial_chain(n, rng=0)),
        ("binary tree", lambda n: robots.binary_tree(n, rng=0)),
    ):
        rows = []
        for n in sizes:
            n_b = n if family == "chain" else 2 ** int(np.log2(n + 1)) - 1
            model = make(n_b)
            rows.append((n_b, model.depth, *per_state(model, rng, batch)))
        out[family] = rows
    return out


#: issue 28's targets for the slopes of the block-sparse outputs over N = 64 ... 256
SPARSE_TARGETS = {"chain": 3.2, "binary tree": 2.3}


def _first(fun):
    """The time of one call of ``fun`` (s)."""
    t0 = time.perf_counter()
    fun()
    return time.perf_counter() - t0


def sparse_single(rng, sizes=(64, 128, 256), repeat=5):
    """One call of the block-sparse SO partials and Γ: times, bytes, slopes vs the targets.

    ``first``: the first call at that size, whose output block is fresh memory that the
    system maps page by page as the kernel first writes it (3-4 ns per number on the
    benchmark machine); the best of the repeats that follow reuse the block released by the
    previous call (``blocksparse.output``), as a loop over states does. The best CPU times
    (``time.process_time``) and their slopes follow: on a loaded machine the wall time of a
    long call grows with the load more than that of a short one.
    """
    small = robots.serial_chain(4, rng=0)  # the kernels loaded before the first calls
    gm.rnea_second_derivatives(small, *_state(small, rng), sparse=True)
    gm.christoffel_symbols(small, small.neutral(), sparse=True)
    for family, make in (
        ("chain", lambda n: robots.serial_chain(n, rng=0)),
        ("binary tree", lambda n: robots.binary_tree(n, rng=0)),
    ):
        rows = []
        for n in sizes:
            model = make(n)
            q, v, a = _state(model, rng)

            def so(m=model, q=q, v=v, a=a):
                return gm.rnea_second_derivatives(m, q, v, a, sparse=True)

            ga = lambda m=model, q=q: gm.christoffel_symbols(m, q, sparse=True)  # noqa: E731
            f_so, f_g = _first(so), _first(ga)
            nnz = ga().nnz
            t_so, t_g = best_time(so, repeat), best_time(ga, repeat)
            cpu = [best_time(f, repeat, clock=time.process_time) for f in (so, ga)]
            rows.append((n, model.depth, t_so, t_g, nnz, f_so, f_g, *cpu))
        print(
            f"   {family}:  N    d   SO sparse (ms)  Γ sparse (ms)  SO MB (4 tensors)  dense MB"
            "  first call SO, Γ (ms)"
        )
        for n, d, ts, tg, nnz, fs, fg, *_ in rows:
            print(
                f"   {'':<{len(family)}} {n:>3} {d:>4} {ts * 1e3:>15.3f} {tg * 1e3:>14.3f} "
                f"{4 * nnz * 8 / 1e6:>18.1f} {4 * n**3 * 8 / 1e6:>9.1f} "
                f"{fs * 1e3:>12.1f}, {fg * 1e3:.1f}"
            )
        N = np.array([r[0] for r in rows], float)
        d = np.array([r[1] for r in rows], float)
        t_so = np.array([r[2] for r in rows])
        t_g = np.array([r[3] for r in rows])
        f_so = np.array([r[5] for r in rows])
        f_g = np.array([r[6] for r in rows])
        target = SPARSE_TARGETS[family]
        print(
            f"   {family}: slope vs N over N = {sizes[0]}..{sizes[-1]}: SO sparse "
            f"{slope(N, t_so):.2f}, Γ sparse {slope(N, t_g):.2f} (target <= {target}); first "
            f"calls: SO {slope(N, f_so):.2f}, Γ {slope(N, f_g):.2f}; vs N d^2: "
            f"SO {slope(N * d**2, t_so):.2f}, Γ {slope(N * d**2, t_g):.2f}",
            flush=True,
        )
        c_so = np.array([r[7] for r in rows])
        c_g = np.array([r[8] for r in rows])
        print(
            f"   {family}: CPU time (best of {repeat}): SO "
            + ", ".join(f"{t * 1e3:.3f}" for t in c_so)
            + " ms, Γ "
            + ", ".join(f"{t * 1e3:.3f}" for t in c_g)
            + f" ms; slopes SO {slope(N, c_so):.2f}, Γ {slope(N, c_g):.2f}",
            flush=True,
        )


def relative_cost(rng, batch):
    models = {
        "ur5 (fixed)": load_urdf(str(robots.urdf_path("ur5"))),
        "quadruped (float)": robots.quadruped(),
        "humanoid (float)": robots.humanoid(),
        "jvrc1 (float)": load_urdf(str(robots.urdf_path("jvrc1")), floating_base=True),
        "mixed-64 (float)": mixed_tree(64, np.random.default_rng(64), floating_base=True),
    }
    rows = []
    for name, model in models.items():
        t = per_state(model, rng, batch)
        rows.append((name, model.n_bodies, model.nv, model.depth, *t))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--only-sparse", action="store_true", help="part 4b alone")
    args = parser.parse_args(argv)
    quick = args.quick
    rng = np.random.default_rng(0)
    if args.only_sparse:
        print(f"4b. One call, block-sparse outputs (best of repeats); {load_average()}")
        sparse_single(rng, (16, 32, 64) if quick else (64, 128, 256))
        print(f"   {load_average()}")
        return
    batch = 100 if quick else BATCH
    rounds = 5 if quick else 15
    t_start = time.perf_counter()
    print(
        f"geomech derivatives vs Pinocchio {pin.__version__}, numpy {np.__version__}; "
        "times in microseconds, medians of interleaved rounds"
    )

    print(
        "\n1. First order: one call | per state in one call on "
        f"{batch} states vs a loop of {batch} Pinocchio calls  (target: ratio <= 1.5)"
    )
    print(
        "   'pin loop' returns views of Pinocchio's data buffers, overwritten by the next call;"
        " 'pin kept' copies them out, as a batch user must"
    )
    head = (
        f"{'model':<12} {'nv':>3} {'function':<17} {'gm single':>10} {'pin single':>10} "
        f"{'ratio':>6} {'gm batch':>9} {'pin loop':>9} {'ratio':>6} {'pin kept':>9} "
        f"{'ratio':>6}"
    )
    print(head)
    print("-" * len(head))
    models = [
        ("humanoid", robots.humanoid()),
        ("mixed-64", mixed_tree(64, np.random.default_rng(64), floating_base=True)),
    ]
    if not quick:
        models.append(("chain-32", robots.serial_chain(32, rng=0)))
    for name, model in models:
        for row in first_order(name, model, rng, batch, rounds):
            n, nv, alg, t1, p1, r1, tB, pB, rB, pK, rK = row
            print(
                f"{n:<12} {nv:>3} {alg:<17} {t1 * US:>10.1f} {p1 * US:>10.1f} {r1:>6.2f} "
                f"{tB * US:>9.1f} {pB * US:>9.1f} {rB:>6.2f} {pK * US:>9.1f} {rK:>6.2f}",
                flush=True,
            )

    print(
        "\n2. Second order on the humanoid vs central differences of "
        "pin.computeRNEADerivatives  (target: ratio <= 0.25)"
    )
    model, errs, rows = second_order_vs_fd(rng, rounds)
    print(
        "   agreement with the 4 nv-call differences (max rel. error per tensor): "
        + ", ".join(f"{e:.1e}" for e in errs)
    )
    for label, t_gm, t_fd, r in rows:
        print(f"   {label:<40} gm {t_gm * US:>8.1f}   FD {t_fd * US:>8.1f}   ratio {r:.3f}")

    print(
        "\n3. AD: CasADi (SX, virtual machine) SO partials of a revolute chain's RNEA vs IDSVA SO"
    )
    ad = casadi_comparison(rng, [4, 8] if quick else [4, 8, 16, 24], rounds)
    if ad is None:
        print("   casadi is not installed (pip install casadi): skipped")
    else:
        print(f"   {'N':>3} {'build (s)':>10} {'gm SO':>9} {'CasADi':>10} {'ratio':>7}")
        for n, build, t_gm, t_ad, r in ad:
            print(
                f"   {n:>3} {build:>10.2f} {t_gm * US:>9.1f} {t_ad * US:>10.1f} {r:>7.3f}",
                flush=True,
            )
    print("   complex step: not available (Pinocchio's binding and the kernels are real-only)")

    print("\n4. Scaling, per state in a batch (block-sparse SO): fitted slopes of log t")
    sizes = [8, 16, 32] if quick else [8, 16, 32, 64, 128]
    sc = scaling(rng, sizes, 20 if quick else 50)
    for family, rows in sc.items():
        print(f"   {family}:  N    d   RNEA    FO      SO")
        for n, d, tr, tf, ts in rows:
            print(
                f"   {'':<{len(family)}} {n:>3} {d:>4} {tr * US:>6.1f} {tf * US:>7.1f} "
                f"{ts * US:>9.1f}"
            )
        N = np.array([r[0] for r in rows], float)
        d = np.array([r[1] for r in rows], float)
        ts = np.array([r[4] for r in rows])
        tf = np.array([r[3] for r in rows])
        print(
            f"   {family}: slope of SO vs N {slope(N, ts):.2f}, vs N d^2 "
            f"{slope(N * d**2, ts):.2f}; FO vs N {slope(N, tf):.2f}, vs N d "
            f"{slope(N * d, tf):.2f}"
        )
    print("\n4b. One call, block-sparse outputs (best of repeats)")
    sparse_single(rng, (16, 32, 64) if quick else (64, 128, 256))

    print(
        "\n5. Relative cost RNEA : IDSVA FO : IDSVA SO (per state in a batch of 200; "
        "cf. seed 002 Fig. 4)"
    )
    print(f"   {'model':<18} {'N':>3} {'nv':>3} {'d':>3} {'RNEA':>7} {'FO':>7} {'SO':>8}   ratios")
    for name, N, nv, d, tr, tf, ts in relative_cost(rng, 50 if quick else 200):
        print(
            f"   {name:<18} {N:>3} {nv:>3} {d:>3} {tr * US:>7.2f} {tf * US:>7.2f} "
            f"{ts * US:>8.1f}   1 : {tf / tr:.1f} : {ts / tr:.0f}",
            flush=True,
        )
    print(f"\ntotal benchmark time {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":
    main()
