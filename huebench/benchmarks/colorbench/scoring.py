"""ColorBench's scores from per-question records, for a run and for upstream's saved result files.

- **Accuracy** per task, per group (Perception, Reasoning) and overall (the two groups together, as
  upstream counts it), each a share of questions answered right, with a seeded bootstrap 95 %
  interval over questions.
- **Color Robustness**: the share of robustness instances whose seed question *and* every recoloured
  variant were answered right (an instance missing its seed is not robust, as upstream), with a
  bootstrap interval over instances. Robustness questions are not part of the overall accuracy;
  their per-question accuracy is the task "Color Robustness".
- **Unparsed**: the share of answers from which no option could be read (they count as wrong).
- **Chance**: what guessing uniformly among each question's options scores on the same questions.
- **Recoloured** (only when the run made its own recoloured variants): accuracy on them, robustness
  under them, and the ΔE00 of the edits, per hue shift.

Upstream's result files (``evaluation/metrics_eval.py`` reads them) hold one JSON object per
question — ``type``, ``task``, ``choices``, ``answer``, ``model_ans``, ``filename`` — keyed by the
question's index (or listed); :func:`rescore_file` scores them with the same parser and metrics.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from huebench.benchmarks.colorbench.data import (
    LETTERS,
    Question,
    json_entries,
    question_from_row,
    task_order,
)
from huebench.benchmarks.colorbench.parsing import parse_choice
from huebench.io import InputFileError
from huebench.stats import bootstrap_ci

__all__ = ["RESULT_FIELDS", "answer_record", "rescore_file", "score_records", "summary_rows"]

#: the fields of a question in upstream's result files
RESULT_FIELDS = ("type", "task", "choices", "answer", "model_ans", "filename")


def _option(choices: Sequence[str], k: int) -> str:
    return f"({LETTERS[k]}) {choices[k]}"


def answer_record(q: Question, response: str) -> dict[str, Any]:
    """The record of one answered question: what was asked, the answer, the option read from it
    (:func:`~huebench.benchmarks.colorbench.parsing.parse_choice`) and whether it is right."""
    parsed = parse_choice(response, q.choices)
    right = _option(q.choices, q.answer)
    picked = "no option" if parsed.choice is None else _option(q.choices, parsed.choice)
    correct = parsed.choice == q.answer
    shown = " ".join(response.split())
    shown = shown if len(shown) <= 80 else shown[:79] + "…"
    return {
        "id": q.id,
        "status": "ok",
        "group": q.group,
        "task": q.task,
        "filename": q.filename,
        "instance": q.instance,
        "variant": q.variant,
        "prompt": q.prompt,
        "choices": list(q.choices),
        "answer": LETTERS[q.answer],
        "response": response,
        "choice": parsed.letter,
        "parse_rule": parsed.rule,
        "prediction": picked,
        "correct": correct,
        "reason": f"answered {shown!r}: {picked} ({parsed.rule})" + ("" if correct else f"; right: {right}"),
    }


def _accuracy(records: Sequence[dict[str, Any]], seed: int) -> dict[str, Any]:
    return bootstrap_ci([1.0 if r["correct"] else 0.0 for r in records], seed=seed)


def _chance(records: Sequence[dict[str, Any]]) -> float | None:
    return sum(1.0 / len(r["choices"]) for r in records) / len(records) if records else None


def _instances(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Robustness questions by instance: the seed's record and the variants' records."""
    out: dict[str, dict[str, Any]] = defaultdict(lambda: {"seed": None, "variants": []})
    for r in records:
        inst = out[str(r["instance"])]
        if r["variant"] == "seed" and inst["seed"] is None:
            inst["seed"] = r
        else:
            inst["variants"].append(r)
    return dict(out)


def _robust(inst: dict[str, Any], variants: Sequence[dict[str, Any]]) -> bool:
    return inst["seed"] is not None and bool(inst["seed"]["correct"]) and all(r["correct"] for r in variants)


def _recolored(records: Sequence[dict[str, Any]], seeds: dict[str, dict[str, Any]], seed: int) -> dict[str, Any]:
    by_instance: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_shift: dict[float, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_instance[str(r["instance"])].append(r)
        by_shift[float(r["recolor"]["hue_shift"])].append(r)
    robust = [1.0 if _robust(seeds.get(i, {"seed": None}), rs) else 0.0 for i, rs in by_instance.items()]
    return {
        "methods": sorted({str(r["recolor"]["method"]) for r in records}),
        "accuracy": _accuracy(records, seed),
        "robustness": bootstrap_ci(robust, seed=seed),
        "by_shift": {
            f"{shift:g}": {
                "accuracy": _accuracy(rs, seed),
                "delta_e00_mean": sum(r["recolor"]["delta_e00_mean"] for r in rs) / len(rs),
                "delta_l_mean": sum(r["recolor"]["delta_l_mean"] for r in rs) / len(rs),
            }
            for shift, rs in sorted(by_shift.items())
        },
    }


def score_records(records: Sequence[dict[str, Any]], *, seed: int = 0) -> dict[str, Any]:
    """Every ColorBench metric from per-question records (:func:`answer_record`'s fields; recoloured
    variants made by the run carry a ``recolor`` entry)."""
    made = [r for r in records if r.get("recolor")]
    given = [r for r in records if not r.get("recolor")]
    perception = [r for r in given if r["group"] == "Perception"]
    reasoning = [r for r in given if r["group"] == "Reasoning"]
    both = perception + reasoning
    robustness = [r for r in given if r["group"] == "Robustness"]
    instances = _instances(robustness)
    complete = {i for i, v in instances.items() if v["seed"] is not None and len(v["variants"]) == 9}
    robust = [1.0 if _robust(v, v["variants"]) else 0.0 for v in instances.values()]
    tasks = task_order([r["task"] for r in given])
    chance_robust = [
        math.prod(1.0 / len(r["choices"]) for r in ([v["seed"]] if v["seed"] else []) + v["variants"])
        for v in instances.values()
    ]
    out: dict[str, Any] = {
        "overall": _accuracy(both, seed),
        "perception": _accuracy(perception, seed),
        "reasoning": _accuracy(reasoning, seed),
        "robustness": bootstrap_ci(robust, seed=seed),
        "by_task": {t: _accuracy([r for r in given if r["task"] == t], seed) for t in tasks},
        "task_groups": {t: next(r["group"] for r in given if r["task"] == t) for t in tasks},
        "robust_instances": {
            "robust": int(sum(robust)),
            "instances": len(instances),
            "incomplete": len(instances) - len(complete),
            "incomplete_ids": sorted(set(instances) - complete)[:20],
        },
        "unparsed": bootstrap_ci([1.0 if r["choice"] is None else 0.0 for r in records], seed=seed),
        "chance": {
            "overall": _chance(both),
            "perception": _chance(perception),
            "reasoning": _chance(reasoning),
            "robustness": sum(chance_robust) / len(chance_robust) if chance_robust else None,
            **{f"by_task/{t}": _chance([r for r in given if r["task"] == t]) for t in tasks},
        },
    }
    if made:
        out["recolored"] = _recolored(made, instances, seed)
    return out


def rescore_file(path: str | Path, *, seed: int = 0) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Records and metrics of an upstream result file (a JSON object of questions keyed by index, or a
    list): each ``model_ans`` read with the one parser, each field checked (a bad one is a one-line
    error naming the file and line)."""
    file = Path(path)
    _, entries = json_entries(file)
    if not entries:
        raise InputFileError(f"{file}:1: no questions; expected one JSON object per answered question")
    records = []
    seen: dict[str, int] = {}
    for k, (line, key, row) in enumerate(entries):
        where = f"{file}:{line}"
        if not isinstance(row, dict):
            raise InputFileError(f"{where}: expected a JSON object per question, got {type(row).__name__}")
        missing = [f for f in RESULT_FIELDS if f not in row]
        if missing:
            raise InputFileError(
                f"{where}: missing field(s) {', '.join(missing)}; every answered question needs "
                f"{', '.join(RESULT_FIELDS)} (upstream's result format, docs/colorbench.md)"
            )
        answer = row["model_ans"]
        if answer is None:
            answer = ""  # no answer was saved: nothing chosen, counted wrong
        elif isinstance(answer, (int, float)) and not isinstance(answer, bool):
            answer = str(answer)
        elif not isinstance(answer, str):
            raise InputFileError(f"{where}: model_ans must be the model's answer text, got {type(answer).__name__}")
        q = question_from_row(row, where, key if key is not None else str(k), need_text=False)
        if q.id in seen:
            raise InputFileError(f"{where}: question {q.id} given twice (first on line {seen[q.id]})")
        seen[q.id] = line
        records.append(answer_record(q, answer))
    return records, score_records(records, seed=seed)


def summary_rows(metrics: dict[str, Any]) -> list[tuple[str, str, dict[str, Any], float | None]]:
    """(group, name, estimate, chance) per line of a summary: each task under its group, then the
    groups, overall and robustness, in the paper's order."""
    chance = metrics["chance"]
    rows = [
        (metrics["task_groups"].get(t, ""), t, est, chance.get(f"by_task/{t}")) for t, est in metrics["by_task"].items()
    ]
    for key, name in (("perception", "Perception"), ("reasoning", "Reasoning"), ("overall", "Overall")):
        rows.append(("all", name, metrics[key], chance.get(key)))
    rows.append(("all", "Color Robustness (robust instances)", metrics["robustness"], chance.get("robustness")))
    return rows
