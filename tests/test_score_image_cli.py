"""`huebench gencolor score-image`: the colour found is named, and an offline mask that takes much of
the image is warned about."""

import json

import numpy as np
import pytest
from PIL import Image

from huebench.color import load_system
from huebench.errors import HuebenchError


def _square(path, rgb, margin: int, size: int = 64):
    """A flat square of ``rgb`` on grey with mild noise, ``margin`` pixels from each edge."""
    rng = np.random.default_rng(0)
    img = np.full((size, size, 3), 128.0)
    img[margin:-margin, margin:-margin] = rgb
    img = np.clip(img + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)
    Image.fromarray(img).save(path)
    mask = np.zeros((size, size), bool)
    mask[margin:-margin, margin:-margin] = True
    return mask


def test_a_large_offline_mask_is_warned_about_in_one_line_and_the_found_colour_is_named(cli, tmp_path):
    mask = _square(tmp_path / "big.png", (255, 99, 71), margin=6)  # the object fills 66 % of the frame
    code, out, err = cli("gencolor", "score-image", tmp_path / "big.png", "--target", "Tomato")
    assert code == 0, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: the offline mask took 66 % of the image (more than 50 %)")
    assert "--mask FILE" in lines[0] and "--segmenter" in lines[0]
    text = " ".join(out.split())
    # the rules found #FE6247 (ΔE00 0.2 from Tomato); calibrated (L* +0.61), #FF6448
    assert "found: #FF6448, nearest css3 colour Tomato (ΔE00 0.3)" in text
    # the same in JSON (stdout stays JSON; the warning goes to stderr and into the record)
    code, out, err = cli("gencolor", "score-image", tmp_path / "big.png", "--target", "#FF6347", "--json", "--system",
                         "iscc-nbs-l3")  # fmt: skip
    got = json.loads(out)
    nearest = load_system("iscc-nbs-l3").nearest_lab(np.asarray(got["dominant_lab"]))[0]
    assert got["dominant_name"] == nearest.color.name == "Vivid yellowish pink"
    assert got["dominant_name_delta_e00"] == pytest.approx(nearest.distance, abs=0.01)
    assert got["mask_warning"] == err.strip().removeprefix("warning: ") and got["mask_share"] > 0.5
    # a mask given by the user is the user's: no warning, whatever its share
    Image.fromarray(mask.astype(np.uint8) * 255).save(tmp_path / "mask.png")
    code, out, err = cli("gencolor", "score-image", tmp_path / "big.png", "--target", "Tomato", "--mask",
                         tmp_path / "mask.png", "--json")  # fmt: skip
    assert code == 0 and err == "" and json.loads(out)["mask_warning"] is None


def test_a_small_offline_mask_gets_no_warning(cli, tmp_path):
    _square(tmp_path / "small.png", (30, 60, 200), margin=20)  # 6 % of the frame
    code, out, err = cli("gencolor", "score-image", tmp_path / "small.png", "--target", "RoyalBlue")
    assert code == 0 and err == ""
    assert "nearest css3 colour " in out and "check it with --save-mask" in out


def test_scorer_options_set_the_scorers_settings_and_refuse_what_is_not_one(cli, tmp_path):
    # --scorer-options: a JSON object of settings; version 27's flat-surface rule fails the soft-lit
    # glossy sphere that version 28 passes (tests/test_color_reflectance.py)
    from tests.test_color_reflectance import _dark_sphere

    img, mask = _dark_sphere(np.array((0.5, 0.06, 0.04)), env=0.3, ambient=0.8)
    Image.fromarray(img).save(tmp_path / "soft.png")
    Image.fromarray(mask.astype(np.uint8) * 255).save(tmp_path / "mask.png")
    args = ("gencolor", "score-image", tmp_path / "soft.png", "--mask", tmp_path / "mask.png", "--target", "#b83b36",
            "--system", "iscc-nbs-l2", "--json")  # fmt: skip
    code, out, _ = cli(*args)
    assert code == 0 and json.loads(out)["pass"] is True
    code, out, _ = cli(*args, "--scorer-options", '{"glossy_flat_line": false}')
    assert code == 0 and json.loads(out)["pass"] is False
    for given, message in (
        ("{glossy", "error: --scorer-options '{glossy': not JSON ("),
        ("[1]", "error: --scorer-options '[1]': give a JSON object of scorer settings, e.g. "),
        ('{"glossy_flat": false}', "error: --scorer-options: 'glossy_flat' is not a scorer setting. Did you mean 'glossy_flat_line'"),
        ('{"k": 5}', "error: --scorer-options: 'k' has its own flag: use --k"),
        ('{"line_band": {"low": 0.3}}', "error: --scorer-options: 'line_band' must be a list of two numbers or null, got {\"low\": 0.3}"),
        ('{"glossy_flat_line": "no"}', "error: --scorer-options: 'glossy_flat_line' must be true or false, got \"no\""),
        ('{"jnd": true}', "error: --scorer-options: 'jnd' must be a finite number, got true"),
        ('{"max_floor": NaN}', "error: --scorer-options: 'max_floor' must be a finite number or null, got NaN"),
        ('{"erode": 1.5}', "error: --scorer-options: 'erode' must be a whole number, got 1.5"),
        ('{"rim_band": null}', "error: --scorer-options: 'rim_band' must be a list of two whole numbers, got null"),
        ('{"jnd": 4, "jnd": 5}', "error: --scorer-options: 'jnd' given twice; give each setting once"),
        ('{"dark_neutral": -1}', "error: dark_neutral must be an L* in (0, 100] or None, got -1.0"),
        ('{"lightness_window": [0.99, 0.85]}', "error: lightness_window must be two quantiles of L* (low, high) with 0 <= low < high <= 1"),
    ):  # fmt: skip
        code, out, err = cli(*args, "--scorer-options", given)
        assert code == 2 and out == "" and err.startswith(message) and len(err.strip().splitlines()) == 1, (given, err)


def test_scorer_options_are_recorded_and_a_resume_with_others_is_refused(tmp_path):
    from huebench.benchmarks.gencolor.benchmark import GenColorBench
    from huebench.benchmarks.gencolor.diagnostic import Diagnostic
    from huebench.benchmarks.gencolor.scoring import canonical_scorer_options, parse_scorer_options

    given = '{ "line_band": [0.2, 0.8],  "glossy_flat_line": false }'
    assert parse_scorer_options(given) == {"line_band": (0.2, 0.8), "glossy_flat_line": False}
    assert canonical_scorer_options(given) == '{"glossy_flat_line":false,"line_band":[0.2,0.8]}'
    assert canonical_scorer_options("") is None and canonical_scorer_options("{}") is None
    assert canonical_scorer_options('{"jnd": 5}') == canonical_scorer_options('{"jnd":5.0}') == '{"jnd":5.0}'
    bench = GenColorBench(images=str(tmp_path), scorer_options=given)
    options = bench.resolved_options()
    assert options["scorer_options"] == canonical_scorer_options(given)
    assert options["scorer_config"]["glossy_flat_line"] is False and options["scorer_config"]["line_band"] == [0.2, 0.8]
    assert GenColorBench(images=str(tmp_path)).resolved_options()["scorer_config"]["glossy_flat_line"] is True
    # the diagnostic: the --scorer one takes them, the paper's beside it stays as named; k is its own
    diag = Diagnostic(quick=True, family="analytic", scorer_options='{"k": 5, "glossy_flat_line": false}')
    records = diag.resolved_options()["scorer_config"]
    assert records["huebench"]["k"] == 5 and records["huebench"]["glossy_flat_line"] is False
    assert records["paper"]["k"] == 3 and records["paper"]["glossy_flat_line"] is True
    with pytest.raises(HuebenchError, match="^--scorer-options: 'candidate_rule' has its own flag: use --candidates$"):
        Diagnostic(quick=True, family="analytic", scorer_options='{"candidate_rule": "same"}')
