"""A model that cannot run a benchmark is refused before its weights load, in the user's terms."""

import pytest

from huebench.models.base import CapabilityError
from huebench.models.registry import OFFLINE_PACKAGES, declared_model, resolve
from huebench.runs.runner import RunOptions, evaluate, run


def _no_loading(monkeypatch):
    import huebench.models.registry as registry

    def refuse(*args, **kwargs):
        raise AssertionError("weights were loaded before the capability check")

    monkeypatch.setattr(registry, "load_model", refuse)


def test_alias_is_refused_before_loading_naming_alias_needs_offers_and_runnable_benchmarks(cli, monkeypatch, tmp_path):
    _no_loading(monkeypatch)
    out = tmp_path / "run"
    code, stdout, err = cli("run", "colornames", "-m", "minilm-l6-v2", "--out", str(out))
    line = " ".join(err.split())
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert line.startswith("error: model 'minilm-l6-v2' cannot run colornames: ")
    assert "colornames needs image-text-score, itm or vlm" in line
    assert "minilm-l6-v2 offers text-features, so it can run coda-probe;" in line
    assert "`huebench list models --capability image-text-score`" in line
    assert not out.exists()  # nothing was started
    package = OFFLINE_PACKAGES["minilm-l6-v2"].location()
    if package is not None:  # the alias resolves into site-packages: that path is not what the user typed
        assert resolve("minilm-l6-v2")[0].endswith(str(package)) and str(package) not in line


def test_runnable_benchmarks_and_an_option_that_picks_the_capability(cli, monkeypatch, tmp_path):
    _no_loading(monkeypatch)
    code, _, err = cli("run", "colornames", "-m", "bert-base-uncased", "--out", str(tmp_path / "a"))
    line = " ".join(err.split())
    assert code == 2 and "bert-base-uncased offers masked-lm, text-features, so it can run coda, coda-probe, " in line
    assert "rainbow-baseline" in line
    # ColorSwap takes CLIP, but not with --head itm: the message says the option asked for it
    code, _, err = cli("run", "colorswap", "-m", "clip-vit-b32", "-o", "head=itm", "--data", str(tmp_path))
    line = " ".join(err.split())
    assert code == 2 and "colorswap needs itm with these options; clip-vit-b32 offers image-text-score" in line
    assert "`huebench list models --capability itm`" in line
    code, _, err = cli("run", "colornames", "-m", "none", "--out", str(tmp_path / "b"))
    line = " ".join(err.split())
    assert code == 2 and "none offers no capability, so it can run only the benchmarks that need no model: " in line
    assert "gencolor-diagnostic" in line


def test_models_the_registry_cannot_describe_are_checked_once_loaded(tmp_path, tiny):
    folder = f"hf:{tiny('bert')}"
    assert declared_model(folder) is None and declared_model("reference:random:3") is None
    assert declared_model("clip-vit-b32").capabilities == {"image-text-score", "text-features"}
    with pytest.raises(CapabilityError) as exc:
        run(RunOptions(benchmark="colornames", model=folder, out=tmp_path / "y", no_cache=True, progress=False))
    message = str(exc.value)
    assert message.startswith(f"model {folder!r} cannot run colornames: ")
    assert f"{folder} offers masked-lm, text-features, so it can run coda, " in message
    assert not (tmp_path / "y").exists()


def test_a_model_that_can_run_it_is_not_refused(tmp_path):
    res = evaluate("colornames", "random", out=tmp_path / "r", no_cache=True, progress=False, variants=1)
    assert res.results["n"] == 11 and res.results["capability"] == "image-text-score"
