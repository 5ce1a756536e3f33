import json
from importlib import metadata

import pytest
from typer.testing import CliRunner

from huebench.cli import app
from huebench.errors import UnknownNameError
from huebench.models import registry
from huebench.models.base import Capability
from huebench.models.reference import RandomBaseline
from huebench.models.registry import PluginRequiredError, entries, load_model, resolve

PAPER_MODELS = [
    "clip-vit-b32",
    "clip-rn50",
    "clip-rn50x4",
    "clip-rn101",
    "siglip-base",
    "flava-full",
    "blip-itm-base-coco",
    "blip-itm-large-coco",
    "llava-1.5-7b",
    "llava-1.5-13b",
    "llavar",
    "bert-base-uncased",
    "roberta-base",
    "roberta-large",
    *[f"albert-{s}-{v}" for v in ("v1", "v2") for s in ("base", "large", "xlarge", "xxlarge")],
    "gpt2",
    "gpt2-medium",
    "gpt2-large",
    "gpt2-xl",
    "grounding-dino",
    "sam",
    "janus-1.3b",
    "sd3",
    "sd3.5",
    "flux.1",
    "pixart-alpha",
    "pixart-sigma",
    "sana",
    "lxmert",
    "uniter",
    "villa",
    "soho",
    "albef",
    "tcl",
    "janus-pro",
    "omnigen2",
    "blip3o",
]


def test_every_model_the_papers_evaluated_has_an_entry():
    aliases = {e.alias for e in entries()}
    assert set(PAPER_MODELS) <= aliases
    assert len(aliases) == len(entries())  # no duplicates


def test_resolve_aliases_and_specs():
    assert resolve("clip-vit-b32")[0] == "hf:openai/clip-vit-base-patch32"
    assert resolve("BLIP_ITM-base-coco")[0] == "hf:Salesforce/blip-itm-base-coco"
    assert resolve("hf:/some/folder") == ("hf:/some/folder", None)
    spec, entry = resolve("hf:openai/clip-vit-base-patch32")
    assert entry is not None and entry.alias == "clip-vit-b32"


def test_unknown_model_did_you_mean():
    with pytest.raises(UnknownNameError, match="Did you mean 'siglip-base'"):
        resolve("siglip-bse")
    with pytest.raises(UnknownNameError, match="not an alias and not a spec"):
        resolve("foo:bar")


@pytest.mark.parametrize(
    "alias",
    ["lxmert", "uniter", "villa", "soho", "albef", "tcl", "janus-pro", "omnigen2", "blip3o", "llavar", "janus-1.3b"],
)
def test_models_without_a_port_explain_the_plugin_route(alias):
    with pytest.raises(PluginRequiredError, match="entry-point group with this alias"):
        load_model(alias)


def test_plugin_entry_point_is_used(monkeypatch):
    calls = []

    def loader(spec, **options):
        calls.append((spec, options))
        return RandomBaseline("reference:random", **options)

    ep = metadata.EntryPoint(name="uniter", value="tests.test_registry:_unused", group=registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(metadata.EntryPoint, "load", lambda self: loader)
    monkeypatch.setattr(
        registry.metadata, "entry_points", lambda group: [ep] if group == registry.ENTRY_POINT_GROUP else []
    )
    m = load_model("uniter", batch_size=3)
    assert isinstance(m, RandomBaseline) and calls == [("plugin:uniter-base", {"batch_size": 3})]


def test_reference_model_is_deterministic_and_batch_invariant():
    from PIL import Image

    imgs = [Image.new("RGB", (4, 4), (i * 40, 0, 0)) for i in range(5)]
    a = load_model("random", batch_size=1).score(imgs, ["x", "y"])
    b = load_model("reference:random", batch_size=4).score(imgs[::-1], ["x", "y"])[::-1]
    assert (a == b).all()
    assert not (load_model("reference:random:1").score(imgs, ["x", "y"]) == a).all()
    assert load_model("random").supports(Capability.TEXT_TO_IMAGE)


def test_list_models_json_and_benchmarks():
    runner = CliRunner()
    rows = json.loads(runner.invoke(app, ["list", "models", "--json"]).output)
    by = {r["alias"]: r for r in rows}
    assert by["clip-vit-b32"]["source"] == "hf:openai/clip-vit-base-patch32"
    assert by["clip-vit-b32"]["capabilities"] == ["image-text-score", "text-features"]
    assert all({"alias", "source", "capabilities"} <= set(r) for r in rows)
    only = json.loads(runner.invoke(app, ["list", "models", "--json", "--capability", "text-to-image"]).output)
    assert {r["alias"] for r in only} >= {"sd3", "flux.1", "random"} and "gpt2" not in {r["alias"] for r in only}
    benches = {b["name"]: b for b in json.loads(runner.invoke(app, ["list", "benchmarks", "--json"]).output)}
    assert {"colornames", "colorswap", "coda", "coda-probe", "rainbow", "rainbow-baseline"} <= set(benches)
    assert "image-text-score" in benches["colornames"]["capabilities"] and benches["coda"]["capabilities"] == [
        "masked-lm",
        "causal-lm",
    ]


def test_hf_unknown_folder_is_a_clear_error(tmp_path):
    from huebench.errors import HuebenchError

    with pytest.raises(HuebenchError, match="cannot read its config"):
        load_model(f"hf:{tmp_path / 'nope'}")
