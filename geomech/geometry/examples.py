r"""Reusable example systems: a point mass, rigid bodies on the groups, a two-link arm.

Every constructor returns a :class:`~geomech.geometry.system.MechanicalSystem`. Rigid bodies
use body velocities (the left-invariant frame) as generalized speeds and the constant
left-invariant metric :math:`\langle\!\langle \mathbf v, \mathbf v\rangle\!\rangle =
\mathbf v^\top \mathbf I \mathbf v`, i.e. :math:`H = \mathbf I` (seed 000 §VI-A1; the kinetic
energy is :math:`\tfrac12 \mathbf v^\top \mathbf I \mathbf v`, so the metric itself carries no ½).
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array, check_spd
from geomech.errors import DimensionError, InertiaError
from geomech.geometry.system import MechanicalSystem
from geomech.lie import SE2, SE3, SO3, Euclidean, Schoenflies

__all__ = [
    "point_mass",
    "rigid_body_so3",
    "rigid_body_se3",
    "rigid_body_se2",
    "rigid_body_schoenflies",
    "two_link_arm",
]


def _metric(inertia, name: str, n: int, rows=None) -> np.ndarray:
    """A constant SPD metric of size n, or the projection S^T I S of a 6x6 spatial inertia."""
    I = as_array(inertia, name)
    if rows is not None and I.shape == (6, 6):
        check_spd(I, name)
        I = I[np.ix_(rows, rows)]
    if I.shape != (n, n):
        extra = " or (6, 6)" if rows is not None else ""
        raise DimensionError(f"Expected `{name}` to have shape {(n, n)}{extra}, got {I.shape}.")
    return check_spd(I, name)


def point_mass(mass=1.0, dim=3) -> MechanicalSystem:
    r"""A point mass in :math:`\mathbb R^{\mathrm{dim}}`, Cartesian coordinates, :math:`H = m\mathbf
    1`.

    Parameters
    ----------
    mass : float
        Mass ``m > 0``.
    dim : int
        Dimension of the space.

    Returns
    -------
    MechanicalSystem
        On ``Euclidean(dim)`` with the coordinate frame; no potential.

    Raises
    ------
    InertiaError
        If ``mass`` is not positive.

    References
    ----------
    seed 000 §IV-A2 (the point-mass example, :math:`C = \beta(v\times)`).

    Examples
    --------
    >>> from geomech.geometry.examples import point_mass
    >>> pm = point_mass(2.0)
    >>> pm.mass_matrix([0.0, 0.0, 0.0])
    array([[2., 0., 0.],
           [0., 2., 0.],
           [0., 0., 2.]])
    """
    m = float(as_array(mass, "mass"))
    if not m > 0:
        raise InertiaError(f"Expected `mass` to be positive, got {m:.3g}.")
    return MechanicalSystem(Euclidean(dim), m * np.eye(int(dim)))


def rigid_body_so3(inertia) -> MechanicalSystem:
    r"""A rigid body rotating about a fixed point: SO(3), body angular velocity :math:`\omega`.

    Parameters
    ----------
    inertia : array_like, shape (3, 3)
        Rotational inertia :math:`\bar I` about the fixed point, body axes (SPD).

    Returns
    -------
    MechanicalSystem

    Raises
    ------
    DimensionError
        If ``inertia`` is not 3×3.
    InertiaError
        If ``inertia`` is not symmetric positive definite.

    References
    ----------
    seed 000 §VI-A1 (subgroup SO(3), :math:`C^\star = (\Sigma\omega)\times`).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples import rigid_body_so3
    >>> rigid_body_so3(np.diag([1.0, 2.0, 3.0])).dim
    3
    """
    return MechanicalSystem(SO3, _metric(inertia, "inertia", 3))


def rigid_body_se3(inertia) -> MechanicalSystem:
    r"""A free rigid body: SE(3), body twist :math:`[\omega; v]` (angular first).

    Parameters
    ----------
    inertia : array_like, shape (6, 6)
        Spatial inertia about the body-frame origin (Featherstone, angular first; see
        :func:`geomech.spatial.spatial_inertia`); any SPD matrix is accepted.

    Returns
    -------
    MechanicalSystem

    Raises
    ------
    DimensionError
        If ``inertia`` is not 6×6.
    InertiaError
        If ``inertia`` is not symmetric positive definite.

    References
    ----------
    seed 000 §VI-A1, eqs. (18)-(19).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples import rigid_body_se3
    >>> from geomech.spatial import spatial_inertia
    >>> body = rigid_body_se3(spatial_inertia(2.0, [0.1, 0.0, 0.0], np.eye(3)))
    >>> body.dim, body.frame
    (6, LeftInvariantFrame(SE(3)))
    """
    return MechanicalSystem(SE3, _metric(inertia, "inertia", 6))


def rigid_body_se2(inertia) -> MechanicalSystem:
    r"""A planar rigid body: SE(2), body velocity :math:`[\omega_z; v_x; v_y]`.

    Parameters
    ----------
    inertia : array_like, shape (3, 3) or (6, 6)
        The 3×3 metric in :math:`(\omega_z, v_x, v_y)`, or a 6×6 spatial inertia, projected
        as :math:`S^\top \mathbf I S` onto those components.

    Returns
    -------
    MechanicalSystem

    Raises
    ------
    DimensionError
        If ``inertia`` is neither 3×3 nor 6×6.
    InertiaError
        If it is not symmetric positive definite.

    References
    ----------
    seed 000 §VI-A1 (subgroups, :math:`\bar H = S^\top \mathbf I S`).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples import rigid_body_se2
    >>> from geomech.spatial import spatial_inertia
    >>> body = rigid_body_se2(spatial_inertia(2.0, [0, 0, 0], np.diag([1.0, 1.0, 0.5])))
    >>> body.mass_matrix(np.eye(3)) + 0.0
    array([[0.5, 0. , 0. ],
           [0. , 2. , 0. ],
           [0. , 0. , 2. ]])
    """
    return MechanicalSystem(SE2, _metric(inertia, "inertia", 3, rows=[2, 3, 4]))


def rigid_body_schoenflies(inertia) -> MechanicalSystem:
    r"""A Schönflies (SCARA) motion: SE(2)×R, body velocity :math:`[\omega_z; v_x; v_y; v_z]`.

    Parameters
    ----------
    inertia : array_like, shape (4, 4) or (6, 6)
        The 4×4 metric in :math:`(\omega_z, v_x, v_y, v_z)`, or a 6×6 spatial inertia
        projected onto those components.

    Returns
    -------
    MechanicalSystem

    Raises
    ------
    DimensionError
        If ``inertia`` is neither 4×4 nor 6×6.
    InertiaError
        If it is not symmetric positive definite.

    References
    ----------
    seed 000 §VI-A1 (subgroups).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples import rigid_body_schoenflies
    >>> rigid_body_schoenflies(np.eye(4)).dim
    4
    """
    return MechanicalSystem(Schoenflies, _metric(inertia, "inertia", 4, rows=[2, 3, 4, 5]))


def two_link_arm(m1, m2, l1, l2, lc1, lc2, I1, I2, gravity=9.81) -> MechanicalSystem:
    r"""Planar two-link revolute arm in joint coordinates :math:`q = (q_1, q_2)`.

    Link ``i`` has mass ``mi``, length ``li``, centre of mass at distance ``lci`` from its
    joint and inertia ``Ii`` about its centre of mass; :math:`q_1` is measured from the
    horizontal, :math:`q_2` relative to link 1, and gravity ``g`` acts in the plane along
    :math:`-y` (Spong, Hutchinson & Vidyasagar, *Robot Modeling and Control*, §7.4):

    .. math::
        H = \begin{bmatrix}
        m_1 l_{c1}^2 + m_2 (l_1^2 + l_{c2}^2 + 2 l_1 l_{c2} \cos q_2) + I_1 + I_2 &
        m_2 (l_{c2}^2 + l_1 l_{c2} \cos q_2) + I_2 \\
        m_2 (l_{c2}^2 + l_1 l_{c2} \cos q_2) + I_2 & m_2 l_{c2}^2 + I_2
        \end{bmatrix},

    .. math:: V = g\,[(m_1 l_{c1} + m_2 l_1) \sin q_1 + m_2 l_{c2} \sin(q_1 + q_2)].

    ``l2`` does not enter the dynamics (only the tip position).

    Parameters
    ----------
    m1, m2, l1, l2, lc1, lc2, I1, I2 : float
    gravity : float
        Magnitude ``g`` of gravity (``0`` for none).

    Returns
    -------
    MechanicalSystem
        On ``Euclidean(2)`` with the coordinate frame and the potential ``V``.

    Raises
    ------
    InertiaError
        If a mass is not positive or an inertia is negative.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples import two_link_arm
    >>> arm = two_link_arm(1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1)
    >>> arm.mass_matrix([0.0, np.pi / 2])
    array([[1.7 , 0.35],
           [0.35, 0.35]])
    """
    m1, m2, l1, l2, lc1, lc2, I1, I2, g = (
        float(as_array(x, name))
        for x, name in zip(
            (m1, m2, l1, l2, lc1, lc2, I1, I2, gravity),
            ("m1", "m2", "l1", "l2", "lc1", "lc2", "I1", "I2", "gravity"),
            strict=True,
        )
    )
    for value, name in ((m1, "m1"), (m2, "m2")):
        if not value > 0:
            raise InertiaError(f"Expected `{name}` to be positive, got {value:.3g}.")
    for value, name in ((I1, "I1"), (I2, "I2")):
        if value < 0:
            raise InertiaError(f"Expected `{name}` to be non-negative, got {value:.3g}.")

    def mass_matrix(q):
        c2 = np.cos(q[..., 1])
        H11 = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * c2) + I1 + I2
        H12 = m2 * (lc2**2 + l1 * lc2 * c2) + I2
        H22 = np.full_like(c2, m2 * lc2**2 + I2)
        return np.stack([np.stack([H11, H12], -1), np.stack([H12, H22], -1)], -2)

    def potential(q):
        return g * (
            (m1 * lc1 + m2 * l1) * np.sin(q[..., 0]) + m2 * lc2 * np.sin(q[..., 0] + q[..., 1])
        )

    return MechanicalSystem(Euclidean(2), mass_matrix, potential=potential)
