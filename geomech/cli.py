"""The ``geomech`` command-line interface.

``geomech inspect [MODEL]`` reports on a configuration manifold or model and runs its
self-consistency checks; the exit status is non-zero if a check fails.

Examples
--------
>>> from geomech.cli import main
>>> main(["inspect", "SO3"])  # doctest: +ELLIPSIS
SO(3): dim 3, element shape (3, 3)
...
0
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

__all__ = ["main", "build_parser"]

#: Tolerance of the self-checks run by ``geomech inspect``.
CHECK_TOL = 1e-9


def _groups() -> dict:
    from geomech import lie

    return {
        "SO3": lie.SO3,
        "SE3": lie.SE3,
        "SE2": lie.SE2,
        "Schoenflies": lie.Schoenflies,
        "R3": lie.Euclidean(3),
    }


def _inspect_group(name: str, group, out) -> bool:
    """Print a group's facts and round-trip checks; return whether every check passed."""
    from scipy.linalg import expm

    rng = np.random.default_rng(0)
    print(f"{group.name}: dim {group.dim}, element shape {tuple(group.point_shape)}", file=out)
    g = group.random(rng, size=64)
    xi = rng.normal(size=(64, group.dim))
    checks = {
        "exp(log(g)) = g": np.max(np.abs(group.exp(group.log(g)) - g)),
        "Ad(a b) = Ad(a) Ad(b)": np.max(
            np.abs(group.Ad(group.compose(g[:32], g[32:])) - group.Ad(g[:32]) @ group.Ad(g[32:]))
        ),
        "Ad(exp xi) = expm(ad xi)": np.max(np.abs(group.Ad(group.exp(xi)) - expm(group.ad(xi)))),
    }
    ok = True
    for label, err in checks.items():
        passed = bool(err < CHECK_TOL)
        ok &= passed
        print(f"  {label:<28} max error {err:.2e}  {'ok' if passed else 'FAILED'}", file=out)
    return ok


def _cmd_inspect(args, out) -> int:
    groups = _groups()
    start = time.perf_counter()
    if args.model is None:
        names = list(groups)
    elif args.model in groups:
        names = [args.model]
    else:
        print(
            f"geomech inspect: unknown model {args.model!r}; expected one of {sorted(groups)}",
            file=sys.stderr,
        )
        return 2
    ok = all([_inspect_group(n, groups[n], out) for n in names])
    print(f"checks {'passed' if ok else 'FAILED'} in {time.perf_counter() - start:.2f} s", file=out)
    return 0 if ok else 1


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``geomech`` command.

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> from geomech.cli import build_parser
    >>> build_parser().parse_args(["inspect", "SE3"]).model
    'SE3'
    """
    parser = argparse.ArgumentParser(
        prog="geomech", description="Geometric mechanics: inspect groups and models."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("inspect", help="report on a group or model and run its self-checks")
    p.add_argument("model", nargs="?", default=None, help="a built-in name (default: all groups)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    Parameters
    ----------
    argv : list of str, optional

    Returns
    -------
    int
        0 on success, 1 if a self-check failed, 2 on a usage error.

    Examples
    --------
    >>> from geomech.cli import main
    >>> main(["inspect", "nonsense"])
    2
    """
    args = build_parser().parse_args(argv)
    if args.command == "inspect":
        return _cmd_inspect(args, sys.stdout)
    return 2  # pragma: no cover - argparse enforces the sub-command
