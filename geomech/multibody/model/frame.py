r"""The joint frame of a multibody model: the fields of its speeds, :math:`\dot q = X_i v^i`.

A :class:`JointFrame` is the :class:`~geomech.geometry.Frame` of a
:class:`~geomech.multibody.MultibodyModel` as a :class:`~geomech.geometry.MechanicalSystem`:

- points are the flat configuration vectors ``q`` (shape ``(nq,)``);
- the fields are the model's speeds, joint by joint (body-frame speeds for multi-DoF joints),
  with flow ``model.integrate(q, w, t)`` (the product of the joint manifolds; on a closed
  model the independent joints move and the loops are closed again by Newton's method);
- the structure constants are the joints'
  (:func:`~geomech.multibody.algorithms.christoffel.joint_structure_constants`, block diagonal:
  fields of different joints commute);
- the chart rate of :math:`q = q_c \oplus \delta` is each joint's own hook
  ``Joint._chart_rate`` (the one chart rate per joint; ``v`` on 1-DoF joints).

References
----------
seed 000 §II (frames, structure constants); seed 001 §1.4 (joint speeds); seed 004 §1.3
(closed models: independent speeds).
"""

from __future__ import annotations

import numpy as np

from geomech._validation import as_array, default_rng
from geomech.errors import NotOnManifoldError
from geomech.geometry.frames import Frame
from geomech.multibody.algorithms.christoffel import joint_structure_constants
from geomech.multibody.model._frozen import Freezable
from geomech.multibody.model.joints import FreeFlyer, OneDoFJoint, Spherical

__all__ = ["JointFrame"]

#: Largest deviation of a joint quaternion's norm from 1 accepted in a configuration.
QUATERNION_TOL = 1e-6


class JointFrame(Freezable, Frame):
    r"""The frame of a multibody model's speeds: :math:`\dot q = X_i(q)\,v^i`.

    Parameters
    ----------
    model : MultibodyModel
        A kinematic tree or a closed model (its independent speeds).

    Attributes
    ----------
    model : MultibodyModel
    dim : int
        ``model.nv``.
    point_shape : tuple of int
        ``(model.nq,)``.
    curved : ndarray of bool, shape (nv,)
        The speeds of multi-DoF joints (their chart is not flat; 1-DoF joints are
        coordinates).
    coordinates : bool
        Whether the fields are the coordinate fields of ``q`` (a tree of 1-DoF joints: a
        spanning tree for :class:`~geomech.geometry.ClosedChain`).

    References
    ----------
    seed 000 §II; seed 001 §1.4.

    Examples
    --------
    >>> import numpy as np
    >>> from geomech.multibody import robots
    >>> from geomech.multibody.model.frame import JointFrame
    >>> model = robots.double_pendulum()
    >>> frame = JointFrame(model)
    >>> frame.dim, frame.point_shape, model.frame is not None
    (2, (2,), True)
    >>> frame.flow([0.1, 0.2], [1.0, -1.0], 0.5)
    array([ 0.6, -0.3])
    """

    def __init__(self, model):
        self.model = model
        self.dim = int(model.nv)
        self.point_shape = (int(model.nq),)
        # the moving joints, (joint, q slice, v slice); on a closed model the independent ones
        self._joints = [
            (joint, qs, vs)
            for joint, qs, vs in zip(model.joints, model.q_slices, model.v_slices, strict=True)
            if vs.stop > vs.start
        ]
        curved = np.zeros(self.dim, dtype=bool)
        for joint, _, vs in self._joints:
            curved[vs] = not isinstance(joint, OneDoFJoint) and joint.nv > 1
        self.curved = curved
        # coordinate fields of q when every moving joint is a 1-DoF joint of a tree (q̇ = v)
        self.coordinates = (
            not getattr(model, "is_closed", False)
            and self.dim == self.point_shape[0]
            and all(isinstance(joint, OneDoFJoint) for joint, _, _ in self._joints)
        )

    def flow(self, q, w, t=1.0) -> np.ndarray:
        """Follow :math:`w^i X_i` from ``q`` for time ``t``: ``model.integrate(q, w, t)``.

        Parameters
        ----------
        q : array_like, shape (..., nq)
        w : array_like, shape (..., nv)
        t : float or array_like, shape (...)

        Returns
        -------
        ndarray, shape (..., nq)

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.double_pendulum().frame.flow([0.0, 0.0], [1.0, 2.0], 0.5)
        array([0.5, 1. ])
        """
        return self.model.integrate(q, w, t)

    def structure_constants(self, q) -> np.ndarray:
        r"""The joints' structure constants ``s[..., a, b, l]`` :math:`= s^\ell_{ab}`.

        On a closed model, those of the independent joints (the fields of the independent
        speeds; the dependent coordinates follow as functions of the independent ones).

        Parameters
        ----------
        q : array_like, shape (..., nq)

        Returns
        -------
        ndarray, shape (..., nv, nv, nv)

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.double_pendulum().frame.structure_constants([0.1, 0.2]).shape
        (2, 2, 2)
        """
        model = self.model
        if not getattr(model, "is_closed", False):
            return joint_structure_constants(model, q)
        idx = model.independent_v_index
        s = joint_structure_constants(model.spanning_tree, q)
        return s[..., idx, :, :][..., :, idx, :][..., :, :, idx]

    def chart_velocity(self, q0, phi, v) -> np.ndarray:
        r"""Rate of :math:`\phi` for :math:`q = q_0 \oplus \phi`, joint by joint
        (``Joint._chart_rate``).

        1-DoF joints: :math:`\dot\phi = v`; multi-DoF joints: their exact or series
        :math:`\operatorname{dexp}^{-1}` (the joint's hook).

        Parameters
        ----------
        q0 : array_like, shape (..., nq)
        phi, v : array_like, shape (..., nv)

        Returns
        -------
        ndarray, shape (..., nv)

        Examples
        --------
        >>> import numpy as np
        >>> from geomech.multibody import robots
        >>> frame = robots.double_pendulum().frame
        >>> frame.chart_velocity([0.0, 0.0], [0.3, 0.1], [1.0, 2.0])
        array([1., 2.])
        """
        q0 = np.asarray(q0, dtype=float)
        phi, v = np.asarray(phi, dtype=float), np.asarray(v, dtype=float)
        lead = np.broadcast_shapes(q0.shape[:-1], phi.shape[:-1], v.shape[:-1])
        out = np.array(np.broadcast_to(v, lead + (self.dim,)))  # 1-DoF joints: v
        cache = []  # the structure constants at q0, computed once if a joint asks for them

        def structure_constants(vs):
            def s():
                if not cache:
                    cache.append(self.structure_constants(q0))
                return cache[0][..., vs, vs, vs]

            return s

        for joint, _, vs in self._joints:
            if self.curved[vs.start]:
                out[..., vs] = joint._chart_rate(phi[..., vs], v[..., vs], structure_constants(vs))
        return out

    def validate_point(self, q, name: str = "q") -> np.ndarray:
        """Check a configuration: shape ``(..., nq)``, finite, unit joint quaternions; on a
        closed model also the loop constraints.

        Parameters
        ----------
        q : array_like, shape (..., nq)
        name : str

        Returns
        -------
        ndarray, shape (..., nq)

        Raises
        ------
        DimensionError, NonFiniteError
            If ``q`` is malformed.
        NotOnManifoldError
            If a joint quaternion is not of unit norm (tolerance ``QUATERNION_TOL``, 1e-6), or
            a closed model's loops are not closed.

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.double_pendulum().frame.validate_point([[0.1, 0.2]]).shape
        (1, 2)
        """
        model = self.model
        if getattr(model, "is_closed", False):
            return model.check_configuration(q, name)
        q = as_array(q, name, self.point_shape)
        quaternions = [
            (qs, jname)
            for joint, qs, jname in zip(
                model.joints, model.q_slices, model.joint_names, strict=True
            )
            if isinstance(joint, (Spherical, FreeFlyer))
        ]
        for qs, jname in quaternions:
            err = np.abs(np.linalg.norm(q[..., qs][..., -4:], axis=-1) - 1.0)
            if np.any(err > QUATERNION_TOL):
                raise NotOnManifoldError(
                    f"Expected the quaternion of joint {jname!r} in `{name}` to have unit norm "
                    f"(tolerance {QUATERNION_TOL:g}), got a norm error of {err.max():.3g}."
                )
        return q

    def neutral(self) -> np.ndarray:
        """The neutral configuration: ``model.neutral()``.

        Returns
        -------
        ndarray, shape (nq,)

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.quadruped().frame.neutral()[:7]
        array([0., 0., 0., 0., 0., 0., 1.])
        """
        return self.model.neutral()

    def random_configuration(self, rng=None, size=None) -> np.ndarray:
        """Random configurations: ``model.random_configuration(rng, size)``.

        Parameters
        ----------
        rng : None, int or numpy.random.Generator
        size : None, int or tuple of int

        Returns
        -------
        ndarray, shape (*size, nq)

        Examples
        --------
        >>> from geomech.multibody import robots
        >>> robots.double_pendulum().frame.random_configuration(rng=0, size=3).shape
        (3, 2)
        """
        return self.model.random_configuration(default_rng(rng), size)

    def __repr__(self):
        return f"JointFrame({self.model!r})"
