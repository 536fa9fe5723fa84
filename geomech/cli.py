r"""The ``geomech`` command-line interface.

``geomech inspect [MODEL]`` reports on a multibody model (a built-in name, a shipped URDF
name with or without ``.urdf``, or a URDF path; default: the built-in humanoid) or on a Lie
group (``SO3``, ``SE3``, ``SE2``, ``Schoenflies``, ``R3``) and runs its self-consistency
checks: for a model, RNEA/ABA/CRBA identities, the mass matrix's definiteness, timings, and
the properties of every named body connection (a table, explained by a legend); for a group,
exp/log and adjoint identities. Options: ``--floating-base``, ``--lenient`` (load defective
URDF inertials as Pinocchio does), ``--connection NAME`` (one row of the table), ``--seed``
(the random states), ``--json`` (the same figures, machine-readable). ``geomech --version``
prints the installed version.

The first run on a machine compiles the numba kernels that the report calls (about a minute of
CPU time, in up to one worker process per CPU, ``GEOMECH_COMPILE_JOBS`` to change that) and
caches them: it says so at once on stderr, with a line per kernel family as it is done, and the
report gives the compile time apart from the timings (``compile_s`` in ``--json``). Later runs
load the kernels from the cache and print nothing on stderr.

An unknown name gets a "did you mean" from the built-in models, the shipped URDFs, the
installed example-robot-data robots and the groups; without example-robot-data the message
says how to install it (``pip install 'geomech[robots]'``).

Exit status: 0 when every check passes, 1 when one fails (a singular mass matrix is a failed
check), 2 on bad input (unknown model or file, unreadable or invalid URDF, bad options) and
when the report cannot be written (standard output closed, disk full), with one line on
stderr that starts with the command's name (``geomech inspect: error: ...``) and never a
traceback (an internal error, i.e. a bug, is one line too, with status 1). ``geomech`` alone
prints the help. A closed output pipe (``geomech inspect | head -3``) ends the command quietly
with the checks' status; Ctrl-C exits with 130.

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
import difflib
import errno
import json
import math
import os
import sys
import time
import warnings

import numpy as np

__all__ = ["main", "build_parser", "DEFAULT_MODEL", "EXIT_OK", "EXIT_FAILED", "EXIT_USAGE"]

#: The model ``geomech inspect`` reports on when none is named.
DEFAULT_MODEL = "humanoid"

#: Exit status: every check passed.
EXIT_OK = 0
#: Exit status: a check failed.
EXIT_FAILED = 1
#: Exit status: bad input (unknown model or file, invalid URDF, bad options), or the report
#: cannot be written (standard output closed, disk full).
EXIT_USAGE = 2

#: Relative tolerance of the self-checks run by ``geomech inspect``.
CHECK_TOL = 1e-9

#: Largest ``nv`` for which ``inspect`` runs the connection report (its Christoffel tensors
#: have ``nv³`` entries: 8 MB each at ``nv = 100``).
MAX_NV_CONNECTIONS = 100

#: Time budget of each timing in seconds: the best of up to 20 calls made within it.
TIMING_BUDGET = 0.2


#: Where the robots of example-robot-data come from, for the hint when they are missing.
_INSTALL_ROBOTS_HINT = "pip install 'geomech[robots]'"


class _UsageError(Exception):
    """Bad input: printed as one line on stderr, exit status 2.

    ``prog`` is the command that reports it (the subcommand's parser for its own options).
    """

    def __init__(self, message: str, prog: str | None = None):
        super().__init__(message)
        self.prog = prog


class _OutputError(_UsageError):
    """The report cannot be written (closed standard output, full disk): exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (exit status 2, no usage dump)."""

    def error(self, message):
        raise _UsageError(f"{message} (see '{self.prog} --help')", self.prog)

    def _print_message(self, message, file=None):
        # argparse ignores a failed write of --help or --version; here it is an output error
        if message:
            try:
                (file or sys.stderr).write(message)
            except BrokenPipeError:
                _silence_stdout()
            except (OSError, ValueError) as exc:
                raise _OutputError(_output_error(exc), self.prog) from None


class _ClosedStream(OSError):
    """A write to a closed standard output (an OSError, handled where every OSError of an
    output is: one line, exit status 2).
    """


class _ClosedStdout:
    """``sys.stdout`` when the process started without one (``geomech ... >&-``).

    Python sets ``sys.stdout`` to None then and ``print`` silently drops everything; this
    stand-in makes every write fail like a write to a closed descriptor, so the command reports
    it instead of succeeding with no output.
    """

    def write(self, text: str) -> int:
        raise _ClosedStream(errno.EBADF, "standard output is closed")

    def flush(self) -> None:
        raise _ClosedStream(errno.EBADF, "standard output is closed")


def _did_you_mean(name: str, candidates) -> str:
    """`` (did you mean 'x'?)`` for the closest candidates, or ''."""
    if not name or len(name) > 100:
        return ""
    candidates = list(dict.fromkeys(candidates))
    folded = {c.lower(): c for c in candidates}
    close = [folded[name.lower()]] if name.lower() in folded else []
    close += difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)
    close = list(dict.fromkeys(c for c in close if c != name))[:3]
    if not close:
        return ""
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)"


# ----------------------------------------------------------------------------------------
# Groups
# ----------------------------------------------------------------------------------------
def _groups() -> dict:
    from geomech import lie

    return {
        "SO3": lie.SO3,
        "SE3": lie.SE3,
        "SE2": lie.SE2,
        "Schoenflies": lie.Schoenflies,
        "R3": lie.Euclidean(3),
    }


def _rel(a, b) -> float:
    """Largest entry of |a - b| relative to max(1, |b|) (inf if either is not finite)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.size == 0:
        return 0.0
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return math.inf
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


def _check(label: str, compute) -> dict:
    """Run one self-check; an exception or a non-finite result is a failed check."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            err = float(compute())
        note = None if math.isfinite(err) else "non-finite result"
    except Exception as exc:  # noqa: BLE001 - any failure of the algorithms is reported
        err, note = math.nan, f"{type(exc).__name__}: {_one_line(exc)}"
    return {"name": label, "error": err, "tol": CHECK_TOL, "passed": bool(err < CHECK_TOL),
            "note": note}  # fmt: skip


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


def _inspect_group(group, seed: int) -> dict:
    """Facts and round-trip checks of a group."""
    from scipy.linalg import expm

    rng = np.random.default_rng(seed)
    g = group.random(rng, size=64)
    xi = rng.normal(size=(64, group.dim))
    checks = [
        _check("exp(log(g)) = g", lambda: _rel(group.exp(group.log(g)), g)),
        _check(
            "Ad(a b) = Ad(a) Ad(b)",
            lambda: _rel(
                group.Ad(group.compose(g[:32], g[32:])), group.Ad(g[:32]) @ group.Ad(g[32:])
            ),
        ),
        _check(
            "Ad(exp xi) = expm(ad xi)", lambda: _rel(group.Ad(group.exp(xi)), expm(group.ad(xi)))
        ),
    ]
    return {
        "kind": "group",
        "summary": f"{group.name}: dim {group.dim}, element shape {tuple(group.point_shape)}",
        "group": {"name": group.name, "dim": group.dim, "point_shape": list(group.point_shape)},
        "checks": checks,
        "passed": all(c["passed"] for c in checks),
    }


# ----------------------------------------------------------------------------------------
# Models
# ----------------------------------------------------------------------------------------
def _timed(f, repeat: int = 20, budget: float = TIMING_BUDGET) -> float:
    """Best time of one call of ``f`` in seconds, over up to ``repeat`` calls within ``budget``."""
    f()  # untimed: the first call may load or compile a kernel for these argument types
    best, start = math.inf, time.perf_counter()
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
        if time.perf_counter() - start > budget:
            break
    return best


def _expected_properties(names: list[str]) -> dict:
    """Each body connection's own properties on one free body (a generic inertia)."""
    from geomech.multibody import robots
    from geomech.multibody.connections.body import body_connection

    inertia = robots.random_inertia(rng=0)
    out = {}
    for name in names:
        p = body_connection(name).properties(inertia)
        out[name] = {
            "metric_compatible": bool(p.metric_compatible),
            "correct_dynamics": bool(p.riemannian_geodesics),
            "torsion_free": bool(p.torsion_free),
        }
    return out


_PROPERTY_COLUMNS = {"metric_compatible": "skew", "correct_dynamics": "dyn", "torsion_free": "T=0"}


def _connections(model, q, v, names: list[str]) -> dict:
    """The connection report, each row checked against its body connection's properties.

    A property the body connection has (on one free body) carries over to the model (seed
    000 Props. V.1–V.3), so a "no" there is a failed check; a property it lacks may still
    hold on a special model (e.g. no torsion at all when ``nv = 1``), so a "yes" there is
    not a failure.
    """
    from geomech.multibody.model.connection import connection_report

    if model.nv > MAX_NV_CONNECTIONS:
        return {"rows": [], "skipped": f"nv = {model.nv} > {MAX_NV_CONNECTIONS} "
                "(the Christoffel tensors have nv^3 entries)", "passed": True}  # fmt: skip
    expected = _expected_properties(names)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reports = connection_report(model, q, v, connections=names, repeat=3)
    except Exception as exc:  # noqa: BLE001 - reported as a failed check
        return {"rows": [], "skipped": None, "passed": False,
                "error": f"{type(exc).__name__}: {_one_line(exc)}"}  # fmt: skip
    rows = []
    for r in reports:
        exp = expected[r.name]
        missing = [_PROPERTY_COLUMNS[k] for k, yes in exp.items() if yes and not getattr(r, k)]
        rows.append(
            {
                "name": r.name,
                "skew_residual": r.skew_residual,
                "dynamics_residual": r.dynamics_residual,
                "torsion_norm": r.torsion_norm,
                "metric_compatible": bool(r.metric_compatible),
                "correct_dynamics": bool(r.correct_dynamics),
                "torsion_free": bool(r.torsion_free),
                "expected": exp,
                "passed": not missing,
                "missing": missing,
                "time_ms": {
                    "alg1": 1e3 * r.time_alg1,
                    "dense": 1e3 * r.time_dense,
                    "alg2": 1e3 * r.time_alg2,
                    "differentiation": 1e3 * r.time_differentiation,
                },
            }
        )
    return {"rows": rows, "skipped": None, "passed": all(r["passed"] for r in rows),
            "_reports": reports}  # fmt: skip


def _inspect_model(model, seed: int, connection_names: list[str]) -> dict:
    """Summary, dynamics self-checks, timings and the connection report of a model."""
    from geomech.multibody import aba, crba, gravity_forces, kinetic_energy, rnea

    result = {
        "kind": "model",
        "summary": model.summary(),
        "model": {
            "name": model.graph.graph.get("name"),
            "n_bodies": model.n_bodies,
            "nq": model.nq,
            "nv": model.nv,
            "depth": model.depth,
            "joints": model.joint_types(),
        },
        "checks": [],
        "mass_matrix": None,
        "timings_ms": {},
        "connections": None,
        "passed": True,
    }
    if model.nv == 0:
        result["note"] = "no degrees of freedom: nothing to check"
        return result
    rng = np.random.default_rng(seed)
    n = 8 if model.nv <= MAX_NV_CONNECTIONS else 2  # fewer states where each costs seconds
    q = model.random_configuration(rng, size=n)
    v = rng.normal(size=(n, model.nv))
    a = rng.normal(size=(n, model.nv))
    zero = np.zeros_like(v)
    cache = {}

    def get(key, f):
        if key not in cache:
            cache[key] = f()
        return cache[key]

    def tau():
        return get("tau", lambda: rnea(model, q, v, a))

    def H():
        return get("H", lambda: crba(model, q))

    checks = [
        _check("ABA(RNEA(a)) = a", lambda: _rel(aba(model, q, v, tau()), a)),
        _check("RNEA(ABA(tau)) = tau",
               lambda: _rel(rnea(model, q, v, aba(model, q, v, tau())), tau())),
        _check("RNEA(a) - RNEA(0) = H a",
               lambda: _rel(tau() - rnea(model, q, v, zero), (H() @ a[..., None])[..., 0])),
        _check("H = H^T", lambda: _rel(H(), np.swapaxes(H(), -1, -2))),
        _check("RNEA(q, 0, 0) = g(q)",
               lambda: _rel(rnea(model, q, zero, zero), gravity_forces(model, q))),
        _check("T = 1/2 v^T H v", lambda: _rel(
            kinetic_energy(model, q, v), 0.5 * np.einsum("...i,...ij,...j->...", v, H(), v))),
    ]  # fmt: skip
    if model.is_closed:  # the states the checks ran on close the loops (issue 24 item 9)
        checks.insert(0, _check("phi(q) = 0 (loops closed)",
                                lambda: float(np.max(np.abs(model.constraint_residual(q)),
                                                     initial=0.0))))  # fmt: skip
    result["checks"] = checks
    try:
        with np.errstate(all="ignore"):
            eig = float(np.min(np.linalg.eigvalsh(H())))
        note = None if math.isfinite(eig) else "non-finite mass matrix"
    except Exception as exc:  # noqa: BLE001 - reported as a failed check
        eig, note = math.nan, f"{type(exc).__name__}: {_one_line(exc)}"
    pd = bool(eig > 0)
    result["mass_matrix"] = {
        "min_eigenvalue": eig,
        "positive_definite": pd,
        "note": note if note else (None if pd else "singular or indefinite mass matrix"),
    }
    for name, f in {
        "rnea": lambda: rnea(model, q[0], v[0], a[0]),
        "crba": lambda: crba(model, q[0]),
        "aba": lambda: aba(model, q[0], v[0], a[0]),
    }.items():
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result["timings_ms"][name] = 1e3 * _timed(f)
        except Exception:  # noqa: BLE001 - the check above already reports the failure
            result["timings_ms"][name] = math.nan
    result["connections"] = _connections(model, q[0], v[0], connection_names)
    result["passed"] = bool(
        all(c["passed"] for c in checks) and pd and result["connections"]["passed"]
    )
    return result


# ----------------------------------------------------------------------------------------
# Rendering
# ----------------------------------------------------------------------------------------
#: One line (or more) per abbreviation of the model report: (term, explanation lines).
_LEGEND_MODEL = [
    ("nq, nv", ["sizes of the configuration q and of the speeds v (and of a, tau)"]),
    ("depth", ["the most joints on a path from the root"]),
    ("RNEA, ABA", ["inverse dynamics tau = RNEA(q, v, a), forward dynamics a = ABA(q, v, tau)"]),
    ("H, CRBA", ["mass matrix H(q), computed by the composite-rigid-body algorithm CRBA"]),
    ("g(q), T", ["gravity forces, kinetic energy"]),
    ("max error", ["largest entry of |left - right| / max(1, max|right|); ok below "
                   f"{CHECK_TOL:.0e}"]),
]  # fmt: skip

_LEGEND_GROUP = [
    ("Ad, ad", ["adjoint representation of the group and of its Lie algebra"]),
    ("exp, log, expm", ["group exponential and logarithm; expm: scipy's matrix exponential"]),
    ("xi", ["a random Lie algebra element (twist); a, b, g random group elements"]),
    ("max error", ["largest entry of |left - right| / max(1, max|right|); ok below "
                   f"{CHECK_TOL:.0e}"]),
]  # fmt: skip

_LEGEND_CONNECTIONS = [
    ("|Hdot-C-C^T|", ["largest entry of Hdot - C - C^T (Hdot: central differences of CRBA);",
                      "zero <=> Hdot - 2C skew <=> metric compatible (column skew)"]),
    ("|Cv-c|", ["largest entry of C v - (RNEA(q, v, 0) - g(q)); zero <=> correct dynamics,",
                "C v = C* v (column dyn)"]),
    ("torsion", ["largest entry of the lowered torsion Gamma_ijk - Gamma_ikj - s_ijk (s:",
                 "structure constants of the joints' frames); zero <=> torsion free (column T=0)"]),
    ("skew dyn T=0", ["yes when the residual is below 1e-6, 1e-9, 1e-9 times max(1, max|H|)"]),
    ("Alg1 ms", ["milliseconds per coriolis_matrix: C by the recursive Algorithm 1 of seed 000"]),
    ("dense ms", ["milliseconds per coriolis_matrix_dense: C by the dense transformation law",
                  "A^T C_bodies A + A^T H Adot (seed 000 eq. 17), the reference for Alg1"]),
    ("Alg2 ms", ["levi-civita only: milliseconds per christoffel_symbols, all Gamma_ijk by",
                 "Algorithm 2 of seed 000"]),
    ("diff ms", ["levi-civita only: milliseconds per coriolis_matrix_differentiation, C by",
                 "differentiating the dynamics (seed 000 sec. VI-D)"]),
    ("-", ["not measured for this connection"]),
    ("seed 000", ["P. M. Wensing, J. Englsberger, J.-J. E. Slotine, Coriolis Factorizations",
                  "and their Connections to Riemannian Geometry, arXiv:2312.14425 (2023)"]),
    ("Props. V.1-V.3", ["Propositions V.1-V.3 of seed 000: a model whose bodies all use a",
                        "metric compatible (correct, torsion free) body connection has a metric",
                        "compatible (correct, torsion free) Coriolis matrix"]),
]  # fmt: skip


def _legend_lines(entries) -> list[str]:
    width = max(len(term) for term, _ in entries)
    lines = []
    for term, text in entries:
        lines.append(f"  {term:<{width}}  {text[0]}")
        lines += [f"  {'':<{width}}  {more}" for more in text[1:]]
    return lines


def _legend(result: dict) -> list[str]:
    """The legend of a text report: one entry per abbreviation it uses."""
    if result["kind"] == "group":
        return ["legend:", *_legend_lines(_LEGEND_GROUP)]
    if not result["checks"]:
        return []
    conn = result.get("connections") or {}
    rows = conn.get("rows") or []
    entries = list(_LEGEND_MODEL)
    if any(c["name"].startswith("phi(q)") for c in result["checks"]):
        entries.append(
            ("phi(q)", ["residual of the loop constraints (q is the spanning tree's; v, a, tau "
                        "are the independent ones)"])
        )  # fmt: skip
    if rows:
        entries += _LEGEND_CONNECTIONS
    lines = ["legend:", *_legend_lines(entries)]
    if rows:
        lines += [
            "  each row uses one body connection on every body; a property the body connection",
            "  has carries over to the model (Props. V.1-V.3), so there a 'no' FAILS; the 'no's",
            "  below are expected (the body connection lacks the property; a special model may",
            "  still show 'yes'):",
        ]
        for r in rows:
            nos = [_PROPERTY_COLUMNS[k] for k, yes in r["expected"].items() if not yes]
            lines.append(f"    {r['name']:<16} {', '.join(nos) if nos else '(none: all yes)'}")
    return lines


def _render_text(name: str, result: dict, out) -> None:
    def p(line: str = "") -> None:
        print(line, file=out)

    p(result["summary"])
    if result.get("note"):
        p(f"  {result['note']}")
    for c in result["checks"]:
        verdict = "ok" if c["passed"] else "FAILED"
        err = f"{c['error']:.2e}" if math.isfinite(c["error"]) else f"{c['error']}"
        tail = f"  ({c['note']})" if c["note"] and not c["passed"] else ""
        p(f"  {c['name']:<34} max error {err}  {verdict}{tail}")
    mm = result.get("mass_matrix")
    if mm is not None:
        verdict = "ok" if mm["positive_definite"] else "FAILED"
        tail = f"  ({mm['note']})" if mm["note"] else ""
        p(
            f"  {'H positive definite':<34} min eigenvalue {mm['min_eigenvalue']:.2e}"
            f"  {verdict}{tail}"
        )
    if result.get("compile_s"):
        p(f"  kernels compiled first in {result['compile_s']:.2f} s (once: later runs load them "
          "from numba's cache; not part of any time below)")  # fmt: skip
    if result.get("timings_ms"):
        p("  time per call (best of up to 20): " + ", ".join(
            f"{k} {t:.3f} ms" if math.isfinite(t) else f"{k} -"
            for k, t in result["timings_ms"].items()))  # fmt: skip
    conn = result.get("connections")
    if conn is not None:
        if conn.get("skipped"):
            p(f"  body connections: skipped ({conn['skipped']})")
        elif conn.get("error"):
            p(f"  body connections: FAILED ({conn['error']})")
        else:
            from geomech.multibody.model.connection import format_connection_report

            p("  body connections (the same on every body):")
            for line in format_connection_report(conn["_reports"]).splitlines():
                p("    " + line)
            for r in conn["rows"]:
                if not r["passed"]:
                    p(f"    {r['name']}: expected yes in {', '.join(r['missing'])}, got no  FAILED")
    for line in _legend(result):
        p("  " + line)
    compiled = result.get("compile_s") or 0.0
    tail = f" ({compiled:.2f} s of it compiling the kernels, once)" if compiled > 0 else ""
    p(f"checks {'passed' if result['passed'] else 'FAILED'} in {result['elapsed_s']:.2f} s{tail}")


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items() if not str(k).startswith("_")}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return float(x) if math.isfinite(x) else None
    return x


# ----------------------------------------------------------------------------------------
# The command
# ----------------------------------------------------------------------------------------
def _model_names() -> tuple[list[str], list[str]]:
    """(built-in model and shipped URDF names, installed example-robot-data robot names)."""
    from geomech.multibody import robots

    return robots.names(), robots.example_robot_data_names()


def _no_such(name: str) -> str:
    """The one line for a name that is no file, model or group: suggestions and every name."""
    builtin, erd = _model_names()
    shown = repr(name)
    shown = shown if len(shown) <= 80 else shown[:76] + "...'"
    stem = os.path.basename(name)
    stem = stem[: -len(".urdf")] if stem.endswith(".urdf") else stem
    from geomech.multibody import robots

    shipped = [f"{n}.urdf" for n in builtin if _is_shipped(robots, n)]
    erd_all = erd + [n for n in robots.example_robot_data_names(qualified=True) if n not in erd]
    hint = _did_you_mean(name, [*builtin, *shipped, *erd_all, *_groups()])
    if not hint and stem != name:
        hint = _did_you_mean(stem, [*builtin, *erd_all])
    if erd:
        erd_part = f", an example-robot-data robot ({len(erd)} installed: {', '.join(erd)})"
        tail = ""
    else:
        erd_part = ""
        tail = (
            f"; the robots of example-robot-data (panda, solo12, talos_reduced, ...) are found "
            f"by name once it is installed: {_INSTALL_ROBOTS_HINT}"
        )
    return (
        f"no such file or model {shown}{hint}: expected a URDF path, a built-in model "
        f"({', '.join(builtin)}; shipped URDFs also with .urdf){erd_part} or a group "
        f"({', '.join(_groups())}){tail}"
    )


def _is_shipped(robots, name: str) -> bool:
    from geomech.errors import ModelError

    try:
        robots.urdf_path(name)
    except ModelError:  # a generated model: no file
        return False
    return True


def _exists(name: str) -> bool:
    try:
        return os.path.exists(name)
    except (OSError, ValueError):
        return False


def _load_model(args):
    """The model named by ``args``; raises :class:`_UsageError` with one line otherwise."""
    from geomech.errors import GeomechError, ModelError, URDFWarning
    from geomech.multibody import robots

    name = args.model or DEFAULT_MODEL
    floating_base = True if args.floating_base else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", URDFWarning)
        try:
            model = robots.load(name, floating_base, strict=not args.lenient)
        except ModelError as exc:
            stem = name[: -len(".urdf")] if name.endswith(".urdf") else name
            if not _exists(name) and stem not in robots.names():
                raise _UsageError(_no_such(name)) from exc
            raise _UsageError(f"cannot load {name!r}: {_one_line(exc)}") from exc
        except (GeomechError, OSError, MemoryError, RecursionError) as exc:
            raise _UsageError(f"cannot load {name!r}: {_one_line(exc)}") from exc
    for w in caught:
        if issubclass(w.category, URDFWarning):
            print(f"geomech inspect: warning: {w.message}", file=sys.stderr)
    return model


def _unknown_connection(name: str, names: list[str]) -> str:
    return (
        f"unknown body connection {name!r}{_did_you_mean(name, names)}: expected one of "
        f"{', '.join(names)}"
    )


def _families(model) -> list[str]:
    """The kernel families (``geomech._precompile``) that the report on ``model`` calls."""
    if model.nv == 0:
        return []
    closed = getattr(model, "is_closed", False)
    families = ["closed", "crba"] if closed else ["rnea-aba", "crba"]
    if model.nv <= MAX_NV_CONNECTIONS:  # the connection report
        families += ["coriolis", "christoffel", "kinematics"]
    return families


class _Progress:
    """Progress lines on stderr while kernels compile (the report itself goes to stdout)."""

    PREFIX = "geomech inspect:"

    def __init__(self, stream=None):
        self.stream = stream
        self.announced = False

    def say(self, text: str) -> None:
        try:
            print(f"{self.PREFIX} {text}", file=self.stream or sys.stderr, flush=True)
        except (OSError, ValueError, AttributeError):  # no stderr: compile without a word
            pass

    def kernel(self, name: str) -> None:
        """A kernel compiles in this process (not foreseen by the families)."""
        if not self.announced:
            self.announced = True
            self.say("first run: compiling numba kernels once (later runs load them from the "
                     "cache)")  # fmt: skip
        self.say(f"  compiling {name} ...")


def _compile_kernels(families: list[str], progress: _Progress) -> float:
    """Compile the families not in numba's cache yet, saying so at once; seconds spent."""
    from geomech import _precompile

    cold = _precompile.missing(families)
    if not cold:
        return 0.0
    jobs = min(len(cold), _precompile.default_jobs())
    cpu = sum(_precompile.FAMILIES[n].cost for n in cold)
    where = f"shared by {jobs} processes" if jobs > 1 else "in this process"
    progress.announced = True
    progress.say(
        f"first run: compiling numba kernels once, about {_duration(cpu)} of CPU time {where} "
        "(later runs load them from the cache)"
    )
    progress.say(f"  {len(cold)} kernel families: {', '.join(cold)}")
    done = []

    def report(family: str, seconds: float) -> None:
        done.append(family)
        title = _precompile.FAMILIES[family].title
        progress.say(f"  [{len(done)}/{len(cold)}] {family} done in {seconds:.1f} s: {title}")

    total = _precompile.compile_families(cold, jobs=jobs, report=report)
    progress.say(f"kernels compiled in {total:.1f} s")
    return total


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def _cmd_inspect(args, out) -> int:
    from geomech.multibody.connections.body import body_connection_names

    start = time.perf_counter()
    name = args.model or DEFAULT_MODEL
    if args.seed < 0:
        raise _UsageError(f"--seed must be a nonnegative integer, got {args.seed}")
    from geomech.errors import ConnectionSpecError
    from geomech.geometry.names import canonical_connection_name

    names = body_connection_names()
    if args.connection is not None:
        try:  # the one registry of connection names: aliases (e.g. "-") are accepted
            args.connection = canonical_connection_name(args.connection)
        except ConnectionSpecError:
            raise _UsageError(_unknown_connection(args.connection, names)) from None
        if args.connection not in names:
            raise _UsageError(_unknown_connection(args.connection, names))
    groups = _groups()
    if name in groups:
        used = [opt for opt, on in (("--floating-base", args.floating_base),
                                    ("--lenient", args.lenient),
                                    ("--connection", args.connection is not None))
                if on]  # fmt: skip
        if used:
            raise _UsageError(f"{', '.join(used)} applies to models, not to the group {name!r}")
        result = _inspect_group(groups[name], args.seed)
    else:
        model = _load_model(args)
        conn_names = [args.connection] if args.connection else names
        progress = _Progress()
        compile_s = _compile_kernels(_families(model), progress)
        from geomech._precompile import compiling

        with compiling(progress.kernel) as late:  # a kernel outside the families: said too
            result = _inspect_model(model, args.seed, conn_names)
        result["compile_s"] = compile_s + late.seconds
    result = {"target": name, "seed": args.seed, **result,
              "elapsed_s": time.perf_counter() - start}  # fmt: skip
    try:
        if args.json:
            print(json.dumps(_jsonable(result), indent=2, allow_nan=False), file=out)
        else:
            _render_text(name, result, out)
        out.flush()
    except BrokenPipeError:
        _silence_stdout()
    except (OSError, ValueError) as exc:  # a closed stream raises ValueError on write
        raise _OutputError(_output_error(exc)) from None
    return EXIT_OK if result["passed"] else EXIT_FAILED


def _output_error(exc: BaseException) -> str:
    reason = getattr(exc, "strerror", None) or _one_line(exc)
    return f"cannot write to standard output: {reason}"


def _check_stdout() -> None:
    """Fail before the work when the report cannot be written at all (closed stdout)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader is already gone: handled where the report is written
        pass
    except (OSError, ValueError, AttributeError) as exc:
        raise _OutputError(_output_error(exc)) from None


def _silence_stdout() -> None:
    """After the reader closed the pipe: send further output (the exit-time flush) nowhere."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # pragma: no cover - stdout without a fd
        pass


_EPILOG = "exit status: 0 checks passed, 1 a check failed, 2 bad input or output error"


def _version() -> str:
    """The installed distribution's version (the one place it is written)."""
    from importlib import metadata

    try:
        return metadata.version("geomech")
    except metadata.PackageNotFoundError:  # running from a source tree that is not installed
        import geomech

        return getattr(geomech, "__version__", "unknown")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``geomech`` command.

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> from geomech.cli import build_parser
    >>> args = build_parser().parse_args(["inspect", "ur5", "--seed", "3"])
    >>> args.model, args.seed, args.json
    ('ur5', 3, False)
    >>> print(build_parser().format_usage().strip())
    usage: geomech [-h] [--version] COMMAND ...
    """
    parser = _Parser(
        prog="geomech",
        description="Geometric mechanics: inspect multibody models and Lie groups.",
        epilog=_EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"geomech {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p = sub.add_parser(
        "inspect",
        help="report on a model or group and run its self-checks",
        description="Report on a multibody model or a Lie group and run its self-checks.",
        epilog=_EPILOG,
    )
    p.add_argument(
        "model",
        nargs="?",
        default=None,
        help=f"built-in model, shipped URDF name (with or without .urdf), URDF path or group "
        f"(SO3, SE3, SE2, Schoenflies, R3); default: {DEFAULT_MODEL}",
    )
    p.add_argument(
        "--floating-base", action="store_true", help="attach the root link by a free-flyer joint"
    )
    p.add_argument(
        "--lenient",
        action="store_true",
        help="load URDF inertial defects as written, as Pinocchio does (warns)",
    )
    p.add_argument(
        "--connection",
        metavar="NAME",
        default=None,
        help="report only this body connection (levi-civita, cartan-minus, ...; "
        "aliases such as - accepted)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random states (default 0)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    Parameters
    ----------
    argv : list of str, optional

    Returns
    -------
    int
        0 if every check passed, 1 if a check failed, 2 on bad input (one line on stderr).

    Examples
    --------
    >>> from geomech.cli import main
    >>> main(["inspect", "no-such-model"])
    2
    """
    closed = sys.stdout is None
    if closed:
        sys.stdout = _ClosedStdout()
    try:
        return _main(argv)
    finally:
        if closed:
            sys.stdout = None


def _main(argv) -> int:
    parser = build_parser()
    prog = "geomech"
    try:
        try:
            try:
                args, extra = parser.parse_known_args(argv)
            except SystemExit as exc:  # --help / -h / --version: argparse printed it
                status = int(exc.code or 0)
            else:
                if extra:  # reported by the command they were given to, not by "geomech"
                    sub = f"geomech {args.command}" if args.command else "geomech"
                    raise _UsageError(
                        f"unrecognized arguments: {' '.join(extra)} (see '{sub} --help')", sub
                    )
                if args.command is None:
                    parser.print_help(sys.stdout)  # an unwritable stdout: _OutputError
                    status = EXIT_OK
                else:
                    prog = f"geomech {args.command}"
                    _check_stdout()
                    status = _cmd_inspect(args, sys.stdout)
            _flush_stdout()
            return status
        except _OutputError:
            _silence_stdout()  # nothing more to write there, nor at exit
            raise
    except _UsageError as exc:
        print(f"{exc.prog or prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_FAILED
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - a bug: still one line, never a traceback
        print(f"{prog}: internal error: {type(exc).__name__}: {_one_line(exc)} (please report it)",
              file=sys.stderr)  # fmt: skip
        return EXIT_FAILED


def _flush_stdout() -> None:
    """Flush what is left (help, version): a full disk or a closed stdout is an output error."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    except (OSError, ValueError) as exc:
        raise _OutputError(_output_error(exc)) from None
