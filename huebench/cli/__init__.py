"""The ``huebench`` command: a thin layer over the Python API.

Subcommand groups: ``color`` (colour core), ``list``, ``run``, ``report``, and one per
benchmark (``rainbow``, ``coda``, ``colorswap``, ``gencolor``). Each group lives in its own
module; this one assembles them.
"""

from __future__ import annotations

import typer

from huebench import __version__
from huebench.cli.coda import app as coda_app
from huebench.cli.color import app as color_app
from huebench.cli.colorswap import app as colorswap_app
from huebench.cli.gencolor import app as gencolor_app
from huebench.cli.listing import app as list_app
from huebench.cli.rainbow import app as rainbow_app
from huebench.cli.runs import report_command, rescore_command, run_command

app = typer.Typer(
    name="huebench",
    help="Measure how well language, vision-language and text-to-image models understand colour.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"huebench {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
    debug: bool = typer.Option(False, "--debug", help="Show the full traceback of any error."),
) -> None:
    """Measure how well language, vision-language and text-to-image models understand colour.

    Exit status: 0 all done; 1 some samples failed (the summary says where the reasons are);
    2 usage or input error (one line says what, where and how to fix); 3 an internal error.
    """
    from huebench.cli import _errors

    _errors.DEBUG = debug


app.add_typer(color_app, name="color", help="Colour core: parse, convert, name and compare colours.")
app.add_typer(list_app, name="list", help="List benchmarks, models and colour systems.")
app.add_typer(
    coda_app, name="coda", help="CoDa: build the dataset, reporting bias, corpus counts, representation probes."
)
app.add_typer(rainbow_app, name="rainbow", help="Rainbow: import captions, build probes, language-only baseline.")
app.add_typer(colorswap_app, name="colorswap", help="ColorSwap: rescore VLM answers, convert logs, fine-tune.")

app.command(
    "run",
    help="Run a benchmark against a model. Benchmark options go as -o KEY=VALUE or as --KEY VALUE (e.g. --probes DIR --images ROOT).",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)(run_command)
app.command("rescore", help="Recompute results.json from a run's records (no model).")(rescore_command)
app.command("report", help="Build an HTML report from one or more run folders.")(report_command)

app.add_typer(
    gencolor_app, name="gencolor", help="GenColorBench: score an image's colour; known-colour scorer diagnostic."
)


def main() -> None:
    """Console entry point: user errors print a one-line message and exit with status 2."""
    from huebench.cli._errors import run_app

    run_app(app)
