"""GenColorBench scorer, offline segmentation, renders and the known-colour diagnostic."""

import json

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from huebench.benchmarks.gencolor.scoring import OFFLINE_SEGMENTATION, ColorScorer, segment_offline
from huebench.cli import app
from huebench.color import load_system, parse
from huebench.errors import HuebenchError


def _scene(rgb, size=64, bg=(128, 128, 128), seed=0):
    rng = np.random.default_rng(seed)
    img = np.empty((size, size, 3))
    img[:] = bg
    yy, xx = np.mgrid[:size, :size]
    mask = (yy - size / 2) ** 2 + (xx - size / 2) ** 2 < (size / 4) ** 2
    img[mask] = rgb
    img += rng.normal(0, 2, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8), mask


def test_candidate_sets_and_thresholds():
    s = ColorScorer("iscc-nbs-l2", k=3)
    cands = s.candidates("Red")
    assert cands[0].name == "Red" and len(cands) == 4
    l2 = load_system("iscc-nbs-l2")
    assert [c.name for c in cands[1:]] == [n.color.name for n in l2.neighbours("Red", 3)]
    img, mask = _scene(l2.get("Red").rgb)
    score, _ = s.score_image(img, "Red", mask=mask)
    assert (
        score.passed
        and score.delta_e00 < 2
        and score.passes == {"delta_e00": True, "delta_chroma": True, "delta_hue": True}
    )
    far, _ = s.score_image(img, "Blue", mask=mask)
    assert not far.passed and far.delta_hue > 45 and "delta_e00" in far.reason  # min over Blue and its neighbours


def test_neighbouring_shade_passes_through_the_candidate_set():
    s = ColorScorer("iscc-nbs-l2", k=3)
    l2 = load_system("iscc-nbs-l2")
    neighbour = l2.neighbours("Red", 1)[0].color
    img, mask = _scene(neighbour.rgb)
    score, _ = s.score_image(img, "Red", mask=mask)
    assert score.passed and score.best["delta_e00"] == neighbour.name
    strict, _ = ColorScorer("iscc-nbs-l2", k=0).score_image(img, "Red", mask=mask)
    assert not strict.passed  # without neighbours the same shade is wrong


def test_hue_gating_for_achromatic_targets():
    s = ColorScorer("css3")
    img, mask = _scene(parse("css3:gray").rgb)
    score, _ = s.score_image(img, "Gray", mask=mask)
    assert score.passed and score.hue_gated and score.delta_hue == 0.0


def test_too_few_pixels_is_a_clear_fail():
    s = ColorScorer("css3")
    img, _ = _scene((255, 0, 0))
    score, _ = s.score_image(img, "Red", mask=np.zeros(img.shape[:2], bool))
    assert not score.passed and "object pixels" in score.reason


def test_offline_segmentation_finds_a_plain_object():
    img, mask = _scene((40, 90, 200), bg=(230, 230, 225))
    seg = segment_offline(img)
    iou = (seg & mask).sum() / (seg | mask).sum()
    assert iou > 0.9
    blank = np.full((32, 32, 3), 200, np.uint8)
    assert segment_offline(blank).sum() == 0


def _shaded_sphere(cy: float, r: float):
    """A 48 px sphere of radius ``r`` centred at (23.5, ``cy``), lit from the upper left: its pixels,
    their y on the sphere (−1 top, 1 bottom) and their Lambert shading in [0, 1]."""
    yy, xx = np.mgrid[0:48, 0:48]
    x, y = (xx - 23.5) / r, (yy - cy) / r
    inside = x**2 + y**2 < 1
    z = np.sqrt(np.clip(1 - x**2 - y**2, 0, 1))
    return inside, y, np.clip((-x - y + 1.4 * z) / np.sqrt(2 + 1.4**2), 0, 1)


def _noisy8(lin, seed=0):
    """Linear RGB to 8-bit sRGB with σ 1.5 codes of sensor noise."""
    from huebench.color import linear_to_srgb8

    img = linear_to_srgb8(lin)
    return np.clip(img + np.random.default_rng(seed).normal(0, 1.5, img.shape), 0, 255).astype(np.uint8)


def test_offline_segmentation_keeps_a_grey_body_whose_shading_passes_the_backdrops_lightness():
    # a grey Lambert sphere lit from the upper left on a mid-grey backdrop: a band of its shading
    # has the backdrop's lightness, which the threshold alone cut out of the mask (version 2 grows
    # the object into it)
    inside, _, shade = _shaded_sphere(23.5, 15.0)
    lin = np.where(inside, 0.5 * (0.08 + 0.92 * shade), 0.18)
    img = _noisy8(np.repeat(lin[..., None], 3, axis=2))

    def iou(seg):
        return (seg & inside).sum() / (seg | inside).sum()

    assert iou(segment_offline(img, grow=None)) < 0.6  # the threshold alone: the lit half and the shade
    assert iou(segment_offline(img)) > 0.95
    assert OFFLINE_SEGMENTATION == {"version": 3, "threshold": 12.0, "grow": 3.0, "grow_noise": 1.5, "shadow": 0.5}
    # a noisy backdrop raises the growth's level above its noise: the mask does not spill into it
    noisy = np.clip(img + np.random.default_rng(1).normal(0, 6, img.shape), 0, 255).astype(np.uint8)
    assert (segment_offline(noisy) & ~inside).sum() < 0.05 * inside.sum()
    with pytest.raises(HuebenchError, match="grow > 0"):
        segment_offline(img, grow=0.0)


@pytest.mark.parametrize(("albedo", "shadow_left_out"), [((0.6, 0.08, 0.06), True), ((0.3, 0.3, 0.3), False)])
def test_offline_segmentation_leaves_out_the_shadow_a_coloured_body_casts(albedo, shadow_left_out):
    # a sphere over a grey floor on which it casts a soft shadow, down and to its right: the shadow
    # is darker than the floor and of its chromaticity. A red body's is left out (version 3); a
    # grey body has the floor's chromaticity too, so nothing tells its shade from its shadow and
    # its mask stays as version 2 made it
    inside, _, shade = _shaded_sphere(20.5, 13.0)
    yy, xx = np.mgrid[0:48, 0:48]
    cast = np.clip(1.3 - np.hypot((xx - 31.0) / 12.0, (yy - 36.0) / 5.0), 0, 1) ** 0.7
    floor = 0.35 * (1 - 0.6 * cast)
    body = np.asarray(albedo) * (0.08 + 0.92 * shade[..., None])
    img = _noisy8(np.where(inside[..., None], body, floor[..., None] * np.ones(3)))
    with_shadow, without = segment_offline(img, shadow=None), segment_offline(img)
    assert (with_shadow & ~inside).sum() > 150  # version 2: the shadow joins the body
    if shadow_left_out:
        assert (without & ~inside).sum() < 10 and (without & inside).sum() / inside.sum() > 0.99
    else:
        assert (without == with_shadow).all()
    with pytest.raises(HuebenchError, match="shadow in"):
        segment_offline(img, shadow=1.0)
    # the same image as floats in [0, 1] is segmented alike (decoded as srgb_to_lab decodes it)
    assert (segment_offline(img / 255.0) == without).all()


def test_offline_segmentation_edge_cases():
    # a threshold below the growth's level: the level is capped at the threshold, not refused
    img = np.full((32, 32, 3), 128, np.uint8)
    img[8:24, 8:24] = (150, 128, 128)
    assert segment_offline(img, threshold=2.0)[10:22, 10:22].all()
    assert segment_offline(np.zeros((0, 5, 3), np.uint8)).shape == (0, 5)  # no pixels, no object


def test_the_largest_component_is_filled_as_binary_fill_holes_fills_it():
    # one labelling of the rest finds the holes that scipy's repeated dilations find: rings, holes
    # that touch the border (not holes), diagonal leaks (4-connected, so a hole)
    from scipy import ndimage

    from huebench.benchmarks.gencolor.scoring import _largest_filled

    rng = np.random.default_rng(3)
    for _ in range(200):
        fg = ndimage.binary_opening(rng.random((int(rng.integers(3, 40)), int(rng.integers(3, 40)))) < 0.6)
        labels, n = ndimage.label(fg)
        got = _largest_filled(fg)
        if n == 0:
            assert got is None
            continue
        sizes = np.bincount(labels.ravel())[1:]
        want = ndimage.binary_fill_holes(labels == int(np.argmax(sizes)) + 1)
        assert (got == want).all()
    ring = np.zeros((9, 9), bool)
    ring[2:7, 2:7] = True
    ring[3:6, 3:6] = False
    ring[4, 4] = True  # an island in the hole: filled with it
    assert _largest_filled(ring)[2:7, 2:7].all() and _largest_filled(ring).sum() == 25


def test_the_shadow_step_keeps_a_rim_that_mirrors_the_floor():
    # a red sphere whose lower rim, two pixels wide, mirrors the grey floor (darker than it, of its
    # chromaticity): a band, not a cast shadow, so it stays in the mask (the rim test reads it)
    from scipy import ndimage

    inside, y, shade = _shaded_sphere(20.5, 13.0)
    body = np.asarray((0.6, 0.08, 0.06)) * (0.08 + 0.92 * shade[..., None])
    rim = inside & ~ndimage.binary_erosion(inside, iterations=2) & (y > 0.3)
    body[rim] = 0.2  # grey, darker than the floor's 0.35
    img = _noisy8(np.where(inside[..., None], body, 0.35))
    assert rim.sum() > 30 and (segment_offline(img) == segment_offline(img, shadow=None)).all()
    assert segment_offline(img)[rim].mean() > 0.9


def test_score_image_cli_json(tmp_path):
    img, mask = _scene((255, 99, 71))
    Image.fromarray(img).save(tmp_path / "img.png")
    Image.fromarray((mask * 255).astype(np.uint8)).save(tmp_path / "mask.png")
    r = CliRunner().invoke(
        app,
        [
            "gencolor",
            "score-image",
            str(tmp_path / "img.png"),
            "--target",
            "Tomato",
            "--system",
            "css3",
            "--mask",
            str(tmp_path / "mask.png"),
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert (
        out["pass"] is True and len(out["dominant_lab"]) == 3 and {"delta_e00", "delta_chroma", "delta_hue"} <= set(out)
    )
    assert out["mask_source"] == "file" and out["mask_pixels"] == int(mask.sum())
    r = CliRunner().invoke(app, ["gencolor", "score-image", str(tmp_path / "img.png"), "--target", "Navy", "--json"])
    assert json.loads(r.output)["pass"] is False and json.loads(r.output)["mask_source"] == "offline segmentation"


def test_score_image_cli_says_how_much_the_mask_took_saves_it_and_refuses_other_systems_names(tmp_path):
    img, mask = _scene((255, 99, 71))
    Image.fromarray(img).save(tmp_path / "img.png")
    base = ["gencolor", "score-image", str(tmp_path / "img.png")]
    r = CliRunner().invoke(app, [*base, "--target", "Tomato", "--save-mask", str(tmp_path / "m.png")])
    assert r.exit_code == 0, r.output
    saved = np.asarray(Image.open(tmp_path / "m.png")) > 0
    text = " ".join(r.output.split())
    assert f"mask: offline segmentation, {int(saved.sum()):,} pixels ({100 * saved.mean():.0f} % of the image)" in text
    assert (saved & mask).sum() / (saved | mask).sum() > 0.9  # the mask the score used, as a PNG
    r = CliRunner().invoke(app, [*base, "--target", "Tomato", "--save-mask", str(tmp_path / "m.png")])
    assert r.exit_code == 2 and "exists" in r.output  # never overwritten
    # ISCC-NBS L3 has no "Red": the name is not read as CSS red, and the error names L3's reds
    r = CliRunner().invoke(app, [*base, "--target", "Red", "--system", "iscc-nbs-l3"])
    message = str(r.exception)  # `huebench` prints it as one line and exits 2 (huebench/cli/_errors.py)
    assert type(r.exception).__name__ == "UnknownNameError" and "'Red' is not a colour of the iscc-nbs-l3" in message
    assert "Deep red" in message
    r = CliRunner().invoke(app, [*base, "--target", "#FF6347", "--system", "iscc-nbs-l3", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["candidates"][0] == "#FF6347"  # a value is fine anywhere


def test_render_gives_image_and_exact_mask():
    pytest.importorskip("mitsuba")
    from huebench.benchmarks.gencolor.render import OBJECTS, RenderSpec, render

    assert len(OBJECTS) >= 14
    img, mask = render(RenderSpec("sphere", (220, 40, 40), "soft", "white", size=32, spp=8))
    assert img.shape == (32, 32, 3) and img.dtype == np.uint8 and mask.shape == (32, 32)
    assert 0.15 < mask.mean() < 0.6
    inside, outside = img[mask].astype(int), img[~mask].astype(int)
    assert (inside[:, 0] - inside[:, 2]).mean() > 80  # the object is red
    assert np.abs(outside[:, 0] - outside[:, 2]).mean() < 10  # the backdrop is neutral


def test_diagnostic_run(tmp_path):
    pytest.importorskip("mitsuba")
    from huebench.runs.runner import evaluate

    res = evaluate(
        "gencolor-diagnostic", "none", out=tmp_path / "d", no_cache=True, progress=False, quick=True, limit=30
    )
    m = res.metrics
    assert res.results["n"] == 30 and m["paper_accuracy"] == 96.46
    assert m["accuracy_exact_mask"]["value"] >= 30.0  # the scorer recognises most renders' true colours
    assert m["false_accept_far_color"]["value"] <= 5.0  # and almost never accepts a far colour
    assert 0.6 < m["offline_mask_iou_mean"] <= 1.0
    # the first 30 samples are two colours × 15 objects: 20 diffuse, 10 glossy renders
    by = m["by_material"]
    assert set(by) == {"diffuse", "glossy"}
    assert (by["diffuse"]["exact_mask"]["n"], by["glossy"]["exact_mask"]["n"]) == (20, 10)
    weighted = (20 * by["diffuse"]["exact_mask"]["value"] + 10 * by["glossy"]["exact_mask"]["value"]) / 30
    assert weighted == pytest.approx(m["accuracy_exact_mask"]["value"])
    rec = res.records[0]
    assert {"exact", "offline", "far_color", "far_accepted", "offline_mask_iou"} <= set(rec) and "dominant_lab" in rec[
        "exact"
    ]
    html = (tmp_path / "d" / "report.html").read_text()
    assert "Known-colour diagnostic" in html and "exact masks, glossy objects" in html


def test_objects_and_templates_transcription():
    import collections
    import re

    from huebench.benchmarks.gencolor.data import CATEGORIES, load_objects, load_templates

    objs = load_objects()
    assert len(objs) == 108 and len({o.name for o in objs}) == 107  # "sink" twice, two categories
    assert set(CATEGORIES) == {o.category for o in objs}
    counts = collections.Counter(o.category for o in objs)
    assert counts == {
        "animals": 18,
        "tools and miscellaneous": 18,
        "vehicles": 17,
        "sports and toys": 17,
        "furniture and household": 14,
        "clothing and accessories": 14,
        "fruits and vegetables": 10,
    }
    assert collections.Counter(o.source for o in objs) == {"COCO": 51, "ImageNet": 57}
    car = next(o for o in objs if o.name == "car")
    assert car.negative_labels[:3] == ("window", "windshield", "wheel") and len(car.negative_labels) == 20
    t = load_templates()
    assert {k: len(v) for k, v in t.items()} == {
        "object-focused": 12,
        "numeric-hex": 10,
        "numeric-rgb": 5,
        "contextual": 63,
        "scene": 30,
        "implicit": 100,
    }
    assert all("{color}" in x and "{object}" in x for x in t["object-focused"])
    assert all("{hex}" in x for x in t["numeric-hex"]) and all("{r}" in x and "{b}" in x for x in t["numeric-rgb"])
    assert all(x.count("{color}") == 1 for x in t["contextual"] + t["implicit"])
    assert all(
        set(re.findall(r"\{color\d\}", x)) in ({"{color1}", "{color2}"}, {"{color1}", "{color2}", "{color3}"})
        for x in t["scene"]
    )


def test_objects_cross_check_with_upstream(shared_data):
    import csv

    from huebench.benchmarks.gencolor.data import load_objects

    with open(shared_data / "gencolorbench-upstream" / "objects" / "objects.csv", newline="") as fh:
        upstream = {r["Class_Name"].strip().lower() for r in csv.DictReader(fh)}
    ours = {o.name.lower() for o in load_objects()}
    # upstream's list (100) is an earlier selection: documented in docs/gencolor.md
    assert sorted(ours - upstream) == [
        "ambulance",
        "beach wagon",
        "doll",
        "ferry",
        "giraffe",
        "goldfish",
        "hair drier",
        "lobster",
        "shark",
        "shorts",
        "teddy bear",
        "tiger",
        "tow truck",
        "toy poodle",
        "toy terrier",
        "train",
        "zebra",
    ]
    assert sorted(upstream - ours) == [
        "curtain",
        "lipstick",
        "pillow",
        "socks",
        "teddybear",
        "thermos",
        "tissue box",
        "towel",
        "trash can",
        "wallet",
    ]


def test_vlm_judge_parsing():
    from huebench.benchmarks.gencolor.vlm_judge import judge, parse_hex, parse_name, parse_yes_no, questions_for

    assert parse_name("The color is light sea green.", "css3") == "LightSeaGreen"
    assert parse_name("It looks Dark slate grey", "css3") in ("DarkSlateGray", "DarkSlateGrey")
    assert parse_name("red or blue", "css3") is None  # two colours: no answer
    assert parse_name("no idea", "css3") is None
    assert parse_hex("hex: ff8800") == "#FF8800" and parse_hex("#12ab") is None
    assert parse_yes_no("Yes, it is.") is True and parse_yes_no("No.") is False and parse_yes_no("maybe yes") is None
    css = load_system("css3")
    qs = questions_for("css3", "sphere", css.get("Tomato"), css.get("Navy"))
    assert [q["q"] for q in qs] == [
        "name",
        "mcq",
        "hex",
        "verify-name",
        "verify-name",
        "verify-rgb",
        "verify-rgb",
        "verify-hex",
        "verify-hex",
    ]
    assert [q["expected"] for q in qs if q["q"] == "verify-rgb"] == [True, False]
    assert judge(qs[0], "It is tomato.", "css3") and not judge(qs[0], "Coral", "css3")
    assert judge(qs[2], "#FF6347", "css3") and judge(qs[4], "No", "css3")
    assert (
        len(
            questions_for(
                "iscc-nbs-l2", "cube", load_system("iscc-nbs-l2").get("Red"), load_system("iscc-nbs-l2").get("Blue")
            )
        )
        == 6
    )


def test_diagnostic_with_a_vlm_judge(tmp_path):
    pytest.importorskip("mitsuba")
    from huebench.runs.runner import evaluate

    res = evaluate(
        "gencolor-diagnostic",
        "reference:random",
        out=tmp_path / "d",
        no_cache=True,
        progress=False,
        quick=True,
        limit=6,
        system="css3",
    )
    v = res.metrics["vlm"]
    assert res.results["capability"] == "vlm" and set(v["per_question"]) == {
        "name",
        "mcq",
        "hex",
        "verify-name",
        "verify-rgb",
        "verify-hex",
    }
    answers = [a for r in res.records for a in r["vlm"]]
    assert len(answers) == 6 * 9 and v["overall"] == pytest.approx(
        100 * sum(a["correct"] for a in answers) / len(answers)
    )
    assert "Table 10 shape" in (tmp_path / "d" / "report.html").read_text()


def test_remove_specular_recovers_the_albedo_under_a_white_floor():
    """A shaded surface of one albedo plus a constant white reflection (dichromatic model): the
    floor is fitted and removed; achromatic and purely diffuse surfaces are left alone."""
    from huebench.color import delta_e, linear_to_srgb, srgb_to_lab, srgb_to_linear
    from huebench.color.reflectance import remove_specular

    rng = np.random.default_rng(0)
    albedo = srgb_to_linear(np.array([185, 40, 66]) / 255.0)  # ISCC-NBS L2 "Red"
    shading = rng.uniform(0.3, 1.0, 400)[:, None]
    diffuse = albedo * shading
    glossy = np.clip(diffuse + 0.08, 0, 1)
    to8 = lambda lin: np.round(linear_to_srgb(lin) * 255).astype(np.uint8)  # noqa: E731
    # a floor of 0.08 is above MAX_FLOOR (no dielectric reflects that much of an 8-bit white), so
    # the default refuses it; with the cap lifted the fit takes it off exactly
    assert np.array_equal(remove_specular(to8(glossy)), to8(glossy))
    fixed = srgb_to_linear(remove_specular(to8(glossy), max_floor=None) / 255.0)
    assert np.abs(fixed - diffuse).max() < 0.01  # back to albedo × shading
    assert np.array_equal(remove_specular(to8(diffuse)), to8(diffuse)) or (
        np.abs(srgb_to_linear(remove_specular(to8(diffuse)) / 255.0) - diffuse).max() < 0.005
    )
    grey = to8(np.repeat(shading, 3, axis=1) * 0.4 + 0.05)
    assert np.array_equal(remove_specular(grey), grey)
    lit = shading[:, 0] > 0.9
    before = delta_e(srgb_to_lab(to8(glossy[lit])).mean(0), srgb_to_lab(to8(albedo[None]))[0])
    after = delta_e(
        srgb_to_lab(remove_specular(to8(glossy), max_floor=None)[lit]).mean(0), srgb_to_lab(to8(albedo[None]))[0]
    )
    assert after < 3 < before


def test_noisy_flat_patches_are_judged_by_all_their_pixels():
    """A flat patch with heavy pixel noise has no lit side: the lightness window and the specular
    steps stand down (no shading beyond noise), so every L2 colour still passes."""
    rng = np.random.default_rng(0)
    s = ColorScorer("iscc-nbs-l2")
    for c in load_system("iscc-nbs-l2"):
        px = np.clip(np.array(c.rgb) + rng.normal(0, 6, (2000, 3)), 0, 255).astype(np.uint8)
        r = s.score_pixels(px, c.name)
        assert r.passed and r.delta_chroma < 1.0, (c.name, r.reason)


def test_diffuse_reconstruction_removes_per_pixel_specular():
    """Shaded albedo plus a white reflection that varies over the surface: every pixel goes back
    onto the albedo's diffuse line, so the lit pixels carry the albedo's chroma again."""
    from huebench.color import linear_to_srgb, srgb_to_lab, srgb_to_linear
    from huebench.color.reflectance import diffuse_reconstruction

    rng = np.random.default_rng(1)
    albedo = srgb_to_linear(np.array([60, 120, 200]) / 255.0)
    shading = rng.uniform(0.2, 1.0, 600)[:, None]
    specular = np.where(rng.random(600) < 0.6, rng.uniform(0.0, 0.15, 600), 0.0)[:, None]
    to8 = lambda lin: np.round(linear_to_srgb(np.clip(lin, 0, 1)) * 255).astype(np.uint8)  # noqa: E731
    glossy = to8(albedo * shading + specular)
    fixed = srgb_to_lab(diffuse_reconstruction(glossy, quantile=0.9))
    true = srgb_to_lab(to8(albedo * shading))
    lit = shading[:, 0] > 0.8
    chroma = lambda lab: np.hypot(lab[:, 1], lab[:, 2]).mean()  # noqa: E731
    assert abs(chroma(fixed[lit]) - chroma(true[lit])) < 2.0 < chroma(true[lit]) - chroma(srgb_to_lab(glossy)[lit])
    flat = to8(np.repeat(albedo[None], 300, axis=0) + rng.normal(0, 0.01, (300, 3)))
    assert np.array_equal(diffuse_reconstruction(flat), flat)  # noise only: left alone


def test_albedo_saturation_estimate_and_a_given_saturation():
    """The estimate is the upper quantile of the pixels' saturations; a given saturation (a known
    material) replaces it, and every pixel then lies exactly on that diffuse line."""
    from huebench.color import linear_to_srgb, srgb_to_linear
    from huebench.color.reflectance import albedo_saturation, diffuse_reconstruction
    from huebench.errors import HuebenchError

    rng = np.random.default_rng(2)
    albedo = srgb_to_linear(np.array([200, 60, 40]) / 255.0)
    true_sat = np.linalg.norm(albedo - albedo.mean()) / albedo.mean()
    shading = rng.uniform(0.2, 1.0, 800)[:, None]
    to8 = lambda lin: np.round(linear_to_srgb(np.clip(lin, 0, 1)) * 255).astype(np.uint8)  # noqa: E731
    diffuse = to8(albedo * shading)
    assert albedo_saturation(diffuse, quantile=0.9) == pytest.approx(true_sat, rel=0.02)
    veiled = to8(albedo * shading + rng.uniform(0.02, 0.1, (800, 1)))  # a white veil lowers it
    assert albedo_saturation(veiled, quantile=0.9) < 0.95 * true_sat
    assert albedo_saturation(to8(np.repeat(shading, 3, axis=1) * 0.5)) is None  # achromatic
    fixed = srgb_to_linear(diffuse_reconstruction(veiled, saturation=true_sat) / 255.0)
    ok = (fixed > 0.01).all(axis=1)  # pixels away from 8-bit quantisation at black
    sat = np.linalg.norm(fixed - fixed.mean(axis=1)[:, None], axis=1) / fixed.mean(axis=1)
    assert np.abs(sat[ok] / true_sat - 1).max() < 0.05
    lit = (shading[:, 0] > 0.8) & ok
    assert np.abs(fixed[lit] - srgb_to_linear(diffuse[lit] / 255.0)).max() < 0.02  # the veil is gone
    with pytest.raises(HuebenchError, match="saturation must be positive"):
        diffuse_reconstruction(veiled, saturation=0.0)


def test_pale_diffuse_surfaces_get_no_invented_specular_floor():
    """Pale colours have a small chroma magnitude, mostly pixel noise: a floor fitted on it is
    invented (tens of sRGB levels darker). The fit is kept to clearly chromatic surfaces."""
    from huebench.color import linear_to_srgb, srgb_to_linear
    from huebench.color.reflectance import remove_specular

    rng = np.random.default_rng(3)
    for name, rgb in [("Lavender", (230, 230, 250)), ("Cornsilk", (255, 248, 220)), ("MistyRose", (255, 228, 225))]:
        shading = rng.uniform(0.5, 1.0, (1500, 1))
        lin = srgb_to_linear(np.array(rgb) / 255.0) * shading
        px = np.clip(np.round(linear_to_srgb(lin) * 255) + rng.normal(0, 3, (1500, 3)), 0, 255).astype(np.uint8)
        assert np.array_equal(remove_specular(px), px), name
        assert ColorScorer("css3").score_pixels(px, name).passed, name
        # what the gate prevents: with it lowered to 0.15 (and the floor cap lifted) the fit darkens
        # the surface and fails it
        assert (px.astype(int) - remove_specular(px, min_saturation=0.15, max_floor=None)).mean() > 20, name
        loose = ColorScorer("css3", floor_min_saturation=0.15, max_floor=None)
        assert not loose.score_pixels(px, name).passed, name


def _lit_sphere(rgb, *, glossy, background=0.6, size=96, f0=0.04, seed=0):
    """A sphere of one sRGB albedo in front of a uniform backdrop of linear radiance ``background``,
    lit softly from above. Glossy: it also reflects the backdrop with Schlick's Fresnel term — 4 %
    head on, more towards the rim."""
    from huebench.color import linear_to_srgb, srgb_to_linear

    rng = np.random.default_rng(seed)
    yy, xx = (np.mgrid[:size, :size] + 0.5) / size * 2 - 1
    r2 = xx**2 + yy**2
    mask = r2 < 0.6**2
    nz = np.sqrt(np.clip(0.6**2 - r2, 0, None)) / 0.6
    shading = 0.55 + 0.45 * (1 - yy / 0.6) / 2
    lin = np.full((size, size, 3), background)
    body = srgb_to_linear(np.asarray(rgb) / 255.0) * shading[..., None]
    if glossy:
        body = body + ((f0 + (1 - f0) * (1 - np.clip(nz, 0, 1)) ** 5) * background)[..., None]
    lin[mask] = body[mask]
    img = linear_to_srgb(np.clip(lin, 0, 1)) * 255 + rng.normal(0, 1.0, lin.shape)
    return np.clip(np.round(img), 0, 255).astype(np.uint8), mask


def test_glossy_surfaces_lose_a_fresnel_veil_of_their_surroundings():
    """A matte sphere has one saturation over its lit half and gets no veil; a glossy one reflects
    4 % of its surroundings even head on, and that veil — F0 × the backdrop's radiance — is
    removed. Without it (fresnel=None) the glossy red reads paler."""
    from huebench.color.reflectance import looks_glossy, specular_veil, surround_radiance

    red = load_system("iscc-nbs-l2").get("Red")
    matte, mask = _lit_sphere(red.rgb, glossy=False)
    glossy, _ = _lit_sphere(red.rgb, glossy=True)
    assert surround_radiance(glossy, mask) == pytest.approx(0.6, abs=0.005)
    assert not looks_glossy(matte[mask]) and looks_glossy(glossy[mask])
    assert specular_veil(matte, mask) is None
    assert specular_veil(glossy, mask) == pytest.approx(0.04 * 0.6, rel=0.01)
    assert specular_veil(glossy, mask, fresnel=0.05) == pytest.approx(0.05 * 0.6, rel=0.01)
    s = ColorScorer("iscc-nbs-l2")
    m, g = s.score_image(matte, "Red", mask=mask)[0], s.score_image(glossy, "Red", mask=mask)[0]
    assert m.passed and m.veil is None and "veil" not in m.reason
    assert g.passed and g.veil == pytest.approx(0.04 * 0.6, rel=0.01) and g.reason.startswith("glossy surface")
    assert g.as_dict()["veil"] == g.veil
    without = ColorScorer("iscc-nbs-l2", fresnel=None).score_image(glossy, "Red", mask=mask)[0]
    physical = ColorScorer("iscc-nbs-l2", fresnel=0.04).score_image(glossy, "Red", mask=mask)[0]
    assert without.veil is None and not without.passed
    assert without.delta_chroma > 2 * physical.delta_chroma and g.delta_chroma < without.delta_chroma
    assert s.config()["fresnel"] == 0.04 and ColorScorer("css3", fresnel=None).config()["fresnel"] is None


def test_the_gloss_test_stands_down_where_it_cannot_tell():
    """Noise spreads a flat patch's saturations but it has no shading; clipped channels lower
    saturation but are not reflections; achromatic surfaces have no chroma to tell reflected white
    from the body; a mask that fills the image leaves no surroundings to measure. None of them
    gets a veil."""
    from huebench.color import linear_to_srgb, srgb_to_linear
    from huebench.color.reflectance import looks_glossy, remove_veil, specular_veil, surround_radiance
    from huebench.errors import HuebenchError

    rng = np.random.default_rng(4)
    for c in load_system("iscc-nbs-l2"):
        flat = np.clip(np.array(c.rgb) + rng.normal(0, 4, (2000, 3)), 0, 255).astype(np.uint8)
        assert not looks_glossy(flat), c.name
    # a matte coral exposed so that its lit side clips red: clipping lowers saturation as reflected
    # white would (q10/q90 0.91 over all lit pixels), but clipped pixels are left out of the test
    coral = srgb_to_linear(np.array([255, 127, 80]) / 255.0) * rng.uniform(0.3, 1.3, (3000, 1))
    coral8 = np.round(linear_to_srgb(np.clip(coral, 0, 1)) * 255).astype(np.uint8)
    assert (coral8 >= 254).any(axis=1).mean() > 0.25 and not looks_glossy(coral8)
    grey, mask = _lit_sphere((128, 128, 128), glossy=True)
    assert not looks_glossy(grey[mask]) and specular_veil(grey, mask) is None
    red, _ = _lit_sphere((185, 40, 66), glossy=True)
    full = np.ones(mask.shape, dtype=bool)
    assert surround_radiance(red, full) is None and specular_veil(red, full) is None
    # remove_veil subtracts in linear light
    lin = np.array([[0.2, 0.1, 0.05], [0.5, 0.3, 0.2]])
    px = np.round(linear_to_srgb(lin + 0.03) * 255).astype(np.uint8)
    assert np.abs(srgb_to_linear(remove_veil(px, 0.03) / 255.0) - lin).max() < 0.004
    with pytest.raises(HuebenchError, match="veil must be a non-negative"):
        remove_veil(px, -0.1)
    with pytest.raises(HuebenchError, match="fresnel must be a reflectance"):
        ColorScorer("css3", fresnel=1.5)


def test_a_glossy_render_on_a_white_backdrop_is_judged_by_its_body_colour():
    """A real render (Mitsuba rough plastic, n = 1.49) in soft light on a white backdrop: no shading
    range for a fitted floor, and the veil of the bright surroundings makes orange read pale
    (Δchroma ≈ 9). With the Fresnel veil removed it is orange again."""
    pytest.importorskip("mitsuba")
    from huebench.benchmarks.gencolor.render import RenderSpec, render

    orange = load_system("iscc-nbs-l2").get("Orange")
    img, mask = render(RenderSpec("bottle", orange.rgb, "soft", "white", size=48, spp=16))
    # in soft, even light the reflection is nearly uniform: the default's blurred gloss test
    # (gloss_smooth 1) misses it and its rim ratio (0.931) sits on the 0.93 bound — one of the
    # Mitsuba soft/white failures in docs/gencolor.md — so the veil is checked here without them
    version2 = {"gloss_smooth": 0.0, "rim_ratio": None, "fresnel": 0.04}  # and the plastic's physical F0
    score = ColorScorer("iscc-nbs-l2", **version2).score_image(img, "Orange", mask=mask)[0]
    before = ColorScorer("iscc-nbs-l2", **{**version2, "fresnel": None}).score_image(img, "Orange", mask=mask)[0]
    assert score.veil is not None and score.passed and score.delta_chroma < 3
    assert not before.passed and before.delta_chroma > 5
