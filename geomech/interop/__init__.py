"""Interoperability with peer libraries: Pinocchio and geomstats.

- :mod:`geomech.interop.pinocchio`: :func:`~geomech.interop.pinocchio.to_pinocchio`,
  :func:`~geomech.interop.pinocchio.from_pinocchio`,
  :func:`~geomech.interop.pinocchio.load_mjcf` and
  :class:`~geomech.interop.pinocchio.PinocchioBridge` (the joint-order and convention maps
  between the two libraries' states). Pinocchio is optional (``pip install
  'geomech[pinocchio]'``); it is imported on first use, so importing this package never
  needs it.
- :mod:`geomech.interop.geomstats`: a geomech connection as a geomstats connection (so that
  geomstats' exp, log, geodesic and parallel-transport solvers run on it), and a geomstats
  Riemannian metric as a geomech :class:`~geomech.geometry.MechanicalSystem`.

Examples
--------
>>> from geomech import interop
>>> sorted(interop.__all__)
['geomstats', 'pinocchio']
"""

from geomech.interop import geomstats, pinocchio

__all__ = ["pinocchio", "geomstats"]
