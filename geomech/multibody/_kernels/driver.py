"""Calling the kernels: inputs to batches, one batch driver, statuses to named errors.

The public functions of :mod:`geomech.multibody` validate their inputs here once, call the
``*_batch`` kernel of their algorithm on the flattened batch (a single state is a batch of
one) and reshape the result. One state given as contiguous float64 arrays
(:func:`is_state`) of a tree without user joints (:func:`single_state`) goes straight to the
algorithm's ``*_one`` entry point (:func:`entry`, :func:`failure`): the same kernel, called
without the batch machinery. The entry points of RNEA, CRBA, ABA and the Coriolis matrix
check the lengths and strides of their vectors themselves (``NOT_A_VECTOR`` sends anything
else to the general path), so that their public functions check only what the compiled
entry point cannot (:func:`are_vectors`: type, dtype, dimension).
Parallel evaluation of large batches is opt-in (:func:`set_num_threads`): the batch is cut
into chunks that run the same serial kernel in Python threads, which the kernels allow by
releasing the GIL (``nogil=True``); the helper threads are started once and sleep between
batches instead of spinning, so a loaded machine is not slowed down.

Threads are used only where they pay, by a simple cost model: the work per state of each
kernel (per kernel and model size) is measured as the CPU time of its serial calls (which a
busy machine does not inflate, as it does their wall time; one call in 64 is serial while
threads pay, to keep it current), and a batch is split only when
its estimated work is at least :data:`MIN_PARALLEL_WORK` seconds, in chunks of at most about
:data:`CHUNK_WORK` seconds that shrink near the end of the batch to about :data:`TAIL_WORK`
(:func:`_bounds`), so that the threads finish together; the wall time per state of the
threaded calls is measured too, per batch size class, and while it is not below :data:`PAYS`
times the serial work the batches of that size run serially, with a threaded probe every
:data:`PROBE` calls, rarer after each probe that did not pay (:func:`_decide`,
:func:`_record`); and no batch is split while the load average says that no core is idle (a
helper would wait for a time slice, and the caller for it). The calling thread works too: it
and the helpers take the chunks in turn from a shared counter, so a helper that the operating
system does not schedule (a loaded machine) leaves more chunks to the caller.
"""

from __future__ import annotations

import functools
import math
import os
import queue
import threading
import time

import numpy as np

from geomech._validation import as_array, check_allocation, check_batch_ndim
from geomech.errors import (
    DimensionError,
    DTypeError,
    ModelError,
    NonFiniteError,
    NotOnManifoldError,
    ParameterError,
    SingularityError,
)
from geomech.multibody._kernels.status import (
    NON_FINITE_INPUT,
    NON_FINITE_RESULT,
    NOT_ON_MANIFOLD,
    OK,
    SINGULAR,
    SINGULAR_DIFFERENCE,
    pack,
    unpack,
)

__all__ = [
    "compiled",
    "single_state",
    "is_state",
    "are_states",
    "are_vectors",
    "ENTRY",
    "entry",
    "failure",
    "states",
    "call",
    "check_inputs",
    "set_num_threads",
    "idle_core",
    "get_num_threads",
    "PARALLEL_THRESHOLD",
    "MIN_CHUNK",
    "MIN_PARALLEL_WORK",
    "CHUNK_WORK",
    "TAIL_WORK",
    "PAYS",
    "PROBE",
    "PROBE_BACKOFF",
    "MAX_THREADS",
]

#: smallest batch that is split across threads when more than one thread is allowed
PARALLEL_THRESHOLD = 256
#: smallest chunk of a batch given to one thread (but the last ones, see TAIL_WORK)
MIN_CHUNK = 16
#: smallest estimated work of a batch (s, from the measured time per state) split in threads
MIN_PARALLEL_WORK = 4e-4
#: threads are kept while their measured time per state is below this fraction of the serial
#: one (two threads on a machine whose cores are busy do not pay: then serial calls, and
#: every PROBE-th call a threaded one, to notice when they pay again)
PAYS = 0.9
PROBE = 8
#: the probes of threads that do not pay are at most ``PROBE << PROBE_BACKOFF`` calls apart
PROBE_BACKOFF = 3
#: the work of the largest chunk (s): long against the ~5-10 µs a chunk costs with two
#: threads (slicing the arguments, entering the kernel, its work arrays, waits for the GIL),
#: short enough for a caller to take over the chunks of a helper that is not scheduled
CHUNK_WORK = 5e-4
#: the work of the smallest chunks (s): each chunk is a share of the states left
#: (:func:`_bounds`), down to this at the end of a batch, so that the threads finish within
#: about this of each other (equal chunks left one thread idle for half a chunk on average)
TAIL_WORK = 5e-5
#: the number of last chunks of a batch that the helpers leave to the caller (an experiment,
#: off: the caller then finishes last and does not sleep until a helper wakes it, a wake-up that
#: may be slow on a virtual machine whose idle cores halt, at the price of a helper idle for
#: about a tail chunk; ``bench_kernels.py --threads`` compares both at B = 1000)
CALLER_LAST = 0
#: largest number of threads :func:`set_num_threads` accepts
MAX_THREADS = 1024

_threads = 1
#: the helper threads' inboxes (one ``queue.SimpleQueue`` each): started when a batch first
#: needs them and kept (asleep) for the next batches; :func:`set_num_threads` ends those beyond
#: the new number (but one, so that switching between 1 and 2 threads starts no thread)
_HELPERS: list = []
#: per kernel and size of its first model array: ``[serial, threaded, calls, threaded_calls]``,
#: the measured seconds per state of its serial work (a running mean of the CPU time of its
#: serial calls), of its threaded calls by batch size class (``{B.bit_length(): (running mean of the
#: wall time, unpaid probes in a row)}``: the hand-off costs weigh more on small batches),
#: the number of calls and of threaded calls
_COST: dict = {}
#: None, or a list to which each threaded call appends its timeline (benchmarks: see
#: :func:`_call_threaded`)
_TRACE: list | None = None


def set_num_threads(n: int | None) -> None:
    """Allow ``n`` threads for batches of at least ``PARALLEL_THRESHOLD`` (256) states.

    ``1`` (the default) evaluates every batch serially; ``None`` uses ``os.cpu_count()``.
    A batch is cut into chunks (each a share of the states left, between about
    ``TAIL_WORK`` and ``CHUNK_WORK`` seconds of work) that the calling thread and ``n − 1``
    helper threads take in turn, and only where the measured cost says threads pay and a core
    is idle (see the module). The helpers are started by the first batch that needs them and
    sleep between batches.

    Raises
    ------
    DTypeError
        If ``n`` is not None or an integer (bools, floats and text are refused).
    DimensionError
        If ``n < 1``.
    ParameterError
        If ``n > MAX_THREADS``.

    Examples
    --------
    >>> from geomech.multibody._kernels import driver
    >>> driver.set_num_threads(2); driver.get_num_threads()
    2
    >>> driver.set_num_threads(1)
    """
    global _threads
    if n is None:
        n = os.cpu_count() or 1
    elif isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise DTypeError(f"Expected a number of threads (an int or None), got {n!r}.")
    n = int(n)
    if n < 1:
        raise DimensionError(f"Expected a number of threads >= 1, got {n}.")
    if n > MAX_THREADS:
        raise ParameterError(f"Expected a number of threads <= {MAX_THREADS}, got {n}.")
    _threads = n
    while len(_HELPERS) > max(n - 1, 1):  # the helpers beyond n - 1 end (one stays, asleep)
        _HELPERS.pop().put(None)


def get_num_threads() -> int:
    """The number of threads allowed for large batches (:func:`set_num_threads`).

    Examples
    --------
    >>> from geomech.multibody._kernels.driver import get_num_threads
    >>> get_num_threads()
    1
    """
    return _threads


def compiled(model):
    """``model.compiled``, or a :class:`ModelError` naming what was passed instead of a model.

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> from geomech.multibody._kernels.driver import compiled
    >>> compiled(robots.double_pendulum()).nv
    2
    >>> compiled(None)
    Traceback (most recent call last):
        ...
    geomech.errors.ModelError: Expected `model` to be a MultibodyModel, got NoneType.
    """
    try:
        return model._compiled  # built and cached by `model.compiled` (the fast path)
    except AttributeError:
        pass
    try:
        return model.compiled
    except AttributeError:
        raise ModelError(
            f"Expected `model` to be a MultibodyModel, got {type(model).__name__}."
        ) from None


def single_state(model):
    """``(topo, packed, nq, nv)`` of a tree without user joints (building its compiled model), else
    None.

    The public functions read ``model._single`` (set when the compiled model is built) and
    call this only when it is not set yet, or for closed models, user joints and non-models
    (``None``: their general path handles or names them).

    Examples
    --------
    >>> from geomech.multibody import robots
    >>> from geomech.multibody._kernels.driver import single_state
    >>> single_state(robots.double_pendulum())[2:]   # nq, nv
    (2, 2)
    >>> single_state(None) is None
    True
    """
    if getattr(model, "is_closed", True):
        return None
    return compiled(model).single


def _as_float(x, name: str, trailing: tuple[int, ...]) -> np.ndarray:
    """``x`` as a float64 array with the given trailing shape (finiteness: the kernel's job)."""
    if type(x) is np.ndarray and x.dtype == np.float64:
        k = len(trailing)
        if x.ndim >= k and x.shape[x.ndim - k :] == trailing:
            check_batch_ndim(x, name, k)
            return x
    return as_array(x, name, trailing, finite=False)


def states(*inputs, per_state: int = 0):
    """Validate ``(name, value, trailing_shape)`` triples and flatten them to one batch.

    Returns ``(batch_shape, B, arrays)``: each array has shape ``(1 or B, *trailing)`` (one
    row when it is shared by the whole batch) and is C-contiguous. ``per_state`` is the
    number of float64 numbers the caller allocates per state (results, working arrays):
    with the inputs, checked against :data:`geomech._validation.MAX_ARRAY_BYTES` before
    anything is allocated (a broadcast batch of 10⁸ states is refused, not materialised).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody._kernels.driver import states
    >>> batch, B, (q, v) = states(("q", np.zeros((4, 1, 2)), (2,)), ("v", np.ones(2), (2,)))
    >>> batch, B, q.shape, v.shape
    ((4, 1), 4, (4, 2), (1, 2))
    """
    # fast path: one state given as float64 arrays of exactly the trailing shapes
    out = []
    for _, x, trailing in inputs:
        if type(x) is not np.ndarray or x.dtype != np.float64 or x.shape != trailing:
            break
        flags = x.flags
        out.append(x[None] if flags.c_contiguous and flags.writeable else x[None].copy())
    else:
        if per_state:
            check_allocation(per_state + sum(x.size for x in out), "the results of one state")
        return (), 1, out
    arrays = [_as_float(x, name, trailing) for name, x, trailing in inputs]
    leads = [a.shape[: a.ndim - len(t)] for a, (_, _, t) in zip(arrays, inputs, strict=True)]
    try:
        batch = np.broadcast_shapes(*leads)
    except ValueError as exc:
        raise DimensionError(
            f"Expected the leading (batch) dimensions of the inputs to broadcast, got {leads}."
        ) from exc
    B = math.prod(batch)
    check_allocation(
        B * (per_state + sum(math.prod(t) for _, _, t in inputs)),
        f"the batch of {B} states {batch}" if batch else "the results of one state",
        " (evaluate it in smaller batches)" if batch else "",
    )
    out = []
    for a, lead, (_, _, t) in zip(arrays, leads, inputs, strict=True):
        if lead == batch or (lead and math.prod(lead) == B):
            a = a.reshape((B,) + t)
        elif math.prod(lead) == 1:
            a = a.reshape((1,) + t)
        else:  # a partial broadcast: materialise it
            a = np.broadcast_to(a, batch + t).reshape((B,) + t)
        flags = a.flags
        # one array type per kernel argument (C-contiguous, writable float64), see `call`
        out.append(a if flags.c_contiguous and flags.writeable else a.copy())
    return batch, B, out


_F64 = np.dtype(np.float64)
_UNIT_STRIDE = (8,)


def is_state(x, n: int) -> bool:
    """Whether ``x`` goes to a single-state kernel as it is: a contiguous float64 array of shape
    (n,).

    The public wrappers' fast path: one state given as such arrays skips :func:`states`
    (finiteness is checked inside the kernels). Anything else (lists, other dtypes, batches,
    strided views) takes the general path, which converts, validates and names the input.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody._kernels.driver import is_state
    >>> is_state(np.zeros(3), 3), is_state(np.zeros(6)[::2], 3), is_state([0.0] * 3, 3)
    (True, False, False)
    """
    # strides (8,): one contiguous axis (so len() is safe); the cheapest checks first
    return type(x) is np.ndarray and x.dtype is _F64 and x.strides == _UNIT_STRIDE and len(x) == n


_ND = np.ndarray


def are_states(q, v, a, nq: int, nv: int) -> bool:
    """:func:`is_state` of ``q`` (nq,) and of ``v``, ``a`` (nv,) in one call (``a=v`` for two).

    The fast path of the public functions with a state ``(q, v)`` or ``(q, v, a)``: one call
    and the cheapest checks first (a tenth of a microsecond less than three calls).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody._kernels.driver import are_states
    >>> q, v = np.zeros(3), np.zeros(2)
    >>> are_states(q, v, v, 3, 2), are_states(q, v, [0.0, 0.0], 3, 2)
    (True, False)
    """
    return (
        type(q) is _ND
        and type(v) is _ND
        and type(a) is _ND
        and q.dtype is _F64
        and v.dtype is _F64
        and a.dtype is _F64
        and q.strides == _UNIT_STRIDE
        and v.strides == _UNIT_STRIDE
        and a.strides == _UNIT_STRIDE
        and len(q) == nq
        and len(v) == nv
        and len(a) == nv
    )


def are_vectors(q, v, a) -> bool:
    """Whether ``q``, ``v``, ``a`` are float64 vectors (``numpy.ndarray``, 1-D).

    The Python half of the fast path of the public functions whose single-state entry
    points check the lengths and strides of their vectors themselves (``NOT_A_VECTOR``):
    the rest of :func:`are_states`, whose length and stride reads cost ~0.1 µs more. What
    is checked here cannot be checked in the kernel: its compiled entry point reads an
    array of another dtype or dimension without converting it (and crashes on ``None``).
    ``rnea``, ``crba``, ``aba`` and ``coriolis_matrix`` write these checks out in their fast
    path, at their arity (the call costs ~50 ns of their 0.7 µs on a small arm); the
    derivatives, whose calls take microseconds, call this.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody._kernels.driver import are_vectors
    >>> q, v = np.zeros(3), np.zeros(2)
    >>> are_vectors(q, v, v), are_vectors(q, v[None], v), are_vectors(q, v, [0.0, 0.0])
    (True, False, False)
    """
    return (
        type(q) is _ND
        and type(v) is _ND
        and type(a) is _ND
        and q.dtype is _F64
        and v.dtype is _F64
        and a.dtype is _F64
        and q.ndim == 1
        and v.ndim == 1
        and a.ndim == 1
    )


def entry(kernel):
    """The compiled entry point of a single-state ``kernel`` (its dispatcher until compiled).

    The public functions' fast path: ``status = entry(K.crba_one)(...)``, then
    :func:`failure` when the status is not ``OK`` (0).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody._kernels.tree import dynamics as K
    >>> from geomech.multibody._kernels.driver import entry
    >>> model = robots.double_pendulum()
    >>> q, H = np.array([0.3, 0.0]), np.empty((2, 2))
    >>> topo, packed, nq, nv = model.compiled.single
    >>> entry(K.crba_one)(topo, packed, q, H)
    0
    >>> H
    array([[5., 2.],
           [2., 1.]])
    """
    ep = _ENTRY.get(kernel)
    return ep if ep is not None else _entry(kernel)


def failure(status, model, names, inputs, what="the result"):
    """The named error of a single-state kernel's failed ``status``.

    ``inputs`` are the user's inputs (arrays accepted by :func:`is_state`), ``names`` their
    names, for messages.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody._kernels.tree import dynamics as K
    >>> from geomech.multibody._kernels.driver import entry, failure
    >>> model = robots.double_pendulum()
    >>> q, H = np.array([np.nan, 0.0]), np.empty((2, 2))
    >>> topo, packed, nq, nv = model.compiled.single
    >>> failure(entry(K.crba_one)(topo, packed, q, H), model, ("q",), (q,))
    NonFiniteError('Expected `q` to be finite, got NaN or inf entries.')
    """
    return _error(int(status), 0, (), model, names, [x[None] for x in inputs], what)


def call(kernel, model_args, batch_args, batch, model, *, names=(), what="the result"):
    """Run ``kernel(*model_args, *batch_args, status)`` and raise the named error of a failure.

    ``batch_args`` are the per-state inputs then the outputs (each with 1 or B rows);
    ``batch`` is the batch shape (``()`` for one state), ``names`` are the inputs' names,
    for messages. Large batches run in threads when :func:`set_num_threads` allows it.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody._kernels.tree import dynamics as K
    >>> from geomech.multibody._kernels.driver import call, states
    >>> model = robots.double_pendulum()
    >>> cm = model.compiled
    >>> batch, B, (Q,) = states(("q", [0.3, 0.0], (2,)))
    >>> H = np.empty((B, 2, 2))
    >>> call(K.crba_batch, cm.arrays(), (*cm.joint_arrays(Q), Q, H), batch, model)
    >>> H[0]
    array([[5., 2.],
           [2., 1.]])
    """
    B = math.prod(batch)
    status = np.empty(B, dtype=np.int64)
    if _threads > 1 and B >= PARALLEL_THRESHOLD:
        key = (kernel, model_args[0].shape if model_args else ())
        cost = _COST.get(key)
        if cost is None:
            cost = _COST[key] = [0.0, {}, 0, 0]
        serial, size = cost[0], B.bit_length()
        threaded, misses = cost[1].get(size, _UNMEASURED)
        parallel = _decide(serial, threaded, cost[2], B, misses)
        warm = bool(kernel.signatures)  # (else this call compiles or loads the kernel)
        t0 = time.perf_counter()
        if parallel:
            chunk = max(MIN_CHUNK, int(CHUNK_WORK / serial))
            tail = max(1, min(chunk, int(TAIL_WORK / serial)))
            failed = _call_threaded(kernel, model_args, batch_args, B, status, chunk, tail)
            work = 0.0
        else:  # measures the serial work per state (first call, small or unpaid batches)
            c0 = time.thread_time_ns()
            failed = _entry(kernel)(*model_args, *batch_args, status)
            work = 1e-9 * (time.thread_time_ns() - c0) / B
        if not failed and warm:
            _record(cost, size, parallel, (time.perf_counter() - t0) / B, work)
        cost[2] += 1
        cost[3] += parallel
    else:
        failed = _entry(kernel)(*model_args, *batch_args, status)
    if failed:
        raise _error(int(status[failed - 1]), failed - 1, batch, model, names, batch_args, what)


#: the threaded cost of a batch size not measured yet, and its number of unpaid probes
_UNMEASURED = (0.0, 0)


def _record(cost, size, parallel, t, work) -> None:
    """Update a kernel's entry of :data:`_COST` after a call without failure of batch size
    class ``size`` that ran in threads or not (``parallel``) and took ``t`` seconds per state
    (wall time), a serial one ``work`` seconds of CPU time per state.

    The serial cost is the running mean of the CPU time per state of the serial calls: a busy
    machine does not inflate it, so that threads are compared with the serial work itself (a
    serial cost measured in wall time on a busy moment kept threads that were 0.4-0.9x). A
    threaded call that is a probe (threads unmeasured at this size or not paying) replaces the
    threaded cost, and counts the unpaid probes in a row; else it enters the running mean at
    most twice the mean, so that one slow call does not turn the batches serial (three in a
    row do, from a speed-up of 1.8).

    Examples
    --------
    >>> from geomech.multibody._kernels.driver import _record
    >>> cost = [0.0, {}, 0, 0]
    >>> _record(cost, 10, False, 5e-6, 4e-6); cost[0]  # a serial call: its CPU time
    4e-06
    >>> _record(cost, 10, True, 2.5e-6, 0.0); cost[1]  # threads measured, paying
    {10: (2.5e-06, 0)}
    """
    serial = cost[0]
    if not parallel:
        cost[0] = work if serial == 0.0 else 0.5 * (serial + work)
    else:
        threaded, misses = cost[1].get(size, _UNMEASURED)
        if threaded == 0.0 or threaded >= PAYS * serial:  # a probe: a new estimate; the next
            # one later if it did not pay either (a first one may be slow: a thread starting)
            cost[1][size] = (t, misses + 1 if threaded and t >= PAYS * serial else 0)
        else:
            cost[1][size] = (0.75 * threaded + 0.25 * min(t, 2.0 * threaded), 0)


def _decide(serial, threaded, calls, B, misses=0) -> bool:
    """Whether a batch of ``B`` states runs in threads, from the measured seconds per state of
    the kernel's serial calls and of its threaded calls at this batch size (0: not measured
    yet), its number of calls so far and the number of threaded probes in a row that did not
    pay.

    Serial while the serial cost is unmeasured, while the batch's work ``B * serial`` is below
    :data:`MIN_PARALLEL_WORK` and while no core is idle (:func:`idle_core`). Else in threads
    while they pay (``threaded < PAYS * serial``), but for a serial call every
    ``PROBE << PROBE_BACKOFF`` calls that keeps the serial cost current (1 % of the time of
    threads that pay 1.8x), and while they do not, serially but for a threaded probe every
    :data:`PROBE` calls, twice as far apart after each probe that did not pay (up to
    ``PROBE << PROBE_BACKOFF`` calls: a busy machine that the load average does not show
    loses at most a probe's slowdown in that many calls).

    Examples
    --------
    >>> from geomech.multibody._kernels import driver
    >>> driver._decide(0.0, 0.0, 0, 1000)  # the first call measures the serial cost
    False
    >>> driver._decide(5e-6, 0.0, 1, 50)  # 0.25 ms of work: not worth a thread
    False
    """
    if serial <= 0.0 or B * serial < MIN_PARALLEL_WORK or not idle_core():
        return False
    if threaded == 0.0:  # not measured at this batch size yet
        return True
    if threaded < PAYS * serial:  # paying: a serial call now and then keeps serial current
        return calls % (PROBE << PROBE_BACKOFF) != 0
    return calls % (PROBE << min(misses, PROBE_BACKOFF)) == 0


def check_inputs(model, batch, names, arrays, quaternions=()):
    """Raise the named error of the first state with a non-finite input or a non-unit
    quaternion, for kernels that do not check their inputs themselves.

    ``arrays`` are flattened batch inputs (``(1 or B, ...)`` rows, as :func:`states` returns
    them), ``names`` their names; ``quaternions`` lists ``(body index, first column)`` of
    the unit quaternions in the first array's rows (tolerance 1e-6 on the norm, as the
    kernels that read them).

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody._kernels.driver import check_inputs
    >>> from geomech.errors import NonFiniteError
    >>> Q = np.zeros((3, 2)); Q[2, 1] = np.nan
    >>> try:
    ...     check_inputs(robots.double_pendulum(), (3,), ("q",), (Q,))
    ... except NonFiniteError as exc:
    ...     print(exc.args[0][:26], "...", exc.args[0][-21:])
    Expected `q` to be finite, ... (batch element (2,)).
    """
    B = math.prod(batch)
    first, code, index = B, OK, -1
    for x in arrays:
        bad = ~np.isfinite(x.reshape(x.shape[0], -1)).all(axis=1)
        if bad.any():
            b = int(np.argmax(bad))
            if b < first:
                first, code = b, NON_FINITE_INPUT
    if quaternions:
        Q = arrays[0]
        for i, col in quaternions:
            with np.errstate(all="ignore"):
                off = np.abs(np.sqrt(np.sum(Q[:, col : col + 4] ** 2, axis=1)) - 1.0) > UNIT_TOL
            if off.any():
                b = int(np.argmax(off))
                if b < first:
                    first, code, index = b, NOT_ON_MANIFOLD, i
    if code != OK:
        raise _error(pack(code, index), first, batch, model, names, arrays, "the inputs")


#: tolerance on the deviation of a quaternion's norm from 1 (as the kernels' ``UNIT_TOL``)
UNIT_TOL = 1e-6

_ENTRY: dict = {}
#: the compiled entry points found so far, by kernel: ``(ENTRY.get(k) or entry(k))(...)`` is
#: :func:`entry` without its call (the public functions' fast path)
ENTRY = _ENTRY


def _entry(kernel):
    """The kernel's compiled entry point, skipping numba's type dispatch (~60 ns an argument).

    Every argument the wrappers pass has one fixed type (C-contiguous float64 or int64 arrays
    of fixed dimensions, read-only for the compiled model's arrays and writable for the rest:
    :func:`states` copies anything else), so each batch kernel has exactly one signature;
    the dispatcher is used until it has compiled it, and whenever a second signature appears.
    """
    ep = _ENTRY.get(kernel)
    if ep is not None:
        return ep
    if len(kernel.signatures) == 1:
        ep = _ENTRY[kernel] = kernel.overloads[kernel.signatures[0]].entry_point
        return ep
    return kernel


#: time of the last look at the load average, its verdict, this process's CPU time then, and
#: the cores this process kept busy (a running mean over about a minute, as the load average)
_LOAD = [-1.0, False, 0.0, 0.0]
#: the time constant (s) of the 1-minute load average
_LOAD_WINDOW = 60.0
#: wall and CPU time when the driver was imported: the first look at the load average takes
#: this process's busy cores since then (a process that computed serially for a minute is
#: itself one unit of the load average)
_IMPORTED = (time.monotonic(), time.process_time())


def idle_core() -> bool:
    """Whether the machine has a core to spare for a helper thread: the 1-minute load average
    of the *other* processes, plus the calling thread, is below the number of cores minus one
    half (looked up at most twice a second).

    The load average counts this process too, threads included: the cores it kept busy
    since the last look (its CPU time over the wall time, averaged over a minute as the load
    average is) are subtracted, else two threads that pay would raise the load and turn the
    next batches serial, which would lower it again (the two-thread speed-up of the
    benchmarks then swung between 0.9 and 1.8). A helper thread on a machine whose cores
    are all busy waits for a time slice, and the caller waits for the helper's chunk: then
    the batch runs serially.
    """
    now = time.monotonic()
    if now - _LOAD[0] > 0.5:
        cpu = time.process_time()
        if _LOAD[0] >= 0.0:  # the cores this process used since the last look
            w = math.exp(-(now - _LOAD[0]) / _LOAD_WINDOW)
            used = (cpu - _LOAD[2]) / (now - _LOAD[0])
            _LOAD[3] = w * _LOAD[3] + (1.0 - w) * used
        else:  # the first look: the cores it used since the import
            _LOAD[3] = (cpu - _IMPORTED[1]) / max(now - _IMPORTED[0], 1e-3)
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # pragma: no cover (no load average: Windows)
            load = 0.0
        others = max(load - _LOAD[3], 0.0)
        _LOAD[0], _LOAD[2] = now, cpu
        _LOAD[1] = others + 1.0 < (os.cpu_count() or 1) - 0.5
    return _LOAD[1]


def _bounds(B: int, threads: int, chunk: int, tail: int) -> list[int]:
    """The chunk boundaries of a batch of ``B`` states: each chunk a ``1 / threads`` share of
    the states left, at most ``chunk`` and at least ``tail`` states (guided self-scheduling:
    few chunks, and small ones at the end, so that the threads finish together).

    Examples
    --------
    >>> from geomech.multibody._kernels.driver import _bounds
    >>> _bounds(300, 2, 64, 4)
    [0, 64, 128, 192, 246, 273, 287, 294, 298, 300]
    """
    bounds, lo = [0], 0
    while lo < B:
        lo = min(B, lo + min(chunk, max(tail, -(-(B - lo) // threads))))
        bounds.append(lo)
    return bounds


def _helper(inbox) -> None:
    """A helper thread: runs the jobs put in its inbox, asleep in between, until a None."""
    while (job := inbox.get()) is not None:
        job()


def _start_helpers(n: int) -> int:
    """Start helper threads until there are ``n``; the number of helpers that can take part
    (fewer than ``n`` if the system refuses more threads).
    """
    while len(_HELPERS) < n:
        inbox = queue.SimpleQueue()
        try:
            threading.Thread(
                target=_helper, args=(inbox,), name=f"geomech-{len(_HELPERS) + 1}", daemon=True
            ).start()
        except RuntimeError:  # pragma: no cover (no more threads: the caller does the rest)
            break
        _HELPERS.append(inbox)
    return min(n, len(_HELPERS))


if hasattr(os, "register_at_fork"):  # a forked child has none of the parent's threads
    os.register_at_fork(after_in_child=_HELPERS.clear)


def _call_threaded(kernel, model_args, batch_args, B, status, chunk, tail=1):
    """The 1-based index of the first failing state of the batch (0: none), run in chunks
    (:func:`_bounds`) that the calling thread and ``_threads - 1`` helpers take in turn.

    The caller works too and then waits only for the chunks the helpers are running; a helper
    that wakes late finds the chunks taken. The last :data:`CALLER_LAST` chunks are left to
    the caller. An exception in a chunk is raised in the caller once every chunk is finished.
    With :data:`_TRACE` a list, the call appends
    ``(t0, t1, threads)``: its start and end (``time.perf_counter_ns``) and for each thread
    (the caller first) the times it started its first chunk and finished its last one (0: it
    took none), its number of chunks and its nanoseconds in the kernel.
    """
    ep = _entry(kernel)
    bounds = _bounds(B, _threads, chunk, tail)
    n = len(bounds) - 1
    failed = [0] * n
    taken_so_far = [0]  # the next chunk, taken under the lock
    lock, done, left, errors = threading.Lock(), threading.Lock(), [n], []
    done.acquire()  # released by whoever finishes the last chunk
    trace = _TRACE
    timeline: list = []
    clock = time.perf_counter_ns
    t0 = clock() if trace is not None else 0

    def work(limit=n):
        first = last = busy = taken = 0
        while True:
            with lock:
                k = taken_so_far[0]
                if k >= limit:
                    break
                taken_so_far[0] = k + 1
            lo, hi = bounds[k], bounds[k + 1]
            try:
                args = [a if a.shape[0] == 1 else a[lo:hi] for a in batch_args]
                if trace is None:
                    failed[k] = ep(*model_args, *args, status[lo:hi])
                else:
                    start = clock()
                    failed[k] = ep(*model_args, *args, status[lo:hi])
                    last = clock()
                    first, busy, taken = first or start, busy + last - start, taken + 1
            except BaseException as exc:  # raised in the caller
                errors.append(exc)
            finally:
                with lock:
                    left[0] -= 1
                    if left[0] == 0:
                        done.release()
        if trace is not None:
            timeline.append((threading.get_ident() == caller, first, last, taken, busy))

    caller = threading.get_ident()
    helper = functools.partial(work, max(1, n - CALLER_LAST))
    for inbox in _HELPERS[: _start_helpers(min(_threads - 1, n - 1))]:
        inbox.put(helper)
    work()  # the caller takes chunks too; then waits only for chunks a helper is running
    done.acquire()
    if trace is not None:
        timeline.sort(reverse=True)  # the caller first
        trace.append((t0, clock(), [x[1:] for x in timeline]))
    if errors:
        raise errors[0]
    for k in range(n):  # the first failure in batch order
        if failed[k]:
            return bounds[k] + failed[k]
    return 0


def _error(status, b, batch, model, names, batch_args, what):
    code, i = unpack(status)
    where = f" (batch element {tuple(int(k) for k in np.unravel_index(b, batch))})" if batch else ""
    if code == NON_FINITE_INPUT:
        for name, x in zip(names, batch_args, strict=False):
            row = x[b] if x.shape[0] > 1 else x[0]  # the failing state's row (or the shared one)
            if not np.all(np.isfinite(row)):
                return NonFiniteError(
                    f"Expected `{name}` to be finite, got NaN or inf entries{where}."
                )
        return NonFiniteError(f"Expected finite inputs, got NaN or inf entries{where}.")
    body = model.body_names[i] if 0 <= i < model.n_bodies else None
    if code == NOT_ON_MANIFOLD:
        return NotOnManifoldError(
            f"Expected the quaternion of joint {model.joint_names[i]!r} in `q` to be a unit "
            f"quaternion (|q| = 1 to 1e-06){where}."
        )
    if code == SINGULAR:
        return SingularityError(
            f"Articulated inertia Phiᵀ I^A Phi of body {body!r} (index {i}) is singular"
            f"{where}: expected its smallest pivot > 1e-12 x |I^A|. The subtree of this body "
            "has no inertia along its joint's motion subspace (zero-mass links?)."
        )
    if code == SINGULAR_DIFFERENCE:
        return SingularityError(
            f"Expected the angle difference of the planar/Schoenflies joint "
            f"{model.joint_names[i]!r} to avoid nonzero multiples of 2π{where}."
        )
    if code == NON_FINITE_RESULT:
        return NonFiniteError(
            f"Expected {what} to be finite, got an overflow to inf or NaN{where}: the inputs "
            "are finite but too large for double precision."
        )
    return NonFiniteError(f"Kernel failure (status {status}){where}.")  # pragma: no cover
