"""The interface every benchmark implements, and the registry of benchmarks.

A benchmark turns options into *samples* (stable ids + JSON-able inputs), evaluates a chunk of
samples with a model through a :class:`~huebench.runs.runner.RunContext` (which caches every
model call), and turns per-sample *records* into metrics. ``metrics`` must be a pure function of
the records and options: ``huebench rescore`` recomputes ``results.json`` from the records
alone, without a model.
"""

from __future__ import annotations

import inspect
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from huebench._suggest import suggestion_text
from huebench.errors import HuebenchError, UnknownNameError
from huebench.models.base import Capability

if TYPE_CHECKING:
    from huebench.models.base import Model
    from huebench.report.html import Section
    from huebench.runs.runner import RunContext

__all__ = ["Benchmark", "OptionSpec", "Sample", "get_benchmark", "list_benchmarks", "register"]


@dataclass(frozen=True)
class Sample:
    id: str
    inputs: dict[str, Any] = field(default_factory=dict)


#: options every run has (``huebench run`` flags), not the benchmark's own: said apart in suggestions
RUN_FLAGS = (
    "model", "limit", "out", "batch-size", "device", "dtype", "seed", "resume", "cache", "no-cache",
    "option", "progress", "no-progress", "json", "chunk-size", "executor", "ray-address", "workers", "debug",
)  # fmt: skip


@dataclass(frozen=True)
class OptionSpec:
    """One benchmark option, read from the benchmark's ``__init__`` signature: its name, the type
    its annotation declares (``int``, ``float``, ``bool``, ``str``, ``list`` or ``any``), whether
    ``None`` is allowed, and its default."""

    name: str
    kind: str
    nullable: bool
    default: Any
    annotation: str

    def coerce(self, value: Any, benchmark: str) -> Any:
        """``value`` as this option's type, or a one-line error saying what was expected."""
        if value is None:
            if self.nullable or self.default is None:
                return None
            raise self._bad(value, benchmark)
        kind = self.kind
        if kind == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("true", "yes", "1", "on"):
                return True
            if text in ("false", "no", "0", "off"):
                return False
            raise self._bad(value, benchmark)
        if kind == "int":
            if isinstance(value, bool):
                raise self._bad(value, benchmark)
            if isinstance(value, int):
                return value
            if isinstance(value, float) and value.is_integer():
                return int(value)
            try:
                return int(str(value).strip())
            except ValueError:
                raise self._bad(value, benchmark) from None
        if kind == "float":
            if isinstance(value, bool):
                raise self._bad(value, benchmark)
            try:
                return float(value)
            except (TypeError, ValueError):
                raise self._bad(value, benchmark) from None
        if kind == "str":
            if isinstance(value, (dict, list)):
                raise self._bad(value, benchmark)
            return value if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)
        if kind == "list":
            if isinstance(value, str):
                return value
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return value
            raise self._bad(value, benchmark)
        return value

    def _bad(self, value: Any, benchmark: str) -> HuebenchError:
        expected = {
            "int": "an integer",
            "float": "a number",
            "bool": "true or false",
            "str": "a text value",
            "list": "a comma-separated list",
        }.get(self.kind, "a value")
        example = "" if self.default is None else f" (default {self.default!r})"
        return HuebenchError(
            f"benchmark {benchmark} option {self.name!r} expects {expected}{' or null' if self.nullable else ''}, "
            f"got {value!r}{example}; see `huebench list options {benchmark}`"
        )


def _option_kind(annotation: str, default: Any) -> tuple[str, bool]:
    words = set(re.findall(r"[A-Za-z_]+", annotation))
    nullable = "None" in words or "Optional" in words
    if not annotation:
        kind = {bool: "bool", int: "int", float: "float", str: "str"}.get(type(default), "any")
    elif "Any" in words:
        kind = "any"
    elif words & {"Sequence", "list", "tuple"}:
        kind = "list"
    elif "bool" in words:
        kind = "bool"
    elif "float" in words:
        kind = "float"
    elif "int" in words:
        kind = "int"
    elif "str" in words or "Path" in words:
        kind = "str"
    else:
        kind = "any"
    return kind, nullable


class Benchmark(ABC):
    name: str = ""
    description: str = ""
    #: the model must offer at least one of these
    capabilities: tuple[Capability, ...] = ()

    def __init__(self, **options: Any):
        self.options = options

    @classmethod
    def option_specs(cls) -> dict[str, OptionSpec]:
        """The options this benchmark takes: the named parameters of ``__init__`` along its classes
        (``seed`` is the run's own). Unknown options are refused by :meth:`check_options`."""
        specs: dict[str, OptionSpec] = {}
        for klass in cls.__mro__:
            if klass is Benchmark or not issubclass(klass, Benchmark) or "__init__" not in vars(klass):
                continue
            for p in inspect.signature(vars(klass)["__init__"]).parameters.values():
                if p.name in ("self", "seed") or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) or p.name in specs:
                    continue
                annotation = p.annotation if isinstance(p.annotation, str) else getattr(p.annotation, "__name__", "")
                default = None if p.default is p.empty else p.default
                kind, nullable = _option_kind(annotation if p.annotation is not p.empty else "", default)
                specs[p.name] = OptionSpec(p.name, kind, nullable, default, annotation)
        return specs

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """``options`` with each value as its declared type; an unknown option or a value of the
        wrong type is a one-line error with a did-you-mean (run flags included: ``--batchsize``)."""
        specs = cls.option_specs()
        out: dict[str, Any] = {}
        for key, value in options.items():
            spec = specs.get(key)
            if spec is None:
                flags = [f"--{f}" for f in RUN_FLAGS]
                hint = suggestion_text(key, [*specs, *(f.replace("-", "_") for f in RUN_FLAGS)])
                for f in flags:  # a misspelt run flag is suggested as the flag it is
                    hint = hint.replace(repr(f[2:].replace("-", "_")), repr(f))
                raise UnknownNameError(
                    f"unknown option {key!r} for benchmark {cls.name}; it takes "
                    f"{', '.join(specs) or 'no options'} (as -o NAME=VALUE or --NAME VALUE).{hint} "
                    f"See `huebench list options {cls.name}`."
                )
            out[key] = spec.coerce(value, cls.name)
        return out

    def input_paths(self) -> dict[str, Path]:
        """Files and folders the samples are read from, by option name: their content is part of the
        run's identity (``--resume`` refuses a run whose inputs changed). By default every option
        whose value names an existing path; a benchmark leaves out folders the run itself fills."""
        out = {}
        for key, value in self.options.items():
            if isinstance(value, str) and value and ":" not in value.split("/")[0] and Path(value).exists():
                out[key] = Path(value)
        return out

    def resolved_options(self) -> dict[str, Any]:
        """Options after defaults, as stored in ``config.json``."""
        return dict(self.options)

    def check_model(self, model: Model) -> Capability:
        """The capability this run will use (the first one offered, in the benchmark's order)."""
        for cap in self.capabilities:
            if model.supports(cap):
                return cap
        model.require(self.capabilities[0])  # raises with the model's capability list
        raise AssertionError  # pragma: no cover

    @abstractmethod
    def samples(self) -> list[Sample]: ...

    @abstractmethod
    def evaluate(self, samples: Sequence[Sample], model: Model, ctx: RunContext) -> Iterable[dict[str, Any]]:
        """Yield one record per sample: ``{"id", "status": "ok", ...}`` (failures are recorded by the runner)."""

    @abstractmethod
    def metrics(self, records: Sequence[dict[str, Any]]) -> dict[str, Any]: ...

    def report_sections(self, results: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Section]:
        return []


_REGISTRY: dict[str, str] = {
    "colornames": "huebench.benchmarks.colornames:ColorNames",
    "colorswap": "huebench.benchmarks.colorswap.benchmark:ColorSwap",
    "coda": "huebench.benchmarks.coda.benchmark:Coda",
    "coda-probe": "huebench.benchmarks.coda.probe:CodaProbe",
    "rainbow": "huebench.benchmarks.rainbow.benchmark:Rainbow",
    "gencolor-diagnostic": "huebench.benchmarks.gencolor.diagnostic:Diagnostic",
    "gencolor-generate": "huebench.benchmarks.gencolor.benchmark:GenColorGenerate",
    "gencolorbench": "huebench.benchmarks.gencolor.benchmark:GenColorBench",
    "rainbow-baseline": "huebench.benchmarks.rainbow.benchmark:RainbowBaseline",
}


def register(name: str, target: str) -> None:
    """Register a benchmark class by import path ``"package.module:Class"`` (loaded lazily)."""
    _REGISTRY[name] = target


def list_benchmarks() -> list[str]:
    return sorted(_REGISTRY)


def get_benchmark(name: str) -> type[Benchmark]:
    key = name.strip().lower()
    if key not in _REGISTRY:
        raise UnknownNameError(
            f"unknown benchmark {name!r}; available: {', '.join(list_benchmarks())}."
            + suggestion_text(name, list_benchmarks())
        )
    import importlib

    module, _, cls = _REGISTRY[key].partition(":")
    return getattr(importlib.import_module(module), cls)
