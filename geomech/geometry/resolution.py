"""A connection from an object or a name, for any kind of system (the one resolver).

Every tool that takes "a system and its connection" (:class:`~geomech.geometry.InducedConnection`,
:class:`~geomech.geometry.ClosedChain`, :class:`geomech.control.SlotineLi`) resolves the pair
here, so a name means the same connection everywhere (names from the one registry,
:mod:`geomech.geometry.names`):

- a connection object is taken as it is (its dimension checked against the system's);
- a system with its own ``connection(name)`` method resolves the name itself: a robot
  (``MultibodyModel.connection``: its body connections) or a rigid body
  (``RigidBody.connection``);
- otherwise ``"levi-civita"`` (and its aliases) gives the
  :class:`~geomech.geometry.LeviCivitaConnection` of the system and the Cartan–Schouten names
  the :class:`~geomech.geometry.CartanSchoutenConnection` of a group's left-invariant frame.

Examples
--------
>>> from geomech.geometry import resolve_connection
>>> from geomech.geometry.examples import point_mass
>>> resolve_connection(point_mass(), "lc")
<LeviCivitaConnection on <MechanicalSystem on R^3: dim=3>>
"""

from __future__ import annotations

from geomech.errors import ConnectionSpecError, DimensionError
from geomech.geometry.cartan import CartanSchoutenConnection
from geomech.geometry.connection import AffineConnection
from geomech.geometry.levi_civita import LeviCivitaConnection
from geomech.geometry.names import canonical_connection_name
from geomech.geometry.system import as_mechanical_system

__all__ = ["resolve_connection"]


def resolve_connection(system, connection="levi-civita", name: str = "system") -> AffineConnection:
    """The connection ``connection`` (an object or a name) of ``system``.

    Parameters
    ----------
    system : MechanicalSystem, MultibodyModel, RigidBody or object with ``mechanical_system()``
    connection : AffineConnection or str or mapping, optional
        A connection object, or a name (or, for a robot, a body-connection mapping).
        Default ``"levi-civita"``.
    name : str
        Name of ``system`` in error messages.

    Returns
    -------
    AffineConnection

    Raises
    ------
    ConnectionSpecError
        If ``system`` is not a system, the name is unknown, names a body connection of a
        system that has none (a ``MechanicalSystem`` that is not a robot or a rigid body), or
        names a Cartan–Schouten connection of a system without a left-invariant frame.
    DimensionError
        If a connection object has another dimension than the system.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import resolve_connection
    >>> from geomech.multibody import robots
    >>> arm = robots.double_pendulum()
    >>> conn = resolve_connection(arm, "momentum-cross")
    >>> conn.system is arm, bool(conn.is_metric_compatible([0.3, -0.5]))
    (True, True)
    """
    system_ = as_mechanical_system(system, name)
    if isinstance(connection, AffineConnection):
        if connection.dim != system_.dim:
            raise DimensionError(
                f"Expected `connection` of dimension {system_.dim} (the {name}'s), got "
                f"{connection.dim}."
            )
        return connection
    by_name = getattr(system, "connection", None)
    if callable(by_name):  # a robot or a rigid body: its own names
        return by_name(connection)
    key = canonical_connection_name(connection)
    if key == "levi-civita":
        return LeviCivitaConnection(system_)
    if key.startswith("cartan-"):
        return CartanSchoutenConnection(system_, key)
    raise ConnectionSpecError(
        f"Expected `connection` to be an AffineConnection, or 'levi-civita' or a Cartan-Schouten "
        f"name for a {type(system_).__name__} (the body connection {key!r} is defined for "
        f"robots and rigid bodies), got {connection!r}."
    )
