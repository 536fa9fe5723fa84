r"""Named columns of the cluster tables (:mod:`~geomech.multibody._kernels.cluster.compiled`).

The kernels read ``cbody[t, STACK]``, ``cclus[k, FIRST_Y]``, never a bare column number;
module-level integers are compile-time constants to numba (no run-time cost). (The names live
here, not in :mod:`~.compiled`, because :mod:`~.compiled` imports the constraint kernel that
reads them: the import graph stays acyclic.)

``cbody`` (N, :data:`CBODY_COLUMNS`) int64, per body ``i``:

- :data:`CLUSTER` — its cluster :math:`k`;
- :data:`SLOT` — its position in its cluster (regular order);
- :data:`OUTPUT` — its output body :math:`\Lambda(i)` (nearest ancestor outside the
  cluster), −1 for the base;
- :data:`STACK` — in row ``t``: the ``t``-th body in stack order (clusters in regular order,
  each cluster's bodies in regular order; seed 004 eq. 11).

``cclus`` (N_C + 1, :data:`CCLUS_COLUMNS`) int64, per cluster ``k``, then a row of totals:

- :data:`PARENT_CLUSTER` — :math:`\lambda(k)`, −1 for the base;
- :data:`FIRST_BODY` — offset of its bodies in stack order (its bodies are
  ``cbody[cclus[k, FIRST_BODY]:cclus[k + 1, FIRST_BODY], STACK]``; row N_C: N);
- :data:`FIRST_Y` — offset of its independent speeds :math:`\dot y_k` in ``yidx`` (row
  N_C: nv);
- :data:`IA_OFFSET` — offset of its articulated inertia, a dense :math:`6n_b\times 6n_b`
  block, in one flat work array (row N_C: the array's size);
- :data:`SHAPE` — its shape code, the sum of the flags :data:`ONE_OUTPUT` (every body of
  the cluster has the same output body: its articulated inertia reaches the parent as one
  6×6 block), :data:`BLOCK_DIAGONAL` (no child cluster hangs from two of its bodies: its
  articulated inertia stays block diagonal, one 6×6 block per body) and :data:`ONE_DOF`
  (:math:`m_k = 1`: :math:`\mathsf D_k` is a number). A link with its geared rotor, a belt
  pair (two links, two rotors, 2 DoF), a four-bar and every body of a tree are
  ``ONE_OUTPUT | BLOCK_DIAGONAL`` (with ``ONE_DOF`` but for the belt pair) in a chain of
  such clusters; the kernels branch on the flags, never on the cluster's size.

The constraint kernel's tables (:func:`~.constraints.cluster_constraints`):

``kc`` (N_C, :data:`KC_COLUMNS`) int64, per cluster: :data:`MODE` (:data:`KERNEL` when the
kernel computes its :math:`G_k`), :data:`N_SPAN` spanning columns :math:`n_c`, :data:`N_AUX`
auxiliary columns (the loop joints' speeds), :data:`N_ROWS` constraint rows, :data:`N_DEP`
dependent columns :math:`n_D`, :data:`KCOL_OFFSET` (offset in ``kcol``: the :math:`m`
independent then the :math:`n_D` dependent local columns), :data:`FIRST_LOOP` and
:data:`END_LOOP` (its loops in ``lpi``/``lpf``), :data:`SPAN_OFFSET` (offset in ``span``:
the spanning speed of each local column), :data:`FIRST_COUPLING` and :data:`END_COUPLING`
(its couplings in ``cpi``, stored cluster by cluster: a kernel visits its own couplings only,
not every coupling of the model per cluster).

``lpi`` (n_loops, :data:`LOOP_INT`) int64, per loop joint: :data:`LOOP_CLUSTER`,
:data:`LOOP_PRED` and :data:`LOOP_SUCC` (predecessor and successor bodies, −1 for the base),
:data:`LOOP_ROW` (its first row in the cluster), :data:`LOOP_AUX` (its first auxiliary
column), :data:`LOOP_NV` (the loop joint's nv) and :data:`LOOP_JTYPE` (its type code).

``lpf`` (n_loops, :data:`LOOP_FLOAT`) float, per loop joint: ``(E, r)`` of
:math:`{}^{F_P}\mathbf X_P` at :data:`FP_E` (9, row-major) and :data:`FP_R` (3), of
:math:`{}^{F_S}\mathbf X_S` at :data:`FS_E` and :data:`FS_R`, :math:`\boldsymbol\Phi_L`
at :data:`LOOP_PHI` (6 × 6, row-major, the first ``nv`` columns used), the joint's axis at
:data:`LOOP_AXIS` (3) and pitch at :data:`LOOP_PITCH`.

``cpi`` (n_couplings, :data:`CP_COLUMNS`) int64, per coupling: :data:`CP_CLUSTER`,
:data:`CP_ROW` (its row in the cluster's constraint), :data:`CP_FIRST` and :data:`CP_END`
(its entries in ``cpe``/``cpc``); ``cpe`` (n_entries, :data:`CPE_COLUMNS`) int64:
:data:`CPE_SPEED` (a spanning speed) and :data:`CPE_Q` (its index in ``q``).

``sizes`` (5,) int64: the largest ``(n_c, n_aux, n_rows, n_D, m)`` over the kernel clusters
(the sizes of the constraint kernel's work arrays).

Examples
--------
>>> from geomech.multibody.io.examples import load_example
>>> from geomech.multibody._kernels.cluster.compiled import cluster_layout
>>> from geomech.multibody._kernels.cluster.tables import FIRST_BODY, STACK
>>> lay = cluster_layout(load_example("four_bar"))
>>> k = 0
>>> lay.cbody[lay.cclus[k, FIRST_BODY] : lay.cclus[k + 1, FIRST_BODY], STACK].tolist()
[0, 1, 2]
"""

from __future__ import annotations

__all__ = [
    "CLUSTER",
    "SLOT",
    "OUTPUT",
    "STACK",
    "CBODY_COLUMNS",
    "PARENT_CLUSTER",
    "FIRST_BODY",
    "FIRST_Y",
    "IA_OFFSET",
    "SHAPE",
    "ONE_OUTPUT",
    "BLOCK_DIAGONAL",
    "ONE_DOF",
    "CCLUS_COLUMNS",
    "KERNEL",
    "MODE",
    "N_SPAN",
    "N_AUX",
    "N_ROWS",
    "N_DEP",
    "KCOL_OFFSET",
    "FIRST_LOOP",
    "END_LOOP",
    "SPAN_OFFSET",
    "FIRST_COUPLING",
    "END_COUPLING",
    "KC_COLUMNS",
    "LOOP_CLUSTER",
    "LOOP_PRED",
    "LOOP_SUCC",
    "LOOP_ROW",
    "LOOP_AUX",
    "LOOP_NV",
    "LOOP_JTYPE",
    "LOOP_INT",
    "FP_E",
    "FP_R",
    "FS_E",
    "FS_R",
    "LOOP_PHI",
    "LOOP_AXIS",
    "LOOP_PITCH",
    "LOOP_FLOAT",
    "CP_CLUSTER",
    "CP_ROW",
    "CP_FIRST",
    "CP_END",
    "CP_COLUMNS",
    "CPE_SPEED",
    "CPE_Q",
    "CPE_COLUMNS",
]

# ---- cbody ------------------------------------------------------------------------------
CLUSTER = 0
SLOT = 1
OUTPUT = 2
STACK = 3
CBODY_COLUMNS = 4

# ---- cclus ------------------------------------------------------------------------------
PARENT_CLUSTER = 0
FIRST_BODY = 1
FIRST_Y = 2
IA_OFFSET = 3
SHAPE = 4
CCLUS_COLUMNS = 5
#: shape flags (column ``SHAPE``)
ONE_OUTPUT = 1
BLOCK_DIAGONAL = 2
ONE_DOF = 4

# ---- kc: the constraint kernel's plan per cluster ---------------------------------------
#: mode of a cluster whose G, g and Ġ are computed by the constraint kernel
KERNEL = 1
MODE = 0
N_SPAN = 1
N_AUX = 2
N_ROWS = 3
N_DEP = 4
KCOL_OFFSET = 5
FIRST_LOOP = 6
END_LOOP = 7
SPAN_OFFSET = 8
FIRST_COUPLING = 9
END_COUPLING = 10
KC_COLUMNS = 11

# ---- lpi: per loop joint, integers ------------------------------------------------------
LOOP_CLUSTER = 0
LOOP_PRED = 1
LOOP_SUCC = 2
LOOP_ROW = 3
LOOP_AUX = 4
LOOP_NV = 5
LOOP_JTYPE = 6
LOOP_INT = 7

# ---- lpf: per loop joint, floats --------------------------------------------------------
FP_E = 0
FP_R = 9
FS_E = 12
FS_R = 21
LOOP_PHI = 24
LOOP_AXIS = 60
LOOP_PITCH = 63
LOOP_FLOAT = 64

# ---- cpi, cpe: couplings ----------------------------------------------------------------
CP_CLUSTER = 0
CP_ROW = 1
CP_FIRST = 2
CP_END = 3
CP_COLUMNS = 4
CPE_SPEED = 0
CPE_Q = 1
CPE_COLUMNS = 2
