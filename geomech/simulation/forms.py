r"""Systems as vector fields: the Lie-group form (the extension point) and Hamel's equations.

:func:`lie_group_form` (single dispatch on the system's type) writes a system as a vector field
on :math:`G \times \mathbb R^{n_v}`, :class:`LieGroupForm`; :func:`hamel_acceleration` is the
forward dynamics :math:`\dot v = H^{-1}(\tau - C^\star v - g)` of a
:class:`~geomech.geometry.MechanicalSystem` in its frame.

Examples
--------
>>> import numpy as np
>>> from geomech.lie import SO3
>>> from geomech.rigidbody import RigidBody
>>> from geomech.simulation import lie_group_form
>>> lie_group_form(RigidBody(SO3, np.eye(3))).nv
3
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import singledispatch

import numpy as np

from geomech.errors import DTypeError
from geomech.geometry.system import MechanicalSystem
from geomech.lie import Euclidean, LieGroup
from geomech.rigidbody.body import RigidBody

__all__ = [
    "LieGroupForm",
    "lie_group_form",
    "mechanical_system_form",
    "group_of",
    "hamel_acceleration",
]


@dataclass(frozen=True)
class LieGroupForm:
    """A system written as a vector field on ``G × R^nv`` (what :func:`simulate` integrates).

    Attributes
    ----------
    group : LieGroup
        Configuration group ``G``.
    nv : int
        Number of velocity coordinates.
    velocity : callable
        ``velocity(t, q, v) -> xi``: left-trivialised configuration rate, ``q̇ = q ξ̂``.
    acceleration : callable
        ``acceleration(t, q, v, tau) -> a`` (``tau`` may be ``None``).
    validate_q : callable
        ``validate_q(q0) -> ndarray``: checks an initial configuration.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SO3
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.simulation import lie_group_form
    >>> form = lie_group_form(RigidBody(SO3, np.eye(3)))
    >>> form.group, form.nv
    (SO3, 3)
    """

    group: LieGroup
    nv: int
    velocity: Callable
    acceleration: Callable
    validate_q: Callable


@singledispatch
def lie_group_form(system) -> LieGroupForm:
    """The Lie-group form of a system (single dispatch on its type; the extension point).

    Registered: :class:`~geomech.rigidbody.RigidBody` and
    :class:`~geomech.geometry.MechanicalSystem` (:func:`mechanical_system_form`). Register
    new system types with ``@lie_group_form.register``; each returns a
    :class:`LieGroupForm`. A :class:`~geomech.multibody.MultibodyModel` has no Lie-group form
    (its ``q`` vector is not a group element): :func:`simulate` integrates it in its joint
    frame's chart (:func:`~geomech.simulation.charts.system_chart`).

    Parameters
    ----------
    system : object
        The system to simulate.

    Returns
    -------
    LieGroupForm

    Raises
    ------
    DTypeError
        (a ``TypeError``) For an unsupported type (a ``MultibodyModel`` included).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.lie import SE3
    >>> from geomech.rigidbody import RigidBody
    >>> from geomech.simulation import lie_group_form
    >>> lie_group_form(RigidBody(SE3, np.eye(6))).nv
    6
    >>> lie_group_form("pendulum")
    Traceback (most recent call last):
    ...
    geomech.errors.DTypeError: simulate() supports RigidBody, MechanicalSystem and MultibodyModel
    systems; got str.
    """
    name = type(system).__name__
    raise DTypeError(
        f"simulate() supports RigidBody, MechanicalSystem and MultibodyModel systems; got {name}."
    )


@lie_group_form.register
def _(system: RigidBody) -> LieGroupForm:
    # seed 003: q = g ∈ G, v = body velocity; ġ = g v̂ (§1.3) and M v̇ - ad_vᵀ M v + n = τ (107)
    return LieGroupForm(
        group=system.group,
        nv=system.dim,
        velocity=lambda t, g, v: v,
        acceleration=lambda t, g, v, tau: system._forward_dynamics(g, v, tau),
        validate_q=lambda q0: system.group.validate(q0, "q0"),
    )


@lie_group_form.register(MechanicalSystem)
def mechanical_system_form(system) -> LieGroupForm:
    r"""Lie-group form of a :class:`~geomech.geometry.MechanicalSystem` on a group manifold.

    Configuration rate from the frame (coordinate or left-invariant frame: :math:`\xi = v`;
    right-invariant frame: :math:`\xi = \mathrm{Ad}_{q^{-1}} v`), and the Lagrange (Hamel)
    equations in the frame with the Levi-Civita factorization,

    .. math::

        H(q)\dot v + C^\star(q, v) v + g(q) = \tau .

    This is the function registered for ``MechanicalSystem`` with :func:`lie_group_form`.

    Parameters
    ----------
    system : MechanicalSystem
        Its ``manifold`` must be a :class:`~geomech.lie.LieGroup` (``Euclidean(n)`` for a
        coordinate frame; with ``manifold=None`` the frame's group is used).

    Returns
    -------
    LieGroupForm

    Raises
    ------
    DTypeError
        (a ``TypeError``) If the manifold is not a Lie group, a coordinate frame sits on a
        non-Euclidean group, or the frame is a custom frame.

    References
    ----------
    seed 000 Sec. II (eq. 1, ``Hq̈ + Cq̇ + g = τ``; eq. 6, Hamel's equations); seed 003 §1.3.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples import point_mass
    >>> from geomech.simulation import mechanical_system_form
    >>> form = mechanical_system_form(point_mass(2.0))
    >>> form.acceleration(0.0, np.zeros(3), np.ones(3), np.array([2.0, 0.0, 0.0]))
    array([1., 0., 0.])
    """
    from geomech.geometry.frames import RightInvariantFrame

    group, frame = group_of(system), system.frame
    if group is None:
        raise DTypeError(
            f"Expected a MechanicalSystem on a LieGroup with a coordinate (Euclidean(n)) or "
            f"invariant frame, got manifold {type(system.manifold).__name__} with frame "
            f"{type(frame).__name__}; simulate() integrates such systems in the frame's own "
            f"chart (Frame.flow, Frame.chart_velocity)."
        )
    if isinstance(frame, RightInvariantFrame):

        def velocity(t, q, v):  # q̇ = v̂ q = q (Ad_{q⁻¹} v)^
            return np.einsum("...ij,...j->...i", group._Ad(group._inverse(q)), v)
    else:

        def velocity(t, q, v):
            return v

    acceleration = hamel_acceleration(system, group.identity())
    return LieGroupForm(
        group=group,
        nv=system.dim,
        velocity=velocity,
        acceleration=acceleration,
        validate_q=lambda q0: group.validate(q0, "q0"),
    )


def group_of(system):
    """The Lie group of a MechanicalSystem that has a Lie-group form, else ``None``.

    Invariant frames on their group, and coordinate frames on ``Euclidean(n)`` (or without
    a manifold).

    Parameters
    ----------
    system : MechanicalSystem

    Returns
    -------
    LieGroup or None

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import CustomFrame, MechanicalSystem
    >>> from geomech.geometry.examples import point_mass
    >>> from geomech.simulation.forms import group_of
    >>> frame = CustomFrame(2, (2,), lambda q, w, t: q + np.asarray(t)[..., None] * w)
    >>> group_of(point_mass()), group_of(MechanicalSystem(None, np.eye(2), frame=frame))
    (Euclidean(3), None)
    """
    from geomech.geometry.frames import CoordinateFrame, LeftInvariantFrame

    group, frame = system.manifold, system.frame
    if group is None:  # a frame without a manifold: take the frame's group
        group = getattr(
            frame, "group", Euclidean(frame.dim) if isinstance(frame, CoordinateFrame) else None
        )
    if not isinstance(group, LieGroup):
        return None
    if isinstance(frame, LeftInvariantFrame) or (
        isinstance(frame, CoordinateFrame) and isinstance(group, Euclidean)
    ):
        return group  # RightInvariantFrame subclasses LeftInvariantFrame
    return None


def hamel_acceleration(system, constant_at=None):
    r"""``acceleration(t, q, v, tau)``: :math:`\dot v = H^{-1}(\tau - C^\star(q, v) v - g(q))`.

    seed 000 eq. (1) in the system's frame (Hamel's equations, eq. 6), with the Levi-Civita
    factorization :math:`C^\star[i, k] = \Gamma^\star[i, j, k] v[j]` (eq. 10). With a
    point ``constant_at`` (a frame with constant structure constants) and a constant mass
    matrix, :math:`\Gamma^\star` and :math:`H^{-1}` are evaluated there once.

    Parameters
    ----------
    system : MechanicalSystem
    constant_at : ndarray, shape (*point_shape), optional
        A point where the (constant) Christoffel symbols and mass matrix are evaluated once.

    Returns
    -------
    callable
        ``acceleration(t, q, v, tau) -> a`` (``tau`` may be ``None``).

    References
    ----------
    seed 000 Sec. II (eqs. 1, 6, 10).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples import point_mass
    >>> from geomech.simulation.forms import hamel_acceleration
    >>> acceleration = hamel_acceleration(point_mass(2.0))
    >>> acceleration(0.0, np.zeros(3), np.zeros(3), np.array([0.0, 4.0, 0.0]))
    array([0., 2., 0.])
    """
    from geomech.geometry.levi_civita import LeviCivitaConnection

    lc = LeviCivitaConnection(system)
    if constant_at is not None and system.has_constant_mass_matrix:
        Gamma = lc.christoffel_first_kind(constant_at)
        H_inv = np.linalg.inv(system.mass_matrix(constant_at))

        def acceleration(t, q, v, tau):
            rhs = -np.einsum("ijk,...j,...k->...i", Gamma, v, v)
            if system.potential is not None:
                rhs = rhs - system.gravity_forces(q)
            if tau is not None:
                rhs = rhs + tau
            return np.einsum("ij,...j->...i", H_inv, rhs)
    else:

        def acceleration(t, q, v, tau):
            return system.forward_dynamics(q, v, tau)

    return acceleration
