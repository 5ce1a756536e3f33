"""ColorBench's report sections: the images of the questions a model got wrong (failures first), the
robustness instances it broke, accuracy per task and group with intervals and chance, and the
recoloured variants' scores and edit sizes when the run made them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from huebench.benchmarks.colorbench.data import LETTERS
from huebench.benchmarks.colorbench.scoring import summary_rows
from huebench.errors import HuebenchError

if TYPE_CHECKING:
    from huebench.benchmarks.colorbench.benchmark import ColorBench
    from huebench.benchmarks.colorbench.data import Question
    from huebench.report.html import Section

__all__ = ["report_sections"]

#: at most this many images on one robustness card (the seed and the variants answered wrongly)
CARD_IMAGES = 3


def _thumbnail(bench: ColorBench, questions: dict[str, Question], r: dict[str, Any]) -> list[str]:
    """The record's image as a thumbnail (recoloured again for a variant the run made), or none
    when the data cannot be read any more (a card still says what was decided)."""
    from huebench.color.recolor import recolor
    from huebench.report.gallery import thumbnail_uri

    spec = r.get("recolor")
    q = questions.get(str(r["question_id"]) if spec else str(r["id"]))
    if q is None:
        return []
    try:
        image = q.load_image()
        if spec:
            image = recolor(image, spec["hue_shift"], method=spec["method"]).image
        return [thumbnail_uri(image)]
    except (OSError, ValueError, HuebenchError):
        return []


def _questions(bench: ColorBench) -> dict[str, Question]:
    try:
        return bench.questions()
    except (OSError, HuebenchError):
        return {}  # the data moved since the run: cards without pictures


def _wrong_gallery(bench: ColorBench, records: Sequence[dict[str, Any]], questions: dict[str, Question]) -> Section:
    from huebench.benchmarks.colorbench.benchmark import GALLERY_QUESTIONS
    from huebench.report.gallery import GalleryItem
    from huebench.report.html import Section

    wrong = [r for r in records if not r["correct"] and r["group"] != "Robustness"]
    cards = [
        GalleryItem(
            f"{r['task']} · {r['id']}",
            False,
            reason=str(r.get("reason", "")),
            images=_thumbnail(bench, questions, r),
            tags={
                "group": str(r["group"]),
                "question": str(r["prompt"]),
                "right": f"({r['answer']}) {r['choices'][LETTERS.index(r['answer'])]}",
                "read": str(r["prediction"]),
            },
            sort_key=0.5 if r["choice"] is None else 1.0,  # a wrong option before no option
        )
        for r in wrong[:GALLERY_QUESTIONS]
    ]
    return Section(
        "Perception and reasoning questions the model got wrong",
        gallery=cards,
        note=f"{len(cards)} of {len(wrong)} wrong answers, each with its image; 'read' is the option the parser "
        "read from the answer, and why (docs/colorbench.md, Reading answers).",
    )


def _robustness_gallery(
    bench: ColorBench, records: Sequence[dict[str, Any]], questions: dict[str, Question]
) -> Section | None:
    from huebench.benchmarks.colorbench.benchmark import GALLERY_INSTANCES
    from huebench.report.gallery import GalleryItem
    from huebench.report.html import Section

    by_instance: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if r["group"] == "Robustness":
            by_instance[str(r["instance"])].append(r)
    broken = [(i, rs) for i, rs in by_instance.items() if not all(r["correct"] for r in rs)]
    if not broken:
        return None
    cards = []
    for instance, rs in broken[:GALLERY_INSTANCES]:
        seed = next((r for r in rs if r["variant"] == "seed"), None)
        given = [r for r in rs if r is not seed and not r.get("recolor")]
        made = [r for r in rs if r.get("recolor")]
        wrong = [r for r in given + made if not r["correct"]]
        shown = ([seed] if seed is not None else []) + wrong[: CARD_IMAGES - 1]
        reason = f"seed {'missing' if seed is None else 'right' if seed['correct'] else 'wrong'}; "
        reason += f"{sum(not r['correct'] for r in given)} of {len(given)} recoloured variants wrong"
        if made:
            reason += f"; {sum(not r['correct'] for r in made)} of {len(made)} copies recoloured by the run wrong"
        cards.append(
            GalleryItem(
                f"instance {instance}",
                False,
                reason=reason,
                images=[uri for r in shown for uri in _thumbnail(bench, questions, r)],
                tags={
                    "question": str(rs[0]["prompt"]),
                    "right": f"({rs[0]['answer']}) {rs[0]['choices'][LETTERS.index(rs[0]['answer'])]}",
                    "wrong": ", ".join(f"{r['variant']} → {r['prediction']}" for r in wrong) or "none",
                },
                sort_key=float(len(wrong) + (seed is None or not seed["correct"])),
            )
        )
    return Section(
        "Robustness instances the model broke (the seed image first, then the variants it got wrong)",
        gallery=cards,
        note=f"{len(cards)} of {len(broken)} instances with a wrong answer: an instance is robust when its seed "
        "image and all nine recoloured variants are answered right.",
    )


def report_sections(bench: ColorBench, metrics: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Section]:
    from huebench.report.html import Section, bar_chart_svg, fmt_estimate, fmt_num, fmt_percent

    if "by_task" not in metrics:
        return []
    rows = [
        [group, name, str(est["n"]), fmt_estimate(est["value"], est["low"], est["high"], 1), fmt_percent(chance, 1)]
        for group, name, est, chance in summary_rows(metrics)
    ]
    ri = metrics["robust_instances"]
    unparsed = metrics["unparsed"]
    sections: list[Section] = []
    sections.append(
        Section(
            "ColorBench accuracy (95 % bootstrap intervals)",
            table={"columns": ["group", "task", "n", "accuracy [95% CI]", "chance"], "rows": rows},
            note=f"{ri['robust']} of {ri['instances']} robustness instances robust"
            + (f" ({ri['incomplete']} without their seed and nine variants)" if ri["incomplete"] else "")
            + f"; no option read from {fmt_percent(unparsed['value'], 1)} of the answers (counted wrong). "
            "Overall is Perception and Reasoning together, as upstream counts it.",
        )
    )
    by_task = metrics["by_task"]
    tasks = list(by_task)

    def percent(v: float | None) -> float:
        return float("nan") if v is None else 100.0 * v

    sections.append(
        Section(
            "Accuracy per task",
            svg=bar_chart_svg(
                tasks,
                [percent(by_task[t]["value"]) for t in tasks],
                [percent(by_task[t]["low"]) for t in tasks],
                [percent(by_task[t]["high"]) for t in tasks],
                ylabel="accuracy (%)",
                ymax=100.0,
                reference=[percent(metrics["chance"].get(f"by_task/{t}")) for t in tasks],
            ),
            note="dashed: each task's chance (one option guessed uniformly)",
        )
    )
    made = metrics.get("recolored")
    if made:
        shift_rows = [
            [
                f"{shift}°",
                str(m["accuracy"]["n"]),
                fmt_estimate(m["accuracy"]["value"], m["accuracy"]["low"], m["accuracy"]["high"], 1),
                fmt_num(m["delta_e00_mean"], 1),
                fmt_num(m["delta_l_mean"], 2),
            ]
            for shift, m in made["by_shift"].items()
        ]
        rob = made["robustness"]
        sections.append(
            Section(
                f"Recoloured by the run ({', '.join(made['methods'])}, whole image)",
                table={
                    "columns": ["hue shift", "n", "accuracy [95% CI]", "mean ΔE00 of the edit", "mean |ΔL*|"],
                    "rows": shift_rows,
                },
                note=f"robust under these recolourings (seed and every copy right): "
                f"{fmt_estimate(rob['value'], rob['low'], rob['high'], 1)} of {rob['n']} instances",
            )
        )
    questions = _questions(bench)
    sections.append(_wrong_gallery(bench, records, questions))
    robust_cards = _robustness_gallery(bench, records, questions)
    if robust_cards is not None:
        sections.append(robust_cards)
    return sections
