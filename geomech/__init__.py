"""geomech: geometric mechanics in Python.

Configuration manifolds (:mod:`geomech.lie`), spatial vector algebra (:mod:`geomech.spatial`)
and, built on them, affine connections, Coriolis factorizations and multibody dynamics.

Examples
--------
>>> import numpy as np
>>> import geomech as gm
>>> R = gm.lie.SO3.exp([0.0, 0.0, np.pi / 2])
>>> np.round(R @ [1.0, 0.0, 0.0], 12)
array([0., 1., 0.])
"""

from geomech import errors, geometry, lie, spatial
from geomech.errors import GeomechError

__all__ = ["errors", "geometry", "lie", "spatial", "GeomechError", "__version__"]

__version__ = "0.1.0"
