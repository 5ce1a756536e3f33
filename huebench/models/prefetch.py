"""Download what a run needs ahead of time, on a connected machine: ``huebench prefetch``.

:func:`plan_prefetch` works out, without any network, what a run would load from the Hub: the
models given with ``-m`` (aliases or specs), the helper models its benchmark options name (a string
option whose value is a model alias or spec, such as GenColorBench's ``--detector``) and the Hub
datasets its input options name (``hf:<dataset id>`` in one of the benchmark's ``path_options``, such
as ColorSwap's ``--data``) — from a benchmark and its options, or from a run folder's
``config.json`` (:func:`read_run_config`). :func:`prefetch` then downloads them into the ordinary caches:

- ``hf:`` and ``diffusers:`` models: ``huggingface_hub.snapshot_download`` of the files the loaders
  read (configs, tokenizers, ``*.safetensors``; no pickle weights, no code);
- ``openclip:<arch>:<tag>``: OpenCLIP's own download of the tag's weights;
- Hub datasets: ``datasets.load_dataset(id)``, which also prepares them for offline use.

Nothing is downloaded for local folders, aliases backed by an installed offline package, API models,
plugins and the built-in baselines. After it, the same run works offline with ``HF_HUB_OFFLINE=1``
(:meth:`PrefetchPlan.offline_commands`), on this machine or on one the caches were copied to.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from huebench.errors import HuebenchError, UnknownNameError
from huebench.models import hub
from huebench.models._weights import is_path_like, one_line
from huebench.models.hub import HubUnreachableError, cached_snapshot, hub_cache_dir, hub_endpoint, hub_offline

__all__ = ["MODEL_FILES", "PrefetchItem", "PrefetchPlan", "hf_home", "plan_prefetch", "prefetch", "read_run_config"]

#: the files of a Hub model that huebench's loaders read (``*`` also matches ``/``: component
#: folders of a diffusers pipeline and ``1_Pooling/config.json`` included)
MODEL_FILES = ("*.json", "*.safetensors", "*.txt", "*.model", "*.jinja", "*.tiktoken")

#: status of an item: it will be downloaded, or there is nothing to download for it
DOWNLOAD, NOTHING = "download", "nothing to fetch"


@dataclass(frozen=True)
class PrefetchItem:
    """One thing a run loads. ``role`` is ``model`` or the benchmark option that names it."""

    kind: str  # "model" or "dataset"
    role: str
    requested: str  # as given: alias, spec or hf:<dataset id>
    spec: str  # the resolved spec (models), or the requested value (datasets)
    repo: str  # Hub repo id; "<arch>:<tag>" for openclip; "" when nothing is fetched
    source: str  # hub, openclip, hub dataset, local folder, package <name>, api, plugin, built-in
    status: str  # DOWNLOAD or NOTHING
    where: str = ""  # the local folder or the cached snapshot, when known without network

    @property
    def fetch(self) -> bool:
        return self.status == DOWNLOAD


@dataclass(frozen=True)
class PrefetchPlan:
    items: tuple[PrefetchItem, ...]
    models: tuple[str, ...]  # the models given (-m, or the run's)
    benchmark: str | None = None
    options: dict[str, Any] = field(default_factory=dict)  # benchmark options as given

    def offline_commands(self) -> list[str]:
        """The command lines that use what was fetched without network: one ``huebench run`` per model."""
        bench = self.benchmark or "BENCH"
        flags: list[str] = []
        for key, value in self.options.items():
            if value is None:
                continue
            text = ",".join(map(str, value)) if isinstance(value, list) else value
            text = str(text).lower() if isinstance(text, bool) else text
            text = text if isinstance(text, str) else json.dumps(text)
            flags += [f"--{key.replace('_', '-')}", text]
        return [
            "HF_HUB_OFFLINE=1 " + shlex.join(["huebench", "run", bench, "-m", model, *flags])
            for model in self.models or ("MODEL",)
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "models": list(self.models),
            "items": [{**asdict(i), "fetch": i.fetch} for i in self.items],
            "offline_commands": self.offline_commands(),
            "hf_home": str(hf_home()),
        }


def hf_home() -> Path:
    """The Hugging Face folder to copy to an offline machine (``HF_HOME``: models in ``hub/``,
    datasets in ``datasets/``)."""
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser()
    cache = hub_cache_dir()
    return cache.parent if cache.name == "hub" else cache


def _model_item(requested: str, role: str) -> PrefetchItem:
    from huebench.models.registry import resolve

    spec, entry = resolve(requested)
    backend, _, ident = spec.partition(":")

    def item(source: str, status: str = NOTHING, repo: str = "", where: str = "") -> PrefetchItem:
        return PrefetchItem("model", role, requested, spec, repo, source, status, where)

    if (entry is not None and entry.plugin_only) or backend == "plugin":
        return item("plugin")
    if backend in ("api", "reference"):
        return item({"api": "api", "reference": "built-in"}[backend])
    if backend == "openclip":
        tag = ident.partition(":")[2]
        if not tag:
            return item("openclip (no pretrained weights)")
        if Path(tag).expanduser().exists() or is_path_like(tag):
            return item("local file", where=tag)
        return item("openclip", DOWNLOAD, repo=ident)
    path = Path(ident).expanduser()
    if path.exists() or is_path_like(ident):
        if not path.is_dir():
            raise HuebenchError(f"{spec}: no such checkpoint folder {path}; give an existing folder or a Hub id")
        package = entry.offline_package if entry is not None else None
        if entry is not None and package is not None and spec != entry.source:
            return item(f"package {package.distribution}", where=str(path))
        return item("local folder", where=str(path))
    snapshot = cached_snapshot(ident, "config.json" if backend == "hf" else "model_index.json")
    return item("hub", DOWNLOAD, repo=ident, where=str(snapshot or ""))


def _option_items(cls: Any, options: Mapping[str, Any]) -> list[PrefetchItem]:
    """The helper models and Hub datasets a benchmark's options name."""
    specs = cls.option_specs()
    items = []
    for key, value in options.items():
        if not isinstance(value, str) or not value:
            continue
        if key in cls.path_options:
            if value.startswith("hf:") and len(value) > 3:
                items.append(PrefetchItem("dataset", key, value, value, value[3:], "hub dataset", DOWNLOAD))
            continue
        spec = specs.get(key)
        if spec is None or spec.kind not in ("str", "any"):
            continue
        try:
            item = _model_item(value, key)
        except UnknownNameError:  # a value that is not a model (a scorer name, a suite)
            continue
        if item.source != "built-in":  # "none" and "random" name no model here
            items.append(item)
    return items


def read_run_config(run: str | Path) -> tuple[str, dict[str, Any], str]:
    """``(benchmark name, options, model)`` of a run folder (or its ``config.json``), to prefetch
    what that run loads: the model as it was asked for (an alias stays an alias)."""
    run = Path(run)
    config = run / "config.json" if run.is_dir() else run
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
        bench = str(data["benchmark"])
        options = {k: v for k, v in dict(data.get("benchmark_options") or {}).items() if k != "seed"}
        model = data.get("model") or {}
        name = str(model.get("requested") or model["spec"])
    except OSError as exc:
        raise HuebenchError(
            f"{config}: cannot read the run's config ({exc.strerror or exc}); give a run folder"
        ) from None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise HuebenchError(
            f"{config}: not a huebench run config ({one_line(exc, 120)}); give the folder `huebench run` wrote"
        ) from None
    return bench, options, name


def plan_prefetch(
    models: Sequence[str] = (), benchmark: Any = None, options: Mapping[str, Any] | None = None
) -> PrefetchPlan:
    """What a run would load from the Hub; reads only local files (no network).

    ``models``: aliases or specs. ``benchmark``: the benchmark's class
    (``huebench.benchmarks.base.get_benchmark(name)``; this layer does not import benchmarks),
    whose ``options`` (as on ``huebench run``) are checked and may name helper models and Hub
    datasets. A run folder's benchmark, options and model: :func:`read_run_config`."""
    given = dict(options or {})
    names = list(dict.fromkeys(models))
    if not names and benchmark is None:
        raise HuebenchError("nothing to prefetch: give -m MODEL (repeatable), a benchmark, or a run folder")
    if given and benchmark is None:
        raise HuebenchError("benchmark options need a benchmark: huebench prefetch BENCH -m MODEL --KEY VALUE")
    items = [_model_item(name, "model") for name in names]
    if benchmark is not None:
        checked = benchmark.check_options(given)
        specs = benchmark.option_specs()  # the offline command leaves out what is the default anyway
        # what the run will read includes the defaults: ColorBench's --data is a Hub dataset unless given
        defaults = {k: spec.default for k, spec in specs.items() if k not in checked and spec.default is not None}
        items += _option_items(benchmark, {**defaults, **checked})
        given = {k: v for k, v in given.items() if k not in specs or checked[k] != specs[k].default}
    unique: dict[tuple[str, str], PrefetchItem] = {}
    for item in items:  # a model named twice is fetched once, under the first role
        unique.setdefault((item.kind, item.spec), item)
    return PrefetchPlan(tuple(unique.values()), tuple(names), benchmark.name if benchmark else None, given)


def _download(item: PrefetchItem) -> str:
    """Fetch one item into its cache; where it went."""
    from huebench.models.hf import require_extra

    if item.kind == "dataset":
        datasets = require_extra("datasets", "data")
        datasets.load_dataset(item.repo)  # every split, prepared: what a run reads offline
        return str(Path(datasets.config.HF_DATASETS_CACHE))
    if item.source == "openclip":
        open_clip = require_extra("open_clip", "openclip")
        arch, _, tag = item.repo.partition(":")
        cfg = open_clip.pretrained.get_pretrained_cfg(arch, tag)
        if not cfg:
            raise HuebenchError(
                f"{item.spec}: OpenCLIP has no pretrained tag {tag!r} for {arch} (open_clip.list_pretrained())"
            )
        return str(open_clip.pretrained.download_pretrained(cfg))
    hub = require_extra("huggingface_hub", "lm,vision")
    return str(hub.snapshot_download(item.repo, allow_patterns=list(MODEL_FILES), endpoint=hub_endpoint()))


def _failed(item: PrefetchItem, exc: Exception) -> HuebenchError:
    detail = one_line(exc)
    gated = any(word in f"{type(exc).__name__} {detail}" for word in ("Gated", "401", "403", "gated"))
    hint = (
        " (a gated or private repo: accept its terms on the Hub and log in with `hf auth login`, or set HF_TOKEN)"
        if gated
        else ""
    )
    what = f"dataset {item.requested}" if item.kind == "dataset" else item.spec
    return HuebenchError(f"{what}: cannot download {item.repo}{hint}: {detail}")


def prefetch(
    plan: PrefetchPlan, *, on_item: Callable[[PrefetchItem, str], None] | None = None
) -> list[tuple[PrefetchItem, str]]:
    """Download every item of ``plan`` that needs it; ``(item, where it went)`` for each, in order.

    Fails at once, in one line, when the Hub cannot be reached (or ``HF_HUB_OFFLINE`` is set) and
    something is to be downloaded."""
    todo = [i for i in plan.items if i.fetch]
    if todo:
        if hub_offline():
            raise HubUnreachableError(
                "HF_HUB_OFFLINE=1 is set, and huebench prefetch downloads from the Hub: run it without "
                "HF_HUB_OFFLINE on a connected machine (`huebench prefetch … --list` shows what it would fetch)"
            )
        why = None if hub.probe_disabled() else hub.probe_hub()  # looked up now: replaceable
        if why is not None:
            raise HubUnreachableError(
                f"cannot reach the Hugging Face Hub at {hub_endpoint()} ({why}): huebench prefetch downloads "
                f"from it, so run it on a connected machine and copy {hf_home()} here, then use "
                "HF_HUB_OFFLINE=1 (`huebench prefetch … --list` shows what it would fetch, without network)"
            )
    done = []
    for item in plan.items:
        if item.fetch:
            try:
                where = _download(item)
            except HuebenchError:
                raise
            except Exception as exc:  # the Hub clients raise many types; all mean "could not download"
                raise _failed(item, exc) from exc
        else:
            where = item.where
        done.append((item, where))
        if on_item is not None:
            on_item(item, where)
    return done
