"""Fixtures for the geometry tests: the two-link arm derived independently in sympy."""

import pytest
import sympy as sp
from geometry_helpers import ARM_PARAMS, G0


@pytest.fixture(scope="session")
def arm_sympy():
    """Two-link arm from its Lagrangian (positions of the centres of mass), in sympy.

    Returns lambdified H(q), c(q, qd) (Coriolis/centrifugal vector), g(q) and the first-kind
    Christoffel symbols Gamma[i, j, k] = 1/2 (dH_ij/dq_k + dH_ik/dq_j - dH_jk/dq_i).
    """
    p = ARM_PARAMS
    q1, q2, qd1, qd2, qdd1, qdd2 = sp.symbols("q1 q2 qd1 qd2 qdd1 qdd2", real=True)
    t = sp.Symbol("t")
    th1, th2 = sp.Function("th1")(t), sp.Function("th2")(t)
    x1 = sp.Matrix([p["lc1"] * sp.cos(th1), p["lc1"] * sp.sin(th1)])
    x2 = sp.Matrix(
        [
            p["l1"] * sp.cos(th1) + p["lc2"] * sp.cos(th1 + th2),
            p["l1"] * sp.sin(th1) + p["lc2"] * sp.sin(th1 + th2),
        ]
    )
    T = (
        sp.Rational(1, 2) * p["m1"] * x1.diff(t).dot(x1.diff(t))
        + sp.Rational(1, 2) * p["m2"] * x2.diff(t).dot(x2.diff(t))
        + sp.Rational(1, 2) * p["I1"] * th1.diff(t) ** 2
        + sp.Rational(1, 2) * p["I2"] * (th1.diff(t) + th2.diff(t)) ** 2
    )
    V = G0 * (p["m1"] * x1[1] + p["m2"] * x2[1])
    L = T - V
    tau = [sp.diff(L.diff(th.diff(t)), t) - L.diff(th) for th in (th1, th2)]
    subs = {th1.diff(t, 2): qdd1, th2.diff(t, 2): qdd2, th1.diff(t): qd1, th2.diff(t): qd2}
    tau = [e.subs(subs).subs({th1: q1, th2: q2}) for e in tau]
    tau = sp.Matrix([sp.expand(e) for e in tau])
    H = tau.jacobian([qdd1, qdd2])
    g = tau.subs({qd1: 0, qd2: 0, qdd1: 0, qdd2: 0})
    c = sp.simplify(tau - H * sp.Matrix([qdd1, qdd2]) - g)
    q = [q1, q2]
    Gamma = [
        [
            [
                sp.Rational(1, 2) * (H[i, j].diff(q[k]) + H[i, k].diff(q[j]) - H[j, k].diff(q[i]))
                for k in range(2)
            ]
            for j in range(2)
        ]
        for i in range(2)
    ]
    return dict(
        H=sp.lambdify((q1, q2), H, "numpy"),
        c=sp.lambdify((q1, q2, qd1, qd2), c, "numpy"),
        g=sp.lambdify((q1, q2), g, "numpy"),
        Gamma=sp.lambdify((q1, q2), sp.Array(Gamma), "numpy"),
        Hdot=sp.lambdify((q1, q2, qd1, qd2), H.diff(q1) * qd1 + H.diff(q2) * qd2, "numpy"),
    )
