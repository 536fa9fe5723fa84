"""Run every ``benchmarks/bench_*.py`` in turn (extra arguments are passed to each script).

Usage: ``python benchmarks/run.py [--quick]``. Exits non-zero if any benchmark fails.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    scripts = sorted(HERE.glob("bench_*.py"))
    failed = []
    for script in scripts:
        print(f"\n===== {script.name} =====", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.call([sys.executable, str(script), *args])
        print(f"===== {script.name}: exit {rc}, {time.perf_counter() - t0:.0f} s =====", flush=True)
        if rc:
            failed.append(script.name)
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
