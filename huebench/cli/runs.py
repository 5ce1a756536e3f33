"""``huebench run``, ``huebench rescore`` and ``huebench report``: the harness on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console

from huebench.benchmarks.base import list_benchmarks

console = Console()


def _parse_options(pairs: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"--option expects KEY=VALUE, got {pair!r}")
        try:
            out[key.replace("-", "_")] = json.loads(value)
        except json.JSONDecodeError:
            out[key.replace("-", "_")] = value
    return out


def _extra_options(args: list[str]) -> dict[str, object]:
    """``--probes DIR --images ROOT`` → ``{"probes": "DIR", "images": "ROOT"}`` (benchmark options)."""
    out: dict[str, object] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--") or len(arg) <= 2:
            raise typer.BadParameter(
                f"unexpected argument {arg!r}; benchmark options look like --name VALUE or -o name=VALUE"
            )
        key, sep, value = arg[2:].partition("=")
        if not sep:
            if i + 1 >= len(args) or args[i + 1].startswith("--"):
                raise typer.BadParameter(f"{arg} needs a value")
            value = args[i + 1]
            i += 1
        out.update(_parse_options([f"{key}={value}"]))
        i += 1
    return out


def run_command(
    ctx: typer.Context,
    benchmark: str = typer.Argument(..., help=f"Benchmark: {', '.join(list_benchmarks())}."),
    model: str = typer.Option(
        ...,
        "--model",
        "-m",
        help="Model alias (huebench list models) or spec: hf:…, openclip:…, diffusers:…, api:…, reference:random.",
    ),
    limit: int | None = typer.Option(None, "--limit", help="Evaluate only the first N samples."),
    out: Path | None = typer.Option(None, "--out", help="Run folder (default runs/BENCH/MODEL)."),
    batch_size: int = typer.Option(8, "--batch-size", min=1, help="Batch size; halved automatically on out-of-memory."),
    device: str = typer.Option("cpu", "--device", help="torch device: cpu, cuda, cuda:1, mps."),
    dtype: str = typer.Option("float32", "--dtype", help="float32, float16 or bfloat16."),
    seed: int = typer.Option(0, "--seed", help="Seed for sampling, bootstrap and generation."),
    resume: bool = typer.Option(
        False, "--resume", help="Continue the run in --out: finished samples are kept, failures retried."
    ),
    cache: Path | None = typer.Option(
        None,
        "--cache",
        help="Model-output cache (SQLite). Default: $HUEBENCH_CACHE or ~/.cache/huebench/outputs.sqlite.",
    ),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not read or write the model-output cache."),
    option: list[str] = typer.Option([], "--option", "-o", help="Benchmark option KEY=VALUE (repeatable)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show the progress bar."),
    as_json: bool = typer.Option(False, "--json", help="Print results.json when done."),
    chunk_size: int = typer.Option(
        32, "--chunk-size", min=1, help="Samples per durable write of records (smaller: less lost on a crash)."
    ),
    executor: str = typer.Option(
        "local", "--executor", help="local, or ray (shard over Ray actors; see docs/harness.md)."
    ),
    ray_address: str | None = typer.Option(
        None, "--ray-address", help="Address of a running Ray cluster (default: start a local one)."
    ),
    workers: int | None = typer.Option(
        None, "--workers", help="Ray actors (default: one per CPU, or per GPU with --device cuda)."
    ),
) -> None:
    """Run a benchmark against a model; writes config.json, records.jsonl, results.json, report.html."""
    from huebench.runs.runner import RunOptions, run

    opts = RunOptions(
        benchmark=benchmark,
        model=model,
        out=out,
        limit=limit,
        batch_size=batch_size,
        device=device,
        dtype=dtype,
        seed=seed,
        resume=resume,
        cache=cache,
        no_cache=no_cache,
        progress=progress,
        benchmark_options={**_parse_options(option), **_extra_options(list(ctx.args))},
        executor=executor,
        chunk_size=chunk_size,
        ray_address=ray_address,
        workers=workers,
    )
    result = run(opts)
    if as_json:
        typer.echo(json.dumps(result.results, indent=2))
        return
    console.print(
        f"[bold green]done[/]: {result.results['n']} samples scored, {result.results['n_failed']} failed → {result.run_dir}"
    )
    for key, val in result.metrics.items():
        if isinstance(val, dict) and "value" in val and "low" in val:
            console.print(f"  {key}: {val['value']:.4f}  95% CI [{val['low']:.4f}, {val['high']:.4f}]  (n={val['n']})")
    console.print(
        f"  cache hits {result.stats['cache']['hits']}, model calls {result.stats['cache']['model_calls']}, report: {result.run_dir / 'report.html'}"
    )


def rescore_command(
    run_dir: Path = typer.Argument(..., help="A run folder."),
    check: bool = typer.Option(False, "--check", help="Only compare with results.json; exit 1 if they differ."),
) -> None:
    """Recompute results.json from the stored per-sample records; no model is loaded."""
    from huebench.runs.runner import rescore

    old_path = run_dir / "results.json"
    old = json.loads(old_path.read_text(encoding="utf-8")) if old_path.exists() else None
    new = rescore(run_dir, write=not check)
    same = old == new
    if check:
        console.print(
            "results.json reproduced exactly" if same else "[red]results.json differs from the recomputed results[/]"
        )
        raise typer.Exit(0 if same else 1)
    console.print(f"rescored {run_dir}: {'unchanged' if same else 'results.json updated'}")


def report_command(
    run_dirs: list[Path] = typer.Argument(..., help="One or more run folders."),
    out: Path = typer.Option(Path("report.html"), "--out", help="Output HTML file."),
) -> None:
    """Build an HTML report: a run's own report for one folder, a comparison for several."""
    from huebench.report.html import write_multi_report
    from huebench.runs.runner import finalize

    if len(run_dirs) == 1:
        result = finalize(run_dirs[0])
        src = result.run_dir / "report.html"
        out.write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    else:
        write_multi_report(run_dirs, out)
    console.print(f"report written to {out}")
