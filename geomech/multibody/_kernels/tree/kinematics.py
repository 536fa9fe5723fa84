r"""Kinematics kernels: tree transforms, body twists, poses in the world, body Jacobians.

Conventions of :mod:`geomech.multibody.algorithms.kinematics` (whose public functions call these):
body ``i``'s frame is its joint's successor frame; ``E[i], r[i]`` is the Plücker pair of
:math:`{}^i\mathbf X_{p(i)} = \mathbf X_J(\mathbf q_i)\mathbf X_T(i)` (seed 001 §2.0), i.e. of
the pose ``placement_i ∘ pose_J(q_i)`` of body ``i`` in its parent; motion-subspace columns
are rows of ``S`` (``S[iv[i] + k]`` is column ``k`` of :math:`\boldsymbol\Phi_i` in body
``i``'s coordinates) and ``S_ring`` holds :math:`\mathring{\boldsymbol\Phi}_i` likewise.

References
----------
Seed 001 eq. 5, §2.0; Featherstone 2008, ch. 4.
"""

from __future__ import annotations

import ctypes

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from geomech.multibody._kernels.jit import FMA, FMA_INLINE, INLINE, JIT
from geomech.multibody._kernels.joints import (
    FIXED,
    HELICAL,
    PRISMATIC,
    REVOLUTE,
    USER,
    joint_pose,
)
from geomech.multibody._kernels.spatial import compose_pose, transform_motion
from geomech.multibody._kernels.status import NOT_ON_MANIFOLD, OK, pack
from geomech.multibody._kernels.tables import E_SIN, E_VERS, PITCH, R_AXIS

__all__ = [
    "tree_transforms",
    "tree_transforms_inline",
    "joint_velocity",
    "body_velocities",
    "world_poses",
    "body_jacobians",
    "all_finite",
    "is_vector",
    "finite_vector",
    "finite_matrix",
]


def _has_sincos() -> bool:
    """Whether the process exports ``sincos`` (glibc and musl do; macOS, Windows do not).

    The symbols of the running process are those the JIT links against; looking there costs
    microseconds (``ctypes.util.find_library`` would run ``ldconfig``: ~10 ms per import).
    """
    try:
        return hasattr(ctypes.CDLL(None), "sincos")
    except (OSError, TypeError):  # no process handle (Windows)
        return False


#: the C library's ``sincos`` is used for the joint angles (decided once, at import)
_SINCOS = _has_sincos()


@intrinsic
def _sincos(typingctx, x):
    """``(sin x, cos x)`` of a float64 by one call of the C library's ``sincos``.

    The two results share the argument reduction: 24 revolute joints cost 0.23 µs instead
    of 0.39 µs with a ``sin`` and a ``cos`` call each. Where the library has no ``sincos``
    the two calls are made.
    """
    if not isinstance(x, types.Float):
        return None
    sig = types.UniTuple(types.float64, 2)(types.float64)

    def codegen(context, builder, sig, args):
        (theta,) = args
        theta = context.cast(builder, theta, x, types.float64)
        dbl = ir.DoubleType()
        if _SINCOS:
            fnty = ir.FunctionType(ir.VoidType(), [dbl, dbl.as_pointer(), dbl.as_pointer()])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "sincos")
            s_ptr = cgutils.alloca_once(builder, dbl)  # in the entry block: no stack growth
            c_ptr = cgutils.alloca_once(builder, dbl)
            builder.call(fn, [theta, s_ptr, c_ptr])
            s, c = builder.load(s_ptr), builder.load(c_ptr)
        else:
            unary = ir.FunctionType(dbl, [dbl])
            s = builder.call(builder.module.declare_intrinsic("llvm.sin", [dbl], unary), [theta])
            c = builder.call(builder.module.declare_intrinsic("llvm.cos", [dbl], unary), [theta])
        return context.make_tuple(builder, sig.return_type, [s, c])

    return sig, codegen


@njit(**JIT)
def all_finite(x):
    """True when every entry of ``x`` (any shape) is finite.

    One branch-free pass (:func:`finite_vector`): ``y - y`` is 0 unless ``y`` is NaN or inf
    (several times faster than testing ``np.isfinite`` entry by entry with an early exit).
    A vector is read as it
    is: ``ravel`` would call numba's reshape helper (a quarter of the cost for a few dozen
    entries; the branch is decided at compile time).
    """
    return finite_vector(x if x.ndim == 1 else x.ravel())


@njit(**INLINE)
def finite_vector(x):
    """Whether every entry of the 1-D array ``x`` is finite (the pass of :func:`all_finite`),
    inlined into the kernel that calls it.
    """
    bad = False
    for k in range(x.shape[0]):
        bad |= (x[k] - x[k]) != 0.0
    return not bad


@njit(**INLINE)
def finite_matrix(x):
    """Whether every entry of the 2-D array ``x`` is finite (:func:`finite_vector` row by row:
    no ``ravel``, so nothing for numba's runtime), inlined into the kernel that calls it.
    """
    bad = False
    for i in range(x.shape[0]):
        for k in range(x.shape[1]):
            bad |= (x[i, k] - x[i, k]) != 0.0
    return not bad


@njit(**INLINE)
def is_vector(x, n):
    """Whether the 1-D array ``x`` has ``n`` contiguous entries (its actual strides: a
    single-state entry point's vectors come from Python with any strides, its checks of the
    shapes and strides are a few instructions here, ~0.1 µs of Python attribute reads
    there).
    """
    return x.shape[0] == n and (n == 0 or x.strides[0] == x.itemsize)


@njit(**FMA_INLINE)
def tree_transforms_inline(jtype, iq, placement, jparam, T_user, q, E, r):
    """:func:`tree_transforms`, inlined into the kernel that calls it (the single-state
    kernels of RNEA, CRBA, ABA and Algorithm 1: no call with eight array arguments).
    """
    for i in range(jtype.shape[0]):
        code = jtype[i]
        P, c = placement[i], jparam[i]
        if code == REVOLUTE or code == HELICAL:
            theta = q[iq[i]]
            s, cos_theta = _sincos(theta)
            k = 1.0 - cos_theta
            for a in range(3):  # seed 001 §2.0: ^iX_p(i) = X_J(q_i) X_T(i), Rodrigues folded in
                for b in range(3):
                    E[i, a, b] = P[b, a] + s * c[E_SIN + 3 * a + b] + k * c[E_VERS + 3 * a + b]
                r[i, a] = P[a, 3] + c[PITCH] * theta * c[R_AXIS + a]  # pitch 0 for revolute
        elif code == PRISMATIC or code == FIXED:
            d = q[iq[i]] if code == PRISMATIC else 0.0
            for a in range(3):
                for b in range(3):
                    E[i, a, b] = P[b, a]
                r[i, a] = P[a, 3] + d * c[R_AXIS + a]
        else:  # the joint pose (R_J, p_J), composed with the placement
            if code == USER:
                U = T_user[i]
                ok, R_J, p_J = (
                    True,
                    (
                        (U[0, 0], U[0, 1], U[0, 2]),
                        (U[1, 0], U[1, 1], U[1, 2]),
                        (U[2, 0], U[2, 1], U[2, 2]),
                    ),
                    (U[0, 3], U[1, 3], U[2, 3]),
                )
            else:
                ok, R_J, p_J = joint_pose(code, c, q[iq[i] : iq[i + 1]])
            if not ok:
                return pack(NOT_ON_MANIFOLD, i)
            (j00, j01, j02), (j10, j11, j12), (j20, j21, j22) = R_J
            x, y, z = p_J
            for b in range(3):  # E = R_Jᵀ R_Tᵀ (column b from row b of R_T), r = p_T + R_T p_J
                t0, t1, t2 = P[b, 0], P[b, 1], P[b, 2]
                E[i, 0, b] = j00 * t0 + j10 * t1 + j20 * t2
                E[i, 1, b] = j01 * t0 + j11 * t1 + j21 * t2
                E[i, 2, b] = j02 * t0 + j12 * t1 + j22 * t2
                r[i, b] = P[b, 3] + t0 * x + t1 * y + t2 * z
    return OK


@njit(**FMA)
def tree_transforms(jtype, iq, placement, jparam, T_user, q, E, r):
    r"""Fill ``E[i], r[i]`` with the Plücker pair of :math:`{}^i\mathbf X_{p(i)}` for every body.

    ``placement[i] = [R_T | p_T]`` (3×4) is the joint frame in the parent; the joint pose
    comes from the type code, or from ``T_user[i]`` (3×4) for a user-defined joint. 1-DoF
    joints use the factors precomputed in ``jparam`` (:mod:`.compiled`):
    :math:`\mathbf E = \mathbf R_T^\top - \sin\theta\,\mathbf K\mathbf R_T^\top +
    (1 - \cos\theta)\,\mathbf K^2\mathbf R_T^\top`, :math:`\mathbf r = \mathbf p_T + d\,\mathbf
    R_T\mathbf a`; a fixed joint's pair is :math:`(\mathbf R_T^\top, \mathbf p_T)`. The others
    compose their pose ``(R_J, p_J)`` (:func:`.joint_pose`, scalars) with the placement:
    :math:`\mathbf E = \mathbf R_J^\top\mathbf R_T^\top`, :math:`\mathbf r = \mathbf p_T + \mathbf
    R_T\mathbf p_J`. Returns a packed status (``NOT_ON_MANIFOLD`` for a non-unit quaternion).
    """
    return tree_transforms_inline(jtype, iq, placement, jparam, T_user, q, E, r)


@njit(**INLINE)
def joint_velocity(S, iv, i, v, out):
    r"""``out = Φ_i ν_i`` (the joint's relative twist in body ``i``'s coordinates)."""
    k0, k1 = iv[i], iv[i + 1]
    if k1 - k0 == 1:
        for a in range(6):
            out[a] = S[k0, a] * v[k0]
        return
    for a in range(6):
        out[a] = 0.0
    for k in range(k0, k1):
        for a in range(6):
            out[a] += S[k, a] * v[k]


@njit(**JIT)
def body_velocities(parent, iv, S, E, r, v, vel):
    r"""Seed 001 eq. 5: :math:`\mathbf v_i = {}^i\mathbf X_{p(i)}\mathbf v_{p(i)} +
    \boldsymbol\Phi_i\nu_i`.
    """
    vJ = np.empty(6)
    for i in range(parent.shape[0]):
        joint_velocity(S, iv, i, v, vJ)
        if parent[i] < 0:
            vel[i, :] = vJ
        else:
            transform_motion(E[i], r[i], vel[parent[i]], vel[i])
            for a in range(6):
                vel[i, a] += vJ[a]


@njit(**JIT)
def world_poses(parent, E, r, T):
    r"""Poses of the bodies in the world: :math:`{}^0\mathbf T_i = {}^0\mathbf
    T_{p(i)}\,{}^{p(i)}\mathbf T_i`.
    """
    for i in range(parent.shape[0]):
        # the pose of body i in its parent: R = Eᵀ, p = r
        R_up = E[i].T
        if parent[i] < 0:
            T[i, :3, :3] = R_up
            T[i, :3, 3] = r[i]
        else:
            Tp = T[parent[i]]
            compose_pose(Tp[:3, :3], Tp[:3, 3], R_up, r[i], T[i, :3, :3], T[i, :3, 3])
        T[i, 3, :3] = 0.0
        T[i, 3, 3] = 1.0


@njit(**JIT)
def body_jacobians(parent, iv, S, E, r, J):
    r"""Body Jacobians :math:`\mathbf J_i = {}^i\mathbf X_{p(i)}\mathbf J_{p(i)} +
    \boldsymbol\Phi_i\mathbf E_i`.

    ``J`` has shape (N, nv, 6): ``J[i, k]`` is column ``k`` of :math:`\mathbf J_i`
    (:math:`{}^i\mathbf X_j\boldsymbol\Phi_j` for the joints ``j`` supporting ``i``, else 0).
    """
    J[:] = 0.0
    for i in range(parent.shape[0]):
        p = parent[i]
        if p >= 0:  # columns j ⪯ p(i): ^iX_j Φ_j = X_up[i] ^{p(i)}X_j Φ_j
            for k in range(J.shape[1]):
                transform_motion(E[i], r[i], J[p, k], J[i, k])
        for k in range(iv[i], iv[i + 1]):
            J[i, k, :] = S[k]
