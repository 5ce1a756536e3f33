"""Progress of long work — one facility for every phase that takes a while: a run's samples
(feature extraction, generation, scoring), probe training, fine-tuning.

A :func:`task` has a total, a unit and a detail text; it shows done/total, the throughput
(units per second since the task began, in this process) and the time left at that rate.

- On a terminal: a rich bar on stderr (stdout stays for results and ``--json``).
- Anywhere else (logs, pipes, CI): plain lines on stderr, never cut to a width: one when the task
  starts, then one at each tenth done or every :data:`PLAIN_EVERY_S` seconds of work, never more
  often than one per :data:`PLAIN_MIN_GAP_S` seconds, and one when it ends::

    coda-probe: training 50 probes: 52,000/200,000 steps (26%) · 871 steps/s · elapsed 0:01:00 · ETA 0:02:50 · probe 14/50: seed 1, 12 objects

Off with ``--no-progress`` (``RunOptions(progress=False)``; :func:`enabled` around any code) or
``HUEBENCH_PROGRESS=off``; ``HUEBENCH_PROGRESS=plain`` prints the plain lines on a terminal too.

Model adapters report each batch they finish (:func:`model_batch_done`, called by
``huebench.models.base.run_batched``); the run layer shows them as work inside the current chunk,
so a bar moves, and a log gets its lines, while a long chunk is being computed.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import IO, Any

__all__ = [
    "PLAIN_EVERY_S",
    "PLAIN_MIN_GAP_S",
    "PLAIN_STEP",
    "Task",
    "enabled",
    "format_duration",
    "format_rate",
    "is_enabled",
    "model_batch_done",
    "on_model_batch",
    "task",
]

#: plain form: a line at least this often while work is reported (seconds)
PLAIN_EVERY_S = 30.0
#: plain form: never more than one line per this many seconds (the first and last line aside)
PLAIN_MIN_GAP_S = 2.0
#: plain form: a line at each this fraction of the total done
PLAIN_STEP = 0.1
#: bar: the least time between two pushes of the numbers to rich (seconds)
BAR_PUSH_S = 0.1
#: ``off`` (or 0/no/false): no progress at all; ``plain``: plain lines even on a terminal
ENV = "HUEBENCH_PROGRESS"

_ENABLED: ContextVar[bool] = ContextVar("huebench_progress_enabled", default=True)
_ON_MODEL_BATCH: ContextVar[Callable[[int], None] | None] = ContextVar("huebench_progress_on_batch", default=None)


@contextlib.contextmanager
def enabled(flag: bool) -> Iterator[None]:
    """Inside: progress off when ``flag`` is false; a true ``flag`` keeps the setting from outside
    (an outer ``--no-progress`` wins)."""
    token = _ENABLED.set(_ENABLED.get() and bool(flag))
    try:
        yield
    finally:
        _ENABLED.reset(token)


def is_enabled() -> bool:
    """Whether progress is shown here: not turned off by :func:`enabled` nor by ``HUEBENCH_PROGRESS``."""
    return _ENABLED.get() and os.environ.get(ENV, "").strip().lower() not in ("off", "0", "no", "false")


@contextlib.contextmanager
def on_model_batch(callback: Callable[[int], None]) -> Iterator[None]:
    """Inside: ``callback(n)`` after each batch of ``n`` inputs a model adapter finishes."""
    token = _ON_MODEL_BATCH.set(callback)
    try:
        yield
    finally:
        _ON_MODEL_BATCH.reset(token)


def model_batch_done(n: int) -> None:
    """A model adapter finished a batch of ``n`` inputs (display only; nothing else depends on it)."""
    callback = _ON_MODEL_BATCH.get()
    if callback is not None:
        callback(n)


def format_duration(seconds: float | None) -> str:
    """``h:mm:ss`` (``--:--`` when unknown)."""
    if seconds is None or seconds != seconds or seconds == float("inf"):
        return "--:--"
    s = max(0, round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def format_rate(rate: float | None, unit: str) -> str:
    """``871 steps/s``, ``3.2 samples/s``, ``0.041 samples/s`` (``? samples/s`` before any is done)."""
    if rate is None:
        return f"? {unit}/s"
    if rate >= 100:
        text = f"{rate:,.0f}"
    elif rate >= 1:
        text = f"{rate:.1f}"
    else:
        text = f"{rate:.2g}"
    return f"{text} {unit}/s"


class Task:
    """One piece of long work: ``advance`` as units are done, ``update`` to change the counts,
    the description or the detail (the text after the numbers). Made by :func:`task`."""

    def __init__(
        self,
        description: str,
        total: int | None,
        *,
        unit: str,
        completed: int,
        detail: str,
        clock: Callable[[], float],
        display: _Display,
    ):
        self.description, self.total, self.unit = description, total, unit
        self.completed, self.detail = completed, detail
        self._clock, self._display = clock, display
        self._started = clock()
        self._start_completed = completed  # done before this process began (a resumed run): not in the rate

    def advance(self, n: int = 1, *, detail: str | None = None) -> None:
        self.completed += n
        if detail is not None:
            self.detail = detail
        self._display.changed(self)

    def update(
        self,
        *,
        completed: int | None = None,
        total: int | None = None,
        description: str | None = None,
        detail: str | None = None,
    ) -> None:
        if completed is not None:
            self.completed = completed
        if total is not None:
            self.total = total
        if description is not None:
            self.description = description
        if detail is not None:
            self.detail = detail
        self._display.changed(self)

    @property
    def elapsed(self) -> float:
        return max(self._clock() - self._started, 0.0)

    @property
    def rate(self) -> float | None:
        """Units per second since the task began (None before the first is done)."""
        done, elapsed = self.completed - self._start_completed, self.elapsed
        return done / elapsed if done > 0 and elapsed > 0 else None

    @property
    def eta(self) -> float | None:
        """Seconds left at :attr:`rate` (None when the total or the rate is unknown)."""
        rate = self.rate
        if self.total is None or rate is None:
            return None
        return max(self.total - self.completed, 0) / rate

    def counts(self) -> str:
        """``52,000/200,000 steps (26%)``, or ``52,000 steps`` without a total."""
        if self.total is None:
            return f"{self.completed:,} {self.unit}"
        pct = 100 * self.completed // self.total if self.total > 0 else 100
        return f"{self.completed:,}/{self.total:,} {self.unit} ({pct}%)"

    def line(self, *, end: str | None = None) -> str:
        """The plain form; ``end`` (``"done"``, ``"stopped"``) for the last line of the task."""
        parts = [f"{self.description}: {self.counts()}", format_rate(self.rate, self.unit)]
        if end is None:
            parts += [f"elapsed {format_duration(self.elapsed)}", f"ETA {format_duration(self.eta)}"]
        else:
            parts.append(f"{end} in {format_duration(self.elapsed)}")
        if self.detail:
            parts.append(self.detail)
        return " · ".join(parts)


class _Display:
    def opened(self, task: Task) -> None:
        pass

    def changed(self, task: Task) -> None:
        pass

    def closed(self, task: Task, ok: bool) -> None:
        pass


class _Plain(_Display):
    """Lines on ``stream`` at a bounded rate, written whole (never fitted to a width)."""

    def __init__(self, stream: IO[str], clock: Callable[[], float], every_s: float, min_gap_s: float, step: float):
        self.stream, self.clock = stream, clock
        self.every_s, self.min_gap_s, self.step = every_s, min_gap_s, step
        self.last_at = 0.0
        self.last_step = 0

    def _step(self, task: Task) -> int:
        if not task.total or self.step <= 0:
            return 0
        return int(task.completed / task.total / self.step + 1e-9)

    def _write(self, task: Task, end: str | None = None) -> None:
        self.last_at, self.last_step = self.clock(), self._step(task)
        with contextlib.suppress(OSError, ValueError):  # a closed or broken stream never stops the work
            self.stream.write(task.line(end=end) + "\n")
            self.stream.flush()

    def opened(self, task: Task) -> None:
        self._write(task)

    def changed(self, task: Task) -> None:
        if task.total is not None and task.completed >= task.total:
            return  # all done: the closing line says so
        since = self.clock() - self.last_at
        if since < self.min_gap_s:
            return
        if since >= self.every_s or self._step(task) > self.last_step:
            self._write(task)

    def closed(self, task: Task, ok: bool) -> None:
        self._write(task, end="done" if ok else "stopped")


class _RichHost:
    """The one rich Progress on stderr that every bar shown at the same time shares (rich allows
    one live display): started with the first bar, stopped with the last."""

    progress: Any = None
    users = 0

    @classmethod
    def acquire(cls) -> Any:
        if cls.users == 0:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
            from rich.text import Text

            class TwoLines(Progress):
                """Per task: the description and detail (cut with "…" to the terminal's width), then
                the bar with the numbers, so a long description never squeezes the bar away."""

                def get_renderables(self) -> Any:
                    for t in self.tasks:
                        if t.visible:
                            detail = t.fields.get("detail")
                            head = Text.assemble((t.description, "bold"), *([" · ", detail] if detail else []))
                            head.no_wrap, head.overflow = True, "ellipsis"
                            yield head
                            yield self.make_tasks_table([t])

            cls.progress = TwoLines(
                BarColumn(bar_width=None),
                TextColumn("{task.fields[counts]}"),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("ETA {task.fields[eta]}"),
                expand=True,
                transient=False,
                console=Console(stderr=True),  # stdout stays for results (--json)
            )
            try:
                cls.progress.start()
            except Exception:
                cls.progress = None
                raise
        cls.users += 1
        return cls.progress

    @classmethod
    def release(cls) -> None:
        cls.users -= 1
        if cls.users == 0:
            progress, cls.progress = cls.progress, None
            progress.stop()


class _Bar(_Display):
    def __init__(self, clock: Callable[[], float]):
        self.clock = clock
        self.pushed_at = float("-inf")
        self.progress: Any = None
        self.task_id: Any = None

    def _fields(self, task: Task) -> dict[str, Any]:
        return {
            "description": task.description,
            "total": task.total,
            "completed": task.completed,
            "counts": task.counts(),
            "rate": format_rate(task.rate, task.unit),
            "eta": format_duration(task.eta),
            "detail": task.detail,
        }

    def opened(self, task: Task) -> None:
        self.progress = _RichHost.acquire()
        fields = self._fields(task)
        self.task_id = self.progress.add_task(
            fields.pop("description"), total=fields.pop("total"), completed=fields.pop("completed"), **fields
        )
        self.pushed_at = self.clock()

    def changed(self, task: Task, force: bool = False) -> None:
        now = self.clock()
        if force or now - self.pushed_at >= BAR_PUSH_S:
            self.pushed_at = now
            self.progress.update(self.task_id, **self._fields(task))

    def closed(self, task: Task, ok: bool) -> None:
        try:
            self.changed(task, force=True)
        finally:
            _RichHost.release()


def _plain_wanted(stream: IO[str]) -> bool:
    if os.environ.get(ENV, "").strip().lower() == "plain" or os.environ.get("TERM") == "dumb":
        return True
    try:
        return not stream.isatty()
    except (AttributeError, ValueError, OSError):
        return True


@contextlib.contextmanager
def task(
    description: str,
    total: int | None,
    *,
    unit: str = "items",
    completed: int = 0,
    detail: str = "",
    show: bool = True,
    stream: IO[str] | None = None,
    clock: Callable[[], float] | None = None,
    every_s: float = PLAIN_EVERY_S,
    min_gap_s: float = PLAIN_MIN_GAP_S,
    step: float = PLAIN_STEP,
) -> Iterator[Task]:
    """A :class:`Task` shown while the block runs: a bar on a terminal, plain lines elsewhere,
    nothing when ``show`` is false or progress is off here (:func:`is_enabled`).

    ``stream`` (default: stderr at the time of the call; one given gets the plain lines), ``clock`` (default ``time.monotonic``)
    and the plain form's pacing (``every_s``, ``min_gap_s``, ``step``) can be given for tests."""
    clock = clock or time.monotonic
    out = stream if stream is not None else sys.stderr
    display: _Display
    if not (show and is_enabled()):
        display = _Display()
    elif stream is not None or _plain_wanted(out):  # a stream given: plain lines on it
        display = _Plain(out, clock, every_s, min_gap_s, step)
    else:
        display = _Bar(clock)
    t = Task(description, total, unit=unit, completed=completed, detail=detail, clock=clock, display=display)
    try:
        display.opened(t)
    except Exception:
        if not isinstance(display, _Bar):
            raise
        # the bar cannot start (another live display is on, e.g. one the caller's code made): lines
        display = t._display = _Plain(out, clock, every_s, min_gap_s, step)
        display.opened(t)
    ok = False
    try:
        yield t
        ok = True
    finally:
        display.closed(t, ok)
