r"""Named columns of the compiled model's tables (:mod:`~geomech.multibody._kernels.compiled`).

The kernels read ``topo[i, PARENT]``, ``jparam[i, PITCH]``, never a bare column number.
Module-level integers are compile-time constants to numba: a named column costs nothing at
run time. (The names live here, not in :mod:`~.compiled`, because :mod:`~.joints`, which
:mod:`~.compiled` imports, reads ``topo`` too: the import graph stays acyclic.)

``topo`` (N + 1, :data:`TOPO_COLUMNS`) int64, one row per body ``i`` (bodies numbered
depth-first), then a row of totals:

- :data:`PARENT` — :math:`p(i)`, −1 for a root;
- :data:`JTYPE` — the joint's type code (:mod:`~.joints`);
- :data:`IQ`, :data:`IV` — first index of joint ``i``'s block of ``q`` and of ``v``
  (``q[iq[i]:iq[i + 1]]``); row N holds ``nq`` and ``nv``;
- :data:`IV_END` — end of the subtree of ``i`` in ``v``: the joints of the subtree own
  ``v[iv[i]:iv_end[i]]``; row N holds ``nv``.

``jparam`` (N, :data:`JPARAM_COLUMNS`) float, the constants of a 1-DoF joint with unit axis
:math:`\mathbf a`, pitch :math:`h` and placement rotation :math:`\mathbf R_T`, for which
:math:`\mathbf E_{up}(\theta) = \mathbf R_T^\top + \sin\theta\,(-\mathbf K\mathbf R_T^\top)
+ (1 - \cos\theta)\,\mathbf K^2\mathbf R_T^\top` (``K = â``):

- :data:`AXIS` (3) — :math:`\mathbf a`; :data:`PITCH` (1) — :math:`h`;
- :data:`E_SIN` (9, row-major) — :math:`-\mathbf K\mathbf R_T^\top`, the factor of
  :math:`\sin\theta`;
- :data:`E_VERS` (9, row-major) — :math:`\mathbf K^2\mathbf R_T^\top`, the factor of the
  versine :math:`1 - \cos\theta`;
- :data:`R_AXIS` (3) — :math:`\mathbf R_T\mathbf a`, the axis in the parent's frame (the
  direction of the joint's translation);

and, for every joint, its dynamics per speed (entry ``k`` for speed ``iv[i] + k``, zeros past
the joint's ``nv``; ``model.armature`` etc.):

- :data:`ARMATURE` (6) — the reflected rotor inertia added to :math:`\mathbf D_i` and
  :math:`\mathbf H_{kk}`;
- :data:`DAMPING` (6), :data:`FRICTION` (6) — viscous and Coulomb coefficients of the joint
  friction torque :math:`-k_d\nu_k - k_f\operatorname{sign}\nu_k` (read by the compiled
  simulation only).

Examples
--------
>>> from geomech.multibody import robots
>>> from geomech.multibody._kernels.tables import IV, PARENT
>>> cm = robots.double_pendulum().compiled
>>> cm.topo[:-1, PARENT].tolist(), cm.topo[:, IV].tolist()
([-1, 0], [0, 1, 2])
"""

from __future__ import annotations

__all__ = [
    "PARENT",
    "JTYPE",
    "IQ",
    "IV",
    "IV_END",
    "TOPO_COLUMNS",
    "AXIS",
    "PITCH",
    "E_SIN",
    "E_VERS",
    "R_AXIS",
    "ARMATURE",
    "DAMPING",
    "FRICTION",
    "JPARAM_COLUMNS",
]

# ---- topo -------------------------------------------------------------------------------
PARENT = 0
JTYPE = 1
IQ = 2
IV = 3
IV_END = 4
TOPO_COLUMNS = 5

# ---- jparam -----------------------------------------------------------------------------
AXIS = 0
PITCH = 3
E_SIN = 4
E_VERS = 13
R_AXIS = 22
ARMATURE = 25
DAMPING = 31
FRICTION = 37
JPARAM_COLUMNS = 43
