r"""
Robots with kinematic loops
===========================

Closed chains after seed 004 (Chignoli, Adrian, Kim, Wensing, "Recursive Rigid-Body Dynamics
Algorithms for Systems with Kinematic Loops") and seed 000 §VI: a leg whose knee is driven
through a four-bar linkage and a leg whose joints are driven by geared rotors and a belt,
both read from URDF+ files shipped with geomech. We look at their *cluster graphs*, run the
cluster algorithms (C-RNEA, C-ABA, C-EFPA) against the dense baselines, build the Coriolis
matrix of the closed chain induced by two body connections,

.. math::

    \bar H = G^\top H G, \qquad \bar C = G^\top C G + G^\top H \dot G,

(seed 000 eq. 17, with :math:`\dot q_s = G v` the spanning-tree speeds), check its predicates,
simulate the leg, and close a Slotine–Li tracking loop on it.
"""

# %%
# Two legs from URDF+
# -------------------
# ``planar_leg``: a thigh and a shank whose knee is driven by a crank through a four-bar loop
# (a ``<loop>`` joint closes it at the heel). ``belt_leg``: hip, knee and ankle driven by
# geared rotors, the ankle's rotor through a belt that also turns with the knee
# (``<coupling>`` elements). ``q`` is the spanning tree's configuration, ``v`` the speeds of
# the independent joints.
import time

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np

from geomech.multibody import ClosedMultibodyModel
from geomech.multibody.algorithms.christoffel import christoffel_symbols
from geomech.multibody.algorithms.coriolis import coriolis_matrix
from geomech.multibody.algorithms.dynamics import aba, crba, gravity_forces, rnea
from geomech.multibody.closed import approximate_transmission_model
from geomech.multibody.closed.dynamics import inverse_operational_space_inertia
from geomech.multibody.io.examples import load_example
from geomech.plot import show_or_save
from geomech.simulation import simulate

knee = load_example("planar_leg")
geared = load_example("belt_leg")
print(knee.summary())
print(geared.summary())

# %%
# Cluster graphs
# --------------
# Bodies joined by a loop or a coupling form a *cluster*; contracting each cluster to a node
# turns the closed chain into a tree, the cluster connectivity tree, on which seed 004's
# algorithms recurse (``model.cluster_graph``, a ``networkx.DiGraph``).
fig, axes = plt.subplots(1, 2, figsize=(10, 4))
for ax, model in zip(axes, (knee, geared), strict=True):
    g = model.cluster_graph
    labels = {n: ("base" if d["index"] < 0 else "\n".join(d["bodies"]) + f"\n({d['nv']} dof)")
              for n, d in g.nodes(data=True)}  # fmt: skip
    pos = {n: (0.0, -float(d["index"])) for n, d in g.nodes(data=True)}
    nx.draw_networkx(g, pos, ax=ax, labels=labels, node_size=2600, node_color="#cfe2f3",
                     font_size=8)  # fmt: skip
    ax.set_title(f"{model.graph.graph['name']}: cluster tree")
    ax.set_xlabel("(graph layout: no physical units)")
    ax.set_ylabel("cluster depth (index)")
    ax.set_xlim(-1, 1)
fig.tight_layout()

# %%
# Dynamics: cluster algorithms and baselines
# ------------------------------------------
# ``rnea`` and ``aba`` on a closed model run seed 004's C-RNEA and C-ABA (compiled kernels,
# ``method="cluster"``); ``"projection"`` (:math:`\bar H^{-1}(\tau - \bar c)` from the
# spanning tree) and ``"lagrange"`` (the KKT system with multipliers) are the baselines.
rng = np.random.default_rng(0)
q = geared.random_configuration(rng)
v, a = rng.normal(size=geared.nv), rng.normal(size=geared.nv)
tau = rnea(geared, q, v, a)
for method in ("cluster", "projection", "lagrange"):
    t0 = time.perf_counter()
    acc = aba(geared, q, v, tau, method=method)
    print(f"{method:>10}: |aba(rnea(a)) - a| = {np.abs(acc - a).max():.1e}")
W = inverse_operational_space_inertia(geared, q, ["foot"])
W_ref = inverse_operational_space_inertia(geared, q, ["foot"], method="projection")
print(f"C-EFPA vs J H̄⁻¹ Jᵀ: {np.abs(W - W_ref).max():.1e}")

# %%
# Seed 004's approximate model drops the rotors (their mass rides on their carriers) and adds
# :math:`N^2 I_{\rm rotor}` to the diagonal of the mass matrix (a joint armature): exact for
# that diagonal term, wrong in the rotor's gyroscopic coupling with the carrier's rotation
# (tutorial 15 measures the torque errors it makes).
approx = approximate_transmission_model(geared)
q_approx = np.concatenate([q[geared.q_slice(j)] for j in approx.joint_names])
print("H̄ (exact):\n", crba(geared, q).round(4))
print("H̃ (approximate, armature on the diagonal):\n", crba(approx, q_approx).round(4))


# %%
# The induced Coriolis matrix of the closed chain
# -----------------------------------------------
# The spanning tree is an ordinary tree, so the Coriolis matrix of any body connection is
# available there (seed 000 Alg. 1); the closed chain inherits :math:`\bar C = G^\top C G +
# G^\top H\dot G`. The public ``coriolis_matrix`` evaluates it on a closed model by seed 000
# Alg. 1 *in cluster form*: one pass over the cluster tree, each cluster joint with the motion
# subspace :math:`\mathsf\Phi_k = \bar{\mathsf S}_k\mathsf G_k` and its rate, which
# carries :math:`\dot{\mathsf G}_k`; below it is compared with the dense projection written
# out by hand. The Levi-Civita connection gives Christoffel's :math:`\bar C^\star`,
# ``velocity-cross`` (:math:`\mathbf C_i = \mathbf I_i(\mathbf v_i\times)` per body) another
# valid, metric-compatible factorization with torsion.
def closed_coriolis(model, q, v, connection):
    """C̄ = Gᵀ C(q, G v) G + Gᵀ H Ġ on the spanning tree (the dense projection)."""
    st = model.spanning_tree
    G, _, G_dot = model.constraint_matrices(q, v, rate=True)
    C = coriolis_matrix(st, q, G @ v, connection=connection)
    return G.T @ C @ G + G.T @ crba(st, q) @ G_dot


def mass_matrix_rate(model, q, v, h=1e-5):
    """dH̄/dt by central differences along the closed motion (model.integrate)."""
    return (crba(model, model.integrate(q, v, h)) - crba(model, model.integrate(q, v, -h))) / (
        2 * h
    )


for model in (knee, geared):
    q = model.random_configuration(rng)
    v = rng.normal(size=model.nv)
    H_dot = mass_matrix_rate(model, q, v)
    bias = rnea(model, q, v, np.zeros(model.nv)) - gravity_forces(model, q)
    print(model.graph.graph["name"])
    for connection in ("levi-civita", "velocity-cross"):
        C = coriolis_matrix(model, q, v, connection=connection)  # cluster Alg. 1
        N = H_dot - 2 * C
        C_dense = closed_coriolis(model, q, v, connection)
        print(
            f"{connection:>15}: |Ḣ̄ - 2C̄ + (Ḣ̄ - 2C̄)ᵀ| = {np.abs(N + N.T).max():.1e}, "
            f"|C̄v - (rnea(q, v, 0) - ḡ)| = {np.abs(C @ v - bias).max():.1e}, "
            f"|C̄ - dense projection| = {np.abs(C - C_dense).max():.1e}"
        )
        print(C.round(4))
    Gamma = christoffel_symbols(model, q)  # seed 000 Alg. 2 in cluster form
    print(
        f"Christoffel symbols {Gamma.shape}: |Γ̄·v - C̄*| = "
        f"{np.abs(np.einsum('ijk,j->ik', Gamma, v) - coriolis_matrix(model, q, v)).max():.1e}"
    )

# %%
# Both factorizations are metric compatible and give the right :math:`\bar C v` (the
# induced connection inherits both predicates from the body connections). On the planar knee
# the two matrices coincide, on the geared leg they differ.

# %%
# Simulation
# ----------
# A closed model is a :class:`~geomech.geometry.MechanicalSystem` whose joint frame moves the
# independent coordinates and closes the loops again (``model.integrate``: Newton on the loop
# constraints), so ``geomech.simulate`` integrates it like any robot: RKMK4 in the independent
# coordinates, every stage's configuration restored onto the constraint manifold, and the
# accelerations from C-ABA. Without gravity or torques the kinetic energy
# :math:`\tfrac12 v^\top\bar H v` must stay constant and the loop stays closed.
free = ClosedMultibodyModel(knee.graph, gravity=np.zeros(3))  # the same closed leg without gravity
res = simulate(free, free.neutral(), [1.0, -2.0], 1.0, dt=1e-2)
t, qs, vs = res.t, res.q, res.v
energy = free.kinetic_energy(qs, vs)
residual = np.abs(free.constraint_residual(qs)).max(axis=-1)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
axes[0].plot(t, energy - energy[0])
axes[0].set_xlabel("time [s]")
axes[0].set_ylabel("kinetic energy drift [J]")
axes[1].semilogy(t, np.maximum(residual, 1e-17))
axes[1].set_xlabel("time [s]")
axes[1].set_ylabel("loop residual [rad, m]")
fig.tight_layout()
print(f"energy drift {np.abs(energy - energy[0]).max():.1e} J, loop residual {residual.max():.1e}")

# %%
# Slotine–Li tracking on the closed chain
# ---------------------------------------
# The controller :math:`\tau = \bar H\ddot y_r + \bar C\dot y_r + \bar g - K_D s`, with
# :math:`\dot y_r = \dot y_d - \Lambda(y - y_d)` and :math:`s = \dot y - \dot y_r`, needs a
# factorization with :math:`\dot{\bar H} - 2\bar C` skew: the induced Levi-Civita
# :math:`\bar C` above. The hip and the knee crank follow sinusoids; :math:`K_D` is scaled
# by the diagonal of :math:`\bar H` (the crank's inertia is 20 times smaller than the hip's).
y_ref, amp, freq = (
    knee.neutral()[knee.independent_v_index],
    np.array([0.3, 0.2]),
    np.array([2.0, 3.0]),
)
Lambda = 5.0
K_D = 10.0 * np.diag(np.diag(crba(knee, knee.neutral())))  # scaled like H̄: a stiff loop otherwise


def controller(t, q, v):
    y = q[knee.independent_v_index]  # revolute joints on a fixed base: y is part of q
    y_d = y_ref + amp * np.sin(freq * t)
    v_d, a_d = amp * freq * np.cos(freq * t), -amp * freq**2 * np.sin(freq * t)
    v_r, a_r = v_d - Lambda * (y - y_d), a_d - Lambda * (v - v_d)
    s = v - v_r
    C = coriolis_matrix(knee, q, v)  # the induced Levi-Civita C̄ (cluster Alg. 1)
    return crba(knee, q) @ a_r + C @ v_r + gravity_forces(knee, q) - K_D @ s


res = simulate(knee, knee.neutral(), np.zeros(knee.nv), 1.5, controller=controller, dt=2.5e-3)
t, qs, vs = res.t, res.q, res.v
err = qs[:, knee.independent_v_index] - (y_ref + amp * np.sin(np.outer(t, freq)))
fig, ax = plt.subplots(figsize=(6, 3.5))
for k, name in enumerate(knee.independent_joints):
    ax.plot(t, err[:, k], label=name)
ax.set_xlabel("time [s]")
ax.set_ylabel("tracking error [rad]")
ax.legend()
fig.tight_layout()
print(f"tracking error after {t[-1]:.1f} s: {np.abs(err[-1]).max():.1e} rad")
show_or_save()
