"""The one place model calls are made: answering typed requests through the output cache, and
evaluating a chunk of samples into records (with per-sample failures isolated).

Benchmarks build :mod:`huebench.models.requests` and call :meth:`RunContext.answer`; they never call
the cache or the model themselves. Executors (:mod:`huebench.runs.executors`) evaluate chunks with
:func:`evaluate_chunk`.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from huebench.benchmarks.base import Benchmark, Sample
from huebench.hashing import request_key
from huebench.models.base import Model
from huebench.models.requests import Answer, Request
from huebench.runs.cache import CacheError, OutputCache

__all__ = ["ABORTS", "RunContext", "error_record", "evaluate_chunk", "json_safe", "jsonable"]

#: not a sample's failure: the whole run stops (a damaged cache would fail every sample)
ABORTS = (KeyboardInterrupt, SystemExit, CacheError)


class RunContext:
    """Answers a benchmark's requests: from the cache where answered before, else from the model;
    counts model calls, cache hits and the batch sizes used."""

    def __init__(self, model: Model, cache: OutputCache, seed: int = 0, options: dict[str, Any] | None = None):
        self.model = model
        self.cache = cache
        self.seed = seed
        self.options = options or {}
        self.model_calls = 0  # requests actually sent to the model
        self.cache_hits = 0
        self.batch_sizes: set[int] = set()
        self.oom_backoffs = 0

    def answer(self, requests: Sequence[Request], *, model: Model | None = None) -> list[Answer]:
        """One ``{"output": …, "batch_size": …}`` per request, in order.

        ``model`` answers instead of the run's own (a benchmark's helper models, e.g. GenColorBench's
        VQA model, detector and segmenter); its fingerprint keys the cache. ``batch_size`` is the
        batch-size limit the output was computed under (the requested size, or less after an
        out-of-memory back-off), also when it comes from the cache: it does not depend on how many
        requests shared the last batch, so a resumed run records the same value. Identical requests
        in one call are computed once; requests of several kinds may be mixed.
        """
        used = model if model is not None else self.model
        fp = used.fingerprint
        keys = [request_key(fp, r.kind, r.payload()) for r in requests]
        cacheable = [k for k, r in zip(keys, requests, strict=True) if r.cacheable]
        found = self.cache.get_many(cacheable) if cacheable else {}
        self.cache_hits += sum(1 for k in keys if k in found)
        todo: dict[type[Request], dict[str, Request]] = defaultdict(dict)
        for k, r in zip(keys, requests, strict=True):
            if k not in found:
                todo[type(r)].setdefault(k, r)
        for kind, pending in todo.items():
            used.require(kind.capability)
            outputs = list(kind.compute(used, list(pending.values())))
            if len(outputs) != len(pending):
                raise RuntimeError(f"{kind.kind}: model returned {len(outputs)} outputs for {len(pending)} requests")
            bs = self.count_calls(used, len(pending))
            if kind.cacheable:
                new = {k: {"output": jsonable(o), "batch_size": bs} for k, o in zip(pending, outputs, strict=True)}
                self.cache.put_many((k, fp, kind.kind, v) for k, v in new.items())
            else:
                new = {k: {"output": o, "batch_size": bs} for k, o in zip(pending, outputs, strict=True)}
            found.update(new)
        return [found[k] for k in keys]

    def count_calls(self, model: Model, n: int) -> int:
        """Account for ``n`` requests just sent to ``model``; returns the batch-size limit they ran under."""
        stats = model.last_batch
        if stats:
            self.batch_sizes.update(stats.batch_sizes_used)
            self.oom_backoffs += stats.oom_backoffs
        self.model_calls += n
        return stats.effective_batch_size if stats else model.batch_size


def error_record(sample: Sample, exc: BaseException) -> dict[str, Any]:
    """A sample's failure, as its record: the reason with secrets redacted (retried on --resume)."""
    from huebench.redact import redact

    return {"id": sample.id, "status": "error", "reason": redact(f"{type(exc).__name__}: {exc}")}


def evaluate_chunk(bench: Benchmark, chunk: Sequence[Sample], model: Model, ctx: RunContext) -> list[dict[str, Any]]:
    """Records for a chunk; if it fails as a whole, it is retried sample by sample to isolate the
    failures, each recorded with its reason."""
    try:
        recs = list(bench.evaluate(chunk, model, ctx))
    except ABORTS:
        raise
    except Exception as exc:
        if len(chunk) == 1:
            return [error_record(chunk[0], exc)]
        recs = []
        for s in chunk:
            try:
                recs.extend(bench.evaluate([s], model, ctx))
            except ABORTS:
                raise
            except Exception as one:
                recs.append(error_record(s, one))
        return recs
    ids = [r.get("id") for r in recs]
    if sorted(map(str, ids)) != sorted(s.id for s in chunk):
        raise RuntimeError(
            f"{bench.name}.evaluate returned records for {ids}, expected one per sample of {[s.id for s in chunk]}"
        )
    return recs


def jsonable(obj: Any) -> Any:
    """NumPy arrays and scalars, tuples and dataclasses as plain JSON-able Python."""
    import numpy as np

    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, (list, tuple)):
        return [jsonable(o) for o in obj]
    if isinstance(obj, dict):
        return {k: jsonable(v) for k, v in obj.items()}
    if hasattr(obj, "__dataclass_fields__"):
        return jsonable(asdict(obj))
    return obj


def json_safe(obj: Any) -> Any:
    """NaN/inf → None, NumPy → Python: records and results.json are strict JSON."""
    obj = jsonable(obj)
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, list):
        return [json_safe(v) for v in obj]
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    return obj
