"""
Induced connections
===================

A constrained system lives on a submanifold :math:`\\bar{\\mathcal Q}` of a bigger
configuration manifold :math:`\\mathcal Q`, with speeds related by :math:`v = A \\bar v`. It
inherits the metric :math:`\\bar H = A^\\top H A` and, by projecting covariant derivatives back
onto :math:`T\\bar{\\mathcal Q}`, a connection whose Coriolis matrix is given by the
transformation law

.. math:: \\bar C = A^\\top C A + A^\\top H \\dot A .

This tutorial follows Section V (and VI-C1) of seed 000: P. M. Wensing, J. Englsberger and
J.-J. E. Slotine, *Coriolis Factorizations and their Connections to Riemannian Geometry*
(arXiv 2312.14425). It shows, with :mod:`geomech.geometry`:

1. a particle on a sphere and on a torus embedded in :math:`\\mathbb R^3`: the connection
   induced by the Euclidean one is the Levi-Civita connection of the surface (Prop. V.3), and
   its geodesics (drawn on the surfaces) are great circles on the sphere;
2. what happens to torsion: a totally antisymmetric contorsion of :math:`\\mathbb R^3` dies on
   a surface, while a merely metric-compatible one survives and makes parallel-transported
   frames spin;
3. a planar four-bar linkage as a closed chain by projection from its spanning tree: the induced
   :math:`\\bar C^\\star` is skew-symmetric and gives the constrained dynamics, and on a four-bar
   with more than one degree of freedom a twisted tree connection induces a twisted one.
"""

# %%
# A particle on a sphere
# ----------------------
# :func:`~geomech.geometry.examples_induced.particle_on_sphere` embeds spherical coordinates
# :math:`(\theta, \phi)` into :math:`\mathbb R^3` and induces the Euclidean connection of a
# point mass. The induced coefficients are the Christoffel symbols of the round metric
# :math:`m r^2 (d\theta^2 + \sin^2\theta\, d\phi^2)`.
import matplotlib.pyplot as plt
import numpy as np

from geomech.geometry import Contorsion
from geomech.geometry.examples_induced import (
    four_bar_linkage,
    particle_on_sphere,
    particle_on_torus,
)
from geomech.plot import show_or_save

m, r = 1.0, 1.0  # kg, m
sphere = particle_on_sphere(radius=r, mass=m)
q = np.array([0.8, 0.3])  # (theta, phi) in rad
G = sphere.christoffel_first_kind(q)
print("H_bar =\n", np.round(sphere.system.mass_matrix(q), 12))
print("Gamma_theta,phi,phi =", G[0, 1, 1], " expected", -m * r**2 * np.sin(q[0]) * np.cos(q[0]))
print("Gamma_phi,theta,phi =", G[1, 0, 1], " expected", m * r**2 * np.sin(q[0]) * np.cos(q[0]))
print(
    "Levi-Civita of (S^2, H_bar)?  metric compatible:",
    bool(sphere.is_metric_compatible(q)),
    " torsion free:",
    bool(sphere.is_torsion_free(q)),
)

# %%
# Geodesics on the sphere are great circles
# -----------------------------------------
# Geodesics of the induced connection are integrated in the coordinates :math:`(\theta, \phi)`
# (five of them at once: every method is batched) and mapped to :math:`\mathbb R^3` by the
# embedding. Each stays in a plane through the centre. The integrator keeps a dense
# interpolant, :meth:`~geomech.geometry.Trajectory.state`, used here to draw smooth curves.
directions = np.linspace(0.2, 1.3, 5)  # heading angles from the equator, rad
q0 = np.tile([np.pi / 2, 0.0], (5, 1))
v0 = np.stack([-np.sin(directions), np.cos(directions)], -1)  # unit speed
geodesics = sphere.geodesic(q0, v0, [0.0, 2 * np.pi])


def sample(traj, times):
    """Configurations of a (batched) trajectory at many times, from its dense output."""
    return np.stack([traj.state(s)[0] for s in times], -2)


paths = sphere.ambient_point(sample(geodesics, np.linspace(0.0, 2 * np.pi, 121)))  # (5, 121, 3)
x0 = sphere.ambient_point(q0)
xdot0 = np.einsum("bij,bj->bi", sphere.velocity_map(q0), v0)
normals = np.cross(x0, xdot0)
print(
    "max distance from the great-circle planes:",
    np.abs(np.einsum("bti,bi->bt", paths, normals)).max(),
)


def draw_surface(ax, X, Y, Z):
    ax.plot_wireframe(X, Y, Z, color="0.8", linewidth=0.4, rstride=3, cstride=3)
    ax.set_box_aspect((np.ptp(X), np.ptp(Y), np.ptp(Z)))
    ax.set(xlabel=r"$x$ (m)", ylabel=r"$y$ (m)", zlabel=r"$z$ (m)")


th, ph = np.meshgrid(np.linspace(0, np.pi, 31), np.linspace(0, 2 * np.pi, 61))
fig = plt.figure(figsize=(5, 5))
ax = fig.add_subplot(1, 1, 1, projection="3d")
draw_surface(ax, *np.moveaxis(sphere.ambient_point(np.stack([th, ph], -1)), -1, 0))
for path in paths:
    ax.plot(*path.T, linewidth=2)
ax.set_title("geodesics on the sphere")

# %%
# Geodesics on a torus
# --------------------
# On a torus of revolution the angle :math:`\phi` about the axis is cyclic, so the Clairaut
# momentum :math:`(R + r\cos\theta)^2 \dot\phi` is conserved along geodesics, as is the energy.
torus = particle_on_torus(major_radius=2.0, minor_radius=0.8)
q0 = np.array([[0.0, 0.0], [0.0, 0.0], [1.5, 0.0]])
v0 = np.array([[1.0, 0.2], [0.6, 0.45], [0.3, 0.3]])
traj = torus.geodesic(q0, v0, np.linspace(0.0, 25.0, 6))
rho = 2.0 + 0.8 * np.cos(traj.q[..., 0])
clairaut = rho**2 * traj.v[..., 1]
energy = torus.system.kinetic_energy(traj.q, traj.v)
print(
    "relative drift of the Clairaut momentum:",
    np.abs(clairaut / clairaut[:, :1] - 1).max(),
    " of the energy:",
    np.abs(energy / energy[:, :1] - 1).max(),
)
fig = plt.figure(figsize=(6, 5))
ax = fig.add_subplot(1, 1, 1, projection="3d")
th, ph = np.meshgrid(np.linspace(0, 2 * np.pi, 31), np.linspace(0, 2 * np.pi, 61))
draw_surface(ax, *np.moveaxis(torus.ambient_point(np.stack([th, ph], -1)), -1, 0))
for path in torus.ambient_point(sample(traj, np.linspace(0.0, 25.0, 501))):
    ax.plot(*path.T, linewidth=1.5)
ax.view_init(elev=40, azim=30)
ax.set_title("geodesics on the torus")
fig.tight_layout()

# %%
# Torsion does not always survive
# -------------------------------
# On :math:`\mathbb R^3` the factorization :math:`C = \beta (v\times)` is skew-symmetric and
# correct: its contorsion is a totally antisymmetric 3-form. Contorsions transform as tensors,
# :math:`\bar D_{ijk} = A^a_i A^b_j A^c_k D_{abc}`, and a 3-form restricted to a 2-D surface
# is zero: the sphere inherits exactly the Levi-Civita connection (only one admissible
# factorization exists for two degrees of freedom, Cor. III.2).
beta = 5.0
twisted = particle_on_sphere(r, m, Contorsion.totally_antisymmetric([beta]))
print("|Gamma_bar(beta) - Gamma_bar(0)| =", np.abs(twisted.christoffel_first_kind(q) - G).max())

# %%
# A contorsion that is only antisymmetric in its first and third indices (metric compatible,
# but with other geodesics) does survive: here :math:`K_{ijk} = \epsilon_{ik\ell}
# M_{\ell j}` with :math:`M` a quarter turn about ``z``. The induced connection is still
# metric compatible, so parallel transport keeps lengths, but it has torsion. Transported
# along the equator (a great circle), a vector keeps a constant angle with the velocity under
# the Levi-Civita connection and turns steadily under the twisted one.
eps = np.zeros((3, 3, 3))
eps[0, 1, 2] = eps[1, 2, 0] = eps[2, 0, 1] = 1.0
eps[0, 2, 1] = eps[2, 1, 0] = eps[1, 0, 2] = -1.0
M = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
K = 0.25 * np.einsum("ikl,lj->ijk", eps, M)  # antisymmetric in (1, 3)
spinning = particle_on_sphere(r, m, K)
q0, v0 = np.array([np.pi / 2, 0.0]), np.array([0.0, 1.0])  # along the equator
equator = sphere.geodesic(q0, v0, [0.0, 2 * np.pi])
t = np.linspace(0.0, 2 * np.pi, 41)
fig, ax = plt.subplots(figsize=(6, 3))
for name, conn in [("Levi-Civita", sphere), ("with torsion", spinning)]:
    w = conn.parallel_transport(equator, [1.0, 0.0], t)  # e_theta (south) at the start
    qs = sample(equator, t)
    vs = np.stack([equator.state(s)[1] for s in t])
    Hq = sphere.system.mass_matrix(qs)
    norm_w = np.sqrt(np.einsum("ti,tij,tj->t", w, Hq, w))
    cos_angle = (
        np.einsum("ti,tij,tj->t", w, Hq, vs)
        / norm_w
        / np.sqrt(np.einsum("ti,tij,tj->t", vs, Hq, vs))
    )
    ax.plot(t, np.degrees(np.arccos(np.clip(cos_angle, -1, 1))), label=name)
    print(
        f"{name:>12}: torsion free {bool(conn.is_torsion_free(q0))}, metric compatible "
        f"{bool(conn.is_metric_compatible(q0))}, |w| drift {np.ptp(norm_w):.1e}"
    )
ax.set_xlabel(r"$t$ (s)")
ax.set_ylabel(r"angle between $w$ and $\dot q$ (deg)")
ax.set_title("parallel transport along the equator")
ax.legend()
fig.tight_layout()

# %%
# A four-bar linkage by projection
# --------------------------------
# :func:`~geomech.geometry.examples_induced.four_bar_linkage` builds the spanning tree
# crank–coupler–rocker (three revolute joints, exact :math:`C^\star` of the open chain) and
# the loop constraint pinning the rocker's tip to the ground pivot. The crank angle is the
# independent coordinate and :math:`A(q)` spans the null space of the constraint Jacobian.
# The result is a :class:`~geomech.geometry.ClosedChain`: its connection is an
# :class:`~geomech.geometry.InducedConnection` on the loop-closure manifold.
fb = four_bar_linkage()
alphas = np.linspace(-np.pi, np.pi, 73)
qs = fb.frame.flow(fb.frame.reference, [1.0], alphas - fb.frame.reference[0])  # closed loop
print(fb)
print("max |phi(q)| along the crank circle:", np.abs(fb.constraint(qs)).max())

# %%
# The induced :math:`\bar C^\star` is skew-symmetric: :math:`\dot{\bar H} = 2\bar C` for one
# degree of freedom, with :math:`\dot{\bar H}` by central differences along the loop. And it is
# correct: the acceleration :math:`-\bar H^{-1}\bar C\bar v^2` of the free mechanism equals the
# crank acceleration of the spanning tree held together by Lagrange multipliers,
# :math:`H\ddot q + C^\star\dot q = K^\top\lambda`, :math:`K\ddot q + \dot K\dot q = 0`.
H_bar = fb.mass_matrix(qs)[:, 0, 0]
C_bar = fb.coriolis_matrix(qs, np.ones((73, 1)))[:, 0, 0]
h = 1e-6
H_dot = (
    fb.mass_matrix(fb.frame.flow(qs, [1.0], h)) - fb.mass_matrix(fb.frame.flow(qs, [-1.0], h))
)[:, 0, 0] / (2 * h)
print("max |H_bar_dot - 2 C_bar|:", np.abs(H_dot - 2 * C_bar).max())

errors = []
for q in qs[::6]:
    qd = fb.velocity_map(q)[:, 0]  # unit crank speed
    H, C = fb.tree.system.mass_matrix(q), fb.tree.coriolis_matrix(q, qd)
    Kq = fb.constraint_jacobian(q)
    Kdot = (fb.constraint_jacobian(q + h * qd) - fb.constraint_jacobian(q - h * qd)) / (2 * h)
    lhs = np.block([[H, -Kq.T], [Kq, np.zeros((2, 2))]])
    qdd = np.linalg.solve(lhs, np.concatenate([-C @ qd, -Kdot @ qd]))[:3]
    errors.append(qdd[0] + fb.coriolis_matrix(q, [1.0])[0, 0] / fb.mass_matrix(q)[0, 0])
print("max |crank acceleration (multipliers) - (projection)|:", np.abs(errors).max())

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.5))
links = np.array([0.8, 2.2, 1.8])  # crank, coupler, rocker lengths, m
for q in qs[::12]:
    th = np.cumsum(q)  # absolute link angles
    tips = np.cumsum(links[:, None] * np.stack([np.cos(th), np.sin(th)], -1), 0)
    joints = np.vstack([[0.0, 0.0], tips])
    ax1.plot(joints[:, 0], joints[:, 1], "-o", markersize=3)
ax1.plot([0, 2.0], [0, 0], "k-", linewidth=3)
ax1.set_aspect("equal")
ax1.set_title("four-bar configurations")
ax1.set_xlabel(r"$x$ (m)")
ax1.set_ylabel(r"$y$ (m)")
ax2.plot(alphas, H_bar, label=r"$\bar H$")
ax2.plot(alphas, C_bar, label=r"$\bar C(\bar v = 1)$")
ax2.plot(alphas, H_dot / 2, "k:", label=r"$\dot{\bar H}/2$ (differences)")
ax2.set_xlabel(r"crank angle $\alpha$ (rad)")
ax2.set_ylabel(r"kg m$^2$; kg m$^2$/s for $\bar C$")
ax2.legend()
fig.tight_layout()

# %%
# Torsion on closed chains
# ------------------------
# Adding a totally antisymmetric contorsion :math:`\beta\epsilon` to the tree's connection
# gives another skew-symmetric, correct tree factorization with torsion. Inducing it onto the
# one-degree-of-freedom four-bar gives back :math:`\bar C^\star`: on a 1-D manifold every
# connection is torsion free and the admissible factorization is unique.
twisted_fb = fb.with_connection(fb.tree + Contorsion.totally_antisymmetric([2.0]))
q = fb.frame.reference
print(
    "fixed base: C_bar(twisted) - C_bar* =",
    twisted_fb.coriolis_matrix(q, [1.0]) - fb.coriolis_matrix(q, [1.0]),
)

# %%
# With three minimal degrees of freedom (the four-bar on a mobile P–R base, as in seed 000
# §VI-C1) the induced contorsion :math:`\bar D = A\cdot A\cdot A\,D` is a non-zero 3-form: the
# induced :math:`\bar C` is still skew-symmetric and correct, but it is not :math:`\bar C^\star`
# and its connection has torsion.
mobile = four_bar_linkage(mobile_base=True)
rng = np.random.default_rng(0)
twisted_mobile = mobile.with_connection(
    mobile.tree + Contorsion.totally_antisymmetric(rng.normal(size=10))
)
q, v = mobile.frame.reference, np.array([0.3, -0.5, 1.0])
C_tw, C_star = twisted_mobile.coriolis_matrix(q, v), mobile.coriolis_matrix(q, v)
print(
    "skew (H_dot - 2C):",
    bool(twisted_mobile.connection.is_metric_compatible(q)),
    " correct (C v = C* v):",
    np.allclose(C_tw @ v, C_star @ v),
    " |C - C*| =",
    round(float(np.abs(C_tw - C_star).max()), 3),
)
print(
    "torsion free: induced from C*:",
    bool(mobile.connection.is_torsion_free(q)),
    " induced from the twisted tree:",
    bool(twisted_mobile.connection.is_torsion_free(q)),
)
show_or_save()
