"""The Hugging Face Hub without surprises: fail in seconds, and say what to do, when it cannot be reached.

When a file is not in the local cache and its first request fails, ``huggingface_hub`` retries it five
times with back-off (1 + 2 + 4 + 8 + 8 s): a Hub model asked for on a machine without network failed
after 26 s, with a message that never said how to work offline, and a cached model with a file the
cache does not know about took minutes. So before a library is asked for a Hub id (``hf:`` and
``diffusers:`` models), :func:`require_hub` opens one TCP connection to the Hub endpoint (or to the
proxy the environment names) with a short timeout; when that fails it raises at once, saying:

- set ``HF_HUB_OFFLINE=1`` to use the local cache (when the model is there),
- pass a local checkpoint folder (``-m hf:/path/to/model``), or
- run ``huebench prefetch`` on a connected machine and copy its cache here.

Nothing is probed when ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) is set — the libraries then
read only the cache; a model that is not there is refused at once, with how to get it — or when
``HUEBENCH_HUB_PROBE=0``. A successful
probe is remembered for the process. ``HUEBENCH_HUB_PROBE_TIMEOUT`` sets the timeout (default 3 s).
The ``from_pretrained`` calls themselves are unchanged.
"""

from __future__ import annotations

import os
import socket
import threading
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from huebench.errors import HuebenchError

__all__ = [
    "DEFAULT_ENDPOINT",
    "HubUnreachableError",
    "cached_snapshot",
    "hub_cache_dir",
    "hub_endpoint",
    "hub_offline",
    "offline_hint",
    "probe_disabled",
    "probe_hub",
    "require_hub",
    "require_hub_dataset",
]

DEFAULT_ENDPOINT = "https://huggingface.co"
PROBE_TIMEOUT = 3.0  # seconds; HUEBENCH_HUB_PROBE_TIMEOUT overrides
_TRUE = {"1", "ON", "YES", "TRUE"}  # as huggingface_hub reads its boolean variables

#: endpoints that answered a probe in this process (each is probed once)
_REACHABLE: set[str] = set()


class HubUnreachableError(HuebenchError, ConnectionError):
    """The Hub cannot be reached and the library would only retry; the message says what to do."""


def hub_offline() -> bool:
    """Whether ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) asks the libraries to use only the cache."""
    value = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return value.strip().upper() in _TRUE


def hub_endpoint() -> str:
    """The Hub's base URL: ``HF_ENDPOINT`` as it is now, else https://huggingface.co."""
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def hub_cache_dir() -> Path:
    """Where ``huggingface_hub`` keeps downloads (``HF_HUB_CACHE``, else ``$HF_HOME/hub``)."""
    try:
        from huggingface_hub import constants

        return Path(constants.HF_HUB_CACHE)
    except ImportError:  # pragma: no cover - huggingface_hub comes with transformers and diffusers
        home = os.environ.get("HF_HOME") or Path(os.environ.get("XDG_CACHE_HOME") or "~/.cache") / "huggingface"
        return Path(os.environ.get("HF_HUB_CACHE") or Path(home) / "hub").expanduser()


def cached_snapshot(repo_id: str, marker: str = "config.json", repo_type: str = "model") -> Path | None:
    """The cached snapshot folder of ``repo_id`` (its ``main`` revision) holding ``marker``, or ``None``."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover
        return None
    try:
        hit = try_to_load_from_cache(repo_id, marker, repo_type=repo_type)
    except Exception:  # not a valid repo id, an unreadable cache: not cached as far as we can tell
        return None
    return Path(hit).parent if isinstance(hit, str) else None


def _target(endpoint: str) -> tuple[str, int, str]:
    """``(host, port, via)``: where a connection to ``endpoint`` goes — the endpoint itself, or the
    proxy the environment names for its scheme (``HTTPS_PROXY``, ``ALL_PROXY``; ``NO_PROXY`` respected)."""
    url = urlsplit(endpoint)
    scheme = url.scheme or "https"
    host = url.hostname or ""
    port = url.port or (443 if scheme == "https" else 80)
    proxies = urllib.request.getproxies()
    proxy = proxies.get(scheme) or proxies.get("all")
    if proxy and host and not urllib.request.proxy_bypass(host):
        p = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        if p.hostname:
            default = {"https": 443, "socks5": 1080, "socks5h": 1080}.get(p.scheme, 80)
            return p.hostname, p.port or default, f" through the proxy {p.hostname}:{p.port or default}"
    return host, port, ""


def probe_disabled() -> bool:
    """Whether ``HUEBENCH_HUB_PROBE=0`` turns the reachability probe off."""
    return (os.environ.get("HUEBENCH_HUB_PROBE") or "1").strip().upper() in {"0", "OFF", "NO", "FALSE"}


def probe_hub(endpoint: str | None = None, timeout: float | None = None) -> str | None:
    """``None`` when a TCP connection to the Hub endpoint (or its proxy) opens within ``timeout``
    seconds, else why not, in a few words. The name lookup is bounded too (it runs in a thread)."""
    endpoint = endpoint or hub_endpoint()
    if timeout is None:
        try:
            timeout = float(os.environ.get("HUEBENCH_HUB_PROBE_TIMEOUT") or PROBE_TIMEOUT)
        except ValueError:
            timeout = PROBE_TIMEOUT
    try:
        host, port, via = _target(endpoint)
    except ValueError as exc:  # a port that is not a number
        return f"{endpoint} is not a URL ({exc})"
    if not host:
        return f"{endpoint} is not a URL with a host"
    outcome: list[str | None] = []

    def connect() -> None:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                outcome.append(None)
        except OSError as exc:
            outcome.append((exc.strerror or str(exc) or type(exc).__name__) + via)

    thread = threading.Thread(target=connect, name="huebench-hub-probe", daemon=True)
    thread.start()
    thread.join(timeout + 1.0)  # getaddrinfo has no timeout of its own
    if not outcome:
        return f"no answer within {timeout:g} s{via}"
    return outcome[0]


def offline_hint(requested: str, *, then_offline: bool = True) -> str:
    """How to get ``requested`` (an alias or spec) without network, for the end of a message."""
    then = ", then set HF_HUB_OFFLINE=1" if then_offline else ""
    return (
        f"download it ahead of time on a connected machine with `huebench prefetch -m {requested}` and copy "
        f"{hub_cache_dir()} here{then}; or pass a local checkpoint folder (-m hf:/path/to/model)"
    )


def _installed_alias(spec: str) -> str | None:
    """An alias whose offline package provides ``spec`` and is installed (``minilm-l6-v2``), if any."""
    from huebench.models.registry import entries

    for entry in entries():
        if entry.source == spec and entry.offline_package is not None and entry.offline_package.location():
            return entry.alias
    return None


def require_hub(ident: str, spec: str, *, requested: str | None = None, marker: str = "config.json") -> None:
    """Before a library is asked for ``ident`` from the Hub: raise :class:`HubUnreachableError` now if
    the Hub cannot be reached (instead of 26 s of retries and a message without a way out).

    ``ident`` that is a path passes (a folder is local; a missing one is the loader's to report). With
    ``HF_HUB_OFFLINE=1`` nothing is probed: a model missing from the cache is refused at once, with
    how to get it. ``HUEBENCH_HUB_PROBE=0`` turns the probe off."""
    from huebench.models._weights import is_path_like

    if Path(ident).expanduser().exists() or is_path_like(ident):
        return  # a folder, or meant as one (the loader says it is missing)
    requested = requested or spec
    if hub_offline():
        if cached_snapshot(ident, marker) is None:  # what the library would look up, failing in many lines
            raise HubUnreachableError(
                f"{spec}: HF_HUB_OFFLINE=1 is set and {ident} is not in the local cache ({hub_cache_dir()}): "
                + offline_hint(requested, then_offline=False)
            )
        return
    if probe_disabled():
        return
    endpoint = hub_endpoint()
    if endpoint in _REACHABLE:
        return
    why = probe_hub(endpoint)
    if why is None:
        _REACHABLE.add(endpoint)
        return
    head = f"{spec}: cannot reach the Hugging Face Hub at {endpoint} ({why})"
    alias = _installed_alias(spec)
    if alias is not None:
        raise HubUnreachableError(
            f"{head}; the installed package behind the alias {alias!r} has this model: use -m {alias}"
        )
    snapshot = cached_snapshot(ident, marker)
    if snapshot is not None:
        raise HubUnreachableError(
            f"{head}; {ident} is in the local cache ({snapshot}): set HF_HUB_OFFLINE=1 to load it from there "
            "without asking the Hub (without it, the library retries the Hub for every file it looks for)"
        )
    raise HubUnreachableError(f"{head}, and {ident} is not in the local cache: {offline_hint(requested)}")


def require_hub_dataset(dataset_id: str) -> None:
    """:func:`require_hub` for a Hub dataset: fail in seconds when the Hub cannot be reached. With
    ``HF_HUB_OFFLINE=1`` the ``datasets`` library reads its own cache and fails fast itself."""
    if not hub_offline():
        require_hub(dataset_id, f"hf:{dataset_id}", marker="README.md")
