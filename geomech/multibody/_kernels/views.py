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

The kernels of RNEA, CRBA, ABA and Algorithm 1, the cluster kernels (C-RNEA, C-ABA,
C-EFPA: each per-state kernel cuts its views from the one buffer it is given, so no tuple of
views crosses a compiled call, whose reference counts cost C-ABA about 0.45 µs a call) and
:func:`~.compiled.unpack` cut their arrays from one buffer this way; the single-state entry
points and the batch drivers of the tree's RNEA, CRBA, ABA and Coriolis matrix, compiled
without numba's runtime, take theirs from the stack or the C heap (:func:`frame`: nothing
allocated by numba, nothing counted) and borrow the model's views and the rows of their
batches (:func:`borrow`, :func:`row`: no reference counts). The first-order derivatives'
per-state cores, also compiled without the runtime (``_nrt=False``), borrow every work array
from one buffer: a :func:`stack` buffer in their single-state entry points, one ``np.empty``
per batch, with the integer arrays cut by :func:`int_view`; an owned view made without the
runtime holds no reference (there is no count to raise).

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
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

from geomech.errors import DimensionError
from geomech.multibody._kernels.jit import INLINE

__all__ = [
    "total",
    "carve",
    "borrow",
    "workspace",
    "stack",
    "int_view",
    "frame",
    "frame_large",
    "release",
    "release_large",
    "view",
    "STACK",
    "STACK_LARGE",
]


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


def _views_intrinsic(owned: bool):
    """The intrinsic ``(buf, start, shapes) -> views``: C-contiguous arrays of ``shapes``, end to
    end from ``buf.data + start`` (no checks); each holds a reference to ``buf`` when ``owned``,
    none otherwise (a *borrowed* view: no atomic reference count to raise when it is made and
    to drop when it dies, ~10 ns each, but valid only while ``buf`` is alive).
    """

    def views(typingctx, buf, start, shapes):
        if not (
            isinstance(buf, types.Array)
            and buf.ndim == 1
            and buf.layout == "C"
            and isinstance(start, types.Integer)
            and _is_shapes(shapes)
        ):
            return None
        # views of a read-only buffer (the packed model, ``CompiledModel.packed``) are
        # read-only: the same array type as the rows of the batch kernels' read-only arrays
        readonly = not buf.mutable
        arrays = [
            types.Array(buf.dtype, len(s.types), "C", readonly=readonly) for s in shapes.types
        ]
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
                    meminfo=src.meminfo if owned else None,
                    parent=src.parent if owned else None,
                )
                value = out._getvalue()
                if owned and context.enable_nrt:  # each view holds a reference to buf
                    context.nrt.incref(builder, array_type, value)  # (none without the runtime)
                views.append(value)
                offset = builder.add(offset, _product(context, builder, dims))
            return context.make_tuple(builder, sig.return_type, views)

        return result(buf, start, shapes), codegen

    views.__name__ = "_c_views" if owned else "_c_borrowed"
    return intrinsic(views)


_c_views = _views_intrinsic(True)
_c_borrowed = _views_intrinsic(False)


@njit(**INLINE)
def _check_within(buf, start, shapes):
    """Raise unless views of ``shapes`` from ``start`` on lie within the 1-D ``buf``."""
    if start < 0 or start + total(shapes) > buf.shape[0]:
        raise DimensionError(
            "Expected a block of the work buffer within its length (a kernel's "
            "sizes are inconsistent), got one beyond it."
        )


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
    _check_within(buf, start, shapes)
    return _c_views(buf, start, shapes)


@njit(**INLINE)
def borrow(buf, start, shapes):
    """:func:`carve` without references: views valid only while ``buf`` is alive.

    For arrays a kernel receives as arguments (the packed model, a result it writes): their
    owner is the caller, alive for the whole call, and a view that holds no reference costs
    nothing to make or to drop (a reference is an atomic count, raised and dropped again for
    every view and every view passed on to a function that is not inlined: 0.1–0.3 µs of a
    single-state kernel's call). Never return such a view, nor store it beyond the call.

    Raises
    ------
    DimensionError
        If the views do not lie within ``buf`` (a kernel's sizes are inconsistent: a bug).

    Examples
    --------
    >>> import numpy as np
    >>> from numba import njit
    >>> from geomech.multibody._kernels.views import borrow
    >>> @njit
    ... def corner(buf):
    ...     a, b = borrow(buf, 1, ((2, 3), (2,)))
    ...     return a[1, 2] + b[1]
    >>> corner(np.arange(10.0))
    14.0
    """
    _check_within(buf, start, shapes)
    return _c_borrowed(buf, start, shapes)


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


#: entries of the stack buffer of :func:`frame` (4 KiB of the kernel's stack frame: a frame of
#: 8 KiB or more made the single-state RNEA ~0.06 µs slower, whatever part of it was used)
STACK = 512
#: entries of the stack buffer of :func:`frame_large` (16 KiB): for work arrays that do not
#: fit in :data:`STACK` entries on small arms (ABA's articulated inertias, Algorithm 1's
#: factors), a large frame still costs less than an allocation on the heap
STACK_LARGE = 2048


def _unit_array(context, builder, array_type, data, count):
    """The LLVM value of a 1-D C-contiguous ``array_type`` (8-byte items) of ``count`` entries at
    the pointer ``data``, holding no reference (no ``meminfo``): the arrays of the intrinsics
    below.
    """
    item = context.get_value_type(array_type.dtype).as_pointer()
    out = make_array(array_type)(context, builder)
    populate_array(
        out,
        data=builder.bitcast(data, item),
        shape=[count],
        strides=[context.get_constant(types.intp, 8)],
        itemsize=context.get_constant(types.intp, 8),
        meminfo=None,
    )
    return out._getvalue()


@intrinsic
def _stack_buffer(typingctx, n):
    """A float64 array of ``n`` (a compile-time constant) entries in the calling function's
    stack frame (one ``alloca`` in its entry block: nothing to allocate, to free or to count).
    """
    if not isinstance(n, types.IntegerLiteral):
        return None  # numba retries with the literal value
    size = n.literal_value
    array_type = types.Array(types.float64, 1, "C")

    def codegen(context, builder, sig, args):
        dbl = context.get_value_type(types.float64)
        block = cgutils.alloca_once(builder, ir.ArrayType(dbl, size))
        count = context.get_constant(types.intp, size)
        return _unit_array(context, builder, array_type, block, count)

    return array_type(n), codegen


@njit(**INLINE)
def stack(n):
    """A float64 array of ``n`` entries (a compile-time constant) in the calling kernel's stack
    frame, with no heap fallback (unlike :func:`frame`): for an entry point compiled without
    numba's runtime (``_nrt=False``) that hands larger work to another entry point itself.
    Inlined; the array must not leave that kernel.

    Examples
    --------
    >>> from numba import njit
    >>> from geomech.multibody._kernels.views import stack
    >>> @njit(_nrt=False)
    ... def fits(n):
    ...     buf = stack(64)
    ...     buf[:n] = 1.0
    ...     return buf[:n].sum()
    >>> fits(3)
    3.0
    """
    return _stack_buffer(n)


@intrinsic
def int_view(typingctx, buf, start, n):
    """``n`` int64 entries over the float64 entries ``start .. start + n`` of the C-contiguous
    1-D ``buf`` (same item size), a borrowed view (no reference, no check): the integer work
    arrays of a kernel carved from its one float buffer.

    Examples
    --------
    >>> import numpy as np
    >>> from numba import njit
    >>> from geomech.multibody._kernels.views import int_view
    >>> @njit
    ... def count(buf):
    ...     k = int_view(buf, 1, 3)
    ...     for i in range(3):
    ...         k[i] = 10 * i
    ...     return k.sum()
    >>> count(np.zeros(5))
    30
    """
    if not (
        isinstance(buf, types.Array)
        and buf.ndim == 1
        and buf.layout == "C"
        and buf.dtype == types.float64
        and isinstance(start, types.Integer)
        and isinstance(n, types.Integer)
    ):
        return None
    out_type = types.Array(types.int64, 1, "C")

    def codegen(context, builder, sig, args):
        src = make_array(sig.args[0])(context, builder, args[0])
        offset = context.cast(builder, args[1], sig.args[1], types.intp)
        count = context.cast(builder, args[2], sig.args[2], types.intp)
        data = builder.gep(src.data, [offset])
        return _unit_array(context, builder, out_type, data, count)

    return out_type(buf, start, n), codegen


@intrinsic
def _malloc(typingctx, n):
    """A float64 array of ``n`` entries from the C heap (``malloc``), without a ``meminfo``:
    nothing for numba's runtime to count, and nothing that frees it but :func:`_free`. An
    array of no entries when the allocation fails (``borrow`` then refuses the views).
    """
    if not isinstance(n, types.Integer):
        return None
    array_type = types.Array(types.float64, 1, "C")

    def codegen(context, builder, sig, args):
        intp = context.get_value_type(types.intp)
        count = context.cast(builder, args[0], sig.args[0], types.intp)
        fnty = ir.FunctionType(cgutils.voidptr_t, [intp])
        malloc = cgutils.get_or_insert_function(builder.module, fnty, "malloc")
        data = builder.call(malloc, [builder.mul(count, ir.Constant(intp, 8))])
        count = builder.select(cgutils.is_not_null(builder, data), count, ir.Constant(intp, 0))
        return _unit_array(context, builder, array_type, data, count)

    return array_type(n), codegen


@intrinsic
def _free(typingctx, buf):
    """Gives an array of :func:`_malloc` back to the C heap (``free``)."""
    if not (isinstance(buf, types.Array) and buf.ndim == 1):
        return None

    def codegen(context, builder, sig, args):
        src = make_array(sig.args[0])(context, builder, args[0])
        fnty = ir.FunctionType(ir.VoidType(), [cgutils.voidptr_t])
        free = cgutils.get_or_insert_function(builder.module, fnty, "free")
        builder.call(free, [builder.bitcast(src.data, cgutils.voidptr_t)])
        return context.get_dummy_value()

    return types.none(buf), codegen


@njit(**INLINE)
def frame(shapes):
    """A kernel's work arrays without numba's runtime: ``(buf, views)``, the views borrowed from a
    buffer in the calling kernel's stack frame (:data:`STACK` entries) or, for larger arrays,
    from the C heap; the kernel gives it back with :func:`release` once the views are no
    longer used.

    For the kernels compiled without numba's reference counting (``jit.FMA_ENTRY``,
    ``FMA_BATCH``), which can neither allocate a NumPy array nor hold a counted reference:
    nothing here is counted. A heap buffer is freed only by :func:`release`: the kernel
    releases it on every path that returns (a raised error, which only a bug can cause,
    leaks it).

    Raises
    ------
    DimensionError
        If the heap has no room for the arrays.

    Examples
    --------
    >>> from numba import njit
    >>> from geomech.multibody._kernels.views import frame, release
    >>> @njit(_nrt=False)
    ... def norm2(n):
    ...     buf, (x, y) = frame(((n,), (3,)))
    ...     for k in range(n):
    ...         x[k] = 2.0
    ...     s = 0.0
    ...     for k in range(n):
    ...         s += x[k] * x[k]
    ...     release(buf)
    ...     return s
    >>> norm2(4), norm2(5000)
    (16.0, 20000.0)
    """
    n = total(shapes)
    buf = _stack_buffer(STACK) if n <= STACK else _malloc(n)
    return buf, borrow(buf, 0, shapes)


@njit(**INLINE)
def frame_large(shapes):
    """:func:`frame` with a stack buffer of :data:`STACK_LARGE` entries (:func:`release_large`)."""
    n = total(shapes)
    buf = _stack_buffer(STACK_LARGE) if n <= STACK_LARGE else _malloc(n)
    return buf, borrow(buf, 0, shapes)


@njit(**INLINE)
def release(buf):
    """Frees the buffer of :func:`frame` when it is on the heap (a stack buffer has exactly
    :data:`STACK` entries, a heap one more, or none when its allocation failed).
    """
    if buf.shape[0] != STACK:
        _free(buf)


@njit(**INLINE)
def release_large(buf):
    """:func:`release` for :func:`frame_large`."""
    if buf.shape[0] != STACK_LARGE:
        _free(buf)


@intrinsic
def _borrowed_row(typingctx, x, b):
    """Row ``b`` of the C-contiguous array ``x`` (``x[b]``), a borrowed view (no reference)."""
    if not (
        isinstance(x, types.Array)
        and x.ndim >= 2
        and x.layout == "C"
        and isinstance(b, types.Integer)
    ):
        return None
    row_type = types.Array(x.dtype, x.ndim - 1, "C", readonly=not x.mutable)

    def codegen(context, builder, sig, args):
        src = make_array(sig.args[0])(context, builder, args[0])
        index = context.cast(builder, args[1], sig.args[1], types.intp)
        shape = cgutils.unpack_tuple(builder, src.shape, x.ndim)
        strides = cgutils.unpack_tuple(builder, src.strides, x.ndim)
        offset = builder.mul(index, builder.udiv(strides[0], src.itemsize))
        out = make_array(row_type)(context, builder)
        populate_array(
            out,
            data=builder.gep(src.data, [offset]),
            shape=shape[1:],
            strides=strides[1:],
            itemsize=src.itemsize,
            meminfo=None,
        )
        return out._getvalue()

    return row_type(x, b), codegen


@njit(**INLINE)
def row(x, b):
    """Row ``b`` of a per-state array of a batch, or its only row when the batch shares it
    (:func:`~geomech.multibody._kernels.jit.at`), as a borrowed view: valid while ``x`` is,
    with no reference count to raise and drop per state and array (a batch driver's rows of
    its arguments; ~0.1 µs a state for the eight arrays of RNEA).

    Examples
    --------
    >>> import numpy as np
    >>> from numba import njit
    >>> from geomech.multibody._kernels.views import row
    >>> @njit
    ... def second(x):
    ...     return row(x, 1).sum(), row(x[:1], 1).sum()
    >>> second(np.arange(6.0).reshape(3, 2))
    (5.0, 1.0)
    """
    return _borrowed_row(x, b if x.shape[0] > 1 else 0)


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
