"""The Planckian locus (huebench.color.temperature) and the light's plausibility that scorer
version 26 asks of a colour read as the light's (reflectance.light_colour)."""

from __future__ import annotations

import numpy as np
import pytest

from huebench.color import linear_rgb_to_xyz, linear_to_srgb8, xyz_to_linear_rgb
from huebench.color.reflectance import LIGHT_MAX_DUV, light_colour, plausible_light
from huebench.color.temperature import MAX_DUV, cct_duv, planckian_uv, xyz_to_uv
from huebench.errors import HuebenchError


def _xy_to_xyz(x, y):
    return np.array([x / y, 1.0, (1.0 - x - y) / y])


@pytest.mark.parametrize(
    ("xy", "cct", "duv"),
    [
        ((0.44757, 0.40745), 2856.0, 0.0),  # CIE illuminant A: a blackbody at 2,856 K (CIE 015)
        ((0.31271, 0.32902), 6504.0, 0.0032),  # D65: 6,504 K, a little above the locus
        ((0.34567, 0.35850), 5003.0, 0.0032),  # D50
    ],
)
def test_cct_duv_of_the_cie_illuminants(xy, cct, duv):
    t, d = cct_duv(_xy_to_xyz(*xy))
    assert t == pytest.approx(cct, abs=10.0)
    assert d == pytest.approx(duv, abs=3e-4)


def test_duv_is_positive_above_the_locus_and_negative_below():
    u, v = planckian_uv(4000.0)
    for dv, sign in ((0.02, 1.0), (-0.02, -1.0)):
        # back from (u, v) to XYZ: x = 3u / (2u − 8v + 4), y = 2v / (2u − 8v + 4)
        uu, vv = u, v + dv
        den = 2 * uu - 8 * vv + 4
        t, d = cct_duv(_xy_to_xyz(3 * uu / den, 2 * vv / den))
        # straight up in v is not square to the locus: the nearest distance is a little less
        assert np.sign(d) == sign and 0.012 < abs(d) <= 0.02
        assert 3500 < t < 5000  # the isotemperature lines lean: the nearest point moves along too


def test_the_locus_runs_from_red_to_blue_and_xyz_to_uv_refuses_black():
    uv = planckian_uv(np.array([1000.0, 2856.0, 6504.0, 15000.0]))
    assert np.all(np.diff(uv[:, 0]) < 0)  # u falls as the temperature rises
    assert uv[1] == pytest.approx(xyz_to_uv(_xy_to_xyz(0.44757, 0.40745)), abs=2e-4)
    with pytest.raises(HuebenchError, match="X \\+ 15Y \\+ 3Z > 0"):
        xyz_to_uv([0.0, 0.0, 0.0])


def test_plausible_lights_are_lights_and_painted_walls_are_not():
    assert LIGHT_MAX_DUV == MAX_DUV == 0.05
    assert plausible_light([1.0, 1.0, 1.0])  # white
    assert plausible_light([1.0, 0.6, 0.25])  # tungsten-like
    assert plausible_light([0.75, 0.9, 1.2])  # a cool sky
    # the study's painted surroundings (perf/scorer_study.py SURROUNDS), as linear RGB: no light
    for rgb8 in ((40, 70, 200), (200, 40, 50), (60, 160, 70), (130, 60, 170)):
        lin = (np.asarray(rgb8) / 255.0) ** 2.2
        assert not plausible_light(lin), rgb8
    assert not plausible_light([0.0, 0.0, 0.0]) and not plausible_light([1.0, -0.1, 0.5])
    assert not plausible_light([np.inf, 1.0, 1.0]) and not plausible_light([np.nan, 1.0, 1.0])
    # near the locus but beyond the temperatures of lights: refused by the range alone
    for t in (1200.0, 40_000.0):
        u, v = planckian_uv(t)
        den = 2 * u - 8 * v + 4
        xyz = _xy_to_xyz(3 * u / den, 2 * v / den)
        rgb = np.clip(xyz_to_linear_rgb(xyz), 0.0, None)
        assert abs(cct_duv(linear_rgb_to_xyz(rgb))[1]) < 0.02, t
        assert not plausible_light(rgb), t
        assert plausible_light(rgb, cct=(1000.0, 100_000.0)), t
    for bad in (0.0, float("nan"), None, "0.05"):
        with pytest.raises(HuebenchError, match="max_duv"):
            plausible_light([1.0, 1.0, 1.0], max_duv=bad)


def _glossy_ball_under(light, backdrop, albedo=(0.6, 0.08, 0.05), size=64):
    """A glossy ball lit by ``light`` (its body colour albedo × light, its highlight the light's
    colour) on a flat ``backdrop`` (linear RGB): the dichromatic plane holds the light, not grey."""
    yy, xx = np.mgrid[:size, :size]
    r = size * 0.35
    dx, dy = (xx - size / 2) / r, (yy - size / 2) / r
    mask = dx * dx + dy * dy < 1.0
    nz = np.sqrt(np.clip(1.0 - dx * dx - dy * dy, 0.0, 1.0))
    shade = np.clip(0.2 + 0.8 * (nz * 0.8 - dx * 0.3 - dy * 0.5), 0.05, 1.0)
    spec = 0.35 * np.exp(-((dx + 0.35) ** 2 + (dy + 0.45) ** 2) / 0.08)
    light = np.asarray(light, dtype=np.float64)
    body = shade[..., None] * (np.asarray(albedo) * light) + spec[..., None] * light
    img = np.where(mask[..., None], body, np.asarray(backdrop, dtype=np.float64))
    return linear_to_srgb8(np.clip(img, 0, 1)), mask


def test_light_colour_reads_a_light_but_not_a_wall_of_the_body_colour():
    tungsten = np.array([1.0, 0.62, 0.3])
    # the backdrop lit by the same light: its colour is the light's, read and kept
    img, mask = _glossy_ball_under(tungsten * 0.7, tungsten * 0.5)
    read = light_colour(img, mask)
    assert read is not None and plausible_light(read)
    assert read / read.max() == pytest.approx(tungsten / tungsten.max(), abs=0.03)
    # a backdrop of the body's own colour lies in the same plane, and no light is that red
    wall = np.array([0.6, 0.08, 0.05]) * tungsten * 0.9
    img, mask = _glossy_ball_under(tungsten * 0.7, wall)
    assert light_colour(img, mask, max_duv=None) is not None  # before version 26: read as the light
    assert light_colour(img, mask) is None
