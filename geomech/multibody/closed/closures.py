r"""Loop-closure constraints from a robot's kinematics, for :class:`~geomech.geometry.ClosedChain`.

A closed chain by projection (seed 000 §VI-C1) is a spanning tree plus constraints
:math:`\phi(q) = 0`. :class:`PointClosure` pins a point of a body of the tree to a point of
another body or of the world (a revolute or spherical loop joint cut at its centre):

.. math:: \phi(q) = P\,\big({}^0\mathbf T_a(q)\,\mathbf p_a - {}^0\mathbf T_b(q)\,\mathbf p_b\big),
          \qquad \frac{\partial\phi}{\partial q} = P\,\big(R_a\,[-[\mathbf p_a]_\times \;\;
          \mathbf 1]\,\mathbf J_a - (b)\big)

with :math:`P` the selected world axes, :math:`R_a` the body's rotation and
:math:`\mathbf J_a` its body Jacobian (angular first); on a tree of 1-DoF joints
:math:`\dot q = v`, so this is the constraint Jacobian. :func:`four_bar` builds the planar
four-bar of :func:`geomech.geometry.examples_induced.four_bar_linkage` as a real
:class:`~geomech.multibody.MultibodyModel` with its loop closure.

References
----------
seed 000 §VI-C1; Featherstone 2008, §8.1 (loop joints, cut at the joint).

Examples
--------
>>> import numpy as np
>>> from geomech.geometry import ClosedChain
>>> from geomech.multibody.closed.closures import four_bar
>>> tree, closure, q0 = four_bar()
>>> chain = ClosedChain(tree, closure, [0], constraint_jacobian=closure.jacobian, reference=q0)
>>> chain.dim, bool(np.abs(closure(q0)).max() < 1e-12)
(1, True)
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from geomech._validation import as_array
from geomech.errors import DimensionError, ModelError
from geomech.geometry.examples_induced import four_bar_closure
from geomech.multibody.algorithms.kinematics import body_jacobians, forward_kinematics
from geomech.multibody.model.joints import Prismatic, Revolute
from geomech.multibody.model.tree import MultibodyModel
from geomech.spatial import spatial_inertia

__all__ = ["PointClosure", "four_bar"]


class PointClosure:
    r"""Loop closure by a point: a body point held at a point of another body or of the world.

    .. math:: \phi(q) = P\big({}^0T_a(q)\,\mathbf p_a - {}^0T_b(q)\,\mathbf p_b\big)

    (a revolute or spherical loop joint cut at its centre; :math:`{}^0T_b = \mathbf 1` for the
    world), with the exact Jacobian :math:`P(R_a[-[\mathbf p_a]_\times\;\mathbf 1]\mathbf J_a
    - R_b[-[\mathbf p_b]_\times\;\mathbf 1]\mathbf J_b)`.

    Parameters
    ----------
    model : MultibodyModel
        The spanning tree.
    body : str or int
        The body :math:`a` (name or index).
    point : array_like, shape (3,)
        :math:`\mathbf p_a` in the frame of ``body``.
    target : array_like, shape (3,)
        :math:`\mathbf p_b` in the frame of ``target_body`` (the world by default).
    target_body : str or int, optional
        The body :math:`b`; default ``None``, the world.
    axes : sequence of int, optional
        The world axes constrained (default all three; two for a planar loop).

    Attributes
    ----------
    model, body, point, target, target_body, axes

    Raises
    ------
    ModelError
        For an unknown body.
    DimensionError
        If ``point`` or ``target`` is not of shape (3,), or ``axes`` is not a non-empty
        sequence of distinct axes in {0, 1, 2}.

    References
    ----------
    seed 000 §VI-C1.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.closed.closures import PointClosure
    >>> model = robots.double_pendulum()
    >>> tip = PointClosure(model, 1, [0.0, 0.0, -1.0], [0.0, 0.0, -2.0])
    >>> np.round(tip([0.0, 0.0]), 12) + 0.0  # both links down: the tip is at the target
    array([0., 0., 0.])
    >>> tip.jacobian([0.0, 0.0]).shape
    (3, 2)
    """

    def __init__(self, model, body, point, target, target_body=None, axes=(0, 1, 2)):
        self.model = model
        self.body = self._body(body)
        self.target_body = None if target_body is None else self._body(target_body)
        self.point = as_array(point, "point", (3,))
        self.target = as_array(target, "target", (3,))
        if self.point.shape != (3,) or self.target.shape != (3,):
            raise DimensionError(
                f"Expected `point` and `target` of shape (3,), got {self.point.shape} and "
                f"{self.target.shape}."
            )
        axes = np.asarray(axes)
        if (
            axes.ndim != 1
            or axes.size == 0
            or not np.issubdtype(axes.dtype, np.integer)
            or np.any((axes < 0) | (axes > 2))
            or len(set(axes.tolist())) != axes.size
        ):
            raise DimensionError(
                f"Expected `axes` to be distinct world axes in {{0, 1, 2}}, got {axes.tolist()}."
            )
        self.axes = axes.astype(int)

    def _body(self, body) -> int:
        i = self.model.body_index(body) if isinstance(body, str) else body
        if (
            isinstance(i, bool)
            or not isinstance(i, (int, np.integer))
            or not (0 <= i < self.model.n_bodies)
        ):
            raise ModelError(f"Expected a body of the model (name or index), got {body!r}.")
        return int(i)

    def _point(self, T, i, p):
        """World position of the point p of body i (the world if i is None)."""
        if i is None:
            return np.broadcast_to(p, T.shape[:-3] + (3,))
        return np.einsum("...ij,j->...i", T[..., i, :3, :3], p) + T[..., i, :3, 3]

    def _point_jacobian(self, T, J, i, p):
        """World velocity map (..., 3, nv) of the point p of body i (zero for the world)."""
        if i is None:
            return np.zeros(T.shape[:-3] + (3, J.shape[-1]))
        px, py, pz = p
        p_hat = np.array([[0.0, -pz, py], [pz, 0.0, -px], [-py, px, 0.0]])
        v_point = J[..., i, 3:, :] - np.einsum("ij,...jk->...ik", p_hat, J[..., i, :3, :])
        return np.einsum("...ij,...jk->...ik", T[..., i, :3, :3], v_point)

    def __call__(self, q) -> np.ndarray:
        r"""The residual :math:`\phi(q)`.

        Parameters
        ----------
        q : array_like, shape (..., nq)

        Returns
        -------
        ndarray, shape (..., len(axes))

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> from geomech.multibody.closed.closures import PointClosure
        >>> PointClosure(robots.double_pendulum(), 0, [0, 0, 0], [0, 0, 0])([0.3, 0.4])
        array([0., 0., 0.])
        """
        T = forward_kinematics(self.model, q)
        p = self._point(T, self.body, self.point) - self._point(T, self.target_body, self.target)
        return p[..., self.axes]

    def jacobian(self, q) -> np.ndarray:
        r"""The constraint Jacobian :math:`\partial\phi/\partial q` (speeds ``v``; ``= q̇`` on 1-DoF
        joints).

        Parameters
        ----------
        q : array_like, shape (..., nq)

        Returns
        -------
        ndarray, shape (..., len(axes), nv)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody import robots
        >>> from geomech.multibody.closed.closures import PointClosure
        >>> tip = PointClosure(robots.double_pendulum(), 1, [0, 0, -1.0], [0, 0, 0])
        >>> np.round(tip.jacobian([0.0, 0.0]), 12) + 0.0  # about y: the tip moves along -x
        array([[-2., -1.],
               [ 0.,  0.],
               [ 0.,  0.]])
        """
        T = forward_kinematics(self.model, q)
        J = body_jacobians(self.model, q)  # (..., N, 6, nv), [ω; v] in each body's frame
        K = self._point_jacobian(T, J, self.body, self.point) - self._point_jacobian(
            T, J, self.target_body, self.target
        )
        return K[..., self.axes, :]

    def __repr__(self):
        names = self.model.body_names
        other = "world" if self.target_body is None else repr(names[self.target_body])
        return (
            f"PointClosure({names[self.body]!r} at {self.point.tolist()} = {other} at "
            f"{self.target.tolist()}, axes {self.axes.tolist()})"
        )


def four_bar(
    ground=2.0,
    crank=0.8,
    coupler=2.2,
    rocker=1.8,
    masses=(1.0, 1.5, 1.2),
    *,
    mobile_base=False,
    base_mass=3.0,
    base_inertia=0.5,
    gravity=9.81,
    crank_angle=0.3,
):
    r"""The planar four-bar linkage as a robot: a serial tree crank–coupler–rocker plus its closure.

    Three revolute joints about :math:`z` (crank pivot at the origin, the coupler at the
    crank's tip, the rocker at the coupler's tip), uniform slender links along their
    :math:`x` axes (mass :math:`m`, centre of mass at the middle, :math:`I_{zz} = m l^2/12`
    about it), gravity along :math:`-y`; the loop is closed by pinning the rocker's tip to
    the ground pivot :math:`(d, 0)` (:class:`PointClosure` on the :math:`x, y` axes). With
    ``mobile_base=True`` the ground link is a body on a prismatic (:math:`x`, a massless
    carriage) and a revolute joint (mass and inertia about the joint), the tree has
    coordinates :math:`(x, \psi, q_1, q_2, q_3)` and the pivot :math:`(d, 0)` is a point of
    the base (seed 000 §VI-C1). The same linkage as the hand-written planar system
    :func:`geomech.geometry.examples_induced.four_bar_linkage`, built from a graph.

    Parameters
    ----------
    ground, crank, coupler, rocker : float
        Link lengths :math:`d, l_1, l_2, l_3` (positive).
    masses : array_like, shape (3,)
        Masses of crank, coupler and rocker (positive).
    mobile_base : bool
        Put the ground link on a P–R base.
    base_mass, base_inertia : float
        Mass and rotational inertia (about the base joint) of the mobile base.
    gravity : float
        Gravity along :math:`-y`.
    crank_angle : float
        Crank angle of the returned closed configuration ('elbow up').

    Returns
    -------
    model : MultibodyModel
        The spanning tree (joints ``"A"``, ``"B"``, ``"C"``, after ``"x"``, ``"psi"`` on a
        mobile base).
    closure : PointClosure
        The loop closure (2 rows).
    q0 : ndarray, shape (nq,)
        A closed configuration at ``crank_angle`` (base at the origin).

    Raises
    ------
    ModelError
        If a length or mass is not positive, or the linkage does not close at
        ``crank_angle``.

    References
    ----------
    seed 000 §VI-C1.

    Examples
    --------
    >>> from geomech.multibody.closed.closures import four_bar
    >>> model, closure, q0 = four_bar()
    >>> model.joint_names, model.nq
    (['A', 'B', 'C'], 3)
    >>> four_bar(mobile_base=True)[0].joint_names
    ['x', 'psi', 'A', 'B', 'C']
    """
    L = np.array([ground, crank, coupler, rocker], dtype=float)
    m = np.asarray(masses, dtype=float)
    if m.shape != (3,) or not (np.all(L > 0) and np.all(m > 0)):
        raise ModelError(
            f"Expected positive lengths and three positive masses, got lengths {L.tolist()} "
            f"and masses {m.tolist()}."
        )
    d, l1, l2, l3 = L
    G = nx.DiGraph(name="four_bar_tree")
    z = Revolute([0.0, 0.0, 1.0])
    ground_link = "world"
    if mobile_base:
        G.add_edge("world", "carriage", joint=Prismatic([1.0, 0.0, 0.0]), name="x")
        G.add_edge("carriage", "base", joint=z, name="psi")
        G.nodes["carriage"]["inertia"] = np.zeros((6, 6))
        G.nodes["base"]["inertia"] = spatial_inertia(
            float(base_mass), [0.0, 0.0, 0.0], np.diag([0.0, 0.0, float(base_inertia)])
        )
        ground_link = "base"
    parents = [ground_link, "crank", "coupler"]
    for k, (name, length, mass) in enumerate(
        zip(("crank", "coupler", "rocker"), (l1, l2, l3), m, strict=True)
    ):
        T = np.eye(4)
        if k:
            T[0, 3] = (l1, l2)[k - 1]  # the joint sits at the parent link's tip
        G.add_edge(parents[k], name, joint=z, placement=T, name="ABC"[k])
        Izz = mass * length**2 / 12.0
        G.nodes[name]["inertia"] = spatial_inertia(
            mass, [length / 2.0, 0.0, 0.0], np.diag([0.0, Izz, Izz])
        )
    model = MultibodyModel(G, gravity=[0.0, -float(gravity), 0.0])
    closure = PointClosure(
        model, "rocker", [l3, 0.0, 0.0], [d, 0.0, 0.0], "base" if mobile_base else None, axes=(0, 1)
    )
    q0 = four_bar_closure(float(crank_angle), d, l1, l2, l3)
    return model, closure, np.concatenate([np.zeros(2), q0]) if mobile_base else q0
