r"""Block-sparse third-order tensors over the speeds of a kinematic tree.

The Christoffel symbols :math:`\Gamma_{ijk}` (seed 001 eq. 36) and the second-order partials
of inverse dynamics (seed 002 §4.1) vanish unless their three DoFs lie on one
root-to-leaf path. A tree of ``N`` bodies and depth ``d`` has :math:`O(Nd^2)` such triples
instead of :math:`n_v^3`: :class:`BlockSparseTensor` keeps only them, in the layout the
kernels write (``geomech.multibody._kernels.tree.layout.sparse_layout``), and contracts
them with vectors without forming the dense tensor.

On a serial chain every triple lies on the one path (:math:`d = N`): the block-sparse tensor
then holds all :math:`n_v^3` entries, as the dense one.
"""

from __future__ import annotations

import contextlib
import math
import mmap
import threading
import weakref

import numpy as np

from geomech.errors import DimensionError, ParameterError
from geomech.multibody._kernels.tables import IV
from geomech.multibody._kernels.tree import layout as KL
from geomech.multibody._kernels.tree.layout import dense_layout, sparse_layout

__all__ = [
    "BlockSparseTensor",
    "layout_arrays",
    "output",
    "zeros",
    "REUSE_BYTES",
    "SPARE_BYTES",
]

#: outputs of at least this many bytes (a chain's block-sparse Γ from nv ≈ 80 on) are made
#: from blocks of default-size pages (``_fresh``) that are kept for the next outputs of
#: the same size when the last array using them is released (``SPARE_BYTES`` of them at
#: most). numpy's own arrays of this size are backed by 2 MiB pages, whose first touch cost a
#: chain-128's Γ 60 ms instead of 10; and above glibc's 32 MiB mmap threshold every fresh
#: array is mapped page by page on first write, 3-4 ns per number on the benchmark machine,
#: as much as computing the number, paid in full on every call (the time per entry grew
#: with the size of the output: slopes of 3.4-4.7 instead of 3 over N = 64 ... 256).
REUSE_BYTES = 4 * 2**20
#: the most bytes of released output blocks kept for reuse (the oldest are freed first)
SPARE_BYTES = 2**30
_SPARE: list = []  # released blocks (1-d float64), oldest first
_SPARE_LOCK = threading.Lock()


class _Block:
    """Owner of the memory of a large output: numpy arrays made from it keep it alive; when
    the last of them is released, its block joins the spare ones.
    """

    def __init__(self, raw):
        self.raw = raw
        self.__array_interface__ = raw.__array_interface__

    def __del__(self):
        # never waits: a release during _spare (the garbage collector runs in any thread)
        # frees its block instead of keeping it
        with contextlib.suppress(Exception):  # (interpreter shutdown)
            if _SPARE_LOCK.acquire(blocking=False):
                try:
                    _SPARE.append(self.raw)
                    while sum(x.nbytes for x in _SPARE) > SPARE_BYTES:
                        del _SPARE[0]
                finally:
                    _SPARE_LOCK.release()


def _spare(n):
    """A released block of ``n`` numbers, the most recent one, or None."""
    with _SPARE_LOCK:
        for k in range(len(_SPARE) - 1, -1, -1):
            if _SPARE[k].size == n:
                return _SPARE.pop(k)
    return None


def output(shape) -> np.ndarray:
    """An uninitialized float64 array of ``shape`` for a kernel that writes every entry.

    Blocks of ``REUSE_BYTES`` or more are reused: a released one of the same size (up
    to ``SPARE_BYTES`` of them are kept) serves the next output, whose pages are then
    already mapped.

    Examples
    --------
    >>> from geomech.multibody.algorithms.blocksparse import output
    >>> a = output((5, 2**20))   # 40 MB
    >>> address = a.__array_interface__["data"][0]
    >>> del a
    >>> output((2**20, 5)).__array_interface__["data"][0] == address
    True
    """
    n = math.prod(shape)
    if 8 * n < REUSE_BYTES:
        return np.empty(shape)
    raw = _spare(n)
    if raw is None:
        raw = _fresh(n)
    return np.asarray(_Block(raw)).reshape(shape)


def zeros(shape) -> np.ndarray:
    """A zeroed float64 array of ``shape`` for a kernel that writes some of its entries (the
    dense third-order outputs): from 32 MiB on (where glibc maps every array afresh), fresh
    default-size pages, which the system zeroes as they are first touched (``np.zeros`` asks
    for 2 MiB pages, see ``_fresh``); below, ``np.zeros`` (freed memory reused).

    Examples
    --------
    >>> from geomech.multibody.algorithms.blocksparse import zeros
    >>> float(zeros((2**20, 5)).max()), zeros((2, 3)).shape
    (0.0, (2, 3))
    """
    n = math.prod(shape)
    return np.zeros(shape) if 8 * n < 32 * 2**20 else _fresh(n).reshape(shape)


def _fresh(n, dtype=np.float64):
    """``n`` numbers (float64) in anonymous pages of the default size.

    Not ``np.empty``: numpy advises the kernel to back large arrays with 2 MiB pages, whose
    first touch made the first call 2.5x slower on the benchmark machine (a chain of 256:
    3.4-3.7 s instead of 1.3-1.4 s for the 537 MB of its second-order partials).
    """
    if n == 0 or not hasattr(mmap, "MAP_ANONYMOUS"):  # (Windows)
        return np.empty(n, dtype)
    block = mmap.mmap(-1, n * np.dtype(dtype).itemsize, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return np.frombuffer(block, dtype=dtype)


class _Layout:
    """The block-sparse layout of a model: the kernels' arrays and the paths of the bodies.

    Body ``i`` with the DoFs ``P`` of the path root → ``i`` (``m`` of them, the first ``a``
    on strict ancestors, ``n = m − a`` its own) stores three C-ordered dense slabs, from
    ``base[i]`` on: ``P[a:] × P × P``, then ``P[:a] × P[a:] × P``, then ``P[:a] × P[:a] ×
    P[a:]`` (together the :math:`m^3 - a^3` triples of ``P`` that involve ``i``).
    """

    def __init__(self, model):
        cm = model.compiled
        iv = cm.topo[:, IV]
        self.nv = cm.nv
        self.loc, self.base, self.m, self.a, self.size = sparse_layout(model.parent, iv)
        # pdofs[poff[i]:poff[i + 1]] is P of body i: its parent's, then its own DoFs
        paths = []
        for i, p in enumerate(model.parent):
            own = np.arange(iv[i], iv[i + 1], dtype=np.int64)
            paths.append(own if p < 0 else np.concatenate([paths[p], own]))
        self.pdofs = np.concatenate(paths + [np.zeros(0, np.int64)])
        self.poff = np.concatenate([[0], np.cumsum([len(P) for P in paths])]).astype(np.int64)
        self._indices = None

    def kernel_args(self):
        return self.loc, self.base, self.m, self.a

    @property
    def indices(self) -> np.ndarray:
        """``(3, size)`` coordinates of the stored entries (built on first use)."""
        if self._indices is None:
            self._indices = _fresh(3 * self.size, np.intp).reshape(3, self.size)
            KL.coordinates(self.pdofs, self.poff, self.a, self._indices)
        return self._indices


_LAYOUTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _layout(model) -> _Layout:
    cm = model.compiled
    lay = _LAYOUTS.get(cm)
    if lay is None:
        lay = _LAYOUTS[cm] = _Layout(model)
    return lay


def layout_arrays(model, sparse: bool):
    """``(layout, kernel_args, size)``: the block-sparse layout of ``model`` (``layout`` the
    object a :class:`BlockSparseTensor` needs) or the dense one (``layout`` None).

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.blocksparse import layout_arrays
    >>> model = robots.binary_tree(7, rng=0)
    >>> layout_arrays(model, sparse=True)[2], layout_arrays(model, sparse=False)[2]
    (91, 343)
    """
    cm = model.compiled
    if sparse:
        lay = _layout(model)
        return lay, lay.kernel_args(), lay.size
    *args, size = dense_layout(model.parent, cm.topo[:, IV])
    return None, tuple(args), size


def _vector(w, nv, name):
    w = np.asarray(w, dtype=float)
    if w.ndim < 1 or w.shape[-1] != nv:
        raise DimensionError(f"Expected `{name}` to have shape (..., {nv}), got {w.shape}.")
    return w


class BlockSparseTensor:
    r"""A third-order (..., nv, nv, nv) tensor stored by blocks of joints on one root-to-leaf
    path.

    The entries ``T[..., x, y, z]`` whose three DoFs lie on one root-to-leaf path are kept
    with the deepest of their bodies ``i`` (:math:`m_i^3 - a_i^3` entries over the DoFs of
    the path root → ``i``, :math:`m_i` of them, :math:`a_i` on strict ancestors; see
    ``geomech.multibody._kernels.tree.layout.sparse_layout``); every other entry is
    zero. A tree of depth ``d`` has :math:`O(Nd^2)` of them instead of :math:`n_v^3`. The
    same class holds the Christoffel symbols
    (:func:`~geomech.multibody.algorithms.christoffel.christoffel_symbols` with
    ``sparse=True``) and the second-order partials of inverse dynamics
    (:func:`~geomech.multibody.algorithms.derivatives.rnea_second_derivatives` with
    ``sparse=True``); a batch of states shares one pattern.

    Attributes
    ----------
    values : ndarray, shape (..., nnz)
        The stored entries, in the order of :attr:`indices`.
    indices : ndarray of int, shape (3, nnz)
        Their ``(x, y, z)`` coordinates (shared by the batch; built on first use).
    shape : tuple
        ``(..., nv, nv, nv)``.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.algorithms.christoffel import christoffel_symbols
    >>> model = robots.binary_tree(31, rng=0)
    >>> q, v = model.random_configuration(rng=1), np.linspace(-1.0, 1.0, model.nv)
    >>> Gamma = christoffel_symbols(model, q, sparse=True)
    >>> Gamma
    BlockSparseTensor(shape=(31, 31, 31), nnz=1363)
    >>> bool(np.array_equal(np.asarray(Gamma), christoffel_symbols(model, q)))
    True

    Contracting the middle index with the speeds gives the Coriolis matrix
    :math:`C_{ik} = \Gamma_{ijk}\nu^j`, both remaining ones :math:`C\nu`:

    >>> from geomech.multibody.algorithms.coriolis import coriolis_matrix
    >>> C = coriolis_matrix(model, q, v)
    >>> bool(np.allclose(Gamma.contract(v, axis=1), C))
    True
    >>> bool(np.allclose(Gamma.bilinear(v, v), C @ v))
    True
    """

    def __init__(self, values, layout: _Layout):
        self.values = values
        self._layout = layout

    @property
    def indices(self) -> np.ndarray:
        """The ``(x, y, z)`` coordinates of the stored entries, shape (3, nnz)."""
        return self._layout.indices

    @property
    def nnz(self) -> int:
        """Number of stored entries per state."""
        return self._layout.size

    @property
    def shape(self) -> tuple:
        """``(..., nv, nv, nv)``."""
        return self.values.shape[:-1] + (self._layout.nv,) * 3

    @property
    def nbytes(self) -> int:
        """Bytes of the stored entries."""
        return int(self.values.nbytes)

    def _rows(self, *vectors):
        """The values and ``vectors`` as kernel arguments: (1 or B, ...) rows over the
        broadcast batch shape, which is returned first.
        """
        arrays = (self.values, *vectors)
        lead = np.broadcast_shapes(*(x.shape[:-1] for x in arrays))
        B = math.prod(lead)
        rows = [
            np.ascontiguousarray(
                x.reshape(1, x.shape[-1])
                if math.prod(x.shape[:-1]) == 1
                else np.broadcast_to(x, lead + x.shape[-1:]).reshape(B, x.shape[-1])
            )
            for x in arrays
        ]
        return lead, B, rows

    def todense(self) -> np.ndarray:
        """The dense tensor, shape (..., nv, nv, nv)."""
        lay = self._layout
        lead = self.values.shape[:-1]
        values = np.ascontiguousarray(self.values.reshape(-1, lay.size))
        out = zeros((values.shape[0],) + (lay.nv,) * 3)
        KL.dense_batch(values, lay.pdofs, lay.poff, lay.a, out)
        return out.reshape(lead + (lay.nv,) * 3)

    def __array__(self, dtype=None, copy=None):
        out = self.todense()
        return out if dtype is None else out.astype(dtype)

    def contract(self, w, axis: int = 0) -> np.ndarray:
        r"""Contract one index with a vector: e.g. :math:`\sum_y T_{xyz} w_y` for ``axis=1``.

        Parameters
        ----------
        w : array_like, shape (..., nv)
            Broadcast against the batch of the tensor.
        axis : {0, 1, 2}

        Returns
        -------
        ndarray, shape (..., nv, nv)
            The two remaining indices, in order.

        Raises
        ------
        ParameterError
            If ``axis`` is not 0, 1 or 2.
        DimensionError
            If ``w`` does not have shape (..., nv).
        """
        nv = self._layout.nv
        if axis not in (0, 1, 2):
            raise ParameterError(f"Expected `axis` in (0, 1, 2), got {axis!r}.")
        lead, B, (values, w) = self._rows(_vector(w, nv, "w"))
        out = np.zeros((B, nv, nv))
        lay = self._layout
        KL.contract_batch(values, w, axis, lay.pdofs, lay.poff, lay.a, out)
        return out.reshape(lead + (nv, nv))

    def bilinear(self, x, y, axes=(1, 2)) -> np.ndarray:
        r"""Contract two indices with two vectors: :math:`\sum_{jk} T_{ijk} x_j y_k` for the
        default ``axes=(1, 2)``.

        Parameters
        ----------
        x, y : array_like, shape (..., nv)
            Contracted with the indices ``axes[0]`` and ``axes[1]``; broadcast against the
            batch of the tensor.
        axes : tuple of two distinct ints in {0, 1, 2}

        Returns
        -------
        ndarray, shape (..., nv)
            The remaining index.

        Raises
        ------
        ParameterError
            If ``axes`` are not two distinct indices among 0, 1, 2.
        DimensionError
            If ``x`` or ``y`` does not have shape (..., nv).
        """
        nv = self._layout.nv
        axes = tuple(axes) if isinstance(axes, (tuple, list)) else (axes,)
        if len(axes) != 2 or axes[0] == axes[1] or not set(axes) <= {0, 1, 2}:
            raise ParameterError(
                f"Expected `axes` to be two distinct indices among 0, 1, 2, got {axes!r}."
            )
        lead, B, (values, x, y) = self._rows(_vector(x, nv, "x"), _vector(y, nv, "y"))
        out = np.zeros((B, nv))
        lay = self._layout
        KL.bilinear_batch(values, x, y, axes[0], axes[1], lay.pdofs, lay.poff, lay.a, out)
        return out.reshape(lead + (nv,))

    def __repr__(self) -> str:
        return f"BlockSparseTensor(shape={self.shape}, nnz={self.nnz})"
