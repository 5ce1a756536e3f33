"""ColorBench: the answer parser on a corpus of tricky answers, the data (upstream's JSON layout and
the Hub's, through ``datasets.load_dataset``), rescoring upstream's result files against accuracies
computed by hand, and runs end to end offline (reference:random, tiny LLaVA, the api: backend,
recolouring by the run)."""

import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from huebench.benchmarks.colorbench.data import load_questions, robustness_instance
from huebench.benchmarks.colorbench.parsing import parse_choice
from huebench.benchmarks.colorbench.scoring import rescore_file
from huebench.errors import HuebenchError
from huebench.io import InputFileError
from huebench.runs.runner import evaluate
from huebench.testing.colorbench import colorbench_rows, make_colorbench_folder

RESULTS = Path(__file__).parent / "fixtures" / "colorbench" / "results.json"

COLORS = ["Red", "Green", "Yellow", "No answer"]
RGB = ["Blue", "Green", "Red"]
SHADES = ["Red", "Dark red", "Blue"]
COUNTS = ["1", "2", "3", "4"]
ILLUSION = ["Yes", "No", "Cannot tell"]
HEX = ["#1E90FF", "#FF4500", "#32CD32", "#FFD700"]
STATES = ["ID", "OK", "TX", "MO"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return make_colorbench_folder(tmp_path_factory.mktemp("colorbench"))


# ------------------------------------------------------------------ the parser
@pytest.mark.parametrize(
    ("response", "choices", "expected"),
    [
        # letters in their usual forms
        ("A", COLORS, "A"),
        ("b", COLORS, "B"),
        ("(C)", COLORS, "C"),
        ("[D]", COLORS, "D"),
        ("B) Green", COLORS, "B"),
        ("C. Yellow", COLORS, "C"),
        ("B: green", COLORS, "B"),
        ("**B**", COLORS, "B"),
        ("C is correct", COLORS, "C"),
        # concluding phrases: the last one decides
        ("The answer is (B).", COLORS, "B"),
        ("Answer: C", COLORS, "C"),
        ("ANSWER: (a)", COLORS, "A"),
        ("The correct option is D", COLORS, "D"),
        ("I choose C", COLORS, "C"),
        ("I'd go with option b", COLORS, "B"),
        ("I think it is C.", COLORS, "C"),
        ("Option A is red and option B is green; the answer is B.", COLORS, "B"),
        ("Let me think. (A) Red is wrong, the banana is yellow. Therefore the answer is (C).", COLORS, "C"),
        ("Looking closely: (A) red? no. (C) yellow fits best. So (C).", COLORS, "C"),
        # "a" and "A" as words, "I" as the pronoun
        ("The answer is a red car", RGB, "C"),
        ("A red apple", RGB, "C"),
        ("I think yellow", COLORS, "C"),
        # option texts
        ("Yellow", COLORS, "C"),
        ("The banana is yellow.", COLORS, "C"),
        ("It is not red, it is yellow", COLORS, "C"),
        ("dark red", SHADES, "B"),
        ("It is red, not blue.", SHADES, "A"),
        ("three", COUNTS, "C"),
        ("There are 3 shapes.", COUNTS, "C"),
        ("#32cd32", HEX, "C"),
        ("The HEX value is 1E90FF", HEX, "A"),
        ("OK", STATES, "B"),
        ("MO", STATES, "D"),
        ("Yes, they are the same color.", ILLUSION, "A"),
        ("No.", ILLUSION, "B"),
        ("There is no answer among these", COLORS, "D"),
        # refusals: wrong, unless they name the option that says so
        ("Cannot tell", ILLUSION, "C"),
        ("I cannot tell from this image.", ILLUSION, "C"),
        ("I cannot tell.", COLORS, None),
        ("I can't see any yellow here, sorry.", COLORS, None),
        ("I'm not sure", ILLUSION, None),
        # nothing chosen: alternatives, letters beyond the options, several texts, nothing
        ("A or B", COLORS, None),
        ("(A) and (C)", COLORS, None),
        ("A, C", COLORS, None),
        ("(E)", COLORS, None),
        ("The answer is F", COUNTS, None),
        ("2 or 3", COUNTS, None),
        ("Red and green", COLORS, None),
        ("", COLORS, None),
        ("   ", COLORS, None),
        ("The image shows a landscape.", COLORS, None),
    ],
)
def test_parser_reads_tricky_answers(response, choices, expected):
    parsed = parse_choice(response, choices)
    assert parsed.letter == expected, parsed.rule


def test_parser_says_why_nothing_was_chosen():
    assert parse_choice("(E)", COLORS).rule == "letter E is not one of the options A–D"
    assert parse_choice("A or B", COLORS).rule == "offers more than one letter"
    assert parse_choice("I cannot tell.", COLORS).rule == "refusal"
    assert parse_choice("Red and green", COLORS).rule == "names several options (A, B)"
    assert parse_choice("", COLORS).rule == "empty answer"


def test_robustness_instances_by_upstream_file_name_rule():
    assert robustness_instance("Robustness/12.jpg") == ("12", "seed")
    assert robustness_instance("Robustness/12_entire_90.jpg") == ("12", "entire_90")
    assert robustness_instance("a\\b\\7_target_180.png") == ("7", "target_180")


# ------------------------------------------------------------------ rescoring upstream's result files
def test_rescore_reproduces_accuracies_computed_by_hand():
    records, m = rescore_file(RESULTS)
    # the fixture's 40 questions, each answer chosen to exercise one rule (tests/fixtures/colorbench/results.json):
    # wrong are 2 "(B)" (A is right), 4 a refusal, 7 "25%" (10% is right), 9 "A or B", 11 "(E)" of four,
    # 17 empty, 19 "21" (12 is right), and 33 "Square" in the second robustness instance
    wrong = {"2", "4", "7", "9", "11", "17", "19", "33"}
    assert {r["id"] for r in records if not r["correct"]} == wrong
    assert {r["id"] for r in records if r["choice"] is None} == {"4", "9", "11", "17"}
    assert m["perception"]["value"] == pytest.approx(4 / 6)  # 0, 1, 3, 5 of 0–5
    assert m["reasoning"]["value"] == pytest.approx(9 / 14)  # 6–19 less 7, 9, 11, 17, 19
    assert m["overall"]["value"] == pytest.approx(13 / 20)
    assert m["overall"]["n"] == 20  # robustness questions are not in the overall accuracy
    by_task = {t: v["value"] for t, v in m["by_task"].items()}
    assert by_task == {
        "Color Recognition": 1.0,
        "Color Extraction": 0.5,
        "Object Recognition": 0.5,
        "Color Proportion": 0.5,
        "Color Comparison": 0.5,
        "Color Counting": 0.5,
        "Object Counting": 1.0,
        "Color Illusion": 1.0,
        "Color Mimicry": 0.5,
        "Color Blindness": 0.5,
        "Color Robustness": 19 / 20,
    }
    assert m["robustness"]["value"] == 0.5 and m["robustness"]["n"] == 2  # instance 20 robust, 30 not
    assert m["robust_instances"] == {"robust": 1, "instances": 2, "incomplete": 0, "incomplete_ids": []}
    assert m["unparsed"]["value"] == pytest.approx(4 / 40)
    assert m["chance"]["by_task/Color Recognition"] == pytest.approx((1 / 5 + 1 / 4) / 2)
    for est in (m["overall"], m["robustness"], *m["by_task"].values()):
        assert est["low"] <= est["value"] <= est["high"]


def test_result_file_holds_the_fixture_questions():
    saved = json.loads(RESULTS.read_text())
    assert [{k: v for k, v in row.items() if k != "model_ans"} for row in saved.values()] == colorbench_rows()


def test_rescore_reads_a_list_and_counts_a_missing_seed_as_not_robust(tmp_path):
    saved = json.loads(RESULTS.read_text())
    rows = [row for key, row in saved.items() if key != "20"]  # instance 20 without its seed image
    (tmp_path / "r.json").write_text(json.dumps(rows, indent=2))
    _, m = rescore_file(tmp_path / "r.json")
    assert m["robust_instances"] == {"robust": 0, "instances": 2, "incomplete": 1, "incomplete_ids": ["20"]}
    assert m["overall"]["value"] == pytest.approx(13 / 20)


def test_rescore_command(cli, tmp_path):
    code, out, err = cli("colorbench", "rescore", RESULTS, "--json", "--records", tmp_path / "recs.jsonl")
    assert code == 0, err
    m = json.loads(out)
    assert m["overall"]["value"] == pytest.approx(0.65) and m["robustness"]["value"] == 0.5
    recs = [json.loads(line) for line in (tmp_path / "recs.jsonl").read_text().splitlines()]
    assert len(recs) == 40 and recs[4]["parse_rule"] == "refusal" and recs[4]["correct"] is False
    code, out, err = cli("colorbench", "rescore", RESULTS)
    assert code == 0, err
    assert "Overall" in out and "65.0 % [" in out and "1 of 2 robustness instances robust" in out


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda rows: rows["3"].pop("model_ans"), r"results\.json:\d+: missing field\(s\) model_ans; every answered"),
        (
            lambda rows: rows["3"].update(model_ans=["A"]),
            r"results\.json:\d+: model_ans must be the model's answer text",
        ),
        (lambda rows: rows["3"].update(answer="(G)"), r"results\.json:\d+: answer '\(G\)' names none of the 4 options"),
        (lambda rows: rows["3"].update(type="Perceptual"), r"type must be Perception, Reasoning or Robustness"),
    ],
)
def test_rescore_refuses_bad_entries_naming_file_and_line(tmp_path, edit, message):
    rows = json.loads(RESULTS.read_text())
    edit(rows)
    bad = tmp_path / "results.json"
    bad.write_text(json.dumps(rows, indent=4))
    with pytest.raises(InputFileError, match=message) as err:
        rescore_file(bad)
    line = int(re.search(r"results\.json:(\d+):", str(err.value))[1])
    assert bad.read_text().splitlines()[line - 1].strip() == '"3": {'  # the line where entry "3" starts


def test_rescore_refuses_invalid_json_and_twice_given_keys(tmp_path):
    bad = tmp_path / "r.json"
    bad.write_text('{\n "0": {"type": "Perception"},\n "0": {}\n}')
    with pytest.raises(InputFileError, match=r"r\.json:3: key '0' given twice \(first on line 2\)"):
        rescore_file(bad)
    bad.write_text('{\n "0": {"type": "Perception",}\n}')
    with pytest.raises(InputFileError, match=r"r\.json:2: invalid JSON"):
        rescore_file(bad)


# ------------------------------------------------------------------ data
def test_folder_layout_loads_every_question(folder):
    qs = load_questions(folder)
    assert len(qs) == 40 and [q.id for q in qs] == [str(k) for k in range(40)]
    groups = [q.group for q in qs]
    assert groups.count("Perception") == 6 and groups.count("Reasoning") == 14 and groups.count("Robustness") == 20
    q = qs[0]
    assert q.prompt.startswith("What is the color of the square in this image? Select from the following choices. (A)")
    assert q.choices[q.answer] == "Red" and q.load_image().shape == (48, 48, 3)
    assert q.load_image()[24, 24].tolist() == [220, 30, 30]  # the red square
    seeds = [q for q in qs if q.variant == "seed"]
    assert [q.instance for q in seeds] == ["20", "30"]
    assert sum(q.instance == "20" for q in qs) == 10  # a seed and nine variants
    assert len(load_questions(folder / "all_data.json")) == 40  # the JSON file itself


def _entry_lines(path: Path) -> list[int]:
    return [k + 1 for k, line in enumerate(path.read_text().splitlines()) if line == " {"]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r.pop("answer"), r"missing field\(s\) answer; every question needs"),
        (
            lambda r: r.update(answer="(G)"),
            r"answer '\(G\)' names none of the 5 options; give the right option's letter",
        ),
        (lambda r: r.update(choices="Red"), r"choices must be a list of option texts"),
        (lambda r: r.update(choices=["Red"]), r"a question needs 2 to 26 choices"),
        (lambda r: r.update(filename="missing.png"), r"image 'missing.png' not found under"),
        (lambda r: r.update(filename="../outside.png"), r"escapes the data root"),
        (lambda r: r.update(idx=2), r"idx 2 given twice"),
        (lambda r: r.update(question="", prompt=""), r"question and prompt are both empty"),
    ],
)
def test_bad_questions_are_one_line_errors_naming_file_and_line(folder, tmp_path, edit, message):
    import shutil

    copy = Path(shutil.copytree(folder, tmp_path / "d"))
    rows = json.loads((copy / "all_data.json").read_text())
    edit(rows[0] if "given twice" not in message else rows[3])
    (copy / "all_data.json").write_text(json.dumps(rows, indent=1))
    line = _entry_lines(copy / "all_data.json")[3 if "given twice" in message else 0]
    with pytest.raises(InputFileError, match=message) as err:
        load_questions(copy)
    assert f"all_data.json:{line}: " in str(err.value) and "\n" not in str(err.value)


def test_missing_data_says_what_to_give(tmp_path):
    with pytest.raises(InputFileError, match="no such file or folder; give a folder with all_data.json"):
        load_questions(tmp_path / "nowhere")
    with pytest.raises(InputFileError, match="no all_data.json and no parquet files"):
        load_questions(tmp_path)


def test_hub_loader_reads_the_hub_layout_through_datasets(folder, tmp_path, monkeypatch):
    datasets = pytest.importorskip("datasets")
    from huebench.testing.colorbench import make_colorbench_hub

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "cache")
    hub = make_colorbench_hub(tmp_path / "hub")
    from_hub, from_json = load_questions(f"hf:{hub}"), load_questions(folder)
    assert [q.inputs() for q in from_hub] == [q.inputs() for q in from_json]
    assert all(np.array_equal(a.load_image(), b.load_image()) for a, b in zip(from_hub, from_json, strict=True))
    assert len(load_questions(hub)) == 40  # a plain folder holding a copy of the Hub dataset
    kw = {"no_cache": True, "progress": False}
    a = evaluate("colorbench", "reference:random", out=tmp_path / "a", data=f"hf:{hub}", **kw)
    b = evaluate("colorbench", "reference:random", out=tmp_path / "b", data=str(folder), **kw)
    assert a.records == b.records and a.metrics == b.metrics


def test_hub_loader_without_datasets_says_how_to_install(monkeypatch, tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "test-0.parquet").write_bytes(b"")
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(HuebenchError, match=r"needs the 'datasets' package: pip install datasets"):
        load_questions(f"hf:{tmp_path}")


# ------------------------------------------------------------------ runs
def test_run_with_random_model_records_scores_reports_and_rescores(folder, cli, tmp_path):
    out = tmp_path / "run"
    code, _, err = cli(
        "run", "colorbench", "-m", "random", "--data", folder, "--out", out, "--no-cache", "--no-progress"
    )
    assert code == 0, err
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(records) == 40 and all(r["status"] == "ok" for r in records)
    r = records[0]
    assert r["choices"] == ["Red", "Green", "Blue", "Yellow", "No answer"] and r["answer"] == "A"
    assert r["correct"] == (r["choice"] == "A") and r["reason"].startswith("answered ")
    results = json.loads((out / "results.json").read_text())
    m = results["metrics"]
    assert set(m["by_task"]) == {q["task"] for q in colorbench_rows()}
    assert m["overall"]["n"] == 20 and m["robustness"]["n"] == 2
    assert m["overall"]["value"] == pytest.approx(np.mean([x["correct"] for x in records[:20]]))
    code, _, err = cli("rescore", out, "--check")
    assert code == 0, err
    html = (out / "report.html").read_text()
    assert "ColorBench accuracy (95 % bootstrap intervals)" in html and "Accuracy per task" in html
    wrong = sum(not x["correct"] for x in records[:20])
    assert f"{wrong} of {wrong} wrong answers" in html
    cards = re.findall(r'<div class="card fail".*?</div>\n</div>', html, re.S)
    assert cards and all('<img src="data:image/png;base64,' in c for c in cards)


def test_run_takes_tasks_and_the_reasoning_prompt(folder, tmp_path):
    res = evaluate(
        "colorbench",
        "reference:random",
        out=tmp_path / "r",
        no_cache=True,
        progress=False,
        data=str(folder),
        tasks=["Color Counting", "Color Robustness"],
        reasoning=True,
    )
    assert len(res.records) == 22 and {r["task"] for r in res.records} == {"Color Counting", "Color Robustness"}
    assert res.metrics["perception"]["n"] == 0 and res.metrics["perception"]["value"] is None
    from huebench.benchmarks.colorbench.benchmark import ColorBench

    bench = ColorBench(data=str(folder), reasoning=True)
    assert bench.max_new_tokens == 1024 and "Think step by step" in bench.instruction


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"tasks": ["Color Countng"]},
            r"no task 'Color Countng' in .*; its tasks are Color Recognition, .*Did you mean 'Color Counting'",
        ),
        ({"recolor": "lab"}, r"recolor must be lch or hsv, got 'lab'"),
        ({"recolor": "lch", "hue_shifts": ["360"]}, r"a hue shift of 360 degrees leaves the image as it is"),
        ({"recolor": "lch", "hue_shifts": ["ninety"]}, r"hue_shifts must be numbers of degrees"),
        ({"max_new_tokens": 0}, r"max_new_tokens must be at least 1"),
    ],
)
def test_bad_options_are_refused(folder, tmp_path, options, message):
    with pytest.raises(HuebenchError, match=message):
        evaluate("colorbench", "reference:random", out=tmp_path / "r", no_cache=True, data=str(folder), **options)


def test_unknown_option_gets_a_did_you_mean(cli, folder):
    code, _, err = cli("run", "colorbench", "-m", "random", "--data", folder, "--taks", "Color Counting")
    assert code != 0 and "Did you mean 'tasks'" in err


def test_run_with_tiny_llava(folder, tiny, tmp_path):
    res = evaluate(
        "colorbench",
        f"hf:{tiny('llava')}",
        out=tmp_path / "r",
        no_cache=True,
        progress=False,
        data=str(folder),
        max_new_tokens=4,
        batch_size=8,
    )
    assert res.results["n"] == 40 and res.results["n_failed"] == 0
    assert all(isinstance(r["response"], str) and r["parse_rule"] for r in res.records)
    assert (tmp_path / "r" / "report.html").is_file()


def test_recolouring_by_the_run(folder, tmp_path):
    kw = {"no_cache": True, "progress": False, "data": str(folder), "hue_shifts": ["90", "180"]}
    lch = evaluate("colorbench", "reference:random", out=tmp_path / "lch", recolor="lch", **kw)
    hsv = evaluate("colorbench", "reference:random", out=tmp_path / "hsv", recolor="hsv", **kw)
    made = [r for r in lch.records if r.get("recolor")]
    assert len(lch.records) == 40 + 2 * 2 and len(made) == 4  # two seeds × two shifts
    assert {(r["question_id"], r["recolor"]["hue_shift"]) for r in made} == {
        ("20", 90),
        ("20", 180),
        ("30", 90),
        ("30", 180),
    }
    assert all(r["recolor"]["delta_e00_mean"] > 5 and r["id"].startswith(r["question_id"] + "~lch") for r in made)
    m = lch.metrics
    assert m["overall"]["n"] == 20 and m["robustness"]["n"] == 2  # the dataset's own metrics as without recolouring
    assert set(m["recolored"]["by_shift"]) == {"90", "180"} and m["recolored"]["methods"] == ["lch"]
    seeds = {r["instance"]: r["correct"] for r in lch.records if r["variant"] == "seed"}
    expected = [float(seeds[i] and all(r["correct"] for r in made if r["instance"] == i)) for i in ("20", "30")]
    assert m["recolored"]["robustness"]["value"] == pytest.approx(np.mean(expected))
    # HSV's hue turn changes lightness, the perceptual one keeps it (to 8-bit rounding)
    for shift in ("90", "180"):
        assert hsv.metrics["recolored"]["by_shift"][shift]["delta_l_mean"] > 2
        assert lch.metrics["recolored"]["by_shift"][shift]["delta_l_mean"] < 0.5
    html = (tmp_path / "lch" / "report.html").read_text()
    assert "Recoloured by the run (lch, whole image)" in html


# ------------------------------------------------------------------ the api: backend
class _Chat(BaseHTTPRequestHandler):
    bodies: list[dict] = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Chat.bodies.append(body)
        data = json.dumps({"choices": [{"message": {"content": "The answer is (B)."}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def test_run_through_the_api_backend(folder, tmp_path, monkeypatch):
    _Chat.bodies = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Chat)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    monkeypatch.setenv("HUEBENCH_API_BASE", f"http://127.0.0.1:{srv.server_address[1]}/v1")
    monkeypatch.setenv("HUEBENCH_API_KEY", "test-key")
    try:
        res = evaluate(
            "colorbench", "api:some-vlm", out=tmp_path / "r", no_cache=True, progress=False, data=str(folder)
        )
    finally:
        srv.shutdown()
        srv.server_close()
    assert len(_Chat.bodies) == 40
    sent = [body["messages"][0]["content"] for body in _Chat.bodies]  # in the order the threads sent them
    assert all(p[0]["image_url"]["url"].startswith("data:image/png;base64,") for p in sent)
    assert all(p[1]["text"].startswith("You'll be given an image, an instruction and some options.") for p in sent)
    first = "What is the color of the square in this image? Select from the following choices. (A) Red (B) Green"
    assert sum(p[1]["text"].endswith(f"\n{first} (C) Blue (D) Yellow (E) No answer") for p in sent) == 1
    assert all(body["max_tokens"] == 32 and body["temperature"] == 0 for body in _Chat.bodies)
    rows = colorbench_rows()
    assert res.metrics["overall"]["value"] == pytest.approx(np.mean([r["answer"] == "(B)" for r in rows[:20]]))


# ------------------------------------------------------------------ the docs' examples are the formats read
DOC = Path(__file__).resolve().parents[1] / "docs" / "colorbench.md"


def _json_block(heading: str):
    text = DOC.read_text()
    section = text[text.index(heading) :]
    return json.loads(section[section.index("```json") + 7 : section.index("```", section.index("```json") + 7)])


def _quoted(message: str) -> str:
    """The part of a one-line error after its 'file:line: ' (the docs quote it with another file)."""
    return message.split(": ", 1)[1]


def test_docs_data_example_loads_and_its_quoted_error_is_real(tmp_path):
    from PIL import Image

    rows = _json_block("## The data")
    for row in rows:
        (tmp_path / row["filename"]).parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (8, 8), (200, 180, 40)).save(tmp_path / row["filename"])
    (tmp_path / "all_data.json").write_text(json.dumps(rows, indent=1))
    banana, bus = load_questions(tmp_path)
    assert banana.choices[banana.answer] == "No answer" and banana.prompt == rows[0]["prompt"]
    assert (bus.instance, bus.variant) == ("12", "seed")
    assert bus.prompt == "How many buses are in the image? Select from the following choices. (A) 2 (B) 1 (C) 3 (D) 0"
    rows[0]["answer"] = "(G)"
    (tmp_path / "all_data.json").write_text(json.dumps(rows, indent=1))
    with pytest.raises(InputFileError) as err:
        load_questions(tmp_path)
    assert _quoted(str(err.value)) in " ".join(DOC.read_text().split())


def test_docs_result_file_example_rescores_and_its_quoted_error_is_real(tmp_path):
    saved = _json_block("## Upstream's result files")
    (tmp_path / "gpt4o.json").write_text(json.dumps(saved, indent=4))
    records, m = rescore_file(tmp_path / "gpt4o.json")
    assert [r["correct"] for r in records] == [True, True]
    assert m["overall"]["value"] == 1.0 and m["robustness"]["value"] == 1.0
    assert m["robust_instances"]["incomplete"] == 1  # the example's instance has no variants
    del saved["1"]["model_ans"]
    (tmp_path / "gpt4o.json").write_text(json.dumps(saved, indent=4))
    with pytest.raises(InputFileError) as err:
        rescore_file(tmp_path / "gpt4o.json")
    assert _quoted(str(err.value)) in " ".join(DOC.read_text().split())
