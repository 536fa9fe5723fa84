"""The ``geomech`` command line: every case of issue 17 item 5 and issue 18 item 5.

Exit codes: 0 all checks passed, 1 a check failed, 2 bad input (one line on stderr, no
traceback). In-process cases call :func:`geomech.cli.main`; the cases about the process
itself (``python -m geomech``, a closed pipe, no traceback on stderr) run a subprocess.
"""

import importlib.metadata
import json
import os
import random
import re
import subprocess
import sys

import pytest
from hardening.hostile_inputs import (
    chain,
    latin1_bytes,
    massless_leaf,
    non_utf8_bytes,
    pendulum,
    zero_dof,
)

from geomech.cli import DEFAULT_MODEL, EXIT_FAILED, EXIT_OK, EXIT_USAGE, main
from geomech.multibody import robots
from geomech.multibody.connections.body import body_connection_names

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    + os.environ.get("PYTHONPATH", "").split(os.pathsep))}  # fmt: skip


def run(*args, timeout=120):
    """``python -m geomech ARGS`` in a subprocess: (exit status, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "geomech", *args], capture_output=True,
                          text=True, check=False, timeout=timeout, env=ENV)  # fmt: skip
    return proc.returncode, proc.stdout, proc.stderr


def usage_error(capsys, *args) -> str:
    """Run ``main(args)``; it must exit 2 with exactly one line on stderr and print nothing."""
    assert main(list(args)) == EXIT_USAGE
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("geomech"), err
    assert "Traceback" not in err
    return lines[0]


# ---- the main job and the table ------------------------------------------------------------
def test_inspect_default_model_passes(capsys):
    assert main(["inspect"]) == EXIT_OK
    out = capsys.readouterr().out
    assert f"'{DEFAULT_MODEL}'" in out and "checks passed" in out and "FAILED" not in out


def test_inspect_explains_its_table(capsys):
    assert main(["inspect", "double_pendulum"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "legend" in out
    for column in ("|Hdot-C-C^T|", "|Cv-c|", "torsion", "skew", "dyn", "T=0", "Alg1 ms"):
        assert column in out
    # which "no" is expected for which connection: the body connections' own properties
    expected = {
        "levi-civita": "(none: all yes)",
        "cartan-minus": "dyn, T=0",
        "cartan-zero": "skew, dyn",
        "cartan-plus": "skew, dyn, T=0",
        "velocity-cross": "T=0",
        "boltzmann-hamel": "T=0",
    }
    for name, nos in expected.items():
        assert any(" ".join(line.split()) == f"{name} {nos}" for line in out.splitlines()), name


def test_inspect_group(capsys):
    assert main(["inspect", "SE3"]) == EXIT_OK
    assert "SE(3): dim 6" in capsys.readouterr().out


def test_inspect_urdf_path(capsys):
    assert main(["inspect", str(robots.urdf_path("ur5"))]) == EXIT_OK
    assert "nv = 6" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["ur5", "ur5.urdf", "stretch", "stretch.urdf"])
def test_shipped_names_with_or_without_suffix(name, capsys):
    assert main(["inspect", name, "--connection", "levi-civita"]) == EXIT_OK
    assert "checks passed" in capsys.readouterr().out


def test_floating_base(capsys):
    assert main(["inspect", "stretch", "--floating-base", "--connection", "levi-civita"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "free_flyer x1" in out and "nv = 20" in out


def test_floating_base_where_the_base_has_no_inertia_is_bad_input(capsys):
    line = usage_error(capsys, "inspect", "ur5", "--floating-base")
    assert "link 'base_link' is moved by joint 'root_joint' but has no <inertial>" in line


@pytest.mark.parametrize("name", ["cartan-minus", "-", "cartan-schouten-"])
def test_connection_selects_one_row(capsys, name):
    """An alias selects the row of its canonical name (one registry of connection names)."""
    assert main(["inspect", "scara", "--connection", name]) == EXIT_OK
    out = capsys.readouterr().out
    rows = [line.split()[0] for line in out.splitlines() if line.startswith("    cartan")]
    assert rows == ["cartan-minus"]
    assert "levi-civita" not in out.split("legend")[0]


def test_seed_changes_the_states_and_json_gives_the_same_figures(capsys):
    assert main(["inspect", "double_pendulum", "--json", "--seed", "3"]) == EXIT_OK
    report = json.loads(capsys.readouterr().out)
    assert (
        report["seed"] == 3 and report["passed"] is True and report["target"] == "double_pendulum"
    )
    assert report["model"]["nv"] == 2
    assert [c["name"] for c in report["checks"]][:2] == ["ABA(RNEA(a)) = a", "RNEA(ABA(tau)) = tau"]
    assert [r["name"] for r in report["connections"]["rows"]] == body_connection_names()
    assert report["connections"]["rows"][0]["expected"] == {
        "metric_compatible": True,
        "correct_dynamics": True,
        "torsion_free": True,
    }
    assert main(["inspect", "double_pendulum", "--json", "--seed", "4"]) == EXIT_OK
    other = json.loads(capsys.readouterr().out)
    assert other["checks"][0]["error"] != report["checks"][0]["error"]  # other random states
    assert main(["inspect", "double_pendulum", "--seed", "3"]) == EXIT_OK
    text = capsys.readouterr().out
    assert f"{report['checks'][2]['error']:.2e}" in text  # the same figure in the text


def test_json_for_a_group(capsys):
    assert main(["inspect", "SO3", "--json"]) == EXIT_OK
    report = json.loads(capsys.readouterr().out)
    assert report["kind"] == "group" and report["group"]["dim"] == 3


# ---- models that are legitimate but special ---------------------------------------------------
def test_zero_dof_model(tmp_path, capsys):
    path = tmp_path / "statue.urdf"
    path.write_text(zero_dof())
    assert main(["inspect", str(path)]) == EXIT_OK
    out = capsys.readouterr().out
    assert "nv = 0" in out and "no degrees of freedom: nothing to check" in out
    assert main(["inspect", str(path), "--json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["checks"] == []


def test_singular_mass_matrix_is_a_failed_check(tmp_path, capsys):
    path = tmp_path / "ghost.urdf"
    path.write_text(massless_leaf())
    assert "has no <inertial>" in usage_error(capsys, "inspect", str(path))  # strict: bad input
    assert main(["inspect", str(path), "--lenient"]) == EXIT_FAILED
    out, err = capsys.readouterr()
    assert "H positive definite" in out and "min eigenvalue 0.00e+00  FAILED" in out
    assert "ABA(RNEA(a)) = a" in out and "SingularityError" in out
    assert "checks FAILED" in out
    assert "warning: load_urdf(strict=False) kept 1 defect(s)" in err
    assert "link 'arm': moved by joint 'j1' but has no <inertial> (zero inertia)" in err
    assert "Traceback" not in err


def test_latin1_file_with_its_declaration_loads(tmp_path, capsys):
    path = tmp_path / "latin1.urdf"
    path.write_bytes(latin1_bytes())
    assert main(["inspect", str(path), "--connection", "levi-civita"]) == EXIT_OK
    assert "'café'" in capsys.readouterr().out


# ---- bad input: exit 2, one line ---------------------------------------------------------------
def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
    return str(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (pendulum(mass="1e308"), "<mass value>: expected numbers of magnitude at most 1e+12"),
        (pendulum(mass="1e-320"), "got the subnormal '1e-320'"),
        (pendulum(axis="1e308 1e308 0"), "<axis xyz>: expected numbers of magnitude at most"),
        (non_utf8_bytes(), "Malformed URDF XML: not well-formed"),
        (chain(20_000), "more than 1000 <link> elements (URDFLimits.max_links)"),
        (chain(2_000), "more than 1000 <link> elements"),
        ("<robot/>", "has no <link>: an empty robot description"),
    ],
    ids=[
        "mass 1e308",
        "mass 1e-320",
        "axis 1e308",
        "non-UTF-8",
        "20000 links",
        "2000 links",
        "empty robot",
    ],
)
def test_bad_files_are_one_line_usage_errors(content, message, tmp_path, capsys):
    path = _write(tmp_path, "bad.urdf", content)
    line = usage_error(capsys, "inspect", path)
    assert line.startswith(f"geomech inspect: error: cannot load {path!r}: ") and message in line


def _listed(line: str, what: str) -> list[str]:
    """The names listed after ``what (`` in an error line."""
    match = re.search(re.escape(what) + r" \(((?:\d+ installed: )?)([^;)]*)", line)
    assert match, (what, line)
    return match.group(2).split(", ")


def test_missing_file_says_no_such_file_and_lists_models_once(capsys):
    line = usage_error(capsys, "inspect", "nothing/here.urdf")
    assert "no such file or model 'nothing/here.urdf':" in line  # nothing close: no suggestion
    assert _listed(line, "a built-in model") == robots.names()
    assert _listed(line, "or a group") == ["SO3", "SE3", "SE2", "Schoenflies", "R3"]
    line = usage_error(capsys, "inspect", "r2d2")
    assert "no such file or model 'r2d2'" in line and line.count("a built-in model") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["inspect", "/dev/zero"], "not a regular file"),
        (["inspect", "a\x00b.urdf"], "no such file or model"),
        (["inspect", "a" * 5000], "no such file or model 'aaaa"),
        (
            ["inspect", "--connection", "bogus"],
            "unknown body connection 'bogus': expected one of levi-civita",
        ),
        (["inspect", "SO3", "--lenient"], "--lenient applies to models, not to the group 'SO3'"),
        (["inspect", "SE3", "--floating-base"], "--floating-base applies to models"),
        (["inspect", "scara", "--floating-base"], "'scara' has no `floating_base` option"),
        (["inspect", "--seed", "-1"], "--seed must be a nonnegative integer, got -1"),
        (["inspect", "--seed", "x"], "argument --seed: invalid int value: 'x'"),
        (["inspect", "--seed", "1.5"], "argument --seed: invalid int value: '1.5'"),
        (["inspect", "--connection"], "argument --connection: expected one argument"),
        (["inspect", "--bogus"], "unrecognized arguments: --bogus"),
        (["bogus"], "invalid choice: 'bogus'"),
    ],
)
def test_usage_errors(args, message, capsys):
    if args[1:2] == ["/dev/zero"] and not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    line = usage_error(capsys, *args)
    assert message in line
    # one program name: the command that was run, whichever parser or check found the error
    prog = "geomech inspect" if args[0] == "inspect" else "geomech"
    assert line.startswith(f"{prog}: error: "), line


def test_directory_and_fifo_are_usage_errors(tmp_path, capsys):
    assert "it is a directory" in usage_error(capsys, "inspect", str(tmp_path))
    fifo = tmp_path / "pipe.urdf"
    os.mkfifo(fifo)
    assert "not a regular file" in usage_error(capsys, "inspect", str(fifo))


# ---- the process: help, -m, closed pipe, no traceback -------------------------------------
def test_no_arguments_prints_help():
    code, out, err = run()
    assert code == EXIT_OK and err == ""
    assert out.startswith("usage: geomech") and "inspect" in out and "exit status" in out


def test_help_of_inspect_lists_the_options():
    code, out, _ = run("inspect", "--help")
    assert code == EXIT_OK
    for option in ("--floating-base", "--lenient", "--connection NAME", "--seed", "--json"):
        assert option in out


def test_python_dash_m_runs():
    code, out, err = run("inspect", "double_pendulum")
    assert code == EXIT_OK, err
    assert "checks passed" in out


def test_bad_input_in_a_process_is_one_line_without_traceback(tmp_path):
    code, out, err = run("inspect", _write(tmp_path, "x.urdf", pendulum(mass="1e-320")))
    assert code == EXIT_USAGE and out == ""
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_closed_pipe_ends_quietly():
    """The reader is gone before anything is written (``geomech inspect | true``)."""
    proc = subprocess.Popen([sys.executable, "-m", "geomech", "inspect", "double_pendulum"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)  # fmt: skip
    proc.stdout.close()  # every write of the command now fails with EPIPE
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=120)
    assert err == "", err  # no traceback, no "Exception ignored ... BrokenPipeError"
    assert code == EXIT_OK  # the checks' status: they all passed


def test_closed_pipe_after_the_first_line(tmp_path):
    """``geomech inspect | head -1`` through a real shell pipeline."""
    script = f"{sys.executable} -m geomech inspect double_pendulum 2>{tmp_path / 'err'} | head -1"
    out = subprocess.run(["sh", "-c", script], capture_output=True, text=True, env=ENV,
                         timeout=120, check=True).stdout  # fmt: skip
    assert out.startswith("MultibodyModel 'double_pendulum'")
    assert (tmp_path / "err").read_text() == ""


def test_an_internal_error_is_one_line(monkeypatch, capsys):
    import geomech.cli as cli

    def broken(*args):
        raise RuntimeError("a bug\nover two lines")

    monkeypatch.setattr(cli, "_inspect_model", broken)
    assert main(["inspect", "double_pendulum"]) == EXIT_FAILED
    out, err = capsys.readouterr()
    assert err == ("geomech inspect: internal error: RuntimeError: a bug over two lines "
                   "(please report it)\n")  # fmt: skip


# ---- issue 29: the first five minutes -------------------------------------------------------
def test_version_is_the_installed_distributions():
    code, out, err = run("--version")
    assert (code, err) == (EXIT_OK, "")
    assert out == f"geomech {importlib.metadata.version('geomech')}\n"


def _typos(name: str, rng: random.Random) -> list[str]:
    """Three one-keystroke slips of ``name``: a letter dropped, doubled, two letters swapped."""
    i = rng.randrange(len(name) - 1)
    return [
        name[:i] + name[i + 1 :],
        name[:i] + name[i] + name[i:],
        name[:i] + name[i + 1] + name[i] + name[i + 2 :],
    ]


def _suggestions(line: str) -> list[str]:
    match = re.search(r"\(did you mean (.*?)\?\)", line)
    return re.findall(r"'([^']*)'", match.group(1)) if match else []


def _every_robot_name() -> list[str]:
    return robots.names() + robots.example_robot_data_names()


@pytest.mark.parametrize("name", _every_robot_name())
def test_did_you_mean_every_robot_name(name, capsys):
    """A slip of any built-in or installed robot name suggests that name (seeded slips)."""
    if len(name) < 5:
        pytest.skip("too short for a one-keystroke slip to be unambiguous")
    for typo in _typos(name, random.Random(name)):
        if typo == name or typo in _every_robot_name():
            continue
        line = usage_error(capsys, "inspect", typo)
        assert f"no such file or model {typo!r} (did you mean" in line, line
        assert name in _suggestions(line), (typo, line)


@pytest.mark.parametrize(
    ("typo", "meant"),
    [("UR5", "ur5"), ("se3", "SE3"), ("humanoidd", "humanoid"), ("ur5.urdff", "ur5.urdf"),
     ("schoenflies", "Schoenflies"), ("stretch3", "stretch")],
)  # fmt: skip
def test_did_you_mean_case_and_suffix(typo, meant, capsys):
    assert meant in _suggestions(usage_error(capsys, "inspect", typo))


def test_did_you_mean_panda_in_a_process():
    if "panda" not in robots.example_robot_data_names():
        pytest.skip("example-robot-data is not installed")
    code, out, err = run("inspect", "pandaa")
    assert code == EXIT_USAGE and out == "" and len(err.splitlines()) == 1
    assert err.startswith("geomech inspect: error: no such file or model 'pandaa' (did you mean "
                          "'panda'")  # fmt: skip


def test_did_you_mean_a_connection(capsys):
    line = usage_error(capsys, "inspect", "--connection", "levi-civitta")
    assert _suggestions(line) == ["levi-civita"]


def test_installed_example_robot_data_robots_are_listed(capsys):
    installed = robots.example_robot_data_names()
    if not installed:
        pytest.skip("example-robot-data is not installed")
    line = usage_error(capsys, "inspect", "no-such-robot")
    assert f"an example-robot-data robot ({len(installed)} installed: " in line
    assert _listed(line, "an example-robot-data robot") == installed
    assert "pip install" not in line


def test_without_example_robot_data_the_install_hint(monkeypatch, capsys):
    monkeypatch.setattr(robots, "example_robot_data_names", lambda qualified=False: [])
    line = usage_error(capsys, "inspect", "pandaa")
    assert line.endswith("pip install 'geomech[robots]'")
    assert "example-robot-data robot (" not in line
    assert _suggestions(line) == []  # nothing built in is close to it


def _shell(command: str) -> tuple[int, str, str]:
    """Run ``python -m geomech`` with a shell redirection: (status, stdout, stderr)."""
    proc = subprocess.run(
        ["sh", "-c", f"'{sys.executable}' -m geomech {command}"],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=120,
        check=False,
    )
    return proc.returncode, proc.stdout, proc.stderr


def _one_output_error(code: int, err: str, prog: str, reason: str) -> None:
    assert code == EXIT_USAGE, err
    assert err.splitlines() == [f"{prog}: error: cannot write to standard output: {reason}"]


@pytest.mark.parametrize(
    ("args", "prog"),
    [("inspect SO3", "geomech inspect"), ("inspect SO3 --json", "geomech inspect"),
     ("inspect double_pendulum", "geomech inspect"), ("--version", "geomech"),
     ("", "geomech"), ("inspect --help", "geomech inspect")],
)  # fmt: skip
def test_closed_stdout_is_one_line_and_status_2(args, prog):
    """``geomech ... >&-``: no stdout at all. Not an internal error, no traceback."""
    code, _, err = _shell(f"{args} >&-")
    _one_output_error(code, err, prog, "standard output is closed")


@pytest.mark.parametrize(
    ("args", "prog"),
    [("inspect SO3", "geomech inspect"), ("inspect SO3 --json", "geomech inspect"),
     ("inspect double_pendulum", "geomech inspect"), ("--version", "geomech"),
     ("", "geomech"), ("inspect --help", "geomech inspect")],
)  # fmt: skip
def test_full_disk_is_one_line_and_status_2(args, prog):
    """``geomech ... > /dev/full``: every write fails with ENOSPC."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    code, _, err = _shell(f"{args} > /dev/full")
    _one_output_error(code, err, prog, os.strerror(28))


def test_closed_stdout_fails_before_the_work(tmp_path):
    """Nothing can be reported, so nothing is loaded or checked: the lenient load of a
    defective file would warn on stderr, and a singular mass matrix would fail the checks."""
    path = tmp_path / "ghost.urdf"
    path.write_text(massless_leaf())
    code, _, err = _shell(f"inspect '{path}' --lenient >&-")
    _one_output_error(code, err, "geomech inspect", "standard output is closed")


def _legend_terms(out: str) -> list[str]:
    """The terms the legend explains (first column of its two-column lines)."""
    legend = out.split("\n  legend:\n", 1)[1]
    terms = []
    for line in legend.splitlines():
        match = re.match(r"    (\S.*?)  +\S", line)
        if match and not line.startswith("      "):
            terms.append(match.group(1))
    return terms


def test_every_abbreviation_of_the_model_report_has_a_legend_line(capsys):
    assert main(["inspect", "double_pendulum"]) == EXIT_OK
    out = capsys.readouterr().out
    terms = _legend_terms(out)
    explained = {part for term in terms for part in term.split(", ")} | set(terms)
    # the connection table's columns, read off its header (whatever the report prints)
    header = next(line for line in out.splitlines() if line.split()[:1] == ["connection"])
    columns = re.findall(r"\S+(?: ms)?", header.strip())[1:]
    assert "Alg1 ms" in columns and "|Cv-c|" in columns
    for column in columns:
        assert column in explained or any(column in t.split() for t in terms), column
    # the abbreviations of the checks and of the summary line
    for word in ("nq", "nv", "depth", "RNEA", "ABA", "CRBA", "H", "g(q)", "T", "max error"):
        assert word in explained, word
    # what the report cites, in its own words
    for cited in ("seed 000", "Props. V.1-V.3"):
        assert cited in out.split("legend:")[0] or cited in out
        assert cited in terms, cited
    seed_line = out.split("\n    seed 000", 1)[1].split("\n    Props.")[0]
    assert "Wensing" in seed_line and "arXiv:2312.14425" in seed_line


def test_the_group_report_has_a_legend(capsys):
    assert main(["inspect", "SE2"]) == EXIT_OK
    terms = _legend_terms(capsys.readouterr().out)
    assert {"Ad, ad", "exp, log, expm", "xi", "max error"} <= set(terms)


def test_a_model_without_checks_has_no_legend(tmp_path, capsys):
    path = tmp_path / "statue.urdf"
    path.write_text(zero_dof())
    assert main(["inspect", str(path)]) == EXIT_OK
    assert "legend" not in capsys.readouterr().out
