r"""Connections on the SE(3) of each free body: the body-level Coriolis factorizations.

A free rigid body lives on SE(3) with body twists :math:`\mathbf v = [\boldsymbol\omega;
\boldsymbol v]` as generalized speeds (left-invariant frame) and the left-invariant metric
:math:`\langle\!\langle \mathbf u, \mathbf w\rangle\!\rangle = \mathbf u^\top\mathbf I\mathbf w`
of its spatial inertia :math:`\mathbf I` (about the body-frame origin, seed 000 §VI-A1, with
the metric erratum: no ½). An affine connection on it with left-invariant coefficients is a
constant tensor :math:`\Gamma_{ijk} = \langle\!\langle E_i, \nabla_{E_j} E_k\rangle\!\rangle`,
and its body Coriolis matrix is

.. math:: \mathbf C(\mathbf I, \mathbf v)_{ik} = \Gamma_{ijk}\, v^j ,\qquad
          \mathbf B(\mathbf I, \mathbf v) = \mathbf C(\mathbf I, \mathbf v)
          - \mathbf I(\mathbf v\times)

(seed 000 eq. 10 and eq. 21; :math:`\mathbf B` is what the recursive algorithms accumulate).
A multibody model induces its Coriolis matrix from these per-body choices through
:math:`\bar C = A^\top C A + A^\top H\dot A` (seed 000 eq. 17/20), and the properties carry
over (Props. V.1–V.3).

Named connections (canonical names of the one registry of connection names,
:mod:`geomech.geometry.names`, which also lists their aliases, e.g. ``momentum-cross`` for
``boltzmann-hamel``):

.. list-table::
   :header-rows: 1

   * - name
     - body Coriolis matrix :math:`\mathbf C(\mathbf I, \mathbf v)`
     - metric compatible
     - correct dynamics
     - torsion free
   * - ``levi-civita``
     - :math:`\tfrac12[\mathbf I(\mathbf v\times) + (\mathbf v\times^*)\mathbf I + (\mathbf I\mathbf
       v)\bar\times^*]`
     - yes
     - yes
     - yes
   * - ``cartan-minus``
     - :math:`0`
     - yes
     - no
     - no
   * - ``cartan-zero``
     - :math:`\tfrac12\mathbf I(\mathbf v\times)`
     - no
     - no
     - yes
   * - ``cartan-plus``
     - :math:`\mathbf I(\mathbf v\times)`
     - no
     - no
     - no
   * - ``velocity-cross``
     - :math:`(\mathbf v\times^*)\mathbf I + \mathbf I(\mathbf v\times)`
     - yes
     - yes
     - no
   * - ``boltzmann-hamel``
     - :math:`(\mathbf I\mathbf v)\bar\times^*`
     - yes
     - yes
     - no

``levi-civita`` is seed 000 eq. (18)/(19) (Bullo–Murray; the Christoffel-consistent one, seed
001 eq. 10 as :math:`\mathbf B`); ``velocity-cross`` is seed 001 eq. (9),
:math:`\mathbf B = (\mathbf v\times^*)\mathbf I` (Pinocchio's pre-2022 choice); ``boltzmann-hamel``
is seed 003's Boltzmann–Hamel connection
:math:`\mathbf C = \widetilde{\operatorname{ad}}_{\mathbf I\mathbf v}` (eq. 57) on SE(3),
spatial_v2_extended's ``factorFunctions`` option 2,
:math:`\mathbf B = (\mathbf I\mathbf v)\bar\times^* - \mathbf I(\mathbf v\times)`;
the Cartan–Schouten connections :math:`\nabla^{(-)}, \nabla^{(0)}, \nabla^{(+)}` have
:math:`\Gamma^i_{jk} = \lambda\, s^i_{jk}` with :math:`\lambda = 0, \tfrac12, 1`. The table's
verdicts are those of the geometry layer's predicates (:meth:`BodyConnection.properties`),
measured on random inertias (``tests/multibody/test_coriolis_body_connections.py``): the
residuals are exactly 0 where "yes" and of the order of the inertia where "no"; torsion norms,
e.g. for ``velocity-cross`` and ``boltzmann-hamel``, are the same (the two are mirror images
about the Levi-Civita connection: ``levi-civita`` is their average).

Users may supply any other body connection: a :class:`BodyConnection` subclass, an
:class:`~geomech.geometry.AffineConnection` on a rigid body's SE(3)
(:func:`geomech.geometry.examples.rigid_body_se3`; its coefficients at the identity are used),
or a callable ``(v, I) -> C`` returning the 6×6 body matrix (it must be linear in ``v``).

References
----------
seed 000 §VI-A1 (eqs. 18, 19, 21), §VI-B; seed 001 §1.5 (eqs. 9, 10, Def. 4); P. M.
Wensing's spatial_v2_extended (MATLAB), ``factorFunctions``.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

import numpy as np

from geomech._arrays import matvec
from geomech._validation import as_array
from geomech.errors import ConnectionSpecError
from geomech.geometry.checks import CheckResult
from geomech.geometry.names import canonical_connection_name, register_connection_name
from geomech.spatial import crbar, crf, crm

__all__ = [
    "NAMED_BODY_CONNECTIONS",
    "BodyConnection",
    "BodyConnectionProperties",
    "LeviCivitaBody",
    "CartanSchoutenBody",
    "VelocityCrossBody",
    "BoltzmannHamelBody",
    "CallableBody",
    "AffineConnectionBody",
    "body_connection",
    "body_connection_names",
    "register_body_connection",
]


# ----------------------------------------------------------------------------------------
# the strategy
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BodyConnectionProperties:
    r"""The three properties of a connection, as measured by the geometry layer.

    Parameters
    ----------
    metric_compatible : CheckResult
        :math:`\mathscr L_{X_k} H_{ij} = \Gamma_{jki} + \Gamma_{ikj}` (⇔ :math:`\dot H - 2C`
        skew, seed 000 Prop. IV.1).
    riemannian_geodesics : CheckResult
        Contorsion antisymmetric in (2, 3) (⇔ :math:`C v = C^\star v`, Prop. IV.2).
    torsion_free : CheckResult
        :math:`\Gamma_{ijk} - \Gamma_{ikj} = s_{ijk}`; its residual is the largest entry of
        the lowered torsion.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.connections.body import body_connection
    >>> props = body_connection("cartan-minus").properties(np.diag([1.0, 2, 3, 4, 4, 4]))
    >>> bool(props.metric_compatible), bool(props.riemannian_geodesics), bool(props.torsion_free)
    (True, False, False)
    """

    metric_compatible: CheckResult
    riemannian_geodesics: CheckResult
    torsion_free: CheckResult


class BodyConnection(abc.ABC):
    r"""A left-invariant affine connection on the SE(3) of one rigid body.

    Subclasses implement :meth:`_coriolis`, the body Coriolis matrix
    :math:`\mathbf C(\mathbf I, \mathbf v)` (linear in :math:`\mathbf v`) on unvalidated,
    batched arrays; everything else is derived here once.

    .. math:: \mathbf C(\mathbf I, \mathbf v)_{ik} = \Gamma_{ijk}(\mathbf I)\, v^j, \qquad
              \mathbf B(\mathbf I, \mathbf v) = \mathbf C - \mathbf I(\mathbf v\times)

    Attributes
    ----------
    name : str
        Registry name or a description.

    References
    ----------
    seed 000 eq. (10), (18), (21); seed 001 Def. 4.

    Examples
    --------
    A user-defined strategy: the Levi-Civita matrix scaled into the Cartan (−) one
    (:math:`\mathbf C = 0`) by subclassing:

    >>> import numpy as np
    >>> from geomech.multibody.connections.body import BodyConnection
    >>> class Zero(BodyConnection):
    ...     name = "zero"
    ...     def _coriolis(self, inertia, v):
    ...         return np.zeros(np.broadcast_shapes(inertia.shape[:-2], v.shape[:-1]) + (6, 6))
    >>> float(np.abs(Zero().coriolis(np.eye(6), np.ones(6))).max())
    0.0
    """

    name: str = "body connection"

    @abc.abstractmethod
    def _coriolis(self, inertia: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Unvalidated body Coriolis matrix (..., 6, 6) for inertia (..., 6, 6), twist (..., 6)."""

    def _B(self, inertia: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Unvalidated B = C - I (v x) (seed 000 eq. 21 for the Levi-Civita choice)."""
        return self._coriolis(inertia, v) - np.matmul(inertia, crm(v))

    def _check(self, inertia: np.ndarray, label: str) -> None:
        """Hook: raise ConnectionSpecError if the connection cannot serve this body."""
        return None

    # ------------------------------------------------------------------------------------
    def coriolis(self, inertia, v) -> np.ndarray:
        r"""Body Coriolis matrix :math:`\mathbf C(\mathbf I, \mathbf v)`.

        Parameters
        ----------
        inertia : array_like, shape (..., 6, 6)
            Spatial inertia about the body-frame origin.
        v : array_like, shape (..., 6)
            Body twist :math:`[\boldsymbol\omega; \boldsymbol v]`.

        Returns
        -------
        ndarray, shape (..., 6, 6)

        Raises
        ------
        DimensionError, NonFiniteError
            If an input has the wrong trailing shape or non-finite entries.
        ConnectionSpecError
            If a user-supplied connection returns the wrong shape.

        References
        ----------
        seed 000 eq. (10), (18).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.connections.body import body_connection
        >>> from geomech.spatial import crf, spatial_inertia
        >>> I = spatial_inertia(2.0, [0.1, 0.0, 0.2], np.diag([0.1, 0.2, 0.3]))
        >>> v = np.array([0.3, -0.2, 0.5, 1.0, 0.0, -1.0])
        >>> C = body_connection("levi-civita").coriolis(I, v)
        >>> bool(np.allclose(C @ v, crf(v) @ I @ v)), bool(np.allclose(C, -C.T))
        (True, True)
        """
        inertia = as_array(inertia, "inertia", (6, 6))
        v = as_array(v, "v", (6,))
        self._check(inertia, "`inertia`")
        return self._coriolis(inertia, v)

    def body_factor(self, inertia, v) -> np.ndarray:
        r"""The factor :math:`\mathbf B = \mathbf C - \mathbf I(\mathbf v\times)` of the recursive
        algorithms.

        .. math:: \mathbf B(\mathbf I, \mathbf v)\,\mathbf v = (\mathbf v\times^*)\mathbf I
                  \mathbf v \quad\text{iff the connection gives correct dynamics}

        Parameters
        ----------
        inertia : array_like, shape (..., 6, 6)
        v : array_like, shape (..., 6)

        Returns
        -------
        ndarray, shape (..., 6, 6)

        Raises
        ------
        DimensionError, NonFiniteError
            If an input is malformed.

        References
        ----------
        seed 000 eq. (21), Alg. 1 l.6; seed 001 eqs. (9), (10).

        Examples
        --------
        The right block column of the Levi-Civita :math:`\mathbf B` vanishes (eq. 21):

        >>> import numpy as np
        >>> from geomech.multibody.connections.body import body_connection
        >>> from geomech.spatial import spatial_inertia
        >>> I = spatial_inertia(2.0, [0.1, 0.0, 0.2], np.diag([0.1, 0.2, 0.3]))
        >>> B = body_connection("levi-civita").body_factor(I, np.arange(6.0))
        >>> float(np.abs(B[:, 3:]).max())
        0.0
        """
        inertia = as_array(inertia, "inertia", (6, 6))
        v = as_array(v, "v", (6,))
        self._check(inertia, "`inertia`")
        return self._B(inertia, v)

    def coefficients(self, inertia) -> np.ndarray:
        r"""Connection coefficients of the first kind in the body-twist frame.

        .. math:: \Gamma_{ijk} = \langle\!\langle E_i, \nabla_{E_j} E_k\rangle\!\rangle
                  = \mathbf C(\mathbf I, E_j)_{ik}

        Parameters
        ----------
        inertia : array_like, shape (..., 6, 6)

        Returns
        -------
        ndarray, shape (..., 6, 6, 6)
            ``Gamma[..., i, j, k]`` (:ref:`conventions-connections`).

        Raises
        ------
        DimensionError, NonFiniteError
            If ``inertia`` is malformed.

        References
        ----------
        seed 000 §VI-B (:math:`\Gamma_{ijk} = [C(q, e_j)]_{ik}`).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.connections.body import body_connection
        >>> G = body_connection("cartan-plus").coefficients(np.eye(6))
        >>> float(G[2, 0, 1])  # <E_z, [E_wx, E_wy]> = 1
        1.0
        """
        inertia = as_array(inertia, "inertia", (6, 6))
        self._check(inertia, "`inertia`")
        C = self._coriolis(inertia[..., None, :, :], np.eye(6))  # C[..., j, i, k]
        return np.moveaxis(C, -3, -2)

    def affine_connection(self, inertia):
        r"""The connection as an :class:`~geomech.geometry.AffineConnection` on a free body.

        The system is :func:`geomech.geometry.examples.rigid_body_se3` (left-invariant frame,
        metric :math:`\mathbf I`) and the coefficients the constant :meth:`coefficients`, so
        the geometry layer's torsion, contorsion, predicates and geodesics apply.

        Parameters
        ----------
        inertia : array_like, shape (6, 6)
            Symmetric positive-definite spatial inertia.

        Returns
        -------
        AffineConnection

        Raises
        ------
        DimensionError, InertiaError
            If ``inertia`` is not a 6×6 SPD matrix.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.connections.body import body_connection
        >>> conn = body_connection("cartan-zero").affine_connection(np.diag([1.0, 2, 3, 4, 4, 4]))
        >>> bool(conn.is_torsion_free(np.eye(4)))
        True
        """
        from geomech.geometry import AffineConnection
        from geomech.geometry.examples import rigid_body_se3

        system = rigid_body_se3(inertia)
        return AffineConnection(system, self.coefficients(system.mass_matrix(np.eye(4))))

    def properties(self, inertia, tol: float = 1e-9) -> BodyConnectionProperties:
        r"""Metric compatibility, Riemannian geodesics and torsion freedom for this inertia.

        Measured with the predicates of :class:`~geomech.geometry.AffineConnection` on
        :meth:`affine_connection` at the identity (the coefficients are left-invariant, so
        the verdict holds on all of SE(3)).

        Parameters
        ----------
        inertia : array_like, shape (6, 6)
            Symmetric positive-definite spatial inertia.
        tol : float
            Relative tolerance of the predicates.

        Returns
        -------
        BodyConnectionProperties

        Raises
        ------
        DimensionError, InertiaError
            If ``inertia`` is not a 6×6 SPD matrix.

        References
        ----------
        seed 000 Props. III.1, III.2, IV.1, IV.2.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.connections.body import body_connection
        >>> p = body_connection("boltzmann-hamel").properties(np.diag([1.0, 2, 3, 4, 4, 4]))
        >>> bool(p.metric_compatible), bool(p.riemannian_geodesics), bool(p.torsion_free)
        (True, True, False)
        """
        conn = self.affine_connection(inertia)
        g = np.eye(4)
        return BodyConnectionProperties(
            conn.is_metric_compatible(g, tol),
            conn.has_riemannian_geodesics(g, tol),
            conn.is_torsion_free(g, tol),
        )

    def __repr__(self):
        return f"<{type(self).__name__} {self.name!r}>"


# ----------------------------------------------------------------------------------------
# named connections
# ----------------------------------------------------------------------------------------
class LeviCivitaBody(BodyConnection):
    r"""The Levi-Civita connection of the body's inertia metric (Christoffel consistent).

    .. math:: \mathbf C = \tfrac12\big[\mathbf I(\mathbf v\times) + (\mathbf v\times^*)
              \mathbf I + (\mathbf I\mathbf v)\bar\times^*\big]
              = \begin{bmatrix}(\boldsymbol\Sigma\boldsymbol\omega)\times &
              (\boldsymbol h\times)(\boldsymbol\omega\times)\\
              -(\boldsymbol\omega\times)(\boldsymbol h\times) & m(\boldsymbol\omega\times)
              \end{bmatrix}

    Metric compatible (:math:`\mathbf C + \mathbf C^\top = 0`), correct
    (:math:`\mathbf C\mathbf v = (\mathbf v\times^*)\mathbf I\mathbf v`) and torsion free;
    independent of the linear velocity.

    References
    ----------
    seed 000 eqs. (18), (19), (21) (Bullo–Murray 1999 eq. 8); seed 001 eq. (10)
    (Niemeyer–Slotine :math:`\mathbf B`).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.connections.body import LeviCivitaBody
    >>> from geomech.spatial import spatial_inertia
    >>> I = spatial_inertia(2.0, [0.1, 0.0, 0.2], np.diag([0.1, 0.2, 0.3]))
    >>> C1 = LeviCivitaBody().coriolis(I, [0.3, -0.2, 0.5, 1.0, 0.0, -1.0])
    >>> C2 = LeviCivitaBody().coriolis(I, [0.3, -0.2, 0.5, 0.0, 0.0, 0.0])
    >>> bool(np.allclose(C1, C2))  # eq. (19): no linear-velocity dependence
    True
    """

    name = "levi-civita"

    def _coriolis(self, inertia, v):
        # seed 000 eq. (18)
        h = matvec(inertia, v)
        return 0.5 * (np.matmul(inertia, crm(v)) + np.matmul(crf(v), inertia) + crbar(h))

    def _B(self, inertia, v):
        # seed 000 eq. (21): B = 1/2 [(v x*) I + (I v) xbar* - I (v x)]
        h = matvec(inertia, v)
        return 0.5 * (np.matmul(crf(v), inertia) + crbar(h) - np.matmul(inertia, crm(v)))


_CARTAN = {"cartan-minus": 0.0, "cartan-zero": 0.5, "cartan-plus": 1.0}


class CartanSchoutenBody(BodyConnection):
    r"""A Cartan–Schouten connection (−), (0) or (+) on the body's SE(3).

    .. math:: \nabla_{E_j} E_k = \lambda\,[E_j, E_k], \qquad
              \mathbf C = \lambda\,\mathbf I(\mathbf v\times), \qquad
              \lambda = 0, \tfrac12, 1

    Geodesics are the one-parameter subgroups (constant body twist), so none gives the
    rigid-body dynamics; (−) is metric compatible with torsion :math:`-[X, Y]`, (0) is
    torsion free but not metric compatible (SE(3) has no bi-invariant metric), (+) is
    neither.

    Parameters
    ----------
    kind : str
        ``"cartan-minus"``, ``"cartan-zero"`` or ``"cartan-plus"``, or an alias of one
        (:mod:`geomech.geometry.names`: ``"-"``, ``"0"``, ``"+"``, ...).

    Raises
    ------
    ConnectionSpecError
        If ``kind`` does not name a Cartan–Schouten connection.

    References
    ----------
    Cartan and Schouten (1926); :class:`geomech.geometry.CartanSchoutenConnection`.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.connections.body import CartanSchoutenBody
    >>> from geomech.spatial import crm
    >>> v = np.arange(6.0)
    >>> bool(np.allclose(CartanSchoutenBody("cartan-plus").coriolis(np.eye(6), v), crm(v)))
    True
    """

    def __init__(self, kind: str):
        name = canonical_connection_name(kind)
        if name not in _CARTAN:
            raise ConnectionSpecError(
                "Expected `kind` to name a Cartan–Schouten connection, one of "
                f"{list(_CARTAN)} (or an alias), got {kind!r}."
            )
        self.kind = self.name = name
        self._lambda = _CARTAN[name]

    def _coriolis(self, inertia, v):
        # Gamma_ijk = lambda <E_i, [E_j, E_k]> = lambda (I (e_j x) e_k)_i  =>  C = lambda I (v x)
        return self._lambda * np.matmul(inertia, crm(v))


class VelocityCrossBody(BodyConnection):
    r"""Seed 001 eq. (9): :math:`\mathbf B = (\mathbf v\times^*)\mathbf I`, i.e.

    .. math:: \mathbf C = (\mathbf v\times^*)\mathbf I + \mathbf I(\mathbf v\times)

    Metric compatible and correct (admissible, seed 001 Def. 4), not torsion free: the
    "obvious" factorization (Pinocchio before 2.6.8), admissible but not Christoffel
    consistent.

    References
    ----------
    seed 001 eq. (9), §5 item 17; spatial_v2_extended ``factorFunctions`` option 1.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.connections.body import VelocityCrossBody
    >>> from geomech.spatial import crf
    >>> I, v = np.diag([1.0, 2, 3, 4, 4, 4]), np.arange(6.0)
    >>> bool(np.allclose(VelocityCrossBody().body_factor(I, v), crf(v) @ I))
    True
    """

    name = "velocity-cross"

    def _coriolis(self, inertia, v):
        return np.matmul(crf(v), inertia) + np.matmul(inertia, crm(v))

    def _B(self, inertia, v):
        return np.matmul(crf(v), inertia)  # seed 001 eq. (9)


class BoltzmannHamelBody(BodyConnection):
    r"""Seed 003's Boltzmann–Hamel connection on SE(3) (spatial_v2's option 2): :math:`\mathbf B =
    (\mathbf I\mathbf v)\bar\times^* - \mathbf I(\mathbf v\times)`, i.e.

    .. math:: \mathbf C = (\mathbf I\mathbf v)\bar\times^*, \qquad
              \mathbf C\mathbf u = (\mathbf u\times^*)(\mathbf I\mathbf v)

    the momentum :math:`\mathbf I\mathbf v` crossed by the argument (alias
    ``"momentum-cross"``): on SE(3) :math:`(\mathbf I\mathbf v)\bar\times^* =
    \widetilde{\operatorname{ad}}_{\mathbf I\mathbf v}`, the rigid body's
    :meth:`~geomech.rigidbody.RigidBody.christoffel_symbols`. Skew (metric compatible) and
    correct, not torsion free; depends on the linear velocity. The Levi-Civita matrix is the
    average of this one and ``velocity-cross``.

    References
    ----------
    seed 003 Prop. 3.1 (eq. 57), Prop. 5.1 (eq. 107); spatial_v2_extended
    ``factorFunctions(I, v, 2)``; seed 000 eq. (18).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.connections.body import BoltzmannHamelBody
    >>> C = BoltzmannHamelBody().coriolis(np.diag([1.0, 2, 3, 4, 4, 4]), np.arange(6.0))
    >>> bool(np.allclose(C, -C.T))
    True
    """

    name = "boltzmann-hamel"

    def _coriolis(self, inertia, v):
        return crbar(matvec(inertia, v))


# ----------------------------------------------------------------------------------------
# user-supplied connections
# ----------------------------------------------------------------------------------------
class CallableBody(BodyConnection):
    r"""A body connection from a callable ``fun(v, I) -> C`` (the 6×6 body Coriolis matrix).

    ``fun`` must be linear in ``v`` (a connection) and accept leading batch dimensions of
    ``v`` (..., 6) and ``I`` (..., 6, 6); its output shape is checked at every use.

    Parameters
    ----------
    fun : callable
    name : str, optional

    Raises
    ------
    ConnectionSpecError
        If ``fun`` is not callable (at construction) or returns an array of the wrong shape
        (at use; the message names the body).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.connections.body import CallableBody
    >>> from geomech.spatial import crf
    >>> conn = CallableBody(lambda v, I: crf(v) @ I + I @ np.swapaxes(-crf(v), -1, -2))
    >>> conn.coriolis(np.eye(6), np.arange(6.0)).shape
    (6, 6)
    >>> CallableBody(lambda v, I: np.zeros(3)).coriolis(np.eye(6), np.ones(6))
    Traceback (most recent call last):
    ...
    geomech.errors.ConnectionSpecError: Expected the body connection <lambda> to return shape (6,
    6), got (3,).
    """

    def __init__(self, fun, name: str | None = None):
        if not callable(fun):
            raise ConnectionSpecError(
                f"Expected a callable `(v, I) -> C`, got {type(fun).__name__}."
            )
        self.fun = fun
        self.name = name if name is not None else getattr(fun, "__name__", "callable")

    def _coriolis(self, inertia, v):
        shape = np.broadcast_shapes(inertia.shape[:-2], v.shape[:-1]) + (6, 6)
        C = np.asarray(self.fun(v, inertia), dtype=float)
        if C.shape != shape:
            if C.shape[-2:] == (6, 6) and C.ndim <= len(shape):
                return np.broadcast_to(C, shape)
            raise ConnectionSpecError(
                f"Expected the body connection {self.name} to return shape {shape}, got {C.shape}."
            )
        return C


class AffineConnectionBody(BodyConnection):
    r"""A body connection from an :class:`~geomech.geometry.AffineConnection` on a rigid body.

    The connection's system must be a free body on SE(3) with its left-invariant frame
    (dimension 6, points 4×4) and metric equal to the inertia of the body it is used for;
    its coefficients at the identity give :math:`\mathbf C(\mathbf v)_{ik} = \Gamma_{ijk}
    v^j` (they are assumed left-invariant).

    Parameters
    ----------
    connection : AffineConnection

    Raises
    ------
    ConnectionSpecError
        If ``connection`` is not an AffineConnection of dimension 6 on 4×4 configurations (at
        construction), or its metric differs from the body's inertia (at use; the message
        names the body).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry import LeviCivitaConnection
    >>> from geomech.geometry.examples import rigid_body_se3
    >>> from geomech.multibody.connections.body import AffineConnectionBody, LeviCivitaBody
    >>> I = np.diag([1.0, 2, 3, 4, 4, 4])
    >>> conn = AffineConnectionBody(LeviCivitaConnection(rigid_body_se3(I)))
    >>> v = np.arange(6.0)
    >>> bool(np.allclose(conn.coriolis(I, v), LeviCivitaBody().coriolis(I, v)))
    True
    """

    def __init__(self, connection):
        from geomech.geometry import AffineConnection

        if not isinstance(connection, AffineConnection):
            raise ConnectionSpecError(
                f"Expected an AffineConnection, got {type(connection).__name__}."
            )
        shape = tuple(getattr(connection.system.frame, "point_shape", ()))
        if connection.dim != 6 or shape != (4, 4):
            raise ConnectionSpecError(
                "Expected a body connection on SE(3) (dimension 6, 4x4 points), got dimension "
                f"{connection.dim} on points of shape {shape}."
            )
        self.connection = connection
        self.name = f"{type(connection).__name__}"
        g = np.eye(4)
        self._Gamma = np.array(connection.christoffel_first_kind(g))
        self._H = np.array(connection.system.mass_matrix(g))

    def _check(self, inertia, label):
        scale = max(1.0, float(np.max(np.abs(self._H))))
        if np.max(np.abs(inertia - self._H)) > 1e-9 * scale:
            raise ConnectionSpecError(
                f"Expected the metric of the {self.name} at the identity to equal the spatial "
                f"inertia of {label}, got a different matrix (max difference "
                f"{float(np.max(np.abs(inertia - self._H))):.3g})."
            )

    def _coriolis(self, inertia, v):
        shape = np.broadcast_shapes(inertia.shape[:-2], v.shape[:-1]) + (6, 6)
        return np.broadcast_to(np.einsum("ijk,...j->...ik", self._Gamma, v), shape)


# ----------------------------------------------------------------------------------------
# the registry
# ----------------------------------------------------------------------------------------
_REGISTRY: dict[str, BodyConnection] = {
    "levi-civita": LeviCivitaBody(),
    "cartan-minus": CartanSchoutenBody("cartan-minus"),
    "cartan-zero": CartanSchoutenBody("cartan-zero"),
    "cartan-plus": CartanSchoutenBody("cartan-plus"),
    "velocity-cross": VelocityCrossBody(),
    "boltzmann-hamel": BoltzmannHamelBody(),
}


#: The built-in named body connections (the registry may hold user additions as well).
NAMED_BODY_CONNECTIONS = tuple(_REGISTRY)


def body_connection_names() -> list[str]:
    """Canonical names of the registered body connections (:mod:`geomech.geometry.names`).

    Returns
    -------
    list of str

    Examples
    --------
    >>> from geomech.multibody.connections.body import body_connection_names
    >>> body_connection_names()[:4]
    ['levi-civita', 'cartan-minus', 'cartan-zero', 'cartan-plus']
    """
    return list(_REGISTRY)


def register_body_connection(name: str, connection) -> None:
    """Register a body connection under a name (the one registry of string aliases).

    Parameters
    ----------
    name : str
        New name (registered names cannot be replaced).
    connection : BodyConnection, AffineConnection or callable
        Anything :func:`body_connection` accepts except a string.

    Raises
    ------
    ConnectionSpecError
        If ``name`` is not a new string (in the one registry of connection names,
        :mod:`geomech.geometry.names`) or ``connection`` is invalid.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody.connections.body import body_connection, register_body_connection
    >>> register_body_connection("doc-zero", lambda v, I: np.zeros(np.shape(v)[:-1] + (6, 6)))
    >>> body_connection("doc-zero").name
    'doc-zero'
    """
    if not isinstance(name, str) or not name:
        raise ConnectionSpecError(f"Expected `name` to be a non-empty string, got {name!r}.")
    if isinstance(connection, str):
        raise ConnectionSpecError(
            f"Expected a connection object or callable, got the string {connection!r}."
        )
    conn = body_connection(connection)
    register_connection_name(name)  # raises for a registered name or alias
    name = canonical_connection_name(name)
    if isinstance(conn, CallableBody):
        conn.name = name
    _REGISTRY[name] = conn


def body_connection(spec) -> BodyConnection:
    """Resolve a body-connection specification to a :class:`BodyConnection`.

    Parameters
    ----------
    spec : str, BodyConnection, AffineConnection or callable
        A registered name or alias (:func:`body_connection_names`, resolved by
        :func:`geomech.geometry.names.canonical_connection_name`), a strategy object, a connection
        on a rigid body's SE(3) (:class:`AffineConnectionBody`), or ``(v, I) -> C``
        (:class:`CallableBody`).

    Returns
    -------
    BodyConnection

    Raises
    ------
    ConnectionSpecError
        For an unknown name (the message lists the canonical names) or an object of another
        type.

    Examples
    --------
    >>> from geomech.multibody.connections.body import body_connection
    >>> body_connection("velocity-cross")
    <VelocityCrossBody 'velocity-cross'>
    >>> body_connection("momentum-cross")  # an alias
    <BoltzmannHamelBody 'boltzmann-hamel'>
    >>> body_connection("christoffel")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geomech.errors.ConnectionSpecError: Unknown connection name 'christoffel'; expected one of
    ['levi-civita', 'cartan-minus', ...] (or an alias of one).
    """
    from geomech.geometry import AffineConnection

    if isinstance(spec, BodyConnection):
        return spec
    if isinstance(spec, str):
        name = canonical_connection_name(spec)
        try:
            return _REGISTRY[name]
        except KeyError:
            raise ConnectionSpecError(
                f"Expected a body connection, one of {list(_REGISTRY)}, got {spec!r}, which "
                "names no connection of a body."
            ) from None
    if isinstance(spec, AffineConnection):
        return AffineConnectionBody(spec)
    if callable(spec):
        return CallableBody(spec)
    raise ConnectionSpecError(
        "Expected a body connection name, BodyConnection, AffineConnection or callable "
        f"(v, I) -> C, got {type(spec).__name__}."
    )
