"""The tree model: joints, the :class:`MultibodyModel` of a kinematic tree, and its frame.

- :mod:`~geomech.multibody.model.joints` — joint types (motion subspaces, poses, ``q ⊕ v``);
- :mod:`~geomech.multibody.model.tree` — :class:`MultibodyModel`: a networkx graph of bodies
  and joints in regular numbering, a :class:`~geomech.geometry.MechanicalSystem` whose fast
  overrides are the algorithms of :mod:`geomech.multibody.algorithms`;
- :mod:`~geomech.multibody.model.frame` — :class:`JointFrame`, the frame of its speeds;
- :mod:`~geomech.multibody.model.connection` — :class:`MultibodyConnection`, the affine
  connection a model inherits from its body connections, and the connection report.
"""

from geomech.multibody.model.connection import (
    MultibodyConnection,
    connection_report,
    format_connection_report,
    model_connection,
)
from geomech.multibody.model.frame import JointFrame
from geomech.multibody.model.joints import (
    Fixed,
    FreeFlyer,
    Helical,
    Joint,
    OneDoFJoint,
    Planar,
    Prismatic,
    Revolute,
    SchoenfliesJoint,
    Spherical,
)
from geomech.multibody.model.system import MultibodySystem
from geomech.multibody.model.tree import MultibodyModel, check_inertia

__all__ = [
    "MultibodyModel",
    "MultibodySystem",
    "check_inertia",
    "JointFrame",
    "Joint",
    "OneDoFJoint",
    "Revolute",
    "Prismatic",
    "Helical",
    "Spherical",
    "Planar",
    "SchoenfliesJoint",
    "FreeFlyer",
    "Fixed",
    "MultibodyConnection",
    "model_connection",
    "connection_report",
    "format_connection_report",
]
