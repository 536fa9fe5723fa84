"""Single rigid bodies on Lie groups: singularity-free dynamics in quasi-velocities (seed 003).

A rigid body on SO(3), SE(3), SE(2), the Schönflies group, ``R^n`` or a product of these has
state ``(g, v)`` with ``ġ = g v̂`` and the Boltzmann–Hamel / Euler–Poincaré equations
``M v̇ - ad_vᵀ M v + n(g) = τ`` (seed 003 Prop. 5.1, with the paper's errata corrected).
Velocities are body velocities in geomech's angular-first order; the paper's linear-first
order is converted in :mod:`geomech.rigidbody.embedding`.

Modules: :mod:`~geomech.rigidbody.body` (:class:`RigidBody`), :mod:`~.potential` (gravity),
:mod:`~.equations` (the paper's scalar equations), :mod:`~.charts` (exponential coordinates,
Euler angles), :mod:`~.local` (the equations in a chart), :mod:`~.integrators` (RKMK),
:mod:`~.literature` (the Duindam–Stramigioli error), :mod:`~.embedding` (subgroups of SE(3)
and the paper's coordinate order).

Examples
--------
>>> import numpy as np
>>> from geomech.lie import SO3
>>> from geomech.rigidbody import RigidBody
>>> body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))
>>> body.coriolis_force([0.1, -0.2, 0.3])  # -ad_vᵀ M v = ω × Mω (fixture F1)
array([-0.06, -0.06, -0.02])
"""

from geomech.integration import RKMK
from geomech.rigidbody.body import RigidBody, ad_tilde
from geomech.rigidbody.charts import (
    SINGULAR_TOL,
    Chart,
    EulerZYX,
    ExponentialChart,
    PlanarChart,
    dexp_series,
)
from geomech.rigidbody.embedding import (
    embed_in_se3,
    inertia_from_paper,
    inertia_to_paper,
    paper_permutation,
    selection_matrix,
    twist_from_paper,
    twist_to_paper,
)
from geomech.rigidbody.equations import (
    euler_equations,
    kirchhoff_equations,
    newton_euler_equations,
    planar_equations,
    schoenflies_equations,
)
from geomech.rigidbody.integrators import (
    INTEGRATORS,
    LIE_EULER,
    RKMK2,
    RKMK4,
    get_integrator,
    integrate,
)
from geomech.rigidbody.literature import (
    LiteratureComparison,
    compare_with_duindam_stramigioli,
    duindam_stramigioli_coriolis,
    duindam_stramigioli_forward_dynamics,
)
from geomech.rigidbody.local import (
    boltzmann_hamel_coefficients,
    chart_coriolis_matrix,
    local_coriolis_matrix,
    local_forward_dynamics,
    local_gravity_forces,
    local_inverse_dynamics,
    local_mass_matrix,
)
from geomech.rigidbody.potential import GRAVITY, Potential, UniformGravity

__all__ = [
    # body.py
    "RigidBody",
    "ad_tilde",
    # potential.py
    "Potential",
    "UniformGravity",
    "GRAVITY",
    # equations.py
    "euler_equations",
    "newton_euler_equations",
    "kirchhoff_equations",
    "planar_equations",
    "schoenflies_equations",
    # charts.py
    "Chart",
    "ExponentialChart",
    "EulerZYX",
    "PlanarChart",
    "dexp_series",
    "SINGULAR_TOL",
    # local.py
    "local_mass_matrix",
    "local_coriolis_matrix",
    "local_gravity_forces",
    "local_inverse_dynamics",
    "local_forward_dynamics",
    "boltzmann_hamel_coefficients",
    "chart_coriolis_matrix",
    # integrators.py
    "RKMK",
    "LIE_EULER",
    "RKMK2",
    "RKMK4",
    "INTEGRATORS",
    "get_integrator",
    "integrate",
    # literature.py
    "duindam_stramigioli_coriolis",
    "duindam_stramigioli_forward_dynamics",
    "LiteratureComparison",
    "compare_with_duindam_stramigioli",
    # embedding.py
    "paper_permutation",
    "twist_from_paper",
    "twist_to_paper",
    "inertia_from_paper",
    "inertia_to_paper",
    "selection_matrix",
    "embed_in_se3",
]
