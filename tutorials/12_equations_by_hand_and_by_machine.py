r"""
Equations of motion by hand and by machine
==========================================

Every robotics course derives the equations of motion of a double pendulum by hand,

.. math::

    \mathbf H(\mathbf q)\ddot{\mathbf q} + \mathbf C(\mathbf q, \dot{\mathbf q})\dot{\mathbf q}
    + \mathbf g(\mathbf q) = \boldsymbol\tau, \qquad
    \mathbf H = \frac{\partial^2 T}{\partial\dot{\mathbf q}^2}, \qquad
    C_{ik} = \Gamma_{ijk}\dot q^j, \qquad
    \Gamma_{ijk} = \tfrac12\Big(\frac{\partial H_{ij}}{\partial q_k}
    + \frac{\partial H_{ik}}{\partial q_j} - \frac{\partial H_{jk}}{\partial q_i}\Big),

and then never again: beyond a few joints the formulas are too long to write and too slow to
derive. This tutorial does the derivation three ways and compares them:

1. **by hand**, with sympy as a pencil: the Lagrangian of the double pendulum;
2. **by machine**, with :class:`geomech.symbolic.SymbolicModel`, which reads the same model
   graph as the numeric algorithms and derives :math:`\mathbf H`, :math:`\Gamma`,
   :math:`\mathbf C` (for any body connection, seed 000: P. M. Wensing, J. Englsberger and
   J.-J. E. Slotine, *Coriolis Factorizations and their Connections to Riemannian Geometry*)
   and :math:`\mathbf g` as formulas;
3. **numerically**, with the recursive algorithms (CRBA, seed 000 Algs. 1–2 after S.
   Echeandia and P. M. Wensing, *Numerical Methods to Compute the Coriolis Matrix and
   Christoffel Symbols for Rigid-Body Systems*, seed 001).

Each serves as the others' oracle. On a SCARA we put two Coriolis matrices side by side,
verify the skew-symmetry of :math:`\dot{\mathbf H} - 2\mathbf C` symbolically, and end with
seed 001's Table 2: what symbolic mechanics costs, against numeric evaluation.
"""

# %%
# By hand: the Lagrangian of the double pendulum
# -----------------------------------------------
# Point masses :math:`m_1, m_2` on massless links :math:`l_1, l_2`, joints about :math:`y`,
# hanging along :math:`-z` at :math:`\mathbf q = 0` (the built-in
# :func:`~geomech.multibody.io.robots.double_pendulum`). The positions of the masses, their
# velocities by the chain rule, :math:`T = \tfrac12\sum m_k|\dot{\mathbf p}_k|^2` and
# :math:`V = -\sum m_k\mathbf g_0\cdot\mathbf p_k`:
import tempfile
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402

import geomech as gm  # noqa: E402
from geomech.multibody import MultibodyModel, Revolute, robots  # noqa: E402
from geomech.spatial import spatial_inertia  # noqa: E402
from geomech.symbolic import SymbolicModel  # noqa: E402

m1, m2, l1, l2, g0 = sp.symbols("m_1 m_2 l_1 l_2 g_0", positive=True)
q1, q2, dq1, dq2 = sp.symbols("q1 q2 v1 v2", real=True)
q, dq = sp.Matrix([q1, q2]), sp.Matrix([dq1, dq2])
p1 = sp.Matrix([-l1 * sp.sin(q1), 0, -l1 * sp.cos(q1)])
p2 = p1 + sp.Matrix([-l2 * sp.sin(q1 + q2), 0, -l2 * sp.cos(q1 + q2)])
v1, v2 = p1.jacobian(q) * dq, p2.jacobian(q) * dq
T = sp.simplify((m1 * v1.dot(v1) + m2 * v2.dot(v2)) / 2)
V = g0 * (m1 * p1[2] + m2 * p2[2])
H_hand = sp.simplify(sp.hessian(T, dq))
g_hand = sp.simplify(sp.Matrix([V]).jacobian(q).T)
sp.pprint(H_hand, use_unicode=True)
sp.pprint(g_hand, use_unicode=True)

# %%
# The Christoffel symbols and the Coriolis matrix follow from :math:`\mathbf H` by seed 001
# eq. (4): only :math:`H_{11}` and :math:`H_{12}` depend on :math:`q_2`.
Gamma_hand = [
    [
        [
            sp.simplify(
                (H_hand[i, j].diff(q[k]) + H_hand[i, k].diff(q[j]) - H_hand[j, k].diff(q[i])) / 2
            )
            for k in range(2)
        ]
        for j in range(2)
    ]
    for i in range(2)
]
C_hand = sp.Matrix(2, 2, lambda i, k: sum(Gamma_hand[i][j][k] * dq[j] for j in range(2)))
sp.pprint(sp.simplify(C_hand), use_unicode=True)

# %%
# By machine: the same formulas from the model graph
# --------------------------------------------------
# :class:`~geomech.symbolic.SymbolicModel` takes the numeric model (here unit masses on unit
# links, :math:`g_0 = 9.81`), reads its numbers as fractions and derives the body Jacobians
# :math:`\mathbf J_i`, :math:`\mathbf H = \sum_i\mathbf J_i^\top\mathbf I_i\mathbf J_i`,
# :math:`\Gamma` by eq. (4) and :math:`\mathbf g = \partial V/\partial\mathbf q`. The results
# are trigonometric polynomials in their Fourier form (sums of :math:`\cos(\mathbf k\cdot
# \mathbf q)`), so equal formulas print identically. For unit masses and links:
#
# .. math::
#
#     \mathbf H = \begin{bmatrix}3 + 2\cos q_2 & 1 + \cos q_2\\ 1 + \cos q_2 & 1
#     \end{bmatrix}, \qquad
#     \mathbf C = \begin{bmatrix}-\dot q_2\sin q_2 & -(\dot q_1 + \dot q_2)\sin q_2\\
#     \dot q_1\sin q_2 & 0\end{bmatrix}.
pendulum = robots.double_pendulum()
sm = SymbolicModel(pendulum)
H, C, g = sm.mass_matrix(), sm.coriolis_matrix(), sm.gravity_forces()
print("H =", H)
print("C =", C)
print("g =", g)
print("LaTeX of H:", sm.latex(H))

# %%
# With the same numbers, the hand derivation and the machine agree exactly (a difference that
# simplifies to zero, not a small number):
numbers = {m1: 1, m2: 1, l1: 1, l2: 1, g0: sp.Rational(981, 100)}
rename = {q1: sm.q[0], q2: sm.q[1], dq1: sm.v[0], dq2: sm.v[1]}


def same(hand, machine):
    """Whether a hand formula, with the pendulum's numbers, equals the machine's exactly."""
    return sp.simplify(sp.expand(hand.subs(numbers).subs(rename) - machine)) == sp.zeros(
        *machine.shape
    )


print("H, C, g by hand == by machine:", same(H_hand, H), same(C_hand, C), same(g_hand, g))

# %%
# And both agree with the numeric algorithms at a random state (CRBA, seed 000 Alg. 1, RNEA
# with zero speed), evaluated from the formulas with ``sympy.lambdify``:
rng = np.random.default_rng(12)
qs, vs = rng.uniform(-np.pi, np.pi, 2), rng.uniform(-2, 2, 2)
args = [list(sm.q), list(sm.v)]
for name, expr, numeric in (
    ("H", H, gm.crba(pendulum, qs)),
    ("C", C, gm.coriolis_matrix(pendulum, qs, vs)),
    ("g", g, gm.gravity_forces(pendulum, qs)[:, None]),
):
    value = np.array(sp.lambdify(args, expr, "numpy")(qs, vs), dtype=float)
    print(f"{name}: max |symbolic - numeric| = {np.abs(value - numeric).max():.1e}")

# %%
# Two connections side by side
# ----------------------------
# A Coriolis matrix is the choice of an affine connection (seed 000 eq. 10). geomech builds a
# robot's from one connection per body (:mod:`geomech.multibody.connections.body`) through
# :math:`\bar C = A^\top C A + A^\top H\dot A` (seed 000 eq. 17). For the double pendulum the
# Levi-Civita choice (Christoffel consistent) and ``velocity-cross`` (seed 001 eq. 9,
# Pinocchio's former choice) coincide: with two degrees of freedom there is only one skew,
# correct factorization (seed 000 Cor. IV.1).
C_vc = sm.coriolis_matrix("velocity-cross")
print("double pendulum, C(velocity-cross) == C(levi-civita):", C_vc == C)

# %%
# The SCARA (revolute, revolute, prismatic, revolute about the vertical) has four; there the
# two connections give different matrices, shown entry by entry. The prismatic quill does not
# couple to the arm: its row and column are zero off the diagonal.
scara = SymbolicModel(robots.scara())
print("SCARA H =")
sp.pprint(scara.mass_matrix(), use_unicode=True)
C_lc, C_vc = scara.coriolis_matrix("levi-civita"), scara.coriolis_matrix("velocity-cross")
for i in range(scara.n):
    for k in range(scara.n):
        if C_lc[i, k] != 0 or C_vc[i, k] != 0:
            print(f"C[{i},{k}]  levi-civita: {C_lc[i, k]}    velocity-cross: {C_vc[i, k]}")

# %%
# Skew-symmetry of :math:`\dot{\mathbf H} - 2\mathbf C`, symbolically
# ---------------------------------------------------------------------
# :math:`\dot{\mathbf H} - 2\mathbf C` is skew for every :math:`\mathbf q, \dot{\mathbf q}`
# iff the connection is metric compatible (seed 000 Prop. IV.1), and :math:`\mathbf C\dot{\mathbf
# q} = \mathbf C^\star\dot{\mathbf q}` (the right equations of motion) iff it has the
# Riemannian geodesics (Prop. IV.2). Both are identities between formulas, checked here
# exactly for the six named body connections on the SCARA:
H_dot = scara.mass_matrix_derivative()
print(f"{'connection':<16} {'Hdot - 2C skew':>15} {'C qdot = C* qdot':>17}")
for connection in gm.multibody.NAMED_BODY_CONNECTIONS:
    Cc = scara.coriolis_matrix(connection)
    N = H_dot - 2 * Cc
    skew = sp.expand(N + N.T) == sp.zeros(scara.n)
    correct = sp.expand((Cc - C_lc) * scara.v) == sp.zeros(scara.n, 1)
    print(f"{connection:<16} {str(skew):>15} {str(correct):>17}")

# %%
# ``cartan-minus`` is skew but gives the wrong dynamics (it drops the body-level gyroscopic
# terms), the ``cartan-zero`` and ``cartan-plus`` matrices are neither: the Slotine–Li proof
# (seed 000 eq. 14) needs the first column, the equations of motion the second.
#
# The cost of symbolic mechanics (seed 001 Table 2)
# -------------------------------------------------
# Planar chains of uniform rods (1 to 6 joints) and a planar binary tree of 5 bodies: the time
# to derive :math:`\Gamma` symbolically (kinematics, :math:`\mathbf H`, eq. 4), the size of
# the result, the time to turn it into a numpy function (``lambdify``), and the time per
# evaluation of that function against one call of the numeric Algorithm 2
# (:func:`geomech.christoffel_symbols`).


def planar_tree(parent):
    """Uniform 1 m, 1 kg rods hanging along -z, each joint (about y) at its parent's tip."""
    rod = spatial_inertia(1.0, [0.0, 0.0, -0.5], np.diag([1 / 12, 1 / 12, 0.0]))
    tip = np.eye(4)
    tip[2, 3] = -1.0
    placements = [np.eye(4) if p < 0 else tip for p in parent]
    joints = [Revolute([0.0, 1.0, 0.0]) for _ in parent]
    return MultibodyModel.from_bodies(parent, joints, [rod] * len(parent), placements)


def best_time(f, repeat=5, number=20):
    """Best time per call of f over `repeat` runs of `number` calls (s)."""
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            f()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


rows = []
systems = [(f"chain {n}", list(range(-1, n - 1))) for n in range(1, 7)]
systems.append(("binary tree 5", [-1, 0, 0, 1, 1]))
for label, parent in systems:
    model = planar_tree(parent)
    t0 = time.perf_counter()
    sym = SymbolicModel(model)
    Gamma = sym.christoffel_symbols()
    t_derive = time.perf_counter() - t0
    ops = int(sum(sp.count_ops(e) for e in Gamma))
    t0 = time.perf_counter()
    f = sp.lambdify([list(sym.q)], Gamma.tolist(), "numpy")
    t_lambdify = time.perf_counter() - t0
    qr = model.random_configuration(rng)
    err = np.abs(np.array(f(qr), dtype=float) - gm.christoffel_symbols(model, qr)).max()
    t_eval = best_time(lambda f=f, qr=qr: f(qr))
    t_numeric = best_time(lambda model=model, qr=qr: gm.christoffel_symbols(model, qr))
    rows.append((label, model.nv, t_derive, ops, t_lambdify, t_eval, t_numeric, err))

print(
    f"{'system':<14} {'derive Γ (s)':>12} {'ops':>6} {'lambdify (s)':>12} "
    f"{'formula (us)':>12} {'Alg. 2 (us)':>11} {'max diff':>9}"
)
for label, _n, t_derive, ops, t_lam, t_eval, t_num, err in rows:
    print(
        f"{label:<14} {t_derive:12.3f} {ops:6d} {t_lam:12.3f} {1e6 * t_eval:12.1f} "
        f"{1e6 * t_num:11.1f} {err:9.1e}"
    )

# %%
# Seed 001's Table 2 timed MATLAB's symbolic toolbox on (non-planar) binary trees: eq. (4)
# (symbolic CRBA, then partial derivatives) took 1.23 s, 7.83 s and 27.1 s for :math:`N` = 5,
# 10 and 15 bodies, Algorithm 2 with symbolic inputs 0.97 s, 3.11 s and 5.88 s; beyond
# :math:`N = 15` both take hours, and Algorithm 2 run symbolically on a 10-DoF planar serial
# chain took 26.8 minutes, in which time the numeric Algorithm 2 evaluates all
# :math:`\Gamma_{ijk}` "more than ten million times". Our numbers beside theirs (different
# machines, languages and systems: an order of magnitude, not a benchmark):
tree = rows[-1]
print(
    f"binary tree N = 5: eq. (4) here {tree[2]:.2f} s (planar); seed 001 Table 2: eq. (4) "
    "1.23 s, Alg. 2 symbolic 0.97 s"
)
chain = rows[5]
print(
    f"in 26.8 min the numeric Alg. 2 evaluates Γ of the 6-joint chain "
    f"{26.8 * 60 / chain[6]:.1e} times (seed 001: > 1e7 times for its 10-DoF chain)"
)
n_dof = np.array([r[1] for r in rows[:6]])
ops = np.array([r[3] for r in rows[:6]], dtype=float)
power = np.polyfit(np.log(n_dof[2:]), np.log(ops[2:]), 1)[0]
print(f"operations in Γ grow like n^{power:.1f} over chains of 3 to 6 joints")

# %%
# The formulas grow like a high power of the number of joints (:math:`n^3` symbols, each a
# sum of :math:`O(n^2)` Fourier modes of the chain's angle sums), and the time to evaluate
# them with it, while the numeric Algorithm 2 does :math:`O(Nd^2)` arithmetic (its time here
# is mostly the fixed cost of a Python call). A lambdified formula wins for the smallest
# systems only; the symbolic model's role is the one it plays above: formulas to read, and an
# independent oracle for the numeric algorithms.
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
axes[0].semilogy(n_dof, [r[2] for r in rows[:6]], "o-", label=r"derive $\Gamma$ (sympy)")
axes[0].semilogy(n_dof, [r[4] for r in rows[:6]], "s-", label="lambdify")
axes[0].set_xlabel("joints of the planar chain")
axes[0].set_ylabel("time (s)")
axes[0].legend()
axes[0].set_title("symbolic derivation")
axes[1].semilogy(n_dof, [1e6 * r[5] for r in rows[:6]], "o-", label="lambdified formula")
axes[1].semilogy(n_dof, [1e6 * r[6] for r in rows[:6]], "s-", label="numeric Alg. 2")
axes[1].set_xlabel("joints of the planar chain")
axes[1].set_ylabel(r"time per evaluation of $\Gamma$ ($\mu$s)")
axes[1].legend()
axes[1].set_title("evaluation")
fig.tight_layout()
out = Path(tempfile.gettempdir()) / "geomech_tutorials"
out.mkdir(exist_ok=True)
fig.savefig(out / "12_cost_of_symbolic_mechanics.png", dpi=100)
plt.show()
