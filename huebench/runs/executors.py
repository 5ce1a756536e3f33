"""Executors: where a run's chunks of samples are evaluated.

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
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from huebench.errors import HuebenchError

__all__ = ["RayExecutor"]


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
        from huebench.runs.cache import OutputCache

        self.bench = get_benchmark(benchmark)(**bench_options)
        self.model = load_model(model_spec, **model_options)
        self.cache = OutputCache(cache_path)
        self.samples = {s.id: s for s in self.bench.samples()}

    def evaluate(self, sample_ids: Sequence[str]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        from huebench.runs.runner import RunContext, _error_record, _evaluate_chunk, json_safe

        chunk = [self.samples[i] for i in sample_ids]
        ctx = RunContext(self.model, self.cache)
        try:
            recs = _evaluate_chunk(self.bench, chunk, self.model, ctx)
        except Exception as exc:
            recs = [_error_record(s, exc) for s in chunk]
        stats = {
            "hits": ctx.cache_hits,
            "calls": ctx.model_calls,
            "batch_sizes": sorted(ctx.batch_sizes),
            "oom_backoffs": ctx.oom_backoffs,
        }
        return [json_safe(r) for r in recs], stats


def _torch_threads() -> int | None:
    try:
        import torch
    except ImportError:
        return None
    return torch.get_num_threads()


class RayExecutor:
    """Evaluate chunks on Ray actors; yields ``(records, stats)`` as chunks complete."""

    def __init__(self, *, address: str | None = None, workers: int | None = None, device: str = "cpu"):
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

    def map(
        self,
        chunks: Sequence[Sequence[str]],
        *,
        benchmark: str,
        bench_options: dict[str, Any],
        model_spec: str,
        model_options: dict[str, Any],
        cache_path: str | None,
        on_start: Callable[[], None] | None = None,
    ) -> Iterator[tuple[list[dict[str, Any]], dict[str, Any]]]:
        ray = self.ray
        actor_cls = ray.remote(num_gpus=1 if self.gpu else 0, num_cpus=1)(_Worker)
        threads = _torch_threads()
        actors = [
            actor_cls.remote(benchmark, bench_options, model_spec, model_options, cache_path, threads)
            for _ in range(min(self.n_workers, max(len(chunks), 1)))
        ]
        pending: dict[Any, int] = {}
        queue = list(range(len(chunks)))
        idle = list(actors)
        while queue or pending:
            while queue and idle:
                actor = idle.pop()
                k = queue.pop(0)
                pending[actor.evaluate.remote(list(chunks[k]))] = (k, actor)  # type: ignore[assignment]
            done, _ = ray.wait(list(pending), num_returns=1)
            k, actor = pending.pop(done[0])  # type: ignore[misc]
            idle.append(actor)
            yield ray.get(done[0])
        for a in actors:
            ray.kill(a)
