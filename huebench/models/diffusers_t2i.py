"""``diffusers:<hub id or local dir>``: text-to-image pipelines (SD 1.x/2.x/3/3.5, FLUX, PixArt, Sana, …).

Every image gets its own ``torch.Generator`` seeded from (prompt, index) by the caller, passed to
the pipeline as a list, so an image does not depend on which other prompts share its batch (up to
floating-point rounding across batch shapes, which can move a rare pixel by one level).

Weights are read from safetensors files only (``use_safetensors=True``); a local pipeline folder is
checked first, so a damaged or pickle-only component is refused in one line naming its file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from huebench.models._weights import check_diffusers_folder, check_local, loading
from huebench.models.base import Capability, Model
from huebench.models.hf import checkpoint_fingerprint, require_extra

__all__ = ["DiffusersT2I", "load_diffusers"]


class DiffusersT2I(Model):
    family: ClassVar[str] = "diffusers"
    torch_backed = True
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.TEXT_TO_IMAGE})

    def __init__(
        self,
        ident: str,
        *,
        spec: str | None = None,
        steps: int | None = None,
        guidance_scale: float | None = None,
        **options: Any,
    ):
        super().__init__(
            spec or f"diffusers:{ident}",
            **{k: v for k, v in options.items() if k in ("device", "dtype", "batch_size", "seed")},
        )
        self.ident = ident
        folder = check_local(ident, self.spec, "model_index.json")
        if folder is not None:
            check_diffusers_folder(folder, self.spec)
        diffusers = require_extra("diffusers", "t2i")
        with loading(self.spec, ident, "its pipeline", self.device):
            self.pipe = diffusers.DiffusionPipeline.from_pretrained(
                ident, torch_dtype=self.torch_dtype, trust_remote_code=False, use_safetensors=True
            )
            self.pipe.to(self.device)
        self.pipe.set_progress_bar_config(disable=True)
        self.steps = steps
        self.guidance_scale = guidance_scale
        self._weights = checkpoint_fingerprint(ident)

    def fingerprint_parts(self) -> dict[str, Any]:
        return {
            **super().fingerprint_parts(),
            "weights": self._weights,
            "pipeline": type(self.pipe).__name__,
            "steps": self.steps,
            "guidance_scale": self.guidance_scale,
        }

    def generate_images(
        self,
        prompts: Sequence[str],
        seeds: Sequence[int],
        *,
        height: int | None = None,
        width: int | None = None,
        **options: Any,
    ) -> list[Any]:
        import torch

        kwargs: dict[str, Any] = {
            k: v
            for k, v in {
                "num_inference_steps": self.steps,
                "guidance_scale": self.guidance_scale,
                "height": height,
                "width": width,
            }.items()
            if v is not None
        }
        kwargs.update(options)
        gen_device = "cpu" if self.device.startswith("mps") else self.device

        def run(batch: list[tuple[str, int]]) -> list[Any]:
            gens = [torch.Generator(device=gen_device).manual_seed(int(s)) for _, s in batch]
            out = self.pipe(prompt=[p for p, _ in batch], generator=gens, output_type="pil", **kwargs)
            return list(out.images)

        return self._batched(run, list(zip(prompts, seeds, strict=True)))


def load_diffusers(ident: str, *, spec: str | None = None, **options: Any) -> DiffusersT2I:
    return DiffusersT2I(ident, spec=spec, **options)
