"""The Ray executor gives the same records and results as the local one (local Ray, 2 CPUs)."""

import os

import pytest

ray = pytest.importorskip("ray")

from huebench.runs.runner import evaluate  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.mark.parametrize("model", ["reference:random", "tiny-clip"])
def test_ray_matches_local(tmp_path, tiny, model):
    spec = f"hf:{tiny('clip')}" if model == "tiny-clip" else model
    local = evaluate(
        "colornames", spec, out=tmp_path / "local", no_cache=True, progress=False, chunk_size=5, variants=2
    )
    distributed = evaluate(
        "colornames",
        spec,
        out=tmp_path / "ray",
        cache=tmp_path / "cache.sqlite",
        progress=False,
        chunk_size=5,
        variants=2,
        executor="ray",
        workers=2,
    )
    assert (tmp_path / "local" / "records.jsonl").read_text() == (tmp_path / "ray" / "records.jsonl").read_text()
    assert local.results == distributed.results
    assert distributed.stats["executor"] == "ray" and distributed.stats["cache"]["model_calls"] == 22
    again = evaluate(
        "colornames",
        spec,
        out=tmp_path / "ray2",
        cache=tmp_path / "cache.sqlite",
        progress=False,
        chunk_size=5,
        variants=2,
        executor="ray",
        workers=2,
    )
    assert again.stats["cache"]["model_calls"] == 0 and again.stats["cache"]["hits"] == 22  # actors share the cache


def test_ray_resumes_a_partial_local_run(tmp_path):
    full = evaluate("colornames", "reference:random", out=tmp_path / "full", no_cache=True, progress=False)
    part = tmp_path / "part"
    evaluate("colornames", "reference:random", out=part, no_cache=True, progress=False)
    lines = (part / "records.jsonl").read_text().splitlines(keepends=True)
    (part / "records.jsonl").write_text("".join(lines[:7]))
    resumed = evaluate(
        "colornames",
        "reference:random",
        out=part,
        no_cache=True,
        progress=False,
        resume=True,
        executor="ray",
        chunk_size=4,
    )
    assert (part / "records.jsonl").read_text() == (tmp_path / "full" / "records.jsonl").read_text()
    assert resumed.results == full.results and resumed.stats["evaluated_now"] == 26


def test_ray_generation_and_scoring_match_local(tmp_path, tiny):
    """GenColorBench through Ray: actors fill one image folder (meta.json under a lock) with the
    same images as the local executor, and score them to the same records."""
    pytest.importorskip("diffusers")
    import json

    from huebench.benchmarks.gencolor.prompts import build_suite

    recs = build_suite("mini")
    picked = [r for t in ("cna", "coa", "ncu") for r in recs if r["task"] == t][:6]
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(json.dumps(r) + "\n" for r in picked), encoding="utf-8")
    spec = f"diffusers:{tiny('stable-diffusion')}"
    opts = {"prompts": str(prompts), "n": 2, "steps": 2, "height": 32, "width": 32}
    for name, extra in (("local", {}), ("ray", {"executor": "ray", "workers": 2})):
        evaluate(
            "gencolor-generate",
            spec,
            out=tmp_path / f"gen-{name}",
            images=str(tmp_path / f"images-{name}"),
            no_cache=True,
            progress=False,
            chunk_size=2,
            **opts,
            **extra,
        )
        evaluate(
            "gencolorbench",
            "reference:none",
            out=tmp_path / f"score-{name}",
            images=str(tmp_path / f"images-{name}"),
            no_cache=True,
            progress=False,
            chunk_size=3,
            prompts=str(prompts),
            n=2,
            **extra,
        )
    for r in picked:
        for i in range(2):
            a = (tmp_path / "images-local" / r["id"] / f"{i}.png").read_bytes()
            assert a == (tmp_path / "images-ray" / r["id"] / f"{i}.png").read_bytes()
        meta = json.loads((tmp_path / "images-ray" / r["id"] / "meta.json").read_text())
        assert set(meta["images"]) == {"0", "1"}

    def strip(path):
        return [{k: v for k, v in json.loads(line).items() if k != "image"} for line in path.read_text().splitlines()]

    local = strip(tmp_path / "score-local" / "records.jsonl")
    assert local == strip(tmp_path / "score-ray" / "records.jsonl") and len(local) == 12
