r"""C-contiguous views of a flat array, for the kernels' work arrays and the packed model.

A kernel takes its work arrays (transforms, twists, forces, ...) from one allocation, and
:func:`~geomech.multibody._kernels.compiled.unpack` takes the model's arrays from one packed
array. ``buf[o: o + n].reshape(shape)`` does that, but numba's ``reshape`` calls a C helper
to work out the strides (about 15 ns a call, a tenth of a microsecond for a kernel that
carves out half a dozen arrays); :func:`view` writes the strides of the C-contiguous view
directly. The view shares ``buf``'s memory and keeps it alive.
"""

from __future__ import annotations

from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

from geomech.errors import DimensionError
from geomech.multibody._kernels.jit import INLINE

__all__ = ["view"]


@intrinsic
def _c_view(typingctx, buf, start, shape):
    """The C-contiguous array of ``shape`` at ``buf.data + start`` (no checks)."""
    if not (
        isinstance(buf, types.Array)
        and buf.ndim == 1
        and buf.layout == "C"
        and isinstance(shape, types.UniTuple)
        and isinstance(shape.dtype, types.Integer)
    ):
        return None
    result = types.Array(buf.dtype, shape.count, "C")

    def codegen(context, builder, sig, args):
        src = make_array(sig.args[0])(context, builder, args[0])
        intp = context.get_value_type(types.intp)
        dims = [
            builder.sext(d, intp) if d.type.width < intp.width else d
            for d in cgutils.unpack_tuple(builder, args[2])
        ]
        itemsize = src.itemsize
        strides, stride = [], itemsize
        for d in reversed(dims):  # C order: the last index is contiguous
            strides.insert(0, stride)
            stride = builder.mul(stride, d)
        out = make_array(result)(context, builder)
        populate_array(
            out,
            data=builder.gep(src.data, [args[1]]),
            shape=dims,
            strides=strides,
            itemsize=itemsize,
            meminfo=src.meminfo,
            parent=src.parent,
        )
        value = out._getvalue()
        context.nrt.incref(builder, result, value)  # the view holds a reference to buf
        return value

    return result(buf, types.intp, shape), codegen


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
    n = 1
    for d in shape:
        n *= d
    if start < 0 or n < 0 or start + n > buf.shape[0]:
        raise DimensionError(
            "Expected a block of the work buffer within its length (a kernel's "
            "sizes are inconsistent), got one beyond it."
        )
    return _c_view(buf, start, shape)
