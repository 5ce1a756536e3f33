"""Run a benchmark against a model: run folder, cached model calls, per-sample records, resume.

Run folder contract (``DIR``)::

    config.json     fully resolved options, package versions, git revision, seeds, model fingerprint
    records.jsonl   one record per sample (inputs, raw model output, decision, correctness, reason);
                    failures are records with "status": "error" and a reason, retried on --resume
    results.json    metrics with seeded bootstrap confidence intervals — a pure function of
                    records.jsonl and config.json (``huebench rescore DIR`` recomputes it)
    run.json        how this run went: time, cache hits, model calls, batch sizes, failures
    report.html     the human-readable report

Crash safety: records are appended and fsynced one chunk at a time; config/results/report are
written atomically; a killed run resumes from its records with ``--resume`` and ends with the same
records and results as an uninterrupted run.
"""

from __future__ import annotations

import json
import platform
import re
import subprocess
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from huebench.benchmarks.base import Benchmark, Sample, get_benchmark
from huebench.errors import HuebenchError
from huebench.io import JsonlAppender, atomic_write_json, read_jsonl
from huebench.models.base import Model
from huebench.runs.cache import OutputCache, request_key

__all__ = ["RunContext", "RunOptions", "RunResult", "default_cache_path", "evaluate", "group_outputs", "rescore", "run"]


def default_cache_path() -> Path:
    import os

    env = os.environ.get("HUEBENCH_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "huebench" / "outputs.sqlite"


@dataclass
class RunOptions:
    benchmark: str
    model: str
    out: Path | None = None
    limit: int | None = None
    batch_size: int = 8
    device: str = "cpu"
    dtype: str = "float32"
    seed: int = 0
    resume: bool = False
    cache: Path | None = None  # None → default_cache_path(); use no_cache for none
    no_cache: bool = False
    bootstrap: int = 1000
    chunk_size: int = 32
    progress: bool = True
    report: bool = True
    executor: str = "local"  # "local" or "ray"
    ray_address: str | None = None
    workers: int | None = None
    benchmark_options: dict[str, Any] = field(default_factory=dict)


@dataclass
class RunResult:
    run_dir: Path
    results: dict[str, Any]
    records: list[dict[str, Any]]
    stats: dict[str, Any]

    @property
    def metrics(self) -> dict[str, Any]:
        return self.results.get("metrics", {})


class RunContext:
    """What a benchmark's ``evaluate`` uses to call the model: cached, counted, batch-size aware."""

    def __init__(self, model: Model, cache: OutputCache, seed: int = 0, options: dict[str, Any] | None = None):
        self.model = model
        self.cache = cache
        self.seed = seed
        self.options = options or {}
        self.model_calls = 0  # requests actually sent to the model
        self.cache_hits = 0
        self.batch_sizes: set[int] = set()
        self.oom_backoffs = 0

    def call(
        self,
        capability: str,
        requests: Sequence[dict[str, Any]],
        compute: Callable[[list[dict[str, Any]]], Sequence[Any]],
        *,
        model: Model | None = None,
    ) -> list[dict[str, Any]]:
        """Outputs for ``requests``: from the cache where answered before, else from ``compute``.

        ``model`` is the model ``compute`` calls when it is not the run's own (a benchmark's helper
        models, e.g. GenColorBench's detector and segmenter): its fingerprint keys the cache.

        Each returned item is ``{"output": …, "batch_size": …}``; ``batch_size`` is the batch-size
        limit the output was computed under (the requested size, or less after an out-of-memory
        back-off), also when it comes from the cache. It does not depend on how many requests
        happened to share the last batch, so a resumed run records the same value. Identical
        requests in one call are computed once.
        """
        used = model if model is not None else self.model
        fp = used.fingerprint
        keys = [request_key(fp, capability, r) for r in requests]
        found = self.cache.get_many(keys)
        todo: dict[str, dict[str, Any]] = {}
        for k, r in zip(keys, requests, strict=True):
            if k not in found and k not in todo:
                todo[k] = r
        self.cache_hits += sum(1 for k in keys if k in found)
        if todo:
            outputs = list(compute(list(todo.values())))
            if len(outputs) != len(todo):
                raise RuntimeError(f"{capability}: model returned {len(outputs)} outputs for {len(todo)} requests")
            bs = self.count_calls(used, len(todo))
            new = {k: {"output": _jsonable(o), "batch_size": bs} for k, o in zip(todo, outputs, strict=True)}
            self.cache.put_many((k, fp, capability, v) for k, v in new.items())
            found.update(new)
        return [found[k] for k in keys]

    def count_calls(self, model: Model, n: int) -> int:
        """Account for ``n`` requests just sent to ``model`` (also by benchmarks whose outputs are not
        cached, e.g. generated images); returns the batch-size limit they ran under."""
        stats = model.last_batch
        if stats:
            self.batch_sizes.update(stats.batch_sizes_used)
            self.oom_backoffs += stats.oom_backoffs
        self.model_calls += n
        return stats.effective_batch_size if stats else model.batch_size


def group_outputs(flat: Sequence[dict[str, Any]], size: int) -> list[dict[str, Any]]:
    """Regroup ``ctx.call`` outputs made for ``size`` requests per sample into one item per sample:
    ``{"output": [their outputs], "batch_size": the first one's}``."""
    if len(flat) % size:
        raise ValueError(f"{len(flat)} outputs do not split into groups of {size}")
    return [
        {"output": [o["output"] for o in flat[k : k + size]], "batch_size": flat[k]["batch_size"]}
        for k in range(0, len(flat), size)
    ]


def _jsonable(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, (list, tuple)):
        return [_jsonable(o) for o in obj]
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if hasattr(obj, "__dataclass_fields__"):
        return _jsonable(asdict(obj))
    return obj


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("huebench", "numpy", "torch", "transformers", "diffusers", "open_clip_torch", "colour-science"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            continue
    return out


def _git_revision() -> str | None:
    try:
        root = Path(__file__).resolve().parents[2]
        rev = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        return (rev.stdout.strip() or None) if rev.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:80] or "model"


def _config(opts: RunOptions, bench: Benchmark, model: Model) -> dict[str, Any]:
    return {
        "benchmark": bench.name,
        "benchmark_options": bench.resolved_options(),
        "model": {
            **model.describe(),
            "requested": opts.model,
            "fingerprint_parts": _jsonable(model.fingerprint_parts()),
        },
        "seed": opts.seed,
        "limit": opts.limit,
        "bootstrap": opts.bootstrap,
        "versions": _versions(),
        "git_revision": _git_revision(),
    }


_COMPARED = ("benchmark", "benchmark_options", "seed", "limit", "bootstrap")


def _check_resumable(existing: dict[str, Any], new: dict[str, Any], run_dir: Path) -> None:
    diffs = [k for k in _COMPARED if existing.get(k) != new.get(k)]
    if "benchmark_options" in diffs:  # say which options, so the user knows what to change back
        old_opts, new_opts = existing.get("benchmark_options") or {}, new.get("benchmark_options") or {}
        keys = sorted(k for k in {*old_opts, *new_opts} if old_opts.get(k) != new_opts.get(k))
        diffs[diffs.index("benchmark_options")] = f"benchmark options ({', '.join(keys)})"
    if existing.get("model", {}).get("fingerprint") != new["model"]["fingerprint"]:
        diffs.append("model")
    if diffs:
        raise HuebenchError(
            f"{run_dir}: cannot resume: {', '.join(diffs)} differ from the run's config.json; "
            "use a new --out folder, or the same options as the original run"
        )


def _load_records(path: Path) -> dict[str, dict[str, Any]]:
    latest: dict[str, dict[str, Any]] = {}
    if path.exists():
        for _, rec in read_jsonl(path, allow_torn_tail=True):
            latest[str(rec["id"])] = rec  # a later record (a retried failure) supersedes
    return latest


def _error_record(sample: Sample, exc: BaseException) -> dict[str, Any]:
    return {
        "id": sample.id,
        "status": "error",
        "reason": f"{type(exc).__name__}: {exc}",
        "traceback_tail": traceback.format_exception_only(type(exc), exc)[-1].strip(),
    }


def _evaluate_chunk(bench: Benchmark, chunk: Sequence[Sample], model: Model, ctx: RunContext) -> list[dict[str, Any]]:
    """Evaluate a chunk; if it fails as a whole, retry sample by sample to isolate the failures."""
    try:
        recs = list(bench.evaluate(chunk, model, ctx))
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception:
        if len(chunk) == 1:
            raise
        recs = []
        for s in chunk:
            try:
                recs.extend(bench.evaluate([s], model, ctx))
            except (KeyboardInterrupt, SystemExit):
                raise
            except Exception as exc:
                recs.append(_error_record(s, exc))
        return recs
    ids = [r.get("id") for r in recs]
    if sorted(ids) != sorted(s.id for s in chunk):
        raise RuntimeError(
            f"{bench.name}.evaluate returned records for {ids}, expected one per sample of {[s.id for s in chunk]}"
        )
    return recs


def _progress(enabled: bool, total: int) -> Any:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TextColumn("cache hits {task.fields[hits]} · model calls {task.fields[calls]} · failed {task.fields[failed]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        disable=not enabled,
        transient=False,
    )


def run(opts: RunOptions, *, model: Model | None = None) -> RunResult:
    """Run (or resume) ``opts.benchmark`` with ``opts.model``; see the module doc for the folder."""
    from huebench.models.registry import load_model

    bench_cls = get_benchmark(opts.benchmark)
    bench = bench_cls(seed=opts.seed, **opts.benchmark_options)
    if model is None:
        model = load_model(opts.model, device=opts.device, dtype=opts.dtype, batch_size=opts.batch_size, seed=opts.seed)
    capability = bench.check_model(model)  # None for benchmarks that need no model
    run_dir = Path(opts.out) if opts.out else Path("runs") / bench.name / _slug(opts.model)
    run_dir.mkdir(parents=True, exist_ok=True)
    records_path = run_dir / "records.jsonl"
    config = _config(opts, bench, model)
    config["capability"] = capability.value if capability is not None else None
    config_path = run_dir / "config.json"
    if config_path.exists() or records_path.exists():
        if not opts.resume:
            raise HuebenchError(f"{run_dir} already holds a run; pass --resume to continue it, or choose another --out")
        if config_path.exists():
            _check_resumable(json.loads(config_path.read_text(encoding="utf-8")), config, run_dir)
    atomic_write_json(config_path, config)

    samples = bench.samples()
    if opts.limit is not None:
        samples = samples[: opts.limit]
    if not samples:
        raise HuebenchError(f"benchmark {bench.name!r} produced no samples with these options: nothing to evaluate")
    ids = [s.id for s in samples]
    if len(set(ids)) != len(ids):
        raise HuebenchError(f"benchmark {bench.name!r} produced duplicate sample ids; ids must be unique")
    previous = _load_records(records_path)
    todo = [s for s in samples if previous.get(s.id, {}).get("status") != "ok"]

    cache = OutputCache(None if opts.no_cache else (opts.cache or default_cache_path()))
    ctx = RunContext(model, cache, seed=opts.seed, options=config)
    started = time.perf_counter()
    failed = 0
    with JsonlAppender(records_path) as out, _progress(opts.progress, len(samples)) as bar:
        task = bar.add_task(
            f"{bench.name} · {model.spec}",
            total=len(samples),
            completed=len(samples) - len(todo),
            rate="",
            hits=0,
            calls=0,
            failed=0,
        )
        t0 = time.perf_counter()
        done_now = 0
        chunks = [todo[k : k + opts.chunk_size] for k in range(0, len(todo), opts.chunk_size)]

        def account(recs: list[dict[str, Any]], n: int) -> None:
            nonlocal failed, done_now
            failed += sum(1 for r in recs if r.get("status") != "ok")
            out.write_many(json_safe(r) for r in recs)  # NaN → null: records are strict JSON
            done_now += n
            rate = done_now / max(time.perf_counter() - t0, 1e-9)
            bar.update(
                task, advance=n, rate=f"{rate:.1f} samples/s", hits=ctx.cache_hits, calls=ctx.model_calls, failed=failed
            )

        if opts.executor == "ray" and chunks:
            from huebench.runs.executors import RayExecutor

            ex = RayExecutor(address=opts.ray_address, workers=opts.workers, device=opts.device)
            cache_path = None if opts.no_cache else str(opts.cache or default_cache_path())
            bench_opts = dict(bench.options)
            model_opts = {"device": opts.device, "dtype": opts.dtype, "batch_size": opts.batch_size, "seed": opts.seed}
            for recs, st in ex.map(
                [[s.id for s in c] for c in chunks],
                benchmark=bench.name,
                bench_options=bench_opts,
                model_spec=model.spec,
                model_options=model_opts,
                cache_path=cache_path,
            ):
                ctx.cache_hits += st["hits"]
                ctx.model_calls += st["calls"]
                ctx.batch_sizes.update(st["batch_sizes"])
                ctx.oom_backoffs += st["oom_backoffs"]
                account(recs, len(recs))
        elif opts.executor != "local":
            raise HuebenchError(f"unknown executor {opts.executor!r}; use local or ray")
        else:
            for chunk in chunks:
                try:
                    recs = _evaluate_chunk(bench, chunk, model, ctx)
                except (KeyboardInterrupt, SystemExit):
                    raise
                except Exception as exc:
                    recs = [_error_record(s, exc) for s in chunk]
                account(recs, len(chunk))

    result = finalize(run_dir, bench=bench, sample_order=ids, write_report=opts.report)
    stats = {
        "executor": opts.executor,
        "seconds": round(time.perf_counter() - started, 3),
        "samples": len(samples),
        "evaluated_now": len(todo),
        "resumed_from_records": len(samples) - len(todo),
        "cache": {
            "hits": ctx.cache_hits,
            "model_calls": ctx.model_calls,
            "path": None if opts.no_cache else str(opts.cache or default_cache_path()),
        },
        "batch": {"requested": opts.batch_size, "used": sorted(ctx.batch_sizes), "oom_backoffs": ctx.oom_backoffs},
        "failed": result.results.get("n_failed", 0),
    }
    atomic_write_json(run_dir / "run.json", stats)
    cache.close()
    result.stats = stats
    return result


def finalize(
    run_dir: Path,
    *,
    bench: Benchmark | None = None,
    sample_order: Sequence[str] | None = None,
    write_report: bool = True,
) -> RunResult:
    """Compact records (one per sample, in sample order), compute results, write the report."""
    config = json.loads((run_dir / "config.json").read_text(encoding="utf-8"))
    if bench is None:
        bench = get_benchmark(config["benchmark"])(**config["benchmark_options"])
    latest = _load_records(run_dir / "records.jsonl")
    order = list(sample_order) if sample_order is not None else sorted(latest)
    records = [latest[i] for i in order if i in latest]
    text = "".join(json.dumps(r, ensure_ascii=False, allow_nan=False, sort_keys=True) + "\n" for r in records)
    from huebench.io import atomic_write_text

    atomic_write_text(run_dir / "records.jsonl", text)
    results = compute_results(bench, config, records)
    atomic_write_json(run_dir / "results.json", results)
    if write_report:
        from huebench.report.html import write_run_report

        write_run_report(run_dir, bench, config, results, records)
    return RunResult(run_dir, results, records, {})


def compute_results(bench: Benchmark, config: dict[str, Any], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in records if r.get("status") == "ok"]
    failed = [r for r in records if r.get("status") != "ok"]
    return {
        "benchmark": config["benchmark"],
        "model": config["model"]["spec"],
        "capability": config.get("capability"),
        "n": len(ok),
        "n_failed": len(failed),
        "failed_ids": [r["id"] for r in failed],
        "metrics": json_safe(bench.metrics(ok)),
    }


def json_safe(obj: Any) -> Any:
    """NaN/inf → None, NumPy scalars → Python: results.json must be strict JSON."""
    import math

    obj = _jsonable(obj)
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, list):
        return [json_safe(v) for v in obj]
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    return obj


def rescore(run_dir: str | Path, *, write: bool = True) -> dict[str, Any]:
    """Recompute ``results.json`` from ``records.jsonl`` and ``config.json``; no model is loaded."""
    run_dir = Path(run_dir)
    if not (run_dir / "config.json").exists():
        raise HuebenchError(f"{run_dir}: no config.json here; is this a huebench run folder?")
    config = json.loads((run_dir / "config.json").read_text(encoding="utf-8"))
    bench = get_benchmark(config["benchmark"])(**config["benchmark_options"])
    records = list(_load_records(run_dir / "records.jsonl").values())
    results = compute_results(bench, config, records)  # records.jsonl is kept in sample order
    if write:
        atomic_write_json(run_dir / "results.json", results)
    return results


def evaluate(benchmark: str, model: str | Model, **options: Any) -> RunResult:
    """Python API mirroring ``huebench run``: ``evaluate("colornames", "reference:random", out="runs/x")``."""
    known = {f for f in RunOptions.__dataclass_fields__ if f not in ("benchmark", "model")}
    bench_opts = {k: options.pop(k) for k in list(options) if k not in known}
    opts = RunOptions(
        benchmark=benchmark,
        model=model if isinstance(model, str) else model.spec,
        benchmark_options=bench_opts,
        **options,
    )
    if opts.out is not None:
        opts.out = Path(opts.out)
    return run(opts, model=None if isinstance(model, str) else model)
