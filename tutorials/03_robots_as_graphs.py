"""
Robots as graphs
================

A multibody system is a kinematic tree: bodies are the nodes, joints the edges, and the
fixed base is the root. geomech stores it as exactly that, a :class:`networkx.DiGraph`, and
:class:`~geomech.multibody.MultibodyModel` derives from the graph what the recursive
algorithms need: the *regular numbering* (every body after its parent, ``parent[i] < i``), the
parent array, the depth :math:`d` and the supports and subtrees, following seed 001 §1.2
(S. Echeandia and P. M. Wensing, *Numerical Methods to Compute the Coriolis Matrix and
Christoffel Symbols for Rigid-Body Systems*) and R. Featherstone, *Rigid Body Dynamics
Algorithms* (2008), ch. 4.

This tutorial

1. builds a small branched robot from a networkx graph by hand and draws the graph;
2. loads a real humanoid from a URDF shipped with geomech and draws its tree;
3. computes the mass matrix :math:`H` (CRBA), inverse dynamics (RNEA) and forward dynamics
   (ABA), shows the sparsity of :math:`H` that the tree implies (:math:`H_{ij} = 0` unless
   :math:`i` and :math:`j` lie on a common root-to-leaf path, seed 001 eq. 17), and simulates
   the hand-built
   robot for two seconds.

Units are SI throughout (m, kg, s, N, N·m).
"""

# %%
# A robot drawn as a graph
# ------------------------
# A torso turns about the vertical on a fixed
# base and carries two 2-link arms. Each node (except the base) carries a :math:`6\times 6` spatial
# inertia about its body frame; each edge carries a joint and the *placement* of the joint frame in
# the parent body frame.
import matplotlib.pyplot as plt
import networkx as nx
import numpy as np

from geomech.multibody import (
    MultibodyModel,
    Prismatic,
    Revolute,
    aba,
    crba,
    gravity_forces,
    rnea,
    robots,
)
from geomech.plot import show_or_save
from geomech.spatial import spatial_inertia


def placement(x=0.0, y=0.0, z=0.0):
    """Pose of a joint frame translated by (x, y, z) in its parent body frame."""
    T = np.eye(4)
    T[:3, 3] = [x, y, z]
    return T


def rod(mass, length, axis):
    """A thin rod of ``length`` along ``axis`` (0, 1, 2) starting at the frame origin."""
    com = np.zeros(3)
    com[axis] = length / 2
    Ic = np.full(3, mass * length**2 / 12)
    Ic[axis] = 1e-4 * mass
    return spatial_inertia(mass, com, np.diag(Ic))


G = nx.DiGraph(name="two_armed_robot")
G.add_node("base")
G.add_node("torso", inertia=rod(10.0, 0.5, axis=2))
G.add_edge("base", "torso", joint=Revolute([0, 0, 1]), name="waist")
for side, y in (("left", 0.2), ("right", -0.2)):
    G.add_node(f"{side}_upper", inertia=rod(2.0, 0.3, axis=0))
    G.add_node(f"{side}_fore", inertia=rod(1.0, 0.25, axis=0))
    G.add_edge(
        "torso",
        f"{side}_upper",
        joint=Revolute([0, 1, 0]),
        placement=placement(z=0.45, y=y),
        name=f"{side}_shoulder",
    )
    G.add_edge(
        f"{side}_upper",
        f"{side}_fore",
        joint=Revolute([0, 1, 0]),
        placement=placement(x=0.3),
        name=f"{side}_elbow",
    )
# a telescopic sensor mast on the torso: a prismatic joint
G.add_node("mast", inertia=rod(0.5, 0.2, axis=2))
G.add_edge(
    "torso", "mast", joint=Prismatic([0, 0, 1]), placement=placement(z=0.5), name="mast_lift"
)

model = MultibodyModel(G)
print(model.summary())
print("regular order :", model.body_names)
print("parent        :", model.parent)
print("supports of 'right_fore':", model.supports(model.body_index("right_fore")))
print("subtree of 'torso'      :", model.subtree(model.body_index("torso")))
print("v layout      :", {name: model.v_slice(name) for name in model.joint_names})


# %%
# Drawing the tree
# ----------------
# A layered layout: depth downwards, leaves spread left to right in the regular (depth-first)
# order, each parent centred over its children. Node labels give the regular index :math:`i`;
# edge labels the joint.
def tree_layout(model):
    pos, leaf = {}, [0]

    def place(i):
        kids = model.children(i)
        for k in kids:
            place(k)
        if kids:
            x = np.mean([pos[model.nodes[k]][0] for k in kids])
        else:
            x, leaf[0] = leaf[0], leaf[0] + 1
        pos[model.nodes[i]] = (x, -len(model.supports(i)))

    roots = [i for i in range(model.n_bodies) if model.parent[i] < 0]
    for r in roots:
        place(r)
    pos[model.root] = (np.mean([pos[model.nodes[r]][0] for r in roots]), 0)
    return pos


def draw(model, ax, edge_labels=True, font_size=8):
    pos = tree_layout(model)
    labels = {node: f"{i}" for i, node in enumerate(model.nodes)}
    labels[model.root] = "base"
    colors = ["lightgray" if n == model.root else "tab:orange" for n in model.graph]
    nx.draw(
        model.graph,
        pos,
        ax=ax,
        labels=labels,
        node_color=colors,
        node_size=320,
        font_size=font_size,
        arrowsize=8,
    )
    if edge_labels:
        names = {(u, v): d.get("name", "") for u, v, d in model.graph.edges(data=True)}
        nx.draw_networkx_edge_labels(
            model.graph, pos, edge_labels=names, ax=ax, font_size=font_size - 1
        )


fig, ax = plt.subplots(figsize=(7, 4))
draw(model, ax)
ax.set_title("hand-built robot: bodies numbered in regular order")
show_or_save()

# %%
# Loading a URDF
# --------------
# :func:`~geomech.multibody.load_urdf` reads links, joints, origins, axes and inertials;
# links welded by fixed joints are merged into one body. The shipped ``jvrc1`` is the JVRC-1
# humanoid (44 revolute joints, floating base); ``robots.load`` finds it by name. Its joint
# order is the one Pinocchio uses for the same file.
jvrc = robots.load("jvrc1")
print(jvrc.summary())
print("first joints:", jvrc.joint_names[:8])

fig, ax = plt.subplots(figsize=(9, 5))
draw(jvrc, ax, edge_labels=False, font_size=6)
ax.set_title("JVRC-1 humanoid (URDF): floating base, 45 bodies")
show_or_save()

# %%
# The same two robots in space, with :func:`geomech.plot.draw_robot`: each body is drawn from
# its parent's frame origin through its joint frame to its own frame origin. The body frames
# are drawn as triads (:math:`x` red, :math:`y` green, :math:`z` blue) on the hand-built robot;
# on the 45 bodies of the humanoid they would hide it, so ``draw_robot`` leaves them out on
# models of more than 12 bodies unless ``frames=True``. The humanoid stands in its neutral
# configuration; the hand-built robot has its left shoulder raised.
from geomech.plot import draw_robot

fig = plt.figure(figsize=(10, 5))
q_arms = model.neutral()
q_arms[model.q_slice("left_shoulder")] = -1.2
draw_robot(model, q_arms, ax=fig.add_subplot(1, 2, 1, projection="3d"), title="hand-built robot")
draw_robot(
    jvrc,
    jvrc.neutral(),
    ax=fig.add_subplot(1, 2, 2, projection="3d"),
    title="JVRC-1, neutral configuration",
)
fig.tight_layout()
show_or_save()

# %%
# Mass matrix, inverse and forward dynamics
# -----------------------------------------
# ``crba`` gives :math:`H(q)`; ``rnea`` the torques for given accelerations
# (:math:`\tau = H a + c(q, v) + g(q)`); ``aba`` the accelerations for given torques. They are
# inverse to each other, and :math:`H` is symmetric positive definite.
rng = np.random.default_rng(0)
q = model.random_configuration(rng)
v = rng.normal(size=model.nv)
a = rng.normal(size=model.nv)

H = crba(model, q)
tau = rnea(model, q, v, a)
print(
    "H symmetric:",
    np.allclose(H, H.T),
    " eigenvalues > 0:",
    bool(np.all(np.linalg.eigvalsh(H) > 0)),
)
print("aba(rnea(a)) - a:", np.abs(aba(model, q, v, tau) - a).max())
print("gravity-compensation torques at rest:", np.round(rnea(model, q, 0 * v, 0 * a), 3) + 0.0)

# %%
# The tree shows in the sparsity of :math:`H`: :math:`H_{ij} = \Phi_i^\top I^C_{\lceil ij\rceil}
# \Phi_j` is zero unless one of the bodies supports the other (seed 001 eq. 17): the two arms do not
# couple. Some related entries vanish by geometry as well (the mast slides along the waist axis, so
# ``H[0, 5] = 0``). For the humanoid the two legs, the arms and the head are unrelated branches.
Hj = crba(jvrc, jvrc.random_configuration(rng))
fig, axes = plt.subplots(1, 2, figsize=(9, 4))
axes[0].imshow(np.abs(H) > 1e-12, cmap="Greys")
axes[0].set_title(r"hand-built robot: $H_{ij} \neq 0$")
axes[1].imshow(np.abs(Hj) > 1e-12, cmap="Greys")
axes[1].set_title(f"JVRC-1: {np.mean(np.abs(Hj) > 1e-12):.0%} of H nonzero")
for axis in axes:
    axis.set_xlabel("column j (joint speed index)")
    axis.set_ylabel("row i (joint speed index)")
plt.tight_layout()
show_or_save()

# %%
# A short simulation
# ------------------
# Forward dynamics with semi-implicit Euler steps on the configuration manifold,
# :math:`v \leftarrow v + h\,\mathrm{aba}(q, v, \tau)`, :math:`q \leftarrow q \oplus h v`
# (``model.integrate``). Only the mast is
# actuated, by its gravity-compensation force :math:`g(q)` (``gravity_forces``); the arms swing
# freely under gravity and set the waist turning by reaction.
h, steps = 1e-3, 2000
q, v = model.neutral(), np.zeros(model.nv)
q[model.q_slice("left_shoulder")] = -1.2
history = [q.copy()]
mast = model.v_slice("mast_lift")
for _ in range(steps):
    tau = np.zeros(model.nv)
    tau[mast] = gravity_forces(model, q)[mast]
    v = v + h * aba(model, q, v, tau)
    q = model.integrate(q, v, h)
    history.append(q.copy())
history = np.array(history)
t = h * np.arange(steps + 1)

fig, ax = plt.subplots(figsize=(7, 3.5))
for name in ("waist", "left_shoulder", "left_elbow", "right_shoulder", "mast_lift"):
    ax.plot(t, history[:, model.q_slice(name)], label=name)
ax.set_xlabel(r"$t$ (s)")
ax.set_ylabel(r"joint position $q$ (rad; m for the mast)")
ax.legend(fontsize=8)
ax.set_title("free motion of the hand-built robot")
plt.tight_layout()
show_or_save()
