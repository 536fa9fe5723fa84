"""
Derivatives of the dynamics: Newton steps for trajectory optimisation
======================================================================

Seed 002 (Singh, Russell & Wensing, IROS 2022) gives the second-order partial derivatives of
inverse dynamics :math:`\\tau = \\mathrm{ID}(q, \\dot q, \\ddot q)` in closed form and an
:math:`O(Nd^2)` algorithm for them (IDSVA SO). Their use: exact Newton (or DDP) steps where a
first-order method only has the Gauss–Newton approximation. Here we swing a double pendulum
(unit point masses on unit links, both joints actuated) from hanging to upright in
:math:`T = 2` s with the least torque, by direct transcription on :math:`K` intervals of
length :math:`h`:

.. math::

    \\min_{q_1, \\dots, q_{K-1}} J = \\tfrac h2\\sum_{t=0}^{K} w_t\\,\\|\\tau_t\\|^2,\\qquad
    \\tau_t = \\mathrm{ID}\\big(q_t,\\ \\tfrac{q_{t+1} - q_{t-1}}{2h},\\
    \\tfrac{q_{t+1} - 2q_t + q_{t-1}}{h^2}\\big)

with :math:`q_0` hanging, :math:`q_K` upright, rest at both ends (mirrored ghost knots) and
trapezoidal weights :math:`w_t`. The state :math:`z_t = (q_t, \\dot q_t, \\ddot q_t) = E_t Q +
c_t` is affine in the unknowns :math:`Q`, so

.. math::

    \\nabla J = h\\sum_t w_t E_t^\\top \\mathbf J_t^\\top\\tau_t,\\qquad
    \\nabla^2 J = h\\sum_t w_t E_t^\\top\\Big(\\mathbf J_t^\\top\\mathbf J_t
    + \\sum_a \\tau_{t,a}\\,\\nabla_z^2\\tau_{t,a}\\Big)E_t

where :math:`\\mathbf J_t = [\\partial\\tau/\\partial q,\\ \\partial\\tau/\\partial\\dot q,\\ M]`
comes from :func:`~geomech.multibody.algorithms.derivatives.rnea_derivatives` and the second term,
which Gauss–Newton drops, from
:func:`~geomech.multibody.algorithms.derivatives.rnea_second_derivatives`:

.. math::

    \\nabla_z^2\\tau_a = \\begin{bmatrix}
    \\partial^2_{qq}\\tau_a & \\partial^2_{q\\dot q}\\tau_a & (\\partial M/\\partial q)_a^\\top\\\\
    \\cdot & \\partial^2_{\\dot q\\dot q}\\tau_a & 0\\\\ \\cdot & 0 & 0\\end{bmatrix},\\qquad
    \\frac{\\partial^2\\tau_a}{\\partial q_b\\,\\partial\\ddot q_c} = \\frac{\\partial M_{ac}}
    {\\partial q_b}.

The residual :math:`\\tau` does not vanish at the optimum, so Gauss–Newton converges only
linearly while Newton converges quadratically. We check the analytic gradient and Hessian
against finite differences of :math:`J` on the way.
"""

# %%
# The transcription
# -----------------
# All the knots are evaluated in one batched call: the derivative functions accept leading
# batch dimensions like every geomech function.
import matplotlib.pyplot as plt
import numpy as np

from geomech import crba, rnea, robots
from geomech.multibody.algorithms.derivatives import rnea_derivatives, rnea_second_derivatives
from geomech.plot import show_or_save

model = robots.double_pendulum()
n = model.nv
T, K = 2.0, 40
h = T / K  # s
q_start, q_end = np.zeros(n), np.array([np.pi, 0.0])  # hanging -> upright (rad)
w = np.ones(K + 1)
w[[0, -1]] = 0.5  # trapezoidal weights


def knot_states(Q):
    """(q, v, a) at the K + 1 knots from the interior knots Q (K - 1, n)."""
    X = np.vstack([q_start, Q, q_end])
    Xg = np.vstack([X[1], X, X[-2]])  # mirrored ghosts: zero velocity at both ends
    return X, (Xg[2:] - Xg[:-2]) / (2 * h), (Xg[2:] - 2 * Xg[1:-1] + Xg[:-2]) / h**2


def cost(Q):
    """J = h/2 Σ w_t |τ_t|², in N² m² s."""
    tau = rnea(model, *knot_states(Q))
    return 0.5 * h * np.sum(w * np.sum(tau**2, axis=-1))


# z_t = E_t vec(Q) + c_t: the matrix E (K + 1, 3n, (K - 1) n) from unit vectors
m = (K - 1) * n
c = np.concatenate(knot_states(np.zeros((K - 1, n))), axis=-1)
E = np.stack(
    [np.concatenate(knot_states(e.reshape(K - 1, n)), axis=-1) - c for e in np.eye(m)], axis=-1
)
weights = h * w[:, None, None]


def derivatives(Q):
    """∇J, the Newton Hessian ∇²J and the Gauss–Newton Hessian at Q (flattened)."""
    q, v, a = knot_states(Q)
    tau = rnea(model, q, v, a)
    dtau_dq, dtau_dv = rnea_derivatives(model, q, v, a)
    Jz = np.concatenate([dtau_dq, dtau_dv, crba(model, q)], axis=-1)  # (K + 1, n, 3n)
    # Σ_a τ_a ∇²τ_a: the block-sparse tensors contracted on their torque index, knot by knot
    so = rnea_second_derivatives(model, q, v, a, sparse=True)
    Sqq, Svv = so.d2tau_dq2.contract(tau), so.d2tau_dv2.contract(tau)
    Sqv = so.d2tau_dqdv.contract(tau)  # [q_b, v_c]
    SaQ = so.dM_dq.contract(tau)  # [c, b] = Σ_a τ_a ∂M_ac/∂q_b: rows ä, columns q
    Sqq = 0.5 * (Sqq + np.swapaxes(Sqq, -1, -2))  # the symmetric part (already, 1-DoF joints)
    Z = np.zeros_like(Sqq)
    S = np.block(
        [[Sqq, Sqv, np.swapaxes(SaQ, -1, -2)], [np.swapaxes(Sqv, -1, -2), Svv, Z], [SaQ, Z, Z]]
    )
    grad = np.einsum("tzm,tz->m", E, np.einsum("taz,ta->tz", weights * Jz, tau))
    gauss_newton = np.einsum("tzm,tzy,tyk->mk", E, weights * np.swapaxes(Jz, -1, -2) @ Jz, E)
    newton = gauss_newton + np.einsum("tzm,tzy,tyk->mk", E, weights * S, E)
    return grad, newton, gauss_newton


# %%
# Checking the derivatives against finite differences
# ---------------------------------------------------
# At the initial guess (the first joint interpolated linearly, the second kept straight plus a
# bump), the gradient is compared with central differences of J and the Newton Hessian with
# central differences of the analytic gradient.
Q0 = np.stack(
    [np.linspace(0.0, np.pi, K + 1)[1:-1], 0.5 * np.sin(np.linspace(0.0, np.pi, K + 1)[1:-1])],
    axis=-1,
)
grad, newton, gauss_newton = derivatives(Q0)
eps = 1e-6
fd_grad = np.array(
    [
        (cost(Q0 + eps * e.reshape(K - 1, n)) - cost(Q0 - eps * e.reshape(K - 1, n))) / (2 * eps)
        for e in np.eye(m)
    ]
)
fd_hess = np.stack(
    [
        (
            derivatives(Q0 + eps * e.reshape(K - 1, n))[0]
            - derivatives(Q0 - eps * e.reshape(K - 1, n))[0]
        )
        / (2 * eps)
        for e in np.eye(m)
    ],
    axis=-1,
)
print(
    f"gradient vs finite differences (max rel. error): "
    f"{np.max(np.abs(grad - fd_grad)) / np.max(np.abs(fd_grad)):.1e}"
)
print(
    f"Newton Hessian vs finite differences (max rel. error): "
    f"{np.max(np.abs(newton - fd_hess)) / np.max(np.abs(fd_hess)):.1e}"
)
print(
    f"Gauss-Newton Hessian vs finite differences (max rel. error): "
    f"{np.max(np.abs(gauss_newton - fd_hess)) / np.max(np.abs(fd_hess)):.1e}"
)

# %%
# Newton vs Gauss–Newton
# ----------------------
# Both use the same globalisation: a Levenberg–Marquardt shift :math:`\mu` that makes the
# model Hessian positive definite (divided by 10 after a good step, so that near the optimum the
# steps are Newton's own, and multiplied by 10 after a bad one)
# and a backtracking line search on J.


def minimise(which, Q, iterations=40):
    """Damped (Gauss-)Newton iterations until J stalls; the cost after each one."""
    mu, history = 1e-3, [cost(Q)]
    for _ in range(iterations):
        grad, newton, gauss_newton = derivatives(Q)
        Hm = newton if which == "newton" else gauss_newton
        while True:
            try:
                L = np.linalg.cholesky(Hm + mu * np.eye(m))
                break
            except np.linalg.LinAlgError:
                mu *= 10.0
        step = -np.linalg.solve(L.T, np.linalg.solve(L, grad)).reshape(K - 1, n)
        alpha, J0 = 1.0, history[-1]
        while cost(Q + alpha * step) > J0 + 1e-4 * alpha * grad @ step.ravel() and alpha > 1e-8:
            alpha *= 0.5
        Q = Q + alpha * step
        history.append(cost(Q))
        mu = max(mu * 0.1, 1e-12) if alpha == 1.0 else mu * 10.0
        if history[-2] - history[-1] <= 1e-14 * history[-1]:
            break
    return Q, np.array(history)


Q_newton, J_newton = minimise("newton", Q0)
Q_gn, J_gn = minimise("gauss-newton", Q0)
J_star = min(J_newton[-1], J_gn[-1])
gap_newton, gap_gn = J_newton - J_star, J_gn - J_star
print(
    f"Newton: J* = {J_newton[-1]:.10f} after {len(J_newton) - 1} iterations; its last gaps "
    "J - J*: " + ", ".join(f"{g:.0e}" for g in gap_newton[-9:-3])
)
rate = np.exp(np.mean(np.log(gap_gn[-11:-1] / gap_gn[-12:-2])))
print(
    f"Gauss-Newton: J - J* = {gap_gn[-1]:.1e} after {len(J_gn) - 1} iterations, "
    f"linear rate {rate:.2f}"
)
print(f"gradient norm at the Newton solution: {np.linalg.norm(derivatives(Q_newton)[0]):.1e}")

# %%
# The cost plot
# -------------
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
ax1.semilogy(J_newton - J_star + 1e-16, "o-", label="Newton (IDSVA second order)")
ax1.semilogy(J_gn - J_star + 1e-16, "s-", label="Gauss–Newton (first order only)")
ax1.set_xlabel("iteration")
ax1.set_ylabel(r"$J - J^\star$  [N$^2$ m$^2$ s]")
ax1.set_title("Convergence of the swing-up")
ax1.legend(loc="upper right")
t = np.linspace(0.0, T, K + 1)
q, v, a = knot_states(Q_newton)
tau = rnea(model, q, v, a)
ax2.plot(t, q[:, 0], label=r"$q_1$ [rad]")
ax2.plot(t, q[:, 1], label=r"$q_2$ [rad]")
ax2.plot(t, tau[:, 0] / 10, "--", label=r"$\tau_1 / 10$ [N m]")
ax2.plot(t, tau[:, 1] / 10, "--", label=r"$\tau_2 / 10$ [N m]")
ax2.set_xlabel("time [s]")
ax2.set_ylabel("joint angle [rad], torque / 10 [N m]")
ax2.set_title("Optimal swing-up")
ax2.legend()
fig.tight_layout()
show_or_save()

# %%
# Far from the optimum the exact Hessian is indefinite, the Levenberg–Marquardt shift grows and
# Newton's steps are short (the plateau); once the Hessian is positive definite the
# convergence is quadratic (in the printed gaps each is about the square of the one before), while
# Gauss–Newton keeps its linear rate. A practical solver starts with Gauss–Newton and switches
# to the exact Hessian near the optimum; DDP uses the same second-order terms contracted with
# the costate, :math:`\lambda^\top\partial^2\tau`, which is what
# :meth:`~geomech.multibody.algorithms.blocksparse.BlockSparseTensor.contract` computes.
#
# With revolute joints the coordinates are a chart in which the second derivatives commute, so
# :math:`\partial^2\tau/\partial q^2` is symmetric. For spherical, planar, Schönflies and free-flyer
# joints the partials are iterated Lie derivatives along ``model.integrate`` and not symmetric
# (their difference is the bracket of the fields): a Newton step in the exponential chart uses the
# symmetric part, as above.
