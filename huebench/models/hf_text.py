"""Text-only transformers adapters: masked LMs, causal LMs and sentence encoders.

Conventions: a *template* marks the slot with the literal ``[MASK]`` (whatever the model's own
mask token is); scores are natural-log probabilities.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from huebench.errors import HuebenchError
from huebench.models.base import Capability, PLLResult
from huebench.models.hf import HFModel

__all__ = ["MASK", "HFCausalLM", "HFMaskedLM", "HFSentenceEncoder"]

MASK = "[MASK]"


def _check_template(template: str) -> None:
    if template.count(MASK) != 1:
        raise HuebenchError(f"template must contain exactly one {MASK} slot, got {template.count(MASK)}: {template!r}")


@dataclass(frozen=True)
class _MaskJob:
    """One forward row: ``input_ids`` with some positions masked; read log P(target_id) at ``position``."""

    input_ids: tuple[int, ...]
    position: int
    target_id: int


class _TokenizerMixin:
    tokenizer: Any
    model: Any
    device: str

    def _padded(self, rows: Sequence[Sequence[int]]) -> tuple[Any, Any]:
        """Right-padded ``input_ids`` and ``attention_mask`` tensors on the model's device."""
        import torch

        width = max(len(r) for r in rows)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        ids = torch.full((len(rows), width), pad, dtype=torch.long)
        att = torch.zeros((len(rows), width), dtype=torch.long)
        for i, r in enumerate(rows):
            ids[i, : len(r)] = torch.tensor(r, dtype=torch.long)
            att[i, : len(r)] = 1
        return ids.to(self.device), att.to(self.device)

    def _pad_forward(self, rows: Sequence[Sequence[int]], *, hidden: bool = False) -> Any:
        import torch

        ids, att = self._padded(rows)
        with torch.inference_mode():
            return self.model(input_ids=ids, attention_mask=att, output_hidden_states=hidden)


class HFMaskedLM(_TokenizerMixin, HFModel):
    """Masked LM: candidate log-probabilities at a mask, pseudo-log-likelihood, features at the mask."""

    family: ClassVar[str] = "hf-masked-lm"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.MASKED_LM, Capability.TEXT_FEATURES})

    def __init__(self, ident: str, **kwargs: Any):
        super().__init__(ident, **kwargs)
        import transformers

        self.tokenizer = self._load_pretrained(transformers.AutoTokenizer, "its tokenizer")
        self.model = self._from_pretrained(transformers.AutoModelForMaskedLM)
        if self.tokenizer.mask_token_id is None:
            raise HuebenchError(f"hf:{ident}: the tokenizer has no mask token; not a masked LM")

    # -- batched scoring of mask jobs -------------------------------------------------------
    def _split_head(self) -> tuple[Any, Any] | None:
        """(encoder, MLM head) when the model is an encoder plus one position-wise head module.

        Every masked copy needs the vocabulary distribution at one position only; applying the
        head (hidden → vocabulary, 23M multiply-adds per token for BERT-base) to that position
        alone instead of to every token is most of the work saved.
        """
        if not hasattr(self, "_split"):
            base = getattr(self.model, self.model.base_model_prefix, None)
            heads = [m for name, m in self.model.named_children() if name != self.model.base_model_prefix]
            self._split = (base, heads[0]) if base is not None and len(heads) == 1 else None
        return self._split

    def _position_logits(self, batch: Sequence[_MaskJob]) -> Any:
        import torch

        rows = torch.arange(len(batch))
        pos = torch.tensor([j.position for j in batch])
        split = self._split_head()
        if split is None:
            return self._pad_forward([j.input_ids for j in batch]).logits.float()[rows, pos]
        encoder, head = split
        ids, att = self._padded([j.input_ids for j in batch])
        with torch.inference_mode():
            hidden = encoder(input_ids=ids, attention_mask=att)[0]
            return head(hidden[rows, pos].unsqueeze(1))[:, 0].float()

    def _score_jobs(self, jobs: Sequence[_MaskJob]) -> list[float]:
        import torch

        def run(batch: list[_MaskJob]) -> list[float]:
            logits = self._position_logits(batch)
            tgt = torch.tensor([j.target_id for j in batch])
            logp = torch.log_softmax(logits, dim=-1)[torch.arange(len(batch)), tgt]
            return logp.cpu().tolist()

        # sort by length so padding stays small; results are put back in input order
        order = sorted(range(len(jobs)), key=lambda i: len(jobs[i].input_ids))
        scored = self._batched(run, [jobs[i] for i in order])
        out = [0.0] * len(jobs)
        for i, v in zip(order, scored, strict=True):
            out[i] = v
        return out

    def _encode(self, text: str) -> Any:
        return self.tokenizer(text, return_offsets_mapping=True, return_special_tokens_mask=True)

    def mask_logprobs(self, templates: Sequence[str], candidates: Sequence[str]) -> list[list[float]]:
        """log P(candidate | template) for each template × candidate.

        A candidate that tokenizes into k pieces is scored by the chain rule, left to right:
        all k masked, read piece 1; fill it, read piece 2 with the rest still masked; … — so
        multi-token words ("purple" → "pur", "##ple") are neither truncated nor dropped.
        """
        jobs: list[_MaskJob] = []
        owners: list[tuple[int, int]] = []
        for ti, template in enumerate(templates):
            _check_template(template)
            start = template.index(MASK)
            for ci, cand in enumerate(candidates):
                text = template[:start] + cand + template[start + len(MASK) :]
                enc = self._encode(text)
                ids = list(enc["input_ids"])
                span = [
                    k
                    for k, (a, b) in enumerate(enc["offset_mapping"])
                    if not enc["special_tokens_mask"][k] and b > start and a < start + len(cand)
                ]
                if not span:
                    raise HuebenchError(f"candidate {cand!r} produced no tokens in {text!r}")
                for j, pos in enumerate(span):
                    row = list(ids)
                    for later in span[j:]:
                        row[later] = self.tokenizer.mask_token_id
                    jobs.append(_MaskJob(tuple(row), pos, ids[pos]))
                    owners.append((ti, ci))
        scores = self._score_jobs(jobs)
        out = [[0.0] * len(candidates) for _ in templates]
        for (ti, ci), s in zip(owners, scores, strict=True):
            out[ti][ci] += s
        return out

    def pseudo_log_likelihood(self, sentences: Sequence[str], *, within_word_l2r: bool = False) -> list[PLLResult]:
        """Salazar et al. (2020): mask each non-special token in turn, sum log P(token | rest).

        ``within_word_l2r`` (Kauf & Ivanova 2023): when a token belongs to a multi-token word,
        the word's tokens to its right are masked too, so a word is not predicted from its own
        later pieces. All masked copies of all sentences are scored in shared batches.
        """
        jobs: list[_MaskJob] = []
        owners: list[int] = []
        token_texts: list[list[str]] = []
        for si, sentence in enumerate(sentences):
            enc = self._encode(sentence)
            ids = list(enc["input_ids"])
            words = enc.word_ids()
            positions = [k for k in range(len(ids)) if not enc["special_tokens_mask"][k]]
            token_texts.append(self.tokenizer.convert_ids_to_tokens([ids[k] for k in positions]))
            for pos in positions:
                row = list(ids)
                row[pos] = self.tokenizer.mask_token_id
                if within_word_l2r and words[pos] is not None:
                    for later in positions:
                        if later > pos and words[later] == words[pos]:
                            row[later] = self.tokenizer.mask_token_id
                jobs.append(_MaskJob(tuple(row), pos, ids[pos]))
                owners.append(si)
        scores = self._score_jobs(jobs)
        per: list[list[float]] = [[] for _ in sentences]
        for si, s in zip(owners, scores, strict=True):
            per[si].append(s)
        return [
            PLLResult(total=float(sum(p)), token_logprobs=p, tokens=t) for p, t in zip(per, token_texts, strict=True)
        ]

    def text_features(self, texts: Sequence[str], *, position: str = "mask") -> np.ndarray:
        """Last-layer hidden state at the ``[MASK]`` slot (``position="mask"``) or mean-pooled (``"pooled"``)."""
        rows, where = [], []
        for t in texts:
            if position == "mask":
                _check_template(t)
                t = t.replace(MASK, self.tokenizer.mask_token)
            ids = self.tokenizer(t)["input_ids"]
            rows.append(ids)
            where.append(ids.index(self.tokenizer.mask_token_id) if position == "mask" else None)

        def run(batch: list[int]) -> list[np.ndarray]:
            out = self._pad_forward([rows[i] for i in batch], hidden=True)
            h = out.hidden_states[-1].float().cpu().numpy()
            return [
                h[k, where[i]] if where[i] is not None else h[k, : len(rows[i])].mean(axis=0)
                for k, i in enumerate(batch)
            ]

        return np.stack(self._batched(run, list(range(len(texts)))))


class HFSentenceEncoder(_TokenizerMixin, HFModel):
    """An encoder without an LM head (sentence-transformers checkpoints): mean-pooled features."""

    family: ClassVar[str] = "hf-sentence-encoder"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.TEXT_FEATURES})

    def __init__(self, ident: str, **kwargs: Any):
        super().__init__(ident, **kwargs)
        import transformers

        self.tokenizer = self._load_pretrained(transformers.AutoTokenizer, "its tokenizer")
        self.model = self._from_pretrained(transformers.AutoModel)

    def text_features(self, texts: Sequence[str], *, position: str = "pooled") -> np.ndarray:
        """Mean of the last layer over real tokens (sentence-transformers' pooling), not normalised."""
        rows = [self.tokenizer(t.replace(MASK, self.tokenizer.mask_token or MASK))["input_ids"] for t in texts]

        def run(batch: list[int]) -> list[np.ndarray]:
            h = self._pad_forward([rows[i] for i in batch]).last_hidden_state.float().cpu().numpy()
            return [h[k, : len(rows[i])].mean(axis=0) for k, i in enumerate(batch)]

        return np.stack(self._batched(run, list(range(len(texts)))))


class HFCausalLM(_TokenizerMixin, HFModel):
    """Causal LM: sentence log-probabilities, completion log-probabilities, features before a slot."""

    family: ClassVar[str] = "hf-causal-lm"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.CAUSAL_LM, Capability.TEXT_FEATURES})

    def __init__(self, ident: str, **kwargs: Any):
        super().__init__(ident, **kwargs)
        import transformers

        self.tokenizer = self._load_pretrained(transformers.AutoTokenizer, "its tokenizer")
        self.model = self._from_pretrained(transformers.AutoModelForCausalLM)
        self._start = (
            self.tokenizer.bos_token_id if self.tokenizer.bos_token_id is not None else self.tokenizer.eos_token_id
        )

    def _ids(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        enc = self.tokenizer(text, return_offsets_mapping=True, add_special_tokens=False)
        ids, offsets = list(enc["input_ids"]), list(enc["offset_mapping"])
        if self._start is not None:  # condition the first real token on the start symbol
            ids, offsets = [self._start, *ids], [(0, 0), *offsets]
        return ids, offsets

    def _logprob_rows(self, rows: Sequence[tuple[list[int], list[int]]]) -> list[tuple[float, int]]:
        """``rows``: (ids, positions to score). Returns (sum log P, count) per row."""
        import torch

        def run(batch: list[tuple[list[int], list[int]]]) -> list[tuple[float, int]]:
            logits = self._pad_forward([r[0] for r in batch]).logits.float()
            logp = torch.log_softmax(logits, dim=-1)
            out = []
            for k, (ids, positions) in enumerate(batch):
                total = sum(float(logp[k, p - 1, ids[p]]) for p in positions)
                out.append((total, len(positions)))
            return out

        return self._batched(run, list(rows))

    def sentence_logprobs(self, sentences: Sequence[str]) -> list[tuple[float, int]]:
        rows = []
        for s in sentences:
            ids, _ = self._ids(s)
            # position 0 is the start symbol (or, for a tokenizer without one, the unscorable first token)
            rows.append((ids, list(range(1, len(ids)))))
        return self._logprob_rows(rows)

    def completion_logprobs(self, contexts: Sequence[str], completions: Sequence[str]) -> list[tuple[float, int]]:
        rows = []
        for c, x in zip(contexts, completions, strict=True):
            ids, offsets = self._ids(c + x)
            positions = [k for k in range(1, len(ids)) if offsets[k][1] > len(c)]
            if not positions:
                raise HuebenchError(f"completion {x!r} produced no tokens after context {c!r}")
            rows.append((ids, positions))
        return self._logprob_rows(rows)

    def text_features(self, texts: Sequence[str], *, position: str = "pre-mask") -> np.ndarray:
        """Last-layer hidden state at the last token before ``[MASK]`` (``"pre-mask"``) or of the text (``"last"``)."""
        rows = []
        for t in texts:
            if position == "pre-mask":
                _check_template(t)
                t = t[: t.index(MASK)].rstrip()
            rows.append(self._ids(t)[0])

        def run(batch: list[int]) -> list[np.ndarray]:
            h = self._pad_forward([rows[i] for i in batch], hidden=True).hidden_states[-1].float().cpu().numpy()
            return [h[k, len(rows[i]) - 1] for k, i in enumerate(batch)]

        return np.stack(self._batched(run, list(range(len(texts)))))
