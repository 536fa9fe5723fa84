r"""
A rigid body on a Lie group
===========================

This tutorial follows seed 003 (P. J. From, *An Explicit Formulation of Singularity-Free
Dynamic Equations of Mechanical Systems in Lagrangian Form — Part one: Single Rigid Bodies*).
A rigid body whose configuration space is a Lie group :math:`G` has the state
:math:`(g, v)`: the pose :math:`g` (a matrix) and the body velocity
:math:`v = (g^{-1}\dot g)^\vee` (the paper's quasi-velocities). Its Boltzmann–Hamel equations

.. math::

    M\dot v + C(v)\,v + n(g) = \tau, \qquad C(v) = \widetilde{\mathrm{ad}}_{Mv}, \qquad
    C(v)\,v = -\mathrm{ad}_v^\top M v

(Prop. 3.1 and Prop. 5.1, with the paper's errata corrected) have a constant mass matrix and
no singularity anywhere on the group; the pose is advanced with a Lie-group integrator
(RKMK4), which keeps :math:`g` exactly on the group. We show, with :mod:`geomech.rigidbody` and
:func:`geomech.simulate`:

1. a free body on SO(3) tumbling about its intermediate axis for 60 s: the energy and the
   spatial angular momentum are conserved to about 1e-11 and 1e-10, while its ZYX Euler angles
   run into gimbal lock again and again, where the classical Lagrange equations in those
   angles become singular;
2. the Duindam–Stramigioli Coriolis matrix that the paper corrects: on SO(3) it flips the
   gyroscopic term and the spatial angular momentum drifts;
3. a planar body on SE(2) thrown in a vertical plane (gravity, centre of mass off the origin);
4. a SCARA-type body on the Schönflies group X(z), falling while it spins.

Twists are angular first, :math:`[\omega; v]` (the paper writes :math:`[v; \omega]`); units
are SI.
"""

# %%
# A free body on SO(3)
# --------------------
# The body has principal inertias :math:`\mathrm{diag}(1, 2, 3)\ \mathrm{kg\,m^2}` and starts
# spinning about its
# intermediate (y) axis with a small perturbation: the Dzhanibekov effect makes it flip over
# periodically. 12 000 RKMK4 steps of 5 ms, each a few numpy calls
# in Python, take several seconds (the time is printed).
import time

import matplotlib.pyplot as plt
import numpy as np

from geomech.errors import SingularityError
from geomech.lie import SE2, SO3, Schoenflies
from geomech.plot import show_or_save
from geomech.rigidbody import (
    EulerZYX,
    RigidBody,
    UniformGravity,
    compare_with_duindam_stramigioli,
    local_forward_dynamics,
    local_mass_matrix,
)
from geomech.simulation import simulate
from geomech.spatial import spatial_inertia

body = RigidBody(SO3, np.diag([1.0, 2.0, 3.0]))  # kg m²
omega0 = np.array([0.02, 2.0, 0.02])  # rad/s, body frame
start = time.perf_counter()
res = simulate(body, np.eye(3), omega0, t_final=60.0, dt=5e-3)
print(f"{len(res.t) - 1} steps in {time.perf_counter() - start:.2f} s")

E = body.energy(res.q, res.v)
L = body.spatial_momentum(res.q, res.v)  # R M ω, conserved in the world frame
orth = np.max(np.abs(res.q @ np.swapaxes(res.q, -1, -2) - np.eye(3)))
print(f"max |R Rᵀ - I|             = {orth:.1e}")
print(f"max relative energy drift  = {np.max(np.abs(E / E[0] - 1)):.1e}")
momentum_drift = np.max(np.linalg.norm(L - L[0], axis=1)) / np.linalg.norm(L[0])
print(f"max relative momentum drift = {momentum_drift:.1e}")

# %%
# The same motion in ZYX Euler angles :math:`(\psi, \theta, \phi)`. Rotating about the body
# :math:`y` axis sweeps the pitch :math:`\theta` through :math:`\pm\pi/2` twice per turn: gimbal
# lock, where :math:`\omega = S_E(\eta)\dot\eta` has :math:`\det S_E = -\cos\theta = 0`. There
# the yaw and roll jump, and the mass matrix of the Lagrangian in Euler angles,
# :math:`\bar M = S_E^\top M S_E`, is singular, while the body's :math:`M` never changes.
chart = EulerZYX(SO3)
eta = chart.from_group(res.q, tol=0.0)
cond = np.linalg.cond(local_mass_matrix(body, chart, eta))

fig, axes = plt.subplots(3, 1, figsize=(7, 7.5), sharex=True)
axes[0].plot(res.t, eta, lw=1)
axes[0].axhline(np.pi / 2, color="k", lw=0.5, ls=":")
axes[0].axhline(-np.pi / 2, color="k", lw=0.5, ls=":")
axes[0].set_ylabel("ZYX angles (rad)")
axes[0].legend([r"yaw $\psi$", r"pitch $\theta$", r"roll $\phi$"], loc="upper right", fontsize=8)
axes[1].semilogy(res.t, cond, label=r"cond $\bar M(\eta)$ (Euler angles)")
axes[1].semilogy(
    res.t, np.full_like(res.t, np.linalg.cond(body.inertia)), label=r"cond $M$ (body velocity)"
)
axes[1].set_ylabel("condition number (-)")
axes[1].legend(fontsize=8)
axes[2].semilogy(res.t, np.abs(E / E[0] - 1) + 1e-17, label="energy")
axes[2].semilogy(
    res.t, np.linalg.norm(L - L[0], axis=1) / np.linalg.norm(L[0]) + 1e-17, label="spatial momentum"
)
axes[2].set_ylabel("relative drift (-)")
axes[2].set_xlabel(r"$t$ (s)")
axes[2].legend(fontsize=8)
fig.suptitle("Free body on SO(3): conserved quantities vs. Euler-angle singularities")
fig.tight_layout()

# %%
# The classical equations in Euler angles cannot even be evaluated at gimbal lock, and their
# accelerations grow like :math:`1/\varepsilon^2` as the pitch approaches :math:`\pi/2` for the
# *same* physical motion; the body acceleration :math:`\dot v` does not depend on the
# configuration at all.
for eps in (1e-2, 1e-4, 1e-6):
    x = np.array([0.3, np.pi / 2 - eps, 0.7])
    x_dot = chart.velocity_map_inverse(x) @ omega0
    x_ddot = local_forward_dynamics(body, chart, x, x_dot)
    v_dot = body.forward_dynamics(chart.to_group(x), omega0)
    print(
        f"pitch = π/2 - {eps:g}: |η̈| = {np.linalg.norm(x_ddot):.2e},"
        f" |v̇| = {np.linalg.norm(v_dot):.2e}"
    )
try:
    local_forward_dynamics(body, chart, [0.3, np.pi / 2, 0.7], [0.0, 1.0, 0.0])
except SingularityError as err:
    print("SingularityError:", str(err)[:90], "...")

# %%
# The Duindam–Stramigioli error
# -----------------------------
# Duindam & Stramigioli (2008) print the Coriolis matrix :math:`-\mathrm{ad}_{Mv}^\top` (seed 003
# eq. 36) instead of :math:`\widetilde{\mathrm{ad}}_{Mv}`. On SO(3) this flips the sign of the
# gyroscopic term: the energy is still conserved, but the spatial angular momentum is not
# (seed 003 §2.3). The drift printed below is for :math:`\omega_0 = (0.1, -0.2, 0.3)` over 30 s.
cmp = compare_with_duindam_stramigioli(body, np.eye(3), [0.1, -0.2, 0.3], 30.0, dt=1e-2)
drift = cmp.drift()
print({k: f"{v:.2e}" for k, v in drift.items()})
fig, ax = plt.subplots(figsize=(7, 3.2))
for i, name in enumerate("xyz"):
    ax.plot(cmp.t, cmp.momentum[:, i], color=f"C{i}", lw=1.5, label=f"{name}, corrected C")
    ax.plot(
        cmp.t,
        cmp.momentum_ds[:, i],
        color=f"C{i}",
        ls="--",
        lw=1,
        label=f"{name}, Duindam–Stramigioli",
    )
ax.set_xlabel(r"$t$ (s)")
ax.set_ylabel(r"$R M \omega$ (kg m$^2$/s)")
ax.legend(fontsize=7, ncol=3, loc="lower left")
ax.set_title("Spatial angular momentum (world frame)")
fig.tight_layout()

# %%
# A planar body on SE(2)
# ----------------------
# A stick of mass 1.5 kg, thrown in a vertical plane (the plane's y axis points up, so gravity is
# :math:`[0, -9.81, 0]\ \mathrm{m/s^2}`). Its body frame sits at one end and the centre of mass
# 0.4 m along the stick: the origin traces loops, while the centre of mass follows a parabola.
# ``from_spatial_inertia`` reduces the :math:`6\times 6` spatial inertia to
# :math:`M = H^\top I_b H` (eq. 60).
com = np.array([0.4, 0.0, 0.0])  # m, body frame
I_b = spatial_inertia(1.5, com, np.diag([0.001, 0.08, 0.08]))
stick = RigidBody.from_spatial_inertia(SE2, I_b, gravity=[0.0, -9.81, 0.0])
print("M (ω, vx, vy) =\n", np.round(stick.inertia, 4))
g0 = SE2.exp([0.0, 0.0, 0.0])
v0 = np.array([6.0, 3.0, 5.0])  # [ω; vx; vy]: spinning, thrown up and to the right
throw = simulate(stick, g0, v0, t_final=1.2, dt=1e-3)
origin = throw.q[:, :2, 2]
com_path = origin + np.einsum("tij,j->ti", throw.q[:, :2, :2], com[:2])
E = stick.energy(throw.q, throw.v)
print(f"energy drift = {np.max(np.abs(E - E[0])):.1e} J")
fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(origin[:, 0], origin[:, 1], lw=1, label="body origin")
ax.plot(com_path[:, 0], com_path[:, 1], lw=2, label="centre of mass")
for k in range(0, len(throw.t), 100):
    ax.plot(
        [origin[k, 0], com_path[k, 0] + (com_path[k, 0] - origin[k, 0])],
        [origin[k, 1], com_path[k, 1] + (com_path[k, 1] - origin[k, 1])],
        "k-",
        lw=0.8,
    )
ax.set_aspect("equal")
ax.set_xlabel("x (m)")
ax.set_ylabel("y (m)")
ax.legend()
ax.set_title("A stick thrown in a vertical plane (SE(2))")
fig.tight_layout()

# %%
# The parabola is exact: the centre of mass of a free body in uniform gravity moves with
# constant acceleration whatever the rotation, which checks gravity, the CoM offset and the
# coupling in :math:`M` at once.
c0, a = com_path[0], np.array([0.0, -9.81])
vc0 = (com_path[1] - com_path[0]) / 1e-3 - 0.5 * a * 1e-3
parabola = c0 + throw.t[:, None] * vc0 + 0.5 * throw.t[:, None] ** 2 * a
print(f"max |CoM - parabola| = {np.max(np.abs(com_path - parabola)):.1e} m")

# %%
# A body on the Schönflies group
# ------------------------------
# The Schönflies group X(z) (SCARA
# motions: translations in x, y, z and rotations about the vertical z axis) is
# :math:`\mathrm{SE}(2)\times\mathbb R`. A disc-shaped body with its centre of mass 0.2 m off the
# origin spins about z while it falls: the z-translation is central in the Lie algebra, so it
# decouples (:math:`m\dot w = \tau_w`, eq. 96) and the body falls freely, while the horizontal
# motion of the origin is an epicycle around the straight path of the centre of mass.
disc = RigidBody.from_spatial_inertia(
    Schoenflies, spatial_inertia(2.0, [0.2, 0.0, 0.0], np.diag([0.05, 0.05, 0.1]))
)
assert isinstance(disc.potential, UniformGravity)
scara = simulate(disc, np.eye(4), [10.0, 0.3, -1.7, 1.0], t_final=3.0, dt=2e-3)  # [ω_z; vx; vy; vz]
p = scara.q[:, :3, 3]
c = p + np.einsum("tij,j->ti", scara.q[:, :3, :3], [0.2, 0.0, 0.0])
E = disc.energy(scara.q, scara.v)
print(f"energy drift = {np.max(np.abs(E - E[0])):.1e} J")
print(f"z(3 s) = {p[-1, 2]:.6f} m, free fall gives {1.0 * 3.0 - 0.5 * 9.81 * 9.0:.6f} m")
fig = plt.figure(figsize=(8, 4))
ax = fig.add_subplot(1, 2, 1)
ax.plot(p[:, 0], p[:, 1], lw=1, label="origin")
ax.plot(c[:, 0], c[:, 1], lw=2, label="centre of mass")
ax.set_aspect("equal")
ax.set_xlabel("x (m)")
ax.set_ylabel("y (m)")
ax.legend(fontsize=8)
ax = fig.add_subplot(1, 2, 2)
ax.plot(scara.t, p[:, 2])
ax.set_xlabel(r"$t$ (s)")
ax.set_ylabel(r"$z$ (m)")
fig.suptitle("A spinning, falling body on the Schönflies group")
fig.tight_layout()
show_or_save()
