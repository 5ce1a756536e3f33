"""The input formats the docs show are the ones the loaders read: their examples load, and the
error the docs quote is the error a user gets."""

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from huebench.cli import app

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _json_lines(doc: str, heading: str) -> list[dict]:
    text = (DOCS / doc).read_text(encoding="utf-8")
    section = text[text.index(heading) :]
    section = section[: section.index("\n## ", 1) if "\n## " in section[1:] else len(section)]
    blocks = re.findall(r"```json\n(.*?)```", section, re.S)
    return [json.loads(line) for block in blocks for line in block.splitlines() if line.strip()]


def test_colorswap_responses_example_scores_and_the_quoted_error_is_real(tmp_path):
    lines = _json_lines("colorswap.md", "### The responses file")
    assert len(lines) == 4 and {(r["query"], r["subject"]) for r in lines} == {
        ("text", 0),
        ("text", 1),
        ("image", 0),
        ("image", 1),
    }
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    r = CliRunner().invoke(app, ["colorswap", "rescore", str(path), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["group"] == 100.0  # the example's answers are all right
    lines[2]["subject"] = "image_1"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    r = CliRunner().invoke(app, ["colorswap", "rescore", str(path)])
    quoted = "subject must be 0 or 1 (which caption/image of the pair was asked about), got 'image_1'"
    assert quoted in (DOCS / "colorswap.md").read_text() and quoted in str(r.exception)
    assert f"{path}:3" in str(r.exception)


def test_coda_build_examples_load(tmp_path):
    from huebench.benchmarks.coda.dataset import rating_vector, read_objects
    from huebench.io import InputFileError

    objects, submitted, skipped = _json_lines("coda.md", "### Input files of `coda build`")
    assert submitted["action"] == "submitted" and skipped["action"] != "submitted"
    vec = rating_vector(submitted, "docs")
    assert vec.sum() == 10 and len(vec) == 11
    path = tmp_path / "objects.jsonl"
    path.write_text(json.dumps(objects) + "\n")
    (obj,) = read_objects(path)
    assert obj.display_name == "Airplane" and obj.object_pl == "airplanes"
    with pytest.raises(InputFileError, match="needs all 11 colours"):
        rating_vector({k: v for k, v in submitted.items() if k != "pink"}, "docs")
