"""``huebench gencolor diagnose``: the scorer on renders of known colour (seed 004 Appendix E).

Every (object, colour) of the system is rendered with Mitsuba (``render.py``: 15 objects, four
neutral lighting set-ups, three neutral backgrounds; each sample gets one set-up and background,
chosen by a seeded hash), then scored by the GenColorBench scorer

- with the exact object mask, and
- with the offline segmentation path (no network weights),

against the true colour (accuracy) and against a wrong, far colour of the same system (the
false-accept rate: the farthest member by CIEDE2000 among a seeded sample of 5). The paper reports
96.46 % (ISCC-NBS L2) and 92.00 % (CSS3/X11) for its scorer on its Blender renders.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from huebench.benchmarks.base import Benchmark, Sample, register_benchmark
from huebench.benchmarks.gencolor.families import (
    FAMILIES,
    HELD_OUT_FAMILIES,
    PLAIN,
    KnownColorImage,
    family_list,
    family_samples,
    make_image,
)
from huebench.benchmarks.gencolor.help_texts import CANDIDATE_RULE_HELP, SCORER_HELP, SCORER_OPTIONS_HELP
from huebench.benchmarks.gencolor.pipeline import SCORER_WORKERS_HELP, WORKER_MODULES, ScorerSpec
from huebench.benchmarks.gencolor.render import BACKGROUNDS, LIGHTINGS, OBJECTS, RenderSpec, render
from huebench.benchmarks.gencolor.scoring import (
    OFFLINE_SEGMENTATION,
    SCORERS,
    canonical_scorer_options,
    parse_scorer_options,
)
from huebench.color import delta_e, load_system
from huebench.errors import HuebenchError
from huebench.models.base import Capability, Model
from huebench.models.requests import Answers
from huebench.pool import resolve_workers, shared_pool
from huebench.stats import bootstrap_ci

__all__ = ["PAPER_ACCURACY", "Diagnostic"]

PAPER_ACCURACY = {"iscc-nbs-l2": 96.46, "css3": 92.00}
#: records keep a thumbnail (for the report's gallery) for every image a test got wrong and for one
#: in this many of the others
PASS_SAMPLE = 8
#: how the report names the renderer's materials
MATERIAL_NAMES = {"diffuse": "diffuse", "plastic": "glossy"}


def _setting_text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        return "–".join(map(str, value))
    if isinstance(value, dict):
        return ", ".join(f"{k} {_setting_text(v)}" for k, v in value.items())
    return str(value)


def _pick(seed: int, *keys: Any) -> int:
    return int.from_bytes(hashlib.sha256("\x00".join(map(str, (seed, *keys))).encode()).digest()[:8], "little")


#: the scorer setting ``diagnose`` sets by a flag of its own: ``--scorer-options`` refuses it
DIAGNOSE_FLAGS = {"candidate_rule": "--candidates"}


def _scorer_names(primary: str) -> tuple[str, str]:
    """The run's scorer first, the paper's second (ours second when the run's is the paper's):
    every diagnostic reports the paper's method beside the one it judges."""
    if primary not in SCORERS:
        raise HuebenchError(f"scorer {primary!r} unknown: use {' or '.join(SCORERS)}")
    return primary, "paper" if primary != "paper" else "huebench"


@dataclass(frozen=True)
class _ScoreKnown:
    """One sample's scoring, by every scorer, with the exact mask, the offline segmentation and
    against the far colour: its record. Picklable, so a worker process can run it."""

    sample_id: str
    inputs: dict[str, Any]
    known: KnownColorImage
    target: str
    far_name: str
    vlm: list[dict[str, Any]] | None
    scorers: dict[str, ScorerSpec]
    primary: str
    seed: int
    plain_target: str | None = None  # the target of known.plain (families.PLAIN)

    def __call__(self) -> dict[str, Any]:
        from huebench.benchmarks.gencolor.scoring import segment_offline
        from huebench.report.gallery import thumbnail_uri

        i, img, mask, target, far_name = self.inputs, self.known.image, self.known.mask, self.target, self.far_name
        seg = segment_offline(img)
        inter, union = int((seg & mask).sum()), int((seg | mask).sum())
        scored = {}
        for n, spec in self.scorers.items():
            scorer = spec.build()
            exact, _ = scorer.score_image(img, target, mask=mask)
            offline, _ = scorer.score_image(img, target, mask=seg)
            far, _ = scorer.score_image(img, far_name, mask=mask)
            scored[n] = (exact, offline, far)
        exact, offline, far = scored[self.primary]
        plain = self.known.plain
        plain_score = None
        if plain is not None and self.plain_target is not None:
            plain_score, _ = (
                self.scorers[self.primary].build().score_image(plain.image, self.plain_target, mask=plain.mask)
            )
        other = {
            n: {"exact": e.passed, "offline": o.passed, "far_accepted": f.passed, "dominant_lab": e.dominant_lab}
            for n, (e, o, f) in scored.items()
            if n != self.primary
        }
        # the report's gallery: every image some test got wrong, and one in PASS_SAMPLE of the rest
        shown = (
            not (exact.passed and offline.passed and not far.passed)
            or _pick(self.seed, "thumb", self.sample_id) % PASS_SAMPLE == 0
        )
        return {
            "id": self.sample_id,
            "status": "ok",
            **i,
            "target": target,
            "truth_rgb": list(self.known.truth),
            "truth_clipped": self.known.truth_clipped,
            "exact": exact.as_dict(),
            "offline": offline.as_dict(),
            "far_color": far_name,
            "far_accepted": far.passed,
            "other_scorers": other,
            "offline_mask_iou": inter / union if union else 0.0,
            **(
                {"plain": {"pass": plain_score.passed, "reason": plain_score.reason}} if plain_score is not None else {}
            ),
            **({"vlm": self.vlm} if self.vlm is not None else {}),
            **({"thumbnail": thumbnail_uri(img, mask)} if shown else {}),
            # beside the image, the same object plain: what the processing, light or texture did
            **(
                {"plain_thumbnail": thumbnail_uri(plain.image, plain.mask)}
                if shown and plain is not None and plain_score is not None
                else {}
            ),
            "reason": f"exact mask: {'pass' if exact.passed else 'fail'} — {exact.reason}; offline mask (IoU {inter / max(union, 1):.2f}): {'pass' if offline.passed else 'fail'}; far colour {far_name}: {'accepted (false accept)' if far.passed else 'rejected'}"
            + (
                ""
                if plain_score is None
                else f"; the same object {PLAIN[i['family']]}, exact mask: {'pass' if plain_score.passed else 'fail'}"
            ),
            "batch_size": 1,
        }


@register_benchmark("gencolor-diagnostic")
class Diagnostic(Benchmark):
    name = "gencolor-diagnostic"
    description = (
        "GenColorBench scorer diagnostic on images of known colour: five families and twenty held out (no model needed)"
    )
    capabilities = ()
    internal_options = ("scorer_config",)  # config.json's record of the scorers, rebuilt from the options
    option_help: ClassVar[dict[str, str]] = {
        "system": "iscc-nbs-l2 or css3.",
        "quick": "Smaller, noisier renders (48 px, 16 spp): about a minute for iscc-nbs-l2, 4–10 minutes for css3 on 2 CPU cores.",
        "size": "Render size in pixels (default: 48 with --quick, else 64).",
        "spp": "Render samples per pixel (default: 16 with --quick, else 32).",
        "family": (
            f"Image families: all, or comma-separated {', '.join(FAMILIES)}; "
            f"held out of all: {', '.join(HELD_OUT_FAMILIES)} (all,NAME adds one; docs/gencolor.md)."
        ),
        "scorer": SCORER_HELP,
        "candidate_rule": CANDIDATE_RULE_HELP,
        "scorer_options": SCORER_OPTIONS_HELP + " They change the --scorer one; the other is as named.",
        "scorer_workers": SCORER_WORKERS_HELP,
    }

    def __init__(
        self,
        seed: int = 0,
        system: str = "iscc-nbs-l2",
        quick: bool = False,
        size: int | None = None,
        spp: int | None = None,
        family: str = "all",
        scorer: str = "huebench",
        candidate_rule: str = "per-metric",
        scorer_options: str | None = None,
        scorer_config: Any = None,  # the record of the scorers config.json keeps; rebuilt, not read
        scorer_workers: int | None = None,
        **options: Any,
    ):
        if system not in PAPER_ACCURACY:
            raise HuebenchError(f"the diagnostic covers css3 and iscc-nbs-l2, got {system!r}")
        families = family_list(family)
        known = (*FAMILIES, *HELD_OUT_FAMILIES)
        unknown = [f for f in families if f not in known]
        if unknown or not families:
            raise HuebenchError(
                f"unknown image family {', '.join(unknown) or family!r}: use all or any of "
                f"{', '.join(known)} (comma-separated; held out of all: {', '.join(HELD_OUT_FAMILIES)})"
            )
        size = int(size or (48 if quick else 64))
        spp = int(spp or (16 if quick else 32))
        super().__init__(
            seed=seed,
            system=system,
            quick=bool(quick),
            size=size,
            spp=spp,
            family=family,
            scorer=scorer,
            candidate_rule=candidate_rule,
            scorer_options=canonical_scorer_options(scorer_options, DIAGNOSE_FLAGS),
            **options,
        )
        self.seed, self.system_name, self.quick, self.size, self.spp = seed, system, bool(quick), size, spp
        self.families = families
        overrides = parse_scorer_options(scorer_options, DIAGNOSE_FLAGS)
        self.scorer_specs = {
            n: ScorerSpec.of(n, system, candidate_rule=candidate_rule, **(overrides if n == scorer else {}))
            for n in _scorer_names(scorer)
        }
        self.scorers = {n: spec.build() for n, spec in self.scorer_specs.items()}
        self.scorer = self.scorers[scorer]
        # not an option of the run's identity (config.json, --resume): results do not depend on it
        self.scorer_workers = resolve_workers(scorer_workers, "--scorer-workers")

    def resolved_options(self) -> dict[str, Any]:
        # every setting of both scorers, with the scorer's version: --resume refuses another scorer
        return {**self.options, "scorer_config": self.scorer_records()}

    def scorer_records(self) -> dict[str, dict[str, Any]]:
        """Each scorer's settings (:meth:`ColorScorer.config`) and the offline segmentation's that
        made the offline masks it judged (:data:`OFFLINE_SEGMENTATION`)."""
        return {
            n: {**sc.config(), "offline_segmentation": dict(OFFLINE_SEGMENTATION)} for n, sc in self.scorers.items()
        }

    def machine_dependence(self, samples: Sequence[Sample]) -> str | None:
        # a sample with a Mitsuba lighting is rendered here (every family's renders name theirs)
        rendered = sum("lighting" in s.inputs for s in samples)
        if not rendered:
            return None
        return (
            f"{rendered} of its {len(samples)} images are Mitsuba renders, which the same release makes "
            "differently on CPUs with other vector instructions (docs/gencolor.md)"
        )

    def check_model(self, model: Model) -> Capability | None:
        # the scorer needs no model; a VLM, when given, also answers the VLM-as-judge questions
        return Capability.VLM if model.supports(Capability.VLM) else None

    def _colors(self) -> list[Any]:
        seen, out = set(), []
        for c in load_system(self.system_name):
            if c.rgb not in seen:  # CSS aliases (gray/grey) are one colour
                seen.add(c.rgb)
                out.append(c)
        return out

    def samples(self) -> list[Sample]:
        out = []
        for family in self.families:
            if family == "mitsuba":
                for c in self._colors():
                    for obj in OBJECTS:
                        h = _pick(self.seed, c.name, obj)
                        lighting = list(LIGHTINGS)[h % len(LIGHTINGS)]
                        background = list(BACKGROUNDS)[(h // 7) % len(BACKGROUNDS)]
                        inputs = {
                            "family": "mitsuba",
                            "object": obj,
                            "color": c.name,
                            "rgb": list(c.rgb),
                            "lighting": lighting,
                            "background": background,
                            "material": MATERIAL_NAMES[OBJECTS[obj].material],
                            "step": f"{lighting}/{background}",
                        }
                        out.append(Sample(f"mitsuba/{obj}/{c.name}/{lighting}/{background}", inputs))
            else:
                for inputs in family_samples(family, self._colors(), seed=self.seed):
                    out.append(Sample(f"{family}/{inputs['object']}/{inputs['color']}/{inputs['step']}", inputs))
        ids = [s.id for s in out]
        if len(set(ids)) != len(ids):  # a family that made two samples alike would be counted twice
            raise HuebenchError("diagnostic sample ids are not unique: a family repeats a sample")
        return out

    def far_color(self, sample: Sample, truth: tuple[int, int, int]) -> str:
        """A wrong colour of the system: the farthest from the truth among a seeded sample of 5.
        The truth's own Lab, not its name's: a name can belong to several systems (ISCC-NBS L2
        "Red" is not CSS "red")."""
        from huebench.color import srgb_to_lab

        lab = srgb_to_lab(np.asarray(truth, dtype=np.uint8))
        system = load_system(self.system_name)
        rng = np.random.default_rng(_pick(self.seed, "far", sample.id) % (2**32))
        idx = rng.choice(len(system), size=min(5, len(system)), replace=False)
        cands = [system.colors[i] for i in idx]
        d = [float(delta_e(c.lab, lab)) for c in cands]
        return cands[int(np.argmax(d))].name

    def render_sample(self, sample: Sample) -> tuple[np.ndarray, np.ndarray]:
        """A Mitsuba sample's render (8-bit sRGB) and exact object mask; the render seed follows the id."""
        i = sample.inputs
        return render(
            RenderSpec(
                i["object"],
                tuple(i["rgb"]),
                i["lighting"],
                i["background"],
                self.size,
                self.spp,
                seed=_pick(self.seed, sample.id.removeprefix("mitsuba/")) % 100000,
            )
        )

    def known_image(self, sample: Sample) -> KnownColorImage:
        """Any family's image, exact mask and truth (the colour a flat lit patch shows)."""
        if sample.inputs["family"] == "mitsuba":
            img, mask = self.render_sample(sample)
            return KnownColorImage(img, mask, tuple(sample.inputs["rgb"]))
        return make_image(sample.inputs, size=self.size, spp=self.spp, seed=self.seed)

    def target_of(self, sample: Sample, truth: tuple[int, int, int]) -> str:
        """The system's name where the image shows the albedo, else the truth's hex code."""
        i = sample.inputs
        return i["color"] if tuple(i["rgb"]) == tuple(truth) else "#{:02X}{:02X}{:02X}".format(*truth)

    def evaluate(self, samples: Sequence[Sample], model: Model, ctx: Answers) -> Iterable[dict[str, Any]]:
        use_vlm = self.check_model(model) is Capability.VLM

        def jobs() -> Iterator[tuple[None, _ScoreKnown]]:
            for s in samples:  # the images and the model's answers here, the scoring on the workers
                i = s.inputs
                known = self.known_image(s)
                far_name = self.far_color(s, known.truth)
                vlm = (
                    self._ask_vlm(model, ctx, known.image, i, far_name)
                    if use_vlm and i["family"] == "mitsuba"
                    else None
                )
                target = self.target_of(s, known.truth)
                plain_target = None if known.plain is None else self.target_of(s, known.plain.truth)
                yield (
                    None,
                    _ScoreKnown(
                        s.id,
                        i,
                        known,
                        target,
                        far_name,
                        vlm,
                        self.scorer_specs,
                        self.scorer.name,
                        self.seed,
                        plain_target,
                    ),
                )

        for _, record in shared_pool(self.scorer_workers, preload=WORKER_MODULES).run(jobs()):
            assert record is not None
            yield record

    def _ask_vlm(
        self, model: Model, ctx: Answers, img: np.ndarray, i: dict[str, Any], far_name: str
    ) -> list[dict[str, Any]]:
        from huebench.benchmarks.gencolor.vlm_judge import judge, questions_for
        from huebench.models.requests import Generation

        system = load_system(self.system_name)
        qs = questions_for(self.system_name, i["object"], system.get(i["color"]), system.get(far_name))
        outs = ctx.answer([Generation((img, q["prompt"]), 24) for q in qs])
        return [
            {**q, "answer": str(o["output"]), "correct": judge(q, str(o["output"]), self.system_name)}
            for q, o in zip(qs, outs, strict=True)
        ]

    def _outcomes(self, r: dict[str, Any], scorer: str) -> tuple[bool, bool, bool]:
        """(exact-mask pass, offline-mask pass, far colour accepted) of one record for a scorer."""
        if scorer == self.scorer.name:
            return bool(r["exact"]["pass"]), bool(r["offline"]["pass"]), bool(r["far_accepted"])
        o = r["other_scorers"][scorer]
        return bool(o["exact"]), bool(o["offline"]), bool(o["far_accepted"])

    def metrics(self, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        def pct(values: Sequence[bool]) -> dict[str, Any]:
            return bootstrap_ci([100.0 * bool(v) for v in values], seed=self.seed)

        def grouped(key: Any, of: Sequence[dict[str, Any]] = records) -> dict[str, list[dict[str, Any]]]:
            groups: dict[str, list[dict[str, Any]]] = {}
            for r in of:
                groups.setdefault(key(r), []).append(r)
            return dict(sorted(groups.items()))

        def by(key: Any, of: Sequence[dict[str, Any]], scorer: str) -> dict[str, dict[str, float]]:
            """% correct per group, exact masks and offline segmentation."""
            out = {}
            for g, rs in grouped(key, of).items():
                outcomes = np.array([self._outcomes(r, scorer)[:2] for r in rs], dtype=float)
                out[g] = {
                    "exact": 100.0 * outcomes[:, 0].mean(),
                    "offline": 100.0 * outcomes[:, 1].mean(),
                    "n": len(rs),
                }
            return out

        def summary(of: Sequence[dict[str, Any]], scorer: str) -> dict[str, Any]:
            outcomes = [self._outcomes(r, scorer) for r in of]
            return {
                "exact_mask": pct([o[0] for o in outcomes]),
                "offline_mask": pct([o[1] for o in outcomes]),
                "false_accepts": pct([o[2] for o in outcomes]),
                "by_material": by(lambda r: r["material"], of, scorer),
                "by_step": by(lambda r: r["step"], of, scorer),
            }

        family_records = grouped(lambda r: r["family"])  # in the records' order
        by_family = {fam: {n: summary(of, n) for n in self.scorers} for fam, of in family_records.items()}
        primary = self.scorer.name
        worst = min(by_family, key=lambda f: by_family[f][primary]["exact_mask"]["value"]) if by_family else None
        out: dict[str, Any] = {
            "system": self.system_name,
            "paper_accuracy": PAPER_ACCURACY[self.system_name],
            "scorer": primary,
            "scorer_config": self.scorer_records(),
            "accuracy_exact_mask": pct([r["exact"]["pass"] for r in records]),
            "accuracy_offline_mask": pct([r["offline"]["pass"] for r in records]),
            "false_accept_far_color": pct([r["far_accepted"] for r in records]),
            "offline_mask_iou_mean": float(np.mean([r["offline_mask_iou"] for r in records])) if records else None,
            "by_family": by_family,
            "worst_family": None if worst is None else {"family": worst, **by_family[worst][primary]["exact_mask"]},
            "chroma_excess_max": max((r["exact"].get("chroma_excess") or 0.0 for r in records), default=None),
        }
        # images whose truth was clipped before a later colour transform, apart from the rest of
        # their family: a truth only the clipped side shows is a question about the measurement
        out["truth_clipped"] = {
            fam: {
                "clipped": pct([self._outcomes(r, primary)[0] for r in of if r.get("truth_clipped")]),
                "rest": pct([self._outcomes(r, primary)[0] for r in of if not r.get("truth_clipped")]),
            }
            for fam, of in family_records.items()
            if any(r.get("truth_clipped") for r in of)
        }

        # what each step of a family costs: its images against the same objects plain (unprocessed,
        # under white light, untextured: families.PLAIN), primary scorer, exact masks
        def cost(of: Sequence[dict[str, Any]]) -> dict[str, Any]:
            made = [self._outcomes(r, primary)[0] for r in of]
            plain = [bool(r["plain"]["pass"]) for r in of]
            return {
                "plain": pct(plain),
                "as_made": pct(made),
                "caused": sum(p and not m for p, m in zip(plain, made, strict=True)),
                "mended": sum(m and not p for p, m in zip(plain, made, strict=True)),
            }

        # a family only where every record has its plain score (a run resumed from records made
        # before there were plain images would give a part for the whole); "all" in the records'
        # order: the family's own interval
        step_costs = {
            fam: {**{step: cost(rs) for step, rs in grouped(lambda r: r["step"], of).items()}, "all": cost(of)}
            for fam, of in family_records.items()
            if all("plain" in r for r in of)
        }
        if step_costs:  # absent, as before plain images, where no family has them
            out["step_costs"] = step_costs
        # diffuse and glossy objects apart: the glossy ones carry most of the error (docs/gencolor.md)
        out["by_material"] = {
            material: {
                "exact_mask": pct([r["exact"]["pass"] for r in of]),
                "offline_mask": pct([r["offline"]["pass"] for r in of]),
            }
            for material, of in grouped(lambda r: r["material"]).items()
        }
        fails = [r for r in records if not r["exact"]["pass"]]
        out["exact_failures_by_metric"] = {
            k: sum(1 for r in fails if not r["exact"]["passes"].get(k, False))
            for k in ("delta_e00", "delta_chroma", "delta_hue")
        }
        if records and "vlm" in records[0]:
            answers = [a for r in records for a in r["vlm"]]
            per_q = {
                q: 100.0 * float(np.mean([a["correct"] for a in answers if a["q"] == q]))
                for q in dict.fromkeys(a["q"] for a in answers)
            }
            kinds = {
                "open-ended": ("name", "hex"),
                "mcq": ("mcq",),
                "binary": ("verify-name", "verify-rgb", "verify-hex"),
            }
            out["vlm"] = {
                "overall": 100.0 * float(np.mean([a["correct"] for a in answers])),
                **{
                    k: 100.0 * float(np.mean([a["correct"] for a in answers if a["q"] in qs]))
                    for k, qs in kinds.items()
                    if any(a["q"] in qs for a in answers)
                },
                "per_question": per_q,
            }
        for key in ("object", "lighting", "background"):
            out[f"by_{key}"] = {
                g: 100.0 * float(np.mean([r["exact"]["pass"] for r in of]))
                for g, of in grouped(lambda r, k=key: r[k], [r for r in records if key in r]).items()
            }
        return out

    def _picture_sections(self, results: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Any]:
        """The gallery (failures first), accuracy per colour × family with swatches, and the
        scorers' settings as a table."""
        from huebench.benchmarks.gencolor.cards import score_card
        from huebench.report.gallery import lab_hex
        from huebench.report.html import Section
        from huebench.report.svg import heatmap_svg

        m = results["metrics"]
        configs = m.get("scorer_config") or {}
        primary = configs.get(m["scorer"], {})
        thresholds = {"jnd": primary.get("jnd", 5.0), "hue_threshold": primary.get("hue_threshold", 5.0)}
        cards = []
        for r in records:
            if "thumbnail" not in r:
                continue
            other = r.get("other_scorers") or {}
            extra = [(f"{n} scorer", lab_hex(o.get("dominant_lab"))) for n, o in other.items()]
            tags = {
                "family": str(r.get("family")),
                "material": str(r.get("material")),
                "step": str(r.get("step")),
                "object": str(r.get("object")),
                "offline mask": "pass" if r["offline"]["pass"] else "fail",
                "far colour": f"{r.get('far_color')} {'accepted' if r.get('far_accepted') else 'rejected'}",
            }
            images = [r["thumbnail"]]
            if "plain_thumbnail" in r:  # after the image, the same object plain
                images.append(r["plain_thumbnail"])
                tags[f"second image: {PLAIN[str(r['family'])]}"] = "pass" if r["plain"]["pass"] else "fail"
            cards.append(
                score_card(r["id"], r["exact"], images=images, thresholds=thresholds, tags=tags, extra_swatches=extra)
            )
        sections = []
        if cards:
            n_fail = sum(1 for c in cards if c.passed is False)
            sections.append(
                Section(
                    "Images, failures first",
                    gallery=cards,
                    note=(
                        f"{n_fail} images the exact-mask test got wrong and every image another test got wrong "
                        f"(offline mask, far colour), with one in {PASS_SAMPLE} of the rest; outline: the mask's "
                        "edge, which the scorer leaves out. Swatches: the target, the dominant colour each scorer found. "
                        f"A {', '.join(list(PLAIN)[:-1])} or {list(PLAIN)[-1]} image's card shows, second, the same "
                        f"object plain ({'; '.join(PLAIN.values())})."
                    ),
                )
            )
        families = list(dict.fromkeys(str(r["family"]) for r in records))
        colors: dict[str, str] = {}
        for r in records:
            colors.setdefault(str(r["color"]), "#{:02x}{:02x}{:02x}".format(*r["rgb"]))
        if families and colors:
            cells: dict[tuple[str, str], list[bool]] = {}
            for r in records:
                cells.setdefault((str(r["color"]), str(r["family"])), []).append(bool(r["exact"]["pass"]))
            matrix = [[100.0 * sum(v) / len(v) if (v := cells.get((c, f))) else None for f in families] for c in colors]
            sections.append(
                Section(
                    f"Accuracy by colour and family (exact masks, {m['scorer']} scorer)",
                    svg=heatmap_svg(
                        matrix,
                        list(colors),
                        families,
                        vmin=0.0,
                        vmax=100.0,
                        fmt="{:.0f}",
                        row_colors=list(colors.values()),
                    ),
                )
            )
        if configs:
            keys = list(dict.fromkeys(k for c in configs.values() for k in c))
            sections.append(
                Section(
                    "Scorer settings",
                    table={
                        "columns": ["setting", *configs],
                        "rows": [[k, *(_setting_text(c.get(k)) for c in configs.values())] for k in keys],
                    },
                    note="every setting is recorded in config.json; --resume refuses another configuration",
                )
            )
        return sections

    def report_sections(self, results: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Any]:
        from huebench.benchmarks.gencolor.cards import METRIC_NAMES
        from huebench.report.html import Section, fmt_num
        from huebench.report.svg import bar_chart_svg

        m = results["metrics"]

        def row(name: str, v: dict[str, Any]) -> list[str]:
            return [name, fmt_num(v["value"], 2), f"[{fmt_num(v['low'], 2)}, {fmt_num(v['high'], 2)}]", str(v["n"])]

        rows = [
            row("accuracy, exact masks", m["accuracy_exact_mask"]),
            row("accuracy, offline segmentation", m["accuracy_offline_mask"]),
            row("false accepts of a far colour", m["false_accept_far_color"]),
            [
                "the paper's own figure for its scorer, on its own renders (not these images)",
                fmt_num(m["paper_accuracy"], 2),
                "",
                "",
            ],
        ]
        rows += [
            row(f"accuracy, exact masks, {material} objects", acc["exact_mask"])
            for material, acc in m.get("by_material", {}).items()
        ]
        for fam, split in m.get("truth_clipped", {}).items():
            rows.append(row(f"{fam}: images whose truth was clipped before a later colour transform", split["clipped"]))
            rows.append(row(f"{fam}: the other images", split["rest"]))
        family_rows = [
            [
                fam,
                n,
                *(
                    f"{fmt_num(v[k]['value'], 2)} [{fmt_num(v[k]['low'], 1)}, {fmt_num(v[k]['high'], 1)}]"
                    for k in ("exact_mask", "offline_mask", "false_accepts")
                ),
                str(v["exact_mask"]["n"]),
            ]
            for fam, per in m.get("by_family", {}).items()
            for n, v in per.items()
        ]
        objs = m["by_object"]
        vlm_sections = []
        if "vlm" in m:
            v = m["vlm"]
            cols = ["model", "overall", *[k for k in ("open-ended", "mcq", "binary") if k in v], *v["per_question"]]
            vlm_row = [
                results["model"],
                fmt_num(v["overall"], 2),
                *[fmt_num(v[k], 2) for k in ("open-ended", "mcq", "binary") if k in v],
                *[fmt_num(x, 2) for x in v["per_question"].values()],
            ]
            vlm_sections.append(
                Section(
                    "VLM as judge (Table 10 shape)",
                    table={"columns": cols, "rows": [vlm_row]},
                    note="verification questions are asked with the true and with a far value: always answering yes scores 50 %",
                )
            )
        pictures = self._picture_sections(results, records)
        return [
            *vlm_sections,
            Section(
                f"Known-colour diagnostic ({m['system']})",
                table={"columns": ["measure", "%", "95% CI", "n"], "rows": rows},
                note=(
                    f"scorer: {m['scorer']}; failures by metric (exact masks): "
                    + ", ".join(f"{METRIC_NAMES.get(k, k)} {v}" for k, v in m["exact_failures_by_metric"].items())
                    + f"; offline mask IoU {fmt_num(m['offline_mask_iou_mean'], 3)}. The paper's method scores far "
                    "lower on these images than its published figure: its mean lightness includes the shadows, and "
                    "the truth is the lit colour (docs/gencolor.md)."
                ),
            ),
            Section(
                "Accuracy by image family, both scorers",
                table={
                    "columns": [
                        "family",
                        "scorer",
                        "exact masks %",
                        "offline segmentation %",
                        "far-colour false accepts %",
                        "n",
                    ],
                    "rows": family_rows,
                },
                note=(
                    f"worst family ({m['scorer']} scorer): {(m.get('worst_family') or {}).get('family')}; "
                    if len(m["by_family"]) > 1
                    else ""
                )
                + "families: docs/gencolor.md",
            ),
            *pictures,  # the headline numbers first, then the images and the rest
            Section(
                f"Accuracy by family, material and step ({m['scorer']} scorer)",
                table={
                    "columns": ["family", "material or step", "exact masks %", "offline segmentation %", "n"],
                    "rows": [
                        [fam, name, fmt_num(v["exact"], 1), fmt_num(v["offline"], 1), str(v["n"])]
                        for fam, per in m.get("by_family", {}).items()
                        for part in ("by_material", "by_step")
                        for name, v in per[m["scorer"]][part].items()
                    ],
                },
            ),
            *(
                [
                    Section(
                        f"What each step costs: the same objects plain ({m['scorer']} scorer, exact masks)",
                        table={
                            "columns": [
                                "family",
                                "step",
                                "plain",
                                "plain %",
                                "as made %",
                                "failures it caused",
                                "failures it mended",
                                "n",
                            ],
                            "rows": [
                                [
                                    fam,
                                    step,
                                    PLAIN[fam],
                                    fmt_num(v["plain"]["value"], 1),
                                    fmt_num(v["as_made"]["value"], 1),
                                    str(v["caused"]),
                                    str(v["mended"]),
                                    str(v["as_made"]["n"]),
                                ]
                                for fam, steps in m["step_costs"].items()
                                for step, v in steps.items()
                            ],
                        },
                        note="each image beside the same object plain, its truth the albedo: a failure the step "
                        "caused passes plain and fails as made (docs/gencolor.md)",
                    )
                ]
                if m.get("step_costs")
                else []
            ),
            Section(
                "Accuracy by object (exact masks)",
                svg=bar_chart_svg(list(objs), list(objs.values()), ymax=100.0, ylabel="% correct"),
            ),
            Section(
                "Accuracy by lighting / background (exact masks)",
                table={
                    "columns": ["set-up", "% correct"],
                    "rows": [[k, fmt_num(v, 1)] for k, v in {**m["by_lighting"], **m["by_background"]}.items()],
                },
            ),
        ]
