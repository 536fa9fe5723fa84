r"""Coriolis matrices and Christoffel symbols of closed chains (seed 000 Algs. 1–2 in cluster form).

A closed model (:class:`~geomech.multibody.closed.model.ClosedMultibodyModel`) is its spanning tree
constrained to :math:`\dot q_s = G(q)\,v`, so it inherits from the tree, for any choice of body
connections, the induced Coriolis factorization of seed 000 Thm. V.1 (eq. 17) with
:math:`A = G`:

.. math::
    \bar H = G^\top H_s G, \qquad \bar C = G^\top C_s G + G^\top H_s\dot G,
    \qquad \dot G = \mathscr L_{X_k} G\,v^k

with :math:`H_s`, :math:`C_s` the spanning tree's mass and Coriolis matrices (the latter
induced by the chosen body connections). The properties of the body connections carry over
(Props. V.1–V.3): :math:`\dot{\bar H} = \bar C + \bar C^\top` for metric-compatible ones,
:math:`\bar C v = \bar c(q, v)` for those with correct dynamics, and ``"levi-civita"`` gives
:math:`\bar C^\star = \bar\Gamma^\star_{ijk}v^j`, the Christoffel symbols of :math:`\bar H`
in the frame of the independent speeds.

The functions here evaluate it recursively on the cluster connectivity tree (seed 000
§VI-C, Algorithms 1 and 2 with cluster joints :math:`\mathsf\Phi_k = \bar{\mathsf S}_k
\mathsf G_k`; compiled kernels of ``geomech.multibody._kernels.cluster.coriolis``), and
are what the public :func:`~geomech.multibody.algorithms.coriolis.coriolis_matrix`,
:func:`~geomech.multibody.algorithms.christoffel.christoffel_symbols`,
:func:`~geomech.multibody.algorithms.coriolis.mass_matrix_derivative`,
:func:`~geomech.multibody.algorithms.coriolis.slotine_li_torques` and
:func:`~geomech.multibody.algorithms.coriolis.coriolis_transpose_product` call on a closed model
(the model's table :attr:`ClosedMultibodyModel.ALGORITHMS
<geomech.multibody.closed.model.ClosedMultibodyModel.ALGORITHMS>`).
:func:`closed_coriolis_matrix_dense` is the dense projection, the baseline.

The constraint data per state come from the model, as for seed 004's algorithms
(``geomech.multibody._kernels.cluster.compiled``): :math:`G` and :math:`\dot G` from
:meth:`~geomech.multibody.closed.model.ClosedMultibodyModel.constraint_matrices` for loop joints and
implicit constraints, once per model for couplings (constant :math:`G`, :math:`\dot G = 0`).

References
----------
seed 000 Thm. V.1 (eq. 17), Props. V.1–V.3, §VI-C (eqs. 22–23), Algorithms 1 and 2; seed 004
§1.4, eqs. 3, 24.
"""

from __future__ import annotations

import numpy as np

from geomech.errors import ModelError
from geomech.multibody._kernels.cluster import coriolis as K
from geomech.multibody._kernels.cluster.compiled import cluster_layout
from geomech.multibody._kernels.cluster.tables import FIRST_Y
from geomech.multibody._kernels.driver import call, states
from geomech.multibody.algorithms._body_factors import _factor_tensors
from geomech.multibody.algorithms.coriolis import (
    coriolis_matrix,
    coriolis_transpose_product,
    slotine_li_torques,
)
from geomech.multibody.algorithms.dynamics import crba, rnea
from geomech.multibody.algorithms.regressor import slotine_li_regressor

__all__ = [
    "closed_coriolis_matrix",
    "closed_coriolis_matrix_dense",
    "closed_christoffel_symbols",
    "closed_mass_matrix_derivative",
    "closed_slotine_li_torques",
    "closed_coriolis_transpose_product",
    "closed_slotine_li_regressor",
]


def _closed(model):
    if not getattr(model, "is_closed", False):
        raise ModelError(
            f"Expected a closed model (ClosedMultibodyModel), got {type(model).__name__}."
        )
    return cluster_layout(model)


def _constraint_data(model, lay, Q, V):
    r"""``(Gc, Gdc, QD)`` of the states: :math:`G`, :math:`\dot G` gathered per cluster
    (:meth:`ClusterLayout.gather`) and the spanning speeds :math:`Gv` when user joints need
    them (else None). ``Q`` is validated against the constraints.
    """
    st = lay.tree
    if lay.all_static:  # couplings only: constant G, G_dot = 0
        model.check_configuration(Q)
        Gc, _ = lay.constraint_arrays(Q, None)
        Gdc = np.zeros_like(Gc)
        G = None
    else:
        G, _, Gd = model.constraint_matrices(Q, V, rate=True)
        Gc, Gdc = lay.gather(G), lay.gather(Gd)
    QD = None
    if st.compiled.has_user_joints:
        if G is None:
            G, _ = model.constraint_matrices(Q, V)
        QD = np.ascontiguousarray(
            np.einsum("bij,bj->bi", G, np.broadcast_to(V, G.shape[:1] + V.shape[1:]))
        )
    return Gc, Gdc, QD


def closed_coriolis_matrix(model, q, v, connection="levi-civita") -> np.ndarray:
    r"""Coriolis matrix of a closed model by seed 000 Algorithm 1 in cluster form.

    .. math::
        \bar C = G^\top C_s G + G^\top H_s\dot G,\qquad
        \bar C_{ij} = \mathsf\Phi_i^\top\,{}^k\mathsf X_i^\top\big(\mathsf I^C_k\,{}^k\mathsf X_j
        \dot{\mathsf\Phi}_j + \mathsf B^C_k\,{}^k\mathsf X_j\mathsf\Phi_j\big),\quad
        k = \lceil ij\rceil

    for clusters :math:`i, j` (zero blocks for unrelated ones), with the cluster joints'
    motion subspaces :math:`\mathsf\Phi_k = \bar{\mathsf S}_k\mathsf G_k` and their rates
    :math:`\dot{\mathsf\Phi}_k = (\mathsf v_k\times)\mathsf\Phi_k + \mathring{\mathsf\Phi}_k`,
    which carry :math:`\dot{\mathsf G}_k` (seed 000 §VI-C, eqs. 22–23); :math:`\mathsf
    B(\mathsf I, \mathsf v)` is the chosen body connections' factor :math:`\mathbf C_i -
    \mathbf I_i(\mathbf v_i\times)` of each body. :math:`O(N_C\,d)` cluster operations.

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
        Closed configurations (spanning-tree layout).
    v : array_like, shape (..., nv)
        Independent speeds.
    connection : str, BodyConnection, AffineConnection, callable or mapping, optional
        Body connection of every body, or a mapping body name → connection (the others use
        ``"levi-civita"``), as in :func:`geomech.multibody.algorithms.coriolis.coriolis_matrix`.

    Returns
    -------
    ndarray, shape (..., nv, nv)

    Raises
    ------
    ModelError
        If ``model`` is not closed.
    DimensionError, NonFiniteError
        If ``q`` or ``v`` is malformed (the message names it).
    NotOnManifoldError
        If ``q`` does not satisfy the constraints.
    ConnectionSpecError
        On an invalid connection specification (the message names the body).

    References
    ----------
    seed 000 Thm. V.1 (eq. 17), §VI-C (eqs. 22–23), Algorithm 1; seed 004 eq. 24.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.coriolis import (closed_coriolis_matrix,
    ...                                               closed_coriolis_matrix_dense)
    >>> model = load_example("four_bar")
    >>> q, v = model.random_configuration(rng=0), np.array([1.5])
    >>> C = closed_coriolis_matrix(model, q, v)
    >>> bool(np.allclose(C, closed_coriolis_matrix_dense(model, q, v)))
    True
    """
    lay = _closed(model)
    st = lay.tree
    cm = st.compiled
    batch, B, (Q, V) = states(("q", q, (st.nq,)), ("v", v, (lay.nv,)))
    Gc, Gdc, QD = _constraint_data(model, lay, Q, V)
    factors = _factor_tensors(st, connection)
    C = np.empty((B, lay.nv, lay.nv))
    call(
        K.cluster_coriolis_batch,
        (*cm.arrays(), *factors, lay.cbody, lay.cclus, lay.yidx),
        (*cm.joint_arrays(Q, QD), Gc, Gdc, Q, V, C),
        batch,
        model,
        names=("q", "v", "q", "q", "q", "q", "v"),
        what="the Coriolis matrix",
    )
    return C.reshape(batch + (lay.nv, lay.nv))


def closed_coriolis_matrix_dense(model, q, v, connection="levi-civita") -> np.ndarray:
    r"""The dense projection :math:`\bar C = G^\top C_s(q, Gv)\,G + G^\top H_s\dot G` (the
    baseline).

    With :math:`C_s` from the spanning tree's :func:`~geomech.coriolis_matrix` (seed 000
    Alg. 1 on the tree), :math:`H_s` from its CRBA and :math:`G, \dot G` from
    :meth:`~geomech.multibody.ClosedMultibodyModel.constraint_matrices` (seed 000 §VI-C, the
    spanning-tree method).

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)
    connection : str, BodyConnection, AffineConnection, callable or mapping, optional
        As in :func:`closed_coriolis_matrix`.

    Returns
    -------
    ndarray, shape (..., nv, nv)

    Raises
    ------
    ModelError
        If ``model`` is not closed.
    DimensionError, NonFiniteError, NotOnManifoldError, ConnectionSpecError
        As :func:`closed_coriolis_matrix`.

    References
    ----------
    seed 000 eq. (17), §VI-C (spanning-tree method).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.coriolis import closed_coriolis_matrix_dense
    >>> model = load_example("geared_chain")
    >>> closed_coriolis_matrix_dense(model, model.neutral(), np.ones(3)).shape
    (3, 3)
    """
    _closed(model)
    q = model.check_configuration(q)
    G, _, G_dot = model.constraint_matrices(q, v, rate=True)
    qd = np.einsum("...ij,...j->...i", G, np.asarray(v, float))
    st = model.spanning_tree
    C_s = coriolis_matrix(st, q, qd, connection)
    Gt = np.swapaxes(G, -1, -2)
    return Gt @ C_s @ G + Gt @ crba(st, q) @ G_dot


def _speed_derivatives(model, lay, Q):
    r"""``GDc`` (B or 1, n_s, m_max, m_max): ``GDc[j, c, e]`` :math:`= \partial\dot G_{j,
    y_c}/\partial\dot y_e` within each cluster (:math:`\dot G` is linear in the speeds:
    its value at the unit speeds), zero for couplings.
    """
    st = lay.tree
    if lay.all_static:
        return np.zeros((1, st.nv, lay.mmax, lay.mmax))
    B, n = Q.shape[0], lay.nv
    E = np.eye(n)
    _, _, Gd = model.constraint_matrices(Q[:, None, :], E[None], rate=True)  # (B, n[e], n_s, n)
    GDc = np.zeros((B, st.nv, lay.mmax, lay.mmax))
    for k in range(lay.n_clusters):
        y = lay.yidx[lay.cclus[k, FIRST_Y] : lay.cclus[k + 1, FIRST_Y]]
        rows = np.concatenate([np.arange(st.nv)[st.v_slices[b]] for b in model.clusters[k].bodies])
        for e, ye in enumerate(y):
            page = GDc[..., e]  # a view
            page[:, rows] = lay.gather(Gd[:, ye])[:, rows]
    return GDc


def closed_christoffel_symbols(model, q) -> np.ndarray:
    r"""Christoffel symbols of a closed model by seed 000 Algorithm 2 in cluster form.

    .. math::
        \bar\Gamma^\star_{ijk} = \langle\!\langle\bar X_i, \bar\nabla^\star_{\bar X_j}\bar X_k
        \rangle\!\rangle = G^a_i G^b_j G^c_k\,\Gamma^\star_{s,abc}
        + G^a_i H_{s,ab}\,\mathscr L_{\bar X_j}G^b_k,
        \qquad \bar C^\star_{ik} = \bar\Gamma^\star_{ijk}v^j

    (the induced Levi-Civita connection, seed 000 eq. 17 in coefficients) with :math:`\bar
    X_j = G^a_j X_a` the fields of the independent speeds. Computed on the cluster tree:
    the cluster joints' motion subspaces :math:`\mathsf\Phi_k = \bar{\mathsf S}_k\mathsf
    G_k` and the derivatives :math:`\mathcal D_k = \partial\mathring{\mathsf\Phi}_k/\partial
    \dot y_k` of their rates (which carry :math:`\partial\dot{\mathsf G}_k/\partial\dot y_k`,
    nonzero for loops: the fields of a loop's speeds need not commute with the spanning
    frame), then the loops of Algorithm 2 over clusters. Not symmetric in :math:`(j, k)`
    in general.

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
        Closed configurations.

    Returns
    -------
    ndarray, shape (..., nv, nv, nv)
        ``Gamma[..., i, j, k]`` (first index lowered, second the direction;
        :ref:`conventions-connections`).

    Raises
    ------
    ModelError
        If ``model`` is not closed.
    DimensionError, NonFiniteError
        If ``q`` is malformed.
    NotOnManifoldError
        If ``q`` does not satisfy the constraints.

    References
    ----------
    seed 000 eqs. (8)–(10), (17), §VI-C, Algorithm 2 (eqs. 24–28).

    Examples
    --------
    Contracting the middle index gives the Coriolis matrix of Algorithm 1:

    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.coriolis import (closed_christoffel_symbols,
    ...                                               closed_coriolis_matrix)
    >>> model = load_example("planar_leg")
    >>> q, v = model.random_configuration(rng=4), np.array([0.9, -0.4])
    >>> Gamma = closed_christoffel_symbols(model, q)
    >>> bool(np.allclose(np.einsum("ijk,j->ik", Gamma, v), closed_coriolis_matrix(model, q, v)))
    True
    """
    lay = _closed(model)
    st = lay.tree
    cm = st.compiled
    batch, B, (Q,) = states(("q", q, (st.nq,)))
    Gc, _, _ = _constraint_data(model, lay, Q, np.zeros((1, lay.nv)))
    GDc = _speed_derivatives(model, lay, Q)
    S, _, T_user = cm.joint_arrays(Q)
    n = lay.nv
    Gamma = np.empty((B, n, n, n))
    call(
        K.cluster_christoffel_batch,
        (*cm.arrays(), lay.cbody, lay.cclus, lay.yidx),
        (S, st.compiled.rate_derivatives(Q), T_user, Gc, GDc, Q, Gamma),
        batch,
        model,
        names=("q", "q", "q", "q", "q", "q"),
        what="the Christoffel symbols",
    )
    return Gamma.reshape(batch + (n, n, n))


def closed_mass_matrix_derivative(model, q, v) -> np.ndarray:
    r"""Time derivative of a closed model's mass matrix, :math:`\dot{\bar H} = \bar C^\star + \bar
    C^{\star\top}`.

    .. math:: \dot{\bar H} = \frac{d}{dt}\big(G^\top H_s G\big) = \bar C^\star + \bar C^{\star\top}

    (seed 000 Prop. IV.1 for the induced Levi-Civita connection), with :math:`\bar C^\star`
    from :func:`closed_coriolis_matrix`; the derivative is along the closed motion
    (``model.integrate``).

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
    v : array_like, shape (..., nv)

    Returns
    -------
    ndarray, shape (..., nv, nv)
        Symmetric.

    Raises
    ------
    ModelError
        If ``model`` is not closed.
    DimensionError, NonFiniteError, NotOnManifoldError
        As :func:`closed_coriolis_matrix`.

    References
    ----------
    seed 000 eq. (3), Prop. IV.1, Prop. V.1.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.coriolis import closed_mass_matrix_derivative
    >>> from geomech.multibody.algorithms.dynamics import crba
    >>> model = load_example("four_bar")
    >>> q, v, h = model.random_configuration(rng=1), np.array([0.7]), 1e-5
    >>> H_dot = (crba(model, model.integrate(q, v, h))
    ...          - crba(model, model.integrate(q, v, -h))) / (2 * h)
    >>> bool(np.allclose(closed_mass_matrix_derivative(model, q, v), H_dot, atol=1e-6))
    True
    """
    C = closed_coriolis_matrix(model, q, v)
    return C + np.swapaxes(C, -1, -2)


def _spanning_reference(model, q, v, v_ref, a_ref, rate=False):
    """Spanning-tree (q̇_s, q̇_s,r, q̈_s,r) = (G v, G v_r, G a_r + Ġ v_r) of closed states."""
    q = model.check_configuration(q)
    G, _, G_dot = model.constraint_matrices(q, v, rate=True)

    def mv(M, x):
        return np.einsum("...ij,...j->...i", M, np.asarray(x, float))

    out = (mv(G, v), mv(G, v_ref), mv(G, a_ref) + mv(G_dot, v_ref))
    return (q, G, G_dot, *out) if rate else (q, G, *out)


def closed_slotine_li_torques(model, q, v, v_ref, a_ref, connection="levi-civita", gravity=None):
    r"""Slotine–Li torques of a closed model, :math:`\bar H a_r + \bar C(q, v)\,v_r + \bar g`, in
    :math:`O(N)`.

    From :math:`\bar H = G^\top H_sG`, :math:`\bar C = G^\top C_sG + G^\top H_s\dot G` and
    :math:`\bar g = G^\top g_s`:

    .. math::
        \bar H a_r + \bar C v_r + \bar g = G^\top\big[H_s(G a_r + \dot G v_r)
        + C_s(q, Gv)\,G v_r + g_s\big]

    i.e. the spanning tree's modified RNEA (:func:`~geomech.slotine_li_torques`) at the
    spanning speeds :math:`Gv`, reference speeds :math:`G v_r`
    and accelerations :math:`G a_r + \dot G v_r`, projected by :math:`G^\top` — without
    forming :math:`\bar C`. With :math:`v_r = v` and :math:`a_r = \dot v` it is inverse
    dynamics for every connection with correct dynamics.

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
    v, v_ref, a_ref : array_like, shape (..., nv)
        Independent speeds, reference speeds and reference accelerations.
    connection : str, BodyConnection, AffineConnection, callable or mapping, optional
        As in :func:`closed_coriolis_matrix`.
    gravity : array_like, shape (..., 3), optional
        Default ``model.gravity``.

    Returns
    -------
    ndarray, shape (..., nv)

    Raises
    ------
    ModelError
        If ``model`` is not closed.
    DimensionError, NonFiniteError, NotOnManifoldError, ConnectionSpecError
        As :func:`closed_coriolis_matrix`.

    References
    ----------
    seed 000 §IV-A1 (eq. 13), eq. (17); Niemeyer and Slotine (1991).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.coriolis import closed_slotine_li_torques
    >>> from geomech.multibody.algorithms.dynamics import rnea
    >>> model = load_example("six_bar")
    >>> q, v, a = model.random_configuration(rng=2), np.array([0.8]), np.array([-0.3])
    >>> bool(np.allclose(closed_slotine_li_torques(model, q, v, v, a), rnea(model, q, v, a)))
    True
    """
    _closed(model)
    q, G, qd, qd_r, qdd_r = _spanning_reference(model, q, v, v_ref, a_ref)
    tau_s = slotine_li_torques(model.spanning_tree, q, qd, qd_r, qdd_r, connection, gravity)
    return np.einsum("...ij,...i->...j", G, tau_s)


def closed_slotine_li_regressor(model, q, v, v_ref, a_ref, connection="levi-civita", gravity=None):
    r"""Slotine–Li regressor of a closed model, :math:`\bar Y\boldsymbol\pi = \bar H a_r + \bar C
    v_r + \bar g`.

    .. math:: \bar Y = G^\top\,Y_s\big(q,\ Gv,\ Gv_r,\ Ga_r + \dot G v_r\big)

    with :math:`Y_s` the spanning tree's regressor
    (:func:`~geomech.multibody.algorithms.regressor.slotine_li_regressor`): the closed model's
    bodies are the spanning tree's, so :math:`\boldsymbol\pi` is the same parameter vector (10 per
    body, body order), and :math:`\bar Y\boldsymbol\pi` is :func:`closed_slotine_li_torques`.

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
    v, v_ref, a_ref : array_like, shape (..., nv)
    connection : str, BodyConnection, callable or mapping, optional
        As in :func:`~geomech.multibody.algorithms.regressor.slotine_li_regressor`.
    gravity : array_like, shape (..., 3), optional

    Returns
    -------
    ndarray, shape (..., nv, 10 N)

    Raises
    ------
    ModelError
        If ``model`` is not closed.
    DimensionError, NonFiniteError, NotOnManifoldError, ConnectionSpecError
        As :func:`~geomech.multibody.algorithms.regressor.slotine_li_regressor`.

    References
    ----------
    seed 000 §IV-A1 (eq. 13), eq. (17).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.coriolis import (closed_slotine_li_regressor,
    ...                                               closed_slotine_li_torques)
    >>> from geomech.spatial import dynamic_parameters
    >>> model = load_example("geared_chain")
    >>> q, v, v_r, a_r = model.neutral(), np.ones(3), np.zeros(3), np.ones(3)
    >>> Y = closed_slotine_li_regressor(model, q, v, v_r, a_r)
    >>> pi = dynamic_parameters(model.inertias).reshape(-1)
    >>> bool(np.allclose(Y @ pi, closed_slotine_li_torques(model, q, v, v_r, a_r)))
    True
    """
    _closed(model)
    q, G, qd, qd_r, qdd_r = _spanning_reference(model, q, v, v_ref, a_ref)
    Y_s = slotine_li_regressor(model.spanning_tree, q, qd, qd_r, qdd_r, connection, gravity)
    return np.einsum("...ij,...ik->...jk", G, Y_s)


def closed_coriolis_transpose_product(model, q, v, w, connection="levi-civita") -> np.ndarray:
    r"""The product :math:`\bar C(q, v)^\top w` of a closed model in :math:`O(N)`, without forming
    :math:`\bar C`.

    .. math:: \bar C^\top w = G^\top C_s(q, Gv)^\top G w + \dot G^\top H_s G w

    with the spanning tree's
    :func:`~geomech.multibody.algorithms.coriolis.coriolis_transpose_product` and
    :math:`H_s u = \mathrm{RNEA}_s(q, 0, u)` at zero gravity.

    Parameters
    ----------
    model : ClosedMultibodyModel
    q : array_like, shape (..., nq)
    v, w : array_like, shape (..., nv)
    connection : str, BodyConnection, AffineConnection, callable or mapping, optional
        As in :func:`closed_coriolis_matrix`.

    Returns
    -------
    ndarray, shape (..., nv)

    Raises
    ------
    ModelError
        If ``model`` is not closed.
    DimensionError, NonFiniteError, NotOnManifoldError, ConnectionSpecError
        As :func:`closed_coriolis_matrix`.

    References
    ----------
    seed 000 eq. (17), §VI-B (the transposed blocks of Alg. 1 l.18).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.coriolis import (closed_coriolis_matrix,
    ...                                               closed_coriolis_transpose_product)
    >>> model = load_example("planar_leg")
    >>> q, v, w = model.random_configuration(rng=3), np.array([0.4, -1.0]), np.array([1.0, 2.0])
    >>> bool(np.allclose(closed_coriolis_transpose_product(model, q, v, w),
    ...                  closed_coriolis_matrix(model, q, v).T @ w))
    True
    """
    _closed(model)
    q, G, G_dot, qd, Gw, _ = _spanning_reference(model, q, v, w, np.zeros(model.nv), True)
    st = model.spanning_tree
    ct = coriolis_transpose_product(st, q, qd, Gw, connection)
    Hw = rnea(st, q, np.zeros(st.nv), Gw, gravity=np.zeros(3))
    return np.einsum("...ij,...i->...j", G, ct) + np.einsum("...ij,...i->...j", G_dot, Hw)
