"""Multibody systems as networkx graphs: models, algorithms, closed chains, connections, I/O.

A robot is a :class:`networkx.DiGraph` whose nodes are bodies (with spatial inertias) and
whose edges are joints; loop joints, couplings and implicit constraints make it a closed
model. The subpackages, from the bottom layer up (each imports only the ones before it):

- :mod:`~geomech.multibody.connections` — body connections (one on SE(3) per body);
- :mod:`~geomech.multibody.algorithms` — RNEA, CRBA, ABA, kinematics, Coriolis matrices,
  Christoffel symbols, derivatives, the regressor: functions over a model;
- :mod:`~geomech.multibody.model` — joints, :class:`MultibodyModel` (a kinematic tree, a
  mechanical system whose fast overrides are the algorithms), its :class:`JointFrame` and
  its :class:`MultibodyConnection`;
- :mod:`~geomech.multibody.closed` — :class:`ClosedMultibodyModel`, a spanning tree plus
  constraints, and seed 004's cluster algorithms;
- :mod:`~geomech.multibody.io` — URDF and URDF+, built-in robots, shipped examples.

Below them, the private ``_kernels`` package holds the compiled (numba) kernels. Every name
listed here has one home in a subpackage; ``geomech`` re-exports the main ones.

Examples
--------
>>> from geomech.multibody import robots
>>> model = robots.double_pendulum()
>>> model.nq, model.nv, model.joint_names
(2, 2, ['joint1', 'joint2'])
"""

from geomech._lazy import attach
from geomech.multibody import _compat

#: where each name of this package lives (imported on first use, PEP 562)
_HOMES = {
    "geomech.multibody._kernels.driver": [
        "get_num_threads",
        "set_num_threads",
    ],
    "geomech.multibody.algorithms": [
        "ABASecondDerivatives",
        "BlockSparseTensor",
        "FrameTable",
        "RNEASecondDerivatives",
        "aba",
        "aba_derivatives",
        "aba_second_derivatives",
        "clamp_to_limits",
        "body_jacobians",
        "body_velocities",
        "center_of_mass",
        "center_of_mass_jacobian",
        "centroidal_inertia",
        "centroidal_momentum_matrix",
        "centroidal_momentum_matrix_rate",
        "christoffel_symbols",
        "coriolis_matrix",
        "coriolis_matrix_derivative",
        "coriolis_matrix_dense",
        "coriolis_matrix_differentiation",
        "coriolis_transpose_product",
        "crba",
        "forward_kinematics",
        "frame_acceleration",
        "frame_jacobian",
        "frame_jacobian_rate",
        "frame_names",
        "frame_placement",
        "frame_table",
        "frame_velocity",
        "gravity_forces",
        "joint_friction_torques",
        "joint_structure_constants",
        "joint_transforms",
        "kinetic_energy",
        "mass_matrix_derivative",
        "rnea",
        "rnea_derivatives",
        "rnea_second_derivatives",
        "second_derivatives_along",
        "slotine_li_regressor",
        "slotine_li_torques",
        "velocity_map",
    ],
    "geomech.multibody.closed": [
        "ClosedMultibodyModel",
        "ImplicitConstraint",
        "approximate_transmission_model",
        "inverse_operational_space_inertia",
        "link_reflected_inertia_model",
        "reflected_inertia",
        "unconstrained_transmission_model",
    ],
    "geomech.multibody.connections": [
        "NAMED_BODY_CONNECTIONS",
        "AffineConnectionBody",
        "BodyConnection",
        "BoltzmannHamelBody",
        "CallableBody",
        "CartanSchoutenBody",
        "LeviCivitaBody",
        "VelocityCrossBody",
        "body_connection",
        "body_connection_names",
        "register_body_connection",
    ],
    "geomech.multibody.io": [
        "load_urdf",
        "robots",
        "to_urdf",
    ],
    "geomech.multibody.model": [
        "Fixed",
        "FreeFlyer",
        "Helical",
        "Joint",
        "JointFrame",
        "MultibodyConnection",
        "MultibodyModel",
        "MultibodySystem",
        "Planar",
        "Prismatic",
        "Revolute",
        "SchoenfliesJoint",
        "Spherical",
        "check_inertia",
        "connection_report",
        "format_connection_report",
        "model_connection",
    ],
}


__all__ = [
    # model
    "MultibodyModel",
    "MultibodySystem",
    "JointFrame",
    "check_inertia",
    "Joint",
    "Revolute",
    "Prismatic",
    "Helical",
    "Spherical",
    "Planar",
    "SchoenfliesJoint",
    "FreeFlyer",
    "Fixed",
    # algorithms
    "rnea",
    "crba",
    "aba",
    "gravity_forces",
    "kinetic_energy",
    "joint_transforms",
    "forward_kinematics",
    "body_velocities",
    "body_jacobians",
    "velocity_map",
    "coriolis_matrix",
    "coriolis_matrix_dense",
    "coriolis_matrix_differentiation",
    "coriolis_transpose_product",
    "mass_matrix_derivative",
    "slotine_li_torques",
    "christoffel_symbols",
    "joint_structure_constants",
    "coriolis_matrix_derivative",
    "rnea_derivatives",
    "rnea_second_derivatives",
    "second_derivatives_along",
    "aba_derivatives",
    "aba_second_derivatives",
    "RNEASecondDerivatives",
    "ABASecondDerivatives",
    "BlockSparseTensor",
    "slotine_li_regressor",
    "FrameTable",
    "frame_table",
    "frame_names",
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
    # closed models
    "ClosedMultibodyModel",
    "ImplicitConstraint",
    "inverse_operational_space_inertia",
    "approximate_transmission_model",
    "unconstrained_transmission_model",
    "link_reflected_inertia_model",
    "reflected_inertia",
    # connections
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
    "MultibodyConnection",
    "model_connection",
    "connection_report",
    "format_connection_report",
    # io
    "load_urdf",
    "to_urdf",
    "robots",
    # threads of the batched kernels
    "set_num_threads",
    "get_num_threads",
]

_compat.install()

_lazy_getattr, __dir__ = attach(
    __name__,
    submodules=["algorithms", "closed", "connections", "io", "model"],
    names={name: module for module, names in _HOMES.items() for name in names},
)


def __getattr__(name: str):
    """The names above on first use; old submodule attributes (``geomech.multibody.dynamics``,
    ...) with a warning.
    """
    try:
        return _lazy_getattr(name)
    except AttributeError:
        old = f"{__name__}.{name}"
        if old in _compat.MOVED:
            return _compat.moved(old)
        raise
