"""The compiled closure of closed models (issue 24 item 7): project, integrate and
random_configuration per cluster in the kernel of geomech.multibody._kernels.cluster.closure.

References, independent of the kernel: Pinocchio's frame placements of the spanning tree
with each constraint's defining formula written here (a revolute loop joint leaves its two
frames at one point with a common axis; a prismatic one with equal orientations and the
offset along the axis; a coupling r Σ q_pred = Σ q_succ modulo 2π for angles); the Python
Gauss–Newton path of the model (numpy, SE(3) logarithm) for the same trajectories; energy
conservation of the simulated motion.
"""

from __future__ import annotations

import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pinocchio as pin
import pytest

import geomech.multibody.closed._closure as closure_module
import geomech.multibody.closed.model as model_module
from geomech.errors import SingularityError
from geomech.interop.pinocchio import to_pinocchio
from geomech.multibody import ClosedMultibodyModel
from geomech.multibody._kernels.cluster.closure import closure_layout
from geomech.multibody.io.examples import load_example
from geomech.multibody.model.joints import Prismatic, Revolute
from geomech.simulation import simulate

sys.path.insert(0, str(Path(__file__).parent))
import linkages as L  # noqa: E402

SEED = 20261127


def small_step(model, q) -> float:
    """A time step moving every spanning coordinate by at most about 0.05 at unit speeds
    (near a dead centre |G| is large, and a longer move leaves the reachable range)."""
    G, _ = model.constraint_matrices(q, np.zeros(model.nv))
    return 0.05 / max(1.0, float(np.linalg.norm(G, 2)) * np.sqrt(model.nv))


def quadruped_graph() -> nx.DiGraph:
    """Four mini-cheetah legs (grbda's geometry, geared rotors 6, 6, 9) on a floating trunk."""
    leg = L.mini_cheetah_leg(floating=True).graph
    g = nx.DiGraph(name="mini_cheetah_quadruped")
    g.add_edge("world", "base", **leg.edges["world", "base"])
    g.nodes["base"]["inertia"] = 10.0 * leg.nodes["base"]["inertia"]
    for pre, (x, y) in {"fl": (0.19, 0.05), "fr": (0.19, -0.05), "hl": (-0.19, 0.05),
                        "hr": (-0.19, -0.05)}.items():  # fmt: skip

        def ren(n, pre=pre):
            return n if n in ("world", "base") else f"{pre}_{n}"

        for u, v, d in leg.edges(data=True):
            if u == "world":
                continue
            d = dict(d, name=f"{pre}_{d['name']}")
            if u == "base" and "placement" in d:
                P = np.array(d["placement"], dtype=float)
                P[:2, 3] += (x, y)
                d["placement"] = P
            g.add_edge(ren(u), ren(v), **d)
        for n in leg.nodes:
            if n not in ("world", "base"):
                g.nodes[ren(n)].update(leg.nodes[n])
    return g


MODELS = {
    "four_bar": lambda: load_example("four_bar"),
    "six_bar": lambda: load_example("six_bar"),
    "planar_leg": lambda: load_example("planar_leg"),
    "geared_chain": lambda: load_example("geared_chain"),
    "belt_leg": lambda: load_example("belt_leg"),
    "floating_knee": lambda: ClosedMultibodyModel(L.floating_knee(np.random.default_rng(3)).graph),
    "watt_six_bar": lambda: ClosedMultibodyModel(L.watt_six_bar(np.random.default_rng(5)).graph),
    "slider_crank": lambda: ClosedMultibodyModel(
        L.slider_crank(np.random.default_rng(6), prismatic_loop=True).graph
    ),
    "ladder": lambda: ClosedMultibodyModel(L.four_bar_ladder(np.random.default_rng(7), 4).graph),
    "quadruped": lambda: ClosedMultibodyModel(quadruped_graph()),
}


def closure_error(model, q) -> float:
    """Largest violation of the constraints' defining formulas at ``q``, from Pinocchio's
    placements of the spanning tree's joint frames."""
    st = model.spanning_tree
    pm = to_pinocchio(st)
    data = pm.createData()
    order = [pm.getJointId(name) for name in st.joint_names]
    qp = np.asarray(q, dtype=float)  # geomech's q layout is Pinocchio's (same joint order)
    pin.forwardKinematics(pm, data, qp)

    def pose(body):
        if body < 0:
            return np.eye(4)
        return data.oMi[order[body]].homogeneous

    worst = 0.0
    for con in model.constraints:
        if con.kind == "loop":
            M = np.linalg.solve(pose(con.pred) @ con.Tp, pose(con.succ) @ con.Ts)
            R, p = M[:3, :3], M[:3, 3]
            if isinstance(con.joint, Revolute):  # one point, a common axis
                a = np.asarray(con.joint.axis)
                err = max(np.abs(p).max(), np.abs(R @ a - a).max())
            elif isinstance(con.joint, Prismatic):  # one orientation, offset along the axis
                a = np.asarray(con.joint.axis)
                err = max(np.abs(R - np.eye(3)).max(), np.abs(p - (a @ p) * a).max())
            else:
                pytest.skip(f"no defining formula written here for {con.joint.kind}")
        else:
            x = con.ratio * sum(q[st.q_slices[b]][0] for b in con.pred_path) - sum(
                q[st.q_slices[b]][0] for b in con.succ_path
            )
            if con.angular:
                x = (x + np.pi) % (2 * np.pi) - np.pi
            err = abs(x)
        worst = max(worst, float(err))
    return worst


@pytest.fixture(scope="module", params=list(MODELS))
def model(request):
    m = MODELS[request.param]()
    assert closure_layout(m).capable
    return m


def test_integrate_project_and_random_configuration_close_the_loops(model):
    rng = np.random.default_rng(SEED)
    Q = model.random_configuration(rng, size=3)
    for q in Q:
        assert closure_error(model, q) <= 1e-12
        q1 = model.integrate(q, rng.normal(size=model.nv), small_step(model, q))
        assert closure_error(model, q1) <= 1e-12
        # an open configuration near q (dependent joints moved), closed again
        st = model.spanning_tree
        dv = np.zeros(st.nv)
        dep = np.setdiff1d(np.arange(st.nv), model.independent_v_index)
        dv[dep] = 1e-2 * rng.normal(size=dep.size)
        q2 = model.project(st.integrate(q, dv))
        assert closure_error(model, q2) <= 1e-12
        # the independent coordinates are kept by project, moved by v dt by integrate
        d = model.difference(q, q1)
        np.testing.assert_allclose(model.difference(st.integrate(q, dv), q2), 0.0, atol=1e-12)
        assert np.all(np.isfinite(d))


def test_batched_equals_per_state(model):
    rng = np.random.default_rng(SEED + 1)
    Q = model.random_configuration(rng, size=4)
    V = rng.normal(size=(4, model.nv))
    dt = np.array([small_step(model, q) for q in Q])
    batch = model.integrate(Q, V, dt)
    for b in range(4):
        np.testing.assert_array_equal(batch[b], model.integrate(Q[b], V[b], dt[b]))
    st = model.spanning_tree
    open_ = st.integrate(Q, 1e-3 * rng.normal(size=(4, st.nv)))
    proj = model.project(open_)
    for b in range(4):
        np.testing.assert_array_equal(proj[b], model.project(open_[b]))


def test_compiled_integrate_equals_the_python_closure(model, monkeypatch):
    """The kernel and the numpy Levenberg–Marquardt (SE(3) log residual) agree."""
    rng = np.random.default_rng(SEED + 2)
    q = model.random_configuration(rng)
    v = rng.normal(size=model.nv)
    dt = small_step(model, q)
    compiled = model.integrate(q, v, dt)
    monkeypatch.setattr(closure_module, "compiled_closure", lambda m: None)
    monkeypatch.setattr(model_module, "compiled_closure", lambda m: None)
    python = model.integrate(q, v, dt)
    np.testing.assert_allclose(compiled, python, atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_singular_states_raise_singularity_error(seed):
    """At the change point of a parallelogram (every bar collinear) K_D loses rank."""
    lk = L.parallelogram(np.random.default_rng(seed))
    model = ClosedMultibodyModel(lk.graph)
    qs = lk.q(model, lk.singular)
    assert closure_error(model, qs) <= 1e-12
    with pytest.raises(SingularityError, match="cluster"):
        model.integrate(qs, np.ones(model.nv), 0.01)
    with pytest.raises(SingularityError, match="cluster"):
        model.integrate(np.stack([model.neutral(), qs]), np.ones(model.nv), 0.01)


@pytest.mark.parametrize("name", ["six_bar", "floating_knee", "quadruped"])
def test_compiled_closed_simulation_conserves_energy(name):
    model = MODELS[name]()
    rng = np.random.default_rng(SEED + 3)
    q0 = model.random_configuration(rng)
    v0 = rng.uniform(-1.0, 1.0, model.nv)
    res = simulate(model, q0, v0, 0.1, dt=1e-3)
    assert max(closure_error(model, q) for q in res.q[::10]) <= 1e-12
    E = model.kinetic_energy(res.q, res.v) + model.potential_energy(res.q)
    # RK4 at 1 ms: measured relative drift 3e-10 (six_bar), 2e-12, 2e-13
    assert np.abs(E - E[0]).max() <= 1e-7 * max(1.0, abs(E[0]))
    assert np.abs(res.v - v0).max() > 1e-3  # it moved
