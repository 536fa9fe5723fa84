"""The compiled-kernel layer: primitives against dense references, statuses, batches, cache."""

import os
import pickle
import signal
import subprocess
import sys
import warnings

import networkx as nx
import numpy as np
import pytest
from numba import njit

import geomech as gm
from geomech.errors import DimensionError, NonFiniteError, NotOnManifoldError
from geomech.interop.pinocchio import PinocchioBridge
from geomech.lie import SO3
from geomech.multibody import (
    Fixed,
    FreeFlyer,
    Helical,
    Planar,
    Prismatic,
    Revolute,
    SchoenfliesJoint,
    Spherical,
    robots,
)
from geomech.multibody._kernels import driver
from geomech.multibody._kernels import joints as KJ
from geomech.multibody._kernels import spatial as KS
from geomech.multibody._kernels import status as KST
from geomech.multibody._kernels.compiled import joint_code
from geomech.multibody._kernels.tables import IQ, JTYPE
from geomech.multibody._kernels.tree.kinematics import tree_transforms
from geomech.multibody._kernels.views import (
    STACK,
    STACK_LARGE,
    borrow,
    frame,
    frame_large,
    release,
    release_large,
    view,
)
from geomech.spatial import crf, crm, plucker, spatial_inertia

JOINTS = {
    "revolute": lambda rng: Revolute(rng.normal(size=3)),
    "prismatic": lambda rng: Prismatic(rng.normal(size=3)),
    "helical": lambda rng: Helical(rng.normal(size=3), pitch=rng.uniform(-0.5, 0.5)),
    "spherical": lambda rng: Spherical(),
    "planar": lambda rng: Planar(),
    "schoenflies": lambda rng: SchoenfliesJoint(),
    "free_flyer": lambda rng: FreeFlyer(),
}


def _transform(rng):
    return SO3.random(rng), rng.normal(size=3)


# ---- spatial primitives against the dense 6x6 algebra of geomech.spatial ------------------


def test_motion_and_force_primitives_match_dense_matrices(rng):
    for _ in range(5):
        E, r = _transform(rng)
        X = plucker(E, r)
        m, f = rng.normal(size=6), rng.normal(size=6)
        out = np.zeros(6)
        KS.transform_motion(E, r, m, out)
        np.testing.assert_allclose(out, X @ m, atol=1e-14)
        KS.transform_motion_transpose(E, r, m, out)
        np.testing.assert_allclose(out, np.linalg.solve(X, m), atol=1e-13)
        out[:] = 1.0
        KS.transform_force_transpose(E, r, f, out)
        np.testing.assert_allclose(out, 1.0 + X.T @ f, atol=1e-14)
        KS.force_to_parent(E, r, f, out, False)
        np.testing.assert_allclose(out, X.T @ f, atol=1e-14)
        out[:] = 0.5
        KS.cross_motion(m, f, out)
        np.testing.assert_allclose(out, 0.5 + crm(m) @ f, atol=1e-14)
        out[:] = 0.5
        KS.cross_force(m, f, out)
        np.testing.assert_allclose(out, 0.5 + crf(m) @ f, atol=1e-14)


def test_congruences_match_dense_matrices(rng):
    for _ in range(5):
        E, r = _transform(rng)
        X = plucker(E, r)
        M = rng.normal(size=(6, 6))
        out = np.ones((6, 6))
        KS.congruence(E, r, M, np.empty((6, 6)), out)
        np.testing.assert_allclose(out, 1.0 + X.T @ M @ X, atol=1e-12)
        M = M + M.T
        out = np.ones((6, 6))
        KS.congruence_sym(E, r, M, np.empty((4, 3, 3)), out)
        np.testing.assert_allclose(out, 1.0 + X.T @ M @ X, atol=1e-12)
        I = spatial_inertia(
            rng.uniform(0.1, 3), rng.normal(size=3), np.diag(rng.uniform(0.1, 1, 3))
        )  # noqa: E741
        out = np.ones((6, 6))
        KS.inertia_congruence(E, r, I, out)
        np.testing.assert_allclose(out, 1.0 + X.T @ I @ X, atol=1e-12)
        v = rng.normal(size=6)
        KS.inertia_times(I, v, out[0])
        np.testing.assert_allclose(out[0], I @ v, atol=1e-14)


def test_inertia_matrix_and_trace_about_a_point_match_dense_matrices(rng):
    for _ in range(5):
        I = spatial_inertia(
            rng.uniform(0.1, 3), rng.normal(size=3), np.diag(rng.uniform(0.1, 1, 3))
        )  # noqa: E741
        p, out = np.empty(10), np.empty((6, 6))
        KS.inertia_params(I, p)
        KS.inertia_params_matrix(p, out)
        np.testing.assert_allclose(out, I, rtol=0, atol=1e-15)
        # an articulated inertia (any symmetric PSD matrix) about the point c: X(c)^{-T} M X(c)^{-1}
        A = rng.normal(size=(6, 6))
        M, c = A @ A.T, rng.normal(size=3)
        Xc = plucker(np.eye(3), c)  # coordinates at c, same axes
        Xi = np.linalg.inv(Xc)
        np.testing.assert_allclose(KS.trace_about(M, c), np.trace(Xi.T @ M @ Xi), rtol=1e-13)
        # only the upper triangle is read: poison the strict lower one
        M_up = np.triu(M) + np.tril(np.full((6, 6), np.nan), -1)
        np.testing.assert_allclose(KS.trace_about(M_up, c), np.trace(Xi.T @ M @ Xi), rtol=1e-13)


def test_sym_matvec6_reads_the_upper_triangle_of_a_symmetric_matrix(rng):
    for _ in range(5):
        A = rng.normal(size=(6, 6))
        M, x, out = A @ A.T, rng.normal(size=6), np.empty(6)
        KS.sym_matvec6(np.triu(M) + np.tril(np.full((6, 6), np.nan), -1), x, out)
        np.testing.assert_allclose(out, M @ x, rtol=1e-13, atol=1e-13)


def test_cholesky_and_its_inverse_match_numpy(rng):
    from geomech.multibody._kernels.linalg import cholesky, cholesky_inverse

    for d in range(1, 7):
        A = rng.normal(size=(d, d))
        D = A @ A.T + 0.1 * np.eye(d)
        L = np.zeros((6, 6))  # a larger work array: only the leading d x d block is used
        assert cholesky(D, d, np.trace(D), L)
        np.testing.assert_allclose(np.tril(L[:d, :d]), np.linalg.cholesky(D), rtol=0, atol=1e-12)
        Dinv = np.zeros((6, 6))
        assert cholesky_inverse(D, d, np.trace(D), Dinv, L)
        np.testing.assert_allclose(Dinv[:d, :d], np.linalg.inv(D), rtol=1e-10, atol=1e-10)
        D[-1, :] = D[:, -1] = 0.0  # a zero pivot (relative to the scale) is refused
        assert not cholesky(D, d, np.trace(A @ A.T) + 1.0, L)


def test_body_force_is_the_newton_euler_force(rng):
    """f = I a + (v ×*) I v (Featherstone 2008, eq. 5.9), with the dense I and ×* of
    geomech.spatial.
    """
    for _ in range(5):
        R = SO3.random(rng)
        I = spatial_inertia(
            rng.uniform(0.1, 3),
            rng.normal(size=3),  # noqa: E741
            R @ np.diag(rng.uniform(0.1, 1, 3)) @ R.T,
        )
        v, a, out = rng.normal(size=6), rng.normal(size=6), np.empty(6)
        KS.body_force(I, v, a, out)
        np.testing.assert_allclose(out, I @ a + crf(v) @ I @ v, atol=1e-13)


@pytest.mark.parametrize("kind", list(JOINTS))
def test_joint_kernels_match_the_joint_classes(kind, rng):
    """Poses, q ⊕ v and q1 ⊖ q0 of the kernels equal the joints' numpy methods."""
    joint = JOINTS[kind](rng)
    code = joint_code(joint)
    param = np.zeros(25)
    if hasattr(joint, "axis"):
        param[:3], param[3] = joint.axis, getattr(joint, "pitch", 0.0)
    for _ in range(4):
        q, q1 = joint.random_configuration(rng), joint.random_configuration(rng)
        v = rng.normal(size=joint.nv)
        ok, R, p = KJ.joint_pose(code, param, q)
        assert ok
        T = joint.pose(q)
        np.testing.assert_allclose(R, T[:3, :3], atol=1e-14)
        np.testing.assert_allclose(p, T[:3, 3], atol=1e-14)
        out = np.empty(joint.nq)
        KJ.joint_integrate(code, q, v, 0.7, out)
        np.testing.assert_allclose(out, joint.integrate(q, v, 0.7), atol=1e-13)
        dv = np.empty(joint.nv)
        assert KJ.joint_difference(code, q, q1, dv)
        np.testing.assert_allclose(dv, joint.difference(q, q1), atol=1e-12)


class _UserHelical(Helical):
    """A user-defined joint (a subclass is not a built-in type): its pose comes from T_user."""


def _tree_with_every_joint(rng):
    """Each joint type twice and a user joint, random parents and placements."""
    factories = {**JOINTS, "fixed": lambda rng: Fixed()}
    kinds = [*factories, *factories]
    G = nx.DiGraph()
    G.add_node("world")
    inertias = robots.random_inertia(rng, len(kinds) + 1)
    for i, kind in enumerate([*kinds, "user"]):
        parent = "world" if i == 0 else f"b{rng.integers(i)}"
        joint = (
            _UserHelical(rng.normal(size=3), pitch=0.3) if kind == "user" else factories[kind](rng)
        )
        placement = np.eye(4)
        placement[:3, :3], placement[:3, 3] = _transform(rng)
        G.add_node(f"b{i}", inertia=inertias[i])
        G.add_edge(parent, f"b{i}", joint=joint, placement=placement, name=f"j{i}")
    return gm.MultibodyModel(G)


def _tree_transforms(model, q):
    cm = model.compiled
    T_user = cm.joint_arrays(q[None])[2][0]
    E, r = np.empty((model.n_bodies, 3, 3)), np.empty((model.n_bodies, 3))
    status = tree_transforms(
        cm.topo[:-1, JTYPE], cm.topo[:, IQ], cm.placement, cm.jparam, T_user, q, E, r
    )
    return status, E, r


def test_tree_transforms_are_placements_composed_with_the_joint_poses(rng):
    """E[i], r[i] = Plücker pair of placement_i ∘ joint_i.pose(q_i) (the joint classes, numpy)."""
    model = _tree_with_every_joint(rng)
    assert {joint_code(j) for j in model.joints} == set(range(9))  # every code, USER included
    for _ in range(3):
        q = model.random_configuration(rng)
        status, E, r = _tree_transforms(model, q)
        assert status == KST.OK
        for i, joint in enumerate(model.joints):
            T = model.placements[i] @ joint.pose(q[model.q_slices[i]])
            np.testing.assert_allclose(E[i], T[:3, :3].T, atol=1e-14)
            np.testing.assert_allclose(r[i], T[:3, 3], atol=1e-14)


@pytest.mark.parametrize("kind", ["spherical", "free_flyer"])
def test_tree_transforms_renormalise_quaternions_within_the_tolerance(kind, rng):
    model = _tree_with_every_joint(rng)
    i = next(
        i for i, j in enumerate(model.joints) if joint_code(j) == joint_code(JOINTS[kind](rng))
    )
    quat = slice(model.q_slices[i].stop - 4, model.q_slices[i].stop)
    q = model.random_configuration(rng)
    reference = _tree_transforms(model, q)
    q[quat] *= 1.0 + 0.9 * KJ.UNIT_TOL  # renormalised: the same transforms
    status, E, r = _tree_transforms(model, q)
    assert status == KST.OK
    np.testing.assert_allclose(E, reference[1], atol=1e-14)
    np.testing.assert_allclose(r, reference[2], atol=1e-14)
    q[quat] *= 1.0 + 2.0 * KJ.UNIT_TOL  # beyond the tolerance: named with the body
    assert KST.unpack(_tree_transforms(model, q)[0]) == (KST.NOT_ON_MANIFOLD, i)


# compiled helpers of the tests below: at module level and cached (like the kernels), so that
# only a cold cache compiles them
@njit(cache=True)
def _carve(buf, start, n):
    return view(buf, start, (n, 3, 2)), view(buf, start + 6 * n, (n,))


@njit(cache=True)
def _fill(n, buf):  # work views on the stack (small n) or the heap; borrowed views of buf
    work, (x, y) = frame(((n, 3), (2,)))
    for k in range(n):
        for c in range(3):
            x[k, c] = 3.0 * k + c
    y[0], y[1] = -1.0, -2.0
    a, b = borrow(buf, 1, ((n, 3), (2,)))
    a[:, :] = x
    b[:] = y
    result = x.sum() + y.sum()
    release(work)
    return result


def test_views_of_a_work_buffer_are_its_reshaped_slices():
    carve = _carve
    buf = np.arange(40.0)
    blocks, tail = carve(buf, 5, 4)
    np.testing.assert_array_equal(blocks, buf[5:29].reshape(4, 3, 2))
    np.testing.assert_array_equal(tail, buf[29:33])
    assert blocks.flags.c_contiguous and np.shares_memory(blocks, buf)
    blocks[1, 2, 0] = -1.0  # a view: writes reach the buffer
    assert buf[5 + 6 + 4] == -1.0
    with pytest.raises(DimensionError, match="within its length"):
        carve(buf, 5, 6)
    with pytest.raises(DimensionError, match="within its length"):
        carve(buf, -1, 1)


def test_stack_and_borrowed_views_are_the_reshaped_slices():
    fill = _fill
    for n in (1, 7, STACK // 3 + 5):  # the last one does not fit on the stack
        buf = np.zeros(3 * n + 4)
        total = fill(n, buf)
        expected = np.arange(3.0 * n)
        assert total == expected.sum() - 3.0
        np.testing.assert_array_equal(buf[1 : 1 + 3 * n], expected)
        np.testing.assert_array_equal(buf[1 + 3 * n :], [-1.0, -2.0, 0.0])


@njit(_nrt=False)
def _frame_fill(n, large):
    """The sums of frame's views (stack or heap) filled with 3k + c, without numba's runtime."""
    buf, (x, y) = frame_large(((n, 3), (2,))) if large else frame(((n, 3), (2,)))
    for k in range(n):
        for c in range(3):
            x[k, c] = 3.0 * k + c
    y[0], y[1] = -1.0, -2.0
    s = y[0] + y[1]
    for k in range(n):
        for c in range(3):
            s += x[k, c]
    length = buf.shape[0]  # (nothing is read after the release)
    if large:
        release_large(buf)
    else:
        release(buf)
    return s, length


def test_frames_without_the_runtime_are_on_the_stack_or_the_heap():
    for large, limit in ((False, STACK), (True, STACK_LARGE)):
        for n in (1, 7, limit // 3 - 1, limit // 3 + 5, 1000):  # the last two: on the heap
            total, length = _frame_fill(n, large)
            assert total == np.arange(3.0 * n).sum() - 3.0
            assert length == (limit if 3 * n + 2 <= limit else 3 * n + 2)


@pytest.mark.parametrize("n", [3, 40])  # work arrays on the stack, on the heap (frame)
def test_single_states_and_batches_agree_with_pinocchio_on_the_stack_and_heap(n, mixed_tree):
    rng = np.random.default_rng([28, n])
    model = mixed_tree(n, rng, kinds=["revolute", "prismatic", "spherical", "fixed"])
    bridge = PinocchioBridge(model)
    nv = model.nv
    Q = model.random_configuration(rng, size=3)
    V, A = rng.normal(size=(3, nv)), rng.normal(size=(3, nv))
    TAU, H, DV, C = (
        gm.rnea(model, Q, V, A),
        gm.crba(model, Q),
        gm.aba(model, Q, V, A),
        gm.coriolis_matrix(model, Q, V),
    )
    for k in range(3):
        q, v, a = Q[k], V[k], A[k]
        tau = bridge.rnea(q, v, a)
        scale = max(1.0, np.abs(tau).max())
        c_v = bridge.rnea(q, v, np.zeros(nv)) - bridge.rnea(q, np.zeros(nv), np.zeros(nv))
        for tau_k, H_k, dv_k, C_k in (  # the single-state fast path, then the batch's row
            (
                gm.rnea(model, q, v, a),
                gm.crba(model, q),
                gm.aba(model, q, v, a),
                gm.coriolis_matrix(model, q, v),
            ),
            (TAU[k], H[k], DV[k], C[k]),
        ):
            np.testing.assert_allclose(tau_k, tau, rtol=1e-9, atol=1e-9 * scale)
            np.testing.assert_allclose(H_k, bridge.crba(q), rtol=1e-9, atol=1e-9)
            np.testing.assert_allclose(dv_k, bridge.aba(q, v, a), rtol=1e-7, atol=1e-7)
            np.testing.assert_allclose(C_k @ v, c_v, rtol=1e-9, atol=1e-9 * scale)


def _read_only(x):
    y = x.copy()
    y.flags.writeable = False
    return y


def test_single_states_of_any_layout_agree_with_pinocchio_or_are_named(rng):
    """The fast path's vectors are checked in two halves (dtype and dimension in Python,
    length and strides in the kernel): every other input takes the general path."""
    model = robots.load("ur5")
    bridge = PinocchioBridge(model)
    nq, nv = model.nq, model.nv
    q = model.random_configuration(rng)
    v, a = rng.normal(size=nv), rng.normal(size=nv)
    tau = bridge.rnea(q, v, a)
    H = bridge.crba(q)
    layouts = {
        "contiguous": lambda x: x.copy(),
        "strided": lambda x: np.repeat(x, 2)[::2],
        "reversed": lambda x: x[::-1].copy()[::-1],
        "read-only": _read_only,
        "float32": lambda x: x.astype(np.float32),
        "list": lambda x: x.tolist(),
    }
    for name, f in layouts.items():
        tol = 1e-5 if name == "float32" else 1e-9
        qq, vv, aa, tt = f(q), f(v), f(a), f(tau)
        np.testing.assert_allclose(gm.rnea(model, qq, vv, aa), tau, rtol=tol, atol=tol)
        np.testing.assert_allclose(gm.crba(model, qq), H, rtol=tol, atol=tol)
        np.testing.assert_allclose(gm.aba(model, qq, vv, tt), a, rtol=1e3 * tol, atol=1e3 * tol)
        C = gm.coriolis_matrix(model, qq, vv)
        np.testing.assert_allclose(
            C @ v,
            bridge.rnea(q, v, np.zeros(nv)) - bridge.rnea(q, np.zeros(nv), np.zeros(nv)),
            rtol=tol,
            atol=tol,
        )
    for bad in (np.zeros(nq + 1), np.zeros((1, nq))[:, :-1], np.zeros(2 * nq)[::2][:-1]):
        with pytest.raises(DimensionError):
            gm.rnea(model, bad, v, a)
        with pytest.raises(DimensionError):
            gm.crba(model, bad)
        with pytest.raises(DimensionError):
            gm.aba(model, bad, v, tau)
        with pytest.raises(DimensionError):
            gm.coriolis_matrix(model, bad, v)
    with pytest.raises(DimensionError):
        gm.rnea(model, q, np.zeros(nv - 1), a)
    with pytest.raises(DimensionError):  # None is not an empty vector, nor a crash
        gm.rnea(model, q, v, None)
    with pytest.raises(DimensionError):
        gm.coriolis_matrix(model, q, None)
    with pytest.raises(DimensionError):
        gm.aba(model, q, v, np.zeros(nv)[:-1])


# ---- statuses become named errors -------------------------------------------------------------


def test_non_unit_quaternion_is_named():
    model = robots.humanoid()
    q = model.neutral()
    q[3:7] *= 1.1
    with pytest.raises(NotOnManifoldError, match="root_joint"):
        gm.rnea(model, q, np.zeros(model.nv), np.zeros(model.nv))
    with pytest.raises(NotOnManifoldError, match=r"batch element \(1,\)"):
        gm.crba(model, np.stack([model.neutral(), q]))


def test_overflow_is_a_named_error_not_nan():
    model = robots.double_pendulum()
    with pytest.raises(NonFiniteError, match="overflow"):
        gm.rnea(model, [0.1, 0.2], [1e200, 1e200], [0.0, 0.0])
    with pytest.raises(NonFiniteError, match="`v` to be finite"):
        gm.aba(model, [0.1, 0.2], [np.inf, 0.0], [0.0, 0.0])


def test_complex_and_object_inputs_are_refused():
    model = robots.double_pendulum()
    with pytest.raises(DimensionError, match="complex"):
        gm.rnea(model, [0.1 + 1j, 0.2], [0.0, 0.0], [0.0, 0.0])
    with pytest.raises(DimensionError, match="numeric"):
        gm.crba(model, np.array([None, None]))


# ---- batches ----------------------------------------------------------------------------------


def test_partial_broadcasts_equal_the_loop(rng, mixed_tree, random_state):
    model = mixed_tree(8, rng, floating_base=True)
    q, v, a = random_state(model, rng, size=(3, 1))
    v = rng.normal(size=(1, 4, model.nv))
    tau = gm.rnea(model, q, v, a)
    assert tau.shape == (3, 4, model.nv)
    for i in range(3):
        for j in range(4):
            np.testing.assert_allclose(
                tau[i, j], gm.rnea(model, q[i, 0], v[0, j], a[i, 0]), rtol=1e-13, atol=1e-12
            )


def test_threaded_batches_equal_serial_ones(rng, mixed_tree, random_state):
    model = mixed_tree(12, rng, floating_base=True)
    q, v, a = random_state(model, rng, size=driver.PARALLEL_THRESHOLD + 17)
    serial = gm.rnea(model, q, v, a), gm.crba(model, q)
    driver.set_num_threads(2)
    try:
        threaded = gm.rnea(model, q, v, a), gm.crba(model, q)
        q_bad = q.copy()
        q_bad[-3] = np.nan
        with pytest.raises(NonFiniteError, match="`q` to be finite"):
            gm.crba(model, q_bad)
    finally:
        driver.set_num_threads(1)
    for s, t in zip(serial, threaded, strict=True):
        np.testing.assert_array_equal(s, t)


@pytest.mark.parametrize("n", [2, 3, 8])
def test_threaded_chunks_locate_the_first_failure(rng, monkeypatch, n):
    """Forced into threads (no work threshold, chunks of MIN_CHUNK states), a batch gives the
    serial results bit for bit, and a failure names the first failing state in batch order.
    """
    model = robots.double_pendulum()
    B = 5 * driver.MIN_CHUNK + 7
    Q, V = rng.normal(size=(B, 2)), rng.normal(size=(B, 2))
    serial = gm.rnea(model, Q, V, V), gm.crba(model, Q)
    monkeypatch.setattr(driver, "MIN_PARALLEL_WORK", 0.0)
    monkeypatch.setattr(driver, "CHUNK_WORK", 0.0)
    monkeypatch.setattr(driver, "PAYS", np.inf)  # threads even where they do not pay
    monkeypatch.setattr(driver, "idle_core", lambda: True)  # and on a busy machine
    driver.set_num_threads(n)
    try:
        for _ in range(2):  # the first call measures the cost per state, the second splits
            threaded = gm.rnea(model, Q, V, V), gm.crba(model, Q)
            for s, t in zip(serial, threaded, strict=True):
                np.testing.assert_array_equal(s, t)
        for bad in (sorted(rng.choice(B, 3, replace=False)), [B - 1], [0, B - 1]):
            Qb = Q.copy()
            Qb[bad, 0] = np.nan
            with pytest.raises(NonFiniteError, match=rf"\({bad[0]},\)"):
                gm.rnea(model, Qb, V, V)
    finally:
        driver.set_num_threads(1)


def test_a_core_is_idle_when_only_this_process_loads_the_machine(monkeypatch):
    """The load average counts this process's own threads: two threads that kept both cores
    busy leave a core idle for the next batch; another process's load does not."""
    import time

    monkeypatch.setattr(driver.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(driver.os, "getloadavg", lambda: (1.9, 1.9, 1.9))
    state = list(driver._LOAD)
    try:
        for used, idle in ((2.0, True), (0.0, False)):  # cores this process kept busy
            now, cpu = time.monotonic(), time.process_time()
            driver._LOAD[:] = [now - 1.0, not idle, cpu - used, used]
            assert driver.idle_core() is idle
    finally:
        driver._LOAD[:] = state


def test_the_first_look_counts_the_cores_this_process_used_since_import(monkeypatch):
    """A process that computed serially since its import is one unit of the load average:
    the first look at it finds the other core idle; another process's load does not."""
    import time

    monkeypatch.setattr(driver.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(driver.os, "getloadavg", lambda: (1.0, 1.0, 1.0))
    state = list(driver._LOAD)
    try:
        for busy, idle in ((1.0, True), (0.0, False)):  # cores used since the import
            now, cpu = time.monotonic(), time.process_time()
            monkeypatch.setattr(driver, "_IMPORTED", (now - 60.0, cpu - 60.0 * busy))
            driver._LOAD[:] = [-1.0, not idle, 0.0, 0.0]
            assert driver.idle_core() is idle
    finally:
        driver._LOAD[:] = state


def test_compiled_arrays_are_read_only(rng):
    """model.compiled's arrays cannot be written (issue 26), and the kernels take them."""
    model = robots.random_tree(6, rng=rng, floating_base=True)
    cm = model.compiled
    for x in (cm.topo, cm.placement, cm.jparam, cm.inertia, cm.S, cm.S_ring, cm.T_user):
        assert not x.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            x.flat[0] = 1.0
    assert not cm.packed.flags.writeable and not cm.a0.flags.writeable
    copy = pickle.loads(pickle.dumps(model)).compiled  # unpickled arrays come back writable
    assert not any(x.flags.writeable for x in (copy.topo, copy.inertia, copy.packed, copy.a0))
    q = model.random_configuration(rng)
    v = rng.normal(size=model.nv)
    tau = gm.rnea(model, q, v, v)  # single state (packed) and batch (the arrays themselves)
    np.testing.assert_allclose(gm.rnea(model, q[None], v[None], v[None])[0], tau, rtol=1e-13)


def test_chunks_partition_the_batch_and_shrink_to_the_tail(rng):
    """_bounds cuts a batch into chunks of at most `chunk` states, never growing, that shrink
    to `tail` at the end (guided self-scheduling): threads that take them in turn (list
    scheduling of states of equal cost, the helpers starting up to a chunk late) finish within
    `tail` states of each other.
    """
    import heapq

    for _ in range(300):
        threads = int(rng.integers(2, 9))
        chunk = int(rng.integers(1, 100))
        tail = int(rng.integers(1, chunk + 1))
        B = int(rng.integers(1, 5000))
        bounds = driver._bounds(B, threads, chunk, tail)
        sizes = np.diff(bounds)
        assert bounds[0] == 0 and bounds[-1] == B and (sizes > 0).all()
        assert (sizes <= chunk).all() and (np.diff(sizes[:-1]) <= 0).all()
        if B < 2 * threads * chunk:
            continue
        free = [(float(rng.uniform(0, chunk)) if i else 0.0, i) for i in range(threads)]
        end = [t for t, _ in free]
        heapq.heapify(free)
        for size in sizes:
            t, i = heapq.heappop(free)
            end[i] = t + size
            heapq.heappush(free, (end[i], i))
        assert max(end) - min(end) <= tail + 1e-9


def test_threads_run_while_they_pay_and_are_probed_when_not(monkeypatch):
    """_decide: serial until the serial cost is measured, below MIN_PARALLEL_WORK and when no
    core is idle; in threads while they pay (or are unmeasured at this batch size) but for a
    serial call now and then, else serially with a threaded probe every PROBE calls, less
    often after unpaid probes."""
    monkeypatch.setattr(driver, "idle_core", lambda: True)
    serial, B = 5e-6, 1000
    assert not driver._decide(0.0, 0.0, 0, B)
    assert not driver._decide(serial, 0.0, 1, int(driver.MIN_PARALLEL_WORK / serial) - 1)
    assert driver._decide(serial, 0.0, 1, B)  # unmeasured threads are tried
    calls = range(1, 3 * driver.PROBE + 1)
    assert all(driver._decide(serial, 0.55 * serial, k, B) for k in calls)
    period = driver.PROBE << driver.PROBE_BACKOFF  # while paying, one serial call a period
    assert sum(not driver._decide(serial, 0.55 * serial, k, B) for k in range(2 * period)) == 2
    assert sum(driver._decide(serial, driver.PAYS * serial, k, B) for k in calls) == 3
    # probes that did not pay in a row space the next ones out, up to PROBE << PROBE_BACKOFF
    calls = range(1, (driver.PROBE << driver.PROBE_BACKOFF) * 4 + 1)
    for misses in range(driver.PROBE_BACKOFF + 3):
        probes = sum(driver._decide(serial, 2 * serial, k, B, misses) for k in calls)
        assert probes == 4 << (driver.PROBE_BACKOFF - min(misses, driver.PROBE_BACKOFF))
    monkeypatch.setattr(driver, "idle_core", lambda: False)
    assert not driver._decide(serial, 0.55 * serial, 1, B)


def test_the_cost_model_survives_one_slow_call_and_counts_unpaid_probes():
    """_record: the serial cost is the mean of the CPU time per state of the serial calls; a
    slow threaded call among paying ones does not turn threads off (three in a row do); probes
    that do not pay count up, one that pays resets the count."""
    serial = 4e-6
    cost = [serial, {}, 0, 0]
    driver._record(cost, 10, True, serial, 0.0)  # a first threaded call that does not pay
    assert cost[1][10] == (serial, 0)  # (not counted as a miss: a thread may be starting)
    cost[1][10] = (0.55 * serial, 0)
    driver._record(cost, 10, True, 10 * serial, 0.0)  # one call 18x slower (preempted)
    assert cost[1][10][0] < driver.PAYS * serial  # still paying
    slow = 1
    while cost[1][10][0] < driver.PAYS * serial:
        driver._record(cost, 10, True, 10 * serial, 0.0)
        slow += 1
    assert slow == 3 and cost[1][10][1] == 0  # three slow calls in a row turn them off
    for misses in (1, 2, 3):  # probes that do not pay
        driver._record(cost, 10, True, serial, 0.0)
        assert cost[1][10] == (serial, misses)
    driver._record(cost, 10, True, 0.5 * serial, 0.0)  # a probe that pays
    assert cost[1][10] == (0.5 * serial, 0) and cost[0] == serial  # threads leave it
    driver._record(cost, 11, False, 9e-6, 2 * serial)  # serial calls update the serial cost
    assert cost[0] == pytest.approx(1.5 * serial, rel=1e-15) and 11 not in cost[1]


def test_the_cost_table_measures_each_batch_size_class(rng, monkeypatch):
    """The threaded time per state is kept per batch size class (B.bit_length()); the calls
    and threaded calls are counted."""
    model = robots.double_pendulum()
    monkeypatch.setattr(driver, "MIN_PARALLEL_WORK", 0.0)
    monkeypatch.setattr(driver, "PAYS", np.inf)  # threads always pay
    monkeypatch.setattr(driver, "idle_core", lambda: True)
    monkeypatch.setattr(driver, "_COST", {})
    gm.crba(model, rng.normal(size=(300, 2)))  # compiled or loaded (a first call is not timed)
    driver.set_num_threads(2)
    try:
        for B in (300, 5000):
            Q = rng.normal(size=(B, 2))
            for _ in range(10):
                gm.crba(model, Q)
    finally:
        driver.set_num_threads(1)
    ((serial, threaded, calls, threaded_calls),) = driver._COST.values()
    assert serial > 0.0 and sorted(threaded) == [9, 13]  # the bit lengths of 300 and 5000
    assert all(t > 0.0 and misses == 0 for t, misses in threaded.values())
    assert (calls, threaded_calls) == (20, 19)  # call 0 measures the serial cost


@njit(nogil=True)
def _doubling(x, out, status):
    """A batch kernel for the tests: out = 2 x, status 1 where x < 0, raises where x > 100."""
    for b in range(status.shape[0]):
        if x[b, 0] > 100.0:
            raise ValueError("too large")
        out[b, 0] = 2.0 * x[b, 0]
        status[b] = 1 if x[b, 0] < 0.0 else 0
    for b in range(status.shape[0]):
        if status[b]:
            return b + 1
    return 0


@pytest.mark.parametrize("caller_last", [0, 2])
@pytest.mark.parametrize("n", [2, 3])
def test_threaded_chunks_raise_in_the_caller_and_keep_their_helpers(
    rng, monkeypatch, n, caller_last
):
    """An exception in any chunk is raised in the caller; the helper threads survive it and
    set_num_threads; a traced call records the chunks of every thread (the caller's include
    the CALLER_LAST last ones)."""
    monkeypatch.setattr(driver, "CALLER_LAST", caller_last)
    B = 1000
    x, out, status = rng.uniform(0, 1, size=(B, 1)), np.empty((B, 1)), np.empty(B, np.int64)
    driver.set_num_threads(n)
    driver._TRACE = trace = []
    try:
        assert driver._call_threaded(_doubling, (), (x, out), B, status, 16, 2) == 0
        np.testing.assert_array_equal(out, 2.0 * x)
        helpers = len(driver._HELPERS)
        assert helpers >= n - 1
        for bad in (0, B // 2, B - 1):
            y = x.copy()
            y[bad] = 1e3
            with pytest.raises(ValueError, match="too large"):
                driver._call_threaded(_doubling, (), (y, out), B, status, 16, 2)
            y[bad], y[-1] = -1.0, -1.0
            assert driver._call_threaded(_doubling, (), (y, out), B, status, 16, 2) == bad + 1
        driver.set_num_threads(1)
        assert len(driver._HELPERS) == 1  # the others end, one stays asleep
        driver.set_num_threads(n)
        assert driver._call_threaded(_doubling, (), (x, out), B, status, 16, 2) == 0
        np.testing.assert_array_equal(out, 2.0 * x)
        assert len(driver._HELPERS) == helpers
    finally:
        driver._TRACE = None
        driver.set_num_threads(1)
    chunks = len(driver._bounds(B, n, 16, 2)) - 1
    for t0, t1, threads in trace:
        assert t0 <= t1 and 1 <= len(threads) <= n
        assert sum(taken for _, _, taken, _ in threads) <= chunks
    assert sum(taken for _, _, taken, _ in trace[0][2]) == chunks  # everyone reported
    assert all(threads[0][2] >= caller_last for _, _, threads in trace)


def test_batches_from_several_threads_at_once_equal_serial_ones(rng, monkeypatch):
    """Callers in several threads share the helpers: each batch still gives its serial
    result (a caller finishes its own chunks when the helpers are busy with another's)."""
    import threading

    model = robots.double_pendulum()
    monkeypatch.setattr(driver, "MIN_PARALLEL_WORK", 0.0)
    monkeypatch.setattr(driver, "idle_core", lambda: True)
    Qs = [rng.normal(size=(2000, 2)) for _ in range(4)]
    serial = [gm.crba(model, Q) for Q in Qs]
    driver.set_num_threads(3)
    results, errors = [None] * len(Qs), []

    def run(i):
        try:
            for _ in range(5):
                results[i] = gm.crba(model, Qs[i])
        except Exception as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    try:
        callers = [threading.Thread(target=run, args=(i,)) for i in range(len(Qs))]
        for t in callers:
            t.start()
        for t in callers:
            t.join(timeout=120)
    finally:
        driver.set_num_threads(1)
    assert not errors and not any(t.is_alive() for t in callers)
    for s, r in zip(serial, results, strict=True):
        np.testing.assert_array_equal(s, r)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_child_starts_its_own_helpers(rng):
    """A child forked after the helpers started has none of them: its threaded batches start
    new ones (and would finish on the caller alone anyway)."""
    B = 1000
    x, out, status = rng.uniform(0, 1, size=(B, 1)), np.empty((B, 1)), np.empty(B, np.int64)
    driver.set_num_threads(2)
    try:
        driver._call_threaded(_doubling, (), (x, out), B, status, 16, 2)
        assert driver._HELPERS
        with warnings.catch_warnings():  # (Python 3.12+ warns of forking with threads)
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # the child: exit code 0 if its batch is right, 1 if not, 2 on a hang
            signal.alarm(60)
            try:
                out[:] = 0.0
                driver._call_threaded(_doubling, (), (x, out), B, status, 16, 2)
                os._exit(0 if np.array_equal(out, 2.0 * x) and len(driver._HELPERS) == 1 else 1)
            except BaseException:  # noqa: BLE001 (the exit code reports it)
                os._exit(1)
        _, code = os.waitpid(pid, 0)
    finally:
        driver.set_num_threads(1)
    assert os.waitstatus_to_exitcode(code) == 0


def test_bad_thread_count():
    with pytest.raises(DimensionError, match="threads"):
        driver.set_num_threads(0)


# ---- the numba cache: a second process loads instead of compiling --------------------------

_SECOND = """
import numpy as np
import geomech as gm
from geomech.multibody._kernels.tree import dynamics as K
m = gm.robots.double_pendulum()
gm.rnea(m, [0.1, 0.2], [0.0, 0.0], [0.0, 0.0])
print(sum(K.rnea_batch.stats.cache_hits.values()), sum(K.rnea_batch.stats.cache_misses.values()))
"""


def test_a_second_process_loads_the_kernels_from_the_cache():
    gm.rnea(robots.double_pendulum(), [0.1, 0.2], [0.0, 0.0], [0.0, 0.0])  # cache written
    out = subprocess.run(
        [sys.executable, "-c", _SECOND], capture_output=True, text=True, check=True
    ).stdout.split()
    hits, misses = int(out[0]), int(out[1])
    assert hits == 1 and misses == 0
