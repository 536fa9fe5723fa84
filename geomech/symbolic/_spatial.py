r"""Spatial vector algebra on sympy matrices (Featherstone's conventions, angular first).

The symbolic twins of :mod:`geomech.spatial` that :class:`~geomech.symbolic.SymbolicModel`
needs: cross-product operators, Plücker transforms of joint poses, the joint poses of the
1-DoF joints, and the body Coriolis matrices :math:`\mathbf C(\mathbf I, \mathbf v)` of the
named body connections (:mod:`geomech.multibody.connections.body`), all written from the
formulas, not from the numeric code, so that each side is the other's oracle.

Conventions (:ref:`conventions-spatial-vectors`): twists :math:`[\boldsymbol\omega; \boldsymbol v]`,
wrenches
:math:`[\boldsymbol n; \boldsymbol f]`; :math:`{}^j\mathbf X_i` maps motion coordinates in
frame :math:`i` to frame :math:`j`; spatial inertias are about the body-frame origin.

Every function takes sympy matrices or sequences of sympy expressions (numbers included) and
returns a ``sympy.Matrix``; sympy is needed (``pip install 'geomech[symbolic]'``).

References
----------
seed 001 §1.3 (Appendix A: ``crm``, ``crf``, :math:`\bar\times^*`, Plücker transforms);
seed 000 eqs. (18), (21) (body connections); Featherstone 2008, §2.

Examples
--------
>>> import sympy as sp
>>> from geomech.symbolic._spatial import crf, crm
>>> v = sp.Matrix(sp.symbols("w1:4 u1:4", real=True))
>>> crf(v) == -crm(v).T
True
"""

from __future__ import annotations

from geomech.errors import ConnectionSpecError, ModelError
from geomech.geometry.names import canonical_connection_name
from geomech.symbolic._sympy import sympy as sp

__all__ = [
    "skew",
    "crm",
    "crf",
    "crbar",
    "plucker_from_pose",
    "axis_rotation",
    "joint_pose",
    "body_coriolis",
    "NAMED_BODY_CORIOLIS",
]


def skew(p) -> sp.Matrix:
    r"""The cross-product matrix :math:`\mathbf S(\mathbf p)`, :math:`\mathbf S(\mathbf p)\mathbf x
    = \mathbf p\times\mathbf x`.

    Parameters
    ----------
    p : sequence of 3 sympy expressions

    Returns
    -------
    sympy.Matrix, shape (3, 3)

    Examples
    --------
    >>> import sympy as sp
    >>> from geomech.symbolic._spatial import skew
    >>> skew([1, 2, 3]) * sp.Matrix([4, 5, 6]) == sp.Matrix([1, 2, 3]).cross(sp.Matrix([4, 5, 6]))
    True
    """
    x, y, z = list(p)
    return sp.Matrix([[0, -z, y], [z, 0, -x], [-y, x, 0]])


def _blocks(a, b, c, d) -> sp.Matrix:
    return sp.Matrix.vstack(sp.Matrix.hstack(a, b), sp.Matrix.hstack(c, d))


def crm(v) -> sp.Matrix:
    r"""Motion cross product :math:`(\mathbf v\times) = \begin{bmatrix}\mathbf S(\boldsymbol\omega)
    & 0\\ \mathbf S(\boldsymbol v) & \mathbf S(\boldsymbol\omega)\end{bmatrix}`.

    Parameters
    ----------
    v : sequence of 6 sympy expressions
        Twist :math:`[\boldsymbol\omega; \boldsymbol v]`.

    Returns
    -------
    sympy.Matrix, shape (6, 6)

    References
    ----------
    seed 001 §1.3 (Appendix A).

    Examples
    --------
    >>> from geomech.symbolic._spatial import crm
    >>> crm([0, 0, 1, 0, 0, 0])[:3, :3]
    Matrix([
    [0, -1, 0],
    [1,  0, 0],
    [0,  0, 0]])
    """
    v = list(v)
    Sw, Sv = skew(v[:3]), skew(v[3:])
    return _blocks(Sw, sp.zeros(3), Sv, Sw)


def crf(v) -> sp.Matrix:
    r"""Force cross product :math:`(\mathbf v\times^*) = -(\mathbf v\times)^\top`.

    Parameters
    ----------
    v : sequence of 6 sympy expressions

    Returns
    -------
    sympy.Matrix, shape (6, 6)

    References
    ----------
    seed 001 eq. (8).

    Examples
    --------
    >>> from geomech.symbolic._spatial import crf
    >>> crf([0, 0, 0, 1, 0, 0])[:3, 3:]
    Matrix([
    [0, 0,  0],
    [0, 0, -1],
    [0, 1,  0]])
    """
    v = list(v)
    Sw, Sv = skew(v[:3]), skew(v[3:])
    return _blocks(Sw, Sv, sp.zeros(3), Sw)


def crbar(f) -> sp.Matrix:
    r"""The swapped force cross product :math:`(\mathbf f\bar\times^*)`, :math:`(\mathbf
    f\bar\times^*)\mathbf v = (\mathbf v\times^*)\mathbf f`.

    .. math:: (\mathbf f\bar\times^*) = \begin{bmatrix}-\mathbf S(\boldsymbol n) &
              -\mathbf S(\boldsymbol f)\\ -\mathbf S(\boldsymbol f) & 0\end{bmatrix}

    Parameters
    ----------
    f : sequence of 6 sympy expressions
        Wrench :math:`[\boldsymbol n; \boldsymbol f]`.

    Returns
    -------
    sympy.Matrix, shape (6, 6)

    References
    ----------
    seed 001 §1.3 ("cross-bar-star").

    Examples
    --------
    >>> import sympy as sp
    >>> from geomech.symbolic._spatial import crbar, crf
    >>> f, v = sp.Matrix(sp.symbols("f:6")), sp.Matrix(sp.symbols("v:6"))
    >>> sp.expand(crbar(f) * v - crf(v) * f) == sp.zeros(6, 1)
    True
    """
    f = list(f)
    Sn, Sf = skew(f[:3]), skew(f[3:])
    return _blocks(-Sn, -Sf, -Sf, sp.zeros(3))


def plucker_from_pose(R, p) -> sp.Matrix:
    r"""Featherstone's :math:`{}^c\mathbf X_p` of a frame :math:`c` with pose :math:`(\mathbf R,
    \mathbf p)` in frame :math:`p`.

    .. math:: {}^c\mathbf X_p = \begin{bmatrix}\mathbf R^\top & 0\\ -\mathbf R^\top
              \mathbf S(\mathbf p) & \mathbf R^\top\end{bmatrix}

    Parameters
    ----------
    R : sympy.Matrix, shape (3, 3)
        Orientation of frame :math:`c` in frame :math:`p` (columns: its axes).
    p : sympy.Matrix, shape (3, 1)
        Position of the origin of :math:`c` in frame :math:`p`.

    Returns
    -------
    sympy.Matrix, shape (6, 6)

    References
    ----------
    seed 001 §1.3; Featherstone 2008, eq. (2.24).

    Examples
    --------
    >>> import sympy as sp
    >>> from geomech.symbolic._spatial import plucker_from_pose
    >>> X = plucker_from_pose(sp.eye(3), sp.Matrix([1, 0, 0]))
    >>> list(X * sp.Matrix([0, 0, 1, 0, 0, 0]))  # a spin about z: the point x = 1 moves along y
    [0, 0, 1, 0, 1, 0]
    """
    Rt = sp.Matrix(R).T
    return _blocks(Rt, sp.zeros(3), -Rt * skew(list(p)), Rt)


def axis_rotation(axis, angle) -> sp.Matrix:
    r"""Rotation by ``angle`` about a unit ``axis`` (Rodrigues).

    .. math:: \mathbf R = \mathbf 1 + \sin\theta\,\mathbf S(\mathbf a)
              + (1 - \cos\theta)\,\mathbf S(\mathbf a)^2

    Parameters
    ----------
    axis : sequence of 3 sympy expressions
        Unit axis :math:`\mathbf a`.
    angle : sympy expression

    Returns
    -------
    sympy.Matrix, shape (3, 3)

    Examples
    --------
    >>> import sympy as sp
    >>> from geomech.symbolic._spatial import axis_rotation
    >>> t = sp.Symbol("t")
    >>> axis_rotation([0, 0, 1], t)
    Matrix([
    [cos(t), -sin(t), 0],
    [sin(t),  cos(t), 0],
    [     0,       0, 1]])
    """
    K = skew(axis)
    return sp.eye(3) + sp.sin(angle) * K + (1 - sp.cos(angle)) * K * K


def joint_pose(kind: str, axis, q, pitch=0) -> tuple[sp.Matrix, sp.Matrix]:
    r"""Pose :math:`(\mathbf R, \mathbf p)` of the child frame in the joint frame of a 1-DoF joint.

    ============  =======================================  ============================
    ``kind``      :math:`\mathbf R`                        :math:`\mathbf p`
    ============  =======================================  ============================
    revolute      :math:`\exp(q\,\mathbf S(\mathbf a))`    :math:`0`
    prismatic     :math:`\mathbf 1`                        :math:`q\,\mathbf a`
    helical       :math:`\exp(q\,\mathbf S(\mathbf a))`    :math:`h\,q\,\mathbf a`
    fixed         :math:`\mathbf 1`                        :math:`0`
    ============  =======================================  ============================

    Parameters
    ----------
    kind : {"revolute", "prismatic", "helical", "fixed"}
    axis : sequence of 3 sympy expressions
        Unit joint axis :math:`\mathbf a` (ignored for ``fixed``).
    q : sympy expression
        Joint coordinate (ignored for ``fixed``).
    pitch : sympy expression, optional
        Pitch :math:`h` of a helical joint (translation per radian).

    Returns
    -------
    R : sympy.Matrix, shape (3, 3)
    p : sympy.Matrix, shape (3, 1)

    Raises
    ------
    ModelError
        For another ``kind``.

    References
    ----------
    Featherstone 2008, Table 4.1.

    Examples
    --------
    >>> import sympy as sp
    >>> from geomech.symbolic._spatial import joint_pose
    >>> R, p = joint_pose("helical", [0, 0, 1], sp.pi, pitch=sp.Rational(1, 2))
    >>> list(p)
    [0, 0, pi/2]
    """
    if kind == "fixed":
        return sp.eye(3), sp.zeros(3, 1)
    a = sp.Matrix(list(axis))
    if kind == "revolute":
        return axis_rotation(a, q), sp.zeros(3, 1)
    if kind == "prismatic":
        return sp.eye(3), q * a
    if kind == "helical":
        return axis_rotation(a, q), pitch * q * a
    raise ModelError(
        f"Expected a joint kind among revolute, prismatic, helical or fixed, got {kind!r}."
    )


# ----------------------------------------------------------------------------------------
# body connections (the table of geomech.multibody.connections.body, in sympy)
# ----------------------------------------------------------------------------------------
def _levi_civita(I, v):
    # seed 000 eq. (18): C = 1/2 [I (v x) + (v x*) I + (I v) xbar*]
    return (I * crm(v) + crf(v) * I + crbar(I * v)) / 2


def _cartan(lam):
    # Gamma_ijk = lambda <E_i, [E_j, E_k]>  =>  C = lambda I (v x)
    return lambda I, v: lam * I * crm(v)


def _velocity_cross(I, v):
    # seed 001 eq. (9): B = (v x*) I, C = B + I (v x)
    return crf(v) * I + I * crm(v)


def _boltzmann_hamel(I, v):
    # seed 003 eq. (57): C = (I v) xbar*
    return crbar(I * v)


#: Body Coriolis matrices :math:`\mathbf C(\mathbf I, \mathbf v)` of the named body
#: connections, by canonical name (:mod:`geomech.geometry.names`).
NAMED_BODY_CORIOLIS = {
    "levi-civita": _levi_civita,
    "cartan-minus": _cartan(sp.Integer(0)),
    "cartan-zero": _cartan(sp.Rational(1, 2)),
    "cartan-plus": _cartan(sp.Integer(1)),
    "velocity-cross": _velocity_cross,
    "boltzmann-hamel": _boltzmann_hamel,
}


def body_coriolis(name: str, I, v) -> sp.Matrix:
    r"""Body Coriolis matrix :math:`\mathbf C(\mathbf I, \mathbf v)` of a named body connection.

    ===================  ==========================================================
    name                 :math:`\mathbf C(\mathbf I, \mathbf v)`
    ===================  ==========================================================
    levi-civita          :math:`\tfrac12[\mathbf I(\mathbf v\times)
                         + (\mathbf v\times^*)\mathbf I + (\mathbf I\mathbf v)\bar\times^*]`
    cartan-minus         :math:`0`
    cartan-zero          :math:`\tfrac12\mathbf I(\mathbf v\times)`
    cartan-plus          :math:`\mathbf I(\mathbf v\times)`
    velocity-cross       :math:`(\mathbf v\times^*)\mathbf I + \mathbf I(\mathbf v\times)`
    boltzmann-hamel      :math:`(\mathbf I\mathbf v)\bar\times^*`
    ===================  ==========================================================

    Parameters
    ----------
    name : str
        A canonical name or an alias (``"momentum-cross"``, ``"-"``, ...).
    I : sympy.Matrix, shape (6, 6)
        Spatial inertia about the body-frame origin.
    v : sympy.Matrix, shape (6, 1)
        Body twist.

    Returns
    -------
    sympy.Matrix, shape (6, 6)

    Raises
    ------
    ConnectionSpecError
        If ``name`` names no built-in body connection.

    References
    ----------
    seed 000 eqs. (18), (21); seed 001 eqs. (9), (10); seed 003 eq. (57).

    Examples
    --------
    The Levi-Civita matrix is skew and gives the Newton–Euler bias force:

    >>> import sympy as sp
    >>> from geomech.symbolic._spatial import body_coriolis, crf
    >>> m, x = sp.symbols("m x", positive=True)
    >>> I = sp.diag(1, 2, 3, m, m, m)
    >>> v = sp.Matrix(sp.symbols("w1:4 u1:4", real=True))
    >>> C = body_coriolis("levi-civita", I, v)
    >>> sp.expand(C + C.T) == sp.zeros(6), sp.expand(C * v - crf(v) * I * v) == sp.zeros(6, 1)
    (True, True)
    """
    key = canonical_connection_name(name)
    if key not in NAMED_BODY_CORIOLIS:
        raise ConnectionSpecError(
            f"Expected a built-in body connection, one of {list(NAMED_BODY_CORIOLIS)} (or an "
            f"alias), got {name!r}."
        )
    return NAMED_BODY_CORIOLIS[key](sp.Matrix(I), sp.Matrix(list(v)))
