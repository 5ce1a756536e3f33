"""Rainbow: probe-building rules, source loaders, evaluation with tiny models, language-only baseline."""

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from huebench.benchmarks.rainbow.probes import Caption, ProbeBuilder, apply_case
from huebench.benchmarks.rainbow.sources import load_captions, load_source
from huebench.cli import app
from huebench.io import InputFileError
from huebench.runs.runner import evaluate, rescore
from huebench.testing.data import make_rainbow_captions
from huebench.testing.reference import naive_pll

pytest.importorskip("spacy")


@pytest.fixture(scope="module")
def builder():
    return ProbeBuilder()


def _build(builder, *texts, source="t"):
    b = ProbeBuilder(builder.nlp)
    caps = [Caption(str(k), f"{k}.png", t, source) for k, t in enumerate(texts)]
    reps, swaps = b.build(caps)
    return reps, swaps, b.stats_json(reps, swaps, caps)


def test_each_mention_yields_ten_replacements_in_basic_term_order(builder):
    reps, swaps, _ = _build(builder, "A red car.")
    assert [p["foil_color"] for p in reps] == [
        "white",
        "yellow",
        "orange",
        "pink",
        "purple",
        "blue",
        "green",
        "brown",
        "gray",
        "black",
    ]
    assert [p["foil"] for p in reps][:3] == ["A white car.", "A yellow car.", "An orange car."]  # article adapted
    assert all(p["text"] == "A red car." and p["original_color"] == "red" and p["kind"] == "replacement" for p in reps)
    assert {p["relation"] for p in reps if p["foil_color"] in ("orange", "pink")} == {"adjacent"}
    assert next(p for p in reps if p["foil_color"] == "green")["relation"] == "complementary"
    assert swaps == []
    assert len({p["id"] for p in reps}) == 10


def test_capitalisation_is_kept(builder):
    reps, _, _ = _build(builder, "RED car and Blue sky.")
    foils = {p["foil"] for p in reps}
    assert "GREEN car and Blue sky." in foils and "RED car and Green sky." in foils
    assert (
        apply_case("Grey", "gray") == "Gray"
        and apply_case("GREY", "gray") == "GRAY"
        and apply_case("x", "red") == "red"
    )


def test_grey_is_normalised_and_never_a_foil_of_gray(builder):
    reps, _, stats = _build(builder, "A Grey cat on a mat.")
    assert reps[0]["text"] == "A Gray cat on a mat."
    assert all("grey" not in p["foil"].lower() for p in reps) and len(reps) == 10
    assert stats["mentions_per_color"]["gray"] == {"t": 1}


def test_articles_fixed_in_originals_and_adapted_in_foils(builder):
    reps, _, stats = _build(builder, "A man in a orange vest.", "An red apple.")
    assert reps[0]["text"] == "A man in an orange vest."
    assert (
        next(p for p in reps if p["text"].startswith("A man") and p["foil_color"] == "blue")["foil"]
        == "A man in a blue vest."
    )
    assert (
        next(p for p in reps if p["text"] == "A red apple." and p["foil_color"] == "orange")["foil"]
        == "An orange apple."
    )
    assert stats["article_fixes"] == 2


def test_orange_the_fruit_is_not_a_colour(builder):
    reps, _, stats = _build(builder, "A boy eats an orange.", "A woman dressed in orange.", "An orange shirt.")
    texts = {p["text"] for p in reps}
    assert "A boy eats an orange." not in texts
    assert {"A woman dressed in orange.", "An orange shirt."} <= texts
    assert stats["fruit_oranges"] == 1


def test_two_colour_objects_are_excluded(builder):
    reps, _, stats = _build(
        builder,
        "A green and white shirt.",
        "A black-and-white photo.",
        "A blue-green lake.",
        "A red white flag.",
        "A red shirt and white shoes.",
    )
    assert {p["caption_id"] for p in reps} == {"4"}
    assert stats["two_color_excluded"] == 4


def test_word_boundaries(builder):
    reps, _, stats = _build(builder, "A whiteboard in Greenland near a redwood.", "A Bluetooth speaker.")
    assert reps == [] and stats["captions_without_color"] == 2


def test_swaps_need_exactly_two_different_colours(builder):
    reps, swaps, stats = _build(
        builder,
        "A red jacket and black pants.",
        "A black dog and a black cat.",
        "A red car, a blue bike and a green bus.",
        "A red cup and an orange plate.",
    )
    assert [s["caption_id"] for s in swaps] == ["0", "3"]
    assert swaps[0]["foil"] == "A black jacket and red pants." and swaps[0]["relation"] == "other"
    assert swaps[1]["foil"] == "An orange cup and a red plate."  # articles follow the colours
    assert len([p for p in reps if p["caption_id"] == "2"]) == 30  # three mentions × 10, but no swap
    assert stats["swaps_per_pair"] == {"red-black": {"t": 1}, "orange-red": {"t": 1}}
    assert stats["per_source"]["t"]["swaps"] == 2 and stats["per_source"]["t"]["mentions"] == 2 + 2 + 3 + 2


def test_output_is_deterministic(builder):
    a = _build(builder, "A red car.", "A blue sky and a white cloud.")
    b = _build(builder, "A red car.", "A blue sky and a white cloud.")
    assert a == b


def test_generic_and_source_loaders(tmp_path):
    (tmp_path / "c.csv").write_text('id,image,caption,source\n1,a.png,"A red car.",x\n')
    assert load_captions(tmp_path / "c.csv") == [Caption("1", "a.png", "A red car.", "x")]
    (tmp_path / "c.jsonl").write_text('{"id": 1, "image": "a.png"}\n')
    with pytest.raises(InputFileError, match=r"c.jsonl:1: missing field\(s\) caption"):
        load_captions(tmp_path / "c.jsonl")
    karpathy = {
        "images": [
            {"split": "test", "filename": "1.jpg", "imgid": 7, "sentences": [{"raw": "A red car."}, {"raw": "A car."}]},
            {"split": "train", "filename": "2.jpg", "sentences": [{"raw": "x"}]},
        ]
    }
    (tmp_path / "f.json").write_text(json.dumps(karpathy))
    caps = load_source("flickr30k", tmp_path / "f.json")
    assert (
        [c.caption for c in caps] == ["A red car.", "A car."]
        and caps[0].image == "1.jpg"
        and caps[0].source == "flickr30k"
    )
    (tmp_path / "v.json").write_text(
        json.dumps([["img/1.jpg", {"POS": ["red hydrant", "a red hydrant on the street"], "NEG": ["blue hydrant"]}]])
    )
    assert [c.source for c in load_source("vl-checklist", tmp_path / "v.json")] == ["checklist-short", "checklist-long"]
    (tmp_path / "e.json").write_text(
        json.dumps(
            [
                {
                    "image0": "a.png",
                    "caption0": "a red ball",
                    "image1": "b.png",
                    "caption1": "a blue ball is not in the scene",
                }
            ]
        )
    )
    assert [c.caption for c in load_source("eqben", tmp_path / "e.json")] == ["a red ball"]
    (tmp_path / "a.json").write_text(
        json.dumps([{"image_path": "x.jpg", "true_caption": "the white horse", "false_caption": "the horse white"}])
    )
    assert load_source("aro", tmp_path / "a.json")[0].caption == "the white horse"
    with pytest.raises(
        InputFileError, match="is not an object with an 'images' list; `rainbow import coco` reads Karpathy"
    ):
        load_source("coco", tmp_path / "a.json")
    with pytest.raises(InputFileError, match="file not found"):
        load_source("aro", tmp_path / "missing.json")


def test_source_files_that_are_not_the_sources_are_refused_in_one_line(tmp_path):
    from huebench.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match=r"unknown source 'flickr'; known: .* Did you mean 'flickr30k'\?"):
        load_source("flickr", tmp_path / "missing.json")  # the name first, before the file is looked for
    cases = {  # a malformed item of each source: what is wrong, where, and the file expected
        "flickr30k": (
            {"images": [{"split": "test", "filename": "1.jpg", "sentences": [{"text": "x"}]}]},
            r"images\[0\]\.sentences\[0\] has no 'raw' text",
        ),
        "aro": (["the white horse"], "item 0 lacks true_caption or image_path"),
        "vl-checklist": ([["1.jpg", {"POS": "red car"}]], r'item 0 is not \[image, \{"POS": \[captions\]'),
        "eqben": ([{"image": "1.png", "caption": None}], "item 0 lacks image/caption"),
    }
    for source, (data, match) in cases.items():
        path = tmp_path / f"{source}.json"
        path.write_text(json.dumps(data))
        with pytest.raises(
            InputFileError, match=rf"^{re.escape(str(path))}: {match}.*; `rainbow import {source}` reads"
        ) as exc:
            load_source(source, path)
        assert "docs/rainbow.md, The source files" in str(exc.value) and "\n" not in str(exc.value)


@pytest.fixture(scope="module")
def probe_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("rainbow")
    make_rainbow_captions(d)
    r = CliRunner().invoke(app, ["rainbow", "build", "--captions", str(d / "caps.jsonl"), "--out", str(d / "probes")])
    assert r.exit_code == 0, r.output
    stats = json.loads((d / "probes" / "stats.json").read_text())
    assert stats["replacements"] == 50 and stats["swaps"] == 2
    (d / "rgb.csv").write_text("caption_id,mention_index,hex\nc1,0,#C81E1E\nc2,0,#DCC828\nc3,0,#28B428\n")
    return d


@pytest.mark.parametrize(("family", "ranking"), [("blip", False), ("flava", False), ("llava", False), ("clip", True)])
def test_evaluation_end_to_end_with_tiny_models(probe_dir, tiny, tmp_path, family, ranking):
    res = evaluate(
        "rainbow",
        f"hf:{tiny(family)}",
        out=tmp_path / "r",
        no_cache=True,
        progress=False,
        probes=str(probe_dir / "probes"),
        images=str(probe_dir),
        rgb=str(probe_dir / "rgb.csv"),
    )
    m = res.metrics
    assert res.results["n"] == 3 and res.results["n_failed"] == 0
    assert (
        m["naive_passes"] == 2 * 52 and m["forward_passes"] == 3 + 50 + 2
    )  # originals shared by their probes; each foil once
    assert m["forward_passes"] / m["naive_passes"] <= 0.55
    assert m["metric"].startswith("ranking" if ranking else "pair-wise")
    rep = m["replacement"]["all"]
    if not ranking:
        probes = [p for r in res.records for p in r["probes"] if p["kind"] == "replacement"]
        assert rep["pairwise_accuracy"] == pytest.approx(
            np.mean([p["match_accepted"] and p["foil_rejected"] for p in probes])
        )
        assert set(rep) >= {"accuracy", "precision", "recall"}
        assert "rgb_hues" in m
    assert len(rep["by_pair"]["matrix"]) == 11 and rep["by_pair"]["counts"][3][0] == 1  # red → white once (c1)
    html = (tmp_path / "r" / "report.html").read_text()
    assert "Table 3 shape" in html and "Table 4 shape" in html and 'class="heatmap"' in html
    assert html.count('class="swatch"') >= 22  # the colour pairs' heatmap has the colours on both axes
    wrong = [r for r in res.records if any(not p.get("ranking_correct", p.get("pair_correct")) for p in r["probes"])]
    assert wrong  # random tiny models get probes wrong
    assert html.count('<div class="card fail"') == len(wrong)  # each caption with a wrong probe, pictured
    assert html.count('<img src="data:image/png;base64,') == len(wrong) and f"caption: {wrong[0]['text']}" in html
    assert rescore(tmp_path / "r", write=False) == res.results


def test_vlm_parse_mode_stores_raw_answers(probe_dir, tiny, tmp_path):
    res = evaluate(
        "rainbow",
        f"hf:{tiny('llava')}",
        out=tmp_path / "r",
        no_cache=True,
        progress=False,
        probes=str(probe_dir / "probes"),
        images=str(probe_dir),
        vlm="parse",
        limit=1,
    )
    assert "raw_answers" in res.records[0] and len(res.records[0]["raw_answers"]) == res.records[0]["forward_passes"]


def test_language_only_baseline_matches_naive_pll(probe_dir, load_tiny, tmp_path):
    res = evaluate(
        "rainbow-baseline",
        f"hf:{load_tiny('bert').ident}",
        out=tmp_path / "b",
        no_cache=True,
        progress=False,
        probes=str(probe_dir / "probes"),
        batch_size=7,
    )
    m = load_tiny("bert")
    rec = res.records[0]
    for text, pll in list(rec["pll"].items())[:4]:
        naive = naive_pll(m, text)
        assert pll == pytest.approx(naive, abs=1e-4)
    share = res.metrics["replacement"]["all"]["share"]
    probes = [p for r in res.records for p in r["probes"] if p["kind"] == "replacement"]
    assert share == pytest.approx(np.mean([p["match_more_likely"] for p in probes]))
    html = (tmp_path / "b" / "report.html").read_text()
    assert "Figure 8 shape" in html
    n_wrong = sum(not p["match_more_likely"] for r in res.records for p in r["probes"])
    assert n_wrong and f"of {n_wrong} wrong probes" in html and "Example probes the model got wrong" in html


def test_missing_options_are_clear_errors(tmp_path):
    from huebench.errors import HuebenchError

    with pytest.raises(HuebenchError, match="rainbow needs probes"):
        evaluate("rainbow", "reference:random", out=tmp_path / "x")
    with pytest.raises(HuebenchError, match="rainbow needs the images"):
        evaluate("rainbow", "reference:random", out=tmp_path / "y", probes=str(tmp_path))
