r"""A kinematic tree as a mechanical system with an affine connection (geometry layer view).

:func:`model_connection` turns a :class:`~geomech.multibody.model.tree.MultibodyModel` and a choice
of body connections into an :class:`~geomech.geometry.AffineConnection` on a
:class:`~geomech.geometry.MechanicalSystem`, so that everything of :mod:`geomech.geometry`
(torsion, contorsion, the predicates, geodesics, parallel transport) applies to robots:

- configurations are the flat vectors ``q`` of length ``nq``;
- the frame is the model's speeds, :math:`\dot q = X_i\nu^i`, with flow
  ``model.integrate(q, w, t)`` and the joints' structure constants
  (:func:`~geomech.multibody.algorithms.christoffel.joint_structure_constants`, seed 000 §1.1);
- the metric is the CRBA mass matrix and the potential is gravity's,
  :math:`V(q) = -\mathbf g^\top\sum_i m_i\mathbf c_i(q)`;
- the coefficients are :math:`\Gamma_{ijk}(q) = [\bar C(q, e_j)]_{ik}` of the induced Coriolis
  matrix (seed 000 §VI-B), by Alg. 2
  (:func:`~geomech.multibody.algorithms.christoffel.christoffel_symbols`) for the Levi-Civita choice
  and Alg. 1 with unit speeds otherwise.

:func:`connection_report` measures, for each named body connection on a model, the skew
residual :math:`\|\dot H - C - C^\top\|`, the dynamics residual :math:`\|C\nu - (\mathrm{RNEA}(q,
\nu, 0) - g)\|`, the torsion and the time of each algorithm (the data of ``geomech inspect``).

References
----------
seed 000 §II (frames), §V (induced connections), §VI-B; :doc:`/architecture`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from geomech._validation import as_array, check_q, check_v, default_rng
from geomech.errors import DimensionError
from geomech.geometry.connection import AffineConnection
from geomech.multibody.algorithms._body_factors import _body_connections
from geomech.multibody.algorithms.christoffel import christoffel_symbols
from geomech.multibody.algorithms.coriolis import (
    coriolis_matrix,
    coriolis_matrix_dense,
    coriolis_matrix_differentiation,
)
from geomech.multibody.algorithms.dynamics import crba, gravity_forces, rnea
from geomech.multibody.connections.body import NAMED_BODY_CONNECTIONS, LeviCivitaBody

__all__ = [
    "MultibodyConnection",
    "model_connection",
    "ConnectionReport",
    "connection_report",
    "format_connection_report",
]


class MultibodyConnection(AffineConnection):
    r"""The affine connection of a kinematic tree induced by its body connections.

    Built by :func:`model_connection`; an :class:`~geomech.geometry.AffineConnection` whose
    coefficients are :math:`\Gamma_{ijk}(q) = [\bar C(q, e_j)]_{ik}`. Its default reference
    for the contorsion (and :meth:`has_riemannian_geodesics`) is the model's Levi-Civita
    connection from Alg. 2, exact, instead of the Koszul formula by finite differences.

    Parameters
    ----------
    model : MultibodyModel
    body_connection : str, BodyConnection, AffineConnection, callable or mapping
        As in :func:`~geomech.multibody.algorithms.coriolis.coriolis_matrix`.

    Attributes
    ----------
    model : MultibodyModel
    body_connections : list of BodyConnection
        The connection of each body.
    is_levi_civita : bool
        Whether every body uses the Levi-Civita connection (coefficients from Alg. 2).

    Raises
    ------
    ConnectionSpecError
        For an unknown name, a mapping key that is not a body, or a malformed connection.

    References
    ----------
    seed 000 Thm. V.1, Props. V.1–V.3, Alg. 1, Alg. 2.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.model.connection import MultibodyConnection
    >>> conn = MultibodyConnection(robots.double_pendulum(), "cartan-minus")
    >>> q = [0.3, -0.5]
    >>> bool(conn.is_metric_compatible(q)), bool(conn.has_riemannian_geodesics(q))
    (True, False)
    """

    def __init__(self, model, body_connection="levi-civita"):
        self.model = model
        self.body_connections = _body_connections(model, body_connection)
        self.is_levi_civita = all(type(c) is LeviCivitaBody for c in self.body_connections)
        self._body_connection = body_connection
        super().__init__(model, self._coefficients)

    def _coefficients(self, q: np.ndarray) -> np.ndarray:
        model = self.model
        if self.is_levi_civita:
            return self.system._koszul(q)  # the system's Koszul hook: Alg. 2 on a tree
        # Gamma_ijk = [C(q, e_j)]_ik: Alg. 1 at the n unit speeds, batched
        q = check_q(model, q)
        C = coriolis_matrix(model, q[..., None, :], np.eye(model.nv), self._body_connection)
        return np.moveaxis(C, -3, -2)

    def coriolis_matrix(self, q, v) -> np.ndarray:
        r"""Coriolis matrix :math:`C_{ik} = \Gamma_{ijk} v^j` by seed 000 Alg. 1 (the fast
        override).

        Parameters
        ----------
        q : array_like, shape (..., nq)
        v : array_like, shape (..., nv)

        Returns
        -------
        ndarray, shape (..., nv, nv)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` or ``v`` is malformed.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody import robots
        >>> model = robots.double_pendulum()
        >>> conn = model.connection("cartan-minus")
        >>> C = conn.coriolis_matrix([0.3, -0.5], [1.0, 2.0])
        >>> Gamma = conn.christoffel_first_kind([0.3, -0.5])
        >>> bool(np.allclose(C, np.einsum("ijk,j->ik", Gamma, [1.0, 2.0])))
        True
        """
        return coriolis_matrix(self.model, q, v, self._body_connection)

    def __repr__(self):
        names = sorted({c.name for c in self.body_connections})
        return f"<MultibodyConnection {'/'.join(names)} on {self.model!r}>"


def model_connection(model, body_connection="levi-civita") -> MultibodyConnection:
    r"""The whole system's connection of a kinematic tree, as an
    :class:`~geomech.geometry.AffineConnection`.

    .. math:: \Gamma_{ijk}(q) = \langle\!\langle X_i, \nabla_{X_j} X_k\rangle\!\rangle
              = [\bar C(q, e_j)]_{ik}, \qquad \bar C = A^\top C A + A^\top H\dot A

    on the system with configurations ``q`` (length ``nq``), frame the model's speeds (flow
    ``model.integrate``, joint structure constants), metric the CRBA mass matrix and potential
    gravity's. For ``"levi-civita"`` the coefficients come from Alg. 2
    (:func:`~geomech.multibody.algorithms.christoffel.christoffel_symbols`), otherwise from Alg. 1
    at unit speeds.

    Parameters
    ----------
    model : MultibodyModel
    body_connection : str, BodyConnection, AffineConnection, callable or mapping, optional
        The connection on each body's SE(3) (see
        :func:`~geomech.multibody.algorithms.coriolis.coriolis_matrix`).

    Returns
    -------
    MultibodyConnection

    Raises
    ------
    ConnectionSpecError
        For an unknown name, a mapping key that is not a body, or a malformed connection.

    References
    ----------
    seed 000 §II, Thm. V.1, Props. V.1–V.3, Alg. 1, Alg. 2; :doc:`/architecture`.

    Examples
    --------
    The Levi-Civita connection of a floating-base tree is metric compatible and torsion free
    (its structure constants are those of the free-flyer's SE(3)):

    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.model.connection import model_connection
    >>> model = robots.random_tree(3, rng=0, floating_base=True)
    >>> lc = model_connection(model)
    >>> q = model.random_configuration(rng=1)
    >>> bool(lc.is_metric_compatible(q)), bool(lc.is_torsion_free(q))
    (True, True)
    >>> bool(model_connection(model, "velocity-cross").is_torsion_free(q))
    False
    """
    return MultibodyConnection(model, body_connection)


# ----------------------------------------------------------------------------------------
# the report behind `geomech inspect`
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ConnectionReport:
    r"""Measured properties and timings of one body-connection choice on a model.

    Parameters
    ----------
    name : str
        The body connection (same for every body).
    skew_residual : float
        :math:`\max|\dot H - C - C^\top|`, :math:`\dot H` by central differences of the CRBA
        along ``model.integrate(q, ±h ν)`` (:math:`h = 10^{-6}`).
    dynamics_residual : float
        :math:`\max|C\nu - (\mathrm{RNEA}(q, \nu, 0) - g(q))|`.
    torsion_norm : float
        Largest entry of the lowered torsion :math:`\Gamma_{ijk} - \Gamma_{ikj} - s_{ijk}`.
    metric_compatible, correct_dynamics, torsion_free : bool
        The residuals against ``1e-6``, ``1e-9`` and ``1e-9`` times ``max(1, max|H|)``.
    time_alg1 : float
        Seconds per :func:`~geomech.multibody.algorithms.coriolis.coriolis_matrix` (best of the
        repeats).
    time_dense : float
        Seconds per :func:`~geomech.multibody.algorithms.coriolis.coriolis_matrix_dense`.
    time_alg2 : float
        Seconds per :func:`~geomech.multibody.algorithms.christoffel.christoffel_symbols`
        (Levi-Civita row only; NaN otherwise).
    time_differentiation : float
        Seconds per :func:`~geomech.multibody.algorithms.coriolis.coriolis_matrix_differentiation`
        (Levi-Civita row only; NaN otherwise).

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.model.connection import connection_report
    >>> row = connection_report(robots.double_pendulum(), connections=["levi-civita"], repeat=1)[0]
    >>> row.name, row.metric_compatible, row.correct_dynamics, row.torsion_free
    ('levi-civita', True, True, True)
    """

    name: str
    skew_residual: float
    dynamics_residual: float
    torsion_norm: float
    metric_compatible: bool
    correct_dynamics: bool
    torsion_free: bool
    time_alg1: float
    time_dense: float
    time_alg2: float = float("nan")
    time_differentiation: float = float("nan")


def _best_time(fun, repeat: int) -> float:
    best = np.inf
    for _ in range(max(1, int(repeat))):
        t0 = time.perf_counter()
        fun()
        best = min(best, time.perf_counter() - t0)
    return float(best)


def connection_report(model, q=None, v=None, *, connections=None, rng=None, repeat=3):
    r"""Measure every named body connection on a model: skew and dynamics residuals, torsion,
    timings.

    For each connection (the same on every body):

    .. math:: \|\dot H - C - C^\top\|_{\max},\qquad
              \|C\nu - (\mathrm{RNEA}(q, \nu, 0) - g)\|_{\max},\qquad
              \|\Gamma_{ijk} - \Gamma_{ikj} - s_{ijk}\|_{\max}

    with :math:`\dot H` from central differences of the CRBA along the flow (independent of
    the algorithms), and the time of Alg. 1, of the dense reference, and (Levi-Civita row)
    of Alg. 2 and the differentiation form.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (nq,), optional
        Default: a random configuration.
    v : array_like, shape (nv,), optional
        Default: random speeds, uniform in [-1, 1].
    connections : sequence, optional
        Body-connection specifications; default the six named ones.
    rng : None, int or numpy.random.Generator
        For the default state (default seed 0).
    repeat : int
        Timing repeats (the best is kept).

    Returns
    -------
    list of ConnectionReport

    Raises
    ------
    DimensionError, NonFiniteError
        If ``q`` or ``v`` is malformed (a single state is expected).
    ConnectionSpecError
        For an unknown connection.

    References
    ----------
    seed 000 Props. IV.1, IV.2 (skew ⇔ metric compatible, :math:`C\nu = c` ⇔ Riemannian
    geodesics), §III (torsion).

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.model.connection import connection_report
    >>> rows = connection_report(robots.double_pendulum(), repeat=1)
    >>> [(r.name, r.metric_compatible, r.correct_dynamics) for r in rows][:2]
    [('levi-civita', True, True), ('cartan-minus', True, False)]
    """
    rng = default_rng(0 if rng is None else rng)
    q = model.random_configuration(rng) if q is None else as_array(q, "q", (model.nq,))
    v = rng.uniform(-1.0, 1.0, model.nv) if v is None else as_array(v, "v", (model.nv,))
    q, v = check_q(model, q), check_v(model, v)
    if q.ndim != 1 or v.ndim != 1:
        raise DimensionError(
            f"Expected a single state, `q` of shape ({model.nq},) and `v` of shape "
            f"({model.nv},), got {q.shape} and {v.shape}."
        )
    connections = list(NAMED_BODY_CONNECTIONS) if connections is None else list(connections)
    h = 1e-6
    H_dot = (crba(model, model.integrate(q, v, h)) - crba(model, model.integrate(q, v, -h))) / (
        2 * h
    )
    bias = rnea(model, q, v, np.zeros(model.nv)) - gravity_forces(model, q)
    H = crba(model, q)
    scale = max(1.0, float(np.max(np.abs(H))))
    s = model.frame.structure_constants(q)  # of the independent speeds on a closed model
    s_low = np.einsum("il,jkl->ijk", H, s)
    rows = []
    for spec in connections:
        conn = model_connection(model, spec)
        name = spec if isinstance(spec, str) else conn.body_connections[0].name
        C = coriolis_matrix(model, q, v, spec)
        Gamma = conn.christoffel_first_kind(q)
        skew = float(np.max(np.abs(H_dot - C - C.T), initial=0.0))
        dyn = float(np.max(np.abs(C @ v - bias), initial=0.0))
        tors = float(np.max(np.abs(Gamma - np.swapaxes(Gamma, -1, -2) - s_low), initial=0.0))
        extra = {}
        if conn.is_levi_civita:
            extra = {"time_alg2": _best_time(lambda: christoffel_symbols(model, q), repeat)}
            if not getattr(model, "is_closed", False):  # eqs. 29-32 are written for trees
                extra["time_differentiation"] = _best_time(
                    lambda: coriolis_matrix_differentiation(model, q, v), repeat
                )
        rows.append(
            ConnectionReport(
                name=str(name),
                skew_residual=skew,
                dynamics_residual=dyn,
                torsion_norm=tors,
                metric_compatible=skew <= 1e-6 * scale,
                correct_dynamics=dyn <= 1e-9 * scale,
                torsion_free=tors <= 1e-9 * scale,
                time_alg1=_best_time(lambda spec=spec: coriolis_matrix(model, q, v, spec), repeat),
                time_dense=_best_time(
                    lambda spec=spec: coriolis_matrix_dense(model, q, v, spec), repeat
                ),
                **extra,
            )
        )
    return rows


def format_connection_report(reports) -> str:
    """Format :func:`connection_report` rows as a plain-text table.

    Parameters
    ----------
    reports : sequence of ConnectionReport

    Returns
    -------
    str

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.model.connection import connection_report, format_connection_report
    >>> text = format_connection_report(connection_report(robots.double_pendulum(), repeat=1))
    >>> text.splitlines()[0].split()[:4]
    ['connection', '|Hdot-C-C^T|', '|Cv-c|', 'torsion']
    """
    head = (
        f"{'connection':<16} {'|Hdot-C-C^T|':>12} {'|Cv-c|':>9} {'torsion':>9}  "
        f"{'skew':>4} {'dyn':>4} {'T=0':>4}  {'Alg1 ms':>8} {'dense ms':>8} {'Alg2 ms':>8} "
        f"{'diff ms':>8}"
    )
    lines = [head, "-" * len(head)]
    yn = {True: "yes", False: "no"}

    def ms(t):
        return f"{1e3 * t:8.3f}" if np.isfinite(t) else f"{'-':>8}"

    for r in reports:
        lines.append(
            f"{r.name:<16} {r.skew_residual:12.2e} {r.dynamics_residual:9.2e} "
            f"{r.torsion_norm:9.2e}  {yn[r.metric_compatible]:>4} {yn[r.correct_dynamics]:>4} "
            f"{yn[r.torsion_free]:>4}  {ms(r.time_alg1)} {ms(r.time_dense)} "
            f"{ms(r.time_alg2)} {ms(r.time_differentiation)}"
        )
    return "\n".join(lines)
