"""Closed models: a spanning tree plus loop joints, couplings and implicit constraints (seed 004).

- :mod:`~geomech.multibody.closed.model` — :class:`ClosedMultibodyModel` and
  :class:`ImplicitConstraint`;
- :mod:`~geomech.multibody.closed.clusters` — the cluster partition and cluster graph;
- :mod:`~geomech.multibody.closed.dynamics` — C-RNEA, C-ABA, C-EFPA and the projection and
  Lagrange baselines; the approximate (reflected-inertia) model;
- :mod:`~geomech.multibody.closed.coriolis` — Coriolis matrices, Christoffel symbols and
  Slotine–Li torques of closed models (seed 000 Algs. 1–2 on clusters);
- :mod:`~geomech.multibody.closed.closures` — closures by a point (:class:`PointClosure`).
"""

from geomech.multibody.closed import closures, clusters, coriolis, dynamics
from geomech.multibody.closed.dynamics import inverse_operational_space_inertia, reflected_inertia
from geomech.multibody.closed.model import ClosedMultibodyModel, ImplicitConstraint

__all__ = [
    "ClosedMultibodyModel",
    "ImplicitConstraint",
    "inverse_operational_space_inertia",
    "reflected_inertia",
    "clusters",
    "closures",
    "dynamics",
    "coriolis",
]
