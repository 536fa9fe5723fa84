r"""Closed chains: loop joints, couplings and implicit constraints on a spanning tree.

A closed multibody model is a ``networkx.DiGraph`` whose ordinary edges (parent → child, a
:class:`~geomech.multibody.model.joints.Joint` each) form a spanning tree, plus *closure* edges:

- a **loop joint**: an edge ``predecessor → successor`` with ``kind="loop"``, a ``joint`` of
  any type, ``placement`` (the pose of the loop frame in the predecessor, default identity)
  and ``successor_placement`` (the pose of the loop frame in the successor, default
  identity). The constraint is that the successor's loop frame equals the predecessor's loop
  frame moved by the loop joint, :math:`{}^0T_{F_P}\,T_J(q_L) = {}^0T_{F_S}` for some
  :math:`q_L` (URDF+ ``<loop>``);
- a **coupling**: an edge ``predecessor → successor`` with ``kind="coupling"`` and ``ratio``
  (a gear, belt or rolling transmission). Measured from the two bodies' nearest common
  ancestor, :math:`\text{ratio}\cdot\sum_{\text{path to predecessor}} q_j =
  \sum_{\text{path to successor}} q_j` (URDF+ ``<coupling>``, the authors' meaning): for a
  rotor mounted beside its link :math:`q_{\rm rotor} = N q_{\rm link}`; for a belt it ties a
  rotor to several joints at once. Every joint on the two paths must have one degree of
  freedom;
- **implicit constraints** :math:`\phi(q) = 0` given by the user as
  :class:`ImplicitConstraint` objects in ``graph.graph["constraints"]`` (differentials,
  cams), with their Jacobian or finite differences as a fallback.

Tree edges may carry ``independent=True`` or ``False`` (URDF+'s ``independent`` attribute);
unmarked joints are chosen automatically (:attr:`ClosedMultibodyModel.independent_joints`
reports the choice). A cycle made of ordinary edges only is still an error
(:class:`~geomech.errors.NotATreeError` naming the cycle).

Conventions (docs/conventions.rst, "Closed chains")
---------------------------------------------------
``q`` is the spanning-tree configuration (``model.nq`` = ``model.spanning_tree.nq``) and must
satisfy the constraints (:class:`~geomech.errors.NotOnManifoldError` otherwise); ``v`` and
``a`` are the speeds and accelerations of the independent joints (``model.nv`` of them, in
spanning-tree joint order); ``tau`` is the generalized force dual to ``v``,
:math:`\tau = G^\top \tau_{\rm spanning}`. The spanning-tree speeds and accelerations are

.. math::
    \dot q_s = G(q)\,v, \qquad \ddot q_s = G(q)\,\dot v + g(q, v), \qquad g = \dot G v

(seed 004 eq. 3), with :math:`G` from the null space of the velocity constraint
:math:`K(q)\,\dot q_s = 0`: :math:`G_Y = \mathbf 1`, :math:`G_D = -K_D^{+}K_Y` on the
independent (Y) and dependent (D) columns, :math:`\dot G_D = -K_D^{+}\dot K G` and
:math:`g = \dot G v` (seed 004 §1.2 [inferred]).

A loop joint's own coordinates :math:`q_L` are not part of ``q``: they are auxiliary unknowns
of the constraint :math:`\log(T_J(q_L)^{-1}\,{}^{F_P}T_{F_S}) = 0` (six equations, with the
relative twist :math:`\xi = \mathbf v_{F_S} - {}^{F_S}\mathbf X_{F_P}\mathbf v_{F_P} =
\boldsymbol\Phi_L\dot q_L` at velocity level), eliminated with the dependent coordinates.
This works for every joint type and for planar mechanisms, whose redundant constraint rows
are handled by least squares.

References
----------
Seed 004 §1.1–1.4 (spanning tree, loop joints, explicit/implicit constraints, clusters),
§6 traps 4–8; seed 000 §VI-C (closed chains); URDF+ (Chignoli, Slotine, Wensing, Kim, arXiv
2411.19753): ``<loop>``, ``<coupling>`` and the ``independent`` attribute.
"""

from __future__ import annotations

from types import MappingProxyType

import networkx as nx
import numpy as np

from geomech._validation import as_array
from geomech.errors import (
    ModelError,
)
from geomech.multibody.algorithms.kinematics import forward_kinematics
from geomech.multibody.closed import coriolis as closed_coriolis
from geomech.multibody.closed import dynamics as closed_dynamics
from geomech.multibody.closed._closure import (
    build_clusters,
    build_constraints,
    check_configuration,
    check_single,
    choose_independent,
    close_batch,
    closed_random_configuration,
    cluster_matrices,
    compiled_closure,
    constraint_jacobian,
    constraint_matrices,
    continue_closed,
    find_reference,
    fit_aux,
    matrices_single,
    newton,
    one_blas_thread,
    residual_single,
)
from geomech.multibody.closed.clusters import (
    cluster_graph,
)
from geomech.multibody.closed.constraints import (
    CLOSURE_TOL,
    ImplicitConstraint,
    split_closures,
)
from geomech.multibody.model.system import MultibodySystem
from geomech.multibody.model.tree import MultibodyModel

__all__ = ["ImplicitConstraint", "ClosedMultibodyModel"]


def _from_tree(name: str) -> property:
    """A read-only attribute of the closed model that is its spanning tree's."""
    return property(
        lambda self: getattr(self.spanning_tree, name),
        doc=f"The spanning tree's ``{name}`` (see :class:`~geomech.multibody.MultibodyModel`).",
    )


def _refuse_joint_dynamics(tree) -> None:
    """Raise :class:`ModelError` if a joint of the spanning tree has armature, damping or
    friction: the cluster algorithms do not include them yet.
    """
    for name in ("armature", "damping", "friction"):
        values = getattr(tree, name)
        if np.any(values):
            i = next(i for i, s in enumerate(tree.v_slices) if np.any(values[s]))
            raise ModelError(
                f"Joint {tree.joint_names[i]!r} of a closed model has a nonzero {name}: joint "
                "armature, damping and friction are supported on kinematic trees only (a rotor "
                "of a closed model is a body; approximate_transmission_model gives the tree "
                "with armature)."
            )


class ClosedMultibodyModel(MultibodySystem):
    r"""A multibody model with kinematic loops: a spanning tree closed by constraints.

    A spanning tree (an ordinary :class:`~geomech.multibody.MultibodyModel`, built from the
    graph's tree edges) plus the constraints of the graph's loop joints, couplings and
    implicit constraints (module docstring): composition, not a subclass of the tree model.
    The tree's layout (``nodes``, ``joints``, ``parent``, ``inertias``, ``nq``, ...) is the
    closed model's; its speeds ``v`` are the independent ones. :func:`~geomech.load_urdf` builds
    this class for a URDF+ file with closures.

    Parameters
    ----------
    graph : networkx.DiGraph
        Tree edges as for :class:`MultibodyModel` (optionally with ``independent``), loop and
        coupling edges, ``graph.graph["constraints"]`` (a list of :class:`ImplicitConstraint`)
        and optionally ``graph.graph["reference_configuration"]`` (a spanning-tree ``q``
        near which to look for a closed configuration; default the neutral one).
    gravity : array_like, shape (3,), optional
        Default ``[0, 0, -9.81]``.
    strict : bool, optional
        As for :class:`MultibodyModel` (physical inertias).
    reference_configuration : array_like, shape (nq,), optional
        A spanning-tree ``q`` near which to look for a closed configuration (takes precedence
        over the graph attribute). The closure search (damped least squares with seeded
        restarts) starts there; where it lands on a singular configuration, a nearby regular
        one is used, so the model's structure is decided at a generic configuration.

    Attributes
    ----------
    spanning_tree : MultibodyModel
        The tree made of the ordinary edges (same bodies, joints and ``q`` layout).
    nq : int
        Spanning-tree configuration size.
    nv : int
        Number of independent speeds :math:`m`.
    independent_joints, dependent_joints : list of str
        Spanning-tree joints with at least one speed among (outside) the model's speeds
        ``v``, in joint order; a partly independent joint (Notes) is in both lists.
    independent_components : dict
        For each partly independent joint, the indices of its independent components within
        its own speed (``{"coupler_joint": (2,)}``: an RSSR coupler's idle spin).
    independent_v_index : ndarray of int
        Columns of the spanning-tree velocity holding ``v`` (:math:`\dot q_s[\text{index}] = v`).
    v_slices : list of slice
        Slice of ``v`` of each joint (its independent components; empty for dependent joints).
    constraints : list
        Loop joints, couplings and implicit constraints, in that order.
    clusters : list of Cluster
        The clusters in regular order (:mod:`geomech.multibody.closed.clusters`).
    cluster_graph : networkx.DiGraph
        The cluster connectivity tree.
    root, nodes, n_bodies, body_names, joint_names, joints, parent, placements, X_tree, inertias,
    q_slices, depth, gravity
        As for the spanning tree.

    Raises
    ------
    ModelError
        On a malformed closure edge (unknown ``kind``, missing joint, bad ``placement`` or
        ``ratio``), a coupling through a multi-DoF joint, contradictory ``independent`` marks,
        or when no closed configuration is found near the reference one.
    NotATreeError
        If the ordinary edges do not form a tree (the message names the cycle).

    References
    ----------
    Seed 004 §1.1–1.4, §6 traps 4–8; URDF+ (arXiv 2411.19753).

    Notes
    -----
    The independent speeds are chosen per cluster at a generic closed configuration, joint by
    joint where that leaves the cluster's mobility, else component by component (the RSSR
    coupler's idle spin): :ref:`conventions-closed-chains`.

    Examples
    --------
    A planar four-bar: crank and rocker hinged to the ground, the coupler closing the loop at
    the rocker with a revolute loop joint.

    >>> import networkx as nx
    >>> import numpy as np
    >>> from geomech.multibody import ClosedMultibodyModel, Revolute
    >>> from geomech.spatial import spatial_inertia
    >>> def body(com):
    ...     return spatial_inertia(1.0, com, 0.01 * np.eye(3))
    >>> def at(x, y):
    ...     T = np.eye(4); T[:2, 3] = x, y
    ...     return T
    >>> G = nx.DiGraph(name="four_bar")
    >>> G.add_edge("world", "crank", joint=Revolute([0, 0, 1]), name="A")
    >>> G.add_edge("crank", "coupler", joint=Revolute([0, 0, 1]), placement=at(0, 1), name="B")
    >>> G.add_edge("world", "rocker", joint=Revolute([0, 0, 1]), placement=at(3, 0), name="D")
    >>> G.add_edge("coupler", "rocker", kind="loop", joint=Revolute([0, 0, 1]),
    ...            placement=at(2, 0), successor_placement=at(-1, 1), name="C")
    >>> inertias = {"crank": body([0, 0.5, 0]), "coupler": body([1, 0, 0]),
    ...             "rocker": body([-0.5, 0.5, 0])}
    >>> nx.set_node_attributes(G, inertias, "inertia")
    >>> model = ClosedMultibodyModel(G)
    >>> type(model).__name__, model.nq, model.nv, model.independent_joints
    ('ClosedMultibodyModel', 3, 1, ['A'])
    >>> q = model.random_configuration(rng=0)
    >>> bool(np.max(np.abs(model.constraint_residual(q))) < 1e-12)
    True
    """

    is_closed = True
    #: residual tolerance of :meth:`check_configuration` (absolute, in the constraints' units)
    closure_tol = CLOSURE_TOL
    #: The public functions' closed-model algorithms (seed 004), by the public function's name:
    #: ``rnea(model, ...)`` on a closed model runs ``model.ALGORITHMS["rnea"](model, ...)``.
    #: One table, read-only, the only place where tree and closed models part ways.
    ALGORITHMS = MappingProxyType(
        {
            "rnea": closed_dynamics.closed_rnea,
            "crba": closed_dynamics.closed_crba,
            "aba": closed_dynamics.closed_aba,
            "coriolis_matrix": closed_coriolis.closed_coriolis_matrix,
            "coriolis_matrix_dense": closed_coriolis.closed_coriolis_matrix_dense,
            "mass_matrix_derivative": closed_coriolis.closed_mass_matrix_derivative,
            "slotine_li_torques": closed_coriolis.closed_slotine_li_torques,
            "coriolis_transpose_product": closed_coriolis.closed_coriolis_transpose_product,
            "christoffel_symbols": closed_coriolis.closed_christoffel_symbols,
            "slotine_li_regressor": closed_coriolis.closed_slotine_li_regressor,
        }
    )

    # the spanning tree's layout, read through (one source of truth: the tree)
    root = _from_tree("root")
    nodes = _from_tree("nodes")
    n_bodies = _from_tree("n_bodies")
    body_names = _from_tree("body_names")
    joint_names = _from_tree("joint_names")
    joints = _from_tree("joints")
    parent = _from_tree("parent")
    placements = _from_tree("placements")
    X_tree = _from_tree("X_tree")
    inertias = _from_tree("inertias")
    q_slices = _from_tree("q_slices")
    nq = _from_tree("nq")
    depth = _from_tree("depth")
    gravity = _from_tree("gravity")

    def __init__(
        self, graph, *, gravity=None, strict: bool | None = None, reference_configuration=None
    ):
        if not isinstance(graph, nx.DiGraph) or graph.is_multigraph():
            raise ModelError(
                f"Expected `graph` to be a networkx.DiGraph, got {type(graph).__name__}."
            )
        tree_graph, loop_edges, coupling_edges = split_closures(graph)
        self.graph = graph
        self.spanning_tree = MultibodyModel(tree_graph, gravity=gravity, strict=strict)
        _refuse_joint_dynamics(self.spanning_tree)
        self._n_s = self.spanning_tree.nv
        with one_blas_thread():
            build_constraints(self, graph, loop_edges, coupling_edges)
            build_clusters(self)
            self._q_ref = find_reference(self, graph, reference_configuration)
            choose_independent(self, tree_graph)
        self.cluster_graph = cluster_graph(self)
        # the MechanicalSystem part: the joint frame of the independent speeds; the fast
        # overrides (mass matrix, Alg. 1, Alg. 2, gravity, forward dynamics) are the cluster
        # algorithms behind the same public functions
        self._init_system()

    # the two single-state evaluations the compiled cluster layout calls back
    def _matrices_single(self, q, v, rate):
        return matrices_single(self, q, v, rate)

    def _check_single(self, q, name="q"):
        return check_single(self, q, name)

    def __setstate__(self, state):
        # a model pickled by geomech 0.1.0 (a subclass of the tree model, its layout copied):
        # rebuilt from its graph, the one input a model is made from
        if "spanning_tree" in state and "root" in state:
            self.__init__(state["graph"], gravity=state["gravity"])
        else:
            self.__dict__.update(state)

    # ---- state evaluation (single configuration) ---------------------------------------

    # ---- validation ----------------------------------------------------------------------

    def constraint_residual(self, q) -> np.ndarray:
        r"""Residual of every constraint at ``q`` (zero on the closed configurations).

        Loop joints contribute six entries each, :math:`\log(T_J(q_L)^{-1}\,{}^{F_P}T_{F_S})`
        with :math:`q_L` fitted by Gauss–Newton (angles in rad, lengths in model units);
        couplings one, :math:`r\sum q_{\rm pred} - \sum q_{\rm succ}`; implicit constraints
        their :math:`\phi`, in the order of :attr:`constraints`.

        Parameters
        ----------
        q : array_like, shape (..., nq)
            Spanning-tree configurations.

        Returns
        -------
        ndarray, shape (..., n_residual)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.io.examples import load_example
        >>> model = load_example("geared_chain")
        >>> model.constraint_residual(model.neutral()).shape
        (3,)
        """
        q = as_array(q, "q", (self.nq,))
        out = np.empty(q.shape[:-1] + (self._n_rows,))
        for idx in np.ndindex(q.shape[:-1]):
            out[idx] = residual_single(self, q[idx])[0]
        return out

    def check_configuration(self, q, name: str = "q") -> np.ndarray:
        r"""Validate closed configurations: shape, finiteness and :math:`\phi(q) = 0`.

        Parameters
        ----------
        q : array_like, shape (..., nq)
        name : str
            Name used in messages.

        Returns
        -------
        ndarray, shape (..., nq)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.
        NotOnManifoldError
            If a constraint residual exceeds :math:`10^{-9}` (absolute: lengths in model
            units, angles in rad modulo 2π).

        Examples
        --------
        >>> from geomech.multibody.io.examples import load_example
        >>> model = load_example("geared_chain")
        >>> model.check_configuration([0.0] * model.nq).shape
        (6,)
        >>> model.check_configuration([0.1] + [0.0] * (model.nq - 1))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        geomech.errors.NotOnManifoldError: Expected `q` to satisfy the loop constraints ...
        """
        return check_configuration(self, q, name)

    # ---- constraint matrices ---------------------------------------------------------------

    def constraint_matrices(self, q, v, rate: bool = False):
        r"""The explicit-form constraint matrices :math:`G(q)` and :math:`g(q, v)`.

        .. math::
            \dot q_s = G\,v,\qquad \ddot q_s = G\,\dot v + g,\qquad
            G_Y = \mathbf 1,\quad G_D = -K_D^{+}K_Y,\qquad
            \dot G_D = -K_D^{+}\dot K G,\quad g = \dot G v

        with :math:`K` the velocity constraint over the spanning-tree speeds and the loop
        joints' own speeds (dependent too), and :math:`K^+` the least-squares solution
        (redundant rows of planar loops are consistent).

        :math:`G` is block diagonal over the clusters: each block is evaluated by the
        compiled kernel ``cluster_constraints`` of ``geomech.multibody._kernels`` (in-cluster
        Jacobians, Householder QR of :math:`K_D`, single and batched), except the clusters
        holding user-defined constraints or joints, whose Python objects fill their blocks
        (two-stage path).

        Parameters
        ----------
        q : array_like, shape (..., nq)
            Closed configurations.
        v : array_like, shape (..., nv)
            Independent speeds.
        rate : bool
            Also return :math:`\dot G` (along the motion).

        Returns
        -------
        G : ndarray, shape (..., n_s, nv)
            ``n_s = model.spanning_tree.nv``.
        g : ndarray, shape (..., n_s)
        G_dot : ndarray, shape (..., n_s, nv)
            Only if ``rate``.

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` or ``v`` is malformed.
        NotOnManifoldError
            If ``q`` does not satisfy the constraints.

        References
        ----------
        Seed 004 eq. (3) and §1.2 [inferred]; seed 000 §VI-C1.

        Examples
        --------
        A geared rotor turns six times as fast as its link:

        >>> import numpy as np
        >>> from geomech.multibody.io.examples import load_example
        >>> model = load_example("geared_chain")
        >>> G, g = model.constraint_matrices(model.neutral(), np.ones(model.nv))
        >>> link, rotor = model.q_slice("joint1").start, model.q_slice("rotor1_joint").start
        >>> G[[link, rotor], 0], float(np.abs(g).max())
        (array([1., 6.]), 0.0)
        """
        return constraint_matrices(self, q, v, rate)

    def cluster_matrices(self, q, v):
        r"""The per-cluster blocks :math:`(G_k, g_k, \dot G_k)` of the constraint matrices.

        :math:`G` is block diagonal over the clusters (seed 004 trap 8): with rows
        ``cluster.v_index`` (the cluster joints' spanning speeds, in body order) and columns
        ``cluster.y_index`` (its independent speeds in ``v``), :math:`\dot q_{\mathcal J_k} =
        G_k \dot y_k` and :math:`\ddot q_{\mathcal J_k} = G_k\ddot y_k + g_k`.

        Parameters
        ----------
        q : array_like, shape (..., nq)
            Closed configurations.
        v : array_like, shape (..., nv)

        Returns
        -------
        list of tuple
            ``(G_k, g_k, G_dot_k)`` of shapes ``(..., n_k, m_k)``, ``(..., n_k)`` and
            ``(..., n_k, m_k)`` for each cluster ``k`` of :attr:`clusters`.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            As :meth:`constraint_matrices`.

        References
        ----------
        Seed 004 §2.0 (``updateConstraints`` per cluster), §6 trap 8.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.io.examples import load_example
        >>> model = load_example("belt_leg")
        >>> blocks = model.cluster_matrices(model.neutral(), np.ones(model.nv))
        >>> [G_k.shape for G_k, _, _ in blocks]
        [(2, 1), (4, 2)]
        >>> [model.body_names[b] for b in model.clusters[1].bodies]
        ['ankle_rotor', 'shank', 'foot', 'knee_rotor']
        >>> np.round(blocks[1][0], 12) + 0.0  # columns: knee, ankle
        array([[6., 6.],
               [1., 0.],
               [0., 1.],
               [6., 0.]])
        """
        return cluster_matrices(self, q, v)

    def constraint_jacobian(self, q, v=None):
        r"""A full-row-rank velocity constraint on the spanning tree: :math:`K\dot q_s = 0`,
        :math:`K\ddot q_s = k`.

        The loop joints' own speeds are eliminated (rows orthogonal to their columns) and
        redundant rows removed (an orthonormal basis of the row space), so that the KKT
        system of the Lagrange-multiplier method is nonsingular.

        Parameters
        ----------
        q : array_like, shape (nq,)
            A closed configuration (unbatched).
        v : array_like, shape (nv,), optional
            Independent speeds; needed for ``k``.

        Returns
        -------
        K : ndarray, shape (r, n_s)
        k : ndarray, shape (r,)
            Only when ``v`` is given: ``(K, k)``.

        Raises
        ------
        DimensionError, NonFiniteError, NotOnManifoldError
            On a malformed or open configuration.

        References
        ----------
        Seed 004 eq. (2) and §2.4 (Lagrange multiplier method).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.io.examples import load_example
        >>> model = load_example("four_bar")
        >>> q = model.neutral()
        >>> K = model.constraint_jacobian(q)
        >>> G, _ = model.constraint_matrices(q, np.zeros(model.nv))
        >>> K.shape, bool(np.abs(K @ G).max() < 1e-12)
        ((2, 3), True)
        """
        return constraint_jacobian(self, q, v)

    # ---- configurations ---------------------------------------------------------------------
    def project(self, q) -> np.ndarray:
        r"""Close the loops: Newton's method on :math:`\phi` for the dependent coordinates,
        the independent ones kept.

        Parameters
        ----------
        q : array_like, shape (..., nq)
            Spanning-tree configurations (the dependent coordinates are the initial guess,
            which selects the assembly branch).

        Returns
        -------
        ndarray, shape (..., nq)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.
        SingularityError
            If Newton's method does not converge (a singular or unreachable configuration).

        References
        ----------
        Seed 004 §6 trap 7 (consistent spanning states by Newton on φ).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.io.examples import load_example
        >>> model = load_example("geared_chain")
        >>> q = model.project([0.1] + [0.0] * (model.nq - 1))  # joint1 at 0.1
        >>> q[model.q_slice("joint1")], q[model.q_slice("rotor1_joint")]
        (array([0.1]), array([0.6]))
        """
        q = as_array(q, "q", (self.nq,))
        if compiled_closure(self) is not None:  # per cluster, in the kernel
            from geomech.multibody._kernels.cluster.closure import PROJECT

            Q = np.ascontiguousarray(q.reshape(-1, self.nq), dtype=float)
            out = close_batch(self, PROJECT, Q, np.zeros((1, self.nv)), "project")
            return out.reshape(q.shape)
        out = np.array(q, dtype=float, copy=True)
        free = self._dependent_v_index
        with one_blas_thread():
            for idx in np.ndindex(q.shape[:-1]):
                qi = out[idx]
                T = forward_kinematics(self.spanning_tree, qi)
                out[idx] = newton(self, qi.copy(), fit_aux(self, T), free)[0]
        return out

    def neutral(self) -> np.ndarray:
        """The reference closed configuration (the neutral one when it closes the loops).

        Returns
        -------
        ndarray, shape (nq,)

        Examples
        --------
        >>> from geomech.multibody.io.examples import load_example
        >>> load_example("four_bar").neutral()
        array([0., 0., 0.])
        """
        return self._q_ref.copy()

    def random_configuration(self, rng=None, size=None) -> np.ndarray:
        r"""Random closed configurations.

        Joints outside every cluster are drawn by their own ``random``; the independent
        joints of clusters move from the reference configuration by
        :math:`0.5\,\mathcal N(0, 1)` (rad or model units), followed by continuation (the
        dependent coordinates by Newton's method), with smaller moves if the mechanism
        meets a singular configuration.

        Parameters
        ----------
        rng : None, int or numpy.random.Generator, optional
        size : None, int or tuple of int, optional

        Returns
        -------
        ndarray, shape (*size, nq)

        Raises
        ------
        SingularityError
            If no closed configuration is reached (after halving the moves five times).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.io.examples import load_example
        >>> model = load_example("six_bar")
        >>> q = model.random_configuration(rng=1, size=2)
        >>> q.shape, bool(np.abs(model.constraint_residual(q)).max() < 1e-12)
        ((2, 5), True)
        """
        with one_blas_thread():
            return closed_random_configuration(self, rng, size)

    def integrate(self, q, v, dt=1.0) -> np.ndarray:
        r"""Move along the closed manifold with independent speeds ``v`` for time ``dt``.

        The independent coordinates follow :math:`q_Y \oplus v\,\mathrm dt` (exactly for
        1-DoF joints) and the dependent ones are restored by Newton's method, by
        continuation in steps of at most 0.2 (the branch of ``q`` is kept).

        Parameters
        ----------
        q : array_like, shape (..., nq)
            Closed configurations.
        v : array_like, shape (..., nv)
        dt : float or array_like, shape (...), optional

        Returns
        -------
        ndarray, shape (..., nq)

        Raises
        ------
        NotOnManifoldError
            If ``q`` does not close the loops.
        SingularityError
            If the continuation meets a singular configuration.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody.io.examples import load_example
        >>> model = load_example("four_bar")
        >>> q = model.integrate(model.neutral(), [1.0], 0.3)
        >>> round(float(q[0]), 12), bool(np.abs(model.constraint_residual(q)).max() < 1e-12)
        (0.3, True)
        """
        q = self.check_configuration(q)
        v = as_array(v, "v", (self.nv,))
        dt = as_array(dt, "dt")
        v = v * dt[..., None]
        batch = np.broadcast_shapes(q.shape[:-1], v.shape[:-1])
        q = np.broadcast_to(q, batch + (self.nq,))
        v = np.broadcast_to(v, batch + (self.nv,))
        if compiled_closure(self) is not None:  # per cluster, in the kernel
            from geomech.multibody._kernels.cluster.closure import INTEGRATE

            B = int(np.prod(batch, dtype=int))
            Q = np.ascontiguousarray(q.reshape(B, self.nq))
            V = np.ascontiguousarray(v.reshape(B, self.nv))
            return close_batch(self, INTEGRATE, Q, V, "integrate").reshape(batch + (self.nq,))
        out = np.empty(batch + (self.nq,))
        for idx in np.ndindex(batch):
            out[idx] = continue_closed(self, q[idx].copy(), v[idx])
        return out

    def difference(self, q0, q1) -> np.ndarray:
        r"""Independent speeds moving ``q0`` to ``q1`` in unit time (the independent joints'
        own differences; exact inverse of :meth:`integrate` for 1-DoF joints).

        Parameters
        ----------
        q0, q1 : array_like, shape (..., nq)

        Returns
        -------
        ndarray, shape (..., nv)

        Raises
        ------
        DimensionError, NonFiniteError
            If an input is malformed.

        Examples
        --------
        >>> from geomech.multibody.io.examples import load_example
        >>> model = load_example("four_bar")
        >>> q1 = model.integrate(model.neutral(), [1.0], 0.3)
        >>> model.difference(model.neutral(), q1).round(12)
        array([0.3])
        """
        d = self.spanning_tree.difference(q0, q1)
        return d[..., self.independent_v_index]

    @property
    def compiled(self):
        """Not defined for a closed model: its speeds are the independent ones.

        Raises
        ------
        ModelError
            Always; the compiled arrays of the spanning tree are
            ``model.spanning_tree.compiled``.

        Examples
        --------
        >>> from geomech.multibody.io.examples import load_example
        >>> load_example("four_bar").compiled
        Traceback (most recent call last):
            ...
        geomech.errors.ModelError: A closed model has no compiled tree arrays of its own (its v
        holds the independent speeds); use model.spanning_tree.compiled with the spanning-tree
        speeds G v.
        """
        raise ModelError(
            "A closed model has no compiled tree arrays of its own (its v holds the independent "
            "speeds); use model.spanning_tree.compiled with the spanning-tree speeds G v."
        )

    def _one_dof_split(self):
        raise ModelError(
            "A closed model has no joint-wise chart of its speeds; use model.spanning_tree "
            "and model.constraint_matrices."
        )

    # ---- topology and layout (the spanning tree's) ------------------------------------------

    # the spanning tree's topology (see MultibodyModel's methods of the same names)
    def body_index(self, name) -> int:
        """Index of a body (:meth:`MultibodyModel.body_index` of the spanning tree)."""
        return self.spanning_tree.body_index(name)

    def supports(self, i: int) -> list[int]:
        """Support set of body ``i`` in the spanning tree (:meth:`MultibodyModel.supports`)."""
        return self.spanning_tree.supports(i)

    def subtree(self, i: int) -> list[int]:
        """Subtree of body ``i`` in the spanning tree (:meth:`MultibodyModel.subtree`)."""
        return self.spanning_tree.subtree(i)

    def children(self, i: int) -> list[int]:
        """Children of body ``i`` in the spanning tree (:meth:`MultibodyModel.children`)."""
        return self.spanning_tree.children(i)

    def q_slice(self, joint_name: str) -> slice:
        """Slice of ``q`` of a spanning-tree joint (:meth:`MultibodyModel.q_slice`)."""
        return self.spanning_tree.q_slice(joint_name)

    def v_slice(self, joint_name: str) -> slice:
        """Slice of ``v`` of an independent joint (of its independent components for a partly
        independent one, :attr:`independent_components`).

        Parameters
        ----------
        joint_name : str

        Returns
        -------
        slice

        Raises
        ------
        ModelError
            If there is no joint of that name or all its speeds are dependent.

        Examples
        --------
        >>> from geomech.multibody.io.examples import load_example
        >>> load_example("four_bar").v_slice("crank_joint")
        slice(0, 1, None)
        """
        i = self.spanning_tree._joint(joint_name)
        if i in self._dependent:
            raise ModelError(
                f"joint {joint_name!r} is dependent: its speeds are not part of v (they are "
                "G v, model.constraint_matrices); independent joints: "
                f"{self.independent_joints!r}."
            )
        return self.v_slices[i]

    def summary(self) -> str:
        """Bodies, degrees of freedom, constraints and clusters.

        Returns
        -------
        str

        Examples
        --------
        >>> from geomech.multibody.io.examples import load_example
        >>> print(load_example("four_bar").summary())
        ClosedMultibodyModel 'four_bar': 3 bodies, nq = 3, nv = 1, depth 2
          joints: revolute x3
          loop joints: C (revolute)
          independent: crank_joint
          clusters: 1 (largest: 3 bodies)
        """
        return _summary(self)

    def __repr__(self) -> str:
        return (
            f"<ClosedMultibodyModel: {self.n_bodies} bodies, nq={self.nq}, nv={self.nv}, "
            f"{len(self.constraints)} constraints, {len(self.clusters)} clusters>"
        )


def _summary(model) -> str:
    """:meth:`ClosedMultibodyModel.summary`: one line for the sizes, then one per kind."""
    name = model.graph.graph.get("name")
    head = "ClosedMultibodyModel" + (f" {name!r}" if name else "")
    kinds = ", ".join(f"{k} x{n}" for k, n in model.joint_types().items())
    lines = [f"{head}: {model.n_bodies} bodies, nq = {model.nq}, nv = {model.nv}, "
             f"depth {model.depth}", f"  joints: {kinds}"]  # fmt: skip
    for kind, label in (("loop", "loop joints"), ("coupling", "couplings"),
                        ("implicit", "constraints")):  # fmt: skip
        items = [c for c in model.constraints if c.kind == kind]
        if items:
            desc = [f"{c.name} ({c.joint.kind})" if kind == "loop" else
                    f"{c.name} (ratio {c.ratio:g})" if kind == "coupling" else c.name
                    for c in items]  # fmt: skip
            lines.append(f"  {label}: " + ", ".join(desc))
    lines.append("  independent: " + ", ".join(model.independent_joints))
    big = max((c.n_bodies for c in model.clusters), default=0)
    lines.append(f"  clusters: {len(model.clusters)} (largest: {big} bodies)")
    return "\n".join(lines)
