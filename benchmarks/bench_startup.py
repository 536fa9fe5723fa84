"""Start-up costs: cold compile per kernel family, first output of ``geomech inspect``, import.

Prints (issue 29, items 1 and 2):

* ``import geomech``: its cumulative time from ``python -X importtime`` (bytecode cached), the
  best and the median of ``--repeat`` processes;
* cold compile per kernel family (:mod:`geomech._precompile`): each family compiled alone in a
  fresh copy of the package (an empty numba cache), wall and CPU seconds;
* cold ``geomech inspect`` (default model, a fresh copy): the time to its first output line,
  to the end, the CPU time of the command and of its compile workers, and the compile time
  it reports; then warm ``geomech inspect`` (the same copy, cache filled), ``--repeat`` times;
* with ``--docs``: the documentation build (``python -m sphinx -b html``, in a temporary copy of
  ``docs/`` and ``tutorials/``) with the geomech that Python imports and its numba cache, and
  the time of each tutorial (sphinx-gallery's ``sg_execution_times.rst``).

The machine is shared: every line carries the load average (1 min) when it was measured.
The cold copies live in a temporary directory; the checkout's own cache is not touched.

Run: ``python benchmarks/bench_startup.py`` (``--quick``: one cold family and one cold
inspect, ``--no-cold`` to skip cold measurements, ``--docs`` to add the documentation build).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import selectors
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def fresh_copy(tmp: Path, name: str) -> Path:
    """A copy of the package without any numba cache or bytecode: its own cold cache."""
    dest = tmp / name
    shutil.copytree(
        ROOT / "geomech",
        dest / "geomech",
        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"),
    )
    # bytecode, not kernels: the cold measurements are about numba, not about .pyc files
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(dest / "geomech")], check=True)
    return dest


def env_for(path: Path, **extra) -> dict:
    env = {**os.environ, "PYTHONPATH": str(path), "MPLBACKEND": "Agg", **extra}
    env.pop("NUMBA_CACHE_DIR", None)  # the cache next to the copied sources
    return env


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_lines(cmd, env, cwd=None):
    """Run ``cmd``; ``(status, [(seconds, stream, line)], wall, cpu)`` (cpu: with children)."""
    cpu0, t0 = children_cpu(), time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "out")
    sel.register(proc.stderr, selectors.EVENT_READ, "err")
    lines, buf, open_streams = [], {"out": b"", "err": b""}, 2
    while open_streams:
        for key, _ in sel.select():
            data = os.read(key.fileobj.fileno(), 65536)
            if not data:
                sel.unregister(key.fileobj)
                open_streams -= 1
                continue
            buf[key.data] += data
            while b"\n" in buf[key.data]:
                line, buf[key.data] = buf[key.data].split(b"\n", 1)
                lines.append((time.perf_counter() - t0, key.data, line.decode(errors="replace")))
    status = proc.wait()
    return status, lines, time.perf_counter() - t0, children_cpu() - cpu0


# ----------------------------------------------------------------------------------------
def bench_import(repeat: int) -> None:
    print(f"\n== import geomech (python -X importtime, bytecode cached; {load()})")
    env = env_for(ROOT)
    subprocess.run([sys.executable, "-c", "import geomech"], env=env, cwd=ROOT, check=True)
    times = []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import geomech"],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stderr
        line = [x for x in out.splitlines() if x.rstrip().endswith("| geomech")][-1]
        times.append(int(line.split("|")[1]) / 1e6)
    print(
        f"  import geomech: best {1e3 * min(times):.1f} ms, median "
        f"{1e3 * statistics.median(times):.1f} ms over {repeat} processes ({load()})"
    )
    code = (
        "import time; t = time.perf_counter(); import geomech; geomech.rnea; "
        "print(time.perf_counter() - t)"
    )
    t = [
        float(
            subprocess.run(
                [sys.executable, "-c", code],
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        for _ in range(repeat)
    ]
    print(
        f"  import geomech; geomech.rnea (numba and the dynamics kernels): best "
        f"{1e3 * min(t):.0f} ms, median {1e3 * statistics.median(t):.0f} ms ({load()})"
    )


FAMILY_CODE = """\
import json, time
from geomech._precompile import FAMILIES, _run
t, c = time.perf_counter(), time.process_time()
_run({name!r})
print(json.dumps([time.perf_counter() - t, time.process_time() - c]))
"""


def bench_families(tmp: Path, names) -> None:
    sys.path.insert(0, str(ROOT))
    from geomech._precompile import FAMILIES

    names = names or list(FAMILIES)
    print("\n== cold compile per kernel family (each alone, empty numba cache)")
    print(f"  {'family':<12} {'wall s':>7} {'cpu s':>7}  functions")
    total_cpu = 0.0
    for name in names:
        copy = fresh_copy(tmp, f"family-{name}")
        out = subprocess.run(
            [sys.executable, "-c", FAMILY_CODE.format(name=name)],
            env=env_for(copy),
            cwd=copy,  # `python -c` puts the working directory first on sys.path
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        wall, cpu = json.loads(out.splitlines()[-1])
        total_cpu += cpu
        print(
            f"  {name:<12} {wall:7.1f} {cpu:7.1f}  {FAMILIES[name].title}  ({load()})", flush=True
        )
        shutil.rmtree(copy)
    print(f"  {'sum':<12} {'':>7} {total_cpu:7.1f}")


def bench_inspect(tmp: Path, repeat: int, cold: bool) -> None:
    """Cold then warm in a fresh copy; without ``cold``, warm in the checkout itself."""
    copy = fresh_copy(tmp, "inspect") if cold else ROOT
    env = env_for(copy)
    cmd = [sys.executable, "-m", "geomech", "inspect"]
    if not cold:
        run_lines(cmd, env, cwd=copy)  # fill the checkout's cache if it is not yet
    if cold:
        print(f"\n== cold geomech inspect (default model, empty numba cache; {load()})")
        status, lines, wall, cpu = run_lines(cmd, env, cwd=copy)
        first = lines[0][0] if lines else float("nan")
        print(f"  first output line after {first:.2f} s: {lines[0][2][:90]!r}")
        for t, stream, line in lines:
            if stream == "err":
                print(f"  {t:7.1f} s  {line[:110]}")
        compiled = [x for _, s, x in lines if "kernels compiled first in" in x]
        print(f"  exit {status}, wall {wall:.1f} s, CPU {cpu:.1f} s (command and compile workers)")
        if compiled:
            print(f"  report: {compiled[0].strip()}")
        print(f"  ({load()})", flush=True)
    print(f"\n== warm geomech inspect (cache filled; {load()})")
    walls, firsts = [], []
    for _ in range(repeat):
        status, lines, wall, cpu = run_lines(cmd, env, cwd=copy)
        if any(s == "err" for _, s, _ in lines):
            print("  (stderr: " + "; ".join(x for _, s, x in lines if s == "err")[:200] + ")")
        walls.append(wall)
        firsts.append(lines[0][0] if lines else float("nan"))
    print(
        f"  wall: best {min(walls):.2f} s, median {statistics.median(walls):.2f} s; first line: "
        f"median {statistics.median(firsts):.2f} s; over {repeat} runs ({load()})"
    )


def bench_docs(tmp: Path) -> None:
    env = {**os.environ, "MPLBACKEND": "Agg"}
    where = subprocess.run(
        [sys.executable, "-c", "import geomech; print(geomech.__file__)"],
        env=env,
        cwd=tmp,
        capture_output=True,
        text=True,
    ).stdout.strip()
    print(f"\n== documentation build (geomech from {where} and its numba cache; {load()})")
    src = tmp / "docs-src"
    shutil.copytree(
        ROOT / "docs",
        src / "docs",
        ignore=shutil.ignore_patterns("_build", "generated", "auto_tutorials"),
    )
    shutil.copytree(ROOT / "tutorials", src / "tutorials")
    out = tmp / "docs-html"
    t0, cpu0 = time.perf_counter(), children_cpu()
    status = subprocess.call(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(src / "docs"), str(out)],
        env=env,
        cwd=tmp,  # not the checkout: `python -m` puts the working directory on sys.path
    )
    wall = time.perf_counter() - t0
    cpu = children_cpu() - cpu0
    print(f"  sphinx exit {status}, {wall:.0f} s = {wall / 60:.1f} min, CPU {cpu:.0f} s ({load()})")
    times = src / "docs" / "auto_tutorials" / "sg_execution_times.rst"
    if times.exists():  # rows "* - :ref:`sphx_glr_auto_tutorials_NAME.py` ..." then "- MM:SS.sss"
        rows = re.findall(
            r":ref:`sphx_glr_auto_tutorials_(\w+)\.py`[^\n]*\n\s*- ([\d:.]+)", times.read_text()
        )
        for name, t in sorted(rows, key=lambda r: r[1], reverse=True):
            print(f"    {t:>9}  {name}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="warm repetitions (default 5)")
    parser.add_argument("--quick", action="store_true", help="one family, fewer repetitions")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold measurements")
    parser.add_argument("--docs", action="store_true", help="add the documentation build")
    parser.add_argument("--families", nargs="*", default=None, help="families (default all)")
    args = parser.parse_args(argv)
    repeat = 2 if args.quick else args.repeat
    print(f"bench_startup: {os.cpu_count()} CPUs, {load()}, python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="geomech-startup-") as tmp:
        tmp = Path(tmp)
        bench_import(repeat)
        if not args.no_cold:
            bench_families(tmp, ["kinematics"] if args.quick else args.families)
        bench_inspect(tmp, repeat, cold=not args.no_cold)
        if args.docs:
            bench_docs(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
