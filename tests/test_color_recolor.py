"""Perceptual recolouring (CIELCh at constant L* and C*, gamut-mapped by chroma) against HSV's."""

from __future__ import annotations

import colorsys
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from PIL import Image
from typer.testing import CliRunner

from huebench.cli import app
from huebench.color import lab_to_lch, lab_to_srgb, srgb_to_lab
from huebench.color.recolor import map_into_gamut, recolor, rotate_hue_hsv, rotate_hue_lch
from huebench.errors import HuebenchError

pixels8 = arrays(np.uint8, st.tuples(st.integers(1, 300), st.just(3)))
shifts = st.floats(-720.0, 720.0, allow_nan=False)


def _hue_error(before: np.ndarray, after: np.ndarray, shift: float) -> np.ndarray:
    return np.abs((after[:, 2] - before[:, 2] - shift + 180.0) % 360.0 - 180.0)


@settings(max_examples=200, deadline=None)
@given(pixels8, shifts)
def test_lch_turn_keeps_lightness_and_where_in_gamut_chroma_and_the_target_hue(rgb8, shift):
    lab = srgb_to_lab(rgb8)
    turned, mapped = rotate_hue_lch(lab, shift)
    before, after = lab_to_lch(lab), lab_to_lch(turned)
    assert np.allclose(after[:, 0], before[:, 0], atol=1e-9)
    chromatic = before[:, 1] > 1.0
    assert (_hue_error(before, after, shift)[chromatic] < 1e-6).all()
    assert np.allclose(after[~mapped, 1], before[~mapped, 1], atol=1e-9)
    assert (after[mapped, 1] < before[mapped, 1]).all()  # chroma only ever reduced
    srgb = lab_to_srgb(turned)
    assert ((srgb >= -1e-4) & (srgb <= 1 + 1e-4)).all()  # shown by sRGB (GAMUT_TOLERANCE)


def test_gamut_mapping_stops_at_the_gamut_boundary():
    lch = np.array([[50.0, 150.0, h] for h in range(0, 360, 15)])
    lab = np.stack([lch[:, 0], lch[:, 1] * np.cos(np.radians(lch[:, 2])), lch[:, 1] * np.sin(np.radians(lch[:, 2]))], 1)
    mapped, was = map_into_gamut(lab)
    assert was.all()  # C* 150 is outside sRGB at every hue
    further = mapped.copy()
    further[:, 1:] *= 1.001
    rgb_in, rgb_out = lab_to_srgb(mapped), lab_to_srgb(further)
    assert ((rgb_in >= -1e-4) & (rgb_in <= 1 + 1e-4)).all()
    assert (((rgb_out < -1e-4) | (rgb_out > 1 + 1e-4)).any(axis=1)).all()  # 0.1 % more chroma leaves the gamut


def test_eight_bit_recolouring_keeps_lightness_within_half_a_unit_and_hue_within_a_degree():
    rgb8 = np.random.default_rng(0).integers(0, 256, size=(200, 250, 3), dtype=np.uint8)
    for shift in (90.0, 180.0, 270.0):
        result = recolor(rgb8, shift)
        before = lab_to_lch(srgb_to_lab(rgb8.reshape(-1, 3)))
        after = lab_to_lch(srgb_to_lab(result.image.reshape(-1, 3)))
        _, mapped = rotate_hue_lch(srgb_to_lab(rgb8.reshape(-1, 3)), shift)
        assert np.abs(after[:, 0] - before[:, 0]).max() <= 0.5
        # 8-bit rounding moves a colour's hue by up to ~atan(0.7 / C*): a degree from C* 40 up
        vivid = ~mapped & (before[:, 1] >= 40)
        assert vivid.sum() > 1000 and _hue_error(before, after, shift)[vivid].max() <= 1.0
        assert result.delta_l_mean <= 0.5 and 0 < result.gamut_mapped < 1


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 50), st.just(3)), elements=st.floats(0, 1)), shifts)
def test_hsv_turn_is_colorsys(rgb, shift):
    ours = rotate_hue_hsv(rgb, shift)
    ref = []
    for p in rgb:
        h, s, v = colorsys.rgb_to_hsv(*p)
        ref.append(colorsys.hsv_to_rgb((h + shift / 360.0) % 1.0, s, v))
    assert np.allclose(ours, np.array(ref), atol=1e-9)


def test_hsv_changes_lightness_and_lch_does_not():
    blue = np.zeros((1, 1, 3), np.uint8)
    blue[..., 2] = 255
    hsv, lch = recolor(blue, 180, method="hsv"), recolor(blue, 180, method="lch")
    assert hsv.image[0, 0].tolist() == [255, 255, 0]  # pure yellow, L* 97 against blue's 32
    assert hsv.delta_l_mean > 60
    assert lch.delta_l_mean < 0.5 and lch.gamut_mapped == 1.0


def test_only_the_mask_is_recoloured_and_bad_input_is_refused():
    img = np.full((20, 30, 3), (200, 40, 40), np.uint8)
    mask = np.zeros((20, 30), bool)
    mask[5:10, 5:15] = True
    out = recolor(img, 120, mask=mask)
    assert out.pixels == 50
    assert (out.image[~mask] == img[~mask]).all() and (out.image[mask] != img[mask]).any(axis=-1).all()
    with pytest.raises(HuebenchError, match=r"method 'hvs' unknown: use lch or hsv.*hsv"):
        recolor(img, 90, method="hvs")
    with pytest.raises(HuebenchError, match="mask shape"):
        recolor(img, 90, mask=np.ones((3, 3), bool))
    with pytest.raises(HuebenchError, match="H×W×3 8-bit"):
        recolor(img.astype(np.float32), 90)


def test_recolor_command(tmp_path):
    img = np.full((16, 16, 3), (30, 90, 200), np.uint8)
    Image.fromarray(img).save(tmp_path / "in.png")
    Image.fromarray(np.pad(np.full((8, 8), 255, np.uint8), 4)).save(tmp_path / "mask.png")
    runner = CliRunner()
    args = ["recolor", str(tmp_path / "in.png"), "--hue-shift", "90", "--mask", str(tmp_path / "mask.png")]
    res = runner.invoke(app, [*args, "--out", str(tmp_path / "out.png"), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output)
    assert summary["pixels"] == 64 and summary["method"] == "lch" and summary["delta_e00_mean"] > 10
    written = np.asarray(Image.open(tmp_path / "out.png"))
    assert (written[0, 0] == img[0, 0]).all() and (written[8, 8] != img[8, 8]).any()
    again = runner.invoke(app, [*args, "--out", str(tmp_path / "out.png")])
    assert again.exit_code == 2 and "exists" in again.output
    typo = runner.invoke(app, [*args, "--space", "hvs", "--out", str(tmp_path / "o2.png")])
    assert typo.exit_code == 2 and "Did you mean 'hsv'" in typo.output
    lossy = runner.invoke(app, [*args, "--out", str(tmp_path / "o.jpg")])
    assert lossy.exit_code == 2 and ".png" in lossy.output
