"""Typed requests: the cache key is everything sent to the model, whoever sends it."""

import numpy as np
import pytest

from huebench.hashing import request_key
from huebench.models.reference import RandomBaseline
from huebench.models.requests import (
    REQUEST_TYPES,
    Generation,
    ImageTextScores,
    MatchProbability,
    YesProbability,
    group_outputs,
)
from huebench.runs.cache import OutputCache
from huebench.runs.context import RunContext


class Recorder:
    """An ``Answers`` that keeps the requests and answers each with a fixed output."""

    def __init__(self):
        self.requests = []

    def answer(self, requests, *, model=None):
        self.requests.extend(requests)
        outs = {ImageTextScores: [[0.0] * 11], MatchProbability: 0.5, YesProbability: 0.5, Generation: "yes"}
        return [{"output": outs[type(r)], "batch_size": 1} for r in requests]

    def count_calls(self, model, n):
        return 1


def _keys(requests, fingerprint="fp"):
    return [request_key(fingerprint, r.kind, r.payload()) for r in requests]


def _colornames_requests(model, monkeypatch=None, **patch):
    from huebench.benchmarks import colornames

    for name, value in patch.items():
        monkeypatch.setattr(colornames, name, value)
    bench = colornames.ColorNames(variants=1)
    rec = Recorder()
    list(bench.evaluate(bench.samples()[:2], model, rec))
    return rec.requests


@pytest.mark.parametrize(
    ("capability_model", "template", "affected"),
    [
        ("vlm", "QUESTION", YesProbability),
        ("itm", "CAPTION", MatchProbability),
    ],
)
def test_editing_a_prompt_template_changes_exactly_the_requests_that_use_it(
    monkeypatch, capability_model, template, affected
):
    from huebench.benchmarks import colornames
    from huebench.models.base import Capability

    class OnlyOne(RandomBaseline):
        capabilities = frozenset({Capability.VLM if capability_model == "vlm" else Capability.ITM})

    model = OnlyOne("reference:random")
    before = _colornames_requests(model)
    edited = getattr(colornames, template).replace("Answer", "Reply").replace("photo", "picture")
    after = _colornames_requests(model, monkeypatch, **{template: edited})
    assert len(before) == len(after) == 2 * 11 and {type(r) for r in before} == {affected}
    assert set(_keys(before)).isdisjoint(_keys(after))  # every request that carries the template
    # the other template is untouched: requests through it keep their keys
    other = "CAPTION" if template == "QUESTION" else "QUESTION"
    monkeypatch.undo()
    assert _keys(_colornames_requests(model, monkeypatch, **{other: "x {color}"})) == _keys(before)


def test_the_full_prompt_text_is_in_the_key_not_only_its_variables():
    img = np.zeros((4, 4, 3), np.uint8)
    a = YesProbability((img, "Is the square red? Answer yes or no."))
    b = YesProbability((img, "Is the square red? Reply yes or no."))
    c = YesProbability((img.copy(), "Is the square red? Answer yes or no."))
    assert _keys([a])[0] != _keys([b])[0]
    assert _keys([a])[0] == _keys([c])[0]  # images by content
    assert _keys([a], "model-1")[0] != _keys([a], "model-2")[0]  # the model's fingerprint
    assert _keys([Generation(a.parts, 8)])[0] != _keys([Generation(a.parts, 16)])[0]  # generation parameters


def test_the_same_request_from_two_benchmarks_is_one_cache_entry(monkeypatch):
    """Colornames asks a VLM "Is the square in this image red?"; GenColorBench's presence check, given
    the same words, makes the same request: one cache entry, the second benchmark calls no model."""
    from huebench.benchmarks import colornames
    from huebench.benchmarks.gencolor.pipeline import presence
    from huebench.models import vqa
    from huebench.models.base import Capability

    class Vlm(RandomBaseline):
        capabilities = frozenset({Capability.VLM})

    model, cache = Vlm("reference:random"), OutputCache(None)
    bench = colornames.ColorNames(variants=1)
    sample = bench.samples()[0]
    first = RunContext(model, cache)
    list(bench.evaluate([sample], model, first))
    assert first.model_calls == 11 and len(cache) == 11
    monkeypatch.setattr(vqa, "PRESENCE_QUESTION", colornames.QUESTION.replace("{color}", "{object}"))
    image = np.asarray(colornames.patch_image(sample.inputs["rgb"], sample.inputs["image_seed"]))
    second = RunContext(model, cache)
    p = presence(second, model, image, ["red", "blue"])
    assert second.model_calls == 0 and second.cache_hits == 2 and len(cache) == 11
    assert len(p) == 2


def test_identical_requests_in_one_call_are_computed_once_and_answers_keep_order():
    model, cache = RandomBaseline("reference:random"), OutputCache(None)
    img = np.full((4, 4, 3), 7, np.uint8)
    ctx = RunContext(model, cache)
    reqs = [MatchProbability(img, "a"), MatchProbability(img, "b"), MatchProbability(img, "a")]
    out = ctx.answer(reqs)
    assert ctx.model_calls == 2 and out[0] == out[2] and out[0] != out[1]
    mixed = ctx.answer([ImageTextScores((img,), ("a", "b")), MatchProbability(img, "b")])
    assert np.shape(mixed[0]["output"]) == (1, 2) and mixed[1] == out[1]


def test_every_request_type_names_its_capability_and_kind():
    kinds = [t.kind for t in REQUEST_TYPES]
    assert len(set(kinds)) == len(kinds) == 11
    assert all(t.capability for t in REQUEST_TYPES)


def test_group_outputs_needs_whole_groups():
    flat = [{"output": k, "batch_size": 4} for k in range(6)]
    assert group_outputs(flat, 3) == [{"output": [0, 1, 2], "batch_size": 4}, {"output": [3, 4, 5], "batch_size": 4}]
    with pytest.raises(ValueError, match="do not split into groups of 4"):
        group_outputs(flat, 4)


def test_a_model_without_the_capability_is_refused_before_any_call():
    from huebench.models.base import Capability, CapabilityError

    class ItmOnly(RandomBaseline):
        capabilities = frozenset({Capability.ITM})

    ctx = RunContext(ItmOnly("reference:random"), OutputCache(None))
    with pytest.raises(CapabilityError, match="vlm"):
        ctx.answer([YesProbability((np.zeros((2, 2, 3), np.uint8), "q"))])
    assert ctx.model_calls == 0
