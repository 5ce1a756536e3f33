"""``huebench run colorbench``: ColorBench's multiple-choice questions put to a vision-language model.

Each question goes to the model as its image and one text — the instruction upstream gives open
models, then the question with its lettered options ("… Select from the following choices. (A) Red
(B) Green …") — through the harness's VLM generation (``hf:`` VLMs, ``api:`` models); the answer is
read by the one parser (:mod:`~huebench.benchmarks.colorbench.parsing`) and scored by
:mod:`~huebench.benchmarks.colorbench.scoring`. With ``recolor`` the run also makes its own
recoloured copies of every robustness seed image (:func:`huebench.color.recolor`, whole image, at
each of ``hue_shifts``) and asks the seed's question about each.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from huebench._suggest import suggestion_text
from huebench.benchmarks.base import Benchmark, Sample, register_benchmark
from huebench.benchmarks.colorbench.data import DEFAULT_DATA, Question, load_questions, task_order
from huebench.benchmarks.colorbench.scoring import answer_record, score_records
from huebench.errors import HuebenchError, UnknownNameError
from huebench.models.base import Capability, Model
from huebench.models.requests import Answers, Generation

__all__ = ["DIRECT_INSTRUCTION", "REASONING_INSTRUCTION", "ColorBench"]

#: upstream's instruction to open models (model/*.py), before the question and its options
DIRECT_INSTRUCTION = (
    "You'll be given an image, an instruction and some options. You have to select the correct one. "
    "Do not explain your reasoning. Answer with only the letter that corresponds to the correct option. "
    "Do not repeat the entire answer. \n"
)
#: upstream's chain-of-thought instruction (its ``cot_prompt``, without the "USER: " it starts with)
REASONING_INSTRUCTION = (
    "You'll be given an image, an instruction and some options. You have to select the correct one. \n"
    "Think step by step before answering. Then conclude with the letter that corresponds to the correct option. "
    "Make sure the option letter is in the parentheses like (X). Do not include ( or ) in the response except "
    "for the answer.\n"
)
#: at most this many wrong questions, and this many broken robustness instances, are pictured
GALLERY_QUESTIONS = 120
GALLERY_INSTANCES = 40
DEFAULT_SHIFTS = (90.0, 180.0, 270.0)


@register_benchmark("colorbench")
class ColorBench(Benchmark):
    name = "colorbench"
    description = "ColorBench: colour perception, reasoning and robustness of VLMs (multiple choice)"
    capabilities = (Capability.VLM,)
    path_options = ("data",)
    progress_phase: ClassVar[str] = "generation"
    option_help: ClassVar[dict[str, str]] = {
        "data": f"{DEFAULT_DATA} (default), hf:<folder> with a copy of it, or a folder with upstream's "
        "all_data.json and images (docs/colorbench.md, The data).",
        "split": "The Hub dataset's split (ColorBench has test).",
        "tasks": "Only these tasks, comma-separated (e.g. 'Color Recognition,Color Counting'); default all.",
        "reasoning": "Ask for step-by-step reasoning ending in '(X)' (upstream's chain-of-thought prompt).",
        "max_new_tokens": "Tokens a model may generate per answer (default 32, or 1024 with reasoning).",
        "recolor": "Also recolour each robustness seed image with this method (lch or hsv) at each of "
        "hue_shifts, and ask its question about every copy.",
        "hue_shifts": "Hue shifts in degrees for recolor, comma-separated (default 90,180,270).",
    }

    def __init__(
        self,
        seed: int = 0,
        data: str = DEFAULT_DATA,
        split: str = "test",
        tasks: list[str] | None = None,
        reasoning: bool = False,
        max_new_tokens: int | None = None,
        recolor: str | None = None,
        hue_shifts: list[float] | None = None,
        **options: Any,
    ):
        super().__init__(
            seed=seed,
            data=data,
            split=split,
            tasks=tasks,
            reasoning=reasoning,
            max_new_tokens=max_new_tokens,
            recolor=recolor,
            hue_shifts=hue_shifts,
            **options,
        )
        self.seed, self.data, self.split = seed, str(data), str(split)
        self.tasks = list(tasks) if tasks else None
        self.reasoning = bool(reasoning)
        self.instruction = REASONING_INSTRUCTION if self.reasoning else DIRECT_INSTRUCTION
        self.max_new_tokens = int(max_new_tokens) if max_new_tokens is not None else (1024 if reasoning else 32)
        if self.max_new_tokens < 1:
            raise HuebenchError(f"colorbench: max_new_tokens must be at least 1, got {max_new_tokens}")
        self.recolor = recolor
        if recolor is not None:
            from huebench.color.recolor import RECOLOR_METHODS

            if recolor not in RECOLOR_METHODS:
                raise UnknownNameError(
                    f"colorbench: recolor must be {' or '.join(RECOLOR_METHODS)}, got {recolor!r}."
                    + suggestion_text(recolor, list(RECOLOR_METHODS))
                )
        self.hue_shifts = self._shifts(hue_shifts)
        self._questions: dict[str, Question] | None = None

    @staticmethod
    def _shifts(values: Sequence[Any] | None) -> tuple[float, ...]:
        if values is None:
            return DEFAULT_SHIFTS
        out = []
        for v in values:
            try:
                shift = float(v)
            except (TypeError, ValueError):
                raise HuebenchError(
                    f"colorbench: hue_shifts must be numbers of degrees, e.g. 90,180,270; got {v!r}"
                ) from None
            if shift != shift or shift % 360 == 0:
                raise HuebenchError(f"colorbench: a hue shift of {v} degrees leaves the image as it is; use 1 to 359")
            out.append(shift)
        if not out:
            raise HuebenchError("colorbench: hue_shifts is empty; give at least one, e.g. 90,180,270")
        return tuple(out)

    def input_paths(self) -> dict[str, Path]:
        out = super().input_paths()
        if self.data.startswith("hf:") and Path(self.data[3:]).is_dir():
            out["data"] = Path(self.data[3:])  # a local copy of the Hub dataset: its content is the run's
        return out

    def questions(self) -> dict[str, Question]:
        """The questions of ``data`` (only ``tasks``, when given), by id, in the data's order."""
        if self._questions is None:
            qs = load_questions(self.data, split=self.split)
            if self.tasks:
                known = task_order([q.task for q in qs])
                for t in self.tasks:
                    if t not in known:
                        raise UnknownNameError(
                            f"colorbench: no task {t!r} in {self.data}; its tasks are {', '.join(known)}."
                            + suggestion_text(t, known)
                        )
                qs = [q for q in qs if q.task in self.tasks]
            self._questions = {q.id: q for q in qs}
        return self._questions

    def samples(self) -> list[Sample]:
        out = []
        for q in self.questions().values():
            out.append(Sample(q.id, q.inputs()))
            if self.recolor is not None and q.variant == "seed":
                for shift in self.hue_shifts:
                    spec = {"method": self.recolor, "hue_shift": shift, "question": q.id}
                    out.append(Sample(f"{q.id}~{self.recolor}{shift:g}", {**q.inputs(), "recolor": spec}))
        return out

    def evaluate(self, samples: Sequence[Sample], model: Model, ctx: Answers) -> Iterable[dict[str, Any]]:
        from huebench.color.recolor import recolor

        self.check_model(model)
        questions = self.questions()
        asked = []
        for s in samples:
            spec = s.inputs.get("recolor")
            q = questions[spec["question"] if spec else s.id]
            image = q.load_image()
            edit = None
            if spec:
                edit = recolor(image, spec["hue_shift"], method=spec["method"])
                image = edit.image
            asked.append((s, q, edit, Generation((image, self.instruction + q.prompt), self.max_new_tokens)))
        outs = ctx.answer([a[3] for a in asked])
        for (s, q, edit, _), o in zip(asked, outs, strict=True):
            rec = answer_record(q, str(o["output"]))
            if edit is not None:
                rec["id"] = s.id
                rec["question_id"] = q.id
                rec["variant"] = f"{edit.method} {edit.hue_shift:g}°"
                rec["recolor"] = edit.summary()
                rec["reason"] += (
                    f"; recoloured ({edit.method}, hue {edit.hue_shift:+g}°, ΔE00 {edit.delta_e00_mean:.1f})"
                )
            rec["batch_size"] = o["batch_size"]
            yield rec

    def metrics(self, records: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return score_records(records, seed=self.seed)

    def report_sections(self, results: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Any]:
        from huebench.benchmarks.colorbench.report import report_sections

        return report_sections(self, results["metrics"], records)
