"""GenColorBench generation, image store, per-image pipeline, task rules and analyses."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from huebench.benchmarks.gencolor.analysis import analyses, modifier_groups
from huebench.benchmarks.gencolor.pipeline import (
    ImageEvidence,
    JudgeStage,
    ObjectEvidence,
    ObjectMask,
    ObjectMasker,
    decide,
    rle_decode,
    rle_encode,
    score_stage,
    user_mask_path,
)
from huebench.benchmarks.gencolor.prompts import build_suite
from huebench.benchmarks.gencolor.scoring import ColorScorer
from huebench.benchmarks.gencolor.store import ImageStore, image_seed
from huebench.color import load_system
from huebench.errors import HuebenchError
from huebench.models.base import Capability, DetectionBox, Model
from huebench.runs.cache import OutputCache
from huebench.runs.context import RunContext
from huebench.runs.runner import RunOptions, evaluate, run


def _write_prompts(path: Path, recs) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return path


def _one_per_task(seed: int = 0):
    recs = build_suite("mini", seed=seed)
    return [next(r for r in recs if r["task"] == t) for t in ("cna", "ncu", "coa", "moc", "ica")]


# -- masks --------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.integers(0, 2**31 - 1))
def test_rle_round_trip(h, w, seed):
    m = np.random.default_rng(seed).random((h, w)) > 0.5
    rle = rle_encode(m)
    assert sum(rle["runs"]) == h * w
    assert np.array_equal(rle_decode(json.loads(json.dumps(rle))), m)


class _ScriptedDetector(Model):
    """A fixed detector/segmenter for the mask-arithmetic unit test (the real GroundingDINO/OWLv2
    and SAM adapters run in the integration tests below)."""

    capabilities: ClassVar = frozenset({Capability.DETECTION, Capability.SEGMENTATION})

    def __init__(self, boxes: dict[str, tuple], masks: dict[tuple, np.ndarray]):
        super().__init__("scripted:detector")
        self.boxes, self.masks, self.calls = boxes, masks, 0

    def detect(self, image, labels, *, threshold=0.3):
        self.calls += 1
        return [DetectionBox(lb, 0.9, self.boxes[lb]) for lb in labels if lb in self.boxes]

    def segment(self, image, boxes):
        self.calls += 1
        return [self.masks[tuple(b)] for b in boxes]


def test_negative_part_masks_are_removed_from_the_object():
    img = np.zeros((40, 40, 3), np.uint8)
    car = np.zeros((40, 40), bool)
    car[5:35, 5:35] = True
    wheel = np.zeros((40, 40), bool)
    wheel[25:35, 5:15] = True  # inside the car: removed
    sign = np.zeros((40, 40), bool)
    sign[0:8, 30:40] = True  # mostly outside the car: kept out of the subtraction
    boxes = {"car": (5.0, 5.0, 35.0, 35.0), "wheel": (5.0, 25.0, 15.0, 35.0), "sign": (30.0, 0.0, 40.0, 8.0)}
    masks = {boxes["car"]: car, boxes["wheel"]: wheel, boxes["sign"]: sign}
    det = _ScriptedDetector(boxes, masks)
    ctx = RunContext(det, OutputCache(None))
    masker = ObjectMasker(ctx, detector=det, segmenter=det)
    om = masker.mask(img, "p", 0, {"name": "car", "negative_labels": ["wheel", "sign", "mirror"]}, single=True)
    assert om.source == "detector+sam" and om.negatives_removed == ["wheel"]
    # the opening of the clean-up only rounds the concave corner the wheel leaves
    assert car.sum() - wheel.sum() - 10 <= om.mask.sum() <= car.sum() - wheel.sum()
    assert not om.mask[25:35, 5:15].any() and om.mask[10, 10]
    calls = det.calls
    masker.mask(img, "p", 0, {"name": "car", "negative_labels": ["wheel", "sign", "mirror"]}, single=True)
    assert det.calls == calls  # detector and SAM outputs come from the cache the second time
    assert ctx.cache_hits == 3


def test_without_a_detector_only_single_object_prompts_are_judged():
    masker = ObjectMasker(lambda *a, **k: [])
    img = np.full((32, 32, 3), 255, np.uint8)
    img[8:24, 8:24] = (200, 30, 30)
    om = masker.mask(img, "p", 0, {"name": "apple"}, single=True)
    assert om.source == "offline" and om.mask.sum() > 150
    om = masker.mask(img, "p", 0, {"name": "apple"}, single=False)
    assert om.mask is None and "needs --detector" in om.reason
    with pytest.raises(ValueError, match="come together"):
        ObjectMasker(lambda *a, **k: [], detector=_ScriptedDetector({}, {}))
    # config.json records the offline segmentation beside the scorer where it may make the masks
    from huebench.benchmarks.gencolor.benchmark import GenColorBench
    from huebench.benchmarks.gencolor.scoring import OFFLINE_SEGMENTATION

    offline = GenColorBench(images="imgs").resolved_options()["scorer_config"]
    assert offline["offline_segmentation"] == OFFLINE_SEGMENTATION and offline["version"] == 28
    detected = GenColorBench(images="imgs", detector="hf:d", segmenter="hf:s").resolved_options()
    assert "offline_segmentation" not in detected["scorer_config"]


# -- task rules on synthetic images ---------------------------------------------------------------


def _synthetic(colors: list[tuple[int, int, int]], background=(245, 245, 245)):
    """An image with one flat square per colour, and its masks."""
    img = np.full((48, 48 * len(colors), 3), background, np.uint8)
    masks = []
    for k, c in enumerate(colors):
        img[8:40, 48 * k + 8 : 48 * k + 40] = c
        m = np.zeros(img.shape[:2], bool)
        m[8:40, 48 * k + 8 : 48 * k + 40] = True
        masks.append(m)
    return img, masks


def _prompt(task, colour_names, objects, system="iscc-nbs-l2"):
    sysm = load_system(system)
    return {
        "id": "p1",
        "task": task,
        "system": system,
        "prompt": "synthetic",
        "colors": [{"name": n, "srgb": list(sysm.get(n).rgb)} for n in colour_names],
        "objects": objects,
    }


def _save_user_masks(masks_dir: Path, prompt, masks, index: int = 0) -> None:
    """One mask per object of the prompt, where the pipeline looks for user masks."""
    for o, m in zip(prompt["objects"], masks, strict=True):
        path = user_mask_path(masks_dir, prompt["id"], index, o["name"])
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(m.astype(np.uint8) * 255).save(path)


def _score_without_models(out: Path, **options):
    """``gencolorbench`` scoring with no model (no VQA, no detector), nothing cached."""
    return run(
        RunOptions(
            benchmark="gencolorbench",
            model="reference:none",
            out=out,
            no_cache=True,
            progress=False,
            benchmark_options=options,
        )
    )


def _judge(tmp_path, prompt, img, masks):
    _save_user_masks(tmp_path / "masks", prompt, masks)
    evidence = JudgeStage(lambda *a, **k: [], masks_dir=tmp_path / "masks").evidence(img, prompt, 0)
    scored = score_stage(img, prompt, evidence, ColorScorer(prompt["system"]))
    assert all(o.get("mask_source") == "user" for o in scored.objects)
    return (scored.correct, scored.reason), scored.objects


def test_task_rules_on_synthetic_images(tmp_path):
    l2 = load_system("iscc-nbs-l2")
    red, blue, green = (l2.get(n).rgb for n in ("Red", "Blue", "Green"))
    T = {"role": "target"}

    # CNA: the object's colour decides
    p = _prompt("cna", ["Red"], [{"name": "apple", **T, "color": 0}])
    (ok, _), objs = _judge(tmp_path, p, *_synthetic([red]))
    assert ok is True and objs[0]["score"]["pass"]
    (ok, why), _ = _judge(tmp_path, p, *_synthetic([blue]))
    assert ok is False and "apple" in why

    # COA: right colour but the context took it too → leakage
    p = _prompt("coa", ["Red"], [{"name": "car", **T, "color": 0}, {"name": "wall", "role": "context", "color": None}])
    (ok, why), _ = _judge(tmp_path, p, *_synthetic([red, red]))
    assert ok is False and "leaked" in why
    (ok, why), _ = _judge(tmp_path, p, *_synthetic([red, blue]))
    assert ok is True and "no leakage" in why

    # MOC: every object its own colour
    p = _prompt("moc", ["Red", "Blue"], [{"name": "cup", **T, "color": 0}, {"name": "plate", **T, "color": 1}])
    assert _judge(tmp_path, p, *_synthetic([red, blue]))[0][0] is True
    (ok, why), _ = _judge(tmp_path, p, *_synthetic([red, green]))
    assert ok is False and why.startswith("plate")

    # ICA: the partner must share the target's colour
    p = _prompt("ica", ["Blue"], [{"name": "dog", **T, "color": 0}, {"name": "cat", "role": "partner", "color": 0}])
    assert _judge(tmp_path, p, *_synthetic([blue, blue]))[0][0] is True
    assert _judge(tmp_path, p, *_synthetic([blue, red]))[0][0] is False


# -- the judge and score stages ------------------------------------------------------------------


class _ScriptedVQA(Model):
    """P(yes) per object name, for the presence questions; counts the calls."""

    capabilities: ClassVar = frozenset({Capability.VLM})

    def __init__(self, p_yes: dict[str, float]):
        super().__init__("scripted:vqa")
        self.p_yes, self.calls = p_yes, 0

    def yes_probability(self, queries):
        self.calls += 1
        text = [" ".join(p for p in q.parts if isinstance(p, str)) for q in queries]
        return [next(p for name, p in self.p_yes.items() if f" {name} " in t) for t in text]


def _three_objects():
    """A MOC prompt (a red car, a blue cup and a cat the VQA says is not there) plus a COA-style
    context, its image and masks, and a detector that finds each by name."""
    l2 = load_system("iscc-nbs-l2")
    red, blue = l2.get("Red").rgb, l2.get("Blue").rgb
    img, masks = _synthetic([red, blue, (128, 128, 128), (90, 90, 90)])
    objects = [
        {"name": "car", "role": "target", "color": 0},
        {"name": "cup", "role": "target", "color": 1},
        {"name": "cat", "role": "target", "color": 0},
        {"name": "wall", "role": "context", "color": None},
    ]
    boxes = {o["name"]: (48.0 * k + 8, 8.0, 48.0 * k + 40, 40.0) for k, o in enumerate(objects)}
    det = _ScriptedDetector(boxes, {boxes[o["name"]]: m for o, m in zip(objects, masks, strict=True)})
    vqa = _ScriptedVQA({"car": 0.9, "cup": 0.8, "cat": 0.1})
    return _prompt("moc", ["Red", "Blue"], objects), img, det, vqa


def _same_evidence(a: ImageEvidence, b: ImageEvidence) -> bool:
    def same_mask(x: ObjectMask | None, y: ObjectMask | None) -> bool:
        if x is None or y is None:
            return x is y
        fields = (x.source, x.reason, x.detection, x.negatives_removed)
        return fields == (y.source, y.reason, y.detection, y.negatives_removed) and np.array_equal(x.mask, y.mask)

    return (a.presence_checked, a.mask_method) == (b.presence_checked, b.mask_method) and all(
        x.p_yes == y.p_yes and same_mask(x.mask, y.mask) for x, y in zip(a.objects, b.objects, strict=True)
    )


def test_judge_stage_evidence_is_cached():
    """The judge stage asks every model through the run context: judging the image again (a re-run,
    or a re-score with another scorer) makes no model call and finds the same evidence."""
    prompt, img, det, vqa = _three_objects()
    cache = OutputCache(None)
    first = RunContext(det, cache)
    evidence = JudgeStage(first, vqa=vqa, detector=det, segmenter=det).evidence(img, prompt, 0)
    assert first.model_calls > 0 and vqa.calls == 1
    car, cup, cat, wall = evidence.objects
    assert car.mask.source == cup.mask.source == wall.mask.source == "detector+sam"
    assert cat.p_yes == 0.1 and cat.mask is None  # absent: no mask looked for
    assert wall.p_yes is None  # a context object need not be there: not asked
    assert evidence.presence_checked and evidence.mask_method == "detector+sam"

    calls = (det.calls, vqa.calls)
    again = RunContext(det, cache)
    cached = JudgeStage(again, vqa=vqa, detector=det, segmenter=det).evidence(img, prompt, 0)
    assert again.model_calls == 0 and (det.calls, vqa.calls) == calls and again.cache_hits == first.model_calls
    assert _same_evidence(evidence, cached)


def test_score_stage_is_a_pure_function_of_image_evidence_and_scorer(monkeypatch):
    """The same image, evidence and scorer configuration give the same scores, with no model and no
    cache anywhere (both refuse here), and the inputs are left as they were."""
    from huebench.models import registry

    prompt, img, det, vqa = _three_objects()
    evidence = JudgeStage(RunContext(det, OutputCache(None)), vqa=vqa, detector=det, segmenter=det).evidence(
        img, prompt, 0
    )

    def no_model(*args, **kwargs):
        raise AssertionError("the score stage asked for a model")

    monkeypatch.setattr(RunContext, "answer", no_model)
    monkeypatch.setattr(OutputCache, "get_many", no_model)
    monkeypatch.setattr(registry, "load_model", no_model)
    image_before = img.copy()
    masks_before = [o.mask.mask.copy() for o in evidence.objects if o.mask is not None]
    scored = score_stage(img, prompt, evidence, ColorScorer("iscc-nbs-l2"))
    assert score_stage(img, prompt, evidence, ColorScorer("iscc-nbs-l2")) == scored  # a new scorer, same config
    assert np.array_equal(img, image_before)
    assert all(
        np.array_equal(o.mask.mask, m)
        for o, m in zip([o for o in evidence.objects if o.mask is not None], masks_before, strict=True)
    )
    car, cup, cat, wall = scored.objects
    assert (
        car["score"]["pass"]
        and cup["score"]["pass"]
        and cat
        == {
            "name": "cat",
            "role": "target",
            "color": None,
            "p_yes": 0.1,
            "present": False,
            "reason": "VQA: no cat in the image (P(yes) 0.10)",
        }
    )
    assert wall["color"] == "Red" and not wall["score"]["pass"]  # leakage is judged against the target's colour
    assert (scored.correct, scored.reason) == (False, "absent: cat")
    # another configuration, from the same evidence: only the scores change
    paper = score_stage(img, prompt, evidence, ColorScorer.named("paper", "iscc-nbs-l2"))
    assert [o.get("mask_area") for o in paper.objects] == [o.get("mask_area") for o in scored.objects]
    assert paper.objects[0]["score"]["method"] != car["score"]["method"]

    user = ImageEvidence((ObjectEvidence(None, ObjectMask(np.zeros(img.shape[:2], bool), "user")),), False, "offline")
    one = _prompt("cna", ["Red"], [{"name": "car", "role": "target", "color": 0}])
    assert score_stage(img, one, user, ColorScorer("iscc-nbs-l2")).correct is False  # an empty mask: too few pixels


def test_decide_presence_and_unjudged():
    ok = {"name": "a", "role": "target", "score": {"pass": True}}
    assert decide("cna", [ok]) == (True, "a matches")
    absent = {"name": "a", "role": "target", "present": False}
    assert decide("cna", [absent]) == (False, "absent: a")
    partner_absent = {"name": "b", "role": "partner", "present": False}
    assert decide("ica", [ok, partner_absent])[0] is False
    unjudged = {"name": "b", "role": "target", "mask_source": "none", "reason": "needs a detector"}
    assert decide("moc", [ok, unjudged]) == (None, "b: needs a detector")
    no_mask = {"name": "b", "role": "target", "mask_source": "detector+sam", "reason": "not found"}
    assert decide("moc", [ok, no_mask])[0] is False
    ctx_unjudged = {"name": "wall", "role": "context", "mask_source": "none"}
    assert decide("coa", [ok, ctx_unjudged]) == (True, "a matches, no leakage (leakage not judged)")
    with pytest.raises(ValueError, match="unknown task"):
        decide("paint", [ok])


# -- image store --------------------------------------------------------------------------------


def test_image_store_verifies_by_hash(tmp_path):
    store = ImageStore(tmp_path)
    gen = {"spec": "diffusers:x", "fingerprint": "f1"}
    img = Image.new("RGB", (8, 8), (10, 20, 30))
    assert store.status("cna-l1-00001", 0) == "missing"
    entry = store.write("cna-l1-00001", 0, img, seed=5, prompt={"id": "cna-l1-00001"}, generator=gen)
    assert store.status("cna-l1-00001", 0) == "verified" and entry["seed"] == 5 and entry["size"] == [8, 8]
    store.image_path("cna-l1-00001", 0).write_bytes(b"torn")
    assert store.status("cna-l1-00001", 0) == "mismatch"
    Image.new("RGB", (8, 8)).save(store.image_path("cna-l1-00001", 1))
    assert store.status("cna-l1-00001", 1) == "orphan"  # meta.json lacks it: a write cut short
    store.folder("other-1").mkdir()
    Image.new("RGB", (8, 8)).save(store.image_path("other-1", 0))
    assert store.status("other-1", 0) == "unverified"  # no meta.json: an outside generator's file
    with pytest.raises(HuebenchError, match="holds images from 'diffusers:x'"):
        store.write("cna-l1-00001", 2, img, seed=1, prompt={}, generator={"spec": "other", "fingerprint": "f2"})
    for bad in ("../x", "a/b", "", ".hidden"):
        with pytest.raises(HuebenchError, match="cannot name a folder"):
            store.image_path(bad, 0)
    assert image_seed(0, "a", 1) == image_seed(0, "a", 1) != image_seed(0, "a", 2)


# -- generation and scoring with tiny real models --------------------------------------------------


def _gen_opts(images, prompts, **kw):
    return {"prompts": str(prompts), "images": str(images), "n": 2, "steps": 2, "height": 32, "width": 32, **kw}


def test_generate_resumes_by_hash(tmp_path, tiny):
    pytest.importorskip("diffusers")
    from typer.testing import CliRunner

    from huebench.cli import app

    prompts = _write_prompts(tmp_path / "p.jsonl", _one_per_task())
    images = tmp_path / "images"
    args = ["gencolor", "generate", "--model", f"diffusers:{tiny('stable-diffusion')}", "--prompts", str(prompts)]
    args += ["--images", str(images), "--n", "2", "--steps", "2", "--height", "32", "--width", "32"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "generated 10, verified 0" in res.output
    pid = "cna-l1-00001" if (images / "cna-l1-00001").exists() else sorted(p.name for p in images.iterdir())[1]
    meta = json.loads((images / pid / "meta.json").read_text())
    assert set(meta["images"]) == {"0", "1"} and meta["prompt"]["id"] == pid
    first = (images / pid / "0.png").read_bytes()
    (images / pid / "1.png").unlink()
    (images / pid / "0.png").write_bytes(b"torn write")
    res = CliRunner().invoke(app, args)
    assert "generated 2, verified 8" in res.output, res.output
    assert (images / pid / "0.png").read_bytes() == first  # same seed → same image
    res = CliRunner().invoke(app, args)
    assert "generated 0, verified 10" in res.output


def test_run_gencolorbench_generates_then_scores(tmp_path, load_tiny):
    pytest.importorskip("diffusers")
    sd = load_tiny("stable-diffusion", batch_size=4)
    prompts = _write_prompts(tmp_path / "p.jsonl", _one_per_task())
    opts = RunOptions(
        benchmark="gencolorbench",
        model=sd.spec,
        out=tmp_path / "run",
        no_cache=True,
        progress=False,
        benchmark_options=_gen_opts(tmp_path / "images", prompts),
    )
    res = run(opts, model=sd)
    assert res.results["n"] == 10 and res.results["n_failed"] == 0
    recs = {r["id"]: r for r in res.records}
    assert {r["image_status"] for r in recs.values()} == {"generated"}
    moc = next(r for r in recs.values() if r["task"] == "moc")
    assert moc["correct"] is None and "needs --detector" in moc["reason"]  # offline path: one object only
    cna = next(r for r in recs.values() if r["task"] == "cna")
    assert cna["correct"] is not None and cna["objects"][0]["mask_source"] == "offline"
    m = res.metrics
    assert m["judged"] + m["unjudged"] == 10 and m["unjudged"] == 4
    html = (tmp_path / "run" / "report.html").read_text()
    assert html.count("Table 4 shape") == 1
    # every image pictured, wrong ones first, each with the target and found colours of its objects
    statuses = re.findall(r'<div class="card (?:fail|pass|na)" data-status="([\w/]+)"', html)
    assert len(statuses) == 10 and html.count('<img src="data:image/png;base64,') == 10
    assert statuses == sorted(statuses, key=lambda st: st != "fail")
    assert statuses.count("n/a") == 4 and f"{cna['objects'][0]['name']}: found" in html


@pytest.mark.parametrize("detector", ["grounding-dino", "owlv2"])
def test_score_with_vqa_detector_and_sam(tmp_path, tiny, load_tiny, detector):
    pytest.importorskip("diffusers")
    sd = load_tiny("stable-diffusion", batch_size=4)
    prompts = _write_prompts(tmp_path / "p.jsonl", _one_per_task())
    images = tmp_path / "images"
    run(
        RunOptions(
            benchmark="gencolor-generate",
            model=sd.spec,
            out=tmp_path / "gen",
            no_cache=True,
            progress=False,
            benchmark_options=_gen_opts(images, prompts),
        ),
        model=sd,
    )
    opts = {
        "prompts": str(prompts),
        "images": str(images),
        "n": 2,
        "vqa": f"hf:{tiny('llava')}",
        "detector": f"hf:{tiny(detector)}",
        "segmenter": f"hf:{tiny('sam')}",
        "box_threshold": 0.0,
    }
    cache = tmp_path / "cache.sqlite"
    common = {"model": "reference:none", "cache": cache, "progress": False, "benchmark_options": opts}
    res = run(RunOptions(benchmark="gencolorbench", out=tmp_path / "score", **common))
    assert res.results["n"] == 10, res.results["failed_ids"]
    for r in res.records:
        assert r["presence_checked"] and r["mask_method"] == "detector+sam"
        assert r["correct"] in (True, False)  # every task is judged with a detector
        for o in r["objects"]:
            if o["role"] != "context":
                assert 0.0 <= o["p_yes"] <= 1.0
            if o.get("present", True):
                assert o["mask_source"] == "detector+sam"
    coa = next(r for r in res.records if r["task"] == "coa")
    assert [o["role"] for o in coa["objects"]] == ["target", "context"]
    assert res.stats["cache"]["model_calls"] > 0
    again = run(RunOptions(benchmark="gencolorbench", out=tmp_path / "score2", **common))
    assert again.stats["cache"]["model_calls"] == 0 and again.stats["cache"]["hits"] > 0
    assert [r["correct"] for r in again.records] == [r["correct"] for r in res.records]


def test_missing_images_are_recorded_failures(tmp_path):
    prompts = _write_prompts(tmp_path / "p.jsonl", _one_per_task()[:1])
    (tmp_path / "images" / "another-prompt").mkdir(parents=True)  # a folder with images, none of these
    res = _score_without_models(tmp_path / "run", prompts=str(prompts), images=str(tmp_path / "images"), n=2)
    assert res.results["n_failed"] == 2 and res.results["n"] == 0
    assert "gencolor generate" in json.loads((tmp_path / "run" / "records.jsonl").read_text().splitlines()[0])["reason"]


def test_user_supplied_images_and_masks_score_without_models(tmp_path):
    """An outside generator's folder (no meta.json) plus user masks: exact, model-free scoring."""
    l2 = load_system("iscc-nbs-l2")
    recs = [r for r in build_suite("mini") if r["task"] == "cna" and r["system"] == "iscc-nbs-l2"][:4]
    for k, r in enumerate(recs):
        folder = tmp_path / "images" / r["id"]
        folder.mkdir(parents=True)
        colour = l2.get(r["colors"][0]["name"]).rgb if k % 2 == 0 else (0, 0, 0)
        img, (mask,) = _synthetic([colour])
        Image.fromarray(img).save(folder / "0.png")
        _save_user_masks(tmp_path / "masks", r, [mask])
    prompts = _write_prompts(tmp_path / "p.jsonl", recs)
    res = _score_without_models(
        tmp_path / "run", prompts=str(prompts), images=str(tmp_path / "images"), n=1, masks=str(tmp_path / "masks")
    )
    got = [r["correct"] for r in res.records]
    black = [l2.get(r["colors"][0]["name"]).name for r in recs[1::2]]
    assert got[0::2] == [True, True]
    assert got[1::2] == [n == "Black" for n in black]
    assert {r["image_status"] for r in res.records} == {"unverified"}
    # the file name users give their masks: lower case, other characters → "-"
    assert user_mask_path("M", "p1", 2, "Hair  Drier!").as_posix() == "M/p1/2.hair-drier.png"


# -- analyses -----------------------------------------------------------------------------------


def test_analyses_shapes_and_values():
    def rec(task, system, correct, colour="Red", category="vehicles", lab=(50.0, 60.0, 40.0)):
        return {
            "id": f"{task}{system}{colour}{correct}{category}",
            "task": task,
            "system": system,
            "correct": correct,
            "colors": [colour],
            "category": category,
            "reason": "r" if correct is not None else "needs a detector",
            "objects": [{"role": "target", "score": {"dominant_lab": list(lab)}}],
        }

    records = [
        rec("cna", "iscc-nbs-l2", True),
        rec("cna", "iscc-nbs-l2", False, colour="Yellowish pink"),
        rec("cna", "iscc-nbs-l3", True, colour="Light bluish green"),
        rec("cna", "iscc-nbs-l3", False, colour="Dark red"),
        rec("cna", "css3", True, category="animals"),
        rec("cna", "iscc-nbs-l1", False),  # not part of Table 4's average
        rec("moc", "css3", None),
    ]
    m = analyses(records)
    assert m["judged"] == 6 and m["unjudged"] == 1 and m["unjudged_reasons"] == {"needs a detector": 1}
    assert m["table4"]["cna"] == pytest.approx((50.0 + 50.0 + 100.0) / 3)
    assert m["table4"]["moc"] is None and m["table4"]["avg"] == pytest.approx(m["table4"]["cna"])
    assert m["basic_vs_intermediate"] == {"basic": 100.0, "intermediate": 0.0, "n": [1, 1]}
    assert m["modifiers"] == {"light": 100.0, "dark": 0.0, "-ish": 100.0}
    assert m["by_category"]["css3"] == {"animals": 100.0}
    assert m["by_category_avg"]["vehicles"] == pytest.approx(50.0)
    assert m["color_bias"]["vehicles"] == {"Red": 100.0}  # Lab (50, 60, 40) is nearest L1 red
    assert m["per_color"]["iscc-nbs-l2"]["Red"] == {"vehicles": 100.0}
    assert modifier_groups("Light grayish red") == ["light", "-ish"]
    assert modifier_groups("Vivid red") == []


def test_compare_and_report_label_runs_by_folder_and_chart_metrics_only(tmp_path):
    """Two runs of one model are two rows/bars told apart by their folders; settings recorded beside
    the metrics (scorer_config) are not compared."""
    from typer.testing import CliRunner

    from huebench.cli import app
    from huebench.testing.data import make_gencolor_images

    opts = make_gencolor_images(tmp_path / "g")
    for name, scorer in (("ours", "huebench"), ("paper", "paper")):
        evaluate(
            "gencolorbench",
            "none",
            out=tmp_path / name / "run",
            no_cache=True,
            progress=False,
            n=2,
            scorer=scorer,
            **opts,
        )
    dirs = [str(tmp_path / "ours" / "run"), str(tmp_path / "paper" / "run")]
    res = CliRunner().invoke(app, ["gencolor", "compare", *dirs, "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert [r["run"] for r in rows] == ["ours/run", "paper/run"] and {r["model"] for r in rows} == {"reference:none"}
    assert all(r["state"].startswith("complete") for r in rows)
    out = tmp_path / "both.html"
    res = CliRunner().invoke(app, ["report", *dirs, "--out", str(out)])
    assert res.exit_code == 0, res.output
    html = out.read_text()
    assert '<td class="short">ours/run</td>' in html and '<td class="short">paper/run</td>' in html
    assert "scorer_config" not in html and "/jnd" not in html  # settings, not metrics
    charts = re.findall(r"<h2>([^<]+)</h2>", html)
    assert "table4/avg" in charts and "judged" not in charts  # both runs judged the same 20 images: no chart


def test_report_of_one_run_goes_into_its_folder(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from huebench.cli import app
    from huebench.testing.data import make_gencolor_images

    opts = make_gencolor_images(tmp_path / "g")
    run_dir = tmp_path / "run"
    evaluate("gencolorbench", "none", out=run_dir, no_cache=True, progress=False, n=2, **opts)
    (run_dir / "report.html").unlink()
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["report", str(run_dir)])
    assert res.exit_code == 0, res.output
    assert (run_dir / "report.html").exists() and not (tmp_path / "report.html").exists()
    text = " ".join(res.output.split())
    assert f"report: {run_dir / 'report.html'}" in text
    assert "complete run: 20 samples scored" in text and "done:" not in text  # it read a run, it ran nothing


def test_an_image_without_its_meta_entry_is_made_again(tmp_path):
    """A kill between an image's rename and its meta.json entry leaves an orphan: generation makes
    it again (so meta.json ends complete); a folder without meta.json is an outside generator's."""
    store = ImageStore(tmp_path)
    gen = {"spec": "diffusers:x", "fingerprint": "f1"}
    store.write("p-1", 0, Image.new("RGB", (4, 4)), seed=1, prompt={}, generator=gen)
    Image.new("RGB", (4, 4)).save(store.image_path("p-1", 1))
    assert store.status("p-1", 1) == "orphan"
    (store.folder("p-1") / "1.png.tmp999").write_bytes(b"half")  # a killed writer's leftovers
    (store.folder("p-1") / ".meta.json.abc.tmp").write_text("{")
    store.write("p-1", 1, Image.new("RGB", (4, 4), (9, 9, 9)), seed=2, prompt={}, generator=gen)
    store.write("p-1", 3, Image.new("RGB", (4, 4)), seed=3, prompt={}, generator=gen)
    store.write("p-1", 2, Image.new("RGB", (4, 4)), seed=4, prompt={}, generator=gen)
    assert list(store.meta("p-1")["images"]) == ["0", "1", "2", "3"]  # same bytes whatever the write order
    assert sorted(p.name for p in store.folder("p-1").iterdir()) == [
        ".meta.lock",
        "0.png",
        "1.png",
        "2.png",
        "3.png",
        "meta.json",
    ]


def test_a_kill_before_the_first_entry_leaves_an_orphan_not_an_outside_image(tmp_path, monkeypatch):
    """The first image of a prompt: meta.json is written before the image lands, so a kill between
    the image's rename and its entry leaves an orphan (made again), never a folder that looks like
    an outside generator's (which resume would take as it is, leaving meta.json without the entry)."""
    import huebench.benchmarks.gencolor.store as store_module

    store = ImageStore(tmp_path)
    gen = {"spec": "diffusers:x", "fingerprint": "f1"}
    real_write = store_module.atomic_write_json
    calls = []

    def killed_at_the_entry(path, obj):
        calls.append(json.loads(json.dumps(obj)))
        if obj.get("images"):  # the write that would add the image's entry: the process dies here
            raise KeyboardInterrupt("killed")
        real_write(path, obj)

    monkeypatch.setattr(store_module, "atomic_write_json", killed_at_the_entry)
    with pytest.raises(KeyboardInterrupt):
        store.write("p-1", 0, Image.new("RGB", (4, 4)), seed=1, prompt={"id": "p-1"}, generator=gen)
    assert store.image_path("p-1", 0).exists()
    assert store.status("p-1", 0) == "orphan"
    assert store.meta("p-1") == {"prompt": {"id": "p-1"}, "generator": gen, "images": {}}
