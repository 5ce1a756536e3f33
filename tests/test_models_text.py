"""Masked and causal LM adapters on tiny random models, checked against naive implementations."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from huebench.errors import HuebenchError  # noqa: E402
from huebench.models.base import Capability  # noqa: E402
from huebench.testing.reference import naive_pll  # noqa: E402

MLMS = ["bert", "roberta", "albert"]


def _naive_mask_logprob(m, template, cand):
    """Chain rule written out with one forward per piece (no batching, no sharing)."""
    start = template.index("[MASK]")
    text = template[:start] + cand + template[start + 6 :]
    enc = m.tokenizer(text, return_offsets_mapping=True, return_special_tokens_mask=True)
    ids = list(enc["input_ids"])
    span = [
        k
        for k, (a, b) in enumerate(enc["offset_mapping"])
        if not enc["special_tokens_mask"][k] and b > start and a < start + len(cand)
    ]
    total = 0.0
    for j, pos in enumerate(span):
        row = list(ids)
        for later in span[j:]:
            row[later] = m.tokenizer.mask_token_id
        with torch.no_grad():
            logits = m.model(input_ids=torch.tensor([row])).logits[0, pos]
        total += float(torch.log_softmax(logits, -1)[ids[pos]])
    return total, len(span)


@pytest.mark.parametrize("family", MLMS)
def test_mask_logprobs_score_multi_token_words_by_chain_rule(load_tiny, family):
    m = load_tiny(family, batch_size=3)
    assert m.supports(Capability.MASKED_LM)
    templates = ["A banana is [MASK].", "The color of the sky is [MASK]."]
    cands = ["yellow", "purple", "orange", "blue", "grey"]
    got = m.mask_logprobs(templates, cands)
    for ti, t in enumerate(templates):
        for ci, c in enumerate(cands):
            expected, pieces = _naive_mask_logprob(m, t, c)
            assert got[ti][ci] == pytest.approx(expected, abs=1e-4)
    if family in ("bert", "albert"):  # "purple" is two word pieces in the fixture vocabulary
        assert _naive_mask_logprob(m, templates[0], "purple")[1] == 2


@pytest.mark.parametrize("family", MLMS)
def test_pll_batched_equals_one_mask_at_a_time(load_tiny, family):
    m = load_tiny(family, batch_size=4)
    sentences = ["the purple car is red.", "a blue sky", "an orange shirt on a grey dog"]
    for l2r in (False, True):
        res = m.pseudo_log_likelihood(sentences, within_word_l2r=l2r)
        for r, s in zip(res, sentences, strict=True):
            assert r.total == pytest.approx(naive_pll(m, s, within_word_l2r=l2r), abs=1e-4)
            assert len(r.tokens) == len(r.token_logprobs)
            assert r.mean == pytest.approx(r.total / len(r.token_logprobs))


def test_within_word_l2r_changes_multi_token_words_only(load_tiny):
    m = load_tiny("bert")
    plain = m.pseudo_log_likelihood(["the purple car"])[0]
    l2r = m.pseudo_log_likelihood(["the purple car"], within_word_l2r=True)[0]
    assert plain.tokens == ["the", "pur", "##ple", "car"]
    assert plain.token_logprobs[1] != pytest.approx(l2r.token_logprobs[1], abs=1e-6)  # 'pur' no longer sees '##ple'
    assert plain.token_logprobs[0] == pytest.approx(l2r.token_logprobs[0], abs=1e-5)
    assert plain.token_logprobs[2] == pytest.approx(l2r.token_logprobs[2], abs=1e-5)


@pytest.mark.parametrize("family", MLMS)
def test_batch_size_does_not_change_results(load_tiny, family):
    a = load_tiny(family, batch_size=1)
    b = load_tiny(family, batch_size=16)
    t = ["A banana is [MASK].", "Grass is usually [MASK]."]
    assert np.allclose(
        a.mask_logprobs(t, ["yellow", "green", "purple"]), b.mask_logprobs(t, ["yellow", "green", "purple"]), atol=1e-5
    )
    s = ["the purple car is red.", "a blue sky"]
    assert np.allclose(
        [r.total for r in a.pseudo_log_likelihood(s)], [r.total for r in b.pseudo_log_likelihood(s)], atol=1e-5
    )
    assert b.last_batch.final_batch_size <= 16


def test_mask_template_errors(load_tiny):
    m = load_tiny("bert")
    with pytest.raises(HuebenchError, match="exactly one \\[MASK\\]"):
        m.mask_logprobs(["no slot here"], ["red"])
    with pytest.raises(HuebenchError, match="exactly one"):
        m.text_features(["[MASK] and [MASK]"])


def test_mlm_features_at_mask(load_tiny):
    m = load_tiny("bert")
    f = m.text_features(["A banana is [MASK].", "The sky is [MASK]."])
    assert f.shape == (2, 32) and not np.allclose(f[0], f[1])
    with torch.no_grad():
        ids = m.tokenizer("A banana is [MASK].", return_tensors="pt")["input_ids"]
        h = m.model(input_ids=ids, output_hidden_states=True).hidden_states[-1][0]
    pos = ids[0].tolist().index(m.tokenizer.mask_token_id)
    assert np.allclose(f[0], h[pos].numpy(), atol=1e-5)


def test_sentence_encoder_mean_pools(load_tiny):
    m = load_tiny("bert-encoder")
    assert m.capabilities == {Capability.TEXT_FEATURES}
    f = m.text_features(["a red car", "the sky is blue"])
    with torch.no_grad():
        h = m.model(**m.tokenizer("a red car", return_tensors="pt")).last_hidden_state[0]
    assert np.allclose(f[0], h.mean(0).numpy(), atol=1e-5)


def test_causal_lm_sentence_and_completion_logprobs(load_tiny):
    m = load_tiny("gpt2", batch_size=2)
    sents = ["a red car", "the sky is blue.", "Yes"]
    got = m.sentence_logprobs(sents)
    for (total, n), s in zip(got, sents, strict=True):
        ids = [m.tokenizer.eos_token_id, *m.tokenizer(s, add_special_tokens=False)["input_ids"]]
        with torch.no_grad():
            logp = torch.log_softmax(m.model(input_ids=torch.tensor([ids])).logits[0], -1)
        expected = sum(float(logp[i - 1, ids[i]]) for i in range(1, len(ids)))
        assert n == len(ids) - 1 and total == pytest.approx(expected, abs=1e-4)
    # completion = only the completion's tokens; " yellow" starts a new word, so the split is clean
    ((c_total, c_n),) = m.completion_logprobs(["A banana is"], [" red"])
    (full, nf), (ctx, nc) = m.sentence_logprobs(["A banana is red", "A banana is"])
    assert c_n == nf - nc and c_total == pytest.approx(full - ctx, abs=1e-4)
    one = load_tiny("gpt2", batch_size=1)
    assert np.allclose([x[0] for x in one.sentence_logprobs(sents)], [x[0] for x in got], atol=1e-4)


def test_causal_features_before_the_slot(load_tiny):
    m = load_tiny("gpt2")
    f = m.text_features(["A banana is [MASK]."])  # default position: the token before the slot
    g = m.text_features(["A banana is"], position="last")
    assert np.allclose(f[0], g[0], atol=1e-5)
