"""``openclip:<arch>[:<pretrained tag or checkpoint path>]``: OpenCLIP models (the original CLIP RN50,
RN50x4, RN101, ViT-B/32 weights among them), e.g. ``openclip:RN50:openai``.

OpenCLIP's own preprocessing needs torchvision; on machines without it, use the transformers
port (``hf:openai/clip-vit-base-patch32``) where one exists.

The models run in float32 (``--dtype`` float16/bfloat16 is refused rather than ignored: OpenCLIP's
encoders are fed float32 pixels). A checkpoint given as a file path must be a ``.safetensors``
file: pickle checkpoints are not loaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from huebench.images import to_rgb
from huebench.models._torch import DeviceError
from huebench.models._weights import PICKLE_SUFFIXES, CheckpointError, check_safetensors_file, is_path_like, loading
from huebench.models.base import Capability, Model
from huebench.models.hf import checkpoint_fingerprint, require_extra

__all__ = ["OpenCLIP", "load_openclip"]


class OpenCLIP(Model):
    family: ClassVar[str] = "openclip"
    torch_backed = True
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.IMAGE_TEXT_SCORE, Capability.TEXT_FEATURES})

    def __init__(self, arch: str, pretrained: str | None, *, spec: str | None = None, **options: Any):
        super().__init__(
            spec or f"openclip:{arch}:{pretrained or ''}",
            **{k: v for k, v in options.items() if k in ("device", "dtype", "batch_size", "seed")},
        )
        if self.dtype != "float32":
            raise DeviceError(
                f"{self.spec}: OpenCLIP models run in float32 only (--dtype {self.dtype} would not be applied); "
                "use --dtype float32"
            )
        _check_checkpoint(pretrained, self.spec)
        open_clip = require_extra("open_clip", "openclip")
        self.arch, self.pretrained = arch, pretrained
        with loading(self.spec, pretrained or arch, "its weights", self.device):
            self.model, _, self.preprocess = open_clip.create_model_and_transforms(
                arch, pretrained=pretrained, device=self.device
            )
        self.model.eval()
        self.tokenizer = open_clip.get_tokenizer(arch)
        self._weights = (
            checkpoint_fingerprint(str(Path(pretrained).parent))
            if pretrained and Path(pretrained).is_file()
            else {"pretrained": pretrained}
        )

    def fingerprint_parts(self) -> dict[str, Any]:
        return {**super().fingerprint_parts(), "arch": self.arch, "weights": self._weights}

    def _encode_images(self, images: Sequence[Any]) -> Any:
        import torch

        def run(batch: list[Any]) -> list[Any]:
            x = torch.stack([self.preprocess(to_rgb(im)) for im in batch]).to(self.device)
            with torch.inference_mode():
                return list(torch.nn.functional.normalize(self.model.encode_image(x).float(), dim=-1))

        return torch.stack(self._batched(run, list(images)))

    def _encode_texts(self, texts: Sequence[str], normalize: bool = True) -> Any:
        import torch

        def run(batch: list[str]) -> list[Any]:
            with torch.inference_mode():
                f = self.model.encode_text(self.tokenizer(batch).to(self.device)).float()
            return list(torch.nn.functional.normalize(f, dim=-1) if normalize else f)

        return torch.stack(self._batched(run, list(texts)))

    def score(self, images: Sequence[Any], texts: Sequence[str]) -> np.ndarray:
        logits = self.model.logit_scale.exp().float() * self._encode_images(images) @ self._encode_texts(texts).T
        return logits.detach().cpu().numpy().astype(np.float64)

    def text_features(self, texts: Sequence[str], *, position: str = "pooled") -> np.ndarray:
        return self._encode_texts(texts, normalize=False).cpu().numpy()


def _check_checkpoint(pretrained: str | None, spec: str) -> None:
    """A checkpoint path must name an existing, intact ``.safetensors`` file (tags pass through)."""
    if not pretrained:
        return
    p = Path(pretrained)
    if p.is_file():
        if p.suffix.lower() == ".safetensors":
            check_safetensors_file(p, spec)
        elif p.suffix.lower() in PICKLE_SUFFIXES:
            raise CheckpointError(
                f"{spec}: {p} is a pickle checkpoint; huebench does not load pickle weights, because unpickling "
                "a file can run arbitrary code: convert it to .safetensors once, where you trust the file "
                "(safetensors.torch.save_file(state_dict, 'model.safetensors')), and give that file"
            )
    elif p.is_dir():
        raise CheckpointError(f"{spec}: {p} is a folder; give the checkpoint file (.safetensors) or a pretrained tag")
    elif is_path_like(pretrained) or p.suffix.lower() in (".safetensors", *PICKLE_SUFFIXES):
        raise CheckpointError(f"{spec}: no such checkpoint file {p}; give an existing .safetensors file or a tag")


def load_openclip(ident: str, *, spec: str | None = None, **options: Any) -> OpenCLIP:
    arch, _, pretrained = ident.partition(":")
    return OpenCLIP(arch, pretrained or None, spec=spec, **options)
