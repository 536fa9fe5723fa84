"""
Parameter sweeps on a cluster
=============================

The torsion experiment of seed 000 §IV-A2 (tutorial 07) tracks a point mass of true mass
:math:`m = 1\\,\\mathrm{kg}` with the Slotine–Li law, once with the torsion-free
factorization :math:`C = 0` and once with :math:`C = \\beta\\,(v\\times)`, for one mass
estimate :math:`\\hat m = 0.9\\,\\mathrm{kg}` and one :math:`\\beta = -5\\,\\mathrm{kg/s}`.
How do the two closed loops compare over a whole grid of mass estimates and torsion
coefficients? Every grid point is an independent :func:`geomech.simulate` run, so the grid
is embarrassingly parallel: here the runs go to the workers of a `dask.distributed
<https://distributed.dask.org>`_ ``LocalCluster`` on this machine; the same code runs on a
cluster by pointing the ``Client`` at its scheduler.

What makes it work: geomech models, systems and :class:`~geomech.simulation.SimulationResult`
objects are plain Python objects of NumPy arrays, so they pickle, and the workers send whole
results back. Install the optional dependency with ``pip install 'geomech[distributed]'``;
without it this page runs the same grid in one process.
"""

# %%
# One grid point
# --------------
# A task is a function of the grid parameters that returns what we want to keep: here the
# two :class:`~geomech.simulation.SimulationResult` objects themselves (about 50 kB each),
# so that any summary can be computed afterwards without re-running. The horizon is 8 s,
# sampled at 25 Hz; the integrator is the experiment's adaptive DOP853.
import logging

import matplotlib.pyplot as plt
import numpy as np

from geomech.control import torsion_experiment
from geomech.plot import show_or_save

T_FINAL, RATE = 8.0, 25.0


def run(mass_estimate, beta):
    """Both closed loops of the torsion experiment for one grid point."""
    res = torsion_experiment(
        beta=beta, mass_estimate=mass_estimate, t_final=T_FINAL, rate=RATE, progress=False
    )
    return res.torsion_free, res.torsion


mass_estimates = np.array([0.6, 0.9, 1.2])  # kg (the true mass is 1 kg)
betas = np.array([-5.0, -1.0, 2.0])  # kg/s
grid = [(m, b) for m in mass_estimates for b in betas]
print(f"{len(grid)} grid points, {2 * len(grid)} simulations")

# %%
# The sweep on a local cluster
# ----------------------------
# ``LocalCluster`` starts a scheduler and two single-threaded worker *processes*;
# ``client.map`` sends one task per grid point (the function is pickled by value, so it
# need not live in an importable module) and ``client.gather`` collects the results in
# grid order. The workers are forked from this process, so that this page also runs as a
# plain script (with dask's default, ``spawn``, a script must keep its top level under
# ``if __name__ == "__main__":``, since every worker re-imports it). On a real cluster,
# replace the ``LocalCluster`` by the scheduler's address, ``Client("tcp://scheduler:8786")``,
# or by a ``dask_jobqueue`` cluster (SLURM, PBS, ...); nothing else changes.
try:
    import dask
    from dask.distributed import Client, LocalCluster
except ImportError:  # geomech[distributed] is not installed: the same grid, in this process
    Client = LocalCluster = None

if Client is None:
    print("dask.distributed is not installed: running the grid serially")
    results = [run(m, b) for m, b in grid]
else:
    with (
        dask.config.set({"distributed.worker.multiprocessing-method": "fork"}),
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        futures = client.map(run, *zip(*grid, strict=True))
        results = client.gather(futures)
    print(f"gathered {len(results)} pairs of results from the workers")

# %%
# The workers ran exactly the computation this process would: a grid point re-run here
# gives bit-for-bit the same trajectories.
m_hat, beta = grid[4]
local = run(m_hat, beta)
same = [
    np.array_equal(x.q, y.q) and np.array_equal(x.tau, y.tau)
    for x, y in zip(local, results[4], strict=True)
]
print(f"m_hat = {m_hat:g} kg, beta = {beta:g} kg/s: identical to the local run: {all(same)}")

# %%
# Summaries
# ---------
# For each run, the root-mean-square tracking error over the last 3 s,
# :math:`\bigl(\tfrac13\int_5^8 \lVert q - q_d\rVert^2\,dt\bigr)^{1/2}`, and the energy of
# the torque above 1 Hz (the high-frequency content the paper attributes to torsion).


def rms_error(r, t0=5.0):
    w = r.t >= t0
    e = r.q[w] - r.signals["q_d"][w]
    return float(np.sqrt(np.mean(np.sum(e**2, axis=1))))


def high_frequency_share(r, f0=1.0):
    spectrum = (np.abs(np.fft.rfft(r.tau - r.tau.mean(0), axis=0)) ** 2).sum(1)
    f = np.fft.rfftfreq(len(r.t), r.t[1] - r.t[0])
    return float(spectrum[f > f0].sum() / spectrum.sum())


shape = (len(mass_estimates), len(betas))
rms = {
    k: np.reshape([rms_error(r[i]) for r in results], shape)
    for i, k in enumerate(("torsion free", "torsion"))
}
hf = {
    k: np.reshape([high_frequency_share(r[i]) for r in results], shape)
    for i, k in enumerate(("torsion free", "torsion"))
}
for k in rms:
    print(f"{k}: RMS error (m), rows m_hat = {mass_estimates} kg, columns beta = {betas} kg/s")
    print(np.array2string(rms[k], precision=4))

# %%
# The tracking error is set by the mass mismatch, whatever the factorization; the torsion
# changes how the torque gets there, most with :math:`|\beta|` large.
fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
panels = (
    ("RMS tracking error, torsion run", rms["torsion"], "RMS error (m)"),
    ("torque energy above 1 Hz, torsion run", hf["torsion"], "share of the energy (-)"),
)
for ax, (title, values, unit), cmap in zip(axes, panels, ("viridis", "magma"), strict=True):
    image = ax.imshow(
        values,
        origin="lower",
        cmap=cmap,
        aspect="auto",
        extent=(-0.5, len(betas) - 0.5, -0.5, len(mass_estimates) - 0.5),
    )
    ax.set_xticks(range(len(betas)), [f"{b:g}" for b in betas])
    ax.set_yticks(range(len(mass_estimates)), [f"{m:g}" for m in mass_estimates])
    ax.set_xlabel(r"torsion coefficient $\beta$ (kg/s)")
    ax.set_title(title, fontsize=10)
    fig.colorbar(image, ax=ax, label=unit)
axes[0].set_ylabel(r"mass estimate $\hat m$ (kg)")
fig.tight_layout()
show_or_save()
