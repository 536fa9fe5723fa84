r"""Example constrained systems with induced connections (seed 000 §V, §VI-C1).

- :func:`particle_on_sphere`, :func:`particle_on_torus`: a point mass on a surface embedded in
  :math:`\mathbb R^3`, in angular coordinates, with the connection induced by the Euclidean
  one (optionally shifted by a contorsion :math:`K`, e.g. :math:`\beta(v\times)`);
- :func:`planar_serial_chain`: an open planar chain of revolute/prismatic joints in joint
  coordinates, with its closed-form mass matrix (and exact Christoffel symbols);
- :func:`four_bar_linkage`: a planar four-bar as a spanning tree of three revolute joints
  closed by one loop constraint (optionally on a mobile P–R base), a
  :class:`~geomech.geometry.closed_chain.ClosedChain`.
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array, check_spd
from geomech.errors import DimensionError, InertiaError, ModelError
from geomech.geometry.closed_chain import ClosedChain
from geomech.geometry.contorsion import Contorsion
from geomech.geometry.examples import point_mass
from geomech.geometry.induced import InducedConnection
from geomech.geometry.levi_civita import LeviCivitaConnection
from geomech.geometry.system import MechanicalSystem
from geomech.lie import Euclidean

__all__ = [
    "particle_on_sphere",
    "particle_on_torus",
    "planar_serial_chain",
    "four_bar_closure",
    "four_bar_linkage",
]

#: Imaginary step of the complex-step derivative (exact to rounding for analytic functions).
COMPLEX_STEP = 1e-20


def _positive(x, name: str) -> float:
    x = float(as_array(x, name))
    if not x > 0:
        raise DimensionError(f"Expected `{name}` to be positive, got {x:.3g}.")
    return x


def _ambient_point_mass(mass, contorsion) -> LeviCivitaConnection:
    connection = LeviCivitaConnection(point_mass(mass))
    if contorsion is None:
        return connection
    if not isinstance(contorsion, Contorsion):
        contorsion = Contorsion(contorsion)
    return connection + contorsion


# ----------------------------------------------------------------------------------------
# surfaces
# ----------------------------------------------------------------------------------------
def particle_on_sphere(radius=1.0, mass=1.0, contorsion=None) -> InducedConnection:
    r"""A point mass on a sphere, spherical coordinates :math:`\bar q = (\theta, \phi)`.

    .. math::
        \varphi(\theta, \phi) = r (\sin\theta\cos\phi, \sin\theta\sin\phi, \cos\theta),
        \qquad \bar H = m r^2 \,\mathrm{diag}(1, \sin^2\theta)

    The ambient connection is the Euclidean (Levi-Civita) connection of the point mass in
    Cartesian coordinates, plus ``contorsion`` if given; the Jacobian ``A`` of the embedding
    is supplied in closed form and :math:`\mathscr L_{\bar X_k} A` is computed along the
    coordinate flow. The chart is singular at the poles :math:`\sin\theta = 0` (``A`` is
    rank deficient there).

    Parameters
    ----------
    radius : float
        :math:`r > 0`.
    mass : float
        :math:`m > 0`.
    contorsion : Contorsion or array_like, shape (3, 3, 3), optional
        Tensor :math:`K` added to the ambient connection (:math:`\Gamma = K`), e.g.
        ``Contorsion.totally_antisymmetric([beta])`` for :math:`C = \beta (v\times)`.

    Returns
    -------
    InducedConnection
        On ``Euclidean(2)`` with the coordinate frame.

    Raises
    ------
    DimensionError
        If ``radius`` is not positive.
    InertiaError
        If ``mass`` is not positive.

    References
    ----------
    seed 000 §III (a particle on a frictionless surface traces a geodesic, Fig. 2), §V.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples_induced import particle_on_sphere
    >>> sphere = particle_on_sphere(radius=2.0)
    >>> np.round(sphere.system.mass_matrix([np.pi / 2, 0.0]), 12)
    array([[4., 0.],
           [0., 4.]])
    """
    r = _positive(radius, "radius")
    ambient = _ambient_point_mass(mass, contorsion)

    def embedding(q):
        th, ph = q[..., 0], q[..., 1]
        return r * np.stack([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)], -1)

    def jacobian(q):
        th, ph = q[..., 0], q[..., 1]
        d_th = np.stack([np.cos(th) * np.cos(ph), np.cos(th) * np.sin(ph), -np.sin(th)], -1)
        d_ph = np.stack([-np.sin(th) * np.sin(ph), np.sin(th) * np.cos(ph), np.zeros_like(th)], -1)
        return r * np.stack([d_th, d_ph], -1)

    return InducedConnection(ambient, A=jacobian, embedding=embedding, manifold=Euclidean(2))


def particle_on_torus(
    major_radius=2.0, minor_radius=1.0, mass=1.0, contorsion=None
) -> InducedConnection:
    r"""A point mass on a torus of revolution, angles :math:`\bar q = (\theta, \phi)`.

    :math:`\theta` goes around the tube, :math:`\phi` around the axis of revolution ``z``:

    .. math::
        \varphi(\theta, \phi) = \big((R + r\cos\theta)\cos\phi, (R + r\cos\theta)\sin\phi,
        r\sin\theta\big), \qquad \bar H = m\,\mathrm{diag}\big(r^2, (R + r\cos\theta)^2\big)

    The chart is global (no singular points for :math:`R > r`).

    Parameters
    ----------
    major_radius : float
        :math:`R`, distance from the axis to the centre of the tube.
    minor_radius : float
        :math:`r`, radius of the tube, :math:`0 < r < R`.
    mass : float
        :math:`m > 0`.
    contorsion : Contorsion or array_like, shape (3, 3, 3), optional
        Tensor added to the ambient Euclidean connection.

    Returns
    -------
    InducedConnection
        On ``Euclidean(2)`` with the coordinate frame.

    Raises
    ------
    DimensionError
        If the radii are not positive or ``minor_radius >= major_radius``.
    InertiaError
        If ``mass`` is not positive.

    References
    ----------
    seed 000 §V.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples_induced import particle_on_torus
    >>> torus = particle_on_torus(2.0, 1.0)
    >>> np.round(torus.system.mass_matrix([0.0, 0.0]), 12)  # outer equator: R + r = 3
    array([[1., 0.],
           [0., 9.]])
    """
    R = _positive(major_radius, "major_radius")
    r = _positive(minor_radius, "minor_radius")
    if not r < R:
        raise DimensionError(
            f"Expected `minor_radius` < `major_radius` (an embedded torus), got {r:.3g} >= {R:.3g}."
        )
    ambient = _ambient_point_mass(mass, contorsion)

    def embedding(q):
        th, ph = q[..., 0], q[..., 1]
        rho = R + r * np.cos(th)
        return np.stack([rho * np.cos(ph), rho * np.sin(ph), r * np.sin(th)], -1)

    def jacobian(q):
        th, ph = q[..., 0], q[..., 1]
        rho = R + r * np.cos(th)
        d_th = np.stack(
            [-r * np.sin(th) * np.cos(ph), -r * np.sin(th) * np.sin(ph), r * np.cos(th)], -1
        )
        d_ph = np.stack([-rho * np.sin(ph), rho * np.cos(ph), np.zeros_like(th)], -1)
        return np.stack([d_th, d_ph], -1)

    return InducedConnection(ambient, A=jacobian, embedding=embedding, manifold=Euclidean(2))


# ----------------------------------------------------------------------------------------
# planar serial chains
# ----------------------------------------------------------------------------------------
def _rotate(theta, x):
    """R(theta) x for planar vectors x (..., 2) (complex theta allowed)."""
    c, s = np.cos(theta), np.sin(theta)
    return np.stack([c * x[..., 0] - s * x[..., 1], s * x[..., 0] + c * x[..., 1]], -1)


def _perp(x):
    """e_z x: rotation by +90 degrees."""
    return np.stack([-x[..., 1], x[..., 0]], -1)


class _PlanarChain:
    """Kinematics and closed-form mass matrix of a planar serial chain (complex-safe)."""

    def __init__(self, types, offsets, axes, masses, coms, inertias, gravity):
        self.types, self.offsets, self.axes = types, offsets, axes
        self.masses, self.coms, self.inertias, self.gravity = masses, coms, inertias, gravity
        self.n = len(types)

    def kinematics(self, q):
        """Absolute angles, joint origins, joint directions and CoM positions of every body."""
        batch, dtype = q.shape[:-1], q.dtype
        theta = np.zeros(batch, dtype=dtype)
        o = np.zeros(batch + (2,), dtype=dtype)
        thetas, origins, dirs, coms = [], [], [], []
        for k in range(self.n):
            # joint k sits at offsets[k] in the parent body (world for k = 0)
            if self.types[k] == "R":
                o = o + _rotate(theta, np.broadcast_to(self.offsets[k], batch + (2,)))
                dirs.append(None)
                theta = theta + q[..., k]
            else:  # prismatic along axes[k] of the parent body
                u = _rotate(theta, np.broadcast_to(self.axes[k], batch + (2,)))
                o = (
                    o
                    + _rotate(theta, np.broadcast_to(self.offsets[k], batch + (2,)))
                    + q[..., k, None] * u
                )
                dirs.append(u)
            thetas.append(theta)
            origins.append(o)
            coms.append(o + _rotate(theta, np.broadcast_to(self.coms[k], batch + (2,))))
        return thetas, origins, dirs, coms

    def mass_matrix(self, q):
        """H = sum_k m_k J_k^T J_k + I_k j_k j_k^T (J_k: CoM Jacobian, j_k: angular)."""
        n = self.n
        _thetas, origins, dirs, coms = self.kinematics(q)
        batch = q.shape[:-1]
        H = np.zeros(batch + (n, n), dtype=q.dtype)
        for k in range(n):
            cols, jw = [], np.zeros(n)
            for l in range(n):
                if l > k:
                    cols.append(np.zeros(batch + (2,), dtype=q.dtype))
                elif self.types[l] == "R":
                    cols.append(_perp(coms[k] - origins[l]))  # e_z x (p_k - o_l)
                    jw[l] = 1.0
                else:
                    cols.append(dirs[l])
            J = np.stack(cols, -1)  # (..., 2, n)
            H = (
                H
                + self.masses[k] * np.swapaxes(J, -1, -2) @ J
                + self.inertias[k] * np.outer(jw, jw)
            )
        return H

    def complex_step_dH(self, q):
        """dH[..., k, i, j] = dH_ij / dq_k, exact to rounding (complex step)."""
        n = self.n
        qc = q[..., None, :] + 1j * COMPLEX_STEP * np.eye(n)  # (..., k, n)
        return self.mass_matrix(qc).imag / COMPLEX_STEP

    def potential(self, q):
        _t, _o, _d, coms = self.kinematics(q)
        return self.gravity * sum(m * p[..., 1] for m, p in zip(self.masses, coms, strict=True))

    def complex_step_gravity(self, q):
        """g[..., k] = dV / dq_k, exact to rounding (complex step)."""
        qc = q[..., None, :] + 1j * COMPLEX_STEP * np.eye(self.n)  # (..., k, n)
        return self.potential(qc).imag / COMPLEX_STEP


class _PlanarChainSystem(MechanicalSystem):
    """Mechanical system of a planar chain with exact Lie derivatives of H (complex step)."""

    def __init__(self, chain: _PlanarChain):
        self._chain = chain
        super().__init__(Euclidean(chain.n), chain.mass_matrix, potential=chain.potential)

    def _dH(self, q):
        return self._chain.complex_step_dH(np.asarray(q, dtype=float))

    def gravity_forces(self, q):
        r"""Generalized gravity forces :math:`g_k = \partial V/\partial q^k`,
        exact (complex step).
        """
        return self._chain.complex_step_gravity(self._point(q))


def planar_serial_chain(
    joint_types, offsets, masses, coms, inertias, axes=None, gravity=9.81
) -> MechanicalSystem:
    r"""An open planar chain of revolute (``"R"``) and prismatic (``"P"``) joints.

    Body ``k`` hangs from joint ``k``, located at ``offsets[k]`` in the frame of body
    ``k - 1`` (the world for ``k = 0``); a revolute joint rotates body ``k`` by
    :math:`q_k` about ``z``, a prismatic joint translates it by :math:`q_k` along
    ``axes[k]`` (in the parent frame). With the centre-of-mass Jacobians :math:`J_k` and
    angular Jacobians :math:`j_k` (ones on the revolute joints up to ``k``),

    .. math::
        H(q) = \sum_k m_k J_k^\top J_k + I_k\, j_k j_k^\top,
        \qquad V(q) = g \sum_k m_k\, y_k(q)

    (gravity along :math:`-y`). The Lie derivatives :math:`\partial H / \partial q^k` and the
    gravity forces :math:`\partial V/\partial q^k` are exact to rounding (complex-step
    differentiation of the closed forms), so
    ``LeviCivitaConnection(system)`` has the exact Christoffel symbols (eq. 5).

    Parameters
    ----------
    joint_types : str or sequence of str
        E.g. ``"RRR"`` or ``"PRRRR"``.
    offsets : array_like, shape (n, 2)
        Joint locations in the parent frames.
    masses : array_like, shape (n,)
        Body masses (``>= 0``; zero for massless carriages).
    coms : array_like, shape (n, 2)
        Centres of mass in the body frames.
    inertias : array_like, shape (n,)
        Rotational inertias about the centres of mass (``>= 0``).
    axes : array_like, shape (n, 2), optional
        Prismatic axes (unit vectors) in the parent frames; default ``(1, 0)``.
    gravity : float
        Magnitude of gravity along :math:`-y` (``0`` for none).

    Returns
    -------
    MechanicalSystem
        On ``Euclidean(n)`` with the coordinate frame and the potential ``V``.

    Raises
    ------
    DimensionError
        If a joint type is not ``"R"``/``"P"`` or an array has the wrong shape.
    InertiaError
        If a mass or inertia is negative or :math:`H(0)` is not positive definite.

    Examples
    --------
    The two-link arm of Spong et al. (links of unit length and mass, centres of mass at the
    middle, inertias 0.1) at :math:`q = (0, \pi/2)`:

    >>> import numpy as np
    >>> from geomech.geometry.examples_induced import planar_serial_chain
    >>> arm = planar_serial_chain("RR", [[0, 0], [1, 0]], [1, 1], [[0.5, 0], [0.5, 0]],
    ...                           [0.1, 0.1])
    >>> np.round(arm.mass_matrix([0.0, np.pi / 2]), 12)
    array([[1.7 , 0.35],
           [0.35, 0.35]])
    """
    types = list(joint_types)
    n = len(types)
    if n == 0 or any(t not in ("R", "P") for t in types):
        raise DimensionError(
            f"Expected `joint_types` to be a non-empty sequence of 'R'/'P', got {joint_types!r}."
        )
    offsets = as_array(offsets, "offsets", (2,))
    coms = as_array(coms, "coms", (2,))
    masses = as_array(masses, "masses")
    inertias = as_array(inertias, "inertias")
    axes = np.tile([1.0, 0.0], (n, 1)) if axes is None else as_array(axes, "axes", (2,))
    for arr, name, shape in (
        (offsets, "offsets", (n, 2)),
        (coms, "coms", (n, 2)),
        (masses, "masses", (n,)),
        (inertias, "inertias", (n,)),
        (axes, "axes", (n, 2)),
    ):
        if arr.shape != shape:
            raise DimensionError(f"Expected `{name}` to have shape {shape}, got {arr.shape}.")
    for arr, name in ((masses, "masses"), (inertias, "inertias")):
        if np.any(arr < 0):
            raise InertiaError(f"Expected `{name}` to be non-negative, got {arr.tolist()}.")
    chain = _PlanarChain(types, offsets, axes, masses, coms, inertias, float(gravity))
    check_spd(chain.mass_matrix(np.zeros(n)), "mass_matrix(0)")
    return _PlanarChainSystem(chain)


# ----------------------------------------------------------------------------------------
# the four-bar linkage
# ----------------------------------------------------------------------------------------
def four_bar_closure(alpha, ground, crank, coupler, rocker) -> np.ndarray:
    r"""Closed-form position analysis of a four-bar: the relative angles at crank angle ``alpha``.

    The coupler's far end :math:`C` is the intersection ('elbow up', to the left of the line
    from the crank tip :math:`B` to the ground pivot :math:`P = (d, 0)`) of the circles of
    radii :math:`l_2` about :math:`B` and :math:`l_3` about :math:`P`.

    Parameters
    ----------
    alpha : float
        Crank angle :math:`q_1`.
    ground, crank, coupler, rocker : float
        Link lengths :math:`d, l_1, l_2, l_3`.

    Returns
    -------
    ndarray, shape (3,)
        :math:`(q_1, q_2, q_3)`, relative joint angles.

    Raises
    ------
    ModelError
        If the linkage does not close at ``alpha``.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples_induced import four_bar_closure
    >>> np.round(four_bar_closure(np.pi / 2, 1.0, 1.0, 1.0, 1.0), 12) + 0.0  # a square
    array([ 1.57079633, -1.57079633, -1.57079633])
    """
    B = crank * np.array([np.cos(alpha), np.sin(alpha)])
    P = np.array([ground, 0.0])
    d = P - B
    dist = float(np.hypot(*d))
    a = (coupler**2 - rocker**2 + dist**2) / (2.0 * dist)
    h2 = coupler**2 - a**2
    if not h2 > 0:
        raise ModelError(
            f"Expected the four-bar to close at crank angle {alpha:.3g}, got no assembly "
            f"(links {ground}, {crank}, {coupler}, {rocker})."
        )
    Cp = B + a * d / dist + np.sqrt(h2) * _perp(d) / dist
    th2 = np.arctan2(*(Cp - B)[::-1])
    th3 = np.arctan2(*(P - Cp)[::-1])
    return np.array([alpha, th2 - alpha, th3 - th2])


def four_bar_linkage(
    ground=2.0,
    crank=0.8,
    coupler=2.2,
    rocker=1.8,
    masses=(1.0, 1.5, 1.2),
    *,
    mobile_base=False,
    base_mass=3.0,
    base_inertia=0.5,
    gravity=9.81,
    crank_angle=0.3,
) -> ClosedChain:
    r"""A planar four-bar linkage: three revolute joints and one loop constraint.

    The spanning tree is the serial chain crank–coupler–rocker with relative joint angles
    :math:`(q_1, q_2, q_3)` (crank pivot at the origin, uniform slender links:
    :math:`I = m l^2 / 12`, centre of mass at the middle). The cut joint pins the rocker's
    tip to the ground pivot :math:`(d, 0)`:

    .. math::
        \phi(q) = l_1 e(q_1) + l_2 e(q_1 + q_2) + l_3 e(q_1 + q_2 + q_3) - (d, 0) = 0,
        \qquad e(\alpha) = (\cos\alpha, \sin\alpha),

    leaving the crank angle :math:`q_1` as the independent coordinate. The default
    dimensions are a Grashof crank–rocker (the crank turns fully, no singular configuration).
    With ``mobile_base=True`` the ground link is a body on a prismatic (``x``) and a revolute
    joint, and the tree has coordinates :math:`(x, \psi, q_1, q_2, q_3)` with
    :math:`(x, \psi, q_1)` independent (3 minimal degrees of freedom, as in seed 000
    §VI-C1); the loop closes in the base frame.

    The spanning-tree connection is the exact Levi-Civita connection of
    :func:`planar_serial_chain`; the constraint Jacobian and Hessian are in closed form.

    Parameters
    ----------
    ground, crank, coupler, rocker : float
        Link lengths :math:`d, l_1, l_2, l_3`.
    masses : array_like, shape (3,)
        Masses of crank, coupler and rocker.
    mobile_base : bool
        Put the ground link on a P–R base.
    base_mass, base_inertia : float
        Mass and inertia (about the base joint) of the mobile base.
    gravity : float
        Gravity along :math:`-y`.
    crank_angle : float
        Crank angle of the reference configuration (closed 'elbow up').

    Returns
    -------
    ClosedChain

    Raises
    ------
    DimensionError
        If a length is not positive.
    InertiaError
        If a mass is not positive.
    ModelError
        If the linkage cannot be assembled at ``crank_angle``.

    References
    ----------
    seed 000 §VI-C1 (spanning-tree method).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.geometry.examples_induced import four_bar_linkage
    >>> fb = four_bar_linkage()
    >>> q = fb.frame.reference
    >>> C = fb.coriolis_matrix(q, [1.0])
    >>> H_dot = fb.system.mass_matrix_derivative(q, [1.0])
    >>> bool(np.allclose(H_dot, C + C.T))  # skew: 1-DoF, C = H_dot / 2
    True
    """
    d, l1, l2, l3 = (
        _positive(x, name)
        for x, name in (
            (ground, "ground"),
            (crank, "crank"),
            (coupler, "coupler"),
            (rocker, "rocker"),
        )
    )
    masses = as_array(masses, "masses", (3,))
    if masses.shape != (3,):
        raise DimensionError(f"Expected `masses` to have shape (3,), got {masses.shape}.")
    if np.any(masses <= 0):
        raise InertiaError(f"Expected `masses` to be positive, got {masses.tolist()}.")
    L = np.array([l1, l2, l3])
    offsets = [[0.0, 0.0], [l1, 0.0], [l2, 0.0]]
    coms = [[l / 2.0, 0.0] for l in L]
    inertias = masses * L**2 / 12.0
    types, base = "RRR", 0
    axes = None
    if mobile_base:
        types, base = "PRRRR", 2
        offsets = [[0.0, 0.0], [0.0, 0.0]] + offsets
        coms = [[0.0, 0.0], [0.0, 0.0]] + coms
        masses = np.concatenate([[0.0, float(base_mass)], masses])
        inertias = np.concatenate([[0.0, float(base_inertia)], inertias])
        axes = [[1.0, 0.0]] * 5
    tree_system = planar_serial_chain(types, offsets, masses, coms, inertias, axes, gravity)
    n = len(types)
    ground_pivot = np.array([d, 0.0])

    def angles(q):
        return np.cumsum(q[..., base:], axis=-1)  # absolute link angles (base frame)

    def constraint(q):
        th = angles(q)
        tip = np.stack([(L * np.cos(th)).sum(-1), (L * np.sin(th)).sum(-1)], -1)
        return tip - ground_pivot

    def constraint_jacobian(q):
        th = angles(q)
        # d tip / d q_j = sum_{k >= j} L_k e_perp(theta_k)
        dx = -np.cumsum((L * np.sin(th))[..., ::-1], -1)[..., ::-1]
        dy = np.cumsum((L * np.cos(th))[..., ::-1], -1)[..., ::-1]
        K = np.zeros(q.shape[:-1] + (2, n))
        K[..., 0, base:], K[..., 1, base:] = dx, dy
        return K

    def constraint_hessian(q):
        th = angles(q)
        # d^2 tip / dq_j dq_l = -sum_{k >= max(j, l)} L_k e(theta_k)
        cx = np.cumsum((L * np.cos(th))[..., ::-1], -1)[..., ::-1]
        cy = np.cumsum((L * np.sin(th))[..., ::-1], -1)[..., ::-1]
        jl = np.maximum.outer(np.arange(3), np.arange(3))
        Hs = np.zeros(q.shape[:-1] + (2, n, n))
        Hs[..., 0, base:, base:] = -cx[..., jl]
        Hs[..., 1, base:, base:] = -cy[..., jl]
        return Hs

    reference = np.zeros(n)
    reference[base:] = four_bar_closure(float(crank_angle), d, l1, l2, l3)
    independent = list(range(base + 1))
    return ClosedChain(
        LeviCivitaConnection(tree_system),
        constraint,
        independent,
        constraint_jacobian=constraint_jacobian,
        constraint_hessian=constraint_hessian,
        reference=reference,
    )
