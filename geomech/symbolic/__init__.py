r"""Symbolic mechanics of small kinematic trees, for teaching and as the numeric kernels' oracle.

:class:`SymbolicModel` derives :math:`\mathbf H`, :math:`\mathbf C` (any body connection),
:math:`\Gamma`, :math:`\mathbf g` and :math:`T` of a :class:`~geomech.multibody.MultibodyModel`
with sympy, from the model graph and the textbook formulas (:mod:`geomech.symbolic.model`);
``geomech.symbolic._spatial`` holds the symbolic spatial algebra it is built on.

sympy is an optional dependency (``pip install 'geomech[symbolic]'``): importing this package
without it raises :class:`~geomech.errors.OptionalDependencyError`; ``import geomech`` never
needs it.

Examples
--------
>>> from geomech.multibody import robots
>>> from geomech.symbolic import SymbolicModel
>>> SymbolicModel(robots.double_pendulum()).mass_matrix()[0, 1]
cos(q2) + 1
"""

from geomech.symbolic.model import MAX_DOF, SymbolicModel

__all__ = ["MAX_DOF", "SymbolicModel"]
