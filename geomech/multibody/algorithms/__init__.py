"""Algorithms over a model: dynamics, kinematics, Coriolis, Christoffel, derivatives, regressor.

Each public function validates its inputs, runs one compiled kernel of
:mod:`geomech.multibody._kernels` over the flattened batch, and raises the named error of a
failed state. On a closed model the same function runs seed 004's cluster algorithm: it asks
the model (``model.ALGORITHMS``, one table in :mod:`geomech.multibody.closed.model`).

- :mod:`~geomech.multibody.algorithms.dynamics` — RNEA, CRBA, ABA, gravity, kinetic energy;
- :mod:`~geomech.multibody.algorithms.kinematics` — poses, twists, body Jacobians;
- :mod:`~geomech.multibody.algorithms.frames` — operational frames: placements, velocities,
  accelerations, Jacobians and their rates (Pinocchio's three references);
- :mod:`~geomech.multibody.algorithms.centroidal` — centre of mass, its Jacobian, the centroidal
  momentum matrix and its rate, the centroidal inertia;
- :mod:`~geomech.multibody.algorithms.coriolis` — Coriolis matrices from body connections
  (seed 000 Alg. 1, seed 001), Ḣ, Slotine–Li torques;
- :mod:`~geomech.multibody.algorithms.christoffel` — Christoffel symbols (seed 000 Alg. 2);
- :mod:`~geomech.multibody.algorithms.derivatives` — first and second order derivatives of
  the dynamics (seed 002);
- :mod:`~geomech.multibody.algorithms.regressor` — the Slotine–Li regressor.
"""

from geomech.multibody.algorithms.centroidal import (
    center_of_mass,
    center_of_mass_jacobian,
    centroidal_inertia,
    centroidal_momentum_matrix,
    centroidal_momentum_matrix_rate,
)
from geomech.multibody.algorithms.christoffel import christoffel_symbols, joint_structure_constants
from geomech.multibody.algorithms.coriolis import (
    coriolis_matrix,
    coriolis_matrix_dense,
    coriolis_matrix_differentiation,
    coriolis_transpose_product,
    mass_matrix_derivative,
    slotine_li_torques,
)
from geomech.multibody.algorithms.derivatives import (
    ABASecondDerivatives,
    BlockSparseTensor,
    RNEASecondDerivatives,
    aba_derivatives,
    aba_second_derivatives,
    rnea_derivatives,
    rnea_second_derivatives,
)
from geomech.multibody.algorithms.dynamics import aba, crba, gravity_forces, kinetic_energy, rnea
from geomech.multibody.algorithms.frames import (
    FrameTable,
    frame_acceleration,
    frame_jacobian,
    frame_jacobian_rate,
    frame_names,
    frame_placement,
    frame_table,
    frame_velocity,
)
from geomech.multibody.algorithms.kinematics import (
    body_jacobians,
    body_velocities,
    forward_kinematics,
    joint_transforms,
    velocity_map,
)
from geomech.multibody.algorithms.regressor import slotine_li_regressor

__all__ = [
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
    "rnea_derivatives",
    "rnea_second_derivatives",
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
]
