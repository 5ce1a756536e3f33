"""Progress of long work (huebench/progress.py): the plain form for logs, its pacing, the bar on a
terminal, turning it off, and the run layer's use of it."""

import io

import pytest

from huebench import progress
from huebench.models.base import run_batched
from huebench.runs.runner import evaluate


class Clock:
    """A clock the test moves by hand: no sleeps."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


LONG = "coda-probe · hf:/a/rather/long/path/to/a/local/checkpoint/folder/of/a/sentence-encoder: training 50 probes"


def _plain(total=1000, description=LONG, **kw):
    clock, out = Clock(), io.StringIO()
    cm = progress.task(
        description, total, unit="epochs", stream=out, clock=clock, every_s=30, min_gap_s=2, step=0.1, **kw
    )
    return clock, out, cm


def test_plain_lines_say_done_total_rate_and_eta_and_are_never_cut():
    clock, out, cm = _plain()
    with cm as t:
        clock.now += 10
        t.advance(250, detail="probe 3/50: seed 1/5, 12 training objects")  # 25 %: a tenth crossed
    first, middle, last = out.getvalue().splitlines()
    assert first == f"{LONG}: 0/1,000 epochs (0%) · ? epochs/s · elapsed 0:00:00 · ETA --:--"
    assert middle == (
        f"{LONG}: 250/1,000 epochs (25%) · 25.0 epochs/s · elapsed 0:00:10 · ETA 0:00:30 · "
        "probe 3/50: seed 1/5, 12 training objects"
    )
    assert last.startswith(f"{LONG}: 250/1,000 epochs (25%) · 25.0 epochs/s · done in 0:00:10 · probe 3/50")
    assert all(len(line) > 80 for line in (first, middle, last))  # whole lines, not fitted to 80 columns


def test_plain_lines_are_rate_limited():
    clock, out, cm = _plain()
    with cm as t:
        for _ in range(99):  # 99 % done within a second: no line but the first
            clock.now += 0.01
            t.advance(10)
        assert len(out.getvalue().splitlines()) == 1
        clock.now += 2  # past the least gap, and tenths were crossed: one line
        t.advance(1)
        assert len(out.getvalue().splitlines()) == 2
        t.advance(1)  # same moment: nothing
        assert len(out.getvalue().splitlines()) == 2
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and "991/1,000" in lines[1] and "done in" in lines[2]


def test_plain_heartbeat_without_a_tenth():
    clock, out, cm = _plain(total=10_000)
    with cm as t:
        for k in range(1, 61):  # 1 unit per second for a minute: 0.6 %, no tenth crossed
            clock.now += 1
            t.advance(1)
            if k in (29, 59):
                assert len(out.getvalue().splitlines()) == 1 + k // 30
    lines = out.getvalue().splitlines()
    assert len(lines) == 4  # start, two heartbeats (30 s, 60 s), done
    assert "30/10,000 epochs (0%) · 1.0 epochs/s · elapsed 0:00:30 · ETA 2:46:10" in lines[1]
    assert "60/10,000" in lines[2]


def test_completed_before_counts_but_not_in_the_rate():
    clock, out, cm = _plain(total=100, completed=40)  # a resumed run: 40 done before
    with cm as t:
        clock.now += 10
        t.advance(20)
        assert t.rate == pytest.approx(2.0) and t.eta == pytest.approx(20.0)
    assert "60/100 epochs (60%) · 2.0 epochs/s" in out.getvalue()


def test_no_total_no_eta():
    clock, out, cm = _plain(total=None)
    with cm as t:
        clock.now += 4
        t.advance(8)
    last = out.getvalue().splitlines()[-1]
    assert "8 epochs · 2.0 epochs/s · done in 0:00:04" in last


def test_stopped_line_when_the_work_fails():
    clock, out, cm = _plain(total=10)
    with pytest.raises(RuntimeError), cm as t:
        t.advance(3)
        raise RuntimeError("boom")
    assert "3/10 epochs (30%)" in out.getvalue().splitlines()[-1] and "stopped in" in out.getvalue()


def test_off_by_context_and_by_environment(monkeypatch):
    out = io.StringIO()
    with progress.enabled(False), progress.task("x", 3, stream=out) as t:
        t.advance(3)
        with progress.enabled(True):  # an inner True does not undo an outer --no-progress
            assert not progress.is_enabled()
    with progress.task("x", 3, stream=out, show=False) as t:
        t.advance(3)
    monkeypatch.setenv("HUEBENCH_PROGRESS", "off")
    with progress.task("x", 3, stream=out) as t:
        t.advance(3)
    assert out.getvalue() == ""


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_the_bar_and_plain_can_be_asked_for(monkeypatch):
    tty = _Tty()
    monkeypatch.setattr("sys.stderr", tty)
    monkeypatch.delenv("TERM", raising=False)
    with progress.task("bar task", 4, unit="samples") as t:
        t.advance(4, detail="all of them")
    text = tty.getvalue()
    assert "bar task" in text and "4/4 samples (100%)" in text and "\x1b[" in text  # drawn by rich
    assert "done in" not in text  # the plain form's ending
    monkeypatch.setenv("HUEBENCH_PROGRESS", "plain")
    tty.seek(0), tty.truncate()
    with progress.task("plain task", 4, unit="samples") as t:
        t.advance(4)
    assert tty.getvalue().splitlines()[-1].startswith("plain task: 4/4 samples (100%)")


def test_model_batches_are_reported_while_inside():
    seen: list[int] = []
    with progress.on_model_batch(seen.append):
        assert run_batched(lambda b: [x * 2 for x in b], list(range(7)), 3) == [x * 2 for x in range(7)]
    run_batched(lambda b: b, [1, 2], 2)  # outside: nobody told
    assert seen == [3, 3, 1]


def test_formats():
    assert progress.format_duration(3725.4) == "1:02:05" and progress.format_duration(None) == "--:--"
    assert progress.format_rate(1234.5, "steps") == "1,234 steps/s"
    assert progress.format_rate(3.21, "samples") == "3.2 samples/s"
    assert progress.format_rate(0.0412, "samples") == "0.041 samples/s"


def test_a_run_shows_plain_progress_in_logs_and_none_with_no_progress(tmp_path, capsys):
    res = evaluate("colornames", "reference:random", out=tmp_path / "on", no_cache=True, limit=5, chunk_size=2)
    err = capsys.readouterr().err.splitlines()
    lines = [x for x in err if x.startswith("colornames · reference:random: ")]
    assert lines[0].startswith("colornames · reference:random: 0/5 samples (0%) · ? samples/s")
    assert "5/5 samples (100%)" in lines[-1] and "done in" in lines[-1] and "failed 0" in lines[-1]
    assert res.results["n"] == 5
    evaluate("colornames", "reference:random", out=tmp_path / "off", no_cache=True, limit=5, progress=False)
    assert "samples" not in capsys.readouterr().err
    for name in ("records.jsonl", "results.json"):  # display only: the run's files are the same
        assert (tmp_path / "on" / name).read_bytes() == (tmp_path / "off" / name).read_bytes()


def test_a_run_moves_within_a_chunk_as_the_model_finishes_batches(tmp_path, monkeypatch):
    out, original = io.StringIO(), progress.task

    def unpaced(*args, **kw):  # every update a line, into `out`
        return original(*args, **kw, stream=out, min_gap_s=0, every_s=0)

    monkeypatch.setattr(progress, "task", unpaced)
    evaluate("colornames", "reference:random", out=tmp_path / "r", no_cache=True, limit=6, batch_size=2, variants=1)
    lines = out.getvalue().splitlines()
    inside = [x for x in lines if "· this chunk: " in x]
    assert inside and all("0/6 samples" in x for x in inside)  # one chunk of 6: the bar waits, the detail moves
    assert "this chunk: 2 model inputs so far" in inside[0] and "done in" in lines[-1]
