"""The code base passes ruff (style, imports, numpydoc docstring rules) as configured."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean():
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (it is part of the `test` extra)")
    proc = subprocess.run(
        [ruff, "check", "--output-format", "concise", str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_python_version_supported():
    assert sys.version_info >= (3, 10)
