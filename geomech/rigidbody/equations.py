"""The explicit scalar equations of seed 003 §4, per group (errata corrected).

These are the paper's equations written out component by component for a body whose frame is
at the centre of mass and aligned with the principal axes (diagonal inertia), using the
paper's component names: body angular rates ``p, q, r`` (roll, pitch, yaw) and linear
velocities ``u, v, w`` (surge, sway, heave). Each function returns the left-hand side ``τ``
for given velocities and accelerations, **in geomech's angular-first order** (inputs too), so
it can be compared directly with :meth:`RigidBody.inverse_dynamics`. For non-diagonal inertia
(centre-of-mass offset, products of inertia, added mass) use the matrix form or
:func:`kirchhoff_equations`.

Examples
--------
>>> from geomech.rigidbody.equations import euler_equations
>>> euler_equations([1.0, 2.0, 3.0], [0.1, -0.2, 0.3], [0.0, 0.0, 0.0])  # eqs. (2)-(4)
array([-0.06, -0.06, -0.02])
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array
from geomech.errors import InertiaError

__all__ = [
    "euler_equations",
    "newton_euler_equations",
    "kirchhoff_equations",
    "planar_equations",
    "schoenflies_equations",
]


def _positive(x, name: str, shape=()) -> np.ndarray:
    arr = as_array(x, name, shape)
    if np.any(arr <= 0.0):
        raise InertiaError(f"Expected `{name}` to be positive, got {arr}.")
    return arr


def euler_equations(principal_inertia, v, a) -> np.ndarray:
    r"""Euler's equations on SO(3), seed 003 eqs. (2)-(4).

    .. math::
        \tau_p = I_x \dot p - (I_y - I_z)\, q r, \quad
        \tau_q = I_y \dot q - (I_z - I_x)\, r p, \quad
        \tau_r = I_z \dot r - (I_x - I_y)\, p q

    Parameters
    ----------
    principal_inertia : array_like, shape (3,)
        ``(I_x, I_y, I_z) > 0``.
    v, a : array_like, shape (..., 3)
        Body angular velocity ``ω = [p, q, r]`` and its derivative ``ω̇``.

    Returns
    -------
    ndarray, shape (..., 3)
        ``τ = [τ_p, τ_q, τ_r]``.

    Raises
    ------
    DimensionError, NonFiniteError
        On malformed inputs.
    InertiaError
        If a principal inertia is not positive.

    References
    ----------
    seed 003 eqs. (1)-(6), (68)-(71).

    Examples
    --------
    >>> from geomech.rigidbody.equations import euler_equations
    >>> euler_equations([1.0, 1.0, 2.0], [0.0, 1.0, 1.0], [1.0, 0.0, 0.0])
    array([2., 0., 0.])
    """
    I_x, I_y, I_z = _positive(principal_inertia, "principal_inertia", (3,))
    p, q, r = np.moveaxis(as_array(v, "v", (3,)), -1, 0)
    p_dot, q_dot, r_dot = np.moveaxis(as_array(a, "a", (3,)), -1, 0)
    tau_p = I_x * p_dot - (I_y - I_z) * q * r  # eq. (2)
    tau_q = I_y * q_dot - (I_z - I_x) * r * p  # eq. (3)
    tau_r = I_z * r_dot - (I_x - I_y) * p * q  # eq. (4)
    return np.stack(np.broadcast_arrays(tau_p, tau_q, tau_r), axis=-1)


def newton_euler_equations(mass, principal_inertia, V, V_dot) -> np.ndarray:
    r"""Scalar Newton–Euler equations on SE(3) (seed 003, after eq. 76; erratum E5 fixed).

    For ``M = diag(m, m, m, I_x, I_y, I_z)`` (paper order) and the body twist with components
    ``p, q, r`` (angular) and ``u, v, w`` (linear):

    .. math::
        \tau_u &= m \dot u - m r v + m q w, &
        \tau_p &= I_x \dot p - I_y r q + I_z q r, \\
        \tau_v &= m \dot v + m r u - m p w, &
        \tau_q &= I_y \dot q + I_x r p - I_z p r, \\
        \tau_w &= m \dot w - m q u + m p v, &
        \tau_r &= I_z \dot r - I_x q p + I_y p q.

    The paper prints ``+ I_y r q`` in the last equation; ``+ I_y p q`` is correct (it agrees
    with Euler's eq. (4) and with fixture F2).

    Parameters
    ----------
    mass : float
        ``m > 0``.
    principal_inertia : array_like, shape (3,)
        ``(I_x, I_y, I_z) > 0``.
    V, V_dot : array_like, shape (..., 6)
        Body twist ``[p, q, r, u, v, w]`` (geomech order ``[ω; v]``) and its derivative.

    Returns
    -------
    ndarray, shape (..., 6)
        ``τ = [τ_p, τ_q, τ_r, τ_u, τ_v, τ_w]`` (geomech order).

    Raises
    ------
    DimensionError, NonFiniteError
        On malformed inputs.
    InertiaError
        If the mass or a principal inertia is not positive.

    References
    ----------
    seed 003 §4.2, eqs. (7)-(11), (75)-(76); erratum E5.

    Examples
    --------
    >>> from geomech.rigidbody.equations import newton_euler_equations
    >>> V = [0.1, -0.2, 0.3, 1.0, 0.5, -0.2]  # fixture F2 in [ω; v] order
    >>> newton_euler_equations(2.0, [1.0, 2.0, 3.0], V, [0.0] * 6)
    array([-0.06, -0.06, -0.02, -0.22,  0.64,  0.5 ])
    """
    m = _positive(mass, "mass")
    I_x, I_y, I_z = _positive(principal_inertia, "principal_inertia", (3,))
    p, q, r, u, v, w = np.moveaxis(as_array(V, "V", (6,)), -1, 0)
    p_d, q_d, r_d, u_d, v_d, w_d = np.moveaxis(as_array(V_dot, "V_dot", (6,)), -1, 0)
    tau_u = m * u_d - m * r * v + m * q * w
    tau_v = m * v_d + m * r * u - m * p * w
    tau_w = m * w_d - m * q * u + m * p * v
    tau_p = I_x * p_d - I_y * r * q + I_z * q * r
    tau_q = I_y * q_d + I_x * r * p - I_z * p * r
    tau_r = I_z * r_d - I_x * q * p + I_y * p * q  # erratum E5: the paper prints + I_y r q
    return np.stack(np.broadcast_arrays(tau_p, tau_q, tau_r, tau_u, tau_v, tau_w), axis=-1)


def kirchhoff_equations(inertia, V, V_dot) -> np.ndarray:
    r"""Kirchhoff's equations on SE(3) for a general 6×6 inertia (seed 003 eqs. 9-10).

    With ``K = ½ Vᵀ M V``, ``∂K/∂ω`` and ``∂K/∂v`` the angular and linear parts of ``M V``:

    .. math::
        \tau_v = \frac{\mathrm d}{\mathrm dt}\frac{\partial K}{\partial v}
                  + \hat\omega \frac{\partial K}{\partial v}, \qquad
        \tau_\omega = \frac{\mathrm d}{\mathrm dt}\frac{\partial K}{\partial \omega}
                  + \hat v \frac{\partial K}{\partial v}
                  + \hat\omega \frac{\partial K}{\partial \omega}

    Parameters
    ----------
    inertia : array_like, shape (6, 6)
        ``M`` in geomech's ``[ω; v]`` order (any symmetric matrix; e.g. added mass).
    V, V_dot : array_like, shape (..., 6)
        Body twist ``[ω; v]`` and its derivative.

    Returns
    -------
    ndarray, shape (..., 6)
        ``τ = [τ_ω; τ_v]``.

    Raises
    ------
    DimensionError, NonFiniteError
        On malformed inputs.

    References
    ----------
    seed 003 eqs. (9)-(10).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.rigidbody.equations import kirchhoff_equations
    >>> M = np.diag([1.0, 2.0, 3.0, 2.0, 2.0, 2.0])
    >>> kirchhoff_equations(M, [0.1, -0.2, 0.3, 1.0, 0.5, -0.2], np.zeros(6))
    array([-0.06, -0.06, -0.02, -0.22,  0.64,  0.5 ])
    """
    M = as_array(inertia, "inertia", (6, 6))
    V = as_array(V, "V", (6,))
    V_dot = as_array(V_dot, "V_dot", (6,))
    dK = V @ M.T  # [∂K/∂ω; ∂K/∂v]
    dK_dot = V_dot @ M.T  # d/dt ∂K/∂V (M constant)
    omega, v = V[..., :3], V[..., 3:]
    tau_v = dK_dot[..., 3:] + np.cross(omega, dK[..., 3:])  # eq. (9)
    tau_w = dK_dot[..., :3] + np.cross(v, dK[..., 3:]) + np.cross(omega, dK[..., :3])  # eq. (10)
    return np.concatenate([tau_w, tau_v], axis=-1)


def planar_equations(mass, I_z, v, a) -> np.ndarray:
    r"""Planar rigid-body equations on SE(2), seed 003 eqs. (86)-(87).

    .. math:: \tau_u = m \dot u - m r v, \qquad \tau_v = m \dot v + m r u, \qquad
              \tau_r = I_z \dot r

    (the cross term of the third equation, ``-m v u + m u v``, vanishes).

    Parameters
    ----------
    mass : float
        ``m > 0``.
    I_z : float
        Rotational inertia about the normal axis, ``> 0``.
    v, a : array_like, shape (..., 3)
        Body velocity ``[r, u, v]`` (geomech order ``[ω; vx; vy]``) and its derivative.

    Returns
    -------
    ndarray, shape (..., 3)
        ``τ = [τ_r, τ_u, τ_v]``.

    Raises
    ------
    DimensionError, NonFiniteError
        On malformed inputs.
    InertiaError
        If ``mass`` or ``I_z`` is not positive.

    References
    ----------
    seed 003 §4.3, eqs. (77)-(87).

    Examples
    --------
    >>> from geomech.rigidbody.equations import planar_equations
    >>> planar_equations(3.0, 0.7, [0.3, 1.0, 0.5], [0.0, 0.0, 0.0])  # fixture F3
    array([ 0.  , -0.45,  0.9 ])
    """
    m = _positive(mass, "mass")
    I_z = _positive(I_z, "I_z")
    r, u, vv = np.moveaxis(as_array(v, "v", (3,)), -1, 0)
    r_d, u_d, v_d = np.moveaxis(as_array(a, "a", (3,)), -1, 0)
    tau_u = m * u_d - m * r * vv  # eq. (87)
    tau_v = m * v_d + m * r * u
    tau_r = I_z * r_d - m * vv * u + m * u * vv  # eq. (86): c3 = -m v u + m u v = 0
    return np.stack(np.broadcast_arrays(tau_r, tau_u, tau_v), axis=-1)


def schoenflies_equations(mass, I_z, v, a) -> np.ndarray:
    r"""Rigid-body equations on the Schönflies group X(z), seed 003 eq. (96).

    .. math:: \tau_u = m \dot u - m r v, \quad \tau_v = m \dot v + m r u, \quad
              \tau_w = m \dot w, \quad \tau_r = I_z \dot r

    (no Coriolis force on the z-translation, which is central in the Lie algebra).

    Parameters
    ----------
    mass : float
        ``m > 0``.
    I_z : float
        Rotational inertia about z, ``> 0``.
    v, a : array_like, shape (..., 4)
        Body velocity ``[r, u, v, w]`` (geomech order ``[ω_z; vx; vy; vz]``) and its
        derivative.

    Returns
    -------
    ndarray, shape (..., 4)
        ``τ = [τ_r, τ_u, τ_v, τ_w]``.

    Raises
    ------
    DimensionError, NonFiniteError
        On malformed inputs.
    InertiaError
        If ``mass`` or ``I_z`` is not positive.

    References
    ----------
    seed 003 §4.4, eqs. (88)-(96).

    Examples
    --------
    >>> from geomech.rigidbody.equations import schoenflies_equations
    >>> schoenflies_equations(2.0, 0.5, [0.3, 1.0, 0.5, -0.4], [0.0] * 4)  # fixture F4
    array([ 0. , -0.3,  0.6,  0. ])
    """
    m = _positive(mass, "mass")
    I_z = _positive(I_z, "I_z")
    r, u, vv, w = np.moveaxis(as_array(v, "v", (4,)), -1, 0)
    r_d, u_d, v_d, w_d = np.moveaxis(as_array(a, "a", (4,)), -1, 0)
    tau_u = m * u_d - m * r * vv  # eq. (96)
    tau_v = m * v_d + m * r * u
    tau_w = m * w_d
    tau_r = I_z * r_d
    return np.stack(np.broadcast_arrays(tau_r, tau_u, tau_v, tau_w), axis=-1)
