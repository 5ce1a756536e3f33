"""``huebench run``, ``huebench rescore`` and ``huebench report``: the harness on the command line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from huebench.report.html import fmt_num, fmt_percent, proportion_scale

if TYPE_CHECKING:
    from huebench.runs.runner import RunResult

console = Console(soft_wrap=True)  # long paths stay on one line in logs


def _parse_options(pairs: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"--option expects KEY=VALUE, got {pair!r}")
        name = key.replace("-", "_")
        if name in out:
            raise typer.BadParameter(f"benchmark option {key!r} is given twice; give it once")
        out[name] = value  # as typed: the benchmark's declared option type converts it (1.10 stays "1.10")
    return out


def _merge_options(*parts: dict[str, object]) -> dict[str, object]:
    out: dict[str, object] = {}
    for part in parts:
        twice = sorted(part.keys() & out.keys())
        if twice:
            raise typer.BadParameter(
                f"benchmark option {twice[0]!r} is given twice (as -o and as a flag); give it once"
            )
        out.update(part)
    return out


def _extra_options(args: list[str]) -> dict[str, object]:
    """``--probes DIR --images ROOT --quick`` → ``{"probes": "DIR", "images": "ROOT", "quick":
    FLAG_WITHOUT_VALUE}`` (benchmark options)."""
    from huebench.benchmarks.base import FLAG_WITHOUT_VALUE

    out: dict[str, object] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--") or len(arg) <= 2:
            raise typer.BadParameter(
                f"unexpected argument {arg!r}; benchmark options look like --name VALUE or -o name=VALUE"
            )
        if arg == "--debug":
            raise typer.BadParameter("--debug goes before the command: `huebench --debug run …`")
        key, sep, value = arg[2:].partition("=")
        if not sep and (i + 1 >= len(args) or args[i + 1].startswith("--")):
            # a bare flag: true for a yes/no option (--no-KEY: false); the benchmark's option types
            # decide, and any other option says it needs a value
            one: dict[str, object] = {key.replace("-", "_"): FLAG_WITHOUT_VALUE}
        else:
            if not sep:
                value = args[i + 1]
                i += 1
            one = _parse_options([f"{key}={value}"])
        if one.keys() & out.keys():
            raise typer.BadParameter(f"benchmark option {arg!r} is given twice; give it once")
        out.update(one)
        i += 1
    return out


def options_from_command_line(pairs: list[str], args: list[str]) -> dict[str, object]:
    """Benchmark options from ``-o KEY=VALUE`` (``pairs``) and ``--KEY VALUE`` / ``--KEY=VALUE``
    (``args``), values as typed (the benchmark's declared option types convert them); an option
    given twice is an error. ``huebench run`` and ``huebench prefetch`` read options this way."""
    return _merge_options(_parse_options(pairs), _extra_options(args))


def run_command(
    ctx: typer.Context,
    benchmark: str = typer.Argument(..., help="Benchmark: a name from `huebench list benchmarks`."),
    model: str = typer.Option(
        ...,
        "--model",
        "-m",
        help="Model alias (huebench list models) or spec: hf:…, openclip:…, diffusers:…, api:…, reference:random.",
    ),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Evaluate only the first N samples."),
    out: Path | None = typer.Option(None, "--out", help="Run folder (default runs/BENCH/MODEL)."),
    batch_size: int = typer.Option(8, "--batch-size", min=1, help="Batch size; halved automatically on out-of-memory."),
    device: str = typer.Option("cpu", "--device", help="torch device: cpu, cuda, cuda:1, mps, xpu."),
    dtype: str = typer.Option(
        "float32", "--dtype", help="float32 (default), float16 or bfloat16 (float64 is not supported)."
    ),
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
    """Run a benchmark against a model; writes config.json, records.jsonl, results.json, report.html.
    Exit status: 0 every sample scored, 1 some failed, 2 usage or input error."""
    from huebench.runs.runner import RunOptions, run

    if cache is not None and no_cache:
        raise typer.BadParameter("--cache and --no-cache exclude each other; give one")
    if executor != "ray" and (workers is not None or ray_address is not None):
        raise typer.BadParameter("--workers and --ray-address go with --executor ray")

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
        benchmark_options=options_from_command_line(option, list(ctx.args)),
        executor=executor,
        chunk_size=chunk_size,
        ray_address=ray_address,
        workers=workers,
    )
    result = run(opts)
    if as_json:
        typer.echo(json.dumps(result.results, indent=2))
    else:
        print_summary(result.results, result.run_dir, result.records, report=result.run_dir / "report.html")
        console.print(
            f"  cache hits {result.stats['cache']['hits']}, model calls {result.stats['cache']['model_calls']}"
        )
    raise typer.Exit(1 if result.results["n_failed"] else 0)


def print_summary(
    results: dict[str, Any],
    run_dir: Path,
    records: list[dict[str, Any]],
    *,
    report: Path | None,
    partial: bool = False,
    finished: str = "done",
) -> None:
    """The one summary every run-level command ends with: counts, headline metrics with intervals,
    where the failures' reasons are, the report."""
    n, n_failed = results["n"], results["n_failed"]
    colour = "red" if not n else "yellow" if n_failed else "green"
    head = "[bold yellow]partial[/]" if partial else f"[bold {colour}]{finished}[/]"
    console.print(f"{head}: {n} samples scored, {n_failed} failed → {run_dir}", highlight=False)
    for key, val in _headline(results):
        if isinstance(val, dict) and "value" in val and "low" in val:
            scale = proportion_scale(results["benchmark"], key)  # accuracies read as percentages everywhere
            value, low, high = (
                fmt_num(val[k], 4) if scale is None else fmt_percent(val[k], scale, unit=False)
                for k in ("value", "low", "high")
            )
            unit = "" if scale is None else " %"
            console.print(
                f"  {key}: {value}{unit}  95% CI [{low}, {high}]  (n={val.get('n', n)})",
                highlight=False,
            )
    if n_failed:
        console.print("  " + _failures_line(records, run_dir), highlight=False, markup=False)
    if report is not None:
        console.print(f"  report: {report}", highlight=False)


def _headline(results: dict[str, Any]) -> list[tuple[str, Any]]:
    """The summary's metrics: the benchmark's ``headline`` paths where it names them (nested
    results), else every top-level metric."""
    from huebench.benchmarks.base import get_benchmark
    from huebench.errors import HuebenchError

    metrics = results.get("metrics") or {}
    try:
        paths = get_benchmark(str(results.get("benchmark"))).headline
    except HuebenchError:  # a run of a benchmark that is not installed here: its top level
        paths = ()
    if not paths:
        return list(metrics.items())
    out = []
    for path in paths:
        val: Any = metrics
        for part in path.split("/"):
            val = val.get(part) if isinstance(val, dict) else None
        if val is not None:
            out.append((path, val))
    return out


#: the detail in a failure reason that varies between samples of one kind of failure: paths, numbers
_REASON_DETAIL = re.compile(r"\S*[/\\]\S*|\b\d+(?:\.\d+)?\b")


def _failures_line(records: list[dict[str, object]], run_dir: Path) -> str:
    from collections import Counter

    failed = [str(r.get("reason", "")).split("\n")[0] for r in records if r.get("status") != "ok"]
    # reasons that differ only in a file name or a number are one kind of failure
    kinds = Counter(_REASON_DETAIL.sub("…", reason) for reason in failed)
    top, count = kinds.most_common(1)[0]
    example = next(reason for reason in failed if _REASON_DETAIL.sub("…", reason) == top)
    return (
        f'{len(failed)} failed: reasons in {run_dir / "records.jsonl"} (status "error") and the report; '
        f"most common ({count}×): {example[:240]}" + (f" (and {count - 1} like it)" if count > 1 else "")
    )


def end_run(result: RunResult) -> None:
    """End a benchmark command that printed its own headline: failures and where their reasons
    are, the report, and the exit status (0 all scored, 1 some failed)."""
    res = result.results
    run_dir = result.run_dir
    if res["n_failed"]:
        console.print(_failures_line(result.records, run_dir), highlight=False, markup=False)
    console.print(f"report: {run_dir / 'report.html'}", highlight=False)
    raise typer.Exit(1 if res["n_failed"] else 0)


def rescore_command(
    run_dir: Path = typer.Argument(..., help="A run folder."),
    check: bool = typer.Option(False, "--check", help="Only compare with results.json; exit 1 if they differ."),
    write: bool = typer.Option(False, "--write", help="Write the recomputed results.json (a finished run only)."),
) -> None:
    """Recompute a run's results from its stored per-sample records; no model is loaded. Read-only
    unless --write."""
    from huebench.runs.runner import load_run, write_results

    if check and write:
        raise typer.BadParameter("--check and --write exclude each other")
    loaded = load_run(run_dir)
    old = loaded.stored_results
    if write:
        write_results(loaded)
    new = loaded.results
    same = old == new
    if check:
        if loaded.state.partial:
            console.print(f"[red]not checked[/]: {loaded.state.describe()}", highlight=False)
            raise typer.Exit(1)
        console.print(
            "results.json reproduced exactly" if same else "[red]results.json differs from the recomputed results[/]"
        )
        raise typer.Exit(0 if same else 1)
    if write:
        console.print(f"rescored {run_dir}: {'unchanged' if same else 'results.json updated'}")
    else:
        print_summary(new, run_dir, loaded.records, report=None, partial=loaded.state.partial)
        if loaded.state.partial:
            console.print(f"  {loaded.state.describe()}; results.json is left as it is", highlight=False)
        else:
            console.print(f"  results.json {'matches' if same else 'differs; --write replaces it'}", highlight=False)
    raise typer.Exit(1 if new["n_failed"] else 0)


def report_command(
    run_dirs: list[Path] = typer.Argument(..., help="One or more run folders."),
    out: Path | None = typer.Option(
        None,
        "--out",
        help="Output HTML file (default: the run's own report.html for one run — ./report.html while it is "
        "still going — and ./report.html for several).",
    ),
) -> None:
    """Build an HTML report from one or more run folders; nothing else in them is written (a run
    still going, or stopped early, is reported as partial)."""
    from huebench.report.html import write_multi_report, write_run_report
    from huebench.runs.runner import load_run

    runs = [load_run(d) for d in run_dirs]
    if out is None:
        # one run: its report lives in its folder — unless the run is still writing there
        out = (
            runs[0].run_dir / "report.html"
            if len(runs) == 1 and runs[0].state.status != "running"
            else Path("report.html")
        )
    if out.exists() and out.is_dir():
        raise typer.BadParameter(f"--out {out} is a folder; give the HTML file to write")
    for r in runs:
        if out.resolve() in (
            (r.run_dir / n).resolve() for n in ("config.json", "records.jsonl", "results.json", "run.json", "run.lock")
        ):
            raise typer.BadParameter(f"--out {out} would overwrite a run file; give another HTML file")
    if len(runs) == 1:
        r = runs[0]
        # the report shows what the records say; results.json is only compared
        write_run_report(out, r.bench, r.config, r.results, r.records, status=r.state.describe())
        print_summary(r.results, r.run_dir, r.records, report=out, partial=r.state.partial, finished="complete run")
        if r.state.partial:
            console.print(f"  [yellow]{r.state.describe()}[/]", highlight=False)
        elif r.stored_results != r.results:
            console.print(
                f"  [yellow]results.json differs from what the records give (edited or out of date); the report "
                f"shows the records' results: `huebench rescore {r.run_dir} --write` updates it[/]",
                highlight=False,
            )
    else:
        write_multi_report(runs, out)
        for r in runs:
            console.print(
                f"  {r.run_dir}: {r.results['n']} scored, {r.results['n_failed']} failed, {r.state.describe()}"
            )
        console.print(f"report written to {out}")
