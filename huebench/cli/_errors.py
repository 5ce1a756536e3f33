"""Turn errors into one clear line and a meaningful exit status; ``--debug`` shows tracebacks.

0 all done · 1 some samples failed · 2 usage or input error (a :class:`HuebenchError`, a file the
system refused: missing, unwritable, disk full) · 3 an internal error (a bug: please report it).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import typer
from rich.console import Console

from huebench.errors import HuebenchError

#: set by ``huebench --debug``: errors propagate with their tracebacks
DEBUG = False


def _trace() -> None:
    """With ``--debug``: the traceback first (the one-line message and the exit status stay)."""
    if DEBUG:
        import traceback

        traceback.print_exc()


def _say(message: str) -> None:
    from rich.markup import escape

    from huebench.redact import redact

    text = " ".join(redact(message).split())  # one line, whatever the exception's text held
    Console(stderr=True, soft_wrap=True).print(f"[bold red]error:[/] {escape(text)}", highlight=False)


def run_app(app: typer.Typer, before: Callable[[], object] | None = None) -> None:
    """Run ``app`` (after ``before``, whose errors are reported the same way) and exit with its status."""
    try:  # typer ≥ 0.20 carries its own copy of click
        from typer._click import exceptions as click_exceptions
    except ImportError:  # pragma: no cover - older typer uses click itself
        from click import exceptions as click_exceptions  # type: ignore[no-redef]  # the same API, from click itself

    interrupted_run = None  # the folder of a run stopped by Ctrl-C
    try:
        if before is not None:
            before()
        status = app(standalone_mode=False, prog_name="huebench")
    except (typer.Abort, KeyboardInterrupt):
        status = 130
    except click_exceptions.ClickException as exc:  # usage: unknown option, bad value, missing argument
        _trace()
        if type(exc).__name__ == "NoArgsIsHelpError":  # a bare group: its help is the answer
            exc.show()
            sys.exit(exc.exit_code)
        ctx = getattr(exc, "ctx", None)
        hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        _say(exc.format_message() + hint)
        sys.exit(exc.exit_code)
    except SystemExit:
        raise
    except HuebenchError as exc:
        _trace()
        _say(str(exc))
        sys.exit(2)
    except OSError as exc:  # the system refused a file: no space, no permission, not found
        _trace()
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        hint = " (free some space, then continue with --resume)" if exc.errno == 28 else ""
        _say(f"{where}{exc.strerror or exc}{hint}")
        sys.exit(2)
    except Exception as exc:
        _trace()
        _say(
            f"internal error: {type(exc).__name__}: {exc} — this is a huebench bug; rerun with --debug "
            "for the traceback and report it"
        )
        sys.exit(3)
    except BaseException as exc:
        from huebench.runs.runner import RunInterrupted  # late: the run layer is not needed to start

        if not isinstance(exc, RunInterrupted):  # Ctrl-C during a run, with its folder
            raise
        status, interrupted_run = 130, exc.run_dir
        if not exc.n_records:
            _say(f"interrupted before {interrupted_run} recorded a sample: nothing was kept; run the command again")
            sys.exit(130)
    if status == 130:  # Ctrl-C (typer turns it into exit status 130)
        _say(
            (
                f"interrupted: {interrupted_run} keeps what was recorded"
                if interrupted_run
                else "interrupted: what was recorded is kept"
            )
            + "; continue the run with the same command and --resume"
        )
    sys.exit(status if isinstance(status, int) else 0)
