"""ColorBench's questions: one image, a question and 3–6 options, one of them right.

Sources (the benchmark's ``data`` option):

- ``hf:umd-zhou-lab/ColorBench`` (the default; needs ``pip install datasets``), or ``hf:FOLDER`` — a
  Hub dataset or a local copy of one (``data/test-*.parquet``), read with ``datasets.load_dataset``;
  a plain FOLDER holding such a copy (no ``all_data.json``) is read the same way;
- upstream's JSON layout: a FOLDER holding ``all_data.json`` (a JSON list of questions; each
  ``filename`` is the image's path relative to the folder), or that JSON file itself.

Fields of a question (the Hub's and ``all_data.json``'s): ``idx`` (unique), ``id`` (within the
task), ``type`` (Perception, Reasoning or Robustness), ``task``, ``filename``, ``image`` (Hub only),
``prompt`` (the question with its lettered options), ``question``, ``choices``, ``answer`` ("(C)").
Robustness questions come ten to an instance — a seed image and nine recoloured copies — told
apart by their file names as upstream does (:func:`robustness_instance`).
"""

from __future__ import annotations

import contextlib
import json
import os
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from huebench.errors import HuebenchError
from huebench.io import InputFileError
from huebench.paths import resolve_under

__all__ = [
    "DEFAULT_DATA",
    "GROUPS",
    "PERCEPTION_TASKS",
    "REASONING_TASKS",
    "ROBUSTNESS_TASK",
    "Question",
    "answer_index",
    "json_entries",
    "load_questions",
    "multiple_choice_prompt",
    "question_from_row",
    "robustness_instance",
    "task_order",
]

DEFAULT_DATA = "hf:umd-zhou-lab/ColorBench"
GROUPS = ("Perception", "Reasoning", "Robustness")
PERCEPTION_TASKS = ("Color Recognition", "Color Extraction", "Object Recognition")
REASONING_TASKS = (
    "Color Proportion",
    "Color Comparison",
    "Color Counting",
    "Object Counting",
    "Color Illusion",
    "Color Mimicry",
    "Color Blindness",
)
ROBUSTNESS_TASK = "Color Robustness"
LETTERS = string.ascii_uppercase
#: the fields every question needs (and ``question`` or ``prompt``); the Hub's rows carry ``image`` too
REQUIRED = ("type", "task", "filename", "choices", "answer")


def task_order(tasks: Sequence[str]) -> list[str]:
    """``tasks`` in the paper's order (Perception's, Reasoning's, Robustness), others after, by name."""
    known = [*PERCEPTION_TASKS, *REASONING_TASKS, ROBUSTNESS_TASK]
    rank = {t: k for k, t in enumerate(known)}
    return sorted(set(tasks), key=lambda t: (rank.get(t, len(known)), t))


def multiple_choice_prompt(question: str, choices: Sequence[str]) -> str:
    """ColorBench's multiple-choice text: "<question> Select from the following choices. (A) … (B) …"
    (the form of the dataset's own ``prompt`` field, used when a question has none)."""
    options = " ".join(f"({LETTERS[k]}) {c}" for k, c in enumerate(choices))
    return f"{question.strip()} Select from the following choices. {options}"


def answer_index(answer: Any, n_choices: int) -> int | None:
    """The index named by an answer key such as "(C)", "C" or "c"; None when it names no option."""
    if not isinstance(answer, str):
        return None
    text = answer.strip().removeprefix("(").removesuffix(")").strip().upper()
    if len(text) == 1 and text in LETTERS[:n_choices]:
        return LETTERS.index(text)
    return None


def robustness_instance(filename: str) -> tuple[str, str]:
    """``(instance, variant)`` of a robustness question, by upstream's rule on its file name: the name
    (without folders, up to its first '.') is the instance's when it has no '_' — the seed image,
    variant "seed" —, else the part before the first '_' names the instance and the rest the variant
    ("12_entire_90.jpg" → ("12", "entire_90"))."""
    stem = PurePosixPath(str(filename).replace("\\", "/")).name.split(".")[0]
    instance, sep, variant = stem.partition("_")
    return instance, (variant if sep else "seed")


@dataclass(frozen=True)
class Question:
    """One ColorBench question. ``image``: a file path, or a callable returning the Hub row's image."""

    id: str
    group: str  # one of GROUPS
    task: str
    filename: str
    question: str
    prompt: str  # the question with its lettered options, as the model reads it
    choices: tuple[str, ...]
    answer: int  # index into choices
    where: str  # file:line or Hub row, for messages
    image: Any = field(default=None, compare=False, repr=False)

    @property
    def instance(self) -> str | None:
        return robustness_instance(self.filename)[0] if self.group == "Robustness" else None

    @property
    def variant(self) -> str | None:
        return robustness_instance(self.filename)[1] if self.group == "Robustness" else None

    def inputs(self) -> dict[str, Any]:
        """What identifies the question (a sample's inputs: hashed by the run)."""
        return {
            "group": self.group,
            "task": self.task,
            "filename": self.filename,
            "prompt": self.prompt,
            "choices": list(self.choices),
            "answer": LETTERS[self.answer],
        }

    def load_image(self) -> np.ndarray:
        """The question's image as an H×W×3 uint8 array (8-bit RGB, transparency on white)."""
        from huebench.images import load_image, to_rgb

        if callable(self.image):
            return np.asarray(to_rgb(self.image()))
        return np.asarray(load_image(self.image))


# ------------------------------------------------------------------ JSON with line numbers
def json_entries(path: Path) -> tuple[type, list[tuple[int, str | None, Any]]]:
    """The entries of a JSON file holding one list or one object: ``(list or dict, [(line, key, value)])``
    with the line each value starts on (keys are None in a list), so that an error about one entry
    can name its line. Invalid JSON, a file that is neither a list nor an object, and a key given
    twice are one-line errors naming the file and line."""
    if not path.is_file():
        raise InputFileError(f"{path}: file not found" if not path.exists() else f"{path}: is not a file")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputFileError(f"{path}:{line}: not valid UTF-8; re-save the file as UTF-8") from None
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputFileError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(whole, (list, dict)):
        raise InputFileError(f"{path}:1: expected a JSON list or object of questions, got {type(whole).__name__}")
    decoder = json.JSONDecoder()
    entries: list[tuple[int, str | None, Any]] = []
    pos, line, counted = text.index("[" if isinstance(whole, list) else "{") + 1, 1, 0
    seen: dict[str, int] = {}

    def skip(p: int) -> int:
        while p < len(text) and text[p] in " \t\r\n,":
            p += 1
        return p

    while True:
        pos = skip(pos)
        if text[pos] in "]}":
            break
        key = None
        if isinstance(whole, dict):
            key, pos = decoder.raw_decode(text, pos)
            pos = skip(pos)
            pos += 1  # the ':'
            while text[pos] in " \t\r\n":
                pos += 1
        line += text.count("\n", counted, pos)  # counted from the last entry on: linear in the file
        counted = pos
        if key is not None:
            if key in seen:
                raise InputFileError(f"{path}:{line}: key {key!r} given twice (first on line {seen[key]})")
            seen[key] = line
        value, pos = decoder.raw_decode(text, pos)
        entries.append((line, key, value))
    return type(whole), entries


# ------------------------------------------------------------------ one question
def _text(row: dict[str, Any], key: str) -> str:
    value = row.get(key)
    return value.strip() if isinstance(value, str) else ""


def _choices(row: dict[str, Any], where: str) -> tuple[str, ...]:
    raw = row["choices"]
    if isinstance(raw, str):  # a list stored as text, as some exports do
        with contextlib.suppress(json.JSONDecodeError):
            raw = json.loads(raw)
    if not isinstance(raw, (list, tuple)) or not all(
        isinstance(c, (str, int, float)) and not isinstance(c, bool) for c in raw
    ):
        raise InputFileError(
            f'{where}: choices must be a list of option texts, e.g. ["Red", "Green", "Blue"]; got {raw!r}'
        )
    choices = [str(c).strip() for c in raw]
    while choices and not choices[-1]:
        choices.pop()  # empty options padding the end of a list are no options
    if not 2 <= len(choices) <= len(LETTERS):
        raise InputFileError(f"{where}: a question needs 2 to 26 choices (ColorBench has 3 to 6), got {len(choices)}")
    return tuple(choices)


def question_from_row(
    row: dict[str, Any], where: str, default_id: str, image: Any = None, *, need_text: bool = True
) -> Question:
    """A :class:`Question` from one row of the data (or, with ``need_text=False``, of a result file,
    which may leave out the question's text), every field checked: a bad value is a one-line error
    naming ``where`` and the fix."""
    missing = [k for k in REQUIRED if k not in row]
    if missing:
        raise InputFileError(
            f"{where}: missing field(s) {', '.join(missing)}; every question needs "
            f"{', '.join(REQUIRED)} and question or prompt (docs/colorbench.md, The data)"
        )
    kind = _text(row, "type")
    group = next((g for g in GROUPS if g.lower() == kind.lower()), None)
    if group is None:
        raise InputFileError(f"{where}: type must be Perception, Reasoning or Robustness, got {row['type']!r}")
    task = _text(row, "task")
    if not task:
        raise InputFileError(f'{where}: task must name the task, e.g. "Color Recognition"; got {row["task"]!r}')
    filename = _text(row, "filename")
    if not filename:
        raise InputFileError(f'{where}: filename must be the image\'s path, e.g. "ColorRecognition/1.jpg"')
    choices = _choices(row, where)
    answer = answer_index(row["answer"], len(choices))
    if answer is None:
        raise InputFileError(
            f"{where}: answer {row['answer']!r} names none of the {len(choices)} options; "
            f"give the right option's letter, (A) to ({LETTERS[len(choices) - 1]})"
        )
    question, prompt = _text(row, "question"), _text(row, "prompt")
    if need_text and not question and not prompt:
        raise InputFileError(f"{where}: question and prompt are both empty; give the question text")
    qid = row.get("idx", default_id)
    if isinstance(qid, bool) or not isinstance(qid, (str, int)):
        raise InputFileError(f"{where}: idx must be a whole number or a string, got {qid!r}")
    return Question(
        id=str(qid),
        group=group,
        task=task,
        filename=filename,
        question=question or prompt,
        prompt=prompt or multiple_choice_prompt(question, choices),
        choices=choices,
        answer=answer,
        where=where,
        image=image,
    )


def _unique(questions: list[Question]) -> list[Question]:
    seen: dict[str, str] = {}
    for q in questions:
        if q.id in seen:
            raise InputFileError(f"{q.where}: idx {q.id} given twice (first at {seen[q.id]}); every idx must be unique")
        seen[q.id] = q.where
    return questions


# ------------------------------------------------------------------ sources
def _load_json(file: Path) -> list[Question]:
    root = file.parent
    kind, entries = json_entries(file)
    if kind is not list:
        raise InputFileError(f"{file}:1: expected a JSON list of questions (upstream's all_data.json), got an object")
    out = []
    for k, (line, _, row) in enumerate(entries):
        where = f"{file}:{line}"
        if not isinstance(row, dict):
            raise InputFileError(f"{where}: expected a JSON object per question, got {type(row).__name__}")
        if "filename" in row and isinstance(row["filename"], str) and row["filename"].strip():
            try:
                path = resolve_under(root, row["filename"].strip(), what="filename")
            except HuebenchError as exc:
                raise InputFileError(f"{where}: {exc}") from None
            if not path.is_file():
                raise InputFileError(
                    f"{where}: image {row['filename']!r} not found under {root}; put the images beside all_data.json "
                    "at their filename"
                )
        else:
            path = None
        out.append(question_from_row(row, where, str(k), str(path) if path else None))
    return out


@dataclass(frozen=True)
class _HubImage:
    """A Hub row's image, decoded when asked for (reading the questions decodes none)."""

    dataset: Any
    row: int

    def __call__(self) -> Any:
        return self.dataset[self.row]["image"]


def _load_hub(dataset_id: str, split: str) -> list[Question]:
    from huebench.models.hub import require_hub_dataset

    if not Path(dataset_id).is_dir():
        require_hub_dataset(dataset_id)  # seconds, not the library's retries, when the Hub is unreachable
    try:
        import datasets
    except ImportError as exc:
        raise HuebenchError(
            "loading a Hub dataset needs the 'datasets' package: pip install datasets "
            "(or give a folder in upstream's JSON layout: docs/colorbench.md, The data)"
        ) from exc
    try:
        ds = datasets.load_dataset(dataset_id, split=split, token=os.environ.get("HF_TOKEN") or None)
    except Exception as exc:  # the Hub client raises many types; all mean "could not load"
        raise HuebenchError(
            f"hf:{dataset_id}: cannot load split {split!r}: {exc}; to run offline, fetch it first on a connected "
            f"machine (huebench prefetch colorbench --data hf:{dataset_id}) or give --data a local copy "
            "(docs/colorbench.md, The data)"
        ) from exc
    columns = set(ds.column_names)
    missing = [k for k in (*REQUIRED, "image") if k not in columns]
    if missing or not columns & {"question", "prompt"}:
        raise InputFileError(
            f"hf:{dataset_id} ({split}): missing column(s) {', '.join(missing or ['question or prompt'])}; "
            f"ColorBench's are idx, id, type, task, filename, image, prompt, question, choices, answer"
        )
    meta = ds.remove_columns(["image"])  # reading the questions decodes no image
    return [
        question_from_row(dict(row), f"hf:{dataset_id} ({split}) row {k}", str(k), _HubImage(ds, k))
        for k, row in enumerate(meta)
    ]


def _hub_copy(folder: Path) -> bool:
    """A local copy of a Hub dataset: parquet or arrow files in it or in its data/ folder."""
    return any(any(d.glob(f"*.{ext}")) for d in (folder, folder / "data") for ext in ("parquet", "arrow"))


def load_questions(source: str | Path, *, split: str = "test") -> list[Question]:
    """The questions of ``source`` (``hf:<id or folder>``, a folder, or an ``all_data.json``), in order."""
    s = str(source)
    if s.startswith("hf:"):
        questions = _load_hub(s[3:], split)
    else:
        path = Path(s)
        if path.is_file():
            questions = _load_json(path)
        elif path.is_dir() and (path / "all_data.json").is_file():
            questions = _load_json(resolve_under(path, "all_data.json", what="questions file"))
        elif path.is_dir() and _hub_copy(path):
            questions = _load_hub(str(path), split)
        elif path.is_dir():
            raise InputFileError(
                f"{path}: no all_data.json and no parquet files (data/test-*.parquet); give upstream's JSON layout "
                "or a copy of the Hub dataset (docs/colorbench.md, The data)"
            )
        else:
            raise InputFileError(
                f"{path}: no such file or folder; give a folder with all_data.json, a copy of the Hub dataset, "
                f"or {DEFAULT_DATA}"
            )
    if not questions:
        raise InputFileError(f"{source}: no questions")
    return _unique(questions)
