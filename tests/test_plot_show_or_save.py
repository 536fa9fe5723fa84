"""geomech.plot.show_or_save: windows with a display, PNG files without one, nothing in the
gallery."""

import os
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import geomech  # noqa: E402
from geomech.plot import FIGURES_ENV, show_or_save  # noqa: E402

ROOT = Path(geomech.__file__).resolve().parents[1]


def _figures(n):
    for k in range(n):
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, k])


def test_headless_saves_every_open_figure_numbered_on(tmp_path, capsys):
    _figures(2)
    first = show_or_save(tmp_path)
    _figures(1)
    second = show_or_save(tmp_path)
    names = [p.name for p in first + second]
    assert len(set(names)) == 3 and all(n.endswith(".png") for n in names)
    assert all((tmp_path / n).stat().st_size > 0 for n in names)
    assert plt.get_fignums() == []
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"2 figures saved in {tmp_path}: ") and out[1].startswith("1 figure")


def test_nothing_open_writes_nothing(tmp_path, capsys):
    plt.close("all")
    assert show_or_save(tmp_path) == [] and list(tmp_path.iterdir()) == []
    assert capsys.readouterr().out == ""


def test_the_environment_variable_and_the_script_name(tmp_path):
    """A script run headless saves <script>_<n>.png where GEOMECH_FIGURES says, and says so."""
    script = tmp_path / "my_plot.py"
    script.write_text("import matplotlib.pyplot as plt\nfrom geomech.plot import show_or_save\n"
                      "plt.plot([0, 1])\nshow_or_save()\n")  # fmt: skip
    out_dir = tmp_path / "figures"
    env = {"MPLBACKEND": "Agg", FIGURES_ENV: str(out_dir), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env={**os.environ, **env}, check=True, timeout=120)  # fmt: skip
    assert proc.stdout == f"1 figure saved in {out_dir}: my_plot_1.png\n"
    assert (out_dir / "my_plot_1.png").is_file()
    del env[FIGURES_ENV]
    inherited = {k: v for k, v in os.environ.items() if k != FIGURES_ENV}  # conftest sets it
    subprocess.run([sys.executable, str(script)], env={**inherited, **env},
                   check=True, timeout=120, capture_output=True)  # fmt: skip
    assert (tmp_path / "my_plot_1.png").is_file()  # next to the script


def test_in_the_gallery_it_leaves_the_figures_open(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "sphinx_gallery.gen_rst", object())
    _figures(1)
    try:
        assert show_or_save(tmp_path) == [] and len(plt.get_fignums()) == 1
    finally:
        plt.close("all")


def test_an_interactive_backend_shows(monkeypatch, tmp_path):
    shown = []
    monkeypatch.setattr(plt, "get_backend", lambda: "TkAgg")
    monkeypatch.setattr(plt, "show", lambda *a, **k: shown.append(True))
    _figures(1)
    try:
        assert show_or_save(tmp_path) == [] and shown == [True]
    finally:
        plt.close("all")


@pytest.mark.parametrize("bodies, drawn", [(6, True), (45, False)])
def test_draw_robot_frames_by_default_only_on_small_models(bodies, drawn):
    from geomech import robots
    from geomech.plot import MAX_BODIES_WITH_FRAMES, draw_robot

    model = robots.serial_chain(bodies, rng=0)
    ax = draw_robot(model, model.neutral())
    n_default = len(ax.lines)
    ax = draw_robot(model, model.neutral(), frames=True)
    n_frames = len(ax.lines)
    plt.close("all")
    assert (n_default == n_frames) == drawn
    assert (bodies <= MAX_BODIES_WITH_FRAMES) == drawn
