r"""Joint models: configuration manifold, joint transform and motion subspace of each joint.

A joint connects a parent body (through its *joint frame*, fixed in the parent) to a child
body (the *successor frame*, fixed in the child). Its configuration ``q`` (shape
``(..., nq)``) gives the pose of the child frame in the joint frame, :meth:`Joint.pose`; its
speeds ``v`` (shape ``(..., nv)``) are **body-frame** speeds, so that the twist of the child
relative to the parent, in child coordinates, is :math:`\boldsymbol\Phi\,\mathbf v`
(seed 001 eq. 5).

Conventions (:ref:`conventions-joints`)
---------------------------------------
- Spatial vectors are angular first, ``[ω; v]``; :meth:`Joint.transform` is Featherstone's
  :math:`\mathbf X_J = {}^{\text{child}}\mathbf X_{\text{joint}}` =
  ``plucker_from_pose(pose(q))``.
- Quaternions are scalar last, ``(x, y, z, w)``.
- ``Spherical``: ``q`` = quaternion, ``v`` = body angular velocity ``ω``.
- ``Planar``: ``q = [x, y, θ]`` (SE(2) in the joint frame's xy-plane, θ unwrapped),
  ``v = [ω_z, v_x, v_y]`` (body).
- ``SchoenfliesJoint``: ``q = [x, y, z, θ]``, ``v = [ω_z, v_x, v_y, v_z]`` (body).
- ``FreeFlyer``: ``q = [p; quaternion]`` (``p`` = position of the child frame in the joint
  frame, i.e. in the world for a floating base), ``v`` = body twist ``[ω; v]``,
  :math:`\boldsymbol\Phi = \mathbf 1_6`.

Every built-in joint uses body-frame speeds, so the coordinates of
:math:`\boldsymbol\Phi` in the child frame are constant and :math:`\mathring{\boldsymbol\Phi} = 0`
(seed 001 §1.4); :meth:`Joint.motion_subspace_rate` is the hook for user joints whose
motion subspace moves in the child frame.

A new joint implements the private core ``_pose``, ``_Phi`` (its constant child-frame
motion subspace), ``_integrate``, ``_difference``, ``_neutral`` and ``_random`` on validated,
batched arrays; a joint whose Φ moves in the child frame overrides the hooks
``_motion_subspace(q)`` and ``_motion_subspace_rate(q, v)`` instead of ``_Phi``. The public
methods (validation, ``dt`` scaling, batching) live once in :class:`Joint`, and the
algorithms call the unvalidated ``_transform`` (``X_J`` from ``_pose``) on their hot path.
The hook ``_chart_rate(delta, v, structure_constants)`` gives the rate of the chart
coordinates :math:`\boldsymbol\delta` of :math:`\mathbf q = \mathbf q_c \oplus \boldsymbol\delta`
(the one chart rate of the joint, used by the model's frame and :func:`geomech.simulate`);
its default is the truncated :math:`\operatorname{dexp}^{-1}` series with the joint's
structure constants, and a joint whose ``_integrate`` is ``q ⊕ δ = q exp(δ)`` with speeds in
its group's Lie-algebra coordinates sets ``_exp_chart = True`` for the exact right-Jacobian
inverse.

References
----------
Seed 001 §1.4 (eq. 5 and the axis rate); seed 004 §1.3; R. Featherstone, *Rigid Body
Dynamics Algorithms*, 2008, §4.4 (Table 4.1).
"""

from __future__ import annotations

import abc

import numpy as np

from geomech._validation import as_array, check_size, default_rng
from geomech.errors import ModelError, SingularityError
from geomech.integration import dexpinv_series
from geomech.lie import SE2, SE3, SO3, Euclidean, Schoenflies
from geomech.lie._coefficients import sinc
from geomech.lie._homogeneous import homogeneous
from geomech.lie._maps import (
    _random_quaternion,
    _rot2,
    _so3_left_jacobian,
    _so3_left_jacobian_inverse,
)
from geomech.lie.quaternion import quat_exp, quat_log, quat_multiply, quat_to_matrix
from geomech.multibody._kernels import joints as codes
from geomech.multibody._kernels.tree.chart import joint_chart_rate_batch
from geomech.multibody.model._frozen import Freezable
from geomech.spatial import plucker

__all__ = [
    "Joint",
    "OneDoFJoint",
    "Revolute",
    "Prismatic",
    "Helical",
    "Spherical",
    "Planar",
    "SchoenfliesJoint",
    "FreeFlyer",
    "Fixed",
]


class _AxisRotation:
    """Rotation by an angle about a fixed unit axis: Rodrigues with K, K² precomputed.

    ``R(θ) = 1 + sin θ K + (1 − cos θ) K²``, exact for every θ (no small-angle branch is
    needed), and several times faster than the general exponential of SO(3) on this hot path.
    """

    def __init__(self, axis: np.ndarray):
        x, y, z = axis
        self.K = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
        self.K2 = self.K @ self.K

    def __call__(self, theta: np.ndarray) -> np.ndarray:
        s, c = np.sin(theta)[..., None, None], np.cos(theta)[..., None, None]
        return np.eye(3) + s * self.K + (1.0 - c) * self.K2


def _rot_z(theta: np.ndarray) -> np.ndarray:
    """Rotation about z by ``theta`` (...,) -> (..., 3, 3)."""
    R = np.zeros(np.shape(theta) + (3, 3))
    R[..., :2, :2] = _rot2(theta)
    R[..., 2, 2] = 1.0
    return R


def _unit_axis(axis, kind: str, name: str | None) -> np.ndarray:
    """Validate and normalise a joint axis; a zero axis is a :class:`ModelError`."""
    label = f"{kind} joint {name!r}" if name is not None else f"{kind} joint"
    try:
        a = as_array(axis, "axis", (3,))
    except Exception as exc:  # DimensionError / NonFiniteError: re-raise naming the joint
        raise ModelError(f"{label}: {exc}") from exc
    if a.ndim != 1:
        raise ModelError(f"{label}: expected `axis` of shape (3,), got {a.shape}.")
    big = float(np.max(np.abs(a)))
    if not big > 0.0:
        raise ModelError(f"{label}: expected a nonzero `axis`, got {a.tolist()}.")
    a = a / big  # entries in [-1, 1]: the norm cannot overflow (an axis of 1e308s is fine)
    norm = float(np.linalg.norm(a))
    if not big * norm > 1e-12:
        raise ModelError(f"{label}: expected a nonzero `axis`, got {(a * big).tolist()}.")
    a = a / norm
    a.flags.writeable = False  # a joint's axis never changes (the model compiles it)
    return a


def _compiled_chart_rate(code: int, delta: np.ndarray, v: np.ndarray) -> np.ndarray:
    r""":math:`J_r(\delta)^{-1}\mathbf v` of a spherical or free-flyer joint by the compiled kernel
    (``geomech.multibody._kernels.tree.chart.right_jacobian_inverse_apply``, the one code of
    this rate, also run by ``simulate``), for any batch shape; ``SingularityError`` where the
    rotation angle of ``δ`` is a nonzero multiple of 2π.
    """
    shape = np.broadcast_shapes(delta.shape, v.shape)
    n = shape[-1]
    D = np.ascontiguousarray(np.broadcast_to(delta, shape), dtype=float).reshape(-1, n)
    V = np.ascontiguousarray(np.broadcast_to(v, shape), dtype=float).reshape(-1, n)
    out = np.empty_like(V)
    joint_chart_rate_batch(code, D, V, out)
    if not np.isfinite(out).all() and np.isfinite(D).all() and np.isfinite(V).all():
        raise SingularityError(
            "The chart rate J_r(δ)⁻¹ is singular: the rotation angle of δ is a nonzero "
            "multiple of 2π (re-centre the chart)."
        )
    return out.reshape(shape)


class Joint(Freezable, abc.ABC):
    r"""Abstract joint: configuration manifold, pose, transform and motion subspace.

    Subclasses set :attr:`kind`, :attr:`nq`, :attr:`nv` and :attr:`manifold` and implement
    the private core; every public method below accepts leading batch dimensions.

    The joint relates the joint frame (fixed in the parent body) to the successor frame
    (fixed in the child body):

    .. math::
        \mathbf X_J(\mathbf q) = {}^{\text{child}}\mathbf X_{\text{joint}}, \qquad
        {}^{c}\mathbf v_{\text{rel}} = \boldsymbol\Phi(\mathbf q)\,\mathbf v, \qquad
        \dot{\boldsymbol\Phi} = (\mathbf v_c\times)\boldsymbol\Phi + \mathring{\boldsymbol\Phi}.

    Attributes
    ----------
    kind : str
        Joint type, e.g. ``"revolute"``.
    nq : int
        Number of configuration coordinates.
    nv : int
        Number of speeds (degrees of freedom).
    manifold : LieGroup or None
        The configuration manifold (a :mod:`geomech.lie` group, ``Euclidean(k)`` for
        1-DoF joints, ``None`` for :class:`Fixed`).
    name : str or None
        Optional joint name (used in error messages and as a default edge name).

    References
    ----------
    Seed 001 §1.4 (eq. 5); Featherstone 2008, §4.4.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.model.joints import Joint, Revolute
    >>> j = Revolute([0.0, 0.0, 1.0])
    >>> isinstance(j, Joint), j.nq, j.nv, j.kind
    (True, 1, 1, 'revolute')
    """

    kind: str = "joint"
    nq: int
    nv: int
    manifold = None

    def __init__(self, name: str | None = None):
        self.name = name

    # ------------------------------------------------------------------------------------
    # immutability: a joint is frozen when a model is built with it (the model compiles its
    # axis, pitch and kind into its kernel arrays, issue 26 item 1)
    # ------------------------------------------------------------------------------------
    def _freeze(self) -> None:
        """Refuse rebinding public attributes from now on; arrays become read-only."""
        for value in self.__dict__.values():
            if isinstance(value, _AxisRotation):
                value.K.flags.writeable = value.K2.flags.writeable = False
        Freezable._freeze(self)

    # ------------------------------------------------------------------------------------
    # Core, implemented by each joint (validated, batched inputs)
    # ------------------------------------------------------------------------------------
    @abc.abstractmethod
    def _pose(self, q: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _Phi(self) -> np.ndarray:
        """Constant child-frame motion subspace (6, nv) of a joint with body-frame speeds."""

    @abc.abstractmethod
    def _integrate(self, q: np.ndarray, v: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _difference(self, q0: np.ndarray, q1: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _neutral(self) -> np.ndarray: ...

    @abc.abstractmethod
    def _random(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray: ...

    def _motion_subspace(self, q: np.ndarray) -> np.ndarray:
        """Hook: Φ(q) (..., 6, nv); built-in joints have constant child-frame Φ."""
        return np.broadcast_to(self._Phi(), q.shape[:-1] + (6, self.nv))

    def _motion_subspace_rate(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Hook: Φ̊(q, v) (..., 6, nv); zero for joints with body-frame speeds."""
        lead = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
        return np.zeros(lead + (6, self.nv))

    #: Whether ``_integrate(q, δ)`` is :math:`q\exp(\delta)` on :attr:`manifold` with the speeds in
    #: its Lie-algebra coordinates (then :meth:`_chart_rate` is the exact :math:`J_r(\delta)^{-1}`).
    _exp_chart = False

    def _chart_rate(self, delta: np.ndarray, v: np.ndarray, structure_constants) -> np.ndarray:
        r"""Hook: chart rate δ̇ of ``q = _integrate(q_c, δ)`` at joint speeds ``v`` (..., nv).

        The one chart rate of the joint, used by the model's joint frame (geodesics, parallel
        transport) and by :func:`geomech.simulate`. ``structure_constants()`` returns the
        structure constants ``s[..., a, b, l]`` of the joint's speed fields at the chart centre
        ``q_c`` (computed only if called). With :math:`\mathrm{flow}` the joint's ``_integrate``,

        .. math:: \dot{\boldsymbol\delta} = \operatorname{dexp}^{-1}_{-\boldsymbol\delta}\mathbf v
                  = \mathbf v + \tfrac12[\boldsymbol\delta, \mathbf v]
                  + \tfrac1{12}[\boldsymbol\delta, [\boldsymbol\delta, \mathbf v]] + \dots

        (Munthe-Kaas 1999), :math:`[\delta, v]^l = s^l_{ab}\delta^a v^b`. Default: this series
        to second order (:func:`geomech.integration.dexpinv_series`; exact for commuting speeds,
        accurate to :math:`O(|\delta|^3)` for constant structure constants); a joint with
        ``_exp_chart = True`` (spherical, planar, Schönflies, free-flyer: ``q_c ⊕ δ =
        q_c exp(δ)`` with speeds in Lie-algebra coordinates) gets the exact
        :math:`J_r(\delta)^{-1}\mathbf v` (:meth:`geomech.lie.LieGroup.right_jacobian`, seed
        003's :math:`S(\delta)`; checked by finite differences in the tests), singular where
        the rotation angle of ``δ`` is a nonzero multiple of 2π (``SingularityError``); 1-DoF
        joints give ``v``.
        """
        if self._exp_chart:
            Jinv = self.manifold._left_jacobian_inverse(-delta)  # J_r(δ)⁻¹ = J_l(−δ)⁻¹
            return np.einsum("...ij,...j->...i", Jinv, v)
        if self.nv < 2:  # one field commutes with itself
            return np.broadcast_to(v, np.broadcast_shapes(delta.shape, v.shape)).copy()
        return dexpinv_series(structure_constants(), delta, v, order=4)

    def _transform(self, q: np.ndarray) -> np.ndarray:
        """X_J(q) = plucker(Rᵀ, p) from the pose (a rotation block off SO(3) is an error)."""
        T = self._pose(q)
        return plucker(np.swapaxes(T[..., :3, :3], -1, -2), T[..., :3, 3])

    # ------------------------------------------------------------------------------------
    # Public interface (validation at the boundary, once)
    # ------------------------------------------------------------------------------------
    def _q(self, q, name: str = "q") -> np.ndarray:
        return as_array(q, name, (self.nq,))

    def _v(self, v, name: str = "v") -> np.ndarray:
        return as_array(v, name, (self.nv,))

    def pose(self, q) -> np.ndarray:
        """Pose of the successor (child) frame in the joint frame.

        Parameters
        ----------
        q : array_like, shape (..., nq)
            Joint configuration.

        Returns
        -------
        ndarray, shape (..., 4, 4)
            Homogeneous transform ``[[R, p], [0, 1]]`` (``R`` maps child to joint-frame
            coordinates, ``p`` is the child origin in the joint frame).

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` has the wrong trailing shape or non-finite entries.
        NotOnManifoldError
            If a quaternion in ``q`` is not of unit norm (tolerance 1e-6).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.model.joints import Prismatic
        >>> Prismatic([1.0, 0.0, 0.0]).pose([0.5])[:3, 3]
        array([0.5, 0. , 0. ])
        """
        return self._pose(self._q(q))

    def transform(self, q) -> np.ndarray:
        r"""Featherstone joint transform :math:`\mathbf X_J(\mathbf q)` (joint frame → child frame).

        .. math:: \mathbf X_J = \begin{bmatrix}\mathbf R^\top & 0\\
                  -\mathbf R^\top\mathbf S(\mathbf p) & \mathbf R^\top\end{bmatrix}
                  \quad\text{for}\quad \text{pose}(\mathbf q) =
                  \begin{bmatrix}\mathbf R & \mathbf p\\ 0 & 1\end{bmatrix}

        Parameters
        ----------
        q : array_like, shape (..., nq)
            Joint configuration.

        Returns
        -------
        ndarray, shape (..., 6, 6)
            ``plucker_from_pose(pose(q))``.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            As :meth:`pose`.

        References
        ----------
        Seed 001 §2.0 (:math:`{}^i\mathbf X_{p(i)} = \mathbf X_J\mathbf X_T`).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.model.joints import Revolute
        >>> X = Revolute([0.0, 0.0, 1.0]).transform([np.pi / 2])
        >>> np.round(X[:3, :3], 12) + 0.0   # E = Rᵀ maps joint to child coordinates
        array([[ 0.,  1.,  0.],
               [-1.,  0.,  0.],
               [ 0.,  0.,  1.]])
        """
        return self._transform(self._q(q))

    def motion_subspace(self, q) -> np.ndarray:
        r"""Motion subspace :math:`\boldsymbol\Phi(\mathbf q)` in child-frame coordinates.

        The relative twist of the child is :math:`\boldsymbol\Phi\mathbf v` for body-frame
        speeds ``v`` (seed 001 eq. 5).

        Parameters
        ----------
        q : array_like, shape (..., nq)
            Joint configuration.

        Returns
        -------
        ndarray, shape (..., 6, nv)
            A read-only broadcast view for the built-in joints (copy it before writing).

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` has the wrong trailing shape or non-finite entries.

        References
        ----------
        Seed 001 §1.4 (eq. 5).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.model.joints import Helical
        >>> Helical([0.0, 0.0, 1.0], pitch=0.1).motion_subspace([0.3])[:, 0]
        array([0. , 0. , 1. , 0. , 0. , 0.1])
        """
        return self._motion_subspace(self._q(q))

    def motion_subspace_rate(self, q, v) -> np.ndarray:
        r"""Rate :math:`\mathring{\boldsymbol\Phi}` of the child-frame coordinates of Φ.

        .. math:: \mathring{\boldsymbol\Phi} =
                  \frac{\mathrm d}{\mathrm dt}\,{}^c\{\boldsymbol\Phi\},
                  \qquad \dot{\boldsymbol\Phi} = (\mathbf v_c\times)\boldsymbol\Phi +
                  \mathring{\boldsymbol\Phi}

        Zero for every built-in joint (body-frame speeds); user joints may override the
        ``_motion_subspace_rate`` hook.

        Parameters
        ----------
        q : array_like, shape (..., nq)
            Joint configuration.
        v : array_like, shape (..., nv)
            Joint speeds.

        Returns
        -------
        ndarray, shape (..., 6, nv)

        Raises
        ------
        DimensionError, NonFiniteError
            On wrong trailing shapes or non-finite entries.

        References
        ----------
        Seed 001 §1.4 (axis rate).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.model.joints import Spherical
        >>> Spherical().motion_subspace_rate([0, 0, 0, 1.0], [1.0, 2.0, 3.0]).shape
        (6, 3)
        """
        return self._motion_subspace_rate(self._q(q), self._v(v))

    def integrate(self, q, v, dt=1.0) -> np.ndarray:
        r"""Configuration reached from ``q`` with constant body speeds ``v`` after time ``dt``.

        .. math:: \mathbf q \oplus \mathbf v\,\mathrm dt = \mathbf q\cdot\exp(\mathbf v\,\mathrm dt)

        (the group product on the configuration manifold; addition for 1-DoF joints).

        Parameters
        ----------
        q : array_like, shape (..., nq)
            Start configuration.
        v : array_like, shape (..., nv)
            Body-frame speeds.
        dt : float or array_like, shape (...), optional
            Duration (default 1).

        Returns
        -------
        ndarray, shape (..., nq)
            Quaternions are returned normalised.

        Raises
        ------
        DimensionError, NonFiniteError
            On wrong trailing shapes or non-finite entries.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.model.joints import Planar
        >>> j = Planar()
        >>> np.round(j.integrate([0.0, 0.0, 0.0], [np.pi / 2, 1.0, 0.0]), 6)   # quarter circle
        array([0.63662 , 0.63662 , 1.570796])
        """
        q = self._q(q)
        v = self._v(v)
        dt = as_array(dt, "dt")
        return self._integrate(q, v * dt[..., None])

    def difference(self, q0, q1) -> np.ndarray:
        r"""Speeds ``v`` with ``integrate(q0, v) = q1`` (the inverse of :meth:`integrate`).

        .. math:: \mathbf v = \log(\mathbf q_0^{-1}\mathbf q_1)

        For quaternion joints the shortest rotation is returned, so ``integrate(q0, v)`` may
        equal ``-q1`` (the same rotation). Angles of 1-DoF, planar and Schönflies joints are
        not wrapped: the result reproduces ``q1`` exactly.

        Parameters
        ----------
        q0, q1 : array_like, shape (..., nq)
            Configurations (leading dimensions broadcast).

        Returns
        -------
        ndarray, shape (..., nv)

        Raises
        ------
        DimensionError, NonFiniteError
            On wrong trailing shapes or non-finite entries.
        SingularityError
            For planar/Schönflies joints whose angles differ by a nonzero multiple of 2π
            (the translation is then not reachable along a one-parameter subgroup).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.model.joints import Revolute
        >>> Revolute([0.0, 0.0, 1.0]).difference([0.5], [2.0])
        array([1.5])
        """
        return self._difference(self._q(q0, "q0"), self._q(q1, "q1"))

    def neutral(self) -> np.ndarray:
        """The neutral configuration (identity of the manifold; the joint frame = child frame).

        Returns
        -------
        ndarray, shape (nq,)

        Examples
        --------
        >>> from geomech.multibody.model.joints import FreeFlyer
        >>> FreeFlyer().neutral()
        array([0., 0., 0., 0., 0., 0., 1.])
        """
        return self._neutral()

    def random_configuration(self, rng=None, size=None) -> np.ndarray:
        """Random configurations.

        Angles are uniform in ``[-π, π]``, translations uniform in ``[-1, 1]`` and
        quaternions Haar-uniform.

        Parameters
        ----------
        rng : None, int or numpy.random.Generator, optional
            Source of randomness (a seed or a generator).
        size : None, int or tuple of int, optional
            Batch shape; ``None`` returns one configuration.

        Returns
        -------
        ndarray, shape (*size, nq)

        Examples
        --------
        >>> from geomech.multibody.model.joints import Spherical
        >>> Spherical().random_configuration(rng=0, size=(2, 3)).shape
        (2, 3, 4)
        """
        return self._random(default_rng(rng), check_size(size, per_item=4 * self.nq))

    def _label(self) -> str:
        return f"{type(self).__name__}" + (f" {self.name!r}" if self.name is not None else "")

    def _params(self) -> str:
        return ""

    def __repr__(self) -> str:
        args = [a for a in (self._params(), f"name={self.name!r}" if self.name else "") if a]
        return f"{type(self).__name__}({', '.join(args)})"


# ----------------------------------------------------------------------------------------
# 1-DoF joints
# ----------------------------------------------------------------------------------------
class OneDoFJoint(Joint):
    r"""Common core of the 1-DoF joints: :math:`q \in \mathbb R`, :math:`v = \dot q`, additive
    integration.

    The base class of :class:`Revolute`, :class:`Prismatic` and :class:`Helical`, and of a
    user joint with one coordinate whose manifold is :math:`\mathbb R`: a subclass gives the
    joint's pose and motion subspace (the :class:`Joint` hooks). Algorithms that treat the
    1-DoF joints in one vectorised slice (couplings, the joint-wise tracking error) recognise
    them by this class.

    Examples
    --------
    >>> from geomech.multibody.model.joints import OneDoFJoint, Prismatic, Spherical
    >>> isinstance(Prismatic([1.0, 0.0, 0.0]), OneDoFJoint), isinstance(Spherical(), OneDoFJoint)
    (True, False)
    """

    nq = 1
    nv = 1

    def __init__(self, name: str | None = None):
        super().__init__(name)
        self.manifold = Euclidean(1)

    def _integrate(self, q, v):
        return q + v

    def _chart_rate(self, delta, v, structure_constants=None):
        # q = q_c + δ: the chart is the coordinate itself, δ̇ = v
        return np.broadcast_to(v, np.broadcast_shapes(delta.shape, v.shape)).copy()

    def _difference(self, q0, q1):
        return q1 - q0

    def _neutral(self):
        return np.zeros(1)


class Revolute(OneDoFJoint):
    r"""Revolute joint about a fixed unit axis ``a`` (any direction; normalised).

    .. math:: \text{pose}(\theta) = \begin{bmatrix}\exp(\theta\,\hat{\mathbf a}) & 0\\ 0 & 1
              \end{bmatrix}, \qquad \boldsymbol\Phi = \begin{bmatrix}\mathbf a\\ 0\end{bmatrix}

    A URDF ``continuous`` joint is a :class:`Revolute` with one angle (``nq = nv = 1``).

    Parameters
    ----------
    axis : array_like, shape (3,)
        Rotation axis in the joint frame (= in the child frame); nonzero.
    name : str, optional
        Joint name.

    Raises
    ------
    ModelError
        If ``axis`` is zero, not finite or not a 3-vector (the message names the joint).

    References
    ----------
    Featherstone 2008, Table 4.1; seed 001 §1.4.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.model.joints import Revolute
    >>> j = Revolute([0.0, 0.0, 2.0])
    >>> j.axis
    array([0., 0., 1.])
    >>> np.round(j.pose([np.pi / 2])[:3, :3] @ [1.0, 0.0, 0.0], 12) + 0.0
    array([0., 1., 0.])
    """

    #: type code of the compiled kernels (``geomech.multibody._kernels.compiled.joint_code``)
    type_code = codes.REVOLUTE

    kind = "revolute"

    def __init__(self, axis, name: str | None = None):
        super().__init__(name)
        self.axis = _unit_axis(axis, self.kind, name)
        self._K = _AxisRotation(self.axis)

    def _params(self):
        return f"axis={self.axis.tolist()}"

    def _pose(self, q):
        R = self._K(q[..., 0])
        return homogeneous(R, np.zeros(R.shape[:-2] + (3,)))

    def _Phi(self):
        return np.concatenate([self.axis, np.zeros(3)])[:, None]

    def _random(self, rng, shape):
        return rng.uniform(-np.pi, np.pi, shape + (1,))


class Prismatic(OneDoFJoint):
    r"""Prismatic joint along a fixed unit axis ``a`` (any direction; normalised).

    .. math:: \text{pose}(d) = \begin{bmatrix}\mathbf 1 & d\,\mathbf a\\ 0 & 1\end{bmatrix},
              \qquad \boldsymbol\Phi = \begin{bmatrix}0\\ \mathbf a\end{bmatrix}

    Parameters
    ----------
    axis : array_like, shape (3,)
        Translation axis in the joint frame; nonzero.
    name : str, optional
        Joint name.

    Raises
    ------
    ModelError
        If ``axis`` is zero, not finite or not a 3-vector (the message names the joint).

    References
    ----------
    Featherstone 2008, Table 4.1.

    Examples
    --------
    >>> from geomech.multibody.model.joints import Prismatic
    >>> Prismatic([0.0, 3.0, 0.0]).motion_subspace([0.2])[:, 0]
    array([0., 0., 0., 0., 1., 0.])
    """

    #: type code of the compiled kernels (``geomech.multibody._kernels.compiled.joint_code``)
    type_code = codes.PRISMATIC

    kind = "prismatic"

    def __init__(self, axis, name: str | None = None):
        super().__init__(name)
        self.axis = _unit_axis(axis, self.kind, name)

    def _params(self):
        return f"axis={self.axis.tolist()}"

    def _pose(self, q):
        p = q[..., 0, None] * self.axis
        return homogeneous(np.eye(3), p)

    def _Phi(self):
        return np.concatenate([np.zeros(3), self.axis])[:, None]

    def _random(self, rng, shape):
        return rng.uniform(-1.0, 1.0, shape + (1,))


class Helical(OneDoFJoint):
    r"""Helical (screw) joint: rotation θ about ``a`` with translation ``pitch·θ`` along ``a``.

    .. math:: \text{pose}(\theta) = \begin{bmatrix}\exp(\theta\,\hat{\mathbf a}) &
              h\,\theta\,\mathbf a\\ 0 & 1\end{bmatrix}, \qquad
              \boldsymbol\Phi = \begin{bmatrix}\mathbf a\\ h\,\mathbf a\end{bmatrix}

    Parameters
    ----------
    axis : array_like, shape (3,)
        Screw axis; nonzero.
    pitch : float
        Translation per radian ``h`` (m/rad).
    name : str, optional
        Joint name.

    Raises
    ------
    ModelError
        If ``axis`` is zero or ``pitch`` is not a finite number.

    References
    ----------
    Featherstone 2008, Table 4.1 (helical joint, pitch ``h``).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.model.joints import Helical
    >>> Helical([0.0, 0.0, 1.0], pitch=0.5).pose([np.pi])[:3, 3]
    array([0.        , 0.        , 1.57079633])
    """

    #: type code of the compiled kernels (``geomech.multibody._kernels.compiled.joint_code``)
    type_code = codes.HELICAL

    kind = "helical"

    def __init__(self, axis, pitch: float, name: str | None = None):
        super().__init__(name)
        self.axis = _unit_axis(axis, self.kind, name)
        try:
            self.pitch = float(pitch)
        except (TypeError, ValueError) as exc:
            raise ModelError(f"{self._label()}: expected a float `pitch`, got {pitch!r}.") from exc
        if not np.isfinite(self.pitch):
            raise ModelError(f"{self._label()}: expected a finite `pitch`, got {self.pitch}.")
        self._K = _AxisRotation(self.axis)

    def _params(self):
        return f"axis={self.axis.tolist()}, pitch={self.pitch}"

    def _pose(self, q):
        R = self._K(q[..., 0])
        return homogeneous(R, self.pitch * q[..., 0, None] * self.axis)

    def _Phi(self):
        return np.concatenate([self.axis, self.pitch * self.axis])[:, None]

    def _random(self, rng, shape):
        return rng.uniform(-np.pi, np.pi, shape + (1,))


# ----------------------------------------------------------------------------------------
# Multi-DoF joints
# ----------------------------------------------------------------------------------------
class Spherical(Joint):
    r"""Spherical (ball) joint: ``q`` a unit quaternion ``(x, y, z, w)``, ``v = ω`` (body).

    .. math:: \text{pose}(\mathbf q) = \begin{bmatrix}\mathbf R(\mathbf q) & 0\\ 0 & 1
              \end{bmatrix}, \qquad \boldsymbol\Phi = \begin{bmatrix}\mathbf 1_3\\ 0
              \end{bmatrix}, \qquad \mathbf q \oplus \boldsymbol\omega =
              \mathbf q\otimes\exp(\boldsymbol\omega/2)

    Parameters
    ----------
    name : str, optional
        Joint name.

    References
    ----------
    Featherstone 2008, §4.5 (spherical joint with body angular velocity); seed 001 Remark 5.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.model.joints import Spherical
    >>> j = Spherical()
    >>> j.nq, j.nv, j.manifold.name
    (4, 3, 'SO(3)')
    >>> q = j.integrate(j.neutral(), [0.0, 0.0, np.pi / 2])
    >>> np.round(q, 6)
    array([0.      , 0.      , 0.707107, 0.707107])
    """

    #: type code of the compiled kernels (``geomech.multibody._kernels.compiled.joint_code``)
    type_code = codes.SPHERICAL

    kind = "spherical"
    _exp_chart = True  # q ⊕ δ = q exp(δ): exact chart rate J_r(δ)⁻¹
    nq = 4
    nv = 3

    def _chart_rate(self, delta, v, structure_constants=None):
        return _compiled_chart_rate(codes.SPHERICAL, delta, v)  # J_r(δ)⁻¹ v, compiled

    def __init__(self, name: str | None = None):
        super().__init__(name)
        self.manifold = SO3

    def _pose(self, q):
        R = quat_to_matrix(q)
        return homogeneous(R, np.zeros(R.shape[:-2] + (3,)))

    def _Phi(self):
        return np.concatenate([np.eye(3), np.zeros((3, 3))])

    def _integrate(self, q, v):
        q1 = quat_multiply(q, quat_exp(v))
        return q1 / np.linalg.norm(q1, axis=-1, keepdims=True)

    def _difference(self, q0, q1):
        return quat_log(quat_multiply(_conj(q0), q1))

    def _neutral(self):
        return np.array([0.0, 0.0, 0.0, 1.0])

    def _random(self, rng, shape):
        return _random_quaternion(rng, shape)


def _conj(q: np.ndarray) -> np.ndarray:
    return q * np.array([-1.0, -1.0, -1.0, 1.0])


def _planar_difference(dtheta: np.ndarray, theta0: np.ndarray, dp: np.ndarray) -> np.ndarray:
    """Body (v_x, v_y) with p0 + R(θ0) V(Δθ) v = p1 for an unwrapped angle step Δθ.

    ``V(ω) = sinc(ω/2) Rot(ω/2)`` (the SE(2) left Jacobian block), so
    ``v = Rot(-ω/2) R(θ0)ᵀ Δp / sinc(ω/2)``; singular where ``ω = 2πk, k ≠ 0``.
    """
    s = sinc(0.5 * dtheta)
    if np.any(np.abs(s) < 1e-12):
        raise SingularityError(
            "Expected the angle difference of a planar/Schoenflies joint to avoid nonzero "
            f"multiples of 2π, got {dtheta[np.abs(s) < 1e-12].ravel()[0]:.6g}."
        )
    Rinv = _rot2(-0.5 * dtheta - theta0)
    return np.einsum("...ij,...j->...i", Rinv, dp) / s[..., None]


def _planar_step(theta0: np.ndarray, w: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Displacement R(θ0) V(ω) v of the SE(2) step exp([ω; v]) from heading θ0."""
    R = _rot2(theta0 + 0.5 * w) * sinc(0.5 * w)[..., None, None]
    return np.einsum("...ij,...j->...i", R, v)


class _PlanarMotionJoint(Joint):
    """Joints on SE(2) × R^k (k = 0, 1): ``q = [x, y, (z,) θ]``, ``v = [ω_z, v_x, v_y, (v_z)]``.

    The ``(θ, x, y)`` part moves by the exact SE(2) step; ``z`` (the Schönflies joint's
    central translation) adds. ``Φ`` selects ``[ω_z, v_x, v_y, (v_z)]`` from ``[ω; v]``.
    """

    def _pose(self, q):
        p = np.zeros(q.shape[:-1] + (3,))
        p[..., : self.nq - 1] = q[..., :-1]
        return homogeneous(_rot_z(q[..., -1]), p)

    def _Phi(self):
        Phi = np.zeros((6, self.nv))
        Phi[2 : 2 + self.nv] = np.eye(self.nv)
        return Phi

    def _integrate(self, q, v):
        q, v = np.broadcast_arrays(q, v)
        xy = q[..., :2] + _planar_step(q[..., -1], v[..., 0], v[..., 1:3])
        z = q[..., 2:-1] + v[..., 3:]
        return np.concatenate([xy, z, q[..., -1:] + v[..., :1]], axis=-1)

    def _difference(self, q0, q1):
        q0, q1 = np.broadcast_arrays(q0, q1)
        dtheta = q1[..., -1] - q0[..., -1]
        vxy = _planar_difference(dtheta, q0[..., -1], q1[..., :2] - q0[..., :2])
        return np.concatenate([dtheta[..., None], vxy, q1[..., 2:-1] - q0[..., 2:-1]], axis=-1)

    def _neutral(self):
        return np.zeros(self.nq)

    def _random(self, rng, shape):
        return np.concatenate(
            [
                rng.uniform(-1.0, 1.0, shape + (self.nq - 1,)),
                rng.uniform(-np.pi, np.pi, shape + (1,)),
            ],
            -1,
        )


class Planar(_PlanarMotionJoint):
    r"""Planar joint: SE(2) in the joint frame's xy-plane, ``q = [x, y, θ]``, ``v = [ω_z, v_x,
    v_y]``.

    ``v`` is the body twist; the angle θ is not wrapped.

    .. math:: \text{pose}(\mathbf q) = \begin{bmatrix}\mathbf R_z(\theta) & (x, y, 0)^\top\\
              0 & 1\end{bmatrix}, \qquad
              \boldsymbol\Phi = [\mathbf e_3, \mathbf e_4, \mathbf e_5] \in \mathbb R^{6\times 3}

    Integration follows the SE(2) exponential: ``g(q ⊕ v) = g(q) exp(v)``.

    Parameters
    ----------
    name : str, optional
        Joint name.

    References
    ----------
    Seed 003 §2.4 (SE(2)); Featherstone 2008, Table 4.1 (planar joint).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.model.joints import Planar
    >>> Planar().motion_subspace([0.0, 0.0, 0.3])
    array([[0., 0., 0.],
           [0., 0., 0.],
           [1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.],
           [0., 0., 0.]])
    """

    #: type code of the compiled kernels (``geomech.multibody._kernels.compiled.joint_code``)
    type_code = codes.PLANAR

    kind = "planar"
    _exp_chart = True  # q ⊕ δ = q exp(δ): exact chart rate J_r(δ)⁻¹
    nq = 3
    nv = 3

    def __init__(self, name: str | None = None):
        super().__init__(name)
        self.manifold = SE2


class SchoenfliesJoint(_PlanarMotionJoint):
    r"""Schönflies joint X(z): ``q = [x, y, z, θ]``, ``v = [ω_z, v_x, v_y, v_z]`` (body).

    The SCARA motion group SE(2) × R: translations in x, y, z and rotation about z.

    .. math:: \text{pose}(\mathbf q) = \begin{bmatrix}\mathbf R_z(\theta) & (x, y, z)^\top\\
              0 & 1\end{bmatrix}, \qquad
              \boldsymbol\Phi = [\mathbf e_3, \mathbf e_4, \mathbf e_5, \mathbf e_6]

    Parameters
    ----------
    name : str, optional
        Joint name.

    References
    ----------
    Seed 003 §2.5 (eqs. 88-96).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.model.joints import SchoenfliesJoint
    >>> j = SchoenfliesJoint()
    >>> j.integrate(j.neutral(), [0.0, 1.0, 0.0, 0.5])
    array([1. , 0. , 0.5, 0. ])
    """

    #: type code of the compiled kernels (``geomech.multibody._kernels.compiled.joint_code``)
    type_code = codes.SCHOENFLIES

    kind = "schoenflies"
    _exp_chart = True  # q ⊕ δ = q exp(δ): exact chart rate J_r(δ)⁻¹
    nq = 4
    nv = 4

    def __init__(self, name: str | None = None):
        super().__init__(name)
        self.manifold = Schoenflies


class FreeFlyer(Joint):
    r"""Free-flyer (6-DoF) joint on SE(3): ``q = [p; quaternion (x, y, z, w)]``, ``v = [ω; v]``.

    ``p`` is the position of the child frame in the joint frame (the world for a floating
    base) and ``v`` the body twist of the child, so :math:`\boldsymbol\Phi = \mathbf 1_6`
    and :math:`\mathring{\boldsymbol\Phi} = 0` (seed 001 Remark 5). This is Pinocchio's
    ``JointModelFreeFlyer`` with its twist reordered angular first.

    .. math:: \text{pose}(\mathbf q) = \begin{bmatrix}\mathbf R(\text{quat}) & \mathbf p\\
              0 & 1\end{bmatrix}, \qquad g(\mathbf q\oplus\mathbf v) = g(\mathbf q)\exp(\mathbf v)

    Parameters
    ----------
    name : str, optional
        Joint name (a URDF floating base uses ``"root_joint"``).

    References
    ----------
    Seed 001 Remark 5; :ref:`conventions-joints`; Pinocchio's joint layout.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.model.joints import FreeFlyer
    >>> j = FreeFlyer()
    >>> q = j.integrate(j.neutral(), [0.0, 0.0, np.pi / 2, 1.0, 0.0, 0.0])
    >>> np.round(q, 6)   # a quarter turn while moving forward in the body frame
    array([0.63662 , 0.63662 , 0.      , 0.      , 0.      , 0.707107, 0.707107])
    """

    #: type code of the compiled kernels (``geomech.multibody._kernels.compiled.joint_code``)
    type_code = codes.FREE_FLYER

    kind = "free_flyer"
    _exp_chart = True  # q ⊕ δ = q exp(δ): exact chart rate J_r(δ)⁻¹
    nq = 7
    nv = 6

    def _chart_rate(self, delta, v, structure_constants=None):
        return _compiled_chart_rate(codes.FREE_FLYER, delta, v)  # J_r(δ)⁻¹ v, compiled

    def __init__(self, name: str | None = None):
        super().__init__(name)
        self.manifold = SE3

    def _pose(self, q):
        return homogeneous(quat_to_matrix(q[..., 3:]), q[..., :3])

    def _Phi(self):
        return np.eye(6)

    def _integrate(self, q, v):
        lead = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
        q, v = np.broadcast_to(q, lead + (7,)), np.broadcast_to(v, lead + (6,))
        quat0 = q[..., 3:]
        R0 = quat_to_matrix(quat0)
        # exp([ω; v]) = (exp(ω), J_l(ω) v): translation in the body frame, then to the world
        dp = np.einsum("...ij,...jk,...k->...i", R0, _so3_left_jacobian(v[..., :3]), v[..., 3:])
        quat1 = quat_multiply(quat0, quat_exp(v[..., :3]))
        quat1 = quat1 / np.linalg.norm(quat1, axis=-1, keepdims=True)
        return np.concatenate([q[..., :3] + dp, quat1], axis=-1)

    def _difference(self, q0, q1):
        q0, q1 = np.broadcast_arrays(q0, q1)
        w = quat_log(quat_multiply(_conj(q0[..., 3:]), q1[..., 3:]))
        R0 = quat_to_matrix(q0[..., 3:])
        dp_body = np.einsum("...ji,...j->...i", R0, q1[..., :3] - q0[..., :3])
        v = np.einsum("...ij,...j->...i", _so3_left_jacobian_inverse(w, "SE(3)"), dp_body)
        return np.concatenate([w, v], axis=-1)

    def _neutral(self):
        return np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0])

    def _random(self, rng, shape):
        return np.concatenate(
            [rng.uniform(-1.0, 1.0, shape + (3,)), _random_quaternion(rng, shape)], -1
        )


class Fixed(Joint):
    r"""Fixed (welded) joint: ``nq = nv = 0``, the child frame coincides with the joint frame.

    .. math:: \text{pose} = \mathbf 1_4, \qquad \boldsymbol\Phi \in \mathbb R^{6\times 0}

    Its configuration manifold is a point (:attr:`manifold` is ``None``). URDF fixed joints
    are merged into their parent body by :func:`~geomech.multibody.io.urdf.load_urdf`; a
    :class:`Fixed` edge in a hand-built graph is kept as a body with no degree of freedom.

    Parameters
    ----------
    name : str, optional
        Joint name.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.model.joints import Fixed
    >>> j = Fixed()
    >>> j.nq, j.nv, j.motion_subspace(np.zeros(0)).shape
    (0, 0, (6, 0))
    """

    #: type code of the compiled kernels (``geomech.multibody._kernels.compiled.joint_code``)
    type_code = codes.FIXED

    kind = "fixed"
    nq = 0
    nv = 0

    def _pose(self, q):
        return np.broadcast_to(np.eye(4), q.shape[:-1] + (4, 4)).copy()

    def _Phi(self):
        return np.zeros((6, 0))

    def _integrate(self, q, v):
        return np.zeros(np.broadcast_shapes(q.shape[:-1], v.shape[:-1]) + (0,))

    def _chart_rate(self, delta, v, structure_constants=None):
        return np.zeros(np.broadcast_shapes(delta.shape[:-1], v.shape[:-1]) + (0,))

    def _difference(self, q0, q1):
        return np.zeros(np.broadcast_shapes(q0.shape[:-1], q1.shape[:-1]) + (0,))

    def _neutral(self):
        return np.zeros(0)

    def _random(self, rng, shape):
        return np.zeros(shape + (0,))
