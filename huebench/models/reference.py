"""``reference:`` built-in baselines that need no weights.

``reference:random[:SEED]`` answers every capability with seeded noise that depends only on the
seed and the request's content, so it is the chance baseline of any benchmark and is invariant
to batching, ordering and caching (which makes it the harness's own test subject).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from PIL import Image

from huebench.errors import HuebenchError
from huebench.hashing import content_hash
from huebench.models.base import Capability, Model, PLLResult, VLMQuery

__all__ = ["RandomBaseline"]


class RandomBaseline(Model):
    """Seeded random answers for every text/image capability."""

    family: ClassVar[str] = "reference-random"
    capabilities: ClassVar[frozenset[Capability]] = frozenset(
        {
            Capability.MASKED_LM,
            Capability.CAUSAL_LM,
            Capability.IMAGE_TEXT_SCORE,
            Capability.ITM,
            Capability.VLM,
            Capability.TEXT_TO_IMAGE,
            Capability.TEXT_FEATURES,
        }
    )
    feature_dim = 32

    def __init__(self, spec: str = "reference:random", **kwargs: Any):
        super().__init__(spec, **kwargs)
        parts = spec.split(":")
        if len(parts) > 2:
            if not parts[2].isdigit():
                raise HuebenchError(
                    f"model {spec!r}: the seed after 'reference:random:' must be a whole number, e.g. reference:random:7"
                )
            self.seed = int(parts[2])

    def fingerprint_parts(self) -> dict[str, Any]:
        return {**super().fingerprint_parts(), "seed": self.seed}

    def _rng(self, *keys: Any) -> np.random.Generator:
        h = hashlib.sha256(f"{self.seed}".encode())
        for k in keys:
            h.update(b"\x00")
            h.update(k.encode() if isinstance(k, str) else content_hash(k).encode())
        return np.random.default_rng(int.from_bytes(h.digest()[:8], "little"))

    def mask_logprobs(self, templates: Sequence[str], candidates: Sequence[str]) -> list[list[float]]:
        out = []
        for t in templates:
            logits = np.array([self._rng("mask", t, c).normal() for c in candidates])
            out.append((logits - np.logaddexp.reduce(logits)).tolist())
        return out

    def pseudo_log_likelihood(self, sentences: Sequence[str], *, within_word_l2r: bool = False) -> list[PLLResult]:
        out = []
        for s in sentences:
            toks = s.split()
            lps = [float(-self._rng("pll", s, str(i)).exponential(3.0)) for i in range(len(toks))]
            out.append(PLLResult(total=float(sum(lps)), token_logprobs=lps, tokens=toks))
        return out

    def sentence_logprobs(self, sentences: Sequence[str]) -> list[tuple[float, int]]:
        return [
            (float(-self._rng("clm", s).exponential(3.0) * max(len(s.split()), 1)), max(len(s.split()), 1))
            for s in sentences
        ]

    def completion_logprobs(self, contexts: Sequence[str], completions: Sequence[str]) -> list[tuple[float, int]]:
        return [
            (float(-self._rng("completion", c, x).exponential(3.0)), max(len(x.split()), 1))
            for c, x in zip(contexts, completions, strict=True)
        ]

    def score(self, images: Sequence[Any], texts: Sequence[str]) -> np.ndarray:
        def rows(batch: list[Any]) -> list[list[float]]:
            return [
                [float(self._rng("score", content_hash(np.asarray(img)), t).normal()) for t in texts] for img in batch
            ]

        return np.array(self._batched(rows, list(images))).reshape(len(images), len(texts))

    def match_probability(self, images: Sequence[Any], texts: Sequence[str]) -> list[float]:
        def run(batch: list[tuple[Any, str]]) -> list[float]:
            return [float(self._rng("itm", content_hash(np.asarray(i)), t).random()) for i, t in batch]

        return self._batched(run, list(zip(images, texts, strict=True)))

    def _query_key(self, q: VLMQuery) -> list[str]:
        return [p if isinstance(p, str) else content_hash(np.asarray(p)) for p in q.parts]

    def generate(self, queries: Sequence[VLMQuery]) -> list[str]:
        return [
            str(self._rng("gen", *self._query_key(q)).choice(["yes", "no", "A", "B", "first", "second"]))
            for q in queries
        ]

    def yes_probability(self, queries: Sequence[VLMQuery]) -> list[float]:
        return self._batched(
            lambda batch: [float(self._rng("yes", *self._query_key(q)).random()) for q in batch], list(queries)
        )

    def generate_images(
        self, prompts: Sequence[str], seeds: Sequence[int], *, size: int = 64, **options: Any
    ) -> list[Image.Image]:
        # a uniformly random flat colour with mild noise: the chance level of a colour benchmark
        out = []
        for p, s in zip(prompts, seeds, strict=True):
            rng = self._rng("t2i", p, str(s))
            base = rng.integers(0, 256, 3)
            px = np.clip(base + rng.normal(0, 4, (size, size, 3)), 0, 255).astype(np.uint8)
            out.append(Image.fromarray(px))
        return out

    def text_features(self, texts: Sequence[str], *, position: str = "default") -> np.ndarray:
        return np.stack([self._rng("feat", position, t).normal(size=self.feature_dim) for t in texts])
