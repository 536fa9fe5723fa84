r"""Derivatives of the dynamics: first- and second-order partials of inverse and forward dynamics.

Inverse dynamics :math:`\boldsymbol\tau = \mathrm{ID}(q, \nu, \dot\nu)`
(:func:`~geomech.multibody.algorithms.dynamics.rnea`) is differentiated analytically by the
IDSVA algorithms of seed 002, in the ground frame:

- :func:`rnea_derivatives` — :math:`\partial\boldsymbol\tau/\partial q`,
  :math:`\partial\boldsymbol\tau/\partial\nu` in :math:`O(Nd)` (seed 002 eqs. 7–8, ref. [14]);
- :func:`rnea_second_derivatives` — :math:`\partial^2\boldsymbol\tau/\partial q^2`,
  :math:`\partial^2\boldsymbol\tau/\partial\nu^2`, :math:`\partial^2\boldsymbol\tau/\partial q
  \partial\nu`, :math:`\partial\mathbf M/\partial q` in :math:`O(Nd^2)` (seed 002 Alg. 1),
  dense or block-sparse (:class:`~geomech.multibody.algorithms.blocksparse.BlockSparseTensor`);
- :func:`aba_derivatives`, :func:`aba_second_derivatives` — the partials of forward dynamics
  :math:`\dot\nu = \mathrm{FD}(q, \nu, \boldsymbol\tau)` from those of inverse dynamics at
  :math:`\dot\nu = \mathrm{FD}` (implicit function theorem, chain rule).

Conventions (where they bite)
-----------------------------
* **∂/∂q is the derivative along** ``model.integrate``: column ``k`` of
  :math:`\partial\boldsymbol\tau/\partial q` is :math:`\frac{d}{d\epsilon}\boldsymbol\tau(q\oplus
  \epsilon e_k, \nu, \dot\nu)|_0`, with the speeds held fixed; for a free-flyer or a
  spherical joint the direction :math:`e_k` is a body-frame twist (right perturbation
  :math:`T_J(q)\exp(\hat\delta)`), so every tensor is ``nv``-dimensional in every index
  (Pinocchio's convention, angular-first twists).
* **Second derivatives are iterated Lie derivatives**, the second index differentiated first:
  ``d2tau_dq2[a, b, c]`` :math:`= X_c(X_b\,\tau_a)`. The fields of one spherical, planar, Schönflies
  or free-flyer joint do not commute (body-frame speeds), so that block is *not* symmetric in ``(b,
  c)``: ``d2tau_dq2[:, b, c] - d2tau_dq2[:, c, b]`` :math:`= -s^\ell_{bc}\,\partial\tau/\partial
  q_\ell` (``s`` the structure constants,
  :func:`~geomech.multibody.algorithms.christoffel.joint_structure_constants`). A Newton or DDP step
  in the exponential chart wants the symmetric part.
* **Index layout** (torque first, Pinocchio's C++ ``ComputeRNEASecondOrderDerivatives``):
  ``d2tau_dq2[a, b, c]``, ``d2tau_dv2[a, b, c]``
  :math:`=\partial^2\tau_a/\partial\nu_b\partial\nu_c`, ``d2tau_dqdv[a, b, c]``
  :math:`=\partial^2\tau_a/\partial q_b\partial\nu_c` (q index second, ν index third), ``dM_dq[a, b,
  c]`` :math:`=\partial M_{ab}/\partial q_c` (:math:`=\partial^2\tau_a/\partial\dot\nu_b\partial
  q_c`). numpy arrays are C ordered.
* External wrenches ``f_ext`` (``[n; f]`` in body coordinates, as for ``rnea``) are
  body-fixed: they turn with their body when q moves (Pinocchio's convention).
* Joints: every built-in type (revolute, prismatic, helical, spherical, planar,
  Schönflies, free-flyer, fixed). A user-defined joint class is refused with a
  :class:`~geomech.errors.ModelError`: the algorithms need :math:`\partial\mathbf S_i/\partial
  q_i = \mathbf S_i\tilde\times\mathbf S_i` (identity K1), true for a Lie-subgroup joint with a
  constant body-frame motion subspace and a right-perturbation ``integrate``, which geomech
  cannot check on an arbitrary class (seed 002 trap 8).

References
----------
S. Singh, R. P. Russell, P. M. Wensing, "Analytical second-order partial derivatives of
rigid-body inverse dynamics", IROS 2022 (seed 002): eqs. 5–8, 16, Alg. 1, App. B. Pinocchio
``computeRNEADerivatives`` / ``computeABADerivatives`` (Carpentier & Mansard, RSS 2018) for the
conventions.
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple

import numpy as np

from geomech.errors import ModelError, NotATreeError
from geomech.multibody._kernels.driver import (
    ENTRY,
    are_vectors,
    call,
    entry,
    failure,
    single_state,
    states,
)
from geomech.multibody._kernels.status import NOT_A_VECTOR
from geomech.multibody._kernels.tables import IV
from geomech.multibody._kernels.tree import derivatives as K
from geomech.multibody._kernels.tree.layout import dense_layout
from geomech.multibody.algorithms.blocksparse import (
    BlockSparseTensor,
    layout_arrays,
    output,
    zeros,
)

_empty = np.empty

__all__ = [
    "rnea_derivatives",
    "rnea_second_derivatives",
    "second_derivatives_along",
    "aba_derivatives",
    "aba_second_derivatives",
    "RNEASecondDerivatives",
    "ABASecondDerivatives",
]


class RNEASecondDerivatives(NamedTuple):
    r"""Second-order partials of inverse dynamics (layout: torque index first, see the module).

    Each field is an ndarray of shape (..., nv, nv, nv), or a
    :class:`~geomech.multibody.algorithms.blocksparse.BlockSparseTensor` when ``sparse=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.derivatives import rnea_second_derivatives
    >>> d2 = rnea_second_derivatives(robots.double_pendulum(), [0.3, 0.1], [1.0, 0.0], [0.0, 0.0])
    >>> d2._fields
    ('d2tau_dq2', 'd2tau_dv2', 'd2tau_dqdv', 'dM_dq')
    >>> bool(np.allclose(d2.dM_dq[:, :, 0], 0.0))   # M does not depend on the first joint
    True
    """

    #: :math:`X_c X_b\tau_a` (b differentiated first)
    d2tau_dq2: np.ndarray
    #: :math:`\partial^2\tau_a/\partial\nu_b\partial\nu_c` (symmetric in b, c)
    d2tau_dv2: np.ndarray
    #: :math:`\partial^2\tau_a/\partial q_b\partial\nu_c`
    d2tau_dqdv: np.ndarray
    #: :math:`\partial M_{ab}/\partial q_c` (symmetric in a, b)
    dM_dq: np.ndarray


class ABASecondDerivatives(NamedTuple):
    r"""Second-order partials of forward dynamics :math:`\dot\nu = \mathrm{FD}(q, \nu, \tau)`.

    Each field is an ndarray of shape (..., nv, nv, nv), acceleration index first, the
    second index differentiated first.

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.derivatives import aba_second_derivatives
    >>> d2 = aba_second_derivatives(robots.double_pendulum(), [0.3, 0.1], [1.0, 0.0], [0.0, 0.0])
    >>> d2._fields
    ('d2qdd_dq2', 'd2qdd_dv2', 'd2qdd_dqdv', 'd2qdd_dqdtau')
    """

    #: :math:`X_c X_b\dot\nu_a`
    d2qdd_dq2: np.ndarray
    #: :math:`\partial^2\dot\nu_a/\partial\nu_b\partial\nu_c`
    d2qdd_dv2: np.ndarray
    #: :math:`\partial^2\dot\nu_a/\partial q_b\partial\nu_c`
    d2qdd_dqdv: np.ndarray
    #: :math:`\partial^2\dot\nu_a/\partial q_b\partial\tau_c = X_b(\mathbf M^{-1})_{ac}`
    d2qdd_dqdtau: np.ndarray


# ----------------------------------------------------------------------------------------
# validation and calls
# ----------------------------------------------------------------------------------------
def _check_model(model):
    """The compiled model, or a named error for what the derivatives do not support."""
    closed = getattr(model, "is_closed", None)  # a model of either kind has the flag
    if closed is None:
        raise ModelError(f"Expected `model` to be a MultibodyModel, got {type(model).__name__}.")
    if closed:
        raise NotATreeError(
            "Expected a kinematic tree: the derivatives of the dynamics of a closed model (in "
            "its independent speeds) are not available yet; model.spanning_tree gives those "
            "of its spanning tree."
        )
    cm = model.compiled
    if cm.has_user_joints:
        i, joint = cm.user[0]
        raise ModelError(
            f"Joint {model.joint_names[i]!r} is of the user-defined class "
            f"{type(joint).__name__}: the derivatives of the dynamics support the built-in "
            "joint types only (they need dS_i/dq_i = S_i x S_i, seed 002 K1, which holds for a "
            "Lie-subgroup joint with a constant body-frame motion subspace)."
        )
    return cm


_NO_FORCES = np.zeros((1, 0, 6))


def _inputs(model, gravity, f_ext, *named, per_state=0):
    """Validated batch of ``named`` inputs, the world acceleration a_0 = [0; -g] and f_ext.

    ``per_state``: the float64 numbers the caller allocates per state (see ``states``).
    """
    extra = [] if gravity is None else [("gravity", gravity, (3,))]
    if f_ext is not None:
        extra.append(("f_ext", f_ext, (model.n_bodies, 6)))
    batch, B, arrays = states(*named, *extra, per_state=per_state)
    k = len(named)
    if gravity is None:
        A0 = model.compiled.a0
    else:
        g = arrays.pop(k)
        A0 = np.zeros((g.shape[0], 6))
        A0[:, 3:] = -g
        A0.flags.writeable = False  # as the model's a_0 (one kernel signature)
    return batch, B, arrays[:k], A0, (arrays[k] if f_ext is not None else _NO_FORCES)


_BLAS = []  # the threadpoolctl controller of numba's BLAS (scipy's OpenBLAS), made once
#: from this many speeds on, the forward-dynamics partials run their BLAS products on one
#: thread (scipy's OpenBLAS threads its products from about this size: on two busy cores the
#: two threads made chain-100's ∂ABA 50x slower, 34 ms instead of 0.68 ms)
ONE_BLAS_THREAD_NV = 40


def _one_blas_thread():
    """A context in which the BLAS of numba's ``np.dot`` runs on one thread (~10 µs)."""
    if not _BLAS:
        import scipy.linalg.cython_blas  # noqa: F401  (loaded: the controller finds it)
        from threadpoolctl import ThreadpoolController

        _BLAS.append(ThreadpoolController())
    return _BLAS[0].limit(limits=1, user_api="blas")


def _model_args(cm):
    return (*cm.arrays(), cm.S[0], cm.T_user[0])


_NAMES = ("q", "v", "a", "gravity", "f_ext")


# ----------------------------------------------------------------------------------------
# public API
# ----------------------------------------------------------------------------------------
def rnea_derivatives(model, q, v, a, f_ext=None, *, gravity=None):
    r"""First-order partials of inverse dynamics, :math:`\partial\boldsymbol\tau/\partial q` and
    :math:`\partial\boldsymbol\tau/\partial\nu`.

    IDSVA first order (seed 002 eqs. 7–8, ref. [14]), in the ground frame, :math:`O(Nd)`:
    for DoFs ``p`` of joint ``i`` and ``t`` of an ancestor-or-self ``j ⪯ i``,

    .. math::
        \frac{\partial\tau_p}{\partial q_t} = \mathbf s_p^\top\big(\mathbf B^C_i
        \dot{\boldsymbol\psi}_t + \mathbf I^C_i\ddot{\boldsymbol\psi}_t\big),\qquad
        \frac{\partial\tau_t}{\partial q_p} = \mathbf s_t^\top\big(\mathbf B^C_i
        \dot{\boldsymbol\psi}_p + \mathbf I^C_i\ddot{\boldsymbol\psi}_p
        + \mathbf s_p\times^*\mathbf f^C_i\big)\ (j\prec i),

    .. math::
        \frac{\partial\tau_p}{\partial\nu_t} = \mathbf s_p^\top\big(\mathbf B^C_i\mathbf s_t
        + \mathbf I^C_i(\dot{\boldsymbol\psi}_t + \dot{\mathbf s}_t)\big),\qquad
        \frac{\partial\tau_t}{\partial\nu_p} = \mathbf s_t^\top\big(\mathbf B^C_i\mathbf s_p
        + \mathbf I^C_i(\dot{\boldsymbol\psi}_p + \dot{\mathbf s}_p)\big)\ (j\prec i),

    with :math:`\dot{\boldsymbol\psi}_t = \mathbf v_{\lambda(j)}\times\mathbf s_t`,
    :math:`\ddot{\boldsymbol\psi}_t = \mathbf a_{\lambda(j)}\times\mathbf s_t +
    \mathbf v_{\lambda(j)}\times\dot{\boldsymbol\psi}_t`, :math:`\dot{\mathbf s}_t =
    \mathbf v_j\times\mathbf s_t`, the composites :math:`\mathbf I^C_i`, :math:`\mathbf f^C_i`
    and :math:`\mathbf B^C_i = \sum_{k\succeq i}(\mathbf v_k\times^*)\mathbf I_k - \mathbf I_k
    (\mathbf v_k\times) + (\mathbf I_k\mathbf v_k)\bar\times^*` (twice seed 002 eq. 6).
    :math:`\partial\boldsymbol\tau/\partial\dot\nu = \mathbf M`
    (:func:`~geomech.multibody.algorithms.dynamics.crba`).

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
        Speeds :math:`\nu`.
    a : array_like, shape (..., nv)
        Accelerations :math:`\dot\nu`.
    f_ext : array_like, shape (..., N, 6), optional
        External wrenches ``[n; f]`` on the bodies, in body coordinates (body-fixed: they
        turn with their body).
    gravity : array_like, shape (..., 3), optional
        Gravity in the world frame; default ``model.gravity``.

    Returns
    -------
    dtau_dq : ndarray, shape (..., nv, nv)
        ``dtau_dq[..., a, b]`` :math:`= X_b\,\tau_a`, the derivative along
        ``model.integrate(q, δ)`` (tangent space; the module's conventions).
    dtau_dv : ndarray, shape (..., nv, nv)

    Raises
    ------
    DimensionError
        On wrong trailing shapes or non-broadcastable batch dimensions.
    NonFiniteError
        On NaN or inf entries.
    NotOnManifoldError
        If a quaternion in ``q`` is not of unit norm.
    ModelError
        If the model has a user-defined joint class (see the module), or is not a
        :class:`~geomech.multibody.MultibodyModel`.
    NotATreeError
        If the model is closed (kinematic loops, couplings): not supported yet.

    References
    ----------
    Seed 002 eqs. 5, 7a–8b (first-order IDSVA, its ref. [14]).

    Examples
    --------
    A hanging double pendulum (unit point masses on unit links):
    :math:`\partial\mathbf g/\partial q = g\begin{bmatrix}3 & 1\\ 1 & 1\end{bmatrix}`.

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.derivatives import rnea_derivatives
    >>> model = robots.double_pendulum()
    >>> dtau_dq, dtau_dv = rnea_derivatives(model, [0.0, 0.0], [0.0, 0.0], [0.0, 0.0])
    >>> dtau_dq
    array([[29.43,  9.81],
           [ 9.81,  9.81]])
    """
    try:  # a tree's arrays, once compiled (a closed model: None; not a model: the general path)
        single = model._single
    except AttributeError:
        single = None
    if (  # one state: its kernel (the kernel checks lengths and strides)
        f_ext is None
        and gravity is None
        and are_vectors(q, v, a)
        and (single is not None or (single := single_state(model)) is not None)
    ):
        topo, packed, nq, nv = single
        D = _empty((2, nv, nv))  # one allocation (the kernel zeroes it)
        ep = ENTRY.get(K.rnea_derivatives_one) or entry(K.rnea_derivatives_one)
        status = ep(topo, packed, q, v, a, D)
        if status == 0:
            return D[0], D[1]
        if status != NOT_A_VECTOR:  # (else: the general path converts or names the error)
            raise failure(status, model, ("q", "v", "a"), (q, v, a), "the derivatives")
    cm = _check_model(model)
    batch, B, (Q, V, A), A0, F = _inputs(
        model,
        gravity,
        f_ext,
        ("q", q, (cm.nq,)),
        ("v", v, (cm.nv,)),
        ("a", a, (cm.nv,)),
        per_state=2 * cm.nv**2,
    )
    nv = cm.nv
    DQ, DV = np.empty((2, B, nv, nv))  # one allocation (the kernel zeroes each state's)
    call(
        K.rnea_derivatives_batch,
        (cm.topo, cm.packed),
        (Q, V, A, A0, F, DQ, DV),
        batch,
        model,
        names=_NAMES,
        what="the derivatives",
    )
    shape = batch + (nv, nv)
    return DQ.reshape(shape), DV.reshape(shape)


def rnea_second_derivatives(model, q, v, a, f_ext=None, *, gravity=None, sparse=False):
    r"""Second-order partials of inverse dynamics by IDSVA SO (seed 002 Alg. 1), :math:`O(Nd^2)`.

    .. math::
        \frac{\partial^2\boldsymbol\tau}{\partial q^2},\quad
        \frac{\partial^2\boldsymbol\tau}{\partial\nu^2},\quad
        \frac{\partial^2\boldsymbol\tau}{\partial q\,\partial\nu},\quad
        \frac{\partial\mathbf M}{\partial q} = \frac{\partial^2\boldsymbol\tau}{\partial\dot\nu
        \,\partial q}

    (the other second partials, in :math:`\dot\nu\dot\nu` and :math:`\dot\nu\nu`, vanish).
    Alg. 1 is followed line by line (``geomech/multibody/kernels/derivatives.py``), with the
    composite :math:`\mathbf f^C_i` in line 22 and the block formulas of App. B as the
    reference (B17 with its last factor corrected to :math:`(\mathbf I^C_i\mathbf S_i)
    \tilde{\bar\times}^*\mathbf S_j`). Each block
    :math:`(i; j, k)` with :math:`k\preceq j\preceq i` is visited once per DoF triple and
    written into up to 20 entries.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    a : array_like, shape (..., nv)
    f_ext : array_like, shape (..., N, 6), optional
        Body-fixed external wrenches (as in :func:`rnea_derivatives`).
    gravity : array_like, shape (..., 3), optional
        Default ``model.gravity``.
    sparse : bool, optional
        Return :class:`~geomech.multibody.algorithms.blocksparse.BlockSparseTensor` fields
        (entries of DoF triples on one root-to-leaf path only; memory :math:`O(Nd^2)` instead
        of :math:`4n^3` doubles per state).

    Returns
    -------
    RNEASecondDerivatives
        ``(d2tau_dq2, d2tau_dv2, d2tau_dqdv, dM_dq)``, each (..., nv, nv, nv), torque index first:
        ``d2tau_dq2[a, b, c]`` :math:`= X_c(X_b\tau_a)` (b differentiated first; not symmetric
        within a spherical, planar, Schönflies or free-flyer joint), ``d2tau_dqdv[a, b, c]``
        :math:`= \partial^2\tau_a/\partial q_b\partial\nu_c`, ``dM_dq[a, b, c]``
        :math:`= \partial M_{ab}/\partial q_c` (Pinocchio's C++ layout).

    Raises
    ------
    DimensionError, NonFiniteError, NotOnManifoldError, ModelError, NotATreeError
        As :func:`rnea_derivatives`.

    References
    ----------
    Seed 002 Alg. 1, App. B (B1–B25), eqs. 19–25.

    Examples
    --------
    The velocity Hessian of a chain of revolute joints is twice the Christoffel symbols of
    the first kind, :math:`\partial^2\tau_a/\partial\nu_b\partial\nu_c = 2\Gamma_{abc}`:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.christoffel import christoffel_symbols
    >>> from geomech.multibody.algorithms.derivatives import rnea_second_derivatives
    >>> model = robots.serial_chain(4, rng=0)
    >>> q, v, a = model.random_configuration(rng=1), np.ones(4), np.zeros(4)
    >>> d2 = rnea_second_derivatives(model, q, v, a)
    >>> d2.d2tau_dv2.shape
    (4, 4, 4)
    >>> Gamma = christoffel_symbols(model, q)
    >>> bool(np.allclose(d2.d2tau_dv2, Gamma + Gamma.transpose(0, 2, 1)))
    True
    """
    cm = _check_model(model)
    nv = cm.nv
    lay, layout_args, size = layout_arrays(model, sparse)
    batch, B, (Q, V, A), A0, F = _inputs(
        model,
        gravity,
        f_ext,
        ("q", q, (cm.nq,)),
        ("v", v, (cm.nv,)),
        ("a", a, (cm.nv,)),
        per_state=4 * size,
    )
    # dense: the entries of triples on no root-to-leaf path are not written (zero); the
    # block-sparse layout is written whole (no zero-fill before the kernel's writes)
    T = output((B, 4, size)) if sparse else zeros((B, 4, size))
    call(
        K.rnea_second_derivatives_batch,
        (*_model_args(cm), *layout_args),
        (Q, V, A, A0, F, T),
        batch,
        model,
        names=_NAMES,
        what="the derivatives",
    )
    if sparse:
        T = T.reshape(batch + (4, size))
        return RNEASecondDerivatives(*(BlockSparseTensor(T[..., k, :], lay) for k in range(4)))
    T = T.reshape(batch + (4, nv, nv, nv))
    return RNEASecondDerivatives(*(T[..., k, :, :, :] for k in range(4)))


def second_derivatives_along(model, q, v, a, direction, *, gravity=None):
    r"""The second-order partials :math:`\partial^2\boldsymbol\tau/\partial q\partial\nu`
    and :math:`\partial\mathbf M/\partial q` contracted with a direction :math:`\delta q`,
    without the tensors: IDSVA SO (seed 002 Alg. 1) contracting each entry as it is formed,
    :math:`O(Nd^2)` work and :math:`O(n_v^2)` memory per state.

    .. math:: \mathrm{XQV}_{ac} = \sum_b \frac{\partial^2\tau_a}{\partial q_b
              \partial\nu_c}\delta q_b, \qquad
              \mathrm{XM}_{al} = \sum_b \frac{\partial M_{al}}{\partial q_b}\delta q_b

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v, a, direction : array_like, shape (..., nv)
    gravity : array_like, shape (..., 3), optional

    Returns
    -------
    XQV, XM : ndarray, each of shape (..., nv, nv)

    Raises
    ------
    DimensionError, NonFiniteError, NotOnManifoldError, ModelError, NotATreeError
        As :func:`rnea_second_derivatives`.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.derivatives import (
    ...     rnea_second_derivatives, second_derivatives_along)
    >>> model = robots.random_tree(5, rng=0, floating_base=True)
    >>> q, v, a = model.random_configuration(rng=1), np.ones(model.nv), np.zeros(model.nv)
    >>> dq = np.linspace(-1.0, 1.0, model.nv)
    >>> XQV, XM = second_derivatives_along(model, q, v, a, dq)
    >>> d2 = rnea_second_derivatives(model, q, v, a)
    >>> bool(np.allclose(XQV, np.einsum("abc,b->ac", d2.d2tau_dqdv, dq)))
    True
    >>> bool(np.allclose(XM, np.einsum("alb,b->al", d2.dM_dq, dq)))
    True
    """
    cm = _check_model(model)
    nv = cm.nv
    batch, B, (Q, V, A, D), A0, F = _inputs(
        model,
        gravity,
        None,
        ("q", q, (cm.nq,)),
        ("v", v, (nv,)),
        ("a", a, (nv,)),
        ("direction", direction, (nv,)),
        per_state=2 * nv * nv,
    )
    XQV, XM = np.zeros((2, B, nv, nv))  # one allocation, zeroed: the kernel accumulates
    call(
        K.rnea_second_along_batch,
        _model_args(cm),
        (Q, V, A, A0, F, D, XQV, XM),
        batch,
        model,
        names=("q", "v", "a", "gravity", "f_ext", "direction"),
        what="the derivatives",
    )
    shape = batch + (nv, nv)
    return XQV.reshape(shape), XM.reshape(shape)


def _aba_inputs(model, q, v, tau, f_ext, gravity, per_state, armature=False):
    cm = _check_model(model)
    if not armature and np.any(model.armature):  # (k_a ν̇ depends on neither q nor ν)
        raise ModelError(
            "The second-order ABA derivatives do not include a joint armature yet "
            "(model.armature is nonzero); aba_derivatives does."
        )
    batch, B, (Q, V, TAU), A0, F = _inputs(
        model,
        gravity,
        f_ext,
        ("q", q, (cm.nq,)),
        ("v", v, (cm.nv,)),
        ("tau", tau, (cm.nv,)),
        per_state=per_state(cm.nv),
    )
    return cm, batch, B, (Q, V, TAU, A0, F)


_ABA_NAMES = ("q", "v", "tau", "gravity", "f_ext")


def aba_derivatives(model, q, v, tau, f_ext=None, *, gravity=None):
    r"""First-order partials of forward dynamics :math:`\dot\nu = \mathrm{FD}(q, \nu,
    \boldsymbol\tau)`.

    From :math:`\mathrm{ID}(q, \nu, \mathrm{FD}(q, \nu, \boldsymbol\tau)) = \boldsymbol\tau`
    (implicit function theorem), with the inverse-dynamics partials taken at
    :math:`\dot\nu = \mathrm{FD}` (the ABA):

    .. math::
        \frac{\partial\dot\nu}{\partial q} = -\mathbf M^{-1}\frac{\partial\boldsymbol\tau}
        {\partial q},\qquad
        \frac{\partial\dot\nu}{\partial\nu} = -\mathbf M^{-1}\frac{\partial\boldsymbol\tau}
        {\partial\nu},\qquad
        \frac{\partial\dot\nu}{\partial\boldsymbol\tau} = \mathbf M^{-1}

    One IDSVA first-order pass at :math:`\dot\nu = 0` gives the partials there,
    :math:`\mathbf M` (eq. 16, plus the joints' armature :math:`\mathrm{diag}(\mathbf k_a)`)
    and the bias :math:`\boldsymbol\tau(q, \nu, 0)`; :math:`\dot\nu = \mathbf M^{-1}
    (\boldsymbol\tau - \boldsymbol\tau(q, \nu, 0))` by the sparse :math:`\mathbf L^\top
    \mathbf L` factor of the tree (:math:`O(nd^2)`), the partials are moved to
    :math:`\dot\nu` by adding :math:`\partial(\mathbf M\dot\nu)/\partial q`, and the
    solves reuse the factor.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    tau : array_like, shape (..., nv)
        Generalised forces.
    f_ext : array_like, shape (..., N, 6), optional
        Body-fixed external wrenches (as in :func:`rnea_derivatives`).
    gravity : array_like, shape (..., 3), optional

    Returns
    -------
    dqdd_dq, dqdd_dv, dqdd_dtau : ndarray, each of shape (..., nv, nv)
        ∂/∂q along ``model.integrate`` as in :func:`rnea_derivatives`; ``dqdd_dtau`` is
        :math:`\mathbf M^{-1}` (Pinocchio's ``computeABADerivatives`` returns the same three).

    Raises
    ------
    DimensionError, NonFiniteError, NotOnManifoldError, ModelError, NotATreeError
        As :func:`rnea_derivatives`.
    SingularityError
        If the mass matrix is singular (a massless subtree, as for ``aba``).

    References
    ----------
    Seed 002 eqs. 7–8, 16; J. Carpentier, N. Mansard, "Analytical derivatives of rigid body
    dynamics algorithms", RSS 2018 (§III-C, the same identity).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.dynamics import crba
    >>> from geomech.multibody.algorithms.derivatives import aba_derivatives
    >>> model = robots.double_pendulum()
    >>> q = np.array([0.3, -0.5])
    >>> dqdd_dq, dqdd_dv, dqdd_dtau = aba_derivatives(model, q, [1.0, 2.0], [0.0, 0.0])
    >>> bool(np.allclose(dqdd_dtau, np.linalg.inv(crba(model, q))))
    True
    """
    try:  # as in rnea_derivatives
        single = model._single
    except AttributeError:
        single = None
    if (  # one state: its kernel (the kernel checks lengths and strides)
        f_ext is None
        and gravity is None
        and are_vectors(q, v, tau)
        and (single is not None or (single := single_state(model)) is not None)
    ):
        topo, packed, nq, nv = single
        D = _empty((3, nv, nv))  # one allocation
        ep = ENTRY.get(K.aba_derivatives_one) or entry(K.aba_derivatives_one)
        if nv < ONE_BLAS_THREAD_NV:
            status = ep(topo, packed, q, v, tau, D)
        else:
            with _one_blas_thread():
                status = ep(topo, packed, q, v, tau, D)
        if status == 0:
            return D[0], D[1], D[2]
        if status != NOT_A_VECTOR:  # (else: the general path converts or names the error)
            raise failure(status, model, ("q", "v", "tau"), (q, v, tau), "the derivatives")
    cm, batch, B, args = _aba_inputs(
        model, q, v, tau, f_ext, gravity, lambda n: 6 * n**2, armature=True
    )
    nv = cm.nv
    DQ, DV, MINV = np.empty((3, B, nv, nv))  # one allocation
    with _one_blas_thread() if nv >= ONE_BLAS_THREAD_NV else contextlib.nullcontext():
        call(
            K.aba_derivatives_batch,
            (cm.topo, cm.packed),
            (*args, DQ, DV, MINV),
            batch,
            model,
            names=_ABA_NAMES,
            what="the derivatives",
        )
    shape = batch + (nv, nv)
    return DQ.reshape(shape), DV.reshape(shape), MINV.reshape(shape)


def aba_second_derivatives(model, q, v, tau, f_ext=None, *, gravity=None):
    r"""Second-order partials of forward dynamics by the chain rule through inverse dynamics.

    Differentiating :math:`\mathrm{ID}_x(q, \nu, \mathrm{FD}) + \mathbf M\,\mathrm{FD}_x = 0`
    once more along :math:`X_c` (all partials of ID at :math:`\dot\nu = \mathrm{FD}`, with
    :math:`\partial^2\mathrm{ID}/\partial\dot\nu\partial q_b = \partial\mathbf M/\partial q_b`
    and the other :math:`\dot\nu` partials zero):

    .. math::
        X_cX_b\dot\nu = -\mathbf M^{-1}\Big[X_cX_b\boldsymbol\tau
        + \frac{\partial\mathbf M}{\partial q_b}X_c\dot\nu
        + \frac{\partial\mathbf M}{\partial q_c}X_b\dot\nu\Big]

    where a :math:`\partial\mathbf M/\partial q` term is present only when its field is a q
    direction. Hence, with :math:`\mathbf D_q = \partial\dot\nu/\partial q`, :math:`\mathbf D_\nu
    = \partial\dot\nu/\partial\nu` (:func:`aba_derivatives`):

    .. math::
        \frac{\partial^2\dot\nu_a}{\partial q_b\partial q_c} &= -\big[\mathbf M^{-1}\big(
        \partial^2_{q_bq_c}\boldsymbol\tau + \partial_{q_b}\mathbf M\,\mathbf D_{q,c}
        + \partial_{q_c}\mathbf M\,\mathbf D_{q,b}\big)\big]_a \\
        \frac{\partial^2\dot\nu}{\partial\nu_b\partial\nu_c} &= -\mathbf M^{-1}
        \partial^2_{\nu_b\nu_c}\boldsymbol\tau,\qquad
        \frac{\partial^2\dot\nu}{\partial q_b\partial\nu_c} = -\mathbf M^{-1}\big(
        \partial^2_{q_b\nu_c}\boldsymbol\tau + \partial_{q_b}\mathbf M\,\mathbf D_{\nu,c}\big)\\
        \frac{\partial^2\dot\nu}{\partial q_b\partial\tau_c} &= -\mathbf M^{-1}\,
        \partial_{q_b}\mathbf M\,\mathbf M^{-1}_{:,c}

    (:math:`\mathbf D_{q,c}` the column ``c``; the :math:`\nu\tau` and :math:`\tau\tau`
    partials vanish). Cost: one IDSVA SO pass and :math:`O(n^4)` contractions.

    The result is dense: there is no block-sparse output (``sparse=True`` of
    :func:`rnea_second_derivatives`), because :math:`\mathbf M^{-1}` couples every pair of
    DoFs of one subtree of the root, so the acceleration index of every tensor above is full
    even where the triple of DoFs is not on one root-to-leaf path. Contract the
    block-sparse partials of inverse dynamics first and solve with :math:`\mathbf M` after
    (the formula above), where only a few directions are needed.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    tau : array_like, shape (..., nv)
    f_ext : array_like, shape (..., N, 6), optional
    gravity : array_like, shape (..., 3), optional

    Returns
    -------
    ABASecondDerivatives
        ``(d2qdd_dq2, d2qdd_dv2, d2qdd_dqdv, d2qdd_dqdtau)``, each (..., nv, nv, nv), the
        acceleration index first and the second index differentiated first (as
        :class:`RNEASecondDerivatives`).

    Raises
    ------
    DimensionError, NonFiniteError, NotOnManifoldError, ModelError, NotATreeError, SingularityError
        As :func:`aba_derivatives`.

    References
    ----------
    Seed 002 Alg. 1 and §IV-A (:math:`\partial^2\tau/\partial\ddot q\partial q =
    \partial\mathbf M/\partial q`); the formula above is derived in the docs page
    "Derivatives of the dynamics".

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.derivatives import aba_derivatives, aba_second_derivatives
    >>> model = robots.double_pendulum()
    >>> q, v, tau = np.array([0.3, -0.5]), np.array([1.0, 2.0]), np.array([0.5, -0.2])
    >>> d2 = aba_second_derivatives(model, q, v, tau)
    >>> h = 1e-6   # the ν-Hessian by central differences of the first order
    >>> fd = np.stack([(aba_derivatives(model, q, v + h * e, tau)[1]
    ...                 - aba_derivatives(model, q, v - h * e, tau)[1]) / (2 * h)
    ...                for e in np.eye(2)], axis=-1)
    >>> bool(np.allclose(d2.d2qdd_dv2, fd, atol=1e-6))
    True
    """
    # the dense tensors, their products with M⁻¹ and the temporaries of the assembly
    cm, batch, B, args = _aba_inputs(model, q, v, tau, f_ext, gravity, lambda n: 12 * n**3)
    nv = cm.nv
    *layout_args, size = dense_layout(model.parent, cm.topo[:, IV])
    QDD = np.empty((B, nv))
    DQ, DV, MINV = np.zeros((B, nv, nv)), np.zeros((B, nv, nv)), np.empty((B, nv, nv))
    T = np.zeros((B, 4, size))
    call(
        K.aba_second_derivatives_batch,
        (*cm.arrays(), cm.S[0], cm.S_ring[0], cm.T_user[0], *layout_args),
        (*args, QDD, DQ, DV, MINV, T),
        batch,
        model,
        names=_ABA_NAMES,
        what="the derivatives",
    )
    T = T.reshape(B, 4, nv, nv, nv)
    d2q, d2v, d2qv, dM = T[:, 0], T[:, 1], T[:, 2], T[:, 3]
    Dq, Dv = -MINV @ DQ, -MINV @ DV  # first-order partials of FD
    # (∂_{q_b} M) X[:, c] for every b: dM[:, :, b] @ X  ->  [a, b, c]
    dM_b = np.moveaxis(dM, 3, 1)  # [B, b, a, e] = ∂M_ae/∂q_b

    def dM_times(X):  # [a, b, c] = Σ_e ∂_b M_ae X[e, c]
        return np.moveaxis(dM_b @ X[:, None], 1, 2)

    def solve(X):  # -M⁻¹ X over the first index
        return -(MINV @ X.reshape(B, nv, nv * nv)).reshape(B, nv, nv, nv)

    dMDq = dM_times(Dq)
    out = ABASecondDerivatives(
        solve(d2q + dMDq + dMDq.transpose(0, 1, 3, 2)),
        solve(d2v),
        solve(d2qv + dM_times(Dv)),
        solve(dM_times(MINV)),
    )
    shape = batch + (nv, nv, nv)
    return ABASecondDerivatives(*(x.reshape(shape) for x in out))
