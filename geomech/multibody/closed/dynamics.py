r"""Dynamics of closed chains by the dense baselines: projection and Lagrange multipliers.

On a closed model (:class:`~geomech.multibody.closed.model.ClosedMultibodyModel`) the equations of
motion in the independent speeds ``v`` are those of the spanning tree projected on the
constraint manifold (seed 004 §2.4, seed 000 §VI-C1):

.. math::
    \bar H(q)\,\dot v + \bar c(q, v) = \tau, \qquad
    \bar H = G^\top H G, \qquad \bar c = G^\top\big(c_s(q, Gv) + H g\big)

with :math:`H`, :math:`c_s` (bias, gravity and external forces included) the spanning tree's
and :math:`\dot q_s = G v`, :math:`\ddot q_s = G\dot v + g`. The baselines here:

- ``"projection"``: inverse dynamics :math:`\tau = G^\top\,\mathrm{RNEA}_s(q, Gv, G\dot v + g)`
  (the *projected RNEA*), the mass matrix :math:`G^\top H G` (from the spanning tree's CRBA)
  and forward dynamics :math:`\dot v = \bar H^{-1}(\tau - \bar c)` (the *projection method*);
- ``"cluster"`` (the default): seed 004's C-RNEA and C-ABA on the cluster connectivity
  tree, compiled kernels (``geomech.multibody._kernels.cluster.dynamics``),
  :func:`cluster_rnea` and :func:`cluster_aba`;
- ``"lagrange"``: forward dynamics from the KKT system on the spanning tree,

  .. math::
      \begin{bmatrix} H & K^\top \\ K & 0\end{bmatrix}
      \begin{bmatrix}\ddot q_s \\ -\lambda\end{bmatrix} =
      \begin{bmatrix}\tau_s - c_s \\ k\end{bmatrix}

  with :math:`\tau_s` the spanning-tree forces (``tau`` on the independent joints, zero on
  the dependent ones, so that :math:`G^\top\tau_s = \tau`), :math:`K` a full-row-rank
  velocity constraint and :math:`k = -\dot K\dot q_s`; :math:`\dot v` is read off the
  independent rows of :math:`\ddot q_s`.

:func:`closed_rnea`, :func:`closed_crba` and :func:`closed_aba` select a method by name from
a registry (:data:`METHODS`), where the cluster algorithms of seed 004 are registered as
``"cluster"``, the default; the public ``rnea``, ``aba``, ``crba`` and ``gravity_forces`` of
:mod:`geomech.multibody.algorithms.dynamics` route closed models here.
:func:`inverse_operational_space_inertia` gives the inverse operational-space inertia of body
frames by seed 004's C-EFPA (``"efpa"``) or by the dense projection (``"projection"``), on
closed models and trees alike.

References
----------
Seed 004 §2.4 (projected RNEA, projection and Lagrange-multiplier methods), eqs. (1)–(3),
Sec. VI (C-RNEA), Algorithm 1 (C-ABA), Sec. VIII (C-EFPA); seed 000 §VI-C1
(:math:`\bar H = A^\top H A`).
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array
from geomech.errors import ModelError
from geomech.multibody._kernels.cluster import dynamics as CK
from geomech.multibody._kernels.cluster.compiled import cluster_layout
from geomech.multibody._kernels.driver import are_states, call, entry, failure, states
from geomech.multibody.algorithms.dynamics import crba, rnea
from geomech.multibody.algorithms.kinematics import body_jacobians
from geomech.multibody.closed.transmission import rotor_ratios

__all__ = [
    "METHODS",
    "register_method",
    "closed_rnea",
    "closed_crba",
    "closed_aba",
    "closed_gravity_forces",
    "projected_rnea",
    "projected_crba",
    "projected_aba",
    "lagrange_aba",
    "lagrange_rnea",
    "cluster_rnea",
    "cluster_aba",
    "inverse_operational_space_inertia",
    "link_reflected_inertia_model",
    "reflected_inertia",
]


def _checked(model, q, v=None):
    if not getattr(model, "is_closed", False):
        raise ModelError(
            f"Expected a closed model (ClosedMultibodyModel), got {type(model).__name__}."
        )
    q = model.check_configuration(q)
    if v is None:
        return q, None
    return q, as_array(v, "v", (model.nv,))


def _lift(model, x, n_s):
    """Independent-joint vector -> spanning vector (zeros on the dependent joints)."""
    out = np.zeros(x.shape[:-1] + (n_s,))
    out[..., model.independent_v_index] = x
    return out


def projected_rnea(model, q, v, a, gravity=None, f_ext=None) -> np.ndarray:
    r"""Inverse dynamics of a closed model by the projected RNEA.

    .. math:: \tau = G^\top\,\mathrm{RNEA}_s\big(q,\ G v,\ G\dot v + g\big)

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
        Closed configurations.
    v, a : array_like, shape (..., nv)
        Independent speeds and accelerations.
    gravity : array_like, shape (..., 3), optional
    f_ext : array_like, shape (..., N, 6), optional
        External wrenches on the bodies, in body coordinates.

    Returns
    -------
    ndarray, shape (..., nv)

    Raises
    ------
    ModelError
        If ``model`` is not closed.
    NotOnManifoldError
        If ``q`` does not satisfy the constraints.

    References
    ----------
    Seed 004 §2.4 (projected RNEA), §5 identity 1.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.dynamics import projected_rnea, projected_aba
    >>> model = load_example("four_bar")
    >>> q, v, a = model.neutral(), np.array([1.0]), np.array([0.5])
    >>> tau = projected_rnea(model, q, v, a)
    >>> bool(np.allclose(projected_aba(model, q, v, tau), a))
    True
    """
    q, v = _checked(model, q, v)
    a = as_array(a, "a", (model.nv,))
    G, g = model.constraint_matrices(q, v)
    qd = np.einsum("...ij,...j->...i", G, v)
    qdd = np.einsum("...ij,...j->...i", G, a) + g
    tau_s = rnea(model.spanning_tree, q, qd, qdd, gravity, f_ext)
    return np.einsum("...ij,...i->...j", G, tau_s)


def projected_crba(model, q) -> np.ndarray:
    r"""Mass matrix of a closed model, :math:`\bar H = G^\top H G`.

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
        Closed configurations.

    Returns
    -------
    ndarray, shape (..., nv, nv)

    Raises
    ------
    ModelError
        If ``model`` is not closed.
    NotOnManifoldError
        If ``q`` does not satisfy the constraints.

    References
    ----------
    Seed 004 §5 identity 2; seed 000 §VI-C1.

    Examples
    --------
    A geared rotor adds its reflected inertia :math:`N^2 I_{\rm rotor}` to its link:

    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.dynamics import projected_crba
    >>> model = load_example("geared_chain")
    >>> H = projected_crba(model, model.neutral())
    >>> H.shape, bool(np.allclose(H, H.T))
    ((3, 3), True)
    """
    q, _ = _checked(model, q)
    G, _ = model.constraint_matrices(q, np.zeros(q.shape[:-1] + (model.nv,)))
    H = crba(model.spanning_tree, q)
    return np.swapaxes(G, -1, -2) @ H @ G


def _bias(model, q, v, gravity, f_ext):
    """(G, Hs, c̄ = Gᵀ(c_s + H g)) at the states."""
    G, g = model.constraint_matrices(q, v)
    qd = np.einsum("...ij,...j->...i", G, v)
    c_s = rnea(model.spanning_tree, q, qd, g, gravity, f_ext)  # c_s + H g in one pass
    return G, g, np.einsum("...ij,...i->...j", G, c_s)


def projected_aba(model, q, v, tau, gravity=None, f_ext=None) -> np.ndarray:
    r"""Forward dynamics of a closed model by the projection method.

    .. math:: \dot v = (G^\top H G)^{-1}\big(\tau - G^\top(c_s + H g)\big)

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
        Closed configurations.
    v, tau : array_like, shape (..., nv)
        Independent speeds and generalized forces (dual to ``v``).
    gravity : array_like, shape (..., 3), optional
    f_ext : array_like, shape (..., N, 6), optional

    Returns
    -------
    ndarray, shape (..., nv)

    Raises
    ------
    ModelError
        If ``model`` is not closed.
    NotOnManifoldError
        If ``q`` does not satisfy the constraints.

    References
    ----------
    Seed 004 §2.4 (projection method), §5 identity 3.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.dynamics import projected_aba, lagrange_aba
    >>> model = load_example("planar_leg")
    >>> q, v, tau = model.random_configuration(rng=0), np.ones(2), np.zeros(2)
    >>> bool(np.allclose(projected_aba(model, q, v, tau), lagrange_aba(model, q, v, tau)))
    True
    """
    q, v = _checked(model, q, v)
    tau = as_array(tau, "tau", (model.nv,))
    G, _, c_bar = _bias(model, q, v, gravity, f_ext)
    H_bar = np.swapaxes(G, -1, -2) @ crba(model.spanning_tree, q) @ G
    return np.linalg.solve(H_bar, (tau - c_bar)[..., None])[..., 0]


def _kkt_inputs(model, q, v, x, name, gravity, f_ext):
    """Validated, broadcast ``q, v, x`` and the spanning tree's H and bias c_s at q̇_s = G v
    (the blocks of the Lagrange baselines' KKT systems).
    """
    q, v = _checked(model, q, v)
    x = as_array(x, name, (model.nv,))
    batch = np.broadcast_shapes(q.shape[:-1], v.shape[:-1], x.shape[:-1])
    q = np.broadcast_to(q, batch + (model.nq,))
    v = np.broadcast_to(v, batch + (model.nv,))
    x = np.broadcast_to(x, batch + (model.nv,))
    st = model.spanning_tree
    G, _ = model.constraint_matrices(q, v)
    qd = np.einsum("...ij,...j->...i", G, v)
    c_s = rnea(st, q, qd, np.zeros(batch + (st.nv,)), gravity, f_ext)
    return batch, q, v, x, crba(st, q), c_s


def lagrange_aba(model, q, v, tau, gravity=None, f_ext=None) -> np.ndarray:
    r"""Forward dynamics of a closed model by the Lagrange-multiplier (KKT) method.

    Solves the KKT system of the module docstring on the spanning tree and returns the
    independent rows of :math:`\ddot q_s`.

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
        Closed configurations.
    v, tau : array_like, shape (..., nv)
    gravity : array_like, shape (..., 3), optional
    f_ext : array_like, shape (..., N, 6), optional

    Returns
    -------
    ndarray, shape (..., nv)

    Raises
    ------
    ModelError
        If ``model`` is not closed.
    NotOnManifoldError
        If ``q`` does not satisfy the constraints.

    References
    ----------
    Seed 004 §2.4 (Lagrange multiplier method), §5 identity 4.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.dynamics import lagrange_aba
    >>> model = load_example("four_bar")
    >>> lagrange_aba(model, model.neutral(), [0.0], [0.0]).shape
    (1,)
    """
    batch, q, v, tau, H, c_s = _kkt_inputs(model, q, v, tau, "tau", gravity, f_ext)
    n = H.shape[-1]
    rhs_s = _lift(model, tau, n) - c_s
    out = np.empty(batch + (model.nv,))
    for idx in np.ndindex(batch):
        K, k = model.constraint_jacobian(q[idx], v[idx])
        r = K.shape[0]
        kkt = np.zeros((n + r, n + r))
        kkt[:n, :n], kkt[:n, n:], kkt[n:, :n] = H[idx], K.T, K
        sol = np.linalg.solve(kkt, np.concatenate([rhs_s[idx], k]))
        out[idx] = sol[:n][model.independent_v_index]
    return out


def lagrange_rnea(model, q, v, a, gravity=None, f_ext=None) -> np.ndarray:
    r"""Inverse dynamics of a closed model by Lagrange multipliers (the KKT system).

    With :math:`E` the injection of the independent joints' speeds into the spanning tree's,
    the spanning accelerations, the independent torques and the multipliers solve

    .. math::
        \begin{bmatrix} H & -E & -K^\top\\ E^\top & 0 & 0\\ K & 0 & 0\end{bmatrix}
        \begin{bmatrix}\ddot q_s\\ \tau\\ \lambda\end{bmatrix} =
        \begin{bmatrix} -c_s\\ \dot v\\ k\end{bmatrix}

    (least squares where planar loops give redundant, consistent rows of :math:`K`): the
    baseline of C-RNEA that uses the implicit constraint :math:`K\ddot q_s = k`, not
    :math:`G`.

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
    v, a : array_like, shape (..., nv)
        Independent speeds and accelerations.
    gravity : array_like, shape (3,), optional
    f_ext : array_like, shape (N, 6), optional

    Returns
    -------
    ndarray, shape (..., nv)

    Raises
    ------
    DimensionError, NonFiniteError
        If an input is malformed.
    NotOnManifoldError
        If ``q`` does not satisfy the constraints.

    References
    ----------
    Seed 004 §2.4 (Lagrange multiplier method).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.dynamics import lagrange_rnea, projected_rnea
    >>> model = load_example("four_bar")
    >>> q, v, a = model.neutral(), np.array([0.5]), np.array([1.0])
    >>> bool(np.allclose(lagrange_rnea(model, q, v, a), projected_rnea(model, q, v, a)))
    True
    """
    batch, q, v, a, H, c_s = _kkt_inputs(model, q, v, a, "a", gravity, f_ext)
    n, m = H.shape[-1], model.nv
    E = _lift(model, np.eye(m), n).T  # (n, m): E τ puts τ on the independent joints
    out = np.empty(batch + (m,))
    for idx in np.ndindex(batch):
        K, k = model.constraint_jacobian(q[idx], v[idx])
        r = K.shape[0]
        kkt = np.zeros((n + m + r, n + m + r))
        kkt[:n, :n], kkt[:n, n : n + m], kkt[:n, n + m :] = H[idx], -E, -K.T
        kkt[n : n + m, :n], kkt[n + m :, :n] = E.T, K
        rhs = np.concatenate([-c_s[idx], a[idx], k])
        sol = np.linalg.lstsq(kkt, rhs, rcond=None)[0]
        out[idx] = sol[n : n + m]
    return out


def closed_gravity_forces(model, q, gravity=None) -> np.ndarray:
    r"""Generalized gravity forces of a closed model, :math:`G^\top g_s(q)`.

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
    gravity : array_like, shape (..., 3), optional

    Returns
    -------
    ndarray, shape (..., nv)

    Raises
    ------
    ModelError
        If ``model`` is not closed.
    NotOnManifoldError
        If ``q`` does not satisfy the constraints.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.dynamics import closed_gravity_forces, projected_rnea
    >>> model = load_example("four_bar")
    >>> q, z = model.neutral(), np.zeros(1)
    >>> bool(np.allclose(closed_gravity_forces(model, q), projected_rnea(model, q, z, z)))
    True
    """
    q, _ = _checked(model, q)
    z = np.zeros(q.shape[:-1] + (model.nv,))
    return projected_rnea(model, q, z, z, gravity)


# ----------------------------------------------------------------------------------------
# seed 004's cluster algorithms (compiled kernels)
# ----------------------------------------------------------------------------------------
_NO_FORCES = np.zeros((1, 0, 6))


def _cluster_inputs(model, gravity, f_ext, *named):
    """Validated batch, a_0 = [0; −g], f_ext and the per-state constraint arrays."""
    lay = cluster_layout(model)
    extra = []
    if gravity is not None:
        extra.append(("gravity", gravity, (3,)))
    if f_ext is not None:
        extra.append(("f_ext", f_ext, (model.n_bodies, 6)))
    batch, B, arrays = states(*named, *extra)
    n = len(named)
    if gravity is None:
        A0 = lay.tree.compiled.a0
    else:
        A0 = np.zeros((arrays[n].shape[0], 6))
        A0[:, 3:] = -arrays[n]
        A0.flags.writeable = False  # as the model's a_0 (one kernel signature)
    F = arrays[-1] if f_ext is not None else _NO_FORCES
    Q, V = arrays[0], arrays[1]
    if getattr(model, "is_closed", False) and lay.all_static:
        lay.check_static(Q)  # constant G: only the couplings' residuals to check
    Gc, gs = lay.constraint_arrays(Q, V)  # otherwise validated while G and g are computed
    return lay, batch, B, arrays[:n], A0, F, Gc, gs


def _joint_arrays(lay, Q, V, Gc):
    r"""``(S, S_ring, T_user)`` of the spanning tree's joints; the rates :math:`\mathring S`
    of user joints are taken at the spanning speeds :math:`\dot q_s = G v` (not at ``v``).
    """
    cm = lay.tree.compiled
    if not cm.has_user_joints:
        return cm.joint_arrays(Q)
    return cm.joint_arrays(Q, lay.spanning_speeds(Gc, V))


def _one_state(model, q, v, x):
    """``(lay, cm, Gc, gs, Q, V, X)`` for one state given as contiguous float64 arrays of a
    model without user joints (``q`` checked against the constraints), else None.

    The fast path of :func:`cluster_rnea` and :func:`cluster_aba` (as the tree's, driver's
    :func:`~geomech.multibody._kernels.driver.are_states`): the batch kernel called on views
    of one row through its entry point; anything else (lists, batches, other dtypes,
    gravity, forces) takes :func:`_cluster_inputs`.
    """
    lay = cluster_layout(model)
    cm = lay.tree.compiled
    if cm.user or not are_states(q, v, x, cm.nq, lay.nv):
        return None
    Q, V = q[None], v[None]
    if lay.all_static and getattr(model, "is_closed", False):
        lay.check_static(Q)  # constant G: only the couplings' residuals to check
    Gc, gs = lay.constraint_arrays(Q, V)  # otherwise validated while G and g are computed
    return lay, cm, Gc, gs, Q, V, x[None]


def _one_call(kernel, model, one, names, inputs, what):
    """Run a cluster batch ``kernel`` on the single state ``one`` (:func:`_one_state`)."""
    lay, cm, Gc, gs, Q, V, X = one
    out, status = np.empty((1, lay.nv)), np.empty(1, dtype=np.int64)
    if entry(kernel)(*cm.arrays(), lay.cbody, lay.cclus, lay.yidx, cm.S, cm.S_ring, cm.T_user,
                     Gc, gs, Q, V, X, cm.a0, _NO_FORCES, out, status):  # fmt: skip
        raise failure(status[0], model, names, inputs, what)
    return out[0]


def _shaped(out, batch):
    return out[0] if not batch else out.reshape(batch + out.shape[1:])


def cluster_rnea(model, q, v, a, gravity=None, f_ext=None) -> np.ndarray:
    r"""Inverse dynamics of a closed model by seed 004's C-RNEA.

    Forward pass over the clusters :math:`\mathsf v_k = {}^k\mathsf X_{\lambda(k)}
    \mathsf v_{\lambda(k)} + \mathsf S_k\dot y_k`, :math:`\mathsf a_k = {}^k\mathsf
    X_{\lambda(k)}\mathsf a_{\lambda(k)} + \mathsf S_k\ddot y_k + \mathsf c_k`,
    :math:`\mathsf f_k = \mathsf I_k\mathsf a_k + \mathsf v_k\times^*\mathsf I_k\mathsf v_k`
    (eqs. 33–34); backward pass

    .. math::
        \tau_k = \mathsf S_k^\top\mathsf f_k, \qquad \mathsf f_{\lambda(k)} \mathrel{+}=
        {}^{\lambda(k)}\mathsf X^*_k\,\mathsf f_k \quad\text{(eqs. 31, 35)}

    with :math:`\mathsf S_k = {}^{\Lambda(k)}\mathsf X_{\lambda(k)}\bar{\mathsf S}_k
    \mathsf G_k` (eq. 24). The result equals the projected RNEA
    :math:`G^\top\mathrm{RNEA}_s(q, Gv, G\dot v + g)` (seed 004 §5 identity 1). On a tree
    (one body per cluster) it is the RNEA.

    Parameters
    ----------
    model : ClosedMultibodyModel or MultibodyModel
    q : array_like, shape (..., nq)
        Closed configurations.
    v, a : array_like, shape (..., nv)
        Independent speeds and accelerations.
    gravity : array_like, shape (..., 3), optional
        Default ``model.gravity``.
    f_ext : array_like, shape (..., N, 6), optional
        External wrenches on the bodies, in body coordinates.

    Returns
    -------
    ndarray, shape (..., nv)
        Independent generalized forces :math:`\tau = G^\top\tau_s`.

    Raises
    ------
    DimensionError, NonFiniteError
        On malformed inputs.
    NotOnManifoldError
        If ``q`` does not satisfy the constraints.

    References
    ----------
    Seed 004 Sec. VI, eqs. 31–35, with the velocity product :math:`\mathbf v_k\times
    \mathbf S_k\dot{\mathbf y}_k` of eq. 26 in the bias :math:`\mathbf c_k` (Algorithm 1,
    line 18, prints it without).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.dynamics import cluster_rnea, projected_rnea
    >>> model = load_example("belt_leg")
    >>> q, v, a = model.random_configuration(rng=0), np.ones(3), np.ones(3)
    >>> bool(np.allclose(cluster_rnea(model, q, v, a), projected_rnea(model, q, v, a)))
    True
    """
    if gravity is None and f_ext is None:
        one = _one_state(model, q, v, a)
        if one is not None:
            return _one_call(CK.c_rnea_batch, model, one, ("q", "v", "a"), (q, v, a), "tau")
    lay = cluster_layout(model)
    st = lay.tree
    cm = st.compiled
    lay, batch, B, (Q, V, A), A0, F, Gc, gs = _cluster_inputs(
        model, gravity, f_ext, ("q", q, (st.nq,)), ("v", v, (lay.nv,)), ("a", a, (lay.nv,))
    )
    TAU = np.empty((B, lay.nv))
    call(
        CK.c_rnea_batch,
        (*cm.arrays(), lay.cbody, lay.cclus, lay.yidx),
        (*_joint_arrays(lay, Q, V, Gc), Gc, gs, Q, V, A, A0, F, TAU),
        batch,
        model,
        names=("S", "S_ring", "T_user", "G", "g", "q", "v", "a", "gravity", "f_ext"),
        what="tau",
    )
    return _shaped(TAU, batch)


def cluster_aba(model, q, v, tau, gravity=None, f_ext=None) -> np.ndarray:
    r"""Forward dynamics of a closed model by seed 004's C-ABA (Algorithm 1).

    Backward pass over the clusters with the articulated-cluster inertias and biases

    .. math::
        \mathsf U_k = \mathsf I^A_k\mathsf S_k,\quad \mathsf D_k = \mathsf S_k^\top\mathsf U_k,
        \quad \mathsf u_k = \tau_k - \mathsf S_k^\top\mathsf p^A_k,\qquad
        \mathsf I^A_{\lambda(k)} \mathrel{+}= {}^{\lambda(k)}\mathsf X^*_k(\mathsf I^A_k -
        \mathsf U_k\mathsf D_k^{-1}\mathsf U_k^\top){}^k\mathsf X_{\lambda(k)}

    then :math:`\ddot y_k = \mathsf D_k^{-1}(\mathsf u_k - \mathsf U_k^\top({}^k\mathsf
    X_{\lambda(k)}\mathsf a_{\lambda(k)} + \mathsf c_k))` outward. Equals the projection
    method :math:`(G^\top HG)^{-1}(\tau - G^\top(c_s + Hg))` in :math:`O(N_C\,l^3)` for
    :math:`N_C` clusters of at most :math:`l` bodies. On a tree it is the ABA.

    Parameters
    ----------
    model : ClosedMultibodyModel or MultibodyModel
    q : array_like, shape (..., nq)
        Closed configurations.
    v, tau : array_like, shape (..., nv)
        Independent speeds and generalized forces (dual to ``v``).
    gravity : array_like, shape (..., 3), optional
    f_ext : array_like, shape (..., N, 6), optional

    Returns
    -------
    ndarray, shape (..., nv)
        Independent accelerations :math:`\ddot y`; the spanning-tree accelerations are
        :math:`G\ddot y + g`.

    Raises
    ------
    DimensionError, NonFiniteError
        On malformed inputs.
    NotOnManifoldError
        If ``q`` does not satisfy the constraints.
    SingularityError
        If some :math:`\mathsf D_k` is singular (a singular configuration of a loop, or
        massless bodies).

    References
    ----------
    Seed 004 Algorithm 1, eqs. 49–56, with the printed typos corrected: line 18's
    :math:`\mathbf c_k` gains the velocity product :math:`\mathbf v_k\times\mathbf S_k
    \dot{\mathbf y}_k` of eq. 26 (and :math:`\mathbf G_k\dot{\mathbf y}_k` for
    :math:`\mathbf G_k\mathbf y_k`), and eq. 54 reads :math:`\mathbf U\mathbf D^{-1}
    \mathbf U^\top`.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.dynamics import cluster_aba, cluster_rnea
    >>> model = load_example("four_bar")
    >>> q, v, a = model.random_configuration(rng=0), np.array([1.0]), np.array([0.5])
    >>> bool(np.allclose(cluster_aba(model, q, v, cluster_rnea(model, q, v, a)), a))
    True
    """
    if gravity is None and f_ext is None:
        one = _one_state(model, q, v, tau)
        if one is not None:
            names, inputs = ("q", "v", "tau"), (q, v, tau)
            return _one_call(CK.c_aba_batch, model, one, names, inputs, "the accelerations")
    lay = cluster_layout(model)
    st = lay.tree
    cm = st.compiled
    lay, batch, B, (Q, V, TAU), A0, F, Gc, gs = _cluster_inputs(
        model, gravity, f_ext, ("q", q, (st.nq,)), ("v", v, (lay.nv,)), ("tau", tau, (lay.nv,))
    )
    A = np.empty((B, lay.nv))
    call(
        CK.c_aba_batch,
        (*cm.arrays(), lay.cbody, lay.cclus, lay.yidx),
        (*_joint_arrays(lay, Q, V, Gc), Gc, gs, Q, V, TAU, A0, F, A),
        batch,
        model,
        names=("S", "S_ring", "T_user", "G", "g", "q", "v", "tau", "gravity", "f_ext"),
        what="the accelerations",
    )
    return _shaped(A, batch)


def _body_indices(model, bodies):
    if isinstance(bodies, (str, int, np.integer)):
        bodies = [bodies]
    try:
        bodies = list(bodies)
    except TypeError:
        raise ModelError(
            f"Expected `bodies` to be a body name, an index or a sequence of them, got "
            f"{type(bodies).__name__}."
        ) from None
    if not bodies:
        raise ModelError("Expected `bodies` to name at least one body, got none.")
    out = []
    for b in bodies:
        if isinstance(b, (int, np.integer)) and not isinstance(b, bool):
            if not 0 <= int(b) < model.n_bodies:
                raise ModelError(f"Expected body indices in [0, {model.n_bodies}), got {b}.")
            out.append(int(b))
        else:
            out.append(model.body_index(b))
    return np.asarray(out, dtype=np.int64)


def inverse_operational_space_inertia(model, q, bodies, method: str = "efpa") -> np.ndarray:
    r"""Inverse operational-space inertia :math:`\Omega = J\bar H^{-1}J^\top` of body frames.

    .. math::
        \Omega = J_y\,(G^\top HG)^{-1}J_y^\top,\qquad J_y = J_q G

    with :math:`J_q` the stacked body Jacobians (body coordinates, twist ``[ω; v]`` of each
    body frame) over the spanning-tree speeds; on a tree :math:`G = \mathbf 1`. A wrench
    ``f`` (stacked, body coordinates) applied at rest without gravity or joint forces gives
    the body accelerations :math:`\Omega f`.

    Parameters
    ----------
    model : ClosedMultibodyModel or MultibodyModel
    q : array_like, shape (..., nq)
        Closed configurations.
    bodies : str, int or sequence of them
        The end-effector bodies (names or indices); their frames are the end-effectors.
    method : {"efpa", "projection"}
        ``"efpa"``: seed 004's C-EFPA (compiled kernel, force propagators over the cluster
        tree); ``"projection"``: the dense formula above (the baseline).

    Returns
    -------
    ndarray, shape (..., 6 n_ee, 6 n_ee)
        Symmetric positive semi-definite; block ``(e1, e2)`` maps the wrench on body
        ``bodies[e2]`` to the acceleration of body ``bodies[e1]``.

    Raises
    ------
    ModelError
        On an unknown method or body.
    DimensionError, NonFiniteError, NotOnManifoldError
        On malformed or open configurations.
    SingularityError
        If the mass matrix is singular.

    References
    ----------
    Seed 004 Sec. VIII (C-EFPA, eqs. 57–67; checked against
    :math:`\mathbf J_y(\mathbf G^\top\mathbf H\mathbf G)^{-1}\mathbf J_y^\top`,
    :math:`\mathbf J_y = \mathbf J_q\mathbf G`);
    P. M. Wensing, R. Featherstone, D. E. Orin, "A reduced-order recursive algorithm for the
    computation of the operational-space inertia matrix", ICRA 2012 (the EFPA).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.dynamics import inverse_operational_space_inertia
    >>> model = load_example("planar_leg")
    >>> q = model.random_configuration(rng=0)
    >>> W = inverse_operational_space_inertia(model, q, ["foot"])
    >>> W_ref = inverse_operational_space_inertia(model, q, ["foot"], method="projection")
    >>> W.shape, bool(np.allclose(W, W_ref))
    ((6, 6), True)
    """
    if method not in ("efpa", "projection"):
        raise ModelError(f"Expected `method` from ['efpa', 'projection'], got {method!r}.")
    lay = cluster_layout(model)
    st = lay.tree
    ee = _body_indices(model, bodies)
    closed = getattr(model, "is_closed", False)
    if method == "projection":
        q = model.check_configuration(q) if closed else as_array(q, "q", (st.nq,))
        if closed:
            G, _ = model.constraint_matrices(q, np.zeros(q.shape[:-1] + (model.nv,)))
        else:
            G = np.broadcast_to(np.eye(st.nv), q.shape[:-1] + (st.nv, st.nv))
        J = body_jacobians(st, q)[..., ee, :, :]
        J = J.reshape(J.shape[:-3] + (6 * ee.size, st.nv)) @ G
        H_bar = np.swapaxes(G, -1, -2) @ crba(st, q) @ G
        X = np.linalg.solve(H_bar, np.swapaxes(J, -1, -2))
        return J @ X
    cm = st.compiled
    batch, B, (Q,) = states(("q", q, (st.nq,)))
    if closed and lay.all_static:
        lay.check_static(Q)
    Gc, _ = lay.constraint_arrays(Q, None)
    OMEGA = np.empty((B, 6 * ee.size, 6 * ee.size))
    call(
        CK.c_efpa_batch,
        (*cm.arrays(), lay.cbody, lay.cclus, lay.yidx),
        (*cm.joint_arrays(Q, None), Gc, Q, ee, OMEGA),
        batch,
        model,
        names=("S", "S_ring", "T_user", "G", "q"),
        what="the inverse operational-space inertia",
    )
    return _shaped(OMEGA, batch)


#: Registry of the closed-model algorithms by kind and method name.
METHODS = {
    "rnea": {"cluster": cluster_rnea, "projection": projected_rnea, "lagrange": lagrange_rnea},
    "crba": {"projection": projected_crba},
    "aba": {"cluster": cluster_aba, "projection": projected_aba, "lagrange": lagrange_aba},
}


def register_method(kind: str, name: str, func) -> None:
    """Register an algorithm for closed models (seed 004's C-RNEA/C-ABA are ``"cluster"``).

    Parameters
    ----------
    kind : {"rnea", "crba", "aba"}
    name : str
        Method name; the one registered as ``"cluster"`` is the default.
    func : callable
        Same signature as the projection baseline of that kind.

    Raises
    ------
    ModelError
        On an unknown ``kind`` or a ``func`` that is not callable.

    Examples
    --------
    >>> from geomech.multibody.closed.dynamics import METHODS, projected_rnea, register_method
    >>> register_method("rnea", "projection-copy", projected_rnea)
    >>> sorted(METHODS["rnea"])
    ['cluster', 'lagrange', 'projection', 'projection-copy']
    >>> del METHODS["rnea"]["projection-copy"]
    """
    if kind not in METHODS:
        raise ModelError(f"Expected `kind` from {sorted(METHODS)!r}, got {kind!r}.")
    if not callable(func):
        raise ModelError(f"Expected `func` to be callable, got {type(func).__name__}.")
    METHODS[kind][str(name)] = func


def _method(kind: str, method):
    table = METHODS[kind]
    if method is None:
        method = "cluster" if "cluster" in table else "projection"
    if method not in table:
        raise ModelError(
            f"Expected `method` for {kind} on a closed model from {sorted(table)!r}, "
            f"got {method!r}."
        )
    return table[method]


def closed_rnea(model, q, v, a, gravity=None, f_ext=None, method=None) -> np.ndarray:
    """Inverse dynamics of a closed model by a named method (the hook of ``rnea``).

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
    v, a : array_like, shape (..., nv)
    gravity : array_like, shape (..., 3), optional
    f_ext : array_like, shape (..., N, 6), optional
    method : str, optional
        A name from ``METHODS["rnea"]``: ``"cluster"`` (C-RNEA, the default),
        ``"projection"`` or ``"lagrange"``.

    Returns
    -------
    ndarray, shape (..., nv)

    Raises
    ------
    ModelError
        On an unknown method or a model that is not closed.
    NotOnManifoldError
        If ``q`` does not satisfy the constraints.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.dynamics import closed_rnea
    >>> model = load_example("four_bar")
    >>> closed_rnea(model, model.neutral(), [0.0], [0.0], method="projection").shape
    (1,)
    """
    return _method("rnea", method)(model, q, v, a, gravity, f_ext)


def closed_crba(model, q, method=None) -> np.ndarray:
    """Mass matrix of a closed model by a named method (the hook of ``crba``).

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
    method : str, optional
        A name from ``METHODS["crba"]``.

    Returns
    -------
    ndarray, shape (..., nv, nv)

    Raises
    ------
    ModelError
        On an unknown method or a model that is not closed.
    NotOnManifoldError
        If ``q`` does not satisfy the constraints.

    Examples
    --------
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.dynamics import closed_crba
    >>> closed_crba(load_example("six_bar"), load_example("six_bar").neutral()).shape
    (1, 1)
    """
    return _method("crba", method)(model, q)


def closed_aba(model, q, v, tau, gravity=None, f_ext=None, method=None) -> np.ndarray:
    """Forward dynamics of a closed model by a named method (the hook of ``aba``).

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
    v, tau : array_like, shape (..., nv)
    gravity : array_like, shape (..., 3), optional
    f_ext : array_like, shape (..., N, 6), optional
    method : str, optional
        A name from ``METHODS["aba"]``: ``"cluster"`` (C-ABA, the default),
        ``"projection"`` or ``"lagrange"``.

    Returns
    -------
    ndarray, shape (..., nv)

    Raises
    ------
    ModelError
        On an unknown method or a model that is not closed.
    NotOnManifoldError
        If ``q`` does not satisfy the constraints.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.dynamics import closed_aba
    >>> model = load_example("belt_leg")
    >>> q, v, tau = model.neutral(), np.zeros(3), np.zeros(3)
    >>> a1 = closed_aba(model, q, v, tau, method="projection")
    >>> a2 = closed_aba(model, q, v, tau, method="lagrange")
    >>> bool(np.allclose(a1, a2))
    True
    """
    return _method("aba", method)(model, q, v, tau, gravity, f_ext)


# ----------------------------------------------------------------------------------------
# a reflected-inertia approximation on the links (not seed 004's: that one is
# closed.transmission.approximate_transmission_model)
# ----------------------------------------------------------------------------------------
def reflected_inertia(model):
    """Deprecated name of :func:`link_reflected_inertia_model` (not seed 004's model).

    Parameters
    ----------
    model : ClosedMultibodyModel

    Returns
    -------
    MultibodyModel

    Warns
    -----
    DeprecationWarning
        Always: call :func:`link_reflected_inertia_model` (the same model), or
        :func:`~geomech.multibody.closed.transmission.approximate_transmission_model` for
        seed 004's approximate model.

    Examples
    --------
    >>> import warnings
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.dynamics import reflected_inertia
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     approx = reflected_inertia(load_example("geared_chain"))
    >>> caught[0].category.__name__
    'DeprecationWarning'
    """
    import warnings

    warnings.warn(
        "reflected_inertia is deprecated: it is not seed 004's approximate model. Call "
        "link_reflected_inertia_model (the same model: N² I_r ΦΦᵀ on the link's spatial "
        "inertia), or approximate_transmission_model (the paper's: diag(N² I_rot) on the "
        "joint-space mass matrix).",
        DeprecationWarning,
        stacklevel=2,
    )
    return link_reflected_inertia_model(model)


def link_reflected_inertia_model(model):
    r"""A geared model's rotors folded into its links' spatial inertias: a tree without rotors.

    Every rotor (a leaf body on a revolute joint driven through couplings,
    :math:`\dot q_r = \sum_j N_{rj}\dot y_j`, constant :math:`N_{rj}` from :math:`G`) is
    removed: its spatial inertia (at its zero angle) is added to its parent body, and each
    driving link :math:`j` absorbs the rotor's axial inertia times the squared ratio,

    .. math::
        \mathbf I_j \mathrel{+}= N_{rj}^2\,I_{r}\,\boldsymbol\Phi_j\boldsymbol\Phi_j^\top,
        \qquad I_r = \boldsymbol\Phi_r^\top\mathbf I_r\boldsymbol\Phi_r,

    a rotational inertia about the joint axis. The diagonal term of the rotor is then exact,
    :math:`\tilde H_{jj} \ni N_{rj}^2 I_r` as in :math:`G^\top HG`, and the rotor's coupling is
    not: for an axisymmetric rotor with its centre of mass on its axis :math:`\mathbf a_r`,
    driven by link :math:`l` of axis :math:`\mathbf a_l` hanging from the same parent
    :math:`p` (:math:`\boldsymbol\omega_p = \sum_j \mathbf w_j\dot y_j`), the approximation
    changes the kinetic energy by

    .. math::
        \tfrac12 N^2 I_r(\mathbf a_l\cdot\boldsymbol\omega_p)^2
        + \dot y_l\,I_r\big(N^2\,\mathbf a_l - N\,\mathbf a_r\big)\cdot\boldsymbol\omega_p,

    i.e. :math:`\tilde H - G^\top HG` has the entries :math:`N^2 I_r (\mathbf a_l\cdot\mathbf
    w_j)(\mathbf a_l\cdot\mathbf w_k)` among the joints supporting :math:`p`, :math:`I_r(N^2
    \mathbf a_l - N\mathbf a_r)\cdot\mathbf w_j` between them and :math:`l` (the gyroscopic
    coupling of the spinning rotor with the parent's rotation, which the approximation gets
    wrong), and 0 on :math:`(l, l)`. This is **not** seed 004's approximate model, which
    adds :math:`\mathrm{diag}(N^2 I^{\rm rot})` to the joint-space mass matrix and leaves the
    links' inertias alone
    (:func:`~geomech.multibody.closed.transmission.approximate_transmission_model`): here
    the term :math:`N^2 I_r\boldsymbol\Phi_j\boldsymbol\Phi_j^\top` on link :math:`j` also
    enters every ancestor joint whose axis is not orthogonal to :math:`\mathbf a_l` (the
    entries above). (Formerly named ``reflected_inertia``, deprecated.)

    Parameters
    ----------
    model : ClosedMultibodyModel
        A model whose constraints are couplings whose successors are rotors.

    Returns
    -------
    MultibodyModel
        The tree of the remaining bodies; its ``q`` is the closed model's without the rotors'
        coordinates and its ``v`` is the closed model's ``v``.

    Raises
    ------
    ModelError
        If the model has loop joints or implicit constraints, or a coupling's successor is
        not a leaf body on a dependent revolute joint driven by revolute joints.

    References
    ----------
    Seed 004 §2.4 (its approximate RNEA/ABA, :math:`\tilde H = \mathrm{diag}(N_k^2
    I_k^{\rm rot})`, the model this one differs from), §5 identity 15, §6 trap 6.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.dynamics import link_reflected_inertia_model
    >>> from geomech.multibody.algorithms.dynamics import crba
    >>> model = load_example("geared_chain")
    >>> approx = link_reflected_inertia_model(model)
    >>> approx.n_bodies, approx.nv == model.nv
    (3, True)
    >>> H_bar, H_approx = crba(model, model.neutral()), crba(approx, approx.neutral())
    >>> bool(np.isclose(H_approx[2, 2], H_bar[2, 2]))  # the last joint: exact
    True
    """
    from geomech.multibody.model.joints import Revolute
    from geomech.multibody.model.tree import MultibodyModel
    from geomech.spatial import plucker_from_pose

    ratios = rotor_ratios(model)  # the couplings' rotors (checked) and their rows of G
    st = model.spanning_tree
    inertia = {i: st.inertias[i].copy() for i in range(st.n_bodies)}
    col_body = {}  # independent column -> body of its joint
    for i in range(st.n_bodies):
        for c in range(model.v_slices[i].start, model.v_slices[i].stop):
            col_body[c] = i
    for r, row in ratios.items():
        name = st.body_names[r]
        joint = st.joints[r]
        Phi_r = joint.motion_subspace(joint.neutral())
        I_ax = float(Phi_r[:, 0] @ st.inertias[r] @ Phi_r[:, 0])
        p = int(st.parent[r])
        if p >= 0:  # the rotor's mass and inertia ride on its parent
            X = plucker_from_pose(st.placements[r] @ joint.pose(joint.neutral()))
            inertia[p] += X.T @ st.inertias[r] @ X
        for c in np.flatnonzero(np.abs(row) > 0):
            j = col_body[int(c)]
            link = st.joints[j]
            if not isinstance(link, Revolute):
                raise ModelError(
                    f"Expected the rotor {name!r} to be driven by revolute joints, got the "
                    f"{link.kind} joint {st.joint_names[j]!r}."
                )
            Phi = link.motion_subspace(link.neutral())[:, 0]
            inertia[j] += row[c] ** 2 * I_ax * np.outer(Phi, Phi)
    graph = st.graph.copy()
    graph.remove_nodes_from(st.body_names[r] for r in ratios)
    for i in range(st.n_bodies):
        if i not in ratios:
            graph.nodes[st.body_names[i]]["inertia"] = inertia[i]
    graph.graph["name"] = f"{graph.graph.get('name') or 'model'}_reflected"
    return MultibodyModel(graph, gravity=model.gravity)
