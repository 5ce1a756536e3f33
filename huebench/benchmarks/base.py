"""The interface every benchmark implements, and the registry of benchmarks.

A benchmark turns options into *samples* (stable ids + JSON-able inputs), evaluates a chunk of
samples with a model through a :class:`~huebench.runs.runner.RunContext` (which caches every
model call), and turns per-sample *records* into metrics. ``metrics`` must be a pure function of
the records and options: ``huebench rescore`` recomputes ``results.json`` from the records
alone, without a model.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from huebench._suggest import suggestion_text
from huebench.errors import UnknownNameError
from huebench.models.base import Capability

if TYPE_CHECKING:
    from huebench.models.base import Model
    from huebench.report.html import Section
    from huebench.runs.runner import RunContext

__all__ = ["Benchmark", "Sample", "get_benchmark", "list_benchmarks", "register"]


@dataclass(frozen=True)
class Sample:
    id: str
    inputs: dict[str, Any] = field(default_factory=dict)


class Benchmark(ABC):
    name: str = ""
    description: str = ""
    #: the model must offer at least one of these
    capabilities: tuple[Capability, ...] = ()

    def __init__(self, **options: Any):
        self.options = options

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
