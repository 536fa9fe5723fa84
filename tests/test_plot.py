"""geomech.plot: stick figures, frames and animations, checked against hand-derived positions."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from geomech import forward_kinematics, robots, simulate  # noqa: E402
from geomech.errors import DimensionError, ModelError  # noqa: E402
from geomech.plot import animate, animation_html, draw_frame, draw_robot  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def pendulum_points(q, l1=1.0, l2=1.0):
    """Joint positions of the double pendulum (revolute about y, hanging along -z)."""
    t1, t12 = q[0], q[0] + q[1]
    elbow = l1 * np.array([-np.sin(t1), 0.0, -np.cos(t1)])
    tip = elbow + l2 * np.array([-np.sin(t12), 0.0, -np.cos(t12)])
    return elbow, tip


def line_points(ax):
    return np.concatenate([np.array(line.get_data_3d()).T for line in ax.lines])


def test_double_pendulum_figure_matches_hand_derived_positions():
    model = robots.double_pendulum()
    q = np.array([0.7, -1.1])
    ax = draw_robot(model, q, frames=False)
    elbow, _ = pendulum_points(q)
    pts = line_points(ax)
    assert np.min(np.linalg.norm(pts - elbow, axis=1)) < 1e-12  # the elbow is drawn
    assert np.min(np.linalg.norm(pts, axis=1)) < 1e-12  # the shoulder at the origin
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_zlabel()) == ("x (m)", "y (m)", "z (m)")
    x0, x1 = ax.get_xlim()
    z0, z1 = ax.get_zlim()
    assert x1 - x0 == pytest.approx(z1 - z0)  # equal scaling
    assert x0 <= elbow[0] <= x1 and z0 <= elbow[2] <= z1


def test_frames_are_the_body_axes():
    model = robots.double_pendulum()
    q = np.array([0.3, 0.4])
    ax = draw_robot(model, q, frame_scale=0.25)
    T = forward_kinematics(model, q)
    triads = [np.array(line.get_data_3d()).T for line in ax.lines[-6:]]  # 2 bodies x 3 axes
    for i in range(2):
        for k in range(3):
            start, end = triads[3 * i + k]
            assert np.allclose(start, T[i, :3, 3]) and np.allclose(end - start, 0.25 * T[i, :3, k])
    colors = [line.get_color() for line in ax.lines[-3:]]
    assert colors == ["tab:red", "tab:green", "tab:blue"]


@pytest.mark.parametrize("name", robots.names())
def test_every_shipped_model_draws(name):
    model = robots.load(name)
    q = model.random_configuration(0)
    ax = draw_robot(model, q, frames=True)  # triads on every body, however many
    origins = forward_kinematics(model, q)[:, :3, 3]
    lo = np.array([ax.get_xlim()[0], ax.get_ylim()[0], ax.get_zlim()[0]])
    hi = np.array([ax.get_xlim()[1], ax.get_ylim()[1], ax.get_zlim()[1]])
    assert np.all(origins >= lo - 1e-9) and np.all(origins <= hi + 1e-9)
    assert len(ax.lines) >= model.n_bodies + 3 * (model.n_bodies + 1)


def test_welded_links_are_drawn():
    model = robots.load("ur5")  # tool0 is welded to wrist_3
    q = model.neutral()
    ax = draw_robot(model, q, frames=False)
    T = forward_kinematics(model, q)
    node = model.nodes[-1]
    (_, pose), *_ = [(n, p) for n, p in model.graph.nodes[node]["links"] if np.any(p[:3, 3])]
    tool = (T[-1] @ pose)[:3, 3]
    assert np.min(np.linalg.norm(line_points(ax) - tool, axis=1)) < 1e-12


def test_animation_follows_the_simulation():
    model = robots.double_pendulum()
    res = simulate(model, [1.0, 0.0], [0.0, 0.0], t_final=1.0, dt=0.05)
    anim = animate(model, res, max_frames=6)
    frames = list(anim.new_frame_seq())
    assert len(frames) == 6
    artists = anim._func(3)  # frame 3: sample round(3 * 20 / 5) = 12 of 21
    k = 12
    elbow, _ = pendulum_points(res.q[k])
    polyline = np.array(artists[1].get_data_3d()).T  # body 2: its frame is at the elbow
    assert np.allclose(polyline[2], elbow, atol=1e-12)
    assert artists[-1].get_text() == f"double_pendulum, t = {res.t[k]:.2f} s"
    html = anim.to_jshtml()
    assert "<img" in html or "data:image/png" in html


def test_animation_html_and_array_input():
    model = robots.double_pendulum()
    q = np.array([[0.0, 0.0], [0.5, 0.2], [1.0, 0.4]])
    html = animation_html(model, q, t=[0.0, 0.5, 1.0], max_frames=3)
    assert "data:image/png" in html and html.count("frames[") >= 3
    assert not plt.get_fignums()  # the figure is closed


def test_validators():
    model = robots.double_pendulum()
    with pytest.raises(ModelError, match="Expected a geomech MultibodyModel"):
        draw_robot("ur5", [0.0])
    with pytest.raises(DimensionError):
        draw_robot(model, [0.0, 0.0, 0.0])
    with pytest.raises(DimensionError, match="one configuration"):
        draw_robot(model, np.zeros((2, 2)))
    _, flat = plt.subplots()
    with pytest.raises(ModelError, match="3-D matplotlib axes"):
        draw_robot(model, [0.0, 0.0], ax=flat)
    ax = plt.figure().add_subplot(projection="3d")
    with pytest.raises(DimensionError):
        draw_frame(ax, np.eye(3))
    with pytest.raises(DimensionError, match="one trajectory"):
        animate(model, np.zeros(2))
    with pytest.raises(DimensionError, match="Expected 2 times"):
        animate(model, np.zeros((2, 2)), t=[0.0, 1.0, 2.0])
    with pytest.raises(ModelError, match="max_frames"):
        animate(model, np.zeros((2, 2)), max_frames=0)
