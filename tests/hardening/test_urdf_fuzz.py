"""Property tests: load_urdf fed mutated valid files raises nothing but URDFError, never hangs.

Mutations of valid URDFs at three levels (bytes, numbers, tags and attributes), derandomized
so that CI is reproducible; hypothesis' deadline bounds each load. Whatever loads must be a
model with finite arrays.
"""

import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomech.errors import URDFError
from geomech.multibody import MultibodyModel, robots
from geomech.multibody.io.urdf import load_urdf, to_urdf
from hardening.hostile_inputs import joint, link, robot

HAND_WRITTEN = robot(
    link("base", inertial=False),
    '<link name="arm"><inertial><origin xyz="0.1 0.2 0.3" rpy="0.3 -0.2 0.1"/><mass value="2"/>'
    '<inertia ixx="0.04" ixy="0.001" ixz="-0.002" iyy="0.05" iyz="0.003" izz="0.06"/></inertial>'
    '<visual><geometry><mesh filename="package://x/arm.dae"/></geometry></visual></link>',
    link("sensor", "0.5", "0.001"),
    link("hand", "1", "0.01"),
    link("slider", "0.3", "0.02"),
    joint("shoulder", "base", "arm", origin='<origin xyz="0 0 1" rpy="0 0 1.5707963267948966"/>',
          axis="0 0 2"),
    '<joint name="mount" type="fixed"><origin xyz="0.5 0 0" rpy="1.57 0 0"/>'
    '<parent link="arm"/><child link="sensor"/></joint>',
    joint("elbow", "sensor", "hand", jtype="continuous", axis="0 1 0"),
    joint("extend", "hand", "slider", jtype="prismatic", axis="1 0 0"),
    name="fuzz_bot",
)  # fmt: skip
SEEDS = [HAND_WRITTEN, to_urdf(robots.double_pendulum()), to_urdf(robots.load("ur5"))]
HOSTILE_NUMBERS = ["nan", "inf", "-inf", "1e308", "1e-320", "-0", "1e400", "abc", "", "1 2",
                   "0x10", "1e12", "1e13", "-1", "1_0", "4.9e-324", "1e-13", "0 0 0"]  # fmt: skip
TAGS = ["robot", "link", "joint", "inertial", "mass", "inertia", "origin", "axis", "parent",
        "child", "limit", "visual", "x"]  # fmt: skip
JUNK = st.text(alphabet=list("<>/\"'= &;!?[]-abcjlnrotxyz0123456789.e\x00\xe9\u2603"), max_size=12)
#: Mutation kinds, weighted towards those that keep the XML well formed (so that the
#: checks after parsing are reached as often as the parser's own).
KINDS = ["number"] * 3 + ["attribute"] * 4 + ["tag"] * 2 + ["delete", "insert", "duplicate",
                                                          "truncate"]  # fmt: skip
ATTRIBUTE = re.compile(r'="([^"<&]*)"')
LINK_NAME = re.compile(r'<link name="([^"]*)"')
NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:e-?\d+)?")
TAG = re.compile(r"(?<=<)/?(\w+)")


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(KINDS))
        if kind in ("delete", "insert", "duplicate"):
            i = draw(st.integers(0, len(text)))
            j = min(len(text), i + draw(st.integers(0, 40)))
            if kind == "delete":
                text = text[:i] + text[j:]
            elif kind == "insert":
                text = text[:i] + draw(JUNK) + text[i:]
            else:
                text = text[:j] + text[i:j] + text[j:]
        elif kind == "number":
            spans = [m.span() for m in NUMBER.finditer(text)]
            if spans:
                i, j = spans[draw(st.integers(0, len(spans) - 1))]
                text = text[:i] + draw(st.sampled_from(HOSTILE_NUMBERS)) + text[j:]
        elif kind == "attribute":  # another link's name, a hostile number or junk as a value
            spans = [m.span(1) for m in ATTRIBUTE.finditer(text)]
            if spans:
                i, j = spans[draw(st.integers(0, len(spans) - 1))]
                names = [m.group(1) for m in LINK_NAME.finditer(text)] or ["x"]
                value = draw(
                    st.one_of(
                        st.sampled_from(names),
                        st.sampled_from(HOSTILE_NUMBERS),
                        st.text(alphabet=list("abc xyz-._0123456789&;"), max_size=8),
                    )
                )
                text = text[:i] + value + text[j:]
        elif kind == "tag":
            spans = [m.span(1) for m in TAG.finditer(text)]
            if spans:
                i, j = spans[draw(st.integers(0, len(spans) - 1))]
                text = text[:i] + draw(st.sampled_from(TAGS)) + text[j:]
        else:
            text = text[: draw(st.integers(0, len(text)))]
    as_bytes = draw(st.booleans())
    return text.encode("utf-8", "surrogatepass") if as_bytes else text


@settings(derandomize=True, max_examples=400, deadline=2000,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
@given(source=mutated(), strict=st.booleans(), floating_base=st.booleans())
def test_mutated_urdfs_raise_only_urdf_errors(source, strict, floating_base):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lenient loads warn by design
        try:
            model = load_urdf(source, floating_base, strict=strict)
        except URDFError as exc:
            assert "\n" not in str(exc)
            return
    assert isinstance(model, MultibodyModel)
    for array in (model.inertias, model.placements, model.X_tree):
        assert np.all(np.isfinite(array))


@pytest.mark.parametrize("seed", SEEDS)
def test_the_seeds_themselves_load(seed):
    assert load_urdf(seed).nv > 0
