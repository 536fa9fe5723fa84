"""Results of geometric predicates: a verdict that is truthy, with the measured residual."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CheckResult"]


@dataclass(frozen=True)
class CheckResult:
    """Outcome of a predicate such as :meth:`AffineConnection.is_metric_compatible`.

    It is truthy exactly when :attr:`verdict` is, so it can be used in ``if`` and
    ``assert`` directly, while :attr:`residual` says by how much the identity holds.

    Parameters
    ----------
    verdict : bool
        ``residual <= tol * scale``.
    residual : float
        The measured defect (maximum absolute entry, over the batch, of the identity's
        left-hand side minus its right-hand side).
    tol : float
        The relative tolerance used.
    scale : float
        The scale the tolerance was multiplied by (``max(1, max|H|)`` or ``max(1, max|D|)``).

    Examples
    --------
    >>> from geomech.geometry import CheckResult
    >>> res = CheckResult(True, 3e-12, 1e-8, 1.0)
    >>> bool(res), res.residual
    (True, 3e-12)
    >>> bool(CheckResult(False, 0.5, 1e-8, 1.0))
    False
    """

    verdict: bool
    residual: float
    tol: float
    scale: float = 1.0

    def __bool__(self) -> bool:
        return bool(self.verdict)

    @classmethod
    def from_residual(cls, residual, tol: float, scale: float = 1.0) -> CheckResult:
        """Build a result from a residual: the verdict is ``residual <= tol * max(1, scale)``.

        Parameters
        ----------
        residual : float
        tol : float
        scale : float

        Returns
        -------
        CheckResult

        Examples
        --------
        >>> from geomech.geometry import CheckResult
        >>> CheckResult.from_residual(1e-3, tol=1e-2)
        CheckResult(verdict=True, residual=0.001, tol=0.01, scale=1.0)
        """
        scale = max(1.0, float(scale))
        residual = float(residual)
        return cls(bool(residual <= tol * scale), residual, float(tol), scale)
