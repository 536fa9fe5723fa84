r"""Rigid-body dynamics of kinematic trees: RNEA, CRBA, ABA, gravity and kinetic energy.

The equations of motion in the model's speeds :math:`\nu` (joint rates, body twists for
free-flyers, body angular velocities for spherical joints) are

.. math::
    \mathbf H(q)\,\dot\nu + \mathbf c(q, \nu) + \mathbf g(q) = \boldsymbol\tau
    + \textstyle\sum_i \mathbf J_i^\top \mathbf f^{\rm ext}_i .

The algorithms are Featherstone's (*Rigid Body Dynamics Algorithms*, 2008, Tables 5.1, 6.2
and 7.1) in the notation of seed 001 (§1.3–§2.1): ``X_up[i]`` is
:math:`{}^i\mathbf X_{p(i)}`, ``Phi[i]`` the motion subspace :math:`\boldsymbol\Phi_i`,
``Phi_ring[i]`` its rate in body coordinates :math:`\mathring{\boldsymbol\Phi}_i`, ``I_C``
the composite inertias, ``I_A``/``p_A`` the articulated inertias and bias forces, ``parent``
the parent array (``-1`` for the fixed world). Multi-DoF joints are handled as blocks (the
columns ``model.v_slices[i]``). Each algorithm is one Python loop over the bodies; every
statement in the loop is vectorised over the leading batch dimensions of the inputs.

Gravity enters as the fictitious acceleration of the fixed world, :math:`\mathbf a_0 =
[\mathbf 0; -\mathbf g]` (Featherstone §5.3), with ``gravity`` the world-frame vector
(default ``model.gravity`` = ``[0, 0, -9.81]``). External wrenches ``f_ext`` are
``[n; f]`` acting on each body, in body coordinates (moment about the body frame origin).

References
----------
Seed 001 §1.3–§2.1 (eqs. 5, 7, 12, 13); R. Featherstone, *Rigid Body Dynamics Algorithms*,
Springer 2008, §5.3 (RNEA), §6.2 (CRBA), §7.3 (ABA).
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array
from geomech.errors import SingularityError
from geomech.multibody.kinematics import (
    _T,
    _batch_shape,
    _check_q,
    _check_v,
    _congruence,
    _crf_mv,
    _crm_mv,
    _joint_data,
    _JointData,
    _mtv,
    _mv,
    _velocities,
)

__all__ = ["rnea", "crba", "aba", "gravity_forces", "kinetic_energy"]

#: An articulated-inertia block Φᵀ I^A Φ counts as singular when its smallest eigenvalue is
#: at most this fraction of the largest entry of I^A.
SINGULAR_RTOL = 1e-12


# ----------------------------------------------------------------------------------------
# input checks (once, at the public boundary)
# ----------------------------------------------------------------------------------------


def _check_gravity(model, gravity) -> np.ndarray:
    if gravity is None:
        return np.asarray(model.gravity, dtype=float)
    return as_array(gravity, "gravity", (3,))


def _check_f_ext(model, f_ext) -> np.ndarray | None:
    if f_ext is None:
        return None
    return as_array(f_ext, "f_ext", (model.n_bodies, 6))


def _a_world(gravity: np.ndarray) -> np.ndarray:
    """Spatial acceleration of the fixed world that emulates gravity: a_0 = [0; -g]."""
    a_0 = np.zeros(gravity.shape[:-1] + (6,))
    a_0[..., 3:] = -gravity
    return a_0


# ----------------------------------------------------------------------------------------
# cores (no validation)
# ----------------------------------------------------------------------------------------


def _rnea(model, jd: _JointData, v, a, a_0, f_ext, batch) -> np.ndarray:
    """Recursive Newton-Euler algorithm on precomputed joint data (seed 001 §2.1)."""
    parent = model.parent.tolist()
    v_slices, I = model.v_slices, model.inertias
    vel, acc, f = [], [], []

    # ---- forward pass: velocities, accelerations and body forces -----------------------
    for i in range(model.n_bodies):
        nu_i = v[..., v_slices[i]]
        v_J = _mv(jd.Phi[i], nu_i)  # Φ_i ν_i
        p = parent[i]
        v_i = v_J if p < 0 else _mv(jd.X_up[i], vel[p]) + v_J  # seed 001 eq. 5 (v_0 = 0)
        a_p = a_0 if p < 0 else acc[p]  # a_0 = -g: gravity as a fictitious base acceleration
        # seed 001 eq. 12 with Φ̇_i ν_i = (v_i ×) Φ_i ν_i + Φ̊_i ν_i (§1.4)
        a_i = _mv(jd.X_up[i], a_p) + _mv(jd.Phi[i], a[..., v_slices[i]]) + _crm_mv(v_i, v_J)
        if jd.Phi_ring is not None:
            a_i = a_i + _mv(jd.Phi_ring[i], nu_i)
        h_i = _mv(I[i], v_i)
        f_i = _mv(I[i], a_i) + _crf_mv(v_i, h_i)  # seed 001 eq. 7
        if f_ext is not None:
            f_i = f_i - f_ext[..., i, :]
        vel.append(v_i)
        acc.append(a_i)
        f.append(f_i)

    # ---- backward pass: joint forces -----------------------------------------------------
    tau = np.zeros(batch + (model.nv,))
    for i in reversed(range(model.n_bodies)):
        tau[..., v_slices[i]] = _mtv(jd.Phi[i], f[i])  # seed 001 eq. 13: τ_i = Φ_iᵀ f_i
        p = parent[i]
        if p >= 0:
            f[p] = f[p] + _mtv(jd.X_up[i], f[i])  # f_{p(i)} += ^iX_{p(i)}ᵀ f_i
    return tau


def _crba(model, jd: _JointData, batch) -> np.ndarray:
    """Composite-rigid-body algorithm on precomputed joint data (seed 001 Alg. 1, M part)."""
    parent = model.parent.tolist()
    v_slices = model.v_slices
    I_C = list(model.inertias)  # seed 001 Alg. 1 l.5: I^C_i = I_i
    H = np.zeros(batch + (model.nv, model.nv))

    # ---- backward pass: composite inertias and the blocks of H along each support path --
    for j in reversed(range(model.n_bodies)):
        s_j = v_slices[j]
        if s_j.stop > s_j.start:
            F = I_C[j] @ jd.Phi[j]  # seed 001 Alg. 1 l.10: F2 = I^C_j Φ_j
            M_jj = _T(jd.Phi[j]) @ F  # l.13: M_jj = Φ_jᵀ F2
            # a multi-DoF block is symmetric only to rounding: make H exactly symmetric
            H[..., s_j, s_j] = M_jj if M_jj.shape[-1] == 1 else 0.5 * (M_jj + _T(M_jj))
            i = j
            while parent[i] >= 0:  # l.16: walk to the root
                F = _T(jd.X_up[i]) @ F  # l.17: re-express in frame p(i) before stepping
                i = parent[i]
                s_i = v_slices[i]
                H[..., s_i, s_j] = _T(jd.Phi[i]) @ F  # l.21: M_ij = Φ_iᵀ F2
                H[..., s_j, s_i] = _T(H[..., s_i, s_j])  # M_ji = M_ijᵀ
        if parent[j] >= 0:  # l.24 (guarded): I^C_{p(j)} += X_jᵀ I^C_j X_j
            I_C[parent[j]] = I_C[parent[j]] + _congruence(jd.X_up[j], I_C[j])
    return H


def _aba(model, jd: _JointData, v, tau, a_0, f_ext, batch) -> np.ndarray:
    """Articulated-body algorithm on precomputed joint data (Featherstone Table 7.1)."""
    parent = model.parent.tolist()
    v_slices, n = model.v_slices, model.n_bodies
    vel, c, I_A, p_A = [], [], [], []

    # ---- forward pass 1: velocities, velocity-product accelerations, bias forces --------
    for i in range(n):
        nu_i = v[..., v_slices[i]]
        v_J = _mv(jd.Phi[i], nu_i)
        p = parent[i]
        v_i = v_J if p < 0 else _mv(jd.X_up[i], vel[p]) + v_J  # seed 001 eq. 5
        c_i = _crm_mv(v_i, v_J)  # c_i = Φ̇_i ν_i = (v_i ×) Φ_i ν_i + Φ̊_i ν_i
        if jd.Phi_ring is not None:
            c_i = c_i + _mv(jd.Phi_ring[i], nu_i)
        I_i = model.inertias[i]
        p_i = _crf_mv(v_i, _mv(I_i, v_i))  # p^A_i = v_i ×* I_i v_i − f^ext_i
        if f_ext is not None:
            p_i = p_i - f_ext[..., i, :]
        vel.append(v_i)
        c.append(c_i)
        I_A.append(I_i)
        p_A.append(p_i)

    # ---- backward pass: articulated inertias I^A_i and bias forces p^A_i -----------------
    U, D_inv, u = [None] * n, [None] * n, [None] * n
    for i in reversed(range(n)):
        s_i = v_slices[i]
        if s_i.stop > s_i.start:
            U[i] = I_A[i] @ jd.Phi[i]  # U_i = I^A_i Φ_i
            D = _T(jd.Phi[i]) @ U[i]  # D_i = Φ_iᵀ U_i
            D_inv[i] = _inverse_articulated(model, i, D, I_A[i])
            u[i] = tau[..., s_i] - _mtv(jd.Phi[i], p_A[i])  # u_i = τ_i − Φ_iᵀ p^A_i
        p = parent[i]
        if p < 0:
            continue
        if U[i] is None:  # a joint without freedom (fixed) passes I^A and p^A on unchanged
            I_a, p_a = I_A[i], p_A[i] + _mv(I_A[i], c[i])
        else:
            UD = U[i] @ D_inv[i]
            I_a = I_A[i] - UD @ _T(U[i])  # I^a = I^A − U D⁻¹ Uᵀ
            p_a = p_A[i] + _mv(I_a, c[i]) + _mv(UD, u[i])  # p^a = p^A + I^a c + U D⁻¹ u
        I_A[p] = I_A[p] + _congruence(jd.X_up[i], I_a)  # I^A_p += X_upᵀ I^a X_up
        p_A[p] = p_A[p] + _mtv(jd.X_up[i], p_a)  # p^A_p += X_upᵀ p^a

    # ---- forward pass 2: accelerations ---------------------------------------------------
    dv = np.zeros(batch + (model.nv,))
    acc = [None] * n
    for i in range(n):
        p = parent[i]
        a_i = _mv(jd.X_up[i], a_0 if p < 0 else acc[p]) + c[i]  # a'_i = X_up a_p + c_i
        if U[i] is not None:
            s_i = v_slices[i]
            dv_i = _mv(D_inv[i], u[i] - _mtv(U[i], a_i))  # ν̇_i = D⁻¹ (u_i − U_iᵀ a'_i)
            dv[..., s_i] = dv_i
            a_i = a_i + _mv(jd.Phi[i], dv_i)  # a_i = a'_i + Φ_i ν̇_i
        acc[i] = a_i
    return dv


def _inverse_articulated(model, i: int, D: np.ndarray, I_A: np.ndarray) -> np.ndarray:
    """D⁻¹ for D = Φᵀ I^A Φ, raising SingularityError (naming body i) when D is singular."""
    if D.shape[-1] == 1:
        lam = D[..., 0, 0]
    else:
        lam = np.linalg.eigvalsh(0.5 * (D + _T(D)))[..., 0]
    scale = np.max(np.abs(I_A), axis=(-1, -2))
    bad = ~(lam > SINGULAR_RTOL * scale)
    if np.any(bad):
        k = int(np.flatnonzero(np.ravel(bad))[0])
        lam_k = float(np.broadcast_to(lam, np.shape(bad)).ravel()[k])
        index = tuple(int(x) for x in np.unravel_index(k, np.shape(bad)))
        where = f" (batch element {index})" if index else ""
        raise SingularityError(
            f"Articulated inertia Phiᵀ I^A Phi of body {model.body_names[i]!r} (index {i}) is "
            f"singular{where}: smallest eigenvalue {lam_k:.3g}, expected > "
            f"{SINGULAR_RTOL:g} x |I^A|. The subtree of this body has no inertia along its "
            f"joint's motion subspace (zero-mass links?)."
        )
    if D.shape[-1] == 1:
        return 1.0 / D
    return np.linalg.inv(D)


# ----------------------------------------------------------------------------------------
# public API
# ----------------------------------------------------------------------------------------


def rnea(model, q, v, a, gravity=None, f_ext=None) -> np.ndarray:
    r"""Inverse dynamics by the recursive Newton–Euler algorithm.

    .. math::
        \boldsymbol\tau = \mathbf H(q)\,\dot\nu + \mathbf c(q, \nu) + \mathbf g(q)
        - \textstyle\sum_i \mathbf J_i^\top\mathbf f^{\rm ext}_i

    computed as (seed 001 §2.1): forward pass :math:`\mathbf v_i = {}^i\mathbf X_{p(i)}
    \mathbf v_{p(i)} + \boldsymbol\Phi_i\nu_i`, :math:`\mathbf a_i = {}^i\mathbf X_{p(i)}
    \mathbf a_{p(i)} + \boldsymbol\Phi_i\dot\nu_i + \dot{\boldsymbol\Phi}_i\nu_i`,
    :math:`\mathbf f_i = \mathbf I_i\mathbf a_i + \mathbf v_i\times^*\mathbf I_i\mathbf v_i
    - \mathbf f^{\rm ext}_i`; backward pass :math:`\boldsymbol\tau_i =
    \boldsymbol\Phi_i^\top\mathbf f_i`, :math:`\mathbf f_{p(i)} \mathrel{+}=
    {}^i\mathbf X_{p(i)}^\top\mathbf f_i`.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
        Configurations.
    v : array_like, shape (..., nv)
        Speeds :math:`\nu`.
    a : array_like, shape (..., nv)
        Accelerations :math:`\dot\nu`.
    gravity : array_like, shape (..., 3), optional
        Gravity in the world frame; default ``model.gravity``.
    f_ext : array_like, shape (..., N, 6), optional
        External wrench ``[n; f]`` on each body, in body coordinates.

    Returns
    -------
    ndarray, shape (..., nv)
        Generalised forces :math:`\boldsymbol\tau`.

    Raises
    ------
    DimensionError
        On wrong trailing shapes or non-broadcastable batch dimensions.
    NonFiniteError
        On NaN or inf entries.

    References
    ----------
    Seed 001 eqs. 5, 7, 12, 13 (§2.1); Featherstone 2008, Table 5.1.

    Examples
    --------
    Holding a double pendulum (unit point masses on unit links) horizontal takes
    :math:`g\,(m_1 l_1 + m_2 (l_1 + l_2)) = 3g` at the shoulder and :math:`g m_2 l_2 = g`
    at the elbow:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.dynamics import rnea
    >>> model = robots.double_pendulum()
    >>> rnea(model, [np.pi / 2, 0.0], [0.0, 0.0], [0.0, 0.0])
    array([29.43,  9.81])
    """
    q, v, a = _check_q(model, q), _check_v(model, v), _check_v(model, a, "a")
    gravity, f_ext = _check_gravity(model, gravity), _check_f_ext(model, f_ext)
    pairs = [(q, 1), (v, 1), (a, 1), (gravity, 1)] + ([] if f_ext is None else [(f_ext, 2)])
    batch = _batch_shape(*pairs)
    jd = _joint_data(model, q, v)
    return _rnea(model, jd, v, a, _a_world(gravity), f_ext, batch)


def crba(model, q) -> np.ndarray:
    r"""Joint-space inertia matrix :math:`\mathbf H(q)` by the composite-rigid-body algorithm.

    .. math::
        \mathbf H_{ij} = \boldsymbol\Phi_i^\top\,\mathbf I^C_j\,\boldsymbol\Phi_j
        \quad (i\preceq j),\qquad \mathbf I^C_j = \textstyle\sum_{k\succeq j}\mathbf I_k

    (seed 001 eq. 19), with blocks of unrelated bodies zero. Unlike ``pinocchio.crba`` in
    C++, the full symmetric matrix is returned.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)

    Returns
    -------
    ndarray, shape (..., nv, nv)
        Symmetric positive (semi-)definite :math:`\mathbf H`; kinetic energy is
        :math:`\tfrac12\nu^\top\mathbf H\nu`.

    Raises
    ------
    DimensionError
        If ``q`` is not of shape (..., nq).
    NonFiniteError
        If ``q`` has NaN or inf entries.

    References
    ----------
    Seed 001 Alg. 1 (the M lines 5, 10, 13, 16–21, 24) and eq. 19; Featherstone 2008,
    Table 6.2.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.dynamics import crba
    >>> model = robots.double_pendulum()
    >>> crba(model, [0.3, 0.0])   # [[(m1 + m2) l1² + m2 l2² + 2 m2 l1 l2, ...], ...]
    array([[5., 2.],
           [2., 1.]])
    """
    q = _check_q(model, q)
    return _crba(model, _joint_data(model, q), q.shape[:-1])


def aba(model, q, v, tau, gravity=None, f_ext=None) -> np.ndarray:
    r"""Forward dynamics :math:`\dot\nu` by the articulated-body algorithm.

    .. math::
        \dot\nu = \mathbf H(q)^{-1}\big(\boldsymbol\tau - \mathbf c(q, \nu) - \mathbf g(q)
        + \textstyle\sum_i\mathbf J_i^\top\mathbf f^{\rm ext}_i\big)

    in :math:`O(N)`: the backward pass builds the articulated inertias
    :math:`\mathbf I^A_i` and bias forces :math:`\mathbf p^A_i`, using
    :math:`\mathbf U_i = \mathbf I^A_i\boldsymbol\Phi_i`, :math:`\mathbf D_i =
    \boldsymbol\Phi_i^\top\mathbf U_i` and :math:`\mathbf u_i = \boldsymbol\tau_i -
    \boldsymbol\Phi_i^\top\mathbf p^A_i`; the second forward pass gives
    :math:`\dot\nu_i = \mathbf D_i^{-1}(\mathbf u_i - \mathbf U_i^\top\mathbf a'_i)`.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    tau : array_like, shape (..., nv)
        Generalised forces.
    gravity : array_like, shape (..., 3), optional
        Gravity in the world frame; default ``model.gravity``.
    f_ext : array_like, shape (..., N, 6), optional
        External wrench ``[n; f]`` on each body, in body coordinates.

    Returns
    -------
    ndarray, shape (..., nv)
        Accelerations :math:`\dot\nu`.

    Raises
    ------
    DimensionError
        On wrong trailing shapes or non-broadcastable batch dimensions.
    NonFiniteError
        On NaN or inf entries.
    SingularityError
        If some :math:`\mathbf D_i` is singular (e.g. a zero-mass leaf link); the message
        names the body.

    References
    ----------
    Featherstone 2008, Table 7.1 (with :math:`\mathbf c_i = \dot{\boldsymbol\Phi}_i\nu_i`,
    seed 001 §1.4).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.dynamics import aba, rnea
    >>> model = robots.double_pendulum()
    >>> q, v, a = np.array([0.3, -0.5]), np.array([1.0, 2.0]), np.array([0.1, 0.2])
    >>> bool(np.allclose(aba(model, q, v, rnea(model, q, v, a)), a))
    True
    """
    q, v, tau = _check_q(model, q), _check_v(model, v), _check_v(model, tau, "tau")
    gravity, f_ext = _check_gravity(model, gravity), _check_f_ext(model, f_ext)
    pairs = [(q, 1), (v, 1), (tau, 1), (gravity, 1)] + ([] if f_ext is None else [(f_ext, 2)])
    batch = _batch_shape(*pairs)
    jd = _joint_data(model, q, v)
    return _aba(model, jd, v, tau, _a_world(gravity), f_ext, batch)


def gravity_forces(model, q, gravity=None) -> np.ndarray:
    r"""Generalised gravity forces :math:`\mathbf g(q)` = ``rnea(model, q, 0, 0, gravity)``.

    .. math::
        \mathbf g(q) = -\textstyle\sum_i \mathbf J_i^\top\,\mathbf I_i\,
        {}^i\mathbf X_0\,[\mathbf 0; \mathbf g]

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    gravity : array_like, shape (..., 3), optional
        Gravity in the world frame; default ``model.gravity``.

    Returns
    -------
    ndarray, shape (..., nv)

    Raises
    ------
    DimensionError
        On wrong trailing shapes.
    NonFiniteError
        On NaN or inf entries.

    References
    ----------
    Seed 001 eq. 1; Featherstone 2008, §5.3.

    Examples
    --------
    A double pendulum hanging straight down needs no torque:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.dynamics import gravity_forces
    >>> model = robots.double_pendulum()
    >>> bool(np.allclose(gravity_forces(model, model.neutral()), 0.0))
    True
    """
    q, gravity = _check_q(model, q), _check_gravity(model, gravity)
    batch = _batch_shape((q, 1), (gravity, 1))
    zero = np.zeros(model.nv)
    jd = _joint_data(model, q)
    return _rnea(model, jd, zero, zero, _a_world(gravity), None, batch)


def kinetic_energy(model, q, v) -> np.ndarray:
    r"""Kinetic energy :math:`T = \tfrac12\sum_i \mathbf v_i^\top\mathbf I_i\mathbf v_i = \tfrac12\nu^\top\mathbf H\nu`.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)

    Returns
    -------
    ndarray, shape (...)

    Raises
    ------
    DimensionError
        On wrong trailing shapes or non-broadcastable batch dimensions.
    NonFiniteError
        On NaN or inf entries.

    References
    ----------
    Seed 001 Remark 4 (eq. 29).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.dynamics import crba, kinetic_energy
    >>> model = robots.double_pendulum()
    >>> q, v = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    >>> bool(np.isclose(kinetic_energy(model, q, v), 0.5 * v @ crba(model, q) @ v))
    True
    """
    q, v = _check_q(model, q), _check_v(model, v)
    vel = _velocities(model, _joint_data(model, q), v)
    T = 0.0
    for i, v_i in enumerate(vel):
        T = T + np.sum(v_i * _mv(model.inertias[i], v_i), axis=-1)
    return 0.5 * np.broadcast_to(T, _batch_shape((q, 1), (v, 1)))
