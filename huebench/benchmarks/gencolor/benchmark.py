"""GenColorBench as two harness benchmarks: ``gencolor-generate`` and ``gencolorbench`` (score).

``gencolor-generate`` (one sample per prompt) fills an image folder (``store.py``) with a
text-to-image model; ``gencolorbench`` (one sample per image) scores the folder — and, when its
model is a text-to-image model, first generates whatever images are missing, so
``huebench run gencolorbench --model diffusers:…`` is generation and scoring in one resumable run.
Both run on the shared run layer: records, resume, cache, Ray. Their ``evaluate`` composes the
stages of ``pipeline.py``: generate → judge → score.

Helper models of the scorer are benchmark options (``vqa``, ``detector``, ``segmenter``: model
specs, loaded once per process); their outputs are cached under their own fingerprints.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

from huebench._suggest import suggestion_text
from huebench.benchmarks.base import Benchmark, Sample, register_benchmark
from huebench.benchmarks.gencolor.analysis import analyses, report_sections
from huebench.benchmarks.gencolor.help_texts import CANDIDATE_RULE_HELP, SCORER_HELP, SCORER_OPTIONS_HELP
from huebench.benchmarks.gencolor.pipeline import (
    SCORER_WORKERS_HELP,
    WORKER_MODULES,
    JudgeStage,
    ScoreJob,
    ScorerSpec,
    generate_stage,
)
from huebench.benchmarks.gencolor.prompts import BUILT_IN_SUITES, SUITE_SYSTEMS, TASKS, load_prompts
from huebench.benchmarks.gencolor.scoring import (
    DEFAULT_K,
    HUE_THRESHOLD,
    OFFLINE_SEGMENTATION,
    ColorScorer,
    canonical_scorer_options,
    parse_scorer_options,
)
from huebench.benchmarks.gencolor.store import ImageStore
from huebench.errors import HuebenchError, UnknownNameError
from huebench.models.base import Capability, Model
from huebench.models.requests import Answers
from huebench.pool import resolve_workers, shared_pool

__all__ = ["GenColorBench", "GenColorGenerate"]


@functools.cache
def _helper(spec: str, device: str) -> Model:
    from huebench.models.registry import load_model

    return load_model(spec, device=device)


class _Prompts(Benchmark):
    """Shared option handling: the prompt records and the image folder."""

    # the image folder is not an input: a run fills it, and each image is verified by its sha256
    path_options = ("prompts", "masks")
    option_help: ClassVar[dict[str, str]] = {
        "prompts": "Prompt JSONL (gencolor prompts, or your own: docs/gencolor.md, The prompts file), or the built-in "
        "mini / full suite.",
        "images": "Image folder (layout: docs/gencolor.md, Image folder).",
        "n": "Images per prompt.",
        "tasks": "Only these tasks, comma-separated (cna, ncu, coa, moc, ica); default: all.",
        "systems": "Only these colour systems, comma-separated (iscc-nbs-l1, iscc-nbs-l2, iscc-nbs-l3, css3); default: all.",
        "steps": "Sampling steps (default: the pipeline's).",
        "height": "Image height (default: the pipeline's).",
        "width": "Image width (default: the pipeline's).",
    }

    def __init__(
        self,
        seed: int = 0,
        prompts: str = "mini",
        images: str | Path | None = None,
        n: int = 4,
        tasks: Sequence[str] | str | None = None,
        systems: Sequence[str] | str | None = None,
        steps: int | None = None,
        height: int | None = None,
        width: int | None = None,
        **options: Any,
    ):
        if not images:
            raise HuebenchError("GenColorBench needs an image folder: --images DIR")
        if int(n) < 1:
            raise HuebenchError(f"--n must be at least 1, got {n}")
        tasks = [tasks] if isinstance(tasks, str) else tasks
        systems = [systems] if isinstance(systems, str) else systems
        for given, known, what in ((tasks, TASKS, "task"), (systems, SUITE_SYSTEMS, "colour system")):
            for name in given or ():  # a typo would silently leave its prompts out
                if name not in known:
                    raise UnknownNameError(
                        f"unknown {what} {name!r}: use {', '.join(known)} (comma-separated)"
                        + suggestion_text(str(name), list(known))
                    )
        super().__init__(
            seed=seed,
            prompts=str(prompts),
            images=str(images),
            n=int(n),
            tasks=list(tasks) if tasks else None,
            systems=list(systems) if systems else None,
            steps=steps,
            height=height,
            width=width,
            **options,
        )
        self.seed, self.n = int(seed), int(n)
        self.store = ImageStore(images)
        self.tasks, self.systems = tasks, systems
        self.gen_options = {
            k: v for k, v in {"num_inference_steps": steps, "height": height, "width": width}.items() if v is not None
        }

    @functools.cached_property
    def prompts(self) -> dict[str, dict[str, Any]]:
        recs = load_prompts(self.options["prompts"], seed=self.seed)
        recs = [
            r
            for r in recs
            if (not self.tasks or r["task"] in self.tasks) and (not self.systems or r["system"] in self.systems)
        ]
        return {r["id"]: r for r in recs}

    def input_paths(self) -> dict[str, Path]:
        # "mini" and "full" name the built-in suites, never a file beside the working directory
        return {k: v for k, v in super().input_paths().items() if not (k == "prompts" and str(v) in BUILT_IN_SUITES)}

    def _generate(
        self, generator: Model | None, ctx: Answers, wanted: Sequence[tuple[str, int]]
    ) -> dict[tuple[str, int], str]:
        """The generate stage on this run's image folder, prompts and settings (:func:`generate_stage`)."""
        return generate_stage(
            self.store, self.prompts, wanted, generator, ctx, seed=self.seed, options=self.gen_options
        )


@register_benchmark("gencolor-generate")
class GenColorGenerate(_Prompts):
    name = "gencolor-generate"
    description = "GenColorBench: generate n images per prompt into an image folder (hash-verified resume)"
    capabilities = (Capability.TEXT_TO_IMAGE,)
    progress_phase = "generation"

    def samples(self) -> list[Sample]:
        return [Sample(pid) for pid in self.prompts]

    def evaluate(self, samples: Sequence[Sample], model: Model, ctx: Answers) -> Iterable[dict[str, Any]]:
        wanted = [(s.id, i) for s in samples for i in range(self.n)]
        status = self._generate(model, ctx, wanted)
        for s in samples:
            meta = self.store.meta(s.id) or {"images": {}}
            images = [
                {"index": i, "status": status[(s.id, i)], **meta["images"].get(str(i), {})} for i in range(self.n)
            ]
            made = sum(1 for im in images if im["status"] == "generated")
            yield {
                "id": s.id,
                "status": "ok",
                "task": self.prompts[s.id]["task"],
                "images": images,
                "reason": f"{made} generated, {self.n - made} already there",
                "batch_size": model.batch_size,
            }

    def metrics(self, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        images = [im for r in records for im in r["images"]]
        by_task: dict[str, int] = defaultdict(int)
        for r in records:
            by_task[r["task"]] += len(r["images"])
        return {
            "prompts": len(records),
            "images": len(images),
            "images_by_status": {
                k: sum(1 for im in images if im["status"] == k) for k in ("generated", "verified", "unverified")
            },
            "images_by_task": dict(by_task),
        }


@register_benchmark("gencolorbench")
class GenColorBench(_Prompts):
    name = "gencolorbench"
    internal_options = ("scorer_config",)  # config.json's record of the scorer, rebuilt from the options
    description = (
        "GenColorBench: score generated images (VQA presence, detection + SAM masks, CIELAB metrics, task rules)"
    )
    capabilities = ()
    option_help: ClassVar[dict[str, str]] = {
        "images": "Image folder filled by gencolor generate (or any generator).",
        "vqa": "VLM for the presence check (hf:…); default: no presence check.",
        "detector": "Open-vocabulary detector: GroundingDINO or OWLv2 (hf:…).",
        "segmenter": "SAM (hf:…); with --detector.",
        "masks": "User masks: MASKS/<prompt id>/<index>.<object>.png (docs/gencolor.md, Image folder).",
        "k": "Nearest neighbours of the target in its candidate set.",
        "hue_threshold": "Hue-angle threshold in degrees.",
        "box_threshold": "Detector score a box needs to count.",
        "device": "torch device of the helper models (default: the run's).",
        "scorer": SCORER_HELP,
        "candidate_rule": CANDIDATE_RULE_HELP,
        "scorer_options": SCORER_OPTIONS_HELP,
        "scorer_config": "The scorer's every setting, as config.json records it (rebuilt from the options, not read).",
        "scorer_workers": SCORER_WORKERS_HELP,
    }

    def __init__(
        self,
        seed: int = 0,
        vqa: str | None = None,
        detector: str | None = None,
        segmenter: str | None = None,
        masks: str | Path | None = None,
        k: int = DEFAULT_K,
        hue_threshold: float = HUE_THRESHOLD,
        box_threshold: float = 0.3,
        device: str | None = None,
        scorer: str = "huebench",
        candidate_rule: str = "per-metric",
        scorer_options: str | None = None,
        scorer_config: Any = None,  # the record of the scorer config.json keeps; rebuilt, not read
        scorer_workers: int | None = None,
        **options: Any,
    ):
        if (detector is None) != (segmenter is None):
            raise HuebenchError("--detector and --segmenter come together (GroundingDINO or OWLv2 boxes → SAM masks)")
        super().__init__(
            seed=seed,
            vqa=vqa,
            detector=detector,
            segmenter=segmenter,
            masks=masks,
            k=int(k),
            hue_threshold=float(hue_threshold),
            box_threshold=float(box_threshold),
            device=device,
            scorer=scorer,
            candidate_rule=candidate_rule,
            scorer_options=canonical_scorer_options(scorer_options),
            **options,
        )
        self.scorer_name, self.candidate_rule = scorer, candidate_rule
        self.scorer_overrides = parse_scorer_options(scorer_options)
        self.vqa_spec, self.detector_spec, self.segmenter_spec = vqa, detector, segmenter
        self.masks_dir, self.k, self.hue_threshold, self.box_threshold = (
            masks,
            int(k),
            float(hue_threshold),
            float(box_threshold),
        )
        self.device = device
        # not an option of the run's identity (config.json, --resume): results do not depend on it
        self.scorer_workers = resolve_workers(scorer_workers, "--scorer-workers")
        self.scorer("css3")  # an unknown scorer or rule is a usage error before any work

    def check_model(self, model: Model) -> Capability | None:
        # scoring needs no model; a text-to-image model also fills in the missing images
        if model.supports(Capability.TEXT_TO_IMAGE):
            return Capability.TEXT_TO_IMAGE
        root = Path(self.options["images"])
        if not root.is_dir() or not any(root.iterdir()):  # every sample would fail as "missing"
            raise HuebenchError(
                f"--images {root}: {'no such folder' if not root.exists() else 'empty' if root.is_dir() else 'not a folder'}"
                ": there are no images to score; make them with `huebench gencolor generate`, pass a "
                "text-to-image --model, or point --images at a filled folder (layout: docs/gencolor.md, Image folder)"
            )
        return None

    def samples(self) -> list[Sample]:
        return [Sample(f"{pid}/{i}", {"prompt_id": pid, "index": i}) for pid in self.prompts for i in range(self.n)]

    def scorer_spec(self, system: str) -> ScorerSpec:
        return ScorerSpec.of(
            self.scorer_name,
            system,
            k=self.k,
            hue_threshold=self.hue_threshold,
            candidate_rule=self.candidate_rule,
            **self.scorer_overrides,
        )

    def scorer(self, system: str) -> ColorScorer:
        return self.scorer_spec(system).build()

    def resolved_options(self) -> dict[str, Any]:
        # every scorer setting and the scorer's version: --resume refuses records of another scorer;
        # without a detector, the masks a user does not give are the offline segmentation's, whose
        # version and settings are recorded with it
        config: dict[str, Any] = {k: v for k, v in self.scorer("css3").config().items() if k != "system"}
        if self.detector_spec is None:
            config["offline_segmentation"] = dict(OFFLINE_SEGMENTATION)
        return {**self.options, "scorer_config": config}

    def _judge(self, ctx: Answers, model: Model) -> JudgeStage:
        """The judge stage with this run's helper models (loaded once per process) and masks."""
        device = self.device or getattr(model, "device", "cpu")  # helpers follow the run's --device
        return JudgeStage(
            ctx,
            vqa=_helper(self.vqa_spec, device) if self.vqa_spec else None,
            detector=_helper(self.detector_spec, device) if self.detector_spec else None,
            segmenter=_helper(self.segmenter_spec, device) if self.segmenter_spec else None,
            masks_dir=self.masks_dir,
            box_threshold=self.box_threshold,
        )

    def evaluate(self, samples: Sequence[Sample], model: Model, ctx: Answers) -> Iterable[dict[str, Any]]:
        """generate (a text-to-image model fills in missing images) → judge → score, per image; the
        CPU part of judging and scoring runs on the scorer's worker processes."""
        keys = [(s.inputs["prompt_id"], int(s.inputs["index"])) for s in samples]
        generator = model if self.check_model(model) is Capability.TEXT_TO_IMAGE else None
        status = self._generate(generator, ctx, keys)
        judge = self._judge(ctx, model)

        def jobs() -> Iterator[tuple[dict[str, Any], ScoreJob | None]]:
            for s, (pid, i) in zip(samples, keys, strict=True):
                prompt = self.prompts[pid]
                path = self.store.image_path(pid, i)
                base = {
                    "id": s.id,
                    "prompt_id": pid,
                    "index": i,
                    "task": prompt["task"],
                    "system": prompt["system"],
                    "level": prompt.get("level"),
                    "format": prompt.get("format", "name"),
                    "template_id": prompt.get("template_id"),
                    "category": prompt["objects"][0].get("category"),
                    "colors": [c["name"] for c in prompt["colors"]],
                    "image": f"{pid}/{i}.png",
                    "image_status": status[(pid, i)],
                }
                if status[(pid, i)] in ("missing", "mismatch"):
                    why = (
                        "missing"
                        if status[(pid, i)] == "missing"
                        else "does not match the sha256 in meta.json (torn or replaced)"
                    )
                    fix = "run `huebench gencolor generate` for this folder, or pass a text-to-image --model"
                    yield {**base, "status": "error", "reason": f"image {path} {why}: {fix}"}, None  # no job
                    continue
                yield base, judge.score_job(path, prompt, i, self.scorer_spec(prompt["system"]))

        pool = shared_pool(self.scorer_workers, preload=WORKER_MODULES)
        for base, judged in pool.run(jobs()):
            yield base if judged is None else {**base, "status": "ok", **judged, "batch_size": model.batch_size}

    def metrics(self, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return analyses(records, seed=self.seed)

    def report_sections(self, results: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Any]:
        from huebench.benchmarks.gencolor.cards import MAX_CARDS, image_cards
        from huebench.report.html import Section

        config = self.scorer("css3").config()
        cards = image_cards(records, self.store.root, {"jnd": config["jnd"], "hue_threshold": config["hue_threshold"]})
        wrong = sum(1 for r in records if r.get("correct") is False)
        gallery = Section(
            "Images, failures first",
            gallery=cards,
            note=(
                f"{wrong} images judged wrong, {sum(1 for r in records if r.get('correct') is None)} not judged; "
                f"at most {MAX_CARDS} cards, every wrong image first. Swatches: each object's target colour and the "
                "dominant colour found; metrics: the first target object's."
            ),
        )
        return [gallery, *report_sections(results, records)] if cards else report_sections(results, records)
