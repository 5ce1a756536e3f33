"""Run a benchmark against a model: run folder, cached model calls, per-sample records, resume.

Run folder contract (``DIR``)::

    config.json     fully resolved options, package versions, the machine (its CPU's vector instructions), git
                    revision, seeds, model fingerprint
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

import contextlib
import json
import os
import platform
import re
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from huebench import progress
from huebench.benchmarks.base import Benchmark, Sample, get_benchmark
from huebench.errors import HuebenchError
from huebench.io import JsonlAppender, atomic_write_json
from huebench.models.base import Capability, CapabilityError, Model
from huebench.runs.cache import OutputCache
from huebench.runs.context import json_safe, jsonable
from huebench.runs.executors import Executor, LocalExecutor, RayExecutor
from huebench.runs.folder import (
    LOCK_NAME,
    RunFolderError,
    RunLock,
    input_fingerprint,
    read_config,
    read_records,
    remove_stale_temporaries,
    run_state,
    sample_hash,
)

__all__ = [
    "LoadedRun",
    "RunOptions",
    "RunResult",
    "default_cache_path",
    "evaluate",
    "load_run",
    "rescore",
    "run",
    "write_results",
]


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


#: the packages whose releases config.json records; mitsuba and drjit make the diagnostic's renders
_RECORDED_PACKAGES = (
    "huebench",
    "numpy",
    "torch",
    "transformers",
    "diffusers",
    "open_clip_torch",
    "colour-science",
    "mitsuba",
    "drjit",
)
#: the widest vector instruction set the CPU reports, widest first: the same Mitsuba release renders
#: a few of the diagnostic's images differently on an AVX-512 CPU and an AVX2 one (docs/gencolor.md)
_VECTOR_ISAS = ("avx512f", "avx2", "avx", "sse4_2")


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in _RECORDED_PACKAGES:
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            continue
    return out


def cpu_vector_isa(cpuinfo: str | None = None) -> str | None:
    """The widest of :data:`_VECTOR_ISAS` that every processor's flags list (``cpuinfo``: the text
    of /proc/cpuinfo, read when None); None where the flags cannot be read (not Linux) or list none."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
        except OSError:
            return None
    # the flags every processor lists: the instructions code may use on any core
    flags: set[str] | None = None
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            flags = set(value.split()) if flags is None else flags & set(value.split())
    return next((isa for isa in _VECTOR_ISAS if flags and isa in flags), None)


def _machine() -> dict[str, str | None]:
    """What config.json records of the machine: results can depend on it (renders, above)."""
    return {"system": platform.system(), "architecture": platform.machine(), "cpu_vector_isa": cpu_vector_isa()}


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
            "fingerprint_parts": jsonable(model.fingerprint_parts()),
        },
        "seed": opts.seed,
        "limit": opts.limit,
        "bootstrap": opts.bootstrap,
        "versions": _versions(),
        "machine": _machine(),
        "git_revision": _git_revision(),
    }


_COMPARED = ("benchmark", "benchmark_options", "seed", "limit", "bootstrap")
_MISSING = object()  # a key one side of a comparison lacks


def _shown(value: Any) -> str:
    """A config value for a one-line message: short, and never a line break."""
    if value is _MISSING or value is None:
        return "unset"
    text = repr(value) if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 60 else text[:59] + "…"


def _differences(old: Any, new: Any, path: str) -> list[str]:
    """``path old → new`` for every leaf where two config values differ (dicts compared key by key)."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted({*old, *new}, key=str):
            a, b = old.get(key, _MISSING), new.get(key, _MISSING)
            if a != b:
                out += _differences(a, b, f"{path}.{key}" if path else str(key))
        return out
    return [f"{path} {_shown(old)} → {_shown(new)}"]


def _check_resumable(
    existing: dict[str, Any],
    new: dict[str, Any],
    run_dir: Path,
    previous: dict[str, dict[str, Any]],
    hashes: dict[str, str],
) -> None:
    """Refuse to resume a run with other settings or inputs, in one line: what differs, its value in
    the run's config.json and now, and the two ways on (the original settings, or a new folder)."""
    names: list[str] = []  # what differs, for the head of the message
    values: list[str] = []  # each differing value, was → now
    for key in _COMPARED:
        old, now = existing.get(key), new.get(key)
        if old == now:
            continue
        if key == "benchmark_options":
            old, now = dict(old or {}), dict(now or {})
            if existing.get("seed") != new.get("seed"):  # a benchmark that keeps the run's seed: said once
                old.pop("seed", None), now.pop("seed", None)
            keys = sorted(k for k in {*old, *now} if old.get(k, _MISSING) != now.get(k, _MISSING))
            if not keys:
                continue
            names.append(f"benchmark options ({', '.join(keys)})")
            for k in keys:
                leaves = _differences(old.get(k, _MISSING), now.get(k, _MISSING), k)
                values += leaves[:3] + ([f"{k}: {len(leaves) - 3} more"] if len(leaves) > 3 else [])
        else:
            names.append(key)
            values.append(f"{key} {_shown(old) if key != 'limit' or old else 'all'} → "
                          f"{_shown(now) if key != 'limit' or now else 'all'}")  # fmt: skip
    settings_differ = bool(names)
    old_model, new_model = existing.get("model") or {}, new["model"]
    if old_model.get("fingerprint") != new_model["fingerprint"]:
        parts = _differences(old_model.get("fingerprint_parts", _MISSING), new_model["fingerprint_parts"], "model")
        if existing.get("seed") != new.get("seed"):  # a seeded model's seed is the run's: said once
            parts = [p for p in parts if not p.startswith("model.seed ")]
            seed_only = not parts
        else:
            seed_only = False
        if not seed_only:
            names.append("model")
            values += parts[:3] if parts else [f"model {old_model.get('spec')} → {new_model['spec']}"]
    old_inputs, new_inputs = existing.get("inputs"), new["inputs"]
    if old_inputs is not None:  # runs made before inputs were recorded cannot be checked
        changed_files = sorted(
            k for k in {*old_inputs.get("files", {}), *new_inputs["files"]}
            if old_inputs.get("files", {}).get(k) != new_inputs["files"].get(k)
        )  # fmt: skip
        if changed_files:
            names.append(f"input files ({', '.join(changed_files)}: changed since the run began)")
        # other settings make other samples: the samples are named only when nothing else explains them
        if old_inputs.get("samples_sha256") != new_inputs["samples_sha256"] and not settings_differ:
            names.append(_changed_samples(previous, new_inputs["samples"], hashes))
    if not names and new.get("machine_dependence"):
        _check_same_machine(existing, new, run_dir)
    if names:
        head = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        verb = "differs" if len(names) == 1 and names[0] in (*_COMPARED, "model") else "differ"
        raise HuebenchError(
            f"{run_dir}: cannot resume: {head} {verb} from its config.json"
            + (f" (was → now: {'; '.join(values)})" if values else "")
            + "; to continue this run, give its original settings and inputs with --resume, "
            "or give the new ones a new --out folder"
        )


def _check_same_machine(existing: dict[str, Any], new: dict[str, Any], run_dir: Path) -> None:
    """Refuse, in one line, to resume on another machine a run whose results depend on the machine
    (:meth:`Benchmark.machine_dependence`): its records would mix two machines' results. A run
    begun before config.json recorded the machine cannot be checked, and resumes."""
    if "machine" not in existing:
        return
    old, now = existing.get("machine") or {}, new["machine"]
    changed = [k for k in sorted({*old, *now}) if old.get(k, _MISSING) != now.get(k, _MISSING)]
    if changed:
        values = "; ".join(f"{k} {_shown(old.get(k, _MISSING))} → {_shown(now.get(k, _MISSING))}" for k in changed)
        raise HuebenchError(
            f"{run_dir}: cannot resume: the machine differs from its config.json (was → now: {values}) and "
            f"{new['machine_dependence']}; resume it on the machine it began on, or start it again in a new --out folder"
        )


def _changed_samples(previous: dict[str, dict[str, Any]], n_samples: int, hashes: dict[str, str]) -> str:
    changed = [i for i, r in previous.items() if i in hashes and r.get("input_sha256") not in (None, hashes[i])]
    gone = [i for i in previous if i not in hashes]
    parts = [f"samples ({n_samples:,} now)"]
    if changed:
        parts.append(f"{len(changed):,} recorded samples have other inputs now, e.g. {changed[0]!r}")
    if gone:
        parts.append(f"{len(gone):,} recorded samples are no longer in the benchmark, e.g. {gone[0]!r}")
    return parts[0] + (": " + ", ".join(parts[1:]) if len(parts) > 1 else "")


def _check_run_options(opts: RunOptions) -> None:
    checks = [
        ("limit", opts.limit is None or opts.limit >= 1, "a positive number of samples (or no --limit for all)"),
        ("batch_size", opts.batch_size >= 1, "at least 1"),
        ("chunk_size", opts.chunk_size >= 1, "at least 1"),
        ("bootstrap", opts.bootstrap >= 0, "0 (no intervals) or more resamples"),
        ("executor", opts.executor in ("local", "ray"), "local or ray"),
        ("workers", opts.workers is None or opts.workers >= 1, "at least 1"),
        ("seed", 0 <= opts.seed < 2**32, "a whole number from 0 to 4294967295"),
    ]
    for name, ok, expected in checks:
        if not ok:
            value = getattr(opts, name)
            raise HuebenchError(f"--{name.replace('_', '-')} {value!r} is not valid: expected {expected}")
    from huebench.images import max_pixels

    max_pixels()  # a bad HUEBENCH_MAX_PIXELS is a usage error now, not a failure of every sample


def _benchmarks_for(offers: frozenset[Capability]) -> tuple[list[str], list[str]]:
    """``(uses, model_free)``: the benchmarks that use one of the capabilities in ``offers``, and
    those that need none (they score without a model)."""
    from huebench.benchmarks.base import list_benchmarks

    uses, model_free = [], []
    for name in list_benchmarks():
        try:
            needs = get_benchmark(name).capabilities
        except HuebenchError:  # a broken plugin is no suggestion
            continue
        if not needs:
            model_free.append(name)
        elif set(needs) & offers:
            uses.append(name)
    return uses, model_free


def _or(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _check_capability(bench: Benchmark, model: Model, requested: str) -> Capability | None:
    """``bench.check_model(model)``, with a refusal as one line in the user's terms: the model as
    typed (not the folder an alias resolved to), what the benchmark needs, what the model offers and
    which benchmarks it can run."""
    try:
        return bench.check_model(model)
    except CapabilityError as exc:
        offers = frozenset(model.capabilities)
        if exc.capability is not None and offers & set(bench.capabilities):  # one of them, chosen by an option
            wanted: list[Capability] = [exc.capability]
            needs = f"{exc.capability.value} with these options"
        else:
            wanted = list(bench.capabilities) or ([exc.capability] if exc.capability is not None else [])
            needs = _or([c.value for c in wanted]) if wanted else "a model"
        have = ", ".join(sorted(c.value for c in offers))
        uses, model_free = _benchmarks_for(offers)
        can = f"{requested} offers {have or 'no capability'}, so it can run " + (
            ", ".join(uses)
            if uses
            else f"only the benchmarks that need no model: {', '.join(model_free)}"
            if model_free
            else "no benchmark"
        )
        listing = f"huebench list models --capability {wanted[0].value}" if wanted else "huebench list models"
        raise CapabilityError(
            f"model {requested!r} cannot run {bench.name}: {bench.name} needs {needs}; {can}; "
            f"choose a model that offers {_or([c.value for c in wanted]) if wanted else 'it'} (`{listing}`)",
            exc.capability,
        ) from None


def _prepare_folder(run_dir: Path) -> list[Path]:
    """Create ``run_dir`` if needed; returns the folders created now, deepest first."""
    if run_dir.exists() and not run_dir.is_dir():
        raise HuebenchError(f"--out {run_dir} is a file, not a folder; choose a folder for the run")
    existed = run_dir.exists()
    made = [p for p in [run_dir, *run_dir.parents] if not p.exists()]  # removed again if nothing is recorded
    run_files = {"config.json", "records.jsonl", LOCK_NAME, "results.json", "run.json", "report.html"}
    if existed and any(run_dir.iterdir()) and not any((run_dir / n).exists() for n in run_files):
        raise HuebenchError(
            f"--out {run_dir} is a folder that holds other files, not a huebench run; "
            "give a new or empty folder (or an existing run with --resume)"
        )
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HuebenchError(
            f"--out {run_dir}: cannot create the run folder ({exc.strerror}); choose a writable place"
        ) from None
    if not os.access(run_dir, os.W_OK | os.X_OK):
        raise HuebenchError(f"--out {run_dir}: the folder is not writable; choose a writable place")
    return made


class RunInterrupted(BaseException):
    """What :func:`run` raises for Ctrl-C (KeyboardInterrupt): the run folder and how many samples
    it holds (0: nothing was kept), for the --resume hint. Like KeyboardInterrupt it is not an ``Exception``, so
    ``except Exception`` does not swallow it; unlike it, the command line's framework does not
    turn it into a bare exit status."""

    def __init__(self, run_dir: Path, n_records: int):
        super().__init__(f"interrupted: {n_records:,} samples recorded in {run_dir}")
        self.run_dir, self.n_records = run_dir, n_records


def run(opts: RunOptions, *, model: Model | None = None) -> RunResult:
    """Run (or resume) ``opts.benchmark`` with ``opts.model``; see the module doc for the folder.

    A run that fails before its first record is written leaves nothing behind that would block a
    retry (the config it wrote, and the folder when it made it, are removed)."""
    from huebench.models.registry import declared_model, load_model

    _check_run_options(opts)
    bench_cls = get_benchmark(opts.benchmark)
    bench = bench_cls(seed=opts.seed, **bench_cls.check_options(opts.benchmark_options))
    stand_in = declared_model(opts.model) if model is None else None
    if stand_in is not None:  # what the registry says the model is, checked before weights load
        _check_capability(bench, stand_in, opts.model)
    run_dir = Path(opts.out) if opts.out else Path("runs") / bench.name / _slug(opts.model)
    created = _prepare_folder(run_dir)
    was_interrupted = (run_dir / LOCK_NAME).exists()  # a killed run's mark, kept unless this run ends well
    lock = RunLock(run_dir).acquire()
    records_path = run_dir / "records.jsonl"
    config_path = run_dir / "config.json"
    wrote_config = evaluating = False
    try:
        has_records = records_path.exists() and records_path.stat().st_size > 0
        existing = None
        if has_records:
            if not opts.resume:
                raise HuebenchError(
                    f"{run_dir} already holds a run; pass --resume to continue it, or choose another --out"
                )
            if not config_path.exists():
                raise HuebenchError(
                    f"{config_path}: missing, but {records_path.name} holds records: which run they belong to "
                    "is unknown, so they cannot be resumed; start a new run in another --out"
                )
            existing = read_config(run_dir)
        removed = remove_stale_temporaries(run_dir)  # a kill during an atomic write; we hold the lock
        if model is None:
            model = load_model(
                opts.model, device=opts.device, dtype=opts.dtype, batch_size=opts.batch_size, seed=opts.seed
            )
        capability = _check_capability(bench, model, opts.model)  # None for benchmarks that need no model
        samples = bench.samples()
        if opts.limit is not None:
            samples = samples[: opts.limit]
        if not samples:
            raise HuebenchError(f"benchmark {bench.name!r} produced no samples with these options: nothing to evaluate")
        ids = [s.id for s in samples]
        if len(set(ids)) != len(ids):
            raise HuebenchError(f"benchmark {bench.name!r} produced duplicate sample ids; ids must be unique")
        hashes = {s.id: sample_hash(s.id, s.inputs) for s in samples}
        config = _config(opts, bench, model)
        config["capability"] = capability.value if capability is not None else None
        config["inputs"] = input_fingerprint(bench.input_paths(), samples, exclude=run_dir)
        config["machine_dependence"] = bench.machine_dependence(samples)
        previous = read_records(records_path)
        if existing is not None:
            _check_resumable(existing, config, run_dir, previous, hashes)
        if existing is None:
            atomic_write_json(config_path, config)
            wrote_config = True
        else:  # the run's own config stays: it passed the check, and it says which version began the run
            config = existing
        todo = [s for s in samples if previous.get(s.id, {}).get("status") != "ok"]
        evaluating = True
        with progress.enabled(opts.progress):  # the samples, and the metrics' own long work (probe training)
            result, stats = _evaluate_all(opts, bench, model, config, samples, todo, hashes, run_dir, removed)
    except BaseException as exc:
        recorded = records_path.exists() and records_path.stat().st_size > 0
        if not recorded:
            # nothing was recorded: leave no half-made run that would block the retry
            if wrote_config:
                with contextlib.suppress(OSError):
                    config_path.unlink()
            with contextlib.suppress(OSError):
                records_path.unlink()
            lock.release()
            for folder in created:  # deepest first; rmdir leaves a folder someone else filled meanwhile
                with contextlib.suppress(OSError):
                    folder.rmdir()
        else:  # the mark of an interrupted run stays if this one began evaluating or found one
            lock.release(remove=not (evaluating or was_interrupted))
        if isinstance(exc, KeyboardInterrupt):
            raise RunInterrupted(run_dir, len(read_records(records_path)) if recorded else 0) from exc
        raise
    lock.release()
    result.stats = stats
    return result


def _evaluate_all(
    opts: RunOptions,
    bench: Benchmark,
    model: Model,
    config: dict[str, Any],
    samples: list[Sample],
    todo: list[Sample],
    hashes: dict[str, str],
    run_dir: Path,
    stale_removed: list[str],
) -> tuple[RunResult, dict[str, Any]]:
    records_path = run_dir / "records.jsonl"
    ids = [s.id for s in samples]
    cache = OutputCache(None if opts.no_cache else (opts.cache or default_cache_path()))
    totals = {"hits": 0, "calls": 0, "oom_backoffs": 0}
    batch_sizes: set[int] = set()  # every batch size the model ran at (halved on out-of-memory)
    started = time.perf_counter()
    failed = 0
    in_chunk = 0  # inputs the model finished in the chunk being computed (display only)

    def detail() -> str:
        text = f"cache hits {totals['hits']:,} · model calls {totals['calls']:,} · failed {failed:,}"
        return text + (f" · this chunk: {in_chunk:,} model inputs so far" if in_chunk else "")

    phase = f": {bench.progress_phase}" if bench.progress_phase else ""
    with (
        JsonlAppender(records_path) as out,
        progress.task(
            f"{bench.name} · {model.spec}{phase}",
            total=len(samples),
            unit="samples",
            completed=len(samples) - len(todo),
            detail=detail(),
        ) as bar,
    ):

        def on_model_batch(n: int) -> None:
            nonlocal in_chunk
            in_chunk += n
            bar.update(detail=detail())

        chunks = [todo[k : k + opts.chunk_size] for k in range(0, len(todo), opts.chunk_size)]
        executor: Executor
        if opts.executor == "ray" and chunks:  # (nothing left to do: no cluster to start)
            executor = RayExecutor(
                benchmark=bench.name,
                bench_options={"seed": opts.seed, **bench.options},
                model_spec=model.spec,
                model_options={
                    "device": opts.device,
                    "dtype": opts.dtype,
                    "batch_size": opts.batch_size,
                    "seed": opts.seed,
                },
                cache_path=None if opts.no_cache else str(opts.cache or default_cache_path()),
                address=opts.ray_address,
                workers=opts.workers,
                device=opts.device,
            )
        else:
            executor = LocalExecutor(bench, model, cache)
        with progress.on_model_batch(on_model_batch):
            for recs, st in executor.map(chunks):
                totals["hits"] += st["hits"]
                totals["calls"] += st["calls"]
                batch_sizes.update(st["batch_sizes"])
                totals["oom_backoffs"] += st["oom_backoffs"]
                failed += sum(1 for r in recs if r.get("status") != "ok")
                for r in recs:  # which inputs a record answered: --resume refuses records of other inputs
                    r["input_sha256"] = hashes.get(str(r.get("id")))
                out.write_many(json_safe(r) for r in recs)  # NaN → null: records are strict JSON
                in_chunk = 0
                bar.advance(len(recs), detail=detail())

    result = finalize(run_dir, bench=bench, sample_order=ids, write_report=opts.report)
    stats = {
        "executor": opts.executor,
        "seconds": round(time.perf_counter() - started, 3),
        "samples": len(samples),
        "evaluated_now": len(todo),
        "resumed_from_records": len(samples) - len(todo),
        "cache": {
            "hits": totals["hits"],
            "model_calls": totals["calls"],
            "path": None if opts.no_cache else str(opts.cache or default_cache_path()),
        },
        "batch": {
            "requested": opts.batch_size,
            "used": sorted(batch_sizes),
            "oom_backoffs": totals["oom_backoffs"],
        },
        "failed": result.results.get("n_failed", 0),
        "stale_temporaries_removed": stale_removed,
    }
    atomic_write_json(run_dir / "run.json", stats)
    cache.close()
    return result, stats


def finalize(
    run_dir: Path,
    *,
    bench: Benchmark,
    sample_order: Sequence[str],
    write_report: bool = True,
) -> RunResult:
    """Compact records (one per sample, in sample order), compute results, write the report.
    Only the run that holds the folder's lock calls this; readers use :func:`load_run`."""
    from huebench.io import atomic_write_text

    config = read_config(run_dir)
    latest = read_records(run_dir / "records.jsonl")
    records = bench.complete_records([latest[i] for i in sample_order if i in latest])
    text = "".join(json.dumps(r, ensure_ascii=False, allow_nan=False, sort_keys=True) + "\n" for r in records)
    atomic_write_text(run_dir / "records.jsonl", text)
    results = compute_results(bench, config, records)
    atomic_write_json(run_dir / "results.json", results)
    if write_report:
        from huebench.report.html import write_run_report

        write_run_report(run_dir / "report.html", bench, config, results, records)
    return RunResult(run_dir, results, records, {})


@dataclass
class LoadedRun:
    """A run folder as read, never changed: config, records (latest per sample, file order), the
    results recomputed from them, the results.json on disk (None if missing or damaged), its state."""

    run_dir: Path
    config: dict[str, Any]
    bench: Benchmark
    records: list[dict[str, Any]]
    results: dict[str, Any]
    stored_results: dict[str, Any] | None
    state: Any


def _bench_from_config(run_dir: Path, config: dict[str, Any]) -> Benchmark:
    """The benchmark a run's config.json describes; a wrong value there is an error naming the file."""
    where = run_dir / "config.json"
    options = dict(config["benchmark_options"]) if isinstance(config["benchmark_options"], dict) else None
    if options is None:
        raise RunFolderError(f"{where}: benchmark_options is not an object; restore the file, or start a new run")
    seed = options.pop("seed", config.get("seed", 0))  # a benchmark may keep its seed to itself
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RunFolderError(f"{where}: benchmark_options.seed is {seed!r}, not a whole number; restore the file")
    try:
        cls = get_benchmark(str(config["benchmark"]))
        return cls(seed=seed, **cls.check_options(options))
    except HuebenchError as exc:
        raise RunFolderError(f"{where}: {exc}") from None


def load_run(run_dir: str | Path) -> LoadedRun:
    """Read a run folder without writing to it; works on a run still in progress (then partial)."""
    run_dir = Path(run_dir)
    config = read_config(run_dir)
    bench = _bench_from_config(run_dir, config)
    latest = read_records(run_dir / "records.jsonl")
    records = list(latest.values())
    try:
        results = compute_results(bench, config, records)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise RunFolderError(
            f"{run_dir / 'records.jsonl'}: the records lack what {bench.name}'s metrics need "
            f"({type(exc).__name__}: {exc}); they were edited or damaged: restore them, or delete the damaged "
            "lines and continue with --resume"
        ) from None
    stored = None
    with contextlib.suppress(OSError, ValueError):
        stored = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    return LoadedRun(run_dir, config, bench, records, results, stored, run_state(run_dir, config, latest))


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


def write_results(loaded: LoadedRun) -> None:
    """Replace a finished run's results.json with the results its records give; refused while the
    run is going or incomplete (its results would describe a part of it)."""
    if loaded.state.partial:
        raise HuebenchError(f"{loaded.run_dir}: not rescored: {loaded.state.describe()}; results.json is left as it is")
    atomic_write_json(loaded.run_dir / "results.json", loaded.results)


def rescore(run_dir: str | Path, *, write: bool = False) -> dict[str, Any]:
    """Recompute the results from ``records.jsonl`` and ``config.json``; no model is loaded.
    Nothing is written unless ``write`` (then as :func:`write_results`)."""
    loaded = load_run(run_dir)
    if write:
        write_results(loaded)
    return loaded.results


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
