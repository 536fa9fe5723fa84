"""Scalar coefficient functions of the closed-form exp/log/Jacobian formulas (private).

Every function takes an array of angles ``x`` (any shape) and returns an array of the same
shape. Where the closed form cancels catastrophically near ``x = 0`` (``x - sin x``,
``1 - (x/2) cot(x/2)``, ...), the function switches to its Taylor series for ``|x| < 2``.
The series are summed (Horner, in ``x**2``) to enough terms that the truncation error is below
``1e-18`` relative on ``|x| < 2``, so both branches are accurate to a few ulp and the switch
point is invisible. The threshold is 2 rather than ``~1e-4`` because the cancellation error
of the closed forms grows like ``eps / x**2`` (``x - sin x``) or ``eps / x**4``
(the SE(3) ``Q``-block coefficient): at ``x = 1e-4`` it would be ``~1e-8`` relative.
Functions without cancellation (``sin x / x``, ``(1 - cos x) / x**2`` written with half
angles) only guard ``x = 0`` with a short series for ``|x| < 1e-4``.
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial

import numpy as np

__all__ = [
    "SERIES_THRESHOLD",
    "sinc",
    "one_minus_cos_over_x2",
    "x_minus_sin_over_x3",
    "half_cot_coefficient",
    "se3_c2",
    "se3_c3",
]

#: Below this |x| the cancelling coefficients use their Taylor series.
SERIES_THRESHOLD = 2.0
#: Below this |x| the non-cancelling coefficients use a short series (only to avoid 0/0).
SMALL_ANGLE = 1e-4
_N_TERMS = 16  # 2**32 / 37! ~ 3e-34: ample for every factorial-type series on |x| < 2


def _bernoulli(n: int) -> list[Fraction]:
    """Bernoulli numbers B_0..B_n (B_1 = -1/2) by the standard recurrence."""
    B = [Fraction(0)] * (n + 1)
    B[0] = Fraction(1)
    for m in range(1, n + 1):
        B[m] = -sum(
            Fraction(factorial(m + 1), factorial(k) * factorial(m + 1 - k)) * B[k] for k in range(m)
        ) / (m + 1)
    return B


def _horner(y: np.ndarray, coeffs: np.ndarray) -> np.ndarray:
    """Evaluate ``sum_k coeffs[k] * y**k``."""
    out = np.full_like(y, coeffs[-1])
    for c in coeffs[-2::-1]:
        out = out * y + c
    return out


# (x - sin x) / x^3 = sum_k (-1)^k x^{2k} / (2k+3)!
_C_X_MINUS_SIN = np.array([(-1.0) ** k / factorial(2 * k + 3) for k in range(_N_TERMS)])
# (x^2 + 2 cos x - 2) / (2 x^4) = sum_k (-1)^k x^{2k} / (2k+4)!
_C_SE3_C2 = np.array([(-1.0) ** k / factorial(2 * k + 4) for k in range(_N_TERMS)])
# (2x - 3 sin x + x cos x) / (2 x^5) = sum_{k>=2} (-1)^k (k-1) x^{2k-4} / (2k+1)!
_C_SE3_C3 = np.array([(-1.0) ** k * (k - 1) / factorial(2 * k + 1) for k in range(2, _N_TERMS + 2)])
# (1 - (x/2) cot(x/2)) / x^2 = sum_{n>=1} |B_2n| x^{2n-2} / (2n)!; ratio of terms ~ (x/2pi)^2,
# so 30 terms reach (1/pi)^60 ~ 1e-30 at |x| = 2.
_B = _bernoulli(62)
_C_HALF_COT = np.array([float(abs(_B[2 * n]) / factorial(2 * n)) for n in range(1, 31)])


def _split(x: np.ndarray, threshold: float):
    """Return ``(small, x_safe)``: the series mask and ``x`` with the small entries set to 1."""
    x = np.asarray(x, dtype=float)
    small = np.abs(x) < threshold
    return small, np.where(small, 1.0, x)


def sinc(x) -> np.ndarray:
    """``sin(x) / x`` (no cancellation; series only to avoid 0/0)."""
    small, xs = _split(x, SMALL_ANGLE)
    x2 = np.square(x)
    return np.where(small, 1.0 - x2 / 6.0 + x2 * x2 / 120.0, np.sin(xs) / xs)


def one_minus_cos_over_x2(x) -> np.ndarray:
    """``(1 - cos x) / x**2``, computed as ``sinc(x/2)**2 / 2`` (no cancellation)."""
    return 0.5 * np.square(sinc(0.5 * np.asarray(x, dtype=float)))


def x_minus_sin_over_x3(x) -> np.ndarray:
    """``(x - sin x) / x**3`` (series for ``|x| < 2``)."""
    small, xs = _split(x, SERIES_THRESHOLD)
    return np.where(small, _horner(np.square(x), _C_X_MINUS_SIN), (xs - np.sin(xs)) / xs**3)


def half_cot_coefficient(x) -> np.ndarray:
    """``(1 - (x/2) cot(x/2)) / x**2``, the ``phî²`` coefficient of ``J_l(phi)^{-1}`` on SO(3).

    Singular (infinite) where ``sin(x/2) = 0``, ``x != 0``; callers check that first.
    """
    small, xs = _split(x, SERIES_THRESHOLD)
    h = 0.5 * xs
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = (1.0 - h * np.cos(h) / np.sin(h)) / xs**2
    return np.where(small, _horner(np.square(x), _C_HALF_COT), direct)


def se3_c2(x) -> np.ndarray:
    """``(x**2 + 2 cos x - 2) / (2 x**4)`` (series for ``|x| < 2``)."""
    small, xs = _split(x, SERIES_THRESHOLD)
    return np.where(
        small, _horner(np.square(x), _C_SE3_C2), (xs**2 + 2.0 * np.cos(xs) - 2.0) / (2.0 * xs**4)
    )


def se3_c3(x) -> np.ndarray:
    """``(2x - 3 sin x + x cos x) / (2 x**5)`` (series for ``|x| < 2``)."""
    small, xs = _split(x, SERIES_THRESHOLD)
    direct = (2.0 * xs - 3.0 * np.sin(xs) + xs * np.cos(xs)) / (2.0 * xs**5)
    return np.where(small, _horner(np.square(x), _C_SE3_C3), direct)
