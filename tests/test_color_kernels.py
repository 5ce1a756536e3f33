"""The compiled numba kernels must give the reference NumPy numbers (they are only a fast path)."""

import os
import platform
import subprocess
import sys
import warnings

import numpy as np
import pytest

from huebench import color
from huebench.color import _kernels
from huebench.color import conversions as cv
from huebench.color.difference import ciede2000_numpy

pytestmark = pytest.mark.skipif(not _kernels.AVAILABLE, reason="numba not installed")

N = _kernels.PARALLEL_FROM + 123  # on numba's threads; not a multiple of the block size: the last block is partial


def _lab_numpy(rgb):
    return cv.xyz_to_lab(cv.linear_rgb_to_xyz(cv.srgb_to_linear(rgb)))


def test_srgb8_kernel_equals_numpy_path():
    rgb = np.random.default_rng(0).integers(0, 256, size=(N, 3), dtype=np.uint8)
    fast = color.srgb_to_lab(rgb)
    ref = _lab_numpy(rgb)
    assert np.abs(fast - ref).max() < 1e-12
    # every 8-bit level of each channel, including the linear segment of the transfer curve
    ramp = np.repeat(np.arange(256, dtype=np.uint8), 3).reshape(-1, 3)
    big = np.tile(ramp, (N // 256 + 1, 1))
    assert np.abs(color.srgb_to_lab(big)[:256] - _lab_numpy(ramp)).max() < 1e-12


def test_srgb8_kernel_on_every_colour_of_a_cube_slice():
    # all 65,536 (g, b) pairs at r = 0, 1, 128, 255: the darkest colours take the linear branch of f(t)
    g, b = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    for r in (0, 1, 128, 255):
        rgb = np.stack([np.full(g.size, r), g.ravel(), b.ravel()], axis=-1).astype(np.uint8)
        assert np.abs(color.srgb_to_lab(rgb) - _lab_numpy(rgb)).max() < 1e-12


def test_float64_kernel_equals_numpy_path_with_image_shape():
    rgb = np.random.default_rng(1).random((300, 300, 3))
    fast = color.srgb_to_lab(rgb)
    assert fast.shape == (300, 300, 3)
    ref = _lab_numpy(rgb)
    assert np.abs(fast - ref).max() < 1e-12


def test_float_kernel_outside_the_gamut_and_nan():
    # values far outside [0, 1] (the cube root's fast range ends at CBRT_MAX: the block falls back
    # to np.cbrt), negative values (the linear branch) and NaN
    rng = np.random.default_rng(3)
    rgb = rng.uniform(-0.5, 1.5, size=(N, 3))
    rgb[::997] = rng.uniform(2.0, 40.0, size=rgb[::997].shape)  # t up to ~ 10^4
    rgb[5] = [np.nan, 0.5, 0.5]
    fast = color.srgb_to_lab(rgb)
    ref = _lab_numpy(rgb)
    assert np.array_equal(np.isnan(fast), np.isnan(ref))
    ok = ~np.isnan(ref)
    assert np.all(np.abs(fast[ok] - ref[ok]) <= 1e-12 * np.maximum(1.0, np.abs(ref[ok])))


def test_ciede2000_kernel_equals_numpy_including_broadcast_and_edge_cases():
    rng = np.random.default_rng(2)
    lab1 = np.column_stack([rng.uniform(0, 100, N), rng.uniform(-110, 110, N), rng.uniform(-110, 110, N)])
    lab2 = lab1 + rng.normal(0, 20, lab1.shape)
    lab1[:50, 1:] = 0.0  # achromatic samples: the hue-difference special case
    lab2[25:75, 1:] = 0.0
    lab1[75:80, 1] = -0.0  # signed zeros: atan2(0, -0) = π
    lab2[80:85, 1:] = [-0.0, 0.0]
    # nearly opposite hues exercise the mean-hue wrap-around; exactly opposite ones sit on
    # CIEDE2000's discontinuity (see test_color_difference's tie test)
    rot = np.radians(179.0)
    a, b = lab1[100:200, 1], lab1[100:200, 2]
    lab2[100:200, 1] = a * np.cos(rot) - b * np.sin(rot)
    lab2[100:200, 2] = a * np.sin(rot) + b * np.cos(rot)
    lab2[200:300] = lab1[200:300]  # identical pairs: ΔE exactly 0
    for kl, kc, kh in [(1, 1, 1), (2, 1, 1), (1.3, 0.8, 1.7)]:
        fast = color.delta_e(lab1, lab2, kL=kl, kC=kc, kH=kh)
        assert np.abs(fast - ciede2000_numpy(lab1, lab2, kl, kc, kh)).max() < 1e-10
    assert np.all(color.delta_e(lab1, lab2)[200:300] == 0.0)
    ref_color = np.array([50.0, 20.0, -30.0])
    fast = color.delta_e(lab1.reshape(-1, 1, 3)[:N], ref_color)
    assert fast.shape == (N, 1)
    assert np.abs(fast[:, 0] - ciede2000_numpy(lab1, np.broadcast_to(ref_color, lab1.shape), 1, 1, 1)).max() < 1e-10
    # the one colour as the first argument (ΔE00 is symmetric only up to rounding: the order is kept)
    first = color.delta_e(ref_color, lab1)
    assert np.abs(first - ciede2000_numpy(np.broadcast_to(ref_color, lab1.shape), lab1, 1, 1, 1)).max() < 1e-10


def test_ciede2000_kernel_on_a_broadcast_grid_and_strided_input():
    rng = np.random.default_rng(4)
    rows = np.column_stack([rng.uniform(0, 100, 300), rng.uniform(-80, 80, 300), rng.uniform(-80, 80, 300)])
    cols = rows[::-1][:250].copy()
    fast = color.delta_e(rows[:, None, :], cols[None, :, :])  # 75,000 pairs
    assert fast.shape == (300, 250)
    ref = ciede2000_numpy(*np.broadcast_arrays(rows[:, None, :], cols[None, :, :]), 1, 1, 1)
    assert np.abs(fast - ref).max() < 1e-10
    img = np.column_stack([rng.uniform(0, 100, 2 * N), rng.uniform(-80, 80, 2 * N), rng.uniform(-80, 80, 2 * N)])
    strided = img[::2]  # not contiguous: the wrapper copies
    ref_color = np.array([60.0, -10.0, 45.0])
    assert np.abs(color.delta_e(strided, ref_color) - ciede2000_numpy(strided, ref_color, 1, 1, 1)).max() < 1e-10


def test_ciede2000_kernel_propagates_nan_and_leaves_degenerate_weights_to_numpy():
    rng = np.random.default_rng(5)
    lab = np.column_stack([rng.uniform(0, 100, N), rng.uniform(-80, 80, N), rng.uniform(-80, 80, N)])
    lab[7] = [np.nan, 0.0, 0.0]
    lab[8] = [50.0, np.nan, 10.0]
    ref_color = np.array([40.0, 30.0, 20.0])
    fast = color.delta_e(lab, ref_color)
    assert np.isnan(fast[7]) and np.isnan(fast[8]) and np.isfinite(np.delete(fast, [7, 8])).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        zero_weight = color.delta_e(lab, ref_color, kL=0.0)
        expected = ciede2000_numpy(lab, np.broadcast_to(ref_color, lab.shape), 0.0, 1.0, 1.0)
    assert np.array_equal(zero_weight, expected, equal_nan=True)


def test_fused_srgb_delta_e_equals_the_two_calls():
    rng = np.random.default_rng(6)
    img = rng.integers(0, 256, size=(300, 301, 3), dtype=np.uint8)
    target = np.array([53.0, 80.0, 67.0])
    fused = color.srgb_delta_e(img, target)
    assert fused.shape == (300, 301)
    two_calls = color.delta_e(color.srgb_to_lab(img), target)
    assert np.abs(fused - two_calls).max() < 1e-12
    assert np.abs(fused - ciede2000_numpy(_lab_numpy(img), target, 1, 1, 1)).max() < 1e-10
    weighted = color.srgb_delta_e(img, target, kL=2.0)
    assert np.abs(weighted - ciede2000_numpy(_lab_numpy(img), target, 2, 1, 1)).max() < 1e-10
    # what the fused kernel does not cover is the two calls
    assert np.array_equal(
        color.srgb_delta_e(img, target, "cie76"), color.delta_e(color.srgb_to_lab(img), target, "cie76")
    )
    many = rng.uniform(0, 60, size=(300, 301, 3))
    assert np.array_equal(color.srgb_delta_e(img, many), color.delta_e(color.srgb_to_lab(img), many))
    small = img[:7, :9]  # 63 pixels: below KERNEL_FROM, the NumPy path's two calls
    assert small.size // 3 < _kernels.KERNEL_FROM
    assert np.array_equal(color.srgb_delta_e(small, target), color.delta_e(color.srgb_to_lab(small), target))


def test_results_do_not_depend_on_the_number_of_threads():
    numba = pytest.importorskip("numba")
    rng = np.random.default_rng(7)
    img = rng.integers(0, 256, size=(N, 3), dtype=np.uint8)
    lin = rng.uniform(-0.1, 1.1, size=(N, 3))
    target = np.array([50.0, 20.0, -30.0])
    runs = []
    before = numba.get_num_threads()
    try:
        for threads in sorted({1, before}):
            numba.set_num_threads(threads)
            lab = color.srgb_to_lab(img)
            runs.append((lab, color.delta_e(lab, target), color.srgb_delta_e(img, target), color.linear_to_srgb8(lin)))
    finally:
        numba.set_num_threads(before)
    for a, b in zip(runs[0], runs[-1], strict=True):
        assert np.array_equal(a, b)


# --- the polynomial replacements of libm inside the kernels, against NumPy on dense grids

if _kernels.AVAILABLE:
    from numba import njit

    @njit(cache=False)
    def _apply(which, x, y):  # pragma: no cover - compiled
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            if which == 0:
                out[i] = _kernels._hue(y[i], x[i])
            elif which == 1:
                out[i] = _kernels._sin(x[i])
            elif which == 2:
                out[i] = _kernels._cos(x[i])
            elif which == 3:
                out[i] = _kernels._exp_neg(x[i])
            else:
                out[i] = _kernels._cbrt(x[i])
        return out


def test_hue_is_numpy_atan2_moved_to_0_2pi():
    rng = np.random.default_rng(8)
    x = np.concatenate([rng.normal(0, 50, 200_000), [0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 0.0, 0.0, 3.0, -3.0, 1e-300]])
    y = np.concatenate([rng.normal(0, 50, 200_000), [0.0, 0.0, -0.0, -0.0, 0.0, 0.0, 1.0, -1.0, 3.0, -3.0, -1e-300]])
    t = np.linspace(0.0, 2.0 * np.pi, 10_001)  # every octant boundary and the tan(π/8) split
    x = np.concatenate([x, np.cos(t), 7.0 * np.cos(t)])
    y = np.concatenate([y, np.sin(t), 7.0 * np.sin(t)])
    ref = np.arctan2(y, x)
    ref = np.where(ref < 0.0, ref + 2.0 * np.pi, ref)
    got = _apply(0, x, y)
    assert np.abs(got - ref).max() <= 2 * np.spacing(2.0 * np.pi)
    assert np.all((got >= 0.0) & (got <= 2.0 * np.pi))


def test_polynomial_sin_cos_exp_cbrt():
    z = np.zeros(1)
    x = np.linspace(-np.pi / 2, np.pi / 2, 200_001)
    assert np.abs(_apply(1, x, z) - np.sin(x)).max() <= 2.3e-16
    x = np.linspace(-np.pi / 4, np.pi / 4, 200_001)
    assert np.abs(_apply(2, x, z) - np.cos(x)).max() <= 2.3e-16
    x = np.concatenate([np.linspace(-45.0, 0.0, 200_001), [-0.0]])
    assert np.abs(_apply(3, x, z) / np.exp(x) - 1.0).max() <= 4.5e-16
    assert _apply(3, np.array([-50.0, -1e3, -np.inf]), z).max() == pytest.approx(np.exp(-45.0), rel=1e-15)
    x = np.geomspace(216.0 / 24389.0, _kernels.CBRT_MAX, 200_001)[:-1]
    assert np.abs(_apply(4, x, z) / np.cbrt(x) - 1.0).max() <= 7e-16


def test_core_works_without_numba():
    code = (
        "import numpy as np; from huebench import color; from huebench.color import _kernels;"
        "assert not _kernels.AVAILABLE;"
        "rgb=np.random.default_rng(0).integers(0,256,(70000,3),dtype=np.uint8);"
        "lab=color.srgb_to_lab(rgb); print(float(color.delta_e(lab, lab[::-1]).sum()));"
        "print(int(color.linear_to_srgb8(np.linspace(-0.1, 1.1, 300000).reshape(-1, 3)).sum()))"
    )
    env = dict(os.environ, HUEBENCH_NO_NUMBA="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    rgb = np.random.default_rng(0).integers(0, 256, (70000, 3), dtype=np.uint8)
    lab = color.srgb_to_lab(rgb)
    de_sum, level_sum = out.split()
    assert float(de_sum) == pytest.approx(float(color.delta_e(lab, lab[::-1]).sum()), rel=1e-12)
    assert int(level_sum) == int(color.linear_to_srgb8(np.linspace(-0.1, 1.1, 300000).reshape(-1, 3)).sum())


def _random_masks(rng, count, density=(0.3, 1.0)):
    for _ in range(count):
        h, w = rng.integers(1, 14, 2)
        yield rng.random((h, w)) < rng.uniform(*density)


def test_mask_transforms_are_scipys_bit_for_bit(monkeypatch):
    # the compiled distance transform and dilation against SciPy's, on masks of every small shape
    # (one pixel, one row, touching the frame, full, empty), and the scorer's functions built on them
    # against their SciPy fallback
    from types import SimpleNamespace

    from scipy import ndimage

    from huebench.color import reflectance

    rng = np.random.default_rng(3)
    masks = [
        *_random_masks(rng, 600),
        *_random_masks(rng, 200, (0.0, 0.3)),
        np.ones((5, 7), bool),
        np.zeros((4, 4), bool),
    ]
    for m in masks:
        for border_is_background in (True, False):
            padded = np.pad(m, 1, mode="constant" if border_is_background else "edge")
            expected = ndimage.distance_transform_cdt(padded, metric="taxicab")[1:-1, 1:-1]
            got = _kernels.taxicab_depth(m, outside_is_background=border_is_background)
            if np.all(expected < 0):  # SciPy's "no background anywhere"
                assert np.all(got == sum(m.shape) + 2)
            else:
                assert np.array_equal(got, expected)
    compiled = [
        (reflectance.mask_depth(m, frame_cuts=f), reflectance.grow_mask(m, g))
        for m in masks
        for f in (True, False)
        for g in (1, 2, 7, 30)
    ]
    monkeypatch.setattr(reflectance, "_kernels", SimpleNamespace(AVAILABLE=False))
    fallback = [
        (reflectance.mask_depth(m, frame_cuts=f), reflectance.grow_mask(m, g))
        for m in masks
        for f in (True, False)
        for g in (1, 2, 7, 30)
    ]
    for (depth, grown), (depth_ref, grown_ref) in zip(compiled, fallback, strict=True):
        assert np.array_equal(depth, depth_ref) and depth.dtype == depth_ref.dtype
        assert np.array_equal(grown, grown_ref)
    with pytest.raises(ValueError, match="at least one pixel"):
        reflectance.grow_mask(masks[0], 0)  # SciPy's iterations=0 would mean "until nothing changes"


@pytest.mark.parametrize("sigma", [1.0, 0.7, 2.5])
def test_gaussian_blur_is_scipys_bit_for_bit(sigma):
    from scipy import ndimage

    from huebench.color.reflectance import gaussian_blur

    rng = np.random.default_rng(4)
    for _ in range(150):
        h, w = rng.integers(1, 40, 2)  # shorter than the kernel too: SciPy reflects again and again
        scale = rng.choice([1e-3, 1.0, 255.0])
        plane = rng.random((h, w)) * scale
        image = rng.random((h, w, 3)) * scale
        _same_bits(gaussian_blur(plane, sigma), ndimage.gaussian_filter(plane, sigma))
        _same_bits(gaussian_blur(image, sigma), ndimage.gaussian_filter(image, (sigma, sigma, 0.0)))
    # a large array, which gaussian_blur leaves to SciPy, through the kernel itself
    from huebench.color.reflectance import _gaussian_weights

    image = rng.random((130, 170, 3))
    expected = ndimage.gaussian_filter(image, (sigma, sigma, 0.0))
    _same_bits(_kernels.gaussian_blur(image, _gaussian_weights(sigma)), expected)
    # what the kernel does not take goes to SciPy: empty arrays, σ 0 (SciPy leaves the axes alone), float32
    for odd, s in ((np.zeros((0, 4)), sigma), (plane, 0.0), (plane.astype(np.float32), sigma)):
        expected = ndimage.gaussian_filter(odd, s)
        assert gaussian_blur(odd, s).dtype == expected.dtype and np.array_equal(gaussian_blur(odd, s), expected)


def _same_bits(got, expected):
    # SciPy's C loop adds as the kernel does; a compiler that fuses its multiply-adds (aarch64
    # builds may) would differ in the last bit, which the scorer's 8-bit rounding absorbs
    if platform.machine() in ("x86_64", "AMD64"):
        assert np.array_equal(got, expected)
    else:
        np.testing.assert_array_max_ulp(got, expected, maxulp=2)


def test_small_inputs_run_serially_with_the_same_numbers():
    # below PARALLEL_FROM pixels the same block code runs on the calling thread: cut into small
    # pieces, a large input gives the same bits as in one parallel call
    rng = np.random.default_rng(5)
    n, piece = _kernels.PARALLEL_FROM + 4321, 1000
    rgb = rng.integers(0, 256, (n, 3), dtype=np.uint8)
    lab = color.srgb_to_lab(rgb)
    other = lab[::-1].copy()
    ref = np.array([52.0, 30.0, -41.0])
    lin = rng.random((n, 3)) * 1.2 - 0.1

    def pieces(fn, *arrays):
        return np.concatenate([fn(*(a[i : i + piece] for a in arrays)) for i in range(0, n, piece)])

    assert np.array_equal(pieces(color.srgb_to_lab, rgb), lab)
    assert np.array_equal(pieces(lambda x: color.delta_e(x, ref), lab), color.delta_e(lab, ref))
    assert np.array_equal(pieces(color.delta_e, lab, other), color.delta_e(lab, other))
    assert np.array_equal(pieces(lambda x: color.srgb_delta_e(x, ref), rgb), color.srgb_delta_e(rgb, ref))
    assert np.array_equal(pieces(color.linear_to_srgb8, lin), color.linear_to_srgb8(lin))
    assert np.array_equal(pieces(cv.srgb_to_lab, lin), cv.srgb_to_lab(lin))


def test_inputs_below_kernel_from_take_the_numpy_path():
    # a handful of colours stays with NumPy (no kernel to load), bit for bit the reference; from
    # KERNEL_FROM pixels the serial kernels run (their dispatchers hold a compiled signature)
    rng = np.random.default_rng(6)
    n = _kernels.KERNEL_FROM
    rgb = rng.integers(0, 256, (n, 3), dtype=np.uint8)
    lab = _lab_numpy(rgb)
    ref = np.array([52.0, 30.0, -41.0])
    lin = rng.random((n, 3))
    few = slice(0, n - 1)
    assert np.array_equal(
        color.srgb_to_lab(rgb[few]), cv.xyz_to_lab(cv.linear_rgb_to_xyz(cv.srgb8_to_linear(rgb[few])))
    )
    assert np.array_equal(color.delta_e(lab[few], ref), ciede2000_numpy(lab[few], ref, 1.0, 1.0, 1.0))
    assert np.array_equal(color.linear_to_srgb8(lin[few]), cv._linear_to_srgb8_reference(lin[few]))
    assert np.abs(color.srgb_to_lab(rgb) - lab).max() < 1e-12
    assert np.abs(color.delta_e(lab, ref) - ciede2000_numpy(lab, ref, 1.0, 1.0, 1.0)).max() < 1e-10
    assert np.array_equal(color.linear_to_srgb8(lin), cv._linear_to_srgb8_reference(lin))
    for kernel in (_kernels._srgb8_to_lab_serial, _kernels._ciede2000_ref_serial, _kernels._linear_to_srgb8_serial):
        assert kernel.signatures  # compiled (or loaded) by the calls at KERNEL_FROM pixels


def test_srgb8_decoding_kernel_is_the_table_look_up():
    # from KERNEL_FROM pixels the 8-bit decoding reads the table in a kernel: the same values,
    # for any shape and memory layout (strided views are copied first)
    rng = np.random.default_rng(7)
    table = cv.srgb8_table()
    for shape in ((_kernels.KERNEL_FROM - 1, 3), (_kernels.KERNEL_FROM, 3), (1000, 3), (37, 41, 3), (N, 3)):
        rgb = rng.integers(0, 256, shape, dtype=np.uint8)
        got = cv.srgb8_to_linear(rgb)
        assert got.shape == rgb.shape and got.dtype == np.float64 and np.array_equal(got, table[rgb])
    strided = rng.integers(0, 256, (80, 90, 3), dtype=np.uint8)[::3, 1::2]
    assert np.array_equal(cv.srgb8_to_linear(strided), table[strided])
    assert _kernels._lookup_serial.signatures and _kernels._lookup.signatures


def _surfaces(rng):
    """Pixel sets (N×3, 8-bit) of the kinds main_color_pixels meets: shaded chromatic surfaces
    with highlights, a print of a second colour and noise; near-grey ones; one flat colour; black;
    random colours; sizes from KERNEL_FROM up."""
    for n in (_kernels.KERNEL_FROM, 100, 700, 5000, 40000):
        for _ in range(6):
            albedo = rng.random(3) ** 2
            shade = rng.uniform(0.05, 1.0, n)
            lin = shade[:, None] * albedo
            lin[rng.random(n) < rng.uniform(0, 0.2)] += rng.uniform(0.05, 0.6)  # highlights
            second = rng.random(n) < rng.uniform(0, 0.3)
            lin[second] = shade[second, None] * rng.random(3) ** 2  # a print
            lin += rng.normal(0, rng.choice([0.0, 0.003, 0.02]), lin.shape)
            yield color.linear_to_srgb8(lin)
        grey = rng.uniform(0.1, 0.9, n)[:, None] * np.array([1.0, 0.99, 1.01])
        yield color.linear_to_srgb8(grey)
        yield np.tile(rng.integers(0, 256, (1, 3), dtype=np.uint8), (n, 1))
        yield np.zeros((n, 3), np.uint8)
        yield rng.integers(0, 256, (n, 3), dtype=np.uint8)


def test_main_colour_kernels_are_the_numpy_steps_bit_for_bit(monkeypatch):
    # main_color_pixels runs as one kernel from KERNEL_FROM pixels: the pixels it keeps are those
    # of its NumPy steps, for every setting (its two 3-vector products are loops where NumPy calls
    # BLAS: the last place may differ, the kept pixels do not)
    from huebench.color import reflectance

    rng = np.random.default_rng(8)
    settings = ((0.7, 0.25), (0.5, 0.5), (1.0, 0.0), (0.7, 0.9))  # the last: under 20 bright pixels at 64
    cases = [(px, keep, low) for px in _surfaces(rng) for keep, low in settings]
    calls = []
    main_color = _kernels.main_color
    monkeypatch.setattr(_kernels, "main_color", lambda *a: calls.append(1) or main_color(*a))
    compiled = [reflectance.main_color_pixels(px, keep=keep, from_quantile=low) for px, keep, low in cases]
    assert len(calls) == len(cases)  # every case took the kernels
    monkeypatch.setattr(_kernels, "enabled", lambda n: False)
    for (px, keep, low), got in zip(cases, compiled, strict=True):
        assert np.array_equal(got, reflectance.main_color_pixels(px, keep=keep, from_quantile=low))
    assert len(calls) == len(cases)  # and the reference did not
    assert any(0 < got.sum() < len(got) for got in compiled)  # not only "keep everything"
    assert any(got.all() and len(got) == _kernels.KERNEL_FROM for got in compiled)


def test_main_colour_kernels_take_only_pixel_lists(monkeypatch):
    # an image (H×W×3) or a flat array is not N×3 pixels: it never reaches the kernels (which would
    # read it as pixels), and fails as it did before they existed
    from huebench.color import reflectance

    monkeypatch.setattr(_kernels, "main_color", lambda *a: pytest.fail("kernel given a non-N×3 array"))
    rng = np.random.default_rng(11)
    for shape in ((300,), (80, 70, 3), (2000, 2)):
        with pytest.raises((IndexError, ValueError)):
            reflectance.main_color_pixels(rng.integers(0, 256, shape, dtype=np.uint8))


def test_main_colour_kernel_steps_are_numpys_arrays_bit_for_bit():
    # each compiled step of _main_color against the NumPy expression it replaces, value for value
    # (the pixels kept can hide a last-bit difference); the steps take flat C-ordered arrays
    from huebench.color._rows import row_norm, row_sum

    def flat(a):
        return np.ascontiguousarray(a).reshape(-1)

    rng = np.random.default_rng(9)
    for px in _surfaces(rng):
        lin = cv.srgb8_table()[px]
        total, chrom = np.empty(len(px)), np.empty((len(px), 3))
        _kernels._chromaticity(flat(px), cv.srgb8_table(), total, chrom.reshape(-1))
        assert np.array_equal(total, row_sum(lin))
        assert np.array_equal(chrom, lin / np.maximum(row_sum(lin), 1e-6)[:, None])
        bright = total >= np.median(total)
        x, y, t = (np.empty(int(bright.sum())) for _ in range(3))
        _kernels._select_xy(flat(chrom), total, bright, x, y, t)
        assert np.array_equal(x, chrom[bright, 0]) and np.array_equal(y, chrom[bright, 1])
        assert np.array_equal(t, total[bright])
        point = np.array([chrom[0, 0], chrom[0, 1], 1.0 - chrom[0, 0] - chrom[0, 1]]) + rng.normal(0, 0.01, 3)
        off = np.empty_like(chrom)
        _kernels._offsets(chrom.reshape(-1), *point, off.reshape(-1))
        assert np.array_equal(off, chrom - point)
        dist = np.empty(len(off))
        _kernels._norm3(off.reshape(-1), dist)
        assert np.array_equal(dist, row_norm(off))
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        along, reach = off @ axis, float(rng.uniform(0.0, 0.5))
        expected = np.hypot(row_norm(off - along[:, None] * axis), np.clip(-along - reach, 0.0, None))
        _kernels._hue_distance(off.reshape(-1), along, *axis, reach, dist)
        assert np.array_equal(dist, expected)
        radius, typical = float(np.median(expected)), float(np.median(total))
        kept = np.empty(len(dist), dtype=bool)
        count = _kernels._within_radius(expected, total, typical, radius, kept)
        assert np.array_equal(kept, expected <= radius * np.maximum(typical / np.maximum(total, 1e-6), 1.0))
        assert count == kept.sum()
        # the grid over the central part: points fall outside it on every side
        lo = np.array([np.quantile(x, 0.1), np.quantile(y, 0.1)])
        width = (np.array([np.quantile(x, 0.9), np.quantile(y, 0.9)]) - lo + 1e-9) / 20
        cells = np.floor((np.stack([x, y], axis=1) - lo) / width).astype(np.int64)
        inside = ((cells >= 0) & (cells < 20)).all(axis=1)
        expected_counts = np.bincount(cells[inside, 0] * 20 + cells[inside, 1], minlength=400)
        counts = np.zeros(400, dtype=np.int64)
        _kernels._histogram(x, y, *lo, *width, 20, counts)
        assert np.array_equal(counts, expected_counts)
        centre = np.array([np.median(x), np.median(y)])
        close = (np.abs(x - centre[0]) <= width[0] * 3) & (np.abs(y - centre[1]) <= width[1] * 3)
        near_x, near_y = np.empty(len(x)), np.empty(len(y))
        k = _kernels._near(x, y, *centre, *(width * 3), near_x, near_y)
        assert np.array_equal(near_x[:k], x[close]) and np.array_equal(near_y[:k], y[close])


def test_delta_e_compiled_takes_the_kernel_for_a_handful_of_pairs(monkeypatch):
    # the scorer compares its dominant colour with four candidates: compiled=True takes the kernel
    # (loaded anyway) instead of NumPy's dozens of operations; the default keeps few pairs on NumPy
    rng = np.random.default_rng(10)
    labs = rng.normal(0, 30, (4, 3)) + np.array([50.0, 0.0, 0.0])
    ref = np.array([[52.0, 30.0, -41.0]])
    reference = ciede2000_numpy(labs, ref, 1.0, 1.0, 1.0)
    assert np.array_equal(color.delta_e(labs, ref), reference)
    assert np.abs(color.delta_e(labs, ref, compiled=True) - reference).max() < 1e-10
    calls = []
    monkeypatch.setattr(_kernels, "ciede2000", lambda *a: calls.append(a) or reference)
    color.delta_e(labs, ref, compiled=True)
    color.delta_e(labs, ref)
    assert len(calls) == 1
    assert color.delta_e(labs, ref, kL=0.0, compiled=True).shape == (4,)  # weights the kernel cannot fold: NumPy


def _fork_after(pixels: int) -> str:
    """In a fresh interpreter: convert ``pixels`` pixels, then fork a child that converts a large
    image. The child's exit code and the threading layer numba used, if any."""
    code = (
        "import multiprocessing as mp, sys, numpy as np\n"
        "from huebench import color\n"
        "def child():\n"
        "    color.srgb_to_lab(np.zeros((200_000, 3), np.uint8))\n"
        "if __name__ == '__main__':\n"
        f"    rgb = np.random.default_rng(0).integers(0, 256, ({pixels}, 3), dtype=np.uint8)\n"
        "    color.delta_e(color.srgb_to_lab(rgb), np.array([50.0, 0.0, 0.0]))\n"
        "    p = mp.get_context('fork').Process(target=child); p.start(); p.join(120)\n"
        "    import numba\n"
        "    try:\n"
        "        layer = numba.threading_layer()\n"
        "    except ValueError:  # no parallel kernel has run: no threads\n"
        "        layer = 'none'\n"
        "    from huebench.color import _kernels\n"
        "    print(p.exitcode, layer, bool(_kernels._srgb8_to_lab_serial.signatures))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    return out.stdout.strip().splitlines()[-1]


def test_a_process_that_converted_a_few_colours_can_still_fork():
    # small inputs run on the calling thread: numba's threads never start, whatever their layer
    assert _fork_after(5_000) == "0 none True"  # the serial kernel ran, numba's threads did not


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="tbb is a dependency on x86-64 only")
def test_a_process_that_converted_a_large_image_can_still_fork():
    # a large input runs on numba's threads: with TBB (a dependency) a forked child runs kernels too;
    # under GNU OpenMP it would be terminated ("fork() called from a process already using GNU OpenMP")
    exit_code, layer, _ = _fork_after(300_000).split()
    assert exit_code == "0" and layer not in ("omp", "none"), layer


def test_pairwise_sum_is_numpys_sum_bit_for_bit():
    # the fused fits add as NumPy does (pairwise, eight accumulators, halves rounded to multiples
    # of 8), so their means and variances are stats.mean's and stats.variance's to the last bit
    rng = np.random.default_rng(21)
    sizes = [*range(1, 300), 511, 512, 513, 1000, 8191, 8192, 8193, 20_000, 65_537]
    for n in sizes:
        a = rng.standard_normal(n) * 10 ** rng.uniform(-3, 3, n)
        assert 0.0 + _kernels._pairwise_sum(a, 0, n) == np.add.reduce(a), n
        assert _kernels._mean(a) == np.mean(a), n
    a = rng.random(1000)
    assert _kernels._pairwise_sum(a, 100, 400) == np.add.reduce(a[100:500])


def test_kernel_quantiles_are_stats_quantiles_bit_for_bit():
    from huebench import stats

    rng = np.random.default_rng(22)
    for n in (1, 2, 3, 10, 16, 17, 64, 513, 4000, 20_000):
        ramp = np.arange(n, dtype=np.float64)
        organ = np.concatenate([ramp[: n // 2], ramp[n // 2 :][::-1]])
        shapes = (rng.random(n), rng.integers(0, 5, n).astype(np.float64), ramp, ramp[::-1].copy(), organ, np.ones(n))
        for x in shapes:  # random, ties, sorted both ways, organ pipe, all equal: the selection's hard cases
            before = x.copy()
            assert _kernels._median(x) == stats.median(x) == np.median(x)
            for q in (0.0, 0.1, 0.25, 0.5, 0.9, 0.99, 1.0):
                assert _kernels._quantile(x, q) == stats.quantile(x, q), (n, q)
            assert np.array_equal(x, before)  # the input is left as it was


def _select_killer(n: int, k: int) -> tuple[np.ndarray, int]:
    """An order that makes _select's quickselect pick a bad pivot round after round: McIlroy's
    adversary ("A killer adversary for quicksort", 1999) answers the comparisons of a Python model
    of the selection (same pivot, same partition), fixing values only when it must. Returns the
    values and the number of partition rounds the model ran before its 64-round limit."""
    gas = n  # a value not fixed yet: above every fixed one
    value = [gas] * n
    fixed, candidate = 0, -1

    def less(x: int, y: int) -> bool:
        nonlocal fixed, candidate
        if value[x] == gas and value[y] == gas:
            value[x if x == candidate else y] = fixed
            fixed += 1
        if value[x] == gas:
            candidate = x
        elif value[y] == gas:
            candidate = y
        return value[x] < value[y]

    a, lo, hi, rounds = list(range(n)), 0, n - 1, 0
    while hi - lo >= 16 and rounds < 64:
        rounds += 1
        mid = (lo + hi) >> 1
        for p, q in ((mid, lo), (hi, lo), (hi, mid)):
            if less(a[p], a[q]):
                a[p], a[q] = a[q], a[p]
        pivot, i, j = a[mid], lo, hi
        while i <= j:
            while less(a[i], pivot):
                i += 1
            while less(pivot, a[j]):
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i, j = i + 1, j - 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    # the values never compared stay above the fixed ones, each its own: every answer given holds,
    # and what is left at the limit has an order for the fallback to find
    order = iter(np.random.default_rng(0).permutation(n))
    return np.array([v if v < gas else fixed + next(order) for v in value], dtype=np.float64), rounds


def test_selection_survives_an_adversarial_order():
    # the killer order runs the quickselect into its 64-round limit, where the rest is merge-sorted
    n = 2000
    x, rounds = _select_killer(n, n // 2)
    assert rounds == 64
    part = x.copy()
    assert _kernels._select(part, n // 2) == np.partition(x, n // 2)[n // 2]
    assert (part[: n // 2] <= part[n // 2]).all() and (part[n // 2 + 1 :] >= part[n // 2]).all()
    assert _kernels._median(x) == np.median(x)


def _glossy_surfaces(rng):
    """N×3 8-bit surfaces between matte and glossy: shaded albedos with a Lambert-like range,
    highlights of several sizes, a veil, noise, clipped channels; and _surfaces' kinds."""
    for n in (_kernels.KERNEL_FROM, 300, 1500, 6000):
        for _ in range(12):
            albedo = rng.random(3) ** 1.5
            shade = np.clip(rng.uniform(0.0, 1.0, n) ** rng.uniform(0.5, 2), 0.02, None)
            spec = rng.uniform(0, 0.5) * np.clip(shade - rng.uniform(0.6, 0.98), 0, None) * 10
            lin = shade[:, None] * albedo + spec[:, None] + rng.uniform(0, 0.02)
            lin *= rng.uniform(0.6, 1.6)  # some exposures clip
            lin += rng.normal(0, rng.choice([0.0, 0.002, 0.01]), lin.shape)
            yield color.linear_to_srgb8(lin)
    yield from _surfaces(rng)


def _curved_surfaces(rng):
    """N×3 8-bit shaded surfaces through a curve on each channel (Reinhard's, gain 1–2), some with a
    highlight and noise: the line's curve test (hue turning with brightness) fires on most."""
    for n in (_kernels.KERNEL_FROM, 800, 3000):
        for _ in range(6):
            albedo = rng.random(3) ** 1.5
            shade = rng.uniform(0.05, 1.0, n)
            lin = rng.uniform(1.0, 2.0) * (shade[:, None] * albedo + (rng.uniform(0, 0.3) * shade**12)[:, None])
            lin = lin * (1 + lin / 16) / (1 + lin) + rng.normal(0, rng.choice([0.0, 0.002]), lin.shape)
            yield color.linear_to_srgb8(lin)


def _hueless_surfaces(rng):
    """N×3 8-bit shaded surfaces whose albedo has two equal channels, through Reinhard's curve on
    each channel: the hue cannot turn, the darker half grows more saturated (version 21's test
    fires on most); one of each size also with a veil, and one with half its pixels tied at the
    bottom (the darker half empty) — up to 30,000 pixels, where the test reads every k-th."""
    for n in (_kernels.KERNEL_FROM, 800, 3000, 30000):
        for _ in range(4):
            a, b = rng.uniform(0.3, 0.9), rng.uniform(0.02, 0.2)
            albedo = rng.permutation(np.array([a, b, b]))
            shade = rng.uniform(0.1, 1.0, n)[:, None]
            lin = rng.uniform(1.0, 2.0) * shade * albedo
            yield color.linear_to_srgb8(
                lin * (1 + lin / 16) / (1 + lin) + rng.normal(0, rng.choice([0.0, 0.001]), lin.shape)
            )
        yield color.linear_to_srgb8(rng.uniform(0.1, 1.0, (n, 1)) * np.array([0.5, 0.1, 0.1]) + 0.02)
        tied = np.full((n, 3), (200, 40, 40), dtype=np.uint8)
        tied[n // 2 :] = color.linear_to_srgb8(rng.uniform(0.6, 1.0, (n - n // 2, 1)) * np.array([0.9, 0.1, 0.1]))
        yield tied


def test_gloss_and_shading_kernels_decide_as_the_numpy_steps(monkeypatch):
    # looks_glossy and has_shading run as one kernel each from KERNEL_FROM pixels; their dot
    # products are plain loops (NumPy's are BLAS calls, CPU-dependent in the last place), so the
    # decisions are compared, on surfaces on both sides of every threshold
    from huebench.color import reflectance

    rng = np.random.default_rng(23)
    cases = list(_glossy_surfaces(rng))
    for share in (0.75, 0.8, 0.85):  # cel shading: flat bands, where only the banded test sees shading
        tone = np.where(rng.random(500) < share, 1.0, rng.uniform(0.3, 0.6))[:, None]
        lin = np.clip(rng.uniform(0.2, 0.9, 3) * tone + rng.normal(0, 0.004, (500, 3)), 0, 1)
        cases.append(cv.linear_to_srgb8(lin))
    settings = ((0.955, 2.0, 0.15), (0.955, None, 0.15), (0.9, 1.0, 0.05), (0.99, 3.0, 0.3))
    calls = []
    looks = _kernels.looks_glossy
    monkeypatch.setattr(_kernels, "looks_glossy", lambda *a, **k: calls.append(1) or looks(*a, **k))
    compiled = [
        [reflectance.looks_glossy(px, uniformity=u, radial=r, min_saturation=s) for u, r, s in settings] for px in cases
    ]
    shading = [reflectance.has_shading(cv.srgb8_to_linear(px)) for px in cases]
    banded = [reflectance.has_shading(cv.srgb8_to_linear(px), bands=True) for px in cases]
    assert len(calls) == len(cases) * len(settings)
    monkeypatch.setattr(_kernels, "enabled", lambda n: False)
    reference = [
        [reflectance.looks_glossy(px, uniformity=u, radial=r, min_saturation=s) for u, r, s in settings] for px in cases
    ]
    assert compiled == reference
    assert shading == [reflectance.has_shading(cv.srgb8_to_linear(px)) for px in cases]
    assert banded == [reflectance.has_shading(cv.srgb8_to_linear(px), bands=True) for px in cases]
    assert banded[-3:] == [True] * 3 and shading[-3:] == [False] * 3
    assert len(calls) == len(cases) * len(settings)  # the reference took no kernel
    flat = [v for row in compiled for v in row]
    assert 0.2 < sum(flat) / len(flat) < 0.8 and 0.2 < sum(shading) / len(shading) < 0.95  # both answers


def test_floor_fit_and_smoothing_kernels_are_the_numpy_steps_bit_for_bit(monkeypatch):
    from huebench.color import reflectance

    rng = np.random.default_rng(24)
    cases = list(_glossy_surfaces(rng))
    floors = [reflectance.remove_fitted_floor(px) for px in cases]
    images = []
    for _ in range(12):
        h, w = rng.integers(12, 70, 2)
        img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        yy, xx = np.mgrid[:h, :w]
        mask = (yy - h / 2) ** 2 / (h / 2.5) ** 2 + (xx - w / 3) ** 2 / (w / 3) ** 2 < 1
        images.append((img, mask, float(rng.choice([0.7, 1.0, 2.5]))))
    smoothed = [reflectance.smooth_within(img, m, s) for img, m, s in images]
    sampled = [reflectance.smooth_within(img, m, s, sample=np.arange(0, m.sum(), 3)) for img, m, s in images]
    monkeypatch.setattr(_kernels, "enabled", lambda n: False)
    for px, got in zip(cases, floors, strict=True):
        assert np.array_equal(got, reflectance.remove_fitted_floor(px))
    for (img, m, s), got, some in zip(images, smoothed, sampled, strict=True):
        assert np.array_equal(got, reflectance.smooth_within(img, m, s))
        assert np.array_equal(some, reflectance.smooth_within(img, m, s, sample=np.arange(0, m.sum(), 3)))
    assert sum(not np.array_equal(f, px) for f, px in zip(floors, cases, strict=True)) >= 5  # floors came off


def test_dichromatic_kernels_are_the_numpy_steps_bit_for_bit(monkeypatch):
    # DichromaticFit's per-pixel values, the diffuse line's saturation and its new pixels run as
    # kernels from KERNEL_FROM pixels: the same arrays and values as the NumPy steps
    from huebench.color import reflectance

    rng = np.random.default_rng(25)
    cases = list(_glossy_surfaces(rng)) + list(_curved_surfaces(rng)) + list(_hueless_surfaces(rng))

    def run():
        out = []
        for px in cases:
            fit = reflectance.DichromaticFit(px)
            est = reflectance.albedo_saturation(px, quantile=0.9, min_saturation=0.05)
            out.append((fit.grey, fit.perp, fit.use, est))
            curve = reflectance.albedo_saturation(px, quantile=0.9, min_saturation=0.05, curve_turn=0.5)
            out.append((fit.grey, fit.perp, fit.use, curve))
            dark = reflectance.albedo_saturation(px, quantile=0.9, min_saturation=0.05, dark_fall=-0.9)
            out.append((fit.grey, fit.perp, fit.use, dark))
            band = reflectance.albedo_saturation(px, quantile=0.9, min_saturation=0.05, line_band=(0.3, 0.8))
            out.append((fit.grey, fit.perp, fit.use, band))
            for keep in (False, True):
                out.append(reflectance.diffuse_line_reconstruction(px, quantile=0.9, keep_clipped=keep))
                out.append(reflectance.diffuse_line_reconstruction(px, saturation=0.8, keep_clipped=keep))
            out.append(reflectance.diffuse_line_reconstruction(px, quantile=0.9, curve_turn=0.5))
            out.append(reflectance.diffuse_line_reconstruction(px, quantile=0.9, curve_turn=0.5, dark_fall=-0.9))
            out.append(
                reflectance.diffuse_line_reconstruction(
                    px, quantile=0.9, curve_turn=0.5, dark_fall=-0.9, line_band=reflectance.LINE_BAND
                )
            )
        return out

    compiled = run()
    monkeypatch.setattr(_kernels, "enabled", lambda n: False)
    reference = run()
    for got, want in zip(compiled, reference, strict=True):
        if isinstance(got, tuple):
            assert all(np.array_equal(g, w) for g, w in zip(got[:3], want[:3], strict=True)) and got[3] == want[3]
        else:
            assert np.array_equal(got, want)
    assert sum(g[3] is not None for g in compiled if isinstance(g, tuple)) >= 10
    # the curve test moved the estimate on some surfaces, the darker-half test and the band's cap on
    # others (fours: neither, curve_turn, dark_fall, line_band); the cap never raises it
    estimates = [g[3] for g in compiled if isinstance(g, tuple)]
    assert sum(a != b for a, b in zip(estimates[::4], estimates[1::4], strict=True)) >= 5
    assert sum(a != b for a, b in zip(estimates[::4], estimates[2::4], strict=True)) >= 5
    assert sum(a != b for a, b in zip(estimates[::4], estimates[3::4], strict=True)) >= 5
    assert all(b <= a for a, b in zip(estimates[::4], estimates[3::4], strict=True) if a is not None)


def _flat_glossy_surfaces(rng):
    """N×3 8-bit glossy surfaces under soft light: shading within 0.8–1 (less than the 1.25× span
    the diffuse line asks of its usable pixels), a white reflection rising on some pixels, noise."""
    for n in (_kernels.KERNEL_FROM, 500, 2500):
        for _ in range(8):
            albedo = rng.random(3) ** 1.5
            shade = rng.uniform(0.8, 1.0, n)
            white = rng.uniform(0.02, 0.2) * rng.random(n) ** 4
            lin = shade[:, None] * albedo + white[:, None] + rng.normal(0, rng.choice([0.0, 0.002]), (n, 3))
            yield color.linear_to_srgb8(lin)


def test_the_line_on_flat_surfaces_is_the_numpy_steps_bit_for_bit(monkeypatch):
    # version 28: with flat_line the diffuse line is read on surfaces whose usable pixels span less
    # than 1.25x in brightness too — the same estimate and pixels in the kernels as in NumPy, and
    # an estimate where, without it, there is none
    from huebench.color import reflectance

    cases = list(_flat_glossy_surfaces(np.random.default_rng(28))) + list(_glossy_surfaces(np.random.default_rng(3)))

    def run():
        out = []
        for px in cases:
            for flat in (False, True):
                out.append(reflectance.albedo_saturation(px, quantile=0.9, min_saturation=0.05, flat_line=flat))
                out.append(reflectance.dichromatic_steps(px, quantile=0.9, min_saturation=0.05, flat_line=flat))
        return out

    compiled = run()
    monkeypatch.setattr(_kernels, "enabled", lambda n: False)
    reference = run()
    for got, want in zip(compiled, reference, strict=True):
        assert np.array_equal(got, want) if isinstance(got, np.ndarray) else got == want
    flat = len(list(_flat_glossy_surfaces(np.random.default_rng(0))))
    guarded, lined = compiled[: 4 * flat : 4], compiled[2 : 4 * flat : 4]
    assert sum(g is None and e is not None for g, e in zip(guarded, lined, strict=True)) >= flat // 2
    # where the guard finds a shading range, the flag changes nothing (every case)
    assert all(g == e for g, e in zip(compiled[::4], compiled[2::4], strict=True) if g is not None)
    changed = [
        not np.array_equal(a, b) for a, b in zip(compiled[1 : 4 * flat : 4], compiled[3 : 4 * flat : 4], strict=True)
    ]
    assert sum(changed) >= flat // 2


def test_within_and_nearer_is_delta_e_compiled():
    rng = np.random.default_rng(26)
    lab = np.column_stack([rng.uniform(0, 100, 500), rng.uniform(-80, 80, (500, 2))])
    a, b = np.array([50.0, 10.0, -5.0]), np.array([55.0, 12.0, -3.0])
    between, near = color.within_and_nearer(lab, a, b, 30.0)
    to_a, to_b = color.delta_e(lab, a, compiled=True), color.delta_e(lab, b, compiled=True)
    assert between == float(color.delta_e(a, b, compiled=True))
    assert np.array_equal(near, (to_a < 30.0) & (to_a < to_b)) and 0 < near.sum() < len(near)
    assert np.allclose(color.delta_e(lab, a), to_a, atol=1e-10)  # and the NumPy reference's


def test_dichromatic_steps_kernel_gives_the_numpy_steps_pixels(monkeypatch):
    # the fitted floor and the diffuse line run as one kernel: the same pixels for every setting,
    # with the floor taken off, refused, or not tried
    from huebench.color import reflectance

    rng = np.random.default_rng(27)
    cases = list(_glossy_surfaces(rng)) + list(_curved_surfaces(rng)) + list(_hueless_surfaces(rng))
    settings = [
        {"floor": True, "quantile": 0.9},
        {"floor": True, "quantile": 0.5, "keep_clipped": True},
        {"floor": False, "quantile": 0.9, "min_saturation": 0.3},
        {"floor": True, "quantile": 0.75, "max_floor": None, "floor_min_saturation": 0.1},
        {"floor": True, "quantile": 0.9, "dark_fall": -0.9, "curve_spread": None, "max_removed_white": None},
        {"floor": True, "quantile": 0.9, "curve_turn": 0.5, "curve_spread": None, "max_removed_white": None},
        {"floor": True, "quantile": 0.9, "curve_turn": 0.5, "dark_fall": -0.9, "line_band": (0.3, 0.8)},
    ]
    calls = []
    steps = _kernels.dichromatic_steps
    monkeypatch.setattr(_kernels, "dichromatic_steps", lambda *a, **k: calls.append(1) or steps(*a, **k))
    compiled = [[reflectance.dichromatic_steps(px, **s) for s in settings] for px in cases]
    in_kernel = sum(len(px) <= reflectance.FIT_PIXELS for px in cases) * len(settings)  # larger: sampled fits
    assert len(calls) == in_kernel > 0
    monkeypatch.setattr(_kernels, "enabled", lambda n: False)
    for px, row in zip(cases, compiled, strict=True):
        for s, got in zip(settings, row, strict=True):
            assert np.array_equal(got, reflectance.dichromatic_steps(px, **s)), s
    assert len(calls) == in_kernel
    changed = [not np.array_equal(got, px) for px, row in zip(cases, compiled, strict=True) for got in row]
    assert 0.2 < sum(changed) / len(changed) < 0.95
    # the curve test changed the line on some of the curved surfaces (the same setting without it),
    # in the kernel as in NumPy (compared above)
    curved = len(list(_curved_surfaces(np.random.default_rng(0))))
    hueless = len(list(_hueless_surfaces(np.random.default_rng(0))))
    at = slice(len(cases) - hueless - curved, len(cases) - hueless)
    without = [reflectance.dichromatic_steps(px, **{**settings[-2], "curve_turn": None}) for px in cases[at]]
    assert sum(not np.array_equal(row[-2], w) for row, w in zip(compiled[at], without, strict=True)) >= 5
    # and the darker-half test on the surfaces whose hue cannot turn
    without = [reflectance.dichromatic_steps(px, **{**settings[-3], "dark_fall": None}) for px in cases[-hueless:]]
    assert sum(not np.array_equal(row[-3], w) for row, w in zip(compiled[-hueless:], without, strict=True)) >= 5
    # and the band's cap on some surfaces
    without = [reflectance.dichromatic_steps(px, **{**settings[-1], "line_band": None}) for px in cases]
    assert sum(not np.array_equal(row[-1], w) for row, w in zip(compiled, without, strict=True)) >= 5


def test_edge_near_surroundings_kernel_is_the_numpy_steps(monkeypatch):
    # the background peel's colour test runs as one kernel: the same ΔE00 between the medians and
    # the same edge pixels, on objects that caught some of their backdrop and ones that did not
    from huebench.color import reflectance

    rng = np.random.default_rng(28)
    cases = []
    for _ in range(30):
        h, w = rng.integers(24, 90, 2)
        yy, xx = np.mgrid[:h, :w]
        obj = (yy - h / 2) ** 2 / (h / 3) ** 2 + (xx - w / 2) ** 2 / (w / 3) ** 2 < 1
        img = np.empty((h, w, 3), np.uint8)
        img[:] = rng.integers(0, 256, 3)
        img[obj] = rng.integers(0, 256, 3)
        img = np.clip(img + rng.normal(0, rng.uniform(0, 12), img.shape), 0, 255).astype(np.uint8)
        grow = int(rng.integers(0, 4))
        mask = reflectance.grow_mask(obj, grow) if grow else obj  # a loose mask, or the object's own
        depth = reflectance.mask_depth(mask)
        edge, deep = mask & (depth <= 4), mask & (depth > 4)
        ring = reflectance.grow_mask(mask, 2) & ~mask
        if deep.sum() >= 20 and edge.any() and ring.sum() >= 20:
            cases.append((img, ring, deep, edge, float(rng.choice([3.0, 6.0, 20.0]))))
    compiled = [reflectance.edge_near_surroundings(*c) for c in cases]
    for (img, ring, deep, edge, max_de), (between, drop) in zip(cases, compiled, strict=True):
        # the steps one call at a time (srgb_to_lab's kernel, as in the scorer)
        lab = color.srgb_to_lab(np.concatenate([img[ring], img[deep], img[edge]]))
        a, b = ring.sum(), ring.sum() + deep.sum()
        outside, inside = np.median(lab[:a], axis=0), np.median(lab[a:b], axis=0)
        want_between, want_drop = color.within_and_nearer(lab[b:], outside, inside, max_de)
        assert between == want_between and np.array_equal(drop, want_drop)
    monkeypatch.setattr(_kernels, "enabled", lambda n: False)  # the NumPy path: its own Lab (to ~1e-13)
    for c, (between, drop) in zip(cases, compiled, strict=True):
        want_between, want_drop = reflectance.edge_near_surroundings(*c)
        assert between == pytest.approx(want_between, abs=1e-9) and np.array_equal(drop, want_drop)
    assert len(cases) >= 15 and sum(d.any() for _, d in compiled) >= 5 and sum(not d.any() for _, d in compiled) >= 1


def test_dominant_colour_kernel_keeps_the_numpy_steps_values(monkeypatch):
    # dominant_color's steps up to its PCA run as one kernel (the same pixels kept, bit for bit),
    # and its 2×2 PCA in closed form (LAPACK's values up to rounding): with and without a
    # lightness window, with outliers beyond the cap on how many may go, and NaN rows
    rng = np.random.default_rng(29)
    cases = []
    for n in (_kernels.KERNEL_FROM, 200, 3000):
        for _ in range(10):
            lab = np.column_stack(
                [rng.uniform(20, 90, n), rng.normal(rng.uniform(-40, 40), 5, n), rng.normal(10, 5, n)]
            )
            far = rng.random(n) < rng.choice([0.0, 0.1, 0.4])  # a second colour: beyond the 20 % cap at 0.4
            lab[far, 1:] += rng.uniform(30, 60, 2)
            lab[rng.random(n) < 0.02] = np.nan
            cases.append(lab)
    cases.append(np.tile([50.0, 10.0, 10.0], (100, 1)))  # no spread at all
    settings = ({}, {"lightness_window": (0.6, 0.95)}, {"lightness_window": (0.25, 1.0), "outlier_mad": 1.0})
    calls = []
    kernel = _kernels.dominant_pixels
    monkeypatch.setattr(_kernels, "dominant_pixels", lambda *a, **k: calls.append(1) or kernel(*a, **k))
    compiled = [[color.dominant_color(lab, **s) for s in settings] for lab in cases]
    assert len(calls) == len(cases) * len(settings)
    with pytest.raises(ValueError, match="no finite pixels"):
        color.dominant_color(np.full((100, 3), np.nan))  # the kernel's answer to nothing left
    monkeypatch.setattr(_kernels, "enabled", lambda n: False)
    for lab, row in zip(cases, compiled, strict=True):
        for s, got in zip(settings, row, strict=True):
            want = color.dominant_color(lab, **s)
            assert np.allclose(got.lab, want.lab, rtol=0, atol=1e-11) and np.allclose(got.axis, want.axis, atol=1e-11)
            assert (got.n_used, got.method) == (want.n_used, want.method) and got.spread == pytest.approx(want.spread)
    used = [d.n_used / d.n_pixels for row in compiled for d in row]
    assert min(used) < 0.5 and max(used) == 1.0


def test_light_and_neutral_highlight_kernels_are_the_numpy_steps(monkeypatch):
    # light_colour's pixels and neutral_highlights' gate run as kernels: the same answers on glossy
    # objects under coloured and white light, grey objects with highlights, and matte ones
    from huebench.color import reflectance

    rng = np.random.default_rng(30)
    cases = []
    for _ in range(40):
        h = w = int(rng.integers(30, 80))
        yy, xx = np.mgrid[:h, :w]
        r2 = ((yy - h / 2) ** 2 + (xx - w / 2) ** 2) / (h / 2.6) ** 2
        obj = r2 < 1
        light = rng.choice([np.ones(3), np.array([1.0, 0.8, 0.55]), np.array([0.7, 0.85, 1.0])])
        albedo = rng.random(3) ** 2 if rng.random() < 0.7 else np.full(3, rng.uniform(0.05, 0.8))
        shade = np.clip(1 - r2, 0, 1)[..., None] ** 0.5
        spec = rng.uniform(0, 3) * np.exp(-(((yy - h / 3) ** 2 + (xx - w / 3) ** 2) / (h / 10) ** 2))[..., None]
        lin = np.where(obj[..., None], (shade * albedo + spec) * light, 0.3 * light)
        img = color.linear_to_srgb8(np.clip(lin + rng.normal(0, 0.004, lin.shape), 0, 1))
        cases.append((img, obj))
    compiled = [
        (reflectance.light_colour(img, m), reflectance.neutral_highlights(img, reflectance.mask_depth(m) > 1))
        for img, m in cases
    ]
    monkeypatch.setattr(_kernels, "enabled", lambda n: False)
    for (img, m), (light, found) in zip(cases, compiled, strict=True):
        want = reflectance.light_colour(img, m)
        assert (light is None) == (want is None) and (light is None or np.array_equal(light, want))
        assert np.array_equal(found, reflectance.neutral_highlights(img, reflectance.mask_depth(m) > 1))
    assert sum(light is not None for light, _ in compiled) >= 5 and sum(f.any() for _, f in compiled) >= 3


def test_three_differences_are_the_three_functions():
    # the scorer's candidate metrics in one call: ΔE00 and Δchroma bit for bit, Δhue to the last
    # place (NumPy's arctangent is SIMD code on some CPUs, the kernel's the C library's), NaN
    # exactly where either chroma is below the gate, and 180° ties
    rng = np.random.default_rng(31)
    labs = np.column_stack([rng.uniform(0, 100, 400), rng.uniform(-60, 60, (400, 2))])
    labs[:20, 1:] *= 0.05  # near-neutral: gated
    for ref in (np.array([50.0, 20.0, -30.0]), np.array([60.0, 1.0, 2.0]), np.array([0.0, -5.0, 5.0])):
        de, dc, dh = color.three_differences(labs, ref)
        assert np.array_equal(de, color.delta_e(labs, ref, compiled=True))
        assert np.array_equal(dc, color.delta_chroma(labs, ref))
        want = color.delta_hue(labs, ref, neutral=np.nan)
        assert np.array_equal(np.isnan(dh), np.isnan(want)) and np.allclose(dh, want, atol=1e-9, equal_nan=True)
    _, _, dh = color.three_differences(np.array([[0.0, 50.0, -50.0]]), np.array([0.0, -5.0, 5.0]))
    assert dh[0] == pytest.approx(180.0)


def test_shading_and_chroma_quantile_kernels_are_the_numpy_steps(monkeypatch):
    from huebench.color import reflectance

    rng = np.random.default_rng(32)
    cases = list(_glossy_surfaces(rng))
    cases.append(np.full((100, 3), 255, np.uint8))  # every pixel clipped: no test
    compiled = [(reflectance.unclipped_shading(px), reflectance.chroma_quantile(px, 0.99)) for px in cases]
    from huebench import stats

    for px, (_, chroma) in zip(cases, compiled, strict=True):
        lab = color.srgb_to_lab(reflectance.fit_sample_of(px))  # the unfused steps, srgb_to_lab's kernel
        assert chroma == stats.quantile(np.hypot(lab[:, 1], lab[:, 2]), 0.99)
    monkeypatch.setattr(_kernels, "enabled", lambda n: False)
    for px, (shading, chroma) in zip(cases, compiled, strict=True):
        assert shading is reflectance.unclipped_shading(px)
        assert chroma == pytest.approx(reflectance.chroma_quantile(px, 0.99), abs=1e-9)  # Lab: kernel vs NumPy
    assert compiled[-1][0] is None and {True, False} <= {s for s, _ in compiled}


def test_rim_saturation_kernel_is_the_numpy_steps(monkeypatch):
    # the Fresnel rim test runs as one kernel: the same ratio, bit for bit, or the same None
    from huebench.color import reflectance

    rng = np.random.default_rng(33)
    cases = []
    for _ in range(40):
        h = w = int(rng.integers(12, 80))
        yy, xx = np.mgrid[:h, :w]
        r2 = ((yy - h / 2) ** 2 + (xx - w / 2) ** 2) / (h / 2.6) ** 2
        obj = r2 < 1
        albedo = rng.random(3) ** 2
        rim = rng.uniform(0, 0.3) * np.clip(r2, 0, 1)[..., None] ** 4  # reflected surroundings at grazing angles
        lin = np.where(obj[..., None], np.sqrt(np.clip(1 - r2, 0, 1))[..., None] * albedo + rim, 0.5)
        img = color.linear_to_srgb8(np.clip(lin * rng.uniform(0.7, 1.5) + rng.normal(0, 0.003, lin.shape), 0, 1))
        cases.append((img, obj, tuple(int(v) for v in rng.choice([(1, 3), (0, 2), (2, 6)]))))
    compiled = [reflectance.rim_saturation(img, m, band=band) for img, m, band in cases]
    monkeypatch.setattr(_kernels, "enabled", lambda n: False)
    assert compiled == [reflectance.rim_saturation(img, m, band=band) for img, m, band in cases]
    found = [r for r in compiled if r is not None]
    assert len(found) >= 20 and min(found) < 0.93 < max(found) and None in compiled


def test_darker_floor_kernel_is_the_numpy_steps(monkeypatch):
    # the darker pixels' floor (version 22's veil test, version 23's band test) runs as one kernel:
    # the same intercept and standard error, bit for bit, or the same None; an interior of more
    # than FIT_PIXELS pixels is read on the same even sample as NumPy's (np.linspace's indices)
    from huebench.color import reflectance

    rng = np.random.default_rng(34)
    cases = []
    for size in [*rng.integers(8, 90, 40), 200]:
        h = w = int(size)
        yy, xx = np.mgrid[:h, :w]
        r2 = ((yy - h / 2) ** 2 + (xx - w / 2) ** 2) / (h / 2.3) ** 2
        obj = r2 < 1
        shade = np.sqrt(np.clip(1 - r2, 0, 1))[..., None] * rng.uniform(0.3, 1.6)
        veil = rng.choice([0.0, rng.uniform(0.0, 0.05)])
        lin = np.where(obj[..., None], shade * rng.random(3) ** 2 + veil, 0.4)
        img = color.linear_to_srgb8(np.clip(lin + rng.normal(0, 0.003, lin.shape), 0, 1))
        cases.append((img, obj))
    calls = []
    kernel = _kernels.darker_floor
    monkeypatch.setattr(_kernels, "darker_floor", lambda *a: calls.append(kernel(*a)) or calls[-1])
    compiled = [reflectance.darker_floor(img, m) for img, m in cases]
    assert len(calls) == len(cases)
    big = reflectance.mask_depth(cases[-1][1]) > reflectance.GLOSS_INTERIOR
    assert big.sum() > reflectance.FIT_PIXELS and compiled[-1] is not None  # read on the sample
    monkeypatch.setattr(_kernels, "enabled", lambda n: False)
    assert compiled == [reflectance.darker_floor(img, m) for img, m in cases]
    # the kernel's sample is fit_sample's (np.linspace's indices) for interiors of any size above
    # the bound: n interior pixels in a row of noisy shades, the rest outside
    monkeypatch.undo()
    for n in (20001, 20002, 23456, 65536, 387000):
        depth = np.zeros((1, n + 5), np.int32)
        depth[0, 2 : n + 2] = 3
        shade = rng.uniform(0.05, 1.0, (1, n + 5, 1))
        img = color.linear_to_srgb8(np.clip(shade * np.array([0.6, 0.2, 0.05]) + 0.01, 0, 1))
        fast = reflectance.darker_floor(img, depth > 0, depth=depth)
        assert fast is not None and fast == reflectance._darker_floor_numpy(img, depth, reflectance.GLOSS_INTERIOR, 0.7)
    found = [f for f in compiled if f is not None]
    assert len(found) >= 25 and None in compiled and any(f[0] > 3 * f[1] for f in found)


def test_principal_axis_is_lapacks_decomposition():
    # the dominant colour's 2×2 PCA in closed form: LAPACK's eigenvalues and (up to sign) its
    # eigenvector, on spread, round, degenerate and axis-aligned point sets
    rng = np.random.default_rng(34)
    sets = [rng.normal(0, 1, (n, 2)) * rng.uniform(0.01, 50, 2) + rng.uniform(-40, 40, 2) for n in (2, 5, 100, 2000)]
    sets += [
        rng.normal(0, 1, (200, 2)) @ np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]]) for t in (0.3, 2.0)
    ]
    sets += [np.tile([3.0, 4.0], (10, 1)), np.column_stack([rng.normal(0, 5, 50), np.zeros(50)]), np.zeros((4, 2))]
    for ab in sets:
        big, small, v = _kernels.principal_axis(ab)
        evals, evecs = np.linalg.eigh(ab.T @ ab / len(ab))
        scale = max(abs(evals[1]), 1e-300)
        assert abs(big - evals[1]) <= 1e-12 * scale and abs(small - evals[0]) <= 1e-12 * scale
        assert np.linalg.norm(v) == pytest.approx(1.0)
        if evals[1] - evals[0] > 1e-9 * scale:  # a distinct direction: the same one, either sign
            assert min(np.abs(v - evecs[:, 1]).max(), np.abs(v + evecs[:, 1]).max()) < 1e-9


def test_kernels_answer_odd_arguments_as_the_numpy_steps(monkeypatch):
    # arguments the scorer never passes still get the reference's answer, not a kernel's crash:
    # an empty selection, a negative outlier cap, a lightness window that holds no pixel,
    # quantiles outside [0, 1], arrays of mismatched shapes
    from huebench.color import reflectance

    assert np.isnan(_kernels._median(np.empty(0))) and np.isnan(_kernels._quantile(np.empty(0), 0.5))
    rng = np.random.default_rng(35)
    lab = np.column_stack([rng.uniform(20, 90, 100), rng.normal(10, 5, (100, 2))])
    got = color.dominant_color(lab, max_outlier_fraction=-0.5)  # NumPy's slice keeps every row
    assert got.n_used == 100
    with pytest.warns(RuntimeWarning):  # the mean of no pixels, as the NumPy steps give it
        empty_window = color.dominant_color(lab, lightness_window=(0.95, 0.6))
    assert empty_window.n_used == 0 and np.isnan(empty_window.lab[0])
    px = rng.integers(0, 256, (300, 3), dtype=np.uint8)
    for call in (
        lambda: reflectance.chroma_quantile(px, 1.5),
        lambda: reflectance.main_color_pixels(px, keep=1.2),
        lambda: reflectance.albedo_saturation(next(iter(_glossy_surfaces(rng))), quantile=-0.1, min_saturation=0.0),
    ):
        with pytest.raises(ValueError):
            call()
    img = rng.integers(0, 256, (40, 40, 3), dtype=np.uint8)
    mask = np.zeros((40, 40), bool)
    mask[8:32, 8:32] = True
    with pytest.raises(IndexError):
        reflectance.rim_saturation(img, mask, depth=np.zeros((10, 10), np.int32))
    monkeypatch.setattr(_kernels, "enabled", lambda n: False)
    assert color.dominant_color(lab, max_outlier_fraction=-0.5).n_used == 100
