"""``huebench list``: what huebench knows about."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TypedDict

import typer
from rich.console import Console
from rich.table import Column, Table

app = typer.Typer(no_args_is_help=True)


class _BenchmarkRow(TypedDict):
    name: str
    description: str
    capabilities: list[str]
    source: str


@app.command("systems")
def systems(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List the colour-naming systems and their sizes."""
    from huebench.color import SYSTEM_NAMES, load_system

    rows = [{"name": n, "title": load_system(n).title, "size": len(load_system(n))} for n in SYSTEM_NAMES]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table("system", "colours", "description")
    for r in rows:
        table.add_row(str(r["name"]), str(r["size"]), str(r["title"]))
    Console().print(table)


@app.command("benchmarks")
def benchmarks(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List the benchmarks (built-in and from installed plugins) and the capabilities they can use."""
    from huebench.benchmarks.base import benchmark_source, get_benchmark, list_benchmarks
    from huebench.errors import HuebenchError

    rows: list[_BenchmarkRow] = []
    for name in list_benchmarks():
        source = benchmark_source(name)
        try:
            cls = get_benchmark(name)
        except HuebenchError as exc:
            if source == "huebench":
                raise
            # a broken plugin is listed with its error rather than hiding the others
            rows.append({"name": name, "description": f"(not loaded: {exc})", "capabilities": [], "source": source})
            continue
        rows.append(
            {
                "name": name,
                "description": cls.description,
                "capabilities": [c.value for c in cls.capabilities],
                "source": source,
            }
        )
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    plugins = any(r["source"] != "huebench" for r in rows)  # the "from" column only says something then
    table = Table("benchmark", "capabilities (any of)", "description", *(["from"] if plugins else []))
    for r in rows:
        table.add_row(r["name"], ", ".join(r["capabilities"]), r["description"], *([r["source"]] if plugins else []))
    Console().print(table)


@app.command("models")
def models(
    as_json: bool = typer.Option(False, "--json", help="Print JSON: alias, source, capabilities, …"),
    capability: str | None = typer.Option(None, "--capability", help="Only models with this capability."),
) -> None:
    """List the model aliases: the models the four papers evaluated, and how to load them. "loads from"
    says where an alias resolves now: an installed offline package (no Hub call), the Hub, an API, a
    plugin or built in; --json also gives the spec it resolves to (resolves_to)."""
    from huebench.models.registry import entries

    rows = [e.as_dict() for e in entries() if capability is None or capability in [c.value for c in e.capabilities]]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    header = ("alias", "source", "loads from", "capabilities", "paper", "notes")
    cells = [
        (
            r["alias"],
            r["source"],
            r["loads_from"],
            ", ".join(r["capabilities"]),
            r["paper"],
            ("plugin needed; " if r["plugin_only"] else "") + r["notes"],
        )
        for r in rows
    ]
    if not sys.stdout.isatty():  # logs and pipes: one whole line per model, nothing cut to a width
        typer.echo(_aligned(header, cells))
        return
    console = Console()
    # the table needs each alias and hub id whole (they are copied into commands) and the longest
    # word of every other column, plus padding and borders (3 characters a column, and one)
    whole = [max(len(x) for x in column) for column in zip(header[:2], *(c[:2] for c in cells), strict=True)]
    words = [
        max(len(w) for x in column for w in [*x.split(), ""])
        for column in zip(header[2:], *(c[2:] for c in cells), strict=True)
    ]
    if sum(whole) + sum(words) + 3 * len(header) + 1 <= console.width:
        table = Table(
            *(Column(h, no_wrap=True) for h in header[:2]),
            *(Column(h, overflow="fold") for h in header[2:-1]),
            Column(header[-1], overflow="fold", ratio=1),  # the notes take the room the others leave
        )
        for c in cells:
            table.add_row(*c)
        console.print(table)  # every cell whole or wrapped between words
        return
    # too narrow for the columns side by side: one block per model, each field whole or wrapped
    console.print(_blocks(header, cells, console.width), soft_wrap=True, highlight=False, markup=False)


def _blocks(header: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> str:
    """One block per row: the first cell, then the others indented, labelled and wrapped between words
    to ``width`` (a cell longer than a line on its own is folded, never cut)."""
    import textwrap

    label = max(len(h) for h in header[1:]) + 2
    out = []
    for row in rows:
        out.append(row[0])
        for name, cell in zip(header[1:], row[1:], strict=True):
            if cell:
                out += textwrap.wrap(
                    cell,
                    width=max(width, label + 20),
                    initial_indent=f"  {name + ':':<{label}}",
                    subsequent_indent=" " * (label + 2),
                    break_on_hyphens=False,
                )
    return "\n".join(out)


def _aligned(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, two spaces apart; lines as long as they need to be."""
    widths = [max(len(x) for x in column) for column in zip(header, *rows, strict=True)]
    return "\n".join(
        "  ".join(x.ljust(w) for x, w in zip(line, widths, strict=True)).rstrip() for line in [header, *rows]
    )


@app.command("options")
def options(
    benchmark: str = typer.Argument(..., help="A benchmark (huebench list benchmarks)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List a benchmark's options (-o NAME=VALUE or --NAME VALUE on `huebench run`): type, default and
    what it does (where the benchmark says)."""
    from huebench.benchmarks.base import get_benchmark

    cls = get_benchmark(benchmark)
    rows = [
        {
            "name": s.name,
            "type": s.kind + (" or null" if s.nullable else ""),
            "default": s.default,
            **({"help": s.help} if s.help else {}),
        }
        for s in cls.option_specs().values()
        if s.name not in cls.internal_options  # records config.json keeps, not settings
    ]
    if as_json:
        typer.echo(json.dumps(rows, indent=2, default=str))
        return
    described = any("help" in r for r in rows)
    table = Table("option", "type", "default", *(["help"] if described else []), title=f"{cls.name}: {cls.description}")
    for r in rows:
        default = "" if r["default"] is None else repr(r["default"])
        table.add_row(r["name"], r["type"], default, *([r.get("help", "")] if described else []))
    Console().print(table)
