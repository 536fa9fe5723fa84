"""Status codes reported by the kernels; the Python wrappers raise the named errors.

A kernel returns ``0`` on success, else ``code + 8 * (index + 1)`` where ``index`` is the
body (or joint) concerned (``-1`` when none), see :func:`pack` / :func:`unpack`.
"""

from __future__ import annotations

from numba import njit

__all__ = [
    "OK",
    "NON_FINITE_INPUT",
    "NOT_ON_MANIFOLD",
    "SINGULAR",
    "NON_FINITE_RESULT",
    "SINGULAR_DIFFERENCE",
    "NOT_CONVERGED",
    "NOT_A_VECTOR",
    "pack",
    "unpack",
]

OK = 0
NON_FINITE_INPUT = 1  #: a NaN or inf entry in an input (the wrapper names the input)
NOT_ON_MANIFOLD = 2  #: a quaternion of a body's joint is not of unit norm
SINGULAR = 3  #: the articulated inertia Φᵀ I^A Φ of a body is singular (ABA)
NON_FINITE_RESULT = 4  #: the result overflowed (inputs finite but too large)
SINGULAR_DIFFERENCE = 5  #: q1 ⊖ q0 is undefined (planar angle step of 2πk, k ≠ 0)
NOT_CONVERGED = 6  #: the closure's Gauss–Newton found no step lowering the residual
#: an input of a single-state entry point (``*_one``) is not a contiguous vector of its
#: model's length: the public function takes its general path, which converts it or names
#: the error (negative: never a packed status)
NOT_A_VECTOR = -1


@njit(cache=True, nogil=True)
def pack(code, index):
    """One integer from a code and a body index (-1 for none)."""
    return code + 8 * (index + 1)


def unpack(status: int) -> tuple[int, int]:
    """``(code, index)`` of a packed status.

    Examples
    --------
    >>> from geomech.multibody._kernels.status import SINGULAR, pack, unpack
    >>> unpack(pack(SINGULAR, 4)) == (SINGULAR, 4)
    True
    """
    return status % 8, status // 8 - 1
