"""A small ColorBench in upstream's formats, made offline: two questions of each Perception and
Reasoning task and two robustness instances (a seed image and nine recoloured copies each), with
48×48 images drawn to match their questions.

- :func:`colorbench_rows` — the 40 questions (the Hub's fields, without the image);
- :func:`make_colorbench_folder` — upstream's JSON layout: ``all_data.json`` and the images;
- :func:`make_colorbench_hub` — the Hub's layout (``data/test-00000-of-00001.parquet`` with the
  images inside), which ``datasets.load_dataset`` reads as it reads ``umd-zhou-lab/ColorBench``.
"""

from __future__ import annotations

import colorsys
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from huebench.benchmarks.colorbench.data import multiple_choice_prompt

__all__ = ["colorbench_rows", "make_colorbench_folder", "make_colorbench_hub"]

SIZE = 48
RGB = tuple[int, int, int]
WHITE: RGB = (255, 255, 255)
RED: RGB = (220, 30, 30)
GREEN: RGB = (30, 160, 40)
BLUE: RGB = (30, 60, 210)
Draw = Callable[[ImageDraw.ImageDraw], None]


def _canvas(bg: RGB, draw: Draw) -> Image.Image:
    img = Image.new("RGB", (SIZE, SIZE), bg)
    draw(ImageDraw.Draw(img))
    return img


def _rect(x0: int, y0: int, x1: int, y1: int, c: RGB) -> Draw:
    return lambda d: d.rectangle((x0, y0, x1, y1), fill=c)


def _square(x: int, y: int, s: int, c: RGB) -> Draw:
    return lambda d: d.rectangle((x, y, x + s - 1, y + s - 1), fill=c)


def _circle(x: int, y: int, r: int, c: RGB) -> Draw:
    return lambda d: d.ellipse((x - r, y - r, x + r, y + r), fill=c)


def _triangle(x: int, y: int, s: int, c: RGB) -> Draw:
    return lambda d: d.polygon([(x, y + s), (x + s, y + s), (x + s // 2, y)], fill=c)


def _text(x: int, y: int, t: str, c: RGB) -> Draw:
    return lambda d: d.text((x, y), t, fill=c)


def _all(*parts: Draw) -> Draw:
    def draw(d: ImageDraw.ImageDraw) -> None:
        for p in parts:
            p(d)

    return draw


def _turn(c: RGB, degrees: int) -> RGB:
    """``c`` with its HSV hue turned by ``degrees`` (upstream's recolouring, on one colour)."""
    h, s, v = colorsys.rgb_to_hsv(*(x / 255 for x in c))
    r, g, b = colorsys.hsv_to_rgb((h + degrees / 360) % 1.0, s, v)
    return (round(r * 255), round(g * 255), round(b * 255))


#: (type, task, question, choices, answer letter, picture) per Perception and Reasoning question
_QUESTIONS: list[tuple[str, str, str, list[str], str, Callable[[], Image.Image]]] = [
    ("Perception", "Color Recognition", "What is the color of the square in this image?",
     ["Red", "Green", "Blue", "Yellow", "No answer"], "A", lambda: _canvas(WHITE, _square(12, 12, 24, RED))),
    ("Perception", "Color Recognition", "What is the color of the circle in this image?",
     ["Purple", "Orange", "Green", "Black"], "C", lambda: _canvas(WHITE, _circle(24, 24, 14, GREEN))),
    ("Perception", "Color Extraction", "What is the HEX value of the color in this image?",
     ["#1E90FF", "#FF4500", "#32CD32", "#FFD700"], "A", lambda: _canvas((0x1E, 0x90, 0xFF), _all())),
    ("Perception", "Color Extraction", "What is the HEX value of the color in this image?",
     ["#FFFFFF", "#000000", "#FF00FF", "#8A2BE2"], "D", lambda: _canvas((0x8A, 0x2B, 0xE2), _all())),
    ("Perception", "Object Recognition", "Which shape is red in this image?", ["Circle", "Square", "Triangle"], "B",
     lambda: _canvas(WHITE, _all(_square(4, 14, 18, RED), _circle(35, 23, 9, BLUE)))),
    ("Perception", "Object Recognition", "Which shape is blue in this image?", ["Circle", "Square", "Triangle"], "A",
     lambda: _canvas(WHITE, _all(_circle(13, 23, 9, BLUE), _triangle(26, 14, 18, (230, 200, 20))))),
    ("Reasoning", "Color Proportion", "What fraction of this image is blue?", ["10%", "25%", "50%", "75%"], "C",
     lambda: _canvas(WHITE, _rect(0, 0, 23, 47, BLUE))),
    ("Reasoning", "Color Proportion", "What fraction of this image is blue?", ["10%", "25%", "50%", "75%"], "A",
     lambda: _canvas(WHITE, _rect(0, 0, 4, 47, BLUE))),
    ("Reasoning", "Color Comparison", "Which square is darker?", ["Left", "Right", "Same"], "A",
     lambda: _canvas(WHITE, _all(_square(4, 14, 18, (120, 10, 10)), _square(26, 14, 18, (250, 120, 120))))),
    ("Reasoning", "Color Comparison", "Which circle is more saturated?", ["Left", "Right", "Same"], "B",
     lambda: _canvas(WHITE, _all(_circle(12, 24, 9, (150, 120, 120)), _circle(36, 24, 9, (230, 20, 20))))),
    ("Reasoning", "Color Counting", "How many different colors do the shapes in this image have?",
     ["1", "2", "3", "4"], "C",
     lambda: _canvas(WHITE, _all(_square(2, 16, 12, RED), _square(18, 16, 12, GREEN), _square(34, 16, 12, BLUE)))),
    ("Reasoning", "Color Counting", "How many different colors do the shapes in this image have?",
     ["1", "2", "3", "4"], "B",
     lambda: _canvas(WHITE, _all(_square(2, 16, 12, RED), _square(18, 16, 12, RED), _square(34, 16, 12, BLUE)))),
    ("Reasoning", "Object Counting", "How many green circles are in this image?", ["0", "1", "2", "3"], "C",
     lambda: _canvas(WHITE, _all(_circle(9, 24, 6, GREEN), _circle(24, 24, 6, GREEN), _circle(39, 24, 6, RED)))),
    ("Reasoning", "Object Counting", "How many red squares are in this image?", ["0", "1", "2", "3"], "B",
     lambda: _canvas(WHITE, _all(_square(6, 17, 14, RED), _circle(34, 24, 7, BLUE)))),
    ("Reasoning", "Color Illusion", "Do the two small squares have the same color?", ["Yes", "No", "Cannot tell"], "A",
     lambda: _canvas((0, 0, 0), _all(_rect(24, 0, 47, 47, WHITE),
                                     _square(6, 18, 12, (128, 128, 128)), _square(30, 18, 12, (128, 128, 128))))),
    ("Reasoning", "Color Illusion", "Do the two small squares have the same color?", ["Yes", "No", "Cannot tell"], "B",
     lambda: _canvas((128, 128, 128), _all(_square(6, 18, 12, (60, 60, 60)), _square(30, 18, 12, (200, 200, 200))))),
    ("Reasoning", "Color Mimicry", "How many squares are hidden among the leaves?", ["0", "1", "2"], "B",
     lambda: _canvas((40, 140, 50), _square(16, 16, 14, (48, 150, 58)))),
    ("Reasoning", "Color Mimicry", "How many squares are hidden among the leaves?", ["0", "1", "2"], "A",
     lambda: _canvas((40, 140, 50), _all())),
    ("Reasoning", "Color Blindness", "What number is written in the image?", ["12", "74", "21", "None"], "B",
     lambda: _canvas((90, 160, 70), _text(16, 18, "74", (210, 90, 60)))),
    ("Reasoning", "Color Blindness", "What number is written in the image?", ["12", "74", "21", "None"], "A",
     lambda: _canvas((90, 160, 70), _text(16, 18, "12", (210, 90, 60)))),
]  # fmt: skip

#: the robustness instances: question, choices, answer, and the shapes (kind, position, size, colour);
#: the first shape is the question's target, the largest is the "largest segment"
_SHAPES = Callable[..., Draw]
_INSTANCES: list[tuple[str, list[str], str, list[tuple[_SHAPES, int, int, int, RGB]]]] = [
    ("How many shapes are in this image?", ["1", "2", "3", "0"], "C",
     [(_square, 2, 16, 12, RED), (_square, 18, 12, 16, GREEN), (_square, 36, 18, 10, BLUE)]),
    ("Which shape is at the top of the image?", ["Circle", "Square", "Triangle"], "A",
     [(_circle, 24, 10, 7, (230, 140, 20)), (_square, 12, 24, 22, (120, 40, 180))]),
]  # fmt: skip
REGIONS = ("entire", "target", "largest")
SHIFTS = (90, 180, 270)


def _robustness_picture(shapes: list[tuple[_SHAPES, int, int, int, RGB]], region: str | None, deg: int) -> Image.Image:
    largest = max(range(len(shapes)), key=lambda k: shapes[k][3])
    parts = []
    for k, (shape, x, y, s, c) in enumerate(shapes):
        turned = region == "entire" or (region == "target" and k == 0) or (region == "largest" and k == largest)
        parts.append(shape(x, y, s, _turn(c, deg) if turned else c))
    bg = (235, 235, 220)
    return _canvas(_turn(bg, deg) if region == "entire" else bg, _all(*parts))


def _pictures() -> list[tuple[dict[str, Any], Image.Image]]:
    rows: list[tuple[dict[str, Any], Image.Image]] = []
    per_task: dict[str, int] = {}

    def add(kind: str, task: str, filename: str, question: str, choices: list[str], answer: str, img: Image.Image):
        per_task[task] = per_task.get(task, 0) + 1
        row = {
            "idx": len(rows),
            "id": per_task[task],
            "type": kind,
            "task": task,
            "filename": filename,
            "prompt": multiple_choice_prompt(question, choices),
            "question": question,
            "choices": choices,
            "answer": f"({answer})",
            "image_url": "synthetic (huebench.testing.colorbench)",
        }
        rows.append((row, img))

    for kind, task, question, choices, answer, picture in _QUESTIONS:
        add(
            kind, task, f"{task.replace(' ', '')}/{per_task.get(task, 0) + 1}.png", question, choices, answer, picture()
        )
    for question, choices, answer, shapes in _INSTANCES:
        seed = len(rows)
        add("Robustness", "Color Robustness", f"Robustness/{seed}.png", question, choices, answer,
            _robustness_picture(shapes, None, 0))  # fmt: skip
        for region in REGIONS:
            for deg in SHIFTS:
                add(
                    "Robustness",
                    "Color Robustness",
                    f"Robustness/{seed}_{region}_{deg}.png",
                    question,
                    choices,
                    answer,
                    _robustness_picture(shapes, region, deg),
                )
    return rows


def colorbench_rows() -> list[dict[str, Any]]:
    """The fixture's 40 questions with the Hub's fields (no image): idx, id, type, task, filename,
    prompt, question, choices, answer, image_url."""
    return [row for row, _ in _pictures()]


def make_colorbench_folder(out: str | Path) -> Path:
    """Upstream's JSON layout in ``out``: ``all_data.json`` and each image at its ``filename``."""
    out = Path(out)
    rows = []
    for row, img in _pictures():
        (out / row["filename"]).parent.mkdir(parents=True, exist_ok=True)
        img.save(out / row["filename"])
        rows.append(row)
    (out / "all_data.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return out


def make_colorbench_hub(out: str | Path) -> Path:
    """The Hub's layout in ``out``: ``data/test-00000-of-00001.parquet`` with the Hub's columns and
    features (the image stored inside, as PNG bytes). Needs the ``datasets`` package."""
    import io

    import datasets

    out = Path(out)
    (out / "data").mkdir(parents=True, exist_ok=True)
    records = []
    for row, img in _pictures():
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        records.append({**row, "image": {"bytes": buf.getvalue(), "path": row["filename"]}})
    features = datasets.Features(
        {
            "idx": datasets.Value("int64"),
            "id": datasets.Value("int64"),
            "type": datasets.Value("string"),
            "task": datasets.Value("string"),
            "filename": datasets.Value("string"),
            "image": datasets.Image(),
            "prompt": datasets.Value("string"),
            "question": datasets.Value("string"),
            "choices": datasets.Sequence(datasets.Value("string")),
            "answer": datasets.Value("string"),
            "image_url": datasets.Value("string"),
        }
    )
    datasets.Dataset.from_list(records, features=features).to_parquet(str(out / "data" / "test-00000-of-00001.parquet"))
    return out
