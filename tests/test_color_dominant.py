import numpy as np
import pytest

from huebench import color

RNG = np.random.default_rng(3)


def _shaded_object(hue_deg: float, n: int = 4000) -> np.ndarray:
    """Lab pixels of a matte object of one hue under shading: L and C vary together, hue jitters ±2°."""
    shade = RNG.uniform(0.3, 1.0, n)
    L = 20 + 60 * shade
    C = 15 + 45 * shade
    h = np.radians(hue_deg + RNG.normal(0, 2, n))
    return np.column_stack([L, C * np.cos(h), C * np.sin(h)])


def _hue(lab):
    return np.degrees(np.arctan2(lab[2], lab[1])) % 360


@pytest.mark.parametrize("hue", [10.0, 95.0, 180.0, 275.0])
def test_dominant_hue_of_a_shaded_object(hue):
    px = _shaded_object(hue)
    dom = color.dominant_color(px)
    assert dom.method == "pca"
    assert abs((_hue(dom.lab) - hue + 180) % 360 - 180) < 1.0
    assert dom.lab[0] == pytest.approx(px[:, 0].mean(), abs=0.5)
    # the dominant chroma is the mean projected chroma, about the mean chroma
    assert np.hypot(*dom.lab[1:]) == pytest.approx(np.hypot(px[:, 1], px[:, 2]).mean(), rel=0.02)


def test_image_shaped_input_and_order_invariance():
    px = _shaded_object(40.0, 64 * 64)
    a = color.dominant_color(px.reshape(64, 64, 3))
    b = color.dominant_color(RNG.permutation(px))
    assert np.allclose(a.lab, b.lab)
    assert np.allclose(np.asarray(a), a.lab)


def test_outliers_do_not_drag_the_dominant_colour():
    obj = _shaded_object(140.0, 3000)
    clean = color.dominant_color(obj).lab
    highlights = np.column_stack([np.full(200, 98.0), RNG.normal(0, 1, 200), RNG.normal(0, 1, 200)])
    leak = np.tile([50.0, 70.0, -60.0], (100, 1))  # a few background pixels of another hue
    dirty = color.dominant_color(np.vstack([obj, highlights, leak]))
    assert dirty.n_outliers > 0
    assert color.delta_e(dirty.lab, clean) < 3.0
    # naive mean is pulled much further
    naive = np.vstack([obj, highlights, leak]).mean(axis=0)
    assert color.delta_e(naive, clean) > color.delta_e(dirty.lab, clean)


def test_outlier_cap_keeps_two_coloured_objects_whole():
    half = _shaded_object(30.0, 1000)
    other = _shaded_object(210.0, 1000)
    dom = color.dominant_color(np.vstack([half, other]))
    assert dom.n_used >= int(0.8 * 2000)


def test_near_achromatic_set_falls_back_to_the_mean():
    gray = np.column_stack([RNG.normal(55, 3, 2000), RNG.normal(0.8, 0.3, 2000), RNG.normal(-0.5, 0.3, 2000)])
    dom = color.dominant_color(gray)
    assert dom.method == "mean"
    assert np.allclose(dom.lab[1:], gray[:, 1:].mean(axis=0), atol=0.05)
    # PCA's projection would have shrunk the chroma toward an arbitrary axis; the mean does not
    assert np.hypot(*dom.lab[1:]) == pytest.approx(np.hypot(*gray[:, 1:].mean(axis=0)), rel=0.05)


@pytest.mark.parametrize("noise", [(2.0, 2.0), (0.9, 1.35), (3.0, 0.5)])
def test_flat_patch_with_noise_keeps_its_chroma(noise):
    # a uniform colour with (possibly anisotropic) pixel noise: the hue axis must follow the colour,
    # not the noise (centred PCA projected a flat red patch onto the b* axis)
    flat = np.column_stack([np.full(3000, 50.0), RNG.normal(40, noise[0], 3000), RNG.normal(20, noise[1], 3000)])
    dom = color.dominant_color(flat)
    assert dom.lab[1:] == pytest.approx([40, 20], abs=0.3)


def test_pure_gray_and_single_pixel():
    assert np.allclose(color.dominant_color(np.tile([40.0, 0.0, 0.0], (10, 1))).lab, [40, 0, 0])
    assert np.allclose(color.dominant_color([[30.0, 10.0, -5.0]]).lab, [30, 10, -5])


def test_bad_input():
    with pytest.raises(ValueError, match="no finite pixels"):
        color.dominant_color(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="no finite pixels"):
        color.dominant_color(np.full((4, 3), np.nan))
    with pytest.raises(ValueError, match="last axis of length 3"):
        color.dominant_color(np.zeros((4, 2)))
    dom = color.dominant_color(np.vstack([_shaded_object(100.0, 50), [[np.nan, 0, 0]]]))
    assert dom.n_pixels == 51 and dom.n_used <= 50
