"""Multibody systems as networkx graphs: joints, tree model, URDF, robots, kinematics, dynamics.

A robot is a :class:`networkx.DiGraph` whose nodes are bodies (with spatial inertias) and
whose edges are joints (:mod:`geomech.multibody.joints`); :class:`MultibodyModel` derives
the regular numbering, parent array and ``q``/``v`` layout that the recursive algorithms of
:mod:`geomech.multibody.kinematics` and :mod:`geomech.multibody.dynamics` use.

Examples
--------
>>> from geomech.multibody import robots
>>> model = robots.double_pendulum()
>>> model.nq, model.nv, model.joint_names
(2, 2, ['joint1', 'joint2'])
"""

from geomech.multibody import (
    body_connections,
    christoffel,
    closed_coriolis,
    closed_dynamics,
    clusters,
    coriolis,
    derivatives,
    dynamics,
    joints,
    kinematics,
    loops,
    model,
    regressor,
    robots,
    system_connection,
    urdf,
    urdf_plus,
)
from geomech.multibody.body_connections import (
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
from geomech.multibody.christoffel import christoffel_symbols, joint_structure_constants
from geomech.multibody.closed_dynamics import inverse_operational_space_inertia, reflected_inertia
from geomech.multibody.coriolis import (
    coriolis_matrix,
    coriolis_matrix_dense,
    coriolis_matrix_differentiation,
    coriolis_transpose_product,
    mass_matrix_derivative,
    slotine_li_torques,
)
from geomech.multibody.derivatives import (
    ABASecondDerivatives,
    BlockSparseTensor,
    RNEASecondDerivatives,
    aba_derivatives,
    aba_second_derivatives,
    rnea_derivatives,
    rnea_second_derivatives,
)
from geomech.multibody.dynamics import aba, crba, gravity_forces, kinetic_energy, rnea
from geomech.multibody.joints import (
    Fixed,
    FreeFlyer,
    Helical,
    Joint,
    Planar,
    Prismatic,
    Revolute,
    SchoenfliesJoint,
    Spherical,
)
from geomech.multibody.kinematics import (
    body_jacobians,
    body_velocities,
    forward_kinematics,
    joint_transforms,
    velocity_map,
)
from geomech.multibody.loops import ClosedMultibodyModel, ImplicitConstraint
from geomech.multibody.model import MultibodyModel, check_inertia
from geomech.multibody.regressor import slotine_li_regressor
from geomech.multibody.system_connection import (
    MultibodyConnection,
    connection_report,
    format_connection_report,
    model_connection,
)
from geomech.multibody.urdf import load_urdf, to_urdf

__all__ = [
    "joints",
    "model",
    "urdf",
    "robots",
    "kinematics",
    "dynamics",
    "Joint",
    "Revolute",
    "Prismatic",
    "Helical",
    "Spherical",
    "Planar",
    "SchoenfliesJoint",
    "FreeFlyer",
    "Fixed",
    "MultibodyModel",
    "ClosedMultibodyModel",
    "ImplicitConstraint",
    "loops",
    "clusters",
    "closed_dynamics",
    "closed_coriolis",
    "urdf_plus",
    "check_inertia",
    "load_urdf",
    "to_urdf",
    "joint_transforms",
    "forward_kinematics",
    "body_velocities",
    "body_jacobians",
    "velocity_map",
    "rnea",
    "crba",
    "aba",
    "gravity_forces",
    "kinetic_energy",
    "derivatives",
    "rnea_derivatives",
    "rnea_second_derivatives",
    "aba_derivatives",
    "aba_second_derivatives",
    "RNEASecondDerivatives",
    "ABASecondDerivatives",
    "BlockSparseTensor",
    "inverse_operational_space_inertia",
    "reflected_inertia",
    "body_connections",
    "christoffel",
    "coriolis",
    "regressor",
    "slotine_li_regressor",
    "system_connection",
    "NAMED_BODY_CONNECTIONS",
    "AffineConnectionBody",
    "BodyConnection",
    "CallableBody",
    "CartanSchoutenBody",
    "LeviCivitaBody",
    "BoltzmannHamelBody",
    "VelocityCrossBody",
    "body_connection",
    "body_connection_names",
    "register_body_connection",
    "christoffel_symbols",
    "joint_structure_constants",
    "coriolis_matrix",
    "coriolis_matrix_dense",
    "coriolis_matrix_differentiation",
    "coriolis_transpose_product",
    "mass_matrix_derivative",
    "slotine_li_torques",
    "MultibodyConnection",
    "connection_report",
    "format_connection_report",
    "model_connection",
]
