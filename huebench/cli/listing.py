"""``huebench list``: what huebench knows about."""

from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.table import Table

from huebench.color import SYSTEM_NAMES, load_system

app = typer.Typer(no_args_is_help=True)


@app.command("systems")
def systems(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List the colour-naming systems and their sizes."""
    rows = [{"name": n, "title": load_system(n).title, "size": len(load_system(n))} for n in SYSTEM_NAMES]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table("system", "colours", "description")
    for r in rows:
        table.add_row(str(r["name"]), str(r["size"]), str(r["title"]))
    Console().print(table)
