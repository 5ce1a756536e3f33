"""Slow, obviously-correct reference computations that the fast paths are checked and timed against."""

from __future__ import annotations

from typing import Any

__all__ = ["naive_pll"]


def naive_pll(model: Any, sentence: str, *, within_word_l2r: bool = False) -> float:
    """Pseudo-log-likelihood of ``sentence`` under a masked-LM adapter, one forward pass per token:
    each non-special token is masked alone (with ``within_word_l2r``, also the later pieces of its
    word) and its log-probability summed. What ``pseudo_log_likelihood`` batches."""
    import torch

    enc = model.tokenizer(sentence, return_special_tokens_mask=True)
    ids, words = list(enc["input_ids"]), enc.word_ids()
    total = 0.0
    for pos in range(len(ids)):
        if enc["special_tokens_mask"][pos]:
            continue
        row = list(ids)
        row[pos] = model.tokenizer.mask_token_id
        if within_word_l2r:
            for later in range(pos + 1, len(ids)):
                if words[later] is not None and words[later] == words[pos]:
                    row[later] = model.tokenizer.mask_token_id
        with torch.inference_mode():
            logits = model.model(input_ids=torch.tensor([row])).logits[0, pos]
        total += float(torch.log_softmax(logits, -1)[ids[pos]])
    return total
