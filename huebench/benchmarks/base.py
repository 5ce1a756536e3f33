"""The interface every benchmark implements, and the registry of benchmarks.

A benchmark turns options into *samples* (stable ids + JSON-able inputs), evaluates a chunk of
samples with a model by building typed requests (:mod:`huebench.models.requests`) that the run
layer answers (:class:`~huebench.runs.context.RunContext`, which caches every
model call), and turns per-sample *records* into metrics. ``metrics`` must be a pure function of
the records and options: ``huebench rescore`` recomputes ``results.json`` from the records
alone, without a model.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from huebench._suggest import suggestion_text
from huebench.errors import HuebenchError, UnknownNameError
from huebench.models.base import Capability

if TYPE_CHECKING:
    from huebench.models.base import Model
    from huebench.models.requests import Answers
    from huebench.report.html import Section

__all__ = [
    "ENTRY_POINT_GROUP",
    "FLAG_WITHOUT_VALUE",
    "Benchmark",
    "OptionSpec",
    "Sample",
    "benchmark_source",
    "builtin_benchmarks",
    "get_benchmark",
    "list_benchmarks",
    "register",
    "register_benchmark",
]


@dataclass(frozen=True)
class Sample:
    id: str
    inputs: dict[str, Any] = field(default_factory=dict)


#: options every run has (``huebench run`` flags), not the benchmark's own: said apart in suggestions
RUN_FLAGS = (
    "model", "limit", "out", "batch-size", "device", "dtype", "seed", "resume", "cache", "no-cache",
    "option", "progress", "no-progress", "json", "chunk-size", "executor", "ray-address", "workers", "debug",
)  # fmt: skip


class _FlagWithoutValue:
    def __repr__(self) -> str:
        return "FLAG_WITHOUT_VALUE"


#: the value of an option given on the command line as a bare flag (``--quick``, ``--no-quick``):
#: true (false with ``no-``) for a yes/no option, a one-line error for any other
FLAG_WITHOUT_VALUE: Any = _FlagWithoutValue()


@dataclass(frozen=True)
class OptionSpec:
    """One benchmark option, read from the benchmark's ``__init__`` signature: its name, the type
    its annotation declares (``int``, ``float``, ``bool``, ``str``, ``list`` or ``any``), whether
    ``None`` is allowed, its default, and what it does (the benchmark's ``option_help``)."""

    name: str
    kind: str
    nullable: bool
    default: Any
    annotation: str
    help: str = ""

    def coerce(self, value: Any, benchmark: str) -> Any:
        """``value`` as this option's type, or a one-line error saying what was expected."""
        if isinstance(value, str) and value.strip().lower() in ("null", "none") and self.kind != "str":
            value = None  # from the command line, where every value comes as text
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
                number = float(value)
            except (TypeError, ValueError):
                raise self._bad(value, benchmark) from None
            if not math.isfinite(number):  # NaN and infinity are not settings (and not JSON)
                raise self._bad(value, benchmark)
            return number
        if kind == "str":
            if isinstance(value, (dict, list)):
                raise self._bad(value, benchmark)
            return value if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)
        if kind == "list":
            if isinstance(value, str):
                text = value.strip()
                if text.startswith("["):  # a JSON list, as -o tasks='["cna","coa"]'
                    try:
                        value = json.loads(text)
                    except json.JSONDecodeError:
                        raise self._bad(value, benchmark) from None
                else:
                    return [v.strip() for v in text.split(",") if v.strip()]
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return value
            raise self._bad(value, benchmark)
        if kind == "any" and isinstance(value, str):
            try:
                return json.loads(value)  # a structured value given as text on the command line
            except json.JSONDecodeError:
                return value
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
    #: set by ``@register_benchmark("name")``
    name: str = ""
    description: str = ""
    #: the model must offer at least one of these
    capabilities: tuple[Capability, ...] = ()
    #: options that name input files or folders (fingerprinted for --resume; see input_paths)
    path_options: tuple[str, ...] = ()
    #: what each option does, by name (``huebench list options``, the flags of the benchmark's own
    #: commands); a subclass's entries add to and override its base classes'
    option_help: ClassVar[dict[str, str]] = {}
    #: what evaluating the samples is, for the progress line ("feature extraction", "generation")
    progress_phase: ClassVar[str] = ""
    #: options that are records, not settings: :meth:`resolved_options` writes them into config.json
    #: (and they are accepted back from it, by --resume and rescore), but a user does not give them;
    #: ``huebench list options`` and the list of options in an unknown-option error leave them out
    internal_options: ClassVar[tuple[str, ...]] = ()
    #: the metrics every command's summary prints (paths into results.json's metrics, "a/b/c", each a
    #: value with its interval); empty: every top-level metric that has an interval
    headline: ClassVar[tuple[str, ...]] = ()

    def __init__(self, **options: Any):
        self.options = options

    @classmethod
    def option_specs(cls) -> dict[str, OptionSpec]:
        """The options this benchmark takes: the named parameters of ``__init__`` along its classes
        (``seed`` is the run's own). Unknown options are refused by :meth:`check_options`."""
        specs: dict[str, OptionSpec] = {}
        helps: dict[str, str] = {}
        for klass in reversed(cls.__mro__):
            helps.update(vars(klass).get("option_help", {}))
        for klass in cls.__mro__:
            if klass is Benchmark or not issubclass(klass, Benchmark) or "__init__" not in vars(klass):
                continue
            for p in inspect.signature(vars(klass)["__init__"]).parameters.values():
                if p.name in ("self", "seed") or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) or p.name in specs:
                    continue
                annotation = p.annotation if isinstance(p.annotation, str) else inspect.formatannotation(p.annotation)
                default = None if p.default is p.empty else p.default
                kind, nullable = _option_kind(annotation if p.annotation is not p.empty else "", default)
                specs[p.name] = OptionSpec(p.name, kind, nullable, default, annotation, helps.get(p.name, ""))
        return specs

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """``options`` with each value as its declared type; an unknown option or a value of the
        wrong type is a one-line error with a did-you-mean (run flags included: ``--batchsize``)."""
        specs = cls.option_specs()
        out: dict[str, Any] = {}
        for key, value in options.items():
            spec = specs.get(key)
            if value is FLAG_WITHOUT_VALUE:
                negated = specs.get(key[3:]) if spec is None and key.startswith("no_") else None
                if spec is not None and spec.kind == "bool":
                    value = True
                elif negated is not None and negated.kind == "bool":
                    key, spec, value = key[3:], negated, False
                elif spec is not None or negated is not None:
                    flag = "--" + key.replace("_", "-")
                    raise HuebenchError(
                        f"{flag} needs a value: {flag} VALUE (only yes/no options stand alone; "
                        f"see `huebench list options {cls.name}`)"
                    )
                if key in out:
                    raise HuebenchError(f"benchmark option {key!r} is given twice; give it once")
            if spec is None:
                flags = [f"--{f}" for f in RUN_FLAGS]
                settings = [n for n in specs if n not in cls.internal_options]
                hint = suggestion_text(key, [*settings, *(f.replace("-", "_") for f in RUN_FLAGS)])
                for f in flags:  # a misspelt run flag is suggested as the flag it is
                    hint = hint.replace(repr(f[2:].replace("-", "_")), repr(f))
                raise UnknownNameError(
                    f"unknown option {key!r} for benchmark {cls.name}; it takes "
                    f"{', '.join(settings) or 'no options'} (as -o NAME=VALUE or --NAME VALUE).{hint} "
                    f"See `huebench list options {cls.name}`."
                )
            out[key] = spec.coerce(value, cls.name)
        return out

    def input_paths(self) -> dict[str, Path]:
        """Files and folders the samples are read from, by option name: their content is part of the
        run's identity (``--resume`` refuses a run whose inputs changed). The options named in
        :attr:`path_options` whose value is an existing path (a value like ``hf:org/name`` is not)."""
        out = {}
        for key in self.path_options:
            value = self.options.get(key)
            if isinstance(value, str) and value and Path(value).exists():
                out[key] = Path(value)
        return out

    def resolved_options(self) -> dict[str, Any]:
        """Options after defaults, as stored in ``config.json``."""
        return dict(self.options)

    def machine_dependence(self, samples: Sequence[Sample]) -> str | None:
        """Why these samples' results depend on the machine (config.json's ``machine``: its system,
        architecture and vector instructions), or None where they do not: ``--resume`` on another
        machine is then refused, since the run would mix results of two machines."""
        return None

    def check_model(self, model: Model) -> Capability | None:
        """The capability this run will use (the first one offered, in the benchmark's order); an
        override returns None where the run needs none of the model (a scorer-only diagnostic)."""
        return self._first_capability(model)

    def _first_capability(self, model: Model) -> Capability:
        """The first of :attr:`capabilities` the model offers, else the model's one-line error."""
        for cap in self.capabilities:
            if model.supports(cap):
                return cap
        model.require(self.capabilities[0])  # raises with the model's capability list
        raise AssertionError  # pragma: no cover

    @abstractmethod
    def samples(self) -> list[Sample]: ...

    @abstractmethod
    def evaluate(self, samples: Sequence[Sample], model: Model, ctx: Answers) -> Iterable[dict[str, Any]]:
        """Yield one record per sample: ``{"id", "status": "ok", ...}`` (failures are recorded by the runner)."""

    @abstractmethod
    def metrics(self, records: Sequence[dict[str, Any]]) -> dict[str, Any]: ...

    def complete_records(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Work that needs every sample's record (CoDa's probes train on all the training objects),
        done once by the run that holds the folder, after the last sample is recorded; its outcome
        goes into the records it returns, which are stored, so :meth:`metrics` (and with it
        ``rescore`` and ``report``) only reads it. By default the records as they are."""
        return records

    def report_sections(self, results: dict[str, Any], records: Sequence[dict[str, Any]]) -> list[Section]:
        return []


B = TypeVar("B", bound=Benchmark)


# ---------------------------------------------------------------- the registry
#: third-party benchmarks: ``name = "package.module:Class"`` under this group of a package's entry points
ENTRY_POINT_GROUP = "huebench.benchmarks"

_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*")
#: classes registered by :func:`register_benchmark` (a built-in's module registers it when imported)
_CLASSES: dict[str, type[Benchmark]] = {}
#: ``register(name, "package.module:Class")``: imported when asked for
_TARGETS: dict[str, str] = {}
#: ``@register_benchmark("name")`` directly above a ``class Name(`` line (further decorators may sit between)
_DECORATED = re.compile(
    r"""^@register_benchmark\(\s*["']([^"']+)["']\s*\)[ \t]*\n(?:@[^\n]*\n)*class[ \t]+(\w+)""", re.M
)


def _checked_name(name: str) -> str:
    key = str(name).strip().lower()
    if not _NAME.fullmatch(key):
        raise ValueError(f"benchmark name {name!r}: use lower-case letters, digits, '-', '_' or '.'")
    return key


def register_benchmark(name: str) -> Callable[[type[B]], type[B]]:
    """Class decorator: make a :class:`Benchmark` subclass available as ``name`` to ``huebench run``,
    ``huebench list`` and :func:`get_benchmark`. Sets the class's ``name`` when it has none of its own
    and refuses one that differs. Built-in benchmarks are found without importing their modules (see
    :func:`builtin_benchmarks`); a third-party package declares its classes under the
    ``huebench.benchmarks`` entry-point group instead (see docs/writing-a-benchmark.md)."""
    key = _checked_name(name)

    def decorate(cls: type[B]) -> type[B]:
        if not (isinstance(cls, type) and issubclass(cls, Benchmark)):
            raise TypeError(f"@register_benchmark({key!r}) decorates a Benchmark subclass, not {cls!r}")
        own = vars(cls).get("name")
        if own and own != key:
            raise ValueError(f"@register_benchmark({key!r}) on {cls.__qualname__}, whose name is {own!r}")
        builtin = builtin_benchmarks().get(key)
        if builtin is not None and builtin != f"{cls.__module__}:{cls.__qualname__}":
            raise ValueError(
                f"@register_benchmark({key!r}) on {cls.__qualname__}: {key!r} is huebench's own ({builtin})"
            )
        cls.name = key
        _CLASSES[key] = cls
        return cls

    return decorate


def register(name: str, target: str | type[Benchmark]) -> None:
    """Register a benchmark under ``name``: a class, or its import path ``"package.module:Class"``
    (imported when the benchmark is first asked for)."""
    key = _checked_name(name)
    if isinstance(target, str):
        _CLASSES.pop(key, None)
        _TARGETS[key] = target
    else:
        register_benchmark(key)(target)


@functools.cache
def builtin_benchmarks() -> dict[str, str]:
    """The built-in benchmarks, ``name → "module:Class"``, read from the ``@register_benchmark`` lines
    of the modules under ``huebench/benchmarks/`` without importing them (importing every benchmark
    would cost ``huebench --help`` their dependencies: torch, transformers …). A built-in benchmark
    is thus a decorated class in a module of that folder, and nothing else to list."""
    root = Path(__file__).resolve().parent
    sources = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    out: dict[str, str] = {}
    for path in sources:
        text = path.read_text(encoding="utf-8")
        if "@register_benchmark(" not in text:
            continue
        module = ".".join((__package__, *path.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
        for m in _DECORATED.finditer(text):
            out[_checked_name(m[1])] = f"{module}:{m[2]}"
    return out


def _entry_points() -> dict[str, Any]:
    from importlib import metadata

    out: dict[str, Any] = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        out.setdefault(ep.name.strip().lower(), ep)  # the first installed wins, as for console scripts
    return out


def list_benchmarks() -> list[str]:
    """Every benchmark name: built-in, registered in this process, and from installed plugins."""
    return sorted({*builtin_benchmarks(), *_TARGETS, *_CLASSES, *_entry_points()})


def benchmark_source(name: str) -> str:
    """Where ``name`` comes from: ``"huebench"`` (built-in), ``"registered"`` (:func:`register` in this
    process) or the distribution that declares it under the entry-point group."""
    key = name.strip().lower()
    if key in _TARGETS:
        return "registered"
    if key in builtin_benchmarks():
        return "huebench"
    ep = _entry_points().get(key)
    if ep is not None:
        dist = getattr(ep, "dist", None)
        return getattr(dist, "name", None) or ep.value.split(":")[0].split(".")[0]
    if key in _CLASSES:
        return "registered"
    raise _unknown(name)


def _unknown(name: str) -> UnknownNameError:
    names = list_benchmarks()
    return UnknownNameError(
        f"unknown benchmark {name!r}; available: {', '.join(names)}." + suggestion_text(name, names)
    )


def _import_target(key: str, target: str, origin: str) -> type[Benchmark]:
    import importlib

    module, _, attr = target.partition(":")
    try:
        obj: Any = importlib.import_module(module)
        for part in attr.split(".") if attr else ():
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        if origin == "built-in" or isinstance(exc, HuebenchError):
            raise  # huebench's own: a missing extra says so itself; anything else is a bug
        raise HuebenchError(f"benchmark {key!r} ({origin} {target!r}) could not be loaded: {exc}") from exc
    return _adopt(key, obj, f"{origin} {target!r}")


def _adopt(key: str, obj: Any, origin: str) -> type[Benchmark]:
    if not (isinstance(obj, type) and issubclass(obj, Benchmark)):
        raise HuebenchError(f"benchmark {key!r}: {origin} is {obj!r}, not a huebench Benchmark subclass")
    own_name = vars(obj).get("name")  # a subclass of a built-in inherits its name: that is not its own
    if not own_name:
        obj.name = key
    elif own_name != key:
        raise HuebenchError(f"benchmark {key!r}: {origin} is {obj.__qualname__}, whose name is {obj.name!r}")
    _CLASSES.setdefault(key, obj)
    return obj


def get_benchmark(name: str) -> type[Benchmark]:
    """The benchmark class called ``name``: registered in this process, built-in, or from a plugin's
    ``huebench.benchmarks`` entry point (a built-in name cannot be taken over by a plugin)."""
    key = name.strip().lower()
    if key in _CLASSES:
        return _CLASSES[key]
    if key in _TARGETS:
        return _import_target(key, _TARGETS[key], "registered")
    if key in builtin_benchmarks():
        return _import_target(key, builtin_benchmarks()[key], "built-in")
    ep = _entry_points().get(key)
    if ep is None:
        raise _unknown(name)
    try:
        obj = ep.load()
    except HuebenchError:
        raise
    except Exception as exc:
        raise HuebenchError(
            f"benchmark {key!r} (entry point {ep.value!r} in group {ENTRY_POINT_GROUP!r}) could not be loaded: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    return _adopt(key, obj, f"entry point {ep.value!r}")
