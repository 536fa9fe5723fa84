"""Scale-out: models and results pickle, and a parameter sweep runs on dask.distributed.

- Every shipped model, a model imported from Pinocchio (with a composite joint) and a
  MechanicalSystem with a constant metric survive ``pickle`` with bit-identical dynamics.
- A SimulationResult survives ``pickle`` with every array and signal.
- The torsion experiment over a grid of mass estimates and torsion coefficients, run on a
  two-process ``LocalCluster``, returns results bit-identical to the same runs in this
  process (skipped when dask.distributed is not installed: ``geomech[distributed]``).
"""

import os
import pickle
import sys

import numpy as np
import pytest

from geomech import aba, crba, rnea, robots, simulate
from geomech.control import torsion_experiment
from geomech.geometry.examples import rigid_body_se3
from geomech.interop.pinocchio import load_mjcf

MJCF = """<mujoco model="hip"><worldbody>
  <body name="thigh" pos="0 0 1">
    <joint name="hip_y" type="hinge" axis="0 1 0"/>
    <joint name="hip_x" type="hinge" axis="1 0 0"/>
    <inertial pos="0 0 -0.2" mass="2" diaginertia="0.02 0.03 0.01"/>
  </body>
</worldbody></mujoco>"""


def same_dynamics(a, b, rng):
    q = a.random_configuration(rng, size=3)
    v, acc = rng.normal(size=(2, 3, a.nv))
    for f in (lambda m: rnea(m, q, v, acc), lambda m: crba(m, q), lambda m: aba(m, q, v, acc)):
        assert np.array_equal(f(a), f(b))


@pytest.mark.parametrize("name", robots.names())
def test_shipped_models_pickle(name, rng):
    model = robots.load(name)
    back = pickle.loads(pickle.dumps(model))
    assert back.joint_names == model.joint_names and back.body_names == model.body_names
    assert sorted(back.graph.edges) == sorted(model.graph.edges)
    same_dynamics(model, back, rng)


def test_imported_model_and_system_pickle(rng):
    model = load_mjcf(MJCF)
    same_dynamics(model, pickle.loads(pickle.dumps(model)), rng)
    body = rigid_body_se3(np.diag([1.0, 2.0, 3.0, 4.0, 4.0, 4.0]))
    back = pickle.loads(pickle.dumps(body))
    q = body.random_configuration(rng)
    assert np.array_equal(back.mass_matrix(q), body.mass_matrix(q))


def test_simulation_result_pickles():
    model = robots.double_pendulum()
    res = simulate(
        model,
        [0.3, 0.0],
        [0.0, 1.0],
        t_final=0.5,
        dt=0.05,
        log={"H": lambda t, q, v, tau: crba(model, q)},
    )
    back = pickle.loads(pickle.dumps(res))
    for field in ("t", "q", "v", "tau"):
        assert np.array_equal(getattr(back, field), getattr(res, field))
    assert back.method == res.method and np.array_equal(back.signals["H"], res.signals["H"])


MASS_ESTIMATES, BETAS = (0.7, 1.1), (-5.0, 2.0)
AGREEMENT = {}


def run(mass_estimate, beta):
    res = torsion_experiment(
        beta=beta, mass_estimate=mass_estimate, t_final=2.0, rate=20.0, progress=False
    )
    return res.torsion_free, res.torsion


def test_torsion_sweep_on_a_local_cluster():
    distributed = pytest.importorskip("dask.distributed")
    import cloudpickle
    import dask

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import tests
    grid = [(m, b) for m in MASS_ESTIMATES for b in BETAS]
    with (
        dask.config.set({"distributed.worker.multiprocessing-method": "fork"}),
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=50,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        remote = client.gather(client.map(run, *zip(*grid, strict=True)))
        workers = client.run(os.getpid)  # {worker address: process id}
    assert len(set(workers.values()) - {os.getpid()}) == 2
    agree = 0
    for point, pair in zip(grid, remote, strict=True):
        local = run(*point)
        agree += all(np.array_equal(x.q, y.q) and np.array_equal(x.tau, y.tau)
                     and np.array_equal(x.signals["V"], y.signals["V"])
                     for x, y in zip(local, pair, strict=True))  # fmt: skip
    AGREEMENT["torsion sweep"] = (agree, len(grid))
    print(f"\ntorsion sweep on dask: {agree}/{len(grid)} grid points bit-identical to local runs")
    assert agree == len(grid)
