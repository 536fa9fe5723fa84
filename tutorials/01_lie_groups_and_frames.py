r"""
Lie groups and frames
=====================

Configuration manifolds of single rigid bodies are Lie groups: SO(3) for attitude, SE(3) for a
free body, SE(2) for a planar body and the Schönflies group X(z) for SCARA-type motions. This
tutorial follows seed 003 (P. J. From, *An Explicit Formulation of Singularity-Free Dynamic
Equations of Mechanical Systems in Lagrangian Form — Part one: Single Rigid Bodies*) and shows,
with :mod:`geomech.lie`:

1. ``exp``/``log`` on SO(3) and SE(3) (principal values, the convention at angle :math:`\pi`);
2. the adjoint identities :math:`\mathrm{Ad}(ab) = \mathrm{Ad}(a)\,\mathrm{Ad}(b)`,
   :math:`\mathrm{Ad}(\exp\xi) = \exp(\mathrm{ad}\,\xi)` and
   :math:`\mathrm{ad}(\xi)\,\eta = [\hat\xi, \hat\eta]^\vee`;
3. structure constants :math:`[E_i, E_j] = \sum_k s_{ijk} E_k` (seed 003 §1.6);
4. the right Jacobian :math:`J_r(\varphi)`, which is the paper's velocity map
   :math:`S(\varphi)` of the exponential chart :math:`g = \bar g \exp(\hat\varphi)`
   (eqs. 28-29, 34), and its singularity at :math:`\theta = 2\pi`;
5. batched evaluation (leading batch dimensions, no Python loops).

Twists are angular first, :math:`\xi = [\omega; v]` (the paper writes :math:`[v; \omega]`).
"""

# %%
# Exponential and logarithm on SO(3)
# ----------------------------------
# ``SO3.exp`` maps a
# rotation vector :math:`\omega` (angle :math:`|\omega|` about :math:`\omega/|\omega|`) to a
# rotation matrix. A quarter turn about z maps the x axis to the y axis.
import matplotlib.pyplot as plt
import numpy as np

from geomech.errors import SingularityError
from geomech.lie import SE3, SO3, Schoenflies
from geomech.lie.quaternion import matrix_to_quat
from geomech.plot import show_or_save

R = SO3.exp([0.0, 0.0, np.pi / 2])
print(np.round(R, 6) + 0.0)
print("R e_x =", np.round(R @ [1.0, 0.0, 0.0], 6) + 0.0)
print("log R =", SO3.log(R))
print("quaternion (x, y, z, w) =", np.round(matrix_to_quat(R), 6))

# %%
# ``log`` returns the principal value, with angle in :math:`[0, \pi]`: a rotation by 4 rad
# about :math:`z` comes back as a rotation by :math:`2\pi - 4` rad about :math:`-z`. Near
# :math:`\theta = \pi` the axis is read from the symmetric part of :math:`R`, so the result
# stays accurate; at exactly :math:`\pi` both :math:`\pm\omega` are valid and the returned axis
# has its largest component positive (a convention).
print("log exp(4 e_z) =", SO3.log(SO3.exp([0.0, 0.0, 4.0])) + 0.0)
for delta in [1e-3, 1e-8, 0.0]:
    w = SO3.log(SO3.exp((np.pi - delta) * np.array([0.0, -0.6, 0.8])))
    print(f"angle π - {delta:g}: |log| - π = {np.linalg.norm(w) - np.pi:+.2e}, axis {w / np.pi}")

# %%
# SE(3): screw motions
# --------------------
# ``SE3.exp([w, v])`` is :math:`\begin{bmatrix}\exp(\hat\omega) & J_l(\omega) v\\ 0 & 1
# \end{bmatrix}`: a constant twist traces a helix.
# Here the body turns about z while moving forward along its own x axis and rising along z.
xi = np.array([0.0, 0.0, 1.0, 1.0, 0.0, 0.2])  # [w; v] in rad/s and m/s
t = np.linspace(0.0, 2 * np.pi, 61)  # s
poses = SE3.exp(t[:, None] * xi)  # (61, 4, 4), one call
print("pose at t = π (half a turn):\n", np.round(poses[30], 6) + 0.0)

# %%
# After a full turn the orientation is back to the identity and the pose is a pure translation
# of :math:`2\pi \cdot 0.2` m along :math:`z`, so its principal logarithm is a pure translation
# twist.
print("log of the pose at t = 2π:", np.round(SE3.log(poses[-1]), 6) + 0.0)

# %%
# Adjoint identities
# ------------------
# :math:`\mathrm{Ad}(g)` is the matrix of :math:`\xi \mapsto (g\hat\xi g^{-1})^\vee`; on
# SE(3), in :math:`[\omega; v]` order, :math:`\mathrm{Ad}(g) = \begin{bmatrix}R & 0\\ \hat p R
# & R\end{bmatrix}`. Its derivative at the identity is :math:`\mathrm{ad}(\xi) =
# \begin{bmatrix}\hat\omega & 0\\ \hat v & \hat\omega\end{bmatrix}`, which is
# Featherstone's :math:`\mathrm{crm}(\xi)`.
from scipy.linalg import expm

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
# In the basis :math:`E_i = \hat e_i`, :math:`[E_i, E_j] = \sum_k s_{ijk} E_k` and
# :math:`\mathrm{ad}(E_i)_{kj} = s_{ijk}` (seed 003 §1.6 writes :math:`c^k_{ij}`). On so(3)
# they are the Levi-Civita symbol; on the Schönflies algebra :math:`[\omega_z, v_x, v_y, v_z]`
# only the rotation couples to the planar translations and :math:`v_z` is central.
s = SO3.structure_constants()
print("so(3): [E_x, E_y] =", s[0, 1], " [E_y, E_z] =", s[1, 2])
s4 = Schoenflies.structure_constants()
nonzero = [(i, j, k, s4[i, j, k]) for i, j, k in zip(*np.nonzero(s4), strict=True) if i < j]
print(
    "Schönflies nonzero s[i, j, k] (i < j):",
    [(int(i), int(j), int(k), float(v)) for i, j, k, v in nonzero],
)

# %%
# The velocity map is the right Jacobian
# --------------------------------------
# In the chart :math:`g = \bar g \exp(\hat\varphi)` (seed 003 eq. 59) the body velocity is
# :math:`v = S(\varphi)\dot\varphi` with :math:`S(\varphi) = \sum_k
# (-\mathrm{ad}_\varphi)^k/(k+1)! = J_r(\varphi)`. We check the paper's reference value and
# the defining property :math:`\bigl(\exp(-\hat\varphi)\tfrac{d}{dt}\exp(\hat\varphi)
# \bigr)^\vee = S(\varphi)\dot\varphi` by a central difference.
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
# :math:`\det S = 2(1 - \cos\theta)/\theta^2` vanishes at :math:`\theta = 2\pi k`: the
# exponential chart is singular there, which is why the paper re-centres the chart at the
# current pose (:math:`\varphi = 0`, :math:`S = \mathbf 1`) instead of integrating
# :math:`\varphi`. geomech raises :class:`~geomech.errors.SingularityError` when asked for
# :math:`S^{-1}` on the singular set.
theta = np.linspace(1e-3, 4 * np.pi, 400)
u = np.array([1.0, 2.0, 2.0]) / 3.0
det_S = np.linalg.det(SO3.right_jacobian(theta[:, None] * u))  # batched over θ
det_S_se3 = np.linalg.det(
    SE3.right_jacobian(np.concatenate([theta[:, None] * u, np.ones((theta.size, 3))], axis=1))
)

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(theta, det_S, label=r"SO(3): $2(1 - \cos\theta)/\theta^2$")
ax.plot(theta, det_S_se3, "--", label=r"SE(3): $\left(2(1 - \cos\theta)/\theta^2\right)^2$")
for k in (1, 2):
    ax.axvline(2 * np.pi * k, color="gray", lw=0.8)
ax.set_xlabel(r"rotation angle $\theta$ (rad)")
ax.set_ylabel(r"$\det S(\varphi)$ (dimensionless)")
ax.set_title(r"The exponential chart is singular at $\theta = 2\pi k$")
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
show_or_save()
