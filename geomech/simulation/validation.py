"""Checks of simulation inputs that the shared validators do not make yet.

Examples
--------
>>> from geomech.simulation.validation import real_input
>>> real_input([1.0, 2.0], "v0")
[1.0, 2.0]
"""

from __future__ import annotations

import numpy as np

from geomech.errors import DTypeError

__all__ = ["real_input"]


def real_input(x, name: str):
    """Refuse complex data (whose imaginary part a float conversion would drop); returns ``x``.

    Parameters
    ----------
    x : array_like
    name : str
        Name used in the message.

    Returns
    -------
    array_like
        ``x`` itself.

    Raises
    ------
    DTypeError
        If ``x`` has a complex dtype.

    Examples
    --------
    >>> from geomech.simulation.validation import real_input
    >>> real_input([1.0 + 2.0j], "tau")
    Traceback (most recent call last):
    ...
    geomech.errors.DTypeError: Expected `tau` to be real, got complex values (their imaginary part would be dropped).
    """
    if np.iscomplexobj(x):
        raise DTypeError(f"Expected `{name}` to be real, got complex values (their imaginary part would be dropped).")
    return x
