"""Kinematics of closed models (issue 24 item 1): the spanning tree's, with respect to the
independent speeds.

Checked against finite differences of the body poses along the closed motion
(``model.integrate``, which keeps the loops closed), not against the code's own G:
- body twists: (T⁻¹ Ṫ)∨ by central differences equals ``body_velocities(model, q, v)``;
- ``body_jacobians(model, q) @ v`` equals the twists, and ``velocity_map``'s A equals the
  stacked Jacobians;
- Ȧ by central differences of A along the motion equals ``velocity_map(model, q, v)[1]``;
- poses of an open state are refused with NotOnManifoldError.
"""

import numpy as np
import pytest

import geomech as gm
from geomech.errors import NotOnManifoldError
from geomech.lie import SE3
from geomech.multibody.io.examples import example_names, load_example

H = 1e-6


@pytest.fixture(params=example_names())
def closed(request):
    return load_example(request.param)


def _twists_by_differences(model, q, v):
    Tp = gm.forward_kinematics(model, model.integrate(q, v, H))
    Tm = gm.forward_kinematics(model, model.integrate(q, v, -H))
    T = gm.forward_kinematics(model, q)
    # body twist [ω; v] = vee(T⁻¹ Ṫ)
    T_dot = (Tp - Tm) / (2 * H)
    return SE3.vee(np.linalg.inv(T) @ T_dot)


def test_body_twists_follow_the_closed_motion(closed):
    rng = np.random.default_rng(3)
    for _ in range(3):
        q = closed.random_configuration(rng)
        v = rng.standard_normal(closed.nv)
        twists = gm.body_velocities(closed, q, v)
        assert np.allclose(twists, _twists_by_differences(closed, q, v), atol=1e-7)
        J = gm.body_jacobians(closed, q)
        assert J.shape == (closed.n_bodies, 6, closed.nv)
        assert np.allclose(J @ v, twists, atol=1e-12)
        A, A_dot = gm.velocity_map(closed, q, v)
        assert np.allclose(A, J.reshape(-1, closed.nv), atol=0)
        Ap = gm.velocity_map(closed, closed.integrate(q, v, H))
        Am = gm.velocity_map(closed, closed.integrate(q, v, -H))
        assert np.allclose((Ap - Am) / (2 * H), A_dot, atol=1e-6)


def test_batched_kinematics_of_closed_models(closed):
    rng = np.random.default_rng(4)
    Q = closed.random_configuration(rng, size=3)
    V = rng.standard_normal((3, closed.nv))
    batch = gm.body_velocities(closed, Q, V)
    single = np.stack([gm.body_velocities(closed, Q[i], V[i]) for i in range(3)])
    assert np.allclose(batch, single, atol=1e-13)
    assert gm.forward_kinematics(closed, Q).shape == (3, closed.n_bodies, 4, 4)


def test_poses_of_an_open_state_are_refused():
    model = load_example("four_bar")
    q = model.random_configuration(rng=0) + 0.1
    with pytest.raises(NotOnManifoldError):
        gm.forward_kinematics(model, q)


def test_reference_configuration_keyword():
    """``reference_configuration=`` seeds the closure search (constructor and load_urdf), and
    is refused for a tree."""
    from geomech.errors import URDFError
    from geomech.multibody import ClosedMultibodyModel
    from geomech.multibody.io.examples import example_path
    from geomech.multibody.io.robots import urdf_path

    model = load_example("four_bar")
    q = model.random_configuration(rng=5)
    again = ClosedMultibodyModel(model.graph, reference_configuration=q)
    assert np.allclose(again.neutral(), q, atol=1e-12)
    loaded = gm.load_urdf(example_path("four_bar"), reference_configuration=q)
    assert np.allclose(loaded.neutral(), q, atol=1e-12)
    with pytest.raises(URDFError, match="reference_configuration"):
        gm.load_urdf(urdf_path("ur5"), reference_configuration=np.zeros(6))
