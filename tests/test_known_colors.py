"""The known-colors benchmark: stimuli, the render cache, metrics, and runs end to end with the random
reference model, a scripted oracle and tiny random CLIP, BLIP-ITM and LLaVA models."""

import json

import numpy as np
import pytest

from huebench.benchmarks.known_colors import stimuli
from huebench.benchmarks.known_colors.answers import spoken
from huebench.benchmarks.known_colors.benchmark import KnownColors
from huebench.benchmarks.known_colors.cache import RenderCache
from huebench.benchmarks.known_colors.metrics import boundaries_metrics, system_boundaries
from huebench.color import delta_e, lab_to_srgb, lch_to_lab, linear_to_srgb8, load_system, srgb8_to_linear
from huebench.color.conversions import RGB_TO_XYZ, linear_rgb_to_xyz, xyz_to_lab
from huebench.errors import HuebenchError
from huebench.models.base import Capability, Model
from huebench.runs.runner import evaluate, rescore

pytest.importorskip("mitsuba")

#: small, fast runs: 24 px, 4 samples per pixel, one diffuse and one glossy shape, 24 sweep hues
SMALL = {"quick": True, "objects": "sphere,glossy-sphere", "size": 24, "spp": 4, "hues": 24}


@pytest.fixture(scope="module")
def render_cache(tmp_path_factory):
    """One render cache for the module: the first run renders, every later run re-uses its renders."""
    mp = pytest.MonkeyPatch()
    folder = tmp_path_factory.mktemp("renders")
    mp.setenv("HUEBENCH_RENDER_CACHE", str(folder))
    yield folder
    mp.undo()


@pytest.fixture(scope="module")
def random_run(render_cache, tmp_path_factory):
    out = tmp_path_factory.mktemp("kc") / "random"
    return evaluate("known-colors", "reference:random", out=out, no_cache=True, progress=False, **SMALL)


# --- stimuli ---------------------------------------------------------------------------------------


def _daylight_xy(cct: float) -> tuple[float, float]:
    """CIE 15: the chromaticity of the CIE daylight illuminant at ``cct`` kelvin (7,000–25,000 K)."""
    x = -2.0064e9 / cct**3 + 1.9018e6 / cct**2 + 0.24748e3 / cct + 0.23704
    return x, -3.0 * x * x + 2.87 * x - 0.275


def test_lights_are_cie_chromaticities_at_luminance_one():
    from huebench.color.conversions import XYZ_TO_RGB

    xy = {
        "D65": (0.3127, 0.3290),  # sRGB's white, as the colour core defines it
        "A": (0.44757, 0.40745),  # CIE standard illuminant A (2856 K), CIE 15
        "10000K": _daylight_xy(10000.0),
        "green": (0.31, 0.36),  # D65 moved towards green
    }
    for name, (x, y) in xy.items():
        rgb = XYZ_TO_RGB @ np.array([x / y, 1.0, (1 - x - y) / y])
        rgb /= RGB_TO_XYZ[1] @ rgb
        # within 1 %: the stored colours were made with colour-science's sRGB matrices, which differ
        # from the colour core's in the fourth decimal
        assert np.allclose(stimuli.LIGHTS[name], rgb, atol=0.01), name
        assert float(np.asarray(stimuli.LIGHTS[name]) @ RGB_TO_XYZ[1]) == pytest.approx(1.0, abs=0.01)


def test_sweep_levels_stay_in_gamut_and_at_their_lightness_and_chroma():
    for lightness, chroma in stimuli.LEVELS:
        hues = np.arange(0.0, 360.0, 0.25)
        srgb = lab_to_srgb(lch_to_lab(np.stack([np.full_like(hues, lightness), np.full_like(hues, chroma), hues], -1)))
        assert srgb.min() >= 0.0 and srgb.max() <= 1.0, (lightness, chroma)
        # one unit more chroma leaves the gamut somewhere: each level's C* is its largest whole one
        wider = lab_to_srgb(
            lch_to_lab(np.stack([np.full(360, lightness), np.full(360, chroma + 1), np.arange(360.0)], -1))
        )
        assert wider.min() < 0.0 or wider.max() > 1.0
    with pytest.raises(HuebenchError, match="outside the sRGB gamut"):
        stimuli.sweep_rgb(70.0, 80.0, 270.0)


def test_chromatic_surrounds_have_the_grey_surrounds_luminance():
    grey = stimuli.SURROUNDS["gray"]
    for name in stimuli.CHROMATIC_SURROUNDS:
        lum = float(np.asarray(stimuli.SURROUNDS[name]) @ RGB_TO_XYZ[1])
        assert lum == pytest.approx(grey[0], abs=1e-6), name
        lab = xyz_to_lab(linear_rgb_to_xyz(np.asarray(stimuli.SURROUNDS[name])))
        assert np.hypot(lab[1], lab[2]) == pytest.approx(stimuli.SURROUND_CHROMA, abs=1e-4)


def test_flat_picture_and_shown_colour_under_a_light():
    inputs = {"kind": "flat", "object": "patch", "rgb": [200, 60, 40], "background": "gray", "light": "A"}
    raw = stimuli.make_picture({**inputs, "white_balance": False, "size": 16}, RenderCache(None))
    assert raw.mask.sum() == 64 and raw.mask[4:12, 4:12].all()  # the centre half of the side
    light = np.asarray(stimuli.LIGHTS["A"])
    # a flat patch shows exactly albedo × light, and its surround the surround's albedo × light
    albedo = srgb8_to_linear(np.array([200, 60, 40], np.uint8))
    assert tuple(raw.image[8, 8]) == tuple(linear_to_srgb8(albedo * light))
    assert tuple(raw.image[0, 0]) == tuple(linear_to_srgb8(np.asarray(stimuli.SURROUNDS["gray"]) * light))
    assert raw.shown == tuple(int(v) for v in raw.image[8, 8]) and raw.gains == (1.0, 1.0, 1.0)
    bal = stimuli.make_picture({**inputs, "white_balance": True, "size": 16}, RenderCache(None))
    # grey world: the image's mean becomes neutral
    mean = srgb8_to_linear(bal.image).reshape(-1, 3).mean(axis=0)
    assert np.ptp(mean) / mean.mean() < 0.02
    assert bal.shown == tuple(int(v) for v in bal.image[8, 8])


def test_render_radiance_takes_the_lights_colour_and_render_is_unchanged():
    from huebench.benchmarks.gencolor.render import RenderSpec, render, render_radiance

    spec = RenderSpec("sphere", (180, 60, 40), size=16, spp=2, seed=3)
    white, mask = render_radiance(spec)
    tinted, _ = render_radiance(spec, light=stimuli.LIGHTS["A"])
    # an RGB renderer: a light of colour L multiplies every channel by L (inter-reflections too)
    assert np.allclose(tinted, white * np.asarray(stimuli.LIGHTS["A"]), atol=1e-5)
    image, mask2 = render(spec)
    assert (image == linear_to_srgb8(white)).all() and (mask == mask2).all()
    backdrop, _ = render_radiance(spec, backdrop=stimuli.SURROUNDS["blue"])
    corner = backdrop[0, 0]
    assert corner[2] > corner[0] * 2  # the backdrop is blue now, the object's exposure unchanged


def test_render_cache_stores_by_parameters(tmp_path):
    cache = RenderCache(tmp_path / "rc")
    made = []

    def make():
        made.append(1)
        return {"image": np.zeros((2, 2, 3), np.uint8), "balanced": np.ones((2, 2, 3), np.uint8),
                "mask": np.eye(2, dtype=bool), "gains": np.array([1.0, 2.0, 3.0])}  # fmt: skip

    a = cache.get({"object": "sphere", "rgb": [1, 2, 3]}, make)
    b = cache.get({"object": "sphere", "rgb": [1, 2, 3]}, make)
    cache.get({"object": "sphere", "rgb": [1, 2, 4]}, make)
    assert len(made) == 2 and cache.renders == 2 and cache.hits == 1
    assert all((a[k] == b[k]).all() for k in a) and b["mask"].dtype == bool
    # a damaged entry is made again
    path = cache.path({"object": "sphere", "rgb": [1, 2, 3]})
    path.write_bytes(b"not a zip")
    cache.get({"object": "sphere", "rgb": [1, 2, 3]}, make)
    assert len(made) == 3


def test_bad_options_are_one_line_errors():
    with pytest.raises(HuebenchError, match=r"unknown --system 'css'.*Did you mean 'css3'"):
        KnownColors(system="css")
    with pytest.raises(HuebenchError, match=r"unknown probe 'nameing'.*Did you mean 'naming'"):
        KnownColors(probes="nameing,contrast")
    with pytest.raises(HuebenchError, match=r"unknown object 'sphre'.*Did you mean 'sphere'"):
        KnownColors(objects="sphre")
    with pytest.raises(HuebenchError, match="--hues must be 12 to 360"):
        KnownColors(hues=6)
    with pytest.raises(HuebenchError, match="unknown option 'hue'"):
        KnownColors.check_options({"hue": 12})


def test_samples_cover_the_probes():
    b = KnownColors(system="basic")
    samples = b.samples()
    by_probe = {}
    for s in samples:
        by_probe.setdefault(s.inputs["probe"], []).append(s)
    # naming: 11 colours × (15 shapes + a flat patch); constancy: 11 × 4 shapes × 4 lights × 2 cameras;
    # contrast: 11 × (patch + 2 shapes) × 7 surrounds; boundaries: 72 hues × 3 levels × (patch + 2 shapes);
    # recolored: 11 × (patch + 2 shapes) × 3 hue turns
    assert {p: len(v) for p, v in by_probe.items()} == {
        "naming": 176,
        "constancy": 352,
        "contrast": 231,
        "boundaries": 648,
        "recolored": 99,
    }
    turned = next(s for s in by_probe["recolored"] if s.id == "recolored/sphere/blue/h180")
    assert turned.inputs["rgb"] == list(load_system("basic").get("blue").rgb) and turned.inputs["hue_shift"] == 180
    assert turned.inputs["color"] == "yellow"  # blue's hue turned half-way round, at blue's lightness: a dark yellow
    shapes = {s.inputs["object"] for s in by_probe["naming"]} - {"patch"}
    assert len(shapes) >= 10 and {s.inputs["material"] for s in by_probe["naming"]} == {"diffuse", "glossy", "flat"}
    constancy = {s.inputs["object"] for s in by_probe["constancy"]}
    assert {stimuli.material(o) for o in constancy} == {"diffuse", "glossy"}
    # one albedo and shape render with one seed under every light: only the light differs
    seeds = {(s.inputs["color"], s.inputs["object"]): set() for s in by_probe["constancy"]}
    for s in by_probe["constancy"]:
        seeds[(s.inputs["color"], s.inputs["object"])].add(s.inputs["render_seed"])
    assert all(len(v) == 1 for v in seeds.values())
    css = KnownColors(system="css3", quick=True, probes="contrast")
    assert len({s.inputs["color"] for s in css.samples()}) == 30 and len(css.names) == 138  # aliases are one name


def test_system_boundaries_of_the_basic_system():
    basic = load_system("basic")
    bounds = system_boundaries(basic, basic.names, 55.0, 31.0)
    pairs = [(b["from"], b["to"]) for b in bounds]
    # the nearest-centroid wheel at L* 55, C* 31 (cross-checked on a 5° grid when the levels were chosen)
    assert pairs == [("pink", "orange"), ("orange", "yellow"), ("yellow", "green"), ("green", "blue"),
                     ("blue", "purple"), ("purple", "pink")]  # fmt: skip
    for b in bounds:  # either side of a boundary, the nearest centroid is the one it names
        for side, name in ((-0.2, b["from"]), (0.2, b["to"])):
            lab = lch_to_lab(np.array([55.0, 31.0, (b["hue"] + side) % 360]))
            assert basic.names[int(np.argmin(delta_e(basic.lab, lab)))] == name


def test_boundaries_metrics_of_a_namer_that_is_the_system_shifted_by_ten_degrees():
    """A model naming every sweep colour as the system names the colour 10° further round the hue
    circle has its boundaries 10° before the system's."""
    basic = load_system("basic")
    names = basic.names
    records = []
    for h in np.arange(0, 360, 5.0):
        lab = lch_to_lab(np.array([55.0, 31.0, (h + 10) % 360]))
        named = names[int(np.argmin(delta_e(basic.lab, lab)))]
        records.append(
            {"probe": "boundaries", "lightness": 55.0, "chroma": 31.0, "hue": float(h), "capability": "image-text-score",
             "choice": {"scores": [10.0 if n == named else 0.0 for n in names], "named": named}, "system_name": named}
        )  # fmt: skip
    m = boundaries_metrics(records, "choice", basic, names, seed=0)
    assert m["matched"] == m["system_boundaries"] == 6 and m["model_boundaries"] == 6
    # 10° shift, measured at the sweep's 5° resolution from the system's 0.1° grid: 10 ± 2.5°
    assert all(7.5 <= mt["distance"] <= 12.5 for lv in m["levels"] for mt in lv["matched"])
    curves = m["levels"][0]["curves"]
    assert set(curves) >= {"pink", "orange", "yellow", "green", "blue", "purple"}
    assert all(abs(sum(curves[n][i] for n in curves) - 1.0) < 1e-3 for i in range(72))


# --- runs end to end -------------------------------------------------------------------------------


def test_random_reference_model_scores_at_chance(random_run):
    m = random_run.results["metrics"]["choice"]
    chance = 1 / 11
    acc = m["naming"]["accuracy"]
    assert acc["n"] == 33 and acc["low"] <= chance <= acc["high"]
    de = m["naming"]["delta_e"]
    assert de["low"] <= m["naming"]["chance_delta_e"] <= de["high"]
    for camera in ("unbalanced", "balanced"):
        idx = m["constancy"]["index"][camera]
        assert idx["n"] == 22 and idx["low"] <= chance <= idx["high"]
    agree = m["boundaries"]["agreement"]
    assert agree["n"] == 24 * 3 * 2 and agree["low"] <= chance <= agree["high"]
    assert set(m["contrast"]["by_background"]) == set(stimuli.SURROUNDS) - {"gray"}
    turned = m["recolored"]["accuracy"]
    assert turned["n"] == 11 * 2 * 3 and turned["low"] <= chance <= turned["high"]
    assert set(m["recolored"]["by_shift"]) == {"90", "180", "270"}
    assert all(by["edit_delta_l"] < 0.5 < by["edit_delta_e"] for by in m["recolored"]["by_shift"].values())
    assert random_run.results["n_failed"] == 0


def test_records_carry_render_parameters_truth_and_answers(random_run):
    recs = {r["id"]: r for r in random_run.records}
    r = recs["constancy/sphere/orange/A/unbalanced"]
    for key in ("object", "material", "rgb", "lab", "lighting", "background", "light", "white_balance", "size", "spp",
                "render_seed", "shown_rgb", "shown_name", "light_name", "gains", "reason"):  # fmt: skip
        assert key in r, key
    assert r["rgb"] == list(load_system("basic").get("orange").rgb)
    assert np.allclose(r["lab"], load_system("basic").get("orange").lab, atol=1e-3)
    c = r["choice"]
    assert len(c["scores"]) == 11 and c["named"] == load_system("basic").names[int(np.argmax(c["scores"]))]
    assert c["delta_e"] == pytest.approx(float(delta_e(np.asarray(c["named_lab"]), np.asarray(r["lab"]))), abs=1e-3)
    # under A without white balance an orange albedo shows a redder, stronger orange; the light is orange
    assert r["shown_rgb"][0] >= r["rgb"][0] and r["shown_rgb"][2] < r["rgb"][2] and r["light_name"] == "orange"
    assert recs["constancy/sphere/orange/D65/unbalanced"]["shown_rgb"] == r["rgb"]


def test_every_command_summary_prints_the_headline_metrics(random_run, capsys):
    from huebench.cli.runs import print_summary

    print_summary(random_run.results, random_run.run_dir, random_run.records, report=None)
    out = capsys.readouterr().out
    lines = [line.strip() for line in out.splitlines()]
    acc = random_run.results["metrics"]["choice"]["naming"]["accuracy"]
    expected = (
        f"choice/naming/accuracy: {100 * acc['value']:.1f} %  95% CI [{100 * acc['low']:.1f}, {100 * acc['high']:.1f}]"
    )
    assert any(line.startswith(expected) for line in lines), out
    for path in ("choice/naming/delta_e", "choice/constancy/index/balanced", "choice/boundaries/distance",
                 "choice/recolored/robust"):  # fmt: skip
        assert any(line.startswith(path + ": ") for line in lines), path
    assert not any(line.startswith("open/") for line in lines)  # no VLM: no open answers


def test_rescore_reproduces_the_results(random_run):
    assert rescore(random_run.run_dir)["metrics"] == random_run.results["metrics"]


def test_a_second_models_run_renders_nothing(random_run, render_cache, tmp_path, monkeypatch):
    def no_rendering(*args, **kwargs):
        raise AssertionError("rendered although every render is cached")

    monkeypatch.setattr(stimuli, "render_radiance", no_rendering)
    other = evaluate("known-colors", "reference:random:7", out=tmp_path / "r7", no_cache=True, progress=False, **SMALL)
    assert other.results["n"] == random_run.results["n"] and other.results["n_failed"] == 0
    # the same images: the cached pictures are the renders the first run made
    first = {r["id"]: r for r in random_run.records if "thumbnail" in r}
    assert all(first[r["id"]]["thumbnail"] == r["thumbnail"] for r in other.records if r["id"] in first)


class Oracle(Model):
    """Reads the object's albedo from the image and scores each caption by −ΔE00 to its colour: it
    balances the image on its surround (the top rows), keeps the centre's pixels that differ from the
    surround, and takes the median of their lit part (luminance between the 60th and 90th
    percentiles: the grey-card exposure puts lit parts at the albedo)."""

    family = "test-oracle"
    capabilities = frozenset({Capability.IMAGE_TEXT_SCORE})

    def __init__(self, system: str):
        super().__init__("test:oracle")
        self.system = load_system(system)

    def fingerprint_parts(self):
        return {**super().fingerprint_parts(), "system": self.system.name}

    def _caption_lab(self, text: str) -> np.ndarray:
        padded = f" {text} "
        found = max((c for c in self.system if f" {spoken(c.name)} " in padded), key=lambda c: len(c.name))
        return found.lab

    @staticmethod
    def estimate(image: np.ndarray) -> np.ndarray:
        lin = srgb8_to_linear(np.asarray(image))
        h, w = lin.shape[:2]
        surround = np.median(lin[: max(1, h // 8)].reshape(-1, 3), axis=0)
        gains = float(surround @ RGB_TO_XYZ[1]) / np.maximum(surround, 1e-6)
        box = (lin * gains)[int(h * 0.3) : int(h * 0.7), int(w * 0.3) : int(w * 0.7)].reshape(-1, 3)
        lab = xyz_to_lab(linear_rgb_to_xyz(box))
        far = np.linalg.norm(lab - xyz_to_lab(linear_rgb_to_xyz(surround * gains)), axis=1) > 10
        px = box[far] if far.sum() >= 0.05 * len(box) else box
        y = px @ RGB_TO_XYZ[1]
        lo, hi = np.quantile(y, [0.6, 0.9])
        lit = px[(y >= lo) & (y <= hi)]
        return xyz_to_lab(linear_rgb_to_xyz(np.median(lit if len(lit) else px, axis=0)))

    def score(self, images, texts):
        labs = np.stack([self._caption_lab(t) for t in texts])
        return np.stack([-delta_e(labs, self.estimate(np.asarray(im))[None, :]) for im in images])


def test_oracle_names_at_least_95_percent_and_is_constant_on_white_balanced_renders(random_run, tmp_path):
    run = evaluate("known-colors", Oracle("basic"), out=tmp_path / "oracle", no_cache=True, progress=False, **SMALL)
    m = run.results["metrics"]["choice"]
    assert m["naming"]["accuracy"]["value"] >= 0.95
    assert m["constancy"]["index"]["balanced"]["value"] == 1.0
    assert m["constancy"]["index"]["unbalanced"]["value"] == 1.0  # it balances on the grey surround itself
    assert m["constancy"]["light_color_rate"]["unbalanced"]["value"] == 0.0
    # objects recoloured in CIELCh keep their shading, so the oracle names the turned albedo too
    assert m["recolored"]["accuracy"]["value"] >= 0.9 and m["recolored"]["as_rendered"]["value"] == 1.0
    assert m["recolored"]["robust"]["value"] >= 0.85
    # balancing on the surround is a von Kries adaptation to it: colours move away from a coloured
    # surround's hue, the sign people show (toward < 0)
    for bg in stimuli.CHROMATIC_SURROUNDS:
        assert m["contrast"]["by_background"][bg]["soft_toward_surround"]["value"] < 0, bg
    bd = m["boundaries"]
    assert bd["agreement"]["value"] >= 0.9
    assert bd["distance"]["value"] <= 360 / 24 / 2 + 1  # within half a sweep step (+1°)
    step = 360 / 24
    for level in bd["levels"]:
        hues = [b["hue"] for b in level["system"]]
        widths = {b["to"]: (hues[(i + 1) % len(hues)] - b["hue"]) % 360 for i, b in enumerate(level["system"])}
        for mt in level["matched"]:  # a boundary is missed only beside a category that few sweep hues fall in
            if mt["distance"] is None:
                assert min(widths[n] for n in mt["pair"].split(" | ")) < 2 * step, mt
    html = (run.run_dir / "report.html").read_text()
    assert 'class="curves"' in html and 'class="swatchgrid"' in html and "constancy index" in html


@pytest.mark.parametrize(("family", "capability"), [("clip", "image-text-score"), ("blip", "itm"), ("llava", "vlm")])
def test_tiny_random_models_run_end_to_end_at_chance(family, capability, tiny, render_cache, random_run, tmp_path):
    from huebench.models.registry import load_model

    model = load_model(f"hf:{tiny(family)}", batch_size=64)
    options = {**SMALL, "probes": "naming", "objects": "sphere", "max_new_tokens": 4}
    limit = 22 if family == "clip" else 11  # every naming sample for the fastest model, half for the others
    run = evaluate("known-colors", model, out=tmp_path / family, no_cache=True, progress=False, limit=limit, **options)
    assert run.results["n"] == limit and run.results["n_failed"] == 0
    cfg = json.loads((run.run_dir / "config.json").read_text())
    assert cfg["capability"] == capability
    m = run.results["metrics"]
    acc = m["choice"]["naming"]["accuracy"]
    assert acc["low"] <= 1 / 11 <= acc["high"]
    if family == "llava":
        assert m["methods"] == ["choice", "open"]
        assert all(isinstance(r["open"]["answer"], str) and "why" in r["open"] for r in run.records)
        assert "open answer" in (run.run_dir / "report.html").read_text()


def test_report_figures_escape_their_data():
    from huebench.report.svg import curves_svg, swatch_grid_svg

    evil = "<script>alert(1)</script>"
    svg = curves_svg([0.0, 180.0], {evil: [0.2, 0.8]}, {evil: "url(http://x)"}, strip=["#ff0000", "red"],
                     marks=[(90.0, evil, True)])  # fmt: skip
    assert "<script>" not in svg and "&lt;script&gt;" in svg and "url(" not in svg
    assert 'fill="#dddddd"' in svg  # a strip colour that is no '#rrggbb' code is not written
    grid = swatch_grid_svg(
        [evil], ["a"], [[{"inner": "#102030", "outer": "javascript:x", "named": None, "title": evil}]]
    )
    assert "<script>" not in grid and "javascript" not in grid and "none" in grid


def test_a_namer_with_one_name_is_constant_but_rarely_right():
    from huebench.benchmarks.known_colors.metrics import constancy_metrics

    names = load_system("basic").names
    records = [
        {"probe": "constancy", "color": c, "object": "sphere", "light": light, "white_balance": False,
         "light_name": "orange", "shown_name": c, "choice": {"named": "yellow", "correct": c == "yellow"}}
        for c in names for light in stimuli.LIGHTS
    ]  # fmt: skip
    m = constancy_metrics(records, "choice", names, "D65", seed=0)
    assert m["index"]["unbalanced"]["value"] == 1.0 and m["index"]["unbalanced"]["n"] == 11
    assert m["index_when_right"]["unbalanced"] == {"value": 1.0, "low": 1.0, "high": 1.0, "n": 1}  # yellow only
    assert m["accuracy"]["unbalanced"]["A"] == pytest.approx(1 / 11)
    assert m["light_color_rate"]["unbalanced"]["value"] == 0.0  # never orange


def test_an_unusable_render_cache_stops_the_run_in_one_line(cli, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("HUEBENCH_RENDER_CACHE", str(blocker / "renders"))
    out = tmp_path / "run"
    code, _, err = cli(
        "run", "known-colors", "-m", "random", "--probes", "naming", "--out", out, "--no-cache", "--no-progress"
    )
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "render cache" in err and "Not a directory" in err and "HUEBENCH_RENDER_CACHE=off" in err
    assert not out.exists()  # nothing was started
