"""`huebench gencolor score-image`: the colour found is named, and an offline mask that takes much of
the image is warned about."""

import json

import numpy as np
import pytest
from PIL import Image

from huebench.color import load_system


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
