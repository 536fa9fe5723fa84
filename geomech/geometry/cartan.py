r"""The Cartan–Schouten connections (−), (0), (+) on a Lie group.

On left-invariant fields :math:`X, Y` they are

.. math:: \nabla^{(-)}_X Y = 0, \qquad \nabla^{(0)}_X Y = \tfrac12 [X, Y], \qquad
          \nabla^{(+)}_X Y = [X, Y],

so :math:`\Gamma^i_{jk} = \lambda\, s^i_{jk}` with :math:`\lambda = 0, \tfrac12, 1`, and
:math:`\Gamma_{ijk} = \lambda\, H_{i\ell} s^\ell_{jk}`. The torsion is
:math:`(2\lambda - 1)[X, Y]` (``-[X, Y]``, ``0``, ``+[X, Y]``) and every one has the
one-parameter subgroups :math:`g \exp(t\xi)` as geodesics. With a bi-invariant metric the
(0) connection is the Levi-Civita connection.
"""

from __future__ import annotations

import numpy as np

from geomech.errors import ConnectionSpecError
from geomech.geometry.connection import AffineConnection
from geomech.geometry.frames import LeftInvariantFrame, RightInvariantFrame
from geomech.geometry.names import canonical_connection_name
from geomech.geometry.system import MechanicalSystem, as_mechanical_system

__all__ = ["CartanSchoutenConnection"]

_LAMBDA = {"cartan-minus": 0.0, "cartan-zero": 0.5, "cartan-plus": 1.0}


class CartanSchoutenConnection(AffineConnection):
    r"""Cartan–Schouten connection of the given kind on a system with a left-invariant frame.

    Parameters
    ----------
    system : MechanicalSystem
        A system on a Lie group whose frame is a
        :class:`~geomech.geometry.frames.LeftInvariantFrame` (body velocities).
    kind : str
        ``"cartan-minus"``, ``"cartan-zero"`` or ``"cartan-plus"``, or an alias of one in the
        registry of connection names (:mod:`geomech.geometry.names`), e.g. ``"-"``, ``"0"``,
        ``"+"``.

    Attributes
    ----------
    kind : str
        The canonical name.

    Raises
    ------
    ConnectionSpecError
        If ``kind`` does not name a Cartan–Schouten connection or the frame is not
        left-invariant.

    References
    ----------
    E. Cartan and J. A. Schouten (1926); seed 000 §III (torsion), issue 3 of geomech.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import CartanSchoutenConnection
    >>> from geomech.geometry.examples import rigid_body_so3
    >>> body = rigid_body_so3(np.diag([1.0, 2.0, 3.0]))
    >>> w = np.array([1.0, 2.0, 3.0])
    >>> CartanSchoutenConnection(body, "cartan-minus").coriolis_matrix(np.eye(3), w)
    array([[0., 0., 0.],
           [0., 0., 0.],
           [0., 0., 0.]])
    >>> CartanSchoutenConnection(body, "levi-civita")
    Traceback (most recent call last):
    ...
    geomech.errors.ConnectionSpecError: Expected `kind` to name a Cartan–Schouten connection, one of
    ['cartan-minus', 'cartan-zero', 'cartan-plus'] (or an alias), got 'levi-civita'.
    """

    def __init__(self, system: MechanicalSystem, kind: str):
        name = canonical_connection_name(kind)
        if name not in _LAMBDA:
            raise ConnectionSpecError(
                "Expected `kind` to name a Cartan–Schouten connection, one of "
                f"{list(_LAMBDA)} (or an alias), got {kind!r}."
            )
        system = as_mechanical_system(system)
        frame = system.frame
        if not isinstance(frame, LeftInvariantFrame) or isinstance(frame, RightInvariantFrame):
            raise ConnectionSpecError(
                f"Expected `system` to have a LeftInvariantFrame on a Lie group, got {frame!r}."
            )
        self.kind = name
        self._lambda = _LAMBDA[name]
        super().__init__(system, self._coefficients)

    def _coefficients(self, q: np.ndarray) -> np.ndarray:
        # Gamma_ijk = lambda <X_i, [X_j, X_k]> = lambda H_il s^l_jk
        return self._lambda * np.einsum(
            "...il,...jkl->...ijk", self.system._H(q), self.system._s(q)
        )

    def __repr__(self):
        return f"<CartanSchoutenConnection({self.kind!r}) on {self.system!r}>"
