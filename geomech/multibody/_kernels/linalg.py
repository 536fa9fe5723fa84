r"""Small dense linear algebra for the kernels: Cholesky factors and inverses of SPD blocks.

The cluster algorithms' blocks :math:`\mathbf D_i = \boldsymbol\Phi_i^\top\mathbf I^A_i
\boldsymbol\Phi_i` are inverted here by Cholesky, which is also their singularity test (a pivot at
most a fraction of the articulated inertia's scale); ABA uses the same test and factorisation,
written inline with its substitutions (:mod:`~geomech.multibody._kernels.tree.dynamics`).

References
----------
Featherstone 2008, Table 7.1 (:math:`\mathbf D_i^{-1}`); seed 004 Algorithm 1 (C-ABA).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from geomech.multibody._kernels.jit import INLINE, JIT

__all__ = ["cholesky", "cholesky_inverse", "SINGULAR_RTOL"]

#: A block counts as singular when a pivot of its Cholesky factorisation is at most this
#: fraction of ``scale`` (a size of the articulated inertia it comes from).
SINGULAR_RTOL = 1e-12


@njit(**INLINE)
def cholesky(D, d, scale, L):
    """``L`` lower triangular with ``L Lᵀ = D`` (d×d SPD, its lower triangle read); False when a
    pivot ≤ rtol·scale.

    Only the leading d×d lower triangle of ``L`` is written.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody._kernels.linalg import cholesky
    >>> D, L = np.array([[4.0, 2.0], [2.0, 3.0]]), np.zeros((2, 2))
    >>> cholesky(D, 2, 4.0, L), L.tolist()
    (True, [[2.0, 0.0], [1.0, 1.4142135623730951]])
    """
    for i in range(d):
        for j in range(i + 1):
            s = D[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            if i == j:
                if not s > SINGULAR_RTOL * scale:
                    return False
                L[i, i] = np.sqrt(s)
            else:
                L[i, j] = s / L[j, j]
    return True


@njit(**JIT)
def cholesky_inverse(D, d, scale, Dinv, L):
    """``Dinv`` = the inverse of the SPD d×d block ``D`` by Cholesky; False when a pivot ≤
    rtol·scale.

    ``L`` is a d×d (or larger) work array; only the leading d×d blocks are read and written.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody._kernels.linalg import cholesky_inverse
    >>> D, Dinv, L = np.array([[4.0, 2.0], [2.0, 3.0]]), np.empty((2, 2)), np.empty((2, 2))
    >>> cholesky_inverse(D, 2, 4.0, Dinv, L), bool(np.allclose(Dinv @ D, np.eye(2)))
    (True, True)
    >>> cholesky_inverse(np.zeros((1, 1)), 1, 1.0, Dinv, L)
    False
    """
    if not cholesky(D, d, scale, L):
        return False
    # Dinv = L⁻ᵀ L⁻¹: invert L column by column, then multiply
    for c in range(d):
        for i in range(d):  # forward substitution L y = e_c, stored in Dinv[:, c]
            s = 1.0 if i == c else 0.0
            for k in range(i):
                s -= L[i, k] * Dinv[k, c]
            Dinv[i, c] = s / L[i, i]
    for c in range(d):  # back substitution Lᵀ x = y
        for i in range(d - 1, -1, -1):
            s = Dinv[i, c]
            for k in range(i + 1, d):
                s -= L[k, i] * Dinv[k, c]
            Dinv[i, c] = s / L[i, i]
    return True
