"""GenColorBench's objects (seed 004 Tables 8–9) and prompt templates (Appendix D), as packaged data.

``data/objects.csv``: 108 rows — source dataset (COCO / ImageNet), category (7), class name and the
negative part labels to subtract from the object's mask. "sink" appears twice (furniture and
household; tools and miscellaneous) with different negative labels, so there are 107 distinct
names. ``data/templates.json``: the template lists of Appendix D (transcribed by
``tools/transcribe_gencolor.py``):

| level | key | templates | placeholders |
| --- | --- | --- | --- |
| object-focused, named colour | ``object-focused`` | 12 | {color} {object} |
| object-focused, numeric | ``numeric-hex`` / ``numeric-rgb`` | 10 / 5 | {hex} or {r} {g} {b}, {object} |
| contextual | ``contextual`` | 63 | {color} (objects fixed in the text) |
| scene-descriptive | ``scene`` | 30 | {color1} {color2} [{color3}] |
| implicit association | ``implicit`` | 100 | {color} |

The paper's Table 3 counts 62 contextual templates; its Appendix D lists 63 (we follow the list).
"""

from __future__ import annotations

import csv
import functools
import json
from dataclasses import dataclass
from importlib import resources

__all__ = ["CATEGORIES", "GenObject", "load_objects", "load_templates"]

CATEGORIES = (
    "fruits and vegetables",
    "tools and miscellaneous",
    "vehicles",
    "animals",
    "clothing and accessories",
    "furniture and household",
    "sports and toys",
)


@dataclass(frozen=True)
class GenObject:
    source: str
    category: str
    name: str
    negative_labels: tuple[str, ...]


def data_text(name: str) -> str:
    """The text of a bundled data file (``huebench/benchmarks/gencolor/data/NAME``)."""
    return resources.files("huebench.benchmarks.gencolor").joinpath("data").joinpath(name).read_text(encoding="utf-8")


@functools.cache
def load_objects() -> tuple[GenObject, ...]:
    rows = csv.DictReader(data_text("objects.csv").splitlines())
    return tuple(
        GenObject(
            r["source"],
            r["category"],
            r["name"],
            tuple(x.strip() for x in r["negative_labels"].split(";") if x.strip()),
        )
        for r in rows
    )


@functools.cache
def load_templates() -> dict[str, tuple[str, ...]]:
    return {k: tuple(v) for k, v in json.loads(data_text("templates.json")).items()}
