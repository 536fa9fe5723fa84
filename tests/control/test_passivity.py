"""SlotineLi on a MechanicalSystem and the torsion experiment, against seed 000 §3.3."""

import numpy as np
import pytest
from scipy.integrate import trapezoid

from geomech.control import SlotineLi, torsion_experiment
from geomech.errors import GeomechError, NonFiniteError
from geomech.geometry import AffineConnection, LeviCivitaConnection
from geomech.geometry.examples import point_mass


@pytest.fixture(scope="module")
def run():
    return torsion_experiment(beta=-5.0, t_final=20.0)


def test_initial_torque_hand_values(run):
    # seed 000 §3.3: tau(0) = [3.8, -1.9, 0 or 10], V(0) = 2.5
    np.testing.assert_allclose(run.torsion_free.tau[0], [3.8, -1.9, 0.0], atol=1e-14)
    np.testing.assert_allclose(run.torsion.tau[0], [3.8, -1.9, 10.0], atol=1e-14)
    assert run.torsion_free.signals["V"][0] == pytest.approx(2.5, abs=1e-14)


def test_torsion_lifts_out_of_plane(run):
    z0, z5 = run.torsion_free.q[:, 2], run.torsion.q[:, 2]
    assert np.abs(z0).max() < 1e-12
    k = np.argmax(np.abs(z5))
    assert np.abs(z5).max() == pytest.approx(0.1356, abs=1e-3) and z5[k] > 0
    assert run.torsion.t[k] == pytest.approx(0.28, abs=0.01)


def test_high_frequency_and_lyapunov_gap(run):
    a, b = run.torsion_free, run.torsion
    dt = a.t[1] - a.t[0]
    e0, e5 = ((np.diff(x.tau, axis=0) ** 2).sum() / dt for x in (a, b))
    assert e5 / e0 > 20
    w = a.t <= 5.0
    crossings = [np.count_nonzero(np.diff(np.sign(x.tau[w, 2][1:])) != 0) for x in (a, b)]
    assert crossings[0] == 0 and crossings[1] >= 5
    # spectral share: energy of tau - mean(tau) above 1 Hz (FFT of the 20 s, 1 kHz record),
    # measured 9 % (C = 0) vs 74 % (C = -5(v x))
    share = []
    for x in (a, b):
        power = (np.abs(np.fft.rfft(x.tau - x.tau.mean(0), axis=0)) ** 2).sum(1)
        share.append(power[np.fft.rfftfreq(len(x.t), dt) > 1.0].sum() / power.sum())
    assert share[0] < 0.15 and share[1] > 0.6
    gap = np.abs(a.signals["V"] - b.signals["V"]).max()
    assert 1e-4 < gap < 1e-2 * a.signals["V"][0]
    m = a.t > 10
    ss = [np.abs(x.q - x.signals["q_d"])[m].max() for x in (a, b)]
    assert ss[0] == pytest.approx(0.0526, abs=5e-4) and ss[1] == pytest.approx(ss[0], abs=1e-4)


def test_more_torsion_more_high_frequency():
    # paper: -10(v x) gives even higher frequency than -5(v x); digest §3.3 measured
    # int |tau'|^2 = 5782 vs 89635 over 20 s (here on the first 5 s, where it builds up)
    e = []
    for beta in (-5.0, -10.0):
        tau = torsion_experiment(beta=beta, t_final=5.0).torsion.tau
        e.append((np.diff(tau, axis=0) ** 2).sum() * 1e3)  # int |tau'|^2 dt at 1 kHz
    assert e[1] > 5 * e[0]


def test_gap_grows_with_mismatch():
    g = []
    for m_hat in (0.9, 0.5):
        r = torsion_experiment(t_final=5.0, mass_estimate=m_hat, rate=200.0)
        g.append(np.abs(r.torsion_free.signals["V"] - r.torsion.signals["V"]).max())
    assert g[1] > 3 * g[0]


@pytest.mark.parametrize("beta", [0.0, -5.0, 3.0])
def test_exact_mass_lyapunov_closed_form(beta):
    # exact parameters: V' = -s^T K_D s = -2 K_D V / m, so V = V(0) exp(-2 K_D t / m)
    r = torsion_experiment(beta=beta, t_final=3.0, mass=2.0, mass_estimate=2.0, K_D=1.5, rate=200.0)
    for x in (r.torsion_free, r.torsion):
        np.testing.assert_allclose(
            x.signals["V"], x.signals["V"][0] * np.exp(-2 * 1.5 * x.t / 2.0), rtol=1e-8
        )


def test_printed_sign_would_diverge():
    # erratum seed 000 §3.2: corrected sign converges (checked above); here the law's v_r
    # literally equals v_d - Lambda (q - q_d)
    P = point_mass(1.0)
    c = SlotineLi(
        P, LeviCivitaConnection(P), lambda t: (np.ones(3), 2 * np.ones(3), np.zeros(3)), 3.0, 1.0
    )
    _, _, v_r, a_r, s = c.signals(0.0, np.zeros(3), np.zeros(3))
    np.testing.assert_allclose(v_r, [5.0, 5.0, 5.0])
    np.testing.assert_allclose(a_r, [6.0, 6.0, 6.0])


@pytest.mark.parametrize("bad", [0.0, -1.0, np.diag([1.0, -1.0, 1.0])])
def test_gains_must_be_positive_definite(bad):
    P = point_mass(1.0)
    ref = lambda t: (np.zeros(3),) * 3  # noqa: E731
    with pytest.raises(GeomechError, match="positive definite"):
        SlotineLi(P, LeviCivitaConnection(P), ref, bad, 1.0)
    with pytest.raises(GeomechError, match="positive definite"):
        SlotineLi(P, LeviCivitaConnection(P), ref, 1.0, bad)


def test_shape_and_type_errors():
    P = point_mass(1.0)
    ref = lambda t: (np.zeros(3),) * 3  # noqa: E731
    with pytest.raises(GeomechError, match="shape"):
        SlotineLi(P, LeviCivitaConnection(P), ref, np.eye(2), 1.0)
    c = SlotineLi(P, LeviCivitaConnection(P), ref, 1.0, 1.0)
    with pytest.raises(GeomechError, match="`q` to have shape"):
        c(0.0, np.zeros(2), np.zeros(3))
    with pytest.raises(GeomechError, match="levi-civita"):  # the message lists the names
        SlotineLi(P, "bogus", ref, 1.0, 1.0)
    with pytest.raises(GeomechError, match="defined for robots and rigid bodies"):
        SlotineLi(P, "velocity-cross", ref, 1.0, 1.0)
    with pytest.raises(GeomechError, match="LeftInvariantFrame"):  # Cartan needs a group frame
        SlotineLi(P, "cartan-minus", ref, 1.0, 1.0)
    # a registered name is the connection object it names
    named = SlotineLi(P, "levi-civita", ref, 1.0, 1.0)
    q, v = np.array([0.3, -0.1, 0.2]), np.array([1.0, 2.0, -1.0])
    np.testing.assert_array_equal(named(0.0, q, v), c(0.0, q, v))
    with pytest.raises(GeomechError, match="MechanicalSystem"):
        SlotineLi(object(), LeviCivitaConnection(P), ref, 1.0, 1.0)


@pytest.mark.parametrize("k", [0, 1, 2])
def test_non_finite_reference_is_named(k):
    # a NaN from reference(t) is reported as the reference entry it sits in (q_d, v_d, a_d),
    # on a point mass, a rigid body on SO(3) and a multibody model
    from geomech.geometry.examples import rigid_body_so3
    from geomech.multibody import robots

    name = ("q_d", "v_d", "a_d")[k]
    body = rigid_body_so3(np.diag([1.0, 2.0, 3.0]))
    arm = robots.load("ur5")
    cases = [(point_mass(1.0), np.zeros(3), 3), (body, np.eye(3), 3), (arm, np.zeros(6), 6)]
    for system, q, n in cases:
        ref = [q.copy(), np.zeros(n), np.zeros(n)]
        ref[k] = np.full_like(ref[k], np.nan)
        conn = "levi-civita" if system is arm else LeviCivitaConnection(system)
        c = SlotineLi(system, conn, lambda t, r=ref: tuple(r), 1.0, 1.0)
        with pytest.raises(NonFiniteError, match=f"`{name}`"):
            c(0.0, q, np.zeros(n))
        with pytest.raises(NonFiniteError, match="`v`"):
            c(0.0, q, np.full(n, np.inf))


def test_non_metric_connection_warns_or_raises():
    P = point_mass(1.0)
    ref = lambda t: (np.zeros(3),) * 3  # noqa: E731
    G = np.zeros((3, 3, 3))
    G[0, 0, 0] = 1.0  # C = diag(v0,0,0): C + C^T != Hdot = 0
    conn = AffineConnection(P, G)
    with pytest.warns(UserWarning, match="not metric compatible"):
        SlotineLi(P, conn, ref, 1.0, 1.0)
    with pytest.raises(GeomechError, match="not metric compatible"):
        SlotineLi(P, conn, ref, 1.0, 1.0, require_passivity=True)


def test_torsion_twists_the_path(run):
    # Fig. 6: same length, but the torsion run turns more and leaves the plane. Curvature and
    # geometric torsion of the path from q' = v, q'' = tau / m (m = 1, g = 0, C* = 0) and
    # q''' by differences; measured on [0, 5] s: total turning 2.51 vs 6.95 rad,
    # int |torsion| ds 0 vs 27.6, length 4.170 vs 4.167.
    out = []
    for r in (run.torsion_free, run.torsion):
        w = r.t <= 5.0
        t, v, acc = r.t[w], r.v[w], r.tau[w]
        jerk = np.gradient(acc, t, axis=0)
        cross = np.cross(v, acc)
        speed = np.linalg.norm(v, axis=1)
        kappa_ds = np.linalg.norm(cross, axis=1) / speed**2  # curvature x |q'|
        norm2 = np.einsum("ti,ti->t", cross, cross)
        torsion_ds = np.abs(np.einsum("ti,ti->t", cross, jerk)) / np.maximum(norm2, 1e-300) * speed
        out.append([trapezoid(f, t) for f in (kappa_ds, torsion_ds, speed)])
    (turn0, tors0, len0), (turn5, tors5, len5) = out
    assert turn5 > 2.5 * turn0 and tors0 < 1e-9 and tors5 > 20.0
    assert len5 == pytest.approx(len0, rel=1e-2)


def test_closed_chain_and_custom_frame_inputs():
    # on a closed chain q and q_d must be closed configurations; other custom frames have
    # no error chart and are refused
    from geomech.errors import NotOnManifoldError
    from geomech.geometry.examples_induced import four_bar_linkage

    chain = four_bar_linkage()
    q = chain.frame.reference
    c = SlotineLi(
        chain.system, chain.connection, lambda t: (q + 0.1, np.zeros(1), np.zeros(1)), 1.0, 1.0
    )
    with pytest.raises(NotOnManifoldError):
        c(0.0, q, np.zeros(1))
    with pytest.raises(GeomechError, match="shape"):
        c(0.0, q[:2], np.zeros(1))
    from geomech.geometry import CustomFrame, MechanicalSystem

    frame = CustomFrame(2, (2,), lambda q, w, t: q + np.asarray(t)[..., None] * w)
    system = MechanicalSystem(None, np.eye(2), frame=frame)  # a CustomFrame
    with pytest.raises(GeomechError, match="LoopClosureFrame, got CustomFrame"):
        SlotineLi(system, LeviCivitaConnection(system), lambda t: (np.zeros(2),) * 3, 1.0, 1.0)
