"""The ``api:`` backend against a small OpenAI-compatible server of our own on loopback."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image

from huebench.models.api import ApiError
from huebench.models.base import VLMQuery
from huebench.models.registry import load_model
from huebench.runs.runner import RunOptions, run

IMG = Image.new("RGB", (8, 8), (255, 0, 0))


class FakeChat(BaseHTTPRequestHandler):
    """Behaviour per model name: ok, flaky (500 twice), slow (times out), garbage, logprobs, bad-request."""

    hits: dict[str, int] = {}
    bodies: list[dict] = []

    def log_message(self, *args):  # keep test output quiet
        pass

    def _send(self, code: int, payload: object, raw: bytes | None = None) -> None:
        data = raw if raw is not None else json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeChat.bodies.append({"auth": self.headers.get("Authorization"), **body})
        model = body["model"]
        FakeChat.hits[model] = FakeChat.hits.get(model, 0) + 1
        text = next(p["text"] for p in body["messages"][0]["content"] if p["type"] == "text")
        answer = {"choices": [{"message": {"content": "Yes, it is." if "red" in text else "No."}}]}
        if model == "flaky" and FakeChat.hits[model] <= 2:
            return self._send(500, {"error": "overloaded"})
        if model == "slow":
            time.sleep(1.0)
        if model == "garbage":
            return self._send(200, None, raw=b"<html>not json")
        if model == "bad-request":
            return self._send(400, {"error": "bad image"})
        if model == "logprobs":
            answer["choices"][0]["logprobs"] = {
                "content": [
                    {
                        "token": "Yes",
                        "logprob": -0.1,
                        "top_logprobs": [
                            {"token": "Yes", "logprob": -0.2231},
                            {"token": "No", "logprob": -1.6094},
                            {"token": "Maybe", "logprob": -3.0},
                        ],
                    }
                ]
            }
        return self._send(200, answer)


@pytest.fixture
def server(monkeypatch):
    FakeChat.hits = {}
    FakeChat.bodies = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), FakeChat)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("HUEBENCH_API_BASE", f"http://127.0.0.1:{srv.server_address[1]}/v1")
    monkeypatch.setenv("HUEBENCH_API_KEY", "test-key")
    yield srv
    srv.shutdown()
    srv.server_close()


def _q(text):
    return VLMQuery((IMG, text), max_new_tokens=5)


def test_generation_sends_images_and_key(server):
    m = load_model("api:ok", batch_size=2)
    assert m.generate([_q("is the car red?"), _q("is the car blue?")]) == ["Yes, it is.", "No."]
    body = FakeChat.bodies[0]
    assert body["auth"] == "Bearer test-key" and body["temperature"] == 0 and body["max_tokens"] == 5
    img_part = next(p for p in body["messages"][0]["content"] if p["type"] == "image_url")
    assert img_part["image_url"]["url"].startswith("data:image/png;base64,")


def test_yes_probability_from_logprobs_and_from_text(server):
    assert load_model("api:logprobs").yes_probability([_q("red?")])[0] == pytest.approx(0.8 / (0.8 + 0.2), abs=1e-3)
    assert load_model("api:ok").yes_probability([_q("red?"), _q("blue?")]) == [1.0, 0.0]


def test_retries_with_backoff_then_succeeds(server):
    m = load_model("api:flaky", backoff_s=0.01)
    assert m.generate([_q("red?")]) == ["Yes, it is."]
    assert FakeChat.hits["flaky"] == 3


@pytest.mark.parametrize(
    ("model", "options", "message", "attempts"),
    [
        (
            "slow",
            {"timeout_s": 0.2, "max_retries": 1, "backoff_s": 0.01},
            "after 2 attempts; last error: (TimeoutError|URLError)",
            2,
        ),
        ("garbage", {"max_retries": 2, "backoff_s": 0.01}, "after 3 attempts; last error: unparsable response body", 3),
        ("bad-request", {"max_retries": 3, "backoff_s": 0.01}, "HTTP 400.*not retried", 1),
    ],
)
def test_failures_raise_a_clear_error(server, model, options, message, attempts):
    m = load_model(f"api:{model}", **options)
    with pytest.raises(ApiError, match=message):
        m.generate([_q("red?")])
    assert FakeChat.hits[model] == attempts


def test_failing_api_becomes_per_sample_failures_in_a_run(server, tmp_path):
    m = load_model("api:garbage", max_retries=0, backoff_s=0.0)
    res = run(
        RunOptions(
            benchmark="colornames", model="api:garbage", out=tmp_path / "r", no_cache=True, progress=False, limit=2
        ),
        model=m,
    )
    assert res.results["n"] == 0 and res.results["n_failed"] == 2
    assert all("unparsable response body" in r["reason"] for r in res.records)


def test_api_fingerprint_includes_endpoint(server, monkeypatch):
    a = load_model("api:ok").fingerprint
    monkeypatch.setenv("HUEBENCH_API_BASE", "http://127.0.0.1:1/v1")
    assert load_model("api:ok").fingerprint != a
