r"""The Levi-Civita (Riemannian) connection from the Koszul formula, for any frame.

.. math::
    2\Gamma^\star_{ijk} = \mathscr L_{X_k} H_{ij} + \mathscr L_{X_j} H_{ik}
        - \mathscr L_{X_i} H_{jk} + s_{kij} + s_{jik} + s_{ijk}
    \qquad (s_{ijk} = H_{i\ell}\, s^\ell_{jk})

(seed 000 eq. 8). Every term but :math:`s_{ijk}` is symmetric in :math:`(j, k)`, so
:math:`\Gamma^\star_{ijk} = \Gamma^\star_{i(jk)} + \tfrac12 s_{ijk}` (eq. 9). In coordinates
this is the classical first-kind Christoffel symbol (eq. 5).
"""

from __future__ import annotations

from geomech.geometry.connection import AffineConnection
from geomech.geometry.system import MechanicalSystem

__all__ = ["LeviCivitaConnection"]


class LeviCivitaConnection(AffineConnection):
    r"""The unique metric-compatible, torsion-free connection :math:`\nabla^\star` of a system.

    The Lie derivatives :math:`\mathscr L_{X_k} H_{ij}` come from
    :meth:`MechanicalSystem.mass_matrix_lie_derivative` (exactly zero for a constant
    :math:`H`, central differences along the flow otherwise, accurate to about
    :math:`10^{-10}` relative).

    Parameters
    ----------
    system : MechanicalSystem

    Raises
    ------
    ConnectionSpecError
        If ``system`` is not a :class:`MechanicalSystem`.

    References
    ----------
    seed 000 Thm. III.1, Koszul formula, eqs. (8), (9); (18) for a rigid body on SE(3).

    Examples
    --------
    Euler's equations on SO(3): :math:`C^\star\omega = \omega \times \bar I \omega`.

    >>> import numpy as np
    >>> from geomech.geometry import LeviCivitaConnection
    >>> from geomech.geometry.examples import rigid_body_so3
    >>> I = np.diag([1.0, 2.0, 3.0])
    >>> lc = LeviCivitaConnection(rigid_body_so3(I))
    >>> w = np.array([0.5, -1.0, 2.0])
    >>> bool(np.allclose(lc.coriolis_matrix(np.eye(3), w) @ w, np.cross(w, I @ w)))
    True
    """

    def __init__(self, system: MechanicalSystem):
        super().__init__(system, self._koszul)

    def _koszul(self, q):
        return self.system._koszul(q)  # MechanicalSystem._koszul: seed 000 eq. (8)
