"""Closed models: a spanning tree plus loop joints, couplings and implicit constraints (seed 004).

- :mod:`~geomech.multibody.closed.model` — :class:`ClosedMultibodyModel` and
  :class:`ImplicitConstraint`;
- :mod:`~geomech.multibody.closed.clusters` — the cluster partition and cluster graph;
- :mod:`~geomech.multibody.closed.dynamics` — C-RNEA, C-ABA, C-EFPA and the projection and
  Lagrange baselines; the link reflected-inertia model;
- :mod:`~geomech.multibody.closed.transmission` — seed 004's approximate (joint-space
  reflected inertia) and unconstrained models of a geared model;
- :mod:`~geomech.multibody.closed.coriolis` — Coriolis matrices, Christoffel symbols and
  Slotine–Li torques of closed models (seed 000 Algs. 1–2 on clusters);
- :mod:`~geomech.multibody.closed.closures` — closures by a point (:class:`PointClosure`).
"""

from geomech.multibody.closed import closures, clusters, coriolis, dynamics, transmission
from geomech.multibody.closed.dynamics import (
    inverse_operational_space_inertia,
    link_reflected_inertia_model,
    reflected_inertia,
)
from geomech.multibody.closed.model import ClosedMultibodyModel, ImplicitConstraint
from geomech.multibody.closed.transmission import (
    approximate_transmission_model,
    unconstrained_transmission_model,
)

__all__ = [
    "ClosedMultibodyModel",
    "ImplicitConstraint",
    "inverse_operational_space_inertia",
    "approximate_transmission_model",
    "unconstrained_transmission_model",
    "link_reflected_inertia_model",
    "reflected_inertia",
    "transmission",
    "clusters",
    "closures",
    "dynamics",
    "coriolis",
]
