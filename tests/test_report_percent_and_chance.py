"""Reports and summaries: colornames' patches as swatches, the chance level on compared accuracy charts,
and every accuracy read as a percentage with one decimal (results.json keeps its own scale)."""

import json
import re

import pytest

from huebench.benchmarks.colornames import GALLERY_PATCHES
from huebench.color import load_system, parse
from huebench.report.html import PROPORTIONS, _flatten_scalars, proportion_scale
from huebench.runs.runner import evaluate, load_run
from huebench.testing.data import make_colorswap_dataset


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("runs")
    kw = {"no_cache": True, "progress": False}
    return {
        "cn1": evaluate("colornames", "reference:random:1", out=tmp / "cn1", **kw),
        "cn2": evaluate("colornames", "reference:random:2", out=tmp / "cn2", **kw),
        "cs": evaluate(
            "colorswap", "reference:random:1", out=tmp / "cs", data=str(make_colorswap_dataset(tmp / "d")), **kw
        ),
    }


def _section(html: str, title: str) -> str:
    start = html.index(f"<h2>{title}</h2>")
    end = html.find("<h2>", start + 1)
    return html[start : end if end != -1 else len(html)]


def test_colornames_report_shows_each_patch_as_swatches_of_true_and_predicted_name_failures_first(runs):
    res = runs["cn1"]
    html = (res.run_dir / "report.html").read_text()
    gallery = _section(html, "Patches: true and predicted name")
    cards = re.findall(r'<div class="card (fail|pass)".*?data-title="([^"]+)"(.*?)</div>\n</div>', gallery, re.S)
    by_id = {r["id"]: r for r in res.records}
    assert len(cards) == min(len(res.records), GALLERY_PATCHES) == 33
    statuses = [c[0] for c in cards]
    assert statuses == sorted(statuses) and statuses.count("fail") == sum(not r["correct"] for r in res.records)
    basic = load_system("basic")
    for status, title, body in cards:
        r = by_id[title]
        swatches = re.findall(r'title="([^"]+) (#[0-9A-F]{6})"', body)
        assert swatches == [
            ("patch", parse(tuple(r["rgb"])).hex),
            (f"true: {r['color']}", basic.get(r["color"]).hex),
            (f"predicted: {r['prediction']}", basic.get(r["prediction"]).hex),
        ]
        assert status == ("pass" if r["correct"] else "fail")
    # accuracies as percentages, the chance line labelled on the per-colour chart
    acc = res.metrics["accuracy"]
    assert (
        f'<td class="short">{100 * acc["value"]:.1f} % [{100 * acc["low"]:.1f}, {100 * acc["high"]:.1f}]</td>' in html
    )
    assert "chance 9.1 %</text>" in _section(html, "Per-colour accuracy")


def test_compared_accuracy_charts_draw_and_label_chance_and_read_as_percentages(runs, cli, tmp_path):
    out = tmp_path / "compare.html"
    code, stdout, err = cli("report", *(runs[k].run_dir for k in ("cn1", "cn2", "cs")), "--out", out)
    assert code == 0, err
    html = out.read_text()
    accuracy = _section(html, "accuracy")  # both colornames runs: chance 1/11, one line across
    assert 'class="reference"' in accuracy and ">chance 9.1 %</text>" in accuracy and "accuracy (%)" in accuracy
    for key in ("text", "image"):  # ColorSwap's own chance per score, in its own scale (percent)
        assert ">chance 25.0 %</text>" in _section(html, key)
    for r in ("cn1", "cn2"):
        acc = runs[r].metrics["accuracy"]
        assert (
            f'<td class="short">{100 * acc["value"]:.1f} % [{100 * acc["low"]:.1f}, {100 * acc["high"]:.1f}]</td>'
            in html
        )
    text = runs["cs"].metrics["text"]
    assert f'<td class="short">{text["value"]:.1f} % [{text["low"]:.1f}, {text["high"]:.1f}]</td>' in html


def test_runs_of_other_chance_levels_get_each_its_own_mark(runs, tmp_path):
    from huebench.report.html import write_multi_report
    from huebench.testing.data import make_gencolor_images

    opts = make_gencolor_images(tmp_path / "g")
    gen = evaluate("gencolorbench", "none", out=tmp_path / "gen", no_cache=True, progress=False, n=2, **opts)
    out = write_multi_report([load_run(runs["cn1"].run_dir), load_run(gen.run_dir)], tmp_path / "r.html")
    accuracy = _section(out.read_text(), "accuracy")  # colornames has chance 1/11, GenColorBench none
    assert accuracy.count('class="reference"') == 1 and ">dashed: chance</text>" in accuracy
    assert "<title>cn1: chance 9.09</title>" in accuracy and "dashed: each run&#39;s own chance" in accuracy
    gen_acc = gen.metrics["accuracy"]  # stored as a percentage: shown as it is
    assert (
        f'<td class="short">{gen_acc["value"]:.1f} % [{gen_acc["low"]:.1f}, {gen_acc["high"]:.1f}]</td>'
        in out.read_text()
    )


def test_summaries_show_accuracies_as_percentages_with_one_decimal(runs, cli):
    for key in ("cn1", "cs"):
        res = runs[key]
        stored = json.loads((res.run_dir / "results.json").read_text())["metrics"]
        code, stdout, _ = cli("rescore", res.run_dir)
        assert code == 0
        for name, v in stored.items():
            if isinstance(v, dict) and "low" in v:
                scale = 100 / proportion_scale(res.results["benchmark"], name)
                assert (
                    f"  {name}: {scale * v['value']:.1f} %  95% CI [{scale * v['low']:.1f}, {scale * v['high']:.1f}]"
                    in stdout
                )
    assert runs["cn1"].metrics["accuracy"]["value"] <= 1  # results.json keeps colornames' fractions


def test_every_proportion_pattern_names_metrics_a_run_has(runs):
    for res in runs.values():
        bench = res.results["benchmark"]
        flat = _flatten_scalars(res.results["metrics"])
        named = {k for k in flat if proportion_scale(bench, k) is not None}
        top = {p for p in PROPORTIONS[bench] if "/" not in p and p != "unparseable_percent"}  # VLM runs only
        assert top <= named, (bench, top - named)
