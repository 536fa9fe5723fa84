"""Reading and writing models: URDF and URDF+, the built-in robots, the shipped examples.

- :mod:`~geomech.multibody.io.urdf` — :func:`load_urdf` (URDF, and URDF+ loops, couplings and
  implicit constraints) and :func:`to_urdf`;
- :mod:`~geomech.multibody.io.robots` — built-in and generated robots, example-robot-data;
- :mod:`~geomech.multibody.io.examples` — the URDF+ linkages and transmissions shipped with
  geomech (seed 004's examples).
"""

from geomech.multibody.io import examples, robots
from geomech.multibody.io.examples import example_names, example_path, load_example
from geomech.multibody.io.urdf import load_urdf, to_urdf

__all__ = [
    "load_urdf",
    "to_urdf",
    "robots",
    "examples",
    "example_names",
    "example_path",
    "load_example",
]
