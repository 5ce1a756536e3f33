"""GenColorBench's stages (seed 004 §3.4): generate → judge → score.

1. **Generate** (:func:`generate_stage`): a text-to-image model makes the images a prompt asks for
   into the image store (``store.py``), each verified by its sha256 afterwards; with no model, the
   stage only reads what the store holds.
2. **Judge** (:class:`JudgeStage`): the evidence of one image (:class:`ImageEvidence`), per object:

   - **presence** (optional, after DSG): any VLM is asked "Is there a {object} in the image?" per
     object that must be judged (targets and ICA partners; a COA context is not required); P(yes)
     < 0.5 → the object is absent, and no mask is looked for;
   - **a mask**, first that applies: a user mask ``MASKS/<prompt id>/<index>.<object>.png``; the
     open-vocabulary detector's best box for the object's name (GroundingDINO or OWLv2) → SAM
     mask, minus the SAM masks of the object's negative part labels that lie inside it (a part's
     mask is removed when at least ``NEGATIVE_OVERLAP`` of it overlaps the object: the paper's
     negative IoU filtering), then opening and removal of specks (< 5 % of the largest
     component); without a detector, the offline segmentation (``scoring.segment_offline``) — one
     foreground object, so only the target of a single-object prompt can be judged that way.

   Every model output is a typed request the run context answers through its cache (masks
   run-length encoded), so judging an image again — a re-run, or a re-score with another scorer
   configuration — costs no model calls.
3. **Score** (:func:`score_stage`): a pure function of the image, the evidence and the scorer (its
   configuration): no model, no cache. Each object's colour by
   :meth:`~huebench.benchmarks.gencolor.scoring.ColorScorer.score_image` on its mask, then the task
   rule (:func:`decide`): CNA/NCU — the target matches; COA — the target matches and the context
   has not taken the colour (leakage: the context's dominant colour passes the same test); MOC —
   every object matches its colour; ICA — the target and its partner both match.

The CPU part of judging and scoring an image — reading it, user masks, the offline segmentation,
the score stage — is a :class:`ScoreJob`: a few words and paths that a worker process runs
(:mod:`huebench.pool`, ``--scorer-workers``), while the models stay in the run's process
(:meth:`JudgeStage.score_job`). A job gives the same record in a worker as in the run's process.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from huebench.benchmarks.gencolor.scoring import ColorScorer, segment_offline
from huebench.benchmarks.gencolor.store import ImageStore, image_seed
from huebench.images import rle_decode, rle_encode
from huebench.models.base import Model
from huebench.models.requests import Answers, Detection, ImageGeneration, Segmentation, YesProbability

__all__ = [
    "NEGATIVE_OVERLAP",
    "PRESENCE_THRESHOLD",
    "SCORER_WORKERS_HELP",
    "WORKER_MODULES",
    "ImageEvidence",
    "ImageScore",
    "JudgeStage",
    "ObjectEvidence",
    "ObjectMask",
    "ObjectMasker",
    "ScoreJob",
    "ScorerSpec",
    "decide",
    "generate_stage",
    "is_present",
    "presence",
    "rle_decode",
    "rle_encode",
    "score_stage",
    "user_mask_path",
]

PRESENCE_THRESHOLD = 0.5
NEGATIVE_OVERLAP = 0.5
MIN_COMPONENT = 0.05
#: the help of the option, for GenColorBench's scoring and its known-colour diagnostic
SCORER_WORKERS_HELP = (
    "Worker processes for the CPU colour scoring (default: every core; 1 scores in this process). "
    "Results do not depend on it, and a run may be resumed with another number."
)
#: what the worker processes import once, before any job (huebench.pool)
WORKER_MODULES = ("huebench.benchmarks.gencolor.pipeline", "huebench.benchmarks.gencolor.diagnostic")


# ---------------------------------------------------------------- stage 1: generate
def generate_stage(
    store: ImageStore,
    prompts: Mapping[str, dict[str, Any]],
    wanted: Sequence[tuple[str, int]],
    generator: Model | None,
    answers: Answers,
    *,
    seed: int,
    options: dict[str, Any],
) -> dict[tuple[str, int], str]:
    """Each wanted (prompt id, index) image's status in ``store`` once this stage is done:
    ``verified`` (it matches the sha256 in meta.json), ``unverified`` (an outside generator's file),
    ``generated`` (made now), or — with no generator — ``missing`` / ``mismatch`` (torn or replaced).

    ``generator``: a text-to-image model that makes the images that are missing or fail their hash,
    from ``prompts`` (id → record) with seed ``image_seed(seed, prompt id, index)`` and the pipeline
    ``options``; another model's folder is refused before anything is generated. None: the store
    is only read."""
    if generator is None:  # an orphan is a complete file (renames are atomic) without its entry
        status = {key: store.status(*key) for key in wanted}
        return {key: "unverified" if st == "orphan" else st for key, st in status.items()}
    info = {"spec": generator.spec, "fingerprint": generator.fingerprint, "options": options}
    out: dict[tuple[str, int], str] = {}
    todo = []
    for pid in dict.fromkeys(pid for pid, _ in wanted):  # once per prompt folder, not per image
        store.check_generator(pid, info)
    for pid, i in wanted:
        st = store.status(pid, i)
        if st in ("verified", "unverified"):
            out[(pid, i)] = st
        else:
            todo.append((pid, i))
    step = max(int(generator.batch_size), 1)
    for k in range(0, len(todo), step):  # written batch by batch: a crash loses one batch at most
        part = todo[k : k + step]
        seeds = [image_seed(seed, pid, i) for pid, i in part]
        requests = [
            ImageGeneration(prompts[pid]["prompt"], s, options) for (pid, _), s in zip(part, seeds, strict=True)
        ]
        images = [a["output"] for a in answers.answer(requests)]
        for (pid, i), img, s in zip(part, images, seeds, strict=True):
            store.write(pid, i, img, seed=s, prompt=prompts[pid], generator=info)
            out[(pid, i)] = "generated"
    return out


# ---------------------------------------------------------------- stage 2: judge
def _user_mask_relative(pid: str, index: int, name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return f"{pid}/{index}.{slug}.png"


def user_mask_path(masks_dir: str | Path, pid: str, index: int, name: str) -> Path:
    """Where a user mask for object ``name`` in image ``index`` of prompt ``pid`` is looked for:
    ``MASKS/<prompt id>/<index>.<object slug>.png`` (lower case, runs of other characters → "-").
    It is read only if it stays inside ``MASKS`` (:func:`huebench.paths.resolve_under`)."""
    return Path(masks_dir) / _user_mask_relative(pid, index, name)


@dataclass
class ObjectMask:
    mask: NDArray[np.bool_] | None
    source: str  # "user", "detector+sam", "offline", or "none"
    reason: str = ""
    detection: dict[str, Any] | None = None
    negatives_removed: list[str] = field(default_factory=list)


class ObjectMasker:
    """Masks for the objects of one image (see the module doc); ``answers`` answers the detector and
    segmenter requests (the run context: cached; None without them)."""

    def __init__(
        self,
        answers: Answers | None,
        *,
        detector: Model | None = None,
        segmenter: Model | None = None,
        masks_dir: str | Path | None = None,
        box_threshold: float = 0.3,
    ):
        if (detector is None) != (segmenter is None):
            raise ValueError("the detector and the segmenter come together (GroundingDINO/OWLv2 → SAM)")
        self.answers = answers
        self.detector, self.segmenter = detector, segmenter
        self.masks_dir = Path(masks_dir) if masks_dir else None
        self.box_threshold = float(box_threshold)

    @property
    def method(self) -> str:
        return "detector+sam" if self.detector is not None else "offline"

    def user_mask(self, pid: str, index: int, name: str, shape: tuple[int, int]) -> NDArray[np.bool_] | None:
        if self.masks_dir is None:
            return None
        from huebench.images import load_image
        from huebench.paths import resolve_under

        path = resolve_under(self.masks_dir, _user_mask_relative(pid, index, name), what="mask")
        if not path.exists():
            return None
        m = np.asarray(load_image(path).convert("L")) > 0  # load_image: the pixel budget, before decoding
        if m.shape != shape:
            raise ValueError(f"{path}: mask is {m.shape[1]}×{m.shape[0]}, the image {shape[1]}×{shape[0]}")
        return m

    def _detect(self, image: NDArray[np.uint8], labels: Sequence[str]) -> list[dict[str, Any]]:
        assert self.detector is not None and self.answers is not None
        request = Detection(image, tuple(labels), self.box_threshold)
        return list(self.answers.answer([request], model=self.detector)[0]["output"])

    def _segment(self, image: NDArray[np.uint8], boxes: Sequence[Sequence[float]]) -> list[NDArray[np.bool_]]:
        assert self.segmenter is not None and self.answers is not None
        request = Segmentation(image, tuple(tuple(float(v) for v in b) for b in boxes))
        return [rle_decode(m) for m in self.answers.answer([request], model=self.segmenter)[0]["output"]]

    def mask(self, image: NDArray[np.uint8], pid: str, index: int, obj: dict[str, Any], *, single: bool) -> ObjectMask:
        """The mask of ``obj`` in ``image``; ``single``: the prompt has one object to judge (the
        offline path can only serve those)."""
        user = self.user_mask(pid, index, obj["name"], image.shape[:2])
        if user is not None:
            return ObjectMask(user, "user")
        if self.detector is None:
            if not single:
                return ObjectMask(
                    None,
                    "none",
                    "the offline segmentation finds one foreground object; judging several objects needs "
                    "--detector and --segmenter (GroundingDINO/OWLv2 + SAM) or user masks",
                )
            return ObjectMask(segment_offline(image), "offline")
        boxes = self._detect(image, [obj["name"]])
        if not boxes:
            return ObjectMask(
                None, "detector+sam", f"the detector found no {obj['name']!r} (threshold {self.box_threshold})"
            )
        best = max(boxes, key=lambda b: b["score"])
        negs = self._detect(image, obj.get("negative_labels") or []) if obj.get("negative_labels") else []
        negs = [b for b in negs if _box_overlap(b["box"], best["box"]) > 0]
        masks = self._segment(image, [best["box"], *[b["box"] for b in negs]])
        m = masks[0].copy()
        removed = []
        for b, n in zip(negs, masks[1:], strict=True):
            area = int(n.sum())
            if area and (n & m).sum() / area >= NEGATIVE_OVERLAP:
                m &= ~n
                removed.append(b["label"])
        m = _clean(m)
        info = {
            "label": best["label"],
            "score": round(float(best["score"]), 4),
            "box": [round(v, 1) for v in best["box"]],
        }
        if not m.any():
            return ObjectMask(None, "detector+sam", f"empty mask for {obj['name']!r} after part removal", info, removed)
        return ObjectMask(m, "detector+sam", "", info, sorted(set(removed)))


def _box_overlap(a: Sequence[float], b: Sequence[float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(w, 0.0) * max(h, 0.0)


def _clean(mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Opening, then drop components smaller than MIN_COMPONENT of the largest."""
    from scipy import ndimage

    m = ndimage.binary_opening(mask, iterations=1) if mask.sum() > 200 else mask
    labels, n = ndimage.label(m)
    if n <= 1:
        return m
    sizes = np.asarray(ndimage.sum(m, labels, index=range(1, n + 1)))
    keep = np.flatnonzero(sizes >= MIN_COMPONENT * sizes.max()) + 1
    return np.isin(labels, keep)


def presence(answers: Answers, vqa: Model, image: NDArray[np.uint8], names: Sequence[str]) -> list[float]:
    """P(yes) for "Is there a {object} in the image?" per name (cached)."""
    from huebench.models.vqa import PRESENCE_QUESTION

    outs = answers.answer([YesProbability((image, PRESENCE_QUESTION.format(object=n))) for n in names], model=vqa)
    return [float(o["output"]) for o in outs]


def is_present(p_yes: float) -> bool:
    """The presence check's verdict on P(yes) of "Is there a {object} in the image?"."""
    return p_yes >= PRESENCE_THRESHOLD


@dataclass(frozen=True)
class ObjectEvidence:
    """What the judge stage found on one object of the prompt."""

    #: P(yes) of the presence question; None: not asked (no VQA, or a COA context, which need not be there)
    p_yes: float | None
    #: None only when the presence check found the object absent: then no mask is looked for
    mask: ObjectMask | None


@dataclass(frozen=True)
class ImageEvidence:
    """The judge stage's output for one image: what the score stage judges."""

    objects: tuple[ObjectEvidence, ...]  # one per object of the prompt, in its order
    presence_checked: bool
    mask_method: str  # "detector+sam" or "offline" (a user mask comes first either way)


class JudgeStage:
    """Stage 2: the evidence of one image (see the module doc). ``answers`` answers the VQA,
    detector and segmenter requests (the run context: cached; None without models)."""

    def __init__(
        self,
        answers: Answers | None,
        *,
        vqa: Model | None = None,
        detector: Model | None = None,
        segmenter: Model | None = None,
        masks_dir: str | Path | None = None,
        box_threshold: float = 0.3,
    ):
        self.answers, self.vqa = answers, vqa
        self.masker = ObjectMasker(
            answers, detector=detector, segmenter=segmenter, masks_dir=masks_dir, box_threshold=box_threshold
        )

    def presence_answers(self, image: NDArray[np.uint8], prompt: dict[str, Any]) -> dict[str, float] | None:
        """P(yes) per name of the objects that must be there (targets and partners); None without
        a VQA model."""
        if self.vqa is None:
            return None
        assert self.answers is not None
        names = list(dict.fromkeys(o["name"] for o in prompt["objects"] if o.get("role") != "context"))
        return dict(zip(names, presence(self.answers, self.vqa, image, names), strict=True))

    def evidence(
        self,
        image: NDArray[np.uint8],
        prompt: dict[str, Any],
        index: int,
        *,
        p_yes: Mapping[str, float] | None = None,
    ) -> ImageEvidence:
        """Presence (with a VQA model) and a mask for every object of ``prompt`` in ``image``, the
        prompt's image number ``index``. ``p_yes``: the presence answers, where they were asked
        before (:meth:`score_job`)."""
        if p_yes is None:
            p_yes = self.presence_answers(image, prompt)
        judged = [o for o in prompt["objects"] if o.get("role") != "context"]
        objects = []
        for obj in prompt["objects"]:
            role = obj.get("role", "target")
            p = p_yes.get(obj["name"]) if p_yes is not None and role != "context" else None
            if p is not None and not is_present(p):
                objects.append(ObjectEvidence(p, None))
                continue
            # the offline segmentation finds the one foreground object: the target, never the context
            single = len(judged) == 1 and role != "context"
            objects.append(ObjectEvidence(p, self.masker.mask(image, prompt["id"], index, obj, single=single)))
        return ImageEvidence(tuple(objects), presence_checked=p_yes is not None, mask_method=self.masker.method)

    def score_job(self, image: str | Path, prompt: dict[str, Any], index: int, scorer: ScorerSpec) -> ScoreJob:
        """Judging and scoring image ``index`` of ``prompt`` (the file ``image``) as a
        :class:`ScoreJob`. The model calls are made here — the presence question, and the masks
        when a detector makes them —; the rest is the job's, for any process to run."""
        masks_dir = None if self.masker.masks_dir is None else str(self.masker.masks_dir)
        job = ScoreJob(str(image), prompt, index, scorer, masks_dir)
        if self.vqa is None and self.masker.detector is None:
            return job  # no model: the job reads the image itself
        from huebench.images import load_image

        pixels = np.asarray(load_image(image))
        if self.masker.detector is None:  # user masks or the offline segmentation: the job's
            return replace(job, p_yes=self.presence_answers(pixels, prompt))
        return replace(job, evidence=self.evidence(pixels, prompt, index))


@dataclass(frozen=True)
class ScorerSpec:
    """A named scorer (``scoring.SCORERS``), its colour system and its options: what a job carries
    instead of the scorer, which holds its whole colour system. :meth:`build` makes the scorer,
    once per process."""

    name: str
    system: str
    options: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, name: str, system: str, **options: Any) -> ScorerSpec:
        return cls(name, system, tuple(sorted(options.items())))

    def build(self) -> ColorScorer:
        return _built_scorer(self)


@functools.cache
def _built_scorer(spec: ScorerSpec) -> ColorScorer:
    return ColorScorer.named(spec.name, spec.system, **dict(spec.options))


@dataclass(frozen=True)
class ScoreJob:
    """The CPU part of judging and scoring one image, after the model calls
    (:meth:`JudgeStage.score_job`): read the image, find the masks no model makes (user masks, the
    offline segmentation), run the score stage. Calling it gives the record's judged fields; it is
    small and picklable, so a worker process can run it (:mod:`huebench.pool`)."""

    image: str  # the image file: read where the job runs, never sent as pixels
    prompt: dict[str, Any]
    index: int
    scorer: ScorerSpec
    masks_dir: str | None = None
    p_yes: dict[str, float] | None = None  # the presence answers, when a VQA model was asked
    evidence: ImageEvidence | None = None  # the judge stage's whole output, when a detector made the masks

    def __call__(self) -> dict[str, Any]:
        """``objects``, ``correct``, ``reason``, ``mask_method`` and ``presence_checked``."""
        from huebench.images import load_image

        image = np.asarray(load_image(self.image))  # load_image: the pixel budget, before decoding
        evidence = self.evidence
        if evidence is None:  # no detector: user masks or the offline segmentation, here
            evidence = JudgeStage(None, masks_dir=self.masks_dir).evidence(
                image, self.prompt, self.index, p_yes=self.p_yes
            )
        scored = score_stage(image, self.prompt, evidence, self.scorer.build())
        return {
            "objects": scored.objects,
            "correct": scored.correct,
            "reason": scored.reason,
            "mask_method": evidence.mask_method,
            "presence_checked": evidence.presence_checked,
        }


# ---------------------------------------------------------------- stage 3: score
@dataclass(frozen=True)
class ImageScore:
    """The score stage's output for one image, as the record keeps it."""

    objects: list[dict[str, Any]]  # per object: P(yes), mask source and area, the colour score, a reason
    correct: bool | None  # None: the image could not be judged (see reason)
    reason: str


def score_stage(
    image: NDArray[np.uint8], prompt: dict[str, Any], evidence: ImageEvidence, scorer: ColorScorer
) -> ImageScore:
    """Stage 3: score every object of ``prompt`` in ``image`` on its mask from ``evidence``, then
    apply the task rule. A pure function of its arguments (the scorer is its configuration): no
    model, no cache, so a re-score with another scorer configuration needs only the evidence."""
    objects = [
        _score_object(image, prompt, obj, found, scorer)
        for obj, found in zip(prompt["objects"], evidence.objects, strict=True)
    ]
    correct, reason = decide(prompt["task"], objects)
    return ImageScore(objects, correct, reason)


def _score_object(
    image: NDArray[np.uint8], prompt: dict[str, Any], obj: dict[str, Any], found: ObjectEvidence, scorer: ColorScorer
) -> dict[str, Any]:
    """One object's entry of the record; a context object is scored against the target colour."""
    role = obj.get("role", "target")
    color_idx = obj.get("color")
    if color_idx is None and role == "context":
        color_idx = 0  # leakage: has the context taken the target's colour?
    entry: dict[str, Any] = {"name": obj["name"], "role": role, "color": None}
    if found.p_yes is not None:
        entry["p_yes"] = round(found.p_yes, 4)
        entry["present"] = is_present(found.p_yes)
        if not entry["present"]:
            entry["reason"] = f"VQA: no {obj['name']} in the image (P(yes) {found.p_yes:.2f})"
            return entry
    om = found.mask
    if om is None:
        raise ValueError(f"evidence for {obj['name']!r}: no mask, yet not found absent")
    if role == "context" and om.source == "none":
        entry.update(mask_source="none", reason="context not segmented (needs a detector): leakage not judged")
        return entry
    entry.update(mask_source=om.source, mask_area=int(om.mask.sum()) if om.mask is not None else 0)
    if om.detection:
        entry["detection"] = om.detection
    if om.negatives_removed:
        entry["negatives_removed"] = om.negatives_removed
    if om.mask is None:
        entry["reason"] = om.reason
        return entry
    color = prompt["colors"][color_idx]
    score, _ = scorer.score_image(image, color["name"], mask=om.mask)
    entry["color"] = color["name"]
    entry["score"] = score.as_dict()
    entry["reason"] = score.reason
    return entry


def decide(task: str, objects: Sequence[dict[str, Any]]) -> tuple[bool | None, str]:
    """Apply the task rule to judged objects; ``None`` when the pipeline could not judge the image."""

    def passed(o: dict[str, Any]) -> bool | None:
        if o.get("present") is False:
            return False
        if "score" not in o:
            return None if o.get("mask_source") == "none" else False
        return bool(o["score"]["pass"])

    judged = [o for o in objects if o["role"] != "context"]
    absent = [o["name"] for o in judged if o.get("present") is False]
    if absent:
        return False, f"absent: {', '.join(absent)}"
    results = [(o, passed(o)) for o in judged]
    if any(r is None for _, r in results):
        unjudged = [o for o, r in results if r is None]
        return None, "; ".join(f"{o['name']}: {o.get('reason', 'not judged')}" for o in unjudged)
    wrong = [o for o, r in results if not r]
    if task == "coa" and not wrong:
        ctx = [o for o in objects if o["role"] == "context"]
        leaked = [o["name"] for o in ctx if o.get("score", {}).get("pass")]
        if leaked:
            return False, f"colour leaked onto the context ({', '.join(leaked)})"
        note = "" if all("score" in o for o in ctx) else " (leakage not judged)"
        return True, f"{judged[0]['name']} matches, no leakage{note}"
    if task not in ("cna", "ncu", "coa", "moc", "ica"):
        raise ValueError(f"unknown task {task!r}")
    if wrong:
        return False, "; ".join(f"{o['name']}: {o.get('reason', 'no match')}" for o in wrong)
    return True, "; ".join(f"{o['name']} matches" for o in judged)
