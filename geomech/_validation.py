"""Input validation at the public boundary (private helpers shared by every module).

All helpers raise a :class:`~geomech.errors.GeomechError` subclass whose message names the
input and says what was expected and what was received.
"""

from __future__ import annotations

import math

import numpy as np

from geomech.errors import (
    DimensionError,
    DTypeError,
    GeomechError,
    InertiaError,
    ModelError,
    NonFiniteError,
    NotOnManifoldError,
    SingularityError,
)

__all__ = [
    "as_array",
    "batch_element",
    "as_matrix",
    "check_allocation",
    "check_batch_ndim",
    "check_full_column_rank",
    "check_finite",
    "check_real",
    "check_result",
    "check_size",
    "check_rotation",
    "check_spd",
    "check_symmetric",
    "default_rng",
    "check_q",
    "check_v",
    "check_placement",
    "MAX_ARRAY_BYTES",
    "MAX_BATCH_NDIM",
]

#: Default tolerance for membership tests (orthonormality, symmetry).
MANIFOLD_TOL = 1e-6

#: A matrix is rank deficient when its singular values have ratio ``<= RANK_RTOL``.
RANK_RTOL = 1e-10


def _shape_str(shape) -> str:
    return "(..., " + ", ".join(str(s) for s in shape) + ")" if shape else "(...)"


def batch_element(bad: np.ndarray, core_ndim: int = 0) -> str:
    """`` (batch element (i, j))`` of the first True of ``bad`` over its leading dimensions.

    ``bad`` has shape ``(*batch, *core)`` with ``core_ndim`` trailing dimensions; an element
    is bad where any of its core entries is. Empty for an input without batch dimensions.
    """
    lead = bad.shape[: bad.ndim - core_ndim]
    if not lead:
        return ""
    rows = bad.reshape(lead + (-1,)).any(axis=-1) if core_ndim else bad
    first = np.unravel_index(int(np.argmax(rows)), lead)
    return f" (batch element {tuple(int(k) for k in first)})"


def check_finite(x: np.ndarray, name: str, core_ndim: int | None = None) -> np.ndarray:
    """Raise :class:`NonFiniteError` if ``x`` has NaN or infinite entries.

    With ``core_ndim`` (the number of trailing dimensions of one element), the message names
    the first batch element that has one.
    """
    finite = np.isfinite(x)
    if not finite.all():
        where = "" if core_ndim is None else batch_element(~finite, core_ndim)
        raise NonFiniteError(f"Expected `{name}` to be finite, got NaN or inf entries{where}.")
    return x


#: dtype kinds accepted as real numbers (bool, signed and unsigned integers, floats).
_REAL_KINDS = "biuf"
_KIND_NAMES = {"c": "complex", "O": "object", "U": "text", "S": "bytes", "V": "void",
               "M": "datetime", "m": "timedelta"}  # fmt: skip


def check_real(x, name: str):
    """Refuse complex data (a float conversion would drop its imaginary part); return ``x``.

    For inputs that are converted later, or not at all (``None`` passes).

    Raises
    ------
    DTypeError
        If ``x`` has a complex dtype.
    """
    if np.iscomplexobj(x):
        raise DTypeError(
            f"Expected `{name}` to be real, got complex values (their imaginary part would be "
            "dropped)."
        )
    return x


def check_result(x: np.ndarray, what: str, inputs: str) -> np.ndarray:
    """Raise :class:`NonFiniteError` if a result computed from finite inputs overflowed.

    Parameters
    ----------
    x : ndarray
        The result.
    what : str
        What the result is (e.g. ``"SE3.exp(xi)"``).
    inputs : str
        The inputs to blame (e.g. ``"`xi`"``), named in the message.
    """
    if not np.all(np.isfinite(x)):
        raise NonFiniteError(
            f"{what} overflowed to inf or NaN: {inputs} too large in magnitude for float64."
        )
    return x


#: Largest array, in bytes, that a size argument or a batch may make geomech allocate (its
#: results and working arrays, estimated before allocating): 1 GiB. Larger requests are
#: refused with a :class:`DimensionError` before any memory is taken.
MAX_ARRAY_BYTES = 2**30


def check_allocation(n_floats, what: str, hint: str = "") -> None:
    """Raise :class:`DimensionError` if ``n_floats`` float64 numbers exceed the limit.

    The limit is :data:`MAX_ARRAY_BYTES`.

    Parameters
    ----------
    n_floats : int or float
        Number of float64 numbers to be allocated.
    what : str
        What they are, for the message (e.g. ``"the batch of 10 states"``).
    hint : str
        What to do instead, appended to the message.
    """
    nbytes = 8.0 * float(n_floats)
    if not nbytes <= MAX_ARRAY_BYTES:
        raise DimensionError(
            f"Expected at most {MAX_ARRAY_BYTES / 2**20:.0f} MiB of arrays, but {what} would "
            f"take {nbytes / 2**20:.4g} MiB{hint}."
        )


def check_size(size, name: str = "size", per_item: int | None = None) -> tuple[int, ...]:
    """``size`` (None, a nonnegative int or a sequence of them) as a shape tuple.

    With ``per_item`` (float64 numbers per item: the element's size times the working arrays
    per element), the total is also checked against :data:`MAX_ARRAY_BYTES`.

    Raises
    ------
    DTypeError
        If ``size`` (or an entry) is not an integer (bools and floats are refused).
    DimensionError
        If an entry is negative, there are more than 32 entries, or the arrays would be too
        large.
    """
    if size is None:
        return ()
    items = (size,) if isinstance(size, (int, np.integer)) else size
    if isinstance(items, (str, bytes)):
        raise DTypeError(f"Expected `{name}` to be None, an int or a tuple of ints, got {size!r}.")
    try:
        items = tuple(items)
    except TypeError as exc:
        raise DTypeError(
            f"Expected `{name}` to be None, an int or a tuple of ints, got {type(size).__name__}."
        ) from exc
    for s in items:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)):
            raise DTypeError(
                f"Expected `{name}` to be None, an int or a tuple of ints, got {size!r}."
            )
        if s < 0:
            raise DimensionError(f"Expected `{name}` to have nonnegative entries, got {size!r}.")
    if len(items) > MAX_BATCH_NDIM:
        raise DimensionError(
            f"Expected `{name}` to have at most {MAX_BATCH_NDIM} entries, got {len(items)}."
        )
    shape = tuple(int(s) for s in items)
    if per_item is not None:
        check_allocation(
            math.prod(shape) * max(per_item, 1),  # empty items still cost their indexing
            f"`{name}` = {size!r}",
            " (ask for fewer at a time)",
        )
    return shape


def check_batch_ndim(x: np.ndarray, name: str, core_ndim: int = 0) -> None:
    """Raise :class:`DimensionError` if ``x`` has more than :data:`MAX_BATCH_NDIM` leading
    dimensions before its ``core_ndim`` trailing ones.
    """
    if x.ndim - core_ndim > MAX_BATCH_NDIM:
        raise DimensionError(
            f"Expected `{name}` to have at most {MAX_BATCH_NDIM} batch dimensions, got "
            f"{x.ndim - core_ndim} (shape {x.shape})."
        )


#: Most batch (leading) dimensions an input may have (numpy's limit is 64 in all, and many
#: of its functions accept at most 32).
MAX_BATCH_NDIM = 24


def as_array(
    x, name: str, trailing_shape: tuple[int, ...] = (), *, finite: bool = True
) -> np.ndarray:
    """Convert ``x`` to a float array whose last dimensions are ``trailing_shape``.

    Real inputs only: bool, integer and float dtypes are converted to float64; complex
    (whose imaginary part would be dropped), object and text dtypes are refused.

    Parameters
    ----------
    x : array_like
        The input.
    name : str
        Name used in error messages.
    trailing_shape : tuple of int
        Required trailing dimensions; any number of leading (batch) dimensions is allowed.
    finite : bool
        Whether to reject NaN/inf entries.

    Raises
    ------
    DTypeError
        If ``x`` is not an array of real numbers (complex, object, text; ragged sequences).
    DimensionError
        If the trailing dimensions differ from ``trailing_shape``.
    NonFiniteError
        If ``finite`` and ``x`` has a NaN or infinite entry.
    """
    if type(x) is np.ndarray and x.dtype == np.float64:
        arr = x  # the common case, without a conversion
    else:
        if isinstance(x, np.ma.MaskedArray) and np.ma.is_masked(x):
            raise DTypeError(
                f"Expected `{name}` to be a numeric array, got a masked array with masked "
                "entries (their values would be used: fill them, e.g. x.filled(...))."
            )
        try:
            arr = np.asarray(x)
        except (TypeError, ValueError, OverflowError) as exc:
            raise DTypeError(
                f"Expected `{name}` to be a numeric array, got {type(x).__name__}."
            ) from exc
        kind = arr.dtype.kind
        if kind not in _REAL_KINDS:
            if kind in "US":  # numbers written as text are not numbers
                raise DTypeError(
                    f"Expected `{name}` to be a numeric array, got {type(x).__name__} of text."
                )
            raise DTypeError(
                f"Expected `{name}` to be a real numeric array, got dtype "
                f"{_KIND_NAMES.get(kind, str(arr.dtype))} ({arr.dtype})."
            )
        arr = arr.astype(float, copy=False)
    k = len(trailing_shape)
    if arr.ndim < k or tuple(arr.shape[arr.ndim - k :]) != tuple(trailing_shape):
        raise DimensionError(
            f"Expected `{name}` to have shape {_shape_str(trailing_shape)}, got {arr.shape}."
        )
    check_batch_ndim(arr, name, k)
    if finite:
        check_finite(arr, name, k)
    return arr


def check_symmetric(M: np.ndarray, name: str, tol: float = MANIFOLD_TOL) -> np.ndarray:
    """Raise :class:`InertiaError` unless ``M`` (..., n, n) is symmetric to ``tol`` (relative)."""
    asym = np.max(np.abs(M - np.swapaxes(M, -1, -2)), initial=0.0)
    scale = max(1.0, float(np.max(np.abs(M), initial=0.0)))
    if asym > tol * scale:
        raise InertiaError(f"Expected `{name}` to be symmetric, got asymmetry {asym:.3g}.")
    return M


def check_spd(M: np.ndarray, name: str, tol: float = MANIFOLD_TOL) -> np.ndarray:
    """Raise :class:`InertiaError` unless ``M`` (..., n, n) is symmetric positive definite."""
    check_symmetric(M, name, tol)
    eig = np.linalg.eigvalsh(0.5 * (M + np.swapaxes(M, -1, -2)))
    lam = float(np.min(eig, initial=np.inf))
    if not lam > 0.0:
        raise InertiaError(
            f"Expected `{name}` to be positive definite, got smallest eigenvalue {lam:.3g}."
        )
    return M


def check_rotation(R: np.ndarray, name: str, tol: float = MANIFOLD_TOL) -> np.ndarray:
    """Raise :class:`NotOnManifoldError` unless ``R`` (..., 3, 3) is a rotation to ``tol``."""
    n = R.shape[-1]
    err = np.max(np.abs(R @ np.swapaxes(R, -1, -2) - np.eye(n)), initial=0.0)
    if err > tol:
        raise NotOnManifoldError(
            f"Expected `{name}` to be orthonormal (R Rᵀ = I), got deviation {err:.3g} > {tol:g}."
        )
    det = np.linalg.det(R)
    if np.any(det <= 0):
        raise NotOnManifoldError(
            f"Expected `{name}` to have determinant +1, got {np.min(det):.3g}."
        )
    return R


def default_rng(rng=None) -> np.random.Generator:
    """Normalise ``rng`` (None, int seed or Generator) to a :class:`numpy.random.Generator`.

    Raises
    ------
    DTypeError
        If ``rng`` is not None, a nonnegative int, a sequence of them, a
        :class:`numpy.random.SeedSequence`, a bit generator or a Generator.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (bool, np.bool_, float, complex, str, bytes)):
        raise DTypeError(
            f"Expected `rng` to be None, an int seed or a numpy.random.Generator, got {rng!r}."
        )
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError) as exc:
        raise DTypeError(
            f"Expected `rng` to be None, a nonnegative int seed or a numpy.random.Generator, "
            f"got {type(rng).__name__} ({exc})."
        ) from exc


def as_matrix(x, name: str) -> np.ndarray:
    """``x`` as a float array of shape (..., r, c)."""
    x = as_array(x, name)
    if x.ndim < 2:
        raise DimensionError(f"Expected `{name}` to have shape (..., rows, cols), got {x.shape}.")
    return x


def check_full_column_rank(
    A: np.ndarray, name: str, rtol: float = RANK_RTOL, kind: str = "column"
) -> None:
    """Raise SingularityError unless every A (..., n, m) in the batch has rank m.

    ``kind="row"`` words the message for the transpose (``A`` is then ``J^T``).
    """
    n, m = A.shape[-2:]
    if m > n:
        other = "columns" if kind == "row" else "rows"
        raise SingularityError(
            f"Expected `{name}` to have full {kind} rank {m}, got {n} {other} (< {m})."
        )
    sv = np.linalg.svd(A, compute_uv=False)  # (..., m), descending
    smin, smax = sv[..., -1], sv[..., 0]
    ratio = smin / np.maximum(smax, np.finfo(float).tiny)
    if np.any(ratio <= rtol):
        worst = np.unravel_index(np.argmin(ratio), ratio.shape) if ratio.ndim else ()
        raise SingularityError(
            f"Expected `{name}` to have full {kind} rank {m}, got smallest singular value "
            f"{float(smin[worst]):.3g} (largest {float(smax[worst]):.3g})."
        )


def check_q(model, q, name: str = "q") -> np.ndarray:
    """Configurations of a model: ``as_array(q, name, (model.nq,))``."""
    return as_array(q, name, (model.nq,))


def check_v(model, v, name: str = "v") -> np.ndarray:
    """Speeds of a model: ``as_array(v, name, (model.nv,))``."""
    return as_array(v, name, (model.nv,))


def check_placement(T, label: str) -> np.ndarray:
    """A placement (4×4 pose of a joint or loop frame) of ``label``; errors are ModelErrors."""
    try:
        T = as_array(T, f"placement of {label}", (4, 4))
        if T.ndim != 2:
            raise ModelError(
                f"Expected `placement` of {label} to have shape (4, 4), got {T.shape}."
            )
        if np.max(np.abs(T[3] - [0.0, 0.0, 0.0, 1.0])) > MANIFOLD_TOL:
            raise ModelError(
                f"Expected the last row of `placement` of {label} to be [0, 0, 0, 1], "
                f"got {T[3].tolist()}."
            )
        check_rotation(T[:3, :3], "T[..., :3, :3]")
    except ModelError:
        raise
    except GeomechError as exc:
        raise ModelError(str(exc)) from exc
    return T
