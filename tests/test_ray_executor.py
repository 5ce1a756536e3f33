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
