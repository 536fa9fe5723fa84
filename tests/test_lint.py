"""The code base passes ruff (style, imports, numpydoc docstring rules) as configured."""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean():
    # the interpreter's own ruff first (a venv's bin need not be on PATH), then PATH's
    if importlib.util.find_spec("ruff") is not None:
        ruff = [sys.executable, "-m", "ruff"]
    elif shutil.which("ruff") is not None:
        ruff = [shutil.which("ruff")]
    else:
        pytest.skip("ruff is not installed (it is part of the `test` extra)")
    proc = subprocess.run(
        [*ruff, "check", "--output-format", "concise", str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_python_version_supported():
    assert sys.version_info >= (3, 10)


def test_ruff_format_clean():
    """The tree is formatted (``ruff format --check``, the pre-commit hook's check)."""
    if importlib.util.find_spec("ruff") is not None:
        ruff = [sys.executable, "-m", "ruff"]
    elif shutil.which("ruff") is not None:
        ruff = [shutil.which("ruff")]
    else:
        pytest.skip("ruff is not installed (it is part of the `test` extra)")
    proc = subprocess.run(
        [*ruff, "format", "--check", str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
