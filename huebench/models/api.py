"""``api:<model>``: an OpenAI-compatible chat-completions VLM (GPT-4V/4o, vLLM, llama.cpp servers, …).

Configuration comes from the environment: ``HUEBENCH_API_BASE`` (or ``OPENAI_BASE_URL``; default
``https://api.openai.com/v1``) and ``HUEBENCH_API_KEY`` (or ``OPENAI_API_KEY``). Images are sent
inline as PNG data URLs; decoding is greedy (temperature 0).

Failures are expected at scale: timeouts, 408/409/425/429/5xx answers and malformed bodies are
retried with exponential back-off (``max_retries``, ``backoff_s``); after the last attempt an
:class:`ApiError` is raised, which the run layer records as that sample's failure (and retries on
``--resume``). Client errors (other 4xx) are not retried: they will not get better.

Security:

* The key goes to the configured origin (scheme, host, port) only: **no redirect is followed**,
  not even one to the same origin. A 3xx answer is an :class:`ApiError` naming the status and the
  origin of its ``Location`` (never its path or query), not retried; point ``HUEBENCH_API_BASE``
  at the final URL instead. The opener is this object's own (no global ``urllib`` state is used
  or changed); proxies from the environment are honoured as before.
* ``https`` is required unless the host is loopback (``localhost``, ``127.0.0.0/8``, ``::1``):
  plain ``http`` to another host is refused when the model is made, before anything is sent,
  unless ``HUEBENCH_API_ALLOW_HTTP=1`` or ``allow_http=True`` says it is meant.
* Credentials are never recorded: the key (and any password in the URL) is registered with
  :func:`huebench.redact.register_secret`; every :class:`ApiError` message goes through
  :func:`huebench.redact.redact` (a server echoing the key in an error body shows ``***``); the
  ``base_url`` in :meth:`ApiVLM.fingerprint_parts` and in messages has no ``user:password@`` and
  its secret-looking query values (``?api_key=``, ``?key=``, …) read ``***``.
* A base URL carrying ``user:password@`` is refused when no key is configured (the key belongs in
  ``HUEBENCH_API_KEY``); with a key configured the userinfo is dropped and never sent.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import io
import ipaddress
import json
import os
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

import numpy as np

from huebench.errors import HuebenchError
from huebench.images import to_rgb
from huebench.models.base import Capability, Model, VLMQuery
from huebench.redact import redact, register_secret, register_url_secrets, strip_url_credentials

__all__ = ["ApiConfigError", "ApiError", "ApiVLM"]

_RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
#: a response body larger than this is not read (no chat completion comes near it)
_MAX_BODY_BYTES = 32 * 1024 * 1024
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}


class ApiError(HuebenchError, RuntimeError):
    """The API did not give a usable answer after all retries (the message is redacted)."""

    def __init__(self, message: str):
        super().__init__(redact(message))


class ApiConfigError(HuebenchError, ValueError):
    """The endpoint configuration is refused (before anything is sent); the message says how to fix it."""

    def __init__(self, message: str):
        super().__init__(redact(message))


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    """Every 3xx stays an :class:`urllib.error.HTTPError`: the request (and its key) goes nowhere else."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        raise urllib.error.HTTPError(newurl, code, msg, headers, fp)


def _opener() -> urllib.request.OpenerDirector:
    opener = urllib.request.OpenerDirector()
    for handler in (
        urllib.request.ProxyHandler(),  # HTTP(S)_PROXY / NO_PROXY from the environment, as urlopen does
        urllib.request.HTTPHandler(),
        urllib.request.HTTPSHandler(),
        urllib.request.HTTPDefaultErrorHandler(),
        _RefuseRedirects(),
        urllib.request.HTTPErrorProcessor(),
    ):
        opener.add_handler(handler)
    return opener


def _origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url``, nothing else (no userinfo, path or query)."""
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "(unparsable URL)"
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


def _is_loopback(host: str) -> bool:
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        addr = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(addr, "ipv4_mapped", None)
    return bool(addr.is_loopback or (mapped is not None and mapped.is_loopback))


def _env_flag(name: str) -> bool:
    raw = os.environ.get(name, "")
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ApiConfigError(f"{name}={raw!r} is not understood; use {name}=1 to allow it or leave it unset")


def _excerpt(text: str, n: int = 200) -> str:
    """The start of a server's text for a message: redacted first, so no secret is cut in half."""
    return redact(text)[:n]


def _read_quietly(exc: urllib.error.HTTPError) -> str:
    try:
        return exc.read(4096).decode("utf-8", "replace")
    except (OSError, ValueError, AttributeError, http.client.HTTPException):
        return ""


def _close_quietly(exc: urllib.error.HTTPError) -> None:
    # an HTTPError made without a response has nothing to close
    with contextlib.suppress(OSError, ValueError, AttributeError):
        exc.close()


def _yes_from_choice(choice: dict[str, Any]) -> float:
    tops = (((choice.get("logprobs") or {}).get("content") or [{}])[0] or {}).get("top_logprobs") or []
    if tops:
        py = sum(np.exp(float(t["logprob"])) for t in tops if str(t.get("token", "")).strip().lower() == "yes")
        pn = sum(np.exp(float(t["logprob"])) for t in tops if str(t.get("token", "")).strip().lower() == "no")
        if py + pn > 0:
            return float(py / (py + pn))
    text = str((choice.get("message") or {}).get("content") or "").strip().lower()
    return 1.0 if text.startswith("yes") else 0.0 if text.startswith("no") else 0.5


def _data_url(image: Any) -> str:
    buf = io.BytesIO()
    to_rgb(image).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


class ApiVLM(Model):
    family: ClassVar[str] = "api-chat"
    capabilities: ClassVar[frozenset[Capability]] = frozenset({Capability.VLM})

    def __init__(
        self,
        spec: str,
        *,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 4,
        backoff_s: float = 1.0,
        allow_http: bool | None = None,
        **options: Any,
    ):
        super().__init__(spec, **{k: v for k, v in options.items() if k in ("device", "dtype", "batch_size", "seed")})
        self.model_name = model_name
        api_key = api_key or os.environ.get("HUEBENCH_API_KEY") or os.environ.get("OPENAI_API_KEY") or ""
        register_secret(api_key)  # before any message could carry it
        raw_url = (
            base_url
            or os.environ.get("HUEBENCH_API_BASE")
            or os.environ.get("OPENAI_BASE_URL")
            or "https://api.openai.com/v1"
        ).strip()
        if allow_http is None:
            allow_http = _env_flag("HUEBENCH_API_ALLOW_HTTP")
        self._endpoint = self._check_url(raw_url, has_key=bool(api_key), allow_http=allow_http)
        #: the base URL as recorded and shown: no credentials
        self.base_url = strip_url_credentials(self._endpoint)
        self._origin = _origin(self._endpoint)
        self._api_key = api_key
        self._opener = _opener()
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.requests_sent = 0

    @staticmethod
    def _check_url(raw: str, *, has_key: bool, allow_http: bool) -> str:
        """The request base URL (without userinfo), or :class:`ApiConfigError` saying what to fix."""
        shown = strip_url_credentials(raw)
        try:
            parts = urllib.parse.urlsplit(raw)
            host = parts.hostname or ""
            parts.port  # noqa: B018 - raises ValueError on a bad port
        except ValueError as exc:
            raise ApiConfigError(
                f"API base URL {shown!r} is not a valid URL ({exc}); set HUEBENCH_API_BASE to e.g. https://host/v1"
            ) from None
        if parts.scheme not in ("http", "https") or not host:
            raise ApiConfigError(
                f"API base URL {shown!r} is not an http(s) URL with a host; set HUEBENCH_API_BASE to e.g. https://host/v1"
            )
        register_url_secrets(raw)  # userinfo and ?api_key=… values: masked wherever they come back
        _, at, hostport = parts.netloc.rpartition("@")
        if at and not has_key:
            raise ApiConfigError(
                f"API base URL {shown!r} carries credentials (user:password@); they are not sent and would be "
                "recorded: put the key in HUEBENCH_API_KEY and remove them from the URL"
            )
        if parts.scheme == "http" and not _is_loopback(host) and not allow_http:
            raise ApiConfigError(
                f"API base URL {shown!r} is plain http to a non-loopback host: the key and the images would travel "
                "unencrypted; use https://, or set HUEBENCH_API_ALLOW_HTTP=1 if this is intended"
            )
        return urllib.parse.urlunsplit((parts.scheme, hostport, parts.path.rstrip("/"), parts.query, ""))

    def fingerprint_parts(self) -> dict[str, Any]:
        # the endpoint is part of the identity: the same model name on two servers may differ
        return {**super().fingerprint_parts(), "model": self.model_name, "base_url": self.base_url}

    def _messages(self, q: VLMQuery) -> list[dict[str, Any]]:
        content = [
            {"type": "text", "text": p}
            if isinstance(p, str)
            else {"type": "image_url", "image_url": {"url": _data_url(p)}}
            for p in q.parts
        ]
        return [{"role": "user", "content": content}]

    def _url(self, path: str) -> str:
        parts = urllib.parse.urlsplit(self._endpoint)
        return urllib.parse.urlunsplit(parts._replace(path=parts.path + path))

    def _redirect_error(self, exc: urllib.error.HTTPError, url: str) -> ApiError:
        headers = exc.headers  # None when the error was made without headers
        location = (headers.get("Location") or headers.get("URI")) if headers is not None else None
        target = _origin(urllib.parse.urljoin(url, location)) if location else "nowhere (no Location header)"
        return ApiError(
            f"{self.spec}: HTTP {exc.code} redirect from {self._origin} to {target} not followed (not retried): "
            f"huebench follows no redirects, so the API key is only ever sent to {self._origin}; "
            "if the new address is the right server, set HUEBENCH_API_BASE to it"
        )

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        url = self._url("/chat/completions")
        shown = f"{self.base_url}/chat/completions"
        data = json.dumps(body).encode("utf-8")
        last = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            self.requests_sent += 1
            req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}, method="POST")
            if self._api_key:  # an unredirected header: never copied onto a follow-up request
                req.add_unredirected_header("Authorization", f"Bearer {self._api_key}")
            try:
                with self._opener.open(req, timeout=self.timeout_s) as resp:
                    raw = resp.read(_MAX_BODY_BYTES + 1)
                if len(raw) > _MAX_BODY_BYTES:
                    raise ApiError(
                        f"{self.spec}: response from {shown} is over {_MAX_BODY_BYTES // 2**20} MiB (not retried)"
                    )
                payload = json.loads(raw.decode("utf-8"))
                if not isinstance(payload, dict) or not payload.get("choices"):
                    last = f"malformed response (no choices): {_excerpt(str(payload))}"
                    continue
                return payload
            except urllib.error.HTTPError as exc:
                try:
                    if 300 <= exc.code < 400:
                        raise self._redirect_error(exc, url) from None
                    last = f"HTTP {exc.code}: {_excerpt(_read_quietly(exc))!r}"
                finally:
                    _close_quietly(exc)  # the error response holds its connection until closed
                if exc.code not in _RETRY_STATUS:
                    raise ApiError(f"{self.spec}: {last} from {shown} (not retried)") from None
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, ssl.SSLCertVerificationError):
                    raise ApiError(
                        f"{self.spec}: TLS certificate of {self._origin} not accepted ({exc.reason.verify_message}); "
                        "not retried"
                    ) from None
                last = f"{type(exc).__name__}: {exc.reason}"
            except (TimeoutError, ConnectionError, http.client.HTTPException) as exc:
                last = f"{type(exc).__name__}: {exc}"
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                last = f"unparsable response body ({exc})"
        raise ApiError(
            f"{self.spec}: no usable answer from {shown} after {self.max_retries + 1} attempts; last error: {last}"
        )

    def _parallel(self, fn: Any, queries: Sequence[VLMQuery]) -> list[Any]:
        def run(batch: list[VLMQuery]) -> list[Any]:
            with ThreadPoolExecutor(max_workers=max(1, len(batch))) as pool:
                return list(pool.map(fn, batch))

        return self._batched(run, list(queries))

    def generate(self, queries: Sequence[VLMQuery]) -> list[str]:
        def one(q: VLMQuery) -> str:
            payload = self._post(
                {
                    "model": self.model_name,
                    "messages": self._messages(q),
                    "temperature": 0,
                    "max_tokens": q.max_new_tokens,
                }
            )
            try:
                return str(payload["choices"][0]["message"]["content"] or "").strip()
            except (KeyError, IndexError, TypeError) as exc:
                raise ApiError(f"{self.spec}: response without message content: {_excerpt(str(payload))}") from exc

        return self._parallel(one, queries)

    def yes_probability(self, queries: Sequence[VLMQuery]) -> list[float]:
        """From the first token's ``top_logprobs`` when the server returns them; otherwise 1.0 for an
        answer starting with "yes", 0.0 for "no", and 0.5 for anything else."""

        def one(q: VLMQuery) -> float:
            body = {
                "model": self.model_name,
                "messages": self._messages(q),
                "temperature": 0,
                "max_tokens": 1,
                "logprobs": True,
                "top_logprobs": 20,
            }
            payload = self._post(body)
            try:
                return _yes_from_choice(payload["choices"][0])
            except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
                raise ApiError(f"{self.spec}: response not understood: {_excerpt(str(payload))}") from exc

        return self._parallel(one, queries)
