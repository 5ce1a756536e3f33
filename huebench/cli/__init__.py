"""The ``huebench`` command: a thin layer over the Python API.

Subcommand groups: ``color`` (colour core), ``list``, ``run``, ``rescore``, ``report``, ``recolor``, ``prefetch``, and one per
benchmark folder that has a ``cli.py`` (``huebench/benchmarks/<folder>/cli.py``, whose ``app`` becomes
``huebench <folder>``: ``rainbow``, ``coda``, ``colorswap``, ``gencolor``). A third-party package adds
a group through the ``huebench.cli`` entry-point group (``name = "package.module:app"``, a
``typer.Typer``); it is imported only when its group is invoked or the top-level help is shown.
Every module imported here stays light: no torch, no model code until a command runs.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
from collections.abc import Sequence

import typer

from huebench import __version__
from huebench import benchmarks as _benchmarks
from huebench.cli.color import app as color_app
from huebench.cli.listing import app as list_app
from huebench.cli.prefetch import prefetch_command
from huebench.cli.recolor import recolor_command
from huebench.cli.runs import report_command, rescore_command, run_command

#: third-party command groups: ``name = "package.module:app"`` (a ``typer.Typer``)
CLI_ENTRY_POINT_GROUP = "huebench.cli"

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


def benchmark_cli_modules() -> list[str]:
    """The built-in benchmark folders with a command group: ``huebench.benchmarks.<folder>.cli``."""
    return [
        f"{_benchmarks.__name__}.{info.name}.cli"
        for info in pkgutil.iter_modules(_benchmarks.__path__)
        if info.ispkg and importlib.util.find_spec(f"{_benchmarks.__name__}.{info.name}.cli") is not None
    ]


app.add_typer(color_app, name="color", help="Colour core: parse, convert, name and compare colours.")
app.add_typer(list_app, name="list", help="List benchmarks, models and colour systems.")
app.command(
    "run",
    help="Run a benchmark against a model. Benchmark options go as -o KEY=VALUE or as --KEY VALUE (e.g. --probes DIR --images ROOT).",
    epilog="The options of a benchmark: huebench list options BENCH. Its input files, each with an example and "
    "every field: docs/rainbow.md, docs/coda.md, docs/colorswap.md, docs/gencolor.md.",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)(run_command)
app.command("rescore", help="Recompute results.json from a run's records (no model).")(rescore_command)
app.command("report", help="Build an HTML report from one or more run folders.")(report_command)
app.command("recolor", help="Turn the hue of an image or of an object in it (CIELCh or HSV).")(recolor_command)
app.command(
    "prefetch",
    short_help="Download a run's models and datasets ahead of time, to run offline (HF_HUB_OFFLINE=1).",
    help="Download the models and datasets a run needs ahead of time (on a connected machine), to run with "
    "HF_HUB_OFFLINE=1: huebench prefetch colorswap -m clip-vit-b32 --data hf:stanfordnlp/colorswap. "
    "--list shows what, without network. Benchmark options as on `huebench run`; or give a run folder.",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)(prefetch_command)
for _module in benchmark_cli_modules():  # each group's help is its Typer's own
    app.add_typer(importlib.import_module(_module).app, name=_module.split(".")[-2])


def _command_names() -> set[str]:
    names = {group.name for group in app.registered_groups}
    names.update(cmd.name or cmd.callback.__name__ for cmd in app.registered_commands if cmd.callback)
    return {n for n in names if n}


def add_plugin_commands(argv: Sequence[str] = ()) -> list[str]:
    """Add the command groups that installed packages declare under the ``huebench.cli`` entry-point
    group. Only the group ``argv`` invokes is imported; all of them for the top-level help (no
    command given). A built-in name is never taken over. Returns the names added.

    A group that fails to import is a one-line error when invoked, and left out of the help."""
    from importlib import metadata

    from huebench.errors import HuebenchError

    words = [a for a in argv if not a.startswith("-")]
    taken = _command_names()
    if words and words[0] in taken:
        return []  # a built-in command: no plugin is imported
    added = []
    for ep in metadata.entry_points(group=CLI_ENTRY_POINT_GROUP):
        if ep.name in taken or (words and ep.name != words[0]):
            continue
        try:
            sub = ep.load()
            if not isinstance(sub, typer.Typer):
                raise TypeError(f"{ep.value} is {type(sub).__name__}, not a typer.Typer")
        except Exception as exc:
            message = (
                f"command group {ep.name!r} (entry point {ep.value!r} in group {CLI_ENTRY_POINT_GROUP!r}) "
                f"could not be loaded: {type(exc).__name__}: {exc}"
            )
            if words:
                raise HuebenchError(message) from exc
            print(f"warning: {message}", file=sys.stderr)
            continue
        app.add_typer(sub, name=ep.name)
        taken.add(ep.name)
        added.append(ep.name)
    return added


def main() -> None:
    """Console entry point: user errors print a one-line message and exit with status 2."""
    from huebench.cli._errors import run_app

    run_app(app, before=lambda: add_plugin_commands(sys.argv[1:]))
