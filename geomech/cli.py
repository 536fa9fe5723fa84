"""The ``geomech`` command-line interface.

``geomech inspect [MODEL]`` reports on a multibody model (a built-in name, a shipped URDF
name or a URDF path; default: the built-in humanoid) or on a Lie group (``SO3``, ``SE3``,
``SE2``, ``Schoenflies``, ``R3``) and runs its self-consistency checks. The exit status is 0
when every check passes, 1 when one fails and 2 on a usage error.

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

__all__ = ["main", "build_parser", "DEFAULT_MODEL"]

#: The model ``geomech inspect`` reports on when none is named.
DEFAULT_MODEL = "humanoid"

#: Relative tolerance of the self-checks run by ``geomech inspect``.
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


def _report(label: str, err: float, out, tol: float = CHECK_TOL) -> bool:
    passed = bool(err < tol)
    print(f"  {label:<34} max error {err:.2e}  {'ok' if passed else 'FAILED'}", file=out)
    return passed


def _rel(a, b) -> float:
    """Largest entry of |a - b| relative to max(1, |b|)."""
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


def _inspect_group(group, out) -> bool:
    """Print a group's facts and round-trip checks; return whether every check passed."""
    from scipy.linalg import expm

    rng = np.random.default_rng(0)
    print(f"{group.name}: dim {group.dim}, element shape {tuple(group.point_shape)}", file=out)
    g = group.random(rng, size=64)
    xi = rng.normal(size=(64, group.dim))
    checks = {
        "exp(log(g)) = g": _rel(group.exp(group.log(g)), g),
        "Ad(a b) = Ad(a) Ad(b)": _rel(
            group.Ad(group.compose(g[:32], g[32:])), group.Ad(g[:32]) @ group.Ad(g[32:])
        ),
        "Ad(exp xi) = expm(ad xi)": _rel(group.Ad(group.exp(xi)), expm(group.ad(xi))),
    }
    return all([_report(label, err, out) for label, err in checks.items()])


def _timed(f, repeat: int = 20) -> float:
    """Best time of one call of ``f`` in seconds over ``repeat`` calls."""
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def _inspect_model(model, out) -> bool:
    """Print a model's summary, dynamics self-checks and algorithm timings."""
    from geomech.multibody import aba, crba, gravity_forces, kinetic_energy, rnea

    print(model.summary(), file=out)
    rng = np.random.default_rng(0)
    n = 8
    q = model.random_configuration(rng, size=n)
    v = rng.normal(size=(n, model.nv))
    a = rng.normal(size=(n, model.nv))
    tau = rnea(model, q, v, a)
    H = crba(model, q)
    zero = np.zeros_like(v)
    checks = {
        "ABA(RNEA(a)) = a": _rel(aba(model, q, v, tau), a),
        "RNEA(ABA(tau)) = tau": _rel(rnea(model, q, v, aba(model, q, v, tau)), tau),
        "RNEA(a) - RNEA(0) = H a": _rel(tau - rnea(model, q, v, zero), (H @ a[..., None])[..., 0]),
        "H = H^T": _rel(H, np.swapaxes(H, -1, -2)),
        "RNEA(q, 0, 0) = g(q)": _rel(rnea(model, q, zero, zero), gravity_forces(model, q)),
        "T = 1/2 v^T H v": _rel(
            kinetic_energy(model, q, v), 0.5 * np.einsum("...i,...ij,...j->...", v, H, v)
        ),
    }
    ok = all([_report(label, err, out) for label, err in checks.items()])
    eig = float(np.min(np.linalg.eigvalsh(H)))
    pd = eig > 0
    print(f"  {'H positive definite':<34} min eigenvalue {eig:.2e}  {'ok' if pd else 'FAILED'}", file=out)
    timings = {
        "rnea": lambda: rnea(model, q[0], v[0], a[0]),
        "crba": lambda: crba(model, q[0]),
        "aba": lambda: aba(model, q[0], v[0], tau[0]),
    }
    print("  time per call (best of 20): " + ", ".join(
        f"{name} {1e3 * _timed(f):.3f} ms" for name, f in timings.items()
    ), file=out)
    from geomech.multibody.system_connection import connection_report, format_connection_report

    rows = connection_report(model, q[0], v[0], repeat=3)
    print("  body connections (the same on every body):", file=out)
    for line in format_connection_report(rows).splitlines():
        print("    " + line, file=out)
    lc = rows[0]
    lc_ok = bool(lc.metric_compatible and lc.correct_dynamics and lc.torsion_free)
    return ok and pd and lc_ok


def _cmd_inspect(args, out) -> int:
    from geomech.errors import GeomechError
    from geomech.multibody import robots

    start = time.perf_counter()
    name = args.model or DEFAULT_MODEL
    groups = _groups()
    if name in groups:
        ok = _inspect_group(groups[name], out)
    else:
        try:
            model = robots.load(name)
        except (GeomechError, OSError) as exc:
            print(f"geomech inspect: cannot load model {name!r}: {exc}", file=sys.stderr)
            print(
                f"  expected a built-in model {robots.names()}, a URDF path, "
                f"or a group {sorted(groups)}",
                file=sys.stderr,
            )
            return 2
        ok = _inspect_model(model, out)
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
    >>> build_parser().parse_args(["inspect", "ur5"]).model
    'ur5'
    """
    parser = argparse.ArgumentParser(
        prog="geomech", description="Geometric mechanics: inspect models and groups."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("inspect", help="report on a model or group and run its self-checks")
    p.add_argument(
        "model",
        nargs="?",
        default=None,
        help=f"built-in model, shipped URDF name, URDF path or group (default: {DEFAULT_MODEL})",
    )
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
    >>> main(["inspect", "no-such-model"])
    2
    """
    args = build_parser().parse_args(argv)
    if args.command == "inspect":
        return _cmd_inspect(args, sys.stdout)
    return 2  # pragma: no cover - argparse enforces the sub-command
