"""Vision(-language) transformers adapters: contrastive, ITM, generative VLMs, detection, segmentation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from huebench.images import concat_horizontal, to_rgb
from huebench.models.base import Capability, DetectionBox, VLMQuery
from huebench.models.hf import HFModel

__all__ = ["HFBlipITM", "HFContrastive", "HFDetector", "HFFlava", "HFSegmenter", "HFVisionLanguage"]


def _features(out: Any) -> Any:
    """transformers ≥5 returns model outputs from ``get_*_features``; older versions a tensor."""
    return out if hasattr(out, "shape") else out.pooler_output


def _rgb(images: Sequence[Any]) -> list[Any]:
    return [to_rgb(im) for im in images]


class _Processed(HFModel):
    processor: Any
    model: Any

    def _load_processor(self) -> None:
        import transformers

        self.processor = self._load_pretrained(transformers.AutoProcessor, "its processor")

    def _to(self, batch: Any) -> Any:
        import torch

        return {k: (v.to(self.device) if isinstance(v, torch.Tensor) else v) for k, v in batch.items()}

    def _pair_probabilities(self, images: Sequence[Any], texts: Sequence[str], itm_logits: Any) -> list[float]:
        """P(match) per (image, text) pair: softmax column 1 of ``itm_logits(encoded batch)``."""
        import torch

        def run(batch: list[tuple[Any, str]]) -> list[float]:
            enc = self.processor(
                images=_rgb([b[0] for b in batch]),
                text=[b[1] for b in batch],
                return_tensors="pt",
                padding=True,
                truncation=True,
            )
            with torch.inference_mode():
                logits = itm_logits(self._to(enc)).float()
            return torch.softmax(logits, dim=-1)[:, 1].cpu().tolist()

        return self._batched(run, list(zip(images, texts, strict=True)))


class HFContrastive(_Processed):
    """CLIP and SigLIP: ``score(images, texts)`` = the model's image-text logits; text features."""

    family: ClassVar[str] = "hf-contrastive"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.IMAGE_TEXT_SCORE, Capability.TEXT_FEATURES})

    def __init__(self, ident: str, **kwargs: Any):
        super().__init__(ident, **kwargs)
        import transformers

        self._load_processor()
        self.model = self._from_pretrained(transformers.AutoModel)
        self.is_siglip = self.config.model_type.startswith("siglip")

    def _text_embeds(self, texts: Sequence[str], normalize: bool = True) -> Any:
        import torch

        def run(batch: list[str]) -> list[Any]:
            kw = (
                {"padding": "max_length", "max_length": 64, "truncation": True}
                if self.is_siglip
                else {"padding": True, "truncation": True}
            )
            enc = self._to(self.processor.tokenizer(batch, return_tensors="pt", **kw))
            with torch.inference_mode():
                f = _features(self.model.get_text_features(**enc)).float()
            return list(torch.nn.functional.normalize(f, dim=-1) if normalize else f)

        return torch.stack(self._batched(run, list(texts)))

    def _image_embeds(self, images: Sequence[Any]) -> Any:
        import torch

        def run(batch: list[Any]) -> list[Any]:
            enc = self._to(self.processor.image_processor(images=_rgb(batch), return_tensors="pt"))
            with torch.inference_mode():
                f = _features(self.model.get_image_features(pixel_values=enc["pixel_values"])).float()
            return list(torch.nn.functional.normalize(f, dim=-1))

        return torch.stack(self._batched(run, list(images)))

    def score(self, images: Sequence[Any], texts: Sequence[str]) -> np.ndarray:
        """``logit_scale · cos(image, text)`` (+ ``logit_bias`` for SigLIP): each image and text embedded once."""
        img = self._image_embeds(images)
        txt = self._text_embeds(texts)
        logits = self.model.logit_scale.exp().float() * img @ txt.T
        if self.is_siglip:
            logits = logits + self.model.logit_bias.float()
        return logits.detach().cpu().numpy().astype(np.float64)

    def text_features(self, texts: Sequence[str], *, position: str = "pooled") -> np.ndarray:
        """The projected text embedding (CLIP text tower), unnormalised."""
        return self._text_embeds(texts, normalize=False).cpu().numpy()


class HFBlipITM(_Processed):
    """BLIP image-text retrieval checkpoints: ITM head probabilities and ITC similarities."""

    family: ClassVar[str] = "hf-blip"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.ITM, Capability.IMAGE_TEXT_SCORE})

    def __init__(self, ident: str, **kwargs: Any):
        super().__init__(ident, **kwargs)
        import transformers

        self._load_processor()
        self.model = self._from_pretrained(transformers.BlipForImageTextRetrieval)

    def match_probability(self, images: Sequence[Any], texts: Sequence[str]) -> list[float]:
        return self._pair_probabilities(images, texts, lambda enc: self.model(**enc, use_itm_head=True).itm_score)

    def score(self, images: Sequence[Any], texts: Sequence[str]) -> np.ndarray:
        """ITC cosine similarities (the head BLIP uses for retrieval before ITM re-ranking)."""
        import torch

        txt = self.processor.tokenizer(list(texts), return_tensors="pt", padding=True)
        rows: list[np.ndarray] = []

        def run(batch: list[Any]) -> list[np.ndarray]:
            enc = self._to(self.processor.image_processor(images=_rgb(batch), return_tensors="pt"))
            with torch.inference_mode():
                sim = self.model(
                    input_ids=txt["input_ids"].to(self.device),
                    attention_mask=txt["attention_mask"].to(self.device),
                    pixel_values=enc["pixel_values"],
                    use_itm_head=False,
                )[0]
            return list(sim.float().cpu().numpy())

        rows = self._batched(run, list(images))
        return np.stack(rows).astype(np.float64)


class HFFlava(_Processed):
    """FLAVA (``FlavaForPreTraining``): ITM head on the multimodal encoder, and global contrastive logits."""

    family: ClassVar[str] = "hf-flava"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.ITM, Capability.IMAGE_TEXT_SCORE})

    def __init__(self, ident: str, **kwargs: Any):
        super().__init__(ident, **kwargs)
        import transformers

        self._load_processor()
        self.model = self._from_pretrained(transformers.FlavaForPreTraining)

    def match_probability(self, images: Sequence[Any], texts: Sequence[str]) -> list[float]:
        def itm(enc: Any) -> Any:
            out = self.model.flava(
                input_ids=enc["input_ids"],
                attention_mask=enc["attention_mask"],
                pixel_values=enc["pixel_values"],
                skip_multimodal_encoder=False,
            )
            return self.model.itm_head(out.multimodal_embeddings)

        return self._pair_probabilities(images, texts, itm)

    def score(self, images: Sequence[Any], texts: Sequence[str]) -> np.ndarray:
        import torch

        flava = self.model.flava

        def run_img(batch: list[Any]) -> list[Any]:
            enc = self._to(self.processor.image_processor(images=_rgb(batch), return_tensors="pt"))
            with torch.inference_mode():
                h = flava.image_model(pixel_values=enc["pixel_values"]).last_hidden_state
                return list(torch.nn.functional.normalize(flava.image_projection(h[:, 0]).float(), dim=-1))

        def run_txt(batch: list[str]) -> list[Any]:
            enc = self._to(self.processor.tokenizer(batch, return_tensors="pt", padding=True, truncation=True))
            with torch.inference_mode():
                h = flava.text_model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]).last_hidden_state
                return list(torch.nn.functional.normalize(flava.text_projection(h[:, 0]).float(), dim=-1))

        img = torch.stack(self._batched(run_img, list(images)))
        txt = torch.stack(self._batched(run_txt, list(texts)))
        return (flava.logit_scale.exp().float() * img @ txt.T).detach().cpu().numpy().astype(np.float64)


#: VLM families trained with several images per prompt; others get one side-by-side image.
NATIVE_MULTI_IMAGE = {"qwen2_vl", "qwen2_5_vl", "llava_onevision", "idefics2", "idefics3", "mllama", "gemma3"}
YES_WORDS = ("yes", "Yes", "YES")
NO_WORDS = ("no", "No", "NO")


class HFVisionLanguage(_Processed):
    """Generative VLMs (LLaVA, Qwen2-VL, …): greedy generation and yes-probability."""

    family: ClassVar[str] = "hf-vlm"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.VLM})

    def __init__(self, ident: str, **kwargs: Any):
        super().__init__(ident, **kwargs)
        import transformers

        self._load_processor()
        self.model = self._from_pretrained(transformers.AutoModelForImageTextToText)
        self.tokenizer = self.processor.tokenizer
        self.tokenizer.padding_side = "left"  # generation continues every row at the same position
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.native_multi_image = self.config.model_type in NATIVE_MULTI_IMAGE
        self.image_token = getattr(self.processor, "image_token", "<image>")

    def fingerprint_parts(self) -> dict[str, Any]:
        return {**super().fingerprint_parts(), "multi_image": "native" if self.native_multi_image else "concat"}

    def _prompt(self, query: VLMQuery) -> tuple[str, list[Any]]:
        images = _rgb(query.images)
        if len(images) > 1 and not self.native_multi_image:
            # one side-by-side image where the first image marker was; later markers dropped
            images = [concat_horizontal(images)]
            parts: list[str | None] = []  # text, or None where an image goes
            seen = False
            for p in query.parts:
                if isinstance(p, str):
                    parts.append(p)
                elif not seen:
                    parts.append(None)
                    seen = True
        else:
            parts = [p if isinstance(p, str) else None for p in query.parts]
        if getattr(self.processor, "chat_template", None):
            content = [{"type": "text", "text": p} if p is not None else {"type": "image"} for p in parts]
            text = self.processor.apply_chat_template(
                [{"role": "user", "content": content}], add_generation_prompt=True
            )
        else:  # LLaVA-1.5's conversation format
            body = "".join(p if p is not None else f"{self.image_token}\n" for p in parts)
            text = f"USER: {body} ASSISTANT:"
        return text, images

    def _encode(self, batch: Sequence[VLMQuery]) -> Any:
        prompts, images = [], []
        for q in batch:
            t, ims = self._prompt(q)
            prompts.append(t)
            images.extend(ims)
        return self._to(self.processor(images=images or None, text=prompts, return_tensors="pt", padding=True))

    def generate(self, queries: Sequence[VLMQuery]) -> list[str]:
        import torch

        def run(batch: list[VLMQuery]) -> list[str]:
            enc = self._encode(batch)
            with torch.inference_mode():
                out = self.model.generate(
                    **enc,
                    max_new_tokens=max(q.max_new_tokens for q in batch),
                    do_sample=False,
                    pad_token_id=self.tokenizer.pad_token_id,
                )
            new = out[:, enc["input_ids"].shape[1] :]
            return [t.strip() for t in self.tokenizer.batch_decode(new, skip_special_tokens=True)]

        return self._batched(run, list(queries))

    def _first_token_ids(self, words: Sequence[str]) -> list[int]:
        ids = set()
        for w in words:
            for variant in (w, " " + w):
                toks = self.tokenizer(variant, add_special_tokens=False)["input_ids"]
                if toks:
                    ids.add(toks[0])
        return sorted(ids)

    def yes_probability(self, queries: Sequence[VLMQuery]) -> list[float]:
        """P(yes) / (P(yes) + P(no)) over the first generated token (all yes/no spellings summed)."""
        import torch

        yes, no = self._first_token_ids(YES_WORDS), self._first_token_ids(NO_WORDS)

        def run(batch: list[VLMQuery]) -> list[float]:
            enc = self._encode(batch)
            with torch.inference_mode():
                logits = self.model(**enc).logits[:, -1].float()
            p = torch.softmax(logits, dim=-1)
            py, pn = p[:, yes].sum(-1), p[:, no].sum(-1)
            return (py / (py + pn).clamp_min(1e-30)).cpu().tolist()

        return self._batched(run, list(queries))


class HFDetector(_Processed):
    """Open-vocabulary detection: GroundingDINO or OWLv2 boxes for text labels."""

    family: ClassVar[str] = "hf-detector"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.DETECTION})

    def __init__(self, ident: str, **kwargs: Any):
        super().__init__(ident, **kwargs)
        import transformers

        self._load_processor()
        self.model = self._from_pretrained(transformers.AutoModelForZeroShotObjectDetection)
        self.is_grounding_dino = self.config.model_type == "grounding-dino"

    def detect(self, image: Any, labels: Sequence[str], *, threshold: float = 0.3) -> list[DetectionBox]:
        import torch

        image = to_rgb(image)
        if self.is_grounding_dino:
            groups = self._label_groups(labels)
            if len(groups) > 1:  # the text encoder takes max_text_len tokens: one pass per group
                return [b for g in groups for b in self.detect(image, g, threshold=threshold)]
            text = " ".join(f"{label.strip().rstrip('.')}." for label in labels)  # GroundingDINO: "a. b."
            enc = self._to(self.processor(images=image, text=text, return_tensors="pt"))
            with torch.inference_mode():
                out = self.model(**enc)
            res = self.processor.post_process_grounded_object_detection(
                out,
                enc["input_ids"],
                threshold=threshold,
                text_threshold=threshold,
                target_sizes=[(image.height, image.width)],
            )[0]
            names = res.get("text_labels", res.get("labels"))
        else:
            enc = self._to(self.processor(images=image, text=[list(labels)], return_tensors="pt"))
            with torch.inference_mode():
                out = self.model(**enc)
            # OWLv2 pads images to a square before resizing: boxes are relative to that square
            side = max(image.height, image.width)
            res = self.processor.post_process_grounded_object_detection(
                out, threshold=threshold, target_sizes=[(side, side)], text_labels=[list(labels)]
            )[0]
            names = res["text_labels"]
        scores, boxes = res["scores"].tolist(), res["boxes"].tolist()
        if not scores:
            return []
        w, h = float(image.width), float(image.height)
        return [
            DetectionBox(
                label=str(n),
                score=float(sc),
                box=(min(max(b[0], 0.0), w), min(max(b[1], 0.0), h), min(max(b[2], 0.0), w), min(max(b[3], 0.0), h)),
            )
            for n, sc, b in zip(names, scores, boxes, strict=True)
        ]

    def _label_groups(self, labels: Sequence[str]) -> list[list[str]]:
        """Split labels so each group's "a. b. c." prompt fits GroundingDINO's max_text_len."""
        limit = int(getattr(self.config, "max_text_len", 256)) - 2  # [CLS] and [SEP]
        tok = self.processor.tokenizer
        groups: list[list[str]] = [[]]
        used = 0
        for label in labels:
            n = len(tok(f"{label.strip().rstrip('.')}.", add_special_tokens=False)["input_ids"])
            if n > limit:
                raise ValueError(f"detection label {label!r} alone is {n} tokens; the detector takes {limit}")
            if groups[-1] and used + n > limit:
                groups.append([])
                used = 0
            groups[-1].append(label)
            used += n
        return groups


class HFSegmenter(_Processed):
    """SAM: one boolean mask per box prompt."""

    family: ClassVar[str] = "hf-sam"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.SEGMENTATION})

    def __init__(self, ident: str, **kwargs: Any):
        super().__init__(ident, **kwargs)
        import transformers

        self._load_processor()
        self.model = self._from_pretrained(transformers.SamModel)

    def segment(self, image: Any, boxes: Sequence[Sequence[float]]) -> list[np.ndarray]:
        import torch

        image = to_rgb(image)
        if not boxes:
            return []
        enc = self.processor(images=image, input_boxes=[[list(b) for b in boxes]], return_tensors="pt")
        with torch.inference_mode():
            out = self.model(**self._to(enc), multimask_output=False)
        masks = self.processor.image_processor.post_process_masks(
            out.pred_masks.cpu(), enc["original_sizes"], enc["reshaped_input_sizes"]
        )[0]
        return [m[0].numpy().astype(bool) for m in masks]
