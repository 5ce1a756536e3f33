"""``huebench prefetch``: download a run's models and datasets ahead of time (``huebench.models.prefetch``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from huebench.models.prefetch import PrefetchItem


def _target(target: str | None) -> tuple[str | None, Path | None]:
    """``(benchmark, run folder)`` from the positional argument: a run folder holds config.json."""
    if target is None:
        return None, None
    path = Path(target).expanduser()
    if (path.is_dir() and (path / "config.json").is_file()) or (path.name == "config.json" and path.is_file()):
        return None, path
    if path.is_dir():
        raise typer.BadParameter(f"{target} is a folder without config.json: give a run folder or a benchmark name")
    return target, None


def prefetch_command(
    ctx: typer.Context,
    target: str | None = typer.Argument(
        None,
        help="A benchmark (huebench list benchmarks) or a run folder, whose helper models and datasets are fetched too.",
    ),
    model: list[str] = typer.Option(
        [], "--model", "-m", help="Model alias (huebench list models) or spec (repeatable)."
    ),
    option: list[str] = typer.Option([], "--option", "-o", help="Benchmark option KEY=VALUE (repeatable)."),
    list_only: bool = typer.Option(
        False, "--list", "--dry-run", help="Print what would be fetched and the offline command; no network."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the plan (and where things went) as JSON."),
) -> None:
    """Download the Hub models and datasets a run needs, on a connected machine, so the run works offline
    with HF_HUB_OFFLINE=1. Benchmark options go as on `huebench run` (-o KEY=VALUE or --KEY VALUE).

    Example: huebench prefetch colorswap -m clip-vit-b32 --data hf:stanfordnlp/colorswap"""
    from huebench.models.prefetch import hf_home, plan_prefetch, prefetch, read_run_config

    benchmark, run = _target(target)
    from huebench.cli.runs import options_from_command_line

    options = options_from_command_line(option, list(ctx.args))
    models = list(model)
    if run is not None:
        if options:
            raise typer.BadParameter("a run folder brings its own options: give the folder, or a benchmark and options")
        benchmark, options, run_model = read_run_config(run)
        models = [run_model, *models]
    bench_cls = None
    if benchmark is not None:
        from huebench.benchmarks.base import get_benchmark

        bench_cls = get_benchmark(benchmark)
    plan = plan_prefetch(models, bench_cls, options)

    if list_only:
        if as_json:
            typer.echo(json.dumps(plan.as_dict(), indent=2))
            return
        for item in plan.items:
            where = f" (in the cache: {item.where})" if item.fetch and item.where else ""
            typer.echo(_line("would fetch" if item.fetch else "nothing to fetch", item, where))
    else:

        def say(item: PrefetchItem, where: str) -> None:
            if not as_json:
                typer.echo(
                    _line("fetched" if item.fetch else "nothing to fetch", item, f" -> {where}" if where else "")
                )

        done = prefetch(plan, on_item=say)
        if as_json:
            data = plan.as_dict()
            for row, (_, where) in zip(data["items"], done, strict=True):
                row["where"] = where
            typer.echo(json.dumps(data, indent=2))
            return
    if not any(i.fetch for i in plan.items):
        typer.echo("Nothing to download; this works offline as it is:")
    else:
        then = "Then, offline" if list_only else "Offline"
        typer.echo(f"{then} (on this machine, or on one with a copy of {hf_home()} at the same path):")
    for line in plan.offline_commands():
        typer.echo(f"  {line}")


def _line(verb: str, item: PrefetchItem, tail: str) -> str:
    """``would fetch  model     detector  grounding-dino = hf:IDEA-Research/… [hub]`` and where it is."""
    name = item.requested if item.spec == item.requested else f"{item.requested} = {item.spec}"
    return f"{verb:<16} {item.kind:<7} {item.role:<10} {name} [{item.source}]{tail}"
