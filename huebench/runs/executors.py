"""Executors: where a run's chunks of samples are evaluated. Both have one interface,
:class:`Executor`: ``map(chunks)`` yields ``(records, stats)`` per chunk as chunks finish.

``local`` evaluates chunks in this process. ``ray`` shards them over Ray actors, each holding its
own loaded model (one per GPU when the device is CUDA, else one per CPU slot), and streams records
back as chunks finish; the driver appends them to the same run folder, and every actor reads and
writes the same output cache. Records are a function of the samples alone, so the final
(compacted, sample-ordered) records and results are identical to a local run.

Running on a cluster: start Ray on the nodes (``ray start --head`` on one, ``ray start
--address=HEAD:6379`` on the others), make the run folder and the cache path visible on every node
(a shared filesystem; otherwise give each node its own ``--cache`` or use ``--no-cache``), install
huebench with the same extras everywhere, then ``huebench run … --executor ray --ray-address
HEAD:6379``. Models are loaded from their spec on each worker, so use hub ids or paths every node
can read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from huebench.benchmarks.base import Benchmark, Sample
from huebench.errors import HuebenchError
from huebench.models.base import Model
from huebench.runs.cache import OutputCache
from huebench.runs.context import ABORTS, RunContext, error_record, evaluate_chunk, json_safe

__all__ = ["Executor", "LocalExecutor", "RayExecutor"]

#: per chunk: {"hits", "calls", "batch_sizes", "oom_backoffs"}
ChunkStats = dict[str, Any]


class Executor(Protocol):
    def map(self, chunks: Sequence[Sequence[Sample]]) -> Iterator[tuple[list[dict[str, Any]], ChunkStats]]: ...


def _evaluate(
    bench: Benchmark, chunk: Sequence[Sample], model: Model, cache: OutputCache
) -> tuple[list[dict[str, Any]], ChunkStats]:
    ctx = RunContext(model, cache)
    try:
        recs = evaluate_chunk(bench, chunk, model, ctx)
    except ABORTS:
        raise
    except Exception as exc:  # the chunk's own bookkeeping failed: every sample gets the reason
        recs = [error_record(s, exc) for s in chunk]
    stats = {
        "hits": ctx.cache_hits,
        "calls": ctx.model_calls,
        "batch_sizes": sorted(ctx.batch_sizes),
        "oom_backoffs": ctx.oom_backoffs,
    }
    return [json_safe(r) for r in recs], stats


class LocalExecutor:
    """Evaluate chunks in this process, one after another, with the run's loaded model."""

    def __init__(self, bench: Benchmark, model: Model, cache: OutputCache):
        self.bench, self.model, self.cache = bench, model, cache

    def map(self, chunks: Sequence[Sequence[Sample]]) -> Iterator[tuple[list[dict[str, Any]], ChunkStats]]:
        for chunk in chunks:
            yield _evaluate(self.bench, chunk, self.model, self.cache)


class _Worker:
    """One Ray actor: a benchmark instance, a loaded model and a cache handle."""

    def __init__(
        self,
        benchmark: str,
        bench_options: dict[str, Any],
        model_spec: str,
        model_options: dict[str, Any],
        cache_path: str | None,
        torch_threads: int | None = None,
    ):
        if torch_threads:
            # Same intra-op thread count as the driver: float reductions then run in the same
            # order, so scores match a local run bit for bit (Ray would otherwise give each actor 1).
            import torch

            torch.set_num_threads(torch_threads)
        from huebench.benchmarks.base import get_benchmark
        from huebench.models.registry import load_model

        self.bench = get_benchmark(benchmark)(**bench_options)
        self.model = load_model(model_spec, **model_options)
        self.cache = OutputCache(cache_path)
        self.samples = {s.id: s for s in self.bench.samples()}

    def evaluate(self, sample_ids: Sequence[str]) -> tuple[list[dict[str, Any]], ChunkStats]:
        return _evaluate(self.bench, [self.samples[i] for i in sample_ids], self.model, self.cache)


def _torch_threads() -> int | None:
    try:
        import torch
    except ImportError:
        return None
    return torch.get_num_threads()


class RayExecutor:
    """Evaluate chunks on Ray actors; yields ``(records, stats)`` as chunks complete."""

    def __init__(
        self,
        *,
        benchmark: str,
        bench_options: dict[str, Any],
        model_spec: str,
        model_options: dict[str, Any],
        cache_path: str | None,
        address: str | None = None,
        workers: int | None = None,
        device: str = "cpu",
    ):
        self.worker_args = (benchmark, bench_options, model_spec, model_options, cache_path)
        try:
            import ray
        except ImportError as exc:
            raise HuebenchError(
                "--executor ray needs Ray: bash scripts/install.sh scale (pip install 'huebench[scale]')"
            ) from exc
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        if not ray.is_initialized():
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(
                    num_cpus=workers or os.cpu_count() or 1,
                    include_dashboard=False,
                    log_to_driver=False,
                    configure_logging=False,
                )
        self.ray = ray
        self.gpu = device.startswith("cuda")
        resources = ray.cluster_resources()
        available = int(resources.get("GPU", 0)) if self.gpu else int(resources.get("CPU", 1))
        self.n_workers = max(1, min(workers or available, available if available else 1))

    def map(self, chunks: Sequence[Sequence[Sample]]) -> Iterator[tuple[list[dict[str, Any]], ChunkStats]]:
        if not chunks:
            return
        ray = self.ray
        actor_cls = ray.remote(num_gpus=1 if self.gpu else 0, num_cpus=1)(_Worker)
        threads = _torch_threads()
        actors = [actor_cls.remote(*self.worker_args, threads) for _ in range(min(self.n_workers, max(len(chunks), 1)))]
        pending: dict[Any, tuple[int, Any]] = {}  # a result's ObjectRef → (chunk index, the actor computing it)
        queue = list(range(len(chunks)))
        idle = list(actors)
        while queue or pending:
            while queue and idle:
                actor = idle.pop()
                k = queue.pop(0)
                pending[actor.evaluate.remote([s.id for s in chunks[k]])] = (k, actor)
            done, _ = ray.wait(list(pending), num_returns=1)
            k, actor = pending.pop(done[0])
            idle.append(actor)
            yield ray.get(done[0])
        for a in actors:
            ray.kill(a)
