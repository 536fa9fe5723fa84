r"""
Coriolis matrices of a robot
============================

A robot is :math:`N` free rigid bodies on :math:`\mathrm{SE}(3)^N` held together by its
joints. Choose a connection on each body's SE(3) — a body-level Coriolis matrix
:math:`C_i(v_i)` — and the joints induce the robot's Coriolis matrix through the
transformation law

.. math:: \bar C = A^\top C A + A^\top H \dot A, \qquad
          A = X\Phi \ \text{(the stacked body Jacobians)},

which carries the properties of the body connections over to the robot (seed 000: P. M.
Wensing, J. Englsberger and J.-J. E. Slotine, *Coriolis Factorizations and their Connections to
Riemannian Geometry*, 2023, Thm. V.1 and Props. V.1–V.3). The recursive Algorithm 1 of seed
000 (a CRBA-like pass, after Echeandia and Wensing, seed 001) evaluates it in :math:`O(Nd)`,
and Algorithm 2 gives all generalized Christoffel symbols in :math:`O(Nd^2)` (:math:`d`: depth
of the tree).

This tutorial, on the built-in floating-base humanoid (:math:`n_v = 30`), shows

1. the six named body connections and their measured properties;
2. per-body choices, and a user-supplied connection (Levi-Civita plus a totally antisymmetric
   contorsion: another admissible factorization, Cor. IV.1);
3. the Christoffel symbols and their asymmetry with generalized speeds (eq. 9);
4. the robot as an :class:`~geomech.geometry.AffineConnection` (contorsion of the admissible
   choices);
5. the cost of Alg. 1 and Alg. 2 on chains (:math:`d = N`) and binary trees
   (:math:`d \approx \log_2 N`).
"""

# %%
# The named body connections on the humanoid
# -------------------------------------------
# :func:`~geomech.multibody.model.connection.connection_report` measures, for each named body
# connection used on every body, the skew residual :math:`|\dot H - C - C^\top|` (:math:`\dot H`
# by central differences of the CRBA along the flow), the dynamics residual
# :math:`|Cv - (\mathrm{RNEA}(q, v, 0) - g)|`, the torsion, and the time of each algorithm.
import time

import matplotlib.pyplot as plt
import numpy as np

from geomech.geometry import Contorsion, LeviCivitaConnection
from geomech.geometry.examples import rigid_body_se3
from geomech.multibody import robots
from geomech.multibody.algorithms.christoffel import christoffel_symbols, joint_structure_constants
from geomech.multibody.algorithms.coriolis import coriolis_matrix, mass_matrix_derivative
from geomech.multibody.algorithms.dynamics import crba, gravity_forces, rnea
from geomech.multibody.connections.body import NAMED_BODY_CONNECTIONS
from geomech.multibody.model.connection import (
    connection_report,
    format_connection_report,
    model_connection,
)
from geomech.plot import show_or_save

model = robots.humanoid()
rng = np.random.default_rng(6)
q = model.random_configuration(rng)
v = rng.uniform(-1.0, 1.0, model.nv)
print(model.summary())
print(format_connection_report(connection_report(model, q, v, repeat=3)))

# %%
# The metric-compatible choices (``levi-civita``, ``cartan-minus``, ``velocity-cross``,
# ``boltzmann-hamel``) give :math:`\dot H = C + C^\top` to finite-difference accuracy; those with
# the Riemannian geodesics (``levi-civita``, ``velocity-cross`` and ``boltzmann-hamel``) give the
# right bias forces; only ``levi-civita`` is torsion free, and it is Pinocchio's
# ``computeCoriolisMatrix``. The matrices themselves differ a lot:
Cs = {name: coriolis_matrix(model, q, v, name) for name in NAMED_BODY_CONNECTIONS}
from matplotlib.colors import SymLogNorm

fig, axes = plt.subplots(1, 3, figsize=(12, 4), layout="constrained")
norm = SymLogNorm(linthresh=1e-2, vmin=-100.0, vmax=100.0)
diff = Cs["velocity-cross"] - Cs["levi-civita"]
panels = [
    (Cs["levi-civita"], r"levi-civita ($C^\star$)"),
    (Cs["velocity-cross"], "velocity-cross"),
    (diff, "difference"),
]
for ax, (M, title) in zip(axes, panels, strict=True):
    im = ax.imshow(M, cmap="RdBu_r", norm=norm)
    ax.set_title(title)
    ax.set_xlabel("column k (joint speed index)")
axes[0].set_ylabel("row i (joint speed index)")
fig.colorbar(im, ax=axes, shrink=0.8, label=r"$C_{ik}$ (kg m$^2$/s; symmetric log scale)")
print("|C_velocity-cross - C_levi-civita| =", np.abs(diff).max())
print("... but the same bias forces:", np.abs(diff @ v).max())

# %%
# Per-body choices and user connections
# -------------------------------------
# ``connection`` may
# map body names to connections (other bodies use ``levi-civita``). A Cartan (−) connection on the
# feet keeps :math:`\dot H - 2C` skew (it is metric compatible) but breaks the dynamics (its
# geodesics are one-parameter subgroups, not rigid-body motions).
H_dot = mass_matrix_derivative(model, q, v)
bias = rnea(model, q, v, np.zeros(model.nv)) - gravity_forces(model, q)
mapping = {"l_foot": "cartan-minus", "r_foot": "cartan-minus", "pelvis": "boltzmann-hamel"}
C_mix = coriolis_matrix(model, q, v, mapping)
print("skew residual   ", np.abs(H_dot - C_mix - C_mix.T).max())
print("dynamics residual", np.abs(C_mix @ v - bias).max())

# %%
# Any :class:`~geomech.geometry.AffineConnection` on a body's SE(3) can be used. Adding a
# totally antisymmetric contorsion (seed 000 eq. 12) to the Levi-Civita connection of the
# chest gives a connection that is still metric compatible with the Riemannian geodesics, and
# so does the robot's induced connection (Props. V.1, V.2).
i_chest = model.body_names.index("chest")
chest = LeviCivitaConnection(rigid_body_se3(model.inertias[i_chest]))
beta = rng.normal(size=20)  # comb(6, 3) = 20 functions beta_abc (constants here)
twisted = chest + Contorsion.totally_antisymmetric(beta)
C_tw = coriolis_matrix(model, q, v, {"chest": twisted})
print("skew residual   ", np.abs(H_dot - C_tw - C_tw.T).max())
print("dynamics residual", np.abs(C_tw @ v - bias).max())
print("differs from C*:", np.abs(C_tw - Cs["levi-civita"]).max())

# %%
# Christoffel symbols
# -------------------
# Alg. 2 returns :math:`\Gamma_{ijk} = \langle X_i, \nabla^\star_{X_j} X_k\rangle` (first kind,
# middle index the direction), so that :math:`C^\star_{ik} = \Gamma_{ijk} v^j`. With generalized
# speeds (the pelvis twist) :math:`\Gamma` is not symmetric in :math:`(j, k)`:
# :math:`\Gamma_{ijk} - \Gamma_{ikj} = s_{ijk} = H_{il} s^l_{jk}` (eq. 9), nonzero only inside
# the free-flyer block.
t0 = time.perf_counter()
Gamma = christoffel_symbols(model, q)
print(f"christoffel_symbols: {1e3 * (time.perf_counter() - t0):.1f} ms, shape {Gamma.shape}")
print("|Γ·v − C★|     =", np.abs(np.einsum("ijk,j->ik", Gamma, v) - Cs["levi-civita"]).max())
s_low = np.einsum("il,jkl->ijk", crba(model, q), joint_structure_constants(model, q))
print("|Γ − Γᵀ²³ − s| =", np.abs(Gamma - np.swapaxes(Gamma, 1, 2) - s_low).max())
print(
    "nonzero entries:",
    np.count_nonzero(Gamma),
    "of",
    Gamma.size,
    "(zero unless the three joints lie on one root-to-leaf path)",
)

fig, ax = plt.subplots(figsize=(5, 4.5))
ax.imshow(np.abs(Gamma).sum(axis=1) > 0, cmap="Greys")
ax.set_title(r"$(i, k)$ with some $\Gamma_{ijk} \neq 0$")
ax.set_xlabel(r"$k$ (joint speed index)")
ax.set_ylabel(r"$i$ (joint speed index)")

# %%
# The robot as an affine connection
# ---------------------------------
# :func:`~geomech.multibody.model.connection.model_connection` returns the induced connection on the
# robot's configuration space (flow ``model.integrate``, metric the CRBA, the joints' structure
# constants), so the geometry layer applies: the contorsion :math:`D = \Gamma^\star - \Gamma` of
# ``velocity-cross`` is totally antisymmetric (an admissible factorization, Cor. IV.1); that of
# ``cartan-minus`` only in (1, 3): metric compatible, with other geodesics.
for name in ("velocity-cross", "cartan-minus"):
    D = Contorsion(model_connection(model, name).contorsion(q))
    report = D.symmetry(tol=1e-10)
    print(
        f"{name:15s} D antisymmetric in (1,3): {bool(report.antisymmetric_13)}, "
        f"in (2,3): {bool(report.antisymmetric_23)}"
    )

# %%
# Cost: O(Nd) and O(Nd²)
# ----------------------
# Alg. 1 does :math:`O(Nd)` work and Alg. 2 :math:`O(Nd^2)`. On serial chains the depth is
# :math:`d = N`, so the asymptotic slopes on a log-log plot are 2 and 3; on binary trees
# :math:`d = \lfloor\log_2 N\rfloor + 1`, a little above 1. The dashed and dotted lines have
# these slopes; the titles give the slopes fitted to the measured times. A small range keeps
# this tutorial fast; ``benchmarks/bench_coriolis.py`` runs N = 16 … 256.


def best_time(fun, repeat=3):
    fun()  # untimed: the first call may load the compiled kernel for these argument shapes
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fun()
        best = min(best, time.perf_counter() - t)
    return best


one = robots.serial_chain(1, rng=0)
q1, v1 = one.random_configuration(rng), rng.uniform(-1.0, 1.0, one.nv)
t_fixed = best_time(lambda: coriolis_matrix(one, q1, v1), 20)
print(f"coriolis_matrix on a single body (the fixed cost of a call): {1e6 * t_fixed:.1f} us")

sizes = [8, 16, 32, 64]
fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
for ax, kind in zip(axes, ("chain", "binary tree"), strict=True):
    t1, t2, depth = [], [], []
    for N in sizes:
        m = robots.serial_chain(N, rng=0) if kind == "chain" else robots.binary_tree(N, rng=0)
        qm = m.random_configuration(rng)
        vm = rng.uniform(-1.0, 1.0, m.nv)
        t1.append(best_time(lambda m=m, qm=qm, vm=vm: coriolis_matrix(m, qm, vm), 10))
        t2.append(best_time(lambda m=m, qm=qm: christoffel_symbols(m, qm)))
        depth.append(m.depth)
    N, d = np.array(sizes, float), np.array(depth, float)
    ax.loglog(N, t1, "o-", label="Alg. 1: C")
    ax.loglog(N, t2, "s-", label=r"Alg. 2: $\Gamma$")
    ax.loglog(N, t1[-1] * (N * d) / (N[-1] * d[-1]), "k--", lw=0.8, label=r"$\propto N d$")
    ax.loglog(N, t2[-1] * (N * d**2) / (N[-1] * d[-1] ** 2), "k:", lw=0.8, label=r"$\propto N d^2$")
    ax.axhline(t_fixed, color="0.6", lw=0.8, label="one body")
    s1 = np.polyfit(np.log(N), np.log(t1), 1)[0]
    s2 = np.polyfit(np.log(N), np.log(t2), 1)[0]
    print(f"{kind:11s}: Alg. 1 {1e6 * t1[0]:.1f} … {1e6 * t1[-1]:.1f} us, slope {s1:.2f}; "
          f"Alg. 2 {1e6 * t2[0]:.1f} … {1e6 * t2[-1]:.1f} us, slope {s2:.2f}")  # fmt: skip
    ax.set_title(f"{kind}: slopes {s1:.2f} (Alg. 1), {s2:.2f} (Alg. 2)")
    ax.set_xlabel(r"$N$ (bodies)")
    ax.legend(fontsize=8)
axes[0].set_ylabel("time per evaluation (s)")
plt.tight_layout()

# %%
# At these sizes the fitted slopes are below the asymptotic ones on the chains, and they vary
# from machine to machine. Both functions run compiled kernels, and every call also pays a
# fixed cost — checking its arguments, entering the kernel, allocating the result — the time
# printed for a single body (the grey line). It is most of Alg. 1's time at :math:`N = 8` and
# still visible at :math:`N = 64`, so the curves start above the :math:`N d` and
# :math:`N d^2` lines and rise more slowly than they do. Alg. 2 also returns the dense
# :math:`n_v \times n_v \times n_v` tensor, and writing that output alone costs
# :math:`O(N^3)` whatever the depth: on large binary trees the output, not the
# :math:`N d^2` arithmetic, eventually sets the cost.
#
# Batches
# -------
# Every function also accepts a leading batch of states: ``coriolis_matrix(model, q, v)``
# with ``q`` of shape ``(100, nq)`` runs the same compiled kernel over the 100 states in one
# call. Below it is timed against a Python loop of one call per state.
qB = model.random_configuration(rng, size=100)
vB = rng.uniform(-1.0, 1.0, (100, model.nv))
t_batch = best_time(lambda: coriolis_matrix(model, qB, vB)) / 100
t_loop = best_time(lambda: [coriolis_matrix(model, qB[i], vB[i]) for i in range(100)]) / 100
print(
    f"humanoid, time per state: {1e6 * t_loop:.1f} us in a loop of 100 calls, "
    f"{1e6 * t_batch:.1f} us in one batched call ({t_loop / t_batch:.1f} times faster)"
)

# %%
# The arithmetic is the same, compiled, in both; the batch saves the fixed cost of a call and
# the Python loop around it, once per state. Much larger batches keep that saving but may lose
# some speed per state once their arrays outgrow the processor's caches. Above all a batch is
# one call instead of a loop: arrays of states in, arrays of matrices out, as the simulations,
# the controllers and the parameter sweeps of tutorial 09 use them.
show_or_save()
