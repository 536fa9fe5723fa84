"""Hostile URDF files and paths (issue 18 items 1-5): a named error (or a correct load) fast.

Every case runs in a forked child (:func:`hostile_inputs.run_case`) and must finish within
2 s and 200 MB over the interpreter's baseline, raising the named :class:`GeomechError`
subclass with a one-line message, or load correctly where the file is legitimate.
"""

import os

import numpy as np
import pytest

from geomech.errors import ModelError, URDFError
from geomech.multibody import robots
from geomech.multibody.io.urdf import URDFLimits, load_urdf
from hardening.hostile_inputs import (
    assert_bounded,
    chain,
    joint,
    latin1_bytes,
    link,
    non_utf8_bytes,
    pendulum,
    robot,
    run_case,
    zero_dof,
)

BASE = link("base", inertial=False)

# ---- item 1: nothing is silently dropped -------------------------------------------------
DETACHED_CYCLE = robot(BASE, link("a"), link("b"), link("c"), joint("j0", "base", "a"),
                       joint("j1", "b", "c"), joint("j2", "c", "b"))  # fmt: skip
SELF_LOOP = robot(BASE, link("a"), link("u"), joint("j0", "base", "a"), joint("jself", "u", "u"))
LONG_CYCLE = robot(BASE, link("a"), *[link(f"c{i}") for i in range(5)], joint("j0", "base", "a"),
                   *[joint(f"k{i}", f"c{i}", f"c{(i + 1) % 5}") for i in range(5)])  # fmt: skip
# a tail hanging off a detached cycle: the error names the cycle, not the tail
CYCLE_WITH_TAIL = robot(BASE, link("a"), link("b"), link("c"), link("t"),
                        joint("j0", "base", "a"), joint("j1", "b", "c"), joint("j2", "c", "b"),
                        joint("j3", "c", "t"))  # fmt: skip

# ---- item 3/4: absurd numbers are refused where they are read -----------------------------
ENTITY_BOMB = ('<?xml version="1.0"?><!DOCTYPE robot [<!ENTITY a "aaaaaaaaaa">'
               + "".join(f'<!ENTITY {chr(98 + k)} "' + f"&{chr(97 + k)};" * 10 + '">'
                         for k in range(8))
               + ']><robot name="&i;"><link name="base"/></robot>')  # fmt: skip
EXTERNAL_ENTITY = ('<?xml version="1.0"?><!DOCTYPE robot [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                   '<robot name="&x;"><link name="base"/></robot>')  # fmt: skip

CASES = {
    # name: (source factory given tmp_path, expected error or None, message regex)
    "detached cycle": (
        lambda p: DETACHED_CYCLE,
        URDFError,
        r"2 link\(s\) are not connected to the root link 'base': the joints form "
        r"a cycle \(links \['b', 'c'\], joints \['j1', 'j2'\]\)",
    ),
    "self-loop": (
        lambda p: SELF_LOOP,
        URDFError,
        r"joint 'jself' connects link 'u' to itself \(a self-loop\)",
    ),
    "long detached cycle": (
        lambda p: LONG_CYCLE,
        URDFError,
        r"5 link\(s\) are not connected .* cycle \(links \['c0', 'c1', 'c2', "
        r"'c3', 'c4'\], joints \['k0', 'k1', 'k2', 'k3', 'k4'\]\)",
    ),
    "detached cycle with a tail": (
        lambda p: CYCLE_WITH_TAIL,
        URDFError,
        r"3 link\(s\) .* cycle \(links \['b', 'c'\]",
    ),
    "100 MB file": (
        lambda p: _sparse(p / "huge.urdf", 100 * 2**20),
        URDFError,
        r"larger than 8388608 bytes \(URDFLimits.max_bytes\)",
    ),
    "20,000 links (4.2 MB)": (
        lambda p: _write(p / "long.urdf", chain(20_000)),
        URDFError,
        r"more than 1000 <link> elements \(URDFLimits.max_links\)",
    ),
    "2,000 links": (
        lambda p: _write(p / "c2000.urdf", chain(2_000)),
        URDFError,
        r"more than 1000 <link> elements",
    ),
    "999-link chain (the largest default)": (lambda p: chain(999), None, None),
    "/dev/zero": (lambda p: "/dev/zero", URDFError, r"'/dev/zero': not a regular file"),
    "FIFO": (lambda p: _fifo(p / "pipe.urdf"), URDFError, r"not a regular file"),
    "directory": (lambda p: p, URDFError, r"it is a directory"),
    # relative to the test's own directory (the test changes into it): messages shorten paths
    # past 80 characters, and a worker's temporary directory can be that long
    "missing file": (lambda p: "nothing.urdf", URDFError, r"'nothing.urdf': no such file"),
    "NUL byte in the path": (lambda p: "a\x00.urdf", URDFError, r"embedded null byte"),
    "5000-character path": (lambda p: "a" * 5000, URDFError, r"Cannot read URDF file '\.\.\.aaa"),
    "nesting 100,000 deep": (
        lambda p: "<robot>" + "<a>" * 100_000 + "</a>" * 100_000 + "</robot>",
        URDFError,
        r"deeper than 32 levels \(URDFLimits.max_depth\)",
    ),
    "4 MiB of ignored elements": (
        lambda p: robot(BASE, "<gazebo>" + "<x/>" * 2**20 + "</gazebo>"),
        None,
        None,
    ),
    "entity bomb": (lambda p: ENTITY_BOMB, URDFError, r"declares an XML entity 'a'"),
    "external entity": (lambda p: EXTERNAL_ENTITY, URDFError, r"declares an XML entity 'x'"),
    "mass 1e-320": (
        lambda p: pendulum(mass="1e-320"),
        URDFError,
        r"link 'arm' <mass value>: expected 0 or numbers of magnitude at least "
        r"2.23e-308 \(normal doubles\), got the subnormal '1e-320'",
    ),
    "mass 1e-13": (
        lambda p: pendulum(mass="1e-13"),
        URDFError,
        r"expected a mass of 0 or at least 1e-12 \(URDFLimits.min_mass\), got 1e-13",
    ),
    "mass 1e308": (
        lambda p: pendulum(mass="1e308"),
        URDFError,
        r"<mass value>: expected numbers of magnitude at most 1e\+12",
    ),
    "inertia 1e308": (
        lambda p: pendulum(inertia="1e308"),
        URDFError,
        r"<inertia ixx>: expected numbers of magnitude at most 1e\+12",
    ),
    "mass 1e400 (inf)": (lambda p: pendulum(mass="1e400"), URDFError, r"expected 1 finite numbers"),
    "axis 1e308 1e308 0": (
        lambda p: pendulum(axis="1e308 1e308 0"),
        URDFError,
        r"joint 'hinge' <axis xyz>: expected numbers of magnitude at most",
    ),
    "axis nan": (lambda p: pendulum(axis="nan 0 1"), URDFError, r"expected 3 finite numbers"),
    "Latin-1 file declaring its encoding": (
        lambda p: _write(p / "latin1.urdf", latin1_bytes()),
        None,
        None,
    ),
    "non-UTF-8 file without declaration": (
        lambda p: _write(p / "bad.urdf", non_utf8_bytes()),
        URDFError,
        r"Malformed URDF XML: not well-formed",
    ),
    "unknown declared encoding": (
        lambda p: b'<?xml version="1.0" encoding="bogus"?><robot/>',
        URDFError,
        r"Malformed URDF XML: unknown encoding",
    ),
    "0-dof robot": (lambda p: zero_dof(), None, None),
    "empty <robot>": (lambda p: "<robot/>", URDFError, r"has no <link>: an empty robot"),
    "1 MB link name": (
        lambda p: robot(link("x" * 2**20), link("x" * 2**20)),
        URDFError,
        r"link 'xxxx.*\.\.\.' is defined more than once",
    ),
    "wrong type": (lambda p: 42, URDFError, r"got int"),
}


#: Legitimate files as large as the default limits allow.
AT_THE_LIMIT = {"999-link chain (the largest default)", "4 MiB of ignored elements"}


def _write(path, content):
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def _sparse(path, size):
    with open(path, "wb") as fh:
        fh.truncate(size)  # a 100 MB file without writing 100 MB
    return path


def _fifo(path):
    os.mkfifo(path)
    return path


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the harness forks")
@pytest.mark.parametrize("case", list(CASES))
def test_hostile_urdf(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    factory, expected, match = CASES[case]
    if case == "/dev/zero" and not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    source = factory(tmp_path)
    outcome = run_case(lambda: load_urdf(source))
    # the reproducers fail within 2 s; the largest legitimate files within the
    # default limits take about a second on an idle machine: a looser bound for the load
    assert_bounded(outcome, expected, match, time_limit=5.0 if case in AT_THE_LIMIT else 2.0)


def test_legitimate_hostile_looking_files_load_correctly(tmp_path):
    model = load_urdf(_write(tmp_path / "latin1.urdf", latin1_bytes()))
    assert model.graph.graph["name"] == "café" and model.root == "bäse"
    assert model.body_names == ["ärm"] and model.joint_names == ["gelenk"]
    assert load_urdf(latin1_bytes()).body_names == ["ärm"]  # bytes honour the declaration too
    # a str is already decoded: its (now wrong) declaration is ignored
    assert load_urdf(latin1_bytes().decode("latin-1")).body_names == ["ärm"]
    # ignored elements cost no memory but still count for the depth limit
    assert load_urdf(robot(BASE, "<gazebo>" + "<x/>" * 1000 + "</gazebo>")).n_bodies == 0
    still = load_urdf(zero_dof())
    assert (still.nq, still.nv, still.n_bodies) == (0, 0, 0)
    np.testing.assert_allclose(still.graph.nodes["base"]["base_inertia"][5, 5], 2.0)


def test_limits_are_overridable(tmp_path):
    text = chain(1_200)
    with pytest.raises(URDFError, match="URDFLimits.max_links"):
        load_urdf(text)
    assert load_urdf(text, limits=URDFLimits(max_links=1_201)).nv == 1_200
    with pytest.raises(URDFError, match="larger than 100 bytes"):
        load_urdf(pendulum(), limits=URDFLimits(max_bytes=100))
    with pytest.raises(URDFError, match="larger than 100 bytes"):
        load_urdf(_write(tmp_path / "p.urdf", pendulum()), limits=URDFLimits(max_bytes=100))
    assert load_urdf(pendulum(mass="1e13"), limits=URDFLimits(max_magnitude=1e14)).nv == 1
    assert load_urdf(pendulum(mass="1e-13"), limits=URDFLimits(min_mass=1e-14)).nv == 1
    with pytest.raises(URDFError, match="deeper than 3 levels"):
        load_urdf(pendulum(), limits=URDFLimits(max_depth=3))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_links": 0}, r"`URDFLimits.max_links` to be a positive int, got 0"),
        ({"max_bytes": 1.5}, r"`URDFLimits.max_bytes` to be a positive int"),
        ({"max_depth": True}, r"`URDFLimits.max_depth` to be a positive int"),
        ({"max_magnitude": float("inf")}, r"`URDFLimits.max_magnitude` to be a positive finite"),
        ({"min_mass": -1.0}, r"`URDFLimits.min_mass` to be a positive finite"),
    ],
)
def test_limits_validate_themselves(kwargs, message):
    with pytest.raises(URDFError, match=message):
        URDFLimits(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"limits": {"max_links": 5}}, "Expected `limits` to be a URDFLimits, got dict"),
        ({"strict": "no"}, "Expected `strict` to be a bool"),
        ({"floating_base": 1}, "Expected `floating_base` to be a bool"),
    ],
)
def test_load_urdf_validates_its_options(kwargs, message):
    with pytest.raises(URDFError, match=message):
        load_urdf(pendulum(), **kwargs)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the harness forks")
@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("a" * 5000, r"No such model or file: .* got 'aaaa.*\.\.\.'"),
        ("a\x00.urdf", r"No such model or file"),
        ("/dev/zero", None),
        (42, r"Expected `name` to be a str or a path, got int"),
    ],
)
def test_robots_load_never_leaks_os_errors(name, message):
    expected = URDFError if name == "/dev/zero" else ModelError
    if name == "/dev/zero" and not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    assert_bounded(run_case(lambda: robots.load(name)), expected, message)
