r"""The Slotine–Li regressor: the torques of seed 000 eq. (13) as linear functions of the inertial
parameters.

With body twists :math:`\mathbf v_i` of the actual speeds :math:`\nu`, :math:`\mathbf w_i` of
the reference speeds :math:`\nu_r` and the reference accelerations :math:`\boldsymbol\alpha_i`
of :func:`~geomech.multibody.algorithms.coriolis.slotine_li_torques`, the body wrench

.. math:: \mathbf f_i = \mathbf I_i\boldsymbol\alpha_i + \mathbf B_i(\mathbf I_i, \mathbf v_i)
          \,\mathbf w_i, \qquad \mathbf B_i = \mathbf C_i - \mathbf I_i(\mathbf v_i\times)

is linear in the spatial inertia :math:`\mathbf I_i` for every named body connection
(:mod:`geomech.multibody.connections.body`: each :math:`\mathbf C_i(\mathbf I, \mathbf v)` is
linear in :math:`\mathbf I`), and :math:`\mathbf I_i = \sum_k \pi_{i,k}\mathbf E_k` is linear
in the ten parameters :math:`\boldsymbol\pi_i` (:func:`geomech.spatial.dynamic_parameters`,
Pinocchio's order). Hence

.. math:: H(q)\,a_r + \bar C(q, \nu)\,\nu_r + g(q) = Y(q, \nu, \nu_r, a_r)\,\boldsymbol\pi,
          \qquad \boldsymbol\pi = [\boldsymbol\pi_1; \dots; \boldsymbol\pi_N] \in \mathbb R^{10N}

(seed 000 eq. 13), with the 6×10 block of body :math:`i`,
:math:`\mathbf F_i = [\mathbf E_k\boldsymbol\alpha_i + \mathbf B_i(\mathbf E_k, \mathbf v_i)
\mathbf w_i]_{k=1..10}`, propagated to the joints of its support
:math:`\kappa(i)` by the backward pass of the RNEA:
:math:`Y_{j, i} = \boldsymbol\Phi_j^\top\,{}^i\mathbf X_j^\top\mathbf F_i` for
:math:`j \preceq i` (zero otherwise). This is :math:`O(Nd)` work.

References
----------
seed 000 §IV-A1 (eq. 13, regressor form), eqs. (17), (20), (21); Slotine and Li (1987);
Niemeyer and Slotine (1991); Atkeson, An and Hollerbach (1986).
"""

from __future__ import annotations

import numpy as np

from geomech.errors import ConnectionSpecError
from geomech.multibody._kernels.driver import call, compiled, states
from geomech.multibody._kernels.tree import regressor as K
from geomech.multibody.algorithms._body_factors import (
    _UNIT,
    _body_B,
    _body_connections,
    _cached,
    _user_factor_tensor,
)
from geomech.multibody.connections.body import (
    AffineConnectionBody,
    BoltzmannHamelBody,
    CartanSchoutenBody,
    LeviCivitaBody,
    VelocityCrossBody,
)
from geomech.spatial import dynamic_parameters, inertia_from_dynamic_parameters

__all__ = ["slotine_li_regressor"]

#: The spatial inertias E_k of the ten unit parameter vectors, shape (10, 6, 6).
_BASIS = inertia_from_dynamic_parameters(np.eye(10))
#: Body connections whose B(I, v) is linear in I by construction (no run-time check).
_LINEAR_IN_INERTIA = (LeviCivitaBody, CartanSchoutenBody, VelocityCrossBody, BoltzmannHamelBody)


def _basis_factors(conn, model, i) -> np.ndarray:
    """``Bk[k, j] = B(E_k, e_j)`` (10, 6, 6, 6), linearity in the inertia checked at body i."""
    if isinstance(conn, AffineConnectionBody):
        raise ConnectionSpecError(
            f"`connection` of body {model.body_names[i]!r}: an AffineConnection has fixed "
            "coefficients, which are not linear in the body's inertia; the regressor needs a "
            "body connection C(I, v) linear in I (e.g. a name from body_connection_names())."
        )
    if type(conn) in _LINEAR_IN_INERTIA:
        return conn._B(_BASIS[:, None], _UNIT)
    Bk = np.stack([np.stack([_body_B(conn, E_k, e, model, i) for e in _UNIT]) for E_k in _BASIS])
    # a user-supplied C(I, v) must be linear in I: B(sum pi_k E_k) = sum pi_k B(E_k)
    direct = _user_factor_tensor(conn, model, i)
    combined = np.einsum("k,kjab->jab", dynamic_parameters(model.inertias[i]), Bk)
    err = float(np.max(np.abs(direct - combined), initial=0.0))
    scale = 1.0 + float(np.max(np.abs(direct), initial=0.0))
    if err > 1e-9 * scale:
        raise ConnectionSpecError(
            f"`connection` of body {model.body_names[i]!r}: expected the body Coriolis "
            f"matrix C(I, v) to be linear in the inertia I (the regressor form), got "
            f"|B(I) - sum_k pi_k B(E_k)| = {err:.3g}."
        )
    return Bk


def _body_map(Bk: np.ndarray) -> np.ndarray:
    """The 60×42 map ``F_i.flat = M [alpha_i; v_i ⊗ w_i]`` of a body (kernels.regressor)."""
    M = np.zeros((10, 6, 42))
    M[:, :, :6] = _BASIS  # E_k alpha
    M[:, :, 6:] = np.einsum("kjab->kajb", Bk).reshape(10, 6, 36)  # B(E_k, v) w
    return M.reshape(60, 42)


def _build_maps(model, connection):
    """``(span, entries, values)`` of kernels.regressor: the nonzeros of each body's map."""
    conns = _body_connections(model, connection)
    span = np.empty((model.n_bodies, 2), dtype=np.int64)
    chunks, done, start = [], {}, 0
    for i, conn in enumerate(conns):
        user = type(conn) not in _LINEAR_IN_INERTIA
        if id(conn) not in done or user:  # a user connection is checked at every body
            Bk = _basis_factors(conn, model, i)
            if id(conn) not in done:
                rows, cols = np.nonzero(_body_map(Bk))
                chunks.append((rows, cols, _body_map(Bk)[rows, cols]))
                done[id(conn)] = (start, start + len(rows))
                start += len(rows)
        span[i] = done[id(conn)]
    entries = np.concatenate([np.stack([r, c], -1) for r, c, _ in chunks]).astype(np.int64)
    values = np.concatenate([v for _, _, v in chunks])
    return span, np.ascontiguousarray(entries), values


def slotine_li_regressor(model, q, v, v_ref, a_ref, connection="levi-civita", gravity=None):
    r"""Slotine–Li regressor :math:`Y` with :math:`Y\boldsymbol\pi = H a_r + \bar C(q, \nu)\nu_r +
    g`.

    .. math::
        \boldsymbol\alpha_i = {}^i\mathbf X_{p(i)}\boldsymbol\alpha_{p(i)}
        + \boldsymbol\Phi_i a_{r,i} + \dot{\boldsymbol\Phi}_i\nu_{r,i},\quad
        \boldsymbol\alpha_0 = -\mathbf a_g,\qquad
        \mathbf F_i = \big[\mathbf E_k\boldsymbol\alpha_i
        + \mathbf B_i(\mathbf E_k, \mathbf v_i)\,\mathbf w_i\big]_{k=1}^{10},

    .. math::
        Y_{j,\,i} = \boldsymbol\Phi_j^\top\,{}^i\mathbf X_j^\top\,\mathbf F_i
        \quad (j \preceq i), \qquad Y_{j,\,i} = 0 \text{ otherwise},

    where :math:`\mathbf E_k` is the spatial inertia of the :math:`k`-th unit parameter
    vector and :math:`\mathbf B_i` the factor of the chosen body connection (linear in the
    inertia), so that :math:`Y\boldsymbol\pi` equals
    :func:`~geomech.multibody.algorithms.coriolis.slotine_li_torques` for the model's parameters
    ``pi = dynamic_parameters(model.inertias).reshape(-1)``. Columns ``10 i : 10 i + 10``
    belong to body ``i`` (model order), in Pinocchio's parameter order
    :math:`[m, m\mathbf c, I_{xx}, I_{xy}, I_{yy}, I_{xz}, I_{yz}, I_{zz}]` about the body
    frame origin. With :math:`\nu_r = \nu`, :math:`a_r = \dot\nu` and a connection with
    correct dynamics this is the inverse-dynamics regressor (Pinocchio's
    ``computeJointTorqueRegressor``). The regressor depends on the model's kinematics and
    gravity only, not on its inertias.

    Parameters
    ----------
    model : MultibodyModel or ClosedMultibodyModel
        On a closed model, :math:`G^\top Y_s` with :math:`Y_s` the spanning tree's regressor
        (:func:`~geomech.multibody.closed.coriolis.closed_slotine_li_regressor`).
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
        Actual speeds :math:`\nu`.
    v_ref : array_like, shape (..., nv)
        Reference speeds :math:`\nu_r`.
    a_ref : array_like, shape (..., nv)
        Reference accelerations :math:`a_r`.
    connection : str, BodyConnection, callable or mapping, optional
        Body connection(s) as in :func:`~geomech.multibody.algorithms.coriolis.coriolis_matrix`; the
        body Coriolis matrix must be linear in the inertia (true of every named one; checked
        at the model's inertias for user-supplied ones). An
        :class:`~geomech.geometry.AffineConnection` (fixed coefficients) is rejected.
    gravity : array_like, shape (..., 3), optional
        World gravity; default ``model.gravity`` (pass zeros to drop :math:`g`).

    Returns
    -------
    ndarray, shape (..., nv, 10 N)

    Raises
    ------
    DimensionError, NonFiniteError, NotOnManifoldError
        If an input has the wrong trailing shape, non-broadcasting batch dimensions,
        non-finite entries or a non-unit quaternion, or the result overflows.
    ConnectionSpecError
        If a body connection is malformed, fixed (an AffineConnection) or not linear in the
        inertia.

    References
    ----------
    seed 000 §IV-A1 (eq. 13), eq. (20), (21); Niemeyer and Slotine (1991); Atkeson, An and
    Hollerbach (1986).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots, slotine_li_torques
    >>> from geomech.multibody.algorithms.regressor import slotine_li_regressor
    >>> from geomech.spatial import dynamic_parameters
    >>> model = robots.double_pendulum()
    >>> q, v = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    >>> v_r, a_r = np.array([0.5, 0.1]), np.array([-1.0, 0.3])
    >>> Y = slotine_li_regressor(model, q, v, v_r, a_r, "boltzmann-hamel")
    >>> Y.shape
    (2, 20)
    >>> pi = dynamic_parameters(model.inertias).reshape(-1)
    >>> bool(np.allclose(Y @ pi, slotine_li_torques(model, q, v, v_r, a_r, "boltzmann-hamel")))
    True
    """
    if getattr(model, "is_closed", False):  # Gᵀ Y_s (geomech.multibody.closed.coriolis)
        return model.ALGORITHMS["slotine_li_regressor"](
            model, q, v, v_ref, a_ref, connection, gravity
        )
    cm = compiled(model)
    nq, nv = cm.nq, cm.nv
    gravity = model.gravity if gravity is None else gravity
    batch, B, (Q, V, V_ref, A_ref, G) = states(
        ("q", q, (nq,)),
        ("v", v, (nv,)),
        ("v_ref", v_ref, (nv,)),
        ("a_ref", a_ref, (nv,)),
        ("gravity", gravity, (3,)),
        per_state=10 * nv * cm.n_bodies,
    )
    span, entries, values = _cached(
        model, "regressor", connection, lambda: _build_maps(model, connection)
    )
    Y = np.empty((B, nv, 10 * cm.n_bodies))
    call(
        K.slotine_li_regressor_batch,
        (cm.topo, cm.placement, cm.jparam, span, entries, values),
        (*cm.joint_arrays(Q, V), Q, V, V_ref, A_ref, G, Y),
        batch,
        model,
        names=("q", "v", "q", "q", "v", "v_ref", "a_ref", "gravity"),
        what="the regressor",
    )
    return Y.reshape(batch + (nv, 10 * cm.n_bodies))
