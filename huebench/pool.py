"""Local worker processes for CPU-bound work over many items: in order, with bounded memory.

GenColorBench's colour scoring (``--scorer-workers``) runs here: the run's process keeps the model
calls and the records, and sends each image's CPU work — a small picklable *job*, not the pixels
where a file holds them — to :class:`WorkerPool`, which hands the results back in the order of the
items.

- **Bounded.** Items are read from their iterator lazily and at most ``window`` of them (twice
  the workers) are in flight, so memory does not grow with the number of items.
- **Same results.** A job computes the same value in a worker as in this process (one worker
  runs it here, without a pool). Each item carries this process's working directory and
  ``HUEBENCH_*`` variables (the pixel budget, …), which the worker takes before running it.
- **Failures.** A job's exception is raised here, in the item's place, with its type and message.
  A worker that dies (killed, out of memory, a crash in native code) is :class:`WorkerDiedError`, and
  the next call starts a new pool.
- **Ctrl-C.** Workers ignore SIGINT (a terminal sends it to the whole process group); this process
  drops the items not begun, lets the workers end the one each is on, stops them and raises the
  KeyboardInterrupt (a second Ctrl-C stops them at once). Workers exit when this process dies,
  SIGKILL included, so none is left behind.
- **Start.** Workers are forked from multiprocessing's fork server, which imports the job
  modules (``preload``) once, not from this process, which may hold threads (torch, numba, SQLite)
  that a fork copies in whatever state they are; a pool starts in well under a second after the
  server's first start. Each worker runs numba and BLAS on one thread: the workers are the
  parallelism.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, TypeVar

from huebench.errors import HuebenchError

__all__ = ["WorkerDiedError", "WorkerPool", "available_cores", "resolve_workers", "shared_pool"]

T = TypeVar("T")
R = TypeVar("R")

#: the environment a worker takes from this process with each item
ENV_PREFIX = "HUEBENCH_"
#: the fork server imports it first: one thread per numeric library in the workers
THREADS_MODULE = "huebench._pool_threads"


class WorkerDiedError(HuebenchError, RuntimeError):
    """A worker process ended while it held work (killed, out of memory, a crash in native code)."""


def available_cores() -> int:
    """The CPU cores this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _in_ray_actor() -> bool:
    ray = sys.modules.get("ray")  # never imported here: only a process that runs Ray has it
    if ray is None or not ray.is_initialized():
        return False
    return ray.get_runtime_context().get_actor_id() is not None


def _unguarded_main() -> str | None:
    """The main script, when worker processes cannot import it without running it: they import it
    (as multiprocessing's do) and its code is not behind ``if __name__ == "__main__":``."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    name = getattr(getattr(main, "__spec__", None), "name", None) or ""
    if not path or name.endswith("__main__"):  # interactive, -c, or a package's __main__: not imported
        return None
    try:
        source = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return None if "__main__" in source else str(path)


def resolve_workers(requested: int | None, flag: str) -> int:
    """The number of worker processes for ``requested`` (``flag`` names the option in errors):
    None → every core, or one inside a Ray actor (Ray already runs one actor per core) and under a
    main script that its workers could not import."""
    if requested is None:
        return 1 if _in_ray_actor() or _unguarded_main() else available_cores()
    if isinstance(requested, bool) or not isinstance(requested, int) or requested < 1:
        raise HuebenchError(
            f"{flag} {requested!r} is not valid: give a number of worker processes of at least 1 "
            "(1 works in this process), or leave it out for every core"
        )
    script = _unguarded_main() if requested > 1 else None
    if script:
        raise HuebenchError(
            f"{flag} {requested}: worker processes import the main script {script}, which would run again in each "
            f'of them; put its code under `if __name__ == "__main__":`, or use {flag} 1'
        )
    return requested


def _exit_with(parent: Any) -> None:
    parent.join()  # returns when the parent process ends, however it ended
    os._exit(1)


def _start_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C stops
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()
    # numba guards its thread start-up with a multiprocessing lock under a fork-like start method;
    # a worker starts no process, and a worker stopped by a signal would leave that lock's
    # semaphore behind (the resource tracker warns about it at exit)
    multiprocessing.set_start_method("spawn", force=True)
    if "numba" in sys.modules:  # a fork server started elsewhere, without huebench._pool_threads
        sys.modules["numba"].set_num_threads(1)


def _run_job(job: Callable[[], R], cwd: str, env: dict[str, str]) -> R:
    if os.getcwd() != cwd:
        os.chdir(cwd)
    for name in [n for n in os.environ if n.startswith(ENV_PREFIX) and n not in env]:
        del os.environ[name]
    os.environ.update(env)
    try:
        return job()
    except Exception as exc:
        try:
            pickle.loads(pickle.dumps(exc))
        except Exception:  # an exception that does not survive the trip: its type and message do
            raise RuntimeError(f"{type(exc).__name__}: {exc}") from None
        raise


class WorkerPool:
    """Run picklable jobs on ``workers`` local processes, results in item order (module doc).
    One worker runs every job in this process, with no pool."""

    def __init__(self, workers: int, *, preload: Sequence[str] = ()):
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = int(workers)
        self.preload = tuple(preload)
        self.window = 2 * self.workers  # enough queued work that no worker waits for the next item
        self._executor: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
            context = multiprocessing.get_context(method)
            if method == "forkserver":  # takes effect when the server starts (once per process)
                context.set_forkserver_preload([THREADS_MODULE, *self.preload])
            self._executor = ProcessPoolExecutor(self.workers, mp_context=context, initializer=_start_worker)
        return self._executor

    def run(self, items: Iterable[tuple[T, Callable[[], R] | None]]) -> Iterator[tuple[T, R | None]]:
        """``(tag, job())`` for each ``(tag, job)`` of ``items``, in their order; the tag stays in
        this process, and a job of None is no work (its result is None)."""
        if self.workers == 1:
            for tag, job in items:
                yield tag, None if job is None else job()
            return
        pool = self._pool()
        cwd = os.getcwd()
        env = {k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIX)}
        pending: deque[tuple[T, Future[R] | None]] = deque()
        try:
            for tag, job in items:
                pending.append((tag, None if job is None else self._submit(pool, job, cwd, env)))
                while len(pending) > self.window or (pending and pending[0][1] is None):
                    yield pending[0][0], self._result(pending[0][1])
                    pending.popleft()
            while pending:
                yield pending[0][0], self._result(pending[0][1])
                pending.popleft()
        except KeyboardInterrupt:
            try:
                self.close()  # the jobs running end (one item each), those not begun are dropped
            except KeyboardInterrupt:  # a second Ctrl-C: stop them now
                self.close(terminate=True)
            raise
        finally:  # an item failed, or the caller stopped reading: drop the work not begun
            left = [future for _, future in pending if future is not None and not future.cancel()]
            # and let the jobs begun end here: a worker one of them kills must fail no later item
            if left and self._executor is not None:
                wait(left)
                if any(isinstance(future.exception(), BrokenProcessPool) for future in left):
                    self.close()

    def _submit(self, pool: ProcessPoolExecutor, job: Callable[[], R], cwd: str, env: dict[str, str]) -> Future[R]:
        try:
            return pool.submit(_run_job, job, cwd, env)
        except BrokenProcessPool:  # a worker died since the last item
            raise self._died() from None

    def _result(self, future: Future[R] | None) -> R | None:
        try:
            return None if future is None else future.result()
        except BrokenProcessPool:
            raise self._died() from None

    def _died(self) -> WorkerDiedError:
        self.close()  # the next item starts a new pool
        return WorkerDiedError(
            "a worker process died while it held work (killed, out of memory, or a crash in native code), "
            f"one of {self.workers}; that work is not done: retry it, or run it with one worker, in this "
            "process, to see its error"
        )

    def close(self, *, terminate: bool = False) -> None:
        """Stop the workers: after the jobs they run, or at once (``terminate``)."""
        executor = self._executor
        if executor is None:
            return
        if terminate:  # no public handle on the processes before Python 3.14's terminate_workers
            for process in list((getattr(executor, "_processes", None) or {}).values()):
                process.terminate()
        # waits for the pool's own threads, which then let go of its queues and semaphores
        executor.shutdown(wait=True, cancel_futures=True)
        self._executor = None


_shared: WorkerPool | None = None


def shared_pool(workers: int, *, preload: Sequence[str] = ()) -> WorkerPool:
    """This process's pool of ``workers`` processes, kept between runs (a new size replaces it).
    ``preload``: the job modules the fork server imports when it starts (its first pool)."""
    global _shared
    if _shared is None or _shared.workers != workers:
        if _shared is not None:
            _shared.close()
        _shared = WorkerPool(workers, preload=preload)
    return _shared
