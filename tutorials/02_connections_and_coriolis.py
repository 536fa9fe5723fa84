r"""
Connections and Coriolis factorizations
=======================================

Every Coriolis factorization :math:`C(q, v)` of a mechanical system is the one defined by an
affine connection, :math:`C_{ik} = \Gamma_{ijk} v^j` (seed 000: P. M. Wensing, J. Englsberger
and J.-J. E. Slotine, *Coriolis Factorizations and their Connections to Riemannian Geometry*,
2023, eq. 10), and its properties are properties of that connection:

- :math:`\dot H - 2C` skew-symmetric :math:`\Leftrightarrow` metric compatible
  :math:`\Leftrightarrow` the contorsion :math:`D = \Gamma^\star - \Gamma` is antisymmetric in
  (1, 3) (Props. III.1, IV.1);
- :math:`C v = C^\star v` (correct dynamics) :math:`\Leftrightarrow` Riemannian geodesics
  :math:`\Leftrightarrow` :math:`D` is antisymmetric in (2, 3) (Props. III.2, IV.2);
- :math:`C = C^\star` :math:`\Leftrightarrow` the Levi-Civita connection (torsion free as well).

This tutorial, with :mod:`geomech.geometry`,

1. redraws the paper's Fig. 3: three vectors parallel transported along a geodesic for four
   connections on Euclidean :math:`\mathbb R^3` (left column metric compatible, top row with
   the Euclidean straight-line geodesics);
2. compares the Coriolis factorizations of a rigid body on SO(3) defined by the Levi-Civita
   connection, the three Cartan–Schouten connections and a torsionful admissible one
   :math:`C^\star + \beta(\omega\times)`.
"""

# %%
# Four connections on Euclidean space
# -----------------------------------
# With :math:`H = \mathbf 1` in Cartesian coordinates the Levi-Civita coefficients vanish, so a
# connection is :math:`\Gamma = -D` for its contorsion :math:`D`. We build :math:`D` with the
# symmetry each panel needs (:math:`\varepsilon` is the Levi-Civita symbol):
#
# - totally antisymmetric, :math:`D = -\beta\varepsilon` (upper left: compatible, straight
#   geodesics, torsion);
# - antisymmetric in (2, 3) only, :math:`D_{ijk} = M_{il}\varepsilon_{ljk}` with :math:`M`
#   symmetric, not a multiple of :math:`\mathbf 1` (upper right: straight geodesics, not
#   compatible);
# - antisymmetric in (1, 3) only, :math:`D_{ijk} = \varepsilon_{ikl} N_{lj}` (lower left:
#   compatible, curved geodesics :math:`\dot v = v \times (N v)`);
# - the sum of the last two (lower right: neither).
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import MaxNLocator

from geomech.geometry import (
    CartanSchoutenConnection,
    Contorsion,
    LeviCivitaConnection,
)
from geomech.geometry.examples import point_mass, rigid_body_so3
from geomech.plot import show_or_save

eps = Contorsion.totally_antisymmetric([1.0])()  # the Levi-Civita symbol eps_ijk
space = point_mass(mass=1.0, dim=3)
lc = LeviCivitaConnection(space)

beta = 1.0
M = 0.5 * beta * np.diag([0.0, 1.0, -0.4])
N = beta * (np.outer([0, 0, 1.0], [1.0, 0, 0]) + 0.4 * np.outer([1.0, 0, 0], [1.0, 0, 0]))
D = {
    "compatible, torsion\n(D totally antisymmetric)": -beta * eps,
    "straight geodesics, not compatible\n(D antisymmetric in (2,3))": np.einsum(
        "il,ljk->ijk", M, eps
    ),
    "compatible, curved geodesics\n(D antisymmetric in (1,3))": np.einsum("ikl,lj->ijk", eps, N),
}
D["neither\n(D generic)"] = sum(list(D.values())[1:])
connections = {title: lc + Contorsion(-Dk) for title, Dk in D.items()}

for title, conn in connections.items():
    q0 = np.zeros(3)
    print(
        title.replace("\n", " "),
        "| compatible:",
        bool(conn.is_metric_compatible(q0)),
        "| Riemannian geodesics:",
        bool(conn.has_riemannian_geodesics(q0)),
        "| torsion free:",
        bool(conn.is_torsion_free(q0)),
    )

# %%
# Transport the initially orthonormal triad :math:`(e_x, e_y, e_z)` along the geodesic that
# starts along the red vector :math:`e_x`. The red vector is the geodesic's own velocity, so it
# stays tangent in every panel. The faint triad in the upper-left panel is the Levi-Civita
# transport, which keeps a constant orientation.
t = np.linspace(0.0, 3.0, 61)
fig = plt.figure(figsize=(10, 9))
colors = ["tab:red", "tab:green", "tab:blue"]
for panel, (title, conn) in enumerate(connections.items()):
    curve = conn.geodesic(np.zeros(3), [1.0, 0.0, 0.0], t)
    W = conn.parallel_transport(curve, np.eye(3))  # (3 vectors, time, 3 components)
    ax = fig.add_subplot(2, 2, panel + 1, projection="3d")
    ax.plot(*curve.q.T, color="k", lw=1)
    for k in range(0, t.size, 10):
        for a in range(3):
            ax.quiver(*curve.q[k], *(0.4 * W[a, k]), color=colors[a], lw=1.5)
        if panel == 0:
            for a in range(3):
                ax.quiver(*curve.q[k], *(0.4 * np.eye(3)[a]), color=colors[a], alpha=0.2)
    centre = 0.5 * (curve.q.min(0) + curve.q.max(0))
    half = 0.5 * np.ptp(curve.q, axis=0).max() + 0.5
    ax.set(
        xlim=(centre[0] - half, centre[0] + half),
        ylim=(centre[1] - half, centre[1] + half),
        zlim=(centre[2] - half, centre[2] + half),
    )
    ax.set_box_aspect((1, 1, 1))
    gram = np.einsum("atn,btn->tab", W, W)
    ax.set_title(
        f"{title}\n" + r"$\max|W^\top W - 1|$" + f" = {np.abs(gram - np.eye(3)).max():.2g}",
        fontsize=9,
    )
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):  # four ticks each: the labels do not collide
        axis.set_major_locator(MaxNLocator(4))
    ax.tick_params(labelsize=8)
    ax.set_xlabel(r"$x$ (m)")
    ax.set_ylabel(r"$y$ (m)")
    ax.set_zlabel(r"$z$ (m)")
fig.suptitle("Parallel transport along geodesics (seed 000, Fig. 3)")
fig.tight_layout()

# %%
# Only the left column keeps the triad orthonormal (:math:`W^\top W = \mathbf 1`): that is
# metric compatibility. Only the top row moves along the straight line: that is
# :math:`C v = C^\star v`.
#
# Coriolis factorizations of a rigid body on SO(3)
# ------------------------------------------------
# Body angular velocity :math:`\omega` as generalized speeds (the left-invariant frame) and the
# inertia :math:`I`: the Levi-Civita connection gives :math:`C^\star = (\Sigma\omega)\times`
# with :math:`\Sigma = \tfrac12 \operatorname{tr}(I)\,\mathbf 1 - I` (seed 000 §VI-A1). The
# Cartan–Schouten connections :math:`\nabla_X Y = 0,\ \tfrac12[X, Y],\ [X, Y]` on
# left-invariant fields have the one-parameter subgroups as geodesics, so unless the metric is
# bi-invariant they do not give Euler's equations. Adding :math:`\beta(\omega\times)` (a
# totally antisymmetric contorsion) keeps both skew symmetry and correct dynamics (Cor. IV.1).
inertia = np.diag([1.0, 2.0, 3.0])
body = rigid_body_so3(inertia)
factorizations = {
    "Levi-Civita": LeviCivitaConnection(body),
    "Cartan–Schouten (-)": CartanSchoutenConnection(body, "cartan-minus"),
    "Cartan–Schouten (0)": CartanSchoutenConnection(body, "cartan-zero"),
    "Cartan–Schouten (+)": CartanSchoutenConnection(body, "cartan-plus"),
    "Levi-Civita + 0.5 (w x)": LeviCivitaConnection(body) + Contorsion.totally_antisymmetric([0.5]),
}
rng = np.random.default_rng(0)
R = body.random_configuration(rng)
w = np.array([0.3, 1.0, -0.4])
euler = np.cross(w, inertia @ w)  # w x (I w)
print(f"{'connection':26s} {'|C+C^T|':>8s} {'|Cw - w x Iw|':>14s} {'torsion':>8s}")
for name, conn in factorizations.items():
    C = conn.coriolis_matrix(R, w)
    print(
        f"{name:26s} {np.abs(C + C.T).max():8.3f} {np.abs(C @ w - euler).max():14.3f} "
        f"{conn.is_torsion_free(R).residual:8.3f}"
    )

# %%
# Free motion is a geodesic. The admissible factorizations share Euler's solution; the
# Cartan–Schouten (0) geodesic keeps :math:`\omega` constant (a one-parameter subgroup), which
# is free motion only for a bi-invariant (spherical) inertia. The table shows the three
# Cartan–Schouten factorizations fail :math:`C\omega = \omega\times I\omega`, and (0), (+)
# are not even skew (not metric compatible). Kinetic energy is conserved along the admissible
# geodesics (metric compatibility) and, trivially, along the one-parameter subgroup (constant
# :math:`\omega`).
t = np.linspace(0.0, 8.0, 161)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
for name, style in (
    ("Levi-Civita", "-"),
    ("Levi-Civita + 0.5 (w x)", "--"),
    ("Cartan–Schouten (0)", ":"),
):
    traj = factorizations[name].geodesic(np.eye(3), w, t)
    for a in range(3):
        axes[0].plot(t, traj.v[:, a], style, color=colors[a], label=rf"$\omega_{'xyz'[a]}$ {name}")
    axes[1].plot(
        t,
        body.kinetic_energy(traj.q, traj.v) - body.kinetic_energy(np.eye(3), w),
        style,
        label=name,
    )
axes[0].set_xlabel(r"$t$ (s)")
axes[0].set_ylabel(r"body angular velocity $\omega$ (rad/s)")
axes[0].legend(fontsize=6, ncol=3)
axes[1].set_xlabel(r"$t$ (s)")
axes[1].set_ylabel(r"$T(t) - T(0)$ (J)")
axes[1].legend(fontsize=7)
fig.tight_layout()
show_or_save()
