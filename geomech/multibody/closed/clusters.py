r"""Clusters of bodies for closed chains: partition, output bodies and the cluster tree.

A *cluster* (seed 004 §IV) is a set of bodies whose spanning-tree joints, together with the
loop constraints among them, form one *cluster joint*; contracting every cluster to a node
turns the rigid-body connectivity graph of a closed chain into a tree, the cluster
connectivity tree, on which the recursive algorithms run.

The partition is automatic (seed 004 §1.4 [inferred], URDF+ §IV):

1. every constraint (a loop joint, a coupling, a user constraint) involves a set of bodies:
   for a loop joint or a coupling between bodies ``p`` and ``s``, all the bodies on the tree
   paths from their nearest common ancestor (excluded) down to ``p`` and ``s`` (the
   constraint depends on the configuration of exactly those joints); for a user constraint,
   the bodies moved by the joints it names;
2. the sets that share a body are merged (union-find), so that cycles sharing bodies and a
   rotor with its link end up in one cluster;
3. a cluster whose bodies hang from more than one parent cluster is closed under tree paths
   (the bodies between the nearest common ancestor of its bodies and each of them are
   added) and merged again, until every cluster has a single parent cluster;
4. every other body is a cluster of its own, with its tree joint as cluster joint.

Clusters are numbered by their lowest body index; since bodies are in regular (depth-first)
order, a cluster's parent has a lower number (:math:`\lambda(k) < k`), and each cluster lists
its bodies in regular order, as seed 004's algorithms require (trap 4).

References
----------
Seed 004 §1.1 (regular numbering), §1.4 (clusters, output bodies :math:`\Lambda(i)`), §6
traps 4–5; URDF+ (Chignoli, Slotine, Wensing, Kim, arXiv 2411.19753) §IV (loop-aggregated
connectivity graph).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx
import numpy as np

__all__ = ["Cluster", "partition_clusters", "cluster_graph"]


@dataclass
class Cluster:
    r"""One cluster of a closed multibody model (seed 004 §1.4).

    Attributes
    ----------
    index : int
        Cluster number ``k`` (clusters are in regular order: ``parent < index``).
    bodies : list of int
        Body indices, in regular (increasing) order; the joint into body ``i`` is joint ``i``.
    parent : int
        Parent cluster, ``-1`` for the fixed base.
    output : list of int
        Output body :math:`\Lambda(i)` of each body: the nearest ancestor outside the
        cluster (``-1`` for the base).
    constraints : list
        The constraint objects (loop joints, couplings, user constraints) of the cluster.
    q_index, v_index : ndarray of int
        Indices of the cluster joints' coordinates in the spanning-tree ``q`` and speeds in
        the spanning-tree velocity, in body order (the stack :math:`q_{\mathcal J_k}`).
    independent : list of int
        The cluster's independent joints (body indices, regular order).
    y_index : ndarray of int
        Positions of the cluster's independent speeds :math:`\dot y_k` in the model's ``v``.
    aux_index : ndarray of int
        Columns of the cluster's loop-joint (auxiliary) speeds in the constraint Jacobian
        (after the spanning-tree columns).
    rows : ndarray of int
        Rows of the cluster's constraints in the constraint Jacobian.

    Examples
    --------
    >>> from geomech.multibody.closed.clusters import Cluster
    >>> Cluster(0, [0, 1], -1, [-1, -1]).n_bodies
    2
    """

    index: int
    bodies: list
    parent: int
    output: list
    constraints: list = field(default_factory=list)
    q_index: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    v_index: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    independent: list = field(default_factory=list)
    y_index: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    aux_index: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))

    @property
    def n_bodies(self) -> int:
        """Number of bodies :math:`n_b(C_k)`."""
        return len(self.bodies)

    @property
    def nv(self) -> int:
        """Degrees of freedom :math:`m_k` of the cluster joint (its independent speeds)."""
        return int(self.y_index.size)


def _ancestors(parent, i: int) -> list[int]:
    """``[i, parent(i), ..., root child]`` (empty for the base ``-1``)."""
    out = []
    while i >= 0:
        out.append(i)
        i = int(parent[i])
    return out


def nearest_common_ancestor(parent, bodies) -> int:
    """Deepest body supporting every body of ``bodies`` (``-1``: the base).

    A body counts as its own ancestor, so the ancestor of a body and its descendant is the
    body itself.
    """
    common = None
    for b in bodies:
        chain = set(_ancestors(parent, b)) | {-1}
        common = chain if common is None else common & chain
    return max(common) if common else -1


def path_closure(parent, bodies) -> set[int]:
    """The bodies on the tree paths from the nearest common ancestor (excluded) to ``bodies``."""
    nca = nearest_common_ancestor(parent, bodies)
    out: set[int] = set()
    for b in bodies:
        while b != nca and b >= 0:
            out.add(b)
            b = int(parent[b])
    return out


def _find(owner: list[int], i: int) -> int:
    """Union-find root of ``i`` (with path halving)."""
    while owner[i] != i:
        owner[i] = owner[owner[i]]
        i = owner[i]
    return i


def partition_clusters(parent, involved: list[set[int]]) -> list[list[int]]:
    """Group bodies into clusters (module docstring, steps 2–4).

    Parameters
    ----------
    parent : array_like of int, shape (N,)
        Spanning-tree parent array (``-1`` for the base, ``parent[i] < i``).
    involved : list of set of int
        Bodies of each constraint (already path-closed for loop joints and couplings).

    Returns
    -------
    list of list of int
        The clusters' bodies, each in increasing order, the clusters sorted by their lowest
        body (so that each cluster's parent comes first).

    Examples
    --------
    Two loops sharing body 2 and a lone body 4:

    >>> from geomech.multibody.closed.clusters import partition_clusters
    >>> partition_clusters([-1, 0, 0, 2, -1], [{1, 2}, {2, 3}])
    [[0], [1, 2, 3], [4]]
    """
    parent = np.asarray(parent, dtype=int)
    n = parent.size
    sets = [set(s) for s in involved if s]
    while True:
        # union-find: merge the sets that share a body
        owner = list(range(n))
        for s in sets:
            first, *rest = sorted(s)
            for b in rest:
                owner[_find(owner, b)] = _find(owner, first)
        groups: dict[int, set[int]] = {}
        for i in range(n):
            groups.setdefault(_find(owner, i), set()).add(i)
        clusters = sorted((sorted(g) for g in groups.values()), key=lambda g: g[0])
        cluster_of = {b: k for k, c in enumerate(clusters) for b in c}
        # single parent cluster (seed 004 trap 5): otherwise close under tree paths, merge again
        bad = []
        for c in clusters:
            members = set(c)
            outside = {
                cluster_of.get(int(parent[b]), -1) for b in c if int(parent[b]) not in members
            }
            if len(outside) > 1:
                bad.append(path_closure(parent, c))
        if not bad:
            return clusters
        sets = [set(c) for c in clusters if len(c) > 1] + bad


def output_bodies(parent, bodies) -> list[int]:
    r"""Output body :math:`\Lambda(i)` of each body of a cluster (nearest ancestor outside it)."""
    members = set(bodies)
    out = []
    for b in bodies:
        p = int(parent[b])
        while p in members:
            p = int(parent[p])
        out.append(p)
    return out


def cluster_graph(model) -> nx.DiGraph:
    """The cluster connectivity tree of a closed model as a ``networkx.DiGraph``.

    Nodes are the base (``model.root``) and one node per cluster, keyed by the tuple of its
    body names; edges point from the parent cluster to the child. Node attributes: ``index``
    (cluster number, ``-1`` for the base), ``bodies`` and ``joints`` (names), ``constraints``
    (names of the loop joints, couplings and user constraints), ``independent`` (names of
    the independent joints) and ``nv`` (the cluster's degrees of freedom).

    Parameters
    ----------
    model : ClosedMultibodyModel

    Returns
    -------
    networkx.DiGraph

    Examples
    --------
    >>> from geomech.multibody.io.examples import load_example
    >>> g = load_example("four_bar").cluster_graph
    >>> list(g.nodes)
    ['ground', ('crank', 'coupler', 'rocker')]
    """
    g = nx.DiGraph(name=model.graph.graph.get("name"))
    g.add_node(model.root, index=-1, bodies=[], joints=[], constraints=[], independent=[], nv=0)
    keys = []
    for c in model.clusters:
        key = tuple(model.body_names[b] for b in c.bodies)
        keys.append(key)
        g.add_node(
            key,
            index=c.index,
            bodies=[model.body_names[b] for b in c.bodies],
            joints=[model.joint_names[b] for b in c.bodies],
            constraints=[con.name for con in c.constraints],
            independent=[model.joint_names[b] for b in c.independent],
            nv=c.nv,
        )
        g.add_edge(model.root if c.parent < 0 else keys[c.parent], key)
    return g
