"""Test shim: the geomech <-> Pinocchio correspondence now lives in :mod:`geomech.interop.pinocchio`.

Kept so that the tests and benchmarks that import ``pinocchio_bridge`` keep working:
``to_pinocchio(model)`` here returns the :class:`~geomech.interop.pinocchio.PinocchioBridge`
of ``model`` and its Pinocchio model (the public ``to_pinocchio`` returns the
``pinocchio.Model`` alone), and ``Bridge.gm`` is the geomech model.
"""

from __future__ import annotations

from geomech.interop.pinocchio import (
    PinocchioBridge,
    twist_from_pin,
    twist_to_pin,
    wrench_from_pin,
    wrench_to_pin,
)
from geomech.interop.pinocchio import inertia_to_pin as pin_inertia
from geomech.interop.pinocchio import se3_to_pin as pin_se3
from geomech.interop.pinocchio import to_pinocchio as _to_pinocchio

__all__ = [
    "Bridge",
    "to_pinocchio",
    "match_by_name",
    "twist_to_pin",
    "twist_from_pin",
    "wrench_to_pin",
    "wrench_from_pin",
    "pin_inertia",
    "pin_se3",
]


class Bridge(PinocchioBridge):
    """:class:`PinocchioBridge` with the old attribute name ``gm`` for the geomech model."""

    @property
    def gm(self):
        return self.model


def to_pinocchio(model) -> Bridge:
    """The bridge between ``model`` and its Pinocchio model built joint by joint."""
    return Bridge(model, _to_pinocchio(model))


def match_by_name(model, pin_model, joint_name_of_body) -> Bridge:
    """Pair a geomech model with a Pinocchio model of the same URDF by joint name."""
    names = [joint_name_of_body(i) for i in range(model.n_bodies)]
    if names != list(model.joint_names):
        raise NotImplementedError("the bridge pairs joints by the model's own joint names")
    return Bridge(model, pin_model)
