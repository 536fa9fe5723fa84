"""Compiling the numba kernels before their first call: by family, in parallel, with progress.

numba compiles a kernel at its first call and caches the machine code in ``__pycache__``
next to its source (``cache=True``); later processes load it in milliseconds. On a cold
cache the kernels that ``geomech inspect`` uses cost about a minute of CPU time, spent in
silence inside the first calls. This module names the kernels by *family* (the kernels of a
group of public functions), tells which families are not cached yet (:func:`missing`) and
compiles them (:func:`compile_families`) in up to one worker process per CPU, reporting
each family as it is done. numba compiles one kernel at a time per process (a global lock),
so processes, not threads, are what run compilations side by side.

A worker compiles a family by calling its public functions on a small model, once with one
state and once with a batch: the kernels are compiled for exactly the argument types that
every call passes (the types do not depend on the model), and written to the cache that the
calling process then loads. :func:`compiling` reports the compilations that still happen in
the calling process (a kernel outside the families), so that no compilation is silent.

Examples
--------
>>> from geomech._precompile import FAMILIES, missing
>>> list(FAMILIES)
['rnea-aba', 'crba', 'coriolis', 'christoffel', 'kinematics', 'closed']
>>> set(missing(["crba"])) <= {"crba"}
True
"""

from __future__ import annotations

import contextlib
import importlib
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "Family",
    "FAMILIES",
    "kernels",
    "missing",
    "compile_families",
    "compiling",
    "default_jobs",
]

#: The package of the kernel modules that :attr:`Family.kernels` name.
_KERNELS = "geomech.multibody._kernels"


@dataclass(frozen=True)
class Family:
    """A group of kernels compiled together: those of some public functions.

    Attributes
    ----------
    name : str
        Short name, shown in the progress lines.
    title : str
        The public functions whose kernels these are.
    kernels : tuple of str
        ``"module:function"`` of each top-level kernel, the module relative to
        ``geomech.multibody._kernels`` (the kernels they call are compiled with them).
    cost : float
        CPU seconds of a cold compilation (measured; orders the work, largest first).
    exercise : callable
        Calls the public functions on a small model, with one state and with a batch.

    Examples
    --------
    >>> from geomech._precompile import FAMILIES
    >>> FAMILIES["rnea-aba"].kernels[:2]
    ('tree.dynamics:rnea_one', 'tree.dynamics:rnea_batch')
    """

    name: str
    title: str
    kernels: tuple[str, ...]
    cost: float
    exercise: Callable[[], None]


def _tree_states(n: int = 3):
    """A small tree model and (q, v): one state and a batch of ``n`` (single rows first)."""
    import numpy as np

    from geomech.multibody import robots

    model = robots.double_pendulum()
    rng = np.random.default_rng(0)
    q = model.random_configuration(rng, size=n)
    v = rng.normal(size=(n, model.nv))
    return model, q, v


def _rnea_aba() -> None:
    from geomech.multibody import aba, gravity_forces, rnea

    model, Q, V = _tree_states()
    for q, v in ((Q[0], V[0]), (Q, V)):
        aba(model, q, v, rnea(model, q, v, v))
        gravity_forces(model, q)


def _crba() -> None:
    from geomech.multibody import crba, kinetic_energy

    model, Q, V = _tree_states()
    for q, v in ((Q[0], V[0]), (Q, V)):
        crba(model, q)
        kinetic_energy(model, q, v)


def _coriolis() -> None:
    from geomech.multibody import coriolis_matrix

    model, Q, V = _tree_states()
    for q, v in ((Q[0], V[0]), (Q, V)):
        coriolis_matrix(model, q, v)
        coriolis_matrix(model, q, v, "cartan-minus")


def _christoffel() -> None:
    from geomech.multibody import christoffel_symbols

    model, Q, _ = _tree_states()
    for q in (Q[0], Q):
        christoffel_symbols(model, q)
        model.frame.structure_constants(q)


def _kinematics() -> None:
    from geomech.multibody import velocity_map

    model, Q, V = _tree_states()
    for q, v in ((Q[0], V[0]), (Q, V)):
        model.integrate(q, v, 1e-3)
        velocity_map(model, q, v)


def _closed() -> None:
    import numpy as np

    from geomech.multibody import aba, christoffel_symbols, coriolis_matrix, crba, rnea
    from geomech.multibody.io import load_example

    rng = np.random.default_rng(0)
    for name in ("four_bar", "belt_leg"):  # a loop; couplings only (their residuals' kernel)
        model = load_example(name)
        Q = model.random_configuration(rng, size=3)
        V = rng.normal(size=(3, model.nv))
        for q, v in ((Q[0], V[0]), (Q, V)):
            tau = rnea(model, q, v, v)
            crba(model, q)
            aba(model, q, v, tau)
            coriolis_matrix(model, q, v)
            christoffel_symbols(model, q)


#: The families, in the order of their progress lines.
FAMILIES = {
    f.name: f
    for f in (
        Family(
            "rnea-aba",
            "rnea, aba, gravity_forces",
            tuple(f"tree.dynamics:{k}" for k in ("rnea_one", "rnea_batch", "aba_one", "aba_batch")),
            19.0,
            _rnea_aba,
        ),
        Family(
            "crba",
            "crba, kinetic_energy",
            tuple(f"tree.dynamics:{k}" for k in ("crba_one", "crba_batch", "kinetic_energy_batch")),
            7.0,
            _crba,
        ),
        Family(
            "coriolis",
            "coriolis_matrix (seed 000 Alg. 1)",
            ("tree.coriolis:coriolis_one", "tree.coriolis:coriolis_batch"),
            17.0,
            _coriolis,
        ),
        Family(
            "christoffel",
            "christoffel_symbols (seed 000 Alg. 2), the joints' structure constants",
            ("tree.christoffel:christoffel_batch", "tree.christoffel:structure_constants_batch"),
            9.0,
            _christoffel,
        ),
        Family(
            "kinematics",
            "model.integrate (q + v dt), velocity_map",
            ("joints:integrate_batch", "tree.kinematics_batch:velocity_map_batch"),
            6.0,
            _kinematics,
        ),
        Family(
            "closed",
            "rnea, crba, aba, coriolis_matrix, christoffel_symbols of closed models",
            (
                "cluster.closure:closure_batch",
                "cluster.constraints:cluster_constraints_batch",
                "cluster.constraints:coupling_residuals_batch",
                "cluster.dynamics:c_rnea_batch",
                "cluster.dynamics:c_aba_batch",
                "cluster.coriolis:cluster_coriolis_batch",
                "cluster.coriolis:cluster_christoffel_batch",
                "tree.kinematics_batch:forward_kinematics_batch",
                "tree.kinematics_batch:body_jacobians_batch",
                # the tree's kernels that the closed model's functions call as well (cached
                # by another worker first, they are loaded instead of compiled again)
                "tree.dynamics:crba_one",
                "tree.dynamics:crba_batch",
                "joints:integrate_batch",
                "tree.kinematics_batch:velocity_map_batch",
            ),
            60.0,
            _closed,
        ),
    )
}


def kernels(name: str) -> list:
    """The kernel dispatchers of family ``name`` (importing their modules, hence numba).

    Examples
    --------
    >>> from geomech._precompile import kernels
    >>> [k.__name__ for k in kernels("kinematics")]
    ['integrate_batch', 'velocity_map_batch']
    """
    out = []
    for spec in FAMILIES[name].kernels:
        module, _, function = spec.partition(":")
        out.append(getattr(importlib.import_module(f"{_KERNELS}.{module}"), function))
    return out


def _cached(dispatcher) -> bool | None:
    """Whether numba's cache holds machine code of ``dispatcher`` for this machine and source.

    None when that cannot be told (no cache, or numba's cache internals changed): the
    caller then treats the kernel as cached and :func:`compiling` reports it if it is not.
    """
    try:
        cache = dispatcher._cache
        index = cache._cache_file._load_index()  # {} when absent or stale (source changed)
        mine = cache._index_key(None, dispatcher.targetctx.codegen())[1:]
    except Exception:  # noqa: BLE001 - numba internals: any failure means "cannot tell"
        return None
    return any(key[1:] == mine for key in index)


def missing(names) -> list[str]:
    """The families among ``names`` with a kernel that is not in numba's cache.

    Parameters
    ----------
    names : iterable of str
        Family names (keys of :data:`FAMILIES`).

    Returns
    -------
    list of str
        In the order given; empty when every kernel loads from the cache.

    Examples
    --------
    >>> from geomech._precompile import missing
    >>> missing([])
    []
    """
    return [n for n in names if any(_cached(k) is False for k in kernels(n))]


def default_jobs() -> int:
    """Worker processes for compiling: ``GEOMECH_COMPILE_JOBS``, else the CPUs this process may
    use.

    Examples
    --------
    >>> from geomech._precompile import default_jobs
    >>> default_jobs() >= 1
    True
    """
    env = os.environ.get("GEOMECH_COMPILE_JOBS", "").strip()
    if env.isdigit() and int(env) >= 1:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        return max(1, os.cpu_count() or 1)


def _run(name: str) -> float:
    """Compile family ``name`` in this process; its wall time in seconds."""
    start = time.perf_counter()
    FAMILIES[name].exercise()
    return time.perf_counter() - start


def compile_families(names, jobs: int | None = None, report=None) -> float:
    """Compile the kernels of families ``names``; the wall time in seconds.

    With ``jobs > 1`` the families run in up to ``jobs`` worker processes (``python -c``
    with this geomech), the costliest first, each worker taking the next family when it is
    done with one; a family a worker could not compile is compiled in this process. The
    machine code goes to numba's cache, from which this process then loads it.

    Parameters
    ----------
    names : iterable of str
        Family names (keys of :data:`FAMILIES`).
    jobs : int, optional
        Worker processes; default :func:`default_jobs`. 1 compiles in this process.
    report : callable, optional
        ``report(name, seconds)`` when family ``name`` is compiled (``seconds``: its own
        compile time, in its worker).

    Returns
    -------
    float
        Wall time of the whole compilation.

    Examples
    --------
    >>> from geomech._precompile import compile_families
    >>> done = []
    >>> compile_families(["kinematics"], jobs=1, report=lambda name, s: done.append(name)) >= 0
    True
    >>> done
    ['kinematics']
    """
    names = sorted(dict.fromkeys(names), key=lambda n: -FAMILIES[n].cost)
    report = report or (lambda name, seconds: None)
    jobs = min(len(names), default_jobs() if jobs is None else max(1, int(jobs)))
    start = time.perf_counter()
    left = list(names)
    if jobs > 1:
        left = _in_workers(names, jobs, report)
    for name in left:
        report(name, _run(name))
    return time.perf_counter() - start


#: What a worker runs: read family names on stdin, compile each, answer "name seconds".
_WORKER = """\
import sys
sys.path.insert(0, {root!r})
answers, sys.stdout = sys.stdout, sys.stderr  # anything else printed goes nowhere
from geomech._precompile import _run
for line in sys.stdin:
    name = line.strip()
    print(name, _run(name), file=answers, flush=True)
"""


def _in_workers(names: list[str], jobs: int, report) -> list[str]:
    """Compile ``names`` in ``jobs`` worker processes; the names no worker compiled."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = _WORKER.format(root=root)
    done: queue.Queue = queue.Queue()
    workers = []
    try:
        for _ in range(jobs):
            proc = subprocess.Popen(
                [sys.executable, "-c", code],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
            workers.append(proc)
            threading.Thread(target=_listen, args=(proc, done), daemon=True).start()
    except OSError:  # cannot start processes here: the caller compiles what is left
        pass
    pending, busy = list(names), {}
    for proc in workers:
        if pending:
            busy[proc] = pending.pop(0)
            _send(proc, busy[proc])
    failed = []
    try:
        while busy:
            proc, line = done.get()
            if line is None:  # the worker ended (or died): its family is not compiled
                if proc in busy:
                    failed.append(busy.pop(proc))
                continue
            name, _, seconds = line.partition(" ")
            try:
                seconds = float(seconds)
            except ValueError:  # not an answer
                continue
            if busy.get(proc) != name:
                continue
            del busy[proc]
            report(name, seconds)
            if pending:
                busy[proc] = pending.pop(0)
                _send(proc, busy[proc])
            else:
                _close(proc)
    finally:
        for proc in workers:
            _close(proc)
            if proc.poll() is None and proc not in busy:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=5)
            if proc.poll() is None:  # interrupted, or still busy: stop it
                proc.kill()
                proc.wait()
    return failed + pending


def _listen(proc, done: queue.Queue) -> None:
    for line in proc.stdout:
        done.put((proc, line.strip()))
    done.put((proc, None))


def _send(proc, name: str) -> None:
    try:
        proc.stdin.write(name + "\n")
        proc.stdin.flush()
    except (OSError, ValueError):  # the worker died: its reader thread reports it
        pass


def _close(proc) -> None:
    with contextlib.suppress(OSError, ValueError):
        proc.stdin.close()


@contextlib.contextmanager
def compiling(report=None):
    """Report the kernels compiled in this process within the ``with`` block.

    ``report(name)`` is called when a kernel (not one it calls) starts compiling; the
    object yielded holds ``seconds``, the time spent compiling so far, and ``names``.

    Examples
    --------
    >>> from geomech._precompile import compiling
    >>> with compiling() as c:
    ...     pass
    >>> c.seconds, c.names
    (0.0, [])
    """
    from numba.core import event

    class Compiling(event.Listener):
        """Times the outermost compilations (a kernel's callees compile inside it)."""

        def __init__(self):
            self.seconds, self.names = 0.0, []
            self._depth, self._start = 0, 0.0

        def on_start(self, ev):
            if self._depth == 0:
                dispatcher = ev.data.get("dispatcher")
                name = getattr(getattr(dispatcher, "py_func", None), "__name__", "?")
                self.names.append(name)
                self._start = time.perf_counter()
                if report is not None:
                    report(name)
            self._depth += 1

        def on_end(self, ev):
            self._depth -= 1
            if self._depth == 0:
                self.seconds += time.perf_counter() - self._start

    record = Compiling()
    event.register("numba:compile", record)
    try:
        yield record
    finally:
        event.unregister("numba:compile", record)
