r"""The one registry of connection names: one canonical name each, aliases allowed.

Every layer that accepts a connection by name (:meth:`geomech.rigidbody.RigidBody.connection`,
:class:`~geomech.geometry.CartanSchoutenConnection`, the multibody body connections of
:func:`geomech.multibody.connections.body.body_connection`, ``MultibodyModel.connection``,
:class:`~geomech.control.SlotineLi`, the ``geomech inspect --connection`` option) resolves
it here, so a name means the same connection everywhere and an unknown name raises the same
:class:`~geomech.errors.ConnectionSpecError`, listing the canonical names.

.. list-table::
   :header-rows: 1

   * - canonical name
     - connection (Coriolis matrix on a Lie group, body velocity ``v``)
     - aliases
   * - ``levi-civita``
     - the Riemannian connection of the metric, ``C★``
     - ``lc``
   * - ``cartan-minus``
     - Cartan–Schouten (−): ``∇_X Y = 0`` on left-invariant fields
     - ``-``, ``cartan-schouten-``, ``cartan(-)``
   * - ``cartan-zero``
     - Cartan–Schouten (0): ``∇_X Y = ½[X, Y]``
     - ``0``, ``cartan-schouten0``, ``cartan(0)``
   * - ``cartan-plus``
     - Cartan–Schouten (+): ``∇_X Y = [X, Y]``
     - ``+``, ``cartan-schouten+``, ``cartan(+)``
   * - ``velocity-cross``
     - ``C = M ad_v - ad_vᵀ M`` (on SE(3) seed 001 eq. 9, ``(v×*) I + I (v×)``)
     -
   * - ``boltzmann-hamel``
     - ``C = ad~_{Mv}`` (seed 003 eqs. 57, 107; on SE(3) ``(I v)×̄*``, spatial_v2's option 2)
     - ``momentum-cross``

Names are compared case-insensitively with ``_`` read as ``-``. User-registered body
connections (:func:`geomech.multibody.connections.body.register_body_connection`) add their
names here through :func:`register_connection_name`.

References
----------
seed 000 §III-IV, §VI-A1 (eqs. 18, 19); seed 001 eq. (9); seed 003 Prop. 3.1 (eq. 57),
Prop. 5.1 (eq. 107); E. Cartan and J. A. Schouten (1926).

Examples
--------
>>> from geomech.geometry.names import canonical_connection_name
>>> canonical_connection_name("momentum-cross"), canonical_connection_name("-")
('boltzmann-hamel', 'cartan-minus')
"""

from __future__ import annotations

from geomech.errors import ConnectionSpecError

__all__ = [
    "CONNECTION_NAMES",
    "canonical_connection_name",
    "connection_names",
    "register_connection_name",
]

#: The built-in canonical connection names and their aliases.
CONNECTION_NAMES: dict[str, tuple[str, ...]] = {
    "levi-civita": ("lc",),
    "cartan-minus": ("-", "cartan-schouten-", "cartan(-)"),
    "cartan-zero": ("0", "cartan-schouten0", "cartan(0)"),
    "cartan-plus": ("+", "cartan-schouten+", "cartan(+)"),
    "velocity-cross": (),
    "boltzmann-hamel": ("momentum-cross",),
}

_CANONICAL: list[str] = list(CONNECTION_NAMES)
_LOOKUP: dict[str, str] = {
    key: name for name, aliases in CONNECTION_NAMES.items() for key in (name, *aliases)
}


def _key(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def connection_names() -> list[str]:
    """The canonical connection names (built-in first, then user-registered ones).

    Returns
    -------
    list of str

    Examples
    --------
    >>> from geomech.geometry.names import connection_names
    >>> connection_names()[:4]
    ['levi-civita', 'cartan-minus', 'cartan-zero', 'cartan-plus']
    """
    return list(_CANONICAL)


def canonical_connection_name(name) -> str:
    """The canonical name of a connection name or alias.

    Parameters
    ----------
    name : str
        A canonical name or an alias (case-insensitive, ``_`` read as ``-``).

    Returns
    -------
    str
        The canonical name.

    Raises
    ------
    ConnectionSpecError
        If ``name`` is not a string or not a registered name or alias; the message lists the
        canonical names.

    Examples
    --------
    >>> from geomech.geometry.names import canonical_connection_name
    >>> canonical_connection_name("Cartan_Schouten+")
    'cartan-plus'
    >>> canonical_connection_name("christoffel")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geomech.errors.ConnectionSpecError: Unknown connection name 'christoffel'; expected one of
    ['levi-civita', 'cartan-minus', ...] (or an alias of one).
    """
    if isinstance(name, str):
        canonical = _LOOKUP.get(_key(name))
        if canonical is not None:
            return canonical
    raise ConnectionSpecError(
        f"Unknown connection name {name!r}; expected one of {_CANONICAL} (or an alias of one)."
    )


def register_connection_name(name: str, aliases=()) -> None:
    """Add a canonical connection name (and aliases) to the registry.

    Parameters
    ----------
    name : str
        The new canonical name.
    aliases : iterable of str, optional
        Further names for it.

    Raises
    ------
    ConnectionSpecError
        If a name is not a non-empty string or is already registered (as a name or an
        alias).

    Examples
    --------
    >>> from geomech.geometry.names import canonical_connection_name, register_connection_name
    >>> register_connection_name("doc-example", aliases=("doc-alias",))
    >>> canonical_connection_name("doc-alias")
    'doc-example'
    """
    names = [name, *aliases]
    for n in names:
        if not isinstance(n, str) or not n.strip():
            raise ConnectionSpecError(f"Expected a non-empty string name, got {n!r}.")
        if _key(n) in _LOOKUP:
            raise ConnectionSpecError(
                f"Expected a new connection name, got {n!r}, which is registered "
                f"(for {_LOOKUP[_key(n)]!r})."
            )
    keys = [_key(n) for n in names]
    if len(set(keys)) != len(keys):
        raise ConnectionSpecError(f"Expected distinct names, got {names!r}.")
    _CANONICAL.append(keys[0])
    _LOOKUP.update(dict.fromkeys(keys, keys[0]))
