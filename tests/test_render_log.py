"""Mitsuba's own log goes to Python logging: no coloured, timestamped lines in piped logs, and its
Ctrl-C notice is a debug record (huebench says itself what an interrupted run kept)."""

import logging
import subprocess
import sys

import pytest

pytest.importorskip("mitsuba")

# a long render in a child process, stopped by SIGINT a second in, as Ctrl-C would. The child takes
# Python's own SIGINT handler: a shell's background job (CI's, a test runner's) inherits SIGINT ignored
INTERRUPTED_RENDER = """
import os, signal, sys, threading, time
signal.signal(signal.SIGINT, signal.default_int_handler)
from huebench.benchmarks.gencolor.render import RenderSpec, render
render(RenderSpec("sphere", (200, 30, 30), size=8, spp=1))
threading.Thread(target=lambda: (time.sleep(1.0), os.kill(os.getpid(), signal.SIGINT)), daemon=True).start()
try:
    render(RenderSpec("vase", (200, 30, 30), size=256, spp=4096))
except KeyboardInterrupt:
    print("interrupted", file=sys.stderr)
"""


def test_an_interrupted_render_leaves_no_mitsuba_line_on_stderr():
    proc = subprocess.run([sys.executable, "-c", INTERRUPTED_RENDER], capture_output=True, text=True, timeout=120)
    assert proc.stderr.strip() == "interrupted", proc.stderr  # nothing else: no WARN line, no colour codes


def test_mitsuba_warnings_are_python_log_records(caplog):
    from huebench.benchmarks.gencolor.render import _mitsuba

    mi = _mitsuba()
    with caplog.at_level(logging.DEBUG, logger="huebench.benchmarks.gencolor.render"):
        mi.Log(mi.LogLevel.Warn, "a scene warning")
        mi.Log(mi.LogLevel.Warn, "Received interrupt signal, winding down..")
    (warning, notice) = caplog.records
    assert warning.levelno == logging.WARNING and warning.getMessage().endswith("a scene warning")
    assert "\x1b" not in warning.getMessage() and "WARN" not in warning.getMessage()  # no colour, level or date
    assert notice.levelno == logging.DEBUG and "Received interrupt signal" in notice.getMessage()
