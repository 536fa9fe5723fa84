r"""Per-body connections of a model and their factor tensors (shared by the Coriolis algorithms).

A private module meant for sharing: :mod:`geomech.multibody.algorithms.coriolis`,
:mod:`geomech.multibody.algorithms.regressor` and :mod:`geomech.multibody.model.connection` resolve
a ``connection`` argument (a name, an object, or a mapping body name -> connection) into one
:class:`~geomech.multibody.connections.body.BodyConnection` per body here, and the compiled
kernels read the body factors :math:`\mathbf B(\mathbf I, \mathbf v)` as constant tensors built
here (cached per model).
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping

import numpy as np

from geomech.errors import ConnectionSpecError, DimensionError
from geomech.multibody._kernels.driver import call, states
from geomech.multibody.connections.body import (
    AffineConnectionBody,
    BodyConnection,
    BoltzmannHamelBody,
    CartanSchoutenBody,
    LeviCivitaBody,
    VelocityCrossBody,
    body_connection,
)


# ----------------------------------------------------------------------------------------
# body connections as constant tensors (shared with regressor.py and system_connection.py)
# ----------------------------------------------------------------------------------------
def _batch(*shapes) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError as exc:
        raise DimensionError(
            "Expected the leading (batch) dimensions of the inputs to broadcast, "
            f"got {list(shapes)}."
        ) from exc


def _body_connections(model, connection) -> list[BodyConnection]:
    """One :class:`BodyConnection` per body, from a spec or a mapping body name -> spec."""
    if isinstance(connection, Mapping):
        names = model.body_names
        unknown = [k for k in connection if k not in names]
        if unknown:
            raise ConnectionSpecError(
                f"Expected the keys of `connection` to be body names of the model, got "
                f"{unknown[0]!r} (bodies: {names})."
            )
        specs = [connection.get(name, "levi-civita") for name in names]
    else:
        specs = [connection] * model.n_bodies
    conns = []
    cache: dict[int, BodyConnection] = {}
    for i, spec in enumerate(specs):
        try:
            conn = cache.get(id(spec)) if not isinstance(spec, str) else None
            if conn is None:
                conn = body_connection(spec)
                if not isinstance(spec, str):
                    cache[id(spec)] = conn
            conn._check(model.inertias[i], f"body {model.body_names[i]!r}")
        except ConnectionSpecError as exc:
            raise ConnectionSpecError(
                f"`connection` of body {model.body_names[i]!r}: {exc}"
            ) from None
        conns.append(conn)
    return conns


def _body_B(conn: BodyConnection, inertia, v_i, model, i) -> np.ndarray:
    """B_i = C_i - I_i (v_i x) of one body, with the output shape checked."""
    try:
        B = np.asarray(conn._B(inertia, v_i), dtype=float)
    except ConnectionSpecError as exc:
        raise ConnectionSpecError(f"`connection` of body {model.body_names[i]!r}: {exc}") from None
    want = np.broadcast_shapes(np.shape(inertia)[:-2], v_i.shape[:-1]) + (6, 6)
    if B.shape != want:
        if B.shape[-2:] == (6, 6) and B.ndim <= len(want):
            return np.broadcast_to(B, want)
        raise ConnectionSpecError(
            f"`connection` of body {model.body_names[i]!r}: expected the body Coriolis matrix "
            f"to have shape {want}, got {B.shape}."
        )
    return B


#: Connections whose ``_B`` is vectorised over inertias and twists by construction.
_BUILT_IN = (
    LeviCivitaBody,
    CartanSchoutenBody,
    VelocityCrossBody,
    BoltzmannHamelBody,
    AffineConnectionBody,
)
_UNIT = np.eye(6)
#: A generic twist at which a user connection's linearity in the twist is checked.
_PROBE = np.array([0.31, -0.72, 0.55, 1.13, -0.27, 0.86])
#: Tensors kept per model (the oldest is dropped beyond this many specifications).
_CACHE_SIZE = 32
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LAST: dict = {}  # kind -> (weak model, key, value) of the last lookup


def _spec_key(connection):
    """A hashable key of a connection specification, or None (then nothing is cached)."""
    if type(connection) is str:
        return connection
    try:
        if isinstance(connection, Mapping):
            key = ("mapping",) + tuple(sorted(connection.items()))
        else:
            key = ("spec", connection)
        hash(key)
    except TypeError:
        return None
    return key


def _cached(model, kind: str, connection, build):
    """``build()`` cached per (model, kind, connection) for hashable specifications."""
    key = _spec_key(connection)
    if key is None:
        return build()
    last = _LAST.get(kind)  # the common case: the same model and specification again
    if last is not None and last[0]() is model and last[1] == key:
        return last[2]
    per_model = _CACHE.get(model)
    if per_model is None:
        per_model = _CACHE[model] = {}
    key = (kind, key)
    value = per_model.get(key)
    if value is None:
        value = build()
        if len(per_model) >= _CACHE_SIZE:
            per_model.pop(next(iter(per_model)))
        per_model[key] = value
    _LAST[kind] = (weakref.ref(model), key[1], value)
    return value


def _user_factor_tensor(conn: BodyConnection, model, i: int) -> np.ndarray:
    """``Bt[j] = B(I_i, e_j)`` of a user connection, one twist at a time, linearity checked."""
    inertia = model.inertias[i]
    Bt = np.stack([_body_B(conn, inertia, e, model, i) for e in _UNIT])
    direct = _body_B(conn, inertia, _PROBE, model, i)
    err = float(np.max(np.abs(direct - np.einsum("j,jab->ab", _PROBE, Bt))))
    if not err <= 1e-9 * (1.0 + float(np.max(np.abs(direct)))):
        raise ConnectionSpecError(
            f"`connection` of body {model.body_names[i]!r}: expected the body Coriolis matrix "
            f"C(I, v) to be linear in the twist v (a connection), got |C(v) - sum_j v^j C(e_j)| "
            f"= {err:.3g}."
        )
    return Bt


def _build_factor_tensors(model, connection) -> tuple[np.ndarray, bool]:
    conns = _body_connections(model, connection)
    Bt = np.empty((model.n_bodies, 6, 6, 6))
    groups: dict[int, tuple[BodyConnection, list[int]]] = {}
    for i, conn in enumerate(conns):
        groups.setdefault(id(conn), (conn, []))[1].append(i)
    for conn, bodies in groups.values():
        if type(conn) in _BUILT_IN:  # all bodies and unit twists at once: (n, j, 6, 6)
            Bt[bodies] = conn._B(model.inertias[bodies][:, None], _UNIT)
        else:
            for i in bodies:
                Bt[i] = _user_factor_tensor(conn, model, i)
    return Bt, all(type(conn) is LeviCivitaBody for conn in conns)


def _factor_tensors(model, connection) -> tuple[np.ndarray, bool]:
    r"""``Bt`` (N, 6, 6, 6) with :math:`\mathbf B_i(\mathbf v) = \sum_j v^j\,\mathtt{Bt}[i, j]`.

    Every body connection is left-invariant and linear in the twist, :math:`\mathbf C(\mathbf
    I, \mathbf v)_{ik} = \Gamma_{ijk}(\mathbf I)v^j`, so its factor :math:`\mathbf B =
    \mathbf C - \mathbf I(\mathbf v\times)` is one constant tensor per body, evaluated once
    (at the unit twists) and cached per model and hashable specification; the connections'
    checks (``_check``, output shapes, linearity of user connections) run when it is built.
    Returned with a flag: whether every body uses the Levi-Civita connection (the kernels'
    closed form of seed 000 eq. 21).
    """
    return _cached(model, "factors", connection, lambda: _build_factor_tensors(model, connection))


#: names of the per-state kernel inputs S, S_ring, T_user, q, v (the joint arrays named after
#: the input they are computed from)
_QV = ("q", "v", "q", "q", "v")


def _call_kernel(kernel, cm, model, connection, inputs, names, out_shape, what):
    """Validate ``inputs`` (name, value, trailing), run ``kernel`` with the factor tensors.

    ``names`` name the kernel's per-state inputs, the joint arrays after the input they are
    computed from (``q``, ``v``, ``q``) so that a failure names what the user passed.
    """
    batch, B, arrays = states(*inputs, per_state=math.prod(out_shape))
    factors = _factor_tensors(model, connection)
    out = np.empty((B,) + out_shape)
    call(
        kernel,
        (*cm.arrays(), *factors),
        (*cm.joint_arrays(arrays[0], arrays[1]), *arrays, out),
        batch,
        model,
        names=names,
        what=what,
    )
    return out.reshape(batch + out_shape)
