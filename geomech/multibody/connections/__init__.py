"""Body connections: the affine connection chosen on SE(3) for each body (seed 000 §VI).

- :mod:`~geomech.multibody.connections.body` — Levi-Civita, Cartan–Schouten (−, 0, +),
  Boltzmann–Hamel, velocity-cross and user-defined body connections, their names and the
  resolver; the algorithms of :mod:`geomech.multibody.algorithms` take them per body. The
  connection they induce on a model is :class:`~geomech.multibody.MultibodyConnection`.
"""

from geomech.multibody.connections.body import (
    NAMED_BODY_CONNECTIONS,
    AffineConnectionBody,
    BodyConnection,
    BoltzmannHamelBody,
    CallableBody,
    CartanSchoutenBody,
    LeviCivitaBody,
    VelocityCrossBody,
    body_connection,
    body_connection_names,
    register_body_connection,
)

__all__ = [
    "NAMED_BODY_CONNECTIONS",
    "BodyConnection",
    "LeviCivitaBody",
    "CartanSchoutenBody",
    "VelocityCrossBody",
    "BoltzmannHamelBody",
    "CallableBody",
    "AffineConnectionBody",
    "body_connection",
    "body_connection_names",
    "register_body_connection",
]
