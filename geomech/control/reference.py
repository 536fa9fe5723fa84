r"""Reference velocity fields for tracking on a Lie group (seed 000 §IV-A1, Remark 5).

Slotine–Li tracking in generalized coordinates uses the reference velocity
:math:`\dot q_r = \dot q_d - \Lambda (q - q_d)` (seed 000 §IV-A1, whose printed
:math:`+\Lambda(q - q_d)` diverges: :math:`s \to 0` would give :math:`\dot{\tilde q} =
+\Lambda\tilde q`). With generalized speeds that are not coordinate rates — the body (or spatial)
velocity of a rigid body on SO(3), SE(3), SE(2), the Schönflies group or a product of them —
there is no :math:`q - q_d`. Remark 5 reads :math:`\dot q_r` as a time-varying vector field
:math:`v_r(q, t)` instead; this module builds that field from the group error and its exact
time derivative along the motion.

Left-invariant frame (:math:`\dot q = q \hat v`, body velocities), desired motion
:math:`\dot q_d = q_d \hat v_d`:

.. math::

    g_e = q_d^{-1} q, \qquad e = \log g_e, \qquad
    \xi_e = (g_e^{-1}\dot g_e)^\vee = v - \operatorname{Ad}_{g_e^{-1}} v_d, \qquad
    \dot e = J_r(e)^{-1} \xi_e = \operatorname{dexp}^{-1}_{-e} \xi_e,

.. math::

    v_r(q, t) = \operatorname{Ad}_{g_e^{-1}} v_d - \Lambda e, \qquad
    a_r = \frac{d}{dt} v_r(q(t), t) = \operatorname{Ad}_{g_e^{-1}} a_d
          - \operatorname{ad}_{\xi_e} (\operatorname{Ad}_{g_e^{-1}} v_d) - \Lambda \dot e,

using :math:`\tfrac{d}{dt}\operatorname{Ad}_{g_e^{-1}} = -\operatorname{ad}_{\xi_e}
\operatorname{Ad}_{g_e^{-1}}`. Right-invariant frame (:math:`\dot q = \hat v q`, spatial
velocities) with the right error :math:`g_e = q q_d^{-1}`:

.. math::

    \xi_e = (\dot g_e g_e^{-1})^\vee = v - \operatorname{Ad}_{g_e} v_d, \qquad
    \dot e = J_l(e)^{-1} \xi_e, \qquad
    v_r = \operatorname{Ad}_{g_e} v_d - \Lambda e, \qquad
    a_r = \operatorname{Ad}_{g_e} a_d + \operatorname{ad}_{\xi_e}(\operatorname{Ad}_{g_e} v_d)
          - \Lambda \dot e.

On :math:`s = v - v_r = 0` the error obeys :math:`\xi_e = -\Lambda e`, and for a scalar
:math:`\Lambda = \lambda\mathbf 1` (where :math:`\operatorname{ad}_e e = 0` gives
:math:`J(e)^{-1} e = e`) exactly :math:`\dot e = -\lambda e`: exponential convergence. For a
matrix :math:`\Lambda \succ 0` the convergence is local (:math:`\dot e = -\Lambda e + O(|e|^2)`).
On :math:`\mathbb R^n` (``Euclidean(n)``: :math:`\operatorname{Ad} = \mathbf 1`,
:math:`\operatorname{ad} = 0`) everything reduces to :math:`e = q - q_d`,
:math:`v_r = \dot q_d - \Lambda (q - q_d)`, :math:`a_r = \ddot q_d - \Lambda (\dot q - \dot q_d)`.

Multibody models (:func:`multibody_tracking_error`). Every joint's configuration lives in a
Lie group with body speeds (:math:`\mathbb R` for 1-DoF joints, SO(3), SE(2), Schönflies,
SE(3) for spherical, planar, Schönflies and free-flyer joints), so the left-invariant error
above is taken joint by joint:
:math:`T = \operatorname{blockdiag}(\operatorname{Ad}_{g_{e,i}^{-1}})`,
:math:`v_r = T v_d - \Lambda e`, :math:`a_r = T a_d - \operatorname{blockdiag}
(\operatorname{ad}_{\xi_{e,i}}) T v_d - \Lambda \dot e`, with a gain :math:`\Lambda` that may
couple the joints. Both functions share one implementation of the per-group kinematics
(``_error_rates``) and of the gain (``_with_gain``).

Domain. :math:`e` is the principal logarithm (rotation angle in :math:`[0, \pi]` on SO(3) and
SE(3), :math:`(-\pi, \pi]` on SE(2) and Schönflies). The field :math:`v_r` is smooth away from
the cut locus (error rotation angle :math:`\pi`), where the logarithm jumps between
:math:`\pm\pi` axes; the group logs do not raise there, so neither does this module. Since
:math:`|e|` decreases on :math:`s = 0` (scalar :math:`\Lambda`), a closed loop that starts with
an error angle below :math:`\pi` and small :math:`s` stays away from it. On a multibody model
the planar and Schönflies angles are unwrapped coordinates (like revolute angles), so their
error is :math:`\theta - \theta_d` on the matching branch of :math:`\log` (any size, no jump;
a full turn of error is unwound, as on a revolute joint); spherical and free-flyer errors use
the principal logarithm.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from geomech._arrays import matvec
from geomech._validation import as_array
from geomech.errors import DimensionError, DTypeError, ParameterError
from geomech.lie import LieGroup

__all__ = [
    "GroupTrackingError",
    "JointwiseTrackingError",
    "group_tracking_error",
    "multibody_tracking_error",
]


class GroupTrackingError(NamedTuple):
    r"""The log error, reference velocity and reference acceleration on a Lie group.

    Attributes
    ----------
    e : ndarray, shape (..., n)
        :math:`e = \log g_e` (``g_e = q_d⁻¹ q`` left, ``q q_d⁻¹`` right).
    v_r : ndarray, shape (..., n)
        Reference velocity :math:`v_r(q, t)` in the frame of the velocities.
    a_r : ndarray, shape (..., n)
        :math:`\tfrac{d}{dt} v_r(q(t), t)` along the motion with velocity ``v``.
    e_dot : ndarray, shape (..., n)
        :math:`\dot e`, the rate of the log error along the motion.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.control.reference import group_tracking_error
    >>> from geomech.lie import SO3
    >>> err = group_tracking_error(SO3, SO3.exp([0.0, 0.0, 0.5]), np.zeros(3),
    ...                            np.eye(3), np.zeros(3), np.zeros(3), 2.0)
    >>> err.e, err.v_r
    (array([0. , 0. , 0.5]), array([ 0.,  0., -1.]))
    """

    e: np.ndarray
    v_r: np.ndarray
    a_r: np.ndarray
    e_dot: np.ndarray


def _lambda_matrix(Lambda, n: int) -> np.ndarray:
    L = as_array(Lambda, "Lambda")
    if L.ndim == 0:
        return float(L) * np.eye(n)
    if L.shape != (n, n):
        raise DimensionError(
            f"Expected `Lambda` to be a scalar or of shape {(n, n)}, got {L.shape}."
        )
    return L


def group_tracking_error(group, q, v, q_d, v_d, a_d, Lambda, side="left") -> GroupTrackingError:
    r"""Group error, reference velocity field and its exact rate (seed 000 Remark 5).

    Left-invariant frame (``side="left"``, body velocities :math:`\dot q = q\hat v`):

    .. math::

        g_e = q_d^{-1} q,\quad e = \log g_e,\quad
        \xi_e = v - \operatorname{Ad}_{g_e^{-1}} v_d,\quad
        \dot e = \operatorname{dexp}^{-1}_{-e}\xi_e = J_r(e)^{-1}\xi_e,

    .. math::

        v_r = \operatorname{Ad}_{g_e^{-1}} v_d - \Lambda e,\qquad
        a_r = \operatorname{Ad}_{g_e^{-1}} a_d
              - \operatorname{ad}_{\xi_e}\operatorname{Ad}_{g_e^{-1}} v_d - \Lambda\dot e.

    Right-invariant frame (``side="right"``, spatial velocities :math:`\dot q = \hat v q`):
    :math:`g_e = q q_d^{-1}`, :math:`\xi_e = v - \operatorname{Ad}_{g_e} v_d`,
    :math:`\dot e = J_l(e)^{-1}\xi_e`, :math:`v_r = \operatorname{Ad}_{g_e} v_d - \Lambda e`,
    :math:`a_r = \operatorname{Ad}_{g_e} a_d + \operatorname{ad}_{\xi_e}
    \operatorname{Ad}_{g_e} v_d - \Lambda\dot e`.

    ``a_r`` is the exact derivative of :math:`v_r(q(t), t)` along a motion with velocity
    ``v`` when ``v_d``, ``a_d`` are the desired velocity and its derivative (in the same
    frame), so the Slotine–Li closed loop satisfies :math:`\dot V = -s^\top K_D s` exactly.
    The domain (away from the cut locus of :math:`\log`) is discussed in the module docstring.

    Parameters
    ----------
    group : geomech.lie.LieGroup
        The configuration group ``G`` (``dim = n``).
    q : array_like, shape (..., *group.point_shape)
        Configuration.
    v : array_like, shape (..., n)
        Velocity (body velocity for ``side="left"``, spatial for ``"right"``).
    q_d : array_like, shape (..., *group.point_shape)
        Desired configuration.
    v_d, a_d : array_like, shape (..., n)
        Desired velocity (same side as ``v``) and its time derivative.
    Lambda : float or array_like, shape (n, n)
        Error gain :math:`\Lambda` (a scalar means :math:`\lambda\mathbf 1`).
    side : {"left", "right"}
        Whether velocities are left-trivialised (body) or right-trivialised (spatial).

    Returns
    -------
    GroupTrackingError
        Named tuple ``(e, v_r, a_r, e_dot)``, each of shape ``(..., n)`` (leading dimensions
        of all inputs broadcast).

    Raises
    ------
    GeomechError
        If ``group`` is not a :class:`~geomech.lie.LieGroup` or ``side`` is unknown.
    DimensionError
        If an input has the wrong trailing shape, ``Lambda`` is not scalar or ``(n, n)``, or
        the leading dimensions do not broadcast.
    NonFiniteError, NotOnManifoldError
        If an input is not finite or ``q``, ``q_d`` are not group elements.

    References
    ----------
    seed 000 §IV-A1 eq. (13) and Remark 5 (reference velocity as a vector field; the sign
    of :math:`\Lambda` corrected); seed 003 §1.3 (:math:`J_r = S(\phi)`, body velocity of
    :math:`\exp\phi`).

    Examples
    --------
    On :math:`\mathbb R^n` this is the classical law :math:`\dot q_d - \Lambda (q - q_d)`:

    >>> import numpy as np
    >>> from geomech.control.reference import group_tracking_error
    >>> from geomech.lie import SE2, Euclidean
    >>> e, v_r, a_r, e_dot = group_tracking_error(
    ...     Euclidean(2), [1.0, 2.0], [0.0, 1.0], [0.0, 0.0], [1.0, 1.0], [0.5, 0.0], 3.0)
    >>> v_r, a_r
    (array([-2., -5.]), array([3.5, 0. ]))

    On SE(2) with :math:`s = 0` the log error decays as :math:`\dot e = -\Lambda e`:

    >>> q, q_d = SE2.exp([0.4, 1.0, -0.5]), SE2.identity()
    >>> v_d = np.array([0.3, 1.0, 0.0])
    >>> v_r = group_tracking_error(SE2, q, np.zeros(3), q_d, v_d, np.zeros(3), 2.0).v_r
    >>> err = group_tracking_error(SE2, q, v_r, q_d, v_d, np.zeros(3), 2.0)
    >>> bool(np.allclose(err.e_dot, -2.0 * err.e))
    True
    """
    if not isinstance(group, LieGroup):
        raise DTypeError(
            f"Expected `group` to be a geomech.lie.LieGroup, got {type(group).__name__}."
        )
    if side not in ("left", "right"):
        raise ParameterError(f"Expected `side` to be 'left' or 'right', got {side!r}.")
    n = group.dim
    k = len(group.point_shape)
    q = group.validate(q, "q")
    q_d = group.validate(q_d, "q_d")
    v, v_d, a_d = (as_array(x, name, (n,)) for x, name in ((v, "v"), (v_d, "v_d"), (a_d, "a_d")))
    L = _lambda_matrix(Lambda, n)
    try:
        np.broadcast_shapes(
            q.shape[: q.ndim - k],
            q_d.shape[: q_d.ndim - k],
            v.shape[:-1],
            v_d.shape[:-1],
            a_d.shape[:-1],
        )
    except ValueError as exc:
        raise DimensionError(
            f"Expected the leading (batch) dimensions of `q` {q.shape}, `v` {v.shape}, `q_d` "
            f"{q_d.shape}, `v_d` {v_d.shape} and `a_d` {a_d.shape} to broadcast."
        ) from exc

    # inputs validated above: the group's private core (no re-validation) from here on
    G = group
    if side == "left":
        g_e = G._compose(G._inverse(q_d), q)  # g_e = q_d^{-1} q
    else:
        g_e = G._compose(q, G._inverse(q_d))  # g_e = q q_d^{-1}
    e = G._log(g_e)
    w, b, e_dot = _error_rates(G, g_e, e, v, v_d, a_d, side)
    return _with_gain(e, w, b, e_dot, L)


def _error_rates(G, g_e, e, v, v_d, a_d, side):
    r"""Kinematics of the group error shared by every tracking error of this module.

    For one group (or a stack of ``k`` copies of it, batched on a leading axis) with
    :math:`g_e = \exp e` the error (``q_d⁻¹ q`` left, ``q q_d⁻¹`` right), returns
    ``(w, b, e_dot)``: the transported desired velocity :math:`w = T v_d` with
    :math:`T = \operatorname{Ad}_{g_e^{-1}}` (left) or :math:`\operatorname{Ad}_{g_e}` (right),
    :math:`b = \dot T v_d + T a_d = T a_d \mp \operatorname{ad}_{\xi_e} w` and
    :math:`\dot e`. The gain is applied by :func:`_with_gain` on the stacked vectors, so
    that a :math:`\Lambda` coupling several groups (joints) is exact too.
    """
    if side == "left":
        Ad = G._Ad(G._inverse(g_e))  # Ad_{g_e^{-1}}: the desired velocity seen from q
        sign = -1.0  # d/dt Ad_{g_e^{-1}} = -ad_{xi_e} Ad_{g_e^{-1}}
    else:
        Ad = G._Ad(g_e)
        sign = 1.0  # d/dt Ad_{g_e} = +ad_{xi_e} Ad_{g_e} (xi_e spatial)
    w = matvec(Ad, v_d)  # T v_d
    xi_e = v - w  # velocity of g_e (body for left, spatial for right)
    # e_dot = dexp^{-1}_{-e} xi_e = J_r(e)^{-1} xi_e (left), dexp^{-1}_{e} xi_e = J_l(e)^{-1} xi_e
    # (right); J_r(e) = J_l(-e), geomech.lie.base
    J_inv = G._left_jacobian_inverse(-e if side == "left" else e)
    e_dot = matvec(J_inv, xi_e)
    ad_xi_w = np.einsum("...i,...j,ijk->...k", xi_e, w, G._structure_constants)  # [xi_e, w]
    b = matvec(Ad, a_d) + sign * ad_xi_w  # d/dt (T v_d) = T a_d -/+ ad_{xi_e} T v_d
    return w, b, e_dot


def _with_gain(e, w, b, e_dot, L) -> GroupTrackingError:
    """``v_r = w - Λ e`` (Remark 5, corrected sign, seed 000 §IV-A1), ``a_r = b - Λ ė``."""
    v_r = w - matvec(L, e)
    a_r = b - matvec(L, e_dot)  # a_r = d/dt v_r(q(t), t)
    return GroupTrackingError(e, v_r, a_r, e_dot)


# ----------------------------------------------------------------------------------------
# Multibody models: the group error joint by joint
# ----------------------------------------------------------------------------------------
def _stateless_joint_types() -> tuple[type, ...]:
    from geomech.multibody.model.joints import FreeFlyer, Planar, SchoenfliesJoint, Spherical

    # joints without parameters: instances of one class are interchangeable, so their
    # blocks can be stacked and evaluated in one vectorised call
    return (Spherical, Planar, SchoenfliesJoint, FreeFlyer)


class JointwiseTrackingError:
    r"""The joint-wise group error of a multibody model, its layout built once per model.

    Two stages. The built-in revolute, prismatic, helical, spherical and free-flyer joints
    are handled by one compiled kernel over the compiled model's joint type codes
    (``geomech.multibody._kernels.tree.tracking.tracking_error``, the equations of
    :func:`multibody_tracking_error` joint by joint). The other joints go through numpy:
    1-DoF user joints in one vectorised slice, multi-DoF joints stacked by kind (all planar
    joints in one batched call, ...), a user joint of another class its own block. Calling
    it is :func:`multibody_tracking_error` without the per-call layout work (a controller
    builds one per model); its inputs are not validated again.

    Parameters
    ----------
    model : MultibodyModel
        Every moving joint's ``manifold`` is a Lie group of dimension ``nv``.

    Raises
    ------
    ParameterError
        If a joint's manifold is not a Lie group of dimension ``nv``.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.control.reference import JointwiseTrackingError
    >>> from geomech.multibody import robots
    >>> model = robots.double_pendulum()
    >>> err = JointwiseTrackingError(model)
    >>> q, z = np.array([0.3, -0.2]), np.zeros(2)
    >>> err(q, z, z, z, z, np.eye(2)).e  # 1-DoF joints: e = q - q_d
    array([ 0.3, -0.2])
    """

    def __init__(self, model):
        from geomech.multibody._kernels.compiled import joint_code
        from geomech.multibody._kernels.tree.tracking import HANDLED
        from geomech.multibody.model.joints import OneDoFJoint

        stateless = _stateless_joint_types()
        iq1, iv1, blocks = [], [], {}
        for joint, qs, vs in zip(model.joints, model.q_slices, model.v_slices, strict=True):
            if joint.nv == 0:
                continue
            one_dof = isinstance(joint, OneDoFJoint)
            if not one_dof and (
                not isinstance(joint.manifold, LieGroup) or joint.manifold.dim != joint.nv
            ):
                raise ParameterError(
                    f"Expected joint {joint!r} to have a Lie group `manifold` of dimension "
                    f"nv = {joint.nv} (its speeds in the group's Lie algebra), got "
                    f"{joint.manifold!r}."
                )
            if joint_code(joint) in HANDLED:
                continue  # compiled kernel
            if one_dof:
                iq1.append(qs.start)  # a 1-DoF user joint: G = R
                iv1.append(vs.start)
                continue
            key = type(joint) if type(joint) in stateless else id(joint)
            _, q_rows, v_rows = blocks.setdefault(key, (joint, [], []))
            q_rows.append(np.arange(qs.start, qs.stop))
            v_rows.append(np.arange(vs.start, vs.stop))
        self._iq1, self._iv1 = np.array(iq1, dtype=int), np.array(iv1, dtype=int)
        self.nq, self.nv = model.nq, model.nv
        self._topo = model.compiled.topo
        # (joint, iq (k, nq_j), iv (k, nv_j)): x[..., iq] stacks the k joints on axis -2
        self._blocks = [(j, np.array(qr), np.array(vr)) for j, qr, vr in blocks.values()]
        #: whether the compiled kernel takes every joint (no numpy stage)
        self.compiled = not (iq1 or blocks)

    def rates(self, q, v, q_d, v_d, a_d):
        """``(e, T v_d, d/dt (T v_d), ė)`` at validated inputs, each ``(..., nv)``."""
        from geomech.multibody._kernels.tree.tracking import tracking_error, tracking_error_batch

        if q.ndim == v.ndim == q_d.ndim == v_d.ndim == a_d.ndim == 1:  # one state
            lead = ()
            e, w, b, e_dot = (np.zeros(self.nv) for _ in range(4))
            tracking_error(self._topo, q, v, q_d, v_d, a_d, e, w, b, e_dot)
        else:
            lead = np.broadcast_shapes(
                q.shape[:-1], v.shape[:-1], q_d.shape[:-1], v_d.shape[:-1], a_d.shape[:-1]
            )
            q, q_d = (np.broadcast_to(x, lead + (self.nq,)) for x in (q, q_d))
            v, v_d, a_d = (np.broadcast_to(x, lead + (self.nv,)) for x in (v, v_d, a_d))
            e, w, b, e_dot = (np.zeros(lead + (self.nv,)) for _ in range(4))
            flat = [np.ascontiguousarray(x).reshape(-1, x.shape[-1]) for x in (q, v, q_d, v_d, a_d)]
            out = [x.reshape(-1, self.nv) for x in (e, w, b, e_dot)]
            tracking_error_batch(self._topo, *flat, *out)
        if self._iv1.size:  # 1-DoF user joints, G = R: the coordinate law of seed 000 §IV-A1
            i, j = self._iq1, self._iv1
            e[..., j] = q[..., i] - q_d[..., i]
            w[..., j] = v_d[..., j]
            b[..., j] = a_d[..., j]
            e_dot[..., j] = v[..., j] - v_d[..., j]
        # other multi-DoF joints, body speeds in their group: g_e = q_d^{-1} q = exp(e) per joint
        for joint, iq, iv in self._blocks:
            G = joint.manifold
            e_k = joint._difference(q_d[..., iq], q[..., iq])  # log(q_d^{-1} q), (..., k, nv_j)
            w_k, b_k, ed_k = _error_rates(
                G, G._exp(e_k), e_k, v[..., iv], v_d[..., iv], a_d[..., iv], "left"
            )
            e[..., iv], w[..., iv], b[..., iv], e_dot[..., iv] = e_k, w_k, b_k, ed_k
        return e, w, b, e_dot

    def __call__(self, q, v, q_d, v_d, a_d, L) -> GroupTrackingError:
        """The tracking error at validated ``q, v`` and reference ``q_d, v_d, a_d``, gain ``L``."""
        return _with_gain(*self.rates(q, v, q_d, v_d, a_d), L)  # Lambda may couple joints


def multibody_tracking_error(model, q, v, q_d, v_d, a_d, Lambda) -> GroupTrackingError:
    r"""Joint-wise group error, reference speeds and their exact rate for a multibody model.

    Every joint's configuration lives in a Lie group (:attr:`Joint.manifold
    <geomech.multibody.model.joints.Joint>`: :math:`\mathbb R` for 1-DoF joints, SO(3) for
    spherical, SE(2) planar, Schönflies, SE(3) free-flyer joints) with body speeds
    (:math:`q_i \oplus \delta = q_i \exp\delta`). The error of :func:`group_tracking_error`
    (left-invariant frame) is taken joint by joint,

    .. math::

        g_{e,i} = q_{d,i}^{-1} q_i,\quad e_i = \log g_{e,i},\quad
        T = \operatorname{blockdiag}_i(\operatorname{Ad}_{g_{e,i}^{-1}}),\quad
        \xi_e = v - T v_d,\quad \dot e_i = J_r(e_i)^{-1}\xi_{e,i},

    .. math::

        v_r = T v_d - \Lambda e,\qquad
        a_r = T a_d - \operatorname{blockdiag}_i(\operatorname{ad}_{\xi_{e,i}})\,T v_d
              - \Lambda\dot e,

    with :math:`\Lambda` any :math:`n_v\times n_v` matrix (it may couple joints). ``a_r`` is
    the exact rate :math:`\tfrac{d}{dt}v_r(q(t), t)` along a motion with speeds ``v``, so
    the Slotine–Li loop satisfies :math:`\dot V = -s^\top K_D s` exactly (seed 000 eq. 14).
    On 1-DoF joints (:math:`T = 1`, :math:`\operatorname{ad} = 0`, :math:`J = 1`) this is
    the coordinate law :math:`e = q - q_d`, :math:`v_r = v_d - \Lambda e`,
    :math:`a_r = a_d - \Lambda(v - v_d)`. ``e`` is ``model.difference(q_d, q)``
    (principal logarithm on spherical and free-flyer joints, the unwrapped angle on planar
    and Schönflies joints); see :mod:`geomech.control.reference` for the cut locus.

    Parameters
    ----------
    model : MultibodyModel
        The model (its joints and the layout of ``q`` and ``v``).
    q : array_like, shape (..., nq)
        Configuration (unit quaternions on spherical and free-flyer joints).
    v : array_like, shape (..., nv)
        Joint speeds (body speeds on multi-DoF joints).
    q_d : array_like, shape (..., nq)
        Desired configuration.
    v_d, a_d : array_like, shape (..., nv)
        Desired joint speeds (:math:`\dot q_{d,i} = q_{d,i}\hat v_{d,i}`) and their time
        derivative.
    Lambda : float or array_like, shape (nv, nv)
        Error gain :math:`\Lambda` (a scalar means :math:`\lambda\mathbf 1`).

    Returns
    -------
    GroupTrackingError
        Named tuple ``(e, v_r, a_r, e_dot)``, each of shape ``(..., nv)``.

    Raises
    ------
    GeomechError
        If ``model`` is not a :class:`~geomech.multibody.MultibodyModel`, or a multi-DoF
        joint has no Lie group of dimension ``nv`` as its manifold.
    DimensionError
        If an input has the wrong trailing shape, ``Lambda`` is not scalar or
        ``(nv, nv)``, or the leading dimensions do not broadcast.
    NonFiniteError, NotOnManifoldError
        If an input is not finite or a quaternion is not of unit norm.

    References
    ----------
    seed 000 §IV-A1 eq. (13), Remark 5 (reference velocity as a vector field, the sign of
    :math:`\Lambda` corrected); seed 001 Remark 5 (body speeds of spherical and free-flyer joints).

    Examples
    --------
    A free-flyer rotated by 0.4 rad about z from the desired pose, which moves forward at
    1 m/s: the desired velocity seen from the body is :math:`\operatorname{Ad}_{g_e^{-1}}
    v_d` (turned by -0.4 rad), and on :math:`s = 0` the log error decays as
    :math:`\dot e = -\Lambda e`:

    >>> import numpy as np
    >>> from geomech.control.reference import multibody_tracking_error
    >>> from geomech.multibody import FreeFlyer, MultibodyModel
    >>> from geomech.spatial import spatial_inertia
    >>> model = MultibodyModel.from_bodies([-1], [FreeFlyer()], [spatial_inertia(
    ...     1.0, np.zeros(3), 0.1 * np.eye(3))])
    >>> q_d = model.neutral()
    >>> q = model.integrate(q_d, [0.0, 0.0, 0.4, 0.0, 0.0, 0.0])
    >>> v_d = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0])
    >>> err = multibody_tracking_error(model, q, np.zeros(6), q_d, v_d, np.zeros(6), 2.0)
    >>> np.round(err.e, 6)
    array([0. , 0. , 0.4, 0. , 0. , 0. ])
    >>> np.round(err.v_r, 6)
    array([ 0.      ,  0.      , -0.8     ,  0.921061, -0.389418,  0.      ])
    >>> err = multibody_tracking_error(model, q, err.v_r, q_d, v_d, np.zeros(6), 2.0)
    >>> bool(np.allclose(err.e_dot, -2.0 * err.e))
    True
    """
    from geomech.multibody.model.system import MultibodySystem

    if not isinstance(model, MultibodySystem):
        raise DTypeError(
            f"Expected `model` to be a geomech MultibodyModel, got {type(model).__name__}."
        )
    q, q_d = (model.frame.validate_point(x, name) for x, name in ((q, "q"), (q_d, "q_d")))
    v, v_d, a_d = (
        as_array(x, name, (model.nv,)) for x, name in ((v, "v"), (v_d, "v_d"), (a_d, "a_d"))
    )
    L = _lambda_matrix(Lambda, model.nv)
    try:
        np.broadcast_shapes(
            q.shape[:-1], v.shape[:-1], q_d.shape[:-1], v_d.shape[:-1], a_d.shape[:-1]
        )
    except ValueError as exc:
        raise DimensionError(
            f"Expected the leading (batch) dimensions of `q` {q.shape}, `v` {v.shape}, `q_d` "
            f"{q_d.shape}, `v_d` {v_d.shape} and `a_d` {a_d.shape} to broadcast."
        ) from exc
    return JointwiseTrackingError(model)(q, v, q_d, v_d, a_d, L)
