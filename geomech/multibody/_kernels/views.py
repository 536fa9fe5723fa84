r"""C-contiguous views of a flat array, for the kernels' work arrays and the packed model.

A kernel declares its work arrays (transforms, twists, forces, ...) as a tuple of shapes,
and :func:`workspace` returns them as consecutive views of one allocation;
:func:`~geomech.multibody._kernels.compiled.unpack` takes the model's arrays from one packed
array with :func:`carve`. No offset is written by hand: each view starts where the previous
one ends. ``buf[o: o + n].reshape(shape)`` would do the same, but numba's ``reshape`` calls a
C helper to work out the strides (about 15 ns a call, a tenth of a microsecond for a kernel
that carves out half a dozen arrays); here the strides of each C-contiguous view are written
directly, in one intrinsic, with no allocation besides the buffer. Every view shares the
buffer's memory and keeps it alive.

The kernels of RNEA, CRBA, ABA and Algorithm 1 and :func:`~.compiled.unpack` cut their
arrays from one buffer this way. The kernels that make their work arrays one ``np.empty`` at
a time keep doing so: cut from one buffer, several of them measured 3–12 % slower per state
(issue 23 item 4: the batch work arrays of the derivatives, C-ABA, the cluster constraint
kernel and cluster Algorithm 1; the per-call arrays of the Slotine–Li torques and of
:math:`\bar C^\top w`); for C-ABA the machine code of the per-state kernel is the same
either way, so this is a memory-layout effect, which neither padding every view to 32 or 64
bytes nor dropping the views' shared reference count removed.

Examples
--------
>>> from numba import njit
>>> from geomech.multibody._kernels.views import workspace
>>> @njit
... def work(N, nv):
...     E, r, Phi, x = workspace(((N, 3, 3), (N, 3), (nv, 6), (6,)))
...     return E.shape, r.shape, Phi.shape, x.shape
>>> work(4, 7)
((4, 3, 3), (4, 3), (7, 6), (6,))
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

from geomech.errors import DimensionError
from geomech.multibody._kernels.jit import INLINE

__all__ = ["total", "carve", "workspace", "view"]


def _is_shapes(shapes) -> bool:
    """Whether a numba type is a tuple of tuples of integers."""
    return isinstance(shapes, types.BaseTuple) and all(
        isinstance(s, types.BaseTuple) and all(isinstance(d, types.Integer) for d in s.types)
        for s in shapes.types
    )


def _dims(context, builder, shape_type, shape):
    """The entries of a shape tuple as ``intp`` values."""
    return [
        context.cast(builder, d, t, types.intp)
        for d, t in zip(cgutils.unpack_tuple(builder, shape), shape_type.types, strict=True)
    ]


def _product(context, builder, dims):
    n = context.get_constant(types.intp, 1)
    for d in dims:
        n = builder.mul(n, d)
    return n


@intrinsic
def total(typingctx, shapes):
    """The number of entries of arrays of ``shapes`` (a tuple of shape tuples), in all.

    Examples
    --------
    >>> from numba import njit
    >>> from geomech.multibody._kernels.views import total
    >>> njit(lambda n: total(((n, 3, 3), (n, 3), (6,))))(2)
    30
    """
    if not _is_shapes(shapes):
        return None

    def codegen(context, builder, sig, args):
        n = context.get_constant(types.intp, 0)
        for shape_type, shape in zip(
            sig.args[0].types, cgutils.unpack_tuple(builder, args[0]), strict=True
        ):
            dims = _dims(context, builder, shape_type, shape)
            n = builder.add(n, _product(context, builder, dims))
        return n

    return types.intp(shapes), codegen


@intrinsic
def _c_views(typingctx, buf, start, shapes):
    """The C-contiguous arrays of ``shapes``, end to end from ``buf.data + start`` (no checks)."""
    if not (
        isinstance(buf, types.Array)
        and buf.ndim == 1
        and buf.layout == "C"
        and isinstance(start, types.Integer)
        and _is_shapes(shapes)
    ):
        return None
    # views of a read-only buffer (the packed model, ``CompiledModel.packed``) are read-only:
    # the same array type as the rows of the batch kernels' read-only model arrays
    readonly = not buf.mutable
    arrays = [types.Array(buf.dtype, len(s.types), "C", readonly=readonly) for s in shapes.types]
    result = types.Tuple(arrays)

    def codegen(context, builder, sig, args):
        src = make_array(sig.args[0])(context, builder, args[0])
        offset = context.cast(builder, args[1], sig.args[1], types.intp)
        itemsize = src.itemsize
        views = []
        for array_type, shape_type, shape in zip(
            arrays, sig.args[2].types, cgutils.unpack_tuple(builder, args[2]), strict=True
        ):
            dims = _dims(context, builder, shape_type, shape)
            strides, stride = [], itemsize
            for d in reversed(dims):  # C order: the last index is contiguous
                strides.insert(0, stride)
                stride = builder.mul(stride, d)
            out = make_array(array_type)(context, builder)
            populate_array(
                out,
                data=builder.gep(src.data, [offset]),
                shape=dims,
                strides=strides,
                itemsize=itemsize,
                meminfo=src.meminfo,
                parent=src.parent,
            )
            value = out._getvalue()
            context.nrt.incref(builder, array_type, value)  # each view holds a reference to buf
            views.append(value)
            offset = builder.add(offset, _product(context, builder, dims))
        return context.make_tuple(builder, sig.return_type, views)

    return result(buf, start, shapes), codegen


@njit(**INLINE)
def carve(buf, start, shapes):
    """Consecutive C-contiguous views of ``buf`` from ``start`` on, one per shape of ``shapes``.

    ``buf`` is a 1-D C-contiguous array, ``shapes`` a tuple of tuples of integers; view
    ``k + 1`` starts where view ``k`` ends.

    Raises
    ------
    DimensionError
        If the views do not lie within ``buf`` (a kernel's sizes are inconsistent: a bug,
        never a user's input).

    Examples
    --------
    >>> import numpy as np
    >>> from numba import njit
    >>> from geomech.multibody._kernels.views import carve
    >>> @njit
    ... def blocks(buf):
    ...     return carve(buf, 1, ((2, 3), (2,)))
    >>> blocks(np.arange(10.0))
    (array([[1., 2., 3.],
           [4., 5., 6.]]), array([7., 8.]))
    """
    if start < 0 or start + total(shapes) > buf.shape[0]:
        raise DimensionError(
            "Expected a block of the work buffer within its length (a kernel's "
            "sizes are inconsistent), got one beyond it."
        )
    return _c_views(buf, start, shapes)


@njit(**INLINE)
def workspace(shapes):
    """A kernel's work arrays: one C-contiguous float array per shape of ``shapes``, all views
    of one new allocation (uninitialised, as :func:`numpy.empty`).

    Examples
    --------
    >>> from numba import njit
    >>> from geomech.multibody._kernels.views import workspace
    >>> @njit
    ... def work(n):
    ...     a, b = workspace(((n, 2), (3,)))
    ...     a[:] = 1.0
    ...     b[:] = 2.0
    ...     return a, b
    >>> work(2)
    (array([[1., 1.],
           [1., 1.]]), array([2., 2., 2.]))
    """
    return _c_views(np.empty(total(shapes)), 0, shapes)


@njit(**INLINE)
def view(buf, start, shape):
    """``buf[start: start + prod(shape)].reshape(shape)`` without numba's reshape call.

    ``buf`` is a 1-D C-contiguous array, ``shape`` a tuple of integers.

    Raises
    ------
    DimensionError
        If the block ``[start, start + prod(shape))`` does not lie within ``buf`` (a
        kernel's sizes are inconsistent: a bug, never a user's input).

    Examples
    --------
    >>> import numpy as np
    >>> from numba import njit
    >>> from geomech.multibody._kernels.views import view
    >>> @njit
    ... def blocks(buf):
    ...     return view(buf, 2, (2, 3))
    >>> blocks(np.arange(10.0))
    array([[2., 3., 4.],
           [5., 6., 7.]])
    """
    return carve(buf, start, (shape,))[0]
