r"""Dynamics of closed chains by the dense baselines: projection and Lagrange multipliers.

On a closed model (:class:`~geomech.multibody.loops.ClosedMultibodyModel`) the equations of
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
a registry (:data:`METHODS`); the cluster algorithms of seed 004 (C-RNEA, C-ABA) register
themselves there as ``"cluster"`` and then become the default.

References
----------
Seed 004 §2.4 (projected RNEA, projection and Lagrange-multiplier methods), eqs. (1)–(3);
seed 000 §VI-C1 (:math:`\bar H = A^\top H A`).
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array
from geomech.errors import ModelError
from geomech.multibody.dynamics import crba, rnea

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
    >>> from geomech.multibody.urdf_plus import load_example
    >>> from geomech.multibody.closed_dynamics import projected_rnea, projected_aba
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
    >>> from geomech.multibody.urdf_plus import load_example
    >>> from geomech.multibody.closed_dynamics import projected_crba
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
    >>> from geomech.multibody.urdf_plus import load_example
    >>> from geomech.multibody.closed_dynamics import projected_aba, lagrange_aba
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
    >>> from geomech.multibody.urdf_plus import load_example
    >>> from geomech.multibody.closed_dynamics import lagrange_aba
    >>> model = load_example("four_bar")
    >>> lagrange_aba(model, model.neutral(), [0.0], [0.0]).shape
    (1,)
    """
    q, v = _checked(model, q, v)
    tau = as_array(tau, "tau", (model.nv,))
    batch = np.broadcast_shapes(q.shape[:-1], v.shape[:-1], tau.shape[:-1])
    q = np.broadcast_to(q, batch + (model.nq,))
    v = np.broadcast_to(v, batch + (model.nv,))
    tau = np.broadcast_to(tau, batch + (model.nv,))
    st = model.spanning_tree
    n = st.nv
    G, _ = model.constraint_matrices(q, v)
    qd = np.einsum("...ij,...j->...i", G, v)
    H = crba(st, q)
    c_s = rnea(st, q, qd, np.zeros(batch + (n,)), gravity, f_ext)
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
    >>> from geomech.multibody.urdf_plus import load_example
    >>> from geomech.multibody.closed_dynamics import closed_gravity_forces, projected_rnea
    >>> model = load_example("four_bar")
    >>> q, z = model.neutral(), np.zeros(1)
    >>> bool(np.allclose(closed_gravity_forces(model, q), projected_rnea(model, q, z, z)))
    True
    """
    q, _ = _checked(model, q)
    z = np.zeros(q.shape[:-1] + (model.nv,))
    return projected_rnea(model, q, z, z, gravity)


#: Registry of the closed-model algorithms by kind and method name.
METHODS = {
    "rnea": {"projection": projected_rnea},
    "crba": {"projection": projected_crba},
    "aba": {"projection": projected_aba, "lagrange": lagrange_aba},
}


def register_method(kind: str, name: str, func) -> None:
    """Register an algorithm for closed models (e.g. seed 004's C-ABA as ``"cluster"``).

    Parameters
    ----------
    kind : {"rnea", "crba", "aba"}
    name : str
        Method name; ``"cluster"`` becomes the default once registered.
    func : callable
        Same signature as the projection baseline of that kind.

    Raises
    ------
    ModelError
        On an unknown ``kind`` or a ``func`` that is not callable.

    Examples
    --------
    >>> from geomech.multibody.closed_dynamics import METHODS, projected_rnea, register_method
    >>> register_method("rnea", "projection-copy", projected_rnea)
    >>> sorted(METHODS["rnea"])
    ['projection', 'projection-copy']
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
            f"Expected `method` for {kind} on a closed model from {sorted(table)!r}, got {method!r}."
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
        A name from ``METHODS["rnea"]``; default ``"cluster"`` when registered, else
        ``"projection"``.

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
    >>> from geomech.multibody.urdf_plus import load_example
    >>> from geomech.multibody.closed_dynamics import closed_rnea
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
    >>> from geomech.multibody.urdf_plus import load_example
    >>> from geomech.multibody.closed_dynamics import closed_crba
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
        A name from ``METHODS["aba"]`` (``"projection"``, ``"lagrange"``, and ``"cluster"``
        when registered, then the default).

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
    >>> from geomech.multibody.urdf_plus import load_example
    >>> from geomech.multibody.closed_dynamics import closed_aba
    >>> model = load_example("belt_leg")
    >>> q, v, tau = model.neutral(), np.zeros(3), np.zeros(3)
    >>> a1 = closed_aba(model, q, v, tau, method="projection")
    >>> a2 = closed_aba(model, q, v, tau, method="lagrange")
    >>> bool(np.allclose(a1, a2))
    True
    """
    return _method("aba", method)(model, q, v, tau, gravity, f_ext)
