r"""Frames of vector fields: the generalized speeds of a mechanical system.

A frame is a set of vector fields :math:`X_1, \dots, X_n` spanning every tangent space; the
generalized speeds :math:`v` are defined by :math:`\dot q = X_i(q)\, v^i` (seed 000 §II). A
frame object knows three things, and nothing else is needed by the rest of
:mod:`geomech.geometry`:

- ``flow(q, w, t)``: the point reached from ``q`` by following the field :math:`w^i X_i`
  (constant components ``w``) for time ``t`` — :math:`q \exp(t\hat w)` for left-invariant
  fields on a group, :math:`q + t w` for the coordinate frame of :math:`\mathbb R^n`;
- ``structure_constants(q)``: ``s[..., i, j, k]`` with :math:`[X_i, X_j] = s^k_{ij} X_k`
  (the vector-field bracket :math:`[X, Y] = DY\cdot X - DX\cdot Y`);
- ``chart_velocity(q0, phi, v)``: the rate :math:`\dot\phi` in the chart
  :math:`\phi \mapsto \mathrm{flow}(q_0, \phi, 1)` of a curve with speeds ``v`` (used by the
  geodesic integrator, which re-centres this chart at every step).

Lie derivatives of functions along the frame fields (:meth:`Frame.lie_derivative`) are
derived once, in the base class, by central differences along the flow.

Index layout: ``s[..., i, j, k]`` is :math:`s^k_{ij}` (the upper index last), the layout of
:meth:`geomech.lie.LieGroup.structure_constants`; the lowered form used in seed 000 eqs. (8)-(9)
is :math:`s_{ijk} = H_{i\ell}\, s^\ell_{jk}`, i.e. ``einsum('il,jkl->ijk', H, s)``.
"""

from __future__ import annotations

import abc
import math

import numpy as np

from geomech._validation import as_array, check_size, default_rng
from geomech.errors import ConnectionSpecError, DimensionError
from geomech.lie import LieGroup

__all__ = ["Frame", "LeftInvariantFrame", "RightInvariantFrame", "CoordinateFrame", "CustomFrame"]

#: Base of the default Lie-derivative step ``h = EPS_CBRT * max(1, max|q|)``.
EPS_CBRT = float(np.finfo(float).eps ** (1.0 / 3.0))


def _time(t, w: np.ndarray) -> np.ndarray:
    """``t`` as an array broadcastable against ``w`` (..., n)."""
    return np.asarray(t, dtype=float)[..., None] * w


class Frame(abc.ABC):
    r"""Abstract frame :math:`X_1, \dots, X_n` of vector fields on a configuration manifold.

    Subclasses implement :meth:`flow`, :meth:`structure_constants` and
    :meth:`chart_velocity` and set :attr:`dim` and :attr:`point_shape`; the Lie derivative
    along the fields is derived here once.

    Attributes
    ----------
    dim : int
        Number of fields ``n`` (the number of generalized speeds).
    point_shape : tuple of int
        Shape of one configuration ``q`` (``(4, 4)`` for SE(3), ``(n,)`` for coordinates).

    Examples
    --------
    >>> from geomech.geometry import Frame, LeftInvariantFrame
    >>> from geomech.lie import SO3
    >>> frame = LeftInvariantFrame(SO3)
    >>> isinstance(frame, Frame), frame.dim, frame.point_shape
    (True, 3, (3, 3))
    """

    dim: int
    point_shape: tuple[int, ...]
    #: Whether the fields are coordinate fields of the flat point ``q`` (``flow(q, w, t) =
    #: q + t w``): the :class:`CoordinateFrame`, and a robot's joint frame when every joint
    #: has one coordinate (what a :class:`~geomech.geometry.ClosedChain` spanning tree needs).
    coordinates: bool = False

    @abc.abstractmethod
    def flow(self, q, w, t=1.0) -> np.ndarray:
        """Follow the field :math:`w^i X_i` (constant components) from ``q`` for time ``t``.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
            Start point(s).
        w : array_like, shape (..., dim)
            Frame components of the field.
        t : float or array_like, shape (...)
            Time.

        Returns
        -------
        ndarray, shape (..., *point_shape)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import CoordinateFrame
        >>> CoordinateFrame(2).flow([1.0, 2.0], [1.0, -1.0], 0.5)
        array([1.5, 1.5])
        """

    @abc.abstractmethod
    def structure_constants(self, q) -> np.ndarray:
        """Structure constants ``s[..., i, j, k]`` with :math:`[X_i, X_j] = s^k_{ij} X_k`.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)

        Returns
        -------
        ndarray, shape (..., dim, dim, dim)

        Examples
        --------
        >>> from geomech.geometry import LeftInvariantFrame
        >>> from geomech.lie import SO3
        >>> LeftInvariantFrame(SO3).structure_constants(SO3.identity())[0, 1]
        array([0., 0., 1.])
        """

    @abc.abstractmethod
    def chart_velocity(self, q0, phi, v) -> np.ndarray:
        r"""Chart rate :math:`\dot\phi` of a curve :math:`q(t) = \mathrm{flow}(q_0, \phi(t), 1)`.

        Parameters
        ----------
        q0 : array_like, shape (..., *point_shape)
            Chart centre.
        phi : array_like, shape (..., dim)
            Chart coordinates of the current point.
        v : array_like, shape (..., dim)
            Frame components of the velocity, :math:`\dot q = X_i v^i`.

        Returns
        -------
        ndarray, shape (..., dim)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LeftInvariantFrame
        >>> from geomech.lie import SO3
        >>> frame = LeftInvariantFrame(SO3)
        >>> frame.chart_velocity(np.eye(3), np.zeros(3), [1.0, 2.0, 3.0])
        array([1., 2., 3.])
        """

    def validate_point(self, q, name: str = "q") -> np.ndarray:
        """Check the trailing shape (and finiteness) of a configuration.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
        name : str
            Name used in error messages.

        Returns
        -------
        ndarray, shape (..., *point_shape)

        Raises
        ------
        DimensionError
            If the trailing shape is not :attr:`point_shape`.
        NonFiniteError
            If ``q`` has NaN or inf entries.

        Examples
        --------
        >>> from geomech.geometry import CoordinateFrame
        >>> CoordinateFrame(2).validate_point([[0.0, 1.0]]).shape
        (1, 2)
        """
        return as_array(q, name, self.point_shape)

    def neutral(self) -> np.ndarray:
        """The neutral configuration (zero coordinates by default).

        Returns
        -------
        ndarray, shape (*point_shape)

        Examples
        --------
        >>> from geomech.geometry import CoordinateFrame
        >>> CoordinateFrame(2).neutral()
        array([0., 0.])
        """
        return np.zeros(tuple(self.point_shape))

    def random_configuration(self, rng=None, size=None) -> np.ndarray:
        """Draw random configurations (standard normal coordinates by default).

        Parameters
        ----------
        rng : None, int or numpy.random.Generator
        size : None, int or tuple of int
            Batch shape.

        Returns
        -------
        ndarray, shape (*size, *point_shape)

        Examples
        --------
        >>> from geomech.geometry import CoordinateFrame
        >>> CoordinateFrame(3).random_configuration(rng=0, size=2).shape
        (2, 3)
        """
        size = check_size(size, per_item=math.prod(self.point_shape))
        return default_rng(rng).standard_normal(size + tuple(self.point_shape))

    def lie_derivative(self, f, q, step=None) -> np.ndarray:
        r"""Derivative of a function along each frame field, by central differences on the flow.

        .. math::
            (\mathscr L_{X_k} f)(q) \approx
            \frac{f(\mathrm{flow}(q, e_k, h)) - f(\mathrm{flow}(q, e_k, -h))}{2h}

        Step rule: ``h = eps**(1/3) * max(1, max|q|)`` (``≈ 6.1e-6`` for unit-sized
        configurations), balancing the truncation error :math:`h^2 |f'''|/6` against the
        rounding error :math:`\epsilon |f| / h`; the result is accurate to about
        :math:`10^{-10}` relative for smooth ``f`` of order one. ``f`` is called once, on a
        stacked batch of ``2 n`` displaced points.

        Parameters
        ----------
        f : callable
            ``f(q)`` with ``q`` of shape ``(..., *point_shape)`` returning ``(..., *out)``
            (it must accept leading batch dimensions).
        q : array_like, shape (..., *point_shape)
        step : float, optional
            Overrides the step ``h``.

        Returns
        -------
        ndarray, shape (..., dim, *out)
            ``result[..., k, ...]`` is :math:`\mathscr L_{X_k} f`.

        Raises
        ------
        DimensionError
            If ``q`` has the wrong trailing shape or ``f`` does not keep the batch shape.

        References
        ----------
        seed 000 §II (:math:`\dot H_{ij} = (\mathscr L_{X_k} H_{ij}) v^k`) and §6 ("FD-flow").

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import CoordinateFrame
        >>> frame = CoordinateFrame(2)
        >>> np.round(frame.lie_derivative(lambda q: q[..., 0] * q[..., 1] ** 2, [1.0, 2.0]), 8)
        array([4., 4.])
        """
        q = self.validate_point(q)
        n = self.dim
        batch = q.shape[: q.ndim - len(self.point_shape)]
        h = EPS_CBRT * max(1.0, float(np.max(np.abs(q), initial=0.0))) if step is None else step
        E = np.eye(n).reshape((1, n) + (1,) * len(batch) + (n,))
        signs = np.array([h, -h]).reshape((2, 1) + (1,) * len(batch))
        q_shift = self.flow(q[None, None], E, signs)  # (2, n, *batch, *point_shape)
        fq = np.asarray(f(q_shift), dtype=float)
        if fq.shape[: 2 + len(batch)] != (2, n) + batch:
            raise DimensionError(
                f"Expected `f` to keep the batch shape {(2, n) + batch} of its input, "
                f"got output shape {fq.shape}."
            )
        df = (fq[0] - fq[1]) / (2.0 * h)  # (n, *batch, *out)
        return np.moveaxis(df, 0, len(batch))


class LeftInvariantFrame(Frame):
    r"""Left-invariant fields :math:`X_i(g) = g E_i` on a Lie group (body velocities).

    The flow is :math:`g \exp(t \hat w)` and the structure constants are those of the Lie
    algebra, :math:`[X_i, X_j] = X_{[E_i, E_j]}` (for SE(3), :math:`s^k_{ij} =
    ((e_i\times) e_j)_k`, seed 000 §1.1).

    Parameters
    ----------
    group : geomech.lie.LieGroup

    Raises
    ------
    ConnectionSpecError
        If ``group`` is not a :class:`~geomech.lie.LieGroup`.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import LeftInvariantFrame
    >>> from geomech.lie import SE3
    >>> frame = LeftInvariantFrame(SE3)
    >>> g = frame.flow(SE3.identity(), [0, 0, 0, 1.0, 0, 0], 2.0)
    >>> g[:3, 3]
    array([2., 0., 0.])
    """

    def __init__(self, group: LieGroup):
        if not isinstance(group, LieGroup):
            raise ConnectionSpecError(
                f"Expected `group` to be a geomech.lie.LieGroup, got {type(group).__name__}."
            )
        self.group = group
        self.dim = group.dim
        self.point_shape = tuple(group.point_shape)
        self._s = group.structure_constants()

    def flow(self, q, w, t=1.0):
        r"""Right translation by the exponential: :math:`q \exp(t \hat w)`.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
        w : array_like, shape (..., dim)
        t : float or array_like, shape (...)

        Returns
        -------
        ndarray, shape (..., *point_shape)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LeftInvariantFrame
        >>> from geomech.lie import SO3
        >>> R = LeftInvariantFrame(SO3).flow(np.eye(3), [0, 0, 1.0], np.pi / 2)
        >>> np.round(R, 12) + 0.0
        array([[ 0., -1.,  0.],
               [ 1.,  0.,  0.],
               [ 0.,  0.,  1.]])
        """
        w = as_array(w, "w", (self.dim,))
        return self.group.compose(q, self.group.exp(_time(t, w)))

    def structure_constants(self, q):
        """Lie-algebra structure constants, broadcast to the batch shape of ``q``.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)

        Returns
        -------
        ndarray, shape (..., dim, dim, dim)

        Examples
        --------
        >>> from geomech.geometry import LeftInvariantFrame
        >>> from geomech.lie import SE2
        >>> LeftInvariantFrame(SE2).structure_constants(SE2.identity())[0, 1]  # [E_w, E_x] = E_y
        array([0., 0., 1.])
        """
        q = self.validate_point(q)
        batch = q.shape[: q.ndim - len(self.point_shape)]
        return np.broadcast_to(self._s, batch + self._s.shape).copy()

    def chart_velocity(self, q0, phi, v):
        r""":math:`\dot\phi = J_r(\phi)^{-1} v` for :math:`q = q_0 \exp(\hat\phi)`.

        Parameters
        ----------
        q0 : array_like, shape (..., *point_shape)
            Chart centre (not used: the chart is left-invariant).
        phi : array_like, shape (..., dim)
        v : array_like, shape (..., dim)

        Returns
        -------
        ndarray, shape (..., dim)

        Raises
        ------
        SingularityError
            At a chart singularity (rotation angle :math:`2\pi k`).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LeftInvariantFrame
        >>> from geomech.lie import SO3
        >>> phi = np.array([0.0, 0.0, 0.3])
        >>> LeftInvariantFrame(SO3).chart_velocity(np.eye(3), phi, [0.0, 0.0, 1.0])
        array([0., 0., 1.])
        """
        Jinv = self.group.right_jacobian_inverse(phi)
        return np.einsum("...ij,...j->...i", Jinv, np.asarray(v, dtype=float))

    def validate_point(self, q, name="q"):
        """Check shape, finiteness and group membership of ``q``.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
        name : str

        Returns
        -------
        ndarray, shape (..., *point_shape)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            As :meth:`geomech.lie.LieGroup.validate`.

        Examples
        --------
        >>> from geomech.geometry import LeftInvariantFrame
        >>> from geomech.lie import SO3
        >>> LeftInvariantFrame(SO3).validate_point(SO3.identity()).shape
        (3, 3)
        """
        return self.group.validate(q, name)

    def neutral(self) -> np.ndarray:
        """The group identity (:meth:`geomech.lie.LieGroup.identity`).

        Returns
        -------
        ndarray, shape (*point_shape)

        Examples
        --------
        >>> from geomech.geometry import LeftInvariantFrame
        >>> from geomech.lie import SE2
        >>> LeftInvariantFrame(SE2).neutral()
        array([[1., 0., 0.],
               [0., 1., 0.],
               [0., 0., 1.]])
        """
        return self.group.identity()

    def random_configuration(self, rng=None, size=None):
        """Random group elements (:meth:`geomech.lie.LieGroup.random`).

        Parameters
        ----------
        rng : None, int or numpy.random.Generator
        size : None, int or tuple of int

        Returns
        -------
        ndarray, shape (*size, *point_shape)

        Examples
        --------
        >>> from geomech.geometry import LeftInvariantFrame
        >>> from geomech.lie import SE3
        >>> LeftInvariantFrame(SE3).random_configuration(rng=0).shape
        (4, 4)
        """
        return self.group.random(rng, size)

    def __repr__(self):
        return f"LeftInvariantFrame({self.group.name})"


class RightInvariantFrame(LeftInvariantFrame):
    r"""Right-invariant fields :math:`X_i(g) = E_i g` on a Lie group (spatial velocities).

    The flow is :math:`\exp(t \hat w)\, g` and the structure constants are minus those of
    the Lie algebra (seed 000 §1.1: "right-invariant fields flip the sign").

    Parameters
    ----------
    group : geomech.lie.LieGroup

    Raises
    ------
    ConnectionSpecError
        If ``group`` is not a :class:`~geomech.lie.LieGroup`.

    Examples
    --------
    >>> from geomech.geometry import RightInvariantFrame
    >>> from geomech.lie import SO3
    >>> RightInvariantFrame(SO3).structure_constants(SO3.identity())[0, 1] + 0.0
    array([ 0.,  0., -1.])
    """

    def __init__(self, group: LieGroup):
        super().__init__(group)
        self._s = -self._s

    def flow(self, q, w, t=1.0):
        r"""Left translation by the exponential: :math:`\exp(t \hat w)\, q`.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
        w : array_like, shape (..., dim)
        t : float or array_like, shape (...)

        Returns
        -------
        ndarray, shape (..., *point_shape)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import RightInvariantFrame
        >>> from geomech.lie import SE2
        >>> g = RightInvariantFrame(SE2).flow(SE2.exp([0.0, 1.0, 0.0]), [np.pi / 2, 0, 0])
        >>> np.round(g[:2, 2], 12) + 0.0  # the translation is rotated too
        array([0., 1.])
        """
        w = as_array(w, "w", (self.dim,))
        return self.group.compose(self.group.exp(_time(t, w)), q)

    def chart_velocity(self, q0, phi, v):
        r""":math:`\dot\phi = J_l(\phi)^{-1} v` for :math:`q = \exp(\hat\phi)\, q_0`.

        Parameters
        ----------
        q0 : array_like, shape (..., *point_shape)
            Chart centre (not used).
        phi : array_like, shape (..., dim)
        v : array_like, shape (..., dim)

        Returns
        -------
        ndarray, shape (..., dim)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import RightInvariantFrame
        >>> from geomech.lie import SO3
        >>> RightInvariantFrame(SO3).chart_velocity(np.eye(3), np.zeros(3), [1.0, 0.0, 0.0])
        array([1., 0., 0.])
        """
        Jinv = self.group.left_jacobian_inverse(phi)
        return np.einsum("...ij,...j->...i", Jinv, np.asarray(v, dtype=float))

    def __repr__(self):
        return f"RightInvariantFrame({self.group.name})"


class CoordinateFrame(Frame):
    r"""The coordinate frame :math:`X_i = \partial / \partial q^i` of :math:`\mathbb R^n`.

    The flow is :math:`q + t w`, the structure constants vanish and :math:`v = \dot q`.

    Parameters
    ----------
    n : int
        Dimension.

    Raises
    ------
    DimensionError
        If ``n`` is not a positive integer.

    Examples
    --------
    >>> from geomech.geometry import CoordinateFrame
    >>> frame = CoordinateFrame(3)
    >>> float(abs(frame.structure_constants([0.0, 0.0, 0.0])).max())
    0.0
    """

    coordinates = True

    def __init__(self, n: int):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise DimensionError(f"Expected `n` to be a positive integer, got {n!r}.")
        self.dim = int(n)
        self.point_shape = (self.dim,)

    def flow(self, q, w, t=1.0):
        """Straight line :math:`q + t w`.

        Parameters
        ----------
        q : array_like, shape (..., n)
        w : array_like, shape (..., n)
        t : float or array_like, shape (...)

        Returns
        -------
        ndarray, shape (..., n)

        Examples
        --------
        >>> from geomech.geometry import CoordinateFrame
        >>> CoordinateFrame(1).flow([1.0], [2.0], 3.0)
        array([7.])
        """
        q = as_array(q, "q", self.point_shape)
        w = as_array(w, "w", (self.dim,))
        return q + _time(t, w)

    def structure_constants(self, q):
        """Zero: coordinate fields commute.

        Parameters
        ----------
        q : array_like, shape (..., n)

        Returns
        -------
        ndarray, shape (..., n, n, n)

        Examples
        --------
        >>> from geomech.geometry import CoordinateFrame
        >>> CoordinateFrame(2).structure_constants([[0.0, 0.0]] * 4).shape
        (4, 2, 2, 2)
        """
        q = self.validate_point(q)
        return np.zeros(q.shape[:-1] + (self.dim,) * 3)

    def chart_velocity(self, q0, phi, v):
        r""":math:`\dot\phi = v`.

        Parameters
        ----------
        q0 : array_like, shape (..., n)
        phi : array_like, shape (..., n)
        v : array_like, shape (..., n)

        Returns
        -------
        ndarray, shape (..., n)

        Examples
        --------
        >>> from geomech.geometry import CoordinateFrame
        >>> CoordinateFrame(2).chart_velocity([0.0, 0.0], [0.1, 0.2], [1.0, 2.0])
        array([1., 2.])
        """
        return np.broadcast_to(
            np.asarray(v, dtype=float), np.broadcast_shapes(np.shape(phi), np.shape(v))
        ).copy()

    def __repr__(self):
        return f"CoordinateFrame({self.dim})"


class CustomFrame(Frame):
    r"""A frame given by user callables (e.g. a multibody model's joint frame).

    Parameters
    ----------
    dim : int
        Number of fields (``nv``).
    point_shape : tuple of int
        Shape of one configuration (``(nq,)`` for a flat configuration vector).
    flow : callable
        ``flow(q, w, t)`` with the semantics of :meth:`Frame.flow`, batched (e.g.
        ``lambda q, w, t: model.integrate(q, w * t[..., None])``).
    structure_constants : callable or array_like, optional
        ``s(q)`` of shape ``(..., dim, dim, dim)`` or a constant array; default zero
        (commuting fields).
    chart_velocity : callable, optional
        ``chart_velocity(q0, phi, v)`` (see :meth:`Frame.chart_velocity`). Default: the
        truncated series :math:`\dot\phi = v + \tfrac12 \mathrm{ad}_\phi v +
        \tfrac1{12} \mathrm{ad}_\phi^2 v` with :math:`(\mathrm{ad}_\phi v)^k = s^k_{ij}(q_0)
        \phi^i v^j`, exact for commuting fields and accurate to :math:`O(|\phi|^3)` for
        constant structure constants (supply the exact map for best geodesic accuracy).
    random_configuration : callable, optional
        ``random_configuration(rng, size)``.

    Raises
    ------
    ConnectionSpecError
        If ``flow`` is not callable or a constant ``structure_constants`` has the wrong shape.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import CustomFrame
    >>> frame = CustomFrame(2, (2,), lambda q, w, t: q + np.asarray(t)[..., None] * w)
    >>> frame.flow(np.zeros(2), np.ones(2), 2.0)
    array([2., 2.])
    """

    def __init__(
        self,
        dim,
        point_shape,
        flow,
        structure_constants=None,
        chart_velocity=None,
        random_configuration=None,
    ):
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
            raise DimensionError(f"Expected `dim` to be a positive integer, got {dim!r}.")
        if not callable(flow):
            raise ConnectionSpecError(f"Expected `flow` to be callable, got {type(flow).__name__}.")
        self.dim = int(dim)
        self.point_shape = tuple(int(s) for s in point_shape)
        self._flow = flow
        if structure_constants is None:
            structure_constants = np.zeros((self.dim,) * 3)
        if not callable(structure_constants):
            s = np.asarray(structure_constants, dtype=float)
            if s.shape != (self.dim,) * 3:
                raise ConnectionSpecError(
                    f"Expected `structure_constants` to have shape {(self.dim,) * 3}, "
                    f"got {s.shape}."
                )
        self._s = structure_constants
        self._chart_velocity = chart_velocity
        self._random_configuration = random_configuration

    def flow(self, q, w, t=1.0):
        """Call the user flow (see :meth:`Frame.flow`).

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)
        w : array_like, shape (..., dim)
        t : float or array_like, shape (...)

        Returns
        -------
        ndarray, shape (..., *point_shape)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import CustomFrame
        >>> frame = CustomFrame(1, (1,), lambda q, w, t: q + np.asarray(t)[..., None] * w)
        >>> frame.flow([1.0], [1.0], 1.0)
        array([2.])
        """
        w = as_array(w, "w", (self.dim,))
        return np.asarray(self._flow(np.asarray(q, dtype=float), w, np.asarray(t, dtype=float)))

    def structure_constants(self, q):
        """User structure constants (see :meth:`Frame.structure_constants`).

        Parameters
        ----------
        q : array_like, shape (..., *point_shape)

        Returns
        -------
        ndarray, shape (..., dim, dim, dim)

        Raises
        ------
        DimensionError
            If the callable returns the wrong shape.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import CustomFrame
        >>> frame = CustomFrame(2, (2,), lambda q, w, t: q + np.asarray(t)[..., None] * w)
        >>> frame.structure_constants(np.zeros((5, 2))).shape
        (5, 2, 2, 2)
        """
        q = self.validate_point(q)
        batch = q.shape[: q.ndim - len(self.point_shape)]
        if callable(self._s):
            s = as_array(self._s(q), "structure_constants(q)", (self.dim,) * 3)
            if s.shape[:-3] != batch:
                raise DimensionError(
                    f"Expected `structure_constants(q)` to have shape {batch + (self.dim,) * 3}, "
                    f"got {s.shape}."
                )
            return s
        return np.broadcast_to(self._s, batch + (self.dim,) * 3).copy()

    def chart_velocity(self, q0, phi, v):
        """User chart rate, or the truncated dexp-inverse series (see the class docstring).

        Parameters
        ----------
        q0 : array_like, shape (..., *point_shape)
        phi : array_like, shape (..., dim)
        v : array_like, shape (..., dim)

        Returns
        -------
        ndarray, shape (..., dim)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import CustomFrame
        >>> frame = CustomFrame(2, (2,), lambda q, w, t: q + np.asarray(t)[..., None] * w)
        >>> frame.chart_velocity(np.zeros(2), np.ones(2), [1.0, 2.0])
        array([1., 2.])
        """
        if self._chart_velocity is not None:
            return np.asarray(self._chart_velocity(q0, phi, v), dtype=float)
        s = self.structure_constants(q0)
        phi = np.asarray(phi, dtype=float)
        v = np.asarray(v, dtype=float)
        ad_v = np.einsum("...ijk,...i,...j->...k", s, phi, v)
        ad2_v = np.einsum("...ijk,...i,...j->...k", s, phi, ad_v)
        return v + 0.5 * ad_v + ad2_v / 12.0

    def random_configuration(self, rng=None, size=None):
        """User sampler, or standard normal coordinates.

        Parameters
        ----------
        rng : None, int or numpy.random.Generator
        size : None, int or tuple of int

        Returns
        -------
        ndarray, shape (*size, *point_shape)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import CustomFrame
        >>> frame = CustomFrame(2, (2,), lambda q, w, t: q + np.asarray(t)[..., None] * w)
        >>> frame.random_configuration(rng=1, size=3).shape
        (3, 2)
        """
        if self._random_configuration is not None:
            return np.asarray(self._random_configuration(default_rng(rng), size), dtype=float)
        return super().random_configuration(rng, size)

    def __repr__(self):
        return f"CustomFrame(dim={self.dim}, point_shape={self.point_shape})"
