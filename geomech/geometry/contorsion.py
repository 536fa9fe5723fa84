r"""Rank-3 covariant tensor fields: contorsions and differences of connection coefficients.

The contorsion of a connection :math:`\nabla` is :math:`D_{ijk} = \Gamma^\star_{ijk} -
\Gamma_{ijk}` (seed 000 §III): a genuine (0, 3)-tensor. Its symmetries decide the properties
of the Coriolis factorization :math:`C_{ik} = \Gamma_{ijk} v^j` (seed 000 Props. III.1, III.2,
IV.1, IV.2, Cor. III.1, IV.1):

- antisymmetric in (1, 3) ⇔ metric compatible ⇔ :math:`\dot H - 2C` skew;
- antisymmetric in (2, 3) ⇔ Riemannian geodesics ⇔ :math:`C v = C^\star v`;
- totally antisymmetric ⇔ both.

Index layout: ``D[..., i, j, k]`` with ``i`` the lowered (force) index, ``j`` the direction of
differentiation and ``k`` the differentiated field, as for the connection coefficients.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from math import comb

import numpy as np

from geomech._validation import as_array
from geomech.errors import ConnectionSpecError, DimensionError
from geomech.geometry.checks import CheckResult

__all__ = ["Contorsion", "SymmetryReport"]


def _levi_civita3() -> np.ndarray:
    eps = np.zeros((3, 3, 3))
    for (a, b, c), sign in (
        ((0, 1, 2), 1),
        ((1, 2, 0), 1),
        ((2, 0, 1), 1),
        ((0, 2, 1), -1),
        ((2, 1, 0), -1),
        ((1, 0, 2), -1),
    ):
        eps[a, b, c] = sign
    return eps


@dataclass(frozen=True)
class SymmetryReport:
    r"""Antisymmetries of a rank-3 tensor, each as a :class:`CheckResult`.

    Parameters
    ----------
    antisymmetric_13 : CheckResult
        :math:`D_{ijk} = -D_{kji}` (residual :math:`\max|D_{ijk} + D_{kji}|`).
    antisymmetric_23 : CheckResult
        :math:`D_{ijk} = -D_{ikj}` (residual :math:`\max|D_{ijk} + D_{ikj}|`).
    totally_antisymmetric : CheckResult
        All three pairs (residual: the largest of the three pairwise residuals).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import Contorsion
    >>> report = Contorsion.totally_antisymmetric([2.0]).symmetry()
    >>> bool(report.antisymmetric_13), bool(report.totally_antisymmetric)
    (True, True)
    """

    antisymmetric_13: CheckResult
    antisymmetric_23: CheckResult
    totally_antisymmetric: CheckResult


class Contorsion:
    r"""A rank-3 covariant tensor field :math:`D_{ijk}(q)` (a contorsion, or any difference of
    connection coefficients).

    Added to a connection it shifts the coefficients, ``connection + K`` having
    :math:`\Gamma + K`; the difference of two connections is one of these. Tensors combine
    with ``+``, ``-`` and scalar ``*``.

    Parameters
    ----------
    components : callable or array_like, shape (n, n, n)
        ``q -> (..., n, n, n)`` or a constant array.
    dim : int, optional
        ``n``; required for a callable, checked against a constant array.

    Raises
    ------
    ConnectionSpecError
        If a constant array is not of shape ``(n, n, n)`` or ``dim`` is missing for a
        callable.

    References
    ----------
    seed 000 §III (contorsion tensor), eq. (12).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import Contorsion
    >>> D = Contorsion(np.zeros((3, 3, 3)))
    >>> D.dim, (-D)().shape
    (3, (3, 3, 3))
    """

    def __init__(self, components, dim=None):
        if callable(components):
            if dim is None:
                raise ConnectionSpecError(
                    "Expected `dim` for callable `components` (the tensor's size n), got None."
                )
            self.dim = int(dim)
            self._fun = components
            self._const = None
        else:
            D = as_array(components, "components")
            n = D.shape[0] if D.ndim == 3 else None
            if D.ndim != 3 or D.shape != (n, n, n) or (dim is not None and n != dim):
                want = "(n, n, n)" if dim is None else str((dim,) * 3)
                raise ConnectionSpecError(
                    f"Expected `components` to have shape {want}, got {D.shape}."
                )
            self.dim = int(n)
            self._fun = None
            self._const = D.copy()

    @property
    def is_constant(self) -> bool:
        """Whether the components are a constant array.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import Contorsion
        >>> Contorsion(np.zeros((2, 2, 2))).is_constant
        True
        """
        return self._const is not None

    def __call__(self, q=None) -> np.ndarray:
        """Components at ``q``.

        Parameters
        ----------
        q : array_like, optional
            Configuration(s); may be omitted for a constant tensor.

        Returns
        -------
        ndarray, shape (..., n, n, n)
            For a constant tensor, the ``(n, n, n)`` array (it broadcasts against batches).

        Raises
        ------
        ConnectionSpecError
            If ``q`` is omitted for a non-constant tensor.
        DimensionError
            If the callable returns the wrong trailing shape.

        Examples
        --------
        >>> from geomech.geometry import Contorsion
        >>> float(Contorsion.totally_antisymmetric([1.0])()[0, 1, 2])
        1.0
        """
        if self._const is not None:
            return self._const.copy()
        if q is None:
            raise ConnectionSpecError("Expected a configuration `q` for a non-constant tensor.")
        D = np.asarray(self._fun(q), dtype=float)
        if D.shape[-3:] != (self.dim,) * 3:
            raise DimensionError(
                f"Expected the tensor components to have shape (..., {self.dim}, {self.dim}, "
                f"{self.dim}), got {D.shape}."
            )
        return D

    # ------------------------------------------------------------------------------------
    @classmethod
    def totally_antisymmetric(cls, beta, dim=None) -> Contorsion:
        r"""The totally antisymmetric tensor of eq. (12) from the :math:`\binom n3` functions β.

        .. math::
            K_{ijk} = \sum_{a<b<c} \beta_{abc}(q)\, \epsilon^{(abc)}_{ijk},
            \qquad K_{ijk} v^j = \sum_{a<b<c} \beta_{abc}\,
            [S_{abc}^\top (S_{abc} v\times) S_{abc}]_{ik}

        where :math:`\epsilon^{(abc)}` is the Levi-Civita symbol on the index triple
        ``(a, b, c)``. ``levi_civita + K`` is the factorization
        :math:`C = C^\star + \sum \beta_{abc} S_{abc}^\top (S_{abc} v\times) S_{abc}` of
        eq. (12) (for ``n = 3``, :math:`C^\star + \beta (v\times)`); its contorsion is
        :math:`D = -K`. Triples are ordered lexicographically
        (``itertools.combinations(range(n), 3)``).

        Parameters
        ----------
        beta : callable or array_like, shape (m,)
            ``m = comb(n, 3)`` functions :math:`\beta_{abc}`: constants, or ``q -> (..., m)``.
        dim : int, optional
            ``n``; inferred from ``m`` when ``m > 0`` (required for ``n ≤ 2``, where ``m = 0``
            and the tensor is zero, Cor. III.2).

        Returns
        -------
        Contorsion

        Raises
        ------
        ConnectionSpecError
            If ``m`` is not a binomial coefficient ``comb(n, 3)`` (or disagrees with ``dim``).

        References
        ----------
        seed 000 eq. (12), Cor. III.2, Remark 3.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import Contorsion
        >>> from geomech.spatial import skew
        >>> K = Contorsion.totally_antisymmetric([0.5])
        >>> v = np.array([1.0, 2.0, 3.0])
        >>> bool(np.allclose(np.einsum("ijk,j->ik", K(), v), 0.5 * skew(v)))  # beta (v x)
        True
        >>> Contorsion.totally_antisymmetric(np.ones(4)).dim
        4
        """
        if callable(beta):
            if dim is None:
                raise ConnectionSpecError("Expected `dim` for a callable `beta`, got None.")
            n = int(dim)
        else:
            beta = as_array(beta, "beta")
            if beta.ndim != 1:
                raise ConnectionSpecError(
                    f"Expected `beta` to have shape (comb(n, 3),), got {beta.shape}."
                )
            m = beta.shape[0]
            if dim is None:
                if m == 0:
                    raise ConnectionSpecError("Expected `dim` when `beta` is empty (n <= 2).")
                n = 3
                while comb(n, 3) < m:
                    n += 1
            else:
                n = int(dim)
            if comb(n, 3) != m:
                raise ConnectionSpecError(
                    f"Expected `beta` to have comb({n}, 3) = {comb(n, 3)} entries, got {m}."
                )
        triples = list(itertools.combinations(range(n), 3))
        m = len(triples)
        # basis[t] = Levi-Civita symbol on triple t, embedded in n x n x n
        basis = np.zeros((m, n, n, n))
        eps = _levi_civita3()
        for t, (a, b, c) in enumerate(triples):
            idx = np.array([a, b, c])
            basis[t][np.ix_(idx, idx, idx)] = eps
        if callable(beta):

            def components(q, _beta=beta, _basis=basis):
                b = as_array(_beta(q), "beta(q)", (m,))
                return np.einsum("...t,tijk->...ijk", b, _basis)

            return cls(components, n)
        return cls(np.einsum("t,tijk->ijk", beta, basis))

    # ------------------------------------------------------------------------------------
    def symmetry(self, q=None, tol: float = 1e-9) -> SymmetryReport:
        """Report antisymmetry in (1, 3), (2, 3) and total antisymmetry, with residuals.

        Parameters
        ----------
        q : array_like, optional
            Configuration(s) (may be omitted for a constant tensor).
        tol : float
            Relative tolerance; a residual passes if ``<= tol * max(1, max|D|)``.

        Returns
        -------
        SymmetryReport

        Raises
        ------
        ConnectionSpecError
            If ``q`` is omitted for a non-constant tensor.

        References
        ----------
        seed 000 Props. III.1, III.2, Cor. III.1.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import Contorsion
        >>> D = np.zeros((3, 3, 3)); D[0, 1, 2], D[0, 2, 1] = 1.0, -1.0  # antisym. in (2, 3)
        >>> report = Contorsion(D).symmetry()
        >>> bool(report.antisymmetric_23), bool(report.antisymmetric_13)
        (True, False)
        >>> report.antisymmetric_13.residual
        1.0
        """
        D = self(q)
        scale = float(np.max(np.abs(D), initial=0.0))
        r13 = float(np.max(np.abs(D + np.einsum("...ijk->...kji", D)), initial=0.0))
        r23 = float(np.max(np.abs(D + np.swapaxes(D, -1, -2)), initial=0.0))
        r12 = float(np.max(np.abs(D + np.swapaxes(D, -2, -3)), initial=0.0))
        return SymmetryReport(
            CheckResult.from_residual(r13, tol, scale),
            CheckResult.from_residual(r23, tol, scale),
            CheckResult.from_residual(max(r12, r13, r23), tol, scale),
        )

    # ------------------------------------------------------------------------------------
    def _combine(self, other, op) -> Contorsion:
        if not isinstance(other, Contorsion):
            other = Contorsion(other)
        if other.dim != self.dim:
            raise DimensionError(
                f"Expected tensors of the same size, got {self.dim} and {other.dim}."
            )
        if self.is_constant and other.is_constant:
            return Contorsion(op(self._const, other._const))
        return Contorsion(lambda q: op(self(q), other(q)), self.dim)

    def __add__(self, other):
        if getattr(other, "_is_connection", False):  # connection ± contorsion: the connection's
            return NotImplemented
        return self._combine(other, np.add)

    __radd__ = __add__

    def __sub__(self, other):
        if getattr(other, "_is_connection", False):  # connection ± contorsion: the connection's
            return NotImplemented
        return self._combine(other, np.subtract)

    def __rsub__(self, other):
        if getattr(other, "_is_connection", False):  # connection ± contorsion: the connection's
            return NotImplemented
        return (-self)._combine(other, np.add)

    def __neg__(self):
        return self * -1.0

    def __mul__(self, c):
        if not np.isscalar(c):
            return NotImplemented
        c = float(c)
        if self.is_constant:
            return Contorsion(c * self._const)
        return Contorsion(lambda q: c * self(q), self.dim)

    __rmul__ = __mul__

    def __repr__(self):
        kind = "constant" if self.is_constant else "field"
        return f"<Contorsion ({kind}) n={self.dim}>"
