r"""Seed 004's approximate and unconstrained models of a robot with geared transmissions.

A geared (or belt) transmission drives rotor :math:`r` at the speed
:math:`\dot q_r = \sum_j N_{rj}\dot y_j` (a row of the constant constraint matrix
:math:`G` of the model's couplings). The exact dynamics are the cluster algorithms'
(:func:`~geomech.multibody.closed.dynamics.cluster_rnea`, :math:`G^\top H G`). Seed 004
§II-C/D compares them with two cheap models of the *independent tree* :math:`\mathcal G_{\rm
ind}` (the bodies of the independent joints; the rotors are not in it):

- **approximate** (Approximate RNEA/ABA/EFPA, eqs. (4)–(5) of §II-C): the ordinary
  algorithms on :math:`\mathcal G_{\rm ind}` with a constant offset of the mass matrix,
  :math:`\tilde{\mathbf H} = \mathrm{diag}(N_1^2 I^{\rm rot}_1, N_2^2 I^{\rm rot}_2, \dots)`,
  i.e. a joint **armature**;
- **unconstrained** (:math:`\tilde{\mathbf H} = 0`): the transmissions ignored.

Both are returned here as kinematic trees
(:class:`~geomech.multibody.model.tree.MultibodyModel`) whose ``v`` is the closed model's
independent ``v``: every
algorithm of a tree then runs on them (the armature is in ``rnea``, ``crba``, ``aba``).

References
----------
M. Chignoli, N. Adrian, S. Kim, P. M. Wensing, "Recursive rigid-body dynamics algorithms for
systems with kinematic loops", arXiv:2311.13732 (seed 004), §II-C (eq. 5), §II-D, §IX-B
(Fig. 14).
"""

from __future__ import annotations

import numpy as np

from geomech.errors import ModelError

__all__ = ["approximate_transmission_model", "unconstrained_transmission_model", "rotor_ratios"]


def rotor_ratios(model) -> dict[int, np.ndarray]:
    r"""The rotors of a geared model and their ratios :math:`N_{rj}` to the independent speeds.

    A rotor is the successor of a coupling: a leaf body on a dependent revolute joint. Its
    row of :math:`G` (constant for couplings) gives :math:`\dot q_r = \sum_j N_{rj}\dot y_j`.

    Parameters
    ----------
    model : ClosedMultibodyModel
        A model whose constraints are all couplings.

    Returns
    -------
    dict
        ``{spanning-tree body index of the rotor: N_r (nv,)}``, in body order.

    Raises
    ------
    ModelError
        If ``model`` is not a closed model, has loop joints or implicit constraints, or a
        coupling's successor is not a leaf body on a dependent revolute joint.

    Examples
    --------
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed.transmission import rotor_ratios
    >>> leg = load_example("belt_leg")
    >>> ratios = {leg.spanning_tree.body_names[r]: N for r, N in rotor_ratios(leg).items()}
    >>> leg.independent_joints, ratios["knee_rotor"] + 0.0, ratios["ankle_rotor"]
    (['hip', 'knee', 'ankle'], array([0., 6., 0.]), array([0., 6., 6.]))
    """
    from geomech.multibody.model.joints import Revolute

    if not getattr(model, "is_closed", False):
        raise ModelError(
            f"Expected a closed model (ClosedMultibodyModel), got {type(model).__name__}."
        )
    kinds = sorted({c.kind for c in model.constraints} - {"coupling"})
    if kinds:
        raise ModelError(
            f"Expected a model whose constraints are couplings (geared rotors), got {kinds[0]} "
            "constraints."
        )
    st = model.spanning_tree
    G, _ = model.constraint_matrices(model.neutral(), np.zeros(model.nv))
    out = {}
    for r in sorted({c.succ for c in model.constraints}):
        joint = st.joints[r]
        if (
            st.children(r)
            or not isinstance(joint, Revolute)
            or st.joint_names[r] not in model.dependent_joints
        ):
            raise ModelError(
                f"Expected the coupled body {st.body_names[r]!r} to be a rotor: a leaf body on "
                "a dependent revolute joint."
            )
        out[r] = np.array(G[st.v_slices[r].start])
    return out


def _independent_tree(model, merge: bool, armature: bool):
    """The tree of the non-rotor bodies, rotors merged into their carriers or dropped, with
    or without the diagonal reflected inertia as armature.
    """
    from geomech.multibody.model.tree import MultibodyModel
    from geomech.spatial import plucker_from_pose

    ratios = rotor_ratios(model)
    st = model.spanning_tree
    inertia = {i: st.inertias[i].copy() for i in range(st.n_bodies)}
    # the independent speed of column c is the speed of the joint of body col_body[c]
    col_body = {}
    for name in model.independent_joints:
        i = st.joint_names.index(name)
        for c in range(model.v_slices[i].start, model.v_slices[i].stop):
            col_body[c] = i
    reflected = np.zeros(model.nv)
    for r, N_r in ratios.items():
        joint = st.joints[r]
        Phi = joint.motion_subspace(joint.neutral())[:, 0]
        I_rot = float(Phi @ st.inertias[r] @ Phi)  # the rotor's inertia about its axis
        reflected += N_r**2 * I_rot  # seed 004 eq. (5): H̃ = diag(N² I_rot), joint by joint
        p = int(st.parent[r])
        if merge and p >= 0:  # the rotor's mass rides on its carrier (at the rotor's zero)
            X = plucker_from_pose(st.placements[r] @ joint.pose(joint.neutral()))  # ^rX_p
            inertia[p] += X.T @ st.inertias[r] @ X
    graph = st.graph.copy()
    graph.remove_nodes_from(st.nodes[r] for r in ratios)
    for i in range(st.n_bodies):
        if i not in ratios:
            graph.nodes[st.nodes[i]]["inertia"] = inertia[i]
    if armature:
        for c, i in col_body.items():
            if reflected[c] == 0.0:
                continue
            edge = graph.edges[next(iter(graph.predecessors(st.nodes[i]))), st.nodes[i]]
            k = c - model.v_slices[i].start
            values = np.broadcast_to(
                np.asarray(edge.get("armature", 0.0), float), (st.joints[i].nv,)
            ).copy()
            values[k] += reflected[c]
            edge["armature"] = values if values.size > 1 else float(values[0])
    suffix = "approximate" if armature else "unconstrained"
    graph.graph["name"] = f"{graph.graph.get('name') or 'model'}_{suffix}"
    tree = MultibodyModel(graph, gravity=model.gravity)
    if list(tree.joint_names) != [n for n in model.joint_names if n in model.independent_joints]:
        raise ModelError(  # pragma: no cover - the rotors are leaves on dependent joints
            "The independent tree's joints are not the closed model's independent joints."
        )
    return tree


def approximate_transmission_model(model, merge_rotors: bool = True):
    r"""Seed 004's approximate model of a geared model: the independent tree with armature.

    The rotors (the successors of the couplings) are removed, and each independent joint
    :math:`j` gets the armature

    .. math::
        k_{a,j} = \sum_r N_{rj}^2\, I^{\rm rot}_r, \qquad
        I^{\rm rot}_r = \boldsymbol\Phi_r^\top\mathbf I_r\boldsymbol\Phi_r,

    so that :math:`\tilde{\mathbf H} = \mathbf H_{\rm ind} + \mathrm{diag}(\mathbf k_a)`
    (seed 004 eq. (5): :math:`\mathrm{diag}(N_1^2 I^{\rm rot}_1, \dots)`, the ``DIAGONAL``
    reflected inertia of its reference code; a belt rotor driven by several joints
    contributes :math:`N_{rj}^2 I^{\rm rot}_r` to each, its off-diagonal coupling
    :math:`N_{rj}N_{rk}I^{\rm rot}_r` is dropped). With ``merge_rotors`` each rotor's spatial
    inertia (at its zero angle: exact for a rotor symmetric about its axis) is added to its
    carrier, the body it is mounted on, so the mass and the rotor's share of the carrier's
    inertia stay; without, the rotors are dropped as the paper's independent tree drops
    them. What the model leaves out is the rotors' gyroscopic coupling with their carriers'
    rotation, :math:`N_{rj}\,\mathbf a_r^\top\mathbf I_r\boldsymbol\omega_p\,\dot y_j`,
    and the off-diagonal belt terms.

    This differs from
    :func:`~geomech.multibody.closed.dynamics.link_reflected_inertia_model`, which puts
    :math:`N^2 I_r\boldsymbol\Phi_j\boldsymbol\Phi_j^\top` into the link's spatial inertia
    (a term every ancestor joint then sees).

    Parameters
    ----------
    model : ClosedMultibodyModel
        A model whose constraints are couplings whose successors are rotors (leaf bodies on
        dependent revolute joints).
    merge_rotors : bool, optional
        Whether the rotors' spatial inertias ride on their carriers (default) or are dropped.

    Returns
    -------
    MultibodyModel
        The tree of the independent joints' bodies (``v`` is ``model``'s ``v``; ``q`` the
        independent joints' coordinates), with ``armature`` on its edges.

    Raises
    ------
    ModelError
        As :func:`rotor_ratios`.

    References
    ----------
    Seed 004 §II-C eqs. (4)–(5) (Approximate RNEA), §II-D (Approximate ABA), §IX-B.

    Examples
    --------
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed import approximate_transmission_model
    >>> leg = load_example("belt_leg")
    >>> approx = approximate_transmission_model(leg)
    >>> approx.joint_names, approx.armature.round(7).tolist()  # 36 I_rot per rotor
    (['hip', 'knee', 'ankle'], [0.00486, 0.005625, 0.0028125])
    """
    return _independent_tree(model, merge=bool(merge_rotors), armature=True)


def unconstrained_transmission_model(model):
    r"""Seed 004's unconstrained model of a geared model: the independent tree, rotors dropped.

    :math:`\tilde{\mathbf H} = 0` (seed 004 §II-C, "Unconstrained RNEA"): the rotors and
    their transmissions are ignored; no armature.

    Parameters
    ----------
    model : ClosedMultibodyModel
        As :func:`approximate_transmission_model`.

    Returns
    -------
    MultibodyModel
        The tree of the independent joints' bodies.

    Raises
    ------
    ModelError
        As :func:`rotor_ratios`.

    References
    ----------
    Seed 004 §II-C, §IX-B (Fig. 14).

    Examples
    --------
    >>> from geomech.multibody.io.examples import load_example
    >>> from geomech.multibody.closed import unconstrained_transmission_model
    >>> unc = unconstrained_transmission_model(load_example("belt_leg"))
    >>> unc.body_names, unc.armature.tolist()
    (['thigh', 'shank', 'foot'], [0.0, 0.0, 0.0])
    """
    return _independent_tree(model, merge=False, armature=False)
