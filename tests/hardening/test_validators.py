"""The shared validators (geomech._validation) on hostile types, and the results they check.

Every validator path is triggered once; the Lie-group methods whose results can overflow
from finite inputs name it (NonFiniteError) instead of returning inf or NaN.
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from geomech._validation import as_array, check_result, check_size, default_rng
from geomech.errors import DimensionError, DTypeError, GeomechError, NonFiniteError
from geomech.lie import SE2, SE3, SO3, Euclidean
from geomech.lie.quaternion import quat_exp, quat_normalize


@pytest.mark.parametrize(
    ("x", "message"),
    [
        (np.array([1.0 + 2.0j]), r"`x` to be a real numeric array, got dtype complex"),
        (np.array([1.0 + 0.0j]), r"got dtype complex"),  # even without an imaginary part
        ([1.0, 2j], r"got dtype complex"),
        (np.array([1.0, 2.0], dtype=object), r"got dtype object"),
        (None, r"got dtype object"),
        ([10**400], r"got dtype object"),
        ("1.0", r"numeric array, got str of text"),
        (np.array([b"1"]), r"numeric array, got ndarray of text"),
        (np.array(["2020-01-01"], dtype="datetime64[D]"), r"got dtype datetime"),
        ([[1.0], [1.0, 2.0]], r"to be a numeric array, got list"),
    ],
)
def test_as_array_refuses_non_real_input(x, message):
    with pytest.raises(DTypeError, match=message):
        as_array(x, "x")


def test_dtype_error_is_a_dimension_error_and_a_type_error():
    assert issubclass(DTypeError, DimensionError) and issubclass(DTypeError, TypeError)
    assert issubclass(DTypeError, GeomechError)


@pytest.mark.parametrize(
    "x", [np.array([1, 2], dtype=np.int32), [True, False], np.float32([0.5]), np.uint8([3])]
)
def test_as_array_converts_real_dtypes(x):
    out = as_array(x, "x")
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, np.asarray(x, dtype=float))


def test_as_array_keeps_float64_arrays_without_a_copy():
    x = np.arange(3.0)
    assert as_array(x, "x", (3,)) is x


@pytest.mark.parametrize(
    ("size", "error", "message"),
    [
        (-1, DimensionError, r"nonnegative entries, got -1"),
        ((2, -3), DimensionError, r"got \(2, -3\)"),
        (2.0, DTypeError, r"None, an int or a tuple of ints, got float"),
        ((2, 1.5), DTypeError, r"got \(2, 1.5\)"),
        (True, DTypeError, r"got True"),
        (object(), DTypeError, r"got object"),
    ],
)
def test_check_size(size, error, message):
    with pytest.raises(error, match=message):
        check_size(size)


def test_check_size_accepts_shapes():
    assert check_size(None) == () and check_size(3) == (3,) and check_size((2, 0)) == (2, 0)
    assert check_size(np.int64(4)) == (4,) and check_size([1, 2]) == (1, 2)


@pytest.mark.parametrize("rng", ["abc", 1.5, True, -1, object()])
def test_default_rng_refuses_what_is_not_a_seed(rng):
    with pytest.raises(DTypeError, match="`rng` to be None"):
        default_rng(rng)


def test_default_rng_accepts_seeds_and_generators():
    g = np.random.default_rng(1)
    assert default_rng(g) is g
    assert default_rng(5).integers(100) == np.random.default_rng(5).integers(100)
    assert isinstance(default_rng(np.random.SeedSequence(3)), np.random.Generator)


def test_check_result():
    x = np.ones(3)
    assert check_result(x, "f(x)", "`x`") is x
    with pytest.raises(NonFiniteError, match=r"f\(x\) overflowed to inf or NaN: `x` too large"):
        check_result(np.array([1.0, np.inf]), "f(x)", "`x`")


# ---- the Lie groups: correct where representable, named where not ---------------------------
@pytest.mark.parametrize("theta", [1.0 - 1e-12, 1.0 + 1e-12, 1.5, 3.0, np.pi, 5.0, 1e3, 1e8])
def test_so3_exp_on_the_unit_axis_branch_matches_scipy(theta, rng):
    for _ in range(5):
        axis = rng.normal(size=3)
        xi = theta * axis / np.linalg.norm(axis)
        expected = Rotation.from_rotvec(xi).as_matrix()
        np.testing.assert_allclose(SO3.exp(xi), expected, atol=1e-15 * max(1.0, theta))
        np.testing.assert_allclose(
            Rotation.from_quat(quat_exp(xi)).as_matrix(), expected, atol=1e-15 * max(1.0, theta)
        )


@pytest.mark.parametrize("theta", [1.5, 3.0, 7.0, 1e3])
def test_so3_jacobians_on_the_unit_axis_branch_invert_each_other(theta, rng):
    axis = rng.normal(size=3)
    xi = theta * axis / np.linalg.norm(axis)
    np.testing.assert_allclose(SO3.left_jacobian(xi) @ SO3.left_jacobian_inverse(xi), np.eye(3),
                               atol=1e-12 * max(1.0, theta))  # fmt: skip


def test_so3_jacobians_of_huge_angles_are_finite():
    xi = np.array([1e200, -2e199, 3e199])
    J = SO3.left_jacobian(xi)
    assert np.all(np.isfinite(J))
    np.testing.assert_allclose(J @ (xi / 1e200), xi / 1e200, rtol=1e-12)  # J_l fixes the axis


#: A rigid motion turned by 45° about z and translated by 1.7e308 along x and y: its inverse
#: translation -Rᵀp (and the adjoint's p̂R) has an entry of 2.4e308, beyond float64.
FAR = np.eye(4)
FAR[:3, :3] = Rotation.from_rotvec([0, 0, np.pi / 4]).as_matrix()
FAR[:2, 3] = 1.7e308


@pytest.mark.parametrize(
    ("call", "what"),
    [
        (lambda: SE3.exp([0, 0, 0, 1.7e308, 1.7e308, 0]) @ np.ones(4), None),
        (lambda: SE3.inverse(FAR), r"SE3.inverse\(g\)"),
        (lambda: SE3.Ad(FAR), r"SE3.Ad\(g\)"),
        (
            lambda: SE3.bracket([1e200, 0, 0, 0, 0, 0], [0, 1e200, 0, 0, 0, 0]),
            r"SE3.bracket\(xi, eta\)",
        ),
        (lambda: SE3.left_jacobian([1e200, 0, 0, 1e200, 1e200, 0]), r"left_jacobian\(xi\)"),
        (lambda: SE3.right_jacobian([1e200, 0, 0, 1e200, 1e200, 0]), r"right_jacobian\(xi\)"),
        (
            lambda: SE2.compose(
                [[1, 0, 1.7e308], [0, 1, 0], [0, 0, 1]], [[1, 0, 1.7e308], [0, 1, 0], [0, 0, 1]]
            ),
            r"compose\(a, b\)",
        ),
        (lambda: Euclidean(2).compose([1.7e308, 0], [1.7e308, 0]), r"compose\(a, b\)"),
    ],
)
@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning", "ignore:invalid:RuntimeWarning")
def test_group_results_that_overflow_are_named(call, what):
    if what is None:  # SE3.exp itself is representable here; products of it need not be
        with np.errstate(over="ignore"):
            call()
        return
    with pytest.raises(NonFiniteError, match=what + r" overflowed"):
        call()


def test_quat_normalize_scales_by_the_largest_entry():
    np.testing.assert_allclose(quat_normalize([1e308, 1e308, 0, 0]), [2**-0.5, 2**-0.5, 0, 0])
    np.testing.assert_allclose(quat_normalize([0, 3e-320, 0, 4e-320]), [0, 0.6, 0, 0.8],
                               rtol=1e-3)  # subnormal inputs carry ~3 digits  # fmt: skip
    np.testing.assert_allclose(quat_normalize([[0, 0, 0, 2.0], [0, 3.0, 0, 4.0]]),
                               [[0, 0, 0, 1], [0, 0.6, 0, 0.8]])  # fmt: skip
