"""Typed requests: one class per thing a benchmark can ask a model, and how to ask it in batches.

A benchmark builds requests and scores what comes back; the run layer
(:meth:`huebench.runs.context.RunContext.answer`) looks each request up in the output cache and sends
the rest to the model with :meth:`Request.compute`. A request's cache key is built from everything
sent to the model (:meth:`Request.payload`: the full prompt text after templating, generation
parameters, images by content hash) plus its kind and the model's fingerprint — so editing a prompt
template changes exactly the requests that use it, and the same request made by two benchmarks is
one cache entry.

=====================  ======================  =========================================
request                kind (cache namespace)  output
=====================  ======================  =========================================
ImageTextScores        image-text-score        images × texts matrix (contrastive scores)
MatchProbability       itm                     P(match) from an image-text-matching head
YesProbability         vlm-yes-probability     P("yes") as the VLM's first answer token
Generation             vlm-generate            generated text
MaskCandidates         masked-lm-candidates    log P(candidate fills [MASK]) per candidate
SentenceLogprob        causal-lm-sentence      sum of token log-probabilities
PseudoLogLikelihood    pll                     pseudo-log-likelihood (total)
TextFeatures           text-features           frozen feature vector
Detection              detection               boxes (label, score, box) for text labels
Segmentation           segmentation            run-length-encoded masks for boxes
ImageGeneration        (not cached)            an image (the image store keeps those)
=====================  ======================  =========================================
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np

from huebench.models.base import Capability, Model, VLMQuery

__all__ = [
    "REQUEST_TYPES",
    "Answers",
    "Detection",
    "Generation",
    "ImageGeneration",
    "ImageTextScores",
    "MaskCandidates",
    "MatchProbability",
    "PseudoLogLikelihood",
    "Request",
    "Segmentation",
    "SentenceLogprob",
    "TextFeatures",
    "YesProbability",
    "group_outputs",
]

Part = str | np.ndarray  # a VLM prompt part: text, or an image as an H×W×3 uint8 array


def _pil(image: np.ndarray) -> Any:
    from PIL import Image

    return Image.fromarray(image)


def _query(parts: Sequence[Part], max_new_tokens: int) -> VLMQuery:
    return VLMQuery(tuple(p if isinstance(p, str) else _pil(p) for p in parts), max_new_tokens)


def _runs(requests: Sequence[Any], key: Callable[[Any], Any]) -> list[list[Any]]:
    """Consecutive requests with equal ``key``, in order (one model call each)."""
    out: list[list[Any]] = []
    for r in requests:
        if out and key(out[-1][0]) == key(r):
            out[-1].append(r)
        else:
            out.append([r])
    return out


@dataclass(frozen=True, eq=False)
class Request:
    """A request to a model. Subclasses declare their fields (everything the model is sent), the
    capability they need, their cache namespace and how a batch of them is computed."""

    capability: ClassVar[Capability]
    kind: ClassVar[str]
    cacheable: ClassVar[bool] = True

    def payload(self) -> dict[str, Any]:
        """Everything sent to the model: the cache key's content (arrays by content hash)."""
        return {f: getattr(self, f) for f in self.__dataclass_fields__}

    @classmethod
    def compute(cls, model: Model, requests: Sequence[Any]) -> list[Any]:
        raise NotImplementedError


@dataclass(frozen=True, eq=False)
class ImageTextScores(Request):
    """Contrastive scores of ``images`` against ``texts`` (``model.score``): an images × texts matrix.

    ``batch_images``: consecutive one-image requests with the same texts may share one call (a batch
    of images). It is not part of the key (the scores are the same up to float rounding), and it is
    off by default so that a benchmark's scores never depend on which requests shared a chunk."""

    images: tuple[np.ndarray, ...]
    texts: tuple[str, ...]
    batch_images: bool = False
    capability: ClassVar[Capability] = Capability.IMAGE_TEXT_SCORE
    kind: ClassVar[str] = "image-text-score"

    def payload(self) -> dict[str, Any]:
        return {"images": self.images, "texts": self.texts}

    @classmethod
    def compute(cls, model: Model, requests: Sequence[ImageTextScores]) -> list[Any]:
        def group(r: ImageTextScores) -> Any:
            return r.texts if r.batch_images and len(r.images) == 1 else id(r)

        out: list[Any] = []
        for run in _runs(requests, group):
            if run[0].batch_images and len(run[0].images) == 1:
                matrix = np.asarray(model.score([_pil(r.images[0]) for r in run], list(run[0].texts)))
                out.extend([row.tolist()] for row in matrix)
            else:
                out.extend(np.asarray(model.score([_pil(x) for x in r.images], list(r.texts))).tolist() for r in run)
        return out


@dataclass(frozen=True, eq=False)
class MatchProbability(Request):
    """P(match) of one (image, text) pair from an image-text-matching head."""

    image: np.ndarray
    text: str
    capability: ClassVar[Capability] = Capability.ITM
    kind: ClassVar[str] = "itm"

    @classmethod
    def compute(cls, model: Model, requests: Sequence[MatchProbability]) -> list[Any]:
        return list(model.match_probability([_pil(r.image) for r in requests], [r.text for r in requests]))


@dataclass(frozen=True, eq=False)
class YesProbability(Request):
    """P("yes") as the first answer token to ``parts`` (the full prompt, after templating)."""

    parts: tuple[Part, ...]
    max_new_tokens: int = 1
    capability: ClassVar[Capability] = Capability.VLM
    kind: ClassVar[str] = "vlm-yes-probability"

    @classmethod
    def compute(cls, model: Model, requests: Sequence[YesProbability]) -> list[Any]:
        return list(model.yes_probability([_query(r.parts, r.max_new_tokens) for r in requests]))


@dataclass(frozen=True, eq=False)
class Generation(Request):
    """Greedy text generation for ``parts`` (the full prompt, after templating)."""

    parts: tuple[Part, ...]
    max_new_tokens: int
    capability: ClassVar[Capability] = Capability.VLM
    kind: ClassVar[str] = "vlm-generate"

    @classmethod
    def compute(cls, model: Model, requests: Sequence[Generation]) -> list[Any]:
        return list(model.generate([_query(r.parts, r.max_new_tokens) for r in requests]))


@dataclass(frozen=True, eq=False)
class MaskCandidates(Request):
    """log P(candidate fills ``[MASK]`` in ``template``) for each candidate (masked LM)."""

    template: str
    candidates: tuple[str, ...]
    capability: ClassVar[Capability] = Capability.MASKED_LM
    kind: ClassVar[str] = "masked-lm-candidates"

    @classmethod
    def compute(cls, model: Model, requests: Sequence[MaskCandidates]) -> list[Any]:
        out: list[Any] = []
        for run in _runs(requests, lambda r: r.candidates):
            out.extend(model.mask_logprobs([r.template for r in run], list(run[0].candidates)))
        return out


@dataclass(frozen=True, eq=False)
class SentenceLogprob(Request):
    """Sum of the token log-probabilities of ``sentence`` (causal LM)."""

    sentence: str
    capability: ClassVar[Capability] = Capability.CAUSAL_LM
    kind: ClassVar[str] = "causal-lm-sentence"

    @classmethod
    def compute(cls, model: Model, requests: Sequence[SentenceLogprob]) -> list[Any]:
        return [total for total, _ in model.sentence_logprobs([r.sentence for r in requests])]


@dataclass(frozen=True, eq=False)
class PseudoLogLikelihood(Request):
    """Pseudo-log-likelihood of ``sentence`` (masked LM, Salazar et al. 2020): the total."""

    sentence: str
    capability: ClassVar[Capability] = Capability.MASKED_LM
    kind: ClassVar[str] = "pll"

    @classmethod
    def compute(cls, model: Model, requests: Sequence[PseudoLogLikelihood]) -> list[Any]:
        return [r.total for r in model.pseudo_log_likelihood([x.sentence for x in requests])]


@dataclass(frozen=True, eq=False)
class TextFeatures(Request):
    """Frozen features of ``text`` at ``position`` (``mask``, ``pre-mask``, ``pooled``, ``default``)."""

    text: str
    position: str = "default"
    capability: ClassVar[Capability] = Capability.TEXT_FEATURES
    kind: ClassVar[str] = "text-features"

    @classmethod
    def compute(cls, model: Model, requests: Sequence[TextFeatures]) -> list[Any]:
        out: list[Any] = []
        for run in _runs(requests, lambda r: r.position):
            out.extend(model.text_features([r.text for r in run], position=run[0].position))
        return out


@dataclass(frozen=True, eq=False)
class Detection(Request):
    """Open-vocabulary boxes for ``labels`` in ``image`` above ``threshold``: dicts (label, score, box)."""

    image: np.ndarray
    labels: tuple[str, ...]
    threshold: float
    capability: ClassVar[Capability] = Capability.DETECTION
    kind: ClassVar[str] = "detection"

    @classmethod
    def compute(cls, model: Model, requests: Sequence[Detection]) -> list[Any]:
        return [
            [
                {"label": b.label, "score": b.score, "box": list(b.box)}
                for b in model.detect(_pil(r.image), list(r.labels), threshold=r.threshold)
            ]
            for r in requests
        ]


@dataclass(frozen=True, eq=False)
class Segmentation(Request):
    """Masks of ``image`` for ``boxes`` (x0, y0, x1, y1), run-length encoded (``rle_encode``)."""

    image: np.ndarray
    boxes: tuple[tuple[float, ...], ...]
    capability: ClassVar[Capability] = Capability.SEGMENTATION
    kind: ClassVar[str] = "segmentation"

    def payload(self) -> dict[str, Any]:
        return {"image": self.image, "boxes": [list(b) for b in self.boxes]}

    @classmethod
    def compute(cls, model: Model, requests: Sequence[Segmentation]) -> list[Any]:
        from huebench.images import rle_encode

        return [[rle_encode(m) for m in model.segment(_pil(r.image), [list(b) for b in r.boxes])] for r in requests]


@dataclass(frozen=True, eq=False)
class ImageGeneration(Request):
    """An image for ``prompt`` from seed ``seed`` (text-to-image). Not cached: the image store keeps
    generated images, verified by hash."""

    prompt: str
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    capability: ClassVar[Capability] = Capability.TEXT_TO_IMAGE
    kind: ClassVar[str] = "text-to-image"
    cacheable: ClassVar[bool] = False

    @classmethod
    def compute(cls, model: Model, requests: Sequence[ImageGeneration]) -> list[Any]:
        out: list[Any] = []
        for run in _runs(requests, lambda r: sorted(r.options.items())):
            out.extend(model.generate_images([r.prompt for r in run], [r.seed for r in run], **run[0].options))
        return out


REQUEST_TYPES: tuple[type[Request], ...] = (
    ImageTextScores,
    MatchProbability,
    YesProbability,
    Generation,
    MaskCandidates,
    SentenceLogprob,
    PseudoLogLikelihood,
    TextFeatures,
    Detection,
    Segmentation,
    ImageGeneration,
)

#: one answer: ``{"output": …, "batch_size": …}`` (the batch-size limit it was computed under)
Answer = dict[str, Any]


class Answers(Protocol):
    """What a benchmark's ``evaluate`` is given to get its requests answered (the run layer's
    :class:`~huebench.runs.context.RunContext`): cached, counted, batch-size aware."""

    def answer(self, requests: Sequence[Request], *, model: Model | None = None) -> list[Answer]: ...

    def count_calls(self, model: Model, n: int) -> int: ...


def group_outputs(flat: Sequence[Answer], size: int) -> list[Answer]:
    """Answers made for ``size`` requests per sample, regrouped into one item per sample:
    ``{"output": [their outputs], "batch_size": the first one's}``."""
    if len(flat) % size:
        raise ValueError(f"{len(flat)} outputs do not split into groups of {size}")
    return [
        {"output": [o["output"] for o in flat[k : k + size]], "batch_size": flat[k]["batch_size"]}
        for k in range(0, len(flat), size)
    ]
