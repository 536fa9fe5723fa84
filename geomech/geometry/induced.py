r"""Induced connections on submanifolds and the transformation law (seed 000 §V, §VI-C1).

A constrained system lives on a submanifold :math:`\bar{\mathcal Q} \subseteq \mathcal Q` with
its own frame :math:`\bar X_j = A^i_j X_i`, so that the speeds are related by
:math:`v = A \bar v` (eq. 15). It inherits

- the induced metric :math:`\bar H = A^\top H A`;
- the induced connection :math:`\bar\nabla_X Y = \mathrm{proj}_{T\bar{\mathcal Q}} \nabla_X Y`,
  whose coefficients are (proof of Thm. V.1)

  .. math::
      \bar\Gamma_{ijk} = \langle\!\langle \bar X_i, \nabla_{\bar X_j} \bar X_k\rangle\!\rangle
      = A^a_i A^b_j A^c_k\, \Gamma_{abc} + A^a_i H_{ab}\, \mathscr L_{\bar X_j} A^b_k ;

- hence the Coriolis matrix :math:`\bar C = A^\top C A + A^\top H \dot A` with
  :math:`\dot A = \mathscr L_{\bar X_k} A\, \bar v^k` (eq. 17).

The inhomogeneous term does not depend on :math:`\nabla`, so contorsions transform as tensors,
:math:`\bar D_{ijk} = A^a_i A^b_j A^c_k D_{abc}`, and metric compatibility, Riemannian geodesics
and the Levi-Civita property are inherited (Props. V.1-V.3).

This module provides

- :func:`transform_coriolis`: eq. (17) on arrays;
- :func:`task_space_coriolis`: the task-space inertia and Coriolis matrix of Remark 8;
- :class:`InducedConnection`: the induced connection as an
  :class:`~geomech.geometry.connection.AffineConnection` on a
  :class:`~geomech.geometry.system.MechanicalSystem` for :math:`\bar{\mathcal Q}`, given by a
  velocity map :math:`A(\bar q)` or an embedding :math:`\varphi: \bar{\mathcal Q} \to \mathcal Q`;
- :class:`ClosedChain` and its :class:`LoopClosureFrame`: a spanning tree closed by loop
  constraints, projected to independent coordinates (§VI-C1).

Numerical derivatives (the Jacobian of an embedding, :math:`\mathscr L_{\bar X_k} A` when
:math:`\dot A` is not supplied, the constraint Jacobian and Hessian of a closed chain when not
supplied) use the five-point central stencil along the frame's flow,

.. math::
    f'(0) \approx \frac{-f(2h) + 8 f(h) - 8 f(-h) + f(-2h)}{12 h},
    \qquad h = \epsilon^{1/5} \max(1, \max|q|) \approx 7.4\cdot 10^{-4},

whose truncation error :math:`h^4 |f^{(5)}| / 30` and rounding error
:math:`\approx 1.5\, \epsilon |f| / h` are both about :math:`10^{-13}` relative for smooth
functions of order one (nested twice, e.g. :math:`\mathscr L A` of a numerical Jacobian,
about :math:`10^{-10}`).
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array, check_spd, default_rng
from geomech.errors import (
    ConnectionSpecError,
    DimensionError,
    NotOnManifoldError,
    SingularityError,
)
from geomech.geometry.connection import AffineConnection
from geomech.geometry.frames import (
    CoordinateFrame,
    Frame,
    LeftInvariantFrame,
    RightInvariantFrame,
)
from geomech.geometry.system import MechanicalSystem
from geomech.lie import Euclidean, LieGroup

__all__ = [
    "transform_coriolis",
    "task_space_coriolis",
    "InducedConnection",
    "LoopClosureFrame",
    "ClosedChain",
]

#: Base of the five-point-stencil step ``h = EPS_FIFTH * max(1, max|q|)``.
EPS_FIFTH = float(np.finfo(float).eps ** (1.0 / 5.0))

#: A velocity map is rank deficient when its singular values have ratio ``<= RANK_RTOL``.
RANK_RTOL = 1e-10

#: Loop-closure residual accepted by :meth:`LoopClosureFrame.validate_point` (relative).
CLOSURE_TOL = 1e-9


# ----------------------------------------------------------------------------------------
# private helpers
# ----------------------------------------------------------------------------------------
def _matrix(x, name: str) -> np.ndarray:
    """``x`` as a float array of shape (..., r, c)."""
    x = as_array(x, name)
    if x.ndim < 2:
        raise DimensionError(f"Expected `{name}` to have shape (..., rows, cols), got {x.shape}.")
    return x


def _check_full_column_rank(A: np.ndarray, name: str, rtol: float = RANK_RTOL,
                            kind: str = "column") -> None:
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


def _step(q: np.ndarray, step) -> float:
    if step is not None:
        return float(step)
    return EPS_FIFTH * max(1.0, float(np.max(np.abs(q), initial=0.0)))


def _lie_derivative5(frame, f, q: np.ndarray, step=None) -> np.ndarray:
    """``(L_{X_k} f)(q)`` for every frame field, five-point stencil along the flow.

    ``q`` is validated, of shape (*batch, *point_shape); ``f`` is batched. Returns
    (*batch, dim, *out) with ``[..., k, ...]`` the derivative along ``X_k``.
    """
    ps = tuple(frame.point_shape)
    batch = q.shape[: q.ndim - len(ps)]
    m = frame.dim
    h = _step(q, step)
    E = np.eye(m).reshape((1, m) + (1,) * len(batch) + (m,))
    t = np.array([2.0 * h, h, -h, -2.0 * h]).reshape((4, 1) + (1,) * len(batch))
    q_shift = frame.flow(q[None, None], E, t)  # (4, m, *batch, *ps)
    fq = np.asarray(f(q_shift))
    if fq.shape[: 2 + len(batch)] != (4, m) + batch:
        raise DimensionError(
            f"Expected a function keeping the batch shape {(4, m) + batch} of its input, "
            f"got output shape {fq.shape}."
        )
    df = (-fq[0] + 8.0 * fq[1] - 8.0 * fq[2] + fq[3]) / (12.0 * h)  # (m, *batch, *out)
    return np.moveaxis(df, 0, len(batch))


def _frame_log(frame, q0: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Frame components ``psi`` with ``flow(q0, psi, 1) = q`` (inverse of the flow chart)."""
    if isinstance(frame, CoordinateFrame):
        return q - q0
    if isinstance(frame, RightInvariantFrame):  # flow = exp(psi) q0
        g = frame.group
        return g.log(g.compose(q, g.inverse(q0)))
    if isinstance(frame, LeftInvariantFrame):  # flow = q0 exp(psi)
        g = frame.group
        return g.log(g.compose(g.inverse(q0), q))
    return np.asarray(frame.log(q0, q), dtype=float)


def _has_frame_log(frame) -> bool:
    return isinstance(frame, (CoordinateFrame, LeftInvariantFrame)) or callable(
        getattr(frame, "log", None)
    )


def _fd_jacobian(fun, q: np.ndarray, step=None) -> np.ndarray:
    """Jacobian (..., *out, n) of ``fun`` on R^n by the five-point stencil (q: (..., n))."""
    n = q.shape[-1]
    d = _lie_derivative5(CoordinateFrame(n), fun, q, step)  # (..., n, *out)
    return np.moveaxis(d, q.ndim - 1, -1)


def _indices(x, n: int, name: str) -> np.ndarray:
    try:
        idx = np.asarray(x)
    except (TypeError, ValueError) as exc:  # pragma: no cover - numpy accepts almost anything
        raise ConnectionSpecError(f"Expected `{name}` to be a sequence of indices.") from exc
    if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
        raise ConnectionSpecError(
            f"Expected `{name}` to be a non-empty 1-D sequence of integers, got {x!r}."
        )
    if np.any(idx < 0) or np.any(idx >= n) or len(set(idx.tolist())) != idx.size:
        raise ConnectionSpecError(
            f"Expected `{name}` to hold distinct indices in [0, {n}), got {idx.tolist()}."
        )
    return idx.astype(int)


# ----------------------------------------------------------------------------------------
# eq. (17) and Remark 8 on arrays
# ----------------------------------------------------------------------------------------

def _square_matrix(x, name: str) -> np.ndarray:
    """``x`` as a (..., n, n) array, or DimensionError naming ``name``."""
    x = _matrix(x, name)
    if x.shape[-2] != x.shape[-1]:
        raise DimensionError(f"Expected `{name}` to have shape (..., n, n), got {x.shape}.")
    return x


def _check_batches(**arrays: np.ndarray) -> None:
    """DimensionError unless the leading (batch) dimensions of the matrices broadcast."""
    try:
        np.broadcast_shapes(*(a.shape[:-2] for a in arrays.values()))
    except ValueError as exc:
        names = ", ".join(f"`{k}`" for k in arrays)
        shapes = ", ".join(str(a.shape) for a in arrays.values())
        raise DimensionError(
            f"Expected the leading (batch) dimensions of {names} to broadcast, got {shapes}."
        ) from exc


def transform_coriolis(H, C, A, A_dot):
    r"""Induced mass and Coriolis matrices under :math:`v = A \bar v` (seed 000 eq. 17).

    .. math::
        \bar H = A^\top H A, \qquad \bar C = A^\top C A + A^\top H \dot A

    Parameters
    ----------
    H : array_like, shape (..., n, n)
        Mass matrix on :math:`\mathcal Q` (symmetric positive definite).
    C : array_like, shape (..., n, n)
        Coriolis matrix on :math:`\mathcal Q` at :math:`(q, v = A\bar v)`.
    A : array_like, shape (..., n, m)
        Velocity map, full column rank ``m <= n``.
    A_dot : array_like, shape (..., n, m)
        Its time derivative along the motion, :math:`\dot A = \mathscr L_{\bar X_k} A\,
        \bar v^k`.

    Returns
    -------
    H_bar : ndarray, shape (..., m, m)
    C_bar : ndarray, shape (..., m, m)
        Leading dimensions are broadcast.

    Raises
    ------
    DimensionError
        If ``H`` is not square, ``C`` is not the size of ``H``, ``A`` does not have ``n``
        rows, ``A_dot`` is not the shape of ``A`` or the leading dimensions do not broadcast.
    InertiaError
        If ``H`` is not symmetric positive definite.
    SingularityError
        If ``A`` is rank deficient (the message gives its smallest singular value).
    NonFiniteError
        If an input has NaN or inf entries.

    References
    ----------
    seed 000 Thm. V.1, eq. (17); Props. V.1-V.3; Remark 7 (change of coordinates).

    Examples
    --------
    Polar coordinates :math:`(r, \theta)` of a unit point mass in the plane, :math:`C = 0`:
    the transformation law gives the polar Christoffel matrix
    :math:`[[0, -r\dot\theta], [r\dot\theta, r\dot r]]`.

    >>> import numpy as np
    >>> from geomech.geometry import transform_coriolis
    >>> r, th, r_dot, th_dot = 2.0, 0.0, 1.0, 0.5
    >>> A = np.array([[np.cos(th), -r * np.sin(th)], [np.sin(th), r * np.cos(th)]])
    >>> A_dot = np.array([[-np.sin(th) * th_dot, -r_dot * np.sin(th) - r * np.cos(th) * th_dot],
    ...                   [np.cos(th) * th_dot, r_dot * np.cos(th) - r * np.sin(th) * th_dot]])
    >>> H_bar, C_bar = transform_coriolis(np.eye(2), np.zeros((2, 2)), A, A_dot)
    >>> H_bar
    array([[1., 0.],
           [0., 4.]])
    >>> C_bar
    array([[ 0., -1.],
           [ 1.,  2.]])
    """
    H = _square_matrix(H, "H")
    n = H.shape[-1]
    C = as_array(C, "C", (n, n))
    A = _matrix(A, "A")
    if A.shape[-2] != n:
        raise DimensionError(
            f"Expected `A` to have n = {n} rows (v = A v_bar, with `H` of size {n}), "
            f"got shape {A.shape}."
        )
    m = A.shape[-1]
    A_dot = as_array(A_dot, "A_dot", (n, m))
    _check_batches(C=C, H=H, A=A, A_dot=A_dot)
    check_spd(H, "H")
    _check_full_column_rank(A, "A")
    At = np.swapaxes(A, -1, -2)
    H_bar = At @ H @ A
    H_bar = 0.5 * (H_bar + np.swapaxes(H_bar, -1, -2))
    C_bar = At @ C @ A + At @ H @ A_dot  # seed 000 eq. (17)
    return H_bar, C_bar


def task_space_coriolis(H, C, J, J_dot):
    r"""Task-space inertia :math:`\varLambda` and Coriolis matrix :math:`C_{\rm task}` (Remark 8).

    With the dynamically consistent inverse :math:`A = H^{-1} J^\top \varLambda`,
    :math:`\varLambda = (J H^{-1} J^\top)^{-1}`, the transformation law (17) gives

    .. math::
        \varLambda = A^\top H A, \qquad
        C_{\rm task} = A^\top C A + A^\top H \dot A
                     = \varLambda (J H^{-1} C - \dot J) A ,

    where :math:`A^\top H \dot A = \varLambda J \dot A = -\varLambda \dot J A` follows from
    differentiating :math:`J A = \mathbf 1` (so :math:`\dot H` is not needed). If
    :math:`\dot H - 2C` is skew-symmetric, so is :math:`\dot\varLambda - 2 C_{\rm task}`.
    For a square invertible ``J`` this is the classical
    :math:`J^{-\top} C J^{-1} - \varLambda \dot J J^{-1}`.

    Parameters
    ----------
    H : array_like, shape (..., n, n)
        Joint-space mass matrix (symmetric positive definite).
    C : array_like, shape (..., n, n)
        Joint-space Coriolis matrix at :math:`(q, v)`.
    J : array_like, shape (..., k, n)
        Task Jacobian, full row rank ``k <= n`` (redundant tasks allowed).
    J_dot : array_like, shape (..., k, n)
        Its time derivative along the motion.

    Returns
    -------
    Lambda : ndarray, shape (..., k, k)
        Task-space inertia.
    C_task : ndarray, shape (..., k, k)
        Task-space Coriolis matrix.

    Raises
    ------
    DimensionError
        If the shapes do not match (``C`` and ``H`` ``n×n``, ``J`` and ``J_dot`` ``k×n``).
    InertiaError
        If ``H`` is not symmetric positive definite.
    SingularityError
        If ``J`` does not have full row rank (the message gives its smallest singular value).

    References
    ----------
    seed 000 Remark 8; J. Englsberger et al., MPTC (2020), eq. (11).

    Examples
    --------
    A unit point mass in the plane seen through the polar map: the task coordinates are
    :math:`x = (r\cos\theta, r\sin\theta)` of generalized coordinates :math:`(r, \theta)`
    with :math:`H = \mathrm{diag}(1, r^2)`. The task space is Cartesian, where
    :math:`\varLambda = \mathbf 1` and :math:`C_{\rm task} = 0`:

    >>> import numpy as np
    >>> from geomech.geometry import task_space_coriolis
    >>> r, th, r_dot, th_dot = 2.0, 0.0, 1.0, 0.5
    >>> H = np.diag([1.0, r**2])
    >>> C = np.array([[0.0, -r * th_dot], [r * th_dot, r * r_dot]])
    >>> J = np.array([[np.cos(th), -r * np.sin(th)], [np.sin(th), r * np.cos(th)]])
    >>> J_dot = np.array([[-np.sin(th) * th_dot, -r_dot * np.sin(th) - r * np.cos(th) * th_dot],
    ...                   [np.cos(th) * th_dot, r_dot * np.cos(th) - r * np.sin(th) * th_dot]])
    >>> Lambda, C_task = task_space_coriolis(H, C, J, J_dot)
    >>> np.round(Lambda, 12) + 0.0
    array([[1., 0.],
           [0., 1.]])
    >>> np.round(C_task, 12) + 0.0
    array([[0., 0.],
           [0., 0.]])
    """
    H = _square_matrix(H, "H")
    n = H.shape[-1]
    C = as_array(C, "C", (n, n))
    J = _matrix(J, "J")
    if J.shape[-1] != n:
        raise DimensionError(
            f"Expected `J` to have n = {n} columns (one per generalized speed), got shape "
            f"{J.shape}."
        )
    k = J.shape[-2]
    J_dot = as_array(J_dot, "J_dot", (k, n))
    _check_batches(H=H, C=C, J=J, J_dot=J_dot)
    check_spd(H, "H")
    _check_full_column_rank(np.swapaxes(J, -1, -2), "J", kind="row")
    Hinv_Jt = np.linalg.solve(H, np.swapaxes(J, -1, -2))  # H^-1 J^T, (..., n, k)
    Lambda = np.linalg.inv(J @ Hinv_Jt)  # seed 000 Remark 8
    Lambda = 0.5 * (Lambda + np.swapaxes(Lambda, -1, -2))
    A = Hinv_Jt @ Lambda  # dynamically consistent inverse
    # A^T C A + A^T H A_dot, with A^T H = Lambda J and J A_dot = -J_dot A
    C_task = np.swapaxes(A, -1, -2) @ C @ A - Lambda @ J_dot @ A
    return Lambda, C_task


# ----------------------------------------------------------------------------------------
# the induced connection
# ----------------------------------------------------------------------------------------
class _InducedSystem(MechanicalSystem):
    """The system on Q_bar: H_bar = A^T H A, with exact Lie derivatives by the chain rule."""

    def __init__(self, induced, manifold, frame, potential):
        self._induced = induced
        super().__init__(manifold, induced._H_bar, frame=frame, potential=potential)

    def _dH(self, q):
        return self._induced._dH_bar(q)


class InducedConnection(AffineConnection):
    r"""The connection induced on a submanifold :math:`\bar{\mathcal Q} \subseteq \mathcal Q`.

    :math:`\bar\nabla_X Y = \mathrm{proj}_{T\bar{\mathcal Q}} \nabla_X Y` with the
    :math:`H`-orthogonal projection, for the frame :math:`\bar X_j = A^i_j X_i` of
    :math:`\bar{\mathcal Q}` (:math:`v = A\bar v`). It is an
    :class:`~geomech.geometry.connection.AffineConnection` on the
    :class:`~geomech.geometry.system.MechanicalSystem` :attr:`system` of
    :math:`\bar{\mathcal Q}` (metric :math:`\bar H = A^\top H A`, potential
    :math:`V\circ\varphi`), so its Coriolis matrix, predicates, geodesics and parallel
    transport are those of the base class:

    .. math::
        \bar\Gamma_{ijk} = A^a_i A^b_j A^c_k\, \Gamma_{abc}
            + A^a_i H_{ab}\, \mathscr L_{\bar X_j} A^b_k, \qquad
        \bar C = \bar\Gamma_{ijk} \bar v^j = A^\top C A + A^\top H \dot A .

    :math:`\bar{\mathcal Q}` is described either

    - by an ``embedding`` :math:`\varphi: \bar{\mathcal Q} \to \mathcal Q` (points of
      :math:`\bar{\mathcal Q}` are points of ``manifold``/``frame``; ``A`` is then the
      derivative of :math:`\varphi` in the two frames: supplied as ``A``, or computed by the
      five-point stencil along the flow of :math:`\bar X_j`, with the chart of
      :math:`\mathcal Q`'s frame — coordinates, or ``log`` on a Lie group); or
    - by a velocity map ``A`` alone (``embedding=None``): points of :math:`\bar{\mathcal Q}`
      are points of :math:`\mathcal Q`, and ``frame`` is a frame on :math:`\bar{\mathcal Q}`
      whose flow stays on it (e.g. :class:`LoopClosureFrame`).

    :math:`\mathscr L_{\bar X_k} A` is ``A_dot(q, e_k)`` when ``A_dot`` is supplied, zero for a
    constant ``A``, and otherwise computed by the five-point stencil along the flow of
    :math:`\bar X_k` (step ``step``, default :math:`\epsilon^{1/5}\max(1, \max|\bar q|)`; see
    the module docstring for the accuracy).

    Parameters
    ----------
    connection : AffineConnection
        The connection :math:`\nabla` on :math:`\mathcal Q` (``n = connection.dim``).
    A : callable or array_like, shape (n, m), optional
        Velocity map :math:`A(\bar q)`: batched callable ``q_bar -> (..., n, m)`` or a
        constant array. With ``embedding`` it is the user-supplied Jacobian of the embedding.
    embedding : callable, optional
        :math:`\varphi`: batched ``q_bar (..., *point_shape_bar) -> q (..., *point_shape)``.
    manifold : geomech.lie.LieGroup, optional
        The manifold of :math:`\bar{\mathcal Q}` (e.g. ``Euclidean(2)`` for coordinates);
        gives the default frame.
    frame : Frame, optional
        The frame :math:`\bar X` of :math:`\bar{\mathcal Q}` (``m = frame.dim``).
    A_dot : callable, optional
        ``A_dot(q_bar, v_bar) -> (..., n, m)``, :math:`\dot A` (linear in ``v_bar``).
    step : float, optional
        Step of the five-point stencils.

    Attributes
    ----------
    ambient : AffineConnection
        The connection on :math:`\mathcal Q`.
    system : MechanicalSystem
        The system on :math:`\bar{\mathcal Q}`.
    dim : int
        ``m``.

    Raises
    ------
    ConnectionSpecError
        If ``connection`` is not an :class:`AffineConnection`, neither ``A`` nor ``embedding``
        is given, neither ``manifold`` nor ``frame`` is given, a callable argument is not
        callable, or ``A`` must be differentiated numerically from an embedding into a frame
        without a chart inverse (supply ``A``).
    DimensionError
        If a constant ``A`` is not ``(n, m)``, or (without ``embedding``) the points of the two
        frames differ in shape. Evaluations raise it when ``A(q)``, ``A_dot(q, v)`` or
        ``embedding(q)`` return the wrong shape (naming the input).
    SingularityError
        If ``A`` is rank deficient (at construction for a constant ``A``, else on evaluation);
        the message gives the smallest singular value.

    References
    ----------
    seed 000 §V: eq. (15), (16), Thm. V.1 and its proof, eq. (17), Props. V.1-V.3.

    Examples
    --------
    A particle on the unit sphere in spherical coordinates :math:`(\theta, \phi)`, from the
    Euclidean connection of :math:`\mathbb R^3`: :math:`\bar\Gamma_{\theta\phi\phi} = -\sin
    \theta\cos\theta`.

    >>> import numpy as np
    >>> from geomech.geometry import InducedConnection, LeviCivitaConnection
    >>> from geomech.geometry.examples import point_mass
    >>> from geomech.lie import Euclidean
    >>> def sphere(q):
    ...     th, ph = q[..., 0], q[..., 1]
    ...     return np.stack([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)], -1)
    >>> conn = InducedConnection(LeviCivitaConnection(point_mass()), embedding=sphere,
    ...                          manifold=Euclidean(2))
    >>> q = np.array([np.pi / 4, 0.3])
    >>> np.round(conn.system.mass_matrix(q), 12) + 0.0
    array([[1. , 0. ],
           [0. , 0.5]])
    >>> round(float(conn.christoffel_first_kind(q)[0, 1, 1]), 10)
    -0.5
    >>> bool(conn.is_torsion_free(q)), bool(conn.is_metric_compatible(q))
    (True, True)
    """

    def __init__(self, connection, A=None, embedding=None, *, manifold=None, frame=None,
                 A_dot=None, step=None):
        if not isinstance(connection, AffineConnection):
            raise ConnectionSpecError(
                "Expected `connection` to be an AffineConnection on the ambient system, got "
                f"{type(connection).__name__}."
            )
        if A is None and embedding is None:
            raise ConnectionSpecError(
                "Expected a velocity map `A` or an `embedding` of the submanifold, got neither."
            )
        for value, name in ((embedding, "embedding"), (A_dot, "A_dot")):
            if value is not None and not callable(value):
                raise ConnectionSpecError(
                    f"Expected `{name}` to be callable, got {type(value).__name__}."
                )
        if frame is None and manifold is None:
            raise ConnectionSpecError(
                "Expected the submanifold's `frame` or `manifold` (e.g. Euclidean(m) for "
                "coordinates), got neither."
            )
        if frame is None:
            if not isinstance(manifold, LieGroup):
                raise ConnectionSpecError(
                    "Expected `manifold` to be a geomech.lie.LieGroup, got "
                    f"{type(manifold).__name__}."
                )
            frame = (CoordinateFrame(manifold.dim) if isinstance(manifold, Euclidean)
                     else LeftInvariantFrame(manifold))
        if step is not None and not (np.isscalar(step) and float(step) > 0):
            raise ConnectionSpecError(f"Expected `step` to be a positive float, got {step!r}.")
        self.ambient = connection
        self._frame_bar = frame
        self._step_size = step
        n, m = connection.dim, int(frame.dim)
        self._n, self._m = n, m
        amb_frame = connection.system.frame
        self._embedding = embedding
        if embedding is None and tuple(frame.point_shape) != tuple(amb_frame.point_shape):
            raise DimensionError(
                "Expected the submanifold's points to be points of the ambient manifold "
                f"(shape {tuple(amb_frame.point_shape)}) when no `embedding` is given, got "
                f"`frame` points of shape {tuple(frame.point_shape)}."
            )
        # the velocity map: constant, callable, or the derivative of the embedding
        self._A_const = self._A_fun = None
        if A is None:
            if not _has_frame_log(amb_frame):
                raise ConnectionSpecError(
                    f"Expected the Jacobian `A` of the embedding: the ambient frame {amb_frame!r} "
                    "has no chart inverse (log) to differentiate the embedding numerically."
                )
        elif callable(A):
            self._A_fun = A
        else:
            A = as_array(A, "A")
            if A.shape != (n, m):
                raise DimensionError(
                    f"Expected `A` to have shape {(n, m)} (n = {n} ambient speeds, m = {m} "
                    f"speeds of the submanifold), got {A.shape}."
                )
            _check_full_column_rank(A, "A")
            self._A_const = A.copy()
        self._A_dot = A_dot
        V = connection.system.potential
        potential = None if V is None else (lambda q: V(self._ambient_point(q)))
        system = _InducedSystem(self, manifold, frame, potential)
        super().__init__(system, self._coefficients)

    # ------------------------------------------------------------------------------------
    # internals (points already validated)
    # ------------------------------------------------------------------------------------
    def _batch_of(self, q: np.ndarray) -> tuple[int, ...]:
        return q.shape[: q.ndim - len(self._frame_bar.point_shape)]

    def _ambient_point(self, q: np.ndarray) -> np.ndarray:
        if self._embedding is None:
            return q
        p = np.asarray(self._embedding(q), dtype=float)
        want = self._batch_of(q) + tuple(self.ambient.system.frame.point_shape)
        if p.shape != want:
            raise DimensionError(f"Expected `embedding(q)` to have shape {want}, got {p.shape}.")
        return p

    def _A(self, q: np.ndarray, check: bool = True) -> np.ndarray:
        n, m = self._n, self._m
        batch = self._batch_of(q)
        if self._A_const is not None:
            return np.broadcast_to(self._A_const, batch + (n, m))
        if self._A_fun is not None:
            A = np.asarray(self._A_fun(q), dtype=float)
            if A.shape != batch + (n, m):
                raise DimensionError(
                    f"Expected `A(q)` to have shape {batch + (n, m)} (n = {n} rows, one per "
                    f"ambient speed; m = {m} columns), got {A.shape}."
                )
        else:
            A = self._embedding_jacobian(q)
        if check:
            _check_full_column_rank(A, "A(q)")
        return A

    def _embedding_jacobian(self, q: np.ndarray) -> np.ndarray:
        """A[..., :, j] = frame components (on Q) of d/dt phi(flow_bar(q, e_j, t)) at t = 0."""
        amb_frame = self.ambient.system.frame
        p0 = self._ambient_point(q)

        def chart(q_shift):
            return _frame_log(amb_frame, p0, self._ambient_point(q_shift))

        dphi = _lie_derivative5(self._frame_bar, chart, q, self._step_size)  # (..., m, n)
        return np.swapaxes(dphi, -1, -2)

    def _dA(self, q: np.ndarray) -> np.ndarray:
        """dA[..., k, :, :] = L_{X_bar_k} A, shape (..., m, n, m)."""
        n, m = self._n, self._m
        batch = self._batch_of(q)
        if self._A_const is not None:
            return np.zeros(batch + (m, n, m))
        if self._A_dot is not None:
            ps = tuple(self._frame_bar.point_shape)
            qb = np.broadcast_to(q[None], (m,) + q.shape)
            E = np.broadcast_to(np.eye(m).reshape((m,) + (1,) * len(batch) + (m,)),
                                (m,) + batch + (m,))
            dA = np.asarray(self._A_dot(qb, E), dtype=float)
            if dA.shape != (m,) + batch + (n, m):
                raise DimensionError(
                    f"Expected `A_dot(q, v)` to have shape {batch + (n, m)} for q of shape "
                    f"{batch + ps}, got {dA.shape[1:]}."
                )
            return np.moveaxis(dA, 0, len(batch))
        # the rank is checked at q, not at the stencil points
        return _lie_derivative5(self._frame_bar, lambda p: self._A(p, check=False), q,
                                self._step_size)

    def _H_bar(self, q: np.ndarray) -> np.ndarray:
        A = self._A(q)
        H = self.ambient.system._H(self._ambient_point(q))
        H_bar = np.swapaxes(A, -1, -2) @ H @ A  # seed 000 §V-A
        return 0.5 * (H_bar + np.swapaxes(H_bar, -1, -2))

    def _dH_bar(self, q: np.ndarray) -> np.ndarray:
        """L_{X_bar_k} H_bar = dA_k^T H A + A^T (A^a_k L_{X_a} H) A + A^T H dA_k."""
        A, dA = self._A(q), self._dA(q)
        p = self._ambient_point(q)
        amb = self.ambient.system
        H, dH = amb._H(p), amb._dH(p)  # dH[..., a, i, j] = L_{X_a} H_ij
        # (two-operand contractions: einsum path optimisation costs more than it saves here)
        term = np.einsum("...kbi,...bj->...kij", dA, H @ A)  # dA_k^T H A
        dH_k = np.einsum("...ak,...aij->...kij", A, dH)  # chain rule: X_bar_k = A^a_k X_a
        middle = np.einsum("...ai,...kab->...kib", A, dH_k) @ A[..., None, :, :]
        return term + np.swapaxes(term, -1, -2) + middle

    def _coefficients(self, q: np.ndarray) -> np.ndarray:
        A, dA = self._A(q), self._dA(q)
        p = self._ambient_point(q)
        G = self.ambient._Gamma(p)
        H = self.ambient.system._H(p)
        # seed 000 proof of Thm. V.1: Gamma_bar_ijk = <X_bar_i, nabla_{X_bar_j} X_bar_k>
        #   = A^a_i A^b_j A^c_k Gamma_abc + A^a_i H_ab L_{X_bar_j} A^b_k
        # (contracted one index at a time: einsum's path search costs more than it saves)
        G_c = np.einsum("...abc,...ck->...abk", G, A)
        G_bc = np.einsum("...abk,...bj->...ajk", G_c, A)
        tensorial = np.einsum("...ai,...ajk->...ijk", A, G_bc)
        inhomogeneous = np.einsum("...ib,...jbk->...ijk", np.swapaxes(A, -1, -2) @ H, dA)
        return tensorial + inhomogeneous

    # ------------------------------------------------------------------------------------
    # public
    # ------------------------------------------------------------------------------------
    def ambient_point(self, q) -> np.ndarray:
        r"""The point :math:`\varphi(\bar q)` of :math:`\mathcal Q` (``q`` itself without an
        embedding).

        Parameters
        ----------
        q : array_like, shape (..., *point_shape_bar)

        Returns
        -------
        ndarray, shape (..., *point_shape)

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            If ``q`` is not a valid point of :math:`\bar{\mathcal Q}`, or ``embedding(q)``
            has the wrong shape.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples_induced import particle_on_sphere
        >>> np.round(particle_on_sphere(radius=2.0).ambient_point([np.pi / 2, 0.0]), 12)
        array([2., 0., 0.])
        """
        return np.array(self._ambient_point(self._point(q)))

    def velocity_map(self, q) -> np.ndarray:
        r"""The velocity map :math:`A(\bar q)`, :math:`v = A \bar v` (eq. 15).

        Parameters
        ----------
        q : array_like, shape (..., *point_shape_bar)

        Returns
        -------
        ndarray, shape (..., n, m)

        Raises
        ------
        DimensionError
            If ``q`` is malformed or ``A(q)`` has the wrong shape.
        SingularityError
            If ``A(q)`` is rank deficient.

        References
        ----------
        seed 000 eq. (15).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples_induced import particle_on_sphere
        >>> np.round(particle_on_sphere().velocity_map([np.pi / 2, 0.0]), 12) + 0.0
        array([[ 0.,  0.],
               [ 0.,  1.],
               [-1.,  0.]])
        """
        return np.array(self._A(self._point(q)))

    def velocity_map_derivative(self, q, v) -> np.ndarray:
        r"""Time derivative of the velocity map, :math:`\dot A = \mathscr L_{\bar X_k} A\,
        \bar v^k`.

        Parameters
        ----------
        q : array_like, shape (..., *point_shape_bar)
        v : array_like, shape (..., m)

        Returns
        -------
        ndarray, shape (..., n, m)

        Raises
        ------
        DimensionError
            If ``q`` or ``v`` is malformed or ``A_dot`` returns the wrong shape.

        References
        ----------
        seed 000 Thm. V.1.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples_induced import particle_on_sphere
        >>> A_dot = particle_on_sphere().velocity_map_derivative([np.pi / 2, 0.0], [1.0, 0.0])
        >>> np.round(A_dot, 9) + 0.0  # d/dtheta of the columns [e_theta, sin(theta) e_phi]
        array([[-1.,  0.],
               [ 0.,  0.],
               [ 0.,  0.]])
        """
        q = self._point(q)
        v = as_array(v, "v", (self._m,))
        return np.einsum("...kij,...k->...ij", self._dA(q), v)

    def __repr__(self):
        return f"<InducedConnection on {self.system!r} from {self.ambient!r}>"


# ----------------------------------------------------------------------------------------
# closed chains by projection (seed 000 §VI-C1)
# ----------------------------------------------------------------------------------------
class LoopClosureFrame(Frame):
    r"""Frame of independent coordinates on a loop-closure manifold
    :math:`\{q \in \mathbb R^n : \phi(q) = 0\}`.

    The coordinates split into independent :math:`y = q_I` (``m`` of them) and dependent
    :math:`z = q_D` (``c = n - m``, one per constraint). The fields are
    :math:`\bar X_j = A^i_j \partial_{q^i}` with the null-space basis of the constraint
    Jacobian :math:`K = \partial\phi / \partial q`,

    .. math::
        A_I = \mathbf 1, \qquad A_D = -K_D^{-1} K_I, \qquad
        \dot A_D = -K_D^{-1} \dot K A, \quad \dot K = \frac{\partial K}{\partial q^l}\,
        (A\bar v)^l

    (seed 000 §VI-C1), i.e. the coordinate fields of the chart :math:`y`: they commute
    (zero structure constants) and the flow of :math:`w^j \bar X_j` for time ``t`` moves
    :math:`y \to y + t w` and solves :math:`\phi = 0` for ``z`` by Newton's method, continued
    in steps of at most ``max_step`` from the start point (so it stays on the branch of the
    start point). Points are full configurations ``q`` of shape ``(n,)``.

    Parameters
    ----------
    constraint : callable
        :math:`\phi`: batched ``q (..., n) -> (..., c)``.
    n : int
        Number of coordinates of the spanning tree.
    independent : sequence of int
        Indices of the independent coordinates (``m = len(independent)``; the rest are
        dependent and must number ``c``).
    constraint_jacobian : callable, optional
        ``K(q) -> (..., c, n)``; default: five-point stencil of ``constraint``.
    constraint_hessian : callable, optional
        ``q -> (..., c, n, n)`` with ``[a, i, l]`` :math:`= \partial^2\phi_a / \partial q^i
        \partial q^l`; default: five-point stencil of the Jacobian.
    reference : array_like, shape (n,), optional
        A configuration on the manifold, the centre of :meth:`random_configuration`.
    max_step : float
        Largest change of an independent coordinate per continuation step.
    max_iter : int
        Newton iterations per continuation step.

    Attributes
    ----------
    dim : int
        ``m``.
    point_shape : tuple of int
        ``(n,)``.
    independent, dependent : ndarray of int

    Raises
    ------
    ConnectionSpecError
        If a callable argument is not callable, the indices are invalid, or ``constraint``
        does not return ``n - m`` values.
    NotOnManifoldError
        If ``reference`` does not satisfy the constraint.

    References
    ----------
    seed 000 §VI-C1 (spanning-tree method).

    Examples
    --------
    A point on the unit circle, :math:`\phi(x, y) = x^2 + y^2 - 1`, with ``x`` independent:

    >>> import numpy as np
    >>> from geomech.geometry import LoopClosureFrame
    >>> frame = LoopClosureFrame(lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0, 2, [0])
    >>> frame.flow([0.0, 1.0], [0.6], 1.0)
    array([0.6, 0.8])
    """

    def __init__(self, constraint, n, independent, constraint_jacobian=None,
                 constraint_hessian=None, reference=None, *, max_step=0.25, max_iter=50):
        for value, name in ((constraint, "constraint"), (constraint_jacobian,
                            "constraint_jacobian"), (constraint_hessian, "constraint_hessian")):
            if value is not None and not callable(value):
                raise ConnectionSpecError(
                    f"Expected `{name}` to be callable, got {type(value).__name__}."
                )
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
            raise DimensionError(f"Expected `n` to be an integer >= 2, got {n!r}.")
        n = int(n)
        self.independent = _indices(independent, n, "independent")
        self.dependent = np.array([i for i in range(n) if i not in set(self.independent)],
                                  dtype=int)
        if self.dependent.size == 0:
            raise ConnectionSpecError(
                f"Expected at least one dependent coordinate, got all {n} independent."
            )
        self.dim = int(self.independent.size)
        self.point_shape = (n,)
        self._phi_fun = constraint
        self._K_fun = constraint_jacobian
        self._dK_fun = constraint_hessian
        self.max_step = float(max_step)
        self.max_iter = int(max_iter)
        probe = np.zeros(n) if reference is None else as_array(reference, "reference", (n,))
        c = np.asarray(constraint(probe), dtype=float).shape
        if c != (self.dependent.size,):
            raise ConnectionSpecError(
                f"Expected `constraint(q)` to return n - m = {self.dependent.size} values (one "
                f"per dependent coordinate), got shape {c}."
            )
        self.reference = None if reference is None else self.validate_point(reference,
                                                                              "reference")

    # -- constraint and its derivatives (q unvalidated, shape (..., n)) -------------------
    def _phi(self, q):
        r = np.asarray(self._phi_fun(q), dtype=float)
        want = q.shape[:-1] + (self.dependent.size,)
        if r.shape != want:
            raise DimensionError(f"Expected `constraint(q)` to have shape {want}, got {r.shape}.")
        return r

    def _K(self, q):
        c, n = self.dependent.size, self.point_shape[0]
        if self._K_fun is None:
            return _fd_jacobian(self._phi, q)
        K = np.asarray(self._K_fun(q), dtype=float)
        if K.shape != q.shape[:-1] + (c, n):
            raise DimensionError(
                f"Expected `constraint_jacobian(q)` to have shape {q.shape[:-1] + (c, n)}, "
                f"got {K.shape}."
            )
        return K

    def _dK(self, q):
        """dK[..., a, i, l] = d^2 phi_a / dq_i dq_l."""
        c, n = self.dependent.size, self.point_shape[0]
        if self._dK_fun is None:
            return _fd_jacobian(self._K, q)
        dK = np.asarray(self._dK_fun(q), dtype=float)
        if dK.shape != q.shape[:-1] + (c, n, n):
            raise DimensionError(
                f"Expected `constraint_hessian(q)` to have shape {q.shape[:-1] + (c, n, n)}, "
                f"got {dK.shape}."
            )
        return dK

    def _solve_KD(self, K, rhs):
        """K_D^{-1} rhs, raising SingularityError at a singular configuration."""
        K_D = K[..., self.dependent]
        cond = np.linalg.cond(K_D)
        if not np.all(cond < 1e12):
            raise SingularityError(
                "Expected the constraint Jacobian with respect to the dependent coordinates "
                f"{self.dependent.tolist()} to be invertible, got condition number "
                f"{float(np.max(cond)):.3g} (a singular configuration of the loop)."
            )
        return np.linalg.solve(K_D, rhs)

    def _velocity_map(self, q):
        """A (..., n, m): A_I = 1, A_D = -K_D^-1 K_I (seed 000 §VI-C1)."""
        K = self._K(q)
        n, m = self.point_shape[0], self.dim
        A = np.zeros(q.shape[:-1] + (n, m))
        A[..., self.independent, :] = np.eye(m)
        A[..., self.dependent, :] = -self._solve_KD(K, K[..., self.independent])
        return A

    def _velocity_map_derivative(self, q, v):
        """A_dot (..., n, m): from K A = 0, A_dot_I = 0 and K_D A_dot_D = -K_dot A."""
        K = self._K(q)
        A = self._velocity_map(q)
        u = np.einsum("...im,...m->...i", A, v)  # q_dot = A v
        K_dot = np.einsum("...ail,...l->...ai", self._dK(q), u)
        A_dot = np.zeros_like(A)
        A_dot[..., self.dependent, :] = -self._solve_KD(K, K_dot @ A)
        return A_dot

    def _close(self, q):
        """Newton on the dependent coordinates (independent ones fixed); q (..., n) copy."""
        D = self.dependent
        for _ in range(self.max_iter):
            dz = -self._solve_KD(self._K(q), self._phi(q)[..., None])[..., 0]
            q[..., D] += dz
            if np.max(np.abs(dz), initial=0.0) <= 1e-13 * (1.0 + np.max(np.abs(q), initial=0.0)):
                return q
        raise SingularityError(
            f"Expected the loop closure to converge in {self.max_iter} Newton iterations, got "
            f"residual {float(np.max(np.abs(self._phi(q)))):.3g}."
        )

    # -- Frame interface --------------------------------------------------------------------
    def flow(self, q, w, t=1.0):
        """Move the independent coordinates by ``t w`` and close the loop (continuation).

        Parameters
        ----------
        q : array_like, shape (..., n)
            Start point(s) on the manifold.
        w : array_like, shape (..., m)
        t : float or array_like, shape (...)

        Returns
        -------
        ndarray, shape (..., n)

        Raises
        ------
        SingularityError
            If the continuation meets a singular configuration or Newton does not converge.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LoopClosureFrame
        >>> frame = LoopClosureFrame(lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0, 2, [0])
        >>> np.round(frame.flow([0.6, 0.8], [-1.0], 1.2), 12)  # stays on the upper branch
        array([-0.6,  0.8])
        """
        q = as_array(q, "q", self.point_shape)
        w = as_array(w, "w", (self.dim,))
        dy = np.asarray(t, dtype=float)[..., None] * w
        batch = np.broadcast_shapes(q.shape[:-1], dy.shape[:-1])
        q = np.broadcast_to(q, batch + self.point_shape).copy()
        dy = np.broadcast_to(dy, batch + (self.dim,))
        y0 = q[..., self.independent].copy()
        N = max(1, int(np.ceil(np.max(np.abs(dy), initial=0.0) / self.max_step)))
        for s in range(1, N + 1):
            A = self._velocity_map(q)
            q = q + np.einsum("...im,...m->...i", A, dy / N)  # Euler predictor
            q[..., self.independent] = y0 + dy * (s / N)
            q = self._close(q)  # Newton corrector
        return q

    def structure_constants(self, q):
        """Zero: the fields are the coordinate fields of the independent coordinates.

        Parameters
        ----------
        q : array_like, shape (..., n)

        Returns
        -------
        ndarray, shape (..., m, m, m)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LoopClosureFrame
        >>> frame = LoopClosureFrame(lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0, 2, [0])
        >>> frame.structure_constants([0.0, 1.0]).shape
        (1, 1, 1)
        """
        q = as_array(q, "q", self.point_shape)
        return np.zeros(q.shape[:-1] + (self.dim,) * 3)

    def chart_velocity(self, q0, phi, v):
        r""":math:`\dot\phi = v` (the chart is the independent coordinates).

        Parameters
        ----------
        q0 : array_like, shape (..., n)
        phi : array_like, shape (..., m)
        v : array_like, shape (..., m)

        Returns
        -------
        ndarray, shape (..., m)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LoopClosureFrame
        >>> frame = LoopClosureFrame(lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0, 2, [0])
        >>> frame.chart_velocity([0.0, 1.0], [0.1], [2.0])
        array([2.])
        """
        return np.broadcast_to(np.asarray(v, dtype=float),
                               np.broadcast_shapes(np.shape(phi), np.shape(v))).copy()

    def validate_point(self, q, name="q"):
        r"""Check the shape, finiteness and the loop closure :math:`\phi(q) = 0`.

        Parameters
        ----------
        q : array_like, shape (..., n)
        name : str

        Returns
        -------
        ndarray, shape (..., n)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.
        NotOnManifoldError
            If :math:`\max|\phi(q)| > 10^{-9} \max(1, \max|q|)`.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LoopClosureFrame
        >>> frame = LoopClosureFrame(lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0, 2, [0])
        >>> frame.validate_point([0.6, 0.8])
        array([0.6, 0.8])
        >>> frame.validate_point([0.6, 0.7])
        Traceback (most recent call last):
        ...
        geomech.errors.NotOnManifoldError: Expected `q` to satisfy the loop closure phi(q) = 0, got residual 0.15 > 1e-09 (project it with close_loop).
        """
        q = as_array(q, name, self.point_shape)
        res = float(np.max(np.abs(self._phi(q)), initial=0.0))
        tol = CLOSURE_TOL * max(1.0, float(np.max(np.abs(q), initial=0.0)))
        if res > tol:
            raise NotOnManifoldError(
                f"Expected `{name}` to satisfy the loop closure phi(q) = 0, got residual "
                f"{res:.3g} > {tol:.3g} (project it with close_loop)."
            )
        return q

    def close_loop(self, q):
        r"""Project ``q`` onto the manifold: solve :math:`\phi = 0` for the dependent
        coordinates by Newton's method, keeping the independent ones.

        Parameters
        ----------
        q : array_like, shape (..., n)
            Initial guess (its dependent coordinates pick the branch).

        Returns
        -------
        ndarray, shape (..., n)

        Raises
        ------
        SingularityError
            If Newton's method meets a singular configuration or does not converge.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LoopClosureFrame
        >>> frame = LoopClosureFrame(lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0, 2, [0])
        >>> frame.close_loop([0.6, -0.5])
        array([ 0.6, -0.8])
        """
        q = as_array(q, "q", self.point_shape)
        return self._close(q.copy())

    def neutral(self):
        """The :attr:`reference` configuration (on the constraint manifold).

        Returns
        -------
        ndarray, shape (n,)

        Raises
        ------
        ConnectionSpecError
            If the frame has no ``reference`` configuration.

        Examples
        --------
        >>> from geomech.geometry import LoopClosureFrame
        >>> circle = lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0
        >>> LoopClosureFrame(circle, 2, [0], reference=[0.0, 1.0]).neutral()
        array([0., 1.])
        """
        if self.reference is None:
            raise ConnectionSpecError("Expected a `reference` configuration, got None.")
        return self.reference.copy()

    def random_configuration(self, rng=None, size=None):
        r"""Random points: independent coordinates :math:`y_{\rm ref} + 0.5\,\mathcal N(0,
        1)`, reached by continuation from :attr:`reference`.

        Parameters
        ----------
        rng : None, int or numpy.random.Generator
        size : None, int or tuple of int

        Returns
        -------
        ndarray, shape (*size, n)

        Raises
        ------
        ConnectionSpecError
            If the frame has no ``reference`` configuration.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import LoopClosureFrame
        >>> circle = lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0
        >>> frame = LoopClosureFrame(circle, 2, [0], reference=[0.0, 1.0])
        >>> q = frame.random_configuration(rng=0, size=3)
        >>> q.shape, bool(np.allclose((q ** 2).sum(-1), 1.0))
        ((3, 2), True)
        """
        if self.reference is None:
            raise ConnectionSpecError(
                "Expected a `reference` configuration to sample around, got None."
            )
        size = () if size is None else (size,) if np.isscalar(size) else tuple(size)
        w = 0.5 * default_rng(rng).standard_normal(size + (self.dim,))
        return self.flow(self.reference, w, 1.0)

    def __repr__(self):
        return (f"LoopClosureFrame(n={self.point_shape[0]}, "
                f"independent={self.independent.tolist()})")


class ClosedChain:
    r"""A closed chain by projection: a spanning tree closed by loop constraints (§VI-C1).

    The spanning tree is a system in joint coordinates :math:`q \in \mathbb R^n` with a
    connection (typically its Levi-Civita connection, giving :math:`C^\star_{\rm spanning}`).
    The loop constraints :math:`\phi(q) = 0` leave ``m`` independent coordinates; the speeds
    are :math:`v_{\rm spanning} = A(q)\, v_{\rm minimal}` with :math:`A` from the null space of
    the constraint Jacobian (:class:`LoopClosureFrame`), and

    .. math::
        H_{\rm minimal} = A^\top H_{\rm spanning} A, \qquad
        C_{\rm minimal} = A^\top C_{\rm spanning} A + A^\top H_{\rm spanning} \dot A .

    This is the :class:`InducedConnection` :attr:`connection` on the system :attr:`system`
    of the loop-closure manifold, whose frame is the :class:`LoopClosureFrame`
    :attr:`frame` (so geodesics, parallel transport and the predicates work on it).

    Parameters
    ----------
    tree : AffineConnection
        Connection of the spanning tree; its system must use joint coordinates (a
        :class:`~geomech.geometry.frames.CoordinateFrame`).
    constraint : callable
        Loop closure :math:`\phi`: batched ``q (..., n) -> (..., n - m)``.
    independent : sequence of int
        Indices of the independent coordinates.
    constraint_jacobian, constraint_hessian : callable, optional
        See :class:`LoopClosureFrame` (default: five-point stencils).
    reference : array_like, shape (n,), optional
        A closed configuration (for :meth:`MechanicalSystem.random_configuration`).

    Attributes
    ----------
    tree : AffineConnection
    frame : LoopClosureFrame
    connection : InducedConnection
    system : MechanicalSystem
        The minimal system (:math:`H_{\rm minimal}`).
    dim : int
        ``m``.

    Raises
    ------
    ConnectionSpecError
        If ``tree`` is not an :class:`AffineConnection` on a system in coordinates, or the
        constraint is specified wrongly (see :class:`LoopClosureFrame`).

    References
    ----------
    seed 000 §VI-C1, eq. (17).

    Examples
    --------
    A unit point mass on the unit circle as a "loop" of the plane, ``x`` independent: at
    :math:`(0.6, 0.8)`, :math:`A = [1, -3/4]^\top` and :math:`H_{\rm min} = 1 + 9/16`.

    >>> import numpy as np
    >>> from geomech.geometry import ClosedChain, LeviCivitaConnection
    >>> from geomech.geometry.examples import point_mass
    >>> circle = ClosedChain(LeviCivitaConnection(point_mass(dim=2)),
    ...                      lambda q: (q ** 2).sum(-1, keepdims=True) - 1.0, [0])
    >>> q = np.array([0.6, 0.8])
    >>> np.round(circle.velocity_map(q), 12)
    array([[ 1.  ],
           [-0.75]])
    >>> np.round(circle.mass_matrix(q), 12)
    array([[1.5625]])
    """

    def __init__(self, tree, constraint, independent, *, constraint_jacobian=None,
                 constraint_hessian=None, reference=None):
        if not isinstance(tree, AffineConnection):
            raise ConnectionSpecError(
                f"Expected `tree` to be an AffineConnection, got {type(tree).__name__}."
            )
        if not isinstance(tree.system.frame, CoordinateFrame):
            raise ConnectionSpecError(
                "Expected the spanning tree in joint coordinates (a CoordinateFrame), got "
                f"{tree.system.frame!r}."
            )
        self.tree = tree
        self._spec = dict(constraint=constraint, independent=independent,
                          constraint_jacobian=constraint_jacobian,
                          constraint_hessian=constraint_hessian, reference=reference)
        self.frame = LoopClosureFrame(constraint, tree.dim, independent, constraint_jacobian,
                                      constraint_hessian, reference)
        self.connection = InducedConnection(tree, A=self.frame._velocity_map, frame=self.frame,
                                            A_dot=self.frame._velocity_map_derivative)
        self.system = self.connection.system
        self.dim = self.frame.dim

    @property
    def independent(self) -> np.ndarray:
        """Indices of the independent coordinates.

        Examples
        --------
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> four_bar_linkage().independent
        array([0])
        """
        return self.frame.independent

    @property
    def dependent(self) -> np.ndarray:
        """Indices of the dependent coordinates.

        Examples
        --------
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> four_bar_linkage().dependent
        array([1, 2])
        """
        return self.frame.dependent

    def constraint(self, q) -> np.ndarray:
        r"""Loop-closure residual :math:`\phi(q)`.

        Parameters
        ----------
        q : array_like, shape (..., n)

        Returns
        -------
        ndarray, shape (..., n - m)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> float(np.max(np.abs(fb.constraint(fb.frame.reference)))) < 1e-12
        True
        """
        return self.frame._phi(as_array(q, "q", self.frame.point_shape))

    def constraint_jacobian(self, q) -> np.ndarray:
        r"""Constraint Jacobian :math:`K = \partial\phi/\partial q`.

        Parameters
        ----------
        q : array_like, shape (..., n)

        Returns
        -------
        ndarray, shape (..., n - m, n)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> q = fb.frame.reference
        >>> bool(np.allclose(fb.constraint_jacobian(q) @ fb.velocity_map(q), 0.0))
        True
        """
        return self.frame._K(as_array(q, "q", self.frame.point_shape))

    def close_loop(self, q) -> np.ndarray:
        """Project ``q`` onto the loop-closure manifold (see :meth:`LoopClosureFrame.close_loop`).

        Parameters
        ----------
        q : array_like, shape (..., n)

        Returns
        -------
        ndarray, shape (..., n)

        Raises
        ------
        SingularityError
            If Newton's method fails.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> q = fb.close_loop(fb.frame.reference + [0.1, 0.0, 0.0])
        >>> float(np.max(np.abs(fb.constraint(q)))) < 1e-12
        True
        """
        return self.frame.close_loop(q)

    def velocity_map(self, q) -> np.ndarray:
        r""":math:`A(q)` with :math:`v_{\rm spanning} = A\, v_{\rm minimal}`.

        Parameters
        ----------
        q : array_like, shape (..., n)
            Closed configuration(s).

        Returns
        -------
        ndarray, shape (..., n, m)

        Raises
        ------
        NotOnManifoldError
            If ``q`` does not close the loop.
        SingularityError
            At a singular configuration.

        Examples
        --------
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> fb.velocity_map(fb.frame.reference).shape
        (3, 1)
        """
        return self.connection.velocity_map(q)

    def velocity_map_derivative(self, q, v) -> np.ndarray:
        r""":math:`\dot A` along the motion with minimal speeds ``v``.

        Parameters
        ----------
        q : array_like, shape (..., n)
        v : array_like, shape (..., m)

        Returns
        -------
        ndarray, shape (..., n, m)

        Raises
        ------
        NotOnManifoldError
            If ``q`` does not close the loop.

        Examples
        --------
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> fb.velocity_map_derivative(fb.frame.reference, [1.0]).shape
        (3, 1)
        """
        return self.connection.velocity_map_derivative(q, v)

    def mass_matrix(self, q) -> np.ndarray:
        r""":math:`H_{\rm minimal} = A^\top H_{\rm spanning} A`.

        Parameters
        ----------
        q : array_like, shape (..., n)

        Returns
        -------
        ndarray, shape (..., m, m)

        Raises
        ------
        NotOnManifoldError
            If ``q`` does not close the loop.

        Examples
        --------
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> fb.mass_matrix(fb.frame.reference).shape
        (1, 1)
        """
        return self.system.mass_matrix(q)

    def coriolis_matrix(self, q, v) -> np.ndarray:
        r""":math:`C_{\rm minimal} = A^\top C_{\rm spanning} A + A^\top H_{\rm spanning} \dot A`.

        Parameters
        ----------
        q : array_like, shape (..., n)
        v : array_like, shape (..., m)
            Minimal speeds (of the independent coordinates).

        Returns
        -------
        ndarray, shape (..., m, m)

        Raises
        ------
        NotOnManifoldError
            If ``q`` does not close the loop.

        References
        ----------
        seed 000 §VI-C1, eq. (17).

        Examples
        --------
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> fb.coriolis_matrix(fb.frame.reference, [1.0]).shape
        (1, 1)
        """
        return self.connection.coriolis_matrix(q, v)

    def with_connection(self, tree) -> ClosedChain:
        """The same chain with another connection on the spanning tree.

        Parameters
        ----------
        tree : AffineConnection
            On the same spanning-tree system (e.g. ``chain.tree + contorsion``).

        Returns
        -------
        ClosedChain

        Raises
        ------
        ConnectionSpecError
            If ``tree`` is not a connection of the same dimension.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.geometry import Contorsion
        >>> from geomech.geometry.examples_induced import four_bar_linkage
        >>> fb = four_bar_linkage()
        >>> twisted = fb.with_connection(fb.tree + Contorsion.totally_antisymmetric([0.7]))
        >>> q = fb.frame.reference
        >>> bool(np.allclose(twisted.coriolis_matrix(q, [1.0]), fb.coriolis_matrix(q, [1.0])))
        True
        """
        if not isinstance(tree, AffineConnection) or tree.dim != self.tree.dim:
            raise ConnectionSpecError(
                f"Expected `tree` to be an AffineConnection of dimension {self.tree.dim}, got "
                f"{tree!r}."
            )
        return ClosedChain(tree, **self._spec)

    def __repr__(self):
        return (f"<ClosedChain: {self.tree.dim} spanning-tree coordinates, {self.dim} "
                f"independent {self.independent.tolist()}>")

