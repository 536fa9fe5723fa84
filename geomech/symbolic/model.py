r"""Symbolic equations of motion of a small kinematic tree, for teaching and as an oracle.

:class:`SymbolicModel` reads the same model graph as the numeric kernels (joint types,
placements, body inertias of a :class:`~geomech.multibody.MultibodyModel`) and derives
the quantities of the equations of motion

.. math:: \mathbf H(\mathbf q)\ddot{\mathbf q} + \mathbf C(\mathbf q, \dot{\mathbf q})
          \dot{\mathbf q} + \mathbf g(\mathbf q) = \boldsymbol\tau

by the textbook route, independently of the recursive algorithms:

1. joint poses and Plücker transforms in sympy (``geomech.symbolic._spatial``), forward
   kinematics body by body;
2. body Jacobians :math:`\mathbf J_i` (body twists :math:`\mathbf v_i = \mathbf J_i
   \dot{\mathbf q}`) by :math:`\mathbf J_i = {}^i\mathbf X_{p(i)}\mathbf J_{p(i)} +
   \boldsymbol\Phi_i\mathbf e_i^\top` (seed 001 eq. 5);
3. :math:`\mathbf H = \sum_i \mathbf J_i^\top\mathbf I_i\mathbf J_i` (seed 001 eq. 29);
4. Christoffel symbols of the first kind by partial derivatives of :math:`\mathbf H`
   (seed 001 eq. 4) for the Levi-Civita connection, and for any other choice of body
   connections by the transformation law :math:`\bar C = A^\top C A + A^\top H\dot A`
   (seed 000 eq. 17), body by body;
5. :math:`\mathbf g = \partial V/\partial\mathbf q` from the potential energy of the bodies'
   centres of mass.

Every speed is a coordinate rate (1-DoF joints), so :math:`\mathbf v = \dot{\mathbf q}`.
The model's numbers (inertias, placements, axes, pitches, gravity) are read as exact
fractions (the simplest within 1e-15, else the shortest decimal of the float), so that
formulas print as ``2*cos(q2) + 3``. Results are trigonometric polynomials, computed and
returned in their unique Fourier form (sums of :math:`\cos(\mathbf k\cdot\mathbf q)` and
:math:`\sin(\mathbf k\cdot\mathbf q)`, see ``geomech.symbolic._trig``): equal quantities
give identical expressions. The size of the expressions grows quickly with the number of
joints (seed 001 Table 2); models with more than :data:`MAX_DOF` speeds are refused.

References
----------
seed 000 eqs. (10), (17), (18), Props. IV.1, V.1–V.3; seed 001 eqs. (3), (4), (5), (29),
Table 2; Featherstone 2008, §2, Table 4.1.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from geomech.errors import ConnectionSpecError, ModelError
from geomech.multibody.connections.body import (
    AffineConnectionBody,
    BoltzmannHamelBody,
    CallableBody,
    CartanSchoutenBody,
    LeviCivitaBody,
    VelocityCrossBody,
    body_connection,
)
from geomech.multibody.model.joints import Fixed, Helical, Prismatic, Revolute
from geomech.multibody.model.tree import MultibodyModel
from geomech.symbolic._spatial import NAMED_BODY_CORIOLIS, joint_pose, plucker_from_pose, skew
from geomech.symbolic._sympy import sympy as sp
from geomech.symbolic._trig import TrigRing

__all__ = ["MAX_DOF", "SymbolicModel"]

#: Largest number of speeds :class:`SymbolicModel` accepts.
MAX_DOF = 6

#: The built-in body connections, whose formulas ``geomech.symbolic._spatial`` writes out.
_NAMED = (LeviCivitaBody, CartanSchoutenBody, VelocityCrossBody, BoltzmannHamelBody)

_KINDS = {Revolute: "revolute", Prismatic: "prismatic", Helical: "helical", Fixed: "fixed"}


def _exact(x: float):
    """A float as a sympy fraction: the simplest within 1e-15 relative, else the shortest
    decimal.
    """
    x = float(x)
    if x == int(x):
        return sp.Integer(int(x))
    r = sp.Rational(x).limit_denominator(10**6)
    if abs(float(r) - x) <= 1e-15 * abs(x):
        return r
    return sp.Rational(repr(x))  # the shortest decimal that reads back as x


def _matrix(a) -> sp.Matrix:
    """A float array of shape (r, c) as a sympy matrix of fractions."""
    a = np.asarray(a, dtype=float)
    return sp.Matrix(a.shape[0], a.shape[1], [_exact(x) for x in a.ravel()])


def _inertia(I) -> sp.Matrix:
    r"""A spatial inertia as an exact sympy matrix of its 10 parameters (symmetric by construction).

    .. math:: \mathbf I = \begin{bmatrix}\bar{\mathbf I}_O & \mathbf S(\mathbf h)\\
              \mathbf S(\mathbf h)^\top & m\mathbf 1\end{bmatrix}

    (the float matrix may be symmetric only up to rounding; its fractions would not be).
    """
    I = np.asarray(I, dtype=float)  # noqa: E741
    Sh = 0.5 * (I[:3, 3:] - I[3:, :3])  # S(h), averaged with -S(h)ᵀ
    h = 0.5 * np.array([Sh[2, 1] - Sh[1, 2], Sh[0, 2] - Sh[2, 0], Sh[1, 0] - Sh[0, 1]])
    S = skew([_exact(x) for x in h])
    Ibar = _matrix(0.5 * (I[:3, :3] + I[:3, :3].T))  # exactly symmetric in floats already
    return sp.Matrix.vstack(
        sp.Matrix.hstack(Ibar, S), sp.Matrix.hstack(S.T, _exact(I[5, 5]) * sp.eye(3))
    )


def _kind(joint) -> str:
    return next(k for cls, k in _KINDS.items() if isinstance(joint, cls))


class SymbolicModel:
    r"""Symbolic :math:`\mathbf H`, :math:`\mathbf C`, :math:`\Gamma`, :math:`\mathbf g` and
    :math:`T` of a small tree.

    .. math:: \mathbf H = \sum_i \mathbf J_i^\top\mathbf I_i\mathbf J_i,\qquad
              \Gamma_{ijk} = \tfrac12\Big(\frac{\partial H_{ij}}{\partial q_k}
              + \frac{\partial H_{ik}}{\partial q_j} - \frac{\partial H_{jk}}{\partial q_i}\Big),
              \qquad C_{ik} = \Gamma_{ijk}\,v^j

    Parameters
    ----------
    model : MultibodyModel
        A fixed-base tree with at most :data:`MAX_DOF` speeds whose joints are
        :class:`~geomech.multibody.model.joints.Revolute`,
        :class:`~geomech.multibody.model.joints.Prismatic`,
        :class:`~geomech.multibody.model.joints.Helical` or
        :class:`~geomech.multibody.model.joints.Fixed`.

    Attributes
    ----------
    model : MultibodyModel
    n : int
        Number of speeds (= coordinates).
    q, v : sympy.Matrix, shape (n, 1)
        Real symbols ``q1, ..., qn`` (the joint coordinates, in the model's ``q`` order) and
        ``v1, ..., vn`` (their rates, :math:`\mathbf v = \dot{\mathbf q}`).

    Raises
    ------
    ModelError
        If ``model`` is not a :class:`~geomech.multibody.MultibodyModel` tree (closed models
        are refused), has more than :data:`MAX_DOF` speeds, or has a joint other than
        revolute, prismatic, helical or fixed (a floating base or a spherical joint has no
        coordinate speeds; the message names the joint).

    References
    ----------
    seed 001 eqs. (4), (29); seed 000 eqs. (10), (17).

    Examples
    --------
    The double pendulum of unit point masses on unit links:

    >>> from geomech.multibody import robots
    >>> from geomech.symbolic import SymbolicModel
    >>> sm = SymbolicModel(robots.double_pendulum())
    >>> sm.mass_matrix()
    Matrix([
    [2*cos(q2) + 3, cos(q2) + 1],
    [  cos(q2) + 1,           1]])
    >>> sm.coriolis_matrix()
    Matrix([
    [-v2*sin(q2), -(v1 + v2)*sin(q2)],
    [ v1*sin(q2),                  0]])
    >>> sm.latex(sm.mass_matrix()[0, 1])
    '\\cos{\\left(q_{2} \\right)} + 1'
    """

    def __init__(self, model):
        if not isinstance(model, MultibodyModel) or getattr(model, "is_closed", False):
            raise ModelError(
                f"Expected a MultibodyModel tree (no kinematic loops), got {type(model).__name__}."
            )
        for name, joint in zip(model.joint_names, model.joints, strict=True):
            if not isinstance(joint, tuple(_KINDS)):
                raise ModelError(
                    f"Joint {name!r}: expected a revolute, prismatic, helical or fixed joint "
                    f"(speeds that are coordinate rates; no floating base), got "
                    f"{type(joint).__name__}."
                )
        if model.nv > MAX_DOF:
            raise ModelError(
                f"Expected at most {MAX_DOF} speeds for a symbolic derivation, got nv = "
                f"{model.nv}: symbolic expressions grow too fast beyond (seed 001 Table 2); use "
                "the numeric kernels (geomech.crba, geomech.coriolis_matrix, ...)."
            )
        self.model = model
        self.n = n = model.nv
        self.q = sp.Matrix(n, 1, sp.symbols(f"q1:{n + 1}", real=True) if n else [])
        self.v = sp.Matrix(n, 1, sp.symbols(f"v1:{n + 1}", real=True) if n else [])
        self._P = TrigRing(self.q, self.v)
        self._inertias = [_inertia(I) for I in model.inertias]
        self._cache: dict = {}
        self._kinematics()

    # ------------------------------------------------------------------------------------
    # the derivation, in the ring of trigonometric polynomials (geomech.symbolic._trig)
    # ------------------------------------------------------------------------------------
    def _lift(self, M) -> np.ndarray:
        """A sympy matrix (polynomial in cos q, sin q, q) as an object array of the ring."""
        M = sp.Matrix(M)
        return np.array([[self._P.from_expr(e) for e in row] for row in M.tolist()], dtype=object)

    def _reduce(self, A: np.ndarray) -> np.ndarray:
        return np.vectorize(self._P.reduce, otypes=[object])(A)

    def _sympy(self, A) -> sp.Matrix:
        """An object array of ring elements as a sympy matrix (Fourier form)."""
        A = np.asarray(A, dtype=object)
        return sp.Matrix(A.shape[0], A.shape[1], [self._P.to_expr(p) for p in A.ravel()])

    def _kinematics(self) -> None:
        """World poses (R_i, p_i) and body Jacobians J_i of every body, root to leaves."""
        m, P = self.model, self._P
        zero = np.full((6, self.n), P.R.zero, dtype=object)
        self._R, self._p, self._J = [], [], []
        for i, joint in enumerate(m.joints):
            kind, sl = _kind(joint), m.v_slices[i]
            qi = self.q[sl.start] if sl.stop > sl.start else sp.Integer(0)
            axis = [_exact(a) for a in getattr(joint, "axis", (0.0, 0.0, 1.0))]
            pitch = _exact(getattr(joint, "pitch", 0.0))
            R_J, p_J = joint_pose(kind, axis, qi, pitch)
            T = m.placements[i]
            R_T, p_T = _matrix(T[:3, :3]), _matrix(T[:3, 3:])
            R, p = R_T * R_J, p_T + R_T * p_J  # pose of body i in its parent's frame
            X_up = self._lift(plucker_from_pose(R, p))  # ^i X_p(i)
            # motion subspace Φ_i in body coordinates (Featherstone Table 4.1)
            a, o = list(axis), [0, 0, 0]
            Phi = {
                "revolute": a + o,
                "prismatic": o + a,
                "helical": a + [pitch * x for x in a],
                "fixed": o + o,
            }[kind]
            R, p = self._lift(R), self._lift(p)
            par = m.parent[i]
            if par < 0:
                R_w, p_w, J = R, p, zero.copy()
            else:
                R_p, p_p = self._R[par], self._p[par]
                R_w, p_w = self._reduce(R_p @ R), self._reduce(p_p + R_p @ p)
                J = self._reduce(X_up @ self._J[par])
            if sl.stop > sl.start:
                for r in range(6):  # seed 001 eq. 5: v_i = X v_p(i) + Φ_i q̇_i
                    J[r, sl.start] = J[r, sl.start] + P.const(Phi[r])
            self._R.append(R_w)
            self._p.append(p_w)
            self._J.append(J)

    def _result(self, key, build):
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def _H(self) -> np.ndarray:
        """H in the ring (seed 001 eq. 29)."""

        def build():
            H = np.full((self.n, self.n), self._P.R.zero, dtype=object)
            for J, I in zip(self._J, self._inertias, strict=True):
                H = H + J.T @ self._lift(I) @ J
            return self._reduce(H)

        return self._result("_H", build)

    def _dq(self, A, k: int) -> np.ndarray:
        return np.vectorize(lambda p: self._P.diff(p, k), otypes=[object])(A)

    # ------------------------------------------------------------------------------------
    # public results
    # ------------------------------------------------------------------------------------
    def body_poses(self) -> list[tuple[sp.Matrix, sp.Matrix]]:
        r"""World poses :math:`({}^0\mathbf R_i, {}^0\mathbf p_i)` of the bodies (model order).

        .. math:: {}^0\mathbf T_i = {}^0\mathbf T_{p(i)}\,\mathbf T_{\text{placement}}(i)\,
                  \mathbf T_J(q_i)

        Returns
        -------
        list of (sympy.Matrix (3, 3), sympy.Matrix (3, 1))

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> from geomech.symbolic import SymbolicModel
        >>> R, p = SymbolicModel(robots.double_pendulum()).body_poses()[1]
        >>> p.T
        Matrix([[-sin(q1), 0, -cos(q1)]])
        """
        return self._result(
            "poses",
            lambda: [
                (self._sympy(R), self._sympy(p)) for R, p in zip(self._R, self._p, strict=True)
            ],
        )

    def body_jacobians(self) -> list[sp.Matrix]:
        r"""Body Jacobians :math:`\mathbf J_i`, :math:`\mathbf v_i = \mathbf J_i\mathbf v` (body
        coordinates).

        Returns
        -------
        list of sympy.Matrix, shape (6, n)

        References
        ----------
        seed 001 eq. (5), Remark 4.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> from geomech.symbolic import SymbolicModel
        >>> SymbolicModel(robots.double_pendulum()).body_jacobians()[1].T
        Matrix([
        [0, 1, 0, -cos(q2), 0, -sin(q2)],
        [0, 1, 0,        0, 0,        0]])
        """
        return self._result("J", lambda: [self._sympy(J) for J in self._J])

    def mass_matrix(self) -> sp.Matrix:
        r"""Mass matrix :math:`\mathbf H(\mathbf q) = \sum_i \mathbf J_i^\top\mathbf I_i\mathbf
        J_i`.

        Returns
        -------
        sympy.Matrix, shape (n, n)
            In :attr:`q`.

        References
        ----------
        seed 001 eq. (29).

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> from geomech.symbolic import SymbolicModel
        >>> SymbolicModel(robots.double_pendulum(m2=2.0)).mass_matrix()[1, 1]
        2
        """
        return self._result("H", lambda: self._sympy(self._H()))

    def mass_matrix_derivative(self) -> sp.Matrix:
        r"""Time derivative :math:`\dot{\mathbf H} = \sum_k \partial\mathbf H/\partial q_k\, v^k`.

        Returns
        -------
        sympy.Matrix, shape (n, n)
            In :attr:`q` and :attr:`v`.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> from geomech.symbolic import SymbolicModel
        >>> SymbolicModel(robots.double_pendulum()).mass_matrix_derivative()[0, 0]
        -2*v2*sin(q2)
        """

        def build():
            H, u = self._H(), self._P.u
            H_dot = sum((self._dq(H, k) * u[k] for k in range(self.n)), 0 * H)
            return self._sympy(H_dot)

        return self._result("H_dot", build)

    def christoffel_symbols(self, connection="levi-civita") -> sp.Array:
        r"""Christoffel symbols of the first kind of the connection induced by the body connections.

        .. math:: \Gamma_{ijk} = \langle\!\langle X_i, \nabla_{X_j}X_k\rangle\!\rangle,
                  \qquad C_{ik} = \Gamma_{ijk}\,v^j

        For ``"levi-civita"`` on every body, the coordinate formula (seed 001 eq. 4)

        .. math:: \Gamma_{ijk} = \tfrac12\Big(\frac{\partial H_{ij}}{\partial q_k}
                  + \frac{\partial H_{ik}}{\partial q_j} - \frac{\partial H_{jk}}{\partial
                  q_i}\Big);

        for any other choice, the transformation law (seed 000 eq. 17) body by body,

        .. math:: \Gamma_{ijk} = \sum_b \Big[\mathbf J_b^\top\Big(\mathbf I_b\,
                  \frac{\partial\mathbf J_b}{\partial q_j} + \mathbf C_b(\mathbf I_b,
                  \mathbf J_b\mathbf e_j)\,\mathbf J_b\Big)\Big]_{ik}

        with :math:`\mathbf C_b(\mathbf I, \mathbf v)` the body Coriolis matrix of body
        :math:`b`'s connection (:mod:`geomech.multibody.connections.body`).

        Parameters
        ----------
        connection : str, BodyConnection, AffineConnection, callable or mapping, optional
            As in :func:`geomech.coriolis_matrix`: a name or alias, a strategy object, a
            connection on a rigid body's SE(3), a callable ``(v, I) -> C``, or a mapping body
            name → one of these (other bodies: ``"levi-civita"``). A user connection is used
            if its formula evaluates on numpy object arrays of sympy expressions (``I`` of
            shape (6, 6), ``v`` of shape (6,)) and is linear in ``v``.

        Returns
        -------
        sympy.Array, shape (n, n, n)
            ``Gamma[i, j, k]`` = :math:`\Gamma_{ijk}` (:ref:`conventions-connections`: first
            index lowered, second the direction), in :attr:`q`.

        Raises
        ------
        ConnectionSpecError
            For an unknown name or body, or a user connection that does not evaluate on sympy
            objects, returns another shape, or is not linear in the twist.

        References
        ----------
        seed 001 eq. (4); seed 000 eqs. (10), (17), §VI-B.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> from geomech.symbolic import SymbolicModel
        >>> G = SymbolicModel(robots.double_pendulum()).christoffel_symbols()
        >>> G[0, 1, 1], G[1, 0, 0]
        (-sin(q2), sin(q2))
        """
        n = self.n
        G = self._gamma(connection).reshape(n, n * n)
        return sp.ImmutableDenseNDimArray(list(self._sympy(G)), (n, n, n))

    def _gamma(self, connection) -> np.ndarray:
        """Γ (n, n, n) in the ring, cached for string specifications."""
        key = ("_Gamma", connection) if isinstance(connection, str) else None
        if key is not None and key in self._cache:
            return self._cache[key]
        factors = self._body_factors(connection)
        if all(F is None for F in factors):
            Gamma = self._koszul()
        else:
            Gamma = self._transformation_law(factors)
        if key is not None:
            self._cache[key] = Gamma
        return Gamma

    def _koszul(self) -> np.ndarray:
        # seed 001 eq. (4): Γ_ijk = ½ (∂_k H_ij + ∂_j H_ik − ∂_i H_jk)
        H, n = self._H(), self.n
        dH = [self._dq(H, k) for k in range(n)]
        G = np.empty((n, n, n), dtype=object)
        for i in range(n):
            for j in range(n):
                for k in range(n):
                    G[i, j, k] = (dH[k][i, j] + dH[j][i, k] - dH[i][j, k]) * self._P.half
        return G

    def _transformation_law(self, factors) -> np.ndarray:
        # seed 000 eq. (17): C̄ = Σ_b J_bᵀ (C_b(v_b) J_b + I_b J̇_b), v_b = J_b v, J̇_b = Σ_j ∂_j
        # J_b v^j
        n, P = self.n, self._P
        G = np.full((n, n, n), P.R.zero, dtype=object)  # G[i, j, k]
        for J, I, F in zip(self._J, self._inertias, factors, strict=True):
            if F is None:
                F = self._named_factor("levi-civita", I)
            I_r = self._lift(I)
            F = [self._lift(Fa) for Fa in F]
            for j in range(n):
                Cb = sum((F[a] * J[a, j] for a in range(6)), np.full((6, 6), P.R.zero))
                G[:, j, :] += J.T @ (I_r @ self._dq(J, j) + Cb @ J)
        return self._reduce(G)

    # ------------------------------------------------------------------------------------
    # body connections as constant tensors F[a] = ∂C(I, w)/∂w_a
    # ------------------------------------------------------------------------------------
    @staticmethod
    def _named_factor(name: str, I) -> list:
        # C(I, v) is linear in v: C(I, v) = Σ_a v^a C(I, e_a)
        return [NAMED_BODY_CORIOLIS[name](I, sp.eye(6)[:, a]) for a in range(6)]

    def _body_factors(self, connection) -> list:
        """Per body: None for Levi-Civita, else the 6 matrices ∂C(I, w)/∂w_a."""
        m = self.model
        if isinstance(connection, Mapping):
            unknown = [k for k in connection if k not in m.body_names]
            if unknown:
                raise ConnectionSpecError(
                    f"Expected the keys of `connection` to be body names of the model, got "
                    f"{unknown[0]!r} (bodies: {m.body_names})."
                )
            specs = [connection.get(b, "levi-civita") for b in m.body_names]
        else:
            specs = [connection] * m.n_bodies
        factors = []
        for i, spec in enumerate(specs):
            conn = body_connection(spec)  # names, aliases, objects, callables
            if type(conn) is LeviCivitaBody:
                factors.append(None)
            elif type(conn) in _NAMED:
                factors.append(self._named_factor(conn.name, self._inertias[i]))
            else:
                factors.append(self._user_factor(conn, i))
        return factors

    def _user_factor(self, conn, i: int) -> list:
        """Evaluate a user body connection on sympy objects; refuse what does not evaluate."""
        m, body = self.model, self.model.body_names[i]
        if isinstance(conn, AffineConnectionBody):  # constant coefficients Γ_ajb = C(E_j)_ab
            G = np.asarray(conn.coefficients(m.inertias[i]))  # checks that its metric is I_i
            return [_matrix(G[:, a, :]) for a in range(6)]
        conn._check(m.inertias[i], f"body {body!r}")  # the strategy's own hook (may refuse)
        w = sp.symbols("w1:7", real=True)
        I_obj = np.array(self._inertias[i].tolist(), dtype=object)
        w_obj = np.array(w, dtype=object)
        try:
            if isinstance(conn, CallableBody):
                C = conn.fun(w_obj, I_obj)
            else:
                C = conn._coriolis(I_obj, w_obj)
            C = np.asarray(C, dtype=object)
            if C.shape != (6, 6):
                raise ConnectionSpecError(f"it returned shape {C.shape}, not (6, 6)")
            C = sp.Matrix(6, 6, [sp.sympify(c) for c in C.ravel()])
        except Exception as exc:  # any failure of the user's formula on sympy objects
            raise ConnectionSpecError(
                f"`connection` of body {body!r}: expected a body connection whose formula "
                f"C(I, v) evaluates on sympy objects (numpy object arrays), got {conn!r}, "
                f"which failed with {type(exc).__name__}: {exc}"
            ) from exc
        F = [sp.expand(C.diff(wa)) for wa in w]
        constant = all(not (Fa.free_symbols & set(w)) for Fa in F)
        if not constant or sp.expand(C.subs(dict.fromkeys(w, 0))) != sp.zeros(6):
            raise ConnectionSpecError(
                f"`connection` of body {body!r}: expected the body Coriolis matrix C(I, v) of "
                f"{conn!r} to be linear in the twist v (a connection), got a nonlinear formula."
            )
        if any(Fa.free_symbols for Fa in F):
            raise ConnectionSpecError(
                f"`connection` of body {body!r}: expected C(I, v) of {conn!r} to have numeric "
                f"coefficients, got the symbols {sorted(map(str, set().union(*F)))}."
            )
        return F

    # ------------------------------------------------------------------------------------
    def coriolis_matrix(self, connection="levi-civita") -> sp.Matrix:
        r"""Coriolis matrix :math:`C_{ik} = \Gamma_{ijk}\,v^j` of a body-connection choice.

        Parameters
        ----------
        connection : str, BodyConnection, AffineConnection, callable or mapping, optional
            As in :meth:`christoffel_symbols`.

        Returns
        -------
        sympy.Matrix, shape (n, n)
            In :attr:`q` and :attr:`v`.

        Raises
        ------
        ConnectionSpecError
            As :meth:`christoffel_symbols`.

        References
        ----------
        seed 000 eq. (10); seed 001 eq. (3).

        Examples
        --------
        ``cartan-minus`` (no body Coriolis term) keeps only :math:`A^\top H\dot A`:

        >>> from geomech.multibody import robots
        >>> from geomech.symbolic import SymbolicModel
        >>> SymbolicModel(robots.double_pendulum()).coriolis_matrix("cartan-minus")
        Matrix([
        [-v2*sin(q2), 0],
        [-v2*sin(q2), 0]])
        """
        G, u = self._gamma(connection), self._P.u
        C = sum((G[:, j, :] * u[j] for j in range(self.n)), np.zeros((self.n, self.n), object))
        return self._sympy(C)  # seed 000 eq. (10): C_ik = Γ_ijk v^j

    def potential_energy(self) -> sp.Expr:
        r"""Gravitational potential energy :math:`V(\mathbf q) = -\sum_i \mathbf g_0^\top(m_i\mathbf
        p_i + \mathbf R_i\mathbf h_i)`.

        :math:`({}^0\mathbf R_i, {}^0\mathbf p_i)` is the world pose of body :math:`i`,
        :math:`\mathbf h_i = m_i\mathbf c_i` its first mass moment in body coordinates (from
        the spatial inertia, :math:`\mathbf I_{[0:3, 3:6]} = \mathbf S(\mathbf h)`) and
        :math:`\mathbf g_0` the model's gravity.

        Returns
        -------
        sympy.Expr

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> from geomech.symbolic import SymbolicModel
        >>> SymbolicModel(robots.double_pendulum()).potential_energy()
        -981*cos(q1)/50 - 981*cos(q1 + q2)/100
        """
        return self._sympy([[self._V()]])[0, 0]

    def _V(self):
        def build():
            g0 = self._lift(_matrix(np.reshape(self.model.gravity, (3, 1))))
            V = self._P.R.zero
            for R, p, I in zip(self._R, self._p, self._inertias, strict=True):
                h = self._lift(sp.Matrix([I[2, 4], I[0, 5], I[1, 3]]))  # S(h) = I[:3, 3:]
                V -= (g0.T @ (p * self._P.const(I[5, 5]) + R @ h))[0, 0]
            return self._P.reduce(V)

        return self._result("_V", build)

    def gravity_forces(self) -> sp.Matrix:
        r"""Generalized gravity forces :math:`\mathbf g(\mathbf q) = \partial V/\partial\mathbf q`.

        Returns
        -------
        sympy.Matrix, shape (n, 1)

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> from geomech.symbolic import SymbolicModel
        >>> SymbolicModel(robots.double_pendulum()).gravity_forces()
        Matrix([
        [981*sin(q1)/50 + 981*sin(q1 + q2)/100],
        [                981*sin(q1 + q2)/100]])
        """
        V = self._V()
        g = np.array([self._P.diff(V, k) for k in range(self.n)] or [], dtype=object)
        return self._result("g", lambda: self._sympy(g.reshape(self.n, 1)))

    def kinetic_energy(self) -> sp.Expr:
        r"""Kinetic energy :math:`T = \tfrac12\sum_i \mathbf v_i^\top\mathbf I_i\mathbf v_i =
        \tfrac12\mathbf v^\top\mathbf H\mathbf v`.

        Returns
        -------
        sympy.Expr
            In :attr:`q` and :attr:`v`.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> from geomech.symbolic import SymbolicModel
        >>> sm = SymbolicModel(robots.double_pendulum())
        >>> sm.kinetic_energy()
        3*v1**2/2 + v1*v2 + v1*(v1 + v2)*cos(q2) + v2**2/2
        """

        def build():
            u = np.array(self._P.u, dtype=object)
            return self._sympy([[(u @ self._H() @ u) * self._P.half]])[0, 0]

        return self._result("T", build)

    # ------------------------------------------------------------------------------------
    def latex(self, expr, **options) -> str:
        r"""LaTeX of a result, with the speeds written :math:`\dot q_i`.

        Parameters
        ----------
        expr : sympy expression, Matrix or Array
            A result of this model (or any expression in :attr:`q` and :attr:`v`).
        **options
            Passed to ``sympy.latex`` (e.g. ``mat_delim="("``).

        Returns
        -------
        str

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> from geomech.symbolic import SymbolicModel
        >>> sm = SymbolicModel(robots.double_pendulum())
        >>> sm.latex(sm.coriolis_matrix()[0, 0])
        '- \\dot{q}_{2} \\sin{\\left(q_{2} \\right)}'
        """
        names = {v: rf"\dot{{q}}_{{{k + 1}}}" for k, v in enumerate(self.v)}
        names.update({q: rf"q_{{{k + 1}}}" for k, q in enumerate(self.q)})
        names.update(options.pop("symbol_names", {}))
        return sp.latex(expr, symbol_names=names, **options)

    def __repr__(self) -> str:
        name = self.model.graph.graph.get("name", "model")
        return f"<SymbolicModel of {name!r}: n = {self.n}>"
