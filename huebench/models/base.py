"""Capabilities: the small interfaces benchmarks call, whatever model sits behind them.

A benchmark never asks "is this CLIP?": it asks for a capability (``model.capabilities``) and
calls its method. Adapters (``hf.py``, ``diffusers_t2i.py``, ``api.py``, ``reference.py``, …)
implement the methods they can. Every method takes a *list* of requests and returns one output
per request, so the run layer can cache, batch and resume per request.

Request and output types are plain data (str, float, list, PIL images) so outputs can be
cached as JSON and re-scored without a model.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, TypeVar

import numpy as np

from huebench import progress
from huebench.errors import HuebenchError
from huebench.models._torch import check_device, check_dtype, resolve_device, resolve_dtype

log = logging.getLogger(__name__)

__all__ = [
    "BatchStats",
    "Capability",
    "CapabilityError",
    "DetectionBox",
    "Model",
    "PLLResult",
    "VLMQuery",
    "is_out_of_memory",
    "run_batched",
]


class Capability(StrEnum):
    """What a model can do, in the terms benchmarks ask for."""

    MASKED_LM = "masked-lm"  # candidate distribution at a mask; pseudo-log-likelihood
    CAUSAL_LM = "causal-lm"  # sentence log-probability; candidate completions
    IMAGE_TEXT_SCORE = "image-text-score"  # score(images, texts) -> m×n matrix (contrastive)
    ITM = "itm"  # match probability from an image-text-matching head
    VLM = "vlm"  # generation over interleaved images and text; yes-probability
    TEXT_TO_IMAGE = "text-to-image"
    DETECTION = "detection"  # open-vocabulary boxes for text labels
    SEGMENTATION = "segmentation"  # masks for boxes
    TEXT_FEATURES = "text-features"  # frozen features for probing


class CapabilityError(HuebenchError, TypeError):
    """A benchmark asked a model for something it cannot do (``capability``: what it asked for)."""

    def __init__(self, message: str, capability: Capability | None = None):
        super().__init__(message)
        self.capability = capability


@dataclass(frozen=True)
class PLLResult:
    """Pseudo-log-likelihood of one sentence (Salazar et al. 2020)."""

    total: float  # sum of log P(token | rest) over scored tokens, natural log
    token_logprobs: list[float]
    tokens: list[str]

    @property
    def mean(self) -> float:
        return self.total / max(len(self.token_logprobs), 1)


@dataclass(frozen=True)
class VLMQuery:
    """One VLM request: interleaved parts (``str`` text or PIL images), in order."""

    parts: tuple[Any, ...]
    max_new_tokens: int = 32

    @property
    def images(self) -> list[Any]:
        return [p for p in self.parts if not isinstance(p, str)]

    @property
    def text(self) -> str:
        return "".join(p if isinstance(p, str) else "<image>" for p in self.parts)

    def cache_request(self) -> dict[str, Any]:
        return {
            "parts": [p if isinstance(p, str) else np.asarray(p) for p in self.parts],
            "max_new_tokens": self.max_new_tokens,
        }


@dataclass(frozen=True)
class DetectionBox:
    label: str
    score: float
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels


@dataclass
class BatchStats:
    """How a batched call actually ran: recorded in every run's outputs."""

    requested_batch_size: int
    batch_sizes_used: list[int] = field(default_factory=list)
    oom_backoffs: int = 0
    forward_calls: int = 0

    effective_batch_size: int = 0  # the batch-size limit in force at the end (after any back-off)

    def __post_init__(self) -> None:
        if not self.effective_batch_size:
            self.effective_batch_size = self.requested_batch_size

    @property
    def final_batch_size(self) -> int:
        return self.batch_sizes_used[-1] if self.batch_sizes_used else self.requested_batch_size


T = TypeVar("T")
R = TypeVar("R")


def is_out_of_memory(exc: BaseException) -> bool:
    name = type(exc).__name__
    if name in ("OutOfMemoryError", "MemoryError"):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


def run_batched(
    fn: Callable[[list[T]], Sequence[R]],
    items: Sequence[T],
    batch_size: int,
    stats: BatchStats | None = None,
    *,
    on_batch: Callable[[int], None] | None = None,
) -> list[R]:
    """Call ``fn`` on consecutive batches; on out-of-memory halve the batch size and retry.

    Results are in input order. Batch composition must not change results (each adapter's
    tests check it), so backing off is invisible except in ``stats``.
    """
    if batch_size < 1:
        raise ValueError(f"batch size must be >= 1, got {batch_size}")
    stats = stats if stats is not None else BatchStats(batch_size)
    out: list[R] = []
    i, bs = 0, batch_size
    while i < len(items):
        batch = list(items[i : i + bs])
        try:
            results = fn(batch)
        except Exception as exc:
            if not is_out_of_memory(exc) or bs == 1:
                raise
            bs = max(1, bs // 2)
            stats.oom_backoffs += 1
            stats.effective_batch_size = bs
            log.warning("out of memory at batch size %d; retrying with %d", len(batch), bs)
            _free_accelerator_memory()
            continue
        if len(results) != len(batch):
            raise RuntimeError(f"batched call returned {len(results)} results for {len(batch)} inputs")
        out.extend(results)
        stats.forward_calls += 1
        if not stats.batch_sizes_used or stats.batch_sizes_used[-1] != len(batch):
            stats.batch_sizes_used.append(len(batch))
        i += len(batch)
        if on_batch:
            on_batch(len(batch))
        progress.model_batch_done(len(batch))  # display only: a run's progress moves within a chunk
    return out


def _free_accelerator_memory() -> None:
    try:
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    except ImportError:  # pragma: no cover
        pass


class Model:
    """Base of every adapter: identity, options and the capabilities it implements.

    Subclasses set ``capabilities`` and implement the matching methods:

    - ``masked-lm``: :meth:`mask_logprobs`, :meth:`pseudo_log_likelihood`
    - ``causal-lm``: :meth:`sentence_logprobs`, :meth:`completion_logprobs`
    - ``image-text-score``: :meth:`score`
    - ``itm``: :meth:`match_probability`
    - ``vlm``: :meth:`generate`, :meth:`yes_probability`
    - ``text-to-image``: :meth:`generate_images`
    - ``detection`` / ``segmentation``: :meth:`detect`, :meth:`segment`
    - ``text-features``: :meth:`text_features`
    """

    capabilities: ClassVar[frozenset[Capability]] = frozenset()
    family: ClassVar[str] = "model"
    #: runs a torch model: ``device`` must exist on this machine and ``dtype`` work there (checked
    #: with torch when the model is made); other backends have the spelling checked only, no torch
    torch_backed: ClassVar[bool] = False
    #: the ``torch.dtype`` of ``dtype`` (torch-backed models only)
    torch_dtype: Any = None

    def __init__(self, spec: str, *, device: str = "cpu", dtype: str = "float32", batch_size: int = 8, seed: int = 0):
        self.spec = spec
        self.device = check_device(device)
        self.dtype = check_dtype(dtype)
        if self.torch_backed:  # before any weights are read: a wrong device fails in one line, at once
            torch_device = resolve_device(self.device)
            self.device = str(torch_device)
            self.torch_dtype = resolve_dtype(self.dtype, torch_device)
        self.batch_size = batch_size
        self.seed = seed
        self.last_batch: BatchStats | None = None

    # -- identity ------------------------------------------------------------------------
    def fingerprint_parts(self) -> dict[str, Any]:
        """What determines this model's outputs; subclasses add weights' hashes/revisions."""
        return {"spec": self.spec, "family": self.family, "dtype": self.dtype}

    @property
    def fingerprint(self) -> str:
        blob = json.dumps(self.fingerprint_parts(), sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:20]

    def supports(self, capability: Capability | str) -> bool:
        return Capability(capability) in self.capabilities

    def require(self, capability: Capability | str) -> None:
        cap = Capability(capability)
        if cap not in self.capabilities:
            have = ", ".join(sorted(c.value for c in self.capabilities)) or "none"
            raise CapabilityError(f"model {self.spec!r} ({self.family}) cannot do {cap.value}; it offers: {have}", cap)

    def _batched(
        self, fn: Callable[[list[T]], Sequence[R]], items: Sequence[T], batch_size: int | None = None
    ) -> list[R]:
        stats = BatchStats(batch_size or self.batch_size)
        try:
            return run_batched(fn, items, stats.requested_batch_size, stats)
        finally:
            self.last_batch = stats

    def describe(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "family": self.family,
            "capabilities": sorted(c.value for c in self.capabilities),
            "device": self.device,
            "dtype": self.dtype,
            "batch_size": self.batch_size,
            "fingerprint": self.fingerprint,
        }

    # -- capability methods (adapters override what they support) ---------------------------
    def mask_logprobs(self, templates: Sequence[str], candidates: Sequence[str]) -> list[list[float]]:
        """For each template containing ``[MASK]``, log P(candidate fills the mask) per candidate.

        A candidate of k word pieces is scored by the chain rule: k masks, fill left to right.
        """
        self.require(Capability.MASKED_LM)
        raise NotImplementedError

    def pseudo_log_likelihood(self, sentences: Sequence[str], *, within_word_l2r: bool = False) -> list[PLLResult]:
        self.require(Capability.MASKED_LM)
        raise NotImplementedError

    def sentence_logprobs(self, sentences: Sequence[str]) -> list[tuple[float, int]]:
        """``(sum of token log-probs, number of scored tokens)`` per sentence."""
        self.require(Capability.CAUSAL_LM)
        raise NotImplementedError

    def completion_logprobs(self, contexts: Sequence[str], completions: Sequence[str]) -> list[tuple[float, int]]:
        """log P(completion | context) per pair: ``(sum, number of completion tokens)``."""
        self.require(Capability.CAUSAL_LM)
        raise NotImplementedError

    def score(self, images: Sequence[Any], texts: Sequence[str]) -> np.ndarray:
        """Contrastive similarity matrix, shape ``(len(images), len(texts))``."""
        self.require(Capability.IMAGE_TEXT_SCORE)
        raise NotImplementedError

    def match_probability(self, images: Sequence[Any], texts: Sequence[str]) -> list[float]:
        """P(match) for each (image, text) pair, from an ITM head."""
        self.require(Capability.ITM)
        raise NotImplementedError

    def generate(self, queries: Sequence[VLMQuery]) -> list[str]:
        self.require(Capability.VLM)
        raise NotImplementedError

    def yes_probability(self, queries: Sequence[VLMQuery]) -> list[float]:
        """P("yes") / (P("yes") + P("no")) for the first answer token of each yes/no question."""
        self.require(Capability.VLM)
        raise NotImplementedError

    def generate_images(self, prompts: Sequence[str], seeds: Sequence[int], **options: Any) -> list[Any]:
        """One image per (prompt, seed); each uses its own generator, so batching never changes it."""
        self.require(Capability.TEXT_TO_IMAGE)
        raise NotImplementedError

    def detect(self, image: Any, labels: Sequence[str], *, threshold: float = 0.3) -> list[DetectionBox]:
        self.require(Capability.DETECTION)
        raise NotImplementedError

    def segment(self, image: Any, boxes: Sequence[Sequence[float]]) -> list[np.ndarray]:
        """A boolean mask (H×W) per box (x0, y0, x1, y1; a tuple or a list)."""
        self.require(Capability.SEGMENTATION)
        raise NotImplementedError

    def text_features(self, texts: Sequence[str], *, position: str = "default") -> np.ndarray:
        """Frozen features, shape ``(len(texts), dim)``. ``position``: ``mask``, ``pre-mask``, ``pooled``."""
        self.require(Capability.TEXT_FEATURES)
        raise NotImplementedError
