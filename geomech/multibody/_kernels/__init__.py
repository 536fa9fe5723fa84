r"""Compiled kernels of the multibody algorithms (numba): one per algorithm, single state.

The layer under :mod:`geomech.multibody`'s public functions:

- :mod:`~.compiled` — the compiled model: a :class:`~geomech.multibody.MultibodyModel` as flat
  arrays (``model.compiled``), and the two-stage path of user-defined joints;
- :mod:`~.spatial` — 6-vectors and Plücker transforms ``(E, r)`` kept in locals;
- :mod:`~.joints` — joint type codes, poses, ``q ⊕ v`` and ``q₁ ⊖ q₀``;
- :mod:`~.kinematics`, :mod:`~.dynamics` — tree transforms, twists, Jacobians; RNEA, CRBA,
  ABA, kinetic energy;
- :mod:`~.tables` (and ``cluster/tables.py``) — the named columns of the compiled tables
  (``topo[i, PARENT]``, ``cbody[t, STACK]``);
- :mod:`~.views` — a kernel's work arrays as consecutive views of one allocation, declared as
  a tuple of shapes (:func:`~.views.workspace`, without numba's reshape call);
- :mod:`~.status` — status codes, which :mod:`~.driver` turns into named errors;
- :mod:`~.driver` — validation, batching (a single call is a batch of one) and opt-in
  threads for large batches (:func:`set_num_threads`).

Every kernel is compiled with the options of :mod:`~.jit` (``cache=True``: a new process
loads the machine code from ``__pycache__`` instead of compiling again; ``nogil=True``),
which also holds the two helpers of the batch drivers.
"""

from geomech.multibody._kernels.driver import get_num_threads, set_num_threads

__all__ = ["set_num_threads", "get_num_threads"]
