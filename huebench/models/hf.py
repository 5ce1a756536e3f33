"""``hf:`` backend: transformers checkpoints (hub id or local folder), family detected from the config.

``load_hf`` reads ``config.json`` (``model_type`` and ``architectures``) and picks the adapter:

| config | adapter | capabilities |
| --- | --- | --- |
| bert/roberta/albert/… with a ``*ForMaskedLM`` head | :class:`~huebench.models.hf_text.HFMaskedLM` | masked-lm, text-features |
| bert-like without an MLM head (sentence-transformers) | :class:`~huebench.models.hf_text.HFSentenceEncoder` | text-features |
| gpt2/llama/qwen2/… causal LMs | :class:`~huebench.models.hf_text.HFCausalLM` | causal-lm, text-features |
| clip, siglip | :class:`~huebench.models.hf_vision.HFContrastive` | image-text-score, text-features |
| blip | :class:`~huebench.models.hf_vision.HFBlipITM` | itm, image-text-score |
| flava | :class:`~huebench.models.hf_vision.HFFlava` | itm, image-text-score |
| llava, qwen2_vl, … | :class:`~huebench.models.hf_vision.HFVisionLanguage` | vlm |
| grounding-dino, owlv2 | :class:`~huebench.models.hf_vision.HFDetector` | detection |
| sam | :class:`~huebench.models.hf_vision.HFSegmenter` | segmentation |

``trust_remote_code`` is never passed: checkpoints that need their authors' code go through the
plugin entry point instead (see ``registry``). Weights are read from safetensors files only; a
local folder is checked before loading, and loading failures become one-line errors that name
the file (see ``_weights``).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from huebench.errors import HuebenchError
from huebench.models._weights import (
    OFFLINE_SET_HINT,
    check_local,
    check_transformers_folder,
    loading,
    one_line,
)
from huebench.models.base import Model

__all__ = ["HFModel", "UnsupportedModelError", "load_hf", "require_extra"]

MASKED_LM_TYPES = {
    "bert",
    "roberta",
    "albert",
    "distilbert",
    "electra",
    "deberta",
    "deberta-v2",
    "xlm-roberta",
    "camembert",
    "mpnet",
    "modernbert",
}
CONTRASTIVE_TYPES = {"clip", "siglip", "siglip2"}
VLM_TYPES = {
    "llava",
    "llava_next",
    "llava_onevision",
    "qwen2_vl",
    "qwen2_5_vl",
    "idefics2",
    "idefics3",
    "paligemma",
    "janus",
    "mllama",
    "gemma3",
}
DETECTOR_TYPES = {"grounding-dino", "owlv2", "owlvit"}


class UnsupportedModelError(HuebenchError, ValueError):
    """The checkpoint's family has no adapter."""


def require_extra(module: str, extra: str) -> Any:
    """Import ``module`` or say which pip extra provides it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise HuebenchError(
            f"this model needs the '{module}' package: install it with `bash scripts/install.sh {extra}` "
            f"(or pip install 'huebench[{extra}]'); import failed with: {exc}"
        ) from exc


def _read_config(ident: str, spec: str | None = None) -> dict[str, Any]:
    spec = spec or f"hf:{ident}"
    check_local(ident, spec, "config.json")  # a folder: there, with a config.json that parses
    transformers = require_extra("transformers", "lm,vision")
    with loading(spec, ident, "its config"):  # other failures: one line too
        try:
            cfg = transformers.AutoConfig.from_pretrained(ident, trust_remote_code=False)
        except ValueError as exc:
            raise UnsupportedModelError(f"{spec}: {one_line(exc)}") from exc
        except OSError as exc:
            offline = os.environ.get("HF_HUB_OFFLINE") == "1"
            hint = OFFLINE_SET_HINT if offline else ""
            raise HuebenchError(f"{spec}: cannot read its config{hint}: {one_line(exc)}") from exc
    return {
        "model_type": cfg.model_type,
        "architectures": list(getattr(cfg, "architectures", None) or []),
        "config": cfg,
    }


def checkpoint_fingerprint(ident: str) -> dict[str, Any]:
    """Identity of the weights: the hub snapshot (commit) or, for a folder, a digest of its files.

    For folders we hash each weight file's size plus 1 MiB samples at its start, middle and end,
    and the whole of every small file — cheap on multi-GB checkpoints, yet any re-save changes it.
    """
    p = Path(ident)
    if not p.is_dir():
        return {"hub_id": ident, "revision": os.environ.get("HUEBENCH_HF_REVISION", "main")}
    h = hashlib.sha256()
    for f in sorted(p.rglob("*")):
        if not f.is_file() or f.name.startswith("."):
            continue
        size = f.stat().st_size
        h.update(f"{f.relative_to(p)}:{size}".encode())
        with open(f, "rb") as fh:
            if size <= 4 << 20:
                h.update(fh.read())
            else:
                for off in (0, size // 2, max(size - (1 << 20), 0)):
                    fh.seek(off)
                    h.update(fh.read(1 << 20))
    return {"folder_digest": h.hexdigest()}


class HFModel(Model):
    """Shared loading options for transformers adapters."""

    family = "hf"
    torch_backed = True

    def __init__(
        self, ident: str, *, spec: str | None = None, config: Any = None, random_init: bool = False, **options: Any
    ):
        super().__init__(
            spec or f"hf:{ident}",
            **{k: v for k, v in options.items() if k in ("device", "dtype", "batch_size", "seed")},
        )
        self.ident = ident
        self.config = config
        # random_init: the same architecture with freshly initialised weights (seeded) — the
        # "Random" control of representation probing; the checkpoint's weights are not read.
        self.random_init = bool(random_init)
        if not self.random_init and Path(ident).is_dir():
            archs = list(getattr(config, "architectures", None) or [])
            check_transformers_folder(Path(ident), self.spec, archs[0] if archs else None)
        self._weights = {"random_init_seed": self.seed} if self.random_init else checkpoint_fingerprint(ident)

    def fingerprint_parts(self) -> dict[str, Any]:
        return {**super().fingerprint_parts(), "weights": self._weights, "random_init": self.random_init}

    def _load_pretrained(self, loader: Any, what: str) -> Any:
        """``loader.from_pretrained(ident)`` (a tokenizer or processor class); failures in one line."""
        with loading(self.spec, self.ident, what, self.device):
            return loader.from_pretrained(self.ident)

    def _from_pretrained(self, cls: Any, **kwargs: Any) -> Any:
        with loading(self.spec, self.ident, "its weights", self.device):
            if self.random_init:
                import torch

                torch.manual_seed(self.seed)
                model = cls.from_config(self.config, **kwargs).to(self.torch_dtype)
            else:
                model = cls.from_pretrained(
                    self.ident, dtype=self.torch_dtype, trust_remote_code=False, use_safetensors=True, **kwargs
                )
            model.to(self.device)
        model.eval()
        return model


def load_hf(ident: str, *, spec: str | None = None, **options: Any) -> Model:
    info = _read_config(ident, spec)
    mtype, archs = info["model_type"], info["architectures"]
    kwargs = {"spec": spec, "config": info["config"], **options}
    if mtype in CONTRASTIVE_TYPES:
        from huebench.models.hf_vision import HFContrastive

        return HFContrastive(ident, **kwargs)
    if mtype == "blip":
        from huebench.models.hf_vision import HFBlipITM

        return HFBlipITM(ident, **kwargs)
    if mtype == "flava":
        from huebench.models.hf_vision import HFFlava

        return HFFlava(ident, **kwargs)
    if mtype in VLM_TYPES:
        from huebench.models.hf_vision import HFVisionLanguage

        return HFVisionLanguage(ident, **kwargs)
    if mtype in DETECTOR_TYPES:
        from huebench.models.hf_vision import HFDetector

        return HFDetector(ident, **kwargs)
    if mtype == "sam":
        from huebench.models.hf_vision import HFSegmenter

        return HFSegmenter(ident, **kwargs)
    from huebench.models import hf_text

    if mtype in MASKED_LM_TYPES:
        if any(a.endswith("ForMaskedLM") or a.endswith("ForPreTraining") for a in archs):
            return hf_text.HFMaskedLM(ident, **kwargs)
        return hf_text.HFSentenceEncoder(ident, **kwargs)
    if any(a.endswith("ForCausalLM") or a.endswith("LMHeadModel") for a in archs):
        return hf_text.HFCausalLM(ident, **kwargs)
    raise UnsupportedModelError(
        f"hf:{ident}: no adapter for model_type {mtype!r} (architectures {archs or 'unknown'}); "
        "supported: masked LMs, causal LMs, CLIP/SigLIP, BLIP, FLAVA, LLaVA-style VLMs, GroundingDINO/OWLv2, SAM. "
        "Other families can be added through the 'huebench.models' entry point."
    )
