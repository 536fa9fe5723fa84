"""geomech: geometric mechanics in Python.

Configuration manifolds (:mod:`geomech.lie`), spatial vector algebra (:mod:`geomech.spatial`),
affine connections and Coriolis factorizations (:mod:`geomech.geometry`) and multibody systems
as networkx graphs (:mod:`geomech.multibody`, whose main names are re-exported here).

Examples
--------
>>> import numpy as np
>>> import geomech as gm
>>> R = gm.lie.SO3.exp([0.0, 0.0, np.pi / 2])
>>> np.round(R @ [1.0, 0.0, 0.0], 12)
array([0., 1., 0.])
>>> model = gm.robots.double_pendulum()
>>> gm.crba(model, [0.0, 0.0]).shape
(2, 2)
"""

from geomech import errors, geometry, lie, multibody, spatial
from geomech.errors import GeomechError
from geomech.multibody import (
    MultibodyModel,
    aba,
    body_jacobians,
    body_velocities,
    crba,
    forward_kinematics,
    gravity_forces,
    kinetic_energy,
    load_urdf,
    rnea,
    robots,
    to_urdf,
    velocity_map,
)

__all__ = [
    "errors",
    "geometry",
    "lie",
    "multibody",
    "spatial",
    "robots",
    "GeomechError",
    "MultibodyModel",
    "load_urdf",
    "to_urdf",
    "rnea",
    "crba",
    "aba",
    "gravity_forces",
    "kinetic_energy",
    "forward_kinematics",
    "body_velocities",
    "body_jacobians",
    "velocity_map",
    "__version__",
]

__version__ = "0.1.0"
