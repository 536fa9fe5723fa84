"""Every validator is triggered, with a message that names the input."""

from __future__ import annotations

import numpy as np
import pytest

from geomech.errors import DimensionError, GeomechError, NonFiniteError, NotOnManifoldError
from geomech.lie import SE2, SE3, SO3, Euclidean, ProductGroup, Schoenflies


def test_wrong_trailing_shape(group):
    with pytest.raises(DimensionError, match=r"`xi` to have shape \(\.\.\., "):
        group.exp(np.zeros(group.dim + 1))
    with pytest.raises(DimensionError, match="`xi`"):
        group.hat(np.zeros((2, group.dim - 1)) if group.dim > 1 else np.zeros(2))
    with pytest.raises(DimensionError, match="`g`"):
        group.log(np.zeros(group.point_shape[:-1] + (group.point_shape[-1] + 1,)))
    with pytest.raises(DimensionError, match="`b`"):
        group.compose(group.identity(), np.zeros(7))
    with pytest.raises(DimensionError, match="`X`"):
        group.vee(np.zeros((2, 2)))
    with pytest.raises(DimensionError, match="`eta`"):
        group.bracket(np.zeros(group.dim), np.zeros(group.dim + 2))
    with pytest.raises(DimensionError, match="`g`"):
        group.validate("not an array")


def test_non_finite(group):
    xi = np.zeros(group.dim)
    xi[0] = np.nan
    for f in (group.exp, group.ad, group.left_jacobian, group.right_jacobian_inverse):
        with pytest.raises(NonFiniteError, match="`xi` to be finite"):
            f(xi)
    g = group.identity().copy()
    g.flat[0] = np.inf
    for f in (group.log, group.Ad, group.inverse, group.validate, group.as_matrix):
        with pytest.raises(NonFiniteError, match="`g` to be finite"):
            f(g)
    with pytest.raises(NonFiniteError, match="`a`"):
        group.compose(g, group.identity())


def _off_manifold(G):
    g = G.identity().copy()
    if isinstance(G, ProductGroup):
        g[0] = 1.1  # the SO(3) factor's R[0, 0]
    else:
        g[0, 0] = 1.1
    return g


@pytest.mark.parametrize(
    ("G", "name"),
    [
        (SO3, "`g`"),
        (SE3, r"`g\[\.\.\., :3, :3\]`"),
        (SE2, r"`g\[\.\.\., :2, :2\]`"),
        (Schoenflies, r"`g\[\.\.\., :2, :2\]`"),
        (ProductGroup(SO3, Euclidean(2)), r"`g\[0\]`"),
    ],
    ids=repr,
)
def test_not_orthonormal(G, name):
    g = _off_manifold(G)
    for f in (G.log, G.Ad, G.inverse, G.validate):
        with pytest.raises(NotOnManifoldError, match=name + " to be orthonormal"):
            f(g)
    with pytest.raises(NotOnManifoldError, match="`T"):
        G.validate(g, name="T")
    G.compose(g, g)  # compose checks shape and finiteness only


@pytest.mark.parametrize("G", [SO3, SE3, SE2, Schoenflies], ids=repr)
def test_reflection_rejected(G):
    g = G.identity().copy()
    g[0, 0] = -1.0
    with pytest.raises(NotOnManifoldError, match="determinant"):
        G.log(g)


@pytest.mark.parametrize("G", [SE3, SE2, Schoenflies], ids=repr)
def test_homogeneous_last_row(G):
    g = G.identity().copy()
    g[-1, 0] = 0.5
    with pytest.raises(NotOnManifoldError, match="`g` to have last row"):
        G.validate(g)


def test_schoenflies_rotation_about_z_only():
    g = SE3.exp([0.3, 0.0, 0.0, 0.0, 0.0, 0.0])  # rotation about x: in SE(3), not in X(z)
    with pytest.raises(NotOnManifoldError, match="`g` to rotate about z only"):
        Schoenflies.log(g)


def test_tolerance_argument(group):
    rng = np.random.default_rng(50)
    g = group.random(rng)
    if isinstance(group, Euclidean):
        return
    g = g + 1e-8 * rng.standard_normal(g.shape)  # slightly off the manifold
    group.validate(g)
    group.log(g)
    with pytest.raises(NotOnManifoldError):
        group.validate(g, tol=1e-12)
    with pytest.raises(NotOnManifoldError):
        group.log(g, tol=1e-12)
    with pytest.raises(NotOnManifoldError):
        group.Ad(g, tol=1e-12)
    with pytest.raises(NotOnManifoldError):
        group.inverse(g, tol=1e-12)


def test_constructor_errors():
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(DimensionError, match="`n` to be a positive integer"):
            Euclidean(bad)
    with pytest.raises(TypeError, match="at least one factor"):
        ProductGroup()
    with pytest.raises(TypeError, match="factor 1 to be a LieGroup"):
        ProductGroup(SO3, 3)
    G = ProductGroup(SO3, Euclidean(2))
    with pytest.raises(DimensionError, match="`parts` to have 2 entries"):
        G.join([np.eye(3)])
    with pytest.raises(DimensionError, match=r"`parts\[1\]`"):
        G.join([np.eye(3), np.zeros(3)])
    with pytest.raises(DimensionError, match="`g`"):
        G.split(np.zeros(10))


def test_errors_are_geomech_and_builtin():
    with pytest.raises(GeomechError):
        SO3.exp([1.0, 2.0])
    with pytest.raises(ValueError):
        SO3.log(2 * np.eye(3))
