import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from huebench import color
from huebench.color import _kernels
from huebench.color import conversions as cv

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import colour

RNG = np.random.default_rng(1234)


def test_srgb_to_lab_matches_colour_science_on_random_inputs():
    rgb = RNG.random((5000, 3))
    ours = color.srgb_to_lab(rgb)
    ref = colour.XYZ_to_Lab(colour.sRGB_to_XYZ(rgb))
    assert np.abs(ours - ref).max() < 1e-6


def test_each_stage_matches_colour_science():
    rgb = RNG.random((2000, 3))
    lin = cv.srgb_to_linear(rgb)
    assert np.abs(lin - colour.cctf_decoding(rgb, function="sRGB")).max() < 1e-12
    assert np.abs(cv.linear_to_srgb(lin) - colour.cctf_encoding(lin, function="sRGB")).max() < 1e-12
    xyz = cv.linear_rgb_to_xyz(lin)
    assert np.abs(xyz - colour.sRGB_to_XYZ(rgb)).max() < 1e-9
    lab = cv.xyz_to_lab(xyz)
    assert np.abs(lab - colour.XYZ_to_Lab(xyz)).max() < 1e-9
    assert np.abs(cv.lab_to_xyz(lab) - colour.Lab_to_XYZ(lab)).max() < 1e-9
    assert np.abs(cv.lab_to_lch(lab) - colour.Lab_to_LCHab(lab)).max() < 1e-9
    lch = cv.lab_to_lch(lab)
    assert np.abs(cv.lch_to_lab(lch) - colour.LCHab_to_Lab(lch)).max() < 1e-9


def test_lab_to_srgb_inverts_colour_science_forward_transform():
    # colour-science's XYZ->sRGB uses the standard's separately rounded inverse matrix, so we
    # compare the other way round: our inverse must land where colour's forward started.
    lab = colour.XYZ_to_Lab(colour.sRGB_to_XYZ(RNG.random((2000, 3))))
    back = color.lab_to_srgb(lab)
    assert np.abs(colour.XYZ_to_Lab(colour.sRGB_to_XYZ(back)) - lab).max() < 1e-6


def test_reference_points():
    # The standard's 4-decimal matrix maps sRGB white to X = 0.9505 rather than D65's 0.95046,
    # so white lands a hair off the neutral axis (a* = 0.0077), exactly as in colour-science.
    white = color.srgb_to_lab([1.0, 1.0, 1.0])
    assert abs(white[0] - 100.0) < 1e-9 and np.hypot(white[1], white[2]) < 0.01
    assert np.allclose(color.srgb_to_lab([0.0, 0.0, 0.0]), [0.0, 0.0, 0.0], atol=1e-12)
    # sRGB red in CIELAB D65 (widely tabulated: 53.24, 80.09, 67.20)
    assert np.allclose(color.srgb_to_lab(np.array([255, 0, 0], dtype=np.uint8)), [53.2329, 80.1112, 67.2237], atol=1e-3)


def test_uint8_input_is_scaled_and_shapes_are_kept():
    img = RNG.integers(0, 256, size=(7, 5, 3), dtype=np.uint8)
    lab = color.srgb_to_lab(img)
    assert lab.shape == (7, 5, 3) and lab.dtype == np.float64
    assert np.allclose(lab, color.srgb_to_lab(img / 255.0))


def test_float32_input_is_computed_in_float64():
    # there is no float32 path (docs/performance.md): float32 input is widened, results are float64
    rgb32 = RNG.random((64, 64, 3)).astype(np.float32)
    lab = color.srgb_to_lab(rgb32)
    assert lab.dtype == np.float64
    assert np.array_equal(lab, color.srgb_to_lab(rgb32.astype(np.float64)))
    big32 = RNG.random((300, 300, 3)).astype(np.float32)  # the kernel path
    assert np.array_equal(color.srgb_to_lab(big32), color.srgb_to_lab(big32.astype(np.float64)))
    for fn in (color.lab_to_srgb, cv.lab_to_xyz, cv.xyz_to_lab, cv.lab_to_lch, cv.lch_to_lab, cv.linear_to_srgb):
        assert fn(lab.astype(np.float32)).dtype == np.float64
    ref = lab[0, 0]
    assert color.delta_e(lab.astype(np.float32), ref.astype(np.float32)).dtype == np.float64
    assert np.array_equal(
        color.delta_e(lab.astype(np.float32), ref.astype(np.float32)),
        color.delta_e(lab.astype(np.float32).astype(np.float64), ref.astype(np.float32).astype(np.float64)),
    )


def test_wrong_shape_is_a_clear_error():
    with pytest.raises(ValueError, match="last axis has length 3"):
        color.srgb_to_lab(np.zeros((4, 4)))


def test_lab_to_srgb_clip():
    out = color.lab_to_srgb([50.0, 120.0, -120.0], clip=True)
    assert out.min() >= 0.0 and out.max() <= 1.0
    assert color.lab_to_srgb([50.0, 120.0, -120.0]).min() < 0.0  # out of gamut without clip


rgb_arrays = arrays(np.float64, st.tuples(st.integers(1, 20), st.just(3)), elements=st.floats(0.0, 1.0))


@settings(max_examples=200, deadline=None)
@given(rgb_arrays)
def test_round_trip_srgb_lab_float64(rgb):
    assert np.abs(color.lab_to_srgb(color.srgb_to_lab(rgb)) - rgb).max() < 1e-6


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, (10, 3), elements=st.floats(-2.0, 2.0)))
def test_round_trip_linear_xyz_and_transfer_function(lin):
    assert np.abs(cv.xyz_to_linear_rgb(cv.linear_rgb_to_xyz(lin)) - lin).max() < 1e-9
    assert np.abs(cv.srgb_to_linear(cv.linear_to_srgb(lin)) - lin).max() < 1e-9


@settings(max_examples=200, deadline=None)
@given(
    arrays(np.float64, (10, 3), elements=st.floats(0.0, 100.0)), arrays(np.float64, (10,), elements=st.floats(0, 360))
)
def test_round_trip_lch(lch_lc, hue):
    lch = lch_lc.copy()
    lch[:, 2] = hue
    lab = cv.lch_to_lab(lch)
    back = cv.lab_to_lch(lab)
    assert np.allclose(back[:, :2], lch[:, :2], atol=1e-9)
    dh = np.abs(back[:, 2] - lch[:, 2]) % 360.0
    dh = np.minimum(dh, 360 - dh)
    assert np.all((dh < 1e-6) | (lch[:, 1] < 1e-9))


def test_8bit_helpers_match_the_float_path_and_round_trip():
    from huebench.color import linear_to_srgb8, srgb8_to_linear, srgb_to_linear

    levels = np.arange(256, dtype=np.uint8)
    rgb8 = np.stack([levels, levels[::-1], np.roll(levels, 7)], axis=1)
    lin = srgb8_to_linear(rgb8)
    assert np.array_equal(lin, srgb_to_linear(rgb8.astype(np.float64) / 255.0))  # the table is exact
    assert np.array_equal(srgb8_to_linear(rgb8.astype(np.int64)), lin)  # other dtypes: arithmetic
    assert np.array_equal(linear_to_srgb8(lin), rgb8)  # every level round-trips
    assert linear_to_srgb8(np.array([-0.5, 0.5, 2.0])).tolist() == [0, 188, 255]  # clipped to [0, 1]
    # 8-bit inputs to Lab go through the table: the NumPy path gives the transfer function's bits,
    # the compiled one (every size, where numba is) the same numbers to the kernels' 1e-12
    from huebench.color import linear_rgb_to_xyz, srgb_to_lab, xyz_to_lab

    by_formula = xyz_to_lab(linear_rgb_to_xyz(srgb_to_linear(rgb8.astype(np.float64) / 255.0)))
    assert np.array_equal(xyz_to_lab(linear_rgb_to_xyz(lin)), by_formula)
    assert np.abs(srgb_to_lab(rgb8) - by_formula).max() < 1e-12
    assert np.abs(srgb_to_lab(rgb8[:1]) - by_formula[:1]).max() < 1e-12


def _srgb8_reference(values):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the reference casts NaN to uint8 (0)
        return cv._linear_to_srgb8_reference(values)


def _ulp_neighbourhood(points, steps):
    """Every float64 within ``steps`` units in the last place of each point (points ≥ 0)."""
    bits = np.asarray(points, dtype=np.float64).view(np.int64)
    near = (bits[:, None] + np.arange(-steps, steps + 1)[None, :]).ravel()
    return near[near >= 0].view(np.float64)


def test_srgb8_thresholds_are_the_reference_decision_points():
    t = cv._srgb8_thresholds()
    assert t.shape == (255,) and np.all(np.diff(t) > 0) and t[0] > 0.0 and t[-1] < 1.0
    below = np.nextafter(t, -np.inf)
    assert np.array_equal(_srgb8_reference(t.reshape(-1, 3)).ravel(), np.arange(1, 256))
    assert np.array_equal(_srgb8_reference(below.reshape(-1, 3)).ravel(), np.arange(0, 255))


def test_linear_to_srgb8_is_bit_identical_to_the_reference():
    t = cv._srgb8_thresholds()
    rng = np.random.default_rng(0)
    values = np.concatenate(
        [
            _ulp_neighbourhood(t, 64),  # every threshold and its 64 neighbours each side
            _ulp_neighbourhood(np.arange(4097) / 4096, 2),  # the encoder's table bins and their edges
            np.linspace(0.0, 1.0, 1_000_003),  # a dense grid of [0, 1]
            rng.random(300_000) ** 4,  # dense near black, where the levels are closest
            rng.uniform(-2.0, 3.0, 100_000),  # negative and above 1: clipped
            [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 5e-324, -5e-324, 1.0, np.nextafter(1.0, 2.0), 1e300, -1e300],
        ]
    )
    values = np.concatenate([values, np.zeros(-len(values) % 3)]).reshape(-1, 3)
    expected = _srgb8_reference(values)
    assert np.array_equal(color.linear_to_srgb8(values), expected)  # the compiled kernel (large input)
    for chunk in np.array_split(values[:30_000], 500):  # the NumPy path (60 pixels: under KERNEL_FROM)
        assert len(chunk) < _kernels.KERNEL_FROM
        assert np.array_equal(color.linear_to_srgb8(chunk), _srgb8_reference(chunk))
    assert color.linear_to_srgb8(np.array([np.nan, -1.0, 2.0])).tolist() == [0, 0, 255]  # NaN encodes to 0


def test_linear_to_srgb8_keeps_shapes_and_input_types():
    lin = np.random.default_rng(1).random((4, 5, 3))
    out = color.linear_to_srgb8(lin)
    assert out.shape == (4, 5, 3) and out.dtype == np.uint8
    assert np.array_equal(color.linear_to_srgb8(lin.astype(np.float32)), _srgb8_reference(lin.astype(np.float32)))
    assert color.linear_to_srgb8([[0.0, 0.5, 1.0]]).tolist() == [[0, 188, 255]]
    assert color.linear_to_srgb8(np.array([0, 1, 2])).tolist() == [0, 255, 255]  # integers are linear values
    with pytest.raises(ValueError, match="last axis has length 3"):
        color.linear_to_srgb8(np.zeros(4))
