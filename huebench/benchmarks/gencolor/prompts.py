"""GenColorBench's prompt suite (seed 004 §3.3, Table 3, Appendix D): five tasks, four systems.

Every named colour of ISCC-NBS L1 (13), L2 (29), L3 (260) and CSS3/X11 (147) — 449 colours — is
paired with objects and templates. The paper gives the distribution (≈18K object-focused named,
≈11.5K numeric, ≈8.7K contextual, ≈2.2K scene, ≈4.5K implicit; 44,464 in all) but not how the
pairs were drawn, so the full suite fixes a per-colour budget that lands on those sizes:

| task | level | templates | per colour / system | prompts |
| --- | --- | --- | --- | --- |
| CNA colour name accuracy | object-focused | 12 | 40 objects | 449 × 40 = 17,960 |
| NCU numeric (hex and rgb) | object-focused | 10 hex + 5 rgb | 13 objects per format | 449 × 26 = 11,674 |
| COA colour–object association | contextual | 63 | 19 templates | 449 × 19 = 8,531 |
| MOC multi-object composition | scene | 30 | 18 colourings per template per system | 30 × 18 × 4 = 2,160 |
| ICA implicit association | implicit | 100 | 10 templates | 449 × 10 = 4,490 |

Total 44,815 (paper 44,464; 0.8 % more). Objects for CNA/NCU are the 108 of Tables 8–9, taken in
a category-interleaved order in consecutive windows, so every colour sees every category and every
object is used equally often (±1); templates are used round-robin the same way. Contextual, scene
and implicit templates fix their objects in the text; ``data/template_roles.csv`` says which noun
carries each colour and which is the context (COA) or the partner (ICA). In a scene prompt the
colours are distinct (no two share an sRGB value). Colour names appear in prompts in lower case,
CSS3 names split into words ("LightSeaGreen" → "light sea green"); records keep the system's own name.

The mini suite (< 10K) is a stratified 20 % of the full suite: within every task × system ×
object-category cell, prompts are drawn round-robin over the cell's colours (so a cell keeps as
many distinct colours as its quota allows), with at least 3 prompts per cell, and at least one prompt
per colour in cells of ≤ 30 colours (L1 and L2 keep every colour in every category). Mini ids are full-suite
ids, so a mini run's images can be reused by a full run. Both suites are a pure function of the seed.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from huebench.benchmarks.gencolor.data import CATEGORIES, GenObject, data_text, load_objects, load_templates
from huebench.color import load_system
from huebench.errors import HuebenchError

__all__ = [
    "SUITE_SYSTEMS",
    "TASKS",
    "build_suite",
    "color_phrase",
    "load_template_roles",
    "suite_counts",
]

#: the systems of the suite, with the short tag used in prompt ids
SUITE_SYSTEMS = {"iscc-nbs-l1": "l1", "iscc-nbs-l2": "l2", "iscc-nbs-l3": "l3", "css3": "css"}
TASKS = {
    "cna": "colour name accuracy",
    "coa": "colour–object association",
    "moc": "multi-object colour composition",
    "ica": "implicit colour association",
    "ncu": "numeric colour understanding",
}
#: per-colour budgets of the full suite (see the module doc)
CNA_OBJECTS, NCU_OBJECTS, COA_TEMPLATES, ICA_TEMPLATES, MOC_PER_TEMPLATE = 40, 13, 19, 10, 18
MINI_FRACTION, MINI_MIN_PER_CELL, MINI_COVER_COLOURS = 0.2, 3, 30


@dataclass(frozen=True)
class TemplateRoles:
    objects: tuple[str, ...]  # coloured objects, in placeholder order
    other: str  # COA: the context noun phrase; ICA: the partner object; scene: ""


def load_template_roles() -> dict[tuple[str, int], TemplateRoles]:
    rows = csv.DictReader(data_text("template_roles.csv").splitlines())
    return {
        (r["level"], int(r["index"])): TemplateRoles(tuple(x.strip() for x in r["objects"].split(";")), r["other"])
        for r in rows
    }


def color_phrase(name: str, system: str) -> str:
    """How a colour name is written in a prompt: lower case; CSS3 CamelCase split into words."""
    if system == "css3":
        name = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)
    return name.lower()


def _rng(seed: int, *keys: Any) -> np.random.Generator:
    digest = hashlib.sha256("\x00".join(map(str, (seed, *keys))).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def _interleaved(objects: Sequence[GenObject], rng: np.random.Generator) -> list[GenObject]:
    """Objects ordered so each category is spread evenly: object j of a category of n gets the key
    (j + u) / n (u random per category), shuffled within the category first."""
    keyed = []
    for cat in CATEGORIES:
        members = [o for o in objects if o.category == cat]
        members = [members[i] for i in rng.permutation(len(members))]
        u = rng.random()
        keyed += [((j + u) / len(members), cat, o) for j, o in enumerate(members)]
    return [o for *_, o in sorted(keyed, key=lambda t: (t[0], t[1]))]


def _window(items: Sequence[Any], start: int, n: int) -> list[Any]:
    return [items[(start + k) % len(items)] for k in range(n)]


def _color(c: Any, system: str) -> dict[str, Any]:
    return {"name": c.name, "phrase": color_phrase(c.name, system), "hex": c.hex, "srgb": list(c.rgb)}


def _object(o: GenObject | None, name: str, role: str, color: int | None) -> dict[str, Any]:
    return {
        "name": name,
        "category": o.category if o else None,
        "role": role,
        "color": color,  # index into the record's "colors", or None
        "negative_labels": list(o.negative_labels) if o else [],
    }


def _fill(template: str, phrases: Sequence[str]) -> str:
    text = template.replace("{color}", phrases[0]) if "{color}" in template else template
    for i, p in enumerate(phrases, 1):
        text = text.replace(f"{{color{i}}}", p)
    return _article(text)


def _article(text: str) -> str:
    """Fix "A orange …" / "an red …" left by substitution (vowel sound by first letter; good enough
    for colour words, which is all that is substituted)."""

    def fix(m: re.Match[str]) -> str:
        art, word = m.group(1), m.group(2)
        want = "an" if word[0].lower() in "aeiou" else "a"
        return (want.capitalize() if art[0].isupper() else want) + " " + word

    return re.sub(r"\b(an|a|An|A) (\w+)", fix, text)


def build_suite(suite: str = "full", *, seed: int = 0) -> list[dict[str, Any]]:
    """The prompt records of the ``full`` or ``mini`` suite (see the module doc)."""
    if suite not in ("full", "mini"):
        raise HuebenchError(f"unknown suite {suite!r}; use full or mini")
    full = _full_suite(seed)
    return full if suite == "full" else _mini(full, seed)


def _full_suite(seed: int) -> list[dict[str, Any]]:
    objects = load_objects()
    by_name: dict[str, GenObject] = {}
    for o in objects:
        by_name.setdefault(o.name, o)  # "sink" is listed twice: its first row
    templates = load_templates()
    roles = load_template_roles()
    out: list[dict[str, Any]] = []
    counters: dict[tuple[str, str], int] = defaultdict(int)

    def add(task: str, system: str, **rec: Any) -> None:
        key = (task, system)
        counters[key] += 1
        out.append({"id": f"{task}-{SUITE_SYSTEMS[system]}-{counters[key]:05d}", "task": task, "system": system, **rec})

    rng = _rng(seed, "order")
    cna_objects = _interleaved(objects, rng)
    ncu_objects = _interleaved(objects, rng)
    named = templates["object-focused"]
    named_order = [int(i) for i in rng.permutation(len(named))]
    hex_order = [int(i) for i in rng.permutation(len(templates["numeric-hex"]))]
    rgb_order = [int(i) for i in rng.permutation(len(templates["numeric-rgb"]))]
    coa_order = [int(i) for i in rng.permutation(len(templates["contextual"]))]
    ica_order = [int(i) for i in rng.permutation(len(templates["implicit"]))]
    use: defaultdict[str, int] = defaultdict(int)  # round-robin position per template list

    def next_template(kind: str, order: Sequence[int]) -> int:
        i = order[use[kind] % len(order)]
        use[kind] += 1
        return i

    colour_index = 0
    for system in SUITE_SYSTEMS:
        for c in load_system(system):
            col = _color(c, system)
            for o in _window(cna_objects, colour_index * CNA_OBJECTS, CNA_OBJECTS):
                t = next_template("named", named_order)
                add(
                    "cna",
                    system,
                    level="object-focused",
                    format="name",
                    template_id=f"object-focused/{t}",
                    prompt=_article(named[t].replace("{color}", col["phrase"]).replace("{object}", o.name)),
                    colors=[col],
                    objects=[_object(o, o.name, "target", 0)],
                )
            for fmt, order, kind in (("hex", hex_order, "numeric-hex"), ("rgb", rgb_order, "numeric-rgb")):
                start = (2 * colour_index + (fmt == "rgb")) * NCU_OBJECTS
                for o in _window(ncu_objects, start, NCU_OBJECTS):
                    t = next_template(kind, order)
                    r, g, b = c.rgb
                    text = (
                        templates[kind][t]
                        .replace("{object}", o.name)
                        .replace("{hex}", c.hex)
                        .replace("{r}", str(r))
                        .replace("{g}", str(g))
                        .replace("{b}", str(b))
                    )
                    add(
                        "ncu",
                        system,
                        level="object-focused",
                        format=fmt,
                        template_id=f"{kind}/{t}",
                        prompt=_article(text),
                        colors=[col],
                        objects=[_object(o, o.name, "target", 0)],
                    )
            # contextual and implicit templates name their objects: the coloured one, and the
            # context (COA, judged for leakage) or the partner that must share the colour (ICA)
            for task, level, order, budget, other_role, other_color in (
                ("coa", "contextual", coa_order, COA_TEMPLATES, "context", None),
                ("ica", "implicit", ica_order, ICA_TEMPLATES, "partner", 0),
            ):
                for t in _window(order, colour_index * budget, budget):
                    role = roles[(level, t)]
                    target = role.objects[0]
                    add(
                        task,
                        system,
                        level=level,
                        format="name",
                        template_id=f"{level}/{t}",
                        prompt=_fill(templates[level][t], [col["phrase"]]),
                        colors=[col],
                        objects=[
                            _object(by_name.get(target), target, "target", 0),
                            _object(by_name.get(role.other), role.other, other_role, other_color),
                        ],
                    )
            colour_index += 1
        # MOC: per template, colourings drawn without repeating an sRGB value inside a prompt
        members = list(load_system(system))
        mrng = _rng(seed, "moc", system)
        for t, template in enumerate(templates["scene"]):
            names = roles[("scene", t)].objects
            for _ in range(MOC_PER_TEMPLATE):
                chosen: list[Any] = []
                for i in mrng.permutation(len(members)):
                    if all(members[i].rgb != m.rgb for m in chosen):
                        chosen.append(members[i])
                    if len(chosen) == len(names):
                        break
                cols = [_color(m, system) for m in chosen]
                add(
                    "moc",
                    system,
                    level="scene",
                    format="name",
                    template_id=f"scene/{t}",
                    prompt=_fill(template, [c_["phrase"] for c_ in cols]),
                    colors=cols,
                    objects=[_object(by_name.get(n), n, "target", k) for k, n in enumerate(names)],
                )
    return out


def _cell(rec: dict[str, Any]) -> tuple[str, str, str]:
    return rec["task"], rec["system"], rec["objects"][0]["category"] or "other"


def _mini(full: Sequence[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    cells: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in full:
        cells[_cell(r)].append(r)
    keep: set[str] = set()
    for key in sorted(cells):
        recs = cells[key]
        rng = _rng(seed, "mini", *key)
        by_colour: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for i in rng.permutation(len(recs)):
            r = recs[int(i)]
            by_colour["|".join(c["name"] for c in r["colors"])].append(r)
        cover = len(by_colour) if len(by_colour) <= MINI_COVER_COLOURS else 0
        quota = min(len(recs), max(MINI_MIN_PER_CELL, round(MINI_FRACTION * len(recs)), cover))
        queues = [by_colour[k] for k in sorted(by_colour, key=lambda k: by_colour[k][0]["id"])]
        taken = 0
        while taken < quota:
            for q in queues:
                if q and taken < quota:
                    keep.add(q.pop(0)["id"])
                    taken += 1
    return [r for r in full if r["id"] in keep]


def suite_counts(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Counts by task, by level, by task × system and by task × format."""
    by_task: dict[str, int] = defaultdict(int)
    by_level: dict[str, int] = defaultdict(int)
    by_task_system: dict[str, int] = defaultdict(int)
    by_format: dict[str, int] = defaultdict(int)
    n = 0
    for r in records:
        n += 1
        by_task[r["task"]] += 1
        by_level[r["level"] if r["task"] != "ncu" else "numeric"] += 1
        by_task_system[f"{r['task']}/{r['system']}"] += 1
        by_format[f"{r['task']}/{r['format']}"] += 1
    return {
        "total": n,
        "by_task": dict(by_task),
        "by_level": dict(by_level),
        "by_task_system": dict(by_task_system),
        "by_format": dict(by_format),
    }


REQUIRED_FIELDS = ("id", "task", "system", "prompt", "colors", "objects")


#: the built-in suites, named instead of a prompt file (a folder of that name is not read)
BUILT_IN_SUITES = ("full", "mini")


#: what an object of a prompt is: the coloured object, a COA context (leakage), an ICA partner
ROLES = ("target", "context", "partner")


def _check_system(system: Any, where: str) -> None:
    """A prompt's system: a colour system by its own name (results are grouped by the exact name)."""
    from huebench.color.systems import canonical_system_name
    from huebench.io import InputFileError

    try:
        canonical = canonical_system_name(str(system))
    except HuebenchError as exc:
        raise InputFileError(f"{where}: {exc}") from None
    if canonical != system:
        raise InputFileError(
            f"{where}: write the system as {canonical!r}, not {system!r} (results are grouped by the exact name)"
        )


@functools.cache
def _scorer(system: str) -> Any:
    from huebench.benchmarks.gencolor.scoring import ColorScorer

    return ColorScorer.named("huebench", system)


@functools.cache
def _color_problem(system: str, name: str) -> str | None:
    try:
        _scorer(system).candidates(name)  # the scorer's own rule for a target colour
    except HuebenchError as exc:
        return str(exc)
    return None


def known_color(system: str, name: str, where: str) -> None:
    """Refuse a colour the scorer could not score against: a name that is not ``system``'s, or a
    value that is not one ('#rrggbb', 'rgb(r, g, b)')."""
    from huebench.io import InputFileError

    problem = _color_problem(system, name)
    if problem is not None:
        raise InputFileError(f"{where}: {problem}")


def load_prompts(source: str | Any, *, seed: int = 0) -> list[dict[str, Any]]:
    """Prompt records from a JSONL file (``gencolor prompts`` output, or your own with the same
    fields), or the built-in ``full`` / ``mini`` suite. Errors name the file and line."""
    from pathlib import Path

    from huebench.benchmarks.gencolor.store import check_prompt_id
    from huebench.io import InputFileError, read_jsonl

    if str(source) in BUILT_IN_SUITES:
        return build_suite(str(source), seed=seed)
    path = Path(source)
    out: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for line, r in read_jsonl(path, required=REQUIRED_FIELDS):
        where = f"{path}:{line}"
        check_prompt_id(r["id"], where)
        if r["id"] in seen:
            raise InputFileError(f"{where}: duplicate prompt id {r['id']!r} (first on line {seen[r['id']]})")
        seen[r["id"]] = line
        if r["task"] not in TASKS:
            raise InputFileError(f"{where}: unknown task {r['task']!r}; use one of {', '.join(TASKS)}")
        _check_system(r["system"], where)
        if not isinstance(r["prompt"], str) or not r["prompt"].strip():
            raise InputFileError(f"{where}: 'prompt' must be the prompt's text, got {r['prompt']!r}")
        if not isinstance(r["colors"], list) or not r["colors"]:
            raise InputFileError(f"{where}: 'colors' must be a non-empty list of {{name, srgb}}")
        for c in r["colors"]:
            if not isinstance(c, dict) or not isinstance(c.get("name"), str):
                raise InputFileError(f"{where}: every colour needs a 'name' (a colour of {r['system']!r}, or #rrggbb)")
            known_color(r["system"], c["name"], where)
        if not isinstance(r["objects"], list) or not r["objects"]:
            raise InputFileError(f"{where}: 'objects' must be a non-empty list")
        for o in r["objects"]:
            if not isinstance(o, dict) or not isinstance(o.get("name"), str) or "role" not in o:
                raise InputFileError(f"{where}: every object needs 'name' and 'role' (target, context or partner)")
            if o["role"] not in ROLES:
                raise InputFileError(
                    f"{where}: object {o['name']!r} has role {o['role']!r}; use target, context or partner"
                )
            ci = o.get("color")
            if ci is None and o["role"] != "context":
                raise InputFileError(
                    f"{where}: object {o['name']!r} ({o['role']}) needs 'color', the index in 'colors' of the colour "
                    "it should have (0 for the first)"
                )
            if ci is not None and not (isinstance(ci, int) and not isinstance(ci, bool) and 0 <= ci < len(r["colors"])):
                raise InputFileError(
                    f"{where}: object {o['name']!r} has colour index {ci!r}; 'colors' has {len(r['colors'])}"
                )
            neg = o.get("negative_labels")
            if neg is not None and not (isinstance(neg, list) and all(isinstance(x, str) for x in neg)):
                raise InputFileError(
                    f"{where}: object {o['name']!r}: 'negative_labels' must be a list of part names, got {neg!r}"
                )
        out.append(r)
    if not out:
        raise InputFileError(f"{path}: no prompts in the file")
    return out
