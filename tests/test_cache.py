import multiprocessing as mp

import numpy as np
import pytest
from PIL import Image

from huebench.runs.cache import OutputCache, canonical_json, content_hash, request_key


def test_keys_are_canonical():
    assert canonical_json({"b": 1, "a": [1.5, "x"]}) == canonical_json({"a": (1.5, "x"), "b": 1})
    k1 = request_key("fp", "itm", {"text": "a red car", "w": 0.1})
    assert k1 == request_key("fp", "itm", {"w": 0.1, "text": "a red car"})
    assert k1 != request_key("fp2", "itm", {"text": "a red car", "w": 0.1})
    assert k1 != request_key("fp", "score", {"text": "a red car", "w": 0.1})
    assert k1 != request_key("fp", "itm", {"text": "a red car", "w": 0.1000001})


def test_images_are_keyed_by_content():
    a = Image.new("RGB", (4, 4), (255, 0, 0))
    b = Image.new("RGB", (4, 4), (255, 0, 0))
    c = Image.new("RGB", (4, 4), (255, 0, 1))
    assert content_hash(a) == content_hash(b) != content_hash(c)
    assert request_key("fp", "itm", {"image": a}) == request_key("fp", "itm", {"image": b})
    arr = np.zeros((2, 2, 3), np.uint8)
    assert content_hash(arr) != content_hash(arr.astype(np.float32))
    with pytest.raises(TypeError, match="cannot build a cache key from object"):
        canonical_json({"x": object()})


def test_hit_miss_and_persistence(tmp_path):
    path = tmp_path / "cache.sqlite"
    with OutputCache(path) as cache:
        assert cache.get_many(["k1", "k2"]) == {}
        assert cache.stats.misses == 2
        cache.put_many([("k1", "fp", "itm", {"p": 0.25}), ("k2", "fp", "itm", [1, 2])])
        assert cache.stats.writes == 2
    with OutputCache(path) as cache:
        assert cache.get_many(["k1", "k2", "k3"]) == {"k1": {"p": 0.25}, "k2": [1, 2]}
        assert (cache.stats.hits, cache.stats.misses) == (2, 1)
        assert len(cache) == 2 and cache.count(capability="itm") == 2 and cache.count(fingerprint="x") == 0


def _writer(path, start, n):
    with OutputCache(path) as cache:
        for i in range(start, start + n, 10):
            cache.put_many([(f"k{j}", "fp", "cap", {"v": j}) for j in range(i, i + 10)])


def test_two_processes_share_one_cache_without_corruption(tmp_path):
    path = tmp_path / "cache.sqlite"
    OutputCache(path).close()
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, s, 300)) for s in (0, 300)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    with OutputCache(path) as cache:
        got = cache.get_many([f"k{j}" for j in range(600)])
        assert len(got) == 600 and all(got[f"k{j}"] == {"v": j} for j in range(600))
        assert cache._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
