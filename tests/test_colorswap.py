"""ColorSwap: scoring, answer parsing, rescoring (incl. the authors' logs), data, runs, fine-tuning."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from huebench.benchmarks.colorswap.benchmark import ColorSwap
from huebench.benchmarks.colorswap.data import load_examples
from huebench.benchmarks.colorswap.logs import convert_logs
from huebench.benchmarks.colorswap.scoring import (
    parse_answer,
    score_matrix_outcome,
    score_vlm_records,
    summarize_matrices,
)
from huebench.cli import app
from huebench.io import InputFileError
from huebench.runs.runner import evaluate
from huebench.testing.data import make_colorswap_dataset

CAPS = ["a red cat with a grey jacket", "a grey cat with a red jacket"]


def test_matrix_scores_and_strict_ties():
    assert score_matrix_outcome([[0.9, 0.1], [0.2, 0.8]]) == {
        "text": True,
        "image": True,
        "group": True,
        "tie_text": False,
        "tie_image": False,
    }
    o = score_matrix_outcome([[0.9, 0.95], [0.2, 0.99]])  # captions right per image, images wrong for caption 1
    assert o["text"] and not o["image"] and not o["group"]
    tie = score_matrix_outcome([[0.5, 0.5], [0.5, 0.5]])
    assert not tie["text"] and not tie["image"] and tie["tie_text"] and tie["tie_image"]
    s = summarize_matrices([tie, score_matrix_outcome([[1, 0], [0, 1]])])
    assert s["text"]["value"] == 50.0 and s["ties"] == {"text": 1, "image": 1}


def test_chance_levels_by_simulation():
    rng = np.random.default_rng(0)
    outcomes = [score_matrix_outcome(rng.random((2, 2))) for _ in range(60000)]
    s = summarize_matrices(outcomes, n_resamples=50)
    assert s["text"]["value"] == pytest.approx(25.0, abs=0.6)
    assert s["image"]["value"] == pytest.approx(25.0, abs=0.6)
    assert s["group"]["value"] == pytest.approx(100 / 6, abs=0.6)
    recs = []
    for ex in range(20000):
        for q in ("text", "image"):
            for subj in (0, 1):
                correct = int(rng.integers(2))
                answer = (
                    ["(A)", "(B)"][int(rng.integers(2))]
                    if q == "text"
                    else ["the first", "the second"][int(rng.integers(2))]
                )
                recs.append(
                    {
                        "example_id": ex,
                        "query": q,
                        "subject": subj,
                        "options": ["x", "y"],
                        "correct": correct,
                        "response": answer,
                    }
                )
    v = score_vlm_records(recs, n_resamples=50)
    assert v["text"] == pytest.approx(25.0, abs=0.8) and v["image"] == pytest.approx(25.0, abs=0.8)
    assert v["group"] == pytest.approx(6.25, abs=0.5) and v["unparseable"] == 0


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("(A)", 0),
        ("B)", 1),
        ("a", 0),
        ("B.", 1),
        ("A: the first caption", 0),
        ("Answer: B", 1),
        ("The answer is (B).", 1),
        ("B) a grey cat with a red jacket", 1),
        ("(A) A red cat with a grey jacket.", 0),
        ("The image presents a grey cat with a red jacket.", 1),  # a restated caption
        ("It shows a red cat, with a grey jacket on.", 0),  # every caption word, in order
        ("(A) or (B)", None),
        ("Both A) and B) fit", None),
        ("I cannot tell.", None),
        ("", None),
        ("The image presents a grey cat with a grey jacket.", None),  # neither caption
    ],
)
def test_parse_text_answers(response, expected):
    assert parse_answer(response, CAPS, "text") == expected


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("The first image", 0),
        ("second", 1),
        ("The 2nd one.", 1),
        ("Image 2 better aligns.", 1),
        ("the left image", 0),
        ("The second image better aligns with the description. In the first image, the cat is red.", 1),
        ("The first and second images both fit.", None),
        ("first or second, hard to say", None),
        ("Neither image aligns with the description.", None),
        ("(B)", 1),
    ],
)
def test_parse_image_answers(response, expected):
    assert parse_answer(response, ["img_1", "img_2"], "image") == expected


def test_incomplete_examples_are_an_error():
    with pytest.raises(ValueError, match="lack some of the 4 queries"):
        score_vlm_records(
            [{"example_id": 1, "query": "text", "subject": 0, "options": CAPS, "correct": 0, "response": "A"}]
        )


def test_authors_logs_reproduce_table_2_vlm_rows(shared_data, tmp_path):
    published = {"gpt4v": (91.33, 76.33, 72.00), "llava": (69.67, 54.33, 42.00), "llavar": (27.67, 25.67, 8.33)}
    runner = CliRunner()
    for model, (t, i, g) in published.items():
        out = tmp_path / f"{model}.jsonl"
        r = runner.invoke(
            app,
            [
                "colorswap",
                "convert-logs",
                str(shared_data / "colorswap" / f"text-{model}-colorswap.json"),
                str(shared_data / "colorswap" / f"image-{model}-colorswap.json"),
                "--out",
                str(out),
            ],
        )
        assert r.exit_code == 0, r.output
        assert len(out.read_text().splitlines()) == 1200
        res = json.loads(runner.invoke(app, ["colorswap", "rescore", str(out), "--json"]).output)
        assert res["n"] == 300
        assert abs(res["text"] - t) <= 1.0 and abs(res["image"] - i) <= 1.0 and abs(res["group"] - g) <= 1.0, (
            model,
            res,
        )
    gpt = score_vlm_records(
        convert_logs(
            shared_data / "colorswap" / "text-gpt4v-colorswap.json",
            shared_data / "colorswap" / "image-gpt4v-colorswap.json",
        )
    )
    assert (round(gpt["text"], 2), round(gpt["image"], 2), round(gpt["group"], 2)) == (91.33, 76.33, 72.00)
    # Appendix G's intervals for GPT-4V: text [87.67, 94.33], image [71.33, 81.00], group [66.67, 77.00]
    assert gpt["ci"]["text"][0] == pytest.approx(87.67, abs=1.0) and gpt["ci"]["group"][1] == pytest.approx(
        77.0, abs=1.0
    )


def test_bootstrap_is_seeded():
    recs = [
        {
            "example_id": e,
            "query": q,
            "subject": s,
            "options": ["x", "y"],
            "correct": 0,
            "response": "(A)" if (e + s) % 3 else "(B)",
        }
        for e in range(50)
        for q in ("text", "image")
        for s in (0, 1)
    ]
    for r in recs:
        if r["query"] == "image":
            r["response"] = "first" if (r["example_id"] + r["subject"]) % 3 else "second"
    a, b, c = score_vlm_records(recs, seed=1), score_vlm_records(recs, seed=1), score_vlm_records(recs, seed=2)
    assert a["ci"] == b["ci"] and a["ci"] != c["ci"]
    assert a["ci"]["text"][0] <= a["text"] <= a["ci"]["text"][1]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return make_colorswap_dataset(tmp_path_factory.mktemp("cs"))


def test_loader_and_its_errors(dataset, tmp_path):
    test = load_examples(dataset, split="test")
    assert (
        len(test) == 6
        and len(load_examples(dataset, split="train")) == 8
        and len(load_examples(dataset, split=None)) == 14
    )
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "examples.jsonl").write_text(
        '{"id": 1, "caption_1": "a", "caption_2": "b", "image_1": "../x.png", "image_2": "y.png"}\n'
    )
    with pytest.raises(InputFileError, match=r"examples.jsonl:1: image_1 '\.\./x\.png' escapes the data root"):
        load_examples(bad)
    (bad / "examples.jsonl").write_text(
        '{"id": 1, "caption_1": "a", "caption_2": "b", "image_1": "x.png", "image_2": "y.png"}\n'
    )
    with pytest.raises(InputFileError, match=r"examples.jsonl:1: image_1 'x.png' not found"):
        load_examples(bad)
    (bad / "examples.jsonl").write_text('{"id": 1, "caption_1": "a", "image_1": "x.png", "image_2": "y.png"}\n')
    with pytest.raises(InputFileError, match=r"examples.jsonl:1: missing field\(s\) caption_2"):
        load_examples(bad)
    with pytest.raises(InputFileError, match="no such file or folder"):
        load_examples(tmp_path / "missing")


def test_vlm_option_order_is_seeded_recorded_and_balanced(dataset):
    b = ColorSwap(data=str(dataset), split=None)
    orders = [tuple(q["order"]) for e in b.examples().values() for q in b._queries(e)]
    assert {(0, 1), (1, 0)} <= set(orders)
    again = ColorSwap(data=str(dataset), split=None)
    assert orders == [tuple(q["order"]) for e in again.examples().values() for q in again._queries(e)]
    other = ColorSwap(data=str(dataset), split=None, seed=3)
    assert orders != [tuple(q["order"]) for e in other.examples().values() for q in other._queries(e)]
    for e in b.examples().values():
        for q in b._queries(e):
            assert q["order"][q["correct"]] == q["subject"]


@pytest.mark.parametrize(
    ("family", "head", "kind"),
    [
        ("clip", "auto", "contrastive"),
        ("siglip", "auto", "contrastive"),
        ("blip", "auto", "itm"),
        ("blip", "contrastive", "contrastive"),
        ("flava", "itm", "itm"),
        ("llava", "auto", "vlm"),
    ],
)
def test_runs_end_to_end_with_tiny_models(dataset, tiny, tmp_path, family, head, kind):
    res = evaluate(
        "colorswap",
        f"hf:{tiny(family)}",
        out=tmp_path / "r",
        no_cache=True,
        progress=False,
        data=str(dataset),
        head=head,
    )
    assert res.results["n"] == 6 and res.results["n_failed"] == 0
    m = res.metrics
    for k in ("text", "image", "group"):
        assert m[k]["low"] <= m[k]["value"] <= m[k]["high"]
    rec = res.records[0]
    if kind == "vlm":
        assert len(rec["queries"]) == 4 and all(
            {"options", "correct", "response", "prompt"} <= set(q) for q in rec["queries"]
        )
        assert "unparseable_percent" in m
        assert "Does this image present (A)" in rec["queries"][0]["prompt"]
    else:
        assert rec["head"] == kind and np.asarray(rec["scores"]).shape == (2, 2)
    html = (tmp_path / "r" / "report.html").read_text()
    assert "ColorSwap scores" in html and "random chance" in html


def test_random_pairs_control(dataset, tmp_path):
    res = evaluate(
        "colorswap",
        "reference:random",
        out=tmp_path / "r",
        no_cache=True,
        progress=False,
        data=str(dataset),
        control="random-pairs",
    )
    ids = [r["id"] for r in res.records]
    assert len(ids) == 6 and all("+" in i and i.split("+")[0] != i.split("+")[1] for i in ids)


def test_finetune_clip_and_blip(dataset, tiny, tmp_path):
    from huebench.benchmarks.colorswap.finetune import FinetuneConfig, finetune

    for family in ("clip", "blip"):
        out = tmp_path / family
        s = finetune(
            FinetuneConfig(
                model=f"hf:{tiny(family)}", data=str(dataset), out=str(out), epochs=8, lr=1e-3, batch_size=4
            ),
            progress=False,
        )
        assert s["losses"][-1] < s["losses"][0]
        assert (out / "model" / "model.safetensors").exists() and len(
            (out / "train_log.jsonl").read_text().splitlines()
        ) == 8
        assert set(s["evaluations"]) == ({"test/contrastive"} if family == "clip" else {"test/itm", "test/contrastive"})
        before = evaluate(
            "colorswap",
            f"hf:{tiny(family)}",
            out=tmp_path / f"{family}-before",
            no_cache=True,
            progress=False,
            data=str(dataset),
            head="contrastive",
        )
        after = json.loads((out / "eval-test-contrastive" / "records.jsonl").read_text().splitlines()[0])
        assert not np.allclose(before.records[0]["scores"], after["scores"])


def test_finetune_defaults_are_appendix_d():
    from huebench.benchmarks.colorswap.finetune import DEFAULTS

    assert DEFAULTS["clip"] == {"epochs": 100, "lr": 2e-5, "weight_decay": 0.1, "batch_size": 64}
    assert DEFAULTS["blip"] == {"epochs": 100, "lr": 1e-5, "weight_decay": 0.05, "batch_size": 32}


def test_cli_run_colorswap(dataset, tmp_path):
    r = CliRunner().invoke(
        app,
        [
            "run",
            "colorswap",
            "-m",
            "random",
            "--out",
            str(tmp_path / "r"),
            "--no-cache",
            "--no-progress",
            "-o",
            f"data={dataset}",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["metrics"]["kind"] == "matching"
    r = CliRunner().invoke(
        app, ["run", "colorswap", "-m", "random", "--out", str(tmp_path / "x"), "--no-cache", "--no-progress"]
    )
    assert r.exit_code != 0 and "colorswap needs its data" in str(r.exception)


def test_report_pictures_the_wrong_pairs_side_by_side(dataset, tmp_path):
    res = evaluate(
        "colorswap", "reference:random:1", out=tmp_path / "r", no_cache=True, progress=False, data=str(dataset)
    )
    wrong = [r for r in res.records if r["group"] is False]
    assert wrong  # a random scorer gets some pairs wrong
    html = (tmp_path / "r" / "report.html").read_text()
    assert "Pairs the model got wrong" in html
    assert html.count('<div class="card fail"') == len(wrong) and '<div class="card pass"' not in html
    first = html[html.index('<div class="card fail"') :]
    first = first[: first.index('<div class="title">')]
    assert first.count('<img src="data:image/png;base64,') == 2  # both images of the pair
    assert f"caption 1: {wrong[0]['caption_1']}" in html and f"caption 2: {wrong[0]['caption_2']}" in html
