"""geomech: geometric mechanics in Python.

Configuration manifolds (:mod:`geomech.lie`), spatial vector algebra (:mod:`geomech.spatial`),
affine connections and Coriolis factorizations (:mod:`geomech.geometry`) and multibody systems
as networkx graphs (:mod:`geomech.multibody`, whose main names are re-exported here), and
:func:`simulate` (:mod:`geomech.simulation`) to integrate any of them under a controller.

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

from geomech._lazy import attach

#: The multibody names re-exported here (their one home is a subpackage of geomech.multibody).
_MULTIBODY = [
    "MultibodyModel",
    "aba",
    "aba_derivatives",
    "aba_second_derivatives",
    "body_jacobians",
    "body_velocities",
    "center_of_mass",
    "center_of_mass_jacobian",
    "centroidal_inertia",
    "centroidal_momentum_matrix",
    "centroidal_momentum_matrix_rate",
    "christoffel_symbols",
    "coriolis_matrix",
    "crba",
    "forward_kinematics",
    "frame_acceleration",
    "frame_jacobian",
    "frame_jacobian_rate",
    "frame_placement",
    "frame_velocity",
    "gravity_forces",
    "inverse_operational_space_inertia",
    "kinetic_energy",
    "load_urdf",
    "mass_matrix_derivative",
    "model_connection",
    "rnea",
    "rnea_derivatives",
    "rnea_second_derivatives",
    "robots",
    "slotine_li_torques",
    "to_urdf",
    "velocity_map",
]

# Everything is imported on first use (PEP 562): `import geomech` stays a few milliseconds,
# `geomech.rnea` imports numba and the dynamics kernels, `geomech.lie` neither.
__getattr__, __dir__ = attach(
    __name__,
    submodules=[
        "control",
        "errors",
        "geometry",
        "interop",
        "lie",
        "multibody",
        "rigidbody",
        "simulation",
        "spatial",
    ],
    names={
        "GeomechError": "geomech.errors",
        "task_space_coriolis": "geomech.geometry",
        "from_pinocchio": "geomech.interop.pinocchio",
        "to_pinocchio": "geomech.interop.pinocchio",
        "to_pinocchio_closed": "geomech.interop.pinocchio",
        **dict.fromkeys(_MULTIBODY, "geomech.multibody"),
        "RigidBody": "geomech.rigidbody",
        "SimulationResult": "geomech.simulation",
        "simulate": "geomech.simulation",
    },
)

__all__ = [
    "control",
    "errors",
    "interop",
    "to_pinocchio",
    "to_pinocchio_closed",
    "from_pinocchio",
    "geometry",
    "lie",
    "multibody",
    "spatial",
    "rigidbody",
    "simulation",
    "simulate",
    "SimulationResult",
    "RigidBody",
    "coriolis_matrix",
    "christoffel_symbols",
    "mass_matrix_derivative",
    "slotine_li_torques",
    "model_connection",
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
    "rnea_derivatives",
    "rnea_second_derivatives",
    "aba_derivatives",
    "aba_second_derivatives",
    "inverse_operational_space_inertia",
    "forward_kinematics",
    "body_velocities",
    "body_jacobians",
    "velocity_map",
    "frame_placement",
    "frame_velocity",
    "frame_acceleration",
    "frame_jacobian",
    "frame_jacobian_rate",
    "center_of_mass",
    "center_of_mass_jacobian",
    "centroidal_momentum_matrix",
    "centroidal_momentum_matrix_rate",
    "centroidal_inertia",
    "task_space_coriolis",
    "__version__",
]

#: The version of geomech (the one place it is written; pyproject.toml reads it).
__version__ = "0.2.0"
