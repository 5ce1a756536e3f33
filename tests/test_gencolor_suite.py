"""GenColorBench prompt suite: counts, determinism, stratification, record fields, file errors."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from huebench.benchmarks.gencolor.data import load_objects, load_templates
from huebench.benchmarks.gencolor.prompts import (
    SUITE_SYSTEMS,
    build_suite,
    color_phrase,
    load_prompts,
    load_template_roles,
    suite_counts,
)
from huebench.color import load_system
from huebench.io import InputFileError


@pytest.fixture(scope="module")
def full():
    return build_suite("full", seed=0)


@pytest.fixture(scope="module")
def mini():
    return build_suite("mini", seed=0)


def test_full_suite_counts(full):
    c = suite_counts(full)
    assert c["total"] == 44815  # paper: 44,464 (module doc explains the budget)
    assert c["by_task"] == {"cna": 17960, "ncu": 11674, "coa": 8531, "moc": 2160, "ica": 4490}
    assert c["by_level"] == {
        "object-focused": 17960,
        "numeric": 11674,
        "contextual": 8531,
        "scene": 2160,
        "implicit": 4490,
    }
    assert c["by_format"]["ncu/hex"] == c["by_format"]["ncu/rgb"] == 449 * 13
    sizes = {s: len(load_system(s)) for s in SUITE_SYSTEMS}
    assert sizes == {"iscc-nbs-l1": 13, "iscc-nbs-l2": 29, "iscc-nbs-l3": 260, "css3": 147}
    for s, n in sizes.items():
        assert c["by_task_system"][f"cna/{s}"] == 40 * n
        assert c["by_task_system"][f"coa/{s}"] == 19 * n
        assert c["by_task_system"][f"ica/{s}"] == 10 * n
        assert c["by_task_system"][f"moc/{s}"] == 30 * 18
    assert len({r["id"] for r in full}) == len(full)


def test_full_suite_balance_and_fields(full):
    cna = [r for r in full if r["task"] == "cna"]
    per_colour = Counter((r["system"], r["colors"][0]["name"]) for r in cna)
    assert set(per_colour.values()) == {40} and len(per_colour) == 449
    # every colour sees every category; every object row is used equally often (±1)
    cats: dict[tuple[str, str], set[str]] = {}
    for r in cna:
        cats.setdefault((r["system"], r["colors"][0]["name"]), set()).add(r["objects"][0]["category"])
    assert all(len(v) == 7 for v in cats.values())
    uses = Counter((r["objects"][0]["name"], r["objects"][0]["category"]) for r in cna)
    assert len(uses) == 108 and max(uses.values()) - min(uses.values()) <= 1
    for r in full:
        assert {"id", "task", "level", "system", "template_id", "prompt", "colors", "objects", "format"} <= set(r)
        assert "{" not in r["prompt"], r["prompt"]
        for c in r["colors"]:
            assert re.fullmatch(r"#[0-9A-F]{6}", c["hex"]) and len(c["srgb"]) == 3
        for o in r["objects"]:
            assert {"name", "category", "role", "color", "negative_labels"} <= set(o)
    car = next(r for r in cna if r["objects"][0]["name"] == "car")
    assert "windshield" in car["objects"][0]["negative_labels"]


def test_prompt_text_per_task(full):
    by_id = {r["id"]: r for r in full}
    for r in full:
        if r["task"] == "ncu":
            c = r["colors"][0]
            token = c["hex"] if r["format"] == "hex" else "rgb({}, {}, {})".format(*c["srgb"])
            assert (token in r["prompt"] and c["phrase"] not in r["prompt"].lower().split("rgb")[0]) or token in r[
                "prompt"
            ]
        elif r["task"] == "moc":
            assert len(r["colors"]) == len(r["objects"]) in (2, 3)
            assert len({tuple(c["srgb"]) for c in r["colors"]}) == len(r["colors"])  # distinct colours
            for o in r["objects"]:
                assert o["name"].lower() in r["prompt"].lower() or o["name"] == "jeans"
        else:
            assert r["colors"][0]["phrase"] in r["prompt"]
        if r["task"] == "coa":
            assert [o["role"] for o in r["objects"]] == ["target", "context"] and r["objects"][1]["color"] is None
        if r["task"] == "ica":
            assert [o["role"] for o in r["objects"]] == ["target", "partner"]
            assert [o["color"] for o in r["objects"]] == [0, 0]
    # articles follow the colour word; CSS names are split into words
    assert color_phrase("LightSeaGreen", "css3") == "light sea green"
    assert color_phrase("Yellowish pink", "iscc-nbs-l2") == "yellowish pink"
    assert not any(re.search(r"\b[Aa] [aeiou]", r["prompt"]) for r in full)
    assert by_id["cna-l1-00001"]["system"] == "iscc-nbs-l1"


def test_template_roles_match_the_text():
    tpl = load_templates()
    roles = load_template_roles()
    assert Counter(level for level, _ in roles) == {"contextual": 63, "scene": 30, "implicit": 100}
    names = {o.name for o in load_objects()}
    for (level, i), role in roles.items():
        text = tpl[level][i].lower()
        for obj in role.objects:
            assert obj in names, (level, i, obj)
            assert obj.lower().rstrip("s") in text or obj == "remote", (level, i, obj)
        if level == "scene":
            assert len(role.objects) == len(re.findall(r"\{color\d\}", tpl[level][i]))
        else:
            assert role.other.lower() in text.replace("child’s ", ""), (level, i, role.other)
    assert roles[("contextual", 0)].objects == ("apple",) and roles[("contextual", 0)].other == "white plate"
    assert roles[("implicit", 1)].objects == ("bicycle",) and roles[("implicit", 1)].other == "car"
    assert roles[("scene", 1)].objects == ("dog", "cat", "couch")


def test_templates_have_no_extraction_debris():
    for level, items in load_templates().items():
        for t in items:
            assert len(t) < 200 and "Figure" not in t and "Refer to" not in t, (level, t)


def test_mini_suite_is_a_stratified_subset(full, mini):
    assert 8000 < len(mini) < 10000
    full_ids = {r["id"]: r for r in full}
    assert all(full_ids[r["id"]] == r for r in mini)

    def cell(r):
        return r["task"], r["system"], r["objects"][0]["category"]

    assert {cell(r) for r in mini} == {cell(r) for r in full}
    assert min(Counter(cell(r) for r in mini).values()) >= 3
    # the round-robin over colours keeps every L1/L2 colour in every CNA category cell
    for s in ("iscc-nbs-l1", "iscc-nbs-l2"):
        got = {
            (r["objects"][0]["category"], r["colors"][0]["name"])
            for r in mini
            if r["task"] == "cna" and r["system"] == s
        }
        assert len(got) == 7 * len(load_system(s))
    assert {r["colors"][0]["name"] for r in mini if r["task"] == "cna" and r["system"] == "iscc-nbs-l3"} == set(
        load_system("iscc-nbs-l3").names
    )


def test_suite_is_deterministic_per_seed(mini):
    again = build_suite("mini", seed=0)
    assert json.dumps(again) == json.dumps(mini)
    other = build_suite("mini", seed=1)
    assert [r["prompt"] for r in other] != [r["prompt"] for r in mini]
    with pytest.raises(Exception, match="unknown suite"):
        build_suite("tiny")


def test_prompts_cli_and_loading(tmp_path):
    from typer.testing import CliRunner

    from huebench.cli import app

    out = tmp_path / "mini.jsonl"
    res = CliRunner().invoke(app, ["gencolor", "prompts", "--suite", "mini", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "by task" in res.output
    loaded = load_prompts(out)
    assert [r["id"] for r in loaded] == [r["id"] for r in build_suite("mini")]


@pytest.mark.robustness
@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r.update(id="../escape"), "cannot name a folder"),
        (lambda r: r.update(id="/abs/path"), "cannot name a folder"),
        (lambda r: r.update(task="paint"), "unknown task 'paint'"),
        (lambda r: r.update(colors=[]), "non-empty list"),
        (lambda r: r["objects"][0].update(color=3), "colour index 3"),
        (lambda r: r.pop("objects"), "missing field"),
    ],
)
def test_bad_prompt_files_name_file_and_line(tmp_path, edit, message):
    recs = build_suite("mini")[:3]
    edit(recs[1])
    p = tmp_path / "bad.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    with pytest.raises(InputFileError, match=re.escape(f"{p}:2")) as exc:
        load_prompts(p)
    assert re.search(message, str(exc.value))


@pytest.mark.robustness
def test_duplicate_prompt_ids_are_rejected(tmp_path):
    r = build_suite("mini")[0]
    p = tmp_path / "dup.jsonl"
    p.write_text(json.dumps(r) + "\n" + json.dumps(r) + "\n", encoding="utf-8")
    with pytest.raises(InputFileError, match=r"dup.jsonl:2: duplicate prompt id .* \(first on line 1\)"):
        load_prompts(p)
    (tmp_path / "empty.jsonl").write_text("\n", encoding="utf-8")
    with pytest.raises(InputFileError, match="no prompts"):
        load_prompts(tmp_path / "empty.jsonl")


def test_implicit_roles_cross_check_with_upstream(shared_data):
    """Upstream's implicit templates are a later rewording (no text in common with the paper's 100)
    but annotate (object, reference object) as our roles do: 56 of our 81 distinct pairs agree."""
    import csv

    path = shared_data / "gencolorbench-upstream" / "templates" / "task5_relative_prompt_templates.csv"
    with open(path, encoding="utf-8") as fh:
        upstream = list(csv.DictReader(fh))
    pairs = {(r["object"].strip(), r["ref_object"].strip()) for r in upstream}
    ours = {(r.objects[0], r.other) for (level, _), r in load_template_roles().items() if level == "implicit"}
    assert len(upstream) == 130 and len(ours) == 81
    assert len(ours & pairs) == 56
    texts = {r["prompt"].lower() for r in upstream}
    assert not texts & {t.lower() for t in load_templates()["implicit"]}
