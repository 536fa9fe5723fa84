r"""Pictures of robots: stick figures with body frames, and animations of simulations.

:func:`draw_robot` draws a :class:`~geomech.multibody.model.tree.MultibodyModel` in a
configuration with matplotlib's 3-D axes: a polyline per body from its parent's frame
origin through its joint frame origin to its own frame origin, a dot per moving joint, and
the body frames as red-green-blue triads (:math:`x, y, z` axes); welded links (the
``links`` node attribute of URDF and Pinocchio imports) hang from their body by thin lines.
:func:`animate` turns the configurations of a :func:`~geomech.simulate` result into a
:class:`matplotlib.animation.FuncAnimation`, and :func:`animation_html` into a
self-contained HTML player (``FuncAnimation.to_jshtml``). Axes are in metres, labelled, and
equally scaled so that the robot is not distorted. :func:`show_or_save` ends a script's
plotting: windows where there is a display, PNG files (and a line saying where) where there
is none.

References
----------
Featherstone 2008, §4.1 (the tree and its frames); seed 001 §1.2.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

from geomech._validation import as_array
from geomech.errors import DimensionError, ModelError
from geomech.multibody.algorithms.kinematics import forward_kinematics
from geomech.multibody.model.system import MultibodySystem
from geomech.multibody.model.tree import MultibodyModel

__all__ = ["draw_frame", "draw_robot", "animate", "animation_html", "show_or_save", "FIGURES_ENV",
           "MAX_BODIES_WITH_FRAMES"]  # fmt: skip

#: Environment variable naming the folder where :func:`show_or_save` saves the figures of a
#: script run without a display (default: the script's own folder).
FIGURES_ENV = "GEOMECH_FIGURES"

#: matplotlib backends that cannot open a window (``plt.show()`` does nothing with them).
_NON_INTERACTIVE = frozenset({"agg", "cairo", "pdf", "pgf", "ps", "svg", "template"})

#: Figures saved so far per (folder, script name), so that later calls number on.
_SAVED: dict[tuple[str, str], int] = {}

#: Largest number of bodies for which :func:`draw_robot` draws the body frames by default.
MAX_BODIES_WITH_FRAMES = 12

#: Colours of the x, y and z axes of a frame triad.
AXIS_COLORS = ("tab:red", "tab:green", "tab:blue")


def _check_model(model) -> MultibodyModel:
    """The tree to draw: the model itself, or a closed model's spanning tree (same q)."""
    if not isinstance(model, MultibodySystem):
        raise ModelError(f"Expected a geomech MultibodyModel, got {type(model).__name__}.")
    return model.spanning_tree


def _axes3d(ax, figsize=(5.0, 5.0)):
    import matplotlib.pyplot as plt

    if ax is None:
        fig = plt.figure(figsize=figsize)
        ax = fig.add_subplot(projection="3d")
    elif getattr(ax, "name", "") != "3d":
        raise ModelError(f"Expected 3-D matplotlib axes (projection='3d'), got {ax!r}.")
    return ax


class _Skeleton:
    """World points of a model's stick figure for a batch of configurations."""

    def __init__(self, model: MultibodyModel, q: np.ndarray):
        self.model = model
        T = forward_kinematics(model, q)  # (..., N, 4, 4)
        self.T = T
        lead = T.shape[:-3]
        parent_T = np.empty_like(T)
        for i, p in enumerate(model.parent):
            parent_T[..., i, :, :] = np.eye(4) if p < 0 else T[..., p, :, :]
        self.joint_T = parent_T @ model.placements  # joint frames in the world
        self.polylines = np.stack(
            [parent_T[..., :3, 3], self.joint_T[..., :3, 3], T[..., :3, 3]], axis=-2
        )  # (..., N, 3 points, 3)
        links = []  # (body index, pose of the link in the body) of welded links
        for i, node in enumerate(model.nodes):
            for _name, pose in model.graph.nodes[node].get("links", []) or []:
                pose = np.asarray(pose, dtype=float)
                if np.linalg.norm(pose[:3, 3]) > 1e-12:
                    links.append((i, pose))
        self.link_lines = (
            np.stack([np.stack([T[..., i, :3, 3], (T[..., i, :, :] @ pose)[..., :3, 3]], -2)
                      for i, pose in links], axis=-3)
            if links else np.zeros(lead + (0, 2, 3))
        )  # fmt: skip

    def points(self) -> np.ndarray:
        """Every drawn point, flattened to (M, 3) (for the axis limits)."""
        pts = [self.polylines.reshape(-1, 3), self.link_lines.reshape(-1, 3), np.zeros((1, 3))]
        return np.concatenate(pts)


def _limits(ax, points: np.ndarray, pad: float = 0.08) -> float:
    """Equal scaling around the points; returns the largest extent (m)."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    centre, half = 0.5 * (lo + hi), 0.5 * float(np.max(hi - lo))
    half = max(half, 0.05) * (1.0 + pad)
    ax.set_xlim(centre[0] - half, centre[0] + half)
    ax.set_ylim(centre[1] - half, centre[1] + half)
    ax.set_zlim(centre[2] - half, centre[2] + half)
    ax.set_box_aspect((1.0, 1.0, 1.0))
    from matplotlib.ticker import MaxNLocator

    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):  # more ticks than this and their labels collide
        axis.set_major_locator(MaxNLocator(4))
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_zlabel("z (m)")
    return 2.0 * half


def draw_frame(ax, T, scale: float = 0.1, *, lw: float = 1.5, alpha: float = 1.0) -> list:
    """Draw a frame as a red-green-blue triad of its x, y, z axes.

    Parameters
    ----------
    ax : mpl_toolkits.mplot3d.axes3d.Axes3D
    T : array_like, shape (4, 4)
        Pose of the frame in the axes' coordinates.
    scale : float
        Length of the axis arrows (m).
    lw, alpha : float
        Line width and opacity.

    Returns
    -------
    list of mpl_toolkits.mplot3d.art3d.Line3D
        The three axis lines.

    Raises
    ------
    DimensionError, NonFiniteError
        If ``T`` is not a finite 4×4 array.
    ModelError
        If ``ax`` is not a 3-D axes.

    Examples
    --------
    >>> import numpy as np
    >>> import matplotlib.pyplot as plt
    >>> from geomech.plot import draw_frame
    >>> ax = plt.figure().add_subplot(projection="3d")
    >>> lines = draw_frame(ax, np.eye(4), scale=0.5)
    >>> [line.get_color() for line in lines]
    ['tab:red', 'tab:green', 'tab:blue']
    >>> plt.close("all")
    """
    ax = _axes3d(ax)
    T = as_array(T, "T", (4, 4))
    if T.ndim != 2:
        raise DimensionError(f"Expected `T` of shape (4, 4), got {T.shape}.")
    o = T[:3, 3]
    lines = []
    for k in range(3):
        e = o + scale * T[:3, k]
        (line,) = ax.plot(*np.stack([o, e]).T, color=AXIS_COLORS[k], lw=lw, alpha=alpha)
        lines.append(line)
    return lines


def draw_robot(
    model,
    q,
    ax=None,
    *,
    frames: bool | None = None,
    frame_scale: float | None = None,
    color: str = "0.25",
    title: str | None = None,
):
    """Draw a robot as a stick figure with its body frames, in configuration ``q``.

    Parameters
    ----------
    model : MultibodyModel
    q : array_like, shape (nq,)
    ax : mpl_toolkits.mplot3d.axes3d.Axes3D, optional
        Axes to draw in; a new 5×5-inch figure by default.
    frames : bool, optional
        Draw the body frames (x red, y green, z blue); by default only on models of at most
        :data:`MAX_BODIES_WITH_FRAMES` bodies (on a humanoid the triads hide the figure).
    frame_scale : float, optional
        Length of the frame axes (m); default 8 % of the figure's extent.
    color : str
        Colour of the links.
    title : str, optional
        Axes title (default: the model's name, if any).

    Returns
    -------
    mpl_toolkits.mplot3d.axes3d.Axes3D
        With axes labelled ``x (m)``, ``y (m)``, ``z (m)`` and equal scaling.

    Raises
    ------
    ModelError
        If ``model`` is not a :class:`MultibodyModel` or ``ax`` is not a 3-D axes.
    DimensionError, NonFiniteError
        If ``q`` is not a finite vector of length ``nq``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from geomech import robots
    >>> from geomech.plot import draw_robot
    >>> model = robots.load("ur5")
    >>> ax = draw_robot(model, model.neutral())
    >>> ax.get_xlabel(), ax.get_zlabel(), len(ax.lines) > model.n_bodies
    ('x (m)', 'z (m)', True)
    >>> plt.close("all")
    """
    model = _check_model(model)
    q = as_array(q, "q", (model.nq,))
    if q.ndim != 1:
        raise DimensionError(
            f"Expected one configuration `q` of shape ({model.nq},), got {q.shape}."
        )
    ax = _axes3d(ax)
    sk = _Skeleton(model, q)
    extent = _limits(ax, sk.points())
    scale = 0.08 * extent if frame_scale is None else float(frame_scale)
    for line in sk.polylines:
        ax.plot(*line.T, color=color, lw=2.0, solid_capstyle="round")
    moving = [i for i, j in enumerate(model.joints) if j.nv]
    if moving:
        J = sk.joint_T[moving, :3, 3]
        ax.plot(*J.T, "o", color=color, ms=4, ls="none")
    for line in sk.link_lines:
        ax.plot(*line.T, color=color, lw=0.8, alpha=0.6)
    if frames is None:
        frames = model.n_bodies <= MAX_BODIES_WITH_FRAMES
    if frames:
        draw_frame(ax, np.eye(4), scale, lw=1.0, alpha=0.5)  # the world frame
        for T in sk.T:
            draw_frame(ax, T, scale)
    name = model.graph.graph.get("name")
    if title is not None or name:
        ax.set_title(title if title is not None else str(name))
    return ax


def _trajectory(model, result, t):
    q = getattr(result, "q", result)
    t = getattr(result, "t", t)
    q = as_array(q, "result.q", (model.nq,))
    if q.ndim != 2:
        raise DimensionError(
            f"Expected configurations of shape (T, {model.nq}) (one trajectory), got {q.shape}."
        )
    if t is None:
        t = np.arange(q.shape[0], dtype=float)
    t = as_array(t, "t")
    if t.shape != (q.shape[0],):
        raise DimensionError(f"Expected {q.shape[0]} times, got shape {t.shape}.")
    return t, q


def animate(
    model,
    result,
    *,
    t=None,
    fps: float = 20.0,
    max_frames: int = 80,
    frames: bool = True,
    figsize=(5.0, 5.0),
    color: str = "0.25",
):
    """Animate a robot along a trajectory (a :func:`~geomech.simulate` result).

    The frames are resampled to at most ``max_frames`` samples of the trajectory, evenly in
    time; the axes limits cover the whole motion (equal scaling, metres), and the title shows
    the time.

    Parameters
    ----------
    model : MultibodyModel
    result : SimulationResult or array_like, shape (T, nq)
        A result of :func:`~geomech.simulate` on ``model`` (its ``t`` and ``q``), or
        configurations.
    t : array_like, shape (T,), optional
        Times of the configurations when ``result`` is an array (default ``0, 1, ...``).
    fps : float
        Frames per second of the player.
    max_frames : int
        Largest number of frames.
    frames : bool
        Draw the body frames.
    figsize : tuple of float
        Figure size (inches).
    color : str
        Colour of the links.

    Returns
    -------
    matplotlib.animation.FuncAnimation
        ``.to_jshtml()`` gives an HTML player (see :func:`animation_html`);
        ``._fig`` is its figure.

    Raises
    ------
    ModelError
        If ``model`` is not a :class:`MultibodyModel` or ``max_frames < 1``.
    DimensionError, NonFiniteError
        If the configurations are not a finite ``(T, nq)`` array or ``t`` does not match.

    Examples
    --------
    >>> import numpy as np
    >>> import matplotlib.pyplot as plt
    >>> from geomech import robots, simulate
    >>> from geomech.plot import animate
    >>> model = robots.double_pendulum()
    >>> res = simulate(model, [1.0, 0.0], [0.0, 0.0], t_final=1.0, dt=0.05)
    >>> anim = animate(model, res, max_frames=5)
    >>> len(list(anim.new_frame_seq()))
    5
    >>> html = anim.to_jshtml()  # or anim.save("pendulum.gif"), or plt.show()
    >>> plt.close("all")
    """
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation

    model = _check_model(model)
    t, q = _trajectory(model, result, t)
    if int(max_frames) < 1:
        raise ModelError(f"Expected `max_frames` >= 1, got {max_frames!r}.")
    idx = np.unique(np.round(np.linspace(0, len(t) - 1, min(len(t), int(max_frames)))).astype(int))
    sk = _Skeleton(model, q[idx])
    fig = plt.figure(figsize=figsize)
    ax = fig.add_subplot(projection="3d")
    extent = _limits(ax, sk.points())
    scale = 0.08 * extent
    links = [ax.plot([], [], [], color=color, lw=2.0)[0] for _ in range(model.n_bodies)]
    welded = [ax.plot([], [], [], color=color, lw=0.8, alpha=0.6)[0]
              for _ in range(sk.link_lines.shape[-3])]  # fmt: skip
    triads = [[ax.plot([], [], [], color=c, lw=1.5)[0] for c in AXIS_COLORS]
              for _ in range(model.n_bodies if frames else 0)]  # fmt: skip
    if frames:
        draw_frame(ax, np.eye(4), scale, lw=1.0, alpha=0.5)
    title = ax.set_title("")
    name = model.graph.graph.get("name") or "robot"

    def update(k):
        for i, line in enumerate(links):
            line.set_data_3d(*sk.polylines[k, i].T)
        for j, line in enumerate(welded):
            line.set_data_3d(*sk.link_lines[k, j].T)
        for i, triad in enumerate(triads):
            T = sk.T[k, i]
            for a, line in enumerate(triad):
                line.set_data_3d(*np.stack([T[:3, 3], T[:3, 3] + scale * T[:3, a]]).T)
        title.set_text(f"{name}, t = {t[idx[k]]:.2f} s")
        return [*links, *welded, *(ln for tr in triads for ln in tr), title]

    update(0)
    return FuncAnimation(fig, update, frames=len(idx), interval=1000.0 / float(fps), blit=False)


def animation_html(model, result, **kwargs) -> str:
    """A self-contained HTML player of :func:`animate` (``FuncAnimation.to_jshtml``).

    The figure is closed afterwards, so that notebooks and scripts do not show it twice.

    Parameters
    ----------
    model : MultibodyModel
    result : SimulationResult or array_like, shape (T, nq)
    **kwargs
        Options of :func:`animate`.

    Returns
    -------
    str
        HTML (frames embedded as PNG images, JavaScript controls).

    Raises
    ------
    ModelError, DimensionError, NonFiniteError
        As :func:`animate`.

    Examples
    --------
    >>> from geomech import robots
    >>> from geomech.plot import animation_html
    >>> model = robots.double_pendulum()
    >>> html = animation_html(model, [[0.0, 0.0], [0.5, 0.5]], max_frames=2)
    >>> html.lstrip().startswith("<link") or "<img" in html
    True
    """
    import matplotlib.pyplot as plt

    anim = animate(model, result, **kwargs)
    try:
        return anim.to_jshtml(default_mode="loop")
    finally:
        plt.close(anim._fig)


def _script() -> tuple[str, Path]:
    """(name, folder) of the running script; ("figure", cwd) in a session or under ``-m``."""
    path = getattr(sys.modules.get("__main__"), "__file__", None)
    if path and Path(path).stem != "__main__":
        return Path(path).stem, Path(path).resolve().parent
    return "figure", Path.cwd()


def show_or_save(directory=None, *, dpi: float = 100) -> list[Path]:
    """Show the open figures in windows, or save them as PNG files where no window can open.

    ``plt.show()`` for scripts that also run headless, as the tutorials do. With an
    interactive matplotlib backend (a desktop session, a notebook) it is ``plt.show()``. With
    a non-interactive one (``Agg``: a server, a container, CI, ``MPLBACKEND=Agg``), where
    ``plt.show()`` does nothing, every open figure is saved as ``<script>_<n>.png`` — in
    ``directory``, else in the folder named by the environment variable ``GEOMECH_FIGURES``
    (:data:`FIGURES_ENV`), else next to the running script — one line says where, and the
    figures are closed. Inside a Sphinx-Gallery build it does nothing: the gallery collects
    the figures itself.

    Parameters
    ----------
    directory : str or os.PathLike, optional
        Folder for the PNG files (created if missing).
    dpi : float
        Resolution of the saved files, in dots per inch.

    Returns
    -------
    list of pathlib.Path
        The files written; empty when the figures were shown or left to the gallery.

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib.pyplot as plt
    >>> from geomech.plot import show_or_save
    >>> plt.switch_backend("Agg")  # no display: save
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0.0, 1.0], [0.0, 1.0])
    >>> with tempfile.TemporaryDirectory() as folder:  # doctest: +ELLIPSIS
    ...     paths = show_or_save(folder)
    ...     [p.name for p in paths], paths[0].stat().st_size > 0, plt.get_fignums()
    1 figure saved in ...: figure_1.png
    (['figure_1.png'], True, [])
    """
    import matplotlib.pyplot as plt

    if "sphinx_gallery.gen_rst" in sys.modules:  # the gallery scrapes the figures
        return []
    if plt.get_backend().lower() not in _NON_INTERACTIVE:
        plt.show()
        return []
    numbers = plt.get_fignums()
    if not numbers:
        return []
    name, here = _script()
    folder = Path(directory or os.environ.get(FIGURES_ENV) or here).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    key = (str(folder.resolve()), name)
    paths = []
    for number in numbers:
        _SAVED[key] = _SAVED.get(key, 0) + 1
        path = folder / f"{name}_{_SAVED[key]}.png"
        plt.figure(number).savefig(path, dpi=dpi)
        paths.append(path)
    plt.close("all")
    n = len(paths)
    print(f"{n} figure{'s' if n > 1 else ''} saved in {folder}: "
          f"{', '.join(p.name for p in paths)}")  # fmt: skip
    return paths
