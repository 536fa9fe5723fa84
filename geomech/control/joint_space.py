r"""Joint-space tracking laws of robots: PD (with gravity compensation) and computed torque.

Both take the joint-wise error of :func:`geomech.control.reference.multibody_tracking_error`
(seed 000 Remark 5): on every joint, with :math:`g_{e,i} = q_{d,i}^{-1} q_i`,

.. math:: e_i = \log g_{e,i}, \qquad w = T\nu_d, \qquad \xi_e = \nu - T\nu_d, \qquad
          b = \tfrac{d}{dt}(T\nu_d) = T a_d - \operatorname{ad}_{\xi_e} T\nu_d,

with :math:`T = \operatorname{blockdiag}(\operatorname{Ad}_{g_{e,i}^{-1}})` (on 1-DoF joints
:math:`e = q - q_d`, :math:`\xi_e = \dot q - \dot q_d`, :math:`b = \ddot q_d`). :math:`\xi_e` is
the body velocity of the error, :math:`\dot e = J_r(e)^{-1}\xi_e`.

- :class:`PD`: :math:`\tau = \hat g(q) - K_P e - K_D\xi_e` (the gravity term optional);
- :class:`ComputedTorque`: :math:`\tau = \hat H(q)\,a + \hat c(q, \nu) + \hat g(q)` with
  :math:`a = b - K_D\xi_e - K_P e`, by the RNEA of the estimate. With the exact model the error
  obeys :math:`\dot\xi_e + K_D\xi_e + K_P e = 0`, :math:`\dot e = J_r(e)^{-1}\xi_e`: on 1-DoF
  joints the linear second-order law :math:`\ddot e + K_D\dot e + K_P e = 0`.

Both are static controllers of :func:`geomech.simulate` (``controller(t, q, v) -> tau``, batched
over leading dimensions of ``q`` and ``v``) that the simulation runs compiled on trees of
revolute, prismatic, helical, spherical and free-flyer joints.

References
----------
seed 000 §IV-A1, Remark 5; B. Siciliano et al., *Robotics: Modelling, Planning and Control*,
Springer 2009, §8.5 (PD with gravity compensation), §8.5.2 (inverse dynamics control).

Examples
--------
>>> import numpy as np
>>> from geomech.control import PD
>>> from geomech.multibody import robots
>>> arm = robots.double_pendulum()
>>> hold = PD(arm, lambda t: (np.zeros(2),) * 3, K_P=100.0, K_D=20.0, gravity_compensation=True)
>>> hold(0.0, np.zeros(2), np.zeros(2))  # hanging down at the set point: no torque
array([0., 0.])
"""

from __future__ import annotations

import numpy as np

from geomech._arrays import matvec
from geomech._validation import as_array
from geomech.errors import DimensionError, DTypeError, ParameterError

from ._checks import _gain, _three
from .reference import JointwiseTrackingError

__all__ = ["PD", "ComputedTorque"]


class _JointSpaceLaw:
    """The joint-wise error of a tree and the reference, shared by :class:`PD` and
    :class:`ComputedTorque`.
    """

    _code = None  # the kernel's law (geomech.multibody._kernels.tree.simulate)

    def __init__(self, model, reference, K_P, K_D, estimate, vectorized):
        from geomech.multibody.model.system import MultibodySystem

        if not isinstance(model, MultibodySystem) or getattr(model, "is_closed", False):
            kind = "a closed model" if isinstance(model, MultibodySystem) else type(model).__name__
            raise ParameterError(
                f"Expected `model` to be a kinematic tree (a MultibodyModel), got {kind}."
            )
        if not callable(reference):
            raise DTypeError("Expected `reference` to be callable t -> (q_d, v_d, a_d).")
        estimate = model if estimate is None else estimate
        if (
            not isinstance(estimate, MultibodySystem)
            or getattr(estimate, "is_closed", False)
            or (estimate.nq, estimate.nv) != (model.nq, model.nv)
        ):
            raise DTypeError(
                f"Expected `estimate` to be a kinematic tree with nq = {model.nq} and nv = "
                f"{model.nv} (the model's), got {type(estimate).__name__}."
            )
        self.model, self.estimate, self.reference = model, estimate, reference
        self.K_P = _gain(K_P, model.nv, "K_P")
        self.K_D = _gain(K_D, model.nv, "K_D")
        self.vectorized = bool(vectorized)
        self._error = JointwiseTrackingError(model)  # ParameterError for non-Lie joints

    def _check_reference(self, ref):
        """One reference ``(q_d, v_d, a_d)``: shapes ``(nq,)``, ``(nv,)``, ``(nv,)``, finite, unit
        quaternions.
        """
        q_d, v_d, a_d = _three(ref)
        nq, nv = self.model.nq, self.model.nv
        out = (
            self.model.frame.validate_point(q_d, "q_d"),
            as_array(v_d, "v_d", (nv,)),
            as_array(a_d, "a_d", (nv,)),
        )
        for x, name, n in zip(out, ("q_d", "v_d", "a_d"), (nq, nv, nv), strict=True):
            if x.shape != (n,):  # one reference for the whole batch
                raise DimensionError(f"Expected `{name}` to have shape {(n,)}, got {x.shape}.")
        return out

    def errors(self, t, q, v):
        r"""``(e, ξ_e, b)`` at ``(t, q, v)`` (module docstring), each of shape ``(..., nv)``.

        Parameters
        ----------
        t : float
        q : array_like, shape (..., nq)
        v : array_like, shape (..., nv)

        Returns
        -------
        e, xi, b : ndarray, shape (..., nv)

        Raises
        ------
        GeomechError
            If ``q``, ``v`` or the reference are malformed (shape, finiteness, quaternions).
        """
        q = self.model.frame.validate_point(q, "q")
        v = as_array(v, "v", (self.model.nv,))
        q_d, v_d, a_d = self._check_reference(self.reference(t))
        try:
            np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
        except ValueError:
            raise DimensionError(
                f"Expected the leading (batch) dimensions of `q` {q.shape} and `v` {v.shape} "
                f"to broadcast."
            ) from None
        e, w, b, _ = self._error.rates(q, v, q_d, v_d, a_d)
        return e, v - w, b

    def _compiled_law(self):
        """The law as data for the compiled simulation, or ``None`` (the Python path)."""
        from geomech.simulation.compiled import CompiledLaw

        if type(self) not in (PD, ComputedTorque) or not self._error.compiled:
            return None
        return CompiledLaw(
            self._law_code(),
            self.model,
            self.estimate,
            (self.K_P, self.K_D),
            self.reference,
            self._check_reference,
            vectorized=self.vectorized,
        )


class PD(_JointSpaceLaw):
    r"""Joint-space PD tracking law, with optional gravity compensation.

    .. math:: \tau = \hat g(q) - K_P\,e - K_D\,\xi_e

    with the joint-wise error :math:`e` and its body velocity :math:`\xi_e = \nu - T\nu_d`
    (:mod:`geomech.control.joint_space`; :math:`\tau = -K_P(q - q_d) - K_D(\dot q - \dot q_d)`
    on 1-DoF joints) and :math:`\hat g` the estimate's gravity forces
    (``gravity_compensation=True``; otherwise :math:`\hat g = 0`). With gravity compensation and
    a constant set point, :math:`V = \tfrac12\nu^\top H\nu + \tfrac12 e^\top K_P e` does not
    increase (seed 000 eq. 11 with :math:`\dot H = C + C^\top`) on 1-DoF joints.

    Parameters
    ----------
    model : MultibodyModel
        A kinematic tree whose moving joints have a Lie group as their manifold.
    reference : callable
        ``reference(t) -> (q_d, v_d, a_d)``, shapes ``(nq,)``, ``(nv,)``, ``(nv,)`` (``a_d`` is
        read and validated, not used).
    K_P, K_D : float or array_like, shape (nv, nv)
        Positive-definite gains.
    gravity_compensation : bool, optional (keyword only)
        Add :math:`\hat g(q)`.
    estimate : MultibodyModel, optional (keyword only)
        The model of :math:`\hat g` (same ``nq``, ``nv``); default ``model``.
    vectorized : bool, optional (keyword only)
        As in :class:`~geomech.control.SlotineLi`: ``reference`` also takes an array of times.

    Raises
    ------
    GeomechError
        If ``model`` is not a tree, a gain is not positive definite or of the wrong shape, the
        reference is not callable, or ``estimate`` does not match ``model``.

    References
    ----------
    Siciliano et al. (2009), §8.5; seed 000 Remark 5 (the error on a group).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.control import PD
    >>> from geomech.multibody import robots
    >>> arm = robots.double_pendulum()
    >>> pd = PD(arm, lambda t: (np.array([0.5, 0.0]), np.zeros(2), np.zeros(2)), 10.0, 2.0)
    >>> pd(0.0, np.zeros(2), np.array([0.0, 1.0]))  # -K_P (q - q_d) - K_D (v - v_d)
    array([ 5., -2.])
    """

    def __init__(
        self,
        model,
        reference,
        K_P,
        K_D,
        *,
        gravity_compensation=False,
        estimate=None,
        vectorized=False,
    ):
        super().__init__(model, reference, K_P, K_D, estimate, vectorized)
        self.gravity_compensation = bool(gravity_compensation)

    def _law_code(self):
        from geomech.multibody._kernels.tree.simulate import PD as PD_LAW
        from geomech.multibody._kernels.tree.simulate import PD_GRAVITY

        return PD_GRAVITY if self.gravity_compensation else PD_LAW

    def __call__(self, t, q, v):
        """The torque at ``(t, q, v)``.

        Parameters
        ----------
        t : float
        q : array_like, shape (..., nq)
        v : array_like, shape (..., nv)

        Returns
        -------
        ndarray, shape (..., nv)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.control import PD
        >>> from geomech.multibody import robots
        >>> arm = robots.double_pendulum()
        >>> pd = PD(arm, lambda t: (np.zeros(2),) * 3, 4.0, 1.0)
        >>> pd(0.0, np.array([[0.1, 0.0], [0.0, -0.2]]), np.zeros(2))  # a batch of two states
        array([[-0.4, -0. ],
               [-0. ,  0.8]])
        """
        from geomech.multibody.algorithms.dynamics import rnea

        e, xi, _ = self.errors(t, q, v)
        P, D = matvec(self.K_P, e), matvec(self.K_D, xi)
        if not self.gravity_compensation:
            return -P - D
        q = np.asarray(q, dtype=float)
        zero = np.zeros(self.model.nv)
        return rnea(self.estimate, q, zero, zero) - P - D  # ĝ(q) − K_P e − K_D ξ_e


class ComputedTorque(_JointSpaceLaw):
    r"""Computed-torque (inverse-dynamics) tracking law.

    .. math:: \tau = \hat H(q)\,a + \hat c(q, \nu) + \hat g(q), \qquad
              a = b - K_D\,\xi_e - K_P\,e,

    by the RNEA of the estimate, with the joint-wise error :math:`e`, its body velocity
    :math:`\xi_e = \nu - T\nu_d` and :math:`b = \tfrac{d}{dt}(T\nu_d)`
    (:mod:`geomech.control.joint_space`). With the exact model the closed loop is
    :math:`\dot\xi_e = -K_D\xi_e - K_P e`, :math:`\dot e = J_r(e)^{-1}\xi_e`: on 1-DoF joints
    :math:`\ddot e + K_D\dot e + K_P e = 0` (Siciliano et al., eq. 8.57).

    Parameters
    ----------
    model : MultibodyModel
        A kinematic tree whose moving joints have a Lie group as their manifold.
    reference : callable
        ``reference(t) -> (q_d, v_d, a_d)``: shapes ``(nq,)``, ``(nv,)``, ``(nv,)``, with
        :math:`\dot q_{d,i} = q_{d,i}\hat\nu_{d,i}` and :math:`a_d = \dot\nu_d`.
    K_P, K_D : float or array_like, shape (nv, nv)
        Positive-definite gains.
    estimate : MultibodyModel, optional (keyword only)
        The model of :math:`\hat H, \hat c, \hat g` (same ``nq``, ``nv``); default ``model``.
    vectorized : bool, optional (keyword only)
        As in :class:`~geomech.control.SlotineLi`: ``reference`` also takes an array of times.

    Raises
    ------
    GeomechError
        If ``model`` is not a tree, a gain is not positive definite or of the wrong shape, the
        reference is not callable, or ``estimate`` does not match ``model``.

    References
    ----------
    Siciliano et al. (2009), §8.5.2; seed 000 Remark 5 (the error on a group).

    Examples
    --------
    On the reference the torque is the inverse dynamics of the desired motion:

    >>> import numpy as np
    >>> from geomech.control import ComputedTorque
    >>> from geomech.multibody import robots, rnea
    >>> arm = robots.double_pendulum()
    >>> q_d, v_d, a_d = np.array([0.3, -0.1]), np.array([1.0, 0.0]), np.array([0.0, 2.0])
    >>> ct = ComputedTorque(arm, lambda t: (q_d, v_d, a_d), 25.0, 10.0)
    >>> bool(np.allclose(ct(0.0, q_d, v_d), rnea(arm, q_d, v_d, a_d)))
    True
    """

    def __init__(self, model, reference, K_P, K_D, *, estimate=None, vectorized=False):
        super().__init__(model, reference, K_P, K_D, estimate, vectorized)

    def _law_code(self):
        from geomech.multibody._kernels.tree.simulate import COMPUTED_TORQUE

        return COMPUTED_TORQUE

    def __call__(self, t, q, v):
        """The torque at ``(t, q, v)``.

        Parameters
        ----------
        t : float
        q : array_like, shape (..., nq)
        v : array_like, shape (..., nv)

        Returns
        -------
        ndarray, shape (..., nv)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.control import ComputedTorque
        >>> from geomech.multibody import robots
        >>> arm = robots.double_pendulum()
        >>> ct = ComputedTorque(arm, lambda t: (np.zeros(2),) * 3, 1.0, 1.0)
        >>> ct(0.0, np.zeros((3, 2)), np.zeros(2)).shape  # a batch of three states
        (3, 2)
        """
        from geomech.multibody.algorithms.dynamics import rnea

        e, xi, b = self.errors(t, q, v)
        a = b - matvec(self.K_D, xi) - matvec(self.K_P, e)  # the commanded acceleration
        q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)
        return rnea(self.estimate, q, v, a)
