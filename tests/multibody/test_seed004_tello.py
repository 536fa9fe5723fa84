"""Seed 004's Tello (issue 25): its differentials as linkages, against an independent reference.

:func:`geomech.multibody.io.robots.tello` builds the hip differential (two geared rotors,
cranks and rods with ball joints on the thigh) and the knee–ankle differential (knee = mean
of the rotor outputs, an ankle four-bar driven by their half difference) from loop joints
and couplings. The reference is independent of geomech's closure and dynamics code:

- the closure equations are written here from the mechanism's geometry, in the explicit
  coordinates of each leg (rotors, cranks, gimbal, thigh, knee, ankle): rod lengths
  :math:`|\\mathbf p_{\\rm crank} - \\mathbf p_{\\rm link}|^2 = \\ell^2` and the gear and
  differential relations; CasADi differentiates them (:math:`K`, :math:`\\dot K\\dot q`), so
  :math:`G = [1; -K_D^{-1}K_Y]` and :math:`g = -K_D^{-1}\\dot K \\dot q` on the rotor-side
  independent coordinates (seed 004 §1.2 [inferred]); the massless yokes, rods and idlers
  carry no inertia, so their rows of :math:`G` do not enter the dynamics and are left at 0;
- :math:`H` and the bias come from Pinocchio's CRBA and RNEA of the spanning tree, the body
  Jacobians from Pinocchio's joint Jacobians;
- C-RNEA must equal :math:`G^\\top\\mathrm{RNEA}_s(q, Gv, Ga + g)`, C-ABA
  :math:`(G^\\top HG)^{-1}(\\tau - G^\\top\\mathrm{RNEA}_s(q, Gv, g))` and C-EFPA
  :math:`JG(G^\\top HG)^{-1}G^\\top J^\\top`, to 1e-9 relative (floored at 1), as must the
  projection and Lagrange-multiplier baselines, at random closed states.

(Pinocchio's ``constraintDynamics`` does not apply: it has no gear couplings.)
"""

import math

import casadi as ca
import numpy as np
import pinocchio as pin
import pytest

from geomech.errors import ModelError
from geomech.interop.pinocchio import PinocchioBridge, to_pinocchio
from geomech.multibody.closed.dynamics import (
    cluster_aba,
    cluster_rnea,
    inverse_operational_space_inertia,
    lagrange_aba,
    projected_aba,
    projected_rnea,
)
from geomech.multibody.io import robots as R

RTOL = 1e-9
N_STATES = 3
N = 6.0  # every leg motor's gear ratio


def rel_err(actual, expected) -> float:
    scale = max(1.0, float(np.max(np.abs(expected))))
    return float(np.max(np.abs(np.asarray(actual) - expected))) / scale


def _rx(t):
    c, s = ca.cos(t), ca.sin(t)
    return ca.vertcat(ca.horzcat(1, 0, 0), ca.horzcat(0, c, -s), ca.horzcat(0, s, c))


def _ry(t):
    c, s = ca.cos(t), ca.sin(t)
    return ca.vertcat(ca.horzcat(c, 0, s), ca.horzcat(0, 1, 0), ca.horzcat(-s, 0, c))


def _dist2(a, b):
    d = a - b
    return ca.dot(d, d)


def _crank_offset(model, joint):
    """A crank's angle at q = 0 about y: its placement's rotation (model data)."""
    T = model.spanning_tree.placements[model.spanning_tree.joint_names.index(joint)]
    return math.atan2(T[0, 2], T[0, 0])


def leg_constraints(model, side):
    """(the leg's joints, CasADi phi(q), CasADi (q, q̇) -> (K, K̇q̇)) in those joints' order.

    Hip (clamp frame, the gimbal 142.5 mm below): crank k about y through (0, ±70, 0) mm,
    its tip 80 mm along -x turned by the crank angle; the rod (155 mm) ends at
    (-80, ±70, 0) mm on the thigh (gimbal roll x, thigh pitch y); rotor = 6 × crank.
    Knee–ankle (shin frame, knee at the origin): the crank pivot 42 mm from the knee at
    -160° about y, tip 40 mm; the rod (214.6 mm) ends on the foot 35 mm from the ankle
    (260 mm below the knee) at 24°; rotor 1 = 6 (knee − crank), rotor 2 = 6 (knee + crank),
    idler = −crank.
    """
    s = side
    names = [f"{s}_hip_rotor_1_joint", f"{s}_hip_rotor_2_joint",
             f"{s}_knee_ankle_rotor_1_joint", f"{s}_knee_ankle_rotor_2_joint",
             f"{s}_hip_crank_1_joint", f"{s}_hip_crank_2_joint", f"{s}_gimbal_joint",
             f"{s}_thigh_joint", f"{s}_knee_joint", f"{s}_ankle_crank_joint",
             f"{s}_ankle_idler_joint", f"{s}_ankle_joint"]  # fmt: skip
    q = ca.SX.sym("q", len(names))
    r1, r2, r3, r4, c1, c2, roll, pitch, knee, crank, idler, ankle = ca.vertsplit(q)
    phi = [r1 - N * c1, r2 - N * c2]
    for c, py, name in ((c1, 0.07, names[4]), (c2, -0.07, names[5])):
        t = _crank_offset(model, name) + c
        tip = ca.DM([0, py, 0]) + _ry(t) @ ca.DM([-0.08, 0, 0])
        ball = ca.DM([0, 0, -0.1425]) + _rx(roll) @ _ry(pitch) @ ca.DM([-0.08, py, 0])
        phi.append(_dist2(tip, ball) - 0.155**2)
    a = math.radians(-160.0)
    pivot = ca.DM([0.042 * math.sin(a), 0, 0.042 * math.cos(a)])
    t = _crank_offset(model, f"{s}_ankle_crank_joint") + crank
    tip = pivot + _ry(t) @ ca.DM([0.04, 0, 0])
    pin_ = ca.DM([0, 0, -0.26]) + _ry(ankle + math.radians(24.0)) @ ca.DM([0.035, 0, 0])
    phi += [r3 - N * (knee + idler), r4 - N * (knee + crank), idler + crank,
            _dist2(tip, pin_) - 0.2146**2]  # fmt: skip
    phi = ca.vertcat(*phi)
    qd = ca.SX.sym("qd", q.shape[0])
    K = ca.jacobian(phi, q)
    Kdqd = ca.jtimes(K @ qd, q, qd)  # K̇ q̇
    return names, ca.Function("phi", [q], [phi]), ca.Function("K", [q, qd], [K, Kdqd])


def reference_G(model, q, v):
    """(G, g) of the spanning speeds from the geometry alone (module docstring)."""
    st = model.spanning_tree
    names = st.joint_names

    def col(name):
        return st.v_slices[names.index(name)].start

    G = np.zeros((st.nv, model.nv))
    ind = list(model.independent_v_index)
    for c, j in enumerate(ind):
        G[j, c] = 1.0
    # geared links and their rotors (hip clamps, arms): rotor = ratio × link
    for u, w, d in model.graph.edges(data=True):
        if d.get("kind") == "coupling" and f"{w}_joint" in names and f"{u}_joint" in names:
            if w.endswith("_rotor") and u + "_rotor" == w:
                G[col(f"{w}_joint")] = d["ratio"] * G[col(f"{u}_joint")]
    g = np.zeros(st.nv)
    for side in ("left", "right"):
        leg, phi, Kfun = leg_constraints(model, side)
        cols = [col(n) for n in leg]
        Y = [i for i, c in enumerate(cols) if c in ind]  # the model's choice (rotors or links)
        D = [i for i in range(len(cols)) if i not in Y]
        qs = np.array([q[st.q_slices[names.index(n)].start] for n in leg])
        assert np.max(np.abs(np.asarray(phi(qs)))) <= 1e-10  # the model closes these loops
        K = np.asarray(Kfun(qs, np.zeros(len(cols)))[0])
        GD = -np.linalg.solve(K[:, D], K[:, Y])
        yc = [ind.index(cols[i]) for i in Y]
        Gl = np.zeros((len(cols), len(Y)))  # (12, 4) on the leg's independent speeds
        Gl[Y], Gl[D] = np.eye(len(Y)), GD
        for r, c in enumerate(cols):
            G[c, :] = 0.0
            G[c, yc] = Gl[r]
        Kdqd = np.asarray(Kfun(qs, Gl @ v[yc])[1]).ravel()
        g[[cols[i] for i in D]] = -np.linalg.solve(K[:, D], Kdqd)
    return G, g


def wide_state(model, rng):
    """A random closed state, the links of the differentials moved by up to about 0.7 rad.

    ``random_configuration`` moves the independent coordinates by 0.5 N(0, 1) rad: the
    links by that much when they are independent; when the rotors are (0.08 rad at the
    links), the rotors move on by 2.4 N(0, 1) rad (clipped at 2σ, inside the linkages'
    workspace) along the closed manifold (``integrate``). Rotor speeds are 6 N(0, 1).
    """
    st = model.spanning_tree
    rotor = np.zeros(model.nv, dtype=bool)
    for name, sl in zip(st.joint_names, model.v_slices, strict=True):
        rotor[sl] = "hip_rotor" in name or "knee_ankle_rotor" in name
    scale = np.where(rotor, 6.0, 1.0)
    dy = np.where(rotor, 2.4 * np.clip(rng.normal(size=model.nv), -2.0, 2.0), 0.0)
    q = model.integrate(model.random_configuration(rng), dy)
    v, a, tau = (scale * rng.normal(size=model.nv) for _ in range(3))
    return q, v, a, tau


@pytest.fixture(
    scope="module",
    params=[(True, "rotors"), (False, "rotors"), (True, "links")],
    ids=["with_arms", "legs", "link_side"],
)
def setup(request):
    arms, independent = request.param
    model = R.tello(arms=arms, independent=independent)
    st = model.spanning_tree
    pm = to_pinocchio(st)
    ee = ["left_foot", "right_foot"] + (["left_elbow", "right_elbow"] if arms else [])
    return model, ee, pm, pm.createData(), PinocchioBridge(st, pm)


def test_tello_matches_table_one():
    """Seed 004 Table I: Tello (``TelloWithArms``) has 15 clusters and 24 DoF (the legs alone
    7 and 16); its differentials are driven on the rotor side, as grbda's are."""
    m = R.tello()
    assert (len(m.clusters), m.nv) == (15, 24)
    assert (len(R.tello(arms=False).clusters), R.tello(arms=False).nv) == (7, 16)
    rotors = [j for j in m.independent_joints if "rotor" in j]
    assert len(rotors) == 8 and all("hip_rotor" in j or "knee_ankle_rotor" in j for j in rotors)
    assert sorted(len(c.bodies) for c in m.clusters)[-4:] == [7, 7, 10, 10]
    links = R.tello(independent="links")
    assert links.nv == 24 and not [j for j in links.independent_joints if "rotor" in j]
    with pytest.raises(ModelError):
        R.tello(independent="cranks")


def test_tello_closure_and_constraint_matrices(setup):
    """Random closed states close the geometric loops; G and g equal the reference's on
    every joint that carries inertia."""
    model, *_ = setup
    st = model.spanning_tree
    rng = np.random.default_rng(11)
    massive = [st.v_slices[b].start for b in range(st.n_bodies)
               if np.any(model.inertias[b]) and st.joints[b].nv == 1]  # fmt: skip
    for _ in range(N_STATES):
        q, v, _, _ = wide_state(model, rng)
        assert np.max(np.abs(model.constraint_residual(q))) <= 1e-10
        G_ref, g_ref = reference_G(model, q, v)
        G, g = model.constraint_matrices(q, v)
        assert rel_err(G[massive], G_ref[massive]) <= RTOL
        assert rel_err(g[massive], g_ref[massive]) <= RTOL


def test_tello_dynamics_against_pinocchio(setup):
    model, ee, pm, pd, bridge = setup
    st = model.spanning_tree
    rng = np.random.default_rng(12)
    T = bridge.v_to_pin(np.eye(st.nv)).T  # v_pin = T v
    eb = [st.body_index(e) for e in ee]
    for _ in range(N_STATES):
        q, v, a, tau = wide_state(model, rng)
        G, g = reference_G(model, q, v)
        qp = bridge.q_to_pin(q)
        H = T.T @ pin.crba(pm, pd, qp) @ T
        H = np.triu(H) + np.triu(H, 1).T
        Hb = G.T @ H @ G
        vs = T @ G @ v
        tau_ref = G.T @ T.T @ pin.rnea(pm, pd, qp, vs, T @ (G @ a + g))
        bias = G.T @ T.T @ pin.rnea(pm, pd, qp, vs, T @ g)
        a_ref = np.linalg.solve(Hb, tau - bias)
        assert rel_err(cluster_rnea(model, q, v, a), tau_ref) <= RTOL
        assert rel_err(projected_rnea(model, q, v, a), tau_ref) <= RTOL
        for aba in (cluster_aba, projected_aba, lagrange_aba):
            assert rel_err(aba(model, q, v, tau), a_ref) <= RTOL, aba.__name__
        pin.computeJointJacobians(pm, pd, qp)
        pin.framesForwardKinematics(pm, pd, qp)
        rows = []
        for b in eb:
            jid, placement = bridge.body_frames[b]
            Jf = placement.inverse().toActionMatrix() @ pin.getJointJacobian(pm, pd, jid, pin.LOCAL)
            rows.append(np.vstack([Jf[3:], Jf[:3]]) @ T @ G)
        J = np.vstack(rows)
        omega_ref = J @ np.linalg.solve(Hb, J.T)
        for method in ("efpa", "projection"):
            omega = inverse_operational_space_inertia(model, q, ee, method=method)
            assert rel_err(omega, omega_ref) <= RTOL, method
