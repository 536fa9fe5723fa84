"""Algorithms over a model: dynamics, kinematics, Coriolis, Christoffel, derivatives, regressor.

Each public function validates its inputs, runs one compiled kernel of
``geomech.multibody._kernels`` over the flattened batch, and raises the named error of a
failed state. On a closed model the same function runs seed 004's cluster algorithm: it asks
the model (``model.ALGORITHMS``, one table in :mod:`geomech.multibody.closed.model`).

- :mod:`~geomech.multibody.algorithms.dynamics` — RNEA, CRBA, ABA, gravity, kinetic energy;
- :mod:`~geomech.multibody.algorithms.kinematics` — poses, twists, body Jacobians;
- :mod:`~geomech.multibody.algorithms.frames` — operational frames: placements, velocities,
  accelerations, Jacobians and their rates (Pinocchio's three references);
- :mod:`~geomech.multibody.algorithms.centroidal` — centre of mass, its Jacobian, the centroidal
  momentum matrix and its rate, the centroidal inertia;
- :mod:`~geomech.multibody.algorithms.coriolis` — Coriolis matrices from body connections
  (seed 000 Alg. 1, seed 001), Ḣ, Slotine–Li torques, the derivative of C along a
  direction;
- :mod:`~geomech.multibody.algorithms.christoffel` — Christoffel symbols (seed 000 Alg. 2),
  dense or block-sparse (:mod:`~geomech.multibody.algorithms.blocksparse`);
- :mod:`~geomech.multibody.algorithms.derivatives` — first and second order derivatives of
  the dynamics (seed 002);
- :mod:`~geomech.multibody.algorithms.regressor` — the Slotine–Li regressor.
"""

from geomech._lazy import attach

#: where each name of this package lives (imported on first use, PEP 562: `rnea` does
#: not import the kernels of the derivatives)
_HOMES = {
    "centroidal": [
        "center_of_mass",
        "center_of_mass_jacobian",
        "centroidal_inertia",
        "centroidal_momentum_matrix",
        "centroidal_momentum_matrix_rate",
    ],
    "blocksparse": [
        "BlockSparseTensor",
    ],
    "christoffel": [
        "christoffel_symbols",
        "joint_structure_constants",
    ],
    "coriolis": [
        "coriolis_matrix",
        "coriolis_matrix_dense",
        "coriolis_matrix_derivative",
        "coriolis_matrix_differentiation",
        "coriolis_transpose_product",
        "mass_matrix_derivative",
        "slotine_li_torques",
    ],
    "derivatives": [
        "ABASecondDerivatives",
        "RNEASecondDerivatives",
        "aba_derivatives",
        "aba_second_derivatives",
        "rnea_derivatives",
        "rnea_second_derivatives",
        "second_derivatives_along",
    ],
    "dynamics": [
        "aba",
        "clamp_to_limits",
        "crba",
        "gravity_forces",
        "joint_friction_torques",
        "kinetic_energy",
        "rnea",
    ],
    "frames": [
        "FrameTable",
        "frame_acceleration",
        "frame_jacobian",
        "frame_jacobian_rate",
        "frame_names",
        "frame_placement",
        "frame_table",
        "frame_velocity",
    ],
    "kinematics": [
        "body_jacobians",
        "body_velocities",
        "forward_kinematics",
        "joint_transforms",
        "velocity_map",
    ],
    "regressor": [
        "slotine_li_regressor",
    ],
}

__all__ = [
    "rnea",
    "crba",
    "aba",
    "gravity_forces",
    "kinetic_energy",
    "joint_friction_torques",
    "clamp_to_limits",
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
]

__getattr__, __dir__ = attach(
    __name__,
    submodules=list(_HOMES),
    names={name: f"{__name__}.{module}" for module, names in _HOMES.items() for name in names},
)
