"""The ``geomech`` command line: default model, groups, URDF paths and usage errors."""

import subprocess
import sys

from geomech.cli import DEFAULT_MODEL, main
from geomech.multibody import robots


def test_inspect_default_model_passes(capsys):
    assert main(["inspect"]) == 0
    out = capsys.readouterr().out
    assert f"'{DEFAULT_MODEL}'" in out and "checks passed" in out and "FAILED" not in out


def test_inspect_group(capsys):
    assert main(["inspect", "SE3"]) == 0
    assert "SE(3): dim 6" in capsys.readouterr().out


def test_inspect_urdf_path(capsys):
    assert main(["inspect", str(robots.urdf_path("ur5"))]) == 0
    assert "nv = 6" in capsys.readouterr().out


def test_inspect_unknown_model_is_a_usage_error(capsys):
    assert main(["inspect", "no-such-robot"]) == 2
    err = capsys.readouterr().err
    assert "no-such-robot" in err and "humanoid" in err


def test_python_dash_m_runs():
    proc = subprocess.run(
        [sys.executable, "-m", "geomech", "inspect", "double_pendulum"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "checks passed" in proc.stdout
