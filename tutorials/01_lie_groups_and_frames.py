"""
Lie groups and frames
=====================

Configuration manifolds of single rigid bodies are Lie groups: SO(3) for attitude, SE(3) for a
free body, SE(2) for a planar body and the Schönflies group X(z) for SCARA-type motions. This
tutorial follows seed 003 (P. J. From, *An Explicit Formulation of Singularity-Free Dynamic
Equations of Mechanical Systems in Lagrangian Form — Part one: Single Rigid Bodies*) and shows,
with :mod:`geomech.lie`:

1. ``exp``/``log`` on SO(3) and SE(3) (principal values, the angle-π convention);
2. the adjoint identities ``Ad(a b) = Ad(a) Ad(b)``, ``Ad(exp ξ) = expm(ad ξ)`` and
   ``ad(ξ) η = [ξ̂, η̂]^∨``;
3. structure constants ``[E_i, E_j] = Σ_k s_ijk E_k`` (seed 003 §1.6);
4. the right Jacobian ``J_r(φ)``, which is the paper's velocity map ``S(φ)`` of the exponential
   chart ``g = ḡ exp(φ̂)`` (eqs. 28-29, 34), and its singularity at ``θ = 2π``;
5. batched evaluation (leading batch dimensions, no Python loops).

Twists are angular first, ``ξ = [ω; v]`` (the paper writes ``[v; ω]``).
"""

# %%
# Exponential and logarithm on SO(3)
# ----------------------------------
# ``SO3.exp`` maps a rotation vector ``ω`` (angle ``|ω|`` about ``ω/|ω|``) to a rotation
# matrix. A quarter turn about z maps the x axis to the y axis.
import matplotlib.pyplot as plt
import numpy as np

from geomech.errors import SingularityError
from geomech.lie import SE3, SO3, Schoenflies
from geomech.lie.quaternion import matrix_to_quat

R = SO3.exp([0.0, 0.0, np.pi / 2])
print(np.round(R, 6) + 0.0)
print("R e_x =", np.round(R @ [1.0, 0.0, 0.0], 6) + 0.0)
print("log R =", SO3.log(R))
print("quaternion (x, y, z, w) =", np.round(matrix_to_quat(R), 6))

# %%
# ``log`` returns the principal value, with angle in ``[0, π]``: a rotation by 4 rad about z
# comes back as a rotation by ``2π - 4`` rad about ``-z``. Near ``θ = π`` the axis is read
# from the symmetric part of ``R``, so the result stays accurate; at exactly ``π`` both
# ``±ω`` are valid and the returned axis has its largest component positive (a convention).
print("log exp(4 e_z) =", SO3.log(SO3.exp([0.0, 0.0, 4.0])) + 0.0)
for delta in [1e-3, 1e-8, 0.0]:
    w = SO3.log(SO3.exp((np.pi - delta) * np.array([0.0, -0.6, 0.8])))
    print(f"angle π - {delta:g}: |log| - π = {np.linalg.norm(w) - np.pi:+.2e}, axis {w / np.pi}")

# %%
# SE(3): screw motions
# --------------------
# ``SE3.exp([ω; v])`` is ``[[exp(ω), J_l(ω) v], [0, 1]]``: a constant twist traces a helix.
# Here the body turns about z while moving forward along its own x axis and rising along z.
xi = np.array([0.0, 0.0, 1.0, 1.0, 0.0, 0.2])  # [ω; v] in rad/s and m/s
t = np.linspace(0.0, 2 * np.pi, 61)  # s
poses = SE3.exp(t[:, None] * xi)  # (61, 4, 4), one call
print("pose at t = π (half a turn):\n", np.round(poses[30], 6) + 0.0)

# %%
# After a full turn the orientation is back to the identity and the pose is a pure translation
# of ``2π · 0.2`` m along z, so its principal logarithm is a pure translation twist.
print("log of the pose at t = 2π:", np.round(SE3.log(poses[-1]), 6) + 0.0)

# %%
# Adjoint identities
# ------------------
# ``Ad(g)`` is the ``dim × dim`` matrix of ``ξ ↦ (g ξ̂ g⁻¹)^∨``; on SE(3), in ``[ω; v]`` order,
# ``Ad(g) = [[R, 0], [p̂ R, R]]``. Its derivative at the identity is ``ad(ξ) = [[ω̂, 0],
# [v̂, ω̂]]``, which is Featherstone's ``crm(ξ)``.
from scipy.linalg import expm  # noqa: E402

rng = np.random.default_rng(0)
a, b = SE3.random(rng, size=2)
xi, eta = rng.standard_normal((2, 6))
print("Ad(ab) = Ad(a) Ad(b):      ", np.allclose(SE3.Ad(a @ b), SE3.Ad(a) @ SE3.Ad(b)))
print("Ad(exp xi) = expm(ad xi):  ", np.allclose(SE3.Ad(SE3.exp(xi)), expm(SE3.ad(xi))))
X, Y = SE3.hat(xi), SE3.hat(eta)
print("ad(xi) eta = [X, Y]^vee:   ", np.allclose(SE3.ad(xi) @ eta, SE3.vee(X @ Y - Y @ X)))

# %%
# Structure constants
# -------------------
# In the basis ``E_i = hat(e_i)``, ``[E_i, E_j] = Σ_k s[i, j, k] E_k`` and
# ``ad(E_i)[k, j] = s[i, j, k]`` (seed 003 §1.6 writes ``c^k_ij``). On so(3) they are the
# Levi-Civita symbol; on the Schönflies algebra ``[ω_z, vx, vy, vz]`` only the rotation
# couples to the planar translations and ``vz`` is central.
s = SO3.structure_constants()
print("so(3): [E_x, E_y] =", s[0, 1], " [E_y, E_z] =", s[1, 2])
s4 = Schoenflies.structure_constants()
nonzero = [(i, j, k, s4[i, j, k]) for i, j, k in zip(*np.nonzero(s4), strict=True) if i < j]
print(
    "Schönflies nonzero s[i, j, k] (i < j):",
    [(int(i), int(j), int(k), float(v)) for i, j, k, v in nonzero],
)

# %%
# The velocity map S(φ) is the right Jacobian
# -------------------------------------------
# In the chart ``g = ḡ exp(φ̂)`` (seed 003 eq. 59) the body velocity is ``v = S(φ) φ̇`` with
# ``S(φ) = Σ_k (-ad_φ)^k/(k+1)! = J_r(φ)``. We check the paper's reference value and the
# defining property ``(exp(-φ̂) d/dt exp(φ̂))^∨ = S(φ) φ̇`` by a central difference.
phi = np.array([0.3, -0.2, 0.5])
print("S_SO3(0.3, -0.2, 0.5) =\n", np.round(SO3.right_jacobian(phi), 8))
phidot = np.array([0.5, -0.2, 0.9])  # rad/s
h = 1e-6
dR = (SO3.exp(phi + h * phidot) - SO3.exp(phi - h * phidot)) / (2 * h)
print(
    "body velocity matches:",
    np.allclose(SO3.vee(SO3.exp(phi).T @ dR), SO3.right_jacobian(phi) @ phidot),
)

# %%
# ``det S = 2(1 - cos θ)/θ²`` vanishes at ``θ = 2πk``: the exponential chart is singular there,
# which is why the paper re-centres the chart at the current pose (``φ = 0``, ``S = I``) instead
# of integrating ``φ``. geomech raises :class:`~geomech.errors.SingularityError` when asked
# for ``S⁻¹`` on the singular set.
theta = np.linspace(1e-3, 4 * np.pi, 400)
u = np.array([1.0, 2.0, 2.0]) / 3.0
det_S = np.linalg.det(SO3.right_jacobian(theta[:, None] * u))  # batched over θ
det_S_se3 = np.linalg.det(
    SE3.right_jacobian(np.concatenate([theta[:, None] * u, np.ones((theta.size, 3))], axis=1))
)

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(theta, det_S, label="SO(3): 2(1 - cos θ)/θ²")
ax.plot(theta, det_S_se3, "--", label="SE(3): (2(1 - cos θ)/θ²)²")
for k in (1, 2):
    ax.axvline(2 * np.pi * k, color="gray", lw=0.8)
ax.set_xlabel("rotation angle θ [rad]")
ax.set_ylabel("det S(φ)")
ax.set_title("The exponential chart is singular at θ = 2πk")
ax.legend()
fig.tight_layout()

try:
    SO3.right_jacobian_inverse(2 * np.pi * u)
except SingularityError as err:
    print("SingularityError:", err)

# %%
# Batched evaluation
# ------------------
# Every method accepts leading batch dimensions; single inputs are the batch-free case of the
# same vectorised code. Here 10 000 random twists are mapped to poses and back at once.
xis = rng.standard_normal((100, 100, 6))
xis[..., :3] *= 3.0 / np.maximum(np.linalg.norm(xis[..., :3], axis=-1, keepdims=True), 3.0)
g = SE3.exp(xis)  # (100, 100, 4, 4)
print("batch shape:", g.shape)
print("max |log(exp(xi)) - xi| =", np.max(np.abs(SE3.log(g) - xis)))
print("Ad batch shape:", SE3.Ad(g).shape, " J_r batch shape:", SE3.right_jacobian(xis).shape)
