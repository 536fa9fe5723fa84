"""Slotine–Li passivity-based tracking with a chosen factorization (seed 000 Sec. IV-A)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from geomech.multibody.model.frame import QUATERNION_TOL, JointFrame
from geomech.multibody.model.joints import FreeFlyer, Spherical

from .._validation import as_array
from ..errors import DimensionError, DTypeError, NonFiniteError, ParameterError
from ..geometry.closed_chain import LoopClosureFrame
from ..geometry.connection import AffineConnection
from ..geometry.frames import CoordinateFrame, LeftInvariantFrame, RightInvariantFrame
from ..geometry.resolution import resolve_connection
from ..geometry.system import MechanicalSystem, as_mechanical_system
from ._checks import _gain, _three
from .reference import JointwiseTrackingError, group_tracking_error

__all__ = ["SlotineLi", "AdaptiveSlotineLi"]


class SlotineLi:
    r"""Slotine–Li tracking law with the Coriolis factorization of a chosen connection.

    .. math::

        \dot q_r = \dot q_d - \Lambda (q - q_d),\quad s = \dot q - \dot q_r,\quad
        \tau = \hat H \ddot q_r + \hat C(q, \dot q)\dot q_r + \hat g - K_D s

    with the corrected sign of the reference velocity (seed 000 §3.2 erratum) and
    :math:`\ddot q_r = \ddot q_d - \Lambda(\dot q - \dot q_d)`.

    Parameters
    ----------
    system : MechanicalSystem or RigidBody
        The plant model; a :class:`~geomech.multibody.MultibodyModel` is one (tree or closed), a
        :class:`~geomech.rigidbody.RigidBody` is taken through its ``mechanical_system()`` view
        (:func:`~geomech.geometry.as_mechanical_system`). The error is taken in the frame's own
        terms. ``CoordinateFrame``:
        :math:`\tilde q = q - q_d`. ``LoopClosureFrame`` (a closed chain, e.g.
        ``four_bar_linkage(...).system``) or the joint frame of a closed model: ``q`` and
        ``q_d`` are closed configurations and the error is taken in the independent
        coordinates, :math:`\tilde y = y - y_d` (the frame's fields are their coordinate
        fields, so :math:`v = \dot y`). ``LeftInvariantFrame`` (body velocities) or
        ``RightInvariantFrame`` (spatial velocities) on a Lie group: the reference velocity
        is the vector field of Remark 5 built from the group error
        :math:`e = \log(q_d^{-1} q)` (resp. :math:`\log(q q_d^{-1})`):
        :math:`v_r = \operatorname{Ad}_{g_e^{-1}} v_d - \Lambda e` and its exact rate
        :math:`a_r` along the motion (:func:`geomech.control.reference.group_tracking_error`;
        valid away from the cut locus of :math:`\log`). The joint frame of a tree
        (:class:`~geomech.multibody.JointFrame`): the same left-invariant error joint by
        joint (:func:`geomech.control.reference.multibody_tracking_error`):
        :math:`e` = ``model.difference(q_d, q)``, :math:`v_r = T v_d - \Lambda e` with
        :math:`T = \operatorname{blockdiag}(\operatorname{Ad}_{g_{e,i}^{-1}})` and its exact
        rate :math:`a_r` on spherical, planar, Schönflies and free-flyer joints (the
        coordinate law on 1-DoF joints).
    connection : AffineConnection, str or mapping
        The Coriolis factorization :math:`\hat C[i,k] = \Gamma[i,j,k] v[j]`, the same way for every
        system: a connection object of the system (used literally, not rescaled by the estimate), or
        a name resolved for the system: on a robot, a body-connection name or mapping
        (``model.connection(name)``; on a tree the torque is then ``slotine_li_torques(estimate, q,
        v, v_r, a_r, connection) - K_D s``, recursive and with the estimate's inertias); on a rigid
        body one of its names (``body.connection(name)``, e.g. ``"boltzmann-hamel"``); otherwise
        ``"levi-civita"`` or, with a left-invariant frame, ``"cartan-minus"``, ``"cartan-zero"``,
        ``"cartan-plus"``. Admissibility (:math:`\dot H = C + C^\top` and :math:`Cv = C^\star v`) is
        checked at one seeded random configuration.
    reference : callable
        ``reference(t) -> (q_d, v_d, a_d)``, each of shape ``(n,)``; on a Lie group ``q_d``
        is a group element (shape ``point_shape``) and ``v_d``, ``a_d`` are the desired
        velocity in the system's frame (body: :math:`\dot q_d = q_d \hat v_d`; spatial:
        :math:`\dot q_d = \hat v_d q_d`) and its time derivative; on a closed chain
        ``q_d`` is a closed configuration (``point_shape``) and ``v_d``, ``a_d`` are the
        independent speeds and accelerations.
    Lambda, K_D : float or array_like, shape (n, n)
        Positive-definite gains.
    estimate : MechanicalSystem, optional (keyword only)
        Model with estimated parameters giving :math:`\hat H, \hat g`; default ``system``
        (same dimension and frame type).
    adaptation : None or float or array_like, shape (10 N, 10 N), optional (keyword only)
        ``None``: fixed parameters (this class). Otherwise, for a tree ``MultibodyModel``,
        the adaptation gain :math:`\Gamma` (a positive scalar or a symmetric
        positive-definite matrix) of the Slotine–Li parameter adaptation; the constructor
        then returns an :class:`AdaptiveSlotineLi` (a dynamic controller with a state).
    require_passivity : bool, optional (keyword only)
        If the connection is not metric compatible (:math:`\dot H \ne C + C^\top`) or not
        a valid factorization (:math:`Cv \ne C^\star v`), checked at one seeded random
        point: raise ``GeomechError`` when True, else emit a ``UserWarning``.
    vectorized : bool, optional (keyword only)
        Whether ``reference`` also accepts an array of times ``t`` of shape ``(K,)`` and then
        returns ``q_d``, ``v_d``, ``a_d`` of shapes ``(K, nq)``, ``(K, nv)``, ``(K, nv)`` (as
        ``vectorized`` in :func:`scipy.integrate.solve_ivp`). :func:`geomech.simulate` samples
        such a reference in one call per chunk of steps when it runs the law compiled (a tree,
        a named body connection); otherwise it is called with one time at a time.

    Raises
    ------
    GeomechError
        Non positive-definite gains, wrong types, unsupported frame or adaptation,
        inadmissible connection (not metric compatible or :math:`Cv \ne C^\star v`) with
        ``require_passivity=True``.
    DimensionError
        A connection of another dimension; at call time, ``q``, ``v`` or the reference of
        the wrong shape (a ``GeomechError`` too).

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

    A rigid body on SO(3) with body angular velocity: the error is :math:`\log(q_d^{-1} q)`
    and :math:`v_r = -\Lambda e = [0, 0, -1]` here, so :math:`s = [0, 0, 1]`:

    >>> from geomech.geometry.examples import rigid_body_so3
    >>> from geomech.lie import SO3
    >>> body = rigid_body_so3(np.diag([1.0, 2.0, 3.0]))
    >>> ref = lambda t: (np.eye(3), np.zeros(3), np.zeros(3))
    >>> ctrl = SlotineLi(body, LeviCivitaConnection(body), ref, 2.0, 1.0)
    >>> ctrl(0.0, SO3.exp([0.0, 0.0, 0.5]), np.zeros(3))
    array([ 0.,  0., -1.])

    A robot is a system like the others; the connection is an object or a name:

    >>> from geomech.multibody import robots
    >>> arm = robots.double_pendulum()
    >>> ref = lambda t: (np.zeros(2), np.zeros(2), np.zeros(2))
    >>> by_name = SlotineLi(arm, connection="momentum-cross", reference=ref, Lambda=1.0, K_D=2.0)
    >>> by_object = SlotineLi(arm, arm.connection("momentum-cross"), ref, 1.0, 2.0)
    >>> q, v = np.array([0.3, -0.2]), np.array([0.1, 0.4])
    >>> bool(np.allclose(by_name(0.0, q, v), by_object(0.0, q, v)))
    True
    """

    def __new__(cls, *args, adaptation=None, **kwargs):
        """``SlotineLi(..., adaptation=Gamma)`` builds an :class:`AdaptiveSlotineLi`."""
        if cls is SlotineLi and adaptation is not None:
            cls = AdaptiveSlotineLi  # the dynamic controller (it has a state)
        return super().__new__(cls)

    def __init__(
        self,
        system,
        connection,
        reference,
        Lambda,
        K_D,
        *,
        estimate=None,
        adaptation=None,
        require_passivity=False,
        vectorized=False,
    ):
        given, system = system, as_mechanical_system(system)  # a RigidBody through its view
        if adaptation is not None and not isinstance(self, AdaptiveSlotineLi):
            raise ParameterError(
                "Adaptation needs the dynamic controller: construct "
                "SlotineLi(..., adaptation=Gamma) or AdaptiveSlotineLi directly."
            )
        if not callable(reference):
            raise DTypeError("Expected `reference` to be callable t -> (q_d, v_d, a_d).")
        # the error in the frame's own terms: q - q_d in coordinates (all of q, or the
        # independent ones of a closed chain), the log of the group error with invariant
        # frames and joint by joint on a robot (Remark 5: v_r is a vector field)
        self._side, self._group, self._coordinates, self._jointwise = None, None, slice(None), None
        frame = system.frame
        if isinstance(frame, LeftInvariantFrame):  # RightInvariantFrame subclasses it
            self._side = "right" if isinstance(frame, RightInvariantFrame) else "left"
            self._group = frame.group
        elif isinstance(frame, LoopClosureFrame):  # closed chain: the independent coordinates
            self._coordinates = frame.independent
        elif isinstance(frame, JointFrame):
            if getattr(system, "is_closed", False):
                self._coordinates = _independent_coordinates(system)
            else:
                self._jointwise = JointwiseTrackingError(
                    system
                )  # block layout of the joint-wise error
                self._quaternion_rows = np.array(
                    [
                        np.arange(qs.stop - 4, qs.stop)
                        for j, qs in zip(system.joints, system.q_slices, strict=True)
                        if isinstance(j, (Spherical, FreeFlyer))
                    ],
                    dtype=int,
                ).reshape(-1, 4)
        elif not isinstance(frame, CoordinateFrame):
            raise ParameterError(
                "Expected `system` to have a CoordinateFrame, LeftInvariantFrame, "
                "RightInvariantFrame, JointFrame or LoopClosureFrame, got "
                f"{type(frame).__name__}."
            )
        self.system = system
        self.multibody = isinstance(frame, JointFrame)
        self.estimate = system if estimate is None else as_mechanical_system(estimate, "estimate")
        if (
            not isinstance(self.estimate, MechanicalSystem)
            or self.estimate.dim != system.dim
            or type(self.estimate.frame) is not type(frame)
            or tuple(self.estimate.frame.point_shape) != tuple(frame.point_shape)
        ):
            raise DTypeError(
                "Expected `estimate` to be a MechanicalSystem with the same dimension and frame "
                f"type as `system` ({type(frame).__name__}, dim {system.dim})."
            )
        self.connection = connection
        self._connection = resolve_connection(given, connection)
        # a robot with a named body connection: the recursive torques of
        # geomech.multibody.slotine_li_torques (O(N), with the estimate's inertias)
        # (on a closed model, Gᵀ times the spanning tree's, seed 000 eq. 17)
        self._body_connection = (
            connection if self.multibody and not isinstance(connection, AffineConnection) else None
        )
        self.reference = reference
        self.vectorized = bool(vectorized)
        n = self.n = system.dim
        self.Lambda = _gain(Lambda, n, "Lambda")
        self.K_D = _gain(K_D, n, "K_D")
        # admissibility at a seeded random point: Hdot = C + C^T (passivity, D antisymmetric
        # in (1,3)) and C v = C* v (correct dynamics, D antisymmetric in (2,3))
        q0 = system.random_configuration(np.random.default_rng(0))
        bad = []
        if not bool(self._connection.is_metric_compatible(q0)):
            bad.append("not metric compatible (Hdot != C + C^T)")
        if not bool(self._connection.has_riemannian_geodesics(q0)):
            bad.append("not a valid factorization (C v != C* v)")
        if bad:
            msg = (
                f"The connection {connection!r} is "
                + " and ".join(bad)
                + ": the passivity guarantee V' = -s^T K_D s does not hold."
            )
            if require_passivity:
                raise ParameterError(msg)
            warnings.warn(msg, UserWarning, stacklevel=2 if type(self) is SlotineLi else 3)

    def _vec(self, x, name, n=None):
        # one state or reference vector: exactly (n,) (no batch) and finite, so that a NaN
        # from reference(t) is reported under its own name, not as a derived signal's
        n = self.n if n is None else n
        x = as_array(x, name, (n,))
        if x.shape != (n,):
            raise DimensionError(f"Expected `{name}` to have shape {(n,)}, got {x.shape}.")
        return x

    def _tree_point(self, x, name):
        # a configuration of a tree: shape and finiteness, then the joint quaternions' norms
        # in one vectorised test; the frame's validator words any failure
        x, rows = self._fast_vec(x, name, self.system.nq), self._quaternion_rows
        if rows.size:
            x4 = x[rows]
            if np.abs(np.sqrt((x4 * x4).sum(-1)) - 1.0).max() > QUATERNION_TOL:
                self.system.frame.validate_point(x, name)  # raises NotOnManifoldError
        return x

    def _fast_vec(self, x, name, n=None):
        # the common case (a finite float vector of the right shape) in one reduction; any
        # other input goes through the full check, which words the failure
        n = self.n if n is None else n
        if (
            type(x) is np.ndarray
            and x.dtype == np.float64
            and x.shape == (n,)
            and math.isfinite(np.add.reduce(x))
        ):
            return x
        return self._vec(x, name, n)

    def _reference(self, t):
        return _three(self.reference(t))

    def _frame_signals(self, t, q, v):
        # MechanicalSystem: q and q_d are points of the frame (closed configurations on a
        # loop-closure frame). Invariant frames: e = log(q_d^{-1} q) (left) or log(q q_d^{-1})
        # (right), v_r a vector field (Remark 5), a_r its exact rate. Coordinate and
        # loop-closure frames: the frame is the coordinate fields of y (all of q, or its
        # independent part), so v = dy/dt and e = y - y_d.
        if self._jointwise is not None:  # joint-wise group error, exact a_r = d/dt v_r
            q = self._tree_point(q, "q")
            v = self._fast_vec(v, "v")
            ref = self._reference(t)
            q_d = self._tree_point(ref[0], "q_d")
            v_d, a_d = self._fast_vec(ref[1], "v_d"), self._fast_vec(ref[2], "a_d")
            err = self._jointwise(q, v, q_d, v_d, a_d, self.Lambda)
            return q_d, v_d, err.v_r, err.a_r, v - err.v_r
        frame = self.system.frame
        shape = tuple(frame.point_shape)
        q = frame.validate_point(q, "q")
        if q.shape != shape:
            raise DimensionError(f"Expected `q` to have shape {shape}, got {q.shape}.")
        v = self._vec(v, "v")
        ref = self._reference(t)
        q_d = frame.validate_point(ref[0], "q_d")
        if q_d.shape != shape:
            raise DimensionError(f"Expected `q_d` to have shape {shape}, got {q_d.shape}.")
        v_d, a_d = self._vec(ref[1], "v_d"), self._vec(ref[2], "a_d")
        if self._group is not None:
            err = group_tracking_error(
                self._group, q, v, q_d, v_d, a_d, self.Lambda, side=self._side
            )
            return q_d, v_d, err.v_r, err.a_r, v - err.v_r
        e = q[self._coordinates] - q_d[self._coordinates]
        v_r = v_d - self.Lambda @ e  # corrected sign (seed 000 §3.2)
        a_r = a_d - self.Lambda @ (v - v_d)
        return q_d, v_d, v_r, a_r, v - v_r

    def _check_reference(self, ref):
        """A reference ``(q_d, v_d, a_d)`` of a tree, validated as :meth:`signals` does."""
        ref = _three(ref)
        return (
            self._tree_point(ref[0], "q_d"),
            self._fast_vec(ref[1], "v_d"),
            self._fast_vec(ref[2], "a_d"),
        )

    def _compiled_law(self):
        """The law as data for the compiled simulation, or ``None`` (the Python path).

        Compiled: a tree whose joint-wise error the tracking kernel takes entirely, with a
        named body connection (``slotine_li_torques``, the estimate's inertias)
        (:class:`geomech.simulation.compiled.CompiledLaw`).
        """
        from geomech.multibody._kernels.tree.simulate import SLOTINE_LI
        from geomech.simulation.compiled import CompiledLaw

        jointwise = self._jointwise
        if (
            type(self) is not SlotineLi  # a subclass may change the law
            or self._body_connection is None
            or jointwise is None
            or not jointwise.compiled
        ):
            return None
        return CompiledLaw(
            SLOTINE_LI,
            self.system,
            self.estimate,
            (self.Lambda, self.K_D),
            self.reference,
            self._check_reference,
            connection=self._body_connection,
            batched=False,  # the law takes one state (DimensionError on a batch)
            vectorized=self.vectorized,
        )

    def signals(self, t, q, v):
        """Reference signals ``(q_d, v_d, v_r, a_r, s)`` at ``(t, q, v)``.

        Parameters
        ----------
        t : float
        q : array_like, shape (n,) or (nq,) or point_shape
            Configuration (a group element on a Lie group, ``nq`` for a multibody model).
        v : array_like, shape (n,)

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
        return self._frame_signals(t, q, v)

    def lyapunov(self, t, q, v):
        r""":math:`V = \tfrac12 s^\top H(q) s` with the true mass matrix.

        Parameters
        ----------
        t : float
        q : array_like, shape (n,) or (nq,) or point_shape
            Configuration (a group element on a Lie group, ``nq`` for a multibody model).
        v : array_like, shape (n,)

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
        return 0.5 * s @ self.system.mass_matrix(np.asarray(q, float)) @ s

    def __call__(self, t, q, v):
        """Torque of eq. (13).

        Parameters
        ----------
        t : float
        q : array_like, shape (n,) or (nq,) or point_shape
            Configuration (a group element on a Lie group, ``nq`` for a multibody model).
        v : array_like, shape (n,)

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
        if self._body_connection is not None:
            from geomech.multibody.algorithms.coriolis import slotine_li_torques

            return (
                slotine_li_torques(self.estimate, q, v, v_r, a_r, self._body_connection)
                - self.K_D @ s
            )
        E = self.estimate
        C_hat = self._connection.coriolis_matrix(q, v)
        return E.mass_matrix(q) @ a_r + C_hat @ v_r + E.gravity_forces(q) - self.K_D @ s  # eq. (13)


def _independent_coordinates(model) -> np.ndarray:
    """Positions in ``q`` of a closed model's independent 1-DoF joints (``v = dq/dt`` there)."""
    iq = []
    for joint, qs, vs, name in zip(
        model.joints, model.q_slices, model.v_slices, model.joint_names, strict=True
    ):
        if vs.stop == vs.start:
            continue
        if joint.nq != 1 or joint.nv != 1:
            raise ParameterError(
                f"Expected the independent joints of a closed model to have one coordinate "
                f"(the error is taken in them), got joint {name!r} with nq = {joint.nq}."
            )
        iq.append(qs.start)
    return np.array(iq, dtype=int)


def _adaptation_gain(Gamma, n: int) -> np.ndarray:
    """Validate the adaptation gain: a positive scalar or a symmetric positive-definite (n, n)."""
    if isinstance(Gamma, str):
        raise DimensionError(
            f"Adaptation gain `adaptation` must be a positive scalar or an SPD matrix of shape "
            f"{(n, n)}, got {Gamma!r}."
        )
    try:
        G = np.asarray(Gamma, dtype=float)
    except (TypeError, ValueError) as exc:
        raise DimensionError(
            f"Adaptation gain `adaptation` must be a positive scalar or an SPD matrix of shape "
            f"{(n, n)}, got {type(Gamma).__name__}."
        ) from exc
    if G.ndim == 0:
        G = G * np.eye(n)
    if G.shape != (n, n):
        raise DimensionError(
            f"Adaptation gain `adaptation` must be a scalar or of shape {(n, n)} (10 parameters "
            f"per body), got {G.shape}."
        )
    if not np.all(np.isfinite(G)):
        raise NonFiniteError("Adaptation gain `adaptation` must be finite.")
    scale = max(1.0, float(np.abs(G).max()))
    if np.abs(G - G.T).max() > 1e-12 * scale:
        raise ParameterError(
            f"Adaptation gain `adaptation` must be symmetric, got asymmetry "
            f"{float(np.abs(G - G.T).max()):.3g}."
        )
    lam = np.linalg.eigvalsh(G)
    if lam[0] <= 0.0:
        raise ParameterError(
            f"Adaptation gain `adaptation` must be positive definite, got smallest eigenvalue "
            f"{lam[0]:.3g}."
        )
    return G


def _check_same_kinematics(model, estimate) -> None:
    """The regressor is built from `model`: `estimate` may differ in its inertias only."""
    same = (
        estimate.n_bodies == model.n_bodies
        and estimate.nq == model.nq
        and np.array_equal(estimate.parent, model.parent)
        and [j.kind for j in estimate.joints] == [j.kind for j in model.joints]
        and np.allclose(estimate.placements, model.placements, rtol=0.0, atol=1e-12)
        and np.allclose(estimate.gravity, model.gravity, rtol=0.0, atol=1e-12)
    )
    if same:
        from geomech.multibody.algorithms.kinematics import joint_transforms

        q = model.random_configuration(np.random.default_rng(1))
        tree, tree_hat = (getattr(m, "spanning_tree", m) for m in (model, estimate))
        same = np.allclose(
            joint_transforms(tree_hat, q)[0], joint_transforms(tree, q)[0], rtol=0.0, atol=1e-12
        )
    if not same:
        raise ParameterError(
            "Expected `estimate` to differ from `system` in its inertias only (same tree, "
            "joints, placements and gravity), e.g. system.with_inertias(...)."
        )


class AdaptiveSlotineLi(SlotineLi):
    r"""Slotine–Li tracking with adaptation of the inertial parameters of a multibody model.

    A dynamic controller with state :math:`\hat{\boldsymbol\pi} \in \mathbb R^{10N}` (the
    estimated parameters of every body, :func:`geomech.spatial.dynamic_parameters` order,
    body ``i`` in entries ``10 i : 10 i + 10``):

    .. math::
        \tau = Y(q, \nu, \nu_r, a_r)\,\hat{\boldsymbol\pi} - K_D s,\qquad
        \dot{\hat{\boldsymbol\pi}} = -\Gamma\, Y(q, \nu, \nu_r, a_r)^\top s

    with :math:`Y` the Slotine–Li regressor of the chosen body connection
    (:func:`~geomech.multibody.algorithms.regressor.slotine_li_regressor`), :math:`\nu_r, a_r, s` as
    in
    :class:`SlotineLi`. With the true parameters :math:`\boldsymbol\pi` and
    :math:`\tilde{\boldsymbol\pi} = \hat{\boldsymbol\pi} - \boldsymbol\pi`, the closed loop is
    :math:`H\dot s + (\bar C + K_D)s = Y\tilde{\boldsymbol\pi}`, and for every admissible
    connection (:math:`\dot H = \bar C + \bar C^\top`, :math:`\bar C\nu = c`)

    .. math:: V = \tfrac12 s^\top H s + \tfrac12\tilde{\boldsymbol\pi}^\top\Gamma^{-1}
              \tilde{\boldsymbol\pi},\qquad \dot V = -s^\top K_D s

    (seed 000 eq. 14 plus the adaptation term), so :math:`s \to 0` (Barbalat); the
    parameters need not converge without persistent excitation.

    Protocol of dynamic controllers (used by :func:`geomech.simulate`): :attr:`state0`,
    :meth:`torque` ``(t, q, v, x)`` and :meth:`state_rate` ``(t, q, v, x)``; calling the
    controller ``(t, q, v)`` gives the torque at :attr:`state0`. ``SlotineLi(model, ...,
    adaptation=Gamma)`` constructs this class; a fixed-parameter :class:`SlotineLi` has no
    ``state_rate``.

    Parameters
    ----------
    system : MultibodyModel
        The plant (its inertias are the true parameters, used by :meth:`lyapunov` only).
    connection : str, BodyConnection, callable or mapping
        Body connection(s) as in :class:`SlotineLi`; :math:`\mathbf C_i(\mathbf I, \mathbf v)`
        must be linear in the inertia (every named one is).
    reference : callable
        ``reference(t) -> (q_d, v_d, a_d)``.
    Lambda, K_D : float or array_like, shape (nv, nv)
        Positive-definite gains.
    estimate : MultibodyModel, optional
        The same tree with the initial parameter estimates (``system.with_inertias(...)``);
        default ``system``.
    adaptation : float or array_like, shape (10 N, 10 N)
        Adaptation gain :math:`\Gamma`, a positive scalar or a symmetric positive-definite
        matrix.
    require_passivity, vectorized : bool
        As in :class:`SlotineLi`.

    Attributes
    ----------
    state0 : ndarray, shape (10 N,)
        The initial estimate :math:`\hat{\boldsymbol\pi}(0)`.
    parameters : ndarray, shape (10 N,)
        The true parameters :math:`\boldsymbol\pi` of ``system``.
    Gamma : ndarray, shape (10 N, 10 N)
        The adaptation gain.

    Raises
    ------
    GeomechError
        If ``system`` is not a MultibodyModel, the gains are not positive definite, ``Gamma``
        is not symmetric positive definite or of the wrong shape, ``estimate`` differs from
        ``system`` in more than its inertias, or the connection is not linear in the
        inertia (:class:`~geomech.errors.ConnectionSpecError`).

    References
    ----------
    seed 000 Sec. IV-A1, eqs. (13), (14), Remark 5; Slotine and Li (1987), Niemeyer and
    Slotine (1991).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.control import SlotineLi
    >>> from geomech.multibody import robots
    >>> model = robots.double_pendulum()
    >>> ref = lambda t: (np.array([np.sin(t), 0.0]), np.array([np.cos(t), 0.0]),
    ...                  np.array([-np.sin(t), 0.0]))
    >>> guess = model.with_inertias(0.8 * model.inertias)
    >>> ctrl = SlotineLi(model, "levi-civita", ref, 1.0, 2.0, estimate=guess, adaptation=0.5)
    >>> type(ctrl).__name__, ctrl.state0.shape
    ('AdaptiveSlotineLi', (20,))
    >>> q, v = np.array([0.1, 0.2]), np.array([0.0, -0.3])
    >>> x_dot = ctrl.state_rate(0.0, q, v, ctrl.state0)
    >>> x_dot.shape, bool(np.allclose(ctrl(0.0, q, v), ctrl.torque(0.0, q, v, ctrl.state0)))
    ((20,), True)
    """

    def __init__(
        self,
        system,
        connection,
        reference,
        Lambda,
        K_D,
        *,
        estimate=None,
        adaptation=None,
        require_passivity=False,
        vectorized=False,
    ):
        from geomech.multibody.algorithms.regressor import slotine_li_regressor
        from geomech.multibody.model.system import MultibodySystem

        from ..spatial import dynamic_parameters

        if not isinstance(system, MultibodySystem):
            raise ParameterError(
                f"Adaptation needs the regressor of a MultibodyModel, got {type(system).__name__}."
            )
        if adaptation is None:
            raise ParameterError(
                "Adaptation gain `adaptation` must be given (a positive scalar or an SPD matrix)."
            )
        super().__init__(
            system,
            connection,
            reference,
            Lambda,
            K_D,
            estimate=estimate,
            require_passivity=require_passivity,
            vectorized=vectorized,
        )
        _check_same_kinematics(system, self.estimate)
        n_par = 10 * system.n_bodies
        self.Gamma = _adaptation_gain(adaptation, n_par)
        self._Gamma_inv = np.linalg.inv(self.Gamma)
        self.parameters = dynamic_parameters(system.inertias).reshape(-1)
        self.state0 = dynamic_parameters(self.estimate.inertias).reshape(-1)
        self._last = None  # (t, q, v, Y, s) of the last regressor evaluation
        # fail early if the connection is not linear in the inertia (a ConnectionSpecError)
        z = np.zeros(system.nv)
        slotine_li_regressor(system, system.neutral(), z + 1.0, z, z, connection)

    def _x(self, x) -> np.ndarray:
        return self._vec(x, "x", self.state0.shape[0])

    def _regressor(self, t, q, v):
        """``(Y, s)`` at ``(t, q, v)``: the regressor of eq. (13) and the sliding variable."""
        from geomech.multibody.algorithms.regressor import slotine_li_regressor

        # torque and state_rate are evaluated at the same (t, q, v) by the integrators:
        # the regressor and s of the last point are reused
        key = self._last
        if (
            key is not None
            and np.array_equal(key[0], t)
            and np.array_equal(key[1], q)
            and np.array_equal(key[2], v)
        ):
            return key[3], key[4]
        _, _, v_r, a_r, s = self.signals(t, q, v)
        q, v = np.asarray(q, float), np.asarray(v, float)
        Y = slotine_li_regressor(self.system, q, v, v_r, a_r, self.connection)
        self._last = (t, q.copy(), v.copy(), Y, s)
        return Y, s

    def torque(self, t, q, v, x):
        r"""Torque of eq. (13) in regressor form, :math:`\tau = Y\hat{\boldsymbol\pi} - K_D s`.

        Parameters
        ----------
        t : float
        q : array_like, shape (nq,)
        v : array_like, shape (nv,)
        x : array_like, shape (10 N,)
            The current estimate :math:`\hat{\boldsymbol\pi}`.

        Returns
        -------
        ndarray, shape (nv,)

        Raises
        ------
        GeomechError
            On a wrong shape of ``q``, ``v``, ``x`` or of the reference.

        Examples
        --------
        With the true parameters it is the fixed-parameter law:

        >>> import numpy as np
        >>> from geomech.control.passivity import AdaptiveSlotineLi, SlotineLi
        >>> from geomech.multibody import robots
        >>> model = robots.double_pendulum()
        >>> ref = lambda t: (np.zeros(2), np.zeros(2), np.zeros(2))
        >>> c = AdaptiveSlotineLi(model, "velocity-cross", ref, 1.0, 1.0, adaptation=1.0)
        >>> q, v = np.array([0.4, -0.2]), np.array([1.0, 0.5])
        >>> fixed = SlotineLi(model, "velocity-cross", ref, 1.0, 1.0)
        >>> bool(np.allclose(c.torque(0.0, q, v, c.parameters), fixed(0.0, q, v)))
        True
        """
        x = self._x(x)
        Y, s = self._regressor(t, q, v)
        return Y @ x - self.K_D @ s  # eq. (13): Y pi_hat - K_D s

    def state_rate(self, t, q, v, x):
        r"""The adaptation law :math:`\dot{\hat{\boldsymbol\pi}} = -\Gamma Y^\top s`.

        Parameters
        ----------
        t : float
        q : array_like, shape (nq,)
        v : array_like, shape (nv,)
        x : array_like, shape (10 N,)
            The current estimate (validated; the law does not depend on it).

        Returns
        -------
        ndarray, shape (10 N,)

        Raises
        ------
        GeomechError
            On a wrong shape of ``q``, ``v``, ``x`` or of the reference.

        Examples
        --------
        On the reference (:math:`s = 0`) the estimate does not move:

        >>> import numpy as np
        >>> from geomech.control.passivity import AdaptiveSlotineLi
        >>> from geomech.multibody import robots
        >>> model = robots.double_pendulum()
        >>> ref = lambda t: (np.zeros(2), np.zeros(2), np.zeros(2))
        >>> c = AdaptiveSlotineLi(model, "levi-civita", ref, 1.0, 1.0, adaptation=1.0)
        >>> float(np.abs(c.state_rate(0.0, np.zeros(2), np.zeros(2), c.state0)).max())
        0.0
        """
        self._x(x)
        Y, s = self._regressor(t, q, v)
        return -self.Gamma @ (Y.T @ s)  # Slotine-Li adaptation law

    def __call__(self, t, q, v):
        """Torque at the initial estimate, ``torque(t, q, v, state0)``.

        Parameters
        ----------
        t : float
        q : array_like, shape (nq,)
        v : array_like, shape (nv,)

        Returns
        -------
        ndarray, shape (nv,)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.control.passivity import AdaptiveSlotineLi
        >>> from geomech.multibody import robots
        >>> model = robots.double_pendulum()
        >>> ref = lambda t: (np.zeros(2), np.zeros(2), np.zeros(2))
        >>> c = AdaptiveSlotineLi(model, "levi-civita", ref, 1.0, 1.0, adaptation=1.0)
        >>> c(0.0, np.zeros(2), np.zeros(2))  # hanging at rest: no torque
        array([0., 0.])
        """
        return self.torque(t, q, v, self.state0)

    def lyapunov(self, t, q, v, x=None):
        r""":math:`V = \tfrac12 s^\top H s +
        \tfrac12\tilde{\boldsymbol\pi}^\top\Gamma^{-1}\tilde{\boldsymbol\pi}`.

        The first term uses the true mass matrix; the second, with
        :math:`\tilde{\boldsymbol\pi} = x - \boldsymbol\pi`, is added when ``x`` is given.

        Parameters
        ----------
        t : float
        q : array_like, shape (nq,)
        v : array_like, shape (nv,)
        x : array_like, shape (10 N,), optional
            The estimate :math:`\hat{\boldsymbol\pi}`.

        Returns
        -------
        float

        Raises
        ------
        GeomechError
            On wrong shapes.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.control.passivity import AdaptiveSlotineLi
        >>> from geomech.multibody import robots
        >>> model = robots.double_pendulum()
        >>> ref = lambda t: (np.zeros(2), np.zeros(2), np.zeros(2))
        >>> c = AdaptiveSlotineLi(model, "levi-civita", ref, 1.0, 1.0, adaptation=2.0)
        >>> x = c.parameters.copy(); x[0] += 1.0  # 1 kg too much on link 1
        >>> float(c.lyapunov(0.0, np.zeros(2), np.zeros(2), x))  # (1/2) 1^2 / 2
        0.25
        """
        V = super().lyapunov(t, q, v)
        if x is None:
            return V
        err = self._x(x) - self.parameters
        return V + 0.5 * err @ self._Gamma_inv @ err
