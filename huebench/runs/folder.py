"""The run folder on disk: reading it safely, locking it, and fingerprinting a run's inputs.

Everything here either reads a run folder without changing it (``read_config``, ``read_records``,
``run_state``) or is used by the one process that holds the folder's lock (``RunLock``,
``remove_stale_temporaries``). Reports and rescoring only read.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from huebench.errors import HuebenchError
from huebench.io import InputFileError, read_jsonl

__all__ = [
    "RunFolderError",
    "RunLock",
    "RunState",
    "input_fingerprint",
    "path_fingerprint",
    "read_config",
    "read_records",
    "remove_stale_temporaries",
    "run_state",
    "sample_hash",
]

LOCK_NAME = "run.lock"
#: in a folder, data files up to this size are hashed by content; other files by size and time
CONTENT_HASH_MAX_BYTES = 8 * 1024 * 1024
DATA_SUFFIXES = frozenset({".json", ".jsonl", ".csv", ".tsv", ".txt", ".yaml", ".yml"})


class RunFolderError(HuebenchError, ValueError):
    """A run folder is missing, damaged or busy; the message names the file and the fix."""


def read_config(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "config.json"
    if not run_dir.is_dir():
        raise RunFolderError(f"{run_dir}: no such run folder (expected config.json and records.jsonl inside)")
    if not path.is_file():
        raise RunFolderError(f"{path}: missing; is {run_dir} a huebench run folder?")
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RunFolderError(
            f"{path}: damaged ({exc}); the run's settings are unknown, so its records cannot be used: "
            "start a new run in another --out"
        ) from None
    missing = (
        [k for k in ("benchmark", "benchmark_options", "model") if k not in config]
        if isinstance(config, dict)
        else ["all"]
    )
    if missing:
        raise RunFolderError(f"{path}: not a huebench run config (missing {', '.join(missing)}); start a new run")
    shapes: dict[str, Any] = {
        "benchmark": str,
        "benchmark_options": dict,
        "model": dict,
        "inputs": (dict, type(None)),
        "versions": (dict, type(None)),
        "seed": (int, type(None)),
    }
    for key, kind in shapes.items():
        if key in config and not isinstance(config[key], kind):
            raise RunFolderError(
                f"{path}: {key} is {config[key]!r:.60}, not what huebench wrote there: the file was edited or "
                "damaged; restore it, or start a new run"
            )
    model = config["model"]
    if not isinstance(model.get("spec"), str) or not isinstance(model.get("fingerprint"), str):
        raise RunFolderError(f"{path}: model lacks its spec or fingerprint; restore the file, or start a new run")
    return config


def read_records(path: Path) -> dict[str, dict[str, Any]]:
    """The latest record per sample id, in first-seen order (a retried failure supersedes). A torn
    last line (a killed writer) is skipped; any other damage is a one-line error naming the line."""
    latest: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return latest
    for line, rec in read_jsonl(path, allow_torn_tail=True):
        rid = rec.get("id")
        if not isinstance(rid, str) or not rid:
            raise InputFileError(
                f"{path}:{line}: record without a text 'id'; the run's records are damaged: "
                "delete that line (the sample is then evaluated again on --resume)"
            )
        latest[rid] = rec
    return latest


class RunLock:
    """An exclusive ``flock`` on ``run.lock`` while a run writes its folder. The OS drops it when the
    process dies, so a killed run never leaves the folder locked; readers use :func:`run_state`."""

    def __init__(self, run_dir: Path):
        self.path = run_dir / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> RunLock:
        # A reader's brief shared lock (is_locked) or a releasing run's unlink can race with us: retry
        # for a moment, and make sure the file we locked is still the one at the path.
        deadline = time.monotonic() + 2.0
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                os.close(fd)
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() > deadline:
                    raise RunFolderError(
                        f"{self.path.parent}: another huebench process is running in this folder; "
                        "wait for it to finish, or choose another --out"
                    ) from None
                time.sleep(0.05)
                continue
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self._fd = fd
                return self
            os.close(fd)  # we locked a file its owner had just removed: lock the one at the path

    def release(self, *, remove: bool = True) -> None:
        if self._fd is None:
            return
        if remove:  # while still holding the lock: acquire() checks that it locked the file at the path
            with contextlib.suppress(OSError):
                self.path.unlink()
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None


def is_locked(run_dir: Path) -> bool:
    """Whether a live process holds ``run_dir``'s lock (read-only: the lock file is only opened)."""
    path = run_dir / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


@dataclass(frozen=True)
class RunState:
    """What a reader can tell about a run folder without changing it."""

    status: str  # "complete", "running" (a live process holds the lock) or "interrupted"
    n_records: int
    n_samples: int | None  # from config.json's inputs; None for runs made before it was recorded

    @property
    def partial(self) -> bool:
        return self.status != "complete"

    def describe(self) -> str:
        total = f" of {self.n_samples:,}" if self.n_samples is not None else ""
        if self.status == "running":
            return f"partial: the run is still going ({self.n_records:,}{total} samples recorded so far)"
        if self.status == "interrupted":
            return (
                f"partial: the run stopped early ({self.n_records:,}{total} samples recorded; finish it with --resume)"
            )
        return f"complete ({self.n_records:,} samples)"


def run_state(run_dir: Path, config: dict[str, Any], records: dict[str, dict[str, Any]]) -> RunState:
    n_samples = (config.get("inputs") or {}).get("samples") if isinstance(config.get("inputs"), dict) else None
    if n_samples is not None and (not isinstance(n_samples, int) or isinstance(n_samples, bool)):
        raise RunFolderError(
            f"{run_dir / 'config.json'}: inputs.samples is {n_samples!r}, not a count: the file was edited or "
            "damaged; restore it, or start a new run"
        )
    if is_locked(run_dir):
        status = "running"
    elif (run_dir / LOCK_NAME).exists():
        status = "interrupted"  # a lock file nobody holds: its process died
    elif n_samples is not None:
        status = "complete" if len(records) >= n_samples else "interrupted"
    else:  # a run made before the sample count was recorded: its results.json marks the end
        status = "complete" if (run_dir / "results.json").exists() else "interrupted"
    return RunState(status, len(records), n_samples)


def remove_stale_temporaries(run_dir: Path) -> list[str]:
    """Delete the temporary files a killed atomic write left (``.NAME.xxxx.tmp``); only the lock
    holder calls this, so no live writer owns them."""
    removed = []
    for p in run_dir.glob(".*.tmp"):
        if p.is_file():
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
                removed.append(p.name)
    return removed


def sample_hash(sample_id: str, inputs: Any) -> str:
    from huebench.hashing import canonical_json

    return hashlib.sha256(canonical_json([sample_id, inputs]).encode("utf-8")).hexdigest()[:16]


def path_fingerprint(path: Path, *, exclude: Path | None = None) -> str:
    """SHA-256 of a file's content; for a folder, of each file's relative path with its content for
    data files (``DATA_SUFFIXES``, up to ``CONTENT_HASH_MAX_BYTES``) and its size and modification
    time for the rest (images: a dataset root can hold gigabytes; an edit changes the time)."""
    if path.is_file():
        with open(path, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    h = hashlib.sha256()
    root = path.resolve()
    skip = exclude.resolve() if exclude is not None else None
    for dirpath, dirnames, filenames in os.walk(root):
        if skip is not None:  # a run folder inside its own input folder: its files are not inputs
            dirnames[:] = [d for d in dirnames if (Path(dirpath) / d).resolve() != skip]
        dirnames.sort()
        for name in sorted(filenames):
            p = Path(dirpath) / name
            try:
                st = p.stat()
            except OSError:
                continue
            h.update(p.relative_to(root).as_posix().encode("utf-8", "surrogateescape") + b"\x00")
            if p.suffix.lower() in DATA_SUFFIXES and st.st_size <= CONTENT_HASH_MAX_BYTES:
                with open(p, "rb") as fh:
                    h.update(hashlib.file_digest(fh, "sha256").digest())
            else:
                h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()


def input_fingerprint(paths: dict[str, Path], samples: Sequence[Any], *, exclude: Path | None = None) -> dict[str, Any]:
    """What a run's results depend on besides its options: every sample (id and inputs) and the
    content of the files and folders its options name. ``--resume`` refuses a different one."""
    digest = hashlib.sha256()
    for s in samples:
        digest.update(sample_hash(s.id, s.inputs).encode() + b"\n")
    return {
        "samples": len(samples),
        "samples_sha256": digest.hexdigest(),
        "files": {name: path_fingerprint(p, exclude=exclude) for name, p in sorted(paths.items())},
    }
