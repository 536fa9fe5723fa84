"""Slotine–Li passivity-based tracking with a chosen factorization (seed 000 Sec. IV-A)."""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import GeomechError
from ..geometry.connection import AffineConnection
from ..geometry.frames import CoordinateFrame
from ..geometry.system import MechanicalSystem

__all__ = ["SlotineLi"]


def _gain(K, n: int, name: str) -> np.ndarray:
    K = np.asarray(K, dtype=float)
    if K.ndim == 0:
        K = K * np.eye(n)
    if K.shape != (n, n):
        raise GeomechError(f"Expected `{name}` to be a scalar or of shape {(n, n)}, got {K.shape}.")
    if not np.all(np.isfinite(K)):
        raise GeomechError(f"Expected `{name}` to be finite.")
    sym = 0.5 * (K + K.T)
    if np.linalg.eigvalsh(sym).min() <= 0.0:
        raise GeomechError(
            f"Expected `{name}` to be positive definite, got eigenvalues of its symmetric part "
            f"{np.linalg.eigvalsh(sym)}."
        )
    return K


class SlotineLi:
    r"""Slotine–Li tracking law with the Coriolis factorization of a chosen connection.

    .. math::

        \dot q_r = \dot q_d - \Lambda (q - q_d),\quad s = \dot q - \dot q_r,\quad
        \tau = \hat H \ddot q_r + \hat C(q, \dot q)\dot q_r + \hat g - K_D s

    with the corrected sign of the reference velocity (seed 000 §3.2 erratum) and
    :math:`\ddot q_r = \ddot q_d - \Lambda(\dot q - \dot q_d)`.

    Parameters
    ----------
    system : MechanicalSystem or MultibodyModel
        The plant model. A ``MechanicalSystem`` must use a ``CoordinateFrame``; the error
        is :math:`\tilde q = q - q_d` in that chart. For a ``MultibodyModel`` the error is
        ``model.difference(q_d, q)`` (joint-wise :math:`\log(q_d^{-1} q)`) and the
        torque is ``slotine_li_torques(estimate, q, v, v_r, a_r, connection) - K_D s``
        (:math:`\ddot q_r = \ddot q_d - \Lambda(\dot q - \dot q_d)`, exact for
        revolute/prismatic joints, a first-order approximation of the rate of the log
        error on spherical/free-flyer joints).
    connection : AffineConnection or str or mapping
        For a ``MechanicalSystem``: its Coriolis factorization
        :math:`\hat C[i,k] = \Gamma[i,j,k] v[j]`, used literally (not rescaled by the
        estimate). For a ``MultibodyModel``: a body-connection name or mapping accepted by
        ``geomech.multibody.slotine_li_torques``; admissibility (:math:`\dot H = C + C^\top`
        and :math:`Cv = C^\star v`) is checked at one seeded random state.
    reference : callable
        ``reference(t) -> (q_d, v_d, a_d)``, each of shape ``(n,)``.
    Lambda, K_D : float or array_like, shape (n, n)
        Positive-definite gains.
    estimate : MechanicalSystem, optional
        Model with estimated parameters giving :math:`\hat H, \hat g`; default ``system``.
    adaptation : None
        Must be ``None`` (adaptation is not implemented yet).
    require_passivity : bool
        If the connection is not metric compatible (:math:`\dot H \ne C + C^\top`):
        raise ``GeomechError`` when True, else emit a ``UserWarning``.

    Raises
    ------
    GeomechError
        Non positive-definite gains, wrong types, unsupported frame or adaptation,
        non metric-compatible connection with ``require_passivity=True``.

    References
    ----------
    seed 000 Sec. IV-A1, eq. (13), Remark 5.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import LeviCivitaConnection
    >>> from geomech.geometry.examples import point_mass
    >>> from geomech.control import SlotineLi
    >>> P = point_mass(1.0)
    >>> ref = lambda t: (np.zeros(3), np.zeros(3), np.zeros(3))
    >>> ctrl = SlotineLi(P, LeviCivitaConnection(P), ref, 1.0, 1.0)
    >>> ctrl(0.0, np.array([1.0, 0, 0]), np.zeros(3))
    array([-1., -0., -0.])
    """

    def __init__(self, system, connection, reference, Lambda, K_D, estimate=None,
                 adaptation=None, require_passivity=False):
        from ..multibody.model import MultibodyModel

        if isinstance(system, MultibodyModel):
            self._init_multibody(system, connection, reference, Lambda, K_D, estimate, adaptation,
                                 require_passivity)
            return
        self.multibody = False
        if not isinstance(system, MechanicalSystem):
            raise GeomechError(
                f"Expected `system` to be a MechanicalSystem, got {type(system).__name__}."
            )
        if not isinstance(system.frame, CoordinateFrame):
            raise GeomechError(
                "SlotineLi currently supports systems with a CoordinateFrame, got "
                f"{type(system.frame).__name__}."
            )
        if not isinstance(connection, AffineConnection):
            raise GeomechError(
                f"Expected `connection` to be an AffineConnection, got {type(connection).__name__}."
            )
        if not callable(reference):
            raise GeomechError("Expected `reference` to be callable t -> (q_d, v_d, a_d).")
        if adaptation is not None:
            raise GeomechError("Expected `adaptation=None` for a MechanicalSystem (no regressor).")
        self.system = system
        self.estimate = system if estimate is None else estimate
        if not isinstance(self.estimate, MechanicalSystem) or self.estimate.dim != system.dim:
            raise GeomechError("Expected `estimate` to be a MechanicalSystem of the same dimension.")
        self.connection = connection
        self.reference = reference
        n = self.n = system.dim
        self.Lambda = _gain(Lambda, n, "Lambda")
        self.K_D = _gain(K_D, n, "K_D")
        q0 = system.random_point(np.random.default_rng(0))
        if not bool(connection.is_metric_compatible(q0)):
            msg = ("The connection is not metric compatible (Hdot != C + C^T): the passivity "
                   "guarantee V' = -s^T K_D s does not hold.")
            if require_passivity:
                raise GeomechError(msg)
            warnings.warn(msg, UserWarning, stacklevel=2)

    def _init_multibody(self, model, connection, reference, Lambda, K_D, estimate, adaptation,
                        require_passivity):
        # multibody: q~ = model.difference(q_d, q) (joint-wise log), torques from
        # geomech.multibody.slotine_li_torques with the named body connection
        from ..multibody.model import MultibodyModel

        if adaptation is not None:
            raise GeomechError("Adaptation is not implemented yet; expected `adaptation=None`.")
        if not callable(reference):
            raise GeomechError("Expected `reference` to be callable t -> (q_d, v_d, a_d).")
        self.multibody = True
        self.system = model
        self.estimate = model if estimate is None else estimate
        if not isinstance(self.estimate, MultibodyModel) or self.estimate.nv != model.nv:
            raise GeomechError("Expected `estimate` to be a MultibodyModel with the same nv.")
        self.connection = connection
        self.reference = reference
        self.n = model.nv
        self.Lambda = _gain(Lambda, self.n, "Lambda")
        self.K_D = _gain(K_D, self.n, "K_D")
        # admissibility at a random state: Hdot = C + C^T (passivity) and C v = C* v (dynamics)
        from ..multibody.coriolis import coriolis_matrix, mass_matrix_derivative

        rng = np.random.default_rng(0)
        q0, v0 = model.random_configuration(rng), rng.standard_normal(self.n)
        C = coriolis_matrix(model, q0, v0, connection=connection)
        Hd = mass_matrix_derivative(model, q0, v0)
        scale = 1.0 + np.abs(Hd).max()
        bad = []
        if np.abs(Hd - C - C.T).max() > 1e-8 * scale:
            bad.append("not metric compatible (Hdot != C + C^T)")
        if np.abs((C - coriolis_matrix(model, q0, v0)) @ v0).max() > 1e-8 * scale:
            bad.append("not a valid factorization (C v != C* v)")
        if bad:
            msg = (f"The connection {connection!r} is " + " and ".join(bad)
                   + ": the passivity guarantee V' = -s^T K_D s does not hold.")
            if require_passivity:
                raise GeomechError(msg)
            warnings.warn(msg, UserWarning, stacklevel=3)

    def _vec(self, x, name, n=None):
        n = self.n if n is None else n
        x = np.asarray(x, dtype=float)
        if x.shape != (n,):
            raise GeomechError(f"Expected `{name}` to have shape {(n,)}, got {x.shape}.")
        return x

    def signals(self, t, q, v):
        """Reference signals ``(q_d, v_d, v_r, a_r, s)`` at ``(t, q, v)``.

        Parameters
        ----------
        t : float
        q, v : array_like, shape (n,)

        Returns
        -------
        tuple of ndarray, each shape (n,)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LeviCivitaConnection
        >>> from geomech.geometry.examples import point_mass
        >>> from geomech.control import SlotineLi
        >>> P = point_mass(1.0)
        >>> c = SlotineLi(P, LeviCivitaConnection(P), lambda t: (np.zeros(3),) * 3, 1.0, 1.0)
        >>> c.signals(0.0, np.ones(3), np.zeros(3))[-1]
        array([1., 1., 1.])
        """
        nq = self.system.nq if self.multibody else self.n
        q, v = self._vec(q, "q", nq), self._vec(v, "v")
        ref = tuple(self.reference(t))
        if len(ref) != 3:
            raise GeomechError(f"Expected `reference(t)` to return (q_d, v_d, a_d), got {len(ref)} items.")
        q_d, v_d, a_d = (self._vec(x, k, m) for x, k, m in zip(ref, ("q_d", "v_d", "a_d"), (nq, self.n, self.n), strict=True))
        q_err = self.system.difference(q_d, q) if self.multibody else q - q_d
        v_r = v_d - self.Lambda @ q_err  # corrected sign (seed 000 §3.2)
        a_r = a_d - self.Lambda @ (v - v_d)
        return q_d, v_d, v_r, a_r, v - v_r

    def lyapunov(self, t, q, v):
        r""":math:`V = \tfrac12 s^\top H(q) s` with the true mass matrix.

        Parameters
        ----------
        t : float
        q, v : array_like, shape (n,)

        Returns
        -------
        float

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LeviCivitaConnection
        >>> from geomech.geometry.examples import point_mass
        >>> from geomech.control import SlotineLi
        >>> P = point_mass(2.0)
        >>> c = SlotineLi(P, LeviCivitaConnection(P), lambda t: (np.zeros(3),) * 3, 1.0, 1.0)
        >>> float(c.lyapunov(0.0, np.array([1.0, 0, 0]), np.zeros(3)))
        1.0
        """
        s = self.signals(t, q, v)[-1]
        if self.multibody:
            from ..multibody.dynamics import crba

            return 0.5 * s @ crba(self.system, np.asarray(q, float)) @ s
        return 0.5 * s @ self.system.mass_matrix(np.asarray(q, float)) @ s

    def __call__(self, t, q, v):
        """Torque of eq. (13).

        Parameters
        ----------
        t : float
        q, v : array_like, shape (n,)

        Returns
        -------
        ndarray, shape (n,)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LeviCivitaConnection
        >>> from geomech.geometry.examples import point_mass
        >>> from geomech.control import SlotineLi
        >>> P = point_mass(1.0)
        >>> c = SlotineLi(P, LeviCivitaConnection(P), lambda t: (np.zeros(3),) * 3, 1.0, 2.0)
        >>> c(0.0, np.zeros(3), np.array([1.0, 0, 0]))
        array([-3.,  0.,  0.])
        """
        _, _, v_r, a_r, s = self.signals(t, q, v)
        q, v = np.asarray(q, float), np.asarray(v, float)
        if self.multibody:
            from ..multibody.coriolis import slotine_li_torques

            return slotine_li_torques(self.estimate, q, v, v_r, a_r, self.connection) - self.K_D @ s
        E = self.estimate
        C_hat = self.connection.coriolis_matrix(q, v)
        return E.mass_matrix(q) @ a_r + C_hat @ v_r + E.gravity(q) - self.K_D @ s  # eq. (13)
