"""Headless-browser check of the built site: the landing page and three tutorials.

Run after the HTML build (``.ci/run`` does): for each page, Chromium renders it with every
network request refused (a dead proxy), takes a screenshot into ``docs/_build/screenshots``
and dumps the DOM after its scripts ran. The check fails if a page is blank, if its math was
not typeset by the site's own MathJax (no ``mjx-container`` elements, i.e. it would have needed
a CDN), or if expected text is missing. Without a Chromium binary the check is skipped with a
message (``--require`` makes that an error).

Usage: ``python docs/screenshot_check.py [--require] [build_dir]``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib.image as mpimg
import numpy as np

PAGES = {
    # page: (text that must be on it, minimum number of typeset formulas)
    "index.html": ("Quick start", 1),
    "auto_tutorials/02_connections_and_coriolis.html": ("Four connections on Euclidean", 10),
    "auto_tutorials/06_coriolis_matrices_of_a_robot.html": ("The named body connections", 10),
    "auto_tutorials/11_robots_with_kinematic_loops.html": ("Robots with kinematic loops", 10),
}
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--hide-scrollbars",
    "--no-first-run",
    "--disable-extensions",
    "--window-size=1280,1600",
    "--virtual-time-budget=15000",
    # no network at all: anything fetched from outside the site fails
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
]


def chromium() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def render(browser: str, page: Path, png: Path) -> str:
    """Screenshot ``page`` into ``png`` and return its DOM after the scripts ran."""
    url = page.resolve().as_uri()
    subprocess.run([browser, *FLAGS, f"--screenshot={png}", url], check=True,
                   capture_output=True, timeout=120)  # fmt: skip
    dom = subprocess.run([browser, *FLAGS, "--dump-dom", url], check=True,
                         capture_output=True, timeout=120, text=True)  # fmt: skip
    return dom.stdout


def check_page(browser: str, build: Path, rel: str, text: str, min_math: int, out: Path):
    png = out / (rel.replace("/", "_").removesuffix(".html") + ".png")
    dom = render(browser, build / rel, png)
    problems = []
    image = mpimg.imread(png)[..., :3]
    ink = float(np.mean(np.any(image < 0.9, axis=-1)))  # share of non-white pixels
    if ink < 0.02:
        problems.append(f"looks blank ({ink:.1%} non-white pixels)")
    n_math = dom.count("<mjx-container")
    if n_math < min_math:
        problems.append(f"{n_math} typeset formulas, expected at least {min_math} "
                        "(MathJax did not run from the site)")  # fmt: skip
    if text not in dom:
        problems.append(f"text {text!r} not found")
    status = "FAIL" if problems else "ok"
    print(f"{status:4s} {rel}: {n_math} formulas, {ink:.0%} ink, screenshot {png}")
    for p in problems:
        print(f"     {p}")
    return not problems


def main(argv) -> int:
    require = "--require" in argv
    args = [a for a in argv if not a.startswith("--")]
    build = Path(args[0]) if args else Path(__file__).parent / "_build" / "html"
    browser = chromium()
    if browser is None:
        print("screenshot check skipped: no Chromium found (Debian: apt-get install chromium)")
        return 1 if require else 0
    out = build.parent / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    ok = all(check_page(browser, build, rel, text, n, out) for rel, (text, n) in PAGES.items())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
