"""simulate on closed models (robots with kinematic loops, issue 15 item 6).

A closed model is a MechanicalSystem whose joint frame moves the independent coordinates and
closes the loops again by Newton's method (ClosedMultibodyModel.integrate), so simulate
integrates it in independent coordinates with the dependent ones restored at every stage:
the constraint residual stays at rounding. References: energy conservation without control,
and the projection method of seed 000 §VI-C1 (ClosedChain on the spanning tree with the loop
as a point closure: LoopClosureFrame Newton, induced Hamel equations), independent of the
cluster algorithms (C-ABA) that simulate uses on the closed model.
"""

import numpy as np
import pytest

from geomech.geometry import ClosedChain
from geomech.multibody.closed.closures import PointClosure
from geomech.multibody.io.examples import load_example
from geomech.simulation import simulate


@pytest.mark.parametrize("name", ["four_bar", "geared_chain", "belt_leg", "planar_leg"])
def test_loops_stay_closed_and_energy_is_conserved(name):
    model = load_example(name)
    rng = np.random.default_rng(0)
    q0 = model.random_configuration(rng)
    v0 = rng.uniform(-5.0, 5.0, model.nv)
    res = simulate(model, q0, v0, 0.1, dt=1e-3)
    assert np.abs(model.constraint_residual(res.q)).max() < 1e-12
    E = model.kinetic_energy(res.q, res.v) + model.potential_energy(res.q)
    # measured relative drift: 5e-14 (four_bar), 6e-12 (geared_chain), 5e-12 (belt_leg),
    # 7e-10 (planar_leg); residual at most 4e-15
    assert np.abs(E - E[0]).max() < 1e-8 * max(1.0, abs(E[0]))
    assert np.abs(res.q[-1] - q0).max() > 0.2  # it moved


def test_closed_model_motion_equals_the_projection_method():
    closed = load_example("four_bar")
    tree = closed.spanning_tree
    closure = PointClosure(
        tree, "coupler", [0.32, 0.0, 0.1], [0.02, 0.0, 0.25], "rocker", axes=(0, 2)
    )
    chain = ClosedChain(
        tree,
        closure,
        closed.independent_v_index,
        constraint_jacobian=closure.jacobian,
        reference=closed.neutral(),
    )
    q0 = closed.random_configuration(np.random.default_rng(1))
    kw = dict(dt=1e-3, controller=lambda t, q, v: np.array([0.2 * np.sin(3 * t)]) - 0.05 * v)
    a = simulate(closed, q0, [2.0], 0.2, **kw)
    b = simulate(chain.system, q0, [2.0], 0.2, **kw)
    assert np.abs(a.q - b.q).max() < 1e-9 and np.abs(a.v - b.v).max() < 1e-8
    assert np.abs(a.q[-1] - q0).max() > 0.2


def test_batched_and_adaptive_runs_on_a_closed_model():
    model = load_example("geared_chain")
    rng = np.random.default_rng(2)
    q0 = model.random_configuration(rng, size=2)
    v0 = rng.uniform(-1.0, 1.0, (2, model.nv))
    batch = simulate(model, q0, v0, 0.1, dt=1e-2, method="DOP853", rtol=1e-10, atol=1e-12)
    assert batch.q.shape == (11, 2, model.nq)
    assert np.abs(model.constraint_residual(batch.q)).max() < 1e-12
    single = simulate(model, q0[1], v0[1], 0.1, dt=1e-2, method="DOP853", rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(batch.q[:, 1], single.q, atol=1e-8)


def test_an_open_initial_configuration_is_refused():
    from geomech.errors import NotOnManifoldError

    model = load_example("four_bar")
    with pytest.raises(NotOnManifoldError):
        simulate(model, model.neutral() + [0.0, 0.1, 0.0], [0.0], 0.1)
