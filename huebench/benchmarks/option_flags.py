"""Flags for a benchmark's options on a benchmark's own command, made from the options it declares.

A benchmark declares its options once: the named parameters of its ``__init__`` (name, type,
default) and its ``option_help`` (:meth:`huebench.benchmarks.base.Benchmark.option_specs`).
``huebench run BENCH --NAME VALUE`` reads them; so do the commands of a benchmark's own group
(``huebench gencolor score``), whose class :func:`benchmark_options_command` makes one flag per option::

    @app.command("score", cls=benchmark_options_command("gencolorbench", flags={"candidate_rule": "--candidates"}))
    def score_command(ctx: typer.Context, out: Path = typer.Option(..., "--out")) -> None:
        options = benchmark_options(ctx)  # {option name: value} for every option flag

An option added to the benchmark is a flag of the command with no edit here. The flags are made the
first time the command parses its arguments or shows its help, not when ``huebench`` starts: typer
builds every command of every group on each invocation, and the benchmark's module imports NumPy and
the colour core, which ``huebench --help`` should not pay for.
"""

from __future__ import annotations

import inspect
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, ClassVar

import typer
from typer.core import TyperCommand

__all__ = ["BenchmarkOptionsCommand", "benchmark_options", "benchmark_options_command"]

#: where the command's class leaves the benchmark option values for the command (``ctx.meta``)
_VALUES = "huebench.benchmark_options"


def benchmark_options(ctx: typer.Context) -> dict[str, Any]:
    """The benchmark option values of a command made by :func:`benchmark_options_command`, by option
    name (path options as text, as ``huebench run`` passes them)."""
    return dict(ctx.meta[_VALUES])


def benchmark_options_command(
    benchmark: str,
    *,
    flags: Mapping[str, str] | None = None,
    required: Collection[str] = (),
    not_flags: Mapping[str, str] | None = None,
    help: Mapping[str, str] | None = None,
) -> type[BenchmarkOptionsCommand]:
    """A typer command class (``@app.command(cls=…)``) that adds one flag per option of ``benchmark``
    before the command's own.

    Each flag has the option's type (``int``, ``float``, text; a path for an option annotated with
    ``Path``; a ``--NAME/--no-NAME`` switch for a ``bool``; lists and structured values as text that
    the option's type reads, e.g. ``--tasks cna,coa``), its default and its help.

    ``flags``: option → its flag where that is not ``--option-name``.
    ``required``: options the command cannot run without. ``not_flags``: options the command sets
    itself or that are not settings, option → why. ``help``: option → what this command says about
    it, where the benchmark describes it otherwise or not at all. Every name given must be an option
    of the benchmark, so a renamed option cannot leave a stale entry here.
    """
    attributes = {
        "benchmark": benchmark,
        "flags": dict(flags or {}),
        "required": frozenset(required),
        "not_flags": dict(not_flags or {}),
        "help_overrides": dict(help or {}),
    }
    return type(f"OptionsOf_{benchmark}", (BenchmarkOptionsCommand,), attributes)


class BenchmarkOptionsCommand(TyperCommand):
    """A command with flags for a benchmark's options: made by :func:`benchmark_options_command`,
    whose arguments are its class attributes."""

    benchmark: ClassVar[str]
    flags: ClassVar[dict[str, str]]
    required: ClassVar[frozenset[str]]
    not_flags: ClassVar[dict[str, str]]
    help_overrides: ClassVar[dict[str, str]]
    #: the options that have flags; None until the flags are made
    option_names: tuple[str, ...] | None = None

    def get_params(self, ctx: Any) -> list[Any]:
        if self.option_names is None:  # the first parse or help: import the benchmark, make its flags
            params = _option_params(self.benchmark, self.flags, self.required, self.not_flags, self.help_overrides)
            taken = {opt for p in self.params for opt in p.opts}
            clash = sorted(opt for p in params for opt in p.opts if opt in taken)
            if clash:
                raise TypeError(f"{self.name}: flags {clash} are the command's own and options of {self.benchmark}")
            self.params = [*params, *self.params]  # what the benchmark does first, then how the run goes
            self.option_names = tuple(p.name for p in params if p.name)
        return list(super().get_params(ctx))

    def invoke(self, ctx: Any) -> Any:
        # the option values go to the command through ctx.meta, not as arguments of its function,
        # whose signature typer reads when it builds the command (before the flags exist)
        values = {name: ctx.params.pop(name) for name in self.option_names or ()}
        ctx.meta[_VALUES] = {k: str(v) if isinstance(v, Path) else v for k, v in values.items()}
        return super().invoke(ctx)


def _option_params(
    benchmark: str,
    flags: Mapping[str, str],
    required: Collection[str],
    not_flags: Mapping[str, str],
    help: Mapping[str, str],
) -> list[Any]:
    """The click parameters of ``benchmark``'s options, made by typer from a signature built for them
    (so that they parse, convert and show help exactly as hand-written ``typer.Option``s would)."""
    from huebench.benchmarks.base import get_benchmark

    specs = get_benchmark(benchmark).option_specs()
    for what, names in (("flags", flags), ("required", required), ("not_flags", not_flags), ("help", help)):
        unknown = sorted(set(names) - set(specs))
        if unknown:
            raise TypeError(f"{what} names {unknown}, which are not options of {benchmark} ({', '.join(specs)})")
    parameters, annotations = [], {}
    for name, spec in specs.items():
        if name in not_flags:
            continue
        annotation: Any = {"int": int, "float": float, "bool": bool}.get(spec.kind, str)
        if spec.kind == "str" and "Path" in spec.annotation:
            annotation = Path
        if spec.nullable:
            annotation = annotation | None
        decls = [flags[name]] if name in flags else []  # else typer's: --option-name, --option/--no-option
        if spec.kind == "bool" and decls:
            decls = [f"{decls[0]}/--no-{decls[0][2:]}"]
        default = ... if name in required else spec.default
        option = typer.Option(default, *decls, help=help.get(name, spec.help) or None)
        parameters.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option))
        annotations[name] = annotation

    def options(**values: Any) -> None:
        """Never called: typer reads its signature."""

    options.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]  # read by inspect.signature
    options.__annotations__ = annotations
    app = typer.Typer(add_completion=False)
    app.command()(options)
    return list(typer.main.get_command(app).params)
