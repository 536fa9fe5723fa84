r"""The compiled fixed-step path of :func:`~geomech.simulation.simulate` on kinematic trees.

A fixed-step run of a tree whose joints the compiled kernels handle (revolute, prismatic,
helical, spherical, free-flyer, fixed) without a controller, or with a controller that can be
written as data (a :class:`CompiledLaw`: Slotine–Li with a named body connection, PD, computed
torque), is stepped by one kernel
(``geomech.multibody._kernels.tree.simulate.simulate_steps``): the RKMK stages on the joint
charts, the ABA and the control law, a chunk of steps at a time. It computes what
:func:`geomech.integration.integrate_fixed` computes with the closed-loop field, operation for
operation (the same numbers up to the summation order of the gains' matrix products), including
the step-doubling error estimate on the same sampled steps. Between chunks Python samples the
reference :math:`(q_d, \nu_d, a_d)` at the chunk's stage times (the reference is a Python
callable, validated as the controller validates it; a ``vectorized`` one is called once per
chunk), updates the progress bar and checks the budgets. A batch of trajectories is cut into
disjoint ranges run by the same kernel in worker threads and the calling thread (it releases
the GIL; idle workers sleep: no spinning threading layer) when
``geomech.multibody._kernels.set_num_threads`` allows more than one; each thread has its own
work arrays, allocated once per run.

:func:`compiled_plan` decides, once per run: any other system, controller or method
(adaptive solvers, dynamic or user controllers) takes the Python path.

Examples
--------
>>> import numpy as np
>>> from geomech.multibody import robots
>>> from geomech.simulation import simulate
>>> res = simulate(robots.double_pendulum(), [0.3, 0.0], [0.0, 0.0], 0.01)  # compiled path
>>> res.q.shape
(11, 2)
"""

from __future__ import annotations

import math
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from geomech.errors import DimensionError, NonFiniteError
from geomech.integration import fixed
from geomech.integration.fixed import ERROR_SAMPLES, FixedRun, diverged
from geomech.multibody._kernels import joints as codes
from geomech.multibody._kernels.tables import DAMPING, FRICTION
from geomech.multibody._kernels.tree import simulate as K

__all__ = ["CompiledLaw", "compiled_plan", "CompiledPlan"]

#: smallest batch spread over threads (when more than one is allowed)
PARALLEL_MIN_BATCH = 4

#: target wall time of one chunk of steps (s): the progress bar and the budgets are updated
#: between chunks
_CHUNK_SECONDS = 0.05

_POOL: tuple | None = None  # (threads, ThreadPoolExecutor)
_POOL_LOCK = threading.Lock()


@dataclass(frozen=True)
class CompiledLaw:
    r"""A built-in control law as data, for the compiled simulation of a tree.

    Attributes
    ----------
    code : int
        ``geomech.multibody._kernels.tree.simulate.SLOTINE_LI``, ``PD``, ``PD_GRAVITY`` or
        ``COMPUTED_TORQUE``.
    model : MultibodyModel
        The model whose joint-wise tracking error is taken (``nq``, ``nv`` of the plant).
    estimate : MultibodyModel
        The model of the torques (Slotine–Li's :math:`\hat H, \hat C, \hat g`, the computed
        torque's RNEA, the gravity compensation).
    gains : tuple of ndarray, shape (nv, nv)
        ``(Lambda, K_D)`` (Slotine–Li) or ``(K_P, K_D)``.
    reference : callable
        ``reference(t) -> (q_d, v_d, a_d)``, shapes ``(nq,)``, ``(nv,)``, ``(nv,)``.
    validate : callable
        ``validate(ref) -> (q_d, v_d, a_d)``: one reference checked (shapes, finite, unit
        quaternions), raising the controller's own errors.
    connection : object, optional
        Slotine–Li's body connection specification (a name, a mapping ...).
    batched : bool, optional
        Whether the controller accepts a batch of states (Slotine–Li does not).
    vectorized : bool, optional
        Whether ``reference`` accepts an array of times ``(K,)`` (then returning arrays with a
        leading axis ``K``): it is sampled in one call per chunk of steps.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.control import SlotineLi
    >>> from geomech.multibody import robots
    >>> model = robots.double_pendulum()
    >>> ctrl = SlotineLi(model, "levi-civita", lambda t: (np.zeros(2),) * 3, 1.0, 1.0)
    >>> ctrl._compiled_law().gains[1]
    array([[1., 0.],
           [0., 1.]])
    """

    code: int
    model: object
    estimate: object
    gains: tuple
    reference: Callable
    validate: Callable
    connection: object = None
    batched: bool = True
    vectorized: bool = False


def _tree(model):
    """``model.compiled`` of a tree the kernels step entirely (no user, planar or Schönflies
    joints), else ``None``.
    """
    from geomech.multibody._kernels.tree.chart import HANDLED

    if getattr(model, "is_closed", True):
        return None
    try:
        cm = model.compiled
    except AttributeError:
        return None
    if cm.single is None or not all(code in HANDLED for code in cm.topo[:-1, 1]):
        return None
    return cm


def compiled_plan(system, controller, control, lead: tuple, method):
    """The compiled run of a fixed-step simulation, or ``None`` for the Python path.

    Parameters
    ----------
    system : object
        The simulated system: a tree ``MultibodyModel`` with kernel joints and the ABA as its
        forward dynamics.
    controller : object or None
        ``None`` (free motion) or a controller with a ``_compiled_law()`` method returning a
        :class:`CompiledLaw` (else ``None``).
    control : Control
        The validated controller (a dynamic controller takes the Python path).
    lead : tuple of int
        Batch shape of the initial states.
    method : RKMK

    Returns
    -------
    CompiledPlan or None

    Examples
    --------
    >>> from geomech.integration import RKMK4
    >>> from geomech.multibody import robots
    >>> from geomech.simulation.closed_loop import Control
    >>> from geomech.simulation.compiled import compiled_plan
    >>> model = robots.double_pendulum()
    >>> compiled_plan(model, None, Control(None, 2), (), RKMK4) is not None
    True
    >>> compiled_plan(model, lambda t, q, v: -v, Control(lambda t, q, v: -v, 2), (), RKMK4)
    """
    from geomech.multibody.model.frame import JointFrame
    from geomech.multibody.model.system import MultibodySystem

    frame = getattr(system, "frame", None)
    if (
        not isinstance(system, MultibodySystem)
        or type(frame) is not JointFrame
        or frame.model is not system
        or type(system).forward_dynamics is not MultibodySystem.forward_dynamics
    ):
        return None
    cm = _tree(system)
    if cm is None:
        return None
    if controller is None:
        law = None
    else:
        hook = getattr(controller, "_compiled_law", None)
        law = hook() if callable(hook) and not control.dynamic else None
        if law is None or (lead and not law.batched):
            return None
        if law.model.nq != system.nq or law.model.nv != system.nv:
            return None
        if _tree(law.model) is None or _tree(law.estimate) is None:
            return None
    return CompiledPlan(system, cm, law, method)


def _stacked(ref, K, shapes, transpose=False):
    """``(RQ, RV, RA)`` as float arrays of shapes ``(K, *shape)``, or ``None`` if ``ref`` is not
    that (a sample of the wrong length or shape, a ragged or non-real array).

    ``ref`` is three arrays, or with ``transpose`` a list of ``K`` triples.
    """
    try:
        if transpose:
            if not all(len(r) == 3 for r in ref):
                return None
            ref = [[r[k] for r in ref] for k in range(3)]
        elif len(ref) != 3:
            return None
        out = tuple(np.asarray(x) for x in ref)
    except (TypeError, ValueError):  # not sized, ragged
        return None
    for x, shape in zip(out, shapes, strict=True):
        if x.shape != (K,) + shape or x.dtype.kind not in "fiub":
            return None
    return tuple(np.ascontiguousarray(x, dtype=float) for x in out)


def _quaternion_rows(jt) -> np.ndarray:
    """Rows of ``q`` holding the unit quaternions of spherical and free-flyer joints (k, 4)."""
    rows = [
        np.arange(iq1 - 4, iq1)
        for code, _, iq1, _, _ in jt
        if code in (codes.SPHERICAL, codes.FREE_FLYER)
    ]
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


def _joint_table(model) -> np.ndarray:
    """``(code, iq0, iq1, iv0, iv1)`` of each joint, the kernel's joint table."""
    from geomech.multibody._kernels.compiled import joint_code

    return np.array(
        [
            (joint_code(j), qs.start, qs.stop, vs.start, vs.stop)
            for j, qs, vs in zip(model.joints, model.q_slices, model.v_slices, strict=True)
        ],
        dtype=np.int64,
    ).reshape(-1, 5)


def _law_arrays(system, law):
    """The kernel's ``law`` tuple (``geomech.multibody._kernels.tree.simulate._torque``)."""
    nv = system.nv
    estimate = system if law is None else law.estimate  # (free motion: placeholders)
    gains = (
        np.zeros((2, nv, nv))
        if law is None
        else np.ascontiguousarray(np.stack([np.asarray(g, dtype=float) for g in law.gains]))
    )
    if law is not None and law.code == K.SLOTINE_LI:
        from geomech.multibody.algorithms._body_factors import _factor_tensors

        Bt, levi_civita = _factor_tensors(estimate, law.connection)
    else:
        Bt, levi_civita = np.zeros((1, 6, 6, 6)), True
    est_arrays = _model_arrays(estimate) + (
        np.array(estimate.parent, dtype=np.int64),
        _joint_table(estimate),
        np.ascontiguousarray(Bt, dtype=float),
        bool(levi_civita),
        np.array(estimate.gravity, dtype=float),
    )
    return (
        K.PASSIVE if law is None else int(law.code),
        np.zeros((0, 5), dtype=np.int64) if law is None else _joint_table(law.model),
        est_arrays,
        gains,
        np.array([not (g - np.diag(np.diagonal(g))).any() for g in gains]),
    )


def _stepping_table(jt) -> np.ndarray:
    """The kernel's stepping table: the joint table ``jt`` without fixed joints, each run of
    1-DoF joints with consecutive coordinates and speeds one ``ONE_DOF_RUN`` row (its
    retraction is a sum).
    """
    rows = []
    for code, iq0, iq1, iv0, iv1 in jt.tolist():
        if code == codes.FIXED:
            continue
        one = code in (codes.REVOLUTE, codes.PRISMATIC, codes.HELICAL)
        last = rows[-1] if rows else None
        if one and last and last[0] == K.ONE_DOF_RUN and last[2] == iq0 and last[4] == iv0:
            last[2], last[4] = iq1, iv1
        else:
            rows.append([K.ONE_DOF_RUN if one else code, iq0, iq1, iv0, iv1])
    return np.array(rows, dtype=np.int64).reshape(-1, 5)


def _model_arrays(model) -> tuple:
    """``(topo, placement, jparam, inertia, S, S_ring, T_user, a0, f_ext)`` of a tree without
    user joints, one state's (the dynamics kernels' arguments; no external forces).
    """
    cm = model.compiled
    return (
        cm.topo,
        cm.placement,
        cm.jparam,
        cm.inertia,
        cm.S[0],
        cm.S_ring[0],
        cm.T_user[0],
        cm.a0[0],
        np.zeros((0, 6)),
    )


#: the kernel's arrays of a model, kept with its compiled model (which is immutable): the plant,
#: the law tuple of free motion, the quaternion rows
_PLANTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _plant(system, cm) -> tuple:
    """``(plant, free-motion law, quaternion rows)`` of ``system`` (``cm = system.compiled``),
    built on its first run and kept (a run's set-up is then a few dictionary look-ups).
    """
    cached = _PLANTS.get(cm)
    if cached is None:
        topo, *arrays = _model_arrays(system)
        jp = cm.jparam
        friction = bool(jp[:, DAMPING : DAMPING + 6].any() or jp[:, FRICTION : FRICTION + 6].any())
        jt = _joint_table(system)
        plant = (topo, jt, *arrays, friction, _stepping_table(jt))
        cached = (plant, _law_arrays(system, None), _quaternion_rows(jt))
        _PLANTS[cm] = cached
    return cached


def _numpy_copy(x):
    """``x`` (nested tuples of arrays and scalars) with its arrays copied as NumPy arrays."""
    if isinstance(x, tuple):
        return tuple(_numpy_copy(y) for y in x)
    return np.array(x) if isinstance(x, np.ndarray) else x


def _pool(threads: int) -> ThreadPoolExecutor:
    """The worker threads of batched runs (idle workers sleep), one pool per thread count."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL[0] != threads:
            if _POOL is not None:
                _POOL[1].shutdown(wait=False)
            _POOL = (threads, ThreadPoolExecutor(threads, thread_name_prefix="geomech-simulate"))
        return _POOL[1]


class CompiledPlan:
    """A fixed-step run of a tree by the compiled kernel (see the module docstring).

    Parameters
    ----------
    system : MultibodyModel
    cm : CompiledModel
        ``system.compiled``.
    law : CompiledLaw or None
        ``None`` for free motion.
    method : RKMK

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.integration import RKMK4, Budget
    >>> from geomech.multibody import robots
    >>> from geomech.simulation.compiled import CompiledPlan
    >>> model = robots.double_pendulum()
    >>> plan = CompiledPlan(model, model.compiled, None, RKMK4)
    >>> t = np.linspace(0.0, 0.01, 11)
    >>> run, tau = plan.run(t, np.array([0.3, 0.0]), np.zeros(2), (), budget=Budget())
    >>> run.q.shape, tau.shape
    ((11, 2), (11, 2))
    """

    def __init__(self, system, cm, law, method):
        self.system, self.cm, self.law, self.method = system, cm, law, method
        s = len(method.b)
        self.tableau = (
            np.array(method.A, dtype=float).reshape(s, s),
            np.array(method.b, dtype=float),
        )
        self.c = np.array(method.c, dtype=float)
        self.plant, passive, rows = _plant(system, cm)
        self.law_arrays = passive if law is None else _law_arrays(system, law)
        self.quaternion_rows = rows if law is None else _quaternion_rows(_joint_table(law.model))

    # ---- the reference at the stages' times --------------------------------------------------
    def _reference(self, t, h, n0, n1, sampled):
        """``(rows, (RQ, RV, RA))`` for steps ``n0 .. n1 - 1``: the stages of each step, then of
        its two half steps (sampled steps only), at the times ``integrate_fixed`` evaluates them.
        """
        s, M = len(self.c), n1 - n0
        cm = self.cm
        if self.law is None:
            ref = (np.zeros((1, cm.nq)), np.zeros((1, cm.nv)), np.zeros((1, cm.nv)))
            return np.zeros((M, 3 * s), dtype=np.int64), ref
        c, tn = self.c, t[n0:n1, None]
        nodes, stage = np.unique(c, return_inverse=True)
        U = len(nodes)
        rows = np.zeros((M, 3 * s), dtype=np.int64)
        rows[:, :s] = U * np.arange(M)[:, None] + stage  # t_n + c_i h
        k = np.flatnonzero(sampled)
        half = np.concatenate(  # the two half steps: t_n + c_i h/2, (t_n + h/2) + c_i h/2
            [tn[k] + c * (0.5 * h), (tn[k] + 0.5 * h) + c * (0.5 * h)], axis=1
        )
        rows[k, s:] = M * U + np.arange(half.size).reshape(half.shape)
        times = np.concatenate([(tn + nodes * h).ravel(), half.ravel()])
        # one sample per distinct time (a step's last node is often the next step's first)
        times, inverse = np.unique(times, return_inverse=True)
        rows = inverse.ravel()[rows]
        return rows, self._sample(times)

    def _sample(self, times):
        """``(RQ, RV, RA)``: the reference at ``times`` (K,), checked in bulk; a bad sample is
        checked again alone by the controller's validator, which raises its named error.
        """
        from geomech.multibody.model.frame import QUATERNION_TOL

        law, cm = self.law, self.cm
        K, shapes = len(times), ((cm.nq,), (cm.nv,), (cm.nv,))
        if law.vectorized:
            ref = _stacked(law.reference(times), K, shapes)
            if ref is None:
                raise DimensionError(
                    f"Expected the vectorized `reference(t)` to return (q_d, v_d, a_d) of shapes "
                    f"{[(K,) + x for x in shapes]} for times t of shape ({K},)."
                )
            samples = None
        else:
            samples = [tuple(law.reference(x)) for x in times]
            ref = _stacked(samples, K, shapes, transpose=True)
        if ref is not None and all(np.isfinite(x).all() for x in ref):
            rows = self.quaternion_rows
            x4 = ref[0][:, rows]
            if not rows.size or np.abs(np.sqrt((x4 * x4).sum(-1)) - 1.0).max() <= QUATERNION_TOL:
                return ref
        # a sample the bulk check refused: the controller's validator raises its named error (or
        # accepts it, e.g. three items given as a generator)
        checked = [
            law.validate(samples[k] if samples is not None else tuple(x[k] for x in ref))
            for k in range(K)
        ]
        return tuple(np.array([r[k] for r in checked], dtype=float) for k in range(3))

    # ---- failures ---------------------------------------------------------------------------
    def _failure(self, fail, t, N, h):
        """The error of the earliest failed step of the batch, worded as the Python path's."""
        from geomech.multibody._kernels.driver import failure

        b = int(np.argmin(np.where(fail[:, 0] >= 0, fail[:, 0], np.iinfo(np.int64).max)))
        n, kind, status = (int(x) for x in fail[b])
        where = f"{self.method.name}, step {n + 1} of {N}, h = {h:.3g}"
        if kind == K.STATE_NOT_FINITE:
            return diverged(t[n + 1], where)
        if kind == K.ACCELERATION_FAILED:
            exc = failure(status, self.system, (), (), "the accelerations")
        elif status:
            exc = failure(status, self.law.estimate, (), (), "the torques")
        else:
            exc = NonFiniteError(
                "Expected `controller(t, q, v)` to be finite, got NaN or inf entries."
            )
        if isinstance(exc, NonFiniteError):  # an overflow: the solution blows up
            return diverged(t[n + 1], f"{where}: {exc}")
        return exc  # e.g. a singular articulated inertia

    # ---- the run ------------------------------------------------------------------------------
    def run(self, t, q0, y0, lead, *, budget, accuracy=None, on_step=None):
        """Integrate from ``(q0, y0)`` on the grid ``t``: ``(FixedRun, tau)``.

        ``tau`` (N + 1, ..., nv) holds the torques at ``t[:-1]`` and zeros at ``t[-1]`` (the
        last torque is the caller's: under free motion, all are zeros).

        Raises
        ------
        NonFiniteError
            If the state becomes non-finite (the message says where), or the torque or the
            ABA overflows.
        SingularityError
            If an articulated inertia is singular.
        SimulationBudgetError
            If the run runs past ``budget.max_wall_time``.
        """
        cm, N = self.cm, len(t) - 1
        h = (t[-1] - t[0]) / N
        nq, nv = cm.nq, cm.nv
        B = math.prod(lead)
        Q, Y = np.empty((N + 1, B, nq)), np.empty((N + 1, B, nv))
        TAU = np.zeros((N + 1, B, nv))
        Q[0], Y[0] = q0.reshape(B, nq), y0.reshape(B, nv)
        sampled = np.zeros(N, dtype=bool)
        if accuracy is not None:  # the steps integrate_fixed samples
            # (its private spacing: to be made public in geomech.integration.fixed)
            n_samples = min(ERROR_SAMPLES, max(1, N // fixed.SAMPLE_SPACING))
            stride = -(-N // n_samples)
            sampled[::stride] = True
        tol = (0.0, 0.0) if accuracy is None else (float(accuracy[1]), float(accuracy[0]))
        FAIL = np.empty((B, 3), dtype=np.int64)
        from geomech.multibody._kernels import driver

        threads = min(driver.get_num_threads(), B)
        # the caller runs the first range; serial while the machine has no idle core (a
        # thread waiting for a time slice makes the caller wait: 0.58x on a busy machine)
        if threads > 1 and B >= PARALLEL_MIN_BATCH and driver.idle_core():
            pool = _pool(threads - 1)
            bounds = np.linspace(0, B, threads + 1).astype(int)
        else:
            pool, threads = None, 1
        ws = K.simulate_workspace(self.plant, self.law_arrays, len(self.tableau[1]), nq, nv)
        ws = [_numpy_copy(ws) for _ in range(threads)]  # one per thread
        K.compile_with_runtime(self.plant, ws[0], False)  # (before simulate_steps compiles)
        errors, worst, name = [], (0.0, None), self.method.name
        n0, chunk = 0, 32
        while n0 < N:
            n1 = min(N, n0 + chunk)
            start = time.perf_counter()
            rows, ref = self._reference(t, h, n0, n1, sampled[n0:n1])
            ERR = np.zeros((n1 - n0, B))
            args = (self.plant, self.law_arrays, ref, rows, sampled[n0:n1], self.tableau, h, tol)
            args += (Q, Y, TAU, ERR, n0, n1)
            if pool is None:
                K.simulate_steps(*args, 0, B, FAIL, ws[0])
            else:  # disjoint ranges of trajectories in threads (the kernel releases the GIL)
                jobs = [
                    pool.submit(K.simulate_steps, *args, lo, hi, FAIL, ws[k])
                    for k, (lo, hi) in enumerate(zip(bounds[1:-1], bounds[2:], strict=True), 1)
                ]
                K.simulate_steps(*args, bounds[0], bounds[1], FAIL, ws[0])  # the caller works too
                for job in jobs:
                    job.result()
            if (FAIL[:, 0] >= 0).any():
                raise self._failure(FAIL, t, N, h)
            p = self.method.order
            for m in np.flatnonzero(sampled[n0:n1]):
                err = float(np.max(ERR[m], initial=0.0))
                err = err * 2.0**p / (2.0**p - 1.0) if math.isfinite(err) else math.inf
                errors.append(err)
                if worst[1] is None or err > worst[0]:
                    worst = (err, t[n0 + m])
            budget.check_step(n1, t[n1], name)
            if on_step is not None:
                on_step(n1 - n0)
            elapsed = time.perf_counter() - start
            # chunks of about _CHUNK_SECONDS (growing at most fourfold, at least one step)
            chunk = max(1, min(4 * chunk, int(chunk * _CHUNK_SECONDS / max(elapsed, 1e-6))))
            n0 = n1
        error = None if accuracy is None else float(N * np.mean(errors))
        run = FixedRun(
            q=Q.reshape((N + 1,) + lead + (nq,)),
            y=Y.reshape((N + 1,) + lead + (nv,)),
            aux=[],
            error=error,
            error_time=worst[1],
        )
        return run, TAU.reshape((N + 1,) + lead + (nv,))
