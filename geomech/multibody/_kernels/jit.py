r"""The numba options of every kernel, and the two helpers of their batch drivers.

- :data:`JIT` — ``cache=True`` (a new process loads the machine code from ``__pycache__``
  instead of compiling again), ``nogil=True`` (the driver's threads run batches in
  parallel) and ``error_model="numpy"`` (a division by zero gives inf or NaN, which the
  kernels report as a status, instead of raising from inside the kernel);
- :data:`INLINE` — the same, inlined at numba's IR level into every caller (small helpers
  on 3- and 6-vectors called in the inner loops);
- :data:`FMA` — the same, with fused multiply-adds (``fastmath={"contract"}`` only: no
  reassociation, NaN and inf semantics kept);
- :data:`FMA_INLINE` — :data:`FMA`, inlined at numba's IR level: the one-state core of an
  algorithm that its single-state entry point, its batch driver and its one-state kernel all
  inline (no call with a dozen array arguments per state; the inlined code is compiled with
  the caller's options, so every caller is an :data:`FMA` function);
- :data:`FMA_BATCH` — :data:`FMA` without numba's runtime (``_nrt=False``): for the batch
  drivers of the tree's dynamics and the derivatives' per-state cores, which allocate
  nothing from numba (their work arrays come from
  :func:`~geomech.multibody._kernels.views.frame` or the caller) and hold no counted reference: the
  arrays they are given are unboxed without a ``meminfo`` (an entry point of six arrays 0.24
  -> 0.12 µs a call), and no view made inside counts a reference. numba compiles the
  functions such a kernel calls (those not inlined) with its options too: they must not
  allocate nor return an array (a cached callee serves callers with and without the
  runtime);
- :data:`FMA_ENTRY` — :data:`FMA_BATCH` holding the GIL (``nogil=False``): for the
  single-state entry points, whose call is shorter than releasing and taking back the GIL
  (~30 ns a call; a batch driver keeps ``nogil``: the driver's threads run its chunks);
- :func:`first_failure` — what a ``*_batch`` driver returns: the first failed state + 1,
  or 0;
- :func:`at` — row ``b`` of a per-state array, or its only row when the batch shares it.
"""

from __future__ import annotations

from numba import njit

from geomech.multibody._kernels.status import OK

__all__ = ["JIT", "INLINE", "FMA", "FMA_INLINE", "FMA_BATCH", "FMA_ENTRY", "first_failure", "at"]

JIT = dict(cache=True, nogil=True, error_model="numpy")
INLINE = dict(JIT, inline="always")
FMA = dict(JIT, fastmath={"contract"})
FMA_INLINE = dict(FMA, inline="always")
FMA_BATCH = dict(FMA, _nrt=False)
FMA_ENTRY = dict(FMA_BATCH, nogil=False)


@njit(**JIT)
def first_failure(status):
    """The index + 1 of the first state whose status is not ``OK``, or 0 when all succeeded.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody._kernels.jit import first_failure
    >>> first_failure.py_func(np.array([0, 0, 19, 3])), first_failure.py_func(np.zeros(2, int))
    (3, 0)
    """
    for b in range(status.shape[0]):
        if status[b] != OK:
            return b + 1
    return 0


@njit(**JIT)
def at(x, b):
    """Row ``b`` of a per-state array, or its only row when it is shared by the batch.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody._kernels.jit import at
    >>> at.py_func(np.arange(6).reshape(3, 2), 2), at.py_func(np.arange(2)[None], 2)
    (array([4, 5]), array([0, 1]))
    """
    return x[b] if x.shape[0] > 1 else x[0]
