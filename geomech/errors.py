"""Exceptions raised by geomech.

Every error geomech raises on purpose is a :class:`GeomechError`. Each subclass also derives
from the matching built-in exception (``ValueError``, ``TypeError``, ``ArithmeticError`` or
``RuntimeError``) so that code written against the standard library keeps working; the test
``tests/test_architecture.py`` scans the source so that no public code raises anything else.

Examples
--------
>>> import geomech as gm
>>> issubclass(gm.errors.DimensionError, ValueError)
True
"""

__all__ = [
    "GeomechError",
    "DimensionError",
    "DTypeError",
    "NonFiniteError",
    "NotOnManifoldError",
    "InertiaError",
    "SingularityError",
    "ConvergenceError",
    "ModelError",
    "NotATreeError",
    "ImmutableModelError",
    "URDFError",
    "ConnectionSpecError",
    "SimulationError",
    "ParameterError",
    "SimulationBudgetError",
    "StepSizeError",
    "GeomechWarning",
    "URDFWarning",
    "StepSizeWarning",
    "OptionalDependencyError",
]


class GeomechError(Exception):
    """Base class of every error raised by geomech."""


class DimensionError(GeomechError, ValueError):
    """An array has the wrong shape (the message gives the expected and received shapes)."""


class DTypeError(DimensionError, TypeError):
    """An input is not an array of real numbers (complex, object or text dtype) or not of the
    expected type.

    It is a :class:`DimensionError` in the wide sense (the input is not a real array of the
    expected shape; such inputs were reported as one before this class existed) and also a
    ``TypeError``.
    """


class NonFiniteError(GeomechError, ValueError):
    """An input contains NaN or infinite entries, or a result overflowed to them."""


class NotOnManifoldError(GeomechError, ValueError):
    """A point is not on the manifold it claims to be on (e.g. a non-orthonormal rotation)."""


class InertiaError(GeomechError, ValueError):
    """An inertia or mass matrix is not symmetric positive definite or is not physical."""


class SingularityError(GeomechError, ArithmeticError):
    """A quantity is evaluated on its singular set (chart singularity, singular inertia)."""


class ConvergenceError(GeomechError, ArithmeticError):
    """An iterative solve (Newton's method, a shooting method) did not converge."""


class ModelError(GeomechError, ValueError):
    """A multibody model is malformed (the message names the offending node or edge)."""


class NotATreeError(ModelError):
    """A kinematic graph has a cycle or more than one root where a tree is required."""


class ImmutableModelError(ModelError, AttributeError):
    """A built model, one of its joints or its graph was to be changed: models are immutable.

    Rebinding or deleting an attribute and changing a list or an attribute dictionary in
    place are refused (the model's arrays are read-only, its graph frozen); build a new
    model instead (``type(model)(graph, gravity=...)``, ``model.with_inertias(...)``). It is
    also an ``AttributeError``, as assigning to a read-only attribute is in Python.
    """


class URDFError(ModelError):
    """A URDF description cannot be turned into a model (names the link or joint)."""


class ConnectionSpecError(GeomechError, ValueError):
    """A connection is specified wrongly (unknown name, wrong coefficient shape, bad kind)."""


class SimulationError(GeomechError, ValueError):
    """A simulation is specified wrongly (time span, step, method, tolerances)
    or its solver failed.
    """


class ParameterError(GeomechError, ValueError):
    """A parameter or option is outside its valid values (gains that are not positive definite, a
    negative order, a group a chart does not cover, an unknown option).
    """


class SimulationBudgetError(SimulationError, RuntimeError):
    """A simulation would exceed, or has exceeded, its step, wall-time or output-size budget."""


class StepSizeError(SimulationError):
    """A fixed step is too large for the requested accuracy (``on_inaccuracy="raise"``)."""


class GeomechWarning(UserWarning):
    """Base class of the warnings geomech issues."""


class URDFWarning(GeomechWarning):
    """A URDF file was loaded leniently despite defects (the message names each link)."""


class StepSizeWarning(GeomechWarning, RuntimeWarning):
    """A fixed step is too large for the requested accuracy (the estimated error exceeds it)."""


class OptionalDependencyError(GeomechError, ImportError):
    """An optional dependency (Pinocchio, dask, ...) is missing; the message names the extra."""
