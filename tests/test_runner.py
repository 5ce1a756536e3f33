"""The run layer: folder contract, cache, resume, rescore, failures, batch invariance."""

import json
from pathlib import Path

import pytest

from huebench.errors import HuebenchError
from huebench.models.reference import RandomBaseline
from huebench.runs.runner import RunOptions, cpu_vector_isa, evaluate, rescore, run


def _files(d: Path) -> set[str]:
    return {p.name for p in d.iterdir()}


def test_run_folder_contract_and_rescore(tmp_path):
    out = tmp_path / "run"
    res = evaluate("colornames", "reference:random", out=out, cache=tmp_path / "c.sqlite", progress=False)
    assert {"config.json", "records.jsonl", "results.json", "run.json", "report.html"} <= _files(out)
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["model"]["spec"] == "reference:random" and cfg["model"]["fingerprint"] and cfg["seed"] == 0
    assert "numpy" in cfg["versions"] and cfg["capability"] == "image-text-score"
    assert set(cfg["machine"]) == {"system", "architecture", "cpu_vector_isa"} and cfg["machine"]["system"]
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(records) == 33 and all(r["status"] == "ok" and "reason" in r and "batch_size" in r for r in records)
    acc = res.metrics["accuracy"]
    assert acc["n"] == 33 and acc["low"] <= acc["value"] <= acc["high"]
    assert acc["value"] == pytest.approx(sum(r["correct"] for r in records) / 33)
    before = (out / "results.json").read_text()
    (out / "results.json").unlink()
    assert rescore(out) == json.loads(before)  # read-only by default
    assert not (out / "results.json").exists()
    assert rescore(out, write=True) == json.loads(before)
    assert (out / "results.json").read_text() == before


def test_the_cpu_vector_isa_is_the_widest_the_flags_list():
    # renders of one Mitsuba release differ between AVX-512 and AVX2 CPUs: config.json says which
    two_cpus = "processor : 0\nflags : fpu sse4_2 avx avx2 fma\n\nprocessor : 1\nflags : fpu sse4_2 avx avx2 fma\n"
    assert cpu_vector_isa(two_cpus) == "avx2"
    assert cpu_vector_isa("flags\t\t: sse4_2 avx avx2 avx512f avx512bw\n") == "avx512f"
    assert cpu_vector_isa("Features : fp asimd\n") is None  # an ARM CPU: none of the x86 sets
    assert cpu_vector_isa("model name : no flags line\n") is None
    # cores that differ: what every one of them has
    mixed = "processor : 0\nflags : sse4_2 avx avx2 avx512f\n\nprocessor : 1\nflags : sse4_2 avx avx2\n"
    assert cpu_vector_isa(mixed) == "avx2"


def test_rerun_is_served_from_cache_with_zero_model_calls(tmp_path):
    cache = tmp_path / "c.sqlite"
    first = evaluate("colornames", "reference:random", out=tmp_path / "a", cache=cache, progress=False)
    assert first.stats["cache"]["model_calls"] == 33 and first.stats["cache"]["hits"] == 0
    second = evaluate("colornames", "reference:random", out=tmp_path / "b", cache=cache, progress=False)
    assert second.stats["cache"]["model_calls"] == 0 and second.stats["cache"]["hits"] == 33
    assert second.results == first.results
    assert (tmp_path / "a" / "records.jsonl").read_text() == (tmp_path / "b" / "records.jsonl").read_text()


def test_batch_size_does_not_change_results(tmp_path):
    a = evaluate("colornames", "reference:random", out=tmp_path / "a", no_cache=True, batch_size=1, progress=False)
    b = evaluate("colornames", "reference:random", out=tmp_path / "b", no_cache=True, batch_size=32, progress=False)
    assert a.results == b.results
    assert a.stats["batch"]["used"] == [1] and max(b.stats["batch"]["used"]) == 32  # 33 samples: 32 + 1
    assert {r["batch_size"] for r in a.records} == {1}


def test_existing_folder_needs_resume_and_matching_options(tmp_path):
    out = tmp_path / "run"
    evaluate("colornames", "reference:random", out=out, no_cache=True, progress=False)
    with pytest.raises(HuebenchError, match="pass --resume"):
        evaluate("colornames", "reference:random", out=out, no_cache=True, progress=False)
    with pytest.raises(HuebenchError, match="cannot resume: .*seed"):
        evaluate("colornames", "reference:random", out=out, no_cache=True, progress=False, resume=True, seed=5)
    with pytest.raises(HuebenchError, match="cannot resume: .*model"):
        evaluate("colornames", "reference:random:7", out=out, no_cache=True, progress=False, resume=True)


def test_resume_refusal_is_one_line_with_each_difference_was_and_now_and_the_fix(tmp_path):
    out = tmp_path / "run"
    evaluate("colornames", "reference:random", out=out, no_cache=True, progress=False)
    kw = {"out": out, "no_cache": True, "progress": False, "resume": True}
    with pytest.raises(HuebenchError) as err:
        evaluate("colornames", "reference:random:3", seed=4, limit=5, variants=2, **kw)
    assert str(err.value) == (
        f"{out}: cannot resume: benchmark options (variants), seed, limit and model differ from its config.json "
        "(was → now: variants 3 → 2; seed 0 → 4; limit all → 5; model.spec 'reference:random' → "
        "'reference:random:3'); to continue this run, give its original settings and inputs with --resume, "
        "or give the new ones a new --out folder"
    )
    with pytest.raises(HuebenchError) as err:  # the seed of a seeded model is the run's: named once
        evaluate("colornames", "reference:random", seed=4, **kw)
    assert "cannot resume: seed differs from its config.json (was → now: seed 0 → 4); to continue" in str(err.value)
    with pytest.raises(HuebenchError) as err:
        evaluate("colornames", "reference:random", dtype="float16", **kw)
    assert "cannot resume: model differs from its config.json (was → now: model.dtype 'float32' → 'float16')" in str(
        err.value
    )


def test_resume_after_partial_run_gives_identical_records(tmp_path):
    full = evaluate("colornames", "reference:random", out=tmp_path / "full", no_cache=True, progress=False)
    part = tmp_path / "part"
    evaluate("colornames", "reference:random", out=part, no_cache=True, progress=False, limit=None)
    # simulate a crash: keep 10 records and a torn line, drop the results
    lines = (part / "records.jsonl").read_text().splitlines(keepends=True)
    (part / "records.jsonl").write_text("".join(lines[:10]) + lines[10][:25])
    (part / "results.json").unlink()
    resumed = evaluate("colornames", "reference:random", out=part, no_cache=True, progress=False, resume=True)
    assert resumed.stats["resumed_from_records"] == 10 and resumed.stats["evaluated_now"] == 23
    assert (part / "records.jsonl").read_text() == (tmp_path / "full" / "records.jsonl").read_text()
    assert resumed.results == full.results


class FlakyModel(RandomBaseline):
    """Fails on the first call for samples of one colour: failures are recorded, not cached, retried."""

    calls = 0
    fail = True

    def score(self, images, texts):
        import numpy as np

        FlakyModel.calls += 1
        if FlakyModel.fail and any(np.asarray(im)[0, 0, 2] > 150 and np.asarray(im)[0, 0, 0] < 100 for im in images):
            raise RuntimeError("simulated backend failure on a blue patch")
        return super().score(images, texts)


def test_failures_are_recorded_not_cached_and_retried_on_resume(tmp_path):
    cache = tmp_path / "c.sqlite"
    out = tmp_path / "run"
    model = FlakyModel("reference:random")
    opts = RunOptions(benchmark="colornames", model="reference:random", out=out, cache=cache, progress=False)
    res = run(opts, model=model)
    failed = [r for r in res.records if r["status"] == "error"]
    assert failed and all("simulated backend failure" in r["reason"] for r in failed)
    assert res.results["n_failed"] == len(failed) and res.results["n"] == 33 - len(failed)
    assert set(res.results["failed_ids"]) == {r["id"] for r in failed}
    report = (out / "report.html").read_text()
    assert "Failed samples" in report and "simulated backend failure" in report
    FlakyModel.fail = False
    try:
        opts.resume = True
        again = run(opts, model=model)
    finally:
        FlakyModel.fail = True
    assert again.results["n_failed"] == 0 and again.results["n"] == 33
    assert again.stats["evaluated_now"] == len(failed)
    assert again.stats["cache"]["model_calls"] == len(failed)  # successes came from records, failures were not cached


def test_limit_and_empty(tmp_path, monkeypatch):
    from huebench.benchmarks.colornames import ColorNames

    res = evaluate("colornames", "reference:random", out=tmp_path / "r", no_cache=True, progress=False, limit=5)
    assert res.results["n"] == 5
    with pytest.raises(HuebenchError, match="variants must be 1 to 1000, got 0"):
        evaluate("colornames", "reference:random", out=tmp_path / "e", no_cache=True, progress=False, variants=0)
    monkeypatch.setattr(ColorNames, "samples", lambda self: [])
    with pytest.raises(HuebenchError, match="produced no samples"):
        evaluate("colornames", "reference:random", out=tmp_path / "f", no_cache=True, progress=False)
    assert not (tmp_path / "f").exists()


def test_unknown_benchmark_and_capability_mismatch(tmp_path, load_tiny):
    from huebench.errors import UnknownNameError
    from huebench.models.base import CapabilityError

    with pytest.raises(UnknownNameError, match="Did you mean 'colornames'"):
        evaluate("colornamez", "reference:random", out=tmp_path / "x")
    bert = load_tiny("bert")
    with pytest.raises(CapabilityError, match="needs image-text-score, itm or vlm; .* offers masked-lm, text-features"):
        run(
            RunOptions(benchmark="colornames", model=bert.spec, out=tmp_path / "y", no_cache=True, progress=False),
            model=bert,
        )


@pytest.mark.parametrize("family", ["clip", "siglip", "blip", "flava", "llava"])
def test_end_to_end_with_tiny_models(tmp_path, tiny, family):
    cache = tmp_path / "c.sqlite"
    spec = f"hf:{tiny(family)}"
    res = evaluate("colornames", spec, out=tmp_path / "run", cache=cache, progress=False, variants=1, batch_size=4)
    assert res.results["n"] == 11 and res.results["n_failed"] == 0
    expected_cap = {
        "clip": "image-text-score",
        "siglip": "image-text-score",
        "blip": "image-text-score",
        "flava": "image-text-score",
        "llava": "vlm",
    }[family]
    assert res.results["capability"] == expected_cap
    again = evaluate("colornames", spec, out=tmp_path / "run2", cache=cache, progress=False, variants=1, batch_size=1)
    assert again.stats["cache"]["model_calls"] == 0 and again.results == res.results
    assert rescore(tmp_path / "run", write=False) == res.results
