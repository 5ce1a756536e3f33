"""The input formats the docs show are the ones the loaders read: their examples load, and the
error the docs quote is the error a user gets."""

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from huebench.cli import app

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_colorswap_responses_example_scores_and_the_quoted_error_is_real(tmp_path):
    lines = _jsonl("colorswap.md", "### The responses file")
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

    objects, submitted, skipped = _jsonl("coda.md", "### Input files of `coda build`")
    assert submitted["action"] == "submitted" and skipped["action"] != "submitted"
    vec = rating_vector(submitted, "docs")
    assert vec.sum() == 10 and len(vec) == 11
    path = tmp_path / "objects.jsonl"
    path.write_text(json.dumps(objects) + "\n")
    (obj,) = read_objects(path)
    assert obj.display_name == "Airplane" and obj.object_pl == "airplanes"
    with pytest.raises(InputFileError, match="needs all 11 colours"):
        rating_vector({k: v for k, v in submitted.items() if k != "pink"}, "docs")


# ---------------------------------------------------------------- helpers for the sections below
def _section(doc: str, heading: str) -> str:
    """The text of ``heading``'s section, up to the next heading of the same or a higher level."""
    text = (DOCS / doc).read_text(encoding="utf-8")
    section = text[text.index(heading) :]
    level = heading.split(" ", 1)[0]  # "##" or "###"
    ends = [section.find(f"\n{'#' * n} ", 1) for n in range(2, len(level) + 1)]
    ends = [e for e in ends if e > 0]
    return section[: min(ends)] if ends else section


def _blocks(doc: str, heading: str, lang: str = "") -> list[str]:
    """The fenced blocks of a section in ``lang`` ("" = blocks without one)."""
    blocks: list[tuple[str, list[str]]] = []
    inside = False
    for line in _section(doc, heading).splitlines():
        if line.startswith("```"):
            if not inside:
                blocks.append((line[3:].strip(), []))
            inside = not inside
        elif inside:
            blocks[-1][1].append(line + "\n")
    return ["".join(body) for kind, body in blocks if kind == lang]


def _jsonl(doc: str, heading: str) -> list[dict]:
    return [json.loads(line) for block in _blocks(doc, heading, "json") for line in block.splitlines() if line.strip()]


def _quoted(doc: str, heading: str) -> list[str]:
    """The error messages a section quotes (inline code spans, line breaks joined), for the tests to
    check against the real ones."""
    prose = re.sub(r"```.*?```", "", _section(doc, heading), flags=re.S)
    return [" ".join(q.split()) for q in re.findall(r"`([^`]+)`", prose)]


def _in_doc(message: str, doc: str, heading: str) -> None:
    """``message`` is quoted in the section: as a code span, whole or with parts left out as "…"
    (what is kept, at least 40 characters, must appear in the message in that order)."""

    def quotes(span: str) -> bool:
        pieces = [p.strip() for p in span.split("…") if p.strip()]
        if span == message or sum(map(len, pieces)) < 40:
            return span == message
        at = 0
        for piece in pieces:
            at = message.find(piece, at)
            if at < 0:
                return False
            at += len(piece)
        return True

    assert any(quotes(s) for s in _quoted(doc, heading)), f"{doc} ({heading}) should quote: {message}"


def _write_image(path: Path, size: int = 32, color: tuple[int, int, int] = (200, 30, 30)) -> None:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (size, size), color).save(path)


# ---------------------------------------------------------------- Rainbow
RAINBOW = "rainbow.md"


def test_rainbow_captions_examples_build_the_probe_line_the_docs_show(tmp_path):
    from huebench.benchmarks.rainbow.sources import load_captions

    heading = "### The captions file"
    lines = _jsonl(RAINBOW, heading)
    (csv_block,) = _blocks(RAINBOW, heading, "csv")
    jsonl = tmp_path / "captions.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in lines))
    (tmp_path / "captions.csv").write_text(csv_block)
    caps = load_captions(jsonl)
    from_csv = load_captions(tmp_path / "captions.csv")
    assert [c.id for c in caps] == [r["id"] for r in lines] and caps[2].source == ""
    assert from_csv[1].caption == "A yellow umbrella, open on the beach." and from_csv[1].source == ""
    r = CliRunner().invoke(app, ["rainbow", "build", "--captions", str(jsonl), "--out", str(tmp_path / "probes")])
    assert r.exit_code == 0, r.output
    built = (tmp_path / "probes" / "replacements.jsonl").read_text().splitlines()
    (shown,) = _jsonl(RAINBOW, "### The probes folder")
    assert json.loads(built[0]) == shown  # the docs' probe line is the one the docs' captions give
    # the natural wrong guess: "text" for the caption
    bad = tmp_path / "bad" / "captions.jsonl"
    bad.parent.mkdir()
    bad.write_text(json.dumps({"id": "x", "image": "a.jpg", "text": "a red car"}) + "\n")
    r = CliRunner().invoke(app, ["rainbow", "build", "--captions", str(bad), "--out", str(tmp_path / "p2")])
    message = str(r.exception)
    assert message.startswith(f"{bad}:1: ")
    _in_doc("captions.jsonl:1: " + message.split(":1: ", 1)[1], RAINBOW, heading)


@pytest.mark.parametrize("source", ["flickr30k", "coco", "aro", "vl-checklist", "eqben"])
def test_rainbow_import_examples_give_the_captions_the_docs_show(tmp_path, source):
    from huebench.benchmarks.rainbow.sources import SOURCES, load_captions

    headings = re.findall(r"^#### (.+)$", _section(RAINBOW, "### The source files"), re.M)
    assert headings == list(SOURCES)  # every source has its example, and only those
    given, gives = _blocks(RAINBOW, f"#### {source}", "json")
    path = tmp_path / "annotations.json"
    path.write_text(given)
    out = tmp_path / "captions.jsonl"
    r = CliRunner().invoke(app, ["rainbow", "import", source, str(path), "--out", str(out)])
    assert r.exit_code == 0, r.output
    shown = [json.loads(line) for line in gives.splitlines()]
    assert [json.loads(line) for line in out.read_text().splitlines()] == shown
    assert [c.id for c in load_captions(out)] == [c["id"] for c in shown]  # what rainbow build reads


def test_rainbow_import_help_examples_import_and_the_quoted_error_is_real(tmp_path):
    from huebench.benchmarks.rainbow.cli import IMPORT_EXAMPLES
    from huebench.benchmarks.rainbow.sources import SOURCES

    captions = {
        "flickr30k": ["A man in a red shirt."],
        "coco": ["A man on a red moped."],
        "aro": ["the white plate"],  # not the false caption
        "vl-checklist": ["white plate"],  # not the NEG one
        "eqben": ["a red ball", "a blue cube", "a yellow cube"],
    }
    assert list(IMPORT_EXAMPLES) == list(SOURCES) == list(captions)
    r = CliRunner().invoke(app, ["rainbow", "import", "--help"], terminal_width=100)
    shown = " ".join(r.output.split())
    for source, example in IMPORT_EXAMPLES.items():
        assert f"{source}: {json.dumps(example)}" in shown  # the --help shows the example the test imports
        path = tmp_path / f"{source}.json"
        path.write_text(json.dumps(example))
        out = tmp_path / f"{source}.jsonl"
        r = CliRunner().invoke(app, ["rainbow", "import", source, str(path), "--out", str(out)])
        assert r.exit_code == 0, r.output
        assert [json.loads(line)["caption"] for line in out.read_text().splitlines()] == captions[source]
    # the natural wrong guess: captions that are already in the captions format
    captions = tmp_path / "captions.jsonl"
    captions.write_text("".join(json.dumps(r) + "\n" for r in _jsonl(RAINBOW, "### The captions file")))
    r = CliRunner().invoke(app, ["rainbow", "import", "flickr30k", str(captions), "--out", str(tmp_path / "x.jsonl")])
    message = str(r.exception)
    assert message.startswith(f"{captions}:2: invalid JSON (Extra data); `rainbow import flickr30k` reads Karpathy")
    _in_doc("captions.jsonl:2: " + message.split(":2: ", 1)[1], RAINBOW, "### The source files")


def test_rainbow_images_root_and_colours_file_examples_run(tmp_path):
    from huebench.benchmarks.rainbow.benchmark import Rainbow, load_probes
    from huebench.benchmarks.rainbow.probes import ProbeBuilder
    from huebench.benchmarks.rainbow.sources import load_captions
    from huebench.io import InputFileError
    from huebench.runs.runner import evaluate

    caps_file = tmp_path / "captions.jsonl"
    caps_file.write_text("".join(json.dumps(r) + "\n" for r in _jsonl(RAINBOW, "### The captions file")))
    caps = load_captions(caps_file)
    reps, swaps = ProbeBuilder().build(caps)
    probes = tmp_path / "probes"
    probes.mkdir()
    (probes / "replacements.jsonl").write_text("".join(json.dumps(p) + "\n" for p in reps))
    (probes / "swaps.jsonl").write_text("".join(json.dumps(p) + "\n" for p in swaps))
    (tree,) = _blocks(RAINBOW, "### The images root")
    shown = re.findall(r'"image": "([^"]+)"', tree)
    assert set(shown) == {c.image for c in caps}  # the tree holds the captions' images
    root = tmp_path / "flickr30k-images"
    for name in shown:
        _write_image(root / name)
    (rgb_block,) = _blocks(RAINBOW, "### The colours file", "csv")
    rgb = tmp_path / "hues.csv"
    rgb.write_text(rgb_block)
    res = evaluate(
        "rainbow",
        "reference:random",
        out=tmp_path / "run",
        no_cache=True,
        progress=False,
        probes=str(probes),
        images=str(root),
        rgb=str(rgb),
    )
    assert [r["status"] for r in res.records] == ["ok"] * len(caps)
    hues = res.metrics["rgb_hues"]
    assert hues and {"#B22222", "#4169E1", "#FAD23C"} <= {v["hex"] for d in hues.values() for v in d.values()}
    (root / "mine" / "beach.png").unlink()  # a missing image fails its caption's sample only
    res = evaluate(
        "rainbow",
        "reference:random",
        out=tmp_path / "run2",
        no_cache=True,
        progress=False,
        probes=str(probes),
        images=str(root),
    )
    assert [r["status"] for r in res.records] == ["ok", "ok", "error"]
    _in_doc(res.records[2]["reason"], RAINBOW, "### The images root")
    # a hand-made probe of the wrong kind, and a colours file with a word for an index: the errors quoted
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "replacements.jsonl").write_text(json.dumps(dict(reps[0], kind="replace")) + "\n")
    (bad / "swaps.jsonl").write_text("")
    with pytest.raises(InputFileError) as exc:
        load_probes(bad)
    _in_doc("replacements.jsonl:1: " + str(exc.value).split(".jsonl:1: ", 1)[1], RAINBOW, "### The probes folder")
    rgb.write_text("caption_id,mention_index,hex\nflickr-1000092795-0,first,#B22222\n")
    with pytest.raises(InputFileError) as exc:  # refused when the run is set up, before any sample
        Rainbow(probes=str(probes), images=str(root), rgb=str(rgb))
    assert str(exc.value).startswith(f"{rgb}:2: ")
    _in_doc("hues.csv:2: " + str(exc.value).split(":2: ", 1)[1], RAINBOW, "### The colours file")


def test_rainbow_probes_of_one_caption_share_its_text(tmp_path):
    from huebench.benchmarks.rainbow.benchmark import load_probes
    from huebench.io import InputFileError

    (probe,) = _jsonl(RAINBOW, "### The probes folder")
    other = dict(probe, id=probe["id"] + "x", text="A man in a red shirt.")
    (tmp_path / "replacements.jsonl").write_text(json.dumps(probe) + "\n" + json.dumps(other) + "\n")
    (tmp_path / "swaps.jsonl").write_text("")
    with pytest.raises(InputFileError, match=r"replacements\.jsonl:2: text 'A man in a red shirt\.' differs"):
        load_probes(tmp_path)
    for key, value in (("foil_color", "grey"), ("relation", "near")):
        (tmp_path / "replacements.jsonl").write_text(json.dumps(dict(probe, **{key: value})) + "\n")
        with pytest.raises(InputFileError, match=rf"replacements\.jsonl:1: {key} must be one of"):
            load_probes(tmp_path)


# ---------------------------------------------------------------- CoDa
CODA = "coda.md"


def _coda_dataset(tmp_path: Path) -> Path:
    folder = tmp_path / "coda"
    folder.mkdir()
    (folder / "objects.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _jsonl(CODA, "### The dataset folder")))
    return folder


def test_coda_dataset_example_loads_and_runs(tmp_path):
    from huebench.benchmarks.coda.dataset import load_dataset
    from huebench.io import InputFileError
    from huebench.runs.runner import evaluate

    folder = _coda_dataset(tmp_path)
    banana, jeans = load_dataset(folder)
    assert banana.group == "Single" and jeans.object_s is None and abs(sum(jeans.distribution) - 1) < 1e-9
    res = evaluate("coda", "reference:random", out=tmp_path / "run", no_cache=True, progress=False, dataset=str(folder))
    assert [r["status"] for r in res.records] == ["ok", "ok"]
    assert len(res.records[1]["templates"]) < len(res.records[0]["templates"])  # jeans: no singular templates
    rows = [json.loads(x) for x in (folder / "objects.jsonl").read_text().splitlines()]
    rows[0]["distribution"] = [100 * v for v in rows[0]["distribution"]]  # percentages
    (folder / "objects.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(InputFileError) as exc:
        load_dataset(folder)
    _in_doc("objects.jsonl:1: " + str(exc.value).split(".jsonl:1: ", 1)[1], CODA, "### The dataset folder")
    for key, value, match in (
        ("group", "single", "group must be one of Single, Multi, Any"),
        ("split", "validation", "split must be one of train, val, test"),
        ("distribution", [0.5, 0.5], "distribution must be a list of 11 probabilities"),
        ("object_pl", None, "object_pl must be a non-empty string"),
    ):
        (folder / "objects.jsonl").write_text(json.dumps(dict(rows[1], **{key: value})) + "\n")
        with pytest.raises(InputFileError, match=rf"objects\.jsonl:1: {match}"):
            load_dataset(folder)
    # the object list of `coda build` (no distribution, group, split) where a dataset is expected
    build_input = {k: rows[1][k] for k in list(rows[1])[:7]}
    (folder / "objects.jsonl").write_text(json.dumps(build_input) + "\n")
    with pytest.raises(
        InputFileError, match=r"missing field\(s\) distribution, group, split; .* `huebench coda build`"
    ):
        load_dataset(folder)
    (folder / "objects.jsonl").write_text(json.dumps({"class_id": "x", "display_name": "X"}) + "\n")
    with pytest.raises(InputFileError, match=r"objects\.jsonl:1: missing field\(s\) object_s, object_pl"):
        load_dataset(folder)  # was a TypeError from the dataclass


def test_coda_corpus_example_counts_to_the_counts_example(tmp_path):
    from huebench.benchmarks.coda.reporting_bias import read_counts
    from huebench.io import InputFileError
    from huebench.runs.runner import evaluate

    heading = "### Corpus and counts files"
    folder = _coda_dataset(tmp_path)
    (corpus,) = _blocks(CODA, heading, "text")
    (counts_csv,) = _blocks(CODA, heading, "csv")
    (tmp_path / "corpus.txt").write_text(corpus)
    out = tmp_path / "counts.csv"
    args = ["coda", "count", "--corpus", str(tmp_path / "corpus.txt"), "--dataset", str(folder), "--out", str(out)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert out.read_text() == counts_csv  # the docs' corpus gives the docs' counts file
    assert read_counts(out)["/m/09qck"][0] == 3
    res = evaluate(
        "coda",
        "reference:random",
        out=tmp_path / "run",
        no_cache=True,
        progress=False,
        dataset=str(folder),
        counts=str(out),
    )
    assert all("ngram" in rec for rec in res.records)
    r = CliRunner().invoke(app, ["coda", "reporting-bias", "--dataset", str(folder), "--counts", str(out), "--json"])
    assert r.exit_code == 0, r.output
    out.write_text(counts_csv.replace(",gray,", ",grey,"))
    with pytest.raises(InputFileError) as exc:
        read_counts(out)
    _in_doc("counts.csv:1: " + str(exc.value).split(".csv:1: ", 1)[1], CODA, heading)
    (tmp_path / "latin1.txt").write_bytes("A yellow banana.\nUn caf\xe9 noir.\n".encode("latin-1"))
    args[3] = str(tmp_path / "latin1.txt")
    r = CliRunner().invoke(app, args)
    assert isinstance(r.exception, InputFileError)  # was a UnicodeDecodeError: "internal error", exit 3
    assert str(r.exception).startswith(f"{tmp_path / 'latin1.txt'}:2: not valid UTF-8 (byte 0xe9)")


# ---------------------------------------------------------------- ColorSwap
COLORSWAP = "colorswap.md"


def test_colorswap_examples_file_loads_and_runs(tmp_path):
    from huebench.benchmarks.colorswap.data import load_examples
    from huebench.io import InputFileError
    from huebench.runs.runner import evaluate

    heading = "### The examples file"
    lines = _jsonl(COLORSWAP, heading)
    (tree,) = _blocks(COLORSWAP, heading)
    folder = tmp_path / "colorswap"
    shown = re.findall(r"images/\S+\.png", tree)
    assert sorted(shown) == sorted(r[k] for r in lines for k in ("image_1", "image_2"))
    for k, name in enumerate(shown):
        _write_image(folder / name, color=(200, 30 * k, 30))
    (folder / "examples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert [e.id for e in load_examples(folder, split=None)] == ["42", "43"]
    res = evaluate(
        "colorswap", "reference:random", out=tmp_path / "run", no_cache=True, progress=False, data=str(folder)
    )
    assert [r["id"] for r in res.records] == ["42"] and res.records[0]["status"] == "ok"  # split test
    wino = [
        {
            "id": r["id"],
            "caption_0": r["caption_1"],
            "caption_1": r["caption_2"],
            "image_0": r["image_1"],
            "image_1": r["image_2"],
        }
        for r in lines
    ]
    (folder / "examples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in wino))
    with pytest.raises(InputFileError) as exc:
        load_examples(folder)
    message = str(exc.value)
    assert "caption_0 → caption_1, caption_1 → caption_2" in message
    _in_doc("examples.jsonl:1: " + message.split(".jsonl:1: ", 1)[1], COLORSWAP, heading)


def test_colorswap_authors_logs_example_converts_and_rescores(tmp_path):
    heading = "### The authors' logs"
    text_log, image_log = (json.loads(b) for b in _blocks(COLORSWAP, heading, "json"))
    t, i = tmp_path / "text-m-colorswap.json", tmp_path / "image-m-colorswap.json"
    t.write_text(json.dumps(text_log))
    i.write_text(json.dumps(image_log))
    out = tmp_path / "m.jsonl"
    r = CliRunner().invoke(app, ["colorswap", "convert-logs", str(t), str(i), "--out", str(out)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["colorswap", "rescore", str(out), "--json"])
    assert json.loads(r.output)["group"] == 100.0 and json.loads(r.output)["n"] == 1
    r = CliRunner().invoke(app, ["colorswap", "convert-logs", str(i), str(t), "--out", str(out)])  # swapped
    message = str(r.exception)
    assert message.startswith(f"{i} entry 0 (id 9): not an entry of the authors' text log (no field 'image_url')")
    _in_doc("… entry 0 (id 9)" + message.split(" entry 0 (id 9)", 1)[1], COLORSWAP, heading)
    text_log[0]["log_1"]["correct_answer"] = "C"
    t.write_text(json.dumps(text_log))
    r = CliRunner().invoke(app, ["colorswap", "convert-logs", str(t), str(i), "--out", str(out)])
    assert str(r.exception) == f"{t} entry 0 (id 9) log_1: correct_answer must be 'A' or 'B', got 'C'"


# ---------------------------------------------------------------- GenColorBench
GENCOLOR = "gencolor.md"


def test_gencolor_prompts_example_loads_and_the_quoted_errors_are_real(tmp_path):
    from huebench.benchmarks.gencolor.prompts import build_suite, load_prompts
    from huebench.io import InputFileError

    heading = "### The prompts file"
    lines = _jsonl(GENCOLOR, heading)
    assert lines[0] == next(r for r in build_suite("mini") if r["id"] == lines[0]["id"])  # as the suite writes it
    path = tmp_path / "prompts.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert [r["id"] for r in load_prompts(path)] == ["cna-l1-00004", "my-coa-1", "my-moc-1"]

    def refused(line: dict) -> str:
        path.write_text("".join(json.dumps(r) + "\n" for r in [lines[0], line]))
        with pytest.raises(InputFileError) as exc:
            load_prompts(path)
        assert str(exc.value).startswith(f"{path}:2: ")
        return str(exc.value).split(":2: ", 1)[1]

    coa = lines[1]
    no_color = dict(coa, objects=[{"name": "mug", "role": "target"}, coa["objects"][1]])
    _in_doc("prompts.jsonl:2: " + refused(no_color), GENCOLOR, heading)
    _in_doc(refused(dict(coa, system="x11")), GENCOLOR, heading)
    assert "Did you mean 'Crimson'?" in refused(dict(coa, colors=[{"name": "Crimsonish"}]))
    assert "not a colour of the css3 system" in refused(dict(coa, colors=[{"name": "Vivid red"}]))
    assert "use target, context or partner" in refused(dict(coa, objects=[dict(coa["objects"][0], role="object")]))
    assert "unknown colour system" in refused(dict(coa, system="pantone"))


def _records(run_dir: Path) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, (run_dir / "records.jsonl").read_text().splitlines())}


def test_gencolor_image_folder_and_masks_examples(tmp_path):
    from PIL import Image

    from huebench.benchmarks.gencolor.store import ImageStore

    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text("".join(json.dumps(r) + "\n" for r in _jsonl(GENCOLOR, "### The prompts file")))
    heading = "## Image folder"
    tree, masks_tree = _blocks(GENCOLOR, heading)[1:]
    images = tmp_path / "imgs" / "sd35"
    generate = ["gencolor", "generate", "-m", "reference:random", "--n", "2", "--no-progress"]
    r = CliRunner().invoke(app, [*generate, "--prompts", str(prompts), "--images", str(images)])
    assert r.exit_code == 0, r.output
    made = {str(p.relative_to(images)) for p in images.rglob("*") if p.is_file() and ".runs" not in p.parts}
    shown = set(re.findall(r"[\w.-]+/(?:\d+\.png|meta\.json)", tree))
    assert shown == {m for m in made if not m.endswith(".meta.lock")}
    # the docs' meta.json is what generate writes: the same keys, and the store reads it
    (meta,) = _jsonl(GENCOLOR, heading)
    written = json.loads((images / "my-coa-1" / "meta.json").read_text())
    assert written.keys() == meta.keys() and written["prompt"] == meta["prompt"]
    assert written["images"]["0"].keys() == meta["images"]["0"].keys()
    other = tmp_path / "other"
    (other / "my-coa-1").mkdir(parents=True)
    (other / "my-coa-1" / "meta.json").write_text(json.dumps(meta))
    assert ImageStore(other).meta("my-coa-1") == meta
    masks = tmp_path / "masks"
    score = ["gencolor", "score", "--images", str(images), "--prompts", str(prompts), "--masks", str(masks)]
    score += ["--n", "2", "--no-progress"]
    for name in re.findall(r"[\w-]+/\d+\.[\w-]+\.png", masks_tree):
        (masks / name).parent.mkdir(parents=True, exist_ok=True)
        m = Image.new("L", (64, 64), 0)
        m.paste(255, (8, 8, 40, 40))
        m.save(masks / name)
    CliRunner().invoke(app, [*score, "--out", str(tmp_path / "run")])
    records = _records(tmp_path / "run")
    assert [o["mask_source"] for o in records["my-moc-1/0"]["objects"]] == ["user", "user"]
    assert [o["mask_source"] for o in records["my-coa-1/0"]["objects"]] == ["user", "user"]
    assert all(rec["status"] == "ok" for rec in records.values())
    # a mask of another size, and an image that is not there: failed samples, their reasons as quoted
    Image.new("L", (32, 32), 255).save(masks / "my-coa-1" / "1.mug.png")
    (images / "my-moc-1" / "1.png").rename(images / "my-moc-1" / "1.jpg")
    CliRunner().invoke(app, [*score, "--out", str(tmp_path / "run2")])
    records = _records(tmp_path / "run2")
    assert [rid for rid, rec in records.items() if rec["status"] == "error"] == ["my-coa-1/1", "my-moc-1/1"]
    _in_doc(records["my-coa-1/1"]["reason"], GENCOLOR, heading)
    assert records["my-moc-1/1"]["reason"].startswith(f"image {images / 'my-moc-1' / '1.png'} missing")


def test_every_section_the_help_points_to_exists():
    """`--help` epilogs and option help say "docs/PAGE.md, Section": each names a heading of that page."""
    from huebench.benchmarks.base import get_benchmark, list_benchmarks

    texts = [cmd.epilog or "" for group in app.registered_groups for cmd in group.typer_instance.registered_commands]
    texts += [cmd.epilog or "" for cmd in app.registered_commands]
    texts += [spec.help for name in list_benchmarks() for spec in get_benchmark(name).option_specs().values()]
    pointers = {m for text in texts for m in re.findall(r"docs/([\w-]+\.md), ([A-Z][^.;)]*)", text)}
    assert len(pointers) >= 10
    missing = []
    for page, name in sorted(pointers):
        headings = [h.replace("`", "") for h in re.findall(r"^#+ (.*)$", (DOCS / page).read_text(), re.M)]
        if not any(h.startswith(name) for h in headings):
            missing.append(f"docs/{page}: {name}")
    assert not missing, missing
