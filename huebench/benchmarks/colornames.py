"""``colornames``: a small built-in benchmark — name the colour of a plain patch.

Not one of the four papers: a sanity check that runs offline with any image-text-score, ITM or
VLM model (and the harness's own smoke test). Each sample is a 64×64 patch of one of the 11
basic colours (its ISCC-NBS prototype, at ``variants`` lightness/chroma variations, with mild
pixel noise); the model picks one of the 11 names:

- image-text score: argmax over "a photo of a {colour} square." for the 11 colours;
- ITM: argmax of the match probability of the same 11 captions;
- VLM: argmax of the yes-probability of "Is the square in this image {colour}? Answer yes or no."

Metrics: accuracy with a seeded bootstrap interval, per-colour accuracy, 11×11 confusion.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from PIL import Image

from huebench.benchmarks.base import Benchmark, Sample, register_benchmark
from huebench.color import basic_terms, lab_to_lch, lab_to_srgb, lch_to_lab, load_system
from huebench.errors import HuebenchError
from huebench.models.base import Capability, Model
from huebench.models.requests import Answers, ImageTextScores, MatchProbability, YesProbability, group_outputs
from huebench.stats import bootstrap_ci

CAPTION = "a photo of a {color} square."
#: lightness variants per basic colour (11 × 1,000 samples at most)
MAX_VARIANTS = 1000
#: patches shown in the report's gallery, the failures first (a run may have 11,000)
GALLERY_PATCHES = 330
QUESTION = "Is the square in this image {color}? Answer yes or no."


def patch_image(rgb: Sequence[int], seed: int, size: int = 64) -> Image.Image:
    rng = np.random.default_rng(seed)
    px = np.clip(np.asarray(rgb, dtype=np.float64) + rng.normal(0.0, 3.0, (size, size, 3)), 0, 255)
    return Image.fromarray(px.round().astype(np.uint8))


@register_benchmark("colornames")
class ColorNames(Benchmark):
    name = "colornames"
    description = "Name the colour of a plain patch (11 basic terms); built-in sanity benchmark"
    capabilities = (Capability.IMAGE_TEXT_SCORE, Capability.ITM, Capability.VLM)

    def __init__(self, seed: int = 0, variants: int = 3, **options: Any):
        super().__init__(seed=seed, variants=variants, **options)
        self.seed = seed
        self.variants = int(variants)
        if not 1 <= self.variants <= MAX_VARIANTS:  # samples are built in memory: bound them
            raise HuebenchError(f"colornames: variants must be 1 to {MAX_VARIANTS}, got {variants}")

    def samples(self) -> list[Sample]:
        out: list[Sample] = []
        basic = load_system("basic")
        for term in basic_terms():
            lch = basic.get(term).lch
            for v in range(self.variants):
                # lightness steps of ±8 around the prototype, chroma kept (achromatic stays achromatic)
                shifted = lch + np.array([8.0 * (v - (self.variants - 1) / 2), 0.0, 0.0])
                rgb = np.round(lab_to_srgb(lch_to_lab(shifted), clip=True) * 255).astype(int).tolist()
                out.append(
                    Sample(
                        id=f"{term}-{v}", inputs={"color": term, "rgb": rgb, "image_seed": self.seed * 1000 + len(out)}
                    )
                )
        return out

    def evaluate(self, samples: Sequence[Sample], model: Model, ctx: Answers) -> Iterable[dict[str, Any]]:
        terms = basic_terms()
        cap = self.check_model(model)
        images = [patch_image(s.inputs["rgb"], s.inputs["image_seed"]) for s in samples]
        arrays = [np.asarray(im) for im in images]
        if cap is Capability.IMAGE_TEXT_SCORE:
            captions = tuple(CAPTION.format(color=t) for t in terms)
            # one call for the chunk's patches against the 11 captions, as colornames has always scored
            answers = ctx.answer([ImageTextScores((a,), captions, batch_images=True) for a in arrays])
            outs = [{"output": o["output"][0], "batch_size": o["batch_size"]} for o in answers]
        elif cap is Capability.ITM:
            outs = group_outputs(
                ctx.answer([MatchProbability(a, CAPTION.format(color=t)) for a in arrays for t in terms]), len(terms)
            )
        else:
            outs = group_outputs(
                ctx.answer([YesProbability((a, QUESTION.format(color=t))) for a in arrays for t in terms]), len(terms)
            )
        for s, o in zip(samples, outs, strict=True):
            scores = [float(x) for x in o["output"]]
            pred = terms[int(np.argmax(scores))]
            yield {
                "id": s.id,
                "status": "ok",
                "color": s.inputs["color"],
                "rgb": s.inputs["rgb"],
                "scores": scores,
                "prediction": pred,
                "correct": pred == s.inputs["color"],
                "reason": f"highest score for {pred!r} ({max(scores):.4g}); target {s.inputs['color']!r} scored {scores[terms.index(s.inputs['color'])]:.4g}",
                "batch_size": o["batch_size"],
            }

    def metrics(self, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        terms = basic_terms()
        correct = [1.0 if r["correct"] else 0.0 for r in records]
        per_color = {
            t: bootstrap_ci([1.0 if r["correct"] else 0.0 for r in records if r["color"] == t], seed=self.seed)
            for t in terms
        }
        confusion = [
            [sum(1 for r in records if r["color"] == a and r["prediction"] == b) for b in terms] for a in terms
        ]
        return {
            "accuracy": bootstrap_ci(correct, seed=self.seed),
            "chance": 1.0 / len(terms),
            "per_color": per_color,
            "confusion": {"labels": terms, "matrix": confusion},
        }

    def report_sections(self, results: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Any]:
        from huebench.report.html import Section, bar_chart_svg, fmt_estimate, fmt_percent, heatmap_svg

        m = results["metrics"]
        acc = m["accuracy"]
        rows = [  # accuracies as percentages, as in every summary; results.json keeps fractions
            ["accuracy", fmt_estimate(acc["value"], acc["low"], acc["high"], 1), str(acc["n"])],
            ["chance", fmt_percent(m["chance"], 1), ""],
        ]
        terms = m["confusion"]["labels"]
        pc = m["per_color"]
        swatches = {t: load_system("basic").get(t).hex for t in terms}

        def percent(v: float | None) -> float:
            return float("nan") if v is None else 100.0 * v  # a colour without samples: no bar

        return [
            Section("Accuracy", table={"columns": ["metric", "value [95% CI]", "n"], "rows": rows}),
            Section(
                "Per-colour accuracy",
                svg=bar_chart_svg(
                    terms,
                    [percent(pc[t]["value"]) for t in terms],
                    [percent(pc[t]["low"]) for t in terms],
                    [percent(pc[t]["high"]) for t in terms],
                    colors=[swatches[t] for t in terms],
                    ylabel="accuracy (%)",
                    ymax=100.0,
                    reference=100.0 * m["chance"],
                    reference_label=f"chance {fmt_percent(m['chance'], 1)}",
                ),
            ),
            Section(
                "Confusion (rows: true colour, columns: predicted)",
                svg=heatmap_svg(
                    m["confusion"]["matrix"],
                    terms,
                    terms,
                    row_colors=[swatches[t] for t in terms],
                    col_colors=[swatches[t] for t in terms],
                ),
            ),
            self._patch_gallery(records, swatches),
        ]

    def _patch_gallery(self, records: Sequence[dict[str, Any]], swatches: dict[str, str]) -> Any:
        """Every patch as a swatch beside the swatches of its true and its predicted name, failures
        first (worst first: the largest lead of the predicted name's score over the true one's); at
        most :data:`GALLERY_PATCHES`, the failures before the rest."""
        from huebench.color import parse
        from huebench.report.gallery import GalleryItem
        from huebench.report.html import Section

        terms = basic_terms()
        shown = sorted(records, key=lambda r: bool(r["correct"]))[:GALLERY_PATCHES]  # stable: file order kept
        cards = []
        for r in shown:
            scores = r["scores"]
            lead = max(scores) - scores[terms.index(r["color"])]
            cards.append(
                GalleryItem(
                    str(r["id"]),
                    bool(r["correct"]),
                    reason=str(r.get("reason", "")),
                    swatches=[
                        ("patch", parse(tuple(r["rgb"])).hex),  # 8-bit sRGB
                        (f"true: {r['color']}", swatches[r["color"]]),
                        (f"predicted: {r['prediction']}", swatches[r["prediction"]]),
                    ],
                    tags={"true": r["color"], "predicted": r["prediction"]},
                    sort_key=float(lead),
                )
            )
        wrong = sum(1 for r in records if not r["correct"])
        return Section(
            "Patches: true and predicted name",
            gallery=cards,
            note=f"{len(cards)} of {len(records)} patches ({wrong} wrong), failures first; each card shows the "
            "patch's colour, the prototype of its true name and of the name the model chose",
        )


__all__ = ["ColorNames", "lab_to_lch"]
