r"""Coriolis matrices of kinematic trees induced by the connections chosen for their bodies.

A kinematic tree is :math:`N` free rigid bodies on :math:`SE(3)^N` constrained by its joints:
the body twists are :math:`\mathbf v = A(q)\,\nu` with :math:`A = \mathbf X\boldsymbol\Phi`
(seed 000 §VI-B). Choosing a connection on each body's SE(3) (body Coriolis matrix
:math:`\mathbf C_i(\mathbf v_i)`, :mod:`geomech.multibody.connections.body`) fixes the
maximal-coordinates factorization :math:`C = \operatorname{BlockDiag}(\mathbf C_i)`, and the
joints induce (seed 000 Thm. V.1, eq. 17/20)

.. math:: \bar C(q, \nu) = A^\top C A + A^\top H \dot A
          = \boldsymbol\Phi^\top\mathbf X^\top B\,\mathbf X\boldsymbol\Phi
          + \boldsymbol\Phi^\top\mathbf X^\top H\,\mathbf X\dot{\boldsymbol\Phi},
          \qquad \mathbf B_i = \mathbf C_i - \mathbf I_i(\mathbf v_i\times),

which inherits the body connections' properties (Props. V.1–V.3): skew
:math:`\dot H = \bar C + \bar C^\top` for metric-compatible ones, correct dynamics
:math:`\bar C\nu = c(q, \nu)` for those with the Riemannian geodesics, and
:math:`\bar C = \bar C^\star` (the Christoffel-consistent matrix, Pinocchio's
``computeCoriolisMatrix``) for ``"levi-civita"``.

- :func:`coriolis_matrix` evaluates it in :math:`O(Nd)` (seed 000 Alg. 1 for single bodies);
- :func:`coriolis_matrix_dense` is the maximal-coordinates reference (eq. 20);
- :func:`coriolis_matrix_differentiation` is the differentiation form (eqs. 29–32);
- :func:`mass_matrix_derivative` is :math:`\dot H = \bar C^\star + \bar C^{\star\top}`;
- :func:`slotine_li_torques` and :func:`coriolis_transpose_product` give
  :math:`H a_r + \bar C\nu_r + g` and :math:`\bar C^\top w` in :math:`O(N)` without forming
  :math:`\bar C`.

On a closed model (:class:`~geomech.multibody.closed.model.ClosedMultibodyModel`) each function
returns the induced quantity of the independent speeds, :math:`\bar C = G^\top C_s G +
G^\top H_s\dot G` (seed 000 eq. 17 with :math:`A = G`), computed by seed 000 Alg. 1 in
cluster form (:mod:`geomech.multibody.closed.coriolis`, through the model's table
``ClosedMultibodyModel.ALGORITHMS``).

Speeds are the model's (joint rates; body twists ``[ω; v]`` for free-flyers; body angular
velocities for spherical joints); ``connection`` is a body-connection specification (a name,
a :class:`~geomech.multibody.connections.body.BodyConnection`, an
:class:`~geomech.geometry.AffineConnection` on a body's SE(3), a callable ``(v, I) -> C``) or a
mapping from body names to such specifications (bodies not listed use ``"levi-civita"``).

Each algorithm is one compiled kernel per state (``geomech.multibody._kernels.tree.coriolis``)
run over the flattened batch. Every body connection is left-invariant and linear in the
twist, so its factor :math:`\mathbf B_i(\mathbf v) = \sum_j v^j\,\mathbf B_i(\mathbf e_j)`
is a constant tensor per body, evaluated once at the unit twists (user connections are
called there only, and checked to be linear) and cached per model and specification; the
Levi-Civita choice uses the closed form of seed 000 eq. 21 instead.

References
----------
seed 000 §V (Thm. V.1, Props. V.1–V.3), §VI-A/B (eqs. 18–21), §VI-D (eqs. 29–32), Alg. 1;
seed 001 Alg. 1 (eqs. 18–21); Slotine and Li (1987), seed 000 §IV-A1 (eq. 13).
"""

from __future__ import annotations

import math

import numpy as np

from geomech._arrays import matvec, mT
from geomech._validation import check_allocation, check_q, check_v
from geomech.errors import DimensionError, NotATreeError
from geomech.geometry.transformation import transform_coriolis
from geomech.multibody._kernels.driver import (
    compiled,
    entry,
    failure,
    single_state,
)
from geomech.multibody._kernels.status import NOT_A_VECTOR
from geomech.multibody._kernels.tree import coriolis as K
from geomech.multibody.algorithms._body_factors import (
    _QV,
    _batch,
    _body_B,
    _body_connections,
    _call_kernel,
    _factor_tensors,
)
from geomech.multibody.algorithms.dynamics import crba, rnea
from geomech.multibody.algorithms.kinematics import velocity_map
from geomech.spatial import crm

__all__ = [
    "coriolis_matrix",
    "coriolis_matrix_dense",
    "coriolis_matrix_differentiation",
    "mass_matrix_derivative",
    "slotine_li_torques",
    "coriolis_transpose_product",
    "coriolis_matrix_derivative",
]

#: the default connection of :func:`coriolis_matrix` (its fast path tests identity first)
_DEFAULT = "levi-civita"
_ND, _F64, _empty = np.ndarray, np.dtype(np.float64), np.empty
#: the compiled entry point of ``coriolis_one`` once known (``driver.entry``), else None: the
#: fast path of :func:`coriolis_matrix` (as ``algorithms.dynamics._one``)
_coriolis_one = None


def _one():
    """The entry point of ``coriolis_one`` (its dispatcher, which compiles, until it has one)."""
    global _coriolis_one
    ep = entry(K.coriolis_one)
    if ep is not K.coriolis_one:
        _coriolis_one = ep
    return ep


# ----------------------------------------------------------------------------------------
# closed models: their own algorithm, from the model's table (ClosedMultibodyModel.ALGORITHMS)
# ----------------------------------------------------------------------------------------
def _closed(model, kind: str):
    """The closed-model algorithm ``kind`` of a closed model, else None (a tree)."""
    return model.ALGORITHMS[kind] if getattr(model, "is_closed", False) else None


# ----------------------------------------------------------------------------------------
# public API
# ----------------------------------------------------------------------------------------
def coriolis_matrix(model, q, v, connection=_DEFAULT) -> np.ndarray:
    r"""Coriolis matrix induced by the body connections, in :math:`O(Nd)` (seed 000 Alg. 1).

    .. math::
        \bar C_{ij} = \boldsymbol\Phi_i^\top\,{}^{k}\mathbf X_i^\top\big(\mathbf I^C_k
        \,{}^k\mathbf X_j\dot{\boldsymbol\Phi}_j + \mathbf B^C_k\,{}^k\mathbf X_j
        \boldsymbol\Phi_j\big),\quad k = \lceil ij\rceil,\qquad
        \mathbf B^C_k = \sum_{\ell\succeq k}{}^\ell\mathbf X_k^\top\big(\mathbf C_\ell -
        \mathbf I_\ell(\mathbf v_\ell\times)\big){}^\ell\mathbf X_k

    (zero blocks for unrelated bodies), i.e. :math:`\bar C = A^\top C A + A^\top H\dot A` with
    :math:`C = \operatorname{BlockDiag}(\mathbf C_i(\mathbf v_i))` the chosen body
    connections (seed 000 eq. 17/20). ``"levi-civita"`` gives :math:`\bar C^\star`, the
    Christoffel-consistent matrix (:math:`\bar C_{ik} = \Gamma^\star_{ijk}\nu^j`), for every
    joint type — multi-DoF joints as blocks, free-flyers and spherical joints with
    body-frame speeds, user joints with :math:`\mathring{\boldsymbol\Phi}\ne 0`.

    Parameters
    ----------
    model : MultibodyModel or ClosedMultibodyModel
        On a closed model (``v`` the independent speeds), the result of
        :func:`~geomech.multibody.closed.coriolis.closed_coriolis_matrix` (seed 000 Alg. 1
        in cluster form, :math:`\bar C = G^\top C_s G + G^\top H_s\dot G`).
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    connection : str, BodyConnection, AffineConnection, callable or mapping, optional
        Body connection for every body, or a mapping body name → connection (others use
        ``"levi-civita"``); see :func:`geomech.multibody.connections.body.body_connection`.

    Returns
    -------
    ndarray, shape (..., nv, nv)

    Raises
    ------
    DimensionError, NonFiniteError
        If ``q`` or ``v`` has the wrong trailing length (the message names the input) or
        non-finite entries, or the batch dimensions do not broadcast.
    NotOnManifoldError
        If a quaternion in ``q`` is not of unit norm (the message names the joint).
    ConnectionSpecError
        For an unknown connection name, a mapping key that is not a body name, or a
        connection object or callable of the wrong shape or not linear in the twist (the
        message names the body).

    References
    ----------
    seed 000 Alg. 1 (cluster form, one body per cluster), eqs. (17), (20), (21), (23);
    seed 001 Alg. 1, eqs. (18)–(21).

    Examples
    --------
    Correct dynamics, :math:`\bar C\nu = c(q, \nu)`, and skew symmetry of
    :math:`\dot H - 2\bar C`:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.coriolis import coriolis_matrix, mass_matrix_derivative
    >>> from geomech.multibody.algorithms.dynamics import rnea
    >>> model = robots.double_pendulum()
    >>> q, v = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    >>> C = coriolis_matrix(model, q, v)
    >>> bool(np.allclose(C @ v, rnea(model, q, v, np.zeros(2), gravity=np.zeros(3))))
    True
    >>> S = mass_matrix_derivative(model, q, v) - 2 * C
    >>> bool(np.allclose(S, -S.T))
    True

    Per-body choices: a Cartan (−) connection on the second link only.

    >>> C2 = coriolis_matrix(model, q, v, {model.body_names[1]: "cartan-minus"})
    >>> bool(np.allclose(C2 @ v, C @ v))
    False
    """
    try:  # a tree's arrays, once compiled (a closed model: None; not a model: the general path)
        single = model._single
    except AttributeError:
        single = None
    # one state: its kernel (the types checked here, as in ``algorithms.dynamics``; the
    # kernel checks lengths and strides)
    if (
        type(q) is _ND
        and type(v) is _ND
        and q.dtype is _F64
        and v.dtype is _F64
        and q.ndim == 1
        and v.ndim == 1
        and (single is not None or (single := single_state(model)) is not None)
    ):
        topo, packed, nq, nv = single
        C = _empty((nv, nv))
        if connection is _DEFAULT or (type(connection) is str and connection == "levi-civita"):
            factors = model._compiled._levi_civita  # the default's, kept on the compiled model
            if factors is None:
                factors = model._compiled._levi_civita = _factor_tensors(model, connection)
            Bt, levi_civita = factors
        else:
            Bt, levi_civita = _factor_tensors(model, connection)
        status = (_coriolis_one or _one())(topo, packed, Bt, levi_civita, q, v, C)
        if status == 0:
            return C
        if status != NOT_A_VECTOR:
            raise failure(status, model, ("q", "v"), (q, v), "the Coriolis matrix")
    closed = _closed(model, "coriolis_matrix")
    if closed is not None:
        return closed(model, q, v, connection)
    cm = compiled(model)
    nq, nv = cm.nq, cm.nv
    return _call_kernel(
        K.coriolis_batch,
        cm,
        model,
        connection,
        (("q", q, (nq,)), ("v", v, (nv,))),
        _QV,
        (nv, nv),
        "the Coriolis matrix",
    )


def coriolis_matrix_dense(model, q, v, connection="levi-civita") -> np.ndarray:
    r"""Maximal-coordinates reference :math:`\bar C = A^\top C A + A^\top H\dot A` (seed 000 eq.
    20).

    .. math:: A = \mathbf X\boldsymbol\Phi,\qquad H = \operatorname{BlockDiag}(\mathbf I_i),
              \qquad C = \operatorname{BlockDiag}(\mathbf C_i(\mathbf v_i)),\qquad
              \mathbf v = A\nu

    with :math:`A, \dot A` from :func:`geomech.multibody.algorithms.kinematics.velocity_map` and the
    transformation law :func:`geomech.geometry.transform_coriolis`; :math:`O(N^2 n)` work.
    When a body inertia is only semi-definite (a point mass, a massless link), the maximal
    metric is not positive definite and eq. (17) is evaluated directly instead.

    Parameters
    ----------
    model : MultibodyModel or ClosedMultibodyModel
        On a closed model (``v`` the independent speeds), the result of
        :func:`~geomech.multibody.closed.coriolis.closed_coriolis_matrix_dense` (the dense
        projection :math:`G^\top C_s G + G^\top H_s\dot G`).
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    connection : str, BodyConnection, AffineConnection, callable or mapping, optional
        As in :func:`coriolis_matrix`.

    Returns
    -------
    ndarray, shape (..., nv, nv)

    Raises
    ------
    DimensionError, NonFiniteError, NotOnManifoldError, ConnectionSpecError
        As :func:`coriolis_matrix`.

    References
    ----------
    seed 000 Thm. V.1 (eq. 17), eq. (20), §VI-B.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.coriolis import coriolis_matrix, coriolis_matrix_dense
    >>> model = robots.double_pendulum()
    >>> q, v = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    >>> bool(np.allclose(coriolis_matrix_dense(model, q, v, "boltzmann-hamel"),
    ...                  coriolis_matrix(model, q, v, "boltzmann-hamel")))
    True
    """
    closed = _closed(model, "coriolis_matrix_dense")
    if closed is not None:
        return closed(model, q, v, connection)
    compiled(model)  # a MultibodyModel, or a named error
    q, v = check_q(model, q), check_v(model, v)
    batch = _batch(q.shape[:-1], v.shape[:-1])
    conns = _body_connections(model, connection)
    N = model.n_bodies
    n_batch = math.prod(batch)
    check_allocation(
        n_batch * 2 * (6 * N) ** 2, f"the {6 * N}x{6 * N} matrices of {n_batch} states"
    )
    A, A_dot = velocity_map(model, q, v)  # (..., 6N, nv)
    A = np.broadcast_to(A, batch + A.shape[-2:])
    twists = matvec(A, v).reshape(batch + (N, 6))  # v = A nu
    H_max = np.zeros(batch + (6 * N, 6 * N))
    C_max = np.zeros(batch + (6 * N, 6 * N))
    for i in range(N):
        blk = slice(6 * i, 6 * i + 6)
        I_i, v_i = model.inertias[i], twists[..., i, :]
        H_max[..., blk, blk] = I_i
        C_max[..., blk, blk] = _body_B(conns[i], I_i, v_i, model, i) + np.matmul(I_i, crm(v_i))
    if np.all(np.linalg.eigvalsh(model.inertias)[:, 0] > 0.0):
        _, C_bar = transform_coriolis(H_max, C_max, A, A_dot)  # seed 000 eq. (17)/(20)
    else:  # a semi-definite maximal metric (point masses): eq. (17) evaluated directly
        C_bar = mT(A) @ C_max @ A + mT(A) @ H_max @ A_dot
    return C_bar


def _joint_structure_constants(model, q) -> np.ndarray:
    from geomech.multibody.algorithms.christoffel import joint_structure_constants

    return joint_structure_constants(model, q)


def coriolis_matrix_differentiation(model, q, v) -> np.ndarray:
    r"""Christoffel-consistent :math:`\bar C^\star` by differentiating the bias forces (seed 000
    eqs. 29–32).

    .. math:: \bar C^\star(q, \nu) = \tfrac12\Big[\frac{\partial c(q, \nu)}{\partial\nu}
              + H(q)\,K(q, \nu)\Big], \qquad K_{\ell k} = s^\ell_{jk}\,\nu^j

    with :math:`c = \mathrm{RNEA}(q, \nu, 0)` at zero gravity and :math:`s` the joint structure
    constants (:func:`~geomech.multibody.algorithms.christoffel.joint_structure_constants`; block
    diagonal; this general :math:`K` reduces to the paper's
    :math:`K_i = \boldsymbol\Psi_i^\top(\boldsymbol\Phi_i\nu_i)\times\boldsymbol\Phi_i` when
    :math:`\mathring{\boldsymbol\Phi}_i = 0`). :math:`c` is quadratic in :math:`\nu`, so its
    Jacobian is evaluated exactly by polarization,
    :math:`\partial c/\partial\nu\, e_k = \tfrac12[c(\nu + e_k) - c(\nu - e_k)]` (one batched
    RNEA of :math:`2n` states; :math:`O(Nn)` work). Without :math:`K` (coordinates only,
    seed 001 Remark 3) the result would be wrong for free-flyers and spherical joints.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)

    Returns
    -------
    ndarray, shape (..., nv, nv)

    Raises
    ------
    DimensionError, NonFiniteError, NotOnManifoldError
        If ``q`` or ``v`` is malformed (non-finite entries, a non-unit quaternion), or the
        result overflows.

    References
    ----------
    seed 000 §VI-D, eqs. (29)–(32), Remark 9 (here for a general gain :math:`K`).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.coriolis import (
    ...     coriolis_matrix, coriolis_matrix_differentiation)
    >>> model = robots.random_tree(4, rng=1, floating_base=True)
    >>> q, v = model.random_configuration(rng=2), np.linspace(-1.0, 1.0, model.nv)
    >>> bool(np.allclose(coriolis_matrix_differentiation(model, q, v),
    ...                  coriolis_matrix(model, q, v)))
    True
    """
    compiled(model)  # a MultibodyModel, or a named error
    q, v = check_q(model, q), check_v(model, v)
    n = model.nv
    batch = _batch(q.shape[:-1], v.shape[:-1])
    E = np.eye(n)
    V = np.stack([v[..., None, :] + E, v[..., None, :] - E], axis=-3)  # (..., 2, n[k], n)
    c = rnea(model, q[..., None, None, :], V, np.zeros(n), gravity=np.zeros(3))
    dc_dv = mT(0.5 * (c[..., 0, :, :] - c[..., 1, :, :]))  # [i, k] = d c_i / d v_k (eq. 29)
    s = _joint_structure_constants(model, q)  # s[j, k, l] = s^l_jk
    K = np.einsum("...jkl,...j->...lk", s, v)  # eq. (30): K_lk = s^l_jk v^j
    H = crba(model, q)
    return np.broadcast_to(0.5 * (dc_dv + np.matmul(H, K)), batch + (n, n)).copy()


def mass_matrix_derivative(model, q, v) -> np.ndarray:
    r"""Time derivative of the mass matrix along the motion, :math:`\dot H = \bar C^\star + \bar
    C^{\star\top}`.

    .. math:: \dot H_{ij} = (\mathscr L_{X_k} H_{ij})\,\nu^k = \bar C_{ij} + \bar C_{ji}

    for any metric-compatible connection (seed 000 Prop. IV.1); evaluated with
    :func:`coriolis_matrix` and the Levi-Civita body connections in :math:`O(Nd)`. The
    derivative is along the model's flow (``model.integrate``), not :math:`\partial H/\partial
    q\,\nu` in quaternion coordinates.

    Parameters
    ----------
    model : MultibodyModel or ClosedMultibodyModel
        On a closed model (``v`` the independent speeds), the result of
        :func:`~geomech.multibody.closed.coriolis.closed_mass_matrix_derivative`.
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)

    Returns
    -------
    ndarray, shape (..., nv, nv)
        Symmetric.

    Raises
    ------
    DimensionError, NonFiniteError, NotOnManifoldError
        If ``q`` or ``v`` is malformed (non-finite entries, a non-unit quaternion), or the
        result overflows.

    References
    ----------
    seed 000 eq. (3), Prop. IV.1; seed 001 Alg. 1 (its :math:`\dot{\mathbf M}` output).

    Examples
    --------
    Compared with a central difference of the CRBA along the flow:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.coriolis import mass_matrix_derivative
    >>> from geomech.multibody.algorithms.dynamics import crba
    >>> model = robots.double_pendulum()
    >>> q, v, h = np.array([0.3, -0.5]), np.array([1.0, 2.0]), 1e-6
    >>> H_dot = (crba(model, model.integrate(q, v, h))
    ...          - crba(model, model.integrate(q, v, -h))) / (2 * h)
    >>> bool(np.allclose(mass_matrix_derivative(model, q, v), H_dot, atol=1e-7))
    True
    """
    closed = _closed(model, "mass_matrix_derivative")
    if closed is not None:
        return closed(model, q, v)
    cm = compiled(model)
    nq, nv = cm.nq, cm.nv
    return _call_kernel(
        K.mass_matrix_derivative_batch,
        cm,
        model,
        "levi-civita",
        (("q", q, (nq,)), ("v", v, (nv,))),
        _QV,
        (nv, nv),
        "H_dot",
    )


def slotine_li_torques(model, q, v, v_ref, a_ref, connection="levi-civita", gravity=None):
    r"""Slotine–Li torques :math:`H a_r + \bar C(q, \nu)\,\nu_r + g` in :math:`O(N)`, without
    forming :math:`\bar C`.

    A modified RNEA (Niemeyer–Slotine): with body twists :math:`\mathbf v_i` of the actual
    speeds and :math:`\mathbf w_i` of the reference speeds,

    .. math::
        \boldsymbol\alpha_i = {}^i\mathbf X_{p(i)}\boldsymbol\alpha_{p(i)}
        + \boldsymbol\Phi_i a_{r,i} + \dot{\boldsymbol\Phi}_i\nu_{r,i},\quad
        \boldsymbol\alpha_0 = -\mathbf a_g,\qquad
        \mathbf f_i = \mathbf I_i\boldsymbol\alpha_i + \mathbf B_i(\mathbf v_i)\,\mathbf w_i,
        \qquad \boldsymbol\tau_i = \boldsymbol\Phi_i^\top\textstyle\sum_{k\succeq i}
        {}^k\mathbf X_i^\top\mathbf f_k

    with :math:`\mathbf B_i = \mathbf C_i - \mathbf I_i(\mathbf v_i\times)` of the chosen
    body connection. This is :math:`A^\top[H(A a_r + \dot A\nu_r) + C A\nu_r] + g` =
    :math:`H a_r + \bar C\nu_r + g` (seed 000 eqs. 13, 17, 20); with :math:`\nu_r = \nu`
    and :math:`a_r = \dot\nu` it is inverse dynamics for every connection with correct
    dynamics.

    Parameters
    ----------
    model : MultibodyModel or ClosedMultibodyModel
        On a closed model (``v`` the independent speeds), the result of
        :func:`~geomech.multibody.closed.coriolis.closed_slotine_li_torques`.
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
        Actual speeds :math:`\nu`.
    v_ref : array_like, shape (..., nv)
        Reference speeds :math:`\nu_r`.
    a_ref : array_like, shape (..., nv)
        Reference accelerations :math:`a_r`.
    connection : str, BodyConnection, AffineConnection, callable or mapping, optional
        As in :func:`coriolis_matrix`.
    gravity : array_like, shape (..., 3), optional
        World gravity; default ``model.gravity`` (pass zeros to drop :math:`g`).

    Returns
    -------
    ndarray, shape (..., nv)

    Raises
    ------
    DimensionError, NonFiniteError, NotOnManifoldError, ConnectionSpecError
        As :func:`coriolis_matrix` (the message names the malformed input).

    References
    ----------
    seed 000 §IV-A1 (eq. 13, Slotine–Li), eq. (20); Niemeyer and Slotine (1991); seed 001
    eq. (10).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.coriolis import coriolis_matrix, slotine_li_torques
    >>> from geomech.multibody.algorithms.dynamics import crba, gravity_forces
    >>> model = robots.double_pendulum()
    >>> q, v = np.array([0.3, -0.5]), np.array([1.0, 2.0])
    >>> v_r, a_r = np.array([0.5, 0.1]), np.array([-1.0, 0.3])
    >>> tau = slotine_li_torques(model, q, v, v_r, a_r)
    >>> ref = crba(model, q) @ a_r + coriolis_matrix(model, q, v) @ v_r + gravity_forces(model, q)
    >>> bool(np.allclose(tau, ref))
    True
    """
    closed = _closed(model, "slotine_li_torques")
    if closed is not None:
        return closed(model, q, v, v_ref, a_ref, connection, gravity)
    cm = compiled(model)
    nq, nv = cm.nq, cm.nv
    gravity = model.gravity if gravity is None else gravity
    return _call_kernel(
        K.slotine_li_torques_batch,
        cm,
        model,
        connection,
        (
            ("q", q, (nq,)),
            ("v", v, (nv,)),
            ("v_ref", v_ref, (nv,)),
            ("a_ref", a_ref, (nv,)),
            ("gravity", gravity, (3,)),
        ),
        _QV + ("v_ref", "a_ref", "gravity"),
        (nv,),
        "the torques",
    )


def coriolis_transpose_product(model, q, v, w, connection="levi-civita") -> np.ndarray:
    r"""The product :math:`\bar C(q, \nu)^\top w` in :math:`O(N)`, without forming :math:`\bar C`.

    From :math:`\bar C^\top = \boldsymbol\Phi^\top\mathbf X^\top B^\top\mathbf X
    \boldsymbol\Phi + \dot{\boldsymbol\Phi}^\top\mathbf X^\top H\,\mathbf X\boldsymbol\Phi`
    (seed 000 §VI-B): with :math:`\mathbf u_i` the body twists of the speeds :math:`w`,

    .. math:: \boldsymbol\tau_i = \boldsymbol\Phi_i^\top\textstyle\sum_{k\succeq i}
              {}^k\mathbf X_i^\top\mathbf B_k^\top\mathbf u_k
              + \dot{\boldsymbol\Phi}_i^\top\textstyle\sum_{k\succeq i}
              {}^k\mathbf X_i^\top\mathbf I_k\mathbf u_k

    (the transposed blocks of seed 000 Alg. 1 l.18). With a metric-compatible connection,
    :math:`\bar C^\top\nu = \dot H\nu - \bar C\nu` (momentum observers).

    Parameters
    ----------
    model : MultibodyModel or ClosedMultibodyModel
        On a closed model (``v`` the independent speeds), the result of
        :func:`~geomech.multibody.closed.coriolis.closed_coriolis_transpose_product`.
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    w : array_like, shape (..., nv)
    connection : str, BodyConnection, AffineConnection, callable or mapping, optional
        As in :func:`coriolis_matrix`.

    Returns
    -------
    ndarray, shape (..., nv)

    Raises
    ------
    DimensionError, NonFiniteError, NotOnManifoldError, ConnectionSpecError
        As :func:`coriolis_matrix`.

    References
    ----------
    seed 000 §VI-B, Alg. 1 l.18; spatial_v2_extended ``Hqd_and_CTqd``.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.coriolis import (
    ...     coriolis_matrix, coriolis_transpose_product)
    >>> model = robots.double_pendulum()
    >>> q, v, w = np.array([0.3, -0.5]), np.array([1.0, 2.0]), np.array([0.2, -0.7])
    >>> bool(np.allclose(coriolis_transpose_product(model, q, v, w),
    ...                  coriolis_matrix(model, q, v).T @ w))
    True
    """
    closed = _closed(model, "coriolis_transpose_product")
    if closed is not None:
        return closed(model, q, v, w, connection)
    cm = compiled(model)
    nq, nv = cm.nq, cm.nv
    return _call_kernel(
        K.coriolis_transpose_product_batch,
        cm,
        model,
        connection,
        (("q", q, (nq,)), ("v", v, (nv,)), ("w", w, (nv,))),
        _QV + ("w",),
        (nv,),
        "the product",
    )


def _times_speed_brackets(model, X, v) -> np.ndarray:
    r"""``X @ K`` with ``K[..., l, k]`` :math:`= s^\ell_{jk}\nu^j`, block diagonal, of the
    built-in joints, one block at a time (:math:`O(n_v\sum_i d_i^2)`, not :math:`O(n_v^3)`).

    Their speed fields have constant structure constants, :math:`s^\ell_{ab} =
    \boldsymbol\Psi_\ell^\top(\mathbf S_a\times\mathbf S_b)` with the body-frame motion
    subspace :math:`\mathbf S`, so block :math:`i` is :math:`\boldsymbol\Psi_i^\top
    ((\mathbf S_i\nu_i)\times)\mathbf S_i` (seed 000 eq. 30); zero for 1-DoF joints.
    """
    S = model.compiled.S[0]  # (nv, 6) rows, constant for built-in joints
    out = np.zeros(X.shape)
    for sl in model.v_slices:
        if sl.stop - sl.start < 2:
            continue
        Sb = S[sl].T  # (6, d)
        Psi_T = np.linalg.pinv(Sb)  # (d, 6): Ψᵀ, a left inverse of S
        w = v[..., sl] @ Sb.T  # (..., 6): S ν_i
        out[..., :, sl] = X[..., :, sl] @ (Psi_T @ crm(w) @ Sb)
    return out


def coriolis_matrix_derivative(model, q, v, dq) -> np.ndarray:
    r"""Derivative of the Christoffel-consistent Coriolis matrix along a direction,
    :math:`\sum_b \delta q^b X_b\bar C^\star(q, \nu)`, without forming :math:`\Gamma`.

    .. math:: \frac{d}{d\epsilon}\bar C^\star(q\oplus\epsilon\,\delta q, \nu)\Big|_0
              = \tfrac12\Big[\sum_b\frac{\partial^2\boldsymbol\tau}{\partial q_b\,
              \partial\nu}\,\delta q^b
              + \Big(\sum_b\frac{\partial\mathbf M}{\partial q_b}\,\delta q^b\Big)K\Big],
              \qquad K_{\ell k} = s^\ell_{jk}\nu^j

    (the derivative along :math:`X_b` of seed 000 eq. 29, :math:`\bar C^\star = \tfrac12
    [\partial c/\partial\nu + HK]`, with constant structure constants :math:`s`: the
    built-in joints), from the second-order partials of inverse dynamics (seed 002 Alg. 1)
    contracted with :math:`\delta q` as they are formed
    (:func:`~geomech.multibody.algorithms.derivatives.second_derivatives_along`), without
    the tensors: :math:`O(Nd^2)` work, :math:`O(n_v^2)` memory. Where the batch's
    :math:`2n_v^2` numbers per state would exceed 32 MiB, the derivative of
    :math:`\partial c/\partial\nu` is taken column by column instead, from the first-order
    partials of RNEA at :math:`\nu\pm e_k` (:math:`c` is quadratic in :math:`\nu`), in
    :math:`O(n_v(Nd + n_v^2))` work, and :math:`\sum_b
    (\partial\mathbf M/\partial q_b)\,\delta q^b` is
    :func:`mass_matrix_derivative` along
    :math:`\delta q`. :math:`\bar C^\star = \Gamma^\star\nu` is
    :func:`coriolis_matrix` with the Levi-Civita
    connection; the derivative is along ``model.integrate``
    (:math:`q\oplus\epsilon\,\delta q`), a body-frame twist for free-flyers and spherical
    joints.

    Parameters
    ----------
    model : MultibodyModel
        A tree of built-in joints.
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    dq : array_like, shape (..., nv)
        The direction :math:`\delta q` (a tangent vector in the model's speeds).

    Returns
    -------
    ndarray, shape (..., nv, nv)
        ``dC[..., i, k]``.

    Raises
    ------
    DimensionError, NonFiniteError, NotOnManifoldError, ModelError, NotATreeError
        As :func:`~geomech.multibody.algorithms.derivatives.rnea_second_derivatives` (closed
        models and user-defined joints are refused).

    References
    ----------
    seed 000 eqs. (29)–(30); seed 002 Alg. 1; seed 001 eq. (3)
    (:math:`C^\star_{ik} = \Gamma_{ijk}\dot q_j`).

    Examples
    --------
    Against a central difference of the Coriolis matrix along the flow:

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.coriolis import (
    ...     coriolis_matrix, coriolis_matrix_derivative)
    >>> model = robots.random_tree(4, rng=0, floating_base=True)
    >>> q, v = model.random_configuration(rng=1), np.linspace(-1.0, 1.0, model.nv)
    >>> dq, h = np.cos(np.arange(model.nv)), 1e-6
    >>> fd = (coriolis_matrix(model, model.integrate(q, dq, h), v)
    ...       - coriolis_matrix(model, model.integrate(q, dq, -h), v)) / (2 * h)
    >>> bool(np.allclose(coriolis_matrix_derivative(model, q, v, dq), fd, atol=1e-6))
    True
    """
    if getattr(model, "is_closed", False):
        raise NotATreeError(
            "Expected a kinematic tree: the derivative of the Coriolis matrix of a closed model "
            "is not available; model.spanning_tree gives that of its spanning tree."
        )
    nv = compiled(model).nv
    v, dq = np.asarray(v, dtype=float), np.asarray(dq, dtype=float)
    _check_vector(v, nv, "v")
    _check_vector(dq, nv, "dq")
    batch = np.broadcast_shapes(np.shape(q)[:-1], v.shape[:-1], dq.shape[:-1])
    B = int(np.prod(batch))
    if 2 * nv * nv * B <= _CHUNK:
        X_dcdv, X_H = _derivatives_by_idsva(model, q, v, dq)
    else:  # a large batch: column by column
        X_dcdv, X_H = _derivatives_by_polarization(model, q, v, dq, batch)
    return 0.5 * (X_dcdv + _times_speed_brackets(model, X_H, np.broadcast_to(v, X_H.shape[:-1])))


#: float64 numbers a step of :func:`coriolis_matrix_derivative` may hold at once (32 MiB)
_CHUNK = 2**22


def _derivatives_by_idsva(model, q, v, dq):
    """``(X_δ ∂c/∂ν, X_δ H)``: IDSVA SO contracted with δq as it runs (no tensor)."""
    from geomech.multibody.algorithms.derivatives import second_derivatives_along

    zero = np.zeros(v.shape[-1])
    # ∂²τ/∂q∂ν and ∂M/∂q do not depend on the acceleration nor on gravity
    return second_derivatives_along(model, q, v, zero, dq, gravity=np.zeros(3))


def _derivatives_by_polarization(model, q, v, dq, batch):
    r"""``(X_δ ∂c/∂ν, X_δ H)`` in :math:`O(n_v^2)` memory per state.

    :math:`c(q, \nu)` is quadratic in :math:`\nu`, so column ``k`` of :math:`\partial c/
    \partial\nu` is :math:`\tfrac12[c(\nu + e_k) - c(\nu - e_k)]` exactly, and its derivative
    along :math:`\delta q` is :math:`\tfrac12[\partial_q c(\nu + e_k) - \partial_q c(\nu -
    e_k)]\,\delta q` (first-order partials of RNEA, seed 002 eqs. 7–8), taken for a chunk of
    ``k`` at a time; :math:`X_\delta H` is :math:`\dot H` along :math:`\delta q`.
    """
    from geomech.multibody.algorithms.derivatives import rnea_derivatives

    n = v.shape[-1]
    q = np.asarray(q, dtype=float)
    E = np.eye(n)
    out = np.empty(batch + (n, n))
    step = max(1, _CHUNK // (2 * n * n * max(1, int(np.prod(batch)))))
    zero, g0 = np.zeros(n), np.zeros(3)
    for k0 in range(0, n, step):
        ks = slice(k0, min(n, k0 + step))
        V = np.stack([v[..., None, :] + E[ks], v[..., None, :] - E[ks]], axis=-3)
        DQ, _ = rnea_derivatives(model, q[..., None, None, :], V, zero, gravity=g0)
        col = (DQ[..., 0, :, :, :] - DQ[..., 1, :, :, :]) @ dq[..., None, :, None]
        out[..., :, ks] = np.swapaxes(0.5 * col[..., 0], -1, -2)  # [.., i, k]
    return out, mass_matrix_derivative(model, q, dq)


def _check_vector(x, nv, name):
    if x.ndim < 1 or x.shape[-1] != nv:
        raise DimensionError(f"Expected `{name}` to have shape (..., {nv}), got {x.shape}.")
    return x
