"""Immutable containers of a built model (private helpers shared by the model modules).

A model caches what it derives from its inputs (the compiled arrays, the single-state entry
of the kernels), so it must not change after construction: its arrays are read-only, its
lists are :class:`FrozenList`, its graph a private copy frozen like ``networkx.freeze`` whose
attribute dictionaries are :class:`FrozenDict`, and rebinding an attribute raises
:class:`~geomech.errors.ImmutableModelError` (issue 26, item 1).
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from geomech.errors import ImmutableModelError

__all__ = [
    "FrozenList",
    "FrozenDict",
    "Freezable",
    "frozen_value",
    "frozen_graph",
    "refuse",
    "read_only",
    "pickle_state",
]


def refuse(owner: str, what: str, hint: str = "") -> ImmutableModelError:
    """The error of a mutation attempt on ``owner`` (what was attempted, and what to do)."""
    return ImmutableModelError(f"{owner} is immutable: {what} is refused{hint}.")


def read_only(a: np.ndarray) -> np.ndarray:
    """``a``, made read-only (what a frozen array becomes again when it is unpickled)."""
    a.flags.writeable = False
    return a


class _ReadOnlyArray:
    """Stands for a read-only array in a pickle or a deep copy: numpy restores arrays
    writable, this restores them read-only.
    """

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray):
        self.array = array

    def __reduce__(self):
        return (read_only, (self.array,))


def pickle_state(state):
    """``state`` (a dict or a list) with its read-only arrays marked to load read-only."""

    def mark(v):
        return _ReadOnlyArray(v) if isinstance(v, np.ndarray) and not v.flags.writeable else v

    if isinstance(state, dict):
        return {k: mark(v) for k, v in state.items()}
    return [mark(v) for v in state]


class Freezable:
    """Mixin of the objects a model owns or shares (joints, its frame): frozen with the model.

    After :meth:`_freeze`, rebinding or deleting a public attribute raises
    :class:`~geomech.errors.ImmutableModelError` and the arrays it holds are read-only;
    private attributes (caches) stay settable.
    """

    __slots__ = ()

    def _label(self) -> str:
        return f"This {type(self).__name__}"

    def _freeze(self) -> None:
        d = self.__dict__
        for value in d.values():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
        d["_frozen"] = True

    def __getstate__(self):
        return pickle_state(self.__dict__)

    def __copy__(self):
        return self  # immutable once frozen; before, a shallow copy shares everything anyway

    def __setattr__(self, name, value):
        if name[:1] != "_" and self.__dict__.get("_frozen", False):
            raise refuse(f"{self._label()} (part of a model)", f"setting its attribute {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name[:1] != "_" and self.__dict__.get("_frozen", False):
            raise refuse(f"{self._label()} (part of a model)", f"deleting its attribute {name!r}")
        object.__delattr__(self, name)


class FrozenList(list):
    """A list that refuses in-place changes (it compares, prints and pickles as a list)."""

    __slots__ = ()

    def _refuse(self, *args, **kwargs):
        raise refuse("This list of a model", "changing it in place", " (copy it with list(...))")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __reduce__(self):
        return (FrozenList, (pickle_state(list(self)),))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        import copy

        return FrozenList(copy.deepcopy(pickle_state(list(self)), memo))


class FrozenDict(dict):
    """A dict that refuses in-place changes; ``copy()`` gives a plain, mutable dict."""

    __slots__ = ()

    def _refuse(self, *args, **kwargs):
        raise refuse(
            "The attribute dictionary of a model's graph",
            "changing it in place",
            " (build a new model from a copy: model.graph.copy())",
        )

    __setitem__ = __delitem__ = __ior__ = _refuse
    update = pop = popitem = clear = setdefault = _refuse

    def __reduce__(self):
        return (FrozenDict, (pickle_state(dict(self)),))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        import copy

        return FrozenDict(copy.deepcopy(pickle_state(dict(self)), memo))


def frozen_value(x):
    """``x`` made immutable where it is a container: arrays read-only, lists and dicts frozen.

    An array that is already read-only and owns its data is kept; any other array is copied
    first (a read-only view of a caller's array would still change with it).
    """
    if isinstance(x, np.ndarray):
        if x.flags.writeable or x.base is not None:
            x = x.copy()
            x.flags.writeable = False
        return x
    if isinstance(x, FrozenList | FrozenDict):
        return x
    if isinstance(x, list):
        return FrozenList(frozen_value(v) for v in x)
    if isinstance(x, dict):
        return FrozenDict({k: frozen_value(v) for k, v in x.items()})
    return x


def frozen_graph(graph: nx.DiGraph) -> nx.DiGraph:
    """A private copy of ``graph`` that cannot change: structure frozen, attributes frozen.

    The nodes, edges and the attributes of the graph, of each node and of each edge are those
    of ``graph`` (shallow: joints and other objects are shared), with arrays copied read-only
    and dicts and lists frozen. ``copy()`` of the result is an ordinary, mutable graph.
    """
    if nx.is_frozen(graph) and isinstance(graph.graph, FrozenDict):
        return graph  # already one of these (e.g. the graph of another model)
    G = nx.DiGraph()
    G.add_nodes_from(graph)  # the order of the nodes and of each node's successors is kept
    G.add_edges_from(graph.edges)
    for n, d in graph.nodes(data=True):
        G._node[n] = frozen_value(d)
    for u, v, d in graph.edges(data=True):
        G._succ[u][v] = G._pred[v][u] = frozen_value(d)
    G.graph = frozen_value(dict(graph.graph))
    nx.freeze(G)  # networkx's marks (nx.is_frozen), with our named error in place of its own
    for method in _GRAPH_MUTATORS:
        setattr(G, method, _frozen_graph_method)
    return G


#: the methods networkx.freeze replaces
_GRAPH_MUTATORS = (
    "add_node", "add_nodes_from", "remove_node", "remove_nodes_from", "add_edge",
    "add_edges_from", "add_weighted_edges_from", "remove_edge", "remove_edges_from", "clear",
    "clear_edges",
)  # fmt: skip


def _frozen_graph_method(*args, **kwargs):
    raise refuse(
        "The graph of a model",
        "adding or removing nodes or edges",
        " (build a new model from a copy: model.graph.copy())",
    )
