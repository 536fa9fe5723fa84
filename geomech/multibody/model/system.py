r"""The multibody model as a mechanical system: what a tree and a closed model share.

:class:`MultibodySystem` is the common base of :class:`~geomech.MultibodyModel` (a
kinematic tree) and :class:`~geomech.multibody.ClosedMultibodyModel` (a spanning tree plus
constraints). Both are
:class:`~geomech.geometry.MechanicalSystem` objects (seed 000 §II): their configurations are
the flat vectors ``q``, their frame the joint frame of their speeds
(:class:`~geomech.multibody.model.frame.JointFrame`), their metric the mass matrix and their
potential gravity's. The recursive algorithms of :mod:`geomech.multibody.algorithms` are the
fast overrides of the generic formulas; on a closed model the same public functions run seed
004's cluster algorithms (the model's ``ALGORITHMS`` table).
"""

from __future__ import annotations

from collections import Counter

import networkx as nx
import numpy as np

from geomech._validation import as_array
from geomech.errors import DimensionError
from geomech.geometry.system import MechanicalSystem
from geomech.multibody.algorithms import dynamics
from geomech.multibody.algorithms.christoffel import christoffel_symbols
from geomech.multibody.algorithms.coriolis import coriolis_matrix, mass_matrix_derivative
from geomech.multibody.algorithms.frames import frame_names
from geomech.multibody.algorithms.kinematics import forward_kinematics
from geomech.multibody.model._frozen import (
    Freezable,
    FrozenList,
    frozen_graph,
    frozen_value,
    pickle_state,
    refuse,
)
from geomech.multibody.model.connection import MultibodyConnection
from geomech.multibody.model.frame import JointFrame

__all__ = ["MultibodySystem"]


#: the joint-dynamics arrays of a tree (added after 0.1.0: older pickles get the defaults)
_JOINT_DYNAMICS_ARRAYS = ("armature", "damping", "friction", "velocity_limit", "effort_limit",
                          "lower_position_limit", "upper_position_limit")  # fmt: skip


class MultibodySystem(MechanicalSystem):
    r"""A multibody model as a :class:`~geomech.geometry.MechanicalSystem` (the common base).

    Subclasses set the model's layout (``nq``, ``nv``, ``inertias``, ``gravity``,
    ``spanning_tree``: the tree itself for a :class:`~geomech.multibody.MultibodyModel`) and
    call :meth:`_init_system` at the end of their constructor. The metric is the CRBA mass
    matrix, :meth:`mass_matrix_derivative` and :meth:`coriolis_matrix` are seed 000 Alg. 1,
    the Levi-Civita coefficients (the Koszul formula) Alg. 2, :meth:`gravity_forces` RNEA and
    :meth:`forward_dynamics` ABA; on a closed model, their cluster forms (seed 004).

    Examples
    --------
    >>> from geomech.multibody import MultibodySystem, robots
    >>> from geomech.multibody.io.examples import load_example
    >>> isinstance(robots.double_pendulum(), MultibodySystem)
    True
    >>> isinstance(load_example("four_bar"), MultibodySystem)
    True
    """

    #: Whether the model has kinematic loops (a
    #: :class:`~geomech.multibody.ClosedMultibodyModel`).
    is_closed = False
    #: ``compiled.single`` once a tree's compiled model is built (the single-state fast path
    #: of the public functions), else ``None`` (always for a closed model)
    _single = None

    # ------------------------------------------------------------------------------------
    # the model as a MechanicalSystem (seed 000 §II): frame, metric, potential, fast overrides
    # ------------------------------------------------------------------------------------
    def _init_system(self) -> None:
        """Set the MechanicalSystem part (the joint frame, the CRBA metric, gravity's potential),
        then freeze the model: the last step of both constructors.
        """
        MechanicalSystem.__init__(
            self, None, self.mass_matrix, frame=JointFrame(self), potential=self.potential_energy
        )
        self._freeze()

    # ------------------------------------------------------------------------------------
    # immutability (issue 26 item 1): a model caches what it derives from its inputs (the
    # compiled arrays, the single-state kernel entry), so nothing public may change after
    # construction. Private attributes stay settable: they are those caches.
    # ------------------------------------------------------------------------------------
    def _freeze(self) -> None:
        """Make every public attribute immutable and refuse rebinding from now on.

        Arrays become read-only (copied first if they are views or writable), lists
        ``geomech.multibody.model._frozen.FrozenList``, graphs private frozen copies
        (``geomech.multibody.model._frozen.frozen_graph``); the joints are frozen too.
        """
        d = self.__dict__
        for name, value in list(d.items()):
            if name.startswith("_"):
                continue
            if isinstance(value, nx.DiGraph):
                d[name] = frozen_graph(value)
            else:
                d[name] = frozen_value(value)
        for name, value in d.items():  # joints, the frame, and any other Freezable part
            if name.startswith("_"):
                continue
            for part in value if isinstance(value, list) else (value,):
                if isinstance(part, Freezable):
                    part._freeze()
        d["_frozen"] = True

    def __setattr__(self, name, value):
        if name[:1] != "_" and self.__dict__.get("_frozen", False):
            raise refuse(
                f"{type(self).__name__}",
                f"setting its attribute {name!r}",
                " (build a new one: type(model)(graph, gravity=...), with_inertias(...))",
            )
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name[:1] != "_" and self.__dict__.get("_frozen", False):
            raise refuse(f"{type(self).__name__}", f"deleting its attribute {name!r}")
        object.__delattr__(self, name)

    def __getstate__(self):
        # numpy restores arrays writable: these are marked to load read-only again
        return pickle_state(self.__dict__)

    def __copy__(self):
        return self  # immutable: a shallow copy is the model itself

    def __setstate__(self, state):
        # pickles of this version carry `_frozen`; older ones (0.1.0) are frozen on loading
        self.__dict__.update(state)
        if not self.is_closed and "armature" not in state:  # pickled before joint dynamics
            d, nv, nq = self.__dict__, state["nv"], state["nq"]
            d["armature"], d["damping"], d["friction"] = (np.zeros(nv) for _ in range(3))
            d["velocity_limit"], d["effort_limit"] = (np.full(nv, np.inf) for _ in range(2))
            d["lower_position_limit"], d["upper_position_limit"] = (
                -np.full(nq, np.inf),
                np.full(nq, np.inf),
            )
            for name in _JOINT_DYNAMICS_ARRAYS:
                d[name].flags.writeable = False
        if not state.get("_frozen", False):
            self._freeze()

    def _H(self, q: np.ndarray) -> np.ndarray:
        return dynamics.crba(self, q)

    def _dH(self, q: np.ndarray) -> np.ndarray:
        # dH[..., k, i, j] = L_{X_k} H_ij = Hdot(q, e_k): Alg. 1 at the nv unit speeds, batched
        return mass_matrix_derivative(self, q[..., None, :], np.eye(self.nv))

    def _koszul(self, q: np.ndarray) -> np.ndarray:
        return christoffel_symbols(self, q)  # seed 000 Alg. 2

    def mass_matrix(self, q) -> np.ndarray:
        r"""Mass matrix :math:`H(q)` by the CRBA
        (:func:`~geomech.multibody.algorithms.dynamics.crba`).

        Parameters
        ----------
        q : array_like, shape (..., nq)

        Returns
        -------
        ndarray, shape (..., nv, nv)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.double_pendulum().mass_matrix([0.0, 0.0]).shape
        (2, 2)
        """
        return dynamics.crba(self, q)

    def mass_matrix_derivative(self, q, v) -> np.ndarray:
        r""":math:`\dot H(q, v)` by seed 000 Alg. 1
        (:func:`~geomech.multibody.algorithms.coriolis.mass_matrix_derivative`).

        Parameters
        ----------
        q : array_like, shape (..., nq)
        v : array_like, shape (..., nv)

        Returns
        -------
        ndarray, shape (..., nv, nv)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` or ``v`` is malformed.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.double_pendulum().mass_matrix_derivative([0.0, 0.0], [0.0, 0.0])
        array([[0., 0.],
               [0., 0.]])
        """
        return mass_matrix_derivative(self, q, v)

    def coriolis_matrix(self, q, v) -> np.ndarray:
        r"""Levi-Civita Coriolis matrix :math:`C^\star(q, v)` by seed 000 Alg. 1.

        .. math:: C^\star_{ik} = \Gamma^\star_{ijk} v^j

        Other factorizations: ``model.connection(name).coriolis_matrix(q, v)`` or
        :func:`~geomech.multibody.algorithms.coriolis.coriolis_matrix` with ``connection=``.

        Parameters
        ----------
        q : array_like, shape (..., nq)
        v : array_like, shape (..., nv)

        Returns
        -------
        ndarray, shape (..., nv, nv)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` or ``v`` is malformed.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.double_pendulum().coriolis_matrix([0.0, 0.0], [0.0, 0.0])
        array([[0., 0.],
               [0., 0.]])
        """
        return coriolis_matrix(self, q, v)

    def gravity_forces(self, q) -> np.ndarray:
        r"""Generalized gravity forces :math:`g(q)` by RNEA
        (:func:`~geomech.multibody.algorithms.dynamics.gravity_forces`).

        Parameters
        ----------
        q : array_like, shape (..., nq)

        Returns
        -------
        ndarray, shape (..., nv)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.double_pendulum().gravity_forces([0.0, 0.0]).round(12)
        array([0., 0.])
        """
        return dynamics.gravity_forces(self, q)

    def kinetic_energy(self, q, v) -> np.ndarray:
        r"""Kinetic energy :math:`T = \tfrac12 v^\top H(q) v`
        (:func:`~geomech.multibody.algorithms.dynamics.kinetic_energy`).

        Parameters
        ----------
        q : array_like, shape (..., nq)
        v : array_like, shape (..., nv)

        Returns
        -------
        ndarray, shape (...)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` or ``v`` is malformed.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> float(robots.double_pendulum().kinetic_energy([0.0, 0.0], [0.0, 0.0]))
        0.0
        """
        return dynamics.kinetic_energy(self, q, v)

    def potential_energy(self, q) -> np.ndarray:
        r"""Gravitational potential energy :math:`V(q) = -\mathbf g^\top\sum_i m_i\mathbf c_i(q)`.

        With :math:`m_i\mathbf c_i = R_i\mathbf h_i + m_i\mathbf p_i` (world frame) from each
        body's first moment :math:`\mathbf h_i` in its spatial inertia. Its frame
        derivatives are :meth:`gravity_forces`.

        Parameters
        ----------
        q : array_like, shape (..., nq)

        Returns
        -------
        ndarray, shape (...)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> float(robots.double_pendulum().potential_energy([0.0, 0.0]))  # both links down
        -29.43
        """
        I = self.inertias  # noqa: E741
        m = I[:, 5, 5]
        h = np.stack([I[:, 2, 4], I[:, 0, 5], I[:, 1, 3]], axis=-1)  # I[:3, 3:] = S(h)
        T = forward_kinematics(self.spanning_tree, q)
        mc = np.einsum("...nij,nj->...ni", T[..., :3, :3], h) + m[:, None] * T[..., :3, 3]
        return -np.einsum("...ni,i->...", mc, self.gravity)

    def forward_dynamics(self, q, v, tau=None) -> np.ndarray:
        r"""Accelerations :math:`\dot v = H^{-1}(\tau + \tau_f - C v - g)` by the ABA
        (:func:`~geomech.multibody.algorithms.dynamics.aba`).

        :math:`H` includes the armature and :math:`\tau_f = -k_d v - k_f\operatorname{sign}
        (v)` is the joint friction torque of a tree's ``damping`` and ``friction``
        (:func:`~geomech.multibody.algorithms.dynamics.joint_friction_torques`; zero when
        absent), the forces that :func:`geomech.simulate` integrates.

        Parameters
        ----------
        q : array_like, shape (..., nq)
        v : array_like, shape (..., nv)
        tau : array_like, shape (..., nv), optional
            Default zero.

        Returns
        -------
        ndarray, shape (..., nv)

        Raises
        ------
        DimensionError, NonFiniteError
            If an input is malformed.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.double_pendulum().forward_dynamics([0.0, 0.0], [0.0, 0.0]).round(12)
        array([0., 0.])
        """
        tau = np.zeros(self.nv) if tau is None else tau
        if not self.is_closed and (np.any(self.damping) or np.any(self.friction)):
            tau = as_array(tau, "tau", (self.nv,))
            tau = tau + dynamics.joint_friction_torques(self, v)  # τ + τ_f (model's Notes)
        return dynamics.aba(self, q, v, tau)

    def connection(self, body_connection="levi-civita"):
        """The whole system's affine connection induced by the body connections.

        Parameters
        ----------
        body_connection : str, BodyConnection, AffineConnection, callable or mapping, optional
            See :func:`geomech.multibody.algorithms.coriolis.coriolis_matrix`.

        Returns
        -------
        geomech.multibody.model.connection.MultibodyConnection

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> conn = robots.double_pendulum(radius=0.1).connection("boltzmann-hamel")
        >>> bool(conn.is_metric_compatible([0.3, -0.5]))
        True
        """
        return MultibodyConnection(self, body_connection)

    # ------------------------------------------------------------------------------------
    # layout queries shared by both kinds
    # ------------------------------------------------------------------------------------
    def joint_types(self) -> dict[str, int]:
        """Number of joints of each kind.

        Returns
        -------
        dict of str to int

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.quadruped().joint_types()
        {'free_flyer': 1, 'revolute': 12}
        """
        return dict(sorted(Counter(j.kind for j in self.joints).items()))

    def with_inertias(self, inertias) -> MultibodySystem:
        r"""The same model with other body inertias (e.g. estimated parameters).

        A copy of the model's ``graph`` whose body nodes carry the new ``inertia`` attributes (every
        other node, edge and graph attribute is kept; the original graph is not mutated),
        built into a new model with the same gravity. Since the numbering depends only on
        the topology, body ``i`` of the result is body ``i`` of this model.

        Parameters
        ----------
        inertias : array_like, shape (N, 6, 6)
            Spatial inertia of body ``i`` about its frame origin, in the model's body order.
            Each is validated as in the constructor (:func:`check_inertia`: symmetric,
            spatial-inertia form, nonnegative mass, positive semi-definite; physical
            consistency is not required).

        Returns
        -------
        MultibodyModel

        Raises
        ------
        DimensionError, NonFiniteError
            If ``inertias`` is not of shape (N, 6, 6) or has non-finite entries.
        ModelError
            If an inertia is not valid (the message names the body).

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody import robots
        >>> model = robots.double_pendulum()
        >>> heavier = model.with_inertias(2.0 * model.inertias)
        >>> bool(np.allclose(heavier.inertias, 2.0 * model.inertias)), heavier.joint_names
        (True, ['joint1', 'joint2'])
        >>> float(model.inertias[0, 5, 5])  # unchanged
        1.0
        """
        inertias = as_array(inertias, "inertias", (6, 6))
        if inertias.shape != (self.n_bodies, 6, 6):
            raise DimensionError(
                f"Expected `inertias` to have shape {(self.n_bodies, 6, 6)}, got {inertias.shape}."
            )
        G = self.graph.copy()  # new attribute dicts: the original graph is untouched
        for i, node in enumerate(self.nodes):
            G.nodes[node]["inertia"] = inertias[i].copy()
        return type(self)(G, gravity=self.gravity.copy())

    @property
    def frame_names(self) -> list[str]:
        """Names of the model's frames: every URDF link (links merged by fixed joints
        included; a closed model's are its spanning tree's) and the user frames of the node
        attribute ``frames`` (see
        :func:`~geomech.multibody.algorithms.frames.frame_names`).

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.double_pendulum().frame_names
        ['world', 'link1', 'link2']
        """
        return FrozenList(frame_names(self))
