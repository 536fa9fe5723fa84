"""
Frames, centroidal momentum and task-space Coriolis matrices
=============================================================

A robot's *frames* are named poses fixed in its bodies: every link of its URDF (also those
welded to a parent by a ``fixed`` joint, which geomech merges into one rigid body) and any
frame a user declares on a node of the graph. This tutorial

1. lists the frames of the UR5 arm and evaluates the pose, twist, acceleration, Jacobian
   and Jacobian rate of its tool frame in the three references of Pinocchio (``local``,
   ``world``, ``local_world_aligned``), angular first as everywhere in geomech;
2. computes the centroidal momentum matrix of a humanoid (Orin, Goswami and Lee, 2013) and
   checks that a falling robot only gains linear momentum;
3. builds the task-space inertia and Coriolis matrix of the tool frame from geomech's own
   :math:`J` and :math:`\\dot J` (seed 000, Remark 8: P. M. Wensing, J. Englsberger and
   J.-J. E. Slotine, *Coriolis Factorizations and their Connections to Riemannian
   Geometry*, 2023),

.. math::

    \\varLambda = (J H^{-1} J^\\top)^{-1},\\qquad
    C_{\\rm task} = A^\\top C A + A^\\top H \\dot A,\\quad A = H^{-1}J^\\top\\varLambda,

under two connections, and checks that :math:`\\dot\\varLambda - 2C_{\\rm task}` is
skew-symmetric for the metric-compatible one only.
"""

# %%
# The frames of an arm
# --------------------
# ``tool0`` is welded to ``wrist_3_link``: the model has six bodies but eight frames (the
# base link is a frame fixed in the world).
import time

import matplotlib.pyplot as plt
import numpy as np

from geomech.geometry import task_space_coriolis
from geomech.multibody import robots
from geomech.multibody.algorithms.centroidal import (
    center_of_mass,
    centroidal_inertia,
    centroidal_momentum_matrix,
    centroidal_momentum_matrix_rate,
)
from geomech.multibody.algorithms.coriolis import coriolis_matrix
from geomech.multibody.algorithms.dynamics import aba, crba
from geomech.multibody.algorithms.frames import (
    frame_acceleration,
    frame_jacobian,
    frame_jacobian_rate,
    frame_names,
    frame_placement,
    frame_velocity,
)
from geomech.plot import show_or_save

arm = robots.load("ur5")
print(arm.n_bodies, "bodies,", len(frame_names(arm)), "frames:", frame_names(arm))

rng = np.random.default_rng(13)
q = arm.random_configuration(rng)
v = rng.uniform(-1.0, 1.0, arm.nv)  # rad/s
a = rng.uniform(-1.0, 1.0, arm.nv)  # rad/s²
T = frame_placement(arm, q, "tool0")
print("tool position in the world [m]:", np.round(T[:3, 3], 4))

# %%
# Twists in three references
# --------------------------
# ``local``: the tool's own axes and origin (its body twist); ``world``: the spatial twist
# (world axes, at the world origin); ``local_world_aligned``: world axes at the tool's
# origin, whose linear part is the velocity of the tool point. The same twist moved around:
for ref in ("local", "world", "local_world_aligned"):
    print(f"{ref:>20}: [ω; v] =", np.round(frame_velocity(arm, q, v, "tool0", ref), 4))

# %%
# The Jacobians give the twists, :math:`x = J\nu`, and their rates the accelerations,
# :math:`\dot x = J\dot\nu + \dot J\nu`: the spatial acceleration in ``local`` and ``world``,
# the classical one (the acceleration of the tool point) in ``local_world_aligned``.
# :math:`\dot J` is the derivative of :math:`J` along the motion, which central differences
# confirm:
for ref in ("local", "world", "local_world_aligned"):
    J, J_dot = frame_jacobian(arm, q, "tool0", ref), frame_jacobian_rate(arm, q, v, "tool0", ref)
    classical = ref == "local_world_aligned"
    acc = frame_acceleration(arm, q, v, a, "tool0", ref, classical=classical)
    print(f"{ref:>20}: |J a + J̇ v - acceleration| = {np.abs(J @ a + J_dot @ v - acc).max():.1e}")

h = 1e-6
worst = 0.0
for ref in ("local", "world", "local_world_aligned"):
    fd = (
        frame_jacobian(arm, arm.integrate(q, h * v), "tool0", ref)
        - frame_jacobian(arm, arm.integrate(q, -h * v), "tool0", ref)
    ) / (2 * h)
    J_dot = frame_jacobian_rate(arm, q, v, "tool0", ref)
    worst = max(worst, np.abs(J_dot - fd).max() / max(1.0, np.abs(fd).max()))
print(f"J̇ vs central differences (max rel. error): {worst:.1e}")

# %%
# Every function takes batches of states: 1000 Jacobians in one call.
Q = arm.random_configuration(rng, size=1000)
frame_jacobian(arm, Q[:2], "tool0", "world")  # (loads the compiled kernel)
t0 = time.perf_counter()
J_batch = frame_jacobian(arm, Q, "tool0", "world")
print(J_batch.shape, f"in {1e3 * (time.perf_counter() - t0):.2f} ms")

# %%
# Centroidal momentum of a humanoid
# ---------------------------------
# The centroidal momentum :math:`h_G = [k_G; l_G] = A_G\nu` is the robot's momentum about its
# centre of mass in world axes (angular first). A robot falling freely (no contact, no joint
# torque) keeps its angular momentum and gains linear momentum at the rate of its weight:
# :math:`\dot h_G = A_G\dot\nu + \dot A_G\nu = [0; m g]`.
humanoid = robots.humanoid()
qh = humanoid.random_configuration(rng)
vh = rng.uniform(-1.0, 1.0, humanoid.nv)
ah = aba(humanoid, qh, vh, np.zeros(humanoid.nv))  # free fall
A_G = centroidal_momentum_matrix(humanoid, qh)
h_dot = A_G @ ah + centroidal_momentum_matrix_rate(humanoid, qh, vh) @ vh
mass = humanoid.inertias[:, 5, 5].sum()
print("centre of mass [m]:", np.round(center_of_mass(humanoid, qh), 4), f"mass {mass:.2f} kg")
print("dh_G/dt in free fall:", np.round(h_dot, 9), " m g =", np.round(mass * humanoid.gravity, 9))
# The average spatial velocity (Orin et al.): the twist of the robot locked rigid that has
# its momentum, I_G⁻¹ h_G, with I_G the centroidal composite rigid-body inertia.
print("average spatial velocity:", np.round(np.linalg.solve(centroidal_inertia(humanoid, qh),
                                                            A_G @ vh), 4))  # fmt: skip

# %%
# Task-space Coriolis matrices
# ----------------------------
# For the tool point (the three linear rows in ``local_world_aligned``: a redundant task of
# the six joints, whose velocity is that of the tool's origin) the task inertia
# :math:`\varLambda` and Coriolis matrix :math:`C_{\rm task}` follow from :math:`H`, a joint
# Coriolis matrix :math:`C` and the task Jacobian and its rate
# (:func:`~geomech.geometry.task_space_coriolis`). The transformation law carries the
# properties of the connection behind :math:`C` to the task space: with the Levi-Civita
# (Christoffel-consistent) :math:`C`, :math:`\dot H - 2C` is skew and so is
# :math:`\dot\varLambda - 2C_{\rm task}`; the ``cartan-zero`` connection (the symmetric
# Cartan–Schouten connection on each body) is not metric compatible, and the skewness is
# lost.


def task(q, v, connection):
    J = frame_jacobian(arm, q, "tool0", "local_world_aligned")[3:]
    J_dot = frame_jacobian_rate(arm, q, v, "tool0", "local_world_aligned")[3:]
    return task_space_coriolis(crba(arm, q), coriolis_matrix(arm, q, v, connection), J, J_dot)


def skew_residual(q, v, connection, h=1e-6):
    """|sym(Λ̇ − 2 C_task)| relative to |Λ̇|, Λ̇ by central differences along the motion."""
    Lam_dot = (task(arm.integrate(q, h * v), v, connection)[0]
               - task(arm.integrate(q, -h * v), v, connection)[0]) / (2 * h)  # fmt: skip
    N = Lam_dot - 2 * task(q, v, connection)[1]
    return np.abs(N + N.T).max() / 2 / np.abs(Lam_dot).max()


for connection in ("levi-civita", "cartan-zero"):
    print(f"{connection}: |sym(Λ̇ - 2 C_task)| = {skew_residual(q, v, connection):.1e}")

# %%
# Along a motion of the arm (constant joint speeds), the residual stays at the level of the
# finite differences for the Levi-Civita connection and is of order one for ``cartan-zero``:
times = np.linspace(0.0, 2.0, 25)
path = [arm.integrate(q, t * v) for t in times]
residuals = {c: [skew_residual(x, v, c) for x in path] for c in ("levi-civita", "cartan-zero")}
fig, ax = plt.subplots(figsize=(6, 3.5), layout="constrained")
for connection, values in residuals.items():
    ax.semilogy(times, values, "o-", label=connection)
ax.set_xlabel("time [s]")
ax.set_ylabel(r"$|\mathrm{sym}(\dot\Lambda - 2C_{\rm task})| / |\dot\Lambda|$")
ax.set_title("UR5 tool point: skew-symmetry in task space")
ax.legend()
show_or_save()
