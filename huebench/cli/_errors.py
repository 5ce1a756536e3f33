"""Turn deliberate huebench errors into a clean one-line message instead of a traceback."""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from huebench.errors import HuebenchError


def run_app(app: typer.Typer) -> None:
    try:
        app(standalone_mode=True)
    except HuebenchError as exc:
        Console(stderr=True).print(f"[bold red]error:[/] {exc}", highlight=False, markup=True)
        sys.exit(2)
