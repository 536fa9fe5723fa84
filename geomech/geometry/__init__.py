r"""Affine connections, torsion, contorsion and Coriolis factorizations (seed 000 §III–IV).

A :class:`MechanicalSystem` is a configuration manifold with a frame :math:`X_i`
(:math:`\dot q = X_i v^i`), a metric :math:`H(q)` and a potential. An
:class:`AffineConnection` is given by its first-kind coefficients
:math:`\Gamma_{ijk} = \langle\!\langle X_i, \nabla_{X_j} X_k\rangle\!\rangle` and defines the
Coriolis factorization :math:`C_{ik} = \Gamma_{ijk} v^j` (seed 000 eq. 10). The
:class:`LeviCivitaConnection` (Koszul, eq. 8) gives :math:`C^\star`; adding a totally
antisymmetric :class:`Contorsion` gives every other skew-symmetric, correct factorization
(Cor. IV.1).

Examples
--------
>>> import numpy as np
>>> from geomech.geometry import LeviCivitaConnection
>>> from geomech.geometry.examples import rigid_body_so3
>>> lc = LeviCivitaConnection(rigid_body_so3(np.diag([1.0, 2.0, 3.0])))
>>> bool(lc.is_metric_compatible(np.eye(3))), bool(lc.is_torsion_free(np.eye(3)))
(True, True)
"""

from geomech.geometry import examples, examples_induced
from geomech.geometry.cartan import CartanSchoutenConnection
from geomech.geometry.checks import CheckResult
from geomech.geometry.closed_chain import ClosedChain, LoopClosureFrame
from geomech.geometry.connection import AffineConnection
from geomech.geometry.contorsion import Contorsion, SymmetryReport
from geomech.geometry.frames import (
    CoordinateFrame,
    CustomFrame,
    Frame,
    LeftInvariantFrame,
    RightInvariantFrame,
)
from geomech.geometry.geodesics import Trajectory, integrate_geodesic, integrate_parallel_transport
from geomech.geometry.induced import InducedConnection
from geomech.geometry.levi_civita import LeviCivitaConnection
from geomech.geometry.resolution import resolve_connection
from geomech.geometry.system import MechanicalSystem, as_mechanical_system
from geomech.geometry.transformation import task_space_coriolis, transform_coriolis

__all__ = [
    "MechanicalSystem",
    "as_mechanical_system",
    "resolve_connection",
    "AffineConnection",
    "LeviCivitaConnection",
    "CartanSchoutenConnection",
    "Contorsion",
    "SymmetryReport",
    "CheckResult",
    "Frame",
    "LeftInvariantFrame",
    "RightInvariantFrame",
    "CoordinateFrame",
    "CustomFrame",
    "Trajectory",
    "integrate_geodesic",
    "integrate_parallel_transport",
    "examples",
    "InducedConnection",
    "transform_coriolis",
    "task_space_coriolis",
    "ClosedChain",
    "LoopClosureFrame",
    "examples_induced",
]
