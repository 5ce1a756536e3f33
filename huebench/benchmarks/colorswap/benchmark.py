"""``huebench run colorswap``: ITM heads, contrastive scores or VLM prompts on Winoground-schema data.

Options (``-o KEY=VALUE``): ``data`` (JSONL/folder or ``hf:stanfordnlp/colorswap``; required),
``split`` (default ``test``), ``head`` (``auto`` = the ITM head when the model has one, else
contrastive; or ``itm`` / ``contrastive`` to pick BLIP's and FLAVA's other head),
``control=random-pairs`` (Appendix E: pair each example with a random other one instead of its
swap), ``max_new_tokens`` for VLM answers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

from huebench.benchmarks.base import Benchmark, Sample, register_benchmark
from huebench.benchmarks.colorswap.data import WinoExample, load_examples
from huebench.benchmarks.colorswap.scoring import (
    IMAGE_PROMPT,
    TEXT_PROMPT,
    parse_answer,
    score_matrix_outcome,
    score_vlm_records,
    summarize_matrices,
)
from huebench.errors import HuebenchError
from huebench.models.base import Capability, Model
from huebench.models.requests import Answers, Generation, ImageTextScores, MatchProbability, Part

#: at most this many wrong pairs are pictured in a report
GALLERY_PAIRS = 120

__all__ = ["ColorSwap"]


def _coin(*keys: Any) -> bool:
    h = hashlib.sha256("\x00".join(map(str, keys)).encode()).digest()
    return h[0] & 1 == 1


@register_benchmark("colorswap")
class ColorSwap(Benchmark):
    name = "colorswap"
    description = "ColorSwap (and any Winoground-schema data): text / image / group scores"
    capabilities = (Capability.ITM, Capability.IMAGE_TEXT_SCORE, Capability.VLM)
    path_options = ("data",)
    option_help: ClassVar[dict[str, str]] = {
        "data": "examples.jsonl, or a folder holding it and the images (docs/colorswap.md, The examples file); "
        "or hf:stanfordnlp/colorswap.",
        "split": "Only the examples of this split (a file's split field; examples without one are in every split).",
        "head": "auto, itm or contrastive (BLIP's and FLAVA's other head).",
        "control": "random-pairs: each example against a random other one (Appendix E).",
        "max_new_tokens": "Tokens a VLM may generate per answer.",
    }

    def __init__(
        self,
        seed: int = 0,
        data: str | None = None,
        split: str | None = "test",
        head: str = "auto",
        control: str | None = None,
        max_new_tokens: int = 64,
        **options: Any,
    ):
        super().__init__(
            seed=seed, data=data, split=split, head=head, control=control, max_new_tokens=max_new_tokens, **options
        )
        if data is None:
            raise HuebenchError(
                "colorswap needs its data: -o data=PATH (JSONL or folder) or -o data=hf:stanfordnlp/colorswap"
            )
        if head not in ("auto", "itm", "contrastive"):
            raise HuebenchError(f"head must be auto, itm or contrastive, got {head!r}")
        if control not in (None, "random-pairs"):
            raise HuebenchError(f"control must be random-pairs or unset, got {control!r}")
        self.seed, self.data, self.split, self.head, self.control = seed, data, split, head, control
        self.max_new_tokens = int(max_new_tokens)
        if self.max_new_tokens < 1:
            raise HuebenchError(f"colorswap: max_new_tokens must be at least 1, got {max_new_tokens}")
        self._examples: dict[str, WinoExample] | None = None

    def check_model(self, model: Model) -> Capability:
        if self.head == "itm":
            model.require(Capability.ITM)
            return Capability.ITM
        if self.head == "contrastive":
            model.require(Capability.IMAGE_TEXT_SCORE)
            return Capability.IMAGE_TEXT_SCORE
        return self._first_capability(model)

    def examples(self) -> dict[str, WinoExample]:
        if self._examples is None:
            base = load_examples(self.data, split=self.split)
            if self.control == "random-pairs":
                base = self._random_pairs(base)
            self._examples = {e.id: e for e in base}
        return self._examples

    def _random_pairs(self, examples: list[WinoExample]) -> list[WinoExample]:
        """Appendix E: each example's first pair against another example's first pair (a seeded derangement)."""
        if len(examples) < 2:
            raise HuebenchError("the random-pairs control needs at least 2 examples")
        rng = np.random.default_rng(self.seed)
        n = len(examples)
        perm = rng.permutation(n)
        while np.any(perm == np.arange(n)):
            perm = rng.permutation(n)
        out = []
        for k, j in enumerate(perm):
            a, b = examples[k], examples[int(j)]
            out.append(
                WinoExample(
                    f"{a.id}+{b.id}",
                    a.caption_1,
                    b.caption_1,
                    a.image_1,
                    b.image_1,
                    a.split,
                    (a.image_ids[0], b.image_ids[0]),
                )
            )
        return out

    def samples(self) -> list[Sample]:
        return [Sample(e.id, {"caption_1": e.caption_1, "caption_2": e.caption_2}) for e in self.examples().values()]

    def evaluate(self, samples: Sequence[Sample], model: Model, ctx: Answers) -> Iterable[dict[str, Any]]:
        cap = self.check_model(model)
        exs = [self.examples()[s.id] for s in samples]
        if cap is Capability.VLM:
            yield from self._evaluate_vlm(exs, model, ctx)
            return
        images = [e.images() for e in exs]
        if cap is Capability.ITM:
            flat = ctx.answer(
                [
                    MatchProbability(np.asarray(imgs[i]), (e.caption_1, e.caption_2)[c])
                    for e, imgs in zip(exs, images, strict=True)
                    for c in (0, 1)
                    for i in (0, 1)
                ]
            )
            mats = [[[flat[4 * k + 2 * c + i]["output"] for i in (0, 1)] for c in (0, 1)] for k in range(len(exs))]
            bsz = [flat[4 * k]["batch_size"] for k in range(len(exs))]
        else:
            outs = ctx.answer(
                [
                    ImageTextScores(tuple(np.asarray(im) for im in imgs), (e.caption_1, e.caption_2))
                    for e, imgs in zip(exs, images, strict=True)
                ]
            )
            # score() is images × texts; the Winoground matrix is captions × images
            mats = [np.asarray(o["output"]).T.tolist() for o in outs]
            bsz = [o["batch_size"] for o in outs]
        for e, m, b in zip(exs, mats, bsz, strict=True):
            o = score_matrix_outcome(m)
            fails = [k for k in ("text", "image") if not o[k]]
            reason = (
                "all comparisons right"
                if not fails
                else f"{' and '.join(fails)} wrong" + (" (a tie)" if any(o[f"tie_{k}"] for k in fails) else "")
            )
            yield {
                "id": e.id,
                "status": "ok",
                "caption_1": e.caption_1,
                "caption_2": e.caption_2,
                "image_1": e.image_ids[0],
                "image_2": e.image_ids[1],
                "head": "itm" if cap is Capability.ITM else "contrastive",
                "scores": m,
                **o,
                "reason": f"s(c1,i1)={m[0][0]:.4g} s(c1,i2)={m[0][1]:.4g} s(c2,i1)={m[1][0]:.4g} s(c2,i2)={m[1][1]:.4g}: {reason}",
                "batch_size": b,
            }

    def _queries(self, e: WinoExample) -> list[dict[str, Any]]:
        """The four VLM queries of an example with seeded, recorded option order."""
        caps = (e.caption_1, e.caption_2)
        qs = []
        for subject in (0, 1):
            flip = _coin(self.seed, e.id, "text", subject)
            order = [1 - subject, subject] if flip else [subject, 1 - subject]
            qs.append(
                {
                    "query": "text",
                    "subject": subject,
                    "order": order,
                    "options": [caps[k] for k in order],
                    "correct": order.index(subject),
                }
            )
        for subject in (0, 1):
            flip = _coin(self.seed, e.id, "image", subject)
            order = [1 - subject, subject] if flip else [subject, 1 - subject]
            qs.append(
                {
                    "query": "image",
                    "subject": subject,
                    "order": order,
                    "options": [e.image_ids[k] or f"image_{k + 1}" for k in order],
                    "correct": order.index(subject),
                }
            )
        return qs

    def _evaluate_vlm(self, exs: Sequence[WinoExample], model: Model, ctx: Answers) -> Iterable[dict[str, Any]]:
        per_ex = []
        reqs: list[Generation] = []
        for e in exs:
            imgs = e.images()
            qs = self._queries(e)
            per_ex.append((e, qs))
            for q in qs:
                parts: tuple[Part, ...]  # one image and the question, or two images and the caption
                if q["query"] == "text":
                    prompt = TEXT_PROMPT.format(caption_1=q["options"][0], caption_2=q["options"][1])
                    parts = (np.asarray(imgs[q["subject"]]), prompt)
                else:
                    prompt = IMAGE_PROMPT.format(caption=(e.caption_1, e.caption_2)[q["subject"]])
                    parts = (np.asarray(imgs[q["order"][0]]), np.asarray(imgs[q["order"][1]]), prompt)
                q["prompt"] = prompt
                reqs.append(Generation(parts, self.max_new_tokens))
        outs = ctx.answer(reqs)
        k = 0
        for e, qs in per_ex:
            recs = []
            for q in qs:
                response = str(outs[k]["output"])
                choice = parse_answer(response, q["options"], q["query"])
                recs.append(
                    {
                        "example_id": e.id,
                        "query": q["query"],
                        "subject": q["subject"],
                        "options": q["options"],
                        "correct": q["correct"],
                        "response": response,
                        "prompt": q["prompt"],
                        "choice": choice,
                    }
                )
                k += 1
            right = {(r["query"], r["subject"]): r["choice"] == r["correct"] for r in recs}
            text, image = right[("text", 0)] and right[("text", 1)], right[("image", 0)] and right[("image", 1)]
            unparseable = sum(r["choice"] is None for r in recs)
            yield {
                "id": e.id,
                "status": "ok",
                "caption_1": e.caption_1,
                "caption_2": e.caption_2,
                "queries": recs,
                "text": text,
                "image": image,
                "group": text and image,
                "unparseable": unparseable,
                "reason": f"{sum(right.values())}/4 queries right"
                + (f", {unparseable} unparseable" if unparseable else ""),
                "batch_size": outs[k - 1]["batch_size"],
            }

    def metrics(self, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        if records and "queries" in records[0]:
            s = score_vlm_records(
                [{k: v for k, v in q.items() if k not in ("prompt", "choice")} for r in records for q in r["queries"]],
                seed=self.seed,
            )
            return {
                "kind": "vlm",
                **{
                    k: {"value": s[k], "low": s["ci"][k][0], "high": s["ci"][k][1], "n": s["n"]}
                    for k in ("text", "image", "group")
                },
                "unparseable_percent": s["unparseable"],
                "chance": s["chance"],
            }
        return {"kind": "matching", **summarize_matrices(records, seed=self.seed)}

    def _pair_gallery(self, records: Sequence[dict[str, Any]]) -> list[Any]:
        """The pairs the model got wrong, side by side: both images, both captions, the model's
        scores or answers (at most :data:`GALLERY_PAIRS`, worst first: group, then text/image)."""
        from huebench.report.gallery import GalleryItem, thumbnail_uri
        from huebench.report.html import Section

        wrong = [r for r in records if r.get("group") is False][:GALLERY_PAIRS]
        if not wrong:
            return []
        try:
            examples = self.examples()
        except (OSError, HuebenchError):
            examples = {}  # the data moved since the run: cards without pictures
        cards = []
        for r in wrong:
            e = examples.get(r["id"])
            images = []
            if e is not None:
                try:
                    images = [thumbnail_uri(np.asarray(im.convert("RGB"))) for im in e.images()]
                except (OSError, ValueError, HuebenchError):
                    images = []
            missed = [k for k in ("text", "image") if r.get(k) is False]
            cards.append(
                GalleryItem(
                    str(r["id"]),
                    False,
                    reason=str(r.get("reason", "")),
                    images=images,
                    tags={
                        "caption 1": str(r.get("caption_1")),
                        "caption 2": str(r.get("caption_2")),
                        "wrong": ", ".join(missed) or "group",
                    },
                    sort_key=float(len(missed)),
                )
            )
        return [
            Section(
                "Pairs the model got wrong (image 1, image 2)",
                gallery=cards,
                note=f"{len(cards)} of {sum(1 for r in records if r.get('group') is False)} wrong pairs; "
                "caption 1 belongs to image 1. Reason: the four scores s(caption, image), or the VLM's answers.",
            )
        ]

    def report_sections(self, results: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Any]:
        from huebench.report.html import Section, bar_chart_svg, fmt_num

        m = results["metrics"]
        if "text" not in m:
            return []
        head = "VLM" if m.get("kind") == "vlm" else next((r.get("head", "") for r in records), "")
        row = [results["model"], head]
        for k in ("text", "image", "group"):
            row.append(f"{fmt_num(m[k]['value'], 2)} [{fmt_num(m[k]['low'], 2)}, {fmt_num(m[k]['high'], 2)}]")
        chance = m["chance"]
        rows = [["random chance", "", *(fmt_num(chance[k], 2) for k in ("text", "image", "group"))], row]
        extra = (
            f"ties: text {m['ties']['text']}, image {m['ties']['image']}"
            if "ties" in m
            else f"unparseable answers: {fmt_num(m.get('unparseable_percent'), 2)} % of queries"
        )
        return [
            *self._pair_gallery(records),
            Section(
                "ColorSwap scores (Table 2 / 7 shape, 95 % paired bootstrap intervals)",
                table={"columns": ["model", "method", "text ↑", "image ↑", "group ↑"], "rows": rows},
                note=extra,
            ),
            Section(
                "Scores with intervals",
                svg=bar_chart_svg(
                    ["text", "image", "group"],
                    [m[k]["value"] for k in ("text", "image", "group")],
                    [m[k]["low"] for k in ("text", "image", "group")],
                    [m[k]["high"] for k in ("text", "image", "group")],
                    ymax=100.0,
                    ylabel="%",
                ),
            ),
        ]
