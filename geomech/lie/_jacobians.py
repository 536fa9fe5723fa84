r"""The Jacobians of the exponential map of a Lie group, derived once from ``ad``.

``exp(xi + d) ~ exp(xi) exp(J_r(xi) d) ~ exp(J_l(xi) d) exp(xi)``, with
``J_l(xi) = sum_k ad_xi^k / (k+1)!`` and ``J_r(xi) = J_l(-xi)`` (seed 003 §1.3, its
``S(phi)`` = ``J_r``). :class:`ExpJacobians` is a base of :class:`~geomech.lie.LieGroup`: the
generic fallbacks use the expm-block oracle; a group may override the private hooks
``_left_jacobian`` and ``_left_jacobian_inverse`` with closed forms.
"""

from __future__ import annotations

from typing import final

import numpy as np

from geomech.errors import SingularityError

__all__ = ["ExpJacobians"]


class ExpJacobians:
    """Left and right Jacobians of exp and their inverses (a base of :class:`LieGroup`)."""

    # Optional closed forms; the generic fallbacks use the expm-block oracle.
    def _left_jacobian(self, xi: np.ndarray) -> np.ndarray:
        # seed 003 §1.3: J_l(xi) = sum ad^k/(k+1)! = top-right block of expm([[ad, I], [0, 0]])
        from scipy.linalg import expm

        n = self.dim
        A = np.zeros(xi.shape[:-1] + (2 * n, 2 * n))
        A[..., :n, :n] = self.ad(xi)
        A[..., :n, n:] = np.eye(n)
        return expm(A)[..., :n, n:]

    def _left_jacobian_inverse(self, xi: np.ndarray) -> np.ndarray:
        J = self._left_jacobian(xi)
        cond = np.linalg.cond(J)
        if np.any(~np.isfinite(cond) | (cond > 1e12)):
            raise SingularityError(
                f"The Jacobian of exp on {self.name} is singular at `xi` "
                f"(condition number {np.max(cond):.3g})."
            )
        return np.linalg.inv(J)

    @final
    def left_jacobian(self, xi) -> np.ndarray:
        r"""Left Jacobian of ``exp``: ``exp(xi + δ) ≈ exp(J_l(xi) δ) · exp(xi)``.

        .. math:: J_l(\xi) = \sum_{k \ge 0} \frac{\operatorname{ad}_\xi^k}{(k+1)!}
                  = \operatorname{Ad}(\exp \xi)\, J_r(\xi) = J_r(-\xi)

        ``J_l`` maps ``phi_dot`` to the spatial velocity ``(ġ g⁻¹)^∨`` of ``g = exp(phi)``.

        Parameters
        ----------
        xi : array_like, shape (..., dim)
            Coordinates.

        Returns
        -------
        ndarray, shape (..., dim, dim)
            ``J_l(xi)``.

        Raises
        ------
        DimensionError, NonFiniteError
            If ``xi`` has the wrong trailing shape or non-finite entries.

        References
        ----------
        seed 003 §1.3 (identifications).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE3
        >>> xi = np.array([0.3, -0.2, 0.5, 1.0, 0.0, 2.0])
        >>> bool(np.allclose(SE3.left_jacobian(xi), SE3.Ad(SE3.exp(xi)) @ SE3.right_jacobian(xi)))
        True
        """
        return self._finite("left_jacobian(xi)", "`xi`", self._left_jacobian, self._algebra(xi))

    @final
    def right_jacobian(self, xi) -> np.ndarray:
        r"""Right Jacobian of ``exp``: ``exp(xi + δ) ≈ exp(xi) · exp(J_r(xi) δ)``.

        This is seed 003's velocity map ``S(φ)``: for ``g = g_bar exp(φ̂)`` the body velocity
        is ``(g⁻¹ ġ)^∨ = S(φ) φ̇``.

        .. math:: J_r(\xi) = S(\xi) = \sum_{k \ge 0} \frac{(-\operatorname{ad}_\xi)^k}{(k+1)!}
                  = I - \tfrac12 \operatorname{ad}_\xi + \tfrac16 \operatorname{ad}_\xi^2 - \dots

        Its determinant is ``2(1 - cos θ)/θ²`` on SO(3) and SE(2) (squared on SE(3)), zero at
        ``θ = 2πk``, ``k ≥ 1``.

        Parameters
        ----------
        xi : array_like, shape (..., dim)
            Coordinates ``φ``.

        Returns
        -------
        ndarray, shape (..., dim, dim)
            ``J_r(xi) = J_l(-xi)``.

        Raises
        ------
        DimensionError, NonFiniteError
            If ``xi`` has the wrong trailing shape or non-finite entries.

        References
        ----------
        seed 003 eqs. (28)-(29), (34), (64), (72), (100); §1.3 reference values.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> np.round(SO3.right_jacobian([0.3, -0.2, 0.5]), 8)
        array([[ 0.95257673,  0.23237122,  0.12140245],
               [-0.25199464,  0.94440031,  0.12895691],
               [-0.0723439 , -0.16166261,  0.97874129]])
        """
        return self._finite("right_jacobian(xi)", "`xi`", self._left_jacobian, -self._algebra(xi))

    @final
    def left_jacobian_inverse(self, xi) -> np.ndarray:
        r"""Inverse of :meth:`left_jacobian`.

        .. math:: J_l(\xi)^{-1} = \sum_{k \ge 0} \frac{B_k}{k!} \operatorname{ad}_\xi^k
                  = I - \tfrac12 \operatorname{ad}_\xi + \tfrac1{12} \operatorname{ad}_\xi^2
                  - \dots

        (``B_k`` the Bernoulli numbers; closed forms for SO(3), SE(3), SE(2), Schönflies).

        Parameters
        ----------
        xi : array_like, shape (..., dim)
            Coordinates.

        Returns
        -------
        ndarray, shape (..., dim, dim)
            ``J_l(xi)⁻¹``.

        Raises
        ------
        DimensionError, NonFiniteError
            If ``xi`` has the wrong trailing shape or non-finite entries.
        SingularityError
            If ``J_l(xi)`` is singular: rotation angle ``θ = 2πk``, ``k ≥ 1`` (detected as
            ``|sin(θ/2)| < 1e-12`` with ``θ > π``).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SO3
        >>> xi = np.array([0.3, -0.2, 0.5])
        >>> bool(np.allclose(SO3.left_jacobian_inverse(xi) @ SO3.left_jacobian(xi), np.eye(3)))
        True
        >>> SO3.left_jacobian_inverse([0.0, 0.0, 2 * np.pi])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        geomech.errors.SingularityError: The Jacobian of exp on SO(3) is singular at `xi` ...
        """
        return self._finite(
            "left_jacobian_inverse(xi)", "`xi`", self._left_jacobian_inverse, self._algebra(xi)
        )

    @final
    def right_jacobian_inverse(self, xi) -> np.ndarray:
        r"""Inverse of :meth:`right_jacobian` (seed 003's ``S(φ)⁻¹``), ``= J_l(-xi)⁻¹``.

        .. math:: J_r(\xi)^{-1} = I + \tfrac12 \operatorname{ad}_\xi
                  + \tfrac1{12} \operatorname{ad}_\xi^2 + \dots

        Parameters
        ----------
        xi : array_like, shape (..., dim)
            Coordinates ``φ``.

        Returns
        -------
        ndarray, shape (..., dim, dim)
            ``S(xi)⁻¹``.

        Raises
        ------
        DimensionError, NonFiniteError
            If ``xi`` has the wrong trailing shape or non-finite entries.
        SingularityError
            At rotation angle ``θ = 2πk``, ``k ≥ 1`` (as in :meth:`left_jacobian_inverse`).

        References
        ----------
        seed 003 §1.3 (``S^{-1}`` closed form for SO(3)).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.lie import SE2
        >>> xi = np.array([0.5, 0.3, -0.2])
        >>> bool(np.allclose(SE2.right_jacobian_inverse(xi) @ SE2.right_jacobian(xi), np.eye(3)))
        True
        """
        return self._finite(
            "right_jacobian_inverse(xi)", "`xi`", self._left_jacobian_inverse, -self._algebra(xi)
        )
