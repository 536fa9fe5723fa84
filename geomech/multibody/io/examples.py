r"""URDF+ (robots with kinematic loops): the ``<loop>``, ``<coupling>`` and ``independent``
elements.

URDF+ (Chignoli, Slotine, Wensing, Kim, arXiv 2411.19753) keeps URDF's links and joints,
which must form a tree (the spanning tree), and adds:

- ``<loop name="..." type="revolute|continuous|prismatic|fixed|planar|spherical|floating">``
  with ``<predecessor link="..."><origin xyz rpy/></predecessor>``, ``<successor
  link="..."><origin xyz rpy/></successor>`` and ``<axis xyz/>``: a loop joint whose frame
  sits at the two origins (the poses of the loop frame in the predecessor and successor
  links; they coincide when the loop joint is at zero), moving about the axis as a tree
  joint of that type would;
- ``<coupling name="..."><predecessor link/><successor link/><ratio value/></coupling>``:
  measured from the two links' nearest common ancestor, ``ratio`` times the sum of the joint
  angles down to the predecessor equals the sum of the joint angles down to the successor
  (the authors' meaning; ``ratio`` = successor velocity / predecessor velocity);
- the ``independent="true|false"`` attribute of ``<joint>``: whether the joint's coordinates
  are independent. URDF+ reads an absent attribute as independent; geomech treats it as a
  preference (an unmarked joint is made dependent only if the constraints need it, and
  :attr:`~geomech.multibody.closed.model.ClosedMultibodyModel.independent_joints` reports the
  choice), so that files marking every dependent joint load exactly as URDF+ prescribes.

:func:`~geomech.multibody.io.urdf.load_urdf` reads these elements and
:func:`~geomech.multibody.io.urdf.to_urdf` writes them for closed models (the format is one
concept, parsed in one module); this module holds the shipped examples. Links welded by fixed joints
are merged into bodies, and loop origins are composed with the link's pose in its body.
``spherical`` (and ``floating``) loop joints are geomech extensions (URDF has no spherical joint).

Shipped examples (``geomech/multibody/io/data``, written by geomech; :func:`load_example`):

- ``four_bar``: a crank-rocker four-bar in the vertical plane (1 DoF, 1 loop);
- ``six_bar``: a Watt six-bar, two loops sharing the rocker (1 DoF, one 5-body cluster);
- ``planar_leg``: a hip and a four-bar knee linkage driven from the thigh (2 DoF; the
  cluster hangs from the thigh);
- ``geared_chain``: a spatial 3-link chain whose joints are driven by geared rotors mounted
  on the preceding link (3 DoF, three link–rotor clusters);
- ``belt_leg``: a leg whose knee and ankle are driven by rotors on the thigh, the ankle
  through a belt (the ankle rotor turns with knee + ankle: seed 004's parallel belt
  transmission), and a geared hip (3 DoF).

References
----------
URDF+ (arXiv 2411.19753) §III (the elements), §IV (parsing into clusters); seed 004 §1.2
(geared and belt transmissions, the four-bar).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from geomech.errors import ModelError
from geomech.multibody.io.urdf import load_urdf

__all__ = ["example_names", "example_path", "load_example"]

_EXAMPLES = {
    "four_bar": "four_bar.urdf",
    "six_bar": "six_bar.urdf",
    "planar_leg": "planar_leg.urdf",
    "geared_chain": "geared_chain.urdf",
    "belt_leg": "belt_leg.urdf",
}


def example_names() -> list[str]:
    """Names of the shipped URDF+ examples.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from geomech.multibody.io.examples import example_names
    >>> example_names()
    ['belt_leg', 'four_bar', 'geared_chain', 'planar_leg', 'six_bar']
    """
    return sorted(_EXAMPLES)


def example_path(name: str) -> Path:
    """Path of a shipped URDF+ example.

    Parameters
    ----------
    name : str
        One of :func:`example_names`.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ModelError
        If ``name`` is not a shipped example.

    Examples
    --------
    >>> from geomech.multibody.io.examples import example_path
    >>> example_path("four_bar").name
    'four_bar.urdf'
    """
    if name not in _EXAMPLES:
        raise ModelError(f"Expected a URDF+ example name from {example_names()!r}, got {name!r}.")
    return Path(str(resources.files("geomech.multibody.io") / "data" / _EXAMPLES[name]))


def load_example(name: str, floating_base: bool = False):
    """Load a shipped URDF+ example as a closed model.

    Parameters
    ----------
    name : str
        One of :func:`example_names`.
    floating_base : bool
        Attach the root link by a free flyer (see :func:`~geomech.multibody.io.urdf.load_urdf`).

    Returns
    -------
    ClosedMultibodyModel

    Raises
    ------
    ModelError
        If ``name`` is not a shipped example.

    Examples
    --------
    >>> from geomech.multibody.io.examples import load_example
    >>> model = load_example("belt_leg", floating_base=True)
    >>> model.nq, model.nv, len(model.clusters)
    (13, 9, 3)
    """
    return load_urdf(example_path(name), floating_base=floating_base)
