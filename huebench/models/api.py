"""``api:<model>``: an OpenAI-compatible chat-completions VLM (GPT-4V/4o, vLLM, llama.cpp servers, …).

Configuration comes from the environment: ``HUEBENCH_API_BASE`` (or ``OPENAI_BASE_URL``; default
``https://api.openai.com/v1``) and ``HUEBENCH_API_KEY`` (or ``OPENAI_API_KEY``). Images are sent
inline as PNG data URLs; decoding is greedy (temperature 0).

Failures are expected at scale: timeouts, 429/5xx answers and malformed bodies are retried with
exponential back-off (``max_retries``, ``backoff_s``); after the last attempt an :class:`ApiError`
is raised, which the run layer records as that sample's failure (and retries on ``--resume``).
Client errors (4xx other than 408/429) are not retried: they will not get better.
"""

from __future__ import annotations

import base64
import io
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

import numpy as np

from huebench.errors import HuebenchError
from huebench.images import to_rgb
from huebench.models.base import Capability, Model, VLMQuery

__all__ = ["ApiError", "ApiVLM"]

_RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


class ApiError(HuebenchError, RuntimeError):
    """The API did not give a usable answer after all retries."""


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
        **options: Any,
    ):
        super().__init__(spec, **{k: v for k, v in options.items() if k in ("device", "dtype", "batch_size", "seed")})
        self.model_name = model_name
        self.base_url = (
            base_url
            or os.environ.get("HUEBENCH_API_BASE")
            or os.environ.get("OPENAI_BASE_URL")
            or "https://api.openai.com/v1"
        ).rstrip("/")
        self.api_key = api_key or os.environ.get("HUEBENCH_API_KEY") or os.environ.get("OPENAI_API_KEY") or ""
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.requests_sent = 0

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

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        url = f"{self.base_url}/chat/completions"
        data = json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            self.requests_sent += 1
            try:
                with urllib.request.urlopen(
                    urllib.request.Request(url, data=data, headers=headers), timeout=self.timeout_s
                ) as resp:
                    payload = json.loads(resp.read().decode("utf-8"))
                if not isinstance(payload, dict) or not payload.get("choices"):
                    last = f"malformed response (no choices): {str(payload)[:200]}"
                    continue
                return payload
            except urllib.error.HTTPError as exc:
                last = f"HTTP {exc.code}: {exc.read()[:200]!r}"
                if exc.code not in _RETRY_STATUS:
                    raise ApiError(f"{self.spec}: {last} from {url} (not retried)") from None
            except (TimeoutError, urllib.error.URLError, ConnectionError) as exc:
                last = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                last = f"unparsable response body ({exc})"
        raise ApiError(
            f"{self.spec}: no usable answer from {url} after {self.max_retries + 1} attempts; last error: {last}"
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
                raise ApiError(f"{self.spec}: response without message content: {str(payload)[:200]}") from exc

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
            choice = payload["choices"][0]
            tops = (((choice.get("logprobs") or {}).get("content") or [{}])[0] or {}).get("top_logprobs") or []
            if tops:
                py = sum(np.exp(t["logprob"]) for t in tops if t.get("token", "").strip().lower() == "yes")
                pn = sum(np.exp(t["logprob"]) for t in tops if t.get("token", "").strip().lower() == "no")
                if py + pn > 0:
                    return float(py / (py + pn))
            text = str((choice.get("message") or {}).get("content") or "").strip().lower()
            return 1.0 if text.startswith("yes") else 0.0 if text.startswith("no") else 0.5

        return self._parallel(one, queries)
