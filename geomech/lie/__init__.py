"""Configuration manifolds as Lie groups (seed 003).

Groups act on arrays with leading batch dimensions. Elements are matrices (``SO3`` 3×3,
``SE3`` 4×4, ``SE2`` 3×3, ``Schoenflies`` 4×4), vectors for ``Euclidean(n)`` and flat
concatenations for ``ProductGroup``; Lie-algebra elements are coordinate vectors, angular
first (``SE3`` ``[ω; v]``, ``SE2`` ``[ω; vx; vy]``, ``Schoenflies`` ``[ω_z; vx; vy; vz]``).
See :class:`LieGroup` for the common interface and the Jacobian convention
(``right_jacobian`` is seed 003's ``S(φ)``). Quaternion helpers (scalar last, ``(x, y, z,
w)``) are in :mod:`geomech.lie.quaternion`.

Examples
--------
>>> import numpy as np
>>> from geomech.lie import SE3
>>> xi = np.array([0.1, 0.2, 0.3, 1.0, 0.0, 0.0])
>>> bool(np.allclose(SE3.log(SE3.exp(xi)), xi))
True
"""

from geomech.lie import quaternion
from geomech.lie.base import LieGroup
from geomech.lie.euclidean import Euclidean
from geomech.lie.product import ProductGroup
from geomech.lie.schoenflies import Schoenflies
from geomech.lie.se2 import SE2
from geomech.lie.se3 import SE3
from geomech.lie.so3 import SO3

__all__ = [
    "LieGroup",
    "SO3",
    "SE3",
    "SE2",
    "Schoenflies",
    "Euclidean",
    "ProductGroup",
    "quaternion",
]
