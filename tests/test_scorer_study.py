"""perf/scorer_study.py's paired tables and score dumps: the evidence behind every scorer default
and behind every speed-up that must not move a score."""

from __future__ import annotations

import numpy as np
import pytest

from huebench.errors import HuebenchError
from tests.conftest import load_perf_script


@pytest.fixture(scope="module")
def study():
    return load_perf_script("scorer_study")


def test_paired_table_counts_gains_losses_and_far_accepts_per_family(study):
    families = np.array(["a", "a", "a", "a", "b", "b"])
    default = np.array([[1, 0], [1, 0], [0, 0], [0, 1], [1, 0], [1, 0]], dtype=bool)
    variant = np.array([[1, 0], [0, 0], [1, 0], [1, 1], [1, 0], [1, 1]], dtype=bool)
    rows = {r[0]: r for r in study.paired_table(families, default, variant)}
    f, n, acc_default, acc_variant, (diff, lo, hi), gained, lost, far_default, far_variant = rows["a"]
    assert (n, acc_default, acc_variant, gained, lost, far_default, far_variant) == (4, 50.0, 75.0, 2, 1, 1, 1)
    assert diff == 25.0 and lo <= diff <= hi
    assert rows["b"][1:4] == (2, 100.0, 100.0) and rows["b"][4] == (0.0, 0.0, 0.0) and rows["b"][7:] == (0, 1)


def test_compare_dumps_finds_any_moved_score(study):
    rng = np.random.default_rng(0)
    a = rng.random((50, len(study.DUMP_COLUMNS)))
    a[:, 0] = a[:, 0] > 0.5
    a[3, 4:7] = np.nan  # a score without a dominant colour (too few pixels)
    same = study.compare_dumps(a, a.copy())
    assert same["identical"] and same["flips"] == 0 and set(same["largest"].values()) == {0.0}
    b = a.copy()
    b[7, 2] += 1e-12
    moved = study.compare_dumps(a, b)
    assert not moved["identical"] and moved["flips"] == 0 and moved["largest"]["delta_chroma"] > 0
    b[9, 0] = 1 - b[9, 0]
    b[3, 4] = 0.0  # NaN on one side only
    moved = study.compare_dumps(a, b)
    assert moved["flips"] == 1 and moved["largest"]["L"] == np.inf
    with pytest.raises(HuebenchError, match="different score tables"):
        study.compare_dumps(a, a[:-1])


def test_score_row_keeps_every_column(study):
    from huebench.benchmarks.gencolor.scoring import ColorScorer

    px = np.tile(np.array([[200, 40, 30]], dtype=np.uint8), (64, 1))
    score = ColorScorer("iscc-nbs-l2").score_pixels(px, "Red")
    row = study.score_row(score)
    assert len(row) == len(study.DUMP_COLUMNS)
    assert row[0] == float(score.passed) and row[1] == score.delta_e00 and row[4:7] == score.dominant_lab
    assert row[7] == -1.0 and row[8] == -1.0  # no veil removed, no gloss test without the image


def test_cache_file_names_the_render_size(study):
    from argparse import Namespace

    code = study.image_code_digest()
    from huebench.runs.runner import cpu_vector_isa

    isa = str(cpu_vector_isa())
    assert code == study.code_digest(study.image_inputs(), study.IMAGE_PACKAGES, machine=isa) and len(code) == 8
    names = {p.name for p in study.image_inputs()}
    assert {"families.py", "render.py", "conversions.py", "photo_objects.json"} <= names
    quick = Namespace(cache="/tmp/c", system="css3", quick=True, size=None, spp=None)
    assert str(study.cache_path(quick)) == f"/tmp/c.css3.1.{code}.npz"
    assert str(study.cache_path(quick, "recolored")) == f"/tmp/c.css3.1.recolored.{code}.npz"
    larger = Namespace(cache="/tmp/c", system="css3", quick=False, size=128, spp=16)
    assert str(study.cache_path(larger, "microfacet")) == f"/tmp/c.css3.0.s128.spp16.microfacet.{code}.npz"


def test_code_digest_changes_with_any_input_file_or_release(study, tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.json"
    a.write_text("x = 1\n")
    b.write_text("{}")
    first = study.code_digest([a, b], ("numpy",))
    assert first == study.code_digest([a, b], ("numpy",))  # the same inputs, the same file
    a.write_text("x = 2\n")
    assert study.code_digest([a, b], ("numpy",)) != first
    a.write_text("x = 1\n")
    assert study.code_digest([a, b], ("numpy", "no-such-package")) != first
    assert study.code_digest([a, b]) != first
    # the CPU's vector instructions change a few Mitsuba renders: another machine, another cache
    assert study.code_digest([a, b], ("numpy",), machine="avx2") != study.code_digest(
        [a, b], ("numpy",), machine="avx512f"
    )
    assert study.code_digest([a, b], ("numpy",), machine="avx2") != first


def test_build_renders_at_the_size_asked_and_reads_its_cache_back(study, tmp_path, monkeypatch):
    cache = tmp_path / "families.npz"
    meta, imgs, masks = study.build("iscc-nbs-l2", False, cache, family="analytic", size=24)
    assert len(meta) == len(imgs) == len(masks) == 348  # 29 colours × 12 analytic set-ups
    assert {i.shape for i in imgs} == {(24, 24, 3)} and {m.shape for m in masks} == {(24, 24)}
    assert cache.exists()

    def no_rendering(*args, **kwargs):
        raise AssertionError("the second build must read the cache, not render")

    monkeypatch.setattr(study.Diagnostic, "known_image", no_rendering)
    again = study.build("iscc-nbs-l2", False, cache, family="analytic", size=24)
    assert [m["target"] for m in again[0]] == [m["target"] for m in meta]
    assert all(np.array_equal(a, b) for a, b in zip(again[1], imgs, strict=True))
    monkeypatch.undo()
    # a cache that holds another set of images (here another family's) is made again, not misread
    other = study.build("iscc-nbs-l2", False, cache, family="translucent", size=24)
    assert len(other[0]) == len(other[1]) == 174 and other[0][0]["family"] == "translucent"
    assert len(np.load(cache)["targets"]) == 174


def test_coloured_surroundings_leave_the_object_and_its_edge_alone(study):
    rng = np.random.default_rng(0)
    imgs = [rng.integers(0, 256, (12, 12, 3), dtype=np.uint8) for _ in range(7)]
    mask = np.zeros((12, 12), dtype=bool)
    mask[4:8, 3:9] = True
    edge = np.zeros_like(mask)
    edge[3:9, 2:10] = True  # the mask widened by one pixel (4-neighbour cross) ...
    for r, c in ((3, 2), (3, 9), (8, 2), (8, 9)):
        edge[r, c] = False  # ... whose corners it does not reach
    painted = study.on_coloured_surroundings(imgs, [mask] * 7)
    for i, (before, after) in enumerate(zip(imgs, painted, strict=True)):
        assert np.array_equal(after[edge], before[edge])
        colour = study.SURROUNDS[i % len(study.SURROUNDS)]
        assert (after[~edge] == colour).all()
    assert np.array_equal(painted[6][~edge], painted[0][~edge])  # six colours, in turn
    assert not np.array_equal(painted[1][~edge], painted[0][~edge])


def test_cut_by_the_frame_keeps_what_is_left_of_the_object(study):
    img = np.arange(10 * 20 * 3, dtype=np.uint8).reshape(10, 20, 3)
    mask = np.zeros((10, 20), dtype=bool)
    mask[2:8, 5:15] = True  # ten columns wide: 35 % of it, 3 columns, go with the 5 before it
    (cut,), (cut_mask,) = study.cut_by_the_frame([img], [mask])
    assert cut.shape == (10, 12, 3) and cut_mask.shape == (10, 12)
    assert np.array_equal(cut, img[:, 8:]) and np.array_equal(cut_mask, mask[:, 8:])
    assert cut_mask[:, 0].any()  # the object now runs into the left border


def test_loose_masks_grow_by_the_pixels_asked(study):
    mask = np.zeros((12, 12), dtype=bool)
    mask[5:7, 5:7] = True
    (grown,) = study.loose_masks([mask], 2)
    assert grown.sum() == 4 + 8 + 12  # the 2×2 square and two rings of the 4-neighbour cross
    assert grown[mask].all() and not grown[0].any()


def test_ceiling_table_takes_each_oracle_where_it_knows_and_the_best_value_per_image(study):
    families = np.array(["a", "a", "a", "a", "a", "b", "b"])
    default = np.array([1, 0, 0, 1, 0, 1, 0], dtype=bool)
    # -1: the oracle knows nothing there and the default's outcome stands (image 3 passes by default)
    oracles = np.array([[1, 1], [1, 0], [0, 1], [-1, 0], [0, 0], [-1, 1], [-1, 1]])
    outcomes = {
        "v=1": np.array([0, 1, 0, 0, 0, 0, 0], dtype=bool),
        "w=2": np.array([0, 1, 1, 0, 0, 0, 1], dtype=bool),
        "x=3": np.array([1, 0, 1, 1, 1, 0, 0], dtype=bool),
        "y=4": np.array([0, 1, 1, 0, 1, 0, 0], dtype=bool),
        "z=5": np.array([1, 0, 0, 0, 0, 0, 0], dtype=bool),  # passes only what the default passes
    }
    rows = {r[0]: r for r in study.ceiling_table(families, default, oracles, outcomes)}
    f, n, acc, gloss, sat, best, rescue = rows["a"]
    assert (n, acc, gloss, sat, best) == (5, 40.0, 60.0, 40.0, 100.0)
    # the default's failures each value passes, most first, three at most; none for z
    assert rescue == [("y=4", 3), ("w=2", 2), ("x=3", 2)]
    f, n, acc, gloss, sat, best, rescue = rows["b"]
    assert (n, acc, gloss, sat, best, rescue) == (2, 50.0, None, 100.0, 100.0, [("w=2", 1)])
    # the union keeps what the default passes even where no value does
    assert study.ceiling_table(families, default, oracles, {})[0][5] == 40.0


def test_the_truth_oracle_is_the_default_line_but_for_its_saturation(study, monkeypatch):
    """Given the saturation the default estimates, the oracle's steps are the default's, pixel for
    pixel: the same floor (none once a veil came off), the same clipped pixels kept on a matte
    surface, the same surfaces left alone (achromatic, no shading, too little shading range unless
    called glossy)."""
    from huebench.benchmarks.gencolor.families import make_image
    from huebench.benchmarks.gencolor.scoring import DIFFUSE_QUANTILE, MATTE_QUANTILE, ColorScorer
    from huebench.color import albedo_saturation, linear_to_srgb8, remove_specular, srgb8_to_linear

    rng = np.random.default_rng(3)
    inputs = {"family": "analytic", "color": "Red", "object": "sphere", "material": "glossy"}
    red = make_image({**inputs, "rgb": [200, 60, 40], "setup": "phong-broad", "step": "phong-broad"}, size=48)
    grey = make_image({**inputs, "rgb": [128, 128, 130], "setup": "phong-broad", "step": "phong-broad"}, size=48)
    matte = make_image({**inputs, "rgb": [200, 60, 40], "setup": "lambert", "step": "lambert"}, size=48)
    bright = make_image({**inputs, "rgb": [255, 150, 40], "setup": "phong-broad", "step": "phong-broad"}, size=48)
    ramp = np.linspace(0.88, 1.0, 400)[:, None] * np.array([220.0, 90.0, 60.0])  # shading, but a narrow range
    flat = np.clip(np.array([200.0, 60.0, 40.0]) + rng.normal(0, 1.5, (400, 3)), 0, 255)
    surfaces = {
        "red sphere": red.image[red.mask],
        "matte red sphere under a white floor": linear_to_srgb8(srgb8_to_linear(matte.image[matte.mask]) + 0.02),
        "orange sphere, red channel clipped": bright.image[bright.mask],
        "grey sphere": grey.image[grey.mask],
        "narrow ramp": np.round(ramp).astype(np.uint8),
        "flat patch": np.round(flat).astype(np.uint8),
    }
    default = ColorScorer("iscc-nbs-l2")
    oracle = study.StudyScorer("iscc-nbs-l2", truth=(1, 2, 3))
    reconstructed = floors = 0
    for name, px in surfaces.items():
        for veil in (None, 0.01):
            for glossy in (True, False):
                floored = px if veil is not None else remove_specular(px, method="fitted-floor")
                q = MATTE_QUANTILE if glossy is False else DIFFUSE_QUANTILE
                estimate = albedo_saturation(
                    floored,
                    quantile=q,
                    line_band=None if glossy is False else default.line_band,
                    flat_line=glossy is True,  # version 28: a glossy-called line on a narrow range too
                )
                monkeypatch.setattr(study, "saturation_of", lambda lin, e=estimate: e if e is not None else 1.0)
                want = default.specular_steps(px, veil, glossy)
                assert np.array_equal(oracle.specular_steps(px, veil, glossy), want), (name, veil, glossy)
                reconstructed += not np.array_equal(want, floored)
                floors += not np.array_equal(floored, px)
    assert reconstructed >= 12 and floors >= 2  # the spheres' lines moved their pixels; a floor came off
    assert (surfaces["orange sphere, red channel clipped"] >= 254).any(axis=1).sum() >= 20


def test_the_ceilings_oracles_answer_the_gloss_test_and_give_the_truths_saturation(study):
    from huebench.benchmarks.gencolor.families import make_image
    from huebench.color import srgb8_to_linear

    rgb = [200, 60, 40]
    inputs = {"family": "analytic", "color": "Red", "rgb": rgb, "object": "sphere", "setup": "phong-broad"}
    known = make_image({**inputs, "material": "glossy", "step": "phong-broad"}, size=48)
    for answer in (True, False):
        forced = study.StudyScorer("iscc-nbs-l2", glossy=answer)
        assert forced.score_image(known.image, "Red", mask=known.mask)[0].glossy is answer
        assert forced.config()["glossy"] is answer  # an oracle's scores never pass for the default's
    assert study.truth_of({"target": "Red", "rgb": rgb}) == (200, 60, 40)
    assert study.truth_of({"target": "#0A80FF", "rgb": rgb}) == (10, 128, 255)
    # the diffuse line puts every unclipped pixel at the truth's saturation, or at the saturation of
    # the truth balanced by the light the scorer read
    truth = (180, 90, 60)
    px = known.image[known.mask]
    oracle = study.StudyScorer("iscc-nbs-l2", truth=truth)
    for light in (None, np.array([1.0, 1.2, 1.5])):
        oracle._light = light
        out = srgb8_to_linear(oracle.specular_steps(px, veil=None, glossy=True))
        lit = out[out.mean(axis=1) > np.quantile(out.mean(axis=1), 0.5)]
        sat = np.linalg.norm(lit - lit.mean(axis=1, keepdims=True), axis=1) / lit.mean(axis=1)
        want = study.saturation_of(srgb8_to_linear(np.array(truth, dtype=np.uint8)) / (1.0 if light is None else light))
        assert np.median(sat) == pytest.approx(want, rel=0.02)
    with pytest.raises(HuebenchError, match="saturation oracle replaces the default's diffuse line"):
        study.StudyScorer("iscc-nbs-l2", truth=truth, specular="dichromatic")


def test_the_ceiling_runs_alone_and_knows_its_settings(study, monkeypatch, capsys):
    for argv, message in (
        (["--ceiling", "--paired", "x={}"], "--ceiling runs alone (--setting limits its values), not with --paired"),
        (["--ceiling", "--setting", "fresnell"], "unknown --setting fresnell; the settings: fresnel,"),
    ):
        monkeypatch.setattr("sys.argv", ["scorer_study.py", *argv])
        with pytest.raises(SystemExit) as stop:
            study.main()
        assert stop.value.code == 2 and message in capsys.readouterr().err


def test_the_version_16_flat_test_is_one_option_away(study):
    """``bands=False`` is the lit window's flat test of version 16 (the unclipped pixels' shading
    test alone): on a cel-shaded body it stands the window down and the shadow band darkens the
    colour, as version 16 did; by default the study's scorer is the package's, config and all."""
    from huebench.benchmarks.gencolor import families as fam
    from huebench.benchmarks.gencolor.scoring import ColorScorer
    from huebench.color import load_system

    sample = next(
        s
        for s in fam.family_samples("illustrated", list(load_system("iscc-nbs-l2")))
        if s["color"] == "Pink" and s["setup"] == "cel-white"
    )
    known = fam.make_image(sample, size=48)
    now = study.StudyScorer("iscc-nbs-l2").score_image(known.image, "Pink", mask=known.mask)[0]
    # version 16's rules: no calibration either
    older = study.StudyScorer("iscc-nbs-l2", bands=False, calibration=None).score_image(
        known.image, "Pink", mask=known.mask
    )[0]
    assert now.passed and not older.passed and older.dominant_lab[0] < now.dominant_lab[0] - 3
    assert study.StudyScorer("iscc-nbs-l2").config() == ColorScorer("iscc-nbs-l2").config()
    assert study.StudyScorer("iscc-nbs-l2", bands=False).config()["bands"] is False


def test_bench_scorer_change_times_one_pass_and_refuses_bad_options(monkeypatch, capsys):
    # perf/bench_scorer_change.py (docs/performance.md, version 20): one pass scores every image
    # of a set once; --against must name ColorScorer options, else a usage error (exit 2)
    bench = load_perf_script("bench_scorer_change")
    seen = []

    class Recorder:
        def score_image(self, img, target, mask=None):
            seen.append((img.shape, target, mask.sum()))

    img, mask = np.zeros((4, 4, 3), np.uint8), np.ones((4, 4), bool)
    assert bench.pass_seconds(Recorder(), ([{"target": "red"}, {"target": "blue"}], [img, img], [mask, mask])) >= 0
    assert [t for _, t, _ in seen] == ["red", "blue"]
    for bad in ('{"bogus": 1}', "[1"):
        monkeypatch.setattr("sys.argv", ["bench_scorer_change.py", "--against", bad])
        with pytest.raises(SystemExit) as e:
            bench.main()
        assert e.value.code == 2 and "--against must be a JSON object of ColorScorer options" in capsys.readouterr().err


def test_bench_scorer_change_runs_version_22s_floor_on_its_numpy_steps():
    # --numpy-floor: the against-scorer reads the darker floor as version 22 did (NumPy), the same
    # values as the kernel; the kernel is back after the block, also after an error in it
    from huebench.color import _kernels, reflectance

    bench = load_perf_script("bench_scorer_change")
    yy, xx = np.mgrid[:40, :40]
    mask = (yy - 20) ** 2 + (xx - 20) ** 2 < 15**2
    shade = np.clip(1.2 - np.hypot(yy - 14, xx - 14) / 25, 0.05, 1)[..., None]
    img = np.where(mask[..., None], shade * np.array([200, 60, 20]) + 8, 128).astype(np.uint8)
    kernel = _kernels.darker_floor
    want = reflectance.darker_floor(img, mask)
    with bench.numpy_floor():
        assert _kernels.darker_floor is not kernel and reflectance.darker_floor(img, mask) == want is not None
    assert _kernels.darker_floor is kernel
    with pytest.raises(RuntimeError), bench.numpy_floor():
        raise RuntimeError
    assert _kernels.darker_floor is kernel


def test_studies_leave_out_the_families_kept_unseen(study, monkeypatch):
    from huebench.benchmarks.gencolor.families import HELD_OUT_FAMILIES, UNSEEN_FAMILIES

    # product judged the offline segmentation's version 2 (2026-12-03); reflections and composited were
    # made after it, composited judged scorer version 26 and reflections version 27 (2026-12-04);
    # backdrops was made after version 26 and judged version 28; gels was made after version 28
    assert UNSEEN_FAMILIES == ("gels",) and set(UNSEEN_FAMILIES) <= set(HELD_OUT_FAMILIES)
    # every held-out family is measured (rendered … product judged a version each: spent)
    families = study.study_families()
    assert families[0] == "all" and not set(UNSEEN_FAMILIES) & set(families)
    assert {
        "product",
        "rendered",
        "graded",
        "looks",
        "finishes",
        "encodings",
        "filters",
        "optics",
        "bounce",
        "translucent",
        "composited",
        "reflections",
        "backdrops",
    } <= set(families)
    assert len(families) == 1 + len(HELD_OUT_FAMILIES) - len(UNSEEN_FAMILIES) == 20
    monkeypatch.setattr("huebench.benchmarks.gencolor.families.UNSEEN_FAMILIES", ("graded", "bounce"))
    assert "graded" not in study.study_families() and "rendered" in study.study_families()


def test_rules_only_studies_drop_the_calibration(study, monkeypatch):
    # --rules: every StudyScorer without the calibration (a rule studied on the rules, version 25)
    assert study.StudyScorer("css3").config()["calibration"] == "families-v25"
    monkeypatch.setitem(study.RULES_ONLY, "calibration", None)
    assert study.StudyScorer("css3").config()["calibration"] is None
    assert study.StudyScorer("css3", fresnel=0.06).config()["fresnel"] == 0.06
    # workers started afresh (spawn) read it from the environment
    monkeypatch.setenv(study.RULES_ENV, "1")
    assert load_perf_script("scorer_study").RULES_ONLY == {"calibration": None}
    monkeypatch.delenv(study.RULES_ENV)
    assert load_perf_script("scorer_study").RULES_ONLY == {}


def test_failure_modes_put_each_miss_in_one_class():
    modes = load_perf_script("failure_modes")
    grey = np.array([60.0, 1.0, 1.0])
    red = np.array([50.0, 40.0, 20.0])
    assert modes.failure_class(grey, np.array([60.0, 8.0, 0.0])) == "neutral read as a colour"
    assert modes.failure_class(grey, np.array([72.0, 2.0, 1.0])) == "neutral, lightness"
    assert modes.failure_class(red, red * [1.0, 0.8, 0.8]) == "too pale"  # C* 44.7 → 35.8
    assert modes.failure_class(red, red * [1.0, 1.2, 1.2]) == "too saturated"
    assert modes.failure_class(red, np.array([57.0, 40.0, 20.0])) == "lightness"
    assert modes.failure_class(red, np.array([50.0, 20.0, 40.0])) == "hue"  # same C*, hue turned
    assert modes.failure_class(red, red * [1.0, 0.9, 0.9], jnd=2.0) == "too pale"  # C* 44.7 → 40.2: below 2
    blue_green, blue_violet, green = (
        np.array([50.0, 30 * np.cos(np.radians(h)), 30 * np.sin(np.radians(h))]) for h in (170, -170, 100)
    )
    assert modes.toward(blue_green, blue_violet) and modes.toward(blue_violet, blue_green)  # 20° across 180°
    assert not modes.toward(blue_green, green)  # 70°
