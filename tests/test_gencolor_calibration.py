"""The scorer's calibration (version 25): pixel statistics, the trees, the shipped file, the scorer's use."""

from __future__ import annotations

import hashlib
import json
import math
from importlib import resources

import numpy as np
import pytest

from huebench.benchmarks.gencolor import calibration as cal
from huebench.benchmarks.gencolor.calibration import (
    CALIBRATION,
    FEATURES,
    MAX_CORRECTION,
    MIN_CHROMA,
    TreeEnsemble,
    calibration_features,
    calibration_from_json,
    load_calibration,
    pixel_statistics,
)
from huebench.benchmarks.gencolor.scoring import SCORER_VERSION, SCORERS, ColorScorer
from huebench.color import _kernels, delta_e, linear_to_srgb8, srgb8_to_linear, srgb_to_lab
from huebench.color.reflectance import fit_sample_of
from huebench.errors import HuebenchError

from .conftest import load_perf_script


def _numpy_statistics(px, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(_kernels, "enabled", lambda n: False)
        return pixel_statistics(px)


@pytest.mark.parametrize("n", [2, 5, 63, 64, 500, 3000, 25_000])
def test_pixel_statistics_kernel_gives_the_numpy_values(n, monkeypatch):
    rng = np.random.default_rng(n)
    px = rng.integers(0, 256, (n, 3), dtype=np.uint8)
    px[::7, 1] = 255  # clipped channels
    reference = _numpy_statistics(px, monkeypatch)
    if n < _kernels.KERNEL_FROM:  # below it pixel_statistics is the NumPy path: ask the kernel itself
        from huebench.color.conversions import srgb8_lab_tables, srgb8_table

        fast = _kernels.lit_statistics(px, *srgb8_lab_tables(), srgb8_table(), 254, *cal._QUANTILE_ARRAYS)
    else:
        fast = pixel_statistics(px)
    assert fast.shape == reference.shape == (len(FEATURES) - 3,)
    # the NumPy path converts to Lab without the kernel (~1e-13 apart), the rest is the same steps
    np.testing.assert_allclose(fast, reference, rtol=0, atol=1e-9)
    read = fit_sample_of(px)  # above reflectance.FIT_PIXELS: its even sample
    assert len(read) == min(n, 20_000)
    assert fast[0] == pytest.approx(np.count_nonzero((read >= 254).any(axis=1)) / len(read))


def test_pixel_statistics_under_a_light_are_the_pixels_put_back_under_it(monkeypatch):
    rng = np.random.default_rng(1)
    px = rng.integers(20, 230, (900, 3), dtype=np.uint8)
    light = np.array([1.0, 0.85, 0.6])
    shown = linear_to_srgb8(srgb8_to_linear(px) * light)
    assert np.array_equal(pixel_statistics(px, light), pixel_statistics(shown))
    with monkeypatch.context() as m:
        m.setattr(_kernels, "enabled", lambda n: False)
        np.testing.assert_allclose(pixel_statistics(px, light), pixel_statistics(shown), rtol=0, atol=1e-9)


def test_pixel_statistics_of_one_colour_are_that_colour():
    px = np.tile(np.array([[200, 60, 40]], dtype=np.uint8), (400, 1))
    s = pixel_statistics(px)
    lab = srgb_to_lab(np.array([200, 60, 40], dtype=np.uint8))
    n_sat = 2
    lin = (np.array([200, 60, 40]) / 255.0 + 0.055) / 1.055
    lin = lin**2.4
    grey = lin.mean()
    assert s[0] == 0.0
    np.testing.assert_allclose(s[1 : 1 + n_sat], np.linalg.norm(lin - grey) / grey, rtol=1e-9)
    np.testing.assert_allclose(s[1 + n_sat : 1 + n_sat + 5], lab[0], atol=1e-9)
    np.testing.assert_allclose(s[1 + n_sat + 5 :], math.hypot(lab[1], lab[2]), atol=1e-9)
    assert np.isnan(pixel_statistics(px[:1])).all()  # one pixel: no statistics


def test_features_are_relative_to_the_dominant_colour():
    stats = np.arange(1.0, len(FEATURES) - 2)  # 11 values
    f = calibration_features([50.0, 30.0, 40.0], True, stats)
    assert len(f) == len(FEATURES)
    assert f[0] == 50.0 and f[1] == 50.0 and f[2] == 1.0  # L*, C*ab = hypot(30, 40), glossy
    assert f[3] == 1.0 and list(f[4:6]) == [2.0, 3.0]  # clipped share, saturations as read
    assert list(f[6:11]) == [v - 50.0 for v in (4.0, 5.0, 6.0, 7.0, 8.0)]  # L* quantiles less L*
    assert list(f[11:]) == [v - 50.0 for v in (9.0, 10.0, 11.0)]  # C* quantiles less C*
    assert calibration_features([50.0, 0.0, 0.0], None, stats)[2] == 0.5  # not tested


def test_tree_ensemble_predicts_as_scikit_learn(tmp_path):
    sklearn = pytest.importorskip("sklearn.ensemble")
    script = load_perf_script("scorer_calibration")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, len(FEATURES)))
    y = 3 * np.tanh(x[:, 0]) - 2 * (x[:, 6] > 0.3) + rng.normal(scale=0.1, size=600)
    params = {**script.PARAMS, "min_samples_leaf": 20, "max_iter": 30}
    est = sklearn.HistGradientBoostingRegressor(**params).fit(x, y)
    ensemble = TreeEnsemble.from_json(script.ensemble_json(est), len(FEATURES), "test")
    probe = rng.normal(size=(300, len(FEATURES)))
    probe[:20] = x[:20]  # training rows too; and inputs exactly on a threshold go left, as sklearn's
    thresholds = ensemble.threshold[~ensemble.leaf]
    features = ensemble.feature[~ensemble.leaf]
    for i, j in enumerate(rng.choice(len(thresholds), size=20, replace=False)):
        probe[20 + i, features[j]] = thresholds[j]
    ours = np.array([ensemble.predict(p) for p in probe])
    np.testing.assert_allclose(ours, est.predict(probe), rtol=0, atol=1e-9)
    with pytest.MonkeyPatch.context() as m:  # the NumPy walk (machines without numba): the same values
        m.setattr(_kernels, "AVAILABLE", False)
        assert np.array_equal(np.array([ensemble.predict(p) for p in probe]), ours)
    assert ensemble.depth <= 3
    assert max(abs(v) for v in ours) <= ensemble.bound() + 1e-12


def test_the_shipped_calibration():
    c = load_calibration(CALIBRATION)
    raw = (
        resources.files("huebench.benchmarks.gencolor").joinpath("data", f"calibration-{CALIBRATION}.json").read_bytes()
    )
    assert c.name == CALIBRATION and c.sha256 == hashlib.sha256(raw).hexdigest()
    doc = json.loads(raw)
    assert doc["features"] == list(FEATURES) and doc["format"] == cal.FORMAT
    t = c.training
    assert t["systems"] == ["iscc-nbs-l2", "css3"]
    # every study family (the one kept unseen left out), both systems, both render settings
    from huebench.benchmarks.gencolor.families import FAMILIES, HELD_OUT_FAMILIES, UNSEEN_FAMILIES

    # bounce, translucent and product judged this calibration after it was trained, composited
    # judged scorer version 26, reflections version 27 and backdrops version 28, which carry it
    # (docs/gencolor.md): the next one learns from them
    judged = {"bounce", "translucent", "product", "composited", "reflections", "backdrops"}
    assert set(t["families"]) == (set(FAMILIES) | set(HELD_OUT_FAMILIES)) - set(UNSEEN_FAMILIES) - judged
    assert not set(t["families"]) & (set(UNSEEN_FAMILIES) | judged)
    assert t["renders"] == ["quick", "full"] and set(t["images"]) == {"iscc-nbs-l2", "css3"}
    assert all(set(per) == {"quick", "full"} for per in t["images"].values())
    assert t["params"]["max_depth"] == 3 and t["params"]["early_stopping"] is False
    assert t["rows"] == sum(sum(c.values()) for per in t["images"].values() for c in per.values()) > 60_000
    assert t["rules"]["scorer_version"] == SCORER_VERSION
    # lightness alone: a chroma ensemble lost on the held-out 64 px Mitsuba renders (the script's TARGETS)
    assert set(doc["targets"]) == {"lightness"} and c.chroma is None
    assert c.lightness.depth <= 3 and len(c.lightness.value) == t["params"]["max_iter"]
    bound_l, bound_c = c.bound()
    assert 0 < bound_l <= MAX_CORRECTION and bound_c == 0.0


def test_the_rules_key_of_the_shipped_calibration_is_the_scorers():
    """The calibration was trained on the rules as they are: a change of any rule's setting without
    retraining it fails here (perf/scorer_calibration.py --quick retrains)."""
    script = load_perf_script("scorer_calibration")
    keys = load_calibration(CALIBRATION).training["rules"]["config_sha256"]
    assert keys == {s: script.rules_key(s) for s in ("iscc-nbs-l2", "css3")}


def _doc(**changes):
    leaf = {"feature": [0], "threshold": [0.0], "left": [0], "right": [0], "value": [0.5], "leaf": [True]}
    split = {
        "feature": [6, 0, 0],
        "threshold": [-1.0, 0.0, 0.0],
        "left": [1, 0, 0],
        "right": [2, 0, 0],
        "value": [0.0, -2.0, 3.0],
        "leaf": [False, True, True],
    }
    doc = {
        "format": 1,
        "name": "x",
        "features": list(FEATURES),
        "targets": {
            "lightness": {"baseline": 0.25, "trees": [split, leaf]},
            "chroma": {"baseline": 0.0, "trees": [leaf]},
        },
    }
    doc.update(changes)
    return json.dumps(doc).encode()


def test_a_small_calibration_by_hand():
    c = calibration_from_json(_doc(), "x", "test")
    x = np.zeros(len(FEATURES))
    x[6] = -1.0  # on the threshold: left
    assert c.correction(x) == (0.25 - 2.0 + 0.5, 0.5)
    x[6] = -0.5
    assert c.correction(x) == (0.25 + 3.0 + 0.5, 0.5)
    x[0] = np.nan
    assert c.correction(x) is None
    assert c.bound() == (0.25 + 3.0 + 0.5, 0.5)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{", "^test: not JSON"),
        (_doc(format=2), "^test: format 2, name 'x': expected 1, 'x'"),
        (_doc(features=list(FEATURES[:-1])), "^test: its features are not this scorer's"),
        (
            _doc(targets={"lightness": {"baseline": 0.0, "trees": []}, "chroma": {"baseline": 0.0, "trees": []}}),
            "^test, lightness: no trees",
        ),
    ],
)
def test_malformed_calibrations_are_refused(raw, message):
    with pytest.raises(HuebenchError, match=message):
        calibration_from_json(raw, "x", "test")


@pytest.mark.parametrize(
    ("node", "message"),
    [
        ({"feature": [99, 0, 0]}, "tree 0 is malformed"),
        ({"left": [0, 0, 0]}, "tree 0 is malformed"),  # a cycle back to the root
        ({"left": [10**6, 0, 0]}, "tree 0 is malformed"),  # beyond the tree: a walk would leave it
        ({"right": [3, 0, 0]}, "tree 0 is malformed"),
        ({"threshold": [float("nan"), 0.0, 0.0]}, "not finite"),
        ({"value": [0.0, 1.0]}, "its node lists differ in length"),
        ({k: [] for k in ("feature", "threshold", "left", "right", "value", "leaf")}, "or it has none"),
        ({"leaf": "xyz"}, "it needs the lists feature, threshold, left, right, value, leaf"),
        ({"value": [0.0, "x", 1.0]}, "not a tree ensemble"),
    ],
)
def test_malformed_trees_are_refused(node, message):
    doc = json.loads(_doc())
    doc["targets"]["lightness"]["trees"][0].update(node)
    with pytest.raises(HuebenchError, match=message):
        calibration_from_json(json.dumps(doc).encode(), "x", "test")


def test_malformed_files_say_so_in_one_line():
    doc = json.loads(_doc())
    doc["targets"]["lightness"]["baseline"] = float("nan")
    with pytest.raises(HuebenchError, match="^test, lightness: a threshold, leaf value or the baseline is not finite"):
        calibration_from_json(json.dumps(doc).encode(), "x", "test")
    doc = json.loads(_doc())
    for targets, got in (([1, 2], "none"), (None, "none"), ({"chroma": {}}, "chroma"), ({"hue": {}}, "hue")):
        doc["targets"] = targets
        with pytest.raises(HuebenchError, match=f"^test: targets {got}: expected lightness \\(and chroma, optional\\)"):
            calibration_from_json(json.dumps(doc).encode(), "x", "test")
    with pytest.raises(HuebenchError, match="^test: not JSON"):
        calibration_from_json(b"[" * 100_000, "x", "test")  # deeper than any parser's stack
    doc = json.loads(_doc())
    del doc["targets"]["chroma"]["baseline"]
    with pytest.raises(HuebenchError, match="^test, chroma: not a tree ensemble"):
        calibration_from_json(json.dumps(doc).encode(), "x", "test")
    c = calibration_from_json(_doc(), "x", "test")
    with pytest.raises(ValueError, match="read-only"):
        c.lightness.value[0, 0] = 1.0  # one loaded calibration is shared: it cannot be changed


def test_a_calibration_of_lightness_alone_keeps_the_rules_chroma():
    doc = json.loads(_doc())
    del doc["targets"]["chroma"]
    c = calibration_from_json(json.dumps(doc).encode(), "x", "test")
    x = np.zeros(len(FEATURES))
    x[6] = -0.5
    assert c.chroma is None and c.correction(x) == (0.25 + 3.0 + 0.5, 0.0)
    assert c.bound() == (0.25 + 3.0 + 0.5, 0.0)


def test_corrections_are_capped():
    doc = json.loads(_doc())
    doc["targets"]["chroma"]["baseline"] = 40.0
    c = calibration_from_json(json.dumps(doc).encode(), "x", "test")
    assert c.correction(np.zeros(len(FEATURES)))[1] == MAX_CORRECTION
    assert c.bound()[1] == MAX_CORRECTION


def test_unknown_calibration_names_are_refused():
    with pytest.raises(HuebenchError, match="^calibration 'nope' unknown: use families-v25, or none"):
        ColorScorer("css3", calibration="nope")


def _red_ball(size=48, noise=1.5, seed=0):
    yy, xx = np.mgrid[:size, :size]
    r = np.hypot(yy - size / 2, xx - size / 2) / (0.4 * size)
    mask = r < 1
    shade = np.clip(np.sqrt(np.clip(1 - r**2, 0, 1)) * 0.8 + 0.25, 0, 1)
    lin = np.array([0.55, 0.06, 0.04])[None, None] * shade[..., None]
    img = np.where(mask[..., None], lin, 0.2)
    srgb = np.where(img <= 0.0031308, 12.92 * img, 1.055 * img ** (1 / 2.4) - 0.055)
    srgb += np.random.default_rng(seed).normal(0, noise / 255, srgb.shape)
    return np.clip(np.round(srgb * 255), 0, 255).astype(np.uint8), mask


def test_the_scorer_applies_and_records_its_calibration():
    img, mask = _red_ball()
    score = ColorScorer("css3").score_image(img, "firebrick", mask=mask)[0]
    rules = ColorScorer("css3", calibration=None).score_image(img, "firebrick", mask=mask)[0]
    rec = score.calibration
    assert rec is not None and rec["model"] == CALIBRATION and rules.calibration is None
    assert rec["before"] == rules.dominant_lab  # the rules' colour, before the correction
    assert abs(rec["lightness"]) <= MAX_CORRECTION and abs(rec["chroma"]) <= MAX_CORRECTION
    assert f"calibrated ({CALIBRATION}): L* {rec['lightness']:+.2f}" in score.reason
    # a calibration of known corrections (L* +0.25 − 2 or + 3, + 0.5; C*ab + 0.5 − 1.5): the colour
    # moves by them, its hue kept, and the bound (which only cuts raised chroma) does not cut
    doc = json.loads(_doc())
    doc["targets"]["chroma"]["baseline"] = -1.5
    known = ColorScorer("css3", calibration=calibration_from_json(json.dumps(doc).encode(), "x", "test"))
    got = known.score_image(img, "firebrick", mask=mask)[0]
    before, after = np.asarray(got.calibration["before"]), np.asarray(got.dominant_lab)
    assert np.allclose(before, rules.dominant_lab, atol=1e-3) and "cut to" not in got.reason
    features = calibration_features(before, got.glossy, pixel_statistics(img[mask]))
    d_l = 0.25 + (-2.0 if features[6] <= -1.0 else 3.0) + 0.5
    assert after[0] - before[0] == pytest.approx(d_l, abs=2e-3) and got.calibration["lightness"] == pytest.approx(d_l)
    assert math.hypot(*after[1:]) - math.hypot(*before[1:]) == pytest.approx(-1.0, abs=2e-3)
    assert math.atan2(after[2], after[1]) == pytest.approx(math.atan2(before[2], before[1]), abs=1e-4)


def test_pixels_without_their_image_keep_the_rules_colour():
    # the calibration learnt from objects in their images (the gloss test answered); scored as
    # pixels alone they are the rules' (no gloss test, no correction)
    img, mask = _red_ball()
    alone = ColorScorer("css3").score_pixels(img[mask], "firebrick")
    assert alone.glossy is None and alone.calibration is None
    assert alone.dominant_lab == ColorScorer("css3", calibration=None).score_pixels(img[mask], "firebrick").dominant_lab


def test_a_large_object_read_on_its_grid_is_calibrated():
    img, mask = _red_ball(size=400)
    assert mask.sum() > 65_536  # max_object_pixels: read on a strided grid
    score = ColorScorer("css3").score_image(img, "firebrick", mask=mask)[0]
    every = ColorScorer("css3", max_object_pixels=None).score_image(img, "firebrick", mask=mask)[0]
    assert score.stride > 1 and score.calibration is not None and every.stride == 1
    assert (
        float(delta_e(np.asarray(score.dominant_lab), np.asarray(every.dominant_lab))) < 1.0
    )  # the grid reads the same


def test_features_are_kept_only_when_asked():
    img, mask = _red_ball()
    scorer = ColorScorer("css3", calibration=None)
    scorer.keep_features = True
    rec = scorer.score_image(img, "red", mask=mask)[0].calibration
    assert rec is not None and set(rec) == {"features", "before"} and len(rec["features"]) == len(FEATURES)
    scored = ColorScorer("css3").score_image(img, "red", mask=mask)[0].calibration
    assert scored is not None and "features" not in scored
    assert ColorScorer("css3").config()["calibration"] == CALIBRATION  # keep_features is no setting
    assert "keep_features" not in ColorScorer("css3").config()


def test_a_chroma_the_metrics_gate_is_never_raised():
    """Below the hue gate (C*ab 5) the dominant colour's hue is noise to the metrics: the
    calibration may lower such a chroma, never raise it along that hue (which would put an invented
    hue to the hue test: near-white CSS3/X11 bodies failed so)."""
    assert MIN_CHROMA == 5.0
    doc = json.loads(_doc())
    doc["targets"]["chroma"]["baseline"] = 3.0
    scorer = ColorScorer("css3", calibration=calibration_from_json(json.dumps(doc).encode(), "x", "test"))
    stats = np.zeros(len(FEATURES) - 3)
    pale, record = scorer.calibrate(np.array([95.0, 1.0, 4.0]), True, stats)
    assert np.array_equal(pale[1:], [1.0, 4.0]) and record["chroma"] == 0.0
    vivid, record = scorer.calibrate(np.array([50.0, 30.0, 40.0]), True, stats)
    # _doc's chroma ensemble: the baseline and one leaf of 0.5
    assert math.hypot(*vivid[1:]) == pytest.approx(53.5) and record["chroma"] == pytest.approx(3.5)
    assert math.atan2(vivid[2], vivid[1]) == pytest.approx(math.atan2(40.0, 30.0))
    doc["targets"]["chroma"]["baseline"] = -3.0
    lower = ColorScorer("css3", calibration=calibration_from_json(json.dumps(doc).encode(), "x", "test"))
    paler, record = lower.calibrate(np.array([95.0, 1.0, 4.0]), True, stats)
    assert math.hypot(*paler[1:]) == pytest.approx(math.hypot(1.0, 4.0) - 2.5) and record["chroma"] < 0
    assert lower.calibrate(np.array([95.0, 0.0, 0.0]), True, stats)[0][1:].tolist() == [0.0, 0.0]  # grey stays grey


def test_named_scorers_and_config():
    assert SCORERS["huebench-rules"] == {"calibration": None} and SCORERS["paper"]["calibration"] is None
    cfg, rules = ColorScorer("css3").config(), ColorScorer.named("huebench-rules", "css3").config()
    assert cfg["version"] == SCORER_VERSION == 28
    assert cfg["calibration"] == CALIBRATION and cfg["calibration_sha256"] == load_calibration(CALIBRATION).sha256
    assert rules["calibration"] is None and rules["calibration_sha256"] is None
    assert {k: v for k, v in cfg.items() if not k.startswith("calibration") and k != "name"} == {
        k: v for k, v in rules.items() if not k.startswith("calibration") and k != "name"
    }


@pytest.mark.parametrize("light", [None, np.array([1.0, 0.8, 0.6])])
def test_the_statistics_hold_the_bounds_chroma_quantile(light):
    """The scorer reads its bound on invented colour (the pixels' 99th percentile of chroma) from
    the calibration's statistics: the very value it computed before."""
    from huebench.benchmarks.gencolor.scoring import _chroma_p99

    img, mask = _red_ball(size=64, noise=3.0)
    px = img[mask]
    assert cal.CHROMA_QUANTILES[-1] == 0.99
    assert pixel_statistics(px, light)[-1] == _chroma_p99(px, light)


def test_the_training_script_refuses_unknown_settings(monkeypatch, capsys):
    script = load_perf_script("scorer_calibration")
    for argv in (["--renders", "tiny"], ["--tables", "colours"], ["--renders", ""], ["--no-write", "--refit"]):
        monkeypatch.setattr("sys.argv", ["scorer_calibration.py", *argv])
        with pytest.raises(SystemExit) as exit_:
            script.main()
        assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "unknown --renders or --tables tiny: use quick, full; families, palettes, renders" in err
    assert "--no-write and --refit together do nothing" in err
